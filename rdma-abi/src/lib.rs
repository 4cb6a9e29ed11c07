//! The C layouts of rdma-core's ABI, as Rust types and constants.
//!
//! This crate holds types only: no exported functions, no statics, no
//! behaviour. It is the one source of the layouts for libibverbs-rs,
//! librdmacm-rs, librspreload and abi-tests, as rdma-core keeps its
//! `kernel-headers/` apart from the libraries.
//!
//! - [`verbs`], `<infiniband/verbs.h>` (and the `ibv_*` types of
//!   `<infiniband/sa.h>` and `<rdma/ib_user_sa.h>`);
//! - [`verbs_v65`], `<infiniband/verbs.h>` of rdma-core 65: [`verbs`] with
//!   the types that are new or grew since rdma-core 44;
//! - [`driver`], the providers' private ABI (`driver.h`), one module per
//!   release;
//! - [`kern`], the kernel's uverbs uAPI and rdma-core's command wrappers;
//! - [`netlink`], `<rdma/rdma_netlink.h>`;
//! - [`acm`], the ibacm daemon's messages (`<infiniband/acm.h>`);
//! - [`cma`], `<rdma/rdma_cma.h>`, `<infiniband/ib.h>` and librdmacm's CM header for AF_IB;
//! - [`cma_v65`], `<rdma/rdma_cma.h>` of rdma-core 65: [`cma`] with what 65
//!   added (the address-resolution and user events, RAI_SA / RAI_DNS);
//! - [`ucma`], `<rdma/rdma_user_cm.h>`, the rdma_cm character device;
//! - [`ucma_v65`], the same uAPI as rdma-core 65 carries it: [`ucma`] with
//!   the IB service and write-event commands;
//! - [`cma_abi`], `<rdma/rdma_cma_abi.h>` (rdma-core 65): librdmacm's old
//!   `ucma_abi_*` spelling of the rdma_cm device's commands;
//! - [`opcode`], the BTH opcodes of `<infiniband/opcode.h>`;
//! - [`rsocket`], the constants of `<rdma/rsocket.h>`;
//! - [`rxe`], `<rdma/rdma_user_rxe.h>`, the kernel ABI of Soft-RoCE;
//! - [`rxe_abi`], rdma-core's rxe provider commands (`rxe-abi.h`) and rdma-core
//!   65's addition to the rxe uAPI;
//! - [`siw`], `<rdma/siw-abi.h>`, the kernel ABI of soft-iWARP;
//! - [`siw_abi`], rdma-core's siw provider commands (`siw_abi.h`).
//!
//! Every struct is checked at compile time against sizes, alignments and
//! field offsets measured from the C headers by the probes in
//! `abi-tests/probe/` ([`assert_layout!`], [`assert_consts!`]); the checks
//! live in `src/layout/`, one file per module, apart from the types.
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]

mod layout;
mod macros;

pub mod acm;
pub mod cma;
pub mod cma_abi;
pub mod cma_v65;
pub mod driver;
pub mod kern;
pub mod kern_v65;
pub mod netlink;
pub mod opcode;
pub mod proto;
pub mod rsocket;
pub mod rxe;
pub mod rxe_abi;
pub mod siw;
pub mod siw_abi;
pub mod ucma;
pub mod ucma_v65;
pub mod verbs;
pub mod verbs_v65;

/// Types for which all-zero bytes are a valid value: C's `= {}`.
/// `rdma_util::mem::zeroed` makes them without `unsafe`.
///
/// # Safety
/// Implement it only for types whose every field accepts all-zero bytes:
/// integers, arrays and raw pointers do; references, `NonNull`, function
/// pointers outside `Option` and enums without a zero variant do not.
pub unsafe trait Zeroable: Copy {}

zeroable!(
    libc::sockaddr,
    libc::sockaddr_in,
    libc::sockaddr_in6,
    libc::sockaddr_storage,
);
