//! Compile-time layout checks, and the marker for types that may be zeroed.

/// Checks a C mirror's layout at compile time. The numbers come from
/// `abi-tests/probe/`, which prints them from the real C headers into the
/// files of `src/layout/`.
///
/// Three forms, `T` being any type (`ucma_cmd<rdma_ucm_bind>` included):
/// - `assert_layout!(T, size = N, align = A, field = OFF, ...)`: size,
///   alignment, then the offset of each listed field (none is fine);
/// - `assert_layout!(T, size = N)`: the size alone, for a C struct whose
///   alignment the probe does not report;
/// - `assert_layout!(T, size = N, signed = B)`: an integer type that stands
///   for a C enum: the enum's size, and whether it is signed.
#[macro_export]
#[doc(hidden)]
macro_rules! assert_layout {
    ($ty:ty, size = $size:expr, signed = $signed:expr $(,)?) => {
        const _: () = assert!(::core::mem::size_of::<$ty>() == $size);
        // A signed type's MIN is negative, an unsigned type's is zero.
        const _: () = assert!((<$ty>::MIN != 0) == $signed);
    };
    ($ty:ty, size = $size:expr, align = $align:expr $(, $field:ident = $off:expr)* $(,)?) => {
        const _: () = assert!(::core::mem::size_of::<$ty>() == $size);
        const _: () = assert!(::core::mem::align_of::<$ty>() == $align);
        $(const _: () = assert!(::core::mem::offset_of!($ty, $field) == $off);)*
    };
    ($ty:ty, size = $size:expr $(,)?) => {
        const _: () = assert!(::core::mem::size_of::<$ty>() == $size);
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

/// Checks a string constant against the text the C header gives it, at
/// compile time (numbers from `abi-tests/probe/`).
#[macro_export]
#[doc(hidden)]
macro_rules! assert_str {
    ($name:ident = $text:expr) => {
        const _: () = {
            let (a, b) = ($name.as_bytes(), $text.as_bytes());
            assert!(a.len() == b.len());
            let mut i = 0;
            while i < a.len() {
                assert!(a[i] == b[i]);
                i += 1;
            }
        };
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
