//! C layouts shared with applications, providers and the kernel.
pub mod kern;
