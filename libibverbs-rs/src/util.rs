//! Small helpers shared by the concept modules: C string handling and the
//! number parsing rules of the C library (upstream parses environment and sysfs
//! values with strtol/strtoul, and we must accept exactly what they accept).

use std::ffi::{c_char, CStr};

/// Parses like C `strtol(s, NULL, base)`: leading white space, an optional
/// sign, an optional `0x`/`0` prefix when `base` is 0 or 16, then as many
/// digits as are valid. No digits gives 0; overflow saturates like glibc.
pub(crate) fn strtol(s: &[u8], base: u32) -> i64 {
    let (neg, mag) = parse_unsigned(s, base);
    let limit = if neg { i64::MIN.unsigned_abs() } else { i64::MAX as u64 };
    match mag {
        Some(m) if m <= limit => {
            if neg {
                (m as i64).wrapping_neg()
            } else {
                m as i64
            }
        }
        _ => {
            if neg {
                i64::MIN
            } else {
                i64::MAX
            }
        }
    }
}

/// Parses like C `strtoul(s, NULL, base)`: as strtol, but a leading minus
/// negates the value in unsigned arithmetic and overflow gives ULONG_MAX.
pub(crate) fn strtoul(s: &[u8], base: u32) -> u64 {
    let (neg, mag) = parse_unsigned(s, base);
    match mag {
        Some(m) => {
            if neg {
                m.wrapping_neg()
            } else {
                m
            }
        }
        None => u64::MAX,
    }
}

/// Returns (negative, magnitude); magnitude None on overflow.
fn parse_unsigned(s: &[u8], base: u32) -> (bool, Option<u64>) {
    let mut i = 0;
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
        i += 1;
    }
    let mut neg = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        neg = s[i] == b'-';
        i += 1;
    }
    let mut base = base;
    let hex_prefix = i + 1 < s.len()
        && s[i] == b'0'
        && (s[i + 1] == b'x' || s[i + 1] == b'X')
        && i + 2 < s.len()
        && (s[i + 2] as char).is_ascii_hexdigit();
    if (base == 0 || base == 16) && hex_prefix {
        base = 16;
        i += 2;
    } else if base == 0 {
        base = if i < s.len() && s[i] == b'0' { 8 } else { 10 };
    }
    let mut val: Option<u64> = Some(0);
    let mut any = false;
    while i < s.len() {
        let d = match (s[i] as char).to_digit(36) {
            Some(d) if d < base => d as u64,
            _ => break,
        };
        any = true;
        val = val.and_then(|v| v.checked_mul(base as u64)).and_then(|v| v.checked_add(d));
        i += 1;
    }
    if !any {
        return (false, Some(0));
    }
    (neg, val)
}

/// One scanf `%u` / `%x` conversion (no field width) at the start of `s`:
/// leading white space, an optional sign, for base 16 an optional `0x`, then
/// at least one digit. The value is converted as strtoul does (a minus sign
/// negates in unsigned arithmetic, overflow gives the maximum). Returns the
/// value and the number of bytes consumed, or None when nothing matched.
pub(crate) fn scan_unsigned(s: &[u8], base: u32) -> Option<(u64, usize)> {
    let mut i = s.iter().take_while(|b| b.is_ascii_whitespace()).count();
    let mut neg = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        neg = s[i] == b'-';
        i += 1;
    }
    if base == 16
        && i + 2 < s.len() + 1
        && s.get(i) == Some(&b'0')
        && matches!(s.get(i + 1), Some(b'x') | Some(b'X'))
        && s.get(i + 2).is_some_and(|b| b.is_ascii_hexdigit())
    {
        i += 2;
    }
    let start = i;
    let mut val: Option<u64> = Some(0);
    while i < s.len() {
        let Some(d) = (s[i] as char).to_digit(base) else { break };
        val = val.and_then(|v| v.checked_mul(base as u64)).and_then(|v| v.checked_add(d as u64));
        i += 1;
    }
    if i == start {
        return None;
    }
    let v = match val {
        Some(v) if neg => v.wrapping_neg(),
        Some(v) => v,
        None => u64::MAX,
    };
    Some((v, i))
}

/// sscanf(s, "%x:%x:...") style: `N` conversions separated by the literal
/// `sep`, which must follow each number immediately. Returns the values, or
/// None if any conversion or separator fails.
pub(crate) fn scan_separated<const N: usize>(s: &[u8], base: u32, sep: u8) -> Option<[u64; N]> {
    let mut out = [0u64; N];
    let mut pos = 0;
    for (k, slot) in out.iter_mut().enumerate() {
        let (v, used) = scan_unsigned(&s[pos..], base)?;
        *slot = v;
        pos += used;
        if k + 1 < N {
            if s.get(pos) != Some(&sep) {
                return None;
            }
            pos += 1;
        }
    }
    Some(out)
}

/// The bytes of a NUL-terminated C array field, without the terminator.
pub(crate) fn cstr_field(field: &[c_char]) -> &[u8] {
    // SAFETY: c_char and u8 have the same size and alignment.
    let bytes = unsafe { std::slice::from_raw_parts(field.as_ptr().cast::<u8>(), field.len()) };
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    &bytes[..end]
}

/// Copies `src` into a fixed C char array with NUL termination. Returns false
/// (and leaves an empty string) if it does not fit, as upstream's
/// check_snprintf treats truncation as failure.
pub(crate) fn set_cstr_field(field: &mut [c_char], src: &[u8]) -> bool {
    if src.len() >= field.len() || src.contains(&0) {
        if let Some(f) = field.first_mut() {
            *f = 0;
        }
        return false;
    }
    for (d, s) in field.iter_mut().zip(src) {
        *d = *s as c_char;
    }
    field[src.len()] = 0;
    true
}

/// Borrows a C string argument; None for NULL.
///
/// # Safety
/// `p` must be NULL or point to a NUL-terminated string valid for `'a`.
pub(crate) unsafe fn cstr_arg<'a>(p: *const c_char) -> Option<&'a [u8]> {
    if p.is_null() {
        None
    } else {
        // SAFETY: the caller guarantees a valid NUL-terminated string.
        Some(unsafe { CStr::from_ptr(p) }.to_bytes())
    }
}

/// getenv(), as a copy of the bytes: None when unset, or when the copy
/// cannot be allocated (the variable then counts as unset).
pub(crate) fn env_bytes(name: &CStr) -> Option<Vec<u8>> {
    rdma_util::fallible::env(name)
}

/// getenv(name) != NULL, without copying.
pub(crate) fn env_is_set(name: &CStr) -> bool {
    // SAFETY: name is NUL-terminated.
    !unsafe { libc::getenv(name.as_ptr()) }.is_null()
}

/// Upstream's check_env(): set and not "0".
pub(crate) fn check_env(name: &CStr) -> bool {
    // SAFETY: name is NUL-terminated; getenv's result is read at once.
    let v = unsafe { libc::getenv(name.as_ptr()) };
    // SAFETY: a non-NULL getenv result is a NUL-terminated string.
    !v.is_null() && unsafe { CStr::from_ptr(v) }.to_bytes() != b"0"
}

/// True when not running set-uid (real uid == effective uid); only then does
/// upstream honour path and driver overrides from the environment.
pub(crate) fn not_setuid() -> bool {
    // SAFETY: getuid/geteuid have no preconditions.
    unsafe { libc::getuid() == libc::geteuid() }
}

/// Writes a message to stderr in one write (up to 4 KiB), like upstream's
/// fprintf(stderr), without allocating. Used through [`warning!`].
pub(crate) fn warn_fmt(args: std::fmt::Arguments<'_>) {
    rdma_util::fallible::write_fd(libc::STDERR_FILENO, args)
}

/// `warning!(...)`: a `format!`-style message on stderr (see [`warn_fmt`]).
macro_rules! warning {
    ($($arg:tt)*) => { $crate::util::warn_fmt(format_args!($($arg)*)) };
}
pub(crate) use warning;

/// The result of a query whose caller passed a NULL output pointer, made
/// into scratch space instead. Upstream hands the NULL to the op: the default
/// op, and a provider that fails before writing, return their error without
/// touching it, and that result stands; an op that succeeds would have
/// written through it and crashed, so success becomes EINVAL (returned and
/// in errno), since the caller has nowhere to receive the answer.
pub(crate) fn query_without_output(op_result: std::ffi::c_int) -> std::ffi::c_int {
    if op_result != 0 {
        return op_result;
    }
    rdma_util::ffi::set_errno(libc::EINVAL);
    libc::EINVAL
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Numbers from the environment (VERBS_LOG_LEVEL) and sysfs are read
    /// with these: on random text they must agree with the C library's own
    /// strtol and strtoul, for the bases upstream uses.
    #[test]
    fn fuzz_numbers_agree_with_the_c_library() {
        rdma_util::fuzz::run(
            "strtol/strtoul",
            20_000,
            |r| {
                const CHARS: &[u8] = b" \t\n+-0123456789xXabcdefABCDEFz";
                let n = r.below(24);
                let mut v: Vec<u8> = (0..n).map(|_| CHARS[r.below(CHARS.len())]).collect();
                if r.below(4) == 0 {
                    v.extend_from_slice(b"99999999999999999999");
                }
                (v, [0u32, 10, 16][r.below(3)])
            },
            |(text, base)| {
                let c = std::ffi::CString::new(text.clone()).unwrap();
                // SAFETY: c is NUL-terminated; no end pointer is asked for.
                let (l, ul) = unsafe {
                    (libc::strtol(c.as_ptr(), std::ptr::null_mut(), *base as i32), libc::strtoul(c.as_ptr(), std::ptr::null_mut(), *base as i32))
                };
                assert_eq!(strtol(text, *base), l, "strtol({:?}, {base})", String::from_utf8_lossy(text));
                assert_eq!(strtoul(text, *base), ul, "strtoul({:?}, {base})", String::from_utf8_lossy(text));
            },
        );
    }

    #[test]
    fn strtol_matches_c() {
        assert_eq!(strtol(b"4", 0), 4);
        assert_eq!(strtol(b"  -12xyz", 10), -12);
        assert_eq!(strtol(b"0x1f", 0), 31);
        assert_eq!(strtol(b"010", 0), 8);
        assert_eq!(strtol(b"abc", 0), 0);
        assert_eq!(strtol(b"99999999999999999999", 10), i64::MAX);
        assert_eq!(strtol(b"-99999999999999999999", 10), i64::MIN);
        assert_eq!(strtol(b"0x", 0), 0);
    }

    #[test]
    fn strtoul_matches_c() {
        assert_eq!(strtoul(b"6\n", 10), 6);
        assert_eq!(strtoul(b"-1", 10), u64::MAX);
        assert_eq!(strtoul(b"ff", 16), 255);
    }

    #[test]
    fn scanf_like() {
        assert_eq!(scan_separated::<2>(b"60:0 junk", 10, b':'), Some([60, 0]));
        assert_eq!(scan_separated::<2>(b"60: 0", 10, b':'), Some([60, 0]));
        assert_eq!(scan_separated::<2>(b"60 :0", 10, b':'), None);
        assert_eq!(scan_separated::<2>(b"-60:0", 10, b':').map(|v| v[0] as u32), Some(-60i32 as u32));
        assert_eq!(scan_separated::<4>(b"-1:0:0:1", 16, b':').map(|v| v[0] as u16), Some(0xffff));
        assert_eq!(scan_separated::<4>(b"+5054:00ff:fe12:3456", 16, b':'), Some([0x5054, 0xff, 0xfe12, 0x3456]));
        assert_eq!(scan_separated::<4>(b"5054 :00ff:fe12:3456", 16, b':'), None);
        assert_eq!(scan_unsigned(b"0x3c", 10), Some((0, 1)));
        assert_eq!(scan_unsigned(b"", 10), None);
    }

    #[test]
    fn cstr_fields() {
        let mut f = [1 as c_char; 8];
        assert!(set_cstr_field(&mut f, b"rxe0"));
        assert_eq!(cstr_field(&f), b"rxe0");
        assert!(!set_cstr_field(&mut f, b"12345678"));
        assert_eq!(cstr_field(&f), b"");
    }
}

/// The result of an event read (ibv_get_async_event, ibv_get_cq_event) whose
/// output pointer is NULL. Upstream reads the event first and only then
/// writes through the pointer: with nothing pending on a non-blocking fd it
/// fails cleanly with EAGAIN, otherwise it crashes (after consuming the
/// event, or after blocking for one). We give the same EAGAIN in the first
/// case and a clear EINVAL in the others, without consuming anything.
/// Returns -1 with errno set.
pub(crate) fn event_read_null_out(fd: core::ffi::c_int) -> core::ffi::c_int {
    // SAFETY: F_GETFL only inspects the descriptor's flags.
    let fl = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if fl == -1 {
        // A bad descriptor fails the read the same way upstream's does.
        return -1;
    }
    if fl & libc::O_NONBLOCK != 0 {
        let mut p = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
        // SAFETY: one pollfd, zero timeout.
        let n = unsafe { libc::poll(&mut p, 1, 0) };
        if n == 0 {
            rdma_util::ffi::set_errno(libc::EAGAIN);
            return -1;
        }
    }
    rdma_util::ffi::set_errno(libc::EINVAL);
    -1
}

#[cfg(test)]
mod event_null_out_tests {
    use super::event_read_null_out;
    use rdma_util::ffi::{errno, set_errno};

    fn pipe(nonblock: bool) -> [libc::c_int; 2] {
        let mut fds = [0; 2];
        let fl = if nonblock { libc::O_NONBLOCK } else { 0 };
        // SAFETY: a two-int array for pipe2(2).
        assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), fl) }, 0);
        fds
    }

    #[test]
    fn nothing_pending_on_a_nonblocking_fd_is_eagain_like_upstream() {
        let [r, w] = pipe(true);
        set_errno(0);
        assert_eq!(event_read_null_out(r), -1);
        assert_eq!(errno(), libc::EAGAIN);
        // SAFETY: closing our own pipe.
        unsafe { libc::close(r); libc::close(w) };
    }

    #[test]
    fn a_pending_event_is_refused_and_left_in_place() {
        let [r, w] = pipe(true);
        // SAFETY: writing 4 bytes from a local array.
        assert_eq!(unsafe { libc::write(w, [1u8, 2, 3, 4].as_ptr().cast(), 4) }, 4);
        assert_eq!(event_read_null_out(r), -1);
        assert_eq!(errno(), libc::EINVAL);
        let mut buf = [0u8; 8];
        // SAFETY: reading into a local buffer.
        assert_eq!(unsafe { libc::read(r, buf.as_mut_ptr().cast(), 8) }, 4, "the event was not consumed");
        // SAFETY: closing our own pipe.
        unsafe { libc::close(r); libc::close(w) };
    }

    #[test]
    fn a_blocking_fd_is_refused_without_blocking() {
        let [r, w] = pipe(false);
        assert_eq!(event_read_null_out(r), -1);
        assert_eq!(errno(), libc::EINVAL);
        // SAFETY: closing our own pipe.
        unsafe { libc::close(r); libc::close(w) };
        assert_eq!(event_read_null_out(r), -1);
        assert_eq!(errno(), libc::EBADF);
    }
}
