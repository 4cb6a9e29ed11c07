//! Device contexts: the verbs_context every provider embeds in its own
//! context structure, our private per-context data, the ops table, and the
//! public open/close/async-event entry points.
//!
//! Ownership follows upstream: the provider's alloc_context() calls
//! _verbs_init_and_alloc_context(), which calloc()s the provider's structure
//! (the provider later free()s it in its free_context op, after calling
//! verbs_uninit_context()). The command fd passed in is owned by the context
//! from then on.

use std::ffi::{c_int, c_void};
use std::ptr;

use crate::abi::driver::*;
use crate::abi::verbs::*;
use crate::abi::{driver65, verbs65};
use crate::ctx_priv::{ops_of, priv_mut, ContextPriv};
use crate::pabi::{v44_of, v44_of_v65, v65_of_v44, Pabi};
use crate::device::{device_hold, device_put, sysfs_of};
use rdma_util::ffi::set_errno;
use rdma_util::{ensure, export_versioned, symver};

/// Upstream's verbs_init_context: hold the device, set up the public fields,
/// allocate the private data with the dummy ops, and probe whether write()
/// commands can travel over the ioctl path. Takes ownership of cmd_fd (closed
/// on failure).
///
/// # Safety
/// `vctx` is the 44 view (see [`crate::ctx_priv::v44_of`]) of zeroed memory
/// large enough for a verbs_context of `pabi`'s layout.
pub(crate) unsafe fn init_context(vctx: *mut verbs_context, device: *mut ibv_device, cmd_fd: c_int, driver_id: u32, pabi: Pabi) -> c_int {
    device_hold(device);
    // SAFETY: the caller provides the context memory.
    let c = unsafe { &mut *vctx };
    c.context.device = device;
    c.context.cmd_fd = cmd_fd;
    c.context.async_fd = -1;
    // SAFETY: initialising a pthread mutex in place with default attributes.
    unsafe { libc::pthread_mutex_init(&mut c.context.mutex, ptr::null()) };
    c.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
    c.sz = match pabi {
        Pabi::P34 => std::mem::size_of::<verbs_context>(),
        Pabi::P65 => std::mem::size_of::<verbs65::verbs_context>(),
    };
    let mut state = crate::cmd::CmdCtxState::new(driver_id);
    state.pabi = pabi;
    let Ok(p) = rdma_util::fallible::try_box(ContextPriv { cmd: state, ops: crate::dummy_ops::DUMMY_OPS }) else {
        // As upstream: ENOMEM, and the command fd (ours now) closed. The
        // device's hold is released too (upstream keeps it, a leak).
        // SAFETY: cmd_fd was handed over to us and is not used again.
        unsafe { libc::close(cmd_fd) };
        device_put(device);
        set_errno(libc::ENOMEM);
        return -1;
    };
    c.priv_ = Box::into_raw(p).cast::<verbs_ex_private>();
    // SAFETY: vctx is now a valid context with dummy ops.
    unsafe { install_ops(vctx, &crate::dummy_ops::DUMMY_OPS) };
    let ctx = &mut c.context as *mut ibv_context;
    // SAFETY: ctx is a live verbs context whose priv is set.
    let use_ioctl_write = unsafe { crate::cmd::ioctl::has_ioctl_write(ctx) };
    // SAFETY: as above; the probe's shared borrows of the command state have
    // ended, and the context is not handed out yet, so this borrow is the only one.
    unsafe { priv_mut(ctx).cmd.use_ioctl_write = use_ioctl_write };
    0
}

/// The body of _verbs_init_and_alloc_context for either layout: calloc the
/// provider's structure and initialise the verbs_context at `off` in it.
///
/// # Safety
/// `device` is a live device of this library.
unsafe fn init_and_alloc_context(device: *mut ibv_device, cmd_fd: c_int, alloc_size: usize, off: usize,
                                 driver_id: u32, pabi: Pabi) -> *mut c_void {
    let vsize = match pabi {
        Pabi::P34 => std::mem::size_of::<verbs_context>(),
        Pabi::P65 => std::mem::size_of::<verbs65::verbs_context>(),
    };
    let fits = off.checked_add(vsize).is_some_and(|end| alloc_size >= end);
    if device.is_null() || !fits {
        if cmd_fd >= 0 {
            // SAFETY: we own cmd_fd from here on, as upstream does.
            unsafe { libc::close(cmd_fd) };
        }
        set_errno(libc::EINVAL);
        return ptr::null_mut();
    }
    // SAFETY: calloc, because the provider releases this with free().
    let mem = unsafe { libc::calloc(1, alloc_size) };
    if mem.is_null() {
        if cmd_fd >= 0 {
            // SAFETY: as above.
            unsafe { libc::close(cmd_fd) };
        }
        set_errno(libc::ENOMEM);
        return ptr::null_mut();
    }
    // SAFETY: off + the layout's size <= alloc_size was checked.
    let vctx = unsafe { mem.cast::<u8>().add(off) }.cast::<verbs_context>();
    // SAFETY: zeroed memory of the layout's size, seen from its 44 part.
    if unsafe { init_context(v44_of(vctx, pabi), device, cmd_fd, driver_id, pabi) } != 0 {
        // SAFETY: allocated above.
        unsafe { libc::free(mem) };
        return ptr::null_mut();
    }
    mem
}

export_versioned! {
    /// _verbs_init_and_alloc_context@IBVERBS_PRIVATE_34: allocates a provider
    /// context of `alloc_size` bytes whose verbs_context (44's layout) sits at
    /// byte offset `context_offset` (passed as a pointer value), and
    /// initialises it.
    fn verbs_init_and_alloc_context_34(device: *mut ibv_device, cmd_fd: c_int, alloc_size: usize,
                                       context_offset: *mut verbs_context, driver_id: u32) -> *mut c_void,
        on_panic = ptr::null_mut();
    {
        // SAFETY: the provider passes a device of this library.
        unsafe { init_and_alloc_context(device, cmd_fd, alloc_size, context_offset as usize, driver_id, Pabi::P34) }
    }
}
symver!(compat _verbs_init_and_alloc_context, "IBVERBS_PRIVATE_34", verbs_init_and_alloc_context_34);

export_versioned! {
    /// _verbs_init_and_alloc_context@@IBVERBS_PRIVATE_65: as the 34 one, for
    /// a verbs_context of 65's layout.
    fn verbs_init_and_alloc_context_65(device: *mut ibv_device, cmd_fd: c_int, alloc_size: usize,
                                       context_offset: *mut verbs65::verbs_context, driver_id: u32) -> *mut c_void,
        on_panic = ptr::null_mut();
    {
        // SAFETY: the provider passes a device of this library.
        unsafe { init_and_alloc_context(device, cmd_fd, alloc_size, context_offset as usize, driver_id, Pabi::P65) }
    }
}
symver!(default _verbs_init_and_alloc_context, "IBVERBS_PRIVATE_65", verbs_init_and_alloc_context_65);

/// The body of verbs_uninit_context: releases what init_context set up: the
/// private data, both fds and the device reference.
///
/// # Safety
/// `vctx` is NULL or the 44 view of a context set up by init_context, not
/// used by anyone else.
pub(crate) unsafe fn uninit_context(vctx: *mut verbs_context) {
    ensure!(!vctx.is_null(), libc::EINVAL);
    // SAFETY: the provider passes its live context.
    let c = unsafe { &mut *vctx };
    if !c.priv_.is_null() {
        // SAFETY: created by Box::into_raw in init_context.
        drop(unsafe { Box::from_raw(c.priv_.cast::<ContextPriv>()) });
        c.priv_ = ptr::null_mut();
    }
    if c.context.cmd_fd != -1 {
        // SAFETY: the context owns its command fd.
        unsafe { libc::close(c.context.cmd_fd) };
    }
    if c.context.async_fd != -1 {
        // SAFETY: the context owns its async fd.
        unsafe { libc::close(c.context.async_fd) };
    }
    device_put(c.context.device);
}

export_versioned! {
    /// verbs_uninit_context@IBVERBS_PRIVATE_34.
    fn verbs_uninit_context(vctx: *mut verbs_context) -> (), on_panic = ();
    {
        // SAFETY: the provider's own context, 44's layout.
        unsafe { uninit_context(vctx) }
    }
}
symver!(compat verbs_uninit_context, "IBVERBS_PRIVATE_34", verbs_uninit_context);

export_versioned! {
    /// verbs_uninit_context@@IBVERBS_PRIVATE_65.
    fn verbs_uninit_context_65(vctx: *mut verbs65::verbs_context) -> (), on_panic = ();
    {
        // SAFETY: the provider's own context, 65's layout.
        unsafe { uninit_context(v44_of_v65(vctx)) }
    }
}
symver!(default verbs_uninit_context, "IBVERBS_PRIVATE_65", verbs_uninit_context_65);

/// Casts any op to the `void *(*)(void)` type of ibv_context_ops' _compat_ slots.
macro_rules! as_compat {
    ($f:expr) => {
        // SAFETY: the slot only stores the address (never called through this
        // type), exactly like upstream's (void *) cast.
        // The op is cast to a data pointer first so the transmute's source
        // type can be named; fn pointers and data pointers have the same size
        // and representation on every target we build for.
        Some(unsafe {
            std::mem::transmute::<*const (), unsafe extern "C" fn() -> *mut c_void>($f as *const ())
        })
    };
}

/// Installs ops in a context: into our private table, and into the public
/// slots of verbs_context and ibv_context that inline functions of verbs.h
/// call (for a 65-layout context, also the slots in front of 44's). NULL
/// entries keep the current op, so a provider may call verbs_set_ops several
/// times.
///
/// # Safety
/// `vctx` is the 44 view of a context set up by init_context and not handed
/// out yet (nobody else borrows its private data).
pub(crate) unsafe fn install_ops(vctx: *mut verbs_context, o: &driver65::verbs_context_ops) {
    // SAFETY: the caller's live context.
    let v = unsafe { &mut *vctx };
    // SAFETY: priv was set by init_context; exclusive by the contract.
    let pr = unsafe { &mut *v.priv_.cast::<ContextPriv>() };
    if pr.cmd.pabi == Pabi::P65 {
        // SAFETY: a 65-layout context: its front slots precede the 44 view.
        let v65 = unsafe { &mut *v65_of_v44(vctx) };
        macro_rules! front { ($($n:ident),*) => {$( if o.$n.is_some() { v65.$n = o.$n; } )*} }
        front!(alloc_buf, alloc_dmah, dealloc_dmah, dm_export_dmabuf_fd, free_buf, reg_mr_ex);
    }
    let p = &mut pr.ops;
    let c = &mut v.context.ops;
    // Private only.
    macro_rules! ic { ($($n:ident),*) => {$( if o.$n.is_some() { p.$n = o.$n; } )*} }
    // Private, plus the obsolete `_compat_<name>` slot of ibv_context_ops.
    macro_rules! compat { ($($n:ident => $slot:ident),*) => {$(
        if let Some(f) = o.$n { p.$n = Some(f); c.$slot = as_compat!(f); }
    )*} }
    // Private, plus the public slot of the same name in ibv_context_ops.
    macro_rules! ctx { ($($n:ident),*) => {$( if o.$n.is_some() { p.$n = o.$n; c.$n = o.$n; } )*} }
    // Private, plus the public slot of the same name in verbs_context.
    macro_rules! vc { ($($n:ident),*) => {$( if o.$n.is_some() { p.$n = o.$n; v.$n = o.$n; } )*} }

    vc!(advise_mr, alloc_dm, alloc_null_mr, alloc_parent_domain, alloc_td,
        attach_counters_point_flow, create_counters, close_xrcd, create_flow_action_esp,
        create_qp_ex, create_rwq_ind_table, create_srq_ex, create_wq, dealloc_td,
        destroy_counters, destroy_flow_action, destroy_rwq_ind_table, destroy_wq, free_dm,
        get_srq_num, modify_cq, modify_flow_action_esp, modify_qp_rate_limit, modify_wq,
        open_qp, open_xrcd, post_srq_ops, query_device_ex, query_rt_values, read_counters,
        reg_dm_mr);
    ctx!(alloc_mw, bind_mw, dealloc_mw, poll_cq, post_recv, post_send, post_srq_recv,
         req_notify_cq);
    compat!(alloc_pd => _compat_alloc_pd, async_event => _compat_async_event,
            attach_mcast => _compat_attach_mcast, cq_event => _compat_cq_event,
            create_ah => _compat_create_ah, create_cq => _compat_create_cq,
            create_qp => _compat_create_qp, create_srq => _compat_create_srq,
            dealloc_pd => _compat_dealloc_pd, dereg_mr => _compat_dereg_mr,
            destroy_ah => _compat_destroy_ah, destroy_cq => _compat_destroy_cq,
            destroy_qp => _compat_destroy_qp, destroy_srq => _compat_destroy_srq,
            detach_mcast => _compat_detach_mcast, modify_qp => _compat_modify_qp,
            modify_srq => _compat_modify_srq, query_qp => _compat_query_qp,
            query_srq => _compat_query_srq, reg_mr => _compat_reg_mr,
            rereg_mr => _compat_rereg_mr, resize_cq => _compat_resize_cq);
    ic!(create_cq_ex, free_context, import_dm, import_mr, import_pd, query_ece, query_port,
        query_qp_data_in_order, reg_dmabuf_mr, set_ece, unimport_dm, unimport_mr, unimport_pd);
    // New in 65; their public slots (if any) were set above.
    ic!(alloc_buf, alloc_dmah, create_comp_cntr, dealloc_dmah, destroy_comp_cntr,
        dm_export_dmabuf_fd, free_buf, inc_comp_cntr, inc_err_comp_cntr, qp_attach_comp_cntr,
        query_comp_cntr_caps, query_port_speed, read_comp_cntr, read_err_comp_cntr, reg_mr_ex,
        set_comp_cntr, set_err_comp_cntr);
    // The flow ops live under other names in verbs_context.
    if let Some(f) = o.create_flow { p.create_flow = Some(f); v.ibv_create_flow = Some(f); }
    if let Some(f) = o.destroy_flow { p.destroy_flow = Some(f); v.ibv_destroy_flow = Some(f); }
}

/// A PABI 34 ops table as the 65 superset: every op by name, the ones 34
/// lacks left NULL (so installing it keeps their dummies).
pub(crate) fn ops65_of_34(o: &verbs_context_ops) -> driver65::verbs_context_ops {
    // SAFETY: a table of nullable function pointers; all-NULL is valid.
    let mut n: driver65::verbs_context_ops = unsafe { std::mem::zeroed() };
    macro_rules! same { ($($f:ident),*) => {$( n.$f = o.$f; )*} }
    same!(advise_mr, alloc_dm, alloc_mw, alloc_null_mr, alloc_parent_domain, alloc_pd, alloc_td,
          async_event, attach_counters_point_flow, attach_mcast, bind_mw, close_xrcd, cq_event,
          create_ah, create_counters, create_cq, create_cq_ex, create_flow, create_flow_action_esp,
          create_qp, create_qp_ex, create_rwq_ind_table, create_srq, create_srq_ex, create_wq,
          dealloc_mw, dealloc_pd, dealloc_td, dereg_mr, destroy_ah, destroy_counters, destroy_cq,
          destroy_flow, destroy_flow_action, destroy_qp, destroy_rwq_ind_table, destroy_srq,
          destroy_wq, detach_mcast, free_context, free_dm, get_srq_num, import_dm, import_mr,
          import_pd, modify_cq, modify_flow_action_esp, modify_qp, modify_qp_rate_limit,
          modify_srq, modify_wq, open_qp, open_xrcd, poll_cq, post_recv, post_send, post_srq_ops,
          post_srq_recv, query_device_ex, query_ece, query_qp, query_qp_data_in_order,
          query_rt_values, query_srq, read_counters, reg_dm_mr, reg_dmabuf_mr, reg_mr,
          req_notify_cq, rereg_mr, resize_cq, set_ece, unimport_dm, unimport_mr, unimport_pd);
    // 65's query_port names 65's larger ibv_port_attr; a 34 provider's op
    // writes 44's, and the library calls it only with a buffer of at least
    // that size (see query.rs).
    // SAFETY: same calling convention and arguments; only the pointee type
    // of the third argument differs.
    n.query_port = o.query_port.map(|f| unsafe {
        std::mem::transmute::<
            unsafe extern "C" fn(*mut ibv_context, u8, *mut ibv_port_attr) -> c_int,
            unsafe extern "C" fn(*mut ibv_context, u8, *mut verbs65::ibv_port_attr) -> c_int,
        >(f)
    });
    n
}

export_versioned! {
    /// verbs_set_ops@IBVERBS_PRIVATE_34: installs a PABI 34 provider's ops.
    fn verbs_set_ops(vctx: *mut verbs_context, ops: *const verbs_context_ops) -> (), on_panic = ();
    {
        ensure!(!vctx.is_null() && !ops.is_null(), libc::EINVAL);
        // SAFETY: the provider's ops table.
        let o = ops65_of_34(unsafe { &*ops });
        // SAFETY: the provider's context of 44's layout, being created.
        unsafe { install_ops(vctx, &o) }
    }
}
symver!(compat verbs_set_ops, "IBVERBS_PRIVATE_34", verbs_set_ops);

export_versioned! {
    /// verbs_set_ops@@IBVERBS_PRIVATE_65: installs a PABI 65 provider's ops.
    fn verbs_set_ops_65(vctx: *mut verbs65::verbs_context, ops: *const driver65::verbs_context_ops) -> (), on_panic = ();
    {
        ensure!(!vctx.is_null() && !ops.is_null(), libc::EINVAL);
        // SAFETY: the provider's context of 65's layout, being created, and
        // its ops table.
        unsafe { install_ops(v44_of_v65(vctx), &*ops) }
    }
}
symver!(default verbs_set_ops, "IBVERBS_PRIVATE_65", verbs_set_ops_65);

rdma_util::export_versioned! {
    /// IBVERBS_PRIVATE_34: initialises the library-owned fields of a CQ the
    /// provider created, taking a reference on its completion channel.
    fn verbs_init_cq(cq: *mut ibv_cq, context: *mut ibv_context, channel: *mut ibv_comp_channel,
                     cq_context: *mut c_void) -> (), on_panic = ();
    {
        ensure!(!cq.is_null() && !context.is_null(), libc::EINVAL);
        // SAFETY: both checked non-NULL; the provider passes its new CQ, its
        // live context and NULL or a live channel of that context.
        unsafe { init_cq(cq, context, channel, cq_context) }
    }
}
private_abi_both!(verbs_init_cq);

/// Initialises the library-owned fields of a new CQ and takes a reference on
/// its completion channel.
///
/// # Safety
/// `cq` points to a writable CQ; `context` is a live context of this library
/// (its mutex initialised); `channel` is NULL or a live channel.
pub(crate) unsafe fn init_cq(cq: *mut ibv_cq, context: *mut ibv_context, channel: *mut ibv_comp_channel, cq_context: *mut c_void) {
    // SAFETY: a writable CQ and a live context (the caller's contract).
    let q = unsafe { &mut *cq };
    q.context = context;
    q.channel = channel;
    if !channel.is_null() {
        // SAFETY: context mutex was initialised in init_context; the channel is live.
        unsafe {
            libc::pthread_mutex_lock(&mut (*context).mutex);
            (*channel).refcnt += 1;
            libc::pthread_mutex_unlock(&mut (*context).mutex);
        }
    }
    q.cq_context = cq_context;
    q.comp_events_completed = 0;
    q.async_events_completed = 0;
    // SAFETY: initialising the CQ's own mutex and condition in place.
    unsafe {
        libc::pthread_mutex_init(&mut q.mutex, ptr::null());
        libc::pthread_cond_init(&mut q.cond, ptr::null());
    }
}

/// The library's create_cq_ex entry (verbs_context.create_cq_ex): checks the
/// requested completion fields, then asks the provider.
unsafe extern "C" fn lib_create_cq_ex(context: *mut ibv_context, attr: *mut ibv_cq_init_attr_ex) -> *mut ibv_cq_ex {
    rdma_util::ffi::guard(crate::LIB_NAME, "ibv_create_cq_ex", ptr::null_mut(), || {
        ensure!(!context.is_null() && !attr.is_null(), libc::EINVAL, ptr::null_mut());
        // SAFETY: checked non-NULL; caller's attributes.
        let a = unsafe { &*attr };
        ensure!(a.wc_flags & !(IBV_CREATE_CQ_SUP_WC_FLAGS as u64) == 0, libc::EOPNOTSUPP, ptr::null_mut());
        // SAFETY: checked non-NULL; the context the application got from this
        // library (this entry is installed only in our verbs contexts).
        let Some(f) = unsafe { ops_of(context) }.create_cq_ex else { return ptr::null_mut() };
        // SAFETY: provider op with the caller's arguments.
        let cq = unsafe { f(context, attr) };
        if !cq.is_null() {
            // SAFETY: the provider's new CQ; the caller's live context and
            // NULL or live channel from the attributes.
            unsafe { init_cq(cq.cast::<ibv_cq>(), context, a.channel, a.cq_context) };
        }
        cq
    })
}

/// Upstream's set_lib_ops: entry points of the library that inline functions
/// in verbs.h reach through the context.
pub(crate) fn set_lib_ops(v: &mut verbs_context) {
    v.create_cq_ex = Some(lib_create_cq_ex);
    v.context.ops._compat_query_port = Some(crate::query::ibv_query_port_v11);
    v.query_port = Some(crate::query::lib_query_port);
    v.context.ops._compat_query_device = Some(crate::query::ibv_query_device_v11);
    // Applications built against libibverbs 1.1.8 look for the flow entry
    // points in the placeholder slots.
    // SAFETY: storing the addresses only, as upstream's casts do.
    v.ABI_placeholder1 = v.ibv_create_flow.map(|f| unsafe { std::mem::transmute::<_, unsafe extern "C" fn()>(f) });
    // SAFETY: as above.
    v.ABI_placeholder2 = v.ibv_destroy_flow.map(|f| unsafe { std::mem::transmute::<_, unsafe extern "C" fn()>(f) });
}

/// The body of verbs_open_device / ibv_open_device.
///
/// # Safety
/// `device` is a live device from this library's device list (a
/// `verbs_device` carrying its provider's ops table); `private_data` is
/// whatever that provider's alloc_context accepts.
pub(crate) unsafe fn open_device(device: *mut ibv_device, private_data: *mut c_void) -> *mut ibv_context {
    use std::os::fd::IntoRawFd;
    let vdev = device.cast::<verbs_device>();
    // SAFETY: the caller's live device from this library's device list.
    let sysfs = unsafe { sysfs_of(device) };
    let mut cmd_fd = -1;
    if !sysfs.is_null() {
        // SAFETY: the record lives as long as the device.
        let s = unsafe { &*sysfs };
        match rdma_util::cdev::open_cdev(crate::util::cstr_field(&s.sysfs_name), s.sysfs_cdev) {
            Some(fd) => cmd_fd = fd.into_raw_fd(),
            None => return ptr::null_mut(),
        }
    }
    // SAFETY: devices we hand out carry their provider's ops table.
    let ops = unsafe { &*(*vdev).ops };
    let Some(alloc) = ops.alloc_context else {
        if cmd_fd >= 0 {
            // SAFETY: we still own the fd.
            unsafe { libc::close(cmd_fd) };
        }
        set_errno(libc::EOPNOTSUPP);
        return ptr::null_mut();
    };
    // SAFETY: provider op; it owns cmd_fd from here on (closes it on failure).
    let vctx = v44_of(unsafe { alloc(device, cmd_fd, private_data) }, crate::loader::pabi_of_ops(unsafe { (*vdev).ops }));
    if vctx.is_null() {
        return ptr::null_mut();
    }
    // SAFETY: the provider's new context.
    let v = unsafe { &mut *vctx };
    set_lib_ops(v);
    let ctx = &mut v.context as *mut ibv_context;
    if !sysfs.is_null() && v.context.async_fd == -1 {
        // SAFETY: the context was just created and is live.
        let ret = unsafe { crate::cmd::device::ibv_cmd_alloc_async_fd(ctx) };
        if ret != 0 {
            // SAFETY: the live context just created, closed once.
            unsafe { close_device(ctx) };
            set_errno(ret);
            return ptr::null_mut();
        }
    }
    ctx
}

/// The body of ibv_close_device: the provider frees the context.
///
/// # Safety
/// `ctx` is a live context opened by this library; it is freed here and must
/// not be used afterwards.
pub(crate) unsafe fn close_device(ctx: *mut ibv_context) -> c_int {
    // SAFETY: the caller's live context of this library; the op is copied out
    // before free_context frees it.
    if let Some(f) = unsafe { ops_of(ctx) }.free_context {
        // SAFETY: provider op on its own context; it frees the memory.
        unsafe { f(ctx) };
    }
    0
}

rdma_util::export_versioned! {
    /// IBVERBS_PRIVATE_34: opens a device, passing provider-specific data to
    /// its alloc_context (used by mlx5dv_open_device and friends).
    fn verbs_open_device(device: *mut ibv_device, private_data: *mut c_void) -> *mut ibv_context,
        on_panic = ptr::null_mut();
    {
        ensure!(!device.is_null(), libc::EINVAL, ptr::null_mut());
        // SAFETY: checked non-NULL; the caller passes a device from
        // ibv_get_device_list and its provider's private data.
        unsafe { open_device(device, private_data) }
    }
}
private_abi_both!(verbs_open_device);

export_versioned! {
    /// ibv_open_device@@IBVERBS_1.1
    fn ibv_open_device_v11(device: *mut ibv_device) -> *mut ibv_context, on_panic = ptr::null_mut();
    {
        ensure!(!device.is_null(), libc::EINVAL, ptr::null_mut());
        // SAFETY: checked non-NULL; the caller passes a device from
        // ibv_get_device_list.
        unsafe { open_device(device, ptr::null_mut()) }
    }
}
symver!(default ibv_open_device, "IBVERBS_1.1", ibv_open_device_v11);

export_versioned! {
    /// ibv_close_device@@IBVERBS_1.1: the provider frees the context.
    fn ibv_close_device_v11(context: *mut ibv_context) -> c_int, on_panic = -1;
    {
        ensure!(!context.is_null(), libc::EINVAL, -1);
        // SAFETY: checked non-NULL; the caller passes a context it opened and
        // gives it up.
        unsafe { close_device(context) }
    }
}
symver!(default ibv_close_device, "IBVERBS_1.1", ibv_close_device_v11);

/// IB_EVENT types whose element is a QP.
fn is_qp_event(t: ibv_event_type) -> bool {
    matches!(
        t,
        IBV_EVENT_QP_FATAL
            | IBV_EVENT_QP_REQ_ERR
            | IBV_EVENT_QP_ACCESS_ERR
            | IBV_EVENT_COMM_EST
            | IBV_EVENT_SQ_DRAINED
            | IBV_EVENT_PATH_MIG
            | IBV_EVENT_PATH_MIG_ERR
            | IBV_EVENT_QP_LAST_WQE_REACHED
    )
}

/// The body of ibv_get_async_event: reads one event and lets the provider
/// see it.
///
/// # Safety
/// `context` is a live context of this library; `event` is writable.
pub(crate) unsafe fn get_async_event(context: *mut ibv_context, event: *mut ibv_async_event) -> c_int {
    let mut ev = crate::abi::kern::ib_uverbs_async_event_desc::default();
    let sz = std::mem::size_of_val(&ev);
    // SAFETY: reading one event descriptor into a local of that size.
    let n = unsafe { libc::read((*context).async_fd, &mut ev as *mut _ as *mut c_void, sz) };
    if n != sz as isize {
        return -1;
    }
    // SAFETY: the caller's event buffer (checked non-NULL).
    let e = unsafe { &mut *event };
    e.event_type = ev.event_type as ibv_event_type;
    let elem = ev.element as usize;
    match e.event_type {
        IBV_EVENT_CQ_ERR => e.element.cq = elem as *mut ibv_cq,
        t if is_qp_event(t) => e.element.qp = elem as *mut ibv_qp,
        IBV_EVENT_SRQ_ERR | IBV_EVENT_SRQ_LIMIT_REACHED => e.element.srq = elem as *mut ibv_srq,
        IBV_EVENT_WQ_FATAL => e.element.wq = elem as *mut ibv_wq,
        _ => e.element.port_num = ev.element as c_int,
    }
    // SAFETY: the caller's live context of this library.
    if let Some(f) = unsafe { ops_of(context) }.async_event {
        // SAFETY: provider op with the event just read.
        unsafe { f(context, event) };
    }
    0
}

/// Counts one acknowledged event on an object and wakes its destroyer.
///
/// # Safety
/// The three pointers belong to one live object.
unsafe fn ack_one(mutex: *mut libc::pthread_mutex_t, cond: *mut libc::pthread_cond_t, counter: *mut u32) {
    // SAFETY: the object's own mutex/cond, initialised at creation.
    unsafe {
        libc::pthread_mutex_lock(mutex);
        *counter += 1;
        libc::pthread_cond_signal(cond);
        libc::pthread_mutex_unlock(mutex);
    }
}

/// The body of ibv_ack_async_event.
///
/// # Safety
/// `event` is an event filled in by ibv_get_async_event whose element (the
/// object its type names) is still live.
pub(crate) unsafe fn ack_async_event(event: *mut ibv_async_event) {
    // SAFETY: the caller passes an event from ibv_get_async_event.
    let e = unsafe { &mut *event };
    // SAFETY: the element named by the event type is a live object.
    unsafe {
        match e.event_type {
            IBV_EVENT_CQ_ERR => {
                let cq = e.element.cq;
                ack_one(&mut (*cq).mutex, &mut (*cq).cond, &mut (*cq).async_events_completed);
            }
            t if is_qp_event(t) => {
                let qp = e.element.qp;
                ack_one(&mut (*qp).mutex, &mut (*qp).cond, &mut (*qp).events_completed);
            }
            IBV_EVENT_SRQ_ERR | IBV_EVENT_SRQ_LIMIT_REACHED => {
                let srq = e.element.srq;
                ack_one(&mut (*srq).mutex, &mut (*srq).cond, &mut (*srq).events_completed);
            }
            IBV_EVENT_WQ_FATAL => {
                let wq = e.element.wq;
                ack_one(&mut (*wq).mutex, &mut (*wq).cond, &mut (*wq).events_completed);
            }
            _ => {}
        }
    }
}

export_versioned! {
    /// ibv_get_async_event@@IBVERBS_1.1: blocks (unless async_fd is
    /// non-blocking) for the next asynchronous event.
    fn ibv_get_async_event_v11(context: *mut ibv_context, event: *mut ibv_async_event) -> c_int, on_panic = -1;
    {
        ensure!(!context.is_null(), libc::EINVAL, -1);
        if event.is_null() {
            // SAFETY: checked non-NULL; the caller's context.
            return crate::util::event_read_null_out(unsafe { (*context).async_fd });
        }
        // SAFETY: both checked non-NULL; the caller's live context and event
        // buffer.
        unsafe { get_async_event(context, event) }
    }
}
symver!(default ibv_get_async_event, "IBVERBS_1.1", ibv_get_async_event_v11);

export_versioned! {
    /// ibv_ack_async_event@@IBVERBS_1.1
    fn ibv_ack_async_event_v11(event: *mut ibv_async_event) -> (), on_panic = ();
    {
        ensure!(!event.is_null(), libc::EINVAL);
        // SAFETY: checked non-NULL; the caller acks an event it got from
        // ibv_get_async_event, before destroying its object.
        unsafe { ack_async_event(event) }
    }
}
symver!(default ibv_ack_async_event, "IBVERBS_1.1", ibv_ack_async_event_v11);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ctx_priv::verbs_ctx;
    use crate::testkit::ctx::{no_ops, FakeCtx};
    use std::mem::offset_of;

    unsafe extern "C" fn p_alloc_dmah(_: *mut ibv_context, _: *mut verbs65::ibv_dmah_init_attr) -> *mut verbs65::ibv_dmah {
        ptr::null_mut()
    }
    unsafe extern "C" fn p_alloc_pd(_: *mut ibv_context) -> *mut ibv_pd {
        ptr::null_mut()
    }

    #[test]
    fn a_65_context_has_65s_size_and_front_slots() {
        let mut f = FakeCtx::with_pabi(0, Pabi::P65);
        // The dummies are in the front slots from the start, and the size is
        // 65's, so verbs.h's verbs_get_ctx_op finds them.
        assert_eq!(f.v65().sz, std::mem::size_of::<verbs65::verbs_context>());
        let dummy = crate::dummy_ops::DUMMY_OPS.alloc_dmah;
        assert_eq!(f.v65().alloc_dmah.map(|p| p as usize), dummy.map(|p| p as usize));
        // SAFETY: all-NULL is a valid ops table.
        let mut ops: driver65::verbs_context_ops = unsafe { std::mem::zeroed() };
        ops.alloc_dmah = Some(p_alloc_dmah);
        ops.alloc_pd = Some(p_alloc_pd);
        // SAFETY: the provider's view: the whole context in 65's layout.
        unsafe { verbs_set_ops_65(f.v65(), &ops) };
        assert_eq!(f.v65().alloc_dmah.map(|p| p as usize), Some(p_alloc_dmah as *const () as usize));
        // A slot 44 also has, reached through the 65 layout and the 44 view alike.
        assert_eq!(f.v65().context.ops._compat_alloc_pd.map(|p| p as usize), Some(p_alloc_pd as *const () as usize));
        // SAFETY: the context is live.
        assert_eq!(unsafe { ops_of(f.ctx()) }.alloc_pd.map(|p| p as usize), Some(p_alloc_pd as *const () as usize));
        // SAFETY: as above.
        assert_eq!(unsafe { (*f.vctx()).context.ops._compat_alloc_pd }.map(|p| p as usize), Some(p_alloc_pd as *const () as usize));
    }

    #[test]
    fn a_34_context_keeps_44s_size_and_nothing_in_front() {
        let mut f = FakeCtx::with_pabi(0, Pabi::P34);
        // SAFETY: the context is live.
        assert_eq!(unsafe { (*f.vctx()).sz }, std::mem::size_of::<verbs_context>());
        // The 34 table has no alloc_dmah: the op stays the dummy, EOPNOTSUPP.
        // SAFETY: all-NULL is a valid ops table.
        let ops: verbs_context_ops = unsafe { std::mem::zeroed() };
        f.set_ops(&ops);
        // SAFETY: the context is live.
        let op = unsafe { ops_of(f.ctx()) }.alloc_dmah.unwrap();
        rdma_util::ffi::set_errno(0);
        // SAFETY: the dummy reads nothing.
        assert!(unsafe { op(f.ctx(), ptr::null_mut()) }.is_null());
        assert_eq!(rdma_util::ffi::errno(), libc::EOPNOTSUPP);
    }

    #[test]
    fn init_cq_takes_a_channel_reference() {
        let mut f = FakeCtx::new(0);
        let ctx = f.ctx();
        // SAFETY: all-zero CQ and channel are valid plain data.
        let mut cq: ibv_cq = unsafe { std::mem::zeroed() };
        let mut ch: ibv_comp_channel = unsafe { std::mem::zeroed() };
        ch.refcnt = 3;
        cq.comp_events_completed = 7;
        cq.async_events_completed = 9;
        let marker = 0x1234usize as *mut c_void;
        // SAFETY: live context, local objects.
        unsafe { verbs_init_cq(&mut cq, ctx, &mut ch, marker) };
        assert_eq!(ch.refcnt, 4);
        assert_eq!(cq.context, ctx);
        assert_eq!(cq.channel, &mut ch as *mut ibv_comp_channel);
        assert_eq!(cq.cq_context, marker);
        assert_eq!((cq.comp_events_completed, cq.async_events_completed), (0, 0));
        // Without a channel nothing is counted.
        // SAFETY: as above.
        unsafe { verbs_init_cq(&mut cq, ctx, ptr::null_mut(), ptr::null_mut()) };
        assert_eq!(ch.refcnt, 4);
        assert!(cq.channel.is_null());
    }

    #[test]
    fn ack_counts_per_object_type() {
        // SAFETY: all-zero objects; their mutex/cond are initialised below.
        let (mut cq, mut qp, mut srq, mut wq): (ibv_cq, ibv_qp, ibv_srq, ibv_wq) =
            unsafe { (std::mem::zeroed(), std::mem::zeroed(), std::mem::zeroed(), std::mem::zeroed()) };
        // SAFETY: initialising the objects' own mutex and condition in place.
        unsafe {
            libc::pthread_mutex_init(&mut cq.mutex, ptr::null());
            libc::pthread_cond_init(&mut cq.cond, ptr::null());
            libc::pthread_mutex_init(&mut qp.mutex, ptr::null());
            libc::pthread_cond_init(&mut qp.cond, ptr::null());
            libc::pthread_mutex_init(&mut srq.mutex, ptr::null());
            libc::pthread_cond_init(&mut srq.cond, ptr::null());
            libc::pthread_mutex_init(&mut wq.mutex, ptr::null());
            libc::pthread_cond_init(&mut wq.cond, ptr::null());
        }
        // SAFETY: all-zero is a valid event.
        let mut ev: ibv_async_event = unsafe { std::mem::zeroed() };
        let mut ack = |t: ibv_event_type, set: &dyn Fn(&mut ibv_async_event)| {
            ev.event_type = t;
            set(&mut ev);
            // SAFETY: the element is a live local object.
            unsafe { ibv_ack_async_event_v11(&mut ev) };
        };
        let (pcq, pqp, psrq, pwq) = (&mut cq as *mut _, &mut qp as *mut _, &mut srq as *mut _, &mut wq as *mut _);
        ack(IBV_EVENT_CQ_ERR, &|e| e.element.cq = pcq);
        for t in [IBV_EVENT_QP_FATAL, IBV_EVENT_COMM_EST, IBV_EVENT_QP_LAST_WQE_REACHED] {
            ack(t, &|e| e.element.qp = pqp);
        }
        ack(IBV_EVENT_SRQ_LIMIT_REACHED, &|e| e.element.srq = psrq);
        ack(IBV_EVENT_SRQ_ERR, &|e| e.element.srq = psrq);
        ack(IBV_EVENT_WQ_FATAL, &|e| e.element.wq = pwq);
        // Port and device events touch no object.
        ack(IBV_EVENT_PORT_ACTIVE, &|e| e.element.port_num = 1);
        assert_eq!(cq.async_events_completed, 1);
        assert_eq!(cq.comp_events_completed, 0);
        assert_eq!(qp.events_completed, 3);
        assert_eq!(srq.events_completed, 2);
        assert_eq!(wq.events_completed, 1);
    }

    unsafe extern "C" fn prov_poll_cq(_: *mut ibv_cq, _: c_int, _: *mut ibv_wc) -> c_int {
        42
    }
    unsafe extern "C" fn prov_alloc_pd(_: *mut ibv_context) -> *mut ibv_pd {
        ptr::null_mut()
    }
    unsafe extern "C" fn prov_create_flow(_: *mut ibv_qp, _: *mut ibv_flow_attr) -> *mut ibv_flow {
        ptr::null_mut()
    }

    #[test]
    fn set_ops_fills_public_and_compat_slots() {
        let mut f = FakeCtx::new(0);
        let ctx = f.ctx();
        // After init every slot holds a dummy op.
        // SAFETY: live context.
        let poll = unsafe { (*ctx).ops.poll_cq.unwrap() };
        // SAFETY: the dummy takes no action on its arguments.
        assert_eq!(unsafe { poll(ptr::null_mut(), 0, ptr::null_mut()) }, libc::EOPNOTSUPP);
        let mut ops = no_ops();
        ops.poll_cq = Some(prov_poll_cq);
        ops.alloc_pd = Some(prov_alloc_pd);
        ops.create_flow = Some(prov_create_flow);
        f.set_ops(&ops);
        // SAFETY: live context.
        let c = unsafe { &*ctx };
        assert_eq!(c.ops.poll_cq.map(|f| f as usize), Some(prov_poll_cq as *const () as usize));
        assert_eq!(c.ops._compat_alloc_pd.map(|f| f as usize), Some(prov_alloc_pd as *const () as usize));
        // SAFETY: our live context, not borrowed mutably anywhere.
        assert_eq!(unsafe { ops_of(ctx) }.alloc_pd.map(|f| f as usize), Some(prov_alloc_pd as *const () as usize));
        // SAFETY: the containing verbs context.
        let v = unsafe { &*verbs_ctx(ctx) };
        assert_eq!(v.ibv_create_flow.map(|f| f as usize), Some(prov_create_flow as *const () as usize));
        // A second call with NULL entries keeps what is there.
        f.set_ops(&no_ops());
        // SAFETY: our live context, not borrowed mutably anywhere.
        assert_eq!(unsafe { ops_of(ctx) }.alloc_pd.map(|f| f as usize), Some(prov_alloc_pd as *const () as usize));
    }

    /// A provider's alloc_context, as rxe does it: wrap a verbs_context in a
    /// larger structure through _verbs_init_and_alloc_context.
    #[repr(C)]
    struct ProvCtx {
        before: [u64; 3],
        vctx: verbs_context,
        after: u64,
    }
    static SEEN_PRIVATE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    unsafe extern "C" fn prov_free_context(ctx: *mut ibv_context) {
        let v = verbs_ctx(ctx);
        // SAFETY: our provider's context: release as a provider does.
        unsafe {
            verbs_uninit_context(v);
            libc::free(v.cast::<u8>().sub(offset_of!(ProvCtx, vctx)).cast());
        }
    }
    unsafe extern "C" fn prov_alloc_context(dev: *mut ibv_device, fd: c_int, private: *mut c_void) -> *mut verbs_context {
        SEEN_PRIVATE.store(private as usize, std::sync::atomic::Ordering::Relaxed);
        // SAFETY: exactly what providers pass.
        let p = unsafe {
            verbs_init_and_alloc_context_34(dev, fd, std::mem::size_of::<ProvCtx>(), offset_of!(ProvCtx, vctx) as *mut verbs_context, 0)
        }
        .cast::<ProvCtx>();
        if p.is_null() {
            return ptr::null_mut();
        }
        let mut ops = no_ops();
        ops.free_context = Some(prov_free_context);
        // SAFETY: the new provider context.
        unsafe {
            verbs_set_ops(&mut (*p).vctx, &ops);
            &mut (*p).vctx
        }
    }

    #[test]
    fn open_device_through_a_provider() {
        // SAFETY: all-zero ops table and device are valid.
        let mut dops: verbs_device_ops = unsafe { std::mem::zeroed() };
        dops.alloc_context = Some(prov_alloc_context);
        let mut dev: Box<verbs_device> = unsafe { Box::new_zeroed().assume_init() };
        dev.ops = &dops;
        dev.refcount = 1.into();
        let d = &mut dev.device as *mut ibv_device;
        let marker = 0x5150usize as *mut c_void;
        // No sysfs record: no char device to open, no async fd to allocate.
        // SAFETY: a live device with a provider.
        let ctx = unsafe { verbs_open_device(d, marker) };
        assert!(!ctx.is_null());
        assert_eq!(SEEN_PRIVATE.load(std::sync::atomic::Ordering::Relaxed), 0x5150);
        assert_eq!(dev.refcount.load(std::sync::atomic::Ordering::Relaxed), 2);
        // SAFETY: the context just opened.
        let c = unsafe { &*ctx };
        assert_eq!(c.device, d);
        assert_eq!(c.cmd_fd, -1);
        assert_eq!(c.abi_compat, __VERBS_ABI_IS_EXTENDED);
        // SAFETY: containing verbs context.
        let v = unsafe { &*verbs_ctx(ctx) };
        assert_eq!(v.sz, std::mem::size_of::<verbs_context>());
        // The library's own entry points for the inline verbs.h functions.
        assert_eq!(v.query_port.map(|f| f as usize), Some(crate::query::lib_query_port as *const () as usize));
        assert!(v.create_cq_ex.is_some());
        // SAFETY: close once.
        assert_eq!(unsafe { ibv_close_device_v11(ctx) }, 0);
        assert_eq!(dev.refcount.load(std::sync::atomic::Ordering::Relaxed), 1);
        // NULL device: EINVAL, no crash.
        // SAFETY: NULL is checked.
        assert!(unsafe { verbs_open_device(ptr::null_mut(), ptr::null_mut()) }.is_null());
        assert_eq!(rdma_util::ffi::errno(), libc::EINVAL);
    }
}
