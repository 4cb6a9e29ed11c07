//! Queue pairs (upstream's `cmd_qp.c` and the QP helpers of `cmd.c`).

use core::mem::{offset_of, size_of};
use core::ptr::{self, addr_of_mut};
use libc::c_int;

use super::ioctl::{ibv_command_buffer, CmdBuf, CmdSpace};
use super::write::{
    execute_cmd_write, execute_cmd_write_ex, execute_cmd_write_req, execute_ioctl_fallback,
    execute_write_bufs, execute_write_bufs_ex, fallback_result, Fallback,
};
use super::{abi_ver, cmd_state, is_destroy_err};
use crate::abi::driver::*;
use crate::abi::driver65;
use crate::abi::kern::*;
use crate::abi::verbs::*;
use rdma_util::ffi::set_errno;
use crate::cmd::cmd_bit;
use rdma_util::ensure;

/// QP creation flags the kernel interface knows.
const CREATE_QP_EX_SUP_CREATE_FLAGS: u32 = IBV_QP_CREATE_BLOCK_SELF_MCAST_LB
    | IBV_QP_CREATE_SCATTER_FCS
    | IBV_QP_CREATE_CVLAN_STRIPPING
    | IBV_QP_CREATE_SOURCE_QPN
    | IBV_QP_CREATE_PCI_WRITE_END_PADDING;

// The QP_CREATE ioctl sends and receives `ibv_qp_cap` as the kernel's
// `ib_uverbs_qp_cap`: same layout.
const _: () = assert!(size_of::<ibv_qp_cap>() == size_of::<ib_uverbs_qp_cap>());
const _: () =
    assert!(offset_of!(ibv_qp_cap, max_send_wr) == offset_of!(ib_uverbs_qp_cap, max_send_wr));
const _: () =
    assert!(offset_of!(ibv_qp_cap, max_recv_wr) == offset_of!(ib_uverbs_qp_cap, max_recv_wr));
const _: () =
    assert!(offset_of!(ibv_qp_cap, max_send_sge) == offset_of!(ib_uverbs_qp_cap, max_send_sge));
const _: () =
    assert!(offset_of!(ibv_qp_cap, max_recv_sge) == offset_of!(ib_uverbs_qp_cap, max_recv_sge));
const _: () = assert!(
    offset_of!(ibv_qp_cap, max_inline_data) == offset_of!(ib_uverbs_qp_cap, max_inline_data)
);

fn einval() -> c_int {
    set_errno(libc::EINVAL);
    libc::EINVAL
}

/// Fills the new QP's public fields from its creation attributes (upstream's
/// `set_qp`).
unsafe fn set_qp(
    vqp: *mut verbs_qp,
    qp: *mut ibv_qp,
    a: &ibv_qp_init_attr_ex,
    vxrcd: *mut verbs_xrcd,
    pabi: crate::pabi::Pabi,
) {
    // SAFETY: qp (and vqp if not NULL, in `pabi`'s layout) are the caller's
    // live objects.
    unsafe {
        (*qp).qp_context = a.qp_context;
        (*qp).pd = a.pd;
        (*qp).send_cq = a.send_cq;
        (*qp).recv_cq = a.recv_cq;
        (*qp).srq = a.srq;
        (*qp).qp_type = a.qp_type;
        (*qp).state = IBV_QPS_RESET;
        (*qp).events_completed = 0;
        libc::pthread_mutex_init(addr_of_mut!((*qp).mutex), ptr::null());
        libc::pthread_cond_init(addr_of_mut!((*qp).cond), ptr::null());
        if !vqp.is_null() {
            // Where comp_mask and xrcd are depends on the provider's release.
            let (comp_mask, xrcd) = crate::pabi::vqp_tail(vqp, pabi);
            *comp_mask = 0;
            if a.comp_mask & IBV_QP_INIT_ATTR_XRCD != 0 {
                *comp_mask |= VERBS_QP_XRCD;
                *xrcd = vxrcd;
            }
        }
    }
}

/// The classic CREATE_QP core struct (also the start of the extended one).
fn create_qp_core(
    pd_handle: u32,
    qp: *mut ibv_qp,
    a: &ibv_qp_init_attr_ex,
    srq_handle: u32,
    send_cq_handle: u32,
    recv_cq_handle: u32,
) -> ib_uverbs_create_qp {
    ib_uverbs_create_qp {
        pd_handle,
        user_handle: qp as usize as u64,
        max_send_wr: a.cap.max_send_wr,
        max_recv_wr: a.cap.max_recv_wr,
        max_send_sge: a.cap.max_send_sge,
        max_recv_sge: a.cap.max_recv_sge,
        max_inline_data: a.cap.max_inline_data,
        sq_sig_all: a.sq_sig_all as u8,
        qp_type: a.qp_type as u8,
        srq_handle,
        is_srq: (!a.srq.is_null()) as u8,
        recv_cq_handle,
        send_cq_handle,
        ..Default::default()
    }
}

/// The shared body of `ibv_cmd_create_qp*`: the QP_CREATE ioctl, or the
/// CREATE_QP write() command in its ABI 3/4/current form, or the extended
/// one when creation flags or an indirection table require it.
unsafe fn icmd_create_qp(
    ctx: *mut ibv_context,
    vqp: *mut verbs_qp,
    qp_in: *mut ibv_qp,
    attr_ex: *mut ibv_qp_init_attr_ex,
    link: *mut ibv_command_buffer,
) -> c_int {
    // SAFETY (whole function): ctx, the QP and attr_ex are live; the
    // objects attr_ex names are live where its fields and comp_mask say so;
    // link is the compatibility buffer.
    unsafe {
        let Some(state) = cmd_state(ctx) else {
            return einval();
        };
        // The layout of the provider's verbs_qp.
        let pabi = state.pabi;
        let mut cmd_space = CmdSpace::new();
        let mut cmdb = match CmdBuf::with_link_in(&mut cmd_space, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE, 15, link)
        {
            Ok(b) => b,
            Err(e) => return e,
        };
        let a = &mut *attr_ex;
        let qp = if vqp.is_null() {
            qp_in
        } else {
            addr_of_mut!((*vqp).base.qp)
        };
        let mut qp_num: u32 = 0;
        let pd_handle: u32;
        let mut send_cq_handle: u32 = 0;
        let mut recv_cq_handle: u32 = 0;
        let mut vxrcd: *mut verbs_xrcd = ptr::null_mut();
        let mut create_flags: u32 = 0;

        (*qp).context = ctx;

        match a.qp_type {
            IBV_QPT_XRC_RECV => {
                if a.comp_mask & IBV_QP_INIT_ATTR_XRCD == 0 || a.xrcd.is_null() {
                    return einval();
                }
                vxrcd = a.xrcd.cast();
                cmdb.fill_in_obj(UVERBS_ATTR_CREATE_QP_XRCD_HANDLE, (*vxrcd).handle);
                pd_handle = (*vxrcd).handle;
            }
            IBV_QPT_RC | IBV_QPT_UD | IBV_QPT_UC | IBV_QPT_RAW_PACKET | IBV_QPT_XRC_SEND
            | IBV_QPT_DRIVER => {
                if a.comp_mask & IBV_QP_INIT_ATTR_PD == 0 || a.pd.is_null() {
                    return einval();
                }
                cmdb.fill_in_obj(UVERBS_ATTR_CREATE_QP_PD_HANDLE, (*a.pd).handle);
                pd_handle = (*a.pd).handle;

                if a.comp_mask & IBV_QP_INIT_ATTR_IND_TABLE != 0 {
                    if a.cap.max_recv_wr != 0
                        || a.cap.max_recv_sge != 0
                        || !a.recv_cq.is_null()
                        || !a.srq.is_null()
                        || a.rwq_ind_tbl.is_null()
                    {
                        return einval();
                    }
                    cmdb.require_ex();
                    cmdb.fill_in_obj(
                        UVERBS_ATTR_CREATE_QP_IND_TABLE_HANDLE,
                        (*a.rwq_ind_tbl).ind_tbl_handle as u32,
                    );
                    // A send CQ only matters with send work requests.
                    if a.cap.max_send_wr != 0 {
                        if a.send_cq.is_null() {
                            return einval();
                        }
                        cmdb.fill_in_obj(UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE, (*a.send_cq).handle);
                        send_cq_handle = (*a.send_cq).handle;
                    }
                } else {
                    if a.send_cq.is_null() {
                        return einval();
                    }
                    cmdb.fill_in_obj(UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE, (*a.send_cq).handle);
                    send_cq_handle = (*a.send_cq).handle;
                    if a.qp_type != IBV_QPT_XRC_SEND {
                        if a.recv_cq.is_null() {
                            return einval();
                        }
                        cmdb.fill_in_obj(UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE, (*a.recv_cq).handle);
                        recv_cq_handle = (*a.recv_cq).handle;
                    }
                }
                // What the write() interface always reported for XRC senders.
                if a.qp_type == IBV_QPT_XRC_SEND {
                    a.cap.max_recv_wr = 0;
                    a.cap.max_recv_sge = 0;
                }
            }
            _ => return einval(),
        }

        let handle = cmdb.fill_out_obj(UVERBS_ATTR_CREATE_QP_HANDLE);
        cmdb.fill_const_in(UVERBS_ATTR_CREATE_QP_TYPE, a.qp_type as u64);
        cmdb.fill_in_u64(UVERBS_ATTR_CREATE_QP_USER_HANDLE, qp as usize as u64);
        cmdb.fill_in_ptr(
            UVERBS_ATTR_CREATE_QP_CAP,
            addr_of_mut!(a.cap).cast::<ib_uverbs_qp_cap>(),
        );
        cmdb.fill_in_fd(UVERBS_ATTR_CREATE_QP_EVENT_FD, (*ctx).async_fd);
        if state.imported {
            cmdb.require_ioctl();
        }
        if a.sq_sig_all != 0 {
            create_flags |= IB_UVERBS_QP_CREATE_SQ_SIG_ALL;
        }
        if a.comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS != 0 {
            if a.create_flags & !CREATE_QP_EX_SUP_CREATE_FLAGS != 0 {
                return einval();
            }
            cmdb.require_ex();
            create_flags |= a.create_flags;
            if a.create_flags & IBV_QP_CREATE_SOURCE_QPN != 0 {
                cmdb.fill_in_u32(UVERBS_ATTR_CREATE_QP_SOURCE_QPN, a.source_qpn);
                // The ioctl carries the source QPN as its own attribute.
                create_flags &= !IBV_QP_CREATE_SOURCE_QPN;
            }
        }
        if create_flags != 0 {
            cmdb.fill_in_u32(UVERBS_ATTR_CREATE_QP_FLAGS, create_flags);
        }
        if !a.srq.is_null() {
            cmdb.fill_in_obj(UVERBS_ATTR_CREATE_QP_SRQ_HANDLE, (*a.srq).handle);
        }
        cmdb.fill_out_ptr(
            UVERBS_ATTR_CREATE_QP_RESP_CAP,
            addr_of_mut!(a.cap).cast::<ib_uverbs_qp_cap>(),
        );
        cmdb.fill_out_ptr(UVERBS_ATTR_CREATE_QP_RESP_QP_NUM, &mut qp_num);

        let srq_handle = if a.srq.is_null() { 0 } else { (*a.srq).handle };
        match execute_ioctl_fallback(ctx, cmd_bit!(create_qp), cmdb.as_ptr()) {
            Fallback::TryWrite => {
                let core =
                    create_qp_core(pd_handle, qp, a, srq_handle, send_cq_handle, recv_cq_handle);
                let abi = abi_ver();
                if abi > 4 {
                    match execute_write_bufs::<ibv_create_qp>(ctx, link, core) {
                        Ok(r) => {
                            (*qp).handle = r.qp_handle;
                            (*qp).qp_num = r.qpn;
                            a.cap.max_recv_sge = r.max_recv_sge;
                            a.cap.max_send_sge = r.max_send_sge;
                            a.cap.max_recv_wr = r.max_recv_wr;
                            a.cap.max_send_wr = r.max_send_wr;
                            a.cap.max_inline_data = r.max_inline_data;
                        }
                        Err(e) => return e,
                    }
                } else if abi == 4 {
                    match execute_write_bufs::<ibv_create_qp_v4>(ctx, link, core) {
                        Ok(r) => {
                            (*qp).handle = r.qp_handle;
                            (*qp).qp_num = r.qpn;
                            a.cap.max_recv_sge = r.max_recv_sge;
                            a.cap.max_send_sge = r.max_send_sge;
                            a.cap.max_recv_wr = r.max_recv_wr;
                            a.cap.max_send_wr = r.max_send_wr;
                            a.cap.max_inline_data = r.max_inline_data;
                        }
                        Err(e) => return e,
                    }
                } else {
                    match execute_write_bufs::<ibv_create_qp_v3>(ctx, link, core) {
                        Ok(r) => {
                            (*qp).handle = r.qp_handle;
                            (*qp).qp_num = r.qpn;
                        }
                        Err(e) => return e,
                    }
                }
                set_qp(vqp, qp, a, vxrcd, pabi);
                return 0;
            }
            Fallback::TryWriteEx => {
                let b =
                    create_qp_core(pd_handle, qp, a, srq_handle, send_cq_handle, recv_cq_handle);
                let mut core = ib_uverbs_ex_create_qp {
                    user_handle: b.user_handle,
                    pd_handle: b.pd_handle,
                    send_cq_handle: b.send_cq_handle,
                    recv_cq_handle: b.recv_cq_handle,
                    srq_handle: b.srq_handle,
                    max_send_wr: b.max_send_wr,
                    max_recv_wr: b.max_recv_wr,
                    max_send_sge: b.max_send_sge,
                    max_recv_sge: b.max_recv_sge,
                    max_inline_data: b.max_inline_data,
                    sq_sig_all: b.sq_sig_all,
                    qp_type: b.qp_type,
                    is_srq: b.is_srq,
                    ..Default::default()
                };
                if a.comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS != 0 {
                    core.create_flags = a.create_flags;
                    if a.create_flags & IBV_QP_CREATE_SOURCE_QPN != 0 {
                        core.source_qpn = a.source_qpn;
                    }
                }
                if a.comp_mask & IBV_QP_INIT_ATTR_IND_TABLE != 0 {
                    core.rwq_ind_tbl_handle = (*a.rwq_ind_tbl).ind_tbl_handle as u32;
                    core.comp_mask = IB_UVERBS_CREATE_QP_MASK_IND_TABLE;
                }
                match execute_write_bufs_ex::<ibv_create_qp_ex>(ctx, link, core) {
                    Ok(r) => {
                        (*qp).handle = r.base.qp_handle;
                        (*qp).qp_num = r.base.qpn;
                        a.cap.max_recv_sge = r.base.max_recv_sge;
                        a.cap.max_send_sge = r.base.max_send_sge;
                        a.cap.max_recv_wr = r.base.max_recv_wr;
                        a.cap.max_send_wr = r.base.max_send_wr;
                        a.cap.max_inline_data = r.base.max_inline_data;
                    }
                    Err(e) => return e,
                }
                set_qp(vqp, qp, a, vxrcd, pabi);
                return 0;
            }
            Fallback::Success => {}
            Fallback::Error(e) => return e,
        }
        (*qp).handle = cmdb.read_obj(handle);
        (*qp).qp_num = qp_num;
        set_qp(vqp, qp, a, vxrcd, pabi);
    }
    0
}

rdma_util::export_versioned! {
    /// Creates a QP from the basic attributes; on success `attr->cap` holds
    /// the actual capacities. Returns 0 or an errno value.
    fn ibv_cmd_create_qp(pd: *mut ibv_pd, qp: *mut ibv_qp, attr: *mut ibv_qp_init_attr,
                         cmd: *mut ibv_create_qp, cmd_size: usize,
                         resp: *mut ib_uverbs_create_qp_resp, resp_size: usize) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(!pd.is_null() && !qp.is_null() && !attr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes its buffers (or NULL).
        let mut cmd_space = CmdSpace::new();
        let cmdb = match unsafe { CmdBuf::compat_in(&mut cmd_space, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE,
                                                  cmd, cmd_size, resp, resp_size) } {
            Ok(b) => b,
            Err(e) => return e,
        };
        // SAFETY: live PD, QP and attributes.
        unsafe {
            let at = &mut *attr;
            let mut attr_ex: ibv_qp_init_attr_ex = core::mem::zeroed();
            attr_ex.qp_context = at.qp_context;
            attr_ex.send_cq = at.send_cq;
            attr_ex.recv_cq = at.recv_cq;
            attr_ex.srq = at.srq;
            attr_ex.cap = at.cap;
            attr_ex.qp_type = at.qp_type;
            attr_ex.sq_sig_all = at.sq_sig_all;
            attr_ex.comp_mask = IBV_QP_INIT_ATTR_PD;
            attr_ex.pd = pd;
            let ret = icmd_create_qp((*pd).context, ptr::null_mut(), qp, &mut attr_ex, cmdb.as_ptr());
            if ret == 0 {
                at.cap = attr_ex.cap;
            }
            ret
        }
    }
}
private_abi_both!(ibv_cmd_create_qp);

rdma_util::export_versioned! {
    /// Creates a QP from extended attributes limited to PD, XRC domain and
    /// send-ops flags. Returns 0 or an errno value (errno set too).
    fn ibv_cmd_create_qp_ex(context: *mut ibv_context, qp: *mut verbs_qp,
                            attr_ex: *mut ibv_qp_init_attr_ex, cmd: *mut ibv_create_qp,
                            cmd_size: usize, resp: *mut ib_uverbs_create_qp_resp,
                            resp_size: usize) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!context.is_null() && !qp.is_null() && !attr_ex.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes its buffers (or NULL).
        let mut cmd_space = CmdSpace::new();
        let cmdb = match unsafe { CmdBuf::compat_in(&mut cmd_space, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE,
                                                  cmd, cmd_size, resp, resp_size) } {
            Ok(b) => b,
            Err(e) => return e,
        };
        // SAFETY: live attributes.
        let mask = unsafe { (*attr_ex).comp_mask };
        if mask & !(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) != 0 {
            return einval();
        }
        // SAFETY: live context, QP and attributes.
        unsafe { icmd_create_qp(context, qp, ptr::null_mut(), attr_ex, cmdb.as_ptr()) }
    }
}
private_abi_both!(ibv_cmd_create_qp_ex);

/// The body of both ibv_cmd_create_qp_ex2: the provider's write() buffers
/// as the compatibility buffer, its own attributes (`driver`) linked after.
///
/// # Safety
/// The provider's live context, QP (of its ABI's layout, told by the
/// context) and attributes; `cmd`/`resp` NULL or valid for their sizes;
/// `driver` NULL or a valid chain.
#[allow(clippy::too_many_arguments)]
unsafe fn create_qp_ex2(context: *mut ibv_context, qp: *mut verbs_qp,
                        attr_ex: *mut ibv_qp_init_attr_ex, cmd: *mut ibv_create_qp_ex,
                        cmd_size: usize, resp: *mut ib_uverbs_ex_create_qp_resp,
                        resp_size: usize, driver: *mut ibv_command_buffer) -> c_int {
    ensure!(!context.is_null() && !qp.is_null() && !attr_ex.is_null(), libc::EINVAL, libc::EINVAL);
    let mut cmd_space = CmdSpace::new();
    // SAFETY: the provider passes its buffers (or NULL) and its own chain
    // (or NULL), live for the call.
    let cmdb = match unsafe { CmdBuf::compat_link_in(&mut cmd_space, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE,
                                                     driver, cmd, cmd_size, resp, resp_size) } {
        Ok(b) => b,
        Err(e) => return e,
    };
    // SAFETY: live attributes.
    let mask = unsafe { (*attr_ex).comp_mask };
    let supported = IBV_QP_INIT_ATTR_PD
        | IBV_QP_INIT_ATTR_XRCD
        | IBV_QP_INIT_ATTR_CREATE_FLAGS
        | IBV_QP_INIT_ATTR_MAX_TSO_HEADER
        | IBV_QP_INIT_ATTR_IND_TABLE
        | IBV_QP_INIT_ATTR_RX_HASH
        | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
    if mask & !supported != 0 {
        return einval();
    }
    // SAFETY: live context, QP and attributes.
    unsafe { icmd_create_qp(context, qp, ptr::null_mut(), attr_ex, cmdb.as_ptr()) }
}

rdma_util::export_versioned! {
    /// ibv_cmd_create_qp_ex2@IBVERBS_PRIVATE_34: creates a QP from extended
    /// attributes (creation flags, TSO header, RSS indirection table...).
    /// Returns 0 or an errno value (errno set too).
    fn ibv_cmd_create_qp_ex2(context: *mut ibv_context, qp: *mut verbs_qp,
                             attr_ex: *mut ibv_qp_init_attr_ex, cmd: *mut ibv_create_qp_ex,
                             cmd_size: usize, resp: *mut ib_uverbs_ex_create_qp_resp,
                             resp_size: usize) -> c_int, on_panic = libc::EIO;
    {
        // SAFETY: the provider's arguments; no attributes of its own.
        unsafe { create_qp_ex2(context, qp, attr_ex, cmd, cmd_size, resp, resp_size, ptr::null_mut()) }
    }
}
rdma_util::symver!(compat ibv_cmd_create_qp_ex2, "IBVERBS_PRIVATE_34", ibv_cmd_create_qp_ex2);

rdma_util::export_versioned! {
    /// ibv_cmd_create_qp_ex2@@IBVERBS_PRIVATE_65: the same for a verbs_qp of
    /// 65's layout, with the provider's own ioctl attributes in `driver`
    /// (NULL for none) linked after the core ones.
    fn ibv_cmd_create_qp_ex2_65(context: *mut ibv_context, qp: *mut driver65::verbs_qp,
                                attr_ex: *mut ibv_qp_init_attr_ex, cmd: *mut ibv_create_qp_ex,
                                cmd_size: usize, resp: *mut ib_uverbs_ex_create_qp_resp,
                                resp_size: usize, driver: *mut ibv_command_buffer) -> c_int,
        on_panic = libc::EIO;
    {
        // SAFETY: the provider's arguments; its context says 65, which is
        // how the body finds the fields 65's verbs_qp moved.
        unsafe { create_qp_ex2(context, qp.cast(), attr_ex, cmd, cmd_size, resp, resp_size, driver) }
    }
}
rdma_util::symver!(default ibv_cmd_create_qp_ex2, "IBVERBS_PRIVATE_65", ibv_cmd_create_qp_ex2_65);

/// The MODIFY_QP fields for the attributes in `attr_mask` (others are left
/// as the caller's command has them).
///
/// # Safety
/// `qp` and `attr` live; `cmd` writable.
unsafe fn copy_modify_qp_fields(
    qp: *mut ibv_qp,
    attr: *const ibv_qp_attr,
    attr_mask: c_int,
    cmd: *mut ib_uverbs_modify_qp,
) {
    let m = attr_mask as u32;
    // SAFETY: caller guarantee; raw place writes only.
    unsafe {
        let a = &*attr;
        (*cmd).qp_handle = (*qp).handle;
        (*cmd).attr_mask = m;
        if m & IBV_QP_STATE != 0 {
            (*cmd).qp_state = a.qp_state as u8;
        }
        if m & IBV_QP_CUR_STATE != 0 {
            (*cmd).cur_qp_state = a.cur_qp_state as u8;
        }
        if m & IBV_QP_EN_SQD_ASYNC_NOTIFY != 0 {
            (*cmd).en_sqd_async_notify = a.en_sqd_async_notify;
        }
        if m & IBV_QP_ACCESS_FLAGS != 0 {
            (*cmd).qp_access_flags = a.qp_access_flags;
        }
        if m & IBV_QP_PKEY_INDEX != 0 {
            (*cmd).pkey_index = a.pkey_index;
        }
        if m & IBV_QP_PORT != 0 {
            (*cmd).port_num = a.port_num;
        }
        if m & IBV_QP_QKEY != 0 {
            (*cmd).qkey = a.qkey;
        }
        if m & IBV_QP_AV != 0 {
            (*cmd).dest = qp_dest(&a.ah_attr);
        }
        if m & IBV_QP_PATH_MTU != 0 {
            (*cmd).path_mtu = a.path_mtu as u8;
        }
        if m & IBV_QP_TIMEOUT != 0 {
            (*cmd).timeout = a.timeout;
        }
        if m & IBV_QP_RETRY_CNT != 0 {
            (*cmd).retry_cnt = a.retry_cnt;
        }
        if m & IBV_QP_RNR_RETRY != 0 {
            (*cmd).rnr_retry = a.rnr_retry;
        }
        if m & IBV_QP_RQ_PSN != 0 {
            (*cmd).rq_psn = a.rq_psn;
        }
        if m & IBV_QP_MAX_QP_RD_ATOMIC != 0 {
            (*cmd).max_rd_atomic = a.max_rd_atomic;
        }
        if m & IBV_QP_ALT_PATH != 0 {
            (*cmd).alt_pkey_index = a.alt_pkey_index;
            (*cmd).alt_port_num = a.alt_port_num;
            (*cmd).alt_timeout = a.alt_timeout;
            (*cmd).alt_dest = qp_dest(&a.alt_ah_attr);
        }
        if m & IBV_QP_MIN_RNR_TIMER != 0 {
            (*cmd).min_rnr_timer = a.min_rnr_timer;
        }
        if m & IBV_QP_SQ_PSN != 0 {
            (*cmd).sq_psn = a.sq_psn;
        }
        if m & IBV_QP_MAX_DEST_RD_ATOMIC != 0 {
            (*cmd).max_dest_rd_atomic = a.max_dest_rd_atomic;
        }
        if m & IBV_QP_PATH_MIG_STATE != 0 {
            (*cmd).path_mig_state = a.path_mig_state as u8;
        }
        if m & IBV_QP_DEST_QPN != 0 {
            (*cmd).dest_qp_num = a.dest_qp_num;
        }
        (*cmd).reserved = [0; 2];
    }
}

fn qp_dest(ah: &ibv_ah_attr) -> ib_uverbs_qp_dest {
    ib_uverbs_qp_dest {
        // SAFETY: both members of the GID union are plain bytes.
        dgid: unsafe { ah.grh.dgid.raw },
        flow_label: ah.grh.flow_label,
        dlid: ah.dlid,
        reserved: 0,
        sgid_index: ah.grh.sgid_index,
        hop_limit: ah.grh.hop_limit,
        traffic_class: ah.grh.traffic_class,
        sl: ah.sl,
        src_path_bits: ah.src_path_bits,
        static_rate: ah.static_rate,
        is_global: ah.is_global,
        port_num: ah.port_num,
    }
}

fn ah_attr_from(d: &ib_uverbs_qp_dest) -> ibv_ah_attr {
    ibv_ah_attr {
        grh: ibv_global_route {
            dgid: ibv_gid { raw: d.dgid },
            flow_label: d.flow_label,
            sgid_index: d.sgid_index,
            hop_limit: d.hop_limit,
            traffic_class: d.traffic_class,
        },
        dlid: d.dlid,
        sl: d.sl,
        src_path_bits: d.src_path_bits,
        static_rate: d.static_rate,
        is_global: d.is_global,
        port_num: d.port_num,
    }
}

/// Attributes from `IBV_QP_RATE_LIMIT` on exist only in the extended
/// MODIFY_QP.
fn beyond_classic_modify(attr_mask: c_int) -> bool {
    attr_mask as u32 & !(IBV_QP_RATE_LIMIT - 1) != 0
}

rdma_util::export_versioned! {
    /// Modifies a QP (write() command). Returns 0 or an errno value;
    /// EOPNOTSUPP for attributes only the extended command carries.
    fn ibv_cmd_modify_qp(qp: *mut ibv_qp, attr: *mut ibv_qp_attr, attr_mask: c_int,
                         cmd: *mut ibv_modify_qp, cmd_size: usize) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(!qp.is_null() && !attr.is_null() && !cmd.is_null(), libc::EINVAL, libc::EINVAL);
        if beyond_classic_modify(attr_mask) {
            return libc::EOPNOTSUPP;
        }
        // SAFETY: the provider passes a live QP, attributes and its buffer.
        unsafe {
            copy_modify_qp_fields(qp, attr, attr_mask, addr_of_mut!((*cmd).core_payload));
            execute_cmd_write_req((*qp).context, cmd, cmd_size)
        }
    }
}
private_abi_both!(ibv_cmd_modify_qp);

rdma_util::export_versioned! {
    /// Modifies a QP with the extended write() command (which also carries
    /// the rate limit). Returns 0 or an errno value.
    fn ibv_cmd_modify_qp_ex(qp: *mut ibv_qp, attr: *mut ibv_qp_attr, attr_mask: c_int,
                            cmd: *mut ibv_modify_qp_ex, cmd_size: usize,
                            resp: *mut ib_uverbs_ex_modify_qp_resp, resp_size: usize) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(!qp.is_null() && !attr.is_null() && !cmd.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live QP, attributes and its buffers.
        unsafe {
            let core = addr_of_mut!((*cmd).core_payload);
            copy_modify_qp_fields(qp, attr, attr_mask, addr_of_mut!((*core).base));
            if attr_mask as u32 & IBV_QP_RATE_LIMIT != 0 {
                let end = offset_of!(ibv_modify_qp_ex, core_payload)
                    + offset_of!(ib_uverbs_ex_modify_qp, rate_limit)
                    + size_of::<u32>();
                if cmd_size < end {
                    return libc::EINVAL;
                }
                (*core).rate_limit = (*attr).rate_limit;
            }
            execute_cmd_write_ex((*qp).context, cmd, cmd_size, resp, resp_size)
        }
    }
}
private_abi_both!(ibv_cmd_modify_qp_ex);

rdma_util::export_versioned! {
    /// Reads a QP's attributes (write() command) into `attr` and `init_attr`.
    /// Returns 0 or an errno value; EOPNOTSUPP for attributes the command
    /// cannot report.
    fn ibv_cmd_query_qp(qp: *mut ibv_qp, attr: *mut ibv_qp_attr, attr_mask: c_int,
                        init_attr: *mut ibv_qp_init_attr, cmd: *mut ibv_query_qp,
                        cmd_size: usize) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!qp.is_null() && !attr.is_null() && !init_attr.is_null() && !cmd.is_null(),
                libc::EINVAL, libc::EINVAL);
        if beyond_classic_modify(attr_mask) {
            return libc::EOPNOTSUPP;
        }
        // SAFETY: the provider passes a live QP, its result structs and buffer.
        unsafe {
            let mut resp = ib_uverbs_query_qp_resp::default();
            (*cmd).core_payload.qp_handle = (*qp).handle;
            (*cmd).core_payload.attr_mask = attr_mask as u32;
            let ret = execute_cmd_write((*qp).context, cmd, cmd_size, &mut resp,
                                        size_of::<ib_uverbs_query_qp_resp>());
            if ret != 0 {
                return ret;
            }
            let a = &mut *attr;
            a.qkey = resp.qkey;
            a.rq_psn = resp.rq_psn;
            a.sq_psn = resp.sq_psn;
            a.dest_qp_num = resp.dest_qp_num;
            a.qp_access_flags = resp.qp_access_flags;
            a.pkey_index = resp.pkey_index;
            a.alt_pkey_index = resp.alt_pkey_index;
            a.qp_state = resp.qp_state as ibv_qp_state;
            a.cur_qp_state = resp.cur_qp_state as ibv_qp_state;
            a.path_mtu = resp.path_mtu as ibv_mtu;
            a.path_mig_state = resp.path_mig_state as ibv_mig_state;
            a.sq_draining = resp.sq_draining;
            a.max_rd_atomic = resp.max_rd_atomic;
            a.max_dest_rd_atomic = resp.max_dest_rd_atomic;
            a.min_rnr_timer = resp.min_rnr_timer;
            a.port_num = resp.port_num;
            a.timeout = resp.timeout;
            a.retry_cnt = resp.retry_cnt;
            a.rnr_retry = resp.rnr_retry;
            a.alt_port_num = resp.alt_port_num;
            a.alt_timeout = resp.alt_timeout;
            a.cap.max_send_wr = resp.max_send_wr;
            a.cap.max_recv_wr = resp.max_recv_wr;
            a.cap.max_send_sge = resp.max_send_sge;
            a.cap.max_recv_sge = resp.max_recv_sge;
            a.cap.max_inline_data = resp.max_inline_data;
            a.ah_attr = ah_attr_from(&resp.dest);
            a.alt_ah_attr = ah_attr_from(&resp.alt_dest);

            let i = &mut *init_attr;
            i.qp_context = (*qp).qp_context;
            i.send_cq = (*qp).send_cq;
            i.recv_cq = (*qp).recv_cq;
            i.srq = (*qp).srq;
            i.qp_type = (*qp).qp_type;
            i.cap.max_send_wr = resp.max_send_wr;
            i.cap.max_recv_wr = resp.max_recv_wr;
            i.cap.max_send_sge = resp.max_send_sge;
            i.cap.max_recv_sge = resp.max_recv_sge;
            i.cap.max_inline_data = resp.max_inline_data;
            i.sq_sig_all = resp.sq_sig_all as c_int;
        }
        0
    }
}
private_abi_both!(ibv_cmd_query_qp);

/// `ibv_cmd_destroy_qp`: destroys the QP, then waits until the application
/// has acknowledged the async events the kernel reported for it.
///
/// # Safety
/// `qp` is a live QP of a live context.
pub(crate) unsafe fn destroy_qp(qp: *mut ibv_qp) -> c_int {
    // SAFETY (whole function): caller guarantee.
    unsafe {
        let ctx = (*qp).context;
        let mut cmd_space = CmdSpace::new();
        let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_DESTROY, 2) {
            Ok(b) => b,
            Err(e) => return e,
        };
        let mut resp = ib_uverbs_destroy_qp_resp::default();
        cmdb.fill_out_ptr(UVERBS_ATTR_DESTROY_QP_RESP, &mut resp);
        cmdb.fill_in_obj(UVERBS_ATTR_DESTROY_QP_HANDLE, (*qp).handle);
        let mut ret = match execute_ioctl_fallback(ctx, cmd_bit!(destroy_qp), cmdb.as_ptr()) {
            Fallback::TryWrite => {
                let mut req = ibv_destroy_qp::default();
                req.core_payload.qp_handle = (*qp).handle;
                execute_cmd_write(
                    ctx,
                    &mut req,
                    size_of::<ibv_destroy_qp>(),
                    &mut resp,
                    size_of::<ib_uverbs_destroy_qp_resp>(),
                )
            }
            f => fallback_result(f),
        };
        if is_destroy_err(&mut ret) {
            return ret;
        }
        let mutex = addr_of_mut!((*qp).mutex);
        libc::pthread_mutex_lock(mutex);
        while ptr::read_volatile(addr_of_mut!((*qp).events_completed)) != resp.events_reported {
            libc::pthread_cond_wait(addr_of_mut!((*qp).cond), mutex);
        }
        libc::pthread_mutex_unlock(mutex);
    }
    0
}

rdma_util::export_versioned! {
    /// Destroys a QP and waits for its async events to be acknowledged.
    /// Returns 0 or an errno value; EIO counts as success (without waiting)
    /// when disassociated destroy is allowed.
    fn ibv_cmd_destroy_qp(qp: *mut ibv_qp) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!qp.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live QP.
        unsafe { destroy_qp(qp) }
    }
}
private_abi_both!(ibv_cmd_destroy_qp);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::kernel::*;
    use rdma_util::mem::zeroed_unchecked;

    struct Objs {
        t: TestCtx,
        pd: Box<ibv_pd>,
        scq: Box<ibv_cq>,
        rcq: Box<ibv_cq>,
        qp: Box<verbs_qp>,
    }

    fn objs() -> Objs {
        let mut t = TestCtx::new(14, false);
        // SAFETY: plain C structs.
        let (mut pd, mut scq, mut rcq, qp): (Box<ibv_pd>, Box<ibv_cq>, Box<ibv_cq>, Box<verbs_qp>) = unsafe {
            (
                Box::new(zeroed_unchecked()),
                Box::new(zeroed_unchecked()),
                Box::new(zeroed_unchecked()),
                Box::new(zeroed_unchecked()),
            )
        };
        pd.context = t.ctx();
        pd.handle = 1;
        scq.handle = 2;
        rcq.handle = 3;
        Objs {
            t,
            pd,
            scq,
            rcq,
            qp,
        }
    }

    #[repr(C)]
    #[derive(Default)]
    struct RxeQpResp {
        ibv_resp: ib_uverbs_create_qp_resp,
        mi: [u64; 4],
    }

    fn init_attr(o: &mut Objs) -> ibv_qp_init_attr {
        // SAFETY: plain C struct.
        let mut a: ibv_qp_init_attr = unsafe { zeroed_unchecked() };
        a.send_cq = &mut *o.scq;
        a.recv_cq = &mut *o.rcq;
        a.cap = ibv_qp_cap {
            max_send_wr: 10,
            max_recv_wr: 20,
            max_send_sge: 1,
            max_recv_sge: 2,
            max_inline_data: 64,
        };
        a.qp_type = IBV_QPT_RC;
        a.sq_sig_all = 1;
        a.qp_context = 0x1234 as *mut libc::c_void;
        a
    }

    #[test]
    fn create_qp_over_ioctl() {
        let mut o = objs();
        let mut attr = init_attr(&mut o);
        let mut cmd = ibv_create_qp::default();
        let mut resp = RxeQpResp::default();
        let qp: *mut ibv_qp = addr_of_mut!(o.qp.base.qp);
        let qp_addr = qp as u64;
        let k = FakeKernel::new().on_ioctl(move |c| {
            assert_eq!((c.object_id(), c.method_id()), (4, 0));
            let a = attr_tuples(c.attrs());
            assert_eq!(&a[..3], &[(2, 0, 1, 1), (4, 0, 1, 2), (5, 0, 1, 3)]);
            assert_eq!(a[3], (0, 0, 1, 0));
            assert_eq!(&a[4..6], &[(9, 8, 1, 2), (7, 8, 1, qp_addr)]);
            assert_eq!((a[6].0, a[6].1), (8, 20));
            assert_eq!(a[7], (12, 0, 1, TEST_ASYNC_FD as u64));
            assert_eq!(a[8], (10, 4, 1, 1 << 12), "SQ_SIG_ALL");
            assert_eq!(
                ((a[9].0, a[9].1), (a[10].0, a[10].1), a[11].0),
                ((13, 20), (14, 4), 0x1001)
            );
            c.write_out(
                13,
                &cat(&[&le32(16), &le32(32), &le32(1), &le32(2), &le32(64)]),
            );
            c.write_out_val(14, 0x11u32);
            c.set_data(0, 0x40);
            0
        });
        // SAFETY: live objects and buffers.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_create_qp(
                &mut *o.pd,
                qp,
                &mut attr,
                &mut cmd,
                size_of::<ibv_create_qp>(),
                &mut resp.ibv_resp,
                size_of::<RxeQpResp>(),
            )
        });
        assert_eq!(ret, 0);
        assert_eq!(
            sent[0].input(8).unwrap(),
            &cat(&[&le32(10), &le32(20), &le32(1), &le32(2), &le32(64)])[..]
        );
        assert_eq!((attr.cap.max_send_wr, attr.cap.max_recv_wr), (16, 32));
        // SAFETY: the QP was just initialised.
        let q = unsafe { &*qp };
        assert_eq!(
            (q.handle, q.qp_num, q.state, q.qp_type),
            (0x40, 0x11, IBV_QPS_RESET, IBV_QPT_RC)
        );
        assert_eq!(
            (q.pd, q.send_cq, q.recv_cq, q.context),
            (
                &mut *o.pd as *mut _,
                attr.send_cq,
                attr.recv_cq,
                o.pd.context
            )
        );
        assert_eq!(q.qp_context, 0x1234 as *mut libc::c_void);
    }

    #[test]
    fn create_qp_over_write_by_abi_version() {
        for abi in [6, 4, 3] {
            let _g = abi_ver_lock(abi);
            let mut o = objs();
            let mut attr = init_attr(&mut o);
            let mut cmd = ibv_create_qp::default();
            let mut resp = RxeQpResp::default();
            let qp: *mut ibv_qp = addr_of_mut!(o.qp.base.qp);
            let core_resp = match abi {
                6 => 32,
                4 => 28,
                _ => 8,
            };
            let k = FakeKernel::new()
                .on_ioctl(|_| libc::ENOTTY)
                .on_write(move |w| {
                    let caps = cat(&[
                        &le32(0x41),
                        &le32(0x12),
                        &le32(11),
                        &le32(21),
                        &le32(3),
                        &le32(4),
                        &le32(65),
                        &le32(0),
                    ]);
                    w.respond(&caps[..core_resp]);
                    0
                });
            // SAFETY: live objects and buffers.
            let (ret, sent) = with_kernel(k, || unsafe {
                ibv_cmd_create_qp(
                    &mut *o.pd,
                    qp,
                    &mut attr,
                    &mut cmd,
                    size_of::<ibv_create_qp>(),
                    &mut resp.ibv_resp,
                    size_of::<RxeQpResp>(),
                )
            });
            assert_eq!(ret, 0);
            let b = sent[1].write_bytes();
            // CREATE_QP (24): 64 bytes = 16 words in; core response + 32
            // provider bytes out, right before the provider's part.
            let out_words = (core_resp + 32) / 4;
            assert_eq!(
                &b[..8],
                &cat(&[&le32(24), &le16(16), &le16(out_words as u16)])[..]
            );
            let resp_at = &resp as *const RxeQpResp as u64 + 32 - core_resp as u64;
            let core = cat(&[
                &le64(resp_at),
                &le64(qp as u64),
                &le32(1),
                &le32(2),
                &le32(3),
                &le32(0),
                &le32(10),
                &le32(20),
                &le32(1),
                &le32(2),
                &le32(64),
                &[1, 2, 0, 0],
            ]);
            assert_eq!(&b[8..], &core[..]);
            // SAFETY: the QP was just initialised.
            let q = unsafe { &*qp };
            assert_eq!((q.handle, q.qp_num), (0x41, 0x12));
            let expect_send = if abi == 3 { 10 } else { 11 };
            assert_eq!(
                attr.cap.max_send_wr, expect_send,
                "ABI 3 reports no capacities"
            );
        }
    }

    #[test]
    fn create_qp_ex2_flags_need_the_extended_command() {
        let _g = abi_ver_lock(6);
        let mut o = objs();
        let base = init_attr(&mut o);
        // SAFETY: plain C struct.
        let mut a: ibv_qp_init_attr_ex = unsafe { zeroed_unchecked() };
        a.send_cq = base.send_cq;
        a.recv_cq = base.recv_cq;
        a.cap = base.cap;
        a.qp_type = IBV_QPT_RAW_PACKET;
        a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS;
        a.pd = &mut *o.pd;
        a.create_flags = IBV_QP_CREATE_SCATTER_FCS | IBV_QP_CREATE_SOURCE_QPN;
        a.source_qpn = 0x77;
        let ctx = o.t.ctx();
        let qp: *mut verbs_qp = &mut *o.qp;
        let k = FakeKernel::new()
            .on_ioctl(|c| {
                assert_eq!(
                    c.attr(10).map(|x| x.data),
                    Some(1 << 8),
                    "SOURCE_QPN travels separately"
                );
                assert_eq!(c.attr(11).map(|x| (x.len, x.data)), Some((4, 0x77)));
                libc::EPROTONOSUPPORT
            })
            .on_write(|w| {
                w.respond(&cat(&[&le32(5), &le32(6), &[0; 24], &le32(0), &le32(40)]));
                0
            });
        // SAFETY: live objects; no provider data.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_create_qp_ex2(ctx, qp, &mut a, ptr::null_mut(), 0, ptr::null_mut(), 0)
        });
        assert_eq!(ret, 0);
        let b = sent[1].write_bytes();
        // Extended CREATE_QP: 64-byte core = 8 words, 40-byte response = 5.
        assert_eq!(&b[..8], &cat(&[&le32(0x8000_0018), &le16(8), &le16(5)])[..]);
        // comp_mask, create_flags (all of them), ind table, source QPN.
        assert_eq!(
            &b[72..88],
            &cat(&[&le32(0), &le32((1 << 8) | (1 << 10)), &le32(0), &le32(0x77)])[..]
        );
        // SAFETY: the QP was just initialised.
        unsafe {
            assert_eq!(
                ((*qp).base.qp.handle, (*qp).base.qp.qp_num, (*qp).comp_mask),
                (5, 6, 0)
            )
        };

        for (mask, flags) in [
            (1u32 << 9, 0u32),
            (IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS, 1 << 3),
        ] {
            a.comp_mask = mask;
            a.create_flags = flags;
            rdma_util::ffi::set_errno(0);
            // SAFETY: as above.
            let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe {
                ibv_cmd_create_qp_ex2(ctx, qp, &mut a, ptr::null_mut(), 0, ptr::null_mut(), 0)
            });
            assert_eq!(
                (ret, rdma_util::ffi::errno(), sent.len()),
                (libc::EINVAL, libc::EINVAL, 0)
            );
        }
    }

    #[test]
    fn create_qp_ex2_65_links_the_provider_attributes() {
        let _g = abi_ver_lock(6);
        let mut o = objs();
        let base = init_attr(&mut o);
        // SAFETY: plain C struct.
        let mut a: ibv_qp_init_attr_ex = unsafe { zeroed_unchecked() };
        a.send_cq = base.send_cq;
        a.recv_cq = base.recv_cq;
        a.cap = base.cap;
        a.qp_type = IBV_QPT_RC;
        a.comp_mask = IBV_QP_INIT_ATTR_PD;
        a.pd = &mut *o.pd;
        let ctx = o.t.ctx();
        let qp: *mut verbs_qp = &mut *o.qp;
        let mut drv = CmdBuf::new(UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE, 1).unwrap();
        drv.fill_in_u32(0x1000, 0x55);
        let mut run = |f: &dyn Fn(*mut ibv_qp_init_attr_ex) -> c_int| {
            let k = FakeKernel::new().on_ioctl(|c| {
                c.set_data(0, 0x41);
                0
            });
            let (ret, sent) = with_kernel(k, || f(&mut a));
            assert_eq!(ret, 0);
            // SAFETY: the QP was just initialised.
            assert_eq!(unsafe { (*qp).base.qp.handle }, 0x41);
            let (hdr, at) = sent[0].ioctl();
            assert_eq!((hdr.object_id, hdr.method_id), (4, 0));
            attr_tuples(at)
        };
        // SAFETY (three calls): live objects; the test context is 34's, so
        // the body reads the QP (44's, cast) with 44's layout.
        let with_chain = run(&|a| unsafe {
            ibv_cmd_create_qp_ex2_65(ctx, qp.cast(), a, ptr::null_mut(), 0, ptr::null_mut(), 0, drv.as_ptr())
        });
        let without = run(&|a| unsafe {
            ibv_cmd_create_qp_ex2_65(ctx, qp.cast(), a, ptr::null_mut(), 0, ptr::null_mut(), 0, ptr::null_mut())
        });
        let as_34 = run(&|a| unsafe {
            ibv_cmd_create_qp_ex2(ctx, qp, a, ptr::null_mut(), 0, ptr::null_mut(), 0)
        });
        // The chain's attribute goes out with the core ones; without a chain
        // the 65 form sends what the 34 one sends.
        assert_eq!(with_chain.iter().filter(|t| t.0 == 0x1000).collect::<Vec<_>>(), vec![&(0x1000, 4, 1, 0x55)]);
        let strip = |v: &[(u16, u16, u16, u64)]| v.iter().map(|t| (t.0, t.1)).collect::<Vec<_>>();
        let core: Vec<_> = with_chain.iter().filter(|t| t.0 != 0x1000).copied().collect();
        assert_eq!(strip(&core), strip(&without));
        assert_eq!(strip(&without), strip(&as_34));
    }

    #[test]
    fn xrc_send_reports_no_receive_side() {
        let mut o = objs();
        let base = init_attr(&mut o);
        // SAFETY: plain C struct.
        let mut a: ibv_qp_init_attr_ex = unsafe { zeroed_unchecked() };
        a.send_cq = base.send_cq;
        a.cap = base.cap;
        a.qp_type = IBV_QPT_XRC_SEND;
        a.comp_mask = IBV_QP_INIT_ATTR_PD;
        a.pd = &mut *o.pd;
        let ctx = o.t.ctx();
        let k = FakeKernel::new().on_ioctl(|c| {
            assert!(c.attr(5).is_none(), "no receive CQ");
            0
        });
        // SAFETY: live objects.
        let (ret, _) = with_kernel(k, || unsafe {
            ibv_cmd_create_qp_ex(
                ctx,
                &mut *o.qp,
                &mut a,
                ptr::null_mut(),
                0,
                ptr::null_mut(),
                0,
            )
        });
        assert_eq!(ret, 0);
        assert_eq!((a.cap.max_recv_wr, a.cap.max_recv_sge), (0, 0));
    }

    #[test]
    fn modify_qp_sends_only_the_masked_fields() {
        let mut o = objs();
        let qp: *mut ibv_qp = addr_of_mut!(o.qp.base.qp);
        // SAFETY: writing the test QP.
        unsafe {
            (*qp).context = o.t.ctx();
            (*qp).handle = 9;
        }
        // SAFETY: plain C struct.
        let mut attr: ibv_qp_attr = unsafe { zeroed_unchecked() };
        attr.qp_state = IBV_QPS_RTR;
        attr.path_mtu = IBV_MTU_1024;
        attr.dest_qp_num = 0x123;
        attr.rq_psn = 0x55;
        attr.timeout = 14; // not in the mask below
        attr.ah_attr.dlid = 7;
        attr.ah_attr.port_num = 1;
        attr.ah_attr.is_global = 1;
        attr.ah_attr.grh.dgid = ibv_gid { raw: [9; 16] };
        attr.ah_attr.grh.hop_limit = 1;
        let mask =
            (IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN) as c_int;
        let mut cmd = ibv_modify_qp::default();
        cmd.core_payload.timeout = 0xee; // the provider's byte stays
                                         // SAFETY: live QP and buffers.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe {
            ibv_cmd_modify_qp(qp, &mut attr, mask, &mut cmd, size_of::<ibv_modify_qp>())
        });
        assert_eq!(ret, 0);
        let b = sent[0].write_bytes();
        // MODIFY_QP (26): 120 bytes = 30 words, no response.
        assert_eq!(&b[..8], &cat(&[&le32(26), &le16(30), &le16(0)])[..]);
        // dest: dgid, flow label, dlid, reserved, sgid index, hop limit,
        // tclass, sl, src path bits, rate, is_global, port.
        let dest = cat(&[
            &[9; 16],
            &le32(0),
            &le16(7),
            &le16(0),
            &[0, 1, 0, 0, 0, 0, 1, 1],
        ]);
        assert_eq!(&b[8..40], &dest[..]);
        assert_eq!(&b[40..72], &[0; 32][..], "no alternate path");
        // handle, mask, qkey, rq_psn, sq_psn, dest qpn, access flags.
        assert_eq!(
            &b[72..100],
            &cat(&[
                &le32(9),
                &le32(mask as u32),
                &le32(0),
                &le32(0x55),
                &le32(0),
                &le32(0x123),
                &le32(0)
            ])[..]
        );
        // pkey indexes, then qp_state 2 (RTR), cur state, path_mtu 3 (1024).
        assert_eq!(&b[104..107], &[2, 0, 3]);
        assert_eq!(b[113], 0xee, "timeout not in the mask: the command's byte");

        // SAFETY: as above.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe {
            ibv_cmd_modify_qp(
                qp,
                &mut attr,
                IBV_QP_RATE_LIMIT as c_int,
                &mut cmd,
                size_of::<ibv_modify_qp>(),
            )
        });
        assert_eq!((ret, sent.len()), (libc::EOPNOTSUPP, 0));
    }

    #[test]
    fn modify_qp_ex_rate_limit() {
        let mut o = objs();
        let qp: *mut ibv_qp = addr_of_mut!(o.qp.base.qp);
        // SAFETY: writing the test QP.
        unsafe { (*qp).context = o.t.ctx() };
        // SAFETY: plain C struct.
        let mut attr: ibv_qp_attr = unsafe { zeroed_unchecked() };
        attr.rate_limit = 1000;
        let mut cmd = ibv_modify_qp_ex::default();
        let mut resp = ib_uverbs_ex_modify_qp_resp::default();
        let mask = IBV_QP_RATE_LIMIT as c_int;
        // SAFETY: live QP and buffers.
        let (r, sent) = with_kernel(FakeKernel::new(), || unsafe {
            (
                ibv_cmd_modify_qp_ex(qp, &mut attr, mask, &mut cmd, 24 + 112, &mut resp, 8),
                ibv_cmd_modify_qp_ex(
                    qp,
                    &mut attr,
                    mask,
                    &mut cmd,
                    size_of::<ibv_modify_qp_ex>(),
                    &mut resp,
                    8,
                ),
            )
        });
        assert_eq!(r, (libc::EINVAL, 0));
        let b = sent[0].write_bytes();
        // Extended MODIFY_QP: 120-byte core = 15 words, 8-byte response = 1.
        assert_eq!(
            &b[..8],
            &cat(&[&le32(0x8000_001a), &le16(15), &le16(1)])[..]
        );
        assert_eq!(&b[24 + 112..], &cat(&[&le32(1000), &le32(0)])[..]);
    }

    #[test]
    fn query_qp_fills_both_structs() {
        let mut o = objs();
        let qp: *mut ibv_qp = addr_of_mut!(o.qp.base.qp);
        // SAFETY: writing the test QP.
        unsafe {
            (*qp).context = o.t.ctx();
            (*qp).handle = 4;
            (*qp).qp_type = IBV_QPT_UD;
            (*qp).send_cq = &mut *o.scq;
        }
        let mut r = ib_uverbs_query_qp_resp::default();
        r.dest.dgid = [7; 16];
        r.dest.dlid = 0x33;
        r.alt_dest.port_num = 2;
        r.max_send_wr = 128;
        r.max_inline_data = 256;
        r.qkey = 0x1111_1111;
        r.qp_state = 4;
        r.path_mtu = 5;
        r.sq_draining = 1;
        r.sq_sig_all = 1;
        let k = FakeKernel::new().on_write(move |w| {
            w.respond_val(r);
            0
        });
        // SAFETY: plain C structs.
        let (mut attr, mut init): (ibv_qp_attr, ibv_qp_init_attr) =
            unsafe { (zeroed_unchecked(), zeroed_unchecked()) };
        let mut cmd = ibv_query_qp::default();
        // SAFETY: live QP and buffers.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_query_qp(
                qp,
                &mut attr,
                0x1fff,
                &mut init,
                &mut cmd,
                size_of::<ibv_query_qp>(),
            )
        });
        assert_eq!(ret, 0);
        // QUERY_QP (25): 24 bytes = 6 words; 128-byte answer = 32 words.
        assert_eq!(
            &sent[0].write_bytes()[..8],
            &cat(&[&le32(25), &le16(6), &le16(32)])[..]
        );
        assert_eq!(
            &sent[0].write_bytes()[16..],
            &cat(&[&le32(4), &le32(0x1fff)])[..]
        );
        // SAFETY: reading the union's bytes.
        assert_eq!(unsafe { attr.ah_attr.grh.dgid.raw }, [7; 16]);
        assert_eq!((attr.ah_attr.dlid, attr.alt_ah_attr.port_num), (0x33, 2));
        assert_eq!(
            (attr.qkey, attr.qp_state, attr.path_mtu, attr.sq_draining),
            (0x1111_1111, 4, 5, 1)
        );
        assert_eq!(
            (
                attr.cap.max_send_wr,
                init.cap.max_send_wr,
                init.cap.max_inline_data
            ),
            (128, 128, 256)
        );
        assert_eq!(
            (init.qp_type, init.send_cq, init.sq_sig_all),
            (IBV_QPT_UD, &mut *o.scq as *mut _, 1)
        );
        // SAFETY: as above.
        let (ret, _) = with_kernel(FakeKernel::new(), || unsafe {
            ibv_cmd_query_qp(
                qp,
                &mut attr,
                IBV_QP_RATE_LIMIT as c_int,
                &mut init,
                &mut cmd,
                size_of::<ibv_query_qp>(),
            )
        });
        assert_eq!(ret, libc::EOPNOTSUPP);
    }

    #[test]
    fn destroy_qp_ioctl_and_write() {
        let _g = disassoc_lock();
        let mut o = objs();
        let qp: *mut ibv_qp = addr_of_mut!(o.qp.base.qp);
        // SAFETY: initialising the test QP.
        unsafe {
            (*qp).context = o.t.ctx();
            (*qp).handle = 8;
            (*qp).events_completed = 1;
            libc::pthread_mutex_init(addr_of_mut!((*qp).mutex), ptr::null());
            libc::pthread_cond_init(addr_of_mut!((*qp).cond), ptr::null());
        }
        let k = FakeKernel::new().on_ioctl(|c| {
            assert_eq!((c.object_id(), c.method_id()), (4, 1));
            assert_eq!(c.attr(0).unwrap().data, 8);
            c.write_out_val(1, 1u32);
            0
        });
        // SAFETY: live QP; one event reported and already acknowledged.
        let (ret, _) = with_kernel(k, || unsafe { ibv_cmd_destroy_qp(qp) });
        assert_eq!(ret, 0);
        let k = FakeKernel::new()
            .on_ioctl(|_| libc::EPROTONOSUPPORT)
            .on_write(|w| {
                w.respond(&le32(1));
                0
            });
        // SAFETY: live QP.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_destroy_qp(qp) });
        assert_eq!(ret, 0);
        // DESTROY_QP (27): 24 bytes = 6 words, 4 bytes = 1 word out.
        assert_eq!(
            &sent[1].write_bytes()[..8],
            &cat(&[&le32(27), &le16(6), &le16(1)])[..]
        );
        let k = FakeKernel::new().on_write(|_| libc::EIO);
        // SAFETY: live QP.
        let (ret, _) = with_kernel(k, || unsafe { ibv_cmd_destroy_qp(qp) });
        assert_eq!(ret, libc::EIO);
    }
}
