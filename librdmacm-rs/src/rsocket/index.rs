//! The rsocket table: descriptor number -> rsocket.
//!
//! A stream rsocket is known by the fd of its CM id's event channel (a
//! datagram one by its UDP socket, in the datagram table), as upstream;
//! those fds are the process's own, so two live rsockets never share a
//! number. Entries are `Arc`s: a call that looked an rsocket up keeps it
//! alive even if another thread closes it meanwhile (upstream would use
//! freed memory there). The table type is rdma-util's; this static is the
//! library's one instance for stream rsockets.

use rdma_util::fallible::Shared;

use rdma_util::table::FdTable;

use super::stream::Rsocket;

static TABLE: FdTable<Shared<Rsocket>> = FdTable::new();

/// Registers `rs` under `fd`; ENOMEM (and `rs` dropped, which destroys
/// its id) when the table cannot grow. `fd`, an open descriptor, is never
/// negative.
pub(crate) fn insert(fd: i32, rs: Shared<Rsocket>) -> Result<(), i32> {
    TABLE.insert(fd, rs).map_err(|_| libc::ENOMEM)
}

/// Unregisters `fd`, returning what was there.
pub(crate) fn remove(fd: i32) -> Option<Shared<Rsocket>> {
    TABLE.remove(fd)
}

/// The rsocket registered under `fd` (always under the table's read lock).
pub(crate) fn lookup(fd: i32) -> Option<Shared<Rsocket>> {
    TABLE.get(fd)
}
