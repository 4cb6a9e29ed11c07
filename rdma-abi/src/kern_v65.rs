//! The kernel uAPI of `<rdma/ib_user_ioctl_verbs.h>` as rdma-core 65 carries
//! it in its kernel-headers/ (and installs as `<infiniband/ib_user_ioctl_verbs.h>`):
//! everything of [`crate::kern`], re-exported, plus what is new or changed
//! since the uAPI of Debian 12's kernel that [`crate::kern`] mirrors:
//! - `ib_uverbs_query_port_resp_ex` names bytes 2..6 of its old `reserved`
//!   `active_speed_ex`;
//! - `ib_uverbs_flow_action_esp_encap`'s two pointers, which rdma-core's
//!   verbs_api.h makes unions of the pointer and its 64-bit slot (through
//!   `RDMA_UAPI_PTR`) on 64-bit targets;
//! - the buffer descriptor (`ib_uverbs_buffer_type`, `ib_uverbs_buffer_desc`);
//! - new enumerators of old enums (robust udata, the flush access bits, the
//!   ionic driver id).
//!
//! Only the public headers use this module (tools/gen-headers writes
//! `<infiniband/ib_user_ioctl_verbs.h>` from it); the libraries speak
//! [`crate::kern`]. Its layouts are checked in `src/layout/hand_kept.rs`.

pub use crate::kern::*;

pub const IB_UVERBS_CORE_SUPPORT_ROBUST_UDATA: ib_uverbs_core_support = 1 << 1;

pub const IB_UVERBS_ACCESS_FLUSH_GLOBAL: ib_uverbs_access_flags = 1 << 8;
pub const IB_UVERBS_ACCESS_FLUSH_PERSISTENT: ib_uverbs_access_flags = 1 << 9;

pub const RDMA_DRIVER_IONIC: rdma_driver_id = 21;

/// Extended port attributes: the legacy reply, then the second capability
/// word and the extended active speed.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_query_port_resp_ex {
    pub legacy_resp: ib_uverbs_query_port_resp,
    pub port_cap_flags2: u16,
    pub reserved: [u8; 2],
    pub active_speed_ex: u32,
}

/// What an `ib_uverbs_buffer_desc` describes.
pub type ib_uverbs_buffer_type = u32;
pub const IB_UVERBS_BUFFER_TYPE_DMABUF: ib_uverbs_buffer_type = 0;
pub const IB_UVERBS_BUFFER_TYPE_VA: ib_uverbs_buffer_type = 1;

/// A memory buffer handed to the kernel: a dma-buf (fd) or a virtual range.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ib_uverbs_buffer_desc {
    /// An `ib_uverbs_buffer_type`.
    pub type_: u32,
    pub fd: i32,
    pub flags: u32,
    pub optional_flags: u32,
    pub addr: u64,
    pub length: u64,
}

/// C: the anonymous union `RDMA_UAPI_PTR(void *, val_ptr)` becomes.
#[repr(C)]
#[derive(Clone, Copy)]
pub union ib_uverbs_flow_action_esp_encap_val_ptr {
    /// A flow filter of the type `type_` names.
    pub val_ptr: *mut core::ffi::c_void,
    pub val_ptr_data_u64: u64,
}

/// C: the anonymous union `RDMA_UAPI_PTR(struct ib_uverbs_flow_action_esp_encap *, next_ptr)` becomes.
#[repr(C)]
#[derive(Clone, Copy)]
pub union ib_uverbs_flow_action_esp_encap_next_ptr {
    pub next_ptr: *mut ib_uverbs_flow_action_esp_encap,
    pub next_ptr_data_u64: u64,
}

/// One header of an ESP encapsulation, chained through `next_ptr`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ib_uverbs_flow_action_esp_encap {
    /// C: anonymous union.
    pub val_ptr: ib_uverbs_flow_action_esp_encap_val_ptr,
    /// C: anonymous union.
    pub next_ptr: ib_uverbs_flow_action_esp_encap_next_ptr,
    pub len: u16,
    pub type_: u16,
}
