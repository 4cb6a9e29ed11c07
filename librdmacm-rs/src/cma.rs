//! Library initialisation (`ucma_init`), which the entry points other
//! parts of librdmacm (rdma_getaddrinfo, rsockets) use first.
//!
//! `ucma_init`, as upstream: once per process, check the kernel's rdma_cm
//! ABI version (EPERM if unsupported) and read the device list (ENODEV if
//! there is no device); a failed attempt is retried by the next call. On
//! success, probe whether the kernel supports AF_IB addressing by binding a
//! throw-away id to an AF_IB wildcard address.

use crate::abi::cma::*;
use core::ffi::c_int;
use core::sync::atomic::{AtomicBool, Ordering};
use parking_lot::Mutex;

static READY: AtomicBool = AtomicBool::new(false);
static INIT: Mutex<()> = Mutex::new(());

/// Initialises the library; Err(errno) on failure. Idempotent.
pub fn ucma_init() -> Result<(), c_int> {
    // The AF_IB probe below calls back into here: the flag is set before it.
    if READY.load(Ordering::Acquire) {
        return Ok(());
    }
    let _g = INIT.lock();
    if READY.load(Ordering::Acquire) {
        return Ok(());
    }
    if !crate::ucma::check_abi_version() {
        return Err(libc::EPERM);
    }
    crate::devices::DEVICES.lock().0.sync()?;
    READY.store(true, Ordering::Release);
    probe_af_ib();
    Ok(())
}

/// Binds a synchronous RDMA_PS_IB id to the AF_IB "any" address with the
/// TCP port-space service id; success means AF_IB is supported.
fn probe_af_ib() {
    let Ok(id) = crate::id::create_id2(
        core::ptr::null_mut(),
        core::ptr::null_mut(),
        RDMA_PS_IB,
        crate::id::qp_type_for(RDMA_PS_IB),
    ) else {
        return;
    };
    let mut sib: sockaddr_ib = rdma_util::mem::zeroed();
    sib.sib_family = AF_IB as u16;
    sib.sib_sid = RDMA_IB_IP_PS_TCP.to_be();
    sib.sib_sid_mask = RDMA_IB_IP_PS_MASK.to_be();
    crate::ucma::set_af_ib_support(true);
    // SAFETY: sib is a complete sockaddr_ib.
    let ok = unsafe { crate::addr::bind_addr(id, (&sib as *const sockaddr_ib).cast()) }.is_ok();
    crate::ucma::set_af_ib_support(ok);
    let _ = crate::id::destroy_id(id);
}

/// Waits for (or, on a non-blocking channel, fetches) the next event.
///
/// Not written with `export!`: its wait is a cancellation point, as
/// upstream's, so it runs outside the guarded parts (see
/// `ffi::cancellable`), and the function may unwind (`C-unwind`).
///
/// # Safety
/// As rdma_get_cm_event(3): `channel` is a live event channel.
#[no_mangle]
pub unsafe extern "C-unwind" fn rdma_get_cm_event(channel: *mut rdma_event_channel, event: *mut *mut rdma_cm_event) -> c_int {
    const NAME: &str = "rdma_get_cm_event";
    let begin = rdma_util::ffi::guard(crate::LIB_NAME, NAME, Err(libc::EIO), || {
        ucma_init()?;
        if event.is_null() || channel.is_null() {
            return Err(libc::EINVAL);
        }
        // SAFETY: checked non-NULL; the caller's live channel.
        Ok(unsafe { crate::event::EventWait::new(channel) })
    });
    let w = match begin {
        Ok(w) => w,
        Err(e) => return crate::id::ret_int(Err(e)),
    };
    // SAFETY: w is fresh; this frame holds nothing with a destructor.
    match unsafe { crate::event::wait_event_cancellable(NAME, w) } {
        Ok(ev) => {
            // SAFETY: event is a valid out-pointer (checked non-null).
            unsafe { *event = ev };
            0
        }
        Err(e) => crate::id::ret_int(Err(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This machine has no RDMA device (and no rdma_cm): initialisation
    /// fails the way upstream's does there, and keeps failing.
    #[test]
    fn init_without_devices_is_enodev_and_retried() {
        if std::path::Path::new("/dev/infiniband/rdma_cm").exists() {
            return;
        }
        assert_eq!(ucma_init(), Err(libc::ENODEV));
        assert_eq!(ucma_init(), Err(libc::ENODEV));
        assert!(!crate::ucma::af_ib_support());
    }
}
