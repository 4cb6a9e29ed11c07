//! `#[repr(C)]` mirrors of the public types of `<infiniband/verbs.h>`
//! (rdma-core 44), in the order the header declares them, plus the `ibv_*`
//! types of `<infiniband/sa.h>` and the kernel path record of
//! `<rdma/ib_user_sa.h>` that the `ibv_copy_path_rec_*` helpers take.
//!
//! Conventions
//! - Type and field names are the C names. Big-endian C fields (`__be16`,
//!   `__be32`, `__be64`) are plain `u16`/`u32`/`u64` holding the wire-order
//!   bytes; their doc comments say so.
//! - A C enum is a type alias of its underlying integer type plus one `const`
//!   per enumerator: `u32` when all enumerators are non-negative, `i32`
//!   (`c_int`) when the enum has a negative enumerator (`ibv_node_type`,
//!   `ibv_transport_type`, `ibv_rereg_mr_err_code`). Enumerators of anonymous
//!   C enums get the type of the field they are stored in (for example the
//!   `IBV_LINK_LAYER_*` values are `u8` like `ibv_port_attr::link_layer`), or
//!   `u32` when no field holds them; array bounds are `usize`.
//! - `#define` constants keep their C names and the width C gives them.
//! - Function-pointer fields are `Option<unsafe extern "C" fn(..)>` with the
//!   exact C signature (NULL is `None`).
//!
//! Naming rule for C's anonymous types
//! 1. A member whose *type* is anonymous but which has a name in C (for
//!    example `ibv_send_wr.wr`, `ibv_gid.global`, `ibv_ops_wr.tm.add`) keeps
//!    its C field name; its Rust type is named after the path to it: the outer
//!    type name, then each field name, joined with `_`: `ibv_send_wr_wr`,
//!    `ibv_send_wr_wr_rdma`, `ibv_gid_global`, `ibv_ops_wr_tm_add`,
//!    `ibv_async_event_element`.
//! 2. A member that has *no name* in C (an anonymous union/struct member) is
//!    given a name that says what the union holds, and rule 1 then names its
//!    type from that name:
//!    - `imm`: the 32-bit word that is either the immediate data or an rkey
//!      (`ibv_wc.imm` of type `ibv_wc_imm` with `imm_data` /
//!      `invalidated_rkey`; `ibv_send_wr.imm` of type `ibv_send_wr_imm` with
//!      `imm_data` / `invalidate_rkey`);
//!    - `op`: the parameters of the work requests that are neither RDMA,
//!      atomic nor UD (`ibv_send_wr.op` of type `ibv_send_wr_op` with
//!      `bind_mw` / `tso`, types `ibv_send_wr_op_bind_mw` /
//!      `ibv_send_wr_op_tso`);
//!    - `u`: an anonymous union that is the whole body of its struct, the name
//!      C itself uses for `verbs_match_ent.u` (`ibv_flow_spec.u` of type
//!      `ibv_flow_spec_u`; its `hdr` member has type `ibv_flow_spec_u_hdr`);
//!    - `base`: the union of a public object and its extended form at the head
//!      of a driver.h wrapper (`verbs_qp.base` of type `verbs_qp_base` with
//!      `qp` / `qp_ex`; `verbs_cq.base` of type `verbs_cq_base` with
//!      `cq` / `cq_ex`; see `abi::driver`).
//!
//!    So C's `wc->imm_data` is `wc.imm.imm_data`, `wr->invalidate_rkey` is
//!    `wr.imm.invalidate_rkey`, `wr->tso.mss` is `wr.op.tso.mss`,
//!    `spec->hdr.type` is `spec.u.hdr.type_` ... and `vqp->qp` is
//!    `vqp.base.qp`.
//! 3. C fields named with a Rust keyword get a trailing underscore: `type_`,
//!    `priv_`, `match_`.
//!
//! The `ibv_flow_action_esp*` names of `<infiniband/verbs_api.h>` are macros
//! for the kernel's `ib_uverbs_flow_action_esp*` structs
//! (`<rdma/ib_user_ioctl_verbs.h>`); they are mirrored here under the `ibv_`
//! names with the same layout. The kernel's `RDMA_UAPI_PTR` members (a union
//! of a pointer and a `__aligned_u64`) are plain pointers: on the 64-bit
//! targets we build for both have size 8 and alignment 8.
//!
//! Every struct is checked at the end of this file against the sizes,
//! alignments and field offsets the C probe (`abi-tests/probe/`) measured from
//! the installed headers, and every constant against the header's value. The
//! probe itself only compiles if every C field has the C translation of the
//! Rust field's type (integer width and signedness, pointee constness,
//! callback signatures). After changing a type here, run
//! `abi-tests/probe/run.sh`: it regenerates the probe and the assertions.

use core::ffi::{c_char, c_int, c_uint, c_void};
use libc::{pthread_cond_t, pthread_mutex_t, timespec};

// ---------------------------------------------------------------------------
// GIDs
// ---------------------------------------------------------------------------

/// The two 64-bit halves of a GID (both big-endian).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_gid_global {
    /// Big-endian.
    pub subnet_prefix: u64,
    /// Big-endian.
    pub interface_id: u64,
}

/// A 128-bit global identifier.
#[repr(C)]
#[derive(Clone, Copy)]
pub union ibv_gid {
    pub raw: [u8; 16],
    pub global: ibv_gid_global,
}

pub type ibv_gid_type = u32;
pub const IBV_GID_TYPE_IB: ibv_gid_type = 0;
pub const IBV_GID_TYPE_ROCE_V1: ibv_gid_type = 1;
pub const IBV_GID_TYPE_ROCE_V2: ibv_gid_type = 2;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_gid_entry {
    pub gid: ibv_gid,
    pub gid_index: u32,
    pub port_num: u32,
    /// An `ibv_gid_type` value.
    pub gid_type: u32,
    pub ndev_ifindex: u32,
}

/// `ibv_context::abi_compat` holds this value when the context is embedded in
/// a `verbs_context` (C: `(void *)UINTPTR_MAX`).
pub const __VERBS_ABI_IS_EXTENDED: *mut c_void = usize::MAX as *mut c_void;

// ---------------------------------------------------------------------------
// Device attributes
// ---------------------------------------------------------------------------

pub type ibv_node_type = c_int;
pub const IBV_NODE_UNKNOWN: ibv_node_type = -1;
pub const IBV_NODE_CA: ibv_node_type = 1;
pub const IBV_NODE_SWITCH: ibv_node_type = 2;
pub const IBV_NODE_ROUTER: ibv_node_type = 3;
pub const IBV_NODE_RNIC: ibv_node_type = 4;
pub const IBV_NODE_USNIC: ibv_node_type = 5;
pub const IBV_NODE_USNIC_UDP: ibv_node_type = 6;
pub const IBV_NODE_UNSPECIFIED: ibv_node_type = 7;

pub type ibv_transport_type = c_int;
pub const IBV_TRANSPORT_UNKNOWN: ibv_transport_type = -1;
pub const IBV_TRANSPORT_IB: ibv_transport_type = 0;
pub const IBV_TRANSPORT_IWARP: ibv_transport_type = 1;
pub const IBV_TRANSPORT_USNIC: ibv_transport_type = 2;
pub const IBV_TRANSPORT_USNIC_UDP: ibv_transport_type = 3;
pub const IBV_TRANSPORT_UNSPECIFIED: ibv_transport_type = 4;

pub type ibv_device_cap_flags = u32;
pub const IBV_DEVICE_RESIZE_MAX_WR: ibv_device_cap_flags = 1;
pub const IBV_DEVICE_BAD_PKEY_CNTR: ibv_device_cap_flags = 1 << 1;
pub const IBV_DEVICE_BAD_QKEY_CNTR: ibv_device_cap_flags = 1 << 2;
pub const IBV_DEVICE_RAW_MULTI: ibv_device_cap_flags = 1 << 3;
pub const IBV_DEVICE_AUTO_PATH_MIG: ibv_device_cap_flags = 1 << 4;
pub const IBV_DEVICE_CHANGE_PHY_PORT: ibv_device_cap_flags = 1 << 5;
pub const IBV_DEVICE_UD_AV_PORT_ENFORCE: ibv_device_cap_flags = 1 << 6;
pub const IBV_DEVICE_CURR_QP_STATE_MOD: ibv_device_cap_flags = 1 << 7;
pub const IBV_DEVICE_SHUTDOWN_PORT: ibv_device_cap_flags = 1 << 8;
pub const IBV_DEVICE_INIT_TYPE: ibv_device_cap_flags = 1 << 9;
pub const IBV_DEVICE_PORT_ACTIVE_EVENT: ibv_device_cap_flags = 1 << 10;
pub const IBV_DEVICE_SYS_IMAGE_GUID: ibv_device_cap_flags = 1 << 11;
pub const IBV_DEVICE_RC_RNR_NAK_GEN: ibv_device_cap_flags = 1 << 12;
pub const IBV_DEVICE_SRQ_RESIZE: ibv_device_cap_flags = 1 << 13;
pub const IBV_DEVICE_N_NOTIFY_CQ: ibv_device_cap_flags = 1 << 14;
pub const IBV_DEVICE_MEM_WINDOW: ibv_device_cap_flags = 1 << 17;
pub const IBV_DEVICE_UD_IP_CSUM: ibv_device_cap_flags = 1 << 18;
pub const IBV_DEVICE_XRC: ibv_device_cap_flags = 1 << 20;
pub const IBV_DEVICE_MEM_MGT_EXTENSIONS: ibv_device_cap_flags = 1 << 21;
pub const IBV_DEVICE_MEM_WINDOW_TYPE_2A: ibv_device_cap_flags = 1 << 23;
pub const IBV_DEVICE_MEM_WINDOW_TYPE_2B: ibv_device_cap_flags = 1 << 24;
pub const IBV_DEVICE_RC_IP_CSUM: ibv_device_cap_flags = 1 << 25;
pub const IBV_DEVICE_RAW_IP_CSUM: ibv_device_cap_flags = 1 << 26;
pub const IBV_DEVICE_MANAGED_FLOW_STEERING: ibv_device_cap_flags = 1 << 29;

pub type ibv_fork_status = u32;
pub const IBV_FORK_DISABLED: ibv_fork_status = 0;
pub const IBV_FORK_ENABLED: ibv_fork_status = 1;
pub const IBV_FORK_UNNEEDED: ibv_fork_status = 2;

/// Bits of `ibv_device_attr_ex::device_cap_flags_ex` above 32 bits (C
/// `#define`s, `unsigned long long`).
pub const IBV_DEVICE_RAW_SCATTER_FCS: u64 = 1 << 34;
pub const IBV_DEVICE_PCI_WRITE_END_PADDING: u64 = 1 << 36;

pub type ibv_atomic_cap = u32;
pub const IBV_ATOMIC_NONE: ibv_atomic_cap = 0;
pub const IBV_ATOMIC_HCA: ibv_atomic_cap = 1;
pub const IBV_ATOMIC_GLOB: ibv_atomic_cap = 2;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_alloc_dm_attr {
    pub length: usize,
    pub log_align_req: u32,
    pub comp_mask: u32,
}

pub type ibv_dm_mask = u32;
pub const IBV_DM_MASK_HANDLE: ibv_dm_mask = 1 << 0;

/// Device memory.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_dm {
    pub context: *mut ibv_context,
    pub memcpy_to_dm: Option<
        unsafe extern "C" fn(
            dm: *mut ibv_dm,
            dm_offset: u64,
            host_addr: *const c_void,
            length: usize,
        ) -> c_int,
    >,
    pub memcpy_from_dm: Option<
        unsafe extern "C" fn(
            host_addr: *mut c_void,
            dm: *mut ibv_dm,
            dm_offset: u64,
            length: usize,
        ) -> c_int,
    >,
    pub comp_mask: u32,
    pub handle: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_device_attr {
    pub fw_ver: [c_char; 64],
    /// Big-endian.
    pub node_guid: u64,
    /// Big-endian.
    pub sys_image_guid: u64,
    pub max_mr_size: u64,
    pub page_size_cap: u64,
    pub vendor_id: u32,
    pub vendor_part_id: u32,
    pub hw_ver: u32,
    pub max_qp: c_int,
    pub max_qp_wr: c_int,
    pub device_cap_flags: c_uint,
    pub max_sge: c_int,
    pub max_sge_rd: c_int,
    pub max_cq: c_int,
    pub max_cqe: c_int,
    pub max_mr: c_int,
    pub max_pd: c_int,
    pub max_qp_rd_atom: c_int,
    pub max_ee_rd_atom: c_int,
    pub max_res_rd_atom: c_int,
    pub max_qp_init_rd_atom: c_int,
    pub max_ee_init_rd_atom: c_int,
    pub atomic_cap: ibv_atomic_cap,
    pub max_ee: c_int,
    pub max_rdd: c_int,
    pub max_mw: c_int,
    pub max_raw_ipv6_qp: c_int,
    pub max_raw_ethy_qp: c_int,
    pub max_mcast_grp: c_int,
    pub max_mcast_qp_attach: c_int,
    pub max_total_mcast_qp_attach: c_int,
    pub max_ah: c_int,
    pub max_fmr: c_int,
    pub max_map_per_fmr: c_int,
    pub max_srq: c_int,
    pub max_srq_wr: c_int,
    pub max_srq_sge: c_int,
    pub max_pkeys: u16,
    pub local_ca_ack_delay: u8,
    pub phys_port_cnt: u8,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_query_device_ex_input {
    pub comp_mask: u32,
}

pub type ibv_odp_transport_cap_bits = u32;
pub const IBV_ODP_SUPPORT_SEND: ibv_odp_transport_cap_bits = 1 << 0;
pub const IBV_ODP_SUPPORT_RECV: ibv_odp_transport_cap_bits = 1 << 1;
pub const IBV_ODP_SUPPORT_WRITE: ibv_odp_transport_cap_bits = 1 << 2;
pub const IBV_ODP_SUPPORT_READ: ibv_odp_transport_cap_bits = 1 << 3;
pub const IBV_ODP_SUPPORT_ATOMIC: ibv_odp_transport_cap_bits = 1 << 4;
pub const IBV_ODP_SUPPORT_SRQ_RECV: ibv_odp_transport_cap_bits = 1 << 5;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_odp_caps_per_transport_caps {
    pub rc_odp_caps: u32,
    pub uc_odp_caps: u32,
    pub ud_odp_caps: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_odp_caps {
    pub general_caps: u64,
    pub per_transport_caps: ibv_odp_caps_per_transport_caps,
}

pub type ibv_odp_general_caps = u32;
pub const IBV_ODP_SUPPORT: ibv_odp_general_caps = 1 << 0;
pub const IBV_ODP_SUPPORT_IMPLICIT: ibv_odp_general_caps = 1 << 1;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_tso_caps {
    pub max_tso: u32,
    pub supported_qpts: u32,
}

pub type ibv_rx_hash_function_flags = u32;
pub const IBV_RX_HASH_FUNC_TOEPLITZ: ibv_rx_hash_function_flags = 1 << 0;

pub type ibv_rx_hash_fields = u32;
pub const IBV_RX_HASH_SRC_IPV4: ibv_rx_hash_fields = 1 << 0;
pub const IBV_RX_HASH_DST_IPV4: ibv_rx_hash_fields = 1 << 1;
pub const IBV_RX_HASH_SRC_IPV6: ibv_rx_hash_fields = 1 << 2;
pub const IBV_RX_HASH_DST_IPV6: ibv_rx_hash_fields = 1 << 3;
pub const IBV_RX_HASH_SRC_PORT_TCP: ibv_rx_hash_fields = 1 << 4;
pub const IBV_RX_HASH_DST_PORT_TCP: ibv_rx_hash_fields = 1 << 5;
pub const IBV_RX_HASH_SRC_PORT_UDP: ibv_rx_hash_fields = 1 << 6;
pub const IBV_RX_HASH_DST_PORT_UDP: ibv_rx_hash_fields = 1 << 7;
pub const IBV_RX_HASH_IPSEC_SPI: ibv_rx_hash_fields = 1 << 8;
pub const IBV_RX_HASH_INNER: ibv_rx_hash_fields = 1 << 31;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_rss_caps {
    pub supported_qpts: u32,
    pub max_rwq_indirection_tables: u32,
    pub max_rwq_indirection_table_size: u32,
    /// `ibv_rx_hash_fields` bits.
    pub rx_hash_fields_mask: u64,
    /// `ibv_rx_hash_function_flags` bits.
    pub rx_hash_function: u8,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_packet_pacing_caps {
    pub qp_rate_limit_min: u32,
    /// In kbps.
    pub qp_rate_limit_max: u32,
    pub supported_qpts: u32,
}

pub type ibv_raw_packet_caps = u32;
pub const IBV_RAW_PACKET_CAP_CVLAN_STRIPPING: ibv_raw_packet_caps = 1 << 0;
pub const IBV_RAW_PACKET_CAP_SCATTER_FCS: ibv_raw_packet_caps = 1 << 1;
pub const IBV_RAW_PACKET_CAP_IP_CSUM: ibv_raw_packet_caps = 1 << 2;
pub const IBV_RAW_PACKET_CAP_DELAY_DROP: ibv_raw_packet_caps = 1 << 3;

pub type ibv_tm_cap_flags = u32;
pub const IBV_TM_CAP_RC: ibv_tm_cap_flags = 1 << 0;

/// Tag-matching capabilities.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_tm_caps {
    pub max_rndv_hdr_size: u32,
    pub max_num_tags: u32,
    /// `ibv_tm_cap_flags` bits.
    pub flags: u32,
    pub max_ops: u32,
    pub max_sge: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_cq_moderation_caps {
    pub max_cq_count: u16,
    /// In microseconds.
    pub max_cq_period: u16,
}

pub type ibv_pci_atomic_op_size = u32;
pub const IBV_PCI_ATOMIC_OPERATION_4_BYTE_SIZE_SUP: ibv_pci_atomic_op_size = 1 << 0;
pub const IBV_PCI_ATOMIC_OPERATION_8_BYTE_SIZE_SUP: ibv_pci_atomic_op_size = 1 << 1;
pub const IBV_PCI_ATOMIC_OPERATION_16_BYTE_SIZE_SUP: ibv_pci_atomic_op_size = 1 << 2;

/// Each field is a mask of `ibv_pci_atomic_op_size` bits.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_pci_atomic_caps {
    pub fetch_add: u16,
    pub swap: u16,
    pub compare_swap: u16,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_device_attr_ex {
    pub orig_attr: ibv_device_attr,
    pub comp_mask: u32,
    pub odp_caps: ibv_odp_caps,
    pub completion_timestamp_mask: u64,
    pub hca_core_clock: u64,
    pub device_cap_flags_ex: u64,
    pub tso_caps: ibv_tso_caps,
    pub rss_caps: ibv_rss_caps,
    pub max_wq_type_rq: u32,
    pub packet_pacing_caps: ibv_packet_pacing_caps,
    /// `ibv_raw_packet_caps` bits.
    pub raw_packet_caps: u32,
    pub tm_caps: ibv_tm_caps,
    pub cq_mod_caps: ibv_cq_moderation_caps,
    pub max_dm_size: u64,
    pub pci_atomic_caps: ibv_pci_atomic_caps,
    pub xrc_odp_caps: u32,
    pub phys_port_cnt_ex: u32,
}

// ---------------------------------------------------------------------------
// Ports
// ---------------------------------------------------------------------------

pub type ibv_mtu = u32;
pub const IBV_MTU_256: ibv_mtu = 1;
pub const IBV_MTU_512: ibv_mtu = 2;
pub const IBV_MTU_1024: ibv_mtu = 3;
pub const IBV_MTU_2048: ibv_mtu = 4;
pub const IBV_MTU_4096: ibv_mtu = 5;

pub type ibv_port_state = u32;
pub const IBV_PORT_NOP: ibv_port_state = 0;
pub const IBV_PORT_DOWN: ibv_port_state = 1;
pub const IBV_PORT_INIT: ibv_port_state = 2;
pub const IBV_PORT_ARMED: ibv_port_state = 3;
pub const IBV_PORT_ACTIVE: ibv_port_state = 4;
pub const IBV_PORT_ACTIVE_DEFER: ibv_port_state = 5;

/// Values of `ibv_port_attr::link_layer` (anonymous C enum).
pub const IBV_LINK_LAYER_UNSPECIFIED: u8 = 0;
pub const IBV_LINK_LAYER_INFINIBAND: u8 = 1;
pub const IBV_LINK_LAYER_ETHERNET: u8 = 2;

pub type ibv_port_cap_flags = u32;
pub const IBV_PORT_SM: ibv_port_cap_flags = 1 << 1;
pub const IBV_PORT_NOTICE_SUP: ibv_port_cap_flags = 1 << 2;
pub const IBV_PORT_TRAP_SUP: ibv_port_cap_flags = 1 << 3;
pub const IBV_PORT_OPT_IPD_SUP: ibv_port_cap_flags = 1 << 4;
pub const IBV_PORT_AUTO_MIGR_SUP: ibv_port_cap_flags = 1 << 5;
pub const IBV_PORT_SL_MAP_SUP: ibv_port_cap_flags = 1 << 6;
pub const IBV_PORT_MKEY_NVRAM: ibv_port_cap_flags = 1 << 7;
pub const IBV_PORT_PKEY_NVRAM: ibv_port_cap_flags = 1 << 8;
pub const IBV_PORT_LED_INFO_SUP: ibv_port_cap_flags = 1 << 9;
pub const IBV_PORT_SYS_IMAGE_GUID_SUP: ibv_port_cap_flags = 1 << 11;
pub const IBV_PORT_PKEY_SW_EXT_PORT_TRAP_SUP: ibv_port_cap_flags = 1 << 12;
pub const IBV_PORT_EXTENDED_SPEEDS_SUP: ibv_port_cap_flags = 1 << 14;
pub const IBV_PORT_CAP_MASK2_SUP: ibv_port_cap_flags = 1 << 15;
pub const IBV_PORT_CM_SUP: ibv_port_cap_flags = 1 << 16;
pub const IBV_PORT_SNMP_TUNNEL_SUP: ibv_port_cap_flags = 1 << 17;
pub const IBV_PORT_REINIT_SUP: ibv_port_cap_flags = 1 << 18;
pub const IBV_PORT_DEVICE_MGMT_SUP: ibv_port_cap_flags = 1 << 19;
pub const IBV_PORT_VENDOR_CLASS_SUP: ibv_port_cap_flags = 1 << 20;
pub const IBV_PORT_DR_NOTICE_SUP: ibv_port_cap_flags = 1 << 21;
pub const IBV_PORT_CAP_MASK_NOTICE_SUP: ibv_port_cap_flags = 1 << 22;
pub const IBV_PORT_BOOT_MGMT_SUP: ibv_port_cap_flags = 1 << 23;
pub const IBV_PORT_LINK_LATENCY_SUP: ibv_port_cap_flags = 1 << 24;
pub const IBV_PORT_CLIENT_REG_SUP: ibv_port_cap_flags = 1 << 25;
pub const IBV_PORT_IP_BASED_GIDS: ibv_port_cap_flags = 1 << 26;

pub type ibv_port_cap_flags2 = u32;
pub const IBV_PORT_SET_NODE_DESC_SUP: ibv_port_cap_flags2 = 1 << 0;
pub const IBV_PORT_INFO_EXT_SUP: ibv_port_cap_flags2 = 1 << 1;
pub const IBV_PORT_VIRT_SUP: ibv_port_cap_flags2 = 1 << 2;
pub const IBV_PORT_SWITCH_PORT_STATE_TABLE_SUP: ibv_port_cap_flags2 = 1 << 3;
pub const IBV_PORT_LINK_WIDTH_2X_SUP: ibv_port_cap_flags2 = 1 << 4;
pub const IBV_PORT_LINK_SPEED_HDR_SUP: ibv_port_cap_flags2 = 1 << 5;
pub const IBV_PORT_LINK_SPEED_NDR_SUP: ibv_port_cap_flags2 = 1 << 10;

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
}

/// The port attributes of the IBVERBS_1.1 `ibv_query_port` ABI: the current
/// `ibv_port_attr` without its trailing `port_cap_flags2` (defined privately
/// in upstream's verbs.c; only a declaration is public).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct _compat_ibv_port_attr {
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
}

// ---------------------------------------------------------------------------
// Async events
// ---------------------------------------------------------------------------

pub type ibv_event_type = u32;
pub const IBV_EVENT_CQ_ERR: ibv_event_type = 0;
pub const IBV_EVENT_QP_FATAL: ibv_event_type = 1;
pub const IBV_EVENT_QP_REQ_ERR: ibv_event_type = 2;
pub const IBV_EVENT_QP_ACCESS_ERR: ibv_event_type = 3;
pub const IBV_EVENT_COMM_EST: ibv_event_type = 4;
pub const IBV_EVENT_SQ_DRAINED: ibv_event_type = 5;
pub const IBV_EVENT_PATH_MIG: ibv_event_type = 6;
pub const IBV_EVENT_PATH_MIG_ERR: ibv_event_type = 7;
pub const IBV_EVENT_DEVICE_FATAL: ibv_event_type = 8;
pub const IBV_EVENT_PORT_ACTIVE: ibv_event_type = 9;
pub const IBV_EVENT_PORT_ERR: ibv_event_type = 10;
pub const IBV_EVENT_LID_CHANGE: ibv_event_type = 11;
pub const IBV_EVENT_PKEY_CHANGE: ibv_event_type = 12;
pub const IBV_EVENT_SM_CHANGE: ibv_event_type = 13;
pub const IBV_EVENT_SRQ_ERR: ibv_event_type = 14;
pub const IBV_EVENT_SRQ_LIMIT_REACHED: ibv_event_type = 15;
pub const IBV_EVENT_QP_LAST_WQE_REACHED: ibv_event_type = 16;
pub const IBV_EVENT_CLIENT_REREGISTER: ibv_event_type = 17;
pub const IBV_EVENT_GID_CHANGE: ibv_event_type = 18;
pub const IBV_EVENT_WQ_FATAL: ibv_event_type = 19;

/// The object an async event is about (which member is valid depends on
/// `ibv_async_event::event_type`).
#[repr(C)]
#[derive(Clone, Copy)]
pub union ibv_async_event_element {
    pub cq: *mut ibv_cq,
    pub qp: *mut ibv_qp,
    pub srq: *mut ibv_srq,
    pub wq: *mut ibv_wq,
    pub port_num: c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_async_event {
    pub element: ibv_async_event_element,
    pub event_type: ibv_event_type,
}

// ---------------------------------------------------------------------------
// Work completions
// ---------------------------------------------------------------------------

pub type ibv_wc_status = u32;
pub const IBV_WC_SUCCESS: ibv_wc_status = 0;
pub const IBV_WC_LOC_LEN_ERR: ibv_wc_status = 1;
pub const IBV_WC_LOC_QP_OP_ERR: ibv_wc_status = 2;
pub const IBV_WC_LOC_EEC_OP_ERR: ibv_wc_status = 3;
pub const IBV_WC_LOC_PROT_ERR: ibv_wc_status = 4;
pub const IBV_WC_WR_FLUSH_ERR: ibv_wc_status = 5;
pub const IBV_WC_MW_BIND_ERR: ibv_wc_status = 6;
pub const IBV_WC_BAD_RESP_ERR: ibv_wc_status = 7;
pub const IBV_WC_LOC_ACCESS_ERR: ibv_wc_status = 8;
pub const IBV_WC_REM_INV_REQ_ERR: ibv_wc_status = 9;
pub const IBV_WC_REM_ACCESS_ERR: ibv_wc_status = 10;
pub const IBV_WC_REM_OP_ERR: ibv_wc_status = 11;
pub const IBV_WC_RETRY_EXC_ERR: ibv_wc_status = 12;
pub const IBV_WC_RNR_RETRY_EXC_ERR: ibv_wc_status = 13;
pub const IBV_WC_LOC_RDD_VIOL_ERR: ibv_wc_status = 14;
pub const IBV_WC_REM_INV_RD_REQ_ERR: ibv_wc_status = 15;
pub const IBV_WC_REM_ABORT_ERR: ibv_wc_status = 16;
pub const IBV_WC_INV_EECN_ERR: ibv_wc_status = 17;
pub const IBV_WC_INV_EEC_STATE_ERR: ibv_wc_status = 18;
pub const IBV_WC_FATAL_ERR: ibv_wc_status = 19;
pub const IBV_WC_RESP_TIMEOUT_ERR: ibv_wc_status = 20;
pub const IBV_WC_GENERAL_ERR: ibv_wc_status = 21;
pub const IBV_WC_TM_ERR: ibv_wc_status = 22;
pub const IBV_WC_TM_RNDV_INCOMPLETE: ibv_wc_status = 23;

pub type ibv_wc_opcode = u32;
pub const IBV_WC_SEND: ibv_wc_opcode = 0;
pub const IBV_WC_RDMA_WRITE: ibv_wc_opcode = 1;
pub const IBV_WC_RDMA_READ: ibv_wc_opcode = 2;
pub const IBV_WC_COMP_SWAP: ibv_wc_opcode = 3;
pub const IBV_WC_FETCH_ADD: ibv_wc_opcode = 4;
pub const IBV_WC_BIND_MW: ibv_wc_opcode = 5;
pub const IBV_WC_LOCAL_INV: ibv_wc_opcode = 6;
pub const IBV_WC_TSO: ibv_wc_opcode = 7;
pub const IBV_WC_ATOMIC_WRITE: ibv_wc_opcode = 9;
/// Receive completions have this bit set (`opcode & IBV_WC_RECV`).
pub const IBV_WC_RECV: ibv_wc_opcode = 1 << 7;
pub const IBV_WC_RECV_RDMA_WITH_IMM: ibv_wc_opcode = 129;
pub const IBV_WC_TM_ADD: ibv_wc_opcode = 130;
pub const IBV_WC_TM_DEL: ibv_wc_opcode = 131;
pub const IBV_WC_TM_SYNC: ibv_wc_opcode = 132;
pub const IBV_WC_TM_RECV: ibv_wc_opcode = 133;
pub const IBV_WC_TM_NO_TAG: ibv_wc_opcode = 134;
pub const IBV_WC_DRIVER1: ibv_wc_opcode = 135;
pub const IBV_WC_DRIVER2: ibv_wc_opcode = 136;
pub const IBV_WC_DRIVER3: ibv_wc_opcode = 137;

/// Anonymous C enum.
pub const IBV_WC_IP_CSUM_OK_SHIFT: u32 = 2;

pub type ibv_create_cq_wc_flags = u32;
pub const IBV_WC_EX_WITH_BYTE_LEN: ibv_create_cq_wc_flags = 1 << 0;
pub const IBV_WC_EX_WITH_IMM: ibv_create_cq_wc_flags = 1 << 1;
pub const IBV_WC_EX_WITH_QP_NUM: ibv_create_cq_wc_flags = 1 << 2;
pub const IBV_WC_EX_WITH_SRC_QP: ibv_create_cq_wc_flags = 1 << 3;
pub const IBV_WC_EX_WITH_SLID: ibv_create_cq_wc_flags = 1 << 4;
pub const IBV_WC_EX_WITH_SL: ibv_create_cq_wc_flags = 1 << 5;
pub const IBV_WC_EX_WITH_DLID_PATH_BITS: ibv_create_cq_wc_flags = 1 << 6;
pub const IBV_WC_EX_WITH_COMPLETION_TIMESTAMP: ibv_create_cq_wc_flags = 1 << 7;
pub const IBV_WC_EX_WITH_CVLAN: ibv_create_cq_wc_flags = 1 << 8;
pub const IBV_WC_EX_WITH_FLOW_TAG: ibv_create_cq_wc_flags = 1 << 9;
pub const IBV_WC_EX_WITH_TM_INFO: ibv_create_cq_wc_flags = 1 << 10;
pub const IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK: ibv_create_cq_wc_flags = 1 << 11;

/// Anonymous C enum: the fields every extended CQ can report.
pub const IBV_WC_STANDARD_FLAGS: u32 = IBV_WC_EX_WITH_BYTE_LEN
    | IBV_WC_EX_WITH_IMM
    | IBV_WC_EX_WITH_QP_NUM
    | IBV_WC_EX_WITH_SRC_QP
    | IBV_WC_EX_WITH_SLID
    | IBV_WC_EX_WITH_SL
    | IBV_WC_EX_WITH_DLID_PATH_BITS;

/// Anonymous C enum: every `ibv_create_cq_wc_flags` bit libibverbs knows.
pub const IBV_CREATE_CQ_SUP_WC_FLAGS: u32 = IBV_WC_STANDARD_FLAGS
    | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP
    | IBV_WC_EX_WITH_CVLAN
    | IBV_WC_EX_WITH_FLOW_TAG
    | IBV_WC_EX_WITH_TM_INFO
    | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK;

pub type ibv_wc_flags = u32;
pub const IBV_WC_GRH: ibv_wc_flags = 1 << 0;
pub const IBV_WC_WITH_IMM: ibv_wc_flags = 1 << 1;
pub const IBV_WC_IP_CSUM_OK: ibv_wc_flags = 1 << IBV_WC_IP_CSUM_OK_SHIFT;
pub const IBV_WC_WITH_INV: ibv_wc_flags = 1 << 3;
pub const IBV_WC_TM_SYNC_REQ: ibv_wc_flags = 1 << 4;
pub const IBV_WC_TM_MATCH: ibv_wc_flags = 1 << 5;
pub const IBV_WC_TM_DATA_VALID: ibv_wc_flags = 1 << 6;

/// C: the anonymous union of `struct ibv_wc` (field `imm`).
#[repr(C)]
#[derive(Clone, Copy)]
pub union ibv_wc_imm {
    /// When `wc_flags & IBV_WC_WITH_IMM`: big-endian immediate data.
    pub imm_data: u32,
    /// When `wc_flags & IBV_WC_WITH_INV`: the invalidated rkey.
    pub invalidated_rkey: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_wc {
    pub wr_id: u64,
    pub status: ibv_wc_status,
    pub opcode: ibv_wc_opcode,
    pub vendor_err: u32,
    pub byte_len: u32,
    /// C: anonymous union.
    pub imm: ibv_wc_imm,
    pub qp_num: u32,
    pub src_qp: u32,
    pub wc_flags: c_uint,
    pub pkey_index: u16,
    pub slid: u16,
    pub sl: u8,
    pub dlid_path_bits: u8,
}

// ---------------------------------------------------------------------------
// Memory: PD, TD, XRCD, MR, MW
// ---------------------------------------------------------------------------

/// The optional access bits of the kernel uAPI (`IB_UVERBS_ACCESS_OPTIONAL_*`,
/// re-exported by verbs_api.h under `IBV_` names).
pub const IBV_ACCESS_OPTIONAL_FIRST: u32 = 1 << 20;
pub const IBV_ACCESS_OPTIONAL_RANGE: u32 = 0x3ff0_0000;

pub type ibv_access_flags = u32;
pub const IBV_ACCESS_LOCAL_WRITE: ibv_access_flags = 1;
pub const IBV_ACCESS_REMOTE_WRITE: ibv_access_flags = 1 << 1;
pub const IBV_ACCESS_REMOTE_READ: ibv_access_flags = 1 << 2;
pub const IBV_ACCESS_REMOTE_ATOMIC: ibv_access_flags = 1 << 3;
pub const IBV_ACCESS_MW_BIND: ibv_access_flags = 1 << 4;
pub const IBV_ACCESS_ZERO_BASED: ibv_access_flags = 1 << 5;
pub const IBV_ACCESS_ON_DEMAND: ibv_access_flags = 1 << 6;
pub const IBV_ACCESS_HUGETLB: ibv_access_flags = 1 << 7;
pub const IBV_ACCESS_RELAXED_ORDERING: ibv_access_flags = IBV_ACCESS_OPTIONAL_FIRST;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_mw_bind_info {
    pub mr: *mut ibv_mr,
    pub addr: u64,
    pub length: u64,
    /// `ibv_access_flags` bits.
    pub mw_access_flags: c_uint,
}

/// Protection domain.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_pd {
    pub context: *mut ibv_context,
    pub handle: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_td_init_attr {
    pub comp_mask: u32,
}

/// Thread domain.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_td {
    pub context: *mut ibv_context,
}

pub type ibv_xrcd_init_attr_mask = u32;
pub const IBV_XRCD_INIT_ATTR_FD: ibv_xrcd_init_attr_mask = 1 << 0;
pub const IBV_XRCD_INIT_ATTR_OFLAGS: ibv_xrcd_init_attr_mask = 1 << 1;
pub const IBV_XRCD_INIT_ATTR_RESERVED: ibv_xrcd_init_attr_mask = 1 << 2;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_xrcd_init_attr {
    pub comp_mask: u32,
    pub fd: c_int,
    pub oflags: c_int,
}

/// XRC domain.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_xrcd {
    pub context: *mut ibv_context,
}

pub type ibv_rereg_mr_flags = u32;
pub const IBV_REREG_MR_CHANGE_TRANSLATION: ibv_rereg_mr_flags = 1 << 0;
pub const IBV_REREG_MR_CHANGE_PD: ibv_rereg_mr_flags = 1 << 1;
pub const IBV_REREG_MR_CHANGE_ACCESS: ibv_rereg_mr_flags = 1 << 2;
pub const IBV_REREG_MR_FLAGS_SUPPORTED: ibv_rereg_mr_flags = (IBV_REREG_MR_CHANGE_ACCESS << 1) - 1;

/// Memory region.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_mr {
    pub context: *mut ibv_context,
    pub pd: *mut ibv_pd,
    pub addr: *mut c_void,
    pub length: usize,
    pub handle: u32,
    pub lkey: u32,
    pub rkey: u32,
}

pub type ibv_mw_type = u32;
pub const IBV_MW_TYPE_1: ibv_mw_type = 1;
pub const IBV_MW_TYPE_2: ibv_mw_type = 2;

/// Memory window.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_mw {
    pub context: *mut ibv_context,
    pub pd: *mut ibv_pd,
    pub rkey: u32,
    pub handle: u32,
    pub type_: ibv_mw_type,
}

// ---------------------------------------------------------------------------
// Address handles
// ---------------------------------------------------------------------------

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_global_route {
    pub dgid: ibv_gid,
    pub flow_label: u32,
    pub sgid_index: u8,
    pub hop_limit: u8,
    pub traffic_class: u8,
}

/// The InfiniBand global route header as it appears on the wire.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_grh {
    /// Big-endian.
    pub version_tclass_flow: u32,
    /// Big-endian.
    pub paylen: u16,
    pub next_hdr: u8,
    pub hop_limit: u8,
    pub sgid: ibv_gid,
    pub dgid: ibv_gid,
}

pub type ibv_rate = u32;
pub const IBV_RATE_MAX: ibv_rate = 0;
pub const IBV_RATE_2_5_GBPS: ibv_rate = 2;
pub const IBV_RATE_5_GBPS: ibv_rate = 5;
pub const IBV_RATE_10_GBPS: ibv_rate = 3;
pub const IBV_RATE_20_GBPS: ibv_rate = 6;
pub const IBV_RATE_30_GBPS: ibv_rate = 4;
pub const IBV_RATE_40_GBPS: ibv_rate = 7;
pub const IBV_RATE_60_GBPS: ibv_rate = 8;
pub const IBV_RATE_80_GBPS: ibv_rate = 9;
pub const IBV_RATE_120_GBPS: ibv_rate = 10;
pub const IBV_RATE_14_GBPS: ibv_rate = 11;
pub const IBV_RATE_56_GBPS: ibv_rate = 12;
pub const IBV_RATE_112_GBPS: ibv_rate = 13;
pub const IBV_RATE_168_GBPS: ibv_rate = 14;
pub const IBV_RATE_25_GBPS: ibv_rate = 15;
pub const IBV_RATE_100_GBPS: ibv_rate = 16;
pub const IBV_RATE_200_GBPS: ibv_rate = 17;
pub const IBV_RATE_300_GBPS: ibv_rate = 18;
pub const IBV_RATE_28_GBPS: ibv_rate = 19;
pub const IBV_RATE_50_GBPS: ibv_rate = 20;
pub const IBV_RATE_400_GBPS: ibv_rate = 21;
pub const IBV_RATE_600_GBPS: ibv_rate = 22;
pub const IBV_RATE_800_GBPS: ibv_rate = 23;
pub const IBV_RATE_1200_GBPS: ibv_rate = 24;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_ah_attr {
    pub grh: ibv_global_route,
    pub dlid: u16,
    pub sl: u8,
    pub src_path_bits: u8,
    pub static_rate: u8,
    pub is_global: u8,
    pub port_num: u8,
}

// ---------------------------------------------------------------------------
// Shared receive queues
// ---------------------------------------------------------------------------

pub type ibv_srq_attr_mask = u32;
pub const IBV_SRQ_MAX_WR: ibv_srq_attr_mask = 1 << 0;
pub const IBV_SRQ_LIMIT: ibv_srq_attr_mask = 1 << 1;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_srq_attr {
    pub max_wr: u32,
    pub max_sge: u32,
    pub srq_limit: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_srq_init_attr {
    pub srq_context: *mut c_void,
    pub attr: ibv_srq_attr,
}

pub type ibv_srq_type = u32;
pub const IBV_SRQT_BASIC: ibv_srq_type = 0;
pub const IBV_SRQT_XRC: ibv_srq_type = 1;
pub const IBV_SRQT_TM: ibv_srq_type = 2;

pub type ibv_srq_init_attr_mask = u32;
pub const IBV_SRQ_INIT_ATTR_TYPE: ibv_srq_init_attr_mask = 1 << 0;
pub const IBV_SRQ_INIT_ATTR_PD: ibv_srq_init_attr_mask = 1 << 1;
pub const IBV_SRQ_INIT_ATTR_XRCD: ibv_srq_init_attr_mask = 1 << 2;
pub const IBV_SRQ_INIT_ATTR_CQ: ibv_srq_init_attr_mask = 1 << 3;
pub const IBV_SRQ_INIT_ATTR_TM: ibv_srq_init_attr_mask = 1 << 4;
pub const IBV_SRQ_INIT_ATTR_RESERVED: ibv_srq_init_attr_mask = 1 << 5;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_tm_cap {
    pub max_num_tags: u32,
    pub max_ops: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_srq_init_attr_ex {
    pub srq_context: *mut c_void,
    pub attr: ibv_srq_attr,
    pub comp_mask: u32,
    pub srq_type: ibv_srq_type,
    pub pd: *mut ibv_pd,
    pub xrcd: *mut ibv_xrcd,
    pub cq: *mut ibv_cq,
    pub tm_cap: ibv_tm_cap,
}

// ---------------------------------------------------------------------------
// Work queues and indirection tables
// ---------------------------------------------------------------------------

pub type ibv_wq_type = u32;
pub const IBV_WQT_RQ: ibv_wq_type = 0;

pub type ibv_wq_init_attr_mask = u32;
pub const IBV_WQ_INIT_ATTR_FLAGS: ibv_wq_init_attr_mask = 1 << 0;
pub const IBV_WQ_INIT_ATTR_RESERVED: ibv_wq_init_attr_mask = 1 << 1;

pub type ibv_wq_flags = u32;
pub const IBV_WQ_FLAGS_CVLAN_STRIPPING: ibv_wq_flags = 1 << 0;
pub const IBV_WQ_FLAGS_SCATTER_FCS: ibv_wq_flags = 1 << 1;
pub const IBV_WQ_FLAGS_DELAY_DROP: ibv_wq_flags = 1 << 2;
pub const IBV_WQ_FLAGS_PCI_WRITE_END_PADDING: ibv_wq_flags = 1 << 3;
pub const IBV_WQ_FLAGS_RESERVED: ibv_wq_flags = 1 << 4;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_wq_init_attr {
    pub wq_context: *mut c_void,
    pub wq_type: ibv_wq_type,
    pub max_wr: u32,
    pub max_sge: u32,
    pub pd: *mut ibv_pd,
    pub cq: *mut ibv_cq,
    /// `ibv_wq_init_attr_mask` bits.
    pub comp_mask: u32,
    /// `ibv_wq_flags` bits.
    pub create_flags: u32,
}

pub type ibv_wq_state = u32;
pub const IBV_WQS_RESET: ibv_wq_state = 0;
pub const IBV_WQS_RDY: ibv_wq_state = 1;
pub const IBV_WQS_ERR: ibv_wq_state = 2;
pub const IBV_WQS_UNKNOWN: ibv_wq_state = 3;

pub type ibv_wq_attr_mask = u32;
pub const IBV_WQ_ATTR_STATE: ibv_wq_attr_mask = 1 << 0;
pub const IBV_WQ_ATTR_CURR_STATE: ibv_wq_attr_mask = 1 << 1;
pub const IBV_WQ_ATTR_FLAGS: ibv_wq_attr_mask = 1 << 2;
pub const IBV_WQ_ATTR_RESERVED: ibv_wq_attr_mask = 1 << 3;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_wq_attr {
    /// `ibv_wq_attr_mask` bits.
    pub attr_mask: u32,
    pub wq_state: ibv_wq_state,
    pub curr_wq_state: ibv_wq_state,
    /// `ibv_wq_flags` bits.
    pub flags: u32,
    /// `ibv_wq_flags` bits.
    pub flags_mask: u32,
}

/// Receive work queue indirection table.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_rwq_ind_table {
    pub context: *mut ibv_context,
    pub ind_tbl_handle: c_int,
    pub ind_tbl_num: c_int,
    pub comp_mask: u32,
}

pub type ibv_ind_table_init_attr_mask = u32;
pub const IBV_CREATE_IND_TABLE_RESERVED: ibv_ind_table_init_attr_mask = 1 << 0;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_rwq_ind_table_init_attr {
    pub log_ind_tbl_size: u32,
    /// Array of `1 << log_ind_tbl_size` work queues.
    pub ind_tbl: *mut *mut ibv_wq,
    pub comp_mask: u32,
}

// ---------------------------------------------------------------------------
// Queue pairs: creation and attributes
// ---------------------------------------------------------------------------

pub type ibv_qp_type = u32;
pub const IBV_QPT_RC: ibv_qp_type = 2;
pub const IBV_QPT_UC: ibv_qp_type = 3;
pub const IBV_QPT_UD: ibv_qp_type = 4;
pub const IBV_QPT_RAW_PACKET: ibv_qp_type = 8;
pub const IBV_QPT_XRC_SEND: ibv_qp_type = 9;
pub const IBV_QPT_XRC_RECV: ibv_qp_type = 10;
pub const IBV_QPT_DRIVER: ibv_qp_type = 0xff;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_qp_cap {
    pub max_send_wr: u32,
    pub max_recv_wr: u32,
    pub max_send_sge: u32,
    pub max_recv_sge: u32,
    pub max_inline_data: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_qp_init_attr {
    pub qp_context: *mut c_void,
    pub send_cq: *mut ibv_cq,
    pub recv_cq: *mut ibv_cq,
    pub srq: *mut ibv_srq,
    pub cap: ibv_qp_cap,
    pub qp_type: ibv_qp_type,
    pub sq_sig_all: c_int,
}

pub type ibv_qp_init_attr_mask = u32;
pub const IBV_QP_INIT_ATTR_PD: ibv_qp_init_attr_mask = 1 << 0;
pub const IBV_QP_INIT_ATTR_XRCD: ibv_qp_init_attr_mask = 1 << 1;
pub const IBV_QP_INIT_ATTR_CREATE_FLAGS: ibv_qp_init_attr_mask = 1 << 2;
pub const IBV_QP_INIT_ATTR_MAX_TSO_HEADER: ibv_qp_init_attr_mask = 1 << 3;
pub const IBV_QP_INIT_ATTR_IND_TABLE: ibv_qp_init_attr_mask = 1 << 4;
pub const IBV_QP_INIT_ATTR_RX_HASH: ibv_qp_init_attr_mask = 1 << 5;
pub const IBV_QP_INIT_ATTR_SEND_OPS_FLAGS: ibv_qp_init_attr_mask = 1 << 6;

pub type ibv_qp_create_flags = u32;
pub const IBV_QP_CREATE_BLOCK_SELF_MCAST_LB: ibv_qp_create_flags = 1 << 1;
pub const IBV_QP_CREATE_SCATTER_FCS: ibv_qp_create_flags = 1 << 8;
pub const IBV_QP_CREATE_CVLAN_STRIPPING: ibv_qp_create_flags = 1 << 9;
pub const IBV_QP_CREATE_SOURCE_QPN: ibv_qp_create_flags = 1 << 10;
pub const IBV_QP_CREATE_PCI_WRITE_END_PADDING: ibv_qp_create_flags = 1 << 11;

pub type ibv_qp_create_send_ops_flags = u32;
pub const IBV_QP_EX_WITH_RDMA_WRITE: ibv_qp_create_send_ops_flags = 1 << 0;
pub const IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM: ibv_qp_create_send_ops_flags = 1 << 1;
pub const IBV_QP_EX_WITH_SEND: ibv_qp_create_send_ops_flags = 1 << 2;
pub const IBV_QP_EX_WITH_SEND_WITH_IMM: ibv_qp_create_send_ops_flags = 1 << 3;
pub const IBV_QP_EX_WITH_RDMA_READ: ibv_qp_create_send_ops_flags = 1 << 4;
pub const IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP: ibv_qp_create_send_ops_flags = 1 << 5;
pub const IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD: ibv_qp_create_send_ops_flags = 1 << 6;
pub const IBV_QP_EX_WITH_LOCAL_INV: ibv_qp_create_send_ops_flags = 1 << 7;
pub const IBV_QP_EX_WITH_BIND_MW: ibv_qp_create_send_ops_flags = 1 << 8;
pub const IBV_QP_EX_WITH_SEND_WITH_INV: ibv_qp_create_send_ops_flags = 1 << 9;
pub const IBV_QP_EX_WITH_TSO: ibv_qp_create_send_ops_flags = 1 << 10;
pub const IBV_QP_EX_WITH_ATOMIC_WRITE: ibv_qp_create_send_ops_flags = 1 << 12;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_rx_hash_conf {
    /// `ibv_rx_hash_function_flags` bits.
    pub rx_hash_function: u8,
    pub rx_hash_key_len: u8,
    pub rx_hash_key: *mut u8,
    /// `ibv_rx_hash_fields` bits.
    pub rx_hash_fields_mask: u64,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_qp_init_attr_ex {
    pub qp_context: *mut c_void,
    pub send_cq: *mut ibv_cq,
    pub recv_cq: *mut ibv_cq,
    pub srq: *mut ibv_srq,
    pub cap: ibv_qp_cap,
    pub qp_type: ibv_qp_type,
    pub sq_sig_all: c_int,
    pub comp_mask: u32,
    pub pd: *mut ibv_pd,
    pub xrcd: *mut ibv_xrcd,
    pub create_flags: u32,
    pub max_tso_header: u16,
    pub rwq_ind_tbl: *mut ibv_rwq_ind_table,
    pub rx_hash_conf: ibv_rx_hash_conf,
    pub source_qpn: u32,
    /// `ibv_qp_create_send_ops_flags` bits.
    pub send_ops_flags: u64,
}

pub type ibv_qp_open_attr_mask = u32;
pub const IBV_QP_OPEN_ATTR_NUM: ibv_qp_open_attr_mask = 1 << 0;
pub const IBV_QP_OPEN_ATTR_XRCD: ibv_qp_open_attr_mask = 1 << 1;
pub const IBV_QP_OPEN_ATTR_CONTEXT: ibv_qp_open_attr_mask = 1 << 2;
pub const IBV_QP_OPEN_ATTR_TYPE: ibv_qp_open_attr_mask = 1 << 3;
pub const IBV_QP_OPEN_ATTR_RESERVED: ibv_qp_open_attr_mask = 1 << 4;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_qp_open_attr {
    pub comp_mask: u32,
    pub qp_num: u32,
    pub xrcd: *mut ibv_xrcd,
    pub qp_context: *mut c_void,
    pub qp_type: ibv_qp_type,
}

pub type ibv_qp_attr_mask = u32;
pub const IBV_QP_STATE: ibv_qp_attr_mask = 1 << 0;
pub const IBV_QP_CUR_STATE: ibv_qp_attr_mask = 1 << 1;
pub const IBV_QP_EN_SQD_ASYNC_NOTIFY: ibv_qp_attr_mask = 1 << 2;
pub const IBV_QP_ACCESS_FLAGS: ibv_qp_attr_mask = 1 << 3;
pub const IBV_QP_PKEY_INDEX: ibv_qp_attr_mask = 1 << 4;
pub const IBV_QP_PORT: ibv_qp_attr_mask = 1 << 5;
pub const IBV_QP_QKEY: ibv_qp_attr_mask = 1 << 6;
pub const IBV_QP_AV: ibv_qp_attr_mask = 1 << 7;
pub const IBV_QP_PATH_MTU: ibv_qp_attr_mask = 1 << 8;
pub const IBV_QP_TIMEOUT: ibv_qp_attr_mask = 1 << 9;
pub const IBV_QP_RETRY_CNT: ibv_qp_attr_mask = 1 << 10;
pub const IBV_QP_RNR_RETRY: ibv_qp_attr_mask = 1 << 11;
pub const IBV_QP_RQ_PSN: ibv_qp_attr_mask = 1 << 12;
pub const IBV_QP_MAX_QP_RD_ATOMIC: ibv_qp_attr_mask = 1 << 13;
pub const IBV_QP_ALT_PATH: ibv_qp_attr_mask = 1 << 14;
pub const IBV_QP_MIN_RNR_TIMER: ibv_qp_attr_mask = 1 << 15;
pub const IBV_QP_SQ_PSN: ibv_qp_attr_mask = 1 << 16;
pub const IBV_QP_MAX_DEST_RD_ATOMIC: ibv_qp_attr_mask = 1 << 17;
pub const IBV_QP_PATH_MIG_STATE: ibv_qp_attr_mask = 1 << 18;
pub const IBV_QP_CAP: ibv_qp_attr_mask = 1 << 19;
pub const IBV_QP_DEST_QPN: ibv_qp_attr_mask = 1 << 20;
pub const IBV_QP_RATE_LIMIT: ibv_qp_attr_mask = 1 << 25;

pub type ibv_qp_state = u32;
pub const IBV_QPS_RESET: ibv_qp_state = 0;
pub const IBV_QPS_INIT: ibv_qp_state = 1;
pub const IBV_QPS_RTR: ibv_qp_state = 2;
pub const IBV_QPS_RTS: ibv_qp_state = 3;
pub const IBV_QPS_SQD: ibv_qp_state = 4;
pub const IBV_QPS_SQE: ibv_qp_state = 5;
pub const IBV_QPS_ERR: ibv_qp_state = 6;
pub const IBV_QPS_UNKNOWN: ibv_qp_state = 7;

pub type ibv_mig_state = u32;
pub const IBV_MIG_MIGRATED: ibv_mig_state = 0;
pub const IBV_MIG_REARM: ibv_mig_state = 1;
pub const IBV_MIG_ARMED: ibv_mig_state = 2;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_qp_attr {
    pub qp_state: ibv_qp_state,
    pub cur_qp_state: ibv_qp_state,
    pub path_mtu: ibv_mtu,
    pub path_mig_state: ibv_mig_state,
    pub qkey: u32,
    pub rq_psn: u32,
    pub sq_psn: u32,
    pub dest_qp_num: u32,
    pub qp_access_flags: c_uint,
    pub cap: ibv_qp_cap,
    pub ah_attr: ibv_ah_attr,
    pub alt_ah_attr: ibv_ah_attr,
    pub pkey_index: u16,
    pub alt_pkey_index: u16,
    pub en_sqd_async_notify: u8,
    pub sq_draining: u8,
    pub max_rd_atomic: u8,
    pub max_dest_rd_atomic: u8,
    pub min_rnr_timer: u8,
    pub port_num: u8,
    pub timeout: u8,
    pub retry_cnt: u8,
    pub rnr_retry: u8,
    pub alt_port_num: u8,
    pub alt_timeout: u8,
    pub rate_limit: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_qp_rate_limit_attr {
    /// In kbps.
    pub rate_limit: u32,
    /// Total burst size in bytes.
    pub max_burst_sz: u32,
    /// Typical send packet size in bytes.
    pub typical_pkt_sz: u16,
    pub comp_mask: u32,
}

// ---------------------------------------------------------------------------
// Work requests
// ---------------------------------------------------------------------------

pub type ibv_wr_opcode = u32;
pub const IBV_WR_RDMA_WRITE: ibv_wr_opcode = 0;
pub const IBV_WR_RDMA_WRITE_WITH_IMM: ibv_wr_opcode = 1;
pub const IBV_WR_SEND: ibv_wr_opcode = 2;
pub const IBV_WR_SEND_WITH_IMM: ibv_wr_opcode = 3;
pub const IBV_WR_RDMA_READ: ibv_wr_opcode = 4;
pub const IBV_WR_ATOMIC_CMP_AND_SWP: ibv_wr_opcode = 5;
pub const IBV_WR_ATOMIC_FETCH_AND_ADD: ibv_wr_opcode = 6;
pub const IBV_WR_LOCAL_INV: ibv_wr_opcode = 7;
pub const IBV_WR_BIND_MW: ibv_wr_opcode = 8;
pub const IBV_WR_SEND_WITH_INV: ibv_wr_opcode = 9;
pub const IBV_WR_TSO: ibv_wr_opcode = 10;
pub const IBV_WR_DRIVER1: ibv_wr_opcode = 11;
pub const IBV_WR_ATOMIC_WRITE: ibv_wr_opcode = 15;

pub type ibv_send_flags = u32;
pub const IBV_SEND_FENCE: ibv_send_flags = 1 << 0;
pub const IBV_SEND_SIGNALED: ibv_send_flags = 1 << 1;
pub const IBV_SEND_SOLICITED: ibv_send_flags = 1 << 2;
pub const IBV_SEND_INLINE: ibv_send_flags = 1 << 3;
pub const IBV_SEND_IP_CSUM: ibv_send_flags = 1 << 4;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_data_buf {
    pub addr: *mut c_void,
    pub length: usize,
}

/// Scatter/gather element.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_sge {
    pub addr: u64,
    pub length: u32,
    pub lkey: u32,
}

/// C: the first anonymous union of `struct ibv_send_wr` (field `imm`).
#[repr(C)]
#[derive(Clone, Copy)]
pub union ibv_send_wr_imm {
    /// For the `*_WITH_IMM` opcodes: big-endian immediate data.
    pub imm_data: u32,
    /// For the `*_INV` opcodes: the rkey to invalidate.
    pub invalidate_rkey: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_send_wr_wr_rdma {
    pub remote_addr: u64,
    pub rkey: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_send_wr_wr_atomic {
    pub remote_addr: u64,
    pub compare_add: u64,
    pub swap: u64,
    pub rkey: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_send_wr_wr_ud {
    pub ah: *mut ibv_ah,
    pub remote_qpn: u32,
    pub remote_qkey: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub union ibv_send_wr_wr {
    pub rdma: ibv_send_wr_wr_rdma,
    pub atomic: ibv_send_wr_wr_atomic,
    pub ud: ibv_send_wr_wr_ud,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_send_wr_qp_type_xrc {
    pub remote_srqn: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub union ibv_send_wr_qp_type {
    pub xrc: ibv_send_wr_qp_type_xrc,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_send_wr_op_bind_mw {
    pub mw: *mut ibv_mw,
    pub rkey: u32,
    pub bind_info: ibv_mw_bind_info,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_send_wr_op_tso {
    pub hdr: *mut c_void,
    pub hdr_sz: u16,
    pub mss: u16,
}

/// C: the last anonymous union of `struct ibv_send_wr` (field `op`).
#[repr(C)]
#[derive(Clone, Copy)]
pub union ibv_send_wr_op {
    pub bind_mw: ibv_send_wr_op_bind_mw,
    pub tso: ibv_send_wr_op_tso,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_send_wr {
    pub wr_id: u64,
    pub next: *mut ibv_send_wr,
    pub sg_list: *mut ibv_sge,
    pub num_sge: c_int,
    pub opcode: ibv_wr_opcode,
    pub send_flags: c_uint,
    /// C: anonymous union.
    pub imm: ibv_send_wr_imm,
    pub wr: ibv_send_wr_wr,
    pub qp_type: ibv_send_wr_qp_type,
    /// C: anonymous union.
    pub op: ibv_send_wr_op,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_recv_wr {
    pub wr_id: u64,
    pub next: *mut ibv_recv_wr,
    pub sg_list: *mut ibv_sge,
    pub num_sge: c_int,
}

pub type ibv_ops_wr_opcode = u32;
pub const IBV_WR_TAG_ADD: ibv_ops_wr_opcode = 0;
pub const IBV_WR_TAG_DEL: ibv_ops_wr_opcode = 1;
pub const IBV_WR_TAG_SYNC: ibv_ops_wr_opcode = 2;

pub type ibv_ops_flags = u32;
pub const IBV_OPS_SIGNALED: ibv_ops_flags = 1 << 0;
pub const IBV_OPS_TM_SYNC: ibv_ops_flags = 1 << 1;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_ops_wr_tm_add {
    pub recv_wr_id: u64,
    pub sg_list: *mut ibv_sge,
    pub num_sge: c_int,
    pub tag: u64,
    pub mask: u64,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_ops_wr_tm {
    pub unexpected_cnt: u32,
    pub handle: u32,
    pub add: ibv_ops_wr_tm_add,
}

/// Tag-matching list operation on an SRQ.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_ops_wr {
    pub wr_id: u64,
    pub next: *mut ibv_ops_wr,
    pub opcode: ibv_ops_wr_opcode,
    pub flags: c_int,
    pub tm: ibv_ops_wr_tm,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_mw_bind {
    pub wr_id: u64,
    pub send_flags: c_uint,
    pub bind_info: ibv_mw_bind_info,
}

// ---------------------------------------------------------------------------
// SRQ, WQ, QP objects
// ---------------------------------------------------------------------------

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_srq {
    pub context: *mut ibv_context,
    pub srq_context: *mut c_void,
    pub pd: *mut ibv_pd,
    pub handle: u32,
    pub mutex: pthread_mutex_t,
    pub cond: pthread_cond_t,
    pub events_completed: u32,
}

/// Work queue.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_wq {
    pub context: *mut ibv_context,
    pub wq_context: *mut c_void,
    pub pd: *mut ibv_pd,
    pub cq: *mut ibv_cq,
    pub wq_num: u32,
    pub handle: u32,
    pub state: ibv_wq_state,
    pub wq_type: ibv_wq_type,
    pub post_recv: Option<
        unsafe extern "C" fn(
            current: *mut ibv_wq,
            recv_wr: *mut ibv_recv_wr,
            bad_recv_wr: *mut *mut ibv_recv_wr,
        ) -> c_int,
    >,
    pub mutex: pthread_mutex_t,
    pub cond: pthread_cond_t,
    pub events_completed: u32,
    pub comp_mask: u32,
}

/// Queue pair.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_qp {
    pub context: *mut ibv_context,
    pub qp_context: *mut c_void,
    pub pd: *mut ibv_pd,
    pub send_cq: *mut ibv_cq,
    pub recv_cq: *mut ibv_cq,
    pub srq: *mut ibv_srq,
    pub handle: u32,
    pub qp_num: u32,
    pub state: ibv_qp_state,
    pub qp_type: ibv_qp_type,
    pub mutex: pthread_mutex_t,
    pub cond: pthread_cond_t,
    pub events_completed: u32,
}

/// Queue pair with the work-request builder interface (`ibv_wr_*`).
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
}

/// Enhanced connection establishment options.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_ece {
    /// IEEE OUI of the provider's vendor.
    pub vendor_id: u32,
    pub options: u32,
    pub comp_mask: u32,
}

// ---------------------------------------------------------------------------
// Completion channels and CQs
// ---------------------------------------------------------------------------

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_comp_channel {
    pub context: *mut ibv_context,
    pub fd: c_int,
    pub refcnt: c_int,
}

/// Completion queue.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_cq {
    pub context: *mut ibv_context,
    pub channel: *mut ibv_comp_channel,
    pub cq_context: *mut c_void,
    pub handle: u32,
    pub cqe: c_int,
    pub mutex: pthread_mutex_t,
    pub cond: pthread_cond_t,
    pub comp_events_completed: u32,
    pub async_events_completed: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_poll_cq_attr {
    pub comp_mask: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_wc_tm_info {
    /// Tag from the TMH.
    pub tag: u64,
    /// Opaque user data from the TMH.
    pub priv_: u32,
}

/// Extended completion queue: the polling interface is a set of function
/// pointers the provider fills in.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_cq_ex {
    pub context: *mut ibv_context,
    pub channel: *mut ibv_comp_channel,
    pub cq_context: *mut c_void,
    pub handle: u32,
    pub cqe: c_int,
    pub mutex: pthread_mutex_t,
    pub cond: pthread_cond_t,
    pub comp_events_completed: u32,
    pub async_events_completed: u32,
    pub comp_mask: u32,
    pub status: ibv_wc_status,
    pub wr_id: u64,
    pub start_poll:
        Option<unsafe extern "C" fn(current: *mut ibv_cq_ex, attr: *mut ibv_poll_cq_attr) -> c_int>,
    pub next_poll: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> c_int>,
    pub end_poll: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex)>,
    pub read_opcode: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> ibv_wc_opcode>,
    pub read_vendor_err: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u32>,
    pub read_byte_len: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u32>,
    /// Returns big-endian immediate data.
    pub read_imm_data: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u32>,
    pub read_qp_num: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u32>,
    pub read_src_qp: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u32>,
    pub read_wc_flags: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> c_uint>,
    pub read_slid: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u32>,
    pub read_sl: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u8>,
    pub read_dlid_path_bits: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u8>,
    pub read_completion_ts: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u64>,
    pub read_cvlan: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u16>,
    pub read_flow_tag: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u32>,
    pub read_tm_info:
        Option<unsafe extern "C" fn(current: *mut ibv_cq_ex, tm_info: *mut ibv_wc_tm_info)>,
    pub read_completion_wallclock_ns: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u64>,
}

pub type ibv_cq_attr_mask = u32;
pub const IBV_CQ_ATTR_MODERATE: ibv_cq_attr_mask = 1 << 0;
pub const IBV_CQ_ATTR_RESERVED: ibv_cq_attr_mask = 1 << 1;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_moderate_cq {
    pub cq_count: u16,
    /// In microseconds.
    pub cq_period: u16,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_modify_cq_attr {
    pub attr_mask: u32,
    pub moderate: ibv_moderate_cq,
}

/// Address handle.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_ah {
    pub context: *mut ibv_context,
    pub pd: *mut ibv_pd,
    pub handle: u32,
}

// ---------------------------------------------------------------------------
// Flow steering
// ---------------------------------------------------------------------------

pub type ibv_flow_flags = u32;
pub const IBV_FLOW_ATTR_FLAGS_DONT_TRAP: ibv_flow_flags = 1 << 1;
pub const IBV_FLOW_ATTR_FLAGS_EGRESS: ibv_flow_flags = 1 << 2;

pub type ibv_flow_attr_type = u32;
pub const IBV_FLOW_ATTR_NORMAL: ibv_flow_attr_type = 0x0;
pub const IBV_FLOW_ATTR_ALL_DEFAULT: ibv_flow_attr_type = 0x1;
pub const IBV_FLOW_ATTR_MC_DEFAULT: ibv_flow_attr_type = 0x2;
pub const IBV_FLOW_ATTR_SNIFFER: ibv_flow_attr_type = 0x3;

pub type ibv_flow_spec_type = u32;
pub const IBV_FLOW_SPEC_ETH: ibv_flow_spec_type = 0x20;
pub const IBV_FLOW_SPEC_IPV4: ibv_flow_spec_type = 0x30;
pub const IBV_FLOW_SPEC_IPV6: ibv_flow_spec_type = 0x31;
pub const IBV_FLOW_SPEC_IPV4_EXT: ibv_flow_spec_type = 0x32;
pub const IBV_FLOW_SPEC_ESP: ibv_flow_spec_type = 0x34;
pub const IBV_FLOW_SPEC_TCP: ibv_flow_spec_type = 0x40;
pub const IBV_FLOW_SPEC_UDP: ibv_flow_spec_type = 0x41;
pub const IBV_FLOW_SPEC_VXLAN_TUNNEL: ibv_flow_spec_type = 0x50;
pub const IBV_FLOW_SPEC_GRE: ibv_flow_spec_type = 0x51;
pub const IBV_FLOW_SPEC_MPLS: ibv_flow_spec_type = 0x60;
pub const IBV_FLOW_SPEC_INNER: ibv_flow_spec_type = 0x100;
pub const IBV_FLOW_SPEC_ACTION_TAG: ibv_flow_spec_type = 0x1000;
pub const IBV_FLOW_SPEC_ACTION_DROP: ibv_flow_spec_type = 0x1001;
pub const IBV_FLOW_SPEC_ACTION_HANDLE: ibv_flow_spec_type = 0x1002;
pub const IBV_FLOW_SPEC_ACTION_COUNT: ibv_flow_spec_type = 0x1003;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_eth_filter {
    pub dst_mac: [u8; 6],
    pub src_mac: [u8; 6],
    pub ether_type: u16,
    /// 802.1Q layout: priority 3 bits, CFI 1 bit, VLAN id 12 bits.
    pub vlan_tag: u16,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_eth {
    pub type_: ibv_flow_spec_type,
    pub size: u16,
    pub val: ibv_flow_eth_filter,
    pub mask: ibv_flow_eth_filter,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_ipv4_filter {
    pub src_ip: u32,
    pub dst_ip: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_ipv4 {
    pub type_: ibv_flow_spec_type,
    pub size: u16,
    pub val: ibv_flow_ipv4_filter,
    pub mask: ibv_flow_ipv4_filter,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_ipv4_ext_filter {
    pub src_ip: u32,
    pub dst_ip: u32,
    pub proto: u8,
    pub tos: u8,
    pub ttl: u8,
    pub flags: u8,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_ipv4_ext {
    pub type_: ibv_flow_spec_type,
    pub size: u16,
    pub val: ibv_flow_ipv4_ext_filter,
    pub mask: ibv_flow_ipv4_ext_filter,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_ipv6_filter {
    pub src_ip: [u8; 16],
    pub dst_ip: [u8; 16],
    pub flow_label: u32,
    pub next_hdr: u8,
    pub traffic_class: u8,
    pub hop_limit: u8,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_ipv6 {
    pub type_: ibv_flow_spec_type,
    pub size: u16,
    pub val: ibv_flow_ipv6_filter,
    pub mask: ibv_flow_ipv6_filter,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_esp_filter {
    pub spi: u32,
    pub seq: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_esp {
    pub type_: ibv_flow_spec_type,
    pub size: u16,
    pub val: ibv_flow_esp_filter,
    pub mask: ibv_flow_esp_filter,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_tcp_udp_filter {
    pub dst_port: u16,
    pub src_port: u16,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_tcp_udp {
    pub type_: ibv_flow_spec_type,
    pub size: u16,
    pub val: ibv_flow_tcp_udp_filter,
    pub mask: ibv_flow_tcp_udp_filter,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_gre_filter {
    /// Bits 0-15 of a GRE header: checksum-present, reserved, key-present,
    /// sequence-present bits, reserved bits and the 3-bit version.
    pub c_ks_res0_ver: u16,
    pub protocol: u16,
    pub key: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_gre {
    pub type_: ibv_flow_spec_type,
    pub size: u16,
    pub val: ibv_flow_gre_filter,
    pub mask: ibv_flow_gre_filter,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_mpls_filter {
    /// The whole MPLS label entry: label (bits 0-19), traffic class (20-22),
    /// bottom of stack (23), TTL (24-31).
    pub label: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_mpls {
    pub type_: ibv_flow_spec_type,
    pub size: u16,
    pub val: ibv_flow_mpls_filter,
    pub mask: ibv_flow_mpls_filter,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_tunnel_filter {
    pub tunnel_id: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_tunnel {
    pub type_: ibv_flow_spec_type,
    pub size: u16,
    pub val: ibv_flow_tunnel_filter,
    pub mask: ibv_flow_tunnel_filter,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_action_tag {
    pub type_: ibv_flow_spec_type,
    pub size: u16,
    pub tag_id: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_action_drop {
    pub type_: ibv_flow_spec_type,
    pub size: u16,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_action_handle {
    pub type_: ibv_flow_spec_type,
    pub size: u16,
    pub action: *const ibv_flow_action,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_counter_action {
    pub type_: ibv_flow_spec_type,
    pub size: u16,
    pub counters: *mut ibv_counters,
}

/// The header every flow spec starts with.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_u_hdr {
    pub type_: ibv_flow_spec_type,
    pub size: u16,
}

/// C: the anonymous union that is the whole of `struct ibv_flow_spec`
/// (field `u`).
#[repr(C)]
#[derive(Clone, Copy)]
pub union ibv_flow_spec_u {
    pub hdr: ibv_flow_spec_u_hdr,
    pub eth: ibv_flow_spec_eth,
    pub ipv4: ibv_flow_spec_ipv4,
    pub tcp_udp: ibv_flow_spec_tcp_udp,
    pub ipv4_ext: ibv_flow_spec_ipv4_ext,
    pub ipv6: ibv_flow_spec_ipv6,
    pub esp: ibv_flow_spec_esp,
    pub tunnel: ibv_flow_spec_tunnel,
    pub gre: ibv_flow_spec_gre,
    pub mpls: ibv_flow_spec_mpls,
    pub flow_tag: ibv_flow_spec_action_tag,
    pub drop: ibv_flow_spec_action_drop,
    pub handle: ibv_flow_spec_action_handle,
    pub flow_count: ibv_flow_spec_counter_action,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec {
    /// C: anonymous union.
    pub u: ibv_flow_spec_u,
}

/// Header of a flow rule; `num_of_specs` flow specs follow it in memory.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_attr {
    pub comp_mask: u32,
    pub type_: ibv_flow_attr_type,
    pub size: u16,
    pub priority: u16,
    pub num_of_specs: u8,
    pub port: u8,
    pub flags: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow {
    pub comp_mask: u32,
    pub context: *mut ibv_context,
    pub handle: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_action {
    pub context: *mut ibv_context,
}

pub type ibv_flow_action_esp_mask = u32;
pub const IBV_FLOW_ACTION_ESP_MASK_ESN: ibv_flow_action_esp_mask = 1 << 0;

// The ESP types verbs_api.h maps onto the kernel uAPI
// (ib_uverbs_flow_action_esp_*).

pub type ibv_flow_action_esp_keymat = u32;
pub const IBV_FLOW_ACTION_ESP_KEYMAT_AES_GCM: ibv_flow_action_esp_keymat = 0;

pub type ibv_flow_action_esp_keymat_aes_gcm_iv_algo = u32;
pub const IBV_FLOW_ACTION_IV_ALGO_SEQ: ibv_flow_action_esp_keymat_aes_gcm_iv_algo = 0;

/// C: `struct ib_uverbs_flow_action_esp_keymat_aes_gcm`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_action_esp_keymat_aes_gcm {
    pub iv: u64,
    /// An `ibv_flow_action_esp_keymat_aes_gcm_iv_algo` value.
    pub iv_algo: u32,
    pub salt: u32,
    pub icv_len: u32,
    pub key_len: u32,
    pub aes_key: [u32; 8],
}

pub type ibv_flow_action_esp_replay = u32;
pub const IBV_FLOW_ACTION_ESP_REPLAY_NONE: ibv_flow_action_esp_replay = 0;
pub const IBV_FLOW_ACTION_ESP_REPLAY_BMP: ibv_flow_action_esp_replay = 1;

/// C: `struct ib_uverbs_flow_action_esp_replay_bmp`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_action_esp_replay_bmp {
    pub size: u32,
}

pub type ibv_flow_action_esp_flags = u32;
pub const IBV_FLOW_ACTION_ESP_FLAGS_INLINE_CRYPTO: ibv_flow_action_esp_flags = 0;
pub const IBV_FLOW_ACTION_ESP_FLAGS_FULL_OFFLOAD: ibv_flow_action_esp_flags = 1 << 0;
pub const IBV_FLOW_ACTION_ESP_FLAGS_TUNNEL: ibv_flow_action_esp_flags = 0;
pub const IBV_FLOW_ACTION_ESP_FLAGS_TRANSPORT: ibv_flow_action_esp_flags = 1 << 1;
pub const IBV_FLOW_ACTION_ESP_FLAGS_DECRYPT: ibv_flow_action_esp_flags = 0;
pub const IBV_FLOW_ACTION_ESP_FLAGS_ENCRYPT: ibv_flow_action_esp_flags = 1 << 2;
pub const IBV_FLOW_ACTION_ESP_FLAGS_ESN_NEW_WINDOW: ibv_flow_action_esp_flags = 1 << 3;

/// C: `struct ib_uverbs_flow_action_esp_encap`, a list of filters that
/// encapsulate the payload in ESP tunnel mode.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_action_esp_encap {
    /// Points to an `ibv_flow_*_filter` (C: `RDMA_UAPI_PTR`, also readable as
    /// `val_ptr_data_u64`).
    pub val_ptr: *mut c_void,
    /// C: `RDMA_UAPI_PTR`, also readable as `next_ptr_data_u64`.
    pub next_ptr: *mut ibv_flow_action_esp_encap,
    /// Length of the filter `val_ptr` points to.
    pub len: u16,
    /// An `ibv_flow_spec_type` value.
    pub type_: u16,
}

/// C: `struct ib_uverbs_flow_action_esp`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_action_esp {
    pub spi: u32,
    pub seq: u32,
    pub tfc_pad: u32,
    /// `ibv_flow_action_esp_flags` bits.
    pub flags: u32,
    pub hard_limit_pkts: u64,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_action_esp_attr {
    pub esp_attr: *mut ibv_flow_action_esp,
    pub keymat_proto: ibv_flow_action_esp_keymat,
    pub keymat_len: u16,
    pub keymat_ptr: *mut c_void,
    pub replay_proto: ibv_flow_action_esp_replay,
    pub replay_len: u16,
    pub replay_ptr: *mut c_void,
    pub esp_encap: *mut ibv_flow_action_esp_encap,
    /// `ibv_flow_action_esp_mask` bits.
    pub comp_mask: u32,
    pub esn: u32,
}

// ---------------------------------------------------------------------------
// Devices and contexts
// ---------------------------------------------------------------------------

/// Obsolete device ops, never used; kept for the `ibv_device` layout.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct _ibv_device_ops {
    pub _dummy1:
        Option<unsafe extern "C" fn(device: *mut ibv_device, cmd_fd: c_int) -> *mut ibv_context>,
    pub _dummy2: Option<unsafe extern "C" fn(context: *mut ibv_context)>,
}

/// Anonymous C enum: sysfs name and path buffer sizes.
pub const IBV_SYSFS_NAME_MAX: usize = 64;
pub const IBV_SYSFS_PATH_MAX: usize = 256;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_device {
    pub _ops: _ibv_device_ops,
    pub node_type: ibv_node_type,
    pub transport_type: ibv_transport_type,
    /// Kernel IB device name, e.g. "mlx5_0".
    pub name: [c_char; IBV_SYSFS_NAME_MAX],
    /// uverbs char device name, e.g. "uverbs0".
    pub dev_name: [c_char; IBV_SYSFS_NAME_MAX],
    /// sysfs path of the infiniband_verbs class device.
    pub dev_path: [c_char; IBV_SYSFS_PATH_MAX],
    /// sysfs path of the infiniband class device.
    pub ibdev_path: [c_char; IBV_SYSFS_PATH_MAX],
}

/// The data-path and legacy ops embedded in every `ibv_context`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_context_ops {
    pub _compat_query_device: Option<
        unsafe extern "C" fn(context: *mut ibv_context, device_attr: *mut ibv_device_attr) -> c_int,
    >,
    pub _compat_query_port: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            port_num: u8,
            port_attr: *mut _compat_ibv_port_attr,
        ) -> c_int,
    >,
    pub _compat_alloc_pd: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_dealloc_pd: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_reg_mr: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_rereg_mr: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_dereg_mr: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub alloc_mw: Option<unsafe extern "C" fn(pd: *mut ibv_pd, type_: ibv_mw_type) -> *mut ibv_mw>,
    pub bind_mw: Option<
        unsafe extern "C" fn(qp: *mut ibv_qp, mw: *mut ibv_mw, mw_bind: *mut ibv_mw_bind) -> c_int,
    >,
    pub dealloc_mw: Option<unsafe extern "C" fn(mw: *mut ibv_mw) -> c_int>,
    pub _compat_create_cq: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub poll_cq:
        Option<unsafe extern "C" fn(cq: *mut ibv_cq, num_entries: c_int, wc: *mut ibv_wc) -> c_int>,
    pub req_notify_cq:
        Option<unsafe extern "C" fn(cq: *mut ibv_cq, solicited_only: c_int) -> c_int>,
    pub _compat_cq_event: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_resize_cq: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_destroy_cq: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_create_srq: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_modify_srq: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_query_srq: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_destroy_srq: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub post_srq_recv: Option<
        unsafe extern "C" fn(
            srq: *mut ibv_srq,
            recv_wr: *mut ibv_recv_wr,
            bad_recv_wr: *mut *mut ibv_recv_wr,
        ) -> c_int,
    >,
    pub _compat_create_qp: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_query_qp: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_modify_qp: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_destroy_qp: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub post_send: Option<
        unsafe extern "C" fn(
            qp: *mut ibv_qp,
            wr: *mut ibv_send_wr,
            bad_wr: *mut *mut ibv_send_wr,
        ) -> c_int,
    >,
    pub post_recv: Option<
        unsafe extern "C" fn(
            qp: *mut ibv_qp,
            wr: *mut ibv_recv_wr,
            bad_wr: *mut *mut ibv_recv_wr,
        ) -> c_int,
    >,
    pub _compat_create_ah: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_destroy_ah: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_attach_mcast: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_detach_mcast: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_async_event: Option<unsafe extern "C" fn() -> *mut c_void>,
}

/// An open device.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_context {
    pub device: *mut ibv_device,
    pub ops: ibv_context_ops,
    pub cmd_fd: c_int,
    pub async_fd: c_int,
    pub num_comp_vectors: c_int,
    pub mutex: pthread_mutex_t,
    /// `__VERBS_ABI_IS_EXTENDED` when this context is the `context` member of
    /// a `verbs_context`.
    pub abi_compat: *mut c_void,
}

pub type ibv_cq_init_attr_mask = u32;
pub const IBV_CQ_INIT_ATTR_MASK_FLAGS: ibv_cq_init_attr_mask = 1 << 0;
pub const IBV_CQ_INIT_ATTR_MASK_PD: ibv_cq_init_attr_mask = 1 << 1;

pub type ibv_create_cq_attr_flags = u32;
pub const IBV_CREATE_CQ_ATTR_SINGLE_THREADED: ibv_create_cq_attr_flags = 1 << 0;
pub const IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN: ibv_create_cq_attr_flags = 1 << 1;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_cq_init_attr_ex {
    /// Minimum number of entries.
    pub cqe: u32,
    pub cq_context: *mut c_void,
    /// May be NULL when completion events are not used.
    pub channel: *mut ibv_comp_channel,
    /// Must be below `ibv_context::num_comp_vectors`.
    pub comp_vector: u32,
    /// `ibv_create_cq_wc_flags` bits.
    pub wc_flags: u64,
    /// `ibv_cq_init_attr_mask` bits.
    pub comp_mask: u32,
    /// `ibv_create_cq_attr_flags` bits.
    pub flags: u32,
    pub parent_domain: *mut ibv_pd,
}

pub type ibv_parent_domain_init_attr_mask = u32;
pub const IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS: ibv_parent_domain_init_attr_mask = 1 << 0;
pub const IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT: ibv_parent_domain_init_attr_mask = 1 << 1;

/// Returned by a parent domain's `alloc` callback to ask for the provider's
/// default allocator (C: `(void *)-1`).
pub const IBV_ALLOCATOR_USE_DEFAULT: *mut c_void = usize::MAX as *mut c_void;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_parent_domain_init_attr {
    /// Must not be NULL.
    pub pd: *mut ibv_pd,
    /// May be NULL.
    pub td: *mut ibv_td,
    pub comp_mask: u32,
    pub alloc: Option<
        unsafe extern "C" fn(
            pd: *mut ibv_pd,
            pd_context: *mut c_void,
            size: usize,
            alignment: usize,
            resource_type: u64,
        ) -> *mut c_void,
    >,
    pub free: Option<
        unsafe extern "C" fn(
            pd: *mut ibv_pd,
            pd_context: *mut c_void,
            ptr: *mut c_void,
            resource_type: u64,
        ),
    >,
    pub pd_context: *mut c_void,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_counters_init_attr {
    pub comp_mask: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_counters {
    pub context: *mut ibv_context,
}

pub type ibv_counter_description = u32;
pub const IBV_COUNTER_PACKETS: ibv_counter_description = 0;
pub const IBV_COUNTER_BYTES: ibv_counter_description = 1;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_counter_attach_attr {
    pub counter_desc: ibv_counter_description,
    /// Where the counter goes in the counters object.
    pub index: u32,
    pub comp_mask: u32,
}

pub type ibv_read_counters_flags = u32;
pub const IBV_READ_COUNTERS_ATTR_PREFER_CACHED: ibv_read_counters_flags = 1 << 0;

pub type ibv_values_mask = u32;
pub const IBV_VALUES_MASK_RAW_CLOCK: ibv_values_mask = 1 << 0;
pub const IBV_VALUES_MASK_RESERVED: ibv_values_mask = 1 << 1;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_values_ex {
    pub comp_mask: u32,
    pub raw_clock: timespec,
}

/// The library's private per-context data, reached through
/// `verbs_context::priv_`. Opaque here: the library defines the real layout
/// elsewhere and casts.
#[repr(C)]
pub struct verbs_ex_private {
    _opaque: [u8; 0],
}

/// The kernel-uAPI advice values verbs_api.h re-exports as
/// `ibv_advise_mr_advice` (C: `enum ib_uverbs_advise_mr_advice`).
pub type ibv_advise_mr_advice = u32;
pub const IBV_ADVISE_MR_ADVICE_PREFETCH: ibv_advise_mr_advice = 0;
pub const IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE: ibv_advise_mr_advice = 1;
pub const IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT: ibv_advise_mr_advice = 2;
/// C: `IB_UVERBS_ADVISE_MR_FLAG_FLUSH`.
pub const IBV_ADVISE_MR_FLAG_FLUSH: u32 = 1 << 0;
/// Bit of `ibv_port_attr::flags` (C: `IB_UVERBS_QPF_GRH_REQUIRED`).
pub const IBV_QPF_GRH_REQUIRED: u8 = 1 << 0;

/// The extended context: the library and providers allocate this, and hand
/// applications a pointer to its trailing `context` member. New ops were
/// added at the top, so an op's offset from `context` never changes.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct verbs_context {
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

// ---------------------------------------------------------------------------
// Miscellaneous constants
// ---------------------------------------------------------------------------

pub type ibv_rereg_mr_err_code = c_int;
pub const IBV_REREG_MR_ERR_INPUT: ibv_rereg_mr_err_code = -1;
pub const IBV_REREG_MR_ERR_DONT_FORK_NEW: ibv_rereg_mr_err_code = -2;
pub const IBV_REREG_MR_ERR_DO_FORK_OLD: ibv_rereg_mr_err_code = -3;
pub const IBV_REREG_MR_ERR_CMD: ibv_rereg_mr_err_code = -4;
pub const IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW: ibv_rereg_mr_err_code = -5;

/// Length of the MAC address `ibv_resolve_eth_l2_from_gid` writes.
pub const ETHERNET_LL_SIZE: usize = 6;

/// RoCEv2 UDP source ports are drawn from this range.
pub const IB_ROCE_UDP_ENCAP_VALID_PORT_MIN: u32 = 0xC000;
pub const IB_ROCE_UDP_ENCAP_VALID_PORT_MAX: u32 = 0xFFFF;
pub const IB_GRH_FLOWLABEL_MASK: u32 = 0x000F_FFFF;

// ---------------------------------------------------------------------------
// <infiniband/sa.h>
// ---------------------------------------------------------------------------

/// Path record in host form (the `ibv_copy_path_rec_*` helpers convert it
/// from and to the kernel's `ib_user_path_rec`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_sa_path_rec {
    pub dgid: ibv_gid,
    pub sgid: ibv_gid,
    /// Big-endian.
    pub dlid: u16,
    /// Big-endian.
    pub slid: u16,
    pub raw_traffic: c_int,
    /// Big-endian.
    pub flow_label: u32,
    pub hop_limit: u8,
    pub traffic_class: u8,
    pub reversible: c_int,
    pub numb_path: u8,
    /// Big-endian.
    pub pkey: u16,
    pub sl: u8,
    pub mtu_selector: u8,
    pub mtu: u8,
    pub rate_selector: u8,
    pub rate: u8,
    pub packet_life_time_selector: u8,
    pub packet_life_time: u8,
    pub preference: u8,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_sa_mcmember_rec {
    pub mgid: ibv_gid,
    pub port_gid: ibv_gid,
    pub qkey: u32,
    pub mlid: u16,
    pub mtu_selector: u8,
    pub mtu: u8,
    pub traffic_class: u8,
    pub pkey: u16,
    pub rate_selector: u8,
    pub rate: u8,
    pub packet_life_time_selector: u8,
    pub packet_life_time: u8,
    pub sl: u8,
    pub flow_label: u32,
    pub hop_limit: u8,
    pub scope: u8,
    pub join_state: u8,
    pub proxy_join: c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_sa_service_rec {
    pub id: u64,
    pub gid: ibv_gid,
    pub pkey: u16,
    pub lease: u32,
    pub key: [u8; 16],
    pub name: [u8; 64],
    pub data8: [u8; 16],
    pub data16: [u16; 8],
    pub data32: [u32; 4],
    pub data64: [u64; 2],
}

pub const IBV_PATH_RECORD_REVERSIBLE: u8 = 0x80;

/// Path record in wire form.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_path_record {
    /// Big-endian.
    pub service_id: u64,
    pub dgid: ibv_gid,
    pub sgid: ibv_gid,
    /// Big-endian.
    pub dlid: u16,
    /// Big-endian.
    pub slid: u16,
    /// Big-endian: reserved (31:28), flow label (27:8), hop limit (7:0).
    pub flowlabel_hoplimit: u32,
    pub tclass: u8,
    /// Reversible (bit 7), number of paths (6:0).
    pub reversible_numpath: u8,
    /// Big-endian.
    pub pkey: u16,
    /// Big-endian: QoS class (15:4), SL (3:0).
    pub qosclass_sl: u16,
    /// Selector (7:6), MTU (5:0).
    pub mtu: u8,
    /// Selector (7:6), rate (5:0).
    pub rate: u8,
    /// Selector (7:6), packet lifetime (5:0).
    pub packetlifetime: u8,
    pub preference: u8,
    pub reserved: [u8; 6],
}

pub const IBV_PATH_FLAG_GMP: u32 = 1 << 0;
pub const IBV_PATH_FLAG_PRIMARY: u32 = 1 << 1;
pub const IBV_PATH_FLAG_ALTERNATE: u32 = 1 << 2;
pub const IBV_PATH_FLAG_OUTBOUND: u32 = 1 << 3;
pub const IBV_PATH_FLAG_INBOUND: u32 = 1 << 4;
pub const IBV_PATH_FLAG_INBOUND_REVERSE: u32 = 1 << 5;
pub const IBV_PATH_FLAG_BIDIRECTIONAL: u32 = IBV_PATH_FLAG_OUTBOUND | IBV_PATH_FLAG_INBOUND_REVERSE;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_path_data {
    /// `IBV_PATH_FLAG_*` bits.
    pub flags: u32,
    pub reserved: u32,
    pub path: ibv_path_record,
}

// ---------------------------------------------------------------------------
// <rdma/ib_user_sa.h> (what <infiniband/sa-kern-abi.h> calls
// ibv_kern_path_rec)
// ---------------------------------------------------------------------------

pub const IB_PATH_GMP: u32 = 1;
pub const IB_PATH_PRIMARY: u32 = 1 << 1;
pub const IB_PATH_ALTERNATE: u32 = 1 << 2;
pub const IB_PATH_OUTBOUND: u32 = 1 << 3;
pub const IB_PATH_INBOUND: u32 = 1 << 4;
pub const IB_PATH_INBOUND_REVERSE: u32 = 1 << 5;
pub const IB_PATH_BIDIRECTIONAL: u32 = IB_PATH_OUTBOUND | IB_PATH_INBOUND_REVERSE;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ib_path_rec_data {
    pub flags: u32,
    pub reserved: u32,
    pub path_rec: [u32; 16],
}

/// The kernel's path record (rdma_ucm / ib_ucm form).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ib_user_path_rec {
    pub dgid: [u8; 16],
    pub sgid: [u8; 16],
    /// Big-endian.
    pub dlid: u16,
    /// Big-endian.
    pub slid: u16,
    pub raw_traffic: u32,
    /// Big-endian.
    pub flow_label: u32,
    pub reversible: u32,
    pub mtu: u32,
    /// Big-endian.
    pub pkey: u16,
    pub hop_limit: u8,
    pub traffic_class: u8,
    pub numb_path: u8,
    pub sl: u8,
    pub mtu_selector: u8,
    pub rate_selector: u8,
    pub rate: u8,
    pub packet_life_time_selector: u8,
    pub packet_life_time: u8,
    pub preference: u8,
}

/// C: `#define ibv_kern_path_rec ib_user_path_rec` (sa-kern-abi.h).
pub type ibv_kern_path_rec = ib_user_path_rec;
/// C: `#define ib_kern_path_rec ib_user_path_rec` (sa-kern-abi.h).
pub type ib_kern_path_rec = ib_user_path_rec;

// ---------------------------------------------------------------------------
// <infiniband/tm_types.h>
// ---------------------------------------------------------------------------

/// Opcode of a tag-matching header (`ibv_tmh::opcode`).
pub type ibv_tmh_op = u32;
pub const IBV_TMH_NO_TAG: ibv_tmh_op = 0;
pub const IBV_TMH_RNDV: ibv_tmh_op = 1;
pub const IBV_TMH_FIN: ibv_tmh_op = 2;
pub const IBV_TMH_EAGER: ibv_tmh_op = 3;

/// Tag-matching header at the start of a tagged message (wire format).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_tmh {
    /// An `ibv_tmh_op`.
    pub opcode: u8,
    pub reserved: [u8; 3],
    /// Big-endian.
    pub app_ctx: u32,
    /// Big-endian.
    pub tag: u64,
}

/// Rendezvous header following `ibv_tmh` in an `IBV_TMH_RNDV` message.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_rvh {
    /// Big-endian.
    pub va: u64,
    /// Big-endian.
    pub rkey: u32,
    /// Big-endian.
    pub len: u32,
}

// BEGIN LAYOUT ASSERTIONS (generated by abi-tests/probe/gen.py from the C probe)
crate::assert_layout!(
    ibv_gid_global,
    size = 16,
    align = 8,
    subnet_prefix = 0,
    interface_id = 8
);
crate::assert_layout!(ibv_gid, size = 16, align = 8, raw = 0, global = 0);
crate::assert_layout!(
    ibv_gid_entry,
    size = 32,
    align = 8,
    gid = 0,
    gid_index = 16,
    port_num = 20,
    gid_type = 24,
    ndev_ifindex = 28
);
crate::assert_layout!(
    ibv_alloc_dm_attr,
    size = 16,
    align = 8,
    length = 0,
    log_align_req = 8,
    comp_mask = 12
);
crate::assert_layout!(
    ibv_dm,
    size = 32,
    align = 8,
    context = 0,
    memcpy_to_dm = 8,
    memcpy_from_dm = 16,
    comp_mask = 24,
    handle = 28
);
crate::assert_layout!(
    ibv_device_attr,
    size = 232,
    align = 8,
    fw_ver = 0,
    node_guid = 64,
    sys_image_guid = 72,
    max_mr_size = 80,
    page_size_cap = 88,
    vendor_id = 96,
    vendor_part_id = 100,
    hw_ver = 104,
    max_qp = 108,
    max_qp_wr = 112,
    device_cap_flags = 116,
    max_sge = 120,
    max_sge_rd = 124,
    max_cq = 128,
    max_cqe = 132,
    max_mr = 136,
    max_pd = 140,
    max_qp_rd_atom = 144,
    max_ee_rd_atom = 148,
    max_res_rd_atom = 152,
    max_qp_init_rd_atom = 156,
    max_ee_init_rd_atom = 160,
    atomic_cap = 164,
    max_ee = 168,
    max_rdd = 172,
    max_mw = 176,
    max_raw_ipv6_qp = 180,
    max_raw_ethy_qp = 184,
    max_mcast_grp = 188,
    max_mcast_qp_attach = 192,
    max_total_mcast_qp_attach = 196,
    max_ah = 200,
    max_fmr = 204,
    max_map_per_fmr = 208,
    max_srq = 212,
    max_srq_wr = 216,
    max_srq_sge = 220,
    max_pkeys = 224,
    local_ca_ack_delay = 226,
    phys_port_cnt = 227
);
crate::assert_layout!(
    ibv_query_device_ex_input,
    size = 4,
    align = 4,
    comp_mask = 0
);
crate::assert_layout!(
    ibv_odp_caps_per_transport_caps,
    size = 12,
    align = 4,
    rc_odp_caps = 0,
    uc_odp_caps = 4,
    ud_odp_caps = 8
);
crate::assert_layout!(
    ibv_odp_caps,
    size = 24,
    align = 8,
    general_caps = 0,
    per_transport_caps = 8
);
crate::assert_layout!(
    ibv_tso_caps,
    size = 8,
    align = 4,
    max_tso = 0,
    supported_qpts = 4
);
crate::assert_layout!(
    ibv_rss_caps,
    size = 32,
    align = 8,
    supported_qpts = 0,
    max_rwq_indirection_tables = 4,
    max_rwq_indirection_table_size = 8,
    rx_hash_fields_mask = 16,
    rx_hash_function = 24
);
crate::assert_layout!(
    ibv_packet_pacing_caps,
    size = 12,
    align = 4,
    qp_rate_limit_min = 0,
    qp_rate_limit_max = 4,
    supported_qpts = 8
);
crate::assert_layout!(
    ibv_tm_caps,
    size = 20,
    align = 4,
    max_rndv_hdr_size = 0,
    max_num_tags = 4,
    flags = 8,
    max_ops = 12,
    max_sge = 16
);
crate::assert_layout!(
    ibv_cq_moderation_caps,
    size = 4,
    align = 2,
    max_cq_count = 0,
    max_cq_period = 2
);
crate::assert_layout!(
    ibv_pci_atomic_caps,
    size = 6,
    align = 2,
    fetch_add = 0,
    swap = 2,
    compare_swap = 4
);
crate::assert_layout!(
    ibv_device_attr_ex,
    size = 400,
    align = 8,
    orig_attr = 0,
    comp_mask = 232,
    odp_caps = 240,
    completion_timestamp_mask = 264,
    hca_core_clock = 272,
    device_cap_flags_ex = 280,
    tso_caps = 288,
    rss_caps = 296,
    max_wq_type_rq = 328,
    packet_pacing_caps = 332,
    raw_packet_caps = 344,
    tm_caps = 348,
    cq_mod_caps = 368,
    max_dm_size = 376,
    pci_atomic_caps = 384,
    xrc_odp_caps = 392,
    phys_port_cnt_ex = 396
);
crate::assert_layout!(
    ibv_port_attr,
    size = 52,
    align = 4,
    state = 0,
    max_mtu = 4,
    active_mtu = 8,
    gid_tbl_len = 12,
    port_cap_flags = 16,
    max_msg_sz = 20,
    bad_pkey_cntr = 24,
    qkey_viol_cntr = 28,
    pkey_tbl_len = 32,
    lid = 34,
    sm_lid = 36,
    lmc = 38,
    max_vl_num = 39,
    sm_sl = 40,
    subnet_timeout = 41,
    init_type_reply = 42,
    active_width = 43,
    active_speed = 44,
    phys_state = 45,
    link_layer = 46,
    flags = 47,
    port_cap_flags2 = 48
);
crate::assert_layout!(
    _compat_ibv_port_attr,
    size = 48,
    align = 4,
    state = 0,
    max_mtu = 4,
    active_mtu = 8,
    gid_tbl_len = 12,
    port_cap_flags = 16,
    max_msg_sz = 20,
    bad_pkey_cntr = 24,
    qkey_viol_cntr = 28,
    pkey_tbl_len = 32,
    lid = 34,
    sm_lid = 36,
    lmc = 38,
    max_vl_num = 39,
    sm_sl = 40,
    subnet_timeout = 41,
    init_type_reply = 42,
    active_width = 43,
    active_speed = 44,
    phys_state = 45,
    link_layer = 46,
    flags = 47
);
crate::assert_layout!(
    ibv_async_event_element,
    size = 8,
    align = 8,
    cq = 0,
    qp = 0,
    srq = 0,
    wq = 0,
    port_num = 0
);
crate::assert_layout!(
    ibv_async_event,
    size = 16,
    align = 8,
    element = 0,
    event_type = 8
);
crate::assert_layout!(
    ibv_wc_imm,
    size = 4,
    align = 4,
    imm_data = 0,
    invalidated_rkey = 0
);
crate::assert_layout!(
    ibv_wc,
    size = 48,
    align = 8,
    wr_id = 0,
    status = 8,
    opcode = 12,
    vendor_err = 16,
    byte_len = 20,
    imm = 24,
    qp_num = 28,
    src_qp = 32,
    wc_flags = 36,
    pkey_index = 40,
    slid = 42,
    sl = 44,
    dlid_path_bits = 45
);
crate::assert_layout!(
    ibv_mw_bind_info,
    size = 32,
    align = 8,
    mr = 0,
    addr = 8,
    length = 16,
    mw_access_flags = 24
);
crate::assert_layout!(ibv_pd, size = 16, align = 8, context = 0, handle = 8);
crate::assert_layout!(ibv_td_init_attr, size = 4, align = 4, comp_mask = 0);
crate::assert_layout!(ibv_td, size = 8, align = 8, context = 0);
crate::assert_layout!(
    ibv_xrcd_init_attr,
    size = 12,
    align = 4,
    comp_mask = 0,
    fd = 4,
    oflags = 8
);
crate::assert_layout!(ibv_xrcd, size = 8, align = 8, context = 0);
crate::assert_layout!(
    ibv_mr,
    size = 48,
    align = 8,
    context = 0,
    pd = 8,
    addr = 16,
    length = 24,
    handle = 32,
    lkey = 36,
    rkey = 40
);
crate::assert_layout!(
    ibv_mw,
    size = 32,
    align = 8,
    context = 0,
    pd = 8,
    rkey = 16,
    handle = 20,
    type_ = 24
);
crate::assert_layout!(
    ibv_global_route,
    size = 24,
    align = 8,
    dgid = 0,
    flow_label = 16,
    sgid_index = 20,
    hop_limit = 21,
    traffic_class = 22
);
crate::assert_layout!(
    ibv_grh,
    size = 40,
    align = 8,
    version_tclass_flow = 0,
    paylen = 4,
    next_hdr = 6,
    hop_limit = 7,
    sgid = 8,
    dgid = 24
);
crate::assert_layout!(
    ibv_ah_attr,
    size = 32,
    align = 8,
    grh = 0,
    dlid = 24,
    sl = 26,
    src_path_bits = 27,
    static_rate = 28,
    is_global = 29,
    port_num = 30
);
crate::assert_layout!(
    ibv_srq_attr,
    size = 12,
    align = 4,
    max_wr = 0,
    max_sge = 4,
    srq_limit = 8
);
crate::assert_layout!(
    ibv_srq_init_attr,
    size = 24,
    align = 8,
    srq_context = 0,
    attr = 8
);
crate::assert_layout!(
    ibv_tm_cap,
    size = 8,
    align = 4,
    max_num_tags = 0,
    max_ops = 4
);
crate::assert_layout!(
    ibv_srq_init_attr_ex,
    size = 64,
    align = 8,
    srq_context = 0,
    attr = 8,
    comp_mask = 20,
    srq_type = 24,
    pd = 32,
    xrcd = 40,
    cq = 48,
    tm_cap = 56
);
crate::assert_layout!(
    ibv_wq_init_attr,
    size = 48,
    align = 8,
    wq_context = 0,
    wq_type = 8,
    max_wr = 12,
    max_sge = 16,
    pd = 24,
    cq = 32,
    comp_mask = 40,
    create_flags = 44
);
crate::assert_layout!(
    ibv_wq_attr,
    size = 20,
    align = 4,
    attr_mask = 0,
    wq_state = 4,
    curr_wq_state = 8,
    flags = 12,
    flags_mask = 16
);
crate::assert_layout!(
    ibv_rwq_ind_table,
    size = 24,
    align = 8,
    context = 0,
    ind_tbl_handle = 8,
    ind_tbl_num = 12,
    comp_mask = 16
);
crate::assert_layout!(
    ibv_rwq_ind_table_init_attr,
    size = 24,
    align = 8,
    log_ind_tbl_size = 0,
    ind_tbl = 8,
    comp_mask = 16
);
crate::assert_layout!(
    ibv_qp_cap,
    size = 20,
    align = 4,
    max_send_wr = 0,
    max_recv_wr = 4,
    max_send_sge = 8,
    max_recv_sge = 12,
    max_inline_data = 16
);
crate::assert_layout!(
    ibv_qp_init_attr,
    size = 64,
    align = 8,
    qp_context = 0,
    send_cq = 8,
    recv_cq = 16,
    srq = 24,
    cap = 32,
    qp_type = 52,
    sq_sig_all = 56
);
crate::assert_layout!(
    ibv_rx_hash_conf,
    size = 24,
    align = 8,
    rx_hash_function = 0,
    rx_hash_key_len = 1,
    rx_hash_key = 8,
    rx_hash_fields_mask = 16
);
crate::assert_layout!(
    ibv_qp_init_attr_ex,
    size = 136,
    align = 8,
    qp_context = 0,
    send_cq = 8,
    recv_cq = 16,
    srq = 24,
    cap = 32,
    qp_type = 52,
    sq_sig_all = 56,
    comp_mask = 60,
    pd = 64,
    xrcd = 72,
    create_flags = 80,
    max_tso_header = 84,
    rwq_ind_tbl = 88,
    rx_hash_conf = 96,
    source_qpn = 120,
    send_ops_flags = 128
);
crate::assert_layout!(
    ibv_qp_open_attr,
    size = 32,
    align = 8,
    comp_mask = 0,
    qp_num = 4,
    xrcd = 8,
    qp_context = 16,
    qp_type = 24
);
crate::assert_layout!(
    ibv_qp_attr,
    size = 144,
    align = 8,
    qp_state = 0,
    cur_qp_state = 4,
    path_mtu = 8,
    path_mig_state = 12,
    qkey = 16,
    rq_psn = 20,
    sq_psn = 24,
    dest_qp_num = 28,
    qp_access_flags = 32,
    cap = 36,
    ah_attr = 56,
    alt_ah_attr = 88,
    pkey_index = 120,
    alt_pkey_index = 122,
    en_sqd_async_notify = 124,
    sq_draining = 125,
    max_rd_atomic = 126,
    max_dest_rd_atomic = 127,
    min_rnr_timer = 128,
    port_num = 129,
    timeout = 130,
    retry_cnt = 131,
    rnr_retry = 132,
    alt_port_num = 133,
    alt_timeout = 134,
    rate_limit = 136
);
crate::assert_layout!(
    ibv_qp_rate_limit_attr,
    size = 16,
    align = 4,
    rate_limit = 0,
    max_burst_sz = 4,
    typical_pkt_sz = 8,
    comp_mask = 12
);
crate::assert_layout!(ibv_data_buf, size = 16, align = 8, addr = 0, length = 8);
crate::assert_layout!(
    ibv_sge,
    size = 16,
    align = 8,
    addr = 0,
    length = 8,
    lkey = 12
);
crate::assert_layout!(
    ibv_send_wr_imm,
    size = 4,
    align = 4,
    imm_data = 0,
    invalidate_rkey = 0
);
crate::assert_layout!(
    ibv_send_wr_wr_rdma,
    size = 16,
    align = 8,
    remote_addr = 0,
    rkey = 8
);
crate::assert_layout!(
    ibv_send_wr_wr_atomic,
    size = 32,
    align = 8,
    remote_addr = 0,
    compare_add = 8,
    swap = 16,
    rkey = 24
);
crate::assert_layout!(
    ibv_send_wr_wr_ud,
    size = 16,
    align = 8,
    ah = 0,
    remote_qpn = 8,
    remote_qkey = 12
);
crate::assert_layout!(
    ibv_send_wr_wr,
    size = 32,
    align = 8,
    rdma = 0,
    atomic = 0,
    ud = 0
);
crate::assert_layout!(
    ibv_send_wr_qp_type_xrc,
    size = 4,
    align = 4,
    remote_srqn = 0
);
crate::assert_layout!(ibv_send_wr_qp_type, size = 4, align = 4, xrc = 0);
crate::assert_layout!(
    ibv_send_wr_op_bind_mw,
    size = 48,
    align = 8,
    mw = 0,
    rkey = 8,
    bind_info = 16
);
crate::assert_layout!(
    ibv_send_wr_op_tso,
    size = 16,
    align = 8,
    hdr = 0,
    hdr_sz = 8,
    mss = 10
);
crate::assert_layout!(ibv_send_wr_op, size = 48, align = 8, bind_mw = 0, tso = 0);
crate::assert_layout!(
    ibv_send_wr,
    size = 128,
    align = 8,
    wr_id = 0,
    next = 8,
    sg_list = 16,
    num_sge = 24,
    opcode = 28,
    send_flags = 32,
    imm = 36,
    wr = 40,
    qp_type = 72,
    op = 80
);
crate::assert_layout!(
    ibv_recv_wr,
    size = 32,
    align = 8,
    wr_id = 0,
    next = 8,
    sg_list = 16,
    num_sge = 24
);
crate::assert_layout!(
    ibv_ops_wr_tm_add,
    size = 40,
    align = 8,
    recv_wr_id = 0,
    sg_list = 8,
    num_sge = 16,
    tag = 24,
    mask = 32
);
crate::assert_layout!(
    ibv_ops_wr_tm,
    size = 48,
    align = 8,
    unexpected_cnt = 0,
    handle = 4,
    add = 8
);
crate::assert_layout!(
    ibv_ops_wr,
    size = 72,
    align = 8,
    wr_id = 0,
    next = 8,
    opcode = 16,
    flags = 20,
    tm = 24
);
crate::assert_layout!(
    ibv_mw_bind,
    size = 48,
    align = 8,
    wr_id = 0,
    send_flags = 8,
    bind_info = 16
);
crate::assert_layout!(
    ibv_srq,
    size = 128,
    align = 8,
    context = 0,
    srq_context = 8,
    pd = 16,
    handle = 24,
    mutex = 32,
    cond = 72,
    events_completed = 120
);
crate::assert_layout!(
    ibv_wq,
    size = 152,
    align = 8,
    context = 0,
    wq_context = 8,
    pd = 16,
    cq = 24,
    wq_num = 32,
    handle = 36,
    state = 40,
    wq_type = 44,
    post_recv = 48,
    mutex = 56,
    cond = 96,
    events_completed = 144,
    comp_mask = 148
);
crate::assert_layout!(
    ibv_qp,
    size = 160,
    align = 8,
    context = 0,
    qp_context = 8,
    pd = 16,
    send_cq = 24,
    recv_cq = 32,
    srq = 40,
    handle = 48,
    qp_num = 52,
    state = 56,
    qp_type = 60,
    mutex = 64,
    cond = 104,
    events_completed = 152
);
crate::assert_layout!(
    ibv_qp_ex,
    size = 352,
    align = 8,
    qp_base = 0,
    comp_mask = 160,
    wr_id = 168,
    wr_flags = 176,
    wr_atomic_cmp_swp = 184,
    wr_atomic_fetch_add = 192,
    wr_bind_mw = 200,
    wr_local_inv = 208,
    wr_rdma_read = 216,
    wr_rdma_write = 224,
    wr_rdma_write_imm = 232,
    wr_send = 240,
    wr_send_imm = 248,
    wr_send_inv = 256,
    wr_send_tso = 264,
    wr_set_ud_addr = 272,
    wr_set_xrc_srqn = 280,
    wr_set_inline_data = 288,
    wr_set_inline_data_list = 296,
    wr_set_sge = 304,
    wr_set_sge_list = 312,
    wr_start = 320,
    wr_complete = 328,
    wr_abort = 336,
    wr_atomic_write = 344
);
crate::assert_layout!(
    ibv_ece,
    size = 12,
    align = 4,
    vendor_id = 0,
    options = 4,
    comp_mask = 8
);
crate::assert_layout!(
    ibv_comp_channel,
    size = 16,
    align = 8,
    context = 0,
    fd = 8,
    refcnt = 12
);
crate::assert_layout!(
    ibv_cq,
    size = 128,
    align = 8,
    context = 0,
    channel = 8,
    cq_context = 16,
    handle = 24,
    cqe = 28,
    mutex = 32,
    cond = 72,
    comp_events_completed = 120,
    async_events_completed = 124
);
crate::assert_layout!(ibv_poll_cq_attr, size = 4, align = 4, comp_mask = 0);
crate::assert_layout!(ibv_wc_tm_info, size = 16, align = 8, tag = 0, priv_ = 8);
crate::assert_layout!(
    ibv_cq_ex,
    size = 288,
    align = 8,
    context = 0,
    channel = 8,
    cq_context = 16,
    handle = 24,
    cqe = 28,
    mutex = 32,
    cond = 72,
    comp_events_completed = 120,
    async_events_completed = 124,
    comp_mask = 128,
    status = 132,
    wr_id = 136,
    start_poll = 144,
    next_poll = 152,
    end_poll = 160,
    read_opcode = 168,
    read_vendor_err = 176,
    read_byte_len = 184,
    read_imm_data = 192,
    read_qp_num = 200,
    read_src_qp = 208,
    read_wc_flags = 216,
    read_slid = 224,
    read_sl = 232,
    read_dlid_path_bits = 240,
    read_completion_ts = 248,
    read_cvlan = 256,
    read_flow_tag = 264,
    read_tm_info = 272,
    read_completion_wallclock_ns = 280
);
crate::assert_layout!(
    ibv_moderate_cq,
    size = 4,
    align = 2,
    cq_count = 0,
    cq_period = 2
);
crate::assert_layout!(
    ibv_modify_cq_attr,
    size = 8,
    align = 4,
    attr_mask = 0,
    moderate = 4
);
crate::assert_layout!(
    ibv_ah,
    size = 24,
    align = 8,
    context = 0,
    pd = 8,
    handle = 16
);
crate::assert_layout!(
    ibv_flow_eth_filter,
    size = 16,
    align = 2,
    dst_mac = 0,
    src_mac = 6,
    ether_type = 12,
    vlan_tag = 14
);
crate::assert_layout!(
    ibv_flow_spec_eth,
    size = 40,
    align = 4,
    type_ = 0,
    size = 4,
    val = 6,
    mask = 22
);
crate::assert_layout!(
    ibv_flow_ipv4_filter,
    size = 8,
    align = 4,
    src_ip = 0,
    dst_ip = 4
);
crate::assert_layout!(
    ibv_flow_spec_ipv4,
    size = 24,
    align = 4,
    type_ = 0,
    size = 4,
    val = 8,
    mask = 16
);
crate::assert_layout!(
    ibv_flow_ipv4_ext_filter,
    size = 12,
    align = 4,
    src_ip = 0,
    dst_ip = 4,
    proto = 8,
    tos = 9,
    ttl = 10,
    flags = 11
);
crate::assert_layout!(
    ibv_flow_spec_ipv4_ext,
    size = 32,
    align = 4,
    type_ = 0,
    size = 4,
    val = 8,
    mask = 20
);
crate::assert_layout!(
    ibv_flow_ipv6_filter,
    size = 40,
    align = 4,
    src_ip = 0,
    dst_ip = 16,
    flow_label = 32,
    next_hdr = 36,
    traffic_class = 37,
    hop_limit = 38
);
crate::assert_layout!(
    ibv_flow_spec_ipv6,
    size = 88,
    align = 4,
    type_ = 0,
    size = 4,
    val = 8,
    mask = 48
);
crate::assert_layout!(ibv_flow_esp_filter, size = 8, align = 4, spi = 0, seq = 4);
crate::assert_layout!(
    ibv_flow_spec_esp,
    size = 24,
    align = 4,
    type_ = 0,
    size = 4,
    val = 8,
    mask = 16
);
crate::assert_layout!(
    ibv_flow_tcp_udp_filter,
    size = 4,
    align = 2,
    dst_port = 0,
    src_port = 2
);
crate::assert_layout!(
    ibv_flow_spec_tcp_udp,
    size = 16,
    align = 4,
    type_ = 0,
    size = 4,
    val = 6,
    mask = 10
);
crate::assert_layout!(
    ibv_flow_gre_filter,
    size = 8,
    align = 4,
    c_ks_res0_ver = 0,
    protocol = 2,
    key = 4
);
crate::assert_layout!(
    ibv_flow_spec_gre,
    size = 24,
    align = 4,
    type_ = 0,
    size = 4,
    val = 8,
    mask = 16
);
crate::assert_layout!(ibv_flow_mpls_filter, size = 4, align = 4, label = 0);
crate::assert_layout!(
    ibv_flow_spec_mpls,
    size = 16,
    align = 4,
    type_ = 0,
    size = 4,
    val = 8,
    mask = 12
);
crate::assert_layout!(ibv_flow_tunnel_filter, size = 4, align = 4, tunnel_id = 0);
crate::assert_layout!(
    ibv_flow_spec_tunnel,
    size = 16,
    align = 4,
    type_ = 0,
    size = 4,
    val = 8,
    mask = 12
);
crate::assert_layout!(
    ibv_flow_spec_action_tag,
    size = 12,
    align = 4,
    type_ = 0,
    size = 4,
    tag_id = 8
);
crate::assert_layout!(
    ibv_flow_spec_action_drop,
    size = 8,
    align = 4,
    type_ = 0,
    size = 4
);
crate::assert_layout!(
    ibv_flow_spec_action_handle,
    size = 16,
    align = 8,
    type_ = 0,
    size = 4,
    action = 8
);
crate::assert_layout!(
    ibv_flow_spec_counter_action,
    size = 16,
    align = 8,
    type_ = 0,
    size = 4,
    counters = 8
);
crate::assert_layout!(
    ibv_flow_spec_u_hdr,
    size = 8,
    align = 4,
    type_ = 0,
    size = 4
);
crate::assert_layout!(
    ibv_flow_spec_u,
    size = 88,
    align = 8,
    hdr = 0,
    eth = 0,
    ipv4 = 0,
    tcp_udp = 0,
    ipv4_ext = 0,
    ipv6 = 0,
    esp = 0,
    tunnel = 0,
    gre = 0,
    mpls = 0,
    flow_tag = 0,
    drop = 0,
    handle = 0,
    flow_count = 0
);
crate::assert_layout!(ibv_flow_spec, size = 88, align = 8, u = 0);
crate::assert_layout!(
    ibv_flow_attr,
    size = 20,
    align = 4,
    comp_mask = 0,
    type_ = 4,
    size = 8,
    priority = 10,
    num_of_specs = 12,
    port = 13,
    flags = 16
);
crate::assert_layout!(
    ibv_flow,
    size = 24,
    align = 8,
    comp_mask = 0,
    context = 8,
    handle = 16
);
crate::assert_layout!(ibv_flow_action, size = 8, align = 8, context = 0);
crate::assert_layout!(
    ibv_flow_action_esp_keymat_aes_gcm,
    size = 56,
    align = 8,
    iv = 0,
    iv_algo = 8,
    salt = 12,
    icv_len = 16,
    key_len = 20,
    aes_key = 24
);
crate::assert_layout!(
    ibv_flow_action_esp_replay_bmp,
    size = 4,
    align = 4,
    size = 0
);
crate::assert_layout!(
    ibv_flow_action_esp_encap,
    size = 24,
    align = 8,
    val_ptr = 0,
    next_ptr = 8,
    len = 16,
    type_ = 18
);
crate::assert_layout!(
    ibv_flow_action_esp,
    size = 24,
    align = 8,
    spi = 0,
    seq = 4,
    tfc_pad = 8,
    flags = 12,
    hard_limit_pkts = 16
);
crate::assert_layout!(
    ibv_flow_action_esp_attr,
    size = 56,
    align = 8,
    esp_attr = 0,
    keymat_proto = 8,
    keymat_len = 12,
    keymat_ptr = 16,
    replay_proto = 24,
    replay_len = 28,
    replay_ptr = 32,
    esp_encap = 40,
    comp_mask = 48,
    esn = 52
);
crate::assert_layout!(
    _ibv_device_ops,
    size = 16,
    align = 8,
    _dummy1 = 0,
    _dummy2 = 8
);
crate::assert_layout!(
    ibv_device,
    size = 664,
    align = 8,
    _ops = 0,
    node_type = 16,
    transport_type = 20,
    name = 24,
    dev_name = 88,
    dev_path = 152,
    ibdev_path = 408
);
crate::assert_layout!(
    ibv_context_ops,
    size = 256,
    align = 8,
    _compat_query_device = 0,
    _compat_query_port = 8,
    _compat_alloc_pd = 16,
    _compat_dealloc_pd = 24,
    _compat_reg_mr = 32,
    _compat_rereg_mr = 40,
    _compat_dereg_mr = 48,
    alloc_mw = 56,
    bind_mw = 64,
    dealloc_mw = 72,
    _compat_create_cq = 80,
    poll_cq = 88,
    req_notify_cq = 96,
    _compat_cq_event = 104,
    _compat_resize_cq = 112,
    _compat_destroy_cq = 120,
    _compat_create_srq = 128,
    _compat_modify_srq = 136,
    _compat_query_srq = 144,
    _compat_destroy_srq = 152,
    post_srq_recv = 160,
    _compat_create_qp = 168,
    _compat_query_qp = 176,
    _compat_modify_qp = 184,
    _compat_destroy_qp = 192,
    post_send = 200,
    post_recv = 208,
    _compat_create_ah = 216,
    _compat_destroy_ah = 224,
    _compat_attach_mcast = 232,
    _compat_detach_mcast = 240,
    _compat_async_event = 248
);
crate::assert_layout!(
    ibv_context,
    size = 328,
    align = 8,
    device = 0,
    ops = 8,
    cmd_fd = 264,
    async_fd = 268,
    num_comp_vectors = 272,
    mutex = 280,
    abi_compat = 320
);
crate::assert_layout!(
    ibv_cq_init_attr_ex,
    size = 56,
    align = 8,
    cqe = 0,
    cq_context = 8,
    channel = 16,
    comp_vector = 24,
    wc_flags = 32,
    comp_mask = 40,
    flags = 44,
    parent_domain = 48
);
crate::assert_layout!(
    ibv_parent_domain_init_attr,
    size = 48,
    align = 8,
    pd = 0,
    td = 8,
    comp_mask = 16,
    alloc = 24,
    free = 32,
    pd_context = 40
);
crate::assert_layout!(ibv_counters_init_attr, size = 4, align = 4, comp_mask = 0);
crate::assert_layout!(ibv_counters, size = 8, align = 8, context = 0);
crate::assert_layout!(
    ibv_counter_attach_attr,
    size = 12,
    align = 4,
    counter_desc = 0,
    index = 4,
    comp_mask = 8
);
crate::assert_layout!(
    ibv_values_ex,
    size = 24,
    align = 8,
    comp_mask = 0,
    raw_clock = 8
);
crate::assert_layout!(
    verbs_context,
    size = 648,
    align = 8,
    query_port = 0,
    advise_mr = 8,
    alloc_null_mr = 16,
    read_counters = 24,
    attach_counters_point_flow = 32,
    create_counters = 40,
    destroy_counters = 48,
    reg_dm_mr = 56,
    alloc_dm = 64,
    free_dm = 72,
    modify_flow_action_esp = 80,
    destroy_flow_action = 88,
    create_flow_action_esp = 96,
    modify_qp_rate_limit = 104,
    alloc_parent_domain = 112,
    dealloc_td = 120,
    alloc_td = 128,
    modify_cq = 136,
    post_srq_ops = 144,
    destroy_rwq_ind_table = 152,
    create_rwq_ind_table = 160,
    destroy_wq = 168,
    modify_wq = 176,
    create_wq = 184,
    query_rt_values = 192,
    create_cq_ex = 200,
    priv_ = 208,
    query_device_ex = 216,
    ibv_destroy_flow = 224,
    ABI_placeholder2 = 232,
    ibv_create_flow = 240,
    ABI_placeholder1 = 248,
    open_qp = 256,
    create_qp_ex = 264,
    get_srq_num = 272,
    create_srq_ex = 280,
    open_xrcd = 288,
    close_xrcd = 296,
    _ABI_placeholder3 = 304,
    sz = 312,
    context = 320
);
crate::assert_layout!(
    ibv_sa_path_rec,
    size = 64,
    align = 8,
    dgid = 0,
    sgid = 16,
    dlid = 32,
    slid = 34,
    raw_traffic = 36,
    flow_label = 40,
    hop_limit = 44,
    traffic_class = 45,
    reversible = 48,
    numb_path = 52,
    pkey = 54,
    sl = 56,
    mtu_selector = 57,
    mtu = 58,
    rate_selector = 59,
    rate = 60,
    packet_life_time_selector = 61,
    packet_life_time = 62,
    preference = 63
);
crate::assert_layout!(
    ibv_sa_mcmember_rec,
    size = 64,
    align = 8,
    mgid = 0,
    port_gid = 16,
    qkey = 32,
    mlid = 36,
    mtu_selector = 38,
    mtu = 39,
    traffic_class = 40,
    pkey = 42,
    rate_selector = 44,
    rate = 45,
    packet_life_time_selector = 46,
    packet_life_time = 47,
    sl = 48,
    flow_label = 52,
    hop_limit = 56,
    scope = 57,
    join_state = 58,
    proxy_join = 60
);
crate::assert_layout!(
    ibv_sa_service_rec,
    size = 176,
    align = 8,
    id = 0,
    gid = 8,
    pkey = 24,
    lease = 28,
    key = 32,
    name = 48,
    data8 = 112,
    data16 = 128,
    data32 = 144,
    data64 = 160
);
crate::assert_layout!(
    ibv_path_record,
    size = 64,
    align = 8,
    service_id = 0,
    dgid = 8,
    sgid = 24,
    dlid = 40,
    slid = 42,
    flowlabel_hoplimit = 44,
    tclass = 48,
    reversible_numpath = 49,
    pkey = 50,
    qosclass_sl = 52,
    mtu = 54,
    rate = 55,
    packetlifetime = 56,
    preference = 57,
    reserved = 58
);
crate::assert_layout!(
    ibv_path_data,
    size = 72,
    align = 8,
    flags = 0,
    reserved = 4,
    path = 8
);
crate::assert_layout!(
    ib_path_rec_data,
    size = 72,
    align = 4,
    flags = 0,
    reserved = 4,
    path_rec = 8
);
crate::assert_layout!(
    ib_user_path_rec,
    size = 64,
    align = 4,
    dgid = 0,
    sgid = 16,
    dlid = 32,
    slid = 34,
    raw_traffic = 36,
    flow_label = 40,
    reversible = 44,
    mtu = 48,
    pkey = 52,
    hop_limit = 54,
    traffic_class = 55,
    numb_path = 56,
    sl = 57,
    mtu_selector = 58,
    rate_selector = 59,
    rate = 60,
    packet_life_time_selector = 61,
    packet_life_time = 62,
    preference = 63
);
crate::assert_layout!(
    ibv_tmh,
    size = 16,
    align = 8,
    opcode = 0,
    reserved = 1,
    app_ctx = 4,
    tag = 8
);
crate::assert_layout!(ibv_rvh, size = 16, align = 8, va = 0, rkey = 8, len = 12);
crate::assert_consts!(
    IBV_GID_TYPE_IB = 0,
    IBV_GID_TYPE_ROCE_V1 = 1,
    IBV_GID_TYPE_ROCE_V2 = 2,
    IBV_NODE_UNKNOWN = -1,
    IBV_NODE_CA = 1,
    IBV_NODE_SWITCH = 2,
    IBV_NODE_ROUTER = 3,
    IBV_NODE_RNIC = 4,
    IBV_NODE_USNIC = 5,
    IBV_NODE_USNIC_UDP = 6,
    IBV_NODE_UNSPECIFIED = 7,
    IBV_TRANSPORT_UNKNOWN = -1,
    IBV_TRANSPORT_IB = 0,
    IBV_TRANSPORT_IWARP = 1,
    IBV_TRANSPORT_USNIC = 2,
    IBV_TRANSPORT_USNIC_UDP = 3,
    IBV_TRANSPORT_UNSPECIFIED = 4,
    IBV_DEVICE_RESIZE_MAX_WR = 1,
    IBV_DEVICE_BAD_PKEY_CNTR = 2,
    IBV_DEVICE_BAD_QKEY_CNTR = 4,
    IBV_DEVICE_RAW_MULTI = 8,
    IBV_DEVICE_AUTO_PATH_MIG = 16,
    IBV_DEVICE_CHANGE_PHY_PORT = 32,
    IBV_DEVICE_UD_AV_PORT_ENFORCE = 64,
    IBV_DEVICE_CURR_QP_STATE_MOD = 128,
    IBV_DEVICE_SHUTDOWN_PORT = 256,
    IBV_DEVICE_INIT_TYPE = 512,
    IBV_DEVICE_PORT_ACTIVE_EVENT = 1024,
    IBV_DEVICE_SYS_IMAGE_GUID = 2048,
    IBV_DEVICE_RC_RNR_NAK_GEN = 4096,
    IBV_DEVICE_SRQ_RESIZE = 8192,
    IBV_DEVICE_N_NOTIFY_CQ = 16384,
    IBV_DEVICE_MEM_WINDOW = 131072,
    IBV_DEVICE_UD_IP_CSUM = 262144,
    IBV_DEVICE_XRC = 1048576,
    IBV_DEVICE_MEM_MGT_EXTENSIONS = 2097152,
    IBV_DEVICE_MEM_WINDOW_TYPE_2A = 8388608,
    IBV_DEVICE_MEM_WINDOW_TYPE_2B = 16777216,
    IBV_DEVICE_RC_IP_CSUM = 33554432,
    IBV_DEVICE_RAW_IP_CSUM = 67108864,
    IBV_DEVICE_MANAGED_FLOW_STEERING = 536870912,
    IBV_FORK_DISABLED = 0,
    IBV_FORK_ENABLED = 1,
    IBV_FORK_UNNEEDED = 2,
    IBV_DEVICE_RAW_SCATTER_FCS = 17179869184,
    IBV_DEVICE_PCI_WRITE_END_PADDING = 68719476736,
    IBV_ATOMIC_NONE = 0,
    IBV_ATOMIC_HCA = 1,
    IBV_ATOMIC_GLOB = 2,
    IBV_DM_MASK_HANDLE = 1,
    IBV_ODP_SUPPORT_SEND = 1,
    IBV_ODP_SUPPORT_RECV = 2,
    IBV_ODP_SUPPORT_WRITE = 4,
    IBV_ODP_SUPPORT_READ = 8,
    IBV_ODP_SUPPORT_ATOMIC = 16,
    IBV_ODP_SUPPORT_SRQ_RECV = 32,
    IBV_ODP_SUPPORT = 1,
    IBV_ODP_SUPPORT_IMPLICIT = 2,
    IBV_RX_HASH_FUNC_TOEPLITZ = 1,
    IBV_RX_HASH_SRC_IPV4 = 1,
    IBV_RX_HASH_DST_IPV4 = 2,
    IBV_RX_HASH_SRC_IPV6 = 4,
    IBV_RX_HASH_DST_IPV6 = 8,
    IBV_RX_HASH_SRC_PORT_TCP = 16,
    IBV_RX_HASH_DST_PORT_TCP = 32,
    IBV_RX_HASH_SRC_PORT_UDP = 64,
    IBV_RX_HASH_DST_PORT_UDP = 128,
    IBV_RX_HASH_IPSEC_SPI = 256,
    IBV_RX_HASH_INNER = 2147483648,
    IBV_RAW_PACKET_CAP_CVLAN_STRIPPING = 1,
    IBV_RAW_PACKET_CAP_SCATTER_FCS = 2,
    IBV_RAW_PACKET_CAP_IP_CSUM = 4,
    IBV_RAW_PACKET_CAP_DELAY_DROP = 8,
    IBV_TM_CAP_RC = 1,
    IBV_PCI_ATOMIC_OPERATION_4_BYTE_SIZE_SUP = 1,
    IBV_PCI_ATOMIC_OPERATION_8_BYTE_SIZE_SUP = 2,
    IBV_PCI_ATOMIC_OPERATION_16_BYTE_SIZE_SUP = 4,
    IBV_MTU_256 = 1,
    IBV_MTU_512 = 2,
    IBV_MTU_1024 = 3,
    IBV_MTU_2048 = 4,
    IBV_MTU_4096 = 5,
    IBV_PORT_NOP = 0,
    IBV_PORT_DOWN = 1,
    IBV_PORT_INIT = 2,
    IBV_PORT_ARMED = 3,
    IBV_PORT_ACTIVE = 4,
    IBV_PORT_ACTIVE_DEFER = 5,
    IBV_LINK_LAYER_UNSPECIFIED = 0,
    IBV_LINK_LAYER_INFINIBAND = 1,
    IBV_LINK_LAYER_ETHERNET = 2,
    IBV_PORT_SM = 2,
    IBV_PORT_NOTICE_SUP = 4,
    IBV_PORT_TRAP_SUP = 8,
    IBV_PORT_OPT_IPD_SUP = 16,
    IBV_PORT_AUTO_MIGR_SUP = 32,
    IBV_PORT_SL_MAP_SUP = 64,
    IBV_PORT_MKEY_NVRAM = 128,
    IBV_PORT_PKEY_NVRAM = 256,
    IBV_PORT_LED_INFO_SUP = 512,
    IBV_PORT_SYS_IMAGE_GUID_SUP = 2048,
    IBV_PORT_PKEY_SW_EXT_PORT_TRAP_SUP = 4096,
    IBV_PORT_EXTENDED_SPEEDS_SUP = 16384,
    IBV_PORT_CAP_MASK2_SUP = 32768,
    IBV_PORT_CM_SUP = 65536,
    IBV_PORT_SNMP_TUNNEL_SUP = 131072,
    IBV_PORT_REINIT_SUP = 262144,
    IBV_PORT_DEVICE_MGMT_SUP = 524288,
    IBV_PORT_VENDOR_CLASS_SUP = 1048576,
    IBV_PORT_DR_NOTICE_SUP = 2097152,
    IBV_PORT_CAP_MASK_NOTICE_SUP = 4194304,
    IBV_PORT_BOOT_MGMT_SUP = 8388608,
    IBV_PORT_LINK_LATENCY_SUP = 16777216,
    IBV_PORT_CLIENT_REG_SUP = 33554432,
    IBV_PORT_IP_BASED_GIDS = 67108864,
    IBV_PORT_SET_NODE_DESC_SUP = 1,
    IBV_PORT_INFO_EXT_SUP = 2,
    IBV_PORT_VIRT_SUP = 4,
    IBV_PORT_SWITCH_PORT_STATE_TABLE_SUP = 8,
    IBV_PORT_LINK_WIDTH_2X_SUP = 16,
    IBV_PORT_LINK_SPEED_HDR_SUP = 32,
    IBV_PORT_LINK_SPEED_NDR_SUP = 1024,
    IBV_EVENT_CQ_ERR = 0,
    IBV_EVENT_QP_FATAL = 1,
    IBV_EVENT_QP_REQ_ERR = 2,
    IBV_EVENT_QP_ACCESS_ERR = 3,
    IBV_EVENT_COMM_EST = 4,
    IBV_EVENT_SQ_DRAINED = 5,
    IBV_EVENT_PATH_MIG = 6,
    IBV_EVENT_PATH_MIG_ERR = 7,
    IBV_EVENT_DEVICE_FATAL = 8,
    IBV_EVENT_PORT_ACTIVE = 9,
    IBV_EVENT_PORT_ERR = 10,
    IBV_EVENT_LID_CHANGE = 11,
    IBV_EVENT_PKEY_CHANGE = 12,
    IBV_EVENT_SM_CHANGE = 13,
    IBV_EVENT_SRQ_ERR = 14,
    IBV_EVENT_SRQ_LIMIT_REACHED = 15,
    IBV_EVENT_QP_LAST_WQE_REACHED = 16,
    IBV_EVENT_CLIENT_REREGISTER = 17,
    IBV_EVENT_GID_CHANGE = 18,
    IBV_EVENT_WQ_FATAL = 19,
    IBV_WC_SUCCESS = 0,
    IBV_WC_LOC_LEN_ERR = 1,
    IBV_WC_LOC_QP_OP_ERR = 2,
    IBV_WC_LOC_EEC_OP_ERR = 3,
    IBV_WC_LOC_PROT_ERR = 4,
    IBV_WC_WR_FLUSH_ERR = 5,
    IBV_WC_MW_BIND_ERR = 6,
    IBV_WC_BAD_RESP_ERR = 7,
    IBV_WC_LOC_ACCESS_ERR = 8,
    IBV_WC_REM_INV_REQ_ERR = 9,
    IBV_WC_REM_ACCESS_ERR = 10,
    IBV_WC_REM_OP_ERR = 11,
    IBV_WC_RETRY_EXC_ERR = 12,
    IBV_WC_RNR_RETRY_EXC_ERR = 13,
    IBV_WC_LOC_RDD_VIOL_ERR = 14,
    IBV_WC_REM_INV_RD_REQ_ERR = 15,
    IBV_WC_REM_ABORT_ERR = 16,
    IBV_WC_INV_EECN_ERR = 17,
    IBV_WC_INV_EEC_STATE_ERR = 18,
    IBV_WC_FATAL_ERR = 19,
    IBV_WC_RESP_TIMEOUT_ERR = 20,
    IBV_WC_GENERAL_ERR = 21,
    IBV_WC_TM_ERR = 22,
    IBV_WC_TM_RNDV_INCOMPLETE = 23,
    IBV_WC_SEND = 0,
    IBV_WC_RDMA_WRITE = 1,
    IBV_WC_RDMA_READ = 2,
    IBV_WC_COMP_SWAP = 3,
    IBV_WC_FETCH_ADD = 4,
    IBV_WC_BIND_MW = 5,
    IBV_WC_LOCAL_INV = 6,
    IBV_WC_TSO = 7,
    IBV_WC_ATOMIC_WRITE = 9,
    IBV_WC_RECV = 128,
    IBV_WC_RECV_RDMA_WITH_IMM = 129,
    IBV_WC_TM_ADD = 130,
    IBV_WC_TM_DEL = 131,
    IBV_WC_TM_SYNC = 132,
    IBV_WC_TM_RECV = 133,
    IBV_WC_TM_NO_TAG = 134,
    IBV_WC_DRIVER1 = 135,
    IBV_WC_DRIVER2 = 136,
    IBV_WC_DRIVER3 = 137,
    IBV_WC_IP_CSUM_OK_SHIFT = 2,
    IBV_WC_EX_WITH_BYTE_LEN = 1,
    IBV_WC_EX_WITH_IMM = 2,
    IBV_WC_EX_WITH_QP_NUM = 4,
    IBV_WC_EX_WITH_SRC_QP = 8,
    IBV_WC_EX_WITH_SLID = 16,
    IBV_WC_EX_WITH_SL = 32,
    IBV_WC_EX_WITH_DLID_PATH_BITS = 64,
    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP = 128,
    IBV_WC_EX_WITH_CVLAN = 256,
    IBV_WC_EX_WITH_FLOW_TAG = 512,
    IBV_WC_EX_WITH_TM_INFO = 1024,
    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK = 2048,
    IBV_WC_STANDARD_FLAGS = 127,
    IBV_CREATE_CQ_SUP_WC_FLAGS = 4095,
    IBV_WC_GRH = 1,
    IBV_WC_WITH_IMM = 2,
    IBV_WC_IP_CSUM_OK = 4,
    IBV_WC_WITH_INV = 8,
    IBV_WC_TM_SYNC_REQ = 16,
    IBV_WC_TM_MATCH = 32,
    IBV_WC_TM_DATA_VALID = 64,
    IBV_ACCESS_OPTIONAL_FIRST = 1048576,
    IBV_ACCESS_OPTIONAL_RANGE = 1072693248,
    IBV_ACCESS_LOCAL_WRITE = 1,
    IBV_ACCESS_REMOTE_WRITE = 2,
    IBV_ACCESS_REMOTE_READ = 4,
    IBV_ACCESS_REMOTE_ATOMIC = 8,
    IBV_ACCESS_MW_BIND = 16,
    IBV_ACCESS_ZERO_BASED = 32,
    IBV_ACCESS_ON_DEMAND = 64,
    IBV_ACCESS_HUGETLB = 128,
    IBV_ACCESS_RELAXED_ORDERING = 1048576,
    IBV_XRCD_INIT_ATTR_FD = 1,
    IBV_XRCD_INIT_ATTR_OFLAGS = 2,
    IBV_XRCD_INIT_ATTR_RESERVED = 4,
    IBV_REREG_MR_CHANGE_TRANSLATION = 1,
    IBV_REREG_MR_CHANGE_PD = 2,
    IBV_REREG_MR_CHANGE_ACCESS = 4,
    IBV_REREG_MR_FLAGS_SUPPORTED = 7,
    IBV_MW_TYPE_1 = 1,
    IBV_MW_TYPE_2 = 2,
    IBV_RATE_MAX = 0,
    IBV_RATE_2_5_GBPS = 2,
    IBV_RATE_5_GBPS = 5,
    IBV_RATE_10_GBPS = 3,
    IBV_RATE_20_GBPS = 6,
    IBV_RATE_30_GBPS = 4,
    IBV_RATE_40_GBPS = 7,
    IBV_RATE_60_GBPS = 8,
    IBV_RATE_80_GBPS = 9,
    IBV_RATE_120_GBPS = 10,
    IBV_RATE_14_GBPS = 11,
    IBV_RATE_56_GBPS = 12,
    IBV_RATE_112_GBPS = 13,
    IBV_RATE_168_GBPS = 14,
    IBV_RATE_25_GBPS = 15,
    IBV_RATE_100_GBPS = 16,
    IBV_RATE_200_GBPS = 17,
    IBV_RATE_300_GBPS = 18,
    IBV_RATE_28_GBPS = 19,
    IBV_RATE_50_GBPS = 20,
    IBV_RATE_400_GBPS = 21,
    IBV_RATE_600_GBPS = 22,
    IBV_RATE_800_GBPS = 23,
    IBV_RATE_1200_GBPS = 24,
    IBV_SRQ_MAX_WR = 1,
    IBV_SRQ_LIMIT = 2,
    IBV_SRQT_BASIC = 0,
    IBV_SRQT_XRC = 1,
    IBV_SRQT_TM = 2,
    IBV_SRQ_INIT_ATTR_TYPE = 1,
    IBV_SRQ_INIT_ATTR_PD = 2,
    IBV_SRQ_INIT_ATTR_XRCD = 4,
    IBV_SRQ_INIT_ATTR_CQ = 8,
    IBV_SRQ_INIT_ATTR_TM = 16,
    IBV_SRQ_INIT_ATTR_RESERVED = 32,
    IBV_WQT_RQ = 0,
    IBV_WQ_INIT_ATTR_FLAGS = 1,
    IBV_WQ_INIT_ATTR_RESERVED = 2,
    IBV_WQ_FLAGS_CVLAN_STRIPPING = 1,
    IBV_WQ_FLAGS_SCATTER_FCS = 2,
    IBV_WQ_FLAGS_DELAY_DROP = 4,
    IBV_WQ_FLAGS_PCI_WRITE_END_PADDING = 8,
    IBV_WQ_FLAGS_RESERVED = 16,
    IBV_WQS_RESET = 0,
    IBV_WQS_RDY = 1,
    IBV_WQS_ERR = 2,
    IBV_WQS_UNKNOWN = 3,
    IBV_WQ_ATTR_STATE = 1,
    IBV_WQ_ATTR_CURR_STATE = 2,
    IBV_WQ_ATTR_FLAGS = 4,
    IBV_WQ_ATTR_RESERVED = 8,
    IBV_CREATE_IND_TABLE_RESERVED = 1,
    IBV_QPT_RC = 2,
    IBV_QPT_UC = 3,
    IBV_QPT_UD = 4,
    IBV_QPT_RAW_PACKET = 8,
    IBV_QPT_XRC_SEND = 9,
    IBV_QPT_XRC_RECV = 10,
    IBV_QPT_DRIVER = 255,
    IBV_QP_INIT_ATTR_PD = 1,
    IBV_QP_INIT_ATTR_XRCD = 2,
    IBV_QP_INIT_ATTR_CREATE_FLAGS = 4,
    IBV_QP_INIT_ATTR_MAX_TSO_HEADER = 8,
    IBV_QP_INIT_ATTR_IND_TABLE = 16,
    IBV_QP_INIT_ATTR_RX_HASH = 32,
    IBV_QP_INIT_ATTR_SEND_OPS_FLAGS = 64,
    IBV_QP_CREATE_BLOCK_SELF_MCAST_LB = 2,
    IBV_QP_CREATE_SCATTER_FCS = 256,
    IBV_QP_CREATE_CVLAN_STRIPPING = 512,
    IBV_QP_CREATE_SOURCE_QPN = 1024,
    IBV_QP_CREATE_PCI_WRITE_END_PADDING = 2048,
    IBV_QP_EX_WITH_RDMA_WRITE = 1,
    IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM = 2,
    IBV_QP_EX_WITH_SEND = 4,
    IBV_QP_EX_WITH_SEND_WITH_IMM = 8,
    IBV_QP_EX_WITH_RDMA_READ = 16,
    IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP = 32,
    IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD = 64,
    IBV_QP_EX_WITH_LOCAL_INV = 128,
    IBV_QP_EX_WITH_BIND_MW = 256,
    IBV_QP_EX_WITH_SEND_WITH_INV = 512,
    IBV_QP_EX_WITH_TSO = 1024,
    IBV_QP_EX_WITH_ATOMIC_WRITE = 4096,
    IBV_QP_OPEN_ATTR_NUM = 1,
    IBV_QP_OPEN_ATTR_XRCD = 2,
    IBV_QP_OPEN_ATTR_CONTEXT = 4,
    IBV_QP_OPEN_ATTR_TYPE = 8,
    IBV_QP_OPEN_ATTR_RESERVED = 16,
    IBV_QP_STATE = 1,
    IBV_QP_CUR_STATE = 2,
    IBV_QP_EN_SQD_ASYNC_NOTIFY = 4,
    IBV_QP_ACCESS_FLAGS = 8,
    IBV_QP_PKEY_INDEX = 16,
    IBV_QP_PORT = 32,
    IBV_QP_QKEY = 64,
    IBV_QP_AV = 128,
    IBV_QP_PATH_MTU = 256,
    IBV_QP_TIMEOUT = 512,
    IBV_QP_RETRY_CNT = 1024,
    IBV_QP_RNR_RETRY = 2048,
    IBV_QP_RQ_PSN = 4096,
    IBV_QP_MAX_QP_RD_ATOMIC = 8192,
    IBV_QP_ALT_PATH = 16384,
    IBV_QP_MIN_RNR_TIMER = 32768,
    IBV_QP_SQ_PSN = 65536,
    IBV_QP_MAX_DEST_RD_ATOMIC = 131072,
    IBV_QP_PATH_MIG_STATE = 262144,
    IBV_QP_CAP = 524288,
    IBV_QP_DEST_QPN = 1048576,
    IBV_QP_RATE_LIMIT = 33554432,
    IBV_QPS_RESET = 0,
    IBV_QPS_INIT = 1,
    IBV_QPS_RTR = 2,
    IBV_QPS_RTS = 3,
    IBV_QPS_SQD = 4,
    IBV_QPS_SQE = 5,
    IBV_QPS_ERR = 6,
    IBV_QPS_UNKNOWN = 7,
    IBV_MIG_MIGRATED = 0,
    IBV_MIG_REARM = 1,
    IBV_MIG_ARMED = 2,
    IBV_WR_RDMA_WRITE = 0,
    IBV_WR_RDMA_WRITE_WITH_IMM = 1,
    IBV_WR_SEND = 2,
    IBV_WR_SEND_WITH_IMM = 3,
    IBV_WR_RDMA_READ = 4,
    IBV_WR_ATOMIC_CMP_AND_SWP = 5,
    IBV_WR_ATOMIC_FETCH_AND_ADD = 6,
    IBV_WR_LOCAL_INV = 7,
    IBV_WR_BIND_MW = 8,
    IBV_WR_SEND_WITH_INV = 9,
    IBV_WR_TSO = 10,
    IBV_WR_DRIVER1 = 11,
    IBV_WR_ATOMIC_WRITE = 15,
    IBV_SEND_FENCE = 1,
    IBV_SEND_SIGNALED = 2,
    IBV_SEND_SOLICITED = 4,
    IBV_SEND_INLINE = 8,
    IBV_SEND_IP_CSUM = 16,
    IBV_WR_TAG_ADD = 0,
    IBV_WR_TAG_DEL = 1,
    IBV_WR_TAG_SYNC = 2,
    IBV_OPS_SIGNALED = 1,
    IBV_OPS_TM_SYNC = 2,
    IBV_CQ_ATTR_MODERATE = 1,
    IBV_CQ_ATTR_RESERVED = 2,
    IBV_FLOW_ATTR_FLAGS_DONT_TRAP = 2,
    IBV_FLOW_ATTR_FLAGS_EGRESS = 4,
    IBV_FLOW_ATTR_NORMAL = 0,
    IBV_FLOW_ATTR_ALL_DEFAULT = 1,
    IBV_FLOW_ATTR_MC_DEFAULT = 2,
    IBV_FLOW_ATTR_SNIFFER = 3,
    IBV_FLOW_SPEC_ETH = 32,
    IBV_FLOW_SPEC_IPV4 = 48,
    IBV_FLOW_SPEC_IPV6 = 49,
    IBV_FLOW_SPEC_IPV4_EXT = 50,
    IBV_FLOW_SPEC_ESP = 52,
    IBV_FLOW_SPEC_TCP = 64,
    IBV_FLOW_SPEC_UDP = 65,
    IBV_FLOW_SPEC_VXLAN_TUNNEL = 80,
    IBV_FLOW_SPEC_GRE = 81,
    IBV_FLOW_SPEC_MPLS = 96,
    IBV_FLOW_SPEC_INNER = 256,
    IBV_FLOW_SPEC_ACTION_TAG = 4096,
    IBV_FLOW_SPEC_ACTION_DROP = 4097,
    IBV_FLOW_SPEC_ACTION_HANDLE = 4098,
    IBV_FLOW_SPEC_ACTION_COUNT = 4099,
    IBV_FLOW_ACTION_ESP_MASK_ESN = 1,
    IBV_FLOW_ACTION_ESP_KEYMAT_AES_GCM = 0,
    IBV_FLOW_ACTION_IV_ALGO_SEQ = 0,
    IBV_FLOW_ACTION_ESP_REPLAY_NONE = 0,
    IBV_FLOW_ACTION_ESP_REPLAY_BMP = 1,
    IBV_FLOW_ACTION_ESP_FLAGS_INLINE_CRYPTO = 0,
    IBV_FLOW_ACTION_ESP_FLAGS_FULL_OFFLOAD = 1,
    IBV_FLOW_ACTION_ESP_FLAGS_TUNNEL = 0,
    IBV_FLOW_ACTION_ESP_FLAGS_TRANSPORT = 2,
    IBV_FLOW_ACTION_ESP_FLAGS_DECRYPT = 0,
    IBV_FLOW_ACTION_ESP_FLAGS_ENCRYPT = 4,
    IBV_FLOW_ACTION_ESP_FLAGS_ESN_NEW_WINDOW = 8,
    IBV_SYSFS_NAME_MAX = 64,
    IBV_SYSFS_PATH_MAX = 256,
    IBV_CQ_INIT_ATTR_MASK_FLAGS = 1,
    IBV_CQ_INIT_ATTR_MASK_PD = 2,
    IBV_CREATE_CQ_ATTR_SINGLE_THREADED = 1,
    IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN = 2,
    IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS = 1,
    IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT = 2,
    IBV_COUNTER_PACKETS = 0,
    IBV_COUNTER_BYTES = 1,
    IBV_READ_COUNTERS_ATTR_PREFER_CACHED = 1,
    IBV_VALUES_MASK_RAW_CLOCK = 1,
    IBV_VALUES_MASK_RESERVED = 2,
    IBV_ADVISE_MR_ADVICE_PREFETCH = 0,
    IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE = 1,
    IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT = 2,
    IBV_ADVISE_MR_FLAG_FLUSH = 1,
    IBV_QPF_GRH_REQUIRED = 1,
    IBV_REREG_MR_ERR_INPUT = -1,
    IBV_REREG_MR_ERR_DONT_FORK_NEW = -2,
    IBV_REREG_MR_ERR_DO_FORK_OLD = -3,
    IBV_REREG_MR_ERR_CMD = -4,
    IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW = -5,
    ETHERNET_LL_SIZE = 6,
    IB_ROCE_UDP_ENCAP_VALID_PORT_MIN = 49152,
    IB_ROCE_UDP_ENCAP_VALID_PORT_MAX = 65535,
    IB_GRH_FLOWLABEL_MASK = 1048575,
    IBV_PATH_RECORD_REVERSIBLE = 128,
    IBV_PATH_FLAG_GMP = 1,
    IBV_PATH_FLAG_PRIMARY = 2,
    IBV_PATH_FLAG_ALTERNATE = 4,
    IBV_PATH_FLAG_OUTBOUND = 8,
    IBV_PATH_FLAG_INBOUND = 16,
    IBV_PATH_FLAG_INBOUND_REVERSE = 32,
    IBV_PATH_FLAG_BIDIRECTIONAL = 40,
    IB_PATH_GMP = 1,
    IB_PATH_PRIMARY = 2,
    IB_PATH_ALTERNATE = 4,
    IB_PATH_OUTBOUND = 8,
    IB_PATH_INBOUND = 16,
    IB_PATH_INBOUND_REVERSE = 32,
    IB_PATH_BIDIRECTIONAL = 40,
    IBV_TMH_NO_TAG = 0,
    IBV_TMH_RNDV = 1,
    IBV_TMH_FIN = 2,
    IBV_TMH_EAGER = 3,
);
const _: () = assert!(core::mem::size_of::<ibv_gid_type>() == 4 && ibv_gid_type::MIN == 0);
const _: () = assert!(core::mem::size_of::<ibv_node_type>() == 4 && ibv_node_type::MIN != 0);
const _: () =
    assert!(core::mem::size_of::<ibv_transport_type>() == 4 && ibv_transport_type::MIN != 0);
const _: () =
    assert!(core::mem::size_of::<ibv_device_cap_flags>() == 4 && ibv_device_cap_flags::MIN == 0);
const _: () = assert!(core::mem::size_of::<ibv_fork_status>() == 4 && ibv_fork_status::MIN == 0);
const _: () = assert!(core::mem::size_of::<ibv_atomic_cap>() == 4 && ibv_atomic_cap::MIN == 0);
const _: () = assert!(core::mem::size_of::<ibv_dm_mask>() == 4 && ibv_dm_mask::MIN == 0);
const _: () = assert!(
    core::mem::size_of::<ibv_odp_transport_cap_bits>() == 4 && ibv_odp_transport_cap_bits::MIN == 0
);
const _: () =
    assert!(core::mem::size_of::<ibv_odp_general_caps>() == 4 && ibv_odp_general_caps::MIN == 0);
const _: () = assert!(
    core::mem::size_of::<ibv_rx_hash_function_flags>() == 4 && ibv_rx_hash_function_flags::MIN == 0
);
const _: () =
    assert!(core::mem::size_of::<ibv_rx_hash_fields>() == 4 && ibv_rx_hash_fields::MIN == 0);
const _: () =
    assert!(core::mem::size_of::<ibv_raw_packet_caps>() == 4 && ibv_raw_packet_caps::MIN == 0);
const _: () = assert!(core::mem::size_of::<ibv_tm_cap_flags>() == 4 && ibv_tm_cap_flags::MIN == 0);
const _: () = assert!(
    core::mem::size_of::<ibv_pci_atomic_op_size>() == 4 && ibv_pci_atomic_op_size::MIN == 0
);
const _: () = assert!(core::mem::size_of::<ibv_mtu>() == 4 && ibv_mtu::MIN == 0);
const _: () = assert!(core::mem::size_of::<ibv_port_state>() == 4 && ibv_port_state::MIN == 0);
const _: () =
    assert!(core::mem::size_of::<ibv_port_cap_flags>() == 4 && ibv_port_cap_flags::MIN == 0);
const _: () =
    assert!(core::mem::size_of::<ibv_port_cap_flags2>() == 4 && ibv_port_cap_flags2::MIN == 0);
const _: () = assert!(core::mem::size_of::<ibv_event_type>() == 4 && ibv_event_type::MIN == 0);
const _: () = assert!(core::mem::size_of::<ibv_wc_status>() == 4 && ibv_wc_status::MIN == 0);
const _: () = assert!(core::mem::size_of::<ibv_wc_opcode>() == 4 && ibv_wc_opcode::MIN == 0);
const _: () = assert!(
    core::mem::size_of::<ibv_create_cq_wc_flags>() == 4 && ibv_create_cq_wc_flags::MIN == 0
);
const _: () = assert!(core::mem::size_of::<ibv_wc_flags>() == 4 && ibv_wc_flags::MIN == 0);
const _: () = assert!(core::mem::size_of::<ibv_access_flags>() == 4 && ibv_access_flags::MIN == 0);
const _: () = assert!(
    core::mem::size_of::<ibv_xrcd_init_attr_mask>() == 4 && ibv_xrcd_init_attr_mask::MIN == 0
);
const _: () =
    assert!(core::mem::size_of::<ibv_rereg_mr_flags>() == 4 && ibv_rereg_mr_flags::MIN == 0);
const _: () = assert!(core::mem::size_of::<ibv_mw_type>() == 4 && ibv_mw_type::MIN == 0);
const _: () = assert!(core::mem::size_of::<ibv_rate>() == 4 && ibv_rate::MIN == 0);
const _: () =
    assert!(core::mem::size_of::<ibv_srq_attr_mask>() == 4 && ibv_srq_attr_mask::MIN == 0);
const _: () = assert!(core::mem::size_of::<ibv_srq_type>() == 4 && ibv_srq_type::MIN == 0);
const _: () = assert!(
    core::mem::size_of::<ibv_srq_init_attr_mask>() == 4 && ibv_srq_init_attr_mask::MIN == 0
);
const _: () = assert!(core::mem::size_of::<ibv_wq_type>() == 4 && ibv_wq_type::MIN == 0);
const _: () =
    assert!(core::mem::size_of::<ibv_wq_init_attr_mask>() == 4 && ibv_wq_init_attr_mask::MIN == 0);
const _: () = assert!(core::mem::size_of::<ibv_wq_flags>() == 4 && ibv_wq_flags::MIN == 0);
const _: () = assert!(core::mem::size_of::<ibv_wq_state>() == 4 && ibv_wq_state::MIN == 0);
const _: () = assert!(core::mem::size_of::<ibv_wq_attr_mask>() == 4 && ibv_wq_attr_mask::MIN == 0);
const _: () = assert!(
    core::mem::size_of::<ibv_ind_table_init_attr_mask>() == 4
        && ibv_ind_table_init_attr_mask::MIN == 0
);
const _: () = assert!(core::mem::size_of::<ibv_qp_type>() == 4 && ibv_qp_type::MIN == 0);
const _: () =
    assert!(core::mem::size_of::<ibv_qp_init_attr_mask>() == 4 && ibv_qp_init_attr_mask::MIN == 0);
const _: () =
    assert!(core::mem::size_of::<ibv_qp_create_flags>() == 4 && ibv_qp_create_flags::MIN == 0);
const _: () = assert!(
    core::mem::size_of::<ibv_qp_create_send_ops_flags>() == 4
        && ibv_qp_create_send_ops_flags::MIN == 0
);
const _: () =
    assert!(core::mem::size_of::<ibv_qp_open_attr_mask>() == 4 && ibv_qp_open_attr_mask::MIN == 0);
const _: () = assert!(core::mem::size_of::<ibv_qp_attr_mask>() == 4 && ibv_qp_attr_mask::MIN == 0);
const _: () = assert!(core::mem::size_of::<ibv_qp_state>() == 4 && ibv_qp_state::MIN == 0);
const _: () = assert!(core::mem::size_of::<ibv_mig_state>() == 4 && ibv_mig_state::MIN == 0);
const _: () = assert!(core::mem::size_of::<ibv_wr_opcode>() == 4 && ibv_wr_opcode::MIN == 0);
const _: () = assert!(core::mem::size_of::<ibv_send_flags>() == 4 && ibv_send_flags::MIN == 0);
const _: () =
    assert!(core::mem::size_of::<ibv_ops_wr_opcode>() == 4 && ibv_ops_wr_opcode::MIN == 0);
const _: () = assert!(core::mem::size_of::<ibv_ops_flags>() == 4 && ibv_ops_flags::MIN == 0);
const _: () = assert!(core::mem::size_of::<ibv_cq_attr_mask>() == 4 && ibv_cq_attr_mask::MIN == 0);
const _: () = assert!(core::mem::size_of::<ibv_flow_flags>() == 4 && ibv_flow_flags::MIN == 0);
const _: () =
    assert!(core::mem::size_of::<ibv_flow_attr_type>() == 4 && ibv_flow_attr_type::MIN == 0);
const _: () =
    assert!(core::mem::size_of::<ibv_flow_spec_type>() == 4 && ibv_flow_spec_type::MIN == 0);
const _: () = assert!(
    core::mem::size_of::<ibv_flow_action_esp_mask>() == 4 && ibv_flow_action_esp_mask::MIN == 0
);
const _: () = assert!(
    core::mem::size_of::<ibv_flow_action_esp_keymat>() == 4 && ibv_flow_action_esp_keymat::MIN == 0
);
const _: () = assert!(
    core::mem::size_of::<ibv_flow_action_esp_keymat_aes_gcm_iv_algo>() == 4
        && ibv_flow_action_esp_keymat_aes_gcm_iv_algo::MIN == 0
);
const _: () = assert!(
    core::mem::size_of::<ibv_flow_action_esp_replay>() == 4 && ibv_flow_action_esp_replay::MIN == 0
);
const _: () = assert!(
    core::mem::size_of::<ibv_flow_action_esp_flags>() == 4 && ibv_flow_action_esp_flags::MIN == 0
);
const _: () =
    assert!(core::mem::size_of::<ibv_cq_init_attr_mask>() == 4 && ibv_cq_init_attr_mask::MIN == 0);
const _: () = assert!(
    core::mem::size_of::<ibv_create_cq_attr_flags>() == 4 && ibv_create_cq_attr_flags::MIN == 0
);
const _: () = assert!(
    core::mem::size_of::<ibv_parent_domain_init_attr_mask>() == 4
        && ibv_parent_domain_init_attr_mask::MIN == 0
);
const _: () = assert!(
    core::mem::size_of::<ibv_counter_description>() == 4 && ibv_counter_description::MIN == 0
);
const _: () = assert!(
    core::mem::size_of::<ibv_read_counters_flags>() == 4 && ibv_read_counters_flags::MIN == 0
);
const _: () = assert!(core::mem::size_of::<ibv_values_mask>() == 4 && ibv_values_mask::MIN == 0);
const _: () =
    assert!(core::mem::size_of::<ibv_advise_mr_advice>() == 4 && ibv_advise_mr_advice::MIN == 0);
const _: () =
    assert!(core::mem::size_of::<ibv_rereg_mr_err_code>() == 4 && ibv_rereg_mr_err_code::MIN != 0);
const _: () = assert!(core::mem::size_of::<ibv_tmh_op>() == 4 && ibv_tmh_op::MIN == 0);
#[cfg(test)]
#[test]
fn pointer_constants_match_c() {
    assert_eq!(__VERBS_ABI_IS_EXTENDED as usize, 18446744073709551615);
    assert_eq!(IBV_ALLOCATOR_USE_DEFAULT as usize, 18446744073709551615);
}
// END LAYOUT ASSERTIONS
