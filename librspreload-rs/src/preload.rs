//! The exported socket calls.
//!
//! Each looks its descriptor up in the index ([`crate::fdtable`]) and sends
//! the call to the rsocket function or to the C library's own function with
//! the descriptor that does the work. Every export runs under the panic
//! guard and leaves errno as the function it called set it.
//!
//! Nothing here calls the libc names this library defines (they would come
//! back here): the C library's versions come from [`crate::real`].

use crate::epoll::{self, Route, REGISTRY};
use crate::fdtable::{ClosePlan, Entry, FdType, ForkState, TABLE};
use rdma_util::ffi::{errno, set_errno, ErrnoGuard};
use crate::real;
use crate::rs::*;
use crate::state;
use libc::{
    c_int, c_ulong, c_void, epoll_event, fd_set, iovec, msghdr, nfds_t, off_t, pollfd, sigset_t, size_t, sockaddr,
    socklen_t, ssize_t, timespec, timeval,
};
use std::cell::Cell;
use std::sync::atomic::Ordering;
use std::sync::Mutex;

thread_local! {
    /// Set while socket() is inside rsocket(): sockets librdmacm makes for
    /// itself are plain kernel sockets.
    static IN_RSOCKET: Cell<bool> = const { Cell::new(false) };
    /// Set while this thread runs a fork-support switch: a call that comes
    /// back here from inside it (a diagnostic written to a descriptor that is
    /// itself waiting to switch) must not wait for the lock it holds.
    static SETTLING: Cell<bool> = const { Cell::new(false) };
}

/// Serialises the fork-support switches (a rare path that blocks).
static FORK_LOCK: Mutex<()> = Mutex::new(());

/// Calls the function that serves a descriptor with the caller's arguments.
macro_rules! pass {
    ($call:expr) => {{
        // SAFETY: the caller's arguments go unchanged to the rsocket or C
        // library function with the same contract as the export; only the
        // descriptor is replaced by the one that does the work.
        unsafe { $call }
    }};
}

/// What an [`export_io!`] export does after its guarded part.
enum Then<T> {
    /// Return this.
    Done(T),
    /// Call the C library's function with this descriptor in place of the
    /// caller's, the other arguments unchanged.
    Real(c_int),
}

/// An export whose ordinary-descriptor path ends in a C library call that
/// is a cancellation point (read, accept, poll, close, ...). The body runs
/// under the panic guard and decides; the C library call itself is made
/// after it, in the export's own frame, where nothing has a destructor: a
/// thread cancelled while blocked there unwinds into its caller as it would
/// without the preload, instead of meeting the guard (which aborts the
/// process on any unwind that is not a Rust panic; see `ffi::cancellable`).
macro_rules! export_io {
    (
        $(#[$meta:meta])*
        fn $name:ident ( $sock:ident : c_int $(, $arg:ident : $ty:ty)* $(,)? ) -> $ret:ty, on_panic = $fail:expr;
        $body:block
    ) => {
        $(#[$meta])*
        ///
        /// # Safety
        /// As the C library's function of the same name.
        #[no_mangle]
        pub unsafe extern "C-unwind" fn $name($sock: c_int $(, $arg: $ty)*) -> $ret {
            match rdma_util::ffi::guard(crate::LIB_NAME, stringify!($name), Then::Done($fail), move || -> Then<$ret> { $body }) {
                Then::Done(r) => r,
                // SAFETY: the caller's arguments go unchanged to the C
                // library's function, the descriptor replaced by the one
                // that does the work.
                Then::Real(fd) => unsafe { (real::$name())(fd $(, $arg)*) },
            }
        }
    };
}

/// Takes a number for a new socket: a descriptor of /dev/null, recorded in
/// the index. -1 with errno on failure (ENOMEM beyond the index's range).
fn fd_open() -> c_int {
    // SAFETY: open(2) of a NUL-terminated path; open is not one of ours.
    let index = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY) };
    if index < 0 {
        return index;
    }
    let placeholder = Entry { fd: index, ty: FdType::Normal, state: ForkState::Ready };
    if TABLE.insert(index, placeholder).is_err() {
        // SAFETY: closes the descriptor opened just above.
        unsafe { real::close()(index) };
        set_errno(libc::ENOMEM);
        return -1;
    }
    index
}

/// Gives back a number from fd_open that was not handed out; errno kept.
fn fd_discard(index: c_int) {
    let _keep = ErrnoGuard::new();
    TABLE.remove(index);
    // SAFETY: index is the /dev/null descriptor fd_open opened.
    unsafe { real::close()(index) };
}

/// Applies RS_SQ_SIZE / RS_RQ_SIZE / RS_INLINE to a new rsocket; failures
/// leave librdmacm's defaults.
fn set_rsocket_options(rsock: c_int) {
    let _keep = ErrnoGuard::new();
    for (opt, v) in [
        (RDMA_SQSIZE, &state::SQ_SIZE),
        (RDMA_RQSIZE, &state::RQ_SIZE),
        (RDMA_INLINE, &state::SQ_INLINE),
    ] {
        let val = v.load(Ordering::Relaxed);
        if val != 0 {
            // SAFETY: optval points at a live int of the length given.
            unsafe {
                rsetsockopt(rsock, SOL_RDMA, opt, &val as *const c_int as *const c_void, 4);
            }
        }
    }
}

/// One side of a socket API, to copy options across.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Api {
    Real,
    Rs,
}

fn api_fcntl(api: Api, fd: c_int, cmd: c_int, arg: c_ulong) -> c_int {
    // SAFETY: F_GETFL/F_SETFL with an integer argument.
    unsafe {
        match api {
            Api::Real => real::fcntl()(fd, cmd, arg),
            Api::Rs => rfcntl(fd, cmd, arg),
        }
    }
}

fn api_getsockopt(api: Api, fd: c_int, level: c_int, name: c_int, val: &mut c_int, len: &mut socklen_t) -> c_int {
    let (v, l) = (val as *mut c_int as *mut c_void, len as *mut socklen_t);
    // SAFETY: v and l point at live locals; *l holds the buffer size.
    unsafe {
        match api {
            Api::Real => real::getsockopt()(fd, level, name, v, l),
            Api::Rs => rgetsockopt(fd, level, name, v, l),
        }
    }
}

fn api_setsockopt(api: Api, fd: c_int, level: c_int, name: c_int, val: &c_int, len: socklen_t) -> c_int {
    let v = val as *const c_int as *const c_void;
    // SAFETY: v points at a live int of at least len bytes (len <= 4).
    unsafe {
        match api {
            Api::Real => real::setsockopt()(fd, level, name, v, len),
            Api::Rs => rsetsockopt(fd, level, name, v, len),
        }
    }
}

/// Carries the file status flags, SO_REUSEADDR and TCP_NODELAY from `sfd`
/// (on `src`) to `dfd` (on `dst`), as upstream does when it swaps a socket
/// for the other kind. Nonzero on the first failure.
fn copy_sockopts(dfd: c_int, sfd: c_int, dst: Api, src: Api) -> c_int {
    let mut ret = api_fcntl(src, sfd, libc::F_GETFL, 0);
    if ret > 0 {
        ret = api_fcntl(dst, dfd, libc::F_SETFL, ret as c_ulong);
    }
    if ret != 0 {
        return ret;
    }
    for (level, name) in [(libc::SOL_SOCKET, libc::SO_REUSEADDR), (libc::IPPROTO_TCP, libc::TCP_NODELAY)] {
        let mut param: c_int = 0;
        let mut len = 4 as socklen_t;
        let mut ret = api_getsockopt(src, sfd, level, name, &mut param, &mut len);
        if param != 0 && ret == 0 {
            ret = api_setsockopt(dst, dfd, level, name, &param, len);
        }
        if ret != 0 {
            return ret;
        }
    }
    0
}

/// Replaces the rsocket behind `index` with a new kernel TCP socket of the
/// same family, carrying its options over. The new descriptor, or a
/// negative value on failure (the entry then unchanged).
fn rsocket_to_normal(index: c_int) -> c_int {
    let sfd = TABLE.getd(index);
    let mut len: socklen_t = 0;
    // SAFETY: a zero-length query: only the address length is written.
    let ret = unsafe { rgetsockname(sfd, std::ptr::null_mut(), &mut len) };
    if ret != 0 {
        return ret;
    }
    let family = if len as usize == std::mem::size_of::<libc::sockaddr_in6>() { libc::AF_INET6 } else { libc::AF_INET };
    // SAFETY: plain socket(2) through the C library.
    let dfd = unsafe { real::socket()(family, libc::SOCK_STREAM, 0) };
    if dfd < 0 {
        return dfd;
    }
    let ret = copy_sockopts(dfd, sfd, Api::Real, Api::Rs);
    if ret != 0 {
        let _keep = ErrnoGuard::new();
        // SAFETY: closes the socket made just above.
        unsafe { real::close()(dfd) };
        return ret;
    }
    TABLE.store(index, dfd, FdType::Normal, ForkState::Ready);
    dfd
}

/// Fork support, connecting side: the peer (an accepted socket of a preloaded
/// server in fork mode) sends a 4-byte zero once its rsocket listener is up;
/// then connect an rsocket to the same address and drop the TCP connection.
/// Anything else leaves the TCP connection as a plain socket.
fn fork_active(index: c_int) {
    let sfd = TABLE.getd(index);
    let mut msg: u32 = 0xffff_ffff;
    // SAFETY: fcntl/recv/getpeername on a descriptor we own, into live locals.
    let switched = unsafe {
        let flags = real::fcntl()(sfd, libc::F_GETFL);
        real::fcntl()(sfd, libc::F_SETFL, 0 as c_ulong);
        let got = real::recv()(sfd, &mut msg as *mut u32 as *mut c_void, 4, libc::MSG_PEEK);
        real::fcntl()(sfd, libc::F_SETFL, flags as c_ulong);
        let mut addr: libc::sockaddr_storage = std::mem::zeroed();
        let mut len = std::mem::size_of::<libc::sockaddr_storage>() as socklen_t;
        if got != 4 || msg != 0 || real::getpeername()(sfd, &mut addr as *mut _ as *mut sockaddr, &mut len) != 0 {
            None
        } else {
            let dfd = rsocket(c_int::from(addr.ss_family), libc::SOCK_STREAM, 0);
            if dfd < 0 {
                None
            } else if rconnect(dfd, &addr as *const _ as *const sockaddr, len) != 0 {
                rclose(dfd);
                None
            } else {
                Some(dfd)
            }
        }
    };
    match switched {
        Some(dfd) => {
            set_rsocket_options(dfd);
            copy_sockopts(dfd, sfd, Api::Rs, Api::Real);
            // SAFETY: the TCP socket we replace; nobody else holds it.
            unsafe {
                real::shutdown()(sfd, libc::SHUT_RDWR);
                real::close()(sfd);
            }
            TABLE.store(index, dfd, FdType::Rsocket, ForkState::Ready);
        }
        None => TABLE.store(index, sfd, FdType::Normal, ForkState::Ready),
    }
}

/// Fork support, accepting side: listen on an rsocket at the TCP socket's
/// port (any address), tell the peer with a 4-byte zero, accept its rsocket
/// connection and drop the TCP one. A machine-wide named semaphore keeps two
/// processes from racing for the port.
fn fork_passive(index: c_int) {
    let sfd = TABLE.getd(index);
    // -1: failed, fall back to the TCP socket; 0: done or to be retried.
    let mut ret: c_int;
    // SAFETY: the calls below get valid pointers to live locals; sem is
    // checked against SEM_FAILED before use and closed once.
    unsafe {
        let mut sin6: libc::sockaddr_in6 = std::mem::zeroed();
        let mut len = std::mem::size_of::<libc::sockaddr_in6>() as socklen_t;
        ret = real::getsockname()(sfd, &mut sin6 as *mut _ as *mut sockaddr, &mut len);
        if ret == 0 {
            // For AF_INET this also clears sin_addr (which overlays
            // sin6_flowinfo): the listener binds to any address.
            sin6.sin6_flowinfo = 0;
            sin6.sin6_scope_id = 0;
            sin6.sin6_addr = std::mem::zeroed();
            let sem = libc::sem_open(
                c"/rsocket_fork".as_ptr(),
                libc::O_CREAT | libc::O_RDWR,
                (libc::S_IRWXU | libc::S_IRWXG) as libc::c_uint,
                1 as libc::c_uint,
            );
            if sem == libc::SEM_FAILED {
                ret = -1;
            } else {
                let lfd = rsocket(c_int::from(sin6.sin6_family), libc::SOCK_STREAM, 0);
                if lfd < 0 {
                    ret = lfd;
                } else {
                    let one: c_int = 1;
                    rsetsockopt(lfd, libc::SOL_SOCKET, libc::SO_REUSEADDR, &one as *const c_int as *const c_void, 4);
                    libc::sem_wait(sem);
                    ret = rbind(lfd, &sin6 as *const _ as *const sockaddr, std::mem::size_of::<libc::sockaddr_in6>() as socklen_t);
                    if ret == 0 {
                        ret = rlisten(lfd, 1);
                    }
                    if ret == 0 {
                        let zero: u32 = 0;
                        let n = real::write()(sfd, &zero as *const u32 as *const c_void, 4);
                        // A short write leaves ret at 0: the switch is tried
                        // again at the next call, as upstream does.
                        if n == 4 {
                            let dfd = raccept(lfd, std::ptr::null_mut(), std::ptr::null_mut());
                            if dfd < 0 {
                                ret = dfd;
                            } else {
                                set_rsocket_options(dfd);
                                copy_sockopts(dfd, sfd, Api::Rs, Api::Real);
                                real::shutdown()(sfd, libc::SHUT_RDWR);
                                real::close()(sfd);
                                TABLE.store(index, dfd, FdType::Rsocket, ForkState::Ready);
                            }
                        }
                    }
                    rclose(lfd);
                    libc::sem_post(sem);
                }
                libc::sem_close(sem);
            }
        }
    }
    if ret != 0 {
        TABLE.store(index, sfd, FdType::Normal, ForkState::Ready);
    }
}

/// Finishes a pending fork-support switch of `index`, if any.
fn fork_settle(index: c_int) {
    let pending = |i| matches!(TABLE.get(i), Some(Entry { state: ForkState::Active | ForkState::Passive, .. }));
    if !pending(index) || SETTLING.get() {
        return;
    }
    let _g = FORK_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    struct Settling;
    impl Drop for Settling {
        fn drop(&mut self) {
            SETTLING.set(false);
        }
    }
    SETTLING.set(true);
    let _s = Settling;
    match TABLE.get(index).map(|e| e.state) {
        Some(ForkState::Passive) => fork_passive(index),
        Some(ForkState::Active) => fork_active(index),
        _ => {}
    }
}

/// The kind and working descriptor of `index`.
#[inline]
fn fd_get(index: c_int) -> (FdType, c_int) {
    crate::epoll::note_call(index);
    match TABLE.get(index) {
        Some(e) => (e.ty, e.fd),
        None => (FdType::Normal, index),
    }
}

/// Like [`fd_get`], after finishing a pending fork-support switch.
#[inline]
fn fd_fork_get(index: c_int) -> (FdType, c_int) {
    crate::epoll::note_call(index);
    match TABLE.get(index) {
        None => (FdType::Normal, index),
        Some(Entry { state: ForkState::Active | ForkState::Passive, .. }) => {
            fork_settle(index);
            fd_get(index)
        }
        Some(e) => (e.ty, e.fd),
    }
}

rdma_util::export! {
    /// socket(2): an rsocket where the rules allow and librdmacm can make one
    /// (the program gets a number of its own for it), else a kernel socket.
    fn socket(domain: c_int, ty: c_int, protocol: c_int) -> c_int, on_panic = -1;
    {
        state::init();
        if IN_RSOCKET.get() || !state::intercept(domain, ty, protocol) {
            return pass!(real::socket()(domain, ty, protocol));
        }
        let index = fd_open();
        if index < 0 {
            return index;
        }
        let tcp = (domain == libc::AF_INET || domain == libc::AF_INET6)
            && ty == libc::SOCK_STREAM
            && (protocol == 0 || protocol == libc::IPPROTO_TCP);
        if state::fork_support() && tcp {
            let fd = pass!(real::socket()(domain, ty, protocol));
            if fd < 0 {
                fd_discard(index);
                return fd;
            }
            TABLE.store(index, fd, FdType::Normal, ForkState::Fork);
            return index;
        }
        IN_RSOCKET.set(true);
        let fd = pass!(rsocket(domain, ty, protocol));
        IN_RSOCKET.set(false);
        if fd >= 0 {
            TABLE.store(index, fd, FdType::Rsocket, ForkState::Ready);
            set_rsocket_options(fd);
            return index;
        }
        fd_discard(index);
        pass!(real::socket()(domain, ty, protocol))
    }
}

rdma_util::export! {
    fn bind(socket: c_int, addr: *const sockaddr, addrlen: socklen_t) -> c_int, on_panic = -1;
    {
        match fd_get(socket) {
            (FdType::Rsocket, fd) => pass!(rbind(fd, addr, addrlen)),
            (FdType::Normal, fd) => pass!(real::bind()(fd, addr, addrlen)),
        }
    }
}

rdma_util::export! {
    fn listen(socket: c_int, backlog: c_int) -> c_int, on_panic = -1;
    {
        match fd_get(socket) {
            (FdType::Rsocket, fd) => pass!(rlisten(fd, backlog)),
            (FdType::Normal, fd) => {
                let ret = pass!(real::listen()(fd, backlog));
                if ret == 0 && TABLE.get(socket).map(|e| e.state) == Some(ForkState::Fork) {
                    TABLE.store(socket, fd, FdType::Normal, ForkState::Listen);
                }
                ret
            }
        }
    }
}

/// How accept goes on after its guarded first part.
enum AcceptPlan {
    Done(c_int),
    /// The C library's accept on this descriptor.
    Real(c_int),
    /// raccept on the rsocket `fd` for the new number `index`.
    Rsocket { fd: c_int, index: c_int },
}

/// accept(2): an accepted rsocket gets a number of its own; in fork-support
/// mode an accepted TCP connection is recorded to switch later. The waits
/// (the C library's accept, raccept) run outside the guard, as in
/// [`export_io!`].
///
/// # Safety
/// As accept(2).
#[no_mangle]
pub unsafe extern "C-unwind" fn accept(socket: c_int, addr: *mut sockaddr, addrlen: *mut socklen_t) -> c_int {
    let plan = rdma_util::ffi::guard(crate::LIB_NAME, "accept", AcceptPlan::Done(-1), move || {
        let e = TABLE.get(socket);
        let (ty, fd) = fd_get(socket);
        let fork_listen = matches!(e, Some(Entry { state: ForkState::Listen, .. }));
        if ty != FdType::Rsocket && !fork_listen {
            return AcceptPlan::Real(fd);
        }
        let index = fd_open();
        if index < 0 {
            return AcceptPlan::Done(index);
        }
        if ty == FdType::Rsocket {
            return AcceptPlan::Rsocket { fd, index };
        }
        let nfd = pass!(real::accept()(fd, addr, addrlen));
        AcceptPlan::Done(accepted(index, nfd, FdType::Normal, ForkState::Passive))
    });
    match plan {
        AcceptPlan::Done(r) => r,
        // SAFETY: the caller's arguments, the descriptor replaced by the
        // one that does the work.
        AcceptPlan::Real(fd) => unsafe { (real::accept())(fd, addr, addrlen) },
        AcceptPlan::Rsocket { fd, index } => {
            // SAFETY: as above.
            let nfd = unsafe { raccept(fd, addr, addrlen) };
            rdma_util::ffi::guard(crate::LIB_NAME, "accept", -1, move || accepted(index, nfd, FdType::Rsocket, ForkState::Ready))
        }
    }
}

/// Records an accepted descriptor under the number taken for it (or gives
/// the number back when the accept failed).
fn accepted(index: c_int, nfd: c_int, ty: FdType, state: ForkState) -> c_int {
    if nfd < 0 {
        fd_discard(index);
        return nfd;
    }
    TABLE.store(index, nfd, ty, state);
    index
}

export_io! {
    /// connect(2). An rsocket whose connect fails (other than "in progress")
    /// becomes a kernel TCP socket that connects instead.
    fn connect(socket: c_int, addr: *const sockaddr, addrlen: socklen_t) -> c_int, on_panic = -1;
    {
        let mut fd = match fd_get(socket) {
            (FdType::Rsocket, fd) => {
                let ret = pass!(rconnect(fd, addr, addrlen));
                if ret == 0 || errno() == libc::EINPROGRESS {
                    return Then::Done(ret);
                }
                let dfd = rsocket_to_normal(socket);
                if dfd < 0 {
                    return Then::Done(dfd);
                }
                // SAFETY: the rsocket this index no longer uses.
                unsafe { rclose(fd) };
                dfd
            }
            (FdType::Normal, fd) => fd,
        };
        if TABLE.get(socket).map(|e| e.state) == Some(ForkState::Fork) {
            fd = TABLE.getd(socket);
            TABLE.store(socket, fd, FdType::Normal, ForkState::Active);
        }
        Then::Real(fd)
    }
}

export_io! {
    fn recv(socket: c_int, buf: *mut c_void, len: size_t, flags: c_int) -> ssize_t, on_panic = -1;
    {
        match fd_fork_get(socket) {
            (FdType::Rsocket, fd) => Then::Done(pass!(rrecv(fd, buf, len, flags))),
            (FdType::Normal, fd) => Then::Real(fd),
        }
    }
}

export_io! {
    fn recvfrom(socket: c_int, buf: *mut c_void, len: size_t, flags: c_int, src_addr: *mut sockaddr,
                addrlen: *mut socklen_t) -> ssize_t, on_panic = -1;
    {
        match fd_fork_get(socket) {
            (FdType::Rsocket, fd) => Then::Done(pass!(rrecvfrom(fd, buf, len, flags, src_addr, addrlen))),
            (FdType::Normal, fd) => Then::Real(fd),
        }
    }
}

export_io! {
    fn recvmsg(socket: c_int, msg: *mut msghdr, flags: c_int) -> ssize_t, on_panic = -1;
    {
        match fd_fork_get(socket) {
            (FdType::Rsocket, fd) => Then::Done(pass!(rrecvmsg(fd, msg, flags))),
            (FdType::Normal, fd) => Then::Real(fd),
        }
    }
}

export_io! {
    fn read(socket: c_int, buf: *mut c_void, count: size_t) -> ssize_t, on_panic = -1;
    {
        match fd_fork_get(socket) {
            (FdType::Rsocket, fd) => Then::Done(pass!(rread(fd, buf, count))),
            (FdType::Normal, fd) => Then::Real(fd),
        }
    }
}

export_io! {
    fn readv(socket: c_int, iov: *const iovec, iovcnt: c_int) -> ssize_t, on_panic = -1;
    {
        match fd_fork_get(socket) {
            (FdType::Rsocket, fd) => Then::Done(pass!(rreadv(fd, iov, iovcnt))),
            (FdType::Normal, fd) => Then::Real(fd),
        }
    }
}

export_io! {
    fn send(socket: c_int, buf: *const c_void, len: size_t, flags: c_int) -> ssize_t, on_panic = -1;
    {
        match fd_fork_get(socket) {
            (FdType::Rsocket, fd) => Then::Done(pass!(rsend(fd, buf, len, flags))),
            (FdType::Normal, fd) => Then::Real(fd),
        }
    }
}

export_io! {
    fn sendto(socket: c_int, buf: *const c_void, len: size_t, flags: c_int, dest_addr: *const sockaddr,
              addrlen: socklen_t) -> ssize_t, on_panic = -1;
    {
        match fd_fork_get(socket) {
            (FdType::Rsocket, fd) => Then::Done(pass!(rsendto(fd, buf, len, flags, dest_addr, addrlen))),
            (FdType::Normal, fd) => Then::Real(fd),
        }
    }
}

export_io! {
    fn sendmsg(socket: c_int, msg: *const msghdr, flags: c_int) -> ssize_t, on_panic = -1;
    {
        match fd_fork_get(socket) {
            (FdType::Rsocket, fd) => Then::Done(pass!(rsendmsg(fd, msg, flags))),
            (FdType::Normal, fd) => Then::Real(fd),
        }
    }
}

export_io! {
    fn write(socket: c_int, buf: *const c_void, count: size_t) -> ssize_t, on_panic = -1;
    {
        match fd_fork_get(socket) {
            (FdType::Rsocket, fd) => Then::Done(pass!(rwrite(fd, buf, count))),
            (FdType::Normal, fd) => Then::Real(fd),
        }
    }
}

export_io! {
    fn writev(socket: c_int, iov: *const iovec, iovcnt: c_int) -> ssize_t, on_panic = -1;
    {
        match fd_fork_get(socket) {
            (FdType::Rsocket, fd) => Then::Done(pass!(rwritev(fd, iov, iovcnt))),
            (FdType::Normal, fd) => Then::Real(fd),
        }
    }
}

/// poll(2): rpoll when any descriptor is an rsocket, else the C library's
/// poll, in both cases on the descriptors that do the work. The wait runs
/// outside the guard (as in [`export_io!`]), on the caller's set when none
/// of its descriptors is ours, else on a translated copy (on this frame's
/// stack for up to 16 entries, a raw heap allocation beyond: nothing with a
/// destructor).
///
/// # Safety
/// As poll(2).
#[no_mangle]
pub unsafe extern "C-unwind" fn poll(fds: *mut pollfd, nfds: nfds_t, timeout: c_int) -> c_int {
    let zero = pollfd { fd: -1, events: 0, revents: 0 };
    let mut small = [zero; 16];
    let small_ptr = small.as_mut_ptr();
    let plan = rdma_util::ffi::guard(crate::LIB_NAME, "poll", Err(libc::EIO), move || poll_translate(fds, nfds, small_ptr));
    let plan = match plan {
        Ok(p) => p,
        Err(e) => {
            set_errno(e);
            return -1;
        }
    };
    let Some((work, rsock)) = plan else {
        // SAFETY: the caller's arguments, unchanged.
        return unsafe { (real::poll())(fds, nfds, timeout) };
    };
    // SAFETY: the translated set of nfds entries.
    let ret = unsafe {
        if rsock {
            rpoll(work, nfds, timeout)
        } else {
            (real::poll())(work, nfds, timeout)
        }
    };
    let e = errno();
    rdma_util::ffi::guard(crate::LIB_NAME, "poll", (), move || {
        // SAFETY: the caller's nfds entries and our translated copy.
        unsafe {
            let user = std::slice::from_raw_parts_mut(fds, nfds as usize);
            let w = std::slice::from_raw_parts(work, nfds as usize);
            for (u, w) in user.iter_mut().zip(w.iter()) {
                u.revents = w.revents;
            }
            if work != small_ptr {
                drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(work, nfds as usize)));
            }
        }
    });
    set_errno(e);
    ret
}

/// The set poll(2) waits on: None for the caller's own (no descriptor of
/// ours in it); else the translated copy (in `small` when it fits) and
/// whether it holds an rsocket. ENOMEM when a copy larger than `small`
/// cannot be allocated.
fn poll_translate(fds: *mut pollfd, nfds: nfds_t, small: *mut pollfd) -> Result<Option<(*mut pollfd, bool)>, c_int> {
    if fds.is_null() || nfds == 0 || nfds > (1 << 20) {
        return Ok(None);
    }
    // SAFETY: the caller passes nfds pollfd entries at fds.
    let user = unsafe { std::slice::from_raw_parts_mut(fds, nfds as usize) };
    let mut mapped = false;
    let mut rsock = false;
    for p in user.iter() {
        if let Some(e) = TABLE.get(p.fd) {
            mapped = true;
            if e.ty == FdType::Rsocket {
                rsock = true;
                break;
            }
        }
    }
    if !mapped {
        return Ok(None);
    }
    let n = user.len();
    let work = if n <= 16 {
        small
    } else {
        let zero = pollfd { fd: -1, events: 0, revents: 0 };
        Box::into_raw(rdma_util::fallible::boxed_slice_filled(zero, n).map_err(|_| libc::ENOMEM)?).cast::<pollfd>()
    };
    // SAFETY: work holds n entries (the 16 of `small`, or just allocated).
    let w = unsafe { std::slice::from_raw_parts_mut(work, n) };
    for (w, u) in w.iter_mut().zip(user.iter()) {
        *w = pollfd { fd: TABLE.getd(u.fd), events: u.events, revents: 0 };
    }
    Ok(Some((work, rsock)))
}

/// fd_set bit helpers over a raw set of at least `nfds` bits.
fn set_has(set: *const fd_set, fd: usize) -> bool {
    if set.is_null() {
        return false;
    }
    let words = set as *const c_ulong;
    let bits = c_ulong::BITS as usize;
    // SAFETY: the caller's set covers at least nfds bits and fd < nfds.
    unsafe { *words.add(fd / bits) & (1 << (fd % bits)) != 0 }
}

fn set_add(set: *mut fd_set, fd: usize) {
    let words = set as *mut c_ulong;
    let bits = c_ulong::BITS as usize;
    // SAFETY: as in set_has.
    unsafe { *words.add(fd / bits) |= 1 << (fd % bits) };
}

fn set_clear(set: *mut fd_set, nfds: usize) {
    if set.is_null() {
        return;
    }
    let bytes = std::mem::size_of::<fd_set>().max(nfds.div_ceil(8));
    // SAFETY: the set is an fd_set (FD_ZERO clears all of it) or, for more
    // than FD_SETSIZE descriptors, an array the caller sized for nfds bits.
    unsafe { std::ptr::write_bytes(set as *mut u8, 0, bytes) };
}

/// select's rpoll set: the caller's descriptor numbers and the pollfds
/// for the descriptors that do the work, as raw allocations (see
/// [`select`]), and rpoll's timeout.
#[derive(Clone, Copy)]
struct SelectSet {
    users: *mut c_int,
    pfds: *mut pollfd,
    len: usize,
    ms: c_int,
}

/// select(2) through rpoll, which serves rsockets and kernel descriptors
/// alike. The timeout is not updated. The wait runs outside the guard (as
/// in [`export_io!`]) on a set held as raw allocations, so that the frame
/// holds nothing with a destructor.
///
/// # Safety
/// As select(2).
#[no_mangle]
pub unsafe extern "C-unwind" fn select(nfds: c_int, readfds: *mut fd_set, writefds: *mut fd_set, exceptfds: *mut fd_set,
                                        timeout: *mut timeval) -> c_int {
    let set = rdma_util::ffi::guard(crate::LIB_NAME, "select", Err(libc::EIO), move || select_set(nfds, readfds, writefds, exceptfds, timeout));
    let set = match set {
        Ok(s) => s,
        Err(e) => {
            set_errno(e);
            return -1;
        }
    };
    let mut dummy = pollfd { fd: -1, events: 0, revents: 0 };
    let ptr = if set.len == 0 { &mut dummy as *mut pollfd } else { set.pfds };
    // SAFETY: ptr holds set.len entries (or is a dummy for none).
    let ret = unsafe { rpoll(ptr, set.len as nfds_t, set.ms) };
    rdma_util::ffi::guard(crate::LIB_NAME, "select", -1, move || select_answer(set, ret, nfds, readfds, writefds, exceptfds))
}

fn select_set(nfds: c_int, readfds: *mut fd_set, writefds: *mut fd_set, exceptfds: *mut fd_set,
              timeout: *mut timeval) -> Result<SelectSet, c_int> {
    if nfds < 0 {
        return Err(libc::EINVAL);
    }
    let n = nfds as usize;
    // Counted first, then allocated at their exact size (no reallocation).
    let len = (0..n).filter(|&fd| set_has(readfds, fd) || set_has(writefds, fd) || set_has(exceptfds, fd)).count();
    let nomem = |_| libc::ENOMEM;
    let mut users = rdma_util::fallible::boxed_slice_filled(0 as c_int, len).map_err(nomem)?;
    let mut pfds = rdma_util::fallible::boxed_slice_filled(pollfd { fd: -1, events: 0, revents: 0 }, len).map_err(nomem)?;
    let mut k = 0;
    for fd in 0..n {
        let mut events = 0;
        if set_has(readfds, fd) {
            events |= libc::POLLIN;
        }
        if set_has(writefds, fd) {
            events |= libc::POLLOUT;
        }
        if events != 0 || set_has(exceptfds, fd) {
            users[k] = fd as c_int;
            pfds[k] = pollfd { fd: TABLE.getd(fd as c_int), events, revents: 0 };
            k += 1;
        }
    }
    let ms = if timeout.is_null() {
        -1
    } else {
        // SAFETY: a non-null timeout points at the caller's timeval.
        let t = unsafe { &*timeout };
        (t.tv_sec.wrapping_mul(1000).wrapping_add(t.tv_usec / 1000)) as c_int
    };
    Ok(SelectSet {
        users: Box::into_raw(users).cast(),
        pfds: Box::into_raw(pfds).cast(),
        len,
        ms,
    })
}

/// select's answer from rpoll's result; frees the set.
fn select_answer(set: SelectSet, ret: c_int, nfds: c_int, readfds: *mut fd_set, writefds: *mut fd_set,
                 exceptfds: *mut fd_set) -> c_int {
    // SAFETY: from Box::into_raw in select_set, freed once (here).
    let (users, pfds) = unsafe {
        (
            Box::from_raw(std::ptr::slice_from_raw_parts_mut(set.users, set.len)),
            Box::from_raw(std::ptr::slice_from_raw_parts_mut(set.pfds, set.len)),
        )
    };
    let n = nfds as usize;
    let _keep = ErrnoGuard::new();
    set_clear(readfds, n);
    set_clear(writefds, n);
    set_clear(exceptfds, n);
    if ret <= 0 {
        return ret;
    }
    let mut cnt = 0;
    for (&fd, p) in users.iter().zip(pfds.iter()) {
        let fd = fd as usize;
        if !readfds.is_null() && p.revents & libc::POLLIN != 0 {
            set_add(readfds, fd);
            cnt += 1;
        }
        if !writefds.is_null() && p.revents & libc::POLLOUT != 0 {
            set_add(writefds, fd);
            cnt += 1;
        }
        if !exceptfds.is_null() && p.revents & !(libc::POLLIN | libc::POLLOUT) != 0 {
            set_add(exceptfds, fd);
            cnt += 1;
        }
    }
    cnt
}

rdma_util::export! {
    fn shutdown(socket: c_int, how: c_int) -> c_int, on_panic = -1;
    {
        match fd_get(socket) {
            (FdType::Rsocket, fd) => pass!(rshutdown(fd, how)),
            (FdType::Normal, fd) => pass!(real::shutdown()(fd, how)),
        }
    }
}

/// Closes what a close plan releases; the result of closing the working
/// descriptor (0 when it stays open for other numbers).
fn carry_out(plan: ClosePlan) -> c_int {
    match plan {
        ClosePlan::NotMapped => unreachable!("handled by the caller"),
        ClosePlan::Keep { release } => {
            if let Some(i) = release {
                // SAFETY: a /dev/null number of ours, out of the index now.
                unsafe { real::close()(i) };
            }
            0
        }
        ClosePlan::Last { release, fd, ty } => {
            {
                let _keep = ErrnoGuard::new();
                for i in release.into_iter().flatten() {
                    // SAFETY: as above.
                    unsafe { real::close()(i) };
                }
            }
            // SAFETY: the last reference to the working descriptor is gone.
            unsafe {
                match ty {
                    FdType::Rsocket => rclose(fd),
                    FdType::Normal => real::close()(fd),
                }
            }
        }
    }
}

export_io! {
    /// close(2). A number made by dup2 from one of ours shares its socket:
    /// the socket is closed with the last number that refers to it.
    fn close(socket: c_int) -> c_int, on_panic = -1;
    {
        // Its epoll watches go (or its rsocket watch table, if it is an
        // epoll instance), as the kernel drops a closed file's.
        REGISTRY.forget(socket);
        match TABLE.close_plan(socket) {
            ClosePlan::NotMapped => Then::Real(socket),
            plan => Then::Done(carry_out(plan)),
        }
    }
}

rdma_util::export! {
    fn getpeername(socket: c_int, addr: *mut sockaddr, addrlen: *mut socklen_t) -> c_int, on_panic = -1;
    {
        match fd_get(socket) {
            (FdType::Rsocket, fd) => pass!(rgetpeername(fd, addr, addrlen)),
            (FdType::Normal, fd) => pass!(real::getpeername()(fd, addr, addrlen)),
        }
    }
}

rdma_util::export! {
    fn getsockname(socket: c_int, addr: *mut sockaddr, addrlen: *mut socklen_t) -> c_int, on_panic = -1;
    {
        match fd_get(socket) {
            (FdType::Rsocket, fd) => pass!(rgetsockname(fd, addr, addrlen)),
            (FdType::Normal, fd) => pass!(real::getsockname()(fd, addr, addrlen)),
        }
    }
}

rdma_util::export! {
    fn setsockopt(socket: c_int, level: c_int, optname: c_int, optval: *const c_void, optlen: socklen_t)
        -> c_int, on_panic = -1;
    {
        match fd_get(socket) {
            (FdType::Rsocket, fd) => pass!(rsetsockopt(fd, level, optname, optval, optlen)),
            (FdType::Normal, fd) => pass!(real::setsockopt()(fd, level, optname, optval, optlen)),
        }
    }
}

rdma_util::export! {
    fn getsockopt(socket: c_int, level: c_int, optname: c_int, optval: *mut c_void, optlen: *mut socklen_t)
        -> c_int, on_panic = -1;
    {
        match fd_get(socket) {
            (FdType::Rsocket, fd) => pass!(rgetsockopt(fd, level, optname, optval, optlen)),
            (FdType::Normal, fd) => pass!(real::getsockopt()(fd, level, optname, optval, optlen)),
        }
    }
}

rdma_util::export! {
    /// fcntl(2), `int fcntl(int fd, int cmd, ...)`. On x86-64 and aarch64
    /// Linux the one optional argument (an integer or a pointer) arrives in
    /// the register a third fixed argument would, so it is taken as one and
    /// passed on unchanged; commands without an argument ignore it.
    fn fcntl(socket: c_int, cmd: c_int, arg: c_ulong) -> c_int, on_panic = -1;
    {
        match fd_get(socket) {
            (FdType::Rsocket, fd) => pass!(rfcntl(fd, cmd, arg)),
            (FdType::Normal, fd) => pass!(real::fcntl()(fd, cmd, arg)),
        }
    }
}

rdma_util::export! {
    /// dup2(2). Duplicating one of our numbers makes the new number another
    /// name for the same socket. A number that other numbers were duplicated
    /// from cannot be replaced (EBUSY).
    fn dup2(oldfd: c_int, newfd: c_int) -> c_int, on_panic = -1;
    {
        if oldfd == newfd {
            return pass!(real::dup2()(oldfd, newfd));
        }
        let old_mapped = TABLE.get(oldfd).is_some();
        if old_mapped {
            fork_settle(oldfd);
        }
        if TABLE.get(newfd).is_some() {
            rdma_util::ensure!(TABLE.refcnt(newfd) <= 1, libc::EBUSY, -1);
            // Our close: releases the socket behind newfd, and newfd itself.
            // SAFETY: our own close on a number of ours.
            unsafe { close(newfd) };
        }
        let ret = pass!(real::dup2()(oldfd, newfd));
        if ret == newfd {
            // newfd was closed and reused: it no longer names what was
            // watched under it.
            REGISTRY.forget(newfd);
        }
        if !old_mapped || ret != newfd {
            return ret;
        }
        if TABLE.alias(oldfd, newfd).is_err() {
            // SAFETY: the number dup2 just made, which we cannot record.
            unsafe { real::close()(newfd) };
            set_errno(libc::ENOMEM);
            return -1;
        }
        newfd
    }
}

/// sendfile onto an rsocket: copies through a buffer with pread and rwrite,
/// with sendfile's rules for the offset (given: read from *offset and
/// advance it, the file position untouched; NULL: read from and advance the
/// file position).
fn sendfile_rsocket(rfd: c_int, in_fd: c_int, offset: *mut off_t, count: size_t) -> ssize_t {
    let mut pos: off_t = if offset.is_null() {
        // SAFETY: lseek(2) of the caller's descriptor (not one of ours).
        let p = unsafe { libc::lseek(in_fd, 0, libc::SEEK_CUR) };
        if p < 0 {
            return -1;
        }
        p
    } else {
        // SAFETY: the caller passes a valid offset pointer.
        unsafe { *offset }
    };
    let Ok(mut buf) = rdma_util::fallible::vec_filled(0u8, count.min(1 << 16)) else {
        set_errno(libc::ENOMEM);
        return -1;
    };
    let mut done: usize = 0;
    let mut err = None;
    while done < count {
        let want = (count - done).min(buf.len());
        // SAFETY: pread(2) into our buffer of at least `want` bytes.
        let n = unsafe { libc::pread(in_fd, buf.as_mut_ptr() as *mut c_void, want, pos) };
        if n < 0 {
            err = Some(errno());
            break;
        }
        if n == 0 {
            break;
        }
        // SAFETY: writes the n bytes just read.
        let w = unsafe { rwrite(rfd, buf.as_ptr() as *const c_void, n as size_t) };
        if w < 0 {
            err = Some(errno());
            break;
        }
        done += w as usize;
        pos += w as off_t;
        if (w as usize) < n as usize {
            break;
        }
    }
    if done == 0 {
        if let Some(e) = err {
            set_errno(e);
            return -1;
        }
    }
    if offset.is_null() {
        // SAFETY: moves the caller's file position past what was sent.
        unsafe { libc::lseek(in_fd, pos, libc::SEEK_SET) };
    } else {
        // SAFETY: as above.
        unsafe { *offset = pos };
    }
    done as ssize_t
}

rdma_util::export! {
    /// sendfile(2); onto an rsocket, see [`sendfile_rsocket`].
    fn sendfile(out_fd: c_int, in_fd: c_int, offset: *mut off_t, count: size_t) -> ssize_t, on_panic = -1;
    {
        match fd_get(out_fd) {
            (FdType::Rsocket, fd) => sendfile_rsocket(fd, in_fd, offset, count),
            (FdType::Normal, fd) => pass!(real::sendfile()(fd, in_fd, offset, count)),
        }
    }
}

/// Whether `epfd` is an open epoll instance, for epoll_ctl on an rsocket:
/// EBADF if it is not open, EINVAL if it is something else (as the kernel
/// answers). Without /proc the instance is taken on trust.
fn is_epoll(epfd: c_int) -> Result<(), c_int> {
    // SAFETY: F_GETFD only reads the descriptor's flags.
    if unsafe { real::fcntl()(epfd, libc::F_GETFD) } < 0 {
        return Err(libc::EBADF);
    }
    let Some(link) = rdma_util::fixed_format!(64; "/proc/self/fd/{epfd}") else { return Ok(()) };
    let mut target = [0u8; 64];
    // SAFETY: link is NUL-terminated; target is writable for its length.
    let n = unsafe { libc::readlink(link.as_c_ptr(), target.as_mut_ptr().cast(), target.len()) };
    if n >= 0 && &target[..n as usize] != b"anon_inode:[eventpoll]" {
        return Err(libc::EINVAL);
    }
    Ok(())
}

rdma_util::export! {
    /// epoll_ctl(2). A number that stands for an rsocket is watched in the
    /// instance's rsocket table (see [`crate::epoll`]); every other number
    /// goes to the kernel's instance (our kernel sockets with the descriptor
    /// behind the number).
    fn epoll_ctl(epfd: c_int, op: c_int, fd: c_int, event: *mut epoll_event) -> c_int, on_panic = -1;
    {
        let ev = if event.is_null() {
            None
        } else {
            // SAFETY: the caller's epoll_event (packed on x86_64, so read
            // unaligned, by value).
            let e = unsafe { std::ptr::read_unaligned(event) };
            Some((e.events, e.u64))
        };
        match REGISTRY.ctl(&TABLE, epfd, op, fd, ev, is_epoll) {
            Ok(Route::Kernel(kfd)) => pass!(real::epoll_ctl()(epfd, op, kfd, event)),
            Ok(Route::Done) => 0,
            Err(e) => {
                set_errno(e);
                -1
            }
        }
    }
}

/// Runs `f` with the thread's signal mask set to `mask` (if given).
fn with_sigmask<R>(mask: *const sigset_t, f: impl FnOnce() -> R) -> R {
    if mask.is_null() {
        return f();
    }
    // SAFETY: an all-zero sigset_t is a valid (empty) set to receive into.
    let mut old: sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: mask is the caller's sigset_t; old is ours.
    unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, mask, &mut old) };
    let r = f();
    let _keep = ErrnoGuard::new();
    // SAFETY: restores the mask saved above.
    unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut()) };
    r
}

/// The epoll_wait family on an instance with rsocket watches (see
/// [`crate::epoll`]); the exports send an instance without them to the C
/// library's call themselves.
fn wait_common(
    epfd: c_int,
    events: *mut epoll_event,
    maxevents: c_int,
    timeout: c_int,
    sigmask: *const sigset_t,
) -> c_int {
    rdma_util::ensure!(maxevents > 0, libc::EINVAL, -1);
    rdma_util::ensure!(!events.is_null(), libc::EFAULT, -1);
    let start = std::time::Instant::now();
    loop {
        let probes = match REGISTRY.probes(&TABLE, epfd) {
            Ok(p) => p,
            Err(e) => {
                set_errno(e);
                return -1;
            }
        };
        let Some(mut probes) = probes else {
            // The last watch went meanwhile: the kernel's instance alone.
            let left = epoll::remaining(timeout, start);
            return with_sigmask(sigmask, || pass!(real::epoll_wait()(epfd, events, maxevents, left)));
        };
        let Ok(mut fds) = rdma_util::fallible::vec_with_capacity::<pollfd>(probes.len() + 1) else {
            set_errno(libc::ENOMEM);
            return -1;
        };
        fds.extend(probes.iter().map(|p| p.pfd));
        fds.push(pollfd { fd: epfd, events: libc::POLLIN, revents: 0 });
        let left = epoll::remaining(timeout, start);
        // Under the guard: not cancellable (see ffi::cancellable).
        let no_cancel = rdma_util::ffi::NoCancel::new();
        // SAFETY: our own array of fds.len() entries.
        let r = with_sigmask(sigmask, || unsafe { rpoll(fds.as_mut_ptr(), fds.len() as nfds_t, left) });
        drop(no_cancel);
        if r < 0 {
            return -1;
        }
        for (p, f) in probes.iter_mut().zip(&fds) {
            p.pfd.revents = f.revents;
        }
        let Ok(mut out) = rdma_util::fallible::vec_filled((0u32, 0u64), probes.len().min(maxevents as usize)) else {
            set_errno(libc::ENOMEM);
            return -1;
        };
        let n = REGISTRY.collect(epfd, &probes, &mut out);
        for (k, &(bits, data)) in out[..n].iter().enumerate() {
            // SAFETY: k < n <= maxevents entries of the caller's array.
            unsafe { events.add(k).write_unaligned(epoll_event { events: bits, u64: data }) };
        }
        let mut total = n as c_int;
        let kernel_ready = fds.last().is_some_and(|f| f.revents & libc::POLLIN != 0);
        if total < maxevents && kernel_ready {
            // SAFETY: the rest of the caller's array, maxevents - total entries.
            let k = unsafe { real::epoll_wait()(epfd, events.add(n), maxevents - total, 0) };
            if k > 0 {
                total += k;
            } else if k < 0 && total == 0 {
                return -1;
            }
        }
        // Not r == 0: upstream 44's rpoll can return 0 long before the
        // timeout (it subtracts the time spent so far from the timeout again
        // on every round of its loop, and a listening rsocket's channel
        // wakes it up for connection requests its service thread handles).
        // epoll_wait returns 0 only when the timeout has run out.
        if total > 0 || epoll::remaining(timeout, start) == 0 {
            return total;
        }
    }
}

export_io! {
    /// epoll_wait(2), rsockets included (see [`crate::epoll`]); an instance
    /// without rsocket watches waits in the C library's call.
    fn epoll_wait(epfd: c_int, events: *mut epoll_event, maxevents: c_int, timeout: c_int) -> c_int, on_panic = -1;
    {
        if !REGISTRY.has_watches(epfd) {
            return Then::Real(epfd);
        }
        Then::Done(wait_common(epfd, events, maxevents, timeout, std::ptr::null()))
    }
}

export_io! {
    /// epoll_pwait(2), rsockets included; the mask is set around the wait.
    fn epoll_pwait(epfd: c_int, events: *mut epoll_event, maxevents: c_int, timeout: c_int,
                   sigmask: *const sigset_t) -> c_int, on_panic = -1;
    {
        if !REGISTRY.has_watches(epfd) {
            return Then::Real(epfd);
        }
        Then::Done(wait_common(epfd, events, maxevents, timeout, sigmask))
    }
}

export_io! {
    /// epoll_pwait2(2), rsockets included: epoll_pwait with a timespec.
    fn epoll_pwait2(epfd: c_int, events: *mut epoll_event, maxevents: c_int, timeout: *const timespec,
                    sigmask: *const sigset_t) -> c_int, on_panic = -1;
    {
        if !REGISTRY.has_watches(epfd) {
            return Then::Real(epfd);
        }
        // SAFETY: a non-null timeout is the caller's timespec.
        let ms = match epoll::timespec_ms(unsafe { timeout.as_ref() }) {
            Ok(ms) => ms,
            Err(e) => {
                set_errno(e);
                return Then::Done(-1);
            }
        };
        Then::Done(wait_common(epfd, events, maxevents, ms, sigmask))
    }
}
