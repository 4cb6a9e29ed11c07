//! The exported rsocket functions (RDMACM_1.0) and repoll (RDMACM_1.5).
//! Return conventions are upstream's: -1 with errno, except rclose, which
//! returns EBADF itself for an unknown descriptor (and EBUSY for a repoll
//! instance that still has members), and repoll_ctl / repoll_wait, which
//! return errors as positive errno values. Pointers upstream would
//! dereference unchecked get EFAULT here instead of a crash.

use core::ffi::{c_int, c_void};
use rdma_util::fallible::Shared;

use super::base::*;
use super::connection::{self, do_connect};
use super::stream::*;
use super::{dgram, index, opts, poll, repoll};
use crate::abi::cma::*;
use rdma_util::ffi::{errno, set_errno};
use crate::id::Res;
use parking_lot::{Mutex, MutexGuard};
use libc::{iovec, msghdr, nfds_t, pollfd, sockaddr, socklen_t, ssize_t};

fn int_ret(r: Res<()>) -> c_int {
    match r {
        Ok(()) => 0,
        Err(e) => {
            set_errno(e);
            -1
        }
    }
}

fn ssz(r: Res<usize>) -> ssize_t {
    match r {
        Ok(n) => n as ssize_t,
        Err(e) => err(e),
    }
}

fn err<T: From<i8>>(e: c_int) -> T {
    set_errno(e);
    T::from(-1)
}

fn lookup(fd: c_int) -> Result<Shared<Rsocket>, c_int> {
    index::lookup(fd).ok_or(libc::EBADF)
}

/// Connects a socket that is still opening (nonblocking connect in
/// progress) before data calls; "in progress" becomes EAGAIN.
fn finish_connect(rs: &Rsocket) -> Res<()> {
    if rs.st.lock().base.state & RS_OPENING != 0 {
        return do_connect(rs).map_err(|e| if e == libc::EINPROGRESS { libc::EAGAIN } else { e });
    }
    Ok(())
}


/// `rs_copy_addr`: as much of `src` as fits, and its full length.
///
/// # Safety
/// `dst` holds `*len` bytes, `len` is valid.
unsafe fn copy_addr(dst: *mut sockaddr, src: *const sockaddr, len: *mut socklen_t) {
    // SAFETY: src is one of the id's address unions.
    let full = if c_int::from(unsafe { (*src).sa_family }) == libc::AF_INET {
        core::mem::size_of::<libc::sockaddr_in>()
    } else {
        core::mem::size_of::<libc::sockaddr_in6>()
    };
    // SAFETY: per the contract.
    unsafe {
        let n = (*len as usize).min(full);
        if n != 0 {
            core::ptr::copy_nonoverlapping(src.cast::<u8>(), dst.cast::<u8>(), n);
        }
        *len = full as socklen_t;
    }
}

/// For a data call: `side` (the socket's rlock or slock), then its state,
/// both held on return. A socket still connecting is finished first,
/// without either lock (a nonblocking connect still in progress gives
/// EAGAIN).
#[inline(always)]
fn lock_for_data<'a>(rs: &'a Rsocket, side: &'a Mutex<()>) -> Res<(MutexGuard<'a, ()>, MutexGuard<'a, Conn>)> {
    let mut connected = false;
    loop {
        let g = side.lock();
        let c = rs.st.lock();
        if connected || c.base.state & RS_OPENING == 0 {
            return Ok((g, c));
        }
        drop((c, g));
        finish_connect(rs)?;
        connected = true;
    }
}

#[inline]
fn recv(rs: &Rsocket, buf: *mut u8, len: usize, flags: c_int) -> ssize_t {
    // Locks: rlock, then st, each once on the way that finds data (or, with
    // MSG_DONTWAIT, none) at once; st is let go only while waiting.
    let (_r, mut c) = match lock_for_data(rs, &rs.rlock) {
        Ok(g) => g,
        Err(e) => return err(e),
    };
    if buf.is_null() && len != 0 {
        return err(libc::EFAULT);
    }
    let nonblock = c.base.fd_flags & libc::O_NONBLOCK != 0 || flags & libc::MSG_DONTWAIT != 0;
    let mut left = len;
    let mut ret: Res<()> = Ok(());
    loop {
        if !c.have_rdata() {
            ret = rs.get_comp_locked(&mut c, nonblock, t_conn_have_rdata);
            if ret.is_err() {
                break;
            }
        }
        if flags & libc::MSG_PEEK != 0 {
            // SAFETY: the caller's buffer holds len (= left here) bytes.
            left = len - unsafe { c.copy_out(buf, left, true) };
            break;
        }
        // SAFETY: stays within the caller's buffer of len bytes.
        let n = unsafe { c.copy_out(buf.add(len - left), left, false) };
        left -= n;
        if !(left > 0 && flags & libc::MSG_WAITALL != 0 && c.base.state & RS_READABLE != 0) {
            break;
        }
    }
    match ret {
        Err(e) if left == len => err(e),
        // Ended by a peer that broke the protocol: an error, not the end of
        // the stream.
        _ if left == len && len != 0 && c.reset_by_peer() => err(libc::ECONNRESET),
        _ => (len - left) as ssize_t,
    }
}

/// Sends `len` bytes produced by `fill` (see Conn::send_chunk);
/// `inline_src(off)` gives the source for inline chunks when the data is
/// contiguous.
#[inline]
fn send(rs: &Rsocket, len: usize, flags: c_int, inline_src: impl Fn(usize) -> Option<*const u8>, fill: &mut impl FnMut(*mut u8, usize)) -> ssize_t {
    // Locks: slock, then st, each once on the way that can send at once;
    // st is let go only while waiting for room and while queued iomap
    // updates go out.
    let (_s, mut c) = match lock_for_data(rs, &rs.slock) {
        Ok(g) => g,
        Err(e) => return err(e),
    };
    if !c.iomap_queue.is_empty() {
        let r = MutexGuard::unlocked(&mut c, || super::iomap::send_iomaps(rs, flags));
        if let Err(e) = r {
            return err(e);
        }
    }
    let nonblock = c.base.fd_flags & libc::O_NONBLOCK != 0 || flags & libc::MSG_DONTWAIT != 0;
    let mut left = len;
    let mut sizer = ChunkSizer::default();
    let mut ret: Res<()> = Ok(());
    while left > 0 {
        if c.reset_by_peer() {
            ret = Err(libc::ECONNRESET);
            break;
        }
        if !c.can_send() {
            ret = rs.get_comp_locked(&mut c, nonblock, t_conn_can_send);
            if ret.is_err() {
                break;
            }
            if c.base.state & RS_WRITABLE == 0 {
                ret = Err(libc::ECONNRESET);
                break;
            }
        }
        let want = sizer.next(left);
        match c.send_chunk(want as u32, inline_src(len - left), fill) {
            Ok(n) => left -= n as usize,
            Err(e) => {
                ret = Err(e);
                break;
            }
        }
    }
    match ret {
        Err(e) if left == len => err(e),
        _ => (len - left) as ssize_t,
    }
}

fn send_buf(rs: &Rsocket, buf: *const u8, len: usize, flags: c_int) -> ssize_t {
    if buf.is_null() && len != 0 {
        return err(libc::EFAULT);
    }
    let mut pos = 0usize;
    // The cursor `pos` is only advanced by fill; inline chunks are sent
    // from the caller's buffer at the offset send() passes.
    let pos_ptr: *mut usize = &mut pos;
    let inline = |off: usize| {
        // SAFETY: keeps the fill cursor in step with inline chunks.
        unsafe { *pos_ptr = off };
        // SAFETY: off < len.
        Some(unsafe { buf.add(off) })
    };
    let mut fill = |dst: *mut u8, n: usize| {
        // SAFETY: pos + n <= len; dst has room for n bytes (send buffer).
        unsafe {
            core::ptr::copy_nonoverlapping(buf.add(*pos_ptr), dst, n);
            *pos_ptr += n;
        }
    };
    send(rs, len, flags, inline, &mut fill)
}

fn send_iov(rs: &Rsocket, iov: *const iovec, iovcnt: c_int, flags: c_int) -> ssize_t {
    if iovcnt < 0 || (iov.is_null() && iovcnt > 0) {
        return err(libc::EINVAL);
    }
    // SAFETY: iovcnt entries from the caller.
    let v: &[iovec] = if iovcnt == 0 { &[] } else { unsafe { core::slice::from_raw_parts(iov, iovcnt as usize) } };
    let len: usize = v.iter().map(|i| i.iov_len).sum();
    let (mut idx, mut off) = (0usize, 0usize);
    let mut fill = |mut dst: *mut u8, mut n: usize| {
        while n > 0 && idx < v.len() {
            let avail = v[idx].iov_len - off;
            let k = avail.min(n);
            // SAFETY: within iov entry idx and within dst's n bytes.
            unsafe {
                core::ptr::copy_nonoverlapping(v[idx].iov_base.cast::<u8>().add(off), dst, k);
                dst = dst.add(k);
            }
            n -= k;
            off += k;
            if off == v[idx].iov_len {
                idx += 1;
                off = 0;
            }
        }
    };
    send(rs, len, flags, |_| None, &mut fill)
}

rdma_util::export! {
    /// Creates an rsocket: stream (RC QP through the CM) or datagram (UDP
    /// socket plus UD QPs, see `dgram`).
    fn rsocket(domain: c_int, type_: c_int, protocol: c_int) -> c_int, on_panic = -1;
    {
        if (domain != libc::AF_INET && domain != libc::AF_INET6 && domain != AF_IB)
            || (type_ != libc::SOCK_STREAM && type_ != libc::SOCK_DGRAM)
            || (type_ == libc::SOCK_STREAM && protocol != 0 && protocol != libc::IPPROTO_TCP)
            || (type_ == libc::SOCK_DGRAM && protocol != 0 && protocol != libc::IPPROTO_UDP)
        {
            return err(libc::EOPNOTSUPP);
        }
        let _ = super::config::get();
        if type_ == libc::SOCK_DGRAM {
            return match dgram::create(domain) { Ok(fd) => fd, Err(e) => err(e) };
        }
        let mut id = core::ptr::null_mut();
        // SAFETY: out pointer is a local; no channel = a synchronous id.
        if unsafe { crate::cma::rdma_create_id(core::ptr::null_mut(), &mut id, core::ptr::null_mut(), RDMA_PS_TCP) } != 0 {
            return -1;
        }
        // SAFETY: the new id; the family picks the address space to bind in.
        unsafe { (*id).route.addr.src.src_addr.sa_family = domain as libc::sa_family_t };
        let rs = match Rsocket::new(id, Conn::new(None)) {
            Ok(rs) => rs,
            Err(e) => return err(e),
        };
        let fd = rs.cm_fd();
        match index::insert(fd, rs) {
            Ok(()) => fd,
            Err(e) => err(e),
        }
    }
}

rdma_util::export! {
    fn rbind(socket: c_int, addr: *const sockaddr, addrlen: socklen_t) -> c_int, on_panic = -1;
    {
        let _ = addrlen;
        // Datagram sockets: see dgram/.
        if let Some(d) = dgram::lookup(socket) {
            // SAFETY: bind(2) checks the caller's address.
            return int_ret(unsafe { dgram::bind(&d, addr, addrlen) });
        }
        let rs = match lookup(socket) { Ok(r) => r, Err(e) => return err(e) };
        // SAFETY: our id; rdma_bind_addr checks the address pointer.
        let r = unsafe { crate::addr::rdma_bind_addr(rs.cm_id, addr as *mut sockaddr) };
        if r == 0 {
            rs.st.lock().base.state = RS_BOUND;
        }
        r
    }
}

rdma_util::export! {
    fn rlisten(socket: c_int, backlog: c_int) -> c_int, on_panic = -1;
    {
        // Datagram sockets: see dgram/.
        if dgram::lookup(socket).is_some() {
            return err(libc::EOPNOTSUPP);
        }
        let rs = match lookup(socket) { Ok(r) => r, Err(e) => return err(e) };
        int_ret(connection::listen(&rs, backlog))
    }
}

/// Accepts a connection: waits on the listener's accept queue for a
/// connected socket.
///
/// Not written with `export!`: the wait is a cancellation point, as
/// upstream's read of its accept queue, so it runs outside the guarded
/// parts (see `ffi::cancellable`).
///
/// # Safety
/// As accept(2): `addr` and `addrlen` are NULL or the caller's buffers.
#[no_mangle]
pub unsafe extern "C-unwind" fn raccept(socket: c_int, addr: *mut sockaddr, addrlen: *mut socklen_t) -> c_int {
    const NAME: &str = "raccept";
    let queue = rdma_util::ffi::guard(crate::LIB_NAME, NAME, Err(libc::EIO), || {
        // Datagram sockets: see dgram/.
        if dgram::lookup(socket).is_some() {
            return Err(libc::EOPNOTSUPP);
        }
        let rs = lookup(socket)?;
        let q = {
            let c = rs.st.lock();
            if c.base.state != RS_LISTENING {
                return Err(libc::EBADF);
            }
            c.accept_queue[0]
        };
        // The listener stays alive (its queue open) through the wait, held
        // by a raw reference: a cancelled wait leaks it rather than leave
        // a destructor in the unwound frame.
        Ok((q, Shared::into_raw(rs)))
    });
    let (q, listener) = match queue {
        Ok(v) => v,
        Err(e) => return err(e),
    };
    let mut fd: c_int = -1;
    // The wait, a cancellation point: this frame holds nothing with a
    // destructor here.
    // SAFETY: reading an int into a local from our socketpair.
    let n = unsafe { rdma_util::ffi::cancellable::read_cancellable(q, (&mut fd as *mut c_int).cast(), 4) };
    rdma_util::ffi::guard(crate::LIB_NAME, NAME, -1, || {
        let e = errno();
        // SAFETY: from Shared::into_raw above, released once.
        drop(unsafe { Shared::from_raw(listener) });
        set_errno(e);
        if n != 4 {
            return n as c_int;
        }
        let Some(nrs) = index::lookup(fd) else { return err(libc::ECONNABORTED) };
        if !addr.is_null() && !addrlen.is_null() {
            // SAFETY: the caller's buffers.
            unsafe { rgetpeername(fd, addr, addrlen) };
        }
        let e = errno();
        let _ = connection::CONNECT.add(&nrs);
        set_errno(e);
        fd
    })
}

rdma_util::export! {
    fn rconnect(socket: c_int, addr: *const sockaddr, addrlen: socklen_t) -> c_int, on_panic = -1;
    {
        // Datagram sockets: see dgram/.
        if let Some(d) = dgram::lookup(socket) {
            // SAFETY: connect(2) checks the caller's address.
            return int_ret(unsafe { dgram::connect(&d, addr, addrlen) });
        }
        let rs = match lookup(socket) { Ok(r) => r, Err(e) => return err(e) };
        if addr.is_null() && addrlen != 0 {
            return err(libc::EFAULT);
        }
        if addrlen as usize > core::mem::size_of::<libc::sockaddr_storage>() {
            return err(libc::EINVAL);
        }
        {
            let _s = rs.slock.lock();
            // SAFETY: addrlen readable bytes into the id's destination
            // union (sockaddr_storage sized).
            unsafe {
                let dst = core::ptr::addr_of_mut!((*rs.cm_id).route.addr.dst).cast::<u8>();
                core::ptr::copy_nonoverlapping(addr.cast::<u8>(), dst, addrlen as usize);
            }
        }
        match do_connect(&rs) {
            Ok(()) => 0,
            Err(libc::EINPROGRESS) => {
                let _ = connection::CONNECT.add(&rs);
                err(libc::EINPROGRESS)
            }
            Err(e) => err(e),
        }
    }
}

rdma_util::export! {
    fn rrecv(socket: c_int, buf: *mut c_void, len: usize, flags: c_int) -> ssize_t, on_panic = -1;
    {
        // Datagram sockets: see dgram/.
        if let Some(d) = dgram::lookup(socket) {
            // SAFETY: the caller's buffer of len bytes.
            return ssz(unsafe { dgram::recvfrom(&d, buf.cast(), len, flags, core::ptr::null_mut(), core::ptr::null_mut()) });
        }
        let rs = match lookup(socket) { Ok(r) => r, Err(e) => return err(e) };
        recv(&rs, buf.cast(), len, flags)
    }
}

rdma_util::export! {
    fn rrecvfrom(socket: c_int, buf: *mut c_void, len: usize, flags: c_int, src_addr: *mut sockaddr, addrlen: *mut socklen_t) -> ssize_t, on_panic = -1;
    {
        // Datagram sockets: see dgram/.
        if let Some(d) = dgram::lookup(socket) {
            // SAFETY: the caller's buffers (src_addr used only with addrlen).
            return ssz(unsafe { dgram::recvfrom(&d, buf.cast(), len, flags, src_addr, addrlen) });
        }
        let rs = match lookup(socket) { Ok(r) => r, Err(e) => return err(e) };
        let r = recv(&rs, buf.cast(), len, flags);
        if r > 0 && !src_addr.is_null() {
            if addrlen.is_null() {
                return err(libc::EFAULT);
            }
            // SAFETY: the caller's buffers.
            unsafe { rgetpeername(socket, src_addr, addrlen) };
        }
        r
    }
}

rdma_util::export! {
    /// Fills only the first vector, as upstream (and passes the message's
    /// own msg_flags as the flags, as upstream does).
    fn rrecvmsg(socket: c_int, msg: *mut msghdr, flags: c_int) -> ssize_t, on_panic = -1;
    {
        let _ = flags;
        if msg.is_null() {
            return err(libc::EFAULT);
        }
        // SAFETY: non-null msghdr from the caller.
        let m = unsafe { &*msg };
        if !m.msg_control.is_null() && m.msg_controllen != 0 {
            return err(libc::EOPNOTSUPP);
        }
        if m.msg_iov.is_null() {
            return err(libc::EFAULT);
        }
        // Datagram sockets: see dgram/.
        if let Some(d) = dgram::lookup(socket) {
            // SAFETY: the caller's first iovec (checked non-null above).
            let iov = unsafe { *m.msg_iov };
            // SAFETY: that vector's buffer.
            return ssz(unsafe { dgram::recvfrom(&d, iov.iov_base.cast(), iov.iov_len, m.msg_flags, core::ptr::null_mut(), core::ptr::null_mut()) });
        }
        let rs = match lookup(socket) { Ok(r) => r, Err(e) => return err(e) };
        // SAFETY: the first iovec of the caller's message.
        let iov = unsafe { *m.msg_iov };
        recv(&rs, iov.iov_base.cast(), iov.iov_len, m.msg_flags)
    }
}

rdma_util::export! {
    fn rread(socket: c_int, buf: *mut c_void, count: usize) -> ssize_t, on_panic = -1;
    {
        // Datagram sockets: see dgram/.
        if let Some(d) = dgram::lookup(socket) {
            // SAFETY: the caller's buffer of count bytes.
            return ssz(unsafe { dgram::recvfrom(&d, buf.cast(), count, 0, core::ptr::null_mut(), core::ptr::null_mut()) });
        }
        let rs = match lookup(socket) { Ok(r) => r, Err(e) => return err(e) };
        recv(&rs, buf.cast(), count, 0)
    }
}

rdma_util::export! {
    /// Fills only the first vector, as upstream.
    fn rreadv(socket: c_int, iov: *const iovec, iovcnt: c_int) -> ssize_t, on_panic = -1;
    {
        let _ = iovcnt;
        if iov.is_null() {
            return err(libc::EFAULT);
        }
        // Datagram sockets: see dgram/.
        if let Some(d) = dgram::lookup(socket) {
            // SAFETY: the caller's first iovec (checked non-null above).
            let v = unsafe { *iov };
            // SAFETY: that vector's buffer.
            return ssz(unsafe { dgram::recvfrom(&d, v.iov_base.cast(), v.iov_len, 0, core::ptr::null_mut(), core::ptr::null_mut()) });
        }
        let rs = match lookup(socket) { Ok(r) => r, Err(e) => return err(e) };
        // SAFETY: the caller's first iovec.
        let v = unsafe { *iov };
        recv(&rs, v.iov_base.cast(), v.iov_len, 0)
    }
}

rdma_util::export! {
    fn rsend(socket: c_int, buf: *const c_void, len: usize, flags: c_int) -> ssize_t, on_panic = -1;
    {
        // Datagram sockets: see dgram/.
        if let Some(d) = dgram::lookup(socket) {
            // SAFETY: the caller's buffer of len bytes (rsend's contract).
            return ssz(unsafe { dgram::send(&d, buf.cast(), len, flags) });
        }
        let rs = match lookup(socket) { Ok(r) => r, Err(e) => return err(e) };
        send_buf(&rs, buf.cast(), len, flags)
    }
}

rdma_util::export! {
    fn rsendto(socket: c_int, buf: *const c_void, len: usize, flags: c_int, dest_addr: *const sockaddr, addrlen: socklen_t) -> ssize_t, on_panic = -1;
    {
        // Datagram sockets: see dgram/.
        if let Some(d) = dgram::lookup(socket) {
            // SAFETY: the caller's buffer and address (or null).
            return ssz(unsafe { dgram::sendto(&d, buf.cast(), len, flags, dest_addr, addrlen) });
        }
        let rs = match lookup(socket) { Ok(r) => r, Err(e) => return err(e) };
        if !dest_addr.is_null() || addrlen != 0 {
            return err(libc::EISCONN);
        }
        send_buf(&rs, buf.cast(), len, flags)
    }
}

rdma_util::export! {
    fn rsendmsg(socket: c_int, msg: *const msghdr, flags: c_int) -> ssize_t, on_panic = -1;
    {
        if msg.is_null() {
            return err(libc::EFAULT);
        }
        // SAFETY: non-null msghdr from the caller.
        let m = unsafe { &*msg };
        if !m.msg_control.is_null() && m.msg_controllen != 0 {
            return err(libc::EOPNOTSUPP);
        }
        // Datagram sockets: see dgram/.
        if let Some(d) = dgram::lookup(socket) {
            if m.msg_iov.is_null() && m.msg_iovlen != 0 {
                return err(libc::EFAULT);
            }
            // SAFETY: the caller's msg_iovlen vectors.
            let v = if m.msg_iovlen == 0 { &[][..] } else { unsafe { core::slice::from_raw_parts(m.msg_iov, m.msg_iovlen) } };
            // SAFETY: the vectors' buffers and the optional address.
            return ssz(unsafe { dgram::sendv(&d, v, flags, m.msg_name.cast(), m.msg_namelen) });
        }
        let rs = match lookup(socket) { Ok(r) => r, Err(e) => return err(e) };
        send_iov(&rs, m.msg_iov, m.msg_iovlen as c_int, flags)
    }
}

rdma_util::export! {
    fn rwrite(socket: c_int, buf: *const c_void, count: usize) -> ssize_t, on_panic = -1;
    {
        // Datagram sockets: see dgram/.
        if let Some(d) = dgram::lookup(socket) {
            // SAFETY: the caller's buffer of count bytes (rwrite's contract).
            return ssz(unsafe { dgram::send(&d, buf.cast(), count, 0) });
        }
        let rs = match lookup(socket) { Ok(r) => r, Err(e) => return err(e) };
        send_buf(&rs, buf.cast(), count, 0)
    }
}

rdma_util::export! {
    fn rwritev(socket: c_int, iov: *const iovec, iovcnt: c_int) -> ssize_t, on_panic = -1;
    {
        // Datagram sockets: see dgram/.
        if let Some(d) = dgram::lookup(socket) {
            if iovcnt < 0 || (iov.is_null() && iovcnt > 0) {
                return err(libc::EINVAL);
            }
            // SAFETY: the caller's iovcnt vectors.
            let v = if iovcnt == 0 { &[][..] } else { unsafe { core::slice::from_raw_parts(iov, iovcnt as usize) } };
            // SAFETY: the vectors' buffers.
            return ssz(unsafe { dgram::sendv(&d, v, 0, core::ptr::null(), 0) });
        }
        let rs = match lookup(socket) { Ok(r) => r, Err(e) => return err(e) };
        send_iov(&rs, iov, iovcnt, 0)
    }
}

rdma_util::export! {
    fn rshutdown(socket: c_int, how: c_int) -> c_int, on_panic = -1;
    {
        // Datagram sockets: see dgram/.
        if let Some(d) = dgram::lookup(socket) {
            return int_ret(dgram::shutdown(&d));
        }
        let rs = match lookup(socket) { Ok(r) => r, Err(e) => return err(e) };
        int_ret(connection::shutdown(&rs, how))
    }
}

rdma_util::export! {
    /// Returns EBADF (not -1) for an unknown descriptor, as upstream.
    fn rclose(socket: c_int) -> c_int, on_panic = -1;
    {
        // Datagram sockets: see dgram/.
        if dgram::close(socket) {
            return 0;
        }
        let Some(rs) = index::lookup(socket) else {
            // repoll instances: see repoll.
            return repoll::close(socket).unwrap_or(libc::EBADF);
        };
        if rs.st.lock().base.state & RS_CONNECTED != 0 {
            let _ = connection::shutdown(&rs, libc::SHUT_RDWR);
        }
        super::keepalive::remove(&rs);
        connection::LISTEN.remove(&rs);
        connection::CONNECT.remove(&rs);
        index::remove(socket);
        // The socket's resources go with its last reference (normally
        // this one; a call still running in another thread keeps it).
        drop(rs);
        0
    }
}

rdma_util::export! {
    fn rgetpeername(socket: c_int, addr: *mut sockaddr, addrlen: *mut socklen_t) -> c_int, on_panic = -1;
    {
        // Datagram sockets: see dgram/.
        if let Some(d) = dgram::lookup(socket) {
            // SAFETY: getpeername(2) checks the caller's buffers.
            return int_ret(unsafe { dgram::name(&d, true, addr, addrlen) });
        }
        let rs = match lookup(socket) { Ok(r) => r, Err(e) => return err(e) };
        // A NULL address with a zero length only asks for the length (as
        // upstream answers it: nothing copied, *addrlen set); librspreload
        // sizes its fallback socket that way.
        // SAFETY: a non-null addrlen is the caller's.
        if addrlen.is_null() || (addr.is_null() && unsafe { *addrlen } != 0) {
            return err(libc::EFAULT);
        }
        // SAFETY: the id's destination address and the caller's buffers.
        unsafe { copy_addr(addr, core::ptr::addr_of!((*rs.cm_id).route.addr.dst).cast(), addrlen) };
        0
    }
}

rdma_util::export! {
    fn rgetsockname(socket: c_int, addr: *mut sockaddr, addrlen: *mut socklen_t) -> c_int, on_panic = -1;
    {
        // Datagram sockets: see dgram/.
        if let Some(d) = dgram::lookup(socket) {
            // SAFETY: getsockname(2) checks the caller's buffers.
            return int_ret(unsafe { dgram::name(&d, false, addr, addrlen) });
        }
        let rs = match lookup(socket) { Ok(r) => r, Err(e) => return err(e) };
        // A NULL address with a zero length only asks for the length (as
        // upstream answers it: nothing copied, *addrlen set); librspreload
        // sizes its fallback socket that way.
        // SAFETY: a non-null addrlen is the caller's.
        if addrlen.is_null() || (addr.is_null() && unsafe { *addrlen } != 0) {
            return err(libc::EFAULT);
        }
        // SAFETY: the id's source address and the caller's buffers.
        unsafe { copy_addr(addr, core::ptr::addr_of!((*rs.cm_id).route.addr.src).cast(), addrlen) };
        0
    }
}

rdma_util::export! {
    fn rsetsockopt(socket: c_int, level: c_int, optname: c_int, optval: *const c_void, optlen: socklen_t) -> c_int, on_panic = -1;
    {
        // Datagram sockets: see dgram/.
        if let Some(d) = dgram::lookup(socket) {
            // SAFETY: setsockopt(2) checks the caller's buffer first.
            return int_ret(unsafe { dgram::setsockopt(&d, level, optname, optval, optlen) });
        }
        let rs = match lookup(socket) { Ok(r) => r, Err(e) => return err(e) };
        int_ret(opts::setsockopt(&rs, level, optname, optval, optlen))
    }
}

rdma_util::export! {
    fn rgetsockopt(socket: c_int, level: c_int, optname: c_int, optval: *mut c_void, optlen: *mut socklen_t) -> c_int, on_panic = -1;
    {
        // Datagram sockets: see dgram/.
        if let Some(d) = dgram::lookup(socket) {
            if optval.is_null() || optlen.is_null() {
                return err(libc::EFAULT);
            }
            // SAFETY: non-null caller buffers sized for the option.
            return int_ret(unsafe { dgram::getsockopt(&d, level, optname, optval, optlen) });
        }
        let rs = match lookup(socket) { Ok(r) => r, Err(e) => return err(e) };
        if optval.is_null() || optlen.is_null() {
            return err(libc::EFAULT);
        }
        // SAFETY: non-null caller buffers (sized for the option, as with
        // getsockopt(2)).
        int_ret(unsafe { opts::getsockopt(&rs, level, optname, optval, optlen) })
    }
}

rdma_util::export! {
    /// `int rfcntl(int socket, int cmd, ...)`: the one variadic argument
    /// F_SETFL takes is an int, which the x86-64 and AArch64 C calling
    /// conventions pass exactly like a third named int argument.
    fn rfcntl(socket: c_int, cmd: c_int, arg: c_int) -> c_int, on_panic = -1;
    {
        // Datagram sockets: see dgram/.
        if let Some(d) = dgram::lookup(socket) {
            return match dgram::fcntl(&d, cmd, arg) { Ok(v) => v, Err(e) => err(e) };
        }
        let rs = match lookup(socket) { Ok(r) => r, Err(e) => return err(e) };
        match opts::fcntl(&rs, cmd, arg) {
            Ok(v) => v,
            Err(e) => err(e),
        }
    }
}

rdma_util::export! {
    /// A new epoll instance over rsockets and ordinary descriptors (see
    /// `repoll`): its number, or -1 with errno. O_CLOEXEC and O_NONBLOCK in
    /// `flags` go to the pipe behind the number; other bits are ignored.
    fn repoll_create(flags: c_int) -> c_int, on_panic = -1;
    {
        match repoll::create(flags) {
            Ok(fd) => fd,
            Err(e) => err(e),
        }
    }
}

rdma_util::export! {
    /// Adds, changes or removes a member of an instance: 0 or a positive
    /// errno, errno untouched (upstream's convention for this call).
    fn repoll_ctl(epfd: c_int, op: c_int, fd: c_int, event: *mut libc::epoll_event) -> c_int, on_panic = libc::EIO;
    {
        // The event is read for ADD and MOD only (a NULL one is EFAULT
        // there); epoll_event is packed on x86-64, so it is read unaligned.
        let ev = ((op == libc::EPOLL_CTL_ADD || op == libc::EPOLL_CTL_MOD) && !event.is_null()).then(|| {
            // SAFETY: the caller's non-NULL event.
            let e = unsafe { event.read_unaligned() };
            (e.events, e.u64)
        });
        repoll::ctl(epfd, op, fd, ev)
    }
}

rdma_util::export! {
    /// Waits up to `timeout` ms (-1: no limit, 0: none) for members to be
    /// ready: the number of reports written to `events`, or a positive
    /// errno (upstream's convention for this call).
    fn repoll_wait(epfd: c_int, events: *mut libc::epoll_event, maxevents: c_int, timeout: c_int) -> c_int, on_panic = libc::EIO;
    {
        // SAFETY: the caller's array of maxevents entries (NULL refused).
        unsafe { repoll::wait(epfd, events, maxevents, timeout) }
    }
}

/// rpoll's sleeps, in the exported function's own frame: each poll(2) is
/// a cancellation point, as upstream's (see `ffi::cancellable`); the steps
/// between them run guarded. `fds` gives the caller's set for each step.
///
/// # Safety
/// Only from an export, outside its guarded parts, holding nothing with a
/// destructor; `fds` returns the same live set each time.
#[inline(always)]
unsafe fn rpoll_sleeping(name: &'static str, step: poll::PollStep, fds: impl Fn() -> *mut [pollfd]) -> Res<c_int> {
    poll::drive(
        step,
        // The sleep, a cancellation point.
        // SAFETY: the sleep's own set of n entries.
        |set, n, ms| unsafe { rdma_util::ffi::cancellable::poll_cancellable(set, n, ms) },
        |w, r, e| {
            rdma_util::ffi::guard(crate::LIB_NAME, name, poll::PollStep::Done(Err(libc::EIO)), || {
                // SAFETY: the caller's live set (the contract).
                poll::rpoll_after(w, unsafe { &mut *fds() }, r, e)
            })
        },
    )
}

/// poll(2) over rsockets and ordinary descriptors; see `poll`.
///
/// Not written with `export!`: its sleeps are cancellation points, as
/// upstream's (see [`rpoll_sleeping`]).
///
/// # Safety
/// As poll(2): `fds` holds `nfds` entries.
#[no_mangle]
pub unsafe extern "C-unwind" fn rpoll(fds: *mut pollfd, nfds: nfds_t, timeout: c_int) -> c_int {
    const NAME: &str = "rpoll";
    if fds.is_null() && nfds != 0 {
        return err(libc::EFAULT);
    }
    // The caller's array (an empty slice for none).
    let set = move || -> *mut [pollfd] {
        let base = if nfds == 0 { core::ptr::NonNull::dangling().as_ptr() } else { fds };
        core::ptr::slice_from_raw_parts_mut(base, nfds as usize)
    };
    let step = rdma_util::ffi::guard(crate::LIB_NAME, NAME, poll::PollStep::Done(Err(libc::EIO)), || {
        // SAFETY: the caller's array of nfds entries.
        poll::rpoll_begin(unsafe { &mut *set() }, timeout)
    });
    // SAFETY: an export's frame, nothing with a destructor live.
    match unsafe { rpoll_sleeping(NAME, step, set) } {
        Ok(n) => n,
        Err(e) => err(e),
    }
}

/// select(2) over rsockets and ordinary descriptors, through rpoll.
///
/// Not written with `export!`, like [`rpoll`].
///
/// # Safety
/// As select(2): the sets are NULL or valid, `timeout` NULL or valid.
#[no_mangle]
pub unsafe extern "C-unwind" fn rselect(nfds: c_int, readfds: *mut libc::fd_set, writefds: *mut libc::fd_set, exceptfds: *mut libc::fd_set, timeout: *mut libc::timeval) -> c_int {
    const NAME: &str = "rselect";
    let begun = rdma_util::ffi::guard(crate::LIB_NAME, NAME, Err(libc::EIO), || {
        // SAFETY: the caller's sets and timeout (null allowed).
        let sel = unsafe { poll::rselect_begin(nfds, readfds, writefds, exceptfds, timeout) }?;
        // SAFETY: the set just built.
        let step = poll::rpoll_begin(unsafe { sel.fds() }, sel.timeout);
        Ok((sel, step))
    });
    let (sel, step) = match begun {
        Ok(b) => b,
        Err(e) => return err(e),
    };
    // SAFETY: an export's frame, nothing with a destructor live; the set
    // stays allocated until rselect_finish.
    let r = unsafe { rpoll_sleeping(NAME, step, move || sel.fds() as *mut [pollfd]) };
    // SAFETY: the caller's sets, as given to rselect_begin.
    match rdma_util::ffi::guard(crate::LIB_NAME, NAME, Err(libc::EIO), || unsafe { poll::rselect_finish(sel, r, readfds, writefds, exceptfds) }) {
        Ok(n) => n,
        Err(e) => err(e),
    }
}

rdma_util::export! {
    /// Maps `buf` for the peer's riowrite (PROT_WRITE) at `offset` (-1:
    /// the buffer's address); returns the offset.
    fn riomap(socket: c_int, buf: *mut c_void, len: usize, prot: c_int, flags: c_int, offset: libc::off_t) -> libc::off_t, on_panic = -1;
    {
        let _ = flags;
        // Datagram sockets: see dgram/.
        if dgram::lookup(socket).is_some() {
            return err(libc::EOPNOTSUPP);
        }
        let rs = match lookup(socket) { Ok(r) => r, Err(e) => return err(e) };
        match super::iomap::riomap(&rs, buf.cast(), len, prot, offset) {
            Ok(o) => o,
            Err(e) => err(e),
        }
    }
}

rdma_util::export! {
    fn riounmap(socket: c_int, buf: *mut c_void, len: usize) -> c_int, on_panic = -1;
    {
        // Datagram sockets: see dgram/.
        if dgram::lookup(socket).is_some() {
            return err(libc::EOPNOTSUPP);
        }
        let rs = match lookup(socket) { Ok(r) => r, Err(e) => return err(e) };
        int_ret(super::iomap::riounmap(&rs, buf.cast(), len))
    }
}

rdma_util::export! {
    /// Writes into the peer's mapping at `offset`; (size_t)-1 with errno
    /// when nothing could be written.
    fn riowrite(socket: c_int, buf: *const c_void, count: usize, offset: libc::off_t, flags: c_int) -> usize, on_panic = usize::MAX;
    {
        // Datagram sockets: see dgram/.
        if dgram::lookup(socket).is_some() {
            set_errno(libc::EOPNOTSUPP);
            return usize::MAX;
        }
        let rs = match lookup(socket) { Ok(r) => r, Err(e) => { set_errno(e); return usize::MAX } };
        if buf.is_null() && count != 0 {
            set_errno(libc::EFAULT);
            return usize::MAX;
        }
        // SAFETY: the caller's buffer of count bytes (checked non-null).
        match unsafe { super::iomap::riowrite(&rs, buf.cast(), count, offset as u64, flags) } {
            Ok(n) => n,
            Err((e, _)) => {
                set_errno(e);
                usize::MAX
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A descriptor no rsocket can have (never registered).
    const BAD: c_int = 1 << 20;

    #[test]
    fn unknown_descriptors_get_ebadf_like_upstream() {
        let mut b = [0u8; 4];
        // SAFETY: calls on an unknown descriptor with valid local buffers.
        unsafe {
            set_errno(0);
            assert_eq!(rsend(BAD, b.as_ptr().cast(), 4, 0), -1);
            assert_eq!(errno(), libc::EBADF);
            set_errno(0);
            assert_eq!(rrecv(BAD, b.as_mut_ptr().cast(), 4, 0), -1);
            assert_eq!(errno(), libc::EBADF);
            assert_eq!(rbind(BAD, core::ptr::null(), 0), -1);
            assert_eq!(rlisten(BAD, 1), -1);
            assert_eq!(rshutdown(BAD, libc::SHUT_RDWR), -1);
            assert_eq!(rfcntl(BAD, libc::F_GETFL, 0), -1);
            assert_eq!(errno(), libc::EBADF);
            set_errno(0);
            assert_eq!(riowrite(BAD, b.as_ptr().cast(), 4, 0, 0), usize::MAX);
            assert_eq!(errno(), libc::EBADF);
            // rclose reports EBADF as its return value, errno untouched.
            set_errno(0);
            assert_eq!(rclose(BAD), libc::EBADF);
            assert_eq!(errno(), 0);
        }
    }

    #[test]
    fn unsupported_socket_kinds_are_refused() {
        // SAFETY: plain integer arguments.
        unsafe {
            set_errno(0);
            assert_eq!(rsocket(libc::AF_UNIX, libc::SOCK_STREAM, 0), -1);
            assert_eq!(errno(), libc::EOPNOTSUPP);
            assert_eq!(rsocket(libc::AF_INET, libc::SOCK_SEQPACKET, 0), -1);
            assert_eq!(rsocket(libc::AF_INET, libc::SOCK_STREAM, libc::IPPROTO_UDP), -1);
            assert_eq!(errno(), libc::EOPNOTSUPP);
        }
    }

    #[test]
    fn null_pointers_get_errors_not_crashes() {
        // SAFETY: the NULL arguments are what is tested.
        unsafe {
            assert_eq!(rsendmsg(BAD, core::ptr::null(), 0), -1);
            assert_eq!(errno(), libc::EFAULT);
            assert_eq!(rrecvmsg(BAD, core::ptr::null_mut(), 0), -1);
            assert_eq!(errno(), libc::EFAULT);
            assert_eq!(rpoll(core::ptr::null_mut(), 1, 0), -1);
            assert_eq!(errno(), libc::EFAULT);
            assert_eq!(rpoll(core::ptr::null_mut(), 0, 0), 0);
        }
    }

    #[test]
    fn rselect_reports_ordinary_fds() {
        let mut p = [0; 2];
        // SAFETY: a two-int array for pipe(2); fd sets are locals.
        unsafe {
            assert_eq!(libc::pipe(p.as_mut_ptr()), 0);
            let mut r: libc::fd_set = core::mem::zeroed();
            let mut w: libc::fd_set = core::mem::zeroed();
            libc::FD_SET(p[0], &mut r);
            libc::FD_SET(p[1], &mut w);
            let mut tv = libc::timeval { tv_sec: 1, tv_usec: 0 };
            let n = p[0].max(p[1]) + 1;
            assert_eq!(rselect(n, &mut r, &mut w, core::ptr::null_mut(), &mut tv), 1);
            assert!(!libc::FD_ISSET(p[0], &r), "nothing to read yet");
            assert!(libc::FD_ISSET(p[1], &w), "the pipe is writable");
            libc::close(p[0]);
            libc::close(p[1]);
        }
    }

    #[test]
    fn repoll_exports_follow_upstreams_conventions() {
        let _s = crate::rsocket::poll::tests::SERIAL.lock();
        const IN: u32 = libc::EPOLLIN as u32;
        // SAFETY: plain arguments, local buffers and the test's own pipe.
        unsafe {
            let ep = repoll_create(libc::EPOLL_CLOEXEC);
            assert!(ep >= 0);
            let mut p = [0; 2];
            assert_eq!(libc::pipe(p.as_mut_ptr()), 0);
            let mut ev = libc::epoll_event { events: IN, u64: 0xabc };
            set_errno(0);
            assert_eq!(repoll_ctl(ep, libc::EPOLL_CTL_ADD, p[0], &mut ev), 0);
            assert_eq!(repoll_ctl(ep, libc::EPOLL_CTL_ADD, p[0], &mut ev), libc::EEXIST);
            assert_eq!(repoll_ctl(ep, libc::EPOLL_CTL_MOD, p[0], core::ptr::null_mut()), libc::EFAULT);
            assert_eq!(repoll_ctl(BAD, libc::EPOLL_CTL_ADD, p[0], &mut ev), libc::EINVAL);
            assert_eq!(repoll_ctl(ep, libc::EPOLL_CTL_ADD, -1, &mut ev), libc::EBADF);
            let mut out = [libc::epoll_event { events: 0, u64: 0 }; 2];
            assert_eq!(repoll_wait(BAD, out.as_mut_ptr(), 2, 0), libc::EINVAL);
            assert_eq!(repoll_wait(ep, out.as_mut_ptr(), 2, 0), 0);
            assert_eq!(errno(), 0, "errors are return values, errno untouched");
            // The number is no rsocket for the other calls.
            assert_eq!(rlisten(ep, 1), -1);
            assert_eq!(errno(), libc::EBADF);
            assert_eq!(rclose(ep), libc::EBUSY, "members left");
            assert_eq!(libc::write(p[1], b"x".as_ptr().cast(), 1), 1);
            assert_eq!(repoll_wait(ep, out.as_mut_ptr(), 2, -1), 1);
            let (e, d) = (out[0].events, out[0].u64);
            assert_eq!((e, d), (IN, 0xabc));
            // DEL does not read the event.
            assert_eq!(repoll_ctl(ep, libc::EPOLL_CTL_DEL, p[0], core::ptr::NonNull::dangling().as_ptr()), 0);
            assert_eq!(rclose(ep), 0);
            libc::close(p[0]);
            libc::close(p[1]);
        }
    }
}
