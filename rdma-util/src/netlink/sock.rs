//! A netlink socket on top of neli's raw [`NlSocket`]: sends finished
//! requests and receives whole datagrams, however large.
//!
//! Errors are plain errno values (`i32`, positive).

use std::os::fd::{AsRawFd, BorrowedFd};
use std::time::Duration;

use neli::consts::socket::{Msg, NlFamily};
use neli::socket::NlSocket;
use neli::utils::Groups;
use nix::sys::socket::{setsockopt, sockopt::ReceiveTimeout};
use nix::sys::time::TimeVal;

use super::wire::MsgBuilder;

fn os_errno(e: std::io::Error) -> i32 {
    e.raw_os_error().unwrap_or(libc::EIO)
}

/// One bound netlink socket (kernel-assigned port, no groups).
pub struct Socket {
    sock: NlSocket,
    seq: u32,
    buf: Vec<u8>,
    /// The SO_RCVTIMEO currently set (None: block forever).
    rcvtimeo: Option<Duration>,
}

impl Socket {
    /// socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto) and bind().
    pub fn open(proto: NlFamily) -> Result<Socket, i32> {
        let sock = NlSocket::connect(proto, None, Groups::empty()).map_err(os_errno)?;
        // Any starting sequence number will do; like libnl, start from the
        // clock so that consecutive sockets do not reuse numbers.
        let seq = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as u32)
            .unwrap_or(1);
        Ok(Socket {
            sock,
            seq,
            buf: crate::fallible::vec_filled(0, 32 * 1024).map_err(|_| libc::ENOMEM)?,
            rcvtimeo: None,
        })
    }

    /// Sends `msg` with the next sequence number and returns that number.
    pub fn send(&mut self, msg: MsgBuilder) -> Result<u32, i32> {
        let seq = self.seq;
        self.seq = self.seq.wrapping_add(1);
        let bytes = msg.finish(seq);
        if !bytes.fits() {
            return Err(libc::EMSGSIZE);
        }
        loop {
            match self.sock.send(&bytes[..], Msg::empty()) {
                Ok(_) => return Ok(seq),
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) => return Err(os_errno(e)),
            }
        }
    }

    /// Subscribes to multicast group `group` (an RTNLGRP_* number).
    pub fn join_group(&self, group: u32) -> Result<(), i32> {
        // setsockopt directly: neli's membership call builds a Vec of the
        // groups, an allocation this needs no part of.
        // SAFETY: the descriptor is self.sock's, open while self lives; the
        // option value is a u32 local passed with its size.
        let r = unsafe {
            libc::setsockopt(
                self.sock.as_raw_fd(),
                libc::SOL_NETLINK,
                libc::NETLINK_ADD_MEMBERSHIP,
                (&group as *const u32).cast(),
                core::mem::size_of::<u32>() as libc::socklen_t,
            )
        };
        if r == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO))
        }
    }

    fn set_rcvtimeo(&mut self, t: Option<Duration>) -> Result<(), i32> {
        if self.rcvtimeo == t {
            return Ok(());
        }
        // SO_RCVTIMEO of zero means "no timeout"; round a positive wait up
        // to at least one microsecond so it never turns into "forever".
        let tv = match t {
            None => TimeVal::new(0, 0),
            Some(d) => {
                let us = d.as_micros().max(1);
                TimeVal::new((us / 1_000_000) as _, (us % 1_000_000) as _)
            }
        };
        // SAFETY: the descriptor belongs to self.sock, which is alive for the
        // whole (call-local) lifetime of the borrow.
        let fd = unsafe { BorrowedFd::borrow_raw(self.sock.as_raw_fd()) };
        setsockopt(&fd, ReceiveTimeout, &tv).map_err(|e| e as i32)?;
        self.rcvtimeo = t;
        Ok(())
    }

    /// Reads one datagram. First peeks with MSG_TRUNC to learn its full
    /// size, so no message is ever cut short.
    fn recv_once(&mut self) -> Result<usize, i32> {
        let n = self
            .sock
            .recv(&mut self.buf[..], Msg::PEEK | Msg::TRUNC)
            .map_err(os_errno)?
            .0;
        if n > self.buf.len() {
            // Left in the socket: a later call may find the memory.
            self.buf.try_reserve(n - self.buf.len()).map_err(|_| libc::ENOMEM)?;
            self.buf.resize(n, 0);
        }
        let n = self
            .sock
            .recv(&mut self.buf[..], Msg::empty())
            .map_err(os_errno)?
            .0;
        Ok(n)
    }

    /// Blocks for the next datagram; interrupted reads are retried.
    pub fn recv(&mut self) -> Result<&[u8], i32> {
        self.set_rcvtimeo(None)?;
        loop {
            match self.recv_once() {
                Ok(n) => return Ok(&self.buf[..n]),
                Err(libc::EINTR) => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Waits at most `t` for the next datagram: `Ok(None)` when the time ran
    /// out. An interrupting signal is reported as `Err(EINTR)`.
    pub fn recv_timeout(&mut self, t: Duration) -> Result<Option<&[u8]>, i32> {
        self.set_rcvtimeo(Some(t))?;
        match self.recv_once() {
            Ok(n) => Ok(Some(&self.buf[..n])),
            Err(e) if e == libc::EAGAIN || e == libc::EWOULDBLOCK => Ok(None),
            Err(e) => Err(e),
        }
    }
}
