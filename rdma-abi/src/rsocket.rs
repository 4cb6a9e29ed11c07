//! The constants of `<rdma/rsocket.h>`: the rsocket-level options of
//! rsetsockopt/rgetsockopt.
//!
//! Checked in `src/layout/rsocket.rs` against rdma-core 65's header (run
//! `abi-tests/probe/run-65.sh`).

use core::ffi::c_int;

/// The option level of the rsocket options below.
pub const SOL_RDMA: c_int = 0x10000;
/// Send queue depth.
pub const RDMA_SQSIZE: c_int = 0;
/// Receive queue depth.
pub const RDMA_RQSIZE: c_int = 1;
/// Largest send inlined in the work request.
pub const RDMA_INLINE: c_int = 2;
/// Number of riomap slots.
pub const RDMA_IOMAPSIZE: c_int = 3;
/// A path record to use instead of resolving the route.
pub const RDMA_ROUTE: c_int = 4;
