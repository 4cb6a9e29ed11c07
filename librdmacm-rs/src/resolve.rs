//! Address and route resolution (rdma_resolve_addr, rdma_resolve_route):
//! the commands whose outcome comes as an event, which synchronous ids wait
//! for here (`event::complete`).
//!
//! As in `addr`, kernels with AF_IB support get RESOLVE_ADDR, older ones
//! RESOLVE_IP. On InfiniBand a route comes from ibacm when it has one
//! (installed with RDMA_OPTION_IB_PATH), else from the kernel's
//! RESOLVE_ROUTE.

use crate::abi::cma::*;
use crate::abi::ucma::*;
use crate::abi::verbs::*;
use crate::addr::{addrlen, copy_addr, dst_storage, in6_of, src_storage, storage_of};
use crate::event::complete;
use crate::id::{Id, Res};
use crate::ucma::{af_ib_support, write_cmd};
use core::ffi::c_int;
use libc::{sockaddr, socklen_t};

/// RESOLVE_ADDR (AF_IB-capable kernels).
///
/// # Safety
/// `src` (if non-null) and `dst` must be readable for their lengths.
pub(crate) unsafe fn resolve_addr2(
    id: Id,
    src: *const sockaddr,
    src_len: socklen_t,
    dst: *const sockaddr,
    dst_len: socklen_t,
    timeout_ms: c_int,
) -> Res<()> {
    let body = rdma_ucm_resolve_addr {
        id: id.handle(),
        timeout_ms: timeout_ms as u32,
        src_size: src_len as u16,
        dst_size: dst_len as u16,
        reserved: 0,
        // SAFETY: forwarded contract.
        src_addr: unsafe { storage_of(src, src_len) },
        // SAFETY: forwarded contract.
        dst_addr: unsafe { storage_of(dst, dst_len) },
    };
    write_cmd(id.fd(), RDMA_USER_CM_CMD_RESOLVE_ADDR, body)?;
    // SAFETY: forwarded contract for dst.
    unsafe { copy_addr(dst_storage(id), dst.cast(), dst_len as usize) };
    complete(id)
}

/// `rdma_resolve_addr`.
///
/// # Safety
/// Addresses must be null or socket addresses of their family's size.
pub(crate) unsafe fn resolve_addr(id: Id, src: *const sockaddr, dst: *const sockaddr, timeout_ms: c_int) -> Res<()> {
    // SAFETY: forwarded contract: null or a socket address.
    let dst_len = unsafe { addrlen(dst) };
    if dst_len == 0 {
        return Err(libc::EINVAL);
    }
    // SAFETY: as above.
    let src_len = unsafe { addrlen(src) };
    if !src.is_null() && src_len == 0 {
        return Err(libc::EINVAL);
    }
    if af_ib_support() {
        // SAFETY: forwarded contract.
        return unsafe { resolve_addr2(id, src, src_len, dst, dst_len, timeout_ms) };
    }
    let body = rdma_ucm_resolve_ip {
        // SAFETY: forwarded contract.
        src_addr: unsafe { in6_of(src, src_len) },
        // SAFETY: forwarded contract.
        dst_addr: unsafe { in6_of(dst, dst_len) },
        id: id.handle(),
        timeout_ms: timeout_ms as u32,
    };
    write_cmd(id.fd(), RDMA_USER_CM_CMD_RESOLVE_IP, body)?;
    // SAFETY: forwarded contract for dst.
    unsafe { copy_addr(dst_storage(id), dst.cast(), dst_len as usize) };
    complete(id)
}

/// Asks rdma_getaddrinfo (the IB ACM service) for a route and installs it
/// with RDMA_OPTION_IB_PATH; Err when there is none.
///
/// A route-only rdma_getaddrinfo can only get a route from ibacm: when the
/// process has no ibacm connection (made once, on first use, as upstream's
/// `ucma_ib_init`), the answer is known to carry none and the caller falls
/// back to the kernel's RESOLVE_ROUTE. Skipping the call then saves building
/// and freeing an addrinfo chain on every rdma_resolve_route (about 2,000
/// instructions and a dozen allocations, measured with callgrind), with the
/// same outcome: upstream's call returns a chain without a route, which it
/// frees before falling back.
fn set_ib_route(id: Id) -> Res<()> {
    if crate::acm::ib_init().is_none() {
        return Err(libc::ENOENT);
    }
    // SAFETY: all-zero is a valid rdma_addrinfo.
    let mut hint: rdma_addrinfo = unsafe { core::mem::zeroed() };
    hint.ai_flags = RAI_ROUTEONLY;
    // SAFETY: reading the family field of the id's (live, 128-byte) source
    // storage through the raw pointer, by value.
    hint.ai_family = c_int::from(unsafe { (*src_storage(id).cast::<sockaddr>()).sa_family });
    hint.ai_src_addr = src_storage(id).cast();
    // SAFETY: the id's live 128-byte source storage.
    hint.ai_src_len = unsafe { addrlen(hint.ai_src_addr) };
    hint.ai_dst_addr = dst_storage(id).cast();
    // SAFETY: the id's live 128-byte destination storage.
    hint.ai_dst_len = unsafe { addrlen(hint.ai_dst_addr) };
    let mut rai: *mut rdma_addrinfo = core::ptr::null_mut();
    // SAFETY: hint is valid; rai is an out-pointer.
    let ret = unsafe { crate::cma::rdma_getaddrinfo(core::ptr::null(), core::ptr::null(), &hint, &mut rai) };
    if ret != 0 {
        return Err(rdma_util::ffi::errno());
    }
    // SAFETY: rdma_getaddrinfo succeeded, so rai is a valid result.
    let r = unsafe { &*rai };
    let res = if r.ai_route_len != 0 {
        crate::options::set_option(id, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH, r.ai_route, r.ai_route_len)
    } else {
        Err(rdma_util::ffi::errno())
    };
    // SAFETY: rai came from rdma_getaddrinfo.
    unsafe { crate::addrinfo::rdma_freeaddrinfo(rai) };
    res
}

/// `rdma_resolve_route`.
pub(crate) fn resolve_route(id: Id, timeout_ms: c_int) -> Res<()> {
    if id.transport() == Some(IBV_TRANSPORT_IB) && set_ib_route(id).is_ok() {
        return complete(id);
    }
    let body = rdma_ucm_resolve_route { id: id.handle(), timeout_ms: timeout_ms as u32 };
    write_cmd(id.fd(), RDMA_USER_CM_CMD_RESOLVE_ROUTE, body)?;
    complete(id)
}

// ---------------------------------------------------------------------------
// Exports
// ---------------------------------------------------------------------------

crate::event::export_sync! {
    /// Resolves a destination address (and binds to a source).
    fn rdma_resolve_addr(id: *mut rdma_cm_id, src_addr: *mut sockaddr, dst_addr: *mut sockaddr,
                         timeout_ms: c_int) -> c_int;
    {
        if id.is_null() {
            return Err(libc::EINVAL);
        }
        // SAFETY: the caller's addresses (null ones are handled inside).
        unsafe { resolve_addr(Id::from_cm(id), src_addr, dst_addr, timeout_ms) }
    }
}

crate::event::export_sync! {
    /// Resolves the route to the resolved destination.
    fn rdma_resolve_route(id: *mut rdma_cm_id, timeout_ms: c_int) -> c_int;
    {
        if id.is_null() {
            return Err(libc::EINVAL);
        }
        resolve_route(Id::from_cm(id), timeout_ms)
    }
}
