//! The ioctl transport: `struct ibv_command_buffer`, attribute filling and
//! `execute_ioctl`.
//!
//! A command buffer is a header plus an array of attributes. Buffers form a
//! chain through `next`: a provider builds its own buffer with driver
//! attributes (or the compatibility buffer carries the provider's UHW data)
//! and passes it as `link` to a helper, which builds the core buffer with room
//! for its own attributes plus all linked ones ([`__ioctl_final_num_attrs`]).
//! Just before the ioctl the linked attributes are copied behind the core
//! ones; afterwards the kernel-updated copies are written back to the linked
//! buffers.
//!
//! The layout of [`ibv_command_buffer`] is ABI: providers allocate and fill
//! them with the inline functions of rdma-core's `cmd_ioctl.h`.

use core::alloc::Layout;
use core::marker::PhantomData;
use core::mem::{align_of, size_of, MaybeUninit};
use core::ptr::{self, addr_of_mut, NonNull};
use libc::{c_int, c_uint, c_void};

use super::{cmd_state, sys};
use crate::abi::kern::*;
use crate::abi::verbs::ibv_context;
use rdma_util::ffi::set_errno;

/// Defined with the other ABI types (the layout test checks it there).
pub(crate) use crate::abi::kern::ibv_command_buffer;

/// `uhw_in_idx`/`uhw_out_idx` value for "no UHW attribute".
pub(crate) const _UHW_NO_INDEX: u8 = 0xFF;

/// Bit-field positions in [`ibv_command_buffer::bitfields`] (the probe's
/// (byte offset, mask) pairs; the byte is offset 28 = `bitfields`).
pub(crate) const CMDB_BUFFER_ERROR: u8 = 0x1;
pub(crate) const CMDB_FALLBACK_REQUIRE_EX: u8 = 0x2;
pub(crate) const CMDB_FALLBACK_IOCTL_ONLY: u8 = 0x4;

/// First attribute slot of a buffer (`cmd->hdr.attrs`).
///
/// # Safety
/// `cmd` points to a command buffer (only the address is computed).
pub(crate) unsafe fn attrs_of(cmd: *mut ibv_command_buffer) -> *mut ib_uverbs_attr {
    // SAFETY: place projection on a raw pointer; nothing is read.
    unsafe { addr_of_mut!((*cmd).hdr.attrs).cast() }
}

/// Number of attributes filled in one buffer.
///
/// # Safety
/// `cmd` points to a valid, initialised command buffer.
pub(crate) unsafe fn filled_attrs(cmd: *mut ibv_command_buffer) -> usize {
    // SAFETY: next_attr points into (or one past) the buffer's own array.
    unsafe { (*cmd).next_attr.offset_from(attrs_of(cmd)).max(0) as usize }
}

/// Attributes in `num_attrs` plus everything filled in the linked buffers
/// (upstream semantics: the count a buffer that links `link` must hold).
///
/// # Safety
/// `link` is NULL or the head of a chain of valid command buffers.
pub(crate) unsafe fn final_num_attrs(num_attrs: usize, mut link: *mut ibv_command_buffer) -> usize {
    let mut n = num_attrs;
    while !link.is_null() {
        // SAFETY: link is a valid buffer of the chain.
        unsafe {
            n += filled_attrs(link);
            link = (*link).next;
        }
    }
    n
}

rdma_util::export_versioned! {
    /// Number of attributes a command buffer must hold to carry `num_attrs`
    /// of its own plus all attributes filled in the chain `link`.
    fn __ioctl_final_num_attrs(num_attrs: c_uint, link: *mut ibv_command_buffer) -> c_uint,
        on_panic = num_attrs;
    {
        // SAFETY: the caller passes NULL or its chain of command buffers.
        unsafe { final_num_attrs(num_attrs as usize, link) as c_uint }
    }
}
private_abi_both!(__ioctl_final_num_attrs);

rdma_util::export_versioned! {
    /// Sends the command in `cmd` (with its linked buffers) to the kernel.
    /// Returns 0 or an errno value (errno is set too).
    fn execute_ioctl(context: *mut ibv_context, cmd: *mut ibv_command_buffer) -> c_int,
        on_panic = libc::EIO;
    {
        rdma_util::ensure!(!context.is_null() && !cmd.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes its live context and a command buffer it built.
        unsafe { execute(context, cmd) }
    }
}
private_abi_both!(execute_ioctl);

/// `execute_ioctl`: linearise the chain, send, copy results back.
/// Returns 0 or an errno value; errno is set on failure.
///
/// # Safety
/// `ctx` is a live context; `cmd` is a valid buffer chain whose attribute
/// pointers are valid for the lengths they declare.
pub(crate) unsafe fn execute(ctx: *mut ibv_context, cmd: *mut ibv_command_buffer) -> c_int {
    // SAFETY: cmd is valid (caller).
    let c = unsafe { &mut *cmd };
    if c.bitfields & CMDB_BUFFER_ERROR != 0 {
        set_errno(libc::EINVAL);
        return libc::EINVAL;
    }
    // SAFETY: ctx is live (caller).
    let Some(state) = (unsafe { cmd_state(ctx) }) else {
        set_errno(libc::EINVAL);
        return libc::EINVAL;
    };
    // SAFETY: cmd is a valid chain (caller).
    if let Err(e) = unsafe { prepare_attrs(cmd) } {
        set_errno(e);
        return e;
    }
    // SAFETY: cmd is valid (caller); the borrow taken above ended before
    // prepare_attrs, which needed the chain to itself.
    let c = unsafe { &mut *cmd };
    c.hdr.length = (size_of::<ib_uverbs_ioctl_hdr>()
        + size_of::<ib_uverbs_attr>() * c.hdr.num_attrs as usize) as u16;
    c.hdr.reserved1 = 0;
    c.hdr.reserved2 = 0;
    c.hdr.driver_id = state.driver_id;

    // SAFETY: ctx is live; the header and attributes were just assembled and
    // point to caller-provided memory.
    let ret = unsafe { sys::verbs_ioctl((*ctx).cmd_fd, addr_of_mut!(c.hdr)) };
    if ret != 0 {
        return ret;
    }
    // SAFETY: same chain as prepare_attrs walked.
    unsafe { finalize_attrs(cmd) };
    0
}

/// Copies the linked buffers' attributes behind the core ones, sets
/// `num_attrs`, and inlines a short UHW_IN (kept as a pointer until now for
/// the write() fallback).
unsafe fn prepare_attrs(cmd: *mut ibv_command_buffer) -> Result<(), c_int> {
    // SAFETY (whole function): cmd heads a valid chain; every copy checks
    // the destination stays below last_attr.
    unsafe {
        let base = attrs_of(cmd);
        let mut end = (*cmd).next_attr;
        let mut link = (*cmd).next;
        while !link.is_null() {
            if (*link).uhw_in_idx != _UHW_NO_INDEX {
                let shift = end.offset_from(base) as usize;
                (*cmd).uhw_in_idx = (*link).uhw_in_idx.wrapping_add(shift as u8);
            }
            let mut cur = attrs_of(link);
            while cur != (*link).next_attr {
                if end >= (*cmd).last_attr {
                    // The buffer was not sized with __ioctl_final_num_attrs;
                    // upstream asserts, we refuse instead of overrunning.
                    return Err(libc::EINVAL);
                }
                ptr::write(end, ptr::read(cur));
                end = end.add(1);
                cur = cur.add(1);
            }
            link = (*link).next;
        }
        (*cmd).hdr.num_attrs = end.offset_from(base) as u16;

        if (*cmd).uhw_in_idx != _UHW_NO_INDEX {
            let uhw = base.add((*cmd).uhw_in_idx as usize);
            let len = (*uhw).len as usize;
            if len <= size_of::<u64>() && len > 0 {
                // Same bytes as C's memcpy(&uhw->data, (void *)uhw->data, len):
                // the low `len` bytes are replaced, the rest keep the pointer's.
                let src = (*uhw).data as usize as *const u8;
                ptr::copy_nonoverlapping(src, addr_of_mut!((*uhw).data).cast::<u8>(), len);
            }
        }
    }
    Ok(())
}

/// Writes the kernel-updated attribute copies back into the linked buffers.
unsafe fn finalize_attrs(cmd: *mut ibv_command_buffer) {
    // SAFETY (whole function): the same chain prepare_attrs linearised; the
    // copies sit right after the core attributes in the same order.
    unsafe {
        let mut end = (*cmd).next_attr;
        let mut link = (*cmd).next;
        while !link.is_null() {
            let mut cur = attrs_of(link);
            while cur != (*link).next_attr {
                ptr::write(cur, ptr::read(end));
                end = end.add(1);
                cur = cur.add(1);
            }
            link = (*link).next;
        }
    }
}

/// Whether the kernel tunnels write() commands through the ioctl
/// (`UVERBS_METHOD_INVOKE_WRITE`). Probed with a deliberately short
/// QUERY_DEVICE, which such kernels reject with something other than
/// "no such method". Needs `driver_id` already in the context's state.
///
/// # Safety
/// `ctx` is a live verbs context with its command state attached.
pub(crate) unsafe fn has_ioctl_write(ctx: *mut ibv_context) -> bool {
    let mut cmd_space = CmdSpace::new();
    let rc = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE, 1) {
        Ok(mut cmdb) => {
            cmdb.fill_const_in(UVERBS_ATTR_WRITE_CMD, IB_USER_VERBS_CMD_QUERY_DEVICE as u64);
            // SAFETY: ctx is live; the only attribute is inline.
            unsafe { cmdb.execute(ctx) }
        }
        Err(e) => e,
    };
    !(rc == libc::EPROTONOSUPPORT || rc == libc::ENOTTY)
}

/// Handle to an attribute filled in a [`CmdBuf`] (its index), to read the
/// kernel's answer after execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Attr(usize);

impl Attr {
    /// Placeholder returned when the buffer was full (the buffer is then
    /// marked with `buffer_error` and will not execute).
    const NONE: Attr = Attr(usize::MAX);

    #[cfg(test)]
    pub(crate) fn index(self) -> usize {
        self.0
    }
}

/// Attribute slots a [`CmdSpace`] holds: enough for every command this
/// library builds (QP_CREATE, the largest, has 15 of its own) plus the two
/// UHW attributes a compatibility buffer links.
pub(crate) const INLINE_ATTRS: usize = 20;

/// Uninitialised stack room for one command buffer (upstream's on-stack
/// `DECLARE_COMMAND_BUFFER`): declare it in the helper, then build the
/// buffer in it with [`CmdBuf::new_in`] / [`CmdBuf::with_link_in`] /
/// [`CmdBuf::compat_in`]. The buffer borrows the space, so the borrow checker
/// keeps the space from moving while the buffer (whose header points into
/// itself, and which other buffers may link) is alive. Nothing is zeroed:
/// the header is written whole when the buffer is built and an attribute
/// slot only when it is filled.
#[repr(C)]
pub(crate) struct CmdSpace {
    _cmd: MaybeUninit<ibv_command_buffer>,
    _attrs: MaybeUninit<[ib_uverbs_attr; INLINE_ATTRS]>,
}

impl CmdSpace {
    pub(crate) const fn new() -> CmdSpace {
        CmdSpace {
            _cmd: MaybeUninit::uninit(),
            _attrs: MaybeUninit::uninit(),
        }
    }
}

impl Default for CmdSpace {
    fn default() -> Self {
        Self::new()
    }
}

/// A command buffer this library owns (upstream's
/// `DECLARE_COMMAND_BUFFER[_LINK]`), sized for its own attributes plus those
/// of the chain it links. It lives in a caller's [`CmdSpace`] when it fits
/// (the per-command path: no allocation), otherwise on the heap; either way
/// its memory does not move while the `CmdBuf` exists, so the addresses the
/// C structure stores stay valid. The `CmdBuf` handle itself may move.
pub(crate) struct CmdBuf<'a> {
    cmd: NonNull<ibv_command_buffer>,
    /// `Some` when heap-allocated (freed on drop).
    layout: Option<Layout>,
    _space: PhantomData<&'a mut CmdSpace>,
}

/// Writes a complete, empty command header for `total` attribute slots at
/// `raw`.
///
/// # Safety
/// `raw` is writable and aligned for a command buffer followed by `total`
/// attribute slots.
unsafe fn init_header(
    raw: *mut ibv_command_buffer,
    object_id: u16,
    method_id: u16,
    total: usize,
    link: *mut ibv_command_buffer,
) {
    // SAFETY: caller guarantee; the slot pointers stay inside the memory.
    unsafe {
        let attrs = attrs_of(raw);
        ptr::write(
            raw,
            ibv_command_buffer {
                next: link,
                next_attr: attrs,
                last_attr: attrs.add(total),
                uhw_in_idx: _UHW_NO_INDEX,
                uhw_out_idx: _UHW_NO_INDEX,
                uhw_in_headroom_dwords: 0,
                uhw_out_headroom_dwords: 0,
                bitfields: 0,
                hdr: ib_uverbs_ioctl_hdr {
                    length: 0,
                    object_id,
                    method_id,
                    num_attrs: 0,
                    reserved1: 0,
                    driver_id: 0,
                    reserved2: 0,
                    attrs: [],
                },
            },
        );
    }
}

impl CmdBuf<'static> {
    /// A heap buffer for `num_attrs` attributes, linking nothing.
    #[cfg(test)]
    pub(crate) fn new(object_id: u16, method_id: u16, num_attrs: usize) -> Result<CmdBuf<'static>, c_int> {
        // SAFETY: a NULL link is always valid.
        unsafe { Self::with_link(object_id, method_id, num_attrs, ptr::null_mut()) }
    }

    /// A heap buffer for `num_attrs` attributes of its own, linking `link`.
    /// Fails with ENOMEM (errno set) if the memory cannot be had.
    ///
    /// # Safety
    /// `link` is NULL or a valid chain that outlives this buffer.
    #[cfg(test)]
    pub(crate) unsafe fn with_link(
        object_id: u16,
        method_id: u16,
        num_attrs: usize,
        link: *mut ibv_command_buffer,
    ) -> Result<CmdBuf<'static>, c_int> {
        // SAFETY: caller guarantee on link.
        let total = unsafe { final_num_attrs(num_attrs, link) };
        // SAFETY: forwarded.
        unsafe { Self::on_heap(object_id, method_id, total, link) }
    }

    /// # Safety
    /// As for [`CmdBuf::with_link`]; `total` includes the linked attributes.
    unsafe fn on_heap(
        object_id: u16,
        method_id: u16,
        total: usize,
        link: *mut ibv_command_buffer,
    ) -> Result<CmdBuf<'static>, c_int> {
        let size = size_of::<ibv_command_buffer>() + size_of::<ib_uverbs_attr>() * total;
        let Ok(layout) = Layout::from_size_align(size, align_of::<ibv_command_buffer>()) else {
            set_errno(libc::ENOMEM);
            return Err(libc::ENOMEM);
        };
        // SAFETY: layout has non-zero size.
        let raw = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<ibv_command_buffer>();
        let Some(cmd) = NonNull::new(raw) else {
            set_errno(libc::ENOMEM);
            return Err(libc::ENOMEM);
        };
        // SAFETY: fresh allocation large enough for the header and `total`
        // attributes.
        unsafe { init_header(raw, object_id, method_id, total, link) };
        Ok(CmdBuf {
            cmd,
            layout: Some(layout),
            _space: PhantomData,
        })
    }

    /// [`CmdBuf::compat_in`] on the heap.
    ///
    /// # Safety
    /// As for [`CmdBuf::compat_in`].
    #[cfg(test)]
    pub(crate) unsafe fn compat<C, R>(
        object_id: u16,
        method_id: u16,
        cmd: *mut C,
        cmd_size: usize,
        resp: *mut R,
        resp_size: usize,
    ) -> Result<CmdBuf<'static>, c_int> {
        let mut b = CmdBuf::new(object_id, method_id, 2)?;
        // SAFETY: forwarded caller guarantee.
        unsafe { b.set_compat_uhw(cmd, cmd_size, resp, resp_size) };
        Ok(b)
    }
}

impl<'a> CmdBuf<'a> {
    /// A buffer for `num_attrs` attributes in `space`, linking nothing.
    pub(crate) fn new_in(
        space: &'a mut CmdSpace,
        object_id: u16,
        method_id: u16,
        num_attrs: usize,
    ) -> Result<CmdBuf<'a>, c_int> {
        // SAFETY: a NULL link is always valid.
        unsafe { Self::with_link_in(space, object_id, method_id, num_attrs, ptr::null_mut()) }
    }

    /// A buffer for `num_attrs` attributes of its own, linking `link`, in
    /// `space` if it fits there (else on the heap, as [`CmdBuf::with_link`]).
    ///
    /// # Safety
    /// `link` is NULL or a valid chain that outlives this buffer.
    pub(crate) unsafe fn with_link_in(
        space: &'a mut CmdSpace,
        object_id: u16,
        method_id: u16,
        num_attrs: usize,
        link: *mut ibv_command_buffer,
    ) -> Result<CmdBuf<'a>, c_int> {
        // SAFETY: caller guarantee on link.
        let total = unsafe { final_num_attrs(num_attrs, link) };
        if total > INLINE_ATTRS {
            // SAFETY: forwarded.
            return unsafe { CmdBuf::on_heap(object_id, method_id, total, link) };
        }
        let raw = (space as *mut CmdSpace).cast::<ibv_command_buffer>();
        // SAFETY: the space is aligned for the header (its first field) and
        // its attribute array starts at size_of::<ibv_command_buffer>(), not
        // before the header's flexible array, so `total` slots fit.
        unsafe { init_header(raw, object_id, method_id, total, link) };
        Ok(CmdBuf {
            // SAFETY: derived from a reference.
            cmd: unsafe { NonNull::new_unchecked(raw) },
            layout: None,
            _space: PhantomData,
        })
    }

    /// The compatibility buffer of the classic `ibv_cmd_*(..., cmd, cmd_size,
    /// resp, resp_size)` helpers (upstream's `DECLARE_CMD_BUFFER_COMPAT`), in
    /// `space`: two slots, holding the provider's UHW data if it passed any
    /// beyond the core structs `C` and `R`.
    ///
    /// # Safety
    /// As for [`CmdBuf::set_uhw`] with `core_req_size = size_of::<C>()` and
    /// `core_resp_size = size_of::<R>()`.
    pub(crate) unsafe fn compat_in<C, R>(
        space: &'a mut CmdSpace,
        object_id: u16,
        method_id: u16,
        cmd: *mut C,
        cmd_size: usize,
        resp: *mut R,
        resp_size: usize,
    ) -> Result<CmdBuf<'a>, c_int> {
        let mut b = CmdBuf::new_in(space, object_id, method_id, 2)?;
        // SAFETY: forwarded caller guarantee.
        unsafe { b.set_compat_uhw(cmd, cmd_size, resp, resp_size) };
        Ok(b)
    }

    /// [`CmdBuf::compat_in`] that also links the provider's own command
    /// buffer `link` (upstream's `DECLARE_CMD_BUFFER_LINK_COMPAT`).
    ///
    /// # Safety
    /// As for [`CmdBuf::compat_in`], and `link` is NULL or a valid chain that
    /// outlives this buffer.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn compat_link_in<C, R>(
        space: &'a mut CmdSpace,
        object_id: u16,
        method_id: u16,
        link: *mut ibv_command_buffer,
        cmd: *mut C,
        cmd_size: usize,
        resp: *mut R,
        resp_size: usize,
    ) -> Result<CmdBuf<'a>, c_int> {
        // SAFETY: caller guarantee on link.
        let mut b = unsafe { CmdBuf::with_link_in(space, object_id, method_id, 2, link) }?;
        // SAFETY: forwarded caller guarantee.
        unsafe { b.set_compat_uhw(cmd, cmd_size, resp, resp_size) };
        Ok(b)
    }

    /// # Safety
    /// As for [`CmdBuf::compat_in`].
    unsafe fn set_compat_uhw<C, R>(
        &mut self,
        cmd: *mut C,
        cmd_size: usize,
        resp: *mut R,
        resp_size: usize,
    ) {
        // SAFETY: forwarded caller guarantee.
        unsafe {
            self.set_uhw(
                cmd.cast(),
                size_of::<C>(),
                cmd_size,
                resp.cast(),
                size_of::<R>(),
                resp_size,
            )
        };
    }

    pub(crate) fn as_ptr(&self) -> *mut ibv_command_buffer {
        self.cmd.as_ptr()
    }

    #[cfg(test)]
    fn raw(&self) -> &ibv_command_buffer {
        // SAFETY: the allocation is owned and initialised for self's lifetime.
        unsafe { self.cmd.as_ref() }
    }

    fn raw_mut(&mut self) -> &mut ibv_command_buffer {
        // SAFETY: as in raw(); &mut self gives exclusive access.
        unsafe { self.cmd.as_mut() }
    }

    /// The attribute slots filled so far (own attributes only).
    pub(crate) fn attrs(&self) -> &[ib_uverbs_attr] {
        // SAFETY: slots between attrs_of and next_attr are initialised.
        unsafe { core::slice::from_raw_parts(attrs_of(self.as_ptr()), filled_attrs(self.as_ptr())) }
    }

    fn attrs_mut(&mut self) -> &mut [ib_uverbs_attr] {
        let p = self.as_ptr();
        // SAFETY: as in attrs(); &mut self gives exclusive access.
        unsafe { core::slice::from_raw_parts_mut(attrs_of(p), filled_attrs(p)) }
    }

    pub(crate) fn attr(&self, a: Attr) -> Option<&ib_uverbs_attr> {
        self.attrs().get(a.0)
    }

    fn attr_mut(&mut self, a: Attr) -> Option<&mut ib_uverbs_attr> {
        self.attrs_mut().get_mut(a.0)
    }

    #[cfg(test)]
    pub(crate) fn bitfields(&self) -> u8 {
        self.raw().bitfields
    }

    /// Claims the next slot and writes it whole: `attr_id`, mandatory, `len`
    /// and `data`, everything else zero (upstream's `_ioctl_next_attr` plus
    /// the fill).
    fn push(&mut self, attr_id: u16, len: u16, data: u64) -> Attr {
        let p = self.as_ptr();
        // SAFETY: p is this buffer; the slot written is checked to be below
        // last_attr, inside the allocation.
        unsafe {
            if (*p).next_attr >= (*p).last_attr {
                debug_assert!(false, "command buffer sized too small");
                (*p).bitfields |= CMDB_BUFFER_ERROR;
                return Attr::NONE;
            }
            let slot = (*p).next_attr;
            ptr::write(
                slot,
                ib_uverbs_attr {
                    attr_id,
                    len,
                    flags: UVERBS_ATTR_F_MANDATORY,
                    data,
                    ..Default::default()
                },
            );
            (*p).next_attr = slot.add(1);
            Attr(slot.offset_from(attrs_of(p)) as usize)
        }
    }

    fn set(&mut self, a: Attr, f: impl FnOnce(&mut ib_uverbs_attr)) {
        if let Some(attr) = self.attr_mut(a) {
            f(attr)
        }
    }

    /// Marks `a` optional: the kernel may ignore it if unknown
    /// (upstream's `attr_optional`).
    pub(crate) fn optional(&mut self, a: Attr) -> Attr {
        self.set(a, |attr| attr.flags &= !UVERBS_ATTR_F_MANDATORY);
        a
    }

    /// `fill_attr_in_obj`: an object handle (IDR) going in.
    pub(crate) fn fill_in_obj(&mut self, attr_id: u16, idr: u32) -> Attr {
        self.push(attr_id, 0, idr as u64)
    }

    /// `fill_attr_out_obj`: slot for the handle of a new object.
    pub(crate) fn fill_out_obj(&mut self, attr_id: u16) -> Attr {
        self.fill_in_obj(attr_id, 0)
    }

    /// `fill_attr_in`: `len` bytes at `data` going in; up to 8 bytes travel
    /// inline, longer ones by pointer. Over 64 KiB marks the buffer bad.
    ///
    /// # Safety
    /// `data` is readable for `len` bytes now (inline case) and until the
    /// command executes (pointer case).
    pub(crate) unsafe fn fill_in(&mut self, attr_id: u16, data: *const c_void, len: usize) -> Attr {
        let mut v: u64 = 0;
        if len <= size_of::<u64>() {
            if len > 0 {
                // SAFETY: data readable for len bytes (caller); the
                // destination is the 8-byte value (the low bytes in memory
                // order, as C's memcpy into the data field).
                unsafe {
                    ptr::copy_nonoverlapping(data.cast::<u8>(), addr_of_mut!(v).cast::<u8>(), len)
                };
            }
        } else {
            v = data as usize as u64;
        }
        let a = self.push(attr_id, len as u16, v);
        if len > u16::MAX as usize {
            self.raw_mut().bitfields |= CMDB_BUFFER_ERROR;
        }
        a
    }

    /// `fill_attr_in_ptr`: a whole `T` going in.
    ///
    /// # Safety
    /// As for [`CmdBuf::fill_in`] with `size_of::<T>()` bytes.
    pub(crate) unsafe fn fill_in_ptr<T>(&mut self, attr_id: u16, data: *const T) -> Attr {
        // SAFETY: forwarded.
        unsafe { self.fill_in(attr_id, data.cast(), size_of::<T>()) }
    }

    /// `fill_attr_in_uint64` / `fill_attr_const_in`: an inline 64-bit value.
    pub(crate) fn fill_in_u64(&mut self, attr_id: u16, v: u64) -> Attr {
        self.push(attr_id, 8, v)
    }

    /// `fill_attr_const_in`: an enum-like constant, sent as 64 bits.
    pub(crate) fn fill_const_in(&mut self, attr_id: u16, v: u64) -> Attr {
        self.fill_in_u64(attr_id, v)
    }

    /// `fill_attr_in_uint32`: an inline 32-bit value (in the first four
    /// bytes of `data`, as C's memcpy puts it).
    pub(crate) fn fill_in_u32(&mut self, attr_id: u16, v: u32) -> Attr {
        let mut b = [0u8; 8];
        b[..4].copy_from_slice(&v.to_ne_bytes());
        self.push(attr_id, 4, u64::from_ne_bytes(b))
    }

    /// `fill_attr_in_fd`: a file descriptor going in; nothing is added for -1.
    pub(crate) fn fill_in_fd(&mut self, attr_id: u16, fd: c_int) -> Option<Attr> {
        if fd == -1 {
            return None;
        }
        Some(self.push(attr_id, 0, fd as i64 as u64))
    }

    /// `fill_attr_out_fd`: slot for a new file descriptor.
    pub(crate) fn fill_out_fd(&mut self, attr_id: u16) -> Attr {
        self.push(attr_id, 0, 0)
    }

    /// `fill_attr_out`: `len` bytes at `data` for the kernel to write.
    ///
    /// # Safety
    /// `data` is writable for `len` bytes until the command has executed.
    pub(crate) unsafe fn fill_out(&mut self, attr_id: u16, data: *mut c_void, len: usize) -> Attr {
        let a = self.push(attr_id, len as u16, data as usize as u64);
        if len > u16::MAX as usize {
            self.raw_mut().bitfields |= CMDB_BUFFER_ERROR;
        }
        a
    }

    /// `fill_attr_out_ptr`: a whole `T` for the kernel to write.
    ///
    /// # Safety
    /// As for [`CmdBuf::fill_out`] with `size_of::<T>()` bytes.
    pub(crate) unsafe fn fill_out_ptr<T>(&mut self, attr_id: u16, data: *mut T) -> Attr {
        // SAFETY: forwarded.
        unsafe { self.fill_out(attr_id, data.cast(), size_of::<T>()) }
    }

    /// `fill_attr_in_enum`: data going in, tagged with the enum element.
    ///
    /// # Safety
    /// As for [`CmdBuf::fill_in`].
    pub(crate) unsafe fn fill_in_enum(
        &mut self,
        attr_id: u16,
        elem_id: u8,
        data: *const c_void,
        len: usize,
    ) -> Attr {
        // SAFETY: forwarded.
        let a = unsafe { self.fill_in(attr_id, data, len) };
        self.set(a, |attr| {
            attr.attr_data.enum_data = ib_uverbs_attr_enum_data {
                elem_id,
                reserved: 0,
            }
        });
        a
    }

    /// UHW_IN for the compatibility buffers: always by pointer here; it is
    /// inlined (if short) only right before the ioctl, so the write()
    /// fallback can still find the provider's buffer.
    unsafe fn fill_in_uhw(&mut self, data: *const c_void, len: usize) -> Attr {
        let a = self.push(UVERBS_ATTR_UHW_IN, len as u16, data as usize as u64);
        if len > u16::MAX as usize {
            self.raw_mut().bitfields |= CMDB_BUFFER_ERROR;
        }
        a
    }

    /// Upstream's `_write_set_uhw`: describe the provider's data behind the
    /// core request/response structs as UHW_IN/UHW_OUT, and remember how much
    /// room precedes them (for the write() fallback to build its command in
    /// place).
    ///
    /// # Safety
    /// `req`/`resp` are NULL or valid for `req_size`/`resp_size` bytes until
    /// the command has executed.
    pub(crate) unsafe fn set_uhw(
        &mut self,
        req: *const c_void,
        core_req_size: usize,
        req_size: usize,
        resp: *mut c_void,
        core_resp_size: usize,
        resp_size: usize,
    ) {
        if !req.is_null() && core_req_size < req_size {
            // SAFETY: the data lies inside the caller's request buffer.
            let a = unsafe {
                self.fill_in_uhw(
                    req.cast::<u8>().add(core_req_size).cast(),
                    req_size - core_req_size,
                )
            };
            let c = self.raw_mut();
            c.uhw_in_idx = a.0 as u8;
            c.uhw_in_headroom_dwords = (core_req_size / 4) as u8;
        }
        if !resp.is_null() && core_resp_size < resp_size {
            // SAFETY: the data lies inside the caller's response buffer.
            let a = unsafe {
                self.fill_out(
                    UVERBS_ATTR_UHW_OUT,
                    resp.cast::<u8>().add(core_resp_size).cast(),
                    resp_size - core_resp_size,
                )
            };
            let c = self.raw_mut();
            c.uhw_out_idx = a.0 as u8;
            c.uhw_out_headroom_dwords = (core_resp_size / 4) as u8;
        }
    }

    /// `fallback_require_ex`: without ioctl support, use the extended write().
    pub(crate) fn require_ex(&mut self) {
        self.raw_mut().bitfields |= CMDB_FALLBACK_REQUIRE_EX;
    }

    /// `fallback_require_ioctl`: without ioctl support, fail (EOPNOTSUPP).
    pub(crate) fn require_ioctl(&mut self) {
        self.raw_mut().bitfields |= CMDB_FALLBACK_IOCTL_ONLY;
    }

    /// `read_attr_obj`: the handle the kernel stored in `a`.
    pub(crate) fn read_obj(&self, a: Attr) -> u32 {
        self.attr(a).map_or(0, |x| x.data as u32)
    }

    /// `read_attr_fd`: the file descriptor the kernel stored in `a`.
    pub(crate) fn read_fd(&self, a: Attr) -> c_int {
        self.attr(a).map_or(-1, |x| x.data as c_int)
    }

    /// [`execute`] on this buffer.
    ///
    /// # Safety
    /// `ctx` is live; every pointer given to the fill functions and the
    /// linked chain are still valid.
    pub(crate) unsafe fn execute(&mut self, ctx: *mut ibv_context) -> c_int {
        // SAFETY: forwarded.
        unsafe { execute(ctx, self.as_ptr()) }
    }
}

impl Drop for CmdBuf<'_> {
    fn drop(&mut self) {
        if let Some(layout) = self.layout {
            // SAFETY: allocated in on_heap with this layout.
            unsafe { std::alloc::dealloc(self.cmd.as_ptr().cast(), layout) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::kernel::*;

    fn cat(parts: &[&[u8]]) -> Vec<u8> {
        parts.concat()
    }

    /// One attribute as the uAPI lays it out: attr_id, len, flags,
    /// attr_data (u16 each), then the 64-bit data.
    fn attr_bytes(id: u16, len: u16, flags: u16, data: u64) -> Vec<u8> {
        cat(&[&le16(id), &le16(len), &le16(flags), &le16(0), &le64(data)])
    }

    #[test]
    fn ioctl_bytes_follow_the_uapi_layout() {
        let mut t = TestCtx::new(14 /* RDMA_DRIVER_RXE */, false);
        let mut resp = [0u8; 8];
        let mut b = CmdBuf::new(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY, 2).unwrap();
        // SAFETY: resp outlives the command.
        unsafe { b.fill_out(UVERBS_ATTR_DESTROY_CQ_RESP, resp.as_mut_ptr().cast(), 8) };
        b.fill_in_obj(UVERBS_ATTR_DESTROY_CQ_HANDLE, 0x1234);
        let k = FakeKernel::new().on_ioctl(|c| {
            c.write_out(1, &[1, 0, 0, 0, 2, 0, 0, 0]);
            0
        });
        // SAFETY: test context and buffers are live.
        let (ret, sent) = with_kernel(k, || unsafe { b.execute(t.ctx()) });
        assert_eq!(ret, 0);
        assert_eq!(sent.len(), 1);
        // Header: length 24 + 2 * 16, object CQ (3), method DESTROY (1), two
        // attributes, reserved1, driver_id, reserved2.
        let expected = cat(&[
            &le16(56),
            &le16(3),
            &le16(1),
            &le16(2),
            &le64(0),
            &le32(14),
            &le32(0),
            &attr_bytes(1, 8, 1, resp.as_ptr() as u64),
            &attr_bytes(0, 0, 1, 0x1234),
        ]);
        match &sent[0] {
            Sent::Ioctl { fd, bytes, .. } => {
                assert_eq!(*fd, TEST_CMD_FD);
                assert_eq!(bytes, &expected);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(resp, [1, 0, 0, 0, 2, 0, 0, 0]);
        // The kernel's VALID_OUTPUT mark is visible in the buffer.
        assert_eq!(
            b.attrs()[0].flags,
            UVERBS_ATTR_F_MANDATORY | UVERBS_ATTR_F_VALID_OUTPUT
        );
    }

    #[test]
    fn short_inputs_travel_inline_long_ones_by_pointer() {
        let mut b = CmdBuf::new(0, 0, 9).unwrap();
        let four = [0xAAu8, 0xBB, 0xCC, 0xDD];
        let eight = [1u8, 2, 3, 4, 5, 6, 7, 8];
        let nine = [9u8; 9];
        // SAFETY: the arrays outlive the buffer.
        let (a4, a8, a9) = unsafe {
            (
                b.fill_in(10, four.as_ptr().cast(), 4),
                b.fill_in(11, eight.as_ptr().cast(), 8),
                b.fill_in(12, nine.as_ptr().cast(), 9),
            )
        };
        let u32a = b.fill_in_u32(13, 0x1122_3344);
        let u64a = b.fill_in_u64(14, 0x0102_0304_0506_0708);
        assert!(b.fill_in_fd(15, -1).is_none());
        let fd = b.fill_in_fd(15, 7).unwrap();
        b.optional(fd);
        let ofd = b.fill_out_fd(16);
        let obj = b.fill_out_obj(17);
        let a = b.attrs();
        assert_eq!(a.len(), 8);
        assert_eq!((a[a4.index()].len, a[a4.index()].data), (4, 0xDDCC_BBAA));
        assert_eq!(
            (a[a8.index()].len, a[a8.index()].data),
            (8, 0x0807_0605_0403_0201)
        );
        assert_eq!(
            (a[a9.index()].len, a[a9.index()].data),
            (9, nine.as_ptr() as u64)
        );
        assert_eq!(
            (a[u32a.index()].len, a[u32a.index()].data),
            (4, 0x1122_3344)
        );
        assert_eq!(
            (a[u64a.index()].len, a[u64a.index()].data),
            (8, 0x0102_0304_0506_0708)
        );
        assert_eq!(
            (a[fd.index()].len, a[fd.index()].data, a[fd.index()].flags),
            (0, 7, 0)
        );
        assert_eq!(
            (a[ofd.index()].data, a[ofd.index()].flags),
            (0, UVERBS_ATTR_F_MANDATORY)
        );
        assert_eq!((a[obj.index()].attr_id, a[obj.index()].data), (17, 0));
    }

    #[repr(C)]
    #[derive(Default)]
    struct DrvCmd {
        ibv_cmd: ibv_alloc_pd,
        drv: u64,
    }

    #[repr(C)]
    #[derive(Default)]
    struct DrvResp {
        ibv_resp: ib_uverbs_alloc_pd_resp,
        drv: u32,
    }

    #[test]
    fn linked_attrs_are_appended_and_copied_back_with_uhw_inlined() {
        let mut t = TestCtx::new(1, false);
        let mut cmd = DrvCmd {
            drv: 0x0102_0304_0506_0708,
            ..Default::default()
        };
        let mut resp = DrvResp::default();
        // SAFETY: cmd and resp outlive the buffers.
        let compat = unsafe {
            CmdBuf::compat(
                3,
                0,
                &mut cmd.ibv_cmd,
                size_of::<DrvCmd>(),
                &mut resp.ibv_resp,
                size_of::<DrvResp>(),
            )
        }
        .unwrap();
        let link = compat.as_ptr();
        // SAFETY: compat is a valid chain that outlives main.
        let mut main = unsafe { CmdBuf::with_link(3, 0, 1, link) }.unwrap();
        let h = main.fill_out_obj(0);
        {
            // In the compatibility buffer UHW_IN is a pointer to the
            // provider's data; headroom is the wrapper size in dwords.
            let c = compat.attrs();
            assert_eq!(c.len(), 2);
            assert_eq!((c[0].attr_id, c[0].len), (UVERBS_ATTR_UHW_IN, 8));
            assert_eq!(c[0].data, &cmd.drv as *const u64 as u64);
            assert_eq!((c[1].attr_id, c[1].len), (UVERBS_ATTR_UHW_OUT, 4));
            assert_eq!(c[1].data, &resp.drv as *const u32 as u64);
            // SAFETY: link is live.
            unsafe {
                assert_eq!(((*link).uhw_in_idx, (*link).uhw_out_idx), (0, 1));
                assert_eq!((*link).uhw_in_headroom_dwords, 4);
                assert_eq!((*link).uhw_out_headroom_dwords, 1);
            }
        }
        let k = FakeKernel::new().on_ioctl(|c| {
            let a = c.attrs();
            assert_eq!(a.len(), 3);
            assert_eq!(a[1].attr_id, 0x1000);
            assert_eq!(a[1].data, 0x0102_0304_0506_0708, "short UHW_IN inlined");
            c.write_out(0x1001, &0xfeed_beefu32.to_ne_bytes());
            c.set_data(0, 99);
            0
        });
        // SAFETY: live context and chain.
        let (ret, sent) = with_kernel(k, || unsafe { main.execute(t.ctx()) });
        assert_eq!(ret, 0);
        let (hdr, attrs) = sent[0].ioctl();
        assert_eq!((hdr.num_attrs, hdr.length), (3, 24 + 3 * 16));
        assert_eq!(attrs[2].data, &resp.drv as *const u32 as u64);
        assert_eq!(main.read_obj(h), 99);
        assert_eq!(resp.drv, 0xfeed_beef);
        // SAFETY: link is live.
        assert_eq!(unsafe { (*main.as_ptr()).uhw_in_idx }, 1);
        let c = compat.attrs();
        assert_eq!(
            c[0].data, 0x0102_0304_0506_0708,
            "copied back after success"
        );
        assert_ne!(c[1].flags & UVERBS_ATTR_F_VALID_OUTPUT, 0);
    }

    #[test]
    fn failed_ioctl_leaves_linked_buffers_untouched_and_sets_errno() {
        let mut t = TestCtx::new(1, false);
        let mut cmd = DrvCmd::default();
        let mut resp = DrvResp::default();
        // SAFETY: cmd and resp outlive the buffers.
        let compat = unsafe {
            CmdBuf::compat(
                3,
                0,
                &mut cmd.ibv_cmd,
                size_of::<DrvCmd>(),
                &mut resp.ibv_resp,
                size_of::<DrvResp>(),
            )
        }
        .unwrap();
        // SAFETY: compat outlives main.
        let mut main = unsafe { CmdBuf::with_link(3, 0, 0, compat.as_ptr()) }.unwrap();
        let k = FakeKernel::new().on_ioctl(|_| libc::EPROTONOSUPPORT);
        // SAFETY: live context and chain.
        let (ret, _) = with_kernel(k, || unsafe { main.execute(t.ctx()) });
        assert_eq!(ret, libc::EPROTONOSUPPORT);
        assert_eq!(rdma_util::ffi::errno(), libc::EPROTONOSUPPORT);
        assert_eq!(compat.attrs()[0].data, &cmd.drv as *const u64 as u64);
    }

    #[test]
    fn oversized_attribute_fails_with_einval_without_a_syscall() {
        let mut t = TestCtx::new(1, false);
        let big = vec![0u8; 70_000];
        let mut b = CmdBuf::new(0, 0, 1).unwrap();
        // SAFETY: big outlives the buffer.
        unsafe { b.fill_in(1, big.as_ptr().cast(), big.len()) };
        assert_ne!(b.bitfields() & CMDB_BUFFER_ERROR, 0);
        // SAFETY: live context.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { b.execute(t.ctx()) });
        assert_eq!(ret, libc::EINVAL);
        assert_eq!(rdma_util::ffi::errno(), libc::EINVAL);
        assert!(sent.is_empty());
    }

    #[test]
    fn chain_larger_than_the_buffer_is_refused() {
        let mut t = TestCtx::new(1, false);
        let mut link = CmdBuf::new(0, 0, 2).unwrap();
        // SAFETY: link outlives main.
        let mut main = unsafe { CmdBuf::with_link(0, 0, 1, link.as_ptr()) }.unwrap();
        // Filled after main was sized: main has no room for these.
        link.fill_in_u64(0x1000 | 5, 1);
        link.fill_in_u64(0x1000 | 6, 2);
        main.fill_in_u64(1, 3);
        // SAFETY: live context and chain.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { main.execute(t.ctx()) });
        assert_eq!(ret, libc::EINVAL);
        assert!(sent.is_empty());
    }

    #[test]
    fn stack_buffer_sends_the_same_bytes_and_large_chains_go_to_the_heap() {
        let mut t = TestCtx::new(14, false);
        let mut space = CmdSpace::new();
        let space_addr = &space as *const CmdSpace as usize;
        let mut heap = CmdBuf::new(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY, 3).unwrap();
        let mut stack =
            CmdBuf::new_in(&mut space, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY, 3).unwrap();
        assert_eq!(stack.as_ptr() as usize, space_addr, "built in the caller's space");
        for b in [&mut heap, &mut stack] {
            b.fill_in_obj(UVERBS_ATTR_DESTROY_CQ_HANDLE, 0x44);
            b.fill_in_u32(0x1000, 0xabcd);
            let four = [1u8, 2, 3, 4];
            // SAFETY: four outlives the call (inline copy).
            unsafe { b.fill_in(0x1001, four.as_ptr().cast(), 4) };
        }
        // SAFETY: live test context; all attributes are inline.
        let (r1, s1) = with_kernel(FakeKernel::new(), || unsafe { heap.execute(t.ctx()) });
        // SAFETY: as above.
        let (r2, s2) = with_kernel(FakeKernel::new(), || unsafe { stack.execute(t.ctx()) });
        assert_eq!((r1, r2), (0, 0));
        match (&s1[0], &s2[0]) {
            (Sent::Ioctl { bytes: a, .. }, Sent::Ioctl { bytes: b, .. }) => assert_eq!(a, b),
            other => panic!("{other:?}"),
        }
        // A chain that does not fit the space lands on the heap, with room
        // for all of it.
        let mut link = CmdBuf::new(0, 0, 4).unwrap();
        for i in 0..4 {
            link.fill_in_u64(0x1000 + i, 1);
        }
        let mut space2 = CmdSpace::new();
        let space2_addr = &space2 as *const CmdSpace as usize;
        // SAFETY: link outlives big.
        let big = unsafe { CmdBuf::with_link_in(&mut space2, 0, 0, INLINE_ATTRS - 3, link.as_ptr()) }
            .unwrap();
        assert_ne!(big.as_ptr() as usize, space2_addr);
        // SAFETY: big is valid.
        let slots = unsafe { (*big.as_ptr()).last_attr.offset_from(attrs_of(big.as_ptr())) };
        assert_eq!(slots as usize, INLINE_ATTRS + 1);
    }

    #[test]
    fn final_num_attrs_counts_the_whole_chain() {
        let mut a = CmdBuf::new(0, 0, 3).unwrap();
        a.fill_in_u64(1, 1);
        a.fill_in_u64(2, 1);
        // SAFETY: a outlives b.
        let mut b = unsafe { CmdBuf::with_link(0, 0, 4, a.as_ptr()) }.unwrap();
        b.fill_in_u64(1, 1);
        // SAFETY: a valid chain (exported entry point).
        assert_eq!(unsafe { __ioctl_final_num_attrs(5, b.as_ptr()) }, 5 + 1 + 2);
        // SAFETY: NULL link.
        assert_eq!(unsafe { __ioctl_final_num_attrs(5, ptr::null_mut()) }, 5);
        // b had room for its 4 plus a's 2.
        // SAFETY: b is valid.
        unsafe { assert_eq!((*b.as_ptr()).last_attr.offset_from(attrs_of(b.as_ptr())), 6) };
    }

    #[test]
    fn ioctl_write_probe() {
        for (rc, expect) in [
            (libc::ENOSPC, true),
            (libc::EINVAL, true),
            (0, true),
            (libc::EPROTONOSUPPORT, false),
            (libc::ENOTTY, false),
        ] {
            let mut t = TestCtx::new(1, false);
            let k = FakeKernel::new().on_ioctl(move |_| rc);
            // SAFETY: live context.
            let (got, sent) = with_kernel(k, || unsafe { has_ioctl_write(t.ctx()) });
            assert_eq!(got, expect, "rc {rc}");
            let (hdr, attrs) = sent[0].ioctl();
            assert_eq!((hdr.object_id, hdr.method_id, hdr.num_attrs), (0, 0, 1));
            // UVERBS_ATTR_WRITE_CMD (2) = IB_USER_VERBS_CMD_QUERY_DEVICE (1).
            assert_eq!((attrs[0].attr_id, attrs[0].len, attrs[0].data), (2, 8, 1));
        }
    }

    #[test]
    fn non_verbs_context_is_rejected() {
        let mut t = TestCtx::new(1, false);
        let ctx = t.ctx();
        // SAFETY: test context.
        unsafe { (*ctx).abi_compat = ptr::null_mut() };
        let mut b = CmdBuf::new(0, 0, 1).unwrap();
        b.fill_in_u64(1, 1);
        // SAFETY: live context.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { b.execute(ctx) });
        assert_eq!(ret, libc::EINVAL);
        assert!(sent.is_empty());
    }

    #[test]
    fn exported_execute_ioctl_checks_arguments() {
        // SAFETY: NULL arguments are rejected before use.
        assert_eq!(
            unsafe { execute_ioctl(ptr::null_mut(), ptr::null_mut()) },
            libc::EINVAL
        );
    }
}
