//! Multicast attach/detach (upstream's `cmd.c`; write() commands only).

use core::mem::size_of;
use libc::c_int;

use super::is_destroy_err;
use super::write::execute_cmd_write_req;
use crate::abi::kern::*;
use crate::abi::verbs::*;
use rdma_util::ensure;

unsafe fn mcast_core(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> ib_uverbs_attach_mcast {
    // SAFETY: caller passes a live QP and GID.
    unsafe {
        ib_uverbs_attach_mcast {
            gid: (*gid).raw,
            qp_handle: (*qp).handle,
            mlid: lid,
            reserved: 0,
            driver_data: [],
        }
    }
}

rdma_util::export_versioned! {
    /// Attaches a QP to a multicast group. Returns 0 or an errno value.
    fn ibv_cmd_attach_mcast(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(!qp.is_null() && !gid.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live QP and GID.
        unsafe {
            let mut req = ibv_attach_mcast { hdr: Default::default(), core_payload: mcast_core(qp, gid, lid) };
            execute_cmd_write_req((*qp).context, &mut req, size_of::<ibv_attach_mcast>())
        }
    }
}
private_abi_both!(ibv_cmd_attach_mcast);

rdma_util::export_versioned! {
    /// Detaches a QP from a multicast group. Returns 0 or an errno value;
    /// EIO counts as success when disassociated destroy is allowed.
    fn ibv_cmd_detach_mcast(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(!qp.is_null() && !gid.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live QP and GID.
        let mut ret = unsafe {
            let c = mcast_core(qp, gid, lid);
            let mut req = ibv_detach_mcast {
                hdr: Default::default(),
                core_payload: ib_uverbs_detach_mcast {
                    gid: c.gid, qp_handle: c.qp_handle, mlid: c.mlid, reserved: 0, driver_data: [],
                },
            };
            execute_cmd_write_req((*qp).context, &mut req, size_of::<ibv_detach_mcast>())
        };
        is_destroy_err(&mut ret);
        ret
    }
}
private_abi_both!(ibv_cmd_detach_mcast);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::kernel::*;
    use rdma_util::mem::zeroed_unchecked;

    #[test]
    fn attach_and_detach() {
        let _g = disassoc_lock();
        let mut t = TestCtx::new(1, false);
        // SAFETY: plain C structs.
        let (mut qp, mut gid): (ibv_qp, ibv_gid) =
            unsafe { (zeroed_unchecked(), zeroed_unchecked()) };
        qp.context = t.ctx();
        qp.handle = 0x21;
        gid.raw = [0xff, 0x12, 0x40, 0x1b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
        // SAFETY: live QP and GID.
        let (r, sent) = with_kernel(FakeKernel::new(), || unsafe {
            (
                ibv_cmd_attach_mcast(&mut qp, &gid, 0xc001),
                ibv_cmd_detach_mcast(&mut qp, &gid, 0xc001),
            )
        });
        assert_eq!(r, (0, 0));
        // SAFETY: reading the union's bytes.
        let g = unsafe { gid.raw };
        // ATTACH_MCAST (30) / DETACH_MCAST (31): 32 bytes = 8 words.
        for (s, cmd) in sent.iter().zip([30u32, 31]) {
            let expected = cat(&[
                &le32(cmd),
                &le16(8),
                &le16(0),
                &g,
                &le32(0x21),
                &le16(0xc001),
                &le16(0),
            ]);
            assert_eq!(s.write_bytes(), &expected[..]);
        }
        let k = || FakeKernel::new().on_write(|_| libc::EIO);
        crate::cmd::set_allow_disassociate_destroy(true);
        // SAFETY: live QP and GID.
        let (r, _) = with_kernel(k(), || unsafe {
            (
                ibv_cmd_attach_mcast(&mut qp, &gid, 1),
                ibv_cmd_detach_mcast(&mut qp, &gid, 1),
            )
        });
        crate::cmd::set_allow_disassociate_destroy(false);
        assert_eq!(r, (libc::EIO, 0), "only detach is a destroy");
    }
}
