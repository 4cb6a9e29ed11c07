//! Stream rsockets: the connection (private-data exchange over the RDMA CM)
//! and the data path (RDMA WRITE with immediate into the peer's receive
//! buffer, credits returned as SGL updates).
//!
//! Flow control, as upstream's protocol defines it:
//! - the receive buffer is split in two halves; the peer may write into the
//!   half it was last given (the "target SGL" ring of [`RS_SGL_SIZE`]
//!   entries, written by us with RDMA and read by the peer);
//! - each data message uses one receive WR at the peer; the peer returns
//!   "credits" (an RS_OP_SGL immediate carrying the new sequence limit)
//!   every half receive queue, together with a new buffer half once half
//!   the buffer has been consumed;
//! - at most RS_QP_CTRL_SIZE control messages are in flight.
//!
//! Locking: `slock` serialises senders and `rlock` receivers for a whole
//! call (so one call's bytes are not interleaved with another's), `st`
//! guards every field (it stands for upstream's cq_lock and is never held
//! while sleeping), and `cq_wait` serialises sleeping on the completion
//! channel. A thread sleeps with `cq_wait` only; any other thread may poll
//! the CQ meanwhile and make progress.

use core::ffi::{c_int, c_void};
use core::ptr::null_mut;
use rdma_util::fallible::Shared;

use parking_lot::{Mutex, MutexGuard};

use super::base::*;
use super::config;
use super::proto::*;
use crate::abi::cma::*;
use crate::abi::verbs::*;
use crate::id::{Id, Res};
use crate::verbs as v;

/// One received message: opcode and byte count still unread.
#[derive(Clone, Copy, Default)]
pub(crate) struct RsMsg {
    /// Recorded as the wire gave it; nothing reads it yet.
    #[allow(dead_code)]
    pub(crate) op: u32,
    pub(crate) data: u32,
}

/// Page-aligned zeroed memory (so that fork-safe MRs never share a page
/// with other data), freed on drop.
pub(crate) struct PageBuf {
    pub(crate) ptr: *mut u8,
}

impl PageBuf {
    pub(crate) fn new(len: usize) -> Res<PageBuf> {
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as usize;
        let len = len.max(1).div_ceil(page) * page;
        let mut p: *mut c_void = null_mut();
        // SAFETY: p is a valid out pointer; page is a power of two.
        if unsafe { libc::posix_memalign(&mut p, page, len) } != 0 {
            return Err(libc::ENOMEM);
        }
        // SAFETY: p holds len freshly allocated bytes.
        unsafe { core::ptr::write_bytes(p.cast::<u8>(), 0, len) };
        Ok(PageBuf { ptr: p.cast() })
    }
}

impl Drop for PageBuf {
    fn drop(&mut self) {
        // SAFETY: allocated by posix_memalign in new().
        unsafe { libc::free(self.ptr.cast()) };
    }
}

/// A registered region, deregistered on drop (before its memory goes).
pub(crate) struct Mr(pub(crate) *mut ibv_mr);

impl Drop for Mr {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: registered by us and not yet deregistered.
            unsafe { v::ibv_dereg_mr(self.0) };
        }
    }
}

/// The registered buffers of a connected socket. Field order is drop
/// order: the MRs go before their memory.
pub(crate) struct Bufs {
    pub(crate) smr: Mr,
    pub(crate) rmr: Mr,
    pub(crate) tmr: Mr,
    pub(crate) sbuf: PageBuf,
    pub(crate) rbuf: PageBuf,
    /// Target SGL ring followed by the iomap table (written by the peer).
    pub(crate) tbuf: PageBuf,
}

/// Everything about a socket that changes; guarded by `Rsocket::st`.
pub(crate) struct Conn {
    /// State, options, sizes: what a datagram socket has too.
    pub(crate) base: SockBase,
    pub(crate) retries: u32,
    pub(crate) cq_armed: bool,
    pub(crate) unack_cqe: u32,
    pub(crate) keepalive_time: u32,

    pub(crate) ctrl_seqno: u32,
    pub(crate) ctrl_max_seqno: u32,
    pub(crate) sseq_no: u16,
    pub(crate) sseq_comp: u16,
    pub(crate) rseq_no: u16,
    pub(crate) rseq_comp: u16,
    pub(crate) sqe_avail: i32,

    pub(crate) remote_sge: u32,
    pub(crate) remote_sgl: RsSge,
    pub(crate) remote_iomap: RsSge,
    pub(crate) target_sge: usize,

    pub(crate) rbuf_msg_index: u32,
    pub(crate) rbuf_bytes_avail: i64,
    pub(crate) rbuf_free_offset: u32,
    pub(crate) rbuf_offset: u32,
    pub(crate) sbuf_bytes_avail: u32,
    pub(crate) ssgl: [ibv_sge; 2],

    pub(crate) rmsg: Vec<RsMsg>,
    pub(crate) rmsg_head: usize,
    pub(crate) rmsg_tail: usize,

    pub(crate) qp: *mut ibv_qp,
    pub(crate) cq: *mut ibv_cq,
    pub(crate) bufs: Option<Bufs>,
    pub(crate) accept_queue: [c_int; 2],

    /// Local mappings announced to the peer (or local-only ones).
    pub(crate) iomap_list: Vec<IoMr>,
    /// Writable mappings still to announce (before the next send).
    pub(crate) iomap_queue: std::collections::VecDeque<IoMr>,
    /// Which slots of the peer's iomap table we fill.
    pub(crate) iomap_slots: Vec<bool>,
}

/// A registered mapping of riomap: its offset, the MR and its slot in the
/// peer's iomap table (-1: not announced, no remote write access).
pub(crate) struct IoMr {
    pub(crate) offset: u64,
    pub(crate) mr: Mr,
    pub(crate) index: i32,
}

/// A stream rsocket.
pub(crate) struct Rsocket {
    /// The CM id (synchronous: it owns its event channel); destroyed when
    /// the last reference goes.
    pub(crate) cm_id: *mut rdma_cm_id,
    pub(crate) slock: Mutex<()>,
    pub(crate) rlock: Mutex<()>,
    pub(crate) cq_wait: Mutex<()>,
    pub(crate) st: Mutex<Conn>,
}

// SAFETY: the raw pointers inside (CM id, QP, CQ, buffers) are owned by the
// socket; the verbs objects are thread-safe, the id's fields are touched
// under `slock`/`st` (or by the CM service thread, which the socket leaves
// before it is freed) and the buffers under `st`.
unsafe impl Send for Rsocket {}
// SAFETY: see Send; all mutation goes through the mutexes.
unsafe impl Sync for Rsocket {}

impl Drop for Rsocket {
    fn drop(&mut self) {
        let c = self.st.get_mut();
        if c.accept_queue[0] > 0 || c.accept_queue[1] > 0 {
            // SAFETY: our own socketpair.
            unsafe {
                libc::close(c.accept_queue[0]);
                libc::close(c.accept_queue[1]);
            }
        }
        if self.cm_id.is_null() {
            return;
        }
        // Mappings go before the id: the id may hold the last reference
        // on the device's protection domain.
        c.iomap_list.clear();
        c.iomap_queue.clear();
        // SAFETY: the id is ours and no other thread uses it any more (the
        // last reference is going and the CM service dropped it first).
        unsafe {
            let id = Id::from_cm(self.cm_id);
            if !id.qp().is_null() {
                if c.unack_cqe != 0 {
                    v::ibv_ack_cq_events(id.recv_cq(), c.unack_cqe);
                }
                c.bufs = None;
                crate::qp::rdma_destroy_qp(self.cm_id);
            }
            c.bufs = None;
            crate::id::rdma_destroy_id(self.cm_id);
        }
    }
}

/// Sets errno from a verbs return value (0 or a positive errno), like
/// `rdma_seterrno`.
fn verbs_ret(r: c_int) -> Res<()> {
    if r == 0 {
        Ok(())
    } else {
        Err(if r > 0 { r } else { rdma_util::ffi::errno() })
    }
}

/// The current errno as an error.
pub(super) fn last_err() -> c_int {
    let e = rdma_util::ffi::errno();
    if e == 0 {
        libc::EIO
    } else {
        e
    }
}

/// Turns an exported function's -1 into Err(errno).
pub(super) fn cm_ret(r: c_int) -> Res<()> {
    if r == 0 {
        Ok(())
    } else {
        Err(last_err())
    }
}

impl Conn {
    /// A fresh socket's state: the process defaults, or the listener's
    /// sizes for an accepted one.
    pub(crate) fn new(inherit: Option<&Conn>) -> Conn {
        let cfg = config::get();
        let (sbuf_size, rbuf_size, sq_inline, sq_size, rq_size, ctrl_max, iomap) = match inherit {
            Some(l) => (l.base.sbuf_size, l.base.rbuf_size, l.base.sq_inline, l.base.sq_size, l.base.rq_size, l.ctrl_max_seqno, l.base.target_iomap_size),
            None => (
                cfg.wmem_default,
                cfg.mem_default,
                cfg.inline_default,
                cfg.sqsize_default,
                cfg.rqsize_default,
                RS_QP_CTRL_SIZE,
                cfg.iomap_size,
            ),
        };
        Conn {
            base: SockBase::new(sbuf_size, rbuf_size, sq_size, rq_size, sq_inline, iomap),
            retries: 0,
            cq_armed: false,
            unack_cqe: 0,
            keepalive_time: 0,
            ctrl_seqno: 0,
            ctrl_max_seqno: ctrl_max,
            sseq_no: 0,
            sseq_comp: 0,
            rseq_no: 0,
            rseq_comp: 0,
            sqe_avail: 0,
            remote_sge: 0,
            remote_sgl: RsSge::default(),
            remote_iomap: RsSge::default(),
            target_sge: 0,
            rbuf_msg_index: 0,
            rbuf_bytes_avail: 0,
            rbuf_free_offset: 0,
            rbuf_offset: 0,
            sbuf_bytes_avail: 0,
            ssgl: [ibv_sge { addr: 0, length: 0, lkey: 0 }; 2],
            rmsg: Vec::new(),
            rmsg_head: 0,
            rmsg_tail: 0,
            qp: null_mut(),
            cq: null_mut(),
            bufs: None,
            accept_queue: [-1, -1],
            iomap_list: Vec::new(),
            iomap_queue: std::collections::VecDeque::new(),
            iomap_slots: Vec::new(),
        }
    }

    fn bufs(&self) -> &Bufs {
        self.bufs.as_ref().expect("rsocket buffers exist once connected")
    }

    /// Entry `i` of the target SGL ring (the peer writes it with RDMA).
    pub(crate) fn target_sgl(&self, i: usize) -> RsSge {
        let p = self.bufs().tbuf.ptr.cast::<RsSge>();
        // SAFETY: the ring has RS_SGL_SIZE entries at the start of tbuf;
        // the peer may change it at any time, hence the volatile read.
        unsafe { core::ptr::read_volatile(p.add(i)) }
    }

    fn set_target_sgl(&self, i: usize, s: RsSge) {
        let p = self.bufs().tbuf.ptr.cast::<RsSge>();
        // SAFETY: as in target_sgl.
        unsafe { core::ptr::write_volatile(p.add(i), s) };
    }

    /// The target entry being filled.
    fn cur_target(&self) -> RsSge {
        self.target_sgl(self.target_sge)
    }

    #[inline]
    pub(crate) fn ctrl_avail(&self) -> bool {
        self.ctrl_seqno != self.ctrl_max_seqno
    }

    fn ctrl2_avail(&self) -> bool {
        (self.ctrl_seqno.wrapping_add(1).wrapping_sub(self.ctrl_max_seqno) as i32) < 0
    }

    #[inline]
    pub(crate) fn can_send(&self) -> bool {
        if self.bufs.is_none() {
            return false;
        }
        let sqe = if self.base.opts & RS_OPT_MSG_SEND == 0 { self.sqe_avail > 0 } else { self.sqe_avail >= 2 };
        sqe && self.sbuf_bytes_avail >= RS_SNDLOWAT && self.sseq_no != self.sseq_comp && self.cur_target().length != 0
    }

    fn conn_can_send(&self) -> bool {
        self.can_send() || self.base.state & RS_WRITABLE == 0
    }

    fn conn_can_send_ctrl(&self) -> bool {
        self.ctrl_avail() || self.base.state & RS_CONNECTED == 0
    }

    #[inline]
    pub(crate) fn have_rdata(&self) -> bool {
        self.rmsg_head != self.rmsg_tail
    }

    /// The peer broke the protocol (see [`Conn::take_message`]): reads
    /// and sends fail with ECONNRESET from then on.
    pub(crate) fn reset_by_peer(&self) -> bool {
        self.base.state & RS_ERROR != 0 && self.base.err == libc::ECONNRESET
    }

    fn conn_have_rdata(&self) -> bool {
        self.have_rdata() || self.base.state & RS_READABLE == 0
    }

    /// What rpoll reports for a connected (or formerly connected) stream
    /// socket, completions already processed.
    ///
    /// Upstream v44 adds POLLHUP as soon as the peer's DISCONNECT (or a
    /// SHUTDOWN after our own) has been processed, even when the data that
    /// came before it is still unread; a caller that treats POLLHUP as the
    /// end (rstream -T a does) then drops the tail of the stream. The
    /// DISCONNECT is sent right after the last data, so this happens
    /// whenever the receiver polls late (seen in the VM with Debian's
    /// library on both sides too). Here a hang-up is held back while the
    /// caller asked for POLLIN and unread data remains: it gets POLLIN, reads,
    /// and the next rpoll reports POLLHUP (with POLLIN, for end of file),
    /// as a TCP socket reports the peer's close only after its data.
    /// POLLIN is always reported in that case, so rpoll never sleeps on a
    /// socket whose hang-up is held back. Errors are reported at once.
    pub(crate) fn stream_revents(&self, events: i16) -> i16 {
        let mut rev = 0;
        if events & libc::POLLIN != 0 && self.conn_have_rdata() {
            rev |= libc::POLLIN;
        }
        if events & libc::POLLOUT != 0 && self.can_send() {
            rev |= libc::POLLOUT;
        }
        if self.base.state & RS_CONNECTED == 0 {
            if self.base.state != RS_DISCONNECTED {
                rev |= libc::POLLERR;
            } else if !(events & libc::POLLIN != 0 && self.have_rdata()) {
                rev |= libc::POLLHUP;
            }
        }
        rev
    }

    fn conn_all_sends_done(&self) -> bool {
        (self.ctrl_max_seqno as i32 - self.ctrl_seqno as i32) + self.sqe_avail == self.base.sq_size as i32
            || self.base.state & RS_CONNECTED == 0
    }

    fn sbuf_left(&self) -> u32 {
        let b = self.bufs();
        (b.sbuf.ptr as u64 + self.base.sbuf_size as u64 - self.ssgl[0].addr) as u32
    }

    // ---- posting --------------------------------------------------------

    fn post_recv(&mut self) -> Res<()> {
        let mut sge = ibv_sge { addr: 0, length: 0, lkey: 0 };
        // SAFETY: all-zero is a valid recv WR (null pointers, zero counts).
        let mut wr: ibv_recv_wr = unsafe { core::mem::zeroed() };
        if self.base.opts & RS_OPT_MSG_SEND == 0 {
            wr.wr_id = recv_wr_id(0);
        } else {
            let b = self.bufs();
            wr.wr_id = recv_wr_id(self.rbuf_msg_index);
            sge.addr = b.rbuf.ptr as u64 + self.base.rbuf_size as u64 + (self.rbuf_msg_index * RS_MSG_SIZE) as u64;
            sge.length = RS_MSG_SIZE;
            // SAFETY: the MR is live while bufs is.
            sge.lkey = unsafe { (*b.rmr.0).lkey };
            wr.sg_list = &mut sge;
            wr.num_sge = 1;
            self.rbuf_msg_index += 1;
            if self.rbuf_msg_index == self.base.rq_size as u32 {
                self.rbuf_msg_index = 0;
            }
        }
        let mut bad = null_mut();
        // SAFETY: our live QP; wr and sge outlive the call.
        verbs_ret(unsafe { v::post_recv(self.qp, &mut wr, &mut bad) })
    }

    #[inline]
    fn post_send(&self, wr: &mut ibv_send_wr) -> Res<()> {
        let mut bad = null_mut();
        // SAFETY: our live QP; the WR and its SGEs outlive the call.
        verbs_ret(unsafe { v::post_send(self.qp, wr, &mut bad) })
    }

    fn zero_wr() -> ibv_send_wr {
        // SAFETY: all-zero is a valid send WR (null pointers, zero values).
        unsafe { core::mem::zeroed() }
    }

    /// A message without payload (credits, control).
    pub(crate) fn post_msg(&self, msg: u32) -> Res<()> {
        let mut wr = Self::zero_wr();
        wr.wr_id = send_wr_id(msg);
        let mut m = msg;
        let mut sge = ibv_sge { addr: &mut m as *mut u32 as u64, length: 4, lkey: 0 };
        if self.base.opts & RS_OPT_MSG_SEND == 0 {
            wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
            wr.imm.imm_data = msg.to_be();
        } else {
            wr.sg_list = &mut sge;
            wr.num_sge = 1;
            wr.opcode = IBV_WR_SEND;
            wr.send_flags = IBV_SEND_INLINE;
        }
        self.post_send(&mut wr)
    }

    /// A plain RDMA WRITE (no notification at the peer).
    pub(crate) fn post_write(&self, sgl: *mut ibv_sge, nsge: c_int, wr_data: u32, flags: u32, addr: u64, rkey: u32) -> Res<()> {
        let mut wr = Self::zero_wr();
        wr.wr_id = send_wr_id(wr_data);
        wr.sg_list = sgl;
        wr.num_sge = nsge;
        wr.opcode = IBV_WR_RDMA_WRITE;
        wr.send_flags = flags;
        wr.wr.rdma = ibv_send_wr_wr_rdma { remote_addr: addr, rkey };
        self.post_send(&mut wr)
    }

    /// An RDMA WRITE that tells the peer about it (`msg` as immediate data,
    /// or as a following SEND in message mode).
    #[inline]
    fn post_write_msg(&self, sgl: *mut ibv_sge, nsge: c_int, msg: u32, flags: u32, addr: u64, rkey: u32) -> Res<()> {
        if self.base.opts & RS_OPT_MSG_SEND == 0 {
            let mut wr = Self::zero_wr();
            wr.wr_id = send_wr_id(msg);
            wr.sg_list = sgl;
            wr.num_sge = nsge;
            wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
            wr.send_flags = flags;
            wr.imm.imm_data = msg.to_be();
            wr.wr.rdma = ibv_send_wr_wr_rdma { remote_addr: addr, rkey };
            self.post_send(&mut wr)
        } else {
            self.post_write(sgl, nsge, msg, flags, addr, rkey)?;
            let mut m = msg;
            let mut sge = ibv_sge { addr: &mut m as *mut u32 as u64, length: 4, lkey: 0 };
            let mut wr = Self::zero_wr();
            wr.wr_id = send_wr_id(msg_set(msg_op(msg), 0)) | WR_ID_FLAG_MSG_SEND;
            wr.sg_list = &mut sge;
            wr.num_sge = 1;
            wr.opcode = IBV_WR_SEND;
            wr.send_flags = IBV_SEND_INLINE;
            self.post_send(&mut wr)
        }
    }

    /// Sends `length` bytes described by `sgl` into the current target
    /// buffer, advancing it first (the peer may replace the entry as soon
    /// as the data lands).
    #[inline]
    fn write_data(&mut self, sgl: *mut ibv_sge, nsge: c_int, length: u32, flags: u32) -> Res<()> {
        self.sseq_no = self.sseq_no.wrapping_add(1);
        self.sqe_avail -= 1;
        if self.base.opts & RS_OPT_MSG_SEND != 0 {
            self.sqe_avail -= 1;
        }
        self.sbuf_bytes_avail -= length;
        let mut t = self.cur_target();
        let (addr, rkey) = (t.addr, t.key);
        t.addr = t.addr.wrapping_add(length as u64);
        t.length = t.length.wrapping_sub(length);
        self.set_target_sgl(self.target_sge, t);
        if t.length == 0 {
            self.target_sge += 1;
            if self.target_sge == RS_SGL_SIZE {
                self.target_sge = 0;
            }
        }
        self.post_write_msg(sgl, nsge, msg_set(RS_OP_DATA, length), flags, addr, rkey)
    }

    /// Control-message buffer for this sequence number (after the send
    /// buffer; used when the SGE cannot go inline).
    fn ctrl_buf(&self) -> *mut u8 {
        let b = self.bufs();
        // SAFETY: the send buffer was allocated with RS_QP_CTRL_SIZE
        // control slots after sbuf_size when inline is too small.
        unsafe {
            b.sbuf
                .ptr
                .add(self.base.sbuf_size as usize + (RS_MAX_CTRL_MSG * (self.ctrl_seqno & (RS_QP_CTRL_SIZE - 1))) as usize)
        }
    }

    /// Returns receive credits, with a new buffer half when one is free.
    fn send_credits(&mut self) {
        self.ctrl_seqno = self.ctrl_seqno.wrapping_add(1);
        self.rseq_comp = self.rseq_no.wrapping_add(self.base.rq_size >> 1);
        let credit = msg_set(RS_OP_SGL, (self.rseq_no as u32).wrapping_add(self.base.rq_size as u32) & 0x1FFF_FFFF);
        if self.rbuf_bytes_avail >= (self.base.rbuf_size >> 1) as i64 {
            if self.base.opts & RS_OPT_MSG_SEND != 0 {
                self.ctrl_seqno = self.ctrl_seqno.wrapping_add(1);
            }
            let b = self.bufs();
            // SAFETY: the MRs are live while bufs is.
            let (rkey, smr_lkey) = unsafe { ((*b.rmr.0).rkey, (*b.smr.0).lkey) };
            let mut sge = RsSge {
                addr: b.rbuf.ptr as u64 + self.rbuf_free_offset as u64,
                key: rkey,
                length: self.base.rbuf_size >> 1,
            };
            if self.base.opts & RS_OPT_SWAP_SGL != 0 {
                sge = RsSge { addr: sge.addr.swap_bytes(), key: sge.key.swap_bytes(), length: sge.length.swap_bytes() };
            }
            let (mut ibsge, flags) = if (self.base.sq_inline as u32) < RS_MAX_CTRL_MSG {
                let buf = self.ctrl_buf();
                // SAFETY: a 16-byte control slot inside the send buffer.
                unsafe { core::ptr::write_unaligned(buf.cast::<RsSge>(), sge) };
                (ibv_sge { addr: buf as u64, length: RS_MAX_CTRL_MSG, lkey: smr_lkey }, 0)
            } else {
                (ibv_sge { addr: &sge as *const RsSge as u64, length: RS_MAX_CTRL_MSG, lkey: 0 }, IBV_SEND_INLINE)
            };
            let raddr = self.remote_sgl.addr + self.remote_sge as u64 * RS_MAX_CTRL_MSG as u64;
            let _ = self.post_write_msg(&mut ibsge, 1, credit, flags, raddr, self.remote_sgl.key);
            self.rbuf_bytes_avail -= (self.base.rbuf_size >> 1) as i64;
            self.rbuf_free_offset += self.base.rbuf_size >> 1;
            if self.rbuf_free_offset >= self.base.rbuf_size {
                self.rbuf_free_offset = 0;
            }
            self.remote_sge += 1;
            if self.remote_sge == self.remote_sgl.length {
                self.remote_sge = 0;
            }
        } else {
            let _ = self.post_msg(credit);
        }
    }

    #[inline]
    fn give_credits(&self) -> bool {
        let want = self.rbuf_bytes_avail >= (self.base.rbuf_size >> 1) as i64
            || (self.rseq_no as i16).wrapping_sub(self.rseq_comp as i16) >= 0;
        let ctrl = if self.base.opts & RS_OPT_MSG_SEND == 0 { self.ctrl_avail() } else { self.ctrl2_avail() };
        want && ctrl && self.base.state & RS_CONNECTED != 0
    }

    #[inline]
    fn update_credits(&mut self) {
        if self.bufs.is_some() && self.give_credits() {
            self.send_credits();
        }
    }

    /// Drains the CQ, updating credits, the receive queue and the state.
    #[inline]
    /// Takes in one received message (its immediate `msg`). False when
    /// it ends reading (a DISCONNECT, or a SHUTDOWN while we cannot write):
    /// the caller stops polling then. A message that breaks the protocol
    /// (data longer than the whole receive buffer, which rrecv would read
    /// past) puts the connection in error, ECONNRESET, and is dropped; the
    /// data queued before it can still be read.
    pub(crate) fn take_message(&mut self, msg: u32) -> bool {
        match msg_op(msg) {
            RS_OP_SGL => self.sseq_comp = msg_data(msg) as u16,
            RS_OP_IOMAP_SGL | RS_OP_WRITE => {}
            RS_OP_CTRL => match msg_data(msg) {
                RS_CTRL_DISCONNECT => {
                    self.base.state = RS_DISCONNECTED;
                    return false;
                }
                RS_CTRL_SHUTDOWN => {
                    if self.base.state & RS_WRITABLE != 0 {
                        self.base.state &= !RS_READABLE;
                    } else {
                        self.base.state = RS_DISCONNECTED;
                        return false;
                    }
                }
                _ => {}
            },
            op => {
                if msg_data(msg) > self.base.rbuf_size {
                    self.base.state = RS_ERROR;
                    self.base.err = libc::ECONNRESET;
                    return true;
                }
                self.rmsg[self.rmsg_tail] = RsMsg { op, data: msg_data(msg) };
                self.rmsg_tail += 1;
                if self.rmsg_tail == self.base.rq_size as usize + 1 {
                    self.rmsg_tail = 0;
                }
            }
        }
        true
    }

    pub(crate) fn poll_cq(&mut self) -> Res<()> {
        if self.cq.is_null() {
            return Ok(());
        }
        // Not zeroed: an empty poll, which a spinning caller repeats, then
        // costs no more than the provider's look at its queue. Only the
        // fields the provider writes for every completion it returns are
        // read (ibv_poll_cq(3): wr_id and status always, wc_flags and the
        // immediate on success), through the raw pointer.
        let mut slot = core::mem::MaybeUninit::<ibv_wc>::uninit();
        let wcp = slot.as_mut_ptr();
        let mut rcnt = 0u32;
        let mut ret;
        loop {
            // SAFETY: our live CQ and one wc slot.
            ret = unsafe { v::poll_cq(self.cq, 1, wcp) };
            if ret <= 0 {
                break;
            }
            // SAFETY: written by the provider for the completion it returned.
            let (wr_id, status) = unsafe { ((*wcp).wr_id, (*wcp).status) };
            if wr_id & WR_ID_FLAG_RECV != 0 {
                if status != IBV_WC_SUCCESS {
                    continue;
                }
                rcnt += 1;
                if self.base.state & RS_ERROR != 0 {
                    // After a protocol violation nothing more is taken in.
                    continue;
                }
                // SAFETY: written on success.
                let msg = if unsafe { (*wcp).wc_flags } & IBV_WC_WITH_IMM != 0 {
                    // SAFETY: the flag says the union holds the immediate.
                    u32::from_be(unsafe { (*wcp).imm.imm_data })
                } else {
                    let b = self.bufs();
                    // SAFETY: message-mode slots follow the receive buffer;
                    // the index came from our own WR id.
                    unsafe {
                        core::ptr::read_unaligned(
                            b.rbuf.ptr.add(self.base.rbuf_size as usize + wr_data(wr_id) as usize * 4).cast::<u32>(),
                        )
                    }
                };
                if !self.take_message(msg) {
                    return Ok(());
                }
            } else {
                let data = wr_data(wr_id);
                match msg_op(data) {
                    RS_OP_SGL => self.ctrl_max_seqno = self.ctrl_max_seqno.wrapping_add(1),
                    RS_OP_CTRL => {
                        self.ctrl_max_seqno = self.ctrl_max_seqno.wrapping_add(1);
                        if msg_data(data) == RS_CTRL_DISCONNECT {
                            self.base.state = RS_DISCONNECTED;
                        }
                    }
                    RS_OP_IOMAP_SGL => {
                        self.sqe_avail += 1;
                        if wr_id & WR_ID_FLAG_MSG_SEND == 0 {
                            self.sbuf_bytes_avail += core::mem::size_of::<RsIomap>() as u32;
                        }
                    }
                    _ => {
                        self.sqe_avail += 1;
                        self.sbuf_bytes_avail += msg_data(data);
                    }
                }
                if status != IBV_WC_SUCCESS && self.base.state & RS_CONNECTED != 0 {
                    self.base.state = RS_ERROR;
                    self.base.err = libc::EIO;
                }
            }
        }
        let mut res = if ret < 0 { Err(libc::EIO) } else { Ok(()) };
        if self.base.state & RS_ERROR != 0 && self.base.err == libc::ECONNRESET {
            return Err(libc::ECONNRESET);
        }
        if self.base.state & RS_CONNECTED != 0 {
            while res.is_ok() && rcnt > 0 {
                rcnt -= 1;
                res = self.post_recv();
            }
            if let Err(e) = res {
                self.base.state = RS_ERROR;
                self.base.err = e;
            }
        }
        res
    }

    /// Sizes the queues within the device's limits.
    fn set_qp_size(&mut self, cm_id: *mut rdma_cm_id) {
        let dev = Id::from_cm(cm_id).cma_dev();
        let max = crate::cma::max_qpsize((!dev.is_null()).then_some(dev)).clamp(0, RS_QP_MAX_SIZE as i32) as u16;
        if self.base.sq_size > max {
            self.base.sq_size = max;
        } else if self.base.sq_size < RS_QP_MIN_SIZE {
            self.base.sq_size = RS_QP_MIN_SIZE;
        }
        if self.base.rq_size > max {
            self.base.rq_size = max;
        } else if self.base.rq_size < RS_QP_MIN_SIZE {
            self.base.rq_size = RS_QP_MIN_SIZE;
        }
    }

    /// Allocates and registers the buffers.
    fn init_bufs(&mut self, cm_id: *mut rdma_cm_id) -> Res<()> {
        self.rmsg = rdma_util::fallible::vec_filled(RsMsg::default(), self.base.rq_size as usize + 1).map_err(|_| libc::ENOMEM)?;
        // SAFETY: the id is bound to a device, so its pd is live.
        let pd = unsafe { (*cm_id).pd };
        let reg = |b: &PageBuf, len: usize, access: u32| -> Res<Mr> {
            // SAFETY: b holds at least len bytes and outlives the MR (Bufs
            // drops MRs first).
            let mr = unsafe { v::ibv_reg_mr(pd, b.ptr.cast(), len, access as c_int) };
            if mr.is_null() {
                Err(last_err())
            } else {
                Ok(Mr(mr))
            }
        };
        let mut total_s = self.base.sbuf_size as usize;
        if (self.base.sq_inline as u32) < RS_MAX_CTRL_MSG {
            total_s += (RS_MAX_CTRL_MSG * RS_QP_CTRL_SIZE) as usize;
        }
        let sbuf = PageBuf::new(total_s)?;
        let smr = reg(&sbuf, total_s, IBV_ACCESS_LOCAL_WRITE)?;
        let tlen = core::mem::size_of::<RsSge>() * RS_SGL_SIZE
            + core::mem::size_of::<RsIomap>() * self.base.target_iomap_size as usize;
        let tbuf = PageBuf::new(tlen)?;
        let tmr = reg(&tbuf, tlen, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)?;
        let mut total_r = self.base.rbuf_size as usize;
        if self.base.opts & RS_OPT_MSG_SEND != 0 {
            total_r += self.base.rq_size as usize * RS_MSG_SIZE as usize;
        }
        let rbuf = PageBuf::new(total_r)?;
        let rmr = reg(&rbuf, total_r, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)?;
        // SAFETY: just registered.
        let lkey = unsafe { (*smr.0).lkey };
        let base = sbuf.ptr as u64;
        self.ssgl = [ibv_sge { addr: base, length: 0, lkey }; 2];
        self.bufs = Some(Bufs { smr, rmr, tmr, sbuf, rbuf, tbuf });
        self.sbuf_bytes_avail = self.base.sbuf_size;
        self.rbuf_free_offset = self.base.rbuf_size >> 1;
        self.rbuf_bytes_avail = (self.base.rbuf_size >> 1) as i64;
        self.sqe_avail = self.base.sq_size as i32 - self.ctrl_max_seqno as i32;
        self.rseq_comp = self.base.rq_size >> 1;
        Ok(())
    }

    /// Completion channel and CQ (armed once, so the first completion
    /// wakes a poller), QP, buffers and receives.
    ///
    /// # Safety
    /// `cm_id` is the socket's live id, bound to a device.
    pub(crate) unsafe fn create_ep(&mut self, cm_id: *mut rdma_cm_id) -> Res<()> {
        self.set_qp_size(cm_id);
        let id = Id::from_cm(cm_id);
        // SAFETY: the id is bound to a device (verbs and device live).
        if unsafe { (*id.verbs()).device.as_ref() }.is_some_and(|d| d.transport_type == IBV_TRANSPORT_IWARP) {
            self.base.opts |= RS_OPT_MSG_SEND;
        }
        // SAFETY: a live context.
        let ch = unsafe { v::ibv_create_comp_channel(id.verbs()) };
        if ch.is_null() {
            return Err(last_err());
        }
        let cqe = self.base.sq_size as c_int + self.base.rq_size as c_int;
        // SAFETY: live context and channel.
        let cq = unsafe { v::ibv_create_cq(id.verbs(), cqe, cm_id.cast(), ch, 0) };
        if cq.is_null() {
            let e = last_err();
            // SAFETY: created above, unused.
            unsafe { v::ibv_destroy_comp_channel(ch) };
            return Err(e);
        }
        // SAFETY: the channel's fd is ours.
        let chfd = unsafe { (*ch).fd };
        if self.base.fd_flags & libc::O_NONBLOCK != 0 && set_nonblock(chfd, true).is_err() {
            let e = last_err();
            // SAFETY: created above, unused.
            unsafe {
                v::ibv_destroy_cq(cq);
                v::ibv_destroy_comp_channel(ch);
            }
            return Err(e);
        }
        // SAFETY: live CQ.
        unsafe { v::req_notify_cq(cq, 0) };
        id.set_recv_cq_channel(ch);
        id.set_send_cq_channel(ch);
        id.set_recv_cq(cq);
        id.set_send_cq(cq);

        // SAFETY: all-zero is a valid init attr.
        let mut attr: ibv_qp_init_attr = unsafe { core::mem::zeroed() };
        attr.send_cq = cq;
        attr.recv_cq = cq;
        attr.qp_type = IBV_QPT_RC;
        attr.sq_sig_all = 1;
        attr.cap.max_send_wr = self.base.sq_size as u32;
        attr.cap.max_recv_wr = self.base.rq_size as u32;
        attr.cap.max_send_sge = 2;
        attr.cap.max_recv_sge = 1;
        attr.cap.max_inline_data = self.base.sq_inline as u32;
        // SAFETY: our id and a valid attr.
        cm_ret(unsafe { crate::qp::rdma_create_qp(cm_id, null_mut(), &mut attr) })?;
        self.qp = id.qp();
        self.cq = cq;
        self.base.sq_inline = attr.cap.max_inline_data.min(u16::MAX as u32) as u16;
        if self.base.opts & RS_OPT_MSG_SEND != 0 && (self.base.sq_inline as u32) < RS_MSG_SIZE {
            return Err(libc::EOPNOTSUPP);
        }
        self.init_bufs(cm_id)?;
        for _ in 0..self.base.rq_size {
            self.post_recv()?;
        }
        Ok(())
    }

    /// Our half of the private data.
    pub(crate) fn format_conn_data(&self) -> RsConnData {
        let b = self.bufs();
        // SAFETY: the MRs are live while bufs is.
        let (tkey, rkey) = unsafe { ((*b.tmr.0).rkey, (*b.rmr.0).rkey) };
        RsConnData {
            version: 1,
            flags: RS_CONN_FLAG_IOMAP | if cfg!(target_endian = "big") { RS_CONN_FLAG_NET } else { 0 },
            credits: self.base.rq_size,
            reserved: [0; 3],
            target_iomap_size: value_to_scale(self.base.target_iomap_size as i32, 8) as u8,
            target_sgl: RsSge { addr: b.tbuf.ptr as u64, key: tkey, length: RS_SGL_SIZE as u32 },
            data_buf: RsSge { addr: b.rbuf.ptr as u64, key: rkey, length: self.base.rbuf_size >> 1 },
        }
    }

    /// Takes the peer's half of the private data.
    pub(crate) fn save_conn_data(&mut self, c: &RsConnData) {
        self.remote_sgl = c.target_sgl;
        self.remote_sge = 1;
        let peer_net = c.flags & RS_CONN_FLAG_NET != 0;
        if peer_net != cfg!(target_endian = "big") {
            self.base.opts |= RS_OPT_SWAP_SGL;
        }
        if c.flags & RS_CONN_FLAG_IOMAP != 0 {
            self.remote_iomap = RsSge {
                addr: self.remote_sgl.addr + RS_MAX_CTRL_MSG as u64 * self.remote_sgl.length as u64,
                key: self.remote_sgl.key,
                length: scale_to_value(c.target_iomap_size as i32, 8) as u32,
            };
        }
        self.set_target_sgl(0, c.data_buf);
        self.sseq_comp = c.credits;
    }

    /// Copies up to `len` queued bytes into `buf`, consuming them unless
    /// `peek`. Returns the count.
    ///
    /// # Safety
    /// `buf` must be writable for `len` bytes.
    pub(crate) unsafe fn copy_out(&mut self, mut buf: *mut u8, len: usize, peek: bool) -> usize {
        let Some(b) = self.bufs.as_ref() else { return 0 };
        let rbuf = b.rbuf.ptr;
        let mut left = len;
        let mut head = self.rmsg_head;
        let mut off = self.rbuf_offset;
        while left > 0 && head != self.rmsg_tail {
            let avail = self.rmsg[head].data as usize;
            let mut rsize = if left < avail {
                if !peek {
                    self.rmsg[head].data -= left as u32;
                }
                left
            } else {
                if !peek {
                    self.rseq_no = self.rseq_no.wrapping_add(1);
                }
                head += 1;
                if head == self.base.rq_size as usize + 1 {
                    head = 0;
                }
                avail
            };
            let end_size = (self.base.rbuf_size - off) as usize;
            if rsize > end_size {
                // SAFETY: the caller's buffer has `left` bytes; the source
                // range lies inside the receive buffer.
                unsafe { core::ptr::copy_nonoverlapping(rbuf.add(off as usize), buf, end_size) };
                off = 0;
                // SAFETY: stays inside the caller's buffer.
                buf = unsafe { buf.add(end_size) };
                rsize -= end_size;
                left -= end_size;
                if !peek {
                    self.rbuf_bytes_avail += end_size as i64;
                }
            }
            // SAFETY: as above.
            unsafe { core::ptr::copy_nonoverlapping(rbuf.add(off as usize), buf, rsize) };
            off += rsize as u32;
            // SAFETY: stays inside (or one past) the caller's buffer.
            buf = unsafe { buf.add(rsize) };
            left -= rsize;
            if !peek {
                self.rbuf_bytes_avail += rsize as i64;
            }
        }
        if !peek {
            self.rmsg_head = head;
            self.rbuf_offset = off;
        }
        len - left
    }

    /// Copies `xfer` bytes from `fill` into the send ring and returns the
    /// SGEs that describe them (one, or two when the ring wraps).
    #[inline]
    fn stage(&mut self, xfer: u32, fill: &mut impl FnMut(*mut u8, usize)) -> ([ibv_sge; 2], c_int) {
        let left = self.sbuf_left();
        let base = self.bufs().sbuf.ptr;
        if xfer <= left {
            fill(self.ssgl[0].addr as *mut u8, xfer as usize);
            self.ssgl[0].length = xfer;
            let sgl = self.ssgl;
            if xfer < left {
                self.ssgl[0].addr += xfer as u64;
            } else {
                self.ssgl[0].addr = base as u64;
            }
            (sgl, 1)
        } else {
            self.ssgl[0].length = left;
            fill(self.ssgl[0].addr as *mut u8, left as usize);
            self.ssgl[1].length = xfer - left;
            fill(base, (xfer - left) as usize);
            let sgl = self.ssgl;
            self.ssgl[0].addr = base as u64 + self.ssgl[1].length as u64;
            (sgl, 2)
        }
    }

    /// Sends one chunk of at most `want` bytes gathered by `fill` (which
    /// copies n bytes to a destination), or straight from `inline_src`
    /// when it fits inline. Returns the chunk size.
    #[inline]
    pub(crate) fn send_chunk(&mut self, want: u32, inline_src: Option<*const u8>, fill: &mut impl FnMut(*mut u8, usize)) -> Res<u32> {
        let xfer = want.min(self.sbuf_bytes_avail).min(self.cur_target().length);
        if let (true, Some(src)) = (xfer <= self.base.sq_inline as u32, inline_src) {
            let mut sge = ibv_sge { addr: src as u64, length: xfer, lkey: 0 };
            self.write_data(&mut sge, 1, xfer, IBV_SEND_INLINE)?;
            return Ok(xfer);
        }
        let inline = if xfer <= self.base.sq_inline as u32 { IBV_SEND_INLINE } else { 0 };
        let (mut sgl, n) = self.stage(xfer, fill);
        self.write_data(sgl.as_mut_ptr(), n, xfer, inline)?;
        Ok(xfer)
    }

    /// One chunk of riowrite: up to `want` bytes written directly into the
    /// peer's mapping `iom` at `offset` (no message at the peer).
    ///
    /// # Safety
    /// `src` must be readable for `want` bytes.
    pub(crate) unsafe fn write_direct_chunk(&mut self, iom: &RsIomap, offset: u64, want: u32, src: *const u8) -> Res<u32> {
        let room = (iom.offset.wrapping_add(iom.sge.length as u64)).wrapping_sub(offset);
        let xfer = (want.min(self.sbuf_bytes_avail) as u64).min(room) as u32;
        let addr = iom.sge.addr.wrapping_add(offset).wrapping_sub(iom.offset);
        self.sqe_avail -= 1;
        self.sbuf_bytes_avail -= xfer;
        let wr_data = msg_set(RS_OP_WRITE, xfer);
        if xfer <= self.base.sq_inline as u32 {
            let mut sge = ibv_sge { addr: src as u64, length: xfer, lkey: 0 };
            self.post_write(&mut sge, 1, wr_data, IBV_SEND_INLINE, addr, iom.sge.key)?;
        } else {
            let mut pos = 0usize;
            let mut fill = |dst: *mut u8, n: usize| {
                // SAFETY: src holds xfer bytes; dst has n bytes of ring.
                unsafe { core::ptr::copy_nonoverlapping(src.add(pos), dst, n) };
                pos += n;
            };
            let (mut sgl, n) = self.stage(xfer, &mut fill);
            self.post_write(sgl.as_mut_ptr(), n, wr_data, 0, addr, iom.sge.key)?;
        }
        Ok(xfer)
    }

    /// Announces one queued mapping: an RsIomap entry written into slot
    /// `index` of the peer's iomap table, with an IOMAP_SGL message.
    pub(crate) fn write_iomap(&mut self, entry: RsIomap, index: u32) -> Res<()> {
        let mut iom = entry;
        if self.base.opts & RS_OPT_SWAP_SGL != 0 {
            iom = RsIomap {
                offset: iom.offset.swap_bytes(),
                sge: RsSge { addr: iom.sge.addr.swap_bytes(), key: iom.sge.key.swap_bytes(), length: iom.sge.length.swap_bytes() },
            };
        }
        let size = core::mem::size_of::<RsIomap>() as u32;
        self.sseq_no = self.sseq_no.wrapping_add(1);
        self.sqe_avail -= 1;
        if self.base.opts & RS_OPT_MSG_SEND != 0 {
            self.sqe_avail -= 1;
        }
        self.sbuf_bytes_avail -= size;
        let addr = self.remote_iomap.addr + index as u64 * size as u64;
        let key = self.remote_iomap.key;
        let msg = msg_set(RS_OP_IOMAP_SGL, index);
        if self.base.sq_inline as u32 >= size {
            let mut sge = ibv_sge { addr: &iom as *const RsIomap as u64, length: size, lkey: 0 };
            self.post_write_msg(&mut sge, 1, msg, IBV_SEND_INLINE, addr, key)
        } else {
            let src = (&iom as *const RsIomap).cast::<u8>();
            let mut pos = 0usize;
            let mut fill = |dst: *mut u8, n: usize| {
                // SAFETY: src is the 24-byte entry; dst has n bytes of ring.
                unsafe { core::ptr::copy_nonoverlapping(src.add(pos), dst, n) };
                pos += n;
            };
            let (mut sgl, n) = self.stage(size, &mut fill);
            self.post_write_msg(sgl.as_mut_ptr(), n, msg, 0, addr, key)
        }
    }

    /// Entry `i` of our iomap table (written by the peer).
    pub(crate) fn target_iomap(&self, i: usize) -> RsIomap {
        let p = self.bufs().tbuf.ptr.cast::<RsSge>();
        // SAFETY: the table of target_iomap_size entries follows the SGL
        // ring in tbuf; the peer may write it, hence volatile.
        unsafe { core::ptr::read_volatile(p.add(RS_SGL_SIZE).cast::<RsIomap>().add(i)) }
    }
}

/// Sets or clears O_NONBLOCK on `fd`.
pub(crate) fn set_nonblock(fd: c_int, on: bool) -> Res<()> {
    // SAFETY: fcntl on an fd; no memory involved.
    let fl = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if fl < 0 {
        return Err(last_err());
    }
    let nfl = if on { fl | libc::O_NONBLOCK } else { fl & !libc::O_NONBLOCK };
    // SAFETY: as above.
    if unsafe { libc::fcntl(fd, libc::F_SETFL, nfl) } < 0 {
        return Err(last_err());
    }
    Ok(())
}

/// Largest single RDMA write a send call posts. The wire protocol only
/// bounds a data message by the peer's advertised buffer (half its
/// receive buffer) and the 29-bit length field; this keeps one message
/// well inside both and inside the default send buffer.
const RS_MAX_CHUNK: usize = 1 << 20;

/// The sizes in which one send call cuts its data (before the limits of
/// the moment: free send buffer and the peer's current target buffer).
///
/// Upstream starts every call at 2 KiB and doubles up to 64 KiB, so that on
/// a NIC the first bytes travel while the next chunk is copied. Each chunk
/// is a message of its own, though: a doorbell (a system call on Soft-RoCE,
/// where the post does the whole transfer before it returns, so nothing
/// overlaps), a send completion, a receive completion, a receive credit and
/// a reposted receive at the peer. A 64 KiB send took six messages and a
/// 4 KiB one two. Here a call of up to [`RS_MAX_TRANSFER`] bytes goes as
/// one message, and longer calls start at that size and double up to
/// [`RS_MAX_CHUNK`] (64 KiB, 128 KiB, 256 KiB, ...), which keeps the
/// overlap for big sends while cutting the per-message work. Any length up
/// to the advertised buffer is valid on the wire, so an upstream receiver
/// takes these messages unchanged.
pub(crate) struct ChunkSizer {
    next: usize,
}

impl Default for ChunkSizer {
    fn default() -> Self {
        ChunkSizer { next: RS_MAX_TRANSFER as usize }
    }
}

impl ChunkSizer {
    /// The size to try for the next chunk when `left` bytes remain.
    #[inline]
    pub(crate) fn next(&mut self, left: usize) -> usize {
        if left <= self.next {
            return left;
        }
        let x = self.next;
        self.next = (self.next << 1).min(RS_MAX_CHUNK);
        x
    }
}

/// What a blocking wait is waiting for.
pub(crate) type Test = fn(&Rsocket, &Conn) -> bool;

pub(crate) fn t_conn_have_rdata(_: &Rsocket, c: &Conn) -> bool {
    c.conn_have_rdata()
}
pub(crate) fn t_conn_can_send(_: &Rsocket, c: &Conn) -> bool {
    c.conn_can_send()
}
pub(crate) fn t_conn_can_send_ctrl(_: &Rsocket, c: &Conn) -> bool {
    c.conn_can_send_ctrl()
}
pub(crate) fn t_conn_all_sends_done(_: &Rsocket, c: &Conn) -> bool {
    c.conn_all_sends_done()
}
pub(crate) fn t_poll_all(_: &Rsocket, _: &Conn) -> bool {
    true
}
pub(crate) fn t_cq_armed(_: &Rsocket, c: &Conn) -> bool {
    c.cq_armed
}

/// Upstream's get_comp pattern, for stream and datagram sockets alike:
/// `step(true)` (no sleeping) until it succeeds or fails with anything but
/// EWOULDBLOCK, for up to the configured polling_time (µs), then one
/// `step(false)`, which may sleep. With `nonblock`, the first EWOULDBLOCK is
/// returned.
#[inline]
pub(crate) fn spin_then_sleep(nonblock: bool, mut step: impl FnMut(bool) -> Res<()>) -> Res<()> {
    let polling = config::get().polling_time as u64;
    let mut start = 0u64;
    loop {
        match step(true) {
            Ok(()) => return Ok(()),
            Err(e) if nonblock || e != libc::EWOULDBLOCK => return Err(e),
            Err(_) => {}
        }
        let now = time_us();
        if start == 0 {
            start = now;
        }
        if now - start > polling {
            break;
        }
    }
    step(false)
}

/// Microseconds on the monotonic clock.
pub(crate) fn time_us() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid timespec out pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000 + ts.tv_nsec as u64 / 1000
}

impl Rsocket {
    /// A socket on `cm_id`, which it owns from here on: on ENOMEM (no
    /// memory for the socket) the id is destroyed.
    pub(crate) fn new(cm_id: *mut rdma_cm_id, conn: Conn) -> Result<Shared<Rsocket>, i32> {
        Shared::try_new(Rsocket {
            cm_id,
            slock: Mutex::new(()),
            rlock: Mutex::new(()),
            cq_wait: Mutex::new(()),
            st: Mutex::new(conn),
        })
        .map_err(|_| libc::ENOMEM)
    }

    /// The socket's CM id, whose fields are read and written one at a
    /// time through [`Id`]'s accessors (no reference to the id is formed;
    /// the id lives as long as the socket).
    pub(crate) fn cm(&self) -> Id {
        Id::from_cm(self.cm_id)
    }

    /// The CM event channel's fd.
    pub(crate) fn cm_fd(&self) -> c_int {
        // SAFETY: a synchronous id always has its channel.
        unsafe { (*self.cm().channel()).fd }
    }

    /// The completion channel's fd, once connected.
    pub(crate) fn cq_fd(&self) -> c_int {
        let ch = self.cm().recv_cq_channel();
        if ch.is_null() {
            -1
        } else {
            // SAFETY: live while the id's QP is.
            unsafe { (*ch).fd }
        }
    }

    /// Sets the blocking mode of the fds a socket may sleep on (F_SETFL with
    /// exactly `arg`, as upstream).
    pub(crate) fn set_nonblocking(&self, c: &Conn, arg: c_int) -> Res<()> {
        let mut ret = 0;
        let ch = self.cm().recv_cq_channel();
        if !ch.is_null() {
            // SAFETY: the completion channel's fd.
            ret = unsafe { libc::fcntl((*ch).fd, libc::F_SETFL, arg) };
        }
        if c.base.state == RS_LISTENING {
            // SAFETY: our socketpair end.
            ret = unsafe { libc::fcntl(c.accept_queue[0], libc::F_SETFL, arg) };
        } else if ret == 0 && c.base.state < RS_CONNECTED {
            // SAFETY: the CM channel's fd.
            ret = unsafe { libc::fcntl(self.cm_fd(), libc::F_SETFL, arg) };
        }
        if ret < 0 {
            Err(last_err())
        } else {
            Ok(())
        }
    }

    /// Waits for one completion event (the CQ must be armed); caller
    /// holds `cq_wait`. With `only_if_ready`, does not sleep.
    pub(crate) fn get_cq_event(&self, only_if_ready: bool) -> Res<()> {
        let (ch, cq, sum) = {
            let c = self.st.lock();
            if !c.cq_armed {
                return Ok(());
            }
            (self.cm().recv_cq_channel(), c.cq, c.base.sq_size as u32 + c.base.rq_size as u32)
        };
        if only_if_ready {
            // SAFETY: the channel is live.
            let mut p = libc::pollfd { fd: unsafe { (*ch).fd }, events: libc::POLLIN, revents: 0 };
            // SAFETY: one local pollfd (syscall(): not a cancellation point).
            if unsafe { libc::syscall(libc::SYS_poll, &mut p as *mut libc::pollfd, 1 as libc::nfds_t, 0) } <= 0 {
                return Err(libc::EAGAIN);
            }
        }
        let mut ecq = null_mut();
        let mut ctx = null_mut();
        // The wait runs under our guard: not cancellable (see
        // ffi::cancellable); a cancel takes effect after the call returns.
        let no_cancel = rdma_util::ffi::NoCancel::new();
        // SAFETY: live channel; out pointers are locals.
        let r = unsafe { v::ibv_get_cq_event(ch, &mut ecq, &mut ctx) };
        drop(no_cancel);
        let mut c = self.st.lock();
        if r == 0 {
            c.unack_cqe += 1;
            if c.unack_cqe >= sum {
                // SAFETY: our CQ; acknowledging events we got.
                unsafe { v::ibv_ack_cq_events(cq, c.unack_cqe) };
                c.unack_cqe = 0;
            }
            c.cq_armed = false;
            Ok(())
        } else {
            let e = last_err();
            if e != libc::EAGAIN && e != libc::EINTR {
                c.base.state = RS_ERROR;
            }
            Err(e)
        }
    }

    /// Processes completions until `test` holds; sleeps on the channel
    /// unless `nonblock` (then EWOULDBLOCK).
    pub(crate) fn process_cq(&self, nonblock: bool, test: Test) -> Res<()> {
        self.process_cq_locked(&mut self.st.lock(), nonblock, test)
    }

    /// [`Self::process_cq`] with `st` already held by the caller, who keeps
    /// it afterwards (it is let go only while sleeping on the channel).
    #[inline]
    pub(crate) fn process_cq_locked(&self, c: &mut MutexGuard<'_, Conn>, nonblock: bool, test: impl Fn(&Rsocket, &Conn) -> bool) -> Res<()> {
        let r = loop {
            c.update_credits();
            let r = c.poll_cq();
            if test(self, c) {
                break Ok(());
            }
            if let Err(e) = r {
                break Err(e);
            }
            if nonblock {
                break Err(libc::EWOULDBLOCK);
            }
            if c.cq.is_null() {
                // Never connected: nothing will ever complete (upstream
                // would poll a NULL CQ here).
                break Err(libc::ENOTCONN);
            }
            if !c.cq_armed {
                // SAFETY: our live CQ.
                unsafe { v::req_notify_cq(c.cq, 0) };
                c.cq_armed = true;
                continue;
            }
            c.update_credits();
            // Sleep without `st` (others keep polling); `cq_wait` is taken
            // only after `st` is released, never the other way round.
            let r = MutexGuard::unlocked(c, || {
                let _w = self.cq_wait.lock();
                self.get_cq_event(false)
            });
            if let Err(e) = r {
                break Err(e);
            }
        };
        c.update_credits();
        r
    }

    /// Spins for the configured polling time, then sleeps.
    pub(crate) fn get_comp(&self, nonblock: bool, test: Test) -> Res<()> {
        spin_then_sleep(nonblock, |nb| self.process_cq(nb, test))
    }

    /// [`Self::get_comp`] with `st` already held by the caller, who keeps it
    /// afterwards: the first round runs under the caller's hold (so that a
    /// call that finds its completion at once takes the lock only once),
    /// and every later round lets go of it first, handing it to a waiting
    /// thread if there is one, as upstream lets go of its cq_lock between
    /// rounds.
    #[inline]
    pub(crate) fn get_comp_locked(&self, c: &mut MutexGuard<'_, Conn>, nonblock: bool, test: impl Fn(&Rsocket, &Conn) -> bool + Copy) -> Res<()> {
        let mut first = true;
        spin_then_sleep(nonblock, |nb| {
            if !first {
                MutexGuard::unlocked_fair(c, || ());
            }
            first = false;
            self.process_cq_locked(c, nb, test)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connected-looking state with a receive ring of `rbuf` bytes
    /// (no MRs: nothing is posted).
    fn conn_with_rbuf(rbuf: u32, rq: u16) -> Conn {
        let mut c = Conn::new(None);
        c.base.rbuf_size = rbuf;
        c.base.rq_size = rq;
        c.rmsg = vec![RsMsg::default(); rq as usize + 1];
        c.bufs = Some(Bufs {
            smr: Mr(null_mut()),
            rmr: Mr(null_mut()),
            tmr: Mr(null_mut()),
            sbuf: PageBuf::new(4096).unwrap(),
            rbuf: PageBuf::new(rbuf as usize).unwrap(),
            tbuf: PageBuf::new(64).unwrap(),
        });
        c
    }

    fn fill_ring(c: &Conn, from: usize, data: &[u8]) {
        let b = c.bufs.as_ref().unwrap();
        for (i, &x) in data.iter().enumerate() {
            // SAFETY: index wraps inside the ring.
            unsafe { *b.rbuf.ptr.add((from + i) % c.base.rbuf_size as usize) = x };
        }
    }

    /// Chunks a send of `len` bytes would be cut in (no other limits).
    fn chunks(len: usize) -> Vec<usize> {
        let mut z = ChunkSizer::default();
        let mut left = len;
        let mut v = Vec::new();
        while left > 0 {
            let n = z.next(left);
            assert!(n > 0 && n <= left);
            v.push(n);
            left -= n;
        }
        v
    }

    #[test]
    fn sends_up_to_64k_are_one_message_longer_ones_grow() {
        assert_eq!(chunks(64), [64]);
        assert_eq!(chunks(4096), [4096], "upstream: 2 KiB + 2 KiB");
        assert_eq!(chunks(65536), [65536], "upstream: 2+4+8+16+32+2 KiB");
        assert_eq!(chunks(65537), [65536, 1]);
        let k = 1024;
        assert_eq!(chunks(1 << 20), [64 * k, 128 * k, 256 * k, 512 * k, 64 * k]);
        let big = chunks(6 << 20);
        assert_eq!(big.iter().sum::<usize>(), 6 << 20);
        assert!(big.iter().all(|&n| n <= RS_MAX_CHUNK));
        assert_eq!(big[4..9], [RS_MAX_CHUNK; 5], "the size stops growing at RS_MAX_CHUNK");
    }

    #[test]
    fn copy_out_wraps_consumes_and_peeks() {
        let mut c = conn_with_rbuf(16, 4);
        // Two messages: 6 bytes at offset 12 (wrapping), then 3 bytes.
        c.rbuf_offset = 12;
        fill_ring(&c, 12, b"abcdefghi");
        c.rmsg[0] = RsMsg { op: RS_OP_DATA, data: 6 };
        c.rmsg[1] = RsMsg { op: RS_OP_DATA, data: 3 };
        c.rmsg_tail = 2;
        let mut out = [0u8; 16];
        // SAFETY: each call gets a local buffer of the length passed.
        assert_eq!(unsafe { c.copy_out(out.as_mut_ptr(), 16, true) }, 9);
        assert_eq!(&out[..9], b"abcdefghi");
        assert_eq!((c.rmsg_head, c.rbuf_offset, c.rseq_no), (0, 12, 0), "peek consumes nothing");
        let mut out = [0u8; 4];
        // SAFETY: as above.
        assert_eq!(unsafe { c.copy_out(out.as_mut_ptr(), 4, false) }, 4);
        assert_eq!(&out, b"abcd");
        assert_eq!(c.rmsg[0].data, 2, "partial read leaves the rest of the message");
        assert_eq!((c.rbuf_offset, c.rbuf_bytes_avail), (16, 4), "at the end: wraps lazily on the next read, as upstream");
        let mut out = [0u8; 8];
        // SAFETY: as above.
        assert_eq!(unsafe { c.copy_out(out.as_mut_ptr(), 8, false) }, 5);
        assert_eq!(&out[..5], b"efghi");
        assert_eq!((c.rmsg_head, c.rseq_no, c.rbuf_bytes_avail), (2, 2, 9));
        assert!(!c.have_rdata());
    }

    /// A peer that announces more data than the receive buffer holds: the
    /// connection ends in error (ECONNRESET) and rrecv reads only what came
    /// before, never past the buffer.
    #[test]
    fn an_oversized_message_ends_the_connection_not_the_buffer() {
        let mut c = conn_with_rbuf(16, 4);
        c.base.state = RS_CONNECT_RDWR;
        fill_ring(&c, 0, b"hello");
        assert!(c.take_message(msg_set(RS_OP_DATA, 5)));
        assert!(c.take_message(msg_set(RS_OP_DATA, 0x1FFF_FFFF)));
        assert_eq!(c.base.state, RS_ERROR);
        assert_eq!(c.base.err, libc::ECONNRESET);
        // A reserved opcode with a length is data too, and checked alike;
        // once in error nothing more is queued by poll_cq.
        let mut out = [0u8; 64];
        // SAFETY: a local buffer of the length passed.
        assert_eq!(unsafe { c.copy_out(out.as_mut_ptr(), 64, false) }, 5);
        assert_eq!(&out[..5], b"hello");
        assert!(!c.have_rdata());
    }

    /// Random messages from a hostile peer, with rrecv-sized reads between
    /// them: whatever arrives, every queued length fits the buffer and the
    /// read offset never leaves it (copy_out's bounds rest on both).
    #[test]
    fn fuzz_peer_messages_keep_reads_inside_the_buffer() {
        rdma_util::fuzz::run(
            "rsocket messages",
            3_000,
            |r| {
                (0..1 + r.below(40))
                    .map(|_| {
                        let op = r.below(8) as u32;
                        let data = match r.below(4) {
                            0 => r.next_u64() as u32 & 0x1FFF_FFFF,
                            1 => r.below(20) as u32,
                            2 => [0u32, 16, 17, 0x1FFF_FFFF][r.below(4)],
                            _ => r.below(3) as u32,
                        };
                        (msg_set(op, data), r.below(24))
                    })
                    .collect::<Vec<_>>()
            },
            |msgs| {
                let mut c = conn_with_rbuf(16, 4);
                c.base.state = RS_CONNECT_RDWR;
                let mut out = [0u8; 32];
                for &(msg, read) in msgs {
                    // The ring has rq_size + 1 slots and the peer cannot have
                    // more messages in flight than receives posted.
                    let queued = (c.rmsg_tail + c.rmsg.len() - c.rmsg_head) % c.rmsg.len();
                    if queued < c.base.rq_size as usize && c.base.state & RS_READABLE != 0 && !c.take_message(msg) {
                        break;
                    }
                    // SAFETY: a local buffer of at least `read` bytes.
                    unsafe { c.copy_out(out.as_mut_ptr(), read, read % 3 == 0) };
                    assert!(c.rbuf_offset <= c.base.rbuf_size);
                    let mut h = c.rmsg_head;
                    while h != c.rmsg_tail {
                        assert!(c.rmsg[h].data <= c.base.rbuf_size);
                        h = (h + 1) % c.rmsg.len();
                    }
                }
            },
        );
    }

    #[test]
    fn hang_up_is_reported_after_the_unread_data() {
        let (pin, pout, phup, perr) = (libc::POLLIN, libc::POLLOUT, libc::POLLHUP, libc::POLLERR);
        let mut c = conn_with_rbuf(16, 4);
        c.base.state = RS_CONNECT_RDWR;
        c.rmsg[0] = RsMsg { op: RS_OP_DATA, data: 5 };
        c.rmsg_tail = 1;
        assert_eq!(c.stream_revents(pin | pout), pin, "connected, data queued, no send credits");
        // The peer's DISCONNECT was processed after its last data.
        c.base.state = RS_DISCONNECTED;
        assert_eq!(c.stream_revents(pin), pin, "data still unread: readable, hang-up held back");
        assert_eq!(c.stream_revents(pin | pout), pin);
        assert_eq!(c.stream_revents(pout), phup, "not polling for input: the hang-up at once");
        let mut out = [0u8; 5];
        // SAFETY: a local buffer of the length passed.
        assert_eq!(unsafe { c.copy_out(out.as_mut_ptr(), 5, false) }, 5);
        assert_eq!(c.stream_revents(pin), pin | phup, "drained: end of file and the hang-up");
        // An error is never held back.
        c.rmsg_tail = 2;
        c.rmsg[1] = RsMsg { op: RS_OP_DATA, data: 1 };
        c.base.state = RS_ERROR;
        assert_eq!(c.stream_revents(pin), pin | perr);
    }

    #[test]
    fn send_gate_needs_credits_buffer_and_target() {
        let mut c = conn_with_rbuf(16, 4);
        c.sqe_avail = 1;
        c.sbuf_bytes_avail = RS_SNDLOWAT;
        c.sseq_no = 3;
        c.sseq_comp = 4;
        assert!(!c.can_send(), "no target buffer advertised");
        c.set_target_sgl(0, RsSge { addr: 0x1000, key: 1, length: 100 });
        assert!(c.can_send());
        c.sseq_comp = 3;
        assert!(!c.can_send(), "no receive credit left at the peer");
        c.sseq_comp = 4;
        c.sbuf_bytes_avail = RS_SNDLOWAT - 1;
        assert!(!c.can_send(), "send buffer below the low-water mark");
        c.sbuf_bytes_avail = RS_SNDLOWAT;
        c.sqe_avail = 0;
        assert!(!c.can_send(), "send queue full");
        c.base.state = RS_CONNECTED | RS_READABLE;
        assert!(c.conn_can_send(), "a socket shut for writing stops waiting");
    }

    #[test]
    fn conn_data_round_trip_sets_credits_target_and_iomap() {
        let mut c = conn_with_rbuf(1 << 17, 384);
        let peer = RsConnData {
            version: 1,
            flags: RS_CONN_FLAG_IOMAP,
            credits: 200,
            reserved: [0; 3],
            target_iomap_size: 130,
            target_sgl: RsSge { addr: 0x10_0000, key: 7, length: 2 },
            data_buf: RsSge { addr: 0x20_0000, key: 9, length: 65536 },
        };
        c.save_conn_data(&peer);
        assert_eq!(c.sseq_comp, 200);
        assert_eq!(c.target_sgl(0), peer.data_buf);
        assert_eq!(c.remote_sge, 1);
        assert_eq!(c.remote_iomap, RsSge { addr: 0x10_0000 + 32, key: 7, length: 512 });
        assert_eq!(c.base.opts & RS_OPT_SWAP_SGL, 0, "same byte order");
    }
}
