//! Completion channels and completion events (verbs.c):
//! ibv_create_comp_channel, ibv_destroy_comp_channel, ibv_get_cq_event,
//! ibv_ack_cq_events.
//!
//! A channel is a kernel event file (CREATE_COMP_CHANNEL hands back its fd)
//! from which each completion event is read as the `user_handle` the CQ was
//! created with, which is the CQ's own address. The channel's `refcnt` counts
//! the CQs bound to it (see cq.rs); it is guarded by the mutex of the
//! channel's context. Events read here are acknowledged with
//! ibv_ack_cq_events, whose count ibv_cmd_destroy_cq waits for.

use std::ffi::{c_int, c_uint, c_void};
use std::mem::size_of;
use std::ptr;

use crate::abi::kern::*;
use crate::abi::verbs::*;
use crate::cmd::write::execute_cmd_write;
use crate::ctx_priv::ops_of;
use rdma_util::ffi::set_errno;
use rdma_util::{ensure, export, export_versioned, symver};

/// Upstream's ibv_create_comp_channel: a malloc()ed channel (upstream frees
/// it with free()) on the kernel's new event fd. NULL with errno set on
/// failure.
///
/// # Safety
/// `context` is a live context of this library.
pub(crate) unsafe fn create_comp_channel(context: *mut ibv_context) -> *mut ibv_comp_channel {
    // SAFETY: plain allocation, released with free() in destroy.
    let channel = unsafe { libc::malloc(size_of::<ibv_comp_channel>()) }.cast::<ibv_comp_channel>();
    if channel.is_null() {
        set_errno(libc::ENOMEM);
        return ptr::null_mut();
    }
    let mut req = ibv_create_comp_channel::default();
    let mut resp = ib_uverbs_create_comp_channel_resp::default();
    // SAFETY: live context; request and response are locals of their sizes.
    let ret = unsafe {
        execute_cmd_write(context, &mut req, size_of::<ibv_create_comp_channel>(), &mut resp,
                          size_of::<ib_uverbs_create_comp_channel_resp>())
    };
    if ret != 0 {
        // SAFETY: allocated above, never handed out.
        unsafe { libc::free(channel.cast()) };
        set_errno(ret);
        return ptr::null_mut();
    }
    // SAFETY: the allocation is large enough for the channel.
    unsafe { channel.write(ibv_comp_channel { context, fd: resp.fd as c_int, refcnt: 0 }) };
    channel
}

/// Upstream's ibv_destroy_comp_channel: EBUSY while a CQ still uses the
/// channel, otherwise closes the fd and frees the channel (0).
///
/// # Safety
/// `channel` is a live channel whose context is live.
pub(crate) unsafe fn destroy_comp_channel(channel: *mut ibv_comp_channel) -> c_int {
    // SAFETY: the caller's live channel and its context's initialised mutex.
    unsafe {
        let m = ptr::addr_of_mut!((*(*channel).context).mutex);
        libc::pthread_mutex_lock(m);
        let ret = if (*channel).refcnt != 0 {
            libc::EBUSY
        } else {
            libc::close((*channel).fd);
            libc::free(channel.cast());
            0
        };
        libc::pthread_mutex_unlock(m);
        ret
    }
}

/// Upstream's ibv_get_cq_event: reads one event (blocking unless the fd is
/// non-blocking), names its CQ and the CQ's user context, and tells the
/// provider. 0, or -1 with errno from read() when no whole event was read.
///
/// # Safety
/// `channel` is live; `cq` and `cq_context` are writable.
pub(crate) unsafe fn get_cq_event(channel: *mut ibv_comp_channel, cq: *mut *mut ibv_cq, cq_context: *mut *mut c_void) -> c_int {
    let mut ev = ib_uverbs_comp_event_desc::default();
    let sz = size_of::<ib_uverbs_comp_event_desc>();
    // SAFETY: reading one event descriptor into a local of that size.
    let n = unsafe { libc::read((*channel).fd, ptr::addr_of_mut!(ev).cast(), sz) };
    if n != sz as isize {
        return -1;
    }
    let c = ev.cq_handle as usize as *mut ibv_cq;
    // SAFETY: the kernel reports the user_handle the CQ was created with,
    // which is the live CQ's address, and that CQ's context is a live context
    // of this library (ops_of's contract); the out-pointers are the caller's.
    unsafe {
        *cq = c;
        *cq_context = (*c).cq_context;
        if let Some(f) = ops_of((*c).context).cq_event {
            f(c);
        }
    }
    0
}

/// Upstream's ibv_ack_cq_events: counts `nevents` acknowledged completion
/// events (wrapping like the C unsigned counter) and wakes a waiting
/// destroyer.
///
/// # Safety
/// `cq` is a live CQ whose mutex and condition were initialised.
pub(crate) unsafe fn ack_cq_events(cq: *mut ibv_cq, nevents: c_uint) {
    // SAFETY: the CQ's own mutex/cond, initialised by verbs_init_cq.
    unsafe {
        libc::pthread_mutex_lock(ptr::addr_of_mut!((*cq).mutex));
        let n = ptr::addr_of_mut!((*cq).comp_events_completed);
        *n = (*n).wrapping_add(nevents);
        libc::pthread_cond_signal(ptr::addr_of_mut!((*cq).cond));
        libc::pthread_mutex_unlock(ptr::addr_of_mut!((*cq).mutex));
    }
}

export! {
    /// ibv_create_comp_channel@@IBVERBS_1.0
    fn ibv_create_comp_channel(context: *mut ibv_context) -> *mut ibv_comp_channel, on_panic = ptr::null_mut();
    {
        ensure!(!context.is_null(), libc::EINVAL, ptr::null_mut());
        // SAFETY: the caller's context (checked non-NULL).
        unsafe { create_comp_channel(context) }
    }
}

export! {
    /// ibv_destroy_comp_channel@@IBVERBS_1.0: 0, or EBUSY while CQs use it.
    fn ibv_destroy_comp_channel(channel: *mut ibv_comp_channel) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!channel.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked non-NULL; the caller's channel.
        ensure!(!unsafe { (*channel).context }.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the caller's channel with its context set.
        unsafe { destroy_comp_channel(channel) }
    }
}

export_versioned! {
    /// ibv_get_cq_event@@IBVERBS_1.1: 0 or -1 (errno set).
    fn ibv_get_cq_event_v11(channel: *mut ibv_comp_channel, cq: *mut *mut ibv_cq, cq_context: *mut *mut c_void)
        -> c_int, on_panic = -1;
    {
        ensure!(!channel.is_null(), libc::EINVAL, -1);
        if cq.is_null() || cq_context.is_null() {
            // SAFETY: checked non-NULL; the caller's channel.
            return crate::util::event_read_null_out(unsafe { (*channel).fd });
        }
        // SAFETY: checked non-NULL; the caller's channel and out-pointers.
        unsafe { get_cq_event(channel, cq, cq_context) }
    }
}
symver!(default ibv_get_cq_event, "IBVERBS_1.1", ibv_get_cq_event_v11);

export_versioned! {
    /// ibv_ack_cq_events@@IBVERBS_1.1
    fn ibv_ack_cq_events_v11(cq: *mut ibv_cq, nevents: c_uint) -> (), on_panic = ();
    {
        ensure!(!cq.is_null(), libc::EINVAL);
        // SAFETY: the caller's CQ (checked non-NULL).
        unsafe { ack_cq_events(cq, nevents) }
    }
}
symver!(default ibv_ack_cq_events, "IBVERBS_1.1", ibv_ack_cq_events_v11);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::kernel::{with_kernel, FakeKernel};
    use rdma_util::ffi::errno;
    use crate::testkit::ctx::{no_ops, FakeCtx};
    use std::cell::RefCell;

    fn pipe() -> (c_int, c_int) {
        let mut fds = [0; 2];
        // SAFETY: a two-int array for pipe(2).
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        (fds[0], fds[1])
    }

    /// A fake context whose commands travel by write().
    fn write_ctx() -> FakeCtx {
        let mut c = FakeCtx::new(0);
        // SAFETY: the context FakeCtx just created; nothing else borrows it.
        unsafe { crate::ctx_priv::priv_mut(c.ctx()).cmd.use_ioctl_write = false };
        c
    }

    /// Whether the read end of the pipe whose write end is `w` has been
    /// closed (POLLERR on the write end). Unlike checking the read end's
    /// number, this cannot be fooled by another test thread reusing it.
    fn read_end_closed(w: c_int) -> bool {
        let mut p = libc::pollfd { fd: w, events: libc::POLLOUT, revents: 0 };
        // SAFETY: one pollfd, zero timeout.
        assert_eq!(unsafe { libc::poll(&mut p, 1, 0) }, 1);
        p.revents & libc::POLLERR != 0
    }

    fn fd_open(fd: c_int) -> bool {
        // SAFETY: F_GETFD only inspects the descriptor table.
        unsafe { libc::fcntl(fd, libc::F_GETFD) != -1 }
    }

    #[test]
    fn create_sends_the_command_and_destroy_closes_the_fd() {
        let mut c = write_ctx();
        let ctx = c.ctx();
        let (r, w) = pipe();
        // The kernel answers with the read end as the event fd.
        let k = FakeKernel::new().on_write(move |cmd| {
            cmd.respond_val(ib_uverbs_create_comp_channel_resp { fd: r as u32 });
            0
        });
        // SAFETY: our live fake context.
        let (ch, sent) = with_kernel(k, || unsafe { ibv_create_comp_channel(ctx) });
        assert!(!ch.is_null());
        // CREATE_COMP_CHANNEL (17): 16 bytes in (4 words), 4 bytes out (1 word).
        let b = sent[0].write_bytes();
        assert_eq!(b.len(), 16);
        assert_eq!(&b[..8], &[17, 0, 0, 0, 4, 0, 1, 0]);
        // SAFETY: the channel just created.
        let chv = unsafe { *ch };
        assert_eq!((chv.context, chv.fd, chv.refcnt), (ctx, r, 0));
        assert!(fd_open(r));
        // SAFETY: live channel, destroyed once.
        assert_eq!(unsafe { ibv_destroy_comp_channel(ch) }, 0);
        assert!(read_end_closed(w), "destroy closes the event fd");
        // SAFETY: our own pipe end.
        unsafe { libc::close(w) };
    }

    #[test]
    fn create_failure_is_null_with_errno() {
        let mut c = write_ctx();
        let ctx = c.ctx();
        let k = FakeKernel::new().on_write(|_| libc::EMFILE);
        set_errno(0);
        // SAFETY: our live fake context.
        let (ch, _) = with_kernel(k, || unsafe { ibv_create_comp_channel(ctx) });
        assert!(ch.is_null());
        assert_eq!(errno(), libc::EMFILE);
    }

    #[test]
    fn destroy_is_ebusy_while_cqs_use_the_channel() {
        let mut c = FakeCtx::new(0);
        let (r, w) = pipe();
        // SAFETY: malloc'ed as create does, so destroy may free it.
        let ch = unsafe { libc::malloc(size_of::<ibv_comp_channel>()) }.cast::<ibv_comp_channel>();
        // SAFETY: the allocation above.
        unsafe { ch.write(ibv_comp_channel { context: c.ctx(), fd: r, refcnt: 0 }) };
        // SAFETY: all-zero is a valid CQ; verbs_init_cq takes the reference.
        let mut cq: ibv_cq = unsafe { std::mem::zeroed() };
        // SAFETY: a local CQ, the fake's live context, the live channel above.
        unsafe { crate::context::init_cq(&mut cq, c.ctx(), ch, ptr::null_mut()) };
        // SAFETY: live channel.
        assert_eq!(unsafe { ibv_destroy_comp_channel(ch) }, libc::EBUSY);
        assert!(fd_open(r));
        // SAFETY: still live (EBUSY keeps it).
        assert_eq!(unsafe { (*ch).refcnt }, 1);
        // What a successful ibv_destroy_cq gives back.
        // SAFETY: as above.
        unsafe { (*ch).refcnt -= 1 };
        // SAFETY: live channel, destroyed once.
        assert_eq!(unsafe { ibv_destroy_comp_channel(ch) }, 0);
        assert!(read_end_closed(w));
        // The context mutex is not left locked.
        // SAFETY: initialised mutex, unlocked again at once.
        unsafe {
            assert_eq!(libc::pthread_mutex_trylock(&mut (*c.ctx()).mutex), 0);
            libc::pthread_mutex_unlock(&mut (*c.ctx()).mutex);
            libc::close(w);
        }
    }

    thread_local! {
        static EVENTS: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
    }
    unsafe extern "C" fn fake_cq_event(cq: *mut ibv_cq) {
        EVENTS.with(|e| e.borrow_mut().push(cq as usize));
    }

    #[test]
    fn get_cq_event_reads_the_handle_and_calls_the_provider() {
        let mut c = FakeCtx::new(0);
        let mut ops = no_ops();
        ops.cq_event = Some(fake_cq_event);
        c.set_ops(&ops);
        let (r, w) = pipe();
        let mut ch = ibv_comp_channel { context: c.ctx(), fd: r, refcnt: 0 };
        // SAFETY: all-zero is a valid CQ.
        let mut cq: ibv_cq = unsafe { std::mem::zeroed() };
        let user = 0xabcdusize as *mut c_void;
        // SAFETY: a local CQ, the fake's live context, a local live channel.
        unsafe { crate::context::init_cq(&mut cq, c.ctx(), &mut ch, user) };
        let ev = ib_uverbs_comp_event_desc { cq_handle: &mut cq as *mut ibv_cq as usize as u64 };
        // SAFETY: writing one descriptor into our pipe.
        assert_eq!(unsafe { libc::write(w, ptr::addr_of!(ev).cast(), 8) }, 8);
        let (mut got, mut gctx) = (ptr::null_mut(), ptr::null_mut());
        // SAFETY: live channel and locals.
        assert_eq!(unsafe { ibv_get_cq_event_v11(&mut ch, &mut got, &mut gctx) }, 0);
        assert_eq!((got, gctx), (&mut cq as *mut ibv_cq, user));
        EVENTS.with(|e| assert_eq!(*e.borrow(), vec![&mut cq as *mut ibv_cq as usize]));

        // A short read is -1 (errno from read: none here, the pipe is at EOF).
        // SAFETY: our pipe's ends.
        unsafe {
            libc::write(w, [1u8, 2, 3].as_ptr().cast(), 3);
            libc::close(w);
        }
        // SAFETY: as above.
        assert_eq!(unsafe { ibv_get_cq_event_v11(&mut ch, &mut got, &mut gctx) }, -1);
        // A bad fd: read's errno.
        ch.fd = -1;
        set_errno(0);
        // SAFETY: as above.
        assert_eq!(unsafe { ibv_get_cq_event_v11(&mut ch, &mut got, &mut gctx) }, -1);
        assert_eq!(errno(), libc::EBADF);
        // SAFETY: our pipe's read end.
        unsafe { libc::close(r) };
        assert_eq!(EVENTS.with(|e| e.borrow().len()), 1);
    }

    #[test]
    fn ack_counts_and_wraps() {
        let mut c = FakeCtx::new(0);
        // SAFETY: all-zero is a valid CQ; init_cq initialises mutex and cond.
        let mut cq: ibv_cq = unsafe { std::mem::zeroed() };
        // SAFETY: a local CQ, the fake's live context, no channel.
        unsafe { crate::context::init_cq(&mut cq, c.ctx(), ptr::null_mut(), ptr::null_mut()) };
        // SAFETY: live CQ.
        unsafe {
            ibv_ack_cq_events_v11(&mut cq, 3);
            ibv_ack_cq_events_v11(&mut cq, 0);
        }
        assert_eq!(cq.comp_events_completed, 3);
        assert_eq!(cq.async_events_completed, 0);
        // SAFETY: live CQ.
        unsafe { ibv_ack_cq_events_v11(&mut cq, u32::MAX) };
        assert_eq!(cq.comp_events_completed, 2);
    }

    #[test]
    fn null_arguments_are_einval() {
        set_errno(0);
        // SAFETY: NULL is rejected before use.
        assert!(unsafe { ibv_create_comp_channel(ptr::null_mut()) }.is_null());
        assert_eq!(errno(), libc::EINVAL);
        // SAFETY: as above.
        assert_eq!(unsafe { ibv_destroy_comp_channel(ptr::null_mut()) }, libc::EINVAL);
        let mut ch = ibv_comp_channel { context: ptr::null_mut(), fd: -1, refcnt: 0 };
        // SAFETY: a channel without context is rejected.
        assert_eq!(unsafe { ibv_destroy_comp_channel(&mut ch) }, libc::EINVAL);
        let (mut cq, mut cctx) = (ptr::null_mut(), ptr::null_mut());
        set_errno(0);
        // SAFETY: as above.
        assert_eq!(unsafe { ibv_get_cq_event_v11(ptr::null_mut(), &mut cq, &mut cctx) }, -1);
        assert_eq!(errno(), libc::EINVAL);
        // SAFETY: as above.
        assert_eq!(unsafe { ibv_get_cq_event_v11(&mut ch, ptr::null_mut(), &mut cctx) }, -1);
        // SAFETY: as above.
        assert_eq!(unsafe { ibv_get_cq_event_v11(&mut ch, &mut cq, ptr::null_mut()) }, -1);
        set_errno(0);
        // SAFETY: as above.
        unsafe { ibv_ack_cq_events_v11(ptr::null_mut(), 1) };
        assert_eq!(errno(), libc::EINVAL);
    }
}
