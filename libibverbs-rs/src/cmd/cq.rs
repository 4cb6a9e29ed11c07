//! Completion queues (upstream's `cmd_cq.c` and the CQ helpers of `cmd.c`).

use core::mem::size_of;
use core::ptr::{self, addr_of_mut};
use libc::c_int;

use super::ioctl::{ibv_command_buffer, CmdBuf, CmdSpace};
use super::write::{
    execute_cmd_write, execute_cmd_write_req, execute_ioctl_fallback, execute_write_bufs,
    execute_write_bufs_ex, fallback_result, Fallback,
};
use super::{cmd_state, is_destroy_err};
use crate::abi::driver::*;
use crate::abi::driver65;
use crate::abi::kern::*;
use crate::abi::verbs::*;
use crate::cmd::cmd_bit;
use rdma_util::ensure;

/// The shared body of `ibv_cmd_create_cq(_ex)`: the CQ_CREATE ioctl, or the
/// classic / extended CREATE_CQ write() command, with the provider data in
/// `link`.
#[allow(clippy::too_many_arguments)]
unsafe fn icmd_create_cq(
    ctx: *mut ibv_context,
    cqe: c_int,
    channel: *mut ibv_comp_channel,
    comp_vector: c_int,
    flags: u32,
    cq: *mut ibv_cq,
    link: *mut ibv_command_buffer,
    cmd_flags: u32,
    prov: *const driver65::verbs_create_cq_prov_attr,
) -> c_int {
    // SAFETY (whole function): ctx, cq and channel (if not NULL) are live;
    // link is the compatibility buffer of the provider's command; prov is
    // NULL or the provider's CQ memory description.
    unsafe {
        let Some(state) = cmd_state(ctx) else {
            return libc::EINVAL;
        };
        let mem_flags = driver65::CREATE_CQ_CMD_FLAGS_WITH_MEM_VA | driver65::CREATE_CQ_CMD_FLAGS_WITH_MEM_DMABUF;
        if cmd_flags & mem_flags != 0 && prov.is_null() {
            return libc::EINVAL;
        }
        let mut cmd_space = CmdSpace::new();
        let mut cmdb = match CmdBuf::with_link_in(&mut cmd_space, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE, 11, link) {
            Ok(b) => b,
            Err(e) => return e,
        };
        let mut resp_cqe: u32 = 0;
        (*cq).context = ctx;

        let handle = cmdb.fill_out_obj(UVERBS_ATTR_CREATE_CQ_HANDLE);
        cmdb.fill_out_ptr(UVERBS_ATTR_CREATE_CQ_RESP_CQE, &mut resp_cqe);
        cmdb.fill_in_u32(UVERBS_ATTR_CREATE_CQ_CQE, cqe as u32);
        cmdb.fill_in_u64(UVERBS_ATTR_CREATE_CQ_USER_HANDLE, cq as usize as u64);
        if !channel.is_null() {
            cmdb.fill_in_fd(UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL, (*channel).fd);
        }
        cmdb.fill_in_u32(UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, comp_vector as u32);
        let async_fd = cmdb.fill_in_fd(UVERBS_ATTR_CREATE_CQ_EVENT_FD, (*ctx).async_fd);
        if state.imported {
            cmdb.require_ioctl();
        } else if let Some(a) = async_fd {
            // Older kernels without the attribute can still create the CQ.
            cmdb.optional(a);
        }
        // CQ memory the provider allocated (rdma-core 65): only the ioctl
        // path can carry it.
        if cmd_flags & driver65::CREATE_CQ_CMD_FLAGS_WITH_MEM_VA != 0 {
            let b = &(*prov).buffer;
            cmdb.fill_in_u64(UVERBS_ATTR_CREATE_CQ_BUFFER_VA, b.mem.ptr as usize as u64);
            cmdb.fill_in_u64(UVERBS_ATTR_CREATE_CQ_BUFFER_LENGTH, b.length);
            cmdb.require_ioctl();
        } else if cmd_flags & driver65::CREATE_CQ_CMD_FLAGS_WITH_MEM_DMABUF != 0 {
            let b = &(*prov).buffer;
            cmdb.fill_in_fd(UVERBS_ATTR_CREATE_CQ_BUFFER_FD, b.mem.dmabuf.fd);
            cmdb.fill_in_u64(UVERBS_ATTR_CREATE_CQ_BUFFER_OFFSET, b.mem.dmabuf.offset);
            cmdb.fill_in_u64(UVERBS_ATTR_CREATE_CQ_BUFFER_LENGTH, b.length);
            cmdb.require_ioctl();
        }
        if flags != 0 {
            if flags & !IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION != 0
                || cmd_flags & CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX == 0
            {
                cmdb.require_ex();
            }
            cmdb.fill_in_u32(UVERBS_ATTR_CREATE_CQ_FLAGS, flags);
        }

        let comp_channel = if channel.is_null() { -1 } else { (*channel).fd };
        match execute_ioctl_fallback(ctx, cmd_bit!(create_cq), cmdb.as_ptr()) {
            Fallback::TryWrite => {
                let core = ib_uverbs_create_cq {
                    user_handle: cq as usize as u64,
                    cqe: cqe as u32,
                    comp_vector: comp_vector as u32,
                    comp_channel,
                    ..Default::default()
                };
                match execute_write_bufs::<ibv_create_cq>(ctx, link, core) {
                    Ok(resp) => {
                        (*cq).handle = resp.cq_handle;
                        (*cq).cqe = resp.cqe as c_int;
                        0
                    }
                    Err(e) => e,
                }
            }
            Fallback::TryWriteEx => {
                let core = ib_uverbs_ex_create_cq {
                    user_handle: cq as usize as u64,
                    cqe: cqe as u32,
                    comp_vector: comp_vector as u32,
                    comp_channel,
                    flags,
                    ..Default::default()
                };
                match execute_write_bufs_ex::<ibv_create_cq_ex>(ctx, link, core) {
                    Ok(resp) => {
                        (*cq).handle = resp.base.cq_handle;
                        (*cq).cqe = resp.base.cqe as c_int;
                        0
                    }
                    Err(e) => e,
                }
            }
            Fallback::Error(e) => e,
            Fallback::Success => {
                (*cq).handle = cmdb.read_obj(handle);
                (*cq).cqe = resp_cqe as c_int;
                0
            }
        }
    }
}

rdma_util::export_versioned! {
    /// Creates a CQ: the CQ_CREATE ioctl, or the CREATE_CQ write() command
    /// on older kernels. `cmd` may be NULL when the provider sends no data.
    /// Sets the CQ's context, handle and cqe. Returns 0 or an errno value.
    fn ibv_cmd_create_cq(context: *mut ibv_context, cqe: c_int,
                         channel: *mut ibv_comp_channel, comp_vector: c_int,
                         cq: *mut ibv_cq, cmd: *mut ibv_create_cq, cmd_size: usize,
                         resp: *mut ib_uverbs_create_cq_resp, resp_size: usize) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(!context.is_null() && !cq.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes its command and response buffers (or NULL).
        let mut cmd_space = CmdSpace::new();
        let cmdb = match unsafe { CmdBuf::compat_in(&mut cmd_space, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE,
                                                  cmd, cmd_size, resp, resp_size) } {
            Ok(b) => b,
            Err(e) => return e,
        };
        // SAFETY: live context and CQ; cmdb describes the provider's buffers.
        unsafe { icmd_create_cq(context, cqe, channel, comp_vector, 0, cq, cmdb.as_ptr(), 0, ptr::null()) }
    }
}
private_abi_both!(ibv_cmd_create_cq);

/// The shared body of `ibv_cmd_create_cq_ex(2)`: the extended attributes
/// become CQ_CREATE flags (timestamps, overrun); unknown `comp_mask` bits are
/// EOPNOTSUPP.
///
/// # Safety
/// `context`, `cq_attr` and `cq` are live; `cmdb` is a command buffer of
/// CQ_CREATE with the provider's data.
unsafe fn create_cq_ex_with(context: *mut ibv_context, cq_attr: *const ibv_cq_init_attr_ex,
                            cq: *mut verbs_cq, cmdb: *mut ibv_command_buffer, cmd_flags: u32,
                            prov: *const driver65::verbs_create_cq_prov_attr) -> c_int {
    // SAFETY: live attributes (caller contract).
    let a = unsafe { &*cq_attr };
    if a.comp_mask & !(IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD) != 0 {
        return libc::EOPNOTSUPP;
    }
    let mut flags = 0;
    if a.wc_flags & (IBV_WC_EX_WITH_COMPLETION_TIMESTAMP
        | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK) as u64 != 0
    {
        flags |= IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION;
    }
    if a.comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS != 0
        && a.flags & IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN != 0
    {
        flags |= IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN;
    }
    // SAFETY: live context and CQ; cmdb describes the provider's buffers.
    unsafe {
        let ibcq = addr_of_mut!((*cq).base.cq);
        icmd_create_cq(context, a.cqe as c_int, a.channel, a.comp_vector as c_int, flags,
                       ibcq, cmdb, cmd_flags, prov)
    }
}

rdma_util::export_versioned! {
    /// ibv_cmd_create_cq_ex@IBVERBS_PRIVATE_34: creates a CQ from extended
    /// attributes (timestamps and overrun flags become CQ_CREATE flags; flags
    /// other than a tolerated timestamp need the extended write() command on
    /// older kernels). Returns 0 or an errno value; EOPNOTSUPP for unknown
    /// `comp_mask` bits.
    fn ibv_cmd_create_cq_ex(context: *mut ibv_context, cq_attr: *const ibv_cq_init_attr_ex,
                            cq: *mut verbs_cq, cmd: *mut ibv_create_cq_ex, cmd_size: usize,
                            resp: *mut ib_uverbs_ex_create_cq_resp, resp_size: usize,
                            cmd_flags: u32) -> c_int, on_panic = libc::EIO;
    {
        // SAFETY: the provider's arguments; no CQ memory of its own.
        unsafe { create_cq_ex_compat(context, cq_attr, ptr::null(), cq, cmd, cmd_size, resp, resp_size,
                                     cmd_flags, ptr::null_mut()) }
    }
}
rdma_util::symver!(compat ibv_cmd_create_cq_ex, "IBVERBS_PRIVATE_34", ibv_cmd_create_cq_ex);

rdma_util::export_versioned! {
    /// ibv_cmd_create_cq_ex@@IBVERBS_PRIVATE_65: as the 34 one, plus the CQ
    /// memory a provider may have allocated itself (`prov_attr`, needed when
    /// `cmd_flags` has CREATE_CQ_CMD_FLAGS_WITH_MEM_VA or _DMABUF).
    fn ibv_cmd_create_cq_ex_65(context: *mut ibv_context, cq_attr: *const ibv_cq_init_attr_ex,
                               prov_attr: *mut driver65::verbs_create_cq_prov_attr,
                               cq: *mut verbs_cq, cmd: *mut ibv_create_cq_ex, cmd_size: usize,
                               resp: *mut ib_uverbs_ex_create_cq_resp, resp_size: usize,
                               cmd_flags: u32) -> c_int, on_panic = libc::EIO;
    {
        // SAFETY: the provider's arguments.
        unsafe { create_cq_ex_compat(context, cq_attr, prov_attr, cq, cmd, cmd_size, resp, resp_size,
                                     cmd_flags, ptr::null_mut()) }
    }
}
rdma_util::symver!(default ibv_cmd_create_cq_ex, "IBVERBS_PRIVATE_65", ibv_cmd_create_cq_ex_65);

/// The body of every ibv_cmd_create_cq_ex*: the provider's write() buffers
/// as the compatibility buffer, its own attributes (`driver`) linked after.
///
/// # Safety
/// The provider's live context, attributes and CQ; `prov` NULL or valid;
/// `cmd`/`resp` NULL or valid for their sizes; `driver` NULL or a valid chain.
#[allow(clippy::too_many_arguments)]
unsafe fn create_cq_ex_compat(context: *mut ibv_context, cq_attr: *const ibv_cq_init_attr_ex,
                              prov: *const driver65::verbs_create_cq_prov_attr, cq: *mut verbs_cq,
                              cmd: *mut ibv_create_cq_ex, cmd_size: usize,
                              resp: *mut ib_uverbs_ex_create_cq_resp, resp_size: usize,
                              cmd_flags: u32, driver: *mut ibv_command_buffer) -> c_int {
    ensure!(!context.is_null() && !cq_attr.is_null() && !cq.is_null(), libc::EINVAL, libc::EINVAL);
    let mut cmd_space = CmdSpace::new();
    // SAFETY: the provider passes its command and response buffers (or
    // NULL) and its own command buffer chain (or NULL), live for the call.
    let cmdb = match unsafe { CmdBuf::compat_link_in(&mut cmd_space, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE,
                                                     driver, cmd, cmd_size, resp, resp_size) } {
        Ok(b) => b,
        Err(e) => return e,
    };
    // SAFETY: live context, attributes and CQ.
    unsafe { create_cq_ex_with(context, cq_attr, cq, cmdb.as_ptr(), cmd_flags, prov) }
}

rdma_util::export_versioned! {
    /// ibv_cmd_create_cq_ex2@IBVERBS_PRIVATE_34 (since rdma-core 53):
    /// ibv_cmd_create_cq_ex with the provider's own ioctl attributes in
    /// `driver` (NULL for none), linked after the core attributes and its
    /// `cmd`/`resp` data.
    fn ibv_cmd_create_cq_ex2(context: *mut ibv_context, cq_attr: *const ibv_cq_init_attr_ex,
                             cq: *mut verbs_cq, cmd: *mut ibv_create_cq_ex, cmd_size: usize,
                             resp: *mut ib_uverbs_ex_create_cq_resp, resp_size: usize,
                             cmd_flags: u32, driver: *mut ibv_command_buffer) -> c_int,
        on_panic = libc::EIO;
    {
        // SAFETY: the provider's arguments; no CQ memory of its own.
        unsafe { create_cq_ex_compat(context, cq_attr, ptr::null(), cq, cmd, cmd_size, resp, resp_size,
                                     cmd_flags, driver) }
    }
}
rdma_util::symver!(compat ibv_cmd_create_cq_ex2, "IBVERBS_PRIVATE_34", ibv_cmd_create_cq_ex2);

rdma_util::export_versioned! {
    /// ibv_cmd_create_cq_ex2@@IBVERBS_PRIVATE_65: the 34 one plus `prov_attr`,
    /// as in ibv_cmd_create_cq_ex@@IBVERBS_PRIVATE_65.
    fn ibv_cmd_create_cq_ex2_65(context: *mut ibv_context, cq_attr: *const ibv_cq_init_attr_ex,
                                prov_attr: *mut driver65::verbs_create_cq_prov_attr,
                                cq: *mut verbs_cq, cmd: *mut ibv_create_cq_ex, cmd_size: usize,
                                resp: *mut ib_uverbs_ex_create_cq_resp, resp_size: usize,
                                cmd_flags: u32, driver: *mut ibv_command_buffer) -> c_int,
        on_panic = libc::EIO;
    {
        // SAFETY: the provider's arguments.
        unsafe { create_cq_ex_compat(context, cq_attr, prov_attr, cq, cmd, cmd_size, resp, resp_size,
                                     cmd_flags, driver) }
    }
}
rdma_util::symver!(default ibv_cmd_create_cq_ex2, "IBVERBS_PRIVATE_65", ibv_cmd_create_cq_ex2_65);

rdma_util::export_versioned! {
    /// Resizes a CQ (write() command); sets `cq->cqe` to the new size.
    /// Returns 0 or an errno value.
    fn ibv_cmd_resize_cq(cq: *mut ibv_cq, cqe: c_int, cmd: *mut ibv_resize_cq, cmd_size: usize,
                         resp: *mut ib_uverbs_resize_cq_resp, resp_size: usize) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(!cq.is_null() && !cmd.is_null() && !resp.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live CQ and its buffers.
        unsafe {
            (*cmd).core_payload.cq_handle = (*cq).handle;
            (*cmd).core_payload.cqe = cqe as u32;
            let ret = execute_cmd_write((*cq).context, cmd, cmd_size, resp, resp_size);
            if ret != 0 {
                return ret;
            }
            (*cq).cqe = (*resp).cqe as c_int;
        }
        0
    }
}
private_abi_both!(ibv_cmd_resize_cq);

rdma_util::export_versioned! {
    /// Arms a CQ for a completion event (write() command). Returns 0 or an
    /// errno value.
    fn ibv_cmd_req_notify_cq(ibcq: *mut ibv_cq, solicited_only: c_int) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(!ibcq.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live CQ.
        unsafe {
            let mut req = ibv_req_notify_cq {
                hdr: Default::default(),
                core_payload: ib_uverbs_req_notify_cq {
                    cq_handle: (*ibcq).handle,
                    solicited_only: (solicited_only != 0) as u32,
                },
            };
            execute_cmd_write_req((*ibcq).context, &mut req, size_of::<ibv_req_notify_cq>())
        }
    }
}
private_abi_both!(ibv_cmd_req_notify_cq);

/// `ibv_cmd_destroy_cq`: destroys the CQ, then waits until the application
/// has acknowledged as many completion and async events as the kernel
/// reported for it (`ibv_ack_cq_events` / `ibv_ack_async_event` signal
/// `cq->cond`).
///
/// # Safety
/// `cq` is a live CQ of a live context.
pub(crate) unsafe fn destroy_cq(cq: *mut ibv_cq) -> c_int {
    // SAFETY (whole function): caller guarantee.
    unsafe {
        let ctx = (*cq).context;
        let mut cmd_space = CmdSpace::new();
        let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY, 2) {
            Ok(b) => b,
            Err(e) => return e,
        };
        let mut resp = ib_uverbs_destroy_cq_resp::default();
        cmdb.fill_out_ptr(UVERBS_ATTR_DESTROY_CQ_RESP, &mut resp);
        cmdb.fill_in_obj(UVERBS_ATTR_DESTROY_CQ_HANDLE, (*cq).handle);
        let mut ret = match execute_ioctl_fallback(ctx, cmd_bit!(destroy_cq), cmdb.as_ptr()) {
            Fallback::TryWrite => {
                let mut req = ibv_destroy_cq::default();
                req.core_payload.cq_handle = (*cq).handle;
                execute_cmd_write(
                    ctx,
                    &mut req,
                    size_of::<ibv_destroy_cq>(),
                    &mut resp,
                    size_of::<ib_uverbs_destroy_cq_resp>(),
                )
            }
            f => fallback_result(f),
        };
        if is_destroy_err(&mut ret) {
            return ret;
        }
        let mutex = addr_of_mut!((*cq).mutex);
        let cond = addr_of_mut!((*cq).cond);
        libc::pthread_mutex_lock(mutex);
        while ptr::read_volatile(addr_of_mut!((*cq).comp_events_completed))
            != resp.comp_events_reported
            || ptr::read_volatile(addr_of_mut!((*cq).async_events_completed))
                != resp.async_events_reported
        {
            libc::pthread_cond_wait(cond, mutex);
        }
        libc::pthread_mutex_unlock(mutex);
    }
    0
}

rdma_util::export_versioned! {
    /// Destroys a CQ and waits for the outstanding events to be
    /// acknowledged. Returns 0 or an errno value; EIO counts as success
    /// (without waiting) when disassociated destroy is allowed.
    fn ibv_cmd_destroy_cq(cq: *mut ibv_cq) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!cq.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live CQ.
        unsafe { destroy_cq(cq) }
    }
}
private_abi_both!(ibv_cmd_destroy_cq);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::kernel::*;
    use rdma_util::mem::zeroed_unchecked;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    #[repr(C)]
    #[derive(Default, Clone, Copy)]
    struct RxeCqResp {
        ibv_resp: ib_uverbs_create_cq_resp,
        mi: [u64; 2],
    }

    fn new_cq() -> Box<ibv_cq> {
        // SAFETY: plain C struct, valid when zero.
        let mut cq: Box<ibv_cq> = Box::new(unsafe { zeroed_unchecked() });
        // SAFETY: initialising the CQ's own mutex and condition variable.
        unsafe {
            libc::pthread_mutex_init(&mut cq.mutex, ptr::null());
            libc::pthread_cond_init(&mut cq.cond, ptr::null());
        }
        cq
    }

    #[test]
    fn create_cq_over_ioctl_like_rxe() {
        let mut t = TestCtx::new(14, false);
        let ctx = t.ctx();
        let mut cq = new_cq();
        let cq_addr = &*cq as *const ibv_cq as u64;
        let mut resp = RxeCqResp::default();
        // SAFETY: plain C struct.
        let mut chan: ibv_comp_channel = unsafe { zeroed_unchecked() };
        chan.fd = 77;
        let k = FakeKernel::new().on_ioctl(|c| {
            assert_eq!((c.object_id(), c.method_id()), (3, 0));
            c.set_data(0, 0x31);
            c.write_out_val(6, 128u32);
            c.write_out(0x1001, &cat(&[&le64(4096), &le64(0x8000)]));
            0
        });
        // SAFETY: live context, CQ, channel and buffers; no command (NULL) as rxe.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_create_cq(
                ctx,
                100,
                &mut chan,
                2,
                &mut *cq,
                ptr::null_mut(),
                0,
                &mut resp.ibv_resp,
                size_of::<RxeCqResp>(),
            )
        });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        assert_eq!(hdr.driver_id, 14);
        let resp_addr = &resp as *const RxeCqResp as u64;
        let a = attr_tuples(a);
        assert_eq!(a[0], (0, 0, 1, 0)); // HANDLE (out object)
        assert_eq!((a[1].0, a[1].1, a[1].2), (6, 4, 1)); // RESP_CQE
        assert_eq!(
            &a[2..],
            &[
                (1, 4, 1, 100),                  // CQE
                (2, 8, 1, cq_addr),              // USER_HANDLE
                (3, 0, 1, 77),                   // COMP_CHANNEL fd
                (4, 4, 1, 2),                    // COMP_VECTOR
                (7, 0, 0, TEST_ASYNC_FD as u64), // EVENT_FD, optional
                (0x1001, 16, 1, resp_addr + 8),  // the provider's response data
            ]
        );
        assert_eq!((cq.context, cq.handle, cq.cqe), (ctx, 0x31, 128));
        assert_eq!(resp.mi, [4096, 0x8000]);
    }

    #[test]
    fn create_cq_over_write_like_rxe() {
        let mut t = TestCtx::new(14, false);
        let ctx = t.ctx();
        let mut cq = new_cq();
        let cq_addr = &*cq as *const ibv_cq as u64;
        let mut resp = RxeCqResp::default();
        let k = FakeKernel::new().on_ioctl(|_| libc::ENOTTY).on_write(|w| {
            w.respond(&cat(&[&le32(5), &le32(255), &le64(1), &le64(2)]));
            0
        });
        // SAFETY: live context, CQ and buffers.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_create_cq(
                ctx,
                200,
                ptr::null_mut(),
                0,
                &mut *cq,
                ptr::null_mut(),
                0,
                &mut resp.ibv_resp,
                size_of::<RxeCqResp>(),
            )
        });
        assert_eq!(ret, 0);
        // CREATE_CQ (18): 40 bytes = 10 words in; 8 + 16 = 6 words out into
        // the provider's response; no channel = -1.
        let expected = cat(&[
            &le32(18),
            &le16(10),
            &le16(6),
            &le64(&resp as *const _ as u64),
            &le64(cq_addr),
            &le32(200),
            &le32(0),
            &le32(0xffff_ffff),
            &le32(0),
        ]);
        assert_eq!(sent[1].write_bytes(), &expected[..]);
        assert_eq!((cq.handle, cq.cqe, resp.mi), (5, 255, [1, 2]));
    }

    #[test]
    fn imported_context_never_falls_back() {
        let mut t = TestCtx::new(14, false);
        t.state().imported = true;
        let ctx = t.ctx();
        let mut cq = new_cq();
        let k = FakeKernel::new().on_ioctl(|c| {
            assert_eq!(
                c.attr(7).unwrap().flags,
                1,
                "event FD mandatory when imported"
            );
            libc::EPROTONOSUPPORT
        });
        // SAFETY: live context and CQ.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_create_cq(
                ctx,
                1,
                ptr::null_mut(),
                0,
                &mut *cq,
                ptr::null_mut(),
                0,
                ptr::null_mut(),
                0,
            )
        });
        assert_eq!((ret, sent.len()), (libc::EOPNOTSUPP, 1));
    }

    #[repr(C)]
    #[derive(Default, Clone, Copy)]
    struct RxeCqExResp {
        ibv_resp: ib_uverbs_ex_create_cq_resp,
        mi: [u64; 2],
    }

    #[test]
    fn create_cq_ex_flags_and_fallbacks() {
        let mut t = TestCtx::new(14, false);
        let ctx = t.ctx();
        // SAFETY: plain C structs.
        let (mut vcq, mut attr): (Box<verbs_cq>, ibv_cq_init_attr_ex) =
            unsafe { (Box::new(zeroed_unchecked()), zeroed_unchecked()) };
        attr.cqe = 64;
        attr.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP as u64;
        let mut resp = RxeCqExResp::default();

        // On ioctl kernels the flags travel as an attribute.
        let k = FakeKernel::new().on_ioctl(|c| {
            assert_eq!(c.attr(5).map(|a| (a.len, a.data)), Some((4, 1)));
            c.set_data(0, 3);
            0
        });
        // SAFETY: live context, CQ and buffers.
        let (ret, _) = with_kernel(k, || unsafe {
            ibv_cmd_create_cq_ex(
                ctx,
                &attr,
                &mut *vcq,
                ptr::null_mut(),
                0,
                &mut resp.ibv_resp,
                size_of::<RxeCqExResp>(),
                0,
            )
        });
        assert_eq!(ret, 0);
        // SAFETY: reading the CQ just filled.
        assert_eq!(unsafe { vcq.base.cq.handle }, 3);

        // Without ioctl support a timestamp needs the extended command...
        let respond = |w: &WriteCmdView<'_>| {
            w.respond(&cat(&[
                &le32(9),
                &le32(64),
                &le32(0),
                &le32(16),
                &le64(1),
                &le64(2),
            ]));
            0
        };
        let mut t = TestCtx::new(14, false);
        let ctx = t.ctx();
        let k = FakeKernel::new()
            .on_ioctl(|_| libc::EPROTONOSUPPORT)
            .on_write(respond);
        // SAFETY: as above.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_create_cq_ex(
                ctx,
                &attr,
                &mut *vcq,
                ptr::null_mut(),
                0,
                &mut resp.ibv_resp,
                size_of::<RxeCqExResp>(),
                0,
            )
        });
        assert_eq!(ret, 0);
        let b = sent[1].write_bytes();
        // Extended CREATE_CQ: 32-byte core = 4 words, 16-byte response = 2
        // words, no provider request data, 2 provider response words.
        assert_eq!(
            &b[..20],
            &cat(&[
                &le32(0x8000_0012),
                &le16(4),
                &le16(2),
                &le64(&resp as *const _ as u64),
                &le16(0),
                &le16(2)
            ])[..]
        );
        assert_eq!(&b[40..44], &le32(0xffff_ffff), "no channel");
        assert_eq!(&b[48..52], &le32(1), "flags = TIMESTAMP_COMPLETION");
        // SAFETY: reading the CQ just filled.
        assert_eq!(unsafe { (vcq.base.cq.handle, vcq.base.cq.cqe) }, (9, 64));
        assert_eq!(resp.mi, [1, 2]);

        // ...unless the provider says the kernel may ignore it.
        let mut t = TestCtx::new(14, false);
        let ctx = t.ctx();
        let k = FakeKernel::new()
            .on_ioctl(|_| libc::EPROTONOSUPPORT)
            .on_write(|_| 0);
        // SAFETY: as above.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_create_cq_ex(
                ctx,
                &attr,
                &mut *vcq,
                ptr::null_mut(),
                0,
                &mut resp.ibv_resp,
                size_of::<RxeCqExResp>(),
                CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX,
            )
        });
        assert_eq!(ret, 0);
        assert_eq!(&sent[1].write_bytes()[..4], &le32(18));

        // Unknown comp_mask bits.
        attr.comp_mask = 1 << 5;
        // SAFETY: as above.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe {
            ibv_cmd_create_cq_ex(
                ctx,
                &attr,
                &mut *vcq,
                ptr::null_mut(),
                0,
                &mut resp.ibv_resp,
                size_of::<RxeCqExResp>(),
                0,
            )
        });
        assert_eq!((ret, sent.len()), (libc::EOPNOTSUPP, 0));
    }

    #[test]
    fn create_cq_ex2_links_the_provider_attributes() {
        let mut t = TestCtx::new(14, false);
        let ctx = t.ctx();
        // SAFETY: plain C structs.
        let (mut vcq, mut attr): (Box<verbs_cq>, ibv_cq_init_attr_ex) =
            unsafe { (Box::new(zeroed_unchecked()), zeroed_unchecked()) };
        attr.cqe = 32;
        attr.comp_vector = 2;
        let mut resp = RxeCqExResp::default();
        let mut drv = CmdBuf::new(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE, 1).unwrap();
        drv.fill_in_u32(0x1000, 0x55);
        let k = FakeKernel::new().on_ioctl(|c| {
            c.set_data(0, 11);
            0
        });
        // SAFETY: live context, CQ, buffers and chain.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_create_cq_ex2(ctx, &attr, &mut *vcq, ptr::null_mut(), 0, &mut resp.ibv_resp,
                                  size_of::<RxeCqExResp>(), 0, drv.as_ptr())
        });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        // UVERBS_OBJECT_CQ (3), CQ_CREATE (0), the driver id in the header.
        assert_eq!((hdr.object_id, hdr.method_id, hdr.driver_id), (3, 0, 14));
        let a = attr_tuples(a);
        assert_eq!(a.iter().filter(|t| t.0 == 0x1000).collect::<Vec<_>>(), vec![&(0x1000, 4, 1, 0x55)]);
        assert!(a.contains(&(UVERBS_ATTR_CREATE_CQ_CQE, 4, 1, 32)), "cqe: {a:?}");
        // SAFETY: reading the CQ just filled.
        assert_eq!(unsafe { vcq.base.cq.handle }, 11);

        // Without a chain it is ibv_cmd_create_cq_ex: the same attributes.
        let k = FakeKernel::new().on_ioctl(|_| 0);
        // SAFETY: as above.
        let (ret2, sent2) = with_kernel(k, || unsafe {
            ibv_cmd_create_cq_ex2(ctx, &attr, &mut *vcq, ptr::null_mut(), 0, &mut resp.ibv_resp,
                                  size_of::<RxeCqExResp>(), 0, ptr::null_mut())
        });
        let k = FakeKernel::new().on_ioctl(|_| 0);
        // SAFETY: as above.
        let (ret1, sent1) = with_kernel(k, || unsafe {
            ibv_cmd_create_cq_ex(ctx, &attr, &mut *vcq, ptr::null_mut(), 0, &mut resp.ibv_resp,
                                 size_of::<RxeCqExResp>(), 0)
        });
        assert_eq!((ret1, ret2), (0, 0));
        let strip = |v: Vec<(u16, u16, u16, u64)>| v.into_iter().map(|t| (t.0, t.1)).collect::<Vec<_>>();
        assert_eq!(strip(attr_tuples(sent1[0].ioctl().1)), strip(attr_tuples(sent2[0].ioctl().1)));

        // Unknown comp_mask bits: EOPNOTSUPP before any syscall.
        attr.comp_mask = 1 << 5;
        // SAFETY: as above.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe {
            ibv_cmd_create_cq_ex2(ctx, &attr, &mut *vcq, ptr::null_mut(), 0, &mut resp.ibv_resp,
                                  size_of::<RxeCqExResp>(), 0, drv.as_ptr())
        });
        assert_eq!((ret, sent.len()), (libc::EOPNOTSUPP, 0));
    }

    #[test]
    fn create_cq_ex_65_sends_the_providers_cq_memory() {
        let mut t = TestCtx::new(14, false);
        let ctx = t.ctx();
        // SAFETY: plain C structs.
        let (mut vcq, mut attr): (Box<verbs_cq>, ibv_cq_init_attr_ex) =
            unsafe { (Box::new(zeroed_unchecked()), zeroed_unchecked()) };
        attr.cqe = 8;
        let attr = attr;
        let mut resp = RxeCqExResp::default();
        let mut mem = [0u8; 64];
        let va = driver65::verbs_create_cq_prov_attr {
            buffer: driver65::verbs_create_cq_prov_attr_buffer {
                length: 4096,
                mem: driver65::verbs_create_cq_prov_attr_buffer_mem { ptr: mem.as_mut_ptr() },
            },
        };
        let dmabuf = driver65::verbs_create_cq_prov_attr {
            buffer: driver65::verbs_create_cq_prov_attr_buffer {
                length: 8192,
                mem: driver65::verbs_create_cq_prov_attr_buffer_mem {
                    dmabuf: driver65::verbs_create_cq_prov_attr_buffer_mem_dmabuf { offset: 0x3000, fd: 7 },
                },
            },
        };
        let run = |prov: *const driver65::verbs_create_cq_prov_attr, flags: u32, vcq: &mut verbs_cq, resp: &mut RxeCqExResp| {
            let k = FakeKernel::new().on_ioctl(|_| 0);
            // SAFETY: live context, CQ, attributes and buffers.
            with_kernel(k, || unsafe {
                ibv_cmd_create_cq_ex2_65(ctx, &attr, prov.cast_mut(), vcq, ptr::null_mut(), 0, &mut resp.ibv_resp,
                                         size_of::<RxeCqExResp>(), flags, ptr::null_mut())
            })
        };
        // A user address: BUFFER_VA and BUFFER_LENGTH.
        let (ret, sent) = run(&va, driver65::CREATE_CQ_CMD_FLAGS_WITH_MEM_VA, &mut vcq, &mut resp);
        assert_eq!(ret, 0);
        let a = attr_tuples(sent[0].ioctl().1);
        assert!(a.contains(&(UVERBS_ATTR_CREATE_CQ_BUFFER_VA, 8, 1, mem.as_ptr() as u64)), "{a:?}");
        assert!(a.contains(&(UVERBS_ATTR_CREATE_CQ_BUFFER_LENGTH, 8, 1, 4096)), "{a:?}");
        assert!(!a.iter().any(|t| t.0 == UVERBS_ATTR_CREATE_CQ_BUFFER_FD), "{a:?}");
        // A dma-buf: BUFFER_FD, BUFFER_OFFSET and BUFFER_LENGTH.
        let (ret, sent) = run(&dmabuf, driver65::CREATE_CQ_CMD_FLAGS_WITH_MEM_DMABUF, &mut vcq, &mut resp);
        assert_eq!(ret, 0);
        let a = attr_tuples(sent[0].ioctl().1);
        assert!(a.iter().any(|t| t.0 == UVERBS_ATTR_CREATE_CQ_BUFFER_FD && t.3 == 7), "{a:?}");
        assert!(a.contains(&(UVERBS_ATTR_CREATE_CQ_BUFFER_OFFSET, 8, 1, 0x3000)), "{a:?}");
        assert!(a.contains(&(UVERBS_ATTR_CREATE_CQ_BUFFER_LENGTH, 8, 1, 8192)), "{a:?}");
        assert!(!a.iter().any(|t| t.0 == UVERBS_ATTR_CREATE_CQ_BUFFER_VA), "{a:?}");
        // Flags without the memory: EINVAL before any syscall.
        let (ret, sent) = run(ptr::null(), driver65::CREATE_CQ_CMD_FLAGS_WITH_MEM_VA, &mut vcq, &mut resp);
        assert_eq!((ret, sent.len()), (libc::EINVAL, 0));
        // No memory flag: none of the buffer attributes, prov_attr unread.
        let (ret, sent) = run(ptr::null(), 0, &mut vcq, &mut resp);
        assert_eq!(ret, 0);
        let a = attr_tuples(sent[0].ioctl().1);
        assert!(!a.iter().any(|t| (UVERBS_ATTR_CREATE_CQ_BUFFER_VA..=UVERBS_ATTR_CREATE_CQ_BUFFER_OFFSET).contains(&t.0)), "{a:?}");
    }

    #[test]
    fn resize_and_notify() {
        let mut t = TestCtx::new(1, true);
        let mut cq = new_cq();
        cq.context = t.ctx();
        cq.handle = 12;
        #[repr(C)]
        #[derive(Default)]
        struct Resp {
            ibv_resp: ib_uverbs_resize_cq_resp,
            mi: [u64; 2],
        }
        let mut cmd = ibv_resize_cq::default();
        let mut resp = Resp::default();
        let k = FakeKernel::new().on_ioctl(|c| {
            match c.attr(2).unwrap().data {
                19 => {
                    c.write_out(1, &cat(&[&le32(511), &le32(0)]));
                    c.write_out(0x1001, &le64(7));
                }
                23 => {}
                other => panic!("command {other}"),
            }
            0
        });
        // SAFETY: live CQ and buffers.
        let ((r1, r2), sent) = with_kernel(k, || unsafe {
            (
                ibv_cmd_resize_cq(
                    &mut *cq,
                    500,
                    &mut cmd,
                    size_of::<ibv_resize_cq>(),
                    &mut resp.ibv_resp,
                    size_of::<Resp>(),
                ),
                ibv_cmd_req_notify_cq(&mut *cq, 5),
            )
        });
        assert_eq!((r1, r2), (0, 0));
        assert_eq!((cq.cqe, resp.mi[0]), (511, 7));
        // RESIZE_CQ (19) core: response, handle, cqe.
        assert_eq!(
            sent[0].input(0).unwrap(),
            &cat(&[&le64(&resp as *const _ as u64), &le32(12), &le32(500)])[..]
        );
        // REQ_NOTIFY_CQ (23): handle, solicited_only normalised to 1.
        assert_eq!(sent[1].input(0).unwrap(), &cat(&[&le32(12), &le32(1)])[..]);
        let (_, a) = sent[1].ioctl();
        assert_eq!(a.len(), 2, "no response, no driver data");
    }

    struct SendPtr(*mut ibv_cq);
    // SAFETY: the test keeps the CQ alive and synchronises through its mutex.
    unsafe impl Send for SendPtr {}

    #[test]
    fn destroy_cq_waits_for_event_acks() {
        let mut t = TestCtx::new(1, false);
        let mut cq = new_cq();
        cq.context = t.ctx();
        cq.handle = 4;
        let cq_ptr = SendPtr(&mut *cq);
        let acked = Arc::new(AtomicBool::new(false));
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let acker = {
            let acked = acked.clone();
            std::thread::spawn(move || {
                let p = cq_ptr;
                rx.recv().unwrap();
                // What ibv_ack_cq_events / ibv_ack_async_event do.
                // SAFETY: the CQ outlives this thread (joined below).
                unsafe {
                    libc::pthread_mutex_lock(&mut (*p.0).mutex);
                    (*p.0).comp_events_completed = 2;
                    (*p.0).async_events_completed = 1;
                    acked.store(true, Ordering::SeqCst);
                    libc::pthread_cond_signal(&mut (*p.0).cond);
                    libc::pthread_mutex_unlock(&mut (*p.0).mutex);
                }
            })
        };
        let k = FakeKernel::new().on_ioctl(move |c| {
            assert_eq!((c.object_id(), c.method_id()), (3, 1));
            c.write_out_val(
                1,
                ib_uverbs_destroy_cq_resp {
                    comp_events_reported: 2,
                    async_events_reported: 1,
                },
            );
            tx.send(()).unwrap();
            0
        });
        // SAFETY: live CQ.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_destroy_cq(&mut *cq) });
        assert_eq!(ret, 0);
        assert!(acked.load(Ordering::SeqCst), "returned only after the acks");
        acker.join().unwrap();
        let (_, a) = sent[0].ioctl();
        assert_eq!((a[0].attr_id, a[0].len), (1, 8));
        assert_eq!(attr_tuples(&a[1..]), vec![(0, 0, 1, 4)]);
    }

    #[test]
    fn destroy_cq_write_and_disassociation() {
        let _g = disassoc_lock();
        let mut t = TestCtx::new(1, false);
        let mut cq = new_cq();
        cq.context = t.ctx();
        cq.handle = 4;
        let k = FakeKernel::new()
            .on_ioctl(|_| libc::EPROTONOSUPPORT)
            .on_write(|w| {
                w.respond(&cat(&[&le32(0), &le32(0)]));
                0
            });
        // SAFETY: live CQ.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_destroy_cq(&mut *cq) });
        assert_eq!(ret, 0);
        // DESTROY_CQ (20): 24 bytes = 6 words, 8 bytes = 2 words out.
        let b = sent[1].write_bytes();
        assert_eq!(&b[..8], &cat(&[&le32(20), &le16(6), &le16(2)])[..]);
        assert_eq!(&b[16..], &cat(&[&le32(4), &le32(0)])[..]);

        // A disassociated device: no answer, and no waiting for acks that
        // can never come.
        cq.comp_events_completed = 5;
        crate::cmd::set_allow_disassociate_destroy(true);
        // (The ioctl is known unsupported by now: write() answers.)
        let k = FakeKernel::new().on_write(|_| libc::EIO);
        // SAFETY: live CQ.
        let (ret, _) = with_kernel(k, || unsafe { ibv_cmd_destroy_cq(&mut *cq) });
        crate::cmd::set_allow_disassociate_destroy(false);
        assert_eq!(ret, 0);
        let k = FakeKernel::new().on_write(|_| libc::EIO);
        // SAFETY: live CQ.
        let (ret, _) = with_kernel(k, || unsafe { ibv_cmd_destroy_cq(&mut *cq) });
        assert_eq!(ret, libc::EIO);
    }
}
