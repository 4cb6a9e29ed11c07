//! Registrable buffers (IBVERBS_1.17/1.18): ibv_alloc_buf, ibv_free_buf and
//! ibv_export_buf_dmabuf_fd. (ibv_reg_buf_mr, their registration, is with
//! the other registrations in `mr`.)
//!
//! The provider chooses where a buffer's memory comes from (ordinary memory,
//! or a dma-buf it can export); without its own ops the library's defaults
//! hand out page-aligned heap memory (see `dummy_ops`). A buffer's handle
//! (`ibv_buf`) records its PD, and through it the context whose ops free it.

use std::ffi::{c_int, c_void};
use std::ptr;

use crate::abi::driver65::ibv_buf;
use crate::abi::verbs65::*;
use crate::ctx_priv::ops_of;
use crate::mr::pd_has_context;
use rdma_util::ffi::set_errno;
use rdma_util::{ensure, export};

export! {
    /// ibv_alloc_buf@@IBVERBS_1.17: at least page-aligned memory of `size`
    /// bytes, its handle stored in `*buf`; NULL with errno set on failure.
    ///
    /// Upstream reaches the ops through the PD and stores the handle without
    /// checking either pointer: a NULL PD (or one without its context) and a
    /// NULL `buf` are EINVAL here, before anything is allocated.
    fn ibv_alloc_buf(pd: *mut ibv_pd, size: usize, buf: *mut *mut ibv_buf) -> *mut c_void,
        on_panic = ptr::null_mut();
    {
        ensure!(pd_has_context(pd) && !buf.is_null(), libc::EINVAL, ptr::null_mut());
        // SAFETY: the caller's PD, with its context set: a live context of this library.
        let Some(f) = unsafe { ops_of((*pd).context) }.alloc_buf else {
            set_errno(libc::EOPNOTSUPP);
            return ptr::null_mut();
        };
        // SAFETY: provider (or default) op with the caller's PD and out-pointer.
        unsafe { f(pd, size, buf) }
    }
}

export! {
    /// ibv_free_buf@@IBVERBS_1.17: returns a buffer of ibv_alloc_buf to the
    /// ops of its PD's context, which free both the memory and the handle.
    /// A NULL handle, or one whose PD or context is missing, is ignored with
    /// errno EINVAL (upstream would dereference it).
    fn ibv_free_buf(buf: *mut ibv_buf) -> (), on_panic = ();
    {
        ensure!(!buf.is_null(), libc::EINVAL);
        // SAFETY: checked non-NULL; the caller's handle.
        let pd = unsafe { (*buf).pd };
        ensure!(pd_has_context(pd), libc::EINVAL);
        // SAFETY: the handle's PD, with its context set: a live context of this library.
        if let Some(f) = unsafe { ops_of((*pd).context) }.free_buf {
            // SAFETY: the op of the context that allocated the buffer.
            unsafe { f(buf) }
        }
    }
}

export! {
    /// ibv_export_buf_dmabuf_fd@@IBVERBS_1.18: a new file descriptor (close
    /// on exec) for the dma-buf behind a buffer, owned by the caller; -1 with
    /// errno ENODATA when the buffer has no dma-buf, or with the errno of the
    /// duplication. No op is involved: the handle holds the descriptor. A
    /// NULL handle is -1 with errno EINVAL.
    fn ibv_export_buf_dmabuf_fd(buf: *mut ibv_buf) -> c_int, on_panic = -1;
    {
        ensure!(!buf.is_null(), libc::EINVAL, -1);
        // SAFETY: checked non-NULL; the caller's handle.
        let fd = unsafe { (*buf).dmabuf_fd };
        ensure!(fd >= 0, libc::ENODATA, -1);
        // SAFETY: fcntl on a descriptor number; an invalid one fails with EBADF.
        unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) }
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
        /// (pd, size) of each provider alloc_buf; handles of each free_buf.
        allocs: Vec<(usize, usize)>,
        frees: Vec<usize>,
    }

    thread_local! {
        static S: RefCell<Script> = RefCell::new(Script::default());
    }

    /// The fake provider's memory: a fixed address it never touches.
    const PROV_MEM: usize = 0x7700_0000;

    unsafe extern "C" fn p_alloc(pd: *mut ibv_pd, size: usize, buf: *mut *mut ibv_buf) -> *mut c_void {
        S.with(|s| s.borrow_mut().allocs.push((pd as usize, size)));
        let h = Box::into_raw(Box::new(ibv_buf { addr: PROV_MEM as *mut c_void, size, pd, dmabuf_fd: 42 }));
        // SAFETY: the out-pointer ibv_alloc_buf checked.
        unsafe { *buf = h };
        PROV_MEM as *mut c_void
    }

    unsafe extern "C" fn p_free(buf: *mut ibv_buf) {
        S.with(|s| s.borrow_mut().frees.push(buf as usize));
        // SAFETY: made by p_alloc.
        drop(unsafe { Box::from_raw(buf) });
    }

    fn provider() -> FakeCtx {
        S.with(|s| *s.borrow_mut() = Script::default());
        let mut c = FakeCtx::with_pabi(0, Pabi::P65);
        // SAFETY: all-zero is every op unset.
        let mut ops: driver65::verbs_context_ops = unsafe { std::mem::zeroed() };
        ops.alloc_buf = Some(p_alloc);
        ops.free_buf = Some(p_free);
        c.set_ops65(&ops);
        c
    }

    #[test]
    fn provider_ops_allocate_and_free() {
        let mut c = provider();
        let mut pd = ibv_pd { context: c.ctx(), handle: 1 };
        let mut h: *mut ibv_buf = ptr::null_mut();
        // SAFETY: our PD and out-pointer.
        let mem = unsafe { ibv_alloc_buf(&mut pd, 5000, &mut h) };
        assert_eq!(mem as usize, PROV_MEM);
        assert!(!h.is_null());
        S.with(|s| assert_eq!(s.borrow().allocs, vec![(&mut pd as *mut ibv_pd as usize, 5000)]));
        // SAFETY: the provider's handle.
        unsafe { ibv_free_buf(h) };
        S.with(|s| assert_eq!(s.borrow().frees, vec![h as usize]));
    }

    #[test]
    fn default_ops_hand_out_page_aligned_heap_memory() {
        // A provider of either private ABI that has no buffer ops of its own.
        for pabi in [Pabi::P34, Pabi::P65] {
            let mut c = FakeCtx::with_pabi(0, pabi);
            let mut pd = ibv_pd { context: c.ctx(), handle: 1 };
            let mut h: *mut ibv_buf = ptr::null_mut();
            // SAFETY: our PD and out-pointer.
            let mem = unsafe { ibv_alloc_buf(&mut pd, 10_000, &mut h) };
            assert!(!mem.is_null() && !h.is_null(), "{pabi:?}");
            // SAFETY: sysconf has no preconditions.
            let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
            assert_eq!(mem as usize % page, 0);
            // SAFETY: the default op's handle.
            let b = unsafe { &*h };
            assert_eq!((b.addr, b.size, b.pd, b.dmabuf_fd), (mem, 10_000, &mut pd as *mut ibv_pd, -1));
            // The memory is the caller's to use.
            // SAFETY: 10000 bytes were allocated at mem.
            unsafe { ptr::write_bytes(mem.cast::<u8>(), 0xa5, 10_000) };
            // No dma-buf behind it.
            set_errno(0);
            // SAFETY: the live handle.
            assert_eq!(unsafe { ibv_export_buf_dmabuf_fd(h) }, -1);
            assert_eq!(errno(), libc::ENODATA);
            // SAFETY: the live handle, freed by the default op.
            unsafe { ibv_free_buf(h) };
        }
    }

    #[test]
    fn export_duplicates_the_dmabuf_fd_close_on_exec() {
        let mut fds = [0; 2];
        // SAFETY: a fresh pipe stands in for a dma-buf.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        let mut b = ibv_buf { addr: ptr::null_mut(), size: 0, pd: ptr::null_mut(), dmabuf_fd: fds[0] };
        // SAFETY: a handle of our own.
        let dup = unsafe { ibv_export_buf_dmabuf_fd(&mut b) };
        assert!(dup >= 0 && dup != fds[0]);
        // SAFETY: plain fd queries on descriptors we own.
        unsafe {
            assert_eq!(libc::fcntl(dup, libc::F_GETFD) & libc::FD_CLOEXEC, libc::FD_CLOEXEC);
            let (mut a, mut d): (libc::stat, libc::stat) = (std::mem::zeroed(), std::mem::zeroed());
            assert_eq!(libc::fstat(fds[0], &mut a), 0);
            assert_eq!(libc::fstat(dup, &mut d), 0);
            assert_eq!((a.st_dev, a.st_ino), (d.st_dev, d.st_ino));
            libc::close(dup);
            libc::close(fds[0]);
            libc::close(fds[1]);
        }
        // A descriptor that is not open (past any limit, so no other test
        // thread can have opened it): fcntl's EBADF.
        b.dmabuf_fd = c_int::MAX;
        set_errno(0);
        // SAFETY: as above.
        assert_eq!(unsafe { ibv_export_buf_dmabuf_fd(&mut b) }, -1);
        assert_eq!(errno(), libc::EBADF);
        // Any negative descriptor means "no dma-buf".
        b.dmabuf_fd = -7;
        set_errno(0);
        // SAFETY: as above.
        assert_eq!(unsafe { ibv_export_buf_dmabuf_fd(&mut b) }, -1);
        assert_eq!(errno(), libc::ENODATA);
    }

    #[test]
    fn null_arguments_are_einval() {
        let mut c = provider();
        let mut pd = ibv_pd { context: c.ctx(), handle: 1 };
        let mut orphan_pd = ibv_pd { context: ptr::null_mut(), handle: 1 };
        let mut h: *mut ibv_buf = ptr::null_mut();
        for (p, out) in [
            (ptr::null_mut(), &mut h as *mut _),
            (&mut orphan_pd as *mut ibv_pd, &mut h as *mut _),
            (&mut pd as *mut ibv_pd, ptr::null_mut()),
        ] {
            set_errno(0);
            // SAFETY: rejected before use.
            assert!(unsafe { ibv_alloc_buf(p, 64, out) }.is_null());
            assert_eq!(errno(), libc::EINVAL);
        }
        let mut no_pd = ibv_buf { addr: ptr::null_mut(), size: 0, pd: ptr::null_mut(), dmabuf_fd: -1 };
        let mut no_ctx = ibv_buf { pd: &mut orphan_pd, ..no_pd };
        for b in [ptr::null_mut(), &mut no_pd as *mut ibv_buf, &mut no_ctx as *mut ibv_buf] {
            set_errno(0);
            // SAFETY: rejected before use.
            unsafe { ibv_free_buf(b) };
            assert_eq!(errno(), libc::EINVAL);
        }
        set_errno(0);
        // SAFETY: rejected before use.
        assert_eq!(unsafe { ibv_export_buf_dmabuf_fd(ptr::null_mut()) }, -1);
        assert_eq!(errno(), libc::EINVAL);
        S.with(|s| assert!(s.borrow().allocs.is_empty() && s.borrow().frees.is_empty()));
    }
}
