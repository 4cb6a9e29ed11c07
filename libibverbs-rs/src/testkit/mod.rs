//! Test support shared by the unit tests of several modules (test builds
//! only):
//! - [`kernel`]: a scripted stand-in for the uverbs device that records the
//!   commands the `cmd` helpers send and answers them, plus a bare context
//!   ([`kernel::TestCtx`]) to drive those helpers with;
//! - [`ctx`]: a context set up by the library's own context code, with the
//!   provider ops a test installs ([`ctx::FakeCtx`]);
//! - [`rng`]: a seeded random number generator for the randomised tests.

pub(crate) mod ctx;
pub(crate) mod kernel;
pub(crate) mod rng;
