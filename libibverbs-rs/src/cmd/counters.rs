//! Counters objects (upstream's `cmd_counters.c`): ioctl-only methods of the
//! COUNTERS object, with no write() fallback.

use libc::c_int;

use super::ioctl::{ibv_command_buffer, CmdBuf, CmdSpace};
use super::is_destroy_err;
use crate::abi::driver::*;
use crate::abi::kern::*;
use crate::abi::verbs::*;
use rdma_util::ensure;

rdma_util::export_versioned! {
    /// Creates a counters object (ioctl only), with the provider's
    /// attributes in `link` (may be NULL). No `comp_mask` bit is supported
    /// (EOPNOTSUPP). Fills the object's context and handle. Returns 0 or an
    /// errno value.
    fn ibv_cmd_create_counters(context: *mut ibv_context, init_attr: *mut ibv_counters_init_attr,
                               vcounters: *mut verbs_counters, link: *mut ibv_command_buffer)
        -> c_int, on_panic = libc::EIO;
    {
        ensure!(!context.is_null() && !init_attr.is_null() && !vcounters.is_null(),
                libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes its live context, attributes, object
        // and (NULL or) its command buffer chain.
        unsafe {
            let mut cmd_space = CmdSpace::new();
            let mut cmdb = match CmdBuf::with_link_in(&mut cmd_space, UVERBS_OBJECT_COUNTERS,
                                                   UVERBS_METHOD_COUNTERS_CREATE, 1, link) {
                Ok(b) => b,
                Err(e) => return e,
            };
            let handle = cmdb.fill_out_obj(UVERBS_ATTR_CREATE_COUNTERS_HANDLE);
            if (*init_attr).comp_mask != 0 {
                return libc::EOPNOTSUPP;
            }
            let ret = cmdb.execute(context);
            if ret != 0 {
                return ret;
            }
            (*vcounters).counters.context = context;
            (*vcounters).handle = cmdb.read_obj(handle);
        }
        0
    }
}
private_abi_both!(ibv_cmd_create_counters);

rdma_util::export_versioned! {
    /// Destroys a counters object (ioctl only). Returns 0 or an errno
    /// value; EIO counts as success when disassociated destroy is allowed.
    fn ibv_cmd_destroy_counters(vcounters: *mut verbs_counters) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!vcounters.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live counters object.
        unsafe {
            let mut cmd_space = CmdSpace::new();
            let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_COUNTERS,
                                             UVERBS_METHOD_COUNTERS_DESTROY, 1) {
                Ok(b) => b,
                Err(e) => return e,
            };
            cmdb.fill_in_obj(UVERBS_ATTR_DESTROY_COUNTERS_HANDLE, (*vcounters).handle);
            let mut ret = cmdb.execute((*vcounters).counters.context);
            is_destroy_err(&mut ret);
            ret
        }
    }
}
private_abi_both!(ibv_cmd_destroy_counters);

rdma_util::export_versioned! {
    /// Reads `ncounters` 64-bit counter values into `counters_value` (ioctl
    /// only), with the provider's attributes in `link` (may be NULL).
    /// Returns 0 or an errno value.
    fn ibv_cmd_read_counters(vcounters: *mut verbs_counters, counters_value: *mut u64,
                             ncounters: u32, flags: u32, link: *mut ibv_command_buffer)
        -> c_int, on_panic = libc::EIO;
    {
        ensure!(!vcounters.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live counters object, room for
        // ncounters values and (NULL or) its command buffer chain.
        unsafe {
            let mut cmd_space = CmdSpace::new();
            let mut cmdb = match CmdBuf::with_link_in(&mut cmd_space, UVERBS_OBJECT_COUNTERS,
                                                   UVERBS_METHOD_COUNTERS_READ, 3, link) {
                Ok(b) => b,
                Err(e) => return e,
            };
            cmdb.fill_in_obj(UVERBS_ATTR_READ_COUNTERS_HANDLE, (*vcounters).handle);
            // Over 64 KiB marks the buffer bad: EINVAL without a syscall.
            cmdb.fill_out(UVERBS_ATTR_READ_COUNTERS_BUFF, counters_value.cast(),
                          ncounters as usize * 8);
            cmdb.fill_in_u32(UVERBS_ATTR_READ_COUNTERS_FLAGS, flags);
            cmdb.execute((*vcounters).counters.context)
        }
    }
}
private_abi_both!(ibv_cmd_read_counters);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::kernel::*;
    use rdma_util::mem::zeroed_unchecked;
    use core::ptr;

    #[test]
    fn create_counters() {
        let mut t = TestCtx::new(4, false);
        let ctx = t.ctx();
        // SAFETY: plain C structs.
        let (mut init, mut vc): (ibv_counters_init_attr, verbs_counters) =
            unsafe { (zeroed_unchecked(), zeroed_unchecked()) };
        let mut drv = CmdBuf::new(UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_CREATE, 1).unwrap();
        drv.fill_in_u32(0x1000, 5);
        let k = FakeKernel::new().on_ioctl(|c| {
            c.set_data(0, 17);
            0
        });
        // SAFETY: live context, attributes and chain.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_create_counters(ctx, &mut init, &mut vc, drv.as_ptr()) });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        // UVERBS_OBJECT_COUNTERS (15), CREATE (0); driver id in the header.
        assert_eq!((hdr.object_id, hdr.method_id, hdr.driver_id), (15, 0, 4));
        assert_eq!(attr_tuples(a), vec![(0, 0, 1, 0), (0x1000, 4, 1, 5)]);
        assert_eq!((vc.counters.context, vc.handle), (ctx, 17));

        // An unknown comp_mask bit is refused before any syscall, with
        // errno untouched.
        init.comp_mask = 1;
        rdma_util::ffi::set_errno(0);
        // SAFETY: as above.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_create_counters(ctx, &mut init, &mut vc, ptr::null_mut()) });
        assert_eq!((ret, sent.len(), rdma_util::ffi::errno()), (libc::EOPNOTSUPP, 0, 0));

        init.comp_mask = 0;
        let k = FakeKernel::new().on_ioctl(|_| libc::ENOTTY);
        // SAFETY: as above.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_create_counters(ctx, &mut init, &mut vc, ptr::null_mut()) });
        assert_eq!((ret, sent.len()), (libc::ENOTTY, 1));
    }

    #[test]
    fn read_and_destroy_counters() {
        let _g = disassoc_lock();
        let mut t = TestCtx::new(4, false);
        // SAFETY: plain C struct.
        let mut vc: verbs_counters = unsafe { zeroed_unchecked() };
        vc.counters.context = t.ctx();
        vc.handle = 3;
        let mut vals = [0u64; 4];
        let k = FakeKernel::new().on_ioctl(|c| {
            c.write_out(1, &cat(&[&le64(10), &le64(20), &le64(30), &le64(40)]));
            0
        });
        // SAFETY: live object and value array.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_read_counters(&mut vc, vals.as_mut_ptr(), 4, 1, ptr::null_mut()) });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        assert_eq!((hdr.object_id, hdr.method_id), (15, 2));
        assert_eq!(attr_tuples(a), vec![(0, 0, 1, 3), (1, 32, 1, vals.as_ptr() as u64), (2, 4, 1, 1)]);
        assert_eq!(vals, [10, 20, 30, 40]);

        // More than 64 KiB of counters cannot be described: EINVAL.
        // SAFETY: the command is refused before the array is used.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_read_counters(&mut vc, vals.as_mut_ptr(), 8192, 0, ptr::null_mut()) });
        assert_eq!((ret, sent.len()), (libc::EINVAL, 0));

        // SAFETY: live object.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_destroy_counters(&mut vc) });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        assert_eq!((hdr.object_id, hdr.method_id), (15, 1));
        assert_eq!(attr_tuples(a), vec![(0, 0, 1, 3)]);
        crate::cmd::set_allow_disassociate_destroy(true);
        let k = FakeKernel::new().on_ioctl(|_| libc::EIO);
        // SAFETY: live object.
        let (ret, _) = with_kernel(k, || unsafe { ibv_cmd_destroy_counters(&mut vc) });
        crate::cmd::set_allow_disassociate_destroy(false);
        assert_eq!(ret, 0);
        let k = FakeKernel::new().on_ioctl(|_| libc::EBUSY);
        // SAFETY: live object.
        let (ret, _) = with_kernel(k, || unsafe { ibv_cmd_destroy_counters(&mut vc) });
        assert_eq!(ret, libc::EBUSY);
    }
}
