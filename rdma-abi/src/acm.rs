//! The messages librdmacm exchanges with the ibacm daemon (`<infiniband/acm.h>`):
//! a resolve request and its answer, a header followed by endpoint entries.
//! No probe measures these: their layout is checked by hand in
//! `src/layout/hand_kept.rs`.

use crate::verbs::ibv_path_record;

pub const ACM_VERSION: u8 = 1;
pub const ACM_OP_RESOLVE: u8 = 0x01;
pub const ACM_MSG_HDR_LENGTH: usize = 16;
pub const ACM_MSG_EP_LENGTH: usize = 72;
pub const ACM_MSG_DATA_LENGTH: usize = ACM_MSG_EP_LENGTH * 8;
/// `sizeof(struct acm_msg)`: the receive buffer.
pub const ACM_MSG_LENGTH: usize = ACM_MSG_HDR_LENGTH + ACM_MSG_DATA_LENGTH;
pub const ACM_MAX_ADDRESS: usize = 64;

pub const ACM_EP_INFO_NAME: u16 = 0x0001;
pub const ACM_EP_INFO_ADDRESS_IP: u16 = 0x0002;
pub const ACM_EP_INFO_ADDRESS_IP6: u16 = 0x0003;
pub const ACM_EP_INFO_PATH: u16 = 0x0010;

pub const ACM_EP_FLAG_SOURCE: u32 = 1 << 0;
pub const ACM_EP_FLAG_DEST: u32 = 1 << 1;
pub const ACM_FLAGS_NODELAY: u32 = 1 << 30;
pub const ACM_FLAGS_QUERY_SA: u32 = 1 << 31;

/// Message header (`struct acm_hdr`); host order for resolve messages.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct acm_hdr {
    pub version: u8,
    pub opcode: u8,
    pub status: u8,
    pub data: [u8; 3],
    pub length: u16,
    pub tid: u64,
}

/// `union acm_ep_info`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union acm_ep_info {
    pub addr: [u8; ACM_MAX_ADDRESS],
    pub name: [u8; ACM_MAX_ADDRESS],
    pub path: ibv_path_record,
}

/// One endpoint entry (`struct acm_ep_addr_data`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct acm_ep_addr_data {
    pub flags: u32,
    pub type_: u16,
    pub reserved: u16,
    pub info: acm_ep_info,
}
