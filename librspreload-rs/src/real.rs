//! The C library's own socket calls, which the preload's exports hide.
//!
//! Each is looked up with dlsym(RTLD_NEXT, name) on first use, without a
//! lock (a second thread looking it up at the same time stores the same
//! address), so any export can reach its real function at any moment,
//! including while the preload is still initialising. Our own code must
//! never call these libc names directly (`libc::read` and friends bind to
//! our exports): it calls them through here, or as raw system calls.

use libc::{
    c_char, c_int, c_void, epoll_event, iovec, msghdr, nfds_t, off_t, pollfd, sigset_t, size_t, sockaddr, socklen_t,
    ssize_t, timespec,
};
use std::sync::atomic::{AtomicUsize, Ordering};

// The calls that are cancellation points and that an export hands an
// ordinary descriptor to have `C-unwind` types: a thread cancelled while
// blocked in one unwinds through the export's frame, as without the
// preload (see the export_io! macro in preload.rs).

/// Writes a fixed message on stderr with a raw system call and aborts: the
/// C library lacks a function every libc has, and there is nothing sane to
/// call instead.
#[cold]
fn missing(name: &[u8]) -> ! {
    let msg = b"librspreload: cannot find the C library's ";
    // SAFETY: write(2) of byte buffers that live for the duration of the call.
    unsafe {
        libc::syscall(libc::SYS_write, 2, msg.as_ptr(), msg.len());
        libc::syscall(libc::SYS_write, 2, name.as_ptr(), name.len().saturating_sub(1));
        libc::syscall(libc::SYS_write, 2, b"\n".as_ptr(), 1usize);
        libc::abort()
    }
}

fn resolve(slot: &AtomicUsize, name: &'static [u8]) -> usize {
    let p = slot.load(Ordering::Acquire);
    if p != 0 {
        return p;
    }
    // SAFETY: name is NUL-terminated (built with concat!(.., "\0")); RTLD_NEXT
    // asks for the definition after this library's, i.e. the C library's.
    let p = unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr() as *const c_char) } as usize;
    if p == 0 {
        missing(name);
    }
    slot.store(p, Ordering::Release);
    p
}

macro_rules! reals {
    ($( $name:ident : $t:ty; )*) => {
        $(
            #[inline]
            pub(crate) fn $name() -> $t {
                static SLOT: AtomicUsize = AtomicUsize::new(0);
                let p = resolve(&SLOT, concat!(stringify!($name), "\0").as_bytes());
                // SAFETY: p is the non-null address dlsym returned for the C
                // library function of this name, whose C prototype is $t.
                unsafe { core::mem::transmute::<usize, $t>(p) }
            }
        )*
    };
}

reals! {
    socket: unsafe extern "C" fn(c_int, c_int, c_int) -> c_int;
    bind: unsafe extern "C" fn(c_int, *const sockaddr, socklen_t) -> c_int;
    listen: unsafe extern "C" fn(c_int, c_int) -> c_int;
    accept: unsafe extern "C-unwind" fn(c_int, *mut sockaddr, *mut socklen_t) -> c_int;
    connect: unsafe extern "C-unwind" fn(c_int, *const sockaddr, socklen_t) -> c_int;
    recv: unsafe extern "C-unwind" fn(c_int, *mut c_void, size_t, c_int) -> ssize_t;
    recvfrom: unsafe extern "C-unwind" fn(c_int, *mut c_void, size_t, c_int, *mut sockaddr, *mut socklen_t) -> ssize_t;
    recvmsg: unsafe extern "C-unwind" fn(c_int, *mut msghdr, c_int) -> ssize_t;
    read: unsafe extern "C-unwind" fn(c_int, *mut c_void, size_t) -> ssize_t;
    readv: unsafe extern "C-unwind" fn(c_int, *const iovec, c_int) -> ssize_t;
    send: unsafe extern "C-unwind" fn(c_int, *const c_void, size_t, c_int) -> ssize_t;
    sendto: unsafe extern "C-unwind" fn(c_int, *const c_void, size_t, c_int, *const sockaddr, socklen_t) -> ssize_t;
    sendmsg: unsafe extern "C-unwind" fn(c_int, *const msghdr, c_int) -> ssize_t;
    write: unsafe extern "C-unwind" fn(c_int, *const c_void, size_t) -> ssize_t;
    writev: unsafe extern "C-unwind" fn(c_int, *const iovec, c_int) -> ssize_t;
    poll: unsafe extern "C-unwind" fn(*mut pollfd, nfds_t, c_int) -> c_int;
    shutdown: unsafe extern "C" fn(c_int, c_int) -> c_int;
    close: unsafe extern "C-unwind" fn(c_int) -> c_int;
    getpeername: unsafe extern "C" fn(c_int, *mut sockaddr, *mut socklen_t) -> c_int;
    getsockname: unsafe extern "C" fn(c_int, *mut sockaddr, *mut socklen_t) -> c_int;
    setsockopt: unsafe extern "C" fn(c_int, c_int, c_int, *const c_void, socklen_t) -> c_int;
    getsockopt: unsafe extern "C" fn(c_int, c_int, c_int, *mut c_void, *mut socklen_t) -> c_int;
    fcntl: unsafe extern "C" fn(c_int, c_int, ...) -> c_int;
    dup2: unsafe extern "C" fn(c_int, c_int) -> c_int;
    sendfile: unsafe extern "C" fn(c_int, c_int, *mut off_t, size_t) -> ssize_t;
    epoll_ctl: unsafe extern "C" fn(c_int, c_int, c_int, *mut epoll_event) -> c_int;
    epoll_wait: unsafe extern "C-unwind" fn(c_int, *mut epoll_event, c_int, c_int) -> c_int;
    epoll_pwait: unsafe extern "C-unwind" fn(c_int, *mut epoll_event, c_int, c_int, *const sigset_t) -> c_int;
    epoll_pwait2: unsafe extern "C-unwind" fn(c_int, *mut epoll_event, c_int, *const timespec, *const sigset_t) -> c_int;
}
