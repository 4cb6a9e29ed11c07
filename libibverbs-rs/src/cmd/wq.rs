//! Work queues (upstream's `cmd_wq.c` and `ibv_cmd_modify_wq` in `cmd.c`).
//!
//! Creation and destruction try the ioctl first and fall back to the
//! extended write() commands; modification only exists as a write().

use core::mem::size_of;
use core::ptr::{self, addr_of_mut};
use libc::c_int;

use super::ioctl::{ibv_command_buffer, CmdBuf, CmdSpace};
use super::write::{
    execute_cmd_write_ex, execute_cmd_write_ex_req, execute_ioctl_fallback, execute_write_bufs_ex,
    fallback_result, Fallback,
};
use super::{cmd_state, is_destroy_err};
use crate::abi::kern::*;
use crate::abi::verbs::*;
use rdma_util::ffi::set_errno;
use crate::cmd::cmd_bit;
use rdma_util::ensure;

fn fail(e: c_int) -> c_int {
    set_errno(e);
    e
}

/// The shared body of `ibv_cmd_create_wq`: the WQ_CREATE ioctl, or the
/// extended CREATE_WQ write() with the provider data described by `link`.
///
/// # Safety
/// `context`, `init` and `wq` are live; `link` is NULL or a valid chain
/// whose buffers outlive the call.
unsafe fn create_wq(
    context: *mut ibv_context,
    init: *mut ibv_wq_init_attr,
    wq: *mut ibv_wq,
    link: *mut ibv_command_buffer,
) -> c_int {
    // SAFETY (whole function): caller guarantee; PD and CQ are checked
    // before use.
    unsafe {
        let Some(state) = cmd_state(context) else {
            return fail(libc::EINVAL);
        };
        (*wq).context = context;
        (*wq).cq = (*init).cq;
        (*wq).pd = (*init).pd;
        (*wq).wq_type = (*init).wq_type;
        if (*init).pd.is_null() || (*init).cq.is_null() {
            return fail(libc::EINVAL);
        }
        let pd_handle = (*(*init).pd).handle;
        let cq_handle = (*(*init).cq).handle;

        let mut cmd_space = CmdSpace::new();
        let mut cmdb = match CmdBuf::with_link_in(&mut cmd_space, UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_CREATE, 13, link) {
            Ok(b) => b,
            Err(e) => return e,
        };
        let mut max_wr = 0u32;
        let mut max_sge = 0u32;
        let mut wq_num = 0u32;
        let handle = cmdb.fill_out_obj(UVERBS_ATTR_CREATE_WQ_HANDLE);
        cmdb.fill_in_u64(UVERBS_ATTR_CREATE_WQ_USER_HANDLE, wq as usize as u64);
        cmdb.fill_in_obj(UVERBS_ATTR_CREATE_WQ_PD_HANDLE, pd_handle);
        cmdb.fill_in_obj(UVERBS_ATTR_CREATE_WQ_CQ_HANDLE, cq_handle);
        cmdb.fill_const_in(UVERBS_ATTR_CREATE_WQ_TYPE, (*init).wq_type as u64);
        cmdb.fill_in_u32(UVERBS_ATTR_CREATE_WQ_MAX_WR, (*init).max_wr);
        cmdb.fill_in_u32(UVERBS_ATTR_CREATE_WQ_MAX_SGE, (*init).max_sge);
        cmdb.fill_in_fd(UVERBS_ATTR_CREATE_WQ_EVENT_FD, (*context).async_fd);
        let mut create_flags = 0;
        if (*init).comp_mask & IBV_WQ_INIT_ATTR_FLAGS != 0 {
            if (*init).create_flags & !(IBV_WQ_FLAGS_RESERVED - 1) != 0 {
                return fail(libc::EOPNOTSUPP);
            }
            create_flags = (*init).create_flags;
        }
        cmdb.fill_in_u32(UVERBS_ATTR_CREATE_WQ_FLAGS, create_flags);
        cmdb.fill_out_ptr(UVERBS_ATTR_CREATE_WQ_RESP_MAX_WR, &mut max_wr);
        cmdb.fill_out_ptr(UVERBS_ATTR_CREATE_WQ_RESP_MAX_SGE, &mut max_sge);
        cmdb.fill_out_ptr(UVERBS_ATTR_CREATE_WQ_RESP_WQ_NUM, &mut wq_num);
        if state.imported {
            cmdb.require_ioctl();
        }
        cmdb.require_ex();

        match execute_ioctl_fallback(context, cmd_bit!(create_wq), cmdb.as_ptr()) {
            Fallback::Success => {}
            Fallback::TryWriteEx => {
                // As upstream, the write() command carries the create flags
                // whether or not the mask bit says they are valid.
                let core = ib_uverbs_ex_create_wq {
                    user_handle: wq as usize as u64,
                    pd_handle,
                    cq_handle,
                    max_wr: (*init).max_wr,
                    max_sge: (*init).max_sge,
                    wq_type: (*init).wq_type,
                    create_flags: (*init).create_flags,
                    ..Default::default()
                };
                let resp = match execute_write_bufs_ex::<ibv_create_wq>(context, link, core) {
                    Ok(r) => r,
                    Err(e) => return e,
                };
                (*wq).handle = resp.wq_handle;
                (*init).max_wr = resp.max_wr;
                (*init).max_sge = resp.max_sge;
                (*wq).wq_num = resp.wqn;
                return 0;
            }
            Fallback::Error(e) => return e,
            f => return fallback_result(f),
        }
        (*wq).handle = cmdb.read_obj(handle);
        (*wq).wq_num = wq_num;
        (*init).max_wr = max_wr;
        (*init).max_sge = max_sge;
    }
    0
}

rdma_util::export_versioned! {
    /// Creates a receive work queue (ioctl, or the extended write() on older
    /// kernels), with provider data after `cmd`/`resp` (either may be
    /// NULL). Fills the WQ's context, PD, CQ, type, handle and number, and
    /// the granted sizes back into `wq_init_attr`. Returns 0 or an errno
    /// value (errno set too).
    fn ibv_cmd_create_wq(context: *mut ibv_context, wq_init_attr: *mut ibv_wq_init_attr,
                         wq: *mut ibv_wq, cmd: *mut ibv_create_wq, cmd_size: usize,
                         resp: *mut ib_uverbs_ex_create_wq_resp, resp_size: usize) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(!context.is_null() && !wq_init_attr.is_null() && !wq.is_null(),
                libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes its live context, attributes, WQ and
        // (NULL or) buffers of the sizes it gives.
        unsafe {
            let mut cmd_space = CmdSpace::new();
            let compat = match CmdBuf::compat_in(&mut cmd_space, UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_CREATE, cmd,
                                              cmd_size, resp, resp_size) {
                Ok(b) => b,
                Err(e) => return e,
            };
            if (*wq_init_attr).comp_mask >= IBV_WQ_INIT_ATTR_RESERVED {
                return fail(libc::EINVAL);
            }
            create_wq(context, wq_init_attr, wq, compat.as_ptr())
        }
    }
}
private_abi_both!(ibv_cmd_create_wq);

rdma_util::export_versioned! {
    /// Changes a WQ's state and flags (extended write() command, provider
    /// data after `cmd`). Unknown attribute bits give EINVAL, unknown flags
    /// EOPNOTSUPP. Records the new state in `wq` when it was changed.
    /// Returns 0 or an errno value.
    fn ibv_cmd_modify_wq(wq: *mut ibv_wq, attr: *mut ibv_wq_attr, cmd: *mut ibv_modify_wq,
                         cmd_size: usize) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!wq.is_null() && !attr.is_null() && !cmd.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live WQ, attributes and a command of
        // cmd_size bytes.
        unsafe {
            let mask = (*attr).attr_mask;
            if mask >= IBV_WQ_ATTR_RESERVED {
                return libc::EINVAL;
            }
            // Header and core struct start out zeroed; the provider's data
            // behind them is left alone.
            ptr::write_bytes(cmd.cast::<u8>(), 0, size_of::<ibv_modify_wq>());
            let c = addr_of_mut!((*cmd).core_payload);
            (*c).curr_wq_state = (*attr).curr_wq_state;
            (*c).wq_state = (*attr).wq_state;
            if mask & IBV_WQ_ATTR_FLAGS != 0 {
                if (*attr).flags_mask & !(IBV_WQ_FLAGS_RESERVED - 1) != 0 {
                    return libc::EOPNOTSUPP;
                }
                (*c).flags = (*attr).flags;
                (*c).flags_mask = (*attr).flags_mask;
            }
            (*c).wq_handle = (*wq).handle;
            (*c).attr_mask = mask;
            let ret = execute_cmd_write_ex_req((*wq).context, cmd, cmd_size);
            if ret != 0 {
                return ret;
            }
            if mask & IBV_WQ_ATTR_STATE != 0 {
                (*wq).state = (*attr).wq_state;
            }
        }
        0
    }
}
private_abi_both!(ibv_cmd_modify_wq);

/// `ibv_cmd_destroy_wq`: destroys the WQ, then waits until the application
/// has acknowledged as many async events as the kernel reported for it.
///
/// # Safety
/// `wq` is a live WQ of a live context, with initialised mutex and
/// condition variable.
pub(crate) unsafe fn destroy_wq(wq: *mut ibv_wq) -> c_int {
    // SAFETY (whole function): caller guarantee.
    unsafe {
        let ctx = (*wq).context;
        let handle = (*wq).handle;
        let mut cmd_space = CmdSpace::new();
        let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_DESTROY, 2) {
            Ok(b) => b,
            Err(e) => return e,
        };
        let mut resp = ib_uverbs_ex_destroy_wq_resp::default();
        cmdb.fill_out_ptr(UVERBS_ATTR_DESTROY_WQ_RESP, addr_of_mut!(resp.events_reported));
        cmdb.fill_in_obj(UVERBS_ATTR_DESTROY_WQ_HANDLE, handle);
        let mut ret = match execute_ioctl_fallback(ctx, cmd_bit!(destroy_wq), cmdb.as_ptr()) {
            Fallback::TryWrite => {
                let mut req = ibv_destroy_wq::default();
                req.core_payload.wq_handle = handle;
                execute_cmd_write_ex(
                    ctx,
                    &mut req,
                    size_of::<ibv_destroy_wq>(),
                    &mut resp,
                    size_of::<ib_uverbs_ex_destroy_wq_resp>(),
                )
            }
            f => fallback_result(f),
        };
        if is_destroy_err(&mut ret) {
            return ret;
        }
        let mutex = addr_of_mut!((*wq).mutex);
        let cond = addr_of_mut!((*wq).cond);
        libc::pthread_mutex_lock(mutex);
        while ptr::read_volatile(addr_of_mut!((*wq).events_completed)) != resp.events_reported {
            libc::pthread_cond_wait(cond, mutex);
        }
        libc::pthread_mutex_unlock(mutex);
    }
    0
}

rdma_util::export_versioned! {
    /// Destroys a WQ and waits for its outstanding async events to be
    /// acknowledged. Returns 0 or an errno value; EIO counts as success
    /// (without waiting) when disassociated destroy is allowed.
    fn ibv_cmd_destroy_wq(wq: *mut ibv_wq) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!wq.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live WQ.
        unsafe { destroy_wq(wq) }
    }
}
private_abi_both!(ibv_cmd_destroy_wq);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::kernel::*;
    use rdma_util::mem::zeroed_unchecked;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    fn new_wq() -> Box<ibv_wq> {
        // SAFETY: plain C struct, valid when zero.
        let mut wq: Box<ibv_wq> = Box::new(unsafe { zeroed_unchecked() });
        // SAFETY: initialising the WQ's own mutex and condition variable.
        unsafe {
            libc::pthread_mutex_init(&mut wq.mutex, ptr::null());
            libc::pthread_cond_init(&mut wq.cond, ptr::null());
        }
        wq
    }

    struct Objs {
        pd: Box<ibv_pd>,
        cq: Box<ibv_cq>,
    }

    fn objs() -> Objs {
        // SAFETY: plain C structs.
        let (mut pd, mut cq): (Box<ibv_pd>, Box<ibv_cq>) =
            unsafe { (Box::new(zeroed_unchecked()), Box::new(zeroed_unchecked())) };
        pd.handle = 0x11;
        cq.handle = 0x22;
        Objs { pd, cq }
    }

    fn init_attr(o: &mut Objs) -> ibv_wq_init_attr {
        ibv_wq_init_attr {
            wq_context: ptr::null_mut(),
            wq_type: IBV_WQT_RQ,
            max_wr: 64,
            max_sge: 2,
            pd: &mut *o.pd,
            cq: &mut *o.cq,
            comp_mask: IBV_WQ_INIT_ATTR_FLAGS,
            create_flags: IBV_WQ_FLAGS_CVLAN_STRIPPING,
        }
    }

    #[repr(C)]
    #[derive(Default)]
    struct DrvCreateWq {
        ibv_cmd: ibv_create_wq,
        drv: [u64; 2],
    }

    #[repr(C)]
    #[derive(Default)]
    struct DrvCreateWqResp {
        ibv_resp: ib_uverbs_ex_create_wq_resp,
        drv: u64,
    }

    #[test]
    fn create_wq_over_ioctl() {
        let mut t = TestCtx::new(1, false);
        let ctx = t.ctx();
        let mut o = objs();
        let mut init = init_attr(&mut o);
        let mut wq = new_wq();
        let wq_addr = &*wq as *const ibv_wq as u64;
        let mut cmd = DrvCreateWq { drv: [0xa, 0xb], ..Default::default() };
        let mut resp = DrvCreateWqResp::default();
        let k = FakeKernel::new().on_ioctl(|c| {
            c.set_data(0, 0x55);
            c.write_out_val(9, 128u32);
            c.write_out_val(10, 4u32);
            c.write_out_val(11, 0x9876u32);
            c.write_out(0x1001, &le64(0xfeed));
            0
        });
        // SAFETY: live context, attributes, WQ and buffers.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_create_wq(ctx, &mut init, &mut *wq, &mut cmd.ibv_cmd, size_of::<DrvCreateWq>(),
                              &mut resp.ibv_resp, size_of::<DrvCreateWqResp>())
        });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        // UVERBS_OBJECT_WQ (12), CREATE (0).
        assert_eq!((hdr.object_id, hdr.method_id, hdr.num_attrs), (12, 0, 14));
        let a = attr_tuples(a);
        assert_eq!(&a[..8], &[
            (0, 0, 1, 0),                      // HANDLE
            (3, 8, 1, wq_addr),                // USER_HANDLE
            (1, 0, 1, 0x11),                   // PD
            (2, 0, 1, 0x22),                   // CQ
            (4, 8, 1, IBV_WQT_RQ as u64),      // TYPE
            (6, 4, 1, 64),                     // MAX_WR
            (7, 4, 1, 2),                      // MAX_SGE
            (5, 0, 1, TEST_ASYNC_FD as u64),   // EVENT_FD, mandatory
        ]);
        assert_eq!(a[8], (8, 4, 1, IBV_WQ_FLAGS_CVLAN_STRIPPING as u64));
        assert_eq!(a[9..12].iter().map(|x| (x.0, x.1)).collect::<Vec<_>>(), vec![(9, 4), (10, 4), (11, 4)]);
        // The provider's data: 16 bytes in (inlined? no, by pointer), 8 out.
        assert_eq!(a[12], (0x1000, 16, 1, cmd.drv.as_ptr() as u64));
        assert_eq!(a[13], (0x1001, 8, 1, &resp.drv as *const u64 as u64));
        assert_eq!((wq.context, wq.pd, wq.cq, wq.wq_type), (ctx, &mut *o.pd as *mut ibv_pd, &mut *o.cq as *mut ibv_cq, IBV_WQT_RQ));
        assert_eq!((wq.handle, wq.wq_num, init.max_wr, init.max_sge), (0x55, 0x9876, 128, 4));
        assert_eq!(resp.drv, 0xfeed);
    }

    #[test]
    fn create_wq_falls_back_to_extended_write_in_place() {
        let mut t = TestCtx::new(1, false);
        let ctx = t.ctx();
        let mut o = objs();
        let mut init = init_attr(&mut o);
        // Without the FLAGS mask bit the ioctl sends 0, but the write()
        // command carries create_flags as they are (upstream's behaviour).
        init.comp_mask = 0;
        let mut wq = new_wq();
        let wq_addr = &*wq as *const ibv_wq as u64;
        let mut cmd = DrvCreateWq { drv: [0xa, 0xb], ..Default::default() };
        let mut resp = DrvCreateWqResp::default();
        let k = FakeKernel::new().on_ioctl(|c| {
            assert_eq!(c.attr(8).map(|a| a.data), Some(0));
            libc::EPROTONOSUPPORT
        }).on_write(|w| {
            w.respond(&cat(&[&le32(0), &le32(24), &le32(0x66), &le32(32), &le32(1), &le32(0x777), &le64(0xbeef)]));
            0
        });
        // SAFETY: live context, attributes, WQ and buffers.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_create_wq(ctx, &mut init, &mut *wq, &mut cmd.ibv_cmd, size_of::<DrvCreateWq>(),
                              &mut resp.ibv_resp, size_of::<DrvCreateWqResp>())
        });
        assert_eq!(ret, 0);
        // Extended CREATE_WQ (0x80000034): 40-byte core = 5 words, 24-byte
        // response = 3 words, 2 provider words in, 1 out.
        let expected = cat(&[
            &le32(0x8000_0034), &le16(5), &le16(3),
            &le64(&resp as *const _ as u64), &le16(2), &le16(1), &le32(0),
            &le32(0), &le32(IBV_WQT_RQ), &le64(wq_addr), &le32(0x11), &le32(0x22),
            &le32(64), &le32(2), &le32(IBV_WQ_FLAGS_CVLAN_STRIPPING), &le32(0),
            &le64(0xa), &le64(0xb),
        ]);
        assert_eq!(sent[1].write_bytes(), &expected[..]);
        assert_eq!((wq.handle, wq.wq_num, init.max_wr, init.max_sge), (0x66, 0x777, 32, 1));
        assert_eq!(resp.drv, 0xbeef);
        assert!(t.state().ioctl_unsupported(cmd_bit!(create_wq)));
    }

    #[test]
    fn create_wq_errors() {
        let mut t = TestCtx::new(1, false);
        let ctx = t.ctx();
        let mut o = objs();
        let mut wq = new_wq();
        let mut call = |init: &mut ibv_wq_init_attr, k: FakeKernel| {
            // SAFETY: live context, attributes and WQ; no provider buffers.
            with_kernel(k, || unsafe {
                ibv_cmd_create_wq(ctx, init, &mut *wq, ptr::null_mut(), 0, ptr::null_mut(), 0)
            })
        };
        let mut init = init_attr(&mut o);
        init.comp_mask = IBV_WQ_INIT_ATTR_RESERVED;
        rdma_util::ffi::set_errno(0);
        let (ret, sent) = call(&mut init, FakeKernel::new());
        assert_eq!((ret, rdma_util::ffi::errno(), sent.len()), (libc::EINVAL, libc::EINVAL, 0));

        let mut init = init_attr(&mut o);
        init.create_flags = IBV_WQ_FLAGS_RESERVED;
        let (ret, sent) = call(&mut init, FakeKernel::new());
        assert_eq!((ret, rdma_util::ffi::errno(), sent.len()), (libc::EOPNOTSUPP, libc::EOPNOTSUPP, 0));

        // Other ioctl failures are final.
        let mut init = init_attr(&mut o);
        let (ret, sent) = call(&mut init, FakeKernel::new().on_ioctl(|_| libc::EINVAL));
        assert_eq!((ret, sent.len()), (libc::EINVAL, 1));

        // A failing write() is reported as such.
        let k = FakeKernel::new().on_ioctl(|_| libc::ENOTTY).on_write(|_| libc::ENOMEM);
        let (ret, sent) = call(&mut init, k);
        assert_eq!((ret, sent.len()), (libc::ENOMEM, 2));
    }

    #[test]
    fn imported_context_has_no_write_fallback() {
        let mut t = TestCtx::new(1, false);
        t.state().imported = true;
        let ctx = t.ctx();
        let mut o = objs();
        let mut init = init_attr(&mut o);
        let mut wq = new_wq();
        let k = FakeKernel::new().on_ioctl(|_| libc::EPROTONOSUPPORT);
        // SAFETY: live context, attributes and WQ.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_create_wq(ctx, &mut init, &mut *wq, ptr::null_mut(), 0, ptr::null_mut(), 0)
        });
        assert_eq!((ret, sent.len()), (libc::EOPNOTSUPP, 1));
    }

    #[repr(C)]
    #[derive(Default)]
    struct DrvModifyWq {
        ibv_cmd: ibv_modify_wq,
        drv: u64,
    }

    #[test]
    fn modify_wq() {
        let mut t = TestCtx::new(1, false);
        let mut wq = new_wq();
        wq.context = t.ctx();
        wq.handle = 0x19;
        wq.state = IBV_WQS_RESET;
        let mut attr = ibv_wq_attr {
            attr_mask: IBV_WQ_ATTR_STATE | IBV_WQ_ATTR_CURR_STATE | IBV_WQ_ATTR_FLAGS,
            wq_state: IBV_WQS_RDY,
            curr_wq_state: IBV_WQS_RESET,
            flags: 1,
            flags_mask: 1,
        };
        let mut cmd = DrvModifyWq { drv: 0x99, ..Default::default() };
        cmd.ibv_cmd.hdr.ex_hdr.response = 0xdead; // stale bytes get cleared
        // SAFETY: live WQ, attributes and command.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe {
            ibv_cmd_modify_wq(&mut *wq, &mut attr, &mut cmd.ibv_cmd, size_of::<DrvModifyWq>())
        });
        assert_eq!(ret, 0);
        // Extended MODIFY_WQ (0x80000035): 24-byte core = 3 words, no
        // response, 1 provider word.
        let expected = cat(&[
            &le32(0x8000_0035), &le16(3), &le16(0), &le64(0), &le16(1), &le16(0), &le32(0),
            &le32(7), &le32(0x19), &le32(IBV_WQS_RDY), &le32(IBV_WQS_RESET), &le32(1), &le32(1),
            &le64(0x99),
        ]);
        assert_eq!(sent[0].write_bytes(), &expected[..]);
        assert_eq!(wq.state, IBV_WQS_RDY);

        // Failure leaves the state alone.
        wq.state = IBV_WQS_RESET;
        let k = FakeKernel::new().on_write(|_| libc::EINVAL);
        // SAFETY: as above.
        let (ret, _) = with_kernel(k, || unsafe {
            ibv_cmd_modify_wq(&mut *wq, &mut attr, &mut cmd.ibv_cmd, size_of::<DrvModifyWq>())
        });
        assert_eq!((ret, wq.state), (libc::EINVAL, IBV_WQS_RESET));

        attr.flags_mask = IBV_WQ_FLAGS_RESERVED;
        // SAFETY: as above.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe {
            ibv_cmd_modify_wq(&mut *wq, &mut attr, &mut cmd.ibv_cmd, size_of::<DrvModifyWq>())
        });
        assert_eq!((ret, sent.len()), (libc::EOPNOTSUPP, 0));
        attr.attr_mask = IBV_WQ_ATTR_RESERVED;
        // SAFETY: as above.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe {
            ibv_cmd_modify_wq(&mut *wq, &mut attr, &mut cmd.ibv_cmd, size_of::<DrvModifyWq>())
        });
        assert_eq!((ret, sent.len()), (libc::EINVAL, 0));
    }

    #[test]
    fn destroy_wq_ioctl_and_write() {
        let mut t = TestCtx::new(1, false);
        let mut wq = new_wq();
        wq.context = t.ctx();
        wq.handle = 0x2a;
        wq.events_completed = 2;
        let k = FakeKernel::new().on_ioctl(|c| {
            c.write_out_val(1, 2u32);
            0
        });
        // SAFETY: live WQ.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_destroy_wq(&mut *wq) });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        assert_eq!((hdr.object_id, hdr.method_id), (12, 1));
        assert_eq!((a[0].attr_id, a[0].len), (1, 4));
        assert_eq!((a[1].attr_id, a[1].data), (0, 0x2a));

        let k = FakeKernel::new().on_ioctl(|_| libc::ENOTTY).on_write(|w| {
            w.respond(&cat(&[&le32(0), &le32(16), &le32(2), &le32(0)]));
            0
        });
        // SAFETY: live WQ.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_destroy_wq(&mut *wq) });
        assert_eq!(ret, 0);
        // Extended DESTROY_WQ (0x80000036): 8-byte core = 1 word, 16-byte
        // response = 2 words.
        let b = sent[1].write_bytes();
        assert_eq!(&b[..8], &cat(&[&le32(0x8000_0036), &le16(1), &le16(2)])[..]);
        assert_eq!(&b[16..], &cat(&[&le16(0), &le16(0), &le32(0), &le32(0), &le32(0x2a)])[..]);
    }

    #[test]
    fn destroy_wq_waits_for_acknowledged_events() {
        let mut t = TestCtx::new(1, false);
        let mut wq = new_wq();
        wq.context = t.ctx();
        let wq_ptr = &mut *wq as *mut ibv_wq as usize;
        let acked = Arc::new(AtomicBool::new(false));
        let acked2 = acked.clone();
        let k = FakeKernel::new().on_ioctl(move |c| {
            c.write_out_val(1, 1u32);
            // Another thread acknowledges the one event later, the way
            // ibv_ack_async_event does.
            let acked = acked2.clone();
            std::thread::spawn(move || {
                let wq = wq_ptr as *mut ibv_wq;
                std::thread::sleep(std::time::Duration::from_millis(20));
                // SAFETY: the WQ outlives the destroy call, which waits
                // for this very update.
                unsafe {
                    libc::pthread_mutex_lock(addr_of_mut!((*wq).mutex));
                    acked.store(true, Ordering::SeqCst);
                    (*wq).events_completed = 1;
                    libc::pthread_cond_signal(addr_of_mut!((*wq).cond));
                    libc::pthread_mutex_unlock(addr_of_mut!((*wq).mutex));
                }
            });
            0
        });
        // SAFETY: live WQ.
        let (ret, _) = with_kernel(k, || unsafe { ibv_cmd_destroy_wq(wq_ptr as *mut ibv_wq) });
        assert_eq!(ret, 0);
        assert!(acked.load(Ordering::SeqCst), "returned before the event was acknowledged");
    }

    #[test]
    fn destroy_wq_disassociated_does_not_wait() {
        let _g = disassoc_lock();
        let mut t = TestCtx::new(1, false);
        let mut wq = new_wq();
        wq.context = t.ctx();
        wq.events_completed = 5; // would never match: must not wait
        crate::cmd::set_allow_disassociate_destroy(true);
        let k = FakeKernel::new().on_ioctl(|_| libc::EIO);
        // SAFETY: live WQ.
        let (ret, _) = with_kernel(k, || unsafe { ibv_cmd_destroy_wq(&mut *wq) });
        crate::cmd::set_allow_disassociate_destroy(false);
        assert_eq!(ret, 0);
        let k = FakeKernel::new().on_ioctl(|_| libc::EBUSY);
        // SAFETY: live WQ.
        let (ret, _) = with_kernel(k, || unsafe { ibv_cmd_destroy_wq(&mut *wq) });
        assert_eq!(ret, libc::EBUSY);
    }
}
