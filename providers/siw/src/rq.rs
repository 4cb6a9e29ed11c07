//! Receive queues (a QP's own, or an SRQ): work requests become RQEs in the
//! ring shared with the kernel, published by their VALID flag as on the
//! send queue. The kernel looks at the ring when data arrives, so no
//! doorbell is needed.

use core::ffi::c_int;
use core::ptr::{self, addr_of_mut};
use core::sync::atomic::{AtomicU16, AtomicU32, Ordering};

use rdma_abi::siw::*;
use rdma_abi::verbs::*;

use rdma_provider::spin::SpinLock;

/// Why a post failed; the caller logs what upstream logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RqFault {
    /// The element at this index is still the kernel's ("RQ overflow"), or
    /// the chain is longer than the ring.
    Full(u32),
    /// A bad SGE list (upstream logs nothing).
    Sgl,
}

/// A receive ring and its producer state.
#[repr(C)]
pub struct RecvQueue {
    lock: SpinLock,
    /// Elements in the ring minus one (a power of two minus one).
    mask: u32,
    /// The next element to fill; wraps as a `u32`.
    put: AtomicU32,
    /// The mapped ring; null for a QP without one (it uses an SRQ) and
    /// once retired.
    ring: *mut siw_rqe,
}

impl RecvQueue {
    /// Sets up `self` (zeroed memory) for `num_rqe` elements (a power of
    /// two) at `ring`.
    pub fn init(&mut self, ring: *mut siw_rqe, num_rqe: u32) {
        self.ring = ring;
        self.mask = num_rqe.wrapping_sub(1);
        self.put = AtomicU32::new(0);
    }

    /// The mapped ring, or null.
    pub fn ring(&self) -> *mut siw_rqe {
        self.ring
    }

    /// Forgets the ring (before its memory is freed).
    pub fn retire(&mut self) {
        self.ring = ptr::null_mut();
    }

    /// The queue's lock (modify_qp and modify_srq hold it around the
    /// command).
    pub fn lock(&self) -> &SpinLock {
        &self.lock
    }

    /// `ibv_post_recv` / `ibv_post_srq_recv`: one RQE per request. Returns
    /// 0, or `-EINVAL` (bad SGE list, or no ring: a QP that receives through
    /// an SRQ, where upstream divides by zero) or `-ENOMEM` (ring full) with
    /// `*bad_wr` at the refused request. `*bad_wr` is left alone on success,
    /// as upstream leaves it. `report` is told why a request was refused.
    ///
    /// # Safety
    /// `self` was set up by [`RecvQueue::init`] (or is zeroed); `wr` is a
    /// chain of readable requests whose SGE lists hold `num_sge` entries;
    /// `bad_wr` is null (the bad request is then not reported) or writable.
    #[inline(always)]
    pub unsafe fn post(
        &self,
        wr: *mut ibv_recv_wr,
        bad_wr: *mut *mut ibv_recv_wr,
        report: impl FnOnce(RqFault),
    ) -> c_int {
        let ring = self.ring;
        if ring.is_null() {
            // SAFETY: bad_wr is null or the caller's pointer.
            unsafe { set_bad(bad_wr, wr) };
            return -libc::EINVAL;
        }
        // The locked part hands back plain values: the request it stopped at
        // (null if it took them all) and that element's index. Why it stopped
        // is worked out again off the hot path: a request `rqe_ok` accepts
        // met a full ring.
        let (wr, at) = self.lock.with(move || {
            let mut wr = wr;
            let mask = self.mask;
            let first = self.put.load(Ordering::Relaxed);
            let mut put = first;
            while !wr.is_null() {
                // SAFETY: the index is masked, inside the mapped ring.
                let rqe = unsafe { ring.add((put & mask) as usize) };
                // SAFETY: flags is an aligned u16 of the live ring.
                let flags = unsafe { AtomicU16::from_ptr(addr_of_mut!((*rqe).flags)) };
                if flags.load(Ordering::Acquire) & SIW_WQE_VALID as u16 != 0
                    || put.wrapping_sub(first) > mask
                {
                    break;
                }
                // SAFETY: the element is free; wr is readable.
                if !unsafe { fill_rqe(rqe, wr) } {
                    break;
                }
                flags.store(SIW_WQE_VALID as u16, Ordering::Release);
                put = put.wrapping_add(1);
                // SAFETY: wr is readable.
                wr = unsafe { (*wr).next };
            }
            self.put.store(put, Ordering::Relaxed);
            (wr, put & mask)
        });
        if wr.is_null() {
            return 0;
        }
        // SAFETY: the caller's request where the loop stopped.
        unsafe { refuse_cold(wr, at, bad_wr, report) }
    }
}

/// `*bad_wr = wr`, unless the caller passed no `bad_wr` (upstream would
/// write through the null pointer).
///
/// # Safety
/// `bad_wr` is null or writable.
#[inline(always)]
pub(crate) unsafe fn set_bad<T>(bad_wr: *mut *mut T, wr: *mut T) {
    if !bad_wr.is_null() {
        // SAFETY: the caller's promise.
        unsafe { *bad_wr = wr };
    }
}

/// The end of a post that stopped at a request: `*bad_wr`, the reason for
/// the log (reported after the lock is released; upstream logs with it
/// held) and upstream's return value.
///
/// # Safety
/// `wr` is a readable request; `bad_wr` null or writable.
#[cold]
#[inline(never)]
unsafe fn refuse_cold(
    wr: *mut ibv_recv_wr,
    at: u32,
    bad_wr: *mut *mut ibv_recv_wr,
    report: impl FnOnce(RqFault),
) -> c_int {
    // SAFETY: bad_wr is null or the caller's pointer.
    unsafe { set_bad(bad_wr, wr) };
    // SAFETY: the caller's readable request.
    if unsafe { rqe_ok(wr) } {
        report(RqFault::Full(at));
        -libc::ENOMEM
    } else {
        report(RqFault::Sgl);
        -libc::EINVAL
    }
}

/// Whether [`fill_rqe`] takes `wr`: 1 to [`SIW_MAX_SGE`] SGEs, a list.
///
/// # Safety
/// `wr` is readable.
#[inline(always)]
unsafe fn rqe_ok(wr: *const ibv_recv_wr) -> bool {
    // SAFETY: the caller's promise.
    let (n, list) = unsafe { ((*wr).num_sge, (*wr).sg_list) };
    (n as u32).wrapping_sub(1) < SIW_MAX_SGE as u32 && !list.is_null()
}

/// Writes `wr` into the free element `rqe`, all but its flags. Upstream's
/// rule: 1 to [`SIW_MAX_SGE`] SGEs (no empty receive). A null SGE list is
/// refused too, where upstream would crash.
///
/// # Safety
/// `rqe` is a writable element; `wr` readable, its list of `num_sge`
/// entries readable if not null.
#[inline(always)]
pub(crate) unsafe fn fill_rqe(rqe: *mut siw_rqe, wr: *const ibv_recv_wr) -> bool {
    // SAFETY (whole body): as the caller guarantees; at most SIW_MAX_SGE
    // SGEs are read and written.
    unsafe {
        if !rqe_ok(wr) {
            return false;
        }
        let n = (*wr).num_sge;
        let list = (*wr).sg_list;
        (*rqe).id = (*wr).wr_id;
        (*rqe).num_sge = n as u8;
        crate::sge::copy_sges(addr_of_mut!((*rqe).sge) as *mut siw_sge, list, n as usize);
        true
    }
}
