//! The public C types rdma_getaddrinfo works with (`struct rdma_addrinfo`,
//! `struct sockaddr_ib`, the RAI_* flags, the port spaces and the AF_IB
//! service-id masks). They are defined, with their layout assertions, in
//! `abi::cma`; this module names the subset the addrinfo and acm modules use.
pub use crate::abi::cma::{
    ib_addr, ib_addr_ib_u, rdma_addrinfo, rdma_port_space, sockaddr_ib, AF_IB, RAI_FAMILY,
    RAI_NOROUTE, RAI_NUMERICHOST, RAI_PASSIVE, RDMA_IB_IP_PORT_MASK, RDMA_IB_IP_PS_MASK,
    RDMA_IB_IP_PS_TCP, RDMA_IB_IP_PS_UDP, RDMA_IB_PS_IB, RDMA_PS_IB, RDMA_PS_IPOIB, RDMA_PS_TCP,
    RDMA_PS_UDP,
};
