//! Device memory (upstream's `cmd_dm.c`): allocating and freeing on-device
//! memory and registering it as an MR; and (rdma-core 65's `cmd_dmabuf.c`,
//! exported at IBVERBS_PRIVATE_65 only) exporting device pages as a dma-buf.
//! ioctl-only methods, no write() fallback.

use libc::{c_int, c_uint, off_t};

use super::ioctl::{ibv_command_buffer, CmdBuf, CmdSpace};
use super::is_destroy_err;
use crate::abi::driver::*;
use crate::abi::kern::*;
use crate::abi::verbs::*;
use rdma_util::ensure;
use rdma_util::ffi::{errno, set_errno};

rdma_util::export_versioned! {
    /// Allocates device memory (ioctl only), with the provider's attributes
    /// in `link` (may be NULL). Fills the handle (in `dm` and `dm->dm`), the
    /// handle mask bit and the context. Returns 0 or an errno value.
    fn ibv_cmd_alloc_dm(ctx: *mut ibv_context, dm_attr: *const ibv_alloc_dm_attr,
                        dm: *mut verbs_dm, link: *mut ibv_command_buffer) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(!ctx.is_null() && !dm_attr.is_null() && !dm.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes its live context, attributes, DM and
        // (NULL or) its command buffer chain.
        unsafe {
            let mut cmd_space = CmdSpace::new();
            let mut cmdb = match CmdBuf::with_link_in(&mut cmd_space, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC, 3, link) {
                Ok(b) => b,
                Err(e) => return e,
            };
            let handle = cmdb.fill_out_obj(UVERBS_ATTR_ALLOC_DM_HANDLE);
            cmdb.fill_in_u64(UVERBS_ATTR_ALLOC_DM_LENGTH, (*dm_attr).length as u64);
            cmdb.fill_in_u32(UVERBS_ATTR_ALLOC_DM_ALIGNMENT, (*dm_attr).log_align_req);
            if cmdb.execute(ctx) != 0 {
                return errno();
            }
            let h = cmdb.read_obj(handle);
            (*dm).handle = h;
            (*dm).dm.handle = h;
            (*dm).dm.comp_mask = IBV_DM_MASK_HANDLE;
            (*dm).dm.context = ctx;
        }
        0
    }
}
private_abi_both!(ibv_cmd_alloc_dm);

rdma_util::export_versioned! {
    /// Frees device memory (ioctl only). Returns 0 or an errno value; EIO
    /// counts as success when disassociated destroy is allowed.
    fn ibv_cmd_free_dm(dm: *mut verbs_dm) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!dm.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live DM.
        unsafe {
            let mut cmd_space = CmdSpace::new();
            let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_FREE, 1) {
                Ok(b) => b,
                Err(e) => return e,
            };
            cmdb.fill_in_obj(UVERBS_ATTR_FREE_DM_HANDLE, (*dm).handle);
            let mut ret = cmdb.execute((*dm).dm.context);
            is_destroy_err(&mut ret);
            ret
        }
    }
}
private_abi_both!(ibv_cmd_free_dm);

rdma_util::export_versioned! {
    /// Registers `length` bytes of device memory at `offset` as an MR (ioctl
    /// only). The MR is always zero-based, so `access` must include
    /// IBV_ACCESS_ZERO_BASED (else EINVAL). Fills handle, keys, context,
    /// length, PD, a NULL address and the MR type. Returns 0 or an errno
    /// value.
    fn ibv_cmd_reg_dm_mr(pd: *mut ibv_pd, dm: *mut verbs_dm, offset: u64, length: usize,
                         access: c_uint, vmr: *mut verbs_mr, link: *mut ibv_command_buffer)
        -> c_int, on_panic = libc::EIO;
    {
        ensure!(!pd.is_null() && !dm.is_null() && !vmr.is_null(), libc::EINVAL, libc::EINVAL);
        if access & IBV_ACCESS_ZERO_BASED == 0 {
            set_errno(libc::EINVAL);
            return libc::EINVAL;
        }
        // SAFETY: the provider passes live PD, DM and MR and (NULL or) its
        // command buffer chain.
        unsafe {
            let mut cmd_space = CmdSpace::new();
            let mut cmdb = match CmdBuf::with_link_in(&mut cmd_space, UVERBS_OBJECT_MR, UVERBS_METHOD_DM_MR_REG, 8, link) {
                Ok(b) => b,
                Err(e) => return e,
            };
            let mut lkey = 0u32;
            let mut rkey = 0u32;
            let handle = cmdb.fill_out_obj(UVERBS_ATTR_REG_DM_MR_HANDLE);
            cmdb.fill_out_ptr(UVERBS_ATTR_REG_DM_MR_RESP_LKEY, &mut lkey);
            cmdb.fill_out_ptr(UVERBS_ATTR_REG_DM_MR_RESP_RKEY, &mut rkey);
            cmdb.fill_in_obj(UVERBS_ATTR_REG_DM_MR_PD_HANDLE, (*pd).handle);
            cmdb.fill_in_obj(UVERBS_ATTR_REG_DM_MR_DM_HANDLE, (*dm).handle);
            cmdb.fill_in_u64(UVERBS_ATTR_REG_DM_MR_OFFSET, offset);
            cmdb.fill_in_u64(UVERBS_ATTR_REG_DM_MR_LENGTH, length as u64);
            cmdb.fill_in_u32(UVERBS_ATTR_REG_DM_MR_ACCESS_FLAGS, access);
            if cmdb.execute((*pd).context) != 0 {
                return errno();
            }
            let mr = &mut (*vmr).ibv_mr;
            mr.handle = cmdb.read_obj(handle);
            mr.context = (*pd).context;
            mr.lkey = lkey;
            mr.rkey = rkey;
            mr.length = length;
            mr.pd = pd;
            mr.addr = core::ptr::null_mut();
            (*vmr).mr_type = IBV_MR_TYPE_MR;
        }
        0
    }
}
private_abi_both!(ibv_cmd_reg_dm_mr);

rdma_util::export! {
    /// Asks the kernel for a dma-buf file descriptor over the memory that
    /// mmap() of the context's command FD maps at page offset `pg_off` (an
    /// offset the kernel gave the provider; ioctl only). Returns the new
    /// descriptor, or -1 with errno set.
    fn ibv_cmd_export_dmabuf_fd(ctx: *mut ibv_context, pg_off: off_t) -> c_int, on_panic = -1;
    {
        ensure!(!ctx.is_null(), libc::EINVAL, -1);
        let mut cmd_space = CmdSpace::new();
        let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_DMABUF, UVERBS_METHOD_DMABUF_ALLOC, 2) {
            Ok(b) => b,
            Err(_) => return -1,
        };
        let fd = cmdb.fill_out_fd(UVERBS_ATTR_ALLOC_DMABUF_HANDLE);
        cmdb.fill_in_u64(UVERBS_ATTR_ALLOC_DMABUF_PGOFF, pg_off as u64);
        // SAFETY: the provider passes its live context; both attributes are
        // inline.
        if unsafe { cmdb.execute(ctx) } != 0 {
            return -1;
        }
        cmdb.read_fd(fd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::kernel::*;
    use rdma_util::mem::zeroed_unchecked;
    use core::ptr;

    #[test]
    fn alloc_and_free_dm() {
        let _g = disassoc_lock();
        let mut t = TestCtx::new(1, false);
        let ctx = t.ctx();
        // SAFETY: plain C structs.
        let mut dm: verbs_dm = unsafe { zeroed_unchecked() };
        let attr = ibv_alloc_dm_attr { length: 0x10000, log_align_req: 6, comp_mask: 0 };
        let k = FakeKernel::new().on_ioctl(|c| {
            c.set_data(0, 0x88);
            0
        });
        // SAFETY: live context, attributes and DM.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_alloc_dm(ctx, &attr, &mut dm, ptr::null_mut()) });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        // UVERBS_OBJECT_DM (14), ALLOC (0).
        assert_eq!((hdr.object_id, hdr.method_id), (14, 0));
        assert_eq!(attr_tuples(a), vec![(0, 0, 1, 0), (1, 8, 1, 0x10000), (2, 4, 1, 6)]);
        assert_eq!((dm.handle, dm.dm.handle, dm.dm.comp_mask, dm.dm.context), (0x88, 0x88, IBV_DM_MASK_HANDLE, ctx));

        let k = FakeKernel::new().on_ioctl(|_| libc::ENOMEM);
        // SAFETY: as above.
        let (ret, _) = with_kernel(k, || unsafe { ibv_cmd_alloc_dm(ctx, &attr, &mut dm, ptr::null_mut()) });
        assert_eq!(ret, libc::ENOMEM);

        // SAFETY: live DM.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_free_dm(&mut dm) });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        assert_eq!((hdr.object_id, hdr.method_id), (14, 1));
        assert_eq!(attr_tuples(a), vec![(0, 0, 1, 0x88)]);
        let k = || FakeKernel::new().on_ioctl(|_| libc::EIO);
        // SAFETY: live DM.
        let (ret, _) = with_kernel(k(), || unsafe { ibv_cmd_free_dm(&mut dm) });
        assert_eq!(ret, libc::EIO);
        crate::cmd::set_allow_disassociate_destroy(true);
        // SAFETY: live DM.
        let (ret, _) = with_kernel(k(), || unsafe { ibv_cmd_free_dm(&mut dm) });
        crate::cmd::set_allow_disassociate_destroy(false);
        assert_eq!(ret, 0);
    }

    #[test]
    fn export_dmabuf_fd() {
        let mut t = TestCtx::new(1, false);
        let ctx = t.ctx();
        let k = FakeKernel::new().on_ioctl(|c| {
            c.set_data(UVERBS_ATTR_ALLOC_DMABUF_HANDLE, 23);
            0
        });
        // SAFETY: live context.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_export_dmabuf_fd(ctx, 0x1_0000_0003) });
        assert_eq!(ret, 23);
        let (hdr, a) = sent[0].ioctl();
        // UVERBS_OBJECT_DMABUF (18), ALLOC (0): the FD slot, then the page
        // offset as 64 bits.
        assert_eq!((hdr.object_id, hdr.method_id), (18, 0));
        assert_eq!(attr_tuples(a), vec![(0, 0, 1, 0), (1, 8, 1, 0x1_0000_0003)]);

        // A kernel without the method: -1 and errno.
        rdma_util::ffi::set_errno(0);
        let k = FakeKernel::new().on_ioctl(|_| libc::EPROTONOSUPPORT);
        // SAFETY: live context.
        let (ret, _) = with_kernel(k, || unsafe { ibv_cmd_export_dmabuf_fd(ctx, 0) });
        assert_eq!((ret, rdma_util::ffi::errno()), (-1, libc::EPROTONOSUPPORT));
    }

    #[test]
    fn reg_dm_mr() {
        let mut t = TestCtx::new(1, false);
        // SAFETY: plain C structs.
        let (mut pd, mut dm, mut vmr): (ibv_pd, verbs_dm, verbs_mr) =
            unsafe { (zeroed_unchecked(), zeroed_unchecked(), zeroed_unchecked()) };
        pd.context = t.ctx();
        pd.handle = 2;
        dm.handle = 5;
        vmr.ibv_mr.addr = 0x1234 as *mut _;
        let access = IBV_ACCESS_ZERO_BASED | IBV_ACCESS_LOCAL_WRITE;

        // Not zero-based: refused, errno set, nothing sent.
        rdma_util::ffi::set_errno(0);
        // SAFETY: live objects.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe {
            ibv_cmd_reg_dm_mr(&mut pd, &mut dm, 0, 64, IBV_ACCESS_LOCAL_WRITE, &mut vmr, ptr::null_mut())
        });
        assert_eq!((ret, rdma_util::ffi::errno(), sent.len()), (libc::EINVAL, libc::EINVAL, 0));

        let k = FakeKernel::new().on_ioctl(|c| {
            c.set_data(0, 0x66);
            c.write_out_val(6, 0x100u32);
            c.write_out_val(7, 0x200u32);
            0
        });
        // SAFETY: live objects.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_reg_dm_mr(&mut pd, &mut dm, 0x40, 4096, access, &mut vmr, ptr::null_mut())
        });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        // UVERBS_OBJECT_MR (7), DM_MR_REG (0).
        assert_eq!((hdr.object_id, hdr.method_id, hdr.num_attrs), (7, 0, 8));
        let a = attr_tuples(a);
        assert_eq!(a[0], (0, 0, 1, 0));
        assert_eq!((a[1].0, a[1].1), (6, 4));
        assert_eq!((a[2].0, a[2].1), (7, 4));
        assert_eq!(&a[3..], &[(3, 0, 1, 2), (5, 0, 1, 5), (1, 8, 1, 0x40), (2, 8, 1, 4096), (4, 4, 1, access as u64)]);
        let mr = &vmr.ibv_mr;
        assert_eq!((mr.handle, mr.lkey, mr.rkey, mr.length), (0x66, 0x100, 0x200, 4096));
        assert_eq!((mr.context, mr.pd, mr.addr), (pd.context, &mut pd as *mut ibv_pd, ptr::null_mut()));
        assert_eq!(vmr.mr_type, IBV_MR_TYPE_MR);
    }
}
