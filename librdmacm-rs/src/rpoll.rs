//! rpoll, the one member of the rsocket family that upstream's CM example
//! programs import (rping, ucmatose, udaddy, mckey and cmtime all wait on
//! their event channel fd through it), exported ahead of rsockets.
//!
//! Until rsocket() exists in this library, no descriptor a caller holds can
//! be an rsocket, so every descriptor passed here is an ordinary fd. For
//! those, upstream's rpoll reports exactly what poll(2) reports: it first
//! spins on a zero-timeout poll() for its polling_time, then sleeps in
//! poll() in slices of its wake-up interval until an event or the timeout.
//! The observable result (return value, revents, errno, and 0 once the
//! timeout has passed) is poll()'s, which is what this does. The rsockets
//! issue replaces this module with the full version over rsockets and fds.
use libc::{nfds_t, pollfd};

crate::export! {
    /// poll(2) over `fds`; see the module documentation.
    fn rpoll(fds: *mut pollfd, nfds: nfds_t, timeout: libc::c_int) -> libc::c_int, on_panic = -1;
    {
        crate::ensure!(!fds.is_null() || nfds == 0, libc::EFAULT, -1);
        // SAFETY: the caller's array of nfds pollfd entries (poll(2)
        // itself reports EFAULT for an unreadable one).
        unsafe { libc::poll(fds, nfds, timeout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_readiness_and_timeouts_like_poll() {
        let mut p = [0; 2];
        // SAFETY: a two-int array for pipe(2).
        assert_eq!(unsafe { libc::pipe(p.as_mut_ptr()) }, 0);
        let mut fds = [pollfd { fd: p[0], events: libc::POLLIN, revents: 0 }];
        // SAFETY: a local pollfd array.
        assert_eq!(unsafe { rpoll(fds.as_mut_ptr(), 1, 10) }, 0, "nothing to read: timeout");
        // SAFETY: writing one byte from a local.
        assert_eq!(unsafe { libc::write(p[1], b"x".as_ptr().cast(), 1) }, 1);
        // SAFETY: as above.
        assert_eq!(unsafe { rpoll(fds.as_mut_ptr(), 1, -1) }, 1);
        assert_eq!(fds[0].revents, libc::POLLIN);
        // SAFETY: closing our own pipe.
        unsafe { libc::close(p[0]); libc::close(p[1]) };
        // SAFETY: as above; the fd is closed now.
        assert_eq!(unsafe { rpoll(fds.as_mut_ptr(), 1, 0) }, 1);
        assert_eq!(fds[0].revents, libc::POLLNVAL);
    }
}
