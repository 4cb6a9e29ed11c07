//! XRC domains (upstream's `ibv_cmd_open_xrcd` in `cmd.c` and
//! `cmd_xrcd.c`), and opening an XRC target QP through its domain
//! (`ibv_cmd_open_qp` in `cmd.c`).

use core::mem::{offset_of, size_of};
use core::ptr::{self, addr_of_mut};
use libc::c_int;

use super::ioctl::{CmdBuf, CmdSpace};
use super::write::{
    execute_cmd_write, execute_cmd_write_req, execute_ioctl_fallback, fallback_result, Fallback,
};
use super::is_destroy_err;
use crate::abi::driver::*;
use crate::abi::kern::*;
use crate::abi::verbs::*;
use crate::cmd::cmd_bit;
use rdma_util::ensure;

rdma_util::export_versioned! {
    /// Opens (or creates, by `oflags`) the XRC domain of the file `attr->fd`
    /// (write() command, provider data after `cmd`/`resp`). Both the FD and
    /// OFLAGS mask bits are required (EINVAL); unknown bits give EOPNOTSUPP.
    /// Fills the domain's context, and its handle when `vxrcd_size` says
    /// the provider's struct has that field. Returns 0 or an errno value.
    fn ibv_cmd_open_xrcd(context: *mut ibv_context, xrcd: *mut verbs_xrcd, vxrcd_size: c_int,
                         attr: *mut ibv_xrcd_init_attr, cmd: *mut ibv_open_xrcd, cmd_size: usize,
                         resp: *mut ib_uverbs_open_xrcd_resp, resp_size: usize) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(!context.is_null() && !xrcd.is_null() && !attr.is_null() && !cmd.is_null()
                && !resp.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes its live context, domain, attributes
        // and buffers.
        unsafe {
            let mask = (*attr).comp_mask;
            if mask >= IBV_XRCD_INIT_ATTR_RESERVED {
                return libc::EOPNOTSUPP;
            }
            if mask & IBV_XRCD_INIT_ATTR_FD == 0 || mask & IBV_XRCD_INIT_ATTR_OFLAGS == 0 {
                return libc::EINVAL;
            }
            let c = addr_of_mut!((*cmd).core_payload);
            (*c).fd = (*attr).fd as u32;
            (*c).oflags = (*attr).oflags as u32;
            let ret = execute_cmd_write(context, cmd, cmd_size, resp, resp_size);
            if ret != 0 {
                return ret;
            }
            (*xrcd).xrcd.context = context;
            (*xrcd).comp_mask = 0;
            if (offset_of!(verbs_xrcd, handle) as i64) < vxrcd_size as i64 {
                (*xrcd).comp_mask = VERBS_XRCD_HANDLE;
                (*xrcd).handle = (*resp).xrcd_handle;
            }
        }
        0
    }
}
private_abi_both!(ibv_cmd_open_xrcd);

/// `ibv_cmd_close_xrcd`.
///
/// # Safety
/// `xrcd` is a live domain of a live context.
pub(crate) unsafe fn close_xrcd(xrcd: *mut verbs_xrcd) -> c_int {
    // SAFETY (whole function): caller guarantee.
    unsafe {
        let ctx = (*xrcd).xrcd.context;
        let handle = (*xrcd).handle;
        let mut cmd_space = CmdSpace::new();
        let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_XRCD, UVERBS_METHOD_XRCD_DESTROY, 1) {
            Ok(b) => b,
            Err(e) => return e,
        };
        cmdb.fill_in_obj(UVERBS_ATTR_DESTROY_XRCD_HANDLE, handle);
        let mut ret = match execute_ioctl_fallback(ctx, cmd_bit!(close_xrcd), cmdb.as_ptr()) {
            Fallback::TryWrite => {
                let mut req = ibv_close_xrcd::default();
                req.core_payload.xrcd_handle = handle;
                execute_cmd_write_req(ctx, &mut req, size_of::<ibv_close_xrcd>())
            }
            f => fallback_result(f),
        };
        is_destroy_err(&mut ret);
        ret
    }
}

rdma_util::export_versioned! {
    /// Closes an XRC domain (ioctl, or write() on older kernels). Returns 0
    /// or an errno value; EIO counts as success when disassociated destroy
    /// is allowed.
    fn ibv_cmd_close_xrcd(xrcd: *mut verbs_xrcd) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!xrcd.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live domain.
        unsafe { close_xrcd(xrcd) }
    }
}
private_abi_both!(ibv_cmd_close_xrcd);

rdma_util::export_versioned! {
    /// Opens an existing XRC target QP (number `attr->qp_num`) through the
    /// XRC domain `attr->xrcd` (write() command, provider data after
    /// `cmd`/`resp`). The XRCD, NUM and TYPE mask bits are required
    /// (EINVAL); unknown bits give EOPNOTSUPP. Initialises the QP (no PD,
    /// CQs or SRQ, state UNKNOWN, fresh mutex and condition variable) and
    /// records the domain when `vqp_sz` says the provider's struct has that
    /// field. Returns 0 or an errno value.
    fn ibv_cmd_open_qp(context: *mut ibv_context, qp: *mut verbs_qp, vqp_sz: c_int,
                       attr: *mut ibv_qp_open_attr, cmd: *mut ibv_open_qp, cmd_size: usize,
                       resp: *mut ib_uverbs_create_qp_resp, resp_size: usize) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(!context.is_null() && !qp.is_null() && !attr.is_null() && !cmd.is_null()
                && !resp.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes its live context, QP, attributes and
        // buffers; attr->xrcd is checked before use.
        unsafe {
            let mask = (*attr).comp_mask;
            if mask >= IBV_QP_OPEN_ATTR_RESERVED {
                return libc::EOPNOTSUPP;
            }
            let needed = IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_TYPE;
            if mask & needed != needed {
                return libc::EINVAL;
            }
            // The domain handed out by ibv_open_xrcd is the head of a
            // verbs_xrcd (same address).
            let vxrcd = (*attr).xrcd.cast::<verbs_xrcd>();
            ensure!(!vxrcd.is_null(), libc::EINVAL, libc::EINVAL);
            let c = addr_of_mut!((*cmd).core_payload);
            (*c).user_handle = qp as usize as u64;
            (*c).pd_handle = (*vxrcd).handle;
            (*c).qpn = (*attr).qp_num;
            (*c).qp_type = (*attr).qp_type as u8;
            let ret = execute_cmd_write(context, cmd, cmd_size, resp, resp_size);
            if ret != 0 {
                return ret;
            }
            let q = addr_of_mut!((*qp).base.qp);
            (*q).handle = (*resp).qp_handle;
            (*q).context = context;
            (*q).qp_context = (*attr).qp_context;
            (*q).pd = ptr::null_mut();
            (*q).send_cq = ptr::null_mut();
            (*q).recv_cq = ptr::null_mut();
            (*q).srq = ptr::null_mut();
            (*q).qp_num = (*attr).qp_num;
            (*q).qp_type = (*attr).qp_type;
            (*q).state = IBV_QPS_UNKNOWN;
            (*q).events_completed = 0;
            libc::pthread_mutex_init(addr_of_mut!((*q).mutex), ptr::null());
            libc::pthread_cond_init(addr_of_mut!((*q).cond), ptr::null());
            // Where comp_mask and xrcd are depends on the provider's release.
            let pabi = super::pabi_of(context);
            let (comp_mask, xrcd) = crate::pabi::vqp_tail(qp, pabi);
            *comp_mask = 0;
            if (crate::pabi::vqp_xrcd_offset(pabi) as i64) < vqp_sz as i64 {
                *comp_mask = VERBS_QP_XRCD;
                *xrcd = vxrcd;
            }
        }
        0
    }
}
private_abi_both!(ibv_cmd_open_qp);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::kernel::*;
    use rdma_util::mem::zeroed_unchecked;

    #[repr(C)]
    #[derive(Default)]
    struct DrvOpenXrcd {
        ibv_cmd: ibv_open_xrcd,
        drv: u64,
    }

    #[test]
    fn open_xrcd_checks_mask_and_fills_domain() {
        let mut t = TestCtx::new(1, false);
        let ctx = t.ctx();
        // SAFETY: plain C struct.
        let mut x: verbs_xrcd = unsafe { zeroed_unchecked() };
        let mut attr = ibv_xrcd_init_attr { comp_mask: IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS, fd: 9, oflags: libc::O_CREAT };
        let mut cmd = DrvOpenXrcd { drv: 0x5a, ..Default::default() };
        let mut resp = ib_uverbs_open_xrcd_resp::default();
        let k = FakeKernel::new().on_write(|w| {
            w.respond(&le32(0x31));
            0
        });
        let full = size_of::<verbs_xrcd>() as c_int;
        // SAFETY: live context, domain, attributes and buffers.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_open_xrcd(ctx, &mut x, full, &mut attr, &mut cmd.ibv_cmd, size_of::<DrvOpenXrcd>(), &mut resp, 4)
        });
        assert_eq!(ret, 0);
        // OPEN_XRCD (37): 24 + 8 bytes = 8 words in, 1 word out; response,
        // fd, oflags, then the provider's data.
        let expected = cat(&[
            &le32(37), &le16(8), &le16(1), &le64(&resp as *const _ as u64),
            &le32(9), &le32(libc::O_CREAT as u32), &le64(0x5a),
        ]);
        assert_eq!(sent[0].write_bytes(), &expected[..]);
        assert_eq!((x.xrcd.context, x.comp_mask, x.handle), (ctx, VERBS_XRCD_HANDLE, 0x31));

        // A provider struct that ends before `handle` does not get it.
        // SAFETY: plain C struct.
        let mut x: verbs_xrcd = unsafe { zeroed_unchecked() };
        x.comp_mask = 0xff;
        let k = FakeKernel::new().on_write(|w| {
            w.respond(&le32(0x32));
            0
        });
        let short = offset_of!(verbs_xrcd, handle) as c_int;
        // SAFETY: as above.
        let (ret, _) = with_kernel(k, || unsafe {
            ibv_cmd_open_xrcd(ctx, &mut x, short, &mut attr, &mut cmd.ibv_cmd, size_of::<ibv_open_xrcd>(), &mut resp, 4)
        });
        assert_eq!((ret, x.comp_mask, x.handle), (0, 0, 0));

        for (mask, err) in [
            (IBV_XRCD_INIT_ATTR_FD, libc::EINVAL),
            (IBV_XRCD_INIT_ATTR_OFLAGS, libc::EINVAL),
            (IBV_XRCD_INIT_ATTR_RESERVED | 3, libc::EOPNOTSUPP),
        ] {
            attr.comp_mask = mask;
            // SAFETY: as above.
            let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe {
                ibv_cmd_open_xrcd(ctx, &mut x, full, &mut attr, &mut cmd.ibv_cmd, size_of::<ibv_open_xrcd>(), &mut resp, 4)
            });
            assert_eq!((ret, sent.len()), (err, 0), "mask {mask:#x}");
        }
    }

    #[test]
    fn close_xrcd_ioctl_then_write() {
        let mut t = TestCtx::new(1, false);
        // SAFETY: plain C struct.
        let mut x: verbs_xrcd = unsafe { zeroed_unchecked() };
        x.xrcd.context = t.ctx();
        x.handle = 0x13;
        // SAFETY: live domain.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_close_xrcd(&mut x) });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        // UVERBS_OBJECT_XRCD (10), DESTROY (0).
        assert_eq!((hdr.object_id, hdr.method_id), (10, 0));
        assert_eq!(attr_tuples(a), vec![(0, 0, 1, 0x13)]);
        let k = FakeKernel::new().on_ioctl(|_| libc::EPROTONOSUPPORT);
        // SAFETY: live domain.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_close_xrcd(&mut x) });
        assert_eq!(ret, 0);
        // CLOSE_XRCD (38), 12 bytes = 3 words.
        assert_eq!(sent[1].write_bytes(), &cat(&[&le32(38), &le16(3), &le16(0), &le32(0x13)])[..]);
        assert!(t.state().ioctl_unsupported(cmd_bit!(close_xrcd)));
        // Later closes go straight to write().
        // SAFETY: live domain.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_close_xrcd(&mut x) });
        assert_eq!((ret, sent.len()), (0, 1));
        assert!(matches!(sent[0], Sent::Write { .. }));
    }

    #[test]
    fn open_qp_fills_the_qp() {
        let mut t = TestCtx::new(1, false);
        let ctx = t.ctx();
        // SAFETY: plain C structs.
        let (mut vqp, mut x): (Box<verbs_qp>, verbs_xrcd) =
            unsafe { (Box::new(zeroed_unchecked()), zeroed_unchecked()) };
        x.handle = 0x44;
        let mut qctx = 5u8;
        let mut attr = ibv_qp_open_attr {
            comp_mask: IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_TYPE | IBV_QP_OPEN_ATTR_CONTEXT,
            qp_num: 0x123,
            xrcd: &mut x.xrcd,
            qp_context: (&mut qctx as *mut u8).cast(),
            qp_type: IBV_QPT_XRC_RECV,
        };
        let mut cmd = ibv_open_qp::default();
        let mut resp = ib_uverbs_create_qp_resp::default();
        // Stale values the call must overwrite (writing union fields is safe).
        vqp.base.qp.pd = ptr::dangling_mut();
        vqp.base.qp.events_completed = 3;
        let k = FakeKernel::new().on_write(|w| {
            w.respond(&le32(0x77));
            0
        });
        let vqp_ptr: *mut verbs_qp = &mut *vqp;
        // SAFETY: live context, QP, attributes and buffers.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_open_qp(ctx, vqp_ptr, size_of::<verbs_qp>() as c_int, &mut attr, &mut cmd,
                            size_of::<ibv_open_qp>(), &mut resp, size_of::<ib_uverbs_create_qp_resp>())
        });
        assert_eq!(ret, 0);
        // OPEN_QP (40): 40 bytes = 10 words in, 32 = 8 words out; response,
        // user handle (the QP), XRCD handle, QP number, type and padding.
        let expected = cat(&[
            &le32(40), &le16(10), &le16(8), &le64(&resp as *const _ as u64),
            &le64(vqp_ptr as u64), &le32(0x44), &le32(0x123), &[IBV_QPT_XRC_RECV as u8, 0, 0, 0, 0, 0, 0, 0],
        ]);
        assert_eq!(sent[0].write_bytes(), &expected[..]);
        // SAFETY: reading the QP just filled.
        let q = unsafe { &vqp.base.qp };
        assert_eq!((q.handle, q.context, q.qp_num, q.qp_type, q.state), (0x77, ctx, 0x123, IBV_QPT_XRC_RECV, IBV_QPS_UNKNOWN));
        assert_eq!((q.pd, q.send_cq, q.recv_cq, q.srq), (ptr::null_mut(), ptr::null_mut(), ptr::null_mut(), ptr::null_mut()));
        assert_eq!((q.qp_context, q.events_completed), ((&mut qctx as *mut u8).cast(), 0));
        assert_eq!((vqp.comp_mask, vqp.xrcd), (VERBS_QP_XRCD, &mut x as *mut verbs_xrcd));
        // SAFETY: the mutex was initialised by the call.
        unsafe {
            let m = addr_of_mut!((*vqp_ptr).base.qp.mutex);
            assert_eq!(libc::pthread_mutex_lock(m), 0);
            assert_eq!(libc::pthread_mutex_unlock(m), 0);
        }
    }

    #[test]
    fn open_qp_argument_checks() {
        let mut t = TestCtx::new(1, false);
        let ctx = t.ctx();
        // SAFETY: plain C structs.
        let (mut vqp, mut x): (Box<verbs_qp>, verbs_xrcd) =
            unsafe { (Box::new(zeroed_unchecked()), zeroed_unchecked()) };
        let mut attr = ibv_qp_open_attr {
            comp_mask: IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_NUM,
            qp_num: 1,
            xrcd: &mut x.xrcd,
            qp_context: ptr::null_mut(),
            qp_type: IBV_QPT_XRC_RECV,
        };
        let mut cmd = ibv_open_qp::default();
        let mut resp = ib_uverbs_create_qp_resp::default();
        let sz = size_of::<verbs_qp>() as c_int;
        let mut call = |attr: &mut ibv_qp_open_attr| {
            // SAFETY: live context, QP, attributes and buffers.
            with_kernel(FakeKernel::new(), || unsafe {
                ibv_cmd_open_qp(ctx, &mut *vqp, sz, attr, &mut cmd, size_of::<ibv_open_qp>(), &mut resp, 32)
            })
        };
        let (ret, sent) = call(&mut attr);
        assert_eq!((ret, sent.len()), (libc::EINVAL, 0));
        attr.comp_mask = IBV_QP_OPEN_ATTR_RESERVED | 0xf;
        let (ret, sent) = call(&mut attr);
        assert_eq!((ret, sent.len()), (libc::EOPNOTSUPP, 0));
        attr.comp_mask = 0xf;
        attr.xrcd = ptr::null_mut();
        let (ret, sent) = call(&mut attr);
        assert_eq!((ret, sent.len()), (libc::EINVAL, 0));
    }
}
