//! libibverbs.so.1, rdma-core 44.0's verbs library, in Rust.
//!
//! Layout (see docs/architecture.md):
//! - `ffi`: the export pattern every C entry point follows;
//! - `abi`: C layouts: public verbs.h types, the providers' private ABI
//!   (driver.h), the kernel uAPI and netlink constants;
//! - concept modules: device discovery, provider loader, contexts, queries,
//!   the kernel command channel (`cmd`), logging and init.
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]

pub mod abi;
pub mod cmd;
pub mod ffi;
