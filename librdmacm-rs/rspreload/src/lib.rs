//! librspreload.so: rdma-core 44's LD_PRELOAD module that runs the socket
//! calls of an unmodified program over rsockets, in Rust.
//!
//! - [`preload`]: the 26 exported libc socket calls (socket, bind, ...,
//!   read, write, poll, select, close, fcntl, dup2, sendfile);
//! - [`fdtable`]: the program's descriptor numbers mapped to rsockets;
//! - [`config`]: /etc/rdma/rsocket/preload_config rules;
//! - [`state`]: settings read once (RS_SQ_SIZE, RS_RQ_SIZE, RS_INLINE,
//!   RDMAV_FORK_SAFE, the rules);
//! - [`real`]: the C library's versions of the calls we replace;
//! - [`rs`]: the rsocket family, imported from librdmacm.so.1.
//!
//! The exports are left out of unit-test builds: in a test executable they
//! would replace the C library's read, write, close... for the test harness
//! itself.
#![deny(unsafe_op_in_unsafe_fn)]

#[path = "../../../libibverbs-rs/src/ffi.rs"]
pub mod ffi;

/// Name used in our own diagnostics (see `ffi::guard`).
pub const LIB_NAME: &str = "librspreload";

pub mod config;
pub mod fdtable;
#[cfg(not(test))]
mod preload;
pub mod real;
pub mod rs;
pub mod state;
