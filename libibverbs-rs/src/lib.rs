//! libibverbs.so.1, rdma-core 44.0's verbs library, in Rust.
//!
//! Layout (see docs/architecture.md):
//! - the export pattern every C entry point follows, netlink and the
//!   character-device lookup come from the rdma-util crate;
//! - `abi`: the C layouts this library speaks, from the rdma-abi crate;
//! - concept modules: device discovery (`device`), the provider
//!   loader, contexts, queries, the kernel command channel (`cmd`), logging,
//!   init, and the IBVERBS_1.0 compatibility layer.
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]
// Nothing here is a Rust API: no other crate links this one (its own tests
// only see the cdylib). Items are pub(crate); the C entry points are reached
// by symbol name (#[no_mangle], libibverbs.map), whatever their visibility.
#![warn(unreachable_pub)]

/// Name used in our own diagnostics (see `rdma_util::ffi::guard`).
pub(crate) const LIB_NAME: &str = "libibverbs";

/// Binds one private function (written with `export_versioned!`, so it has no
/// unversioned name) at both private ABIs we serve: `name@IBVERBS_PRIVATE_34`
/// for the providers of rdma-core 34 to 56, and `name@@IBVERBS_PRIVATE_65`
/// for those of 65. Only for functions whose arguments and behaviour are the
/// same in both, or that tell the two apart by the calling context's
/// [`pabi::Pabi`]. A name has only one default version; 65's, the newest, is
/// it. The dynamic linker binds a provider's versioned reference to either.
macro_rules! private_abi_both {
    ($name:ident) => {
        rdma_util::symver!(compat $name, "IBVERBS_PRIVATE_34", $name);
        rdma_util::symver!(default $name, "IBVERBS_PRIVATE_65", $name);
    };
}

mod abi;
mod ah;
mod buf;
mod channel;
mod cmd;
mod comp_cntr;
mod compat_1_0;
mod context;
mod cq;
mod ctx_priv;
mod device;
mod dm;
mod dmabuf_heap;
mod dmah;
mod dummy_ops;
mod fork;
mod import;
mod init;
mod loader;
mod log;
mod mcast;
mod mr;
mod neigh;
mod pabi;
mod pd;
mod proto_check;
mod provider_release;
mod qp;
mod query;
mod srq;
mod strings;
mod sysfs;
#[cfg(test)]
mod testkit;
mod util;
