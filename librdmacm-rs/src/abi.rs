//! The C layouts this library speaks, from the rdma-abi crate: the public
//! verbs types, the kernel uverbs structs that ucma responses embed,
//! `<rdma/rdma_cma.h>`, the rdma_cm character device and ibacm's messages.
//! (Netlink is spoken by rdma_util's client, with its own layouts.)

pub(crate) use rdma_abi::{acm, cma, kern, ucma, verbs};
