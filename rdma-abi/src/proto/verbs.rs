//! The prototypes of the functions `<infiniband/verbs.h>` declares (rdma-core
//! 65's API): one function-pointer type per function, named as the function.
//! tools/gen-headers writes them as C prototypes; the libraries check their
//! exports against them (`proto_check!`).

use core::ffi::{c_char, c_int, c_uint, c_void};

use crate::driver::pabi65::ibv_buf;
use crate::verbs_v65::*;

pub type ibv_wc_status_str = unsafe extern "C" fn(status: ibv_wc_status) -> *const c_char;
pub type ibv_rate_to_mult = unsafe extern "C" fn(rate: ibv_rate) -> c_int;
pub type mult_to_ibv_rate = unsafe extern "C" fn(mult: c_int) -> ibv_rate;
pub type ibv_rate_to_mbps = unsafe extern "C" fn(rate: ibv_rate) -> c_int;
pub type mbps_to_ibv_rate = unsafe extern "C" fn(mbps: c_int) -> ibv_rate;
pub type ibv_wr_opcode_str = unsafe extern "C" fn(opcode: ibv_wr_opcode) -> *const c_char;
pub type ibv_qp_to_qp_ex = unsafe extern "C" fn(qp: *mut ibv_qp) -> *mut ibv_qp_ex;
pub type ibv_get_device_list =
    unsafe extern "C" fn(num_devices: *mut c_int) -> *mut *mut ibv_device;
pub type ibv_free_device_list = unsafe extern "C" fn(list: *mut *mut ibv_device);
pub type ibv_get_device_name = unsafe extern "C" fn(device: *mut ibv_device) -> *const c_char;
pub type ibv_get_device_index = unsafe extern "C" fn(device: *mut ibv_device) -> c_int;
pub type ibv_get_device_guid = unsafe extern "C" fn(device: *mut ibv_device) -> __be64;
pub type ibv_open_device = unsafe extern "C" fn(device: *mut ibv_device) -> *mut ibv_context;
pub type ibv_close_device = unsafe extern "C" fn(context: *mut ibv_context) -> c_int;
pub type ibv_import_device = unsafe extern "C" fn(cmd_fd: c_int) -> *mut ibv_context;
pub type ibv_import_pd =
    unsafe extern "C" fn(context: *mut ibv_context, pd_handle: u32) -> *mut ibv_pd;
pub type ibv_unimport_pd = unsafe extern "C" fn(pd: *mut ibv_pd);
pub type ibv_import_mr = unsafe extern "C" fn(pd: *mut ibv_pd, mr_handle: u32) -> *mut ibv_mr;
pub type ibv_unimport_mr = unsafe extern "C" fn(mr: *mut ibv_mr);
pub type ibv_import_dm =
    unsafe extern "C" fn(context: *mut ibv_context, dm_handle: u32) -> *mut ibv_dm;
pub type ibv_unimport_dm = unsafe extern "C" fn(dm: *mut ibv_dm);
pub type ibv_get_async_event =
    unsafe extern "C" fn(context: *mut ibv_context, event: *mut ibv_async_event) -> c_int;
pub type ibv_ack_async_event = unsafe extern "C" fn(event: *mut ibv_async_event);
pub type ibv_query_device =
    unsafe extern "C" fn(context: *mut ibv_context, device_attr: *mut ibv_device_attr) -> c_int;
pub type ibv_query_port = unsafe extern "C" fn(
    context: *mut ibv_context,
    port_num: u8,
    port_attr: *mut _compat_ibv_port_attr,
) -> c_int;
pub type ibv_query_port_speed =
    unsafe extern "C" fn(context: *mut ibv_context, port_num: u32, port_speed: *mut u64) -> c_int;
pub type ibv_query_gid = unsafe extern "C" fn(
    context: *mut ibv_context,
    port_num: u8,
    index: c_int,
    gid: *mut ibv_gid,
) -> c_int;
pub type _ibv_query_gid_ex = unsafe extern "C" fn(
    context: *mut ibv_context,
    port_num: u32,
    gid_index: u32,
    entry: *mut ibv_gid_entry,
    flags: u32,
    entry_size: usize,
) -> c_int;
pub type _ibv_query_gid_table = unsafe extern "C" fn(
    context: *mut ibv_context,
    entries: *mut ibv_gid_entry,
    max_entries: usize,
    flags: u32,
    entry_size: usize,
) -> isize;
pub type ibv_query_pkey = unsafe extern "C" fn(
    context: *mut ibv_context,
    port_num: u8,
    index: c_int,
    pkey: *mut u16,
) -> c_int;
pub type ibv_get_pkey_index =
    unsafe extern "C" fn(context: *mut ibv_context, port_num: u8, pkey: u16) -> c_int;
pub type ibv_alloc_pd = unsafe extern "C" fn(context: *mut ibv_context) -> *mut ibv_pd;
pub type ibv_dealloc_pd = unsafe extern "C" fn(pd: *mut ibv_pd) -> c_int;
pub type ibv_reg_mr_iova2 = unsafe extern "C" fn(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    iova: u64,
    access: c_uint,
) -> *mut ibv_mr;
pub type ibv_reg_mr = unsafe extern "C" fn(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    access: c_int,
) -> *mut ibv_mr;
pub type ibv_reg_mr_iova = unsafe extern "C" fn(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    iova: u64,
    access: c_int,
) -> *mut ibv_mr;
pub type ibv_reg_dmabuf_mr = unsafe extern "C" fn(
    pd: *mut ibv_pd,
    offset: u64,
    length: usize,
    iova: u64,
    fd: c_int,
    access: c_int,
) -> *mut ibv_mr;
pub type ibv_reg_mr_ex =
    unsafe extern "C" fn(pd: *mut ibv_pd, mr_init_attr: *mut ibv_mr_init_attr) -> *mut ibv_mr;
pub type ibv_rereg_mr = unsafe extern "C" fn(
    mr: *mut ibv_mr,
    flags: c_int,
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    access: c_int,
) -> c_int;
pub type ibv_dereg_mr = unsafe extern "C" fn(mr: *mut ibv_mr) -> c_int;
pub type ibv_create_comp_channel =
    unsafe extern "C" fn(context: *mut ibv_context) -> *mut ibv_comp_channel;
pub type ibv_destroy_comp_channel = unsafe extern "C" fn(channel: *mut ibv_comp_channel) -> c_int;
pub type ibv_dm_export_dmabuf_fd = unsafe extern "C" fn(dm: *mut ibv_dm) -> c_int;
pub type ibv_create_cq = unsafe extern "C" fn(
    context: *mut ibv_context,
    cqe: c_int,
    cq_context: *mut c_void,
    channel: *mut ibv_comp_channel,
    comp_vector: c_int,
) -> *mut ibv_cq;
pub type ibv_resize_cq = unsafe extern "C" fn(cq: *mut ibv_cq, cqe: c_int) -> c_int;
pub type ibv_destroy_cq = unsafe extern "C" fn(cq: *mut ibv_cq) -> c_int;
pub type ibv_get_cq_event = unsafe extern "C" fn(
    channel: *mut ibv_comp_channel,
    cq: *mut *mut ibv_cq,
    cq_context: *mut *mut c_void,
) -> c_int;
pub type ibv_ack_cq_events = unsafe extern "C" fn(cq: *mut ibv_cq, nevents: c_uint);
pub type _ibv_query_comp_cntr_caps = unsafe extern "C" fn(
    context: *mut ibv_context,
    caps: *mut ibv_comp_cntr_caps,
    caps_size: usize,
) -> c_int;
pub type ibv_create_comp_cntr = unsafe extern "C" fn(
    context: *mut ibv_context,
    cc_attr: *mut ibv_comp_cntr_init_attr,
) -> *mut ibv_comp_cntr;
pub type ibv_destroy_comp_cntr = unsafe extern "C" fn(comp_cntr: *mut ibv_comp_cntr) -> c_int;
pub type ibv_set_comp_cntr =
    unsafe extern "C" fn(comp_cntr: *mut ibv_comp_cntr, value: u64) -> c_int;
pub type ibv_set_err_comp_cntr =
    unsafe extern "C" fn(comp_cntr: *mut ibv_comp_cntr, value: u64) -> c_int;
pub type ibv_inc_comp_cntr =
    unsafe extern "C" fn(comp_cntr: *mut ibv_comp_cntr, amount: u64) -> c_int;
pub type ibv_inc_err_comp_cntr =
    unsafe extern "C" fn(comp_cntr: *mut ibv_comp_cntr, amount: u64) -> c_int;
pub type ibv_read_comp_cntr =
    unsafe extern "C" fn(comp_cntr: *mut ibv_comp_cntr, value: *mut u64) -> c_int;
pub type ibv_read_err_comp_cntr =
    unsafe extern "C" fn(comp_cntr: *mut ibv_comp_cntr, value: *mut u64) -> c_int;
pub type ibv_create_srq =
    unsafe extern "C" fn(pd: *mut ibv_pd, srq_init_attr: *mut ibv_srq_init_attr) -> *mut ibv_srq;
pub type ibv_modify_srq = unsafe extern "C" fn(
    srq: *mut ibv_srq,
    srq_attr: *mut ibv_srq_attr,
    srq_attr_mask: c_int,
) -> c_int;
pub type ibv_query_srq =
    unsafe extern "C" fn(srq: *mut ibv_srq, srq_attr: *mut ibv_srq_attr) -> c_int;
pub type ibv_destroy_srq = unsafe extern "C" fn(srq: *mut ibv_srq) -> c_int;
pub type ibv_create_qp =
    unsafe extern "C" fn(pd: *mut ibv_pd, qp_init_attr: *mut ibv_qp_init_attr) -> *mut ibv_qp;
pub type ibv_alloc_buf =
    unsafe extern "C" fn(pd: *mut ibv_pd, size: usize, buf: *mut *mut ibv_buf) -> *mut c_void;
pub type ibv_export_buf_dmabuf_fd = unsafe extern "C" fn(buf: *mut ibv_buf) -> c_int;
pub type ibv_free_buf = unsafe extern "C" fn(buf: *mut ibv_buf);
pub type ibv_reg_buf_mr = unsafe extern "C" fn(
    pd: *mut ibv_pd,
    buf: *mut ibv_buf,
    addr: *mut c_void,
    length: usize,
    access: c_int,
) -> *mut ibv_mr;
pub type ibv_alloc_dmah =
    unsafe extern "C" fn(context: *mut ibv_context, attr: *mut ibv_dmah_init_attr) -> *mut ibv_dmah;
pub type ibv_dealloc_dmah = unsafe extern "C" fn(dmah: *mut ibv_dmah) -> c_int;
pub type ibv_modify_qp =
    unsafe extern "C" fn(qp: *mut ibv_qp, attr: *mut ibv_qp_attr, attr_mask: c_int) -> c_int;
pub type ibv_qp_attach_comp_cntr = unsafe extern "C" fn(
    qp: *mut ibv_qp,
    comp_cntr: *mut ibv_comp_cntr,
    attr: *mut ibv_qp_attach_comp_cntr_attr,
) -> c_int;
pub type ibv_query_qp_data_in_order =
    unsafe extern "C" fn(qp: *mut ibv_qp, op: ibv_wr_opcode, flags: u32) -> c_int;
pub type ibv_query_qp = unsafe extern "C" fn(
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_attr,
    attr_mask: c_int,
    init_attr: *mut ibv_qp_init_attr,
) -> c_int;
pub type ibv_destroy_qp = unsafe extern "C" fn(qp: *mut ibv_qp) -> c_int;
pub type ibv_create_ah =
    unsafe extern "C" fn(pd: *mut ibv_pd, attr: *mut ibv_ah_attr) -> *mut ibv_ah;
pub type ibv_init_ah_from_wc = unsafe extern "C" fn(
    context: *mut ibv_context,
    port_num: u8,
    wc: *mut ibv_wc,
    grh: *mut ibv_grh,
    ah_attr: *mut ibv_ah_attr,
) -> c_int;
pub type ibv_create_ah_from_wc = unsafe extern "C" fn(
    pd: *mut ibv_pd,
    wc: *mut ibv_wc,
    grh: *mut ibv_grh,
    port_num: u8,
) -> *mut ibv_ah;
pub type ibv_destroy_ah = unsafe extern "C" fn(ah: *mut ibv_ah) -> c_int;
pub type ibv_attach_mcast =
    unsafe extern "C" fn(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int;
pub type ibv_detach_mcast =
    unsafe extern "C" fn(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int;
pub type ibv_fork_init = unsafe extern "C" fn() -> c_int;
pub type ibv_is_fork_initialized = unsafe extern "C" fn() -> ibv_fork_status;
pub type ibv_node_type_str = unsafe extern "C" fn(node_type: ibv_node_type) -> *const c_char;
pub type ibv_port_state_str = unsafe extern "C" fn(port_state: ibv_port_state) -> *const c_char;
pub type ibv_event_type_str = unsafe extern "C" fn(event: ibv_event_type) -> *const c_char;
pub type ibv_resolve_eth_l2_from_gid = unsafe extern "C" fn(
    context: *mut ibv_context,
    attr: *mut ibv_ah_attr,
    eth_mac: *mut u8,
    vid: *mut u16,
) -> c_int;
pub type ibv_set_ece = unsafe extern "C" fn(qp: *mut ibv_qp, ece: *mut ibv_ece) -> c_int;
pub type ibv_query_ece = unsafe extern "C" fn(qp: *mut ibv_qp, ece: *mut ibv_ece) -> c_int;
