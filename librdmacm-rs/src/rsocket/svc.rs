//! A CM service thread: it watches a list of sockets' CM channels and
//! hands each socket whose channel is readable to its handler. Two run,
//! both defined with their handlers in [`super::connection`]: one watches
//! listening sockets and accepts their requests, one watches connecting
//! and connected sockets for CM events (connection progress, the peer's
//! disconnect). Like upstream they run only while they have sockets to
//! watch.
//!
//! A socket's events are handled with the service's list locked, so once
//! [`Svc::remove`] returns, the thread no longer touches that socket; the
//! thread polls a snapshot of the sockets and rebuilds it after every
//! wake-up. The snapshot holds references: [`Svc::remove`] waits until the
//! thread has let go of its snapshot, so that rclose, not this thread,
//! frees the socket and closes its descriptor before it returns (as
//! upstream: a descriptor must not stay open after rclose returned).

use core::ffi::c_int;
use rdma_util::fallible::Shared;

use parking_lot::{Condvar, Mutex};

use super::base::RS_OPT_CM_SVC;
use super::stream::Rsocket;
use crate::id::Res;

pub(crate) struct Svc {
    /// What to do for a socket whose CM channel is readable.
    handle: fn(&Rsocket),
    inner: Mutex<Inner>,
    /// Signalled whenever the thread has dropped a snapshot (`round`).
    released: Condvar,
}

struct Inner {
    socks: Vec<Shared<Rsocket>>,
    /// eventfd that wakes the thread after a list change; -1 while no
    /// thread runs.
    wake: c_int,
    /// Counts the snapshots the thread has dropped (and its exit).
    round: u64,
}


fn kick(fd: c_int) {
    let one: u64 = 1;
    // SAFETY: writing 8 bytes from a local to our eventfd.
    unsafe { libc::write(fd, (&one as *const u64).cast(), 8) };
}

impl Svc {
    /// A service (for a static) that runs `handle` for each socket whose
    /// CM channel is readable, with the list locked.
    pub(crate) const fn new(handle: fn(&Rsocket)) -> Svc {
        Svc { handle, inner: Mutex::new(Inner { socks: Vec::new(), wake: -1, round: 0 }), released: Condvar::new() }
    }

    /// Starts watching `rs`.
    pub(crate) fn add(&'static self, rs: &Shared<Rsocket>) -> Res<()> {
        let mut g = self.inner.lock();
        if g.wake < 0 {
            // SAFETY: plain eventfd creation.
            let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
            if fd < 0 {
                return Err(rdma_util::ffi::errno());
            }
            if let Err(e) = rdma_util::fallible::spawn_detached(c"rsocket-cm", move || self.run(fd)) {
                // SAFETY: our eventfd.
                unsafe { libc::close(fd) };
                return Err(e);
            }
            g.wake = fd;
        }
        rdma_util::fallible::push(&mut g.socks, rs.clone()).map_err(|_| libc::ENOMEM)?;
        rs.st.lock().base.opts |= RS_OPT_CM_SVC;
        kick(g.wake);
        Ok(())
    }

    /// Stops watching `rs` (no-op if not watched). Returns once the
    /// thread holds no reference to `rs` any more. Never called from the
    /// service thread itself (only rclose removes).
    pub(crate) fn remove(&self, rs: &Rsocket) {
        let mut g = self.inner.lock();
        if let Some(i) = g.socks.iter().position(|s| core::ptr::eq(Shared::as_ptr(s), rs)) {
            g.socks.swap_remove(i);
            rs.st.lock().base.opts &= !RS_OPT_CM_SVC;
            kick(g.wake);
            // A snapshot taken before the removal may still hold rs: the
            // next dropped snapshot (or the thread's exit) is that one.
            let seen = g.round;
            while g.round == seen && g.wake >= 0 {
                self.released.wait(&mut g);
            }
        }
    }

    fn run(&'static self, wake: c_int) {
        let mut fds: Vec<libc::pollfd> = Vec::new();
        let mut snap: Vec<Shared<Rsocket>> = Vec::new();
        loop {
            {
                let mut g = self.inner.lock();
                if g.socks.is_empty() {
                    // SAFETY: our eventfd; the list lock keeps add() from
                    // using it meanwhile.
                    unsafe { libc::close(wake) };
                    g.wake = -1;
                    g.round = g.round.wrapping_add(1);
                    self.released.notify_all();
                    return;
                }
                snap.clear();
                // Short of memory, this round waits a little and tries again
                // (the thread has nobody to report ENOMEM to).
                if snap.try_reserve(g.socks.len()).is_err() || fds.try_reserve(g.socks.len() + 1).is_err() {
                    drop(g);
                    std::thread::sleep(std::time::Duration::from_millis(10));
                    continue;
                }
                snap.extend(g.socks.iter().cloned());
            }
            fds.clear();
            fds.push(libc::pollfd { fd: wake, events: libc::POLLIN, revents: 0 });
            for s in &snap {
                fds.push(libc::pollfd { fd: s.cm_fd(), events: libc::POLLIN, revents: 0 });
            }
            // SAFETY: a live pollfd array of that length.
            unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, -1) };
            if fds[0].revents != 0 {
                let mut v = 0u64;
                // SAFETY: reading 8 bytes into a local.
                unsafe { libc::read(wake, (&mut v as *mut u64).cast(), 8) };
            }
            let g = self.inner.lock();
            for (i, s) in snap.iter().enumerate() {
                if fds[i + 1].revents == 0 || !g.socks.iter().any(|x| Shared::ptr_eq(x, s)) {
                    continue;
                }
                (self.handle)(s);
            }
            drop(g);
            snap.clear();
            let mut g = self.inner.lock();
            g.round = g.round.wrapping_add(1);
            self.released.notify_all();
        }
    }
}
