//! Library initialisation, done once on the first ibv_get_device_list():
//! fork-safety request, disassociate-destroy policy, sysfs root, the memlock
//! warning and the provider log settings.

use std::ffi::c_int;

use crate::log::PFX;
use crate::util::{check_env, warning};

fn check_memlock_limit() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        return;
    }
    // SAFETY: rlim is a valid out-buffer.
    let mut rlim: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::getrlimit(libc::RLIMIT_MEMLOCK, &mut rlim) } != 0 {
        warning!("{PFX}Warning: getrlimit(RLIMIT_MEMLOCK) failed.");
        return;
    }
    if rlim.rlim_cur <= 32768 {
        warning!(
            "{PFX}Warning: RLIMIT_MEMLOCK is {} bytes.\n    This will severely limit memory registrations.\n",
            rlim.rlim_cur
        );
    }
}

/// Upstream's ibverbs_init(). Returns an errno on failure.
pub(crate) fn library_init() -> Result<(), c_int> {
    if (check_env(c"RDMAV_FORK_SAFE") || check_env(c"IBV_FORK_SAFE")) && crate::fork::fork_init() != 0 {
        warning!("{PFX}Warning: fork()-safety requested but init failed\n");
    }
    let allow = check_env(c"RDMAV_ALLOW_DISASSOC_DESTROY") || check_env(c"MLX4_DEVICE_FATAL_CLEANUP");
    crate::cmd::set_allow_disassociate_destroy(allow);
    let _ = crate::sysfs::sysfs_path();
    check_memlock_limit();
    crate::log::init_from_env();
    Ok(())
}
