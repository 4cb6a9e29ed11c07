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

/// The head of an object a provider hands out, in front of the `ibv_*`
/// struct the application gets a pointer to: a word that says whether the
/// object is live, and room for what malloc writes into freed memory.
///
/// After a destroy, an application that still calls through its stale
/// pointer (`ibv_poll_cq(cq, ...)`) first reads `cq->context` in the
/// inline function of verbs.h, then calls the provider. glibc's free writes
/// its list links over the first 16 bytes of a block; with the `ibv_*`
/// struct 16 bytes in, its `context` survives until the memory is reused,
/// the call reaches the provider, and the provider sees the cleared word
/// and refuses. Memory already reused for something else cannot be told
/// from a live object; this catches the common case, at no cost to the
/// data path (the object is reached at a constant offset either way).
#[repr(C, align(16))]
#[derive(Default)]
pub struct Tag {
    word: core::cell::Cell<u64>,
    _malloc: u64,
}

impl Tag {
    /// Marks the object live, with the provider's word for its kind.
    #[inline]
    pub fn set(&self, magic: u64) {
        self.word.set(magic)
    }

    /// Marks it dead (before it is freed).
    #[inline]
    pub fn clear(&self) {
        self.word.set(0)
    }

    /// Whether it is marked live as `magic`.
    #[inline(always)]
    pub fn is(&self, magic: u64) -> bool {
        self.word.get() == magic
    }
}

const _: () = assert!(size_of::<Tag>() == 16);
