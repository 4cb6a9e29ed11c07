//! `#[repr(C)]` mirrors of the providers' private ABI: the types of
//! rdma-core v44.0's `libibverbs/driver.h` (not installed; providers are
//! built against it, and it is versioned as IBVERBS_PRIVATE_34).
//!
//! Conventions are those of [`crate::verbs`] (see the top of that file for the
//! naming rule of C's anonymous members: the union at the head of `verbs_qp`
//! and `verbs_cq` is the field `base`).
//!
//! Every struct is checked, in `src/layout/driver/pabi34_v44.rs`, against the
//! sizes, alignments and field offsets measured by the C probe
//! (`abi-tests/probe/driver_probe.c`, compiled against upstream's driver.h by
//! `abi-tests/probe/run.sh`), which also checks each field's C type, callback
//! signatures included.

use core::ffi::{c_char, c_int, c_uint, c_void};
use core::sync::atomic::AtomicI32;

use crate::verbs::*;

// ---------------------------------------------------------------------------
// ccan/list.h
// ---------------------------------------------------------------------------

/// An entry of a ccan doubly-linked list (`struct list_node`): the `next` and
/// `prev` pointers, which point at the node itself when it is unlinked.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct list_node {
    pub next: *mut list_node,
    pub prev: *mut list_node,
}

// ---------------------------------------------------------------------------
// Logging
// ---------------------------------------------------------------------------

/// Levels of `__verbs_log` (anonymous C enum); `VERBS_LOG_LEVEL_NONE`
/// disables logging.
pub const VERBS_LOG_LEVEL_NONE: u32 = 0;
pub const VERBS_LOG_ERR: u32 = 1;
pub const VERBS_LOG_WARN: u32 = 2;
pub const VERBS_LOG_INFO: u32 = 3;
pub const VERBS_LOG_DEBUG: u32 = 4;

// ---------------------------------------------------------------------------
// Wrapped objects
// ---------------------------------------------------------------------------

pub type verbs_xrcd_mask = u32;
pub const VERBS_XRCD_HANDLE: verbs_xrcd_mask = 1 << 0;
pub const VERBS_XRCD_RESERVED: verbs_xrcd_mask = 1 << 1;

pub type create_cq_cmd_flags = u32;
pub const CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX: create_cq_cmd_flags = 1 << 0;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct verbs_xrcd {
    pub xrcd: ibv_xrcd,
    /// `verbs_xrcd_mask` bits.
    pub comp_mask: u32,
    pub handle: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct verbs_srq {
    pub srq: ibv_srq,
    pub srq_type: ibv_srq_type,
    pub xrcd: *mut verbs_xrcd,
    pub cq: *mut ibv_cq,
    pub srq_num: u32,
}

pub type verbs_qp_mask = u32;
pub const VERBS_QP_XRCD: verbs_qp_mask = 1 << 0;
pub const VERBS_QP_EX: verbs_qp_mask = 1 << 1;

/// GID types as sysfs names them (`ibv_query_gid_type`).
pub type ibv_gid_type_sysfs = u32;
pub const IBV_GID_TYPE_SYSFS_IB_ROCE_V1: ibv_gid_type_sysfs = 0;
pub const IBV_GID_TYPE_SYSFS_ROCE_V2: ibv_gid_type_sysfs = 1;

pub type verbs_query_gid_attr_mask = u32;
pub const VERBS_QUERY_GID_ATTR_GID: verbs_query_gid_attr_mask = 1 << 0;
pub const VERBS_QUERY_GID_ATTR_TYPE: verbs_query_gid_attr_mask = 1 << 1;
pub const VERBS_QUERY_GID_ATTR_NDEV_IFINDEX: verbs_query_gid_attr_mask = 1 << 2;

pub type ibv_mr_type = u32;
pub const IBV_MR_TYPE_MR: ibv_mr_type = 0;
pub const IBV_MR_TYPE_NULL_MR: ibv_mr_type = 1;
pub const IBV_MR_TYPE_IMPORTED_MR: ibv_mr_type = 2;
pub const IBV_MR_TYPE_DMABUF_MR: ibv_mr_type = 3;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct verbs_mr {
    pub ibv_mr: ibv_mr,
    pub mr_type: ibv_mr_type,
    pub access: c_int,
}

/// C: the anonymous union at the head of `struct verbs_qp` (field `base`).
#[repr(C)]
#[derive(Clone, Copy)]
pub union verbs_qp_base {
    pub qp: ibv_qp,
    pub qp_ex: ibv_qp_ex,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct verbs_qp {
    /// C: anonymous union.
    pub base: verbs_qp_base,
    /// `verbs_qp_mask` bits.
    pub comp_mask: u32,
    pub xrcd: *mut verbs_xrcd,
}

/// C: the anonymous union that is the whole of `struct verbs_cq` (field
/// `base`).
#[repr(C)]
#[derive(Clone, Copy)]
pub union verbs_cq_base {
    pub cq: ibv_cq,
    pub cq_ex: ibv_cq_ex,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct verbs_cq {
    /// C: anonymous union.
    pub base: verbs_cq_base,
}

pub type ibv_flow_action_type = u32;
pub const IBV_FLOW_ACTION_UNSPECIFIED: ibv_flow_action_type = 0;
pub const IBV_FLOW_ACTION_ESP: ibv_flow_action_type = 1;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct verbs_flow_action {
    pub action: ibv_flow_action,
    pub handle: u32,
    pub type_: ibv_flow_action_type,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct verbs_dm {
    pub dm: ibv_dm,
    pub handle: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct verbs_counters {
    pub counters: ibv_counters,
    pub handle: u32,
}

// ---------------------------------------------------------------------------
// Device matching and sysfs devices
// ---------------------------------------------------------------------------

/// Kinds of `verbs_match_ent` (anonymous C enum; stored in the `u8` `kind`).
pub const VERBS_MATCH_SENTINEL: u8 = 0;
pub const VERBS_MATCH_PCI: u8 = 1;
pub const VERBS_MATCH_MODALIAS: u8 = 2;
pub const VERBS_MATCH_DRIVER_ID: u8 = 3;

#[repr(C)]
#[derive(Clone, Copy)]
pub union verbs_match_ent_u {
    /// For `VERBS_MATCH_MODALIAS`: an fnmatch pattern.
    pub modalias: *const c_char,
    /// For `VERBS_MATCH_DRIVER_ID`: an `rdma_driver_id` value.
    pub driver_id: u64,
}

/// One entry of a provider's match table, which ends with a
/// `VERBS_MATCH_SENTINEL` entry.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct verbs_match_ent {
    pub driver_data: *mut c_void,
    pub u: verbs_match_ent_u,
    pub vendor: u16,
    pub device: u16,
    pub kind: u8,
}

/// Which optional sysfs attributes were read into a `verbs_sysfs_dev`
/// (anonymous C enum; stored in `flags`).
pub const VSYSFS_READ_MODALIAS: c_uint = 1 << 0;
pub const VSYSFS_READ_NODE_GUID: c_uint = 1 << 1;

/// An RDMA device found in sysfs / netlink.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct verbs_sysfs_dev {
    pub entry: list_node,
    pub provider_data: *mut c_void,
    pub match_: *const verbs_match_ent,
    /// `VSYSFS_READ_*` bits.
    pub flags: c_uint,
    pub sysfs_name: [c_char; IBV_SYSFS_NAME_MAX],
    pub sysfs_cdev: libc::dev_t,
    pub ibdev_name: [c_char; IBV_SYSFS_NAME_MAX],
    pub ibdev_path: [c_char; IBV_SYSFS_PATH_MAX],
    pub modalias: [c_char; 512],
    pub node_guid: u64,
    pub driver_id: u32,
    pub node_type: ibv_node_type,
    pub ibdev_idx: c_int,
    pub num_ports: u32,
    pub abi_ver: u32,
    pub time_created: libc::timespec,
}

/// A provider's entry points (what `verbs_register_driver_34` receives).
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
/// (applications get `&device`).
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

/// Every op a provider can implement, in driver.h's (alphabetical) order.
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
    pub alloc_dm: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            attr: *mut ibv_alloc_dm_attr,
        ) -> *mut ibv_dm,
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
    pub dealloc_mw: Option<unsafe extern "C" fn(mw: *mut ibv_mw) -> c_int>,
    pub dealloc_pd: Option<unsafe extern "C" fn(pd: *mut ibv_pd) -> c_int>,
    pub dealloc_td: Option<unsafe extern "C" fn(td: *mut ibv_td) -> c_int>,
    pub dereg_mr: Option<unsafe extern "C" fn(vmr: *mut verbs_mr) -> c_int>,
    pub destroy_ah: Option<unsafe extern "C" fn(ah: *mut ibv_ah) -> c_int>,
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
    pub free_context: Option<unsafe extern "C" fn(context: *mut ibv_context)>,
    pub free_dm: Option<unsafe extern "C" fn(dm: *mut ibv_dm) -> c_int>,
    pub get_srq_num: Option<unsafe extern "C" fn(srq: *mut ibv_srq, srq_num: *mut u32) -> c_int>,
    pub import_dm:
        Option<unsafe extern "C" fn(context: *mut ibv_context, dm_handle: u32) -> *mut ibv_dm>,
    pub import_mr: Option<unsafe extern "C" fn(pd: *mut ibv_pd, mr_handle: u32) -> *mut ibv_mr>,
    pub import_pd:
        Option<unsafe extern "C" fn(context: *mut ibv_context, pd_handle: u32) -> *mut ibv_pd>,
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
    pub read_counters: Option<
        unsafe extern "C" fn(
            counters: *mut ibv_counters,
            counters_value: *mut u64,
            ncounters: u32,
            flags: u32,
        ) -> c_int,
    >,
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
    pub set_ece: Option<unsafe extern "C" fn(qp: *mut ibv_qp, ece: *mut ibv_ece) -> c_int>,
    pub unimport_dm: Option<unsafe extern "C" fn(dm: *mut ibv_dm)>,
    pub unimport_mr: Option<unsafe extern "C" fn(mr: *mut ibv_mr)>,
    pub unimport_pd: Option<unsafe extern "C" fn(pd: *mut ibv_pd)>,
}

/// C: `verbs_driver_init_func`, the legacy provider entry point type.
pub type verbs_driver_init_func = Option<
    unsafe extern "C" fn(uverbs_sys_path: *const c_char, abi_version: c_int) -> *mut verbs_device,
>;
