//! Library initialisation (`ucma_init`) and the entry points that begin
//! with it: rdma_create_event_channel, rdma_create_id, rdma_get_cm_event,
//! rdma_get_devices, rdma_getaddrinfo, and the helpers that do the same
//! for rdma_create_ep and rsockets. Nothing below this module initialises the library: the
//! modules it builds on (ucma, devices, id, addr, event) expect it done,
//! which it is whenever an id or a channel exists.
//!
//! `ucma_init`, as upstream: once per process, check the kernel's rdma_cm
//! ABI version (EPERM if unsupported) and read the device list (ENODEV if
//! there is no device); a failed attempt is retried by the next call. On
//! success, probe whether the kernel supports AF_IB addressing by binding a
//! throw-away id to an AF_IB wildcard address.

use crate::abi::cma::*;
use crate::abi::verbs::*;
use crate::devices::CmaDevice;
use crate::id::{create_id2, open_event_channel, qp_type_for, ret_int, Id, Res};
use core::ffi::{c_char, c_int, c_void};
use core::ptr::null_mut;
use core::sync::atomic::{AtomicBool, Ordering};
use parking_lot::Mutex;
use rdma_util::ffi::set_errno;

static READY: AtomicBool = AtomicBool::new(false);
static INIT: Mutex<()> = Mutex::new(());

/// Initialises the library; Err(errno) on failure. Idempotent.
pub(crate) fn ucma_init() -> Result<(), c_int> {
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
    let Ok(id) = create_id2(null_mut(), null_mut(), RDMA_PS_IB, qp_type_for(RDMA_PS_IB)) else {
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

/// `rdma_create_id2` from an entry point: initialises the library first.
pub(crate) fn create_id(
    channel: *mut rdma_event_channel,
    context: *mut c_void,
    ps: rdma_port_space,
    qp_type: ibv_qp_type,
) -> Res<Id> {
    ucma_init()?;
    create_id2(channel, context, ps, qp_type)
}

/// `ucma_max_qpsize` (for rsockets): the device's limit, or, without a
/// device, the smallest of all devices' after initialising the library (0
/// when that fails).
pub(crate) fn max_qpsize(d: Option<*mut CmaDevice>) -> i32 {
    if d.is_none() && ucma_init().is_err() {
        return 0;
    }
    crate::devices::max_qpsize(d)
}

// ---------------------------------------------------------------------------
// Exports
// ---------------------------------------------------------------------------

rdma_util::export! {
    /// Opens a new event channel on the rdma_cm device.
    fn rdma_create_event_channel() -> *mut rdma_event_channel, on_panic = null_mut();
    {
        ucma_init().and_then(|()| open_event_channel()).unwrap_or_else(|e| {
            set_errno(e);
            null_mut()
        })
    }
}

rdma_util::export! {
    /// Creates an id in port space `ps` (QP type from the port space).
    fn rdma_create_id(channel: *mut rdma_event_channel, id: *mut *mut rdma_cm_id,
                      context: *mut c_void, ps: rdma_port_space) -> c_int, on_panic = -1;
    {
        rdma_util::ensure!(!id.is_null(), libc::EINVAL, -1);
        match create_id(channel, context, ps, qp_type_for(ps)) {
            Ok(n) => {
                // SAFETY: id is a valid out-pointer (checked non-null).
                unsafe { *id = n.cm() };
                0
            }
            Err(e) => ret_int(Err(e)),
        }
    }
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
        unsafe { crate::event::EventWait::new(channel) }
    });
    let w = match begin {
        Ok(w) => w,
        Err(e) => return ret_int(Err(e)),
    };
    // SAFETY: w is fresh; this frame holds nothing with a destructor.
    match unsafe { crate::event::wait_event_cancellable(NAME, w) } {
        Ok(ev) => {
            // SAFETY: event is a valid out-pointer (checked non-null).
            unsafe { *event = ev };
            0
        }
        Err(e) => ret_int(Err(e)),
    }
}


rdma_util::export! {
    /// A NULL-terminated array of the contexts of all RDMA devices (opened
    /// by the CM); free it with rdma_free_devices.
    fn rdma_get_devices(num_devices: *mut c_int) -> *mut *mut ibv_context, on_panic = core::ptr::null_mut();
    {
        let devs = match ucma_init() {
            Err(e) => {
                rdma_util::ffi::set_errno(e);
                None
            }
            Ok(()) => {
                crate::devices::get_devices().map_err(rdma_util::ffi::set_errno).ok()
            }
        };
        let out = devs.and_then(|v| {
            // SAFETY: plain allocation; freed by rdma_free_devices with free().
            let arr = unsafe { libc::malloc(core::mem::size_of::<*mut ibv_context>() * (v.len() + 1)) }
                .cast::<*mut ibv_context>();
            if arr.is_null() {
                crate::devices::free_devices(&v);
                return None;
            }
            // SAFETY: arr has room for v.len() + 1 pointers.
            unsafe {
                core::ptr::copy_nonoverlapping(v.as_ptr(), arr, v.len());
                *arr.add(v.len()) = core::ptr::null_mut();
            }
            Some((arr, v.len()))
        });
        if !num_devices.is_null() {
            // SAFETY: non-null out-pointer from the caller.
            unsafe { *num_devices = out.map_or(0, |(_, n)| n as c_int) };
        }
        out.map_or(core::ptr::null_mut(), |(a, _)| a)
    }
}


/// The library initialisation rdma_getaddrinfo starts with (upstream's
/// ucma_init: no RDMA device or no rdma_cm gives -1 with errno ENODEV).
/// Upstream only fails here with -1 and errno set; should the CM core report
/// a positive errno value instead, return it the same way.
fn getaddrinfo_init() -> Result<(), c_int> {
    ucma_init().map_err(|e| {
        if e > 0 {
            set_errno(e);
            -1
        } else {
            e
        }
    })
}

rdma_util::export! {
    /// Resolves `node`/`service` into RDMA addresses and, through ibacm,
    /// routes. Returns 0 and a chain in `*res`, -1 with errno set, or the
    /// getaddrinfo (EAI_*) error code.
    fn rdma_getaddrinfo(node: *const c_char, service: *const c_char,
                        hints: *const rdma_addrinfo, res: *mut *mut rdma_addrinfo)
        -> c_int, on_panic = -1;
    {
        rdma_util::ensure!(!(node.is_null() && service.is_null() && hints.is_null()), libc::EINVAL, -1);
        rdma_util::ensure!(!res.is_null(), libc::EINVAL, -1);
        // SAFETY: the caller passes NULL or valid C strings and hints whose
        // non-NULL pointers cover their lengths (rdma_getaddrinfo's contract).
        let (node, service, hints) = unsafe { crate::addrinfo::c_args(node, service, hints) };
        if let Err(ret) = getaddrinfo_init() {
            return ret;
        }
        // Upstream's first allocations come after its initialisation.
        let Ok(hints) = hints else {
            rdma_util::ffi::set_errno(libc::ENOMEM);
            return -1;
        };
        // SAFETY: res was checked non-NULL and points to writable storage.
        unsafe {
            crate::addrinfo::getaddrinfo_to_c(node, service, hints.as_ref(), &mut crate::acm::ib_resolve, res)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::addrinfo::rdma_freeaddrinfo;
    use crate::addrinfo::tests::{blob, c, sin};
    use rdma_util::ffi::errno;

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

    /// On this machine there is no rdma_cm device and no RDMA device: the
    /// exported entry points fail the way Debian's librdmacm does.
    #[test]
    fn entry_points_without_rdma_fail_like_upstream() {
        if std::path::Path::new("/dev/infiniband/rdma_cm").exists() {
            return;
        }
        // SAFETY: calling our own exports with valid or null arguments.
        unsafe {
            set_errno(0);
            assert!(rdma_create_event_channel().is_null());
            assert_eq!(errno(), libc::ENODEV);
            let mut id: *mut rdma_cm_id = null_mut();
            set_errno(0);
            assert_eq!(rdma_create_id(null_mut(), &mut id, null_mut(), RDMA_PS_TCP), -1);
            assert_eq!(errno(), libc::ENODEV);
            assert!(id.is_null());
            let mut n = 5;
            set_errno(0);
            assert!(rdma_get_devices(&mut n).is_null());
            assert_eq!((n, errno()), (0, libc::ENODEV));
            let mut ev: *mut rdma_cm_event = null_mut();
            set_errno(0);
            assert_eq!(rdma_get_cm_event(null_mut(), &mut ev), -1);
            assert_eq!(errno(), libc::ENODEV);
            set_errno(0);
            assert_eq!(crate::id::rdma_ack_cm_event(null_mut()), -1);
            assert_eq!(errno(), libc::EINVAL);
            set_errno(0);
            assert_eq!(crate::id::rdma_destroy_id(null_mut()), -1);
            assert_eq!(errno(), libc::EINVAL);
        }
    }

    /// Whether this machine can run the CM (the library initialises).
    fn cm_available() -> bool {
        ucma_init().is_ok()
    }

    #[test]
    fn without_rdma_the_exports_fail_with_enodev_like_upstream() {
        if cm_available() {
            eprintln!("skipped: this machine has an RDMA device; the_exports_resolve_and_free covers it");
            return;
        }
        let mut res: *mut rdma_addrinfo = core::ptr::null_mut();
        let node = c("127.0.0.1");
        rdma_util::ffi::set_errno(0);
        // SAFETY: valid string and out pointer; no hints.
        let ret = unsafe { rdma_getaddrinfo(node.as_ptr(), core::ptr::null(), core::ptr::null(), &mut res) };
        assert_eq!((ret, errno()), (-1, libc::ENODEV));
        assert!(res.is_null());
        // Argument errors come first, as upstream checks them before init.
        // SAFETY: all-NULL arguments are rejected before anything is read.
        let ret = unsafe { rdma_getaddrinfo(core::ptr::null(), core::ptr::null(), core::ptr::null(), &mut res) };
        assert_eq!((ret, errno()), (-1, libc::EINVAL));
    }

    #[test]
    fn the_exports_resolve_and_free() {
        if !cm_available() {
            eprintln!("skipped: no RDMA CM on this machine (see without_rdma_...); runs in the VM");
            return;
        }
        let mut res: *mut rdma_addrinfo = core::ptr::null_mut();
        let node = c("127.0.0.1");
        let service = c("7471");
        // SAFETY: valid strings and out pointer; no hints.
        let ret = unsafe { rdma_getaddrinfo(node.as_ptr(), service.as_ptr(), core::ptr::null(), &mut res) };
        assert_eq!(ret, 0);
        assert!(!res.is_null());
        // SAFETY: res is the chain just returned. ibacm (if a host runs one)
        // may only add a leading AF_IB entry; the last entry is the IP result.
        let last = unsafe {
            let mut p = res;
            while !(*p).ai_next.is_null() {
                p = (*p).ai_next;
            }
            &*p
        };
        assert_eq!(last.ai_family, libc::AF_INET);
        assert_eq!(blob(last.ai_dst_addr.cast(), last.ai_dst_len as usize), Some(sin([127, 0, 0, 1], 7471)));
        // SAFETY: res came from rdma_getaddrinfo.
        unsafe { rdma_freeaddrinfo(res) };

        // SAFETY: all-NULL arguments are rejected before anything is read.
        let ret = unsafe { rdma_getaddrinfo(core::ptr::null(), core::ptr::null(), core::ptr::null(), &mut res) };
        assert_eq!((ret, errno()), (-1, libc::EINVAL));
        // SAFETY: a NULL res is rejected.
        let ret = unsafe { rdma_getaddrinfo(node.as_ptr(), core::ptr::null(), core::ptr::null(), core::ptr::null_mut()) };
        assert_eq!((ret, errno()), (-1, libc::EINVAL));
        // SAFETY: a valid call whose resolution fails returns the EAI code.
        let bad = c("no-such-host.invalid");
        let ret = unsafe { rdma_getaddrinfo(bad.as_ptr(), core::ptr::null(), core::ptr::null(), &mut res) };
        assert_eq!(ret, libc::EAI_NONAME);
    }
}
