//! The libibverbs functions a provider calls, resolved at run time.
//!
//! A provider has no link-time reference to libibverbs: the same file must
//! load into a library that only has IBVERBS_PRIVATE_34 (Debian 12, 13),
//! one that only has IBVERBS_PRIVATE_65 (sid) and ours (both). The
//! constructor resolves every name below with `dlvsym` at the version of
//! the chosen private ABI ([`Verbs::resolve`]); one missing name and the
//! provider registers nothing.
//!
//! The function types are written with rdma-core 44's structures (the
//! `rdma_abi::verbs` and `pabi34_v44` types). Where 65 passes a structure
//! whose layout moved (`verbs_context`, `verbs_qp`), the pointer handed over
//! is the one of the ABI in use, cast: the functions only pass it on to the
//! library. Where 65 added arguments (`ibv_cmd_get_context`,
//! `ibv_cmd_create_cq_ex`, `ibv_cmd_create_qp_ex2`), both forms are resolved
//! and one method calls whichever the ABI has, with the new arguments NULL,
//! as rdma-core 65's providers pass them.

use core::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

use rdma_abi::driver::pabi34_v44::{verbs_cq, verbs_device_ops, verbs_mr, verbs_qp, verbs_srq};
use rdma_abi::driver::pabi65::verbs_create_cq_prov_attr;
use rdma_abi::kern::*;
use rdma_abi::verbs::*;
use rdma_abi::verbs_v65::ibv_fd_arr;

use crate::pabi::Pabi;

type RegisterDriver = unsafe extern "C" fn(ops: *const verbs_device_ops);
type InitAndAllocContext = unsafe extern "C" fn(
    device: *mut ibv_device,
    cmd_fd: c_int,
    alloc_size: usize,
    context_offset: *mut verbs_context,
    driver_id: u32,
) -> *mut c_void;
type UninitContext = unsafe extern "C" fn(context: *mut verbs_context);
type SetOps = unsafe extern "C" fn(vctx: *mut verbs_context, ops: *const c_void);
type VerbsLog = unsafe extern "C" fn(ctx: *mut verbs_context, level: u32, fmt: *const c_char, ...);
type GetContext34 = unsafe extern "C" fn(
    context: *mut verbs_context,
    cmd: *mut ibv_get_context,
    cmd_size: usize,
    resp: *mut ib_uverbs_get_context_resp,
    resp_size: usize,
) -> c_int;
type GetContext65 = unsafe extern "C" fn(
    context: *mut verbs_context,
    cmd: *mut ibv_get_context,
    cmd_size: usize,
    fd_arr: *mut ibv_fd_arr,
    resp: *mut ib_uverbs_get_context_resp,
    resp_size: usize,
) -> c_int;
type QueryDeviceAny = unsafe extern "C" fn(
    context: *mut ibv_context,
    input: *const ibv_query_device_ex_input,
    attr: *mut ibv_device_attr_ex,
    attr_size: usize,
    resp: *mut ib_uverbs_ex_query_device_resp,
    resp_size: *mut usize,
) -> c_int;
type QueryPort = unsafe extern "C" fn(
    context: *mut ibv_context,
    port_num: u8,
    port_attr: *mut ibv_port_attr,
    cmd: *mut ibv_query_port,
    cmd_size: usize,
) -> c_int;
type AllocPd = unsafe extern "C" fn(
    context: *mut ibv_context,
    pd: *mut ibv_pd,
    cmd: *mut ibv_alloc_pd,
    cmd_size: usize,
    resp: *mut ib_uverbs_alloc_pd_resp,
    resp_size: usize,
) -> c_int;
type RegMr = unsafe extern "C" fn(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    hca_va: u64,
    access: c_int,
    vmr: *mut verbs_mr,
    cmd: *mut ibv_reg_mr,
    cmd_size: usize,
    resp: *mut ib_uverbs_reg_mr_resp,
    resp_size: usize,
) -> c_int;
type AdviseMr = unsafe extern "C" fn(
    pd: *mut ibv_pd,
    advice: ibv_advise_mr_advice,
    flags: u32,
    sg_list: *mut ibv_sge,
    num_sge: u32,
) -> c_int;
type AllocMw = unsafe extern "C" fn(
    pd: *mut ibv_pd,
    type_: ibv_mw_type,
    mw: *mut ibv_mw,
    cmd: *mut ibv_alloc_mw,
    cmd_size: usize,
    resp: *mut ib_uverbs_alloc_mw_resp,
    resp_size: usize,
) -> c_int;
type CreateCq = unsafe extern "C" fn(
    context: *mut ibv_context,
    cqe: c_int,
    channel: *mut ibv_comp_channel,
    comp_vector: c_int,
    cq: *mut ibv_cq,
    cmd: *mut ibv_create_cq,
    cmd_size: usize,
    resp: *mut ib_uverbs_create_cq_resp,
    resp_size: usize,
) -> c_int;
type CreateCqEx34 = unsafe extern "C" fn(
    context: *mut ibv_context,
    cq_attr: *const ibv_cq_init_attr_ex,
    cq: *mut verbs_cq,
    cmd: *mut ibv_create_cq_ex,
    cmd_size: usize,
    resp: *mut ib_uverbs_ex_create_cq_resp,
    resp_size: usize,
    cmd_flags: u32,
) -> c_int;
type CreateCqEx65 = unsafe extern "C" fn(
    context: *mut ibv_context,
    cq_attr: *const ibv_cq_init_attr_ex,
    prov_attr: *mut verbs_create_cq_prov_attr,
    cq: *mut verbs_cq,
    cmd: *mut ibv_create_cq_ex,
    cmd_size: usize,
    resp: *mut ib_uverbs_ex_create_cq_resp,
    resp_size: usize,
    cmd_flags: u32,
) -> c_int;
type ReqNotifyCq = unsafe extern "C" fn(cq: *mut ibv_cq, solicited_only: c_int) -> c_int;
type ResizeCq = unsafe extern "C" fn(
    cq: *mut ibv_cq,
    cqe: c_int,
    cmd: *mut ibv_resize_cq,
    cmd_size: usize,
    resp: *mut ib_uverbs_resize_cq_resp,
    resp_size: usize,
) -> c_int;
type CreateSrq = unsafe extern "C" fn(
    pd: *mut ibv_pd,
    srq: *mut ibv_srq,
    attr: *mut ibv_srq_init_attr,
    cmd: *mut ibv_create_srq,
    cmd_size: usize,
    resp: *mut ib_uverbs_create_srq_resp,
    resp_size: usize,
) -> c_int;
type CreateSrqEx = unsafe extern "C" fn(
    context: *mut ibv_context,
    srq: *mut verbs_srq,
    attr_ex: *mut ibv_srq_init_attr_ex,
    cmd: *mut ibv_create_xsrq,
    cmd_size: usize,
    resp: *mut ib_uverbs_create_srq_resp,
    resp_size: usize,
) -> c_int;
type ModifySrq = unsafe extern "C" fn(
    srq: *mut ibv_srq,
    srq_attr: *mut ibv_srq_attr,
    srq_attr_mask: c_int,
    cmd: *mut ibv_modify_srq,
    cmd_size: usize,
) -> c_int;
type QuerySrq = unsafe extern "C" fn(
    srq: *mut ibv_srq,
    srq_attr: *mut ibv_srq_attr,
    cmd: *mut ibv_query_srq,
    cmd_size: usize,
) -> c_int;
type CreateQp = unsafe extern "C" fn(
    pd: *mut ibv_pd,
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_init_attr,
    cmd: *mut ibv_create_qp,
    cmd_size: usize,
    resp: *mut ib_uverbs_create_qp_resp,
    resp_size: usize,
) -> c_int;
type CreateQpEx2_34 = unsafe extern "C" fn(
    context: *mut ibv_context,
    qp: *mut verbs_qp,
    qp_attr: *mut ibv_qp_init_attr_ex,
    cmd: *mut ibv_create_qp_ex,
    cmd_size: usize,
    resp: *mut ib_uverbs_ex_create_qp_resp,
    resp_size: usize,
) -> c_int;
type CreateQpEx2_65 = unsafe extern "C" fn(
    context: *mut ibv_context,
    qp: *mut verbs_qp,
    qp_attr: *mut ibv_qp_init_attr_ex,
    cmd: *mut ibv_create_qp_ex,
    cmd_size: usize,
    resp: *mut ib_uverbs_ex_create_qp_resp,
    resp_size: usize,
    driver: *mut ibv_command_buffer,
) -> c_int;
type QueryQp = unsafe extern "C" fn(
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_attr,
    attr_mask: c_int,
    init_attr: *mut ibv_qp_init_attr,
    cmd: *mut ibv_query_qp,
    cmd_size: usize,
) -> c_int;
type ModifyQp = unsafe extern "C" fn(
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_attr,
    attr_mask: c_int,
    cmd: *mut ibv_modify_qp,
    cmd_size: usize,
) -> c_int;
type CreateAh = unsafe extern "C" fn(
    pd: *mut ibv_pd,
    ah: *mut ibv_ah,
    attr: *mut ibv_ah_attr,
    resp: *mut ib_uverbs_create_ah_resp,
    resp_size: usize,
) -> c_int;
type Mcast = unsafe extern "C" fn(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int;

/// Every libibverbs function a provider may call, resolved for one private
/// ABI. Names follow the C functions without their `ibv_`/`verbs_` prefix
/// (`cmd_alloc_pd` is `ibv_cmd_alloc_pd`).
pub struct Verbs {
    /// The private ABI the functions were resolved for.
    pub pabi: Pabi,
    pub register_driver: RegisterDriver,
    /// `_verbs_init_and_alloc_context`; use [`crate::context::alloc_context`].
    pub init_and_alloc_context: InitAndAllocContext,
    pub uninit_context: UninitContext,
    /// `verbs_set_ops`; use [`crate::context::set_ops`].
    pub set_ops: SetOps,
    /// `__verbs_log`; use [`crate::log::verbs_err`].
    pub log: VerbsLog,
    get_context34: Option<GetContext34>,
    get_context65: Option<GetContext65>,
    pub cmd_query_device_any: QueryDeviceAny,
    pub cmd_query_port: QueryPort,
    pub cmd_alloc_pd: AllocPd,
    pub cmd_dealloc_pd: unsafe extern "C" fn(pd: *mut ibv_pd) -> c_int,
    pub cmd_reg_mr: RegMr,
    pub cmd_dereg_mr: unsafe extern "C" fn(vmr: *mut verbs_mr) -> c_int,
    pub cmd_advise_mr: AdviseMr,
    pub cmd_alloc_mw: AllocMw,
    pub cmd_dealloc_mw: unsafe extern "C" fn(mw: *mut ibv_mw) -> c_int,
    pub cmd_create_cq: CreateCq,
    create_cq_ex34: Option<CreateCqEx34>,
    create_cq_ex65: Option<CreateCqEx65>,
    pub cmd_req_notify_cq: ReqNotifyCq,
    pub cmd_resize_cq: ResizeCq,
    pub cmd_destroy_cq: unsafe extern "C" fn(cq: *mut ibv_cq) -> c_int,
    pub cmd_create_srq: CreateSrq,
    pub cmd_create_srq_ex: CreateSrqEx,
    pub cmd_modify_srq: ModifySrq,
    pub cmd_query_srq: QuerySrq,
    pub cmd_destroy_srq: unsafe extern "C" fn(srq: *mut ibv_srq) -> c_int,
    pub cmd_create_qp: CreateQp,
    create_qp_ex2_34: Option<CreateQpEx2_34>,
    create_qp_ex2_65: Option<CreateQpEx2_65>,
    pub cmd_query_qp: QueryQp,
    pub cmd_modify_qp: ModifyQp,
    pub cmd_destroy_qp: unsafe extern "C" fn(qp: *mut ibv_qp) -> c_int,
    pub cmd_create_ah: CreateAh,
    pub cmd_destroy_ah: unsafe extern "C" fn(ah: *mut ibv_ah) -> c_int,
    pub cmd_attach_mcast: Mcast,
    pub cmd_detach_mcast: Mcast,
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
                // SAFETY: the field's type is the C function's signature.
                unsafe { sym(h, $name, v)? }
            };
        }
        let (get_context34, get_context65, create_cq_ex34, create_cq_ex65, qp34, qp65) = match pabi
        {
            Pabi::V34 => (
                Some(p!(c"ibv_cmd_get_context")),
                None,
                Some(p!(c"ibv_cmd_create_cq_ex")),
                None,
                Some(p!(c"ibv_cmd_create_qp_ex2")),
                None,
            ),
            Pabi::V65 => (
                None,
                Some(p!(c"ibv_cmd_get_context")),
                None,
                Some(p!(c"ibv_cmd_create_cq_ex")),
                None,
                Some(p!(c"ibv_cmd_create_qp_ex2")),
            ),
        };
        Some(Verbs {
            pabi,
            // SAFETY: as in p!.
            register_driver: unsafe { sym(h, pabi.register_name(), v)? },
            init_and_alloc_context: p!(c"_verbs_init_and_alloc_context"),
            uninit_context: p!(c"verbs_uninit_context"),
            set_ops: p!(c"verbs_set_ops"),
            log: p!(c"__verbs_log"),
            get_context34,
            get_context65,
            cmd_query_device_any: p!(c"ibv_cmd_query_device_any"),
            cmd_query_port: p!(c"ibv_cmd_query_port"),
            cmd_alloc_pd: p!(c"ibv_cmd_alloc_pd"),
            cmd_dealloc_pd: p!(c"ibv_cmd_dealloc_pd"),
            cmd_reg_mr: p!(c"ibv_cmd_reg_mr"),
            cmd_dereg_mr: p!(c"ibv_cmd_dereg_mr"),
            cmd_advise_mr: p!(c"ibv_cmd_advise_mr"),
            cmd_alloc_mw: p!(c"ibv_cmd_alloc_mw"),
            cmd_dealloc_mw: p!(c"ibv_cmd_dealloc_mw"),
            cmd_create_cq: p!(c"ibv_cmd_create_cq"),
            create_cq_ex34,
            create_cq_ex65,
            cmd_req_notify_cq: p!(c"ibv_cmd_req_notify_cq"),
            cmd_resize_cq: p!(c"ibv_cmd_resize_cq"),
            cmd_destroy_cq: p!(c"ibv_cmd_destroy_cq"),
            cmd_create_srq: p!(c"ibv_cmd_create_srq"),
            cmd_create_srq_ex: p!(c"ibv_cmd_create_srq_ex"),
            cmd_modify_srq: p!(c"ibv_cmd_modify_srq"),
            cmd_query_srq: p!(c"ibv_cmd_query_srq"),
            cmd_destroy_srq: p!(c"ibv_cmd_destroy_srq"),
            cmd_create_qp: p!(c"ibv_cmd_create_qp"),
            create_qp_ex2_34: qp34,
            create_qp_ex2_65: qp65,
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

    /// `ibv_cmd_get_context`, with 65's file-descriptor array NULL.
    ///
    /// # Safety
    /// As the C function: `vctx` is the context being created, of the ABI
    /// in use; the buffers are valid for their sizes.
    #[allow(clippy::missing_panics_doc)]
    pub unsafe fn cmd_get_context(
        &self,
        vctx: *mut verbs_context,
        cmd: *mut ibv_get_context,
        cmd_size: usize,
        resp: *mut ib_uverbs_get_context_resp,
        resp_size: usize,
    ) -> c_int {
        // SAFETY: forwarded; exactly one of the two was resolved.
        unsafe {
            match (self.get_context34, self.get_context65) {
                (Some(f), _) => f(vctx, cmd, cmd_size, resp, resp_size),
                (None, Some(f)) => f(vctx, cmd, cmd_size, core::ptr::null_mut(), resp, resp_size),
                (None, None) => libc::EOPNOTSUPP,
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
        // SAFETY: forwarded; exactly one of the two was resolved.
        unsafe {
            match (self.create_cq_ex34, self.create_cq_ex65) {
                (Some(f), _) => f(
                    context, cq_attr, cq, cmd, cmd_size, resp, resp_size, cmd_flags,
                ),
                (None, Some(f)) => f(
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
                (None, None) => libc::EOPNOTSUPP,
            }
        }
    }

    /// `ibv_cmd_create_qp_ex2`, with 65's driver command buffer NULL. `qp`
    /// is the `verbs_qp` of the ABI in use (65's is larger), cast.
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
        // SAFETY: forwarded; exactly one of the two was resolved.
        unsafe {
            match (self.create_qp_ex2_34, self.create_qp_ex2_65) {
                (Some(f), _) => f(context, qp, qp_attr, cmd, cmd_size, resp, resp_size),
                (None, Some(f)) => f(
                    context,
                    qp,
                    qp_attr,
                    cmd,
                    cmd_size,
                    resp,
                    resp_size,
                    core::ptr::null_mut(),
                ),
                (None, None) => libc::EOPNOTSUPP,
            }
        }
    }
}
