//! `<rdma/rdma_user_rxe.h>`: the kernel ABI of Soft-RoCE (rxe), the
//! software RoCE v2 device. Its user-space provider and the kernel share
//! the work and completion queues through memory the provider maps; the
//! driver data of the create/resize responses tell it where (`mminfo`).
//!
//! Measured against Debian 12's kernel 6.1 uAPI (`/usr/include/rdma`).
//! rdma-core 65's `kernel-headers/` copy has the same layouts; it only adds,
//! inside `rxe_send_wr.wr`, a `flush` member (smaller than `ud`) and an
//! `atomic_wr` flexible array, neither of which changes a size or an
//! offset. They are not mirrored here, as 6.1's header lacks them.
//!
//! Conventions as in [`crate::verbs`]:
//! - C names; `__aligned_u64` is `u64`, big-endian fields are plain
//!   integers holding the wire-order bytes ("Big-endian.").
//! - The anonymous enum of network types gets the type of the field that
//!   holds its values (`rxe_av::network_type`, `u8`).
//! - Members whose type is anonymous keep their C name and get a type named
//!   `<outer>_<member>`: [`rxe_gid_global`], [`rxe_send_wr_ex`],
//!   [`rxe_send_wr_wr`] (and its `_rdma`, `_atomic`, `_ud`, `_mw`),
//!   [`rxe_av_sgid_addr`] (C declares `sgid_addr` and `dgid_addr` with one
//!   anonymous union; [`rxe_av_dgid_addr`] is the same type).
//! - The unnamed union at the end of [`rxe_dma_info`] is the member `data`
//!   of type [`rxe_dma_info_data`]; its two flexible arrays, like
//!   `rxe_queue_buf::data`, are zero-length arrays, so sizes equal C's.
//!
//! Checked in `src/layout/rxe.rs` (run `abi-tests/probe/run-uapi.sh`).

use libc::{sockaddr_in, sockaddr_in6};

/// `rxe_av::network_type`: the address family of the GIDs (anonymous C
/// enum).
pub const RXE_NETWORK_TYPE_IPV4: u8 = 1;
pub const RXE_NETWORK_TYPE_IPV6: u8 = 2;

/// `rxe_gid.global`: the GID as prefix and interface id.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rxe_gid_global {
    /// Big-endian.
    pub subnet_prefix: u64,
    /// Big-endian.
    pub interface_id: u64,
}

/// A 16-byte GID, as bytes or as two 64-bit halves.
#[repr(C)]
#[derive(Clone, Copy)]
pub union rxe_gid {
    pub raw: [u8; 16],
    pub global: rxe_gid_global,
}

/// The GRH part of an address vector.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rxe_global_route {
    pub dgid: rxe_gid,
    pub flow_label: u32,
    pub sgid_index: u8,
    pub hop_limit: u8,
    pub traffic_class: u8,
}

/// `rxe_av.sgid_addr`: an IP address with its family, v4 or v6. C declares
/// both `sgid_addr` and `dgid_addr` with this one anonymous union.
#[repr(C)]
#[derive(Clone, Copy)]
pub union rxe_av_sgid_addr {
    pub _sockaddr_in: sockaddr_in,
    pub _sockaddr_in6: sockaddr_in6,
}

/// `rxe_av.dgid_addr`: the same anonymous union as `sgid_addr`.
pub type rxe_av_dgid_addr = rxe_av_sgid_addr;

/// An address vector: where a UD send or an AH goes.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rxe_av {
    pub port_num: u8,
    /// One of `RXE_NETWORK_TYPE_*`.
    pub network_type: u8,
    pub dmac: [u8; 6],
    pub grh: rxe_global_route,
    pub sgid_addr: rxe_av_sgid_addr,
    pub dgid_addr: rxe_av_dgid_addr,
}

/// `rxe_send_wr.ex`: the extra 32-bit word of a send.
#[repr(C)]
#[derive(Clone, Copy)]
pub union rxe_send_wr_ex {
    /// Big-endian immediate data.
    pub imm_data: u32,
    /// The rkey a send-with-invalidate invalidates.
    pub invalidate_rkey: u32,
}

/// `rxe_send_wr.wr.rdma`: RDMA read and write.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rxe_send_wr_wr_rdma {
    pub remote_addr: u64,
    pub rkey: u32,
    pub reserved: u32,
}

/// `rxe_send_wr.wr.atomic`: compare-and-swap and fetch-and-add.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rxe_send_wr_wr_atomic {
    pub remote_addr: u64,
    pub compare_add: u64,
    pub swap: u64,
    pub rkey: u32,
    pub reserved: u32,
}

/// `rxe_send_wr.wr.ud`: the destination of a UD send, by AH number or
/// with the address vector itself.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rxe_send_wr_wr_ud {
    pub remote_qpn: u32,
    pub remote_qkey: u32,
    pub pkey_index: u16,
    pub reserved: u16,
    pub ah_num: u32,
    pub pad: [u32; 4],
    pub av: rxe_av,
}

/// `rxe_send_wr.wr.mw`: binding a memory window.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rxe_send_wr_wr_mw {
    pub addr: u64,
    pub length: u64,
    pub mr_lkey: u32,
    pub mw_rkey: u32,
    pub rkey: u32,
    pub access: u32,
}

/// `rxe_send_wr.wr`: the opcode's own parameters.
#[repr(C)]
#[derive(Clone, Copy)]
pub union rxe_send_wr_wr {
    pub rdma: rxe_send_wr_wr_rdma,
    pub atomic: rxe_send_wr_wr_atomic,
    pub ud: rxe_send_wr_wr_ud,
    pub mw: rxe_send_wr_wr_mw,
}

/// A send work request as it sits in the shared send queue.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rxe_send_wr {
    pub wr_id: u64,
    pub reserved: u32,
    /// An `ibv_wr_opcode`.
    pub opcode: u32,
    /// `IBV_SEND_*` flags.
    pub send_flags: u32,
    pub ex: rxe_send_wr_ex,
    pub wr: rxe_send_wr_wr,
}

/// One scatter/gather element.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rxe_sge {
    pub addr: u64,
    pub length: u32,
    pub lkey: u32,
}

/// Where to mmap() a shared queue: the offset to pass on the device file
/// and the length of the mapping.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct mminfo {
    pub offset: u64,
    pub size: u32,
    pub pad: u32,
}

/// `rxe_dma_info.data`: what follows the header, inline bytes or the
/// scatter/gather list.
#[repr(C)]
#[derive(Clone, Copy)]
pub union rxe_dma_info_data {
    /// The payload itself, for an inline send.
    pub inline_data: [u8; 0],
    /// `num_sge` elements.
    pub sge: [rxe_sge; 0],
}

/// The data part of a WQE: its length, the progress through it, then the
/// inline data or the SGEs.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rxe_dma_info {
    pub length: u32,
    pub resid: u32,
    pub cur_sge: u32,
    pub num_sge: u32,
    pub sge_offset: u32,
    pub reserved: u32,
    /// C: anonymous union.
    pub data: rxe_dma_info_data,
}

/// A send queue element: the request, the kernel's progress on it, then
/// its data.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rxe_send_wqe {
    pub wr: rxe_send_wr,
    pub status: u32,
    pub state: u32,
    pub iova: u64,
    pub mask: u32,
    pub first_psn: u32,
    pub last_psn: u32,
    pub ack_length: u32,
    pub ssn: u32,
    pub has_rd_atomic: u32,
    pub dma: rxe_dma_info,
}

/// A receive queue element.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rxe_recv_wqe {
    pub wr_id: u64,
    pub reserved: u32,
    pub padding: u32,
    pub dma: rxe_dma_info,
}

/// Driver data of the create-AH response: the number a UD send names the
/// AH by.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rxe_create_ah_resp {
    pub ah_num: u32,
    pub reserved: u32,
}

/// Driver data of the create-CQ response: where to map the CQ.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rxe_create_cq_resp {
    pub mi: mminfo,
}

/// Driver data of the resize-CQ response: where to map the new CQ.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rxe_resize_cq_resp {
    pub mi: mminfo,
}

/// Driver data of the create-QP response: where to map the receive and the
/// send queue.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rxe_create_qp_resp {
    pub rq_mi: mminfo,
    pub sq_mi: mminfo,
}

/// Driver data of the create-SRQ response: where to map the SRQ, and its
/// number.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rxe_create_srq_resp {
    pub mi: mminfo,
    pub srq_num: u32,
    pub reserved: u32,
}

/// Driver data of the modify-SRQ command: the user address where the
/// kernel writes the new `mminfo` after a resize.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rxe_modify_srq_cmd {
    pub mmap_info_addr: u64,
}

/// The head of every shared queue: element size and index mask, the
/// producer and the consumer index each on a 128-byte line of its own,
/// then the elements.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rxe_queue_buf {
    pub log2_elem_size: u32,
    pub index_mask: u32,
    pub pad_1: [u32; 30],
    pub producer_index: u32,
    pub pad_2: [u32; 31],
    pub consumer_index: u32,
    pub pad_3: [u32; 31],
    /// The queue's elements.
    pub data: [u8; 0],
}

crate::zeroable!(
    rxe_gid_global,
    rxe_gid,
    rxe_global_route,
    rxe_av_sgid_addr,
    rxe_av,
    rxe_send_wr_ex,
    rxe_send_wr_wr_rdma,
    rxe_send_wr_wr_atomic,
    rxe_send_wr_wr_ud,
    rxe_send_wr_wr_mw,
    rxe_send_wr_wr,
    rxe_send_wr,
    rxe_sge,
    mminfo,
    rxe_dma_info_data,
    rxe_dma_info,
    rxe_send_wqe,
    rxe_recv_wqe,
    rxe_create_ah_resp,
    rxe_create_cq_resp,
    rxe_resize_cq_resp,
    rxe_create_qp_resp,
    rxe_create_srq_resp,
    rxe_modify_srq_cmd,
    rxe_queue_buf,
);
