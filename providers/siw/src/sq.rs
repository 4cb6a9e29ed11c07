//! The send queue: work requests become SQEs in the ring the kernel shares
//! with us, and a doorbell wakes the kernel when it may have gone idle.
//!
//! The ring has no shared indices. Each SQE's `flags` says who owns it: we
//! fill a free element (VALID clear) and set VALID last, with release order;
//! the kernel copies a VALID element out and clears VALID with a full
//! barrier before it looks at the next one. Our producer index `put` is
//! private.
//!
//! The doorbell (an empty POST_SEND command) is needed only if the kernel
//! may have stopped looking at the ring. Upstream's rule, kept here: after
//! filling, look at the element just before the first one this call filled;
//! if the kernel has taken it (VALID clear) it may be idle, so ring; if it
//! is still VALID the kernel has yet to take it and will reach ours after
//! it. A call that filled as many elements as the ring holds always rings.
//! The VALID stores must be visible before that look (a store-load
//! ordering): one full fence per call, where upstream makes every VALID
//! store sequentially consistent.

use core::ffi::c_int;
use core::ptr::{self, addr_of_mut};
use core::sync::atomic::{fence, AtomicU16, AtomicU32, Ordering};

use rdma_abi::kern::ib_uverbs_post_send_resp;
use rdma_abi::siw::*;
use rdma_abi::verbs::*;

use rdma_provider::doorbell::Doorbell;
use rdma_provider::spin::SpinLock;

use crate::rq::set_bad;

/// Why a work request was refused; the caller logs what upstream logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SqFault {
    /// An opcode siw does not post (upstream: "opcode %d unsupported").
    Opcode(u32),
    /// Inline data longer than [`SIW_MAX_INLINE`]; the byte count reached
    /// (upstream: "inline data: %d:%d").
    Inline(i32),
    /// The element at this index is still the kernel's (upstream: "SQ
    /// overflow"), or the chain is longer than the ring.
    Full(u32),
    /// A bad SGE list; upstream logs nothing (or crashes, see the docs).
    Sgl,
}

/// The SQE opcode of each `ibv_wr_opcode` siw supports; [`NO_OP`] for the rest.
const NO_OP: u8 = 0xff;
const SEND_OPCODE: [u8; 12] = {
    let mut t = [NO_OP; 12];
    t[IBV_WR_RDMA_WRITE as usize] = SIW_OP_WRITE as u8;
    t[IBV_WR_SEND as usize] = SIW_OP_SEND as u8;
    t[IBV_WR_RDMA_READ as usize] = SIW_OP_READ as u8;
    t[IBV_WR_SEND_WITH_INV as usize] = SIW_OP_SEND_REMOTE_INV as u8;
    t
};

/// The send queue of one QP.
#[repr(C)]
pub struct SendQueue {
    lock: SpinLock,
    /// `SIW_WQE_SIGNALLED` if the QP signals every request, else 0.
    sig_all: u16,
    /// Elements in the ring minus one (the kernel sizes it to a power of two).
    mask: u32,
    /// The next element to fill; wraps as a `u32` does, as the kernel's
    /// index does.
    put: AtomicU32,
    /// The context's command fd, for the doorbell.
    fd: c_int,
    ring: *mut siw_sqe,
    /// The POST_SEND command that wakes the kernel, and its answer.
    db: Doorbell,
    db_resp: ib_uverbs_post_send_resp,
}

impl SendQueue {
    /// Sets up `self` (zeroed memory, never moved afterwards) for a ring
    /// of `num_sqe` elements, a power of two, mapped at `ring`.
    pub fn init(
        &mut self,
        ring: *mut siw_sqe,
        num_sqe: u32,
        sig_all: bool,
        fd: c_int,
        qp_handle: u32,
    ) {
        self.ring = ring;
        self.mask = num_sqe.wrapping_sub(1);
        self.sig_all = if sig_all { SIW_WQE_SIGNALLED as u16 } else { 0 };
        self.fd = fd;
        self.put = AtomicU32::new(0);
        self.db = Doorbell::new(qp_handle, addr_of_mut!(self.db_resp));
    }

    /// The mapped ring, or null once [`SendQueue::retire`] ran.
    pub fn ring(&self) -> *mut siw_sqe {
        self.ring
    }

    /// Forgets the ring (before the QP's memory is freed): a later post on
    /// the stale QP finds no ring instead of an unmapped one.
    pub fn retire(&mut self) {
        self.ring = ptr::null_mut();
    }

    /// The queue's lock (modify_qp holds it around the command).
    pub fn lock(&self) -> &SpinLock {
        &self.lock
    }

    /// `ibv_post_send`: fills one SQE per request of the chain `wr`, rings
    /// the doorbell when needed. Returns 0, or `-EINVAL` / `-ENOMEM` with
    /// `*bad_wr` at the refused request, or the failed doorbell's write()
    /// result (-1, errno set) with `*bad_wr` at the request after the last
    /// one filled (null if none is left). `report` is told why a request was
    /// refused (after the lock is released; upstream logs with it held).
    ///
    /// # Safety
    /// `self` was set up by [`SendQueue::init`] over a live ring; `wr` is a
    /// chain of readable requests whose SGE lists hold `num_sge` entries
    /// (a null list is refused) and whose inline data is readable; `bad_wr`
    /// is null (the bad request is then not reported) or writable.
    #[inline(always)]
    pub unsafe fn post(
        &self,
        wr: *mut ibv_send_wr,
        bad_wr: *mut *mut ibv_send_wr,
        report: impl FnOnce(SqFault),
    ) -> c_int {
        // SAFETY: bad_wr is null or the caller's pointer.
        unsafe { set_bad(bad_wr, ptr::null_mut()) };
        let ring = self.ring;
        if ring.is_null() {
            // SAFETY: as above.
            unsafe { set_bad(bad_wr, wr) };
            return -libc::EINVAL;
        }
        // The locked part hands back plain values: the request it stopped at
        // (null if it took them all), that element's index, and the
        // doorbell's error. Why it stopped is worked out again off the hot
        // path: a request `refusal` finds nothing wrong with met a full ring.
        let (wr, at, db_err) = self.lock.with(move || {
            let mut wr = wr;
            let mask = self.mask;
            let sig_all = self.sig_all;
            let first = self.put.load(Ordering::Relaxed);
            let mut put = first;
            while !wr.is_null() {
                // SAFETY: the index is masked, inside the mapped ring.
                let sqe = unsafe { ring.add((put & mask) as usize) };
                // SAFETY: flags is a naturally aligned u16 of the live ring.
                let flags = unsafe { AtomicU16::from_ptr(addr_of_mut!((*sqe).flags)) };
                // A chain longer than the ring (a loop, say) stops here too.
                if flags.load(Ordering::Acquire) & SIW_WQE_VALID as u16 != 0
                    || put.wrapping_sub(first) > mask
                {
                    break;
                }
                // SAFETY: the element is free (ours until VALID); wr is readable.
                let f = unsafe { fill_sqe(sqe, wr, sig_all) };
                if f == 0 {
                    break;
                }
                flags.store(f, Ordering::Release);
                put = put.wrapping_add(1);
                // SAFETY: wr is readable.
                wr = unsafe { (*wr).next };
            }
            let filled = put.wrapping_sub(first);
            if filled == 0 {
                return (wr, put & mask, 0);
            }
            self.put.store(put, Ordering::Relaxed);
            let ring_db = if filled <= mask {
                // Our VALID stores first, then the look at the element before.
                fence(Ordering::SeqCst);
                let prev = first.wrapping_sub(1) & mask;
                // SAFETY: prev <= mask, inside the ring; aligned u16.
                let prev_flags =
                    unsafe { AtomicU16::from_ptr(addr_of_mut!((*ring.add(prev as usize)).flags)) };
                prev_flags.load(Ordering::Relaxed) & SIW_WQE_VALID as u16 == 0
            } else {
                true
            };
            let db_err = if ring_db { self.db.ring(self.fd) } else { 0 };
            (wr, put & mask, db_err)
        });
        if wr.is_null() && db_err == 0 {
            return 0;
        }
        // SAFETY: wr is null or the caller's request where the loop stopped.
        unsafe { finish_cold(wr, at, db_err, bad_wr, report) }
    }
}

/// The end of a post that stopped at a request or whose doorbell failed:
/// upstream's return value, `*bad_wr`, and the reason for the log
/// (reported after the lock is released; upstream logs with it held).
///
/// # Safety
/// `wr` is null or a readable request; `bad_wr` null or writable.
#[cold]
#[inline(never)]
unsafe fn finish_cold(
    wr: *mut ibv_send_wr,
    at: u32,
    db_err: c_int,
    bad_wr: *mut *mut ibv_send_wr,
    report: impl FnOnce(SqFault),
) -> c_int {
    // SAFETY: bad_wr is null or the caller's pointer.
    unsafe { set_bad(bad_wr, wr) };
    let mut rv = 0;
    if !wr.is_null() {
        // SAFETY: the request the loop stopped at, readable.
        let fault = unsafe { refusal(wr) }.unwrap_or(SqFault::Full(at));
        report(fault);
        rv = match fault {
            SqFault::Full(_) => -libc::ENOMEM,
            _ => -libc::EINVAL,
        };
    }
    if db_err != 0 {
        // What upstream's write() returns, errno set.
        rdma_provider::set_errno(db_err);
        rv = -1;
    }
    rv
}

/// The SQE flags for `send_flags`: VALID, and SIGNALLED, SOLICITED,
/// INLINE and READ_FENCE from IBV_SEND_SIGNALED, _SOLICITED, _INLINE and
/// _FENCE, moved bit by bit without branches.
#[inline(always)]
fn sqe_flags(send_flags: u32, sig_all: u16) -> u16 {
    const _: () = assert!(IBV_SEND_SIGNALED << 1 == SIW_WQE_SIGNALLED);
    const _: () = assert!(IBV_SEND_SOLICITED << 1 == SIW_WQE_SOLICITED);
    const _: () = assert!(IBV_SEND_INLINE >> 2 == SIW_WQE_INLINE);
    const _: () = assert!(IBV_SEND_FENCE << 4 == SIW_WQE_READ_FENCE);
    let f = send_flags;
    (SIW_WQE_VALID
        | ((f & (IBV_SEND_SIGNALED | IBV_SEND_SOLICITED)) << 1)
        | ((f & IBV_SEND_INLINE) >> 2)
        | ((f & IBV_SEND_FENCE) << 4)) as u16
        | sig_all
}

/// Writes request `wr` into the free element `sqe`, all but its flags, and
/// returns the flags to publish it with, or 0 if the request is refused
/// ([`refusal`] then tells why).
///
/// Upstream's rules: the opcode must be one siw posts; inline data is
/// copied into the element from any number of SGEs (at most
/// [`SIW_MAX_INLINE`] bytes, behind the first SGE, whose length says how
/// many); otherwise at most [`SIW_MAX_SGE`] SGEs are copied. The remote
/// address and key come from `wr.rdma` whatever the opcode (so a
/// SEND_WITH_INV carries `wr.rdma.rkey`, not `invalidate_rkey`, as
/// upstream's does).
///
/// Where upstream would crash or misread, this refuses the request
/// ([`SqFault::Sgl`]): a null SGE list with `num_sge > 0`, a negative
/// `num_sge` or one above 6 whose low byte is not (upstream checks the
/// count truncated to the element's byte), an inline SGE with a null
/// address and a length; and an inline total beyond 2^31, which upstream's
/// int sum turns negative, is refused like any other too-long one.
///
/// # Safety
/// `sqe` is a writable element of the ring; `wr` is readable, its SGE list
/// holds `num_sge` entries (if not null), its inline data is readable.
#[inline(always)]
pub(crate) unsafe fn fill_sqe(sqe: *mut siw_sqe, wr: *const ibv_send_wr, sig_all: u16) -> u16 {
    // SAFETY (whole body): sqe and wr as the caller guarantees; every SGE
    // read is below num_sge; inline copies stay within the element, whose
    // SGE area (6 x 16 bytes) holds SIW_MAX_INLINE bytes behind sge[0].
    unsafe {
        let opcode = (*wr).opcode;
        let op = match SEND_OPCODE.get(opcode as usize) {
            Some(&op) if op != NO_OP => op,
            _ => return 0,
        };
        // The element is ours until VALID: its fields go in as soon as they
        // are read (fewer values kept in registers), as upstream's do.
        (*sqe).opcode = op;
        (*sqe).id = (*wr).wr_id;
        (*sqe).rkey = (*wr).wr.rdma.rkey;
        (*sqe).addr.raddr = (*wr).wr.rdma.remote_addr;
        let flags = sqe_flags((*wr).send_flags, sig_all);
        let n = (*wr).num_sge;
        (*sqe).num_sge = n as u8;
        let list = (*wr).sg_list;
        let sges = addr_of_mut!((*sqe).sgl.sge) as *mut siw_sge;
        if flags & SIW_WQE_INLINE as u16 != 0 {
            if n > 0 && list.is_null() {
                return 0;
            }
            let data = sges.add(1) as *mut u8;
            let mut bytes: u32 = 0;
            let mut i = 0;
            // A negative count copies nothing, as upstream's loop does.
            while i < n {
                let sge = list.add(i as usize);
                let len = (*sge).length;
                let total = bytes as u64 + len as u64;
                if total > SIW_MAX_INLINE as u64 {
                    return 0;
                }
                if len != 0 {
                    let src = (*sge).addr as usize as *const u8;
                    if src.is_null() {
                        return 0;
                    }
                    // memmove: the caller's data could overlap the ring.
                    ptr::copy(src, data.add(bytes as usize), len as usize);
                }
                bytes = total as u32;
                i += 1;
            }
            (*sges).length = bytes;
        } else {
            if n as u32 > SIW_MAX_SGE as u32 {
                return 0;
            }
            if n != 0 {
                if list.is_null() {
                    return 0;
                }
                crate::sge::copy_sges(sges, list, n as usize);
            }
        }
        flags
    }
}

/// Why [`fill_sqe`] refuses `wr`, or None if it takes it: its checks
/// again, in its order, with the numbers upstream logs.
///
/// # Safety
/// As for [`fill_sqe`] (only `wr` and its SGE list are read).
#[cold]
pub(crate) unsafe fn refusal(wr: *const ibv_send_wr) -> Option<SqFault> {
    // SAFETY: as the caller guarantees.
    unsafe {
        let opcode = (*wr).opcode;
        if !matches!(SEND_OPCODE.get(opcode as usize), Some(&op) if op != NO_OP) {
            return Some(SqFault::Opcode(opcode));
        }
        let n = (*wr).num_sge;
        let list = (*wr).sg_list;
        if (*wr).send_flags & IBV_SEND_INLINE != 0 {
            if n > 0 && list.is_null() {
                return Some(SqFault::Sgl);
            }
            let mut bytes: u64 = 0;
            for i in 0..n.max(0) as usize {
                let sge = list.add(i);
                bytes += (*sge).length as u64;
                if bytes > SIW_MAX_INLINE as u64 {
                    return Some(SqFault::Inline(bytes as i32));
                }
                if (*sge).length != 0 && (*sge).addr == 0 {
                    return Some(SqFault::Sgl);
                }
            }
            None
        } else if n as u32 > SIW_MAX_SGE as u32 || (n != 0 && list.is_null()) {
            Some(SqFault::Sgl)
        } else {
            None
        }
    }
}
