//! C layouts: the public verbs types (the same source file libibverbs-rs uses,
//! included by path so both libraries agree by construction) and, next to
//! them, librdmacm's own public and kernel (ucma) types.

#[path = "../../../libibverbs-rs/src/abi/verbs.rs"]
pub mod verbs;

#[path = "../../../libibverbs-rs/src/abi/macros.rs"]
mod macros;
