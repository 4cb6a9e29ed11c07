//! The prototypes of `<rdma/rsocket.h>`: the rsocket calls.

use core::ffi::{c_int, c_void};
use libc::{
    epoll_event, fd_set, iovec, msghdr, nfds_t, off_t, pollfd, sockaddr, socklen_t, ssize_t,
    timeval,
};

pub type rsocket = unsafe extern "C" fn(domain: c_int, type_: c_int, protocol: c_int) -> c_int;
pub type rbind =
    unsafe extern "C" fn(socket: c_int, addr: *const sockaddr, addrlen: socklen_t) -> c_int;
pub type rlisten = unsafe extern "C" fn(socket: c_int, backlog: c_int) -> c_int;
pub type raccept =
    unsafe extern "C" fn(socket: c_int, addr: *mut sockaddr, addrlen: *mut socklen_t) -> c_int;
pub type rconnect =
    unsafe extern "C" fn(socket: c_int, addr: *const sockaddr, addrlen: socklen_t) -> c_int;
pub type rshutdown = unsafe extern "C" fn(socket: c_int, how: c_int) -> c_int;
pub type rclose = unsafe extern "C" fn(socket: c_int) -> c_int;
pub type rrecv =
    unsafe extern "C" fn(socket: c_int, buf: *mut c_void, len: usize, flags: c_int) -> ssize_t;
pub type rrecvfrom = unsafe extern "C" fn(
    socket: c_int,
    buf: *mut c_void,
    len: usize,
    flags: c_int,
    src_addr: *mut sockaddr,
    addrlen: *mut socklen_t,
) -> ssize_t;
pub type rrecvmsg = unsafe extern "C" fn(socket: c_int, msg: *mut msghdr, flags: c_int) -> ssize_t;
pub type rsend =
    unsafe extern "C" fn(socket: c_int, buf: *const c_void, len: usize, flags: c_int) -> ssize_t;
pub type rsendto = unsafe extern "C" fn(
    socket: c_int,
    buf: *const c_void,
    len: usize,
    flags: c_int,
    dest_addr: *const sockaddr,
    addrlen: socklen_t,
) -> ssize_t;
pub type rsendmsg =
    unsafe extern "C" fn(socket: c_int, msg: *const msghdr, flags: c_int) -> ssize_t;
pub type rread = unsafe extern "C" fn(socket: c_int, buf: *mut c_void, count: usize) -> ssize_t;
pub type rreadv = unsafe extern "C" fn(socket: c_int, iov: *const iovec, iovcnt: c_int) -> ssize_t;
pub type rwrite = unsafe extern "C" fn(socket: c_int, buf: *const c_void, count: usize) -> ssize_t;
pub type rwritev = unsafe extern "C" fn(socket: c_int, iov: *const iovec, iovcnt: c_int) -> ssize_t;
pub type rpoll = unsafe extern "C" fn(fds: *mut pollfd, nfds: nfds_t, timeout: c_int) -> c_int;
pub type rselect = unsafe extern "C" fn(
    nfds: c_int,
    readfds: *mut fd_set,
    writefds: *mut fd_set,
    exceptfds: *mut fd_set,
    timeout: *mut timeval,
) -> c_int;
pub type rgetpeername =
    unsafe extern "C" fn(socket: c_int, addr: *mut sockaddr, addrlen: *mut socklen_t) -> c_int;
pub type rgetsockname =
    unsafe extern "C" fn(socket: c_int, addr: *mut sockaddr, addrlen: *mut socklen_t) -> c_int;
pub type rsetsockopt = unsafe extern "C" fn(
    socket: c_int,
    level: c_int,
    optname: c_int,
    optval: *const c_void,
    optlen: socklen_t,
) -> c_int;
pub type rgetsockopt = unsafe extern "C" fn(
    socket: c_int,
    level: c_int,
    optname: c_int,
    optval: *mut c_void,
    optlen: *mut socklen_t,
) -> c_int;
pub type rfcntl = unsafe extern "C" fn(socket: c_int, cmd: c_int, ...) -> c_int;
pub type riomap = unsafe extern "C" fn(
    socket: c_int,
    buf: *mut c_void,
    len: usize,
    prot: c_int,
    flags: c_int,
    offset: off_t,
) -> off_t;
pub type riounmap = unsafe extern "C" fn(socket: c_int, buf: *mut c_void, len: usize) -> c_int;
pub type riowrite = unsafe extern "C" fn(
    socket: c_int,
    buf: *const c_void,
    count: usize,
    offset: off_t,
    flags: c_int,
) -> usize;
pub type repoll_create = unsafe extern "C" fn(flags: c_int) -> c_int;
pub type repoll_ctl =
    unsafe extern "C" fn(epfd: c_int, op: c_int, fd: c_int, event: *mut epoll_event) -> c_int;
pub type repoll_wait = unsafe extern "C" fn(
    epfd: c_int,
    events: *mut epoll_event,
    maxevents: c_int,
    timeout: c_int,
) -> c_int;
