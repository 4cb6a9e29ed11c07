//! The MR helpers beyond plain registration (upstream's `ibv_cmd_rereg_mr`
//! in `cmd.c`, and `ibv_cmd_query_mr`, `ibv_cmd_advise_mr`,
//! `ibv_cmd_reg_dmabuf_mr` in `cmd_mr.c`), and rdma-core 65's
//! `ibv_cmd_reg_mr_ex` (exported at IBVERBS_PRIVATE_65 only).
//!
//! Re-registration is a classic write() command; query, advise and dma-buf
//! registration exist only as ioctl methods of the MR object. The extended
//! registration is the REG_MR ioctl method, with the classic REG_MR write()
//! command as fallback for plain user memory.

use core::mem::size_of;
use core::ptr::{self, addr_of_mut};
use libc::{c_int, c_void};

use super::ioctl::{ibv_command_buffer, CmdBuf, CmdSpace};
use super::write::{execute_cmd_write, execute_ioctl_fallback, Fallback};
use crate::abi::driver::*;
use crate::abi::driver65::verbs_dmah;
use crate::abi::kern::*;
use crate::abi::verbs::*;
use crate::abi::verbs65::{
    ibv_mr_init_attr, IBV_REG_MR_MASK_ADDR, IBV_REG_MR_MASK_DMAH, IBV_REG_MR_MASK_FD,
    IBV_REG_MR_MASK_FD_OFFSET, IBV_REG_MR_MASK_IOVA,
};
use crate::cmd::REG_MR_EX_BIT;
use crate::provider_release::passes_dmabuf_driver;
use rdma_util::ensure;
use rdma_util::ffi::{errno, set_errno};

rdma_util::export_versioned! {
    /// Re-registers an MR (write() command, provider data after
    /// `cmd`/`resp`): new translation, PD and/or access as `flags` says.
    /// Updates the keys, and the context when the PD changes. Returns 0 or
    /// an errno value.
    fn ibv_cmd_rereg_mr(vmr: *mut verbs_mr, flags: u32, addr: *mut c_void, length: usize,
                        hca_va: u64, access: c_int, pd: *mut ibv_pd, cmd: *mut ibv_rereg_mr,
                        cmd_sz: usize, resp: *mut ib_uverbs_rereg_mr_resp, resp_sz: usize)
        -> c_int, on_panic = libc::EIO;
    {
        let change_pd = flags & IBV_REREG_MR_CHANGE_PD != 0;
        let pd_missing = change_pd && pd.is_null();
        ensure!(!vmr.is_null() && !cmd.is_null() && !resp.is_null() && !pd_missing,
                libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live MR, buffers of the sizes it
        // gives, and a live PD when the PD changes.
        unsafe {
            let c = addr_of_mut!((*cmd).core_payload);
            (*c).mr_handle = (*vmr).ibv_mr.handle;
            (*c).flags = flags;
            (*c).start = addr as usize as u64;
            (*c).length = length as u64;
            (*c).hca_va = hca_va;
            (*c).pd_handle = if change_pd { (*pd).handle } else { 0 };
            (*c).access_flags = access as u32;
            let ret = execute_cmd_write((*vmr).ibv_mr.context, cmd, cmd_sz, resp, resp_sz);
            if ret != 0 {
                return ret;
            }
            (*vmr).ibv_mr.lkey = (*resp).lkey;
            (*vmr).ibv_mr.rkey = (*resp).rkey;
            if change_pd {
                (*vmr).ibv_mr.context = (*pd).context;
            }
        }
        0
    }
}
private_abi_both!(ibv_cmd_rereg_mr);

rdma_util::export_versioned! {
    /// Looks up the MR `mr_handle` (one shared through an imported PD's
    /// context) and fills `vmr` with its keys and length (ioctl only). The
    /// address is unknown (NULL); the type is IBV_MR_TYPE_IMPORTED_MR.
    /// Returns 0 or an errno value.
    fn ibv_cmd_query_mr(pd: *mut ibv_pd, vmr: *mut verbs_mr, mr_handle: u32) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(!pd.is_null() && !vmr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live PD and MR; the kernel writes
        // the keys and length straight into the MR.
        unsafe {
            let mr = addr_of_mut!((*vmr).ibv_mr);
            let mut cmd_space = CmdSpace::new();
            let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_MR, UVERBS_METHOD_QUERY_MR, 4) {
                Ok(b) => b,
                Err(e) => return e,
            };
            cmdb.fill_in_obj(UVERBS_ATTR_QUERY_MR_HANDLE, mr_handle);
            cmdb.fill_out_ptr(UVERBS_ATTR_QUERY_MR_RESP_LKEY, addr_of_mut!((*mr).lkey));
            cmdb.fill_out_ptr(UVERBS_ATTR_QUERY_MR_RESP_RKEY, addr_of_mut!((*mr).rkey));
            cmdb.fill_out_ptr(UVERBS_ATTR_QUERY_MR_RESP_LENGTH, addr_of_mut!((*mr).length));
            let ret = cmdb.execute((*pd).context);
            if ret != 0 {
                return ret;
            }
            (*mr).handle = mr_handle;
            (*mr).context = (*pd).context;
            (*mr).pd = pd;
            (*mr).addr = ptr::null_mut();
            (*vmr).mr_type = IBV_MR_TYPE_IMPORTED_MR;
        }
        0
    }
}
private_abi_both!(ibv_cmd_query_mr);

rdma_util::export_versioned! {
    /// Gives the kernel advice (e.g. prefetch) about the ranges in
    /// `sg_list` of ODP MRs (ioctl only). Returns 0 or an errno value.
    fn ibv_cmd_advise_mr(pd: *mut ibv_pd, advice: ibv_advise_mr_advice, flags: u32,
                         sg_list: *mut ibv_sge, num_sge: u32) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!pd.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live PD and num_sge entries (a
        // short list is copied inline now, a longer one read by the kernel).
        unsafe {
            let mut cmd_space = CmdSpace::new();
            let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_MR, UVERBS_METHOD_ADVISE_MR, 4) {
                Ok(b) => b,
                Err(e) => return e,
            };
            cmdb.fill_in_obj(UVERBS_ATTR_ADVISE_MR_PD_HANDLE, (*pd).handle);
            cmdb.fill_const_in(UVERBS_ATTR_ADVISE_MR_ADVICE, advice as u64);
            cmdb.fill_in_u32(UVERBS_ATTR_ADVISE_MR_FLAGS, flags);
            let len = (num_sge as usize).saturating_mul(size_of::<ibv_sge>());
            ensure!(len == 0 || !sg_list.is_null(), libc::EINVAL, libc::EINVAL);
            // Over 64 KiB marks the buffer bad: EINVAL without a syscall.
            cmdb.fill_in(UVERBS_ATTR_ADVISE_MR_SGE_LIST, sg_list.cast_const().cast(), len);
            cmdb.execute((*pd).context)
        }
    }
}
private_abi_both!(ibv_cmd_advise_mr);

/// The body of both ibv_cmd_reg_dmabuf_mr: the REG_DMABUF_MR ioctl, with
/// the provider's own attributes `link` (NULL for none) after the core ones.
///
/// # Safety
/// A live PD of one of our contexts and a writable MR; `link` NULL or a valid
/// chain.
#[allow(clippy::too_many_arguments)]
unsafe fn reg_dmabuf_mr(pd: *mut ibv_pd, offset: u64, length: usize, iova: u64, fd: c_int,
                        access: c_int, vmr: *mut verbs_mr, link: *mut ibv_command_buffer) -> c_int {
    // SAFETY: caller contract.
    unsafe {
        let mut cmd_space = CmdSpace::new();
        let mut cmdb = match CmdBuf::with_link_in(&mut cmd_space, UVERBS_OBJECT_MR,
                                                  UVERBS_METHOD_REG_DMABUF_MR, 9, link) {
            Ok(b) => b,
            Err(e) => return e,
        };
        let mut lkey = 0u32;
        let mut rkey = 0u32;
        let handle = cmdb.fill_out_obj(UVERBS_ATTR_REG_DMABUF_MR_HANDLE);
        cmdb.fill_out_ptr(UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY, &mut lkey);
        cmdb.fill_out_ptr(UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY, &mut rkey);
        cmdb.fill_in_obj(UVERBS_ATTR_REG_DMABUF_MR_PD_HANDLE, (*pd).handle);
        cmdb.fill_in_u64(UVERBS_ATTR_REG_DMABUF_MR_OFFSET, offset);
        cmdb.fill_in_u64(UVERBS_ATTR_REG_DMABUF_MR_LENGTH, length as u64);
        cmdb.fill_in_u64(UVERBS_ATTR_REG_DMABUF_MR_IOVA, iova);
        cmdb.fill_in_u32(UVERBS_ATTR_REG_DMABUF_MR_FD, fd as u32);
        cmdb.fill_in_u32(UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS, access as u32);
        if cmdb.execute((*pd).context) != 0 {
            return errno();
        }
        let mr = &mut (*vmr).ibv_mr;
        mr.handle = cmdb.read_obj(handle);
        mr.context = (*pd).context;
        mr.lkey = lkey;
        mr.rkey = rkey;
        mr.pd = pd;
        mr.addr = offset as usize as *mut c_void;
        mr.length = length;
        (*vmr).mr_type = IBV_MR_TYPE_DMABUF_MR;
    }
    0
}

rdma_util::export_versioned! {
    /// ibv_cmd_reg_dmabuf_mr@IBVERBS_PRIVATE_34: registers `length` bytes at
    /// `offset` of the dma-buf `fd`, mapped at `iova` (ioctl only). Fills
    /// handle, keys, context, PD, the offset as address, the length and type
    /// IBV_MR_TYPE_DMABUF_MR. Returns 0 or an errno value.
    ///
    /// Providers of rdma-core 54 and later pass an eighth argument, their
    /// own attributes in `driver` (or NULL); earlier ones pass seven, and
    /// `driver` is then whatever the caller left there. Which kind calls is
    /// told by the release of the PD's provider (`provider_release`), and
    /// `driver` is read only for the newer kind.
    fn ibv_cmd_reg_dmabuf_mr(pd: *mut ibv_pd, offset: u64, length: usize, iova: u64, fd: c_int,
                             access: c_int, vmr: *mut verbs_mr, driver: *mut ibv_command_buffer)
        -> c_int, on_panic = libc::EIO;
    {
        ensure!(!pd.is_null() && !vmr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live PD and MR; the PD's context is
        // one of ours.
        let link = if unsafe { passes_dmabuf_driver((*pd).context) } { driver } else { ptr::null_mut() };
        // SAFETY: the provider passes a live PD and MR, and a newer provider
        // a live chain (or NULL) in `driver`.
        unsafe { reg_dmabuf_mr(pd, offset, length, iova, fd, access, vmr, link) }
    }
}
rdma_util::symver!(compat ibv_cmd_reg_dmabuf_mr, "IBVERBS_PRIVATE_34", ibv_cmd_reg_dmabuf_mr);

rdma_util::export_versioned! {
    /// ibv_cmd_reg_dmabuf_mr@@IBVERBS_PRIVATE_65: the same, where every
    /// caller passes `driver` (its own attributes, or NULL).
    fn ibv_cmd_reg_dmabuf_mr_65(pd: *mut ibv_pd, offset: u64, length: usize, iova: u64, fd: c_int,
                                access: c_int, vmr: *mut verbs_mr, driver: *mut ibv_command_buffer)
        -> c_int, on_panic = libc::EIO;
    {
        ensure!(!pd.is_null() && !vmr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live PD and MR and a live chain (or
        // NULL) in `driver`.
        unsafe { reg_dmabuf_mr(pd, offset, length, iova, fd, access, vmr, driver) }
    }
}
rdma_util::symver!(default ibv_cmd_reg_dmabuf_mr, "IBVERBS_PRIVATE_65", ibv_cmd_reg_dmabuf_mr_65);

/// `errno = e; return e;`, for the argument errors of [`reg_mr_ex`].
fn fail(e: c_int) -> c_int {
    set_errno(e);
    e
}

/// `ibv_cmd_reg_mr_ex`.
///
/// # Safety
/// `pd` and `vmr` are live; `attr.dmah`, when its mask bit is set, is NULL
/// or the `ibv_dmah` of a live `verbs_dmah`.
unsafe fn reg_mr_ex(pd: *mut ibv_pd, vmr: *mut verbs_mr, attr: &ibv_mr_init_attr) -> c_int {
    let has = |bit: u32| attr.comp_mask & bit as u64 != 0;
    let fd_based = has(IBV_REG_MR_MASK_FD);
    let addr = attr.addr as usize as u64;
    let mut length = attr.length as u64;
    let mut cmd_space = CmdSpace::new();
    let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_MR, UVERBS_METHOD_REG_MR, 11) {
        Ok(b) => b,
        Err(e) => return e,
    };
    // The memory is either a dma-buf (FD with an offset into it) or user
    // memory at ADDR, never both.
    if fd_based {
        if !has(IBV_REG_MR_MASK_FD_OFFSET) || has(IBV_REG_MR_MASK_ADDR) {
            return fail(libc::EINVAL);
        }
        cmdb.fill_in_u64(UVERBS_ATTR_REG_MR_FD_OFFSET, attr.fd_offset);
        cmdb.fill_in_fd(UVERBS_ATTR_REG_MR_FD, attr.fd);
    } else {
        if has(IBV_REG_MR_MASK_FD_OFFSET) || !has(IBV_REG_MR_MASK_ADDR) {
            return fail(libc::EINVAL);
        }
        cmdb.fill_in_u64(UVERBS_ATTR_REG_MR_ADDR, addr);
        // On-demand paging of the whole address space (an implicit MR): the
        // kernel wants all ones as the length, and no address.
        if attr.access as u32 & IBV_ACCESS_ON_DEMAND != 0 && attr.length == usize::MAX {
            if !attr.addr.is_null() {
                return fail(libc::EINVAL);
            }
            length = u64::MAX;
        }
    }
    // The kernel needs an IOVA; user memory defaults to its address.
    let iova = if has(IBV_REG_MR_MASK_IOVA) {
        attr.iova
    } else if !fd_based {
        addr
    } else {
        return fail(libc::EINVAL);
    };
    cmdb.fill_in_u64(UVERBS_ATTR_REG_MR_IOVA, iova);

    let mut lkey = 0u32;
    let mut rkey = 0u32;
    let handle = cmdb.fill_out_obj(UVERBS_ATTR_REG_MR_HANDLE);
    // SAFETY: lkey and rkey outlive the command.
    unsafe {
        cmdb.fill_out_ptr(UVERBS_ATTR_REG_MR_RESP_LKEY, &mut lkey);
        cmdb.fill_out_ptr(UVERBS_ATTR_REG_MR_RESP_RKEY, &mut rkey);
    }
    // SAFETY: pd is live (caller).
    let (ctx, pd_handle) = unsafe { ((*pd).context, (*pd).handle) };
    cmdb.fill_in_obj(UVERBS_ATTR_REG_MR_PD_HANDLE, pd_handle);
    cmdb.fill_in_u64(UVERBS_ATTR_REG_MR_LENGTH, length);
    cmdb.fill_in_u32(UVERBS_ATTR_REG_MR_ACCESS_FLAGS, attr.access as u32);
    if has(IBV_REG_MR_MASK_DMAH) {
        if attr.dmah.is_null() {
            // Upstream would dereference NULL here.
            return fail(libc::EINVAL);
        }
        // SAFETY: a non-NULL dmah is the first field of a live verbs_dmah
        // (caller).
        let dmah_handle = unsafe { (*attr.dmah.cast::<verbs_dmah>()).handle };
        cmdb.fill_in_obj(UVERBS_ATTR_REG_MR_DMA_HANDLE, dmah_handle);
    }

    // SAFETY: ctx is the PD's live context; the attributes point to locals
    // that outlive the command.
    match unsafe { execute_ioctl_fallback(ctx, REG_MR_EX_BIT, cmdb.as_ptr()) } {
        Fallback::Success => {}
        Fallback::Error(e) => return e,
        Fallback::TryWrite | Fallback::TryWriteEx => {
            // A kernel without the method: plain user memory still has the
            // classic REG_MR command; a dma-buf or a DMA handle has no
            // write() form.
            if fd_based || has(IBV_REG_MR_MASK_DMAH) {
                return fail(libc::EOPNOTSUPP);
            }
            let mut req = ibv_reg_mr::default();
            let mut resp = ib_uverbs_reg_mr_resp::default();
            // SAFETY: live PD and MR (caller); req and resp are whole.
            return unsafe {
                super::mr::reg_mr(
                    pd,
                    attr.addr,
                    length as usize,
                    iova,
                    attr.access,
                    vmr,
                    &mut req,
                    size_of::<ibv_reg_mr>(),
                    &mut resp,
                    size_of::<ib_uverbs_reg_mr_resp>(),
                )
            };
        }
    }
    // SAFETY: vmr is live (caller).
    unsafe {
        let mr = &mut (*vmr).ibv_mr;
        mr.handle = cmdb.read_obj(handle);
        mr.context = ctx;
        mr.lkey = lkey;
        mr.rkey = rkey;
        (*vmr).mr_type = if fd_based { IBV_MR_TYPE_DMABUF_MR } else { IBV_MR_TYPE_MR };
        (*vmr).access = attr.access;
    }
    0
}

rdma_util::export! {
    /// Registers an MR from `ibv_mr_init_attr` (the REG_MR ioctl method):
    /// user memory at `addr` (IOVA defaulting to it) or a dma-buf `fd` at
    /// `fd_offset` (IOVA required), optionally with a DMA handle. An
    /// inconsistent mask is refused with EINVAL before any command. Kernels
    /// without the method get the classic REG_MR write() for user memory,
    /// EOPNOTSUPP otherwise. Fills the handle, keys and context of
    /// `vmr->ibv_mr`, the MR type and access (the caller fills the rest).
    /// Returns 0 or an errno value.
    fn ibv_cmd_reg_mr_ex(pd: *mut ibv_pd, vmr: *mut verbs_mr, mr_init_attr: *mut ibv_mr_init_attr)
        -> c_int, on_panic = libc::EIO;
    {
        ensure!(!pd.is_null() && !vmr.is_null() && !mr_init_attr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live PD and MR, and the attributes
        // (whose DMA handle, if named, is one of ours).
        unsafe { reg_mr_ex(pd, vmr, &*mr_init_attr) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::kernel::*;
    use rdma_util::mem::zeroed_unchecked;

    #[repr(C)]
    #[derive(Default)]
    struct DrvRereg {
        ibv_cmd: ibv_rereg_mr,
        drv: u64,
    }

    #[test]
    fn rereg_mr_command_and_result() {
        let mut t = TestCtx::new(1, false);
        let ctx = t.ctx();
        let mut other = TestCtx::new(1, false);
        // SAFETY: plain C structs.
        let (mut vmr, mut pd): (verbs_mr, ibv_pd) =
            unsafe { (zeroed_unchecked(), zeroed_unchecked()) };
        vmr.ibv_mr.context = ctx;
        vmr.ibv_mr.handle = 0x10;
        pd.handle = 0x20;
        pd.context = other.ctx();
        let mut cmd = DrvRereg { drv: 0x77, ..Default::default() };
        let mut resp = ib_uverbs_rereg_mr_resp::default();
        let k = || FakeKernel::new().on_write(|w| {
            w.respond(&cat(&[&le32(0xa1), &le32(0xb2)]));
            0
        });
        let flags = IBV_REREG_MR_CHANGE_TRANSLATION | IBV_REREG_MR_CHANGE_PD;
        // SAFETY: live MR, PD and buffers.
        let (ret, sent) = with_kernel(k(), || unsafe {
            ibv_cmd_rereg_mr(&mut vmr, flags, 0x5000 as *mut c_void, 0x2000, 0x5000, 7, &mut pd,
                             &mut cmd.ibv_cmd, size_of::<DrvRereg>(), &mut resp, 8)
        });
        assert_eq!(ret, 0);
        // REREG_MR (11): 56 + 8 bytes = 16 words in, 8 bytes = 2 words out;
        // response, handle, flags, start, length, hca_va, PD, access, then
        // the provider's data.
        let expected = cat(&[
            &le32(11), &le16(16), &le16(2), &le64(&resp as *const _ as u64),
            &le32(0x10), &le32(flags), &le64(0x5000), &le64(0x2000), &le64(0x5000), &le32(0x20), &le32(7),
            &le64(0x77),
        ]);
        assert_eq!(sent[0].write_bytes(), &expected[..]);
        assert_eq!((vmr.ibv_mr.lkey, vmr.ibv_mr.rkey, vmr.ibv_mr.context), (0xa1, 0xb2, pd.context));

        // Without CHANGE_PD the PD (even NULL) is not used: handle 0.
        vmr.ibv_mr.context = ctx;
        // SAFETY: as above.
        let (ret, sent) = with_kernel(k(), || unsafe {
            ibv_cmd_rereg_mr(&mut vmr, IBV_REREG_MR_CHANGE_ACCESS, ptr::null_mut(), 0, 0, 1, ptr::null_mut(),
                             &mut cmd.ibv_cmd, size_of::<ibv_rereg_mr>(), &mut resp, 8)
        });
        assert_eq!(ret, 0);
        assert_eq!(&sent[0].write_bytes()[48..52], &le32(0));
        assert_eq!(vmr.ibv_mr.context, ctx);
        // CHANGE_PD with no PD: refused.
        // SAFETY: as above.
        let (ret, sent) = with_kernel(k(), || unsafe {
            ibv_cmd_rereg_mr(&mut vmr, IBV_REREG_MR_CHANGE_PD, ptr::null_mut(), 0, 0, 1, ptr::null_mut(),
                             &mut cmd.ibv_cmd, size_of::<ibv_rereg_mr>(), &mut resp, 8)
        });
        assert_eq!((ret, sent.len()), (libc::EINVAL, 0));
        let k = FakeKernel::new().on_write(|_| libc::EINVAL);
        vmr.ibv_mr.lkey = 1;
        // SAFETY: as above.
        let (ret, _) = with_kernel(k, || unsafe {
            ibv_cmd_rereg_mr(&mut vmr, 0, ptr::null_mut(), 0, 0, 1, ptr::null_mut(),
                             &mut cmd.ibv_cmd, size_of::<ibv_rereg_mr>(), &mut resp, 8)
        });
        assert_eq!((ret, vmr.ibv_mr.lkey), (libc::EINVAL, 1));
    }

    #[test]
    fn query_mr_writes_into_the_mr() {
        let mut t = TestCtx::new(1, false);
        // SAFETY: plain C structs.
        let (mut pd, mut vmr): (ibv_pd, verbs_mr) =
            unsafe { (zeroed_unchecked(), zeroed_unchecked()) };
        pd.context = t.ctx();
        vmr.ibv_mr.addr = 0x99 as *mut c_void;
        let k = FakeKernel::new().on_ioctl(|c| {
            c.write_out_val(1, 0x11u32);
            c.write_out_val(2, 0x22u32);
            c.write_out_val(3, 0x4000usize);
            0
        });
        // SAFETY: live PD and MR.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_query_mr(&mut pd, &mut vmr, 0x31) });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        // UVERBS_OBJECT_MR (7), QUERY_MR (3).
        assert_eq!((hdr.object_id, hdr.method_id), (7, 3));
        let mr = &vmr.ibv_mr;
        assert_eq!(
            attr_tuples(a),
            vec![
                (0, 0, 1, 0x31),
                (1, 4, 1, &mr.lkey as *const u32 as u64),
                (2, 4, 1, &mr.rkey as *const u32 as u64),
                (3, 8, 1, &mr.length as *const usize as u64),
            ]
        );
        assert_eq!((mr.handle, mr.lkey, mr.rkey, mr.length), (0x31, 0x11, 0x22, 0x4000));
        assert_eq!((mr.context, mr.pd, mr.addr), (pd.context, &mut pd as *mut ibv_pd, ptr::null_mut()));
        assert_eq!(vmr.mr_type, IBV_MR_TYPE_IMPORTED_MR);

        let k = FakeKernel::new().on_ioctl(|_| libc::ENOENT);
        vmr.mr_type = 0;
        // SAFETY: as above.
        let (ret, _) = with_kernel(k, || unsafe { ibv_cmd_query_mr(&mut pd, &mut vmr, 0x31) });
        assert_eq!((ret, vmr.mr_type), (libc::ENOENT, 0));
    }

    #[test]
    fn advise_mr_inline_and_pointer_lists() {
        let mut t = TestCtx::new(1, false);
        // SAFETY: plain C struct.
        let mut pd: ibv_pd = unsafe { zeroed_unchecked() };
        pd.context = t.ctx();
        pd.handle = 4;
        let mut sges = [
            ibv_sge { addr: 0x1000, length: 64, lkey: 1 },
            ibv_sge { addr: 0x2000, length: 128, lkey: 2 },
        ];
        // SAFETY: live PD and list.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe {
            ibv_cmd_advise_mr(&mut pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH, sges.as_mut_ptr(), 2)
        });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        // UVERBS_OBJECT_MR (7), ADVISE_MR (2).
        assert_eq!((hdr.object_id, hdr.method_id), (7, 2));
        assert_eq!(
            attr_tuples(a),
            vec![(0, 0, 1, 4), (1, 8, 1, 1), (2, 4, 1, 1), (3, 32, 1, sges.as_ptr() as u64)]
        );
        assert_eq!(sent[0].input(3).unwrap(), &cat(&[&le64(0x1000), &le32(64), &le32(1), &le64(0x2000), &le32(128), &le32(2)])[..]);

        // No entries: an empty attribute; the kernel's error comes back.
        let k = FakeKernel::new().on_ioctl(|_| libc::EOPNOTSUPP);
        // SAFETY: live PD; nothing is read from the NULL list.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_advise_mr(&mut pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, ptr::null_mut(), 0)
        });
        assert_eq!(ret, libc::EOPNOTSUPP);
        assert_eq!(attr_tuples(sent[0].ioctl().1)[3], (3, 0, 1, 0));
        // Too many to describe: EINVAL without a syscall.
        // SAFETY: the list is never read.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe {
            ibv_cmd_advise_mr(&mut pd, 0, 0, sges.as_mut_ptr(), 5000)
        });
        assert_eq!((ret, sent.len()), (libc::EINVAL, 0));
    }

    #[test]
    fn reg_dmabuf_mr() {
        let mut t = TestCtx::new(1, false);
        // SAFETY: plain C structs.
        let (mut pd, mut vmr): (ibv_pd, verbs_mr) =
            unsafe { (zeroed_unchecked(), zeroed_unchecked()) };
        pd.context = t.ctx();
        pd.handle = 6;
        let k = FakeKernel::new().on_ioctl(|c| {
            c.set_data(0, 0x71);
            c.write_out_val(7, 0x100u32);
            c.write_out_val(8, 0x200u32);
            0
        });
        let access = (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE) as c_int;
        // SAFETY: live PD and MR.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_reg_dmabuf_mr(&mut pd, 0x3000, 0x10000, 0x7f00_0000, 12, access, &mut vmr, ptr::null_mut())
        });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        // UVERBS_OBJECT_MR (7), REG_DMABUF_MR (4).
        assert_eq!((hdr.object_id, hdr.method_id, hdr.num_attrs), (7, 4, 9));
        let a = attr_tuples(a);
        assert_eq!(a[0], (0, 0, 1, 0));
        assert_eq!((a[1].0, a[1].1, a[2].0, a[2].1), (7, 4, 8, 4));
        assert_eq!(&a[3..], &[
            (1, 0, 1, 6), (2, 8, 1, 0x3000), (3, 8, 1, 0x10000), (4, 8, 1, 0x7f00_0000),
            (5, 4, 1, 12), (6, 4, 1, access as u64),
        ]);
        let mr = &vmr.ibv_mr;
        assert_eq!((mr.handle, mr.lkey, mr.rkey, mr.length, mr.addr), (0x71, 0x100, 0x200, 0x10000, 0x3000 as *mut c_void));
        assert_eq!((mr.context, mr.pd, vmr.mr_type), (pd.context, &mut pd as *mut ibv_pd, IBV_MR_TYPE_DMABUF_MR));
        let k = FakeKernel::new().on_ioctl(|_| libc::EBADF);
        // SAFETY: as above.
        let (ret, _) = with_kernel(k, || unsafe { ibv_cmd_reg_dmabuf_mr(&mut pd, 0, 1, 0, -1, 0, &mut vmr, ptr::null_mut()) });
        assert_eq!(ret, libc::EBADF);
    }

    /// The eighth argument is read only from providers of rdma-core 54 and
    /// later: an older provider's caller leaves anything there.
    #[test]
    fn reg_dmabuf_mr_driver_argument_by_release() {
        // SAFETY: plain C structs; an all-zero ops table is never called.
        let (mut pd, mut vmr, ops): (ibv_pd, verbs_mr, Box<verbs_device_ops>) =
            unsafe { (zeroed_unchecked(), zeroed_unchecked(), Box::new(zeroed_unchecked())) };
        let mut drv = CmdBuf::new(UVERBS_OBJECT_MR, UVERBS_METHOD_REG_DMABUF_MR, 1).unwrap();
        drv.fill_in_u32(0x1000, 0x66);
        // Not a command buffer: reading it as one would find no valid chain.
        let mut junk = [0xa5u8; 64];
        let junk_ptr = junk.as_mut_ptr().cast::<ibv_command_buffer>();
        let mut run = |release: Option<(u32, u32)>, driver: *mut ibv_command_buffer| {
            let mut t = TestCtx::new(1, false);
            t.dev.ops = &*ops;
            crate::provider_release::set_release_for_test(&*ops, release);
            pd.context = t.ctx();
            pd.handle = 6;
            let k = FakeKernel::new().on_ioctl(|_| 0);
            // SAFETY: live PD and MR; `driver` is read only when the
            // release says it is a chain.
            let (ret, sent) = with_kernel(k, || unsafe {
                ibv_cmd_reg_dmabuf_mr(&mut pd, 0, 0x1000, 0, 3, 0, &mut vmr, driver)
            });
            assert_eq!(ret, 0);
            let (hdr, a) = sent[0].ioctl();
            (hdr.num_attrs, attr_tuples(a).into_iter().map(|t| t.0).collect::<Vec<_>>())
        };
        // 56.1: the provider's attribute follows the nine of the method.
        let (n, ids) = run(Some((56, 1)), drv.as_ptr());
        assert_eq!((n, ids.last().copied()), (10, Some(0x1000)));
        // 54.0 and NULL: nothing linked.
        assert_eq!(run(Some((54, 0)), ptr::null_mut()).0, 9);
        // 44.0, 53.x or unknown: never read, whatever is there.
        for r in [Some((44, 0)), Some((53, 6)), None] {
            let (n, ids) = run(r, junk_ptr);
            assert_eq!(n, 9, "{r:?}");
            assert!(!ids.contains(&0x1000));
        }
        assert_eq!(junk, [0xa5u8; 64]);
        let _ = drv.as_ptr();
    }

    fn mr_init(comp_mask: u32) -> ibv_mr_init_attr {
        // SAFETY: plain C struct, valid when zero.
        let mut a: ibv_mr_init_attr = unsafe { zeroed_unchecked() };
        a.comp_mask = comp_mask as u64;
        a.length = 0x2000;
        a.access = (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ) as c_int;
        a.addr = 0x7000_0000 as *mut c_void;
        a.iova = 0x10_0000;
        a.fd = 12;
        a.fd_offset = 0x3000;
        a
    }

    /// A PD of `t`'s context, and an MR whose fields the caller of the
    /// helper (not the helper) fills, preset to be seen untouched.
    fn pd_and_mr(t: &mut TestCtx) -> (ibv_pd, verbs_mr) {
        // SAFETY: plain C structs, valid when zero.
        let (mut pd, mut vmr): (ibv_pd, verbs_mr) = unsafe { (zeroed_unchecked(), zeroed_unchecked()) };
        pd.context = t.ctx();
        pd.handle = 3;
        vmr.ibv_mr.length = 0x99;
        vmr.mr_type = IBV_MR_TYPE_NULL_MR;
        (pd, vmr)
    }

    fn answer_reg_mr(c: &mut IoctlCmd) -> c_int {
        c.set_data(UVERBS_ATTR_REG_MR_HANDLE, 0x41);
        c.write_out_val(UVERBS_ATTR_REG_MR_RESP_LKEY, 0x1111u32);
        c.write_out_val(UVERBS_ATTR_REG_MR_RESP_RKEY, 0x2222u32);
        0
    }

    #[test]
    fn reg_mr_ex_user_memory() {
        let mut t = TestCtx::new(1, false);
        let (mut pd, mut vmr) = pd_and_mr(&mut t);
        let mut attr = mr_init(IBV_REG_MR_MASK_ADDR);
        let access = attr.access as u64;
        // SAFETY: live PD, MR and attributes.
        let (ret, sent) = with_kernel(FakeKernel::new().on_ioctl(answer_reg_mr), || unsafe {
            ibv_cmd_reg_mr_ex(&mut pd, &mut vmr, &mut attr)
        });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        // UVERBS_OBJECT_MR (7), REG_MR (5). ADDR (4), the IOVA (3) defaulting
        // to it, the handle, the keys (9, 10), PD (1), LENGTH (5), ACCESS (6).
        assert_eq!((hdr.object_id, hdr.method_id, hdr.num_attrs), (7, 5, 8));
        let at = attr_tuples(a);
        assert_eq!(&at[..3], &[(4, 8, 1, 0x7000_0000), (3, 8, 1, 0x7000_0000), (0, 0, 1, 0)]);
        assert_eq!((at[3].0, at[3].1, at[4].0, at[4].1), (9, 4, 10, 4));
        assert_eq!(&at[5..], &[(1, 0, 1, 3), (5, 8, 1, 0x2000), (6, 4, 1, access)]);
        let mr = &vmr.ibv_mr;
        assert_eq!((mr.handle, mr.lkey, mr.rkey, mr.context), (0x41, 0x1111, 0x2222, pd.context));
        assert_eq!((vmr.mr_type, vmr.access), (IBV_MR_TYPE_MR, attr.access));
        assert_eq!((mr.length, mr.pd), (0x99, ptr::null_mut()), "left to the caller");

        // An explicit IOVA replaces the address as IOVA.
        attr.comp_mask |= IBV_REG_MR_MASK_IOVA as u64;
        // SAFETY: as above.
        let (ret, sent) = with_kernel(FakeKernel::new().on_ioctl(answer_reg_mr), || unsafe {
            ibv_cmd_reg_mr_ex(&mut pd, &mut vmr, &mut attr)
        });
        assert_eq!(ret, 0);
        assert_eq!(attr_tuples(&sent[0].ioctl().1[..2]), vec![(4, 8, 1, 0x7000_0000), (3, 8, 1, 0x10_0000)]);

        // Implicit on-demand MR: no address, all ones as length.
        let mut odp = mr_init(IBV_REG_MR_MASK_ADDR);
        odp.access = IBV_ACCESS_ON_DEMAND as c_int;
        odp.addr = ptr::null_mut();
        odp.length = usize::MAX;
        // SAFETY: as above.
        let (ret, sent) = with_kernel(FakeKernel::new().on_ioctl(answer_reg_mr), || unsafe {
            ibv_cmd_reg_mr_ex(&mut pd, &mut vmr, &mut odp)
        });
        assert_eq!(ret, 0);
        let a = sent[0].ioctl().1;
        assert_eq!(attr_tuples(&a[6..7]), vec![(5, 8, 1, u64::MAX)]);

        // The kernel's own refusal is final: no write().
        let k = FakeKernel::new().on_ioctl(|_| libc::EFAULT);
        // SAFETY: as above.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_reg_mr_ex(&mut pd, &mut vmr, &mut attr) });
        assert_eq!((ret, sent.len()), (libc::EFAULT, 1));
    }

    #[test]
    fn reg_mr_ex_dmabuf_with_dma_handle() {
        let mut t = TestCtx::new(1, false);
        let (mut pd, mut vmr) = pd_and_mr(&mut t);
        // SAFETY: plain C struct, valid when zero.
        let mut dmah: verbs_dmah = unsafe { zeroed_unchecked() };
        dmah.handle = 0x66;
        let mut attr = mr_init(
            IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET | IBV_REG_MR_MASK_IOVA | IBV_REG_MR_MASK_DMAH,
        );
        attr.dmah = &mut dmah.dmah;
        // SAFETY: live PD, MR, attributes and DMA handle.
        let (ret, sent) = with_kernel(FakeKernel::new().on_ioctl(answer_reg_mr), || unsafe {
            ibv_cmd_reg_mr_ex(&mut pd, &mut vmr, &mut attr)
        });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        assert_eq!((hdr.object_id, hdr.method_id, hdr.num_attrs), (7, 5, 10));
        let at = attr_tuples(a);
        // FD_OFFSET (8), FD (7, the descriptor in data), IOVA (3) ... and
        // last the DMA handle (2).
        assert_eq!(&at[..3], &[(8, 8, 1, 0x3000), (7, 0, 1, 12), (3, 8, 1, 0x10_0000)]);
        assert_eq!(at[9], (2, 0, 1, 0x66));
        assert!(at.iter().all(|x| x.0 != UVERBS_ATTR_REG_MR_ADDR));
        assert_eq!((vmr.ibv_mr.handle, vmr.mr_type), (0x41, IBV_MR_TYPE_DMABUF_MR));

        // A dma-buf without IOVA, or a DMA handle bit without a handle.
        for bad in [IBV_REG_MR_MASK_IOVA, 0] {
            let mut a = attr;
            a.comp_mask &= !(bad as u64);
            if bad == 0 {
                a.dmah = ptr::null_mut();
            }
            rdma_util::ffi::set_errno(0);
            // SAFETY: as above.
            let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_reg_mr_ex(&mut pd, &mut vmr, &mut a) });
            assert_eq!((ret, rdma_util::ffi::errno(), sent.len()), (libc::EINVAL, libc::EINVAL, 0), "bad {bad}");
        }
    }

    #[test]
    fn reg_mr_ex_refuses_inconsistent_masks_without_a_command() {
        let mut t = TestCtx::new(1, false);
        let (mut pd, mut vmr) = pd_and_mr(&mut t);
        let cases = [
            // dma-buf without its offset, or with an address too
            IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_IOVA,
            IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET | IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_IOVA,
            // user memory without an address, or with a dma-buf offset
            IBV_REG_MR_MASK_IOVA,
            IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_FD_OFFSET,
        ];
        for mask in cases {
            let mut attr = mr_init(mask);
            rdma_util::ffi::set_errno(0);
            // SAFETY: live PD, MR and attributes.
            let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_reg_mr_ex(&mut pd, &mut vmr, &mut attr) });
            assert_eq!((ret, rdma_util::ffi::errno(), sent.len()), (libc::EINVAL, libc::EINVAL, 0), "mask {mask:#x}");
        }
        // On-demand paging of everything cannot start at an address.
        let mut attr = mr_init(IBV_REG_MR_MASK_ADDR);
        attr.access = IBV_ACCESS_ON_DEMAND as c_int;
        attr.length = usize::MAX;
        // SAFETY: as above.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_reg_mr_ex(&mut pd, &mut vmr, &mut attr) });
        assert_eq!((ret, sent.len()), (libc::EINVAL, 0));
        // SAFETY: NULL arguments are refused before use.
        assert_eq!(unsafe { ibv_cmd_reg_mr_ex(&mut pd, &mut vmr, ptr::null_mut()) }, libc::EINVAL);
    }

    #[test]
    fn reg_mr_ex_without_the_method_falls_back_to_reg_mr_for_user_memory() {
        let mut t = TestCtx::new(1, false);
        let (mut pd, mut vmr) = pd_and_mr(&mut t);
        let mut attr = mr_init(IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_IOVA);
        let k = || {
            FakeKernel::new().on_ioctl(|_| libc::EPROTONOSUPPORT).on_write(|w| {
                w.respond(&cat(&[&le32(0x42), &le32(0x3333), &le32(0x4444)]));
                0
            })
        };
        // SAFETY: live PD, MR and attributes.
        let (ret, sent) = with_kernel(k(), || unsafe { ibv_cmd_reg_mr_ex(&mut pd, &mut vmr, &mut attr) });
        assert_eq!(ret, 0);
        assert_eq!(sent.len(), 2);
        let b = sent[1].write_bytes();
        // REG_MR (9), 12 words in, 3 out; after the response address: start,
        // length, the IOVA as hca_va, the PD, the access flags.
        assert_eq!(&b[..8], &cat(&[&le32(9), &le16(12), &le16(3)])[..]);
        assert_eq!(
            &b[16..],
            &cat(&[&le64(0x7000_0000), &le64(0x2000), &le64(0x10_0000), &le32(3), &le32(attr.access as u32)])[..]
        );
        let mr = &vmr.ibv_mr;
        assert_eq!((mr.handle, mr.lkey, mr.rkey, mr.context), (0x42, 0x3333, 0x4444, pd.context));
        assert_eq!((vmr.mr_type, vmr.access), (IBV_MR_TYPE_MR, attr.access));
        // The context remembers: the next registration skips the ioctl.
        assert!(t.state().ioctl_unsupported(REG_MR_EX_BIT));
        // SAFETY: as above.
        let (ret, sent) = with_kernel(k(), || unsafe { ibv_cmd_reg_mr_ex(&mut pd, &mut vmr, &mut attr) });
        assert_eq!(ret, 0);
        assert_eq!(sent.len(), 1);
        assert!(!sent[0].write_bytes().is_empty(), "a write(), not an ioctl");

        // A dma-buf, or a DMA handle, has no write() form.
        // SAFETY: plain C struct, valid when zero.
        let mut dmah: verbs_dmah = unsafe { zeroed_unchecked() };
        let mut with_dmah = attr;
        with_dmah.comp_mask |= IBV_REG_MR_MASK_DMAH as u64;
        with_dmah.dmah = &mut dmah.dmah;
        let dmabuf = mr_init(IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET | IBV_REG_MR_MASK_IOVA);
        for mut a in [with_dmah, dmabuf] {
            rdma_util::ffi::set_errno(0);
            // SAFETY: as above.
            let (ret, sent) = with_kernel(k(), || unsafe { ibv_cmd_reg_mr_ex(&mut pd, &mut vmr, &mut a) });
            assert_eq!((ret, rdma_util::ffi::errno(), sent.len()), (libc::EOPNOTSUPP, libc::EOPNOTSUPP, 0));
        }

        // A kernel without any ioctl (ENOTTY) marks this operation too.
        let mut t = TestCtx::new(1, false);
        let (mut pd, mut vmr) = pd_and_mr(&mut t);
        let k = FakeKernel::new().on_ioctl(|_| libc::ENOTTY);
        // SAFETY: as above.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_reg_mr_ex(&mut pd, &mut vmr, &mut attr) });
        assert_eq!((ret, sent.len()), (0, 2));
        assert!(t.state().ioctl_unsupported(REG_MR_EX_BIT));
    }
}
