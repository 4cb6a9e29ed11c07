//! Address handle attributes for datagram rsockets.
//!
//! A deliberate difference from upstream v44 (docs/architecture.md,
//! "Datagram rsockets on RoCE" in the rsockets section): upstream builds every UD QP's address handle
//! for itself from the port's LID alone, and the one for a resolved peer with
//! a global route only when the path has more than one hop. A RoCE port
//! (Ethernet link layer) addresses everything by GID, so the kernel refuses an
//! address handle without a global route (EINVAL) and upstream's datagram
//! rsockets cannot get a QP there at all. Here, on an Ethernet port both
//! address handles carry a global route; on InfiniBand the attributes are
//! exactly upstream's. Nothing on the wire changes (the datagram header and
//! the QPN exchange are upstream's).
//!
//! The choices are pure functions of what the port and the route report, so
//! they are unit-tested without a device.

use crate::abi::verbs::*;

/// Hop limit of the global route in a QP's address handle for itself on
/// RoCE: the destination is the local port, and 64 is the IPv4/IPv6 default
/// the kernel's routes report.
const SELF_HOP_LIMIT: u8 = 64;

/// Hop limit used on RoCE when a resolved route reports none (0).
const DEFAULT_HOP_LIMIT: u8 = 64;

fn zeroed_attr() -> ibv_ah_attr {
    // SAFETY: ibv_ah_attr holds integers and byte arrays only; all-zero is valid.
    unsafe { core::mem::zeroed() }
}

/// The QP's own address handle (upstream's `ds_add_qp_dest`).
///
/// InfiniBand (and anything not Ethernet): destination LID = the port's
/// LID, the port number, nothing else, as upstream. Ethernet (RoCE): a
/// global route to the QP's own source GID `own_gid` at GID table index
/// `sgid_index`; `None` (the GID is not in the table) keeps upstream's
/// attributes, which the port will refuse as upstream's are.
pub(crate) fn self_ah_attr(link_layer: u8, port_lid: u16, port: u8, own_gid: Option<(ibv_gid, u8)>) -> ibv_ah_attr {
    let mut a = zeroed_attr();
    a.dlid = port_lid;
    a.port_num = port;
    if link_layer == IBV_LINK_LAYER_ETHERNET {
        if let Some((gid, idx)) = own_gid {
            a.is_global = 1;
            a.grh.dgid = gid;
            a.grh.sgid_index = idx;
            a.grh.hop_limit = SELF_HOP_LIMIT;
        }
    }
    a
}

/// The address handle for a resolved peer (upstream's `udp_svc_create_ah`)
/// from the route's path record `p` (fields big-endian where the SA's are).
///
/// `sgid_index`: the GID table index of `p.sgid`; `path_bits`: the port's
/// LMC mask; `port`: the port the route uses. A global route when the path
/// has more than one hop (upstream) or, whatever the hop count, on an
/// Ethernet port, where a hop limit of 0 becomes [`DEFAULT_HOP_LIMIT`].
pub(crate) fn path_ah_attr(link_layer: u8, p: &ibv_sa_path_rec, sgid_index: u8, path_bits: u8, port: u8) -> ibv_ah_attr {
    let mut a = zeroed_attr();
    let roce = link_layer == IBV_LINK_LAYER_ETHERNET;
    if p.hop_limit > 1 || roce {
        a.is_global = 1;
        a.grh.dgid = p.dgid;
        a.grh.flow_label = u32::from_be(p.flow_label);
        a.grh.sgid_index = sgid_index;
        a.grh.hop_limit = if roce && p.hop_limit == 0 { DEFAULT_HOP_LIMIT } else { p.hop_limit };
        a.grh.traffic_class = p.traffic_class;
    }
    a.dlid = u16::from_be(p.dlid);
    a.sl = p.sl;
    a.src_path_bits = (u16::from_be(p.slid) as u8) & path_bits;
    a.static_rate = p.rate;
    a.port_num = port;
    a
}

/// Which GID table index to use for the source GID `want` on RoCE, from the
/// table's entries `(index, gid, type)` in index order: the RoCE v2 entry if
/// there is one (the type the kernel's RDMA CM uses by default), else the
/// first entry holding the GID; `None` if no entry does.
fn pick_sgid_index<I>(entries: I, want: &[u8; 16]) -> Option<u8>
where
    I: IntoIterator<Item = (u32, [u8; 16], u32)>,
{
    let mut first = None;
    for (idx, gid, ty) in entries {
        if &gid != want || idx > u8::MAX as u32 {
            continue;
        }
        if ty == IBV_GID_TYPE_ROCE_V2 {
            return Some(idx as u8);
        }
        first.get_or_insert(idx as u8);
    }
    first
}

/// The largest UD message (ds header plus payload) a QP on a port with
/// active MTU `active_mtu` (an `ibv_mtu` value) can send: the MTU, at most
/// the `slot` size of a datagram buffer. A UD send beyond the path MTU fails
/// in the device and leaves the QP in an error state (seen on rxe: every
/// later send on the socket is lost), so datagram rsockets refuse it with
/// EMSGSIZE instead. On RoCE over a 1500-byte Ethernet the MTU is 1024;
/// on InfiniBand ports of 2048 bytes or more this never limits anything.
pub(crate) fn ud_msg_limit(active_mtu: u32, slot: u32) -> u32 {
    match active_mtu {
        IBV_MTU_256..=IBV_MTU_4096 => slot.min(128u32 << active_mtu),
        _ => slot,
    }
}

/// The GID table index of `want` on `port` of `verbs` (see
/// [`pick_sgid_index`]), reading the first `tbl_len` entries; entries that
/// cannot be read (unused slots) are skipped.
///
/// # Safety
/// `verbs` is a live device context and `port` one of its ports.
pub(crate) unsafe fn find_sgid_index(verbs: *mut ibv_context, port: u8, tbl_len: i32, want: &ibv_gid) -> Option<u8> {
    // SAFETY: a gid is 16 plain bytes.
    let want = unsafe { want.raw };
    let entries = (0..tbl_len.clamp(0, 256) as u32).filter_map(|i| {
        // SAFETY: all-zero is a valid entry.
        let mut e: ibv_gid_entry = unsafe { core::mem::zeroed() };
        // SAFETY: live context (the contract); a local entry of the size
        // passed.
        let r = unsafe { crate::verbs::_ibv_query_gid_ex(verbs, u32::from(port), i, &mut e, 0, core::mem::size_of::<ibv_gid_entry>()) };
        // SAFETY: a gid is 16 plain bytes, and e is initialised (zeroed, or
        // filled by a successful query).
        (r == 0).then_some((i, unsafe { e.gid.raw }, e.gid_type))
    });
    pick_sgid_index(entries, &want)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gid(last: u8) -> ibv_gid {
        let mut raw = [0u8; 16];
        raw[10] = 0xff;
        raw[11] = 0xff;
        raw[12..].copy_from_slice(&[10, 0, 2, last]);
        ibv_gid { raw }
    }

    fn raw(g: &ibv_gid) -> [u8; 16] {
        // SAFETY: a gid is 16 plain bytes.
        unsafe { g.raw }
    }

    #[test]
    fn self_ah_on_infiniband_is_upstreams_lid_only() {
        let a = self_ah_attr(IBV_LINK_LAYER_INFINIBAND, 0x1234, 1, Some((gid(15), 3)));
        assert_eq!(a.is_global, 0);
        assert_eq!(a.dlid, 0x1234);
        assert_eq!(a.port_num, 1);
        assert_eq!(raw(&a.grh.dgid), [0; 16]);
        assert_eq!((a.grh.sgid_index, a.grh.hop_limit, a.sl, a.static_rate), (0, 0, 0, 0));
        // An unspecified link layer (old kernels report 0 for IB) too.
        assert_eq!(self_ah_attr(IBV_LINK_LAYER_UNSPECIFIED, 7, 2, Some((gid(15), 3))).is_global, 0);
    }

    #[test]
    fn self_ah_on_roce_has_a_global_route_to_the_own_gid() {
        let a = self_ah_attr(IBV_LINK_LAYER_ETHERNET, 0, 1, Some((gid(15), 1)));
        assert_eq!(a.is_global, 1);
        assert_eq!(raw(&a.grh.dgid), raw(&gid(15)));
        assert_eq!(a.grh.sgid_index, 1);
        assert_eq!(a.grh.hop_limit, SELF_HOP_LIMIT);
        assert_eq!(a.port_num, 1);
        assert_eq!(a.dlid, 0);
        // No GID found: upstream's attributes, unchanged.
        let b = self_ah_attr(IBV_LINK_LAYER_ETHERNET, 0, 1, None);
        assert_eq!(b.is_global, 0);
    }

    fn path(hop_limit: u8) -> ibv_sa_path_rec {
        // SAFETY: all-zero is a valid path record.
        let mut p: ibv_sa_path_rec = unsafe { core::mem::zeroed() };
        p.dgid = gid(20);
        p.sgid = gid(15);
        p.dlid = 0x0201u16.to_be();
        p.slid = 0x0107u16.to_be();
        p.flow_label = 0x12345u32.to_be();
        p.hop_limit = hop_limit;
        p.traffic_class = 0x20;
        p.sl = 3;
        p.rate = 7;
        p
    }

    #[test]
    fn path_ah_on_infiniband_follows_the_hop_count_as_upstream() {
        let local = path_ah_attr(IBV_LINK_LAYER_INFINIBAND, &path(0), 4, 0x3, 1);
        assert_eq!(local.is_global, 0);
        assert_eq!(raw(&local.grh.dgid), [0; 16]);
        assert_eq!(local.dlid, 0x0201);
        assert_eq!(local.src_path_bits, 0x07 & 0x3);
        assert_eq!((local.sl, local.static_rate, local.port_num), (3, 7, 1));
        assert_eq!(path_ah_attr(IBV_LINK_LAYER_INFINIBAND, &path(1), 4, 0, 1).is_global, 0);
        let routed = path_ah_attr(IBV_LINK_LAYER_INFINIBAND, &path(2), 4, 0, 1);
        assert_eq!(routed.is_global, 1);
        assert_eq!(routed.grh.hop_limit, 2);
        assert_eq!(routed.grh.flow_label, 0x12345);
        assert_eq!(routed.grh.sgid_index, 4);
        assert_eq!(routed.grh.traffic_class, 0x20);
        assert_eq!(raw(&routed.grh.dgid), raw(&gid(20)));
    }

    #[test]
    fn path_ah_on_roce_is_always_global() {
        for hl in [0u8, 1, 64] {
            let a = path_ah_attr(IBV_LINK_LAYER_ETHERNET, &path(hl), 1, 0, 1);
            assert_eq!(a.is_global, 1, "hop limit {hl}");
            assert_eq!(raw(&a.grh.dgid), raw(&gid(20)));
            assert_eq!(a.grh.sgid_index, 1);
            assert_eq!(a.grh.hop_limit, if hl == 0 { DEFAULT_HOP_LIMIT } else { hl });
        }
    }

    #[test]
    fn ud_message_limit_is_the_mtu_within_the_slot() {
        assert_eq!(ud_msg_limit(IBV_MTU_256, 2048), 256);
        assert_eq!(ud_msg_limit(IBV_MTU_1024, 2048), 1024);
        assert_eq!(ud_msg_limit(IBV_MTU_2048, 2048), 2048);
        assert_eq!(ud_msg_limit(IBV_MTU_4096, 2048), 2048);
        assert_eq!(ud_msg_limit(IBV_MTU_4096, 8192), 4096);
        // Unknown values: the slot, as upstream (no limit of its own).
        assert_eq!(ud_msg_limit(0, 2048), 2048);
        assert_eq!(ud_msg_limit(9, 2048), 2048);
    }

    #[test]
    fn sgid_index_prefers_roce_v2_then_first_match() {
        let want = raw(&gid(15));
        let other = raw(&gid(16));
        let table = [
            (0, other, IBV_GID_TYPE_ROCE_V1),
            (1, other, IBV_GID_TYPE_ROCE_V2),
            (2, want, IBV_GID_TYPE_ROCE_V1),
            (3, want, IBV_GID_TYPE_ROCE_V2),
        ];
        assert_eq!(pick_sgid_index(table, &want), Some(3));
        assert_eq!(pick_sgid_index(table[..3].iter().copied(), &want), Some(2));
        assert_eq!(pick_sgid_index(table[..2].iter().copied(), &want), None);
        // IB-type entries: the first match.
        assert_eq!(pick_sgid_index([(5, want, IBV_GID_TYPE_IB), (6, want, IBV_GID_TYPE_IB)], &want), Some(5));
    }
}
