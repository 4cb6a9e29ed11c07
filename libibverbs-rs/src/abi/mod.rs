//! C layouts shared with applications, providers and the kernel.
//!
//! - [`verbs`]: the public types of `<infiniband/verbs.h>` (plus the `ibv_*`
//!   types of `<infiniband/sa.h>` and `<rdma/ib_user_sa.h>` that the public
//!   marshalling helpers take);
//! - [`driver`]: the providers' private ABI of rdma-core's `driver.h`
//!   (symbol version IBVERBS_PRIVATE_34);
//! - [`netlink`]: the constants of `<rdma/rdma_netlink.h>`.
//! - [`kern`]: the kernel uverbs uAPI and rdma-core's command wrappers
//!   (checked against `abi-tests/probe/kern_abi.c`).
//!
//! Every struct here is checked at compile time against numbers measured by
//! the C probe in `abi-tests/probe/` (sizes and every field offset).

pub mod driver;
pub mod kern;
pub mod netlink;
pub mod verbs;

mod macros;
