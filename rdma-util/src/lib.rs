//! Helpers that each of our libraries links in, as rdma-core links its
//! `util/` into every library.
//!
//! - [`ffi`], the FFI edge: [`export!`], [`ensure!`], [`symver!`], `guard`,
//!   errno, and the waits a thread cancellation may end;
//! - [`fuzz`], seeded hostile input for the parser tests;
//! - [`netlink`], a NETLINK_RDMA client (device list, link info, ...);
//! - [`fallible`], allocation that reports failure (ENOMEM) instead of
//!   aborting, and stack buffers for paths and messages;
//! - [`cdev`], finding the character device of an RDMA device;
//! - [`mem`], zero-initialised C structs;
//! - [`valgrind`], marking memory the kernel filled as defined for memcheck;
//! - [`table`], a descriptor-indexed table of handles (each library keeps its own instances).
//!
//! Like rdma-core's util/, this crate exports no symbol and holds no global
//! state, so linking a copy into each .so is safe: two libraries in one
//! process share nothing through it.
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]

pub mod cdev;
pub mod fallible;
pub mod ffi;
pub mod fuzz;
pub mod mem;
pub mod netlink;
pub mod table;
pub mod valgrind;
