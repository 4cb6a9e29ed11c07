//! The C layouts this library speaks, from the rdma-abi crate: the public
//! verbs types, the kernel uAPI, netlink, and the providers' private ABIs of
//! the releases this library serves.

/// IBVERBS_PRIVATE_34 as rdma-core 44 lays it out (the providers of Debian 12
/// and, with the same layouts, Debian 13).
pub(crate) use rdma_abi::driver::pabi34_v44 as driver;
/// IBVERBS_PRIVATE_65 (the providers of rdma-core 65, Debian sid).
pub(crate) use rdma_abi::driver::pabi65 as driver65;
pub(crate) use rdma_abi::{kern, verbs};
/// The public types of rdma-core 65 where they differ from 44's.
pub(crate) use rdma_abi::verbs_v65 as verbs65;
