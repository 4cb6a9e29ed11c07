//! The C layouts this library speaks, from the rdma-abi crate: the public
//! verbs types, the kernel uAPI, netlink, and the providers' private ABI in
//! the release this library serves.

/// IBVERBS_PRIVATE_34 as rdma-core 44 lays it out.
pub(crate) use rdma_abi::driver::pabi34_v44 as driver;
pub(crate) use rdma_abi::{kern, verbs};
