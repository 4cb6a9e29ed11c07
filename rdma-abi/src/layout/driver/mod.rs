//! The layouts of the providers' private ABI, one file per layout of
//! [`crate::driver`], each measured against the driver.h of its release.
//! A further layout (rdma-core 56's PABI 34, rdma-core 65's PABI 65) gets a
//! file of its own here, beside its mirror in `src/driver/`.

mod pabi34_v44;
