//! Multicast group membership (verbs.c): ibv_attach_mcast, ibv_detach_mcast.
//! Both go straight to the provider (rxe and the kernel-backed providers
//! call ibv_cmd_attach_mcast / ibv_cmd_detach_mcast, cmd/mcast.rs).

use std::ffi::c_int;

use crate::abi::verbs::*;
use crate::ctx_priv::ops_of;
use rdma_util::{ensure, export_versioned, symver};

fn usable(qp: *mut ibv_qp, gid: *const ibv_gid) -> bool {
    // SAFETY: dereferenced only when non-NULL; the caller's QP.
    !qp.is_null() && !gid.is_null() && !unsafe { (*qp).context }.is_null()
}

export_versioned! {
    /// ibv_attach_mcast@@IBVERBS_1.1: 0 or an errno value.
    fn ibv_attach_mcast_v11(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int, on_panic = libc::EIO;
    {
        ensure!(usable(qp, gid), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked above; the application's QP, whose context is a live context of this library.
        let Some(f) = unsafe { ops_of((*qp).context) }.attach_mcast else { return libc::EOPNOTSUPP };
        // SAFETY: provider op with the caller's arguments.
        unsafe { f(qp, gid, lid) }
    }
}
symver!(default ibv_attach_mcast, "IBVERBS_1.1", ibv_attach_mcast_v11);

export_versioned! {
    /// ibv_detach_mcast@@IBVERBS_1.1: 0 or an errno value.
    fn ibv_detach_mcast_v11(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int, on_panic = libc::EIO;
    {
        ensure!(usable(qp, gid), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked above; the application's QP, whose context is a live context of this library.
        let Some(f) = unsafe { ops_of((*qp).context) }.detach_mcast else { return libc::EOPNOTSUPP };
        // SAFETY: provider op with the caller's arguments.
        unsafe { f(qp, gid, lid) }
    }
}
symver!(default ibv_detach_mcast, "IBVERBS_1.1", ibv_detach_mcast_v11);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::ctx::{no_ops, FakeCtx};
    use std::cell::RefCell;

    thread_local! {
        static CALLS: RefCell<Vec<(&'static str, usize, u8, u16)>> = const { RefCell::new(Vec::new()) };
    }
    unsafe extern "C" fn p_attach(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int {
        // SAFETY: the caller's GID.
        CALLS.with(|c| c.borrow_mut().push(("attach", qp as usize, unsafe { (*gid).raw[0] }, lid)));
        0
    }
    unsafe extern "C" fn p_detach(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int {
        // SAFETY: the caller's GID.
        CALLS.with(|c| c.borrow_mut().push(("detach", qp as usize, unsafe { (*gid).raw[0] }, lid)));
        libc::EINVAL
    }

    #[test]
    fn dispatch_and_bad_input() {
        let mut c = FakeCtx::new(0);
        let mut ops = no_ops();
        ops.attach_mcast = Some(p_attach);
        ops.detach_mcast = Some(p_detach);
        c.set_ops(&ops);
        // SAFETY: all-zero is a valid QP.
        let mut qp: ibv_qp = unsafe { std::mem::zeroed() };
        qp.context = c.ctx();
        let gid = ibv_gid { raw: [0xff; 16] };
        let q = &mut qp as *mut ibv_qp;
        // SAFETY: our QP and GID.
        unsafe {
            assert_eq!(ibv_attach_mcast_v11(q, &gid, 0xc001), 0);
            assert_eq!(ibv_detach_mcast_v11(q, &gid, 0xc001), libc::EINVAL);
            assert_eq!(ibv_attach_mcast_v11(ptr::null_mut(), &gid, 1), libc::EINVAL);
            assert_eq!(ibv_detach_mcast_v11(q, ptr::null(), 1), libc::EINVAL);
        }
        CALLS.with(|c| assert_eq!(*c.borrow(), vec![("attach", q as usize, 0xff, 0xc001), ("detach", q as usize, 0xff, 0xc001)]));
        let mut d = FakeCtx::new(0);
        // SAFETY: the dummy ops do not touch their arguments.
        unsafe {
            (*q).context = d.ctx();
            assert_eq!(ibv_attach_mcast_v11(q, &gid, 1), libc::EOPNOTSUPP);
            assert_eq!(ibv_detach_mcast_v11(q, &gid, 1), libc::EOPNOTSUPP);
        }
    }
    use std::ptr;
}
