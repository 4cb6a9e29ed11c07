//! The ops a provider leaves unset, as rdma-core 65's verbs_dummy_ops defines
//! them. Almost all return EOPNOTSUPP (as a return value, or as errno with a
//! NULL/-1 result) or do nothing; two have real defaults: `alloc_buf`/
//! `free_buf` hand out page-aligned heap memory, and `reg_mr_ex` turns its
//! request into the provider's `reg_mr` or `reg_dmabuf_mr`. Contexts start
//! with this table and the provider overrides entries with verbs_set_ops().
//!
//! The table is the superset of every private ABI we serve (65's): a context
//! of a PABI 34 provider gets the dummies for the ops 34 does not have.

use std::ffi::{c_int, c_uint, c_void};
use std::ptr::null_mut;

use crate::abi::driver65::*;
use crate::abi::verbs65::*;
use rdma_util::ffi::set_errno;

const EOPNOTSUPP: c_int = libc::EOPNOTSUPP;

/// Generates dummy functions that set errno = EOPNOTSUPP and return NULL.
macro_rules! null_ops {
    ($($name:ident($($t:ty),*) -> $ret:ty;)*) => {$(
        unsafe extern "C" fn $name($(_: $t),*) -> *mut $ret {
            set_errno(EOPNOTSUPP);
            null_mut()
        }
    )*};
}

/// Generates dummy functions that return EOPNOTSUPP.
macro_rules! err_ops {
    ($($name:ident($($t:ty),*);)*) => {$(
        unsafe extern "C" fn $name($(_: $t),*) -> c_int {
            EOPNOTSUPP
        }
    )*};
}

/// Generates dummy functions that do nothing.
macro_rules! void_ops {
    ($($name:ident($($t:ty),*);)*) => {$(
        unsafe extern "C" fn $name($(_: $t),*) {}
    )*};
}

null_ops! {
    alloc_dm(*mut ibv_context, *mut ibv_alloc_dm_attr) -> ibv_dm;
    alloc_mw(*mut ibv_pd, ibv_mw_type) -> ibv_mw;
    alloc_null_mr(*mut ibv_pd) -> ibv_mr;
    alloc_parent_domain(*mut ibv_context, *mut ibv_parent_domain_init_attr) -> ibv_pd;
    alloc_pd(*mut ibv_context) -> ibv_pd;
    alloc_td(*mut ibv_context, *mut ibv_td_init_attr) -> ibv_td;
    create_ah(*mut ibv_pd, *mut ibv_ah_attr) -> ibv_ah;
    create_counters(*mut ibv_context, *mut ibv_counters_init_attr) -> ibv_counters;
    create_cq(*mut ibv_context, c_int, *mut ibv_comp_channel, c_int) -> ibv_cq;
    create_cq_ex(*mut ibv_context, *mut ibv_cq_init_attr_ex) -> ibv_cq_ex;
    create_flow(*mut ibv_qp, *mut ibv_flow_attr) -> ibv_flow;
    create_flow_action_esp(*mut ibv_context, *mut ibv_flow_action_esp_attr) -> ibv_flow_action;
    create_qp(*mut ibv_pd, *mut ibv_qp_init_attr) -> ibv_qp;
    create_qp_ex(*mut ibv_context, *mut ibv_qp_init_attr_ex) -> ibv_qp;
    create_rwq_ind_table(*mut ibv_context, *mut ibv_rwq_ind_table_init_attr) -> ibv_rwq_ind_table;
    create_srq(*mut ibv_pd, *mut ibv_srq_init_attr) -> ibv_srq;
    create_srq_ex(*mut ibv_context, *mut ibv_srq_init_attr_ex) -> ibv_srq;
    create_wq(*mut ibv_context, *mut ibv_wq_init_attr) -> ibv_wq;
    alloc_dmah(*mut ibv_context, *mut ibv_dmah_init_attr) -> ibv_dmah;
    create_comp_cntr(*mut ibv_context, *mut ibv_comp_cntr_init_attr) -> ibv_comp_cntr;
    import_dm(*mut ibv_context, u32) -> ibv_dm;
    import_mr(*mut ibv_pd, u32) -> ibv_mr;
    import_pd(*mut ibv_context, u32) -> ibv_pd;
    open_qp(*mut ibv_context, *mut ibv_qp_open_attr) -> ibv_qp;
    open_xrcd(*mut ibv_context, *mut ibv_xrcd_init_attr) -> ibv_xrcd;
    reg_dm_mr(*mut ibv_pd, *mut ibv_dm, u64, usize, c_uint) -> ibv_mr;
    reg_dmabuf_mr(*mut ibv_pd, u64, usize, u64, c_int, c_int) -> ibv_mr;
    reg_mr(*mut ibv_pd, *mut c_void, usize, u64, c_int) -> ibv_mr;
}

err_ops! {
    advise_mr(*mut ibv_pd, ibv_advise_mr_advice, u32, *mut ibv_sge, u32);
    attach_counters_point_flow(*mut ibv_counters, *mut ibv_counter_attach_attr, *mut ibv_flow);
    attach_mcast(*mut ibv_qp, *const ibv_gid, u16);
    bind_mw(*mut ibv_qp, *mut ibv_mw, *mut ibv_mw_bind);
    close_xrcd(*mut ibv_xrcd);
    dealloc_mw(*mut ibv_mw);
    dealloc_pd(*mut ibv_pd);
    dealloc_td(*mut ibv_td);
    dereg_mr(*mut verbs_mr);
    destroy_ah(*mut ibv_ah);
    destroy_counters(*mut ibv_counters);
    destroy_cq(*mut ibv_cq);
    destroy_flow(*mut ibv_flow);
    destroy_flow_action(*mut ibv_flow_action);
    destroy_qp(*mut ibv_qp);
    destroy_rwq_ind_table(*mut ibv_rwq_ind_table);
    destroy_srq(*mut ibv_srq);
    destroy_wq(*mut ibv_wq);
    detach_mcast(*mut ibv_qp, *const ibv_gid, u16);
    free_dm(*mut ibv_dm);
    get_srq_num(*mut ibv_srq, *mut u32);
    modify_cq(*mut ibv_cq, *mut ibv_modify_cq_attr);
    modify_flow_action_esp(*mut ibv_flow_action, *mut ibv_flow_action_esp_attr);
    modify_qp(*mut ibv_qp, *mut ibv_qp_attr, c_int);
    modify_qp_rate_limit(*mut ibv_qp, *mut ibv_qp_rate_limit_attr);
    modify_srq(*mut ibv_srq, *mut ibv_srq_attr, c_int);
    modify_wq(*mut ibv_wq, *mut ibv_wq_attr);
    poll_cq(*mut ibv_cq, c_int, *mut ibv_wc);
    post_recv(*mut ibv_qp, *mut ibv_recv_wr, *mut *mut ibv_recv_wr);
    post_send(*mut ibv_qp, *mut ibv_send_wr, *mut *mut ibv_send_wr);
    post_srq_ops(*mut ibv_srq, *mut ibv_ops_wr, *mut *mut ibv_ops_wr);
    post_srq_recv(*mut ibv_srq, *mut ibv_recv_wr, *mut *mut ibv_recv_wr);
    query_device_ex(*mut ibv_context, *const ibv_query_device_ex_input, *mut ibv_device_attr_ex, usize);
    query_ece(*mut ibv_qp, *mut ibv_ece);
    query_port(*mut ibv_context, u8, *mut ibv_port_attr);
    query_qp(*mut ibv_qp, *mut ibv_qp_attr, c_int, *mut ibv_qp_init_attr);
    query_rt_values(*mut ibv_context, *mut ibv_values_ex);
    query_srq(*mut ibv_srq, *mut ibv_srq_attr);
    read_counters(*mut ibv_counters, *mut u64, u32, u32);
    req_notify_cq(*mut ibv_cq, c_int);
    resize_cq(*mut ibv_cq, c_int);
    set_ece(*mut ibv_qp, *mut ibv_ece);
    dealloc_dmah(*mut ibv_dmah);
    destroy_comp_cntr(*mut ibv_comp_cntr);
    inc_comp_cntr(*mut ibv_comp_cntr, u64);
    inc_err_comp_cntr(*mut ibv_comp_cntr, u64);
    qp_attach_comp_cntr(*mut ibv_qp, *mut ibv_comp_cntr, *mut ibv_qp_attach_comp_cntr_attr);
    query_comp_cntr_caps(*mut ibv_context, *mut ibv_comp_cntr_caps, usize);
    query_port_speed(*mut ibv_context, u32, *mut u64);
    read_comp_cntr(*mut ibv_comp_cntr, *mut u64);
    read_err_comp_cntr(*mut ibv_comp_cntr, *mut u64);
    set_comp_cntr(*mut ibv_comp_cntr, u64);
    set_err_comp_cntr(*mut ibv_comp_cntr, u64);
}

void_ops! {
    async_event(*mut ibv_context, *mut ibv_async_event);
    cq_event(*mut ibv_cq);
    free_context(*mut ibv_context);
    unimport_dm(*mut ibv_dm);
    unimport_mr(*mut ibv_mr);
    unimport_pd(*mut ibv_pd);
}

/// 0: no in-order delivery guarantee is known for any opcode.
unsafe extern "C" fn query_qp_data_in_order(_: *mut ibv_qp, _: ibv_wr_opcode, _: u32) -> c_int {
    0
}

unsafe extern "C" fn rereg_mr(
    _: *mut verbs_mr,
    _: c_int,
    _: *mut ibv_pd,
    _: *mut c_void,
    _: usize,
    _: c_int,
) -> c_int {
    set_errno(EOPNOTSUPP);
    IBV_REREG_MR_ERR_INPUT
}

/// -1 with errno EOPNOTSUPP: no dma-buf export of device memory.
unsafe extern "C" fn dm_export_dmabuf_fd(_: *mut ibv_dm) -> c_int {
    set_errno(EOPNOTSUPP);
    -1
}

/// The default buffer of `ibv_alloc_buf`: page-aligned heap memory with a
/// handle that says so (no dma-buf). NULL with errno set on failure.
unsafe extern "C" fn alloc_buf(pd: *mut ibv_pd, size: usize, buf: *mut *mut ibv_buf) -> *mut c_void {
    // SAFETY: calloc of one plain-data handle; checked below.
    let handle = unsafe { libc::calloc(1, std::mem::size_of::<ibv_buf>()) }.cast::<ibv_buf>();
    if handle.is_null() {
        set_errno(libc::ENOMEM);
        return null_mut();
    }
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(1) as usize;
    let mut mem = null_mut();
    // SAFETY: `mem` receives the allocation; page is a power of two and a
    // multiple of the pointer size.
    let ret = unsafe { libc::posix_memalign(&mut mem, page, size) };
    if ret != 0 {
        // SAFETY: allocated above, not shared.
        unsafe { libc::free(handle.cast()) };
        set_errno(ret);
        return null_mut();
    }
    // SAFETY: the fresh handle, and the caller's out-pointer (the public
    // ibv_alloc_buf checks it).
    unsafe {
        handle.write(ibv_buf { addr: mem, size, pd, dmabuf_fd: -1 });
        *buf = handle;
    }
    mem
}

/// Frees what the default `alloc_buf` handed out.
unsafe extern "C" fn free_buf(buf: *mut ibv_buf) {
    if buf.is_null() {
        return;
    }
    // SAFETY: a handle of the default alloc_buf: both blocks come from the C
    // heap and are freed once.
    unsafe {
        libc::free((*buf).addr);
        libc::free(buf.cast());
    }
}

/// Without a provider `reg_mr_ex`: the request as one of the older
/// registrations, user memory (`reg_mr`) or a dma-buf (`reg_dmabuf_mr`). What
/// they cannot express (a DMA handle, a buffer) is EOPNOTSUPP; contradictory
/// masks are EINVAL. The public ibv_reg_mr_ex has already done fork handling.
unsafe extern "C" fn reg_mr_ex(pd: *mut ibv_pd, attr: *mut ibv_mr_init_attr) -> *mut ibv_mr {
    let supported = (IBV_REG_MR_MASK_IOVA | IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET) as u64;
    // SAFETY: the public ibv_reg_mr_ex passes a live PD and the caller's
    // attributes.
    let (a, ops) = unsafe { (&*attr, crate::ctx_priv::ops_of((*pd).context)) };
    let mask = a.comp_mask;
    if mask & !supported != 0 {
        set_errno(EOPNOTSUPP);
        return null_mut();
    }
    let has = |bit: ibv_mr_init_attr_mask| mask & bit as u64 != 0;
    if has(IBV_REG_MR_MASK_FD) {
        if has(IBV_REG_MR_MASK_ADDR) || !has(IBV_REG_MR_MASK_FD_OFFSET) || !has(IBV_REG_MR_MASK_IOVA) {
            set_errno(libc::EINVAL);
            return null_mut();
        }
        let Some(f) = ops.reg_dmabuf_mr else { return null_mut() };
        // SAFETY: the context's op with the caller's PD and values.
        return unsafe { f(pd, a.fd_offset, a.length, a.iova, a.fd, a.access) };
    }
    if !has(IBV_REG_MR_MASK_ADDR) || has(IBV_REG_MR_MASK_FD_OFFSET) {
        set_errno(libc::EINVAL);
        return null_mut();
    }
    let iova = if has(IBV_REG_MR_MASK_IOVA) { a.iova } else { a.addr as u64 };
    let Some(f) = ops.reg_mr else { return null_mut() };
    // SAFETY: the context's op with the caller's PD and values.
    unsafe { f(pd, a.addr, a.length, iova, a.access) }
}

/// The complete dummy table (every field set: contexts start from it). A
/// static, so that a new context copies it rather than running ~100
/// stores built for the occasion (first-executed code on the device open).
pub(crate) static DUMMY_OPS: verbs_context_ops = verbs_context_ops {
    advise_mr: Some(advise_mr),
    alloc_buf: Some(alloc_buf),
    alloc_dm: Some(alloc_dm),
    alloc_dmah: Some(alloc_dmah),
    alloc_mw: Some(alloc_mw),
    alloc_null_mr: Some(alloc_null_mr),
    alloc_parent_domain: Some(alloc_parent_domain),
    alloc_pd: Some(alloc_pd),
    alloc_td: Some(alloc_td),
    async_event: Some(async_event),
    attach_counters_point_flow: Some(attach_counters_point_flow),
    attach_mcast: Some(attach_mcast),
    bind_mw: Some(bind_mw),
    close_xrcd: Some(close_xrcd),
    cq_event: Some(cq_event),
    create_ah: Some(create_ah),
    create_comp_cntr: Some(create_comp_cntr),
    create_counters: Some(create_counters),
    create_cq: Some(create_cq),
    create_cq_ex: Some(create_cq_ex),
    create_flow: Some(create_flow),
    create_flow_action_esp: Some(create_flow_action_esp),
    create_qp: Some(create_qp),
    create_qp_ex: Some(create_qp_ex),
    create_rwq_ind_table: Some(create_rwq_ind_table),
    create_srq: Some(create_srq),
    create_srq_ex: Some(create_srq_ex),
    create_wq: Some(create_wq),
    dealloc_dmah: Some(dealloc_dmah),
    dealloc_mw: Some(dealloc_mw),
    dealloc_pd: Some(dealloc_pd),
    dealloc_td: Some(dealloc_td),
    dereg_mr: Some(dereg_mr),
    destroy_ah: Some(destroy_ah),
    destroy_comp_cntr: Some(destroy_comp_cntr),
    destroy_counters: Some(destroy_counters),
    destroy_cq: Some(destroy_cq),
    destroy_flow: Some(destroy_flow),
    destroy_flow_action: Some(destroy_flow_action),
    destroy_qp: Some(destroy_qp),
    destroy_rwq_ind_table: Some(destroy_rwq_ind_table),
    destroy_srq: Some(destroy_srq),
    destroy_wq: Some(destroy_wq),
    detach_mcast: Some(detach_mcast),
    dm_export_dmabuf_fd: Some(dm_export_dmabuf_fd),
    free_buf: Some(free_buf),
    free_context: Some(free_context),
    free_dm: Some(free_dm),
    get_srq_num: Some(get_srq_num),
    import_dm: Some(import_dm),
    import_mr: Some(import_mr),
    import_pd: Some(import_pd),
    inc_comp_cntr: Some(inc_comp_cntr),
    inc_err_comp_cntr: Some(inc_err_comp_cntr),
    modify_cq: Some(modify_cq),
    modify_flow_action_esp: Some(modify_flow_action_esp),
    modify_qp: Some(modify_qp),
    modify_qp_rate_limit: Some(modify_qp_rate_limit),
    modify_srq: Some(modify_srq),
    modify_wq: Some(modify_wq),
    open_qp: Some(open_qp),
    open_xrcd: Some(open_xrcd),
    poll_cq: Some(poll_cq),
    post_recv: Some(post_recv),
    post_send: Some(post_send),
    post_srq_ops: Some(post_srq_ops),
    post_srq_recv: Some(post_srq_recv),
    qp_attach_comp_cntr: Some(qp_attach_comp_cntr),
    query_comp_cntr_caps: Some(query_comp_cntr_caps),
    query_device_ex: Some(query_device_ex),
    query_ece: Some(query_ece),
    query_port: Some(query_port),
    query_port_speed: Some(query_port_speed),
    query_qp: Some(query_qp),
    query_qp_data_in_order: Some(query_qp_data_in_order),
    query_rt_values: Some(query_rt_values),
    query_srq: Some(query_srq),
    read_comp_cntr: Some(read_comp_cntr),
    read_counters: Some(read_counters),
    read_err_comp_cntr: Some(read_err_comp_cntr),
    reg_dm_mr: Some(reg_dm_mr),
    reg_dmabuf_mr: Some(reg_dmabuf_mr),
    reg_mr: Some(reg_mr),
    reg_mr_ex: Some(reg_mr_ex),
    req_notify_cq: Some(req_notify_cq),
    rereg_mr: Some(rereg_mr),
    resize_cq: Some(resize_cq),
    set_comp_cntr: Some(set_comp_cntr),
    set_ece: Some(set_ece),
    set_err_comp_cntr: Some(set_err_comp_cntr),
    unimport_dm: Some(unimport_dm),
    unimport_mr: Some(unimport_mr),
    unimport_pd: Some(unimport_pd),
};
