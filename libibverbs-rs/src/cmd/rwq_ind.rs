//! Receive WQ indirection tables, for RSS (upstream's
//! `ibv_cmd_create_rwq_ind_table` in `cmd.c` and `cmd_rwq_ind.c`).
//!
//! Creation only exists as an extended write() command (the table of WQ
//! handles follows the core struct); destruction tries the ioctl first.

use core::mem::size_of;
use libc::c_int;

use super::ioctl::{CmdBuf, CmdSpace};
use super::write::{
    execute_cmd_write_ex_raw, execute_cmd_write_ex_req, execute_ioctl_fallback, fallback_result,
    Fallback,
};
use super::is_destroy_err;
use crate::abi::kern::*;
use crate::abi::verbs::*;
use rdma_util::ffi::set_errno;
use crate::cmd::cmd_bit;
use rdma_util::ensure;

/// `ibv_cmd_create_rwq_ind_table`.
///
/// # Safety
/// `context`, `init`, `table` and `resp` (`resp_size` bytes) are live;
/// `init->ind_tbl` holds `1 << log_ind_tbl_size` WQ pointers.
unsafe fn create_rwq_ind_table(
    context: *mut ibv_context,
    init: *mut ibv_rwq_ind_table_init_attr,
    table: *mut ibv_rwq_ind_table,
    resp: *mut ib_uverbs_ex_create_rwq_ind_table_resp,
    resp_size: usize,
) -> c_int {
    // SAFETY (whole function): caller guarantee; the WQ array and its
    // entries are checked before use.
    unsafe {
        if (*init).comp_mask >= IBV_CREATE_IND_TABLE_RESERVED {
            return libc::EINVAL;
        }
        let log = (*init).log_ind_tbl_size;
        // C shifts an int here; sizes it could not express are refused.
        if log >= 31 || (*init).ind_tbl.is_null() {
            set_errno(libc::EINVAL);
            return libc::EINVAL;
        }
        let entries = 1usize << log;
        let hsz = size_of::<ibv_create_rwq_ind_table>();
        // The whole command must be a multiple of 8 bytes.
        let cmd_size = (hsz + entries * 4).div_ceil(8) * 8;
        let mut buf: Vec<u64> = Vec::new();
        if buf.try_reserve_exact(cmd_size / 8).is_err() {
            set_errno(libc::ENOMEM);
            return libc::ENOMEM;
        }
        buf.resize(cmd_size / 8, 0);
        let cmd = buf.as_mut_ptr().cast::<ibv_create_rwq_ind_table>();
        let handles = buf.as_mut_ptr().cast::<u8>().add(hsz).cast::<u32>();
        for i in 0..entries {
            let wq = *(*init).ind_tbl.add(i);
            if wq.is_null() {
                set_errno(libc::EINVAL);
                return libc::EINVAL;
            }
            *handles.add(i) = (*wq).handle;
        }
        (*cmd).core_payload.log_ind_tbl_size = log;
        (*cmd).core_payload.comp_mask = 0;

        let ret = execute_cmd_write_ex_raw(
            context,
            IB_USER_VERBS_EX_CMD_CREATE_RWQ_IND_TBL,
            cmd.cast(),
            cmd_size,
            cmd_size,
            resp.cast(),
            size_of::<ib_uverbs_ex_create_rwq_ind_table_resp>(),
            resp_size,
        );
        if ret != 0 {
            return ret;
        }
        // A kernel that did not fill the whole response is too old.
        if ((*resp).response_length as usize) < size_of::<ib_uverbs_ex_create_rwq_ind_table_resp>() {
            return libc::EINVAL;
        }
        (*table).ind_tbl_handle = (*resp).ind_tbl_handle as c_int;
        (*table).ind_tbl_num = (*resp).ind_tbl_num as c_int;
        (*table).context = context;
    }
    0
}

rdma_util::export_versioned! {
    /// Creates an RSS indirection table over `1 << log_ind_tbl_size` WQs
    /// (extended write() command; the provider's response data follows
    /// `resp`). Fills the table's handle, number and context. Returns 0 or
    /// an errno value.
    fn ibv_cmd_create_rwq_ind_table(context: *mut ibv_context,
                                    init_attr: *mut ibv_rwq_ind_table_init_attr,
                                    rwq_ind_table: *mut ibv_rwq_ind_table,
                                    resp: *mut ib_uverbs_ex_create_rwq_ind_table_resp,
                                    resp_size: usize) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!context.is_null() && !init_attr.is_null() && !rwq_ind_table.is_null()
                && !resp.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes its live context, attributes, table
        // and response buffer.
        unsafe { create_rwq_ind_table(context, init_attr, rwq_ind_table, resp, resp_size) }
    }
}
private_abi_both!(ibv_cmd_create_rwq_ind_table);

/// `ibv_cmd_destroy_rwq_ind_table`.
///
/// # Safety
/// `table` is a live table of a live context.
pub(crate) unsafe fn destroy_rwq_ind_table(table: *mut ibv_rwq_ind_table) -> c_int {
    // SAFETY (whole function): caller guarantee.
    unsafe {
        let ctx = (*table).context;
        let handle = (*table).ind_tbl_handle as u32;
        let mut cmd_space = CmdSpace::new();
        let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_RWQ_IND_TBL, UVERBS_METHOD_RWQ_IND_TBL_DESTROY, 1)
        {
            Ok(b) => b,
            Err(e) => return e,
        };
        cmdb.fill_in_obj(UVERBS_ATTR_DESTROY_RWQ_IND_TBL_HANDLE, handle);
        // Upstream files this command under destroy_ah's "ioctl
        // unsupported" bit; kept, so both fall back together.
        let mut ret = match execute_ioctl_fallback(ctx, cmd_bit!(destroy_ah), cmdb.as_ptr()) {
            Fallback::TryWrite => {
                let mut req = ibv_destroy_rwq_ind_table::default();
                req.core_payload.ind_tbl_handle = handle;
                execute_cmd_write_ex_req(ctx, &mut req, size_of::<ibv_destroy_rwq_ind_table>())
            }
            f => fallback_result(f),
        };
        is_destroy_err(&mut ret);
        ret
    }
}

rdma_util::export_versioned! {
    /// Destroys an RSS indirection table (ioctl, or the extended write() on
    /// older kernels). Returns 0 or an errno value; EIO counts as success
    /// when disassociated destroy is allowed.
    fn ibv_cmd_destroy_rwq_ind_table(rwq_ind_table: *mut ibv_rwq_ind_table) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(!rwq_ind_table.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live table.
        unsafe { destroy_rwq_ind_table(rwq_ind_table) }
    }
}
private_abi_both!(ibv_cmd_destroy_rwq_ind_table);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::kernel::*;
    use rdma_util::mem::zeroed_unchecked;
    use core::ptr;

    fn wqs(n: usize) -> Vec<ibv_wq> {
        (0..n)
            .map(|i| {
                // SAFETY: plain C struct.
                let mut w: ibv_wq = unsafe { zeroed_unchecked() };
                w.handle = 0x100 + i as u32;
                w
            })
            .collect()
    }

    #[repr(C)]
    #[derive(Default)]
    struct DrvResp {
        ibv_resp: ib_uverbs_ex_create_rwq_ind_table_resp,
        drv: u64,
    }

    #[test]
    fn create_table_of_two_and_of_one() {
        let mut t = TestCtx::new(1, false);
        let ctx = t.ctx();
        let mut w = wqs(2);
        let mut ptrs: Vec<*mut ibv_wq> = w.iter_mut().map(|b| b as *mut ibv_wq).collect();
        let mut init = ibv_rwq_ind_table_init_attr { log_ind_tbl_size: 1, ind_tbl: ptrs.as_mut_ptr(), comp_mask: 0 };
        // SAFETY: plain C struct.
        let mut tbl: ibv_rwq_ind_table = unsafe { zeroed_unchecked() };
        let mut resp = DrvResp::default();
        let k = FakeKernel::new().on_write(|w| {
            w.respond(&cat(&[&le32(0), &le32(16), &le32(0x9), &le32(0x300), &le64(0x55)]));
            0
        });
        // SAFETY: live context, attributes, table and response.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_create_rwq_ind_table(ctx, &mut init, &mut tbl, &mut resp.ibv_resp, size_of::<DrvResp>())
        });
        assert_eq!(ret, 0);
        // Extended CREATE_RWQ_IND_TBL (0x80000037): core 8 + 2 handles = 16
        // bytes = 2 words; 16-byte response = 2 words; 1 provider word out.
        let expected = cat(&[
            &le32(0x8000_0037), &le16(2), &le16(2), &le64(&resp as *const _ as u64),
            &le16(0), &le16(1), &le32(0),
            &le32(0), &le32(1), &le32(0x100), &le32(0x101),
        ]);
        assert_eq!(sent[0].write_bytes(), &expected[..]);
        assert_eq!((tbl.ind_tbl_handle, tbl.ind_tbl_num, tbl.context), (9, 0x300, ctx));
        assert_eq!(resp.drv, 0x55);

        // One entry: 8 + 4 bytes, padded to 16.
        init.log_ind_tbl_size = 0;
        let k = FakeKernel::new().on_write(|w| {
            w.respond(&cat(&[&le32(0), &le32(16), &le32(1), &le32(2)]));
            0
        });
        // SAFETY: as above.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_create_rwq_ind_table(ctx, &mut init, &mut tbl, &mut resp.ibv_resp, 16)
        });
        assert_eq!(ret, 0);
        let b = sent[0].write_bytes();
        assert_eq!(b.len(), 40);
        assert_eq!(&b[4..6], &le16(2));
        assert_eq!(&b[24..], &cat(&[&le32(0), &le32(0), &le32(0x100), &le32(0)])[..]);
    }

    #[test]
    fn create_table_errors() {
        let mut t = TestCtx::new(1, false);
        let ctx = t.ctx();
        let mut w = wqs(1);
        let mut ptrs: Vec<*mut ibv_wq> = w.iter_mut().map(|b| b as *mut ibv_wq).collect();
        let mut init = ibv_rwq_ind_table_init_attr { log_ind_tbl_size: 0, ind_tbl: ptrs.as_mut_ptr(), comp_mask: 0 };
        // SAFETY: plain C struct.
        let mut tbl: ibv_rwq_ind_table = unsafe { zeroed_unchecked() };
        let mut resp = ib_uverbs_ex_create_rwq_ind_table_resp::default();
        let mut call = |init: &mut ibv_rwq_ind_table_init_attr, k: FakeKernel| {
            // SAFETY: live context, attributes, table and response.
            with_kernel(k, || unsafe { ibv_cmd_create_rwq_ind_table(ctx, init, &mut tbl, &mut resp, 16) })
        };
        // A kernel answering with a short response: EINVAL.
        let k = FakeKernel::new().on_write(|w| {
            w.respond(&cat(&[&le32(0), &le32(8), &le32(1), &le32(2)]));
            0
        });
        assert_eq!(call(&mut init, k).0, libc::EINVAL);
        assert_eq!(call(&mut init, FakeKernel::new().on_write(|_| libc::EOPNOTSUPP)).0, libc::EOPNOTSUPP);
        init.comp_mask = IBV_CREATE_IND_TABLE_RESERVED;
        let (ret, sent) = call(&mut init, FakeKernel::new());
        assert_eq!((ret, sent.len()), (libc::EINVAL, 0));
        init.comp_mask = 0;
        // SAFETY: writing through the pointer the attributes hold.
        unsafe { *init.ind_tbl = ptr::null_mut() };
        let (ret, sent) = call(&mut init, FakeKernel::new());
        assert_eq!((ret, sent.len()), (libc::EINVAL, 0));
    }

    #[test]
    fn destroy_table_shares_destroy_ahs_fallback_bit() {
        let mut t = TestCtx::new(1, false);
        // SAFETY: plain C struct.
        let mut tbl: ibv_rwq_ind_table = unsafe { zeroed_unchecked() };
        tbl.context = t.ctx();
        tbl.ind_tbl_handle = 0x12;
        // SAFETY: live table.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_destroy_rwq_ind_table(&mut tbl) });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        // UVERBS_OBJECT_RWQ_IND_TBL (11), DESTROY (0).
        assert_eq!((hdr.object_id, hdr.method_id), (11, 0));
        assert_eq!(attr_tuples(a), vec![(0, 0, 1, 0x12)]);

        let k = FakeKernel::new().on_ioctl(|_| libc::EPROTONOSUPPORT);
        // SAFETY: live table.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_destroy_rwq_ind_table(&mut tbl) });
        assert_eq!(ret, 0);
        // Extended DESTROY_RWQ_IND_TBL (0x80000038): 8-byte core = 1 word.
        let expected = cat(&[
            &le32(0x8000_0038), &le16(1), &le16(0), &le64(0), &le16(0), &le16(0), &le32(0),
            &le32(0), &le32(0x12),
        ]);
        assert_eq!(sent[1].write_bytes(), &expected[..]);
        assert!(t.state().ioctl_unsupported(cmd_bit!(destroy_ah)));
    }
}
