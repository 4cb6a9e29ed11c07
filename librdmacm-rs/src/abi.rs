//! The C layouts this library speaks, from the rdma-abi crate: the public
//! verbs types, the kernel uverbs structs that ucma responses embed,
//! `<rdma/rdma_cma.h>` and the rdma_cm character device as rdma-core 65
//! has them (44's types plus the additions behind RDMACM_1.4), and ibacm's
//! messages. (Netlink is spoken by rdma_util's client, with its own
//! layouts.)

pub(crate) use rdma_abi::{acm, cma_v65 as cma, kern, ucma_v65 as ucma, verbs};
