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

/// Each SIW_OP_* as the `ibv_wc_opcode` a completion reports, for every
/// byte value (so the lookup needs no bounds check). Upstream's table
/// leaves 9 to 11 zero (IBV_WC_SEND); beyond it upstream reads past its
/// table, here the answer is IBV_WC_SEND too.
static WC_OPCODE: [u8; 256] = {
    let mut t = [IBV_WC_SEND as u8; 256];
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
static WC_STATUS: [u8; SIW_NUM_WC_STATUS as usize] = {
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

/// Where a retired CQ's arming goes: nobody reads it.
struct RetiredCtrl(core::cell::UnsafeCell<siw_cq_ctrl>);
// SAFETY: only written through atomics (arm), never read.
unsafe impl Sync for RetiredCtrl {}
static RETIRED_CTRL: RetiredCtrl = RetiredCtrl(core::cell::UnsafeCell::new(siw_cq_ctrl {
    flags: 0,
    pad: 0,
}));

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
        self.ctrl = RETIRED_CTRL.0.get();
    }

    /// `ibv_poll_cq`: up to `num_entries` completions into `wc`. Returns
    /// how many; 0 for `num_entries <= 0` (upstream's loop runs on while
    /// there are completions when the count is negative); `-EINVAL` for a
    /// CQ without a ring, or a null `wc` while there are completions to
    /// write (upstream writes through it).
    ///
    /// # Safety
    /// `self` set up by [`CompQueue::init`] or retired; `wc` has room for
    /// `num_entries` entries.
    #[inline(always)]
    pub unsafe fn poll(&self, num_entries: c_int, wc: *mut ibv_wc) -> c_int {
        let ring = self.ring;
        if ring.is_null() {
            return if num_entries <= 0 { 0 } else { -libc::EINVAL };
        }
        // A look at the head without the lock first: an empty CQ (what a
        // busy-polling caller meets most) answers 0 without the atomic
        // operations of the lock. `get` only moves under the lock; read
        // outside it, it may be a concurrent poller's old value, whose
        // element is then no longer VALID, and this poll returns 0, as it
        // would had it waited for that poller.
        let get = self.get.load(Ordering::Relaxed);
        // SAFETY: the index is masked, inside the ring; flags is an aligned u8.
        let head = unsafe {
            AtomicU8::from_ptr(addr_of_mut!((*ring.add((get & self.mask) as usize)).flags))
        };
        if num_entries <= 0 || head.load(Ordering::Acquire) & SIW_WQE_VALID as u8 == 0 {
            return 0;
        }
        if wc.is_null() {
            return -libc::EINVAL;
        }
        // SAFETY: as the caller guarantees.
        unsafe { self.poll_locked(ring, num_entries, wc) }
    }

    /// The polling proper, under the lock.
    ///
    /// # Safety
    /// As for [`CompQueue::poll`]; `ring` is the live ring, `num_entries > 0`.
    #[inline(always)]
    unsafe fn poll_locked(
        &self,
        ring: *mut siw_cqe,
        num_entries: c_int,
        mut wc: *mut ibv_wc,
    ) -> c_int {
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
    /// a CQE: a store-load pairing). Returns 0, as upstream. A retired CQ
    /// arms a word of its own, no longer shared (no check on this path).
    #[inline(always)]
    pub fn arm(&self, solicited: c_int) -> c_int {
        // SAFETY: the control word of the live mapping (or the retired
        // word); aligned u32.
        let word = unsafe { AtomicU32::from_ptr(addr_of_mut!((*self.ctrl).flags)) };
        // A store on one branch and a swap on the other (both an xchg on
        // x86): two different operations keep the branches apart, where two
        // swaps would be merged into one fed by a select, an instruction
        // longer than upstream's.
        if solicited != 0 {
            word.store(SIW_NOTIFY_SOLICITED, Ordering::SeqCst);
        } else {
            word.swap(
                SIW_NOTIFY_SOLICITED | SIW_NOTIFY_NEXT_COMPLETION,
                Ordering::SeqCst,
            );
        }
        0
    }
}

/// One CQE as an `ibv_wc`: what upstream fills (id, status, opcode,
/// vendor_err 0, byte_len, imm_data 0, qp_num, wc_flags 0); src_qp and the
/// fields after wc_flags are left as they were. The adjacent 32-bit fields
/// go in pairs, as 64-bit stores.
///
/// # Safety
/// `cqe` is a VALID element; `wc` writable.
#[inline(always)]
unsafe fn copy_cqe(cqe: *const siw_cqe, wc: *mut ibv_wc) {
    // SAFETY: as the caller guarantees; the pair stores cover two adjacent
    // u32 fields each (offsets checked below), and ibv_wc is 8-aligned.
    unsafe {
        let st = (*cqe).status as usize;
        let status = match WC_STATUS.get(st) {
            Some(&s) => s as u32,
            None => IBV_WC_GENERAL_ERR,
        };
        let opcode = WC_OPCODE[(*cqe).opcode as usize] as u32;
        (*wc).wr_id = (*cqe).id;
        let w = wc as *mut u8;
        // status, opcode
        ptr::write(w.add(8) as *mut u64, pair(status, opcode));
        // vendor_err = 0, byte_len
        ptr::write(w.add(16) as *mut u64, pair(0, (*cqe).bytes));
        // imm_data = 0, qp_num
        ptr::write(w.add(24) as *mut u64, pair(0, (*cqe).qp.qp_id as u32));
        (*wc).wc_flags = 0;
    }
}

/// Two u32 fields, the first at the lower address, as one u64.
#[inline(always)]
fn pair(first: u32, second: u32) -> u64 {
    if cfg!(target_endian = "little") {
        first as u64 | (second as u64) << 32
    } else {
        (first as u64) << 32 | second as u64
    }
}

const _: () = {
    use core::mem::{align_of, offset_of};
    assert!(align_of::<ibv_wc>() == 8);
    assert!(offset_of!(ibv_wc, status) == 8 && offset_of!(ibv_wc, opcode) == 12);
    assert!(offset_of!(ibv_wc, vendor_err) == 16 && offset_of!(ibv_wc, byte_len) == 20);
    assert!(offset_of!(ibv_wc, imm) == 24 && offset_of!(ibv_wc, qp_num) == 28);
};
