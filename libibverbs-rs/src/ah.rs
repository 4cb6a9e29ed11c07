//! Address handles (verbs.c): ibv_create_ah, ibv_destroy_ah,
//! ibv_init_ah_from_wc, ibv_create_ah_from_wc; and the SA marshalling
//! helpers of marshall.c: ibv_copy_ah_attr_from_kern,
//! ibv_copy_path_rec_from_kern, ibv_copy_path_rec_to_kern.
//!
//! ibv_init_ah_from_wc builds the reply address of a received UD message.
//! With a GRH, the 40 bytes in front of the payload are either an IB/RoCE v1
//! GRH (IPv6 layout, next header 0x1B), a RoCE v2 IPv6 header (next header
//! UDP), or, for RoCE v2 over IPv4, 20 unused bytes followed by the IPv4
//! header. Upstream tells the last apart by the IP version nibbles and, when
//! both could be right, by a valid IPv4 header checksum. The source GID index
//! is the first GID of the port equal to the address the message was sent to
//! and of the matching type (RoCE v2 for UDP, IB/RoCE v1 otherwise).

use std::ffi::{c_int, c_uint};
use std::ptr;

use crate::abi::driver::*;
use crate::abi::kern::ib_uverbs_ah_attr;
use crate::abi::verbs::*;
use crate::context::ops_of;
use crate::ffi::set_errno;
use crate::{ensure, export, export_versioned, symver};

/// Upstream's ibv_create_ah: the provider creates, the library sets the
/// AH's context and PD.
///
/// # Safety
/// `pd` is a live PD with its context set; `attr` is readable.
pub unsafe fn create_ah(pd: *mut ibv_pd, attr: *mut ibv_ah_attr) -> *mut ibv_ah {
    // SAFETY: the caller's PD.
    let context = unsafe { (*pd).context };
    let Some(f) = ops_of(context).create_ah else {
        set_errno(libc::EOPNOTSUPP);
        return ptr::null_mut();
    };
    // SAFETY: provider op with the caller's arguments.
    let ah = unsafe { f(pd, attr) };
    if !ah.is_null() {
        // SAFETY: the provider's new AH.
        unsafe {
            (*ah).context = context;
            (*ah).pd = pd;
        }
    }
    ah
}

export_versioned! {
    /// ibv_create_ah@@IBVERBS_1.1
    fn ibv_create_ah_v11(pd: *mut ibv_pd, attr: *mut ibv_ah_attr) -> *mut ibv_ah, on_panic = ptr::null_mut();
    {
        // SAFETY: dereferenced only when non-NULL.
        ensure!(!pd.is_null() && !unsafe { (*pd).context }.is_null() && !attr.is_null(),
                libc::EINVAL, ptr::null_mut());
        // SAFETY: checked above.
        unsafe { create_ah(pd, attr) }
    }
}
symver!(default ibv_create_ah, "IBVERBS_1.1", ibv_create_ah_v11);

export_versioned! {
    /// ibv_destroy_ah@@IBVERBS_1.1: 0 or an errno value.
    fn ibv_destroy_ah_v11(ah: *mut ibv_ah) -> c_int, on_panic = libc::EIO;
    {
        // SAFETY: dereferenced only when non-NULL.
        ensure!(!ah.is_null() && !unsafe { (*ah).context }.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked above.
        let Some(f) = ops_of(unsafe { (*ah).context }).destroy_ah else { return libc::EOPNOTSUPP };
        // SAFETY: provider op on its own AH.
        unsafe { f(ah) }
    }
}
symver!(default ibv_destroy_ah, "IBVERBS_1.1", ibv_destroy_ah_v11);

/// IPv6 next-header value of an IB (and RoCE v1) GRH: the IB transport
/// header follows.
const IB_NEXT_HDR: u8 = 0x1b;
/// Offset of the IPv4 header inside the 40-byte GRH area (RoCE v2 / IPv4).
const IPV4_OFFSET: usize = 20;

/// The IPv4 header fields upstream reads (struct iphdr), from its 20 bytes.
struct Ipv4 {
    version: u8,
    ihl: u8,
    tos: u8,
    ttl: u8,
    check: u16,
    /// Network order, as the bytes lie.
    saddr: [u8; 4],
    daddr: [u8; 4],
    raw: [u8; 20],
}

impl Ipv4 {
    fn parse(b: &[u8; 40]) -> Ipv4 {
        let mut raw = [0u8; 20];
        raw.copy_from_slice(&b[IPV4_OFFSET..]);
        Ipv4 {
            version: raw[0] >> 4,
            ihl: raw[0] & 0xf,
            tos: raw[1],
            ttl: raw[8],
            check: u16::from_ne_bytes([raw[10], raw[11]]),
            saddr: [raw[12], raw[13], raw[14], raw[15]],
            daddr: [raw[16], raw[17], raw[18], raw[19]],
            raw,
        }
    }

    /// Upstream's header checksum over the ten 16-bit words with `check`
    /// zeroed: summed in host order, carries folded once, complemented.
    fn checksum(&self) -> u16 {
        let mut h = self.raw;
        h[10] = 0;
        h[11] = 0;
        let mut sum: u32 = 0;
        for w in h.chunks_exact(2) {
            sum += u16::from_ne_bytes([w[0], w[1]]) as u32;
        }
        sum = (sum & 0xffff) + (sum >> 16);
        !sum as u16
    }
}

/// The GRH area as bytes.
fn grh_bytes(grh: &ibv_grh) -> [u8; 40] {
    const _: () = assert!(std::mem::size_of::<ibv_grh>() == 40);
    // SAFETY: ibv_grh is 40 bytes of plain integers, no padding.
    unsafe { std::mem::transmute_copy(grh) }
}

/// Upstream's get_grh_header_version: 4, 6, or -1 with errno EPROTONOSUPPORT.
fn grh_header_version(b: &[u8; 40]) -> c_int {
    let ip6_version = b[0] >> 4;
    let ip4 = Ipv4::parse(b);
    if ip6_version != 6 {
        if ip4.version == 4 {
            return 4;
        }
        set_errno(libc::EPROTONOSUPPORT);
        return -1;
    }
    // Both are possible: an IPv4 header for RoCE v2 has ihl 5 and a valid
    // checksum.
    if ip4.ihl != 5 {
        return 6;
    }
    if ip4.check == ip4.checksum() {
        4
    } else {
        6
    }
}

/// `::ffff:a.b.c.d`.
fn v4_mapped(addr: [u8; 4]) -> ibv_gid {
    let mut raw = [0u8; 16];
    raw[10] = 0xff;
    raw[11] = 0xff;
    raw[12..].copy_from_slice(&addr);
    ibv_gid { raw }
}

/// Upstream's ibv_find_gid_index: the first index of the port whose GID is
/// `gid` with type `gid_type`, walking up until a query fails (-1 then).
///
/// # Safety
/// `context` is a live context.
unsafe fn find_gid_index(context: *mut ibv_context, port_num: u8, gid: &ibv_gid, gid_type: ibv_gid_type_sysfs) -> c_int {
    let mut i: c_int = 0;
    loop {
        // SAFETY: all-zero is a valid GID.
        let mut sgid: ibv_gid = unsafe { std::mem::zeroed() };
        let mut sgid_type: ibv_gid_type_sysfs = 0;
        // SAFETY: live context; local out-parameters.
        let mut ret = unsafe { crate::query::query_gid(context, port_num, i, &mut sgid) };
        if ret == 0 {
            // SAFETY: as above.
            ret = unsafe { crate::query::ibv_query_gid_type(context, port_num, i as c_uint, &mut sgid_type) };
        }
        if ret != 0 {
            return ret;
        }
        // SAFETY: reading the byte view of both GIDs.
        if unsafe { sgid.raw == gid.raw } && sgid_type == gid_type {
            return i;
        }
        i += 1;
    }
}

/// Upstream's ibv_init_ah_from_wc. 0, or -1 (errno EINVAL for a multicast
/// destination, EPROTONOSUPPORT for an unknown header, or the GID query's).
///
/// # Safety
/// `wc`, `grh` readable, `ah_attr` writable; `context` live when the
/// completion carries a GRH.
pub unsafe fn init_ah_from_wc(context: *mut ibv_context, port_num: u8, wc: &ibv_wc, grh: &ibv_grh,
                              ah_attr: &mut ibv_ah_attr) -> c_int {
    // SAFETY: all-zero is a valid ibv_ah_attr (memset in upstream).
    *ah_attr = unsafe { std::mem::zeroed() };
    let b = grh_bytes(grh);
    let flow_class = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    ah_attr.grh.flow_label = flow_class & 0xfffff;
    ah_attr.dlid = wc.slid;
    ah_attr.sl = wc.sl;
    ah_attr.src_path_bits = wc.dlid_path_bits;
    ah_attr.port_num = port_num;
    if wc.wc_flags & IBV_WC_GRH == 0 {
        return 0;
    }
    ah_attr.is_global = 1;
    match grh_header_version(&b) {
        4 => {
            let ip4 = Ipv4::parse(&b);
            // No multicast address is in a GID table.
            if u32::from_be_bytes(ip4.daddr) & 0xf000_0000 == 0xe000_0000 {
                set_errno(libc::EINVAL);
                return -1;
            }
            ensure!(!context.is_null(), libc::EINVAL, -1);
            // SAFETY: live context (checked non-NULL).
            let idx = unsafe { find_gid_index(context, port_num, &v4_mapped(ip4.daddr), IBV_GID_TYPE_SYSFS_ROCE_V2) };
            if idx < 0 {
                return idx;
            }
            ah_attr.grh.dgid = v4_mapped(ip4.saddr);
            ah_attr.grh.sgid_index = idx as u8;
            ah_attr.grh.hop_limit = ip4.ttl;
            ah_attr.grh.traffic_class = ip4.tos;
            0
        }
        6 => {
            // SAFETY: reading the byte view of the GID.
            if unsafe { grh.dgid.raw[0] } == 0xff {
                set_errno(libc::EINVAL);
                return -1;
            }
            ah_attr.grh.dgid = grh.sgid;
            let gid_type = match grh.next_hdr {
                n if n == libc::IPPROTO_UDP as u8 => IBV_GID_TYPE_SYSFS_ROCE_V2,
                IB_NEXT_HDR => IBV_GID_TYPE_SYSFS_IB_ROCE_V1,
                _ => {
                    set_errno(libc::EPROTONOSUPPORT);
                    return -1;
                }
            };
            ensure!(!context.is_null(), libc::EINVAL, -1);
            // SAFETY: live context (checked non-NULL).
            let idx = unsafe { find_gid_index(context, port_num, &grh.dgid, gid_type) };
            if idx < 0 {
                return idx;
            }
            ah_attr.grh.sgid_index = idx as u8;
            ah_attr.grh.hop_limit = grh.hop_limit;
            ah_attr.grh.traffic_class = (flow_class >> 20) as u8;
            0
        }
        _ => -1,
    }
}

export! {
    /// ibv_init_ah_from_wc@@IBVERBS_1.1: 0 or -1 (errno set).
    fn ibv_init_ah_from_wc(context: *mut ibv_context, port_num: u8, wc: *mut ibv_wc, grh: *mut ibv_grh,
                           ah_attr: *mut ibv_ah_attr) -> c_int, on_panic = -1;
    {
        // Upstream reads the GRH area even without IBV_WC_GRH (flow label).
        ensure!(!wc.is_null() && !grh.is_null() && !ah_attr.is_null(), libc::EINVAL, -1);
        // SAFETY: checked non-NULL; the caller's structures.
        unsafe { init_ah_from_wc(context, port_num, &*wc, &*grh, &mut *ah_attr) }
    }
}

export! {
    /// ibv_create_ah_from_wc@@IBVERBS_1.1: an AH for replying to `wc`, or NULL.
    fn ibv_create_ah_from_wc(pd: *mut ibv_pd, wc: *mut ibv_wc, grh: *mut ibv_grh, port_num: u8) -> *mut ibv_ah,
        on_panic = ptr::null_mut();
    {
        // SAFETY: dereferenced only when non-NULL.
        ensure!(!pd.is_null() && !unsafe { (*pd).context }.is_null() && !wc.is_null() && !grh.is_null(),
                libc::EINVAL, ptr::null_mut());
        // SAFETY: all-zero is a valid ibv_ah_attr.
        let mut attr: ibv_ah_attr = unsafe { std::mem::zeroed() };
        // SAFETY: checked above.
        if unsafe { init_ah_from_wc((*pd).context, port_num, &*wc, &*grh, &mut attr) } != 0 {
            return ptr::null_mut();
        }
        // SAFETY: checked above.
        unsafe { create_ah(pd, &mut attr) }
    }
}

export! {
    /// ibv_copy_ah_attr_from_kern@@IBVERBS_1.1 (private to rdma-core's
    /// libraries, kept for them).
    fn ibv_copy_ah_attr_from_kern(dst: *mut ibv_ah_attr, src: *mut ib_uverbs_ah_attr) -> (), on_panic = ();
    {
        ensure!(!dst.is_null() && !src.is_null(), libc::EINVAL, ());
        // SAFETY: checked non-NULL; copied first, then written.
        let s = unsafe { *src };
        // SAFETY: as above.
        crate::qp::copy_ah_attr_from_kern(unsafe { &mut *dst }, &s)
    }
}

export! {
    /// ibv_copy_path_rec_from_kern@@IBVERBS_1.0: the kernel's path record in
    /// the library's form, field by field (integer fields converted by value).
    fn ibv_copy_path_rec_from_kern(dst: *mut ibv_sa_path_rec, src: *mut ib_user_path_rec) -> (), on_panic = ();
    {
        ensure!(!dst.is_null() && !src.is_null(), libc::EINVAL, ());
        // SAFETY: checked non-NULL; copied first, then written.
        let s = unsafe { *src };
        // SAFETY: as above.
        let d = unsafe { &mut *dst };
        d.dgid.raw = s.dgid;
        d.sgid.raw = s.sgid;
        d.dlid = s.dlid;
        d.slid = s.slid;
        d.raw_traffic = s.raw_traffic as c_int;
        d.flow_label = s.flow_label;
        d.hop_limit = s.hop_limit;
        d.traffic_class = s.traffic_class;
        d.reversible = s.reversible as c_int;
        d.numb_path = s.numb_path;
        d.pkey = s.pkey;
        d.sl = s.sl;
        d.mtu_selector = s.mtu_selector;
        d.mtu = s.mtu as u8;
        d.rate_selector = s.rate_selector;
        d.rate = s.rate;
        d.packet_life_time = s.packet_life_time;
        d.preference = s.preference;
        d.packet_life_time_selector = s.packet_life_time_selector;
    }
}

export! {
    /// ibv_copy_path_rec_to_kern@@IBVERBS_1.0: the reverse of
    /// ibv_copy_path_rec_from_kern.
    fn ibv_copy_path_rec_to_kern(dst: *mut ib_user_path_rec, src: *mut ibv_sa_path_rec) -> (), on_panic = ();
    {
        ensure!(!dst.is_null() && !src.is_null(), libc::EINVAL, ());
        // SAFETY: checked non-NULL; copied first, then written.
        let s = unsafe { *src };
        // SAFETY: as above.
        let d = unsafe { &mut *dst };
        // SAFETY: reading the byte view of the GIDs.
        unsafe {
            d.dgid = s.dgid.raw;
            d.sgid = s.sgid.raw;
        }
        d.dlid = s.dlid;
        d.slid = s.slid;
        d.raw_traffic = s.raw_traffic as u32;
        d.flow_label = s.flow_label;
        d.hop_limit = s.hop_limit;
        d.traffic_class = s.traffic_class;
        d.reversible = s.reversible as u32;
        d.numb_path = s.numb_path;
        d.pkey = s.pkey;
        d.sl = s.sl;
        d.mtu_selector = s.mtu_selector;
        d.mtu = s.mtu as u32;
        d.rate_selector = s.rate_selector;
        d.rate = s.rate;
        d.packet_life_time = s.packet_life_time;
        d.preference = s.preference;
        d.packet_life_time_selector = s.packet_life_time_selector;
    }
}
