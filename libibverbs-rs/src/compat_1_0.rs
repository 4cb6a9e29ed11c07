//! The IBVERBS_1.0 interface: binaries linked against libibverbs 1.0 call the
//! `@IBVERBS_1.0` versions of the entry points, which take and return the old
//! 1.0 structures. Each 1.0 object wraps the real one (`real_*`).
//!
//! Every 1.0 object is a small wrapper allocated here around the real object
//! made by the 1.1 entry point; the real CQ/QP/SRQ's user-context pointer is
//! set to its 1.0 wrapper, so that completion and asynchronous events can be
//! handed back as 1.0 objects. Wrappers are zero-filled (upstream leaves the
//! fields it does not set uninitialised).

use std::ffi::{c_char, c_int, c_void};
use std::ptr;

use crate::abi::verbs::*;
use rdma_util::{ensure, export_versioned, symver};

/// struct ibv_device_1_0
#[repr(C)]
pub(crate) struct ibv_device_1_0 {
    pub(crate) obsolete_sysfs_dev: *mut c_void,
    pub(crate) obsolete_sysfs_ibdev: *mut c_void,
    pub(crate) real_device: *mut ibv_device,
    pub(crate) _ops: _ibv_device_ops,
}

/// struct ibv_cq_1_0
#[repr(C)]
pub(crate) struct ibv_cq_1_0 {
    pub(crate) context: *mut ibv_context_1_0,
    pub(crate) cq_context: *mut c_void,
    pub(crate) handle: u32,
    pub(crate) cqe: c_int,
    pub(crate) mutex: libc::pthread_mutex_t,
    pub(crate) cond: libc::pthread_cond_t,
    pub(crate) comp_events_completed: u32,
    pub(crate) async_events_completed: u32,
    pub(crate) real_cq: *mut ibv_cq,
}

/// struct ibv_srq_1_0
#[repr(C)]
pub(crate) struct ibv_srq_1_0 {
    pub(crate) context: *mut ibv_context_1_0,
    pub(crate) srq_context: *mut c_void,
    pub(crate) pd: *mut ibv_pd_1_0,
    pub(crate) handle: u32,
    pub(crate) mutex: libc::pthread_mutex_t,
    pub(crate) cond: libc::pthread_cond_t,
    pub(crate) events_completed: u32,
    pub(crate) real_srq: *mut ibv_srq,
}

/// struct ibv_qp_1_0
#[repr(C)]
pub(crate) struct ibv_qp_1_0 {
    pub(crate) context: *mut ibv_context_1_0,
    pub(crate) qp_context: *mut c_void,
    pub(crate) pd: *mut ibv_pd_1_0,
    pub(crate) send_cq: *mut ibv_cq_1_0,
    pub(crate) recv_cq: *mut ibv_cq_1_0,
    pub(crate) srq: *mut ibv_srq_1_0,
    pub(crate) handle: u32,
    pub(crate) qp_num: u32,
    pub(crate) state: ibv_qp_state,
    pub(crate) qp_type: ibv_qp_type,
    pub(crate) mutex: libc::pthread_mutex_t,
    pub(crate) cond: libc::pthread_cond_t,
    pub(crate) events_completed: u32,
    pub(crate) real_qp: *mut ibv_qp,
}

/// struct ibv_ah_1_0
#[repr(C)]
pub(crate) struct ibv_ah_1_0 {
    pub(crate) context: *mut ibv_context_1_0,
    pub(crate) pd: *mut ibv_pd_1_0,
    pub(crate) handle: u32,
    pub(crate) real_ah: *mut ibv_ah,
}

/// struct ibv_pd_1_0
#[repr(C)]
pub(crate) struct ibv_pd_1_0 {
    pub(crate) context: *mut ibv_context_1_0,
    pub(crate) handle: u32,
    pub(crate) real_pd: *mut ibv_pd,
}

/// struct ibv_mr_1_0
#[repr(C)]
pub(crate) struct ibv_mr_1_0 {
    pub(crate) context: *mut ibv_context_1_0,
    pub(crate) pd: *mut ibv_pd_1_0,
    pub(crate) handle: u32,
    pub(crate) lkey: u32,
    pub(crate) rkey: u32,
    pub(crate) real_mr: *mut ibv_mr,
}

/// struct ibv_qp_init_attr_1_0: today's with 1.0 CQ/SRQ pointers.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct ibv_qp_init_attr_1_0 {
    pub(crate) qp_context: *mut c_void,
    pub(crate) send_cq: *mut ibv_cq_1_0,
    pub(crate) recv_cq: *mut ibv_cq_1_0,
    pub(crate) srq: *mut ibv_srq_1_0,
    pub(crate) cap: ibv_qp_cap,
    pub(crate) qp_type: ibv_qp_type,
    pub(crate) sq_sig_all: c_int,
}

/// struct ibv_recv_wr_1_0 (`next` came first in 1.0).
#[repr(C)]
pub(crate) struct ibv_recv_wr_1_0 {
    pub(crate) next: *mut ibv_recv_wr_1_0,
    pub(crate) wr_id: u64,
    pub(crate) sg_list: *mut ibv_sge,
    pub(crate) num_sge: c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct ibv_send_wr_1_0_ud {
    pub(crate) ah: *mut ibv_ah_1_0,
    pub(crate) remote_qpn: u32,
    pub(crate) remote_qkey: u32,
}

/// The 1.0 `wr` union: the same 32 bytes as today's, with a 1.0 AH pointer.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) union ibv_send_wr_1_0_wr {
    pub(crate) raw: [u64; 4],
    pub(crate) ud: ibv_send_wr_1_0_ud,
}

/// struct ibv_send_wr_1_0
#[repr(C)]
pub(crate) struct ibv_send_wr_1_0 {
    pub(crate) next: *mut ibv_send_wr_1_0,
    pub(crate) wr_id: u64,
    pub(crate) sg_list: *mut ibv_sge,
    pub(crate) num_sge: c_int,
    pub(crate) opcode: ibv_wr_opcode,
    pub(crate) send_flags: c_int,
    pub(crate) imm_data: u32,
    pub(crate) wr: ibv_send_wr_1_0_wr,
}

type Fp = Option<unsafe extern "C" fn()>;

/// struct ibv_context_ops_1_0: only the five data-path entries are ever set.
#[repr(C)]
pub(crate) struct ibv_context_ops_1_0 {
    pub(crate) query_device: Fp,
    pub(crate) query_port: Fp,
    pub(crate) alloc_pd: Fp,
    pub(crate) dealloc_pd: Fp,
    pub(crate) reg_mr: Fp,
    pub(crate) dereg_mr: Fp,
    pub(crate) create_cq: Fp,
    pub(crate) poll_cq: Option<unsafe extern "C" fn(*mut ibv_cq_1_0, c_int, *mut ibv_wc) -> c_int>,
    pub(crate) req_notify_cq: Option<unsafe extern "C" fn(*mut ibv_cq_1_0, c_int) -> c_int>,
    pub(crate) cq_event: Fp,
    pub(crate) resize_cq: Fp,
    pub(crate) destroy_cq: Fp,
    pub(crate) create_srq: Fp,
    pub(crate) modify_srq: Fp,
    pub(crate) query_srq: Fp,
    pub(crate) destroy_srq: Fp,
    pub(crate) post_srq_recv:
        Option<unsafe extern "C" fn(*mut ibv_srq_1_0, *mut ibv_recv_wr_1_0, *mut *mut ibv_recv_wr_1_0) -> c_int>,
    pub(crate) create_qp: Fp,
    pub(crate) query_qp: Fp,
    pub(crate) modify_qp: Fp,
    pub(crate) destroy_qp: Fp,
    pub(crate) post_send:
        Option<unsafe extern "C" fn(*mut ibv_qp_1_0, *mut ibv_send_wr_1_0, *mut *mut ibv_send_wr_1_0) -> c_int>,
    pub(crate) post_recv:
        Option<unsafe extern "C" fn(*mut ibv_qp_1_0, *mut ibv_recv_wr_1_0, *mut *mut ibv_recv_wr_1_0) -> c_int>,
    pub(crate) create_ah: Fp,
    pub(crate) destroy_ah: Fp,
    pub(crate) attach_mcast: Fp,
    pub(crate) detach_mcast: Fp,
}

/// struct ibv_context_1_0
#[repr(C)]
pub(crate) struct ibv_context_1_0 {
    pub(crate) device: *mut ibv_device_1_0,
    pub(crate) ops: ibv_context_ops_1_0,
    pub(crate) cmd_fd: c_int,
    pub(crate) async_fd: c_int,
    pub(crate) num_comp_vectors: c_int,
    pub(crate) real_context: *mut ibv_context,
}

// Layout facts of rdma-core's compat-1_0.c on x86_64 (LP64).
const _: () = assert!(std::mem::size_of::<ibv_device_1_0>() == 40);
const _: () = assert!(std::mem::size_of::<ibv_context_ops_1_0>() == 27 * 8);
const _: () = assert!(std::mem::offset_of!(ibv_context_1_0, cmd_fd) == 8 + 27 * 8);
const _: () = assert!(std::mem::offset_of!(ibv_context_1_0, real_context) == 8 + 27 * 8 + 16);
const _: () = assert!(std::mem::size_of::<ibv_send_wr_1_0>() == 72);
const _: () = assert!(std::mem::offset_of!(ibv_send_wr_1_0, wr) == 40);
const _: () = assert!(std::mem::offset_of!(ibv_cq_1_0, real_cq) == 120);
const _: () = assert!(std::mem::offset_of!(ibv_qp_1_0, real_qp) == 160);
const _: () = assert!(std::mem::offset_of!(ibv_srq_1_0, real_srq) == 128);
const _: () = assert!(std::mem::size_of::<ibv_pd_1_0>() == 24);
const _: () = assert!(std::mem::offset_of!(ibv_pd_1_0, real_pd) == 16);
const _: () = assert!(std::mem::size_of::<ibv_mr_1_0>() == 40);
const _: () = assert!(std::mem::offset_of!(ibv_mr_1_0, handle) == 16);
const _: () = assert!(std::mem::offset_of!(ibv_mr_1_0, lkey) == 20);
const _: () = assert!(std::mem::offset_of!(ibv_mr_1_0, rkey) == 24);
const _: () = assert!(std::mem::offset_of!(ibv_mr_1_0, real_mr) == 32);
const _: () = assert!(std::mem::size_of::<ibv_qp_init_attr_1_0>() == 64);
const _: () = assert!(std::mem::offset_of!(ibv_qp_init_attr_1_0, cap) == 32);
const _: () = assert!(std::mem::offset_of!(ibv_qp_init_attr_1_0, qp_type) == 52);
const _: () = assert!(std::mem::offset_of!(ibv_qp_init_attr_1_0, sq_sig_all) == 56);
const _: () = assert!(std::mem::size_of::<ibv_ah_1_0>() == 32);
const _: () = assert!(std::mem::offset_of!(ibv_ah_1_0, real_ah) == 24);

unsafe extern "C" fn poll_cq_1_0(cq: *mut ibv_cq_1_0, n: c_int, wc: *mut ibv_wc) -> c_int {
    // SAFETY: a 1.0 CQ always points at its 1.0 context and real CQ.
    unsafe {
        let real_ctx = (*(*cq).context).real_context;
        match (*real_ctx).ops.poll_cq {
            Some(f) => f((*cq).real_cq, n, wc),
            None => libc::EOPNOTSUPP,
        }
    }
}

unsafe extern "C" fn req_notify_cq_1_0(cq: *mut ibv_cq_1_0, solicited_only: c_int) -> c_int {
    // SAFETY: as in poll_cq_1_0.
    unsafe {
        let real_ctx = (*(*cq).context).real_context;
        match (*real_ctx).ops.req_notify_cq {
            Some(f) => f((*cq).real_cq, solicited_only),
            None => libc::EOPNOTSUPP,
        }
    }
}

/// The elements of a NULL-terminated 1.0 list, in order, and as many
/// all-zero requests of the current layout to convert them into; None when
/// there is no memory for them (upstream copies onto the stack, with
/// alloca).
///
/// # Safety
/// `head` is NULL or the head of a valid list whose `next` is read by
/// `next`; all-zero bytes are a valid `R`.
unsafe fn list_and_copies<T, R>(head: *mut T, next: impl Fn(*mut T) -> *mut T) -> Option<(Vec<*mut T>, Vec<R>)> {
    let mut n = 0;
    let mut w = head;
    while !w.is_null() {
        n += 1;
        w = next(w);
    }
    let mut olds = rdma_util::fallible::vec_with_capacity(n).ok()?;
    let mut reals = rdma_util::fallible::vec_with_capacity(n).ok()?;
    w = head;
    while !w.is_null() {
        olds.push(w);
        // SAFETY: all-zero is a valid R (the caller's promise).
        reals.push(unsafe { std::mem::zeroed() });
        w = next(w);
    }
    Some((olds, reals))
}

/// Converts a 1.0 receive list, calls `post`, and maps the failing request
/// back to the caller's list.
///
/// # Safety
/// `wr` is a valid NULL-terminated 1.0 list; `bad_wr` is writable.
unsafe fn post_recv_list(
    wr: *mut ibv_recv_wr_1_0,
    bad_wr: *mut *mut ibv_recv_wr_1_0,
    post: impl FnOnce(*mut ibv_recv_wr, *mut *mut ibv_recv_wr) -> c_int,
) -> c_int {
    // SAFETY: the caller's valid list; all-zero is a valid ibv_recv_wr.
    let Some((olds, mut reals)) = (unsafe { list_and_copies::<_, ibv_recv_wr>(wr, |w| (*w).next) }) else {
        // SAFETY: caller's out-parameter: nothing was posted.
        unsafe { *bad_wr = wr };
        return libc::ENOMEM;
    };
    for (i, &o) in olds.iter().enumerate() {
        // SAFETY: o is an element of the caller's list.
        let o = unsafe { &*o };
        reals[i].wr_id = o.wr_id;
        reals[i].sg_list = o.sg_list;
        reals[i].num_sge = o.num_sge;
    }
    link_recv(&mut reals);
    let head = reals.first_mut().map_or(ptr::null_mut(), |r| r as *mut ibv_recv_wr);
    let mut real_bad: *mut ibv_recv_wr = ptr::null_mut();
    let ret = post(head, &mut real_bad);
    if ret != 0 {
        if let Some(i) = reals.iter().position(|r| ptr::eq(r, real_bad)) {
            // SAFETY: caller's out-parameter.
            unsafe { *bad_wr = olds[i] };
        }
    }
    ret
}

fn link_recv(v: &mut [ibv_recv_wr]) {
    let base = v.as_mut_ptr();
    for i in 0..v.len() {
        // SAFETY: i + 1 <= len: a pointer within or one past the slice.
        v[i].next = if i + 1 < v.len() { unsafe { base.add(i + 1) } } else { ptr::null_mut() };
    }
}

unsafe extern "C" fn post_recv_1_0(qp: *mut ibv_qp_1_0, wr: *mut ibv_recv_wr_1_0, bad: *mut *mut ibv_recv_wr_1_0) -> c_int {
    // SAFETY: a 1.0 QP points at its 1.0 context and real QP; list per caller.
    unsafe {
        let real_ctx = (*(*qp).context).real_context;
        let real_qp = (*qp).real_qp;
        post_recv_list(wr, bad, |h, b| match (*real_ctx).ops.post_recv {
            Some(f) => f(real_qp, h, b),
            None => libc::EOPNOTSUPP,
        })
    }
}

unsafe extern "C" fn post_srq_recv_1_0(srq: *mut ibv_srq_1_0, wr: *mut ibv_recv_wr_1_0, bad: *mut *mut ibv_recv_wr_1_0) -> c_int {
    // SAFETY: a 1.0 SRQ points at its 1.0 context and real SRQ.
    unsafe {
        let real_ctx = (*(*srq).context).real_context;
        let real_srq = (*srq).real_srq;
        post_recv_list(wr, bad, |h, b| match (*real_ctx).ops.post_srq_recv {
            Some(f) => f(real_srq, h, b),
            None => libc::EOPNOTSUPP,
        })
    }
}

unsafe extern "C" fn post_send_1_0(qp: *mut ibv_qp_1_0, wr: *mut ibv_send_wr_1_0, bad: *mut *mut ibv_send_wr_1_0) -> c_int {
    // SAFETY: a 1.0 QP points at its 1.0 context and real QP.
    let (real_ctx, real_qp, is_ud) = unsafe { ((*(*qp).context).real_context, (*qp).real_qp, (*qp).qp_type == IBV_QPT_UD) };
    // SAFETY: the caller's valid list; all-zero is a valid ibv_send_wr.
    let Some((olds, mut reals)) = (unsafe { list_and_copies::<_, ibv_send_wr>(wr, |w| (*w).next) }) else {
        // SAFETY: caller's out-parameter: nothing was posted.
        unsafe { *bad = wr };
        return libc::ENOMEM;
    };
    for (r, &o) in reals.iter_mut().zip(&olds) {
        // SAFETY: o is an element of the caller's list.
        let o = unsafe { &*o };
        r.wr_id = o.wr_id;
        r.sg_list = o.sg_list;
        r.num_sge = o.num_sge;
        r.opcode = o.opcode;
        r.send_flags = o.send_flags as _;
        r.imm.imm_data = o.imm_data;
        // The `wr` unions have the same 32-byte layout.
        // SAFETY: plain-data copy between unions of equal size.
        unsafe { ptr::copy_nonoverlapping((&o.wr as *const ibv_send_wr_1_0_wr).cast::<u8>(), &mut r.wr as *mut _ as *mut u8, 32) };
        if is_ud {
            // SAFETY: UD requests carry a 1.0 AH wrapping the real one.
            unsafe { r.wr.ud.ah = (*o.wr.ud.ah).real_ah };
        }
    }
    let base = reals.as_mut_ptr();
    let n = reals.len();
    for (i, r) in reals.iter_mut().enumerate() {
        // SAFETY: within or one past the vector.
        r.next = if i + 1 < n { unsafe { base.add(i + 1) } } else { ptr::null_mut() };
    }
    let head = if n == 0 { ptr::null_mut() } else { base };
    let mut real_bad: *mut ibv_send_wr = ptr::null_mut();
    // SAFETY: the real context's post_send with the converted list.
    let ret = unsafe {
        match (*real_ctx).ops.post_send {
            Some(f) => f(real_qp, head, &mut real_bad),
            None => libc::EOPNOTSUPP,
        }
    };
    if ret != 0 {
        if let Some(i) = reals.iter().position(|r| ptr::eq(r, real_bad)) {
            // SAFETY: caller's out-parameter.
            unsafe { *bad = olds[i] };
        }
    }
    ret
}

export_versioned! {
    /// ibv_get_device_list@IBVERBS_1.0: a list of 1.0 device wrappers. The
    /// slot before the first entry keeps the real list.
    fn ibv_get_device_list_v10(num: *mut c_int) -> *mut *mut ibv_device_1_0, on_panic = ptr::null_mut();
    {
        let mut n: c_int = 0;
        // SAFETY: a local out-parameter.
        let real = unsafe { crate::device::get_device_list(&mut n) };
        if real.is_null() {
            return ptr::null_mut();
        }
        let n = n as usize;
        // SAFETY: n + 2 pointer slots, zeroed; freed by ibv_free_device_list@1.0.
        let l = unsafe { libc::calloc(n + 2, std::mem::size_of::<*mut c_void>()) }.cast::<*mut ibv_device_1_0>();
        if l.is_null() {
            // SAFETY: the list we just got.
            unsafe { crate::device::free_device_list(real) };
            rdma_util::ffi::set_errno(libc::ENOMEM);
            return ptr::null_mut();
        }
        // SAFETY: slot 0 exists.
        unsafe { *l = real.cast() };
        for i in 0..n {
            // SAFETY: one zeroed wrapper per device.
            let d = unsafe { libc::calloc(1, std::mem::size_of::<ibv_device_1_0>()) }.cast::<ibv_device_1_0>();
            if d.is_null() {
                // SAFETY: undo the wrappers made so far, then the lists.
                unsafe {
                    for j in 1..=i {
                        libc::free((*l.add(j)).cast());
                    }
                    libc::free(l.cast());
                    crate::device::free_device_list(real);
                }
                rdma_util::ffi::set_errno(libc::ENOMEM);
                return ptr::null_mut();
            }
            // SAFETY: i < n entries in the real list; slot i + 1 exists.
            unsafe {
                (*d).real_device = *real.add(i);
                *l.add(i + 1) = d;
            }
        }
        if !num.is_null() {
            // SAFETY: caller's out-parameter.
            unsafe { *num = n as c_int };
        }
        // SAFETY: slot 1 exists.
        unsafe { l.add(1) }
    }
}
symver!(compat ibv_get_device_list, "IBVERBS_1.0", ibv_get_device_list_v10);
symver!(default ibv_get_device_list, "IBVERBS_1.1", crate::device::ibv_get_device_list_v11);

export_versioned! {
    /// ibv_free_device_list@IBVERBS_1.0
    fn ibv_free_device_list_v10(list: *mut *mut ibv_device_1_0) -> (), on_panic = ();
    {
        ensure!(!list.is_null(), libc::EINVAL);
        // SAFETY: a list from ibv_get_device_list@1.0: wrappers up to NULL,
        // the real list one slot before the start.
        unsafe {
            let mut p = list;
            while !(*p).is_null() {
                libc::free((*p).cast());
                p = p.add(1);
            }
            crate::device::free_device_list((*list.sub(1)).cast());
            libc::free(list.sub(1).cast());
        }
    }
}
symver!(compat ibv_free_device_list, "IBVERBS_1.0", ibv_free_device_list_v10);
symver!(default ibv_free_device_list, "IBVERBS_1.1", crate::device::ibv_free_device_list_v11);

export_versioned! {
    /// ibv_get_device_name@IBVERBS_1.0
    fn ibv_get_device_name_v10(device: *mut ibv_device_1_0) -> *const c_char, on_panic = ptr::null();
    {
        ensure!(!device.is_null(), libc::EINVAL, ptr::null());
        // SAFETY: a wrapper from ibv_get_device_list@1.0.
        unsafe { crate::device::ibv_get_device_name_v11((*device).real_device) }
    }
}
symver!(compat ibv_get_device_name, "IBVERBS_1.0", ibv_get_device_name_v10);
symver!(default ibv_get_device_name, "IBVERBS_1.1", crate::device::ibv_get_device_name_v11);

export_versioned! {
    /// ibv_get_device_guid@IBVERBS_1.0
    fn ibv_get_device_guid_v10(device: *mut ibv_device_1_0) -> u64, on_panic = 0;
    {
        ensure!(!device.is_null(), libc::EINVAL, 0);
        // SAFETY: a wrapper from ibv_get_device_list@1.0.
        unsafe { crate::device::ibv_get_device_guid_v11((*device).real_device) }
    }
}
symver!(compat ibv_get_device_guid, "IBVERBS_1.0", ibv_get_device_guid_v10);
symver!(default ibv_get_device_guid, "IBVERBS_1.1", crate::device::ibv_get_device_guid_v11);

export_versioned! {
    /// ibv_open_device@IBVERBS_1.0: a 1.0 context wrapping a real one, whose
    /// data-path ops translate 1.0 objects and work requests.
    fn ibv_open_device_v10(device: *mut ibv_device_1_0) -> *mut ibv_context_1_0, on_panic = ptr::null_mut();
    {
        ensure!(!device.is_null(), libc::EINVAL, ptr::null_mut());
        // SAFETY: zeroed wrapper, freed by ibv_close_device@1.0.
        let ctx = unsafe { libc::calloc(1, std::mem::size_of::<ibv_context_1_0>()) }.cast::<ibv_context_1_0>();
        if ctx.is_null() {
            rdma_util::ffi::set_errno(libc::ENOMEM);
            return ptr::null_mut();
        }
        // SAFETY: a wrapper from ibv_get_device_list@1.0, whose real_device is
        // a live device of our list.
        let real = unsafe { crate::context::open_device((*device).real_device, ptr::null_mut()) };
        if real.is_null() {
            // SAFETY: allocated above.
            unsafe { libc::free(ctx.cast()) };
            return ptr::null_mut();
        }
        // SAFETY: ctx is ours; real is the live context just opened.
        unsafe {
            let c = &mut *ctx;
            c.device = device;
            c.real_context = real;
            // Upstream leaves these three uninitialised; we copy the real values.
            c.cmd_fd = (*real).cmd_fd;
            c.async_fd = (*real).async_fd;
            c.num_comp_vectors = (*real).num_comp_vectors;
            c.ops.poll_cq = Some(poll_cq_1_0);
            c.ops.req_notify_cq = Some(req_notify_cq_1_0);
            c.ops.post_send = Some(post_send_1_0);
            c.ops.post_recv = Some(post_recv_1_0);
            c.ops.post_srq_recv = Some(post_srq_recv_1_0);
        }
        ctx
    }
}
symver!(compat ibv_open_device, "IBVERBS_1.0", ibv_open_device_v10);

export_versioned! {
    /// ibv_close_device@IBVERBS_1.0
    fn ibv_close_device_v10(context: *mut ibv_context_1_0) -> c_int, on_panic = -1;
    {
        ensure!(!context.is_null(), libc::EINVAL, -1);
        // SAFETY: a wrapper from ibv_open_device@1.0, whose real_context is
        // the live context it opened; the wrapper is freed below.
        let ret = unsafe { crate::context::close_device((*context).real_context) };
        if ret != 0 {
            return ret;
        }
        // SAFETY: allocated by ibv_open_device@1.0.
        unsafe { libc::free(context.cast()) };
        0
    }
}
symver!(compat ibv_close_device, "IBVERBS_1.0", ibv_close_device_v10);

export_versioned! {
    /// ibv_register_driver@IBVERBS_1.1 (compat only): the driver interface
    /// became private in rdma-core 13; old usnic providers still call this to
    /// register, and upstream keeps it as a function that does nothing.
    fn ibv_register_driver_v11(name: *const c_char, init_func: *mut c_void) -> (), on_panic = ();
    {
        let _ = (name, init_func);
    }
}
symver!(compat ibv_register_driver, "IBVERBS_1.1", ibv_register_driver_v11);

// ---------------------------------------------------------------------------
// The 1.0 object verbs. Each calls the 1.1 entry point for the real work.
// ---------------------------------------------------------------------------

/// A zero-filled 1.0 wrapper from the C heap (freed with `libc::free` by the
/// matching destroy), or NULL with errno ENOMEM.
fn alloc_wrapper<T>() -> *mut T {
    // SAFETY: plain allocation; every 1.0 wrapper is valid all-zero.
    let p = unsafe { libc::calloc(1, std::mem::size_of::<T>()) }.cast::<T>();
    if p.is_null() {
        rdma_util::ffi::set_errno(libc::ENOMEM);
    }
    p
}

/// Frees a wrapper from `alloc_wrapper`, keeping the caller's errno (the
/// real verb's error must survive).
fn free_wrapper<T>(p: *mut T) {
    let e = rdma_util::ffi::errno();
    // SAFETY: allocated by alloc_wrapper and not handed out.
    unsafe { libc::free(p.cast()) };
    rdma_util::ffi::set_errno(e);
}

/// The class of object an asynchronous event names.
enum EventObject {
    Cq,
    Qp,
    Srq,
    Other,
}

fn event_object(t: ibv_event_type) -> EventObject {
    match t {
        IBV_EVENT_CQ_ERR => EventObject::Cq,
        IBV_EVENT_QP_FATAL | IBV_EVENT_QP_REQ_ERR | IBV_EVENT_QP_ACCESS_ERR | IBV_EVENT_COMM_EST
        | IBV_EVENT_SQ_DRAINED | IBV_EVENT_PATH_MIG | IBV_EVENT_PATH_MIG_ERR
        | IBV_EVENT_QP_LAST_WQE_REACHED => EventObject::Qp,
        IBV_EVENT_SRQ_ERR | IBV_EVENT_SRQ_LIMIT_REACHED => EventObject::Srq,
        _ => EventObject::Other,
    }
}

/// Replaces the real object of an event by its 1.0 wrapper (kept in the real
/// object's user-context pointer by the 1.0 create verbs).
///
/// # Safety
/// The element, when non-NULL for the event's class, is a live object.
unsafe fn event_to_1_0(event: &mut ibv_async_event) {
    // SAFETY: the union member matching the event type; objects per caller.
    unsafe {
        match event_object(event.event_type) {
            EventObject::Cq if !event.element.cq.is_null() => {
                event.element.cq = (*event.element.cq).cq_context.cast();
            }
            EventObject::Qp if !event.element.qp.is_null() => {
                event.element.qp = (*event.element.qp).qp_context.cast();
            }
            EventObject::Srq if !event.element.srq.is_null() => {
                event.element.srq = (*event.element.srq).srq_context.cast();
            }
            _ => {}
        }
    }
}

/// The event as the real library knows it: the 1.0 wrapper an event carries
/// replaced by the real object it wraps.
///
/// # Safety
/// The element, when non-NULL for the event's class, is a live 1.0 wrapper.
unsafe fn event_from_1_0(event: &ibv_async_event) -> ibv_async_event {
    let mut real = ibv_async_event { element: event.element, event_type: event.event_type };
    // SAFETY: the union member matching the event type; wrappers per caller.
    unsafe {
        match event_object(event.event_type) {
            EventObject::Cq if !event.element.cq.is_null() => {
                real.element.cq = (*event.element.cq.cast::<ibv_cq_1_0>()).real_cq;
            }
            EventObject::Qp if !event.element.qp.is_null() => {
                real.element.qp = (*event.element.qp.cast::<ibv_qp_1_0>()).real_qp;
            }
            EventObject::Srq if !event.element.srq.is_null() => {
                real.element.srq = (*event.element.srq.cast::<ibv_srq_1_0>()).real_srq;
            }
            _ => {}
        }
    }
    real
}

export_versioned! {
    /// ibv_get_async_event@IBVERBS_1.0: the element is the 1.0 wrapper.
    fn ibv_get_async_event_v10(context: *mut ibv_context_1_0, event: *mut ibv_async_event) -> c_int, on_panic = -1;
    {
        ensure!(!context.is_null(), libc::EINVAL, -1);
        // SAFETY: a 1.0 context and the caller's event buffer (a NULL one is
        // handled by the 1.1 verb).
        let ret = unsafe { crate::context::ibv_get_async_event_v11((*context).real_context, event) };
        if ret != 0 {
            return ret;
        }
        // SAFETY: the event just read names a live object of this context.
        unsafe { event_to_1_0(&mut *event) };
        0
    }
}
symver!(compat ibv_get_async_event, "IBVERBS_1.0", ibv_get_async_event_v10);

export_versioned! {
    /// ibv_ack_async_event@IBVERBS_1.0
    fn ibv_ack_async_event_v10(event: *mut ibv_async_event) -> (), on_panic = ();
    {
        ensure!(!event.is_null(), libc::EINVAL);
        // SAFETY: an event from ibv_get_async_event@1.0.
        let mut real = unsafe { event_from_1_0(&*event) };
        // SAFETY: a local event naming the real object.
        unsafe { crate::context::ibv_ack_async_event_v11(&mut real) }
    }
}
symver!(compat ibv_ack_async_event, "IBVERBS_1.0", ibv_ack_async_event_v10);

/// The real context of a 1.0 context, or NULL.
fn real_ctx(context: *mut ibv_context_1_0) -> *mut ibv_context {
    if context.is_null() {
        return ptr::null_mut();
    }
    // SAFETY: the caller's 1.0 context (non-NULL).
    unsafe { (*context).real_context }
}

export_versioned! {
    /// ibv_query_device@IBVERBS_1.0: 0 or an errno value.
    fn ibv_query_device_v10(context: *mut ibv_context_1_0, device_attr: *mut ibv_device_attr) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!context.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: forwarding to the 1.1 verb, which checks its arguments.
        unsafe { crate::query::ibv_query_device_v11(real_ctx(context), device_attr) }
    }
}
symver!(compat ibv_query_device, "IBVERBS_1.0", ibv_query_device_v10);

export_versioned! {
    /// ibv_query_port@IBVERBS_1.0: the full, current ibv_port_attr (as
    /// upstream's compat code, built with today's header, fills it).
    fn ibv_query_port_v10(context: *mut ibv_context_1_0, port_num: u8, port_attr: *mut ibv_port_attr) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!context.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: forwarding; lib_query_port checks its arguments.
        unsafe { crate::query::lib_query_port(real_ctx(context), port_num, port_attr, std::mem::size_of::<ibv_port_attr>()) }
    }
}
symver!(compat ibv_query_port, "IBVERBS_1.0", ibv_query_port_v10);

export_versioned! {
    /// ibv_query_gid@IBVERBS_1.0: 0 or -1.
    fn ibv_query_gid_v10(context: *mut ibv_context_1_0, port_num: u8, index: c_int, gid: *mut ibv_gid) -> c_int, on_panic = -1;
    {
        ensure!(!context.is_null(), libc::EINVAL, -1);
        // SAFETY: forwarding to the 1.1 verb, which checks its arguments.
        unsafe { crate::query::ibv_query_gid_v11(real_ctx(context), port_num, index, gid) }
    }
}
symver!(compat ibv_query_gid, "IBVERBS_1.0", ibv_query_gid_v10);

export_versioned! {
    /// ibv_query_pkey@IBVERBS_1.0: 0 or -1.
    fn ibv_query_pkey_v10(context: *mut ibv_context_1_0, port_num: u8, index: c_int, pkey: *mut u16) -> c_int, on_panic = -1;
    {
        ensure!(!context.is_null(), libc::EINVAL, -1);
        // SAFETY: forwarding to the 1.1 verb, which checks its arguments.
        unsafe { crate::query::ibv_query_pkey_v11(real_ctx(context), port_num, index, pkey) }
    }
}
symver!(compat ibv_query_pkey, "IBVERBS_1.0", ibv_query_pkey_v10);

export_versioned! {
    /// ibv_alloc_pd@IBVERBS_1.0
    fn ibv_alloc_pd_v10(context: *mut ibv_context_1_0) -> *mut ibv_pd_1_0, on_panic = ptr::null_mut();
    {
        ensure!(!context.is_null(), libc::EINVAL, ptr::null_mut());
        let pd = alloc_wrapper::<ibv_pd_1_0>();
        if pd.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: the 1.1 verb on the real context.
        let real = unsafe { crate::pd::ibv_alloc_pd_v11(real_ctx(context)) };
        if real.is_null() {
            free_wrapper(pd);
            return ptr::null_mut();
        }
        // SAFETY: our fresh wrapper.
        unsafe {
            (*pd).context = context;
            (*pd).real_pd = real;
        }
        pd
    }
}
symver!(compat ibv_alloc_pd, "IBVERBS_1.0", ibv_alloc_pd_v10);

export_versioned! {
    /// ibv_dealloc_pd@IBVERBS_1.0: 0 or an errno value; the wrapper is freed
    /// only on success.
    fn ibv_dealloc_pd_v10(pd: *mut ibv_pd_1_0) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!pd.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: a wrapper from ibv_alloc_pd@1.0.
        let ret = unsafe { crate::pd::ibv_dealloc_pd_v11((*pd).real_pd) };
        if ret == 0 {
            free_wrapper(pd);
        }
        ret
    }
}
symver!(compat ibv_dealloc_pd, "IBVERBS_1.0", ibv_dealloc_pd_v10);

export_versioned! {
    /// ibv_reg_mr@IBVERBS_1.0
    fn ibv_reg_mr_v10(pd: *mut ibv_pd_1_0, addr: *mut c_void, length: usize, access: c_int) -> *mut ibv_mr_1_0,
        on_panic = ptr::null_mut();
    {
        ensure!(!pd.is_null(), libc::EINVAL, ptr::null_mut());
        let mr = alloc_wrapper::<ibv_mr_1_0>();
        if mr.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: the 1.1 verb on the wrapped PD.
        let real = unsafe { crate::mr::ibv_reg_mr_v11((*pd).real_pd, addr, length, access) };
        if real.is_null() {
            free_wrapper(mr);
            return ptr::null_mut();
        }
        // SAFETY: our fresh wrapper, the caller's PD wrapper and the live MR.
        unsafe {
            let m = &mut *mr;
            m.context = (*pd).context;
            m.pd = pd;
            m.lkey = (*real).lkey;
            m.rkey = (*real).rkey;
            m.real_mr = real;
        }
        mr
    }
}
symver!(compat ibv_reg_mr, "IBVERBS_1.0", ibv_reg_mr_v10);

export_versioned! {
    /// ibv_dereg_mr@IBVERBS_1.0: 0 or an errno value.
    fn ibv_dereg_mr_v10(mr: *mut ibv_mr_1_0) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!mr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: a wrapper from ibv_reg_mr@1.0.
        let ret = unsafe { crate::mr::ibv_dereg_mr_v11((*mr).real_mr) };
        if ret == 0 {
            free_wrapper(mr);
        }
        ret
    }
}
symver!(compat ibv_dereg_mr, "IBVERBS_1.0", ibv_dereg_mr_v10);

export_versioned! {
    /// ibv_create_cq@IBVERBS_1.0: the real CQ's cq_context points at the 1.0
    /// wrapper (completion and async events hand the wrapper back).
    fn ibv_create_cq_v10(context: *mut ibv_context_1_0, cqe: c_int, cq_context: *mut c_void,
                         channel: *mut ibv_comp_channel, comp_vector: c_int) -> *mut ibv_cq_1_0,
        on_panic = ptr::null_mut();
    {
        ensure!(!context.is_null(), libc::EINVAL, ptr::null_mut());
        let cq = alloc_wrapper::<ibv_cq_1_0>();
        if cq.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: the 1.1 verb on the real context.
        let real = unsafe { crate::cq::ibv_create_cq_v11(real_ctx(context), cqe, cq_context, channel, comp_vector) };
        if real.is_null() {
            free_wrapper(cq);
            return ptr::null_mut();
        }
        // SAFETY: our fresh wrapper and the live CQ.
        unsafe {
            let c = &mut *cq;
            c.context = context;
            c.cq_context = cq_context;
            c.cqe = cqe;
            c.real_cq = real;
            (*real).cq_context = cq.cast();
        }
        cq
    }
}
symver!(compat ibv_create_cq, "IBVERBS_1.0", ibv_create_cq_v10);

export_versioned! {
    /// ibv_resize_cq@IBVERBS_1.0: 0 or an errno value.
    fn ibv_resize_cq_v10(cq: *mut ibv_cq_1_0, cqe: c_int) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!cq.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: a wrapper from ibv_create_cq@1.0.
        unsafe { crate::cq::ibv_resize_cq_v11((*cq).real_cq, cqe) }
    }
}
symver!(compat ibv_resize_cq, "IBVERBS_1.0", ibv_resize_cq_v10);

export_versioned! {
    /// ibv_destroy_cq@IBVERBS_1.0: 0 or an errno value.
    fn ibv_destroy_cq_v10(cq: *mut ibv_cq_1_0) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!cq.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: a wrapper from ibv_create_cq@1.0.
        let ret = unsafe { crate::cq::ibv_destroy_cq_v11((*cq).real_cq) };
        if ret == 0 {
            free_wrapper(cq);
        }
        ret
    }
}
symver!(compat ibv_destroy_cq, "IBVERBS_1.0", ibv_destroy_cq_v10);

export_versioned! {
    /// ibv_get_cq_event@IBVERBS_1.0: 0 or -1; `*cq` is the 1.0 wrapper and
    /// `*cq_context` the user's context given at creation.
    fn ibv_get_cq_event_v10(channel: *mut ibv_comp_channel, cq: *mut *mut ibv_cq_1_0, cq_context: *mut *mut c_void)
        -> c_int, on_panic = -1;
    {
        ensure!(!channel.is_null(), libc::EINVAL, -1);
        if cq.is_null() || cq_context.is_null() {
            // SAFETY: checked non-NULL; the caller's channel.
            return crate::util::event_read_null_out(unsafe { (*channel).fd });
        }
        let mut real: *mut ibv_cq = ptr::null_mut();
        let mut wrapper: *mut c_void = ptr::null_mut();
        // SAFETY: the 1.1 verb with local out-parameters.
        let ret = unsafe { crate::channel::ibv_get_cq_event_v11(channel, &mut real, &mut wrapper) };
        if ret != 0 {
            return ret;
        }
        let w = wrapper.cast::<ibv_cq_1_0>();
        // SAFETY: the real CQ's cq_context is its 1.0 wrapper; the caller's
        // out-parameters (checked non-NULL).
        unsafe {
            *cq = w;
            *cq_context = if w.is_null() { ptr::null_mut() } else { (*w).cq_context };
        }
        0
    }
}
symver!(compat ibv_get_cq_event, "IBVERBS_1.0", ibv_get_cq_event_v10);

export_versioned! {
    /// ibv_ack_cq_events@IBVERBS_1.0
    fn ibv_ack_cq_events_v10(cq: *mut ibv_cq_1_0, nevents: std::ffi::c_uint) -> (), on_panic = ();
    {
        ensure!(!cq.is_null(), libc::EINVAL);
        // SAFETY: a wrapper from ibv_create_cq@1.0.
        unsafe { crate::channel::ibv_ack_cq_events_v11((*cq).real_cq, nevents) }
    }
}
symver!(compat ibv_ack_cq_events, "IBVERBS_1.0", ibv_ack_cq_events_v10);

export_versioned! {
    /// ibv_create_srq@IBVERBS_1.0: the real SRQ's srq_context points at the
    /// 1.0 wrapper.
    fn ibv_create_srq_v10(pd: *mut ibv_pd_1_0, srq_init_attr: *mut ibv_srq_init_attr) -> *mut ibv_srq_1_0,
        on_panic = ptr::null_mut();
    {
        ensure!(!pd.is_null() && !srq_init_attr.is_null(), libc::EINVAL, ptr::null_mut());
        let srq = alloc_wrapper::<ibv_srq_1_0>();
        if srq.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: the 1.1 verb on the wrapped PD.
        let real = unsafe { crate::srq::ibv_create_srq_v11((*pd).real_pd, srq_init_attr) };
        if real.is_null() {
            free_wrapper(srq);
            return ptr::null_mut();
        }
        // SAFETY: our fresh wrapper, the caller's PD wrapper and attributes,
        // the live SRQ.
        unsafe {
            let s = &mut *srq;
            s.context = (*pd).context;
            s.srq_context = (*srq_init_attr).srq_context;
            s.pd = pd;
            s.real_srq = real;
            (*real).srq_context = srq.cast();
        }
        srq
    }
}
symver!(compat ibv_create_srq, "IBVERBS_1.0", ibv_create_srq_v10);

export_versioned! {
    /// ibv_modify_srq@IBVERBS_1.0: 0 or an errno value.
    fn ibv_modify_srq_v10(srq: *mut ibv_srq_1_0, srq_attr: *mut ibv_srq_attr, srq_attr_mask: c_int) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(!srq.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: a wrapper from ibv_create_srq@1.0.
        unsafe { crate::srq::ibv_modify_srq_v11((*srq).real_srq, srq_attr, srq_attr_mask) }
    }
}
symver!(compat ibv_modify_srq, "IBVERBS_1.0", ibv_modify_srq_v10);

export_versioned! {
    /// ibv_query_srq@IBVERBS_1.0: 0 or an errno value.
    fn ibv_query_srq_v10(srq: *mut ibv_srq_1_0, srq_attr: *mut ibv_srq_attr) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!srq.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: a wrapper from ibv_create_srq@1.0.
        unsafe { crate::srq::ibv_query_srq_v11((*srq).real_srq, srq_attr) }
    }
}
symver!(compat ibv_query_srq, "IBVERBS_1.0", ibv_query_srq_v10);

export_versioned! {
    /// ibv_destroy_srq@IBVERBS_1.0: 0 or an errno value.
    fn ibv_destroy_srq_v10(srq: *mut ibv_srq_1_0) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!srq.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: a wrapper from ibv_create_srq@1.0.
        let ret = unsafe { crate::srq::ibv_destroy_srq_v11((*srq).real_srq) };
        if ret == 0 {
            free_wrapper(srq);
        }
        ret
    }
}
symver!(compat ibv_destroy_srq, "IBVERBS_1.0", ibv_destroy_srq_v10);

export_versioned! {
    /// ibv_create_qp@IBVERBS_1.0: the 1.0 attributes translated to real
    /// objects; the capabilities granted are written back; the real QP's
    /// qp_context points at the 1.0 wrapper.
    fn ibv_create_qp_v10(pd: *mut ibv_pd_1_0, qp_init_attr: *mut ibv_qp_init_attr_1_0) -> *mut ibv_qp_1_0,
        on_panic = ptr::null_mut();
    {
        // SAFETY: dereferenced only when non-NULL.
        ensure!(!pd.is_null() && !qp_init_attr.is_null()
                    && !unsafe { (*qp_init_attr).send_cq }.is_null()
                    && !unsafe { (*qp_init_attr).recv_cq }.is_null(),
                libc::EINVAL, ptr::null_mut());
        let qp = alloc_wrapper::<ibv_qp_1_0>();
        if qp.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: the caller's attributes, whose CQ/SRQ pointers are 1.0 wrappers.
        let a = unsafe { &mut *qp_init_attr };
        // SAFETY: as above.
        let mut real_attr = unsafe {
            ibv_qp_init_attr {
                qp_context: a.qp_context,
                send_cq: (*a.send_cq).real_cq,
                recv_cq: (*a.recv_cq).real_cq,
                srq: if a.srq.is_null() { ptr::null_mut() } else { (*a.srq).real_srq },
                cap: a.cap,
                qp_type: a.qp_type,
                sq_sig_all: a.sq_sig_all,
            }
        };
        // SAFETY: the 1.1 verb on the wrapped PD with the translated attributes.
        let real = unsafe { crate::qp::ibv_create_qp_v11((*pd).real_pd, &mut real_attr) };
        if real.is_null() {
            free_wrapper(qp);
            return ptr::null_mut();
        }
        // SAFETY: our fresh wrapper, the caller's PD wrapper, the live QP.
        unsafe {
            let q = &mut *qp;
            q.context = (*pd).context;
            q.qp_context = a.qp_context;
            q.pd = pd;
            q.send_cq = a.send_cq;
            q.recv_cq = a.recv_cq;
            q.srq = a.srq;
            q.qp_type = a.qp_type;
            q.qp_num = (*real).qp_num;
            q.real_qp = real;
            (*real).qp_context = qp.cast();
        }
        a.cap = real_attr.cap;
        qp
    }
}
symver!(compat ibv_create_qp, "IBVERBS_1.0", ibv_create_qp_v10);

export_versioned! {
    /// ibv_query_qp@IBVERBS_1.0: 0 or an errno value; the initial attributes
    /// name the 1.0 CQ/SRQ wrappers (NULL for none: upstream crashes on a QP
    /// without SRQ).
    fn ibv_query_qp_v10(qp: *mut ibv_qp_1_0, attr: *mut ibv_qp_attr, attr_mask: c_int,
                        init_attr: *mut ibv_qp_init_attr_1_0) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!qp.is_null() && !init_attr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: all-zero is a valid ibv_qp_init_attr.
        let mut real_init: ibv_qp_init_attr = unsafe { std::mem::zeroed() };
        // SAFETY: a wrapper from ibv_create_qp@1.0; the 1.1 verb checks the rest.
        let ret = unsafe { crate::qp::ibv_query_qp_v11((*qp).real_qp, attr, attr_mask, &mut real_init) };
        if ret != 0 {
            return ret;
        }
        // SAFETY: the real CQs/SRQ (when set) carry their 1.0 wrappers in
        // their user-context pointers; the caller's out-parameter.
        unsafe {
            let i = &mut *init_attr;
            i.qp_context = (*qp).qp_context;
            i.send_cq = if real_init.send_cq.is_null() { ptr::null_mut() } else { (*real_init.send_cq).cq_context.cast() };
            i.recv_cq = if real_init.recv_cq.is_null() { ptr::null_mut() } else { (*real_init.recv_cq).cq_context.cast() };
            i.srq = if real_init.srq.is_null() { ptr::null_mut() } else { (*real_init.srq).srq_context.cast() };
            i.qp_type = real_init.qp_type;
            i.cap = real_init.cap;
            i.sq_sig_all = real_init.sq_sig_all;
        }
        0
    }
}
symver!(compat ibv_query_qp, "IBVERBS_1.0", ibv_query_qp_v10);

export_versioned! {
    /// ibv_modify_qp@IBVERBS_1.0: 0 or an errno value.
    fn ibv_modify_qp_v10(qp: *mut ibv_qp_1_0, attr: *mut ibv_qp_attr, attr_mask: c_int) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!qp.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: a wrapper from ibv_create_qp@1.0.
        unsafe { crate::qp::ibv_modify_qp_v11((*qp).real_qp, attr, attr_mask) }
    }
}
symver!(compat ibv_modify_qp, "IBVERBS_1.0", ibv_modify_qp_v10);

export_versioned! {
    /// ibv_destroy_qp@IBVERBS_1.0: 0 or an errno value.
    fn ibv_destroy_qp_v10(qp: *mut ibv_qp_1_0) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!qp.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: a wrapper from ibv_create_qp@1.0.
        let ret = unsafe { crate::qp::ibv_destroy_qp_v11((*qp).real_qp) };
        if ret == 0 {
            free_wrapper(qp);
        }
        ret
    }
}
symver!(compat ibv_destroy_qp, "IBVERBS_1.0", ibv_destroy_qp_v10);

export_versioned! {
    /// ibv_create_ah@IBVERBS_1.0
    fn ibv_create_ah_v10(pd: *mut ibv_pd_1_0, attr: *mut ibv_ah_attr) -> *mut ibv_ah_1_0, on_panic = ptr::null_mut();
    {
        ensure!(!pd.is_null(), libc::EINVAL, ptr::null_mut());
        let ah = alloc_wrapper::<ibv_ah_1_0>();
        if ah.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: the 1.1 verb on the wrapped PD.
        let real = unsafe { crate::ah::ibv_create_ah_v11((*pd).real_pd, attr) };
        if real.is_null() {
            free_wrapper(ah);
            return ptr::null_mut();
        }
        // SAFETY: our fresh wrapper and the caller's PD wrapper.
        unsafe {
            (*ah).context = (*pd).context;
            (*ah).pd = pd;
            (*ah).real_ah = real;
        }
        ah
    }
}
symver!(compat ibv_create_ah, "IBVERBS_1.0", ibv_create_ah_v10);

export_versioned! {
    /// ibv_destroy_ah@IBVERBS_1.0: 0 or an errno value.
    fn ibv_destroy_ah_v10(ah: *mut ibv_ah_1_0) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!ah.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: a wrapper from ibv_create_ah@1.0.
        let ret = unsafe { crate::ah::ibv_destroy_ah_v11((*ah).real_ah) };
        if ret == 0 {
            free_wrapper(ah);
        }
        ret
    }
}
symver!(compat ibv_destroy_ah, "IBVERBS_1.0", ibv_destroy_ah_v10);

export_versioned! {
    /// ibv_attach_mcast@IBVERBS_1.0: 0 or an errno value.
    fn ibv_attach_mcast_v10(qp: *mut ibv_qp_1_0, gid: *const ibv_gid, lid: u16) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!qp.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: a wrapper from ibv_create_qp@1.0.
        unsafe { crate::mcast::ibv_attach_mcast_v11((*qp).real_qp, gid, lid) }
    }
}
symver!(compat ibv_attach_mcast, "IBVERBS_1.0", ibv_attach_mcast_v10);

export_versioned! {
    /// ibv_detach_mcast@IBVERBS_1.0: 0 or an errno value.
    fn ibv_detach_mcast_v10(qp: *mut ibv_qp_1_0, gid: *const ibv_gid, lid: u16) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!qp.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: a wrapper from ibv_create_qp@1.0.
        unsafe { crate::mcast::ibv_detach_mcast_v11((*qp).real_qp, gid, lid) }
    }
}
symver!(compat ibv_detach_mcast, "IBVERBS_1.0", ibv_detach_mcast_v10);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::driver::verbs_mr;
    use rdma_util::ffi::{errno, set_errno};
    use rdma_util::mem::zeroed_unchecked;
    use crate::testkit::ctx::{no_ops, FakeCtx};
    use std::cell::RefCell;

    #[derive(Default)]
    struct Script {
        /// Real objects the provider made and freed, by address.
        made: Vec<usize>,
        freed: Vec<usize>,
        /// The attributes create_qp saw.
        qp_attr: Option<(usize, usize, usize, usize, u32)>,
        /// The send list post_send saw: (wr_id, opcode, ud.ah, remote_qpn).
        sends: Vec<(u64, u32, usize, u32)>,
        /// post_send fails at this index of the list.
        send_fail_at: Option<usize>,
    }

    thread_local! {
        static S: RefCell<Script> = RefCell::new(Script::default());
    }

    fn made<T>(v: T) -> *mut T {
        let p = Box::into_raw(Box::new(v));
        S.with(|s| s.borrow_mut().made.push(p as usize));
        p
    }

    fn freed<T>(p: *mut T) -> c_int {
        S.with(|s| s.borrow_mut().freed.push(p as usize));
        // SAFETY: made by `made` from a Box of this type.
        drop(unsafe { Box::from_raw(p) });
        0
    }

    unsafe extern "C" fn f_alloc_pd(_c: *mut ibv_context) -> *mut ibv_pd {
        // SAFETY: all-zero is a valid ibv_pd (a pointer and an integer).
        made(unsafe { zeroed_unchecked::<ibv_pd>() })
    }
    unsafe extern "C" fn f_dealloc_pd(pd: *mut ibv_pd) -> c_int {
        freed(pd)
    }
    unsafe extern "C" fn f_reg_mr(_pd: *mut ibv_pd, _a: *mut c_void, _l: usize, _i: u64, _acc: c_int) -> *mut ibv_mr {
        // SAFETY: all-zero is a valid verbs_mr (pointers and integers).
        let mut m: verbs_mr = unsafe { zeroed_unchecked() };
        m.ibv_mr.lkey = 0x1111;
        m.ibv_mr.rkey = 0x2222;
        made(m).cast()
    }
    unsafe extern "C" fn f_dereg_mr(m: *mut verbs_mr) -> c_int {
        freed(m)
    }
    unsafe extern "C" fn f_create_cq(_c: *mut ibv_context, cqe: c_int, _ch: *mut ibv_comp_channel, _v: c_int) -> *mut ibv_cq {
        // SAFETY: all-zero is a valid ibv_cq (pointers, integers and pthread
        // objects).
        let mut cq: ibv_cq = unsafe { zeroed_unchecked() };
        cq.cqe = cqe;
        made(cq)
    }
    unsafe extern "C" fn f_destroy_cq(cq: *mut ibv_cq) -> c_int {
        freed(cq)
    }
    unsafe extern "C" fn f_create_srq(pd: *mut ibv_pd, _a: *mut ibv_srq_init_attr) -> *mut ibv_srq {
        // SAFETY: all-zero is a valid ibv_srq (pointers, integers and pthread
        // objects).
        let mut srq: ibv_srq = unsafe { zeroed_unchecked() };
        // Set by the provider (through ibv_cmd_create_srq) upstream.
        // SAFETY: the library's live PD.
        srq.context = unsafe { (*pd).context };
        made(srq)
    }
    unsafe extern "C" fn f_destroy_srq(srq: *mut ibv_srq) -> c_int {
        freed(srq)
    }
    unsafe extern "C" fn f_create_qp(pd: *mut ibv_pd, a: *mut ibv_qp_init_attr) -> *mut ibv_qp {
        // SAFETY: the library's translated attributes.
        let a = unsafe { &mut *a };
        S.with(|s| {
            s.borrow_mut().qp_attr =
                Some((a.qp_context as usize, a.send_cq as usize, a.recv_cq as usize, a.srq as usize, a.qp_type))
        });
        // The provider grants more than asked.
        a.cap.max_send_wr += 1;
        // SAFETY: all-zero is a valid ibv_qp (pointers, integers and pthread
        // objects).
        let mut qp: ibv_qp = unsafe { zeroed_unchecked() };
        qp.qp_num = 0x77;
        // Set by the provider (through ibv_cmd_create_qp) upstream.
        // SAFETY: the library's live PD.
        qp.context = unsafe { (*pd).context };
        qp.qp_type = a.qp_type;
        made(qp)
    }
    unsafe extern "C" fn f_destroy_qp(qp: *mut ibv_qp) -> c_int {
        freed(qp)
    }
    unsafe extern "C" fn f_create_ah(_pd: *mut ibv_pd, _a: *mut ibv_ah_attr) -> *mut ibv_ah {
        // SAFETY: all-zero is a valid ibv_ah (two pointers and an integer).
        made(unsafe { zeroed_unchecked::<ibv_ah>() })
    }
    unsafe extern "C" fn f_destroy_ah(ah: *mut ibv_ah) -> c_int {
        freed(ah)
    }
    unsafe extern "C" fn f_post_send(_qp: *mut ibv_qp, wr: *mut ibv_send_wr, bad: *mut *mut ibv_send_wr) -> c_int {
        let fail_at = S.with(|s| s.borrow().send_fail_at);
        let mut w = wr;
        let mut i = 0;
        while !w.is_null() {
            // SAFETY: the library's converted list.
            let r = unsafe { &*w };
            // SAFETY: reading the ud member, as a UD provider would.
            let (ah, qpn) = unsafe { (r.wr.ud.ah as usize, r.wr.ud.remote_qpn) };
            S.with(|s| s.borrow_mut().sends.push((r.wr_id, r.opcode, ah, qpn)));
            if fail_at == Some(i) {
                // SAFETY: the library's out-parameter.
                unsafe { *bad = w };
                return libc::ENOMEM;
            }
            w = r.next;
            i += 1;
        }
        0
    }

    struct Env {
        fake: FakeCtx,
        ctx10: Box<ibv_context_1_0>,
    }

    fn env() -> Env {
        S.with(|s| *s.borrow_mut() = Script::default());
        let mut fake = FakeCtx::new(0);
        let mut ops = no_ops();
        ops.alloc_pd = Some(f_alloc_pd);
        ops.dealloc_pd = Some(f_dealloc_pd);
        ops.reg_mr = Some(f_reg_mr);
        ops.dereg_mr = Some(f_dereg_mr);
        ops.create_cq = Some(f_create_cq);
        ops.destroy_cq = Some(f_destroy_cq);
        ops.create_srq = Some(f_create_srq);
        ops.destroy_srq = Some(f_destroy_srq);
        ops.create_qp = Some(f_create_qp);
        ops.destroy_qp = Some(f_destroy_qp);
        ops.create_ah = Some(f_create_ah);
        ops.destroy_ah = Some(f_destroy_ah);
        ops.post_send = Some(f_post_send);
        fake.set_ops(&ops);
        // SAFETY: all-zero is a valid ibv_context_1_0 (pointers, integers
        // and an ops table of None entries).
        let mut ctx10: Box<ibv_context_1_0> = Box::new(unsafe { zeroed_unchecked() });
        ctx10.real_context = fake.ctx();
        ctx10.ops.post_send = Some(post_send_1_0);
        Env { fake, ctx10 }
    }

    fn made_count() -> usize {
        S.with(|s| s.borrow().made.len())
    }

    fn all_freed() -> bool {
        S.with(|s| {
            let s = s.borrow();
            let mut a = s.made.clone();
            let mut b = s.freed.clone();
            a.sort();
            b.sort();
            a == b
        })
    }

    #[test]
    fn objects_wrap_their_real_ones_and_are_destroyed_through_them() {
        let mut e = env();
        let c10: *mut ibv_context_1_0 = &mut *e.ctx10;
        let real_ctx = e.fake.ctx();
        // SAFETY: the 1.0 verbs on our wrappers, torn down in reverse order.
        unsafe {
            let pd = ibv_alloc_pd_v10(c10);
            assert!(!pd.is_null());
            assert_eq!((*pd).context, c10);
            assert_eq!((*(*pd).real_pd).context, real_ctx);

            let mut buf = [0u8; 64];
            let mr = ibv_reg_mr_v10(pd, buf.as_mut_ptr().cast(), 64, 0);
            assert!(!mr.is_null());
            assert_eq!(((*mr).context, (*mr).pd), (c10, pd));
            assert_eq!(((*mr).lkey, (*mr).rkey), (0x1111, 0x2222));
            assert_eq!((*(*mr).real_mr).pd, (*pd).real_pd);

            let user = 0x5150 as *mut c_void;
            let cq = ibv_create_cq_v10(c10, 16, user, ptr::null_mut(), 0);
            assert!(!cq.is_null());
            assert_eq!(((*cq).context, (*cq).cq_context, (*cq).cqe), (c10, user, 16));
            // The real CQ points back at its 1.0 wrapper.
            assert_eq!((*(*cq).real_cq).cq_context, cq.cast());

            let mut sattr: ibv_srq_init_attr = std::mem::zeroed();
            sattr.srq_context = 0x5151 as *mut c_void;
            let srq = ibv_create_srq_v10(pd, &mut sattr);
            assert!(!srq.is_null());
            assert_eq!(((*srq).context, (*srq).pd, (*srq).srq_context), (c10, pd, sattr.srq_context));
            assert_eq!((*(*srq).real_srq).srq_context, srq.cast());

            let mut qattr = ibv_qp_init_attr_1_0 {
                qp_context: 0x5152 as *mut c_void,
                send_cq: cq,
                recv_cq: cq,
                srq,
                cap: ibv_qp_cap { max_send_wr: 4, max_recv_wr: 4, max_send_sge: 1, max_recv_sge: 1, max_inline_data: 0 },
                qp_type: IBV_QPT_UD,
                sq_sig_all: 1,
            };
            let qp = ibv_create_qp_v10(pd, &mut qattr);
            assert!(!qp.is_null());
            // The provider saw the real objects.
            let seen = S.with(|s| s.borrow().qp_attr).unwrap();
            assert_eq!(seen, (0x5152, (*cq).real_cq as usize, (*cq).real_cq as usize, (*srq).real_srq as usize, IBV_QPT_UD));
            // The granted capabilities come back to the caller.
            assert_eq!(qattr.cap.max_send_wr, 5);
            let q = &*qp;
            assert_eq!((q.context, q.pd, q.send_cq, q.recv_cq, q.srq), (c10, pd, cq, cq, srq));
            assert_eq!((q.qp_num, q.qp_type, q.qp_context), (0x77, IBV_QPT_UD, qattr.qp_context));
            assert_eq!((*q.real_qp).qp_context, qp.cast());

            let mut aattr: ibv_ah_attr = std::mem::zeroed();
            let ah = ibv_create_ah_v10(pd, &mut aattr);
            assert!(!ah.is_null());
            assert_eq!(((*ah).context, (*ah).pd), (c10, pd));
            assert_eq!((*(*ah).real_ah).pd, (*pd).real_pd);

            assert_eq!(made_count(), 6);
            assert_eq!(ibv_destroy_ah_v10(ah), 0);
            assert_eq!(ibv_destroy_qp_v10(qp), 0);
            assert_eq!(ibv_destroy_srq_v10(srq), 0);
            assert_eq!(ibv_destroy_cq_v10(cq), 0);
            assert_eq!(ibv_dereg_mr_v10(mr), 0);
            assert_eq!(ibv_dealloc_pd_v10(pd), 0);
        }
        assert!(all_freed());
    }

    #[test]
    fn null_arguments_are_einval_in_each_convention() {
        let mut e = env();
        let c10: *mut ibv_context_1_0 = &mut *e.ctx10;
        // SAFETY: NULL arguments are refused before any use.
        unsafe {
            set_errno(0);
            assert!(ibv_alloc_pd_v10(ptr::null_mut()).is_null());
            assert_eq!(errno(), libc::EINVAL);
            assert_eq!(ibv_dealloc_pd_v10(ptr::null_mut()), libc::EINVAL);
            assert_eq!(ibv_destroy_qp_v10(ptr::null_mut()), libc::EINVAL);
            assert_eq!(ibv_modify_qp_v10(ptr::null_mut(), ptr::null_mut(), 0), libc::EINVAL);
            assert_eq!(ibv_query_gid_v10(ptr::null_mut(), 1, 0, ptr::null_mut()), -1);
            assert_eq!(ibv_query_pkey_v10(ptr::null_mut(), 1, 0, ptr::null_mut()), -1);
            assert_eq!(ibv_get_async_event_v10(c10, ptr::null_mut()), -1);
            let mut cq: *mut ibv_cq_1_0 = ptr::null_mut();
            assert_eq!(ibv_get_cq_event_v10(ptr::null_mut(), &mut cq, ptr::null_mut()), -1);
            // A QP without CQs: upstream dereferences them.
            let pd = ibv_alloc_pd_v10(c10);
            let mut qattr: ibv_qp_init_attr_1_0 = std::mem::zeroed();
            set_errno(0);
            assert!(ibv_create_qp_v10(pd, &mut qattr).is_null());
            assert_eq!(errno(), libc::EINVAL);
            // The failed create left no wrapper or real QP behind.
            assert_eq!(made_count(), 1);
            assert_eq!(ibv_dealloc_pd_v10(pd), 0);
        }
        assert!(all_freed());
    }

    #[test]
    fn async_events_carry_the_1_0_wrappers_and_are_acked_with_the_real_objects() {
        // SAFETY: all-zero is a valid ibv_cq, ibv_qp and ibv_srq (pointers,
        // integers and pthread objects that are never used here).
        let mut cq: ibv_cq = unsafe { std::mem::zeroed() };
        let mut qp: ibv_qp = unsafe { std::mem::zeroed() };
        let mut srq: ibv_srq = unsafe { std::mem::zeroed() };
        // SAFETY: the 1.0 wrappers are valid all-zero too (pointers,
        // integers and pthread objects).
        let mut cq10: Box<ibv_cq_1_0> = Box::new(unsafe { zeroed_unchecked() });
        let mut qp10: Box<ibv_qp_1_0> = Box::new(unsafe { zeroed_unchecked() });
        let mut srq10: Box<ibv_srq_1_0> = Box::new(unsafe { zeroed_unchecked() });
        cq10.real_cq = &mut cq;
        qp10.real_qp = &mut qp;
        srq10.real_srq = &mut srq;
        cq.cq_context = (&mut *cq10 as *mut ibv_cq_1_0).cast();
        qp.qp_context = (&mut *qp10 as *mut ibv_qp_1_0).cast();
        srq.srq_context = (&mut *srq10 as *mut ibv_srq_1_0).cast();

        let cases: [(ibv_event_type, usize, usize); 6] = [
            (IBV_EVENT_CQ_ERR, &mut cq as *mut _ as usize, &mut *cq10 as *mut _ as usize),
            (IBV_EVENT_QP_FATAL, &mut qp as *mut _ as usize, &mut *qp10 as *mut _ as usize),
            (IBV_EVENT_QP_LAST_WQE_REACHED, &mut qp as *mut _ as usize, &mut *qp10 as *mut _ as usize),
            (IBV_EVENT_COMM_EST, &mut qp as *mut _ as usize, &mut *qp10 as *mut _ as usize),
            (IBV_EVENT_SRQ_LIMIT_REACHED, &mut srq as *mut _ as usize, &mut *srq10 as *mut _ as usize),
            (IBV_EVENT_SRQ_ERR, &mut srq as *mut _ as usize, &mut *srq10 as *mut _ as usize),
        ];
        for (t, real, wrapper) in cases {
            let mut ev = ibv_async_event { element: ibv_async_event_element { cq: real as *mut ibv_cq }, event_type: t };
            // SAFETY: the element is one of the live objects above.
            unsafe { event_to_1_0(&mut ev) };
            // SAFETY: reading the pointer member written above.
            assert_eq!(unsafe { ev.element.cq } as usize, wrapper, "event {t}");
            // SAFETY: the element is the wrapper now.
            let back = unsafe { event_from_1_0(&ev) };
            // SAFETY: as above.
            assert_eq!(unsafe { back.element.cq } as usize, real, "event {t}");
            assert_eq!(back.event_type, t);
        }
        // Port events are left alone.
        let mut ev = ibv_async_event { element: ibv_async_event_element { port_num: 1 }, event_type: IBV_EVENT_PORT_ACTIVE };
        // SAFETY: a port event touches no object.
        unsafe { event_to_1_0(&mut ev) };
        // SAFETY: the member written above.
        assert_eq!(unsafe { ev.element.port_num }, 1);
    }

    #[test]
    fn post_send_converts_ud_requests_and_maps_bad_wr() {
        let mut e = env();
        let c10: *mut ibv_context_1_0 = &mut *e.ctx10;
        // SAFETY: the 1.0 verbs on our wrappers; lists live on this stack.
        unsafe {
            let pd = ibv_alloc_pd_v10(c10);
            let cq = ibv_create_cq_v10(c10, 4, ptr::null_mut(), ptr::null_mut(), 0);
            let mut qattr: ibv_qp_init_attr_1_0 = std::mem::zeroed();
            qattr.send_cq = cq;
            qattr.recv_cq = cq;
            qattr.qp_type = IBV_QPT_UD;
            let qp = ibv_create_qp_v10(pd, &mut qattr);
            let mut aattr: ibv_ah_attr = std::mem::zeroed();
            let ah = ibv_create_ah_v10(pd, &mut aattr);
            let real_ah = (*ah).real_ah as usize;

            let mut sge = ibv_sge { addr: 0x1000, length: 8, lkey: 3 };
            let sgp: *mut ibv_sge = &mut sge;
            let mk = |id: u64| ibv_send_wr_1_0 {
                next: ptr::null_mut(),
                wr_id: id,
                sg_list: sgp,
                num_sge: 1,
                opcode: IBV_WR_SEND,
                send_flags: 0,
                imm_data: 0,
                wr: ibv_send_wr_1_0_wr { ud: ibv_send_wr_1_0_ud { ah, remote_qpn: 0x40 + id as u32, remote_qkey: 9 } },
            };
            let mut w = [mk(1), mk(2), mk(3)];
            w[0].next = &mut w[1];
            w[1].next = &mut w[2];
            let post = (*c10).ops.post_send.unwrap();
            let mut bad: *mut ibv_send_wr_1_0 = ptr::null_mut();
            assert_eq!(post(qp, &mut w[0], &mut bad), 0);
            let sends = S.with(|s| std::mem::take(&mut s.borrow_mut().sends));
            assert_eq!(sends, vec![(1, IBV_WR_SEND, real_ah, 0x41), (2, IBV_WR_SEND, real_ah, 0x42),
                                   (3, IBV_WR_SEND, real_ah, 0x43)]);
            assert!(bad.is_null());

            // The provider refuses the second request: bad_wr names the caller's.
            S.with(|s| s.borrow_mut().send_fail_at = Some(1));
            assert_eq!(post(qp, &mut w[0], &mut bad), libc::ENOMEM);
            assert_eq!(bad, &mut w[1] as *mut _);

            assert_eq!(ibv_destroy_ah_v10(ah), 0);
            assert_eq!(ibv_destroy_qp_v10(qp), 0);
            assert_eq!(ibv_destroy_cq_v10(cq), 0);
            assert_eq!(ibv_dealloc_pd_v10(pd), 0);
        }
        assert!(all_freed());
    }
}
