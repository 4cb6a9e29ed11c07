//! Flow actions: IPsec ESP offload objects (upstream's `cmd_flow_action.c`).
//!
//! The kernel only has ioctl methods for these (object FLOW_ACTION); there is
//! no write() command to fall back to, so every failure is final.

use core::ptr::addr_of;
use libc::c_int;

use super::ioctl::{ibv_command_buffer, CmdBuf, CmdSpace};
use super::is_destroy_err;
use crate::abi::driver::*;
use crate::abi::kern::*;
use crate::abi::verbs::*;
use rdma_util::ensure;
use rdma_util::ffi::errno;

/// Room for the ESP attributes: the handle plus the five optional parts.
const FLOW_ACTION_ESP_ATTRS_NUM: usize = 6;

/// Adds the parts of `esp` that are present: the ESN (by value), the key
/// material and the replay protection (tagged with their protocol), the
/// encapsulation list and the ESP parameters (by pointer).
///
/// # Safety
/// `esp` is valid; the buffers it points to stay valid until the command
/// has executed.
unsafe fn fill_esp(cmdb: &mut CmdBuf, esp: *const ibv_flow_action_esp_attr) {
    // SAFETY (whole function): caller guarantee.
    unsafe {
        if (*esp).comp_mask & IBV_FLOW_ACTION_ESP_MASK_ESN != 0 {
            cmdb.fill_in(UVERBS_ATTR_FLOW_ACTION_ESP_ESN, addr_of!((*esp).esn).cast(), 4);
        }
        if !(*esp).keymat_ptr.is_null() {
            cmdb.fill_in_enum(
                UVERBS_ATTR_FLOW_ACTION_ESP_KEYMAT,
                (*esp).keymat_proto as u8,
                (*esp).keymat_ptr,
                (*esp).keymat_len as usize,
            );
        }
        if !(*esp).replay_ptr.is_null() {
            cmdb.fill_in_enum(
                UVERBS_ATTR_FLOW_ACTION_ESP_REPLAY,
                (*esp).replay_proto as u8,
                (*esp).replay_ptr,
                (*esp).replay_len as usize,
            );
        }
        // The encap list's pointers are 64-bit already on our targets, so
        // nothing needs widening before the kernel reads them.
        if !(*esp).esp_encap.is_null() {
            cmdb.fill_in_ptr(UVERBS_ATTR_FLOW_ACTION_ESP_ENCAP, (*esp).esp_encap.cast_const());
        }
        if !(*esp).esp_attr.is_null() {
            cmdb.fill_in_ptr(UVERBS_ATTR_FLOW_ACTION_ESP_ATTRS, (*esp).esp_attr.cast_const());
        }
    }
}

rdma_util::export_versioned! {
    /// Creates an ESP flow action (ioctl only), with the provider's
    /// attributes in `driver` (may be NULL). Fills the action's context,
    /// type and handle. Returns 0 or an errno value.
    fn ibv_cmd_create_flow_action_esp(ctx: *mut ibv_context, attr: *mut ibv_flow_action_esp_attr,
                                      flow_action: *mut verbs_flow_action,
                                      driver: *mut ibv_command_buffer) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(!ctx.is_null() && !attr.is_null() && !flow_action.is_null(),
                libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes its live context, attributes, action
        // and (NULL or) its command buffer chain.
        unsafe {
            let mut cmd_space = CmdSpace::new();
            let mut cmdb = match CmdBuf::with_link_in(&mut cmd_space, UVERBS_OBJECT_FLOW_ACTION,
                                                   UVERBS_METHOD_FLOW_ACTION_ESP_CREATE,
                                                   FLOW_ACTION_ESP_ATTRS_NUM, driver) {
                Ok(b) => b,
                Err(e) => return e,
            };
            let handle = cmdb.fill_out_obj(UVERBS_ATTR_CREATE_FLOW_ACTION_ESP_HANDLE);
            fill_esp(&mut cmdb, attr);
            if cmdb.execute(ctx) != 0 {
                return errno();
            }
            (*flow_action).action.context = ctx;
            (*flow_action).type_ = IBV_FLOW_ACTION_ESP;
            (*flow_action).handle = cmdb.read_obj(handle);
        }
        0
    }
}
private_abi_both!(ibv_cmd_create_flow_action_esp);

rdma_util::export_versioned! {
    /// Changes the ESP parameters of an existing flow action (ioctl only).
    /// Returns 0 or an errno value.
    fn ibv_cmd_modify_flow_action_esp(flow_action: *mut verbs_flow_action,
                                      attr: *mut ibv_flow_action_esp_attr,
                                      driver: *mut ibv_command_buffer) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(!flow_action.is_null() && !attr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live action, its attributes and
        // (NULL or) its command buffer chain.
        unsafe {
            let mut cmd_space = CmdSpace::new();
            let mut cmdb = match CmdBuf::with_link_in(&mut cmd_space, UVERBS_OBJECT_FLOW_ACTION,
                                                   UVERBS_METHOD_FLOW_ACTION_ESP_MODIFY,
                                                   FLOW_ACTION_ESP_ATTRS_NUM, driver) {
                Ok(b) => b,
                Err(e) => return e,
            };
            cmdb.fill_in_obj(UVERBS_ATTR_MODIFY_FLOW_ACTION_ESP_HANDLE, (*flow_action).handle);
            fill_esp(&mut cmdb, attr);
            cmdb.execute((*flow_action).action.context)
        }
    }
}
private_abi_both!(ibv_cmd_modify_flow_action_esp);

rdma_util::export_versioned! {
    /// Destroys a flow action (ioctl only). Returns 0 or an errno value; EIO
    /// counts as success when disassociated destroy is allowed.
    fn ibv_cmd_destroy_flow_action(action: *mut verbs_flow_action) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(!action.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live action.
        unsafe {
            let mut cmd_space = CmdSpace::new();
            let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_FLOW_ACTION,
                                             UVERBS_METHOD_FLOW_ACTION_DESTROY, 1) {
                Ok(b) => b,
                Err(e) => return e,
            };
            cmdb.fill_in_obj(UVERBS_ATTR_DESTROY_FLOW_ACTION_HANDLE, (*action).handle);
            let mut ret = cmdb.execute((*action).action.context);
            is_destroy_err(&mut ret);
            ret
        }
    }
}
private_abi_both!(ibv_cmd_destroy_flow_action);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::kernel::*;
    use rdma_util::mem::zeroed_unchecked;
    use core::mem::size_of;
    use core::ptr;

    fn elem_id(a: &ib_uverbs_attr) -> u8 {
        // SAFETY: reading a plain-integer union member.
        unsafe { a.attr_data.enum_data.elem_id }
    }

    #[test]
    fn create_esp_sends_every_present_part_and_driver_attrs() {
        let mut t = TestCtx::new(1, false);
        let ctx = t.ctx();
        // SAFETY: plain C structs.
        let (mut attr, mut act, mut keymat, mut esp, mut encap): (
            ibv_flow_action_esp_attr,
            verbs_flow_action,
            ibv_flow_action_esp_keymat_aes_gcm,
            ibv_flow_action_esp,
            ibv_flow_action_esp_encap,
        ) = unsafe {
            (
                zeroed_unchecked(),
                zeroed_unchecked(),
                zeroed_unchecked(),
                zeroed_unchecked(),
                zeroed_unchecked(),
            )
        };
        let mut replay = ibv_flow_action_esp_replay_bmp { size: 64 };
        keymat.salt = 7;
        esp.spi = 0x1234;
        encap.len = 16;
        attr.comp_mask = IBV_FLOW_ACTION_ESP_MASK_ESN;
        attr.esn = 0xabcd;
        attr.keymat_proto = IBV_FLOW_ACTION_ESP_KEYMAT_AES_GCM;
        attr.keymat_ptr = (&mut keymat as *mut ibv_flow_action_esp_keymat_aes_gcm).cast();
        attr.keymat_len = size_of::<ibv_flow_action_esp_keymat_aes_gcm>() as u16;
        attr.replay_proto = IBV_FLOW_ACTION_ESP_REPLAY_BMP;
        attr.replay_ptr = (&mut replay as *mut ibv_flow_action_esp_replay_bmp).cast();
        attr.replay_len = 4;
        attr.esp_encap = &mut encap;
        attr.esp_attr = &mut esp;
        // A provider attribute in its own buffer.
        let mut drv = CmdBuf::new(UVERBS_OBJECT_FLOW_ACTION, UVERBS_METHOD_FLOW_ACTION_ESP_CREATE, 1).unwrap();
        drv.fill_in_u64(0x1000 | 3, 0x77);
        let k = FakeKernel::new().on_ioctl(|c| {
            c.set_data(0, 0x42);
            0
        });
        // SAFETY: live context and buffers.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_create_flow_action_esp(ctx, &mut attr, &mut act, drv.as_ptr())
        });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        // UVERBS_OBJECT_FLOW_ACTION (13), ESP_CREATE (0).
        assert_eq!((hdr.object_id, hdr.method_id, hdr.num_attrs), (13, 0, 7));
        assert_eq!(
            attr_tuples(a),
            vec![
                (0, 0, 1, 0),                                   // HANDLE
                (2, 4, 1, 0xabcd),                              // ESN inline
                (3, 56, 1, &keymat as *const _ as u64),         // KEYMAT by pointer
                (4, 4, 1, 64),                                  // REPLAY inline
                (5, 24, 1, &encap as *const _ as u64),          // ENCAP
                (1, 24, 1, &esp as *const _ as u64),            // ESP attrs
                (0x1003, 8, 1, 0x77),                           // the provider's
            ]
        );
        assert_eq!((elem_id(&a[2]), elem_id(&a[3])), (0, 1));
        assert_eq!((act.action.context, act.type_, act.handle), (ctx, IBV_FLOW_ACTION_ESP, 0x42));
    }

    #[test]
    fn create_esp_without_optional_parts_and_failure() {
        let mut t = TestCtx::new(1, false);
        let ctx = t.ctx();
        // SAFETY: plain C structs.
        let (mut attr, mut act): (ibv_flow_action_esp_attr, verbs_flow_action) =
            unsafe { (zeroed_unchecked(), zeroed_unchecked()) };
        attr.esn = 5; // ignored without the ESN mask bit
        // SAFETY: live context and buffers; no driver chain.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe {
            ibv_cmd_create_flow_action_esp(ctx, &mut attr, &mut act, ptr::null_mut())
        });
        assert_eq!(ret, 0);
        assert_eq!(attr_tuples(sent[0].ioctl().1), vec![(0, 0, 1, 0)]);
        // No write() fallback exists: the kernel's answer is final.
        let k = FakeKernel::new().on_ioctl(|_| libc::EPROTONOSUPPORT);
        act.handle = 9;
        // SAFETY: as above.
        let (ret, sent) = with_kernel(k, || unsafe {
            ibv_cmd_create_flow_action_esp(ctx, &mut attr, &mut act, ptr::null_mut())
        });
        assert_eq!((ret, sent.len(), act.handle), (libc::EPROTONOSUPPORT, 1, 9));
        // SAFETY: NULL arguments are refused before use.
        assert_eq!(unsafe { ibv_cmd_create_flow_action_esp(ctx, ptr::null_mut(), &mut act, ptr::null_mut()) }, libc::EINVAL);
    }

    #[test]
    fn modify_and_destroy() {
        let _g = disassoc_lock();
        let mut t = TestCtx::new(1, false);
        // SAFETY: plain C structs.
        let (mut attr, mut act): (ibv_flow_action_esp_attr, verbs_flow_action) =
            unsafe { (zeroed_unchecked(), zeroed_unchecked()) };
        act.action.context = t.ctx();
        act.handle = 0x21;
        attr.comp_mask = IBV_FLOW_ACTION_ESP_MASK_ESN;
        attr.esn = 3;
        let k = FakeKernel::new().on_ioctl(|_| libc::EINVAL);
        // SAFETY: live action and attributes.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_modify_flow_action_esp(&mut act, &mut attr, ptr::null_mut()) });
        assert_eq!(ret, libc::EINVAL);
        let (hdr, a) = sent[0].ioctl();
        assert_eq!((hdr.object_id, hdr.method_id), (13, 2));
        assert_eq!(attr_tuples(a), vec![(0, 0, 1, 0x21), (2, 4, 1, 3)]);

        // SAFETY: live action.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_destroy_flow_action(&mut act) });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        assert_eq!((hdr.object_id, hdr.method_id), (13, 1));
        assert_eq!(attr_tuples(a), vec![(0, 0, 1, 0x21)]);
        let k = || FakeKernel::new().on_ioctl(|_| libc::EIO);
        // SAFETY: live action.
        let (ret, _) = with_kernel(k(), || unsafe { ibv_cmd_destroy_flow_action(&mut act) });
        assert_eq!(ret, libc::EIO);
        crate::cmd::set_allow_disassociate_destroy(true);
        // SAFETY: live action.
        let (ret, _) = with_kernel(k(), || unsafe { ibv_cmd_destroy_flow_action(&mut act) });
        crate::cmd::set_allow_disassociate_destroy(false);
        assert_eq!(ret, 0);
    }
}
