//! `<rdma/siw-abi.h>`: the kernel ABI of soft-iWARP (siw). The provider
//! maps the send, receive and completion queues the kernel allocates (the
//! `*_key` of the create responses are the mmap() offsets) and fills and
//! drains their elements itself: [`siw_sqe`], [`siw_rqe`], [`siw_cqe`],
//! each with a `flags` word whose `SIW_WQE_VALID` bit says who owns it.
//!
//! Measured against Debian 12's kernel 6.1 uAPI (`/usr/include/rdma`);
//! rdma-core 65's `kernel-headers/` copy differs only in comments.
//!
//! Conventions as in [`crate::verbs`]:
//! - C names; `__aligned_u64` is `u64`.
//! - `#define`s keep C's type: `c_int` for the numbers (array bounds cast
//!   them to `usize`), `usize` for the `sizeof` expression
//!   `SIW_MAX_INLINE`, `&str` for the node description.
//! - Each C enum is a `u32` alias plus its enumerators.
//! - The unnamed unions get a member name saying what they hold, and a type
//!   named `<outer>_<member>`: `siw_sqe.addr` ([`siw_sqe_addr`]: `raddr` or
//!   `base_mr`), `siw_sqe.sgl` ([`siw_sqe_sgl`]: `sge` or `access`),
//!   `siw_cqe.imm` ([`siw_cqe_imm`]: `imm_data` or `inval_stag`) and
//!   `siw_cqe.qp` ([`siw_cqe_qp`]: `base_qp` or `qp_id`). So C's
//!   `sqe->raddr` is `sqe.addr.raddr` and `cqe->qp_id` is `cqe.qp.qp_id`.
//! - `base_qp` points to the kernel's own QP object, which user space never
//!   sees: [`ib_qp`] is an opaque stand-in for it.
//!
//! Checked in `src/layout/siw.rs` (run `abi-tests/probe/run-uapi.sh`).

use core::ffi::c_int;

/// The node description the device reports.
pub const SIW_NODE_DESC_COMMON: &str = "Software iWARP stack";
/// The ABI version the device reports.
pub const SIW_ABI_VERSION: c_int = 1;
/// SGEs per send or receive element.
pub const SIW_MAX_SGE: c_int = 6;
/// The largest key of an object the kernel lets user space map.
pub const SIW_UOBJ_MAX_KEY: c_int = 0x08ffff;
/// A key no object has.
pub const SIW_INVAL_UOBJ_KEY: c_int = SIW_UOBJ_MAX_KEY + 1;

/// Driver data of the create-CQ response: the CQ's id, its number of
/// elements, and the mmap() offset of its ring.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct siw_uresp_create_cq {
    pub cq_id: u32,
    pub num_cqe: u32,
    pub cq_key: u64,
}

/// Driver data of the create-QP response: the QP's id, the sizes of its
/// queues and their mmap() offsets.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct siw_uresp_create_qp {
    pub qp_id: u32,
    pub num_sqe: u32,
    pub num_rqe: u32,
    pub pad: u32,
    pub sq_key: u64,
    pub rq_key: u64,
}

/// Driver data of the register-MR command: the key byte of the STag.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct siw_ureq_reg_mr {
    pub stag_key: u8,
    pub reserved: [u8; 3],
    pub pad: u32,
}

/// Driver data of the register-MR response: the STag.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct siw_uresp_reg_mr {
    pub stag: u32,
    pub pad: u32,
}

/// Driver data of the create-SRQ response: its number of elements and the
/// mmap() offset of its ring.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct siw_uresp_create_srq {
    pub num_rqe: u32,
    pub pad: u32,
    pub srq_key: u64,
}

/// Driver data of the get-context response: the device's id.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct siw_uresp_alloc_ctx {
    pub dev_id: u32,
    pub pad: u32,
}

/// The operation of a queue element (`siw_sqe::opcode`, `siw_cqe::opcode`).
pub type siw_opcode = u32;
pub const SIW_OP_WRITE: siw_opcode = 0;
pub const SIW_OP_READ: siw_opcode = 1;
pub const SIW_OP_READ_LOCAL_INV: siw_opcode = 2;
pub const SIW_OP_SEND: siw_opcode = 3;
pub const SIW_OP_SEND_WITH_IMM: siw_opcode = 4;
pub const SIW_OP_SEND_REMOTE_INV: siw_opcode = 5;
/// Not supported by the device.
pub const SIW_OP_FETCH_AND_ADD: siw_opcode = 6;
/// Not supported by the device.
pub const SIW_OP_COMP_AND_SWAP: siw_opcode = 7;
pub const SIW_OP_RECEIVE: siw_opcode = 8;
/// Used by the kernel for its own elements.
pub const SIW_OP_READ_RESPONSE: siw_opcode = 9;
/// Kernel users only.
pub const SIW_OP_INVAL_STAG: siw_opcode = 10;
/// Kernel users only.
pub const SIW_OP_REG_MR: siw_opcode = 11;
/// The count of opcodes.
pub const SIW_NUM_OPCODES: siw_opcode = 12;

/// One scatter/gather element, laid out as `ibv_sge` is.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct siw_sge {
    pub laddr: u64,
    pub length: u32,
    pub lkey: u32,
}

/// The most inline bytes a send element holds: they take the room of all
/// its SGEs but the first.
pub const SIW_MAX_INLINE: usize =
    core::mem::size_of::<siw_sge>() * (SIW_MAX_SGE as usize - 1);

/// Bits of an element's `flags`.
pub type siw_wqe_flags = u32;
/// The element is filled and belongs to the consumer.
pub const SIW_WQE_VALID: siw_wqe_flags = 1;
pub const SIW_WQE_INLINE: siw_wqe_flags = 1 << 1;
pub const SIW_WQE_SIGNALLED: siw_wqe_flags = 1 << 2;
pub const SIW_WQE_SOLICITED: siw_wqe_flags = 1 << 3;
pub const SIW_WQE_READ_FENCE: siw_wqe_flags = 1 << 4;
pub const SIW_WQE_REM_INVAL: siw_wqe_flags = 1 << 5;
pub const SIW_WQE_COMPLETED: siw_wqe_flags = 1 << 6;

/// `siw_sqe.addr`: the remote address, or for a registration the MR.
#[repr(C)]
#[derive(Clone, Copy)]
pub union siw_sqe_addr {
    pub raddr: u64,
    pub base_mr: u64,
}

/// `siw_sqe.sgl`: the SGEs (or inline data), or for a registration the
/// access flags.
#[repr(C)]
#[derive(Clone, Copy)]
pub union siw_sqe_sgl {
    pub sge: [siw_sge; SIW_MAX_SGE as usize],
    pub access: u64,
}

/// A send queue element.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct siw_sqe {
    pub id: u64,
    /// `SIW_WQE_*` bits.
    pub flags: u16,
    pub num_sge: u8,
    /// A `siw_opcode`.
    pub opcode: u8,
    pub rkey: u32,
    /// C: anonymous union.
    pub addr: siw_sqe_addr,
    /// C: anonymous union.
    pub sgl: siw_sqe_sgl,
}

/// A receive queue element.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct siw_rqe {
    pub id: u64,
    /// `SIW_WQE_*` bits.
    pub flags: u16,
    pub num_sge: u8,
    /// Set by the kernel; ignored when user space writes it.
    pub opcode: u8,
    pub unused: u32,
    pub sge: [siw_sge; SIW_MAX_SGE as usize],
}

/// CQ arming bits (`siw_cq_ctrl::flags`).
pub type siw_notify_flags = u32;
pub const SIW_NOTIFY_NOT: siw_notify_flags = 0;
pub const SIW_NOTIFY_SOLICITED: siw_notify_flags = 1 << 0;
pub const SIW_NOTIFY_NEXT_COMPLETION: siw_notify_flags = 1 << 1;
pub const SIW_NOTIFY_MISSED_EVENTS: siw_notify_flags = 1 << 2;
pub const SIW_NOTIFY_ALL: siw_notify_flags =
    SIW_NOTIFY_SOLICITED | SIW_NOTIFY_NEXT_COMPLETION | SIW_NOTIFY_MISSED_EVENTS;

/// The status of a completion (`siw_cqe::status`).
pub type siw_wc_status = u32;
pub const SIW_WC_SUCCESS: siw_wc_status = 0;
pub const SIW_WC_LOC_LEN_ERR: siw_wc_status = 1;
pub const SIW_WC_LOC_PROT_ERR: siw_wc_status = 2;
pub const SIW_WC_LOC_QP_OP_ERR: siw_wc_status = 3;
pub const SIW_WC_WR_FLUSH_ERR: siw_wc_status = 4;
pub const SIW_WC_BAD_RESP_ERR: siw_wc_status = 5;
pub const SIW_WC_LOC_ACCESS_ERR: siw_wc_status = 6;
pub const SIW_WC_REM_ACCESS_ERR: siw_wc_status = 7;
pub const SIW_WC_REM_INV_REQ_ERR: siw_wc_status = 8;
pub const SIW_WC_GENERAL_ERR: siw_wc_status = 9;
/// The count of statuses.
pub const SIW_NUM_WC_STATUS: siw_wc_status = 10;

/// The kernel's QP object, which `siw_cqe_qp::base_qp` points to inside the
/// kernel. Opaque: user space reads `qp_id`.
#[repr(C)]
pub struct ib_qp {
    _opaque: [u8; 0],
}

/// `siw_cqe.imm`: the immediate data, or the STag a send invalidated.
#[repr(C)]
#[derive(Clone, Copy)]
pub union siw_cqe_imm {
    pub imm_data: u64,
    pub inval_stag: u32,
}

/// `siw_cqe.qp`: which QP completed, as the kernel's pointer or as the QP
/// number user space sees.
#[repr(C)]
#[derive(Clone, Copy)]
pub union siw_cqe_qp {
    pub base_qp: *mut ib_qp,
    pub qp_id: u64,
}

/// A completion queue element.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct siw_cqe {
    pub id: u64,
    /// `SIW_WQE_*` bits.
    pub flags: u8,
    /// A `siw_opcode`.
    pub opcode: u8,
    /// A `siw_wc_status`.
    pub status: u16,
    pub bytes: u32,
    /// C: anonymous union.
    pub imm: siw_cqe_imm,
    /// C: anonymous union.
    pub qp: siw_cqe_qp,
}

/// The CQ's arming word, shared with the kernel at the end of the CQ
/// ring.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct siw_cq_ctrl {
    /// `SIW_NOTIFY_*` bits.
    pub flags: u32,
    pub pad: u32,
}

crate::zeroable!(
    siw_uresp_create_cq,
    siw_uresp_create_qp,
    siw_ureq_reg_mr,
    siw_uresp_reg_mr,
    siw_uresp_create_srq,
    siw_uresp_alloc_ctx,
    siw_sge,
    siw_sqe_addr,
    siw_sqe_sgl,
    siw_sqe,
    siw_rqe,
    siw_cqe_imm,
    siw_cqe_qp,
    siw_cqe,
    siw_cq_ctrl,
);
