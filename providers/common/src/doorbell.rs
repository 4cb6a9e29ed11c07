//! The doorbell of a kernel QP whose send queue user space fills: an
//! IB_USER_VERBS_CMD_POST_SEND write() on the command fd with no work
//! requests, which makes the driver look at the queue.

use core::ffi::c_int;

use rdma_abi::kern::IB_USER_VERBS_CMD_POST_SEND;
use rdma_abi::kern::{
    ib_uverbs_cmd_hdr, ib_uverbs_post_send, ib_uverbs_post_send_resp, ibv_post_send,
};
use rdma_abi::verbs::ibv_send_wr;

/// The command for one QP, built once; the kernel writes its (empty)
/// answer to `resp`, which must stay valid while the doorbell is rung.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Doorbell {
    cmd: ibv_post_send,
}

impl Doorbell {
    /// The doorbell of the QP with kernel handle `qp_handle`.
    pub fn new(qp_handle: u32, resp: *mut ib_uverbs_post_send_resp) -> Doorbell {
        Doorbell {
            cmd: ibv_post_send {
                hdr: ib_uverbs_cmd_hdr {
                    command: IB_USER_VERBS_CMD_POST_SEND,
                    in_words: (size_of::<ibv_post_send>() / 4) as u16,
                    out_words: (size_of::<ib_uverbs_post_send_resp>() / 4) as u16,
                },
                core_payload: ib_uverbs_post_send {
                    response: resp as u64,
                    qp_handle,
                    wr_count: 0,
                    sge_count: 0,
                    wqe_size: size_of::<ibv_send_wr>() as u32,
                    send_wr: [],
                },
            },
        }
    }

    /// Rings it: 0, or the errno of the failed write, which is also left
    /// in errno as libc's write() would (upstream's providers return errno
    /// after it, and callers see both). The write is a raw system call, which is no cancellation point: a thread cancelled
    /// meanwhile must not unwind through the provider's guarded frames.
    #[inline]
    pub fn ring(&self, cmd_fd: c_int) -> c_int {
        let len = size_of::<ibv_post_send>();
        let n = raw_write(cmd_fd, (&self.cmd as *const ibv_post_send).cast(), len);
        if n == len as isize {
            0
        } else if n < 0 {
            crate::set_errno(-n as c_int);
            -n as c_int
        } else {
            crate::set_errno(libc::EIO);
            libc::EIO
        }
    }
}

/// write(2) as the bare system call: the byte count, or -errno. On x86-64
/// the `syscall` instruction itself (libc's syscall() wrapper costs a call
/// and a dozen instructions more on every doorbell); elsewhere libc's.
#[inline(always)]
fn raw_write(fd: c_int, buf: *const core::ffi::c_void, len: usize) -> isize {
    #[cfg(target_arch = "x86_64")]
    {
        let ret: isize;
        // SAFETY: write(2) reads len bytes at buf, which the caller owns;
        // the kernel clobbers rcx and r11 and nothing else.
        unsafe {
            core::arch::asm!(
                "syscall",
                inlateout("rax") libc::SYS_write as isize => ret,
                in("rdi") fd as isize,
                in("rsi") buf,
                in("rdx") len,
                lateout("rcx") _,
                lateout("r11") _,
                options(nostack, preserves_flags, readonly),
            );
        }
        ret
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // SAFETY: as above, through libc.
        let n = unsafe { libc::syscall(libc::SYS_write, fd as libc::c_long, buf, len) };
        if n < 0 {
            -(crate::errno() as isize)
        } else {
            n as isize
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_words() {
        let mut resp = ib_uverbs_post_send_resp::default();
        let d = Doorbell::new(5, &mut resp);
        assert_eq!(d.cmd.hdr.in_words, 8);
        assert_eq!(d.cmd.hdr.out_words, 1);
        assert_eq!(d.cmd.core_payload.qp_handle, 5);
        assert_eq!(d.cmd.core_payload.wqe_size, 128);
        // A closed fd: an errno, no crash, and errno set as libc's write()
        // sets it (upstream's providers return errno after the write).
        crate::set_errno(0);
        assert_eq!(d.ring(-1), libc::EBADF);
        // SAFETY: this thread's errno.
        assert_eq!(unsafe { *libc::__errno_location() }, libc::EBADF);
    }
}
