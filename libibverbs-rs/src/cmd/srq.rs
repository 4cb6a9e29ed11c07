//! Shared receive queues (upstream's `cmd_srq.c` and the SRQ helpers of
//! `cmd.c`).

use core::mem::size_of;
use core::ptr::{self, addr_of_mut};
use libc::c_int;

use super::device::unhandled_fallback;
use super::ioctl::{ibv_command_buffer, CmdBuf, CmdSpace};
use super::write::{
    execute_cmd_write, execute_cmd_write_req, execute_ioctl_fallback, execute_write_bufs,
    fallback_result, Fallback,
};
use super::{abi_ver, cmd_state, is_destroy_err};
use crate::abi::driver::*;
use crate::abi::kern::*;
use crate::abi::verbs::*;
use rdma_util::ffi::set_errno;
use crate::cmd::cmd_bit;
use rdma_util::ensure;

fn einval() -> c_int {
    set_errno(libc::EINVAL);
    libc::EINVAL
}

/// Records the SRQ type and, for XRC, its number and domain; the CQ if
/// given (upstream's `set_vsrq`).
unsafe fn set_vsrq(vsrq: *mut verbs_srq, a: &ibv_srq_init_attr_ex, srq_num: u32) {
    if vsrq.is_null() {
        return;
    }
    // SAFETY: vsrq is the provider's live wrapper.
    unsafe {
        (*vsrq).srq_type = if a.comp_mask & IBV_SRQ_INIT_ATTR_TYPE != 0 {
            a.srq_type
        } else {
            IBV_SRQT_BASIC
        };
        if (*vsrq).srq_type == IBV_SRQT_XRC {
            (*vsrq).srq_num = srq_num;
            // `xrcd` is the first member of verbs_xrcd.
            (*vsrq).xrcd = a.xrcd.cast();
        }
        if a.comp_mask & IBV_SRQ_INIT_ATTR_CQ != 0 {
            (*vsrq).cq = a.cq;
        }
    }
}

/// The shared body of `ibv_cmd_create_srq(_ex)`: SRQ_CREATE ioctl, or the
/// CREATE_SRQ / CREATE_XSRQ write() command (the uverbs ABI 5 form of
/// CREATE_SRQ on such kernels).
unsafe fn icmd_create_srq(
    pd: *mut ibv_pd,
    vsrq: *mut verbs_srq,
    srq_in: *mut ibv_srq,
    attr_ex: *mut ibv_srq_init_attr_ex,
    link: *mut ibv_command_buffer,
) -> c_int {
    // SAFETY (whole function): pd, attr_ex and the SRQ are live; the
    // objects attr_ex refers to (xrcd, cq) are live when their comp_mask
    // bits say so; link is the compatibility buffer.
    unsafe {
        let ctx = (*pd).context;
        let Some(state) = cmd_state(ctx) else {
            return einval();
        };
        let mut cmd_space = CmdSpace::new();
        let mut cmdb =
            match CmdBuf::with_link_in(&mut cmd_space, UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_CREATE, 13, link) {
                Ok(b) => b,
                Err(e) => return e,
            };
        let srq = if vsrq.is_null() {
            srq_in
        } else {
            addr_of_mut!((*vsrq).srq)
        };
        let a = &mut *attr_ex;
        let (mut max_wr, mut max_sge, mut srq_num) = (0u32, 0u32, 0u32);
        let mut vxrcd: *mut verbs_xrcd = ptr::null_mut();

        (*srq).context = ctx;
        libc::pthread_mutex_init(addr_of_mut!((*srq).mutex), ptr::null());
        libc::pthread_cond_init(addr_of_mut!((*srq).cond), ptr::null());

        let srq_type = if a.comp_mask & IBV_SRQ_INIT_ATTR_TYPE != 0 {
            a.srq_type
        } else {
            IBV_SRQT_BASIC
        };
        match srq_type {
            IBV_SRQT_XRC => {
                if a.comp_mask & IBV_SRQ_INIT_ATTR_XRCD == 0
                    || a.comp_mask & IBV_SRQ_INIT_ATTR_CQ == 0
                    || a.xrcd.is_null()
                    || a.cq.is_null()
                {
                    return einval();
                }
                vxrcd = a.xrcd.cast();
                cmdb.fill_in_obj(UVERBS_ATTR_CREATE_SRQ_XRCD_HANDLE, (*vxrcd).handle);
                cmdb.fill_in_obj(UVERBS_ATTR_CREATE_SRQ_CQ_HANDLE, (*a.cq).handle);
                cmdb.fill_out_ptr(UVERBS_ATTR_CREATE_SRQ_RESP_SRQ_NUM, &mut srq_num);
            }
            IBV_SRQT_TM => {
                if a.comp_mask & IBV_SRQ_INIT_ATTR_CQ == 0
                    || a.comp_mask & IBV_SRQ_INIT_ATTR_TM == 0
                    || a.tm_cap.max_num_tags == 0
                    || a.cq.is_null()
                {
                    return einval();
                }
                cmdb.fill_in_obj(UVERBS_ATTR_CREATE_SRQ_CQ_HANDLE, (*a.cq).handle);
                cmdb.fill_in_u32(UVERBS_ATTR_CREATE_SRQ_MAX_NUM_TAGS, a.tm_cap.max_num_tags);
            }
            _ => {}
        }

        let handle = cmdb.fill_out_obj(UVERBS_ATTR_CREATE_SRQ_HANDLE);
        cmdb.fill_const_in(UVERBS_ATTR_CREATE_SRQ_TYPE, srq_type as u64);
        cmdb.fill_in_u64(UVERBS_ATTR_CREATE_SRQ_USER_HANDLE, srq as usize as u64);
        cmdb.fill_in_obj(UVERBS_ATTR_CREATE_SRQ_PD_HANDLE, (*pd).handle);
        cmdb.fill_in_u32(UVERBS_ATTR_CREATE_SRQ_MAX_WR, a.attr.max_wr);
        cmdb.fill_in_u32(UVERBS_ATTR_CREATE_SRQ_MAX_SGE, a.attr.max_sge);
        cmdb.fill_in_u32(UVERBS_ATTR_CREATE_SRQ_LIMIT, a.attr.srq_limit);
        cmdb.fill_in_fd(UVERBS_ATTR_CREATE_SRQ_EVENT_FD, (*ctx).async_fd);
        cmdb.fill_out_ptr(UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR, &mut max_wr);
        cmdb.fill_out_ptr(UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE, &mut max_sge);
        if state.imported {
            cmdb.require_ioctl();
        }

        match execute_ioctl_fallback(ctx, cmd_bit!(create_srq), cmdb.as_ptr()) {
            Fallback::TryWrite => {
                let core = ib_uverbs_create_srq {
                    pd_handle: (*pd).handle,
                    user_handle: srq as usize as u64,
                    max_wr: a.attr.max_wr,
                    max_sge: a.attr.max_sge,
                    srq_limit: a.attr.srq_limit,
                    ..Default::default()
                };
                // As upstream, the write() form follows the caller's
                // srq_type field itself.
                if a.srq_type == IBV_SRQT_BASIC && abi_ver() > 5 {
                    match execute_write_bufs::<ibv_create_srq>(ctx, link, core) {
                        Ok(resp) => {
                            (*srq).handle = resp.srq_handle;
                            a.attr.max_wr = resp.max_wr;
                            a.attr.max_sge = resp.max_sge;
                        }
                        Err(e) => return e,
                    }
                } else if a.srq_type == IBV_SRQT_BASIC {
                    match execute_write_bufs::<ibv_create_srq_v5>(ctx, link, core) {
                        Ok(resp) => (*srq).handle = resp.srq_handle,
                        Err(e) => return e,
                    }
                } else {
                    if a.cq.is_null() {
                        return einval();
                    }
                    let mut x = ib_uverbs_create_xsrq {
                        pd_handle: (*pd).handle,
                        user_handle: srq as usize as u64,
                        max_wr: a.attr.max_wr,
                        max_sge: a.attr.max_sge,
                        srq_limit: a.attr.srq_limit,
                        srq_type: a.srq_type,
                        cq_handle: (*a.cq).handle,
                        ..Default::default()
                    };
                    if a.srq_type == IBV_SRQT_TM {
                        x.max_num_tags = a.tm_cap.max_num_tags;
                    } else {
                        if vxrcd.is_null() {
                            return einval();
                        }
                        x.xrcd_handle = (*vxrcd).handle;
                    }
                    match execute_write_bufs::<ibv_create_xsrq>(ctx, link, x) {
                        Ok(resp) => {
                            (*srq).handle = resp.srq_handle;
                            a.attr.max_wr = resp.max_wr;
                            a.attr.max_sge = resp.max_sge;
                            set_vsrq(vsrq, a, resp.srqn);
                        }
                        Err(e) => return e,
                    }
                }
                return 0;
            }
            Fallback::Success => {}
            Fallback::Error(e) => return e,
            Fallback::TryWriteEx => return unhandled_fallback(),
        }
        (*srq).handle = cmdb.read_obj(handle);
        a.attr.max_wr = max_wr;
        a.attr.max_sge = max_sge;
        set_vsrq(vsrq, a, srq_num);
    }
    0
}

rdma_util::export_versioned! {
    /// Creates a basic SRQ; on success `attr->attr` holds the actual
    /// max_wr/max_sge. Returns 0 or an errno value.
    fn ibv_cmd_create_srq(pd: *mut ibv_pd, srq: *mut ibv_srq, attr: *mut ibv_srq_init_attr,
                          cmd: *mut ibv_create_srq, cmd_size: usize,
                          resp: *mut ib_uverbs_create_srq_resp, resp_size: usize) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(!pd.is_null() && !srq.is_null() && !attr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes its buffers (or NULL).
        let mut cmd_space = CmdSpace::new();
        let cmdb = match unsafe { CmdBuf::compat_in(&mut cmd_space, UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_CREATE,
                                                  cmd, cmd_size, resp, resp_size) } {
            Ok(b) => b,
            Err(e) => return e,
        };
        // SAFETY: live PD, SRQ and attributes.
        unsafe {
            let mut attr_ex: ibv_srq_init_attr_ex = core::mem::zeroed();
            attr_ex.srq_context = (*attr).srq_context;
            attr_ex.attr = (*attr).attr;
            let ret = icmd_create_srq(pd, ptr::null_mut(), srq, &mut attr_ex, cmdb.as_ptr());
            if ret == 0 {
                (*attr).attr.max_wr = attr_ex.attr.max_wr;
                (*attr).attr.max_sge = attr_ex.attr.max_sge;
            }
            ret
        }
    }
}
private_abi_both!(ibv_cmd_create_srq);

rdma_util::export_versioned! {
    /// Creates an SRQ of any type (basic, XRC, tag matching) from extended
    /// attributes, which must name the PD. Returns 0 or an errno value
    /// (errno set too): EOPNOTSUPP for unknown comp_mask bits, EINVAL for
    /// missing mandatory ones.
    fn ibv_cmd_create_srq_ex(_context: *mut ibv_context, srq: *mut verbs_srq,
                             attr_ex: *mut ibv_srq_init_attr_ex, cmd: *mut ibv_create_xsrq,
                             cmd_size: usize, resp: *mut ib_uverbs_create_srq_resp,
                             resp_size: usize) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!srq.is_null() && !attr_ex.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes its buffers (or NULL).
        let mut cmd_space = CmdSpace::new();
        let cmdb = match unsafe { CmdBuf::compat_in(&mut cmd_space, UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_CREATE,
                                                  cmd, cmd_size, resp, resp_size) } {
            Ok(b) => b,
            Err(e) => return e,
        };
        // SAFETY: live attributes.
        let a = unsafe { &*attr_ex };
        if a.comp_mask >= IBV_SRQ_INIT_ATTR_RESERVED {
            set_errno(libc::EOPNOTSUPP);
            return libc::EOPNOTSUPP;
        }
        if a.comp_mask & IBV_SRQ_INIT_ATTR_PD == 0 || a.pd.is_null() {
            return einval();
        }
        // SAFETY: live PD, SRQ and attributes.
        unsafe { icmd_create_srq(a.pd, srq, ptr::null_mut(), attr_ex, cmdb.as_ptr()) }
    }
}
private_abi_both!(ibv_cmd_create_srq_ex);

/// `ibv_cmd_modify_srq` for uverbs ABI 3, whose MODIFY_SRQ payload has a
/// different layout: rebuilt in a temporary buffer, provider data copied
/// behind it.
unsafe fn modify_srq_v3(
    srq: *mut ibv_srq,
    srq_attr: *const ibv_srq_attr,
    srq_attr_mask: c_int,
    new_cmd: *const ibv_modify_srq,
    new_cmd_size: usize,
) -> c_int {
    let drv = new_cmd_size.saturating_sub(size_of::<ibv_modify_srq>());
    let cmd_size = size_of::<ibv_modify_srq_v3>() + drv;
    let Ok(mut buf) = rdma_util::fallible::vec_filled(0u64, cmd_size.div_ceil(8)) else {
        rdma_util::ffi::set_errno(libc::ENOMEM);
        return libc::ENOMEM;
    };
    let cmd = buf.as_mut_ptr().cast::<ibv_modify_srq_v3>();
    // SAFETY: buf holds cmd_size bytes, 8-aligned; new_cmd holds
    // new_cmd_size bytes (caller).
    unsafe {
        ptr::copy_nonoverlapping(
            new_cmd.cast::<u8>().add(size_of::<ibv_modify_srq>()),
            cmd.cast::<u8>().add(size_of::<ibv_modify_srq_v3>()),
            drv,
        );
        (*cmd).core_payload = ib_uverbs_modify_srq_v3 {
            srq_handle: (*srq).handle,
            attr_mask: srq_attr_mask as u32,
            max_wr: (*srq_attr).max_wr,
            srq_limit: (*srq_attr).srq_limit,
            ..Default::default()
        };
        execute_cmd_write_req((*srq).context, cmd, cmd_size)
    }
}

rdma_util::export_versioned! {
    /// Changes an SRQ's max_wr and/or limit (write() command). Returns 0 or
    /// an errno value.
    fn ibv_cmd_modify_srq(srq: *mut ibv_srq, srq_attr: *mut ibv_srq_attr, srq_attr_mask: c_int,
                          cmd: *mut ibv_modify_srq, cmd_size: usize) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(!srq.is_null() && !srq_attr.is_null() && !cmd.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live SRQ and its buffers.
        unsafe {
            if abi_ver() == 3 {
                return modify_srq_v3(srq, srq_attr, srq_attr_mask, cmd, cmd_size);
            }
            let c = ptr::addr_of_mut!((*cmd).core_payload);
            (*c).srq_handle = (*srq).handle;
            (*c).attr_mask = srq_attr_mask as u32;
            (*c).max_wr = (*srq_attr).max_wr;
            (*c).srq_limit = (*srq_attr).srq_limit;
            execute_cmd_write_req((*srq).context, cmd, cmd_size)
        }
    }
}
private_abi_both!(ibv_cmd_modify_srq);

rdma_util::export_versioned! {
    /// Reads an SRQ's attributes (write() command). Returns 0 or an errno
    /// value.
    fn ibv_cmd_query_srq(srq: *mut ibv_srq, srq_attr: *mut ibv_srq_attr,
                         cmd: *mut ibv_query_srq, cmd_size: usize) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(!srq.is_null() && !srq_attr.is_null() && !cmd.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live SRQ and its buffers.
        unsafe {
            let mut resp = ib_uverbs_query_srq_resp::default();
            (*cmd).core_payload.srq_handle = (*srq).handle;
            (*cmd).core_payload.reserved = 0;
            let ret = execute_cmd_write((*srq).context, cmd, cmd_size, &mut resp,
                                        size_of::<ib_uverbs_query_srq_resp>());
            if ret != 0 {
                return ret;
            }
            (*srq_attr).max_wr = resp.max_wr;
            (*srq_attr).max_sge = resp.max_sge;
            (*srq_attr).srq_limit = resp.srq_limit;
        }
        0
    }
}
private_abi_both!(ibv_cmd_query_srq);

/// `ibv_cmd_destroy_srq`: destroys the SRQ, then waits until the
/// application has acknowledged the async events the kernel reported.
///
/// # Safety
/// `srq` is a live SRQ of a live context.
pub(crate) unsafe fn destroy_srq(srq: *mut ibv_srq) -> c_int {
    // SAFETY (whole function): caller guarantee.
    unsafe {
        let ctx = (*srq).context;
        let mut cmd_space = CmdSpace::new();
        let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_DESTROY, 2) {
            Ok(b) => b,
            Err(e) => return e,
        };
        let mut resp = ib_uverbs_destroy_srq_resp::default();
        cmdb.fill_out_ptr(UVERBS_ATTR_DESTROY_SRQ_RESP, &mut resp);
        cmdb.fill_in_obj(UVERBS_ATTR_DESTROY_SRQ_HANDLE, (*srq).handle);
        let mut ret = match execute_ioctl_fallback(ctx, cmd_bit!(destroy_srq), cmdb.as_ptr()) {
            Fallback::TryWrite => {
                let mut req = ibv_destroy_srq::default();
                req.core_payload.srq_handle = (*srq).handle;
                execute_cmd_write(
                    ctx,
                    &mut req,
                    size_of::<ibv_destroy_srq>(),
                    &mut resp,
                    size_of::<ib_uverbs_destroy_srq_resp>(),
                )
            }
            f => fallback_result(f),
        };
        if is_destroy_err(&mut ret) {
            return ret;
        }
        let mutex = addr_of_mut!((*srq).mutex);
        libc::pthread_mutex_lock(mutex);
        while ptr::read_volatile(addr_of_mut!((*srq).events_completed)) != resp.events_reported {
            libc::pthread_cond_wait(addr_of_mut!((*srq).cond), mutex);
        }
        libc::pthread_mutex_unlock(mutex);
    }
    0
}

rdma_util::export_versioned! {
    /// Destroys an SRQ and waits for its async events to be acknowledged.
    /// Returns 0 or an errno value; EIO counts as success (without waiting)
    /// when disassociated destroy is allowed.
    fn ibv_cmd_destroy_srq(srq: *mut ibv_srq) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!srq.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live SRQ.
        unsafe { destroy_srq(srq) }
    }
}
private_abi_both!(ibv_cmd_destroy_srq);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::kernel::*;
    use rdma_util::mem::zeroed_unchecked;

    #[repr(C)]
    #[derive(Default)]
    struct RxeSrqResp {
        ibv_resp: ib_uverbs_create_srq_resp,
        mi: [u64; 2],
        srq_num: u32,
        reserved: u32,
    }

    fn pd_of(t: &mut TestCtx) -> Box<ibv_pd> {
        // SAFETY: plain C struct.
        let mut pd: Box<ibv_pd> = Box::new(unsafe { zeroed_unchecked() });
        pd.context = t.ctx();
        pd.handle = 2;
        pd
    }

    #[test]
    fn create_srq_over_ioctl() {
        let mut t = TestCtx::new(14, false);
        let mut pd = pd_of(&mut t);
        // SAFETY: plain C structs.
        let (mut srq, mut attr): (Box<ibv_srq>, ibv_srq_init_attr) =
            unsafe { (Box::new(zeroed_unchecked()), zeroed_unchecked()) };
        attr.attr = ibv_srq_attr {
            max_wr: 100,
            max_sge: 2,
            srq_limit: 10,
        };
        let mut cmd = ibv_create_srq::default();
        let mut resp = RxeSrqResp::default();
        let srq_addr = &*srq as *const ibv_srq as u64;
        let resp_addr = &resp as *const RxeSrqResp as u64;
        let k = FakeKernel::new().on_ioctl(|c| {
            assert_eq!((c.object_id(), c.method_id()), (5, 0));
            c.set_data(0, 0x61);
            c.write_out_val(11, 128u32);
            c.write_out_val(12, 4u32);
            c.write_out(0x1001, &cat(&[&le64(1), &le64(2), &le32(3), &le32(0)]));
            0
        });
        // SAFETY: live objects and buffers.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_create_srq(
                &mut *pd,
                &mut *srq,
                &mut attr,
                &mut cmd,
                size_of::<ibv_create_srq>(),
                &mut resp.ibv_resp,
                size_of::<RxeSrqResp>(),
            )
        });
        assert_eq!(ret, 0);
        let (_, a) = sent[0].ioctl();
        let a = attr_tuples(a);
        assert_eq!(a[0], (0, 0, 1, 0));
        assert_eq!(
            &a[1..8],
            &[
                (9, 8, 1, 0),                     // TYPE basic
                (4, 8, 1, srq_addr),              // USER_HANDLE
                (1, 0, 1, 2),                     // PD_HANDLE
                (5, 4, 1, 100),                   // MAX_WR
                (6, 4, 1, 2),                     // MAX_SGE
                (7, 4, 1, 10),                    // LIMIT
                (10, 0, 1, TEST_ASYNC_FD as u64), // EVENT_FD
            ]
        );
        assert_eq!((a[8].0, a[8].1, a[9].0, a[9].1), (11, 4, 12, 4));
        assert_eq!(a[10], (0x1001, 24, 1, resp_addr + 16));
        assert_eq!((srq.handle, srq.context), (0x61, pd.context));
        assert_eq!(
            (attr.attr.max_wr, attr.attr.max_sge, attr.attr.srq_limit),
            (128, 4, 10)
        );
        assert_eq!((resp.mi, resp.srq_num), ([1, 2], 3));
    }

    #[test]
    fn create_srq_over_write_by_abi_version() {
        for abi in [6, 5] {
            let _g = abi_ver_lock(abi);
            let mut t = TestCtx::new(14, false);
            let mut pd = pd_of(&mut t);
            // SAFETY: plain C structs.
            let (mut srq, mut attr): (Box<ibv_srq>, ibv_srq_init_attr) =
                unsafe { (Box::new(zeroed_unchecked()), zeroed_unchecked()) };
            attr.attr = ibv_srq_attr {
                max_wr: 100,
                max_sge: 2,
                srq_limit: 10,
            };
            let mut cmd = ibv_create_srq::default();
            let mut resp = RxeSrqResp::default();
            let srq_addr = &*srq as *const ibv_srq as u64;
            let k = FakeKernel::new()
                .on_ioctl(|_| libc::ENOTTY)
                .on_write(move |w| {
                    if abi == 6 {
                        w.respond(&cat(&[
                            &le32(7),
                            &le32(128),
                            &le32(4),
                            &le32(0),
                            &le64(1),
                            &le64(2),
                            &le32(3),
                            &le32(0),
                        ]));
                    } else {
                        w.respond(&cat(&[&le32(7), &le64(1), &le64(2), &le32(3), &le32(0)]));
                    }
                    0
                });
            // SAFETY: live objects and buffers.
            let (ret, sent) = with_kernel(k, || unsafe {
                ibv_cmd_create_srq(
                    &mut *pd,
                    &mut *srq,
                    &mut attr,
                    &mut cmd,
                    size_of::<ibv_create_srq>(),
                    &mut resp.ibv_resp,
                    size_of::<RxeSrqResp>(),
                )
            });
            assert_eq!(ret, 0);
            let b = sent[1].write_bytes();
            // CREATE_SRQ (32): 40 bytes = 10 words. The response is the
            // 16-byte core (4 bytes in the ABI 5 form) + 24 provider bytes.
            let out_words = if abi == 6 { 10 } else { 7 };
            assert_eq!(&b[..8], &cat(&[&le32(32), &le16(10), &le16(out_words)])[..]);
            let resp_at = &resp as *const RxeSrqResp as u64 + if abi == 6 { 0 } else { 12 };
            let core = cat(&[
                &le64(resp_at),
                &le64(srq_addr),
                &le32(2),
                &le32(100),
                &le32(2),
                &le32(10),
            ]);
            assert_eq!(&b[8..], &core[..]);
            assert_eq!(srq.handle, 7);
            assert_eq!((resp.mi, resp.srq_num), ([1, 2], 3));
            let expect_wr = if abi == 6 { 128 } else { 100 };
            assert_eq!(
                attr.attr.max_wr, expect_wr,
                "ABI 5 does not report the actual sizes"
            );
        }
    }

    #[test]
    fn xrc_srq_over_ioctl_and_write() {
        let _g = abi_ver_lock(6);
        let mut t = TestCtx::new(14, false);
        let mut pd = pd_of(&mut t);
        // SAFETY: plain C structs.
        let (mut vsrq, mut attr, mut xrcd, mut cq): (
            Box<verbs_srq>,
            ibv_srq_init_attr_ex,
            Box<verbs_xrcd>,
            Box<ibv_cq>,
        ) = unsafe {
            (
                Box::new(zeroed_unchecked()),
                zeroed_unchecked(),
                Box::new(zeroed_unchecked()),
                Box::new(zeroed_unchecked()),
            )
        };
        xrcd.handle = 0x11;
        cq.handle = 0x22;
        attr.attr = ibv_srq_attr {
            max_wr: 8,
            max_sge: 1,
            srq_limit: 0,
        };
        attr.comp_mask = IBV_SRQ_INIT_ATTR_TYPE
            | IBV_SRQ_INIT_ATTR_PD
            | IBV_SRQ_INIT_ATTR_XRCD
            | IBV_SRQ_INIT_ATTR_CQ;
        attr.srq_type = IBV_SRQT_XRC;
        attr.pd = &mut *pd;
        attr.xrcd = &mut xrcd.xrcd;
        attr.cq = &mut *cq;
        let ctx = t.ctx();
        let k = FakeKernel::new().on_ioctl(|c| {
            let a = attr_tuples(c.attrs());
            assert_eq!(&a[..2], &[(2, 0, 1, 0x11), (3, 0, 1, 0x22)]);
            assert_eq!((a[2].0, a[2].1), (13, 4));
            assert_eq!(c.attr(9).unwrap().data, 1, "TYPE xrc");
            c.write_out_val(13, 0x99u32);
            c.set_data(0, 5);
            0
        });
        // SAFETY: live objects; no provider data.
        let (ret, _) = with_kernel(k, || unsafe {
            ibv_cmd_create_srq_ex(
                ctx,
                &mut *vsrq,
                &mut attr,
                ptr::null_mut(),
                0,
                ptr::null_mut(),
                0,
            )
        });
        assert_eq!(ret, 0);
        assert_eq!(
            (vsrq.srq_type, vsrq.srq_num, vsrq.xrcd, vsrq.cq),
            (IBV_SRQT_XRC, 0x99, &mut *xrcd as *mut _, &mut *cq as *mut _)
        );
        assert_eq!(vsrq.srq.handle, 5);

        // CREATE_XSRQ (39) on write() kernels: 56 bytes = 14 words in,
        // 16 = 4 words out.
        let mut t = TestCtx::new(14, false);
        pd.context = t.ctx();
        // SAFETY: plain C struct.
        let mut vsrq: Box<verbs_srq> = Box::new(unsafe { zeroed_unchecked() });
        let vsrq_addr = &vsrq.srq as *const ibv_srq as u64;
        // (The ioctl above reported max_wr/max_sge 0 into attr.)
        attr.attr = ibv_srq_attr {
            max_wr: 8,
            max_sge: 1,
            srq_limit: 0,
        };
        let k = FakeKernel::new()
            .on_ioctl(|_| libc::EPROTONOSUPPORT)
            .on_write(|w| {
                w.respond(&cat(&[&le32(6), &le32(16), &le32(1), &le32(0x98)]));
                0
            });
        // SAFETY: as above.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_create_srq_ex(
                pd.context,
                &mut *vsrq,
                &mut attr,
                ptr::null_mut(),
                0,
                ptr::null_mut(),
                0,
            )
        });
        assert_eq!(ret, 0);
        let b = sent[1].write_bytes();
        assert_eq!(&b[..8], &cat(&[&le32(39), &le16(14), &le16(4)])[..]);
        // user_handle, type, pd, max_wr, max_sge, limit, max_num_tags, xrcd, cq.
        let core = cat(&[
            &le64(vsrq_addr),
            &le32(1),
            &le32(2),
            &le32(8),
            &le32(1),
            &le32(0),
            &le32(0),
            &le32(0x11),
            &le32(0x22),
        ]);
        assert_eq!(&b[16..], &core[..]);
        assert_eq!(
            (vsrq.srq.handle, vsrq.srq_num, attr.attr.max_wr),
            (6, 0x98, 16)
        );
    }

    #[test]
    fn create_srq_ex_argument_errors() {
        let mut t = TestCtx::new(14, false);
        let mut pd = pd_of(&mut t);
        // SAFETY: plain C structs.
        let (mut vsrq, mut attr): (Box<verbs_srq>, ibv_srq_init_attr_ex) =
            unsafe { (Box::new(zeroed_unchecked()), zeroed_unchecked()) };
        let ctx = t.ctx();
        let mut run = |attr: &mut ibv_srq_init_attr_ex| {
            rdma_util::ffi::set_errno(0);
            // SAFETY: live objects.
            let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe {
                ibv_cmd_create_srq_ex(
                    ctx,
                    &mut *vsrq,
                    attr,
                    ptr::null_mut(),
                    0,
                    ptr::null_mut(),
                    0,
                )
            });
            assert!(sent.is_empty());
            assert_eq!(rdma_util::ffi::errno(), ret);
            ret
        };
        attr.comp_mask = IBV_SRQ_INIT_ATTR_RESERVED;
        assert_eq!(run(&mut attr), libc::EOPNOTSUPP);
        attr.comp_mask = 0;
        assert_eq!(run(&mut attr), libc::EINVAL, "no PD");
        attr.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE;
        attr.pd = &mut *pd;
        attr.srq_type = IBV_SRQT_XRC;
        assert_eq!(run(&mut attr), libc::EINVAL, "XRC without XRCD/CQ");
        attr.srq_type = IBV_SRQT_TM;
        assert_eq!(run(&mut attr), libc::EINVAL, "TM without CQ/TM caps");
    }

    #[test]
    fn modify_query_destroy() {
        let _g = abi_ver_lock(6);
        let mut t = TestCtx::new(14, false);
        // SAFETY: plain C struct.
        let mut srq: Box<ibv_srq> = Box::new(unsafe { zeroed_unchecked() });
        srq.context = t.ctx();
        srq.handle = 0x30;
        #[repr(C)]
        #[derive(Default)]
        struct RxeModify {
            ibv_cmd: ibv_modify_srq,
            mmap_info_addr: u64,
        }
        let mut mcmd = RxeModify {
            mmap_info_addr: 0xbeef,
            ..Default::default()
        };
        let mut qcmd = ibv_query_srq::default();
        let mut attr = ibv_srq_attr {
            max_wr: 50,
            max_sge: 0,
            srq_limit: 5,
        };
        let k = FakeKernel::new().on_write(|w| {
            if w.hdr().command == 34 {
                w.respond(&cat(&[&le32(64), &le32(3), &le32(6), &le32(0)]));
            }
            0
        });
        // SAFETY: live SRQ and buffers.
        let ((r1, r2), sent) = with_kernel(k, || unsafe {
            (
                ibv_cmd_modify_srq(
                    &mut *srq,
                    &mut attr,
                    (IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT) as c_int,
                    &mut mcmd.ibv_cmd,
                    size_of::<RxeModify>(),
                ),
                ibv_cmd_query_srq(&mut *srq, &mut attr, &mut qcmd, size_of::<ibv_query_srq>()),
            )
        });
        assert_eq!((r1, r2), (0, 0));
        // MODIFY_SRQ (33): 32 bytes = 8 words: handle, mask, max_wr, limit,
        // provider data.
        assert_eq!(
            sent[0].write_bytes(),
            &cat(&[
                &le32(33),
                &le16(8),
                &le16(0),
                &le32(0x30),
                &le32(3),
                &le32(50),
                &le32(5),
                &le64(0xbeef)
            ])[..]
        );
        // QUERY_SRQ (34): 24 bytes = 6 words, 16 = 4 words out.
        assert_eq!(
            &sent[1].write_bytes()[..8],
            &cat(&[&le32(34), &le16(6), &le16(4)])[..]
        );
        assert_eq!(
            &sent[1].write_bytes()[16..],
            &cat(&[&le32(0x30), &le32(0)])[..]
        );
        assert_eq!((attr.max_wr, attr.max_sge, attr.srq_limit), (64, 3, 6));
        drop(_g);

        // Uverbs ABI 3: the old MODIFY_SRQ layout, provider data behind it.
        let _g = abi_ver_lock(3);
        // SAFETY: as above.
        let (r, sent) = with_kernel(FakeKernel::new(), || unsafe {
            ibv_cmd_modify_srq(
                &mut *srq,
                &mut attr,
                1,
                &mut mcmd.ibv_cmd,
                size_of::<RxeModify>(),
            )
        });
        crate::cmd::set_abi_ver(6);
        assert_eq!(r, 0);
        assert_eq!(
            sent[0].write_bytes(),
            &cat(&[
                &le32(33),
                &le16(10),
                &le16(0),
                &le32(0x30),
                &le32(1),
                &le32(64),
                &le32(0),
                &le32(6),
                &le32(0),
                &le64(0xbeef)
            ])[..]
        );
        drop(_g);

        // DESTROY: SRQ object (5), method DESTROY (1).
        libc_init(&mut srq);
        let k = FakeKernel::new().on_ioctl(|c| {
            assert_eq!((c.object_id(), c.method_id()), (5, 1));
            assert_eq!(c.attr(0).unwrap().data, 0x30);
            c.write_out_val(1, 0u32);
            0
        });
        // SAFETY: live SRQ.
        let (r, _) = with_kernel(k, || unsafe { ibv_cmd_destroy_srq(&mut *srq) });
        assert_eq!(r, 0);
        let k = FakeKernel::new()
            .on_ioctl(|_| libc::EPROTONOSUPPORT)
            .on_write(|w| {
                w.respond(&le32(0));
                0
            });
        // SAFETY: live SRQ.
        let (r, sent) = with_kernel(k, || unsafe { ibv_cmd_destroy_srq(&mut *srq) });
        assert_eq!(r, 0);
        // DESTROY_SRQ (35): 24 bytes = 6 words, 4 bytes = 1 word out.
        assert_eq!(
            &sent[1].write_bytes()[..8],
            &cat(&[&le32(35), &le16(6), &le16(1)])[..]
        );
    }

    fn libc_init(srq: &mut ibv_srq) {
        // SAFETY: initialising the SRQ's own mutex and condition variable.
        unsafe {
            libc::pthread_mutex_init(&mut srq.mutex, ptr::null());
            libc::pthread_cond_init(&mut srq.cond, ptr::null());
        }
    }
}
