//! Sharing objects between processes (device.c, verbs.c): a process that was
//! handed another's command fd (over a unix socket, or by fork) opens it as a
//! context with ibv_import_device, then takes over PDs, MRs and device memory
//! by their kernel handles. The unimport verbs drop the local objects without
//! destroying the kernel's.
//!
//! Everything but finding the device is the provider's work; the library
//! marks the context imported (creating objects on it then refuses the
//! write() fallback, which cannot carry the event fd the kernel needs) and
//! gives it its own async event fd.

use std::ffi::c_int;
use std::ptr;

use crate::abi::driver::*;
use crate::abi::verbs::*;
use crate::context::{close_device, set_lib_ops};
use crate::ctx_priv::{ops_of, priv_mut};
use crate::device::{free_device_list, get_device_list, sysfs_of};
use rdma_util::ffi::set_errno;
use rdma_util::{ensure, export};

/// The body of ibv_import_device: NULL with errno set on failure. On any
/// failure after the provider took the fd, the fd is closed with the
/// context, as upstream does.
pub(crate) fn import_device(cmd_fd: c_int) -> *mut ibv_context {
    // SAFETY: all-zero is a valid struct stat; fstat only writes it.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: fstat on a caller's fd number into a local buffer.
    if unsafe { libc::fstat(cmd_fd, &mut st) } != 0 || st.st_mode & libc::S_IFMT != libc::S_IFCHR {
        set_errno(libc::EINVAL);
        return ptr::null_mut();
    }
    // SAFETY: NULL: no count wanted.
    let list = unsafe { get_device_list(ptr::null_mut()) };
    if list.is_null() {
        set_errno(libc::ENODEV);
        return ptr::null_mut();
    }
    let mut found: *mut verbs_device = ptr::null_mut();
    let mut i = 0;
    loop {
        // SAFETY: the list is NULL-terminated.
        let dev = unsafe { *list.add(i) };
        if dev.is_null() {
            break;
        }
        // SAFETY: a device of the list just fetched, live until it is freed below.
        let sysfs = unsafe { sysfs_of(dev) };
        // SAFETY: the record lives as long as the device (every listed
        // device has one; checked anyway).
        if !sysfs.is_null() && unsafe { (*sysfs).sysfs_cdev } == st.st_rdev {
            found = dev.cast();
            break;
        }
        i += 1;
    }
    let ctx = if found.is_null() {
        set_errno(libc::ENODEV);
        ptr::null_mut()
    } else {
        // SAFETY: a listed device, held by the list until it is freed below
        // (the new context takes its own reference).
        unsafe { import_on(found, cmd_fd) }
    };
    // SAFETY: the list from get_device_list, freed once.
    unsafe { free_device_list(list) };
    ctx
}

/// Imports `cmd_fd` as a context of the device `vdev`.
///
/// # Safety
/// `vdev` is a live device with its provider's ops table.
pub(crate) unsafe fn import_on(vdev: *mut verbs_device, cmd_fd: c_int) -> *mut ibv_context {
    // SAFETY: devices we hand out carry their provider's ops table.
    let Some(import) = (unsafe { (*(*vdev).ops).import_context }) else {
        set_errno(libc::EOPNOTSUPP);
        return ptr::null_mut();
    };
    // SAFETY: provider op; it owns cmd_fd from here on. NULL leaves the
    // provider's errno.
    let vctx = crate::pabi::v44_of(unsafe { import(&mut (*vdev).device, cmd_fd) }, crate::loader::pabi_of_ops(unsafe { (*vdev).ops }));
    if vctx.is_null() {
        return ptr::null_mut();
    }
    // SAFETY: the provider's new context.
    let v = unsafe { &mut *vctx };
    set_lib_ops(v);
    let ctx = &mut v.context as *mut ibv_context;
    // SAFETY: the provider built it with _verbs_init_and_alloc_context (as its
    // alloc_context does) and has just returned it: a live context of this
    // library that nothing else borrows yet.
    unsafe { priv_mut(ctx).cmd.imported = true };
    // SAFETY: the live context just created.
    let ret = unsafe { crate::cmd::device::ibv_cmd_alloc_async_fd(ctx) };
    if ret != 0 {
        // SAFETY: the live context just created, closed once.
        unsafe { close_device(ctx) };
        set_errno(ret);
        return ptr::null_mut();
    }
    ctx
}

export! {
    /// ibv_import_device@@IBVERBS_1.10: a context on another process's
    /// command fd (a uverbs character device).
    fn ibv_import_device(cmd_fd: c_int) -> *mut ibv_context, on_panic = ptr::null_mut();
    {
        import_device(cmd_fd)
    }
}

export! {
    /// ibv_import_pd@@IBVERBS_1.10: the PD of kernel handle `pd_handle`.
    fn ibv_import_pd(context: *mut ibv_context, pd_handle: u32) -> *mut ibv_pd, on_panic = ptr::null_mut();
    {
        ensure!(!context.is_null(), libc::EINVAL, ptr::null_mut());
        // SAFETY: checked non-NULL; a context the application got from this library.
        let Some(f) = unsafe { ops_of(context) }.import_pd else {
            set_errno(libc::EOPNOTSUPP);
            return ptr::null_mut();
        };
        // SAFETY: provider op on the caller's context.
        unsafe { f(context, pd_handle) }
    }
}

export! {
    /// ibv_unimport_pd@@IBVERBS_1.10: frees the local PD only.
    fn ibv_unimport_pd(pd: *mut ibv_pd) -> (), on_panic = ();
    {
        ensure!(crate::mr::pd_has_context(pd), libc::EINVAL);
        // SAFETY: the caller's PD, with its context set: a live context of this library.
        if let Some(f) = unsafe { ops_of((*pd).context) }.unimport_pd {
            // SAFETY: provider op on its own PD.
            unsafe { f(pd) }
        }
    }
}

export! {
    /// ibv_import_mr@@IBVERBS_1.10: the MR of kernel handle `mr_handle` on
    /// an (imported) PD.
    fn ibv_import_mr(pd: *mut ibv_pd, mr_handle: u32) -> *mut ibv_mr, on_panic = ptr::null_mut();
    {
        ensure!(crate::mr::pd_has_context(pd), libc::EINVAL, ptr::null_mut());
        // SAFETY: the caller's PD, with its context set: a live context of this library.
        let Some(f) = unsafe { ops_of((*pd).context) }.import_mr else {
            set_errno(libc::EOPNOTSUPP);
            return ptr::null_mut();
        };
        // SAFETY: provider op on the caller's PD.
        unsafe { f(pd, mr_handle) }
    }
}

export! {
    /// ibv_unimport_mr@@IBVERBS_1.10: frees the local MR only.
    fn ibv_unimport_mr(mr: *mut ibv_mr) -> (), on_panic = ();
    {
        ensure!(!mr.is_null(), libc::EINVAL);
        // SAFETY: checked non-NULL; the caller's MR.
        let context = unsafe { (*mr).context };
        ensure!(!context.is_null(), libc::EINVAL);
        // SAFETY: checked non-NULL; the MR's context is a live context of this library.
        if let Some(f) = unsafe { ops_of(context) }.unimport_mr {
            // SAFETY: provider op on its own MR.
            unsafe { f(mr) }
        }
    }
}

export! {
    /// ibv_import_dm@@IBVERBS_1.13: the device memory of kernel handle
    /// `dm_handle`.
    fn ibv_import_dm(context: *mut ibv_context, dm_handle: u32) -> *mut ibv_dm, on_panic = ptr::null_mut();
    {
        ensure!(!context.is_null(), libc::EINVAL, ptr::null_mut());
        // SAFETY: checked non-NULL; a context the application got from this library.
        let Some(f) = unsafe { ops_of(context) }.import_dm else {
            set_errno(libc::EOPNOTSUPP);
            return ptr::null_mut();
        };
        // SAFETY: provider op on the caller's context.
        unsafe { f(context, dm_handle) }
    }
}

export! {
    /// ibv_unimport_dm@@IBVERBS_1.13: frees the local DM only.
    fn ibv_unimport_dm(dm: *mut ibv_dm) -> (), on_panic = ();
    {
        ensure!(!dm.is_null(), libc::EINVAL);
        // SAFETY: checked non-NULL; the caller's DM.
        let context = unsafe { (*dm).context };
        ensure!(!context.is_null(), libc::EINVAL);
        // SAFETY: checked non-NULL; the DM's context is a live context of this library.
        if let Some(f) = unsafe { ops_of(context) }.unimport_dm {
            // SAFETY: provider op on its own DM.
            unsafe { f(dm) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::kern::{UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE, UVERBS_OBJECT_ASYNC_EVENT};
    use crate::testkit::kernel::{with_kernel, FakeKernel};
    use crate::context::{verbs_set_ops, verbs_uninit_context, verbs_init_and_alloc_context_34};
    use crate::ctx_priv::verbs_ctx;
    use rdma_util::ffi::errno;
    use crate::testkit::ctx::{no_ops, FakeCtx};
    use std::cell::RefCell;
    use std::ffi::c_void;
    use std::sync::atomic::Ordering;

    #[derive(Default)]
    struct Script {
        /// import_context(device, cmd_fd) calls.
        imports: Vec<(usize, c_int)>,
        /// import_context fails with this errno when set.
        import_fail: Option<c_int>,
        /// Provider calls on objects: (op, object or context, handle).
        calls: Vec<(&'static str, usize, u32)>,
    }

    thread_local! {
        static S: RefCell<Script> = RefCell::new(Script::default());
    }

    fn reset() {
        S.with(|s| *s.borrow_mut() = Script::default());
    }

    fn call(op: &'static str, obj: usize, handle: u32) {
        S.with(|s| s.borrow_mut().calls.push((op, obj, handle)));
    }

    fn calls() -> Vec<(&'static str, usize, u32)> {
        S.with(|s| std::mem::take(&mut s.borrow_mut().calls))
    }

    unsafe extern "C" fn prov_free_context(ctx: *mut ibv_context) {
        let v = verbs_ctx(ctx);
        // SAFETY: our provider's context, released as a provider does.
        unsafe {
            verbs_uninit_context(v);
            libc::free(v.cast());
        }
    }

    unsafe extern "C" fn prov_import_context(dev: *mut ibv_device, cmd_fd: c_int) -> *mut verbs_context {
        let fail = S.with(|s| {
            let mut s = s.borrow_mut();
            s.imports.push((dev as usize, cmd_fd));
            s.import_fail
        });
        if let Some(e) = fail {
            set_errno(e);
            return ptr::null_mut();
        }
        // SAFETY: what a provider passes: its context is a bare verbs_context.
        let v = unsafe {
            verbs_init_and_alloc_context_34(dev, cmd_fd, std::mem::size_of::<verbs_context>(), ptr::null_mut(), 0)
        }
        .cast::<verbs_context>();
        assert!(!v.is_null());
        let mut ops = no_ops();
        ops.free_context = Some(prov_free_context);
        // SAFETY: the new context.
        unsafe { verbs_set_ops(v, &ops) };
        v
    }

    /// A device whose provider can import contexts (or not).
    fn device(dops: &verbs_device_ops) -> Box<verbs_device> {
        // SAFETY: all-zero is a valid verbs_device.
        let mut dev: Box<verbs_device> = unsafe { Box::new_zeroed().assume_init() };
        dev.ops = dops;
        dev.refcount = 1.into();
        dev
    }

    thread_local! {
        /// The inode behind each fd this test thread made with `devnull`.
        static INODES: RefCell<std::collections::HashMap<c_int, u64>> = RefCell::default();
    }

    /// A fresh fd on a file of its own (a memfd: its own inode), so that
    /// `is_open` can tell it from whatever another test thread gets under
    /// the same number once it is closed.
    fn devnull() -> c_int {
        // SAFETY: a constant NUL-terminated name.
        let fd = unsafe { libc::memfd_create(c"import-test".as_ptr(), libc::MFD_CLOEXEC) };
        assert!(fd >= 0);
        INODES.with(|m| m.borrow_mut().insert(fd, inode(fd).unwrap()));
        fd
    }

    fn inode(fd: c_int) -> Option<u64> {
        // SAFETY: all-zero is a valid stat buffer, filled by fstat.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: a stat buffer of ours.
        (unsafe { libc::fstat(fd, &mut st) } == 0).then_some(st.st_ino)
    }

    /// Whether `fd` still refers to the file `devnull` opened under it.
    fn is_open(fd: c_int) -> bool {
        let want = INODES.with(|m| m.borrow().get(&fd).copied());
        want.is_some() && inode(fd) == want
    }

    /// A kernel that answers the async fd allocation with `async_fd`, or
    /// fails it with `err`.
    fn kernel(async_fd: c_int, err: c_int) -> FakeKernel {
        FakeKernel::new().on_ioctl(move |c| {
            if c.object_id() != UVERBS_OBJECT_ASYNC_EVENT {
                return 0;
            }
            if err != 0 {
                return err;
            }
            c.set_data(UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE, async_fd as u64);
            0
        })
    }

    #[test]
    fn import_marks_the_context_and_allocates_its_async_fd() {
        reset();
        // SAFETY: all-zero is a valid ops table.
        let mut dops: verbs_device_ops = unsafe { std::mem::zeroed() };
        dops.import_context = Some(prov_import_context);
        let mut dev = device(&dops);
        let devp: *mut verbs_device = &mut *dev;
        let (cmd_fd, async_fd) = (devnull(), devnull());
        // SAFETY: a live device with a provider.
        let (ctx, sent) = with_kernel(kernel(async_fd, 0), || unsafe { import_on(devp, cmd_fd) });
        assert!(!ctx.is_null());
        S.with(|s| assert_eq!(s.borrow().imports, vec![(devp as usize, cmd_fd)]));
        // The async fd allocation reached the kernel on the imported fd.
        assert!(sent.iter().any(|x| x.ioctl().0.object_id == UVERBS_OBJECT_ASYNC_EVENT));
        // SAFETY: the context just imported.
        let c = unsafe { &*ctx };
        assert_eq!((c.cmd_fd, c.async_fd, c.device), (cmd_fd, async_fd, devp.cast::<ibv_device>()));
        // SAFETY: the context just imported, not borrowed mutably anywhere.
        assert!(unsafe { crate::ctx_priv::priv_of(ctx) }.cmd.imported);
        // The library's own entry points are in place, as for an opened one.
        // SAFETY: the containing verbs context.
        let v = unsafe { &*verbs_ctx(ctx) };
        assert_eq!(v.query_port.map(|f| f as usize), Some(crate::query::lib_query_port as *const () as usize));
        assert!(v.create_cq_ex.is_some());
        assert_eq!(dev.refcount.load(Ordering::Relaxed), 2);
        // Closing releases both fds and the device reference.
        // SAFETY: close once.
        assert_eq!(unsafe { crate::context::ibv_close_device_v11(ctx) }, 0);
        assert!(!is_open(cmd_fd) && !is_open(async_fd));
        assert_eq!(dev.refcount.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn import_failures() {
        reset();
        // A provider without import_context: EOPNOTSUPP, the fd untouched.
        // SAFETY: all-zero is a valid ops table.
        let mut dops: verbs_device_ops = unsafe { std::mem::zeroed() };
        let mut dev = device(&dops);
        let fd = devnull();
        set_errno(0);
        // SAFETY: a live device.
        assert!(unsafe { import_on(&mut *dev, fd) }.is_null());
        assert_eq!(errno(), libc::EOPNOTSUPP);
        assert!(is_open(fd));

        // The provider refuses: its errno.
        dops.import_context = Some(prov_import_context);
        let mut dev = device(&dops);
        S.with(|s| s.borrow_mut().import_fail = Some(libc::EIO));
        set_errno(0);
        // SAFETY: as above.
        assert!(unsafe { import_on(&mut *dev, fd) }.is_null());
        assert_eq!(errno(), libc::EIO);
        S.with(|s| s.borrow_mut().import_fail = None);

        // The async fd cannot be had: the context is closed again (with the
        // imported fd, as upstream) and the kernel's errno is reported.
        set_errno(0);
        // SAFETY: as above.
        let (ctx, _) = with_kernel(kernel(-1, libc::EPERM), || unsafe { import_on(&mut *dev, fd) });
        assert!(ctx.is_null());
        assert_eq!(errno(), libc::EPERM);
        assert!(!is_open(fd));
        assert_eq!(dev.refcount.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn import_device_needs_a_char_device_of_a_listed_device() {
        set_errno(0);
        // SAFETY: no fd -1: fstat fails.
        assert!(unsafe { ibv_import_device(-1) }.is_null());
        assert_eq!(errno(), libc::EINVAL);
        // A regular file.
        let f = std::fs::File::open("/proc/self/status").unwrap();
        set_errno(0);
        // SAFETY: a live fd.
        assert!(unsafe { ibv_import_device(std::os::fd::AsRawFd::as_raw_fd(&f)) }.is_null());
        assert_eq!(errno(), libc::EINVAL);
        // A character device that belongs to no RDMA device.
        // SAFETY: opening a file with a constant NUL-terminated path.
        let fd = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
        assert!(fd >= 0);
        INODES.with(|m| m.borrow_mut().insert(fd, inode(fd).unwrap()));
        set_errno(0);
        // SAFETY: a live fd.
        assert!(unsafe { ibv_import_device(fd) }.is_null());
        assert_eq!(errno(), libc::ENODEV);
        assert!(is_open(fd));
        // SAFETY: ours.
        unsafe { libc::close(fd) };
    }

    unsafe extern "C" fn prov_import_pd(context: *mut ibv_context, handle: u32) -> *mut ibv_pd {
        call("import_pd", context as usize, handle);
        if handle == 0 {
            set_errno(libc::EINVAL);
            return ptr::null_mut();
        }
        // The provider fills in the PD (the library sets nothing).
        Box::into_raw(Box::new(ibv_pd { context, handle }))
    }
    unsafe extern "C" fn prov_unimport_pd(pd: *mut ibv_pd) {
        call("unimport_pd", pd as usize, 0);
        // SAFETY: created by prov_import_pd.
        drop(unsafe { Box::from_raw(pd) });
    }
    unsafe extern "C" fn prov_import_mr(pd: *mut ibv_pd, handle: u32) -> *mut ibv_mr {
        call("import_mr", pd as usize, handle);
        // SAFETY: all-zero is a valid verbs_mr.
        let mut vmr: Box<verbs_mr> = Box::new(unsafe { std::mem::zeroed() });
        vmr.mr_type = IBV_MR_TYPE_IMPORTED_MR;
        // SAFETY: the caller's PD.
        vmr.ibv_mr.context = unsafe { (*pd).context };
        vmr.ibv_mr.handle = handle;
        Box::into_raw(vmr).cast()
    }
    unsafe extern "C" fn prov_unimport_mr(mr: *mut ibv_mr) {
        call("unimport_mr", mr as usize, 0);
        // SAFETY: created by prov_import_mr.
        drop(unsafe { Box::from_raw(mr.cast::<verbs_mr>()) });
    }
    unsafe extern "C" fn prov_import_dm(context: *mut ibv_context, handle: u32) -> *mut ibv_dm {
        call("import_dm", context as usize, handle);
        // SAFETY: all-zero is a valid ibv_dm.
        let mut dm: Box<ibv_dm> = Box::new(unsafe { std::mem::zeroed() });
        dm.context = context;
        dm.handle = handle;
        Box::into_raw(dm)
    }
    unsafe extern "C" fn prov_unimport_dm(dm: *mut ibv_dm) {
        call("unimport_dm", dm as usize, 0);
        // SAFETY: created by prov_import_dm.
        drop(unsafe { Box::from_raw(dm) });
    }

    #[test]
    fn objects_import_through_the_provider() {
        reset();
        let mut c = FakeCtx::new(0);
        let ctx = c.ctx();
        let mut ops = no_ops();
        ops.import_pd = Some(prov_import_pd);
        ops.unimport_pd = Some(prov_unimport_pd);
        ops.import_mr = Some(prov_import_mr);
        ops.unimport_mr = Some(prov_unimport_mr);
        ops.import_dm = Some(prov_import_dm);
        ops.unimport_dm = Some(prov_unimport_dm);
        c.set_ops(&ops);
        // SAFETY: our live fake context and the provider's objects, each
        // unimported once.
        unsafe {
            let pd = ibv_import_pd(ctx, 7);
            assert!(!pd.is_null());
            assert_eq!(((*pd).context, (*pd).handle), (ctx, 7));
            set_errno(0);
            assert!(ibv_import_pd(ctx, 0).is_null());
            assert_eq!(errno(), libc::EINVAL);
            let mr = ibv_import_mr(pd, 9);
            assert!(!mr.is_null());
            assert_eq!((*mr).handle, 9);
            let dm = ibv_import_dm(ctx, 11);
            assert!(!dm.is_null());
            assert_eq!(((*dm).context, (*dm).handle), (ctx, 11));
            ibv_unimport_mr(mr);
            ibv_unimport_dm(dm);
            ibv_unimport_pd(pd);
            assert_eq!(
                calls(),
                vec![
                    ("import_pd", ctx as usize, 7),
                    ("import_pd", ctx as usize, 0),
                    ("import_mr", pd as usize, 9),
                    ("import_dm", ctx as usize, 11),
                    ("unimport_mr", mr as usize, 0),
                    ("unimport_dm", dm as usize, 0),
                    ("unimport_pd", pd as usize, 0),
                ]
            );
        }
    }

    #[test]
    fn unimplemented_imports() {
        reset();
        let mut c = FakeCtx::new(0);
        let ctx = c.ctx();
        let mut pd = ibv_pd { context: ctx, handle: 1 };
        let pdp: *mut ibv_pd = &mut pd;
        // SAFETY: our context with the dummy ops; local objects on it.
        unsafe {
            let imports: [&dyn Fn() -> *mut c_void; 3] = [
                &|| ibv_import_pd(ctx, 1).cast(),
                &|| ibv_import_mr(pdp, 1).cast(),
                &|| ibv_import_dm(ctx, 1).cast(),
            ];
            for (i, f) in imports.iter().enumerate() {
                set_errno(0);
                assert!(f().is_null(), "case {i}");
                assert_eq!(errno(), libc::EOPNOTSUPP, "case {i}");
            }
            // Unimport does nothing, errno included.
            let mut vmr: verbs_mr = std::mem::zeroed();
            vmr.ibv_mr.context = ctx;
            let mut dm: ibv_dm = std::mem::zeroed();
            dm.context = ctx;
            set_errno(4321);
            ibv_unimport_pd(pdp);
            ibv_unimport_mr(&mut vmr.ibv_mr);
            ibv_unimport_dm(&mut dm);
            assert_eq!(errno(), 4321);
        }
    }

    #[test]
    fn null_arguments_are_einval() {
        // SAFETY: every unusable argument is rejected before use.
        unsafe {
            let mut no_ctx = ibv_pd { context: ptr::null_mut(), handle: 0 };
            let mut mr: ibv_mr = std::mem::zeroed();
            let mut dm: ibv_dm = std::mem::zeroed();
            let (no_ctx, mr, dm): (*mut ibv_pd, *mut ibv_mr, *mut ibv_dm) = (&mut no_ctx, &mut mr, &mut dm);
            let imports: [&dyn Fn() -> *mut c_void; 4] = [
                &|| ibv_import_pd(ptr::null_mut(), 1).cast(),
                &|| ibv_import_mr(ptr::null_mut(), 1).cast(),
                &|| ibv_import_mr(no_ctx, 1).cast(),
                &|| ibv_import_dm(ptr::null_mut(), 1).cast(),
            ];
            for (i, f) in imports.iter().enumerate() {
                set_errno(0);
                assert!(f().is_null(), "case {i}");
                assert_eq!(errno(), libc::EINVAL, "case {i}");
            }
            let unimports: [&dyn Fn(); 6] = [
                &|| ibv_unimport_pd(ptr::null_mut()),
                &|| ibv_unimport_pd(no_ctx),
                &|| ibv_unimport_mr(ptr::null_mut()),
                &|| ibv_unimport_mr(mr),
                &|| ibv_unimport_dm(ptr::null_mut()),
                &|| ibv_unimport_dm(dm),
            ];
            for (i, f) in unimports.iter().enumerate() {
                set_errno(0);
                f();
                assert_eq!(errno(), libc::EINVAL, "case {i}");
            }
        }
    }
}
