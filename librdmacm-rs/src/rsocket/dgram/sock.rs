//! The datagram socket object: its UD QPs, destinations, buffers and
//! completions, and the send and receive paths (over a QP, or over the
//! UDP socket while a destination has no address handle yet).
//!
//! This module knows nothing of the UDP service thread or of the table of
//! sockets: [`super::svc`] uses the socket from above, and [`super`] (the
//! socket calls) joins and leaves the service around it.
//!
//! Locks: `slock` serialises senders, `rlock` receivers, `st` guards every
//! field (upstream's cq_lock and map_lock) and is never held while
//! sleeping; `cq_wait` serialises sleeping on the epoll set.

use core::ffi::{c_int, c_void};
use core::ptr::null_mut;
use std::collections::VecDeque;

use parking_lot::{Mutex, MutexGuard};

use super::ah;
use super::wire::*;
use crate::abi::cma::*;
use crate::abi::verbs::*;
use crate::id::Res;
use crate::rsocket::base::{SockBase, RS_READABLE, RS_WRITABLE};
use crate::rsocket::proto::*;
use crate::rsocket::stream::{set_nonblock, spin_then_sleep, Mr, PageBuf};
use crate::verbs as v;

pub(super) fn last_err() -> c_int {
    let e = rdma_util::ffi::errno();
    if e == 0 {
        libc::EIO
    } else {
        e
    }
}

pub(super) fn sys(r: c_int) -> Res<()> {
    if r < 0 {
        Err(last_err())
    } else {
        Ok(())
    }
}

/// One UD QP (for one local address).
pub(crate) struct DsQp {
    pub(crate) cm_id: *mut rdma_cm_id,
    /// The ds header of everything sent from this QP.
    pub(crate) hdr: [u8; 24],
    pub(crate) hdr_len: u8,
    pub(crate) smr: Mr,
    pub(crate) rmr: Mr,
    pub(crate) rbuf: Option<PageBuf>,
    pub(crate) cq_armed: bool,
    in_epoll: bool,
    /// Index of the destination record of the QP itself (its own address
    /// handle), through which datagrams from UDP are handed to it.
    pub(crate) self_dest: usize,
    /// The largest ds header plus payload one send may carry: the port's
    /// MTU within the 2 KiB slot (see ah::ud_msg_limit).
    pub(crate) max_msg: u32,
}

impl DsQp {
    fn qp(&self) -> *mut ibv_qp {
        // SAFETY: our live id.
        unsafe { (*self.cm_id).qp }
    }
    pub(crate) fn qp_num(&self) -> u32 {
        // SAFETY: the QP exists once the DsQp is in the socket's list.
        unsafe { (*self.qp()).qp_num }
    }
    fn cq(&self) -> *mut ibv_cq {
        // SAFETY: our live id.
        unsafe { (*self.cm_id).recv_cq }
    }
    fn channel(&self) -> *mut ibv_comp_channel {
        // SAFETY: our live id.
        unsafe { (*self.cm_id).recv_cq_channel }
    }
    pub(crate) fn local_addr(&self) -> SockAddr {
        // SAFETY: the id's source address union (sockaddr_storage sized).
        unsafe { SockAddr::from_raw(core::ptr::addr_of!((*self.cm_id).route.addr.src).cast(), 28) }
    }
}

/// Where datagrams for one address go.
pub(crate) struct Dest {
    pub(crate) addr: SockAddr,
    /// Index of the QP to send from.
    pub(crate) qp: usize,
    pub(crate) ah: *mut ibv_ah,
    pub(crate) qpn: u32,
}

/// A received datagram waiting to be read.
#[derive(Clone, Copy)]
struct RMsg {
    qp: usize,
    offset: u32,
    length: u32,
}

pub(crate) struct DState {
    /// State, options, sizes: what a stream socket has too.
    pub(crate) base: SockBase,
    pub(crate) sqe_avail: u32,
    pub(crate) rqe_avail: u32,
    pub(crate) cq_armed: bool,
    pub(super) sbuf: Option<PageBuf>,
    /// Free send slots (offsets into sbuf).
    smsg_free: Vec<u32>,
    rmsg: VecDeque<RMsg>,
    /// QPs; `qp_next` is where the next round-robin poll starts.
    pub(crate) qps: Vec<DsQp>,
    qp_next: usize,
    pub(crate) dests: Vec<Dest>,
    pub(crate) conn_dest: Option<usize>,
}

/// A datagram rsocket.
pub(crate) struct Dsock {
    /// The UDP socket (also the descriptor the application knows).
    pub(crate) udp: c_int,
    epfd: c_int,
    pub(crate) slock: Mutex<()>,
    pub(super) rlock: Mutex<()>,
    cq_wait: Mutex<()>,
    pub(crate) st: Mutex<DState>,
}

// SAFETY: the raw pointers (CM ids, QPs, AHs, buffers) are owned by the
// socket and used under `st`; verbs objects are thread-safe.
unsafe impl Send for Dsock {}
// SAFETY: see Send; all mutation goes through the mutexes.
unsafe impl Sync for Dsock {}

impl Drop for Dsock {
    fn drop(&mut self) {
        let epfd = self.epfd;
        let c = self.st.get_mut();
        // SAFETY: our own descriptors and verbs objects; no other thread
        // holds a reference any more.
        unsafe {
            libc::close(self.udp);
            // Address handles first (upstream leaves them to the device's
            // teardown; they would keep the protection domain busy).
            for d in c.dests.drain(..) {
                if !d.ah.is_null() {
                    v::ibv_destroy_ah(d.ah);
                }
            }
            for q in c.qps.drain(..) {
                free_qp(q, epfd);
            }
            if epfd >= 0 {
                libc::close(epfd);
            }
        }
    }
}

/// `ds_free_qp`: MRs and buffer, then the QP and the id. Returns the errno
/// the teardown left, starting from the current one (upstream's error paths
/// report that one).
///
/// # Safety
/// `q` is not used by anyone else; `epfd` is the socket's epoll set.
unsafe fn free_qp(mut q: DsQp, epfd: c_int) -> c_int {
    q.smr = Mr(null_mut());
    q.rmr = Mr(null_mut());
    q.rbuf = None;
    // SAFETY: per the contract.
    unsafe {
        if !q.cm_id.is_null() {
            if !(*q.cm_id).qp.is_null() {
                // As upstream, also when the channel never joined the set
                // (that fails with ENOENT, which is what upstream's
                // rconnect then reports).
                let ch = (*q.cm_id).recv_cq_channel;
                let fd = if ch.is_null() { -1 } else { (*ch).fd };
                libc::epoll_ctl(epfd, libc::EPOLL_CTL_DEL, fd, null_mut());
                crate::qp::rdma_destroy_qp(q.cm_id);
            }
            let e = rdma_util::ffi::errno();
            crate::id::rdma_destroy_id(q.cm_id);
            rdma_util::ffi::set_errno(e);
        }
    }
    rdma_util::ffi::errno()
}

/// Queue and buffer sizes (`ds_set_qp_size`): the queues are bounded by
/// the device and by the buffers at RS_SNDLOWAT bytes per WR, or the
/// buffers shrink to the queues.
pub(crate) fn set_qp_size(max_qp_wr: i32, c: &mut DState) {
    let max = max_qp_wr.clamp(0, RS_QP_MAX_SIZE as i32) as u16;
    c.base.sq_size = c.base.sq_size.min(max);
    c.base.rq_size = c.base.rq_size.min(max);
    if c.base.rq_size as u32 > c.base.rbuf_size / RS_SNDLOWAT {
        c.base.rq_size = (c.base.rbuf_size / RS_SNDLOWAT) as u16;
    } else {
        c.base.rbuf_size = c.base.rq_size as u32 * RS_SNDLOWAT;
    }
    if c.base.sq_size as u32 > c.base.sbuf_size / RS_SNDLOWAT {
        c.base.sq_size = (c.base.sbuf_size / RS_SNDLOWAT) as u16;
    } else {
        c.base.sbuf_size = c.base.sq_size as u32 * RS_SNDLOWAT;
    }
}

impl Dsock {
    /// A new socket on the UDP socket `udp` with the epoll set `epfd`.
    pub(super) fn new(udp: c_int, epfd: c_int, st: DState) -> Dsock {
        Dsock { udp, epfd, slock: Mutex::new(()), rlock: Mutex::new(()), cq_wait: Mutex::new(()), st: Mutex::new(st) }
    }

    /// The buffer part of `ds_init_ep`: queue sizes, send buffer and its
    /// slots, receive ring (joining the UDP service is the caller's).
    pub(super) fn init_bufs(&self) -> Res<()> {
        let mut c = self.st.lock();
        set_qp_size(crate::cma::max_qpsize(None), &mut c);
        let buf = PageBuf::new(c.base.sq_size as usize * RS_SNDLOWAT as usize)?;
        c.sbuf = Some(buf);
        // Both hold at most one entry per queue slot: reserved now, they
        // never grow on the data path.
        let ring = c.base.rq_size as usize + 1;
        c.rmsg.try_reserve(ring).map_err(|_| libc::ENOMEM)?;
        let mut free = rdma_util::fallible::vec_with_capacity(c.base.sq_size as usize).map_err(|_| libc::ENOMEM)?;
        // Popped from the end: slot 0 first, as upstream's list.
        free.extend((0..c.base.sq_size as u32).rev().map(|i| i * RS_SNDLOWAT));
        c.smsg_free = free;
        c.sqe_avail = c.base.sq_size as u32;
        c.rqe_avail = c.base.rq_size as u32;
        Ok(())
    }

    /// The source address for sending to `dest` (`ds_get_src_addr`): the
    /// UDP socket's, or, when that is a wildcard or loopback, the one the
    /// kernel routes from, with the socket's port.
    fn src_addr(&self, dest: &SockAddr, dest_len: usize) -> Res<SockAddr> {
        let mut a = SockAddr::ZERO;
        let mut len = 28 as libc::socklen_t;
        // SAFETY: a 28-byte local buffer and its length.
        sys(unsafe { libc::getsockname(self.udp, a.0.as_mut_ptr().cast(), &mut len) })?;
        if !a.any_or_loopback() {
            return Ok(a);
        }
        let port = a.port_bytes();
        // SAFETY: plain socket creation.
        let s = unsafe { libc::socket(dest.family(), libc::SOCK_DGRAM, 0) };
        if s < 0 {
            return Err(last_err());
        }
        // SAFETY: the destination's bytes; local output buffer.
        let r = unsafe {
            sys(libc::connect(s, dest.as_ptr(), dest_len as libc::socklen_t)).and_then(|_| {
                let mut l = 28 as libc::socklen_t;
                a = SockAddr::ZERO;
                sys(libc::getsockname(s, a.0.as_mut_ptr().cast(), &mut l))
            })
        };
        // SAFETY: our temporary socket.
        unsafe { libc::close(s) };
        r?;
        a.set_port_bytes(port);
        Ok(a)
    }

    /// `ds_create_qp`: a UD QP bound to `src`, with buffers, CQ, its own
    /// address handle and all receives posted.
    fn create_qp(&self, c: &mut DState, src: &SockAddr) -> Res<usize> {
        // Room for the QP and its own destination first: nothing to undo
        // when the memory is not there.
        c.qps.try_reserve(1).map_err(|_| libc::ENOMEM)?;
        c.dests.try_reserve(1).map_err(|_| libc::ENOMEM)?;
        let mut id = null_mut();
        // SAFETY: out pointer is a local; synchronous id.
        if unsafe { crate::cma::rdma_create_id(null_mut(), &mut id, null_mut(), RDMA_PS_UDP) } != 0 {
            return Err(last_err());
        }
        let (hdr, hdr_len) = format_hdr(src);
        let mut q = DsQp { cm_id: id, hdr, hdr_len, smr: Mr(null_mut()), rmr: Mr(null_mut()), rbuf: None, cq_armed: false, in_epoll: false, self_dest: 0, max_msg: RS_SNDLOWAT };
        match self.setup_qp(c, &mut q, src) {
            Ok(()) => {
                c.qps.push(q);
                let i = c.qps.len() - 1;
                // Upstream puts a new QP at the head of its round-robin list.
                c.qp_next = i;
                Ok(i)
            }
            Err(e) => {
                rdma_util::ffi::set_errno(e);
                // SAFETY: the QP never joined the socket.
                let e = unsafe { free_qp(q, self.epfd) };
                Err(if e == 0 { libc::EIO } else { e })
            }
        }
    }

    fn setup_qp(&self, c: &mut DState, q: &mut DsQp, src: &SockAddr) -> Res<()> {
        let id = q.cm_id;
        let mut sa = *src;
        // SAFETY: our id; a 28-byte address buffer.
        if unsafe { crate::addr::rdma_bind_addr(id, sa.0.as_mut_ptr().cast()) } != 0 {
            return Err(last_err());
        }
        // SAFETY: a bound id has its device context and PD.
        let (verbs, pd, port) = unsafe { ((*id).verbs, (*id).pd, (*id).port_num) };
        let access = IBV_ACCESS_LOCAL_WRITE as c_int;
        let rlen = c.base.rbuf_size as usize + GRH_LEN as usize;
        let rbuf = PageBuf::new(rlen)?;
        let sbuf = c.sbuf.as_ref().ok_or(libc::EINVAL)?;
        // SAFETY: live PD, buffers that outlive their MRs (DsQp drops
        // MRs first).
        q.smr = Mr(unsafe { v::ibv_reg_mr(pd, sbuf.ptr.cast(), c.base.sbuf_size as usize, access) });
        if q.smr.0.is_null() {
            return Err(last_err());
        }
        // SAFETY: as above.
        q.rmr = Mr(unsafe { v::ibv_reg_mr(pd, rbuf.ptr.cast(), rlen, access) });
        q.rbuf = Some(rbuf);
        if q.rmr.0.is_null() {
            return Err(last_err());
        }
        // Completion channel and CQ (`rs_create_cq`), armed from the
        // start so that the first completion wakes a poller.
        // SAFETY: live context; the id takes ownership of both objects
        // (rdma_destroy_id destroys them).
        unsafe {
            let ch = v::ibv_create_comp_channel(verbs);
            if ch.is_null() {
                return Err(last_err());
            }
            let cq = v::ibv_create_cq(verbs, c.base.sq_size as c_int + c.base.rq_size as c_int, id.cast(), ch, 0);
            if cq.is_null() {
                let e = last_err();
                v::ibv_destroy_comp_channel(ch);
                return Err(e);
            }
            if c.base.fd_flags & libc::O_NONBLOCK != 0 {
                if let Err(e) = set_nonblock((*ch).fd, true) {
                    v::ibv_destroy_cq(cq);
                    v::ibv_destroy_comp_channel(ch);
                    return Err(e);
                }
            }
            v::req_notify_cq(cq, 0);
            (*id).recv_cq_channel = ch;
            (*id).send_cq_channel = ch;
            (*id).recv_cq = cq;
            (*id).send_cq = cq;
        }
        // SAFETY: all-zero is a valid init attr.
        let mut attr: ibv_qp_init_attr = unsafe { core::mem::zeroed() };
        attr.send_cq = q.cq();
        attr.recv_cq = q.cq();
        attr.qp_type = IBV_QPT_UD;
        attr.sq_sig_all = 1;
        attr.cap.max_send_wr = c.base.sq_size as u32;
        attr.cap.max_recv_wr = c.base.rq_size as u32;
        attr.cap.max_send_sge = 1;
        attr.cap.max_recv_sge = 2;
        attr.cap.max_inline_data = c.base.sq_inline as u32;
        // SAFETY: our bound id and a valid attr.
        if unsafe { crate::qp::rdma_create_qp(id, null_mut(), &mut attr) } != 0 {
            return Err(last_err());
        }
        c.base.sq_inline = attr.cap.max_inline_data as u16;

        // The QP's own destination (`ds_add_qp_dest`): upstream's is the
        // local LID with no global route, which a RoCE port refuses (and
        // upstream's datagram sockets then get no QP there). On an Ethernet
        // port ours carries a global route to the id's own source GID; on
        // InfiniBand it is upstream's (see ah.rs).
        // SAFETY: all-zero is a valid port attr.
        let mut pa: ibv_port_attr = unsafe { core::mem::zeroed() };
        // SAFETY: live context.
        let r = unsafe { v::query_port(verbs, port, &mut pa) };
        if r != 0 {
            return Err(if r > 0 { r } else { last_err() });
        }
        let own_gid = if pa.link_layer == IBV_LINK_LAYER_ETHERNET {
            // SAFETY: the bound id's source GID (filled by rdma_bind_addr).
            let sgid = unsafe { (*id).route.addr.addr.ibaddr.sgid };
            // SAFETY: the bound id's live context and its port (queried above).
            unsafe { ah::find_sgid_index(verbs, port, pa.gid_tbl_len, &sgid) }.map(|i| (sgid, i))
        } else {
            None
        };
        let mut ah_attr = ah::self_ah_attr(pa.link_layer, pa.lid, port, own_gid);
        q.max_msg = ah::ud_msg_limit(pa.active_mtu, RS_SNDLOWAT);
        // SAFETY: live PD, valid attr.
        let ah = unsafe { v::ibv_create_ah(pd, &mut ah_attr) };
        if ah.is_null() {
            return Err(libc::ENOMEM);
        }
        let qi = c.qps.len();
        let qpn = q.qp_num();
        c.dests.push(Dest { addr: *src, qp: qi, ah, qpn });
        q.self_dest = c.dests.len() - 1;

        let mut ev = libc::epoll_event { events: libc::EPOLLIN as u32, u64: qi as u64 };
        // SAFETY: our epoll set and the live channel's fd.
        if unsafe { libc::epoll_ctl(self.epfd, libc::EPOLL_CTL_ADD, (*q.channel()).fd, &mut ev) } != 0 {
            let e = last_err();
            c.dests.pop();
            // SAFETY: created above, unused.
            unsafe { v::ibv_destroy_ah(ah) };
            return Err(e);
        }
        q.in_epoll = true;
        for i in 0..c.base.rq_size as u32 {
            if let Err(e) = post_recv(q, c.base.rbuf_size, i * RS_SNDLOWAT) {
                c.dests.pop();
                // SAFETY: created above, unused.
                unsafe { v::ibv_destroy_ah(ah) };
                return Err(e);
            }
        }
        Ok(())
    }

    /// `ds_get_dest`: the destination record for `addr`, creating the QP
    /// for the local address that reaches it if needed.
    pub(crate) fn get_dest(&self, c: &mut DState, addr: &SockAddr, addr_len: usize) -> Res<usize> {
        if let Some(i) = c.dests.iter().position(|d| d.addr.same(addr)) {
            return Ok(i);
        }
        let src = self.src_addr(addr, addr_len)?;
        let qi = match c.qps.iter().position(|q| q.local_addr().same(&src)) {
            Some(i) => i,
            None => self.create_qp(c, &src)?,
        };
        if let Some(i) = c.dests.iter().position(|d| d.addr.same(addr)) {
            return Ok(i);
        }
        let mut a = SockAddr::ZERO;
        a.0[..addr_len.min(28)].copy_from_slice(&addr.0[..addr_len.min(28)]);
        c.dests.try_reserve(1).map_err(|_| libc::ENOMEM)?;
        c.dests.push(Dest { addr: a, qp: qi, ah: null_mut(), qpn: 0 });
        Ok(c.dests.len() - 1)
    }
}

fn post_recv(q: &DsQp, rbuf_size: u32, offset: u32) -> Res<()> {
    let rb = q.rbuf.as_ref().ok_or(libc::EINVAL)?;
    // SAFETY: the MR is live while the QP is.
    let lkey = unsafe { (*q.rmr.0).lkey };
    let base = rb.ptr as u64;
    let mut sge = [
        ibv_sge { addr: base + rbuf_size as u64, length: GRH_LEN, lkey },
        ibv_sge { addr: base + offset as u64, length: RS_SNDLOWAT, lkey },
    ];
    // SAFETY: all-zero is a valid recv WR.
    let mut wr: ibv_recv_wr = unsafe { core::mem::zeroed() };
    wr.wr_id = recv_wr_id(offset);
    wr.sg_list = sge.as_mut_ptr();
    wr.num_sge = 2;
    let mut bad = null_mut();
    // SAFETY: our live QP; wr and sge outlive the call.
    let r = unsafe { v::post_recv(q.qp(), &mut wr, &mut bad) };
    if r == 0 {
        Ok(())
    } else {
        Err(if r > 0 { r } else { last_err() })
    }
}

// ---- completions --------------------------------------------------------

type Test = fn(&DState) -> bool;

fn t_have_rdata(c: &DState) -> bool {
    !c.rmsg.is_empty()
}
fn t_can_send(c: &DState) -> bool {
    c.sqe_avail > 0
}
fn t_all_sends_done(c: &DState) -> bool {
    c.sqe_avail == c.base.sq_size as u32
}
fn t_poll_all(_: &DState) -> bool {
    true
}
fn t_cq_armed(c: &DState) -> bool {
    c.cq_armed
}

impl DState {
    /// A new socket's state: buffer and queue sizes (from the rsocket
    /// config), everything else empty.
    pub(super) fn new(sbuf_size: u32, rbuf_size: u32, sq_size: u16, rq_size: u16, sq_inline: u16) -> DState {
        DState {
            // Upstream sets the iomap size for stream sockets only.
            base: SockBase::new(sbuf_size, rbuf_size, sq_size, rq_size, sq_inline, 0),
            sqe_avail: 0,
            rqe_avail: 0,
            cq_armed: false,
            sbuf: None,
            smsg_free: Vec::new(),
            rmsg: VecDeque::new(),
            qps: Vec::new(),
            qp_next: 0,
            dests: Vec::new(),
            conn_dest: None,
        }
    }

    /// `ds_poll_cqs`: every QP's CQ round robin, one completion each per
    /// round; receives are kept while there is room, else reposted
    /// (dropped), and polling stops early once receives are full but a
    /// send slot is free.
    fn poll_cqs(&mut self) {
        let n = self.qps.len();
        if n == 0 {
            return;
        }
        let mut qi = self.qp_next % n;
        loop {
            let mut cnt = 0;
            let start = qi;
            loop {
                // SAFETY: all-zero is a valid wc.
                let mut wc: ibv_wc = unsafe { core::mem::zeroed() };
                // SAFETY: the QP's live CQ; one wc.
                let r = unsafe { v::poll_cq(self.qps[qi].cq(), 1, &mut wc) };
                if r > 0 {
                    let off = wr_data(wc.wr_id);
                    if wc.wr_id & WR_ID_FLAG_RECV != 0 {
                        let q = &self.qps[qi];
                        let ok = self.rqe_avail > 0 && wc.status == IBV_WC_SUCCESS && {
                            let rb = q.rbuf.as_ref().expect("a QP has its receive buffer");
                            // SAFETY: the slot at `off` inside the receive buffer.
                            let h = unsafe { core::slice::from_raw_parts(rb.ptr.add(off as usize), 2) };
                            valid_recv(h, wc.byte_len)
                        };
                        if ok {
                            self.rqe_avail -= 1;
                            self.rmsg.push_back(RMsg { qp: qi, offset: off, length: wc.byte_len - GRH_LEN });
                        } else {
                            let _ = post_recv(q, self.base.rbuf_size, off);
                        }
                    } else {
                        self.smsg_free.push(off);
                        self.sqe_avail += 1;
                    }
                    cnt += 1;
                }
                qi = (qi + 1) % n;
                if r > 0 && self.rqe_avail == 0 && self.sqe_avail > 0 {
                    self.qp_next = qi;
                    return;
                }
                if qi == start {
                    break;
                }
            }
            if cnt == 0 {
                break;
            }
        }
    }

    fn req_notify_cqs(&mut self) {
        for q in self.qps.iter_mut() {
            if !q.cq_armed {
                // SAFETY: the QP's live CQ.
                unsafe { v::req_notify_cq(q.cq(), 0) };
                q.cq_armed = true;
            }
        }
    }
}

impl Dsock {
    /// `ds_get_cq_event`: one event from whichever CQ fired (waits on the
    /// epoll set); caller holds `cq_wait`, not `st`.
    fn get_cq_event(&self) -> Res<()> {
        if !self.st.lock().cq_armed {
            return Ok(());
        }
        let mut ev = libc::epoll_event { events: 0, u64: 0 };
        // Not cancellable under our guard (see ffi::cancellable).
        let no_cancel = rdma_util::ffi::NoCancel::new();
        // SAFETY: our epoll set; one local event.
        let n = unsafe { libc::epoll_wait(self.epfd, &mut ev, 1, -1) };
        if n < 0 {
            return Err(last_err());
        }
        if n == 0 {
            return Ok(());
        }
        let mut c = self.st.lock();
        let qi = ev.u64 as usize;
        let Some(q) = c.qps.get_mut(qi) else { return Ok(()) };
        let mut cq = null_mut();
        let mut ctx = null_mut();
        // SAFETY: the QP's live channel; out pointers are locals.
        let r = unsafe { v::ibv_get_cq_event(q.channel(), &mut cq, &mut ctx) };
        drop(no_cancel);
        if r == 0 {
            // SAFETY: the event just taken from this CQ.
            unsafe { v::ibv_ack_cq_events(q.cq(), 1) };
            q.cq_armed = false;
            c.cq_armed = false;
            Ok(())
        } else {
            Err(last_err())
        }
    }

    /// `ds_process_cqs`.
    fn process_cqs(&self, nonblock: bool, test: Test) -> Res<()> {
        let mut c = self.st.lock();
        loop {
            c.poll_cqs();
            if test(&c) {
                return Ok(());
            }
            if nonblock {
                return Err(libc::EWOULDBLOCK);
            }
            if !c.cq_armed {
                c.req_notify_cqs();
                c.cq_armed = true;
                continue;
            }
            MutexGuard::unlocked(&mut c, || {
                let _w = self.cq_wait.lock();
                self.get_cq_event()
            })?;
        }
    }

    /// `ds_get_comp`: spins for polling_time, then sleeps.
    fn get_comp(&self, nonblock: bool, test: Test) -> Res<()> {
        spin_then_sleep(nonblock, |nb| self.process_cqs(nb, test))
    }

    fn nonblocking(&self, flags: c_int) -> bool {
        self.st.lock().base.fd_flags & libc::O_NONBLOCK != 0 || flags & libc::MSG_DONTWAIT != 0
    }

    // ---- receiving ------------------------------------------------------

    /// `ds_recvfrom` (caller holds `rlock`).
    ///
    /// # Safety
    /// `buf` holds `len` bytes; `src`/`src_len` are null or valid.
    pub(crate) unsafe fn recvfrom(&self, buf: *mut u8, len: usize, flags: c_int, src: *mut libc::sockaddr, alen: *mut libc::socklen_t) -> Res<usize> {
        if self.st.lock().base.state & RS_READABLE == 0 {
            return Err(libc::EINVAL);
        }
        if self.st.lock().rmsg.is_empty() {
            self.get_comp(self.nonblocking(flags), t_have_rdata)?;
        }
        let mut c = self.st.lock();
        let m = *c.rmsg.front().ok_or(libc::EWOULDBLOCK)?;
        let q = &c.qps[m.qp];
        let rb = q.rbuf.as_ref().ok_or(libc::EINVAL)?;
        // SAFETY: a received slot of RS_SNDLOWAT bytes, its header
        // validated on completion.
        let hdr = unsafe { core::slice::from_raw_parts(rb.ptr.add(m.offset as usize), 24) };
        let hl = hdr[1] as u32;
        let n = len.min(m.length.saturating_sub(hl) as usize);
        if n > 0 {
            // SAFETY: n bytes of payload inside the slot; the caller's
            // buffer holds len >= n.
            unsafe { core::ptr::copy_nonoverlapping(rb.ptr.add((m.offset + hl) as usize), buf, n) };
        }
        if !alen.is_null() {
            let a = hdr_src(hdr);
            // SAFETY: valid per the contract.
            unsafe {
                let k = src_len(hdr, *alen as usize);
                *alen = k as libc::socklen_t;
                if !src.is_null() {
                    core::ptr::copy_nonoverlapping(a.0.as_ptr(), src.cast::<u8>(), k);
                }
            }
        }
        if flags & libc::MSG_PEEK == 0 {
            let _ = post_recv(q, c.base.rbuf_size, m.offset);
            c.rmsg.pop_front();
            c.rqe_avail += 1;
        }
        Ok(n)
    }

    // ---- sending --------------------------------------------------------

    /// Sends over the UDP socket to destination `di` (`ds_sendv_udp`),
    /// with the UDP header of its QP.
    pub(crate) fn send_udp(&self, c: &DState, di: usize, iov: &[libc::iovec], flags: c_int, op: u8) -> Res<usize> {
        if iov.len() > 8 {
            return Err(libc::EOPNOTSUPP);
        }
        let d = &c.dests[di];
        let q = &c.qps[d.qp];
        let (hdr, hlen) = udp_hdr(&q.hdr, op, q.qp_num());
        let mut miov = [libc::iovec { iov_base: null_mut(), iov_len: 0 }; 9];
        miov[0] = libc::iovec { iov_base: hdr.as_ptr() as *mut c_void, iov_len: hlen };
        miov[1..=iov.len()].copy_from_slice(iov);
        // SAFETY: all-zero is a valid msghdr.
        let mut msg: libc::msghdr = unsafe { core::mem::zeroed() };
        msg.msg_name = d.addr.0.as_ptr() as *mut c_void;
        msg.msg_namelen = d.addr.len() as libc::socklen_t;
        msg.msg_iov = miov.as_mut_ptr();
        msg.msg_iovlen = iov.len() + 1;
        // SAFETY: a complete msghdr over live buffers.
        let r = unsafe { libc::sendmsg(self.udp, &msg, flags) };
        if r < 0 {
            return Err(last_err());
        }
        Ok((r as usize).saturating_sub(hlen))
    }

    /// `dsend` to the connected (current) destination (caller holds
    /// `slock`): over UDP until the destination has an address handle.
    ///
    /// # Safety
    /// `buf` is readable for `len` bytes.
    pub(crate) unsafe fn dsend(&self, buf: *const u8, len: usize, flags: c_int) -> Res<usize> {
        let di = self.st.lock().conn_dest.ok_or(libc::EDESTADDRREQ)?;
        // SAFETY: forwarded contract.
        unsafe { self.send_to_dest(di, None, buf, len, flags) }
    }

    /// Posts `len` bytes to destination `di` over its UD QP, behind the
    /// ds header `hdr` (the QP's own when None). Over UDP while `di` has
    /// no address handle (only for the application's own data).
    ///
    /// # Safety
    /// `buf` is readable for `len` bytes.
    pub(crate) unsafe fn send_to_dest(&self, di: usize, hdr: Option<([u8; 24], u8)>, buf: *const u8, len: usize, flags: c_int) -> Res<usize> {
        {
            let c = self.st.lock();
            // Beyond the path MTU a UD send would break the QP (see
            // ah::ud_msg_limit); refused whether or not the datagram
            // would still go over UDP, so the limit does not depend on timing.
            let q = &c.qps[c.dests[di].qp];
            let hl = hdr.map_or(q.hdr_len, |h| h.1) as usize;
            if len + hl > q.max_msg as usize {
                return Err(libc::EMSGSIZE);
            }
            if c.dests[di].ah.is_null() {
                if hdr.is_some() {
                    return Ok(0);
                }
                let iov = libc::iovec { iov_base: buf as *mut c_void, iov_len: len };
                let v: &[libc::iovec] = if buf.is_null() || len == 0 { &[] } else { core::slice::from_ref(&iov) };
                return self.send_udp(&c, di, v, flags, RS_OP_DATA as u8);
            }
        }
        let hl = {
            let c = self.st.lock();
            hdr.map_or(c.qps[c.dests[di].qp].hdr_len, |h| h.1) as usize
        };
        // Upstream copies whatever it is given into the 2 KiB slot.
        if len + hl > RS_SNDLOWAT as usize {
            return Err(libc::EMSGSIZE);
        }
        if self.st.lock().sqe_avail == 0 {
            self.get_comp(self.nonblocking(flags) && hdr.is_none(), t_can_send)?;
        }
        let mut c = self.st.lock();
        let off = c.smsg_free.pop().ok_or(libc::EWOULDBLOCK)?;
        c.sqe_avail -= 1;
        let d = &c.dests[di];
        let q = &c.qps[d.qp];
        let (h, hl) = hdr.unwrap_or((q.hdr, q.hdr_len));
        let sb = c.sbuf.as_ref().ok_or(libc::EINVAL)?;
        // SAFETY: a free RS_SNDLOWAT-byte slot of the send buffer; the
        // header and payload fit (checked above).
        let slot = unsafe { sb.ptr.add(off as usize) };
        // SAFETY: as above; the caller's buffer holds len bytes.
        unsafe {
            core::ptr::copy_nonoverlapping(h.as_ptr(), slot, hl as usize);
            if len > 0 {
                core::ptr::copy_nonoverlapping(buf, slot.add(hl as usize), len);
            }
        }
        let total = hl as u32 + len as u32;
        // SAFETY: the send MR of the sending QP.
        let lkey = unsafe { (*q.smr.0).lkey };
        let mut sge = ibv_sge { addr: slot as u64, length: total, lkey };
        // SAFETY: all-zero is a valid send WR.
        let mut wr: ibv_send_wr = unsafe { core::mem::zeroed() };
        wr.wr_id = send_wr_id(off);
        wr.sg_list = &mut sge;
        wr.num_sge = 1;
        wr.opcode = IBV_WR_SEND;
        wr.send_flags = if total <= c.base.sq_inline as u32 { IBV_SEND_INLINE } else { 0 };
        wr.wr.ud = ibv_send_wr_wr_ud { ah: d.ah, remote_qpn: d.qpn, remote_qkey: RDMA_UDP_QKEY };
        let mut bad = null_mut();
        // SAFETY: the sending QP is live; wr and sge outlive the call.
        let r = unsafe { v::post_send(q.qp(), &mut wr, &mut bad) };
        if r != 0 {
            return Err(if r > 0 { r } else { last_err() });
        }
        Ok(len)
    }

    // ---- nonblocking mode and shutdown ----------------------------------

    /// `rs_set_nonblocking` for a datagram socket: the epoll set and every
    /// completion channel.
    pub(super) fn set_nonblocking(&self, c: &DState, on: bool) -> Res<()> {
        let arg = if on { libc::O_NONBLOCK } else { 0 };
        // SAFETY: fcntl on our epoll descriptor.
        sys(unsafe { libc::fcntl(self.epfd, libc::F_SETFL, arg) })?;
        for q in &c.qps {
            // SAFETY: the QP's live channel.
            sys(unsafe { libc::fcntl((*q.channel()).fd, libc::F_SETFL, arg) })?;
        }
        Ok(())
    }

    /// The rest of `ds_shutdown` once the socket has left the UDP service:
    /// wait (blocking) for the sends in flight.
    pub(super) fn shutdown(&self) {
        let nb = self.st.lock().base.fd_flags & libc::O_NONBLOCK != 0;
        if nb {
            let c = self.st.lock();
            let _ = self.set_nonblocking(&c, false);
        }
        let ep = {
            let mut c = self.st.lock();
            c.base.state &= !(RS_READABLE | RS_WRITABLE);
            c.sbuf.is_some()
        };
        // Upstream also waits on a socket that never got its endpoint
        // (never bound, connected or sent on): no send slots exist, so
        // "all sends done" never holds and rclose sleeps forever on an
        // empty epoll set. Nothing can be in flight there: skip it.
        if ep {
            let _ = self.process_cqs(false, t_all_sends_done);
        }
        if nb {
            let c = self.st.lock();
            let _ = self.set_nonblocking(&c, true);
        }
    }

    /// What rpoll reports (`rs_poll_rs` for a datagram socket).
    fn poll_revents(&self, events: i16, nonblock: bool, test: Test) -> i16 {
        let _ = self.process_cqs(nonblock, test);
        let c = self.st.lock();
        let mut rev = 0;
        if events & libc::POLLIN != 0 && !c.rmsg.is_empty() {
            rev |= libc::POLLIN;
        }
        if events & libc::POLLOUT != 0 && c.sqe_avail > 0 {
            rev |= libc::POLLOUT;
        }
        rev
    }

    /// rpoll's non-sleeping check of a datagram rsocket.
    pub(crate) fn poll_check(&self, events: i16) -> i16 {
        self.poll_revents(events, true, t_poll_all)
    }

    /// rpoll's arming step: the events now, else the fd to sleep on (the
    /// epoll set of the socket's completion channels).
    pub(crate) fn poll_arm(&self, events: i16) -> (i16, c_int) {
        (self.poll_revents(events, false, t_cq_armed), self.epfd)
    }

    /// After rpoll woke for the epoll set: take the event, then report.
    pub(crate) fn poll_event(&self, woke: bool, events: i16) -> i16 {
        if woke {
            let _w = self.cq_wait.lock();
            let _ = self.get_cq_event();
        }
        self.poll_revents(events, true, t_poll_all)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(sq: u16, rq: u16, sbuf: u32, rbuf: u32) -> DState {
        DState::new(sbuf, rbuf, sq, rq, 64)
    }

    #[test]
    fn queue_sizes_follow_the_buffers_as_upstream() {
        // defaults: 384 WRs, 128 KiB buffers -> 64 WRs of 2 KiB
        let mut c = state(384, 384, 1 << 17, 1 << 17);
        set_qp_size(16384, &mut c);
        assert_eq!((c.base.sq_size, c.base.rq_size, c.base.sbuf_size, c.base.rbuf_size), (64, 64, 1 << 17, 1 << 17));
        // udpong's 1 MiB buffers (SO_*BUF 512 KiB, doubled): the queues bound
        let mut c = state(384, 384, 1 << 20, 1 << 20);
        set_qp_size(16384, &mut c);
        assert_eq!((c.base.sq_size, c.base.rq_size, c.base.sbuf_size, c.base.rbuf_size), (384, 384, 384 * 2048, 384 * 2048));
        // the device's limit comes first
        let mut c = state(384, 384, 1 << 20, 1 << 20);
        set_qp_size(100, &mut c);
        assert_eq!((c.base.sq_size, c.base.rq_size, c.base.rbuf_size), (100, 100, 100 * 2048));
    }
}
