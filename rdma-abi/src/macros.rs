//! Compile-time layout checks, and the marker for types that may be zeroed.

/// Checks the size of a C mirror and the offset of each listed field at
/// compile time. The numbers come from `abi-tests/probe/`, which prints them
/// from the real C headers.
#[macro_export]
#[doc(hidden)]
macro_rules! assert_layout {
    ($ty:ident, size = $size:expr, align = $align:expr $(, $field:ident = $off:expr)* $(,)?) => {
        const _: () = assert!(::core::mem::size_of::<$ty>() == $size);
        const _: () = assert!(::core::mem::align_of::<$ty>() == $align);
        $(const _: () = assert!(::core::mem::offset_of!($ty, $field) == $off);)*
    };
}

/// Checks constants against the values the C headers give them (numbers from
/// `abi-tests/probe/`).
#[macro_export]
#[doc(hidden)]
macro_rules! assert_consts {
    ($($name:ident = $val:expr),* $(,)?) => {
        $(const _: () = assert!($name as i128 == $val as i128);)*
    };
}

/// Marks types whose all-zero bytes are a valid value (see [`crate::Zeroable`]).
#[macro_export]
#[doc(hidden)]
macro_rules! zeroable {
    ($($ty:ty),* $(,)?) => {
        // SAFETY: each listed type is a #[repr(C)] struct or union of
        // integers, arrays, raw pointers and other such types, or a libc
        // socket address: all-zero bytes are a valid value of each.
        $(unsafe impl $crate::Zeroable for $ty {})*
    };
}
