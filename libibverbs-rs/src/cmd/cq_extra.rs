//! CQ moderation (upstream's `ibv_cmd_modify_cq` in `cmd.c`): an extended
//! write()-only command, kept apart from the CQ life-cycle helpers.

use core::ptr::addr_of_mut;
use libc::c_int;

use super::write::execute_cmd_write_ex_req;
use crate::abi::kern::*;
use crate::abi::verbs::*;
use rdma_util::ensure;

rdma_util::export_versioned! {
    /// Changes a CQ's moderation (completion count and period) with the
    /// extended write() command MODIFY_CQ, provider data after `cmd`.
    /// Unknown attribute bits give EINVAL. Returns 0 or an errno value.
    fn ibv_cmd_modify_cq(cq: *mut ibv_cq, attr: *mut ibv_modify_cq_attr, cmd: *mut ibv_modify_cq,
                         cmd_size: usize) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!cq.is_null() && !attr.is_null() && !cmd.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live CQ, attributes and a command of
        // cmd_size bytes.
        unsafe {
            if (*attr).attr_mask >= IBV_CQ_ATTR_RESERVED {
                return libc::EINVAL;
            }
            let c = addr_of_mut!((*cmd).core_payload);
            (*c).cq_handle = (*cq).handle;
            (*c).attr_mask = (*attr).attr_mask;
            (*c).attr.cq_count = (*attr).moderate.cq_count;
            (*c).attr.cq_period = (*attr).moderate.cq_period;
            (*c).reserved = 0;
            execute_cmd_write_ex_req((*cq).context, cmd, cmd_size)
        }
    }
}
private_abi_both!(ibv_cmd_modify_cq);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::kernel::*;
    use rdma_util::mem::zeroed_unchecked;
    use core::mem::size_of;

    #[repr(C)]
    #[derive(Default)]
    struct DrvModifyCq {
        ibv_cmd: ibv_modify_cq,
        drv: u64,
    }

    #[test]
    fn modify_cq_command() {
        let mut t = TestCtx::new(1, false);
        // SAFETY: plain C struct.
        let mut cq: ibv_cq = unsafe { zeroed_unchecked() };
        cq.context = t.ctx();
        cq.handle = 0x17;
        let mut attr = ibv_modify_cq_attr { attr_mask: IBV_CQ_ATTR_MODERATE, moderate: ibv_moderate_cq { cq_count: 16, cq_period: 100 } };
        let mut cmd = DrvModifyCq { drv: 0x42, ..Default::default() };
        cmd.ibv_cmd.core_payload.reserved = 0xffff;
        // SAFETY: live CQ, attributes and command.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe {
            ibv_cmd_modify_cq(&mut cq, &mut attr, &mut cmd.ibv_cmd, size_of::<DrvModifyCq>())
        });
        assert_eq!(ret, 0);
        // Extended MODIFY_CQ (0x80000039): 16-byte core = 2 words, no
        // response, 1 provider word.
        let expected = cat(&[
            &le32(0x8000_0039), &le16(2), &le16(0), &le64(0), &le16(1), &le16(0), &le32(0),
            &le32(0x17), &le32(1), &le16(16), &le16(100), &le32(0), &le64(0x42),
        ]);
        assert_eq!(sent[0].write_bytes(), &expected[..]);

        let k = FakeKernel::new().on_write(|_| libc::EOPNOTSUPP);
        // SAFETY: as above.
        let (ret, _) = with_kernel(k, || unsafe {
            ibv_cmd_modify_cq(&mut cq, &mut attr, &mut cmd.ibv_cmd, size_of::<DrvModifyCq>())
        });
        assert_eq!(ret, libc::EOPNOTSUPP);
        attr.attr_mask = IBV_CQ_ATTR_RESERVED;
        rdma_util::ffi::set_errno(0);
        // SAFETY: as above.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe {
            ibv_cmd_modify_cq(&mut cq, &mut attr, &mut cmd.ibv_cmd, size_of::<DrvModifyCq>())
        });
        assert_eq!((ret, sent.len(), rdma_util::ffi::errno()), (libc::EINVAL, 0, 0));
    }
}
