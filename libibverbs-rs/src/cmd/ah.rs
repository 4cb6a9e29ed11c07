//! Address handles (upstream's `ibv_cmd_create_ah` in `cmd.c` and
//! `cmd_ah.c`).

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

/// `ibv_cmd_create_ah`.
///
/// # Safety
/// `pd`, `ah`, `attr` live; `resp` writable for `resp_size` bytes.
pub(crate) unsafe fn create_ah(
    pd: *mut ibv_pd,
    ah: *mut ibv_ah,
    attr: *const ibv_ah_attr,
    resp: *mut ib_uverbs_create_ah_resp,
    resp_size: usize,
) -> c_int {
    // SAFETY (whole function): caller guarantee.
    unsafe {
        let a = &*attr;
        let mut cmd = ibv_create_ah::default();
        let c = &mut cmd.core_payload;
        c.user_handle = ah as usize as u64;
        c.pd_handle = (*pd).handle;
        c.reserved = 0;
        c.attr = ib_uverbs_ah_attr {
            grh: ib_uverbs_global_route {
                dgid: a.grh.dgid.raw,
                flow_label: a.grh.flow_label,
                sgid_index: a.grh.sgid_index,
                hop_limit: a.grh.hop_limit,
                traffic_class: a.grh.traffic_class,
                reserved: 0,
            },
            dlid: a.dlid,
            sl: a.sl,
            src_path_bits: a.src_path_bits,
            static_rate: a.static_rate,
            is_global: a.is_global,
            port_num: a.port_num,
            reserved: 0,
        };
        let ctx = (*pd).context;
        let ret = execute_cmd_write(ctx, &mut cmd, size_of::<ibv_create_ah>(), resp, resp_size);
        if ret != 0 {
            return ret;
        }
        (*ah).handle = (*resp).ah_handle;
        (*ah).context = ctx;
    }
    0
}

rdma_util::export_versioned! {
    /// Creates an address handle (write() command; the provider's data, if
    /// any, only in the response). Sets `ah->handle` and `ah->context`.
    /// Returns 0 or an errno value.
    fn ibv_cmd_create_ah(pd: *mut ibv_pd, ah: *mut ibv_ah, attr: *mut ibv_ah_attr,
                         resp: *mut ib_uverbs_create_ah_resp, resp_size: usize) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(!pd.is_null() && !ah.is_null() && !attr.is_null() && !resp.is_null(),
                libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes live objects and buffers.
        unsafe { create_ah(pd, ah, attr, resp, resp_size) }
    }
}
private_abi_both!(ibv_cmd_create_ah);

/// `ibv_cmd_destroy_ah`.
///
/// # Safety
/// `ah` is a live AH of a live context.
pub(crate) unsafe fn destroy_ah(ah: *mut ibv_ah) -> c_int {
    // SAFETY (whole function): caller guarantee.
    unsafe {
        let ctx = (*ah).context;
        let mut cmd_space = CmdSpace::new();
        let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_AH, UVERBS_METHOD_AH_DESTROY, 1) {
            Ok(b) => b,
            Err(e) => return e,
        };
        cmdb.fill_in_obj(UVERBS_ATTR_DESTROY_AH_HANDLE, (*ah).handle);
        let mut ret = match execute_ioctl_fallback(ctx, cmd_bit!(destroy_ah), cmdb.as_ptr()) {
            Fallback::TryWrite => {
                let mut req = ibv_destroy_ah::default();
                req.core_payload.ah_handle = (*ah).handle;
                execute_cmd_write_req(ctx, &mut req, size_of::<ibv_destroy_ah>())
            }
            f => fallback_result(f),
        };
        is_destroy_err(&mut ret);
        ret
    }
}

rdma_util::export_versioned! {
    /// Destroys an address handle. Returns 0 or an errno value; EIO counts
    /// as success when disassociated destroy is allowed.
    fn ibv_cmd_destroy_ah(ah: *mut ibv_ah) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!ah.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live AH.
        unsafe { destroy_ah(ah) }
    }
}
private_abi_both!(ibv_cmd_destroy_ah);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::kernel::*;
    use rdma_util::mem::zeroed_unchecked;

    #[test]
    fn create_ah_translates_the_attributes() {
        let mut t = TestCtx::new(1, false);
        // SAFETY: plain C structs.
        let (mut pd, mut ah, mut attr): (ibv_pd, ibv_ah, ibv_ah_attr) =
            unsafe { (zeroed_unchecked(), zeroed_unchecked(), zeroed_unchecked()) };
        pd.context = t.ctx();
        pd.handle = 3;
        attr.grh.dgid.raw = [0xfe, 0x80, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8];
        attr.grh.flow_label = 0x12345;
        attr.grh.sgid_index = 1;
        attr.grh.hop_limit = 64;
        attr.grh.traffic_class = 3;
        attr.dlid = 0x20;
        attr.sl = 2;
        attr.src_path_bits = 1;
        attr.static_rate = 7;
        attr.is_global = 1;
        attr.port_num = 1;
        #[repr(C)]
        #[derive(Default)]
        struct Resp {
            core: ib_uverbs_create_ah_resp,
            drv: [u32; 3],
        }
        let mut resp = Resp::default();
        let k = FakeKernel::new().on_write(|w| {
            w.respond(&cat(&[&le32(11), &le32(1), &le32(2), &le32(3)]));
            0
        });
        // SAFETY: live objects and buffers.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_create_ah(
                &mut pd,
                &mut ah,
                &mut attr,
                &mut resp.core,
                size_of::<Resp>(),
            )
        });
        assert_eq!(ret, 0);
        assert_eq!((ah.handle, ah.context), (11, pd.context));
        assert_eq!(resp.drv, [1, 2, 3]);
        // CREATE_AH (5): 64 bytes = 16 words in, 16 = 4 words out.
        let expected = cat(&[
            &le32(5),
            &le16(16),
            &le16(4),
            &le64(&resp as *const _ as u64),
            &le64(&ah as *const _ as u64),
            &le32(3),
            &le32(0),
            &attr.grh.dgid.raw_bytes(),
            &le32(0x12345),
            &[1, 64, 3, 0],
            &le16(0x20),
            &[2, 1, 7, 1, 1, 0],
        ]);
        assert_eq!(sent[0].write_bytes(), &expected[..]);
    }

    trait RawBytes {
        fn raw_bytes(&self) -> [u8; 16];
    }
    impl RawBytes for ibv_gid {
        fn raw_bytes(&self) -> [u8; 16] {
            // SAFETY: both members of the union are plain bytes.
            unsafe { self.raw }
        }
    }

    #[test]
    fn destroy_ah() {
        let mut t = TestCtx::new(1, false);
        // SAFETY: plain C struct.
        let mut ah: ibv_ah = unsafe { zeroed_unchecked() };
        ah.context = t.ctx();
        ah.handle = 9;
        // SAFETY: live AH.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_destroy_ah(&mut ah) });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        // UVERBS_OBJECT_AH (6), UVERBS_METHOD_AH_DESTROY (0).
        assert_eq!((hdr.object_id, hdr.method_id), (6, 0));
        assert_eq!(attr_tuples(a), vec![(0, 0, 1, 9)]);
        let k = FakeKernel::new().on_ioctl(|_| libc::EPROTONOSUPPORT);
        // SAFETY: live AH.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_destroy_ah(&mut ah) });
        assert_eq!(ret, 0);
        // DESTROY_AH (8), 3 words.
        assert_eq!(
            sent[1].write_bytes(),
            &cat(&[&le32(8), &le16(3), &le16(0), &le32(9)])[..]
        );
    }
}
