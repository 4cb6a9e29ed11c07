//! PLACEHOLDER for the addrinfo helper's module (rdma_getaddrinfo and
//! rdma_freeaddrinfo live in that branch; at merge its src/addrinfo.rs
//! replaces this file). Nothing here is exported: these stand-ins only let
//! rdma_resolve_route's IB path (which asks rdma_getaddrinfo for an ACM
//! route, RAI_ROUTEONLY) compile; they answer "no route", which is what
//! upstream gets when no ibacm service runs, so the kernel resolves the
//! route instead.

use crate::abi::cma::rdma_addrinfo;
use core::ffi::{c_char, c_int};

/// Stand-in: always fails with ENOSYS (no route from ACM).
///
/// # Safety
/// None needed; the signature mirrors the real function.
pub unsafe extern "C" fn rdma_getaddrinfo(
    _node: *const c_char,
    _service: *const c_char,
    _hints: *const rdma_addrinfo,
    _res: *mut *mut rdma_addrinfo,
) -> c_int {
    crate::ffi::set_errno(libc::ENOSYS);
    -1
}

/// Stand-in: nothing to free (the stand-in never returns a result).
///
/// # Safety
/// None needed.
pub unsafe extern "C" fn rdma_freeaddrinfo(_res: *mut rdma_addrinfo) {}
