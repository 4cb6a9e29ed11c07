//! The layouts of the providers' private ABI, one file per layout of
//! [`crate::driver`], each measured against the driver.h of its release.
//! A further layout (rdma-core 56's PABI 34, say) gets a file of its own
//! here, beside its mirror in `src/driver/`.
//!
//! - `pabi34_v44.rs`: rdma-core 44's driver.h (`abi-tests/probe/run.sh`);
//! - `pabi65.rs`: rdma-core 65's driver.h (`abi-tests/probe/run-65.sh`).

mod pabi34_v44;
mod pabi65;
