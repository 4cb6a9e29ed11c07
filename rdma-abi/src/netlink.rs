//! Constants of the kernel's RDMA netlink uAPI (`<rdma/rdma_netlink.h>`).
//!
//! NETLINK_RDMA is a netlink protocol of its own, not a generic-netlink
//! family: the 16-bit `nlmsg_type` packs a client number (bits 10..15) and an
//! operation (bits 0..9), see [`RDMA_NL_GET_TYPE`]. The NLDEV client carries
//! its attributes directly after the netlink header, with no family header.
//!
//! Values are the kernel's; they were checked against the installed header
//! with a C probe. Enumerations are plain integer constants (see the crate
//! conventions). Attribute and command numbers are typed `u16` because that is
//! the width of the netlink fields that carry them (`nla_type`,
//! `nlmsg_type`).

/// RDMA netlink clients (the high bits of `nlmsg_type`).
pub type rdma_nl_client = u16;
pub const RDMA_NL_IWCM: rdma_nl_client = 2;
pub const RDMA_NL_RSVD: rdma_nl_client = 3;
/// RDMA local services (path resolution).
pub const RDMA_NL_LS: rdma_nl_client = 4;
/// The RDMA device interface: device discovery, chardevs, resources.
pub const RDMA_NL_NLDEV: rdma_nl_client = 5;
pub const RDMA_NL_NUM_CLIENTS: rdma_nl_client = 6;

/// RDMA netlink multicast groups.
pub const RDMA_NL_GROUP_IWPM: u32 = 2;
pub const RDMA_NL_GROUP_LS: u32 = 3;
pub const RDMA_NL_NUM_GROUPS: u32 = 4;

/// The client encoded in a NETLINK_RDMA message type.
pub const fn RDMA_NL_GET_CLIENT(ty: u16) -> u16 {
    (ty & (((1 << 6) - 1) << 10)) >> 10
}

/// The operation encoded in a NETLINK_RDMA message type.
pub const fn RDMA_NL_GET_OP(ty: u16) -> u16 {
    ty & ((1 << 10) - 1)
}

/// The NETLINK_RDMA message type for `op` of `client`.
pub const fn RDMA_NL_GET_TYPE(client: u16, op: u16) -> u16 {
    (client << 10) + op
}

/// Kernel node types as sent in RDMA_NLDEV_ATTR_DEV_NODE_TYPE. These are not
/// the `IBV_NODE_*` values; libibverbs translates them.
pub type rdma_node_type = u8;
pub const RDMA_NODE_IB_CA: rdma_node_type = 1;
pub const RDMA_NODE_IB_SWITCH: rdma_node_type = 2;
pub const RDMA_NODE_IB_ROUTER: rdma_node_type = 3;
pub const RDMA_NODE_RNIC: rdma_node_type = 4;
pub const RDMA_NODE_USNIC: rdma_node_type = 5;
pub const RDMA_NODE_USNIC_UDP: rdma_node_type = 6;
pub const RDMA_NODE_UNSPECIFIED: rdma_node_type = 7;

/// Commands of the NLDEV client (`enum rdma_nldev_command`).
pub type rdma_nldev_command = u16;
pub const RDMA_NLDEV_CMD_UNSPEC: rdma_nldev_command = 0;
pub const RDMA_NLDEV_CMD_GET: rdma_nldev_command = 1;
pub const RDMA_NLDEV_CMD_SET: rdma_nldev_command = 2;
pub const RDMA_NLDEV_CMD_NEWLINK: rdma_nldev_command = 3;
pub const RDMA_NLDEV_CMD_DELLINK: rdma_nldev_command = 4;
pub const RDMA_NLDEV_CMD_PORT_GET: rdma_nldev_command = 5;
pub const RDMA_NLDEV_CMD_SYS_GET: rdma_nldev_command = 6;
pub const RDMA_NLDEV_CMD_SYS_SET: rdma_nldev_command = 7;
pub const RDMA_NLDEV_CMD_RES_GET: rdma_nldev_command = 9;
pub const RDMA_NLDEV_CMD_RES_QP_GET: rdma_nldev_command = 10;
pub const RDMA_NLDEV_CMD_RES_CM_ID_GET: rdma_nldev_command = 11;
pub const RDMA_NLDEV_CMD_RES_CQ_GET: rdma_nldev_command = 12;
pub const RDMA_NLDEV_CMD_RES_MR_GET: rdma_nldev_command = 13;
pub const RDMA_NLDEV_CMD_RES_PD_GET: rdma_nldev_command = 14;
pub const RDMA_NLDEV_CMD_GET_CHARDEV: rdma_nldev_command = 15;
pub const RDMA_NLDEV_CMD_STAT_SET: rdma_nldev_command = 16;
pub const RDMA_NLDEV_CMD_STAT_GET: rdma_nldev_command = 17;
pub const RDMA_NLDEV_CMD_STAT_DEL: rdma_nldev_command = 18;
pub const RDMA_NLDEV_CMD_RES_QP_GET_RAW: rdma_nldev_command = 19;
pub const RDMA_NLDEV_CMD_RES_CQ_GET_RAW: rdma_nldev_command = 20;
pub const RDMA_NLDEV_CMD_RES_MR_GET_RAW: rdma_nldev_command = 21;
pub const RDMA_NLDEV_CMD_RES_CTX_GET: rdma_nldev_command = 22;
pub const RDMA_NLDEV_CMD_RES_SRQ_GET: rdma_nldev_command = 23;
pub const RDMA_NLDEV_CMD_STAT_GET_STATUS: rdma_nldev_command = 24;
pub const RDMA_NLDEV_NUM_OPS: rdma_nldev_command = 25;

/// How a driver-specific attribute wants to be printed.
pub type rdma_nldev_print_type = u8;
pub const RDMA_NLDEV_PRINT_TYPE_UNSPEC: rdma_nldev_print_type = 0;
pub const RDMA_NLDEV_PRINT_TYPE_HEX: rdma_nldev_print_type = 1;

/// Attributes of the NLDEV client (`enum rdma_nldev_attr`). The order is
/// kernel ABI. The payload types the kernel uses for the ones libibverbs
/// reads: DEV_INDEX u32, DEV_NAME string, PORT_INDEX u32 (the number of ports
/// in a CMD_GET reply), NODE_GUID u64 in host order, DEV_NODE_TYPE u8,
/// CHARDEV_TYPE/CHARDEV_NAME strings, CHARDEV_ABI u64, CHARDEV u64 in the
/// kernel's `huge_encode_dev` form, UVERBS_DRIVER_ID u32, SYS_ATTR_COPY_ON_FORK u8.
pub type rdma_nldev_attr = u16;
pub const RDMA_NLDEV_ATTR_UNSPEC: rdma_nldev_attr = 0;
pub const RDMA_NLDEV_ATTR_PAD: rdma_nldev_attr = 0;
pub const RDMA_NLDEV_ATTR_DEV_INDEX: rdma_nldev_attr = 1;
pub const RDMA_NLDEV_ATTR_DEV_NAME: rdma_nldev_attr = 2;
pub const RDMA_NLDEV_ATTR_PORT_INDEX: rdma_nldev_attr = 3;
pub const RDMA_NLDEV_ATTR_CAP_FLAGS: rdma_nldev_attr = 4;
pub const RDMA_NLDEV_ATTR_FW_VERSION: rdma_nldev_attr = 5;
pub const RDMA_NLDEV_ATTR_NODE_GUID: rdma_nldev_attr = 6;
pub const RDMA_NLDEV_ATTR_SYS_IMAGE_GUID: rdma_nldev_attr = 7;
pub const RDMA_NLDEV_ATTR_SUBNET_PREFIX: rdma_nldev_attr = 8;
pub const RDMA_NLDEV_ATTR_LID: rdma_nldev_attr = 9;
pub const RDMA_NLDEV_ATTR_SM_LID: rdma_nldev_attr = 10;
pub const RDMA_NLDEV_ATTR_LMC: rdma_nldev_attr = 11;
pub const RDMA_NLDEV_ATTR_PORT_STATE: rdma_nldev_attr = 12;
pub const RDMA_NLDEV_ATTR_PORT_PHYS_STATE: rdma_nldev_attr = 13;
pub const RDMA_NLDEV_ATTR_DEV_NODE_TYPE: rdma_nldev_attr = 14;
pub const RDMA_NLDEV_ATTR_RES_SUMMARY: rdma_nldev_attr = 15;
pub const RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY: rdma_nldev_attr = 16;
pub const RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME: rdma_nldev_attr = 17;
pub const RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR: rdma_nldev_attr = 18;
pub const RDMA_NLDEV_ATTR_RES_QP: rdma_nldev_attr = 19;
pub const RDMA_NLDEV_ATTR_RES_QP_ENTRY: rdma_nldev_attr = 20;
pub const RDMA_NLDEV_ATTR_RES_LQPN: rdma_nldev_attr = 21;
pub const RDMA_NLDEV_ATTR_RES_RQPN: rdma_nldev_attr = 22;
pub const RDMA_NLDEV_ATTR_RES_RQ_PSN: rdma_nldev_attr = 23;
pub const RDMA_NLDEV_ATTR_RES_SQ_PSN: rdma_nldev_attr = 24;
pub const RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE: rdma_nldev_attr = 25;
pub const RDMA_NLDEV_ATTR_RES_TYPE: rdma_nldev_attr = 26;
pub const RDMA_NLDEV_ATTR_RES_STATE: rdma_nldev_attr = 27;
pub const RDMA_NLDEV_ATTR_RES_PID: rdma_nldev_attr = 28;
pub const RDMA_NLDEV_ATTR_RES_KERN_NAME: rdma_nldev_attr = 29;
pub const RDMA_NLDEV_ATTR_RES_CM_ID: rdma_nldev_attr = 30;
pub const RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY: rdma_nldev_attr = 31;
pub const RDMA_NLDEV_ATTR_RES_PS: rdma_nldev_attr = 32;
pub const RDMA_NLDEV_ATTR_RES_SRC_ADDR: rdma_nldev_attr = 33;
pub const RDMA_NLDEV_ATTR_RES_DST_ADDR: rdma_nldev_attr = 34;
pub const RDMA_NLDEV_ATTR_RES_CQ: rdma_nldev_attr = 35;
pub const RDMA_NLDEV_ATTR_RES_CQ_ENTRY: rdma_nldev_attr = 36;
pub const RDMA_NLDEV_ATTR_RES_CQE: rdma_nldev_attr = 37;
pub const RDMA_NLDEV_ATTR_RES_USECNT: rdma_nldev_attr = 38;
pub const RDMA_NLDEV_ATTR_RES_POLL_CTX: rdma_nldev_attr = 39;
pub const RDMA_NLDEV_ATTR_RES_MR: rdma_nldev_attr = 40;
pub const RDMA_NLDEV_ATTR_RES_MR_ENTRY: rdma_nldev_attr = 41;
pub const RDMA_NLDEV_ATTR_RES_RKEY: rdma_nldev_attr = 42;
pub const RDMA_NLDEV_ATTR_RES_LKEY: rdma_nldev_attr = 43;
pub const RDMA_NLDEV_ATTR_RES_IOVA: rdma_nldev_attr = 44;
pub const RDMA_NLDEV_ATTR_RES_MRLEN: rdma_nldev_attr = 45;
pub const RDMA_NLDEV_ATTR_RES_PD: rdma_nldev_attr = 46;
pub const RDMA_NLDEV_ATTR_RES_PD_ENTRY: rdma_nldev_attr = 47;
pub const RDMA_NLDEV_ATTR_RES_LOCAL_DMA_LKEY: rdma_nldev_attr = 48;
pub const RDMA_NLDEV_ATTR_RES_UNSAFE_GLOBAL_RKEY: rdma_nldev_attr = 49;
pub const RDMA_NLDEV_ATTR_NDEV_INDEX: rdma_nldev_attr = 50;
pub const RDMA_NLDEV_ATTR_NDEV_NAME: rdma_nldev_attr = 51;
pub const RDMA_NLDEV_ATTR_DRIVER: rdma_nldev_attr = 52;
pub const RDMA_NLDEV_ATTR_DRIVER_ENTRY: rdma_nldev_attr = 53;
pub const RDMA_NLDEV_ATTR_DRIVER_STRING: rdma_nldev_attr = 54;
pub const RDMA_NLDEV_ATTR_DRIVER_PRINT_TYPE: rdma_nldev_attr = 55;
pub const RDMA_NLDEV_ATTR_DRIVER_S32: rdma_nldev_attr = 56;
pub const RDMA_NLDEV_ATTR_DRIVER_U32: rdma_nldev_attr = 57;
pub const RDMA_NLDEV_ATTR_DRIVER_S64: rdma_nldev_attr = 58;
pub const RDMA_NLDEV_ATTR_DRIVER_U64: rdma_nldev_attr = 59;
pub const RDMA_NLDEV_ATTR_RES_PDN: rdma_nldev_attr = 60;
pub const RDMA_NLDEV_ATTR_RES_CQN: rdma_nldev_attr = 61;
pub const RDMA_NLDEV_ATTR_RES_MRN: rdma_nldev_attr = 62;
pub const RDMA_NLDEV_ATTR_RES_CM_IDN: rdma_nldev_attr = 63;
pub const RDMA_NLDEV_ATTR_RES_CTXN: rdma_nldev_attr = 64;
pub const RDMA_NLDEV_ATTR_LINK_TYPE: rdma_nldev_attr = 65;
pub const RDMA_NLDEV_SYS_ATTR_NETNS_MODE: rdma_nldev_attr = 66;
pub const RDMA_NLDEV_ATTR_DEV_PROTOCOL: rdma_nldev_attr = 67;
pub const RDMA_NLDEV_NET_NS_FD: rdma_nldev_attr = 68;
pub const RDMA_NLDEV_ATTR_CHARDEV_TYPE: rdma_nldev_attr = 69;
pub const RDMA_NLDEV_ATTR_CHARDEV_NAME: rdma_nldev_attr = 70;
pub const RDMA_NLDEV_ATTR_CHARDEV_ABI: rdma_nldev_attr = 71;
pub const RDMA_NLDEV_ATTR_CHARDEV: rdma_nldev_attr = 72;
pub const RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID: rdma_nldev_attr = 73;
pub const RDMA_NLDEV_ATTR_STAT_MODE: rdma_nldev_attr = 74;
pub const RDMA_NLDEV_ATTR_STAT_RES: rdma_nldev_attr = 75;
pub const RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK: rdma_nldev_attr = 76;
pub const RDMA_NLDEV_ATTR_STAT_COUNTER: rdma_nldev_attr = 77;
pub const RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY: rdma_nldev_attr = 78;
pub const RDMA_NLDEV_ATTR_STAT_COUNTER_ID: rdma_nldev_attr = 79;
pub const RDMA_NLDEV_ATTR_STAT_HWCOUNTERS: rdma_nldev_attr = 80;
pub const RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY: rdma_nldev_attr = 81;
pub const RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME: rdma_nldev_attr = 82;
pub const RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE: rdma_nldev_attr = 83;
pub const RDMA_NLDEV_ATTR_DEV_DIM: rdma_nldev_attr = 84;
pub const RDMA_NLDEV_ATTR_RES_RAW: rdma_nldev_attr = 85;
pub const RDMA_NLDEV_ATTR_RES_CTX: rdma_nldev_attr = 86;
pub const RDMA_NLDEV_ATTR_RES_CTX_ENTRY: rdma_nldev_attr = 87;
pub const RDMA_NLDEV_ATTR_RES_SRQ: rdma_nldev_attr = 88;
pub const RDMA_NLDEV_ATTR_RES_SRQ_ENTRY: rdma_nldev_attr = 89;
pub const RDMA_NLDEV_ATTR_RES_SRQN: rdma_nldev_attr = 90;
pub const RDMA_NLDEV_ATTR_MIN_RANGE: rdma_nldev_attr = 91;
pub const RDMA_NLDEV_ATTR_MAX_RANGE: rdma_nldev_attr = 92;
pub const RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK: rdma_nldev_attr = 93;
pub const RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX: rdma_nldev_attr = 94;
pub const RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC: rdma_nldev_attr = 95;
pub const RDMA_NLDEV_ATTR_MAX: rdma_nldev_attr = 96;

/// Counter binding modes (`enum rdma_nl_counter_mode`).
pub type rdma_nl_counter_mode = u32;
pub const RDMA_COUNTER_MODE_NONE: rdma_nl_counter_mode = 0;
pub const RDMA_COUNTER_MODE_AUTO: rdma_nl_counter_mode = 1;
pub const RDMA_COUNTER_MODE_MANUAL: rdma_nl_counter_mode = 2;
pub const RDMA_COUNTER_MODE_MAX: rdma_nl_counter_mode = 3;

/// Criteria of the automatic counter mode (`enum rdma_nl_counter_mask`).
pub type rdma_nl_counter_mask = u32;
pub const RDMA_COUNTER_MASK_QP_TYPE: rdma_nl_counter_mask = 1;
pub const RDMA_COUNTER_MASK_PID: rdma_nl_counter_mask = 1 << 1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_type_packing() {
        // (5 << 10) + 1 and + 15: the types the kernel expects for the
        // device dump and the chardev query.
        assert_eq!(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET), 0x1401);
        assert_eq!(
            RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET_CHARDEV),
            0x140f
        );
        let t = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SYS_GET);
        assert_eq!(RDMA_NL_GET_CLIENT(t), RDMA_NL_NLDEV);
        assert_eq!(RDMA_NL_GET_OP(t), RDMA_NLDEV_CMD_SYS_GET);
    }
}
