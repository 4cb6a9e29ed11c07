//! What every rsocket keeps, stream or datagram: its state bits, option
//! bits and file flags, the socket options it remembers, its pending
//! error, and its buffer and queue sizes. The stream socket's `Conn` and
//! the datagram socket's `DState` both embed one [`SockBase`] as their
//! `base` field, so it is guarded by the same lock as the rest of each
//! socket's state (`st`).

use core::ffi::c_int;

// Socket states (bit sets, ordered passive < opening < connected < closed).
pub(crate) const RS_INIT: u32 = 0;
pub(crate) const RS_BOUND: u32 = 0x0001;
pub(crate) const RS_LISTENING: u32 = 0x0002;
pub(crate) const RS_OPENING: u32 = 0x0004;
pub(crate) const RS_RESOLVING_ADDR: u32 = RS_OPENING | 0x0010;
pub(crate) const RS_RESOLVING_ROUTE: u32 = RS_OPENING | 0x0020;
pub(crate) const RS_CONNECTING: u32 = RS_OPENING | 0x0040;
pub(crate) const RS_ACCEPTING: u32 = RS_OPENING | 0x0080;
pub(crate) const RS_CONNECTED: u32 = 0x0100;
pub(crate) const RS_WRITABLE: u32 = 0x0200;
pub(crate) const RS_READABLE: u32 = 0x0400;
pub(crate) const RS_CONNECT_RDWR: u32 = RS_CONNECTED | RS_READABLE | RS_WRITABLE;
pub(crate) const RS_CONNECT_ERROR: u32 = 0x0800;
pub(crate) const RS_DISCONNECTED: u32 = 0x1000;
pub(crate) const RS_ERROR: u32 = 0x2000;

// Per-socket options (`opts`).
pub(crate) const RS_OPT_SWAP_SGL: u32 = 1 << 0;
/// iWARP: messages travel as inline SENDs (no write-with-immediate).
pub(crate) const RS_OPT_MSG_SEND: u32 = 1 << 1;
pub(crate) const RS_OPT_UDP_SVC: u32 = 1 << 2;
pub(crate) const RS_OPT_KEEPALIVE: u32 = 1 << 3;
pub(crate) const RS_OPT_CM_SVC: u32 = 1 << 4;

/// The fields both kinds of rsocket have, with the same meaning.
pub(crate) struct SockBase {
    /// RS_* state bits.
    pub(crate) state: u32,
    /// RS_OPT_* bits.
    pub(crate) opts: u32,
    /// The F_SETFL flags (O_NONBLOCK is the one that matters).
    pub(crate) fd_flags: c_int,
    /// Remembered SOL_SOCKET / IPPROTO_TCP / IPPROTO_IPV6 options, one bit
    /// per option number, as upstream.
    pub(crate) so_opts: u64,
    pub(crate) tcp_opts: u64,
    pub(crate) ipv6_opts: u64,
    /// A route given with RDMA_ROUTE, used by the next connect.
    pub(crate) optval: Option<Vec<u8>>,
    /// The error SO_ERROR reports (and clears).
    pub(crate) err: c_int,

    pub(crate) sbuf_size: u32,
    pub(crate) rbuf_size: u32,
    pub(crate) sq_size: u16,
    pub(crate) rq_size: u16,
    pub(crate) sq_inline: u16,
    pub(crate) target_iomap_size: u16,
}

impl SockBase {
    /// A new socket's: RS_INIT, no options, no error, the given sizes.
    pub(crate) fn new(
        sbuf_size: u32,
        rbuf_size: u32,
        sq_size: u16,
        rq_size: u16,
        sq_inline: u16,
        target_iomap_size: u16,
    ) -> SockBase {
        SockBase {
            state: RS_INIT,
            opts: 0,
            fd_flags: 0,
            so_opts: 0,
            tcp_opts: 0,
            ipv6_opts: 0,
            optval: None,
            err: 0,
            sbuf_size,
            rbuf_size,
            sq_size,
            rq_size,
            sq_inline,
            target_iomap_size,
        }
    }
}
