//! Completion queues: the kernel produces `ib_uverbs_wc` entries into the
//! shared queue, user space consumes them, through `ibv_poll_cq` or the
//! extended start/next/end_poll interface.

use core::cell::{Cell, UnsafeCell};
use core::ffi::c_int;
use core::mem::offset_of;
use core::ptr;
use core::sync::atomic::{AtomicPtr, Ordering};

use rdma_abi::driver::pabi34_v44::verbs_cq;
use rdma_abi::kern::{ib_uverbs_wc, ibv_resize_cq};
use rdma_abi::rxe::rxe_queue_buf;
use rdma_abi::rxe_abi::{urxe_create_cq_ex_resp, urxe_create_cq_resp, urxe_resize_cq_resp};
use rdma_abi::verbs::*;
use rdma_provider::mem::Tag;
use rdma_provider::queue::Mapping;
use rdma_provider::spin::SpinLock;
use rdma_provider::{fail, mem, op, set_errno, verbs};
use rdma_util::mem::zeroed;

use crate::queue::{indices, next, used, Queue};

/// Marks a live CQ: polling a destroyed one is refused where the memory
/// still says so.
const CQ_MAGIC: u64 = 0x7278_655f_6371_2121;

#[repr(C)]
pub(crate) struct RxeCq {
    /// Whether the CQ is live (see `rdma_provider::mem::Tag`).
    tag: Tag,
    /// The library's part: `ibv_cq` and `ibv_cq_ex` pointers point here.
    vcq: UnsafeCell<verbs_cq>,
    lock: SpinLock,
    q: Cell<Queue>,
    /// The current queue's header, for the check for an empty queue that
    /// polls make before taking the lock; UNMAPPED's while a live CQ has no
    /// queue (before its tag is set it is not read).
    head: AtomicPtr<rxe_queue_buf>,
    /// Queues a resize replaced: still mapped, as a poll may be reading
    /// their header without the lock; unmapped at destroy.
    retired: Cell<*mut Retired>,
    /// The entry the extended interface is at.
    cur: Cell<u32>,
    wc: Cell<*const ib_uverbs_wc>,
}

const _: () = assert!(size_of::<ib_uverbs_wc>() == size_of::<ibv_wc>());

/// A queue mapping a resize replaced (a calloc'ed list).
#[repr(C)]
struct Retired {
    map: Mapping,
    next: *mut Retired,
}

impl RxeCq {
    /// Our CQ behind a live `ibv_cq` (or `ibv_cq_ex`) of ours.
    ///
    /// # Safety
    /// `cq` is a CQ this provider created (possibly destroyed: the magic
    /// word is then checked by the caller before anything else).
    #[inline(always)]
    unsafe fn of<'a, T>(cq: *mut T) -> &'a RxeCq {
        // SAFETY: the caller's promise: cq is the vcq member of an RxeCq.
        unsafe { &*cq.byte_sub(offset_of!(RxeCq, vcq)).cast::<RxeCq>() }
    }

    #[inline(always)]
    fn ibv(&self) -> *mut ibv_cq {
        self.vcq.get().cast()
    }

    #[inline(always)]
    fn ex(&self) -> *mut ibv_cq_ex {
        self.vcq.get().cast()
    }

    #[inline(always)]
    fn live(&self) -> bool {
        self.tag.is(CQ_MAGIC)
    }
}

/// What a live CQ's `head` points at while it has no queue (its resize
/// could not map the new one): a header that never looks empty, so that a
/// poll goes on to take the lock, finds no queue and fails with EINVAL,
/// with no null check on the polling path. Never written.
struct Unmapped(UnsafeCell<rxe_queue_buf>);

// SAFETY: nothing writes it; readers only load its indices.
unsafe impl Sync for Unmapped {}

static UNMAPPED: Unmapped = Unmapped(UnsafeCell::new(rxe_queue_buf {
    log2_elem_size: 0,
    index_mask: 0,
    pad_1: [0; 30],
    producer_index: 1,
    pad_2: [0; 31],
    consumer_index: 0,
    pad_3: [0; 31],
    data: [],
}));

/// Finishes a CQ the kernel created: maps its queue. On failure the kernel's
/// CQ is destroyed and the memory freed; errno says why.
///
/// # Safety
/// `cq` is our new CQ with the library's part initialised.
unsafe fn map_cq(context: *mut ibv_context, cq: *mut RxeCq, mi: &rdma_abi::rxe::mminfo) -> bool {
    // SAFETY: a live context.
    let fd = unsafe { (*context).cmd_fd };
    match Queue::map(fd, mi, size_of::<ib_uverbs_wc>()) {
        Ok(q) => {
            // SAFETY: our CQ, not yet handed out.
            unsafe {
                (*cq).q.set(q);
                (*cq).head.store(q.header(), Ordering::Release);
                (*cq).tag.set(CQ_MAGIC);
            }
            true
        }
        Err(e) => {
            // SAFETY: the kernel's CQ just made, ours to undo.
            unsafe {
                (verbs().cmd_destroy_cq)((*cq).vcq.get().cast());
                mem::free(cq);
            }
            set_errno(e);
            false
        }
    }
}

op! {
    pub(crate) fn rxe_create_cq(context: *mut ibv_context, cqe: c_int, channel: *mut ibv_comp_channel,
                                comp_vector: c_int) -> *mut ibv_cq, on_panic = ptr::null_mut();
    {
        let cq = mem::calloc::<RxeCq>();
        if cq.is_null() {
            return ptr::null_mut();
        }
        let mut resp: urxe_create_cq_resp = zeroed();
        // SAFETY: our new CQ; the library builds the command itself.
        let ret = unsafe {
            (verbs().cmd_create_cq)(context, cqe, channel, comp_vector, (*cq).vcq.get().cast(), ptr::null_mut(), 0,
                                    &mut resp.ibv_resp, size_of::<urxe_create_cq_resp>())
        };
        if ret != 0 {
            // SAFETY: ours, never handed out.
            unsafe { mem::free(cq) };
            return ptr::null_mut();
        }
        // SAFETY: our new CQ.
        if unsafe { map_cq(context, cq, &resp.drv_payload.mi) } {
            // SAFETY: our new CQ.
            unsafe { (*cq).ibv() }
        } else {
            ptr::null_mut()
        }
    }
}

/// The completion fields rxe's entries carry (the extended CQ may ask for
/// no others).
const SUP_WC_FLAGS: u64 = (IBV_WC_EX_WITH_BYTE_LEN
    | IBV_WC_EX_WITH_IMM
    | IBV_WC_EX_WITH_QP_NUM
    | IBV_WC_EX_WITH_SRC_QP
    | IBV_WC_EX_WITH_SLID
    | IBV_WC_EX_WITH_SL
    | IBV_WC_EX_WITH_DLID_PATH_BITS) as u64;

op! {
    pub(crate) fn rxe_create_cq_ex(context: *mut ibv_context, attr: *mut ibv_cq_init_attr_ex) -> *mut ibv_cq_ex,
        on_panic = ptr::null_mut();
    {
        // SAFETY: the library passes the application's attributes.
        let wc_flags = unsafe { (*attr).wc_flags };
        if wc_flags & !SUP_WC_FLAGS != 0 {
            set_errno(libc::EOPNOTSUPP);
            return ptr::null_mut();
        }
        let cq = mem::calloc::<RxeCq>();
        if cq.is_null() {
            return ptr::null_mut();
        }
        let mut resp: urxe_create_cq_ex_resp = zeroed();
        // SAFETY: our new CQ; the library builds the command itself.
        let ret = unsafe {
            verbs().cmd_create_cq_ex(context, attr, (*cq).vcq.get(), ptr::null_mut(), 0, &mut resp.ibv_resp,
                                     size_of::<urxe_create_cq_ex_resp>(), 0)
        };
        if ret != 0 {
            // SAFETY: ours, never handed out.
            unsafe { mem::free(cq) };
            return ptr::null_mut();
        }
        // SAFETY: our new CQ.
        if !unsafe { map_cq(context, cq, &resp.drv_payload.mi) } {
            return ptr::null_mut();
        }
        // SAFETY: our CQ's extended part, not yet handed out.
        let ex = unsafe { &mut *(*cq).ex() };
        // Within the supported bits, all below bit 32.
        let wc_flags = wc_flags as u32;
        ex.start_poll = Some(cq_start_poll);
        ex.next_poll = Some(cq_next_poll);
        ex.end_poll = Some(cq_end_poll);
        ex.read_opcode = Some(cq_read_opcode);
        ex.read_vendor_err = Some(cq_read_vendor_err);
        ex.read_wc_flags = Some(cq_read_wc_flags);
        if wc_flags & IBV_WC_EX_WITH_BYTE_LEN != 0 {
            ex.read_byte_len = Some(cq_read_byte_len);
        }
        if wc_flags & IBV_WC_EX_WITH_IMM != 0 {
            ex.read_imm_data = Some(cq_read_imm_data);
        }
        if wc_flags & IBV_WC_EX_WITH_QP_NUM != 0 {
            ex.read_qp_num = Some(cq_read_qp_num);
        }
        if wc_flags & IBV_WC_EX_WITH_SRC_QP != 0 {
            ex.read_src_qp = Some(cq_read_src_qp);
        }
        if wc_flags & IBV_WC_EX_WITH_SLID != 0 {
            ex.read_slid = Some(cq_read_slid);
        }
        if wc_flags & IBV_WC_EX_WITH_SL != 0 {
            ex.read_sl = Some(cq_read_sl);
        }
        if wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS != 0 {
            ex.read_dlid_path_bits = Some(cq_read_dlid_path_bits);
        }
        ex
    }
}

/// Keeps a queue a resize replaced mapped until the CQ is destroyed (a
/// concurrent poll may still read its header). Without memory for the
/// list, the mapping stays until the process ends.
fn retire(cq: &RxeCq, q: Queue) {
    if !q.is_mapped() {
        return;
    }
    let r = mem::calloc::<Retired>();
    if !r.is_null() {
        // SAFETY: our new node.
        unsafe {
            (*r).map = q.map;
            (*r).next = cq.retired.get();
        }
        cq.retired.set(r);
    }
}

op! {
    pub(crate) fn rxe_resize_cq(ibcq: *mut ibv_cq, cqe: c_int) -> c_int, on_panic = libc::EIO;
    {
        // SAFETY: one of our CQs.
        let cq = unsafe { RxeCq::of(ibcq) };
        if !cq.live() {
            return libc::EINVAL;
        }
        cq.lock.lock();
        let mut cmd = ibv_resize_cq::default();
        let mut resp: urxe_resize_cq_resp = zeroed();
        // SAFETY: our live CQ and buffers.
        let ret = unsafe {
            (verbs().cmd_resize_cq)(ibcq, cqe, &mut cmd, size_of::<ibv_resize_cq>(), &mut resp.ibv_resp,
                                    size_of::<urxe_resize_cq_resp>())
        };
        if ret != 0 {
            cq.lock.unlock();
            return ret;
        }
        retire(cq, cq.q.get());
        // SAFETY: a live CQ's context.
        let fd = unsafe { (*(*ibcq).context).cmd_fd };
        let r = match Queue::map(fd, &resp.drv_payload.mi, size_of::<ib_uverbs_wc>()) {
            Ok(q) => {
                cq.q.set(q);
                cq.head.store(q.header(), Ordering::Release);
                0
            }
            Err(e) => {
                // Polling it fails from now on (upstream's would crash).
                cq.q.set(Queue::NONE);
                cq.head.store(UNMAPPED.0.get(), Ordering::Release);
                e
            }
        };
        cq.lock.unlock();
        r
    }
}

op! {
    pub(crate) fn rxe_destroy_cq(ibcq: *mut ibv_cq) -> c_int, on_panic = libc::EIO;
    {
        // SAFETY: one of our CQs.
        let cq = unsafe { RxeCq::of(ibcq) };
        // SAFETY: passed on.
        let ret = unsafe { (verbs().cmd_destroy_cq)(ibcq) };
        if ret != 0 {
            return ret;
        }
        cq.tag.clear();
        let mut q = cq.q.get();
        // SAFETY: the CQ is gone; its memory and mappings are ours to release.
        unsafe {
            q.unmap();
            let mut r = cq.retired.get();
            while !r.is_null() {
                let next = (*r).next;
                (*r).map.unmap();
                mem::free(r);
                r = next;
            }
            mem::free(cq as *const RxeCq as *mut RxeCq);
        }
        0
    }
}

op! {
    pub(crate) fn rxe_poll_cq(ibcq: *mut ibv_cq, ne: c_int, wc: *mut ibv_wc) -> c_int, on_panic = -1;
    {
        // Upstream's loop returns 0 for ne <= 0 too.
        if ne <= 0 {
            return 0;
        }
        // SAFETY: one of our CQs (its magic checked next).
        let cq = unsafe { RxeCq::of(ibcq) };
        let head = cq.head.load(Ordering::Acquire);
        if !cq.live() {
            return fail(libc::EINVAL, -1);
        }
        // Nothing to poll: no lock needed to say so (the common case of a
        // polling loop).
        // SAFETY: a live CQ's header stays mapped while the CQ lives (see
        // retire), or is UNMAPPED's.
        let (cons0, prod0) = unsafe { indices(head) };
        if cons0 == prod0 {
            return 0;
        }
        if wc.is_null() {
            return fail(libc::EINVAL, -1);
        }
        cq.lock.lock();
        let q = cq.q.get();
        if q.header() != head {
            // Resized (or destroyed) since `head` was read: start over under
            // the lock with the queue as it is now.
            return poll_locked(cq, ne as u32, wc);
        }
        let cons = q.consumer().load(Ordering::Relaxed);
        let (data, shift) = q.geometry();
        // The producer read above is still a lower bound of what the kernel
        // finished, unless another poller took entries since: then it may be
        // behind the consumer, so read it again.
        let prod = if cons == cons0 { prod0 } else { q.producer().load(Ordering::Acquire) };
        let n = used(prod, cons, q.mask).min(ne as u32);
        if n == 1 {
            // The usual ibv_poll_cq(cq, 1, &wc): one entry, no loop.
            // SAFETY: a finished entry, of the same 48-byte layout as
            // ibv_wc; the caller's array has room for one.
            unsafe {
                let src = data.add(((cons & q.mask) as usize) << shift);
                ptr::copy_nonoverlapping(src.cast::<ibv_wc>(), wc, 1);
            }
            q.consumer().store(next(cons, q.mask), Ordering::Release);
        } else if n != 0 {
            // SAFETY: entries between consumer and producer are the
            // kernel's finished ones, of the same 48-byte layout as ibv_wc;
            // the caller's array holds ne >= n entries.
            let i = unsafe { copy_entries(data, q.mask, shift, cons, wc, n) };
            q.consumer().store(i, Ordering::Release);
        }
        cq.lock.unlock();
        n as c_int
    }
}

/// rxe_poll_cq's slow path, entered with the CQ locked when its queue
/// changed since the unlocked look; unlocks.
#[cold]
#[inline(never)]
fn poll_locked(cq: &RxeCq, ne: u32, wc: *mut ibv_wc) -> c_int {
    let q = cq.q.get();
    if !q.is_mapped() {
        cq.lock.unlock();
        return fail(libc::EINVAL, -1);
    }
    let cons = q.consumer().load(Ordering::Relaxed);
    let n = used(q.producer().load(Ordering::Acquire), cons, q.mask).min(ne);
    if n != 0 {
        let (data, shift) = q.geometry();
        // SAFETY: as in rxe_poll_cq.
        let i = unsafe { copy_entries(data, q.mask, shift, cons, wc, n) };
        q.consumer().store(i, Ordering::Release);
    }
    cq.lock.unlock();
    n as c_int
}

/// Copies `n` (at least 1) entries from index `cons` on to `wc`; returns
/// the index after them.
///
/// # Safety
/// `n` finished entries follow `cons` in the queue whose elements start at
/// `data` (`mask`, `2^shift` bytes each); `wc` has room for `n`.
#[inline(always)]
unsafe fn copy_entries(
    data: *const u8,
    mask: u32,
    shift: u32,
    cons: u32,
    wc: *mut ibv_wc,
    n: u32,
) -> u32 {
    let mut i = cons;
    let mut dst = wc;
    // SAFETY: the caller's promise.
    let end = unsafe { wc.add(n as usize) };
    loop {
        // SAFETY: the caller's promise.
        unsafe {
            let src = data.add(((i & mask) as usize) << shift);
            ptr::copy_nonoverlapping(src.cast::<ibv_wc>(), dst, 1);
            dst = dst.add(1);
        }
        i = next(i, mask);
        if dst == end {
            return i;
        }
    }
}

/// Points the extended CQ at the entry at `index`.
#[inline(always)]
fn load_entry(cq: &RxeCq, q: &Queue, index: u32) {
    let wc = q.slot(index) as *const ib_uverbs_wc;
    cq.cur.set(index);
    cq.wc.set(wc);
    // SAFETY: a finished entry of the queue; the library's ibv_cq_ex fields
    // are ours to set between start_poll and end_poll.
    unsafe {
        let ex = cq.ex();
        (*ex).status = (*wc).status;
        (*ex).wr_id = (*wc).wr_id;
    }
}

op! {
    fn cq_start_poll(current: *mut ibv_cq_ex, _attr: *mut ibv_poll_cq_attr) -> c_int, on_panic = libc::EIO;
    {
        // SAFETY: one of our extended CQs.
        let cq = unsafe { RxeCq::of(current) };
        if !cq.live() {
            return fail(libc::EINVAL, libc::EINVAL);
        }
        cq.lock.lock();
        let q = cq.q.get();
        if !q.is_mapped() {
            cq.lock.unlock();
            return fail(libc::EINVAL, libc::EINVAL);
        }
        let cons = q.consumer().load(Ordering::Relaxed);
        if cons == q.producer().load(Ordering::Acquire) {
            cq.lock.unlock();
            set_errno(libc::ENOENT);
            return libc::ENOENT;
        }
        load_entry(cq, &q, cons);
        0
    }
}

op! {
    fn cq_next_poll(current: *mut ibv_cq_ex) -> c_int, on_panic = libc::EIO;
    {
        // SAFETY: one of our extended CQs, polled since start_poll.
        let cq = unsafe { RxeCq::of(current) };
        let q = cq.q.get();
        let n = next(cq.cur.get(), q.mask);
        if n == q.producer().load(Ordering::Acquire) {
            // The current entry stays unconsumed until end_poll.
            q.consumer().store(cq.cur.get(), Ordering::Release);
            set_errno(libc::ENOENT);
            return libc::ENOENT;
        }
        load_entry(cq, &q, n);
        0
    }
}

op! {
    fn cq_end_poll(current: *mut ibv_cq_ex);
    {
        // SAFETY: one of our extended CQs, polled since start_poll.
        let cq = unsafe { RxeCq::of(current) };
        let q = cq.q.get();
        let n = next(cq.cur.get(), q.mask);
        cq.cur.set(n);
        q.consumer().store(n, Ordering::Release);
        cq.lock.unlock();
    }
}

/// The entry the extended CQ is at.
///
/// # Safety
/// `current` is one of our extended CQs between a successful start_poll or
/// next_poll and end_poll.
#[inline(always)]
unsafe fn entry<'a>(current: *mut ibv_cq_ex) -> &'a ib_uverbs_wc {
    // SAFETY: the caller's promise: wc points at a finished entry.
    unsafe { &*RxeCq::of(current).wc.get() }
}

macro_rules! reader {
    ($name:ident -> $ty:ty, |$w:ident| $e:expr) => {
        op! {
            fn $name(current: *mut ibv_cq_ex) -> $ty, on_panic = 0 as $ty;
            {
                // SAFETY: called by the application between start_poll and
                // end_poll, as the interface requires.
                let $w = unsafe { entry(current) };
                $e
            }
        }
    };
}

reader!(cq_read_opcode -> ibv_wc_opcode, |w| w.opcode);
reader!(cq_read_vendor_err -> u32, |w| w.vendor_err);
reader!(cq_read_byte_len -> u32, |w| w.byte_len);
// SAFETY: both members of the union are one u32.
reader!(cq_read_imm_data -> u32, |w| unsafe { w.ex.imm_data });
reader!(cq_read_qp_num -> u32, |w| w.qp_num);
reader!(cq_read_src_qp -> u32, |w| w.src_qp);
reader!(cq_read_wc_flags -> core::ffi::c_uint, |w| w.wc_flags);
reader!(cq_read_slid -> u32, |w| w.slid as u32);
reader!(cq_read_sl -> u8, |w| w.sl);
reader!(cq_read_dlid_path_bits -> u8, |w| w.dlid_path_bits);
