//! rsockets: upstream librdmacm's socket-like byte streams over RDMA (RC
//! QPs set up through the RDMA CM), wire compatible with upstream v44, and
//! their datagram (UD QP) variant.
//!
//! The modules form layers: each one uses only modules of earlier layers
//! in this list, so no two modules import each other.
//!
//! 1. Leaves, using no other rsocket module:
//!    - [`proto`]: the wire format (private data, immediate-data messages,
//!      SGL entries), with layout assertions;
//!    - [`base`]: the state, option bits and sizes every rsocket has, and
//!      the RS_* state and option constants;
//!    - [`wake`]: the wake-up gate of threads sleeping in rpoll.
//! 2. [`config`]: the /etc/rdma/rsocket defaults, read once.
//! 3. [`stream`]: the stream socket object, its locks, buffers, credits and
//!    completion processing.
//! 4. Services and tables on that object:
//!    - [`index`]: the table of stream rsockets by descriptor;
//!    - [`svc`]: the CM service thread (a list of sockets and a handler);
//!    - [`keepalive`]: the keepalive service;
//!    - [`iomap`]: riomap / riounmap / riowrite.
//! 5. Socket operations:
//!    - [`connection`]: listen / accept / connect / shutdown, and the two
//!      CM services that run (LISTEN, CONNECT) with their handlers;
//!    - [`opts`]: set/getsockopt, fcntl.
//! 6. [`dgram`]: the datagram rsockets, with layers of their own.
//! 7. [`poll`]: rpoll and rselect over both kinds.
//! 8. [`repoll`]: epoll instances over rsockets (repoll_*), waiting in rpoll.
//! 9. [`api`]: the exported functions.
//!
//! Everything here is `pub(crate)` or narrower; only the exported C
//! functions are `pub`.

pub(crate) mod api;
pub(crate) mod base;
pub(crate) mod config;
pub(crate) mod connection;
pub(crate) mod dgram;
pub(crate) mod index;
pub(crate) mod iomap;
pub(crate) mod keepalive;
pub(crate) mod opts;
pub(crate) mod poll;
pub(crate) mod proto;
pub(crate) mod repoll;
pub(crate) mod stream;
pub(crate) mod svc;
pub(crate) mod wake;
