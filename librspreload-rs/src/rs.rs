//! The rsocket family, imported from librdmacm.so.1 (RDMACM_1.0).
use libc::{c_int, c_void, iovec, msghdr, nfds_t, pollfd, size_t, sockaddr, socklen_t, ssize_t};

// The rsocket option constants of rdma/rsocket.h.
pub(crate) use rdma_abi::rsocket::{RDMA_INLINE, RDMA_RQSIZE, RDMA_SQSIZE, SOL_RDMA};

// raccept and rpoll wait in cancellation points that may unwind the thread
// (librdmacm's ffi::cancellable): called so, from an export's own frame
// outside its guard, the unwind reaches the application.
extern "C-unwind" {
    pub(crate) fn raccept(socket: c_int, addr: *mut sockaddr, addrlen: *mut socklen_t) -> c_int;
    pub(crate) fn rpoll(fds: *mut pollfd, nfds: nfds_t, timeout: c_int) -> c_int;
}

extern "C" {
    pub(crate) fn rsocket(domain: c_int, ty: c_int, protocol: c_int) -> c_int;
    pub(crate) fn rbind(socket: c_int, addr: *const sockaddr, addrlen: socklen_t) -> c_int;
    pub(crate) fn rlisten(socket: c_int, backlog: c_int) -> c_int;
    pub(crate) fn rconnect(socket: c_int, addr: *const sockaddr, addrlen: socklen_t) -> c_int;
    pub(crate) fn rshutdown(socket: c_int, how: c_int) -> c_int;
    pub(crate) fn rclose(socket: c_int) -> c_int;
    pub(crate) fn rrecv(socket: c_int, buf: *mut c_void, len: size_t, flags: c_int) -> ssize_t;
    pub(crate) fn rrecvfrom(
        socket: c_int,
        buf: *mut c_void,
        len: size_t,
        flags: c_int,
        src_addr: *mut sockaddr,
        addrlen: *mut socklen_t,
    ) -> ssize_t;
    pub(crate) fn rrecvmsg(socket: c_int, msg: *mut msghdr, flags: c_int) -> ssize_t;
    pub(crate) fn rsend(socket: c_int, buf: *const c_void, len: size_t, flags: c_int) -> ssize_t;
    pub(crate) fn rsendto(
        socket: c_int,
        buf: *const c_void,
        len: size_t,
        flags: c_int,
        dest_addr: *const sockaddr,
        addrlen: socklen_t,
    ) -> ssize_t;
    pub(crate) fn rsendmsg(socket: c_int, msg: *const msghdr, flags: c_int) -> ssize_t;
    pub(crate) fn rread(socket: c_int, buf: *mut c_void, count: size_t) -> ssize_t;
    pub(crate) fn rreadv(socket: c_int, iov: *const iovec, iovcnt: c_int) -> ssize_t;
    pub(crate) fn rwrite(socket: c_int, buf: *const c_void, count: size_t) -> ssize_t;
    pub(crate) fn rwritev(socket: c_int, iov: *const iovec, iovcnt: c_int) -> ssize_t;
    pub(crate) fn rgetpeername(socket: c_int, addr: *mut sockaddr, addrlen: *mut socklen_t) -> c_int;
    pub(crate) fn rgetsockname(socket: c_int, addr: *mut sockaddr, addrlen: *mut socklen_t) -> c_int;
    pub(crate) fn rsetsockopt(socket: c_int, level: c_int, optname: c_int, optval: *const c_void, optlen: socklen_t) -> c_int;
    pub(crate) fn rgetsockopt(socket: c_int, level: c_int, optname: c_int, optval: *mut c_void, optlen: *mut socklen_t)
        -> c_int;
    pub(crate) fn rfcntl(socket: c_int, cmd: c_int, ...) -> c_int;
}
