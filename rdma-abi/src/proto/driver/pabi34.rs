//! The private functions of IBVERBS_PRIVATE_34, as rdma-core 56 (the last
//! release of that ABI, Debian 13) declares them: one function-pointer type
//! per function, named as the function, written with the layouts of
//! [`crate::driver::pabi34_v44`] and rdma-core 44's public types
//! ([`crate::verbs`]), which 56 keeps.
//!
//! Two names changed within the ABI, without a new version:
//! - `ibv_cmd_reg_dmabuf_mr` takes an eighth argument, `driver`, since
//!   rdma-core 54; the providers of 44 to 53 pass seven. The type is 56's,
//!   the library tells the two kinds of caller apart by the provider's
//!   release;
//! - `ibv_cmd_create_cq_ex2` and `ibv_wr_opcode_str` (rdma-core 53 and 49)
//!   are not in 44.

use core::ffi::{c_char, c_int, c_uint, c_void};

use crate::driver::pabi34_v44::*;
use crate::kern::*;
use crate::verbs::*;

/// `ibv_wr_opcode_str`, a public function (see [`crate::proto::verbs`])
/// that upstream exports at the private version.
pub use crate::proto::verbs::ibv_wr_opcode_str;

// ---------------------------------------------------------------------------
// Registration, contexts, logging
// ---------------------------------------------------------------------------

/// C: `verbs_register_driver`, which driver.h renames to the ABI's
/// `verbs_register_driver_34`.
pub type verbs_register_driver_34 = unsafe extern "C" fn(ops: *const verbs_device_ops);
/// `context_offset` is a byte offset passed as a pointer: where the
/// `verbs_context` sits in the `alloc_size` bytes allocated.
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
pub type verbs_init_cq = unsafe extern "C" fn(
    cq: *mut ibv_cq,
    context: *mut ibv_context,
    channel: *mut ibv_comp_channel,
    cq_context: *mut c_void,
);
pub type verbs_open_device =
    unsafe extern "C" fn(device: *mut ibv_device, private_data: *mut c_void) -> *mut ibv_context;
/// A printf format and its arguments.
pub type __verbs_log =
    unsafe extern "C" fn(ctx: *mut verbs_context, level: u32, fmt: *const c_char, ...);
/// A printf format and its arguments name the sysfs file.
pub type ibv_read_ibdev_sysfs_file = unsafe extern "C" fn(
    buf: *mut c_char,
    size: usize,
    sysfs_dev: *mut verbs_sysfs_dev,
    fnfmt: *const c_char,
    ...
) -> c_int;
pub type ibv_query_gid_type = unsafe extern "C" fn(
    context: *mut ibv_context,
    port_num: u8,
    index: c_uint,
    type_: *mut ibv_gid_type_sysfs,
) -> c_int;

// ---------------------------------------------------------------------------
// The ioctl command buffer (cmd_ioctl.h)
// ---------------------------------------------------------------------------

pub type __ioctl_final_num_attrs =
    unsafe extern "C" fn(num_attrs: c_uint, link: *mut ibv_command_buffer) -> c_uint;
pub type execute_ioctl =
    unsafe extern "C" fn(context: *mut ibv_context, cmd: *mut ibv_command_buffer) -> c_int;

// ---------------------------------------------------------------------------
// Device and context commands
// ---------------------------------------------------------------------------

pub type ibv_cmd_get_context = unsafe extern "C" fn(
    context: *mut verbs_context,
    cmd: *mut ibv_get_context,
    cmd_size: usize,
    resp: *mut ib_uverbs_get_context_resp,
    resp_size: usize,
) -> c_int;
pub type ibv_cmd_query_context =
    unsafe extern "C" fn(ctx: *mut ibv_context, driver: *mut ibv_command_buffer) -> c_int;
pub type ibv_cmd_query_device_any = unsafe extern "C" fn(
    context: *mut ibv_context,
    input: *const ibv_query_device_ex_input,
    attr: *mut ibv_device_attr_ex,
    attr_size: usize,
    resp: *mut ib_uverbs_ex_query_device_resp,
    resp_size: *mut usize,
) -> c_int;
pub type ibv_cmd_query_port = unsafe extern "C" fn(
    context: *mut ibv_context,
    port_num: u8,
    port_attr: *mut ibv_port_attr,
    cmd: *mut ibv_query_port,
    cmd_size: usize,
) -> c_int;

// ---------------------------------------------------------------------------
// Protection domains, XRC domains, memory regions and windows
// ---------------------------------------------------------------------------

pub type ibv_cmd_alloc_pd = unsafe extern "C" fn(
    context: *mut ibv_context,
    pd: *mut ibv_pd,
    cmd: *mut ibv_alloc_pd,
    cmd_size: usize,
    resp: *mut ib_uverbs_alloc_pd_resp,
    resp_size: usize,
) -> c_int;
pub type ibv_cmd_dealloc_pd = unsafe extern "C" fn(pd: *mut ibv_pd) -> c_int;
pub type ibv_cmd_open_xrcd = unsafe extern "C" fn(
    context: *mut ibv_context,
    xrcd: *mut verbs_xrcd,
    vxrcd_size: c_int,
    attr: *mut ibv_xrcd_init_attr,
    cmd: *mut ibv_open_xrcd,
    cmd_size: usize,
    resp: *mut ib_uverbs_open_xrcd_resp,
    resp_size: usize,
) -> c_int;
pub type ibv_cmd_close_xrcd = unsafe extern "C" fn(xrcd: *mut verbs_xrcd) -> c_int;
pub type ibv_cmd_reg_mr = unsafe extern "C" fn(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    hca_va: u64,
    access: c_int,
    vmr: *mut verbs_mr,
    cmd: *mut ibv_reg_mr,
    cmd_size: usize,
    resp: *mut ib_uverbs_reg_mr_resp,
    resp_size: usize,
) -> c_int;
pub type ibv_cmd_rereg_mr = unsafe extern "C" fn(
    vmr: *mut verbs_mr,
    flags: u32,
    addr: *mut c_void,
    length: usize,
    hca_va: u64,
    access: c_int,
    pd: *mut ibv_pd,
    cmd: *mut ibv_rereg_mr,
    cmd_sz: usize,
    resp: *mut ib_uverbs_rereg_mr_resp,
    resp_sz: usize,
) -> c_int;
pub type ibv_cmd_dereg_mr = unsafe extern "C" fn(vmr: *mut verbs_mr) -> c_int;
pub type ibv_cmd_query_mr =
    unsafe extern "C" fn(pd: *mut ibv_pd, vmr: *mut verbs_mr, mr_handle: u32) -> c_int;
pub type ibv_cmd_advise_mr = unsafe extern "C" fn(
    pd: *mut ibv_pd,
    advice: ibv_advise_mr_advice,
    flags: u32,
    sg_list: *mut ibv_sge,
    num_sge: u32,
) -> c_int;
/// rdma-core 54's form; 44 to 53 have no `driver` (see the module's notes).
pub type ibv_cmd_reg_dmabuf_mr = unsafe extern "C" fn(
    pd: *mut ibv_pd,
    offset: u64,
    length: usize,
    iova: u64,
    fd: c_int,
    access: c_int,
    vmr: *mut verbs_mr,
    driver: *mut ibv_command_buffer,
) -> c_int;
pub type ibv_cmd_alloc_mw = unsafe extern "C" fn(
    pd: *mut ibv_pd,
    type_: ibv_mw_type,
    mw: *mut ibv_mw,
    cmd: *mut ibv_alloc_mw,
    cmd_size: usize,
    resp: *mut ib_uverbs_alloc_mw_resp,
    resp_size: usize,
) -> c_int;
pub type ibv_cmd_dealloc_mw = unsafe extern "C" fn(mw: *mut ibv_mw) -> c_int;

// ---------------------------------------------------------------------------
// Completion queues
// ---------------------------------------------------------------------------

pub type ibv_cmd_create_cq = unsafe extern "C" fn(
    context: *mut ibv_context,
    cqe: c_int,
    channel: *mut ibv_comp_channel,
    comp_vector: c_int,
    cq: *mut ibv_cq,
    cmd: *mut ibv_create_cq,
    cmd_size: usize,
    resp: *mut ib_uverbs_create_cq_resp,
    resp_size: usize,
) -> c_int;
pub type ibv_cmd_create_cq_ex = unsafe extern "C" fn(
    context: *mut ibv_context,
    cq_attr: *const ibv_cq_init_attr_ex,
    cq: *mut verbs_cq,
    cmd: *mut ibv_create_cq_ex,
    cmd_size: usize,
    resp: *mut ib_uverbs_ex_create_cq_resp,
    resp_size: usize,
    cmd_flags: u32,
) -> c_int;
/// Since rdma-core 53.
pub type ibv_cmd_create_cq_ex2 = unsafe extern "C" fn(
    context: *mut ibv_context,
    cq_attr: *const ibv_cq_init_attr_ex,
    cq: *mut verbs_cq,
    cmd: *mut ibv_create_cq_ex,
    cmd_size: usize,
    resp: *mut ib_uverbs_ex_create_cq_resp,
    resp_size: usize,
    cmd_flags: u32,
    driver: *mut ibv_command_buffer,
) -> c_int;
pub type ibv_cmd_poll_cq =
    unsafe extern "C" fn(cq: *mut ibv_cq, ne: c_int, wc: *mut ibv_wc) -> c_int;
pub type ibv_cmd_req_notify_cq =
    unsafe extern "C" fn(cq: *mut ibv_cq, solicited_only: c_int) -> c_int;
pub type ibv_cmd_resize_cq = unsafe extern "C" fn(
    cq: *mut ibv_cq,
    cqe: c_int,
    cmd: *mut ibv_resize_cq,
    cmd_size: usize,
    resp: *mut ib_uverbs_resize_cq_resp,
    resp_size: usize,
) -> c_int;
pub type ibv_cmd_destroy_cq = unsafe extern "C" fn(cq: *mut ibv_cq) -> c_int;
pub type ibv_cmd_modify_cq = unsafe extern "C" fn(
    cq: *mut ibv_cq,
    attr: *mut ibv_modify_cq_attr,
    cmd: *mut ibv_modify_cq,
    cmd_size: usize,
) -> c_int;

// ---------------------------------------------------------------------------
// Shared receive queues
// ---------------------------------------------------------------------------

pub type ibv_cmd_create_srq = unsafe extern "C" fn(
    pd: *mut ibv_pd,
    srq: *mut ibv_srq,
    attr: *mut ibv_srq_init_attr,
    cmd: *mut ibv_create_srq,
    cmd_size: usize,
    resp: *mut ib_uverbs_create_srq_resp,
    resp_size: usize,
) -> c_int;
pub type ibv_cmd_create_srq_ex = unsafe extern "C" fn(
    context: *mut ibv_context,
    srq: *mut verbs_srq,
    attr_ex: *mut ibv_srq_init_attr_ex,
    cmd: *mut ibv_create_xsrq,
    cmd_size: usize,
    resp: *mut ib_uverbs_create_srq_resp,
    resp_size: usize,
) -> c_int;
pub type ibv_cmd_modify_srq = unsafe extern "C" fn(
    srq: *mut ibv_srq,
    srq_attr: *mut ibv_srq_attr,
    srq_attr_mask: c_int,
    cmd: *mut ibv_modify_srq,
    cmd_size: usize,
) -> c_int;
pub type ibv_cmd_query_srq = unsafe extern "C" fn(
    srq: *mut ibv_srq,
    srq_attr: *mut ibv_srq_attr,
    cmd: *mut ibv_query_srq,
    cmd_size: usize,
) -> c_int;
pub type ibv_cmd_destroy_srq = unsafe extern "C" fn(srq: *mut ibv_srq) -> c_int;
pub type ibv_cmd_post_srq_recv = unsafe extern "C" fn(
    srq: *mut ibv_srq,
    wr: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> c_int;

// ---------------------------------------------------------------------------
// Queue pairs
// ---------------------------------------------------------------------------

pub type ibv_cmd_create_qp = unsafe extern "C" fn(
    pd: *mut ibv_pd,
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_init_attr,
    cmd: *mut ibv_create_qp,
    cmd_size: usize,
    resp: *mut ib_uverbs_create_qp_resp,
    resp_size: usize,
) -> c_int;
pub type ibv_cmd_create_qp_ex = unsafe extern "C" fn(
    context: *mut ibv_context,
    qp: *mut verbs_qp,
    attr_ex: *mut ibv_qp_init_attr_ex,
    cmd: *mut ibv_create_qp,
    cmd_size: usize,
    resp: *mut ib_uverbs_create_qp_resp,
    resp_size: usize,
) -> c_int;
pub type ibv_cmd_create_qp_ex2 = unsafe extern "C" fn(
    context: *mut ibv_context,
    qp: *mut verbs_qp,
    qp_attr: *mut ibv_qp_init_attr_ex,
    cmd: *mut ibv_create_qp_ex,
    cmd_size: usize,
    resp: *mut ib_uverbs_ex_create_qp_resp,
    resp_size: usize,
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
pub type ibv_cmd_query_qp = unsafe extern "C" fn(
    qp: *mut ibv_qp,
    qp_attr: *mut ibv_qp_attr,
    attr_mask: c_int,
    qp_init_attr: *mut ibv_qp_init_attr,
    cmd: *mut ibv_query_qp,
    cmd_size: usize,
) -> c_int;
pub type ibv_cmd_modify_qp = unsafe extern "C" fn(
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_attr,
    attr_mask: c_int,
    cmd: *mut ibv_modify_qp,
    cmd_size: usize,
) -> c_int;
pub type ibv_cmd_modify_qp_ex = unsafe extern "C" fn(
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_attr,
    attr_mask: c_int,
    cmd: *mut ibv_modify_qp_ex,
    cmd_size: usize,
    resp: *mut ib_uverbs_ex_modify_qp_resp,
    resp_size: usize,
) -> c_int;
pub type ibv_cmd_destroy_qp = unsafe extern "C" fn(qp: *mut ibv_qp) -> c_int;
pub type ibv_cmd_post_send = unsafe extern "C" fn(
    ibqp: *mut ibv_qp,
    wr: *mut ibv_send_wr,
    bad_wr: *mut *mut ibv_send_wr,
) -> c_int;
pub type ibv_cmd_post_recv = unsafe extern "C" fn(
    ibqp: *mut ibv_qp,
    wr: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> c_int;

// ---------------------------------------------------------------------------
// Address handles and multicast
// ---------------------------------------------------------------------------

pub type ibv_cmd_create_ah = unsafe extern "C" fn(
    pd: *mut ibv_pd,
    ah: *mut ibv_ah,
    attr: *mut ibv_ah_attr,
    resp: *mut ib_uverbs_create_ah_resp,
    resp_size: usize,
) -> c_int;
pub type ibv_cmd_destroy_ah = unsafe extern "C" fn(ah: *mut ibv_ah) -> c_int;
pub type ibv_cmd_attach_mcast =
    unsafe extern "C" fn(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int;
pub type ibv_cmd_detach_mcast =
    unsafe extern "C" fn(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int;

// ---------------------------------------------------------------------------
// Flows, flow actions, work queues, indirection tables
// ---------------------------------------------------------------------------

pub type ibv_cmd_create_flow = unsafe extern "C" fn(
    qp: *mut ibv_qp,
    flow_id: *mut ibv_flow,
    flow_attr: *mut ibv_flow_attr,
    ucmd: *mut c_void,
    ucmd_size: usize,
) -> c_int;
pub type ibv_cmd_destroy_flow = unsafe extern "C" fn(flow_id: *mut ibv_flow) -> c_int;
pub type ibv_cmd_create_flow_action_esp = unsafe extern "C" fn(
    ctx: *mut ibv_context,
    attr: *mut ibv_flow_action_esp_attr,
    flow_action: *mut verbs_flow_action,
    driver: *mut ibv_command_buffer,
) -> c_int;
pub type ibv_cmd_modify_flow_action_esp = unsafe extern "C" fn(
    flow_action: *mut verbs_flow_action,
    attr: *mut ibv_flow_action_esp_attr,
    driver: *mut ibv_command_buffer,
) -> c_int;
pub type ibv_cmd_destroy_flow_action =
    unsafe extern "C" fn(action: *mut verbs_flow_action) -> c_int;
pub type ibv_cmd_create_wq = unsafe extern "C" fn(
    context: *mut ibv_context,
    wq_init_attr: *mut ibv_wq_init_attr,
    wq: *mut ibv_wq,
    cmd: *mut ibv_create_wq,
    cmd_size: usize,
    resp: *mut ib_uverbs_ex_create_wq_resp,
    resp_size: usize,
) -> c_int;
pub type ibv_cmd_modify_wq = unsafe extern "C" fn(
    wq: *mut ibv_wq,
    attr: *mut ibv_wq_attr,
    cmd: *mut ibv_modify_wq,
    cmd_size: usize,
) -> c_int;
pub type ibv_cmd_destroy_wq = unsafe extern "C" fn(wq: *mut ibv_wq) -> c_int;
pub type ibv_cmd_create_rwq_ind_table = unsafe extern "C" fn(
    context: *mut ibv_context,
    init_attr: *mut ibv_rwq_ind_table_init_attr,
    rwq_ind_table: *mut ibv_rwq_ind_table,
    resp: *mut ib_uverbs_ex_create_rwq_ind_table_resp,
    resp_size: usize,
) -> c_int;
pub type ibv_cmd_destroy_rwq_ind_table =
    unsafe extern "C" fn(rwq_ind_table: *mut ibv_rwq_ind_table) -> c_int;

// ---------------------------------------------------------------------------
// Counters and device memory
// ---------------------------------------------------------------------------

pub type ibv_cmd_create_counters = unsafe extern "C" fn(
    context: *mut ibv_context,
    init_attr: *mut ibv_counters_init_attr,
    vcounters: *mut verbs_counters,
    link: *mut ibv_command_buffer,
) -> c_int;
pub type ibv_cmd_destroy_counters = unsafe extern "C" fn(vcounters: *mut verbs_counters) -> c_int;
pub type ibv_cmd_read_counters = unsafe extern "C" fn(
    vcounters: *mut verbs_counters,
    counters_value: *mut u64,
    ncounters: u32,
    flags: u32,
    link: *mut ibv_command_buffer,
) -> c_int;
pub type ibv_cmd_alloc_dm = unsafe extern "C" fn(
    ctx: *mut ibv_context,
    dm_attr: *const ibv_alloc_dm_attr,
    dm: *mut verbs_dm,
    link: *mut ibv_command_buffer,
) -> c_int;
pub type ibv_cmd_free_dm = unsafe extern "C" fn(dm: *mut verbs_dm) -> c_int;
pub type ibv_cmd_reg_dm_mr = unsafe extern "C" fn(
    pd: *mut ibv_pd,
    dm: *mut verbs_dm,
    offset: u64,
    length: usize,
    access: c_uint,
    vmr: *mut verbs_mr,
    link: *mut ibv_command_buffer,
) -> c_int;
