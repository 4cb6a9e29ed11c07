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
use crate::addrinfo::{bytes_at, sa_family, AddrInfo, Hints, SibBuilder, RAI_ROUTEONLY};
use crate::addrinfo_types::*;

/// Where ibacm publishes its TCP port (Debian: RUNDIR is /run).
pub const IBACM_PORT_FILE: &str = "/run/ibacm.port";
/// ibacm's unix socket as librdmacm names it.
pub const IBACM_SERVER_PATH: &CStr = c"/run/ibacm.sock";

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

/// librdmacm's private CM header for AF_IB connections (`cma.h`); IPv4
/// addresses go in the last word of each address.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct ib_connect_hdr {
    pub cma_version: u8,
    /// IP version in bits 7:4.
    pub ip_version: u8,
    pub port: u16,
    pub src_addr: [u32; 4],
    pub dst_addr: [u32; 4],
}

crate::assert_layout!(acm_hdr, size = 16, align = 8, length = 6, tid = 8);
crate::assert_layout!(acm_ep_addr_data, size = 72, align = 8, type_ = 4, info = 8);
crate::assert_layout!(ib_connect_hdr, size = 36, align = 4, ip_version = 1, src_addr = 4, dst_addr = 20);
const _: () = assert!(size_of::<acm_hdr>() == ACM_MSG_HDR_LENGTH);
const _: () = assert!(size_of::<acm_ep_addr_data>() == ACM_MSG_EP_LENGTH);
const _: () = assert!(size_of::<ibv_path_data>() == ACM_MSG_EP_LENGTH);

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
pub fn parse_port(text: &[u8]) -> u16 {
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
pub fn read_server_port(port_file: &Path) -> u16 {
    std::fs::read(port_file).map_or(0, |text| parse_port(&text))
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
pub fn connect_ibacm(port_file: &Path, unix_path: &CStr) -> Option<OwnedFd> {
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
pub fn ib_init() -> Option<&'static Mutex<OwnedFd>> {
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

/// The resolve request for a result, exactly `hdr.length` bytes long.
pub fn build_request(rai: &AddrInfo, hints: &Hints) -> Vec<u8> {
    let mut msg = vec![0u8; ACM_MSG_LENGTH];
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
    msg.truncate(len);
    msg
}

/// Sends a request and reads the reply under the connection's lock; None
/// when the send is short, or the reply is short, inconsistent or an error.
pub fn exchange(conn: &Mutex<OwnedFd>, req: &[u8]) -> Option<Vec<u8>> {
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
    Some(buf[..got as usize].to_vec())
}

/// Applies a reply (`resp` is exactly `hdr.length` bytes) to a result.
pub fn save_resp(rai: &mut AddrInfo, resp: &mut [u8]) {
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
            ACM_EP_INFO_ADDRESS_IP if flags & ACM_EP_FLAG_SOURCE != 0 && rai.src_len() == 0 => {
                let mut sin = vec![0u8; size_of::<libc::sockaddr_in>()];
                put(&mut sin, 0, &(libc::AF_INET as u16).to_ne_bytes());
                put(&mut sin, SIN_ADDR, &resp[e + EP_INFO..e + EP_INFO + 4]);
                rai.src = Some(sin);
            }
            ACM_EP_INFO_ADDRESS_IP6 if flags & ACM_EP_FLAG_SOURCE != 0 && rai.src_len() == 0 => {
                let mut sin6 = vec![0u8; size_of::<libc::sockaddr_in6>()];
                put(&mut sin6, 0, &(libc::AF_INET6 as u16).to_ne_bytes());
                put(&mut sin6, SIN6_ADDR, &resp[e + EP_INFO..e + EP_INFO + 16]);
                rai.src = Some(sin6);
            }
            _ => {}
        }
    }
    // The route is `path_cnt` consecutive entries starting at the first path
    // entry, whatever their types (upstream copies them as one block); with
    // no path entry it is an empty, non-NULL route.
    rai.route = Some(match first_path {
        Some(start) => resp[start..start + path_cnt * ACM_MSG_EP_LENGTH].to_vec(),
        None => Vec::new(),
    });
}

/// The `ib_connect_hdr` for an IP result, or None when the result lacks the
/// source or destination address it needs (upstream would crash).
fn connect_hdr(rai: &AddrInfo) -> Option<Vec<u8>> {
    let (src, dst) = (rai.src.as_deref()?, rai.dst.as_deref()?);
    let mut hdr = vec![0u8; size_of::<ib_connect_hdr>()];
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
/// front of the chain.
pub fn resolve_af_ib(chain: &mut Vec<AddrInfo>) {
    let rai = &chain[0];
    let Some(route) = rai.route.as_ref().filter(|r| r.len() >= ACM_MSG_EP_LENGTH) else {
        return;
    };
    let mut ib = AddrInfo {
        flags: rai.flags,
        family: AF_IB,
        qp_type: rai.qp_type,
        port_space: rai.port_space,
        route: Some(route.clone()),
        src_canonname: rai.src_canonname.clone(),
        dst_canonname: rai.dst_canonname.clone(),
        ..Default::default()
    };
    if rai.family != AF_IB {
        match connect_hdr(rai) {
            Some(hdr) => ib.connect = Some(hdr),
            None => return,
        }
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
    ib.src = Some(side(PATH_SGID, rai.src.as_deref()));
    ib.dst = Some(side(PATH_DGID, rai.dst.as_deref()));
    chain.insert(0, ib);
}

/// The ibacm step on a given connection: ask, apply the reply, and add the
/// AF_IB result when `af_ib` (kernel support) allows it.
pub fn resolve_on(conn: &Mutex<OwnedFd>, chain: &mut Vec<AddrInfo>, hints: &Hints, af_ib: bool) {
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
pub fn ib_resolve(chain: &mut Vec<AddrInfo>, hints: &Hints) {
    if let Some(conn) = ib_init() {
        resolve_on(conn, chain, hints, crate::cma::af_ib_support());
    }
}
