//! librdmacm.so.1, rdma-core 44.0's RDMA connection manager library, in Rust.
//!
//! See docs/architecture.md. The FFI pattern, the netlink client and the
//! character-device opener come from the rdma-util crate and the C layouts
//! from rdma-abi, as in libibverbs-rs; everything verbs-related is called
//! through libibverbs.so.1 (`verbs` declares those imports).
//!
//! The connection manager (upstream's cma.c):
//! - [`cma`]: library initialisation and AF_IB detection;
//! - [`ucma`]: the rdma_cm command channel (ABI version, commands);
//! - [`devices`]: the CM's device list (rdma_get_devices);
//! - [`id`]: event channels, ids, event delivery;
//! - [`addr`]: bind, address/route resolution, queries;
//! - [`conn`]: listen, connect, accept, reject, disconnect;
//! - [`qp`]: QP/SRQ helpers, QP transitions, ECE;
//! - [`mcast`], [`options`], [`ep`].
//!
//! [`rsocket`]: rsockets (sockets over RDMA) and rpoll/rselect.
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]

/// Name used in our own diagnostics (see `rdma_util::ffi::guard`).
pub const LIB_NAME: &str = "librdmacm";

pub mod abi;
pub mod addr;
pub mod addrinfo;
pub mod cma;
pub mod event;
pub mod conn;
pub mod devices;
pub mod ep;
pub mod event_str;
pub mod id;
pub mod mcast;
pub mod options;
pub mod qp;
pub mod resolve;
pub mod rsocket;
pub mod ucma;
pub mod verbs;
pub mod acm;
