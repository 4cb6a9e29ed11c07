//! rdma_getaddrinfo / rdma_freeaddrinfo: RDMA address and route resolution,
//! behaving as rdma-core 44's librdmacm.
//!
//! How a result is made
//! 1. No node, no service and no hints: -1 with errno EINVAL. Then the CM is
//!    initialised (`cma::ucma_init`); its failure is returned unchanged.
//! 2. With a node or a service, the system getaddrinfo resolves them. The
//!    RDMA hints are translated to socket hints (RAI_PASSIVE / RAI_NUMERICHOST
//!    to AI_PASSIVE / AI_NUMERICHOST, the family unless it is AF_IB, the
//!    socket type from the QP type, the protocol from the port space); with no
//!    hints at all getaddrinfo gets NULL hints (so glibc's defaults apply).
//!    Only the FIRST socket result is used. Its error code (an EAI_* value) is
//!    returned as is. The result is translated back: the QP type and port
//!    space come from the hints, or else from the socket type and protocol; a
//!    passive result fills the source address, any other the destination.
//!    With RAI_FAMILY | RAI_NUMERICHOST and family AF_IB in the hints, the
//!    address (an IPv6 literal holding a GID) becomes a `sockaddr_ib` whose
//!    service id combines the port space and the port.
//! 3. With neither node nor service, the result copies the hints' flags,
//!    family, QP type, port space and destination address.
//! 4. A result without a source address takes the hints' one.
//! 5. A result that is not passive is handed to ibacm (`acm`), which may add
//!    a source address, the path records (`ai_route`) and, when the kernel
//!    supports AF_IB, a leading AF_IB result with `ai_connect`. Without ibacm
//!    the result stays as it is.
//!
//! The result is built as [`AddrInfo`] values in safe code and only then
//! copied into malloc()ed C structures, so rdma_freeaddrinfo (and any C code
//! that frees fields itself) releases them with free().
//!
//! Where upstream would dereference a NULL pointer (a hint with a non-zero
//! address length and a NULL address, a NULL `res`), this library returns -1
//! with errno EINVAL instead.
use core::ffi::{c_char, c_int, c_void, CStr};
use core::mem::offset_of;
use core::ptr;
use std::ffi::CString;

use crate::abi::verbs::{IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD, IBV_QPT_XRC_RECV, IBV_QPT_XRC_SEND};
use crate::addrinfo_types::*;
use crate::ffi::set_errno;

/// The hint flag that keeps rdma_getaddrinfo from adding the AF_IB result
/// (librdmacm-internal, `cma.h`; used by rdma_resolve_addr).
pub const RAI_ROUTEONLY: c_int = 0x0100_0000;

/// One result of rdma_getaddrinfo before it is copied into C memory.
/// Addresses are the bytes of the C socket address (family first, in host
/// order, the rest as the sockaddr type lays it out).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AddrInfo {
    pub flags: c_int,
    pub family: c_int,
    pub qp_type: c_int,
    pub port_space: c_int,
    pub src: Option<Vec<u8>>,
    pub dst: Option<Vec<u8>>,
    pub src_canonname: Option<CString>,
    pub dst_canonname: Option<CString>,
    /// `Some(empty)` is a non-NULL `ai_route` of length 0 (upstream
    /// allocates one when ibacm answers without path records).
    pub route: Option<Vec<u8>>,
    pub connect: Option<Vec<u8>>,
}

impl AddrInfo {
    /// `ai_src_len`.
    pub fn src_len(&self) -> usize {
        self.src.as_ref().map_or(0, Vec::len)
    }
    /// `ai_dst_len`.
    pub fn dst_len(&self) -> usize {
        self.dst.as_ref().map_or(0, Vec::len)
    }
    /// `ai_route_len`.
    pub fn route_len(&self) -> usize {
        self.route.as_ref().map_or(0, Vec::len)
    }
}

/// The caller's hints, copied out of its `struct rdma_addrinfo`.
/// An address or route whose length is non-zero but whose pointer is NULL is
/// kept as its length with `None` bytes.
#[derive(Clone, Debug, Default)]
pub struct Hints {
    pub flags: c_int,
    pub family: c_int,
    pub qp_type: c_int,
    pub port_space: c_int,
    pub src_len: u32,
    pub src: Option<Vec<u8>>,
    pub dst_len: u32,
    pub dst: Option<Vec<u8>>,
    pub route_len: usize,
    /// Only kept when `route_len` is the size of a path record or of a path
    /// data entry: the only lengths the ibacm request uses.
    pub route: Option<Vec<u8>>,
}

impl Hints {
    /// Copies the fields rdma_getaddrinfo reads out of C hints.
    ///
    /// # Safety
    /// Non-NULL address and route pointers must be readable for their lengths.
    pub unsafe fn from_c(h: &rdma_addrinfo) -> Hints {
        // SAFETY: the caller guarantees each non-NULL pointer covers its length.
        let copy = |p: *const u8, len: usize| unsafe {
            (!p.is_null()).then(|| core::slice::from_raw_parts(p, len).to_vec())
        };
        let route_len = h.ai_route_len;
        let route = if route_len == PATH_RECORD_LEN || route_len == PATH_DATA_LEN {
            copy(h.ai_route.cast(), route_len)
        } else {
            None
        };
        Hints {
            flags: h.ai_flags,
            family: h.ai_family,
            qp_type: h.ai_qp_type,
            port_space: h.ai_port_space,
            src_len: h.ai_src_len,
            src: copy(h.ai_src_addr.cast(), h.ai_src_len as usize),
            dst_len: h.ai_dst_len,
            dst: copy(h.ai_dst_addr.cast(), h.ai_dst_len as usize),
            route_len,
            route,
        }
    }
}

pub(crate) const PATH_RECORD_LEN: usize = core::mem::size_of::<crate::abi::verbs::ibv_path_record>();
pub(crate) const PATH_DATA_LEN: usize = core::mem::size_of::<crate::abi::verbs::ibv_path_data>();

// ---------------------------------------------------------------------------
// Socket-address bytes
// ---------------------------------------------------------------------------

/// `N` bytes of `b` from `off`; bytes past the end of `b` read as zero.
/// (Upstream reads some fields through a cast to a larger sockaddr type; the
/// bytes past the real address are then whatever follows it in memory.)
pub(crate) fn bytes_at<const N: usize>(b: &[u8], off: usize) -> [u8; N] {
    let mut out = [0u8; N];
    for (i, o) in out.iter_mut().enumerate() {
        *o = b.get(off + i).copied().unwrap_or(0);
    }
    out
}

/// The `sa_family` of an address.
pub(crate) fn sa_family(b: &[u8]) -> c_int {
    c_int::from(u16::from_ne_bytes(bytes_at(b, 0)))
}

/// The port of an address in host order: the IP port, the low 16 bits of an
/// AF_IB service id, 0 for other families.
pub fn addr_port(b: &[u8]) -> u16 {
    match sa_family(b) {
        libc::AF_INET => u16::from_be_bytes(bytes_at(b, offset_of!(libc::sockaddr_in, sin_port))),
        libc::AF_INET6 => u16::from_be_bytes(bytes_at(b, offset_of!(libc::sockaddr_in6, sin6_port))),
        AF_IB => u64::from_be_bytes(bytes_at(b, offset_of!(sockaddr_ib, sib_sid))) as u16,
        _ => 0,
    }
}

/// A `sockaddr_ib` being built. Wire-order fields are kept as their bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SibBuilder {
    pub pkey: [u8; 2],
    pub flowinfo: [u8; 4],
    pub addr: [u8; 16],
    /// Host order.
    pub sid: u64,
    /// Host order.
    pub sid_mask: u64,
    pub scope_id: u64,
}

impl SibBuilder {
    /// Sets the service id from a port space and the port of `addr`, and its
    /// mask: the port-space bits when `ps` is non-zero, the port bits when the
    /// port is.
    pub fn set_sid(&mut self, ps: c_int, addr: Option<&[u8]>) {
        let port = addr.map_or(0, addr_port);
        // The port space is an unsigned C enum: widen without sign extension.
        let ps = u64::from(ps as u32);
        self.sid = (ps << 16).wrapping_add(u64::from(port));
        if ps != 0 {
            self.sid_mask = RDMA_IB_IP_PS_MASK;
        }
        if port != 0 {
            self.sid_mask |= RDMA_IB_IP_PORT_MASK;
        }
    }

    /// The 48 bytes of the `sockaddr_ib`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = vec![0u8; core::mem::size_of::<sockaddr_ib>()];
        let mut put = |off: usize, v: &[u8]| b[off..off + v.len()].copy_from_slice(v);
        put(offset_of!(sockaddr_ib, sib_family), &(AF_IB as u16).to_ne_bytes());
        put(offset_of!(sockaddr_ib, sib_pkey), &self.pkey);
        put(offset_of!(sockaddr_ib, sib_flowinfo), &self.flowinfo);
        put(offset_of!(sockaddr_ib, sib_addr), &self.addr);
        put(offset_of!(sockaddr_ib, sib_sid), &self.sid.to_be_bytes());
        put(offset_of!(sockaddr_ib, sib_sid_mask), &self.sid_mask.to_be_bytes());
        put(offset_of!(sockaddr_ib, sib_scope_id), &self.scope_id.to_ne_bytes());
        b
    }
}

/// Turns an address that getaddrinfo returned (read as a `sockaddr_in6`)
/// into an AF_IB address: the IPv6 address is the GID, pkey 0xffff, and the
/// service id comes from `ps` and the port.
pub fn in6_to_ib(ps: c_int, src: &[u8]) -> Vec<u8> {
    let mut sib = SibBuilder {
        pkey: [0xff, 0xff],
        flowinfo: bytes_at(src, offset_of!(libc::sockaddr_in6, sin6_flowinfo)),
        addr: bytes_at(src, offset_of!(libc::sockaddr_in6, sin6_addr)),
        scope_id: u64::from(u32::from_ne_bytes(bytes_at(src, offset_of!(libc::sockaddr_in6, sin6_scope_id)))),
        ..Default::default()
    };
    sib.set_sid(ps, Some(src));
    sib.to_bytes()
}

// ---------------------------------------------------------------------------
// The system resolver
// ---------------------------------------------------------------------------

/// What rdma_getaddrinfo keeps of the first getaddrinfo result.
#[derive(Clone, Debug, Default)]
pub struct SysAi {
    pub flags: c_int,
    pub family: c_int,
    pub socktype: c_int,
    pub protocol: c_int,
    pub addr: Vec<u8>,
    pub canonname: Option<CString>,
}

/// The socket hints upstream derives from RDMA hints.
pub fn socket_hints(h: &Hints) -> libc::addrinfo {
    let mut flags = 0;
    if h.flags & RAI_PASSIVE != 0 {
        flags = libc::AI_PASSIVE;
    }
    if h.flags & RAI_NUMERICHOST != 0 {
        flags |= libc::AI_NUMERICHOST;
    }
    let socktype = match h.qp_type as u32 {
        IBV_QPT_RC | IBV_QPT_UC | IBV_QPT_XRC_SEND | IBV_QPT_XRC_RECV => libc::SOCK_STREAM,
        IBV_QPT_UD => libc::SOCK_DGRAM,
        _ => 0,
    };
    let protocol = match h.port_space as u32 {
        RDMA_PS_TCP => libc::IPPROTO_TCP,
        RDMA_PS_IPOIB | RDMA_PS_UDP => libc::IPPROTO_UDP,
        RDMA_PS_IB if socktype == libc::SOCK_STREAM => libc::IPPROTO_TCP,
        RDMA_PS_IB if socktype == libc::SOCK_DGRAM => libc::IPPROTO_UDP,
        _ => 0,
    };
    // Upstream also points ai_addr/ai_canonname at the hints' addresses;
    // getaddrinfo ignores those fields of its hints.
    libc::addrinfo {
        ai_flags: flags,
        ai_family: if h.family != AF_IB { h.family } else { 0 },
        ai_socktype: socktype,
        ai_protocol: protocol,
        ai_addrlen: 0,
        ai_addr: ptr::null_mut(),
        ai_canonname: ptr::null_mut(),
        ai_next: ptr::null_mut(),
    }
}

/// Calls the C library's getaddrinfo and keeps its first result; the error
/// is getaddrinfo's own return value (errno as it left it).
pub fn sys_getaddrinfo(
    node: Option<&CStr>,
    service: Option<&CStr>,
    hints: Option<&libc::addrinfo>,
) -> Result<SysAi, c_int> {
    let mut res: *mut libc::addrinfo = ptr::null_mut();
    // SAFETY: node/service are NUL-terminated strings or NULL, hints is a
    // valid addrinfo or NULL, res is a valid out pointer.
    let ret = unsafe {
        libc::getaddrinfo(
            node.map_or(ptr::null(), CStr::as_ptr),
            service.map_or(ptr::null(), CStr::as_ptr),
            hints.map_or(ptr::null(), |h| h as *const libc::addrinfo),
            &mut res,
        )
    };
    if ret != 0 {
        return Err(ret);
    }
    // SAFETY: on success res heads a list getaddrinfo allocated; its first
    // entry's address covers ai_addrlen bytes and its canonname is NULL or a
    // C string. The list is freed exactly once, after the copy.
    unsafe {
        let ai = &*res;
        let addr = if ai.ai_addr.is_null() {
            Vec::new()
        } else {
            core::slice::from_raw_parts(ai.ai_addr.cast::<u8>(), ai.ai_addrlen as usize).to_vec()
        };
        let canonname = (!ai.ai_canonname.is_null()).then(|| CStr::from_ptr(ai.ai_canonname).to_owned());
        let out = SysAi {
            flags: ai.ai_flags,
            family: ai.ai_family,
            socktype: ai.ai_socktype,
            protocol: ai.ai_protocol,
            addr,
            canonname,
        };
        libc::freeaddrinfo(res);
        Ok(out)
    }
}

/// Builds the RDMA result from the first socket result.
pub fn from_socket_result(h: &Hints, ai: &SysAi) -> AddrInfo {
    let mut rai = AddrInfo::default();
    rai.qp_type = if h.qp_type != 0 {
        h.qp_type
    } else {
        match ai.socktype {
            libc::SOCK_STREAM => IBV_QPT_RC as c_int,
            libc::SOCK_DGRAM => IBV_QPT_UD as c_int,
            _ => 0,
        }
    };
    rai.port_space = if h.port_space != 0 {
        h.port_space
    } else {
        match ai.protocol {
            libc::IPPROTO_TCP => RDMA_PS_TCP as c_int,
            libc::IPPROTO_UDP => RDMA_PS_UDP as c_int,
            _ => 0,
        }
    };
    let to_ib = h.flags & RAI_FAMILY != 0 && h.family == AF_IB && h.flags & RAI_NUMERICHOST != 0;
    let (family, addr) = if to_ib {
        (AF_IB, in6_to_ib(rai.port_space, &ai.addr))
    } else {
        (ai.family, ai.addr.clone())
    };
    rai.family = family;
    if ai.flags & libc::AI_PASSIVE != 0 {
        rai.flags = RAI_PASSIVE;
        rai.src_canonname = ai.canonname.clone();
        rai.src = Some(addr);
    } else {
        rai.dst_canonname = ai.canonname.clone();
        rai.dst = Some(addr);
    }
    rai
}

/// -1 with errno EINVAL: what we return where upstream would crash on a
/// NULL address in the hints.
fn null_hint() -> c_int {
    set_errno(libc::EINVAL);
    -1
}

/// rdma_getaddrinfo on safe values. `ib_resolve` is the ibacm step (the
/// process-wide [`crate::acm::ib_resolve`] in the library; tests pass their
/// own). `Err` holds rdma_getaddrinfo's return value (errno set as upstream
/// sets it).
pub fn getaddrinfo_with(
    node: Option<&CStr>,
    service: Option<&CStr>,
    hints: Option<&Hints>,
    ib_resolve: &mut dyn FnMut(&mut Vec<AddrInfo>, &Hints),
) -> Result<Vec<AddrInfo>, c_int> {
    if node.is_none() && service.is_none() && hints.is_none() {
        set_errno(libc::EINVAL);
        return Err(-1);
    }
    crate::cma::ucma_init()?;

    let nohints = Hints::default();
    let h = hints.unwrap_or(&nohints);
    let mut rai = if node.is_some() || service.is_some() {
        // NULL hints stay NULL for getaddrinfo (glibc then applies its
        // defaults); given hints are translated even when all zero.
        let sock_hints = hints.map(socket_hints);
        let ai = sys_getaddrinfo(node, service, sock_hints.as_ref())?;
        from_socket_result(h, &ai)
    } else {
        let mut rai = AddrInfo {
            flags: h.flags,
            family: h.family,
            qp_type: h.qp_type,
            port_space: h.port_space,
            ..Default::default()
        };
        if h.dst_len != 0 {
            rai.dst = Some(h.dst.clone().ok_or_else(null_hint)?);
        }
        rai
    };

    if rai.src_len() == 0 && h.src_len != 0 {
        rai.src = Some(h.src.clone().ok_or_else(null_hint)?);
    }

    let mut chain = vec![rai];
    if chain[0].flags & RAI_PASSIVE == 0 {
        ib_resolve(&mut chain, h);
    }
    Ok(chain)
}

// ---------------------------------------------------------------------------
// C memory
// ---------------------------------------------------------------------------

/// A malloc()ed copy of `bytes` (malloc(0) for an empty slice, which glibc
/// answers with a unique non-NULL pointer), or None when malloc fails.
fn c_copy(bytes: &[u8]) -> Option<*mut c_void> {
    // SAFETY: malloc has no preconditions.
    let p = unsafe { libc::malloc(bytes.len()) };
    if p.is_null() {
        return (bytes.is_empty()).then_some(p);
    }
    // SAFETY: p holds bytes.len() writable bytes that cannot overlap `bytes`.
    unsafe { ptr::copy_nonoverlapping(bytes.as_ptr(), p.cast::<u8>(), bytes.len()) };
    Some(p)
}

/// Copies one optional field; `Err` when malloc fails.
fn c_field(v: Option<&[u8]>) -> Result<*mut c_void, ()> {
    match v {
        None => Ok(ptr::null_mut()),
        Some(b) => c_copy(b).ok_or(()),
    }
}

/// Copies a result chain into malloc()ed `rdma_addrinfo` entries linked by
/// `ai_next`. On allocation failure everything allocated so far is freed.
pub fn chain_to_c(chain: &[AddrInfo]) -> Result<*mut rdma_addrinfo, ()> {
    let mut head: *mut rdma_addrinfo = ptr::null_mut();
    for rai in chain.iter().rev() {
        // SAFETY: calloc has no preconditions.
        let node = unsafe { libc::calloc(1, core::mem::size_of::<rdma_addrinfo>()) }.cast::<rdma_addrinfo>();
        if node.is_null() {
            // SAFETY: head is the chain built so far, owned by nobody else.
            unsafe { free_chain(head) };
            return Err(());
        }
        // SAFETY: node is a zeroed, exclusively owned rdma_addrinfo (all-zero
        // is a valid value: integers 0, pointers NULL).
        let c = unsafe { &mut *node };
        c.ai_next = head;
        head = node;
        c.ai_flags = rai.flags;
        c.ai_family = rai.family;
        c.ai_qp_type = rai.qp_type;
        c.ai_port_space = rai.port_space;
        let fill = |c: &mut rdma_addrinfo| -> Result<(), ()> {
            c.ai_src_addr = c_field(rai.src.as_deref())?.cast();
            c.ai_src_len = rai.src_len() as libc::socklen_t;
            c.ai_dst_addr = c_field(rai.dst.as_deref())?.cast();
            c.ai_dst_len = rai.dst_len() as libc::socklen_t;
            c.ai_src_canonname = c_field(rai.src_canonname.as_ref().map(|s| s.as_bytes_with_nul()))?.cast();
            c.ai_dst_canonname = c_field(rai.dst_canonname.as_ref().map(|s| s.as_bytes_with_nul()))?.cast();
            c.ai_route = c_field(rai.route.as_deref())?;
            c.ai_route_len = rai.route_len();
            c.ai_connect = c_field(rai.connect.as_deref())?;
            c.ai_connect_len = rai.connect.as_ref().map_or(0, Vec::len);
            Ok(())
        };
        if fill(c).is_err() {
            // SAFETY: as above; the failed entry's unset fields are NULL.
            unsafe { free_chain(head) };
            return Err(());
        }
    }
    Ok(head)
}

/// Frees a chain of malloc()ed results and every field they own.
///
/// # Safety
/// `res` is NULL or the head of a chain whose entries and non-NULL fields
/// were all allocated with malloc (as [`chain_to_c`] does), not yet freed.
pub unsafe fn free_chain(mut res: *mut rdma_addrinfo) {
    while !res.is_null() {
        // SAFETY: by the contract above each entry and each of its non-NULL
        // fields is a live malloc() block, freed here exactly once; `next`
        // is read before the entry is freed.
        unsafe {
            let rai = &*res;
            let next = rai.ai_next;
            libc::free(rai.ai_connect);
            libc::free(rai.ai_route);
            libc::free(rai.ai_src_canonname.cast());
            libc::free(rai.ai_dst_canonname.cast());
            libc::free(rai.ai_src_addr.cast());
            libc::free(rai.ai_dst_addr.cast());
            libc::free(res.cast());
            res = next;
        }
    }
}

// ---------------------------------------------------------------------------
// Exports
// ---------------------------------------------------------------------------

/// A C string argument, or None for NULL.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string.
unsafe fn opt_cstr<'a>(p: *const c_char) -> Option<&'a CStr> {
    // SAFETY: guaranteed by the caller.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) })
}

crate::export! {
    /// Resolves `node`/`service` into RDMA addresses and, through ibacm,
    /// routes. Returns 0 and a chain in `*res`, -1 with errno set, or the
    /// getaddrinfo (EAI_*) error code.
    fn rdma_getaddrinfo(node: *const c_char, service: *const c_char,
                        hints: *const rdma_addrinfo, res: *mut *mut rdma_addrinfo)
        -> c_int, on_panic = -1;
    {
        crate::ensure!(!(node.is_null() && service.is_null() && hints.is_null()), libc::EINVAL, -1);
        crate::ensure!(!res.is_null(), libc::EINVAL, -1);
        // SAFETY: the caller passes NULL or valid C strings and hints whose
        // non-NULL pointers cover their lengths (rdma_getaddrinfo's contract).
        let (node, service, hints) = unsafe {
            (opt_cstr(node), opt_cstr(service), hints.as_ref().map(|h| Hints::from_c(h)))
        };
        let chain = match getaddrinfo_with(node, service, hints.as_ref(), &mut crate::acm::ib_resolve) {
            Ok(chain) => chain,
            Err(ret) => return ret,
        };
        match chain_to_c(&chain) {
            Ok(head) => {
                // SAFETY: res was checked non-NULL and points to writable storage.
                unsafe { *res = head };
                0
            }
            Err(()) => {
                set_errno(libc::ENOMEM);
                -1
            }
        }
    }
}

crate::export! {
    /// Frees a chain returned by rdma_getaddrinfo (NULL is allowed).
    fn rdma_freeaddrinfo(res: *mut rdma_addrinfo) -> (), on_panic = ();
    {
        // SAFETY: the caller passes NULL or a chain rdma_getaddrinfo returned.
        unsafe { free_chain(res) };
    }
}
