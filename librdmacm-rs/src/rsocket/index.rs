//! The rsocket table: descriptor number -> rsocket.
//!
//! A stream rsocket is known by the fd of its CM id's event channel (a
//! datagram one by its UDP socket), as upstream; those fds are the
//! process's own, so two live rsockets never share a number. Entries are
//! `Arc`s: a call that looked an rsocket up keeps it alive even if another
//! thread closes it meanwhile (upstream would use freed memory there).

use std::sync::Arc;

use parking_lot::RwLock;

use super::stream::Rsocket;

static TABLE: RwLock<Vec<Option<Arc<Rsocket>>>> = RwLock::new(Vec::new());

/// Registers `rs` under `fd`; false if `fd` is negative.
pub fn insert(fd: i32, rs: Arc<Rsocket>) -> bool {
    let Ok(i) = usize::try_from(fd) else { return false };
    let mut t = TABLE.write();
    if t.len() <= i {
        t.resize(i + 1, None);
    }
    t[i] = Some(rs);
    true
}

/// Unregisters `fd`, returning what was there.
pub fn remove(fd: i32) -> Option<Arc<Rsocket>> {
    let i = usize::try_from(fd).ok()?;
    TABLE.write().get_mut(i).and_then(Option::take)
}

/// The rsocket registered under `fd`.
pub fn lookup(fd: i32) -> Option<Arc<Rsocket>> {
    let i = usize::try_from(fd).ok()?;
    TABLE.read().get(i).and_then(Clone::clone)
}

/// Whether `fd` is an rsocket (cheaper than [`lookup`]).
pub fn is_rsocket(fd: i32) -> bool {
    usize::try_from(fd).is_ok_and(|i| TABLE.read().get(i).is_some_and(Option::is_some))
}
