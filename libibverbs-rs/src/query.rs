//! STUB, branch `netlink` only — the lead replaces this file with the real
//! `crate::query` module when merging.
//!
//! `neigh::ibv_resolve_eth_l2_from_gid` queries the source GID through
//! `crate::query::query_gid`, which behaves like `ibv_query_gid`: 0 on
//! success, -1 on failure. This placeholder only exists so that the branch
//! compiles; it fails every query.

use libc::c_int;

use crate::abi::verbs::{ibv_context, ibv_gid};

/// STUB: always fails like `ibv_query_gid` does (-1, errno ENOSYS).
///
/// # Safety
/// Same contract as `ibv_query_gid`: `context` a live context, `gid`
/// writable.
pub unsafe fn query_gid(
    _context: *mut ibv_context,
    _port_num: u8,
    _index: c_int,
    _gid: *mut ibv_gid,
) -> c_int {
    crate::ffi::set_errno(libc::ENOSYS);
    -1
}
