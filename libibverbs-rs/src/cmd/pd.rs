//! Protection domains (upstream's `ibv_cmd_alloc_pd` in `cmd.c` and
//! `cmd_pd.c`).

use core::mem::size_of;
use libc::c_int;

use super::ioctl::{CmdBuf, CmdSpace};
use super::write::{
    execute_cmd_write, execute_cmd_write_req, execute_ioctl_fallback, fallback_result, Fallback,
};
use super::is_destroy_err;
use crate::abi::kern::*;
use crate::abi::verbs::*;
use crate::cmd::cmd_bit;
use rdma_util::ensure;

rdma_util::export_versioned! {
    /// Allocates a PD (write() command, provider data after `cmd`/`resp`).
    /// Sets `pd->handle` and `pd->context`. Returns 0 or an errno value.
    fn ibv_cmd_alloc_pd(context: *mut ibv_context, pd: *mut ibv_pd, cmd: *mut ibv_alloc_pd,
                        cmd_size: usize, resp: *mut ib_uverbs_alloc_pd_resp,
                        resp_size: usize) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!context.is_null() && !pd.is_null() && !cmd.is_null() && !resp.is_null(),
                libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes its live context, PD and buffers.
        unsafe {
            let ret = execute_cmd_write(context, cmd, cmd_size, resp, resp_size);
            if ret != 0 {
                return ret;
            }
            (*pd).handle = (*resp).pd_handle;
            (*pd).context = context;
        }
        0
    }
}
private_abi_both!(ibv_cmd_alloc_pd);

/// `ibv_cmd_dealloc_pd`.
///
/// # Safety
/// `pd` is a live PD of a live context.
pub(crate) unsafe fn dealloc_pd(pd: *mut ibv_pd) -> c_int {
    // SAFETY (whole function): caller guarantee.
    unsafe {
        let ctx = (*pd).context;
        let mut cmd_space = CmdSpace::new();
        let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY, 1) {
            Ok(b) => b,
            Err(e) => return e,
        };
        cmdb.fill_in_obj(UVERBS_ATTR_DESTROY_PD_HANDLE, (*pd).handle);
        let mut ret = match execute_ioctl_fallback(ctx, cmd_bit!(dealloc_pd), cmdb.as_ptr()) {
            Fallback::TryWrite => {
                let mut req = ibv_dealloc_pd::default();
                req.core_payload.pd_handle = (*pd).handle;
                execute_cmd_write_req(ctx, &mut req, size_of::<ibv_dealloc_pd>())
            }
            f => fallback_result(f),
        };
        is_destroy_err(&mut ret);
        ret
    }
}

rdma_util::export_versioned! {
    /// Destroys a PD (ioctl, or write() on older kernels). Returns 0 or an
    /// errno value; EIO counts as success when disassociated destroy is
    /// allowed.
    fn ibv_cmd_dealloc_pd(pd: *mut ibv_pd) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!pd.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live PD.
        unsafe { dealloc_pd(pd) }
    }
}
private_abi_both!(ibv_cmd_dealloc_pd);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::kernel::*;
    use rdma_util::mem::zeroed_unchecked;

    #[test]
    fn alloc_pd_sets_handle_and_context() {
        let mut t = TestCtx::new(1, false);
        let ctx = t.ctx();
        // SAFETY: plain C struct.
        let mut pd: ibv_pd = unsafe { zeroed_unchecked() };
        let mut cmd = ibv_alloc_pd::default();
        let mut resp = ib_uverbs_alloc_pd_resp::default();
        let k = FakeKernel::new().on_write(|w| {
            w.respond(&le32(0x33));
            0
        });
        // SAFETY: live context and buffers.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_alloc_pd(
                ctx,
                &mut pd,
                &mut cmd,
                size_of::<ibv_alloc_pd>(),
                &mut resp,
                size_of::<ib_uverbs_alloc_pd_resp>(),
            )
        });
        assert_eq!(ret, 0);
        assert_eq!((pd.handle, pd.context), (0x33, ctx));
        // ALLOC_PD (3): 16 bytes = 4 words in, 4 bytes = 1 word out.
        assert_eq!(
            sent[0].write_bytes(),
            &cat(&[
                &le32(3),
                &le16(4),
                &le16(1),
                &le64(&resp as *const _ as u64)
            ])[..]
        );
        let k = FakeKernel::new().on_write(|_| libc::EMFILE);
        // SAFETY: as above.
        let (ret, _) = with_kernel(k, || unsafe {
            ibv_cmd_alloc_pd(
                ctx,
                &mut pd,
                &mut cmd,
                size_of::<ibv_alloc_pd>(),
                &mut resp,
                size_of::<ib_uverbs_alloc_pd_resp>(),
            )
        });
        assert_eq!(ret, libc::EMFILE);
    }

    #[test]
    fn dealloc_pd_ioctl_write_and_disassociation() {
        let _g = disassoc_lock();
        let mut t = TestCtx::new(1, false);
        // SAFETY: plain C struct.
        let mut pd: ibv_pd = unsafe { zeroed_unchecked() };
        pd.context = t.ctx();
        pd.handle = 0x44;
        // SAFETY (calls below): live PD.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_dealloc_pd(&mut pd) });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        // UVERBS_OBJECT_PD (1), UVERBS_METHOD_PD_DESTROY (0), handle attr 0.
        assert_eq!((hdr.object_id, hdr.method_id), (1, 0));
        assert_eq!(attr_tuples(a), vec![(0, 0, 1, 0x44)]);

        let k = FakeKernel::new().on_ioctl(|_| libc::EPROTONOSUPPORT);
        // SAFETY: as above.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_dealloc_pd(&mut pd) });
        assert_eq!(ret, 0);
        // DEALLOC_PD (4), 12 bytes = 3 words, no response.
        assert_eq!(
            sent[1].write_bytes(),
            &cat(&[&le32(4), &le16(3), &le16(0), &le32(0x44)])[..]
        );

        // EIO (device gone) is an error unless disassociated destroy is on.
        let k = || FakeKernel::new().on_write(|_| libc::EIO);
        // SAFETY: as above.
        let (ret, _) = with_kernel(k(), || unsafe { ibv_cmd_dealloc_pd(&mut pd) });
        assert_eq!(ret, libc::EIO);
        crate::cmd::set_allow_disassociate_destroy(true);
        // SAFETY: as above.
        let (ret, _) = with_kernel(k(), || unsafe { ibv_cmd_dealloc_pd(&mut pd) });
        crate::cmd::set_allow_disassociate_destroy(false);
        assert_eq!(ret, 0);
        // Other errors stay errors.
        let k = FakeKernel::new().on_write(|_| libc::EBUSY);
        // SAFETY: as above.
        let (ret, _) = with_kernel(k, || unsafe { ibv_cmd_dealloc_pd(&mut pd) });
        assert_eq!(ret, libc::EBUSY);
    }
}
