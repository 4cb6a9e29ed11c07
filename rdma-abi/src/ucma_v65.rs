//! The kernel's RDMA CM user ABI (`<rdma/rdma_user_cm.h>`) as rdma-core
//! 65's `kernel-headers/` give it: everything of [`crate::ucma`] (the
//! uAPI Debian 12 installs), re-exported, plus what 65 added.
//!
//! What changed, and is therefore defined here:
//! - two commands after `RDMA_USER_CM_CMD_JOIN_MCAST`: `RESOLVE_IB_SERVICE`
//!   (ask the subnet administrator for an IB service's records) and
//!   `WRITE_CM_EVENT` (queue an event on one's own channel). Kernels
//!   without them (Linux 6.1, for one) refuse their number with EINVAL;
//! - a QUERY option, `RDMA_USER_CM_QUERY_IB_SERVICE`, answered with a
//!   [`rdma_ucm_query_ib_service_resp`] header followed by
//!   [`ib_user_service_rec`] entries (`<rdma/ib_user_sa.h>`);
//! - the anonymous `param` union of `rdma_ucm_event_resp` gained
//!   `__u32 arg32[2]` at its start (the 64-bit argument of USER and
//!   INTERNAL events, in two halves because the union is only 4-aligned);
//!   the union's size and alignment stay those of
//!   [`rdma_ucm_event_resp_param`], whose type stays 44's: the argument is
//!   its first 8 bytes.
//!
//! Conventions as in [`crate::ucma`]. No probe compiles against rdma-core
//! 65's kernel headers yet: the layouts and values are checked in
//! `src/layout/hand_kept.rs` with numbers measured from rdma-core 65.0's
//! `kernel-headers/rdma/rdma_user_cm.h` and `ib_user_sa.h`.
#![allow(non_camel_case_types)]

pub use crate::ucma::*;

pub const RDMA_USER_CM_CMD_RESOLVE_IB_SERVICE: u32 = 23;
pub const RDMA_USER_CM_CMD_WRITE_CM_EVENT: u32 = 24;

pub const RDMA_USER_CM_QUERY_IB_SERVICE: u32 = 3;

pub const RDMA_USER_CM_IB_SERVICE_FLAG_ID: u32 = 1 << 0;
pub const RDMA_USER_CM_IB_SERVICE_FLAG_NAME: u32 = 1 << 1;
pub const RDMA_USER_CM_IB_SERVICE_NAME_SIZE: usize = 64;

/// An IB service to resolve: by id, or by name (NUL-padded).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_ib_service {
    /// Host order, as the kernel reads it.
    pub service_id: u64,
    pub service_name: [u8; RDMA_USER_CM_IB_SERVICE_NAME_SIZE],
    pub flags: u32,
    pub reserved: u32,
}

/// Body of `RDMA_USER_CM_CMD_RESOLVE_IB_SERVICE`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_resolve_ib_service {
    pub id: u32,
    pub reserved: u32,
    pub ibs: rdma_ucm_ib_service,
}

/// C's anonymous `param` union of `rdma_ucm_write_cm_event`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union rdma_ucm_write_cm_event_param {
    pub conn: rdma_ucm_conn_param,
    pub ud: rdma_ucm_ud_param,
    pub arg: u64,
}

/// Body of `RDMA_USER_CM_CMD_WRITE_CM_EVENT`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_write_cm_event {
    pub id: u32,
    pub reserved: u32,
    pub event: u32,
    pub status: u32,
    pub param: rdma_ucm_write_cm_event_param,
}

/// `struct ib_user_service_rec` of `<rdma/ib_user_sa.h>`: one service
/// record as the kernel copies it out.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ib_user_service_rec {
    /// Big-endian service id.
    pub id: u64,
    pub gid: [u8; 16],
    /// Big-endian.
    pub pkey: u16,
    pub reserved: [u8; 2],
    /// Big-endian.
    pub lease: u32,
    pub key: [u8; 16],
    pub name: [u8; 64],
    pub data_8: [u8; 16],
    pub data_16: [u16; 8],
    pub data_32: [u32; 4],
    pub data_64: [u64; 2],
}

/// Header of the QUERY(IB_SERVICE) response; `num_service_recs` records
/// ([`ib_user_service_rec`], C's flexible `recs[]`) follow it, as many as
/// the response buffer holds.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ucm_query_ib_service_resp {
    pub num_service_recs: u32,
    pub reserved: u32,
    /// C's `recs[]`: no room, only the 8-byte alignment the records give
    /// the struct.
    pub recs: [ib_user_service_rec; 0],
}

crate::zeroable!(
    rdma_ucm_ib_service,
    rdma_ucm_resolve_ib_service,
    rdma_ucm_write_cm_event_param,
    rdma_ucm_write_cm_event,
    ib_user_service_rec,
    rdma_ucm_query_ib_service_resp,
);
