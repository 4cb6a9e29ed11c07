//! The public types of `<rdma/rdma_cma.h>` and `<infiniband/ib.h>`.
//!
//! Applications read these structs directly (`id->verbs`, `id->qp`,
//! `id->route.addr.dst_addr`, `event->param.conn.private_data`, ...), so
//! their layout is ABI. Conventions as in `abi::verbs`: C names, C enums as
//! integer aliases plus constants, big-endian fields as plain integers
//! holding wire-order bytes. C's unnamed unions inside `struct rdma_addr`
//! get the names `src` (type `rdma_addr_src`: `src_addr`, `src_sin`,
//! `src_sin6`, `src_storage`) and `dst` (type `rdma_addr_dst`); the named
//! unions are `rdma_addr_addr` and `rdma_cm_event_param`, and the union in
//! `struct ib_addr` is `ib_addr_ib_u`.
//!
//! Their layout is checked in `src/layout/cma.rs`, with numbers from
//! `abi-tests/probe/cma_abi.c` (run `abi-tests/probe/run-rdmacm.sh`);
//! [`ib_connect_hdr`], a private struct of librdmacm, in
//! `src/layout/hand_kept.rs`.
#![allow(non_camel_case_types)]

use crate::verbs::{
    ibv_ah_attr, ibv_comp_channel, ibv_context, ibv_cq, ibv_gid, ibv_pd, ibv_qp, ibv_qp_type,
    ibv_sa_path_rec, ibv_srq,
};
use core::ffi::{c_char, c_int, c_ushort, c_void};
use libc::{sockaddr, sockaddr_in, sockaddr_in6, sockaddr_storage, socklen_t};

// ---------------------------------------------------------------------------
// <sys/socket.h>: glibc's names for the InfiniBand address family (PF_IB 27,
// AF_IB PF_IB). <infiniband/ib.h> defines each only when it is missing,
// which the generated header cannot say: those two lines are hand-written
// (include/hand/infiniband/ib.head.h).
// ---------------------------------------------------------------------------

pub const AF_IB: c_int = 27;
pub const PF_IB: c_int = AF_IB;

// ---------------------------------------------------------------------------
// <infiniband/ib.h>
// ---------------------------------------------------------------------------

#[repr(C)]
#[derive(Clone, Copy)]
pub union ib_addr_ib_u {
    pub uib_addr8: [u8; 16],
    /// Big-endian halves.
    pub uib_addr16: [u16; 8],
    /// Big-endian words.
    pub uib_addr32: [u32; 4],
    /// Big-endian: subnet prefix, interface id.
    pub uib_addr64: [u64; 2],
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ib_addr {
    pub ib_u: ib_addr_ib_u,
}

/// An AF_IB socket address.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sockaddr_ib {
    pub sib_family: c_ushort,
    /// Big-endian.
    pub sib_pkey: u16,
    /// Big-endian.
    pub sib_flowinfo: u32,
    pub sib_addr: ib_addr,
    /// Big-endian service id.
    pub sib_sid: u64,
    /// Big-endian.
    pub sib_sid_mask: u64,
    pub sib_scope_id: u64,
}

// ---------------------------------------------------------------------------
// <rdma/rdma_cma.h>
// ---------------------------------------------------------------------------

pub type rdma_cm_event_type = u32;
pub const RDMA_CM_EVENT_ADDR_RESOLVED: rdma_cm_event_type = 0;
pub const RDMA_CM_EVENT_ADDR_ERROR: rdma_cm_event_type = 1;
pub const RDMA_CM_EVENT_ROUTE_RESOLVED: rdma_cm_event_type = 2;
pub const RDMA_CM_EVENT_ROUTE_ERROR: rdma_cm_event_type = 3;
pub const RDMA_CM_EVENT_CONNECT_REQUEST: rdma_cm_event_type = 4;
pub const RDMA_CM_EVENT_CONNECT_RESPONSE: rdma_cm_event_type = 5;
pub const RDMA_CM_EVENT_CONNECT_ERROR: rdma_cm_event_type = 6;
pub const RDMA_CM_EVENT_UNREACHABLE: rdma_cm_event_type = 7;
pub const RDMA_CM_EVENT_REJECTED: rdma_cm_event_type = 8;
pub const RDMA_CM_EVENT_ESTABLISHED: rdma_cm_event_type = 9;
pub const RDMA_CM_EVENT_DISCONNECTED: rdma_cm_event_type = 10;
pub const RDMA_CM_EVENT_DEVICE_REMOVAL: rdma_cm_event_type = 11;
pub const RDMA_CM_EVENT_MULTICAST_JOIN: rdma_cm_event_type = 12;
pub const RDMA_CM_EVENT_MULTICAST_ERROR: rdma_cm_event_type = 13;
pub const RDMA_CM_EVENT_ADDR_CHANGE: rdma_cm_event_type = 14;
pub const RDMA_CM_EVENT_TIMEWAIT_EXIT: rdma_cm_event_type = 15;

pub type rdma_port_space = u32;
pub const RDMA_PS_IPOIB: rdma_port_space = 0x0002;
pub const RDMA_PS_TCP: rdma_port_space = 0x0106;
pub const RDMA_PS_UDP: rdma_port_space = 0x0111;
pub const RDMA_PS_IB: rdma_port_space = 0x013F;

// AF_IB service ids (host order).
pub const RDMA_IB_IP_PS_MASK: u64 = 0xFFFF_FFFF_FFFF_0000;
pub const RDMA_IB_IP_PORT_MASK: u64 = 0x0000_0000_0000_FFFF;
pub const RDMA_IB_IP_PS_TCP: u64 = 0x0000_0000_0106_0000;
pub const RDMA_IB_IP_PS_UDP: u64 = 0x0000_0000_0111_0000;
pub const RDMA_IB_PS_IB: u64 = 0x0000_0000_013F_0000;

/// Q_Key of UD QPs set up by the CM.
pub const RDMA_UDP_QKEY: u32 = 0x0123_4567;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ib_addr {
    pub sgid: ibv_gid,
    pub dgid: ibv_gid,
    /// Big-endian.
    pub pkey: u16,
}

/// C's first unnamed union of `struct rdma_addr`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union rdma_addr_src {
    pub src_addr: sockaddr,
    pub src_sin: sockaddr_in,
    pub src_sin6: sockaddr_in6,
    pub src_storage: sockaddr_storage,
}

/// C's second unnamed union of `struct rdma_addr`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union rdma_addr_dst {
    pub dst_addr: sockaddr,
    pub dst_sin: sockaddr_in,
    pub dst_sin6: sockaddr_in6,
    pub dst_storage: sockaddr_storage,
}

/// C: the union `addr` of `struct rdma_addr`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union rdma_addr_addr {
    pub ibaddr: rdma_ib_addr,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_addr {
    /// C: anonymous union (`src_addr`, `src_sin`, `src_sin6`, `src_storage`).
    pub src: rdma_addr_src,
    /// C: anonymous union (`dst_addr`, `dst_sin`, `dst_sin6`, `dst_storage`).
    pub dst: rdma_addr_dst,
    pub addr: rdma_addr_addr,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_route {
    pub addr: rdma_addr,
    pub path_rec: *mut ibv_sa_path_rec,
    pub num_paths: c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_event_channel {
    pub fd: c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_cm_id {
    pub verbs: *mut ibv_context,
    pub channel: *mut rdma_event_channel,
    pub context: *mut c_void,
    pub qp: *mut ibv_qp,
    pub route: rdma_route,
    pub ps: rdma_port_space,
    pub port_num: u8,
    pub event: *mut rdma_cm_event,
    pub send_cq_channel: *mut ibv_comp_channel,
    pub send_cq: *mut ibv_cq,
    pub recv_cq_channel: *mut ibv_comp_channel,
    pub recv_cq: *mut ibv_cq,
    pub srq: *mut ibv_srq,
    pub pd: *mut ibv_pd,
    pub qp_type: ibv_qp_type,
}

/// "Use the device's maximum" for `responder_resources`.
pub const RDMA_MAX_RESP_RES: u8 = 0xFF;
/// "Use the device's maximum" for `initiator_depth`.
pub const RDMA_MAX_INIT_DEPTH: u8 = 0xFF;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_conn_param {
    pub private_data: *const c_void,
    pub private_data_len: u8,
    pub responder_resources: u8,
    pub initiator_depth: u8,
    pub flow_control: u8,
    /// Ignored when accepting.
    pub retry_count: u8,
    pub rnr_retry_count: u8,
    /// Ignored when the id has a QP.
    pub srq: u8,
    /// Ignored when the id has a QP.
    pub qp_num: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ud_param {
    pub private_data: *const c_void,
    pub private_data_len: u8,
    pub ah_attr: ibv_ah_attr,
    pub qp_num: u32,
    pub qkey: u32,
}

/// C: the union `param` of `struct rdma_cm_event`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union rdma_cm_event_param {
    pub conn: rdma_conn_param,
    pub ud: rdma_ud_param,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_cm_event {
    pub id: *mut rdma_cm_id,
    pub listen_id: *mut rdma_cm_id,
    pub event: rdma_cm_event_type,
    pub status: c_int,
    pub param: rdma_cm_event_param,
}

pub const RAI_PASSIVE: c_int = 0x0000_0001;
pub const RAI_NUMERICHOST: c_int = 0x0000_0002;
pub const RAI_NOROUTE: c_int = 0x0000_0004;
pub const RAI_FAMILY: c_int = 0x0000_0008;
/// librdmacm-internal (cma.h): ask rdma_getaddrinfo for a route only.
pub const RAI_ROUTEONLY: c_int = 0x0100_0000;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_addrinfo {
    pub ai_flags: c_int,
    pub ai_family: c_int,
    pub ai_qp_type: c_int,
    pub ai_port_space: c_int,
    pub ai_src_len: socklen_t,
    pub ai_dst_len: socklen_t,
    pub ai_src_addr: *mut sockaddr,
    pub ai_dst_addr: *mut sockaddr,
    pub ai_src_canonname: *mut c_char,
    pub ai_dst_canonname: *mut c_char,
    pub ai_route_len: usize,
    pub ai_route: *mut c_void,
    pub ai_connect_len: usize,
    pub ai_connect: *mut c_void,
    pub ai_next: *mut rdma_addrinfo,
}

pub type rdma_cm_join_mc_attr_mask = u32;
pub const RDMA_CM_JOIN_MC_ATTR_ADDRESS: rdma_cm_join_mc_attr_mask = 1 << 0;
pub const RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS: rdma_cm_join_mc_attr_mask = 1 << 1;
pub const RDMA_CM_JOIN_MC_ATTR_RESERVED: rdma_cm_join_mc_attr_mask = 1 << 2;

pub type rdma_cm_mc_join_flags = u32;
pub const RDMA_MC_JOIN_FLAG_FULLMEMBER: rdma_cm_mc_join_flags = 0;
pub const RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER: rdma_cm_mc_join_flags = 1;
pub const RDMA_MC_JOIN_FLAG_RESERVED: rdma_cm_mc_join_flags = 2;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_cm_join_mc_attr_ex {
    /// `rdma_cm_join_mc_attr_mask` bits.
    pub comp_mask: u32,
    /// An `rdma_cm_mc_join_flags` value.
    pub join_flags: u32,
    pub addr: *mut sockaddr,
}

// Option levels and names of rdma_set_option.
pub const RDMA_OPTION_ID: c_int = 0;
pub const RDMA_OPTION_IB: c_int = 1;
/// u8: RFC 2474 type of service.
pub const RDMA_OPTION_ID_TOS: c_int = 0;
/// int: like SO_REUSEADDR.
pub const RDMA_OPTION_ID_REUSEADDR: c_int = 1;
/// int: like IPV6_V6ONLY.
pub const RDMA_OPTION_ID_AFONLY: c_int = 2;
/// u8: local ACK timeout.
pub const RDMA_OPTION_ID_ACK_TIMEOUT: c_int = 3;
/// `struct ibv_path_data[]`.
pub const RDMA_OPTION_IB_PATH: c_int = 1;

// <librdmacm/cma.h>: librdmacm's own, not installed
// ---------------------------------------------------------------------------

/// librdmacm's private CM header for AF_IB connections (`cma.h`); IPv4
/// addresses go in the last word of each address.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct ib_connect_hdr {
    pub cma_version: u8,
    /// IP version in bits 7:4.
    pub ip_version: u8,
    pub port: u16,
    pub src_addr: [u32; 4],
    pub dst_addr: [u32; 4],
}

crate::zeroable!(ib_addr_ib_u, ib_addr, sockaddr_ib, crate::verbs::ibv_path_data);
