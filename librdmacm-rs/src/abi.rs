//! The C layouts this library speaks, from the rdma-abi crate: the public
//! verbs types, the kernel uverbs structs that ucma responses embed, netlink,
//! `<rdma/rdma_cma.h>` and the rdma_cm character device.

pub use rdma_abi::{acm, cma, kern, netlink, ucma, verbs};
