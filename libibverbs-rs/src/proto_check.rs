//! Each exported function has the C signature its prototype in
//! `rdma_abi::proto` gives, so the generated headers declare what the
//! library defines: a function whose Rust signature drifts from the
//! prototype stops this crate from compiling.

// Not checked here: ibv_qp_to_qp_ex, which returns the library's own
// view of `struct ibv_qp_ex` (rdma-core 44's layout, a prefix of 65's that
// the prototype names); C sees one type, `struct ibv_qp_ex *`.

macro_rules! same_signature {
    ($($proto:path => $f:path),* $(,)?) => {
        $(const _: $proto = $f;)*
    };
}

same_signature! {
    rdma_abi::proto::verbs::ibv_wc_status_str => crate::strings::ibv_wc_status_str,
    rdma_abi::proto::verbs::ibv_rate_to_mult => crate::strings::ibv_rate_to_mult,
    rdma_abi::proto::verbs::mult_to_ibv_rate => crate::strings::mult_to_ibv_rate,
    rdma_abi::proto::verbs::ibv_rate_to_mbps => crate::strings::ibv_rate_to_mbps,
    rdma_abi::proto::verbs::mbps_to_ibv_rate => crate::strings::mbps_to_ibv_rate,
    rdma_abi::proto::verbs::ibv_wr_opcode_str => crate::strings::ibv_wr_opcode_str,
    rdma_abi::proto::verbs::ibv_get_device_list => crate::device::ibv_get_device_list_v11,
    rdma_abi::proto::verbs::ibv_free_device_list => crate::device::ibv_free_device_list_v11,
    rdma_abi::proto::verbs::ibv_get_device_name => crate::device::ibv_get_device_name_v11,
    rdma_abi::proto::verbs::ibv_get_device_index => crate::device::ibv_get_device_index,
    rdma_abi::proto::verbs::ibv_get_device_guid => crate::device::ibv_get_device_guid_v11,
    rdma_abi::proto::verbs::ibv_open_device => crate::context::ibv_open_device_v11,
    rdma_abi::proto::verbs::ibv_close_device => crate::context::ibv_close_device_v11,
    rdma_abi::proto::verbs::ibv_import_device => crate::import::ibv_import_device,
    rdma_abi::proto::verbs::ibv_import_pd => crate::import::ibv_import_pd,
    rdma_abi::proto::verbs::ibv_unimport_pd => crate::import::ibv_unimport_pd,
    rdma_abi::proto::verbs::ibv_import_mr => crate::import::ibv_import_mr,
    rdma_abi::proto::verbs::ibv_unimport_mr => crate::import::ibv_unimport_mr,
    rdma_abi::proto::verbs::ibv_import_dm => crate::import::ibv_import_dm,
    rdma_abi::proto::verbs::ibv_unimport_dm => crate::import::ibv_unimport_dm,
    rdma_abi::proto::verbs::ibv_get_async_event => crate::context::ibv_get_async_event_v11,
    rdma_abi::proto::verbs::ibv_ack_async_event => crate::context::ibv_ack_async_event_v11,
    rdma_abi::proto::verbs::ibv_query_device => crate::query::ibv_query_device_v11,
    rdma_abi::proto::verbs::ibv_query_port => crate::query::ibv_query_port_v11,
    rdma_abi::proto::verbs::ibv_query_port_speed => crate::query::ibv_query_port_speed,
    rdma_abi::proto::verbs::ibv_query_gid => crate::query::ibv_query_gid_v11,
    rdma_abi::proto::verbs::_ibv_query_gid_ex => crate::query::_ibv_query_gid_ex,
    rdma_abi::proto::verbs::_ibv_query_gid_table => crate::query::_ibv_query_gid_table,
    rdma_abi::proto::verbs::ibv_query_pkey => crate::query::ibv_query_pkey_v11,
    rdma_abi::proto::verbs::ibv_get_pkey_index => crate::query::ibv_get_pkey_index,
    rdma_abi::proto::verbs::ibv_alloc_pd => crate::pd::ibv_alloc_pd_v11,
    rdma_abi::proto::verbs::ibv_dealloc_pd => crate::pd::ibv_dealloc_pd_v11,
    rdma_abi::proto::verbs::ibv_reg_mr_iova2 => crate::mr::ibv_reg_mr_iova2,
    rdma_abi::proto::verbs::ibv_reg_mr => crate::mr::ibv_reg_mr_v11,
    rdma_abi::proto::verbs::ibv_reg_mr_iova => crate::mr::ibv_reg_mr_iova,
    rdma_abi::proto::verbs::ibv_reg_dmabuf_mr => crate::mr::ibv_reg_dmabuf_mr,
    rdma_abi::proto::verbs::ibv_reg_mr_ex => crate::mr::ibv_reg_mr_ex,
    rdma_abi::proto::verbs::ibv_rereg_mr => crate::mr::ibv_rereg_mr,
    rdma_abi::proto::verbs::ibv_dereg_mr => crate::mr::ibv_dereg_mr_v11,
    rdma_abi::proto::verbs::ibv_create_comp_channel => crate::channel::ibv_create_comp_channel,
    rdma_abi::proto::verbs::ibv_destroy_comp_channel => crate::channel::ibv_destroy_comp_channel,
    rdma_abi::proto::verbs::ibv_dm_export_dmabuf_fd => crate::dm::ibv_dm_export_dmabuf_fd,
    rdma_abi::proto::verbs::ibv_create_cq => crate::cq::ibv_create_cq_v11,
    rdma_abi::proto::verbs::ibv_resize_cq => crate::cq::ibv_resize_cq_v11,
    rdma_abi::proto::verbs::ibv_destroy_cq => crate::cq::ibv_destroy_cq_v11,
    rdma_abi::proto::verbs::ibv_get_cq_event => crate::channel::ibv_get_cq_event_v11,
    rdma_abi::proto::verbs::ibv_ack_cq_events => crate::channel::ibv_ack_cq_events_v11,
    rdma_abi::proto::verbs::_ibv_query_comp_cntr_caps => crate::comp_cntr::_ibv_query_comp_cntr_caps,
    rdma_abi::proto::verbs::ibv_create_comp_cntr => crate::comp_cntr::ibv_create_comp_cntr,
    rdma_abi::proto::verbs::ibv_destroy_comp_cntr => crate::comp_cntr::ibv_destroy_comp_cntr,
    rdma_abi::proto::verbs::ibv_set_comp_cntr => crate::comp_cntr::ibv_set_comp_cntr,
    rdma_abi::proto::verbs::ibv_set_err_comp_cntr => crate::comp_cntr::ibv_set_err_comp_cntr,
    rdma_abi::proto::verbs::ibv_inc_comp_cntr => crate::comp_cntr::ibv_inc_comp_cntr,
    rdma_abi::proto::verbs::ibv_inc_err_comp_cntr => crate::comp_cntr::ibv_inc_err_comp_cntr,
    rdma_abi::proto::verbs::ibv_read_comp_cntr => crate::comp_cntr::ibv_read_comp_cntr,
    rdma_abi::proto::verbs::ibv_read_err_comp_cntr => crate::comp_cntr::ibv_read_err_comp_cntr,
    rdma_abi::proto::verbs::ibv_create_srq => crate::srq::ibv_create_srq_v11,
    rdma_abi::proto::verbs::ibv_modify_srq => crate::srq::ibv_modify_srq_v11,
    rdma_abi::proto::verbs::ibv_query_srq => crate::srq::ibv_query_srq_v11,
    rdma_abi::proto::verbs::ibv_destroy_srq => crate::srq::ibv_destroy_srq_v11,
    rdma_abi::proto::verbs::ibv_create_qp => crate::qp::ibv_create_qp_v11,
    rdma_abi::proto::verbs::ibv_alloc_buf => crate::buf::ibv_alloc_buf,
    rdma_abi::proto::verbs::ibv_export_buf_dmabuf_fd => crate::buf::ibv_export_buf_dmabuf_fd,
    rdma_abi::proto::verbs::ibv_free_buf => crate::buf::ibv_free_buf,
    rdma_abi::proto::verbs::ibv_reg_buf_mr => crate::mr::ibv_reg_buf_mr,
    rdma_abi::proto::verbs::ibv_alloc_dmah => crate::dmah::ibv_alloc_dmah,
    rdma_abi::proto::verbs::ibv_dealloc_dmah => crate::dmah::ibv_dealloc_dmah,
    rdma_abi::proto::verbs::ibv_modify_qp => crate::qp::ibv_modify_qp_v11,
    rdma_abi::proto::verbs::ibv_qp_attach_comp_cntr => crate::comp_cntr::ibv_qp_attach_comp_cntr,
    rdma_abi::proto::verbs::ibv_query_qp_data_in_order => crate::qp::ibv_query_qp_data_in_order,
    rdma_abi::proto::verbs::ibv_query_qp => crate::qp::ibv_query_qp_v11,
    rdma_abi::proto::verbs::ibv_destroy_qp => crate::qp::ibv_destroy_qp_v11,
    rdma_abi::proto::verbs::ibv_create_ah => crate::ah::ibv_create_ah_v11,
    rdma_abi::proto::verbs::ibv_init_ah_from_wc => crate::ah::ibv_init_ah_from_wc,
    rdma_abi::proto::verbs::ibv_create_ah_from_wc => crate::ah::ibv_create_ah_from_wc,
    rdma_abi::proto::verbs::ibv_destroy_ah => crate::ah::ibv_destroy_ah_v11,
    rdma_abi::proto::verbs::ibv_attach_mcast => crate::mcast::ibv_attach_mcast_v11,
    rdma_abi::proto::verbs::ibv_detach_mcast => crate::mcast::ibv_detach_mcast_v11,
    rdma_abi::proto::verbs::ibv_fork_init => crate::fork::ibv_fork_init,
    rdma_abi::proto::verbs::ibv_is_fork_initialized => crate::fork::ibv_is_fork_initialized,
    rdma_abi::proto::verbs::ibv_node_type_str => crate::strings::ibv_node_type_str,
    rdma_abi::proto::verbs::ibv_port_state_str => crate::strings::ibv_port_state_str,
    rdma_abi::proto::verbs::ibv_event_type_str => crate::strings::ibv_event_type_str,
    rdma_abi::proto::verbs::ibv_resolve_eth_l2_from_gid => crate::neigh::ibv_resolve_eth_l2_from_gid,
    rdma_abi::proto::verbs::ibv_set_ece => crate::qp::ibv_set_ece,
    rdma_abi::proto::verbs::ibv_query_ece => crate::qp::ibv_query_ece,
}

// The private ABIs: each export bound at IBVERBS_PRIVATE_34 has the type of
// its prototype in rdma_abi::proto::driver::pabi34, each bound at
// IBVERBS_PRIVATE_65 the type of pabi65's. The Rust providers call these
// functions through the same types, so neither side can drift from the
// other. Where one body serves both versions (private_abi_both!) and the
// two prototypes are one type, it is checked against both.
//
// Not checked here:
// - __verbs_log and ibv_read_ibdev_sysfs_file (both versions): C-variadic,
//   so defined in csrc/variadic.c, which stable Rust cannot check against a
//   Rust type;
// - verbs_allow_disassociate_destroy: a variable (a byte with two versioned
//   names, cmd/mod.rs), not a function;
// - ibv_cmd_query_port, ibv_cmd_create_qp_ex and ibv_cmd_open_qp at
//   IBVERBS_PRIVATE_65: one body for both versions (private_abi_both!),
//   typed with 44's `ibv_port_attr` / `verbs_qp`; the body tells a 65
//   caller's larger structure apart by the context's pabi (pabi.rs,
//   `vqp_tail`; query_port's `active_speed_ex`). 65's prototype differs
//   from 34's only in those pointed-to types; the arguments themselves are
//   checked through the 34 prototype.

macro_rules! pabi34 {
    ($($name:ident => $f:path),* $(,)?) => {
        $(const _: rdma_abi::proto::driver::pabi34::$name = $f;)*
    };
}
macro_rules! pabi65 {
    ($($name:ident => $f:path),* $(,)?) => {
        $(const _: rdma_abi::proto::driver::pabi65::$name = $f;)*
    };
}
/// One body bound at both versions, whose prototype is one type.
macro_rules! pabi_both {
    ($($name:ident => $f:path),* $(,)?) => {
        pabi34! { $($name => $f),* }
        pabi65! { $($name => $f),* }
    };
}

pabi34! {
    verbs_register_driver_34 => crate::loader::verbs_register_driver_34,
    _verbs_init_and_alloc_context => crate::context::verbs_init_and_alloc_context_34,
    verbs_uninit_context => crate::context::verbs_uninit_context,
    verbs_set_ops => crate::context::verbs_set_ops,
    ibv_cmd_get_context => crate::cmd::device::ibv_cmd_get_context,
    ibv_cmd_query_port => crate::cmd::device::ibv_cmd_query_port,
    ibv_cmd_reg_dmabuf_mr => crate::cmd::mr_extra::ibv_cmd_reg_dmabuf_mr,
    ibv_cmd_create_cq_ex => crate::cmd::cq::ibv_cmd_create_cq_ex,
    ibv_cmd_create_cq_ex2 => crate::cmd::cq::ibv_cmd_create_cq_ex2,
    ibv_cmd_create_qp_ex => crate::cmd::qp::ibv_cmd_create_qp_ex,
    ibv_cmd_create_qp_ex2 => crate::cmd::qp::ibv_cmd_create_qp_ex2,
    ibv_cmd_open_qp => crate::cmd::xrcd::ibv_cmd_open_qp,
}

pabi65! {
    verbs_register_driver_65 => crate::loader::verbs_register_driver_65,
    _verbs_init_and_alloc_context => crate::context::verbs_init_and_alloc_context_65,
    verbs_uninit_context => crate::context::verbs_uninit_context_65,
    verbs_set_ops => crate::context::verbs_set_ops_65,
    ibv_cmd_get_context => crate::cmd::device::ibv_cmd_get_context_65,
    ibv_cmd_reg_dmabuf_mr => crate::cmd::mr_extra::ibv_cmd_reg_dmabuf_mr_65,
    ibv_cmd_create_cq_ex => crate::cmd::cq::ibv_cmd_create_cq_ex_65,
    ibv_cmd_create_cq_ex2 => crate::cmd::cq::ibv_cmd_create_cq_ex2_65,
    ibv_cmd_create_qp_ex2 => crate::cmd::qp::ibv_cmd_create_qp_ex2_65,
    // Only in IBVERBS_PRIVATE_65.
    ibv_cmd_query_port_speed => crate::cmd::device::ibv_cmd_query_port_speed,
    ibv_cmd_alloc_dmah => crate::cmd::dmah::ibv_cmd_alloc_dmah,
    ibv_cmd_free_dmah => crate::cmd::dmah::ibv_cmd_free_dmah,
    ibv_cmd_export_dmabuf_fd => crate::cmd::dm::ibv_cmd_export_dmabuf_fd,
    ibv_cmd_reg_mr_ex => crate::cmd::mr_extra::ibv_cmd_reg_mr_ex,
    ibv_cmd_query_comp_cntr_caps => crate::cmd::comp_cntr::ibv_cmd_query_comp_cntr_caps,
    ibv_cmd_create_comp_cntr => crate::cmd::comp_cntr::ibv_cmd_create_comp_cntr,
    ibv_cmd_destroy_comp_cntr => crate::cmd::comp_cntr::ibv_cmd_destroy_comp_cntr,
    ibv_cmd_inc_comp_cntr => crate::cmd::comp_cntr::ibv_cmd_inc_comp_cntr,
    ibv_cmd_inc_err_comp_cntr => crate::cmd::comp_cntr::ibv_cmd_inc_err_comp_cntr,
    ibv_cmd_read_comp_cntr => crate::cmd::comp_cntr::ibv_cmd_read_comp_cntr,
    ibv_cmd_read_err_comp_cntr => crate::cmd::comp_cntr::ibv_cmd_read_err_comp_cntr,
    ibv_cmd_set_comp_cntr => crate::cmd::comp_cntr::ibv_cmd_set_comp_cntr,
    ibv_cmd_set_err_comp_cntr => crate::cmd::comp_cntr::ibv_cmd_set_err_comp_cntr,
    ibv_cmd_qp_attach_comp_cntr => crate::cmd::comp_cntr::ibv_cmd_qp_attach_comp_cntr,
    ibv_dmabuf_heap_cc_shared_init => crate::dmabuf_heap::ibv_dmabuf_heap_cc_shared_init,
    ibv_dmabuf_heap_destroy => crate::dmabuf_heap::ibv_dmabuf_heap_destroy,
    ibv_dmabuf_heap_alloc => crate::dmabuf_heap::ibv_dmabuf_heap_alloc,
    ibv_dmabuf_heap_free => crate::dmabuf_heap::ibv_dmabuf_heap_free,
}

pabi_both! {
    ibv_wr_opcode_str => crate::strings::ibv_wr_opcode_str,
    verbs_init_cq => crate::context::verbs_init_cq,
    verbs_open_device => crate::context::verbs_open_device,
    ibv_query_gid_type => crate::query::ibv_query_gid_type,
    __ioctl_final_num_attrs => crate::cmd::ioctl::__ioctl_final_num_attrs,
    execute_ioctl => crate::cmd::ioctl::execute_ioctl,
    ibv_cmd_query_context => crate::cmd::device::ibv_cmd_query_context,
    ibv_cmd_query_device_any => crate::cmd::device::ibv_cmd_query_device_any,
    ibv_cmd_alloc_pd => crate::cmd::pd::ibv_cmd_alloc_pd,
    ibv_cmd_dealloc_pd => crate::cmd::pd::ibv_cmd_dealloc_pd,
    ibv_cmd_open_xrcd => crate::cmd::xrcd::ibv_cmd_open_xrcd,
    ibv_cmd_close_xrcd => crate::cmd::xrcd::ibv_cmd_close_xrcd,
    ibv_cmd_reg_mr => crate::cmd::mr::ibv_cmd_reg_mr,
    ibv_cmd_dereg_mr => crate::cmd::mr::ibv_cmd_dereg_mr,
    ibv_cmd_rereg_mr => crate::cmd::mr_extra::ibv_cmd_rereg_mr,
    ibv_cmd_query_mr => crate::cmd::mr_extra::ibv_cmd_query_mr,
    ibv_cmd_advise_mr => crate::cmd::mr_extra::ibv_cmd_advise_mr,
    ibv_cmd_alloc_mw => crate::cmd::mw::ibv_cmd_alloc_mw,
    ibv_cmd_dealloc_mw => crate::cmd::mw::ibv_cmd_dealloc_mw,
    ibv_cmd_create_cq => crate::cmd::cq::ibv_cmd_create_cq,
    ibv_cmd_poll_cq => crate::cmd::legacy::ibv_cmd_poll_cq,
    ibv_cmd_req_notify_cq => crate::cmd::cq::ibv_cmd_req_notify_cq,
    ibv_cmd_resize_cq => crate::cmd::cq::ibv_cmd_resize_cq,
    ibv_cmd_destroy_cq => crate::cmd::cq::ibv_cmd_destroy_cq,
    ibv_cmd_modify_cq => crate::cmd::cq_extra::ibv_cmd_modify_cq,
    ibv_cmd_create_srq => crate::cmd::srq::ibv_cmd_create_srq,
    ibv_cmd_create_srq_ex => crate::cmd::srq::ibv_cmd_create_srq_ex,
    ibv_cmd_modify_srq => crate::cmd::srq::ibv_cmd_modify_srq,
    ibv_cmd_query_srq => crate::cmd::srq::ibv_cmd_query_srq,
    ibv_cmd_destroy_srq => crate::cmd::srq::ibv_cmd_destroy_srq,
    ibv_cmd_post_srq_recv => crate::cmd::legacy::ibv_cmd_post_srq_recv,
    ibv_cmd_create_qp => crate::cmd::qp::ibv_cmd_create_qp,
    ibv_cmd_query_qp => crate::cmd::qp::ibv_cmd_query_qp,
    ibv_cmd_modify_qp => crate::cmd::qp::ibv_cmd_modify_qp,
    ibv_cmd_modify_qp_ex => crate::cmd::qp::ibv_cmd_modify_qp_ex,
    ibv_cmd_destroy_qp => crate::cmd::qp::ibv_cmd_destroy_qp,
    ibv_cmd_post_send => crate::cmd::legacy::ibv_cmd_post_send,
    ibv_cmd_post_recv => crate::cmd::legacy::ibv_cmd_post_recv,
    ibv_cmd_create_ah => crate::cmd::ah::ibv_cmd_create_ah,
    ibv_cmd_destroy_ah => crate::cmd::ah::ibv_cmd_destroy_ah,
    ibv_cmd_attach_mcast => crate::cmd::mcast::ibv_cmd_attach_mcast,
    ibv_cmd_detach_mcast => crate::cmd::mcast::ibv_cmd_detach_mcast,
    ibv_cmd_create_flow => crate::cmd::flow::ibv_cmd_create_flow,
    ibv_cmd_destroy_flow => crate::cmd::flow::ibv_cmd_destroy_flow,
    ibv_cmd_create_flow_action_esp => crate::cmd::flow_action::ibv_cmd_create_flow_action_esp,
    ibv_cmd_modify_flow_action_esp => crate::cmd::flow_action::ibv_cmd_modify_flow_action_esp,
    ibv_cmd_destroy_flow_action => crate::cmd::flow_action::ibv_cmd_destroy_flow_action,
    ibv_cmd_create_wq => crate::cmd::wq::ibv_cmd_create_wq,
    ibv_cmd_modify_wq => crate::cmd::wq::ibv_cmd_modify_wq,
    ibv_cmd_destroy_wq => crate::cmd::wq::ibv_cmd_destroy_wq,
    ibv_cmd_create_rwq_ind_table => crate::cmd::rwq_ind::ibv_cmd_create_rwq_ind_table,
    ibv_cmd_destroy_rwq_ind_table => crate::cmd::rwq_ind::ibv_cmd_destroy_rwq_ind_table,
    ibv_cmd_create_counters => crate::cmd::counters::ibv_cmd_create_counters,
    ibv_cmd_destroy_counters => crate::cmd::counters::ibv_cmd_destroy_counters,
    ibv_cmd_read_counters => crate::cmd::counters::ibv_cmd_read_counters,
    ibv_cmd_alloc_dm => crate::cmd::dm::ibv_cmd_alloc_dm,
    ibv_cmd_free_dm => crate::cmd::dm::ibv_cmd_free_dm,
    ibv_cmd_reg_dm_mr => crate::cmd::dm::ibv_cmd_reg_dm_mr,
}
