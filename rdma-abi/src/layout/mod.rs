//! Compile-time checks of every C layout this crate mirrors: the size,
//! alignment and field offsets of each struct and union, the size and
//! signedness of each enum type, and the value of each constant, as the C
//! headers give them ([`assert_layout!`](crate::assert_layout),
//! [`assert_consts!`](crate::assert_consts)). A mismatch fails the build.
//!
//! One file per ABI module, the same path under `layout/` as the module's
//! under `src/`. All of them but `hand_kept.rs` are written whole by
//! `abi-tests/probe/gen.py` from what the C probes print; rerun the probe
//! rather than edit them:
//!
//! | file                   | checks                          | written by                      |
//! |------------------------|---------------------------------|---------------------------------|
//! | `verbs.rs`             | `verbs.rs`                      | `abi-tests/probe/run.sh`        |
//! | `driver/pabi34_v44.rs` | `driver/pabi34_v44.rs`          | `abi-tests/probe/run.sh`        |
//! | `verbs_v65.rs`         | `verbs_v65.rs`                  | `abi-tests/probe/run-65.sh`     |
//! | `driver/pabi65.rs`     | `driver/pabi65.rs`              | `abi-tests/probe/run-65.sh`     |
//! | `kern.rs`              | `kern.rs`                       | `abi-tests/probe/run.sh`        |
//! | `ucma.rs`              | `ucma.rs`                       | `abi-tests/probe/run-rdmacm.sh` |
//! | `cma.rs`               | `cma.rs`                        | `abi-tests/probe/run-rdmacm.sh` |
//! | `cma_abi.rs`           | `cma_abi.rs`                    | `abi-tests/probe/run-65.sh`     |
//! | `opcode.rs`            | `opcode.rs`                     | `abi-tests/probe/run-65.sh`     |
//! | `rsocket.rs`           | `rsocket.rs`                    | `abi-tests/probe/run-65.sh`     |
//! | `rxe.rs`               | `rxe.rs`                        | `abi-tests/probe/run-uapi.sh`   |
//! | `siw.rs`               | `siw.rs`                        | `abi-tests/probe/run-uapi.sh`   |
//! | `hand_kept.rs`         | `acm.rs`, `cma_v65.rs`, `ucma_v65.rs`, `rxe_abi.rs`, `siw_abi.rs`, 65's ids in `kern.rs`, a few types of others | kept by hand |
//!
//! The files of a module that re-exports an older one (`verbs_v65.rs`,
//! `driver/pabi65.rs`) check everything the module provides, re-exported
//! types included, against the headers of the module's own release.
//!
//! `hand_kept.rs` holds the checks no probe prints: types of headers no probe
//! compiles against (acm.h, librdmacm's private cma.h, rdma-core 65's
//! rdma_cma.h and uAPI additions), a Rust-only buffer,
//! and relations between numbers.

mod cma;
mod cma_abi;
mod driver;
mod hand_kept;
mod kern;
mod opcode;
mod rsocket;
mod rxe;
mod siw;
mod ucma;
mod verbs;
mod verbs_v65;
