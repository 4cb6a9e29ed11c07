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

    /// Rings it: 0, or the errno of the failed write. The write is a raw
    /// system call, which is no cancellation point: a thread cancelled
    /// meanwhile must not unwind through the provider's guarded frames.
    #[inline]
    pub fn ring(&self, cmd_fd: c_int) -> c_int {
        let len = size_of::<ibv_post_send>();
        // SAFETY: writes our command's bytes to the fd.
        let n = unsafe {
            libc::syscall(
                libc::SYS_write,
                cmd_fd as libc::c_long,
                &self.cmd as *const ibv_post_send,
                len,
            )
        };
        if n == len as libc::c_long {
            0
        } else if n < 0 {
            crate::errno()
        } else {
            libc::EIO
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
        // A closed fd: an errno, no crash.
        assert_eq!(d.ring(-1), libc::EBADF);
    }
}
