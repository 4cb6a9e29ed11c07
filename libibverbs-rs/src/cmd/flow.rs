//! Steering flows (upstream's `ibv_cmd_create_flow` in `cmd.c` and
//! `cmd_flow.c`).
//!
//! Creation only exists as the extended write() command CREATE_FLOW: the
//! application's `ibv_flow_attr` is followed by its specs in the verbs.h
//! layout, which are rewritten one by one into the kernel's
//! `ib_uverbs_flow_spec_*` layout behind the core struct, followed by the
//! provider's data. Destruction tries the ioctl first.

use core::mem::{offset_of, size_of};
use core::ptr::{self, addr_of_mut};
use libc::{c_int, c_void};

use super::ioctl::{CmdBuf, CmdSpace};
use super::write::{
    execute_cmd_write_ex_raw, execute_cmd_write_ex_req, execute_ioctl_fallback, fallback_result,
    Fallback,
};
use super::is_destroy_err;
use crate::abi::driver::*;
use crate::abi::kern::*;
use crate::abi::verbs::*;
use rdma_util::ffi::set_errno;
use crate::cmd::cmd_bit;
use rdma_util::ensure;

/// Size of the `{type, size}` header of every verbs.h flow spec.
const IB_SPEC_HDR_SIZE: i32 = size_of::<ibv_flow_spec_u_hdr>() as i32;

/// The filters whose length the application may choose (newer verbs.h
/// versions grew them); the kernel knows a fixed prefix.
#[derive(Clone, Copy)]
enum VarFilter {
    Ipv4Ext,
    Ipv6,
    Tunnel,
}

/// One verbs.h spec being read: `ib` points to its header; reads are
/// unaligned byte copies because specs follow each other at any offset.
struct IbSpec(*const u8);

impl IbSpec {
    /// # Safety
    /// `off + 4` bytes of the spec are readable.
    unsafe fn u32_at(&self, off: usize) -> u32 {
        // SAFETY: caller guarantee.
        unsafe { ptr::read_unaligned(self.0.add(off).cast::<u32>()) }
    }

    /// # Safety
    /// The spec header is readable.
    unsafe fn hdr_size(&self) -> u16 {
        // SAFETY: caller guarantee.
        unsafe { ptr::read_unaligned(self.0.add(offset_of!(ibv_flow_spec_u_hdr, size)).cast::<u16>()) }
    }
}

/// A kernel spec being written into the (zeroed) command buffer.
struct KernSpec(*mut u8);

impl KernSpec {
    /// Copies `n` bytes of the verbs spec at `from` to offset `to`.
    ///
    /// # Safety
    /// Both ranges lie inside their specs.
    unsafe fn copy(&self, ib: &IbSpec, from: usize, to: usize, n: usize) {
        // SAFETY: caller guarantee; the buffers are distinct.
        unsafe { ptr::copy_nonoverlapping(ib.0.add(from), self.0.add(to), n) }
    }

    /// # Safety
    /// `off + 4` bytes lie inside the spec slot.
    unsafe fn set_u32(&self, off: usize, v: u32) {
        // SAFETY: caller guarantee.
        unsafe { ptr::write_unaligned(self.0.add(off).cast::<u32>(), v) }
    }

    /// # Safety
    /// The header lies inside the spec slot.
    unsafe fn set_hdr(&self, type_: u32, size: usize) {
        // SAFETY: caller guarantee.
        unsafe {
            self.set_u32(offset_of!(ib_uverbs_flow_spec_hdr, type_), type_);
            ptr::write_unaligned(
                self.0.add(offset_of!(ib_uverbs_flow_spec_hdr, size)).cast::<u16>(),
                size as u16,
            );
        }
    }
}

/// Sizes of a variable-length filter (upstream's `get_filters_size`): the
/// application's filter length (half the spec body: value then mask) and
/// the number of bytes the kernel takes. A filter shorter than what the
/// kernel needs is EINVAL; mask bits beyond what it knows must be zero
/// (else EOPNOTSUPP).
///
/// # Safety
/// The spec is readable for the size its header gives.
unsafe fn filter_sizes(ib: &IbSpec, kind: VarFilter) -> Result<(usize, usize), c_int> {
    // SAFETY (whole function): caller guarantee; every read stays within
    // value + mask = the header's size.
    unsafe {
        let ib_filter_size = (ib.hdr_size() as i32 - IB_SPEC_HDR_SIZE) / 2;
        let (min, val_off) = match kind {
            VarFilter::Ipv4Ext => (
                offset_of!(ib_uverbs_flow_ipv4_filter, flags) + 1,
                offset_of!(ibv_flow_spec_ipv4_ext, val),
            ),
            VarFilter::Ipv6 => (
                offset_of!(ib_uverbs_flow_ipv6_filter, hop_limit) + 1,
                offset_of!(ibv_flow_spec_ipv6, val),
            ),
            VarFilter::Tunnel => (
                offset_of!(ib_uverbs_flow_tunnel_filter, tunnel_id) + 4,
                offset_of!(ibv_flow_spec_tunnel, val),
            ),
        };
        if ib_filter_size < min as i32 {
            return Err(libc::EINVAL);
        }
        let ib_filter_size = ib_filter_size as usize;
        if ib_filter_size > min {
            let extra = core::slice::from_raw_parts(
                ib.0.add(val_off + ib_filter_size + min),
                ib_filter_size - min,
            );
            if extra.iter().any(|&b| b != 0) {
                return Err(libc::EOPNOTSUPP);
            }
        }
        Ok((ib_filter_size, min.min(ib_filter_size)))
    }
}

/// Rewrites the verbs.h spec `ib` as the kernel's spec at `kern` (a zeroed
/// slot of `size_of::<ibv_kern_spec>()` bytes), upstream's
/// `ib_spec_to_kern_spec`. Returns the kernel spec's size.
///
/// # Safety
/// `ib` is a readable spec (as long as its header says); `kern` is a
/// writable, zeroed slot. Action specs point to live objects.
unsafe fn ib_spec_to_kern_spec(ib: &IbSpec, kern: &KernSpec) -> Result<usize, c_int> {
    // SAFETY (whole function): caller guarantee; copies stay within the
    // fixed-size filters of both layouts.
    unsafe {
        let ty = ib.u32_at(offset_of!(ibv_flow_spec_u_hdr, type_));
        kern.set_hdr(ty, 0);
        let inner = ty & IBV_FLOW_SPEC_INNER;
        // (verbs value offset, verbs mask offset, kernel value offset,
        //  kernel mask offset, filter bytes, kernel spec size)
        let fixed = match ty & !inner {
            IBV_FLOW_SPEC_ETH => Some((
                offset_of!(ibv_flow_spec_eth, val),
                offset_of!(ibv_flow_spec_eth, mask),
                offset_of!(ib_uverbs_flow_spec_eth, val),
                offset_of!(ib_uverbs_flow_spec_eth, mask),
                size_of::<ibv_flow_eth_filter>(),
                size_of::<ib_uverbs_flow_spec_eth>(),
            )),
            IBV_FLOW_SPEC_IPV4 => Some((
                offset_of!(ibv_flow_spec_ipv4, val),
                offset_of!(ibv_flow_spec_ipv4, mask),
                offset_of!(ibv_kern_spec_ipv4, val),
                offset_of!(ibv_kern_spec_ipv4, mask),
                size_of::<ibv_flow_ipv4_filter>(),
                size_of::<ibv_kern_spec_ipv4>(),
            )),
            IBV_FLOW_SPEC_ESP => Some((
                offset_of!(ibv_flow_spec_esp, val),
                offset_of!(ibv_flow_spec_esp, mask),
                offset_of!(ib_uverbs_flow_spec_esp, val),
                offset_of!(ib_uverbs_flow_spec_esp, mask),
                size_of::<ib_uverbs_flow_spec_esp_filter>(),
                size_of::<ib_uverbs_flow_spec_esp>(),
            )),
            IBV_FLOW_SPEC_TCP | IBV_FLOW_SPEC_UDP => Some((
                offset_of!(ibv_flow_spec_tcp_udp, val),
                offset_of!(ibv_flow_spec_tcp_udp, mask),
                offset_of!(ib_uverbs_flow_spec_tcp_udp, val),
                offset_of!(ib_uverbs_flow_spec_tcp_udp, mask),
                size_of::<ibv_flow_tcp_udp_filter>(),
                size_of::<ib_uverbs_flow_spec_tcp_udp>(),
            )),
            IBV_FLOW_SPEC_MPLS => Some((
                offset_of!(ibv_flow_spec_mpls, val),
                offset_of!(ibv_flow_spec_mpls, mask),
                offset_of!(ib_uverbs_flow_spec_mpls, val),
                offset_of!(ib_uverbs_flow_spec_mpls, mask),
                size_of::<ibv_flow_mpls_filter>(),
                size_of::<ib_uverbs_flow_spec_mpls>(),
            )),
            // GRE has no inner variant.
            IBV_FLOW_SPEC_GRE if inner == 0 => Some((
                offset_of!(ibv_flow_spec_gre, val),
                offset_of!(ibv_flow_spec_gre, mask),
                offset_of!(ib_uverbs_flow_spec_gre, val),
                offset_of!(ib_uverbs_flow_spec_gre, mask),
                size_of::<ibv_flow_gre_filter>(),
                size_of::<ib_uverbs_flow_spec_gre>(),
            )),
            _ => None,
        };
        if let Some((ib_val, ib_mask, k_val, k_mask, n, size)) = fixed {
            kern.copy(ib, ib_val, k_val, n);
            kern.copy(ib, ib_mask, k_mask, n);
            kern.set_hdr(ty, size);
            return Ok(size);
        }

        let var = match ty {
            t if t & !IBV_FLOW_SPEC_INNER == IBV_FLOW_SPEC_IPV4_EXT => Some((
                VarFilter::Ipv4Ext,
                offset_of!(ibv_flow_spec_ipv4_ext, val),
                // The kernel knows the extended IPv4 spec as plain IPv4.
                IBV_FLOW_SPEC_IPV4 | inner,
                offset_of!(ib_uverbs_flow_spec_ipv4, val),
                offset_of!(ib_uverbs_flow_spec_ipv4, mask),
                size_of::<ib_uverbs_flow_spec_ipv4>(),
            )),
            t if t & !IBV_FLOW_SPEC_INNER == IBV_FLOW_SPEC_IPV6 => Some((
                VarFilter::Ipv6,
                offset_of!(ibv_flow_spec_ipv6, val),
                ty,
                offset_of!(ib_uverbs_flow_spec_ipv6, val),
                offset_of!(ib_uverbs_flow_spec_ipv6, mask),
                size_of::<ib_uverbs_flow_spec_ipv6>(),
            )),
            // The VXLAN tunnel spec has no inner variant.
            IBV_FLOW_SPEC_VXLAN_TUNNEL => Some((
                VarFilter::Tunnel,
                offset_of!(ibv_flow_spec_tunnel, val),
                ty,
                offset_of!(ib_uverbs_flow_spec_tunnel, val),
                offset_of!(ib_uverbs_flow_spec_tunnel, mask),
                size_of::<ib_uverbs_flow_spec_tunnel>(),
            )),
            _ => None,
        };
        if let Some((kind, ib_val, kty, k_val, k_mask, size)) = var {
            let (ib_filter_size, n) = filter_sizes(ib, kind)?;
            kern.copy(ib, ib_val, k_val, n);
            kern.copy(ib, ib_val + ib_filter_size, k_mask, n);
            kern.set_hdr(kty, size);
            return Ok(size);
        }

        match ty {
            IBV_FLOW_SPEC_ACTION_TAG => {
                let size = size_of::<ib_uverbs_flow_spec_action_tag>();
                let tag = ib.u32_at(offset_of!(ibv_flow_spec_action_tag, tag_id));
                kern.set_u32(offset_of!(ib_uverbs_flow_spec_action_tag, tag_id), tag);
                kern.set_hdr(ty, size);
                Ok(size)
            }
            IBV_FLOW_SPEC_ACTION_DROP => {
                let size = size_of::<ib_uverbs_flow_spec_action_drop>();
                kern.set_hdr(ty, size);
                Ok(size)
            }
            IBV_FLOW_SPEC_ACTION_HANDLE => {
                // The action was made by ibv_create_flow_action: the head of
                // a verbs_flow_action (same address).
                let p = ptr::read_unaligned(
                    ib.0.add(offset_of!(ibv_flow_spec_action_handle, action)).cast::<*const verbs_flow_action>(),
                );
                if p.is_null() {
                    return Err(libc::EINVAL);
                }
                let size = size_of::<ib_uverbs_flow_spec_action_handle>();
                kern.set_u32(offset_of!(ib_uverbs_flow_spec_action_handle, handle), (*p).handle);
                kern.set_hdr(ty, size);
                Ok(size)
            }
            IBV_FLOW_SPEC_ACTION_COUNT => {
                // Likewise the head of a verbs_counters.
                let p = ptr::read_unaligned(
                    ib.0.add(offset_of!(ibv_flow_spec_counter_action, counters)).cast::<*const verbs_counters>(),
                );
                if p.is_null() {
                    return Err(libc::EINVAL);
                }
                let size = size_of::<ib_uverbs_flow_spec_action_count>();
                kern.set_u32(offset_of!(ib_uverbs_flow_spec_action_count, handle), (*p).handle);
                kern.set_hdr(ty, size);
                Ok(size)
            }
            _ => Err(libc::EINVAL),
        }
    }
}

/// `ibv_cmd_create_flow`.
///
/// # Safety
/// `qp`, `flow_id` and `flow_attr` (with its specs) are live; `ucmd` is
/// NULL or readable for `ucmd_size` bytes.
unsafe fn create_flow(
    qp: *mut ibv_qp,
    flow_id: *mut ibv_flow,
    flow_attr: *mut ibv_flow_attr,
    ucmd: *const c_void,
    ucmd_size: usize,
) -> c_int {
    // SAFETY (whole function): caller guarantee; the command buffer is ours
    // and sized for the largest kernel spec per verbs spec plus the
    // provider data.
    unsafe {
        let nspecs = (*flow_attr).num_of_specs as usize;
        let hsz = size_of::<ibv_create_flow>();
        let Some(total) = (nspecs * size_of::<ibv_kern_spec>() + hsz).checked_add(ucmd_size) else {
            set_errno(libc::ENOMEM);
            return libc::ENOMEM;
        };
        let mut buf: Vec<u64> = Vec::new();
        if buf.try_reserve_exact(total.div_ceil(8)).is_err() {
            set_errno(libc::ENOMEM);
            return libc::ENOMEM;
        }
        buf.resize(total.div_ceil(8), 0);
        let base = buf.as_mut_ptr().cast::<u8>();
        let cmd = base.cast::<ibv_create_flow>();
        let c = addr_of_mut!((*cmd).core_payload);
        (*c).qp_handle = (*qp).handle;
        (*c).flow_attr.type_ = (*flow_attr).type_;
        (*c).flow_attr.priority = (*flow_attr).priority;
        (*c).flow_attr.num_of_specs = (*flow_attr).num_of_specs;
        (*c).flow_attr.port = (*flow_attr).port;
        (*c).flow_attr.flags = (*flow_attr).flags;

        let mut kern_off = hsz;
        let mut ib = flow_attr.add(1).cast::<u8>().cast_const();
        for _ in 0..nspecs {
            let spec = IbSpec(ib);
            match ib_spec_to_kern_spec(&spec, &KernSpec(base.add(kern_off))) {
                Ok(size) => {
                    (*c).flow_attr.size = (*c).flow_attr.size.wrapping_add(size as u16);
                    kern_off += size;
                }
                Err(e) => {
                    set_errno(e);
                    return e;
                }
            }
            ib = ib.add(spec.hdr_size() as usize);
        }

        let mut written = hsz + (*c).flow_attr.size as usize;
        if !ucmd.is_null() {
            ptr::copy_nonoverlapping(ucmd.cast::<u8>(), base.add(written), ucmd_size);
            written += ucmd_size;
        }
        let mut resp = ib_uverbs_create_flow_resp::default();
        let ret = execute_cmd_write_ex_raw(
            (*qp).context,
            IB_USER_VERBS_EX_CMD_CREATE_FLOW,
            cmd.cast(),
            written.wrapping_sub(ucmd_size),
            written,
            (&mut resp as *mut ib_uverbs_create_flow_resp).cast(),
            size_of::<ib_uverbs_create_flow_resp>(),
            size_of::<ib_uverbs_create_flow_resp>(),
        );
        if ret != 0 {
            return ret;
        }
        (*flow_id).context = (*qp).context;
        (*flow_id).handle = resp.flow_handle;
    }
    0
}

rdma_util::export_versioned! {
    /// Attaches a steering flow to a QP (extended write() command). The
    /// specs following `flow_attr` are translated to the kernel's layout
    /// (EINVAL for unknown or malformed ones, EOPNOTSUPP for filter fields
    /// the kernel does not know that are set); the provider's `ucmd` data
    /// (may be NULL) follows them. Fills the flow's context and handle.
    /// Returns 0 or an errno value.
    fn ibv_cmd_create_flow(qp: *mut ibv_qp, flow_id: *mut ibv_flow, flow_attr: *mut ibv_flow_attr,
                           ucmd: *mut c_void, ucmd_size: usize) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!qp.is_null() && !flow_id.is_null() && !flow_attr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live QP, flow, attributes with their
        // specs, and (NULL or) its data.
        unsafe { create_flow(qp, flow_id, flow_attr, ucmd, ucmd_size) }
    }
}
private_abi_both!(ibv_cmd_create_flow);

/// `ibv_cmd_destroy_flow`.
///
/// # Safety
/// `flow` is a live flow of a live context.
pub(crate) unsafe fn destroy_flow(flow: *mut ibv_flow) -> c_int {
    // SAFETY (whole function): caller guarantee.
    unsafe {
        let ctx = (*flow).context;
        let handle = (*flow).handle;
        let mut cmd_space = CmdSpace::new();
        let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_FLOW, UVERBS_METHOD_FLOW_DESTROY, 1) {
            Ok(b) => b,
            Err(e) => return e,
        };
        cmdb.fill_in_obj(UVERBS_ATTR_DESTROY_FLOW_HANDLE, handle);
        // Upstream files this command under destroy_ah's "ioctl
        // unsupported" bit; kept, so both fall back together.
        let mut ret = match execute_ioctl_fallback(ctx, cmd_bit!(destroy_ah), cmdb.as_ptr()) {
            Fallback::TryWrite => {
                let mut req = ibv_destroy_flow::default();
                req.core_payload.flow_handle = handle;
                execute_cmd_write_ex_req(ctx, &mut req, size_of::<ibv_destroy_flow>())
            }
            f => fallback_result(f),
        };
        is_destroy_err(&mut ret);
        ret
    }
}

rdma_util::export_versioned! {
    /// Destroys a steering flow (ioctl, or the extended write() on older
    /// kernels). Returns 0 or an errno value; EIO counts as success when
    /// disassociated destroy is allowed.
    fn ibv_cmd_destroy_flow(flow_id: *mut ibv_flow) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!flow_id.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live flow.
        unsafe { destroy_flow(flow_id) }
    }
}
private_abi_both!(ibv_cmd_destroy_flow);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::kernel::*;
    use rdma_util::mem::zeroed_unchecked;

    /// A flow attribute followed by specs, laid out as an application
    /// would (each spec at the offset the previous one's size gives).
    struct FlowBuf(Vec<u64>, usize);

    impl FlowBuf {
        fn new(attr: ibv_flow_attr) -> Self {
            let mut b = FlowBuf(vec![0; 128], 0);
            b.push(&bytes(&attr));
            b
        }
        fn push(&mut self, data: &[u8]) {
            // SAFETY: the vector is large enough for the tests' specs.
            let dst = unsafe { self.0.as_mut_ptr().cast::<u8>().add(self.1) };
            assert!(self.1 + data.len() <= self.0.len() * 8);
            // SAFETY: bounds checked above.
            unsafe { ptr::copy_nonoverlapping(data.as_ptr(), dst, data.len()) };
            self.1 += data.len();
        }
        /// A spec of `size` bytes: header then `body`, zero padded.
        fn spec(&mut self, ty: u32, size: u16, body: &[u8]) {
            let mut s = vec![0u8; size as usize];
            s[..4].copy_from_slice(&ty.to_ne_bytes());
            s[4..6].copy_from_slice(&size.to_ne_bytes());
            s[6..6 + body.len()].copy_from_slice(body);
            self.push(&s);
        }
        fn attr(&mut self) -> *mut ibv_flow_attr {
            self.0.as_mut_ptr().cast()
        }
    }

    fn flow_attr(n: u8) -> ibv_flow_attr {
        ibv_flow_attr { comp_mask: 0, type_: 0, size: 0, priority: 3, num_of_specs: n, port: 1, flags: 0x10 }
    }

    fn create(
        t: &mut TestCtx,
        fb: &mut FlowBuf,
        ucmd: &[u8],
        k: FakeKernel,
    ) -> (c_int, Vec<Sent>, ibv_flow) {
        // SAFETY: plain C structs.
        let (mut qp, mut flow): (ibv_qp, ibv_flow) =
            unsafe { (zeroed_unchecked(), zeroed_unchecked()) };
        qp.context = t.ctx();
        qp.handle = 0x21;
        let u = if ucmd.is_empty() { ptr::null_mut() } else { ucmd.as_ptr() as *mut c_void };
        let attr = fb.attr();
        // SAFETY: live QP, flow, attributes and data.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_create_flow(&mut qp, &mut flow, attr, u, ucmd.len()) });
        (ret, sent, flow)
    }

    fn ok_kernel() -> FakeKernel {
        FakeKernel::new().on_write(|w| {
            w.respond(&cat(&[&le32(0), &le32(0x5150)]));
            0
        })
    }

    #[test]
    fn fixed_specs_and_actions_are_translated() {
        let mut t = TestCtx::new(1, false);
        let mut fb = FlowBuf::new(flow_attr(6));
        // ETH (verbs: 40 bytes, filters at 6 and 22).
        let eth_val = [1u8, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0x08, 0x00, 0x00, 0x05];
        let eth_mask = [0xffu8; 16];
        fb.spec(IBV_FLOW_SPEC_ETH, 40, &cat(&[&eth_val, &eth_mask]));
        // IPv4 (24 bytes; filters at 8 and 16), inner.
        fb.spec(IBV_FLOW_SPEC_IPV4 | IBV_FLOW_SPEC_INNER, 24, &cat(&[&[0, 0], &le32(0x0a000001), &le32(0x0a000002), &le32(!0), &le32(0)]));
        // UDP (16 bytes; filters at 6 and 10).
        fb.spec(IBV_FLOW_SPEC_UDP, 16, &cat(&[&le16(4791), &le16(0), &le16(0xffff), &le16(0)]));
        // Tag (12 bytes), drop (8), counters handle (16).
        fb.spec(IBV_FLOW_SPEC_ACTION_TAG, 12, &cat(&[&[0, 0], &le32(0x77)]));
        fb.spec(IBV_FLOW_SPEC_ACTION_DROP, 8, &[]);
        // SAFETY: plain C struct.
        let mut vc: verbs_counters = unsafe { zeroed_unchecked() };
        vc.handle = 0x99;
        fb.spec(IBV_FLOW_SPEC_ACTION_COUNT, 16, &cat(&[&[0, 0], &le64(&mut vc as *mut verbs_counters as u64)]));
        let ucmd = le64(0xdddd);
        let (ret, sent, flow) = create(&mut t, &mut fb, &ucmd, ok_kernel());
        assert_eq!(ret, 0);
        assert_eq!((flow.context, flow.handle), (t.ctx(), 0x5150));
        // Kernel sizes: 40 + 24 + 16 + 16 + 8 + 16 = 120.
        let specs = cat(&[
            &le32(IBV_FLOW_SPEC_ETH), &le16(40), &le16(0), &eth_val, &eth_mask,
            &le32(IBV_FLOW_SPEC_IPV4 | IBV_FLOW_SPEC_INNER), &le16(24), &le16(0),
            &le32(0x0a000001), &le32(0x0a000002), &le32(!0), &le32(0),
            &le32(IBV_FLOW_SPEC_UDP), &le16(16), &le16(0), &le16(4791), &le16(0), &le16(0xffff), &le16(0),
            &le32(IBV_FLOW_SPEC_ACTION_TAG), &le16(16), &le16(0), &le32(0x77), &le32(0),
            &le32(IBV_FLOW_SPEC_ACTION_DROP), &le16(8), &le16(0),
            &le32(IBV_FLOW_SPEC_ACTION_COUNT), &le16(16), &le16(0), &le32(0x99), &le32(0),
        ]);
        // Extended CREATE_FLOW (0x80000032): core 24 + 120 = 144 bytes = 18
        // words; response 8 bytes = 1 word; 1 provider word in.
        let w = sent[0].write_bytes();
        let expected = cat(&[
            &le32(0x8000_0032), &le16(18), &le16(1), &w[8..16], &le16(1), &le16(0), &le32(0),
            &le32(0), &le32(0x21),
            // flow_attr: type, size, priority, num_of_specs, reserved[2], port, flags
            &le32(0), &le16(120), &le16(3), &[6, 0, 0, 1], &le32(0x10),
            &specs, &le64(0xdddd),
        ]);
        assert_eq!(w, &expected[..]);
    }

    #[test]
    fn variable_filters_use_what_the_kernel_knows() {
        let mut t = TestCtx::new(1, false);
        let mut fb = FlowBuf::new(flow_attr(3));
        // IPv4 ext with the full 12-byte filter: 8 + 2 * 12 = 32 bytes.
        let v4 = cat(&[&le32(1), &le32(2), &[6, 0x10, 64, 0x2]]);
        let v4m = cat(&[&le32(!0), &le32(!0), &[0xff, 0, 0, 0]]);
        fb.spec(IBV_FLOW_SPEC_IPV4_EXT | IBV_FLOW_SPEC_INNER, 32, &cat(&[&[0, 0], &v4, &v4m]));
        // IPv6 with the 40-byte filter, the last (padding) mask byte zero.
        let mut v6 = vec![0u8; 40];
        v6[0] = 0xfe;
        v6[38] = 9;
        let mut v6m = vec![0u8; 40];
        v6m[32..36].copy_from_slice(&le32(0xfffff));
        fb.spec(IBV_FLOW_SPEC_IPV6, 88, &cat(&[&[0, 0], &v6, &v6m]));
        // VXLAN: 4-byte filter.
        fb.spec(IBV_FLOW_SPEC_VXLAN_TUNNEL, 16, &cat(&[&[0, 0], &le32(0x1234), &le32(0xffffff)]));
        let (ret, sent, _) = create(&mut t, &mut fb, &[], ok_kernel());
        assert_eq!(ret, 0);
        let w = sent[0].write_bytes();
        // No provider data: the header says 0 provider words.
        assert_eq!(&w[16..18], &le16(0));
        let specs = &w[48..];
        let mut v6k = v6.clone();
        v6k[39] = 0; // the kernel's 40th byte is its `reserved`
        let expected = cat(&[
            // Reported to the kernel as (inner) IPv4, its 32-byte spec.
            &le32(IBV_FLOW_SPEC_IPV4 | IBV_FLOW_SPEC_INNER), &le16(32), &le16(0), &v4, &v4m,
            &le32(IBV_FLOW_SPEC_IPV6), &le16(88), &le16(0), &v6k, &v6m,
            &le32(IBV_FLOW_SPEC_VXLAN_TUNNEL), &le16(16), &le16(0), &le32(0x1234), &le32(0xffffff),
        ]);
        assert_eq!(specs, &expected[..]);
        assert_eq!(&w[36..38], &le16(32 + 88 + 16));
    }

    #[test]
    fn malformed_specs_are_refused() {
        let mut t = TestCtx::new(1, false);
        // IPv6 filter too short for the kernel's fields: EINVAL.
        let mut fb = FlowBuf::new(flow_attr(1));
        fb.spec(IBV_FLOW_SPEC_IPV6, 8 + 2 * 38, &[]);
        rdma_util::ffi::set_errno(0);
        let (ret, sent, _) = create(&mut t, &mut fb, &[], ok_kernel());
        assert_eq!((ret, rdma_util::ffi::errno(), sent.len()), (libc::EINVAL, libc::EINVAL, 0));
        // Mask bits beyond the kernel's fields: EOPNOTSUPP; zero ones are fine.
        for (extra_mask, want) in [(1u8, libc::EOPNOTSUPP), (0, 0)] {
            let mut fb = FlowBuf::new(flow_attr(1));
            let mut body = vec![0u8; 2 + 2 * 16];
            body[2 + 16 + 12] = extra_mask; // byte 12 of a 16-byte IPv4-ext mask
            fb.spec(IBV_FLOW_SPEC_IPV4_EXT, 8 + 2 * 16, &body);
            let (ret, _, _) = create(&mut t, &mut fb, &[], ok_kernel());
            assert_eq!(ret, want);
        }
        // Unknown type, inner GRE, inner VXLAN: EINVAL.
        for ty in [0x7777, IBV_FLOW_SPEC_GRE | IBV_FLOW_SPEC_INNER, IBV_FLOW_SPEC_VXLAN_TUNNEL | IBV_FLOW_SPEC_INNER] {
            let mut fb = FlowBuf::new(flow_attr(1));
            fb.spec(ty, 24, &[]);
            let (ret, sent, _) = create(&mut t, &mut fb, &[], ok_kernel());
            assert_eq!((ret, sent.len()), (libc::EINVAL, 0), "type {ty:#x}");
        }
        // A handle action without an action.
        let mut fb = FlowBuf::new(flow_attr(1));
        fb.spec(IBV_FLOW_SPEC_ACTION_HANDLE, 16, &[]);
        assert_eq!(create(&mut t, &mut fb, &[], ok_kernel()).0, libc::EINVAL);
        // The kernel's error comes back.
        let mut fb = FlowBuf::new(flow_attr(1));
        fb.spec(IBV_FLOW_SPEC_ACTION_DROP, 8, &[]);
        assert_eq!(create(&mut t, &mut fb, &[], FakeKernel::new().on_write(|_| libc::EPERM)).0, libc::EPERM);
    }

    #[test]
    fn action_handle_and_gre_mpls_esp() {
        let mut t = TestCtx::new(1, false);
        // SAFETY: plain C struct.
        let mut act: verbs_flow_action = unsafe { zeroed_unchecked() };
        act.handle = 0x4d;
        let mut fb = FlowBuf::new(flow_attr(4));
        fb.spec(IBV_FLOW_SPEC_ACTION_HANDLE, 16, &cat(&[&[0, 0], &le64(&mut act as *mut verbs_flow_action as u64)]));
        fb.spec(IBV_FLOW_SPEC_GRE, 24, &cat(&[&[0, 0], &le16(1), &le16(2), &le32(3), &le16(4), &le16(5), &le32(6)]));
        fb.spec(IBV_FLOW_SPEC_MPLS | IBV_FLOW_SPEC_INNER, 16, &cat(&[&[0, 0], &le32(7), &le32(8)]));
        fb.spec(IBV_FLOW_SPEC_ESP, 24, &cat(&[&[0, 0], &le32(9), &le32(10), &le32(11), &le32(12)]));
        let (ret, sent, _) = create(&mut t, &mut fb, &[], ok_kernel());
        assert_eq!(ret, 0);
        let expected = cat(&[
            &le32(IBV_FLOW_SPEC_ACTION_HANDLE), &le16(16), &le16(0), &le32(0x4d), &le32(0),
            &le32(IBV_FLOW_SPEC_GRE), &le16(24), &le16(0), &le16(1), &le16(2), &le32(3), &le16(4), &le16(5), &le32(6),
            &le32(IBV_FLOW_SPEC_MPLS | IBV_FLOW_SPEC_INNER), &le16(16), &le16(0), &le32(7), &le32(8),
            &le32(IBV_FLOW_SPEC_ESP), &le16(24), &le16(0), &le32(9), &le32(10), &le32(11), &le32(12),
        ]);
        assert_eq!(&sent[0].write_bytes()[48..], &expected[..]);
    }

    #[test]
    fn create_flow_through_invoke_write() {
        let mut t = TestCtx::new(1, true);
        let mut fb = FlowBuf::new(flow_attr(1));
        fb.spec(IBV_FLOW_SPEC_ACTION_DROP, 8, &[]);
        let k = FakeKernel::new().on_ioctl(|c| {
            c.write_out(UVERBS_ATTR_CORE_OUT, &cat(&[&le32(0), &le32(0x31)]));
            0
        });
        let ucmd = cat(&[&le64(1), &le64(2)]);
        let (ret, sent, flow) = create(&mut t, &mut fb, &ucmd, k);
        assert_eq!((ret, flow.handle), (0, 0x31));
        let (hdr, a) = sent[0].ioctl();
        assert_eq!((hdr.object_id, hdr.method_id), (0, 0));
        // WRITE_CMD: extended CREATE_FLOW; CORE_IN: the 24-byte core plus
        // the 8-byte spec; CORE_OUT: 8 bytes; UHW_IN: the provider's data.
        assert_eq!((a[0].attr_id, a[0].data), (2, 0x8000_0032));
        assert_eq!((a[1].attr_id, a[1].len), (0, 32));
        assert_eq!((a[2].attr_id, a[2].len), (1, 8));
        assert_eq!((a[3].attr_id, a[3].len), (0x1000, 16));
        assert_eq!(sent[0].input(0x1000), Some(&ucmd[..]));
        assert_eq!(&sent[0].input(0).unwrap()[24..], &cat(&[&le32(IBV_FLOW_SPEC_ACTION_DROP), &le16(8), &le16(0)])[..]);
    }

    #[test]
    fn destroy_flow_ioctl_then_write() {
        let _g = disassoc_lock();
        let mut t = TestCtx::new(1, false);
        // SAFETY: plain C struct.
        let mut flow: ibv_flow = unsafe { zeroed_unchecked() };
        flow.context = t.ctx();
        flow.handle = 0x3c;
        // SAFETY: live flow.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_destroy_flow(&mut flow) });
        assert_eq!(ret, 0);
        let (hdr, a) = sent[0].ioctl();
        // UVERBS_OBJECT_FLOW (9), DESTROY (0).
        assert_eq!((hdr.object_id, hdr.method_id), (9, 0));
        assert_eq!(attr_tuples(a), vec![(0, 0, 1, 0x3c)]);
        let k = FakeKernel::new().on_ioctl(|_| libc::EPROTONOSUPPORT).on_write(|_| libc::EIO);
        // SAFETY: live flow.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_destroy_flow(&mut flow) });
        assert_eq!(ret, libc::EIO);
        // Extended DESTROY_FLOW (0x80000033), 8-byte core = 1 word.
        let expected = cat(&[
            &le32(0x8000_0033), &le16(1), &le16(0), &le64(0), &le16(0), &le16(0), &le32(0),
            &le32(0), &le32(0x3c),
        ]);
        assert_eq!(sent[1].write_bytes(), &expected[..]);
        assert!(t.state().ioctl_unsupported(cmd_bit!(destroy_ah)));
        crate::cmd::set_allow_disassociate_destroy(true);
        let k = FakeKernel::new().on_write(|_| libc::EIO);
        // SAFETY: live flow.
        let (ret, _) = with_kernel(k, || unsafe { ibv_cmd_destroy_flow(&mut flow) });
        crate::cmd::set_allow_disassociate_destroy(false);
        assert_eq!(ret, 0);
    }
}
