//! The providers' private ABI (rdma-core's `driver.h`), one module per
//! release whose layout we serve.
//!
//! The private ABI is versioned by the symbol version of its functions
//! (`IBVERBS_PRIVATE_NN`), but the structs behind it may change between
//! releases that keep the same NN. So a layout is named by both: the private
//! ABI number and the rdma-core release it was measured from.
//!
//! - [`pabi34_v44`], IBVERBS_PRIVATE_34 as rdma-core 44 defines it (Debian 12).
//! - [`pabi65`], IBVERBS_PRIVATE_65 as rdma-core 65 defines it (Debian sid).
//!   Its layouts build on 65's public types, [`crate::verbs_v65`], and it
//!   re-exports the types of [`pabi34_v44`] that 65 leaves unchanged. The
//!   private ABI number equals the release here, so the module needs only
//!   the one number.

pub mod pabi34_v44;
pub mod pabi65;
