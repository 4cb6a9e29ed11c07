//! The completion queue: the kernel writes CQEs into the shared ring and
//! sets VALID; we copy each into the caller's `ibv_wc` and hand the element
//! back by clearing its flags. The ring ends with the arming word
//! ([`siw_cq_ctrl`]) that `ibv_req_notify_cq` writes without a system call.

use core::ffi::c_int;
use core::ptr::{self, addr_of_mut};
use core::sync::atomic::{AtomicU32, AtomicU8, Ordering};

use rdma_abi::siw::*;
use rdma_abi::verbs::*;

use rdma_provider::spin::SpinLock;

/// Each SIW_OP_* as the `ibv_wc_opcode` a completion reports. Upstream's
/// table leaves 9 to 11 zero (IBV_WC_SEND); beyond it upstream reads past
/// its table, here the answer is IBV_WC_SEND too.
const WC_OPCODE: [u8; SIW_NUM_OPCODES as usize] = {
    let mut t = [IBV_WC_SEND as u8; SIW_NUM_OPCODES as usize];
    t[SIW_OP_WRITE as usize] = IBV_WC_RDMA_WRITE as u8;
    t[SIW_OP_READ as usize] = IBV_WC_RDMA_READ as u8;
    t[SIW_OP_READ_LOCAL_INV as usize] = IBV_WC_RDMA_READ as u8;
    t[SIW_OP_SEND as usize] = IBV_WC_SEND as u8;
    t[SIW_OP_SEND_WITH_IMM as usize] = IBV_WC_SEND as u8;
    t[SIW_OP_SEND_REMOTE_INV as usize] = IBV_WC_SEND as u8;
    t[SIW_OP_FETCH_AND_ADD as usize] = IBV_WC_FETCH_ADD as u8;
    t[SIW_OP_COMP_AND_SWAP as usize] = IBV_WC_COMP_SWAP as u8;
    t[SIW_OP_RECEIVE as usize] = IBV_WC_RECV as u8;
    t
};

/// Each SIW_WC_* as its `ibv_wc_status`; a status beyond the table (which
/// upstream would read past) is reported as IBV_WC_GENERAL_ERR.
const WC_STATUS: [u8; SIW_NUM_WC_STATUS as usize] = {
    let mut t = [0u8; SIW_NUM_WC_STATUS as usize];
    t[SIW_WC_SUCCESS as usize] = IBV_WC_SUCCESS as u8;
    t[SIW_WC_LOC_LEN_ERR as usize] = IBV_WC_LOC_LEN_ERR as u8;
    t[SIW_WC_LOC_PROT_ERR as usize] = IBV_WC_LOC_PROT_ERR as u8;
    t[SIW_WC_LOC_QP_OP_ERR as usize] = IBV_WC_LOC_QP_OP_ERR as u8;
    t[SIW_WC_WR_FLUSH_ERR as usize] = IBV_WC_WR_FLUSH_ERR as u8;
    t[SIW_WC_BAD_RESP_ERR as usize] = IBV_WC_BAD_RESP_ERR as u8;
    t[SIW_WC_LOC_ACCESS_ERR as usize] = IBV_WC_LOC_ACCESS_ERR as u8;
    t[SIW_WC_REM_ACCESS_ERR as usize] = IBV_WC_REM_ACCESS_ERR as u8;
    t[SIW_WC_REM_INV_REQ_ERR as usize] = IBV_WC_REM_INV_REQ_ERR as u8;
    t[SIW_WC_GENERAL_ERR as usize] = IBV_WC_GENERAL_ERR as u8;
    t
};

/// The consumer side of one CQ ring.
#[repr(C)]
pub struct CompQueue {
    lock: SpinLock,
    /// Elements minus one (the kernel sizes the ring to a power of two).
    mask: u32,
    /// The next element to look at; wraps as a `u32`.
    get: AtomicU32,
    /// The mapped ring, null once retired.
    ring: *mut siw_cqe,
    /// The arming word after the last element.
    ctrl: *mut siw_cq_ctrl,
}

impl CompQueue {
    /// Sets up `self` (zeroed memory) for `num_cqe` elements (a power of
    /// two) at `ring`, and disarms the CQ, as upstream does.
    ///
    /// # Safety
    /// `ring` maps `num_cqe` CQEs followed by a [`siw_cq_ctrl`].
    pub unsafe fn init(&mut self, ring: *mut siw_cqe, num_cqe: u32) {
        self.ring = ring;
        self.mask = num_cqe.wrapping_sub(1);
        self.get = AtomicU32::new(0);
        // SAFETY: the control word follows the last element.
        self.ctrl = unsafe { ring.add(num_cqe as usize) } as *mut siw_cq_ctrl;
        // SAFETY: as above; aligned u32.
        unsafe { AtomicU32::from_ptr(addr_of_mut!((*self.ctrl).flags)) }
            .store(SIW_NOTIFY_NOT, Ordering::Relaxed);
    }

    /// The mapped ring, or null.
    pub fn ring(&self) -> *mut siw_cqe {
        self.ring
    }

    /// Forgets the ring (before the CQ's memory is freed): a poll of the
    /// stale CQ then fails instead of reading an unmapped ring.
    pub fn retire(&mut self) {
        self.ring = ptr::null_mut();
        self.ctrl = ptr::null_mut();
    }

    /// `ibv_poll_cq`: up to `num_entries` completions into `wc`. Returns
    /// how many; 0 for `num_entries <= 0` (upstream's loop runs on while
    /// there are completions when the count is negative); `-EINVAL` for a
    /// CQ without a ring or a null `wc` with room asked for.
    ///
    /// # Safety
    /// `self` set up by [`CompQueue::init`] or retired; `wc` has room for
    /// `num_entries` entries.
    #[inline(always)]
    pub unsafe fn poll(&self, num_entries: c_int, mut wc: *mut ibv_wc) -> c_int {
        let ring = self.ring;
        if num_entries <= 0 {
            return 0;
        }
        if ring.is_null() || wc.is_null() {
            return -libc::EINVAL;
        }
        self.lock.with(|| {
            let mask = self.mask;
            let first = self.get.load(Ordering::Relaxed);
            let mut get = first;
            let end = first.wrapping_add(num_entries as u32);
            while get != end {
                // SAFETY: index <= mask, inside the ring.
                let cqe = unsafe { ring.add((get & mask) as usize) };
                // SAFETY: flags is the element's first byte after id: aligned u8.
                let flags = unsafe { AtomicU8::from_ptr(addr_of_mut!((*cqe).flags)) };
                if flags.load(Ordering::Acquire) & SIW_WQE_VALID as u8 == 0 {
                    break;
                }
                // SAFETY: a VALID element is ours to read; wc has room.
                unsafe { copy_cqe(cqe, wc) };
                flags.store(0, Ordering::Release);
                get = get.wrapping_add(1);
                // SAFETY: still within the caller's num_entries.
                wc = unsafe { wc.add(1) };
            }
            self.get.store(get, Ordering::Relaxed);
            get.wrapping_sub(first) as c_int
        })
    }

    /// `ibv_req_notify_cq`: arms the CQ for the next solicited completion
    /// (`solicited != 0`) or for any. A sequentially consistent store (the
    /// caller polls again next, and the kernel reads the word after writing
    /// a CQE: a store-load pairing). Returns 0; `-EINVAL` on a retired CQ.
    #[inline(always)]
    pub fn arm(&self, solicited: c_int) -> c_int {
        let ctrl = self.ctrl;
        if ctrl.is_null() {
            return -libc::EINVAL;
        }
        let v = if solicited != 0 {
            SIW_NOTIFY_SOLICITED
        } else {
            SIW_NOTIFY_SOLICITED | SIW_NOTIFY_NEXT_COMPLETION
        };
        // SAFETY: the control word of the live mapping; aligned u32.
        unsafe { AtomicU32::from_ptr(addr_of_mut!((*ctrl).flags)) }.swap(v, Ordering::SeqCst);
        0
    }
}

/// One CQE as an `ibv_wc`: what upstream fills (id, status, opcode,
/// vendor_err 0, byte_len, imm_data 0, qp_num, wc_flags 0); src_qp and the
/// fields after wc_flags are left as they were.
///
/// # Safety
/// `cqe` is a VALID element; `wc` writable.
#[inline(always)]
unsafe fn copy_cqe(cqe: *const siw_cqe, wc: *mut ibv_wc) {
    // SAFETY: as the caller guarantees.
    unsafe {
        let op = (*cqe).opcode as usize;
        let st = (*cqe).status as usize;
        (*wc).wr_id = (*cqe).id;
        (*wc).status = match WC_STATUS.get(st) {
            Some(&s) => s as u32,
            None => IBV_WC_GENERAL_ERR,
        };
        (*wc).opcode = match WC_OPCODE.get(op) {
            Some(&o) => o as u32,
            None => IBV_WC_SEND,
        };
        (*wc).vendor_err = 0;
        (*wc).byte_len = (*cqe).bytes;
        (*wc).imm.imm_data = 0;
        (*wc).qp_num = (*cqe).qp.qp_id as u32;
        (*wc).wc_flags = 0;
    }
}
