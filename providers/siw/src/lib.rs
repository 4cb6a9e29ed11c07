//! siw-provider: the soft-iWARP (siw) user-space provider, a drop-in for
//! rdma-core's `libsiw-rdmav34.so` (and rdma-core 65's `-rdmav65.so`).
//!
//! libibverbs dlopen()s it as `libsiw-rs-rdmav34.so` or `-rdmav65.so`
//! (symlinks `build.rs` leaves beside the built library); its constructor
//! binds to that libibverbs and registers the "siw" driver for devices of
//! driver id RDMA_DRIVER_SIW (`rdma-provider` does the binding, under
//! either private ABI).
//!
//! - [`sq`], [`rq`], [`cq`]: the data path on the rings the kernel shares;
//! - `verbs`: the control-path ops (objects, commands, mappings);
//! - `datapath`: the data-path op entry points;
//! - `log`: upstream's error messages.
//!
//! Everything handed to C is calloc'ed and freed with free; every op runs
//! inside the FFI guard (`rdma_provider::op!`).

use core::ffi::{c_int, c_void};
use core::ptr;

use rdma_abi::driver::pabi34_v44::{verbs_device, verbs_device_ops, verbs_sysfs_dev};
use rdma_abi::kern::{ibv_get_context, RDMA_DRIVER_SIW};
use rdma_abi::siw::SIW_ABI_VERSION;
use rdma_abi::siw_abi::siw_cmd_alloc_context_resp;
use rdma_abi::verbs::{ibv_context, ibv_device, verbs_context};
use rdma_provider::context::{self, ContextFrame};
use rdma_provider::register::{match_driver_id, match_sentinel, DeviceOps, MatchTable};
use rdma_provider::{mem, op, verbs};
use rdma_util::mem::zeroed;

pub(crate) const LIB_NAME: &str = "libsiw";

pub mod cq;
mod datapath;
mod log;
pub mod rq;
mod sge;
pub mod sq;
mod verbs_ops;

#[cfg(test)]
mod datapath_tests;

/// The provider's part of a context.
#[repr(C)]
pub struct SiwContext {
    /// The device id the kernel answered GET_CONTEXT with.
    pub dev_id: u32,
}

/// siw matches by driver id only, as upstream's table.
static MATCH: MatchTable<2> = MatchTable([match_driver_id(RDMA_DRIVER_SIW), match_sentinel()]);

static DEVICE_OPS: DeviceOps = DeviceOps(verbs_device_ops {
    name: c"siw".as_ptr(),
    match_min_abi_version: SIW_ABI_VERSION as u32,
    match_max_abi_version: SIW_ABI_VERSION as u32,
    match_table: MATCH.as_ptr(),
    static_providers: ptr::null_mut(),
    match_device: None,
    alloc_context: Some(siw_alloc_context),
    import_context: None,
    alloc_device: Some(siw_device_alloc),
    uninit_device: Some(siw_device_free),
});

rdma_provider::provider_constructor!(init);

/// Registers with the libibverbs that loads us.
unsafe fn init() {
    // SAFETY: DEVICE_OPS and what it points to are statics.
    unsafe { rdma_provider::register::register(&DEVICE_OPS) };
}

op! {
    /// A device: the library's `verbs_device`, nothing of ours.
    fn siw_device_alloc(_sysfs: *mut verbs_sysfs_dev) -> *mut verbs_device, on_panic = ptr::null_mut();
    {
        mem::calloc::<verbs_device>()
    }
}

op! {
    fn siw_device_free(dev: *mut verbs_device);
    {
        // SAFETY: what siw_device_alloc returned; the library is done with it.
        unsafe { mem::free(dev) }
    }
}

op! {
    /// A context: the library sets it up, GET_CONTEXT fetches the device
    /// id, then our ops go in.
    fn siw_alloc_context(device: *mut ibv_device, cmd_fd: c_int, _private_data: *mut c_void) -> *mut verbs_context,
        on_panic = ptr::null_mut();
    {
        // SAFETY: the arguments libibverbs passed us.
        let frame = unsafe { context::alloc_context::<SiwContext>(device, cmd_fd, RDMA_DRIVER_SIW) };
        if frame.is_null() {
            return ptr::null_mut();
        }
        let v = verbs();
        let vctx = ContextFrame::vctx(frame, v.pabi);
        let mut cmd: ibv_get_context = Default::default();
        let mut resp: siw_cmd_alloc_context_resp = zeroed();
        // SAFETY: the context being created; local command buffers of the
        // sizes passed.
        let rv = unsafe {
            v.cmd_get_context(
                vctx,
                &mut cmd,
                size_of::<ibv_get_context>(),
                &mut resp.ibv_resp,
                size_of::<siw_cmd_alloc_context_resp>(),
            )
        };
        if rv != 0 {
            // SAFETY: nothing else holds the new context.
            unsafe { context::free_context(frame) };
            return ptr::null_mut();
        }
        // SAFETY: the context being created.
        unsafe {
            context::set_ops(frame, &verbs_ops::CONTEXT_OPS);
            (*frame).prov.dev_id = resp.drv_payload.dev_id;
        }
        vctx
    }
}

/// The frame of one of our contexts.
///
/// # Safety
/// `ctx` is the `ibv_context` of a context this provider made.
#[inline(always)]
pub(crate) unsafe fn frame_of(ctx: *mut ibv_context) -> *mut ContextFrame<SiwContext> {
    // SAFETY: the caller's promise.
    unsafe { ContextFrame::from_ibv(ctx) }
}
