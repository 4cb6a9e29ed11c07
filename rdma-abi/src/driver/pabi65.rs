//! `#[repr(C)]` mirrors of the providers' private ABI as rdma-core 65 defines
//! it: the types of its `libibverbs/driver.h` (not installed; providers are
//! built against it), versioned as IBVERBS_PRIVATE_65 (Debian sid).
//!
//! The types of [`super::pabi34_v44`] whose layout 65 keeps are re-exported
//! from there; this module defines what is new or changed:
//! - `verbs_context_ops` has 93 ops where 44 has 76: the 17 new ones (DMA
//!   handles, `ibv_alloc_buf` buffers, dma-buf export of device memory,
//!   `reg_mr_ex`, `query_port_speed` and the completion-counter ops) are
//!   inserted in alphabetical order, so most ops of 44 moved;
//! - `verbs_qp` embeds 65's larger `ibv_qp_ex` (see [`crate::verbs_v65`]);
//! - `verbs_device_ops`, `verbs_device` and `verbs_driver_init_func` keep
//!   44's layout but are redefined so that they name 65's `verbs_context`,
//!   `verbs_device_ops` and `verbs_device`;
//! - new types: `ibv_buf` (the handle of `ibv_alloc_buf`), `verbs_dmah` (the
//!   library's wrapper of `ibv_dmah`), `verbs_create_cq_prov_attr` (the
//!   CQ memory a provider hands to `ibv_cmd_create_cq_ex` and
//!   `ibv_cmd_create_cq_ex2`) and `ibv_dmabuf_heap`, opaque (the handle of
//!   the DMA-buf heap functions, from 65's `dmabuf_heap.h`);
//! - new `create_cq_cmd_flags` bits.
//!
//! Conventions are those of [`crate::verbs`]. One more name for a member C
//! leaves unnamed (rule 2 there): `mem`, the union in
//! `verbs_create_cq_prov_attr.buffer` that says where the CQ memory is (type
//! `verbs_create_cq_prov_attr_buffer_mem`, with `ptr` / `dmabuf`); so C's
//! `attr.buffer.dmabuf.fd` is `attr.buffer.mem.dmabuf.fd`.
//!
//! Every type and constant this module provides, the re-exported ones
//! included, is checked in `src/layout/driver/pabi65.rs` against the numbers
//! the probe `abi-tests/probe/driver_probe_pabi65.c` prints when compiled
//! against rdma-core 65's driver.h (`abi-tests/probe/run-65.sh`), which also
//! checks each field's C type, callback signatures included.

use core::ffi::{c_char, c_int, c_uint, c_void};
use core::sync::atomic::AtomicI32;

use crate::verbs_v65::*;

pub use super::pabi34_v44::*;

// ---------------------------------------------------------------------------
// Buffers
// ---------------------------------------------------------------------------

/// A buffer allocated by the library or its provider (`ibv_alloc_buf`), and
/// how the device reaches it: plain memory, or a dma-buf when `dmabuf_fd` is
/// not -1. verbs.h only declares it; its body is part of the private ABI.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_buf {
    pub addr: *mut c_void,
    pub size: usize,
    pub pd: *mut ibv_pd,
    /// -1 when the buffer is not backed by a dma-buf.
    pub dmabuf_fd: c_int,
}

// ---------------------------------------------------------------------------
// Wrapped objects
// ---------------------------------------------------------------------------

/// The CQ memory comes from a user address (`buffer.mem.ptr`).
pub const CREATE_CQ_CMD_FLAGS_WITH_MEM_VA: create_cq_cmd_flags = 1 << 1;
/// The CQ memory is a dma-buf (`buffer.mem.dmabuf`).
pub const CREATE_CQ_CMD_FLAGS_WITH_MEM_DMABUF: create_cq_cmd_flags = 1 << 2;

/// C: the `dmabuf` member (an anonymous struct) of the union in
/// `verbs_create_cq_prov_attr.buffer`: a dma-buf and the offset of the CQ in
/// it.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct verbs_create_cq_prov_attr_buffer_mem_dmabuf {
    pub offset: u64,
    pub fd: c_int,
}

/// C: the anonymous union in `verbs_create_cq_prov_attr.buffer` (field
/// `mem`): where the CQ memory is, as `create_cq_cmd_flags` says.
#[repr(C)]
#[derive(Clone, Copy)]
pub union verbs_create_cq_prov_attr_buffer_mem {
    /// With `CREATE_CQ_CMD_FLAGS_WITH_MEM_VA`.
    pub ptr: *mut u8,
    /// With `CREATE_CQ_CMD_FLAGS_WITH_MEM_DMABUF`.
    pub dmabuf: verbs_create_cq_prov_attr_buffer_mem_dmabuf,
}

/// C: the anonymous struct type of `verbs_create_cq_prov_attr.buffer`: the
/// CQ memory's length and location.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct verbs_create_cq_prov_attr_buffer {
    pub length: u64,
    /// C: anonymous union.
    pub mem: verbs_create_cq_prov_attr_buffer_mem,
}

/// What a provider passes to `ibv_cmd_create_cq_ex` / `ibv_cmd_create_cq_ex2`
/// about a CQ whose memory it allocated itself.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct verbs_create_cq_prov_attr {
    pub buffer: verbs_create_cq_prov_attr_buffer,
}

/// The library's wrapper of a DMA handle: the public object and its kernel
/// handle.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct verbs_dmah {
    pub dmah: ibv_dmah,
    pub handle: u32,
}

/// The handle of an open DMA-buf heap (`dmabuf_heap.h`, a private header
/// of rdma-core 65). Opaque here: only the library knows its body.
#[repr(C)]
pub struct ibv_dmabuf_heap {
    _opaque: [u8; 0],
}

/// C: the anonymous union at the head of `struct verbs_qp` (field `base`),
/// with 65's `ibv_qp_ex`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union verbs_qp_base {
    pub qp: ibv_qp,
    pub qp_ex: ibv_qp_ex,
}

/// The library's wrapper of a QP, with 65's `ibv_qp_ex`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct verbs_qp {
    /// C: anonymous union.
    pub base: verbs_qp_base,
    /// `verbs_qp_mask` bits.
    pub comp_mask: u32,
    pub xrcd: *mut verbs_xrcd,
}

// ---------------------------------------------------------------------------
// Devices
// ---------------------------------------------------------------------------

/// A provider's entry points (what `verbs_register_driver_65` receives);
/// 44's layout, naming 65's context and device.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct verbs_device_ops {
    pub name: *const c_char,
    pub match_min_abi_version: u32,
    pub match_max_abi_version: u32,
    pub match_table: *const verbs_match_ent,
    pub static_providers: *mut *const verbs_device_ops,
    pub match_device: Option<unsafe extern "C" fn(sysfs_dev: *mut verbs_sysfs_dev) -> bool>,
    pub alloc_context: Option<
        unsafe extern "C" fn(
            device: *mut ibv_device,
            cmd_fd: c_int,
            private_data: *mut c_void,
        ) -> *mut verbs_context,
    >,
    pub import_context:
        Option<unsafe extern "C" fn(device: *mut ibv_device, cmd_fd: c_int) -> *mut verbs_context>,
    pub alloc_device:
        Option<unsafe extern "C" fn(sysfs_dev: *mut verbs_sysfs_dev) -> *mut verbs_device>,
    pub uninit_device: Option<unsafe extern "C" fn(device: *mut verbs_device)>,
}

/// A device as the library and its provider see it; `device` must be first
/// (applications get `&device`). 44's layout, pointing at 65's ops.
#[repr(C)]
pub struct verbs_device {
    pub device: ibv_device,
    pub ops: *const verbs_device_ops,
    /// C: `atomic_int`.
    pub refcount: AtomicI32,
    pub entry: list_node,
    pub sysfs: *mut verbs_sysfs_dev,
    pub core_support: u64,
}

// ---------------------------------------------------------------------------
// Provider ops
// ---------------------------------------------------------------------------

/// Every op a provider of rdma-core 65 can implement, in driver.h's
/// (alphabetical) order.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct verbs_context_ops {
    pub advise_mr: Option<
        unsafe extern "C" fn(
            pd: *mut ibv_pd,
            advice: ibv_advise_mr_advice,
            flags: u32,
            sg_list: *mut ibv_sge,
            num_sges: u32,
        ) -> c_int,
    >,
    pub alloc_buf: Option<
        unsafe extern "C" fn(pd: *mut ibv_pd, size: usize, buf: *mut *mut ibv_buf) -> *mut c_void,
    >,
    pub alloc_dm: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            attr: *mut ibv_alloc_dm_attr,
        ) -> *mut ibv_dm,
    >,
    pub alloc_dmah: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            attr: *mut ibv_dmah_init_attr,
        ) -> *mut ibv_dmah,
    >,
    pub alloc_mw: Option<unsafe extern "C" fn(pd: *mut ibv_pd, type_: ibv_mw_type) -> *mut ibv_mw>,
    pub alloc_null_mr: Option<unsafe extern "C" fn(pd: *mut ibv_pd) -> *mut ibv_mr>,
    pub alloc_parent_domain: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            attr: *mut ibv_parent_domain_init_attr,
        ) -> *mut ibv_pd,
    >,
    pub alloc_pd: Option<unsafe extern "C" fn(context: *mut ibv_context) -> *mut ibv_pd>,
    pub alloc_td: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            init_attr: *mut ibv_td_init_attr,
        ) -> *mut ibv_td,
    >,
    pub async_event:
        Option<unsafe extern "C" fn(context: *mut ibv_context, event: *mut ibv_async_event)>,
    pub attach_counters_point_flow: Option<
        unsafe extern "C" fn(
            counters: *mut ibv_counters,
            attr: *mut ibv_counter_attach_attr,
            flow: *mut ibv_flow,
        ) -> c_int,
    >,
    pub attach_mcast:
        Option<unsafe extern "C" fn(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int>,
    pub bind_mw: Option<
        unsafe extern "C" fn(qp: *mut ibv_qp, mw: *mut ibv_mw, mw_bind: *mut ibv_mw_bind) -> c_int,
    >,
    pub close_xrcd: Option<unsafe extern "C" fn(xrcd: *mut ibv_xrcd) -> c_int>,
    pub cq_event: Option<unsafe extern "C" fn(cq: *mut ibv_cq)>,
    pub create_ah:
        Option<unsafe extern "C" fn(pd: *mut ibv_pd, attr: *mut ibv_ah_attr) -> *mut ibv_ah>,
    pub create_comp_cntr: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            attr: *mut ibv_comp_cntr_init_attr,
        ) -> *mut ibv_comp_cntr,
    >,
    pub create_counters: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            init_attr: *mut ibv_counters_init_attr,
        ) -> *mut ibv_counters,
    >,
    pub create_cq: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            cqe: c_int,
            channel: *mut ibv_comp_channel,
            comp_vector: c_int,
        ) -> *mut ibv_cq,
    >,
    pub create_cq_ex: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            init_attr: *mut ibv_cq_init_attr_ex,
        ) -> *mut ibv_cq_ex,
    >,
    pub create_flow: Option<
        unsafe extern "C" fn(qp: *mut ibv_qp, flow_attr: *mut ibv_flow_attr) -> *mut ibv_flow,
    >,
    pub create_flow_action_esp: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            attr: *mut ibv_flow_action_esp_attr,
        ) -> *mut ibv_flow_action,
    >,
    pub create_qp:
        Option<unsafe extern "C" fn(pd: *mut ibv_pd, attr: *mut ibv_qp_init_attr) -> *mut ibv_qp>,
    pub create_qp_ex: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            qp_init_attr_ex: *mut ibv_qp_init_attr_ex,
        ) -> *mut ibv_qp,
    >,
    pub create_rwq_ind_table: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            init_attr: *mut ibv_rwq_ind_table_init_attr,
        ) -> *mut ibv_rwq_ind_table,
    >,
    pub create_srq: Option<
        unsafe extern "C" fn(
            pd: *mut ibv_pd,
            srq_init_attr: *mut ibv_srq_init_attr,
        ) -> *mut ibv_srq,
    >,
    pub create_srq_ex: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            srq_init_attr_ex: *mut ibv_srq_init_attr_ex,
        ) -> *mut ibv_srq,
    >,
    pub create_wq: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            wq_init_attr: *mut ibv_wq_init_attr,
        ) -> *mut ibv_wq,
    >,
    pub dealloc_dmah: Option<unsafe extern "C" fn(dmah: *mut ibv_dmah) -> c_int>,
    pub dealloc_mw: Option<unsafe extern "C" fn(mw: *mut ibv_mw) -> c_int>,
    pub dealloc_pd: Option<unsafe extern "C" fn(pd: *mut ibv_pd) -> c_int>,
    pub dealloc_td: Option<unsafe extern "C" fn(td: *mut ibv_td) -> c_int>,
    pub dereg_mr: Option<unsafe extern "C" fn(vmr: *mut verbs_mr) -> c_int>,
    pub destroy_ah: Option<unsafe extern "C" fn(ah: *mut ibv_ah) -> c_int>,
    pub destroy_comp_cntr: Option<unsafe extern "C" fn(comp_cntr: *mut ibv_comp_cntr) -> c_int>,
    pub destroy_counters: Option<unsafe extern "C" fn(counters: *mut ibv_counters) -> c_int>,
    pub destroy_cq: Option<unsafe extern "C" fn(cq: *mut ibv_cq) -> c_int>,
    pub destroy_flow: Option<unsafe extern "C" fn(flow: *mut ibv_flow) -> c_int>,
    pub destroy_flow_action: Option<unsafe extern "C" fn(action: *mut ibv_flow_action) -> c_int>,
    pub destroy_qp: Option<unsafe extern "C" fn(qp: *mut ibv_qp) -> c_int>,
    pub destroy_rwq_ind_table:
        Option<unsafe extern "C" fn(rwq_ind_table: *mut ibv_rwq_ind_table) -> c_int>,
    pub destroy_srq: Option<unsafe extern "C" fn(srq: *mut ibv_srq) -> c_int>,
    pub destroy_wq: Option<unsafe extern "C" fn(wq: *mut ibv_wq) -> c_int>,
    pub detach_mcast:
        Option<unsafe extern "C" fn(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int>,
    pub dm_export_dmabuf_fd: Option<unsafe extern "C" fn(dm: *mut ibv_dm) -> c_int>,
    pub free_buf: Option<unsafe extern "C" fn(buf: *mut ibv_buf)>,
    pub free_context: Option<unsafe extern "C" fn(context: *mut ibv_context)>,
    pub free_dm: Option<unsafe extern "C" fn(dm: *mut ibv_dm) -> c_int>,
    pub get_srq_num: Option<unsafe extern "C" fn(srq: *mut ibv_srq, srq_num: *mut u32) -> c_int>,
    pub import_dm:
        Option<unsafe extern "C" fn(context: *mut ibv_context, dm_handle: u32) -> *mut ibv_dm>,
    pub import_mr: Option<unsafe extern "C" fn(pd: *mut ibv_pd, mr_handle: u32) -> *mut ibv_mr>,
    pub import_pd:
        Option<unsafe extern "C" fn(context: *mut ibv_context, pd_handle: u32) -> *mut ibv_pd>,
    pub inc_comp_cntr:
        Option<unsafe extern "C" fn(comp_cntr: *mut ibv_comp_cntr, amount: u64) -> c_int>,
    pub inc_err_comp_cntr:
        Option<unsafe extern "C" fn(comp_cntr: *mut ibv_comp_cntr, amount: u64) -> c_int>,
    pub modify_cq:
        Option<unsafe extern "C" fn(cq: *mut ibv_cq, attr: *mut ibv_modify_cq_attr) -> c_int>,
    pub modify_flow_action_esp: Option<
        unsafe extern "C" fn(
            action: *mut ibv_flow_action,
            attr: *mut ibv_flow_action_esp_attr,
        ) -> c_int,
    >,
    pub modify_qp: Option<
        unsafe extern "C" fn(qp: *mut ibv_qp, attr: *mut ibv_qp_attr, attr_mask: c_int) -> c_int,
    >,
    pub modify_qp_rate_limit:
        Option<unsafe extern "C" fn(qp: *mut ibv_qp, attr: *mut ibv_qp_rate_limit_attr) -> c_int>,
    pub modify_srq: Option<
        unsafe extern "C" fn(
            srq: *mut ibv_srq,
            srq_attr: *mut ibv_srq_attr,
            srq_attr_mask: c_int,
        ) -> c_int,
    >,
    pub modify_wq:
        Option<unsafe extern "C" fn(wq: *mut ibv_wq, wq_attr: *mut ibv_wq_attr) -> c_int>,
    pub open_qp: Option<
        unsafe extern "C" fn(context: *mut ibv_context, attr: *mut ibv_qp_open_attr) -> *mut ibv_qp,
    >,
    pub open_xrcd: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            xrcd_init_attr: *mut ibv_xrcd_init_attr,
        ) -> *mut ibv_xrcd,
    >,
    pub poll_cq:
        Option<unsafe extern "C" fn(cq: *mut ibv_cq, num_entries: c_int, wc: *mut ibv_wc) -> c_int>,
    pub post_recv: Option<
        unsafe extern "C" fn(
            qp: *mut ibv_qp,
            wr: *mut ibv_recv_wr,
            bad_wr: *mut *mut ibv_recv_wr,
        ) -> c_int,
    >,
    pub post_send: Option<
        unsafe extern "C" fn(
            qp: *mut ibv_qp,
            wr: *mut ibv_send_wr,
            bad_wr: *mut *mut ibv_send_wr,
        ) -> c_int,
    >,
    pub post_srq_ops: Option<
        unsafe extern "C" fn(
            srq: *mut ibv_srq,
            op: *mut ibv_ops_wr,
            bad_op: *mut *mut ibv_ops_wr,
        ) -> c_int,
    >,
    pub post_srq_recv: Option<
        unsafe extern "C" fn(
            srq: *mut ibv_srq,
            recv_wr: *mut ibv_recv_wr,
            bad_recv_wr: *mut *mut ibv_recv_wr,
        ) -> c_int,
    >,
    pub qp_attach_comp_cntr: Option<
        unsafe extern "C" fn(
            qp: *mut ibv_qp,
            comp_cntr: *mut ibv_comp_cntr,
            attr: *mut ibv_qp_attach_comp_cntr_attr,
        ) -> c_int,
    >,
    pub query_comp_cntr_caps: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            caps: *mut ibv_comp_cntr_caps,
            caps_size: usize,
        ) -> c_int,
    >,
    pub query_device_ex: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            input: *const ibv_query_device_ex_input,
            attr: *mut ibv_device_attr_ex,
            attr_size: usize,
        ) -> c_int,
    >,
    pub query_ece: Option<unsafe extern "C" fn(qp: *mut ibv_qp, ece: *mut ibv_ece) -> c_int>,
    pub query_port: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            port_num: u8,
            port_attr: *mut ibv_port_attr,
        ) -> c_int,
    >,
    pub query_port_speed: Option<
        unsafe extern "C" fn(context: *mut ibv_context, port_num: u32, speed: *mut u64) -> c_int,
    >,
    pub query_qp: Option<
        unsafe extern "C" fn(
            qp: *mut ibv_qp,
            attr: *mut ibv_qp_attr,
            attr_mask: c_int,
            init_attr: *mut ibv_qp_init_attr,
        ) -> c_int,
    >,
    pub query_qp_data_in_order:
        Option<unsafe extern "C" fn(qp: *mut ibv_qp, op: ibv_wr_opcode, flags: u32) -> c_int>,
    pub query_rt_values: Option<
        unsafe extern "C" fn(context: *mut ibv_context, values: *mut ibv_values_ex) -> c_int,
    >,
    pub query_srq:
        Option<unsafe extern "C" fn(srq: *mut ibv_srq, srq_attr: *mut ibv_srq_attr) -> c_int>,
    pub read_comp_cntr:
        Option<unsafe extern "C" fn(comp_cntr: *mut ibv_comp_cntr, value: *mut u64) -> c_int>,
    pub read_counters: Option<
        unsafe extern "C" fn(
            counters: *mut ibv_counters,
            counters_value: *mut u64,
            ncounters: u32,
            flags: u32,
        ) -> c_int,
    >,
    pub read_err_comp_cntr:
        Option<unsafe extern "C" fn(comp_cntr: *mut ibv_comp_cntr, value: *mut u64) -> c_int>,
    pub reg_dm_mr: Option<
        unsafe extern "C" fn(
            pd: *mut ibv_pd,
            dm: *mut ibv_dm,
            dm_offset: u64,
            length: usize,
            access: c_uint,
        ) -> *mut ibv_mr,
    >,
    pub reg_dmabuf_mr: Option<
        unsafe extern "C" fn(
            pd: *mut ibv_pd,
            offset: u64,
            length: usize,
            iova: u64,
            fd: c_int,
            access: c_int,
        ) -> *mut ibv_mr,
    >,
    pub reg_mr: Option<
        unsafe extern "C" fn(
            pd: *mut ibv_pd,
            addr: *mut c_void,
            length: usize,
            hca_va: u64,
            access: c_int,
        ) -> *mut ibv_mr,
    >,
    pub reg_mr_ex: Option<
        unsafe extern "C" fn(pd: *mut ibv_pd, mr_init_attr: *mut ibv_mr_init_attr) -> *mut ibv_mr,
    >,
    pub req_notify_cq:
        Option<unsafe extern "C" fn(cq: *mut ibv_cq, solicited_only: c_int) -> c_int>,
    pub rereg_mr: Option<
        unsafe extern "C" fn(
            vmr: *mut verbs_mr,
            flags: c_int,
            pd: *mut ibv_pd,
            addr: *mut c_void,
            length: usize,
            access: c_int,
        ) -> c_int,
    >,
    pub resize_cq: Option<unsafe extern "C" fn(cq: *mut ibv_cq, cqe: c_int) -> c_int>,
    pub set_comp_cntr:
        Option<unsafe extern "C" fn(comp_cntr: *mut ibv_comp_cntr, value: u64) -> c_int>,
    pub set_ece: Option<unsafe extern "C" fn(qp: *mut ibv_qp, ece: *mut ibv_ece) -> c_int>,
    pub set_err_comp_cntr:
        Option<unsafe extern "C" fn(comp_cntr: *mut ibv_comp_cntr, value: u64) -> c_int>,
    pub unimport_dm: Option<unsafe extern "C" fn(dm: *mut ibv_dm)>,
    pub unimport_mr: Option<unsafe extern "C" fn(mr: *mut ibv_mr)>,
    pub unimport_pd: Option<unsafe extern "C" fn(pd: *mut ibv_pd)>,
}

/// C: `verbs_driver_init_func`, the legacy provider entry point type.
pub type verbs_driver_init_func = Option<
    unsafe extern "C" fn(uverbs_sys_path: *const c_char, abi_version: c_int) -> *mut verbs_device,
>;
