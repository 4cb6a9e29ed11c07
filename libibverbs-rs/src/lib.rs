//! libibverbs.so.1, rdma-core 44.0's verbs library, in Rust.
//!
//! Layout (see docs/architecture.md):
//! - the export pattern every C entry point follows, netlink and the
//!   character-device lookup come from the rdma-util crate;
//! - `abi`: the C layouts this library speaks, from the rdma-abi crate;
//! - concept modules: device discovery (`device`), the provider
//!   loader, contexts, queries, the kernel command channel (`cmd`), logging,
//!   init, and the IBVERBS_1.0 compatibility layer.
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]

/// Name used in our own diagnostics (see `rdma_util::ffi::guard`).
pub const LIB_NAME: &str = "libibverbs";

pub mod abi;
pub mod ah;
pub mod channel;
pub mod cmd;
pub mod compat_1_0;
pub mod context;
pub mod cq;
pub mod ctx_priv;
pub mod device;
pub mod dummy_ops;
pub mod fork;
pub mod import;
pub mod init;
pub mod loader;
pub mod log;
pub mod mcast;
pub mod mr;
pub mod neigh;
pub mod pd;
pub mod qp;
pub mod query;
pub mod srq;
pub mod strings;
pub mod sysfs;
#[cfg(test)]
mod testkit;
pub mod util;
