//! Shared helpers for the ABI tests.
