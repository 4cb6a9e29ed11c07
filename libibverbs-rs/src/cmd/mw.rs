//! Memory windows (upstream's `ibv_cmd_alloc_mw` in `cmd.c` and `cmd_mw.c`).

use core::mem::size_of;
use core::ptr;
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
    /// Allocates a memory window (write() command). Fills `mw`'s context,
    /// PD, rkey, handle and type. Returns 0 or an errno value.
    fn ibv_cmd_alloc_mw(pd: *mut ibv_pd, type_: ibv_mw_type, mw: *mut ibv_mw,
                        cmd: *mut ibv_alloc_mw, cmd_size: usize,
                        resp: *mut ib_uverbs_alloc_mw_resp, resp_size: usize) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(!pd.is_null() && !mw.is_null() && !cmd.is_null() && !resp.is_null(),
                libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes live objects and buffers.
        unsafe {
            let c = ptr::addr_of_mut!((*cmd).core_payload);
            (*c).pd_handle = (*pd).handle;
            (*c).mw_type = type_ as u8;
            (*c).reserved = [0; 3];
            let ret = execute_cmd_write((*pd).context, cmd, cmd_size, resp, resp_size);
            if ret != 0 {
                return ret;
            }
            (*mw).context = (*pd).context;
            (*mw).pd = pd;
            (*mw).rkey = (*resp).rkey;
            (*mw).handle = (*resp).mw_handle;
            (*mw).type_ = type_;
        }
        0
    }
}
private_abi_both!(ibv_cmd_alloc_mw);

/// `ibv_cmd_dealloc_mw`.
///
/// # Safety
/// `mw` is a live MW of a live context.
pub(crate) unsafe fn dealloc_mw(mw: *mut ibv_mw) -> c_int {
    // SAFETY (whole function): caller guarantee.
    unsafe {
        let ctx = (*mw).context;
        let mut cmd_space = CmdSpace::new();
        let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_MW, UVERBS_METHOD_MW_DESTROY, 1) {
            Ok(b) => b,
            Err(e) => return e,
        };
        cmdb.fill_in_obj(UVERBS_ATTR_DESTROY_MW_HANDLE, (*mw).handle);
        let mut ret = match execute_ioctl_fallback(ctx, cmd_bit!(dealloc_mw), cmdb.as_ptr()) {
            Fallback::TryWrite => {
                let mut req = ibv_dealloc_mw::default();
                req.core_payload.mw_handle = (*mw).handle;
                execute_cmd_write_req(ctx, &mut req, size_of::<ibv_dealloc_mw>())
            }
            f => fallback_result(f),
        };
        is_destroy_err(&mut ret);
        ret
    }
}

rdma_util::export_versioned! {
    /// Destroys a memory window. Returns 0 or an errno value; EIO counts as
    /// success when disassociated destroy is allowed.
    fn ibv_cmd_dealloc_mw(mw: *mut ibv_mw) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!mw.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live MW.
        unsafe { dealloc_mw(mw) }
    }
}
private_abi_both!(ibv_cmd_dealloc_mw);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::kernel::*;
    use rdma_util::mem::zeroed_unchecked;

    #[test]
    fn alloc_and_dealloc_mw() {
        let mut t = TestCtx::new(1, false);
        // SAFETY: plain C structs.
        let (mut pd, mut mw): (ibv_pd, ibv_mw) =
            unsafe { (zeroed_unchecked(), zeroed_unchecked()) };
        pd.context = t.ctx();
        pd.handle = 6;
        let mut cmd = ibv_alloc_mw::default();
        cmd.core_payload.reserved = [1, 2, 3];
        let mut resp = ib_uverbs_alloc_mw_resp::default();
        let k = FakeKernel::new().on_write(|w| {
            w.respond(&cat(&[&le32(4), &le32(0xabc)]));
            0
        });
        // SAFETY: live objects and buffers.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_alloc_mw(
                &mut pd,
                IBV_MW_TYPE_2,
                &mut mw,
                &mut cmd,
                size_of::<ibv_alloc_mw>(),
                &mut resp,
                size_of::<ib_uverbs_alloc_mw_resp>(),
            )
        });
        assert_eq!(ret, 0);
        // ALLOC_MW (14): 24 bytes = 6 words, 8 = 2 words; pd, type 2, zeros.
        let expected = cat(&[
            &le32(14),
            &le16(6),
            &le16(2),
            &le64(&resp as *const _ as u64),
            &le32(6),
            &[2, 0, 0, 0],
        ]);
        assert_eq!(sent[0].write_bytes(), &expected[..]);
        assert_eq!(
            (mw.context, mw.pd, mw.rkey, mw.handle, mw.type_),
            (pd.context, &mut pd as *mut _, 0xabc, 4, 2)
        );

        // SAFETY: live MW.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_dealloc_mw(&mut mw) });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        // UVERBS_OBJECT_MW (8), UVERBS_METHOD_MW_DESTROY (0).
        assert_eq!((hdr.object_id, hdr.method_id), (8, 0));
        assert_eq!(attr_tuples(a), vec![(0, 0, 1, 4)]);
        let k = FakeKernel::new()
            .on_ioctl(|_| libc::EPROTONOSUPPORT)
            .on_write(|_| libc::EINVAL);
        // SAFETY: live MW.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_dealloc_mw(&mut mw) });
        assert_eq!(ret, libc::EINVAL);
        // DEALLOC_MW (16), 3 words.
        assert_eq!(
            sent[1].write_bytes(),
            &cat(&[&le32(16), &le16(3), &le16(0), &le32(4)])[..]
        );
    }
}
