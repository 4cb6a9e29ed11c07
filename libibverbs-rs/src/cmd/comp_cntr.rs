//! Completion counters (rdma-core 65's `cmd_comp_cntr.c`, and the caps query
//! of its `cmd_device.c`): a kernel object holding two 64-bit values, the
//! completions and the errors of the QPs attached to it. ioctl-only methods
//! of the COMP_CNTR object (attaching is a QP method), with no write()
//! fallback. Exported at IBVERBS_PRIVATE_65 only.

use core::ptr::addr_of_mut;
use libc::c_int;

use super::ioctl::{ibv_command_buffer, CmdBuf, CmdSpace};
use super::is_destroy_err;
use crate::abi::kern::*;
use crate::abi::verbs::{ibv_context, ibv_qp};
use crate::abi::verbs65::{
    ibv_comp_cntr, ibv_comp_cntr_caps, ibv_qp_attach_comp_cntr_attr, IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_READ,
    IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE, IBV_QP_ATTACH_COMP_CNTR_OP_RECV,
    IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ, IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE,
    IBV_QP_ATTACH_COMP_CNTR_OP_SEND,
};
use rdma_util::ensure;
use rdma_util::ffi::errno;

/// The verbs' attach-operation bits and the kernel's. They happen to be
/// equal, but the commands translate bit by bit so that a bit one side does
/// not know is dropped rather than passed on.
const ATTACH_OPS: [(u32, u32); 6] = [
    (IBV_QP_ATTACH_COMP_CNTR_OP_SEND, IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_SEND),
    (IBV_QP_ATTACH_COMP_CNTR_OP_RECV, IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RECV),
    (IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_READ, IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_READ),
    (IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ, IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ),
    (IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE, IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE),
    (IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE, IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE),
];

fn attach_ops_to_kernel(ops: u32) -> u32 {
    ATTACH_OPS.iter().filter(|(v, _)| ops & v != 0).fold(0, |acc, (_, k)| acc | k)
}

fn attach_ops_from_kernel(ops: u32) -> u32 {
    ATTACH_OPS.iter().filter(|(_, k)| ops & k != 0).fold(0, |acc, (v, _)| acc | v)
}

rdma_util::export! {
    /// Asks the kernel what completion counters can do (ioctl only): the
    /// number of counters, their largest value and the operations a QP can
    /// count with them. `caps_size` smaller than `ibv_comp_cntr_caps` is
    /// refused with EINVAL before any command (errno untouched). Returns 0
    /// or an errno value.
    fn ibv_cmd_query_comp_cntr_caps(context: *mut ibv_context, caps: *mut ibv_comp_cntr_caps,
                                    caps_size: usize) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!context.is_null() && !caps.is_null(), libc::EINVAL, libc::EINVAL);
        if caps_size < core::mem::size_of::<ibv_comp_cntr_caps>() {
            return libc::EINVAL;
        }
        let mut kernel_ops = 0u32;
        // SAFETY: the provider passes its live context and room for the
        // caps; the kernel writes the first two fields in place and the
        // operations into kernel_ops, which outlives the command.
        unsafe {
            let mut cmd_space = CmdSpace::new();
            let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_DEVICE,
                                                UVERBS_METHOD_QUERY_COMP_CNTR_CAPS, 3) {
                Ok(b) => b,
                Err(e) => return e,
            };
            cmdb.fill_out_ptr(UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_COUNTERS, addr_of_mut!((*caps).max_counters));
            cmdb.fill_out_ptr(UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_VALUE, addr_of_mut!((*caps).max_value));
            cmdb.fill_out_ptr(UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_SUPPORTED_QP_ATTACH_OPS, &mut kernel_ops);
            let ret = cmdb.execute(context);
            if ret != 0 {
                return ret;
            }
            (*caps).supported_qp_attach_ops = attach_ops_from_kernel(kernel_ops);
        }
        0
    }
}

rdma_util::export! {
    /// Creates a completion counter (ioctl only), with the provider's
    /// attributes in `link` (may be NULL). The context is stored in
    /// `comp_cntr` before the command, the kernel handle after it. Returns 0
    /// or an errno value.
    fn ibv_cmd_create_comp_cntr(context: *mut ibv_context, comp_cntr: *mut ibv_comp_cntr,
                                link: *mut ibv_command_buffer) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!context.is_null() && !comp_cntr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes its live context, counter and (NULL
        // or) its command buffer chain.
        unsafe {
            let mut cmd_space = CmdSpace::new();
            let mut cmdb = match CmdBuf::with_link_in(&mut cmd_space, UVERBS_OBJECT_COMP_CNTR,
                                                      UVERBS_METHOD_COMP_CNTR_CREATE, 1, link) {
                Ok(b) => b,
                Err(e) => return e,
            };
            (*comp_cntr).context = context;
            let handle = cmdb.fill_out_obj(UVERBS_ATTR_CREATE_COMP_CNTR_HANDLE);
            if cmdb.execute(context) != 0 {
                return errno();
            }
            (*comp_cntr).handle = cmdb.read_obj(handle);
        }
        0
    }
}

rdma_util::export! {
    /// Destroys a completion counter (ioctl only). Returns 0 or an errno
    /// value; EIO counts as success when disassociated destroy is allowed.
    fn ibv_cmd_destroy_comp_cntr(comp_cntr: *mut ibv_comp_cntr) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!comp_cntr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live counter of a live context.
        unsafe {
            let mut cmd_space = CmdSpace::new();
            let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_COMP_CNTR,
                                                UVERBS_METHOD_COMP_CNTR_DESTROY, 1) {
                Ok(b) => b,
                Err(e) => return e,
            };
            cmdb.fill_in_obj(UVERBS_ATTR_DESTROY_COMP_CNTR_HANDLE, (*comp_cntr).handle);
            let mut ret = cmdb.execute((*comp_cntr).context);
            is_destroy_err(&mut ret);
            ret
        }
    }
}

/// UVERBS_METHOD_COMP_CNTR_MODIFY: applies `op` (set or add) with `value`
/// to the counter's `entry` (completions or errors). Returns 0 or an errno
/// value.
///
/// # Safety
/// `comp_cntr` is a live counter of a live context.
unsafe fn modify(comp_cntr: *mut ibv_comp_cntr, entry: u32, op: u32, value: u64) -> c_int {
    let mut cmd_space = CmdSpace::new();
    let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_COMP_CNTR, UVERBS_METHOD_COMP_CNTR_MODIFY, 4) {
        Ok(b) => b,
        Err(e) => return e,
    };
    // SAFETY: caller guarantee; every attribute is inline.
    unsafe {
        cmdb.fill_in_obj(UVERBS_ATTR_MODIFY_COMP_CNTR_HANDLE, (*comp_cntr).handle);
        cmdb.fill_const_in(UVERBS_ATTR_MODIFY_COMP_CNTR_ENTRY, entry as u64);
        cmdb.fill_const_in(UVERBS_ATTR_MODIFY_COMP_CNTR_OP, op as u64);
        cmdb.fill_in_u64(UVERBS_ATTR_MODIFY_COMP_CNTR_VALUE, value);
        cmdb.execute((*comp_cntr).context)
    }
}

/// UVERBS_METHOD_COMP_CNTR_READ: the counter's `entry` into `*value`.
/// Returns 0 or an errno value.
///
/// # Safety
/// `comp_cntr` is a live counter of a live context; `value` is writable (or
/// NULL, which the kernel refuses).
unsafe fn read(comp_cntr: *mut ibv_comp_cntr, entry: u32, value: *mut u64) -> c_int {
    let mut cmd_space = CmdSpace::new();
    let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_COMP_CNTR, UVERBS_METHOD_COMP_CNTR_READ, 3) {
        Ok(b) => b,
        Err(e) => return e,
    };
    // SAFETY: caller guarantee; the kernel writes through `value`.
    unsafe {
        cmdb.fill_in_obj(UVERBS_ATTR_READ_COMP_CNTR_HANDLE, (*comp_cntr).handle);
        cmdb.fill_const_in(UVERBS_ATTR_READ_COMP_CNTR_ENTRY, entry as u64);
        cmdb.fill_out_ptr(UVERBS_ATTR_READ_COMP_CNTR_RESP_VALUE, value);
        cmdb.execute((*comp_cntr).context)
    }
}

rdma_util::export! {
    /// Sets a counter's completion count to `value`. Returns 0 or an errno
    /// value.
    fn ibv_cmd_set_comp_cntr(comp_cntr: *mut ibv_comp_cntr, value: u64) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!comp_cntr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live counter.
        unsafe { modify(comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_COMP, IB_UVERBS_COMP_CNTR_MODIFY_OP_SET, value) }
    }
}

rdma_util::export! {
    /// Sets a counter's error count to `value`. Returns 0 or an errno value.
    fn ibv_cmd_set_err_comp_cntr(comp_cntr: *mut ibv_comp_cntr, value: u64) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!comp_cntr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live counter.
        unsafe { modify(comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_ERR, IB_UVERBS_COMP_CNTR_MODIFY_OP_SET, value) }
    }
}

rdma_util::export! {
    /// Adds `amount` to a counter's completion count. Returns 0 or an errno
    /// value.
    fn ibv_cmd_inc_comp_cntr(comp_cntr: *mut ibv_comp_cntr, amount: u64) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!comp_cntr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live counter.
        unsafe { modify(comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_COMP, IB_UVERBS_COMP_CNTR_MODIFY_OP_INC, amount) }
    }
}

rdma_util::export! {
    /// Adds `amount` to a counter's error count. Returns 0 or an errno value.
    fn ibv_cmd_inc_err_comp_cntr(comp_cntr: *mut ibv_comp_cntr, amount: u64) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!comp_cntr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live counter.
        unsafe { modify(comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_ERR, IB_UVERBS_COMP_CNTR_MODIFY_OP_INC, amount) }
    }
}

rdma_util::export! {
    /// Reads a counter's completion count into `*value`. Returns 0 or an
    /// errno value.
    fn ibv_cmd_read_comp_cntr(comp_cntr: *mut ibv_comp_cntr, value: *mut u64) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!comp_cntr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live counter and room for the value.
        unsafe { read(comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_COMP, value) }
    }
}

rdma_util::export! {
    /// Reads a counter's error count into `*value`. Returns 0 or an errno
    /// value.
    fn ibv_cmd_read_err_comp_cntr(comp_cntr: *mut ibv_comp_cntr, value: *mut u64) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!comp_cntr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live counter and room for the value.
        unsafe { read(comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_ERR, value) }
    }
}

rdma_util::export! {
    /// Attaches a completion counter to a QP (ioctl, a method of the QP
    /// object): from then on the operations of `attr->op_mask` count into
    /// it. Returns 0 or an errno value.
    fn ibv_cmd_qp_attach_comp_cntr(qp: *mut ibv_qp, comp_cntr: *mut ibv_comp_cntr,
                                   attr: *mut ibv_qp_attach_comp_cntr_attr) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!qp.is_null() && !comp_cntr.is_null() && !attr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live QP and counter of a live
        // context, and the attributes.
        unsafe {
            let mut cmd_space = CmdSpace::new();
            let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_QP,
                                                UVERBS_METHOD_QP_ATTACH_COMP_CNTR, 3) {
                Ok(b) => b,
                Err(e) => return e,
            };
            cmdb.fill_in_obj(UVERBS_ATTR_QP_ATTACH_COMP_CNTR_HANDLE, (*qp).handle);
            cmdb.fill_in_obj(UVERBS_ATTR_QP_ATTACH_COMP_CNTR_CNTR_HANDLE, (*comp_cntr).handle);
            cmdb.fill_in_u32(UVERBS_ATTR_QP_ATTACH_COMP_CNTR_OP_MASK, attach_ops_to_kernel((*attr).op_mask));
            cmdb.execute((*qp).context)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::kernel::*;
    use core::ptr;
    use rdma_util::mem::zeroed_unchecked;

    #[test]
    fn attach_op_bits_translate_both_ways_and_drop_unknown_ones() {
        assert_eq!(attach_ops_to_kernel(0x3f), 0x3f);
        assert_eq!(attach_ops_to_kernel(0xffff_ff00 | IBV_QP_ATTACH_COMP_CNTR_OP_RECV), IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RECV);
        assert_eq!(attach_ops_from_kernel(0x40 | IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE), IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE);
        for (v, k) in ATTACH_OPS {
            assert_eq!((attach_ops_to_kernel(v), attach_ops_from_kernel(k)), (k, v));
        }
    }

    #[test]
    fn query_comp_cntr_caps() {
        let mut t = TestCtx::new(1, false);
        let ctx = t.ctx();
        // SAFETY: plain C struct, valid when zero.
        let mut caps: ibv_comp_cntr_caps = unsafe { zeroed_unchecked() };
        caps.supported_qp_attach_ops = 0xdead;
        let k = FakeKernel::new().on_ioctl(|c| {
            c.write_out_val(UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_COUNTERS, 64u32);
            c.write_out_val(UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_VALUE, u64::MAX >> 1);
            c.write_out_val(UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_SUPPORTED_QP_ATTACH_OPS, 0x80u32 | 0x5);
            0
        });
        let size = core::mem::size_of::<ibv_comp_cntr_caps>();
        // SAFETY: live context and caps.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_query_comp_cntr_caps(ctx, &mut caps, size) });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        // UVERBS_OBJECT_DEVICE (0), QUERY_COMP_CNTR_CAPS (8): max_counters
        // (4 bytes) and max_value (8) straight into the caps.
        assert_eq!((hdr.object_id, hdr.method_id, hdr.num_attrs), (0, 8, 3));
        let at = attr_tuples(a);
        assert_eq!(at[0], (0, 4, 1, &caps.max_counters as *const u32 as u64));
        assert_eq!(at[1], (1, 8, 1, &caps.max_value as *const u64 as u64));
        assert_eq!((at[2].0, at[2].1, at[2].2), (2, 4, 1));
        assert_eq!((caps.max_counters, caps.max_value), (64, u64::MAX >> 1));
        // SEND | RDMA_READ; the unknown kernel bit is dropped.
        assert_eq!(caps.supported_qp_attach_ops, IBV_QP_ATTACH_COMP_CNTR_OP_SEND | IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_READ);

        // A kernel without the method: its answer, the ops left alone.
        caps.supported_qp_attach_ops = 7;
        let k = FakeKernel::new().on_ioctl(|_| libc::EPROTONOSUPPORT);
        // SAFETY: as above.
        let (ret, _) = with_kernel(k, || unsafe { ibv_cmd_query_comp_cntr_caps(ctx, &mut caps, size) });
        assert_eq!((ret, caps.supported_qp_attach_ops), (libc::EPROTONOSUPPORT, 7));

        // Too small a struct: EINVAL, nothing sent, errno untouched.
        rdma_util::ffi::set_errno(0);
        // SAFETY: as above.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_query_comp_cntr_caps(ctx, &mut caps, size - 1) });
        assert_eq!((ret, sent.len(), rdma_util::ffi::errno()), (libc::EINVAL, 0, 0));
    }

    #[test]
    fn create_and_destroy_comp_cntr() {
        let _g = disassoc_lock();
        let mut t = TestCtx::new(17, false);
        let ctx = t.ctx();
        // SAFETY: plain C struct, valid when zero.
        let mut cc: ibv_comp_cntr = unsafe { zeroed_unchecked() };
        let mut drv = CmdBuf::new(UVERBS_OBJECT_COMP_CNTR, UVERBS_METHOD_COMP_CNTR_CREATE, 1).unwrap();
        drv.fill_in_u64(0x1000, 0x77);
        let k = FakeKernel::new().on_ioctl(|c| {
            c.set_data(UVERBS_ATTR_CREATE_COMP_CNTR_HANDLE, 9);
            0
        });
        // SAFETY: live context, counter and chain.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_create_comp_cntr(ctx, &mut cc, drv.as_ptr()) });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        // UVERBS_OBJECT_COMP_CNTR (19), CREATE (0), the driver's attribute
        // behind the core one.
        assert_eq!((hdr.object_id, hdr.method_id, hdr.driver_id), (19, 0, 17));
        assert_eq!(attr_tuples(a), vec![(0, 0, 1, 0), (0x1000, 8, 1, 0x77)]);
        assert_eq!((cc.context, cc.handle), (ctx, 9));

        // A failure returns errno's value; the context is set all the same.
        // SAFETY: plain C struct, valid when zero.
        let mut fresh: ibv_comp_cntr = unsafe { zeroed_unchecked() };
        let k = FakeKernel::new().on_ioctl(|_| libc::EPROTONOSUPPORT);
        // SAFETY: live context and counter.
        let (ret, _) = with_kernel(k, || unsafe { ibv_cmd_create_comp_cntr(ctx, &mut fresh, ptr::null_mut()) });
        assert_eq!((ret, fresh.context, fresh.handle), (libc::EPROTONOSUPPORT, ctx, 0));

        // SAFETY: live counter.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_destroy_comp_cntr(&mut cc) });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        assert_eq!((hdr.object_id, hdr.method_id), (19, 1));
        assert_eq!(attr_tuples(a), vec![(0, 0, 1, 9)]);
        let k = || FakeKernel::new().on_ioctl(|_| libc::EIO);
        // SAFETY: live counter.
        let (ret, _) = with_kernel(k(), || unsafe { ibv_cmd_destroy_comp_cntr(&mut cc) });
        assert_eq!(ret, libc::EIO);
        crate::cmd::set_allow_disassociate_destroy(true);
        // SAFETY: live counter.
        let (ret, _) = with_kernel(k(), || unsafe { ibv_cmd_destroy_comp_cntr(&mut cc) });
        crate::cmd::set_allow_disassociate_destroy(false);
        assert_eq!(ret, 0);
    }

    #[test]
    fn set_and_inc_address_the_right_entry_and_op() {
        let mut t = TestCtx::new(1, false);
        // SAFETY: plain C struct, valid when zero.
        let mut cc: ibv_comp_cntr = unsafe { zeroed_unchecked() };
        cc.context = t.ctx();
        cc.handle = 0x21;
        type Modify = unsafe extern "C" fn(*mut ibv_comp_cntr, u64) -> c_int;
        // (function, entry, op): COMP 0 / ERR 1, SET 0 / INC 1.
        let cases: [(Modify, u64, u64); 4] = [
            (ibv_cmd_set_comp_cntr, 0, 0),
            (ibv_cmd_set_err_comp_cntr, 1, 0),
            (ibv_cmd_inc_comp_cntr, 0, 1),
            (ibv_cmd_inc_err_comp_cntr, 1, 1),
        ];
        for (i, (f, entry, op)) in cases.into_iter().enumerate() {
            let value = 0x1_0000_0000 + i as u64;
            // SAFETY: live counter.
            let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { f(&mut cc, value) });
            assert_eq!(ret, 0);
            let (hdr, a) = sent[0].ioctl();
            // COMP_CNTR (19), MODIFY (2); handle, entry and op as 64-bit
            // constants, then the value.
            assert_eq!((hdr.object_id, hdr.method_id), (19, 2));
            assert_eq!(
                attr_tuples(a),
                vec![(0, 0, 1, 0x21), (1, 8, 1, entry), (2, 8, 1, op), (3, 8, 1, value)],
                "case {i}"
            );
        }
        let k = FakeKernel::new().on_ioctl(|_| libc::EINVAL);
        // SAFETY: live counter.
        let (ret, _) = with_kernel(k, || unsafe { ibv_cmd_inc_comp_cntr(&mut cc, 1) });
        assert_eq!(ret, libc::EINVAL);
    }

    #[test]
    fn read_comp_cntr_and_its_errors() {
        let mut t = TestCtx::new(1, false);
        // SAFETY: plain C struct, valid when zero.
        let mut cc: ibv_comp_cntr = unsafe { zeroed_unchecked() };
        cc.context = t.ctx();
        cc.handle = 0x22;
        for (err, entry) in [(false, 0u64), (true, 1)] {
            let mut value = 0u64;
            let k = FakeKernel::new().on_ioctl(move |c| {
                c.write_out_val(UVERBS_ATTR_READ_COMP_CNTR_RESP_VALUE, 1000 + entry);
                0
            });
            // SAFETY: live counter and value.
            let (ret, sent) = with_kernel(k, || unsafe {
                if err {
                    ibv_cmd_read_err_comp_cntr(&mut cc, &mut value)
                } else {
                    ibv_cmd_read_comp_cntr(&mut cc, &mut value)
                }
            });
            assert_eq!(ret, 0);
            let (hdr, a) = sent[0].ioctl();
            // COMP_CNTR (19), READ (3).
            assert_eq!((hdr.object_id, hdr.method_id), (19, 3));
            assert_eq!(
                attr_tuples(a),
                vec![(0, 0, 1, 0x22), (1, 8, 1, entry), (2, 8, 1, &value as *const u64 as u64)]
            );
            assert_eq!(value, 1000 + entry);
        }
        let mut value = 5u64;
        let k = FakeKernel::new().on_ioctl(|_| libc::EPROTONOSUPPORT);
        // SAFETY: live counter and value.
        let (ret, _) = with_kernel(k, || unsafe { ibv_cmd_read_comp_cntr(&mut cc, &mut value) });
        assert_eq!((ret, value), (libc::EPROTONOSUPPORT, 5));
    }

    #[test]
    fn qp_attach_comp_cntr() {
        let mut t = TestCtx::new(1, false);
        // SAFETY: plain C structs, valid when zero.
        let (mut qp, mut cc): (ibv_qp, ibv_comp_cntr) = unsafe { (zeroed_unchecked(), zeroed_unchecked()) };
        qp.context = t.ctx();
        qp.handle = 0x51;
        cc.handle = 0x52;
        let mut attr = ibv_qp_attach_comp_cntr_attr {
            comp_mask: 0,
            op_mask: IBV_QP_ATTACH_COMP_CNTR_OP_SEND | IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE | 0x100,
        };
        // SAFETY: live QP, counter and attributes.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_qp_attach_comp_cntr(&mut qp, &mut cc, &mut attr) });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        // UVERBS_OBJECT_QP (4), ATTACH_COMP_CNTR (2); the unknown bit 0x100
        // is not passed on.
        assert_eq!((hdr.object_id, hdr.method_id), (4, 2));
        assert_eq!(attr_tuples(a), vec![(0, 0, 1, 0x51), (1, 0, 1, 0x52), (2, 4, 1, 0x21)]);
        let k = FakeKernel::new().on_ioctl(|_| libc::EOPNOTSUPP);
        // SAFETY: as above.
        let (ret, _) = with_kernel(k, || unsafe { ibv_cmd_qp_attach_comp_cntr(&mut qp, &mut cc, &mut attr) });
        assert_eq!(ret, libc::EOPNOTSUPP);
    }
}
