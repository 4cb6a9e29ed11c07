//! rdma_set_option: id options (type of service, address reuse, IPv6-only,
//! ACK timeout) and IB options (explicit path records). The kernel checks
//! level, name and length; librdmacm passes them through, as upstream.

use crate::abi::cma::rdma_cm_id;
use crate::abi::ucma::*;
use crate::id::{ret_int, Id, Res};
use crate::ucma::write_cmd;
use core::ffi::{c_int, c_void};

/// SET_OPTION with the caller's buffer.
pub(crate) fn set_option(id: Id, level: c_int, optname: c_int, optval: *mut c_void, optlen: usize) -> Res<()> {
    let body = rdma_ucm_set_option {
        optval: optval as u64,
        id: id.handle(),
        level: level as u32,
        optname: optname as u32,
        optlen: optlen as u32,
    };
    write_cmd(id.fd(), RDMA_USER_CM_CMD_SET_OPTION, body)
}

rdma_util::export! {
    /// Sets an option of the id (RDMA_OPTION_ID_*, RDMA_OPTION_IB_PATH).
    fn rdma_set_option(id: *mut rdma_cm_id, level: c_int, optname: c_int, optval: *mut c_void,
                       optlen: usize) -> c_int, on_panic = -1;
    {
        rdma_util::ensure!(!id.is_null(), libc::EINVAL, -1);
        ret_int(set_option(Id::from_cm(id), level, optname, optval, optlen))
    }
}
