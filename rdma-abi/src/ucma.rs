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
//! checks (`assert_cmd!`).
//!
//! Kernel `__kernel_sockaddr_storage` is `libc::sockaddr_storage` (128
//! bytes, 8-aligned) and the kernel's `struct sockaddr_in6` is
//! `libc::sockaddr_in6`. Numbers in the assertions at the end come from
//! `abi-tests/probe/ucma_abi.c` (run `abi-tests/probe/run-rdmacm.sh`).
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

macro_rules! assert_cmd {
    ($body:ident, $size:expr) => {
        const _: () = assert!(core::mem::size_of::<ucma_cmd<$body>>() == $size);
    };
}
macro_rules! assert_layout_size {
    ($ty:ident, $size:expr) => {
        const _: () = assert!(core::mem::size_of::<$ty>() == $size);
    };
}
const _: () = assert!(core::mem::size_of::<ucma_query_path_buf>() == 8 + 6 * 72);

use crate::{assert_consts, assert_layout};
// BEGIN PROBE ASSERTIONS
assert_layout!(rdma_ucm_cmd_hdr, size = 8, align = 4, cmd = 0, in_ = 4, out = 6);
assert_layout!(rdma_ucm_create_id, size = 24, align = 8, uid = 0, response = 8, ps = 16, qp_type = 18, reserved = 19);
assert_layout!(rdma_ucm_create_id_resp, size = 4, align = 4, id = 0);
assert_layout!(rdma_ucm_destroy_id, size = 16, align = 8, response = 0, id = 8, reserved = 12);
assert_layout!(rdma_ucm_destroy_id_resp, size = 4, align = 4, events_reported = 0);
assert_layout!(rdma_ucm_bind_ip, size = 40, align = 8, response = 0, addr = 8, id = 36);
assert_layout!(rdma_ucm_bind, size = 136, align = 8, id = 0, addr_size = 4, reserved = 6, addr = 8);
assert_layout!(rdma_ucm_resolve_ip, size = 64, align = 4, src_addr = 0, dst_addr = 28, id = 56, timeout_ms = 60);
assert_layout!(rdma_ucm_resolve_addr, size = 272, align = 8, id = 0, timeout_ms = 4, src_size = 8, dst_size = 10, reserved = 12, src_addr = 16, dst_addr = 144);
assert_layout!(rdma_ucm_resolve_route, size = 8, align = 4, id = 0, timeout_ms = 4);
assert_layout!(rdma_ucm_query, size = 16, align = 8, response = 0, id = 8, option = 12);
assert_layout!(rdma_ucm_query_route_resp, size = 208, align = 8, node_guid = 0, ib_route = 8, src_addr = 136, dst_addr = 164, num_paths = 192, port_num = 196, reserved = 197, ibdev_index = 200, reserved1 = 204);
assert_layout!(rdma_ucm_query_addr_resp, size = 280, align = 8, node_guid = 0, port_num = 8, reserved = 9, pkey = 10, src_size = 12, dst_size = 14, src_addr = 16, dst_addr = 144, ibdev_index = 272, reserved1 = 276);
assert_layout!(rdma_ucm_query_path_resp, size = 8, align = 4, num_paths = 0, reserved = 4, path_data = 8);
assert_layout!(rdma_ucm_conn_param, size = 272, align = 4, qp_num = 0, qkey = 4, private_data = 8, private_data_len = 264, srq = 265, responder_resources = 266, initiator_depth = 267, flow_control = 268, retry_count = 269, rnr_retry_count = 270, valid = 271);
assert_layout!(rdma_ucm_ud_param, size = 304, align = 4, qp_num = 0, qkey = 4, ah_attr = 8, private_data = 40, private_data_len = 296, reserved = 297);
assert_layout!(rdma_ucm_ece, size = 8, align = 4, vendor_id = 0, attr_mod = 4);
assert_layout!(rdma_ucm_connect, size = 288, align = 4, conn_param = 0, id = 272, reserved = 276, ece = 280);
assert_layout!(rdma_ucm_listen, size = 8, align = 4, id = 0, backlog = 4);
assert_layout!(rdma_ucm_accept, size = 296, align = 8, uid = 0, conn_param = 8, id = 280, reserved = 284, ece = 288);
assert_layout!(rdma_ucm_reject, size = 264, align = 4, id = 0, private_data_len = 4, reason = 5, reserved = 6, private_data = 8);
assert_layout!(rdma_ucm_disconnect, size = 4, align = 4, id = 0);
assert_layout!(rdma_ucm_init_qp_attr, size = 16, align = 8, response = 0, id = 8, qp_state = 12);
assert_layout!(rdma_ucm_notify, size = 8, align = 4, id = 0, event = 4);
assert_layout!(rdma_ucm_join_ip_mcast, size = 48, align = 8, response = 0, uid = 8, addr = 16, id = 44);
assert_layout!(rdma_ucm_join_mcast, size = 152, align = 8, response = 0, uid = 8, id = 16, addr_size = 20, join_flags = 22, addr = 24);
assert_layout!(rdma_ucm_get_event, size = 8, align = 8, response = 0);
assert_layout!(rdma_ucm_event_resp, size = 336, align = 8, uid = 0, id = 8, event = 12, status = 16, param = 20, reserved = 324, ece = 328);
assert_layout!(rdma_ucm_set_option, size = 24, align = 8, optval = 0, id = 8, level = 12, optname = 16, optlen = 20);
assert_layout!(rdma_ucm_migrate_id, size = 16, align = 8, response = 0, id = 8, fd = 12);
assert_layout!(rdma_ucm_migrate_resp, size = 4, align = 4, events_reported = 0);
assert_cmd!(rdma_ucm_create_id, 32);
assert_cmd!(rdma_ucm_destroy_id, 24);
assert_cmd!(rdma_ucm_bind_ip, 48);
assert_cmd!(rdma_ucm_bind, 144);
assert_cmd!(rdma_ucm_resolve_ip, 72);
assert_cmd!(rdma_ucm_resolve_addr, 280);
assert_cmd!(rdma_ucm_resolve_route, 16);
assert_cmd!(rdma_ucm_query, 24);
assert_cmd!(rdma_ucm_connect, 296);
assert_cmd!(rdma_ucm_listen, 16);
assert_cmd!(rdma_ucm_accept, 304);
assert_cmd!(rdma_ucm_reject, 272);
assert_cmd!(rdma_ucm_disconnect, 12);
assert_cmd!(rdma_ucm_init_qp_attr, 24);
assert_cmd!(rdma_ucm_notify, 16);
assert_cmd!(rdma_ucm_join_ip_mcast, 56);
assert_cmd!(rdma_ucm_join_mcast, 160);
assert_cmd!(rdma_ucm_get_event, 16);
assert_cmd!(rdma_ucm_set_option, 32);
assert_cmd!(rdma_ucm_migrate_id, 24);
assert_layout_size!(rdma_ucm_event_resp, 336);
assert_consts!(RDMA_USER_CM_ABI_VERSION = 4, RDMA_MAX_PRIVATE_DATA = 256, RDMA_USER_CM_MIN_ABI_VERSION = 3, RDMA_USER_CM_MAX_ABI_VERSION = 4, RDMA_USER_CM_CMD_CREATE_ID = 0, RDMA_USER_CM_CMD_JOIN_MCAST = 22, RDMA_USER_CM_CMD_QUERY = 19, RDMA_USER_CM_CMD_GET_EVENT = 12, RDMA_USER_CM_QUERY_ADDR = 0, RDMA_USER_CM_QUERY_PATH = 1, RDMA_USER_CM_QUERY_GID = 2);
// END PROBE ASSERTIONS
