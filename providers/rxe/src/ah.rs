//! Address handles. The kernel keeps the AH and answers with its number,
//! which UD sends carry. A kernel without AH numbers (before Linux 5.11)
//! answers 0; then the provider builds the address vector itself, as rxe's
//! kernel would, and each UD send carries the whole vector:
//! - the port, and the GRH fields as the application gave them;
//! - the network type, IPv4 when the destination GID is an IPv4-mapped
//!   IPv6 address (::ffff:a.b.c.d), else IPv6;
//! - the source and destination GIDs as socket addresses (the IPv4 form
//!   keeps only the address, with family 0, as upstream writes it);
//! - the destination MAC, resolved through the neighbour table.

use core::ffi::c_int;
use core::ptr;

use rdma_abi::rxe::*;
use rdma_abi::rxe_abi::urxe_create_ah_resp;
use rdma_abi::verbs::*;
use rdma_provider::{mem, op, verbs};
use rdma_util::mem::zeroed;

/// Marks a live AH (see `RxeAh::from_ibv`).
const AH_MAGIC: u64 = 0x7278_655f_6168_2121;

#[repr(C)]
pub(crate) struct RxeAh {
    pub(crate) ibv_ah: ibv_ah,
    magic: u64,
    pub(crate) av: rxe_av,
    pub(crate) ah_num: u32,
}

impl RxeAh {
    /// The AH behind an application's pointer: None for NULL or for a
    /// pointer that does not look like a live AH of ours.
    ///
    /// # Safety
    /// `ah` is NULL or points at readable memory of an AH's size.
    #[inline(always)]
    pub(crate) unsafe fn from_ibv<'a>(ah: *mut ibv_ah) -> Option<&'a RxeAh> {
        if ah.is_null() {
            return None;
        }
        // SAFETY: ibv_ah is the first member; the caller's promise.
        let r = unsafe { &*(ah as *const RxeAh) };
        (r.magic == AH_MAGIC).then_some(r)
    }
}

/// Whether a GID is an IPv4-mapped IPv6 address.
pub(crate) fn is_v4_mapped(gid: &[u8; 16]) -> bool {
    gid[..10].iter().all(|&b| b == 0) && gid[10] == 0xff && gid[11] == 0xff
}

/// A GID as the socket address rxe's address vector holds.
pub(crate) fn gid_to_addr(gid: &[u8; 16]) -> rxe_av_sgid_addr {
    let mut out: rxe_av_sgid_addr = zeroed();
    if is_v4_mapped(gid) {
        let mut a: libc::sockaddr_in = zeroed();
        a.sin_addr.s_addr = u32::from_ne_bytes([gid[12], gid[13], gid[14], gid[15]]);
        out._sockaddr_in = a;
    } else {
        let mut a: libc::sockaddr_in6 = zeroed();
        a.sin6_family = libc::AF_INET6 as libc::sa_family_t;
        a.sin6_addr.s6_addr = *gid;
        out._sockaddr_in6 = a;
    }
    out
}

/// The address vector for `attr` from source GID `sgid`, without the MAC.
pub(crate) fn build_av(attr: &ibv_ah_attr, sgid: &ibv_gid) -> rxe_av {
    let mut av: rxe_av = zeroed();
    av.port_num = attr.port_num;
    // SAFETY: both GIDs are 16 plain bytes.
    let (dgid, sgid) = unsafe { (attr.grh.dgid.raw, sgid.raw) };
    av.grh = rxe_global_route {
        dgid: rxe_gid { raw: dgid },
        flow_label: attr.grh.flow_label,
        sgid_index: attr.grh.sgid_index,
        hop_limit: attr.grh.hop_limit,
        traffic_class: attr.grh.traffic_class,
    };
    av.network_type = if is_v4_mapped(&dgid) {
        RXE_NETWORK_TYPE_IPV4
    } else {
        RXE_NETWORK_TYPE_IPV6
    };
    av.sgid_addr = gid_to_addr(&sgid);
    av.dgid_addr = gid_to_addr(&dgid);
    av
}

const _: () = assert!(size_of::<ibv_global_route>() == size_of::<rxe_global_route>());

/// The vector of a kernel without AH numbers; Err(the failing call's return).
///
/// # Safety
/// `pd` is a live PD and `attr` the application's attributes.
unsafe fn create_av(pd: *mut ibv_pd, attr: *mut ibv_ah_attr) -> Result<rxe_av, c_int> {
    let v = verbs();
    // SAFETY: attr is readable (the library passed it on).
    let a = unsafe { &*attr };
    // SAFETY: ibv_gid is plain bytes.
    let mut sgid: ibv_gid = unsafe { rdma_util::mem::zeroed_unchecked() };
    // SAFETY: a live PD's context; sgid is writable.
    let ret = unsafe {
        (v.query_gid)(
            (*pd).context,
            a.port_num,
            a.grh.sgid_index as c_int,
            &mut sgid,
        )
    };
    if ret != 0 {
        return Err(ret);
    }
    let mut av = build_av(a, &sgid);
    // SAFETY: the library fills the 6-byte MAC; vid is optional (NULL).
    let ret = unsafe {
        (v.resolve_eth_l2_from_gid)((*pd).context, attr, av.dmac.as_mut_ptr(), ptr::null_mut())
    };
    if ret != 0 {
        return Err(ret);
    }
    Ok(av)
}

op! {
    pub(crate) fn rxe_create_ah(pd: *mut ibv_pd, attr: *mut ibv_ah_attr) -> *mut ibv_ah, on_panic = ptr::null_mut();
    {
        let ah = mem::calloc::<RxeAh>();
        if ah.is_null() {
            return ptr::null_mut();
        }
        let mut resp: urxe_create_ah_resp = zeroed();
        // SAFETY: our new AH; the response is sized as passed.
        let ret = unsafe {
            (verbs().cmd_create_ah)(pd, &mut (*ah).ibv_ah, attr, &mut resp.ibv_resp, size_of::<urxe_create_ah_resp>())
        };
        if ret != 0 {
            // SAFETY: ours, never handed out.
            unsafe { mem::free(ah) };
            return ptr::null_mut();
        }
        // SAFETY: our AH.
        unsafe {
            (*ah).ah_num = resp.drv_payload.ah_num;
            if (*ah).ah_num == 0 {
                match create_av(pd, attr) {
                    Ok(av) => (*ah).av = av,
                    Err(_) => {
                        // Upstream frees its AH and leaves the kernel's
                        // behind; ours destroys it first.
                        let e = rdma_provider::errno();
                        (verbs().cmd_destroy_ah)(&mut (*ah).ibv_ah);
                        rdma_provider::set_errno(e);
                        mem::free(ah);
                        return ptr::null_mut();
                    }
                }
            }
            (*ah).magic = AH_MAGIC;
            &mut (*ah).ibv_ah
        }
    }
}

op! {
    pub(crate) fn rxe_destroy_ah(ibah: *mut ibv_ah) -> c_int, on_panic = libc::EIO;
    {
        // SAFETY: the library passes one of our AHs.
        let ret = unsafe { (verbs().cmd_destroy_ah)(ibah) };
        if ret == 0 {
            let ah = ibah as *mut RxeAh;
            // SAFETY: ours; no one may use it now.
            unsafe {
                (*ah).magic = 0;
                mem::free(ah);
            }
        }
        ret
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v4(a: [u8; 4]) -> [u8; 16] {
        let mut g = [0u8; 16];
        g[10] = 0xff;
        g[11] = 0xff;
        g[12..].copy_from_slice(&a);
        g
    }

    #[test]
    fn mapped() {
        assert!(is_v4_mapped(&v4([10, 0, 2, 15])));
        let mut g = v4([10, 0, 2, 15]);
        g[0] = 0xfe;
        assert!(!is_v4_mapped(&g));
        assert!(!is_v4_mapped(&[0; 16]));
    }

    #[test]
    fn addresses() {
        let a = gid_to_addr(&v4([10, 0, 2, 15]));
        // SAFETY: the IPv4 member was written.
        let s = unsafe { a._sockaddr_in };
        assert_eq!(s.sin_family, 0);
        assert_eq!(s.sin_addr.s_addr.to_ne_bytes(), [10, 0, 2, 15]);
        let g6 = [
            0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x50, 0x54, 0, 0xff, 0xfe, 0x12, 0x34, 0x56,
        ];
        let b = gid_to_addr(&g6);
        // SAFETY: the IPv6 member was written.
        let s6 = unsafe { b._sockaddr_in6 };
        assert_eq!(s6.sin6_family, libc::AF_INET6 as libc::sa_family_t);
        assert_eq!(s6.sin6_addr.s6_addr, g6);
    }

    #[test]
    fn vector() {
        // SAFETY: a C struct of integers and a union of bytes.
        let mut attr: ibv_ah_attr = unsafe { rdma_util::mem::zeroed_unchecked() };
        attr.port_num = 1;
        attr.grh.dgid.raw = v4([10, 0, 2, 16]);
        attr.grh.flow_label = 0x12345;
        attr.grh.sgid_index = 1;
        attr.grh.hop_limit = 64;
        attr.grh.traffic_class = 3;
        let sgid = ibv_gid {
            raw: v4([10, 0, 2, 15]),
        };
        let av = build_av(&attr, &sgid);
        assert_eq!(av.port_num, 1);
        assert_eq!(av.network_type, RXE_NETWORK_TYPE_IPV4);
        assert_eq!(
            (
                av.grh.flow_label,
                av.grh.sgid_index,
                av.grh.hop_limit,
                av.grh.traffic_class
            ),
            (0x12345, 1, 64, 3)
        );
        // SAFETY: GIDs are bytes; the IPv4 members were written.
        unsafe {
            assert_eq!(av.grh.dgid.raw, v4([10, 0, 2, 16]));
            assert_eq!(
                av.sgid_addr._sockaddr_in.sin_addr.s_addr.to_ne_bytes(),
                [10, 0, 2, 15]
            );
            assert_eq!(
                av.dgid_addr._sockaddr_in.sin_addr.s_addr.to_ne_bytes(),
                [10, 0, 2, 16]
            );
        }
        assert_eq!(av.dmac, [0; 6]);
        attr.grh.dgid.raw = [0xfe; 16];
        assert_eq!(build_av(&attr, &sgid).network_type, RXE_NETWORK_TYPE_IPV6);
    }
}
