//! Queue pairs: ibv_qp_to_qp_ex (verbs.c).
//!
//! Every provider QP is the head of a `struct verbs_qp`; a QP created through
//! ibv_create_qp_ex with the extended send API has VERBS_QP_EX in its
//! comp_mask and an ibv_qp_ex sharing its start.

use std::ptr;

use crate::abi::driver::*;
use crate::abi::verbs::*;
use crate::{ensure, export};

/// Upstream's ibv_qp_to_qp_ex: the extended QP, or NULL (errno untouched,
/// as upstream) for a QP that was not created extended.
///
/// # Safety
/// `qp` is the head of a provider's verbs_qp.
pub unsafe fn qp_to_qp_ex(qp: *mut ibv_qp) -> *mut ibv_qp_ex {
    let vqp = qp.cast::<verbs_qp>();
    // SAFETY: providers allocate every QP as a verbs_qp (driver.h ABI).
    if unsafe { (*vqp).comp_mask } & VERBS_QP_EX != 0 {
        // SAFETY: as above; taking the address of the union member only.
        unsafe { ptr::addr_of_mut!((*vqp).base.qp_ex) }
    } else {
        ptr::null_mut()
    }
}

export! {
    /// ibv_qp_to_qp_ex@@IBVERBS_1.6
    fn ibv_qp_to_qp_ex(qp: *mut ibv_qp) -> *mut ibv_qp_ex, on_panic = ptr::null_mut();
    {
        ensure!(!qp.is_null(), libc::EINVAL, ptr::null_mut());
        // SAFETY: the caller's QP (checked non-NULL).
        unsafe { qp_to_qp_ex(qp) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::{errno, set_errno};

    fn vqp(comp_mask: u32) -> Box<verbs_qp> {
        // SAFETY: all-zero is a valid verbs_qp.
        let mut q: Box<verbs_qp> = Box::new(unsafe { std::mem::zeroed() });
        q.comp_mask = comp_mask;
        q
    }

    #[test]
    fn extended_qp_converts() {
        for mask in [VERBS_QP_EX, VERBS_QP_EX | VERBS_QP_XRCD] {
            let mut q = vqp(mask);
            let base: *mut verbs_qp = &mut *q;
            // SAFETY: a verbs_qp-headed QP.
            let ex = unsafe { ibv_qp_to_qp_ex(base.cast()) };
            // SAFETY: address of the union member, for comparison.
            assert_eq!(ex, unsafe { ptr::addr_of_mut!((*base).base.qp_ex) });
            // The extended QP starts with the plain one (qp_base).
            assert_eq!(ex as usize, base as usize);
        }
    }

    #[test]
    fn plain_qp_gives_null_and_keeps_errno() {
        for mask in [0, VERBS_QP_XRCD] {
            let mut q = vqp(mask);
            set_errno(12345);
            // SAFETY: a verbs_qp-headed QP.
            assert!(unsafe { ibv_qp_to_qp_ex((&mut *q as *mut verbs_qp).cast()) }.is_null());
            assert_eq!(errno(), 12345);
        }
    }

    #[test]
    fn null_is_einval() {
        set_errno(0);
        // SAFETY: NULL is rejected before use.
        assert!(unsafe { ibv_qp_to_qp_ex(ptr::null_mut()) }.is_null());
        assert_eq!(errno(), libc::EINVAL);
    }
}
