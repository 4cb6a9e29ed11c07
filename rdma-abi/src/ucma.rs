//! The kernel's RDMA CM user ABI (`<rdma/rdma_user_cm.h>`): the commands
//! librdmacm writes to `/dev/infiniband/rdma_cm` and the responses the
//! kernel copies back.
//!
//! Every command is `write(fd, &cmd, sizeof cmd)` of an 8-byte
//! [`rdma_ucm_cmd_hdr`] followed by the command's body. The header's `in`
//! (Rust: `in_`) is the body's size and `out` the size of the response
//! buffer whose address sits in the body's `response` field. [`ucma_cmd`]
//! is that pair; librdmacm's own `ucma_abi_*` structs
//! (`<rdma/rdma_cma_abi.h>`) have exactly the same sizes, which the probe
//! checks.
//!
//! Kernel `__kernel_sockaddr_storage` is `libc::sockaddr_storage` (128
//! bytes, 8-aligned) and the kernel's `struct sockaddr_in6` is
//! `libc::sockaddr_in6`. The layouts are checked in `src/layout/ucma.rs`,
//! with numbers from `abi-tests/probe/ucma_abi.c` (run
//! `abi-tests/probe/run-rdmacm.sh`).
#![allow(non_camel_case_types)]

use crate::kern::{ib_uverbs_ah_attr, ib_uverbs_qp_attr};
use crate::verbs::{ib_path_rec_data, ib_user_path_rec, ibv_path_data};
use libc::{sockaddr_in6, sockaddr_storage};

pub type __kernel_sockaddr_storage = sockaddr_storage;

/// The kernel's current ABI version (header constant).
pub const RDMA_USER_CM_ABI_VERSION: u32 = 4;
/// Oldest ABI version librdmacm accepts.
pub const RDMA_USER_CM_MIN_ABI_VERSION: i32 = 3;
/// Newest ABI version librdmacm accepts.
pub const RDMA_USER_CM_MAX_ABI_VERSION: i32 = 4;
pub const RDMA_MAX_PRIVATE_DATA: usize = 256;

// Command numbers (header's `cmd`).
pub const RDMA_USER_CM_CMD_CREATE_ID: u32 = 0;
pub const RDMA_USER_CM_CMD_DESTROY_ID: u32 = 1;
pub const RDMA_USER_CM_CMD_BIND_IP: u32 = 2;
pub const RDMA_USER_CM_CMD_RESOLVE_IP: u32 = 3;
pub const RDMA_USER_CM_CMD_RESOLVE_ROUTE: u32 = 4;
pub const RDMA_USER_CM_CMD_QUERY_ROUTE: u32 = 5;
pub const RDMA_USER_CM_CMD_CONNECT: u32 = 6;
pub const RDMA_USER_CM_CMD_LISTEN: u32 = 7;
pub const RDMA_USER_CM_CMD_ACCEPT: u32 = 8;
pub const RDMA_USER_CM_CMD_REJECT: u32 = 9;
pub const RDMA_USER_CM_CMD_DISCONNECT: u32 = 10;
pub const RDMA_USER_CM_CMD_INIT_QP_ATTR: u32 = 11;
pub const RDMA_USER_CM_CMD_GET_EVENT: u32 = 12;
pub const RDMA_USER_CM_CMD_GET_OPTION: u32 = 13;
pub const RDMA_USER_CM_CMD_SET_OPTION: u32 = 14;
pub const RDMA_USER_CM_CMD_NOTIFY: u32 = 15;
pub const RDMA_USER_CM_CMD_JOIN_IP_MCAST: u32 = 16;
pub const RDMA_USER_CM_CMD_LEAVE_MCAST: u32 = 17;
pub const RDMA_USER_CM_CMD_MIGRATE_ID: u32 = 18;
pub const RDMA_USER_CM_CMD_QUERY: u32 = 19;
pub const RDMA_USER_CM_CMD_BIND: u32 = 20;
pub const RDMA_USER_CM_CMD_RESOLVE_ADDR: u32 = 21;
pub const RDMA_USER_CM_CMD_JOIN_MCAST: u32 = 22;

// `rdma_ucm_query::option` values.
pub const RDMA_USER_CM_QUERY_ADDR: u32 = 0;
pub const RDMA_USER_CM_QUERY_PATH: u32 = 1;
pub const RDMA_USER_CM_QUERY_GID: u32 = 2;

#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct rdma_ucm_cmd_hdr {
    pub cmd: u32,
    /// C: `in`. Size of the body that follows the header.
    pub in_: u16,
    /// Size of the response buffer.
    pub out: u16,
}

/// A command as written to the rdma_cm device: header, then body.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_cmd<T: Copy> {
    pub hdr: rdma_ucm_cmd_hdr,
    pub body: T,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_create_id {
    pub uid: u64,
    pub response: u64,
    pub ps: u16,
    pub qp_type: u8,
    pub reserved: [u8; 5],
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct rdma_ucm_create_id_resp {
    pub id: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_destroy_id {
    pub response: u64,
    pub id: u32,
    pub reserved: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct rdma_ucm_destroy_id_resp {
    pub events_reported: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_bind_ip {
    pub response: u64,
    pub addr: sockaddr_in6,
    pub id: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_bind {
    pub id: u32,
    pub addr_size: u16,
    pub reserved: u16,
    pub addr: __kernel_sockaddr_storage,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_resolve_ip {
    pub src_addr: sockaddr_in6,
    pub dst_addr: sockaddr_in6,
    pub id: u32,
    pub timeout_ms: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_resolve_addr {
    pub id: u32,
    pub timeout_ms: u32,
    pub src_size: u16,
    pub dst_size: u16,
    pub reserved: u32,
    pub src_addr: __kernel_sockaddr_storage,
    pub dst_addr: __kernel_sockaddr_storage,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_resolve_route {
    pub id: u32,
    pub timeout_ms: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_query {
    pub response: u64,
    pub id: u32,
    pub option: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_query_route_resp {
    /// Big-endian, as the device's node GUID.
    pub node_guid: u64,
    pub ib_route: [ib_user_path_rec; 2],
    pub src_addr: sockaddr_in6,
    pub dst_addr: sockaddr_in6,
    pub num_paths: u32,
    pub port_num: u8,
    pub reserved: [u8; 3],
    /// Newer kernels only; older ones leave what the caller put here.
    pub ibdev_index: u32,
    pub reserved1: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_query_addr_resp {
    /// Big-endian.
    pub node_guid: u64,
    pub port_num: u8,
    pub reserved: u8,
    /// Big-endian.
    pub pkey: u16,
    pub src_size: u16,
    pub dst_size: u16,
    pub src_addr: __kernel_sockaddr_storage,
    pub dst_addr: __kernel_sockaddr_storage,
    /// Newer kernels only; older ones leave what the caller put here.
    pub ibdev_index: u32,
    pub reserved1: u32,
}

/// Header of the QUERY_PATH response; `num_paths` path records follow.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_query_path_resp {
    pub num_paths: u32,
    pub reserved: u32,
    pub path_data: [ib_path_rec_data; 0],
}

/// The paths a QUERY_PATH response buffer has room for.
pub const UCMA_QUERY_PATHS: usize = 6;

/// The QUERY_PATH response buffer librdmacm hands the kernel: room for six
/// paths (`ibv_path_data` has the layout of the kernel's `ib_path_rec_data`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_query_path_buf {
    pub hdr: rdma_ucm_query_path_resp,
    pub path_data: [ibv_path_data; UCMA_QUERY_PATHS],
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_conn_param {
    pub qp_num: u32,
    pub qkey: u32,
    pub private_data: [u8; RDMA_MAX_PRIVATE_DATA],
    pub private_data_len: u8,
    pub srq: u8,
    pub responder_resources: u8,
    pub initiator_depth: u8,
    pub flow_control: u8,
    pub retry_count: u8,
    pub rnr_retry_count: u8,
    pub valid: u8,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_ud_param {
    pub qp_num: u32,
    pub qkey: u32,
    pub ah_attr: ib_uverbs_ah_attr,
    pub private_data: [u8; RDMA_MAX_PRIVATE_DATA],
    pub private_data_len: u8,
    pub reserved: [u8; 7],
}

#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct rdma_ucm_ece {
    pub vendor_id: u32,
    pub attr_mod: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_connect {
    pub conn_param: rdma_ucm_conn_param,
    pub id: u32,
    pub reserved: u32,
    pub ece: rdma_ucm_ece,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_listen {
    pub id: u32,
    pub backlog: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_accept {
    pub uid: u64,
    pub conn_param: rdma_ucm_conn_param,
    pub id: u32,
    pub reserved: u32,
    pub ece: rdma_ucm_ece,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_reject {
    pub id: u32,
    pub private_data_len: u8,
    pub reason: u8,
    pub reserved: [u8; 2],
    pub private_data: [u8; RDMA_MAX_PRIVATE_DATA],
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_disconnect {
    pub id: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_init_qp_attr {
    pub response: u64,
    pub id: u32,
    pub qp_state: u32,
}

/// INIT_QP_ATTR's response is the kernel's uverbs QP attribute struct.
pub type rdma_ucm_init_qp_attr_resp = ib_uverbs_qp_attr;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_notify {
    pub id: u32,
    pub event: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_join_ip_mcast {
    pub response: u64,
    pub uid: u64,
    pub addr: sockaddr_in6,
    pub id: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_join_mcast {
    pub response: u64,
    pub uid: u64,
    pub id: u32,
    pub addr_size: u16,
    pub join_flags: u16,
    pub addr: __kernel_sockaddr_storage,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_get_event {
    pub response: u64,
}

/// C's anonymous `param` union of `rdma_ucm_event_resp`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union rdma_ucm_event_resp_param {
    pub conn: rdma_ucm_conn_param,
    pub ud: rdma_ucm_ud_param,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_event_resp {
    pub uid: u64,
    pub id: u32,
    pub event: u32,
    pub status: u32,
    pub param: rdma_ucm_event_resp_param,
    pub reserved: u32,
    pub ece: rdma_ucm_ece,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_set_option {
    pub optval: u64,
    pub id: u32,
    pub level: u32,
    pub optname: u32,
    pub optlen: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_migrate_id {
    pub response: u64,
    pub id: u32,
    pub fd: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct rdma_ucm_migrate_resp {
    pub events_reported: u32,
}


crate::zeroable!(
    rdma_ucm_cmd_hdr,
    rdma_ucm_create_id,
    rdma_ucm_create_id_resp,
    rdma_ucm_destroy_id,
    rdma_ucm_destroy_id_resp,
    rdma_ucm_bind_ip,
    rdma_ucm_bind,
    rdma_ucm_resolve_ip,
    rdma_ucm_resolve_addr,
    rdma_ucm_resolve_route,
    rdma_ucm_query,
    rdma_ucm_query_route_resp,
    rdma_ucm_query_addr_resp,
    rdma_ucm_query_path_resp,
    ucma_query_path_buf,
    rdma_ucm_conn_param,
    rdma_ucm_ud_param,
    rdma_ucm_ece,
    rdma_ucm_connect,
    rdma_ucm_listen,
    rdma_ucm_accept,
    rdma_ucm_reject,
    rdma_ucm_disconnect,
    rdma_ucm_init_qp_attr,
    rdma_ucm_notify,
    rdma_ucm_join_ip_mcast,
    rdma_ucm_join_mcast,
    rdma_ucm_get_event,
    rdma_ucm_event_resp_param,
    rdma_ucm_event_resp,
    rdma_ucm_set_option,
    rdma_ucm_migrate_id,
    rdma_ucm_migrate_resp,
);
