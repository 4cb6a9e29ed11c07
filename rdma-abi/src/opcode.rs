//! `<infiniband/opcode.h>`: the opcodes of the InfiniBand base transport
//! header (BTH), one anonymous C enum. The header is the same in rdma-core
//! 44 and 65.
//!
//! An opcode is a transport's base (`IBV_OPCODE_RC` .. `IBV_OPCODE_UD`, the
//! top three bits) plus an operation's number (`IBV_OPCODE_SEND_FIRST` ..
//! `IBV_OPCODE_FETCH_ADD`); C writes the combined values
//! `IBV_OPCODE_<transport>_<operation>` with its `IBV_OPCODE()` macro (kept
//! by hand in `include/hand/infiniband/opcode.tail.h`), here they are
//! spelled out, for the operations each transport has. No field holds
//! them, so they are `u32`, like the enumerators of C's other anonymous
//! enums in [`crate::verbs`].
//!
//! The values are checked in `src/layout/opcode.rs` against the header
//! (run `abi-tests/probe/run-65.sh`).

/// BTH opcodes, all in one anonymous C enum: the transport bases, the
/// operation numbers, then each transport's sums.
pub const IBV_OPCODE_RC: u32 = 0x00;
pub const IBV_OPCODE_UC: u32 = 0x20;
pub const IBV_OPCODE_RD: u32 = 0x40;
pub const IBV_OPCODE_UD: u32 = 0x60;

// Operation numbers.
pub const IBV_OPCODE_SEND_FIRST: u32 = 0x00;
pub const IBV_OPCODE_SEND_MIDDLE: u32 = 0x01;
pub const IBV_OPCODE_SEND_LAST: u32 = 0x02;
pub const IBV_OPCODE_SEND_LAST_WITH_IMMEDIATE: u32 = 0x03;
pub const IBV_OPCODE_SEND_ONLY: u32 = 0x04;
pub const IBV_OPCODE_SEND_ONLY_WITH_IMMEDIATE: u32 = 0x05;
pub const IBV_OPCODE_RDMA_WRITE_FIRST: u32 = 0x06;
pub const IBV_OPCODE_RDMA_WRITE_MIDDLE: u32 = 0x07;
pub const IBV_OPCODE_RDMA_WRITE_LAST: u32 = 0x08;
pub const IBV_OPCODE_RDMA_WRITE_LAST_WITH_IMMEDIATE: u32 = 0x09;
pub const IBV_OPCODE_RDMA_WRITE_ONLY: u32 = 0x0a;
pub const IBV_OPCODE_RDMA_WRITE_ONLY_WITH_IMMEDIATE: u32 = 0x0b;
pub const IBV_OPCODE_RDMA_READ_REQUEST: u32 = 0x0c;
pub const IBV_OPCODE_RDMA_READ_RESPONSE_FIRST: u32 = 0x0d;
pub const IBV_OPCODE_RDMA_READ_RESPONSE_MIDDLE: u32 = 0x0e;
pub const IBV_OPCODE_RDMA_READ_RESPONSE_LAST: u32 = 0x0f;
pub const IBV_OPCODE_RDMA_READ_RESPONSE_ONLY: u32 = 0x10;
pub const IBV_OPCODE_ACKNOWLEDGE: u32 = 0x11;
pub const IBV_OPCODE_ATOMIC_ACKNOWLEDGE: u32 = 0x12;
pub const IBV_OPCODE_COMPARE_SWAP: u32 = 0x13;
pub const IBV_OPCODE_FETCH_ADD: u32 = 0x14;

// RC: base + operation.
pub const IBV_OPCODE_RC_SEND_FIRST: u32 = 0x00;
pub const IBV_OPCODE_RC_SEND_MIDDLE: u32 = 0x01;
pub const IBV_OPCODE_RC_SEND_LAST: u32 = 0x02;
pub const IBV_OPCODE_RC_SEND_LAST_WITH_IMMEDIATE: u32 = 0x03;
pub const IBV_OPCODE_RC_SEND_ONLY: u32 = 0x04;
pub const IBV_OPCODE_RC_SEND_ONLY_WITH_IMMEDIATE: u32 = 0x05;
pub const IBV_OPCODE_RC_RDMA_WRITE_FIRST: u32 = 0x06;
pub const IBV_OPCODE_RC_RDMA_WRITE_MIDDLE: u32 = 0x07;
pub const IBV_OPCODE_RC_RDMA_WRITE_LAST: u32 = 0x08;
pub const IBV_OPCODE_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE: u32 = 0x09;
pub const IBV_OPCODE_RC_RDMA_WRITE_ONLY: u32 = 0x0a;
pub const IBV_OPCODE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE: u32 = 0x0b;
pub const IBV_OPCODE_RC_RDMA_READ_REQUEST: u32 = 0x0c;
pub const IBV_OPCODE_RC_RDMA_READ_RESPONSE_FIRST: u32 = 0x0d;
pub const IBV_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE: u32 = 0x0e;
pub const IBV_OPCODE_RC_RDMA_READ_RESPONSE_LAST: u32 = 0x0f;
pub const IBV_OPCODE_RC_RDMA_READ_RESPONSE_ONLY: u32 = 0x10;
pub const IBV_OPCODE_RC_ACKNOWLEDGE: u32 = 0x11;
pub const IBV_OPCODE_RC_ATOMIC_ACKNOWLEDGE: u32 = 0x12;
pub const IBV_OPCODE_RC_COMPARE_SWAP: u32 = 0x13;
pub const IBV_OPCODE_RC_FETCH_ADD: u32 = 0x14;

// UC: base + operation.
pub const IBV_OPCODE_UC_SEND_FIRST: u32 = 0x20;
pub const IBV_OPCODE_UC_SEND_MIDDLE: u32 = 0x21;
pub const IBV_OPCODE_UC_SEND_LAST: u32 = 0x22;
pub const IBV_OPCODE_UC_SEND_LAST_WITH_IMMEDIATE: u32 = 0x23;
pub const IBV_OPCODE_UC_SEND_ONLY: u32 = 0x24;
pub const IBV_OPCODE_UC_SEND_ONLY_WITH_IMMEDIATE: u32 = 0x25;
pub const IBV_OPCODE_UC_RDMA_WRITE_FIRST: u32 = 0x26;
pub const IBV_OPCODE_UC_RDMA_WRITE_MIDDLE: u32 = 0x27;
pub const IBV_OPCODE_UC_RDMA_WRITE_LAST: u32 = 0x28;
pub const IBV_OPCODE_UC_RDMA_WRITE_LAST_WITH_IMMEDIATE: u32 = 0x29;
pub const IBV_OPCODE_UC_RDMA_WRITE_ONLY: u32 = 0x2a;
pub const IBV_OPCODE_UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE: u32 = 0x2b;

// RD: base + operation.
pub const IBV_OPCODE_RD_SEND_FIRST: u32 = 0x40;
pub const IBV_OPCODE_RD_SEND_MIDDLE: u32 = 0x41;
pub const IBV_OPCODE_RD_SEND_LAST: u32 = 0x42;
pub const IBV_OPCODE_RD_SEND_LAST_WITH_IMMEDIATE: u32 = 0x43;
pub const IBV_OPCODE_RD_SEND_ONLY: u32 = 0x44;
pub const IBV_OPCODE_RD_SEND_ONLY_WITH_IMMEDIATE: u32 = 0x45;
pub const IBV_OPCODE_RD_RDMA_WRITE_FIRST: u32 = 0x46;
pub const IBV_OPCODE_RD_RDMA_WRITE_MIDDLE: u32 = 0x47;
pub const IBV_OPCODE_RD_RDMA_WRITE_LAST: u32 = 0x48;
pub const IBV_OPCODE_RD_RDMA_WRITE_LAST_WITH_IMMEDIATE: u32 = 0x49;
pub const IBV_OPCODE_RD_RDMA_WRITE_ONLY: u32 = 0x4a;
pub const IBV_OPCODE_RD_RDMA_WRITE_ONLY_WITH_IMMEDIATE: u32 = 0x4b;
pub const IBV_OPCODE_RD_RDMA_READ_REQUEST: u32 = 0x4c;
pub const IBV_OPCODE_RD_RDMA_READ_RESPONSE_FIRST: u32 = 0x4d;
pub const IBV_OPCODE_RD_RDMA_READ_RESPONSE_MIDDLE: u32 = 0x4e;
pub const IBV_OPCODE_RD_RDMA_READ_RESPONSE_LAST: u32 = 0x4f;
pub const IBV_OPCODE_RD_RDMA_READ_RESPONSE_ONLY: u32 = 0x50;
pub const IBV_OPCODE_RD_ACKNOWLEDGE: u32 = 0x51;
pub const IBV_OPCODE_RD_ATOMIC_ACKNOWLEDGE: u32 = 0x52;
pub const IBV_OPCODE_RD_COMPARE_SWAP: u32 = 0x53;
pub const IBV_OPCODE_RD_FETCH_ADD: u32 = 0x54;

// UD: base + operation.
pub const IBV_OPCODE_UD_SEND_ONLY: u32 = 0x64;
pub const IBV_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE: u32 = 0x65;
