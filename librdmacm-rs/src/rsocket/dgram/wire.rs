//! Datagram rsockets: the wire formats (upstream v44's, byte for byte).
//!
//! - Every datagram sent over a UD QP starts with a *ds header* naming the
//!   sender's address (the local address of the sending QP, with the port
//!   of the sender's UDP socket): version 4 = 8 bytes (version, length,
//!   port, IPv4 address), version 6 = 24 bytes (version, length, port,
//!   flowinfo, IPv6 address); network byte order. The receiver reports
//!   that address as the source (rrecvfrom).
//! - Before a sender has an address handle for a destination, it sends the
//!   datagram over its UDP socket instead, behind a *UDP header* (16 bytes
//!   for IPv4, 28 for IPv6): the tag 0x55555555, version, opcode
//!   (RS_OP_DATA for data, RS_OP_CTRL for the receiver's reply), header
//!   length, a reserved byte, the sending QP number (24 bits) and an
//!   address. The receiver's service thread answers a data message with a
//!   control one carrying its own QP number, resolves a route back to build
//!   an address handle, and hands the payload to its own QP.
//!
//! Upstream fills the IPv6 UDP header's 16 address bytes from the ds
//! header's flowinfo and the first 12 address bytes (it copies from the
//! wrong field); no receiver reads that field, but it is reproduced so the
//! bytes on the wire are the same.

/// The UDP header's tag.
const DS_UDP_TAG: u32 = 0x5555_5555;
const DS_IPV4_HDR_LEN: u8 = 8;
const DS_IPV6_HDR_LEN: u8 = 24;
pub(crate) const DS_UDP_IPV4_HDR_LEN: u8 = 16;
const DS_UDP_IPV6_HDR_LEN: u8 = 28;
/// Receives land behind a global route header of this size.
pub(crate) const GRH_LEN: u32 = 40;

/// A socket address as datagram rsockets keep it: the bytes of a
/// sockaddr_in or sockaddr_in6, zero padded to the size of the latter.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct SockAddr(pub(crate) [u8; 28]);

const SIN_LEN: usize = core::mem::size_of::<libc::sockaddr_in>();
const SIN6_LEN: usize = core::mem::size_of::<libc::sockaddr_in6>();
const _: () = assert!(SIN_LEN == 16 && SIN6_LEN == 28);

impl SockAddr {
    pub(crate) const ZERO: SockAddr = SockAddr([0; 28]);

    /// Up to 28 bytes of a caller's address.
    ///
    /// # Safety
    /// `p` is readable for `len` bytes (or null with `len` 0).
    pub(crate) unsafe fn from_raw(p: *const libc::sockaddr, len: usize) -> SockAddr {
        let mut a = SockAddr::ZERO;
        let n = len.min(28);
        if n > 0 {
            // SAFETY: per the contract.
            unsafe { core::ptr::copy_nonoverlapping(p.cast::<u8>(), a.0.as_mut_ptr(), n) };
        }
        a
    }

    pub(crate) fn family(&self) -> i32 {
        i32::from(u16::from_ne_bytes([self.0[0], self.0[1]]))
    }

    /// The length of the address for its family (`ucma_addrlen`).
    // Never 0 (a sockaddr_in's length for anything but AF_INET6), so an
    // is_empty() would always be false.
    #[allow(clippy::len_without_is_empty)]
    pub(crate) fn len(&self) -> usize {
        if self.family() == libc::AF_INET6 {
            SIN6_LEN
        } else {
            SIN_LEN
        }
    }

    pub(crate) fn as_ptr(&self) -> *const libc::sockaddr {
        self.0.as_ptr().cast()
    }

    /// The port, network order bytes (same place in both families).
    pub(crate) fn port_bytes(&self) -> [u8; 2] {
        [self.0[2], self.0[3]]
    }

    pub(crate) fn set_port_bytes(&mut self, p: [u8; 2]) {
        self.0[2] = p[0];
        self.0[3] = p[1];
    }

    /// Upstream's address comparison: the whole sockaddr_in6 when both are
    /// IPv6, else the first 16 bytes (family, port, IPv4 address, zero pad).
    pub(crate) fn same(&self, o: &SockAddr) -> bool {
        let n = if self.family() == libc::AF_INET6 && o.family() == libc::AF_INET6 { SIN6_LEN } else { SIN_LEN };
        self.0[..n] == o.0[..n]
    }

    /// The wildcard or loopback address (`rs_any_addr`): the source to use
    /// must then be found from the route to the destination.
    pub(crate) fn any_or_loopback(&self) -> bool {
        if self.family() == libc::AF_INET {
            let a = &self.0[4..8];
            a == [0, 0, 0, 0] || a == [127, 0, 0, 1]
        } else {
            let a = &self.0[8..24];
            let mut lo = [0u8; 16];
            lo[15] = 1;
            a == [0u8; 16] || a == lo
        }
    }

    /// A copy with the port cleared.
    pub(crate) fn without_port(&self) -> SockAddr {
        let mut a = *self;
        a.set_port_bytes([0, 0]);
        a
    }
}

/// The ds header for messages sent from `addr` (`ds_format_hdr`).
pub(crate) fn format_hdr(addr: &SockAddr) -> ([u8; 24], u8) {
    let mut h = [0u8; 24];
    let a = &addr.0;
    if addr.family() == libc::AF_INET {
        h[0] = 4;
        h[1] = DS_IPV4_HDR_LEN;
        h[2..4].copy_from_slice(&a[2..4]);
        h[4..8].copy_from_slice(&a[4..8]);
        (h, DS_IPV4_HDR_LEN)
    } else {
        h[0] = 6;
        h[1] = DS_IPV6_HDR_LEN;
        h[2..4].copy_from_slice(&a[2..4]);
        // sockaddr_in6: flowinfo at 4, address at 8.
        h[4..8].copy_from_slice(&a[4..8]);
        h[8..24].copy_from_slice(&a[8..24]);
        (h, DS_IPV6_HDR_LEN)
    }
}

/// Whether a completed receive of `byte_len` bytes (GRH included) holds a
/// valid ds header `hdr` (`ds_valid_recv`).
pub(crate) fn valid_recv(hdr: &[u8], byte_len: u32) -> bool {
    byte_len >= GRH_LEN + DS_IPV4_HDR_LEN as u32
        && hdr.len() >= 2
        && ((hdr[0] == 4 && hdr[1] == DS_IPV4_HDR_LEN) || (hdr[0] == 6 && hdr[1] == DS_IPV6_HDR_LEN))
}

/// The source address a ds header names (`ds_set_src`).
pub(crate) fn hdr_src(hdr: &[u8]) -> SockAddr {
    let mut a = SockAddr::ZERO;
    if hdr[0] == 4 {
        a.0[..2].copy_from_slice(&(libc::AF_INET as u16).to_ne_bytes());
        a.0[2..4].copy_from_slice(&hdr[2..4]);
        a.0[4..8].copy_from_slice(&hdr[4..8]);
    } else {
        a.0[..2].copy_from_slice(&(libc::AF_INET6 as u16).to_ne_bytes());
        a.0[2..4].copy_from_slice(&hdr[2..4]);
        a.0[4..8].copy_from_slice(&hdr[4..8]);
        a.0[8..24].copy_from_slice(&hdr[8..24]);
    }
    a
}

/// How many bytes of the source address a caller with room for `cap`
/// bytes gets (`ds_set_src` shrinks the length to the family's size).
pub(crate) fn src_len(hdr: &[u8], cap: usize) -> usize {
    cap.min(if hdr[0] == 4 { SIN_LEN } else { SIN6_LEN })
}

/// The UDP header of a message from a QP numbered `qpn` whose ds header
/// is `ds_hdr` (`ds_sendv_udp`).
pub(crate) fn udp_hdr(ds_hdr: &[u8; 24], op: u8, qpn: u32) -> ([u8; 28], usize) {
    let mut h = [0u8; 28];
    h[0..4].copy_from_slice(&DS_UDP_TAG.to_be_bytes());
    h[4] = ds_hdr[0];
    h[5] = op;
    h[7] = 0;
    h[8..12].copy_from_slice(&(qpn & 0xFF_FFFF).to_be_bytes());
    if ds_hdr[0] == 4 {
        h[6] = DS_UDP_IPV4_HDR_LEN;
        h[12..16].copy_from_slice(&ds_hdr[4..8]);
        (h, DS_UDP_IPV4_HDR_LEN as usize)
    } else {
        h[6] = DS_UDP_IPV6_HDR_LEN;
        // As upstream: 16 bytes from the start of the ds header's IPv6
        // part (flowinfo, then the address).
        h[12..28].copy_from_slice(&ds_hdr[4..20]);
        (h, DS_UDP_IPV6_HDR_LEN as usize)
    }
}

/// A received UDP header, if valid for a datagram from a `family` address
/// (`udp_svc_valid_udp_hdr`): (opcode, QP number, header length).
pub(crate) fn parse_udp_hdr(buf: &[u8], family: i32) -> Option<(u8, u32, usize)> {
    if buf.len() < DS_UDP_IPV4_HDR_LEN as usize {
        return None;
    }
    let tag = u32::from_be_bytes([buf[0], buf[1], buf[2], buf[3]]);
    let (ver, op, len) = (buf[4], buf[5], buf[6]);
    let ok = tag == DS_UDP_TAG
        && ((ver == 4 && family == libc::AF_INET && len == DS_UDP_IPV4_HDR_LEN)
            || (ver == 6 && family == libc::AF_INET6 && len == DS_UDP_IPV6_HDR_LEN));
    if !ok {
        return None;
    }
    let qpn = u32::from_be_bytes([buf[8], buf[9], buf[10], buf[11]]) & 0xFF_FFFF;
    Some((op, qpn, len as usize))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v4(ip: [u8; 4], port: u16) -> SockAddr {
        let mut a = SockAddr::ZERO;
        a.0[..2].copy_from_slice(&(libc::AF_INET as u16).to_ne_bytes());
        a.0[2..4].copy_from_slice(&port.to_be_bytes());
        a.0[4..8].copy_from_slice(&ip);
        a
    }

    fn v6(ip: [u8; 16], port: u16, flow: u32) -> SockAddr {
        let mut a = SockAddr::ZERO;
        a.0[..2].copy_from_slice(&(libc::AF_INET6 as u16).to_ne_bytes());
        a.0[2..4].copy_from_slice(&port.to_be_bytes());
        a.0[4..8].copy_from_slice(&flow.to_be_bytes());
        a.0[8..24].copy_from_slice(&ip);
        a
    }

    #[test]
    fn ipv4_ds_header_bytes_match_upstream_layout() {
        let (h, n) = format_hdr(&v4([10, 0, 2, 15], 7174));
        assert_eq!(n, 8);
        // version 4, length 8, port 7174 = 0x1c06 big-endian, 10.0.2.15
        assert_eq!(&h[..8], &[4, 8, 0x1c, 0x06, 10, 0, 2, 15]);
        assert!(valid_recv(&h, GRH_LEN + 8));
        assert!(!valid_recv(&h, GRH_LEN + 7), "shorter than a header");
        assert_eq!(hdr_src(&h), v4([10, 0, 2, 15], 7174));
        assert_eq!(src_len(&h, 128), 16);
        assert_eq!(src_len(&h, 4), 4);
    }

    #[test]
    fn ipv6_ds_header_carries_flowinfo_and_address() {
        let ip = [0xfe, 0x80, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8];
        let a = v6(ip, 0x1234, 0x000a_bcde);
        let (h, n) = format_hdr(&a);
        assert_eq!(n, 24);
        assert_eq!(&h[..8], &[6, 24, 0x12, 0x34, 0x00, 0x0a, 0xbc, 0xde]);
        assert_eq!(&h[8..24], &ip);
        assert!(valid_recv(&h, GRH_LEN + 24));
        let back = hdr_src(&h);
        assert!(back.same(&a));
        assert_eq!(src_len(&h, 128), 28);
    }

    #[test]
    fn bad_ds_headers_are_rejected() {
        assert!(!valid_recv(&[4, 24, 0, 0, 0, 0, 0, 0], 100), "v4 with the v6 length");
        assert!(!valid_recv(&[6, 8, 0, 0, 0, 0, 0, 0], 100), "v6 with the v4 length");
        assert!(!valid_recv(&[5, 8, 0, 0, 0, 0, 0, 0], 100));
    }

    #[test]
    fn udp_header_ipv4_round_trip() {
        let (ds, _) = format_hdr(&v4([192, 168, 1, 2], 9));
        let (u, n) = udp_hdr(&ds, 7, 0x1234_5678);
        assert_eq!(n, 16);
        assert_eq!(&u[..16], &[0x55, 0x55, 0x55, 0x55, 4, 7, 16, 0, 0x00, 0x34, 0x56, 0x78, 192, 168, 1, 2]);
        assert_eq!(parse_udp_hdr(&u[..16], libc::AF_INET), Some((7, 0x34_5678, 16)));
        // from an IPv6 peer the same header is invalid
        assert_eq!(parse_udp_hdr(&u[..16], libc::AF_INET6), None);
        let mut bad = u;
        bad[0] = 0x54;
        assert_eq!(parse_udp_hdr(&bad[..16], libc::AF_INET), None);
        assert_eq!(parse_udp_hdr(&u[..15], libc::AF_INET), None);
    }

    #[test]
    fn udp_header_ipv6_copies_upstreams_bytes() {
        let ip = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xaa, 0xbb];
        let (ds, _) = format_hdr(&v6(ip, 1, 0x0102_0304));
        let (u, n) = udp_hdr(&ds, 0, 0xff00_0001);
        assert_eq!(n, 28);
        assert_eq!(&u[4..12], &[6, 0, 28, 0, 0, 0, 0, 1]);
        // flowinfo first, then the first 12 address bytes
        assert_eq!(&u[12..16], &[1, 2, 3, 4]);
        assert_eq!(&u[16..28], &ip[..12]);
        assert_eq!(parse_udp_hdr(&u, libc::AF_INET6), Some((0, 1, 28)));
    }

    #[test]
    fn address_comparison_follows_upstream() {
        let a = v4([10, 0, 2, 15], 1);
        assert!(a.same(&v4([10, 0, 2, 15], 1)));
        assert!(!a.same(&v4([10, 0, 2, 15], 2)));
        assert!(!a.same(&v4([10, 0, 2, 16], 1)));
        // v6 addresses differing only after byte 16 are equal against v4
        // rules but not against v6 ones
        let x = v6([1; 16], 5, 0);
        let mut y = x;
        y.0[20] ^= 1;
        assert!(!x.same(&y));
        assert!(v4([0, 0, 0, 0], 5).any_or_loopback());
        assert!(v4([127, 0, 0, 1], 5).any_or_loopback());
        assert!(!a.any_or_loopback());
        let mut lo = [0u8; 16];
        lo[15] = 1;
        assert!(v6(lo, 1, 0).any_or_loopback());
        assert!(!v6([1; 16], 1, 0).any_or_loopback());
        assert_eq!(a.without_port().port_bytes(), [0, 0]);
        assert_eq!(a.len(), 16);
        assert_eq!(x.len(), 28);
    }
}
