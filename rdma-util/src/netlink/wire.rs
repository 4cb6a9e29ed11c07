//! Netlink wire format: building requests and walking replies as bytes.
//!
//! Both netlink protocols libibverbs speaks (NETLINK_RDMA for device
//! discovery, NETLINK_ROUTE for neighbour resolution) share the framing of
//! `<linux/netlink.h>`: a 16-byte `nlmsghdr` (len u32, type u16, flags u16,
//! seq u32, pid u32, all host order), an optional fixed family header, then
//! attributes, each a 4-byte header (len u16, type u16) and a payload, all
//! padded to 4 bytes. This module encodes and decodes that framing with plain
//! slices; no `unsafe` and no assumptions about alignment of the buffer.
//!
//! Walking rules match libnl's, which upstream rdma-core uses: a message is
//! taken only while its header fits and its length is sane (`nlmsg_ok`), an
//! attribute only while it fits in what is left (`nla_ok`), and when an
//! attribute type repeats the last one wins.

/// Length of `struct nlmsghdr`.
pub const NLMSG_HDRLEN: usize = 16;
/// Length of `struct nlattr` / `struct rtattr`.
pub const NLA_HDRLEN: usize = 4;
/// Length of `struct nlmsgerr` (error code plus the offending header).
pub const NLMSGERR_LEN: usize = 4 + NLMSG_HDRLEN;

// Control message types.
pub const NLMSG_NOOP: u16 = 1;
pub const NLMSG_ERROR: u16 = 2;
pub const NLMSG_DONE: u16 = 3;
pub const NLMSG_OVERRUN: u16 = 4;

// nlmsg_flags.
pub const NLM_F_REQUEST: u16 = 0x01;
pub const NLM_F_MULTI: u16 = 0x02;
pub const NLM_F_ACK: u16 = 0x04;
pub const NLM_F_DUMP_INTR: u16 = 0x10;
pub const NLM_F_ROOT: u16 = 0x100;
pub const NLM_F_MATCH: u16 = 0x200;
pub const NLM_F_DUMP: u16 = NLM_F_ROOT | NLM_F_MATCH;

// Attribute type flag bits; the type proper is what remains.
pub const NLA_F_NESTED: u16 = 1 << 15;
pub const NLA_F_NET_BYTEORDER: u16 = 1 << 14;
pub const NLA_TYPE_MASK: u16 = !(NLA_F_NESTED | NLA_F_NET_BYTEORDER);

/// Rounds `len` up to the 4-byte netlink alignment.
pub const fn align(len: usize) -> usize {
    (len + 3) & !3
}

/// Room for one request: the requests libibverbs and librdmacm send are a
/// header and a few small attributes.
pub const REQUEST_MAX: usize = 256;

/// Builds one netlink request, on the stack: building never allocates.
#[derive(Debug, Clone)]
pub struct MsgBuilder {
    req: Request,
}

/// A finished request: its bytes (through `Deref`), and whether anything
/// was left out for want of room (then [`Request::fits`] is false and the
/// socket refuses to send it, with EMSGSIZE).
#[derive(Clone)]
pub struct Request {
    buf: [u8; REQUEST_MAX],
    len: usize,
    too_long: bool,
}

impl Request {
    pub fn fits(&self) -> bool {
        !self.too_long
    }
}

impl core::ops::Deref for Request {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl core::fmt::Debug for Request {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Request").field("bytes", &&**self).field("too_long", &self.too_long).finish()
    }
}

impl PartialEq<Vec<u8>> for Request {
    fn eq(&self, other: &Vec<u8>) -> bool {
        self.fits() && **self == other[..]
    }
}

impl MsgBuilder {
    /// Starts a message of type `ty`. `NLM_F_REQUEST` is always set, as every
    /// message userspace sends to the kernel must carry it.
    pub fn new(ty: u16, flags: u16) -> Self {
        let mut m = MsgBuilder { req: Request { buf: [0; REQUEST_MAX], len: 0, too_long: false } };
        m.put(&(NLMSG_HDRLEN as u32).to_ne_bytes());
        m.put(&ty.to_ne_bytes());
        m.put(&(flags | NLM_F_REQUEST).to_ne_bytes());
        m.put(&0u32.to_ne_bytes()); // seq, set by finish()
        m.put(&0u32.to_ne_bytes()); // pid: 0, the kernel ignores it
        m
    }

    fn put(&mut self, bytes: &[u8]) {
        let r = &mut self.req;
        if r.too_long || bytes.len() > REQUEST_MAX - r.len {
            r.too_long = true;
            return;
        }
        r.buf[r.len..r.len + bytes.len()].copy_from_slice(bytes);
        r.len += bytes.len();
    }

    fn pad(&mut self) {
        let n = align(self.req.len) - self.req.len;
        self.put(&[0u8; 3][..n]);
    }

    /// Appends a fixed family header (e.g. `struct rtmsg`), zero-padded.
    pub fn header(mut self, bytes: &[u8]) -> Self {
        self.put(bytes);
        self.pad();
        self
    }

    /// Appends one attribute; `nla_len` counts the header and the unpadded
    /// payload, the padding follows.
    pub fn attr(mut self, ty: u16, payload: &[u8]) -> Self {
        match u16::try_from(NLA_HDRLEN + payload.len()) {
            Ok(len) => {
                self.put(&len.to_ne_bytes());
                self.put(&ty.to_ne_bytes());
                self.put(payload);
                self.pad();
            }
            Err(_) => self.req.too_long = true,
        }
        self
    }

    pub fn attr_u32(self, ty: u16, v: u32) -> Self {
        self.attr(ty, &v.to_ne_bytes())
    }

    /// A string attribute, NUL terminator included (as `NLA_PUT_STRING`).
    pub fn attr_str(mut self, ty: u16, s: &str) -> Self {
        match u16::try_from(NLA_HDRLEN + s.len() + 1) {
            Ok(len) => {
                self.put(&len.to_ne_bytes());
                self.put(&ty.to_ne_bytes());
                self.put(s.as_bytes());
                self.put(&[0]);
                self.pad();
            }
            Err(_) => self.req.too_long = true,
        }
        self
    }

    /// Fills in the total length and the sequence number.
    pub fn finish(mut self, seq: u32) -> Request {
        let r = &mut self.req;
        let len = r.len as u32;
        r.buf[0..4].copy_from_slice(&len.to_ne_bytes());
        r.buf[8..12].copy_from_slice(&seq.to_ne_bytes());
        self.req
    }
}

/// One received message: the header fields and the bytes after the header.
#[derive(Debug, Clone, Copy)]
pub struct NlMsg<'a> {
    pub ty: u16,
    pub flags: u16,
    pub seq: u32,
    pub pid: u32,
    pub payload: &'a [u8],
}

impl<'a> NlMsg<'a> {
    /// For `NLMSG_ERROR`: the (negative or zero) error code, or `None` when
    /// the message is too short to hold a `struct nlmsgerr`.
    pub fn error_code(&self) -> Option<i32> {
        if self.payload.len() < NLMSGERR_LEN {
            return None;
        }
        Some(i32::from_ne_bytes(self.payload[0..4].try_into().unwrap()))
    }

    /// The attributes after a family header of `hdrlen` bytes (aligned as
    /// libnl's `nlmsg_attrdata` does). Empty when the message is shorter.
    pub fn attrs_after(&self, hdrlen: usize) -> &'a [u8] {
        let start = align(hdrlen);
        self.payload.get(start..).unwrap_or(&[])
    }
}

/// Iterates over the messages in one datagram.
pub struct Messages<'a> {
    rest: &'a [u8],
}

/// The messages packed in `buf`, in order, stopping at the first one whose
/// header does not fit or whose length is inconsistent.
pub fn messages(buf: &[u8]) -> Messages<'_> {
    Messages { rest: buf }
}

impl<'a> Iterator for Messages<'a> {
    type Item = NlMsg<'a>;
    fn next(&mut self) -> Option<NlMsg<'a>> {
        let r = self.rest;
        if r.len() < NLMSG_HDRLEN {
            return None;
        }
        let len = u32::from_ne_bytes(r[0..4].try_into().unwrap()) as usize;
        if len < NLMSG_HDRLEN || len > r.len() {
            return None;
        }
        let msg = NlMsg {
            ty: u16::from_ne_bytes(r[4..6].try_into().unwrap()),
            flags: u16::from_ne_bytes(r[6..8].try_into().unwrap()),
            seq: u32::from_ne_bytes(r[8..12].try_into().unwrap()),
            pid: u32::from_ne_bytes(r[12..16].try_into().unwrap()),
            payload: &r[NLMSG_HDRLEN..len],
        };
        self.rest = r.get(align(len)..).unwrap_or(&[]);
        Some(msg)
    }
}

/// Iterates over a stream of attributes, yielding (type without flag bits,
/// payload).
pub struct Attrs<'a> {
    rest: &'a [u8],
}

pub fn attrs(buf: &[u8]) -> Attrs<'_> {
    Attrs { rest: buf }
}

impl<'a> Iterator for Attrs<'a> {
    type Item = (u16, &'a [u8]);
    fn next(&mut self) -> Option<(u16, &'a [u8])> {
        let r = self.rest;
        if r.len() < NLA_HDRLEN {
            return None;
        }
        let len = u16::from_ne_bytes(r[0..2].try_into().unwrap()) as usize;
        if len < NLA_HDRLEN || len > r.len() {
            return None;
        }
        let ty = u16::from_ne_bytes(r[2..4].try_into().unwrap()) & NLA_TYPE_MASK;
        self.rest = r.get(align(len)..).unwrap_or(&[]);
        Some((ty, &r[NLA_HDRLEN..len]))
    }
}

/// The most attribute types an [`AttrTable`] holds (0 to 255): every
/// `maxtype` of the protocols we speak is below that.
pub const ATTR_TABLE_MAX: usize = 256;

/// Attributes indexed by type, as libnl's `nla_parse` builds them: types
/// above `maxtype` are ignored, a repeated type keeps the last occurrence.
/// Kept on the stack: parsing never allocates.
pub struct AttrTable<'a> {
    slots: [Option<&'a [u8]>; ATTR_TABLE_MAX],
}

impl<'a> AttrTable<'a> {
    /// `maxtype` above 255 counts as 255.
    pub fn parse(buf: &'a [u8], maxtype: u16) -> Self {
        let mut slots = [None; ATTR_TABLE_MAX];
        let top = (maxtype as usize).min(ATTR_TABLE_MAX - 1);
        for (ty, payload) in attrs(buf) {
            if let Some(slot) = slots[..=top].get_mut(ty as usize) {
                *slot = Some(payload);
            }
        }
        AttrTable { slots }
    }

    pub fn get(&self, ty: u16) -> Option<&'a [u8]> {
        self.slots.get(ty as usize).copied().flatten()
    }

    pub fn has(&self, ty: u16) -> bool {
        self.get(ty).is_some()
    }

    pub fn u8(&self, ty: u16) -> Option<u8> {
        self.get(ty).and_then(get_u8)
    }

    pub fn u16(&self, ty: u16) -> Option<u16> {
        self.get(ty).and_then(get_u16)
    }

    pub fn u32(&self, ty: u16) -> Option<u32> {
        self.get(ty).and_then(get_u32)
    }

    pub fn u64(&self, ty: u16) -> Option<u64> {
        self.get(ty).and_then(get_u64)
    }

    /// A string attribute up to its first NUL (or its whole payload).
    pub fn str_bytes(&self, ty: u16) -> Option<&'a [u8]> {
        self.get(ty).map(until_nul)
    }
}

/// Reads the first byte; `None` if the payload is empty.
pub fn get_u8(p: &[u8]) -> Option<u8> {
    p.first().copied()
}

/// Reads a host-order u16 from the start of the payload.
pub fn get_u16(p: &[u8]) -> Option<u16> {
    Some(u16::from_ne_bytes(p.get(0..2)?.try_into().ok()?))
}

/// Reads a host-order u32 from the start of the payload.
pub fn get_u32(p: &[u8]) -> Option<u32> {
    Some(u32::from_ne_bytes(p.get(0..4)?.try_into().ok()?))
}

/// Reads a host-order u64 from the start of the payload.
pub fn get_u64(p: &[u8]) -> Option<u64> {
    Some(u64::from_ne_bytes(p.get(0..8)?.try_into().ok()?))
}

/// The bytes before the first NUL.
pub fn until_nul(p: &[u8]) -> &[u8] {
    match p.iter().position(|&b| b == 0) {
        Some(n) => &p[..n],
        None => p,
    }
}

/// Test helpers that build received messages by hand, from the header
/// layouts, independently of [`MsgBuilder`].
#[cfg(any(test, feature = "testkit"))]
pub mod testbuf {
    /// One attribute: header, payload, padding.
    pub fn attr(ty: u16, payload: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend_from_slice(&((4 + payload.len()) as u16).to_ne_bytes());
        v.extend_from_slice(&ty.to_ne_bytes());
        v.extend_from_slice(payload);
        while v.len() % 4 != 0 {
            v.push(0);
        }
        v
    }

    /// One message: a 16-byte header and `body` (already padded).
    pub fn msg(ty: u16, flags: u16, seq: u32, body: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend_from_slice(&((16 + body.len()) as u32).to_ne_bytes());
        v.extend_from_slice(&ty.to_ne_bytes());
        v.extend_from_slice(&flags.to_ne_bytes());
        v.extend_from_slice(&seq.to_ne_bytes());
        v.extend_from_slice(&0u32.to_ne_bytes());
        v.extend_from_slice(body);
        v
    }

    /// An NLMSG_ERROR carrying `error` (0 for an ACK) and a copy of a
    /// request header.
    pub fn error(seq: u32, error: i32) -> Vec<u8> {
        let mut body = error.to_ne_bytes().to_vec();
        body.extend_from_slice(&[0u8; 16]);
        msg(super::NLMSG_ERROR, 0, seq, &body)
    }

    /// NLMSG_DONE ending a dump (its payload is the dump's status, 0).
    pub fn done(seq: u32) -> Vec<u8> {
        msg(
            super::NLMSG_DONE,
            super::NLM_F_MULTI,
            seq,
            &0i32.to_ne_bytes(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::testbuf::*;
    use super::*;

    #[test]
    fn builder_layout() {
        let m = MsgBuilder::new(0x140f, 0)
            .attr_u32(1, 7)
            .attr_str(69, "uverbs")
            .finish(42);
        // header 16 + u32 attr 8 + "uverbs\0" attr 4+7 -> padded 12
        assert_eq!(m.len(), 36);
        assert_eq!(&m[0..4], &36u32.to_ne_bytes());
        assert_eq!(&m[4..6], &0x140fu16.to_ne_bytes());
        assert_eq!(&m[6..8], &NLM_F_REQUEST.to_ne_bytes());
        assert_eq!(&m[8..12], &42u32.to_ne_bytes());
        assert_eq!(&m[12..16], &[0, 0, 0, 0]);
        assert_eq!(&m[16..24], &attr(1, &7u32.to_ne_bytes())[..]);
        assert_eq!(&m[24..26], &11u16.to_ne_bytes());
        assert_eq!(&m[24..], &attr(69, b"uverbs\0")[..]);
        assert_eq!(m[35], 0, "padding is zeroed");
    }

    #[test]
    fn builder_family_header_is_padded() {
        let m = MsgBuilder::new(18, NLM_F_DUMP).header(&[10]).finish(1);
        assert_eq!(m.len(), 20);
        assert_eq!(&m[6..8], &(NLM_F_DUMP | NLM_F_REQUEST).to_ne_bytes());
        assert_eq!(&m[16..20], &[10, 0, 0, 0]);
    }

    #[test]
    fn walks_messages_and_stops_at_garbage() {
        let mut buf = msg(100, NLM_F_MULTI, 5, &attr(1, &[1, 2, 3]));
        buf.extend(msg(101, 0, 6, &[]));
        // A header claiming more bytes than remain ends the walk.
        let mut bad = msg(102, 0, 7, &[0; 8]);
        bad[0..4].copy_from_slice(&100u32.to_ne_bytes());
        buf.extend(bad);
        let v: Vec<_> = messages(&buf).collect();
        assert_eq!(v.len(), 2);
        assert_eq!((v[0].ty, v[0].flags, v[0].seq), (100, NLM_F_MULTI, 5));
        assert_eq!(v[0].payload.len(), 8);
        assert_eq!((v[1].ty, v[1].payload.len()), (101, 0));
    }

    #[test]
    fn attribute_table_rules() {
        let mut body = attr(3, &1u32.to_ne_bytes());
        body.extend(attr(3 | NLA_F_NESTED, &2u32.to_ne_bytes())); // flag bits stripped, last wins
        body.extend(attr(9, &[1]));
        body.extend(attr(2, b"mlx5_0\0"));
        let t = AttrTable::parse(&body, 5);
        assert_eq!(t.u32(3), Some(2));
        assert!(!t.has(9), "types above maxtype are ignored");
        assert_eq!(t.str_bytes(2), Some(&b"mlx5_0"[..]));
        assert_eq!(t.u64(3), None, "a 4-byte payload is no u64");
        // A truncated trailing attribute is not taken.
        let mut cut = attr(1, &[0; 8]);
        cut.truncate(6);
        assert_eq!(attrs(&cut).count(), 0);
    }

    #[test]
    fn error_message_code() {
        let buf = error(9, -libc::ENOENT);
        let m = messages(&buf).next().unwrap();
        assert_eq!(m.ty, NLMSG_ERROR);
        assert_eq!(m.error_code(), Some(-libc::ENOENT));
        let short = msg(NLMSG_ERROR, 0, 1, &0i32.to_ne_bytes());
        assert_eq!(messages(&short).next().unwrap().error_code(), None);
    }
}
