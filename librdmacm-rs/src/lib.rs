//! librdmacm.so.1, rdma-core's RDMA connection manager library, in Rust:
//! 44.0's interface and what 56.1 and 65.0 added to it (RDMACM_1.4, 1.5).
//!
//! See docs/architecture.md. The FFI pattern, the netlink client and the
//! character-device opener come from the rdma-util crate and the C layouts
//! from rdma-abi, as in libibverbs-rs; everything verbs-related is called
//! through libibverbs.so.1 (`verbs` declares those imports).
//!
//! The connection manager (upstream's cma.c), bottom to top; each module
//! uses only modules listed before it:
//! - `ucma`: the rdma_cm command channel (ABI version, AF_IB support,
//!   commands); `devices`: the CM's device list;
//! - `id`: event channels, ids, acks;
//! - `addr`: address helpers, bind, queries; `qp`: QP/SRQ helpers, QP
//!   transitions, ECE; `options`;
//! - `event`: event delivery and the synchronous ids' waits;
//! - `cma`: library initialisation and the entry points that start with
//!   it; `conn`: listen, connect, accept, reject, disconnect; `mcast`;
//! - `resolve`: address and route resolution; `resolve_ai`:
//!   rdma_resolve_addrinfo / rdma_query_addrinfo (rdma-core 65);
//! - `ep`: rdma_create_ep / rdma_destroy_ep.
//!
//! rdma_getaddrinfo: `addrinfo` (below everything else) and its ibacm
//! client `acm`, under `cma` (the export) and `resolve`.
//!
//! [`rsocket`]: rsockets (sockets over RDMA), rpoll/rselect and the repoll
//! calls (epoll over rsockets).
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]

/// Name used in our own diagnostics (see `rdma_util::ffi::guard`).
pub(crate) const LIB_NAME: &str = "librdmacm";

// No other crate uses this one as a Rust library (librspreload and the ABI
// tests go through librdmacm.so.1): modules are private, and the C entry
// points are exported by their #[no_mangle] names whatever the module's
// visibility.
mod abi;
mod acm;
mod addr;
mod addrinfo;
mod cma;
mod conn;
mod devices;
mod ep;
mod event;
mod event_str;
mod id;
mod mcast;
mod options;
mod proto_check;
mod qp;
mod resolve;
mod resolve_ai;
mod ucma;
mod verbs;

mod rsocket;
