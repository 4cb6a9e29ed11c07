//! The wake-up gate of rpoll: which threads sleep in rpoll's poll(2), and
//! the process-wide eventfd that wakes them all.
//!
//! Several threads may sleep on the same completion channel while only
//! one of them consumes its event; as upstream, every thread that wakes
//! for an rsocket event wakes all others (the shared eventfd is in every
//! poll set) so that each re-checks its rsockets before sleeping again.
//! A state change found outside rpoll (the CM service seeing a connection
//! finish or break) wakes the sleepers through [`signal`].
//!
//! This module uses no other rsocket module: the connection code and rpoll
//! both reach it from above.

use core::ffi::c_int;
use std::sync::OnceLock;

use parking_lot::Mutex;

use crate::id::Res;

struct Gate {
    /// Threads between poll entry and exit.
    count: u32,
    /// A wake-up is pending; new sleepers wait until it is consumed.
    suspended: bool,
}

static GATE: Mutex<Gate> = Mutex::new(Gate { count: 0, suspended: false });
static SIGNAL_FD: OnceLock<c_int> = OnceLock::new();

/// The wake-up eventfd, created on first use.
pub(crate) fn signal_fd() -> Res<c_int> {
    let fd = *SIGNAL_FD.get_or_init(|| {
        // SAFETY: plain eventfd creation.
        unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_SEMAPHORE | libc::EFD_CLOEXEC) }
    });
    if fd < 0 {
        Err(libc::ENOMEM)
    } else {
        Ok(fd)
    }
}

// The eventfd is read and written with syscall(): not cancellation points
// (see `ffi::cancellable`).
fn read_signal(fd: c_int) -> bool {
    let mut c = 0u64;
    // SAFETY: reading 8 bytes into a local from our eventfd.
    unsafe { libc::syscall(libc::SYS_read, fd, (&mut c as *mut u64).cast::<libc::c_void>(), 8usize) == 8 }
}

fn write_signal(fd: c_int) -> bool {
    let c = 1u64;
    // SAFETY: writing 8 bytes from a local to our eventfd.
    unsafe { libc::syscall(libc::SYS_write, fd, (&c as *const u64).cast::<libc::c_void>(), 8usize) == 8 }
}

/// Wakes every thread sleeping in rpoll (an rsocket's state changed).
pub(crate) fn signal() {
    let Some(&fd) = SIGNAL_FD.get() else { return };
    let mut g = GATE.lock();
    if g.count > 0 && !g.suspended {
        g.suspended = true;
        write_signal(fd);
    }
}

/// Joins the sleepers; false (after yielding) while a wake-up is pending.
pub(crate) fn enter() -> bool {
    let mut g = GATE.lock();
    if g.suspended {
        drop(g);
        std::thread::yield_now();
        return false;
    }
    g.count += 1;
    true
}

/// Leaves without sleeping (the time was up): the last one out clears the
/// wake-up.
pub(crate) fn leave(fd: c_int) {
    let mut g = GATE.lock();
    g.count -= 1;
    if g.count == 0 {
        read_signal(fd);
        g.suspended = false;
    }
}

/// Leaving after poll(2) failed: as [`leave`], errno kept.
pub(crate) fn exit(fd: c_int) {
    let e = rdma_util::ffi::errno();
    leave(fd);
    rdma_util::ffi::set_errno(e);
}

/// Leaving after poll(2) returned: the last one out clears the wake-up;
/// otherwise the others are woken to re-check.
pub(crate) fn stop(fd: c_int) {
    let e = rdma_util::ffi::errno();
    let mut g = GATE.lock();
    g.count -= 1;
    if g.count == 0 {
        read_signal(fd);
        g.suspended = false;
    } else if !g.suspended {
        g.suspended = true;
        write_signal(fd);
    }
    drop(g);
    rdma_util::ffi::set_errno(e);
}

thread_local! {
    /// Set while this thread sleeps in rpoll's poll(2), so that a thread
    /// cancelled there still leaves the gate (see `SleepMark`).
    static SLEEPING: SleepMark = const { SleepMark(core::cell::Cell::new(false)) };
}

/// A cancelled thread runs its thread-local destructors: one cancelled in
/// rpoll's sleep leaves the gate on its way out, so that the other
/// sleepers' wake-ups still work (upstream leaves its count raised).
struct SleepMark(core::cell::Cell<bool>);

impl Drop for SleepMark {
    fn drop(&mut self) {
        if self.0.replace(false) {
            if let Some(&fd) = SIGNAL_FD.get() {
                exit(fd);
            }
        }
    }
}

/// Marks this thread as asleep in rpoll's poll(2) (or awake again).
pub(crate) fn mark_sleeping(on: bool) {
    let _ = SLEEPING.try_with(|m| m.0.set(on));
}

/// Threads inside the gate now (for the tests' balance checks).
#[cfg(test)]
pub(crate) fn sleepers() -> u32 {
    GATE.lock().count
}
