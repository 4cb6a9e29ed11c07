//! Completion queues: ibv_create_cq / ibv_resize_cq / ibv_destroy_cq
//! (verbs.c).
//!
//! ibv_destroy_cq itself never waits for event acknowledgements: as upstream,
//! that wait is in ibv_cmd_destroy_cq (cmd/cq.rs), which the provider's
//! destroy_cq calls once the kernel has reported how many completion and
//! async events it delivered for the CQ.
//!
//! A CQ bound to a completion channel holds one count on the channel's
//! `refcnt` (taken by verbs_init_cq under the context mutex), so
//! ibv_destroy_comp_channel refuses to close a channel still in use. The
//! count is given back only once the provider has destroyed the CQ.

use std::ffi::{c_int, c_void};
use std::ptr;

use crate::abi::verbs::*;
use crate::context::init_cq;
use crate::ctx_priv::ops_of;
use rdma_util::ffi::set_errno;
use rdma_util::{ensure, export_versioned, symver};

/// Upstream's ibv_create_cq: the provider creates, the library initialises
/// its own fields. NULL with the provider's errno on failure.
///
/// # Safety
/// `context` is a live context of this library; `channel` is NULL or a live
/// channel.
pub(crate) unsafe fn create_cq(context: *mut ibv_context, cqe: c_int, cq_context: *mut c_void,
                 channel: *mut ibv_comp_channel, comp_vector: c_int) -> *mut ibv_cq {
    // SAFETY: the caller's live context of this library.
    let Some(f) = unsafe { ops_of(context) }.create_cq else {
        set_errno(libc::EOPNOTSUPP);
        return ptr::null_mut();
    };
    // SAFETY: provider op with the caller's arguments.
    let cq = unsafe { f(context, cqe, channel, comp_vector) };
    if !cq.is_null() {
        // SAFETY: the provider's new CQ; context and channel as this
        // function's own contract requires.
        unsafe { init_cq(cq, context, channel, cq_context) };
    }
    cq
}

/// Upstream's ibv_destroy_cq: the provider's result (0 or an errno value).
///
/// # Safety
/// `cq` is a live CQ whose context is set; its channel, if any, is live and
/// has its context set.
pub(crate) unsafe fn destroy_cq(cq: *mut ibv_cq) -> c_int {
    // Read before the provider frees the CQ.
    // SAFETY: the caller's live CQ.
    let (context, channel) = unsafe { ((*cq).context, (*cq).channel) };
    // SAFETY: the context of the caller's live CQ is a live context of this library.
    let Some(f) = unsafe { ops_of(context) }.destroy_cq else { return libc::EOPNOTSUPP };
    // SAFETY: provider op on its own CQ.
    let ret = unsafe { f(cq) };
    if ret == 0 && !channel.is_null() {
        // The channel's count is guarded by the mutex of the channel's own
        // context (the same one verbs_init_cq locked).
        // SAFETY: the channel outlives its CQs; its context's mutex was
        // initialised when the context was.
        unsafe {
            let m = ptr::addr_of_mut!((*(*channel).context).mutex);
            libc::pthread_mutex_lock(m);
            (*channel).refcnt -= 1;
            libc::pthread_mutex_unlock(m);
        }
    }
    ret
}

export_versioned! {
    /// ibv_create_cq@@IBVERBS_1.1
    fn ibv_create_cq_v11(context: *mut ibv_context, cqe: c_int, cq_context: *mut c_void,
                         channel: *mut ibv_comp_channel, comp_vector: c_int) -> *mut ibv_cq,
        on_panic = ptr::null_mut();
    {
        ensure!(!context.is_null(), libc::EINVAL, ptr::null_mut());
        // SAFETY: the caller's context (checked non-NULL) and channel.
        unsafe { create_cq(context, cqe, cq_context, channel, comp_vector) }
    }
}
symver!(default ibv_create_cq, "IBVERBS_1.1", ibv_create_cq_v11);

/// Upstream's ibv_resize_cq: the provider's result (0 or an errno value).
///
/// # Safety
/// `cq` is a live CQ whose context is set.
pub(crate) unsafe fn resize_cq(cq: *mut ibv_cq, cqe: c_int) -> c_int {
    // SAFETY: the caller's live CQ.
    let context = unsafe { (*cq).context };
    // SAFETY: the context of the caller's live CQ is a live context of this library.
    let Some(f) = unsafe { ops_of(context) }.resize_cq else { return libc::EOPNOTSUPP };
    // SAFETY: provider op on its own CQ.
    unsafe { f(cq, cqe) }
}

export_versioned! {
    /// ibv_resize_cq@@IBVERBS_1.1: 0 or an errno value.
    fn ibv_resize_cq_v11(cq: *mut ibv_cq, cqe: c_int) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!cq.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked non-NULL; the caller's CQ.
        ensure!(!unsafe { (*cq).context }.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the caller's CQ with its context set.
        unsafe { resize_cq(cq, cqe) }
    }
}
symver!(default ibv_resize_cq, "IBVERBS_1.1", ibv_resize_cq_v11);

export_versioned! {
    /// ibv_destroy_cq@@IBVERBS_1.1: 0 or an errno value.
    fn ibv_destroy_cq_v11(cq: *mut ibv_cq) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!cq.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked non-NULL; the caller's CQ and, when set, its channel.
        let usable = unsafe {
            !(*cq).context.is_null() && ((*cq).channel.is_null() || !(*(*cq).channel).context.is_null())
        };
        ensure!(usable, libc::EINVAL, libc::EINVAL);
        // SAFETY: the caller's CQ, checked usable.
        unsafe { destroy_cq(cq) }
    }
}
symver!(default ibv_destroy_cq, "IBVERBS_1.1", ibv_destroy_cq_v11);

#[cfg(test)]
mod tests {
    use super::*;
    use rdma_util::ffi::errno;
    use crate::testkit::ctx::{no_ops, FakeCtx};
    use std::cell::RefCell;

    #[derive(Default)]
    struct Script {
        /// create_cq(context, cqe, channel, comp_vector) calls.
        creates: Vec<(usize, c_int, usize, c_int)>,
        destroys: Vec<usize>,
        resizes: Vec<(usize, c_int)>,
        create_fail: Option<c_int>,
        destroy_ret: c_int,
    }

    thread_local! {
        static S: RefCell<Script> = RefCell::new(Script::default());
    }

    const JUNK: usize = 0xdead_0000;

    unsafe extern "C" fn fake_create_cq(context: *mut ibv_context, cqe: c_int, channel: *mut ibv_comp_channel,
                                        comp_vector: c_int) -> *mut ibv_cq {
        S.with(|s| {
            let mut s = s.borrow_mut();
            s.creates.push((context as usize, cqe, channel as usize, comp_vector));
            if let Some(e) = s.create_fail {
                set_errno(e);
                return ptr::null_mut();
            }
            // SAFETY: all-zero is a valid ibv_cq.
            let mut cq: Box<ibv_cq> = Box::new(unsafe { std::mem::zeroed() });
            // What the library must overwrite, and what it must keep.
            cq.context = JUNK as *mut _;
            cq.channel = JUNK as *mut _;
            cq.cq_context = JUNK as *mut _;
            cq.comp_events_completed = 9;
            cq.async_events_completed = 9;
            cq.handle = 42;
            cq.cqe = cqe * 2;
            Box::into_raw(cq)
        })
    }

    unsafe extern "C" fn fake_destroy_cq(cq: *mut ibv_cq) -> c_int {
        S.with(|s| {
            let mut s = s.borrow_mut();
            s.destroys.push(cq as usize);
            if s.destroy_ret == 0 {
                // SAFETY: created by fake_create_cq.
                drop(unsafe { Box::from_raw(cq) });
            }
            s.destroy_ret
        })
    }

    unsafe extern "C" fn fake_resize_cq(cq: *mut ibv_cq, cqe: c_int) -> c_int {
        S.with(|s| s.borrow_mut().resizes.push((cq as usize, cqe)));
        if cqe < 0 { libc::EINVAL } else { 0 }
    }

    fn provider() -> FakeCtx {
        S.with(|s| *s.borrow_mut() = Script::default());
        let mut c = FakeCtx::new(0);
        let mut ops = no_ops();
        ops.create_cq = Some(fake_create_cq);
        ops.destroy_cq = Some(fake_destroy_cq);
        ops.resize_cq = Some(fake_resize_cq);
        c.set_ops(&ops);
        c
    }

    /// Whether a mutex is free (not left locked).
    fn unlocked(m: *mut libc::pthread_mutex_t) -> bool {
        // SAFETY: an initialised mutex; unlocked again at once.
        unsafe {
            if libc::pthread_mutex_trylock(m) != 0 {
                return false;
            }
            libc::pthread_mutex_unlock(m);
        }
        true
    }

    #[test]
    fn create_dispatches_and_initialises() {
        let mut c = provider();
        let ctx = c.ctx();
        let user = 0x5150usize as *mut c_void;
        // SAFETY: our live fake context, no channel.
        let cq = unsafe { ibv_create_cq_v11(ctx, 16, user, ptr::null_mut(), 3) };
        assert!(!cq.is_null());
        S.with(|s| assert_eq!(s.borrow().creates, vec![(ctx as usize, 16, 0, 3)]));
        // SAFETY: the provider's CQ.
        let q = unsafe { &mut *cq };
        assert_eq!((q.context, q.channel, q.cq_context), (ctx, ptr::null_mut(), user));
        assert_eq!((q.comp_events_completed, q.async_events_completed), (0, 0));
        assert_eq!((q.handle, q.cqe), (42, 32));
        assert!(unlocked(&mut q.mutex));
        // SAFETY: the CQ just created.
        assert_eq!(unsafe { ibv_destroy_cq_v11(cq) }, 0);
        S.with(|s| assert_eq!(s.borrow().destroys, vec![cq as usize]));
    }

    #[test]
    fn channel_refcount_follows_the_cqs() {
        let mut c = provider();
        let ctx = c.ctx();
        let mut ch = ibv_comp_channel { context: ctx, fd: -1, refcnt: 0 };
        let chp: *mut ibv_comp_channel = &mut ch;
        // SAFETY: our context and a live channel on it.
        let (a, b) = unsafe { (ibv_create_cq_v11(ctx, 1, ptr::null_mut(), chp, 0), ibv_create_cq_v11(ctx, 1, ptr::null_mut(), chp, 0)) };
        assert!(!a.is_null() && !b.is_null());
        // SAFETY: reading the channel between calls.
        assert_eq!(unsafe { (*chp).refcnt }, 2);
        // SAFETY: the CQ just created.
        assert_eq!(unsafe { (*a).channel }, chp);
        S.with(|s| assert_eq!(s.borrow().creates[0].2, chp as usize));

        // A failed create takes no count.
        S.with(|s| s.borrow_mut().create_fail = Some(libc::ENOMEM));
        set_errno(0);
        // SAFETY: as above.
        assert!(unsafe { ibv_create_cq_v11(ctx, 1, ptr::null_mut(), chp, 0) }.is_null());
        assert_eq!(errno(), libc::ENOMEM);
        // SAFETY: as above.
        assert_eq!(unsafe { (*chp).refcnt }, 2);

        // A failed destroy gives none back.
        S.with(|s| s.borrow_mut().destroy_ret = libc::EBUSY);
        // SAFETY: live CQ (kept by the provider on failure).
        assert_eq!(unsafe { ibv_destroy_cq_v11(a) }, libc::EBUSY);
        // SAFETY: as above.
        assert_eq!(unsafe { (*chp).refcnt }, 2);

        S.with(|s| s.borrow_mut().destroy_ret = 0);
        // SAFETY: live CQs, each destroyed once.
        unsafe {
            assert_eq!(ibv_destroy_cq_v11(a), 0);
            assert_eq!((*chp).refcnt, 1);
            assert_eq!(ibv_destroy_cq_v11(b), 0);
            assert_eq!((*chp).refcnt, 0);
            assert!(unlocked(&mut (*ctx).mutex));
        }
    }

    #[test]
    fn unimplemented_ops_are_eopnotsupp() {
        let mut c = FakeCtx::new(0);
        set_errno(0);
        // SAFETY: our live fake context with the dummy ops only.
        assert!(unsafe { ibv_create_cq_v11(c.ctx(), 1, ptr::null_mut(), ptr::null_mut(), 0) }.is_null());
        assert_eq!(errno(), libc::EOPNOTSUPP);
        let mut ch = ibv_comp_channel { context: c.ctx(), fd: -1, refcnt: 1 };
        // SAFETY: all-zero is a valid ibv_cq.
        let mut cq: ibv_cq = unsafe { std::mem::zeroed() };
        cq.context = c.ctx();
        cq.channel = &mut ch;
        // SAFETY: a CQ on our context; the dummy op does not touch it.
        assert_eq!(unsafe { ibv_destroy_cq_v11(&mut cq) }, libc::EOPNOTSUPP);
        assert_eq!(ch.refcnt, 1);
    }

    #[test]
    fn null_arguments_are_einval() {
        set_errno(0);
        // SAFETY: NULL is rejected before use.
        assert!(unsafe { ibv_create_cq_v11(ptr::null_mut(), 1, ptr::null_mut(), ptr::null_mut(), 0) }.is_null());
        assert_eq!(errno(), libc::EINVAL);
        // SAFETY: as above.
        assert_eq!(unsafe { ibv_destroy_cq_v11(ptr::null_mut()) }, libc::EINVAL);
        // SAFETY: all-zero is a valid ibv_cq (context NULL).
        let mut cq: ibv_cq = unsafe { std::mem::zeroed() };
        // SAFETY: rejected before use.
        assert_eq!(unsafe { ibv_destroy_cq_v11(&mut cq) }, libc::EINVAL);
        let mut c = FakeCtx::new(0);
        let mut ch = ibv_comp_channel { context: ptr::null_mut(), fd: -1, refcnt: 1 };
        cq.context = c.ctx();
        cq.channel = &mut ch;
        // SAFETY: a channel without a context is rejected before the provider runs.
        assert_eq!(unsafe { ibv_destroy_cq_v11(&mut cq) }, libc::EINVAL);
        assert_eq!(ch.refcnt, 1);
    }

    #[test]
    fn resize_dispatches() {
        let mut c = provider();
        // SAFETY: our live fake context.
        let cq = unsafe { ibv_create_cq_v11(c.ctx(), 4, ptr::null_mut(), ptr::null_mut(), 0) };
        // SAFETY: live CQ.
        unsafe {
            assert_eq!(ibv_resize_cq_v11(cq, 64), 0);
            assert_eq!(ibv_resize_cq_v11(cq, -1), libc::EINVAL);
        }
        S.with(|s| assert_eq!(s.borrow().resizes, vec![(cq as usize, 64), (cq as usize, -1)]));
        // SAFETY: live CQ.
        assert_eq!(unsafe { ibv_destroy_cq_v11(cq) }, 0);
        // Dummy op, NULL arguments.
        let mut d = FakeCtx::new(0);
        // SAFETY: all-zero is a valid CQ.
        let mut q: ibv_cq = unsafe { std::mem::zeroed() };
        // SAFETY: rejected before use.
        assert_eq!(unsafe { ibv_resize_cq_v11(&mut q, 1) }, libc::EINVAL);
        q.context = d.ctx();
        // SAFETY: the dummy op does not touch the CQ.
        assert_eq!(unsafe { ibv_resize_cq_v11(&mut q, 1) }, libc::EOPNOTSUPP);
        // SAFETY: as above.
        assert_eq!(unsafe { ibv_resize_cq_v11(ptr::null_mut(), 1) }, libc::EINVAL);
    }

    /// A provider whose destroy_cq is rxe's: ibv_cmd_destroy_cq, then free.
    unsafe extern "C" fn cmd_destroy_cq(cq: *mut ibv_cq) -> c_int {
        // SAFETY: the provider's live CQ.
        let ret = unsafe { crate::cmd::cq::ibv_cmd_destroy_cq(cq) };
        if ret == 0 {
            // SAFETY: created by fake_create_cq.
            drop(unsafe { Box::from_raw(cq) });
        }
        ret
    }

    struct SendPtr(*mut ibv_cq);
    // SAFETY: the CQ stays alive until the destroy below has returned, and the
    // acker only touches it through ibv_ack_cq_events / ibv_ack_async_event.
    unsafe impl Send for SendPtr {}

    /// ibv_destroy_cq returns only once a second thread has acked every
    /// completion and async event the kernel reported, and waits exactly once
    /// (in ibv_cmd_destroy_cq).
    #[test]
    fn destroy_waits_for_acks_from_another_thread() {
        use crate::testkit::kernel::{with_kernel, FakeKernel};
        use std::sync::atomic::{AtomicU32, Ordering};
        use std::sync::Arc;
        S.with(|s| *s.borrow_mut() = Script::default());
        let mut c = FakeCtx::new(0);
        let mut ops = no_ops();
        ops.create_cq = Some(fake_create_cq);
        ops.destroy_cq = Some(cmd_destroy_cq);
        c.set_ops(&ops);
        let ctx = c.ctx();
        let mut ch = ibv_comp_channel { context: ctx, fd: -1, refcnt: 0 };
        // SAFETY: our live context and channel.
        let cq = unsafe { ibv_create_cq_v11(ctx, 1, ptr::null_mut(), &mut ch, 0) };
        assert!(!cq.is_null());
        let acks = Arc::new(AtomicU32::new(0));
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let p = SendPtr(cq);
        let acker = {
            let acks = acks.clone();
            std::thread::spawn(move || {
                let p = p;
                rx.recv().unwrap();
                // Two completion events in two acks, then the async event.
                // SAFETY: the CQ lives until destroy returns, which needs these acks.
                unsafe {
                    acks.fetch_add(1, Ordering::SeqCst);
                    crate::channel::ibv_ack_cq_events_v11(p.0, 1);
                    acks.fetch_add(1, Ordering::SeqCst);
                    crate::channel::ibv_ack_cq_events_v11(p.0, 1);
                    let mut ev: ibv_async_event = std::mem::zeroed();
                    ev.event_type = IBV_EVENT_CQ_ERR;
                    ev.element.cq = p.0;
                    acks.fetch_add(1, Ordering::SeqCst);
                    crate::context::ibv_ack_async_event_v11(&mut ev);
                }
            })
        };
        let k = FakeKernel::new().on_ioctl(move |cmd| {
            // UVERBS_OBJECT_CQ / UVERBS_METHOD_CQ_DESTROY: report 2 + 1 events.
            assert_eq!((cmd.object_id(), cmd.method_id()), (3, 1));
            cmd.write_out_val(1, crate::abi::kern::ib_uverbs_destroy_cq_resp { comp_events_reported: 2, async_events_reported: 1 });
            tx.send(()).unwrap();
            0
        });
        // SAFETY: live CQ.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_destroy_cq_v11(cq) });
        assert_eq!(ret, 0);
        assert_eq!(acks.load(Ordering::SeqCst), 3, "returned only after all three acks");
        assert_eq!(sent.len(), 1);
        acker.join().unwrap();
        assert_eq!(ch.refcnt, 0);
    }
}
