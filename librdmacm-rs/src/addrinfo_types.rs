//! The public C types rdma_getaddrinfo works with: `struct rdma_addrinfo`
//! (`<rdma/rdma_cma.h>`) and `struct sockaddr_ib` (`<infiniband/ib.h>`),
//! with the `RAI_*` hint flags and the port-space constants.
//!
//! Names are the C names (the rdmacm branch's `abi::cma` defines the same
//! types; one copy is kept at merge). Big-endian C fields are plain integers
//! holding wire-order bytes. Layout numbers come from a C probe compiled
//! against /usr/include/rdma/rdma_cma.h and /usr/include/infiniband/ib.h.
use core::ffi::{c_char, c_int, c_ushort, c_void};

/// The address family of `sockaddr_ib` (`<infiniband/ib.h>`).
pub const AF_IB: c_int = 27;

/// `union { ... } ib_u` of `struct ib_addr`: a 128-bit GID in wire order.
#[repr(C)]
#[derive(Clone, Copy)]
pub union ib_addr_ib_u {
    pub uib_addr8: [u8; 16],
    /// Big-endian words.
    pub uib_addr16: [u16; 8],
    /// Big-endian words.
    pub uib_addr32: [u32; 4],
    /// Big-endian words.
    pub uib_addr64: [u64; 2],
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ib_addr {
    pub ib_u: ib_addr_ib_u,
}

/// An InfiniBand socket address (family `AF_IB`).
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

/// One result (or the hints) of rdma_getaddrinfo.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_addrinfo {
    pub ai_flags: c_int,
    pub ai_family: c_int,
    pub ai_qp_type: c_int,
    pub ai_port_space: c_int,
    pub ai_src_len: libc::socklen_t,
    pub ai_dst_len: libc::socklen_t,
    pub ai_src_addr: *mut libc::sockaddr,
    pub ai_dst_addr: *mut libc::sockaddr,
    pub ai_src_canonname: *mut c_char,
    pub ai_dst_canonname: *mut c_char,
    pub ai_route_len: usize,
    pub ai_route: *mut c_void,
    pub ai_connect_len: usize,
    pub ai_connect: *mut c_void,
    pub ai_next: *mut rdma_addrinfo,
}

/// `enum rdma_port_space`.
pub type rdma_port_space = u32;
pub const RDMA_PS_IPOIB: rdma_port_space = 0x0002;
pub const RDMA_PS_TCP: rdma_port_space = 0x0106;
pub const RDMA_PS_UDP: rdma_port_space = 0x0111;
pub const RDMA_PS_IB: rdma_port_space = 0x013F;

/// Masks and port-space prefixes of an IB service id (host order).
pub const RDMA_IB_IP_PS_MASK: u64 = 0xFFFF_FFFF_FFFF_0000;
pub const RDMA_IB_IP_PORT_MASK: u64 = 0x0000_0000_0000_FFFF;
pub const RDMA_IB_IP_PS_TCP: u64 = 0x0000_0000_0106_0000;
pub const RDMA_IB_IP_PS_UDP: u64 = 0x0000_0000_0111_0000;
pub const RDMA_IB_PS_IB: u64 = 0x0000_0000_013F_0000;

/// `rdma_addrinfo::ai_flags` bits.
pub const RAI_PASSIVE: c_int = 0x0000_0001;
pub const RAI_NUMERICHOST: c_int = 0x0000_0002;
pub const RAI_NOROUTE: c_int = 0x0000_0004;
pub const RAI_FAMILY: c_int = 0x0000_0008;

crate::assert_layout!(ib_addr, size = 16, align = 8);
crate::assert_layout!(
    sockaddr_ib, size = 48, align = 8,
    sib_family = 0, sib_pkey = 2, sib_flowinfo = 4, sib_addr = 8,
    sib_sid = 24, sib_sid_mask = 32, sib_scope_id = 40,
);
crate::assert_layout!(
    rdma_addrinfo, size = 96, align = 8,
    ai_flags = 0, ai_family = 4, ai_qp_type = 8, ai_port_space = 12,
    ai_src_len = 16, ai_dst_len = 20, ai_src_addr = 24, ai_dst_addr = 32,
    ai_src_canonname = 40, ai_dst_canonname = 48, ai_route_len = 56,
    ai_route = 64, ai_connect_len = 72, ai_connect = 80, ai_next = 88,
);
crate::assert_consts!(
    AF_IB = 27, RAI_PASSIVE = 1, RAI_NUMERICHOST = 2, RAI_NOROUTE = 4, RAI_FAMILY = 8,
    RDMA_PS_IPOIB = 2, RDMA_PS_TCP = 262, RDMA_PS_UDP = 273, RDMA_PS_IB = 319,
);
