//! Multicast: join (full or send-only member), leave, and attaching the
//! id's QP to a group when the join completes.
//!
//! A group's events carry the group (not the id) as user id; leaving waits
//! until the group's delivered events have been acked.

use rdma_util::mem::zeroed;
use crate::abi::cma::*;
use crate::abi::ucma::*;
use crate::addr::addrlen;
use crate::ucma::af_ib_support;
use crate::event::complete;
use crate::id::{ret_int, Id, Mcast, Res};
use crate::ucma::{uaddr, write_cmd_resp};
use core::ffi::{c_int, c_void};
use libc::{sockaddr, socklen_t};

fn unlink(id: Id, mc: *mut Mcast) {
    let (m, _) = id.ev();
    m.lock().mc_list.retain(|&x| x != mc);
}

/// Joins the group at `addr` (`len` bytes) with `flags`.
///
/// # Safety
/// `addr` must be readable for `len` bytes.
unsafe fn join2(id: Id, addr: *const sockaddr, len: socklen_t, flags: u16, context: *mut c_void) -> Res<()> {
    let mut mc = rdma_util::fallible::try_box(Mcast {
        id_priv: id.0,
        context,
        events_completed: 0,
        handle: 0,
        // SAFETY: all-zero is a valid GID.
        mgid: unsafe { core::mem::zeroed() },
        mlid: 0,
        join_flags: flags,
        addr: zeroed(),
    })
    .map_err(|_| libc::ENOMEM)?;
    // SAFETY: forwarded contract.
    unsafe { crate::addr::copy_addr((&mut mc.addr as *mut libc::sockaddr_storage).cast(), addr.cast(), len as usize) };
    let mc = {
        let mut ev = id.ev().0.lock();
        // Room first: the record is dropped with the error when there is none.
        ev.mc_list.try_reserve(1).map_err(|_| libc::ENOMEM)?;
        let raw = Box::into_raw(mc);
        ev.mc_list.push(raw);
        raw
    };

    let mut resp = rdma_ucm_create_id_resp::default();
    let r = if af_ib_support() {
        let mut body: rdma_ucm_join_mcast = zeroed();
        body.response = uaddr(&mut resp);
        body.uid = mc as u64;
        body.id = id.handle();
        body.addr_size = len as u16;
        body.join_flags = flags;
        // SAFETY: mc is ours; its storage holds the copied address.
        body.addr = unsafe { (*mc).addr };
        write_cmd_resp(id.fd(), RDMA_USER_CM_CMD_JOIN_MCAST, body, &mut resp)
    } else {
        let mut body: rdma_ucm_join_ip_mcast = zeroed();
        body.response = uaddr(&mut resp);
        body.uid = mc as u64;
        body.id = id.handle();
        let n = (len as usize).min(core::mem::size_of::<libc::sockaddr_in6>());
        // SAFETY: forwarded contract; n fits the destination.
        unsafe { core::ptr::copy_nonoverlapping(addr.cast::<u8>(), (&mut body.addr as *mut libc::sockaddr_in6).cast(), n) };
        write_cmd_resp(id.fd(), RDMA_USER_CM_CMD_JOIN_IP_MCAST, body, &mut resp)
    };
    if let Err(e) = r {
        unlink(id, mc);
        // SAFETY: mc is ours and no longer listed.
        drop(unsafe { Box::from_raw(mc) });
        return Err(e);
    }
    // SAFETY: mc is live (listed on the id).
    unsafe { (*mc).handle = resp.id };
    complete(id)
}

/// `rdma_join_multicast_ex`.
///
/// # Safety
/// `attr.addr` must be null or a socket address of its family's size.
unsafe fn join_ex(id: Id, attr: &rdma_cm_join_mc_attr_ex, context: *mut c_void) -> Res<()> {
    if attr.comp_mask >= RDMA_CM_JOIN_MC_ATTR_RESERVED {
        return Err(libc::ENOTSUP);
    }
    if attr.comp_mask & RDMA_CM_JOIN_MC_ATTR_ADDRESS == 0 {
        return Err(libc::EINVAL);
    }
    if attr.comp_mask & RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS == 0 || attr.join_flags >= RDMA_MC_JOIN_FLAG_RESERVED {
        return Err(libc::EINVAL);
    }
    // SAFETY: forwarded contract: attr.addr is null or a socket address.
    let len = unsafe { addrlen(attr.addr) };
    if len == 0 {
        return Err(libc::EINVAL);
    }
    // SAFETY: forwarded contract.
    unsafe { join2(id, attr.addr, len, attr.join_flags as u16, context) }
}

/// `rdma_join_multicast`: full membership.
///
/// # Safety
/// `addr` must be null or a socket address of its family's size.
pub(crate) unsafe fn join(id: Id, addr: *const sockaddr, context: *mut c_void) -> Res<()> {
    // SAFETY: forwarded contract: null or a socket address.
    let len = unsafe { addrlen(addr) };
    if len == 0 {
        return Err(libc::EINVAL);
    }
    // SAFETY: forwarded contract.
    unsafe { join2(id, addr, len, RDMA_MC_JOIN_FLAG_FULLMEMBER as u16, context) }
}

/// `rdma_leave_multicast`.
///
/// # Safety
/// `addr` must be null or a socket address of its family's size.
pub(crate) unsafe fn leave(id: Id, addr: *const sockaddr) -> Res<()> {
    // SAFETY: forwarded contract: null or a socket address.
    let len = unsafe { addrlen(addr) } as usize;
    if len == 0 {
        return Err(libc::EINVAL);
    }
    // SAFETY: forwarded contract.
    let want = unsafe { core::slice::from_raw_parts(addr.cast::<u8>(), len) };
    let (m, cv) = id.ev();
    let mc = {
        let mut g = m.lock();
        // Most recent join first, as upstream's list.
        let pos = g.mc_list.iter().rposition(|&mc| {
            // SAFETY: listed groups are live; the storage is 128 bytes.
            let have = unsafe { core::slice::from_raw_parts((&(*mc).addr as *const libc::sockaddr_storage).cast::<u8>(), len) };
            have == want
        });
        match pos {
            Some(i) => g.mc_list.remove(i),
            None => return Err(libc::EADDRNOTAVAIL),
        }
    };
    // SAFETY: mc was listed, so it is live and now ours alone.
    let mcr = unsafe { &mut *mc };
    let qp = id.qp();
    if !qp.is_null() && u32::from(mcr.join_flags) != RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER {
        // SAFETY: the id's QP is live.
        unsafe { crate::verbs::ibv_detach_mcast(qp, &mcr.mgid, mcr.mlid) };
    }
    let mut resp = rdma_ucm_destroy_id_resp::default();
    let body = rdma_ucm_destroy_id { response: uaddr(&mut resp), id: mcr.handle, reserved: 0 };
    let r = write_cmd_resp(id.fd(), RDMA_USER_CM_CMD_LEAVE_MCAST, body, &mut resp);
    if r.is_ok() {
        let mut g = m.lock();
        // SAFETY: the counter is only changed under this lock.
        while unsafe { (*mc).events_completed } < u64::from(resp.events_reported) {
            cv.wait(&mut g);
        }
    }
    // SAFETY: mc came from Box::into_raw in join2.
    drop(unsafe { Box::from_raw(mc) });
    r
}

crate::event::export_sync! {
    /// Joins a multicast group as a full member.
    fn rdma_join_multicast(id: *mut rdma_cm_id, addr: *mut sockaddr, context: *mut c_void) -> c_int;
    {
        if id.is_null() {
            return Err(libc::EINVAL);
        }
        // SAFETY: the caller's address (null is rejected inside).
        unsafe { join(Id::from_cm(id), addr, context) }
    }
}

crate::event::export_sync! {
    /// Joins a multicast group with explicit join flags.
    fn rdma_join_multicast_ex(id: *mut rdma_cm_id, mc_join_attr: *mut rdma_cm_join_mc_attr_ex,
                              context: *mut c_void) -> c_int;
    {
        if id.is_null() || mc_join_attr.is_null() {
            return Err(libc::EINVAL);
        }
        // SAFETY: non-null attributes from the caller.
        unsafe { join_ex(Id::from_cm(id), &*mc_join_attr, context) }
    }
}

rdma_util::export! {
    /// Leaves a multicast group.
    fn rdma_leave_multicast(id: *mut rdma_cm_id, addr: *mut sockaddr) -> c_int, on_panic = -1;
    {
        rdma_util::ensure!(!id.is_null(), libc::EINVAL, -1);
        // SAFETY: the caller's address (null is rejected inside).
        ret_int(unsafe { leave(Id::from_cm(id), addr) })
    }
}
