//! The queues rxe shares with the kernel: a header (element size, index
//! mask, then the producer and the consumer index each on a cache line of
//! its own) followed by 2^n elements of 2^k bytes. Indices stay within the
//! mask; one element is always left empty, so `producer == consumer` means
//! empty and `producer + 1 == consumer` full.
//!
//! User space produces into the send and receive queues and consumes the
//! completion queue; the kernel does the rest. The index the other side
//! moves is read with acquire (what it wrote before moving it is then
//! visible), ours is published with release (the element is written
//! before); our own index needs no ordering, since the queue's lock orders
//! our threads.

use core::ffi::c_int;
use core::mem::offset_of;
use core::sync::atomic::{AtomicU32, Ordering};

use rdma_abi::rxe::{mminfo, rxe_queue_buf};
use rdma_provider::queue::Mapping;

/// The next index after `i`.
#[inline(always)]
pub(crate) const fn next(i: u32, mask: u32) -> u32 {
    i.wrapping_add(1) & mask
}

/// How many elements sit between the consumer and the producer.
#[inline(always)]
pub(crate) const fn used(prod: u32, cons: u32, mask: u32) -> u32 {
    prod.wrapping_sub(cons) & mask
}

/// How many more elements the producer may write (one always stays empty).
#[inline(always)]
pub(crate) const fn room(prod: u32, cons: u32, mask: u32) -> u32 {
    cons.wrapping_sub(prod).wrapping_sub(1) & mask
}

/// A mapped queue, with the header's numbers read once at creation and
/// checked against the mapping's size.
#[derive(Clone, Copy)]
pub(crate) struct Queue {
    hdr: *mut rxe_queue_buf,
    data: *mut u8,
    pub(crate) mask: u32,
    shift: u32,
    pub(crate) map: Mapping,
}

impl Queue {
    /// No queue (a QP on an SRQ has no receive queue; a failed remap).
    pub(crate) const NONE: Queue = Queue {
        hdr: core::ptr::null_mut(),
        data: core::ptr::null_mut(),
        mask: 0,
        shift: 0,
        map: Mapping::NONE,
    };

    /// Maps the queue `mi` names on `cmd_fd`, whose elements must hold at
    /// least `min_elem` bytes. Err(errno): the mapping failed (mmap's
    /// errno), or the header does not fit its mapping (EINVAL).
    pub(crate) fn map(cmd_fd: c_int, mi: &mminfo, min_elem: usize) -> Result<Queue, c_int> {
        let mut map = Mapping::map(cmd_fd, mi.offset, mi.size as usize)?;
        // SAFETY: the mapping is at least mi.size bytes (checked in check()
        // before the header is read).
        match unsafe { Queue::check(map, min_elem) } {
            Ok(q) => Ok(q),
            Err(e) => {
                // SAFETY: our new mapping, not used.
                unsafe { map.unmap() };
                Err(e)
            }
        }
    }

    /// Reads and checks the header of a mapped queue.
    ///
    /// # Safety
    /// `map` is a live mapping of at least `map.len` bytes.
    unsafe fn check(map: Mapping, min_elem: usize) -> Result<Queue, c_int> {
        let hdr: *mut rxe_queue_buf = map.addr.cast();
        if map.len < size_of::<rxe_queue_buf>() {
            return Err(libc::EINVAL);
        }
        // SAFETY: the header lies within the mapping (checked above).
        let (log2, mask) = unsafe { ((*hdr).log2_elem_size, (*hdr).index_mask) };
        if !geometry_fits(log2, mask, min_elem, map.len) {
            return Err(libc::EINVAL);
        }
        Ok(Queue {
            hdr,
            data: map
                .addr
                .wrapping_byte_add(offset_of!(rxe_queue_buf, data))
                .cast(),
            mask,
            shift: log2,
            map,
        })
    }

    /// The queue's header (NULL for `Queue::NONE`).
    #[inline(always)]
    pub(crate) fn header(&self) -> *mut rxe_queue_buf {
        self.hdr
    }

    #[inline(always)]
    pub(crate) fn is_mapped(&self) -> bool {
        !self.hdr.is_null()
    }

    /// Where the elements start, and log2 of their size.
    #[inline(always)]
    pub(crate) fn geometry(&self) -> (*mut u8, u32) {
        (self.data, self.shift)
    }

    /// Size of one element.
    #[inline(always)]
    pub(crate) fn elem_size(&self) -> usize {
        1usize << self.shift
    }

    #[inline(always)]
    pub(crate) fn producer(&self) -> &AtomicU32 {
        // SAFETY: a mapped queue's header (callers check is_mapped); the
        // index is a naturally aligned u32 that both sides access atomically.
        unsafe { AtomicU32::from_ptr(core::ptr::addr_of_mut!((*self.hdr).producer_index)) }
    }

    #[inline(always)]
    pub(crate) fn consumer(&self) -> &AtomicU32 {
        // SAFETY: as in producer().
        unsafe { AtomicU32::from_ptr(core::ptr::addr_of_mut!((*self.hdr).consumer_index)) }
    }

    /// The element at `index` (masked: always inside the mapping).
    #[inline(always)]
    pub(crate) fn slot(&self, index: u32) -> *mut u8 {
        self.data
            .wrapping_add(((index & self.mask) as usize) << self.shift)
    }

    /// Unmaps the queue and forgets it.
    ///
    /// # Safety
    /// Nothing uses the queue afterwards.
    pub(crate) unsafe fn unmap(&mut self) {
        let mut m = self.map;
        // SAFETY: the caller's promise.
        unsafe { m.unmap() };
        *self = Queue::NONE;
    }
}

/// The consumer and producer indices of the queue whose header is at
/// `hdr`, read without the consumer's lock: the consumer as last stored,
/// the producer with acquire. A stale consumer only makes a queue look
/// fuller, never emptier than it was at some instant.
///
/// # Safety
/// `hdr` is the header of a live mapping.
#[inline(always)]
pub(crate) unsafe fn indices(hdr: *mut rxe_queue_buf) -> (u32, u32) {
    // SAFETY: the caller's promise; both indices are naturally aligned u32s
    // that the kernel and we access atomically.
    unsafe {
        let cons = AtomicU32::from_ptr(core::ptr::addr_of_mut!((*hdr).consumer_index))
            .load(Ordering::Relaxed);
        let prod = AtomicU32::from_ptr(core::ptr::addr_of_mut!((*hdr).producer_index))
            .load(Ordering::Acquire);
        (cons, prod)
    }
}

/// Whether a queue of `mask + 1` elements of `2^log2` bytes, each at least
/// `min_elem` bytes, fits a mapping of `len` bytes after its header.
pub(crate) fn geometry_fits(log2: u32, mask: u32, min_elem: usize, len: usize) -> bool {
    if log2 >= 24 || mask >= 1 << 24 || (mask & mask.wrapping_add(1)) != 0 {
        return false;
    }
    let elem = 1usize << log2;
    let need = ((mask as usize) + 1) * elem + size_of::<rxe_queue_buf>();
    elem >= min_elem && need <= len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_math() {
        let m = 7;
        assert_eq!(next(6, m), 7);
        assert_eq!(next(7, m), 0);
        assert_eq!(used(3, 3, m), 0);
        assert_eq!(room(3, 3, m), 7);
        assert_eq!(used(1, 6, m), 3);
        assert_eq!(room(1, 6, m), 4);
        // Full: producer just behind the consumer.
        assert_eq!(room(5, 6, m), 0);
        assert_eq!(used(5, 6, m), 7);
        for p in 0..=m {
            for c in 0..=m {
                assert_eq!(used(p, c, m) + room(p, c, m), m);
            }
        }
    }

    #[test]
    fn geometry() {
        // 8 elements of 64 bytes after the 384-byte header.
        assert!(geometry_fits(6, 7, 48, 384 + 512));
        assert!(!geometry_fits(6, 7, 48, 384 + 511));
        assert!(!geometry_fits(6, 7, 65, 4096));
        assert!(!geometry_fits(6, 6, 48, 4096)); // not a power of two minus one
        assert!(!geometry_fits(40, 7, 48, usize::MAX));
    }

    #[test]
    fn slots_wrap_inside() {
        let mut buf = vec![0u64; (384 + 4 * 64) / 8];
        let hdr = buf.as_mut_ptr() as *mut rxe_queue_buf;
        // SAFETY: buf holds a header.
        unsafe {
            (*hdr).log2_elem_size = 6;
            (*hdr).index_mask = 3;
        }
        let map = Mapping {
            addr: hdr.cast(),
            len: buf.len() * 8,
        };
        // SAFETY: a live buffer of map.len bytes.
        let q = unsafe { Queue::check(map, 16) }.unwrap();
        assert_eq!(q.elem_size(), 64);
        assert_eq!(q.slot(1) as usize - hdr as usize, 384 + 64);
        assert_eq!(q.slot(5), q.slot(1));
        q.producer().store(2, Ordering::Release);
        // SAFETY: reading back the header.
        assert_eq!(unsafe { (*hdr).producer_index }, 2);
    }
}
