//! Memory regions (upstream's `ibv_cmd_reg_mr` in `cmd.c` and `cmd_mr.c`).

use core::mem::size_of;
use core::ptr;
use libc::{c_int, c_void};

use super::ioctl::{CmdBuf, CmdSpace};
use super::write::{
    execute_cmd_write, execute_cmd_write_req, execute_ioctl_fallback, fallback_result, Fallback,
};
use super::is_destroy_err;
use crate::abi::driver::*;
use crate::abi::kern::*;
use crate::abi::verbs::*;
use rdma_util::ffi::set_errno;
use crate::cmd::cmd_bit;
use rdma_util::ensure;

/// `ibv_cmd_reg_mr`.
///
/// # Safety
/// `pd`, `vmr`, `cmd` (`cmd_size` bytes) and `resp` (`resp_size` bytes) are
/// live.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn reg_mr(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    hca_va: u64,
    access: c_int,
    vmr: *mut verbs_mr,
    cmd: *mut ibv_reg_mr,
    cmd_size: usize,
    resp: *mut ib_uverbs_reg_mr_resp,
    resp_size: usize,
) -> c_int {
    // SAFETY (whole function): caller guarantee.
    unsafe {
        let c = ptr::addr_of_mut!((*cmd).core_payload);
        (*c).start = addr as usize as u64;
        (*c).length = length as u64;
        // On-demand paging over the whole address space is an implicit MR;
        // the kernel wants the length as all ones then.
        if access as u32 & IBV_ACCESS_ON_DEMAND != 0 {
            if length == usize::MAX && !addr.is_null() {
                set_errno(libc::EINVAL);
                return libc::EINVAL;
            }
            if length == usize::MAX {
                (*c).length = u64::MAX;
            }
        }
        (*c).hca_va = hca_va;
        (*c).pd_handle = (*pd).handle;
        (*c).access_flags = access as u32;

        let ctx = (*pd).context;
        let ret = execute_cmd_write(ctx, cmd, cmd_size, resp, resp_size);
        if ret != 0 {
            return ret;
        }
        let mr = &mut (*vmr).ibv_mr;
        mr.handle = (*resp).mr_handle;
        mr.lkey = (*resp).lkey;
        mr.rkey = (*resp).rkey;
        mr.context = ctx;
        (*vmr).mr_type = IBV_MR_TYPE_MR;
        (*vmr).access = access;
    }
    0
}

rdma_util::export_versioned! {
    /// Registers a memory region (write() command). Fills the handle, keys
    /// and context of `vmr->ibv_mr`, the MR type and access. Returns 0 or an
    /// errno value.
    fn ibv_cmd_reg_mr(pd: *mut ibv_pd, addr: *mut c_void, length: usize, hca_va: u64,
                      access: c_int, vmr: *mut verbs_mr, cmd: *mut ibv_reg_mr,
                      cmd_size: usize, resp: *mut ib_uverbs_reg_mr_resp,
                      resp_size: usize) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!pd.is_null() && !vmr.is_null() && !cmd.is_null() && !resp.is_null(),
                libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes live objects and buffers.
        unsafe { reg_mr(pd, addr, length, hca_va, access, vmr, cmd, cmd_size, resp, resp_size) }
    }
}
private_abi_both!(ibv_cmd_reg_mr);

/// `ibv_cmd_dereg_mr`.
///
/// # Safety
/// `vmr` is a live MR of a live context.
pub(crate) unsafe fn dereg_mr(vmr: *mut verbs_mr) -> c_int {
    // SAFETY (whole function): caller guarantee.
    unsafe {
        let ctx = (*vmr).ibv_mr.context;
        let handle = (*vmr).ibv_mr.handle;
        let mut cmd_space = CmdSpace::new();
        let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_MR, UVERBS_METHOD_MR_DESTROY, 1) {
            Ok(b) => b,
            Err(e) => return e,
        };
        cmdb.fill_in_obj(UVERBS_ATTR_DESTROY_MR_HANDLE, handle);
        let mut ret = match execute_ioctl_fallback(ctx, cmd_bit!(dereg_mr), cmdb.as_ptr()) {
            Fallback::TryWrite => {
                let mut req = ibv_dereg_mr::default();
                req.core_payload.mr_handle = handle;
                execute_cmd_write_req(ctx, &mut req, size_of::<ibv_dereg_mr>())
            }
            f => fallback_result(f),
        };
        is_destroy_err(&mut ret);
        ret
    }
}

rdma_util::export_versioned! {
    /// Deregisters a memory region. Returns 0 or an errno value; EIO counts
    /// as success when disassociated destroy is allowed.
    fn ibv_cmd_dereg_mr(vmr: *mut verbs_mr) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!vmr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live MR.
        unsafe { dereg_mr(vmr) }
    }
}
private_abi_both!(ibv_cmd_dereg_mr);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::kernel::*;
    use rdma_util::mem::zeroed_unchecked;
    use core::ptr;

    #[test]
    fn reg_mr_command_and_result() {
        let mut t = TestCtx::new(1, false);
        // SAFETY: plain C structs.
        let (mut pd, mut vmr): (ibv_pd, verbs_mr) =
            unsafe { (zeroed_unchecked(), zeroed_unchecked()) };
        pd.context = t.ctx();
        pd.handle = 2;
        let mut cmd = ibv_reg_mr::default();
        let mut resp = ib_uverbs_reg_mr_resp::default();
        let k = FakeKernel::new().on_write(|w| {
            w.respond(&cat(&[&le32(9), &le32(0x100), &le32(0x200)]));
            0
        });
        let access = (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ) as c_int;
        // SAFETY: live objects and buffers.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_reg_mr(
                &mut pd,
                0x7000 as *mut c_void,
                0x1000,
                0x7000,
                access,
                &mut vmr,
                &mut cmd,
                size_of::<ibv_reg_mr>(),
                &mut resp,
                size_of::<ib_uverbs_reg_mr_resp>(),
            )
        });
        assert_eq!(ret, 0);
        // REG_MR (9): 48 bytes = 12 words in, 12 = 3 out; response, start,
        // length, hca_va, pd_handle, access.
        let expected = cat(&[
            &le32(9),
            &le16(12),
            &le16(3),
            &le64(&resp as *const _ as u64),
            &le64(0x7000),
            &le64(0x1000),
            &le64(0x7000),
            &le32(2),
            &le32(5),
        ]);
        assert_eq!(sent[0].write_bytes(), &expected[..]);
        let mr = &vmr.ibv_mr;
        assert_eq!(
            (mr.handle, mr.lkey, mr.rkey, mr.context),
            (9, 0x100, 0x200, pd.context)
        );
        assert_eq!((vmr.mr_type, vmr.access), (IBV_MR_TYPE_MR, access));
        assert!(mr.pd.is_null(), "left to the caller, as upstream");
    }

    #[test]
    fn implicit_odp_mr() {
        let mut t = TestCtx::new(1, false);
        // SAFETY: plain C structs.
        let (mut pd, mut vmr): (ibv_pd, verbs_mr) =
            unsafe { (zeroed_unchecked(), zeroed_unchecked()) };
        pd.context = t.ctx();
        let mut cmd = ibv_reg_mr::default();
        let mut resp = ib_uverbs_reg_mr_resp::default();
        let odp = IBV_ACCESS_ON_DEMAND as c_int;
        // SAFETY: live objects and buffers.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe {
            ibv_cmd_reg_mr(
                &mut pd,
                ptr::null_mut(),
                usize::MAX,
                0,
                odp,
                &mut vmr,
                &mut cmd,
                size_of::<ibv_reg_mr>(),
                &mut resp,
                size_of::<ib_uverbs_reg_mr_resp>(),
            )
        });
        assert_eq!(ret, 0);
        assert_eq!(&sent[0].write_bytes()[24..32], &le64(u64::MAX));
        rdma_util::ffi::set_errno(0);
        // SAFETY: as above.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe {
            ibv_cmd_reg_mr(
                &mut pd,
                0x1000 as *mut c_void,
                usize::MAX,
                0,
                odp,
                &mut vmr,
                &mut cmd,
                size_of::<ibv_reg_mr>(),
                &mut resp,
                size_of::<ib_uverbs_reg_mr_resp>(),
            )
        });
        assert_eq!(
            (ret, rdma_util::ffi::errno(), sent.len()),
            (libc::EINVAL, libc::EINVAL, 0)
        );
    }

    #[test]
    fn dereg_mr_ioctl_then_write() {
        let mut t = TestCtx::new(1, false);
        // SAFETY: plain C struct.
        let mut vmr: verbs_mr = unsafe { zeroed_unchecked() };
        vmr.ibv_mr.context = t.ctx();
        vmr.ibv_mr.handle = 0x55;
        // SAFETY: live MR.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_dereg_mr(&mut vmr) });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        // UVERBS_OBJECT_MR (7), UVERBS_METHOD_MR_DESTROY (1).
        assert_eq!((hdr.object_id, hdr.method_id), (7, 1));
        assert_eq!(attr_tuples(a), vec![(0, 0, 1, 0x55)]);
        let k = FakeKernel::new().on_ioctl(|_| libc::ENOTTY);
        // SAFETY: live MR.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_dereg_mr(&mut vmr) });
        assert_eq!(ret, 0);
        // DEREG_MR (13), 3 words.
        assert_eq!(
            sent[1].write_bytes(),
            &cat(&[&le32(13), &le16(3), &le16(0), &le32(0x55)])[..]
        );
    }
}
