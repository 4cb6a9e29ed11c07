//! `#[repr(C)]` mirrors of `<infiniband/verbs.h>` as rdma-core 65 defines it:
//! everything of [`crate::verbs`] (rdma-core 44) whose layout did not change,
//! re-exported, plus the types that are new since 44 or whose layout grew.
//!
//! What changed between 44 and 65, and is therefore defined here:
//! - `ibv_port_attr` gained `active_speed_ex` at its end (4 more bytes);
//! - `ibv_qp_ex` gained the `wr_flush` builder at its end;
//! - `verbs_context` gained six ops at its front (`free_buf` ... `alloc_dmah`):
//!   new ops go before the old ones, so every op of 44 keeps its offset from
//!   the trailing `context`;
//! - new objects and attributes behind the symbol versions IBVERBS_1.15 to
//!   IBVERBS_1.18: DMA handles (`ibv_dmah`, `ibv_dmah_init_attr`), extended MR
//!   registration (`ibv_mr_init_attr`), completion counters (`ibv_comp_cntr`
//!   and its attributes and capabilities), and the file-descriptor array
//!   `ibv_fd_arr` that the private ABI's `ibv_cmd_get_context` takes;
//! - new enumerators of enums 44 already had (flush operations, the XDR link
//!   speed, the speed-change event, ...), whose types stay those of 44.
//!
//! `struct ibv_buf` is only declared by verbs.h; its body is in driver.h, so
//! it is mirrored in [`crate::driver::pabi65`].
//!
//! The conventions are those of [`crate::verbs`]. Every type and constant this
//! module provides, the re-exported ones included, is checked in
//! `src/layout/verbs_v65.rs` against the numbers the probe
//! `abi-tests/probe/layout_probe_v65.c` prints when compiled against the
//! rdma-core 65 headers (`abi-tests/probe/run-65.sh`): a type of 44 that
//! changed in 65 without being redefined here fails the build.

use core::ffi::{c_int, c_uint, c_void};

use crate::driver::pabi65::ibv_buf;

pub use crate::verbs::*;

// ---------------------------------------------------------------------------
// Device attributes
// ---------------------------------------------------------------------------

/// Device capability bit (upper half of `ibv_device_attr_ex::device_cap_flags_ex`):
/// confidential-computing DMA goes through bounce buffers.
pub const IBV_DEVICE_CC_DMA_BOUNCE: u64 = 1 << 41;

pub const IBV_ODP_SUPPORT_FLUSH: ibv_odp_transport_cap_bits = 1 << 6;
pub const IBV_ODP_SUPPORT_ATOMIC_WRITE: ibv_odp_transport_cap_bits = 1 << 7;

// ---------------------------------------------------------------------------
// Ports
// ---------------------------------------------------------------------------

pub const IBV_PORT_LINK_SPEED_XDR_SUP: ibv_port_cap_flags2 = 1 << 12;

/// Port attributes; 65 appends `active_speed_ex` to 44's layout.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_port_attr {
    pub state: ibv_port_state,
    pub max_mtu: ibv_mtu,
    pub active_mtu: ibv_mtu,
    pub gid_tbl_len: c_int,
    pub port_cap_flags: u32,
    pub max_msg_sz: u32,
    pub bad_pkey_cntr: u32,
    pub qkey_viol_cntr: u32,
    pub pkey_tbl_len: u16,
    pub lid: u16,
    pub sm_lid: u16,
    pub lmc: u8,
    pub max_vl_num: u8,
    pub sm_sl: u8,
    pub subnet_timeout: u8,
    pub init_type_reply: u8,
    pub active_width: u8,
    pub active_speed: u8,
    pub phys_state: u8,
    pub link_layer: u8,
    pub flags: u8,
    pub port_cap_flags2: u16,
    /// The active speed as a full 32-bit value, for speeds the `u8`
    /// `active_speed` cannot encode (0 when the kernel does not report it).
    pub active_speed_ex: u32,
}

// ---------------------------------------------------------------------------
// Async events and work completions
// ---------------------------------------------------------------------------

pub const IBV_EVENT_DEVICE_SPEED_CHANGE: ibv_event_type = 20;

pub const IBV_WC_FLUSH: ibv_wc_opcode = 8;

// ---------------------------------------------------------------------------
// Memory: access flags, DMA handles, extended MR registration
// ---------------------------------------------------------------------------

pub const IBV_ACCESS_FLUSH_GLOBAL: ibv_access_flags = 1 << 8;
pub const IBV_ACCESS_FLUSH_PERSISTENT: ibv_access_flags = 1 << 9;

/// A DMA handle: the placement hints (CPU, TPH steering tag) that memory
/// registered with it carries (IBVERBS_1.15).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_dmah {
    pub context: *mut ibv_context,
}

/// Which optional fields of `ibv_mr_init_attr` are valid (stored in its
/// `u64` `comp_mask`).
pub type ibv_mr_init_attr_mask = u32;
pub const IBV_REG_MR_MASK_IOVA: ibv_mr_init_attr_mask = 1 << 0;
pub const IBV_REG_MR_MASK_ADDR: ibv_mr_init_attr_mask = 1 << 1;
pub const IBV_REG_MR_MASK_FD: ibv_mr_init_attr_mask = 1 << 2;
pub const IBV_REG_MR_MASK_FD_OFFSET: ibv_mr_init_attr_mask = 1 << 3;
pub const IBV_REG_MR_MASK_DMAH: ibv_mr_init_attr_mask = 1 << 4;
pub const IBV_REG_MR_MASK_BUF: ibv_mr_init_attr_mask = 1 << 5;

/// The input of `ibv_reg_mr_ex` (IBVERBS_1.15): one call for user memory,
/// dma-buf memory, DMA-handle placement and `ibv_alloc_buf` buffers.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_mr_init_attr {
    pub length: usize,
    /// `ibv_access_flags` bits.
    pub access: c_int,
    /// `ibv_mr_init_attr_mask` bits.
    pub comp_mask: u64,
    pub iova: u64,
    pub addr: *mut c_void,
    /// A dma-buf file descriptor.
    pub fd: c_int,
    pub fd_offset: u64,
    pub dmah: *mut ibv_dmah,
    /// A buffer from `ibv_alloc_buf`; `addr` must then be set too.
    pub buf: *mut ibv_buf,
}

// ---------------------------------------------------------------------------
// Queue pairs and work requests
// ---------------------------------------------------------------------------

pub const IBV_QP_EX_WITH_FLUSH: ibv_qp_create_send_ops_flags = 1 << 11;

/// The `flags` of `ibv_query_qp_data_in_order`: what to ask.
pub type ibv_query_qp_data_in_order_flags = u32;
pub const IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS: ibv_query_qp_data_in_order_flags = 1 << 0;
pub const IBV_QUERY_QP_DATA_IN_ORDER_DEVICE_ONLY: ibv_query_qp_data_in_order_flags = 1 << 1;

/// The capability bits `ibv_query_qp_data_in_order` returns when asked for
/// them (`IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS`).
pub type ibv_query_qp_data_in_order_caps = u32;
pub const IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG: ibv_query_qp_data_in_order_caps = 1 << 0;
pub const IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES: ibv_query_qp_data_in_order_caps = 1 << 1;

pub const IBV_WR_FLUSH: ibv_wr_opcode = 14;

/// The persistence domain a flush work request targets (its `type`
/// argument).
pub type ibv_placement_type = u32;
pub const IBV_FLUSH_GLOBAL: ibv_placement_type = 1 << 0;
pub const IBV_FLUSH_PERSISTENT: ibv_placement_type = 1 << 1;

/// How much a flush work request covers (its `level` argument): the given
/// range, or the whole MR.
pub type ibv_selectivity_level = u32;
pub const IBV_FLUSH_RANGE: ibv_selectivity_level = 0;
pub const IBV_FLUSH_MR: ibv_selectivity_level = 1;

/// An array of file descriptors with its length (`ibv_cmd_get_context` of
/// the private ABI passes the descriptors to share with the kernel in one).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_fd_arr {
    pub arr: *mut c_int,
    pub count: u32,
}

/// Queue pair with the work-request builder interface (`ibv_wr_*`); 65
/// appends `wr_flush` to 44's layout.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_qp_ex {
    pub qp_base: ibv_qp,
    pub comp_mask: u64,
    pub wr_id: u64,
    /// `ibv_send_flags` bits.
    pub wr_flags: c_uint,
    pub wr_atomic_cmp_swp: Option<
        unsafe extern "C" fn(
            qp: *mut ibv_qp_ex,
            rkey: u32,
            remote_addr: u64,
            compare: u64,
            swap: u64,
        ),
    >,
    pub wr_atomic_fetch_add:
        Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, rkey: u32, remote_addr: u64, add: u64)>,
    pub wr_bind_mw: Option<
        unsafe extern "C" fn(
            qp: *mut ibv_qp_ex,
            mw: *mut ibv_mw,
            rkey: u32,
            bind_info: *const ibv_mw_bind_info,
        ),
    >,
    pub wr_local_inv: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, invalidate_rkey: u32)>,
    pub wr_rdma_read: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, rkey: u32, remote_addr: u64)>,
    pub wr_rdma_write:
        Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, rkey: u32, remote_addr: u64)>,
    /// `imm_data` is big-endian.
    pub wr_rdma_write_imm: Option<
        unsafe extern "C" fn(qp: *mut ibv_qp_ex, rkey: u32, remote_addr: u64, imm_data: u32),
    >,
    pub wr_send: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex)>,
    /// `imm_data` is big-endian.
    pub wr_send_imm: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, imm_data: u32)>,
    pub wr_send_inv: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, invalidate_rkey: u32)>,
    pub wr_send_tso:
        Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, hdr: *mut c_void, hdr_sz: u16, mss: u16)>,
    pub wr_set_ud_addr: Option<
        unsafe extern "C" fn(
            qp: *mut ibv_qp_ex,
            ah: *mut ibv_ah,
            remote_qpn: u32,
            remote_qkey: u32,
        ),
    >,
    pub wr_set_xrc_srqn: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, remote_srqn: u32)>,
    pub wr_set_inline_data:
        Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, addr: *mut c_void, length: usize)>,
    pub wr_set_inline_data_list: Option<
        unsafe extern "C" fn(qp: *mut ibv_qp_ex, num_buf: usize, buf_list: *const ibv_data_buf),
    >,
    pub wr_set_sge:
        Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, lkey: u32, addr: u64, length: u32)>,
    pub wr_set_sge_list:
        Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, num_sge: usize, sg_list: *const ibv_sge)>,
    pub wr_start: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex)>,
    pub wr_complete: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex) -> c_int>,
    pub wr_abort: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex)>,
    pub wr_atomic_write: Option<
        unsafe extern "C" fn(
            qp: *mut ibv_qp_ex,
            rkey: u32,
            remote_addr: u64,
            atomic_wr: *const c_void,
        ),
    >,
    /// `type_` is an `ibv_placement_type` value, `level` an
    /// `ibv_selectivity_level` value, both passed as `u8`.
    pub wr_flush: Option<
        unsafe extern "C" fn(
            qp: *mut ibv_qp_ex,
            rkey: u32,
            remote_addr: u64,
            len: usize,
            type_: u8,
            level: u8,
        ),
    >,
}

// ---------------------------------------------------------------------------
// Completion counters (IBVERBS_1.18)
// ---------------------------------------------------------------------------

/// The operations whose completions a counter attached to a QP counts.
pub type ibv_qp_attach_comp_cntr_op = u32;
pub const IBV_QP_ATTACH_COMP_CNTR_OP_SEND: ibv_qp_attach_comp_cntr_op = 1 << 0;
pub const IBV_QP_ATTACH_COMP_CNTR_OP_RECV: ibv_qp_attach_comp_cntr_op = 1 << 1;
pub const IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_READ: ibv_qp_attach_comp_cntr_op = 1 << 2;
pub const IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ: ibv_qp_attach_comp_cntr_op = 1 << 3;
pub const IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE: ibv_qp_attach_comp_cntr_op = 1 << 4;
pub const IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE: ibv_qp_attach_comp_cntr_op = 1 << 5;

/// What a device's completion counters can do (`_ibv_query_comp_cntr_caps`
/// fills it, up to the size the caller passes).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_comp_cntr_caps {
    pub max_value: u64,
    pub max_counters: u32,
    /// `ibv_qp_attach_comp_cntr_op` bits.
    pub supported_qp_attach_ops: u32,
}

/// A completion counter: counts the completions (and, apart, the errors) of
/// the QPs it is attached to.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_comp_cntr {
    pub context: *mut ibv_context,
    pub handle: u32,
}

/// What a completion counter counts: work requests or bytes.
pub type ibv_comp_cntr_type = u32;
pub const IBV_COMP_CNTR_TYPE_WRS: ibv_comp_cntr_type = 0;
pub const IBV_COMP_CNTR_TYPE_BYTES: ibv_comp_cntr_type = 1;

/// The input of `ibv_create_comp_cntr`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_comp_cntr_init_attr {
    pub comp_mask: u32,
    pub type_: ibv_comp_cntr_type,
    pub flags: u32,
}

/// The input of `ibv_qp_attach_comp_cntr`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_qp_attach_comp_cntr_attr {
    pub comp_mask: u32,
    /// `ibv_qp_attach_comp_cntr_op` bits.
    pub op_mask: u32,
}

// ---------------------------------------------------------------------------
// Parent domains and DMA handle attributes
// ---------------------------------------------------------------------------

pub const IBV_PARENT_DOMAIN_INIT_ATTR_ALLOW_CC_UNPROTECTED_ALLOC: ibv_parent_domain_init_attr_mask =
    1 << 2;

/// The memory kind a DMA handle's TPH hint is for (stored in the `u8`
/// `ibv_dmah_init_attr::tph_mem_type`).
pub type ibv_tph_mem_type = u32;
/// Volatile memory.
pub const IBV_TPH_MEM_TYPE_VM: ibv_tph_mem_type = 0;
/// Persistent memory.
pub const IBV_TPH_MEM_TYPE_PM: ibv_tph_mem_type = 1;

/// Which fields of `ibv_dmah_init_attr` are valid (its `comp_mask`).
pub type ibv_dmah_init_attr_mask = u32;
pub const IBV_DMAH_INIT_ATTR_MASK_CPU_ID: ibv_dmah_init_attr_mask = 1 << 0;
pub const IBV_DMAH_INIT_ATTR_MASK_PH: ibv_dmah_init_attr_mask = 1 << 1;
pub const IBV_DMAH_INIT_ATTR_MASK_TPH_MEM_TYPE: ibv_dmah_init_attr_mask = 1 << 2;

/// The input of `ibv_alloc_dmah`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_dmah_init_attr {
    /// `ibv_dmah_init_attr_mask` bits.
    pub comp_mask: u32,
    pub cpu_id: u32,
    /// TPH processing hint.
    pub ph: u8,
    /// An `ibv_tph_mem_type` value.
    pub tph_mem_type: u8,
}

// ---------------------------------------------------------------------------
// Devices and contexts
// ---------------------------------------------------------------------------

/// The extended context of rdma-core 65: 44's layout with six ops added at
/// its front (`free_buf` to `alloc_dmah`, newest first), so the ops of 44
/// keep their offsets from the trailing `context`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct verbs_context {
    pub free_buf: Option<unsafe extern "C" fn(buf: *mut ibv_buf)>,
    pub alloc_buf: Option<
        unsafe extern "C" fn(pd: *mut ibv_pd, size: usize, buf: *mut *mut ibv_buf) -> *mut c_void,
    >,
    pub dm_export_dmabuf_fd: Option<unsafe extern "C" fn(dm: *mut ibv_dm) -> c_int>,
    pub reg_mr_ex: Option<
        unsafe extern "C" fn(pd: *mut ibv_pd, mr_init_attr: *mut ibv_mr_init_attr) -> *mut ibv_mr,
    >,
    pub dealloc_dmah: Option<unsafe extern "C" fn(dmah: *mut ibv_dmah) -> c_int>,
    pub alloc_dmah: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            attr: *mut ibv_dmah_init_attr,
        ) -> *mut ibv_dmah,
    >,
    pub query_port: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            port_num: u8,
            port_attr: *mut ibv_port_attr,
            port_attr_len: usize,
        ) -> c_int,
    >,
    pub advise_mr: Option<
        unsafe extern "C" fn(
            pd: *mut ibv_pd,
            advice: ibv_advise_mr_advice,
            flags: u32,
            sg_list: *mut ibv_sge,
            num_sges: u32,
        ) -> c_int,
    >,
    pub alloc_null_mr: Option<unsafe extern "C" fn(pd: *mut ibv_pd) -> *mut ibv_mr>,
    pub read_counters: Option<
        unsafe extern "C" fn(
            counters: *mut ibv_counters,
            counters_value: *mut u64,
            ncounters: u32,
            flags: u32,
        ) -> c_int,
    >,
    pub attach_counters_point_flow: Option<
        unsafe extern "C" fn(
            counters: *mut ibv_counters,
            attr: *mut ibv_counter_attach_attr,
            flow: *mut ibv_flow,
        ) -> c_int,
    >,
    pub create_counters: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            init_attr: *mut ibv_counters_init_attr,
        ) -> *mut ibv_counters,
    >,
    pub destroy_counters: Option<unsafe extern "C" fn(counters: *mut ibv_counters) -> c_int>,
    pub reg_dm_mr: Option<
        unsafe extern "C" fn(
            pd: *mut ibv_pd,
            dm: *mut ibv_dm,
            dm_offset: u64,
            length: usize,
            access: c_uint,
        ) -> *mut ibv_mr,
    >,
    pub alloc_dm: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            attr: *mut ibv_alloc_dm_attr,
        ) -> *mut ibv_dm,
    >,
    pub free_dm: Option<unsafe extern "C" fn(dm: *mut ibv_dm) -> c_int>,
    pub modify_flow_action_esp: Option<
        unsafe extern "C" fn(
            action: *mut ibv_flow_action,
            attr: *mut ibv_flow_action_esp_attr,
        ) -> c_int,
    >,
    pub destroy_flow_action: Option<unsafe extern "C" fn(action: *mut ibv_flow_action) -> c_int>,
    pub create_flow_action_esp: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            attr: *mut ibv_flow_action_esp_attr,
        ) -> *mut ibv_flow_action,
    >,
    pub modify_qp_rate_limit:
        Option<unsafe extern "C" fn(qp: *mut ibv_qp, attr: *mut ibv_qp_rate_limit_attr) -> c_int>,
    pub alloc_parent_domain: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            attr: *mut ibv_parent_domain_init_attr,
        ) -> *mut ibv_pd,
    >,
    pub dealloc_td: Option<unsafe extern "C" fn(td: *mut ibv_td) -> c_int>,
    pub alloc_td: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            init_attr: *mut ibv_td_init_attr,
        ) -> *mut ibv_td,
    >,
    pub modify_cq:
        Option<unsafe extern "C" fn(cq: *mut ibv_cq, attr: *mut ibv_modify_cq_attr) -> c_int>,
    pub post_srq_ops: Option<
        unsafe extern "C" fn(
            srq: *mut ibv_srq,
            op: *mut ibv_ops_wr,
            bad_op: *mut *mut ibv_ops_wr,
        ) -> c_int,
    >,
    pub destroy_rwq_ind_table:
        Option<unsafe extern "C" fn(rwq_ind_table: *mut ibv_rwq_ind_table) -> c_int>,
    pub create_rwq_ind_table: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            init_attr: *mut ibv_rwq_ind_table_init_attr,
        ) -> *mut ibv_rwq_ind_table,
    >,
    pub destroy_wq: Option<unsafe extern "C" fn(wq: *mut ibv_wq) -> c_int>,
    pub modify_wq:
        Option<unsafe extern "C" fn(wq: *mut ibv_wq, wq_attr: *mut ibv_wq_attr) -> c_int>,
    pub create_wq: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            wq_init_attr: *mut ibv_wq_init_attr,
        ) -> *mut ibv_wq,
    >,
    pub query_rt_values: Option<
        unsafe extern "C" fn(context: *mut ibv_context, values: *mut ibv_values_ex) -> c_int,
    >,
    pub create_cq_ex: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            init_attr: *mut ibv_cq_init_attr_ex,
        ) -> *mut ibv_cq_ex,
    >,
    /// C: `priv`.
    pub priv_: *mut verbs_ex_private,
    pub query_device_ex: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            input: *const ibv_query_device_ex_input,
            attr: *mut ibv_device_attr_ex,
            attr_size: usize,
        ) -> c_int,
    >,
    pub ibv_destroy_flow: Option<unsafe extern "C" fn(flow: *mut ibv_flow) -> c_int>,
    pub ABI_placeholder2: Option<unsafe extern "C" fn()>,
    pub ibv_create_flow: Option<
        unsafe extern "C" fn(qp: *mut ibv_qp, flow_attr: *mut ibv_flow_attr) -> *mut ibv_flow,
    >,
    pub ABI_placeholder1: Option<unsafe extern "C" fn()>,
    pub open_qp: Option<
        unsafe extern "C" fn(context: *mut ibv_context, attr: *mut ibv_qp_open_attr) -> *mut ibv_qp,
    >,
    pub create_qp_ex: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            qp_init_attr_ex: *mut ibv_qp_init_attr_ex,
        ) -> *mut ibv_qp,
    >,
    pub get_srq_num: Option<unsafe extern "C" fn(srq: *mut ibv_srq, srq_num: *mut u32) -> c_int>,
    pub create_srq_ex: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            srq_init_attr_ex: *mut ibv_srq_init_attr_ex,
        ) -> *mut ibv_srq,
    >,
    pub open_xrcd: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            xrcd_init_attr: *mut ibv_xrcd_init_attr,
        ) -> *mut ibv_xrcd,
    >,
    pub close_xrcd: Option<unsafe extern "C" fn(xrcd: *mut ibv_xrcd) -> c_int>,
    pub _ABI_placeholder3: u64,
    /// Size of this structure as the provider knows it; must stay right before
    /// `context`.
    pub sz: usize,
    /// Must be the last field.
    pub context: ibv_context,
}
