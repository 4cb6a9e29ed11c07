//! Shared receive queues (verbs.c): ibv_create_srq, ibv_modify_srq,
//! ibv_query_srq, ibv_destroy_srq.
//!
//! ibv_create_srq_ex, ibv_get_srq_num and ibv_post_srq_ops are inline
//! functions in verbs.h: create_srq_ex falls back to ibv_create_srq for a
//! basic SRQ and otherwise calls the verbs_context slot verbs_set_ops fills.
//! The wait for acknowledged async events on destroy is in
//! ibv_cmd_destroy_srq (cmd/srq.rs), which providers call.

use std::ffi::c_int;
use std::ptr;

use crate::abi::verbs::*;
use crate::ctx_priv::ops_of;
use rdma_util::ffi::set_errno;
use rdma_util::{ensure, export_versioned, symver};

fn usable(srq: *mut ibv_srq) -> bool {
    // SAFETY: dereferenced only when non-NULL; the caller's SRQ.
    !srq.is_null() && !unsafe { (*srq).context }.is_null()
}

/// Upstream's ibv_create_srq: the provider creates, the library sets the
/// context, PD, user context and the event accounting of the new SRQ.
///
/// # Safety
/// `pd` is a live PD with its context set; `attr` is readable.
pub(crate) unsafe fn create_srq(pd: *mut ibv_pd, attr: *mut ibv_srq_init_attr) -> *mut ibv_srq {
    // SAFETY: the caller's PD.
    let context = unsafe { (*pd).context };
    // SAFETY: the caller's live PD, whose context is a live context of this library.
    let Some(f) = unsafe { ops_of(context) }.create_srq else {
        set_errno(libc::EOPNOTSUPP);
        return ptr::null_mut();
    };
    // SAFETY: provider op with the caller's arguments.
    let srq = unsafe { f(pd, attr) };
    if !srq.is_null() {
        // SAFETY: the provider's new SRQ; the caller's attributes.
        unsafe {
            (*srq).context = context;
            (*srq).srq_context = (*attr).srq_context;
            (*srq).pd = pd;
            (*srq).events_completed = 0;
            libc::pthread_mutex_init(ptr::addr_of_mut!((*srq).mutex), ptr::null());
            libc::pthread_cond_init(ptr::addr_of_mut!((*srq).cond), ptr::null());
        }
    }
    srq
}

export_versioned! {
    /// ibv_create_srq@@IBVERBS_1.1
    fn ibv_create_srq_v11(pd: *mut ibv_pd, srq_init_attr: *mut ibv_srq_init_attr) -> *mut ibv_srq,
        on_panic = ptr::null_mut();
    {
        // SAFETY: dereferenced only when non-NULL.
        ensure!(!pd.is_null() && !unsafe { (*pd).context }.is_null() && !srq_init_attr.is_null(),
                libc::EINVAL, ptr::null_mut());
        // SAFETY: checked above.
        unsafe { create_srq(pd, srq_init_attr) }
    }
}
symver!(default ibv_create_srq, "IBVERBS_1.1", ibv_create_srq_v11);

export_versioned! {
    /// ibv_modify_srq@@IBVERBS_1.1: 0 or an errno value.
    fn ibv_modify_srq_v11(srq: *mut ibv_srq, srq_attr: *mut ibv_srq_attr, srq_attr_mask: c_int) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(usable(srq) && !srq_attr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked above; the application's SRQ, whose context is a live context of this library.
        let Some(f) = unsafe { ops_of((*srq).context) }.modify_srq else { return libc::EOPNOTSUPP };
        // SAFETY: provider op with the caller's arguments.
        unsafe { f(srq, srq_attr, srq_attr_mask) }
    }
}
symver!(default ibv_modify_srq, "IBVERBS_1.1", ibv_modify_srq_v11);

export_versioned! {
    /// ibv_query_srq@@IBVERBS_1.1: 0 or an errno value.
    fn ibv_query_srq_v11(srq: *mut ibv_srq, srq_attr: *mut ibv_srq_attr) -> c_int, on_panic = libc::EIO;
    {
        ensure!(usable(srq) && !srq_attr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked above; the application's SRQ, whose context is a live context of this library.
        let Some(f) = unsafe { ops_of((*srq).context) }.query_srq else { return libc::EOPNOTSUPP };
        // SAFETY: provider op with the caller's arguments.
        unsafe { f(srq, srq_attr) }
    }
}
symver!(default ibv_query_srq, "IBVERBS_1.1", ibv_query_srq_v11);

export_versioned! {
    /// ibv_destroy_srq@@IBVERBS_1.1: 0 or an errno value.
    fn ibv_destroy_srq_v11(srq: *mut ibv_srq) -> c_int, on_panic = libc::EIO;
    {
        ensure!(usable(srq), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked above; the application's SRQ, whose context is a live context of this library.
        let Some(f) = unsafe { ops_of((*srq).context) }.destroy_srq else { return libc::EOPNOTSUPP };
        // SAFETY: provider op on its own SRQ.
        unsafe { f(srq) }
    }
}
symver!(default ibv_destroy_srq, "IBVERBS_1.1", ibv_destroy_srq_v11);

#[cfg(test)]
mod tests {
    use super::*;
    use rdma_util::ffi::errno;
    use crate::testkit::ctx::{no_ops, FakeCtx};
    use std::cell::RefCell;

    #[derive(Default)]
    struct Script {
        calls: Vec<String>,
        fail: Option<c_int>,
    }
    thread_local! {
        static S: RefCell<Script> = RefCell::new(Script::default());
    }
    const JUNK: usize = 0xdead_0000;

    unsafe extern "C" fn p_create(pd: *mut ibv_pd, attr: *mut ibv_srq_init_attr) -> *mut ibv_srq {
        S.with(|s| {
            let mut s = s.borrow_mut();
            // SAFETY: the caller's attributes.
            s.calls.push(format!("create {:x} {}", pd as usize, unsafe { (*attr).attr.max_wr }));
            if let Some(e) = s.fail {
                set_errno(e);
                return ptr::null_mut();
            }
            // SAFETY: all-zero is a valid SRQ.
            let mut q: Box<ibv_srq> = Box::new(unsafe { std::mem::zeroed() });
            q.context = JUNK as *mut _;
            q.pd = JUNK as *mut _;
            q.srq_context = JUNK as *mut _;
            q.events_completed = 5;
            q.handle = 9;
            Box::into_raw(q)
        })
    }
    unsafe extern "C" fn p_modify(srq: *mut ibv_srq, attr: *mut ibv_srq_attr, mask: c_int) -> c_int {
        // SAFETY: the caller's attributes.
        S.with(|s| s.borrow_mut().calls.push(format!("modify {:x} {} {mask}", srq as usize, unsafe { (*attr).srq_limit })));
        0
    }
    unsafe extern "C" fn p_query(srq: *mut ibv_srq, attr: *mut ibv_srq_attr) -> c_int {
        S.with(|s| s.borrow_mut().calls.push(format!("query {:x}", srq as usize)));
        // SAFETY: the caller's attributes.
        unsafe { (*attr).max_wr = 77 };
        0
    }
    unsafe extern "C" fn p_destroy(srq: *mut ibv_srq) -> c_int {
        S.with(|s| s.borrow_mut().calls.push(format!("destroy {:x}", srq as usize)));
        // SAFETY: created by p_create.
        drop(unsafe { Box::from_raw(srq) });
        0
    }

    fn provider() -> FakeCtx {
        S.with(|s| *s.borrow_mut() = Script::default());
        let mut c = FakeCtx::new(0);
        let mut ops = no_ops();
        ops.create_srq = Some(p_create);
        ops.modify_srq = Some(p_modify);
        ops.query_srq = Some(p_query);
        ops.destroy_srq = Some(p_destroy);
        c.set_ops(&ops);
        c
    }

    #[test]
    fn create_sets_library_fields_and_ops_dispatch() {
        let mut c = provider();
        let mut pd = ibv_pd { context: c.ctx(), handle: 1 };
        let user = 0x4242usize as *mut std::ffi::c_void;
        let mut attr = ibv_srq_init_attr { srq_context: user, attr: ibv_srq_attr { max_wr: 16, max_sge: 1, srq_limit: 0 } };
        // SAFETY: live PD on our context.
        let srq = unsafe { ibv_create_srq_v11(&mut pd, &mut attr) };
        assert!(!srq.is_null());
        // SAFETY: the provider's SRQ.
        let q = unsafe { &mut *srq };
        assert_eq!((q.context, q.pd, q.srq_context), (c.ctx(), &mut pd as *mut ibv_pd, user));
        assert_eq!((q.events_completed, q.handle), (0, 9));
        // SAFETY: initialised mutex, unlocked again at once.
        unsafe {
            assert_eq!(libc::pthread_mutex_trylock(&mut q.mutex), 0);
            libc::pthread_mutex_unlock(&mut q.mutex);
        }
        let mut a = ibv_srq_attr { max_wr: 0, max_sge: 0, srq_limit: 8 };
        // SAFETY: live SRQ.
        unsafe {
            assert_eq!(ibv_modify_srq_v11(srq, &mut a, IBV_SRQ_LIMIT as c_int), 0);
            assert_eq!(ibv_query_srq_v11(srq, &mut a), 0);
        }
        assert_eq!(a.max_wr, 77);
        // SAFETY: live SRQ, destroyed once.
        assert_eq!(unsafe { ibv_destroy_srq_v11(srq) }, 0);
        let p = srq as usize;
        S.with(|s| {
            assert_eq!(
                s.borrow().calls,
                vec![format!("create {:x} 16", &mut pd as *mut ibv_pd as usize), format!("modify {p:x} 8 2"),
                     format!("query {p:x}"), format!("destroy {p:x}")]
            )
        });
    }

    #[test]
    fn failures_and_bad_input() {
        let mut c = provider();
        let mut pd = ibv_pd { context: c.ctx(), handle: 1 };
        // SAFETY: all-zero attributes are valid.
        let mut attr: ibv_srq_init_attr = unsafe { std::mem::zeroed() };
        S.with(|s| s.borrow_mut().fail = Some(libc::ENOMEM));
        set_errno(0);
        // SAFETY: live PD.
        assert!(unsafe { ibv_create_srq_v11(&mut pd, &mut attr) }.is_null());
        assert_eq!(errno(), libc::ENOMEM);
        // SAFETY: NULLs are rejected before use.
        unsafe {
            set_errno(0);
            assert!(ibv_create_srq_v11(ptr::null_mut(), &mut attr).is_null());
            assert_eq!(errno(), libc::EINVAL);
            assert!(ibv_create_srq_v11(&mut pd, ptr::null_mut()).is_null());
            assert_eq!(ibv_modify_srq_v11(ptr::null_mut(), ptr::null_mut(), 0), libc::EINVAL);
            assert_eq!(ibv_query_srq_v11(ptr::null_mut(), ptr::null_mut()), libc::EINVAL);
            assert_eq!(ibv_destroy_srq_v11(ptr::null_mut()), libc::EINVAL);
        }
        // The dummy ops: EOPNOTSUPP.
        let mut d = FakeCtx::new(0);
        let mut pd2 = ibv_pd { context: d.ctx(), handle: 1 };
        set_errno(0);
        // SAFETY: live PD on a context without SRQ support.
        assert!(unsafe { ibv_create_srq_v11(&mut pd2, &mut attr) }.is_null());
        assert_eq!(errno(), libc::EOPNOTSUPP);
        // SAFETY: all-zero is a valid SRQ.
        let mut q: ibv_srq = unsafe { std::mem::zeroed() };
        q.context = d.ctx();
        let mut a = ibv_srq_attr { max_wr: 0, max_sge: 0, srq_limit: 0 };
        // SAFETY: the dummy ops do not touch their arguments.
        unsafe {
            assert_eq!(ibv_modify_srq_v11(&mut q, &mut a, 0), libc::EOPNOTSUPP);
            assert_eq!(ibv_query_srq_v11(&mut q, &mut a), libc::EOPNOTSUPP);
            assert_eq!(ibv_destroy_srq_v11(&mut q), libc::EOPNOTSUPP);
        }
    }
}
