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
    /// as upstream leaves it.
    ///
    /// # Safety
    /// `self` was set up by [`RecvQueue::init`] (or is zeroed); `wr` is a
    /// chain of readable requests whose SGE lists hold `num_sge` entries.
    #[inline(always)]
    pub unsafe fn post(
        &self,
        mut wr: *mut ibv_recv_wr,
        bad_wr: &mut *mut ibv_recv_wr,
        report: impl FnOnce(RqFault),
    ) -> c_int {
        let ring = self.ring;
        if ring.is_null() {
            *bad_wr = wr;
            return -libc::EINVAL;
        }
        self.lock.with(|| {
            let mask = self.mask;
            let first = self.put.load(Ordering::Relaxed);
            let mut put = first;
            let mut rv = 0;
            while !wr.is_null() {
                let idx = put & mask;
                // SAFETY: idx <= mask, inside the mapped ring.
                let rqe = unsafe { ring.add(idx as usize) };
                // SAFETY: flags is an aligned u16 of the live ring.
                let flags = unsafe { AtomicU16::from_ptr(addr_of_mut!((*rqe).flags)) };
                if flags.load(Ordering::Acquire) & SIW_WQE_VALID as u16 != 0
                    || put.wrapping_sub(first) > mask
                {
                    report(RqFault::Full(idx));
                    rv = -libc::ENOMEM;
                    *bad_wr = wr;
                    break;
                }
                // SAFETY: the element is free; wr is readable.
                if !unsafe { fill_rqe(rqe, wr) } {
                    report(RqFault::Sgl);
                    rv = -libc::EINVAL;
                    *bad_wr = wr;
                    break;
                }
                flags.store(SIW_WQE_VALID as u16, Ordering::Release);
                put = put.wrapping_add(1);
                // SAFETY: wr is readable.
                wr = unsafe { (*wr).next };
            }
            self.put.store(put, Ordering::Relaxed);
            rv
        })
    }
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
        let n = (*wr).num_sge;
        let list = (*wr).sg_list;
        if (n as u32).wrapping_sub(1) >= SIW_MAX_SGE as u32 || list.is_null() {
            return false;
        }
        (*rqe).id = (*wr).wr_id;
        (*rqe).num_sge = n as u8;
        ptr::copy(
            list as *const siw_sge,
            addr_of_mut!((*rqe).sge) as *mut siw_sge,
            n as usize,
        );
        true
    }
}
