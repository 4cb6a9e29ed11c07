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
use crate::context::{close_device, ops_of, priv_of, set_lib_ops};
use crate::device::{free_device_list, get_device_list, sysfs_of};
use crate::ffi::set_errno;
use crate::{ensure, export};

/// The body of ibv_import_device: NULL with errno set on failure. On any
/// failure after the provider took the fd, the fd is closed with the
/// context, as upstream does.
pub fn import_device(cmd_fd: c_int) -> *mut ibv_context {
    // SAFETY: all-zero is a valid struct stat; fstat only writes it.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: fstat on a caller's fd number into a local buffer.
    if unsafe { libc::fstat(cmd_fd, &mut st) } != 0 || st.st_mode & libc::S_IFMT != libc::S_IFCHR {
        set_errno(libc::EINVAL);
        return ptr::null_mut();
    }
    let list = get_device_list(ptr::null_mut());
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
        let sysfs = sysfs_of(dev);
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
pub unsafe fn import_on(vdev: *mut verbs_device, cmd_fd: c_int) -> *mut ibv_context {
    // SAFETY: devices we hand out carry their provider's ops table.
    let Some(import) = (unsafe { (*(*vdev).ops).import_context }) else {
        set_errno(libc::EOPNOTSUPP);
        return ptr::null_mut();
    };
    // SAFETY: provider op; it owns cmd_fd from here on. NULL leaves the
    // provider's errno.
    let vctx = unsafe { import(&mut (*vdev).device, cmd_fd) };
    if vctx.is_null() {
        return ptr::null_mut();
    }
    // SAFETY: the provider's new context.
    let v = unsafe { &mut *vctx };
    set_lib_ops(v);
    let ctx = &mut v.context as *mut ibv_context;
    priv_of(ctx).cmd.imported = true;
    // SAFETY: the live context just created.
    let ret = unsafe { crate::cmd::device::ibv_cmd_alloc_async_fd(ctx) };
    if ret != 0 {
        close_device(ctx);
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
        let Some(f) = ops_of(context).import_pd else {
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
        ensure!(crate::mr::pd_has_context(pd), libc::EINVAL, ());
        // SAFETY: the caller's PD, with its context set.
        if let Some(f) = ops_of(unsafe { (*pd).context }).unimport_pd {
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
        // SAFETY: the caller's PD, with its context set.
        let Some(f) = ops_of(unsafe { (*pd).context }).import_mr else {
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
        ensure!(!mr.is_null(), libc::EINVAL, ());
        // SAFETY: checked non-NULL; the caller's MR.
        let context = unsafe { (*mr).context };
        ensure!(!context.is_null(), libc::EINVAL, ());
        if let Some(f) = ops_of(context).unimport_mr {
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
        let Some(f) = ops_of(context).import_dm else {
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
        ensure!(!dm.is_null(), libc::EINVAL, ());
        // SAFETY: checked non-NULL; the caller's DM.
        let context = unsafe { (*dm).context };
        ensure!(!context.is_null(), libc::EINVAL, ());
        if let Some(f) = ops_of(context).unimport_dm {
            // SAFETY: provider op on its own DM.
            unsafe { f(dm) }
        }
    }
}
