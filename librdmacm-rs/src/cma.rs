//! placeholder: replaced by the rdmacm branch at merge.
//!
//! Only the two entry points rdma_getaddrinfo needs, with the signatures the
//! rdmacm branch provides.
use core::ffi::c_int;

/// Opens the CM's device list once per process. `Err(ret)` carries the value
/// rdma_getaddrinfo returns unchanged (upstream: -1 with errno set).
pub fn ucma_init() -> Result<(), c_int> {
    Ok(())
}

/// Whether the kernel accepts AF_IB addresses (probed by ucma_init).
pub fn af_ib_support() -> bool {
    false
}
