//! The UDP service thread of datagram rsockets (upstream's udp_svc): it
//! reads every datagram socket's UDP socket and
//! - for a data message from a peer that has no address handle for us
//!   yet: answers with a control message carrying our QP number, builds an
//!   address handle back to the peer (address and route resolution through
//!   the RDMA CM), and hands the payload to our own QP, behind a ds header
//!   naming the peer's UDP address;
//! - for a control message (the answer to ours): builds the address
//!   handle, so that later sends go over RDMA.
//!
//! Like upstream it runs only while datagram sockets exist. A socket is
//! handled with the service list locked, so once [`remove`] returns the
//! thread no longer touches it.

use core::ffi::c_int;
use core::ptr::null_mut;
use rdma_util::fallible::Shared;

use parking_lot::Mutex;

use super::sock::Dsock;
use super::wire::*;
use crate::rsocket::base::RS_OPT_UDP_SVC;
use crate::rsocket::proto::*;
use crate::abi::verbs::*;
use crate::id::Res;
use crate::verbs as v;

struct Inner {
    socks: Vec<Shared<Dsock>>,
    /// eventfd waking the thread after a list change; -1: no thread.
    wake: c_int,
}

static SVC: Mutex<Inner> = Mutex::new(Inner { socks: Vec::new(), wake: -1 });

fn kick(fd: c_int) {
    let one: u64 = 1;
    // SAFETY: 8 bytes from a local to our eventfd.
    unsafe { libc::write(fd, (&one as *const u64).cast(), 8) };
}

/// Starts serving `d`.
pub(crate) fn add(d: &Shared<Dsock>) -> Res<()> {
    let mut g = SVC.lock();
    if g.wake < 0 {
        // SAFETY: plain eventfd creation.
        let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
        if fd < 0 {
            return Err(rdma_util::ffi::errno());
        }
        if let Err(e) = rdma_util::fallible::spawn_detached(c"rsocket-udp", move || run(fd)) {
            // SAFETY: our eventfd.
            unsafe { libc::close(fd) };
            return Err(e);
        }
        g.wake = fd;
    }
    rdma_util::fallible::push(&mut g.socks, d.clone()).map_err(|_| libc::ENOMEM)?;
    d.st.lock().base.opts |= RS_OPT_UDP_SVC;
    kick(g.wake);
    Ok(())
}

/// Stops serving `d` (no-op if not served).
pub(crate) fn remove(d: &Dsock) {
    let mut g = SVC.lock();
    if let Some(i) = g.socks.iter().position(|s| core::ptr::eq(Shared::as_ptr(s), d)) {
        g.socks.swap_remove(i);
        d.st.lock().base.opts &= !RS_OPT_UDP_SVC;
        kick(g.wake);
    }
}

fn run(wake: c_int) {
    let mut fds: Vec<libc::pollfd> = Vec::new();
    let mut snap: Vec<Shared<Dsock>> = Vec::new();
    loop {
        {
            let mut g = SVC.lock();
            if g.socks.is_empty() {
                // SAFETY: our eventfd; add() cannot use it meanwhile.
                unsafe { libc::close(wake) };
                g.wake = -1;
                return;
            }
            snap.clear();
            snap.extend(g.socks.iter().cloned());
        }
        fds.clear();
        fds.push(libc::pollfd { fd: wake, events: libc::POLLIN, revents: 0 });
        fds.extend(snap.iter().map(|s| libc::pollfd { fd: s.udp, events: libc::POLLIN, revents: 0 }));
        // SAFETY: a live pollfd array of that length.
        unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, -1) };
        if fds[0].revents != 0 {
            let mut x = 0u64;
            // SAFETY: 8 bytes into a local.
            unsafe { libc::read(wake, (&mut x as *mut u64).cast(), 8) };
        }
        let g = SVC.lock();
        for (i, s) in snap.iter().enumerate() {
            if fds[i + 1].revents != 0 && g.socks.iter().any(|x| Shared::ptr_eq(x, s)) {
                process(s);
            }
        }
        drop(g);
        snap.clear();
    }
}

/// `udp_svc_process_rs`: one datagram from `d`'s UDP socket.
fn process(d: &Dsock) {
    let mut buf = [0u8; RS_SNDLOWAT as usize];
    let mut from = SockAddr::ZERO;
    let mut flen = 28 as libc::socklen_t;
    // SAFETY: local buffers with their sizes; the socket may be empty
    // (another reader), hence MSG_DONTWAIT.
    let n = unsafe {
        libc::recvfrom(d.udp, buf.as_mut_ptr().cast(), buf.len(), libc::MSG_DONTWAIT, from.0.as_mut_ptr().cast(), &mut flen)
    };
    if n < DS_UDP_IPV4_HDR_LEN as isize {
        return;
    }
    let n = n as usize;
    let Some((op, qpn, hlen)) = parse_udp_hdr(&buf[..n], from.family()) else { return };
    let di = {
        let mut c = d.st.lock();
        match d.get_dest(&mut c, &from, flen as usize) {
            Ok(i) => i,
            Err(_) => return,
        }
    };
    if u32::from(op) == RS_OP_DATA {
        let _s = d.slock.lock();
        let c = d.st.lock();
        let _ = d.send_udp(&c, di, &[], 0, RS_OP_CTRL as u8);
    }
    let (has_ah, cur_qpn) = {
        let c = d.st.lock();
        (!c.dests[di].ah.is_null(), c.dests[di].qpn)
    };
    if !has_ah || cur_qpn != qpn {
        create_ah(d, di, qpn);
    }
    if u32::from(op) == RS_OP_DATA {
        let _s = d.slock.lock();
        let own = {
            let c = d.st.lock();
            c.qps[c.dests[di].qp].self_dest
        };
        let hdr = format_hdr(&from);
        // Blocking for a send slot, as upstream.
        // SAFETY: the payload is the n - hlen bytes of our local buffer
        // after the header.
        let _ = unsafe { d.send_to_dest(own, Some(hdr), buf[hlen..n].as_ptr(), n - hlen, 0) };
    }
}

/// `udp_svc_sgid_index`: the GID table index (of the first 16) holding
/// `sgid`, else 0.
fn sgid_index(verbs: *mut ibv_context, port: u8, sgid: &ibv_gid) -> u8 {
    for i in 0..16 {
        // SAFETY: all-zero is a valid gid.
        let mut g: ibv_gid = unsafe { core::mem::zeroed() };
        // SAFETY: live context; local output.
        unsafe { v::ibv_query_gid(verbs, port, i, &mut g) };
        // SAFETY: both gids are 16 plain bytes.
        if unsafe { g.raw == sgid.raw } {
            return i as u8;
        }
    }
    0
}

/// `udp_svc_path_bits`.
fn path_bits(verbs: *mut ibv_context, port: u8) -> u8 {
    // SAFETY: all-zero is a valid port attr.
    let mut a: ibv_port_attr = unsafe { core::mem::zeroed() };
    // SAFETY: live context.
    if unsafe { v::query_port(verbs, port, &mut a) } == 0 {
        ((1u32 << a.lmc) - 1) as u8
    } else {
        0x7f
    }
}

/// `udp_svc_create_ah`: resolve address and route from the destination's
/// QP's address (port 0) to the peer, then build the address handle (with
/// a global route when the path has more than one hop, as upstream, and
/// always on RoCE: see ah.rs).
fn create_ah(d: &Dsock, di: usize, qpn: u32) {
    let (qid, peer) = {
        let _s = d.slock.lock();
        let mut c = d.st.lock();
        let old = core::mem::replace(&mut c.dests[di].ah, null_mut());
        if !old.is_null() {
            // SAFETY: our AH, no longer referenced.
            unsafe { v::ibv_destroy_ah(old) };
        }
        let q = &c.qps[c.dests[di].qp];
        (q.cm_id, c.dests[di].addr)
    };
    // SAFETY: the QP's id lives as long as the socket (which the service
    // holds); only its constant fields are read.
    let (ps, verbs, pd, qport, local) = unsafe {
        ((*qid).ps, (*qid).verbs, (*qid).pd, (*qid).port_num, SockAddr::from_raw(core::ptr::addr_of!((*qid).route.addr.src).cast(), 28))
    };
    let mut id = null_mut();
    // SAFETY: out pointer is a local; synchronous id.
    if unsafe { crate::cma::rdma_create_id(null_mut(), &mut id, null_mut(), ps) } != 0 {
        return;
    }
    let mut src = local.without_port();
    let mut dst = peer;
    // SAFETY: our id; 28-byte address buffers.
    let ok = unsafe {
        crate::resolve::rdma_resolve_addr(id, src.0.as_mut_ptr().cast(), dst.0.as_mut_ptr().cast(), 2000) == 0
            && crate::resolve::rdma_resolve_route(id, 2000) == 0
    };
    if ok {
        // SAFETY: a resolved route has its path record.
        let (p, port) = unsafe { (*(*id).route.path_rec, (*id).port_num) };
        // SAFETY: all-zero is a valid port attr.
        let mut pa: ibv_port_attr = unsafe { core::mem::zeroed() };
        // SAFETY: live context.
        let link_layer = if unsafe { v::query_port(verbs, qport, &mut pa) } == 0 { pa.link_layer } else { IBV_LINK_LAYER_UNSPECIFIED };
        // On RoCE the source GID's index as for the QP's own handle
        // (preferring RoCE v2); on InfiniBand upstream's lookup.
        let sgid_idx = if link_layer == IBV_LINK_LAYER_ETHERNET {
            // SAFETY: the live context and port queried above.
            unsafe { super::ah::find_sgid_index(verbs, qport, pa.gid_tbl_len, &p.sgid) }.unwrap_or(0)
        } else {
            sgid_index(verbs, qport, &p.sgid)
        };
        let mut attr = super::ah::path_ah_attr(link_layer, &p, sgid_idx, path_bits(verbs, qport), port);
        let _s = d.slock.lock();
        let mut c = d.st.lock();
        c.dests[di].qpn = qpn;
        // SAFETY: the QP's PD; a valid attr.
        c.dests[di].ah = unsafe { v::ibv_create_ah(pd, &mut attr) };
    }
    // SAFETY: our temporary id.
    unsafe { crate::id::rdma_destroy_id(id) };
}
