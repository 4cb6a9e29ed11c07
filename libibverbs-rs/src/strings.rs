//! Human-readable names of verbs enums, and the IB rate conversions.
//! The strings are the exact text upstream prints (tools compare byte for byte).

use std::ffi::{c_char, c_int, CStr};

use crate::abi::verbs::*;
use rdma_util::export;

const UNKNOWN: &CStr = c"unknown";

fn lookup(table: &[&'static CStr], idx: i64) -> *const c_char {
    usize::try_from(idx).ok().and_then(|i| table.get(i)).copied().unwrap_or(UNKNOWN).as_ptr()
}

/// Indexed by ibv_node_type (IBV_NODE_CA = 1 .. IBV_NODE_UNSPECIFIED = 7).
const NODE_TYPES: [&CStr; 8] = [
    c"unknown",
    c"InfiniBand channel adapter",
    c"InfiniBand switch",
    c"InfiniBand router",
    c"iWARP NIC",
    c"usNIC",
    c"usNIC UDP",
    c"unspecified",
];

const PORT_STATES: [&CStr; 6] =
    [c"no state change (NOP)", c"down", c"init", c"armed", c"active", c"active defer"];

const EVENT_TYPES: [&CStr; 20] = [
    c"CQ error",
    c"local work queue catastrophic error",
    c"invalid request local work queue error",
    c"local access violation work queue error",
    c"communication established",
    c"send queue drained",
    c"path migrated",
    c"path migration request error",
    c"local catastrophic error",
    c"port active",
    c"port error",
    c"LID change",
    c"P_Key change",
    c"SM change",
    c"SRQ catastrophic error",
    c"SRQ limit reached",
    c"last WQE reached",
    c"client reregistration",
    c"GID table change",
    c"WQ fatal",
];

const WC_STATUSES: [&CStr; 24] = [
    c"success",
    c"local length error",
    c"local QP operation error",
    c"local EE context operation error",
    c"local protection error",
    c"Work Request Flushed Error",
    c"memory management operation error",
    c"bad response error",
    c"local access error",
    c"remote invalid request error",
    c"remote access error",
    c"remote operation error",
    c"transport retry counter exceeded",
    c"RNR retry counter exceeded",
    c"local RDD violation error",
    c"remote invalid RD request",
    c"aborted error",
    c"invalid EE context number",
    c"invalid EE context state",
    c"fatal error",
    c"response timeout error",
    c"general error",
    c"TM error",
    c"TM software rendezvous",
];

export! {
    /// IBVERBS_1.1
    fn ibv_node_type_str(node_type: ibv_node_type) -> *const c_char, on_panic = UNKNOWN.as_ptr();
    { lookup(&NODE_TYPES, node_type as i64) }
}

export! {
    /// IBVERBS_1.1
    fn ibv_port_state_str(port_state: ibv_port_state) -> *const c_char, on_panic = UNKNOWN.as_ptr();
    { lookup(&PORT_STATES, port_state as i64) }
}

export! {
    /// IBVERBS_1.1
    fn ibv_event_type_str(event: ibv_event_type) -> *const c_char, on_panic = UNKNOWN.as_ptr();
    { lookup(&EVENT_TYPES, event as i64) }
}

export! {
    /// IBVERBS_1.1
    fn ibv_wc_status_str(status: ibv_wc_status) -> *const c_char, on_panic = UNKNOWN.as_ptr();
    { lookup(&WC_STATUSES, status as i64) }
}

/// Indexed by ibv_wr_opcode. 12 and 13 have no opcode and no name: upstream's
/// table leaves them NULL and returns that NULL.
const WR_OPCODES: [Option<&CStr>; 16] = [
    Some(c"rdma-write"),
    Some(c"rdma-write-with-imm"),
    Some(c"send"),
    Some(c"send-with-imm"),
    Some(c"rdma-read"),
    Some(c"atomic-cmp-and-swp"),
    Some(c"atomic-fetch-and-add"),
    Some(c"local-inv"),
    Some(c"bind-mw"),
    Some(c"send-with-inv"),
    Some(c"tso"),
    Some(c"driver1"),
    None,
    None,
    Some(c"flush"),
    Some(c"atomic-write"),
];

/// The name of a send opcode, for the providers' debug output.
fn wr_opcode_name(opcode: ibv_wr_opcode) -> *const c_char {
    match WR_OPCODES.get(opcode as usize) {
        Some(Some(name)) => name.as_ptr(),
        Some(None) => std::ptr::null(),
        None => UNKNOWN.as_ptr(),
    }
}

rdma_util::export_versioned! {
    /// IBVERBS_PRIVATE_34, since rdma-core 49 (the rxe and mlx5 providers
    /// of Debian 13 import it).
    fn ibv_wr_opcode_str(opcode: ibv_wr_opcode) -> *const c_char, on_panic = UNKNOWN.as_ptr();
    { wr_opcode_name(opcode) }
}
private_abi_both!(ibv_wr_opcode_str);

/// (rate, multiple of 2.5 Gb/s) for the rates that have an integer multiple.
const RATE_MULT: [(ibv_rate, c_int); 15] = [
    (IBV_RATE_2_5_GBPS, 1),
    (IBV_RATE_5_GBPS, 2),
    (IBV_RATE_10_GBPS, 4),
    (IBV_RATE_20_GBPS, 8),
    (IBV_RATE_30_GBPS, 12),
    (IBV_RATE_40_GBPS, 16),
    (IBV_RATE_60_GBPS, 24),
    (IBV_RATE_80_GBPS, 32),
    (IBV_RATE_120_GBPS, 48),
    (IBV_RATE_28_GBPS, 11),
    (IBV_RATE_50_GBPS, 20),
    (IBV_RATE_400_GBPS, 160),
    (IBV_RATE_600_GBPS, 240),
    (IBV_RATE_800_GBPS, 320),
    (IBV_RATE_1200_GBPS, 480),
];

/// (rate, Mb/s), including the non-integer FDR/EDR-style data rates.
const RATE_MBPS: [(ibv_rate, c_int); 23] = [
    (IBV_RATE_2_5_GBPS, 2500),
    (IBV_RATE_5_GBPS, 5000),
    (IBV_RATE_10_GBPS, 10000),
    (IBV_RATE_20_GBPS, 20000),
    (IBV_RATE_30_GBPS, 30000),
    (IBV_RATE_40_GBPS, 40000),
    (IBV_RATE_60_GBPS, 60000),
    (IBV_RATE_80_GBPS, 80000),
    (IBV_RATE_120_GBPS, 120000),
    (IBV_RATE_14_GBPS, 14062),
    (IBV_RATE_56_GBPS, 56250),
    (IBV_RATE_112_GBPS, 112500),
    (IBV_RATE_168_GBPS, 168750),
    (IBV_RATE_25_GBPS, 25781),
    (IBV_RATE_100_GBPS, 103125),
    (IBV_RATE_200_GBPS, 206250),
    (IBV_RATE_300_GBPS, 309375),
    (IBV_RATE_28_GBPS, 28125),
    (IBV_RATE_50_GBPS, 53125),
    (IBV_RATE_400_GBPS, 425000),
    (IBV_RATE_600_GBPS, 637500),
    (IBV_RATE_800_GBPS, 850000),
    (IBV_RATE_1200_GBPS, 1275000),
];

fn forward(table: &[(ibv_rate, c_int)], rate: ibv_rate) -> c_int {
    table.iter().find(|e| e.0 == rate).map(|e| e.1).unwrap_or(-1)
}

fn backward(table: &[(ibv_rate, c_int)], v: c_int) -> ibv_rate {
    table.iter().find(|e| e.1 == v).map(|e| e.0).unwrap_or(IBV_RATE_MAX)
}

export! {
    /// IBVERBS_1.0: the rate as a multiple of 2.5 Gb/s, or -1.
    fn ibv_rate_to_mult(rate: ibv_rate) -> c_int, on_panic = -1;
    { forward(&RATE_MULT, rate) }
}

export! {
    /// IBVERBS_1.0: inverse of ibv_rate_to_mult; IBV_RATE_MAX when unknown.
    fn mult_to_ibv_rate(mult: c_int) -> ibv_rate, on_panic = IBV_RATE_MAX;
    { backward(&RATE_MULT, mult) }
}

export! {
    /// IBVERBS_1.1: the rate in Mb/s, or -1.
    fn ibv_rate_to_mbps(rate: ibv_rate) -> c_int, on_panic = -1;
    { forward(&RATE_MBPS, rate) }
}

export! {
    /// IBVERBS_1.1: inverse of ibv_rate_to_mbps; IBV_RATE_MAX when unknown.
    fn mbps_to_ibv_rate(mbps: c_int) -> ibv_rate, on_panic = IBV_RATE_MAX;
    { backward(&RATE_MBPS, mbps) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(p: *const c_char) -> &'static str {
        // SAFETY: every table entry is a static C string.
        unsafe { CStr::from_ptr(p) }.to_str().unwrap()
    }

    #[test]
    fn strings() {
        // SAFETY: plain value arguments.
        unsafe {
            assert_eq!(s(ibv_node_type_str(IBV_NODE_CA)), "InfiniBand channel adapter");
            assert_eq!(s(ibv_node_type_str(0)), "unknown");
            assert_eq!(s(ibv_node_type_str(IBV_NODE_UNSPECIFIED)), "unspecified");
            assert_eq!(s(ibv_node_type_str(99)), "unknown");
            assert_eq!(s(ibv_port_state_str(IBV_PORT_ACTIVE)), "active");
            assert_eq!(s(ibv_port_state_str(6)), "unknown");
            assert_eq!(s(ibv_event_type_str(IBV_EVENT_WQ_FATAL)), "WQ fatal");
            assert_eq!(s(ibv_event_type_str(20)), "unknown");
            assert_eq!(s(ibv_wc_status_str(IBV_WC_WR_FLUSH_ERR)), "Work Request Flushed Error");
            assert_eq!(s(ibv_wc_status_str(IBV_WC_TM_RNDV_INCOMPLETE)), "TM software rendezvous");
            assert_eq!(s(ibv_wc_status_str(24)), "unknown");
        }
    }

    #[test]
    fn wr_opcode_names() {
        // SAFETY: plain value arguments; non-NULL results are static C strings.
        unsafe {
            let s = |p: *const c_char| CStr::from_ptr(p).to_str().unwrap();
            assert_eq!(s(ibv_wr_opcode_str(IBV_WR_RDMA_WRITE)), "rdma-write");
            assert_eq!(s(ibv_wr_opcode_str(IBV_WR_SEND_WITH_INV)), "send-with-inv");
            assert_eq!(s(ibv_wr_opcode_str(IBV_WR_DRIVER1)), "driver1");
            assert_eq!(s(ibv_wr_opcode_str(IBV_WR_ATOMIC_WRITE)), "atomic-write");
            assert_eq!(s(ibv_wr_opcode_str(14)), "flush");
            assert!(ibv_wr_opcode_str(12).is_null());
            assert!(ibv_wr_opcode_str(13).is_null());
            assert_eq!(s(ibv_wr_opcode_str(16)), "unknown");
            assert_eq!(s(ibv_wr_opcode_str(u32::MAX as ibv_wr_opcode)), "unknown");
        }
    }

    #[test]
    fn rates_round_trip() {
        // SAFETY: plain value arguments.
        unsafe {
            assert_eq!(ibv_rate_to_mult(IBV_RATE_10_GBPS), 4);
            assert_eq!(ibv_rate_to_mult(IBV_RATE_14_GBPS), -1);
            assert_eq!(mult_to_ibv_rate(480), IBV_RATE_1200_GBPS);
            assert_eq!(mult_to_ibv_rate(3), IBV_RATE_MAX);
            assert_eq!(ibv_rate_to_mbps(IBV_RATE_100_GBPS), 103125);
            assert_eq!(mbps_to_ibv_rate(25781), IBV_RATE_25_GBPS);
            assert_eq!(mbps_to_ibv_rate(1), IBV_RATE_MAX);
            for (r, m) in RATE_MBPS {
                assert_eq!(mbps_to_ibv_rate(ibv_rate_to_mbps(r)), r);
                assert_eq!(ibv_rate_to_mbps(r), m);
            }
        }
    }
}
