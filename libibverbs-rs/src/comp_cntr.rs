//! Completion counters (IBVERBS_1.18): a counter of the completions, and
//! apart of the failed ones, of the QPs attached to it, which the application
//! can read, set and advance.
//!
//! Every verb is the provider's: the library only dispatches through the
//! context's ops (of the context itself, of the counter, or of the QP), whose
//! defaults fail with EOPNOTSUPP. Its own work is the capability query's
//! zeroing of the caller's buffer, and refusing, with EINVAL, the NULL
//! arguments upstream would dereference.

use std::ffi::c_int;
use std::ptr;

use crate::abi::verbs65::*;
use crate::ctx_priv::ops_of;
use crate::util::query_without_output;
use rdma_util::ffi::set_errno;
use rdma_util::{ensure, export};

/// A counter argument the verbs may dispatch through (its context is set).
fn usable(cc: *mut ibv_comp_cntr) -> bool {
    // SAFETY: dereferenced only when non-NULL; the caller's counter.
    !cc.is_null() && !unsafe { (*cc).context }.is_null()
}

export! {
    /// _ibv_query_comp_cntr_caps@@IBVERBS_1.18 (behind verbs.h's inline
    /// ibv_query_comp_cntr_caps, which passes the size of its structure):
    /// zeroes `caps_size` bytes of `caps`, then the provider fills what it
    /// knows. 0 or an errno value (EOPNOTSUPP without provider support).
    ///
    /// A NULL context is EINVAL, and so is a NULL `caps` with a non-zero
    /// size (upstream's zeroing would crash). A NULL `caps` of size 0 reaches
    /// the op as upstream's does, through scratch space (see
    /// [`query_without_output`]).
    fn _ibv_query_comp_cntr_caps(context: *mut ibv_context, caps: *mut ibv_comp_cntr_caps, caps_size: usize)
        -> c_int, on_panic = libc::EIO;
    {
        ensure!(!context.is_null(), libc::EINVAL, libc::EINVAL);
        ensure!(!caps.is_null() || caps_size == 0, libc::EINVAL, libc::EINVAL);
        // SAFETY: checked non-NULL; a context the application got from this library.
        let Some(f) = unsafe { ops_of(context) }.query_comp_cntr_caps else { return libc::EOPNOTSUPP };
        if caps.is_null() {
            let mut scratch = ibv_comp_cntr_caps { max_value: 0, max_counters: 0, supported_qp_attach_ops: 0 };
            // SAFETY: provider op with the caller's context and size (0), and
            // a local structure.
            return query_without_output(unsafe { f(context, &mut scratch, 0) });
        }
        // SAFETY: the caller's buffer of caps_size bytes.
        unsafe { ptr::write_bytes(caps.cast::<u8>(), 0, caps_size) };
        // SAFETY: provider op with the caller's arguments.
        unsafe { f(context, caps, caps_size) }
    }
}

export! {
    /// ibv_create_comp_cntr@@IBVERBS_1.18: the provider's new counter (its
    /// `context` set by the provider), or NULL with errno set (EOPNOTSUPP
    /// without provider support). NULL arguments are EINVAL.
    fn ibv_create_comp_cntr(context: *mut ibv_context, cc_attr: *mut ibv_comp_cntr_init_attr) -> *mut ibv_comp_cntr,
        on_panic = ptr::null_mut();
    {
        ensure!(!context.is_null() && !cc_attr.is_null(), libc::EINVAL, ptr::null_mut());
        // SAFETY: checked non-NULL; a context the application got from this library.
        let Some(f) = unsafe { ops_of(context) }.create_comp_cntr else {
            set_errno(libc::EOPNOTSUPP);
            return ptr::null_mut();
        };
        // SAFETY: provider op with the caller's arguments.
        unsafe { f(context, cc_attr) }
    }
}

export! {
    /// ibv_destroy_comp_cntr@@IBVERBS_1.18: 0 or an errno value; the counter
    /// is gone only on 0.
    fn ibv_destroy_comp_cntr(comp_cntr: *mut ibv_comp_cntr) -> c_int, on_panic = libc::EIO;
    {
        ensure!(usable(comp_cntr), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked above; the counter's context is a live context of this library.
        let Some(f) = unsafe { ops_of((*comp_cntr).context) }.destroy_comp_cntr else { return libc::EOPNOTSUPP };
        // SAFETY: provider op on its own counter.
        unsafe { f(comp_cntr) }
    }
}

export! {
    /// ibv_set_comp_cntr@@IBVERBS_1.18: sets the completion count; 0 or an
    /// errno value.
    fn ibv_set_comp_cntr(comp_cntr: *mut ibv_comp_cntr, value: u64) -> c_int, on_panic = libc::EIO;
    {
        ensure!(usable(comp_cntr), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked above; the counter's context is a live context of this library.
        let Some(f) = unsafe { ops_of((*comp_cntr).context) }.set_comp_cntr else { return libc::EOPNOTSUPP };
        // SAFETY: provider op on its own counter.
        unsafe { f(comp_cntr, value) }
    }
}

export! {
    /// ibv_set_err_comp_cntr@@IBVERBS_1.18: sets the error count; 0 or an
    /// errno value.
    fn ibv_set_err_comp_cntr(comp_cntr: *mut ibv_comp_cntr, value: u64) -> c_int, on_panic = libc::EIO;
    {
        ensure!(usable(comp_cntr), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked above; the counter's context is a live context of this library.
        let Some(f) = unsafe { ops_of((*comp_cntr).context) }.set_err_comp_cntr else { return libc::EOPNOTSUPP };
        // SAFETY: provider op on its own counter.
        unsafe { f(comp_cntr, value) }
    }
}

export! {
    /// ibv_inc_comp_cntr@@IBVERBS_1.18: adds `amount` to the completion
    /// count; 0 or an errno value.
    fn ibv_inc_comp_cntr(comp_cntr: *mut ibv_comp_cntr, amount: u64) -> c_int, on_panic = libc::EIO;
    {
        ensure!(usable(comp_cntr), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked above; the counter's context is a live context of this library.
        let Some(f) = unsafe { ops_of((*comp_cntr).context) }.inc_comp_cntr else { return libc::EOPNOTSUPP };
        // SAFETY: provider op on its own counter.
        unsafe { f(comp_cntr, amount) }
    }
}

export! {
    /// ibv_inc_err_comp_cntr@@IBVERBS_1.18: adds `amount` to the error
    /// count; 0 or an errno value.
    fn ibv_inc_err_comp_cntr(comp_cntr: *mut ibv_comp_cntr, amount: u64) -> c_int, on_panic = libc::EIO;
    {
        ensure!(usable(comp_cntr), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked above; the counter's context is a live context of this library.
        let Some(f) = unsafe { ops_of((*comp_cntr).context) }.inc_err_comp_cntr else { return libc::EOPNOTSUPP };
        // SAFETY: provider op on its own counter.
        unsafe { f(comp_cntr, amount) }
    }
}

export! {
    /// ibv_read_comp_cntr@@IBVERBS_1.18: the completion count into `*value`;
    /// 0 or an errno value. A NULL `value` is handled as
    /// [`query_without_output`] says.
    fn ibv_read_comp_cntr(comp_cntr: *mut ibv_comp_cntr, value: *mut u64) -> c_int, on_panic = libc::EIO;
    {
        ensure!(usable(comp_cntr), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked above; the counter's context is a live context of this library.
        let Some(f) = unsafe { ops_of((*comp_cntr).context) }.read_comp_cntr else { return libc::EOPNOTSUPP };
        if value.is_null() {
            let mut scratch = 0u64;
            // SAFETY: provider op on its own counter, into a local.
            return query_without_output(unsafe { f(comp_cntr, &mut scratch) });
        }
        // SAFETY: provider op with the caller's arguments.
        unsafe { f(comp_cntr, value) }
    }
}

export! {
    /// ibv_read_err_comp_cntr@@IBVERBS_1.18: the error count into `*value`;
    /// 0 or an errno value. A NULL `value` is handled as
    /// [`query_without_output`] says.
    fn ibv_read_err_comp_cntr(comp_cntr: *mut ibv_comp_cntr, value: *mut u64) -> c_int, on_panic = libc::EIO;
    {
        ensure!(usable(comp_cntr), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked above; the counter's context is a live context of this library.
        let Some(f) = unsafe { ops_of((*comp_cntr).context) }.read_err_comp_cntr else { return libc::EOPNOTSUPP };
        if value.is_null() {
            let mut scratch = 0u64;
            // SAFETY: provider op on its own counter, into a local.
            return query_without_output(unsafe { f(comp_cntr, &mut scratch) });
        }
        // SAFETY: provider op with the caller's arguments.
        unsafe { f(comp_cntr, value) }
    }
}

export! {
    /// ibv_qp_attach_comp_cntr@@IBVERBS_1.18: makes the counter count the
    /// completions of the QP's operations that `attr` selects, through the
    /// ops of the QP's context; 0 or an errno value. A NULL QP (or one
    /// without its context), counter or `attr` is EINVAL.
    fn ibv_qp_attach_comp_cntr(qp: *mut ibv_qp, comp_cntr: *mut ibv_comp_cntr,
                               attr: *mut ibv_qp_attach_comp_cntr_attr) -> c_int, on_panic = libc::EIO;
    {
        // SAFETY: the QP is dereferenced only when non-NULL.
        ensure!(!qp.is_null() && !unsafe { (*qp).context }.is_null() && !comp_cntr.is_null() && !attr.is_null(),
                libc::EINVAL, libc::EINVAL);
        // SAFETY: checked above; the QP's context is a live context of this library.
        let Some(f) = unsafe { ops_of((*qp).context) }.qp_attach_comp_cntr else { return libc::EOPNOTSUPP };
        // SAFETY: provider op with the caller's arguments.
        unsafe { f(qp, comp_cntr, attr) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::driver65;
    use crate::pabi::Pabi;
    use crate::testkit::ctx::FakeCtx;
    use rdma_util::ffi::errno;
    use std::cell::RefCell;

    #[derive(Default)]
    struct Script {
        calls: Vec<String>,
        /// What every int op returns (and, when non-zero, sets errno to).
        ret: c_int,
    }

    thread_local! {
        static S: RefCell<Script> = RefCell::new(Script::default());
    }

    /// Records a call; the op's scripted result.
    fn call(what: String) -> c_int {
        S.with(|s| {
            let mut s = s.borrow_mut();
            s.calls.push(what);
            s.ret
        })
    }

    fn take_calls() -> Vec<String> {
        S.with(|s| std::mem::take(&mut s.borrow_mut().calls))
    }

    unsafe extern "C" fn p_caps(ctx: *mut ibv_context, caps: *mut ibv_comp_cntr_caps, size: usize) -> c_int {
        // SAFETY: the caller's buffer; the library zeroed it (or it is scratch).
        let c = unsafe { &mut *caps };
        let r = call(format!("caps {:x} {} {} {} {size}", ctx as usize, c.max_value, c.max_counters,
                             c.supported_qp_attach_ops));
        if r == 0 {
            c.max_value = u64::MAX >> 4;
            c.max_counters = 64;
            c.supported_qp_attach_ops = IBV_QP_ATTACH_COMP_CNTR_OP_SEND | IBV_QP_ATTACH_COMP_CNTR_OP_RECV;
        }
        r
    }
    unsafe extern "C" fn p_create(ctx: *mut ibv_context, attr: *mut ibv_comp_cntr_init_attr) -> *mut ibv_comp_cntr {
        // SAFETY: the caller's attributes.
        let a = unsafe { &*attr };
        let r = call(format!("create {:x} {} {} {}", ctx as usize, a.comp_mask, a.type_, a.flags));
        if r != 0 {
            set_errno(r);
            return ptr::null_mut();
        }
        Box::into_raw(Box::new(ibv_comp_cntr { context: ctx, handle: 9 }))
    }
    unsafe extern "C" fn p_destroy(cc: *mut ibv_comp_cntr) -> c_int {
        let r = call(format!("destroy {:x}", cc as usize));
        if r == 0 {
            // SAFETY: made by p_create.
            drop(unsafe { Box::from_raw(cc) });
        }
        r
    }
    unsafe extern "C" fn p_set(cc: *mut ibv_comp_cntr, v: u64) -> c_int {
        call(format!("set {:x} {v}", cc as usize))
    }
    unsafe extern "C" fn p_set_err(cc: *mut ibv_comp_cntr, v: u64) -> c_int {
        call(format!("set_err {:x} {v}", cc as usize))
    }
    unsafe extern "C" fn p_inc(cc: *mut ibv_comp_cntr, v: u64) -> c_int {
        call(format!("inc {:x} {v}", cc as usize))
    }
    unsafe extern "C" fn p_inc_err(cc: *mut ibv_comp_cntr, v: u64) -> c_int {
        call(format!("inc_err {:x} {v}", cc as usize))
    }
    unsafe extern "C" fn p_read(cc: *mut ibv_comp_cntr, v: *mut u64) -> c_int {
        let r = call(format!("read {:x}", cc as usize));
        if r == 0 {
            // SAFETY: the caller's (or the library's scratch) output.
            unsafe { *v = 1234 };
        }
        r
    }
    unsafe extern "C" fn p_read_err(cc: *mut ibv_comp_cntr, v: *mut u64) -> c_int {
        let r = call(format!("read_err {:x}", cc as usize));
        if r == 0 {
            // SAFETY: as above.
            unsafe { *v = 56 };
        }
        r
    }
    unsafe extern "C" fn p_attach(qp: *mut ibv_qp, cc: *mut ibv_comp_cntr, attr: *mut ibv_qp_attach_comp_cntr_attr) -> c_int {
        // SAFETY: the caller's attributes.
        let a = unsafe { &*attr };
        call(format!("attach {:x} {:x} {} {}", qp as usize, cc as usize, a.comp_mask, a.op_mask))
    }

    fn provider() -> FakeCtx {
        S.with(|s| *s.borrow_mut() = Script::default());
        let mut c = FakeCtx::with_pabi(0, Pabi::P65);
        // SAFETY: all-zero is every op unset.
        let mut ops: driver65::verbs_context_ops = unsafe { std::mem::zeroed() };
        ops.query_comp_cntr_caps = Some(p_caps);
        ops.create_comp_cntr = Some(p_create);
        ops.destroy_comp_cntr = Some(p_destroy);
        ops.set_comp_cntr = Some(p_set);
        ops.set_err_comp_cntr = Some(p_set_err);
        ops.inc_comp_cntr = Some(p_inc);
        ops.inc_err_comp_cntr = Some(p_inc_err);
        ops.read_comp_cntr = Some(p_read);
        ops.read_err_comp_cntr = Some(p_read_err);
        ops.qp_attach_comp_cntr = Some(p_attach);
        c.set_ops65(&ops);
        c
    }

    fn qp_of(ctx: *mut ibv_context) -> ibv_qp {
        // SAFETY: all-zero is a valid ibv_qp, a plain C struct.
        let mut qp: ibv_qp = unsafe { std::mem::zeroed() };
        qp.context = ctx;
        qp
    }

    #[test]
    fn every_verb_reaches_the_provider() {
        let mut c = provider();
        let ctx = c.ctx();
        let mut attr = ibv_comp_cntr_init_attr { comp_mask: 0, type_: IBV_COMP_CNTR_TYPE_BYTES, flags: 2 };
        // SAFETY: our live fake context and local attributes.
        let cc = unsafe { ibv_create_comp_cntr(ctx, &mut attr) };
        assert!(!cc.is_null());
        // SAFETY: the provider's counter.
        assert_eq!(unsafe { (*cc).context }, ctx);
        let k = cc as usize;
        let mut qp = qp_of(ctx);
        let q = &mut qp as *mut ibv_qp as usize;
        let mut at = ibv_qp_attach_comp_cntr_attr { comp_mask: 0, op_mask: IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE };
        let (mut v, mut e) = (0u64, 0u64);
        // SAFETY: the live counter and QP, local outputs.
        unsafe {
            assert_eq!(ibv_set_comp_cntr(cc, 10), 0);
            assert_eq!(ibv_set_err_comp_cntr(cc, 11), 0);
            assert_eq!(ibv_inc_comp_cntr(cc, u64::MAX), 0);
            assert_eq!(ibv_inc_err_comp_cntr(cc, 13), 0);
            assert_eq!(ibv_read_comp_cntr(cc, &mut v), 0);
            assert_eq!(ibv_read_err_comp_cntr(cc, &mut e), 0);
            assert_eq!(ibv_qp_attach_comp_cntr(&mut qp, cc, &mut at), 0);
        }
        assert_eq!((v, e), (1234, 56));
        assert_eq!(take_calls(), vec![
            format!("create {:x} 0 1 2", ctx as usize),
            format!("set {k:x} 10"),
            format!("set_err {k:x} 11"),
            format!("inc {k:x} {}", u64::MAX),
            format!("inc_err {k:x} 13"),
            format!("read {k:x}"),
            format!("read_err {k:x}"),
            format!("attach {q:x} {k:x} 0 16"),
        ]);
        // SAFETY: the live counter, released.
        assert_eq!(unsafe { ibv_destroy_comp_cntr(cc) }, 0);
        assert_eq!(take_calls(), vec![format!("destroy {k:x}")]);
    }

    #[test]
    fn provider_errors_come_back_as_they_are() {
        let mut c = provider();
        let ctx = c.ctx();
        let mut cc = ibv_comp_cntr { context: ctx, handle: 1 };
        let mut qp = qp_of(ctx);
        let mut at = ibv_qp_attach_comp_cntr_attr { comp_mask: 0, op_mask: 1 };
        let mut v = 7u64;
        S.with(|s| s.borrow_mut().ret = libc::EPERM);
        // SAFETY: a counter and QP of our fake context, local outputs.
        unsafe {
            assert_eq!(ibv_destroy_comp_cntr(&mut cc), libc::EPERM);
            assert_eq!(ibv_set_comp_cntr(&mut cc, 1), libc::EPERM);
            assert_eq!(ibv_set_err_comp_cntr(&mut cc, 1), libc::EPERM);
            assert_eq!(ibv_inc_comp_cntr(&mut cc, 1), libc::EPERM);
            assert_eq!(ibv_inc_err_comp_cntr(&mut cc, 1), libc::EPERM);
            assert_eq!(ibv_read_comp_cntr(&mut cc, &mut v), libc::EPERM);
            assert_eq!(ibv_read_err_comp_cntr(&mut cc, &mut v), libc::EPERM);
            assert_eq!(ibv_qp_attach_comp_cntr(&mut qp, &mut cc, &mut at), libc::EPERM);
        }
        assert_eq!(v, 7);
        assert_eq!(take_calls().len(), 8);
        let mut attr = ibv_comp_cntr_init_attr { comp_mask: 0, type_: IBV_COMP_CNTR_TYPE_WRS, flags: 0 };
        set_errno(0);
        // SAFETY: our live fake context and local attributes.
        assert!(unsafe { ibv_create_comp_cntr(ctx, &mut attr) }.is_null());
        assert_eq!(errno(), libc::EPERM);
    }

    #[test]
    fn caps_query_zeroes_the_callers_size_first() {
        let mut c = provider();
        let ctx = c.ctx();
        // A caller's structure with room past the one the provider knows:
        // zeroed for exactly the size passed.
        let mut buf = [u64::MAX; 3];
        // SAFETY: a 24-byte buffer, aligned for the structure, of which the
        // caller passes 20.
        let r = unsafe { _ibv_query_comp_cntr_caps(ctx, buf.as_mut_ptr().cast(), 20) };
        assert_eq!(r, 0);
        // The provider saw zeroes and the caller's size.
        assert_eq!(take_calls(), vec![format!("caps {:x} 0 0 0 20", ctx as usize)]);
        // SAFETY: an ibv_comp_cntr_caps (16 bytes) at the buffer's start.
        let caps = unsafe { buf.as_ptr().cast::<ibv_comp_cntr_caps>().read() };
        assert_eq!((caps.max_value, caps.max_counters, caps.supported_qp_attach_ops), (u64::MAX >> 4, 64, 3));
        assert_eq!(buf[2].to_ne_bytes()[..4], [0; 4]);
        assert_eq!(buf[2].to_ne_bytes()[4..], [0xff; 4]);

        // Zeroed even when the provider fails.
        let mut caps = ibv_comp_cntr_caps { max_value: 5, max_counters: 5, supported_qp_attach_ops: 5 };
        S.with(|s| s.borrow_mut().ret = libc::EINVAL);
        // SAFETY: our context and a local structure.
        let r = unsafe { _ibv_query_comp_cntr_caps(ctx, &mut caps, size_of::<ibv_comp_cntr_caps>()) };
        assert_eq!(r, libc::EINVAL);
        assert_eq!((caps.max_value, caps.max_counters, caps.supported_qp_attach_ops), (0, 0, 0));
    }

    #[test]
    fn without_the_ops_they_are_eopnotsupp() {
        for pabi in [Pabi::P34, Pabi::P65] {
            let mut c = FakeCtx::with_pabi(0, pabi);
            let ctx = c.ctx();
            let mut cc = ibv_comp_cntr { context: ctx, handle: 1 };
            let mut qp = qp_of(ctx);
            let mut at = ibv_qp_attach_comp_cntr_attr { comp_mask: 0, op_mask: 1 };
            let mut attr = ibv_comp_cntr_init_attr { comp_mask: 0, type_: IBV_COMP_CNTR_TYPE_WRS, flags: 0 };
            let mut caps = ibv_comp_cntr_caps { max_value: 5, max_counters: 5, supported_qp_attach_ops: 5 };
            let mut v = 0u64;
            set_errno(0);
            // SAFETY: objects of our fake context with the default ops.
            unsafe {
                assert_eq!(_ibv_query_comp_cntr_caps(ctx, &mut caps, size_of::<ibv_comp_cntr_caps>()), libc::EOPNOTSUPP);
                assert_eq!(ibv_destroy_comp_cntr(&mut cc), libc::EOPNOTSUPP);
                assert_eq!(ibv_set_comp_cntr(&mut cc, 1), libc::EOPNOTSUPP);
                assert_eq!(ibv_set_err_comp_cntr(&mut cc, 1), libc::EOPNOTSUPP);
                assert_eq!(ibv_inc_comp_cntr(&mut cc, 1), libc::EOPNOTSUPP);
                assert_eq!(ibv_inc_err_comp_cntr(&mut cc, 1), libc::EOPNOTSUPP);
                assert_eq!(ibv_read_comp_cntr(&mut cc, &mut v), libc::EOPNOTSUPP);
                assert_eq!(ibv_read_err_comp_cntr(&mut cc, &mut v), libc::EOPNOTSUPP);
                assert_eq!(ibv_qp_attach_comp_cntr(&mut qp, &mut cc, &mut at), libc::EOPNOTSUPP);
                // The int ops return the error and leave errno alone.
                assert_eq!(errno(), 0, "{pabi:?}");
                assert!(ibv_create_comp_cntr(ctx, &mut attr).is_null());
                assert_eq!(errno(), libc::EOPNOTSUPP, "{pabi:?}");
            }
            // The caller's structure was zeroed all the same.
            assert_eq!((caps.max_value, caps.max_counters, caps.supported_qp_attach_ops), (0, 0, 0));
        }
    }

    #[test]
    fn null_outputs_keep_upstreams_result_where_it_has_one() {
        // The default ops fail without writing: their EOPNOTSUPP, as upstream.
        let mut d = FakeCtx::with_pabi(0, Pabi::P65);
        let mut dcc = ibv_comp_cntr { context: d.ctx(), handle: 1 };
        set_errno(0);
        // SAFETY: objects of our fake context; NULL outputs on purpose.
        unsafe {
            assert_eq!(ibv_read_comp_cntr(&mut dcc, ptr::null_mut()), libc::EOPNOTSUPP);
            assert_eq!(ibv_read_err_comp_cntr(&mut dcc, ptr::null_mut()), libc::EOPNOTSUPP);
            assert_eq!(_ibv_query_comp_cntr_caps(d.ctx(), ptr::null_mut(), 0), libc::EOPNOTSUPP);
        }
        assert_eq!(errno(), 0);

        // A provider that fails: its error.
        let mut c = provider();
        let ctx = c.ctx();
        let mut cc = ibv_comp_cntr { context: ctx, handle: 1 };
        S.with(|s| s.borrow_mut().ret = libc::ENODEV);
        // SAFETY: as above.
        unsafe {
            assert_eq!(ibv_read_comp_cntr(&mut cc, ptr::null_mut()), libc::ENODEV);
            assert_eq!(ibv_read_err_comp_cntr(&mut cc, ptr::null_mut()), libc::ENODEV);
            assert_eq!(_ibv_query_comp_cntr_caps(ctx, ptr::null_mut(), 0), libc::ENODEV);
        }
        // A provider that succeeds would have written through NULL: EINVAL.
        S.with(|s| s.borrow_mut().ret = 0);
        for f in [ibv_read_comp_cntr, ibv_read_err_comp_cntr] {
            set_errno(0);
            // SAFETY: as above.
            assert_eq!(unsafe { f(&mut cc, ptr::null_mut()) }, libc::EINVAL);
            assert_eq!(errno(), libc::EINVAL);
        }
        set_errno(0);
        // SAFETY: as above.
        assert_eq!(unsafe { _ibv_query_comp_cntr_caps(ctx, ptr::null_mut(), 0) }, libc::EINVAL);
        assert_eq!(errno(), libc::EINVAL);
        let k = &mut cc as *mut ibv_comp_cntr as usize;
        assert_eq!(take_calls(), vec![
            format!("read {k:x}"),
            format!("read_err {k:x}"),
            format!("caps {:x} 0 0 0 0", ctx as usize),
            format!("read {k:x}"),
            format!("read_err {k:x}"),
            format!("caps {:x} 0 0 0 0", ctx as usize),
        ]);
    }

    #[test]
    fn null_arguments_are_einval() {
        let mut c = provider();
        let ctx = c.ctx();
        let mut cc = ibv_comp_cntr { context: ctx, handle: 1 };
        let mut orphan = ibv_comp_cntr { context: ptr::null_mut(), handle: 1 };
        let mut attr = ibv_comp_cntr_init_attr { comp_mask: 0, type_: IBV_COMP_CNTR_TYPE_WRS, flags: 0 };
        let mut at = ibv_qp_attach_comp_cntr_attr { comp_mask: 0, op_mask: 1 };
        let mut qp = qp_of(ctx);
        let mut orphan_qp = qp_of(ptr::null_mut());
        let mut v = 0u64;
        let einval = |r: c_int, what: &str| {
            assert_eq!((r, errno()), (libc::EINVAL, libc::EINVAL), "{what}");
            set_errno(0);
        };
        set_errno(0);
        // SAFETY: every call below is rejected before its NULL is used.
        unsafe {
            einval(_ibv_query_comp_cntr_caps(ptr::null_mut(), ptr::null_mut(), 0), "caps without context");
            einval(_ibv_query_comp_cntr_caps(ctx, ptr::null_mut(), 16), "caps NULL of size 16");
            assert!(ibv_create_comp_cntr(ptr::null_mut(), &mut attr).is_null());
            assert_eq!(errno(), libc::EINVAL);
            set_errno(0);
            assert!(ibv_create_comp_cntr(ctx, ptr::null_mut()).is_null());
            assert_eq!(errno(), libc::EINVAL);
            for k in [ptr::null_mut(), &mut orphan as *mut ibv_comp_cntr] {
                einval(ibv_destroy_comp_cntr(k), "destroy");
                einval(ibv_set_comp_cntr(k, 1), "set");
                einval(ibv_set_err_comp_cntr(k, 1), "set_err");
                einval(ibv_inc_comp_cntr(k, 1), "inc");
                einval(ibv_inc_err_comp_cntr(k, 1), "inc_err");
                einval(ibv_read_comp_cntr(k, &mut v), "read");
                einval(ibv_read_err_comp_cntr(k, &mut v), "read_err");
            }
            einval(ibv_qp_attach_comp_cntr(ptr::null_mut(), &mut cc, &mut at), "attach without QP");
            einval(ibv_qp_attach_comp_cntr(&mut orphan_qp, &mut cc, &mut at), "attach, QP without context");
            einval(ibv_qp_attach_comp_cntr(&mut qp, ptr::null_mut(), &mut at), "attach without counter");
            einval(ibv_qp_attach_comp_cntr(&mut qp, &mut cc, ptr::null_mut()), "attach without attr");
        }
        assert_eq!(take_calls(), Vec::<String>::new());
    }
}
