//! rdma_getaddrinfo / rdma_freeaddrinfo: RDMA address and route resolution,
//! behaving as rdma-core 44's librdmacm.
//!
//! How a result is made
//! 1. No node, no service and no hints: -1 with errno EINVAL. Then the CM is
//!    initialised (`cma::ucma_init`); its failure is returned unchanged.
//!    (The export, rdma_getaddrinfo, is in `cma` with the other entry points
//!    that initialise the library; this module and the ibacm client, `acm`,
//!    which works on its types, sit below it.)
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
use crate::abi::verbs::{IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD, IBV_QPT_XRC_RECV, IBV_QPT_XRC_SEND};
use crate::abi::cma::*;
use rdma_util::fallible::NoMem;
use rdma_util::ffi::set_errno;

/// The hint flag that keeps rdma_getaddrinfo from adding the AF_IB result
/// (librdmacm-internal, `cma.h`; used by rdma_resolve_addr).
pub(crate) const RAI_ROUTEONLY: c_int = 0x0100_0000;

/// One result of rdma_getaddrinfo before it is copied into C memory.
/// Addresses are the bytes of the C socket address (family first, in host
/// order, the rest as the sockaddr type lays it out).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct AddrInfo {
    pub(crate) flags: c_int,
    pub(crate) family: c_int,
    pub(crate) qp_type: c_int,
    pub(crate) port_space: c_int,
    pub(crate) src: Option<Vec<u8>>,
    pub(crate) dst: Option<Vec<u8>>,
    /// The names with their terminating NUL, as C will get them.
    pub(crate) src_canonname: Option<Vec<u8>>,
    pub(crate) dst_canonname: Option<Vec<u8>>,
    /// `Some(empty)` is a non-NULL `ai_route` of length 0 (upstream
    /// allocates one when ibacm answers without path records).
    pub(crate) route: Option<Vec<u8>>,
    pub(crate) connect: Option<Vec<u8>>,
}

/// A result chain. Nearly every call has one result, held without a heap
/// allocation of its own; only ibacm (`acm`) turns it into a list, when it
/// adds the AF_IB result in front.
#[derive(Debug)]
pub(crate) enum Chain {
    One(AddrInfo),
    Many(Vec<AddrInfo>),
}

impl Chain {
    /// The chain as a list, converting a single result in place (the
    /// chain is unchanged when the list cannot be had).
    pub(crate) fn as_vec(&mut self) -> Result<&mut Vec<AddrInfo>, NoMem> {
        if let Chain::One(rai) = self {
            let mut v = rdma_util::fallible::vec_with_capacity(1)?;
            v.push(core::mem::take(rai));
            *self = Chain::Many(v);
        }
        match self {
            Chain::Many(v) => Ok(v),
            Chain::One(_) => unreachable!("converted above"),
        }
    }

    /// The chain as a list (for tests, which index and extend it).
    #[cfg(test)]
    pub(crate) fn into_vec(self) -> Vec<AddrInfo> {
        match self {
            Chain::One(rai) => vec![rai],
            Chain::Many(v) => v,
        }
    }
}

impl core::ops::Deref for Chain {
    type Target = [AddrInfo];
    fn deref(&self) -> &[AddrInfo] {
        match self {
            Chain::One(rai) => core::slice::from_ref(rai),
            Chain::Many(v) => v,
        }
    }
}

impl core::ops::DerefMut for Chain {
    fn deref_mut(&mut self) -> &mut [AddrInfo] {
        match self {
            Chain::One(rai) => core::slice::from_mut(rai),
            Chain::Many(v) => v,
        }
    }
}

impl AddrInfo {
    /// `ai_src_len`.
    pub(crate) fn src_len(&self) -> usize {
        self.src.as_ref().map_or(0, Vec::len)
    }
    /// `ai_dst_len`.
    pub(crate) fn dst_len(&self) -> usize {
        self.dst.as_ref().map_or(0, Vec::len)
    }
    /// `ai_route_len`.
    pub(crate) fn route_len(&self) -> usize {
        self.route.as_ref().map_or(0, Vec::len)
    }
}

/// The caller's hints, copied out of its `struct rdma_addrinfo`.
/// An address or route whose length is non-zero but whose pointer is NULL is
/// kept as its length with `None` bytes.
#[derive(Clone, Debug, Default)]
pub(crate) struct Hints {
    pub(crate) flags: c_int,
    pub(crate) family: c_int,
    pub(crate) qp_type: c_int,
    pub(crate) port_space: c_int,
    pub(crate) src_len: u32,
    pub(crate) src: Option<Vec<u8>>,
    pub(crate) dst_len: u32,
    pub(crate) dst: Option<Vec<u8>>,
    pub(crate) route_len: usize,
    /// Only kept when `route_len` is the size of a path record or of a path
    /// data entry: the only lengths the ibacm request uses.
    pub(crate) route: Option<Vec<u8>>,
}

impl Hints {
    /// Copies the fields rdma_getaddrinfo reads out of C hints.
    ///
    /// # Safety
    /// Non-NULL address and route pointers must be readable for their lengths.
    pub(crate) unsafe fn from_c(h: &rdma_addrinfo) -> Result<Hints, NoMem> {
        // SAFETY: the caller guarantees each non-NULL pointer covers its length.
        let copy = |p: *const u8, len: usize| unsafe {
            (!p.is_null()).then(|| dup(core::slice::from_raw_parts(p, len))).transpose()
        };
        let route_len = h.ai_route_len;
        let route = if route_len == PATH_RECORD_LEN || route_len == PATH_DATA_LEN {
            copy(h.ai_route.cast(), route_len)?
        } else {
            None
        };
        Ok(Hints {
            flags: h.ai_flags,
            family: h.ai_family,
            qp_type: h.ai_qp_type,
            port_space: h.ai_port_space,
            src_len: h.ai_src_len,
            src: copy(h.ai_src_addr.cast(), h.ai_src_len as usize)?,
            dst_len: h.ai_dst_len,
            dst: copy(h.ai_dst_addr.cast(), h.ai_dst_len as usize)?,
            route_len,
            route,
        })
    }
}

/// A copy of `b` on the heap, or NoMem.
pub(crate) fn dup(b: &[u8]) -> Result<Vec<u8>, NoMem> {
    rdma_util::fallible::concat(&[b])
}

/// A copy of an optional field.
pub(crate) fn dup_opt(b: &Option<Vec<u8>>) -> Result<Option<Vec<u8>>, NoMem> {
    b.as_deref().map(dup).transpose()
}

const PATH_RECORD_LEN: usize = core::mem::size_of::<crate::abi::verbs::ibv_path_record>();
const PATH_DATA_LEN: usize = core::mem::size_of::<crate::abi::verbs::ibv_path_data>();

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
fn addr_port(b: &[u8]) -> u16 {
    match sa_family(b) {
        libc::AF_INET => u16::from_be_bytes(bytes_at(b, offset_of!(libc::sockaddr_in, sin_port))),
        libc::AF_INET6 => u16::from_be_bytes(bytes_at(b, offset_of!(libc::sockaddr_in6, sin6_port))),
        AF_IB => u64::from_be_bytes(bytes_at(b, offset_of!(sockaddr_ib, sib_sid))) as u16,
        _ => 0,
    }
}

/// A `sockaddr_ib` being built. Wire-order fields are kept as their bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SibBuilder {
    pub(crate) pkey: [u8; 2],
    pub(crate) flowinfo: [u8; 4],
    pub(crate) addr: [u8; 16],
    /// Host order.
    pub(crate) sid: u64,
    /// Host order.
    pub(crate) sid_mask: u64,
    pub(crate) scope_id: u64,
}

impl SibBuilder {
    /// Sets the service id from a port space and the port of `addr`, and its
    /// mask: the port-space bits when `ps` is non-zero, the port bits when the
    /// port is.
    pub(crate) fn set_sid(&mut self, ps: c_int, addr: Option<&[u8]>) {
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
    pub(crate) fn to_bytes(self) -> Result<Vec<u8>, NoMem> {
        let mut b = rdma_util::fallible::vec_filled(0u8, core::mem::size_of::<sockaddr_ib>())?;
        let mut put = |off: usize, v: &[u8]| b[off..off + v.len()].copy_from_slice(v);
        put(offset_of!(sockaddr_ib, sib_family), &(AF_IB as u16).to_ne_bytes());
        put(offset_of!(sockaddr_ib, sib_pkey), &self.pkey);
        put(offset_of!(sockaddr_ib, sib_flowinfo), &self.flowinfo);
        put(offset_of!(sockaddr_ib, sib_addr), &self.addr);
        put(offset_of!(sockaddr_ib, sib_sid), &self.sid.to_be_bytes());
        put(offset_of!(sockaddr_ib, sib_sid_mask), &self.sid_mask.to_be_bytes());
        put(offset_of!(sockaddr_ib, sib_scope_id), &self.scope_id.to_ne_bytes());
        Ok(b)
    }
}

/// Turns an address that getaddrinfo returned (read as a `sockaddr_in6`)
/// into an AF_IB address: the IPv6 address is the GID, pkey 0xffff, and the
/// service id comes from `ps` and the port.
fn in6_to_ib(ps: c_int, src: &[u8]) -> Result<Vec<u8>, NoMem> {
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
pub(crate) struct SysAi {
    pub(crate) flags: c_int,
    pub(crate) family: c_int,
    pub(crate) socktype: c_int,
    pub(crate) protocol: c_int,
    pub(crate) addr: Vec<u8>,
    /// With its NUL.
    pub(crate) canonname: Option<Vec<u8>>,
}

/// The socket hints upstream derives from RDMA hints.
fn socket_hints(h: &Hints) -> libc::addrinfo {
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
/// is getaddrinfo's own return value (errno as it left it), or -1 with
/// errno ENOMEM when the copy cannot be had.
fn sys_getaddrinfo(
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
        let copied = (|| {
            let addr = if ai.ai_addr.is_null() {
                Vec::new()
            } else {
                dup(core::slice::from_raw_parts(ai.ai_addr.cast::<u8>(), ai.ai_addrlen as usize))?
            };
            let canonname = if ai.ai_canonname.is_null() {
                None
            } else {
                Some(dup(CStr::from_ptr(ai.ai_canonname).to_bytes_with_nul())?)
            };
            Ok::<_, NoMem>((addr, canonname))
        })();
        let out = copied.map(|(addr, canonname)| SysAi {
            flags: ai.ai_flags,
            family: ai.ai_family,
            socktype: ai.ai_socktype,
            protocol: ai.ai_protocol,
            addr,
            canonname,
        });
        libc::freeaddrinfo(res);
        out.map_err(|_| nomem())
    }
}

/// Builds the RDMA result from the first socket result, whose address and
/// name it takes over.
fn from_socket_result(h: &Hints, ai: SysAi) -> Result<AddrInfo, NoMem> {
    let qp_type = if h.qp_type != 0 {
        h.qp_type
    } else {
        match ai.socktype {
            libc::SOCK_STREAM => IBV_QPT_RC as c_int,
            libc::SOCK_DGRAM => IBV_QPT_UD as c_int,
            _ => 0,
        }
    };
    let port_space = if h.port_space != 0 {
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
        (AF_IB, in6_to_ib(port_space, &ai.addr)?)
    } else {
        (ai.family, ai.addr)
    };
    let mut rai = AddrInfo { family, qp_type, port_space, ..Default::default() };
    if ai.flags & libc::AI_PASSIVE != 0 {
        rai.flags = RAI_PASSIVE;
        rai.src_canonname = ai.canonname;
        rai.src = Some(addr);
    } else {
        rai.dst_canonname = ai.canonname;
        rai.dst = Some(addr);
    }
    Ok(rai)
}

/// -1 with errno EINVAL: what we return where upstream would crash on a
/// NULL address in the hints.
fn null_hint() -> c_int {
    set_errno(libc::EINVAL);
    -1
}

/// -1 with errno ENOMEM: upstream's failed allocations.
fn nomem() -> c_int {
    set_errno(libc::ENOMEM);
    -1
}

/// rdma_getaddrinfo on safe values, after the library is initialised
/// (its export, in `cma`, initialises the library first). `ib_resolve` is the ibacm step (the
/// process-wide [`crate::acm::ib_resolve`] in the library; tests pass their
/// own). `Err` holds rdma_getaddrinfo's return value (errno set as upstream
/// sets it).
pub(crate) fn getaddrinfo_with(
    node: Option<&CStr>,
    service: Option<&CStr>,
    hints: Option<&Hints>,
    ib_resolve: &mut dyn FnMut(&mut Chain, &Hints),
) -> Result<Chain, c_int> {
    if node.is_none() && service.is_none() && hints.is_none() {
        set_errno(libc::EINVAL);
        return Err(-1);
    }
    let nohints = Hints::default();
    let h = hints.unwrap_or(&nohints);
    let mut rai = if node.is_some() || service.is_some() {
        // NULL hints stay NULL for getaddrinfo (glibc then applies its
        // defaults); given hints are translated even when all zero.
        let sock_hints = hints.map(socket_hints);
        let ai = sys_getaddrinfo(node, service, sock_hints.as_ref())?;
        from_socket_result(h, ai).map_err(|_| nomem())?
    } else {
        let mut rai = AddrInfo {
            flags: h.flags,
            family: h.family,
            qp_type: h.qp_type,
            port_space: h.port_space,
            ..Default::default()
        };
        if h.dst_len != 0 {
            rai.dst = Some(dup(h.dst.as_deref().ok_or_else(null_hint)?).map_err(|_| nomem())?);
        }
        rai
    };

    if rai.src_len() == 0 && h.src_len != 0 {
        rai.src = Some(dup(h.src.as_deref().ok_or_else(null_hint)?).map_err(|_| nomem())?);
    }

    let mut chain = Chain::One(rai);
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

/// Copies one optional field (NULL for None); None when malloc fails.
fn c_field(v: Option<&[u8]>) -> Option<*mut c_void> {
    match v {
        None => Some(ptr::null_mut()),
        Some(b) => c_copy(b),
    }
}

/// Copies a result chain into malloc()ed `rdma_addrinfo` entries linked by
/// `ai_next`. On allocation failure everything allocated so far is freed
/// and None is returned.
pub(crate) fn chain_to_c(chain: &[AddrInfo]) -> Option<*mut rdma_addrinfo> {
    let mut head: *mut rdma_addrinfo = ptr::null_mut();
    for rai in chain.iter().rev() {
        // SAFETY: calloc has no preconditions.
        let node = unsafe { libc::calloc(1, core::mem::size_of::<rdma_addrinfo>()) }.cast::<rdma_addrinfo>();
        if node.is_null() {
            // SAFETY: head is the chain built so far, owned by nobody else.
            unsafe { free_chain(head) };
            return None;
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
        let fill = |c: &mut rdma_addrinfo| -> Option<()> {
            c.ai_src_addr = c_field(rai.src.as_deref())?.cast();
            c.ai_src_len = rai.src_len() as libc::socklen_t;
            c.ai_dst_addr = c_field(rai.dst.as_deref())?.cast();
            c.ai_dst_len = rai.dst_len() as libc::socklen_t;
            c.ai_src_canonname = c_field(rai.src_canonname.as_deref())?.cast();
            c.ai_dst_canonname = c_field(rai.dst_canonname.as_deref())?.cast();
            c.ai_route = c_field(rai.route.as_deref())?;
            c.ai_route_len = rai.route_len();
            c.ai_connect = c_field(rai.connect.as_deref())?;
            c.ai_connect_len = rai.connect.as_ref().map_or(0, Vec::len);
            Some(())
        };
        if fill(c).is_none() {
            // SAFETY: as above; the failed entry's unset fields are NULL.
            unsafe { free_chain(head) };
            return None;
        }
    }
    Some(head)
}

/// Frees a chain of malloc()ed results and every field they own.
///
/// # Safety
/// `res` is NULL or the head of a chain whose entries and non-NULL fields
/// were all allocated with malloc (as [`chain_to_c`] does), not yet freed.
pub(crate) unsafe fn free_chain(mut res: *mut rdma_addrinfo) {
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
// Entry points
// ---------------------------------------------------------------------------

/// A C string argument, or None for NULL.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string.
unsafe fn opt_cstr<'a>(p: *const c_char) -> Option<&'a CStr> {
    // SAFETY: guaranteed by the caller.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) })
}

/// rdma_getaddrinfo's C arguments as safe values: the strings, and the
/// hints copied out (NoMem when the copy cannot be had).
///
/// # Safety
/// `node` and `service` are NULL or NUL-terminated strings; `hints` is NULL
/// or valid hints whose non-NULL pointers cover their lengths.
pub(crate) unsafe fn c_args<'a>(
    node: *const c_char,
    service: *const c_char,
    hints: *const rdma_addrinfo,
) -> (Option<&'a CStr>, Option<&'a CStr>, Result<Option<Hints>, NoMem>) {
    // SAFETY: forwarded contract.
    unsafe { (opt_cstr(node), opt_cstr(service), hints.as_ref().map(|h| Hints::from_c(h)).transpose()) }
}

/// rdma_getaddrinfo once its arguments are checked and the library is
/// initialised (its export, in `cma`, does both first): resolves, lets
/// `ib_resolve` (ibacm) complete the result, and stores the C copy of the
/// chain in `*res`. Returns rdma_getaddrinfo's value.
///
/// # Safety
/// `res` is a valid out-pointer.
pub(crate) unsafe fn getaddrinfo_to_c(
    node: Option<&CStr>,
    service: Option<&CStr>,
    hints: Option<&Hints>,
    ib_resolve: &mut dyn FnMut(&mut Chain, &Hints),
    res: *mut *mut rdma_addrinfo,
) -> c_int {
    let chain = match getaddrinfo_with(node, service, hints, ib_resolve) {
        Ok(chain) => chain,
        Err(ret) => return ret,
    };
    match chain_to_c(&chain) {
        Some(head) => {
            // SAFETY: res is a valid out-pointer (the contract).
            unsafe { *res = head };
            0
        }
        None => {
            set_errno(libc::ENOMEM);
            -1
        }
    }
}

rdma_util::export! {
    /// Frees a chain returned by rdma_getaddrinfo (NULL is allowed).
    fn rdma_freeaddrinfo(res: *mut rdma_addrinfo) -> (), on_panic = ();
    {
        // SAFETY: the caller passes NULL or a chain rdma_getaddrinfo returned.
        unsafe { free_chain(res) };
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::ffi::CString;
    use super::*;
    use rdma_util::ffi::errno;

    /// Lower-case hex of bytes (expected values are written as the C probe
    /// prints them).
    pub(crate) fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    pub(crate) fn c(s: &str) -> CString {
        CString::new(s).unwrap()
    }

    fn hints(flags: c_int, family: c_int, qp_type: u32, ps: u32) -> Hints {
        Hints { flags, family, qp_type: qp_type as c_int, port_space: ps as c_int, ..Default::default() }
    }

    /// Runs getaddrinfo_with and counts the ibacm calls.
    fn run(node: Option<&str>, service: Option<&str>, h: Option<&Hints>) -> (Result<Vec<AddrInfo>, c_int>, usize) {
        let (node, service) = (node.map(c), service.map(c));
        let mut calls = 0;
        let r = getaddrinfo_with(node.as_deref(), service.as_deref(), h, &mut |_, _| calls += 1);
        (r.map(Chain::into_vec), calls)
    }

    pub(crate) fn sin(addr: [u8; 4], port: u16) -> Vec<u8> {
        let mut b = vec![0u8; 16];
        b[0..2].copy_from_slice(&(libc::AF_INET as u16).to_ne_bytes());
        b[2..4].copy_from_slice(&port.to_be_bytes());
        b[4..8].copy_from_slice(&addr);
        b
    }

    #[test]
    fn nothing_to_resolve_is_einval() {
        rdma_util::ffi::set_errno(0);
        assert_eq!(run(None, None, None).0, Err(-1));
        assert_eq!(errno(), libc::EINVAL);
    }

    #[test]
    fn numeric_ipv4_with_null_hints_is_an_rc_tcp_destination() {
        let (r, calls) = run(Some("127.0.0.1"), Some("7471"), None);
        let chain = r.unwrap();
        assert_eq!(chain.len(), 1);
        let rai = &chain[0];
        assert_eq!((rai.flags, rai.family), (0, libc::AF_INET));
        assert_eq!((rai.qp_type, rai.port_space), (IBV_QPT_RC as c_int, RDMA_PS_TCP as c_int));
        assert_eq!(rai.dst.as_deref(), Some(&sin([127, 0, 0, 1], 7471)[..]));
        assert_eq!((rai.src.as_ref(), rai.route.as_ref(), rai.connect.as_ref()), (None, None, None));
        assert_eq!(calls, 1, "an active result goes to ibacm");
    }

    #[test]
    fn localhost_by_name_and_ipv6() {
        let h = hints(0, libc::AF_INET, 0, 0);
        let chain = run(Some("localhost"), Some("7471"), Some(&h)).0.unwrap();
        assert_eq!(chain[0].dst.as_deref(), Some(&sin([127, 0, 0, 1], 7471)[..]));

        let chain = run(Some("::1"), Some("1"), None).0.unwrap();
        let dst = chain[0].dst.as_ref().unwrap();
        assert_eq!(chain[0].family, libc::AF_INET6);
        assert_eq!(hex(dst), "0a000001000000000000000000000000000000000000000100000000");
    }

    #[test]
    fn passive_results_fill_the_source_and_skip_ibacm() {
        let h = hints(RAI_PASSIVE, 0, 0, 0);
        let (r, calls) = run(None, Some("7471"), Some(&h));
        let rai = &r.unwrap()[0];
        assert_eq!(rai.flags, RAI_PASSIVE);
        assert_eq!(rai.src.as_deref(), Some(&sin([0; 4], 7471)[..]));
        assert_eq!(rai.dst, None);
        assert_eq!(calls, 0);
    }

    #[test]
    fn getaddrinfo_errors_are_returned_as_eai_codes() {
        assert_eq!(run(Some("no-such-host.invalid"), Some("1"), None).0, Err(libc::EAI_NONAME));
        let h = hints(RAI_NUMERICHOST, 0, 0, 0);
        assert_eq!(run(Some("localhost"), Some("1"), Some(&h)).0, Err(libc::EAI_NONAME));
        let h = hints(0, libc::AF_INET, 0, 0);
        assert_eq!(run(Some("::1"), Some("1"), Some(&h)).0, Err(-9), "EAI_ADDRFAMILY (glibc, not in the libc crate)");
        assert_eq!(run(Some("127.0.0.1"), Some("no-such-service-xyz"), None).0, Err(libc::EAI_SERVICE));
        let h = hints(0, 12345, 0, 0);
        assert_eq!(run(Some("127.0.0.1"), Some("1"), Some(&h)).0, Err(libc::EAI_FAMILY));
        // UD asks for a datagram socket, TCP for TCP: no such combination.
        let h = hints(0, 0, IBV_QPT_UD, RDMA_PS_TCP);
        assert_eq!(run(Some("127.0.0.1"), Some("1"), Some(&h)).0, Err(libc::EAI_SOCKTYPE));
    }

    #[test]
    fn socket_hints_follow_qp_type_and_port_space() {
        let st = libc::SOCK_STREAM;
        let dg = libc::SOCK_DGRAM;
        let (tcp, udp) = (libc::IPPROTO_TCP, libc::IPPROTO_UDP);
        let cases: &[(u32, u32, c_int, c_int)] = &[
            (0, 0, 0, 0),
            (IBV_QPT_RC, 0, st, 0),
            (IBV_QPT_UC, RDMA_PS_TCP, st, tcp),
            (IBV_QPT_XRC_SEND, RDMA_PS_IB, st, tcp),
            (IBV_QPT_XRC_RECV, RDMA_PS_UDP, st, udp),
            (IBV_QPT_UD, RDMA_PS_IB, dg, udp),
            (IBV_QPT_UD, RDMA_PS_IPOIB, dg, udp),
            (8, RDMA_PS_IB, 0, 0),
            (0, RDMA_PS_IB, 0, 0),
            (0, 1234, 0, 0),
        ];
        for &(qpt, ps, socktype, proto) in cases {
            let ai = socket_hints(&hints(0, 0, qpt, ps));
            assert_eq!((ai.ai_socktype, ai.ai_protocol), (socktype, proto), "qp_type {qpt} ps {ps:#x}");
        }
        let ai = socket_hints(&hints(RAI_PASSIVE | RAI_NUMERICHOST | RAI_NOROUTE | RAI_FAMILY, AF_IB, 0, 0));
        assert_eq!((ai.ai_flags, ai.ai_family), (libc::AI_PASSIVE | libc::AI_NUMERICHOST, 0));
        assert_eq!(socket_hints(&hints(0, libc::AF_INET6, 0, 0)).ai_family, libc::AF_INET6);
    }

    #[test]
    fn af_ib_conversion_takes_the_service_id_from_port_space_and_port() {
        // Expected bytes as upstream produces them (reference run).
        let cases: &[(u32, &str)] = &[
            (RDMA_PS_TCP, "1b00ffff00000000fe800000000000000002c903000a1b2c0000000001061d2fffffffffffffffff0000000000000000"),
            (RDMA_PS_UDP, "1b00ffff00000000fe800000000000000002c903000a1b2c0000000001111d2fffffffffffffffff0000000000000000"),
            (RDMA_PS_IB, "1b00ffff00000000fe800000000000000002c903000a1b2c00000000013f1d2fffffffffffffffff0000000000000000"),
            (RDMA_PS_IPOIB, "1b00ffff00000000fe800000000000000002c903000a1b2c0000000000021d2fffffffffffffffff0000000000000000"),
        ];
        for &(ps, want) in cases {
            let h = hints(RAI_FAMILY | RAI_NUMERICHOST, AF_IB, 0, ps);
            let rai = &run(Some("fe80::2:c903:a:1b2c"), Some("7471"), Some(&h)).0.unwrap()[0];
            assert_eq!(rai.family, AF_IB);
            assert_eq!(hex(rai.dst.as_ref().unwrap()), want, "ps {ps:#x}");
        }
        // No port: only the port-space half of the mask; a scope id is kept.
        let h = hints(RAI_FAMILY | RAI_NUMERICHOST, AF_IB, IBV_QPT_UD, RDMA_PS_IB);
        let rai = &run(Some("fe80::1"), None, Some(&h)).0.unwrap()[0];
        assert_eq!(
            hex(rai.dst.as_ref().unwrap()),
            "1b00ffff00000000fe80000000000000000000000000000100000000013f0000ffffffffffff00000000000000000000"
        );
        let rai = &run(Some("fe80::1%1"), Some("65535"), Some(&h)).0.unwrap()[0];
        assert_eq!(
            hex(rai.dst.as_ref().unwrap()),
            "1b00ffff00000000fe80000000000000000000000000000100000000013fffffffffffffffffffff0100000000000000"
        );
        // Passive: the source is converted.
        let h = hints(RAI_FAMILY | RAI_NUMERICHOST | RAI_PASSIVE, AF_IB, 0, RDMA_PS_TCP);
        let rai = &run(Some("fe80::1"), Some("18515"), Some(&h)).0.unwrap()[0];
        assert_eq!((rai.flags, rai.family, rai.dst.as_ref()), (RAI_PASSIVE, AF_IB, None));
        assert_eq!(
            hex(rai.src.as_ref().unwrap()),
            "1b00ffff00000000fe8000000000000000000000000000010000000001064853ffffffffffffffff0000000000000000"
        );
        // Without RAI_FAMILY or RAI_NUMERICHOST the IP address stays.
        for flags in [RAI_FAMILY, RAI_NUMERICHOST] {
            let h = hints(flags, AF_IB, 0, RDMA_PS_TCP);
            assert_eq!(run(Some("::1"), Some("1"), Some(&h)).0.unwrap()[0].family, libc::AF_INET6);
        }
    }

    #[test]
    fn service_id_and_mask() {
        let mut s = SibBuilder::default();
        s.set_sid(0, None);
        assert_eq!((s.sid, s.sid_mask), (0, 0));
        let mut s = SibBuilder::default();
        s.set_sid(0, Some(&sin([1, 2, 3, 4], 5)));
        assert_eq!((s.sid, s.sid_mask), (5, RDMA_IB_IP_PORT_MASK));
        let mut s = SibBuilder::default();
        s.set_sid(RDMA_PS_TCP as c_int, None);
        assert_eq!((s.sid, s.sid_mask), (RDMA_IB_IP_PS_TCP, RDMA_IB_IP_PS_MASK));
        // A negative int port space is widened as the unsigned C enum.
        let mut s = SibBuilder::default();
        s.set_sid(-1, None);
        assert_eq!(s.sid, 0xffff_ffff_0000);
        // The port of an AF_IB address is the low half of its service id.
        let ib = SibBuilder { sid: 0x0106_1234, ..Default::default() }.to_bytes().unwrap();
        assert_eq!(addr_port(&ib), 0x1234);
        assert_eq!(addr_port(&[0u8; 16]), 0);
    }

    #[test]
    fn hints_alone_are_the_result() {
        let mut h = hints(RAI_NOROUTE, libc::AF_INET, IBV_QPT_UD, RDMA_PS_UDP);
        h.dst = Some(sin([10, 0, 2, 15], 4791));
        h.dst_len = 16;
        h.src = Some(sin([10, 0, 2, 16], 0));
        h.src_len = 16;
        let (r, calls) = run(None, None, Some(&h));
        let rai = &r.unwrap()[0];
        assert_eq!((rai.flags, rai.family), (RAI_NOROUTE, libc::AF_INET));
        assert_eq!((rai.qp_type, rai.port_space), (IBV_QPT_UD as c_int, RDMA_PS_UDP as c_int));
        assert_eq!(rai.dst, h.dst);
        assert_eq!(rai.src, h.src);
        assert_eq!(calls, 1);

        // Passive hints: copied as they are, no ibacm.
        let mut h = hints(RAI_PASSIVE | 0x100, 77, 99, 1234);
        h.src = Some(sin([1, 1, 1, 1], 1));
        h.src_len = 16;
        let (r, calls) = run(None, None, Some(&h));
        let rai = &r.unwrap()[0];
        assert_eq!((rai.flags, rai.family, rai.qp_type, rai.port_space), (RAI_PASSIVE | 0x100, 77, 99, 1234));
        assert_eq!((rai.src.as_ref(), rai.dst.as_ref(), calls), (h.src.as_ref(), None, 0));
    }

    #[test]
    fn a_source_hint_fills_only_a_missing_source() {
        let mut h = hints(0, 0, 0, 0);
        h.src = Some(vec![1, 2, 3]);
        h.src_len = 3;
        let rai = &run(Some("127.0.0.1"), Some("1"), Some(&h)).0.unwrap()[0];
        assert_eq!(rai.src.as_deref(), Some(&[1u8, 2, 3][..]));
        h.flags = RAI_PASSIVE;
        let rai = &run(Some("127.0.0.1"), Some("1"), Some(&h)).0.unwrap()[0];
        assert_eq!(rai.src.as_deref(), Some(&sin([127, 0, 0, 1], 1)[..]));
    }

    #[test]
    fn null_hint_addresses_with_a_length_are_einval() {
        let mut h = hints(0, 0, 0, 0);
        h.dst_len = 16;
        rdma_util::ffi::set_errno(0);
        assert_eq!(run(None, None, Some(&h)).0, Err(-1));
        assert_eq!(errno(), libc::EINVAL);
        let mut h = hints(0, 0, 0, 0);
        h.src_len = 16;
        rdma_util::ffi::set_errno(0);
        assert_eq!(run(Some("127.0.0.1"), None, Some(&h)).0, Err(-1));
        assert_eq!(errno(), libc::EINVAL);
        // ... but not when the pointer is never needed (the source is there).
        h.flags = RAI_PASSIVE;
        assert!(run(Some("127.0.0.1"), None, Some(&h)).0.is_ok());
    }

    /// Reads a C string field back.
    fn cstr_field(p: *const c_char) -> Option<Vec<u8>> {
        // SAFETY: test-only; p is NULL or a string chain_to_c copied.
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_bytes().to_vec())
    }

    /// Reads a (pointer, length) field back.
    pub(crate) fn blob(p: *const c_void, len: usize) -> Option<Vec<u8>> {
        // SAFETY: test-only; p is NULL or a block of len bytes chain_to_c made.
        (!p.is_null()).then(|| unsafe { core::slice::from_raw_parts(p.cast::<u8>(), len) }.to_vec())
    }

    #[test]
    fn chains_are_copied_to_c_and_freed() {
        let full = AddrInfo {
            flags: 1,
            family: AF_IB,
            qp_type: 2,
            port_space: RDMA_PS_IB as c_int,
            src: Some(vec![7; 48]),
            dst: Some(vec![8; 48]),
            src_canonname: Some(b"src.example\0".to_vec()),
            dst_canonname: Some(b"dst.example\0".to_vec()),
            route: Some(vec![9; 144]),
            connect: Some(vec![4; 36]),
        };
        let empty_route = AddrInfo { family: libc::AF_INET, route: Some(Vec::new()), ..Default::default() };
        let chain = vec![full.clone(), empty_route, AddrInfo::default()];
        let head = chain_to_c(&chain).unwrap();
        let mut p = head;
        let mut seen = Vec::new();
        while !p.is_null() {
            // SAFETY: test-only; p is an entry of the chain just built.
            let r = unsafe { &*p };
            seen.push(AddrInfo {
                flags: r.ai_flags,
                family: r.ai_family,
                qp_type: r.ai_qp_type,
                port_space: r.ai_port_space,
                src: blob(r.ai_src_addr.cast(), r.ai_src_len as usize),
                dst: blob(r.ai_dst_addr.cast(), r.ai_dst_len as usize),
                src_canonname: cstr_field(r.ai_src_canonname).map(|v| [v, vec![0]].concat()),
                dst_canonname: cstr_field(r.ai_dst_canonname).map(|v| [v, vec![0]].concat()),
                route: blob(r.ai_route, r.ai_route_len),
                connect: blob(r.ai_connect, r.ai_connect_len),
            });
            p = r.ai_next;
        }
        assert_eq!(seen, chain);
        // SAFETY: head is the chain chain_to_c returned, freed once.
        unsafe { free_chain(head) };
        // SAFETY: freeing NULL is a no-op.
        unsafe { free_chain(ptr::null_mut()) };
    }
}
