//! Fork safety. The range tree and ibv_fork_init/ibv_dontfork_range/
//! ibv_dofork_range belong to a later issue; until then this module only
//! records that fork safety was requested through RDMAV_FORK_SAFE /
//! IBV_FORK_SAFE, and nothing here is exported.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Called from library init when RDMAV_FORK_SAFE or IBV_FORK_SAFE is set.
/// Returns 0 on success like upstream's ibv_fork_init().
pub fn fork_init() -> i32 {
    REQUESTED.store(true, Ordering::Relaxed);
    0
}

pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}
