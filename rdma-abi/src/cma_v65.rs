//! `<rdma/rdma_cma.h>` as rdma-core 65 defines it: everything of
//! [`crate::cma`] (rdma-core 44), re-exported, plus what 65 added.
//!
//! What changed between 44 and 65, and is therefore defined here:
//! - four event types after `RDMA_CM_EVENT_TIMEWAIT_EXIT`: the outcome of
//!   `rdma_resolve_addrinfo` (`ADDRINFO_RESOLVED`, `ADDRINFO_ERROR`), an
//!   application's own event (`USER`, the one `rdma_write_cm_event` takes)
//!   and the library's own (`INTERNAL`, never handed to the application);
//! - the union `param` of `struct rdma_cm_event` gained a third member,
//!   `uint64_t arg` (the argument of a USER event) at offset 0 of the
//!   union. The other members are larger and 8-aligned, so the union and
//!   [`rdma_cm_event`] keep 44's layout, and the library keeps 44's types (a
//!   second `rdma_cm_event` would not be the one `rdma_cm_id::event` points
//!   to): `arg` is the first 8 bytes of 44's union. [`rdma_cm_event_param`]
//!   here, with `arg`, is the union as 65's header declares it, which
//!   tools/gen-headers writes;
//! - two `rdma_addrinfo` hint flags: `RAI_SA` (resolve an IB service
//!   through the subnet administrator) and `RAI_DNS` (resolve a host name;
//!   the default), which exclude each other.
//!
//! Conventions as in [`crate::cma`]. No probe compiles against rdma-core
//! 65's `rdma_cma.h` yet: the layouts and values are checked in
//! `src/layout/hand_kept.rs` with numbers measured from the rdma-core 65.0
//! header by hand.
#![allow(non_camel_case_types)]

use core::ffi::c_int;

pub use crate::cma::*;

pub const RDMA_CM_EVENT_ADDRINFO_RESOLVED: rdma_cm_event_type = 16;
pub const RDMA_CM_EVENT_ADDRINFO_ERROR: rdma_cm_event_type = 17;
pub const RDMA_CM_EVENT_USER: rdma_cm_event_type = 18;
pub const RDMA_CM_EVENT_INTERNAL: rdma_cm_event_type = 19;

/// The union `param` of `struct rdma_cm_event` as rdma-core 65 declares it.
#[repr(C)]
#[derive(Clone, Copy)]
pub union rdma_cm_event_param {
    pub conn: rdma_conn_param,
    pub ud: rdma_ud_param,
    /// The argument of an `RDMA_CM_EVENT_USER` event.
    pub arg: u64,
}

pub const RAI_SA: c_int = 0x0000_0010;
pub const RAI_DNS: c_int = 0x0000_0020;
