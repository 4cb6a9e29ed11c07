//! Endpoints: rdma_create_ep builds a synchronous id from an
//! `rdma_getaddrinfo` result, passive (bound, ready to listen; QPs created
//! per request by rdma_get_request) or active (address and route resolved,
//! QP created, private data from the address info kept for rdma_connect).

use crate::abi::cma::*;
use crate::abi::verbs::*;
use crate::ucma::af_ib_support;
use crate::event::complete;
use crate::cma::create_id;
use crate::id::{ret_int, Id, Res};
use core::ptr::null_mut;

/// Route resolution timeout upstream uses for endpoints.
const EP_TIMEOUT_MS: i32 = 2000;

fn passive_ep(id: Id, res: &rdma_addrinfo, pd: *mut ibv_pd, init: Option<&ibv_qp_init_attr>) -> Res<()> {
    // SAFETY: the address info's source address is valid for its length.
    unsafe {
        if af_ib_support() {
            crate::addr::bind_addr2(id, res.ai_src_addr, res.ai_src_len)?;
        } else {
            crate::addr::bind_addr(id, res.ai_src_addr)?;
        }
    }
    if !pd.is_null() {
        id.set_pd(pd);
    }
    if let Some(init) = init {
        let mut a = *init;
        a.qp_type = res.ai_qp_type as ibv_qp_type;
        let a = rdma_util::fallible::try_box(a).map_err(|_| libc::ENOMEM)?;
        id.with_qp_init_attr(|q| *q = Some(a));
    }
    Ok(())
}

fn active_ep(id: Id, res: &rdma_addrinfo, pd: *mut ibv_pd, init: Option<&mut ibv_qp_init_attr>) -> Res<()> {
    // SAFETY: the address info's addresses are valid for their lengths.
    unsafe {
        if af_ib_support() {
            crate::resolve::resolve_addr2(id, res.ai_src_addr, res.ai_src_len, res.ai_dst_addr, res.ai_dst_len, EP_TIMEOUT_MS)?;
        } else {
            crate::resolve::resolve_addr(id, res.ai_src_addr, res.ai_dst_addr, EP_TIMEOUT_MS)?;
        }
    }
    if res.ai_route_len != 0 {
        crate::options::set_option(id, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH, res.ai_route, res.ai_route_len)?;
        complete(id)?;
    } else {
        crate::resolve::resolve_route(id, EP_TIMEOUT_MS)?;
    }
    if let Some(init) = init {
        init.qp_type = res.ai_qp_type as ibv_qp_type;
        crate::qp::create_qp(id, pd, init)?;
    }
    if res.ai_connect_len != 0 {
        // SAFETY: the address info's connect data is valid for its length.
        let data = unsafe { core::slice::from_raw_parts(res.ai_connect.cast::<u8>(), res.ai_connect_len) };
        let data = rdma_util::fallible::concat(&[data]).map_err(|_| libc::ENOMEM)?;
        id.with_connect(|c| *c = data);
    }
    Ok(())
}

/// `rdma_create_ep`.
pub(crate) fn create_ep(res: &rdma_addrinfo, pd: *mut ibv_pd, init: Option<&mut ibv_qp_init_attr>) -> Res<Id> {
    let id = create_id(null_mut(), null_mut(), res.ai_port_space as rdma_port_space, res.ai_qp_type as ibv_qp_type)?;
    let r = if res.ai_flags & RAI_PASSIVE != 0 {
        passive_ep(id, res, pd, init.map(|i| &*i))
    } else {
        active_ep(id, res, pd, init)
    };
    match r {
        Ok(()) => Ok(id),
        Err(e) => {
            destroy_ep(id);
            Err(e)
        }
    }
}

/// `rdma_destroy_ep`: QP, SRQ, stored QP attributes, then the id.
fn destroy_ep(id: Id) {
    if !id.qp().is_null() {
        crate::qp::destroy_qp(id);
    }
    if !id.srq().is_null() {
        crate::qp::destroy_srq(id);
    }
    id.with_qp_init_attr(|q| *q = None);
    let _ = crate::id::destroy_id(id);
}

rdma_util::export! {
    /// Creates an endpoint from an rdma_getaddrinfo result.
    fn rdma_create_ep(id: *mut *mut rdma_cm_id, res: *mut rdma_addrinfo, pd: *mut ibv_pd,
                      qp_init_attr: *mut ibv_qp_init_attr) -> core::ffi::c_int, on_panic = -1;
    {
        rdma_util::ensure!(!id.is_null() && !res.is_null(), libc::EINVAL, -1);
        // SAFETY: non-null pointers from the caller to valid objects.
        let (res, init) = unsafe { (&*res, qp_init_attr.as_mut()) };
        match create_ep(res, pd, init) {
            Ok(n) => {
                // SAFETY: id is a non-null out-pointer.
                unsafe { *id = n.cm() };
                0
            }
            Err(e) => ret_int(Err(e)),
        }
    }
}

rdma_util::export! {
    /// Destroys an endpoint made by rdma_create_ep.
    fn rdma_destroy_ep(id: *mut rdma_cm_id) -> (), on_panic = ();
    {
        rdma_util::ensure!(!id.is_null(), libc::EINVAL);
        destroy_ep(Id::from_cm(id))
    }
}
