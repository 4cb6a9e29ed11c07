//! libibverbs.so.1, rdma-core 44.0's verbs library, in Rust.
//!
//! Layout (see docs/architecture.md):
//! - `ffi`: the export pattern every C entry point follows;
//! - `abi`: C layouts: public verbs.h types, the providers' private ABI
//!   (driver.h), the kernel uAPI and netlink constants;
//! - concept modules: device discovery (`device`, `netlink`), the provider
//!   loader, contexts, queries, the kernel command channel (`cmd`), logging,
//!   init, and the IBVERBS_1.0 compatibility layer.
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]

pub mod ffi;

/// Name used in our own diagnostics (see `ffi::guard`).
pub const LIB_NAME: &str = "libibverbs";

pub mod abi;
pub mod ah;
pub mod cdev;
pub mod channel;
pub mod cmd;
pub mod compat_1_0;
pub mod context;
pub mod cq;
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
pub mod netlink;
pub mod pd;
pub mod qp;
pub mod query;
pub mod srq;
pub mod strings;
pub mod sysfs;
pub mod util;
