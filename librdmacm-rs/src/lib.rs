//! librdmacm.so.1, rdma-core 44.0's RDMA connection manager library, in Rust.
//!
//! See docs/architecture.md. The FFI pattern (`ffi`) and the verbs types are
//! the same source files libibverbs-rs uses; everything verbs-related is
//! called through libibverbs.so.1 (`verbs` declares those imports).
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]

#[path = "../../libibverbs-rs/src/ffi.rs"]
pub mod ffi;

/// Name used in our own diagnostics (see `ffi::guard`).
pub const LIB_NAME: &str = "librdmacm";

pub mod abi;
pub mod event_str;
pub mod acm;
pub mod addrinfo;
pub mod addrinfo_types;
pub mod cma;
