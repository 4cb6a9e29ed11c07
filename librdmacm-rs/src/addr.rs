//! Addressing: socket address helpers, bind, and the queries that copy the
//! kernel's view of an id (addresses, GIDs, P_Key, paths, device) into the
//! public `rdma_cm_id`. Event delivery runs these queries too, so nothing
//! here waits for an event: resolution, which does, is in `resolve`.
//!
//! Kernels with AF_IB support (detected at init) get the newer commands
//! (BIND, QUERY with ADDR/GID/PATH); older ones the IP-only commands
//! (BIND_IP, QUERY_ROUTE), exactly as upstream picks.
//! When a query names a device (node GUID, device index) the id has none
//! yet, the id takes a reference on that device, its context and shared PD.

use rdma_util::mem::zeroed;
use crate::abi::cma::*;
use crate::abi::ucma::*;
use crate::abi::verbs::*;
use crate::ucma::af_ib_support;
use crate::id::{ret_int, Id, Res};
use crate::ucma::{uaddr, write_cmd, write_cmd_resp};
use core::ffi::c_int;
use core::mem::MaybeUninit;
use core::ptr::addr_of;
use libc::{sockaddr, sockaddr_in, sockaddr_in6, socklen_t};

/// The length of a socket address of a family the CM accepts, 0 otherwise
/// (AF_IB only when the kernel supports it). Null is 0.
///
/// # Safety
/// `addr` is null or points to a readable socket address (at least its
/// family field).
pub(crate) unsafe fn addrlen(addr: *const sockaddr) -> socklen_t {
    if addr.is_null() {
        return 0;
    }
    // SAFETY: a non-null address has at least a family field.
    match c_int::from(unsafe { (*addr).sa_family }) {
        libc::AF_INET => core::mem::size_of::<sockaddr_in>() as socklen_t,
        libc::AF_INET6 => core::mem::size_of::<sockaddr_in6>() as socklen_t,
        AF_IB if af_ib_support() => core::mem::size_of::<sockaddr_ib>() as socklen_t,
        _ => 0,
    }
}

/// The port of an address, big-endian (for AF_IB the service id's low 16
/// bits); 0 for other families.
///
/// # Safety
/// `addr` points to a readable socket address of at least the size its
/// family implies.
unsafe fn get_port(addr: *const sockaddr) -> u16 {
    // SAFETY: the caller passes an address buffer of at least the size its
    // family implies (per the contract).
    unsafe {
        match c_int::from((*addr).sa_family) {
            libc::AF_INET => (*addr.cast::<sockaddr_in>()).sin_port,
            libc::AF_INET6 => (*addr.cast::<sockaddr_in6>()).sin6_port,
            AF_IB => (u64::from_be((*addr.cast::<sockaddr_ib>()).sib_sid) as u16).to_be(),
            _ => 0,
        }
    }
}

/// Copies `len` bytes of a socket address into `dst` (a 128-byte storage).
///
/// # Safety
/// `src` must be readable for `len` bytes.
pub(crate) unsafe fn copy_addr(dst: *mut u8, src: *const u8, len: usize) {
    let len = len.min(core::mem::size_of::<libc::sockaddr_storage>());
    // SAFETY: dst is a sockaddr_storage (128 bytes); src readable per contract.
    unsafe { core::ptr::copy_nonoverlapping(src, dst, len) };
}

pub(crate) fn src_storage(id: Id) -> *mut u8 {
    id.src_storage().cast()
}

pub(crate) fn dst_storage(id: Id) -> *mut u8 {
    id.dst_storage().cast()
}

/// Attaches the id to the device the kernel named.
fn get_device(id: Id, guid: u64, idx: u32) -> Res<()> {
    let (dev, verbs, pd) = crate::devices::get_device(guid, idx)?;
    id.set_cma_dev(dev);
    id.set_verbs(verbs);
    id.set_pd(pd);
    Ok(())
}

fn query(id: Id, option: u32, resp: &mut rdma_ucm_query_addr_resp) -> Res<()> {
    let body = rdma_ucm_query { response: uaddr(resp), id: id.handle(), option };
    write_cmd_resp(id.fd(), RDMA_USER_CM_CMD_QUERY, body, resp)
}

/// QUERY(ADDR): addresses, and the device, port and P_Key once bound.
pub(crate) fn query_addr(id: Id) -> Res<()> {
    let mut resp: rdma_ucm_query_addr_resp = zeroed();
    // Kernels without ibdev_index leave this as is.
    resp.ibdev_index = crate::devices::UCMA_INVALID_IB_INDEX;
    query(id, RDMA_USER_CM_QUERY_ADDR, &mut resp)?;
    // SAFETY: the response's storages are 128 bytes each.
    unsafe {
        copy_addr(src_storage(id), (&resp.src_addr as *const libc::sockaddr_storage).cast(), resp.src_size.into());
        copy_addr(dst_storage(id), (&resp.dst_addr as *const libc::sockaddr_storage).cast(), resp.dst_size.into());
    }
    if id.cma_dev().is_null() && resp.node_guid != 0 {
        get_device(id, resp.node_guid, resp.ibdev_index)?;
        id.set_port_num(resp.port_num);
        id.set_pkey(resp.pkey);
    }
    Ok(())
}

/// QUERY(GID): source and destination GIDs (from AF_IB addresses).
pub(crate) fn query_gid(id: Id) -> Res<()> {
    let mut resp: rdma_ucm_query_addr_resp = zeroed();
    query(id, RDMA_USER_CM_QUERY_GID, &mut resp)?;
    // SAFETY: the kernel returns AF_IB addresses here; sockaddr_ib (48
    // bytes) fits in the 128-byte storages.
    let (s, d) = unsafe {
        (
            (*(&resp.src_addr as *const _ as *const sockaddr_ib)).sib_addr.ib_u.uib_addr8,
            (*(&resp.dst_addr as *const _ as *const sockaddr_ib)).sib_addr.ib_u.uib_addr8,
        )
    };
    id.set_sgid(ibv_gid { raw: s });
    id.set_dgid(ibv_gid { raw: d });
    Ok(())
}

/// The SA path record librdmacm reports for one `ibv_path_data`.
fn convert_path(pd: &ibv_path_data) -> ibv_sa_path_rec {
    let p = &pd.path;
    // SAFETY: all-zero is a valid path record.
    let mut sa: ibv_sa_path_rec = unsafe { core::mem::zeroed() };
    sa.dgid = p.dgid;
    sa.sgid = p.sgid;
    sa.dlid = p.dlid;
    sa.slid = p.slid;
    sa.raw_traffic = 0;
    let fl_hop = u32::from_be(p.flowlabel_hoplimit);
    sa.flow_label = (fl_hop >> 8).to_be();
    sa.hop_limit = fl_hop as u8;
    sa.traffic_class = p.tclass;
    sa.reversible = c_int::from(p.reversible_numpath >> 7);
    sa.numb_path = 1;
    sa.pkey = p.pkey;
    sa.sl = (u16::from_be(p.qosclass_sl) & 0xF) as u8;
    sa.mtu_selector = 2;
    sa.mtu = p.mtu & 0x1F;
    sa.rate_selector = 2;
    sa.rate = p.rate & 0x1F;
    sa.packet_life_time_selector = 2;
    sa.packet_life_time = p.packetlifetime & 0x1F;
    sa.preference = pd.flags as u8;
    sa
}

/// Replaces the id's path records with the `n` records `rec(0..n)`, in a
/// malloc'ed array (apps and free_id expect one), built in place. Upstream
/// does not free a previous array either. Nothing changes when `n` is 0.
fn set_paths(id: Id, n: usize, mut rec: impl FnMut(usize) -> ibv_sa_path_rec) -> Res<()> {
    if n == 0 {
        return Ok(());
    }
    let size = n * core::mem::size_of::<ibv_sa_path_rec>();
    // SAFETY: plain allocation.
    let p = unsafe { libc::malloc(size) }.cast::<ibv_sa_path_rec>();
    if p.is_null() {
        return Err(libc::ENOMEM);
    }
    for i in 0..n {
        // SAFETY: p has room for n records (malloc's alignment suits them).
        unsafe { p.add(i).write(rec(i)) };
    }
    id.set_path_rec(p);
    id.set_num_paths(n as c_int);
    Ok(())
}

/// QUERY(PATH): the resolved path records.
pub(crate) fn query_path(id: Id) -> Res<()> {
    // Not zeroed (upstream does not zero its buffer either): on success the
    // kernel copies out its zero-initialised header and the first
    // `num_paths` records, all of which it has filled or zeroed, and only
    // those are read here.
    let mut buf = MaybeUninit::<ucma_query_path_buf>::uninit();
    let bp = buf.as_mut_ptr();
    let body = rdma_ucm_query { response: bp as u64, id: id.handle(), option: RDMA_USER_CM_QUERY_PATH };
    write_cmd_resp(id.fd(), RDMA_USER_CM_CMD_QUERY, body, &mut buf)?;
    // SAFETY: the command succeeded, so the header is written.
    let num = unsafe { addr_of!((*bp).hdr.num_paths).read() };
    let n = (num as usize).min(UCMA_QUERY_PATHS);
    // SAFETY: the kernel wrote the first `num_paths` records (n or more).
    let paths = unsafe { core::slice::from_raw_parts(addr_of!((*bp).path_data).cast::<ibv_path_data>(), n) };
    set_paths(id, n, |i| convert_path(&paths[i]))
}

/// QUERY_ROUTE (kernels without AF_IB): addresses, GIDs, P_Key, paths and
/// the device in one response.
pub(crate) fn query_route(id: Id) -> Res<()> {
    let mut resp: rdma_ucm_query_route_resp = zeroed();
    resp.ibdev_index = crate::devices::UCMA_INVALID_IB_INDEX;
    let body = rdma_ucm_query { response: uaddr(&mut resp), id: id.handle(), option: 0 };
    write_cmd_resp(id.fd(), RDMA_USER_CM_CMD_QUERY_ROUTE, body, &mut resp)?;
    let n = (resp.num_paths as usize).min(resp.ib_route.len());
    set_paths(id, n, |i| {
        // SAFETY: all-zero is a valid path record.
        let mut sa: ibv_sa_path_rec = unsafe { core::mem::zeroed() };
        let mut k = resp.ib_route[i];
        // SAFETY: both arguments are valid records.
        unsafe { crate::verbs::ibv_copy_path_rec_from_kern(&mut sa, &mut k) };
        sa
    })?;
    id.set_sgid(ibv_gid { raw: resp.ib_route[0].sgid });
    id.set_dgid(ibv_gid { raw: resp.ib_route[0].dgid });
    id.set_pkey(resp.ib_route[0].pkey);
    // SAFETY: the kernel's addresses are sockaddr_in6-sized.
    unsafe {
        copy_addr(src_storage(id), (&resp.src_addr as *const sockaddr_in6).cast(), core::mem::size_of::<sockaddr_in6>());
        copy_addr(dst_storage(id), (&resp.dst_addr as *const sockaddr_in6).cast(), core::mem::size_of::<sockaddr_in6>());
    }
    if id.cma_dev().is_null() && resp.node_guid != 0 {
        get_device(id, resp.node_guid, resp.ibdev_index)?;
        id.set_port_num(resp.port_num);
    }
    Ok(())
}

/// An address of `len` bytes in kernel storage form.
///
/// # Safety
/// `addr` must be readable for `len` bytes.
pub(crate) unsafe fn storage_of(addr: *const sockaddr, len: socklen_t) -> libc::sockaddr_storage {
    let mut s: libc::sockaddr_storage = zeroed();
    if !addr.is_null() {
        // SAFETY: forwarded contract.
        unsafe { copy_addr((&mut s as *mut libc::sockaddr_storage).cast(), addr.cast(), len as usize) };
    }
    s
}

/// An address of `len` bytes in the sockaddr_in6 slot of the IP commands.
///
/// # Safety
/// `addr` must be readable for `len` bytes.
pub(crate) unsafe fn in6_of(addr: *const sockaddr, len: socklen_t) -> sockaddr_in6 {
    let mut s: sockaddr_in6 = zeroed();
    if !addr.is_null() {
        let n = (len as usize).min(core::mem::size_of::<sockaddr_in6>());
        // SAFETY: forwarded contract; n fits the destination.
        unsafe { core::ptr::copy_nonoverlapping(addr.cast::<u8>(), (&mut s as *mut sockaddr_in6).cast(), n) };
    }
    s
}

/// BIND (AF_IB-capable kernels), then the address and GID queries.
///
/// # Safety
/// `addr` must be readable for `len` bytes.
pub(crate) unsafe fn bind_addr2(id: Id, addr: *const sockaddr, len: socklen_t) -> Res<()> {
    let body = rdma_ucm_bind {
        id: id.handle(),
        addr_size: len as u16,
        reserved: 0,
        // SAFETY: forwarded contract.
        addr: unsafe { storage_of(addr, len) },
    };
    write_cmd(id.fd(), RDMA_USER_CM_CMD_BIND, body)?;
    query_addr(id)?;
    query_gid(id)
}

/// `rdma_bind_addr`.
///
/// # Safety
/// `addr` must be null or a socket address of its family's size.
pub(crate) unsafe fn bind_addr(id: Id, addr: *const sockaddr) -> Res<()> {
    // SAFETY: forwarded contract: null or a socket address.
    let len = unsafe { addrlen(addr) };
    if len == 0 {
        return Err(libc::EINVAL);
    }
    if af_ib_support() {
        // SAFETY: forwarded contract.
        return unsafe { bind_addr2(id, addr, len) };
    }
    let body = rdma_ucm_bind_ip {
        response: 0,
        // SAFETY: forwarded contract.
        addr: unsafe { in6_of(addr, len) },
        id: id.handle(),
    };
    write_cmd(id.fd(), RDMA_USER_CM_CMD_BIND_IP, body)?;
    query_route(id)
}

// ---------------------------------------------------------------------------
// Exports
// ---------------------------------------------------------------------------

rdma_util::export! {
    /// Binds an id to a local address (and so, possibly, to a device).
    fn rdma_bind_addr(id: *mut rdma_cm_id, addr: *mut sockaddr) -> c_int, on_panic = -1;
    {
        rdma_util::ensure!(!id.is_null(), libc::EINVAL, -1);
        // SAFETY: addr is null (rejected inside) or the caller's address.
        ret_int(unsafe { bind_addr(Id::from_cm(id), addr) })
    }
}

rdma_util::export! {
    /// The id's local port, big-endian.
    fn rdma_get_src_port(id: *mut rdma_cm_id) -> u16, on_panic = 0;
    {
        rdma_util::ensure!(!id.is_null(), libc::EINVAL, 0);
        // SAFETY: checked non-NULL; the id's live 128-byte source storage
        // holds any address family.
        unsafe { get_port(src_storage(Id::from_cm(id)).cast()) }
    }
}

rdma_util::export! {
    /// The id's remote port, big-endian.
    fn rdma_get_dst_port(id: *mut rdma_cm_id) -> u16, on_panic = 0;
    {
        rdma_util::ensure!(!id.is_null(), libc::EINVAL, 0);
        // SAFETY: checked non-NULL; the id's live 128-byte destination
        // storage holds any address family.
        unsafe { get_port(dst_storage(Id::from_cm(id)).cast()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_lengths_follow_the_family() {
        let mut sin: sockaddr_in = zeroed();
        sin.sin_family = libc::AF_INET as u16;
        // SAFETY: a local sockaddr_in.
        assert_eq!(unsafe { addrlen((&sin as *const sockaddr_in).cast()) }, 16);
        let mut sin6: sockaddr_in6 = zeroed();
        sin6.sin6_family = libc::AF_INET6 as u16;
        // SAFETY: a local sockaddr_in6.
        assert_eq!(unsafe { addrlen((&sin6 as *const sockaddr_in6).cast()) }, 28);
        let mut unix: libc::sockaddr_storage = zeroed();
        unix.ss_family = libc::AF_UNIX as u16;
        // SAFETY: a local sockaddr_storage.
        assert_eq!(unsafe { addrlen((&unix as *const libc::sockaddr_storage).cast()) }, 0);
        // SAFETY: null is allowed.
        assert_eq!(unsafe { addrlen(core::ptr::null()) }, 0);
    }

    #[test]
    fn ports_are_returned_big_endian() {
        let mut sin: sockaddr_in = zeroed();
        sin.sin_family = libc::AF_INET as u16;
        sin.sin_port = 7174u16.to_be();
        // SAFETY: a local sockaddr_in.
        assert_eq!(unsafe { get_port((&sin as *const sockaddr_in).cast()) }, 7174u16.to_be());
        let mut sib: sockaddr_ib = zeroed();
        sib.sib_family = AF_IB as u16;
        sib.sib_sid = (RDMA_IB_IP_PS_TCP | 0x1234).to_be();
        // SAFETY: a local sockaddr_ib.
        assert_eq!(unsafe { get_port((&sib as *const sockaddr_ib).cast()) }, 0x1234u16.to_be());
    }

    #[test]
    fn path_conversion_takes_the_fields_upstream_takes() {
        let mut pd: ibv_path_data = zeroed();
        pd.flags = 0x83;
        pd.path.dlid = 0x1200;
        pd.path.flowlabel_hoplimit = ((0xABCDEu32 << 8) | 0x40).to_be();
        pd.path.reversible_numpath = 0x81;
        pd.path.qosclass_sl = 0x1235u16.to_be();
        pd.path.mtu = 0xE4;
        pd.path.rate = 0x23;
        pd.path.packetlifetime = 0x32;
        pd.path.tclass = 9;
        let sa = convert_path(&pd);
        assert_eq!(sa.dlid, 0x1200);
        assert_eq!(u32::from_be(sa.flow_label), 0xABCDE);
        assert_eq!(sa.hop_limit, 0x40);
        assert_eq!(sa.reversible, 1);
        assert_eq!(sa.numb_path, 1);
        assert_eq!(sa.sl, 5);
        assert_eq!((sa.mtu_selector, sa.mtu), (2, 4));
        assert_eq!((sa.rate_selector, sa.rate), (2, 3));
        assert_eq!((sa.packet_life_time_selector, sa.packet_life_time), (2, 0x12));
        assert_eq!(sa.preference, 0x83);
        assert_eq!(sa.traffic_class, 9);
    }
}
