//! Objects handed to C live in calloc'ed memory and are freed with free,
//! as a C provider's are: no Rust allocation on the paths C calls, so an
//! allocation failure is an ENOMEM return, never an abort.

use core::ptr;

/// A zeroed `T` from calloc; NULL with errno ENOMEM when memory is short.
/// The memory holds all-zero bytes, which must be a valid `T` before use
/// as one (true of C structs of integers, raw pointers and Options of
/// function pointers).
#[inline]
pub fn calloc<T>() -> *mut T {
    const { assert!(align_of::<T>() <= 16, "calloc aligns to 16 bytes") };
    // SAFETY: calloc takes any sizes and returns NULL or a zeroed block.
    let p = unsafe { libc::calloc(1, size_of::<T>().max(1)) };
    if p.is_null() {
        crate::set_errno(libc::ENOMEM);
        return ptr::null_mut();
    }
    p.cast()
}

/// Frees what [`calloc`] returned (NULL is ignored).
///
/// # Safety
/// `p` is NULL or came from [`calloc`] and is not used afterwards.
#[inline]
pub unsafe fn free<T>(p: *mut T) {
    // SAFETY: the caller's promise.
    unsafe { libc::free(p.cast()) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn zeroed() {
        let p = super::calloc::<[u64; 4]>();
        assert!(!p.is_null());
        // SAFETY: a fresh zeroed block of that type.
        unsafe {
            assert_eq!(*p, [0; 4]);
            super::free(p);
        }
    }
}
