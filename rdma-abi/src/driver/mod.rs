//! The providers' private ABI (rdma-core's `driver.h`), one module per
//! release whose layout we serve.
//!
//! The private ABI is versioned by the symbol version of its functions
//! (`IBVERBS_PRIVATE_NN`), but the structs behind it may change between
//! releases that keep the same NN. So a layout is named by both: the private
//! ABI number and the rdma-core release it was measured from.
//!
//! - [`pabi34_v44`], IBVERBS_PRIVATE_34 as rdma-core 44 defines it (Debian 12).

pub mod pabi34_v44;
