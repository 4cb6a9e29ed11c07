//! `<rdma/rdma_cma_abi.h>` as rdma-core 65 installs it: librdmacm's own
//! spelling of the rdma_cm character device's commands, from before the
//! kernel's `<rdma/rdma_user_cm.h>` was exported. Nothing in librdmacm
//! uses it any more; it is installed for applications that still include
//! it.
//!
//! Each `ucma_abi_*` command struct is the kernel's command body with the
//! 8-byte command header spelled out in front of it (`cmd`, `in`, `out`),
//! so `sizeof(struct ucma_abi_bind)` is the size of the whole write; the
//! `*_resp` structs are the kernel's responses. The layouts are therefore
//! those of [`crate::ucma`]'s `ucma_cmd<T>` and responses (and of
//! [`crate::ucma_v65`] for the IB service and write-event commands 65
//! added), under the header's own names.
//!
//! Conventions as in [`crate::verbs`]: C names (the header field `in` is
//! `in_`), anonymous enums' values typed as the field that holds them
//! (`cmd`, `option`, `flags`: `u32`), `#define`s with C's width (`c_int`,
//! array bounds included: arrays cast them to `usize`), big-endian fields as plain integers holding the
//! wire-order bytes. The named unions `param` of `ucma_abi_event_resp` and
//! `ucma_abi_write_cm_event` are [`ucma_abi_event_resp_param`] and
//! [`ucma_abi_write_cm_event_param`]; the flexible arrays at the end of the
//! two query responses are zero-length arrays.
//!
//! Checked in `src/layout/cma_abi.rs` against rdma-core 65's header (run
//! `abi-tests/probe/run-65.sh`).
#![allow(non_camel_case_types)]

use crate::kern::ib_uverbs_ah_attr;
use crate::verbs::{ib_user_path_rec, ibv_path_data};
use core::ffi::c_int;
use libc::{sockaddr_in6, sockaddr_storage};

/// Oldest rdma_cm device ABI the header describes.
pub const RDMA_USER_CM_MIN_ABI_VERSION: c_int = 3;
/// Newest rdma_cm device ABI the header describes.
pub const RDMA_USER_CM_MAX_ABI_VERSION: c_int = 4;
/// Room for private data in the connection parameters and REJECT.
pub const RDMA_MAX_PRIVATE_DATA: c_int = 256;

/// Command numbers, the `cmd` of every command (an anonymous C enum).
pub const UCMA_CMD_CREATE_ID: u32 = 0;
pub const UCMA_CMD_DESTROY_ID: u32 = 1;
pub const UCMA_CMD_BIND_IP: u32 = 2;
pub const UCMA_CMD_RESOLVE_IP: u32 = 3;
pub const UCMA_CMD_RESOLVE_ROUTE: u32 = 4;
pub const UCMA_CMD_QUERY_ROUTE: u32 = 5;
pub const UCMA_CMD_CONNECT: u32 = 6;
pub const UCMA_CMD_LISTEN: u32 = 7;
pub const UCMA_CMD_ACCEPT: u32 = 8;
pub const UCMA_CMD_REJECT: u32 = 9;
pub const UCMA_CMD_DISCONNECT: u32 = 10;
pub const UCMA_CMD_INIT_QP_ATTR: u32 = 11;
pub const UCMA_CMD_GET_EVENT: u32 = 12;
pub const UCMA_CMD_GET_OPTION: u32 = 13;
pub const UCMA_CMD_SET_OPTION: u32 = 14;
pub const UCMA_CMD_NOTIFY: u32 = 15;
pub const UCMA_CMD_JOIN_IP_MCAST: u32 = 16;
pub const UCMA_CMD_LEAVE_MCAST: u32 = 17;
pub const UCMA_CMD_MIGRATE_ID: u32 = 18;
pub const UCMA_CMD_QUERY: u32 = 19;
pub const UCMA_CMD_BIND: u32 = 20;
pub const UCMA_CMD_RESOLVE_ADDR: u32 = 21;
pub const UCMA_CMD_JOIN_MCAST: u32 = 22;
pub const UCMA_CMD_RESOLVE_IB_SERVICE: u32 = 23;
pub const UCMA_CMD_WRITE_CM_EVENT: u32 = 24;

/// The header every command starts with.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_cmd_hdr {
    pub cmd: u32,
    /// C: `in`. Bytes of command after this header.
    pub in_: u16,
    /// Bytes of room at `response`.
    pub out: u16,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_create_id {
    pub cmd: u32,
    pub in_: u16,
    pub out: u16,
    pub uid: u64,
    /// Address of a [`ucma_abi_create_id_resp`].
    pub response: u64,
    pub ps: u16,
    pub qp_type: u8,
    pub reserved: [u8; 5],
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_create_id_resp {
    pub id: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_destroy_id {
    pub cmd: u32,
    pub in_: u16,
    pub out: u16,
    /// Address of a [`ucma_abi_destroy_id_resp`].
    pub response: u64,
    pub id: u32,
    pub reserved: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_destroy_id_resp {
    pub events_reported: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_bind_ip {
    pub cmd: u32,
    pub in_: u16,
    pub out: u16,
    pub response: u64,
    pub addr: sockaddr_in6,
    pub id: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_bind {
    pub cmd: u32,
    pub in_: u16,
    pub out: u16,
    pub id: u32,
    pub addr_size: u16,
    pub reserved: u16,
    pub addr: sockaddr_storage,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_resolve_ip {
    pub cmd: u32,
    pub in_: u16,
    pub out: u16,
    pub src_addr: sockaddr_in6,
    pub dst_addr: sockaddr_in6,
    pub id: u32,
    pub timeout_ms: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_resolve_addr {
    pub cmd: u32,
    pub in_: u16,
    pub out: u16,
    pub id: u32,
    pub timeout_ms: u32,
    pub src_size: u16,
    pub dst_size: u16,
    pub reserved: u32,
    pub src_addr: sockaddr_storage,
    pub dst_addr: sockaddr_storage,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_resolve_route {
    pub cmd: u32,
    pub in_: u16,
    pub out: u16,
    pub id: u32,
    pub timeout_ms: u32,
}

/// What `ucma_abi_query::option` asks for (an anonymous C enum).
pub const UCMA_QUERY_ADDR: u32 = 0;
pub const UCMA_QUERY_PATH: u32 = 1;
pub const UCMA_QUERY_GID: u32 = 2;
pub const UCMA_QUERY_IB_SERVICE: u32 = 3;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_query {
    pub cmd: u32,
    pub in_: u16,
    pub out: u16,
    pub response: u64,
    pub id: u32,
    pub option: u32,
}

/// Answer to QUERY_ROUTE.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_query_route_resp {
    /// Big-endian.
    pub node_guid: u64,
    pub ib_route: [ib_user_path_rec; 2],
    pub src_addr: sockaddr_in6,
    pub dst_addr: sockaddr_in6,
    pub num_paths: u32,
    pub port_num: u8,
    pub reserved: [u8; 3],
    pub ibdev_index: u32,
    pub reserved1: u32,
}

/// Answer to QUERY with `UCMA_QUERY_ADDR`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_query_addr_resp {
    /// Big-endian.
    pub node_guid: u64,
    pub port_num: u8,
    pub reserved: u8,
    /// Big-endian.
    pub pkey: u16,
    pub src_size: u16,
    pub dst_size: u16,
    pub src_addr: sockaddr_storage,
    pub dst_addr: sockaddr_storage,
    pub ibdev_index: u32,
    pub reserved1: u32,
}

/// Answer to QUERY with `UCMA_QUERY_PATH`: `num_paths` records follow.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_query_path_resp {
    pub num_paths: u32,
    pub reserved: u32,
    /// C: `path_data[0]`.
    pub path_data: [ibv_path_data; 0],
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_conn_param {
    pub qp_num: u32,
    pub reserved: u32,
    pub private_data: [u8; RDMA_MAX_PRIVATE_DATA as usize],
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
pub struct ucma_abi_ud_param {
    pub qp_num: u32,
    pub qkey: u32,
    pub ah_attr: ib_uverbs_ah_attr,
    pub private_data: [u8; RDMA_MAX_PRIVATE_DATA as usize],
    pub private_data_len: u8,
    pub reserved: [u8; 7],
    /// Pads the struct to a multiple of 8 bytes on every ABI.
    pub reserved2: [u8; 4],
}

/// Enhanced connection establishment: the vendor and its options.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_ece {
    pub vendor_id: u32,
    pub attr_mod: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_connect {
    pub cmd: u32,
    pub in_: u16,
    pub out: u16,
    pub conn_param: ucma_abi_conn_param,
    pub id: u32,
    pub reserved: u32,
    pub ece: ucma_abi_ece,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_listen {
    pub cmd: u32,
    pub in_: u16,
    pub out: u16,
    pub id: u32,
    pub backlog: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_accept {
    pub cmd: u32,
    pub in_: u16,
    pub out: u16,
    pub uid: u64,
    pub conn_param: ucma_abi_conn_param,
    pub id: u32,
    pub reserved: u32,
    pub ece: ucma_abi_ece,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_reject {
    pub cmd: u32,
    pub in_: u16,
    pub out: u16,
    pub id: u32,
    pub private_data_len: u8,
    pub reason: u8,
    pub reserved: [u8; 2],
    pub private_data: [u8; RDMA_MAX_PRIVATE_DATA as usize],
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_disconnect {
    pub cmd: u32,
    pub in_: u16,
    pub out: u16,
    pub id: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_init_qp_attr {
    pub cmd: u32,
    pub in_: u16,
    pub out: u16,
    pub response: u64,
    pub id: u32,
    pub qp_state: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_notify {
    pub cmd: u32,
    pub in_: u16,
    pub out: u16,
    pub id: u32,
    pub event: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_join_ip_mcast {
    pub cmd: u32,
    pub in_: u16,
    pub out: u16,
    /// Address of a [`ucma_abi_create_id_resp`].
    pub response: u64,
    pub uid: u64,
    pub addr: sockaddr_in6,
    pub id: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_join_mcast {
    pub cmd: u32,
    pub in_: u16,
    pub out: u16,
    /// Address of a [`ucma_abi_create_id_resp`].
    pub response: u64,
    pub uid: u64,
    pub id: u32,
    pub addr_size: u16,
    pub join_flags: u16,
    pub addr: sockaddr_storage,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_get_event {
    pub cmd: u32,
    pub in_: u16,
    pub out: u16,
    /// Address of a [`ucma_abi_event_resp`].
    pub response: u64,
}

/// C: the union `param` of `struct ucma_abi_event_resp`. `arg32` is the
/// 64-bit argument of a USER or INTERNAL event in two halves (the union
/// is only 4-aligned).
#[repr(C)]
#[derive(Clone, Copy)]
pub union ucma_abi_event_resp_param {
    pub conn: ucma_abi_conn_param,
    pub ud: ucma_abi_ud_param,
    pub arg32: [u32; 2],
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_event_resp {
    pub uid: u64,
    pub id: u32,
    pub event: u32,
    pub status: u32,
    pub param: ucma_abi_event_resp_param,
    pub ece: ucma_abi_ece,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_set_option {
    pub cmd: u32,
    pub in_: u16,
    pub out: u16,
    /// Address of the option's value.
    pub optval: u64,
    pub id: u32,
    pub level: u32,
    pub optname: u32,
    pub optlen: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_migrate_id {
    pub cmd: u32,
    pub in_: u16,
    pub out: u16,
    /// Address of a [`ucma_abi_migrate_resp`].
    pub response: u64,
    pub id: u32,
    /// The event channel's file descriptor to move the id to.
    pub fd: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_migrate_resp {
    pub events_reported: u32,
}

/// Which of `ucma_abi_ib_service`'s keys to resolve by, bits of `flags`
/// (an anonymous C enum).
pub const UCMA_IB_SERVICE_FLAG_ID: u32 = 1 << 0;
pub const UCMA_IB_SERVICE_FLAG_NAME: u32 = 1 << 1;
pub const UCMA_IB_SERVICE_NAME_SIZE: c_int = 64;

/// An IB service to resolve: by id, or by name (NUL-padded).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_ib_service {
    /// Host order.
    pub service_id: u64,
    pub service_name: [u8; UCMA_IB_SERVICE_NAME_SIZE as usize],
    pub flags: u32,
    pub reserved: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_resolve_ib_service {
    pub cmd: u32,
    pub in_: u16,
    pub out: u16,
    pub id: u32,
    pub ibs: ucma_abi_ib_service,
}

/// One service record of a QUERY(`UCMA_QUERY_IB_SERVICE`) answer.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_user_service_rec {
    /// Big-endian.
    pub id: u64,
    pub gid: [u8; 16],
    /// Big-endian.
    pub pkey: u16,
    pub reserved: [u8; 2],
    /// Big-endian.
    pub lease: u32,
    pub key: [u8; 16],
    pub name: [u8; 64],
    pub data_8: [u8; 16],
    /// Big-endian.
    pub data_16: [u16; 8],
    /// Big-endian.
    pub data_32: [u32; 4],
    /// Big-endian.
    pub data_64: [u64; 2],
}

/// Answer to QUERY with `UCMA_QUERY_IB_SERVICE`: `num_service_recs`
/// records follow.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_query_ib_service_resp {
    pub num_service_recs: u32,
    /// C: `recs[]`, no room of its own; its 8-byte alignment puts the
    /// first record at offset 8.
    pub recs: [ucma_user_service_rec; 0],
}

/// C: the union `param` of `struct ucma_abi_write_cm_event`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union ucma_abi_write_cm_event_param {
    pub conn: ucma_abi_conn_param,
    pub ud: ucma_abi_ud_param,
    pub arg: u64,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ucma_abi_write_cm_event {
    pub cmd: u32,
    pub in_: u16,
    pub out: u16,
    pub id: u32,
    pub reserved: u32,
    pub event: u32,
    pub status: u32,
    pub param: ucma_abi_write_cm_event_param,
}

crate::zeroable!(
    ucma_abi_cmd_hdr,
    ucma_abi_create_id,
    ucma_abi_create_id_resp,
    ucma_abi_destroy_id,
    ucma_abi_destroy_id_resp,
    ucma_abi_bind_ip,
    ucma_abi_bind,
    ucma_abi_resolve_ip,
    ucma_abi_resolve_addr,
    ucma_abi_resolve_route,
    ucma_abi_query,
    ucma_abi_query_route_resp,
    ucma_abi_query_addr_resp,
    ucma_abi_query_path_resp,
    ucma_abi_conn_param,
    ucma_abi_ud_param,
    ucma_abi_ece,
    ucma_abi_connect,
    ucma_abi_listen,
    ucma_abi_accept,
    ucma_abi_reject,
    ucma_abi_disconnect,
    ucma_abi_init_qp_attr,
    ucma_abi_notify,
    ucma_abi_join_ip_mcast,
    ucma_abi_join_mcast,
    ucma_abi_get_event,
    ucma_abi_event_resp_param,
    ucma_abi_event_resp,
    ucma_abi_set_option,
    ucma_abi_migrate_id,
    ucma_abi_migrate_resp,
    ucma_abi_ib_service,
    ucma_abi_resolve_ib_service,
    ucma_user_service_rec,
    ucma_abi_query_ib_service_resp,
    ucma_abi_write_cm_event_param,
    ucma_abi_write_cm_event,
);
