//! The rsocket wire format, as upstream v44 puts it on the wire.
//!
//! - Connection private data ([`RsConnData`], 40 bytes, after a 36-byte
//!   `ib_connect_hdr` on AF_IB): version 1, flags, the receive credits
//!   (big-endian), the target SGL (where the peer writes its receive-buffer
//!   advertisements) and the first half of our receive buffer.
//! - Every message is one 32-bit immediate (host order on our side, sent
//!   big-endian): the top 3 bits are the opcode ([`RS_OP_DATA`] ...), the
//!   low 29 bits its argument (byte count, credit sequence number, control
//!   code or iomap index).
//! - SGL updates are RDMA WRITEs of one [`RsSge`] (addr, key, length) into
//!   the peer's target SGL array, which holds [`RS_SGL_SIZE`] entries
//!   followed by the iomap table ([`RsIomap`] entries).
//!
//! The SGEs inside private data are big-endian; SGEs written with RDMA are
//! in the writer's byte order, and the reader swaps when the peer's flags
//! say its order differs (`RS_CONN_FLAG_NET`).

/// First chunk of a send; each later chunk doubles up to [`RS_MAX_TRANSFER`].
pub(crate) const RS_OLAP_START_SIZE: u32 = 2048;
pub(crate) const RS_MAX_TRANSFER: u32 = 65536;
/// Minimum free send buffer before a send is attempted.
pub(crate) const RS_SNDLOWAT: u32 = 2048;
pub(crate) const RS_QP_MIN_SIZE: u16 = 16;
pub(crate) const RS_QP_MAX_SIZE: u16 = 0xFFFE;
/// Control messages in flight at most (a power of two).
pub(crate) const RS_QP_CTRL_SIZE: u32 = 4;
pub(crate) const RS_CONN_RETRIES: u32 = 6;
/// Entries of the target SGL ring.
pub(crate) const RS_SGL_SIZE: usize = 2;

// Opcodes (the top three bits of the immediate).
pub(crate) const RS_OP_DATA: u32 = 0;
#[allow(dead_code)] // reserved on the wire, never sent: named to complete the opcode space
const RS_OP_RSVD_DATA_MORE: u32 = 1;
/// Direct (iomap) write: local bookkeeping only, never sent.
pub(crate) const RS_OP_WRITE: u32 = 2;
#[allow(dead_code)] // reserved, as above
const RS_OP_RSVD_DRA_MORE: u32 = 3;
pub(crate) const RS_OP_SGL: u32 = 4;
#[allow(dead_code)] // reserved, as above
const RS_OP_RSVD: u32 = 5;
pub(crate) const RS_OP_IOMAP_SGL: u32 = 6;
pub(crate) const RS_OP_CTRL: u32 = 7;

// Control codes carried by RS_OP_CTRL.
pub(crate) const RS_CTRL_DISCONNECT: u32 = 0;
pub(crate) const RS_CTRL_KEEPALIVE: u32 = 1;
pub(crate) const RS_CTRL_SHUTDOWN: u32 = 2;

/// Size of a message when sent as a SEND (iWARP: no write-with-immediate).
pub(crate) const RS_MSG_SIZE: u32 = 4;

#[inline]
pub(crate) const fn msg_set(op: u32, data: u32) -> u32 {
    (op << 29) | data
}
#[inline]
pub(crate) const fn msg_op(imm: u32) -> u32 {
    imm >> 29
}
#[inline]
pub(crate) const fn msg_data(imm: u32) -> u32 {
    imm & 0x1FFF_FFFF
}

// Work request ids: bit 63 marks receives, bit 62 the extra SEND of the
// iWARP message mode; the low 32 bits carry the message.
pub(crate) const WR_ID_FLAG_RECV: u64 = 1 << 63;
pub(crate) const WR_ID_FLAG_MSG_SEND: u64 = 1 << 62;
#[inline]
pub(crate) const fn send_wr_id(data: u32) -> u64 {
    data as u64
}
#[inline]
pub(crate) const fn recv_wr_id(data: u32) -> u64 {
    WR_ID_FLAG_RECV | data as u64
}
#[inline]
pub(crate) const fn wr_data(wr_id: u64) -> u32 {
    wr_id as u32
}

/// Connection flags of [`RsConnData::flags`].
pub(crate) const RS_CONN_FLAG_NET: u8 = 1 << 0;
pub(crate) const RS_CONN_FLAG_IOMAP: u8 = 1 << 1;

/// A remote buffer: address, rkey, length (this field order is the wire's).
#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub(crate) struct RsSge {
    pub(crate) addr: u64,
    pub(crate) key: u32,
    pub(crate) length: u32,
}
const _: () = assert!(core::mem::size_of::<RsSge>() == 16);
const _: () = assert!(core::mem::offset_of!(RsSge, key) == 8);
const _: () = assert!(core::mem::offset_of!(RsSge, length) == 12);

/// Largest control payload (an SGE).
pub(crate) const RS_MAX_CTRL_MSG: u32 = core::mem::size_of::<RsSge>() as u32;

/// An iomap table entry: a mapping's offset and where it lives.
#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
pub(crate) struct RsIomap {
    pub(crate) offset: u64,
    pub(crate) sge: RsSge,
}
const _: () = assert!(core::mem::size_of::<RsIomap>() == 24);

/// The private data of a connect request and of its reply.
#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub(crate) struct RsConnData {
    pub(crate) version: u8,
    pub(crate) flags: u8,
    /// Big-endian on the wire.
    pub(crate) credits: u16,
    pub(crate) reserved: [u8; 3],
    pub(crate) target_iomap_size: u8,
    /// Fields big-endian on the wire.
    pub(crate) target_sgl: RsSge,
    /// Fields big-endian on the wire.
    pub(crate) data_buf: RsSge,
}
const _: () = assert!(core::mem::size_of::<RsConnData>() == 40);
const _: () = assert!(core::mem::offset_of!(RsConnData, target_iomap_size) == 7);
const _: () = assert!(core::mem::offset_of!(RsConnData, target_sgl) == 8);
const _: () = assert!(core::mem::offset_of!(RsConnData, data_buf) == 24);

/// `sizeof(struct ib_connect_hdr)`: what precedes the connection data on AF_IB.
pub(crate) const IB_CONNECT_HDR_SIZE: usize = 36;

impl RsConnData {
    /// The 40 wire bytes.
    pub(crate) fn to_bytes(self) -> [u8; 40] {
        let mut b = [0u8; 40];
        b[0] = self.version;
        b[1] = self.flags;
        b[2..4].copy_from_slice(&self.credits.to_be_bytes());
        b[4..7].copy_from_slice(&self.reserved);
        b[7] = self.target_iomap_size;
        put_sge_be(&mut b[8..24], &self.target_sgl);
        put_sge_be(&mut b[24..40], &self.data_buf);
        b
    }
    /// Parses wire bytes (host values out); None if shorter than 40.
    pub(crate) fn from_bytes(b: &[u8]) -> Option<RsConnData> {
        if b.len() < 40 {
            return None;
        }
        let mut reserved = [0u8; 3];
        reserved.copy_from_slice(&b[4..7]);
        Some(RsConnData {
            version: b[0],
            flags: b[1],
            credits: u16::from_be_bytes([b[2], b[3]]),
            reserved,
            target_iomap_size: b[7],
            target_sgl: get_sge_be(&b[8..24]),
            data_buf: get_sge_be(&b[24..40]),
        })
    }
}

fn put_sge_be(b: &mut [u8], s: &RsSge) {
    b[0..8].copy_from_slice(&s.addr.to_be_bytes());
    b[8..12].copy_from_slice(&s.key.to_be_bytes());
    b[12..16].copy_from_slice(&s.length.to_be_bytes());
}

fn get_sge_be(b: &[u8]) -> RsSge {
    RsSge {
        addr: u64::from_be_bytes(b[0..8].try_into().unwrap()),
        key: u32::from_be_bytes(b[8..12].try_into().unwrap()),
        length: u32::from_be_bytes(b[12..16].try_into().unwrap()),
    }
}

/// Compresses a size into `bits` bits: values up to 2^(bits-1) are kept,
/// larger ones become a flag bit plus the value shifted right by `bits`.
pub(crate) fn value_to_scale(value: i32, bits: u32) -> i32 {
    if value <= (1 << (bits - 1)) {
        value
    } else {
        (1 << (bits - 1)) | (value >> bits)
    }
}

/// The inverse of [`value_to_scale`].
pub(crate) fn scale_to_value(value: i32, bits: u32) -> i32 {
    if value <= (1 << (bits - 1)) {
        value
    } else {
        (value & !(1 << (bits - 1))) << bits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn immediate_layout() {
        assert_eq!(msg_set(RS_OP_SGL, 5), 0x8000_0005);
        assert_eq!(msg_set(RS_OP_CTRL, RS_CTRL_SHUTDOWN), 0xE000_0002);
        assert_eq!(msg_op(0xE000_0002), RS_OP_CTRL);
        assert_eq!(msg_data(0x3FFF_FFFF), 0x1FFF_FFFF);
        assert_eq!(wr_data(recv_wr_id(7)), 7);
        assert_ne!(recv_wr_id(0) & WR_ID_FLAG_RECV, 0);
    }

    #[test]
    fn conn_data_is_big_endian_on_the_wire() {
        let c = RsConnData {
            version: 1,
            flags: RS_CONN_FLAG_IOMAP,
            credits: 384,
            reserved: [0; 3],
            target_iomap_size: 0,
            target_sgl: RsSge { addr: 0x1122_3344_5566_7788, key: 0xAABB_CCDD, length: 2 },
            data_buf: RsSge { addr: 0x1000, key: 0x42, length: 65536 },
        };
        let b = c.to_bytes();
        assert_eq!(&b[0..8], &[1, 2, 0x01, 0x80, 0, 0, 0, 0]);
        assert_eq!(&b[8..16], &[0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]);
        assert_eq!(&b[16..24], &[0xAA, 0xBB, 0xCC, 0xDD, 0, 0, 0, 2]);
        assert_eq!(&b[36..40], &[0, 1, 0, 0]);
        assert_eq!(RsConnData::from_bytes(&b), Some(c));
        assert_eq!(RsConnData::from_bytes(&b[..39]), None);
    }

    #[test]
    fn iomap_scale_round_trips_like_upstream() {
        assert_eq!(value_to_scale(128, 8), 128);
        assert_eq!(value_to_scale(129, 8), 128);
        assert_eq!(value_to_scale(512, 8), 130);
        assert_eq!(scale_to_value(130, 8), 512);
        assert_eq!(scale_to_value(64, 8), 64);
    }
}
