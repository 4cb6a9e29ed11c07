//! The command channel to the kernel's RDMA CM: finding the character
//! device and its ABI version, opening it, and writing commands.
//!
//! ABI version, as upstream: ask the kernel over NETLINK_RDMA
//! (`RDMA_NLDEV_CMD_GET_CHARDEV` for "rdma_cm", which also names the device
//! node and its dev_t); failing that, read `class/misc/rdma_cm/abi_version`
//! or `class/infiniband_ucma/abi_version` under the sysfs root, and if
//! neither exists assume the newest version we speak (a wrong guess fails
//! later, at the first command). Versions outside 3..=4 are refused.
//!
//! Every command is one `write()` of header + body; the kernel writes the
//! response (if any) to the user address in the body's `response` field. A
//! short write is `ENODATA`, a failed one keeps write's errno.

use crate::abi::ucma::*;
use rdma_util::ffi::errno;
use core::ffi::{c_char, c_int, c_void};
use core::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use parking_lot::Mutex;
use std::os::fd::IntoRawFd;

/// The ABI version once known (-1 before).
static ABI_VER: AtomicI32 = AtomicI32::new(-1);

/// The device node name under /dev/infiniband and its dev_t (0: don't
/// check), as learned from the kernel.
static CDEV: Mutex<Option<(CdevName, libc::dev_t)>> = Mutex::new(None);

/// A chardev name (shorter than libibverbs' 64-byte name buffers).
type CdevName = rdma_util::fallible::FixedBuf<64>;

/// The name of the rdma_cm chardev when nothing tells another.
fn default_cdev_name() -> CdevName {
    CdevName::of(&[b"rdma_cm"]).expect("short")
}

/// Whether the kernel takes AF_IB addresses (and so the newer commands:
/// BIND, RESOLVE_ADDR, QUERY, JOIN_MCAST). Learned once by library
/// initialisation (`cma`), which probes the kernel; false until then.
static AF_IB_SUPPORT: AtomicBool = AtomicBool::new(false);

/// Whether the kernel accepts AF_IB addresses (known after init).
pub(crate) fn af_ib_support() -> bool {
    AF_IB_SUPPORT.load(Ordering::Acquire)
}

/// Records what the initialisation's probe found (see [`af_ib_support`]).
pub(crate) fn set_af_ib_support(on: bool) {
    AF_IB_SUPPORT.store(on, Ordering::Release);
}

/// The ABI version (-1 before [`check_abi_version`] succeeded).
pub(crate) fn abi_ver() -> i32 {
    ABI_VER.load(Ordering::Acquire)
}

/// Netlink answer: name, dev_t and ABI version of the "rdma_cm" chardev.
fn abi_from_netlink() -> Option<(CdevName, libc::dev_t, i32)> {
    let c = rdma_util::netlink::get_chardev(None, "rdma_cm").ok()?;
    // Upstream keeps the low 32 bits in an int; all-ones reads as "unknown".
    let ver = c.abi as u32 as i32;
    (ver != -1).then_some((CdevName::of(&[c.name.as_bytes()])?, c.cdev, ver))
}

/// Reads `file` (relative to the sysfs root) through libibverbs, as
/// upstream does; `None` if it can't be read.
fn read_sysfs(file: &core::ffi::CStr) -> Option<rdma_util::fallible::FixedBuf<8>> {
    let mut buf = [0 as c_char; 8];
    // SAFETY: ibv_get_sysfs_path returns a static NUL-terminated string;
    // file is NUL-terminated; buf is writable for its length.
    let n = unsafe {
        crate::verbs::ibv_read_sysfs_file(
            crate::verbs::ibv_get_sysfs_path(),
            file.as_ptr(),
            buf.as_mut_ptr(),
            buf.len(),
        )
    };
    if n < 0 {
        return None;
    }
    let mut out = rdma_util::fallible::FixedBuf::new();
    for &c in buf.iter().take_while(|&&c| c != 0).take(7) {
        let _ = out.push(&[c as u8]);
    }
    Some(out)
}

/// `strtol(s, NULL, 10)` as an int: leading blanks, optional sign, digits.
fn parse_c_long(s: &[u8]) -> i32 {
    let t = s.trim_ascii_start();
    let (neg, digits) = match t.first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut v: i64 = 0;
    for &b in digits.iter().take_while(|b| b.is_ascii_digit()) {
        v = v.saturating_mul(10).saturating_add(i64::from(b - b'0'));
    }
    (if neg { -v } else { v }) as i32
}

/// The sysfs fallback: (ABI version, found-in-sysfs).
fn abi_from_sysfs() -> i32 {
    match read_sysfs(c"class/misc/rdma_cm/abi_version")
        .or_else(|| read_sysfs(c"class/infiniband_ucma/abi_version"))
    {
        Some(v) => parse_c_long(v.as_bytes()),
        // Old kernels without class/misc: assume the newest ABI.
        None => RDMA_USER_CM_MAX_ABI_VERSION,
    }
}

/// Whether `ver` is an ABI version librdmacm speaks.
fn abi_supported(ver: i32) -> bool {
    (RDMA_USER_CM_MIN_ABI_VERSION..=RDMA_USER_CM_MAX_ABI_VERSION).contains(&ver)
}

/// Learns the ABI version (once) and checks it; `false` if unsupported.
pub(crate) fn check_abi_version() -> bool {
    if abi_ver() == -1 {
        match abi_from_netlink() {
            Some((name, cdev, ver)) => {
                *CDEV.lock() = Some((name, cdev));
                ABI_VER.store(ver, Ordering::Release);
            }
            None => {
                let ver = abi_from_sysfs();
                // The sysfs path knows no dev_t: accept any char device.
                let mut c = CDEV.lock();
                let name = c.take().map(|(n, _)| n).unwrap_or_else(default_cdev_name);
                *c = Some((name, 0));
                ABI_VER.store(ver, Ordering::Release);
            }
        }
    }
    abi_supported(abi_ver())
}

/// Opens the rdma_cm device (O_RDWR|O_CLOEXEC, checking the dev_t when
/// known); Err(errno) on failure.
pub(crate) fn open_channel_fd() -> Result<c_int, c_int> {
    let (name, cdev) = match &*CDEV.lock() {
        Some((n, c)) => (CdevName::of(&[n.as_bytes()]).unwrap_or_else(default_cdev_name), *c),
        None => (default_cdev_name(), 0),
    };
    match rdma_util::cdev::open_cdev(name.as_bytes(), cdev) {
        Some(fd) => Ok(fd.into_raw_fd()),
        None => Err(match errno() {
            0 => libc::ENODEV,
            e => e,
        }),
    }
}

/// Builds the bytes-to-write of a command: header with `op`, `in` = body
/// size, `out` = response size.
pub(crate) fn encode<T: Copy>(op: u32, body: T, out: usize) -> ucma_cmd<T> {
    ucma_cmd {
        hdr: rdma_ucm_cmd_hdr {
            cmd: op,
            in_: core::mem::size_of::<T>() as u16,
            out: out as u16,
        },
        body,
    }
}

/// Writes an encoded command; Err(ENODATA) on a short write, write's errno
/// on failure.
///
/// The write is made with `syscall(SYS_write)`, which is not a thread
/// cancellation point: a cancellation must not unwind through our guarded
/// frames (see `ffi::cancellable`). A cancel requested meanwhile takes
/// effect at the thread's next cancellation point; the waits applications
/// cancel in practice (rdma_get_cm_event, rdma_get_request) write their
/// GET_EVENT command as a cancellation point instead.
pub(crate) fn write_raw<T: Copy>(fd: c_int, cmd: &ucma_cmd<T>) -> Result<(), c_int> {
    let len = core::mem::size_of::<ucma_cmd<T>>();
    // SAFETY: cmd is a plain #[repr(C)] struct of `len` bytes; the kernel
    // writes only to response buffers the caller keeps alive across the call.
    let ret = unsafe {
        libc::syscall(libc::SYS_write, fd, (cmd as *const ucma_cmd<T>).cast::<c_void>(), len)
    } as isize;
    write_result(ret, len)
}

/// Writes an encoded command with a write() that is a thread cancellation
/// point, for the waits an application may cancel (see `ffi::cancellable`).
///
/// # Safety
/// Only outside `guard`, in a frame holding nothing with a destructor
/// (a cancellation unwinds through it); otherwise as [`write_raw`].
#[inline(always)]
pub(crate) unsafe fn write_raw_cancellable<T: Copy>(fd: c_int, cmd: &ucma_cmd<T>) -> Result<(), c_int> {
    let len = core::mem::size_of::<ucma_cmd<T>>();
    // SAFETY: as in write_raw; the caller's contract covers the unwind.
    let ret = unsafe {
        rdma_util::ffi::cancellable::write_cancellable(fd, (cmd as *const ucma_cmd<T>).cast::<c_void>(), len)
    };
    write_result(ret, len)
}

/// What a command write's return value means: Ok when all `len` bytes were
/// taken, ENODATA for a short write, errno for a failure.
fn write_result(ret: isize, len: usize) -> Result<(), c_int> {
    if ret == len as isize {
        Ok(())
    } else if ret >= 0 {
        Err(libc::ENODATA)
    } else {
        Err(errno())
    }
}

/// Writes a command without a response.
pub(crate) fn write_cmd<T: Copy>(fd: c_int, op: u32, body: T) -> Result<(), c_int> {
    write_raw(fd, &encode(op, body, 0))
}

/// Writes a command whose body already points (`response`) at `resp`. On
/// success the kernel has filled `resp`: it is marked defined for valgrind
/// (see `rdma_util::valgrind`), as upstream marks its responses.
pub(crate) fn write_cmd_resp<T: Copy, R>(fd: c_int, op: u32, body: T, resp: &mut R) -> Result<(), c_int> {
    write_raw(fd, &encode(op, body, core::mem::size_of::<R>()))?;
    rdma_util::valgrind::make_mem_defined(resp as *const R, core::mem::size_of::<R>());
    Ok(())
}

/// The user address of a response buffer, as the kernel ABI carries it.
pub(crate) fn uaddr<R>(r: &mut R) -> u64 {
    r as *mut R as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use rdma_util::mem::zeroed;

    fn bytes<T: Copy>(c: &ucma_cmd<T>) -> Vec<u8> {
        let len = core::mem::size_of::<ucma_cmd<T>>();
        // SAFETY: reading the bytes of a fully initialised POD value.
        unsafe { core::slice::from_raw_parts((c as *const ucma_cmd<T>).cast::<u8>(), len) }.to_vec()
    }

    #[test]
    fn create_id_command_matches_the_c_layout() {
        let mut b: rdma_ucm_create_id = zeroed();
        b.uid = 0x1122_3344_5566_7788;
        b.response = 0x0102_0304_0506_0708;
        b.ps = 0x0106;
        b.qp_type = 2;
        let c = encode(RDMA_USER_CM_CMD_CREATE_ID, b, 4);
        let v = bytes(&c);
        // struct ucma_abi_create_id: cmd u32, in u16, out u16, uid, response, ps, qp_type.
        assert_eq!(v.len(), 32);
        assert_eq!(&v[0..4], &0u32.to_ne_bytes());
        assert_eq!(&v[4..6], &24u16.to_ne_bytes());
        assert_eq!(&v[6..8], &4u16.to_ne_bytes());
        assert_eq!(&v[8..16], &0x1122_3344_5566_7788u64.to_ne_bytes());
        assert_eq!(&v[16..24], &0x0102_0304_0506_0708u64.to_ne_bytes());
        assert_eq!(&v[24..26], &0x0106u16.to_ne_bytes());
        assert_eq!(v[26], 2);
        assert!(v[27..32].iter().all(|&x| x == 0));
    }

    #[test]
    fn disconnect_and_resolve_ip_commands_have_the_c_sizes() {
        let d = encode(RDMA_USER_CM_CMD_DISCONNECT, rdma_ucm_disconnect { id: 7 }, 0);
        let v = bytes(&d);
        assert_eq!(v.len(), 12);
        assert_eq!(&v[0..4], &10u32.to_ne_bytes());
        assert_eq!(&v[4..6], &4u16.to_ne_bytes());
        assert_eq!(&v[8..12], &7u32.to_ne_bytes());
        let mut r: rdma_ucm_resolve_ip = zeroed();
        r.id = 3;
        r.timeout_ms = 2000;
        let v = bytes(&encode(RDMA_USER_CM_CMD_RESOLVE_IP, r, 0));
        assert_eq!(v.len(), 72);
        assert_eq!(&v[4..6], &64u16.to_ne_bytes());
        assert_eq!(&v[64..68], &3u32.to_ne_bytes());
        assert_eq!(&v[68..72], &2000u32.to_ne_bytes());
    }

    #[test]
    fn reject_command_carries_reason_and_private_data() {
        let mut r: rdma_ucm_reject = zeroed();
        r.id = 9;
        r.reason = 35;
        r.private_data_len = 3;
        r.private_data[..3].copy_from_slice(b"abc");
        let v = bytes(&encode(RDMA_USER_CM_CMD_REJECT, r, 0));
        assert_eq!(v.len(), 272);
        assert_eq!(&v[0..4], &9u32.to_ne_bytes());
        assert_eq!(&v[8..12], &9u32.to_ne_bytes());
        assert_eq!(v[12], 3);
        assert_eq!(v[13], 35);
        assert_eq!(&v[16..19], b"abc");
    }

    #[test]
    fn strtol_parsing_of_the_sysfs_abi_version() {
        assert_eq!(parse_c_long(b"4\n"), 4);
        assert_eq!(parse_c_long(b"  3"), 3);
        assert_eq!(parse_c_long(b"x"), 0);
        assert_eq!(parse_c_long(b"-2"), -2);
        assert!(abi_supported(3) && abi_supported(4));
        assert!(!abi_supported(2) && !abi_supported(5) && !abi_supported(-1));
    }

    #[test]
    fn writes_to_a_bad_fd_fail_with_its_errno_and_short_writes_with_enodata() {
        assert_eq!(write_cmd(-1, RDMA_USER_CM_CMD_DISCONNECT, rdma_ucm_disconnect { id: 0 }), Err(libc::EBADF));
        // A pipe with room accepts the whole command: success.
        let mut fds = [0; 2];
        // SAFETY: fds is a valid 2-int array.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        assert_eq!(write_cmd(fds[1], RDMA_USER_CM_CMD_DISCONNECT, rdma_ucm_disconnect { id: 0 }), Ok(()));
        // SAFETY: closing our own pipe fds.
        unsafe {
            libc::close(fds[0]);
            libc::close(fds[1]);
        }
    }
}
