//! The IBVERBS_1.0 interface: binaries linked against libibverbs 1.0 call the
//! `@IBVERBS_1.0` versions of the entry points, which take and return the old
//! 1.0 structures. Each 1.0 object wraps the real one (`real_*`).
//!
//! Implemented so far: the device list, device name/GUID, open/close (with the
//! 1.0 context's data-path wrappers). The remaining 1.0 object functions come
//! with the complete ABI issue.

use std::ffi::{c_char, c_int, c_void};
use std::ptr;

use crate::abi::verbs::*;
use crate::{ensure, export_versioned, symver};

/// struct ibv_device_1_0
#[repr(C)]
pub struct ibv_device_1_0 {
    pub obsolete_sysfs_dev: *mut c_void,
    pub obsolete_sysfs_ibdev: *mut c_void,
    pub real_device: *mut ibv_device,
    pub _ops: _ibv_device_ops,
}

/// struct ibv_cq_1_0
#[repr(C)]
pub struct ibv_cq_1_0 {
    pub context: *mut ibv_context_1_0,
    pub cq_context: *mut c_void,
    pub handle: u32,
    pub cqe: c_int,
    pub mutex: libc::pthread_mutex_t,
    pub cond: libc::pthread_cond_t,
    pub comp_events_completed: u32,
    pub async_events_completed: u32,
    pub real_cq: *mut ibv_cq,
}

/// struct ibv_srq_1_0
#[repr(C)]
pub struct ibv_srq_1_0 {
    pub context: *mut ibv_context_1_0,
    pub srq_context: *mut c_void,
    pub pd: *mut c_void,
    pub handle: u32,
    pub mutex: libc::pthread_mutex_t,
    pub cond: libc::pthread_cond_t,
    pub events_completed: u32,
    pub real_srq: *mut ibv_srq,
}

/// struct ibv_qp_1_0
#[repr(C)]
pub struct ibv_qp_1_0 {
    pub context: *mut ibv_context_1_0,
    pub qp_context: *mut c_void,
    pub pd: *mut c_void,
    pub send_cq: *mut ibv_cq_1_0,
    pub recv_cq: *mut ibv_cq_1_0,
    pub srq: *mut ibv_srq_1_0,
    pub handle: u32,
    pub qp_num: u32,
    pub state: ibv_qp_state,
    pub qp_type: ibv_qp_type,
    pub mutex: libc::pthread_mutex_t,
    pub cond: libc::pthread_cond_t,
    pub events_completed: u32,
    pub real_qp: *mut ibv_qp,
}

/// struct ibv_ah_1_0
#[repr(C)]
pub struct ibv_ah_1_0 {
    pub context: *mut ibv_context_1_0,
    pub pd: *mut c_void,
    pub handle: u32,
    pub real_ah: *mut ibv_ah,
}

/// struct ibv_recv_wr_1_0 (`next` came first in 1.0).
#[repr(C)]
pub struct ibv_recv_wr_1_0 {
    pub next: *mut ibv_recv_wr_1_0,
    pub wr_id: u64,
    pub sg_list: *mut ibv_sge,
    pub num_sge: c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_send_wr_1_0_ud {
    pub ah: *mut ibv_ah_1_0,
    pub remote_qpn: u32,
    pub remote_qkey: u32,
}

/// The 1.0 `wr` union: the same 32 bytes as today's, with a 1.0 AH pointer.
#[repr(C)]
#[derive(Clone, Copy)]
pub union ibv_send_wr_1_0_wr {
    pub raw: [u64; 4],
    pub ud: ibv_send_wr_1_0_ud,
}

/// struct ibv_send_wr_1_0
#[repr(C)]
pub struct ibv_send_wr_1_0 {
    pub next: *mut ibv_send_wr_1_0,
    pub wr_id: u64,
    pub sg_list: *mut ibv_sge,
    pub num_sge: c_int,
    pub opcode: ibv_wr_opcode,
    pub send_flags: c_int,
    pub imm_data: u32,
    pub wr: ibv_send_wr_1_0_wr,
}

type Fp = Option<unsafe extern "C" fn()>;

/// struct ibv_context_ops_1_0: only the five data-path entries are ever set.
#[repr(C)]
pub struct ibv_context_ops_1_0 {
    pub query_device: Fp,
    pub query_port: Fp,
    pub alloc_pd: Fp,
    pub dealloc_pd: Fp,
    pub reg_mr: Fp,
    pub dereg_mr: Fp,
    pub create_cq: Fp,
    pub poll_cq: Option<unsafe extern "C" fn(*mut ibv_cq_1_0, c_int, *mut ibv_wc) -> c_int>,
    pub req_notify_cq: Option<unsafe extern "C" fn(*mut ibv_cq_1_0, c_int) -> c_int>,
    pub cq_event: Fp,
    pub resize_cq: Fp,
    pub destroy_cq: Fp,
    pub create_srq: Fp,
    pub modify_srq: Fp,
    pub query_srq: Fp,
    pub destroy_srq: Fp,
    pub post_srq_recv:
        Option<unsafe extern "C" fn(*mut ibv_srq_1_0, *mut ibv_recv_wr_1_0, *mut *mut ibv_recv_wr_1_0) -> c_int>,
    pub create_qp: Fp,
    pub query_qp: Fp,
    pub modify_qp: Fp,
    pub destroy_qp: Fp,
    pub post_send:
        Option<unsafe extern "C" fn(*mut ibv_qp_1_0, *mut ibv_send_wr_1_0, *mut *mut ibv_send_wr_1_0) -> c_int>,
    pub post_recv:
        Option<unsafe extern "C" fn(*mut ibv_qp_1_0, *mut ibv_recv_wr_1_0, *mut *mut ibv_recv_wr_1_0) -> c_int>,
    pub create_ah: Fp,
    pub destroy_ah: Fp,
    pub attach_mcast: Fp,
    pub detach_mcast: Fp,
}

/// struct ibv_context_1_0
#[repr(C)]
pub struct ibv_context_1_0 {
    pub device: *mut ibv_device_1_0,
    pub ops: ibv_context_ops_1_0,
    pub cmd_fd: c_int,
    pub async_fd: c_int,
    pub num_comp_vectors: c_int,
    pub real_context: *mut ibv_context,
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
    let mut olds = Vec::new();
    let mut w = wr;
    while !w.is_null() {
        olds.push(w);
        // SAFETY: walking the caller's list.
        w = unsafe { (*w).next };
    }
    // SAFETY: all-zero is a valid ibv_recv_wr.
    let mut reals: Vec<ibv_recv_wr> = olds.iter().map(|_| unsafe { std::mem::zeroed() }).collect();
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
    let mut olds = Vec::new();
    let mut w = wr;
    while !w.is_null() {
        olds.push(w);
        // SAFETY: walking the caller's list.
        w = unsafe { (*w).next };
    }
    // SAFETY: all-zero is a valid ibv_send_wr.
    let mut reals: Vec<ibv_send_wr> = olds.iter().map(|_| unsafe { std::mem::zeroed() }).collect();
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
        let real = crate::device::get_device_list(&mut n);
        if real.is_null() {
            return ptr::null_mut();
        }
        let n = n as usize;
        // SAFETY: n + 2 pointer slots, zeroed; freed by ibv_free_device_list@1.0.
        let l = unsafe { libc::calloc(n + 2, std::mem::size_of::<*mut c_void>()) }.cast::<*mut ibv_device_1_0>();
        if l.is_null() {
            // SAFETY: the list we just got.
            unsafe { crate::device::free_device_list(real) };
            crate::ffi::set_errno(libc::ENOMEM);
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
                crate::ffi::set_errno(libc::ENOMEM);
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
        ensure!(!list.is_null(), libc::EINVAL, ());
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
            crate::ffi::set_errno(libc::ENOMEM);
            return ptr::null_mut();
        }
        // SAFETY: a wrapper from ibv_get_device_list@1.0.
        let real = crate::context::open_device(unsafe { (*device).real_device }, ptr::null_mut());
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
        // SAFETY: a wrapper from ibv_open_device@1.0.
        let ret = crate::context::close_device(unsafe { (*context).real_context });
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
