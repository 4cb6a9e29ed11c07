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
use crate::ctx_priv::ops_of;
use rdma_util::ffi::set_errno;
use rdma_util::{ensure, export, export_versioned, symver};

/// Upstream's ibv_create_ah: the provider creates, the library sets the
/// AH's context and PD.
///
/// # Safety
/// `pd` is a live PD with its context set; `attr` is readable.
pub(crate) unsafe fn create_ah(pd: *mut ibv_pd, attr: *mut ibv_ah_attr) -> *mut ibv_ah {
    // SAFETY: the caller's PD.
    let context = unsafe { (*pd).context };
    // SAFETY: the caller's live PD, whose context is a live context of this library.
    let Some(f) = unsafe { ops_of(context) }.create_ah else {
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
        // SAFETY: checked above; the application's AH, whose context is a live context of this library.
        let Some(f) = unsafe { ops_of((*ah).context) }.destroy_ah else { return libc::EOPNOTSUPP };
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
pub(crate) unsafe fn init_ah_from_wc(context: *mut ibv_context, port_num: u8, wc: &ibv_wc, grh: &ibv_grh,
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
        ensure!(!dst.is_null() && !src.is_null(), libc::EINVAL);
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
        ensure!(!dst.is_null() && !src.is_null(), libc::EINVAL);
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
        ensure!(!dst.is_null() && !src.is_null(), libc::EINVAL);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::kern::*;
    use crate::testkit::kernel::{with_kernel, FakeKernel};
    use rdma_util::ffi::errno;
    use crate::testkit::ctx::{no_ops, FakeCtx};
    use rdma_util::mem::zeroed_unchecked;

    fn gid(s: &str) -> ibv_gid {
        let a: std::net::Ipv6Addr = s.parse().unwrap();
        ibv_gid { raw: a.octets() }
    }

    /// Port 1's GID table as the kernel reports it: (GID, ibv_gid_type), an
    /// empty slot (ENODATA), then the end of the table (EINVAL).
    fn table() -> Vec<Option<(ibv_gid, u32)>> {
        vec![
            Some((gid("fe80::1"), IBV_GID_TYPE_ROCE_V1)),
            Some((gid("fe80::1"), IBV_GID_TYPE_ROCE_V2)),
            None,
            Some((gid("::ffff:10.0.2.15"), IBV_GID_TYPE_ROCE_V1)),
            Some((gid("::ffff:10.0.2.15"), IBV_GID_TYPE_ROCE_V2)),
            Some((gid("fe80::2"), IBV_GID_TYPE_IB)),
        ]
    }

    fn kernel() -> FakeKernel {
        let t = table();
        FakeKernel::new().on_ioctl(move |c| {
            assert_eq!((c.object_id(), c.method_id()), (UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_ENTRY));
            let port = c.attr(UVERBS_ATTR_QUERY_GID_ENTRY_PORT).unwrap().data;
            let idx = c.attr(UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX).unwrap().data as usize;
            if port != 1 || idx >= t.len() {
                return libc::EINVAL;
            }
            let Some((g, ty)) = t[idx] else { return libc::ENODATA };
            let e = ibv_gid_entry { gid: g, gid_index: idx as u32, port_num: 1, gid_type: ty, ndev_ifindex: 2 };
            c.write_out_val(UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY, e);
            0
        })
    }


    fn wc(flags: u32) -> ibv_wc {
        // SAFETY: all-zero is a valid ibv_wc, a plain C struct.
        let mut w: ibv_wc = unsafe { zeroed_unchecked() };
        w.slid = 0x1234;
        w.sl = 5;
        w.dlid_path_bits = 3;
        w.wc_flags = flags;
        w
    }

    /// The 40 bytes in front of a RoCE v2 / IPv4 payload: 20 unused bytes,
    /// then the IPv4 header with a valid checksum (unless `bad_sum`).
    fn ipv4_grh(first: u8, saddr: [u8; 4], daddr: [u8; 4], tos: u8, ttl: u8, bad_sum: bool) -> ibv_grh {
        let mut b = [0u8; 40];
        b[0] = first;
        let h = &mut b[20..];
        h[0] = 0x45;
        h[1] = tos;
        h[2..4].copy_from_slice(&60u16.to_be_bytes());
        h[8] = ttl;
        h[9] = 17;
        h[12..16].copy_from_slice(&saddr);
        h[16..20].copy_from_slice(&daddr);
        // The real (RFC 791) checksum, computed independently of ah.rs.
        let mut sum: u32 = h.chunks(2).map(|w| u16::from_be_bytes([w[0], w[1]]) as u32).sum();
        while sum > 0xffff {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        let mut c = !(sum as u16);
        if bad_sum {
            c ^= 1;
        }
        h[10..12].copy_from_slice(&c.to_be_bytes());
        // SAFETY: 40 plain bytes into the 40-byte GRH.
        unsafe { std::mem::transmute(b) }
    }

    fn ipv6_grh(tclass: u8, flow: u32, next_hdr: u8, hop: u8, sgid: &str, dgid: &str) -> ibv_grh {
        ibv_grh {
            version_tclass_flow: (6u32 << 28 | (tclass as u32) << 20 | flow).to_be(),
            paylen: 0,
            next_hdr,
            hop_limit: hop,
            sgid: gid(sgid),
            dgid: gid(dgid),
        }
    }

    fn run(c: &mut FakeCtx, w: &ibv_wc, g: &ibv_grh) -> (c_int, c_int, ibv_ah_attr) {
        let ctx = c.ctx();
        // SAFETY: all-zero is a valid ibv_ah_attr, a plain C struct.
        let mut a: ibv_ah_attr = unsafe { zeroed_unchecked() };
        // Garbage that init must clear.
        a.static_rate = 9;
        let (mut w, mut g) = (*w, *g);
        set_errno(0);
        // SAFETY: our locals and live context.
        let (r, _) = with_kernel(kernel(), || unsafe { ibv_init_ah_from_wc(ctx, 1, &mut w, &mut g, &mut a) });
        (r, errno(), a)
    }

    fn raw(g: &ibv_gid) -> [u8; 16] {
        // SAFETY: the byte view of a GID.
        unsafe { g.raw }
    }

    #[test]
    fn ib_without_grh_uses_the_lid_only() {
        let mut c = FakeCtx::new(0);
        // The flow label is taken even without a GRH (as upstream).
        let g = ipv6_grh(0x12, 0xabcde, 0x1b, 9, "fe80::9", "fe80::1");
        let (r, _, a) = run(&mut c, &wc(0), &g);
        assert_eq!(r, 0);
        assert_eq!((a.dlid, a.sl, a.src_path_bits, a.port_num, a.is_global, a.static_rate), (0x1234, 5, 3, 1, 0, 0));
        assert_eq!((a.grh.flow_label, a.grh.sgid_index, a.grh.hop_limit, a.grh.traffic_class), (0xabcde, 0, 0, 0));
        assert_eq!(raw(&a.grh.dgid), [0; 16]);
    }

    #[test]
    fn ib_or_roce_v1_grh() {
        let mut c = FakeCtx::new(0);
        // Sent to fe80::1: the IB/RoCE v1 entry is index 0.
        let g = ipv6_grh(0x12, 0xabcde, 0x1b, 9, "fe80::9", "fe80::1");
        let (r, _, a) = run(&mut c, &wc(IBV_WC_GRH), &g);
        assert_eq!(r, 0);
        assert_eq!(a.is_global, 1);
        assert_eq!(raw(&a.grh.dgid), raw(&gid("fe80::9")));
        assert_eq!((a.grh.flow_label, a.grh.sgid_index, a.grh.hop_limit, a.grh.traffic_class), (0xabcde, 0, 9, 0x12));
        assert_eq!((a.dlid, a.sl, a.src_path_bits, a.port_num), (0x1234, 5, 3, 1));
        // An IB GID type counts as IB/RoCE v1 too (index 5), found past the empty slot.
        let g = ipv6_grh(0, 0, 0x1b, 1, "fe80::9", "fe80::2");
        let (r, _, a) = run(&mut c, &wc(IBV_WC_GRH), &g);
        assert_eq!((r, a.grh.sgid_index), (0, 5));
    }

    #[test]
    fn roce_v2_ipv6() {
        let mut c = FakeCtx::new(0);
        let g = ipv6_grh(0x80, 0x12345, 17, 64, "fe80::7", "fe80::1");
        let (r, _, a) = run(&mut c, &wc(IBV_WC_GRH), &g);
        assert_eq!(r, 0);
        assert_eq!(raw(&a.grh.dgid), raw(&gid("fe80::7")));
        assert_eq!((a.grh.flow_label, a.grh.sgid_index, a.grh.hop_limit, a.grh.traffic_class), (0x12345, 1, 64, 0x80));
        // Not in the table: -1 with the end-of-table query's errno; dgid was
        // already set, as upstream.
        let g = ipv6_grh(0, 0, 17, 64, "fe80::7", "fe80::99");
        let (r, e, a) = run(&mut c, &wc(IBV_WC_GRH), &g);
        assert_eq!((r, e), (-1, libc::EINVAL));
        assert_eq!(raw(&a.grh.dgid), raw(&gid("fe80::7")));
        // Multicast destination: EINVAL before any lookup.
        let g = ipv6_grh(0, 0, 17, 64, "fe80::7", "ff02::1");
        let (r, e, _) = run(&mut c, &wc(IBV_WC_GRH), &g);
        assert_eq!((r, e), (-1, libc::EINVAL));
        // Neither UDP nor the IB next header.
        let g = ipv6_grh(0, 0, 6, 64, "fe80::7", "fe80::1");
        let (r, e, _) = run(&mut c, &wc(IBV_WC_GRH), &g);
        assert_eq!((r, e), (-1, libc::EPROTONOSUPPORT));
    }

    #[test]
    fn roce_v2_ipv4() {
        let mut c = FakeCtx::new(0);
        // IPv4 header with 20 zero bytes before it (version nibble 0).
        let g = ipv4_grh(0, [10, 0, 2, 99], [10, 0, 2, 15], 0x28, 61, false);
        let (r, _, a) = run(&mut c, &wc(IBV_WC_GRH), &g);
        assert_eq!(r, 0);
        assert_eq!(raw(&a.grh.dgid), raw(&gid("::ffff:10.0.2.99")));
        // Index 4: the RoCE v2 entry of ::ffff:10.0.2.15, not the v1 one at 3.
        assert_eq!((a.grh.sgid_index, a.grh.hop_limit, a.grh.traffic_class, a.grh.flow_label), (4, 61, 0x28, 0));
        assert_eq!((a.is_global, a.dlid, a.port_num), (1, 0x1234, 1));

        // First nibble 6 but a valid IPv4 checksum: still IPv4.
        let g = ipv4_grh(0x60, [10, 0, 2, 99], [10, 0, 2, 15], 0x28, 61, false);
        let (r, _, a) = run(&mut c, &wc(IBV_WC_GRH), &g);
        assert_eq!((r, a.grh.sgid_index, a.grh.hop_limit), (0, 4, 61));
        assert_eq!(a.grh.flow_label, 0);
        // With a bad checksum it is read as IPv6: next header byte 0 is
        // neither UDP nor IB.
        let g = ipv4_grh(0x60, [10, 0, 2, 99], [10, 0, 2, 15], 0x28, 61, true);
        let (r, e, _) = run(&mut c, &wc(IBV_WC_GRH), &g);
        assert_eq!((r, e), (-1, libc::EPROTONOSUPPORT));
        // Multicast destination.
        let g = ipv4_grh(0, [10, 0, 2, 99], [224, 0, 0, 1], 0, 1, false);
        let (r, e, _) = run(&mut c, &wc(IBV_WC_GRH), &g);
        assert_eq!((r, e), (-1, libc::EINVAL));
        // Unknown destination: the lookup runs off the table.
        let g = ipv4_grh(0, [10, 0, 2, 99], [10, 0, 2, 16], 0, 1, false);
        let (r, e, _) = run(&mut c, &wc(IBV_WC_GRH), &g);
        assert_eq!((r, e), (-1, libc::EINVAL));
        // Neither version: EPROTONOSUPPORT.
        let mut g = ipv4_grh(0x50, [10, 0, 2, 99], [10, 0, 2, 15], 0, 1, false);
        // SAFETY: viewing the GRH as its 40 bytes.
        let b: &mut [u8; 40] = unsafe { &mut *(&mut g as *mut ibv_grh).cast() };
        b[20] = 0x55;
        let (r, e, _) = run(&mut c, &wc(IBV_WC_GRH), &g);
        assert_eq!((r, e), (-1, libc::EPROTONOSUPPORT));
    }

    #[test]
    fn upstream_checksum_matches_rfc791_on_valid_headers() {
        for (s, d, tos, ttl) in [([10, 0, 2, 99], [10, 0, 2, 15], 0x28, 61), ([192, 168, 255, 1], [1, 2, 3, 4], 0xff, 255)] {
            let g = ipv4_grh(0x60, s, d, tos, ttl, false);
            assert_eq!(grh_header_version(&grh_bytes(&g)), 4);
            let g = ipv4_grh(0x60, s, d, tos, ttl, true);
            assert_eq!(grh_header_version(&grh_bytes(&g)), 6);
        }
    }

    thread_local! {
        static AH_ATTRS: std::cell::RefCell<Vec<(u16, u8, u8)>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    unsafe extern "C" fn p_create_ah(_pd: *mut ibv_pd, attr: *mut ibv_ah_attr) -> *mut ibv_ah {
        // SAFETY: the caller's attributes.
        let a = unsafe { *attr };
        AH_ATTRS.with(|v| v.borrow_mut().push((a.dlid, a.is_global, a.grh.sgid_index)));
        Box::into_raw(Box::new(ibv_ah { context: ptr::dangling_mut(), pd: ptr::dangling_mut(), handle: 3 }))
    }
    unsafe extern "C" fn p_destroy_ah(ah: *mut ibv_ah) -> c_int {
        // SAFETY: created by p_create_ah.
        drop(unsafe { Box::from_raw(ah) });
        0
    }

    #[test]
    fn create_ah_and_create_ah_from_wc() {
        let mut c = FakeCtx::new(0);
        let mut ops = no_ops();
        ops.create_ah = Some(p_create_ah);
        ops.destroy_ah = Some(p_destroy_ah);
        c.set_ops(&ops);
        let ctx = c.ctx();
        let mut pd = ibv_pd { context: ctx, handle: 1 };
        let mut w = wc(IBV_WC_GRH);
        let mut g = ipv6_grh(0, 0, 17, 64, "fe80::7", "fe80::1");
        // SAFETY: our locals and live context.
        let (ah, _) = with_kernel(kernel(), || unsafe { ibv_create_ah_from_wc(&mut pd, &mut w, &mut g, 1) });
        assert!(!ah.is_null());
        // SAFETY: the provider's AH.
        let a = unsafe { *ah };
        assert_eq!((a.context, a.pd, a.handle), (ctx, &mut pd as *mut ibv_pd, 3));
        AH_ATTRS.with(|v| assert_eq!(*v.borrow(), vec![(0x1234, 1, 1)]));
        // SAFETY: live AH.
        assert_eq!(unsafe { ibv_destroy_ah_v11(ah) }, 0);
        // A failed init creates nothing.
        let mut g = ipv6_grh(0, 0, 17, 64, "fe80::7", "ff02::1");
        // SAFETY: as above.
        let (ah, _) = with_kernel(kernel(), || unsafe { ibv_create_ah_from_wc(&mut pd, &mut w, &mut g, 1) });
        assert!(ah.is_null());
        assert_eq!(errno(), libc::EINVAL);
        AH_ATTRS.with(|v| assert_eq!(v.borrow().len(), 1));
        // Dummy ops, NULLs.
        let mut d = FakeCtx::new(0);
        let mut pd2 = ibv_pd { context: d.ctx(), handle: 1 };
        // SAFETY: all-zero is a valid ibv_ah_attr, a plain C struct.
        let mut attr: ibv_ah_attr = unsafe { zeroed_unchecked() };
        // SAFETY: the dummy ops do not touch their arguments; NULLs are
        // rejected before use.
        unsafe {
            set_errno(0);
            assert!(ibv_create_ah_v11(&mut pd2, &mut attr).is_null());
            assert_eq!(errno(), libc::EOPNOTSUPP);
            let mut ah = ibv_ah { context: d.ctx(), pd: &mut pd2, handle: 0 };
            assert_eq!(ibv_destroy_ah_v11(&mut ah), libc::EOPNOTSUPP);
            set_errno(0);
            assert!(ibv_create_ah_v11(ptr::null_mut(), &mut attr).is_null());
            assert_eq!(errno(), libc::EINVAL);
            assert!(ibv_create_ah_v11(&mut pd2, ptr::null_mut()).is_null());
            assert_eq!(ibv_destroy_ah_v11(ptr::null_mut()), libc::EINVAL);
            assert_eq!(ibv_init_ah_from_wc(ctx, 1, ptr::null_mut(), &mut g, &mut attr), -1);
            assert_eq!(ibv_init_ah_from_wc(ctx, 1, &mut w, ptr::null_mut(), &mut attr), -1);
            assert_eq!(ibv_init_ah_from_wc(ctx, 1, &mut w, &mut g, ptr::null_mut()), -1);
            assert!(ibv_create_ah_from_wc(ptr::null_mut(), &mut w, &mut g, 1).is_null());
            // No context is needed without a GRH, as upstream.
            let mut w0 = wc(0);
            assert_eq!(ibv_init_ah_from_wc(ptr::null_mut(), 1, &mut w0, &mut g, &mut attr), 0);
            // With one it is: EINVAL instead of a crash.
            let mut g6 = ipv6_grh(0, 0, 17, 64, "fe80::7", "fe80::1");
            set_errno(0);
            assert_eq!(ibv_init_ah_from_wc(ptr::null_mut(), 1, &mut w, &mut g6, &mut attr), -1);
            assert_eq!(errno(), libc::EINVAL);
        }
    }

    #[test]
    fn path_record_round_trip_and_ah_attr_copy() {
        // SAFETY: all-zero is a valid ib_user_path_rec, a plain C struct.
        let mut k: ib_user_path_rec = unsafe { zeroed_unchecked() };
        k.dgid = [1; 16];
        k.sgid = [2; 16];
        k.dlid = 0x1234u16.to_be();
        k.slid = 0x5678u16.to_be();
        k.raw_traffic = 1;
        k.flow_label = 0xabcdeu32.to_be();
        k.reversible = 1;
        k.mtu = 4;
        k.pkey = 0xffffu16.to_be();
        k.hop_limit = 64;
        k.traffic_class = 0x20;
        k.numb_path = 1;
        k.sl = 3;
        k.mtu_selector = 2;
        k.rate_selector = 2;
        k.rate = 6;
        k.packet_life_time_selector = 2;
        k.packet_life_time = 18;
        k.preference = 7;
        // SAFETY: all-zero is a valid ibv_sa_path_rec, a plain C struct.
        let mut p: ibv_sa_path_rec = unsafe { zeroed_unchecked() };
        // SAFETY: our locals.
        unsafe { ibv_copy_path_rec_from_kern(&mut p, &mut k) };
        assert_eq!((raw(&p.dgid), raw(&p.sgid)), ([1; 16], [2; 16]));
        assert_eq!((u16::from_be(p.dlid), u16::from_be(p.slid), u32::from_be(p.flow_label)), (0x1234, 0x5678, 0xabcde));
        assert_eq!((p.raw_traffic, p.reversible, p.mtu, p.pkey, p.hop_limit, p.traffic_class), (1, 1, 4, 0xffff, 64, 0x20));
        assert_eq!((p.numb_path, p.sl, p.mtu_selector, p.rate_selector, p.rate), (1, 3, 2, 2, 6));
        assert_eq!((p.packet_life_time_selector, p.packet_life_time, p.preference), (2, 18, 7));
        // SAFETY: all-zero is a valid ib_user_path_rec, a plain C struct.
        let mut back: ib_user_path_rec = unsafe { zeroed_unchecked() };
        // SAFETY: our locals.
        unsafe { ibv_copy_path_rec_to_kern(&mut back, &mut p) };
        assert_eq!(bytes(&back), bytes(&k));

        let mut ka = ib_uverbs_ah_attr { dlid: 7, sl: 1, src_path_bits: 2, static_rate: 3, is_global: 1, port_num: 1, reserved: 0xee, ..Default::default() };
        ka.grh.dgid = [5; 16];
        ka.grh.flow_label = 0x777;
        ka.grh.sgid_index = 2;
        ka.grh.hop_limit = 8;
        ka.grh.traffic_class = 9;
        // SAFETY: all-zero is a valid ibv_ah_attr, a plain C struct.
        let mut a: ibv_ah_attr = unsafe { zeroed_unchecked() };
        // SAFETY: our locals.
        unsafe { ibv_copy_ah_attr_from_kern(&mut a, &mut ka) };
        assert_eq!(raw(&a.grh.dgid), [5; 16]);
        assert_eq!((a.grh.flow_label, a.grh.sgid_index, a.grh.hop_limit, a.grh.traffic_class), (0x777, 2, 8, 9));
        assert_eq!((a.dlid, a.sl, a.src_path_bits, a.static_rate, a.is_global, a.port_num), (7, 1, 2, 3, 1, 1));
        // SAFETY: NULLs are rejected.
        unsafe {
            ibv_copy_path_rec_from_kern(ptr::null_mut(), &mut k);
            ibv_copy_path_rec_to_kern(&mut back, ptr::null_mut());
            ibv_copy_ah_attr_from_kern(ptr::null_mut(), &mut ka);
        }
    }

    fn bytes<T>(v: &T) -> Vec<u8> {
        // SAFETY: viewing a plain struct as its bytes (no padding in ib_user_path_rec).
        unsafe { std::slice::from_raw_parts((v as *const T).cast::<u8>(), std::mem::size_of::<T>()) }.to_vec()
    }
}
