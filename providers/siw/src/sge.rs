//! Copying a work request's SGE list into a queue element.

use core::ptr;

use rdma_abi::siw::siw_sge;
use rdma_abi::verbs::ibv_sge;

const _: () = assert!(size_of::<ibv_sge>() == 16 && size_of::<siw_sge>() == 16);
const _: () = assert!(align_of::<ibv_sge>() == 8 && align_of::<siw_sge>() == 8);
const _: () =
    assert!(core::mem::offset_of!(ibv_sge, addr) == core::mem::offset_of!(siw_sge, laddr));
const _: () =
    assert!(core::mem::offset_of!(ibv_sge, length) == core::mem::offset_of!(siw_sge, length));
const _: () = assert!(core::mem::offset_of!(ibv_sge, lkey) == core::mem::offset_of!(siw_sge, lkey));

/// Copies `n` SGEs (at most 6) from `src` to `dst` (the two types are laid
/// out alike), one 16-byte element at a time, each read whole before it is
/// written. The reads are volatile only so that the compiler keeps this
/// short loop instead of turning it into a call of memmove, which costs
/// more than the copy for the usual one or two SGEs.
///
/// # Safety
/// `src` is readable and `dst` writable for `n` SGEs.
#[inline(always)]
pub(crate) unsafe fn copy_sges(dst: *mut siw_sge, src: *const ibv_sge, n: usize) {
    // An SGE as two words (both types are 16 bytes, 8-aligned).
    let (dst, src) = (dst as *mut [u64; 2], src as *const [u64; 2]);
    let mut i = 0;
    while i < n {
        // SAFETY: i < n, inside both arrays (the caller's promise).
        unsafe { ptr::write(dst.add(i), ptr::read_volatile(src.add(i))) };
        i += 1;
    }
}
