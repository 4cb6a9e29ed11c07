//! Unit tests of the data path on rings in ordinary memory, the kernel's
//! part played by the test: it sets and clears VALID flags, and a pipe
//! stands in for the command fd so the doorbells can be counted.

use core::ptr;

use rdma_abi::siw::*;
use rdma_abi::verbs::*;

use crate::cq::CompQueue;
use crate::rq::{RecvQueue, RqFault};
use crate::sq::{fill_sqe, refusal, SendQueue, SqFault};

fn zeroed<T>() -> T {
    // SAFETY: only used for the rdma-abi C structs and our queue structs,
    // all of which are valid as all-zero bytes (integers, raw pointers,
    // atomics).
    unsafe { core::mem::zeroed() }
}

fn sge(addr: u64, length: u32, lkey: u32) -> ibv_sge {
    ibv_sge { addr, length, lkey }
}

fn send_wr(id: u64, opcode: u32, flags: u32, sgl: &mut [ibv_sge]) -> ibv_send_wr {
    let mut wr: ibv_send_wr = zeroed();
    wr.wr_id = id;
    wr.opcode = opcode;
    wr.send_flags = flags;
    wr.sg_list = sgl.as_mut_ptr();
    wr.num_sge = sgl.len() as i32;
    wr.wr.rdma = ibv_send_wr_wr_rdma {
        remote_addr: 0x1234_5678_9abc,
        rkey: 0xfeed,
    };
    wr
}

/// Links `wrs` into a chain and returns its head.
fn chain(wrs: &mut [ibv_send_wr]) -> *mut ibv_send_wr {
    for i in 0..wrs.len() {
        wrs[i].next = if i + 1 < wrs.len() {
            &mut wrs[i + 1]
        } else {
            ptr::null_mut()
        };
    }
    wrs.as_mut_ptr()
}

/// A command-fd stand-in: the doorbells written to it can be counted.
struct Pipe {
    r: i32,
    w: i32,
}
impl Pipe {
    fn new() -> Pipe {
        let mut fds = [0; 2];
        // SAFETY: pipe2 fills the two descriptors.
        assert_eq!(
            unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_NONBLOCK) },
            0
        );
        Pipe {
            r: fds[0],
            w: fds[1],
        }
    }
    /// Doorbells written since the last call (each is 32 bytes).
    fn rings(&self) -> usize {
        let mut buf = [0u8; 4096];
        // SAFETY: reads into a local buffer.
        let n = unsafe { libc::read(self.r, buf.as_mut_ptr().cast(), buf.len()) };
        if n <= 0 {
            return 0;
        }
        assert_eq!(n % 32, 0);
        // The command: POST_SEND, 8 words in, 1 out, no requests.
        assert_eq!(u32::from_ne_bytes(buf[0..4].try_into().unwrap()), 28);
        assert_eq!(u16::from_ne_bytes(buf[4..6].try_into().unwrap()), 8);
        assert_eq!(u16::from_ne_bytes(buf[6..8].try_into().unwrap()), 1);
        assert_eq!(u32::from_ne_bytes(buf[16..20].try_into().unwrap()), 77); // qp_handle
        assert_eq!(u32::from_ne_bytes(buf[20..24].try_into().unwrap()), 0); // wr_count
        assert_eq!(
            u32::from_ne_bytes(buf[28..32].try_into().unwrap()) as usize,
            core::mem::size_of::<ibv_send_wr>()
        );
        n as usize / 32
    }
}
impl Drop for Pipe {
    fn drop(&mut self) {
        // SAFETY: our own descriptors.
        unsafe {
            libc::close(self.r);
            libc::close(self.w);
        }
    }
}

struct Sq {
    ring: Vec<siw_sqe>,
    q: Box<SendQueue>,
    pipe: Pipe,
}
fn sq(n: usize, sig_all: bool) -> Sq {
    let mut ring: Vec<siw_sqe> = (0..n).map(|_| zeroed()).collect();
    let pipe = Pipe::new();
    let mut q: Box<SendQueue> = Box::new(zeroed());
    q.init(ring.as_mut_ptr(), n as u32, sig_all, pipe.w, 77);
    Sq { ring, q, pipe }
}
impl Sq {
    fn post(&self, wr: *mut ibv_send_wr) -> (i32, *mut ibv_send_wr, Option<SqFault>) {
        let mut bad = ptr::dangling_mut::<ibv_send_wr>(); // must be overwritten
        let mut fault = None;
        // SAFETY: the ring is live; the chains are built by the tests.
        let rv = unsafe { self.q.post(wr, &mut bad, |f| fault = Some(f)) };
        (rv, bad, fault)
    }
    /// The kernel takes element i: clears VALID.
    fn take(&mut self, i: usize) {
        self.ring[i].flags = 0;
    }
}

#[test]
fn send_flags_map_as_upstreams() {
    for f in 0..32u32 {
        let mut want = SIW_WQE_VALID;
        if f & IBV_SEND_SIGNALED != 0 {
            want |= SIW_WQE_SIGNALLED;
        }
        if f & IBV_SEND_SOLICITED != 0 {
            want |= SIW_WQE_SOLICITED;
        }
        if f & IBV_SEND_INLINE != 0 {
            want |= SIW_WQE_INLINE;
        }
        if f & IBV_SEND_FENCE != 0 {
            want |= SIW_WQE_READ_FENCE;
        }
        for sig_all in [false, true] {
            let s = sq(4, sig_all);
            let mut wr = send_wr(1, IBV_WR_SEND, f, &mut []);
            assert_eq!(s.post(&mut wr).0, 0);
            let w = want | if sig_all { SIW_WQE_SIGNALLED } else { 0 };
            assert_eq!(
                s.ring[0].flags as u32, w,
                "send_flags {f:#x} sig_all {sig_all}"
            );
        }
    }
}

#[test]
fn opcodes_siw_posts_and_the_rest() {
    let mut sqe: siw_sqe = zeroed();
    for op in 0..300u32 {
        let wr = send_wr(1, op, 0, &mut []);
        // SAFETY: local element and request.
        let r = unsafe { fill_sqe(&mut sqe, &wr, 0) };
        let want = match op {
            IBV_WR_RDMA_WRITE => Some(SIW_OP_WRITE),
            IBV_WR_SEND => Some(SIW_OP_SEND),
            IBV_WR_RDMA_READ => Some(SIW_OP_READ),
            IBV_WR_SEND_WITH_INV => Some(SIW_OP_SEND_REMOTE_INV),
            _ => None,
        };
        match want {
            Some(o) => {
                assert_ne!(r, 0);
                assert_eq!(sqe.opcode as u32, o);
            }
            // SAFETY: a local request.
            None => assert_eq!((r, unsafe { refusal(&wr) }), (0, Some(SqFault::Opcode(op)))),
        }
    }
}

#[test]
fn sges_are_copied_with_the_remote_address() {
    let s = sq(8, false);
    let mut sgl: Vec<ibv_sge> = (0..6)
        .map(|i| sge(0x1000 * i, 10 + i as u32, 100 + i as u32))
        .collect();
    let mut wr = send_wr(0xabcdef, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &mut sgl);
    assert_eq!(s.post(&mut wr), (0, ptr::null_mut(), None));
    let e = &s.ring[0];
    assert_eq!(e.id, 0xabcdef);
    assert_eq!(e.num_sge, 6);
    assert_eq!(e.opcode as u32, SIW_OP_WRITE);
    assert_eq!(e.rkey, 0xfeed);
    // SAFETY: plain integer union members.
    unsafe {
        assert_eq!(e.addr.raddr, 0x1234_5678_9abc);
        for i in 0..6 {
            assert_eq!(e.sgl.sge[i].laddr, 0x1000 * i as u64);
            assert_eq!(e.sgl.sge[i].length, 10 + i as u32);
            assert_eq!(e.sgl.sge[i].lkey, 100 + i as u32);
        }
    }
    // A SEND_WITH_INV carries wr.rdma.rkey, as upstream's does.
    let mut wr = send_wr(2, IBV_WR_SEND_WITH_INV, 0, &mut []);
    wr.imm.invalidate_rkey = 0x5555;
    assert_eq!(s.post(&mut wr).0, 0);
    assert_eq!(s.ring[1].rkey, 0xfeed);
    assert_eq!(s.ring[1].opcode as u32, SIW_OP_SEND_REMOTE_INV);
}

#[test]
fn bad_sge_lists_are_refused() {
    let s = sq(8, false);
    let mut sgl: Vec<ibv_sge> = (0..7).map(|i| sge(i, 1, 1)).collect();
    // More than SIW_MAX_SGE.
    let mut wr = send_wr(1, IBV_WR_SEND, 0, &mut sgl);
    let (rv, bad, f) = s.post(&mut wr);
    assert_eq!(
        (rv, bad, f),
        (-libc::EINVAL, &mut wr as *mut _, Some(SqFault::Sgl))
    );
    // 262 sges: upstream's byte-wide check sees 6 and copies; here refused.
    wr.num_sge = 262;
    assert_eq!(s.post(&mut wr).0, -libc::EINVAL);
    wr.num_sge = 256;
    assert_eq!(s.post(&mut wr).0, -libc::EINVAL);
    wr.num_sge = -1;
    assert_eq!(s.post(&mut wr).0, -libc::EINVAL);
    // A null list with entries.
    wr.num_sge = 2;
    wr.sg_list = ptr::null_mut();
    assert_eq!(
        s.post(&mut wr),
        (-libc::EINVAL, &mut wr as *mut _, Some(SqFault::Sgl))
    );
    // A null list with none is fine.
    wr.num_sge = 0;
    assert_eq!(s.post(&mut wr).0, 0);
    // Nothing was published by the refused ones.
    assert_eq!(s.ring[0].flags as u32 & SIW_WQE_VALID, SIW_WQE_VALID);
    assert!(s.ring[1..].iter().all(|e| e.flags == 0));
}

#[test]
fn inline_data_is_copied_behind_the_first_sge() {
    let s = sq(8, false);
    let a: Vec<u8> = (0..30).collect();
    let b: Vec<u8> = (100..150).collect();
    let mut sgl = [
        sge(a.as_ptr() as u64, 30, 0),
        sge(0, 0, 0),
        sge(b.as_ptr() as u64, 50, 0),
    ];
    let mut wr = send_wr(1, IBV_WR_SEND, IBV_SEND_INLINE, &mut sgl);
    assert_eq!(s.post(&mut wr).0, 0);
    let e = &s.ring[0];
    assert_eq!(e.num_sge, 3);
    assert_eq!(e.flags as u32, SIW_WQE_VALID | SIW_WQE_INLINE);
    // SAFETY: the element's SGE area holds the copied bytes.
    unsafe {
        assert_eq!(e.sgl.sge[0].length, 80);
        let data = core::slice::from_raw_parts((&e.sgl.sge[1] as *const siw_sge).cast::<u8>(), 80);
        assert_eq!(&data[..30], &a[..]);
        assert_eq!(&data[30..], &b[..]);
    }
    // More SGEs than SIW_MAX_SGE are fine inline: 10 x 8 bytes.
    let c = [7u8; 8];
    let mut sgl: Vec<ibv_sge> = (0..10).map(|_| sge(c.as_ptr() as u64, 8, 0)).collect();
    let mut wr = send_wr(2, IBV_WR_RDMA_WRITE, IBV_SEND_INLINE, &mut sgl);
    assert_eq!(s.post(&mut wr).0, 0);
    // SAFETY: integer union member.
    assert_eq!(unsafe { s.ring[1].sgl.sge[0].length }, 80);
    // 81 bytes: refused with the count upstream logs.
    let d = [1u8; 81];
    let mut sgl = [sge(d.as_ptr() as u64, 40, 0), sge(d.as_ptr() as u64, 41, 0)];
    let mut wr = send_wr(3, IBV_WR_SEND, IBV_SEND_INLINE, &mut sgl);
    assert_eq!(
        s.post(&mut wr),
        (-libc::EINVAL, &mut wr as *mut _, Some(SqFault::Inline(81)))
    );
    // A length upstream's int sum turns negative: refused, nothing read.
    let mut sgl = [sge(d.as_ptr() as u64, 0x8000_0000, 0)];
    let mut wr = send_wr(4, IBV_WR_SEND, IBV_SEND_INLINE, &mut sgl);
    assert_eq!(s.post(&mut wr).0, -libc::EINVAL);
    // A null address with a length; and a null list.
    let mut sgl = [sge(0, 4, 0)];
    let mut wr = send_wr(5, IBV_WR_SEND, IBV_SEND_INLINE, &mut sgl);
    assert_eq!(s.post(&mut wr).2, Some(SqFault::Sgl));
    wr.sg_list = ptr::null_mut();
    assert_eq!(s.post(&mut wr).2, Some(SqFault::Sgl));
    // A null address without a length is skipped.
    let mut sgl = [sge(0, 0, 0)];
    let mut wr = send_wr(6, IBV_WR_SEND, IBV_SEND_INLINE, &mut sgl);
    assert_eq!(s.post(&mut wr).0, 0);
    // A negative count copies nothing, as upstream's loop.
    wr.num_sge = -3;
    assert_eq!(s.post(&mut wr).0, 0);
    // SAFETY: integer union member.
    assert_eq!(unsafe { s.ring[3].sgl.sge[0].length }, 0);
}

#[test]
fn doorbell_only_when_the_sq_may_be_idle() {
    let mut s = sq(4, false);
    let mut wrs: Vec<ibv_send_wr> = (0..4)
        .map(|i| send_wr(i, IBV_WR_SEND, 0, &mut []))
        .collect();
    // First post: the element before (3) is free: ring.
    let mut w0 = wrs[0];
    w0.next = ptr::null_mut();
    assert_eq!(s.post(&mut w0).0, 0);
    assert_eq!(s.pipe.rings(), 1);
    // Element 0 still VALID (kernel busy before it): no doorbell.
    let mut w1 = wrs[1];
    w1.next = ptr::null_mut();
    assert_eq!(s.post(&mut w1).0, 0);
    assert_eq!(s.pipe.rings(), 0);
    // The kernel took 0 and 1: the next post rings again.
    s.take(0);
    s.take(1);
    let head = chain(&mut wrs[2..4]);
    assert_eq!(s.post(head), (0, ptr::null_mut(), None));
    assert_eq!(s.pipe.rings(), 1);
    // A chain that fills the whole ring rings whatever the element before.
    for i in 0..4 {
        s.take(i);
    }
    let head = chain(&mut wrs);
    assert_eq!(s.post(head).0, 0);
    assert_eq!(s.pipe.rings(), 1);
    assert!(s.ring.iter().all(|e| e.flags as u32 & SIW_WQE_VALID != 0));
}

#[test]
fn full_ring_refuses_with_enomem() {
    let mut s = sq(2, false);
    let mut wrs: Vec<ibv_send_wr> = (0..3)
        .map(|i| send_wr(i, IBV_WR_SEND, 0, &mut []))
        .collect();
    let head = chain(&mut wrs);
    let third = &mut wrs[2] as *mut ibv_send_wr;
    let (rv, bad, f) = s.post(head);
    assert_eq!((rv, bad, f), (-libc::ENOMEM, third, Some(SqFault::Full(0))));
    // The two that fit were published and rung.
    assert_eq!(s.pipe.rings(), 1);
    // Once the kernel frees one, the refused one fits.
    s.take(0);
    wrs[2].next = ptr::null_mut();
    assert_eq!(s.post(third).0, 0);
    assert_eq!(s.ring[0].id, 2);
}

#[test]
fn error_mid_chain_keeps_the_good_ones() {
    let s = sq(4, false);
    let mut wrs = vec![
        send_wr(1, IBV_WR_SEND, 0, &mut []),
        send_wr(2, IBV_WR_ATOMIC_FETCH_AND_ADD, 0, &mut []),
    ];
    let head = chain(&mut wrs);
    let second = &mut wrs[1] as *mut ibv_send_wr;
    // Upstream returns 0 here when its doorbell succeeds; the error stays.
    assert_eq!(
        s.post(head),
        (
            -libc::EINVAL,
            second,
            Some(SqFault::Opcode(IBV_WR_ATOMIC_FETCH_AND_ADD))
        )
    );
    assert_eq!(s.pipe.rings(), 1);
    assert_eq!(s.ring[0].id, 1);
    assert_eq!(s.ring[1].flags, 0);
}

#[test]
fn failed_doorbell_returns_writes_result() {
    let mut s = sq(4, false);
    s.q.init(s.ring.as_mut_ptr(), 4, false, -1, 77);
    let mut wrs = vec![
        send_wr(1, IBV_WR_SEND, 0, &mut []),
        send_wr(2, IBV_WR_SEND, 0, &mut []),
    ];
    let head = chain(&mut wrs);
    let (rv, bad, _) = s.post(head);
    assert_eq!(rv, -1);
    assert_eq!(rdma_util::ffi::errno(), libc::EBADF);
    // Every request was filled, so none is "bad": upstream's null.
    assert!(bad.is_null());
    // The elements stay published and the index moved on.
    assert!(s.ring[..2]
        .iter()
        .all(|e| e.flags as u32 & SIW_WQE_VALID != 0));
    let mut w = send_wr(3, IBV_WR_SEND, 0, &mut []);
    s.post(&mut w);
    assert_eq!(s.ring[2].id, 3);
}

#[test]
fn looping_chain_is_bounded_by_the_ring() {
    // A chain that points back at itself, with a "kernel" thread freeing
    // elements as fast as they come: the post must still end.
    let s = sq(8, false);
    let mut w = send_wr(1, IBV_WR_SEND, 0, &mut []);
    w.next = &mut w;
    let ring = s.ring.as_ptr() as usize;
    let stop = std::sync::Arc::new(core::sync::atomic::AtomicBool::new(false));
    let st = stop.clone();
    let kernel = std::thread::spawn(move || {
        while !st.load(core::sync::atomic::Ordering::Relaxed) {
            for i in 0..8 {
                let e = (ring as *mut siw_sqe).wrapping_add(i);
                // SAFETY: the ring outlives the thread (joined below).
                unsafe { core::sync::atomic::AtomicU16::from_ptr(ptr::addr_of_mut!((*e).flags)) }
                    .store(0, core::sync::atomic::Ordering::Release);
            }
        }
    });
    let (rv, bad, f) = s.post(&mut w);
    stop.store(true, core::sync::atomic::Ordering::Relaxed);
    kernel.join().unwrap();
    assert_eq!(rv, -libc::ENOMEM);
    assert_eq!(bad, &mut w as *mut _);
    assert!(matches!(f, Some(SqFault::Full(_))));
}

#[test]
fn retired_sq_refuses() {
    let mut s = sq(4, false);
    s.q.retire();
    let mut w = send_wr(1, IBV_WR_SEND, 0, &mut []);
    let (rv, bad, _) = s.post(&mut w);
    assert_eq!((rv, bad), (-libc::EINVAL, &mut w as *mut _));
}

// ---- receive queues ----------------------------------------------------------

fn recv_wr(id: u64, sgl: &mut [ibv_sge]) -> ibv_recv_wr {
    ibv_recv_wr {
        wr_id: id,
        next: ptr::null_mut(),
        sg_list: sgl.as_mut_ptr(),
        num_sge: sgl.len() as i32,
    }
}

struct Rq {
    ring: Vec<siw_rqe>,
    q: Box<RecvQueue>,
}
fn rq(n: usize) -> Rq {
    let mut ring: Vec<siw_rqe> = (0..n).map(|_| zeroed()).collect();
    let mut q: Box<RecvQueue> = Box::new(zeroed());
    q.init(ring.as_mut_ptr(), n as u32);
    Rq { ring, q }
}
impl Rq {
    fn post(&self, wr: *mut ibv_recv_wr) -> (i32, *mut ibv_recv_wr, Option<RqFault>) {
        let mut bad = ptr::dangling_mut::<ibv_recv_wr>();
        let mut fault = None;
        // SAFETY: as for Sq::post.
        let rv = unsafe { self.q.post(wr, &mut bad, |f| fault = Some(f)) };
        (rv, bad, fault)
    }
}

#[test]
fn receive_requests_fill_rqes() {
    let r = rq(4);
    let mut sgl: Vec<ibv_sge> = (0..6).map(|i| sge(0x100 * i, 7, i as u32)).collect();
    let mut w = recv_wr(9, &mut sgl);
    let (rv, bad, _) = r.post(&mut w);
    // Success leaves *bad_wr alone, as upstream does.
    assert_eq!((rv, bad), (0, ptr::dangling_mut()));
    let e = &r.ring[0];
    assert_eq!((e.id, e.num_sge, e.flags as u32), (9, 6, SIW_WQE_VALID));
    assert_eq!(
        (e.sge[5].laddr, e.sge[5].length, e.sge[5].lkey),
        (0x500, 7, 5)
    );
    let mut w1 = recv_wr(10, &mut sgl[..1]);
    assert_eq!(r.post(&mut w1).0, 0);
    assert_eq!((r.ring[1].num_sge, r.ring[1].sge[0].laddr), (1, 0));
}

#[test]
fn bad_receive_requests() {
    let r = rq(2);
    let mut sgl: Vec<ibv_sge> = (0..7).map(|i| sge(i, 1, 1)).collect();
    for n in [0, 7, -1, 256 + 1] {
        let mut w = recv_wr(1, &mut sgl);
        w.num_sge = n;
        let (rv, bad, f) = r.post(&mut w);
        assert_eq!(
            (rv, bad, f),
            (-libc::EINVAL, &mut w as *mut _, Some(RqFault::Sgl)),
            "num_sge {n}"
        );
    }
    let mut w = recv_wr(1, &mut sgl[..1]);
    w.sg_list = ptr::null_mut();
    assert_eq!(r.post(&mut w).0, -libc::EINVAL);
    assert!(r.ring.iter().all(|e| e.flags == 0));
    // Full: ENOMEM at the first that does not fit.
    let mut ws: Vec<ibv_recv_wr> = (0..3).map(|i| recv_wr(i, &mut sgl[..1])).collect();
    ws[0].next = &mut ws[1];
    let p1 = &mut ws[1] as *mut ibv_recv_wr;
    ws[1].next = &mut ws[2];
    let p2 = &mut ws[2] as *mut ibv_recv_wr;
    let _ = p1;
    assert_eq!(
        r.post(ws.as_mut_ptr()),
        (-libc::ENOMEM, p2, Some(RqFault::Full(0)))
    );
    // A looping chain stops at the ring's size even if it were drained.
    let mut l = recv_wr(5, &mut sgl[..1]);
    l.next = &mut l;
    assert_eq!(r.post(&mut l).0, -libc::ENOMEM);
}

#[test]
fn no_ring_no_receive() {
    // A QP on an SRQ has no receive ring (upstream divides by zero).
    let q: Box<RecvQueue> = Box::new(zeroed());
    let mut sgl = [sge(1, 1, 1)];
    let mut w = recv_wr(1, &mut sgl);
    let mut bad = ptr::null_mut();
    // SAFETY: a zeroed queue is valid for post.
    let rv = unsafe { q.post(&mut w, &mut bad, |_| {}) };
    assert_eq!((rv, bad), (-libc::EINVAL, &mut w as *mut _));
}

// ---- completion queue --------------------------------------------------------

struct Cq {
    ring: Vec<siw_cqe>,
    q: Box<CompQueue>,
}
/// A CQ of n elements; the Vec has one more element to hold the control
/// word (16 bytes... the 8-byte ctrl fits in a 32-byte CQE).
fn cq(n: usize) -> Cq {
    let mut ring: Vec<siw_cqe> = (0..n + 1).map(|_| zeroed()).collect();
    ring[n].id = u64::MAX; // the control word's bytes: init must clear flags
    let mut q: Box<CompQueue> = Box::new(zeroed());
    // SAFETY: n elements and the control word.
    unsafe { q.init(ring.as_mut_ptr(), n as u32) };
    Cq { ring, q }
}
impl Cq {
    fn push(&mut self, i: usize, id: u64, opcode: u32, status: u32, bytes: u32, qp: u32) {
        let e = &mut self.ring[i];
        e.id = id;
        e.opcode = opcode as u8;
        e.status = status as u16;
        e.bytes = bytes;
        e.imm.imm_data = 0xdead_beef;
        e.qp.qp_id = qp as u64 | 0xffff_0000_0000_0000;
        e.flags = SIW_WQE_VALID as u8;
    }
    fn ctrl(&self) -> u32 {
        // SAFETY: the control word sits at element n.
        unsafe { (*(self.ring.as_ptr().add(self.ring.len() - 1) as *const siw_cq_ctrl)).flags }
    }
    fn poll(&self, n: i32, wc: &mut [ibv_wc]) -> i32 {
        // SAFETY: wc has room (the tests pass n <= wc.len() or n <= 0).
        unsafe { self.q.poll(n, wc.as_mut_ptr()) }
    }
}

#[test]
fn poll_copies_and_frees_completions() {
    let mut c = cq(4);
    assert_eq!(c.ctrl(), SIW_NOTIFY_NOT);
    let mut wc: Vec<ibv_wc> = (0..4).map(|_| zeroed()).collect();
    assert_eq!(c.poll(4, &mut wc), 0);
    c.push(0, 11, SIW_OP_SEND, SIW_WC_SUCCESS, 100, 7);
    c.push(1, 12, SIW_OP_RECEIVE, SIW_WC_WR_FLUSH_ERR, 0, 8);
    c.push(2, 13, SIW_OP_READ, SIW_WC_REM_ACCESS_ERR, 5, 9);
    for w in wc.iter_mut() {
        w.src_qp = 0x5a5a;
        w.wc_flags = 0xff;
        w.vendor_err = 3;
    }
    assert_eq!(c.poll(2, &mut wc), 2);
    assert_eq!(
        (
            wc[0].wr_id,
            wc[0].status,
            wc[0].opcode,
            wc[0].byte_len,
            wc[0].qp_num
        ),
        (11, IBV_WC_SUCCESS, IBV_WC_SEND, 100, 7)
    );
    assert_eq!(
        (wc[1].wr_id, wc[1].status, wc[1].opcode),
        (12, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV)
    );
    // What upstream zeroes, and what it leaves.
    // SAFETY: integer union member.
    assert_eq!(
        (wc[0].vendor_err, wc[0].wc_flags, unsafe {
            wc[0].imm.imm_data
        }),
        (0, 0, 0)
    );
    assert_eq!(wc[0].src_qp, 0x5a5a);
    assert_eq!(wc[2].wr_id, 0);
    assert!(c.ring[..2].iter().all(|e| e.flags == 0));
    assert_eq!(c.poll(4, &mut wc), 1);
    assert_eq!(
        (wc[0].wr_id, wc[0].status, wc[0].opcode),
        (13, IBV_WC_REM_ACCESS_ERR, IBV_WC_RDMA_READ)
    );
    // The consumer index wraps around the ring.
    c.push(3, 14, SIW_OP_WRITE, 0, 0, 1);
    c.push(0, 15, SIW_OP_WRITE, 0, 0, 1);
    assert_eq!(c.poll(4, &mut wc), 2);
    assert_eq!((wc[0].wr_id, wc[1].wr_id), (14, 15));
}

#[test]
fn poll_bad_arguments_and_odd_cqes() {
    let mut c = cq(2);
    let mut wc: Vec<ibv_wc> = (0..2).map(|_| zeroed()).collect();
    c.push(0, 1, 200, 77, 0, 0);
    // Nothing for a count <= 0 (upstream's loop would run on).
    assert_eq!(c.poll(0, &mut wc), 0);
    assert_eq!(c.poll(-5, &mut wc), 0);
    // SAFETY: a null array is refused before use.
    assert_eq!(unsafe { c.q.poll(1, ptr::null_mut()) }, -libc::EINVAL);
    // Out-of-table opcode and status.
    assert_eq!(c.poll(1, &mut wc), 1);
    assert_eq!(
        (wc[0].opcode, wc[0].status),
        (IBV_WC_SEND, IBV_WC_GENERAL_ERR)
    );
    // Opcodes 9-11: upstream's table holds zeroes there.
    for op in 9..12 {
        c.push(1, 1, op, 0, 0, 0);
        c.push(0, 1, op, 0, 0, 0);
        assert_eq!(c.poll(2, &mut wc), 2);
        assert_eq!(wc[0].opcode, IBV_WC_SEND);
    }
    // A retired CQ refuses to poll.
    c.q.retire();
    assert_eq!(c.poll(1, &mut wc), -libc::EINVAL);
    // Arming a retired CQ writes a word of its own.
    assert_eq!(c.q.arm(0), 0);
}

#[test]
fn arming_writes_the_control_word() {
    let c = cq(2);
    assert_eq!(c.q.arm(1), 0);
    assert_eq!(c.ctrl(), SIW_NOTIFY_SOLICITED);
    assert_eq!(c.q.arm(0), 0);
    assert_eq!(c.ctrl(), SIW_NOTIFY_SOLICITED | SIW_NOTIFY_NEXT_COMPLETION);
    assert_eq!(c.q.arm(-1), 0);
    assert_eq!(c.ctrl(), SIW_NOTIFY_SOLICITED);
}

#[test]
fn null_bad_wr_is_tolerated() {
    // Upstream writes through bad_wr (send: always; receive: on errors).
    let s = sq(2, false);
    let mut w = send_wr(1, IBV_WR_SEND, 0, &mut []);
    // SAFETY: a null bad_wr is allowed.
    assert_eq!(unsafe { s.q.post(&mut w, ptr::null_mut(), |_| {}) }, 0);
    w.opcode = 200;
    // SAFETY: as above.
    assert_eq!(
        unsafe { s.q.post(&mut w, ptr::null_mut(), |_| {}) },
        -libc::EINVAL
    );
    let r = rq(2);
    let mut sgl = [sge(1, 1, 1)];
    let mut w = recv_wr(1, &mut sgl);
    w.num_sge = 0;
    // SAFETY: as above.
    assert_eq!(
        unsafe { r.q.post(&mut w, ptr::null_mut(), |_| {}) },
        -libc::EINVAL
    );
}

#[test]
fn refusals_name_what_upstream_logs() {
    let d = [0u8; 100];
    let mut sgl = [sge(d.as_ptr() as u64, 50, 0), sge(d.as_ptr() as u64, 50, 0)];
    let mut wr = send_wr(1, IBV_WR_SEND, IBV_SEND_INLINE, &mut sgl);
    // SAFETY: local requests.
    unsafe {
        assert_eq!(refusal(&wr), Some(SqFault::Inline(100)));
        wr.send_flags = 0;
        assert_eq!(refusal(&wr), None);
        wr.num_sge = 7;
        assert_eq!(refusal(&wr), Some(SqFault::Sgl));
        wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
        assert_eq!(
            refusal(&wr),
            Some(SqFault::Opcode(IBV_WR_RDMA_WRITE_WITH_IMM))
        );
    }
    // What fill_sqe refuses, refusal names; what it takes, refusal passes.
    let mut e: siw_sqe = zeroed();
    let cases: [(u32, u32, i32, bool); 8] = [
        (IBV_WR_SEND, 0, 1, false),
        (IBV_WR_SEND, 0, 6, false),
        (IBV_WR_SEND, 0, 7, false),
        (IBV_WR_SEND, IBV_SEND_INLINE, 1, false),
        (IBV_WR_SEND, IBV_SEND_INLINE, 2, false),
        (IBV_WR_SEND, IBV_SEND_INLINE, 2, true),
        (IBV_WR_SEND, 0, 1, true),
        (99, 0, 1, false),
    ];
    for (op, flags, n, null_list) in cases {
        let mut sgl = [sge(d.as_ptr() as u64, 50, 0); 7];
        let mut wr = send_wr(1, op, flags, &mut sgl);
        wr.num_sge = n;
        if null_list {
            wr.sg_list = ptr::null_mut();
        }
        // SAFETY: a local element and request.
        let (f, r) = unsafe { (fill_sqe(&mut e, &wr, 0), refusal(&wr)) };
        assert_eq!(f == 0, r.is_some(), "{op} {flags} {n} {null_list}");
    }
}

#[test]
fn empty_poll_ignores_a_null_array() {
    let c = cq(2);
    // SAFETY: nothing is written for an empty CQ (upstream returns 0 too).
    assert_eq!(unsafe { c.q.poll(1, ptr::null_mut()) }, 0);
}

// ---- cost measurement --------------------------------------------------------

/// Not a check: N calls of one op entry point on rings in memory, for
/// counting instructions under callgrind (run with N and 3N; the difference
/// over 2N is one call). `SIW_RING_COST="OP N"`, OP one of send,
/// send_inline, recv, poll_one, poll_empty, notify:
/// `SIW_RING_COST="send 1000" valgrind --tool=callgrind <test binary>
/// --ignored --exact datapath_tests::ring_cost`.
#[test]
#[ignore]
fn ring_cost() {
    use crate::datapath::*;
    use crate::verbs_ops::{SiwCq, SiwQp};
    let spec = std::env::var("SIW_RING_COST").unwrap_or_else(|_| "send 10".into());
    let mut it = spec.split_whitespace();
    let op = it.next().unwrap().to_string();
    let n: usize = it.next().unwrap().parse().unwrap();
    let mut buf = [0u8; 64];
    let mut sge = ibv_sge {
        addr: buf.as_mut_ptr() as u64,
        length: 64,
        lkey: 1,
    };
    let mut sq_ring: Vec<siw_sqe> = (0..8192).map(|_| zeroed()).collect();
    let mut rq_ring: Vec<siw_rqe> = (0..8192).map(|_| zeroed()).collect();
    let mut cq_ring: Vec<siw_cqe> = (0..8193).map(|_| zeroed()).collect();
    let qp: Box<SiwQp> = Box::new(zeroed());
    let qp = Box::into_raw(qp);
    let cq: Box<SiwCq> = Box::new(zeroed());
    let cq = Box::into_raw(cq);
    let mut sum = 0i64;
    // SAFETY: the rings outlive the calls; the objects are set up as the
    // create ops set them up.
    unsafe {
        (*qp).sq.init(sq_ring.as_mut_ptr(), 8192, false, -1, 1);
        (*qp).rq.init(rq_ring.as_mut_ptr(), 8192);
        if op == "poll_one" {
            for e in cq_ring.iter_mut().take(8192) {
                e.flags = SIW_WQE_VALID as u8;
            }
        }
        (*cq).cq.init(cq_ring.as_mut_ptr(), 8192);
        let mut swr: ibv_send_wr = zeroed();
        swr.sg_list = &mut sge;
        swr.num_sge = 1;
        swr.opcode = IBV_WR_SEND;
        swr.send_flags = IBV_SEND_SIGNALED
            | if op == "send_inline" {
                IBV_SEND_INLINE
            } else {
                0
            };
        let mut rwr = ibv_recv_wr {
            wr_id: 1,
            next: ptr::null_mut(),
            sg_list: &mut sge,
            num_sge: 1,
        };
        let mut sbad = ptr::null_mut();
        let mut rbad = ptr::null_mut();
        let mut wc: ibv_wc = zeroed();
        // Called through pointers, as libibverbs calls them.
        type PostSend =
            unsafe extern "C" fn(*mut ibv_qp, *mut ibv_send_wr, *mut *mut ibv_send_wr) -> i32;
        type PostRecv =
            unsafe extern "C" fn(*mut ibv_qp, *mut ibv_recv_wr, *mut *mut ibv_recv_wr) -> i32;
        type Poll = unsafe extern "C" fn(*mut ibv_cq, i32, *mut ibv_wc) -> i32;
        type Notify = unsafe extern "C" fn(*mut ibv_cq, i32) -> i32;
        let post_send = core::hint::black_box(siw_post_send as PostSend);
        let post_recv = core::hint::black_box(siw_post_recv as PostRecv);
        let poll = core::hint::black_box(siw_poll_cq as Poll);
        let notify = core::hint::black_box(siw_notify_cq as Notify);
        let qb = ptr::addr_of_mut!((*qp).base);
        let cb = ptr::addr_of_mut!((*cq).base);
        for _ in 0..n {
            sum += match op.as_str() {
                "send" | "send_inline" => post_send(qb, &mut swr, &mut sbad),
                "recv" => post_recv(qb, &mut rwr, &mut rbad),
                "poll_one" | "poll_empty" => poll(cb, 1, &mut wc),
                "notify" => notify(cb, 0),
                _ => 0,
            } as i64;
        }
        drop(Box::from_raw(qp));
        drop(Box::from_raw(cq));
    }
    println!("{op} {n}: {sum}");
}
