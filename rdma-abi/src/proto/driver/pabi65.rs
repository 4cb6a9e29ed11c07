//! The private functions of IBVERBS_PRIVATE_65, as rdma-core 65 declares
//! them: one function-pointer type per function, named as the function,
//! written with the layouts of [`crate::driver::pabi65`] and 65's public
//! types ([`crate::verbs_v65`]).
//!
//! The functions whose prototype is the same as under IBVERBS_PRIVATE_34
//! are re-exported from [`super::pabi34`], by name, so that each one is a
//! decision. Defined here:
//! - those that take a structure whose layout changed in 65:
//!   `verbs_context` (`_verbs_init_and_alloc_context`,
//!   `verbs_uninit_context`, `verbs_set_ops` with 65's ops table,
//!   `__verbs_log`), `verbs_qp` (`ibv_cmd_create_qp_ex`, `ibv_cmd_open_qp`),
//!   `ibv_port_attr` (`ibv_cmd_query_port`), `verbs_device_ops`
//!   (`verbs_register_driver_65`, the same layout under 65's name);
//! - those that take more arguments: `ibv_cmd_get_context` an fd array,
//!   `ibv_cmd_create_cq_ex` and `_ex2` the CQ memory a provider allocated
//!   (`prov_attr`), `ibv_cmd_create_qp_ex2` a `driver` command buffer;
//! - the functions new in 65: DMA handles, dma-buf export, extended MR
//!   registration, the port speed, completion counters, and the DMA-buf
//!   heap of `dmabuf_heap.h`.

use core::ffi::{c_char, c_int, c_void};

use crate::driver::pabi65::*;
use crate::kern::*;
use crate::verbs_v65::*;

pub use super::pabi34::{
    __ioctl_final_num_attrs, execute_ioctl, ibv_cmd_advise_mr, ibv_cmd_alloc_dm, ibv_cmd_alloc_mw,
    ibv_cmd_alloc_pd, ibv_cmd_attach_mcast, ibv_cmd_close_xrcd, ibv_cmd_create_ah,
    ibv_cmd_create_counters, ibv_cmd_create_cq, ibv_cmd_create_flow,
    ibv_cmd_create_flow_action_esp, ibv_cmd_create_qp, ibv_cmd_create_rwq_ind_table,
    ibv_cmd_create_srq, ibv_cmd_create_srq_ex, ibv_cmd_create_wq, ibv_cmd_dealloc_mw,
    ibv_cmd_dealloc_pd, ibv_cmd_dereg_mr, ibv_cmd_destroy_ah, ibv_cmd_destroy_counters,
    ibv_cmd_destroy_cq, ibv_cmd_destroy_flow, ibv_cmd_destroy_flow_action, ibv_cmd_destroy_qp,
    ibv_cmd_destroy_rwq_ind_table, ibv_cmd_destroy_srq, ibv_cmd_destroy_wq, ibv_cmd_detach_mcast,
    ibv_cmd_free_dm, ibv_cmd_modify_cq, ibv_cmd_modify_flow_action_esp, ibv_cmd_modify_qp,
    ibv_cmd_modify_qp_ex, ibv_cmd_modify_srq, ibv_cmd_modify_wq, ibv_cmd_open_xrcd,
    ibv_cmd_poll_cq, ibv_cmd_post_recv, ibv_cmd_post_send, ibv_cmd_post_srq_recv,
    ibv_cmd_query_context, ibv_cmd_query_device_any, ibv_cmd_query_mr, ibv_cmd_query_qp,
    ibv_cmd_query_srq, ibv_cmd_read_counters, ibv_cmd_reg_dm_mr, ibv_cmd_reg_dmabuf_mr,
    ibv_cmd_reg_mr, ibv_cmd_req_notify_cq, ibv_cmd_rereg_mr, ibv_cmd_resize_cq, ibv_query_gid_type,
    ibv_read_ibdev_sysfs_file, ibv_wr_opcode_str, verbs_init_cq, verbs_open_device,
};

// ---------------------------------------------------------------------------
// Registration, contexts, logging
// ---------------------------------------------------------------------------

/// C: `verbs_register_driver`, which driver.h renames to the ABI's
/// `verbs_register_driver_65`.
pub type verbs_register_driver_65 = unsafe extern "C" fn(ops: *const verbs_device_ops);
/// As under 34, for 65's `verbs_context`.
pub type _verbs_init_and_alloc_context = unsafe extern "C" fn(
    device: *mut ibv_device,
    cmd_fd: c_int,
    alloc_size: usize,
    context_offset: *mut verbs_context,
    driver_id: u32,
) -> *mut c_void;
pub type verbs_uninit_context = unsafe extern "C" fn(context: *mut verbs_context);
pub type verbs_set_ops =
    unsafe extern "C" fn(vctx: *mut verbs_context, ops: *const verbs_context_ops);
/// A printf format and its arguments.
pub type __verbs_log =
    unsafe extern "C" fn(ctx: *mut verbs_context, level: u32, fmt: *const c_char, ...);

// ---------------------------------------------------------------------------
// Device and context commands
// ---------------------------------------------------------------------------

/// `fd_arr`: file descriptors to hand the kernel with the context (NULL for
/// none).
pub type ibv_cmd_get_context = unsafe extern "C" fn(
    context: *mut verbs_context,
    cmd: *mut ibv_get_context,
    cmd_size: usize,
    fd_arr: *mut ibv_fd_arr,
    resp: *mut ib_uverbs_get_context_resp,
    resp_size: usize,
) -> c_int;
pub type ibv_cmd_query_port = unsafe extern "C" fn(
    context: *mut ibv_context,
    port_num: u8,
    port_attr: *mut ibv_port_attr,
    cmd: *mut ibv_query_port,
    cmd_size: usize,
) -> c_int;
pub type ibv_cmd_query_port_speed =
    unsafe extern "C" fn(context: *mut ibv_context, port_num: u32, speed: *mut u64) -> c_int;

// ---------------------------------------------------------------------------
// Memory: DMA handles, dma-buf export, extended registration, the heap
// ---------------------------------------------------------------------------

pub type ibv_cmd_alloc_dmah = unsafe extern "C" fn(
    ctx: *mut ibv_context,
    st: *mut verbs_dmah,
    attr: *mut ibv_dmah_init_attr,
) -> c_int;
pub type ibv_cmd_free_dmah = unsafe extern "C" fn(dmah: *mut verbs_dmah) -> c_int;
pub type ibv_cmd_export_dmabuf_fd =
    unsafe extern "C" fn(ctx: *mut ibv_context, pg_off: libc::off_t) -> c_int;
pub type ibv_cmd_reg_mr_ex = unsafe extern "C" fn(
    pd: *mut ibv_pd,
    vmr: *mut verbs_mr,
    mr_init_attr: *mut ibv_mr_init_attr,
) -> c_int;
pub type ibv_dmabuf_heap_cc_shared_init = unsafe extern "C" fn() -> *mut ibv_dmabuf_heap;
pub type ibv_dmabuf_heap_destroy = unsafe extern "C" fn(heap: *mut ibv_dmabuf_heap);
pub type ibv_dmabuf_heap_alloc = unsafe extern "C" fn(
    heap: *mut ibv_dmabuf_heap,
    size: usize,
    dmabuf_fd: *mut c_int,
) -> *mut c_void;
pub type ibv_dmabuf_heap_free =
    unsafe extern "C" fn(buf: *mut c_void, size: usize, dmabuf_fd: c_int);

// ---------------------------------------------------------------------------
// Completion queues
// ---------------------------------------------------------------------------

/// `prov_attr`: the CQ memory the provider allocated (NULL: the kernel
/// allocates it).
pub type ibv_cmd_create_cq_ex = unsafe extern "C" fn(
    context: *mut ibv_context,
    cq_attr: *const ibv_cq_init_attr_ex,
    prov_attr: *mut verbs_create_cq_prov_attr,
    cq: *mut verbs_cq,
    cmd: *mut ibv_create_cq_ex,
    cmd_size: usize,
    resp: *mut ib_uverbs_ex_create_cq_resp,
    resp_size: usize,
    cmd_flags: u32,
) -> c_int;
pub type ibv_cmd_create_cq_ex2 = unsafe extern "C" fn(
    context: *mut ibv_context,
    cq_attr: *const ibv_cq_init_attr_ex,
    prov_attr: *mut verbs_create_cq_prov_attr,
    cq: *mut verbs_cq,
    cmd: *mut ibv_create_cq_ex,
    cmd_size: usize,
    resp: *mut ib_uverbs_ex_create_cq_resp,
    resp_size: usize,
    cmd_flags: u32,
    driver: *mut ibv_command_buffer,
) -> c_int;

// ---------------------------------------------------------------------------
// Queue pairs
// ---------------------------------------------------------------------------

pub type ibv_cmd_create_qp_ex = unsafe extern "C" fn(
    context: *mut ibv_context,
    qp: *mut verbs_qp,
    attr_ex: *mut ibv_qp_init_attr_ex,
    cmd: *mut ibv_create_qp,
    cmd_size: usize,
    resp: *mut ib_uverbs_create_qp_resp,
    resp_size: usize,
) -> c_int;
/// `driver`: the provider's own ioctl attributes, linked after the core
/// ones (NULL for none).
pub type ibv_cmd_create_qp_ex2 = unsafe extern "C" fn(
    context: *mut ibv_context,
    qp: *mut verbs_qp,
    qp_attr: *mut ibv_qp_init_attr_ex,
    cmd: *mut ibv_create_qp_ex,
    cmd_size: usize,
    resp: *mut ib_uverbs_ex_create_qp_resp,
    resp_size: usize,
    driver: *mut ibv_command_buffer,
) -> c_int;
/// `vqp_sz` is the size of the provider's `verbs_qp`.
pub type ibv_cmd_open_qp = unsafe extern "C" fn(
    context: *mut ibv_context,
    qp: *mut verbs_qp,
    vqp_sz: c_int,
    attr: *mut ibv_qp_open_attr,
    cmd: *mut ibv_open_qp,
    cmd_size: usize,
    resp: *mut ib_uverbs_create_qp_resp,
    resp_size: usize,
) -> c_int;

// ---------------------------------------------------------------------------
// Completion counters
// ---------------------------------------------------------------------------

pub type ibv_cmd_query_comp_cntr_caps = unsafe extern "C" fn(
    context: *mut ibv_context,
    caps: *mut ibv_comp_cntr_caps,
    caps_size: usize,
) -> c_int;
pub type ibv_cmd_create_comp_cntr = unsafe extern "C" fn(
    context: *mut ibv_context,
    comp_cntr: *mut ibv_comp_cntr,
    link: *mut ibv_command_buffer,
) -> c_int;
pub type ibv_cmd_destroy_comp_cntr = unsafe extern "C" fn(comp_cntr: *mut ibv_comp_cntr) -> c_int;
pub type ibv_cmd_inc_comp_cntr =
    unsafe extern "C" fn(comp_cntr: *mut ibv_comp_cntr, amount: u64) -> c_int;
pub type ibv_cmd_inc_err_comp_cntr =
    unsafe extern "C" fn(comp_cntr: *mut ibv_comp_cntr, amount: u64) -> c_int;
pub type ibv_cmd_read_comp_cntr =
    unsafe extern "C" fn(comp_cntr: *mut ibv_comp_cntr, value: *mut u64) -> c_int;
pub type ibv_cmd_read_err_comp_cntr =
    unsafe extern "C" fn(comp_cntr: *mut ibv_comp_cntr, value: *mut u64) -> c_int;
pub type ibv_cmd_set_comp_cntr =
    unsafe extern "C" fn(comp_cntr: *mut ibv_comp_cntr, value: u64) -> c_int;
pub type ibv_cmd_set_err_comp_cntr =
    unsafe extern "C" fn(comp_cntr: *mut ibv_comp_cntr, value: u64) -> c_int;
pub type ibv_cmd_qp_attach_comp_cntr = unsafe extern "C" fn(
    qp: *mut ibv_qp,
    comp_cntr: *mut ibv_comp_cntr,
    attr: *mut ibv_qp_attach_comp_cntr_attr,
) -> c_int;
