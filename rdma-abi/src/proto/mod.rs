//! The prototypes of the public headers, as function-pointer types named
//! after the functions: what a C program calls, with the exact C signature.
//! Types only, like the rest of this crate; tools/gen-headers turns each into
//! a C prototype, and each library checks its exported definitions against
//! them at compile time.
//!
//! [`driver`] holds the prototypes of the providers' private ABI in the same
//! form; those are not written into any header (see there).

pub mod driver;
pub mod rdma_cma;
pub mod rdma_verbs;
pub mod rsocket;
pub mod verbs;
