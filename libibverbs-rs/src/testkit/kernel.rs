//! Test support: a scripted stand-in for the uverbs device.
//!
//! No kernel is needed: [`with_kernel`] installs a [`FakeKernel`] for the
//! current thread, and the channel's two system calls (`cmd::sys`, through
//! its interception hooks) hand it the command instead. It records the exact
//! bytes that would have reached the kernel and lets the test answer, by
//! writing into the output buffers the command points to, like the kernel
//! would.

use core::mem::size_of;
use core::ptr;
use std::cell::RefCell;

use libc::{c_int, c_void};

use crate::cmd::CmdCtxState;
use crate::abi::driver::{verbs_device, verbs_sysfs_dev};
use crate::abi::kern::*;
use crate::abi::verbs::{ibv_context, verbs_context, verbs_ex_private, __VERBS_ABI_IS_EXTENDED};

/// One system call as the kernel would have seen it.
#[derive(Clone, Debug)]
pub(crate) enum Sent {
    /// `RDMA_VERBS_IOCTL`: the header and attribute array, as bytes and
    /// decoded, plus the input data each attribute carried (inline bytes, or
    /// the bytes its pointer referred to for `len` bytes).
    Ioctl {
        fd: c_int,
        bytes: Vec<u8>,
        hdr: IoctlHdr,
        attrs: Vec<ib_uverbs_attr>,
        inputs: Vec<Vec<u8>>,
    },
    /// write(2): the buffer.
    Write { fd: c_int, bytes: Vec<u8> },
}

/// The scalar fields of an ioctl header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IoctlHdr {
    pub(crate) length: u16,
    pub(crate) object_id: u16,
    pub(crate) method_id: u16,
    pub(crate) num_attrs: u16,
    pub(crate) reserved1: u64,
    pub(crate) driver_id: u32,
    pub(crate) reserved2: u32,
}

impl Sent {
    pub(crate) fn ioctl(&self) -> (&IoctlHdr, &[ib_uverbs_attr]) {
        match self {
            Sent::Ioctl { hdr, attrs, .. } => (hdr, attrs),
            other => panic!("expected an ioctl, got {other:?}"),
        }
    }

    pub(crate) fn write_bytes(&self) -> &[u8] {
        match self {
            Sent::Write { bytes, .. } => bytes,
            other => panic!("expected a write, got {other:?}"),
        }
    }

    /// Input data of the ioctl attribute `id`.
    pub(crate) fn input(&self, id: u16) -> Option<&[u8]> {
        match self {
            Sent::Ioctl { attrs, inputs, .. } => attrs
                .iter()
                .position(|a| a.attr_id == id)
                .map(|i| inputs[i].as_slice()),
            _ => None,
        }
    }
}

/// The command handed to the fake kernel's ioctl handler.
pub(crate) struct IoctlCmd {
    hdr: *mut ib_uverbs_ioctl_hdr,
}

impl IoctlCmd {
    pub(crate) fn object_id(&self) -> u16 {
        // SAFETY: hdr is the live command under execution.
        unsafe { (*self.hdr).object_id }
    }

    pub(crate) fn method_id(&self) -> u16 {
        // SAFETY: as above.
        unsafe { (*self.hdr).method_id }
    }

    pub(crate) fn attrs(&mut self) -> &mut [ib_uverbs_attr] {
        // SAFETY: num_attrs attributes follow the header.
        unsafe {
            core::slice::from_raw_parts_mut(
                (*self.hdr).attrs.as_mut_ptr(),
                (*self.hdr).num_attrs as usize,
            )
        }
    }

    pub(crate) fn attr(&mut self, id: u16) -> Option<&mut ib_uverbs_attr> {
        self.attrs().iter_mut().find(|a| a.attr_id == id)
    }

    /// Kernel behaviour for an output pointer attribute: copy (at most `len`
    /// bytes of) `data` to where it points and flag it valid.
    pub(crate) fn write_out(&mut self, id: u16, data: &[u8]) {
        let a = self
            .attr(id)
            .unwrap_or_else(|| panic!("no attribute {id:#x}"));
        let n = data.len().min(a.len as usize);
        // SAFETY: the command's author promised `len` writable bytes there.
        unsafe { ptr::copy_nonoverlapping(data.as_ptr(), a.data as usize as *mut u8, n) };
        a.flags |= UVERBS_ATTR_F_VALID_OUTPUT;
    }

    pub(crate) fn write_out_val<T: Copy>(&mut self, id: u16, v: T) {
        // SAFETY: viewing a Copy value as its bytes.
        let b = unsafe { core::slice::from_raw_parts(&v as *const T as *const u8, size_of::<T>()) };
        self.write_out(id, b)
    }

    /// Kernel behaviour for a new object handle or file descriptor.
    pub(crate) fn set_data(&mut self, id: u16, v: u64) {
        self.attr(id)
            .unwrap_or_else(|| panic!("no attribute {id:#x}"))
            .data = v;
    }
}

/// The command handed to the fake kernel's write handler.
pub(crate) struct WriteCmdView<'a> {
    pub(crate) bytes: &'a [u8],
}

impl WriteCmdView<'_> {
    pub(crate) fn hdr(&self) -> ib_uverbs_cmd_hdr {
        // SAFETY: reading a header-sized prefix (checked by the slice index).
        unsafe { ptr::read_unaligned(self.bytes[..8].as_ptr().cast()) }
    }

    /// The response address: the core struct's first field for classic
    /// commands, `ex_hdr.response` for extended ones (both at byte 8).
    pub(crate) fn response(&self) -> u64 {
        u64::from_ne_bytes(self.bytes[8..16].try_into().unwrap())
    }

    /// Kernel behaviour: write `data` to the response buffer.
    pub(crate) fn respond(&self, data: &[u8]) {
        let p = self.response() as usize as *mut u8;
        assert!(!p.is_null(), "command has no response buffer");
        // SAFETY: the command's author promised a response buffer there.
        unsafe { ptr::copy_nonoverlapping(data.as_ptr(), p, data.len()) };
    }

    pub(crate) fn respond_val<T: Copy>(&self, v: T) {
        // SAFETY: viewing a Copy value as its bytes.
        let b = unsafe { core::slice::from_raw_parts(&v as *const T as *const u8, size_of::<T>()) };
        self.respond(b)
    }
}

type IoctlHandler = Box<dyn FnMut(&mut IoctlCmd) -> c_int>;
type WriteHandler = Box<dyn FnMut(&WriteCmdView<'_>) -> c_int>;

/// A scripted kernel: handlers return 0 or an errno value.
pub(crate) struct FakeKernel {
    pub(crate) sent: Vec<Sent>,
    on_ioctl: IoctlHandler,
    on_write: WriteHandler,
}

impl FakeKernel {
    /// Every ioctl fails with `ioctl_err` (0 = succeeds doing nothing), every
    /// write succeeds doing nothing.
    pub(crate) fn new() -> Self {
        FakeKernel {
            sent: Vec::new(),
            on_ioctl: Box::new(|_| 0),
            on_write: Box::new(|_| 0),
        }
    }

    pub(crate) fn on_ioctl(mut self, f: impl FnMut(&mut IoctlCmd) -> c_int + 'static) -> Self {
        self.on_ioctl = Box::new(f);
        self
    }

    pub(crate) fn on_write(mut self, f: impl FnMut(&WriteCmdView<'_>) -> c_int + 'static) -> Self {
        self.on_write = Box::new(f);
        self
    }
}

thread_local! {
    static KERNEL: RefCell<Option<FakeKernel>> = const { RefCell::new(None) };
}

/// Runs `f` with `k` answering this thread's commands; returns `f`'s result
/// and everything sent.
pub(crate) fn with_kernel<R>(k: FakeKernel, f: impl FnOnce() -> R) -> (R, Vec<Sent>) {
    crate::cmd::sys::INTERCEPT.get_or_init(|| crate::cmd::sys::Intercept {
        ioctl: intercept_ioctl,
        write: intercept_write,
    });
    KERNEL.with(|c| *c.borrow_mut() = Some(k));
    let r = f();
    let k = KERNEL.with(|c| c.borrow_mut().take()).expect("fake kernel");
    (r, k.sent)
}

fn bytes_of(p: *const u8, len: usize) -> Vec<u8> {
    // SAFETY: callers pass memory the command declares readable.
    unsafe { core::slice::from_raw_parts(p, len) }.to_vec()
}

fn intercept_ioctl(fd: c_int, hdr: *mut ib_uverbs_ioctl_hdr) -> Option<c_int> {
    KERNEL.with(|c| {
        let mut g = c.borrow_mut();
        let k = g.as_mut()?;
        // SAFETY: hdr is the assembled command; num_attrs attributes follow.
        let (h, attrs) = unsafe {
            let h = &*hdr;
            let attrs =
                core::slice::from_raw_parts(h.attrs.as_ptr(), h.num_attrs as usize).to_vec();
            (h, attrs)
        };
        let total = size_of::<ib_uverbs_ioctl_hdr>() + attrs.len() * size_of::<ib_uverbs_attr>();
        let inputs = attrs
            .iter()
            .map(|a| {
                if a.len as usize <= 8 {
                    a.data.to_ne_bytes()[..a.len as usize].to_vec()
                } else {
                    bytes_of(a.data as usize as *const u8, a.len as usize)
                }
            })
            .collect();
        k.sent.push(Sent::Ioctl {
            fd,
            bytes: bytes_of(hdr as *const u8, total),
            hdr: IoctlHdr {
                length: h.length,
                object_id: h.object_id,
                method_id: h.method_id,
                num_attrs: h.num_attrs,
                reserved1: h.reserved1,
                driver_id: h.driver_id,
                reserved2: h.reserved2,
            },
            attrs,
            inputs,
        });
        let r = (k.on_ioctl)(&mut IoctlCmd { hdr });
        if r != 0 {
            rdma_util::ffi::set_errno(r);
        }
        Some(r)
    })
}

fn intercept_write(fd: c_int, buf: *const c_void, len: usize) -> Option<isize> {
    KERNEL.with(|c| {
        let mut g = c.borrow_mut();
        let k = g.as_mut()?;
        let bytes = bytes_of(buf.cast(), len);
        k.sent.push(Sent::Write {
            fd,
            bytes: bytes.clone(),
        });
        let r = (k.on_write)(&WriteCmdView { bytes: &bytes });
        if r != 0 {
            rdma_util::ffi::set_errno(r);
            return Some(-1);
        }
        Some(len as isize)
    })
}

/// A verbs context as the library would have built it, on the heap, with
/// its device and sysfs entry, for driving the helpers.
pub(crate) struct TestCtx {
    vctx: Box<verbs_context>,
    state: Box<CmdCtxState>,
    pub(crate) dev: Box<verbs_device>,
    pub(crate) sysfs: Box<verbs_sysfs_dev>,
}

pub(crate) const TEST_CMD_FD: c_int = 1000;
pub(crate) const TEST_ASYNC_FD: c_int = 1001;

impl TestCtx {
    pub(crate) fn new(driver_id: u32, use_ioctl_write: bool) -> Self {
        // SAFETY: these C structs are valid when all-zero (NULL pointers,
        // None callbacks, zero integers and pthread objects).
        let (mut vctx, mut dev, mut sysfs) = unsafe {
            (
                Box::<verbs_context>::new_zeroed().assume_init(),
                Box::<verbs_device>::new_zeroed().assume_init(),
                Box::<verbs_sysfs_dev>::new_zeroed().assume_init(),
            )
        };
        let mut state = Box::new(CmdCtxState::new(driver_id));
        state.use_ioctl_write = use_ioctl_write;
        dev.sysfs = &mut *sysfs;
        vctx.priv_ = (&mut *state as *mut CmdCtxState).cast::<verbs_ex_private>();
        vctx.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
        vctx.context.cmd_fd = TEST_CMD_FD;
        vctx.context.async_fd = TEST_ASYNC_FD;
        vctx.context.device = &mut dev.device;
        TestCtx {
            vctx,
            state,
            dev,
            sysfs,
        }
    }

    pub(crate) fn ctx(&mut self) -> *mut ibv_context {
        &mut self.vctx.context
    }

    pub(crate) fn vctx(&mut self) -> *mut verbs_context {
        &mut *self.vctx
    }

    pub(crate) fn state(&mut self) -> &mut CmdCtxState {
        &mut self.state
    }
}

/// `v`'s bytes.
pub(crate) fn bytes<T: Copy>(v: &T) -> Vec<u8> {
    bytes_of((v as *const T).cast(), size_of::<T>())
}

/// Little-endian helpers for building expected byte strings.
pub(crate) fn le16(v: u16) -> [u8; 2] {
    v.to_le_bytes()
}
pub(crate) fn le32(v: u32) -> [u8; 4] {
    v.to_le_bytes()
}
pub(crate) fn le64(v: u64) -> [u8; 8] {
    v.to_le_bytes()
}

/// Concatenates byte strings.
pub(crate) fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// The `(attr_id, len, flags, data)` of each attribute.
pub(crate) fn attr_tuples(a: &[ib_uverbs_attr]) -> Vec<(u16, u16, u16, u64)> {
    a.iter()
        .map(|x| (x.attr_id, x.len, x.flags, x.data))
        .collect()
}

/// Serialises the tests that depend on the process-wide
/// `verbs_allow_disassociate_destroy` (hold it for the whole test).
pub(crate) fn disassoc_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Serialises the tests that depend on the process-wide uverbs ABI
/// version, and sets it to `v` for the holder.
pub(crate) fn abi_ver_lock(v: i32) -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    crate::cmd::set_abi_ver(v);
    g
}
