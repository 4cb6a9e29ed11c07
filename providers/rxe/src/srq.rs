//! Receive queues (a QP's own, or a shared one): user space produces
//! receive WQEs, the kernel consumes them. Shared receive queues themselves
//! (create, resize, query, destroy) are here too.

use core::cell::{Cell, UnsafeCell};
use core::ffi::c_int;
use core::mem::offset_of;
use core::ptr;
use core::sync::atomic::Ordering;

use rdma_abi::driver::pabi34_v44::verbs_srq;
use rdma_abi::kern::{ibv_create_srq, ibv_create_xsrq, ibv_query_srq};
use rdma_abi::rxe::{mminfo, rxe_recv_wqe, rxe_sge};
use rdma_abi::rxe_abi::{urxe_create_srq_ex_resp, urxe_create_srq_resp, urxe_modify_srq};
use rdma_abi::verbs::*;
use rdma_provider::mem::Tag;
use rdma_provider::spin::SpinLock;
use rdma_provider::{mem, op, set_errno, verbs};
use rdma_util::mem::zeroed;

use crate::queue::{next, room, Queue};
use crate::wr::{sge_list, write_recv_wqe, RECV_WQE_DATA};

/// A work queue user space produces into, with its lock and limits.
#[repr(C)]
pub(crate) struct Wq {
    pub(crate) q: Cell<Queue>,
    pub(crate) lock: SpinLock,
    /// SGEs a request may carry: the QP's or SRQ's capability, never more
    /// than an element holds.
    pub(crate) max_sge: Cell<u32>,
    /// Inline bytes a send may carry, likewise.
    pub(crate) max_inline: Cell<u32>,
}

/// The most SGEs an element of `elem` bytes holds after `fixed` bytes.
#[inline]
pub(crate) fn sge_room(elem: usize, fixed: usize) -> u32 {
    (elem.saturating_sub(fixed) / size_of::<rxe_sge>()).min(u32::MAX as usize) as u32
}

impl Wq {
    /// Installs a receive queue mapped for `max_sge` SGEs.
    pub(crate) fn set_recv(&self, q: Queue, max_sge: u32) {
        self.max_sge
            .set(max_sge.min(sge_room(q.elem_size(), RECV_WQE_DATA)));
        self.q.set(q);
    }
}

/// Posts a chain of receive requests: (0 or errno, the request that
/// failed). Stops at a full queue (ENOMEM), a request with more SGEs than
/// the queue takes or a NULL SGE list (EINVAL): so a chain that loops ends
/// when the queue is full, as upstream's does.
///
/// # Safety
/// `wr` is NULL or a chain of readable requests whose SGE lists hold
/// `num_sge` entries (the application's contract).
#[inline(always)]
pub(crate) unsafe fn post_recv_chain(
    wq: &Wq,
    mut wr: *mut ibv_recv_wr,
) -> (c_int, *mut ibv_recv_wr) {
    wq.lock.lock();
    let q = wq.q.get();
    if !q.is_mapped() {
        wq.lock.unlock();
        return (libc::EINVAL, wr);
    }
    let max_sge = wq.max_sge.get();
    let start = q.producer().load(Ordering::Relaxed);
    let mut prod = start;
    let mut cons = q.consumer().load(Ordering::Acquire);
    let mut rc = 0;
    while !wr.is_null() {
        if room(prod, cons, q.mask) == 0 {
            cons = q.consumer().load(Ordering::Acquire);
            if room(prod, cons, q.mask) == 0 {
                rc = libc::ENOMEM;
                break;
            }
        }
        // SAFETY: a request of the chain (the caller's contract).
        let w = unsafe { &*wr };
        // SAFETY: the count is checked before the list is read.
        let sges = match unsafe { sge_list(w.sg_list, w.num_sge, max_sge) } {
            Ok(s) => s,
            Err(e) => {
                rc = e;
                break;
            }
        };
        // SAFETY: a free element of our queue, holding max_sge SGEs.
        unsafe { write_recv_wqe(q.slot(prod).cast::<rxe_recv_wqe>(), w.wr_id, sges) };
        prod = next(prod, q.mask);
        wr = w.next;
    }
    if prod != start {
        q.producer().store(prod, Ordering::Release);
    }
    wq.lock.unlock();
    (rc, wr)
}

/// Marks a live SRQ.
const SRQ_MAGIC: u64 = 0x7278_655f_7372_7121;

#[repr(C)]
pub(crate) struct RxeSrq {
    /// Whether the SRQ is live (see `rdma_provider::mem::Tag`).
    tag: Tag,
    /// The library's part: an `ibv_srq` pointer points here.
    vsrq: UnsafeCell<verbs_srq>,
    rq: Wq,
}

impl RxeSrq {
    /// # Safety
    /// `srq` is an SRQ this provider created.
    #[inline(always)]
    unsafe fn of<'a>(srq: *mut ibv_srq) -> &'a RxeSrq {
        // SAFETY: the caller's promise: srq is the vsrq member of an RxeSrq.
        unsafe { &*srq.byte_sub(offset_of!(RxeSrq, vsrq)).cast::<RxeSrq>() }
    }

    #[inline(always)]
    fn ibv(&self) -> *mut ibv_srq {
        self.vsrq.get().cast()
    }
}

/// Maps a new SRQ's queue, or undoes the SRQ (errno set).
///
/// # Safety
/// `srq` is our new SRQ, created in the kernel.
unsafe fn map_srq(
    context: *mut ibv_context,
    srq: *mut RxeSrq,
    mi: &mminfo,
    max_sge: u32,
) -> *mut ibv_srq {
    // SAFETY: a live context; our new SRQ.
    unsafe {
        match Queue::map((*context).cmd_fd, mi, RECV_WQE_DATA) {
            Ok(q) => {
                let s = &*srq;
                s.rq.set_recv(q, max_sge);
                s.tag.set(SRQ_MAGIC);
                s.ibv()
            }
            Err(e) => {
                (verbs().cmd_destroy_srq)((*srq).ibv());
                mem::free(srq);
                set_errno(e);
                ptr::null_mut()
            }
        }
    }
}

op! {
    pub(crate) fn rxe_create_srq(pd: *mut ibv_pd, attr: *mut ibv_srq_init_attr) -> *mut ibv_srq, on_panic = ptr::null_mut();
    {
        let srq = mem::calloc::<RxeSrq>();
        if srq.is_null() {
            return ptr::null_mut();
        }
        let mut cmd = ibv_create_srq::default();
        let mut resp: urxe_create_srq_resp = zeroed();
        // SAFETY: our new SRQ and buffers; the application's attributes.
        let ret = unsafe {
            (verbs().cmd_create_srq)(pd, (*srq).ibv(), attr, &mut cmd, size_of::<ibv_create_srq>(), &mut resp.ibv_resp,
                                     size_of::<urxe_create_srq_resp>())
        };
        if ret != 0 {
            // SAFETY: ours, never handed out.
            unsafe { mem::free(srq) };
            return ptr::null_mut();
        }
        // SAFETY: as above; the command wrote back the SRQ's limits.
        unsafe { map_srq((*pd).context, srq, &resp.drv_payload.mi, (*attr).attr.max_sge) }
    }
}

op! {
    pub(crate) fn rxe_create_srq_ex(context: *mut ibv_context, attr: *mut ibv_srq_init_attr_ex) -> *mut ibv_srq,
        on_panic = ptr::null_mut();
    {
        let srq = mem::calloc::<RxeSrq>();
        if srq.is_null() {
            return ptr::null_mut();
        }
        let mut cmd = ibv_create_xsrq::default();
        let mut resp: urxe_create_srq_ex_resp = zeroed();
        // SAFETY: our new SRQ and buffers; the application's attributes.
        let ret = unsafe {
            (verbs().cmd_create_srq_ex)(context, (*srq).vsrq.get(), attr, &mut cmd, size_of::<ibv_create_xsrq>(),
                                        &mut resp.ibv_resp, size_of::<urxe_create_srq_ex_resp>())
        };
        if ret != 0 {
            // SAFETY: ours, never handed out.
            unsafe { mem::free(srq) };
            return ptr::null_mut();
        }
        // SAFETY: as above.
        unsafe { map_srq(context, srq, &resp.drv_payload.mi, (*attr).attr.max_sge) }
    }
}

op! {
    pub(crate) fn rxe_modify_srq(ibsrq: *mut ibv_srq, attr: *mut ibv_srq_attr, attr_mask: c_int) -> c_int,
        on_panic = libc::EIO;
    {
        // SAFETY: one of our SRQs.
        let srq = unsafe { RxeSrq::of(ibsrq) };
        if !srq.tag.is(SRQ_MAGIC) {
            return libc::EINVAL;
        }
        let resize = attr_mask as u32 & IBV_SRQ_MAX_WR != 0;
        if resize {
            srq.rq.lock.lock();
        }
        let mut mi: mminfo = zeroed();
        let mut cmd: urxe_modify_srq = zeroed();
        cmd.drv_payload.mmap_info_addr = &mut mi as *mut mminfo as u64;
        // SAFETY: our SRQ; the kernel writes the new queue's place into mi.
        let mut rc = unsafe {
            (verbs().cmd_modify_srq)(ibsrq, attr, attr_mask, &mut cmd.ibv_cmd, size_of::<urxe_modify_srq>())
        };
        if rc == 0 && resize {
            let mut old = srq.rq.q.get();
            // SAFETY: replaced by the kernel; we hold the queue's lock.
            unsafe { old.unmap() };
            // SAFETY: a live SRQ's context.
            let fd = unsafe { (*(*ibsrq).context).cmd_fd };
            match Queue::map(fd, &mi, RECV_WQE_DATA) {
                Ok(q) => srq.rq.set_recv(q, srq.rq.max_sge.get()),
                Err(e) => {
                    // Posting fails from now on (upstream's would crash).
                    srq.rq.q.set(Queue::NONE);
                    rc = e;
                }
            }
        }
        if resize {
            srq.rq.lock.unlock();
        }
        rc
    }
}

op! {
    pub(crate) fn rxe_query_srq(srq: *mut ibv_srq, attr: *mut ibv_srq_attr) -> c_int, on_panic = libc::EIO;
    {
        let mut cmd = ibv_query_srq::default();
        // SAFETY: passed on.
        unsafe { (verbs().cmd_query_srq)(srq, attr, &mut cmd, size_of::<ibv_query_srq>()) }
    }
}

op! {
    pub(crate) fn rxe_destroy_srq(ibsrq: *mut ibv_srq) -> c_int, on_panic = libc::EIO;
    {
        // SAFETY: passed on.
        let ret = unsafe { (verbs().cmd_destroy_srq)(ibsrq) };
        if ret == 0 {
            // SAFETY: one of our SRQs, gone from the kernel.
            unsafe {
                let srq = RxeSrq::of(ibsrq);
                srq.tag.clear();
                let mut q = srq.rq.q.get();
                q.unmap();
                mem::free(srq as *const RxeSrq as *mut RxeSrq);
            }
        }
        ret
    }
}

op! {
    pub(crate) fn rxe_post_srq_recv(ibsrq: *mut ibv_srq, recv_wr: *mut ibv_recv_wr, bad_recv_wr: *mut *mut ibv_recv_wr)
        -> c_int, on_panic = libc::EIO;
    {
        // SAFETY: one of our SRQs (magic checked next).
        let srq = unsafe { RxeSrq::of(ibsrq) };
        if !srq.tag.is(SRQ_MAGIC) {
            return libc::EINVAL;
        }
        // SAFETY: the application's chain.
        let (rc, bad) = unsafe { post_recv_chain(&srq.rq, recv_wr) };
        if rc != 0 && !bad_recv_wr.is_null() {
            // SAFETY: checked non-NULL; the application's pointer.
            unsafe { *bad_recv_wr = bad };
        }
        rc
    }
}
