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
// Nothing here is a Rust API: no other crate links this one (its own tests
// only see the cdylib). Items are pub(crate); the C entry points are reached
// by symbol name (#[no_mangle], libibverbs.map), whatever their visibility.
#![warn(unreachable_pub)]

/// Name used in our own diagnostics (see `rdma_util::ffi::guard`).
pub(crate) const LIB_NAME: &str = "libibverbs";

mod abi;
mod ah;
mod channel;
mod cmd;
mod compat_1_0;
mod context;
mod cq;
mod ctx_priv;
mod device;
mod dmabuf_heap;
mod dummy_ops;
mod fork;
mod import;
mod init;
mod loader;
mod log;
mod mcast;
mod mr;
mod neigh;
mod pd;
mod provider_release;
mod qp;
mod query;
mod srq;
mod strings;
mod sysfs;
#[cfg(test)]
mod testkit;
mod util;
