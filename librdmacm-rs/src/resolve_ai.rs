//! rdma_resolve_addrinfo / rdma_query_addrinfo (RDMACM_1.4, rdma-core 65):
//! address information resolved on behalf of an id, its outcome delivered
//! as an event on the id's channel, and the result taken off the id.
//!
//! Two kinds of resolution:
//! - a host name (the default, or RAI_DNS in the hints): rdma_getaddrinfo
//!   resolves it at once and its chain is kept on the id; the library then
//!   queues an INTERNAL event on the id's own channel (WRITE_CM_EVENT),
//!   which rdma_get_cm_event hands out as ADDRINFO_RESOLVED;
//! - an IB service (RAI_SA, a service id or name, no node): the kernel asks
//!   the subnet administrator (RESOLVE_IB_SERVICE) and reports
//!   ADDRINFO_RESOLVED, on which `event` fetches the records.
//!
//! A synchronous id (one without a channel) waits for that event inside
//! the call; that wait is no cancellation point here (upstream's is: its
//! rdma_get_cm_event). One resolution at a time per id (EBUSY), until
//! rdma_query_addrinfo takes the result or an ADDRINFO_ERROR ends it.
//!
//! Return values are upstream's, whose convention here is unusual: an
//! inner failure that already returned -1 is stored as the errno itself,
//! so most failures give -1 with errno -1 (a kernel without WRITE_CM_EVENT
//! or RESOLVE_IB_SERVICE, such as Linux 6.1, makes every resolution fail
//! so); a failed rdma_getaddrinfo gives its own return value as errno (an
//! EAI_* code, or -1); RAI_SA with RAI_DNS, or with a node, gives EOPNOTSUPP.

use crate::abi::cma::*;
use crate::abi::ucma::*;
use crate::event::{complete, write_cm_event};
use crate::id::{ret_int, Id, Res};
use core::ffi::{c_char, c_int, CStr};
use core::ptr::null_mut;
use rdma_util::ffi::{errno, set_errno};

/// Fills in the service to resolve: a number (strtoull, any base, all of
/// the string) is a service id, anything else a name, cut to 63 bytes.
fn set_service(service: &CStr, ibs: &mut rdma_ucm_ib_service) {
    let mut end: *mut c_char = null_mut();
    set_errno(0);
    // SAFETY: a NUL-terminated string and a local end pointer.
    let v = unsafe { libc::strtoull(service.as_ptr(), &mut end, 0) };
    let bad = errno() != 0 || core::ptr::eq(end, service.as_ptr()) || {
        // SAFETY: strtoull leaves end inside the string (at most its NUL).
        unsafe { *end != 0 }
    };
    if bad {
        ibs.service_id = 0;
        ibs.flags |= RDMA_USER_CM_IB_SERVICE_FLAG_NAME;
        let b = service.to_bytes();
        let n = b.len().min(RDMA_USER_CM_IB_SERVICE_NAME_SIZE - 1);
        ibs.service_name[..n].copy_from_slice(&b[..n]);
    } else {
        ibs.service_id = v;
        ibs.flags |= RDMA_USER_CM_IB_SERVICE_FLAG_ID;
    }
}

/// 0, or -1 with errno set (upstream's convention for the inner steps).
fn minus_one(r: Res<()>) -> c_int {
    ret_int(r)
}

/// RESOLVE_IB_SERVICE, then the wait of a synchronous id.
fn resolve_sa(id: Id, service: Option<&CStr>) -> c_int {
    let Some(service) = service else { return minus_one(Err(libc::EINVAL)) };
    let mut body: rdma_ucm_resolve_ib_service = rdma_util::mem::zeroed();
    body.id = id.handle();
    set_service(service, &mut body.ibs);
    if let Err(e) = crate::ucma::write_cmd(id.fd(), RDMA_USER_CM_CMD_RESOLVE_IB_SERVICE, body) {
        return minus_one(Err(e));
    }
    minus_one(complete(id))
}

/// A host-name resolution: the chain `getaddrinfo` makes (rdma_getaddrinfo,
/// returning its value) goes on the id, and an INTERNAL event announcing it
/// on the id's channel; then the wait of a synchronous id.
fn resolve_dns(id: Id, getaddrinfo: impl FnOnce(&mut *mut rdma_addrinfo) -> c_int) -> c_int {
    let mut rai: *mut rdma_addrinfo = null_mut();
    let ret = getaddrinfo(&mut rai);
    if ret != 0 {
        return ret;
    }
    id.ev().0.lock().resolved_ai = rai;
    if let Err(e) = write_cm_event(id, RDMA_CM_EVENT_INTERNAL, 0, u64::from(RDMA_CM_EVENT_ADDRINFO_RESOLVED)) {
        let rai = core::mem::replace(&mut id.ev().0.lock().resolved_ai, null_mut());
        // SAFETY: the chain getaddrinfo just made, taken back off the id.
        unsafe { crate::addrinfo::free_chain(rai) };
        return minus_one(Err(e));
    }
    minus_one(complete(id))
}

/// Picks the kind of resolution from the hints. Returns 0, -1 (errno set),
/// rdma_getaddrinfo's own failure value, or a positive errno.
///
/// # Safety
/// As rdma_getaddrinfo's arguments.
unsafe fn resolve(id: Id, node: *const c_char, service: *const c_char, hints: *const rdma_addrinfo) -> c_int {
    // SAFETY: NULL or the caller's hints.
    if let Some(h) = unsafe { hints.as_ref() } {
        if h.ai_flags & RAI_SA != 0 {
            if h.ai_flags & RAI_DNS != 0 || !node.is_null() {
                return libc::EOPNOTSUPP;
            }
            // SAFETY: NULL or a NUL-terminated string (the contract).
            return resolve_sa(id, (!service.is_null()).then(|| unsafe { CStr::from_ptr(service) }));
        }
    }
    resolve_dns(id, |rai| {
        // SAFETY: the caller's arguments (the contract); rai is a local.
        unsafe { crate::cma::rdma_getaddrinfo(node, service, hints, rai) }
    })
}

/// `rdma_resolve_addrinfo` on a live id: one resolution at a time, whose
/// start (`resolve`, returning 0, -1 with errno, or the errno to set)
/// failing ends it.
fn resolve_addrinfo_with(id: Id, resolve: impl FnOnce() -> c_int) -> c_int {
    {
        let mut g = id.ev().0.lock();
        if g.resolving_ai {
            return minus_one(Err(libc::EBUSY));
        }
        g.resolving_ai = true;
    }
    let ret = resolve();
    if ret != 0 {
        id.ev().0.lock().resolving_ai = false;
        set_errno(ret);
        return -1;
    }
    0
}

/// `rdma_query_addrinfo`: hands the resolved chain over (the caller frees
/// it with rdma_freeaddrinfo) and ends the resolution; ENOENT while there
/// is none (nothing resolving, or its event not read yet).
pub(crate) fn query_addrinfo(id: Id) -> Res<*mut rdma_addrinfo> {
    let mut g = id.ev().0.lock();
    if !g.resolving_ai || g.resolved_ai.is_null() {
        return Err(libc::ENOENT);
    }
    g.resolving_ai = false;
    Ok(core::mem::replace(&mut g.resolved_ai, null_mut()))
}

rdma_util::export! {
    /// Resolves `node` / `service` for `id` (see the module documentation);
    /// the outcome comes as ADDRINFO_RESOLVED or ADDRINFO_ERROR on the id's
    /// channel.
    fn rdma_resolve_addrinfo(id: *mut rdma_cm_id, node: *const c_char, service: *const c_char,
                             hints: *const rdma_addrinfo) -> c_int, on_panic = -1;
    {
        rdma_util::ensure!(!id.is_null(), libc::EINVAL, -1);
        let id = Id::from_cm(id);
        resolve_addrinfo_with(id, || {
            // SAFETY: the caller's arguments, as rdma_getaddrinfo takes them.
            unsafe { resolve(id, node, service, hints) }
        })
    }
}

rdma_util::export! {
    /// Takes the result of the id's finished resolution.
    fn rdma_query_addrinfo(id: *mut rdma_cm_id, info: *mut *mut rdma_addrinfo) -> c_int, on_panic = -1;
    {
        rdma_util::ensure!(!id.is_null() && !info.is_null(), libc::EINVAL, -1);
        match query_addrinfo(Id::from_cm(id)) {
            Ok(rai) => {
                // SAFETY: checked non-NULL; the caller's out pointer.
                unsafe { *info = rai };
                0
            }
            Err(e) => ret_int(Err(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::verbs::IBV_QPT_RC;
    use crate::event::tests::{channel_pipe, close_pipe, u32_at, u64_at, written};
    use crate::id::tests::fake_id;
    use crate::id::free_id;
    use std::ffi::CString;

    fn errno_is(e: c_int) {
        assert_eq!(errno(), e);
    }

    fn resolving(id: Id) -> bool {
        id.ev().0.lock().resolving_ai
    }

    fn hints(flags: c_int) -> rdma_addrinfo {
        // SAFETY: all-zero is a valid rdma_addrinfo (integers and NULLs).
        let mut h: rdma_addrinfo = unsafe { core::mem::zeroed() };
        h.ai_flags = flags;
        h
    }

    fn one_result() -> *mut rdma_addrinfo {
        crate::addrinfo::chain_to_c(&[crate::addrinfo::AddrInfo { flags: 3, family: libc::AF_INET, ..Default::default() }]).unwrap()
    }

    #[test]
    fn a_host_name_result_is_announced_on_the_channel_and_handed_over_once() {
        let (r, mut ch) = channel_pipe();
        let id = fake_id(&mut ch, IBV_QPT_RC);
        id.ev().0.lock().resolving_ai = true;
        let rai = one_result();
        assert_eq!(resolve_dns(id, |out| { *out = rai; 0 }), 0);
        // The INTERNAL event the library queued for itself.
        let b = written(r);
        assert_eq!(b.len(), 8 + 320);
        assert_eq!(u32_at(&b, 0), RDMA_USER_CM_CMD_WRITE_CM_EVENT);
        assert_eq!(u32_at(&b, 8), 77);
        assert_eq!(u32_at(&b, 16), RDMA_CM_EVENT_INTERNAL);
        assert_eq!(u32_at(&b, 20), 0);
        assert_eq!(u64_at(&b, 24), u64::from(RDMA_CM_EVENT_ADDRINFO_RESOLVED));
        // rdma_query_addrinfo hands it over and ends the resolution.
        let mut got: *mut rdma_addrinfo = null_mut();
        // SAFETY: a live id and a local out pointer.
        assert_eq!(unsafe { rdma_query_addrinfo(id.cm(), &mut got) }, 0);
        assert_eq!(got, rai);
        assert!(!resolving(id));
        // SAFETY: as above.
        assert_eq!(unsafe { rdma_query_addrinfo(id.cm(), &mut got) }, -1);
        errno_is(libc::ENOENT);
        // SAFETY: the caller's chain, freed once.
        unsafe { crate::addrinfo::free_chain(got) };
        close_pipe(r, &ch);
        free_id(id);
    }

    #[test]
    fn a_failed_announcement_gives_errno_minus_one_and_drops_the_result() {
        // Linux 6.1 has no WRITE_CM_EVENT (EINVAL); a channel that cannot be
        // written to fails the same way.
        let mut ch = rdma_event_channel { fd: -1 };
        let id = fake_id(&mut ch, IBV_QPT_RC);
        assert_eq!(resolve_addrinfo_with(id, || resolve_dns(id, |out| { *out = one_result(); 0 })), -1);
        errno_is(-1);
        assert!(!resolving(id), "the id may resolve again");
        assert!(id.ev().0.lock().resolved_ai.is_null(), "the result is freed");
        // rdma_getaddrinfo's own failure value becomes errno: an EAI_* code.
        assert_eq!(resolve_addrinfo_with(id, || resolve_dns(id, |_| libc::EAI_NONAME)), -1);
        errno_is(libc::EAI_NONAME);
        free_id(id);
    }

    #[test]
    fn a_second_resolution_is_refused_while_one_is_under_way() {
        let mut ch = rdma_event_channel { fd: -1 };
        let id = fake_id(&mut ch, IBV_QPT_RC);
        id.ev().0.lock().resolving_ai = true;
        let svc = CString::new("1").unwrap();
        let h = hints(RAI_SA);
        // SAFETY: a live id, a C string and hints.
        assert_eq!(unsafe { rdma_resolve_addrinfo(id.cm(), null_mut(), svc.as_ptr(), &h) }, -1);
        errno_is(libc::EBUSY);
        assert!(resolving(id), "the first one goes on");
        // Nothing to take yet: ENOENT.
        let mut got: *mut rdma_addrinfo = null_mut();
        // SAFETY: as above.
        assert_eq!(unsafe { rdma_query_addrinfo(id.cm(), &mut got) }, -1);
        errno_is(libc::ENOENT);
        assert!(got.is_null());
        free_id(id);
    }

    #[test]
    fn argument_checks_and_the_service_hint_rules() {
        let mut ch = rdma_event_channel { fd: -1 };
        let id = fake_id(&mut ch, IBV_QPT_RC);
        let node = CString::new("host").unwrap();
        let svc = CString::new("7").unwrap();
        let mut got: *mut rdma_addrinfo = null_mut();
        // SAFETY (all calls): NULL or live arguments.
        unsafe {
            assert_eq!(rdma_resolve_addrinfo(null_mut(), node.as_ptr(), null_mut(), null_mut()), -1);
            errno_is(libc::EINVAL);
            assert_eq!(rdma_query_addrinfo(null_mut(), &mut got), -1);
            errno_is(libc::EINVAL);
            assert_eq!(rdma_query_addrinfo(id.cm(), null_mut()), -1);
            errno_is(libc::EINVAL);
            // RAI_SA excludes RAI_DNS and a node: EOPNOTSUPP, positive.
            let h = hints(RAI_SA | RAI_DNS);
            assert_eq!(rdma_resolve_addrinfo(id.cm(), null_mut(), svc.as_ptr(), &h), -1);
            errno_is(libc::EOPNOTSUPP);
            assert!(!resolving(id));
            let h = hints(RAI_SA);
            assert_eq!(rdma_resolve_addrinfo(id.cm(), node.as_ptr(), svc.as_ptr(), &h), -1);
            errno_is(libc::EOPNOTSUPP);
            // No service to resolve: the inner EINVAL becomes errno -1.
            assert_eq!(rdma_resolve_addrinfo(id.cm(), null_mut(), null_mut(), &h), -1);
            errno_is(-1);
            // The command cannot be written (as on Linux 6.1, which has no
            // RESOLVE_IB_SERVICE): errno -1 too.
            assert_eq!(rdma_resolve_addrinfo(id.cm(), null_mut(), svc.as_ptr(), &h), -1);
            errno_is(-1);
            assert!(!resolving(id));
        }
        free_id(id);
    }

    /// The RESOLVE_IB_SERVICE command rdma_resolve_addrinfo writes for
    /// `service` (an asynchronous id returns right after it).
    fn service_command(service: &str) -> Vec<u8> {
        let (r, mut ch) = channel_pipe();
        let id = fake_id(&mut ch, IBV_QPT_RC);
        let svc = CString::new(service).unwrap();
        let h = hints(RAI_SA);
        // SAFETY: a live id, a C string and hints.
        assert_eq!(unsafe { rdma_resolve_addrinfo(id.cm(), null_mut(), svc.as_ptr(), &h) }, 0);
        assert!(resolving(id), "under way until its event");
        let b = written(r);
        close_pipe(r, &ch);
        free_id(id);
        assert_eq!(b.len(), 8 + 88);
        assert_eq!(u32_at(&b, 0), RDMA_USER_CM_CMD_RESOLVE_IB_SERVICE);
        assert_eq!(u16::from_ne_bytes([b[4], b[5]]), 88);
        assert_eq!(u32_at(&b, 8), 77);
        b[8..].to_vec()
    }

    fn name_of(body: &[u8]) -> &[u8] {
        let n = &body[16..16 + 64];
        &n[..n.iter().position(|&c| c == 0).unwrap()]
    }

    #[test]
    fn a_numeric_service_is_an_id_and_anything_else_a_name() {
        for (s, id) in [("0x10", 16u64), ("4660", 4660), ("010", 8), (" 5", 5), ("-1", u64::MAX)] {
            let b = service_command(s);
            assert_eq!(u64_at(&b, 8), id, "{s}");
            assert_eq!(u32_at(&b, 80), RDMA_USER_CM_IB_SERVICE_FLAG_ID, "{s}");
            assert_eq!(name_of(&b), b"", "{s}");
        }
        for s in ["my.service", "12abc", "", "99999999999999999999999"] {
            let b = service_command(s);
            assert_eq!(u64_at(&b, 8), 0, "{s}");
            assert_eq!(u32_at(&b, 80), RDMA_USER_CM_IB_SERVICE_FLAG_NAME, "{s}");
            assert_eq!(name_of(&b), s.as_bytes(), "{s}");
        }
        // A long name is cut to 63 bytes (the last stays NUL).
        let long = "n".repeat(100);
        let b = service_command(&long);
        assert_eq!(name_of(&b), &long.as_bytes()[..63]);
    }

    #[test]
    fn without_rdma_a_host_name_resolution_fails_with_errno_minus_one() {
        if crate::cma::ucma_init().is_ok() {
            return; // an RDMA CM is present: rdma_getaddrinfo would work
        }
        let mut ch = rdma_event_channel { fd: -1 };
        let id = fake_id(&mut ch, IBV_QPT_RC);
        let node = CString::new("127.0.0.1").unwrap();
        // SAFETY: a live id and a C string.
        assert_eq!(unsafe { rdma_resolve_addrinfo(id.cm(), node.as_ptr(), null_mut(), null_mut()) }, -1);
        // rdma_getaddrinfo's -1 (errno ENODEV) is stored as errno.
        errno_is(-1);
        assert!(!resolving(id));
        free_id(id);
    }
}
