//! The libibverbs functions a provider calls, resolved at run time.
//!
//! A provider has no link-time reference to libibverbs: the same file must
//! load into a library that only has IBVERBS_PRIVATE_34 (Debian 12, 13),
//! one that only has IBVERBS_PRIVATE_65 (sid) and ours (both). The
//! constructor resolves every name below with `dlvsym` at the version of
//! the chosen private ABI ([`Verbs::resolve`]); one missing name and the
//! provider registers nothing.
//!
//! Each function is typed with its prototype in rdma-abi
//! (`rdma_abi::proto::driver::{pabi34, pabi65}`), the types libibverbs-rs
//! checks its own exports against, so the two sides cannot drift apart.
//! Most functions have one prototype in both ABIs (`same_in_both!` holds
//! the provider to that); those whose arguments or pointed-to layouts
//! differ are resolved into [`Fns34`] or [`Fns65`] ([`ByAbi`]), and reached
//! through a method that takes the provider's pointer and hands each ABI
//! its own type, with 65's new arguments NULL, as rdma-core 65's providers
//! pass them.
//!
//! The context pointers taken here are the `verbs_context` of the ABI in
//! use, typed as 44's ([`crate::context::ContextFrame::vctx`]): under 65 it
//! is 65's `verbs_context`, which the methods cast back to its own type.

use core::ffi::{c_int, c_void, CStr};
use std::sync::OnceLock;

use rdma_abi::driver::pabi34_v44::{verbs_cq, verbs_device_ops, verbs_qp};
use rdma_abi::driver::pabi65;
use rdma_abi::kern::*;
use rdma_abi::proto::driver::{pabi34 as p34, pabi65 as p65};
use rdma_abi::verbs::*;
use rdma_abi::verbs_v65;

use crate::pabi::Pabi;

/// Asserts at compile time that each named function has one prototype in
/// both ABIs (rdma-abi's 65 type is 34's), so one field of [`Verbs`]
/// serves both. A function that gains a 65 form of its own stops the build
/// here, and moves to [`Fns34`] / [`Fns65`].
macro_rules! same_in_both {
    ($($f:ident)*) => {
        $(const _: fn(p65::$f) -> p34::$f = |f| f;)*
    };
}

same_in_both!(
    ibv_cmd_query_device_any ibv_cmd_alloc_pd ibv_cmd_dealloc_pd ibv_cmd_reg_mr ibv_cmd_dereg_mr
    ibv_cmd_advise_mr ibv_cmd_alloc_mw ibv_cmd_dealloc_mw ibv_cmd_create_cq ibv_cmd_req_notify_cq
    ibv_cmd_resize_cq ibv_cmd_destroy_cq ibv_cmd_create_srq ibv_cmd_create_srq_ex
    ibv_cmd_modify_srq ibv_cmd_query_srq ibv_cmd_destroy_srq ibv_cmd_create_qp ibv_cmd_query_qp
    ibv_cmd_modify_qp ibv_cmd_destroy_qp ibv_cmd_create_ah ibv_cmd_destroy_ah
    ibv_cmd_attach_mcast ibv_cmd_detach_mcast
);

// 65 renames verbs_device_ops only so that its members name 65's types; the
// provider's table (44's type) is handed to either registration.
const _: () = assert!(size_of::<verbs_device_ops>() == size_of::<pabi65::verbs_device_ops>());

/// The functions whose IBVERBS_PRIVATE_34 prototype differs from 65's, as
/// the 34 library has them.
pub struct Fns34 {
    pub register_driver: p34::verbs_register_driver_34,
    pub init_and_alloc_context: p34::_verbs_init_and_alloc_context,
    pub uninit_context: p34::verbs_uninit_context,
    pub set_ops: p34::verbs_set_ops,
    pub log: p34::__verbs_log,
    pub cmd_get_context: p34::ibv_cmd_get_context,
    pub cmd_query_port: p34::ibv_cmd_query_port,
    pub cmd_create_cq_ex: p34::ibv_cmd_create_cq_ex,
    pub cmd_create_qp_ex2: p34::ibv_cmd_create_qp_ex2,
}

/// The same functions as the 65 library has them.
pub struct Fns65 {
    pub register_driver: p65::verbs_register_driver_65,
    pub init_and_alloc_context: p65::_verbs_init_and_alloc_context,
    pub uninit_context: p65::verbs_uninit_context,
    pub set_ops: p65::verbs_set_ops,
    pub log: p65::__verbs_log,
    pub cmd_get_context: p65::ibv_cmd_get_context,
    pub cmd_query_port: p65::ibv_cmd_query_port,
    pub cmd_create_cq_ex: p65::ibv_cmd_create_cq_ex,
    pub cmd_create_qp_ex2: p65::ibv_cmd_create_qp_ex2,
}

/// The functions of one ABI or the other's.
pub enum ByAbi {
    V34(Fns34),
    V65(Fns65),
}

/// `__verbs_log` with the context it logs for, each of its ABI's type: what
/// [`verbs_log!`](crate::verbs_log) calls. A C-variadic function cannot be
/// wrapped, so the caller makes the call.
#[derive(Clone, Copy)]
pub enum VerbsLog {
    V34(p34::__verbs_log, *mut verbs_context),
    V65(p65::__verbs_log, *mut verbs_v65::verbs_context),
}

/// Calls `__verbs_log` of a [`VerbsLog`] with a level, a printf format (a C
/// string pointer) and its arguments, whichever ABI it is of.
///
/// ```ignore
/// verbs_log!(log, VERBS_LOG_ERR, c"%s\n".as_ptr(), msg.as_ptr());
/// ```
/// Unsafe: the arguments must be what the format's conversions take.
#[macro_export]
macro_rules! verbs_log {
    ($log:expr, $level:expr, $fmt:expr $(, $arg:expr)* $(,)?) => {
        match $log {
            $crate::verbs::VerbsLog::V34(f, vctx) => f(vctx, $level, $fmt $(, $arg)*),
            $crate::verbs::VerbsLog::V65(f, vctx) => f(vctx, $level, $fmt $(, $arg)*),
        }
    };
}

/// Every libibverbs function a provider may call, resolved for one private
/// ABI. Names follow the C functions without their `ibv_`/`verbs_` prefix
/// (`cmd_alloc_pd` is `ibv_cmd_alloc_pd`); the ones that differ between the
/// ABIs are in [`Verbs::by_abi`], reached through the methods.
pub struct Verbs {
    /// The private ABI the functions were resolved for.
    pub pabi: Pabi,
    /// The functions whose prototype differs between the ABIs.
    pub by_abi: ByAbi,
    pub cmd_query_device_any: p34::ibv_cmd_query_device_any,
    pub cmd_alloc_pd: p34::ibv_cmd_alloc_pd,
    pub cmd_dealloc_pd: p34::ibv_cmd_dealloc_pd,
    pub cmd_reg_mr: p34::ibv_cmd_reg_mr,
    pub cmd_dereg_mr: p34::ibv_cmd_dereg_mr,
    pub cmd_advise_mr: p34::ibv_cmd_advise_mr,
    pub cmd_alloc_mw: p34::ibv_cmd_alloc_mw,
    pub cmd_dealloc_mw: p34::ibv_cmd_dealloc_mw,
    pub cmd_create_cq: p34::ibv_cmd_create_cq,
    pub cmd_req_notify_cq: p34::ibv_cmd_req_notify_cq,
    pub cmd_resize_cq: p34::ibv_cmd_resize_cq,
    pub cmd_destroy_cq: p34::ibv_cmd_destroy_cq,
    pub cmd_create_srq: p34::ibv_cmd_create_srq,
    pub cmd_create_srq_ex: p34::ibv_cmd_create_srq_ex,
    pub cmd_modify_srq: p34::ibv_cmd_modify_srq,
    pub cmd_query_srq: p34::ibv_cmd_query_srq,
    pub cmd_destroy_srq: p34::ibv_cmd_destroy_srq,
    pub cmd_create_qp: p34::ibv_cmd_create_qp,
    pub cmd_query_qp: p34::ibv_cmd_query_qp,
    pub cmd_modify_qp: p34::ibv_cmd_modify_qp,
    pub cmd_destroy_qp: p34::ibv_cmd_destroy_qp,
    pub cmd_create_ah: p34::ibv_cmd_create_ah,
    pub cmd_destroy_ah: p34::ibv_cmd_destroy_ah,
    pub cmd_attach_mcast: p34::ibv_cmd_attach_mcast,
    pub cmd_detach_mcast: p34::ibv_cmd_detach_mcast,
    /// `ibv_query_gid@IBVERBS_1.1`.
    pub query_gid: rdma_abi::proto::verbs::ibv_query_gid,
    /// `ibv_resolve_eth_l2_from_gid@IBVERBS_1.1`.
    pub resolve_eth_l2_from_gid: rdma_abi::proto::verbs::ibv_resolve_eth_l2_from_gid,
}

static VERBS: OnceLock<Verbs> = OnceLock::new();

/// The table the constructor resolved. Every op of a provider runs after a
/// successful registration, so it is always there for them.
#[inline]
pub fn verbs() -> &'static Verbs {
    match VERBS.get() {
        Some(v) => v,
        None => not_resolved(),
    }
}

/// The table, if the constructor resolved one.
pub fn try_verbs() -> Option<&'static Verbs> {
    VERBS.get()
}

#[cold]
#[inline(never)]
fn not_resolved() -> ! {
    // Unreachable through libibverbs: ops exist only after registration.
    // The op's guard turns this into an error return.
    panic!("provider op called before libibverbs was bound")
}

/// `dlvsym(handle, name, version)` as a function pointer of type `F`.
///
/// # Safety
/// `F` is a function pointer type matching the C function's signature.
unsafe fn sym<F: Copy>(h: *mut c_void, name: &CStr, version: &CStr) -> Option<F> {
    const { assert!(size_of::<F>() == size_of::<*mut c_void>()) };
    // SAFETY: both strings are NUL-terminated; h is a dlopen handle.
    let p = unsafe { libc::dlvsym(h, name.as_ptr(), version.as_ptr()) };
    if p.is_null() {
        None
    } else {
        // SAFETY: F is a function pointer type (the caller's promise) of the
        // same size as the symbol's address.
        Some(unsafe { core::mem::transmute_copy::<*mut c_void, F>(&p) })
    }
}

impl Verbs {
    /// Resolves the whole table from the library `h` for `pabi`; None if
    /// any name is missing there.
    ///
    /// # Safety
    /// `h` is a handle of libibverbs.so.1 from dlopen.
    pub unsafe fn resolve(h: *mut c_void, pabi: Pabi) -> Option<Verbs> {
        let v = pabi.version();
        let v11 = c"IBVERBS_1.1";
        macro_rules! p {
            ($name:literal) => {
                // SAFETY: the field's type is the function's prototype in
                // rdma-abi for this ABI.
                unsafe { sym(h, $name, v)? }
            };
        }
        // The two tables differ in their types and the registration call.
        macro_rules! table {
            ($t:ident, $register:literal) => {
                $t {
                    register_driver: p!($register),
                    init_and_alloc_context: p!(c"_verbs_init_and_alloc_context"),
                    uninit_context: p!(c"verbs_uninit_context"),
                    set_ops: p!(c"verbs_set_ops"),
                    log: p!(c"__verbs_log"),
                    cmd_get_context: p!(c"ibv_cmd_get_context"),
                    cmd_query_port: p!(c"ibv_cmd_query_port"),
                    cmd_create_cq_ex: p!(c"ibv_cmd_create_cq_ex"),
                    cmd_create_qp_ex2: p!(c"ibv_cmd_create_qp_ex2"),
                }
            };
        }
        let by_abi = match pabi {
            Pabi::V34 => ByAbi::V34(table!(Fns34, c"verbs_register_driver_34")),
            Pabi::V65 => ByAbi::V65(table!(Fns65, c"verbs_register_driver_65")),
        };
        Some(Verbs {
            pabi,
            by_abi,
            cmd_query_device_any: p!(c"ibv_cmd_query_device_any"),
            cmd_alloc_pd: p!(c"ibv_cmd_alloc_pd"),
            cmd_dealloc_pd: p!(c"ibv_cmd_dealloc_pd"),
            cmd_reg_mr: p!(c"ibv_cmd_reg_mr"),
            cmd_dereg_mr: p!(c"ibv_cmd_dereg_mr"),
            cmd_advise_mr: p!(c"ibv_cmd_advise_mr"),
            cmd_alloc_mw: p!(c"ibv_cmd_alloc_mw"),
            cmd_dealloc_mw: p!(c"ibv_cmd_dealloc_mw"),
            cmd_create_cq: p!(c"ibv_cmd_create_cq"),
            cmd_req_notify_cq: p!(c"ibv_cmd_req_notify_cq"),
            cmd_resize_cq: p!(c"ibv_cmd_resize_cq"),
            cmd_destroy_cq: p!(c"ibv_cmd_destroy_cq"),
            cmd_create_srq: p!(c"ibv_cmd_create_srq"),
            cmd_create_srq_ex: p!(c"ibv_cmd_create_srq_ex"),
            cmd_modify_srq: p!(c"ibv_cmd_modify_srq"),
            cmd_query_srq: p!(c"ibv_cmd_query_srq"),
            cmd_destroy_srq: p!(c"ibv_cmd_destroy_srq"),
            cmd_create_qp: p!(c"ibv_cmd_create_qp"),
            cmd_query_qp: p!(c"ibv_cmd_query_qp"),
            cmd_modify_qp: p!(c"ibv_cmd_modify_qp"),
            cmd_destroy_qp: p!(c"ibv_cmd_destroy_qp"),
            cmd_create_ah: p!(c"ibv_cmd_create_ah"),
            cmd_destroy_ah: p!(c"ibv_cmd_destroy_ah"),
            cmd_attach_mcast: p!(c"ibv_cmd_attach_mcast"),
            cmd_detach_mcast: p!(c"ibv_cmd_detach_mcast"),
            // SAFETY: the prototypes of verbs.h.
            query_gid: unsafe { sym(h, c"ibv_query_gid", v11)? },
            // SAFETY: as above.
            resolve_eth_l2_from_gid: unsafe { sym(h, c"ibv_resolve_eth_l2_from_gid", v11)? },
        })
    }

    /// Installs `self` as the process's table (the first one wins) and
    /// returns the installed one.
    pub fn install(self) -> &'static Verbs {
        VERBS.get_or_init(|| self)
    }

    /// `verbs_register_driver_34` or `_65` with the provider's device ops.
    ///
    /// # Safety
    /// `ops` and everything it points to live for the rest of the process.
    pub unsafe fn register_driver(&self, ops: *const verbs_device_ops) {
        // SAFETY: the caller's promise; 65's verbs_device_ops has 44's
        // layout (asserted above).
        unsafe {
            match &self.by_abi {
                ByAbi::V34(f) => (f.register_driver)(ops),
                ByAbi::V65(f) => (f.register_driver)(ops.cast()),
            }
        }
    }

    /// `_verbs_init_and_alloc_context`: the library callocs `alloc_size`
    /// bytes and sets up the `verbs_context` at byte offset `vctx_offset`
    /// (the ABI's, as a pointer value) in them.
    ///
    /// # Safety
    /// The arguments the provider's `alloc_context` received; `vctx_offset`
    /// leaves room for the ABI's `verbs_context` inside `alloc_size`.
    pub unsafe fn init_and_alloc_context(
        &self,
        device: *mut ibv_device,
        cmd_fd: c_int,
        alloc_size: usize,
        vctx_offset: *mut verbs_context,
        driver_id: u32,
    ) -> *mut c_void {
        // SAFETY: the caller's promise.
        unsafe {
            match &self.by_abi {
                ByAbi::V34(f) => {
                    (f.init_and_alloc_context)(device, cmd_fd, alloc_size, vctx_offset, driver_id)
                }
                ByAbi::V65(f) => (f.init_and_alloc_context)(
                    device,
                    cmd_fd,
                    alloc_size,
                    vctx_offset.cast(),
                    driver_id,
                ),
            }
        }
    }

    /// `verbs_uninit_context`.
    ///
    /// # Safety
    /// `vctx` is the `verbs_context` (of the ABI in use) of a context the
    /// library set up, not used afterwards.
    pub unsafe fn uninit_context(&self, vctx: *mut verbs_context) {
        // SAFETY: the caller's promise.
        unsafe {
            match &self.by_abi {
                ByAbi::V34(f) => (f.uninit_context)(vctx),
                ByAbi::V65(f) => (f.uninit_context)(vctx.cast()),
            }
        }
    }

    /// `__verbs_log` for the context `vctx` (of the ABI in use), to call
    /// with [`verbs_log!`](crate::verbs_log).
    pub fn log(&self, vctx: *mut verbs_context) -> VerbsLog {
        match &self.by_abi {
            ByAbi::V34(f) => VerbsLog::V34(f.log, vctx),
            ByAbi::V65(f) => VerbsLog::V65(f.log, vctx.cast()),
        }
    }

    /// `ibv_cmd_get_context`, with 65's file-descriptor array NULL.
    ///
    /// # Safety
    /// As the C function: `vctx` is the context being created, of the ABI
    /// in use; the buffers are valid for their sizes.
    pub unsafe fn cmd_get_context(
        &self,
        vctx: *mut verbs_context,
        cmd: *mut ibv_get_context,
        cmd_size: usize,
        resp: *mut ib_uverbs_get_context_resp,
        resp_size: usize,
    ) -> c_int {
        // SAFETY: forwarded.
        unsafe {
            match &self.by_abi {
                ByAbi::V34(f) => (f.cmd_get_context)(vctx, cmd, cmd_size, resp, resp_size),
                ByAbi::V65(f) => (f.cmd_get_context)(
                    vctx.cast(),
                    cmd,
                    cmd_size,
                    core::ptr::null_mut(),
                    resp,
                    resp_size,
                ),
            }
        }
    }

    /// `ibv_cmd_query_port`. `attr` is what the library handed the
    /// provider's `query_port` op: 65's `ibv_port_attr` under 65, 44's
    /// smaller one under 34 (the op is typed with 65's, so it is cast back).
    ///
    /// # Safety
    /// As the C function.
    pub unsafe fn cmd_query_port(
        &self,
        context: *mut ibv_context,
        port_num: u8,
        attr: *mut verbs_v65::ibv_port_attr,
        cmd: *mut ibv_query_port,
        cmd_size: usize,
    ) -> c_int {
        // SAFETY: forwarded.
        unsafe {
            match &self.by_abi {
                ByAbi::V34(f) => (f.cmd_query_port)(context, port_num, attr.cast(), cmd, cmd_size),
                ByAbi::V65(f) => (f.cmd_query_port)(context, port_num, attr, cmd, cmd_size),
            }
        }
    }

    /// `ibv_cmd_create_cq_ex`, with 65's `prov_attr` NULL (the kernel
    /// allocates the CQ memory).
    ///
    /// # Safety
    /// As the C function.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn cmd_create_cq_ex(
        &self,
        context: *mut ibv_context,
        cq_attr: *const ibv_cq_init_attr_ex,
        cq: *mut verbs_cq,
        cmd: *mut ibv_create_cq_ex,
        cmd_size: usize,
        resp: *mut ib_uverbs_ex_create_cq_resp,
        resp_size: usize,
        cmd_flags: u32,
    ) -> c_int {
        // SAFETY: forwarded.
        unsafe {
            match &self.by_abi {
                ByAbi::V34(f) => (f.cmd_create_cq_ex)(
                    context, cq_attr, cq, cmd, cmd_size, resp, resp_size, cmd_flags,
                ),
                ByAbi::V65(f) => (f.cmd_create_cq_ex)(
                    context,
                    cq_attr,
                    core::ptr::null_mut(),
                    cq,
                    cmd,
                    cmd_size,
                    resp,
                    resp_size,
                    cmd_flags,
                ),
            }
        }
    }

    /// `ibv_cmd_create_qp_ex2`, with 65's driver command buffer NULL. `qp`
    /// is the `verbs_qp` of the ABI in use (65's is larger), typed as 44's.
    ///
    /// # Safety
    /// As the C function.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn cmd_create_qp_ex2(
        &self,
        context: *mut ibv_context,
        qp: *mut verbs_qp,
        qp_attr: *mut ibv_qp_init_attr_ex,
        cmd: *mut ibv_create_qp_ex,
        cmd_size: usize,
        resp: *mut ib_uverbs_ex_create_qp_resp,
        resp_size: usize,
    ) -> c_int {
        // SAFETY: forwarded.
        unsafe {
            match &self.by_abi {
                ByAbi::V34(f) => {
                    (f.cmd_create_qp_ex2)(context, qp, qp_attr, cmd, cmd_size, resp, resp_size)
                }
                ByAbi::V65(f) => (f.cmd_create_qp_ex2)(
                    context,
                    qp.cast(),
                    qp_attr,
                    cmd,
                    cmd_size,
                    resp,
                    resp_size,
                    core::ptr::null_mut(),
                ),
            }
        }
    }
}
