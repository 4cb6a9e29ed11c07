//! The prototypes of the functions `<rdma/rdma_verbs.h>` declares that are
//! not inline: the shared receive queue helpers.

use core::ffi::c_int;

use crate::cma_v65::rdma_cm_id;
use crate::verbs_v65::*;

pub type rdma_create_srq = unsafe extern "C" fn(
    id: *mut rdma_cm_id,
    pd: *mut ibv_pd,
    attr: *mut ibv_srq_init_attr,
) -> c_int;
pub type rdma_create_srq_ex =
    unsafe extern "C" fn(id: *mut rdma_cm_id, attr: *mut ibv_srq_init_attr_ex) -> c_int;
pub type rdma_destroy_srq = unsafe extern "C" fn(id: *mut rdma_cm_id);
