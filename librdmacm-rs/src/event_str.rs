//! rdma_event_str: the fixed names of the CM event types.
use core::ffi::{c_char, c_int};

use crate::abi::cma::rdma_cm_event_type;

/// Names indexed by `enum rdma_cm_event_type` (rdma_cma.h), NUL-terminated:
/// rdma-core 65's names, which add the two address-resolution outcomes to
/// 44's (a program of Debian 12 or 13 never sees those values). USER and
/// INTERNAL have no name there either.
const NAMES: [&[u8]; 18] = [
    b"RDMA_CM_EVENT_ADDR_RESOLVED\0",
    b"RDMA_CM_EVENT_ADDR_ERROR\0",
    b"RDMA_CM_EVENT_ROUTE_RESOLVED\0",
    b"RDMA_CM_EVENT_ROUTE_ERROR\0",
    b"RDMA_CM_EVENT_CONNECT_REQUEST\0",
    b"RDMA_CM_EVENT_CONNECT_RESPONSE\0",
    b"RDMA_CM_EVENT_CONNECT_ERROR\0",
    b"RDMA_CM_EVENT_UNREACHABLE\0",
    b"RDMA_CM_EVENT_REJECTED\0",
    b"RDMA_CM_EVENT_ESTABLISHED\0",
    b"RDMA_CM_EVENT_DISCONNECTED\0",
    b"RDMA_CM_EVENT_DEVICE_REMOVAL\0",
    b"RDMA_CM_EVENT_MULTICAST_JOIN\0",
    b"RDMA_CM_EVENT_MULTICAST_ERROR\0",
    b"RDMA_CM_EVENT_ADDR_CHANGE\0",
    b"RDMA_CM_EVENT_TIMEWAIT_EXIT\0",
    b"RDMA_CM_EVENT_ADDRINFO_RESOLVED\0",
    b"RDMA_CM_EVENT_ADDRINFO_ERROR\0",
];

/// The name of an event type, or "UNKNOWN EVENT" for values outside the enum.
fn event_name(event: c_int) -> &'static [u8] {
    usize::try_from(event)
        .ok()
        .and_then(|i| NAMES.get(i).copied())
        .unwrap_or(b"UNKNOWN EVENT\0")
}

rdma_util::export! {
    /// Returns a static string naming `event`.
    fn rdma_event_str(event: rdma_cm_event_type) -> *const c_char, on_panic = c"UNKNOWN EVENT".as_ptr();
    {
        // The header's type is the enum (unsigned int); the value is looked
        // up as C's int, as before: the same bits, the same answer.
        event_name(event as c_int).as_ptr().cast()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_enum_and_unknown_values_get_the_fallback() {
        assert_eq!(event_name(0), b"RDMA_CM_EVENT_ADDR_RESOLVED\0");
        assert_eq!(event_name(15), b"RDMA_CM_EVENT_TIMEWAIT_EXIT\0");
        assert_eq!(event_name(16), b"RDMA_CM_EVENT_ADDRINFO_RESOLVED\0");
        assert_eq!(event_name(17), b"RDMA_CM_EVENT_ADDRINFO_ERROR\0");
        // USER and INTERNAL are unnamed, as in rdma-core 65.
        assert_eq!(event_name(18), b"UNKNOWN EVENT\0");
        assert_eq!(event_name(19), b"UNKNOWN EVENT\0");
        assert_eq!(event_name(-1), b"UNKNOWN EVENT\0");
    }
}
