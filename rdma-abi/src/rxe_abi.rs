//! Soft-RoCE's command wrappers and rdma-core 65's additions to its uAPI.
//!
//! - rdma-core's `providers/rxe/rxe-abi.h` (not installed): the commands
//!   and responses of the rxe provider, each the uverbs wrapper of
//!   [`crate::kern`] followed directly by the driver data of
//!   [`crate::rxe`] (upstream's `DECLARE_DRV_CMD`, whose static asserts
//!   rule out padding between the two). C reaches the driver data both as
//!   `drv_payload` and through an anonymous struct; here only as
//!   `drv_payload`. The commands whose driver data is empty are the plain
//!   wrappers of [`crate::kern`].
//! - rdma-core 65's copy of `rdma_user_rxe.h`: the `flush` member of
//!   `rxe_send_wr.wr` ([`rxe_send_wr_wr_flush`], for `ibv_wr_flush`), which
//!   kernel 6.1's header lacks; it sits at the start of the union, as every
//!   member does, and is smaller than the union. 65 also names the WQE data
//!   `atomic_wr` for `ibv_wr_atomic_write`'s 8 bytes; it is the same place
//!   as `rxe_dma_info::data.inline_data`, so it needs no type.
//!
//! Checked in `src/layout/hand_kept.rs` (no probe compiles against these
//! headers): the wrappers' offsets and sizes are the sums the C static
//! asserts require, the flush member's numbers counted from 65's header.

use crate::kern::*;
use crate::rxe::*;

/// `struct urxe_create_ah_resp`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct urxe_create_ah_resp {
    pub ibv_resp: ib_uverbs_create_ah_resp,
    pub drv_payload: rxe_create_ah_resp,
}

/// `struct urxe_create_cq_resp`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct urxe_create_cq_resp {
    pub ibv_resp: ib_uverbs_create_cq_resp,
    pub drv_payload: rxe_create_cq_resp,
}

/// `struct urxe_create_cq_ex_resp`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct urxe_create_cq_ex_resp {
    pub ibv_resp: ib_uverbs_ex_create_cq_resp,
    pub drv_payload: rxe_create_cq_resp,
}

/// `struct urxe_create_qp_resp`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct urxe_create_qp_resp {
    pub ibv_resp: ib_uverbs_create_qp_resp,
    pub drv_payload: rxe_create_qp_resp,
}

/// `struct urxe_create_qp_ex_resp`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct urxe_create_qp_ex_resp {
    pub ibv_resp: ib_uverbs_ex_create_qp_resp,
    pub drv_payload: rxe_create_qp_resp,
}

/// `struct urxe_create_srq_resp`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct urxe_create_srq_resp {
    pub ibv_resp: ib_uverbs_create_srq_resp,
    pub drv_payload: rxe_create_srq_resp,
}

/// `struct urxe_create_srq_ex_resp`: CREATE_XSRQ answers as CREATE_SRQ.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct urxe_create_srq_ex_resp {
    pub ibv_resp: ib_uverbs_create_srq_resp,
    pub drv_payload: rxe_create_srq_resp,
}

/// `struct urxe_modify_srq`: the command carries where the kernel writes
/// the new queue's `mminfo`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct urxe_modify_srq {
    pub ibv_cmd: ibv_modify_srq,
    pub drv_payload: rxe_modify_srq_cmd,
}

/// `struct urxe_resize_cq_resp`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct urxe_resize_cq_resp {
    pub ibv_resp: ib_uverbs_resize_cq_resp,
    pub drv_payload: rxe_resize_cq_resp,
}

/// `rxe_send_wr.wr.flush` (rdma-core 65's header): an RDMA FLUSH of
/// `length` bytes at `remote_addr`; `type_` and `level` are the
/// `IB_FLUSH_*` / `IB_UVERBS_FLUSH_*` values of `ibv_wr_flush`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rxe_send_wr_wr_flush {
    pub remote_addr: u64,
    pub length: u32,
    pub rkey: u32,
    pub type_: u8,
    pub level: u8,
}

crate::zeroable!(
    urxe_create_ah_resp,
    urxe_create_cq_resp,
    urxe_create_cq_ex_resp,
    urxe_create_qp_resp,
    urxe_create_qp_ex_resp,
    urxe_create_srq_resp,
    urxe_create_srq_ex_resp,
    urxe_modify_srq,
    urxe_resize_cq_resp,
    rxe_send_wr_wr_flush,
);
