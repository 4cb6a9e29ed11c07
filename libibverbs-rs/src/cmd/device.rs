//! Device and context commands: GET_CONTEXT, QUERY_CONTEXT, the async event
//! FD, QUERY_DEVICE(_EX), QUERY_PORT and (rdma-core 65, exported at
//! IBVERBS_PRIVATE_65 only) QUERY_PORT_SPEED (upstream's `cmd_device.c`).

use core::mem::size_of;
use core::ptr;
use libc::c_int;

use super::ioctl::{ibv_command_buffer, CmdBuf, CmdSpace};
use super::write::{
    execute_cmd_write, execute_cmd_write_ex, execute_ioctl_fallback, execute_write_bufs, Fallback,
};
use crate::abi::driver::verbs_device;
use crate::abi::kern::*;
use crate::abi::verbs::*;
use crate::abi::verbs65;
use crate::cmd::{cmd_bit, offset_end};
use rdma_util::ensure;

/// Result of a fallback outcome a helper has no branch for (an extended
/// write() where upstream only has the classic one): "not supported".
pub(crate) fn unhandled_fallback() -> c_int {
    rdma_util::ffi::set_errno(libc::EOPNOTSUPP);
    libc::EOPNOTSUPP
}

/// The `verbs_device` around `ctx->device`.
///
/// # Safety
/// `ctx` is a live context of a device this library created.
pub(crate) unsafe fn verbs_get_device(ctx: *mut ibv_context) -> *mut verbs_device {
    // SAFETY: `device` is the first field of verbs_device (caller: the
    // device is one of ours).
    unsafe { (*ctx).device.cast() }
}

unsafe fn cmd_get_context(vctx: *mut verbs_context, fds: *const verbs65::ibv_fd_arr, link: *mut ibv_command_buffer) -> c_int {
    // SAFETY (whole function): vctx is (the 44 view of) a live verbs context
    // being set up; fds is NULL or the provider's descriptor array; link is
    // the compatibility buffer of the caller's command.
    unsafe {
        let ctx: *mut ibv_context = ptr::addr_of_mut!((*vctx).context);
        let mut cmd_space = CmdSpace::new();
        let mut cmdb =
            match CmdBuf::with_link_in(&mut cmd_space, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT, 3, link) {
                Ok(b) => b,
                Err(e) => return e,
            };
        let mut num_comp_vectors: u32 = 0;
        let mut core_support: u64 = 0;
        cmdb.fill_out_ptr(
            UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS,
            &mut num_comp_vectors,
        );
        cmdb.fill_out_ptr(UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT, &mut core_support);
        if let Some(f) = fds.as_ref() {
            // An array of ints; a length that overflows is left for the
            // kernel to refuse, as upstream does.
            let len = size_of::<c_int>().saturating_mul(f.count as usize);
            cmdb.fill_in(UVERBS_ATTR_GET_CONTEXT_FD_ARR, f.arr.cast(), len);
        }

        // Getting a context is no verbs_context_ops entry; upstream files it
        // under free_context, which never uses an ioctl.
        match execute_ioctl_fallback(ctx, cmd_bit!(free_context), cmdb.as_ptr()) {
            Fallback::TryWrite => {
                return match execute_write_bufs::<ibv_get_context>(ctx, link, Default::default()) {
                    Ok(resp) => {
                        (*ctx).async_fd = resp.async_fd as c_int;
                        (*ctx).num_comp_vectors = resp.num_comp_vectors as c_int;
                        0
                    }
                    Err(e) => e,
                };
            }
            Fallback::Success => {}
            Fallback::Error(e) => return e,
            Fallback::TryWriteEx => return unhandled_fallback(),
        }
        (*ctx).num_comp_vectors = num_comp_vectors as c_int;
        (*verbs_get_device(ctx)).core_support = core_support;
        0
    }
}

/// The body of both ibv_cmd_get_context: the provider's write() buffers as
/// the compatibility buffer.
///
/// # Safety
/// `vctx` is the 44 view of the provider's context being set up; `fds` NULL
/// or valid; `cmd`/`resp` NULL or valid for their sizes.
unsafe fn get_context_compat(vctx: *mut verbs_context, cmd: *mut ibv_get_context, cmd_size: usize,
                             fds: *const verbs65::ibv_fd_arr, resp: *mut ib_uverbs_get_context_resp,
                             resp_size: usize) -> c_int {
    ensure!(!vctx.is_null(), libc::EINVAL, libc::EINVAL);
    let mut cmd_space = CmdSpace::new();
    // SAFETY: the provider passes its command and response buffers with
    // their sizes.
    let cmdb = match unsafe { CmdBuf::compat_in(&mut cmd_space, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT,
                                              cmd, cmd_size, resp, resp_size) } {
        Ok(b) => b,
        Err(e) => return e,
    };
    // SAFETY: live context being initialised; cmdb holds the provider data.
    unsafe { cmd_get_context(vctx, fds, cmdb.as_ptr()) }
}

rdma_util::export_versioned! {
    /// ibv_cmd_get_context@IBVERBS_PRIVATE_34: opens the kernel side of a new
    /// context: the async event FD (write() kernels) or the core support
    /// flags (ioctl kernels), and the number of completion vectors. Returns 0
    /// or an errno value.
    fn ibv_cmd_get_context(context_ex: *mut verbs_context, cmd: *mut ibv_get_context,
                           cmd_size: usize, resp: *mut ib_uverbs_get_context_resp,
                           resp_size: usize) -> c_int, on_panic = libc::EIO;
    {
        // SAFETY: the provider's context (44's layout) and buffers.
        unsafe { get_context_compat(context_ex, cmd, cmd_size, ptr::null(), resp, resp_size) }
    }
}
rdma_util::symver!(compat ibv_cmd_get_context, "IBVERBS_PRIVATE_34", ibv_cmd_get_context);

rdma_util::export_versioned! {
    /// ibv_cmd_get_context@@IBVERBS_PRIVATE_65: the same for a context of
    /// 65's layout, plus file descriptors to hand the kernel with it
    /// (`fd_arr`, NULL for none; ioctl kernels only read them).
    fn ibv_cmd_get_context_65(context_ex: *mut verbs65::verbs_context, cmd: *mut ibv_get_context,
                              cmd_size: usize, fd_arr: *mut verbs65::ibv_fd_arr,
                              resp: *mut ib_uverbs_get_context_resp, resp_size: usize) -> c_int,
        on_panic = libc::EIO;
    {
        // SAFETY: the provider's context (65's layout) and buffers.
        unsafe { get_context_compat(crate::pabi::v44_of_v65(context_ex), cmd, cmd_size, fd_arr, resp, resp_size) }
    }
}
rdma_util::symver!(default ibv_cmd_get_context, "IBVERBS_PRIVATE_65", ibv_cmd_get_context_65);

/// `ibv_cmd_query_context`: re-reads the number of completion vectors and
/// the core support flags (ioctl only).
///
/// # Safety
/// `ctx` live; `driver` NULL or a valid chain.
pub(crate) unsafe fn query_context(ctx: *mut ibv_context, driver: *mut ibv_command_buffer) -> c_int {
    // SAFETY (whole function): caller guarantees.
    unsafe {
        let mut cmd_space = CmdSpace::new();
        let mut cmdb =
            match CmdBuf::with_link_in(&mut cmd_space, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT, 2, driver) {
                Ok(b) => b,
                Err(e) => return e,
            };
        let mut core_support: u64 = 0;
        cmdb.fill_out_ptr(
            UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS,
            ptr::addr_of_mut!((*ctx).num_comp_vectors),
        );
        cmdb.fill_out_ptr(UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT, &mut core_support);
        let ret = cmdb.execute(ctx);
        if ret != 0 {
            return ret;
        }
        (*verbs_get_device(ctx)).core_support = core_support;
        0
    }
}

rdma_util::export_versioned! {
    /// Queries an existing context (used when importing one). Returns 0 or
    /// an errno value.
    fn ibv_cmd_query_context(ctx: *mut ibv_context, driver: *mut ibv_command_buffer) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(!ctx.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes its live context and chain.
        unsafe { query_context(ctx, driver) }
    }
}
private_abi_both!(ibv_cmd_query_context);

/// `ibv_cmd_alloc_async_fd` (not exported upstream either): asks the kernel
/// for the context's async event FD (ioctl only) and stores it in
/// `async_fd`. Returns 0 or an errno value.
///
/// # Safety
/// `ctx` is a live context.
pub(crate) unsafe fn ibv_cmd_alloc_async_fd(ctx: *mut ibv_context) -> c_int {
    let mut cmd_space = CmdSpace::new();
    let mut cmdb = match CmdBuf::new_in(&mut cmd_space, 
        UVERBS_OBJECT_ASYNC_EVENT,
        UVERBS_METHOD_ASYNC_EVENT_ALLOC,
        1,
    ) {
        Ok(b) => b,
        Err(e) => return e,
    };
    let handle = cmdb.fill_out_fd(UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE);
    // SAFETY: live context; the only attribute is inline.
    let ret = unsafe { cmdb.execute(ctx) };
    if ret != 0 {
        return ret;
    }
    // SAFETY: live context.
    unsafe { (*ctx).async_fd = cmdb.read_fd(handle) };
    0
}

fn copy_query_port_resp(p: &mut ibv_port_attr, r: &ib_uverbs_query_port_resp) {
    p.state = r.state as ibv_port_state;
    p.max_mtu = r.max_mtu as ibv_mtu;
    p.active_mtu = r.active_mtu as ibv_mtu;
    p.gid_tbl_len = r.gid_tbl_len as c_int;
    p.port_cap_flags = r.port_cap_flags;
    p.max_msg_sz = r.max_msg_sz;
    p.bad_pkey_cntr = r.bad_pkey_cntr;
    p.qkey_viol_cntr = r.qkey_viol_cntr;
    p.pkey_tbl_len = r.pkey_tbl_len;
    p.lid = r.lid;
    p.sm_lid = r.sm_lid;
    p.lmc = r.lmc;
    p.max_vl_num = r.max_vl_num;
    p.sm_sl = r.sm_sl;
    p.subnet_timeout = r.subnet_timeout;
    p.init_type_reply = r.init_type_reply;
    p.active_width = r.active_width;
    p.active_speed = r.active_speed;
    p.phys_state = r.phys_state;
    p.link_layer = r.link_layer;
    p.flags = r.flags;
}

/// `ibv_cmd_query_port`. `port_attr` fields the kernel does not report keep
/// their values (`port_cap_flags2` is only written by the ioctl path).
///
/// # Safety
/// `ctx` live; `port_attr` writable; `cmd` valid for `cmd_size` bytes.
pub(crate) unsafe fn query_port(
    ctx: *mut ibv_context,
    port_num: u8,
    port_attr: *mut ibv_port_attr,
    cmd: *mut ibv_query_port,
    cmd_size: usize,
) -> c_int {
    let mut cmd_space = CmdSpace::new();
    let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT, 2) {
        Ok(b) => b,
        Err(e) => return e,
    };
    let mut resp_ex = ib_uverbs_query_port_resp_ex::default();
    cmdb.fill_const_in(UVERBS_ATTR_QUERY_PORT_PORT_NUM, port_num as u64);
    // SAFETY: resp_ex outlives the command.
    unsafe { cmdb.fill_out_ptr(UVERBS_ATTR_QUERY_PORT_RESP, &mut resp_ex) };

    // SAFETY (rest): caller guarantees on ctx, port_attr and cmd.
    unsafe {
        match execute_ioctl_fallback(ctx, cmd_bit!(query_port), cmdb.as_ptr()) {
            Fallback::TryWrite => {
                if cmd.is_null() {
                    return libc::EINVAL;
                }
                let mut resp = ib_uverbs_query_port_resp::default();
                (*cmd).core_payload.port_num = port_num;
                (*cmd).core_payload.reserved = [0; 7];
                let ret = execute_cmd_write(
                    ctx,
                    cmd,
                    cmd_size,
                    &mut resp,
                    size_of::<ib_uverbs_query_port_resp>(),
                );
                if ret != 0 {
                    return ret;
                }
                copy_query_port_resp(&mut *port_attr, &resp);
            }
            Fallback::Success => {
                copy_query_port_resp(&mut *port_attr, &resp_ex.legacy_resp);
                (*port_attr).port_cap_flags2 = resp_ex.port_cap_flags2;
                // rdma-core 65's ibv_port_attr ends with active_speed_ex,
                // which its kernel headers carry in bytes 2..6 of what 44's
                // call reserved. Only a 65 provider's buffer has room for it.
                if super::pabi_of(ctx) == crate::pabi::Pabi::P65 {
                    let r = resp_ex.reserved;
                    (*port_attr.cast::<crate::abi::verbs65::ibv_port_attr>()).active_speed_ex =
                        u32::from_ne_bytes([r[2], r[3], r[4], r[5]]);
                }
            }
            Fallback::Error(e) => return e,
            Fallback::TryWriteEx => return unhandled_fallback(),
        }
    }
    0
}

rdma_util::export_versioned! {
    /// Queries a port's attributes. Returns 0 or an errno value.
    fn ibv_cmd_query_port(context: *mut ibv_context, port_num: u8,
                          port_attr: *mut ibv_port_attr, cmd: *mut ibv_query_port,
                          cmd_size: usize) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!context.is_null() && !port_attr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes its live context and buffers.
        unsafe { query_port(context, port_num, port_attr, cmd, cmd_size) }
    }
}
private_abi_both!(ibv_cmd_query_port);

rdma_util::export! {
    /// Asks the kernel for a port's effective speed (ioctl only; the unit is
    /// the kernel's, 100 Mb/s), written to `*speed`. Returns 0 or an errno
    /// value; kernels older than the method answer EPROTONOSUPPORT.
    fn ibv_cmd_query_port_speed(context: *mut ibv_context, port_num: u32, speed: *mut u64)
        -> c_int, on_panic = libc::EIO;
    {
        ensure!(!context.is_null(), libc::EINVAL, libc::EINVAL);
        let mut cmd_space = CmdSpace::new();
        let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT_SPEED, 2) {
            Ok(b) => b,
            Err(e) => return e,
        };
        cmdb.fill_const_in(UVERBS_ATTR_QUERY_PORT_SPEED_PORT_NUM, port_num as u64);
        // SAFETY: the provider passes its live context and room for the
        // speed (a NULL one the kernel refuses with EFAULT).
        unsafe {
            cmdb.fill_out_ptr(UVERBS_ATTR_QUERY_PORT_SPEED_RESP, speed);
            cmdb.execute(context)
        }
    }
}

/// `ibv_cmd_query_device_any`: QUERY_DEVICE_EX when the caller wants more
/// than `ibv_device_attr` (falling back to QUERY_DEVICE on kernels without
/// it), else QUERY_DEVICE; translates into `attr` as far as both `attr_size`
/// and the kernel's response length allow. `resp`/`resp_size` (optional)
/// receive the raw response and its length.
///
/// # Safety
/// `ctx` live; `attr` writable for `attr_size` bytes; `input` NULL or valid;
/// `resp` NULL or writable for `*resp_size` bytes.
pub(crate) unsafe fn query_device_any(
    ctx: *mut ibv_context,
    input: *const ibv_query_device_ex_input,
    attr: *mut ibv_device_attr_ex,
    mut attr_size: usize,
    mut resp: *mut ib_uverbs_ex_query_device_resp,
    mut resp_size: *mut usize,
) -> c_int {
    let orig_size = size_of::<ibv_device_attr>();
    // SAFETY: input is NULL or valid (caller).
    if unsafe { input.as_ref() }.is_some_and(|i| i.comp_mask != 0) {
        return libc::EINVAL;
    }
    if attr_size < orig_size {
        return libc::EINVAL;
    }
    let mut internal_resp = ib_uverbs_ex_query_device_resp::default();
    let mut internal_resp_size = size_of::<ib_uverbs_ex_query_device_resp>();
    if resp.is_null() {
        resp = &mut internal_resp;
        resp_size = &mut internal_resp_size;
    }

    // SAFETY (rest): caller guarantees on every pointer; attr is written
    // field by field through the raw pointer, within attr_size.
    unsafe {
        ptr::write_bytes(attr.cast::<u8>(), 0, attr_size);

        if attr_size > orig_size {
            let mut cmd = ibv_query_device_ex::default();
            let err = execute_cmd_write_ex(
                ctx,
                &mut cmd,
                size_of::<ibv_query_device_ex>(),
                resp,
                *resp_size,
            );
            if err != 0 {
                if err != libc::EOPNOTSUPP && err != libc::ENOSYS {
                    return err;
                }
                attr_size = orig_size;
            }
        }
        if attr_size == orig_size {
            let mut cmd = ibv_query_device::default();
            let err = execute_cmd_write(
                ctx,
                &mut cmd,
                size_of::<ibv_query_device>(),
                ptr::addr_of_mut!((*resp).base),
                size_of::<ib_uverbs_query_device_resp>(),
            );
            if err != 0 {
                return err;
            }
            (*resp).response_length = size_of::<ib_uverbs_query_device_resp>() as u32;
        }

        *resp_size = (*resp).response_length as usize;
        let b = &(*resp).base;
        let o = ptr::addr_of_mut!((*attr).orig_attr);
        (*o).node_guid = b.node_guid;
        (*o).sys_image_guid = b.sys_image_guid;
        (*o).max_mr_size = b.max_mr_size;
        (*o).page_size_cap = b.page_size_cap;
        (*o).vendor_id = b.vendor_id;
        (*o).vendor_part_id = b.vendor_part_id;
        (*o).hw_ver = b.hw_ver;
        (*o).max_qp = b.max_qp as c_int;
        (*o).max_qp_wr = b.max_qp_wr as c_int;
        (*o).device_cap_flags = b.device_cap_flags;
        (*o).max_sge = b.max_sge as c_int;
        (*o).max_sge_rd = b.max_sge_rd as c_int;
        (*o).max_cq = b.max_cq as c_int;
        (*o).max_cqe = b.max_cqe as c_int;
        (*o).max_mr = b.max_mr as c_int;
        (*o).max_pd = b.max_pd as c_int;
        (*o).max_qp_rd_atom = b.max_qp_rd_atom as c_int;
        (*o).max_ee_rd_atom = b.max_ee_rd_atom as c_int;
        (*o).max_res_rd_atom = b.max_res_rd_atom as c_int;
        (*o).max_qp_init_rd_atom = b.max_qp_init_rd_atom as c_int;
        (*o).max_ee_init_rd_atom = b.max_ee_init_rd_atom as c_int;
        (*o).atomic_cap = b.atomic_cap as ibv_atomic_cap;
        (*o).max_ee = b.max_ee as c_int;
        (*o).max_rdd = b.max_rdd as c_int;
        (*o).max_mw = b.max_mw as c_int;
        (*o).max_raw_ipv6_qp = b.max_raw_ipv6_qp as c_int;
        (*o).max_raw_ethy_qp = b.max_raw_ethy_qp as c_int;
        (*o).max_mcast_grp = b.max_mcast_grp as c_int;
        (*o).max_mcast_qp_attach = b.max_mcast_qp_attach as c_int;
        (*o).max_total_mcast_qp_attach = b.max_total_mcast_qp_attach as c_int;
        (*o).max_ah = b.max_ah as c_int;
        (*o).max_fmr = b.max_fmr as c_int;
        (*o).max_map_per_fmr = b.max_map_per_fmr as c_int;
        (*o).max_srq = b.max_srq as c_int;
        (*o).max_srq_wr = b.max_srq_wr as c_int;
        (*o).max_srq_sge = b.max_srq_sge as c_int;
        (*o).max_pkeys = b.max_pkeys;
        (*o).local_ca_ack_delay = b.local_ca_ack_delay;
        (*o).phys_port_cnt = b.phys_port_cnt;

        let r = &*resp;
        let len = r.response_length as usize;
        macro_rules! can_copy {
            ($a:ident, $u:ident) => {
                attr_size >= offset_end!(ibv_device_attr_ex, $a)
                    && len >= offset_end!(ib_uverbs_ex_query_device_resp, $u)
            };
        }
        if can_copy!(odp_caps, odp_caps) {
            (*attr).odp_caps.general_caps = r.odp_caps.general_caps;
            let t = &r.odp_caps.per_transport_caps;
            (*attr).odp_caps.per_transport_caps.rc_odp_caps = t.rc_odp_caps;
            (*attr).odp_caps.per_transport_caps.uc_odp_caps = t.uc_odp_caps;
            (*attr).odp_caps.per_transport_caps.ud_odp_caps = t.ud_odp_caps;
        }
        if can_copy!(completion_timestamp_mask, timestamp_mask) {
            (*attr).completion_timestamp_mask = r.timestamp_mask;
        }
        if can_copy!(hca_core_clock, hca_core_clock) {
            (*attr).hca_core_clock = r.hca_core_clock;
        }
        if can_copy!(device_cap_flags_ex, device_cap_flags_ex) {
            (*attr).device_cap_flags_ex = r.device_cap_flags_ex;
        }
        if can_copy!(rss_caps, rss_caps) {
            (*attr).rss_caps.supported_qpts = r.rss_caps.supported_qpts;
            (*attr).rss_caps.max_rwq_indirection_tables = r.rss_caps.max_rwq_indirection_tables;
            (*attr).rss_caps.max_rwq_indirection_table_size =
                r.rss_caps.max_rwq_indirection_table_size;
        }
        if can_copy!(max_wq_type_rq, max_wq_type_rq) {
            (*attr).max_wq_type_rq = r.max_wq_type_rq;
        }
        if can_copy!(raw_packet_caps, raw_packet_caps) {
            (*attr).raw_packet_caps = r.raw_packet_caps;
        }
        if can_copy!(tm_caps, tm_caps) {
            (*attr).tm_caps.max_rndv_hdr_size = r.tm_caps.max_rndv_hdr_size;
            (*attr).tm_caps.max_num_tags = r.tm_caps.max_num_tags;
            (*attr).tm_caps.flags = r.tm_caps.flags;
            (*attr).tm_caps.max_ops = r.tm_caps.max_ops;
            (*attr).tm_caps.max_sge = r.tm_caps.max_sge;
        }
        if can_copy!(cq_mod_caps, cq_moderation_caps) {
            (*attr).cq_mod_caps.max_cq_count = r.cq_moderation_caps.max_cq_moderation_count;
            (*attr).cq_mod_caps.max_cq_period = r.cq_moderation_caps.max_cq_moderation_period;
        }
        if can_copy!(max_dm_size, max_dm_size) {
            (*attr).max_dm_size = r.max_dm_size;
        }
        if can_copy!(xrc_odp_caps, xrc_odp_caps) {
            (*attr).xrc_odp_caps = r.xrc_odp_caps;
        }
        if attr_size >= offset_end!(ibv_device_attr_ex, phys_port_cnt_ex) {
            let sysfs = (*verbs_get_device(ctx)).sysfs;
            let num_ports = if sysfs.is_null() {
                0
            } else {
                (*sysfs).num_ports
            };
            (*attr).phys_port_cnt_ex = if num_ports != 0 {
                num_ports
            } else {
                (*attr).orig_attr.phys_port_cnt as u32
            };
        }
    }
    0
}

rdma_util::export_versioned! {
    /// Queries the device attributes, basic or extended depending on
    /// `attr_size`. Returns 0 or an errno value.
    fn ibv_cmd_query_device_any(context: *mut ibv_context,
                                input: *const ibv_query_device_ex_input,
                                attr: *mut ibv_device_attr_ex, attr_size: usize,
                                resp: *mut ib_uverbs_ex_query_device_resp,
                                resp_size: *mut usize) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!context.is_null() && !attr.is_null(), libc::EINVAL, libc::EINVAL);
        ensure!(resp.is_null() || !resp_size.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes its live context and buffers.
        unsafe { query_device_any(context, input, attr, attr_size, resp, resp_size) }
    }
}
private_abi_both!(ibv_cmd_query_device_any);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::kernel::*;

    fn cat(parts: &[&[u8]]) -> Vec<u8> {
        parts.concat()
    }

    #[test]
    fn get_context_over_ioctl() {
        let mut t = TestCtx::new(14, false);
        let vctx = t.vctx();
        let mut cmd = ibv_get_context::default();
        let mut resp = ib_uverbs_get_context_resp::default();
        let k = FakeKernel::new().on_ioctl(|c| {
            assert_eq!((c.object_id(), c.method_id()), (0, 3));
            c.write_out_val(0, 4u32);
            c.write_out_val(1, 1u64);
            0
        });
        // SAFETY: live context and buffers.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_get_context(
                vctx,
                &mut cmd,
                size_of::<ibv_get_context>(),
                &mut resp,
                size_of::<ib_uverbs_get_context_resp>(),
            )
        });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        assert_eq!(hdr.num_attrs, 2, "no UHW without driver data");
        assert_eq!(
            (a[0].attr_id, a[0].len, a[1].attr_id, a[1].len),
            (0, 4, 1, 8)
        );
        // SAFETY: test context.
        unsafe { assert_eq!((*t.ctx()).num_comp_vectors, 4) };
        assert_eq!(t.dev.core_support, 1);
        // SAFETY: test context.
        unsafe {
            assert_eq!(
                (*t.ctx()).async_fd,
                TEST_ASYNC_FD,
                "not touched by the ioctl path"
            )
        };
    }

    #[test]
    fn get_context_65_takes_the_65_layout_and_the_fd_array() {
        let mut t = TestCtx::new(14, false);
        // What a 65 provider passes: its context from the 65 layout's start,
        // 48 bytes before the 44 view the library works with.
        let v65 = crate::pabi::v65_of_v44(t.vctx());
        let mut cmd = ibv_get_context::default();
        let mut resp = ib_uverbs_get_context_resp::default();
        let mut fds: [c_int; 3] = [5, 6, 9];
        let mut arr = verbs65::ibv_fd_arr { arr: fds.as_mut_ptr(), count: 3 };
        let k = FakeKernel::new().on_ioctl(|c| {
            c.write_out_val(0, 6u32);
            c.write_out_val(1, 1u64);
            0
        });
        // SAFETY: a live context seen from the 65 layout (never read in
        // front of the 44 view), live buffers and fd array.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_get_context_65(v65, &mut cmd, size_of::<ibv_get_context>(), &mut arr, &mut resp,
                                   size_of::<ib_uverbs_get_context_resp>())
        });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        assert_eq!(hdr.num_attrs, 3);
        // The array: 3 ints, by pointer.
        assert_eq!((a[2].attr_id, a[2].len), (UVERBS_ATTR_GET_CONTEXT_FD_ARR, 12));
        // A pointer attribute carries the address.
        assert_eq!(a[2].data, fds.as_ptr() as u64);
        // Written through the 44 view, where the context really is.
        // SAFETY: test context.
        unsafe { assert_eq!((*t.ctx()).num_comp_vectors, 6) };
        // Without an array (NULL), no attribute for it.
        let k = FakeKernel::new().on_ioctl(|_| 0);
        // SAFETY: as above.
        let (_, sent) = with_kernel(k, || unsafe {
            ibv_cmd_get_context_65(v65, &mut cmd, size_of::<ibv_get_context>(), ptr::null_mut(), &mut resp,
                                   size_of::<ib_uverbs_get_context_resp>())
        });
        assert_eq!(sent[0].ioctl().0.num_attrs, 2);
    }

    #[test]
    fn get_context_falls_back_to_write() {
        let mut t = TestCtx::new(14, false);
        let vctx = t.vctx();
        let mut cmd = ibv_get_context::default();
        let mut resp = ib_uverbs_get_context_resp::default();
        let k = FakeKernel::new()
            .on_ioctl(|_| libc::EPROTONOSUPPORT)
            .on_write(|w| {
                w.respond(&cat(&[&le32(33), &le32(2)]));
                0
            });
        // SAFETY: live context and buffers.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_get_context(
                vctx,
                &mut cmd,
                size_of::<ibv_get_context>(),
                &mut resp,
                size_of::<ib_uverbs_get_context_resp>(),
            )
        });
        assert_eq!(ret, 0);
        assert_eq!(sent.len(), 2);
        let b = sent[1].write_bytes();
        // GET_CONTEXT is 0; 16 bytes = 4 words in, 8 bytes = 2 words out.
        assert_eq!(&b[..8], &cat(&[&le32(0), &le16(4), &le16(2)])[..]);
        assert_eq!(b.len(), 16);
        // SAFETY: test context.
        unsafe { assert_eq!(((*t.ctx()).async_fd, (*t.ctx()).num_comp_vectors), (33, 2)) };
        assert!(t.state().ioctl_unsupported(crate::cmd::cmd_bit!(free_context)));
    }

    #[repr(C)]
    #[derive(Default)]
    struct DrvGetContext {
        ibv_cmd: ibv_get_context,
        flags: u32,
        reserved: u32,
    }

    #[repr(C)]
    #[derive(Default)]
    struct DrvGetContextResp {
        ibv_resp: ib_uverbs_get_context_resp,
        qp_tab_size: u32,
        bf_reg_size: u32,
    }

    #[test]
    fn get_context_driver_data_both_ways() {
        let mut t = TestCtx::new(1, false);
        let vctx = t.vctx();
        let mut cmd = DrvGetContext {
            flags: 0x5a,
            ..Default::default()
        };
        let mut resp = DrvGetContextResp::default();
        let k = FakeKernel::new().on_ioctl(|c| {
            let a = c.attrs();
            assert_eq!(a.len(), 4);
            // UHW_IN inline (8 bytes), UHW_OUT 8 bytes.
            assert_eq!((a[2].attr_id, a[2].len, a[2].data), (0x1000, 8, 0x5a));
            assert_eq!((a[3].attr_id, a[3].len), (0x1001, 8));
            c.write_out(0x1001, &cat(&[&le32(64), &le32(512)]));
            c.write_out_val(0, 8u32);
            0
        });
        // SAFETY: live context and buffers.
        let (ret, _) = with_kernel(k, || unsafe {
            ibv_cmd_get_context(
                vctx,
                &mut cmd.ibv_cmd,
                size_of::<DrvGetContext>(),
                &mut resp.ibv_resp,
                size_of::<DrvGetContextResp>(),
            )
        });
        assert_eq!(ret, 0);
        assert_eq!((resp.qp_tab_size, resp.bf_reg_size), (64, 512));

        // The same through write(): one contiguous command in the
        // provider's buffer, the response before the provider's part.
        let mut t = TestCtx::new(1, false);
        let vctx = t.vctx();
        let mut resp = DrvGetContextResp::default();
        let resp_addr = &resp as *const _ as u64;
        let k = FakeKernel::new().on_ioctl(|_| libc::ENOTTY).on_write(|w| {
            w.respond(&cat(&[&le32(7), &le32(3), &le32(64), &le32(512)]));
            0
        });
        // SAFETY: live context and buffers.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_get_context(
                vctx,
                &mut cmd.ibv_cmd,
                size_of::<DrvGetContext>(),
                &mut resp.ibv_resp,
                size_of::<DrvGetContextResp>(),
            )
        });
        assert_eq!(ret, 0);
        let expected = cat(&[
            &le32(0),
            &le16(6),
            &le16(4),
            &le64(resp_addr),
            &le32(0x5a),
            &le32(0),
        ]);
        assert_eq!(sent[1].write_bytes(), &expected[..]);
        // SAFETY: test context.
        unsafe { assert_eq!(((*t.ctx()).async_fd, (*t.ctx()).num_comp_vectors), (7, 3)) };
        assert_eq!((resp.qp_tab_size, resp.bf_reg_size), (64, 512));
    }

    #[test]
    fn get_context_error_is_returned() {
        let mut t = TestCtx::new(1, false);
        let vctx = t.vctx();
        let mut cmd = ibv_get_context::default();
        let mut resp = ib_uverbs_get_context_resp::default();
        let k = FakeKernel::new().on_ioctl(|_| libc::EIO);
        // SAFETY: live context and buffers.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_get_context(
                vctx,
                &mut cmd,
                size_of::<ibv_get_context>(),
                &mut resp,
                size_of::<ib_uverbs_get_context_resp>(),
            )
        });
        assert_eq!((ret, sent.len()), (libc::EIO, 1));
    }

    #[test]
    fn query_context_and_async_fd() {
        let mut t = TestCtx::new(1, false);
        let ctx = t.ctx();
        let k = FakeKernel::new().on_ioctl(|c| match (c.object_id(), c.method_id()) {
            (0, 4) => {
                c.write_out_val(0, 6i32);
                c.write_out_val(1, 1u64);
                0
            }
            (16, 0) => {
                c.set_data(0, 42);
                0
            }
            other => panic!("{other:?}"),
        });
        // SAFETY: live context.
        let ((r1, r2), sent) = with_kernel(k, || unsafe {
            (
                ibv_cmd_query_context(ctx, ptr::null_mut()),
                ibv_cmd_alloc_async_fd(ctx),
            )
        });
        assert_eq!((r1, r2), (0, 0));
        // SAFETY: test context.
        unsafe { assert_eq!(((*ctx).num_comp_vectors, (*ctx).async_fd), (6, 42)) };
        assert_eq!(t.dev.core_support, 1);
        let (_, a) = sent[1].ioctl();
        assert_eq!(
            (a[0].attr_id, a[0].len, a[0].flags, a[0].data),
            (0, 0, 1, 0)
        );
    }

    fn port_resp() -> ib_uverbs_query_port_resp {
        ib_uverbs_query_port_resp {
            port_cap_flags: 0x0401_0000,
            max_msg_sz: 0x8000_0000,
            gid_tbl_len: 1024,
            pkey_tbl_len: 64,
            lid: 3,
            sm_lid: 1,
            state: 4,
            max_mtu: 5,
            active_mtu: 3,
            lmc: 0,
            active_width: 2,
            active_speed: 32,
            phys_state: 5,
            link_layer: 2,
            flags: 1,
            ..Default::default()
        }
    }

    fn check_port(p: &ibv_port_attr) {
        assert_eq!(
            (p.state, p.max_mtu, p.active_mtu, p.gid_tbl_len),
            (4, 5, 3, 1024)
        );
        assert_eq!(
            (p.port_cap_flags, p.max_msg_sz, p.pkey_tbl_len),
            (0x0401_0000, 0x8000_0000, 64)
        );
        assert_eq!(
            (p.lid, p.sm_lid, p.active_width, p.active_speed),
            (3, 1, 2, 32)
        );
        assert_eq!((p.phys_state, p.link_layer, p.flags), (5, 2, 1));
    }

    #[test]
    fn query_port_over_ioctl() {
        let mut t = TestCtx::new(1, false);
        let ctx = t.ctx();
        // SAFETY: plain C struct, valid when zero.
        let mut attr: ibv_port_attr = unsafe { core::mem::zeroed() };
        let mut cmd = ibv_query_port::default();
        let k = FakeKernel::new().on_ioctl(|c| {
            assert_eq!((c.object_id(), c.method_id()), (0, 2));
            let a = c.attrs();
            assert_eq!((a[0].attr_id, a[0].len, a[0].data), (0, 8, 1));
            assert_eq!((a[1].attr_id, a[1].len), (1, 48));
            c.write_out_val(
                1,
                ib_uverbs_query_port_resp_ex {
                    legacy_resp: port_resp(),
                    port_cap_flags2: 0x12,
                    reserved: [0; 6],
                },
            );
            0
        });
        // SAFETY: live context and buffers.
        let (ret, _) = with_kernel(k, || unsafe {
            ibv_cmd_query_port(ctx, 1, &mut attr, &mut cmd, size_of::<ibv_query_port>())
        });
        assert_eq!(ret, 0);
        check_port(&attr);
        assert_eq!(attr.port_cap_flags2, 0x12);
    }

    #[test]
    fn query_port_fills_active_speed_ex_only_for_a_65_provider() {
        let speed_ex = 0x0a0b0c0du32.to_ne_bytes();
        for pabi in [crate::pabi::Pabi::P34, crate::pabi::Pabi::P65] {
            let mut t = TestCtx::new(1, false);
            t.state().pabi = pabi;
            let ctx = t.ctx();
            // SAFETY: plain C struct, valid when zero; 65's, the larger one,
            // with a marker where 44's ends.
            let mut attr: verbs65::ibv_port_attr = unsafe { core::mem::zeroed() };
            attr.active_speed_ex = 0x77;
            let mut cmd = ibv_query_port::default();
            let k = FakeKernel::new().on_ioctl(move |c| {
                c.write_out_val(
                    1,
                    ib_uverbs_query_port_resp_ex {
                        legacy_resp: port_resp(),
                        port_cap_flags2: 0x12,
                        reserved: [0, 0, speed_ex[0], speed_ex[1], speed_ex[2], speed_ex[3]],
                    },
                );
                0
            });
            // SAFETY: live context and a buffer of 65's size.
            let (ret, _) = with_kernel(k, || unsafe {
                ibv_cmd_query_port(ctx, 1, (&mut attr as *mut verbs65::ibv_port_attr).cast(), &mut cmd,
                                   size_of::<ibv_query_port>())
            });
            assert_eq!(ret, 0);
            // A 34 provider's buffer ends before the field: left alone.
            let want = if pabi == crate::pabi::Pabi::P65 { 0x0a0b0c0d } else { 0x77 };
            assert_eq!(attr.active_speed_ex, want, "{pabi:?}");
            assert_eq!(attr.port_cap_flags2, 0x12);
        }
    }

    #[test]
    fn query_port_over_write() {
        let mut t = TestCtx::new(1, false);
        let ctx = t.ctx();
        // SAFETY: plain C struct, valid when zero.
        let mut attr: ibv_port_attr = unsafe { core::mem::zeroed() };
        attr.port_cap_flags2 = 0x77;
        let mut cmd = ibv_query_port::default();
        cmd.core_payload.reserved = [0xff; 7];
        let k = FakeKernel::new()
            .on_ioctl(|_| libc::EPROTONOSUPPORT)
            .on_write(|w| {
                w.respond(&bytes(&port_resp()));
                0
            });
        // SAFETY: live context and buffers.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_query_port(ctx, 2, &mut attr, &mut cmd, size_of::<ibv_query_port>())
        });
        assert_eq!(ret, 0);
        check_port(&attr);
        assert_eq!(
            attr.port_cap_flags2, 0x77,
            "the write() answer has no cap flags 2"
        );
        let b = sent[1].write_bytes();
        // QUERY_PORT is 2: 24 bytes = 6 words in, 40 bytes = 10 words out;
        // response address, port 2, seven reserved zero bytes.
        assert_eq!(b.len(), 24);
        assert_eq!(&b[..8], &cat(&[&le32(2), &le16(6), &le16(10)])[..]);
        assert_eq!(&b[16..24], &[2, 0, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn query_port_speed() {
        let mut t = TestCtx::new(1, false);
        let ctx = t.ctx();
        let mut speed = 0u64;
        let k = FakeKernel::new().on_ioctl(|c| {
            c.write_out_val(UVERBS_ATTR_QUERY_PORT_SPEED_RESP, 4000u64);
            0
        });
        // SAFETY: live context and speed.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_query_port_speed(ctx, 2, &mut speed) });
        assert_eq!((ret, speed), (0, 4000));
        let (hdr, a) = sent[0].ioctl();
        // UVERBS_OBJECT_DEVICE (0), QUERY_PORT_SPEED (7): the port as a
        // 64-bit constant, the speed's 8 bytes by pointer.
        assert_eq!((hdr.object_id, hdr.method_id), (0, 7));
        assert_eq!(
            attr_tuples(a),
            vec![(0, 8, 1, 2), (1, 8, 1, &speed as *const u64 as u64)]
        );

        // A kernel without the method: its errno, the speed untouched, and
        // no write() fallback.
        let k = FakeKernel::new().on_ioctl(|_| libc::EPROTONOSUPPORT);
        // SAFETY: as above.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_query_port_speed(ctx, 1, &mut speed) });
        assert_eq!((ret, speed, sent.len()), (libc::EPROTONOSUPPORT, 4000, 1));
    }

    fn dev_resp() -> ib_uverbs_ex_query_device_resp {
        let mut r = ib_uverbs_ex_query_device_resp::default();
        r.base.node_guid = 0x1122;
        r.base.max_qp = 100;
        r.base.max_cqe = 0x7fff_ffff;
        r.base.atomic_cap = 1;
        r.base.phys_port_cnt = 1;
        r.base.max_pkeys = 64;
        r.odp_caps.general_caps = 3;
        r.odp_caps.per_transport_caps.ud_odp_caps = 9;
        r.timestamp_mask = 0xffff;
        r.hca_core_clock = 1000;
        r.device_cap_flags_ex = 1 << 40;
        r.max_dm_size = 4096;
        r.xrc_odp_caps = 5;
        r
    }

    #[test]
    fn query_device_ex_copies_what_both_sides_know() {
        let mut t = TestCtx::new(1, false);
        t.sysfs.num_ports = 3;
        let ctx = t.ctx();
        // SAFETY: plain C struct, valid when zero.
        let mut attr: ibv_device_attr_ex = unsafe { core::mem::zeroed() };
        attr.max_dm_size = 0xdead;
        // The kernel knows up to hca_core_clock only.
        let known = offset_end!(ib_uverbs_ex_query_device_resp, hca_core_clock);
        let k = FakeKernel::new().on_write(move |w| {
            let mut r = dev_resp();
            r.response_length = known as u32;
            w.respond_val(r);
            0
        });
        let mut resp = ib_uverbs_ex_query_device_resp::default();
        let mut resp_size = size_of::<ib_uverbs_ex_query_device_resp>();
        // SAFETY: live context and buffers.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_query_device_any(
                ctx,
                ptr::null(),
                &mut attr,
                size_of::<ibv_device_attr_ex>(),
                &mut resp,
                &mut resp_size,
            )
        });
        assert_eq!(ret, 0);
        assert_eq!(resp_size, known);
        let b = sent[0].write_bytes();
        assert_eq!(
            &b[..8],
            &cat(&[&le32(0x8000_0001), &le16(1), &le16(38)])[..]
        );
        let o = &attr.orig_attr;
        assert_eq!(
            (o.node_guid, o.max_qp, o.max_cqe, o.atomic_cap),
            (0x1122, 100, 0x7fff_ffff, 1)
        );
        assert_eq!((o.max_pkeys, o.phys_port_cnt), (64, 1));
        assert_eq!(attr.odp_caps.general_caps, 3);
        assert_eq!(attr.odp_caps.per_transport_caps.ud_odp_caps, 9);
        assert_eq!(
            (attr.completion_timestamp_mask, attr.hca_core_clock),
            (0xffff, 1000)
        );
        assert_eq!(attr.device_cap_flags_ex, 0, "beyond the response length");
        assert_eq!(attr.max_dm_size, 0, "cleared, then not reported");
        assert_eq!(attr.phys_port_cnt_ex, 3, "from sysfs");
    }

    #[test]
    fn query_device_ex_unsupported_falls_back_to_query_device() {
        let mut t = TestCtx::new(1, false);
        let ctx = t.ctx();
        // SAFETY: plain C struct, valid when zero.
        let mut attr: ibv_device_attr_ex = unsafe { core::mem::zeroed() };
        let k = FakeKernel::new().on_write(|w| {
            if w.hdr().command & IB_USER_VERBS_CMD_FLAG_EXTENDED != 0 {
                return libc::EOPNOTSUPP;
            }
            w.respond_val(dev_resp().base);
            0
        });
        // SAFETY: live context and buffers.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_query_device_any(
                ctx,
                ptr::null(),
                &mut attr,
                size_of::<ibv_device_attr_ex>(),
                ptr::null_mut(),
                ptr::null_mut(),
            )
        });
        assert_eq!(ret, 0);
        assert_eq!(sent.len(), 2);
        // QUERY_DEVICE is 1: 16 bytes = 4 words in, 176 = 44 words out.
        assert_eq!(
            &sent[1].write_bytes()[..8],
            &cat(&[&le32(1), &le16(4), &le16(44)])[..]
        );
        assert_eq!(attr.orig_attr.max_qp, 100);
        assert_eq!(attr.odp_caps.general_caps, 0);
        assert_eq!(
            attr.phys_port_cnt_ex, 0,
            "attr_size was reduced to the basic struct"
        );
    }

    #[test]
    fn query_device_argument_errors() {
        let mut t = TestCtx::new(1, false);
        let ctx = t.ctx();
        // SAFETY: plain C struct, valid when zero.
        let mut attr: ibv_device_attr_ex = unsafe { core::mem::zeroed() };
        let input = ibv_query_device_ex_input { comp_mask: 1 };
        // SAFETY: live context and buffers.
        let (r, sent) = with_kernel(FakeKernel::new(), || unsafe {
            (
                ibv_cmd_query_device_any(
                    ctx,
                    &input,
                    &mut attr,
                    size_of::<ibv_device_attr_ex>(),
                    ptr::null_mut(),
                    ptr::null_mut(),
                ),
                ibv_cmd_query_device_any(
                    ctx,
                    ptr::null(),
                    &mut attr,
                    10,
                    ptr::null_mut(),
                    ptr::null_mut(),
                ),
            )
        });
        assert_eq!(r, (libc::EINVAL, libc::EINVAL));
        assert!(sent.is_empty());
        // Other failures of the extended command are final.
        let k = FakeKernel::new().on_write(|_| libc::EIO);
        // SAFETY: as above.
        let (r, sent) = with_kernel(k, || unsafe {
            ibv_cmd_query_device_any(
                ctx,
                ptr::null(),
                &mut attr,
                size_of::<ibv_device_attr_ex>(),
                ptr::null_mut(),
                ptr::null_mut(),
            )
        });
        assert_eq!((r, sent.len()), (libc::EIO, 1));
    }
}
