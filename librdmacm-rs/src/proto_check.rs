//! Each exported function has the C signature its prototype in
//! `rdma_abi::proto` gives, so the generated headers declare what the
//! library defines: a function whose Rust signature drifts from the
//! prototype stops this crate from compiling.

// Not checked here: the calls that wait (for the kernel, a peer or a
// poll) are `extern "C-unwind"`, so that a thread cancelled inside them
// unwinds through our frames, and a C-unwind function has a different
// Rust type from the prototype's; rfcntl is C-variadic and is defined in
// C. They are: raccept, rdma_accept, rdma_connect, rdma_disconnect, rdma_get_cm_event, rdma_get_request, rdma_join_multicast, rdma_join_multicast_ex, rdma_resolve_addr, rdma_resolve_route, rfcntl, rpoll, rselect.

macro_rules! same_signature {
    ($($proto:path => $f:path),* $(,)?) => {
        $(const _: $proto = $f;)*
    };
}

same_signature! {
    rdma_abi::proto::rdma_cma::rdma_create_event_channel => crate::cma::rdma_create_event_channel,
    rdma_abi::proto::rdma_cma::rdma_destroy_event_channel => crate::id::rdma_destroy_event_channel,
    rdma_abi::proto::rdma_cma::rdma_create_id => crate::cma::rdma_create_id,
    rdma_abi::proto::rdma_cma::rdma_create_ep => crate::ep::rdma_create_ep,
    rdma_abi::proto::rdma_cma::rdma_destroy_ep => crate::ep::rdma_destroy_ep,
    rdma_abi::proto::rdma_cma::rdma_destroy_id => crate::id::rdma_destroy_id,
    rdma_abi::proto::rdma_cma::rdma_bind_addr => crate::addr::rdma_bind_addr,
    rdma_abi::proto::rdma_cma::rdma_create_qp => crate::qp::rdma_create_qp,
    rdma_abi::proto::rdma_cma::rdma_create_qp_ex => crate::qp::rdma_create_qp_ex,
    rdma_abi::proto::rdma_cma::rdma_destroy_qp => crate::qp::rdma_destroy_qp,
    rdma_abi::proto::rdma_cma::rdma_establish => crate::qp::rdma_establish,
    rdma_abi::proto::rdma_cma::rdma_listen => crate::conn::rdma_listen,
    rdma_abi::proto::rdma_cma::rdma_reject => crate::conn::rdma_reject,
    rdma_abi::proto::rdma_cma::rdma_reject_ece => crate::conn::rdma_reject_ece,
    rdma_abi::proto::rdma_cma::rdma_notify => crate::conn::rdma_notify,
    rdma_abi::proto::rdma_cma::rdma_leave_multicast => crate::mcast::rdma_leave_multicast,
    rdma_abi::proto::rdma_cma::rdma_ack_cm_event => crate::id::rdma_ack_cm_event,
    rdma_abi::proto::rdma_cma::rdma_get_src_port => crate::addr::rdma_get_src_port,
    rdma_abi::proto::rdma_cma::rdma_get_dst_port => crate::addr::rdma_get_dst_port,
    rdma_abi::proto::rdma_cma::rdma_get_devices => crate::cma::rdma_get_devices,
    rdma_abi::proto::rdma_cma::rdma_free_devices => crate::devices::rdma_free_devices,
    rdma_abi::proto::rdma_cma::rdma_event_str => crate::event_str::rdma_event_str,
    rdma_abi::proto::rdma_cma::rdma_set_option => crate::options::rdma_set_option,
    rdma_abi::proto::rdma_cma::rdma_migrate_id => crate::id::rdma_migrate_id,
    rdma_abi::proto::rdma_cma::rdma_getaddrinfo => crate::cma::rdma_getaddrinfo,
    rdma_abi::proto::rdma_cma::rdma_freeaddrinfo => crate::addrinfo::rdma_freeaddrinfo,
    rdma_abi::proto::rdma_cma::rdma_init_qp_attr => crate::qp::rdma_init_qp_attr,
    rdma_abi::proto::rdma_cma::rdma_set_local_ece => crate::qp::rdma_set_local_ece,
    rdma_abi::proto::rdma_cma::rdma_get_remote_ece => crate::qp::rdma_get_remote_ece,
    rdma_abi::proto::rdma_cma::rdma_resolve_addrinfo => crate::resolve_ai::rdma_resolve_addrinfo,
    rdma_abi::proto::rdma_cma::rdma_query_addrinfo => crate::resolve_ai::rdma_query_addrinfo,
    rdma_abi::proto::rdma_cma::rdma_write_cm_event => crate::event::rdma_write_cm_event,
    rdma_abi::proto::rdma_verbs::rdma_create_srq => crate::qp::rdma_create_srq,
    rdma_abi::proto::rdma_verbs::rdma_create_srq_ex => crate::qp::rdma_create_srq_ex,
    rdma_abi::proto::rdma_verbs::rdma_destroy_srq => crate::qp::rdma_destroy_srq,
    rdma_abi::proto::rsocket::rsocket => crate::rsocket::api::rsocket,
    rdma_abi::proto::rsocket::rbind => crate::rsocket::api::rbind,
    rdma_abi::proto::rsocket::rlisten => crate::rsocket::api::rlisten,
    rdma_abi::proto::rsocket::rconnect => crate::rsocket::api::rconnect,
    rdma_abi::proto::rsocket::rshutdown => crate::rsocket::api::rshutdown,
    rdma_abi::proto::rsocket::rclose => crate::rsocket::api::rclose,
    rdma_abi::proto::rsocket::rrecv => crate::rsocket::api::rrecv,
    rdma_abi::proto::rsocket::rrecvfrom => crate::rsocket::api::rrecvfrom,
    rdma_abi::proto::rsocket::rrecvmsg => crate::rsocket::api::rrecvmsg,
    rdma_abi::proto::rsocket::rsend => crate::rsocket::api::rsend,
    rdma_abi::proto::rsocket::rsendto => crate::rsocket::api::rsendto,
    rdma_abi::proto::rsocket::rsendmsg => crate::rsocket::api::rsendmsg,
    rdma_abi::proto::rsocket::rread => crate::rsocket::api::rread,
    rdma_abi::proto::rsocket::rreadv => crate::rsocket::api::rreadv,
    rdma_abi::proto::rsocket::rwrite => crate::rsocket::api::rwrite,
    rdma_abi::proto::rsocket::rwritev => crate::rsocket::api::rwritev,
    rdma_abi::proto::rsocket::rgetpeername => crate::rsocket::api::rgetpeername,
    rdma_abi::proto::rsocket::rgetsockname => crate::rsocket::api::rgetsockname,
    rdma_abi::proto::rsocket::rsetsockopt => crate::rsocket::api::rsetsockopt,
    rdma_abi::proto::rsocket::rgetsockopt => crate::rsocket::api::rgetsockopt,
    rdma_abi::proto::rsocket::riomap => crate::rsocket::api::riomap,
    rdma_abi::proto::rsocket::riounmap => crate::rsocket::api::riounmap,
    rdma_abi::proto::rsocket::riowrite => crate::rsocket::api::riowrite,
    rdma_abi::proto::rsocket::repoll_create => crate::rsocket::api::repoll_create,
    rdma_abi::proto::rsocket::repoll_ctl => crate::rsocket::api::repoll_ctl,
    rdma_abi::proto::rsocket::repoll_wait => crate::rsocket::api::repoll_wait,
}
