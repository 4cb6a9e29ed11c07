//! Soft-RoCE (rxe) provider: a drop-in for rdma-core's `librxe-rdmav34.so`
//! (and rdma-core 65's `-rdmav65.so`), loadable by Debian's C libibverbs
//! and by ours.
//!
//! The control path goes through the loading library's `ibv_cmd_*`
//! functions (bound at run time, see `rdma_provider`); the data path
//! works on the queues the kernel shares through mmap:
//! - [`queue`]: the shared queue format and its index arithmetic;
//! - [`wr`]: work requests checked and written as queue elements;
//! - [`qp`], [`srq`], [`cq`]: the queue objects and their data path;
//! - [`ah`]: address handles, and the address vector old kernels need;
//! - [`basic`]: queries, PDs, MRs, MWs.
//!
//! Nothing is exported: the constructor registers the provider with the
//! library that loaded it.
#![allow(non_camel_case_types)]

pub(crate) mod ah;
pub(crate) mod basic;
pub(crate) mod cq;
pub(crate) mod qp;
pub(crate) mod queue;
pub(crate) mod srq;
pub(crate) mod wr;

use core::ffi::{c_int, c_void};
use core::ptr;

use rdma_abi::driver::pabi34_v44::{verbs_device, verbs_device_ops, verbs_sysfs_dev};
use rdma_abi::driver::pabi65;
use rdma_abi::kern::{ib_uverbs_get_context_resp, ibv_get_context, RDMA_DRIVER_RXE};
use rdma_abi::verbs::{ibv_context, ibv_device, verbs_context};
use rdma_provider::context::{self, ContextFrame, NO_OPS};
use rdma_provider::register::{
    self, match_driver_id, match_modalias, match_sentinel, DeviceOps, MatchTable,
};
use rdma_provider::{mem, op, verbs, Pabi};

/// Names this provider in panic reports.
pub(crate) const LIB_NAME: &str = "librxe-rs";

/// The device: the library's part, then the kernel's uverbs ABI version.
#[repr(C)]
struct RxeDevice {
    ibv_dev: verbs_device,
    abi_version: c_int,
}

/// A context has nothing of rxe's own.
type RxeContext = ContextFrame<()>;

static MATCH: MatchTable<3> = MatchTable([
    match_driver_id(RDMA_DRIVER_RXE),
    match_modalias(c"rdma_device:*Nrxe*"),
    match_sentinel(),
]);

static DEV_OPS: DeviceOps = DeviceOps(verbs_device_ops {
    name: c"rxe".as_ptr(),
    // On 64-bit machines ABI versions 1 and 2 are the same; 32-bit ones
    // need 2, which guarantees the kernel's layout.
    match_min_abi_version: if size_of::<usize>() == 8 { 1 } else { 2 },
    match_max_abi_version: 2,
    match_table: MATCH.as_ptr(),
    static_providers: ptr::null_mut(),
    match_device: None,
    alloc_context: Some(rxe_alloc_context),
    import_context: None,
    alloc_device: Some(rxe_device_alloc),
    uninit_device: Some(rxe_uninit_device),
});

/// Registers with the libibverbs that is loading us.
unsafe fn init() {
    // SAFETY: DEV_OPS and what it points to are statics.
    unsafe { register::register(&DEV_OPS) };
}

rdma_provider::provider_constructor!(init);

op! {
    fn rxe_device_alloc(sysfs_dev: *mut verbs_sysfs_dev) -> *mut verbs_device, on_panic = ptr::null_mut();
    {
        let dev = mem::calloc::<RxeDevice>();
        if dev.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: our new device; the library's sysfs record.
        unsafe {
            (*dev).abi_version = (*sysfs_dev).abi_ver as c_int;
            ptr::addr_of_mut!((*dev).ibv_dev)
        }
    }
}

op! {
    fn rxe_uninit_device(vdev: *mut verbs_device);
    {
        // SAFETY: one of our devices, which the library no longer uses.
        unsafe { mem::free(vdev as *mut RxeDevice) };
    }
}

/// The ops of an rxe context, in rdma-core 65's layout (converted for 34
/// by `rdma_provider::context::set_ops`). `advise_mr` is rdma-core 65's
/// (45 and later); 44's provider leaves it out.
fn ops(pabi: Pabi) -> pabi65::verbs_context_ops {
    let v = verbs();
    pabi65::verbs_context_ops {
        query_device_ex: Some(basic::rxe_query_device),
        query_port: Some(basic::rxe_query_port),
        alloc_pd: Some(basic::rxe_alloc_pd),
        dealloc_pd: Some(basic::rxe_dealloc_pd),
        reg_mr: Some(basic::rxe_reg_mr),
        dereg_mr: Some(basic::rxe_dereg_mr),
        alloc_mw: Some(basic::rxe_alloc_mw),
        dealloc_mw: Some(basic::rxe_dealloc_mw),
        bind_mw: Some(qp::rxe_bind_mw),
        create_cq: Some(cq::rxe_create_cq),
        create_cq_ex: Some(cq::rxe_create_cq_ex),
        poll_cq: Some(cq::rxe_poll_cq),
        req_notify_cq: Some(v.cmd_req_notify_cq),
        resize_cq: Some(cq::rxe_resize_cq),
        destroy_cq: Some(cq::rxe_destroy_cq),
        create_srq: Some(srq::rxe_create_srq),
        create_srq_ex: Some(srq::rxe_create_srq_ex),
        modify_srq: Some(srq::rxe_modify_srq),
        query_srq: Some(srq::rxe_query_srq),
        destroy_srq: Some(srq::rxe_destroy_srq),
        post_srq_recv: Some(srq::rxe_post_srq_recv),
        create_qp: Some(qp::rxe_create_qp),
        create_qp_ex: Some(qp::rxe_create_qp_ex),
        query_qp: Some(qp::rxe_query_qp),
        modify_qp: Some(qp::rxe_modify_qp),
        destroy_qp: Some(qp::rxe_destroy_qp),
        post_send: Some(qp::rxe_post_send),
        post_recv: Some(qp::rxe_post_recv),
        create_ah: Some(ah::rxe_create_ah),
        destroy_ah: Some(ah::rxe_destroy_ah),
        attach_mcast: Some(v.cmd_attach_mcast),
        detach_mcast: Some(v.cmd_detach_mcast),
        free_context: Some(rxe_free_context),
        advise_mr: if pabi == Pabi::V65 {
            Some(v.cmd_advise_mr)
        } else {
            None
        },
        ..NO_OPS
    }
}

op! {
    fn rxe_alloc_context(ibdev: *mut ibv_device, cmd_fd: c_int, _private_data: *mut c_void) -> *mut verbs_context,
        on_panic = ptr::null_mut();
    {
        let v = verbs();
        // SAFETY: the library's device and fd, passed on.
        let frame = unsafe { context::alloc_context::<()>(ibdev, cmd_fd, RDMA_DRIVER_RXE) };
        if frame.is_null() {
            return ptr::null_mut();
        }
        let vctx = ContextFrame::vctx(frame, v.pabi);
        let mut cmd = ibv_get_context::default();
        let mut resp = ib_uverbs_get_context_resp::default();
        // SAFETY: the context being created; our buffers.
        let ret = unsafe {
            v.cmd_get_context(vctx, &mut cmd, size_of::<ibv_get_context>(), &mut resp, size_of::<ib_uverbs_get_context_resp>())
        };
        if ret != 0 {
            // SAFETY: ours, never handed out.
            unsafe { context::free_context(frame) };
            return ptr::null_mut();
        }
        // SAFETY: the context being created.
        unsafe { context::set_ops(frame, &ops(v.pabi)) };
        vctx
    }
}

op! {
    fn rxe_free_context(ibctx: *mut ibv_context);
    {
        // SAFETY: one of our contexts, which the library is done with.
        unsafe { context::free_context(RxeContext::from_ibv(ibctx)) };
    }
}
