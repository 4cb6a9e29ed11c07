//! The prototypes of the functions `<rdma/rdma_cma.h>` declares (rdma-core
//! 65's API), one function-pointer type per function, named as the function.

use core::ffi::{c_char, c_int, c_void};
use libc::sockaddr;

use crate::cma_v65::*;
use crate::verbs_v65::*;

pub type rdma_create_event_channel = unsafe extern "C" fn() -> *mut rdma_event_channel;
pub type rdma_destroy_event_channel = unsafe extern "C" fn(channel: *mut rdma_event_channel);
pub type rdma_create_id = unsafe extern "C" fn(
    channel: *mut rdma_event_channel,
    id: *mut *mut rdma_cm_id,
    context: *mut c_void,
    ps: rdma_port_space,
) -> c_int;
pub type rdma_create_ep = unsafe extern "C" fn(
    id: *mut *mut rdma_cm_id,
    res: *mut rdma_addrinfo,
    pd: *mut ibv_pd,
    qp_init_attr: *mut ibv_qp_init_attr,
) -> core::ffi::c_int;
pub type rdma_destroy_ep = unsafe extern "C" fn(id: *mut rdma_cm_id);
pub type rdma_destroy_id = unsafe extern "C" fn(id: *mut rdma_cm_id) -> c_int;
pub type rdma_bind_addr = unsafe extern "C" fn(id: *mut rdma_cm_id, addr: *mut sockaddr) -> c_int;
pub type rdma_resolve_addr = unsafe extern "C" fn(
    id: *mut rdma_cm_id,
    src_addr: *mut sockaddr,
    dst_addr: *mut sockaddr,
    timeout_ms: c_int,
) -> c_int;
pub type rdma_resolve_route = unsafe extern "C" fn(id: *mut rdma_cm_id, timeout_ms: c_int) -> c_int;
pub type rdma_create_qp = unsafe extern "C" fn(
    id: *mut rdma_cm_id,
    pd: *mut ibv_pd,
    qp_init_attr: *mut ibv_qp_init_attr,
) -> c_int;
pub type rdma_create_qp_ex =
    unsafe extern "C" fn(id: *mut rdma_cm_id, qp_init_attr: *mut ibv_qp_init_attr_ex) -> c_int;
pub type rdma_destroy_qp = unsafe extern "C" fn(id: *mut rdma_cm_id);
pub type rdma_connect =
    unsafe extern "C" fn(id: *mut rdma_cm_id, conn_param: *mut rdma_conn_param) -> c_int;
pub type rdma_establish = unsafe extern "C" fn(id: *mut rdma_cm_id) -> c_int;
pub type rdma_listen = unsafe extern "C" fn(id: *mut rdma_cm_id, backlog: c_int) -> c_int;
pub type rdma_get_request =
    unsafe extern "C" fn(listen: *mut rdma_cm_id, id: *mut *mut rdma_cm_id) -> c_int;
pub type rdma_accept =
    unsafe extern "C" fn(id: *mut rdma_cm_id, conn_param: *mut rdma_conn_param) -> c_int;
pub type rdma_reject = unsafe extern "C" fn(
    id: *mut rdma_cm_id,
    private_data: *const c_void,
    private_data_len: u8,
) -> c_int;
pub type rdma_reject_ece = unsafe extern "C" fn(
    id: *mut rdma_cm_id,
    private_data: *const c_void,
    private_data_len: u8,
) -> c_int;
pub type rdma_notify = unsafe extern "C" fn(id: *mut rdma_cm_id, event: ibv_event_type) -> c_int;
pub type rdma_disconnect = unsafe extern "C" fn(id: *mut rdma_cm_id) -> c_int;
pub type rdma_join_multicast =
    unsafe extern "C" fn(id: *mut rdma_cm_id, addr: *mut sockaddr, context: *mut c_void) -> c_int;
pub type rdma_leave_multicast =
    unsafe extern "C" fn(id: *mut rdma_cm_id, addr: *mut sockaddr) -> c_int;
pub type rdma_join_multicast_ex = unsafe extern "C" fn(
    id: *mut rdma_cm_id,
    mc_join_attr: *mut rdma_cm_join_mc_attr_ex,
    context: *mut c_void,
) -> c_int;
pub type rdma_get_cm_event =
    unsafe extern "C" fn(channel: *mut rdma_event_channel, event: *mut *mut rdma_cm_event) -> c_int;
pub type rdma_ack_cm_event = unsafe extern "C" fn(event: *mut rdma_cm_event) -> c_int;
pub type rdma_get_src_port = unsafe extern "C" fn(id: *mut rdma_cm_id) -> u16;
pub type rdma_get_dst_port = unsafe extern "C" fn(id: *mut rdma_cm_id) -> u16;
pub type rdma_get_devices = unsafe extern "C" fn(num_devices: *mut c_int) -> *mut *mut ibv_context;
pub type rdma_free_devices = unsafe extern "C" fn(list: *mut *mut ibv_context);
pub type rdma_event_str = unsafe extern "C" fn(event: rdma_cm_event_type) -> *const c_char;
pub type rdma_set_option = unsafe extern "C" fn(
    id: *mut rdma_cm_id,
    level: c_int,
    optname: c_int,
    optval: *mut c_void,
    optlen: usize,
) -> c_int;
pub type rdma_migrate_id =
    unsafe extern "C" fn(id: *mut rdma_cm_id, channel: *mut rdma_event_channel) -> c_int;
pub type rdma_getaddrinfo = unsafe extern "C" fn(
    node: *const c_char,
    service: *const c_char,
    hints: *const rdma_addrinfo,
    res: *mut *mut rdma_addrinfo,
) -> c_int;
pub type rdma_freeaddrinfo = unsafe extern "C" fn(res: *mut rdma_addrinfo);
pub type rdma_init_qp_attr = unsafe extern "C" fn(
    id: *mut rdma_cm_id,
    qp_attr: *mut ibv_qp_attr,
    qp_attr_mask: *mut c_int,
) -> c_int;
pub type rdma_set_local_ece = unsafe extern "C" fn(id: *mut rdma_cm_id, ece: *mut ibv_ece) -> c_int;
pub type rdma_get_remote_ece =
    unsafe extern "C" fn(id: *mut rdma_cm_id, ece: *mut ibv_ece) -> c_int;
pub type rdma_resolve_addrinfo = unsafe extern "C" fn(
    id: *mut rdma_cm_id,
    node: *const c_char,
    service: *const c_char,
    hints: *const rdma_addrinfo,
) -> c_int;
pub type rdma_query_addrinfo =
    unsafe extern "C" fn(id: *mut rdma_cm_id, info: *mut *mut rdma_addrinfo) -> c_int;
pub type rdma_write_cm_event = unsafe extern "C" fn(
    id: *mut rdma_cm_id,
    event: rdma_cm_event_type,
    status: c_int,
    arg: u64,
) -> c_int;
