//! siw-provider: the soft-iWARP (siw) user-space provider, a drop-in for
//! rdma-core's `libsiw-rdmav34.so`.

pub(crate) const LIB_NAME: &str = "libsiw";

pub mod cq;
pub mod rq;
pub mod spin;
pub mod sq;

#[cfg(test)]
mod datapath_tests;
