//! Datagram rsockets (SOCK_DGRAM), wire compatible with upstream v44.
//!
//! Design (upstream's):
//! - The descriptor is a real UDP socket of the requested family: rbind,
//!   rconnect, rgetsockname, rgetpeername and the non-RDMA socket options
//!   act on it, and it carries the address/QP-number exchange (see
//!   [`wire`]) handled by the UDP service thread
//!   ([`svc`]).
//! - Data travels over UD QPs, one per local address the socket sends
//!   from (RDMA_PS_UDP CM ids bound to that address and the UDP port), each
//!   with its own CQ and completion channel; the channels are gathered in
//!   an epoll set so one descriptor wakes a sleeper or rpoll.
//! - Each QP also has an address handle for itself, used to hand datagrams
//!   that arrived over UDP to its own receive queue.
//! - Destinations are kept per address: the QP to send from, and once the
//!   peer has answered, its QP number and an address handle. Until then,
//!   datagrams go over UDP.
//! - The send buffer is one slot of RS_SNDLOWAT bytes per send WR; the
//!   receive buffer of each QP one slot per receive WR, behind which one
//!   shared area takes the GRHs.
//!
//! Where upstream crashes or reads unrelated fields on a datagram socket
//! (rsend before any destination, rlisten/raccept, rsendmsg, keepalive),
//! this one returns an error or does nothing; see each function.
//!
//! Layers, each using only those below it:
//! - [`wire`] (header formats) and [`ah`] (address handle attributes);
//! - [`sock`]: the socket object, its QPs, completions and data path;
//! - [`svc`]: the UDP service thread, which works on sockets;
//! - [`opts`]: socket options and fcntl;
//! - this module: the table of datagram rsockets and the socket calls,
//!   which add a socket to the UDP service and take it out again.

pub(crate) mod ah;
pub(crate) mod opts;
pub(crate) mod sock;
pub(crate) mod svc;
pub(crate) mod wire;

use core::ffi::c_int;
use rdma_util::fallible::Shared;

use rdma_util::table::FdTable;

pub(crate) use self::opts::{fcntl, getsockopt, setsockopt};
use self::sock::{last_err, sys, DState, Dsock};
use self::wire::SockAddr;
use super::base::{RS_INIT, RS_OPT_UDP_SVC, RS_READABLE, RS_WRITABLE};
use super::config;
use crate::id::Res;

// ---- the table of datagram rsockets -------------------------------------

/// The library's one table of datagram rsockets (rdma-util's table type).
/// Every rsockets call asks it first; while the process has no datagram
/// rsocket, which is the usual case, [`lookup`] costs one atomic load
/// instead of the lock's two atomic operations.
static TABLE: FdTable<Shared<Dsock>> = FdTable::new();

/// The datagram rsocket registered under `fd`.
pub(crate) fn lookup(fd: c_int) -> Option<Shared<Dsock>> {
    TABLE.get_if_any(fd)
}

// ---- socket creation and the socket calls ------------------------------

/// `rsocket(domain, SOCK_DGRAM, ...)`: the UDP socket and the epoll set.
pub(crate) fn create(domain: c_int) -> Res<c_int> {
    let cfg = config::get();
    // SAFETY: plain socket creation.
    let udp = unsafe { libc::socket(domain, libc::SOCK_DGRAM, 0) };
    if udp < 0 {
        return Err(last_err());
    }
    // SAFETY: plain epoll creation.
    let epfd = unsafe { libc::epoll_create(2) };
    if epfd < 0 {
        let e = last_err();
        // SAFETY: our socket.
        unsafe { libc::close(udp) };
        return Err(e);
    }
    let st = DState::new(cfg.wmem_default, cfg.mem_default, cfg.sqsize_default, cfg.rqsize_default, cfg.inline_default);
    // A Dsock that cannot be kept closes its sockets as it goes.
    let d = Shared::try_new(Dsock::new(udp, epfd, st)).map_err(|_| libc::ENOMEM)?;
    TABLE.insert(udp, d).map_err(|_| libc::ENOMEM)?;
    Ok(udp)
}

/// `ds_init_ep`: send buffer and slots, receive ring, UDP service.
fn init_ep(d: &Shared<Dsock>) -> Res<()> {
    d.init_bufs()?;
    svc::add(d)?;
    d.st.lock().base.state = RS_READABLE | RS_WRITABLE;
    Ok(())
}

fn ensure_ep(d: &Shared<Dsock>) -> Res<()> {
    if d.st.lock().base.state == RS_INIT {
        init_ep(d)?;
    }
    Ok(())
}

/// `ds_shutdown` (rclose): leave the UDP service, then wait (blocking) for
/// the sends in flight.
fn shutdown_for_close(d: &Dsock) {
    if d.st.lock().base.opts & RS_OPT_UDP_SVC != 0 {
        svc::remove(d);
    }
    d.shutdown();
}

/// `rbind`.
///
/// # Safety
/// `addr` holds `addrlen` bytes (bind(2) checks it).
pub(crate) unsafe fn bind(d: &Shared<Dsock>, addr: *const libc::sockaddr, addrlen: libc::socklen_t) -> Res<()> {
    ensure_ep(d)?;
    // SAFETY: forwarded to bind(2), which validates the pointer.
    sys(unsafe { libc::bind(d.udp, addr, addrlen) })
}

/// `rconnect`: connect the UDP socket, then set up the destination.
///
/// # Safety
/// As bind.
pub(crate) unsafe fn connect(d: &Shared<Dsock>, addr: *const libc::sockaddr, addrlen: libc::socklen_t) -> Res<()> {
    ensure_ep(d)?;
    let _s = d.slock.lock();
    // SAFETY: forwarded to connect(2), which validates the pointer.
    sys(unsafe { libc::connect(d.udp, addr, addrlen) })?;
    // SAFETY: connect(2) accepted addrlen bytes at addr.
    let a = unsafe { SockAddr::from_raw(addr, addrlen as usize) };
    let mut c = d.st.lock();
    let di = d.get_dest(&mut c, &a, addrlen as usize)?;
    c.conn_dest = Some(di);
    Ok(())
}

/// `rsendto` (`dest` null: the connected destination, as sendto(2) on a
/// connected UDP socket; upstream would crash).
///
/// # Safety
/// `buf` holds `len` bytes; `dest` holds `addrlen` bytes or is null.
pub(crate) unsafe fn sendto(d: &Shared<Dsock>, buf: *const u8, len: usize, flags: c_int, dest: *const libc::sockaddr, addrlen: libc::socklen_t) -> Res<usize> {
    ensure_ep(d)?;
    let _s = d.slock.lock();
    if !dest.is_null() {
        // SAFETY: per the contract.
        let a = unsafe { SockAddr::from_raw(dest, addrlen as usize) };
        let mut c = d.st.lock();
        let cur = c.conn_dest.map(|i| c.dests[i].addr);
        if !matches!(cur, Some(x) if a.same(&x)) {
            let di = d.get_dest(&mut c, &a, addrlen as usize)?;
            c.conn_dest = Some(di);
        }
    }
    // SAFETY: per the contract, buf holds len bytes.
    unsafe { d.dsend(buf, len, flags) }
}

/// `rsend` / `rwrite`.
///
/// # Safety
/// `buf` is readable for `len` bytes.
pub(crate) unsafe fn send(d: &Dsock, buf: *const u8, len: usize, flags: c_int) -> Res<usize> {
    let _s = d.slock.lock();
    // SAFETY: forwarded contract.
    unsafe { d.dsend(buf, len, flags) }
}

/// `rsendmsg` / `rwritev`: the vectors gathered into one datagram, to
/// `msg_name` when given (upstream sends these through its stream path,
/// which a datagram socket cannot take).
///
/// # Safety
/// `iov` holds `iovcnt` valid entries; `name` holds `namelen` bytes or is null.
pub(crate) unsafe fn sendv(d: &Shared<Dsock>, iov: &[libc::iovec], flags: c_int, name: *const libc::sockaddr, namelen: libc::socklen_t) -> Res<usize> {
    // As the kernel's sendmsg: a total past SSIZE_MAX is EINVAL.
    let total = iov
        .iter()
        .try_fold(0usize, |t, i| t.checked_add(i.iov_len).filter(|&t| t <= isize::MAX as usize))
        .ok_or(libc::EINVAL)?;
    let mut v: Vec<u8> = rdma_util::fallible::vec_with_capacity(total).map_err(|_| libc::ENOMEM)?;
    for i in iov {
        if i.iov_len > 0 {
            // SAFETY: per the contract; v has room for every vector.
            v.extend_from_slice(unsafe { core::slice::from_raw_parts(i.iov_base.cast::<u8>(), i.iov_len) });
        }
    }
    if name.is_null() {
        // SAFETY: v holds v.len() bytes.
        unsafe { send(d, v.as_ptr(), v.len(), flags) }
    } else {
        // SAFETY: per the contract.
        unsafe { sendto(d, v.as_ptr(), v.len(), flags, name, namelen) }
    }
}

/// `rrecv` / `rrecvfrom` / `rread` ...
///
/// # Safety
/// As `Dsock::recvfrom`.
pub(crate) unsafe fn recvfrom(d: &Dsock, buf: *mut u8, len: usize, flags: c_int, src: *mut libc::sockaddr, src_len: *mut libc::socklen_t) -> Res<usize> {
    if buf.is_null() && len != 0 {
        return Err(libc::EFAULT);
    }
    let _r = d.rlock.lock();
    // SAFETY: forwarded contract.
    unsafe { d.recvfrom(buf, len, flags, src, src_len) }
}

/// `rshutdown` on a datagram socket: as upstream, only the nonblocking
/// mode of the completion channels is switched off (and not restored).
pub(crate) fn shutdown(d: &Dsock) -> Res<()> {
    let c = d.st.lock();
    if c.base.fd_flags & libc::O_NONBLOCK != 0 {
        let _ = d.set_nonblocking(&c, false);
    }
    Ok(())
}

/// `rclose`.
pub(crate) fn close(fd: c_int) -> bool {
    let Some(d) = lookup(fd) else { return false };
    shutdown_for_close(&d);
    TABLE.remove(fd);
    drop(d);
    true
}

/// `rgetsockname` / `rgetpeername`: the UDP socket's.
///
/// # Safety
/// The caller's buffers (the kernel checks them).
pub(crate) unsafe fn name(d: &Dsock, peer: bool, addr: *mut libc::sockaddr, len: *mut libc::socklen_t) -> Res<()> {
    // SAFETY: forwarded to the system calls, which validate the pointers.
    sys(unsafe {
        if peer {
            libc::getpeername(d.udp, addr, len)
        } else {
            libc::getsockname(d.udp, addr, len)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::ptr::null_mut;
    use rdma_abi::rsocket::{RDMA_SQSIZE, SOL_RDMA};

    #[test]
    fn datagram_socket_lifecycle_without_rdma() {
        // SAFETY: local buffers and plain integer arguments throughout.
        unsafe {
            let fd = create(libc::AF_INET).expect("a UDP socket");
            let d = lookup(fd).expect("registered");
            assert!(crate::rsocket::index::lookup(fd).is_none(), "not a stream rsocket");
            // options go to the UDP socket and are remembered
            let v: c_int = 4096;
            setsockopt(&d, libc::SOL_SOCKET, libc::SO_RCVBUF, (&v as *const c_int).cast(), 4).unwrap();
            let mut out: c_int = 0;
            let mut len: libc::socklen_t = 4;
            getsockopt(&d, libc::SOL_SOCKET, libc::SO_RCVBUF, (&mut out as *mut c_int).cast(), &mut len).unwrap();
            assert_eq!(out, 8192);
            // a TCP option is refused by the UDP socket
            let one: c_int = 1;
            let e = setsockopt(&d, libc::IPPROTO_TCP, libc::TCP_NODELAY, (&one as *const c_int).cast(), 4);
            assert!(e.is_err());
            // a UDP option rsockets do not know succeeds, as upstream
            setsockopt(&d, libc::SOL_SOCKET, libc::SO_BROADCAST, (&one as *const c_int).cast(), 4).unwrap();
            // unknown SOL_RDMA options do not
            assert_eq!(setsockopt(&d, SOL_RDMA, 99, (&one as *const c_int).cast(), 4).unwrap_err(), libc::EOPNOTSUPP);
            // SOL_RDMA sizes before any endpoint exists
            let sq: c_int = 100;
            setsockopt(&d, SOL_RDMA, RDMA_SQSIZE, (&sq as *const c_int).cast(), 4).unwrap();
            getsockopt(&d, SOL_RDMA, RDMA_SQSIZE, (&mut out as *mut c_int).cast(), &mut len).unwrap();
            assert_eq!(out, 100);
            // nonblocking flag round trip
            assert_eq!(fcntl(&d, libc::F_SETFL, libc::O_NONBLOCK).unwrap(), 0);
            assert_eq!(fcntl(&d, libc::F_GETFL, 0).unwrap(), libc::O_NONBLOCK);
            // no destination yet: rsend has nowhere to go
            let b = [0u8; 4];
            assert_eq!(send(&d, b.as_ptr(), 4, 0).unwrap_err(), libc::EDESTADDRREQ);
            // a receive on a socket never bound: not readable yet
            let mut r = [0u8; 4];
            assert_eq!(recvfrom(&d, r.as_mut_ptr(), 4, 0, null_mut(), null_mut()).unwrap_err(), libc::EINVAL);
            // rgetsockname is the UDP socket's
            let mut sa: libc::sockaddr_in = core::mem::zeroed();
            let mut sl = core::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
            name(&d, false, (&mut sa as *mut libc::sockaddr_in).cast(), &mut sl).unwrap();
            assert_eq!(c_int::from(sa.sin_family), libc::AF_INET);
            assert_eq!(name(&d, true, (&mut sa as *mut libc::sockaddr_in).cast(), &mut sl).unwrap_err(), libc::ENOTCONN);
            drop(d);
            assert!(close(fd));
            assert!(lookup(fd).is_none());
            assert!(!close(fd));
        }
    }
}
