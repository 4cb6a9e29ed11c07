//! Zero-initialised values of C structs: C's `= {}`.

use rdma_abi::Zeroable;

/// A `T` whose bytes are all zero. The [`Zeroable`] bound says that this is
/// a valid `T`.
#[inline(always)]
pub fn zeroed<T: Zeroable>() -> T {
    // SAFETY: Zeroable is implemented only for types whose all-zero bytes
    // are a valid value.
    unsafe { core::mem::zeroed() }
}

/// A `T` whose bytes are all zero, for types not marked [`Zeroable`] (test
/// fixtures build whole C structs this way).
///
/// # Safety
/// All-zero bytes must be a valid `T`: true of `#[repr(C)]` structs of
/// integers, arrays, raw pointers and `Option`s of function pointers; false
/// of references, `NonNull`, bare function pointers and enums without a zero
/// variant.
#[inline(always)]
pub unsafe fn zeroed_unchecked<T>() -> T {
    // SAFETY: the caller promises that all-zero bytes are a valid T.
    unsafe { core::mem::zeroed() }
}
