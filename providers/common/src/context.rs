//! A provider's context, laid out so that its provider part is at the same
//! place under either private ABI.
//!
//! rdma-core 65's `verbs_context` has six more ops in front of 44's
//! members; both end with the `ibv_context` applications get. A
//! [`ContextFrame`] starts with room for 65's `verbs_context`: under 65 the
//! `verbs_context` fills it, under 34 it starts 48 bytes in, so that in both
//! the `ibv_context` ends the room, and the provider part `P` follows at a
//! fixed offset. Getting from an `ibv_context` to `P` is then one constant
//! subtraction, whatever the ABI.
//!
//! The library allocates the frame (`_verbs_init_and_alloc_context`, with
//! calloc, the size of the frame and the offset of the `verbs_context` in
//! it); [`free_context`] undoes it.
//!
//! Ops are written once, as rdma-core 65's `verbs_context_ops` (the
//! superset); [`set_ops`] hands 34 the ops it knows, by name.

use core::ffi::c_int;
use core::mem::offset_of;
use core::ptr;

use rdma_abi::driver::{pabi34_v44, pabi65};
use rdma_abi::verbs::{ibv_context, ibv_device, verbs_context};
use rdma_abi::verbs_v65::verbs_context as verbs_context65;

use crate::pabi::Pabi;
use crate::verbs::{verbs, ByAbi};

const V65_SIZE: usize = size_of::<verbs_context65>();
const V34_SIZE: usize = size_of::<verbs_context>();
/// How far 44's `verbs_context` starts after 65's.
const V34_SHIFT: usize = V65_SIZE - V34_SIZE;
const _: () = assert!(V34_SHIFT == 48);
const _: () = assert!(offset_of!(verbs_context, context) + size_of::<ibv_context>() == V34_SIZE);
const _: () = assert!(offset_of!(verbs_context65, context) + size_of::<ibv_context>() == V65_SIZE);

/// Room for either ABI's `verbs_context`.
#[repr(C, align(8))]
pub struct VctxRoom([u8; V65_SIZE]);

/// A provider context: the library's part, then the provider's `P`.
#[repr(C)]
pub struct ContextFrame<P> {
    room: VctxRoom,
    /// The provider's own state.
    pub prov: P,
}

/// Where the `ibv_context` sits in every frame.
pub const IBV_CONTEXT_OFFSET: usize = V65_SIZE - size_of::<ibv_context>();

impl<P> ContextFrame<P> {
    /// The frame of a context this provider made.
    ///
    /// # Safety
    /// `ctx` is the `ibv_context` of a `ContextFrame<P>`.
    #[inline(always)]
    pub unsafe fn from_ibv(ctx: *mut ibv_context) -> *mut Self {
        // SAFETY: the caller's promise: ctx is IBV_CONTEXT_OFFSET into a frame.
        unsafe { ctx.byte_sub(IBV_CONTEXT_OFFSET).cast() }
    }

    /// The frame's `ibv_context`.
    #[inline(always)]
    pub fn ibv(this: *mut Self) -> *mut ibv_context {
        this.wrapping_byte_add(IBV_CONTEXT_OFFSET).cast()
    }

    /// The frame's `verbs_context` under `pabi`, as the pointer the
    /// library's functions take (65's is cast to 44's type).
    #[inline(always)]
    pub fn vctx(this: *mut Self, pabi: Pabi) -> *mut verbs_context {
        match pabi {
            Pabi::V34 => this.wrapping_byte_add(V34_SHIFT).cast(),
            Pabi::V65 => this.cast(),
        }
    }
}

/// Allocates and initialises a context frame through the library
/// (`_verbs_init_and_alloc_context`), zeroed; NULL on failure with errno
/// set by the library.
///
/// # Safety
/// The arguments are the ones `alloc_context` received.
pub unsafe fn alloc_context<P>(
    device: *mut ibv_device,
    cmd_fd: c_int,
    driver_id: u32,
) -> *mut ContextFrame<P> {
    const { assert!(align_of::<ContextFrame<P>>() <= 16) };
    let v = verbs();
    let offset = ContextFrame::<P>::vctx(ptr::null_mut(), v.pabi);
    // SAFETY: the library callocs size bytes and initialises the
    // verbs_context at `offset` into them, of the ABI it was resolved for.
    unsafe {
        v.init_and_alloc_context(
            device,
            cmd_fd,
            size_of::<ContextFrame<P>>(),
            offset,
            driver_id,
        )
        .cast()
    }
}

/// Undoes [`alloc_context`]: the library's part, then the memory. `P` must
/// have been dropped (or need no drop) before.
///
/// # Safety
/// `frame` came from [`alloc_context`] and is not used afterwards.
pub unsafe fn free_context<P>(frame: *mut ContextFrame<P>) {
    let v = verbs();
    // SAFETY: a context the library initialised; then the calloc'ed block.
    unsafe {
        v.uninit_context(ContextFrame::vctx(frame, v.pabi));
        libc::free(frame.cast());
    }
}

/// Installs `ops` (written with rdma-core 65's layout) on the context: as
/// they are under 65, and the 76 ops 44 knows under 34. The library copies
/// the table.
///
/// # Safety
/// `frame` is a context being created by this provider.
pub unsafe fn set_ops<P>(frame: *mut ContextFrame<P>, ops: &pabi65::verbs_context_ops) {
    let v = verbs();
    let vctx = ContextFrame::vctx(frame, v.pabi);
    match &v.by_abi {
        // SAFETY: the context and ops of 65's layout.
        ByAbi::V65(f) => unsafe { (f.set_ops)(vctx.cast(), ops) },
        ByAbi::V34(f) => {
            let o = ops34_of_65(ops);
            // SAFETY: the context and ops of 44's layout.
            unsafe { (f.set_ops)(vctx, &o) }
        }
    }
}

/// The ops of 44's table taken by name from 65's. Every op has the same C
/// signature in both, though `query_port`'s `ibv_port_attr` grew in 65 (the
/// library hands a 44 provider 44's size, which `ibv_cmd_query_port` of
/// IBVERBS_PRIVATE_34 fills).
pub fn ops34_of_65(o: &pabi65::verbs_context_ops) -> pabi34_v44::verbs_context_ops {
    macro_rules! same {
        ($($n:ident)*) => {
            pabi34_v44::verbs_context_ops {
                $($n: o.$n,)*
                // SAFETY: function pointers of one C signature; only the Rust
                // type of the port attributes differs (see above).
                query_port: o.query_port.map(|f| unsafe {
                    core::mem::transmute::<
                        unsafe extern "C" fn(*mut ibv_context, u8, *mut rdma_abi::verbs_v65::ibv_port_attr) -> c_int,
                        unsafe extern "C" fn(*mut ibv_context, u8, *mut rdma_abi::verbs::ibv_port_attr) -> c_int,
                    >(f)
                }),
            }
        };
    }
    same!(
        advise_mr alloc_dm alloc_mw alloc_null_mr alloc_parent_domain alloc_pd alloc_td async_event
        attach_counters_point_flow attach_mcast bind_mw close_xrcd cq_event create_ah create_counters
        create_cq create_cq_ex create_flow create_flow_action_esp create_qp create_qp_ex
        create_rwq_ind_table create_srq create_srq_ex create_wq dealloc_mw dealloc_pd dealloc_td
        dereg_mr destroy_ah destroy_counters destroy_cq destroy_flow destroy_flow_action destroy_qp
        destroy_rwq_ind_table destroy_srq destroy_wq detach_mcast free_context free_dm get_srq_num
        import_dm import_mr import_pd modify_cq modify_flow_action_esp modify_qp modify_qp_rate_limit
        modify_srq modify_wq open_qp open_xrcd poll_cq post_recv post_send post_srq_ops post_srq_recv
        query_device_ex query_ece query_qp query_qp_data_in_order query_rt_values query_srq
        read_counters reg_dm_mr reg_dmabuf_mr reg_mr req_notify_cq rereg_mr resize_cq set_ece
        unimport_dm unimport_mr unimport_pd
    )
}

/// An all-None ops table of rdma-core 65's layout, to fill with struct
/// update syntax.
pub const NO_OPS: pabi65::verbs_context_ops = {
    // SAFETY: a struct of Options of function pointers; all-zero is all None.
    unsafe { core::mem::zeroed() }
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_offsets() {
        #[repr(C)]
        struct P {
            a: u64,
        }
        let f: *mut ContextFrame<P> = 0x10000 as *mut _;
        let ctx = ContextFrame::ibv(f);
        assert_eq!(ctx as usize - f as usize, 696 - size_of::<ibv_context>());
        // SAFETY: arithmetic only.
        assert_eq!(unsafe { ContextFrame::<P>::from_ibv(ctx) }, f);
        // Both ABIs' verbs_context end at the ibv_context's end.
        let v34 = ContextFrame::vctx(f, Pabi::V34) as usize;
        let v65 = ContextFrame::vctx(f, Pabi::V65) as usize;
        assert_eq!(v34 + offset_of!(verbs_context, context), ctx as usize);
        assert_eq!(v65 + offset_of!(verbs_context65, context), ctx as usize);
        assert_eq!(offset_of!(ContextFrame<P>, prov), 696);
    }

    #[test]
    fn ops_by_name() {
        unsafe extern "C" fn dealloc(_: *mut rdma_abi::verbs::ibv_pd) -> c_int {
            7
        }
        unsafe extern "C" fn qp(
            _: *mut ibv_context,
            _: u8,
            _: *mut rdma_abi::verbs_v65::ibv_port_attr,
        ) -> c_int {
            9
        }
        let o65 = pabi65::verbs_context_ops {
            dealloc_pd: Some(dealloc),
            query_port: Some(qp),
            ..NO_OPS
        };
        let o34 = ops34_of_65(&o65);
        // SAFETY: test functions that ignore their arguments.
        unsafe {
            assert_eq!(o34.dealloc_pd.unwrap()(ptr::null_mut()), 7);
            assert_eq!(
                o34.query_port.unwrap()(ptr::null_mut(), 1, ptr::null_mut()),
                9
            );
        }
        assert!(o34.alloc_pd.is_none());
    }
}
