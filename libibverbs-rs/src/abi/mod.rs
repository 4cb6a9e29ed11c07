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

/// Checks the size of a C mirror and the offset of each listed field at
/// compile time. The numbers come from `abi-tests/probe/`, which prints them
/// from the real C headers.
#[macro_export]
#[doc(hidden)]
macro_rules! assert_layout {
    ($ty:ident, size = $size:expr, align = $align:expr $(, $field:ident = $off:expr)* $(,)?) => {
        const _: () = assert!(::core::mem::size_of::<$ty>() == $size);
        const _: () = assert!(::core::mem::align_of::<$ty>() == $align);
        $(const _: () = assert!(::core::mem::offset_of!($ty, $field) == $off);)*
    };
}

/// Checks constants against the values the C headers give them (numbers from
/// `abi-tests/probe/`).
#[macro_export]
#[doc(hidden)]
macro_rules! assert_consts {
    ($($name:ident = $val:expr),* $(,)?) => {
        $(const _: () = assert!($name as i128 == $val as i128);)*
    };
}
