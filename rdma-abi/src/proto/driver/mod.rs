//! The prototypes of the providers' private ABI: the functions libibverbs
//! exports at `IBVERBS_PRIVATE_NN` for its providers (rdma-core's
//! `driver.h`, with `execute_ioctl` and `__ioctl_final_num_attrs` of
//! `cmd_ioctl.h` and the heap of `dmabuf_heap.h`), as function-pointer types
//! named after the functions, like the public prototypes beside them.
//!
//! One module per private ABI, because the two ABIs give some names
//! different arguments or different layouts behind the same pointer:
//! - [`pabi34`], IBVERBS_PRIVATE_34 (rdma-core 34 to 56: Debian 12 and 13),
//!   with the layouts of [`crate::driver::pabi34_v44`];
//! - [`pabi65`], IBVERBS_PRIVATE_65 (rdma-core 65: sid), with those of
//!   [`crate::driver::pabi65`]; it re-exports 34's type where a function
//!   did not change.
//!
//! Why under `proto` rather than under [`crate::driver`]: these are
//! prototypes, used the way the public ones are (libibverbs-rs checks its
//! private exports against them in `proto_check.rs`, and the Rust providers
//! type the functions they resolve at run time with them), while
//! `crate::driver` holds the layouts the probes measure. Unlike the public
//! prototypes they are not written into `include/`: rdma-core does not
//! install `driver.h` and neither do we. tools/gen-headers reads only the
//! modules its manifest lists, and its tests require every file under
//! `proto/` to be either listed there or named as not shipped.

pub mod pabi34;
pub mod pabi65;
