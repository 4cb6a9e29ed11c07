//! C layouts: the public verbs types (the same source file libibverbs-rs uses,
//! included by path so both libraries agree by construction) and, next to
//! them, librdmacm's own public ([`cma`]) and kernel ([`ucma`]) types.
//!
//! - [`verbs`]: `<infiniband/verbs.h>` and `<infiniband/sa.h>` (shared file);
//! - [`kern`]: the kernel uverbs uAPI (shared file; librdmacm needs the
//!   kernel's AH and QP attribute structs that ucma responses embed);
//! - [`netlink`]: `<rdma/rdma_netlink.h>` constants (shared file);
//! - [`ucma`]: `<rdma/rdma_user_cm.h>`, the rdma_cm character device ABI;
//! - [`cma`]: `<rdma/rdma_cma.h>` and `<infiniband/ib.h>`.

#[path = "../../../libibverbs-rs/src/abi/verbs.rs"]
pub mod verbs;

#[path = "../../../libibverbs-rs/src/abi/kern.rs"]
pub mod kern;

#[path = "../../../libibverbs-rs/src/abi/netlink.rs"]
pub mod netlink;

#[path = "../../../libibverbs-rs/src/abi/macros.rs"]
mod macros;

pub mod cma;
pub mod ucma;
