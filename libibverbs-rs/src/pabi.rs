//! What differs between the private ABIs this library serves, as far as
//! the library itself must know: which one a provider speaks, and where the
//! members that moved are.
//!
//! A provider says which private ABI it was built for by the symbol version
//! of the functions it binds: verbs_register_driver_34 or _65,
//! _verbs_init_and_alloc_context@IBVERBS_PRIVATE_34 or @@IBVERBS_PRIVATE_65,
//! and so on. The library records it per registered driver and per context.
//! Inside the library every context is handled through 44's verbs_context;
//! 65's adds members only in front of it, so a 65 context is seen from
//! [`V65_FRONT`] bytes in.

use std::mem::offset_of;

use crate::abi::driver::{verbs_qp, verbs_xrcd};
use crate::abi::driver65;
use crate::abi::verbs::*;
use crate::abi::verbs65;

/// The private ABI a provider was built for: it decides the layout of its
/// verbs_context and of the ops table it hands to verbs_set_ops, and the
/// arguments of the ibv_cmd_* calls whose signature changed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Pabi {
    /// IBVERBS_PRIVATE_34 (rdma-core 34 to 56): 44's layouts.
    P34,
    /// IBVERBS_PRIVATE_65 (rdma-core 65): verbs_context grew at its front.
    P65,
}

/// How many bytes rdma-core 65's verbs_context has in front of 44's: its new
/// ops come first, so every member of 44 keeps its distance from the trailing
/// `context`.
pub(crate) const V65_FRONT: usize = offset_of!(verbs65::verbs_context, context) - offset_of!(verbs_context, context);
const _: () = assert!(V65_FRONT == 48);
const _: () = assert!(std::mem::size_of::<verbs65::verbs_context>() == std::mem::size_of::<verbs_context>() + V65_FRONT);

/// The 44 view of a 65-layout verbs_context: the same object from its first
/// member that 44 knows. Address arithmetic only (`wrapping_add`), safe for
/// any pointer; NULL stays NULL.
pub(crate) fn v44_of_v65(v: *mut verbs65::verbs_context) -> *mut verbs_context {
    if v.is_null() {
        return std::ptr::null_mut();
    }
    v.cast::<u8>().wrapping_add(V65_FRONT).cast()
}

/// The 65 view of a context whose provider uses that layout: the inverse of
/// [`v44_of_v65`].
pub(crate) fn v65_of_v44(v: *mut verbs_context) -> *mut verbs65::verbs_context {
    if v.is_null() {
        return std::ptr::null_mut();
    }
    v.cast::<u8>().wrapping_sub(V65_FRONT).cast()
}

/// A verbs_context pointer a provider handed us (from alloc_context,
/// import_context or an ibv_cmd_* argument), as the 44 view every module
/// works with.
pub(crate) fn v44_of(v: *mut verbs_context, pabi: Pabi) -> *mut verbs_context {
    match pabi {
        Pabi::P34 => v,
        Pabi::P65 => v44_of_v65(v.cast()),
    }
}

/// Where a provider's verbs_qp keeps `comp_mask` and `xrcd`: 65's larger
/// ibv_qp_ex moves both. Address arithmetic only.
pub(crate) fn vqp_tail(vqp: *mut verbs_qp, pabi: Pabi) -> (*mut u32, *mut *mut verbs_xrcd) {
    let (m, x) = match pabi {
        Pabi::P34 => (offset_of!(verbs_qp, comp_mask), offset_of!(verbs_qp, xrcd)),
        Pabi::P65 => (offset_of!(driver65::verbs_qp, comp_mask), offset_of!(driver65::verbs_qp, xrcd)),
    };
    let b = vqp.cast::<u8>();
    (b.wrapping_add(m).cast(), b.wrapping_add(x).cast())
}

/// The offset of verbs_qp's `xrcd` in a provider's layout (ibv_cmd_open_qp
/// sets it only when the provider's structure reaches that far).
pub(crate) fn vqp_xrcd_offset(pabi: Pabi) -> usize {
    match pabi {
        Pabi::P34 => offset_of!(verbs_qp, xrcd),
        Pabi::P65 => offset_of!(driver65::verbs_qp, xrcd),
    }
}
const _: () = assert!(offset_of!(driver65::verbs_qp, xrcd) == offset_of!(verbs_qp, xrcd) + 8);
