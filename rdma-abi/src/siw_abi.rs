//! Soft-iWARP's command wrappers: rdma-core's `providers/siw/siw_abi.h`
//! (not installed). Each is the uverbs wrapper of [`crate::kern`] followed
//! directly by the driver data of [`crate::siw`] (upstream's
//! `DECLARE_DRV_CMD`, whose static asserts rule out padding between the
//! two); C reaches the driver data as `drv_payload` and through an
//! anonymous struct, here only as `drv_payload`. The commands whose driver
//! data is empty (get-context, create CQ, SRQ and QP) are the plain
//! wrappers of [`crate::kern`].
//!
//! Checked in `src/layout/hand_kept.rs`, with the numbers a probe compiled
//! against rdma-core 44's `siw_abi.h` printed.

use crate::kern::*;
use crate::siw::*;

/// `struct siw_cmd_alloc_context_resp`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct siw_cmd_alloc_context_resp {
    pub ibv_resp: ib_uverbs_get_context_resp,
    pub drv_payload: siw_uresp_alloc_ctx,
}

/// `struct siw_cmd_create_cq_resp`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct siw_cmd_create_cq_resp {
    pub ibv_resp: ib_uverbs_create_cq_resp,
    pub drv_payload: siw_uresp_create_cq,
}

/// `struct siw_cmd_create_srq_resp`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct siw_cmd_create_srq_resp {
    pub ibv_resp: ib_uverbs_create_srq_resp,
    pub drv_payload: siw_uresp_create_srq,
}

/// `struct siw_cmd_create_qp_resp`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct siw_cmd_create_qp_resp {
    pub ibv_resp: ib_uverbs_create_qp_resp,
    pub drv_payload: siw_uresp_create_qp,
}

/// `struct siw_cmd_reg_mr`: the command carries the STag key byte.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct siw_cmd_reg_mr {
    pub ibv_cmd: ibv_reg_mr,
    pub drv_payload: siw_ureq_reg_mr,
}

/// `struct siw_cmd_reg_mr_resp`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct siw_cmd_reg_mr_resp {
    pub ibv_resp: ib_uverbs_reg_mr_resp,
    pub drv_payload: siw_uresp_reg_mr,
}

crate::zeroable!(
    siw_cmd_alloc_context_resp,
    siw_cmd_create_cq_resp,
    siw_cmd_create_srq_resp,
    siw_cmd_create_qp_resp,
    siw_cmd_reg_mr,
    siw_cmd_reg_mr_resp,
);
