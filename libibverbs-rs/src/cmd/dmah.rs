//! DMA handles (rdma-core 65's `cmd_dmah.c`): the kernel object that carries
//! placement hints (a CPU, a TPH steering tag) for memory registered with
//! it. ioctl-only methods of the DMAH object, with no write() fallback.
//! Exported at IBVERBS_PRIVATE_65 only.

use core::ptr;
use libc::c_int;

use super::ioctl::{CmdBuf, CmdSpace};
use super::is_destroy_err;
use crate::abi::driver65::verbs_dmah;
use crate::abi::kern::*;
use crate::abi::verbs::ibv_context;
use crate::abi::verbs65::{
    ibv_dmah_init_attr, IBV_DMAH_INIT_ATTR_MASK_CPU_ID, IBV_DMAH_INIT_ATTR_MASK_PH,
    IBV_DMAH_INIT_ATTR_MASK_TPH_MEM_TYPE,
};
use rdma_util::ensure;
use rdma_util::ffi::errno;

rdma_util::export! {
    /// Allocates a DMA handle (ioctl only). Each hint of `attr` goes to the
    /// kernel only when its `comp_mask` bit is set: the CPU id as a 32-bit
    /// value, the TPH memory type as the element of an enum attribute (no
    /// data), the processing hint as one byte. Fills the kernel handle and
    /// the context. Returns 0 or an errno value.
    fn ibv_cmd_alloc_dmah(ctx: *mut ibv_context, dmah: *mut verbs_dmah,
                          attr: *mut ibv_dmah_init_attr) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!ctx.is_null() && !dmah.is_null() && !attr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes its live context, DMA handle and
        // attributes; `attr` outlives the command (PH points into it only
        // until it is copied inline).
        unsafe {
            let mut cmd_space = CmdSpace::new();
            let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_DMAH, UVERBS_METHOD_DMAH_ALLOC, 4) {
                Ok(b) => b,
                Err(e) => return e,
            };
            let handle = cmdb.fill_out_obj(UVERBS_ATTR_ALLOC_DMAH_HANDLE);
            let a = &*attr;
            if a.comp_mask & IBV_DMAH_INIT_ATTR_MASK_CPU_ID != 0 {
                cmdb.fill_in_u32(UVERBS_ATTR_ALLOC_DMAH_CPU_ID, a.cpu_id);
            }
            if a.comp_mask & IBV_DMAH_INIT_ATTR_MASK_TPH_MEM_TYPE != 0 {
                cmdb.fill_in_enum(UVERBS_ATTR_ALLOC_DMAH_TPH_MEM_TYPE, a.tph_mem_type, ptr::null(), 0);
            }
            if a.comp_mask & IBV_DMAH_INIT_ATTR_MASK_PH != 0 {
                cmdb.fill_in_ptr(UVERBS_ATTR_ALLOC_DMAH_PH, &a.ph);
            }
            if cmdb.execute(ctx) != 0 {
                return errno();
            }
            (*dmah).handle = cmdb.read_obj(handle);
            (*dmah).dmah.context = ctx;
        }
        0
    }
}

rdma_util::export! {
    /// Frees a DMA handle (ioctl only). Returns 0 or an errno value; EIO
    /// counts as success when disassociated destroy is allowed.
    fn ibv_cmd_free_dmah(dmah: *mut verbs_dmah) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!dmah.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live DMA handle of a live context.
        unsafe {
            let mut cmd_space = CmdSpace::new();
            let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_DMAH, UVERBS_METHOD_DMAH_FREE, 1) {
                Ok(b) => b,
                Err(e) => return e,
            };
            cmdb.fill_in_obj(UVERBS_ATTR_FREE_DMA_HANDLE, (*dmah).handle);
            let mut ret = cmdb.execute((*dmah).dmah.context);
            is_destroy_err(&mut ret);
            ret
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::kernel::*;
    use rdma_util::mem::zeroed_unchecked;

    fn init_attr(comp_mask: u32) -> ibv_dmah_init_attr {
        ibv_dmah_init_attr { comp_mask, cpu_id: 0x0102_0304, ph: 0xa5, tph_mem_type: 1 }
    }

    #[test]
    fn alloc_dmah_sends_only_the_hints_the_mask_names() {
        let mut t = TestCtx::new(4, false);
        let ctx = t.ctx();
        // SAFETY: plain C struct, valid when zero.
        let mut dmah: verbs_dmah = unsafe { zeroed_unchecked() };

        let mut attr = init_attr(0);
        let k = FakeKernel::new().on_ioctl(|c| {
            c.set_data(UVERBS_ATTR_ALLOC_DMAH_HANDLE, 0x31);
            0
        });
        // SAFETY: live context, handle and attributes.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_alloc_dmah(ctx, &mut dmah, &mut attr) });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        // UVERBS_OBJECT_DMAH (17), ALLOC (0); the provider's driver id.
        assert_eq!((hdr.object_id, hdr.method_id, hdr.driver_id), (17, 0, 4));
        assert_eq!(attr_tuples(a), vec![(0, 0, 1, 0)]);
        assert_eq!((dmah.handle, dmah.dmah.context), (0x31, ctx));

        let mut attr = init_attr(
            IBV_DMAH_INIT_ATTR_MASK_CPU_ID | IBV_DMAH_INIT_ATTR_MASK_PH | IBV_DMAH_INIT_ATTR_MASK_TPH_MEM_TYPE,
        );
        let k = FakeKernel::new().on_ioctl(|c| {
            c.set_data(UVERBS_ATTR_ALLOC_DMAH_HANDLE, 0x32);
            0
        });
        // SAFETY: as above.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_alloc_dmah(ctx, &mut dmah, &mut attr) });
        assert_eq!(ret, 0);
        let (_, a) = sent[0].ioctl();
        // Handle; CPU id (1) as four bytes; TPH memory type (2) as an enum
        // element without data; processing hint (3) as one inline byte.
        assert_eq!(
            attr_tuples(a),
            vec![(0, 0, 1, 0), (1, 4, 1, 0x0102_0304), (2, 0, 1, 0), (3, 1, 1, 0xa5)]
        );
        // SAFETY: the enum attribute's attr_data is its enum_data.
        assert_eq!(unsafe { a[2].attr_data.enum_data.elem_id }, 1);
        assert_eq!(dmah.handle, 0x32);

        // The kernel's refusal is returned and the handle left alone.
        let k = FakeKernel::new().on_ioctl(|_| libc::EPROTONOSUPPORT);
        // SAFETY: as above.
        let (ret, _) = with_kernel(k, || unsafe { ibv_cmd_alloc_dmah(ctx, &mut dmah, &mut attr) });
        assert_eq!((ret, rdma_util::ffi::errno(), dmah.handle), (libc::EPROTONOSUPPORT, libc::EPROTONOSUPPORT, 0x32));

        // SAFETY: NULL arguments are refused before use.
        let ret = unsafe { ibv_cmd_alloc_dmah(ctx, ptr::null_mut(), &mut attr) };
        assert_eq!(ret, libc::EINVAL);
    }

    #[test]
    fn free_dmah() {
        let _g = disassoc_lock();
        let mut t = TestCtx::new(1, false);
        // SAFETY: plain C struct, valid when zero.
        let mut dmah: verbs_dmah = unsafe { zeroed_unchecked() };
        dmah.dmah.context = t.ctx();
        dmah.handle = 0x44;
        // SAFETY: live DMA handle.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_free_dmah(&mut dmah) });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        assert_eq!((hdr.object_id, hdr.method_id), (17, 1));
        assert_eq!(attr_tuples(a), vec![(0, 0, 1, 0x44)]);

        let k = || FakeKernel::new().on_ioctl(|_| libc::EIO);
        // SAFETY: live DMA handle.
        let (ret, _) = with_kernel(k(), || unsafe { ibv_cmd_free_dmah(&mut dmah) });
        assert_eq!(ret, libc::EIO);
        crate::cmd::set_allow_disassociate_destroy(true);
        // SAFETY: live DMA handle.
        let (ret, _) = with_kernel(k(), || unsafe { ibv_cmd_free_dmah(&mut dmah) });
        crate::cmd::set_allow_disassociate_destroy(false);
        assert_eq!(ret, 0);
    }
}
