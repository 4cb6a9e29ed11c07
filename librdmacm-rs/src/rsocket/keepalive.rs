//! Keepalive (SO_KEEPALIVE): a service thread sends each watched connected
//! socket a zero-byte RDMA WRITE carrying the KEEPALIVE control code every
//! `keepalive_time` seconds (TCP_KEEPIDLE, default the kernel's
//! tcp_keepalive_time). The write needs no receive at the peer; a dead
//! peer turns it into an error completion, which fails the socket.

use rdma_util::fallible::Shared;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use super::base::{RS_CONNECTED, RS_OPT_KEEPALIVE};
use super::proto::*;
use super::stream::Rsocket;
use crate::id::Res;

struct Entry {
    rs: Shared<Rsocket>,
    due: Instant,
}

struct Inner {
    list: Vec<Entry>,
    running: bool,
}

static SVC: Mutex<Inner> = Mutex::new(Inner { list: Vec::new(), running: false });
static CHANGED: Condvar = Condvar::new();

/// The kernel's TCP keepalive time (seconds), 7200 if unreadable.
pub(crate) fn default_time() -> u32 {
    let mut buf = [0u8; 32];
    rdma_util::fallible::read_head(b"/proc/sys/net/ipv4/tcp_keepalive_time", &mut buf)
        .and_then(|n| core::str::from_utf8(&buf[..n]).ok()?.trim().parse().ok())
        .unwrap_or(7200)
}

fn send(rs: &Rsocket) {
    let mut c = rs.st.lock();
    if c.ctrl_avail() && c.base.state & RS_CONNECTED != 0 && !c.qp.is_null() {
        c.ctrl_seqno = c.ctrl_seqno.wrapping_add(1);
        let _ = c.post_write(core::ptr::null_mut(), 0, msg_set(RS_OP_CTRL, RS_CTRL_KEEPALIVE), 0, 0, 0);
    }
}

fn run() {
    let mut g = SVC.lock();
    while !g.list.is_empty() {
        let now = Instant::now();
        for e in g.list.iter_mut() {
            if e.due <= now {
                send(&e.rs);
                e.due = now + Duration::from_secs(e.rs.st.lock().keepalive_time as u64);
            }
        }
        let next = g.list.iter().map(|e| e.due).min().unwrap_or(now);
        let wait = next.saturating_duration_since(Instant::now());
        CHANGED.wait_for(&mut g, wait);
    }
    g.running = false;
}

/// Starts keepalives on `rs` (a no-op if already on).
pub(crate) fn add(rs: &Shared<Rsocket>) -> Res<()> {
    let mut g = SVC.lock();
    if g.list.iter().any(|e| Shared::ptr_eq(&e.rs, rs)) {
        return Ok(());
    }
    let secs = rs.st.lock().keepalive_time as u64;
    if !g.running {
        rdma_util::fallible::spawn_detached(c"rsocket-ka", run)?;
        g.running = true;
    }
    rdma_util::fallible::push(&mut g.list, Entry { rs: rs.clone(), due: Instant::now() + Duration::from_secs(secs) })
        .map_err(|_| libc::ENOMEM)?;
    rs.st.lock().base.opts |= RS_OPT_KEEPALIVE;
    CHANGED.notify_all();
    Ok(())
}

/// Restarts `rs`'s interval after a TCP_KEEPIDLE change.
pub(crate) fn modify(rs: &Rsocket) -> Res<()> {
    let mut g = SVC.lock();
    let secs = rs.st.lock().keepalive_time as u64;
    match g.list.iter_mut().find(|e| core::ptr::eq(Shared::as_ptr(&e.rs), rs)) {
        Some(e) => {
            e.due = Instant::now() + Duration::from_secs(secs);
            CHANGED.notify_all();
            Ok(())
        }
        None => Err(libc::EBADF),
    }
}

/// Stops keepalives on `rs`.
pub(crate) fn remove(rs: &Rsocket) {
    let mut g = SVC.lock();
    if let Some(i) = g.list.iter().position(|e| core::ptr::eq(Shared::as_ptr(&e.rs), rs)) {
        g.list.swap_remove(i);
        rs.st.lock().base.opts &= !RS_OPT_KEEPALIVE;
        CHANGED.notify_all();
    }
}
