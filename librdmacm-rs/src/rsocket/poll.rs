//! rpoll and rselect over rsockets and ordinary descriptors.
//!
//! rpoll first checks every entry without sleeping, spinning so for the
//! configured polling_time (µs). Then it sleeps in poll(2) on what stands
//! for each rsocket (its completion channel once connected, its CM channel
//! or accept queue before) plus the caller's other fds, in slices of
//! wake_up_interval ms, and re-checks the rsockets after every wake-up:
//! an event on an rsocket's fd may be only a credit update or a
//! connection step, which rpoll consumes without reporting.
//!
//! The shared wake-up eventfd and the count of sleepers are in
//! [`super::wake`].

use core::ffi::c_int;

use super::base::*;
use super::config;
use super::connection;
use super::dgram;
use super::index;
use super::stream::*;
use super::wake;
use crate::id::Res;

/// The events `rs` has for `events` (processing completions first).
fn poll_rs(rs: &Rsocket, events: i16, nonblock: bool, test: Test) -> i16 {
    loop {
        let mut c = rs.st.lock();
        let state = c.base.state;
        if state & RS_CONNECTED != 0 || state == RS_DISCONNECTED || state & RS_ERROR != 0 {
            // One hold of the state for the poll of the CQ and the answer.
            let _ = rs.process_cq_locked(&mut c, nonblock, test);
            return c.stream_revents(events);
        }
        let accept_fd = c.accept_queue[0];
        drop(c);
        if state == RS_LISTENING {
            let mut p = libc::pollfd { fd: accept_fd, events, revents: 0 };
            // SAFETY: one local pollfd (syscall(): not a cancellation point).
            unsafe { libc::syscall(libc::SYS_poll, &mut p as *mut libc::pollfd, 1 as libc::nfds_t, 0) };
            return p.revents;
        }
        if state & RS_OPENING != 0 {
            match connection::do_connect(rs) {
                Err(libc::EINPROGRESS) => rdma_util::ffi::set_errno(0),
                _ => continue,
            }
        }
        if rs.st.lock().base.state == RS_CONNECT_ERROR {
            let mut rev = libc::POLLERR;
            if events & libc::POLLOUT != 0 {
                rev |= libc::POLLOUT;
            }
            if events & libc::POLLIN != 0 {
                rev |= libc::POLLIN;
            }
            return rev;
        }
        return 0;
    }
}

fn check(fds: &mut [libc::pollfd]) -> c_int {
    let mut cnt = 0;
    for f in fds.iter_mut() {
        if let Some(d) = dgram::lookup(f.fd) {
            // Datagram rsockets: see dgram/.
            f.revents = d.poll_check(f.events);
            cnt += c_int::from(f.revents != 0);
            continue;
        }
        match index::lookup(f.fd) {
            Some(rs) => f.revents = poll_rs(&rs, f.events, true, t_poll_all),
            None => {
                // SAFETY: one entry of the caller's array (syscall(): not
                // a cancellation point).
                unsafe { libc::syscall(libc::SYS_poll, f as *mut libc::pollfd, 1 as libc::nfds_t, 0) };
            }
        }
        if f.revents != 0 {
            cnt += 1;
        }
    }
    cnt
}

/// Fills `rfds` with what to sleep on; true if some rsocket is ready.
fn arm(rfds: &mut [libc::pollfd], fds: &mut [libc::pollfd]) -> bool {
    for (r, f) in rfds.iter_mut().zip(fds.iter_mut()) {
        if let Some(d) = dgram::lookup(f.fd) {
            // Datagram rsockets: see dgram/.
            let (rev, fd) = d.poll_arm(f.events);
            f.revents = rev;
            if rev != 0 {
                return true;
            }
            *r = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
            continue;
        }
        match index::lookup(f.fd) {
            Some(rs) => {
                f.revents = poll_rs(&rs, f.events, false, t_cq_armed);
                if f.revents != 0 {
                    return true;
                }
                let c = rs.st.lock();
                r.fd = if c.base.state >= RS_CONNECTED {
                    rs.cq_fd()
                } else if c.base.state == RS_LISTENING {
                    c.accept_queue[0]
                } else {
                    rs.cm_fd()
                };
                r.events = libc::POLLIN;
            }
            None => {
                r.fd = f.fd;
                r.events = f.events;
            }
        }
        r.revents = 0;
    }
    false
}

fn events(rfds: &[libc::pollfd], fds: &mut [libc::pollfd]) -> c_int {
    let mut cnt = 0;
    for (r, f) in rfds.iter().zip(fds.iter_mut()) {
        if let Some(d) = dgram::lookup(f.fd) {
            // Datagram rsockets: see dgram/.
            f.revents = d.poll_event(r.revents != 0, f.events);
            cnt += c_int::from(f.revents != 0);
            continue;
        }
        match index::lookup(f.fd) {
            Some(rs) => {
                if r.revents != 0 {
                    let _w = rs.cq_wait.lock();
                    let _ = rs.get_cq_event(true);
                }
                f.revents = poll_rs(&rs, f.events, true, t_poll_all);
            }
            None => f.revents = r.revents,
        }
        if f.revents != 0 {
            cnt += 1;
        }
    }
    cnt
}

/// A sleeping rpoll between its steps (see [`rpoll_begin`]): its poll(2)
/// set (the rsockets' descriptors, the caller's other fds, the wake-up
/// eventfd last), held as a raw allocation so that the frame that sleeps
/// holds nothing with a destructor, and when it started.
#[derive(Clone, Copy)]
pub(crate) struct PollSleep {
    rfds: *mut libc::pollfd,
    /// Entries of the caller's set (rfds has one more).
    nfds: usize,
    sig: c_int,
    start: u64,
    timeout: c_int,
}

impl PollSleep {
    /// The poll(2) set to sleep on and its length.
    pub(crate) fn set(&self) -> (*mut libc::pollfd, libc::nfds_t) {
        (self.rfds, (self.nfds + 1) as libc::nfds_t)
    }

    fn rfds(&mut self) -> &mut [libc::pollfd] {
        // SAFETY: allocated by rpoll_begin with nfds + 1 entries, owned
        // by this sleep until free().
        unsafe { core::slice::from_raw_parts_mut(self.rfds, self.nfds + 1) }
    }

    fn free(self) {
        // SAFETY: from Box::into_raw in rpoll_begin, freed once.
        drop(unsafe { Box::from_raw(core::ptr::slice_from_raw_parts_mut(self.rfds, self.nfds + 1)) });
    }
}

/// Where an rpoll stands.
#[derive(Clone, Copy)]
pub(crate) enum PollStep {
    /// Finished with this result.
    Done(Res<c_int>),
    /// To sleep in poll(2) on the set for this many ms, then
    /// [`rpoll_after`].
    Sleep(PollSleep, c_int),
}

/// `rpoll` up to its first sleep: the checks without sleeping (spinning
/// for polling_time µs), then the poll(2) set.
pub(crate) fn rpoll_begin(fds: &mut [libc::pollfd], timeout: c_int) -> PollStep {
    let cfg = config::get();
    let mut start = 0u64;
    loop {
        let n = check(fds);
        if n != 0 || timeout == 0 {
            return PollStep::Done(Ok(n));
        }
        let now = time_us();
        if start == 0 {
            start = now;
        }
        if now - start > cfg.polling_time as u64 {
            break;
        }
    }
    let sig = match wake::signal_fd() {
        Ok(fd) => fd,
        Err(e) => return PollStep::Done(Err(e)),
    };
    let nfds = fds.len();
    let Ok(mut rfds) = rdma_util::fallible::boxed_slice_filled(libc::pollfd { fd: -1, events: 0, revents: 0 }, nfds + 1) else {
        return PollStep::Done(Err(libc::ENOMEM));
    };
    rfds[nfds] = libc::pollfd { fd: sig, events: libc::POLLIN, revents: 0 };
    let rfds = Box::into_raw(rfds).cast::<libc::pollfd>();
    rpoll_next(PollSleep { rfds, nfds, sig, start, timeout }, fds)
}

/// The next round: done when an rsocket is ready or the time is up,
/// otherwise the next sleep.
fn rpoll_next(mut w: PollSleep, fds: &mut [libc::pollfd]) -> PollStep {
    let cfg = config::get();
    let nfds = w.nfds;
    loop {
        if arm(&mut w.rfds()[..nfds], fds) {
            // As upstream: the one rsocket found ready (the others were
            // all idle at the last check).
            w.free();
            return PollStep::Done(Ok(1));
        }
        if !wake::enter() {
            continue;
        }
        let sleep = if w.timeout >= 0 {
            let left = w.timeout as i64 - ((time_us() - w.start) / 1000) as i64;
            if left <= 0 {
                wake::leave(w.sig);
                w.free();
                return PollStep::Done(Ok(0));
            }
            (left as c_int).min(cfg.wake_up_interval)
        } else {
            cfg.wake_up_interval
        };
        wake::mark_sleeping(true);
        return PollStep::Sleep(w, sleep);
    }
}

/// After the sleep of [`PollStep::Sleep`]: `r` and `err` are poll(2)'s
/// return value and errno.
pub(crate) fn rpoll_after(mut w: PollSleep, fds: &mut [libc::pollfd], r: c_int, err: c_int) -> PollStep {
    wake::mark_sleeping(false);
    if r < 0 {
        wake::exit(w.sig);
        w.free();
        return PollStep::Done(Err(err));
    }
    let nfds = w.nfds;
    let n = events(&w.rfds()[..nfds], fds);
    wake::stop(w.sig);
    if n != 0 {
        w.free();
        return PollStep::Done(Ok(n));
    }
    rpoll_next(w, fds)
}

/// Runs an rpoll from `step` to its result: `sleep` makes each poll(2) on
/// the sleep's set (its arguments: set, length, ms), `after` takes the
/// sleep back with poll's return value and errno (rpoll_after on the
/// caller's set). The exports pass a cancellable poll and a guarded
/// `after` (api.rs); inlined, so that nothing here stands between the
/// export's frame and the poll.
#[inline(always)]
pub(crate) fn drive(
    mut step: PollStep,
    mut sleep: impl FnMut(*mut libc::pollfd, libc::nfds_t, c_int) -> c_int,
    mut after: impl FnMut(PollSleep, c_int, c_int) -> PollStep,
) -> Res<c_int> {
    loop {
        match step {
            PollStep::Done(r) => return r,
            PollStep::Sleep(w, ms) => {
                let (set, n) = w.set();
                let r = sleep(set, n, ms);
                let e = rdma_util::ffi::errno();
                step = after(w, r, e);
            }
        }
    }
}

/// `rpoll` sleeping in a poll(2) that is not a cancellation point: the
/// same steps as the export, for waits inside the library (`repoll`) and
/// the unit tests.
pub(crate) fn rpoll(fds: &mut [libc::pollfd], timeout: c_int) -> Res<c_int> {
    let step = rpoll_begin(fds, timeout);
    drive(
        step,
        // SAFETY: the sleep's own set of n entries.
        |set, n, ms| unsafe { libc::syscall(libc::SYS_poll, set, n, ms) } as c_int,
        |w, r, e| rpoll_after(w, fds, r, e),
    )
}

/// rselect's poll set, from the caller's fd sets: a raw allocation (see
/// [`PollSleep`]), and rpoll's timeout.
#[derive(Clone, Copy)]
pub(crate) struct SelectSet {
    fds: *mut libc::pollfd,
    len: usize,
    /// rpoll's timeout (ms, -1 for none).
    pub(crate) timeout: c_int,
}

impl SelectSet {
    /// The entries.
    ///
    /// # Safety
    /// Not after [`rselect_finish`].
    pub(crate) unsafe fn fds<'a>(self) -> &'a mut [libc::pollfd] {
        // SAFETY: allocated by rselect_begin with len entries (the
        // contract: still owned).
        unsafe { core::slice::from_raw_parts_mut(self.fds, self.len) }
    }
}

/// `rselect`'s conversion of the fd sets into an rpoll set.
///
/// # Safety
/// The fd_set pointers are null or valid; `nfds` <= FD_SETSIZE.
pub(crate) unsafe fn rselect_begin(
    nfds: c_int,
    readfds: *mut libc::fd_set,
    writefds: *mut libc::fd_set,
    exceptfds: *mut libc::fd_set,
    timeout: *const libc::timeval,
) -> Res<SelectSet> {
    let mut fds: Vec<libc::pollfd> = rdma_util::fallible::vec_with_capacity(nfds.clamp(0, libc::FD_SETSIZE as c_int) as usize)
        .map_err(|_| libc::ENOMEM)?;
    for fd in 0..nfds.clamp(0, libc::FD_SETSIZE as c_int) {
        let mut p = libc::pollfd { fd: 0, events: 0, revents: 0 };
        // SAFETY: valid sets per the contract; fd < FD_SETSIZE.
        unsafe {
            if !readfds.is_null() && libc::FD_ISSET(fd, readfds) {
                p.fd = fd;
                p.events = libc::POLLIN;
            }
            if !writefds.is_null() && libc::FD_ISSET(fd, writefds) {
                p.fd = fd;
                p.events |= libc::POLLOUT;
            }
            if !exceptfds.is_null() && libc::FD_ISSET(fd, exceptfds) {
                p.fd = fd;
            }
        }
        // As upstream: descriptor 0 is never selected.
        if p.fd != 0 {
            fds.push(p);
        }
    }
    let to = if timeout.is_null() {
        -1
    } else {
        // SAFETY: non-null timeval from the caller.
        let t = unsafe { &*timeout };
        (t.tv_sec * 1000 + t.tv_usec / 1000) as c_int
    };
    let len = fds.len();
    // The set's exact size, copied once (no reallocation that could fail).
    let mut set = rdma_util::fallible::boxed_slice_filled(libc::pollfd { fd: 0, events: 0, revents: 0 }, len).map_err(|_| libc::ENOMEM)?;
    set.copy_from_slice(&fds);
    Ok(SelectSet { fds: Box::into_raw(set).cast(), len, timeout: to })
}

/// `rselect`'s answer from rpoll's result `r`: the fd sets rewritten, the
/// count of bits set; frees the set.
///
/// # Safety
/// As [`rselect_begin`], with the same sets; `set` is not used afterwards.
pub(crate) unsafe fn rselect_finish(
    set: SelectSet,
    r: Res<c_int>,
    readfds: *mut libc::fd_set,
    writefds: *mut libc::fd_set,
    exceptfds: *mut libc::fd_set,
) -> Res<c_int> {
    // SAFETY: from Box::into_raw in rselect_begin, freed once (here).
    let fds = unsafe { Box::from_raw(core::ptr::slice_from_raw_parts_mut(set.fds, set.len)) };
    // SAFETY: valid sets per the contract.
    unsafe {
        for s in [readfds, writefds, exceptfds] {
            if !s.is_null() {
                libc::FD_ZERO(s);
            }
        }
    }
    let n = r?;
    if n <= 0 {
        return Ok(n);
    }
    let mut cnt = 0;
    for p in fds.iter() {
        // SAFETY: valid sets per the contract; fds come from the sets.
        unsafe {
            if !readfds.is_null() && p.revents & (libc::POLLIN | libc::POLLHUP) != 0 {
                libc::FD_SET(p.fd, readfds);
                cnt += 1;
            }
            if !writefds.is_null() && p.revents & libc::POLLOUT != 0 {
                libc::FD_SET(p.fd, writefds);
                cnt += 1;
            }
            if !exceptfds.is_null() && p.revents & !(libc::POLLIN | libc::POLLOUT) != 0 {
                libc::FD_SET(p.fd, exceptfds);
                cnt += 1;
            }
        }
    }
    Ok(cnt)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use parking_lot::Mutex;

    /// rpoll's gate is process-wide: tests that call rpoll, or check the
    /// gate's count, run one at a time (repoll's tests too).
    pub(crate) static SERIAL: Mutex<()> = Mutex::new(());

    #[test]
    fn ordinary_fds_report_like_poll() {
        let _s = SERIAL.lock();
        let mut p = [0; 2];
        // SAFETY: a two-int array for pipe(2).
        assert_eq!(unsafe { libc::pipe(p.as_mut_ptr()) }, 0);
        let mut fds = [libc::pollfd { fd: p[0], events: libc::POLLIN, revents: 0 }];
        assert_eq!(rpoll(&mut fds, 20), Ok(0), "nothing to read: timeout");
        // SAFETY: writing one byte from a local.
        assert_eq!(unsafe { libc::write(p[1], b"x".as_ptr().cast(), 1) }, 1);
        assert_eq!(rpoll(&mut fds, -1), Ok(1));
        assert_eq!(fds[0].revents, libc::POLLIN);
        // SAFETY: closing our own pipe.
        unsafe {
            libc::close(p[0]);
            libc::close(p[1]);
        }
        assert_eq!(rpoll(&mut fds, 0), Ok(1));
        assert_eq!(fds[0].revents, libc::POLLNVAL);
    }

    #[test]
    fn a_sleeping_rpoll_wakes_for_a_late_event() {
        let _s = SERIAL.lock();
        let mut p = [0; 2];
        // SAFETY: a two-int array for pipe(2).
        assert_eq!(unsafe { libc::pipe(p.as_mut_ptr()) }, 0);
        let w = p[1];
        let t = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            // SAFETY: writing one byte from a local.
            unsafe { libc::write(w, b"x".as_ptr().cast(), 1) };
        });
        let mut fds = [libc::pollfd { fd: p[0], events: libc::POLLIN, revents: 0 }];
        assert_eq!(rpoll(&mut fds, -1), Ok(1));
        assert_eq!(fds[0].revents, libc::POLLIN);
        t.join().unwrap();
        assert_eq!(wake::sleepers(), 0, "the gate is left balanced");
        // SAFETY: closing our own pipe.
        unsafe {
            libc::close(p[0]);
            libc::close(p[1]);
        }
    }
}
