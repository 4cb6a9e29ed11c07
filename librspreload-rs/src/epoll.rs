//! epoll(7) over rsockets under the preload: beyond rdma-core 44, whose
//! librspreload leaves epoll to the C library, so that a program's epoll on
//! a number that stands for an rsocket fails (the number is a /dev/null
//! placeholder, which epoll_ctl refuses with EPERM).
//!
//! Design. The epoll instance stays the kernel's: epoll_create and
//! epoll_create1 are not replaced, and kernel descriptors registered in an
//! instance behave exactly as without the preload. An rsocket cannot go into
//! the kernel's instance (it lives in librdmacm), so epoll_ctl keeps its
//! watches in a table beside the instance, keyed by the instance's number.
//! epoll_wait on an instance that has rsocket watches waits in rpoll on the
//! watched rsockets plus the instance itself (which the kernel makes readable
//! when one of its own descriptors is ready), then reports the rsockets'
//! events and, in the room left, the kernel's (epoll_wait with timeout 0).
//! An instance without rsocket watches goes straight to the C library.
//!
//! Kept from epoll(7):
//! - level-triggered reports by default; EPOLLERR and EPOLLHUP always;
//! - EPOLLONESHOT: a reported watch is disarmed until EPOLL_CTL_MOD;
//! - epoll_ctl's errors: EBADF (epfd not open), EINVAL (epfd not an epoll
//!   instance, epfd == fd, unknown op, EPOLLEXCLUSIVE with MOD), EEXIST,
//!   ENOENT, EFAULT (no event for ADD or MOD); epoll_wait's EINVAL for
//!   maxevents <= 0, EFAULT for a NULL array, EINTR from a signal;
//! - closing a number drops its watches; closing the instance drops its
//!   table;
//! - when more rsockets are ready than `maxevents`, reports rotate among
//!   them, as the kernel's ready list does.
//!
//! EPOLLET (edge-triggered): a watch reports a readiness bit once, and again
//! only after the program has called into that socket through the preload
//! (read, write, accept, ...). So it reports at least whenever the kernel's
//! edge triggering would, sometimes more, never less: a program using
//! EPOLLET reads or writes until EAGAIN before it waits again, and that call
//! re-opens the edge.
//!
//! Not covered: a duplicate of an instance's number (dup(), or a child
//! after fork() sharing the instance) shares its kernel part only, not the
//! rsocket table; poll() or select() on an instance, or an instance inside
//! another, sees only its kernel descriptors; the signal mask of
//! epoll_pwait is applied around the wait with pthread_sigmask, not
//! atomically; a socket of the fork-support mode (RDMAV_FORK_SAFE)
//! registered before its switch to an rsocket stays registered as the
//! kernel socket it was.

use crate::fdtable::{FdTable, FdType, MAX_INDEX};
use libc::{c_int, pollfd};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;

const EPOLLERR: u32 = libc::EPOLLERR as u32;
const EPOLLHUP: u32 = libc::EPOLLHUP as u32;
const EPOLLET: u32 = libc::EPOLLET as u32;
const EPOLLONESHOT: u32 = libc::EPOLLONESHOT as u32;
const EPOLLEXCLUSIVE: u32 = libc::EPOLLEXCLUSIVE as u32;
/// The readiness bits: on Linux poll(2)'s and epoll's share their values
/// (POLLIN == EPOLLIN, ..., POLLRDHUP == EPOLLRDHUP); the high bits are
/// epoll's input flags.
const READINESS: u32 = 0xffff;

/// One rsocket watched by an instance.
#[derive(Clone, Copy, Debug)]
struct Watch {
    /// The program's number for the socket.
    index: c_int,
    /// The epoll_event's events and data as the program gave them.
    events: u32,
    data: u64,
    /// False once an EPOLLONESHOT watch has reported.
    armed: bool,
    /// Changes with every ADD and MOD, so that a report found for an older
    /// registration is dropped.
    gen: u64,
    /// EPOLLET: readiness bits reported since the program last called into
    /// the socket; `epoch` is that socket's call count then.
    shown: u32,
    epoch: u32,
}

/// The rsocket watches of one instance.
#[derive(Debug)]
struct Set {
    epfd: c_int,
    watches: Vec<Watch>,
    /// Where the next report starts (rotation among ready watches).
    cursor: usize,
}

/// The watch tables of the process's instances.
pub(crate) struct Registry {
    sets: Mutex<Vec<Set>>,
    /// Some instance has (or had) a table: the fast paths test this first.
    any: AtomicBool,
    gen: AtomicU64,
}

pub(crate) static REGISTRY: Registry = Registry::new();

/// EPOLLET watches exist: from then on, calls into a socket are counted.
static EDGE_USED: AtomicBool = AtomicBool::new(false);
/// Per program number, calls into the socket since [`EDGE_USED`] was set.
static EPOCH: [AtomicU32; MAX_INDEX as usize + 1] = [const { AtomicU32::new(0) }; MAX_INDEX as usize + 1];

/// Counts a call into the socket behind `index` (see EPOLLET above). Called
/// on every descriptor lookup of the preload; a load and a branch while no
/// program uses EPOLLET on an rsocket.
#[inline]
pub(crate) fn note_call(index: c_int) {
    if EDGE_USED.load(Ordering::Relaxed) {
        if let Some(e) = usize::try_from(index).ok().and_then(|i| EPOCH.get(i)) {
            e.fetch_add(1, Ordering::Relaxed);
        }
    }
}

fn epoch(index: c_int) -> u32 {
    usize::try_from(index).ok().and_then(|i| EPOCH.get(i)).map_or(0, |e| e.load(Ordering::Relaxed))
}

/// What epoll_ctl does with a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Route {
    /// The kernel's epoll_ctl, with this descriptor.
    Kernel(c_int),
    /// Done here, in the instance's rsocket table.
    Done,
}

/// One rsocket to poll in a wait, as found in the table.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Probe {
    index: c_int,
    gen: u64,
    /// rpoll's entry: the rsocket's own number and the bits asked for.
    pub(crate) pfd: pollfd,
}

impl Registry {
    pub(crate) const fn new() -> Self {
        Registry { sets: Mutex::new(Vec::new()), any: AtomicBool::new(false), gen: AtomicU64::new(1) }
    }

    /// True while some instance may have rsocket watches.
    #[inline]
    pub(crate) fn any(&self) -> bool {
        self.any.load(Ordering::Acquire)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Set>> {
        // A panic inside the lock leaves the tables consistent (every change
        // is a single push, remove or field store), so a poisoned lock is
        // still usable.
        self.sets.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// epoll_ctl for `index` on instance `epfd`. `is_epoll(epfd)` says
    /// whether epfd is an open epoll instance: Err(EBADF) or Err(EINVAL) if
    /// not; it is asked only for rsockets (the kernel checks the others).
    /// `event`: the program's (events, data), None for a NULL pointer.
    pub(crate) fn ctl(
        &self,
        table: &FdTable,
        epfd: c_int,
        op: c_int,
        index: c_int,
        event: Option<(u32, u64)>,
        is_epoll: impl FnOnce(c_int) -> Result<(), c_int>,
    ) -> Result<Route, c_int> {
        match table.get(index) {
            None => return Ok(Route::Kernel(index)),
            Some(e) if e.ty == FdType::Normal => return Ok(Route::Kernel(e.fd)),
            Some(_) => {}
        }
        // The kernel's order of checks: the event is read first, then both
        // numbers are looked up, then epfd must be another epoll instance.
        if op != libc::EPOLL_CTL_DEL && event.is_none() {
            return Err(libc::EFAULT);
        }
        is_epoll(epfd)?;
        if epfd == index {
            return Err(libc::EINVAL);
        }
        let mut sets = self.lock();
        let pos = sets.iter().position(|s| s.epfd == epfd);
        let found = pos.and_then(|p| sets[p].watches.iter().position(|w| w.index == index).map(|w| (p, w)));
        match op {
            libc::EPOLL_CTL_ADD => {
                if found.is_some() {
                    return Err(libc::EEXIST);
                }
                let (events, data) = event.unwrap_or_default();
                let w = self.fresh_watch(index, events, data);
                let nomem = |_| libc::ENOMEM;
                match pos {
                    Some(p) => rdma_util::fallible::push(&mut sets[p].watches, w).map_err(nomem)?,
                    None => {
                        let mut watches = rdma_util::fallible::vec_with_capacity(1).map_err(nomem)?;
                        watches.push(w);
                        rdma_util::fallible::push(&mut sets, Set { epfd, watches, cursor: 0 }).map_err(nomem)?;
                        self.any.store(true, Ordering::Release);
                    }
                }
                Ok(Route::Done)
            }
            libc::EPOLL_CTL_MOD => {
                let (p, i) = found.ok_or(libc::ENOENT)?;
                let (events, data) = event.unwrap_or_default();
                if events & EPOLLEXCLUSIVE != 0 {
                    return Err(libc::EINVAL);
                }
                sets[p].watches[i] = self.fresh_watch(index, events, data);
                Ok(Route::Done)
            }
            libc::EPOLL_CTL_DEL => {
                let (p, i) = found.ok_or(libc::ENOENT)?;
                sets[p].watches.remove(i);
                Ok(Route::Done)
            }
            _ => Err(libc::EINVAL),
        }
    }

    fn fresh_watch(&self, index: c_int, events: u32, data: u64) -> Watch {
        if events & EPOLLET != 0 {
            EDGE_USED.store(true, Ordering::Relaxed);
        }
        let gen = self.gen.fetch_add(1, Ordering::Relaxed);
        Watch { index, events, data, armed: true, gen, shown: 0, epoch: epoch(index) }
    }

    /// Whether instance `epfd` has rsocket watches (armed or not).
    pub(crate) fn has_watches(&self, epfd: c_int) -> bool {
        self.any() && self.lock().iter().any(|s| s.epfd == epfd && !s.watches.is_empty())
    }

    /// The number `index` was closed (or replaced by dup2): its watches go,
    /// and its table if it was an instance.
    pub(crate) fn forget(&self, index: c_int) {
        if !self.any() {
            return;
        }
        let mut sets = self.lock();
        sets.retain(|s| s.epfd != index);
        for s in sets.iter_mut() {
            s.watches.retain(|w| w.index != index);
        }
    }

    /// The rsockets a wait on `epfd` polls, in the order reports should
    /// start from. Watches whose number no longer stands for an rsocket
    /// (closed behind the preload's back, or reused) are dropped. None if
    /// the instance has no watches left.
    pub(crate) fn probes(&self, table: &FdTable, epfd: c_int) -> Result<Option<Vec<Probe>>, c_int> {
        let mut sets = self.lock();
        let Some(s) = sets.iter_mut().find(|s| s.epfd == epfd) else { return Ok(None) };
        s.watches.retain(|w| table.get(w.index).is_some_and(|e| e.ty == FdType::Rsocket));
        if s.watches.is_empty() {
            return Ok(None);
        }
        let n = s.watches.len();
        let start = s.cursor % n;
        // One more for the caller's poll entry of the kernel's instance.
        let mut v = rdma_util::fallible::vec_with_capacity(n + 1).map_err(|_| libc::ENOMEM)?;
        for k in 0..n {
            let w = &mut s.watches[(start + k) % n];
            if !w.armed {
                continue;
            }
            let mut want = w.events & READINESS;
            if w.events & EPOLLET != 0 {
                let now = epoch(w.index);
                if now != w.epoch {
                    w.epoch = now;
                    w.shown = 0;
                }
                // After a hang-up or error has been shown, rpoll would
                // report it at once on every round: nothing more to wait
                // for on this socket until the program calls into it.
                if w.shown & (EPOLLHUP | EPOLLERR) != 0 {
                    continue;
                }
                want &= !w.shown;
                if want == 0 {
                    continue;
                }
            }
            let Some(e) = table.get(w.index) else { continue };
            v.push(Probe { index: w.index, gen: w.gen, pfd: pollfd { fd: e.fd, events: want as i16, revents: 0 } });
        }
        Ok(Some(v))
    }

    /// Turns rpoll's results for `probes` into reports in `out`; returns how
    /// many. Applies EPOLLONESHOT and EPOLLET and moves the rotation on.
    pub(crate) fn collect(&self, epfd: c_int, probes: &[Probe], out: &mut [(u32, u64)]) -> usize {
        let mut sets = self.lock();
        let Some(s) = sets.iter_mut().find(|s| s.epfd == epfd) else { return 0 };
        let mut n = 0;
        for p in probes {
            if n == out.len() {
                break;
            }
            let got = p.pfd.revents as u16 as u32;
            if got == 0 {
                continue;
            }
            let Some(i) = s.watches.iter().position(|w| w.index == p.index && w.gen == p.gen) else { continue };
            let w = &mut s.watches[i];
            if !w.armed {
                continue;
            }
            let mut bits = got & ((w.events & READINESS) | EPOLLERR | EPOLLHUP);
            if w.events & EPOLLET != 0 {
                bits &= !w.shown;
                w.shown |= bits;
            }
            if bits == 0 {
                continue;
            }
            if w.events & EPOLLONESHOT != 0 {
                w.armed = false;
            }
            out[n] = (bits, w.data);
            n += 1;
            s.cursor = i + 1;
        }
        n
    }
}

impl Default for Registry {
    fn default() -> Self {
        Self::new()
    }
}

/// Milliseconds left of `timeout` (ms, < 0 for none) since `start`.
pub(crate) fn remaining(timeout: c_int, start: std::time::Instant) -> c_int {
    if timeout < 0 {
        return -1;
    }
    let spent = start.elapsed().as_millis().min(c_int::MAX as u128) as c_int;
    (timeout - spent).max(0)
}

/// epoll_pwait2's timespec as epoll_wait's milliseconds (rounded up; -1
/// for NULL). Err(EINVAL) for a negative or malformed value, as the kernel.
pub(crate) fn timespec_ms(ts: Option<&libc::timespec>) -> Result<c_int, c_int> {
    let Some(t) = ts else { return Ok(-1) };
    if t.tv_sec < 0 || !(0..1_000_000_000).contains(&t.tv_nsec) {
        return Err(libc::EINVAL);
    }
    let ms = (t.tv_sec as i128) * 1000 + (t.tv_nsec as i128 + 999_999) / 1_000_000;
    Ok(ms.min(c_int::MAX as i128) as c_int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fdtable::{Entry, ForkState};

    fn rsock(t: &FdTable, index: c_int, fd: c_int) {
        t.insert(index, Entry { fd, ty: FdType::Rsocket, state: ForkState::Ready }).unwrap();
    }

    fn ok(_: c_int) -> Result<(), c_int> {
        Ok(())
    }

    const IN: u32 = libc::EPOLLIN as u32;
    const OUT: u32 = libc::EPOLLOUT as u32;

    fn revents(probes: &mut [Probe], index: c_int, r: u32) {
        for p in probes.iter_mut().filter(|p| p.index == index) {
            p.pfd.revents = r as i16;
        }
    }

    #[test]
    fn ctl_routes_and_errors_like_epoll_ctl() {
        let t = FdTable::new_leaked();
        let r = Registry::new();
        rsock(&t, 10, 3);
        t.insert(11, Entry { fd: 40, ty: FdType::Normal, state: ForkState::Ready }).unwrap();
        // Not ours, and kernel sockets behind our numbers: the kernel's call.
        assert_eq!(r.ctl(&t, 5, libc::EPOLL_CTL_ADD, 12, Some((IN, 1)), ok), Ok(Route::Kernel(12)));
        assert_eq!(r.ctl(&t, 5, libc::EPOLL_CTL_ADD, 11, Some((IN, 1)), ok), Ok(Route::Kernel(40)));
        assert!(!r.any());
        // The rsocket: the table.
        assert_eq!(r.ctl(&t, 5, libc::EPOLL_CTL_MOD, 10, Some((IN, 1)), ok), Err(libc::ENOENT));
        assert_eq!(r.ctl(&t, 5, libc::EPOLL_CTL_DEL, 10, None, ok), Err(libc::ENOENT));
        assert_eq!(r.ctl(&t, 5, libc::EPOLL_CTL_ADD, 10, None, ok), Err(libc::EFAULT));
        assert_eq!(r.ctl(&t, 5, libc::EPOLL_CTL_ADD, 10, Some((IN, 1)), |_| Err(libc::EBADF)), Err(libc::EBADF));
        assert_eq!(r.ctl(&t, 10, libc::EPOLL_CTL_ADD, 10, Some((IN, 1)), ok), Err(libc::EINVAL));
        assert_eq!(r.ctl(&t, 5, libc::EPOLL_CTL_ADD, 10, Some((IN, 1)), ok), Ok(Route::Done));
        assert!(r.any() && r.has_watches(5) && !r.has_watches(6));
        assert_eq!(r.ctl(&t, 5, libc::EPOLL_CTL_ADD, 10, Some((IN, 1)), ok), Err(libc::EEXIST));
        assert_eq!(r.ctl(&t, 5, 99, 10, Some((IN, 1)), ok), Err(libc::EINVAL));
        assert_eq!(r.ctl(&t, 5, libc::EPOLL_CTL_MOD, 10, Some((IN | EPOLLEXCLUSIVE, 1)), ok), Err(libc::EINVAL));
        assert_eq!(r.ctl(&t, 5, libc::EPOLL_CTL_MOD, 10, Some((OUT, 2)), ok), Ok(Route::Done));
        let p = r.probes(&t, 5).unwrap().unwrap();
        assert_eq!((p.len(), p[0].pfd.fd, p[0].pfd.events as u32), (1, 3, OUT));
        assert_eq!(r.ctl(&t, 5, libc::EPOLL_CTL_DEL, 10, None, ok), Ok(Route::Done));
        assert!(!r.has_watches(5));
        assert!(r.probes(&t, 5).unwrap().is_none());
    }

    #[test]
    fn level_reports_repeat_and_oneshot_disarms_until_mod() {
        let t = FdTable::new_leaked();
        let r = Registry::new();
        rsock(&t, 20, 7);
        rsock(&t, 21, 8);
        r.ctl(&t, 5, libc::EPOLL_CTL_ADD, 20, Some((IN, 0xaa)), ok).unwrap();
        r.ctl(&t, 5, libc::EPOLL_CTL_ADD, 21, Some((IN | EPOLLONESHOT, 0xbb)), ok).unwrap();
        let mut out = [(0, 0); 4];
        for round in 0..2 {
            let mut p = r.probes(&t, 5).unwrap().unwrap();
            revents(&mut p, 20, IN);
            revents(&mut p, 21, IN | OUT);
            let n = r.collect(5, &p, &mut out);
            let mut got = out[..n].to_vec();
            got.sort();
            if round == 0 {
                // OUT was not asked for: not reported.
                assert_eq!(got, vec![(IN, 0xaa), (IN, 0xbb)]);
            } else {
                assert_eq!(got, vec![(IN, 0xaa)], "the one-shot watch is disarmed");
            }
        }
        assert_eq!(r.probes(&t, 5).unwrap().unwrap().len(), 1, "a disarmed watch is not polled");
        r.ctl(&t, 5, libc::EPOLL_CTL_MOD, 21, Some((IN | EPOLLONESHOT, 0xcc)), ok).unwrap();
        assert_eq!(r.probes(&t, 5).unwrap().unwrap().len(), 2, "MOD re-arms it");
        // Hang-up and error are reported even when not asked for.
        let mut p = r.probes(&t, 5).unwrap().unwrap();
        revents(&mut p, 20, EPOLLHUP);
        assert_eq!(r.collect(5, &p, &mut out), 1);
        assert_eq!(out[0], (EPOLLHUP, 0xaa));
    }

    #[test]
    fn stale_reports_are_dropped_and_closing_forgets() {
        let t = FdTable::new_leaked();
        let r = Registry::new();
        rsock(&t, 30, 9);
        r.ctl(&t, 6, libc::EPOLL_CTL_ADD, 30, Some((IN, 1)), ok).unwrap();
        let mut p = r.probes(&t, 6).unwrap().unwrap();
        // MOD while the wait was polling: its report belongs to the old
        // registration and is dropped.
        r.ctl(&t, 6, libc::EPOLL_CTL_MOD, 30, Some((IN, 2)), ok).unwrap();
        revents(&mut p, 30, IN);
        let mut out = [(0, 0); 2];
        assert_eq!(r.collect(6, &p, &mut out), 0);
        // A number that no longer stands for an rsocket is dropped.
        t.remove(30);
        assert!(r.probes(&t, 6).unwrap().is_none());
        rsock(&t, 30, 9);
        r.ctl(&t, 6, libc::EPOLL_CTL_ADD, 30, Some((IN, 1)), ok).unwrap();
        r.forget(30);
        assert!(!r.has_watches(6));
        r.ctl(&t, 6, libc::EPOLL_CTL_ADD, 30, Some((IN, 1)), ok).unwrap();
        r.forget(6);
        assert!(r.probes(&t, 6).unwrap().is_none(), "closing the instance drops its table");
    }

    #[test]
    fn ready_watches_rotate_when_maxevents_is_small() {
        let t = FdTable::new_leaked();
        let r = Registry::new();
        for i in 0..3 {
            rsock(&t, 40 + i, 50 + i);
            r.ctl(&t, 7, libc::EPOLL_CTL_ADD, 40 + i, Some((IN, i as u64)), ok).unwrap();
        }
        let mut seen = Vec::new();
        let mut out = [(0, 0); 1];
        for _ in 0..3 {
            let mut p = r.probes(&t, 7).unwrap().unwrap();
            for i in 0..3 {
                revents(&mut p, 40 + i, IN);
            }
            assert_eq!(r.collect(7, &p, &mut out), 1);
            seen.push(out[0].1);
        }
        seen.sort();
        assert_eq!(seen, vec![0, 1, 2], "each ready socket gets its turn");
    }

    #[test]
    fn edge_triggered_reports_once_until_the_program_calls_in() {
        let t = FdTable::new_leaked();
        let r = Registry::new();
        // A number no other test uses: EPOCH is process-wide.
        let idx = 60_001;
        rsock(&t, idx, 11);
        r.ctl(&t, 8, libc::EPOLL_CTL_ADD, idx, Some((IN | OUT | EPOLLET, 5)), ok).unwrap();
        let mut out = [(0, 0); 2];
        let mut p = r.probes(&t, 8).unwrap().unwrap();
        assert_eq!(p[0].pfd.events as u32, IN | OUT);
        revents(&mut p, idx, OUT);
        assert_eq!(r.collect(8, &p, &mut out), 1);
        assert_eq!(out[0], (OUT, 5));
        // Writable still, not shown again: only IN is polled for now.
        let mut p = r.probes(&t, 8).unwrap().unwrap();
        assert_eq!(p[0].pfd.events as u32, IN);
        revents(&mut p, idx, IN | OUT);
        assert_eq!(r.collect(8, &p, &mut out), 1);
        assert_eq!(out[0], (IN, 5), "only the new bit");
        assert!(r.probes(&t, 8).unwrap().unwrap().is_empty(), "nothing left to wait for");
        // The program reads (or writes): both edges open again.
        note_call(idx);
        let p = r.probes(&t, 8).unwrap().unwrap();
        assert_eq!(p[0].pfd.events as u32, IN | OUT);
    }

    #[test]
    fn pwait2_timeouts() {
        let ts = |s, ns| libc::timespec { tv_sec: s, tv_nsec: ns };
        assert_eq!(timespec_ms(None), Ok(-1));
        assert_eq!(timespec_ms(Some(&ts(0, 0))), Ok(0));
        assert_eq!(timespec_ms(Some(&ts(0, 1))), Ok(1));
        assert_eq!(timespec_ms(Some(&ts(2, 500_000_000))), Ok(2500));
        assert_eq!(timespec_ms(Some(&ts(-1, 0))), Err(libc::EINVAL));
        assert_eq!(timespec_ms(Some(&ts(0, 1_000_000_000))), Err(libc::EINVAL));
        let start = std::time::Instant::now();
        assert_eq!(remaining(-1, start), -1);
        assert!(remaining(100_000, start) > 90_000);
        assert_eq!(remaining(0, start), 0);
    }
}
