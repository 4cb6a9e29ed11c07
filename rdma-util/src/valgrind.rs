//! Valgrind client requests, as rdma-core's util/valgrind.h makes them:
//! memory the kernel fills through a pointer inside a command (the write()
//! ABIs' `response` fields) is invisible to memcheck, which would then
//! report every later read of it as uninitialised. Upstream's libraries
//! mark such buffers defined after each command; ours do the same, so that
//! an application run under valgrind sees no error from our code where it
//! sees none from upstream's.
//!
//! A client request is valgrind's "magic" instruction sequence: rotations
//! of a register that add up to nothing, then an exchange of a register with
//! itself. On the real CPU it changes nothing and costs a few cycles; under
//! valgrind it passes the request. The argument block and sequences are
//! valgrind's documented ABI (valgrind.h) for amd64 and arm64; elsewhere the
//! requests are no-ops.

/// memcheck's VG_USERREQ__MAKE_MEM_DEFINED: ('M' << 24 | 'C' << 16) + 2.
const MAKE_MEM_DEFINED: u64 = 0x4d43_0002;

#[inline(always)]
fn client_request(default: u64, request: u64, a1: u64, a2: u64) -> u64 {
    let args: [u64; 6] = [request, a1, a2, 0, 0, 0];
    #[allow(unused_mut)]
    let mut result = default;
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the rotations of rdi add up to 128 bits (rdi is left as it
    // was) and xchg of rbx with itself changes nothing; under valgrind the
    // sequence reads `args` (in rax) and writes the result in rdx. Flags
    // are clobbered (asm! assumes so by default).
    unsafe {
        core::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            inout("rdi") 0u64 => _,
            in("rax") args.as_ptr(),
            inout("rdx") result,
        );
    }
    #[cfg(target_arch = "aarch64")]
    // SAFETY: as above: x12 is rotated by 128 bits in all and orr of x10
    // with itself changes nothing; valgrind reads `args` (x4) and writes
    // the result in x3.
    unsafe {
        core::arch::asm!(
            "ror x12, x12, #3",
            "ror x12, x12, #13",
            "ror x12, x12, #51",
            "ror x12, x12, #61",
            "orr x10, x10, x10",
            inout("x12") 0u64 => _,
            in("x4") args.as_ptr(),
            inout("x3") result,
        );
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = args;
    result
}

/// valgrind's VG_USERREQ__RUNNING_ON_VALGRIND: how many valgrinds the
/// program runs under (0 outside valgrind, the default answer).
const RUNNING_ON_VALGRIND: u64 = 0x1001;

/// Whether the process runs under valgrind: one client request, a few
/// instructions. A library that would walk a buffer to annotate it asks
/// this first (and may keep the answer: it cannot change).
#[inline(always)]
pub fn running() -> bool {
    client_request(0, RUNNING_ON_VALGRIND, 0, 0) != 0
}

/// Tells memcheck that `len` bytes at `p` are initialised (the kernel wrote
/// them). Nothing happens outside valgrind.
#[inline(always)]
pub fn make_mem_defined<T>(p: *const T, len: usize) {
    client_request(0, MAKE_MEM_DEFINED, p as u64, len as u64);
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_no_op_outside_valgrind() {
        let x = [1u8, 2, 3];
        super::make_mem_defined(x.as_ptr(), x.len());
        assert_eq!(super::client_request(7, 0, 0, 0), 7, "the default comes back when no valgrind answers");
        assert!(!super::running(), "the tests do not run under valgrind");
        assert_eq!(x, [1, 2, 3]);
    }
}
