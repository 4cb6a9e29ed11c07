//! rsockets: upstream librdmacm's socket-like byte streams over RDMA (RC
//! QPs set up through the RDMA CM), wire compatible with upstream v44.
//!
//! - [`proto`]: the wire format (private data, immediate-data messages,
//!   SGL entries), with layout assertions;
//! - [`config`]: the /etc/rdma/rsocket defaults, read once;
//! - [`base`]: the state, options and sizes every rsocket has;
//! - [`index`]: descriptor -> rsocket table;
//! - [`stream`]: the socket object, its locks, buffers, credits and
//!   completion processing;
//! - [`connection`]: listen / accept / connect / shutdown;
//! - [`svc`]: the CM service thread (the two that run, accepting and CM
//!   events, are defined in `connection`);
//! - [`keepalive`]: the keepalive service;
//! - [`iomap`]: riomap / riounmap / riowrite;
//! - [`opts`]: set/getsockopt, fcntl;
//! - [`wake`]: the wake-up gate of threads sleeping in rpoll;
//! - [`poll`]: rpoll / rselect;
//! - [`api`]: the exported functions;
//! - [`dgram`]: datagram (SOCK_DGRAM)
//!   rsockets: UD QPs, their header formats, the UDP service thread.
pub mod api;
pub mod base;
pub mod config;
pub mod connection;
pub mod dgram;
pub mod index;
pub mod iomap;
pub mod keepalive;
pub mod opts;
pub mod poll;
pub mod proto;
pub mod stream;
pub mod svc;
pub mod wake;
