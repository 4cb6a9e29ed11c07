//! riomap / riounmap / riowrite: direct placement into memory the peer has
//! mapped.
//!
//! riomap registers a buffer; a writable mapping takes a free slot of the
//! peer's iomap table (its size was announced in the connection data) and
//! is announced before our next send: a 24-byte [`RsIomap`] (offset,
//! address, rkey, length) RDMA-written into that slot with an IOMAP_SGL
//! message. riowrite looks the offset up in the table the peer filled for
//! us and RDMA-WRITEs straight into the peer's buffer, without a message.

use core::ffi::c_int;

use super::base::*;
use super::stream::*;
use super::proto::*;
use crate::abi::verbs::*;
use crate::id::Res;
use crate::verbs as v;

fn nonblocking(rs: &Rsocket, flags: c_int) -> bool {
    rs.st.lock().base.fd_flags & libc::O_NONBLOCK != 0 || flags & libc::MSG_DONTWAIT != 0
}

/// Waits until a send may start; ECONNRESET once the socket is no longer
/// writable.
fn wait_send(rs: &Rsocket, flags: c_int) -> Res<()> {
    if !rs.st.lock().can_send() {
        rs.get_comp(nonblocking(rs, flags), t_conn_can_send)?;
        if rs.st.lock().base.state & RS_WRITABLE == 0 {
            return Err(libc::ECONNRESET);
        }
    }
    Ok(())
}

/// Announces queued mappings (caller holds `slock`).
pub(crate) fn send_iomaps(rs: &Rsocket, flags: c_int) -> Res<()> {
    loop {
        if rs.st.lock().iomap_queue.is_empty() {
            return Ok(());
        }
        wait_send(rs, flags)?;
        let mut c = rs.st.lock();
        let Some(m) = c.iomap_queue.pop_front() else { return Ok(()) };
        // SAFETY: the mapping's MR is live while we hold it.
        let (addr, length, rkey) = unsafe { ((*m.mr.0).addr as u64, (*m.mr.0).length as u32, (*m.mr.0).rkey) };
        let entry = RsIomap { offset: m.offset, sge: RsSge { addr, key: rkey, length } };
        let r = c.write_iomap(entry, m.index as u32);
        // No room to keep it: the mapping goes (its MR deregistered).
        rdma_util::fallible::push(&mut c.iomap_list, m).map_err(|_| libc::ENOMEM)?;
        r?;
    }
}

/// `riomap`.
pub(crate) fn riomap(rs: &Rsocket, buf: *mut u8, len: usize, prot: c_int, offset: i64) -> Res<i64> {
    let pd = rs.cm().pd();
    if pd.is_null() || prot & !(libc::PROT_WRITE | libc::PROT_NONE) != 0 {
        return Err(libc::EINVAL);
    }
    let mut c = rs.st.lock();
    let mut access = IBV_ACCESS_LOCAL_WRITE;
    let index = if prot & libc::PROT_WRITE != 0 {
        access |= IBV_ACCESS_REMOTE_WRITE;
        let slots = c.remote_iomap.length as usize;
        if c.iomap_slots.len() != slots {
            c.iomap_slots = rdma_util::fallible::vec_filled(false, slots).map_err(|_| libc::ENOMEM)?;
        }
        match c.iomap_slots.iter().position(|u| !u) {
            Some(i) => i as i32,
            None => return Err(libc::ENOMEM),
        }
    } else {
        -1
    };
    // SAFETY: registering the caller's buffer in the socket's PD.
    let mr = unsafe { v::ibv_reg_mr(pd, buf.cast(), len, access as c_int) };
    if mr.is_null() {
        let e = rdma_util::ffi::errno();
        return Err(if e == 0 { libc::ENOMEM } else { e });
    }
    let offset = if offset == -1 { buf as i64 } else { offset };
    let m = IoMr { offset: offset as u64, mr: Mr(mr), index };
    // Room first: a mapping that cannot be kept is deregistered (Mr's drop).
    let room = if index >= 0 { c.iomap_queue.try_reserve(1) } else { c.iomap_list.try_reserve(1) };
    if room.is_err() {
        return Err(libc::ENOMEM);
    }
    if index >= 0 {
        c.iomap_slots[index as usize] = true;
        c.iomap_queue.push_back(m);
    } else {
        c.iomap_list.push(m);
    }
    Ok(offset)
}

/// `riounmap`: EINVAL if no mapping has exactly that buffer and length.
pub(crate) fn riounmap(rs: &Rsocket, buf: *mut u8, len: usize) -> Res<()> {
    let mut c = rs.st.lock();
    // SAFETY: the MRs in the lists are live.
    let matches = |m: &IoMr| unsafe { (*m.mr.0).addr.cast::<u8>() == buf && (*m.mr.0).length == len };
    let m = if let Some(i) = c.iomap_list.iter().position(matches) {
        c.iomap_list.remove(i)
    } else if let Some(i) = c.iomap_queue.iter().position(matches) {
        c.iomap_queue.remove(i).expect("index from position")
    } else {
        return Err(libc::EINVAL);
    };
    if m.index >= 0 {
        if let Some(s) = c.iomap_slots.get_mut(m.index as usize) {
            *s = false;
        }
    }
    drop(m);
    Ok(())
}

/// The peer's mapping that holds `offset`.
fn find_iomap(c: &Conn, offset: u64) -> Option<RsIomap> {
    c.bufs.as_ref()?;
    (0..c.base.target_iomap_size as usize).map(|i| c.target_iomap(i)).find(|m| {
        offset >= m.offset && offset < m.offset.wrapping_add(m.sge.length as u64)
    })
}

/// `riowrite`: returns the bytes written (stops early at an offset no
/// mapping covers), or Err when nothing was written.
///
/// # Safety
/// `buf` must be readable for `count` bytes.
pub(crate) unsafe fn riowrite(rs: &Rsocket, buf: *const u8, count: usize, mut offset: u64, flags: c_int) -> Result<usize, (c_int, usize)> {
    let _s = rs.slock.lock();
    let pending = !rs.st.lock().iomap_queue.is_empty();
    if pending {
        send_iomaps(rs, flags).map_err(|e| (e, 0))?;
    }
    let mut left = count;
    let mut olen = RS_OLAP_START_SIZE as usize;
    let mut iom: Option<RsIomap> = None;
    let mut ret: Res<()> = Ok(());
    while left > 0 {
        let need_lookup = match &iom {
            None => true,
            // As upstream: only past the end (not at it) is looked up again.
            Some(m) => offset > m.offset.wrapping_add(m.sge.length as u64),
        };
        if need_lookup {
            iom = find_iomap(&rs.st.lock(), offset);
            if iom.is_none() {
                break;
            }
        }
        if let Err(e) = wait_send(rs, flags) {
            ret = Err(e);
            break;
        }
        let want = if olen < left {
            let x = olen;
            if olen < RS_MAX_TRANSFER as usize {
                olen <<= 1;
            }
            x
        } else {
            left
        };
        let m = iom.expect("looked up above");
        let mut c = rs.st.lock();
        // SAFETY: count - left < count: inside the caller's buffer.
        let src = unsafe { buf.add(count - left) };
        // SAFETY: src has `left` >= want readable bytes.
        match unsafe { c.write_direct_chunk(&m, offset, want as u32, src) } {
            Ok(n) => {
                left -= n as usize;
                offset += n as u64;
            }
            Err(e) => {
                ret = Err(e);
                break;
            }
        }
    }
    match ret {
        Err(e) if left == count => Err((e, 0)),
        _ => Ok(count - left),
    }
}
