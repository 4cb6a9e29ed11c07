//! Work requests into queue elements: the checks rxe makes before a send
//! or receive enters the shared queue, and the element it writes.
//!
//! The checks are upstream's (num_sge within the queue's max_sge, atomics
//! on 8 aligned bytes, inline data within max_inline, a bind-MW request
//! with no data), plus the ones upstream leaves to a crash: a NULL or
//! negative-length SGE list, a UD send without an AH, a bind without its
//! MW. Each refusal is EINVAL, the errno of upstream's own checks.

use core::ffi::c_int;
use core::ptr;

use rdma_abi::rxe::*;
use rdma_abi::verbs::*;
use rdma_abi::verbs_v65::IBV_WR_FLUSH;

/// What a send queue allows, fixed at QP creation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SendLimits {
    pub(crate) max_sge: u32,
    pub(crate) max_inline: u32,
    pub(crate) qp_type: ibv_qp_type,
}

/// The SGE list of a work request, after the checks on its count and
/// pointer: (list, count). An empty list may have any pointer.
///
/// # Safety
/// When `num_sge` is within `max_sge` and `sg_list` is not NULL, `sg_list`
/// points at `num_sge` readable SGEs (the caller's contract with us).
#[inline(always)]
pub(crate) unsafe fn sge_list<'a>(
    sg_list: *const ibv_sge,
    num_sge: c_int,
    max_sge: u32,
) -> Result<&'a [ibv_sge], c_int> {
    if num_sge as u32 > max_sge {
        // Also catches a negative count, as upstream's unsigned comparison.
        return Err(libc::EINVAL);
    }
    if num_sge == 0 {
        return Ok(&[]);
    }
    if sg_list.is_null() {
        return Err(libc::EINVAL);
    }
    // SAFETY: the caller's contract, for a count now known to be sane.
    Ok(unsafe { core::slice::from_raw_parts(sg_list, num_sge as usize) })
}

/// Sum of the SGEs' lengths (64 bits wide: no wrap-around).
#[inline(always)]
pub(crate) fn total_length(sges: &[ibv_sge]) -> u64 {
    // One SGE is the common case: no loop set-up for it.
    if let [one] = sges {
        return one.length as u64;
    }
    sges.iter().map(|s| s.length as u64).sum()
}

/// The send opcodes rxe carries out: upstream copies any value into the
/// queue and the kernel then fails the request and moves the QP to the error
/// state; an opcode no verb defines for rxe is refused here instead.
const KNOWN_OPCODES: u32 = (1 << IBV_WR_RDMA_WRITE)
    | (1 << IBV_WR_RDMA_WRITE_WITH_IMM)
    | (1 << IBV_WR_SEND)
    | (1 << IBV_WR_SEND_WITH_IMM)
    | (1 << IBV_WR_RDMA_READ)
    | (1 << IBV_WR_ATOMIC_CMP_AND_SWP)
    | (1 << IBV_WR_ATOMIC_FETCH_AND_ADD)
    | (1 << IBV_WR_LOCAL_INV)
    | (1 << IBV_WR_BIND_MW)
    | (1 << IBV_WR_SEND_WITH_INV)
    | (1 << IBV_WR_FLUSH)
    | (1 << IBV_WR_ATOMIC_WRITE);

#[inline(always)]
fn known_opcode(op: ibv_wr_opcode) -> bool {
    op < 32 && KNOWN_OPCODES & (1 << op) != 0
}

/// Upstream's checks of a send request with data of `length` bytes.
#[inline(always)]
pub(crate) fn check_send(
    wr: &ibv_send_wr,
    num_sge: usize,
    length: u64,
    lim: &SendLimits,
) -> Result<(), c_int> {
    if !known_opcode(wr.opcode) {
        return Err(libc::EINVAL);
    }
    match wr.opcode {
        IBV_WR_ATOMIC_CMP_AND_SWP | IBV_WR_ATOMIC_FETCH_AND_ADD => {
            // SAFETY: the atomic member of an atomic request.
            let raddr = unsafe { wr.wr.atomic.remote_addr };
            if length < 8 || raddr & 7 != 0 {
                return Err(libc::EINVAL);
            }
        }
        IBV_WR_BIND_MW => {
            // SAFETY: reading the immediate-data word as upstream does.
            let imm = unsafe { wr.imm.imm_data };
            if length != 0 || num_sge != 0 || imm != 0 {
                return Err(libc::EINVAL);
            }
            if lim.qp_type != IBV_QPT_RC && lim.qp_type != IBV_QPT_UC {
                return Err(libc::EINVAL);
            }
        }
        _ => {}
    }
    if wr.send_flags & IBV_SEND_INLINE != 0 && length > lim.max_inline as u64 {
        return Err(libc::EINVAL);
    }
    Ok(())
}

/// The AH's number and address vector a UD send carries, from the AH a
/// request names (None: refused).
pub(crate) type UdDest = (u32, *const rxe_av);

/// Writes the send element for `wr` into `wqe`.
///
/// # Safety
/// `wqe` is a send queue element large enough for `sges` or, inline,
/// `length` bytes (the limits the request was checked against); inline
/// SGEs point at readable memory of their length (the caller's contract).
/// `mw`/`mr` of a bind request were checked non-NULL where read.
#[inline(always)]
pub(crate) unsafe fn write_send_wqe(
    wqe: *mut rxe_send_wqe,
    wr: &ibv_send_wr,
    sges: &[ibv_sge],
    length: u64,
    ud: Option<UdDest>,
    bind: Option<(u32, u32)>,
) {
    // SAFETY: the caller's promise that wqe is an element of ours.
    let w = unsafe { &mut *wqe };
    let opcode = wr.opcode;
    w.wr.wr_id = wr.wr_id;
    w.wr.reserved = 0;
    w.wr.opcode = opcode;
    w.wr.send_flags = wr.send_flags;
    // SAFETY: both members of the immediate union are one u32.
    w.wr.ex.imm_data = unsafe { wr.imm.imm_data };
    // The opcode's parameters. The kernel reads only the member the opcode
    // names; the first 32 bytes (every member but ud's address vector) are
    // cleared, the vector written when it is used.
    // SAFETY: plain data of the union, written whole.
    unsafe {
        let params: *mut [u64; 4] = ptr::addr_of_mut!(w.wr.wr).cast();
        params.write([0; 4]);
        match opcode {
            IBV_WR_RDMA_WRITE | IBV_WR_RDMA_WRITE_WITH_IMM | IBV_WR_RDMA_READ => {
                w.wr.wr.rdma.remote_addr = wr.wr.rdma.remote_addr;
                w.wr.wr.rdma.rkey = wr.wr.rdma.rkey;
            }
            IBV_WR_SEND | IBV_WR_SEND_WITH_IMM => {
                if let Some((ah_num, av)) = ud {
                    w.wr.wr.ud.remote_qpn = wr.wr.ud.remote_qpn;
                    w.wr.wr.ud.remote_qkey = wr.wr.ud.remote_qkey;
                    w.wr.wr.ud.ah_num = ah_num;
                    if ah_num == 0 {
                        // A kernel without AH numbers reads the vector.
                        w.wr.wr.ud.av = *av;
                    }
                }
            }
            IBV_WR_ATOMIC_CMP_AND_SWP | IBV_WR_ATOMIC_FETCH_AND_ADD => {
                w.wr.wr.atomic.remote_addr = wr.wr.atomic.remote_addr;
                w.wr.wr.atomic.compare_add = wr.wr.atomic.compare_add;
                w.wr.wr.atomic.swap = wr.wr.atomic.swap;
                w.wr.wr.atomic.rkey = wr.wr.atomic.rkey;
            }
            IBV_WR_BIND_MW => {
                let (mr_lkey, mw_rkey) = bind.unwrap_or((0, 0));
                let b = &wr.op.bind_mw;
                w.wr.wr.mw.addr = b.bind_info.addr;
                w.wr.wr.mw.length = b.bind_info.length;
                w.wr.wr.mw.mr_lkey = mr_lkey;
                w.wr.wr.mw.mw_rkey = mw_rkey;
                w.wr.wr.mw.rkey = b.rkey;
                w.wr.wr.mw.access = b.bind_info.mw_access_flags;
            }
            _ => {}
        }
    }
    let data: *mut u8 = ptr::addr_of_mut!(w.dma.data).cast();
    if wr.send_flags & IBV_SEND_INLINE != 0 {
        let mut at = data;
        for s in sges {
            // SAFETY: the caller's contract for the source; the element
            // holds max_inline bytes and the total is within it.
            unsafe {
                ptr::copy_nonoverlapping(s.addr as usize as *const u8, at, s.length as usize);
                at = at.add(s.length as usize);
            }
        }
    } else {
        // SAFETY: the element holds max_sge SGEs.
        unsafe { copy_sges(sges, data.cast()) };
    }
    // SAFETY: as above; the union member's first word holds the address
    // the request targets (upstream takes it from wr.rdma for all others).
    w.iova = unsafe {
        if opcode == IBV_WR_ATOMIC_CMP_AND_SWP || opcode == IBV_WR_ATOMIC_FETCH_AND_ADD {
            wr.wr.atomic.remote_addr
        } else {
            wr.wr.rdma.remote_addr
        }
    };
    w.dma.length = length as u32;
    w.dma.resid = length as u32;
    w.dma.num_sge = sges.len() as u32;
    w.dma.cur_sge = 0;
    w.dma.sge_offset = 0;
    w.state = 0;
}

/// Copies SGEs into an element and returns the sum of their lengths (as
/// upstream's receive path sums them, wrapping at 32 bits). One element at
/// a time: the lists are short, and a call to memcpy costs more than the
/// copy.
///
/// # Safety
/// `dst` has room for `sges.len()` SGEs.
#[inline(always)]
pub(crate) unsafe fn copy_sges(sges: &[ibv_sge], dst: *mut rxe_sge) -> u32 {
    let copy = |i: usize, s: &ibv_sge| {
        // SAFETY: the caller's promise.
        unsafe {
            dst.add(i).write(rxe_sge {
                addr: s.addr,
                length: s.length,
                lkey: s.lkey,
            })
        };
    };
    // One SGE is the common case: no loop set-up for it.
    if let [one] = sges {
        copy(0, one);
        return one.length;
    }
    let mut length: u32 = 0;
    for (i, s) in sges.iter().enumerate() {
        copy(i, s);
        length = length.wrapping_add(s.length);
    }
    length
}

const _: () = assert!(size_of::<ibv_sge>() == size_of::<rxe_sge>());
const _: () =
    assert!(core::mem::offset_of!(ibv_sge, length) == core::mem::offset_of!(rxe_sge, length));
const _: () = assert!(core::mem::offset_of!(ibv_sge, lkey) == core::mem::offset_of!(rxe_sge, lkey));

/// Writes the receive element for a request with `sges`.
///
/// # Safety
/// `wqe` is a receive queue element holding `sges.len()` SGEs.
#[inline(always)]
pub(crate) unsafe fn write_recv_wqe(wqe: *mut rxe_recv_wqe, wr_id: u64, sges: &[ibv_sge]) {
    // SAFETY: the caller's promise.
    let w = unsafe { &mut *wqe };
    w.wr_id = wr_id;
    // SAFETY: the element holds max_sge SGEs (checked by the caller).
    let length = unsafe { copy_sges(sges, ptr::addr_of_mut!(w.dma.data).cast()) };
    w.dma.length = length;
    w.dma.resid = length;
    w.dma.cur_sge = 0;
    w.dma.num_sge = sges.len() as u32;
    w.dma.sge_offset = 0;
}

/// Bytes of an element after the send WQE's fixed part, and after the
/// receive WQE's: what SGEs or inline data may fill.
pub(crate) const SEND_WQE_DATA: usize =
    core::mem::offset_of!(rxe_send_wqe, dma) + size_of::<rxe_dma_info>();
pub(crate) const RECV_WQE_DATA: usize =
    core::mem::offset_of!(rxe_recv_wqe, dma) + size_of::<rxe_dma_info>();

#[cfg(test)]
mod tests {
    use super::*;
    use rdma_util::mem::zeroed_unchecked;

    fn wr(opcode: ibv_wr_opcode) -> ibv_send_wr {
        // SAFETY: a C struct of integers, pointers and unions of them.
        let mut w: ibv_send_wr = unsafe { zeroed_unchecked() };
        w.opcode = opcode;
        w
    }

    const RC: SendLimits = SendLimits {
        max_sge: 2,
        max_inline: 64,
        qp_type: IBV_QPT_RC,
    };

    #[test]
    fn sge_checks() {
        let s = [
            ibv_sge {
                addr: 1,
                length: 10,
                lkey: 3,
            },
            ibv_sge {
                addr: 2,
                length: 20,
                lkey: 4,
            },
        ];
        // SAFETY: s holds 2 SGEs.
        unsafe {
            assert_eq!(sge_list(s.as_ptr(), 2, 2).unwrap().len(), 2);
            assert_eq!(sge_list(s.as_ptr(), 3, 2).err(), Some(libc::EINVAL));
            assert_eq!(sge_list(s.as_ptr(), -1, 2).err(), Some(libc::EINVAL));
            assert_eq!(sge_list(ptr::null(), 1, 2).err(), Some(libc::EINVAL));
            assert_eq!(sge_list(ptr::null(), 0, 2).unwrap().len(), 0);
        }
        assert_eq!(total_length(&s), 30);
        let big = [ibv_sge {
            addr: 0,
            length: u32::MAX,
            lkey: 0,
        }; 2];
        assert_eq!(total_length(&big), 2 * u32::MAX as u64);
    }

    #[test]
    fn unknown_opcodes_are_refused() {
        for op in [IBV_WR_SEND, IBV_WR_RDMA_READ, IBV_WR_LOCAL_INV, IBV_WR_ATOMIC_WRITE] {
            assert_eq!(check_send(&wr(op), 0, 0, &RC), Ok(()), "opcode {op}");
        }
        for op in [IBV_WR_TSO, IBV_WR_DRIVER1, 12, 13, 16, 31, 32, 0x7f, u32::MAX as ibv_wr_opcode] {
            assert_eq!(check_send(&wr(op), 0, 0, &RC), Err(libc::EINVAL), "opcode {op}");
        }
    }

    #[test]
    fn send_checks() {
        let mut a = wr(IBV_WR_ATOMIC_FETCH_AND_ADD);
        a.wr.atomic.remote_addr = 0x1000;
        assert!(check_send(&a, 1, 8, &RC).is_ok());
        assert_eq!(check_send(&a, 1, 4, &RC), Err(libc::EINVAL));
        a.wr.atomic.remote_addr = 0x1004;
        assert_eq!(check_send(&a, 1, 8, &RC), Err(libc::EINVAL));

        let mut i = wr(IBV_WR_SEND);
        i.send_flags = IBV_SEND_INLINE;
        assert!(check_send(&i, 1, 64, &RC).is_ok());
        assert_eq!(check_send(&i, 1, 65, &RC), Err(libc::EINVAL));

        let mut b = wr(IBV_WR_BIND_MW);
        assert!(check_send(&b, 0, 0, &RC).is_ok());
        assert_eq!(check_send(&b, 1, 0, &RC), Err(libc::EINVAL));
        let ud = SendLimits {
            qp_type: IBV_QPT_UD,
            ..RC
        };
        assert_eq!(check_send(&b, 0, 0, &ud), Err(libc::EINVAL));
        b.imm.imm_data = 1;
        assert_eq!(check_send(&b, 0, 0, &RC), Err(libc::EINVAL));
    }

    #[test]
    fn send_wqe() {
        let mut slot = vec![0xffu8; 512];
        let wqe = slot.as_mut_ptr() as *mut rxe_send_wqe;
        let s = [
            ibv_sge {
                addr: 0x10,
                length: 100,
                lkey: 7,
            },
            ibv_sge {
                addr: 0x20,
                length: 28,
                lkey: 8,
            },
        ];
        let mut w = wr(IBV_WR_RDMA_WRITE_WITH_IMM);
        w.wr_id = 42;
        w.send_flags = IBV_SEND_SIGNALED;
        w.imm.imm_data = 0x01020304;
        w.wr.rdma.remote_addr = 0xabc0;
        w.wr.rdma.rkey = 0x55;
        // SAFETY: a 512-byte, 8-aligned element.
        unsafe {
            write_send_wqe(wqe, &w, &s, 128, None, None);
            let e = &*wqe;
            assert_eq!(e.wr.wr_id, 42);
            assert_eq!(e.wr.opcode, IBV_WR_RDMA_WRITE_WITH_IMM);
            assert_eq!(e.wr.send_flags, IBV_SEND_SIGNALED);
            assert_eq!(e.wr.ex.imm_data, 0x01020304);
            assert_eq!(e.wr.wr.rdma.remote_addr, 0xabc0);
            assert_eq!(e.wr.wr.rdma.rkey, 0x55);
            assert_eq!(e.wr.wr.rdma.reserved, 0);
            assert_eq!(e.iova, 0xabc0);
            assert_eq!(
                (
                    e.dma.length,
                    e.dma.resid,
                    e.dma.num_sge,
                    e.dma.cur_sge,
                    e.dma.sge_offset
                ),
                (128, 128, 2, 0, 0)
            );
            assert_eq!(e.state, 0);
            let g = &*(ptr::addr_of!(e.dma.data) as *const [rxe_sge; 2]);
            assert_eq!((g[1].addr, g[1].length, g[1].lkey), (0x20, 28, 8));
        }
    }

    #[test]
    fn inline_and_ud() {
        let mut slot = vec![0u64; 64];
        let wqe = slot.as_mut_ptr() as *mut rxe_send_wqe;
        let a = *b"hello ";
        let b = *b"world";
        let s = [
            ibv_sge {
                addr: a.as_ptr() as u64,
                length: 6,
                lkey: 0,
            },
            ibv_sge {
                addr: b.as_ptr() as u64,
                length: 5,
                lkey: 0,
            },
        ];
        let mut w = wr(IBV_WR_SEND);
        w.send_flags = IBV_SEND_INLINE;
        w.wr.ud.remote_qpn = 0x11;
        w.wr.ud.remote_qkey = 0x22;
        // SAFETY: a zeroed address vector.
        let av: rxe_av = rdma_util::mem::zeroed();
        // SAFETY: a 512-byte element; the inline sources are live arrays.
        unsafe {
            write_send_wqe(wqe, &w, &s, 11, Some((9, &av)), None);
            let e = &*wqe;
            let d = core::slice::from_raw_parts(ptr::addr_of!(e.dma.data) as *const u8, 11);
            assert_eq!(d, b"hello world");
            assert_eq!(
                (
                    e.wr.wr.ud.remote_qpn,
                    e.wr.wr.ud.remote_qkey,
                    e.wr.wr.ud.ah_num
                ),
                (0x11, 0x22, 9)
            );
            assert_eq!(e.dma.num_sge, 2);
            assert_eq!(e.dma.length, 11);
        }
    }

    #[test]
    fn recv_wqe() {
        let mut slot = vec![0u64; 16];
        let wqe = slot.as_mut_ptr() as *mut rxe_recv_wqe;
        let s = [
            ibv_sge {
                addr: 0x10,
                length: u32::MAX,
                lkey: 7,
            },
            ibv_sge {
                addr: 0x20,
                length: 2,
                lkey: 8,
            },
        ];
        // SAFETY: a 128-byte element.
        unsafe {
            write_recv_wqe(wqe, 77, &s);
            let e = &*wqe;
            assert_eq!(e.wr_id, 77);
            // Upstream sums in an int: the total wraps.
            assert_eq!(e.dma.length, 1);
            assert_eq!(e.dma.num_sge, 2);
        }
        assert_eq!(SEND_WQE_DATA, 208);
        assert_eq!(RECV_WQE_DATA, 40);
    }
}
