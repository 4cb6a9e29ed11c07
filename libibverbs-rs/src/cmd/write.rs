//! The write() transport and the ioctl-to-write() fallback (upstream's
//! `cmd_fallback.c`).
//!
//! A write() command is `ib_uverbs_cmd_hdr` + core struct (+ provider data),
//! answered into the buffer the core struct's `response` field points to; an
//! extended command is [`ex_hdr`] + core struct (+ provider data) with the
//! response pointer in the extended header. Sizes travel in 4-byte words
//! (classic) or 8-byte words (extended). When the context's
//! `use_ioctl_write` is set, the same command goes through the ioctl method
//! `UVERBS_METHOD_INVOKE_WRITE` instead, split into CORE_IN/CORE_OUT/UHW_IN/
//! UHW_OUT attributes.
//!
//! For helpers that build an ioctl command and fall back to write(), the
//! provider's UHW data sits in the compatibility buffer linked to the ioctl
//! buffer; the write() command is then assembled in place, directly before
//! the provider's data (the "headroom" the provider's own command struct
//! reserves), so the kernel receives header, core struct and driver data as
//! one contiguous block ([`execute_write_bufs`]).

use core::mem::{offset_of, size_of, MaybeUninit};
use core::ptr;
use libc::{c_int, c_void};

use super::ioctl::{attrs_of, ibv_command_buffer, CmdBuf, CmdSpace, _UHW_NO_INDEX};
use super::ioctl::{CMDB_FALLBACK_IOCTL_ONLY, CMDB_FALLBACK_REQUIRE_EX};
use super::{cmd_state, sys};
use crate::abi::kern::*;
use crate::abi::verbs::ibv_context;
use rdma_util::ffi::{errno, set_errno};

/// What a helper does after trying its ioctl (upstream's `enum write_fallback`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fallback {
    /// The kernel lacks the method: use the classic write() command.
    TryWrite,
    /// The kernel lacks the method: use the extended write() command.
    TryWriteEx,
    /// Failed with this errno value.
    Error(c_int),
    /// The ioctl did the work.
    Success,
}

/// The result a destroy helper carries on with when its switch has no arm
/// for the fallback outcome (upstream: `default: break;`).
pub(crate) fn fallback_result(f: Fallback) -> c_int {
    match f {
        Fallback::Success => 0,
        Fallback::Error(e) => e,
        Fallback::TryWrite | Fallback::TryWriteEx => {
            set_errno(libc::EOPNOTSUPP);
            libc::EOPNOTSUPP
        }
    }
}

/// Decides how to proceed without the ioctl: the linked (provider) buffers
/// may only carry UHW data or optional attributes, and their fallback flags
/// add to the core buffer's (upstream's `_check_legacy`).
///
/// # Safety
/// `cmdb` heads a valid chain of command buffers.
pub(crate) unsafe fn check_legacy(cmdb: *mut ibv_command_buffer) -> Fallback {
    // SAFETY (whole function): the chain is valid (caller).
    unsafe {
        let mut flags = (*cmdb).bitfields;
        let mut link = (*cmdb).next;
        while !link.is_null() {
            let mut cur = attrs_of(link);
            while cur != (*link).next_attr {
                let a = &*cur;
                if a.attr_id != UVERBS_ATTR_UHW_IN
                    && a.attr_id != UVERBS_ATTR_UHW_OUT
                    && a.flags & UVERBS_ATTR_F_MANDATORY != 0
                {
                    return not_supported();
                }
                cur = cur.add(1);
            }
            flags |= (*link).bitfields & (CMDB_FALLBACK_REQUIRE_EX | CMDB_FALLBACK_IOCTL_ONLY);
            link = (*link).next;
        }
        if flags & CMDB_FALLBACK_IOCTL_ONLY != 0 {
            return not_supported();
        }
        if flags & CMDB_FALLBACK_REQUIRE_EX != 0 {
            Fallback::TryWriteEx
        } else {
            Fallback::TryWrite
        }
    }
}

fn not_supported() -> Fallback {
    set_errno(libc::EOPNOTSUPP);
    Fallback::Error(libc::EOPNOTSUPP)
}

/// Tries the ioctl in `cmdb` unless the kernel is known to lack it for the
/// operation `cmd_bit` ([`super::cmd_bit!`]). ENOTTY (no ioctl framework at
/// all) marks every operation, EPROTONOSUPPORT (no such method or mandatory
/// attribute) marks this one; both then consult [`check_legacy`]. Any other
/// failure is final.
///
/// # Safety
/// `ctx` is a live context; `cmdb` is a valid chain whose attribute pointers
/// are valid.
pub(crate) unsafe fn execute_ioctl_fallback(
    ctx: *mut ibv_context,
    cmd_bit: usize,
    cmdb: *mut ibv_command_buffer,
) -> Fallback {
    // SAFETY: ctx is live (caller).
    let Some(state) = (unsafe { cmd_state(ctx) }) else {
        set_errno(libc::EINVAL);
        return Fallback::Error(libc::EINVAL);
    };
    if state.ioctl_unsupported(cmd_bit) {
        // SAFETY: valid chain (caller).
        return unsafe { check_legacy(cmdb) };
    }
    // SAFETY: forwarded caller guarantees.
    let ret = unsafe { super::ioctl::execute(ctx, cmdb) };
    match ret {
        0 => Fallback::Success,
        libc::ENOTTY => {
            state.mark_all_ioctls_unsupported();
            // SAFETY: valid chain.
            unsafe { check_legacy(cmdb) }
        }
        libc::EPROTONOSUPPORT => {
            state.mark_ioctl_unsupported(cmd_bit);
            // SAFETY: valid chain.
            unsafe { check_legacy(cmdb) }
        }
        e => Fallback::Error(e),
    }
}

/// `ioctl_write`: a write() command sent through `UVERBS_METHOD_INVOKE_WRITE`.
/// `req` is the core struct (no header); sizes exclude the header.
#[allow(clippy::too_many_arguments)]
unsafe fn ioctl_write(
    ctx: *mut ibv_context,
    write_method: u32,
    req: *const u8,
    core_req_size: usize,
    req_size: usize,
    resp: *mut u8,
    core_resp_size: usize,
    resp_size: usize,
) -> c_int {
    let mut cmd_space = CmdSpace::new();
    let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE, 5) {
        Ok(b) => b,
        Err(e) => return e,
    };
    cmdb.fill_const_in(UVERBS_ATTR_WRITE_CMD, write_method as u64);
    // SAFETY (fills): req/resp are valid for req_size/resp_size bytes (caller).
    unsafe {
        if core_req_size != 0 {
            cmdb.fill_in(UVERBS_ATTR_CORE_IN, req.cast(), core_req_size);
        }
        if core_resp_size != 0 {
            cmdb.fill_out(UVERBS_ATTR_CORE_OUT, resp.cast(), core_resp_size);
        }
        if req_size.wrapping_sub(core_req_size) != 0 {
            cmdb.fill_in(
                UVERBS_ATTR_UHW_IN,
                req.wrapping_add(core_req_size).cast(),
                req_size.wrapping_sub(core_req_size),
            );
        }
        if resp_size.wrapping_sub(core_resp_size) != 0 {
            cmdb.fill_out(
                UVERBS_ATTR_UHW_OUT,
                resp.wrapping_add(core_resp_size).cast(),
                resp_size.wrapping_sub(core_resp_size),
            );
        }
    }
    // SAFETY: ctx live; attributes point to the caller's buffers.
    unsafe { cmdb.execute(ctx) }
}

/// `_execute_cmd_write`: a classic write() command at `req` (header first).
/// `core_req_size` covers header + core struct, `req_size` adds the provider
/// data; `core_resp_size`/`resp_size` likewise for the response (whose
/// address must already be in the core struct's `response`). Returns 0 or
/// an errno value.
///
/// # Safety
/// `ctx` is live; `req` is writable for `req_size` bytes and `resp` (if not
/// NULL) for `resp_size` bytes.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn execute_cmd_write_raw(
    ctx: *mut ibv_context,
    write_method: u32,
    req: *mut ib_uverbs_cmd_hdr,
    core_req_size: usize,
    req_size: usize,
    resp: *mut c_void,
    core_resp_size: usize,
    resp_size: usize,
) -> c_int {
    // SAFETY: ctx is live (caller).
    let Some(state) = (unsafe { cmd_state(ctx) }) else {
        set_errno(libc::EINVAL);
        return libc::EINVAL;
    };
    let hsz = size_of::<ib_uverbs_cmd_hdr>();
    if state.use_ioctl_write {
        // SAFETY: forwarded; the core struct follows the header.
        return unsafe {
            ioctl_write(
                ctx,
                write_method,
                req.cast::<u8>().wrapping_add(hsz),
                core_req_size.wrapping_sub(hsz),
                req_size.wrapping_sub(hsz),
                resp.cast(),
                core_resp_size,
                resp_size,
            )
        };
    }
    let hdr = ib_uverbs_cmd_hdr {
        command: write_method,
        in_words: (req_size / 4) as u16,
        out_words: (resp_size / 4) as u16,
    };
    // SAFETY: req is writable (caller); possibly unaligned when built in
    // front of provider data.
    unsafe { ptr::write_unaligned(req, hdr) };
    // SAFETY: req readable for req_size bytes; ctx live.
    let n = unsafe { sys::write((*ctx).cmd_fd, req.cast(), req_size) };
    if n != req_size as isize {
        return errno();
    }
    // The kernel filled the response through the command's pointer.
    if !resp.is_null() {
        rdma_util::valgrind::make_mem_defined(resp.cast::<u8>(), resp_size);
    }
    0
}

/// `_execute_cmd_write_ex`: an extended write() command at `req`. Sizes as
/// for [`execute_cmd_write_raw`], with `core_req_size` covering [`ex_hdr`]
/// and the core struct.
///
/// # Safety
/// As for [`execute_cmd_write_raw`].
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn execute_cmd_write_ex_raw(
    ctx: *mut ibv_context,
    write_method: u32,
    req: *mut ex_hdr,
    core_req_size: usize,
    req_size: usize,
    resp: *mut c_void,
    core_resp_size: usize,
    resp_size: usize,
) -> c_int {
    // SAFETY: ctx is live (caller).
    let Some(state) = (unsafe { cmd_state(ctx) }) else {
        set_errno(libc::EINVAL);
        return libc::EINVAL;
    };
    let hsz = size_of::<ex_hdr>();
    if state.use_ioctl_write {
        // SAFETY: forwarded; the core struct follows the header.
        return unsafe {
            ioctl_write(
                ctx,
                IB_USER_VERBS_CMD_FLAG_EXTENDED | write_method,
                req.cast::<u8>().wrapping_add(hsz),
                core_req_size.wrapping_sub(hsz),
                req_size.wrapping_sub(hsz),
                resp.cast(),
                core_resp_size,
                resp_size,
            )
        };
    }
    let hdr = ex_hdr {
        hdr: ib_uverbs_cmd_hdr {
            command: IB_USER_VERBS_CMD_FLAG_EXTENDED | write_method,
            in_words: (core_req_size.wrapping_sub(hsz) / 8) as u16,
            out_words: (core_resp_size / 8) as u16,
        },
        ex_hdr: ib_uverbs_ex_cmd_hdr {
            response: resp as usize as u64,
            provider_in_words: (req_size.wrapping_sub(core_req_size) / 8) as u16,
            provider_out_words: (resp_size.wrapping_sub(core_resp_size) / 8) as u16,
            cmd_hdr_reserved: 0,
        },
    };
    // SAFETY: req writable (caller).
    unsafe { ptr::write_unaligned(req, hdr) };
    // Callers count on a zeroed response (kernels using the ioctl path zero
    // it themselves).
    if !resp.is_null() {
        // SAFETY: resp writable for resp_size bytes (caller).
        unsafe { ptr::write_bytes(resp.cast::<u8>(), 0, resp_size) };
    }
    // SAFETY: req readable for req_size bytes; ctx live.
    let n = unsafe { sys::write((*ctx).cmd_fd, req.cast(), req_size) };
    if n != req_size as isize {
        return errno();
    }
    0
}

/// `execute_cmd_write`: the classic command `cmd` (wrapper + provider data,
/// `cmd_size` bytes in all) answered into `resp` (`resp_size` bytes).
///
/// # Safety
/// `ctx` live; `cmd` valid for `cmd_size` bytes, `resp` for `resp_size`.
pub(crate) unsafe fn execute_cmd_write<C: WriteCmdResp>(
    ctx: *mut ibv_context,
    cmd: *mut C,
    cmd_size: usize,
    resp: *mut C::Resp,
    resp_size: usize,
) -> c_int {
    // SAFETY: the core struct follows the header inside *cmd (WriteCmd contract).
    unsafe {
        let core = cmd
            .cast::<u8>()
            .add(size_of::<ib_uverbs_cmd_hdr>())
            .cast::<C::Core>();
        C::set_response(core, resp as usize as u64);
        execute_cmd_write_raw(
            ctx,
            C::CMD,
            cmd.cast(),
            size_of::<C>(),
            cmd_size,
            resp.cast(),
            size_of::<C::Resp>(),
            resp_size,
        )
    }
}

/// `execute_cmd_write_req`: a classic command without response.
///
/// # Safety
/// `ctx` live; `cmd` valid for `cmd_size` bytes.
pub(crate) unsafe fn execute_cmd_write_req<C: WriteCmd>(
    ctx: *mut ibv_context,
    cmd: *mut C,
    cmd_size: usize,
) -> c_int {
    const { assert!(size_of::<C::Resp>() == 0, "method has a response") };
    // SAFETY: forwarded.
    unsafe {
        execute_cmd_write_raw(
            ctx,
            C::CMD,
            cmd.cast(),
            size_of::<C>(),
            cmd_size,
            ptr::null_mut(),
            0,
            0,
        )
    }
}

/// `execute_cmd_write_no_uhw`: a classic command whose core struct ends in
/// a flexible array; `cmd_size`/`resp_size` are the complete lengths.
///
/// # Safety
/// As for [`execute_cmd_write`].
pub(crate) unsafe fn execute_cmd_write_no_uhw<C: WriteCmdResp>(
    ctx: *mut ibv_context,
    cmd: *mut C,
    cmd_size: usize,
    resp: *mut C::Resp,
    resp_size: usize,
) -> c_int {
    // SAFETY: as in execute_cmd_write.
    unsafe {
        let core = cmd
            .cast::<u8>()
            .add(size_of::<ib_uverbs_cmd_hdr>())
            .cast::<C::Core>();
        C::set_response(core, resp as usize as u64);
        execute_cmd_write_raw(
            ctx,
            C::CMD,
            cmd.cast(),
            cmd_size,
            cmd_size,
            resp.cast(),
            resp_size,
            resp_size,
        )
    }
}

/// `execute_cmd_write_ex`: the extended command `cmd` (`cmd_size` bytes with
/// provider data) answered into `resp` (`resp_size` bytes).
///
/// # Safety
/// As for [`execute_cmd_write`].
pub(crate) unsafe fn execute_cmd_write_ex<C: ExWriteCmd>(
    ctx: *mut ibv_context,
    cmd: *mut C,
    cmd_size: usize,
    resp: *mut C::Resp,
    resp_size: usize,
) -> c_int {
    // SAFETY: forwarded; the wrapper starts with ex_hdr (ExWriteCmd contract).
    unsafe {
        execute_cmd_write_ex_raw(
            ctx,
            C::CMD,
            cmd.cast(),
            size_of::<C>(),
            cmd_size,
            resp.cast(),
            size_of::<C::Resp>(),
            resp_size,
        )
    }
}

/// `execute_cmd_write_ex_req`: an extended command without response.
///
/// # Safety
/// As for [`execute_cmd_write_req`].
pub(crate) unsafe fn execute_cmd_write_ex_req<C: ExWriteCmd>(
    ctx: *mut ibv_context,
    cmd: *mut C,
    cmd_size: usize,
) -> c_int {
    const { assert!(size_of::<C::Resp>() == 0, "method has a response") };
    // SAFETY: forwarded.
    unsafe {
        execute_cmd_write_ex_raw(
            ctx,
            C::CMD,
            cmd.cast(),
            size_of::<C>(),
            cmd_size,
            ptr::null_mut(),
            0,
            0,
        )
    }
}

/// The provider's request data recorded in the compatibility buffer `link`:
/// its UHW_IN attribute and the bytes of room before it.
unsafe fn uhw_in(link: *mut ibv_command_buffer) -> Option<(ib_uverbs_attr, usize)> {
    if link.is_null() {
        return None;
    }
    // SAFETY: link is a valid buffer (caller); the index was recorded when
    // the attribute was filled.
    unsafe {
        let idx = (*link).uhw_in_idx;
        if idx == _UHW_NO_INDEX {
            return None;
        }
        Some((
            ptr::read(attrs_of(link).add(idx as usize)),
            (*link).uhw_in_headroom_dwords as usize * 4,
        ))
    }
}

/// As [`uhw_in`] for the provider's response data (UHW_OUT).
unsafe fn uhw_out(link: *mut ibv_command_buffer) -> Option<(ib_uverbs_attr, usize)> {
    if link.is_null() {
        return None;
    }
    // SAFETY: as in uhw_in.
    unsafe {
        let idx = (*link).uhw_out_idx;
        if idx == _UHW_NO_INDEX {
            return None;
        }
        Some((
            ptr::read(attrs_of(link).add(idx as usize)),
            (*link).uhw_out_headroom_dwords as usize * 4,
        ))
    }
}

/// Upstream's `DECLARE_LEGACY_UHW_BUFS` + `execute_write_bufs`: sends the
/// classic command `C` with core struct `core`, carrying the provider data
/// described by the compatibility buffer `link` (if any). The header and
/// core struct are written directly before the provider's request data and
/// the response is read from directly before the provider's response data,
/// so the kernel sees one contiguous request and response; without provider
/// data both live on the stack. Returns the core response.
///
/// # Safety
/// `ctx` live; `link` NULL or a compatibility buffer whose UHW pointers are
/// still valid and preceded by the headroom it records.
pub(crate) unsafe fn execute_write_bufs<C>(
    ctx: *mut ibv_context,
    link: *mut ibv_command_buffer,
    mut core: C::Core,
) -> Result<C::Resp, c_int>
where
    C: WriteCmdResp,
    C::Resp: Copy,
{
    let size = size_of::<C>();
    let resp_size = size_of::<C::Resp>();
    let mut req_onstack = MaybeUninit::<C>::zeroed();
    let mut resp_onstack = MaybeUninit::<C::Resp>::zeroed();

    // SAFETY: link is NULL or valid (caller).
    let (hdr, in_words) = match unsafe { uhw_in(link) } {
        Some((uhw, room)) => {
            if room < size {
                return Err(headroom_error());
            }
            let hdr = (uhw.data as usize).wrapping_sub(size) as *mut ib_uverbs_cmd_hdr;
            (hdr, ((size + uhw.len as usize) / 4) as u16)
        }
        None => (
            req_onstack.as_mut_ptr().cast::<ib_uverbs_cmd_hdr>(),
            (size / 4) as u16,
        ),
    };
    // SAFETY: as above.
    let (resp_ptr, out_words) = match unsafe { uhw_out(link) } {
        Some((uhw, room)) => {
            if room < resp_size {
                return Err(headroom_error());
            }
            let p = (uhw.data as usize).wrapping_sub(resp_size) as *mut C::Resp;
            (p, ((resp_size + uhw.len as usize) / 4) as u16)
        }
        None => (resp_onstack.as_mut_ptr(), (resp_size / 4) as u16),
    };

    // SAFETY: core is a local value.
    unsafe { C::set_response(&mut core, resp_ptr as usize as u64) };
    // SAFETY: hdr points to `size` writable bytes: the headroom in front of
    // the provider's data, or the on-stack wrapper. Only the word counts of
    // the header are set here; the command number is set when sent.
    unsafe {
        let h = hdr.cast::<u8>();
        ptr::write_unaligned(
            h.add(offset_of!(ib_uverbs_cmd_hdr, in_words)).cast::<u16>(),
            in_words,
        );
        ptr::write_unaligned(
            h.add(offset_of!(ib_uverbs_cmd_hdr, out_words))
                .cast::<u16>(),
            out_words,
        );
        ptr::write_unaligned(hdr.add(1).cast::<C::Core>(), core);
    }
    // SAFETY: request and response regions as computed above.
    let ret = unsafe {
        execute_cmd_write_raw(
            ctx,
            C::CMD,
            hdr,
            size,
            in_words as usize * 4,
            resp_ptr.cast(),
            resp_size,
            out_words as usize * 4,
        )
    };
    if ret != 0 {
        return Err(ret);
    }
    // SAFETY: the response region is initialised (zeroed stack or the
    // provider's buffer) and was filled by the kernel.
    Ok(unsafe { ptr::read_unaligned(resp_ptr) })
}

/// Upstream's `DECLARE_LEGACY_UHW_BUFS_EX` + `execute_write_bufs_ex`: as
/// [`execute_write_bufs`] for an extended command.
///
/// # Safety
/// As for [`execute_write_bufs`].
pub(crate) unsafe fn execute_write_bufs_ex<C>(
    ctx: *mut ibv_context,
    link: *mut ibv_command_buffer,
    core: C::Core,
) -> Result<C::Resp, c_int>
where
    C: ExWriteCmd,
    C::Resp: Copy,
{
    let full_size = size_of::<C>();
    let resp_size = size_of::<C::Resp>();
    let mut req_onstack = MaybeUninit::<C>::zeroed();
    let mut resp_onstack = MaybeUninit::<C::Resp>::zeroed();

    // SAFETY: link is NULL or valid (caller).
    let (hdr, provider_in_words) = match unsafe { uhw_in(link) } {
        Some((uhw, room)) => {
            if room < full_size {
                return Err(headroom_error());
            }
            (
                (uhw.data as usize).wrapping_sub(full_size) as *mut ex_hdr,
                uhw.len / 8,
            )
        }
        None => (req_onstack.as_mut_ptr().cast::<ex_hdr>(), 0),
    };
    // SAFETY: as above.
    let (resp_ptr, provider_out_words) = match unsafe { uhw_out(link) } {
        Some((uhw, room)) => {
            if room < resp_size {
                return Err(headroom_error());
            }
            (
                (uhw.data as usize).wrapping_sub(resp_size) as *mut C::Resp,
                uhw.len / 8,
            )
        }
        None => (resp_onstack.as_mut_ptr(), 0),
    };

    // SAFETY: hdr points to `full_size` writable bytes (headroom or stack);
    // only the provider word counts are set here, the rest when sent.
    unsafe {
        let h = hdr.cast::<u8>();
        let ex = offset_of!(ex_hdr, ex_hdr);
        ptr::write_unaligned(
            h.add(ex + offset_of!(ib_uverbs_ex_cmd_hdr, provider_in_words))
                .cast::<u16>(),
            provider_in_words,
        );
        ptr::write_unaligned(
            h.add(ex + offset_of!(ib_uverbs_ex_cmd_hdr, provider_out_words))
                .cast::<u16>(),
            provider_out_words,
        );
        ptr::write_unaligned(hdr.add(1).cast::<C::Core>(), core);
    }
    // SAFETY: request and response regions as computed above.
    let ret = unsafe {
        execute_cmd_write_ex_raw(
            ctx,
            C::CMD,
            hdr,
            full_size,
            full_size + provider_in_words as usize * 8,
            resp_ptr.cast(),
            resp_size,
            resp_size + provider_out_words as usize * 8,
        )
    };
    if ret != 0 {
        return Err(ret);
    }
    // SAFETY: the response region was just filled.
    Ok(unsafe { ptr::read_unaligned(resp_ptr) })
}

/// The provider's command struct leaves less room before its data than the
/// core command needs; upstream asserts, we refuse rather than write
/// outside the provider's buffer.
fn headroom_error() -> c_int {
    set_errno(libc::EINVAL);
    libc::EINVAL
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::kernel::*;
    use crate::cmd::cmd_bit;

    fn cat(parts: &[&[u8]]) -> Vec<u8> {
        parts.concat()
    }

    #[repr(C)]
    #[derive(Default)]
    struct DrvAllocPd {
        ibv_cmd: ibv_alloc_pd,
        drv: u64,
    }

    #[repr(C)]
    #[derive(Default)]
    struct DrvAllocPdResp {
        ibv_resp: ib_uverbs_alloc_pd_resp,
        pdn: u32,
    }

    #[test]
    fn classic_write_carries_header_core_and_driver_data() {
        let mut t = TestCtx::new(1, false);
        let mut cmd = DrvAllocPd {
            drv: 0xabcd,
            ..Default::default()
        };
        let mut resp = DrvAllocPdResp::default();
        let k = FakeKernel::new().on_write(|w| {
            w.respond(&cat(&[&le32(5), &le32(77)]));
            0
        });
        // SAFETY: live context and buffers.
        let (ret, sent) = with_kernel(k, || unsafe {
            execute_cmd_write(
                t.ctx(),
                &mut cmd.ibv_cmd,
                size_of::<DrvAllocPd>(),
                &mut resp.ibv_resp,
                size_of::<DrvAllocPdResp>(),
            )
        });
        assert_eq!(ret, 0);
        // ALLOC_PD is command 3; 24 bytes in = 6 words, 8 bytes out = 2 words;
        // then the response address and the driver data.
        let expected = cat(&[
            &le32(3),
            &le16(6),
            &le16(2),
            &le64(&resp as *const _ as u64),
            &le64(0xabcd),
        ]);
        assert_eq!(sent[0].write_bytes(), &expected[..]);
        assert!(matches!(
            sent[0],
            Sent::Write {
                fd: TEST_CMD_FD,
                ..
            }
        ));
        assert_eq!((resp.ibv_resp.pd_handle, resp.pdn), (5, 77));
    }

    #[test]
    fn classic_write_through_invoke_write_ioctl() {
        let mut t = TestCtx::new(1, true);
        let mut cmd = DrvAllocPd {
            drv: 0xabcd,
            ..Default::default()
        };
        let mut resp = DrvAllocPdResp::default();
        let resp_addr = &resp as *const _ as u64;
        let k = FakeKernel::new().on_ioctl(|c| {
            c.write_out(UVERBS_ATTR_CORE_OUT, &le32(5));
            c.write_out(UVERBS_ATTR_UHW_OUT, &le32(77));
            0
        });
        // SAFETY: live context and buffers.
        let (ret, sent) = with_kernel(k, || unsafe {
            execute_cmd_write(
                t.ctx(),
                &mut cmd.ibv_cmd,
                size_of::<DrvAllocPd>(),
                &mut resp.ibv_resp,
                size_of::<DrvAllocPdResp>(),
            )
        });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        // UVERBS_OBJECT_DEVICE (0), UVERBS_METHOD_INVOKE_WRITE (0).
        assert_eq!(
            (hdr.object_id, hdr.method_id, hdr.num_attrs, hdr.driver_id),
            (0, 0, 5, 1)
        );
        let got: Vec<(u16, u16, u16, u64)> = a
            .iter()
            .map(|x| (x.attr_id, x.len, x.flags, x.data))
            .collect();
        assert_eq!(
            got,
            vec![
                (2, 8, 1, 3),                  // WRITE_CMD = ALLOC_PD
                (0, 8, 1, resp_addr),          // CORE_IN: the 8-byte core (response) inline
                (1, 4, 1, resp_addr),          // CORE_OUT
                (0x1000, 8, 1, 0xabcd),        // UHW_IN inline
                (0x1001, 4, 1, resp_addr + 4), // UHW_OUT
            ]
        );
        assert_eq!((resp.ibv_resp.pd_handle, resp.pdn), (5, 77));
    }

    #[test]
    fn extended_write_header_and_zeroed_response() {
        let mut t = TestCtx::new(1, false);
        let mut cmd = ibv_query_device_ex::default();
        let mut resp = ib_uverbs_ex_query_device_resp {
            comp_mask: 0xdead,
            ..Default::default()
        };
        let rsz = size_of::<ib_uverbs_ex_query_device_resp>();
        let k = FakeKernel::new().on_write(|w| {
            // The response buffer was cleared before the write.
            let p = w.response() as usize as *const ib_uverbs_ex_query_device_resp;
            // SAFETY: the response buffer is live during the call.
            assert_eq!(unsafe { (*p).comp_mask }, 0);
            0
        });
        // SAFETY: live context and buffers.
        let (ret, sent) = with_kernel(k, || unsafe {
            execute_cmd_write_ex(
                t.ctx(),
                &mut cmd,
                size_of::<ibv_query_device_ex>(),
                &mut resp,
                rsz,
            )
        });
        assert_eq!(ret, 0);
        assert_eq!(rsz, 304);
        // Command 0x80000001 (extended QUERY_DEVICE), 8-byte core = 1 word,
        // 304-byte response = 38 words; ex header: response, no provider
        // words, reserved; then the core struct (comp_mask, reserved).
        let expected = cat(&[
            &le32(0x8000_0001),
            &le16(1),
            &le16(38),
            &le64(&resp as *const _ as u64),
            &le16(0),
            &le16(0),
            &le32(0),
            &le32(0),
            &le32(0),
        ]);
        assert_eq!(sent[0].write_bytes(), &expected[..]);
    }

    #[test]
    fn failed_write_returns_errno() {
        let mut t = TestCtx::new(1, false);
        let mut cmd = ibv_dealloc_pd::default();
        let k = FakeKernel::new().on_write(|_| libc::EBUSY);
        // SAFETY: live context and buffer.
        let (ret, _) = with_kernel(k, || unsafe {
            execute_cmd_write_req(t.ctx(), &mut cmd, size_of::<ibv_dealloc_pd>())
        });
        assert_eq!(ret, libc::EBUSY);
    }

    #[test]
    fn enotty_disables_every_ioctl_eprotonosupport_only_one() {
        let mut t = TestCtx::new(1, false);
        let ctx = t.ctx();
        let b = CmdBuf::new(0, 0, 0).unwrap();
        let k = FakeKernel::new().on_ioctl(|_| libc::EPROTONOSUPPORT);
        // SAFETY: live context and buffer.
        let (r, sent) = with_kernel(k, || unsafe {
            execute_ioctl_fallback(ctx, cmd_bit!(create_cq), b.as_ptr())
        });
        assert_eq!((r, sent.len()), (Fallback::TryWrite, 1));
        assert!(t.state().ioctl_unsupported(cmd_bit!(create_cq)));
        assert!(!t.state().ioctl_unsupported(cmd_bit!(destroy_cq)));
        // Known unsupported: no second ioctl.
        // SAFETY: as above.
        let (r, sent) = with_kernel(FakeKernel::new(), || unsafe {
            execute_ioctl_fallback(ctx, cmd_bit!(create_cq), b.as_ptr())
        });
        assert_eq!((r, sent.len()), (Fallback::TryWrite, 0));

        let k = FakeKernel::new().on_ioctl(|_| libc::ENOTTY);
        // SAFETY: as above.
        let (r, _) = with_kernel(k, || unsafe {
            execute_ioctl_fallback(ctx, cmd_bit!(destroy_cq), b.as_ptr())
        });
        assert_eq!(r, Fallback::TryWrite);
        assert!((0..crate::cmd::VERBS_OPS_NUM).all(|i| t.state().ioctl_unsupported(i)));
        assert_eq!(crate::cmd::VERBS_OPS_NUM, 76);

        let mut t = TestCtx::new(1, false);
        let k = FakeKernel::new().on_ioctl(|_| libc::EINVAL);
        // SAFETY: as above.
        let (r, _) = with_kernel(k, || unsafe {
            execute_ioctl_fallback(t.ctx(), 3, b.as_ptr())
        });
        assert_eq!(r, Fallback::Error(libc::EINVAL));
        assert!(!t.state().ioctl_unsupported(3));
    }

    #[test]
    fn legacy_check_honours_links_and_flags() {
        // A mandatory driver attribute cannot be expressed with write().
        let mut link = CmdBuf::new(0, 0, 2).unwrap();
        link.fill_in_u64(0x1000 | 7, 1);
        // SAFETY: link outlives main.
        let main = unsafe { CmdBuf::with_link(0, 0, 0, link.as_ptr()) }.unwrap();
        rdma_util::ffi::set_errno(0);
        // SAFETY: valid chain.
        assert_eq!(
            unsafe { check_legacy(main.as_ptr()) },
            Fallback::Error(libc::EOPNOTSUPP)
        );
        assert_eq!(rdma_util::ffi::errno(), libc::EOPNOTSUPP);

        // Optional ones can be dropped; a link asking for the extended
        // command gets it.
        let mut link = CmdBuf::new(0, 0, 2).unwrap();
        let a = link.fill_in_u64(0x1000 | 7, 1);
        link.optional(a);
        // SAFETY: link outlives main.
        let mut main = unsafe { CmdBuf::with_link(0, 0, 0, link.as_ptr()) }.unwrap();
        // SAFETY: valid chain.
        assert_eq!(unsafe { check_legacy(main.as_ptr()) }, Fallback::TryWrite);
        link.require_ex();
        // SAFETY: valid chain.
        assert_eq!(unsafe { check_legacy(main.as_ptr()) }, Fallback::TryWriteEx);
        main.require_ioctl();
        // SAFETY: valid chain.
        assert_eq!(
            unsafe { check_legacy(main.as_ptr()) },
            Fallback::Error(libc::EOPNOTSUPP)
        );
    }

    #[repr(C)]
    #[derive(Default)]
    struct DrvCreateCq {
        ibv_cmd: ibv_create_cq,
        buf_addr: u64,
    }

    #[repr(C)]
    #[derive(Default)]
    struct DrvCreateCqResp {
        ibv_resp: ib_uverbs_create_cq_resp,
        mi: u64,
    }

    #[test]
    fn legacy_write_is_built_in_place_before_the_driver_data() {
        let mut t = TestCtx::new(1, false);
        let mut cmd = DrvCreateCq {
            buf_addr: 0x1122_3344_5566_7788,
            ..Default::default()
        };
        let mut resp = DrvCreateCqResp::default();
        // SAFETY: cmd and resp outlive the buffer.
        let compat = unsafe {
            CmdBuf::compat(
                UVERBS_OBJECT_CQ,
                UVERBS_METHOD_CQ_CREATE,
                &mut cmd.ibv_cmd,
                size_of::<DrvCreateCq>(),
                &mut resp.ibv_resp,
                size_of::<DrvCreateCqResp>(),
            )
        }
        .unwrap();
        let core = ib_uverbs_create_cq {
            user_handle: 0x55,
            cqe: 10,
            comp_channel: -1,
            ..Default::default()
        };
        let k = FakeKernel::new().on_write(|w| {
            w.respond(&cat(&[&le32(7), &le32(16), &le64(0x99)]));
            0
        });
        // SAFETY: live context; compat describes live buffers.
        let (r, sent) = with_kernel(k, || unsafe {
            execute_write_bufs::<ibv_create_cq>(t.ctx(), compat.as_ptr(), core)
        });
        let r = r.unwrap();
        assert_eq!((r.cq_handle, r.cqe), (7, 16));
        assert_eq!(resp.mi, 0x99);
        // CREATE_CQ is 18; 40 + 8 bytes in = 12 words; 8 + 8 out = 4 words.
        let expected = cat(&[
            &le32(18),
            &le16(12),
            &le16(4),
            &le64(&resp as *const _ as u64),
            &le64(0x55),
            &le32(10),
            &le32(0),
            &le32(0xffff_ffff),
            &le32(0),
            &le64(0x1122_3344_5566_7788),
        ]);
        assert_eq!(sent[0].write_bytes(), &expected[..]);
        // It was assembled in the provider's own buffer.
        assert_eq!(cmd.ibv_cmd.hdr.command, 18);
        assert_eq!(cmd.ibv_cmd.core_payload.user_handle, 0x55);
    }

    #[test]
    fn legacy_write_without_driver_data_uses_the_stack() {
        let mut t = TestCtx::new(1, false);
        let core = ib_uverbs_create_cq {
            user_handle: 1,
            cqe: 2,
            comp_vector: 3,
            comp_channel: 4,
            ..Default::default()
        };
        let k = FakeKernel::new().on_write(|w| {
            w.respond(&cat(&[&le32(8), &le32(9)]));
            0
        });
        // SAFETY: live context, no link.
        let (r, sent) = with_kernel(k, || unsafe {
            execute_write_bufs::<ibv_create_cq>(t.ctx(), ptr::null_mut(), core)
        });
        let r = r.unwrap();
        assert_eq!((r.cq_handle, r.cqe), (8, 9));
        let b = sent[0].write_bytes();
        assert_eq!(b.len(), 40);
        assert_eq!(&b[..8], &cat(&[&le32(18), &le16(10), &le16(2)])[..]);
        assert_eq!(
            &b[16..40],
            &cat(&[&le64(1), &le32(2), &le32(3), &le32(4), &le32(0)])[..]
        );
    }

    #[repr(C)]
    #[derive(Default)]
    struct DrvCreateCqEx {
        ibv_cmd: ibv_create_cq_ex,
        drv: [u64; 2],
    }

    #[repr(C)]
    #[derive(Default)]
    struct DrvCreateCqExResp {
        ibv_resp: ib_uverbs_ex_create_cq_resp,
        drv: u64,
    }

    #[test]
    fn legacy_extended_write_in_place() {
        let mut t = TestCtx::new(1, false);
        let mut cmd = DrvCreateCqEx {
            drv: [0xa, 0xb],
            ..Default::default()
        };
        let mut resp = DrvCreateCqExResp::default();
        // SAFETY: cmd and resp outlive the buffer.
        let compat = unsafe {
            CmdBuf::compat(
                UVERBS_OBJECT_CQ,
                UVERBS_METHOD_CQ_CREATE,
                &mut cmd.ibv_cmd,
                size_of::<DrvCreateCqEx>(),
                &mut resp.ibv_resp,
                size_of::<DrvCreateCqExResp>(),
            )
        }
        .unwrap();
        let core = ib_uverbs_ex_create_cq {
            user_handle: 0x77,
            cqe: 4,
            flags: 1,
            ..Default::default()
        };
        let k = FakeKernel::new().on_write(|w| {
            w.respond(&cat(&[
                &le32(3),
                &le32(8),
                &le32(0),
                &le32(16),
                &le64(0x42),
            ]));
            0
        });
        // SAFETY: live context; compat describes live buffers.
        let (r, sent) = with_kernel(k, || unsafe {
            execute_write_bufs_ex::<ibv_create_cq_ex>(t.ctx(), compat.as_ptr(), core)
        });
        let r = r.unwrap();
        assert_eq!(
            (r.base.cq_handle, r.base.cqe, r.response_length),
            (3, 8, 16)
        );
        assert_eq!(resp.drv, 0x42);
        // Extended CREATE_CQ: 0x80000012; 32-byte core = 4 words; 16-byte
        // response = 2 words; 2 provider words each way.
        let expected = cat(&[
            &le32(0x8000_0012),
            &le16(4),
            &le16(2),
            &le64(&resp as *const _ as u64),
            &le16(2),
            &le16(1),
            &le32(0),
            &le64(0x77),
            &le32(4),
            &le32(0),
            &le32(0),
            &le32(0),
            &le32(1),
            &le32(0),
            &le64(0xa),
            &le64(0xb),
        ]);
        assert_eq!(sent[0].write_bytes(), &expected[..]);
    }

    #[test]
    fn too_little_headroom_is_refused() {
        // A provider passing a command struct smaller than the core command
        // (here: the ALLOC_PD wrapper for a CREATE_CQ) leaves no room.
        let mut t = TestCtx::new(1, false);
        let mut cmd = DrvAllocPd::default();
        // SAFETY: cmd outlives the buffer.
        let compat = unsafe {
            CmdBuf::compat::<ibv_alloc_pd, empty>(
                0,
                0,
                &mut cmd.ibv_cmd,
                size_of::<DrvAllocPd>(),
                ptr::null_mut(),
                0,
            )
        }
        .unwrap();
        // SAFETY: live context.
        let (r, sent) = with_kernel(FakeKernel::new(), || unsafe {
            execute_write_bufs::<ibv_create_cq>(t.ctx(), compat.as_ptr(), Default::default())
        });
        assert_eq!(r.err(), Some(libc::EINVAL));
        assert!(sent.is_empty());
    }
}
