//! The ibacm client of rdma_getaddrinfo: asks the local ibacm service
//! (InfiniBand address and route resolution) for path records, as rdma-core
//! 44's librdmacm does.
//!
//! Connection (once per process, never retried): when `/run/ibacm.port`
//! holds a non-zero port number, a TCP connection to 127.0.0.1 on that port;
//! otherwise the unix stream socket `/run/ibacm.sock` (ibacm publishes both
//! names as links to its own files). If that fails, ibacm is absent and
//! rdma_getaddrinfo's results are left as the system resolver made them.
//!
//! Request: one `ACM_OP_RESOLVE` message (header plus up to three 72-byte
//! endpoint entries: the IP source, the IP destination, a path record with
//! the GIDs of AF_IB addresses or the hints' route), sent with one send();
//! the reply is read with one recv() into a message-sized buffer. The
//! message's own fields are in host order, the entries' contents in network
//! order. A reply that is short, whose length differs from what was read, or
//! whose status is non-zero is ignored.
//!
//! Applying a reply: the first source IP / IPv6 entry becomes the source
//! address if there is none yet; the path entries become `ai_route` (an
//! array of `ibv_path_data`, counted from the first path entry on); and when
//! the kernel supports AF_IB and the hints lack RAI_ROUTEONLY, an AF_IB
//! result built from the first path is put in front of the chain, with an
//! `ib_connect_hdr` carrying the IP addresses in `ai_connect`.
use core::ffi::{c_int, CStr};
use core::mem::{offset_of, size_of};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::Path;
use std::sync::OnceLock;

use parking_lot::Mutex;

use crate::abi::verbs::{ibv_path_data, ibv_path_record};
use crate::addrinfo::{bytes_at, dup, dup_opt, sa_family, AddrInfo, Chain, Hints, SibBuilder, RAI_ROUTEONLY};
use crate::abi::acm::*;
use crate::abi::cma::*;

/// Where ibacm publishes its TCP port (Debian: RUNDIR is /run).
const IBACM_PORT_FILE: &str = "/run/ibacm.port";
/// ibacm's unix socket as librdmacm names it.
const IBACM_SERVER_PATH: &CStr = c"/run/ibacm.sock";


const HDR_STATUS: usize = offset_of!(acm_hdr, status);
const HDR_LENGTH: usize = offset_of!(acm_hdr, length);
const EP_TYPE: usize = offset_of!(acm_ep_addr_data, type_);
const EP_INFO: usize = offset_of!(acm_ep_addr_data, info);
const PATH_IN_DATA: usize = offset_of!(ibv_path_data, path);
const PATH_DGID: usize = offset_of!(ibv_path_record, dgid);
const PATH_SGID: usize = offset_of!(ibv_path_record, sgid);
const PATH_FLOW: usize = offset_of!(ibv_path_record, flowlabel_hoplimit);
const PATH_PKEY: usize = offset_of!(ibv_path_record, pkey);
const SIB_ADDR: usize = offset_of!(sockaddr_ib, sib_addr);
const SIN_ADDR: usize = offset_of!(libc::sockaddr_in, sin_addr);
const SIN6_ADDR: usize = offset_of!(libc::sockaddr_in6, sin6_addr);

// ---------------------------------------------------------------------------
// Connection
// ---------------------------------------------------------------------------

/// Parses the port file's first number as C's `fscanf("%hu")` does: leading
/// white space, an optional sign, decimal digits; an out-of-range value
/// saturates like strtoul and is then cut to 16 bits. No number: 0.
fn parse_port(text: &[u8]) -> u16 {
    let mut i = 0;
    while i < text.len() && matches!(text[i], b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r') {
        i += 1;
    }
    let negative = match text.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let digits = text[i..].iter().take_while(|c| c.is_ascii_digit());
    let mut any = false;
    let mut value: u64 = 0;
    let mut overflow = false;
    for d in digits {
        any = true;
        match value.checked_mul(10).and_then(|v| v.checked_add(u64::from(d - b'0'))) {
            Some(v) => value = v,
            None => overflow = true,
        }
    }
    if !any {
        return 0;
    }
    let value = if overflow {
        u64::MAX
    } else if negative {
        value.wrapping_neg()
    } else {
        value
    };
    value as u16
}

/// The TCP port ibacm published, or 0 when the file is missing or holds no
/// number.
fn read_server_port(port_file: &Path) -> u16 {
    let mut buf = [0u8; 64];
    rdma_util::fallible::read_head(port_file.as_os_str().as_encoded_bytes(), &mut buf).map_or(0, |n| parse_port(&buf[..n]))
}

/// A connected stream socket, or None.
fn connect_socket(domain: c_int, proto: c_int, addr: *const libc::sockaddr, len: libc::socklen_t) -> Option<OwnedFd> {
    // SAFETY: socket() has no memory preconditions.
    let fd = unsafe { libc::socket(domain, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, proto) };
    if fd < 0 {
        return None;
    }
    // SAFETY: fd is a fresh descriptor that nothing else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: addr points to a socket address of `len` bytes (the callers
    // pass a local sockaddr_in / sockaddr_un and its size).
    let ret = unsafe { libc::connect(fd.as_raw_fd(), addr, len) };
    (ret == 0).then_some(fd)
}

/// Connects to ibacm the way librdmacm does: TCP to 127.0.0.1 when the port
/// file names a port, else the unix socket.
fn connect_ibacm(port_file: &Path, unix_path: &CStr) -> Option<OwnedFd> {
    let port = read_server_port(port_file);
    if port != 0 {
        let sin = libc::sockaddr_in {
            sin_family: libc::AF_INET as libc::sa_family_t,
            sin_port: port.to_be(),
            sin_addr: libc::in_addr { s_addr: libc::INADDR_LOOPBACK.to_be() },
            sin_zero: [0; 8],
        };
        connect_socket(
            libc::AF_INET,
            libc::IPPROTO_TCP,
            (&sin as *const libc::sockaddr_in).cast(),
            size_of::<libc::sockaddr_in>() as libc::socklen_t,
        )
    } else {
        // SAFETY: sockaddr_un is plain data; all-zero is a valid value.
        let mut sun: libc::sockaddr_un = unsafe { core::mem::zeroed() };
        sun.sun_family = libc::AF_UNIX as libc::sa_family_t;
        let path = unix_path.to_bytes();
        if path.len() >= sun.sun_path.len() {
            return None;
        }
        for (d, s) in sun.sun_path.iter_mut().zip(path) {
            *d = *s as libc::c_char;
        }
        // The full structure size, as upstream passes it.
        connect_socket(
            libc::AF_UNIX,
            0,
            (&sun as *const libc::sockaddr_un).cast(),
            size_of::<libc::sockaddr_un>() as libc::socklen_t,
        )
    }
}

static IBACM: OnceLock<Option<Mutex<OwnedFd>>> = OnceLock::new();

/// The process's connection to ibacm, made on first use (upstream's
/// `ucma_ib_init`); None when ibacm could not be reached then.
pub(crate) fn ib_init() -> Option<&'static Mutex<OwnedFd>> {
    IBACM
        .get_or_init(|| connect_ibacm(Path::new(IBACM_PORT_FILE), IBACM_SERVER_PATH).map(Mutex::new))
        .as_ref()
}

// ---------------------------------------------------------------------------
// Request and reply
// ---------------------------------------------------------------------------

/// An address of family AF_INET or AF_INET6 (non-empty).
fn is_inet(a: Option<&[u8]>) -> bool {
    a.is_some_and(|a| !a.is_empty() && matches!(sa_family(a), libc::AF_INET | libc::AF_INET6))
}

/// An address of family AF_IB (non-empty).
fn is_ib(a: Option<&[u8]>) -> bool {
    a.is_some_and(|a| !a.is_empty() && sa_family(a) == AF_IB)
}

/// Byte offset of endpoint entry `i` in a message.
fn ep(i: usize) -> usize {
    ACM_MSG_HDR_LENGTH + i * ACM_MSG_EP_LENGTH
}

fn put(buf: &mut [u8], off: usize, v: &[u8]) {
    buf[off..off + v.len()].copy_from_slice(v);
}

/// Fills an entry with an IP address: AF_INET as a 4-byte IPv4 entry, any
/// other family as a 16-byte IPv6 entry.
fn put_ep_addr(msg: &mut [u8], e: usize, addr: &[u8]) {
    if sa_family(addr) == libc::AF_INET {
        put(msg, e + EP_TYPE, &ACM_EP_INFO_ADDRESS_IP.to_ne_bytes());
        put(msg, e + EP_INFO, &bytes_at::<4>(addr, SIN_ADDR));
    } else {
        put(msg, e + EP_TYPE, &ACM_EP_INFO_ADDRESS_IP6.to_ne_bytes());
        put(msg, e + EP_INFO, &bytes_at::<16>(addr, SIN6_ADDR));
    }
}

/// An ibacm message on the stack: its first `len` bytes count.
pub(crate) struct Msg {
    buf: [u8; ACM_MSG_LENGTH],
    len: usize,
}

impl core::ops::Deref for Msg {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl core::ops::DerefMut for Msg {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.buf[..self.len]
    }
}

/// The resolve request for a result, exactly `hdr.length` bytes long.
fn build_request(rai: &AddrInfo, hints: &Hints) -> Msg {
    let mut msg = [0u8; ACM_MSG_LENGTH];
    msg[offset_of!(acm_hdr, version)] = ACM_VERSION;
    msg[offset_of!(acm_hdr, opcode)] = ACM_OP_RESOLVE;
    let mut n = 0;

    let src = rai.src.as_deref();
    let dst = rai.dst.as_deref();
    if let Some(a) = src.filter(|_| is_inet(src)) {
        put(&mut msg, ep(n), &ACM_EP_FLAG_SOURCE.to_ne_bytes());
        put_ep_addr(&mut msg, ep(n), a);
        n += 1;
    }
    if let Some(a) = dst.filter(|_| is_inet(dst)) {
        let mut flags = ACM_EP_FLAG_DEST;
        if hints.flags & (RAI_NUMERICHOST | RAI_NOROUTE) != 0 {
            flags |= ACM_FLAGS_NODELAY;
        }
        put(&mut msg, ep(n), &flags.to_ne_bytes());
        put_ep_addr(&mut msg, ep(n), a);
        n += 1;
    }
    if hints.route_len != 0 || is_ib(src) || is_ib(dst) {
        let info = ep(n) + EP_INFO;
        // A route hint is used when it is one path record or one path data
        // entry (upstream would read through a NULL route; we skip it).
        let path = hints.route.as_deref().and_then(|r| match hints.route_len {
            l if l == size_of::<ibv_path_record>() => Some(r),
            l if l == size_of::<ibv_path_data>() => Some(&r[PATH_IN_DATA..]),
            _ => None,
        });
        if let Some(p) = path {
            put(&mut msg, info, &p[..size_of::<ibv_path_record>()]);
        }
        if let Some(a) = src.filter(|_| is_ib(src)) {
            put(&mut msg, info + PATH_SGID, &bytes_at::<16>(a, SIB_ADDR));
        }
        if let Some(a) = dst.filter(|_| is_ib(dst)) {
            put(&mut msg, info + PATH_DGID, &bytes_at::<16>(a, SIB_ADDR));
        }
        put(&mut msg, ep(n) + EP_TYPE, &ACM_EP_INFO_PATH.to_ne_bytes());
        n += 1;
    }
    let len = ep(n);
    put(&mut msg, HDR_LENGTH, &(len as u16).to_ne_bytes());
    Msg { buf: msg, len }
}

/// Sends a request and reads the reply under the connection's lock; None
/// when the send is short, or the reply is short, inconsistent or an error.
pub(crate) fn exchange(conn: &Mutex<OwnedFd>, req: &[u8]) -> Option<Msg> {
    let mut buf = [0u8; ACM_MSG_LENGTH];
    let got = {
        let fd = conn.lock();
        // SAFETY: req is a valid buffer of req.len() bytes; fd is open.
        let sent = unsafe { libc::send(fd.as_raw_fd(), req.as_ptr().cast(), req.len(), 0) };
        if sent != req.len() as isize {
            return None;
        }
        // SAFETY: buf is a writable buffer of buf.len() bytes; fd is open.
        unsafe { libc::recv(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0) }
    };
    if got < ACM_MSG_HDR_LENGTH as isize {
        return None;
    }
    let len = u16::from_ne_bytes(bytes_at(&buf, HDR_LENGTH));
    if got != len as isize || buf[HDR_STATUS] != 0 {
        return None;
    }
    Some(Msg { buf, len: got as usize })
}

/// Applies a reply (`resp` is exactly `hdr.length` bytes) to a result.
fn save_resp(rai: &mut AddrInfo, resp: &mut [u8]) {
    let cnt = resp.len().saturating_sub(ACM_MSG_HDR_LENGTH) / ACM_MSG_EP_LENGTH;
    let mut first_path = None;
    let mut path_cnt = 0;
    for i in 0..cnt {
        let e = ep(i);
        let flags = u32::from_ne_bytes(bytes_at(resp, e));
        let ty = u16::from_ne_bytes(bytes_at(resp, e + EP_TYPE));
        match ty {
            ACM_EP_INFO_PATH => {
                // The entry is reused as an ibv_path_data: clear the type so
                // its `reserved` word does not carry it.
                put(resp, e + EP_TYPE, &0u16.to_ne_bytes());
                first_path.get_or_insert(e);
                path_cnt += 1;
            }
            // Upstream skips an address it cannot allocate room for.
            ACM_EP_INFO_ADDRESS_IP if flags & ACM_EP_FLAG_SOURCE != 0 && rai.src_len() == 0 => {
                if let Ok(mut sin) = rdma_util::fallible::vec_filled(0u8, size_of::<libc::sockaddr_in>()) {
                    put(&mut sin, 0, &(libc::AF_INET as u16).to_ne_bytes());
                    put(&mut sin, SIN_ADDR, &resp[e + EP_INFO..e + EP_INFO + 4]);
                    rai.src = Some(sin);
                }
            }
            ACM_EP_INFO_ADDRESS_IP6 if flags & ACM_EP_FLAG_SOURCE != 0 && rai.src_len() == 0 => {
                if let Ok(mut sin6) = rdma_util::fallible::vec_filled(0u8, size_of::<libc::sockaddr_in6>()) {
                    put(&mut sin6, 0, &(libc::AF_INET6 as u16).to_ne_bytes());
                    put(&mut sin6, SIN6_ADDR, &resp[e + EP_INFO..e + EP_INFO + 16]);
                    rai.src = Some(sin6);
                }
            }
            _ => {}
        }
    }
    // The route is `path_cnt` consecutive entries starting at the first path
    // entry, whatever their types (upstream copies them as one block); with
    // no path entry it is an empty, non-NULL route. Short of memory, the
    // route stays as it was (upstream's failed calloc).
    let route = match first_path {
        Some(start) => dup(&resp[start..start + path_cnt * ACM_MSG_EP_LENGTH]),
        None => Ok(Vec::new()),
    };
    if let Ok(r) = route {
        rai.route = Some(r);
    }
}

/// The `ib_connect_hdr` for an IP result, or None when the result lacks the
/// source or destination address it needs (upstream would crash).
fn connect_hdr(rai: &AddrInfo) -> Option<Vec<u8>> {
    let (src, dst) = (rai.src.as_deref()?, rai.dst.as_deref()?);
    let mut hdr = rdma_util::fallible::vec_filled(0u8, size_of::<ib_connect_hdr>()).ok()?;
    let src_off = offset_of!(ib_connect_hdr, src_addr);
    let dst_off = offset_of!(ib_connect_hdr, dst_addr);
    // The family of the result decides, whatever each address's own is.
    if rai.family == libc::AF_INET {
        hdr[offset_of!(ib_connect_hdr, ip_version)] = 4 << 4;
        put(&mut hdr, src_off + 12, &bytes_at::<4>(src, SIN_ADDR));
        put(&mut hdr, dst_off + 12, &bytes_at::<4>(dst, SIN_ADDR));
    } else {
        hdr[offset_of!(ib_connect_hdr, ip_version)] = 6 << 4;
        put(&mut hdr, src_off, &bytes_at::<16>(src, SIN6_ADDR));
        put(&mut hdr, dst_off, &bytes_at::<16>(dst, SIN6_ADDR));
    }
    Some(hdr)
}

/// Puts an AF_IB result built from the first path record of `chain[0]` in
/// front of the chain. Short of memory (or of a source or destination an IP
/// result needs) the chain stays as it is, as upstream's does.
fn resolve_af_ib(chain: &mut Chain) {
    let _ = (|| -> Option<()> {
        let ib = af_ib_result(&chain[0])?;
        let v = chain.as_vec().ok()?;
        v.try_reserve(1).ok()?;
        v.insert(0, ib);
        Some(())
    })();
}

/// The AF_IB result for `rai` (see [`resolve_af_ib`]).
fn af_ib_result(rai: &AddrInfo) -> Option<AddrInfo> {
    let route = rai.route.as_ref().filter(|r| r.len() >= ACM_MSG_EP_LENGTH)?;
    let mut ib = AddrInfo {
        flags: rai.flags,
        family: AF_IB,
        qp_type: rai.qp_type,
        port_space: rai.port_space,
        route: Some(dup(route).ok()?),
        src_canonname: dup_opt(&rai.src_canonname).ok()?,
        dst_canonname: dup_opt(&rai.dst_canonname).ok()?,
        ..Default::default()
    };
    if rai.family != AF_IB {
        ib.connect = Some(connect_hdr(rai)?);
    }
    let path = &route[PATH_IN_DATA..PATH_IN_DATA + size_of::<ibv_path_record>()];
    let flow = u32::from_be_bytes(bytes_at(path, PATH_FLOW)) >> 8;
    let side = |gid_off: usize, addr: Option<&[u8]>| {
        let mut sib = SibBuilder {
            pkey: bytes_at(path, PATH_PKEY),
            flowinfo: flow.to_be_bytes(),
            addr: bytes_at(path, gid_off),
            ..Default::default()
        };
        sib.set_sid(ib.port_space, addr);
        sib.to_bytes()
    };
    ib.src = Some(side(PATH_SGID, rai.src.as_deref()).ok()?);
    ib.dst = Some(side(PATH_DGID, rai.dst.as_deref()).ok()?);
    Some(ib)
}

/// The ibacm step on a given connection: ask, apply the reply, and add the
/// AF_IB result when `af_ib` (kernel support) allows it.
fn resolve_on(conn: &Mutex<OwnedFd>, chain: &mut Chain, hints: &Hints, af_ib: bool) {
    let req = build_request(&chain[0], hints);
    let Some(mut resp) = exchange(conn, &req) else {
        return;
    };
    save_resp(&mut chain[0], &mut resp);
    if af_ib && hints.flags & RAI_ROUTEONLY == 0 && chain[0].route_len() != 0 {
        resolve_af_ib(chain);
    }
}

/// The ibacm step of rdma_getaddrinfo (upstream's `ucma_ib_resolve`): a no-op
/// when ibacm is not reachable.
pub(crate) fn ib_resolve(chain: &mut Chain, hints: &Hints) {
    if let Some(conn) = ib_init() {
        resolve_on(conn, chain, hints, crate::ucma::af_ib_support());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::verbs::{IBV_QPT_RC, IBV_QPT_UD};
    use crate::addrinfo::tests::hex;
    use crate::addrinfo::{getaddrinfo_with, Hints};
    use std::ffi::CString;
    use std::io::{Read, Write};
    use std::os::unix::net::UnixStream;

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    fn sin(addr: [u8; 4], port: u16) -> Vec<u8> {
        let mut b = vec![0u8; 16];
        b[0..2].copy_from_slice(&(libc::AF_INET as u16).to_ne_bytes());
        b[2..4].copy_from_slice(&port.to_be_bytes());
        b[4..8].copy_from_slice(&addr);
        b
    }

    fn sin6(addr: &str, port: u16) -> Vec<u8> {
        let ip: std::net::Ipv6Addr = addr.parse().unwrap();
        let mut b = vec![0u8; 28];
        b[0..2].copy_from_slice(&(libc::AF_INET6 as u16).to_ne_bytes());
        b[2..4].copy_from_slice(&port.to_be_bytes());
        b[8..24].copy_from_slice(&ip.octets());
        b
    }

    /// The path entry the C probe's fake ibacm sends for `seed`.
    fn path_entry(seed: u8) -> Vec<u8> {
        let mut e = vec![0u8; ACM_MSG_EP_LENGTH];
        e[0..4].copy_from_slice(&0x2au32.to_ne_bytes());
        e[4..6].copy_from_slice(&ACM_EP_INFO_PATH.to_ne_bytes());
        e[6..8].copy_from_slice(&0x7777u16.to_ne_bytes());
        let p = &mut e[EP_INFO..];
        p[0..8].copy_from_slice(&(0x0106_0000u64 + u64::from(seed)).to_be_bytes());
        p[PATH_DGID..PATH_DGID + 16].fill(0xd0 + seed);
        p[PATH_SGID..PATH_SGID + 16].fill(0x50 + seed);
        p[40..42].copy_from_slice(&(0x10 + u16::from(seed)).to_be_bytes());
        p[42..44].copy_from_slice(&(0x20 + u16::from(seed)).to_be_bytes());
        p[PATH_FLOW..PATH_FLOW + 4].copy_from_slice(&(0x1234_5640 + u32::from(seed)).to_be_bytes());
        p[48] = seed;
        p[PATH_PKEY..PATH_PKEY + 2].copy_from_slice(&0x8001u16.to_be_bytes());
        p[54] = 0x84;
        e
    }

    /// An endpoint entry carrying an address.
    fn addr_entry(ty: u16, flags: u32, addr: &[u8]) -> Vec<u8> {
        let mut e = vec![0u8; ACM_MSG_EP_LENGTH];
        e[0..4].copy_from_slice(&flags.to_ne_bytes());
        e[4..6].copy_from_slice(&ty.to_ne_bytes());
        e[EP_INFO..EP_INFO + addr.len()].copy_from_slice(addr);
        e
    }

    /// A reply: header with `status` and the given entries.
    fn reply(status: u8, entries: &[Vec<u8>]) -> Vec<u8> {
        let mut m = vec![0u8; ACM_MSG_HDR_LENGTH];
        m[0] = ACM_VERSION;
        m[1] = 0x81;
        m[2] = status;
        for e in entries {
            m.extend_from_slice(e);
        }
        let len = m.len() as u16;
        m[6..8].copy_from_slice(&len.to_ne_bytes());
        m
    }

    /// Runs one ibacm exchange against a fake server on a socket pair: the
    /// server records the request and answers `answer`.
    fn with_fake_ibacm(
        chain: &mut Vec<AddrInfo>,
        hints: &Hints,
        af_ib: bool,
        answer: Vec<u8>,
    ) -> Vec<u8> {
        let (client, mut server) = UnixStream::pair().unwrap();
        let t = std::thread::spawn(move || {
            let mut req = vec![0u8; ACM_MSG_LENGTH];
            let n = server.read(&mut req).unwrap();
            req.truncate(n);
            server.write_all(&answer).unwrap();
            req
        });
        let conn = Mutex::new(OwnedFd::from(client));
        let mut c = Chain::Many(core::mem::take(chain));
        resolve_on(&conn, &mut c, hints, af_ib);
        *chain = c.into_vec();
        t.join().unwrap()
    }

    fn resolved(node: &str, service: &str, h: Option<&Hints>) -> Vec<AddrInfo> {
        let (n, s) = (CString::new(node).unwrap(), CString::new(service).unwrap());
        getaddrinfo_with(Some(&n), Some(&s), h, &mut |_, _| {}).unwrap().into_vec()
    }

    #[test]
    fn port_file_numbers_parse_like_fscanf_hu() {
        assert_eq!(parse_port(b"6125\n"), 6125);
        assert_eq!(parse_port(b" \t\n+7x"), 7);
        assert_eq!(parse_port(b"-1"), 65535);
        assert_eq!(parse_port(b"70000"), (70000u32 % 65536) as u16);
        assert_eq!(parse_port(b"99999999999999999999999"), 65535);
        assert_eq!(parse_port(b"abc"), 0);
        assert_eq!(parse_port(b"-"), 0);
        assert_eq!(parse_port(b""), 0);
        assert_eq!(read_server_port(Path::new("/nonexistent/ibacm.port")), 0);
    }

    #[test]
    fn connects_over_tcp_when_the_port_file_names_a_port_else_unix() {
        let dir = std::env::temp_dir().join(format!("acm-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let port_file = dir.join("ibacm.port");
        let sock_path = dir.join("ibacm.sock");
        let sock_c = CString::new(sock_path.to_str().unwrap()).unwrap();

        // Nothing listening anywhere: no connection.
        assert!(connect_ibacm(&port_file, &sock_c).is_none());

        // The unix socket when there is no port file.
        let ul = std::os::unix::net::UnixListener::bind(&sock_path).unwrap();
        let fd = connect_ibacm(&port_file, &sock_c).expect("unix connect");
        let (peer, _) = ul.accept().unwrap();
        drop((fd, peer));

        // A port file wins over the unix socket: TCP to 127.0.0.1:port.
        let tl = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = tl.local_addr().unwrap().port();
        std::fs::write(&port_file, format!("{port}\n")).unwrap();
        let fd = connect_ibacm(&port_file, &sock_c).expect("tcp connect");
        let (peer, from) = tl.accept().unwrap();
        assert!(from.ip().is_loopback());
        drop((fd, peer));

        // A port file with 0 falls back to the unix socket.
        std::fs::write(&port_file, "0\n").unwrap();
        assert!(connect_ibacm(&port_file, &sock_c).is_some());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn requests_match_upstreams_bytes() {
        // Expected bytes: what upstream sends for the same input (reference
        // run of abi-tests/vm-progs/cm_getaddrinfo.c acm).
        let pad = |s: &str, len: usize| format!("{s}{}", "0".repeat(len * 2 - s.len()));
        let h = Hints { flags: RAI_NUMERICHOST, qp_type: IBV_QPT_UD as c_int, port_space: RDMA_PS_UDP as c_int, ..Default::default() };
        let rai = &resolved("127.0.0.1", "7471", Some(&h))[0];
        assert_eq!(hex(&build_request(rai, &h)), pad("0101000000005800000000000000000002000040020000007f000001", 88));

        let h = Hints { flags: RAI_NOROUTE, ..Default::default() };
        let rai = &resolved("::1", "7471", Some(&h))[0];
        assert_eq!(
            hex(&build_request(rai, &h)),
            pad("01010000000058000000000000000000020000400300000000000000000000000000000000000001", 88)
        );

        // Source (IPv6 hint) and destination (IPv4), no NODELAY.
        let h = Hints { src: Some(sin6("fd00::1", 0)), src_len: 28, ..Default::default() };
        let rai = &resolved("127.0.0.1", "7471", Some(&h))[0];
        let want = format!(
            "{}{}",
            pad("010100000000a00000000000000000000100000003000000fd000000000000000000000000000001", 88),
            pad("02000000020000007f000001", 72)
        );
        assert_eq!(hex(&build_request(rai, &h)), want);

        // AF_IB destination with a path-data route hint: one path entry whose
        // dgid is the address and whose other fields come from the hint.
        let mut pd = vec![0u8; 72];
        pd[0] = 0x12;
        pd[8..16].copy_from_slice(&0xabcdefu64.to_be_bytes());
        pd[8 + PATH_DGID..8 + PATH_DGID + 16].fill(0xaa);
        pd[8 + PATH_SGID..8 + PATH_SGID + 16].fill(0xbb);
        pd[8 + 40..8 + 42].copy_from_slice(&3u16.to_be_bytes());
        pd[8 + PATH_PKEY..8 + PATH_PKEY + 2].copy_from_slice(&0xffffu16.to_be_bytes());
        let mut h = Hints { flags: RAI_FAMILY | RAI_NUMERICHOST, family: AF_IB, port_space: RDMA_PS_IB as c_int, ..Default::default() };
        h.route = Some(pd.clone());
        h.route_len = 72;
        let rai = &resolved("fe80::1:2:3:4", "99", Some(&h))[0];
        let want = "0101000000005800000000000000000000000000100000000000000000abcdeffe800000000000000001000200030004bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb00030000000000000000ffff000000000000000000000000";
        assert_eq!(hex(&build_request(rai, &h)), want);
        // The same record given as a bare path record.
        h.route = Some(pd[8..].to_vec());
        h.route_len = 64;
        assert_eq!(hex(&build_request(rai, &h)), want);
        // Another length: an empty path entry with only the GID.
        h.route = None;
        h.route_len = 5;
        let req = build_request(rai, &h);
        assert_eq!(req.len(), 88);
        assert_eq!(&req[EP_TYPE + 16..EP_TYPE + 18], &ACM_EP_INFO_PATH.to_ne_bytes());
        assert!(req[EP_INFO + 16..EP_INFO + 16 + PATH_DGID].iter().all(|&b| b == 0));
    }

    /// A hostile ibacm: replies mutated from a valid one (truncated,
    /// extended past the message size, length and count fields set to edge
    /// values, entry types and flags garbled) and random bytes, with and
    /// without AF_IB support. rdma_getaddrinfo's ibacm step must not panic,
    /// must keep the chain's head, and any route it takes must be whole
    /// path entries.
    #[test]
    fn fuzz_hostile_ibacm_replies() {
        let base = reply(0, &[addr_entry(ACM_EP_INFO_ADDRESS_IP, ACM_EP_FLAG_SOURCE, &[10, 9, 8, 7]), path_entry(1), path_entry(2)]);
        let v6 = reply(0, &[addr_entry(ACM_EP_INFO_ADDRESS_IP6, ACM_EP_FLAG_SOURCE, &[0xfd; 16]), path_entry(3)]);
        let start = resolved("127.0.0.1", "7471", None);
        rdma_util::fuzz::run(
            "ibacm replies",
            3_000,
            |r| {
                let mut m = match r.below(3) {
                    0 => r.mutate(&base),
                    1 => r.mutate(&v6),
                    _ => {
                        let n = r.below(ACM_MSG_LENGTH + 40);
                        r.bytes(n)
                    }
                };
                // Often make the length field agree with what is sent, so
                // the reply gets past the header check to the parser.
                if r.below(2) == 0 && m.len() >= ACM_MSG_HDR_LENGTH {
                    let len = (m.len() as u16).to_ne_bytes();
                    m[6..8].copy_from_slice(&len);
                    m[2] = 0;
                }
                (m, r.below(2) == 0)
            },
            |(answer, af_ib)| {
                let mut chain = start.clone();
                with_fake_ibacm(&mut chain, &Hints::default(), *af_ib, answer.clone());
                assert!(!chain.is_empty() && chain.len() <= 2);
                for rai in &chain {
                    if let Some(route) = &rai.route {
                        assert_eq!(route.len() % ACM_MSG_EP_LENGTH, 0);
                    }
                }
            },
        );
    }

    #[test]
    fn a_reply_sets_source_and_route_and_without_af_ib_adds_no_entry() {
        let mut chain = resolved("127.0.0.1", "7471", None);
        let answer = reply(0, &[addr_entry(ACM_EP_INFO_ADDRESS_IP, ACM_EP_FLAG_SOURCE, &[10, 9, 8, 7]), path_entry(1), path_entry(2)]);
        let req = with_fake_ibacm(&mut chain, &Hints::default(), false, answer.clone());
        assert_eq!(req.len(), 88);
        assert_eq!(chain.len(), 1);
        assert_eq!(chain[0].src.as_deref(), Some(&sin([10, 9, 8, 7], 0)[..]));
        // The route is the two path entries with their type word cleared.
        let mut want = answer[ep(1)..ep(3)].to_vec();
        want[EP_TYPE..EP_TYPE + 2].fill(0);
        want[72 + EP_TYPE..72 + EP_TYPE + 2].fill(0);
        assert_eq!(chain[0].route.as_deref(), Some(&want[..]));
        assert_eq!(&want[..8], &unhex("2a00000000007777")[..]);
    }

    #[test]
    fn route_is_counted_from_the_first_path_entry() {
        // PATH, IP, PATH: upstream copies two consecutive entries from the
        // first path on, i.e. the path and the address entry.
        let mut chain = resolved("127.0.0.1", "7471", None);
        let answer = reply(0, &[path_entry(0), addr_entry(ACM_EP_INFO_ADDRESS_IP, ACM_EP_FLAG_SOURCE, &[10, 9, 8, 7]), path_entry(2)]);
        with_fake_ibacm(&mut chain, &Hints::default(), false, answer.clone());
        let route = chain[0].route.as_ref().unwrap();
        assert_eq!(route.len(), 144);
        assert_eq!(&route[72..144], &answer[ep(1)..ep(2)]);

        // An IPv6 source; a destination-only address and a name are ignored.
        let mut chain = resolved("::1", "7471", None);
        let answer = reply(0, &[
            addr_entry(ACM_EP_INFO_ADDRESS_IP, ACM_EP_FLAG_DEST, &[10, 1, 1, 1]),
            addr_entry(ACM_EP_INFO_NAME, ACM_EP_FLAG_SOURCE, b"host"),
            addr_entry(ACM_EP_INFO_ADDRESS_IP6, ACM_EP_FLAG_SOURCE, &"fd00::77".parse::<std::net::Ipv6Addr>().unwrap().octets()),
            path_entry(3),
        ]);
        with_fake_ibacm(&mut chain, &Hints::default(), false, answer);
        assert_eq!(chain[0].src.as_deref(), Some(&sin6("fd00::77", 0)[..]));
        assert_eq!(chain[0].route_len(), 72);

        // A source the result already has is kept.
        let mut chain = resolved("127.0.0.1", "7471", None);
        chain[0].src = Some(sin6("fd00::1", 0));
        let answer = reply(0, &[addr_entry(ACM_EP_INFO_ADDRESS_IP, ACM_EP_FLAG_SOURCE, &[10, 9, 8, 7]), path_entry(1)]);
        let req = with_fake_ibacm(&mut chain, &Hints::default(), false, answer);
        assert_eq!(req.len(), 160);
        assert_eq!(chain[0].src.as_deref(), Some(&sin6("fd00::1", 0)[..]));
    }

    #[test]
    fn unusable_replies_change_nothing_and_an_empty_one_gives_an_empty_route() {
        let base = resolved("127.0.0.1", "7471", None);
        let bad: Vec<Vec<u8>> = vec![
            reply(3, &[path_entry(0)]),                    // error status
            reply(0, &[path_entry(0)])[..50].to_vec(),     // shorter than its length
            {
                let mut m = reply(0, &[path_entry(0)]);    // length field says 16
                m[6..8].copy_from_slice(&16u16.to_ne_bytes());
                m
            },
            reply(0, &[])[..8].to_vec(),                   // shorter than a header
        ];
        for answer in bad {
            let mut chain = base.clone();
            with_fake_ibacm(&mut chain, &Hints::default(), true, answer);
            assert_eq!(chain, base);
        }
        let mut chain = base.clone();
        with_fake_ibacm(&mut chain, &Hints::default(), true, reply(0, &[]));
        assert_eq!(chain.len(), 1);
        assert_eq!(chain[0].route, Some(Vec::new()));

        // A trailing partial entry is not read.
        let mut answer = reply(0, &[path_entry(0)]);
        answer.extend_from_slice(&[0x10; 20]);
        let len = answer.len() as u16;
        answer[6..8].copy_from_slice(&len.to_ne_bytes());
        let mut chain = base.clone();
        with_fake_ibacm(&mut chain, &Hints::default(), false, answer);
        assert_eq!(chain[0].route_len(), 72);
    }

    #[test]
    fn with_af_ib_support_an_af_ib_result_leads_the_chain() {
        // Expected values from upstream with AF_IB support (reference run of
        // cm_getaddrinfo acm-afib).
        let mut chain = resolved("127.0.0.1", "7471", None);
        let answer = reply(0, &[addr_entry(ACM_EP_INFO_ADDRESS_IP, ACM_EP_FLAG_SOURCE, &[10, 9, 8, 7]), path_entry(1), path_entry(2)]);
        with_fake_ibacm(&mut chain, &Hints::default(), true, answer);
        assert_eq!(chain.len(), 2);
        let ib = &chain[0];
        assert_eq!((ib.flags, ib.family, ib.qp_type, ib.port_space), (0, AF_IB, IBV_QPT_RC as c_int, RDMA_PS_TCP as c_int));
        assert_eq!(hex(ib.src.as_ref().unwrap()), "1b00800100123456515151515151515151515151515151510000000001060000ffffffffffff00000000000000000000");
        assert_eq!(hex(ib.dst.as_ref().unwrap()), "1b00800100123456d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d10000000001061d2fffffffffffffffff0000000000000000");
        assert_eq!(hex(ib.connect.as_ref().unwrap()), "004000000000000000000000000000000a0908070000000000000000000000007f000001");
        assert_eq!(ib.route, chain[1].route);
        assert_eq!(chain[1].family, libc::AF_INET);

        // IPv6 hints only (no node): a v4 source read as IPv6, ports in the sids.
        let mut h = Hints { family: libc::AF_INET6, qp_type: IBV_QPT_RC as c_int, port_space: RDMA_PS_IB as c_int, ..Default::default() };
        h.dst = Some(sin6("fd00::1", 4000));
        h.dst_len = 28;
        h.src = Some(sin([10, 0, 0, 5], 5000));
        h.src_len = 16;
        let mut chain = getaddrinfo_with(None, None, Some(&h), &mut |_, _| {}).unwrap().into_vec();
        with_fake_ibacm(&mut chain, &h, true, reply(0, &[path_entry(0)]));
        let ib = &chain[0];
        assert_eq!(hex(ib.src.as_ref().unwrap()), "1b008001001234565050505050505050505050505050505000000000013f1388ffffffffffffffff0000000000000000");
        assert_eq!(hex(ib.dst.as_ref().unwrap()), "1b00800100123456d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d000000000013f0fa0ffffffffffffffff0000000000000000");
        assert_eq!(hex(ib.connect.as_ref().unwrap()), "0060000000000000000000000000000000000000fd000000000000000000000000000001");

        // An AF_IB result gets no connect header.
        let h = Hints { flags: RAI_FAMILY | RAI_NUMERICHOST, family: AF_IB, port_space: RDMA_PS_IB as c_int, ..Default::default() };
        let mut chain = resolved("fe80::1:2:3:4", "99", Some(&h));
        with_fake_ibacm(&mut chain, &h, true, reply(0, &[path_entry(0), path_entry(1)]));
        assert_eq!(chain.len(), 2);
        assert_eq!(chain[0].connect, None);
        assert_eq!(hex(chain[0].src.as_ref().unwrap()), "1b008001001234565050505050505050505050505050505000000000013f0000ffffffffffff00000000000000000000");
        assert_eq!(hex(chain[0].dst.as_ref().unwrap()), "1b00800100123456d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d000000000013f0063ffffffffffffffff0000000000000000");
    }

    #[test]
    fn no_af_ib_result_for_routeonly_no_route_or_a_missing_source() {
        let answer = || reply(0, &[addr_entry(ACM_EP_INFO_ADDRESS_IP, ACM_EP_FLAG_SOURCE, &[10, 9, 8, 7]), path_entry(1)]);
        let h = Hints { flags: RAI_ROUTEONLY, ..Default::default() };
        let mut chain = resolved("127.0.0.1", "7471", Some(&h));
        with_fake_ibacm(&mut chain, &h, true, answer());
        assert_eq!((chain.len(), chain[0].route_len()), (1, 72));

        let mut chain = resolved("127.0.0.1", "7471", None);
        with_fake_ibacm(&mut chain, &Hints::default(), true, reply(0, &[addr_entry(ACM_EP_INFO_ADDRESS_IP, ACM_EP_FLAG_SOURCE, &[1, 2, 3, 4])]));
        assert_eq!(chain.len(), 1);

        // Upstream dereferences the missing source here; we add no entry.
        let mut chain = resolved("127.0.0.1", "7471", None);
        with_fake_ibacm(&mut chain, &Hints::default(), true, reply(0, &[path_entry(0)]));
        assert_eq!((chain.len(), chain[0].family, chain[0].route_len()), (1, libc::AF_INET, 72));
    }
}
