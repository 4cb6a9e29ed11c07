//! repoll: an epoll for rsockets (rdma-core 65, RDMACM_1.5): an instance
//! holds a set of descriptors, rsockets and ordinary ones alike, with the
//! events asked for and the caller's 64-bit data; a wait reports the ready
//! ones through rpoll.
//!
//! As upstream:
//! - an instance is known by a descriptor of its own, the read end of a
//!   pipe that is never written (so the number is the process's and stays
//!   taken; polled, it is never ready); rclose frees it, but only once the
//!   set is empty (EBUSY before);
//! - repoll_ctl and repoll_wait return errors as positive errno values
//!   (errno untouched): EINVAL for a descriptor that is not an instance,
//!   for an instance's own number as the target, for an unknown operation;
//!   EBADF for a negative target; EEXIST / ENOENT for adding a member twice
//!   or changing one that is not there; ENOMEM for a target above 65535
//!   (upstream's index table) or no memory;
//! - only EPOLLIN, EPOLLOUT, EPOLLERR and EPOLLHUP are looked at and
//!   reported; EPOLLET, EPOLLONESHOT and the other bits are ignored, so
//!   every report is level-triggered. Reports come in the order the members
//!   were added (a deleted member's place goes to the last one), at most
//!   `maxevents`; the target is not checked to be open (a closed one is
//!   reported with no event bits, from poll's POLLNVAL);
//! - a wait first polls the set without sleeping; a timeout of 0 ends it
//!   there; otherwise it sleeps until a member is ready, the timeout (from
//!   the call's start) passes, or the instance is closed (0), and polls the
//!   set again on waking; a change of the set wakes sleeping waiters to
//!   watch the new set.
//!
//! Differences: upstream runs a monitor thread per instance that sleeps in
//! rpoll for the waiters, who wait on a condition variable; here each
//! waiter sleeps in rpoll itself on a copy of the set plus the instance's
//! eventfd, which a change or the close signals (a gate like rpoll's own,
//! `wake`: the last sleeper out consumes the signal). A waiter is therefore
//! no cancellation point (upstream's condition wait is). A NULL event
//! pointer where one is needed gives EFAULT and a `maxevents` below 1
//! EINVAL (upstream reads or writes through them). A closed instance's
//! memory stays valid for calls still running on it (upstream frees it
//! under them). Other rsocket calls on an instance's number fail with EBADF,
//! and rpoll treats it as the plain pipe it is.

use core::ffi::c_int;
use rdma_util::fallible::Shared;

use parking_lot::Mutex;
use rdma_util::table::FdTable;

use super::poll;

/// Highest descriptor upstream's index table (and so a set) can hold.
const MAX_FD: c_int = (1 << 16) - 1;

/// An instance.
struct Repoll {
    /// The instance's number: the pipe's read end.
    fd: c_int,
    /// The pipe's write end (never written).
    peer: c_int,
    /// Wakes sleeping waiters when the set changes or the instance closes.
    wake: c_int,
    st: Mutex<State>,
}

struct State {
    /// The members, in report order, with the poll events asked for.
    fds: Vec<libc::pollfd>,
    /// Each member's data, beside `fds`.
    data: Vec<u64>,
    /// Member number -> place in `fds` + 1 (0: not a member).
    place: Vec<u32>,
    /// False once closed.
    open: bool,
    /// Waiters asleep in rpoll on a copy of the set.
    sleepers: u32,
    /// `wake` was signalled and not consumed yet: no new sleepers until it
    /// is (the last sleeper out consumes it).
    signalled: bool,
}

static TABLE: FdTable<Shared<Repoll>> = FdTable::new();

impl Drop for Repoll {
    fn drop(&mut self) {
        // SAFETY: our own eventfd, closed once with its last reference (a
        // waiter may still sleep on it after rclose).
        unsafe { libc::close(self.wake) };
    }
}

/// The instance registered under `fd`.
fn lookup(fd: c_int) -> Option<Shared<Repoll>> {
    TABLE.get_if_any(fd)
}

fn write_wake(fd: c_int) {
    let one = 1u64;
    // SAFETY: 8 bytes from a local to our eventfd (syscall(): no
    // cancellation point).
    unsafe { libc::syscall(libc::SYS_write, fd, (&one as *const u64).cast::<libc::c_void>(), 8usize) };
}

fn read_wake(fd: c_int) {
    let mut v = 0u64;
    // SAFETY: 8 bytes into a local from our (non-blocking) eventfd.
    unsafe { libc::syscall(libc::SYS_read, fd, (&mut v as *mut u64).cast::<libc::c_void>(), 8usize) };
}

impl Repoll {
    /// Wakes the sleeping waiters (under the state lock).
    fn signal(&self, st: &mut State) {
        if st.sleepers > 0 && !st.signalled {
            st.signalled = true;
            write_wake(self.wake);
        }
    }
}

/// `repoll_create`: a new instance; its number, or the errno. `flags` may
/// hold O_CLOEXEC (EPOLL_CLOEXEC) and O_NONBLOCK, which go to the pipe;
/// other bits are ignored.
pub(crate) fn create(flags: c_int) -> Result<c_int, c_int> {
    let mut p: [c_int; 2] = [0; 2];
    // SAFETY: p has room for the two descriptors.
    if unsafe { libc::pipe2(p.as_mut_ptr(), libc::O_DIRECT | (flags & (libc::O_CLOEXEC | libc::O_NONBLOCK))) } != 0 {
        return Err(rdma_util::ffi::errno());
    }
    let close_pipe = || {
        // SAFETY: the pipe just made, not handed out.
        unsafe {
            libc::close(p[0]);
            libc::close(p[1]);
        }
    };
    // SAFETY: plain eventfd creation.
    let wake = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
    if wake < 0 {
        let e = rdma_util::ffi::errno();
        close_pipe();
        return Err(e);
    }
    let st = State { fds: Vec::new(), data: Vec::new(), place: Vec::new(), open: true, sleepers: 0, signalled: false };
    // On failure the Repoll goes (closing `wake`) and the pipe with it.
    let r = Shared::try_new(Repoll { fd: p[0], peer: p[1], wake, st: Mutex::new(st) });
    let registered = match r {
        Ok(r) if p[0] <= MAX_FD => TABLE.insert(p[0], r).is_ok(),
        _ => false,
    };
    if !registered {
        close_pipe();
        return Err(libc::ENOMEM);
    }
    Ok(p[0])
}

/// rclose on a number: None if it is no instance; Some(EBUSY) while the
/// set has members; Some(0) once closed (waiters return 0).
pub(crate) fn close(fd: c_int) -> Option<c_int> {
    let r = lookup(fd)?;
    {
        let mut st = r.st.lock();
        if !st.fds.is_empty() {
            return Some(libc::EBUSY);
        }
        st.open = false;
        r.signal(&mut st);
    }
    TABLE.remove(fd);
    // SAFETY: the instance's pipe, closed once (the number is free again).
    unsafe {
        libc::close(r.fd);
        libc::close(r.peer);
    }
    Some(0)
}

/// Whether `fd` is an instance (for rclose's and the tests' checks).
#[cfg(test)]
pub(crate) fn is_instance(fd: c_int) -> bool {
    lookup(fd).is_some()
}

fn poll_events(epoll: u32) -> i16 {
    let mut ev = 0;
    for (e, p) in [
        (libc::EPOLLIN, libc::POLLIN),
        (libc::EPOLLOUT, libc::POLLOUT),
        (libc::EPOLLERR, libc::POLLERR),
        (libc::EPOLLHUP, libc::POLLHUP),
    ] {
        if epoll & e as u32 != 0 {
            ev |= p;
        }
    }
    ev
}

fn epoll_events(revents: i16) -> u32 {
    let mut ev = 0;
    for (e, p) in [
        (libc::EPOLLIN, libc::POLLIN),
        (libc::EPOLLOUT, libc::POLLOUT),
        (libc::EPOLLERR, libc::POLLERR),
        (libc::EPOLLHUP, libc::POLLHUP),
    ] {
        if revents & p != 0 {
            ev |= e as u32;
        }
    }
    ev
}

/// `repoll_ctl`: 0 or a positive errno. `event` is the caller's
/// (events, data), read for EPOLL_CTL_ADD and EPOLL_CTL_MOD only; None
/// there is EFAULT.
pub(crate) fn ctl(epfd: c_int, op: c_int, fd: c_int, event: Option<(u32, u64)>) -> c_int {
    if fd < 0 {
        return libc::EBADF;
    }
    if epfd == fd {
        return libc::EINVAL;
    }
    let Some(r) = lookup(epfd) else { return libc::EINVAL };
    let mut st = r.st.lock();
    let ret = match op {
        libc::EPOLL_CTL_ADD => add(&mut st, fd, event),
        libc::EPOLL_CTL_MOD => modify(&mut st, fd, event),
        libc::EPOLL_CTL_DEL => del(&mut st, fd),
        _ => Err(libc::EINVAL),
    };
    match ret {
        Ok(()) => {
            r.signal(&mut st);
            0
        }
        Err(e) => e,
    }
}

fn place_of(st: &State, fd: c_int) -> Option<usize> {
    match st.place.get(fd as usize) {
        Some(&p) if p != 0 => Some(p as usize - 1),
        _ => None,
    }
}

fn add(st: &mut State, fd: c_int, event: Option<(u32, u64)>) -> Result<(), c_int> {
    if place_of(st, fd).is_some() {
        return Err(libc::EEXIST);
    }
    let (events, data) = event.ok_or(libc::EFAULT)?;
    if fd > MAX_FD {
        return Err(libc::ENOMEM);
    }
    let i = fd as usize;
    if st.place.len() <= i {
        st.place.try_reserve(i + 1 - st.place.len()).map_err(|_| libc::ENOMEM)?;
        st.place.resize(i + 1, 0);
    }
    st.fds.try_reserve(1).map_err(|_| libc::ENOMEM)?;
    st.data.try_reserve(1).map_err(|_| libc::ENOMEM)?;
    st.fds.push(libc::pollfd { fd, events: poll_events(events), revents: 0 });
    st.data.push(data);
    st.place[i] = st.fds.len() as u32;
    Ok(())
}

fn modify(st: &mut State, fd: c_int, event: Option<(u32, u64)>) -> Result<(), c_int> {
    let p = place_of(st, fd).ok_or(libc::ENOENT)?;
    let (events, data) = event.ok_or(libc::EFAULT)?;
    st.fds[p] = libc::pollfd { fd, events: poll_events(events), revents: 0 };
    st.data[p] = data;
    Ok(())
}

fn del(st: &mut State, fd: c_int) -> Result<(), c_int> {
    let p = place_of(st, fd).ok_or(libc::ENOENT)?;
    st.place[fd as usize] = 0;
    // The last member takes the freed place.
    st.fds.swap_remove(p);
    st.data.swap_remove(p);
    if let Some(moved) = st.fds.get(p).map(|f| f.fd) {
        st.place[moved as usize] = p as u32 + 1;
    }
    Ok(())
}

/// Where repoll_wait writes its reports: the caller's array.
struct Out {
    events: *mut libc::epoll_event,
    /// At least 1.
    max: usize,
}

/// Polls the set without sleeping (in place, as upstream: only `revents`
/// changes); reports its ready members (at most `out.max`) with their data.
fn collect(st: &mut State, out: &Out) -> Option<c_int> {
    if st.fds.is_empty() || !matches!(poll::rpoll(&mut st.fds, 0), Ok(n) if n > 0) {
        return None;
    }
    let mut n = 0;
    for (i, f) in st.fds.iter().enumerate() {
        if f.revents == 0 {
            continue;
        }
        let ev = libc::epoll_event { events: epoll_events(f.revents), u64: st.data[i] };
        // SAFETY: n < out.max entries of the caller's array (the export's
        // contract: maxevents entries).
        unsafe { out.events.add(n).write_unaligned(ev) };
        n += 1;
        if n >= out.max {
            break;
        }
    }
    Some(n as c_int)
}

fn now_ms() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: ts is a local.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000
}

/// `repoll_wait`: the number of reports, or a positive errno (EINVAL: not
/// an instance, or `maxevents` below 1; EFAULT: no array).
///
/// # Safety
/// `events` is NULL or holds `maxevents` entries.
pub(crate) unsafe fn wait(epfd: c_int, events: *mut libc::epoll_event, maxevents: c_int, timeout: c_int) -> c_int {
    let Some(r) = lookup(epfd) else { return libc::EINVAL };
    if maxevents < 1 {
        return libc::EINVAL;
    }
    if events.is_null() {
        return libc::EFAULT;
    }
    let out = &Out { events, max: maxevents as usize };
    let deadline = (timeout > 0).then(|| now_ms() + timeout as u64);
    loop {
        let mut st = r.st.lock();
        if !st.open {
            return 0;
        }
        if let Some(n) = collect(&mut st, out) {
            return n;
        }
        if timeout == 0 {
            return 0;
        }
        let left = match deadline {
            None => -1,
            Some(d) => {
                let now = now_ms();
                if now >= d {
                    return 0;
                }
                (d - now).min(c_int::MAX as u64) as c_int
            }
        };
        if st.signalled {
            // A wake-up for the sleepers is still pending: wait until the
            // last of them has consumed it.
            drop(st);
            std::thread::yield_now();
            continue;
        }
        let mut set = Vec::new();
        if set.try_reserve_exact(st.fds.len() + 1).is_err() {
            return libc::ENOMEM;
        }
        set.extend_from_slice(&st.fds);
        set.push(libc::pollfd { fd: r.wake, events: libc::POLLIN, revents: 0 });
        st.sleepers += 1;
        drop(st);
        let slept = poll::rpoll(&mut set, left);
        let mut st = r.st.lock();
        st.sleepers -= 1;
        if st.sleepers == 0 && st.signalled {
            read_wake(r.wake);
            st.signalled = false;
        }
        drop(st);
        match slept {
            // Interrupted by a signal: sleep again (upstream's waiters
            // sleep on a condition variable, which signals do not end).
            Err(libc::EINTR) => {}
            Err(e) => return e,
            Ok(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rsocket::poll::tests::SERIAL;

    fn pipe() -> (c_int, c_int) {
        let mut p = [0; 2];
        // SAFETY: room for two descriptors.
        assert_eq!(unsafe { libc::pipe2(p.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
        (p[0], p[1])
    }

    fn close_fd(fd: c_int) {
        // SAFETY: a descriptor the test made.
        unsafe { libc::close(fd) };
    }

    fn put(fd: c_int) {
        // SAFETY: one byte from a static.
        assert_eq!(unsafe { libc::write(fd, b"x".as_ptr().cast(), 1) }, 1);
    }

    fn wait_for(ep: c_int, max: usize, timeout: c_int) -> (c_int, Vec<(u32, u64)>) {
        let mut evs = vec![libc::epoll_event { events: 0, u64: 0 }; max.max(1)];
        // SAFETY: evs holds max entries (at least one).
        let n = unsafe { wait(ep, evs.as_mut_ptr(), max as c_int, timeout) };
        let got = evs.iter().take(n.max(0) as usize).map(|e| (e.events, e.u64)).collect();
        (n, got)
    }

    const IN: u32 = libc::EPOLLIN as u32;
    const OUT: u32 = libc::EPOLLOUT as u32;

    #[test]
    fn ctl_checks_come_in_upstreams_order_with_positive_errnos() {
        let _s = SERIAL.lock();
        let ep = create(libc::O_CLOEXEC).unwrap();
        assert!(is_instance(ep));
        let (r, w) = pipe();
        assert_eq!(ctl(ep, libc::EPOLL_CTL_ADD, -1, Some((IN, 1))), libc::EBADF);
        assert_eq!(ctl(ep, libc::EPOLL_CTL_ADD, ep, Some((IN, 1))), libc::EINVAL);
        assert_eq!(ctl(r, libc::EPOLL_CTL_ADD, w, Some((IN, 1))), libc::EINVAL, "not an instance");
        assert_eq!(ctl(ep, 99, r, Some((IN, 1))), libc::EINVAL);
        assert_eq!(ctl(ep, libc::EPOLL_CTL_MOD, r, Some((IN, 1))), libc::ENOENT);
        assert_eq!(ctl(ep, libc::EPOLL_CTL_DEL, r, None), libc::ENOENT);
        assert_eq!(ctl(ep, libc::EPOLL_CTL_ADD, r, None), libc::EFAULT);
        assert_eq!(ctl(ep, libc::EPOLL_CTL_ADD, r, Some((IN, 1))), 0);
        assert_eq!(ctl(ep, libc::EPOLL_CTL_ADD, r, Some((IN, 1))), libc::EEXIST);
        assert_eq!(ctl(ep, libc::EPOLL_CTL_ADD, MAX_FD + 1, Some((IN, 1))), libc::ENOMEM);
        // Not empty: rclose refuses.
        assert_eq!(close(ep), Some(libc::EBUSY));
        // SAFETY: NULL (refused) or a local array of one.
        unsafe {
            let mut one = libc::epoll_event { events: 0, u64: 0 };
            assert_eq!(wait(ep, core::ptr::null_mut(), 1, 0), libc::EFAULT);
            assert_eq!(wait(ep, &mut one, 0, 0), libc::EINVAL);
            assert_eq!(wait(ep, &mut one, -1, 0), libc::EINVAL);
            assert_eq!(wait(ep, &mut one, 1, 0), 0, "nothing ready");
        }
        assert_eq!(ctl(ep, libc::EPOLL_CTL_DEL, r, None), 0);
        assert_eq!(close(ep), Some(0));
        assert!(!is_instance(ep));
        // A number that is no instance: rclose goes on to other kinds,
        // repoll_wait says EINVAL.
        assert_eq!(close(r), None);
        assert_eq!(wait_for(r, 4, 0).0, libc::EINVAL);
        close_fd(r);
        close_fd(w);
    }

    #[test]
    fn reports_are_level_triggered_in_member_order_with_their_data() {
        let _s = SERIAL.lock();
        let ep = create(0).unwrap();
        let (r1, w1) = pipe();
        let (r2, w2) = pipe();
        let (r3, w3) = pipe();
        // EPOLLET and EPOLLONESHOT are ignored: still level-triggered.
        let et = IN | libc::EPOLLET as u32 | libc::EPOLLONESHOT as u32;
        assert_eq!(ctl(ep, libc::EPOLL_CTL_ADD, r1, Some((IN, 11))), 0);
        assert_eq!(ctl(ep, libc::EPOLL_CTL_ADD, r2, Some((et, 22))), 0);
        assert_eq!(ctl(ep, libc::EPOLL_CTL_ADD, r3, Some((IN, 33))), 0);
        assert_eq!(wait_for(ep, 8, 0), (0, vec![]), "nothing ready, no wait");
        put(w3);
        put(w2);
        assert_eq!(wait_for(ep, 8, 0), (2, vec![(IN, 22), (IN, 33)]));
        assert_eq!(wait_for(ep, 8, 0), (2, vec![(IN, 22), (IN, 33)]), "level-triggered");
        assert_eq!(wait_for(ep, 1, 0), (1, vec![(IN, 22)]), "maxevents caps, first members first");
        // Deleting r1 moves the last member (r3) to its place.
        assert_eq!(ctl(ep, libc::EPOLL_CTL_DEL, r1, None), 0);
        assert_eq!(wait_for(ep, 8, 0), (2, vec![(IN, 33), (IN, 22)]));
        // MOD replaces events and data: the write end of a pipe is always
        // writable, watched for output now under new data.
        assert_eq!(ctl(ep, libc::EPOLL_CTL_MOD, r3, Some((OUT, 44))), 0);
        assert_eq!(wait_for(ep, 8, 0), (1, vec![(IN, 22)]), "a read end is never writable");
        assert_eq!(ctl(ep, libc::EPOLL_CTL_ADD, w1, Some((OUT | libc::EPOLLPRI as u32, 55))), 0);
        assert_eq!(wait_for(ep, 8, 0), (2, vec![(IN, 22), (OUT, 55)]));
        for fd in [r3, r2, w1] {
            assert_eq!(ctl(ep, libc::EPOLL_CTL_DEL, fd, None), 0);
        }
        assert_eq!(close(ep), Some(0));
        for fd in [r1, w1, r2, w2, r3, w3] {
            close_fd(fd);
        }
    }

    #[test]
    fn hangups_are_reported_and_closed_members_come_without_event_bits() {
        let _s = SERIAL.lock();
        let ep = create(0).unwrap();
        let (r, w) = pipe();
        assert_eq!(ctl(ep, libc::EPOLL_CTL_ADD, r, Some((IN, 7))), 0);
        close_fd(w);
        assert_eq!(wait_for(ep, 4, 5000), (1, vec![(libc::EPOLLHUP as u32, 7)]));
        // A member that is not open (the number is never checked): poll
        // says POLLNVAL, which has no epoll bit. (A high number no test
        // opens, rather than a closed one another test thread could reuse.)
        let shut = 60_000;
        assert_eq!(ctl(ep, libc::EPOLL_CTL_ADD, shut, Some((IN, 8))), 0);
        assert_eq!(wait_for(ep, 4, 0), (2, vec![(libc::EPOLLHUP as u32, 7), (0, 8)]));
        for fd in [r, shut] {
            assert_eq!(ctl(ep, libc::EPOLL_CTL_DEL, fd, None), 0);
        }
        close_fd(r);
        assert_eq!(close(ep), Some(0));
    }

    #[test]
    fn a_wait_times_out_from_its_start() {
        let _s = SERIAL.lock();
        let ep = create(0).unwrap();
        let (r, w) = pipe();
        let t = std::time::Instant::now();
        assert_eq!(wait_for(ep, 4, 60), (0, vec![]), "an empty set just sleeps");
        assert!(t.elapsed() >= std::time::Duration::from_millis(60));
        assert_eq!(ctl(ep, libc::EPOLL_CTL_ADD, r, Some((IN, 1))), 0);
        let t = std::time::Instant::now();
        assert_eq!(wait_for(ep, 4, 80), (0, vec![]));
        let e = t.elapsed();
        assert!(e >= std::time::Duration::from_millis(80) && e < std::time::Duration::from_secs(5), "{e:?}");
        assert_eq!(ctl(ep, libc::EPOLL_CTL_DEL, r, None), 0);
        assert_eq!(close(ep), Some(0));
        close_fd(r);
        close_fd(w);
    }

    #[test]
    fn sleeping_waiters_see_data_members_added_later_and_the_close() {
        let _s = SERIAL.lock();
        let ep = create(0).unwrap();
        let (r, w) = pipe();
        // Two threads asleep on an empty set.
        let waiters: Vec<_> = (0..2).map(|_| std::thread::spawn(move || wait_for(ep, 4, 10_000))).collect();
        std::thread::sleep(std::time::Duration::from_millis(100));
        put(w);
        assert_eq!(ctl(ep, libc::EPOLL_CTL_ADD, r, Some((IN, 9))), 0);
        for t in waiters {
            assert_eq!(t.join().unwrap(), (1, vec![(IN, 9)]), "woken by the change, found the new member");
        }
        // A member that becomes ready while a waiter sleeps.
        let (r2, w2) = pipe();
        assert_eq!(ctl(ep, libc::EPOLL_CTL_DEL, r, None), 0);
        assert_eq!(ctl(ep, libc::EPOLL_CTL_ADD, r2, Some((IN, 10))), 0);
        let t = std::thread::spawn(move || wait_for(ep, 4, 10_000));
        std::thread::sleep(std::time::Duration::from_millis(100));
        put(w2);
        assert_eq!(t.join().unwrap(), (1, vec![(IN, 10)]));
        // A close ends a sleeping wait with 0.
        assert_eq!(ctl(ep, libc::EPOLL_CTL_DEL, r2, None), 0);
        let t = std::thread::spawn(move || {
            let s = std::time::Instant::now();
            (wait_for(ep, 4, 10_000), s.elapsed())
        });
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert_eq!(close(ep), Some(0));
        let ((n, got), took) = t.join().unwrap();
        assert_eq!((n, got), (0, vec![]));
        assert!(took < std::time::Duration::from_secs(5), "{took:?}");
        for fd in [r, w, r2, w2] {
            close_fd(fd);
        }
    }

    #[test]
    fn the_instance_number_is_a_pipe_with_the_creation_flags() {
        let _s = SERIAL.lock();
        let ep = create(libc::O_CLOEXEC | libc::O_NONBLOCK).unwrap();
        // SAFETY: F_GETFD / F_GETFL on our descriptor.
        let (fdf, fl) = unsafe { (libc::fcntl(ep, libc::F_GETFD), libc::fcntl(ep, libc::F_GETFL)) };
        assert_ne!(fdf & libc::FD_CLOEXEC, 0);
        assert_ne!(fl & libc::O_NONBLOCK, 0);
        let ep2 = create(0).unwrap();
        // SAFETY: as above.
        let (fdf, fl) = unsafe { (libc::fcntl(ep2, libc::F_GETFD), libc::fcntl(ep2, libc::F_GETFL)) };
        assert_eq!(fdf & libc::FD_CLOEXEC, 0);
        assert_eq!(fl & libc::O_NONBLOCK, 0);
        // Never readable.
        let mut p = libc::pollfd { fd: ep, events: libc::POLLIN, revents: 0 };
        // SAFETY: one local pollfd.
        assert_eq!(unsafe { libc::poll(&mut p, 1, 0) }, 0);
        assert_eq!(close(ep), Some(0));
        assert_eq!(close(ep2), Some(0));
    }

    #[test]
    fn rsockets_are_polled_as_rsockets_and_the_instance_is_no_rsocket() {
        let _s = SERIAL.lock();
        let ep = create(0).unwrap();
        // A datagram rsocket (its UDP socket made without RDMA, no
        // endpoint yet): rpoll finds it neither readable nor writable,
        // where its UDP socket itself would be writable.
        let ds = crate::rsocket::dgram::create(libc::AF_INET).expect("a datagram rsocket");
        let (r, w) = pipe();
        assert_eq!(ctl(ep, libc::EPOLL_CTL_ADD, ds, Some((IN | OUT, 1))), 0);
        assert_eq!(ctl(ep, libc::EPOLL_CTL_ADD, r, Some((IN, 2))), 0);
        assert_eq!(wait_for(ep, 4, 0), (0, vec![]), "not the UDP socket's POLLOUT");
        assert_eq!(wait_for(ep, 4, 30), (0, vec![]), "a sleeping wait times out too");
        put(w);
        assert_eq!(wait_for(ep, 4, 1000), (1, vec![(IN, 2)]));
        // The instance's number is not an rsocket: rpoll sees a pipe that
        // is never ready.
        let mut p = [libc::pollfd { fd: ep, events: libc::POLLIN | libc::POLLOUT, revents: 0 }];
        assert_eq!(poll::rpoll(&mut p, 0), Ok(0));
        for fd in [ds, r] {
            assert_eq!(ctl(ep, libc::EPOLL_CTL_DEL, fd, None), 0);
        }
        assert_eq!(close(ep), Some(0));
        assert!(crate::rsocket::dgram::close(ds));
        close_fd(r);
        close_fd(w);
    }
}
