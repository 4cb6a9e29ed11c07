//! The data-path helpers that go through the kernel (upstream's
//! `ibv_cmd_poll_cq`, `ibv_cmd_post_send`, `ibv_cmd_post_recv` and
//! `ibv_cmd_post_srq_recv` in `cmd.c`): write()-only commands used by
//! providers whose queues the kernel drives (software devices).
//!
//! Work requests travel as one command: the core struct, then one kernel
//! work request per verbs work request, then all scatter/gather entries in
//! order. The kernel answers with the 1-based index of the first request it
//! could not post (0 when it failed before looking at any, or succeeded),
//! which is mapped back to the caller's list in `bad_wr`.

use core::mem::{offset_of, size_of};
use core::ptr;
use libc::c_int;

use super::write::execute_cmd_write_no_uhw;
use crate::abi::kern::*;
use crate::abi::verbs::*;
use rdma_util::ensure;
use rdma_util::ffi::set_errno;

/// A zeroed, 8-byte aligned command buffer of `size` bytes, or ENOMEM.
fn command_buffer(size: usize) -> Result<Vec<u64>, c_int> {
    let mut buf: Vec<u64> = Vec::new();
    if buf.try_reserve_exact(size.div_ceil(8)).is_err() {
        return Err(libc::ENOMEM);
    }
    buf.resize(size.div_ceil(8), 0);
    Ok(buf)
}

/// Converts one kernel work completion to the verbs form.
fn wc_from_kernel(k: &ib_uverbs_wc) -> ibv_wc {
    ibv_wc {
        wr_id: k.wr_id,
        status: k.status,
        opcode: k.opcode,
        vendor_err: k.vendor_err,
        byte_len: k.byte_len,
        // SAFETY: both union members are the same plain u32.
        imm: ibv_wc_imm { imm_data: unsafe { k.ex.imm_data } },
        qp_num: k.qp_num,
        src_qp: k.src_qp,
        wc_flags: k.wc_flags,
        pkey_index: k.pkey_index,
        slid: k.slid,
        sl: k.sl,
        dlid_path_bits: k.dlid_path_bits,
    }
}

/// `ibv_cmd_poll_cq`: at most `ne` completions through the kernel.
///
/// # Safety
/// `cq` is a live CQ; `wc` has room for `ne` entries.
unsafe fn poll_cq(cq: *mut ibv_cq, ne: c_int, wc: *mut ibv_wc) -> c_int {
    // Upstream mallocs the response; a negative count makes that fail.
    if ne < 0 {
        set_errno(libc::ENOMEM);
        return -1;
    }
    let ne = ne as usize;
    let rsize = size_of::<ib_uverbs_poll_cq_resp>() + ne * size_of::<ib_uverbs_wc>();
    let mut buf = match command_buffer(rsize) {
        Ok(b) => b,
        Err(e) => {
            set_errno(e);
            return -1;
        }
    };
    let resp = buf.as_mut_ptr().cast::<ib_uverbs_poll_cq_resp>();
    let mut cmd = ibv_poll_cq::default();
    // SAFETY (whole block): cq is live (caller); the response buffer holds
    // the header and ne completions; wc has room for ne entries.
    unsafe {
        cmd.core_payload.cq_handle = (*cq).handle;
        cmd.core_payload.ne = ne as u32;
        let ret = execute_cmd_write_no_uhw((*cq).context, &mut cmd, size_of::<ibv_poll_cq>(), resp, rsize);
        if ret != 0 {
            return -1;
        }
        let count = (*resp).count as usize;
        // The kernel never reports more than it was asked for; do not trust
        // a count beyond what the buffers hold.
        let n = count.min(ne);
        let kwc = buf.as_ptr().cast::<u8>().add(size_of::<ib_uverbs_poll_cq_resp>()).cast::<ib_uverbs_wc>();
        for i in 0..n {
            ptr::write(wc.add(i), wc_from_kernel(&*kwc.add(i)));
        }
        n as c_int
    }
}

rdma_util::export_versioned! {
    /// Polls up to `ne` completions of `cq` through the kernel (write()
    /// command POLL_CQ). Returns the number of completions written to `wc`,
    /// or -1 with errno set.
    fn ibv_cmd_poll_cq(cq: *mut ibv_cq, ne: c_int, wc: *mut ibv_wc) -> c_int, on_panic = -1;
    {
        ensure!(!cq.is_null() && (ne <= 0 || !wc.is_null()), libc::EINVAL, -1);
        // SAFETY: the provider passes a live CQ and room for ne completions.
        unsafe { poll_cq(cq, ne, wc) }
    }
}
private_abi_both!(ibv_cmd_poll_cq);

/// Checks a verbs work request list before anything is built (upstream
/// would crash on these) and counts requests and entries. On a bad request
/// returns it with EINVAL.
///
/// # Safety
/// `wr` heads a valid list; `next`, `sg_list` and `num_sge` are at the
/// offsets given (shared by send and receive requests).
unsafe fn count_list<W>(
    wr: *mut W,
    next: impl Fn(*mut W) -> *mut W,
    sge: impl Fn(*mut W) -> (*mut ibv_sge, c_int),
    extra_ok: impl Fn(*mut W) -> bool,
) -> Result<(usize, usize), (*mut W, c_int)> {
    let (mut wrs, mut sges) = (0usize, 0usize);
    let mut i = wr;
    while !i.is_null() {
        let (list, n) = sge(i);
        if n < 0 || (n > 0 && list.is_null()) || !extra_ok(i) {
            return Err((i, libc::EINVAL));
        }
        wrs += 1;
        sges += n as usize;
        i = next(i);
    }
    Ok((wrs, sges))
}

/// Maps the kernel's 1-based `bad` index back to the caller's list: the
/// failing request, or the first one when the command failed as a whole.
///
/// # Safety
/// `wr` heads a valid list; `bad_wr` is NULL or writable.
unsafe fn set_bad_wr<W>(wr: *mut W, bad: u32, ret: c_int, bad_wr: *mut *mut W, next: impl Fn(*mut W) -> *mut W) {
    if bad_wr.is_null() {
        return;
    }
    if bad != 0 {
        let mut i = wr;
        for _ in 1..bad {
            let n = next(i);
            if n.is_null() {
                break;
            }
            i = n;
        }
        // SAFETY: bad_wr is writable (caller).
        unsafe { *bad_wr = i };
    } else if ret != 0 {
        // SAFETY: as above.
        unsafe { *bad_wr = wr };
    }
}

/// `ibv_cmd_post_send`.
///
/// # Safety
/// `qp` is live; `wr` heads a valid list whose SGE lists and UD address
/// handles are valid; `bad_wr` is NULL or writable.
unsafe fn post_send(qp: *mut ibv_qp, wr: *mut ibv_send_wr, bad_wr: *mut *mut ibv_send_wr) -> c_int {
    // SAFETY (whole function): caller guarantee; the command buffer is ours
    // and sized from the counts taken over the same list.
    unsafe {
        let ud = (*qp).qp_type == IBV_QPT_UD;
        let next = |w: *mut ibv_send_wr| (*w).next;
        let counted = count_list(
            wr,
            next,
            |w| ((*w).sg_list, (*w).num_sge),
            |w| !ud || !(*w).wr.ud.ah.is_null(),
        );
        let (wr_count, sge_count) = match counted {
            Ok(c) => c,
            Err((bad, e)) => {
                if !bad_wr.is_null() {
                    *bad_wr = bad;
                }
                set_errno(e);
                return e;
            }
        };
        let hsz = size_of::<ibv_post_send>();
        let wsz = size_of::<ib_uverbs_send_wr>();
        let ssz = size_of::<ibv_sge>();
        let cmd_size = hsz + wr_count * wsz + sge_count * ssz;
        let mut buf = match command_buffer(cmd_size) {
            Ok(b) => b,
            Err(e) => {
                if !bad_wr.is_null() {
                    *bad_wr = wr;
                }
                set_errno(e);
                return e;
            }
        };
        let base = buf.as_mut_ptr().cast::<u8>();
        let cmd = base.cast::<ibv_post_send>();
        (*cmd).core_payload.qp_handle = (*qp).handle;
        (*cmd).core_payload.wr_count = wr_count as u32;
        (*cmd).core_payload.sge_count = sge_count as u32;
        (*cmd).core_payload.wqe_size = wsz as u32;

        let mut n = base.add(hsz).cast::<ib_uverbs_send_wr>();
        let mut s = base.add(hsz + wr_count * wsz);
        let mut i = wr;
        while !i.is_null() {
            let w = &*i;
            let mut k = ib_uverbs_send_wr {
                wr_id: w.wr_id,
                num_sge: w.num_sge as u32,
                opcode: w.opcode,
                send_flags: w.send_flags,
                ex: ib_uverbs_send_wr_ex { imm_data: w.imm.imm_data },
                wr: ib_uverbs_send_wr_wr { atomic: Default::default() },
            };
            if ud {
                k.wr.ud = ib_uverbs_send_wr_ud {
                    ah: (*w.wr.ud.ah).handle,
                    remote_qpn: w.wr.ud.remote_qpn,
                    remote_qkey: w.wr.ud.remote_qkey,
                    reserved: 0,
                };
            } else {
                match w.opcode {
                    IBV_WR_RDMA_WRITE | IBV_WR_RDMA_WRITE_WITH_IMM | IBV_WR_RDMA_READ => {
                        k.wr.rdma = ib_uverbs_send_wr_rdma {
                            remote_addr: w.wr.rdma.remote_addr,
                            rkey: w.wr.rdma.rkey,
                            reserved: 0,
                        };
                    }
                    IBV_WR_ATOMIC_CMP_AND_SWP | IBV_WR_ATOMIC_FETCH_AND_ADD => {
                        k.wr.atomic = ib_uverbs_send_wr_atomic {
                            remote_addr: w.wr.atomic.remote_addr,
                            compare_add: w.wr.atomic.compare_add,
                            swap: w.wr.atomic.swap,
                            rkey: w.wr.atomic.rkey,
                            reserved: 0,
                        };
                    }
                    _ => {}
                }
            }
            ptr::write_unaligned(n, k);
            n = n.add(1);
            if w.num_sge > 0 {
                let len = w.num_sge as usize * ssz;
                ptr::copy_nonoverlapping(w.sg_list.cast::<u8>(), s, len);
                s = s.add(len);
            }
            i = w.next;
        }

        let mut resp = ib_uverbs_post_send_resp { bad_wr: 0 };
        let ret = execute_cmd_write_no_uhw((*qp).context, cmd, cmd_size, &mut resp, size_of::<ib_uverbs_post_send_resp>());
        set_bad_wr(wr, resp.bad_wr, ret, bad_wr, next);
        ret
    }
}

rdma_util::export_versioned! {
    /// Posts a list of send work requests through the kernel (write()
    /// command POST_SEND). Returns 0, or an errno value with `*bad_wr` set
    /// to the first request not posted.
    fn ibv_cmd_post_send(ibqp: *mut ibv_qp, wr: *mut ibv_send_wr, bad_wr: *mut *mut ibv_send_wr)
        -> c_int, on_panic = libc::EIO;
    {
        ensure!(!ibqp.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live QP and its caller's list.
        unsafe { post_send(ibqp, wr, bad_wr) }
    }
}
private_abi_both!(ibv_cmd_post_send);

// POST_RECV and POST_SRQ_RECV carry the same layout; one builder serves both.
const _: () = assert!(size_of::<ibv_post_recv>() == size_of::<ibv_post_srq_recv>());
const _: () = assert!(offset_of!(ib_uverbs_post_recv, qp_handle) == offset_of!(ib_uverbs_post_srq_recv, srq_handle));
const _: () = assert!(offset_of!(ib_uverbs_post_recv, wr_count) == offset_of!(ib_uverbs_post_srq_recv, wr_count));
const _: () = assert!(offset_of!(ib_uverbs_post_recv, sge_count) == offset_of!(ib_uverbs_post_srq_recv, sge_count));
const _: () = assert!(offset_of!(ib_uverbs_post_recv, wqe_size) == offset_of!(ib_uverbs_post_srq_recv, wqe_size));
const _: () = assert!(size_of::<ib_uverbs_post_recv_resp>() == 4 && size_of::<ib_uverbs_post_srq_recv_resp>() == 4);

/// The receive commands: `C` is [`ibv_post_recv`] or [`ibv_post_srq_recv`],
/// `handle` the QP's or SRQ's.
///
/// # Safety
/// `ctx` is live; `wr` heads a valid list whose SGE lists are valid;
/// `bad_wr` is NULL or writable.
unsafe fn post_recv_list<C: WriteCmdResp>(
    ctx: *mut ibv_context,
    handle: u32,
    wr: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> c_int {
    // SAFETY (whole function): caller guarantee; the buffer is ours and
    // sized from the counts over the same list.
    unsafe {
        let next = |w: *mut ibv_recv_wr| (*w).next;
        let (wr_count, sge_count) = match count_list(wr, next, |w| ((*w).sg_list, (*w).num_sge), |_| true) {
            Ok(c) => c,
            Err((bad, e)) => {
                if !bad_wr.is_null() {
                    *bad_wr = bad;
                }
                set_errno(e);
                return e;
            }
        };
        let hsz = size_of::<ibv_post_recv>();
        let wsz = size_of::<ib_uverbs_recv_wr>();
        let ssz = size_of::<ibv_sge>();
        let cmd_size = hsz + wr_count * wsz + sge_count * ssz;
        let mut buf = match command_buffer(cmd_size) {
            Ok(b) => b,
            Err(e) => {
                if !bad_wr.is_null() {
                    *bad_wr = wr;
                }
                set_errno(e);
                return e;
            }
        };
        let base = buf.as_mut_ptr().cast::<u8>();
        let core = base.add(size_of::<ib_uverbs_cmd_hdr>()).cast::<ib_uverbs_post_recv>();
        (*core).qp_handle = handle;
        (*core).wr_count = wr_count as u32;
        (*core).sge_count = sge_count as u32;
        (*core).wqe_size = wsz as u32;

        let mut n = base.add(hsz).cast::<ib_uverbs_recv_wr>();
        let mut s = base.add(hsz + wr_count * wsz);
        let mut i = wr;
        while !i.is_null() {
            let w = &*i;
            ptr::write_unaligned(n, ib_uverbs_recv_wr { wr_id: w.wr_id, num_sge: w.num_sge as u32, reserved: 0 });
            n = n.add(1);
            if w.num_sge > 0 {
                let len = w.num_sge as usize * ssz;
                ptr::copy_nonoverlapping(w.sg_list.cast::<u8>(), s, len);
                s = s.add(len);
            }
            i = w.next;
        }

        let mut bad = 0u32;
        let ret = execute_cmd_write_no_uhw(ctx, base.cast::<C>(), cmd_size, (&mut bad as *mut u32).cast::<C::Resp>(), 4);
        set_bad_wr(wr, bad, ret, bad_wr, next);
        ret
    }
}

rdma_util::export_versioned! {
    /// Posts a list of receive work requests to a QP through the kernel
    /// (write() command POST_RECV). Returns 0, or an errno value with
    /// `*bad_wr` set to the first request not posted.
    fn ibv_cmd_post_recv(ibqp: *mut ibv_qp, wr: *mut ibv_recv_wr, bad_wr: *mut *mut ibv_recv_wr)
        -> c_int, on_panic = libc::EIO;
    {
        ensure!(!ibqp.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live QP and its caller's list.
        unsafe { post_recv_list::<ibv_post_recv>((*ibqp).context, (*ibqp).handle, wr, bad_wr) }
    }
}
private_abi_both!(ibv_cmd_post_recv);

rdma_util::export_versioned! {
    /// Posts a list of receive work requests to an SRQ through the kernel
    /// (write() command POST_SRQ_RECV). Returns 0, or an errno value with
    /// `*bad_wr` set to the first request not posted.
    fn ibv_cmd_post_srq_recv(srq: *mut ibv_srq, wr: *mut ibv_recv_wr, bad_wr: *mut *mut ibv_recv_wr)
        -> c_int, on_panic = libc::EIO;
    {
        ensure!(!srq.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the provider passes a live SRQ and its caller's list.
        unsafe { post_recv_list::<ibv_post_srq_recv>((*srq).context, (*srq).handle, wr, bad_wr) }
    }
}
private_abi_both!(ibv_cmd_post_srq_recv);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::kernel::*;
    use rdma_util::mem::zeroed_unchecked;

    fn wc_bytes(wr_id: u64, status: u32, opcode: u32, byte_len: u32, imm: u32, qp: u32, flags: u32) -> Vec<u8> {
        // wr_id, status, opcode, vendor_err, byte_len, imm, qp_num, src_qp,
        // wc_flags, pkey_index, slid, sl, dlid_path_bits, port_num, reserved
        cat(&[
            &le64(wr_id), &le32(status), &le32(opcode), &le32(0x5), &le32(byte_len), &le32(imm),
            &le32(qp), &le32(0x77), &le32(flags), &le16(3), &le16(0x10), &[2, 1, 1, 0],
        ])
    }

    #[test]
    fn poll_cq_command_and_completions() {
        let mut t = TestCtx::new(1, false);
        // SAFETY: plain C structs.
        let mut cq: ibv_cq = unsafe { zeroed_unchecked() };
        cq.context = t.ctx();
        cq.handle = 0x12;
        // SAFETY: plain C structs.
        let mut wc: [ibv_wc; 4] = unsafe { zeroed_unchecked() };
        let k = FakeKernel::new().on_write(|w| {
            w.respond(&cat(&[&le32(2), &le32(0), &wc_bytes(100, 0, 128, 64, 0xabcd, 9, 2), &wc_bytes(101, 5, 0, 0, 0, 9, 0)]));
            0
        });
        // SAFETY: live CQ, room for 4.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_poll_cq(&mut cq, 4, wc.as_mut_ptr()) });
        assert_eq!(ret, 2);
        // POLL_CQ (21): 24 bytes = 6 words in; 8 + 4 * 48 = 200 = 50 words out.
        let w = sent[0].write_bytes();
        assert_eq!(&w[..8], &cat(&[&le32(21), &le16(6), &le16(50)])[..]);
        assert_eq!(&w[16..], &cat(&[&le32(0x12), &le32(4)])[..]);
        assert_eq!(w.len(), 24);
        let c = &wc[0];
        assert_eq!((c.wr_id, c.status, c.opcode, c.vendor_err, c.byte_len), (100, 0, 128, 5, 64));
        // SAFETY: plain u32 union member.
        assert_eq!(unsafe { c.imm.imm_data }, 0xabcd);
        assert_eq!((c.qp_num, c.src_qp, c.wc_flags, c.pkey_index, c.slid, c.sl, c.dlid_path_bits), (9, 0x77, 2, 3, 0x10, 2, 1));
        assert_eq!((wc[1].wr_id, wc[1].status), (101, 5));
        assert_eq!(wc[2].wr_id, 0, "entries beyond the count are untouched");
    }

    #[test]
    fn poll_cq_errors() {
        let mut t = TestCtx::new(1, false);
        // SAFETY: plain C structs.
        let mut cq: ibv_cq = unsafe { zeroed_unchecked() };
        cq.context = t.ctx();
        // SAFETY: plain C structs.
        let mut wc: [ibv_wc; 1] = unsafe { zeroed_unchecked() };
        let k = FakeKernel::new().on_write(|_| libc::EINVAL);
        // SAFETY: live CQ.
        let (ret, _) = with_kernel(k, || unsafe { ibv_cmd_poll_cq(&mut cq, 1, wc.as_mut_ptr()) });
        assert_eq!((ret, rdma_util::ffi::errno()), (-1, libc::EINVAL));
        // SAFETY: live CQ; nothing written for a negative count.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_poll_cq(&mut cq, -1, wc.as_mut_ptr()) });
        assert_eq!((ret, rdma_util::ffi::errno(), sent.len()), (-1, libc::ENOMEM, 0));
        // Nothing asked, nothing returned: an 8-byte response.
        let k = FakeKernel::new().on_write(|w| {
            assert_eq!(w.hdr().out_words, 2);
            0
        });
        // SAFETY: live CQ.
        let (ret, _) = with_kernel(k, || unsafe { ibv_cmd_poll_cq(&mut cq, 0, ptr::null_mut()) });
        assert_eq!(ret, 0);
        // SAFETY: NULL CQ is refused before use.
        assert_eq!(unsafe { ibv_cmd_poll_cq(ptr::null_mut(), 1, wc.as_mut_ptr()) }, -1);
    }

    struct SendSetup {
        qp: Box<ibv_qp>,
        ah: Box<ibv_ah>,
        sge: Vec<ibv_sge>,
        wrs: Vec<ibv_send_wr>,
    }

    impl SendSetup {
        fn new(t: &mut TestCtx, qp_type: ibv_qp_type) -> Self {
            // SAFETY: plain C structs.
            let (mut qp, mut ah): (Box<ibv_qp>, Box<ibv_ah>) =
                unsafe { (Box::new(zeroed_unchecked()), Box::new(zeroed_unchecked())) };
            qp.context = t.ctx();
            qp.handle = 0x31;
            qp.qp_type = qp_type;
            ah.handle = 0x41;
            let sge = vec![
                ibv_sge { addr: 0x1000, length: 10, lkey: 1 },
                ibv_sge { addr: 0x2000, length: 20, lkey: 2 },
                ibv_sge { addr: 0x3000, length: 30, lkey: 3 },
            ];
            SendSetup { qp, ah, sge, wrs: Vec::new() }
        }

        /// Three requests: RDMA write with 2 SGEs, atomic with none, send
        /// with immediate and 1 SGE; linked.
        fn three(&mut self) -> *mut ibv_send_wr {
            // SAFETY: plain C structs.
            let mut w: Vec<ibv_send_wr> = (0..3).map(|_| unsafe { zeroed_unchecked() }).collect();
            w[0].wr_id = 1;
            w[0].opcode = IBV_WR_RDMA_WRITE;
            w[0].send_flags = IBV_SEND_SIGNALED;
            w[0].sg_list = self.sge.as_mut_ptr();
            w[0].num_sge = 2;
            w[0].wr.rdma = ibv_send_wr_wr_rdma { remote_addr: 0xaaaa, rkey: 0xbb };
            w[1].wr_id = 2;
            w[1].opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
            w[1].wr.atomic = ibv_send_wr_wr_atomic { remote_addr: 0xcc, compare_add: 5, swap: 6, rkey: 0xdd };
            w[2].wr_id = 3;
            w[2].opcode = IBV_WR_SEND_WITH_IMM;
            w[2].imm.imm_data = 0x0102_0304;
            // SAFETY: the vector has 3 entries.
            w[2].sg_list = unsafe { self.sge.as_mut_ptr().add(2) };
            w[2].num_sge = 1;
            w[2].wr.ud = ibv_send_wr_wr_ud { ah: &mut *self.ah, remote_qpn: 0x99, remote_qkey: 0x1111 };
            self.wrs = w;
            let p = self.wrs.as_mut_ptr();
            // SAFETY: linking entries of the same vector.
            unsafe {
                (*p).next = p.add(1);
                (*p.add(1)).next = p.add(2);
            }
            p
        }
    }

    fn sge_bytes(s: &ibv_sge) -> Vec<u8> {
        cat(&[&le64(s.addr), &le32(s.length), &le32(s.lkey)])
    }

    #[test]
    fn post_send_marshals_each_request_and_the_sges() {
        let mut t = TestCtx::new(1, false);
        let mut s = SendSetup::new(&mut t, IBV_QPT_RC);
        let wr = s.three();
        let mut bad: *mut ibv_send_wr = ptr::dangling_mut();
        let qp: *mut ibv_qp = &mut *s.qp;
        // SAFETY: live QP and list.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_post_send(qp, wr, &mut bad) });
        assert_eq!(ret, 0);
        assert_eq!(bad, ptr::dangling_mut(), "bad_wr untouched on success");
        let w = sent[0].write_bytes();
        // POST_SEND (28): 32 + 3 * 56 + 3 * 16 = 248 bytes = 62 words; 1
        // word out.
        assert_eq!(&w[..8], &cat(&[&le32(28), &le16(62), &le16(1)])[..]);
        assert_eq!(&w[16..32], &cat(&[&le32(0x31), &le32(3), &le32(3), &le32(56)])[..]);
        let expected_wrs = cat(&[
            // RDMA write: wr_id, num_sge, opcode, flags, imm, rdma {addr, rkey, reserved}, pad to 56
            &le64(1), &le32(2), &le32(IBV_WR_RDMA_WRITE), &le32(IBV_SEND_SIGNALED), &le32(0),
            &le64(0xaaaa), &le32(0xbb), &le32(0), &[0u8; 16],
            // atomic: {addr, compare_add, swap, rkey, reserved}
            &le64(2), &le32(0), &le32(IBV_WR_ATOMIC_FETCH_AND_ADD), &le32(0), &le32(0),
            &le64(0xcc), &le64(5), &le64(6), &le32(0xdd), &le32(0),
            // send with immediate: no remote part on an RC QP
            &le64(3), &le32(1), &le32(IBV_WR_SEND_WITH_IMM), &le32(0), &le32(0x0102_0304), &[0u8; 32],
        ]);
        assert_eq!(&w[32..32 + 168], &expected_wrs[..]);
        let expected_sges = cat(&[&sge_bytes(&s.sge[0]), &sge_bytes(&s.sge[1]), &sge_bytes(&s.sge[2])]);
        assert_eq!(&w[200..], &expected_sges[..]);
    }

    #[test]
    fn post_send_on_ud_uses_the_address_handle() {
        let mut t = TestCtx::new(1, false);
        let mut s = SendSetup::new(&mut t, IBV_QPT_UD);
        let wr = s.three();
        // SAFETY: the list has three entries.
        let third = unsafe { wr.add(2) };
        // SAFETY: unlinking the third request.
        unsafe { (*wr.add(1)).next = ptr::null_mut() };
        // SAFETY: plain C struct field.
        unsafe {
            (*wr).wr.ud = ibv_send_wr_wr_ud { ah: &mut *s.ah, remote_qpn: 0x98, remote_qkey: 0x2222 };
            (*wr.add(1)).wr.ud = (*third).wr.ud;
        }
        let mut bad: *mut ibv_send_wr = ptr::null_mut();
        let qp: *mut ibv_qp = &mut *s.qp;
        // SAFETY: live QP and list.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_post_send(qp, wr, &mut bad) });
        assert_eq!(ret, 0);
        let w = sent[0].write_bytes();
        // The UD part {ah handle, remote_qpn, remote_qkey, reserved} sits at
        // byte 24 of each request, whatever the opcode.
        assert_eq!(&w[32 + 24..32 + 40], &cat(&[&le32(0x41), &le32(0x98), &le32(0x2222), &le32(0)])[..]);
        assert_eq!(&w[88 + 24..88 + 40], &cat(&[&le32(0x41), &le32(0x99), &le32(0x1111), &le32(0)])[..]);

        // A UD request without an address handle is refused up front.
        // SAFETY: plain C struct field.
        unsafe { (*wr.add(1)).wr.ud.ah = ptr::null_mut() };
        // SAFETY: live QP and list.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_post_send(qp, wr, &mut bad) });
        // SAFETY: address arithmetic within the list.
        assert_eq!((ret, sent.len(), bad), (libc::EINVAL, 0, unsafe { wr.add(1) }));
    }

    #[test]
    fn post_send_bad_wr_mapping() {
        let mut t = TestCtx::new(1, false);
        let mut s = SendSetup::new(&mut t, IBV_QPT_RC);
        let wr = s.three();
        let qp: *mut ibv_qp = &mut *s.qp;
        for (idx, rc, want) in [(2u32, libc::ENOMEM, Some(1usize)), (3, libc::EINVAL, Some(2)), (0, libc::EIO, Some(0)), (0, 0, None)] {
            let mut bad: *mut ibv_send_wr = ptr::null_mut();
            let k = FakeKernel::new().on_write(move |w| {
                // The kernel reports the index even when the write fails.
                w.respond(&le32(idx));
                rc
            });
            // SAFETY: live QP and list.
            let (ret, _) = with_kernel(k, || unsafe { ibv_cmd_post_send(qp, wr, &mut bad) });
            assert_eq!(ret, rc);
            // SAFETY: address arithmetic within the list.
            assert_eq!(bad, want.map_or(ptr::null_mut(), |i| unsafe { wr.add(i) }), "index {idx}");
        }
        // Empty list: a command with no requests.
        let mut bad: *mut ibv_send_wr = ptr::null_mut();
        // SAFETY: live QP; empty list.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_post_send(qp, ptr::null_mut(), &mut bad) });
        assert_eq!((ret, sent[0].write_bytes().len()), (0, 32));
    }

    #[test]
    fn post_recv_and_srq_recv() {
        let mut t = TestCtx::new(1, false);
        // SAFETY: plain C structs.
        let (mut qp, mut srq): (ibv_qp, ibv_srq) =
            unsafe { (zeroed_unchecked(), zeroed_unchecked()) };
        qp.context = t.ctx();
        qp.handle = 0x51;
        srq.context = t.ctx();
        srq.handle = 0x61;
        let mut sge = [ibv_sge { addr: 0x10, length: 1, lkey: 7 }, ibv_sge { addr: 0x20, length: 2, lkey: 8 }];
        // SAFETY: plain C structs.
        let mut wrs: [ibv_recv_wr; 2] = unsafe { zeroed_unchecked() };
        wrs[0].wr_id = 0xa;
        wrs[0].sg_list = sge.as_mut_ptr();
        wrs[0].num_sge = 2;
        wrs[1].wr_id = 0xb;
        let p = wrs.as_mut_ptr();
        // SAFETY: linking entries of the same array.
        unsafe { (*p).next = p.add(1) };
        let expected_tail = cat(&[
            &le64(0xa), &le32(2), &le32(0), &le64(0xb), &le32(0), &le32(0),
            &le64(0x10), &le32(1), &le32(7), &le64(0x20), &le32(2), &le32(8),
        ]);
        let mut bad: *mut ibv_recv_wr = ptr::null_mut();
        let k = FakeKernel::new().on_write(|w| {
            w.respond(&le32(2));
            libc::ENOMEM
        });
        // SAFETY: live QP and list.
        let (ret, sent) = with_kernel(k, || unsafe { ibv_cmd_post_recv(&mut qp, p, &mut bad) });
        // SAFETY: address arithmetic within the array.
        assert_eq!((ret, bad), (libc::ENOMEM, unsafe { p.add(1) }));
        let w = sent[0].write_bytes();
        // POST_RECV (29): 32 + 2 * 16 + 2 * 16 = 96 bytes = 24 words, 1 out.
        assert_eq!(&w[..8], &cat(&[&le32(29), &le16(24), &le16(1)])[..]);
        assert_eq!(&w[16..32], &cat(&[&le32(0x51), &le32(2), &le32(2), &le32(16)])[..]);
        assert_eq!(&w[32..], &expected_tail[..]);

        bad = ptr::null_mut();
        // SAFETY: live SRQ and list.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_post_srq_recv(&mut srq, p, &mut bad) });
        assert_eq!((ret, bad), (0, ptr::null_mut()));
        let w = sent[0].write_bytes();
        // POST_SRQ_RECV (36), same layout.
        assert_eq!(&w[..8], &cat(&[&le32(36), &le16(24), &le16(1)])[..]);
        assert_eq!(&w[16..32], &cat(&[&le32(0x61), &le32(2), &le32(2), &le32(16)])[..]);
        assert_eq!(&w[32..], &expected_tail[..]);

        // A negative SGE count is refused, naming the request.
        // SAFETY: writing through the pointer the list was built from.
        unsafe { (*p.add(1)).num_sge = -1 };
        // SAFETY: live SRQ and list.
        let (ret, sent) = with_kernel(FakeKernel::new(), || unsafe { ibv_cmd_post_srq_recv(&mut srq, p, &mut bad) });
        // SAFETY: address arithmetic within the array.
        assert_eq!((ret, sent.len(), bad), (libc::EINVAL, 0, unsafe { p.add(1) }));
    }
}
