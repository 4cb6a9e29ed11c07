//! C layouts and constants shared with the kernel and with C code.

pub mod netlink;
