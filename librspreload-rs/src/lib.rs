//! librspreload.so: rdma-core 44's LD_PRELOAD module that runs the socket
//! calls of an unmodified program over rsockets, in Rust.
//!
//! - [`preload`]: the 26 exported libc socket calls (socket, bind, ...,
//!   read, write, poll, select, close, fcntl, dup2, sendfile), and the
//!   four epoll calls of [`epoll`];
//! - [`epoll`]: epoll_ctl / epoll_wait / epoll_pwait / epoll_pwait2 over
//!   rsockets, beyond upstream 44 (which leaves epoll to the C library);
//! - [`fdtable`]: the program's descriptor numbers mapped to rsockets;
//! - [`config`]: /etc/rdma/rsocket/preload_config rules;
//! - [`state`]: settings read once (RS_SQ_SIZE, RS_RQ_SIZE, RS_INLINE,
//!   RDMAV_FORK_SAFE, the rules);
//! - [`real`]: the C library's versions of the calls we replace;
//! - [`rs`]: the rsocket family, imported from librdmacm.so.1.
//!
//! Behaviour is upstream's (rdma-core 44 librdmacm/preload.c) except where
//! upstream's result is a crash, a leak or plainly broken; those places:
//! - close() of a number made by dup2() while the socket has other numbers:
//!   upstream closes the shared rsocket then (and a second time with the
//!   last number); ours closes it once, with the last number.
//! - dup2(fd, fd) on one of ours: upstream closes the socket and fails with
//!   EBADF; ours returns fd, as dup2(2) does.
//! - poll() on a number whose socket fell back to kernel TCP (a failed
//!   rsocket connect, or fork-support mode): upstream polls the /dev/null
//!   placeholder, always ready; ours polls the socket.
//! - select() with no descriptors (a sleep) before any poll(): upstream
//!   fails with ENOMEM; ours sleeps. nfds < 0: EINVAL.
//! - sendfile() onto an rsocket: upstream's mmap() has no MAP_SHARED or
//!   MAP_PRIVATE and always fails (EINVAL); ours sends the data (pread +
//!   rwrite) with sendfile's offset rules.
//! - socket() in fork-support mode when the kernel socket fails: upstream
//!   leaks the placeholder descriptor; ours closes it.
//! - bind(), send() and the others on a socket the program got without a
//!   socket() call (inherited) before any other call: upstream calls an
//!   unset function pointer; ours resolves the C library's on first use.
//! - Settings and rules are read at the first socket() call (upstream: the
//!   first of several calls); fork-support switches are serialised by a
//!   lock (upstream: unsynchronised).
//!
//! As in Debian's build, `__fxstat` (in upstream's source, not in its
//! version script) is not exported.
//!
//! The exports are left out of unit-test builds: in a test executable they
//! would replace the C library's read, write, close... for the test harness
//! itself.

// Unit-test builds leave out `preload` (see above), the only caller of much
// of the rest: there, that code is unused by design.
#![cfg_attr(test, allow(dead_code, unused_imports))]

/// Name used in our own diagnostics (see `rdma_util::ffi::guard`).
pub(crate) const LIB_NAME: &str = "librspreload";

mod config;
mod epoll;
mod fdtable;
#[cfg(not(test))]
mod preload;
mod real;
mod rs;
mod state;
