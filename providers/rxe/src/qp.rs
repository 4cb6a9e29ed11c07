//! Queue pairs: creation (the kernel's QP, then its send and receive queues
//! mapped), the control ops, and the data path: `post_send` /
//! `post_recv`, and the `ibv_wr_*` builder interface, which writes WQEs in
//! place and publishes them at `wr_complete`.

use core::cell::{Cell, UnsafeCell};
use core::ffi::{c_int, c_void};
use core::mem::offset_of;
use core::ptr;
use core::sync::atomic::{AtomicUsize, Ordering};

use rdma_abi::driver::{pabi34_v44, pabi65};
use rdma_abi::kern::*;
use rdma_abi::rxe::*;
use rdma_abi::rxe_abi::{rxe_send_wr_wr_flush, urxe_create_qp_ex_resp, urxe_create_qp_resp};
use rdma_abi::verbs::*;
use rdma_abi::verbs_v65::{ibv_qp_ex as ibv_qp_ex65, IBV_QP_EX_WITH_FLUSH, IBV_WR_FLUSH};
use rdma_provider::doorbell::Doorbell;
use rdma_provider::mem::Tag;
use rdma_provider::{mem, op, set_errno, verbs, Pabi};
use rdma_util::mem::zeroed;

use crate::ah::RxeAh;
use crate::queue::{next, room, Queue};
use crate::srq::{post_recv_chain, sge_room, Wq};
use crate::wr::{
    check_send, sge_list, total_length, write_send_wqe, SendLimits, UdDest, SEND_WQE_DATA,
};

/// Room for either ABI's `verbs_qp` (65's embeds a larger `ibv_qp_ex`).
#[repr(C)]
union VqpRoom {
    v34: pabi34_v44::verbs_qp,
    v65: pabi65::verbs_qp,
}

/// Marks a live QP.
const QP_MAGIC: u64 = 0x7278_655f_7170_2121;

#[repr(C)]
pub(crate) struct RxeQp {
    /// Whether the QP is live (see `rdma_provider::mem::Tag`).
    tag: Tag,
    /// The library's part: `ibv_qp` and `ibv_qp_ex` pointers point here,
    /// under either ABI.
    vqp: UnsafeCell<VqpRoom>,
    sq: Wq,
    rq: Wq,
    qp_type: Cell<ibv_qp_type>,
    cmd_fd: Cell<c_int>,
    doorbell: Cell<Doorbell>,
    /// Where the kernel writes the doorbell's (empty) answer.
    db_resp: UnsafeCell<ib_uverbs_post_send_resp>,
    /// The builder interface's state, under the send queue's lock: the
    /// element the next builder writes, the batch's error, how many
    /// elements the batch has built, and whether a batch is open.
    cur: Cell<u32>,
    err: Cell<c_int>,
    built: Cell<u32>,
    in_wr: Cell<bool>,
    /// The thread whose batch is open (0: none), read without the lock so
    /// that a second `wr_start` from that thread fails the batch instead of
    /// spinning forever on the lock it already holds.
    wr_owner: AtomicUsize,
}

impl RxeQp {
    /// # Safety
    /// `qp` is a QP (or `ibv_qp_ex`) this provider created.
    #[inline(always)]
    unsafe fn of<'a, T>(qp: *mut T) -> &'a RxeQp {
        // SAFETY: the caller's promise: qp is the vqp member of an RxeQp.
        unsafe { &*qp.byte_sub(offset_of!(RxeQp, vqp)).cast::<RxeQp>() }
    }

    #[inline(always)]
    fn live(&self) -> bool {
        self.tag.is(QP_MAGIC)
    }

    #[inline(always)]
    fn ibv_qp(&self) -> *mut ibv_qp {
        self.vqp.get().cast()
    }

    /// The builder fields common to both ABIs' `ibv_qp_ex`.
    #[inline(always)]
    fn qp_ex(&self) -> *mut ibv_qp_ex {
        self.vqp.get().cast()
    }

    #[inline(always)]
    fn ring(&self) -> c_int {
        // SAFETY: set at creation, before the QP was handed out; read only.
        unsafe { (*self.doorbell.as_ptr()).ring(self.cmd_fd.get()) }
    }

    #[inline(always)]
    fn limits(&self) -> SendLimits {
        SendLimits {
            max_sge: self.sq.max_sge.get(),
            max_inline: self.sq.max_inline.get(),
            qp_type: self.qp_type.get(),
        }
    }
}

// ---------------------------------------------------------------------------
// Creation and the control ops
// ---------------------------------------------------------------------------

/// Maps the QP's queues and readies its data path; on failure returns the
/// errno, with nothing mapped.
///
/// # Safety
/// `qp` is our new QP, created in the kernel; `attr` holds the
/// capabilities the kernel granted.
unsafe fn map_queue_pair(
    qp: &RxeQp,
    cmd_fd: c_int,
    attr: &ibv_qp_init_attr,
    resp: &rxe_create_qp_resp,
) -> Result<(), c_int> {
    let rq = if attr.srq.is_null() {
        Some(Queue::map(cmd_fd, &resp.rq_mi, crate::wr::RECV_WQE_DATA)?)
    } else {
        None
    };
    let sq = match Queue::map(cmd_fd, &resp.sq_mi, SEND_WQE_DATA) {
        Ok(q) => q,
        Err(e) => {
            if let Some(mut q) = rq {
                // SAFETY: just mapped, unused.
                unsafe { q.unmap() };
            }
            return Err(e);
        }
    };
    if let Some(q) = rq {
        qp.rq.set_recv(q, attr.cap.max_recv_sge);
    }
    let room = sq.elem_size() - SEND_WQE_DATA;
    qp.sq.max_sge.set(
        attr.cap
            .max_send_sge
            .min(sge_room(sq.elem_size(), SEND_WQE_DATA)),
    );
    qp.sq.max_inline.set(
        attr.cap
            .max_inline_data
            .min(room.min(u32::MAX as usize) as u32),
    );
    qp.sq.q.set(sq);
    qp.qp_type.set(attr.qp_type);
    qp.cmd_fd.set(cmd_fd);
    // SAFETY: the library filled in the QP's handle.
    let handle = unsafe { (*qp.ibv_qp()).handle };
    qp.doorbell.set(Doorbell::new(handle, qp.db_resp.get()));
    qp.tag.set(QP_MAGIC);
    Ok(())
}

op! {
    pub(crate) fn rxe_create_qp(pd: *mut ibv_pd, attr: *mut ibv_qp_init_attr) -> *mut ibv_qp, on_panic = ptr::null_mut();
    {
        let qp = mem::calloc::<RxeQp>();
        if qp.is_null() {
            return ptr::null_mut();
        }
        let mut cmd = ibv_create_qp::default();
        let mut resp: urxe_create_qp_resp = zeroed();
        let v = verbs();
        // SAFETY: our new QP and buffers; the application's attributes.
        let ret = unsafe {
            (v.cmd_create_qp)(pd, (*qp).ibv_qp(), attr, &mut cmd, size_of::<ibv_create_qp>(), &mut resp.ibv_resp,
                              size_of::<urxe_create_qp_resp>())
        };
        if ret != 0 {
            // SAFETY: ours, never handed out.
            unsafe { mem::free(qp) };
            return ptr::null_mut();
        }
        // SAFETY: our new QP, the attributes the command updated.
        unsafe {
            match map_queue_pair(&*qp, (*(*pd).context).cmd_fd, &*attr, &resp.drv_payload) {
                Ok(()) => (*qp).ibv_qp(),
                Err(e) => {
                    (v.cmd_destroy_qp)((*qp).ibv_qp());
                    mem::free(qp);
                    set_errno(e);
                    ptr::null_mut()
                }
            }
        }
    }
}

const QP_CREATE_FLAGS_SUP: u32 = 0;
const QP_COMP_MASK_SUP: u32 =
    IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
const RC_SEND_OPS: u64 = (IBV_QP_EX_WITH_RDMA_WRITE
    | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM
    | IBV_QP_EX_WITH_SEND
    | IBV_QP_EX_WITH_SEND_WITH_IMM
    | IBV_QP_EX_WITH_RDMA_READ
    | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP
    | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD
    | IBV_QP_EX_WITH_LOCAL_INV
    | IBV_QP_EX_WITH_BIND_MW
    | IBV_QP_EX_WITH_SEND_WITH_INV
    | IBV_QP_EX_WITH_ATOMIC_WRITE) as u64;
const UC_SEND_OPS: u64 = (IBV_QP_EX_WITH_RDMA_WRITE
    | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM
    | IBV_QP_EX_WITH_SEND
    | IBV_QP_EX_WITH_SEND_WITH_IMM
    | IBV_QP_EX_WITH_BIND_MW
    | IBV_QP_EX_WITH_SEND_WITH_INV) as u64;
const UD_SEND_OPS: u64 = (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM) as u64;

/// The send ops an RC QP may ask for: rdma-core 65's provider adds FLUSH
/// to 44's.
fn rc_send_ops(pabi: Pabi) -> u64 {
    match pabi {
        Pabi::V34 => RC_SEND_OPS,
        Pabi::V65 => RC_SEND_OPS | IBV_QP_EX_WITH_FLUSH as u64,
    }
}

/// Upstream's checks of `ibv_create_qp_ex` attributes: EOPNOTSUPP for
/// anything rxe does not do.
pub(crate) fn check_qp_init_attr(attr: &ibv_qp_init_attr_ex, pabi: Pabi) -> Result<(), c_int> {
    if attr.comp_mask & !QP_COMP_MASK_SUP != 0 {
        return Err(libc::EOPNOTSUPP);
    }
    if attr.comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS != 0
        && attr.create_flags & !QP_CREATE_FLAGS_SUP != 0
    {
        return Err(libc::EOPNOTSUPP);
    }
    if attr.comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS != 0 {
        let sup = match attr.qp_type {
            IBV_QPT_RC => rc_send_ops(pabi),
            IBV_QPT_UC => UC_SEND_OPS,
            IBV_QPT_UD => UD_SEND_OPS,
            _ => return Err(libc::EOPNOTSUPP),
        };
        if attr.send_ops_flags & !sup != 0 {
            return Err(libc::EOPNOTSUPP);
        }
    }
    Ok(())
}

/// Installs the builders the application asked for, and the setters and
/// batch functions every extended QP gets.
fn set_send_ops(qp: &RxeQp, flags: u64, pabi: Pabi) {
    // Checked against the supported bits, all below bit 32.
    let flags = flags as u32;
    // SAFETY: our new QP's builder fields, not yet handed out.
    let x = unsafe { &mut *qp.qp_ex() };
    if flags & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP != 0 {
        x.wr_atomic_cmp_swp = Some(wr_atomic_cmp_swp);
    }
    if flags & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD != 0 {
        x.wr_atomic_fetch_add = Some(wr_atomic_fetch_add);
    }
    if flags & IBV_QP_EX_WITH_BIND_MW != 0 {
        x.wr_bind_mw = Some(wr_bind_mw);
    }
    if flags & IBV_QP_EX_WITH_LOCAL_INV != 0 {
        x.wr_local_inv = Some(wr_local_inv);
    }
    if flags & IBV_QP_EX_WITH_ATOMIC_WRITE != 0 {
        x.wr_atomic_write = Some(wr_atomic_write);
    }
    if flags & IBV_QP_EX_WITH_RDMA_READ != 0 {
        x.wr_rdma_read = Some(wr_rdma_read);
    }
    if flags & IBV_QP_EX_WITH_RDMA_WRITE != 0 {
        x.wr_rdma_write = Some(wr_rdma_write);
    }
    if flags & IBV_QP_EX_WITH_FLUSH != 0 && pabi == Pabi::V65 {
        // SAFETY: under 65 the QP holds 65's larger ibv_qp_ex.
        unsafe { (*(qp.vqp.get() as *mut ibv_qp_ex65)).wr_flush = Some(wr_flush) };
    }
    if flags & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM != 0 {
        x.wr_rdma_write_imm = Some(wr_rdma_write_imm);
    }
    if flags & IBV_QP_EX_WITH_SEND != 0 {
        x.wr_send = Some(wr_send);
    }
    if flags & IBV_QP_EX_WITH_SEND_WITH_IMM != 0 {
        x.wr_send_imm = Some(wr_send_imm);
    }
    if flags & IBV_QP_EX_WITH_SEND_WITH_INV != 0 {
        x.wr_send_inv = Some(wr_send_inv);
    }
    x.wr_set_ud_addr = Some(wr_set_ud_addr);
    x.wr_set_inline_data = Some(wr_set_inline_data);
    x.wr_set_inline_data_list = Some(wr_set_inline_data_list);
    x.wr_set_sge = Some(wr_set_sge);
    x.wr_set_sge_list = Some(wr_set_sge_list);
    x.wr_start = Some(wr_start);
    x.wr_complete = Some(wr_complete);
    x.wr_abort = Some(wr_abort);
}

op! {
    pub(crate) fn rxe_create_qp_ex(context: *mut ibv_context, attr: *mut ibv_qp_init_attr_ex) -> *mut ibv_qp,
        on_panic = ptr::null_mut();
    {
        let v = verbs();
        // SAFETY: the application's attributes.
        let a = unsafe { &*attr };
        if let Err(e) = check_qp_init_attr(a, v.pabi) {
            set_errno(e);
            return ptr::null_mut();
        }
        let qp = mem::calloc::<RxeQp>();
        if qp.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: our new QP.
        let r = unsafe { &*qp };
        if a.comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS != 0 {
            set_send_ops(r, a.send_ops_flags, v.pabi);
        }
        let mut cmd = ibv_create_qp_ex::default();
        let mut resp: urxe_create_qp_ex_resp = zeroed();
        // SAFETY: our QP as the ABI's verbs_qp (cast), our buffers.
        let ret = unsafe {
            v.cmd_create_qp_ex2(context, (*qp).vqp.get().cast(), attr, &mut cmd, size_of::<ibv_create_qp_ex>(), &mut resp.ibv_resp,
                                size_of::<urxe_create_qp_ex_resp>())
        };
        if ret != 0 {
            // SAFETY: ours, never handed out.
            unsafe { mem::free(qp) };
            return ptr::null_mut();
        }
        // SAFETY: our QP's verbs_qp, whose comp_mask sits where the ABI
        // puts it.
        unsafe {
            match v.pabi {
                Pabi::V34 => (*r.vqp.get()).v34.comp_mask |= pabi34_v44::VERBS_QP_EX,
                Pabi::V65 => (*r.vqp.get()).v65.comp_mask |= pabi34_v44::VERBS_QP_EX,
            }
        }
        // SAFETY: our QP; ibv_qp_init_attr is the head of the _ex form.
        unsafe {
            match map_queue_pair(r, (*context).cmd_fd, &*(attr as *const ibv_qp_init_attr), &resp.drv_payload) {
                Ok(()) => (*qp).ibv_qp(),
                Err(e) => {
                    (v.cmd_destroy_qp)((*qp).ibv_qp());
                    mem::free(qp);
                    set_errno(e);
                    ptr::null_mut()
                }
            }
        }
    }
}

op! {
    pub(crate) fn rxe_query_qp(qp: *mut ibv_qp, attr: *mut ibv_qp_attr, attr_mask: c_int,
                               init_attr: *mut ibv_qp_init_attr) -> c_int, on_panic = libc::EIO;
    {
        let mut cmd = ibv_query_qp::default();
        // SAFETY: passed on.
        unsafe { (verbs().cmd_query_qp)(qp, attr, attr_mask, init_attr, &mut cmd, size_of::<ibv_query_qp>()) }
    }
}

op! {
    pub(crate) fn rxe_modify_qp(qp: *mut ibv_qp, attr: *mut ibv_qp_attr, attr_mask: c_int) -> c_int, on_panic = libc::EIO;
    {
        let mut cmd = ibv_modify_qp::default();
        // SAFETY: passed on.
        unsafe { (verbs().cmd_modify_qp)(qp, attr, attr_mask, &mut cmd, size_of::<ibv_modify_qp>()) }
    }
}

op! {
    pub(crate) fn rxe_destroy_qp(ibqp: *mut ibv_qp) -> c_int, on_panic = libc::EIO;
    {
        // SAFETY: passed on.
        let ret = unsafe { (verbs().cmd_destroy_qp)(ibqp) };
        if ret == 0 {
            // SAFETY: one of our QPs, gone from the kernel.
            unsafe {
                let qp = RxeQp::of(ibqp);
                qp.tag.clear();
                let (mut r, mut s) = (qp.rq.q.get(), qp.sq.q.get());
                r.unmap();
                s.unmap();
                mem::free(qp as *const RxeQp as *mut RxeQp);
            }
        }
        ret
    }
}

// ---------------------------------------------------------------------------
// post_send / post_recv
// ---------------------------------------------------------------------------

/// Checks one send request and writes its element at `slot`.
///
/// # Safety
/// `slot` is a free element of the QP's send queue; `w` is the
/// application's readable request.
#[inline(always)]
unsafe fn post_one_send(slot: *mut u8, w: &ibv_send_wr, lim: &SendLimits) -> Result<(), c_int> {
    // SAFETY: the count is checked before the list is read.
    let sges = unsafe { sge_list(w.sg_list, w.num_sge, lim.max_sge) }?;
    let length = total_length(sges);
    check_send(w, sges.len(), length, lim)?;
    let ud: Option<UdDest> = if lim.qp_type == IBV_QPT_UD {
        if w.opcode != IBV_WR_SEND && w.opcode != IBV_WR_SEND_WITH_IMM {
            return Err(libc::EINVAL);
        }
        // SAFETY: a UD send's member; the AH is checked before use.
        let ah = unsafe { RxeAh::from_ibv(w.wr.ud.ah) }.ok_or(libc::EINVAL)?;
        Some((ah.ah_num, &ah.av))
    } else {
        None
    };
    let bind = if w.opcode == IBV_WR_BIND_MW {
        // SAFETY: a bind request's member.
        let b = unsafe { &w.op.bind_mw };
        if b.mw.is_null() {
            return Err(libc::EINVAL);
        }
        let mr_lkey = if b.bind_info.mr.is_null() {
            // Unbinding (length 0) names no MR.
            if b.bind_info.length != 0 {
                return Err(libc::EINVAL);
            }
            0
        } else {
            // SAFETY: the application's MR.
            unsafe { (*b.bind_info.mr).lkey }
        };
        // SAFETY: the application's MW.
        Some((mr_lkey, unsafe { (*b.mw).rkey }))
    } else {
        None
    };
    // SAFETY: the caller's promise; the request was checked against the
    // element's limits.
    unsafe { write_send_wqe(slot.cast::<rxe_send_wqe>(), w, sges, length, ud, bind) };
    Ok(())
}

/// Posts a chain of send requests under the send queue's lock: 0 or the
/// errno of the request stored in `*bad_wr`. A chain that loops ends when
/// the queue is full (ENOMEM), as upstream's does.
///
/// # Safety
/// As `ibv_post_send`'s arguments; `bad_wr` writable.
#[inline(always)]
unsafe fn post_send_chain(
    qp: &RxeQp,
    mut wr: *mut ibv_send_wr,
    bad_wr: *mut *mut ibv_send_wr,
) -> c_int {
    let sq = &qp.sq;
    sq.lock.lock();
    let q = sq.q.get();
    let lim = qp.limits();
    let start = q.producer().load(Ordering::Relaxed);
    let mut prod = start;
    let mut cons = q.consumer().load(Ordering::Acquire);
    let mut rc = 0;
    while !wr.is_null() {
        // SAFETY: a request of the application's chain.
        let w = unsafe { &*wr };
        if room(prod, cons, q.mask) == 0 {
            cons = q.consumer().load(Ordering::Acquire);
        }
        // Upstream checks the request first, the room after.
        let r = if room(prod, cons, q.mask) == 0 {
            precheck(w, &lim).and(Err(libc::ENOMEM))
        } else {
            // SAFETY: a free element of our queue.
            unsafe { post_one_send(q.slot(prod), w, &lim) }
        };
        if let Err(e) = r {
            if e == libc::EINVAL {
                // SAFETY: a live QP's context.
                unsafe {
                    rdma_provider::log::verbs_err(
                        (*qp.ibv_qp()).context,
                        c"post_send",
                        c"validate send failed",
                    )
                };
            }
            rc = e;
            // SAFETY: checked writable by the caller.
            unsafe { *bad_wr = wr };
            break;
        }
        prod = next(prod, q.mask);
        wr = w.next;
    }
    if prod != start {
        q.producer().store(prod, Ordering::Release);
    }
    sq.lock.unlock();
    rc
}

/// The request checks alone, for a full queue: a bad request is still
/// EINVAL there, as upstream checks before it looks for room.
#[inline(never)]
fn precheck(w: &ibv_send_wr, lim: &SendLimits) -> Result<(), c_int> {
    // SAFETY: the count is checked before the list is read.
    let sges = unsafe { sge_list(w.sg_list, w.num_sge, lim.max_sge) }?;
    check_send(w, sges.len(), total_length(sges), lim)
}

op! {
    pub(crate) fn rxe_post_send(ibqp: *mut ibv_qp, wr_list: *mut ibv_send_wr, bad_wr: *mut *mut ibv_send_wr) -> c_int,
        on_panic = libc::EIO;
    {
        if bad_wr.is_null() {
            return libc::EINVAL;
        }
        // SAFETY: checked non-NULL.
        unsafe { *bad_wr = ptr::null_mut() };
        // SAFETY: one of our QPs (magic checked next).
        let qp = unsafe { RxeQp::of(ibqp) };
        if wr_list.is_null() || !qp.live() {
            return libc::EINVAL;
        }
        // SAFETY: the application's chain; bad_wr writable.
        let rc = unsafe { post_send_chain(qp, wr_list, bad_wr) };
        let err = qp.ring();
        if err != 0 { err } else { rc }
    }
}

op! {
    pub(crate) fn rxe_post_recv(ibqp: *mut ibv_qp, recv_wr: *mut ibv_recv_wr, bad_wr: *mut *mut ibv_recv_wr) -> c_int,
        on_panic = libc::EIO;
    {
        if bad_wr.is_null() {
            return libc::EINVAL;
        }
        // SAFETY: checked non-NULL.
        unsafe { *bad_wr = ptr::null_mut() };
        // SAFETY: one of our QPs (magic checked next).
        let qp = unsafe { RxeQp::of(ibqp) };
        if recv_wr.is_null() || !qp.live() || !qp.rq.q.get().is_mapped() {
            return libc::EINVAL;
        }
        // A QP in RESET takes no receives (IBA C10-97.2.1).
        // SAFETY: the library keeps the QP's state.
        if unsafe { (*ibqp).state } == IBV_QPS_RESET {
            return libc::EINVAL;
        }
        // SAFETY: the application's chain.
        let (rc, bad) = unsafe { post_recv_chain(&qp.rq, recv_wr) };
        if rc != 0 {
            // SAFETY: checked non-NULL.
            unsafe { *bad_wr = bad };
        }
        rc
    }
}

/// `ibv_inc_rkey`: the next key of a type 1 memory window (the low byte
/// counts, the rest stays).
pub(crate) const fn inc_rkey(rkey: u32) -> u32 {
    (rkey & !0xff) | (rkey.wrapping_add(1) & 0xff)
}

op! {
    pub(crate) fn rxe_bind_mw(ibqp: *mut ibv_qp, ibmw: *mut ibv_mw, mw_bind: *mut ibv_mw_bind) -> c_int,
        on_panic = libc::EIO;
    {
        if ibmw.is_null() || mw_bind.is_null() {
            set_errno(libc::EINVAL);
            return libc::EINVAL;
        }
        // SAFETY: the application's bind request and MW.
        let (b, old) = unsafe { (&*mw_bind, (*ibmw).rkey) };
        if b.bind_info.mw_access_flags & IBV_ACCESS_ZERO_BASED != 0 {
            set_errno(libc::EINVAL);
            return libc::EINVAL;
        }
        // SAFETY: a C struct of integers, pointers and unions of them.
        let mut wr: ibv_send_wr = unsafe { rdma_util::mem::zeroed_unchecked() };
        wr.opcode = IBV_WR_BIND_MW;
        wr.wr_id = b.wr_id;
        wr.send_flags = b.send_flags;
        wr.op.bind_mw = ibv_send_wr_op_bind_mw { mw: ibmw, rkey: inc_rkey(old), bind_info: b.bind_info };
        let mut bad = ptr::null_mut();
        // SAFETY: our own request; the library's QP.
        let ret = unsafe { rxe_post_send(ibqp, &mut wr, &mut bad) };
        if ret != 0 {
            set_errno(ret);
            return ret;
        }
        // The application undoes this if the bind completes in error.
        // SAFETY: the application's MW.
        unsafe { (*ibmw).rkey = inc_rkey(old) };
        0
    }
}

// ---------------------------------------------------------------------------
// The builder interface (ibv_wr_*)
// ---------------------------------------------------------------------------

/// The element the next builder fills, cleared, or None when the batch
/// already failed, is not open, or the queue is full (ENOSPC).
#[inline(always)]
fn begin(qp: &RxeQp) -> Option<*mut rxe_send_wqe> {
    if !qp.in_wr.get() || qp.err.get() != 0 {
        return None;
    }
    let q = qp.sq.q.get();
    let cur = qp.cur.get();
    if q.consumer().load(Ordering::Acquire) == next(cur, q.mask) {
        qp.err.set(libc::ENOSPC);
        return None;
    }
    let wqe = q.slot(cur).cast::<rxe_send_wqe>();
    // SAFETY: a free element of our send queue, under its lock (in_wr).
    unsafe {
        ptr::write_bytes(wqe, 0, 1);
        let x = qp.qp_ex();
        (*wqe).wr.wr_id = (*x).wr_id;
        (*wqe).wr.send_flags = (*x).wr_flags;
    }
    Some(wqe)
}

/// The element is built: move on.
#[inline(always)]
fn done(qp: &RxeQp) {
    let q = qp.sq.q.get();
    qp.cur.set(next(qp.cur.get(), q.mask));
    qp.built.set(qp.built.get() + 1);
}

/// The element the last builder filled, for the setters; None when the
/// batch failed or is not open, or no builder ran yet (EINVAL: upstream
/// would write into an element already handed to the kernel).
#[inline(always)]
fn last(qp: &RxeQp) -> Option<*mut rxe_send_wqe> {
    if !qp.in_wr.get() || qp.err.get() != 0 {
        return None;
    }
    if qp.built.get() == 0 {
        qp.err.set(libc::EINVAL);
        return None;
    }
    let q = qp.sq.q.get();
    Some(q.slot(qp.cur.get().wrapping_sub(1)).cast())
}

macro_rules! builder {
    ($name:ident($($a:ident: $t:ty),*), $qpt:ty, |$qp:ident, $w:ident| $body:block) => {
        op! {
            fn $name(ibqp: *mut $qpt $(, $a: $t)*);
            {
                // SAFETY: one of our extended QPs.
                let $qp = unsafe { RxeQp::of(ibqp) };
                let Some(wqe) = begin($qp) else { return };
                // SAFETY: the element begin() cleared for us.
                let $w = unsafe { &mut *wqe };
                $body
                done($qp);
            }
        }
    };
}

builder!(wr_atomic_cmp_swp(rkey: u32, remote_addr: u64, compare: u64, swap: u64), ibv_qp_ex, |qp, w| {
    w.wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
    w.wr.wr.atomic = rxe_send_wr_wr_atomic { remote_addr, compare_add: compare, swap, rkey, reserved: 0 };
    w.iova = remote_addr;
});

builder!(wr_atomic_fetch_add(rkey: u32, remote_addr: u64, add: u64), ibv_qp_ex, |qp, w| {
    w.wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
    w.wr.wr.atomic = rxe_send_wr_wr_atomic { remote_addr, compare_add: add, swap: 0, rkey, reserved: 0 };
    w.iova = remote_addr;
});

op! {
    fn wr_bind_mw(ibqp: *mut ibv_qp_ex, mw: *mut ibv_mw, rkey: u32, info: *const ibv_mw_bind_info);
    {
        // SAFETY: one of our extended QPs.
        let qp = unsafe { RxeQp::of(ibqp) };
        if qp.in_wr.get() && qp.err.get() == 0 && (mw.is_null() || info.is_null()) {
            qp.err.set(libc::EINVAL);
        }
        let Some(wqe) = begin(qp) else { return };
        // SAFETY: checked non-NULL; the application's bind and MW.
        let (i, mw_rkey) = unsafe { (&*info, (*mw).rkey) };
        let mr_lkey = if i.mr.is_null() {
            0
        } else {
            // SAFETY: the application's MR.
            unsafe { (*i.mr).lkey }
        };
        // SAFETY: the element begin() cleared for us.
        let w = unsafe { &mut *wqe };
        w.wr.opcode = IBV_WR_BIND_MW;
        w.wr.wr.mw = rxe_send_wr_wr_mw {
            addr: i.addr,
            length: i.length,
            mr_lkey,
            mw_rkey,
            rkey,
            access: i.mw_access_flags,
        };
        done(qp);
    }
}

builder!(wr_local_inv(invalidate_rkey: u32), ibv_qp_ex, |qp, w| {
    w.wr.opcode = IBV_WR_LOCAL_INV;
    w.wr.ex.invalidate_rkey = invalidate_rkey;
});

builder!(wr_rdma_read(rkey: u32, remote_addr: u64), ibv_qp_ex, |qp, w| {
    w.wr.opcode = IBV_WR_RDMA_READ;
    w.wr.wr.rdma = rxe_send_wr_wr_rdma { remote_addr, rkey, reserved: 0 };
    w.iova = remote_addr;
});

builder!(wr_rdma_write(rkey: u32, remote_addr: u64), ibv_qp_ex, |qp, w| {
    w.wr.opcode = IBV_WR_RDMA_WRITE;
    w.wr.wr.rdma = rxe_send_wr_wr_rdma { remote_addr, rkey, reserved: 0 };
    w.iova = remote_addr;
});

builder!(wr_flush(rkey: u32, remote_addr: u64, length: usize, type_: u8, level: u8), ibv_qp_ex65, |qp, w| {
    w.wr.opcode = IBV_WR_FLUSH;
    let f = rxe_send_wr_wr_flush { remote_addr, length: length as u32, rkey, type_, level };
    // SAFETY: the flush member sits at the start of the union, within it.
    unsafe { ptr::addr_of_mut!(w.wr.wr).cast::<rxe_send_wr_wr_flush>().write(f) };
    w.dma.length = length as u32;
    w.dma.resid = length as u32;
    w.iova = remote_addr;
});

op! {
    fn wr_atomic_write(ibqp: *mut ibv_qp_ex, rkey: u32, remote_addr: u64, atomic_wr: *const c_void);
    {
        // SAFETY: one of our extended QPs.
        let qp = unsafe { RxeQp::of(ibqp) };
        if qp.in_wr.get() && qp.err.get() == 0 && atomic_wr.is_null() {
            qp.err.set(libc::EINVAL);
        }
        let Some(wqe) = begin(qp) else { return };
        // SAFETY: the element begin() cleared for us, with room for 8 bytes
        // of data (see wr_set_sge); the application's 8 bytes.
        unsafe {
            let w = &mut *wqe;
            w.wr.opcode = IBV_WR_ATOMIC_WRITE;
            w.wr.wr.rdma = rxe_send_wr_wr_rdma { remote_addr, rkey, reserved: 0 };
            ptr::copy_nonoverlapping(atomic_wr.cast::<u8>(), ptr::addr_of_mut!(w.dma.data).cast::<u8>(), 8);
            w.dma.length = 8;
            w.dma.resid = 8;
            w.iova = remote_addr;
        }
        done(qp);
    }
}

builder!(wr_rdma_write_imm(rkey: u32, remote_addr: u64, imm_data: u32), ibv_qp_ex, |qp, w| {
    w.wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
    w.wr.wr.rdma = rxe_send_wr_wr_rdma { remote_addr, rkey, reserved: 0 };
    w.wr.ex.imm_data = imm_data;
    w.iova = remote_addr;
});

builder!(wr_send(), ibv_qp_ex, |qp, w| {
    w.wr.opcode = IBV_WR_SEND;
});

builder!(wr_send_imm(imm_data: u32), ibv_qp_ex, |qp, w| {
    w.wr.opcode = IBV_WR_SEND_WITH_IMM;
    w.wr.ex.imm_data = imm_data;
});

builder!(wr_send_inv(invalidate_rkey: u32), ibv_qp_ex, |qp, w| {
    w.wr.opcode = IBV_WR_SEND_WITH_INV;
    w.wr.ex.invalidate_rkey = invalidate_rkey;
});

op! {
    fn wr_set_ud_addr(ibqp: *mut ibv_qp_ex, ibah: *mut ibv_ah, remote_qpn: u32, remote_qkey: u32);
    {
        // SAFETY: one of our extended QPs.
        let qp = unsafe { RxeQp::of(ibqp) };
        let Some(wqe) = last(qp) else { return };
        // SAFETY: the application's AH, checked before use.
        let Some(ah) = (unsafe { RxeAh::from_ibv(ibah) }) else {
            qp.err.set(libc::EINVAL);
            return;
        };
        // SAFETY: the element the last builder filled.
        let w = unsafe { &mut *wqe };
        w.wr.wr.ud.remote_qpn = remote_qpn;
        w.wr.wr.ud.remote_qkey = remote_qkey;
        w.wr.wr.ud.ah_num = ah.ah_num;
        if ah.ah_num == 0 {
            w.wr.wr.ud.av = ah.av;
        }
    }
}

op! {
    fn wr_set_inline_data(ibqp: *mut ibv_qp_ex, addr: *mut c_void, length: usize);
    {
        // SAFETY: one of our extended QPs.
        let qp = unsafe { RxeQp::of(ibqp) };
        let Some(wqe) = last(qp) else { return };
        if length > qp.sq.max_inline.get() as usize {
            qp.err.set(libc::ENOSPC);
            return;
        }
        if addr.is_null() && length != 0 {
            qp.err.set(libc::EINVAL);
            return;
        }
        // SAFETY: the element holds max_inline bytes of data; the
        // application's buffer.
        unsafe {
            let w = &mut *wqe;
            ptr::copy_nonoverlapping(addr.cast::<u8>(), ptr::addr_of_mut!(w.dma.data).cast::<u8>(), length);
            w.dma.length = length as u32;
            w.dma.resid = length as u32;
        }
    }
}

op! {
    fn wr_set_inline_data_list(ibqp: *mut ibv_qp_ex, num_buf: usize, buf_list: *const ibv_data_buf);
    {
        // SAFETY: one of our extended QPs.
        let qp = unsafe { RxeQp::of(ibqp) };
        let Some(wqe) = last(qp) else { return };
        if buf_list.is_null() && num_buf != 0 {
            qp.err.set(libc::EINVAL);
            return;
        }
        let max = qp.sq.max_inline.get() as usize;
        // SAFETY: the element's data area.
        let data = unsafe { ptr::addr_of_mut!((*wqe).dma.data).cast::<u8>() };
        let mut total = 0usize;
        for i in 0..num_buf {
            // SAFETY: the application's list of num_buf buffers.
            let b = unsafe { &*buf_list.add(i) };
            if total.saturating_add(b.length) > max {
                qp.err.set(libc::ENOSPC);
                return;
            }
            if b.addr.is_null() && b.length != 0 {
                qp.err.set(libc::EINVAL);
                return;
            }
            // SAFETY: within the element's max_inline bytes; the
            // application's buffer.
            unsafe { ptr::copy_nonoverlapping(b.addr.cast::<u8>(), data.add(total), b.length) };
            total += b.length;
        }
        // SAFETY: the element the last builder filled.
        unsafe {
            (*wqe).dma.length = total as u32;
            (*wqe).dma.resid = total as u32;
        }
    }
}

op! {
    fn wr_set_sge(ibqp: *mut ibv_qp_ex, lkey: u32, addr: u64, length: u32);
    {
        // SAFETY: one of our extended QPs.
        let qp = unsafe { RxeQp::of(ibqp) };
        let Some(wqe) = last(qp) else { return };
        if length == 0 {
            return;
        }
        // SAFETY: an element has room for one SGE at least (it is a power
        // of two of SEND_WQE_DATA bytes or more: 48 bytes after them).
        unsafe {
            let w = &mut *wqe;
            w.dma.length = length;
            w.dma.resid = length;
            w.dma.num_sge = 1;
            ptr::addr_of_mut!(w.dma.data).cast::<rxe_sge>().write(rxe_sge { addr, length, lkey });
        }
    }
}

op! {
    fn wr_set_sge_list(ibqp: *mut ibv_qp_ex, num_sge: usize, sg_list: *const ibv_sge);
    {
        // SAFETY: one of our extended QPs.
        let qp = unsafe { RxeQp::of(ibqp) };
        let Some(wqe) = last(qp) else { return };
        if num_sge > qp.sq.max_sge.get() as usize {
            qp.err.set(libc::ENOSPC);
            return;
        }
        if sg_list.is_null() && num_sge != 0 {
            qp.err.set(libc::EINVAL);
            return;
        }
        let sges = if num_sge == 0 {
            &[][..]
        } else {
            // SAFETY: the application's list of num_sge SGEs.
            unsafe { core::slice::from_raw_parts(sg_list, num_sge) }
        };
        // SAFETY: the element holds max_sge SGEs; the two SGE types share
        // their layout.
        unsafe {
            let w = &mut *wqe;
            ptr::copy_nonoverlapping(sges.as_ptr().cast::<rxe_sge>(), ptr::addr_of_mut!(w.dma.data).cast::<rxe_sge>(), num_sge);
            let total = total_length(sges) as u32;
            w.dma.num_sge = num_sge as u32;
            w.dma.length = total;
            w.dma.resid = total;
        }
    }
}

op! {
    fn wr_start(ibqp: *mut ibv_qp_ex);
    {
        // SAFETY: one of our extended QPs.
        let qp = unsafe { RxeQp::of(ibqp) };
        if !qp.live() {
            return;
        }
        // SAFETY: pthread_self has no preconditions.
        let me = unsafe { libc::pthread_self() } as usize;
        if qp.wr_owner.load(Ordering::Relaxed) == me {
            // This thread's batch is open: a second start fails it (the
            // lock is ours already), and wr_complete reports EINVAL.
            qp.err.set(libc::EINVAL);
            return;
        }
        qp.sq.lock.lock();
        qp.wr_owner.store(me, Ordering::Relaxed);
        qp.err.set(0);
        qp.built.set(0);
        qp.cur.set(qp.sq.q.get().producer().load(Ordering::Relaxed));
        qp.in_wr.set(true);
    }
}

op! {
    fn wr_complete(ibqp: *mut ibv_qp_ex) -> c_int, on_panic = libc::EIO;
    {
        // SAFETY: one of our extended QPs.
        let qp = unsafe { RxeQp::of(ibqp) };
        if !qp.in_wr.get() {
            // No batch open (no wr_start, or a destroyed QP): nothing to
            // publish, and no lock to let go.
            return libc::EINVAL;
        }
        qp.in_wr.set(false);
        qp.wr_owner.store(0, Ordering::Relaxed);
        let err = qp.err.get();
        if err != 0 {
            qp.sq.lock.unlock();
            return err;
        }
        qp.sq.q.get().producer().store(qp.cur.get(), Ordering::Release);
        qp.sq.lock.unlock();
        qp.ring()
    }
}

op! {
    fn wr_abort(ibqp: *mut ibv_qp_ex);
    {
        // SAFETY: one of our extended QPs.
        let qp = unsafe { RxeQp::of(ibqp) };
        if qp.in_wr.get() {
            qp.in_wr.set(false);
            qp.wr_owner.store(0, Ordering::Relaxed);
            qp.sq.lock.unlock();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rkeys() {
        assert_eq!(inc_rkey(0x1234_56ff), 0x1234_5600);
        assert_eq!(inc_rkey(0x1234_5601), 0x1234_5602);
        assert_eq!(inc_rkey(u32::MAX), 0xffff_ff00);
    }

    #[test]
    fn qp_attr_checks() {
        // SAFETY: a C struct of integers, pointers and unions of them.
        let mut a: ibv_qp_init_attr_ex = unsafe { rdma_util::mem::zeroed_unchecked() };
        a.qp_type = IBV_QPT_RC;
        assert!(check_qp_init_attr(&a, Pabi::V34).is_ok());
        a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
        a.send_ops_flags = (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_ATOMIC_WRITE) as u64;
        assert!(check_qp_init_attr(&a, Pabi::V34).is_ok());
        a.send_ops_flags |= IBV_QP_EX_WITH_FLUSH as u64;
        assert_eq!(check_qp_init_attr(&a, Pabi::V34), Err(libc::EOPNOTSUPP));
        assert!(check_qp_init_attr(&a, Pabi::V65).is_ok());
        a.qp_type = IBV_QPT_UD;
        a.send_ops_flags = (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE) as u64;
        assert_eq!(check_qp_init_attr(&a, Pabi::V65), Err(libc::EOPNOTSUPP));
        a.qp_type = IBV_QPT_XRC_SEND;
        a.send_ops_flags = IBV_QP_EX_WITH_SEND as u64;
        assert_eq!(check_qp_init_attr(&a, Pabi::V65), Err(libc::EOPNOTSUPP));
        a.qp_type = IBV_QPT_RC;
        a.comp_mask = IBV_QP_INIT_ATTR_CREATE_FLAGS;
        a.create_flags = 1;
        assert_eq!(check_qp_init_attr(&a, Pabi::V34), Err(libc::EOPNOTSUPP));
        a.comp_mask = IBV_QP_INIT_ATTR_XRCD;
        assert_eq!(check_qp_init_attr(&a, Pabi::V34), Err(libc::EOPNOTSUPP));
    }

    #[test]
    fn room_for_both_abis() {
        assert_eq!(size_of::<VqpRoom>(), size_of::<pabi65::verbs_qp>());
        assert_eq!(offset_of!(RxeQp, vqp), 16);
    }
}
