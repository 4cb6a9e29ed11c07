//! Kernel uAPI of the uverbs character device, and rdma-core's command
//! wrappers around it.
//!
//! Sources (facts, not copied code): the kernel's `rdma/ib_user_verbs.h`,
//! `rdma/ib_user_ioctl_verbs.h`, `rdma/rdma_user_ioctl_cmds.h`,
//! `rdma/ib_user_ioctl_cmds.h` as shipped in rdma-core 44.0's
//! `kernel-headers/` (identical layouts to Debian's `/usr/include/rdma`, plus
//! a few newer enumerators), and rdma-core's private `kern-abi.h`.
//!
//! Conventions:
//! - `__u8`..`__u64`/`__aligned_u64` are Rust's `u8`..`u64`; `__s32`/`__s64`
//!   are `i32`/`i64`; `__be16/32/64` are `u16/u32/u64` holding big-endian
//!   bytes (marked "big-endian").
//! - Flexible array members (`driver_data[]`, `attrs[]`, ...) are zero-length
//!   arrays, so sizes and alignments equal C's.
//! - C enums are integer type aliases plus constants. Ids of the ioctl
//!   protocol (`UVERBS_OBJECT_*`, `UVERBS_METHOD_*`, `UVERBS_ATTR_*`,
//!   `UVERBS_ATTR_F_*`) are `u16`, the width of the fields that carry them;
//!   `ib_uverbs_device_cap_flags` is `u64`; every other enum is `u32`.
//! - Unnamed unions/structs get the name `<struct>_<field>`
//!   (`ib_uverbs_wc_ex`, `ib_uverbs_send_wr_wr`, ...). An unnamed union with
//!   no field name is flattened: `ib_uverbs_attr.data` (C's `data`/`data_s64`)
//!   and the flow specs' `hdr`.
//! - Field names that are Rust keywords get a trailing underscore (`type_`),
//!   as in `abi::verbs`.
//! - rdma-core's wrappers (`struct ibv_alloc_pd`, ...) are a command header
//!   followed by the kernel's core struct. In C the core struct's fields are
//!   reachable both directly (`cmd->pd_handle`, through an anonymous union)
//!   and as `cmd->core_payload`; here only as `core_payload`. Providers
//!   append their driver data after the wrapper.
//!
//! The numbers in the constants are printed by `abi-tests/probe/kern_abi.c`,
//! and so are the sizes, alignments and field offsets that
//! `src/layout/kern.rs` checks (`abi-tests/probe/run.sh` writes that file and
//! checks that the constants here are the ones the probe prints). The one
//! exception is the section of ids rdma-core 65's headers add, which that
//! probe cannot see; `src/layout/hand_kept.rs` checks those.

// ---------------------------------------------------------------------------
// rdma-core kern-abi.h

/// Oldest uverbs ABI version (sysfs `abi_version`) this library can drive.
pub const IB_USER_VERBS_MIN_ABI_VERSION: u32 = 3;
/// Newest uverbs ABI version this library can drive.
pub const IB_USER_VERBS_MAX_ABI_VERSION: u32 = 6;

/// Aliases for the old-ABI forms of a few write() commands (same numbers,
/// different payload or response format).
pub const IB_USER_VERBS_CMD_MODIFY_SRQ_V3: u32 = IB_USER_VERBS_CMD_MODIFY_SRQ;
pub const IB_USER_VERBS_CMD_CREATE_SRQ_V5: u32 = IB_USER_VERBS_CMD_CREATE_SRQ;
pub const IB_USER_VERBS_CMD_CREATE_QP_V4: u32 = IB_USER_VERBS_CMD_CREATE_QP;
pub const IB_USER_VERBS_CMD_CREATE_QP_V3: u32 = IB_USER_VERBS_CMD_CREATE_QP;

// ---------------------------------------------------------------------------
// Kernel constants (values printed by abi-tests/probe/kern_abi.c)

pub const IB_USER_VERBS_ABI_VERSION: u32 = 6;
pub const IB_USER_VERBS_CMD_THRESHOLD: u32 = 50;
pub const IB_USER_VERBS_CMD_COMMAND_MASK: u32 = 255;
pub const IB_USER_VERBS_CMD_FLAG_EXTENDED: u32 = 0x80000000;
pub const IB_USER_VERBS_MAX_LOG_IND_TBL_SIZE: u32 = 13;
pub const IB_DEVICE_NAME_MAX: usize = 64;
pub const IB_UVERBS_ACCESS_OPTIONAL_FIRST: u32 = 0x100000;
pub const IB_UVERBS_ACCESS_OPTIONAL_LAST: u32 = 0x20000000;
pub const UVERBS_ID_NS_MASK: u16 = 0xf000;
pub const UVERBS_ID_NS_SHIFT: u16 = 12;
pub const UVERBS_UDATA_DRIVER_DATA_NS: u16 = 1;
pub const UVERBS_UDATA_DRIVER_DATA_FLAG: u16 = 0x1000;
pub const RDMA_IOCTL_MAGIC: u32 = 27;
pub const RDMA_VERBS_IOCTL: libc::c_ulong = 0xc0181b01;
pub const UVERBS_ATTR_F_MANDATORY: u16 = 1;
pub const UVERBS_ATTR_F_VALID_OUTPUT: u16 = 2;
pub type ib_uverbs_write_cmds = u32;
pub const IB_USER_VERBS_CMD_GET_CONTEXT: u32 = 0;
pub const IB_USER_VERBS_CMD_QUERY_DEVICE: u32 = 1;
pub const IB_USER_VERBS_CMD_QUERY_PORT: u32 = 2;
pub const IB_USER_VERBS_CMD_ALLOC_PD: u32 = 3;
pub const IB_USER_VERBS_CMD_DEALLOC_PD: u32 = 4;
pub const IB_USER_VERBS_CMD_CREATE_AH: u32 = 5;
pub const IB_USER_VERBS_CMD_MODIFY_AH: u32 = 6;
pub const IB_USER_VERBS_CMD_QUERY_AH: u32 = 7;
pub const IB_USER_VERBS_CMD_DESTROY_AH: u32 = 8;
pub const IB_USER_VERBS_CMD_REG_MR: u32 = 9;
pub const IB_USER_VERBS_CMD_REG_SMR: u32 = 10;
pub const IB_USER_VERBS_CMD_REREG_MR: u32 = 11;
pub const IB_USER_VERBS_CMD_QUERY_MR: u32 = 12;
pub const IB_USER_VERBS_CMD_DEREG_MR: u32 = 13;
pub const IB_USER_VERBS_CMD_ALLOC_MW: u32 = 14;
pub const IB_USER_VERBS_CMD_BIND_MW: u32 = 15;
pub const IB_USER_VERBS_CMD_DEALLOC_MW: u32 = 16;
pub const IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL: u32 = 17;
pub const IB_USER_VERBS_CMD_CREATE_CQ: u32 = 18;
pub const IB_USER_VERBS_CMD_RESIZE_CQ: u32 = 19;
pub const IB_USER_VERBS_CMD_DESTROY_CQ: u32 = 20;
pub const IB_USER_VERBS_CMD_POLL_CQ: u32 = 21;
pub const IB_USER_VERBS_CMD_PEEK_CQ: u32 = 22;
pub const IB_USER_VERBS_CMD_REQ_NOTIFY_CQ: u32 = 23;
pub const IB_USER_VERBS_CMD_CREATE_QP: u32 = 24;
pub const IB_USER_VERBS_CMD_QUERY_QP: u32 = 25;
pub const IB_USER_VERBS_CMD_MODIFY_QP: u32 = 26;
pub const IB_USER_VERBS_CMD_DESTROY_QP: u32 = 27;
pub const IB_USER_VERBS_CMD_POST_SEND: u32 = 28;
pub const IB_USER_VERBS_CMD_POST_RECV: u32 = 29;
pub const IB_USER_VERBS_CMD_ATTACH_MCAST: u32 = 30;
pub const IB_USER_VERBS_CMD_DETACH_MCAST: u32 = 31;
pub const IB_USER_VERBS_CMD_CREATE_SRQ: u32 = 32;
pub const IB_USER_VERBS_CMD_MODIFY_SRQ: u32 = 33;
pub const IB_USER_VERBS_CMD_QUERY_SRQ: u32 = 34;
pub const IB_USER_VERBS_CMD_DESTROY_SRQ: u32 = 35;
pub const IB_USER_VERBS_CMD_POST_SRQ_RECV: u32 = 36;
pub const IB_USER_VERBS_CMD_OPEN_XRCD: u32 = 37;
pub const IB_USER_VERBS_CMD_CLOSE_XRCD: u32 = 38;
pub const IB_USER_VERBS_CMD_CREATE_XSRQ: u32 = 39;
pub const IB_USER_VERBS_CMD_OPEN_QP: u32 = 40;
pub const IB_USER_VERBS_EX_CMD_QUERY_DEVICE: u32 = 1;
pub const IB_USER_VERBS_EX_CMD_CREATE_CQ: u32 = 18;
pub const IB_USER_VERBS_EX_CMD_CREATE_QP: u32 = 24;
pub const IB_USER_VERBS_EX_CMD_MODIFY_QP: u32 = 26;
pub const IB_USER_VERBS_EX_CMD_CREATE_FLOW: u32 = 50;
pub const IB_USER_VERBS_EX_CMD_DESTROY_FLOW: u32 = 51;
pub const IB_USER_VERBS_EX_CMD_CREATE_WQ: u32 = 52;
pub const IB_USER_VERBS_EX_CMD_MODIFY_WQ: u32 = 53;
pub const IB_USER_VERBS_EX_CMD_DESTROY_WQ: u32 = 54;
pub const IB_USER_VERBS_EX_CMD_CREATE_RWQ_IND_TBL: u32 = 55;
pub const IB_USER_VERBS_EX_CMD_DESTROY_RWQ_IND_TBL: u32 = 56;
pub const IB_USER_VERBS_EX_CMD_MODIFY_CQ: u32 = 57;
pub type ib_uverbs_ex_create_cq_flags = u32;
pub const IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION: u32 = 1;
pub const IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN: u32 = 2;
pub type ib_uverbs_wc_opcode = u32;
pub const IB_UVERBS_WC_SEND: u32 = 0;
pub const IB_UVERBS_WC_RDMA_WRITE: u32 = 1;
pub const IB_UVERBS_WC_RDMA_READ: u32 = 2;
pub const IB_UVERBS_WC_COMP_SWAP: u32 = 3;
pub const IB_UVERBS_WC_FETCH_ADD: u32 = 4;
pub const IB_UVERBS_WC_BIND_MW: u32 = 5;
pub const IB_UVERBS_WC_LOCAL_INV: u32 = 6;
pub const IB_UVERBS_WC_TSO: u32 = 7;
pub const IB_UVERBS_WC_ATOMIC_WRITE: u32 = 9;
pub type ib_uverbs_create_qp_mask = u32;
pub const IB_UVERBS_CREATE_QP_MASK_IND_TABLE: u32 = 1;
pub const IB_UVERBS_CREATE_QP_SUP_COMP_MASK: u32 = 1;
pub type ib_uverbs_wr_opcode = u32;
pub const IB_UVERBS_WR_RDMA_WRITE: u32 = 0;
pub const IB_UVERBS_WR_RDMA_WRITE_WITH_IMM: u32 = 1;
pub const IB_UVERBS_WR_SEND: u32 = 2;
pub const IB_UVERBS_WR_SEND_WITH_IMM: u32 = 3;
pub const IB_UVERBS_WR_RDMA_READ: u32 = 4;
pub const IB_UVERBS_WR_ATOMIC_CMP_AND_SWP: u32 = 5;
pub const IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD: u32 = 6;
pub const IB_UVERBS_WR_LOCAL_INV: u32 = 7;
pub const IB_UVERBS_WR_BIND_MW: u32 = 8;
pub const IB_UVERBS_WR_SEND_WITH_INV: u32 = 9;
pub const IB_UVERBS_WR_TSO: u32 = 10;
pub const IB_UVERBS_WR_RDMA_READ_WITH_INV: u32 = 11;
pub const IB_UVERBS_WR_MASKED_ATOMIC_CMP_AND_SWP: u32 = 12;
pub const IB_UVERBS_WR_MASKED_ATOMIC_FETCH_AND_ADD: u32 = 13;
pub const IB_UVERBS_WR_ATOMIC_WRITE: u32 = 15;
pub type ib_uverbs_device_cap_flags = u64;
pub const IB_UVERBS_DEVICE_RESIZE_MAX_WR: u64 = 1;
pub const IB_UVERBS_DEVICE_BAD_PKEY_CNTR: u64 = 2;
pub const IB_UVERBS_DEVICE_BAD_QKEY_CNTR: u64 = 4;
pub const IB_UVERBS_DEVICE_RAW_MULTI: u64 = 8;
pub const IB_UVERBS_DEVICE_AUTO_PATH_MIG: u64 = 16;
pub const IB_UVERBS_DEVICE_CHANGE_PHY_PORT: u64 = 32;
pub const IB_UVERBS_DEVICE_UD_AV_PORT_ENFORCE: u64 = 64;
pub const IB_UVERBS_DEVICE_CURR_QP_STATE_MOD: u64 = 128;
pub const IB_UVERBS_DEVICE_SHUTDOWN_PORT: u64 = 0x100;
pub const IB_UVERBS_DEVICE_PORT_ACTIVE_EVENT: u64 = 0x400;
pub const IB_UVERBS_DEVICE_SYS_IMAGE_GUID: u64 = 0x800;
pub const IB_UVERBS_DEVICE_RC_RNR_NAK_GEN: u64 = 0x1000;
pub const IB_UVERBS_DEVICE_SRQ_RESIZE: u64 = 0x2000;
pub const IB_UVERBS_DEVICE_N_NOTIFY_CQ: u64 = 0x4000;
pub const IB_UVERBS_DEVICE_MEM_WINDOW: u64 = 0x20000;
pub const IB_UVERBS_DEVICE_UD_IP_CSUM: u64 = 0x40000;
pub const IB_UVERBS_DEVICE_XRC: u64 = 0x100000;
pub const IB_UVERBS_DEVICE_MEM_MGT_EXTENSIONS: u64 = 0x200000;
pub const IB_UVERBS_DEVICE_MEM_WINDOW_TYPE_2A: u64 = 0x800000;
pub const IB_UVERBS_DEVICE_MEM_WINDOW_TYPE_2B: u64 = 0x1000000;
pub const IB_UVERBS_DEVICE_RC_IP_CSUM: u64 = 0x2000000;
pub const IB_UVERBS_DEVICE_RAW_IP_CSUM: u64 = 0x4000000;
pub const IB_UVERBS_DEVICE_MANAGED_FLOW_STEERING: u64 = 0x20000000;
pub const IB_UVERBS_DEVICE_RAW_SCATTER_FCS: u64 = 0x400000000;
pub const IB_UVERBS_DEVICE_PCI_WRITE_END_PADDING: u64 = 0x1000000000;
pub const IB_UVERBS_DEVICE_ATOMIC_WRITE: u64 = 0x10000000000;
pub type ib_uverbs_raw_packet_caps = u32;
pub const IB_UVERBS_RAW_PACKET_CAP_CVLAN_STRIPPING: u32 = 1;
pub const IB_UVERBS_RAW_PACKET_CAP_SCATTER_FCS: u32 = 2;
pub const IB_UVERBS_RAW_PACKET_CAP_IP_CSUM: u32 = 4;
pub const IB_UVERBS_RAW_PACKET_CAP_DELAY_DROP: u32 = 8;
pub type ib_uverbs_core_support = u32;
pub const IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS: ib_uverbs_core_support = 1;
pub type ib_uverbs_access_flags = u32;
pub const IB_UVERBS_ACCESS_LOCAL_WRITE: ib_uverbs_access_flags = 1;
pub const IB_UVERBS_ACCESS_REMOTE_WRITE: ib_uverbs_access_flags = 2;
pub const IB_UVERBS_ACCESS_REMOTE_READ: ib_uverbs_access_flags = 4;
pub const IB_UVERBS_ACCESS_REMOTE_ATOMIC: ib_uverbs_access_flags = 8;
pub const IB_UVERBS_ACCESS_MW_BIND: ib_uverbs_access_flags = 16;
pub const IB_UVERBS_ACCESS_ZERO_BASED: ib_uverbs_access_flags = 32;
pub const IB_UVERBS_ACCESS_ON_DEMAND: ib_uverbs_access_flags = 64;
pub const IB_UVERBS_ACCESS_HUGETLB: ib_uverbs_access_flags = 128;
pub const IB_UVERBS_ACCESS_RELAXED_ORDERING: ib_uverbs_access_flags = 0x100000;
pub const IB_UVERBS_ACCESS_OPTIONAL_RANGE: ib_uverbs_access_flags = 0x3ff00000;
pub type ib_uverbs_srq_type = u32;
pub const IB_UVERBS_SRQT_BASIC: ib_uverbs_srq_type = 0;
pub const IB_UVERBS_SRQT_XRC: ib_uverbs_srq_type = 1;
pub const IB_UVERBS_SRQT_TM: ib_uverbs_srq_type = 2;
pub type ib_uverbs_wq_type = u32;
pub const IB_UVERBS_WQT_RQ: ib_uverbs_wq_type = 0;
pub type ib_uverbs_wq_flags = u32;
pub const IB_UVERBS_WQ_FLAGS_CVLAN_STRIPPING: ib_uverbs_wq_flags = 1;
pub const IB_UVERBS_WQ_FLAGS_SCATTER_FCS: ib_uverbs_wq_flags = 2;
pub const IB_UVERBS_WQ_FLAGS_DELAY_DROP: ib_uverbs_wq_flags = 4;
pub const IB_UVERBS_WQ_FLAGS_PCI_WRITE_END_PADDING: ib_uverbs_wq_flags = 8;
pub type ib_uverbs_qp_type = u32;
pub const IB_UVERBS_QPT_RC: ib_uverbs_qp_type = 2;
pub const IB_UVERBS_QPT_UC: ib_uverbs_qp_type = 3;
pub const IB_UVERBS_QPT_UD: ib_uverbs_qp_type = 4;
pub const IB_UVERBS_QPT_RAW_PACKET: ib_uverbs_qp_type = 8;
pub const IB_UVERBS_QPT_XRC_INI: ib_uverbs_qp_type = 9;
pub const IB_UVERBS_QPT_XRC_TGT: ib_uverbs_qp_type = 10;
pub const IB_UVERBS_QPT_DRIVER: ib_uverbs_qp_type = 255;
pub type ib_uverbs_qp_create_flags = u32;
pub const IB_UVERBS_QP_CREATE_BLOCK_MULTICAST_LOOPBACK: ib_uverbs_qp_create_flags = 2;
pub const IB_UVERBS_QP_CREATE_SCATTER_FCS: ib_uverbs_qp_create_flags = 0x100;
pub const IB_UVERBS_QP_CREATE_CVLAN_STRIPPING: ib_uverbs_qp_create_flags = 0x200;
pub const IB_UVERBS_QP_CREATE_PCI_WRITE_END_PADDING: ib_uverbs_qp_create_flags = 0x800;
pub const IB_UVERBS_QP_CREATE_SQ_SIG_ALL: ib_uverbs_qp_create_flags = 0x1000;
pub type ib_uverbs_query_port_cap_flags = u32;
pub const IB_UVERBS_PCF_SM: ib_uverbs_query_port_cap_flags = 2;
pub const IB_UVERBS_PCF_NOTICE_SUP: ib_uverbs_query_port_cap_flags = 4;
pub const IB_UVERBS_PCF_TRAP_SUP: ib_uverbs_query_port_cap_flags = 8;
pub const IB_UVERBS_PCF_OPT_IPD_SUP: ib_uverbs_query_port_cap_flags = 16;
pub const IB_UVERBS_PCF_AUTO_MIGR_SUP: ib_uverbs_query_port_cap_flags = 32;
pub const IB_UVERBS_PCF_SL_MAP_SUP: ib_uverbs_query_port_cap_flags = 64;
pub const IB_UVERBS_PCF_MKEY_NVRAM: ib_uverbs_query_port_cap_flags = 128;
pub const IB_UVERBS_PCF_PKEY_NVRAM: ib_uverbs_query_port_cap_flags = 0x100;
pub const IB_UVERBS_PCF_LED_INFO_SUP: ib_uverbs_query_port_cap_flags = 0x200;
pub const IB_UVERBS_PCF_SM_DISABLED: ib_uverbs_query_port_cap_flags = 0x400;
pub const IB_UVERBS_PCF_SYS_IMAGE_GUID_SUP: ib_uverbs_query_port_cap_flags = 0x800;
pub const IB_UVERBS_PCF_PKEY_SW_EXT_PORT_TRAP_SUP: ib_uverbs_query_port_cap_flags = 0x1000;
pub const IB_UVERBS_PCF_EXTENDED_SPEEDS_SUP: ib_uverbs_query_port_cap_flags = 0x4000;
pub const IB_UVERBS_PCF_CM_SUP: ib_uverbs_query_port_cap_flags = 0x10000;
pub const IB_UVERBS_PCF_SNMP_TUNNEL_SUP: ib_uverbs_query_port_cap_flags = 0x20000;
pub const IB_UVERBS_PCF_REINIT_SUP: ib_uverbs_query_port_cap_flags = 0x40000;
pub const IB_UVERBS_PCF_DEVICE_MGMT_SUP: ib_uverbs_query_port_cap_flags = 0x80000;
pub const IB_UVERBS_PCF_VENDOR_CLASS_SUP: ib_uverbs_query_port_cap_flags = 0x100000;
pub const IB_UVERBS_PCF_DR_NOTICE_SUP: ib_uverbs_query_port_cap_flags = 0x200000;
pub const IB_UVERBS_PCF_CAP_MASK_NOTICE_SUP: ib_uverbs_query_port_cap_flags = 0x400000;
pub const IB_UVERBS_PCF_BOOT_MGMT_SUP: ib_uverbs_query_port_cap_flags = 0x800000;
pub const IB_UVERBS_PCF_LINK_LATENCY_SUP: ib_uverbs_query_port_cap_flags = 0x1000000;
pub const IB_UVERBS_PCF_CLIENT_REG_SUP: ib_uverbs_query_port_cap_flags = 0x2000000;
pub const IB_UVERBS_PCF_LINK_SPEED_WIDTH_TABLE_SUP: ib_uverbs_query_port_cap_flags = 0x8000000;
pub const IB_UVERBS_PCF_VENDOR_SPECIFIC_MADS_TABLE_SUP: ib_uverbs_query_port_cap_flags = 0x10000000;
pub const IB_UVERBS_PCF_MCAST_PKEY_TRAP_SUPPRESSION_SUP: ib_uverbs_query_port_cap_flags = 0x20000000;
pub const IB_UVERBS_PCF_MCAST_FDB_TOP_SUP: ib_uverbs_query_port_cap_flags = 0x40000000;
pub const IB_UVERBS_PCF_HIERARCHY_INFO_SUP: ib_uverbs_query_port_cap_flags = 0x80000000;
pub const IB_UVERBS_PCF_IP_BASED_GIDS: ib_uverbs_query_port_cap_flags = 0x4000000;
pub type ib_uverbs_query_port_flags = u32;
pub const IB_UVERBS_QPF_GRH_REQUIRED: ib_uverbs_query_port_flags = 1;
pub type ib_uverbs_flow_action_esp_keymat = u32;
pub const IB_UVERBS_FLOW_ACTION_ESP_KEYMAT_AES_GCM: ib_uverbs_flow_action_esp_keymat = 0;
pub type ib_uverbs_flow_action_esp_keymat_aes_gcm_iv_algo = u32;
pub const IB_UVERBS_FLOW_ACTION_IV_ALGO_SEQ: ib_uverbs_flow_action_esp_keymat_aes_gcm_iv_algo = 0;
pub type ib_uverbs_flow_action_esp_replay = u32;
pub const IB_UVERBS_FLOW_ACTION_ESP_REPLAY_NONE: ib_uverbs_flow_action_esp_replay = 0;
pub const IB_UVERBS_FLOW_ACTION_ESP_REPLAY_BMP: ib_uverbs_flow_action_esp_replay = 1;
pub type ib_uverbs_flow_action_esp_flags = u32;
pub const IB_UVERBS_FLOW_ACTION_ESP_FLAGS_INLINE_CRYPTO: ib_uverbs_flow_action_esp_flags = 0;
pub const IB_UVERBS_FLOW_ACTION_ESP_FLAGS_FULL_OFFLOAD: ib_uverbs_flow_action_esp_flags = 1;
pub const IB_UVERBS_FLOW_ACTION_ESP_FLAGS_TUNNEL: ib_uverbs_flow_action_esp_flags = 0;
pub const IB_UVERBS_FLOW_ACTION_ESP_FLAGS_TRANSPORT: ib_uverbs_flow_action_esp_flags = 2;
pub const IB_UVERBS_FLOW_ACTION_ESP_FLAGS_DECRYPT: ib_uverbs_flow_action_esp_flags = 0;
pub const IB_UVERBS_FLOW_ACTION_ESP_FLAGS_ENCRYPT: ib_uverbs_flow_action_esp_flags = 4;
pub const IB_UVERBS_FLOW_ACTION_ESP_FLAGS_ESN_NEW_WINDOW: ib_uverbs_flow_action_esp_flags = 8;
pub type ib_uverbs_read_counters_flags = u32;
pub const IB_UVERBS_READ_COUNTERS_PREFER_CACHED: ib_uverbs_read_counters_flags = 1;
pub type ib_uverbs_advise_mr_advice = u32;
pub const IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH: ib_uverbs_advise_mr_advice = 0;
pub const IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE: ib_uverbs_advise_mr_advice = 1;
pub const IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT: ib_uverbs_advise_mr_advice = 2;
pub type ib_uverbs_advise_mr_flag = u32;
pub const IB_UVERBS_ADVISE_MR_FLAG_FLUSH: ib_uverbs_advise_mr_flag = 1;
pub type rdma_driver_id = u32;
pub const RDMA_DRIVER_UNKNOWN: rdma_driver_id = 0;
pub const RDMA_DRIVER_MLX5: rdma_driver_id = 1;
pub const RDMA_DRIVER_MLX4: rdma_driver_id = 2;
pub const RDMA_DRIVER_CXGB3: rdma_driver_id = 3;
pub const RDMA_DRIVER_CXGB4: rdma_driver_id = 4;
pub const RDMA_DRIVER_MTHCA: rdma_driver_id = 5;
pub const RDMA_DRIVER_BNXT_RE: rdma_driver_id = 6;
pub const RDMA_DRIVER_OCRDMA: rdma_driver_id = 7;
pub const RDMA_DRIVER_NES: rdma_driver_id = 8;
pub const RDMA_DRIVER_I40IW: rdma_driver_id = 9;
pub const RDMA_DRIVER_IRDMA: rdma_driver_id = 9;
pub const RDMA_DRIVER_VMW_PVRDMA: rdma_driver_id = 10;
pub const RDMA_DRIVER_QEDR: rdma_driver_id = 11;
pub const RDMA_DRIVER_HNS: rdma_driver_id = 12;
pub const RDMA_DRIVER_USNIC: rdma_driver_id = 13;
pub const RDMA_DRIVER_RXE: rdma_driver_id = 14;
pub const RDMA_DRIVER_HFI1: rdma_driver_id = 15;
pub const RDMA_DRIVER_QIB: rdma_driver_id = 16;
pub const RDMA_DRIVER_EFA: rdma_driver_id = 17;
pub const RDMA_DRIVER_SIW: rdma_driver_id = 18;
pub const RDMA_DRIVER_ERDMA: rdma_driver_id = 19;
pub const RDMA_DRIVER_MANA: rdma_driver_id = 20;
pub type ib_uverbs_gid_type = u32;
pub const IB_UVERBS_GID_TYPE_IB: ib_uverbs_gid_type = 0;
pub const IB_UVERBS_GID_TYPE_ROCE_V1: ib_uverbs_gid_type = 1;
pub const IB_UVERBS_GID_TYPE_ROCE_V2: ib_uverbs_gid_type = 2;
pub type uverbs_default_objects = u16;
pub const UVERBS_OBJECT_DEVICE: u16 = 0;
pub const UVERBS_OBJECT_PD: u16 = 1;
pub const UVERBS_OBJECT_COMP_CHANNEL: u16 = 2;
pub const UVERBS_OBJECT_CQ: u16 = 3;
pub const UVERBS_OBJECT_QP: u16 = 4;
pub const UVERBS_OBJECT_SRQ: u16 = 5;
pub const UVERBS_OBJECT_AH: u16 = 6;
pub const UVERBS_OBJECT_MR: u16 = 7;
pub const UVERBS_OBJECT_MW: u16 = 8;
pub const UVERBS_OBJECT_FLOW: u16 = 9;
pub const UVERBS_OBJECT_XRCD: u16 = 10;
pub const UVERBS_OBJECT_RWQ_IND_TBL: u16 = 11;
pub const UVERBS_OBJECT_WQ: u16 = 12;
pub const UVERBS_OBJECT_FLOW_ACTION: u16 = 13;
pub const UVERBS_OBJECT_DM: u16 = 14;
pub const UVERBS_OBJECT_COUNTERS: u16 = 15;
pub const UVERBS_OBJECT_ASYNC_EVENT: u16 = 16;
pub const UVERBS_ATTR_UHW_IN: u16 = 0x1000;
pub const UVERBS_ATTR_UHW_OUT: u16 = 0x1001;
pub type uverbs_methods_device = u16;
pub const UVERBS_METHOD_INVOKE_WRITE: u16 = 0;
pub const UVERBS_METHOD_INFO_HANDLES: u16 = 1;
pub const UVERBS_METHOD_QUERY_PORT: u16 = 2;
pub const UVERBS_METHOD_GET_CONTEXT: u16 = 3;
pub const UVERBS_METHOD_QUERY_CONTEXT: u16 = 4;
pub const UVERBS_METHOD_QUERY_GID_TABLE: u16 = 5;
pub const UVERBS_METHOD_QUERY_GID_ENTRY: u16 = 6;
pub type uverbs_attrs_invoke_write_cmd_attr_ids = u16;
pub const UVERBS_ATTR_CORE_IN: u16 = 0;
pub const UVERBS_ATTR_CORE_OUT: u16 = 1;
pub const UVERBS_ATTR_WRITE_CMD: u16 = 2;
pub type uverbs_attrs_query_port_cmd_attr_ids = u16;
pub const UVERBS_ATTR_QUERY_PORT_PORT_NUM: u16 = 0;
pub const UVERBS_ATTR_QUERY_PORT_RESP: u16 = 1;
pub type uverbs_attrs_get_context_attr_ids = u16;
pub const UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS: u16 = 0;
pub const UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT: u16 = 1;
/// rdma-core 65's kernel headers: file descriptors to share with the new context.
pub const UVERBS_ATTR_GET_CONTEXT_FD_ARR: u16 = 2;
pub type uverbs_attrs_query_context_attr_ids = u16;
pub const UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS: u16 = 0;
pub const UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT: u16 = 1;
pub type uverbs_attrs_create_cq_cmd_attr_ids = u16;
pub const UVERBS_ATTR_CREATE_CQ_HANDLE: u16 = 0;
pub const UVERBS_ATTR_CREATE_CQ_CQE: u16 = 1;
pub const UVERBS_ATTR_CREATE_CQ_USER_HANDLE: u16 = 2;
pub const UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL: u16 = 3;
pub const UVERBS_ATTR_CREATE_CQ_COMP_VECTOR: u16 = 4;
pub const UVERBS_ATTR_CREATE_CQ_FLAGS: u16 = 5;
pub const UVERBS_ATTR_CREATE_CQ_RESP_CQE: u16 = 6;
pub const UVERBS_ATTR_CREATE_CQ_EVENT_FD: u16 = 7;
// rdma-core 65's kernel headers: CQ memory the provider allocated itself.
pub const UVERBS_ATTR_CREATE_CQ_BUFFER_VA: u16 = 8;
pub const UVERBS_ATTR_CREATE_CQ_BUFFER_LENGTH: u16 = 9;
pub const UVERBS_ATTR_CREATE_CQ_BUFFER_FD: u16 = 10;
pub const UVERBS_ATTR_CREATE_CQ_BUFFER_OFFSET: u16 = 11;
pub type uverbs_attrs_destroy_cq_cmd_attr_ids = u16;
pub const UVERBS_ATTR_DESTROY_CQ_HANDLE: u16 = 0;
pub const UVERBS_ATTR_DESTROY_CQ_RESP: u16 = 1;
pub type uverbs_attrs_create_flow_action_esp = u16;
pub const UVERBS_ATTR_CREATE_FLOW_ACTION_ESP_HANDLE: u16 = 0;
pub const UVERBS_ATTR_FLOW_ACTION_ESP_ATTRS: u16 = 1;
pub const UVERBS_ATTR_FLOW_ACTION_ESP_ESN: u16 = 2;
pub const UVERBS_ATTR_FLOW_ACTION_ESP_KEYMAT: u16 = 3;
pub const UVERBS_ATTR_FLOW_ACTION_ESP_REPLAY: u16 = 4;
pub const UVERBS_ATTR_FLOW_ACTION_ESP_ENCAP: u16 = 5;
pub type uverbs_attrs_modify_flow_action_esp = u16;
pub const UVERBS_ATTR_MODIFY_FLOW_ACTION_ESP_HANDLE: u16 = 0;
pub type uverbs_attrs_destroy_flow_action_esp = u16;
pub const UVERBS_ATTR_DESTROY_FLOW_ACTION_HANDLE: u16 = 0;
pub type uverbs_attrs_create_qp_cmd_attr_ids = u16;
pub const UVERBS_ATTR_CREATE_QP_HANDLE: u16 = 0;
pub const UVERBS_ATTR_CREATE_QP_XRCD_HANDLE: u16 = 1;
pub const UVERBS_ATTR_CREATE_QP_PD_HANDLE: u16 = 2;
pub const UVERBS_ATTR_CREATE_QP_SRQ_HANDLE: u16 = 3;
pub const UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE: u16 = 4;
pub const UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE: u16 = 5;
pub const UVERBS_ATTR_CREATE_QP_IND_TABLE_HANDLE: u16 = 6;
pub const UVERBS_ATTR_CREATE_QP_USER_HANDLE: u16 = 7;
pub const UVERBS_ATTR_CREATE_QP_CAP: u16 = 8;
pub const UVERBS_ATTR_CREATE_QP_TYPE: u16 = 9;
pub const UVERBS_ATTR_CREATE_QP_FLAGS: u16 = 10;
pub const UVERBS_ATTR_CREATE_QP_SOURCE_QPN: u16 = 11;
pub const UVERBS_ATTR_CREATE_QP_EVENT_FD: u16 = 12;
pub const UVERBS_ATTR_CREATE_QP_RESP_CAP: u16 = 13;
pub const UVERBS_ATTR_CREATE_QP_RESP_QP_NUM: u16 = 14;
pub type uverbs_attrs_destroy_qp_cmd_attr_ids = u16;
pub const UVERBS_ATTR_DESTROY_QP_HANDLE: u16 = 0;
pub const UVERBS_ATTR_DESTROY_QP_RESP: u16 = 1;
pub type uverbs_methods_qp = u16;
pub const UVERBS_METHOD_QP_CREATE: u16 = 0;
pub const UVERBS_METHOD_QP_DESTROY: u16 = 1;
pub type uverbs_attrs_create_srq_cmd_attr_ids = u16;
pub const UVERBS_ATTR_CREATE_SRQ_HANDLE: u16 = 0;
pub const UVERBS_ATTR_CREATE_SRQ_PD_HANDLE: u16 = 1;
pub const UVERBS_ATTR_CREATE_SRQ_XRCD_HANDLE: u16 = 2;
pub const UVERBS_ATTR_CREATE_SRQ_CQ_HANDLE: u16 = 3;
pub const UVERBS_ATTR_CREATE_SRQ_USER_HANDLE: u16 = 4;
pub const UVERBS_ATTR_CREATE_SRQ_MAX_WR: u16 = 5;
pub const UVERBS_ATTR_CREATE_SRQ_MAX_SGE: u16 = 6;
pub const UVERBS_ATTR_CREATE_SRQ_LIMIT: u16 = 7;
pub const UVERBS_ATTR_CREATE_SRQ_MAX_NUM_TAGS: u16 = 8;
pub const UVERBS_ATTR_CREATE_SRQ_TYPE: u16 = 9;
pub const UVERBS_ATTR_CREATE_SRQ_EVENT_FD: u16 = 10;
pub const UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR: u16 = 11;
pub const UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE: u16 = 12;
pub const UVERBS_ATTR_CREATE_SRQ_RESP_SRQ_NUM: u16 = 13;
pub type uverbs_attrs_destroy_srq_cmd_attr_ids = u16;
pub const UVERBS_ATTR_DESTROY_SRQ_HANDLE: u16 = 0;
pub const UVERBS_ATTR_DESTROY_SRQ_RESP: u16 = 1;
pub type uverbs_methods_srq = u16;
pub const UVERBS_METHOD_SRQ_CREATE: u16 = 0;
pub const UVERBS_METHOD_SRQ_DESTROY: u16 = 1;
pub type uverbs_methods_cq = u16;
pub const UVERBS_METHOD_CQ_CREATE: u16 = 0;
pub const UVERBS_METHOD_CQ_DESTROY: u16 = 1;
pub type uverbs_attrs_create_wq_cmd_attr_ids = u16;
pub const UVERBS_ATTR_CREATE_WQ_HANDLE: u16 = 0;
pub const UVERBS_ATTR_CREATE_WQ_PD_HANDLE: u16 = 1;
pub const UVERBS_ATTR_CREATE_WQ_CQ_HANDLE: u16 = 2;
pub const UVERBS_ATTR_CREATE_WQ_USER_HANDLE: u16 = 3;
pub const UVERBS_ATTR_CREATE_WQ_TYPE: u16 = 4;
pub const UVERBS_ATTR_CREATE_WQ_EVENT_FD: u16 = 5;
pub const UVERBS_ATTR_CREATE_WQ_MAX_WR: u16 = 6;
pub const UVERBS_ATTR_CREATE_WQ_MAX_SGE: u16 = 7;
pub const UVERBS_ATTR_CREATE_WQ_FLAGS: u16 = 8;
pub const UVERBS_ATTR_CREATE_WQ_RESP_MAX_WR: u16 = 9;
pub const UVERBS_ATTR_CREATE_WQ_RESP_MAX_SGE: u16 = 10;
pub const UVERBS_ATTR_CREATE_WQ_RESP_WQ_NUM: u16 = 11;
pub type uverbs_attrs_destroy_wq_cmd_attr_ids = u16;
pub const UVERBS_ATTR_DESTROY_WQ_HANDLE: u16 = 0;
pub const UVERBS_ATTR_DESTROY_WQ_RESP: u16 = 1;
pub type uverbs_methods_wq = u16;
pub const UVERBS_METHOD_WQ_CREATE: u16 = 0;
pub const UVERBS_METHOD_WQ_DESTROY: u16 = 1;
pub type uverbs_methods_actions_flow_action_ops = u16;
pub const UVERBS_METHOD_FLOW_ACTION_ESP_CREATE: u16 = 0;
pub const UVERBS_METHOD_FLOW_ACTION_DESTROY: u16 = 1;
pub const UVERBS_METHOD_FLOW_ACTION_ESP_MODIFY: u16 = 2;
pub type uverbs_attrs_alloc_dm_cmd_attr_ids = u16;
pub const UVERBS_ATTR_ALLOC_DM_HANDLE: u16 = 0;
pub const UVERBS_ATTR_ALLOC_DM_LENGTH: u16 = 1;
pub const UVERBS_ATTR_ALLOC_DM_ALIGNMENT: u16 = 2;
pub type uverbs_attrs_free_dm_cmd_attr_ids = u16;
pub const UVERBS_ATTR_FREE_DM_HANDLE: u16 = 0;
pub type uverbs_methods_dm = u16;
pub const UVERBS_METHOD_DM_ALLOC: u16 = 0;
pub const UVERBS_METHOD_DM_FREE: u16 = 1;
pub type uverbs_attrs_reg_dm_mr_cmd_attr_ids = u16;
pub const UVERBS_ATTR_REG_DM_MR_HANDLE: u16 = 0;
pub const UVERBS_ATTR_REG_DM_MR_OFFSET: u16 = 1;
pub const UVERBS_ATTR_REG_DM_MR_LENGTH: u16 = 2;
pub const UVERBS_ATTR_REG_DM_MR_PD_HANDLE: u16 = 3;
pub const UVERBS_ATTR_REG_DM_MR_ACCESS_FLAGS: u16 = 4;
pub const UVERBS_ATTR_REG_DM_MR_DM_HANDLE: u16 = 5;
pub const UVERBS_ATTR_REG_DM_MR_RESP_LKEY: u16 = 6;
pub const UVERBS_ATTR_REG_DM_MR_RESP_RKEY: u16 = 7;
pub type uverbs_methods_mr = u16;
pub const UVERBS_METHOD_DM_MR_REG: u16 = 0;
pub const UVERBS_METHOD_MR_DESTROY: u16 = 1;
pub const UVERBS_METHOD_ADVISE_MR: u16 = 2;
pub const UVERBS_METHOD_QUERY_MR: u16 = 3;
pub const UVERBS_METHOD_REG_DMABUF_MR: u16 = 4;
pub type uverbs_attrs_mr_destroy_ids = u16;
pub const UVERBS_ATTR_DESTROY_MR_HANDLE: u16 = 0;
pub type uverbs_attrs_advise_mr_cmd_attr_ids = u16;
pub const UVERBS_ATTR_ADVISE_MR_PD_HANDLE: u16 = 0;
pub const UVERBS_ATTR_ADVISE_MR_ADVICE: u16 = 1;
pub const UVERBS_ATTR_ADVISE_MR_FLAGS: u16 = 2;
pub const UVERBS_ATTR_ADVISE_MR_SGE_LIST: u16 = 3;
pub type uverbs_attrs_query_mr_cmd_attr_ids = u16;
pub const UVERBS_ATTR_QUERY_MR_HANDLE: u16 = 0;
pub const UVERBS_ATTR_QUERY_MR_RESP_LKEY: u16 = 1;
pub const UVERBS_ATTR_QUERY_MR_RESP_RKEY: u16 = 2;
pub const UVERBS_ATTR_QUERY_MR_RESP_LENGTH: u16 = 3;
pub const UVERBS_ATTR_QUERY_MR_RESP_IOVA: u16 = 4;
pub type uverbs_attrs_reg_dmabuf_mr_cmd_attr_ids = u16;
pub const UVERBS_ATTR_REG_DMABUF_MR_HANDLE: u16 = 0;
pub const UVERBS_ATTR_REG_DMABUF_MR_PD_HANDLE: u16 = 1;
pub const UVERBS_ATTR_REG_DMABUF_MR_OFFSET: u16 = 2;
pub const UVERBS_ATTR_REG_DMABUF_MR_LENGTH: u16 = 3;
pub const UVERBS_ATTR_REG_DMABUF_MR_IOVA: u16 = 4;
pub const UVERBS_ATTR_REG_DMABUF_MR_FD: u16 = 5;
pub const UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS: u16 = 6;
pub const UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY: u16 = 7;
pub const UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY: u16 = 8;
pub type uverbs_attrs_create_counters_cmd_attr_ids = u16;
pub const UVERBS_ATTR_CREATE_COUNTERS_HANDLE: u16 = 0;
pub type uverbs_attrs_destroy_counters_cmd_attr_ids = u16;
pub const UVERBS_ATTR_DESTROY_COUNTERS_HANDLE: u16 = 0;
pub type uverbs_attrs_read_counters_cmd_attr_ids = u16;
pub const UVERBS_ATTR_READ_COUNTERS_HANDLE: u16 = 0;
pub const UVERBS_ATTR_READ_COUNTERS_BUFF: u16 = 1;
pub const UVERBS_ATTR_READ_COUNTERS_FLAGS: u16 = 2;
pub type uverbs_methods_actions_counters_ops = u16;
pub const UVERBS_METHOD_COUNTERS_CREATE: u16 = 0;
pub const UVERBS_METHOD_COUNTERS_DESTROY: u16 = 1;
pub const UVERBS_METHOD_COUNTERS_READ: u16 = 2;
pub type uverbs_attrs_info_handles_id = u16;
pub const UVERBS_ATTR_INFO_OBJECT_ID: u16 = 0;
pub const UVERBS_ATTR_INFO_TOTAL_HANDLES: u16 = 1;
pub const UVERBS_ATTR_INFO_HANDLES_LIST: u16 = 2;
pub type uverbs_methods_pd = u16;
pub const UVERBS_METHOD_PD_DESTROY: u16 = 0;
pub type uverbs_attrs_pd_destroy_ids = u16;
pub const UVERBS_ATTR_DESTROY_PD_HANDLE: u16 = 0;
pub type uverbs_methods_mw = u16;
pub const UVERBS_METHOD_MW_DESTROY: u16 = 0;
pub type uverbs_attrs_mw_destroy_ids = u16;
pub const UVERBS_ATTR_DESTROY_MW_HANDLE: u16 = 0;
pub type uverbs_methods_xrcd = u16;
pub const UVERBS_METHOD_XRCD_DESTROY: u16 = 0;
pub type uverbs_attrs_xrcd_destroy_ids = u16;
pub const UVERBS_ATTR_DESTROY_XRCD_HANDLE: u16 = 0;
pub type uverbs_methods_ah = u16;
pub const UVERBS_METHOD_AH_DESTROY: u16 = 0;
pub type uverbs_attrs_ah_destroy_ids = u16;
pub const UVERBS_ATTR_DESTROY_AH_HANDLE: u16 = 0;
pub type uverbs_methods_rwq_ind_tbl = u16;
pub const UVERBS_METHOD_RWQ_IND_TBL_DESTROY: u16 = 0;
pub type uverbs_attrs_rwq_ind_tbl_destroy_ids = u16;
pub const UVERBS_ATTR_DESTROY_RWQ_IND_TBL_HANDLE: u16 = 0;
pub type uverbs_methods_flow = u16;
pub const UVERBS_METHOD_FLOW_DESTROY: u16 = 0;
pub type uverbs_attrs_flow_destroy_ids = u16;
pub const UVERBS_ATTR_DESTROY_FLOW_HANDLE: u16 = 0;
pub type uverbs_method_async_event = u16;
pub const UVERBS_METHOD_ASYNC_EVENT_ALLOC: u16 = 0;
pub type uverbs_attrs_async_event_create = u16;
pub const UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE: u16 = 0;
pub type uverbs_attrs_query_gid_table_cmd_attr_ids = u16;
pub const UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE: u16 = 0;
pub const UVERBS_ATTR_QUERY_GID_TABLE_FLAGS: u16 = 1;
pub const UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES: u16 = 2;
pub const UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES: u16 = 3;
pub type uverbs_attrs_query_gid_entry_cmd_attr_ids = u16;
pub const UVERBS_ATTR_QUERY_GID_ENTRY_PORT: u16 = 0;
pub const UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX: u16 = 1;
pub const UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS: u16 = 2;
pub const UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY: u16 = 3;

// ---------------------------------------------------------------------------
// What rdma-core 65.0's kernel-headers add to the ioctl protocol
// (`rdma/ib_user_ioctl_cmds.h` and `rdma/ib_user_ioctl_verbs.h`): DMA
// handles, dma-buf export, the REG_MR method, port speed and completion
// counters. The probe compiles against 44's headers, which lack them, so
// `src/layout/hand_kept.rs` checks these values (read from 65's headers and
// compared once with gcc against them). Kernels older than these methods
// answer EPROTONOSUPPORT (or ENOTTY without the ioctl framework).

// Objects continuing `uverbs_default_objects` after ASYNC_EVENT.
pub const UVERBS_OBJECT_DMAH: u16 = 17;
pub const UVERBS_OBJECT_DMABUF: u16 = 18;
pub const UVERBS_OBJECT_COMP_CNTR: u16 = 19;
// Methods continuing `uverbs_methods_device` after QUERY_GID_ENTRY.
pub const UVERBS_METHOD_QUERY_PORT_SPEED: u16 = 7;
pub const UVERBS_METHOD_QUERY_COMP_CNTR_CAPS: u16 = 8;
pub type uverbs_attrs_query_port_speed_cmd_attr_ids = u16;
pub const UVERBS_ATTR_QUERY_PORT_SPEED_PORT_NUM: u16 = 0;
pub const UVERBS_ATTR_QUERY_PORT_SPEED_RESP: u16 = 1;
pub type uverbs_attrs_query_comp_cntr_caps_attr_ids = u16;
pub const UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_COUNTERS: u16 = 0;
pub const UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_VALUE: u16 = 1;
pub const UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_SUPPORTED_QP_ATTACH_OPS: u16 = 2;
// A method continuing `uverbs_methods_qp` after QP_DESTROY.
pub const UVERBS_METHOD_QP_ATTACH_COMP_CNTR: u16 = 2;
pub type uverbs_attrs_qp_attach_comp_cntr_cmd_attr_ids = u16;
pub const UVERBS_ATTR_QP_ATTACH_COMP_CNTR_HANDLE: u16 = 0;
pub const UVERBS_ATTR_QP_ATTACH_COMP_CNTR_CNTR_HANDLE: u16 = 1;
pub const UVERBS_ATTR_QP_ATTACH_COMP_CNTR_OP_MASK: u16 = 2;
pub type uverbs_attrs_alloc_dmah_cmd_attr_ids = u16;
pub const UVERBS_ATTR_ALLOC_DMAH_HANDLE: u16 = 0;
pub const UVERBS_ATTR_ALLOC_DMAH_CPU_ID: u16 = 1;
pub const UVERBS_ATTR_ALLOC_DMAH_TPH_MEM_TYPE: u16 = 2;
pub const UVERBS_ATTR_ALLOC_DMAH_PH: u16 = 3;
pub type uverbs_attrs_free_dmah_cmd_attr_ids = u16;
/// C spells it without the H.
pub const UVERBS_ATTR_FREE_DMA_HANDLE: u16 = 0;
pub type uverbs_methods_dmah = u16;
pub const UVERBS_METHOD_DMAH_ALLOC: u16 = 0;
pub const UVERBS_METHOD_DMAH_FREE: u16 = 1;
pub type uverbs_attrs_alloc_dmabuf_cmd_attr_ids = u16;
pub const UVERBS_ATTR_ALLOC_DMABUF_HANDLE: u16 = 0;
pub const UVERBS_ATTR_ALLOC_DMABUF_PGOFF: u16 = 1;
pub type uverbs_methods_dmabuf = u16;
pub const UVERBS_METHOD_DMABUF_ALLOC: u16 = 0;
// A method continuing `uverbs_methods_mr` after REG_DMABUF_MR.
pub const UVERBS_METHOD_REG_MR: u16 = 5;
pub type uverbs_attrs_reg_mr_cmd_attr_ids = u16;
pub const UVERBS_ATTR_REG_MR_HANDLE: u16 = 0;
pub const UVERBS_ATTR_REG_MR_PD_HANDLE: u16 = 1;
pub const UVERBS_ATTR_REG_MR_DMA_HANDLE: u16 = 2;
pub const UVERBS_ATTR_REG_MR_IOVA: u16 = 3;
pub const UVERBS_ATTR_REG_MR_ADDR: u16 = 4;
pub const UVERBS_ATTR_REG_MR_LENGTH: u16 = 5;
pub const UVERBS_ATTR_REG_MR_ACCESS_FLAGS: u16 = 6;
pub const UVERBS_ATTR_REG_MR_FD: u16 = 7;
pub const UVERBS_ATTR_REG_MR_FD_OFFSET: u16 = 8;
pub const UVERBS_ATTR_REG_MR_RESP_LKEY: u16 = 9;
pub const UVERBS_ATTR_REG_MR_RESP_RKEY: u16 = 10;
pub type uverbs_methods_comp_cntr = u16;
pub const UVERBS_METHOD_COMP_CNTR_CREATE: u16 = 0;
pub const UVERBS_METHOD_COMP_CNTR_DESTROY: u16 = 1;
pub const UVERBS_METHOD_COMP_CNTR_MODIFY: u16 = 2;
pub const UVERBS_METHOD_COMP_CNTR_READ: u16 = 3;
pub type uverbs_attrs_create_comp_cntr_cmd_attr_ids = u16;
pub const UVERBS_ATTR_CREATE_COMP_CNTR_HANDLE: u16 = 0;
pub type uverbs_attrs_destroy_comp_cntr_cmd_attr_ids = u16;
pub const UVERBS_ATTR_DESTROY_COMP_CNTR_HANDLE: u16 = 0;
pub type uverbs_attrs_modify_comp_cntr_cmd_attr_ids = u16;
pub const UVERBS_ATTR_MODIFY_COMP_CNTR_HANDLE: u16 = 0;
pub const UVERBS_ATTR_MODIFY_COMP_CNTR_ENTRY: u16 = 1;
pub const UVERBS_ATTR_MODIFY_COMP_CNTR_OP: u16 = 2;
pub const UVERBS_ATTR_MODIFY_COMP_CNTR_VALUE: u16 = 3;
pub type uverbs_attrs_read_comp_cntr_cmd_attr_ids = u16;
pub const UVERBS_ATTR_READ_COMP_CNTR_HANDLE: u16 = 0;
pub const UVERBS_ATTR_READ_COMP_CNTR_ENTRY: u16 = 1;
pub const UVERBS_ATTR_READ_COMP_CNTR_RESP_VALUE: u16 = 2;
/// Which of a completion counter's two values a command addresses.
pub type ib_uverbs_comp_cntr_entry = u32;
pub const IB_UVERBS_COMP_CNTR_ENTRY_COMP: ib_uverbs_comp_cntr_entry = 0;
pub const IB_UVERBS_COMP_CNTR_ENTRY_ERR: ib_uverbs_comp_cntr_entry = 1;
pub type ib_uverbs_comp_cntr_modify_op = u32;
pub const IB_UVERBS_COMP_CNTR_MODIFY_OP_SET: ib_uverbs_comp_cntr_modify_op = 0;
pub const IB_UVERBS_COMP_CNTR_MODIFY_OP_INC: ib_uverbs_comp_cntr_modify_op = 1;
/// The operations whose completions an attached counter counts (the
/// kernel's bits; the verbs' `IBV_QP_ATTACH_COMP_CNTR_OP_*` are translated).
pub type ib_uverbs_qp_attach_comp_cntr_op = u32;
pub const IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_SEND: ib_uverbs_qp_attach_comp_cntr_op = 1 << 0;
pub const IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RECV: ib_uverbs_qp_attach_comp_cntr_op = 1 << 1;
pub const IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_READ: ib_uverbs_qp_attach_comp_cntr_op = 1 << 2;
pub const IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ: ib_uverbs_qp_attach_comp_cntr_op = 1 << 3;
pub const IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE: ib_uverbs_qp_attach_comp_cntr_op = 1 << 4;
pub const IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE: ib_uverbs_qp_attach_comp_cntr_op = 1 << 5;

// ---------------------------------------------------------------------------
// Kernel structures

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct ib_uverbs_ioctl_hdr {
    pub length: u16,
    pub object_id: u16,
    pub method_id: u16,
    pub num_attrs: u16,
    pub reserved1: u64,
    pub driver_id: u32,
    pub reserved2: u32,
    pub attrs: [ib_uverbs_attr; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_async_event_desc {
    pub element: u64,
    pub event_type: u32,
    pub reserved: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_comp_event_desc {
    pub cq_handle: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_cq_moderation_caps {
    pub max_cq_moderation_count: u16,
    pub max_cq_moderation_period: u16,
    pub reserved: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_cmd_hdr {
    pub command: u32,
    pub in_words: u16,
    pub out_words: u16,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_ex_cmd_hdr {
    pub response: u64,
    pub provider_in_words: u16,
    pub provider_out_words: u16,
    pub cmd_hdr_reserved: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_get_context {
    pub response: u64,
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_get_context_resp {
    pub async_fd: u32,
    pub num_comp_vectors: u32,
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_query_device {
    pub response: u64,
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_query_device_resp {
    pub fw_ver: u64,
    pub node_guid: u64,      // big-endian
    pub sys_image_guid: u64, // big-endian
    pub max_mr_size: u64,
    pub page_size_cap: u64,
    pub vendor_id: u32,
    pub vendor_part_id: u32,
    pub hw_ver: u32,
    pub max_qp: u32,
    pub max_qp_wr: u32,
    pub device_cap_flags: u32,
    pub max_sge: u32,
    pub max_sge_rd: u32,
    pub max_cq: u32,
    pub max_cqe: u32,
    pub max_mr: u32,
    pub max_pd: u32,
    pub max_qp_rd_atom: u32,
    pub max_ee_rd_atom: u32,
    pub max_res_rd_atom: u32,
    pub max_qp_init_rd_atom: u32,
    pub max_ee_init_rd_atom: u32,
    pub atomic_cap: u32,
    pub max_ee: u32,
    pub max_rdd: u32,
    pub max_mw: u32,
    pub max_raw_ipv6_qp: u32,
    pub max_raw_ethy_qp: u32,
    pub max_mcast_grp: u32,
    pub max_mcast_qp_attach: u32,
    pub max_total_mcast_qp_attach: u32,
    pub max_ah: u32,
    pub max_fmr: u32,
    pub max_map_per_fmr: u32,
    pub max_srq: u32,
    pub max_srq_wr: u32,
    pub max_srq_sge: u32,
    pub max_pkeys: u16,
    pub local_ca_ack_delay: u8,
    pub phys_port_cnt: u8,
    pub reserved: [u8; 4],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_ex_query_device {
    pub comp_mask: u32,
    pub reserved: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_rss_caps {
    pub supported_qpts: u32,
    pub max_rwq_indirection_tables: u32,
    pub max_rwq_indirection_table_size: u32,
    pub reserved: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_tm_caps {
    pub max_rndv_hdr_size: u32,
    pub max_num_tags: u32,
    pub flags: u32,
    pub max_ops: u32,
    pub max_sge: u32,
    pub reserved: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_ex_query_device_resp {
    pub base: ib_uverbs_query_device_resp,
    pub comp_mask: u32,
    pub response_length: u32,
    pub odp_caps: ib_uverbs_odp_caps,
    pub timestamp_mask: u64,
    pub hca_core_clock: u64,
    pub device_cap_flags_ex: u64,
    pub rss_caps: ib_uverbs_rss_caps,
    pub max_wq_type_rq: u32,
    pub raw_packet_caps: u32,
    pub tm_caps: ib_uverbs_tm_caps,
    pub cq_moderation_caps: ib_uverbs_cq_moderation_caps,
    pub max_dm_size: u64,
    pub xrc_odp_caps: u32,
    pub reserved: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_query_port {
    pub response: u64,
    pub port_num: u8,
    pub reserved: [u8; 7],
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_query_port_resp {
    pub port_cap_flags: u32,
    pub max_msg_sz: u32,
    pub bad_pkey_cntr: u32,
    pub qkey_viol_cntr: u32,
    pub gid_tbl_len: u32,
    pub pkey_tbl_len: u16,
    pub lid: u16,
    pub sm_lid: u16,
    pub state: u8,
    pub max_mtu: u8,
    pub active_mtu: u8,
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
    pub reserved: u8,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_alloc_pd {
    pub response: u64,
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_alloc_pd_resp {
    pub pd_handle: u32,
    pub driver_data: [u32; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_dealloc_pd {
    pub pd_handle: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_open_xrcd {
    pub response: u64,
    pub fd: u32,
    pub oflags: u32,
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_open_xrcd_resp {
    pub xrcd_handle: u32,
    pub driver_data: [u32; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_close_xrcd {
    pub xrcd_handle: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_reg_mr {
    pub response: u64,
    pub start: u64,
    pub length: u64,
    pub hca_va: u64,
    pub pd_handle: u32,
    pub access_flags: u32,
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_reg_mr_resp {
    pub mr_handle: u32,
    pub lkey: u32,
    pub rkey: u32,
    pub driver_data: [u32; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_rereg_mr {
    pub response: u64,
    pub mr_handle: u32,
    pub flags: u32,
    pub start: u64,
    pub length: u64,
    pub hca_va: u64,
    pub pd_handle: u32,
    pub access_flags: u32,
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_rereg_mr_resp {
    pub lkey: u32,
    pub rkey: u32,
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_dereg_mr {
    pub mr_handle: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_alloc_mw {
    pub response: u64,
    pub pd_handle: u32,
    pub mw_type: u8,
    pub reserved: [u8; 3],
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_alloc_mw_resp {
    pub mw_handle: u32,
    pub rkey: u32,
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_dealloc_mw {
    pub mw_handle: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_create_comp_channel {
    pub response: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_create_comp_channel_resp {
    pub fd: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_create_cq {
    pub response: u64,
    pub user_handle: u64,
    pub cqe: u32,
    pub comp_vector: u32,
    pub comp_channel: i32,
    pub reserved: u32,
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_ex_create_cq {
    pub user_handle: u64,
    pub cqe: u32,
    pub comp_vector: u32,
    pub comp_channel: i32,
    pub comp_mask: u32,
    pub flags: u32,
    pub reserved: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_create_cq_resp {
    pub cq_handle: u32,
    pub cqe: u32,
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_ex_create_cq_resp {
    pub base: ib_uverbs_create_cq_resp,
    pub comp_mask: u32,
    pub response_length: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_resize_cq {
    pub response: u64,
    pub cq_handle: u32,
    pub cqe: u32,
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_resize_cq_resp {
    pub cqe: u32,
    pub reserved: u32,
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_poll_cq {
    pub response: u64,
    pub cq_handle: u32,
    pub ne: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct ib_uverbs_poll_cq_resp {
    pub count: u32,
    pub reserved: u32,
    pub wc: [ib_uverbs_wc; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_req_notify_cq {
    pub cq_handle: u32,
    pub solicited_only: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_destroy_cq {
    pub response: u64,
    pub cq_handle: u32,
    pub reserved: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_destroy_cq_resp {
    pub comp_events_reported: u32,
    pub async_events_reported: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_global_route {
    pub dgid: [u8; 16],
    pub flow_label: u32,
    pub sgid_index: u8,
    pub hop_limit: u8,
    pub traffic_class: u8,
    pub reserved: u8,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_ah_attr {
    pub grh: ib_uverbs_global_route,
    pub dlid: u16,
    pub sl: u8,
    pub src_path_bits: u8,
    pub static_rate: u8,
    pub is_global: u8,
    pub port_num: u8,
    pub reserved: u8,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_qp_attr {
    pub qp_attr_mask: u32,
    pub qp_state: u32,
    pub cur_qp_state: u32,
    pub path_mtu: u32,
    pub path_mig_state: u32,
    pub qkey: u32,
    pub rq_psn: u32,
    pub sq_psn: u32,
    pub dest_qp_num: u32,
    pub qp_access_flags: u32,
    pub ah_attr: ib_uverbs_ah_attr,
    pub alt_ah_attr: ib_uverbs_ah_attr,
    pub max_send_wr: u32,
    pub max_recv_wr: u32,
    pub max_send_sge: u32,
    pub max_recv_sge: u32,
    pub max_inline_data: u32,
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
    pub reserved: [u8; 5],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_create_qp {
    pub response: u64,
    pub user_handle: u64,
    pub pd_handle: u32,
    pub send_cq_handle: u32,
    pub recv_cq_handle: u32,
    pub srq_handle: u32,
    pub max_send_wr: u32,
    pub max_recv_wr: u32,
    pub max_send_sge: u32,
    pub max_recv_sge: u32,
    pub max_inline_data: u32,
    pub sq_sig_all: u8,
    pub qp_type: u8,
    pub is_srq: u8,
    pub reserved: u8,
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_ex_create_qp {
    pub user_handle: u64,
    pub pd_handle: u32,
    pub send_cq_handle: u32,
    pub recv_cq_handle: u32,
    pub srq_handle: u32,
    pub max_send_wr: u32,
    pub max_recv_wr: u32,
    pub max_send_sge: u32,
    pub max_recv_sge: u32,
    pub max_inline_data: u32,
    pub sq_sig_all: u8,
    pub qp_type: u8,
    pub is_srq: u8,
    pub reserved: u8,
    pub comp_mask: u32,
    pub create_flags: u32,
    pub rwq_ind_tbl_handle: u32,
    pub source_qpn: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_open_qp {
    pub response: u64,
    pub user_handle: u64,
    pub pd_handle: u32,
    pub qpn: u32,
    pub qp_type: u8,
    pub reserved: [u8; 7],
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_create_qp_resp {
    pub qp_handle: u32,
    pub qpn: u32,
    pub max_send_wr: u32,
    pub max_recv_wr: u32,
    pub max_send_sge: u32,
    pub max_recv_sge: u32,
    pub max_inline_data: u32,
    pub reserved: u32,
    pub driver_data: [u32; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_ex_create_qp_resp {
    pub base: ib_uverbs_create_qp_resp,
    pub comp_mask: u32,
    pub response_length: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_qp_dest {
    pub dgid: [u8; 16],
    pub flow_label: u32,
    pub dlid: u16,
    pub reserved: u16,
    pub sgid_index: u8,
    pub hop_limit: u8,
    pub traffic_class: u8,
    pub sl: u8,
    pub src_path_bits: u8,
    pub static_rate: u8,
    pub is_global: u8,
    pub port_num: u8,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_query_qp {
    pub response: u64,
    pub qp_handle: u32,
    pub attr_mask: u32,
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_query_qp_resp {
    pub dest: ib_uverbs_qp_dest,
    pub alt_dest: ib_uverbs_qp_dest,
    pub max_send_wr: u32,
    pub max_recv_wr: u32,
    pub max_send_sge: u32,
    pub max_recv_sge: u32,
    pub max_inline_data: u32,
    pub qkey: u32,
    pub rq_psn: u32,
    pub sq_psn: u32,
    pub dest_qp_num: u32,
    pub qp_access_flags: u32,
    pub pkey_index: u16,
    pub alt_pkey_index: u16,
    pub qp_state: u8,
    pub cur_qp_state: u8,
    pub path_mtu: u8,
    pub path_mig_state: u8,
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
    pub sq_sig_all: u8,
    pub reserved: [u8; 5],
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_modify_qp {
    pub dest: ib_uverbs_qp_dest,
    pub alt_dest: ib_uverbs_qp_dest,
    pub qp_handle: u32,
    pub attr_mask: u32,
    pub qkey: u32,
    pub rq_psn: u32,
    pub sq_psn: u32,
    pub dest_qp_num: u32,
    pub qp_access_flags: u32,
    pub pkey_index: u16,
    pub alt_pkey_index: u16,
    pub qp_state: u8,
    pub cur_qp_state: u8,
    pub path_mtu: u8,
    pub path_mig_state: u8,
    pub en_sqd_async_notify: u8,
    pub max_rd_atomic: u8,
    pub max_dest_rd_atomic: u8,
    pub min_rnr_timer: u8,
    pub port_num: u8,
    pub timeout: u8,
    pub retry_cnt: u8,
    pub rnr_retry: u8,
    pub alt_port_num: u8,
    pub alt_timeout: u8,
    pub reserved: [u8; 2],
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_ex_modify_qp {
    pub base: ib_uverbs_modify_qp,
    pub rate_limit: u32,
    pub reserved: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_ex_modify_qp_resp {
    pub comp_mask: u32,
    pub response_length: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_destroy_qp {
    pub response: u64,
    pub qp_handle: u32,
    pub reserved: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_destroy_qp_resp {
    pub events_reported: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_sge {
    pub addr: u64,
    pub length: u32,
    pub lkey: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct ib_uverbs_post_send {
    pub response: u64,
    pub qp_handle: u32,
    pub wr_count: u32,
    pub sge_count: u32,
    pub wqe_size: u32,
    pub send_wr: [ib_uverbs_send_wr; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_post_send_resp {
    pub bad_wr: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_recv_wr {
    pub wr_id: u64,
    pub num_sge: u32,
    pub reserved: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_post_recv {
    pub response: u64,
    pub qp_handle: u32,
    pub wr_count: u32,
    pub sge_count: u32,
    pub wqe_size: u32,
    pub recv_wr: [ib_uverbs_recv_wr; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_post_recv_resp {
    pub bad_wr: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_post_srq_recv {
    pub response: u64,
    pub srq_handle: u32,
    pub wr_count: u32,
    pub sge_count: u32,
    pub wqe_size: u32,
    pub recv: [ib_uverbs_recv_wr; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_post_srq_recv_resp {
    pub bad_wr: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_create_ah {
    pub response: u64,
    pub user_handle: u64,
    pub pd_handle: u32,
    pub reserved: u32,
    pub attr: ib_uverbs_ah_attr,
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_create_ah_resp {
    pub ah_handle: u32,
    pub driver_data: [u32; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_destroy_ah {
    pub ah_handle: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_attach_mcast {
    pub gid: [u8; 16],
    pub qp_handle: u32,
    pub mlid: u16,
    pub reserved: u16,
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_detach_mcast {
    pub gid: [u8; 16],
    pub qp_handle: u32,
    pub mlid: u16,
    pub reserved: u16,
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_spec_hdr {
    pub type_: u32,
    pub size: u16,
    pub reserved: u16,
    pub flow_spec_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_eth_filter {
    pub dst_mac: [u8; 6],
    pub src_mac: [u8; 6],
    pub ether_type: u16, // big-endian
    pub vlan_tag: u16,   // big-endian
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_ipv4_filter {
    pub src_ip: u32, // big-endian
    pub dst_ip: u32, // big-endian
    pub proto: u8,
    pub tos: u8,
    pub ttl: u8,
    pub flags: u8,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_tcp_udp_filter {
    pub dst_port: u16, // big-endian
    pub src_port: u16, // big-endian
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_ipv6_filter {
    pub src_ip: [u8; 16],
    pub dst_ip: [u8; 16],
    pub flow_label: u32, // big-endian
    pub next_hdr: u8,
    pub traffic_class: u8,
    pub hop_limit: u8,
    pub reserved: u8,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_tunnel_filter {
    pub tunnel_id: u32, // big-endian
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_spec_esp_filter {
    pub spi: u32,
    pub seq: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_gre_filter {
    pub c_ks_res0_ver: u16, // big-endian
    pub protocol: u16,      // big-endian
    pub key: u32,           // big-endian
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_mpls_filter {
    pub label: u32, // big-endian
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_attr {
    pub type_: u32,
    pub size: u16,
    pub priority: u16,
    pub num_of_specs: u8,
    pub reserved: [u8; 2],
    pub port: u8,
    pub flags: u32,
    pub flow_specs: [ib_uverbs_flow_spec_hdr; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_create_flow {
    pub comp_mask: u32,
    pub qp_handle: u32,
    pub flow_attr: ib_uverbs_flow_attr,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_create_flow_resp {
    pub comp_mask: u32,
    pub flow_handle: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_destroy_flow {
    pub comp_mask: u32,
    pub flow_handle: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_create_srq {
    pub response: u64,
    pub user_handle: u64,
    pub pd_handle: u32,
    pub max_wr: u32,
    pub max_sge: u32,
    pub srq_limit: u32,
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_create_xsrq {
    pub response: u64,
    pub user_handle: u64,
    pub srq_type: u32,
    pub pd_handle: u32,
    pub max_wr: u32,
    pub max_sge: u32,
    pub srq_limit: u32,
    pub max_num_tags: u32,
    pub xrcd_handle: u32,
    pub cq_handle: u32,
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_create_srq_resp {
    pub srq_handle: u32,
    pub max_wr: u32,
    pub max_sge: u32,
    pub srqn: u32,
    pub driver_data: [u32; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_modify_srq {
    pub srq_handle: u32,
    pub attr_mask: u32,
    pub max_wr: u32,
    pub srq_limit: u32,
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_query_srq {
    pub response: u64,
    pub srq_handle: u32,
    pub reserved: u32,
    pub driver_data: [u64; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_query_srq_resp {
    pub max_wr: u32,
    pub max_sge: u32,
    pub srq_limit: u32,
    pub reserved: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_destroy_srq {
    pub response: u64,
    pub srq_handle: u32,
    pub reserved: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_destroy_srq_resp {
    pub events_reported: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_ex_create_wq {
    pub comp_mask: u32,
    pub wq_type: u32,
    pub user_handle: u64,
    pub pd_handle: u32,
    pub cq_handle: u32,
    pub max_wr: u32,
    pub max_sge: u32,
    pub create_flags: u32,
    pub reserved: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_ex_create_wq_resp {
    pub comp_mask: u32,
    pub response_length: u32,
    pub wq_handle: u32,
    pub max_wr: u32,
    pub max_sge: u32,
    pub wqn: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_ex_destroy_wq {
    pub comp_mask: u32,
    pub wq_handle: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_ex_destroy_wq_resp {
    pub comp_mask: u32,
    pub response_length: u32,
    pub events_reported: u32,
    pub reserved: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_ex_modify_wq {
    pub attr_mask: u32,
    pub wq_handle: u32,
    pub wq_state: u32,
    pub curr_wq_state: u32,
    pub flags: u32,
    pub flags_mask: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_ex_create_rwq_ind_table {
    pub comp_mask: u32,
    pub log_ind_tbl_size: u32,
    pub wq_handles: [u32; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_ex_create_rwq_ind_table_resp {
    pub comp_mask: u32,
    pub response_length: u32,
    pub ind_tbl_handle: u32,
    pub ind_tbl_num: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_ex_destroy_rwq_ind_table {
    pub comp_mask: u32,
    pub ind_tbl_handle: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_cq_moderation {
    pub cq_count: u16,
    pub cq_period: u16,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_ex_modify_cq {
    pub cq_handle: u32,
    pub attr_mask: u32,
    pub attr: ib_uverbs_cq_moderation,
    pub reserved: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_action_esp_keymat_aes_gcm {
    pub iv: u64,
    pub iv_algo: u32,
    pub salt: u32,
    pub icv_len: u32,
    pub key_len: u32,
    pub aes_key: [u32; 8],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_action_esp_replay_bmp {
    pub size: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_action_esp_encap {
    pub val_ptr: u64,  // pointer: void *
    pub next_ptr: u64, // pointer: struct ib_uverbs_flow_action_esp_encap *
    pub len: u16,
    pub type_: u16,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_action_esp {
    pub spi: u32,
    pub seq: u32,
    pub tfc_pad: u32,
    pub flags: u32,
    pub hard_limit_pkts: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_query_port_resp_ex {
    pub legacy_resp: ib_uverbs_query_port_resp,
    pub port_cap_flags2: u16,
    pub reserved: [u8; 6],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_qp_cap {
    pub max_send_wr: u32,
    pub max_recv_wr: u32,
    pub max_send_sge: u32,
    pub max_recv_sge: u32,
    pub max_inline_data: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_gid_entry {
    pub gid: [u64; 2],
    pub gid_index: u32,
    pub port_num: u32,
    pub gid_type: u32,
    pub netdev_ifindex: u32,
}

/// `ib_uverbs_attr.attr_data.enum_data`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_attr_enum_data {
    pub elem_id: u8,
    pub reserved: u8,
}

/// `ib_uverbs_attr.attr_data` (an unnamed union in C).
#[repr(C)]
#[derive(Clone, Copy)]
pub union ib_uverbs_attr_data {
    pub enum_data: ib_uverbs_attr_enum_data,
    pub reserved: u16,
}

/// One attribute of an ioctl command. C's anonymous union
/// `{ __aligned_u64 data; __s64 data_s64; }` is the single field `data`
/// (read it `as i64` for the signed view).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ib_uverbs_attr {
    pub attr_id: u16,
    pub len: u16,
    pub flags: u16,
    pub attr_data: ib_uverbs_attr_data,
    pub data: u64,
}

impl ib_uverbs_attr {
    /// `attr_data` as the plain 16-bit value it always is on the wire.
    pub fn attr_data_u16(&self) -> u16 {
        // SAFETY: both union members are plain integers covering the same two bytes.
        unsafe { self.attr_data.reserved }
    }
}

impl Default for ib_uverbs_attr {
    fn default() -> Self {
        ib_uverbs_attr {
            attr_id: 0,
            len: 0,
            flags: 0,
            attr_data: ib_uverbs_attr_data { reserved: 0 },
            data: 0,
        }
    }
}

impl core::fmt::Debug for ib_uverbs_attr {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ib_uverbs_attr")
            .field("attr_id", &self.attr_id)
            .field("len", &self.len)
            .field("flags", &self.flags)
            .field("attr_data", &self.attr_data_u16())
            .field("data", &self.data)
            .finish()
    }
}

impl PartialEq for ib_uverbs_attr {
    fn eq(&self, o: &Self) -> bool {
        self.attr_id == o.attr_id
            && self.len == o.len
            && self.flags == o.flags
            && self.attr_data_u16() == o.attr_data_u16()
            && self.data == o.data
    }
}
impl Eq for ib_uverbs_attr {}

/// `ib_uverbs_odp_caps.per_transport_caps`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_odp_caps_per_transport_caps {
    pub rc_odp_caps: u32,
    pub uc_odp_caps: u32,
    pub ud_odp_caps: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_odp_caps {
    pub general_caps: u64,
    pub per_transport_caps: ib_uverbs_odp_caps_per_transport_caps,
    pub reserved: u32,
}

/// `ib_uverbs_wc.ex`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union ib_uverbs_wc_ex {
    /// big-endian
    pub imm_data: u32,
    pub invalidate_rkey: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ib_uverbs_wc {
    pub wr_id: u64,
    pub status: u32,
    pub opcode: u32,
    pub vendor_err: u32,
    pub byte_len: u32,
    pub ex: ib_uverbs_wc_ex,
    pub qp_num: u32,
    pub src_qp: u32,
    pub wc_flags: u32,
    pub pkey_index: u16,
    pub slid: u16,
    pub sl: u8,
    pub dlid_path_bits: u8,
    pub port_num: u8,
    pub reserved: u8,
}

/// `ib_uverbs_send_wr.ex`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union ib_uverbs_send_wr_ex {
    /// big-endian
    pub imm_data: u32,
    pub invalidate_rkey: u32,
}

/// `ib_uverbs_send_wr.wr.rdma`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_send_wr_rdma {
    pub remote_addr: u64,
    pub rkey: u32,
    pub reserved: u32,
}

/// `ib_uverbs_send_wr.wr.atomic`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_send_wr_atomic {
    pub remote_addr: u64,
    pub compare_add: u64,
    pub swap: u64,
    pub rkey: u32,
    pub reserved: u32,
}

/// `ib_uverbs_send_wr.wr.ud`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_send_wr_ud {
    pub ah: u32,
    pub remote_qpn: u32,
    pub remote_qkey: u32,
    pub reserved: u32,
}

/// `ib_uverbs_send_wr.wr`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union ib_uverbs_send_wr_wr {
    pub rdma: ib_uverbs_send_wr_rdma,
    pub atomic: ib_uverbs_send_wr_atomic,
    pub ud: ib_uverbs_send_wr_ud,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ib_uverbs_send_wr {
    pub wr_id: u64,
    pub num_sge: u32,
    pub opcode: u32,
    pub send_flags: u32,
    pub ex: ib_uverbs_send_wr_ex,
    pub wr: ib_uverbs_send_wr_wr,
}

// Flow specs: in C the header sits in an anonymous union together with an
// untagged copy of its `type`/`size`/`reserved` fields; here it is the
// field `hdr` (same bytes).

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_spec_eth {
    pub hdr: ib_uverbs_flow_spec_hdr,
    pub val: ib_uverbs_flow_eth_filter,
    pub mask: ib_uverbs_flow_eth_filter,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_spec_ipv4 {
    pub hdr: ib_uverbs_flow_spec_hdr,
    pub val: ib_uverbs_flow_ipv4_filter,
    pub mask: ib_uverbs_flow_ipv4_filter,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_spec_tcp_udp {
    pub hdr: ib_uverbs_flow_spec_hdr,
    pub val: ib_uverbs_flow_tcp_udp_filter,
    pub mask: ib_uverbs_flow_tcp_udp_filter,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_spec_ipv6 {
    pub hdr: ib_uverbs_flow_spec_hdr,
    pub val: ib_uverbs_flow_ipv6_filter,
    pub mask: ib_uverbs_flow_ipv6_filter,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_spec_action_tag {
    pub hdr: ib_uverbs_flow_spec_hdr,
    pub tag_id: u32,
    pub reserved1: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_spec_action_drop {
    pub hdr: ib_uverbs_flow_spec_hdr,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_spec_action_handle {
    pub hdr: ib_uverbs_flow_spec_hdr,
    pub handle: u32,
    pub reserved1: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_spec_action_count {
    pub hdr: ib_uverbs_flow_spec_hdr,
    pub handle: u32,
    pub reserved1: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_spec_tunnel {
    pub hdr: ib_uverbs_flow_spec_hdr,
    pub val: ib_uverbs_flow_tunnel_filter,
    pub mask: ib_uverbs_flow_tunnel_filter,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_spec_esp {
    pub hdr: ib_uverbs_flow_spec_hdr,
    pub val: ib_uverbs_flow_spec_esp_filter,
    pub mask: ib_uverbs_flow_spec_esp_filter,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_spec_gre {
    pub hdr: ib_uverbs_flow_spec_hdr,
    pub val: ib_uverbs_flow_gre_filter,
    pub mask: ib_uverbs_flow_gre_filter,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_flow_spec_mpls {
    pub hdr: ib_uverbs_flow_spec_hdr,
    pub val: ib_uverbs_flow_mpls_filter,
    pub mask: ib_uverbs_flow_mpls_filter,
}

// ---------------------------------------------------------------------------
// rdma-core kern-abi.h: command wrappers

/// Header of an extended write() command: the classic header, then the
/// extension carrying the response pointer and the provider data sizes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ex_hdr {
    pub hdr: ib_uverbs_cmd_hdr,
    pub ex_hdr: ib_uverbs_ex_cmd_hdr,
}

/// Stand-in for "this command has no response" (C's `struct empty {}`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct empty {}

/// A classic write() command wrapper: [`ib_uverbs_cmd_hdr`] then the core
/// struct `Core`; the kernel answers with a `Resp` (possibly [`empty`]).
///
/// # Safety
/// Implementors must be `#[repr(C)]` structs made of exactly the header and
/// the core payload, with `CMD` the matching command number.
pub unsafe trait WriteCmd: Sized {
    const CMD: u32;
    type Core;
    type Resp;
}

/// Write commands whose core struct starts with the `response` pointer the
/// kernel writes its answer to.
pub trait WriteCmdResp: WriteCmd {
    /// Stores `response` in the core struct at `core`.
    ///
    /// # Safety
    /// `core` is valid for writes (its other bytes need not be initialised).
    unsafe fn set_response(core: *mut Self::Core, response: u64);
}

/// An extended write() command wrapper: [`ex_hdr`] then the core struct.
///
/// # Safety
/// As for [`WriteCmd`], with [`ex_hdr`] as the header.
pub unsafe trait ExWriteCmd: Sized {
    const CMD: u32;
    type Core;
    type Resp;
}

macro_rules! write_cmd {
    ($(#[$m:meta])* $name:ident, $cmd:expr, $core:ty, $resp:ty) => {
        $(#[$m])*
        #[repr(C)]
        #[derive(Clone, Copy, Default)]
        pub struct $name {
            pub hdr: ib_uverbs_cmd_hdr,
            pub core_payload: $core,
        }
        // SAFETY: header followed by the core struct, matching command number.
        unsafe impl WriteCmd for $name {
            const CMD: u32 = $cmd;
            type Core = $core;
            type Resp = $resp;
        }
    };
    ($(#[$m:meta])* $name:ident, $cmd:expr, $core:ty, $resp:ty, response) => {
        write_cmd!($(#[$m])* $name, $cmd, $core, $resp);
        impl WriteCmdResp for $name {
            unsafe fn set_response(core: *mut $core, response: u64) {
                // SAFETY: caller guarantee; a raw place write.
                unsafe { (*core).response = response };
            }
        }
    };
}

macro_rules! ex_write_cmd {
    ($name:ident, $cmd:expr, $core:ty, $resp:ty) => {
        #[repr(C)]
        #[derive(Clone, Copy, Default)]
        pub struct $name {
            pub hdr: ex_hdr,
            pub core_payload: $core,
        }
        // SAFETY: extended header followed by the core struct, matching number.
        unsafe impl ExWriteCmd for $name {
            const CMD: u32 = $cmd;
            type Core = $core;
            type Resp = $resp;
        }
    };
}

write_cmd!(
    ibv_alloc_mw,
    IB_USER_VERBS_CMD_ALLOC_MW,
    ib_uverbs_alloc_mw,
    ib_uverbs_alloc_mw_resp,
    response
);
write_cmd!(
    ibv_alloc_pd,
    IB_USER_VERBS_CMD_ALLOC_PD,
    ib_uverbs_alloc_pd,
    ib_uverbs_alloc_pd_resp,
    response
);
write_cmd!(
    ibv_attach_mcast,
    IB_USER_VERBS_CMD_ATTACH_MCAST,
    ib_uverbs_attach_mcast,
    empty
);
write_cmd!(
    ibv_close_xrcd,
    IB_USER_VERBS_CMD_CLOSE_XRCD,
    ib_uverbs_close_xrcd,
    empty
);
write_cmd!(
    ibv_create_ah,
    IB_USER_VERBS_CMD_CREATE_AH,
    ib_uverbs_create_ah,
    ib_uverbs_create_ah_resp,
    response
);
write_cmd!(
    ibv_create_comp_channel,
    IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL,
    ib_uverbs_create_comp_channel,
    ib_uverbs_create_comp_channel_resp,
    response
);
write_cmd!(
    ibv_create_cq,
    IB_USER_VERBS_CMD_CREATE_CQ,
    ib_uverbs_create_cq,
    ib_uverbs_create_cq_resp,
    response
);
write_cmd!(
    ibv_create_qp,
    IB_USER_VERBS_CMD_CREATE_QP,
    ib_uverbs_create_qp,
    ib_uverbs_create_qp_resp,
    response
);
write_cmd!(
    ibv_create_srq,
    IB_USER_VERBS_CMD_CREATE_SRQ,
    ib_uverbs_create_srq,
    ib_uverbs_create_srq_resp,
    response
);
write_cmd!(
    ibv_create_xsrq,
    IB_USER_VERBS_CMD_CREATE_XSRQ,
    ib_uverbs_create_xsrq,
    ib_uverbs_create_srq_resp,
    response
);
write_cmd!(
    ibv_dealloc_mw,
    IB_USER_VERBS_CMD_DEALLOC_MW,
    ib_uverbs_dealloc_mw,
    empty
);
write_cmd!(
    ibv_dealloc_pd,
    IB_USER_VERBS_CMD_DEALLOC_PD,
    ib_uverbs_dealloc_pd,
    empty
);
write_cmd!(
    ibv_dereg_mr,
    IB_USER_VERBS_CMD_DEREG_MR,
    ib_uverbs_dereg_mr,
    empty
);
write_cmd!(
    ibv_destroy_ah,
    IB_USER_VERBS_CMD_DESTROY_AH,
    ib_uverbs_destroy_ah,
    empty
);
write_cmd!(
    ibv_destroy_cq,
    IB_USER_VERBS_CMD_DESTROY_CQ,
    ib_uverbs_destroy_cq,
    ib_uverbs_destroy_cq_resp,
    response
);
write_cmd!(
    ibv_destroy_qp,
    IB_USER_VERBS_CMD_DESTROY_QP,
    ib_uverbs_destroy_qp,
    ib_uverbs_destroy_qp_resp,
    response
);
write_cmd!(
    ibv_destroy_srq,
    IB_USER_VERBS_CMD_DESTROY_SRQ,
    ib_uverbs_destroy_srq,
    ib_uverbs_destroy_srq_resp,
    response
);
write_cmd!(
    ibv_detach_mcast,
    IB_USER_VERBS_CMD_DETACH_MCAST,
    ib_uverbs_detach_mcast,
    empty
);
write_cmd!(
    ibv_get_context,
    IB_USER_VERBS_CMD_GET_CONTEXT,
    ib_uverbs_get_context,
    ib_uverbs_get_context_resp,
    response
);
write_cmd!(
    ibv_modify_qp,
    IB_USER_VERBS_CMD_MODIFY_QP,
    ib_uverbs_modify_qp,
    empty
);
write_cmd!(
    ibv_modify_srq,
    IB_USER_VERBS_CMD_MODIFY_SRQ,
    ib_uverbs_modify_srq,
    empty
);
write_cmd!(
    ibv_open_qp,
    IB_USER_VERBS_CMD_OPEN_QP,
    ib_uverbs_open_qp,
    ib_uverbs_create_qp_resp,
    response
);
write_cmd!(
    ibv_open_xrcd,
    IB_USER_VERBS_CMD_OPEN_XRCD,
    ib_uverbs_open_xrcd,
    ib_uverbs_open_xrcd_resp,
    response
);
write_cmd!(
    ibv_poll_cq,
    IB_USER_VERBS_CMD_POLL_CQ,
    ib_uverbs_poll_cq,
    ib_uverbs_poll_cq_resp,
    response
);
write_cmd!(
    ibv_post_recv,
    IB_USER_VERBS_CMD_POST_RECV,
    ib_uverbs_post_recv,
    ib_uverbs_post_recv_resp,
    response
);
write_cmd!(
    ibv_post_send,
    IB_USER_VERBS_CMD_POST_SEND,
    ib_uverbs_post_send,
    ib_uverbs_post_send_resp,
    response
);
write_cmd!(
    ibv_post_srq_recv,
    IB_USER_VERBS_CMD_POST_SRQ_RECV,
    ib_uverbs_post_srq_recv,
    ib_uverbs_post_srq_recv_resp,
    response
);
write_cmd!(
    ibv_query_device,
    IB_USER_VERBS_CMD_QUERY_DEVICE,
    ib_uverbs_query_device,
    ib_uverbs_query_device_resp,
    response
);
write_cmd!(
    ibv_query_port,
    IB_USER_VERBS_CMD_QUERY_PORT,
    ib_uverbs_query_port,
    ib_uverbs_query_port_resp,
    response
);
write_cmd!(
    ibv_query_qp,
    IB_USER_VERBS_CMD_QUERY_QP,
    ib_uverbs_query_qp,
    ib_uverbs_query_qp_resp,
    response
);
write_cmd!(
    ibv_query_srq,
    IB_USER_VERBS_CMD_QUERY_SRQ,
    ib_uverbs_query_srq,
    ib_uverbs_query_srq_resp,
    response
);
write_cmd!(
    ibv_reg_mr,
    IB_USER_VERBS_CMD_REG_MR,
    ib_uverbs_reg_mr,
    ib_uverbs_reg_mr_resp,
    response
);
write_cmd!(
    ibv_req_notify_cq,
    IB_USER_VERBS_CMD_REQ_NOTIFY_CQ,
    ib_uverbs_req_notify_cq,
    empty
);
write_cmd!(
    ibv_rereg_mr,
    IB_USER_VERBS_CMD_REREG_MR,
    ib_uverbs_rereg_mr,
    ib_uverbs_rereg_mr_resp,
    response
);
write_cmd!(
    ibv_resize_cq,
    IB_USER_VERBS_CMD_RESIZE_CQ,
    ib_uverbs_resize_cq,
    ib_uverbs_resize_cq_resp,
    response
);

ex_write_cmd!(
    ibv_create_cq_ex,
    IB_USER_VERBS_EX_CMD_CREATE_CQ,
    ib_uverbs_ex_create_cq,
    ib_uverbs_ex_create_cq_resp
);
ex_write_cmd!(
    ibv_create_flow,
    IB_USER_VERBS_EX_CMD_CREATE_FLOW,
    ib_uverbs_create_flow,
    ib_uverbs_create_flow_resp
);
ex_write_cmd!(
    ibv_create_qp_ex,
    IB_USER_VERBS_EX_CMD_CREATE_QP,
    ib_uverbs_ex_create_qp,
    ib_uverbs_ex_create_qp_resp
);
ex_write_cmd!(
    ibv_create_rwq_ind_table,
    IB_USER_VERBS_EX_CMD_CREATE_RWQ_IND_TBL,
    ib_uverbs_ex_create_rwq_ind_table,
    ib_uverbs_ex_create_rwq_ind_table_resp
);
ex_write_cmd!(
    ibv_create_wq,
    IB_USER_VERBS_EX_CMD_CREATE_WQ,
    ib_uverbs_ex_create_wq,
    ib_uverbs_ex_create_wq_resp
);
ex_write_cmd!(
    ibv_destroy_flow,
    IB_USER_VERBS_EX_CMD_DESTROY_FLOW,
    ib_uverbs_destroy_flow,
    empty
);
ex_write_cmd!(
    ibv_destroy_rwq_ind_table,
    IB_USER_VERBS_EX_CMD_DESTROY_RWQ_IND_TBL,
    ib_uverbs_ex_destroy_rwq_ind_table,
    empty
);
ex_write_cmd!(
    ibv_destroy_wq,
    IB_USER_VERBS_EX_CMD_DESTROY_WQ,
    ib_uverbs_ex_destroy_wq,
    ib_uverbs_ex_destroy_wq_resp
);
ex_write_cmd!(
    ibv_modify_cq,
    IB_USER_VERBS_EX_CMD_MODIFY_CQ,
    ib_uverbs_ex_modify_cq,
    empty
);
ex_write_cmd!(
    ibv_modify_qp_ex,
    IB_USER_VERBS_EX_CMD_MODIFY_QP,
    ib_uverbs_ex_modify_qp,
    ib_uverbs_ex_modify_qp_resp
);
ex_write_cmd!(
    ibv_modify_wq,
    IB_USER_VERBS_EX_CMD_MODIFY_WQ,
    ib_uverbs_ex_modify_wq,
    empty
);
ex_write_cmd!(
    ibv_query_device_ex,
    IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
    ib_uverbs_ex_query_device,
    ib_uverbs_ex_query_device_resp
);

// Old kernel ABIs (uverbs ABI 3..5).

/// MODIFY_SRQ payload of uverbs ABI 3.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_modify_srq_v3 {
    pub srq_handle: u32,
    pub attr_mask: u32,
    pub max_wr: u32,
    pub max_sge: u32,
    pub srq_limit: u32,
    pub reserved: u32,
}

/// CREATE_QP response of uverbs ABI 3.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ibv_create_qp_resp_v3 {
    pub qp_handle: u32,
    pub qpn: u32,
}

/// CREATE_QP response of uverbs ABI 4.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ibv_create_qp_resp_v4 {
    pub qp_handle: u32,
    pub qpn: u32,
    pub max_send_wr: u32,
    pub max_recv_wr: u32,
    pub max_send_sge: u32,
    pub max_recv_sge: u32,
    pub max_inline_data: u32,
}

/// CREATE_SRQ response of uverbs ABI 5 and older.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ibv_create_srq_resp_v5 {
    pub srq_handle: u32,
}

write_cmd!(
    ibv_modify_srq_v3,
    IB_USER_VERBS_CMD_MODIFY_SRQ_V3,
    ib_uverbs_modify_srq_v3,
    empty
);
write_cmd!(
    ibv_create_srq_v5,
    IB_USER_VERBS_CMD_CREATE_SRQ_V5,
    ib_uverbs_create_srq,
    ibv_create_srq_resp_v5,
    response
);
write_cmd!(
    ibv_create_qp_v4,
    IB_USER_VERBS_CMD_CREATE_QP_V4,
    ib_uverbs_create_qp,
    ibv_create_qp_resp_v4,
    response
);
write_cmd!(
    ibv_create_qp_v3,
    IB_USER_VERBS_CMD_CREATE_QP_V3,
    ib_uverbs_create_qp,
    ibv_create_qp_resp_v3,
    response
);

// kern-abi.h's flow specs, as the write() CREATE_FLOW command carries them.

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ibv_kern_ipv4_filter {
    pub src_ip: u32,
    pub dst_ip: u32,
}

/// The original IPv4 spec (without the extended filter fields).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ibv_kern_spec_ipv4 {
    pub type_: u32,
    pub size: u16,
    pub reserved: u16,
    pub val: ibv_kern_ipv4_filter,
    pub mask: ibv_kern_ipv4_filter,
}

/// Any one flow spec (C: a struct wrapping an anonymous union; here the
/// union itself, same layout).
#[repr(C)]
#[derive(Clone, Copy)]
pub union ibv_kern_spec {
    pub hdr: ib_uverbs_flow_spec_hdr,
    pub eth: ib_uverbs_flow_spec_eth,
    pub ipv4: ibv_kern_spec_ipv4,
    pub ipv4_ext: ib_uverbs_flow_spec_ipv4,
    pub esp: ib_uverbs_flow_spec_esp,
    pub tcp_udp: ib_uverbs_flow_spec_tcp_udp,
    pub ipv6: ib_uverbs_flow_spec_ipv6,
    pub gre: ib_uverbs_flow_spec_gre,
    pub tunnel: ib_uverbs_flow_spec_tunnel,
    pub mpls: ib_uverbs_flow_spec_mpls,
    pub flow_tag: ib_uverbs_flow_spec_action_tag,
    pub drop: ib_uverbs_flow_spec_action_drop,
    pub handle: ib_uverbs_flow_spec_action_handle,
    pub flow_count: ib_uverbs_flow_spec_action_count,
}

// ---------------------------------------------------------------------------
// rdma-core cmd_ioctl.h

/// One block of ioctl attributes (C: `struct ibv_command_buffer`). The
/// attributes follow the struct directly (`hdr.attrs`); `next_attr ..
/// last_attr` is the room left.
#[repr(C)]
pub struct ibv_command_buffer {
    pub next: *mut ibv_command_buffer,
    pub next_attr: *mut ib_uverbs_attr,
    pub last_attr: *mut ib_uverbs_attr,
    /// Index of the UHW_IN attribute, or `_UHW_NO_INDEX`. Used by the
    /// write() fallback to find the provider's data and the room before it.
    pub uhw_in_idx: u8,
    pub uhw_out_idx: u8,
    /// Size in dwords of the room before the UHW data where the write()
    /// fallback can build the command header and core struct.
    pub uhw_in_headroom_dwords: u8,
    pub uhw_out_headroom_dwords: u8,
    /// C's bit-fields `buffer_error:1, fallback_require_ex:1,
    /// fallback_ioctl_only:1`, in that order from bit 0 (`CMDB_BUFFER_ERROR`... in cmd::ioctl).
    pub bitfields: u8,
    pub hdr: ib_uverbs_ioctl_hdr,
}
