//! The kernel command channel: how every `ibv_cmd_*` helper talks to the
//! uverbs character device, and the helpers themselves.
//!
//! Two transports exist (see the uAPI in [`crate::abi::kern`]):
//! - the ioctl protocol ([`ioctl`]): one `RDMA_VERBS_IOCTL` carrying a header
//!   and an array of typed attributes, built in an [`ioctl::ibv_command_buffer`];
//! - the older write() protocol ([`write`]): a command header followed by a
//!   fixed struct, with the classic or the extended header. On kernels that
//!   have the ioctl framework, write() commands are tunnelled through the
//!   ioctl `UVERBS_METHOD_INVOKE_WRITE` instead of write(2).
//!
//! Most helpers try the ioctl first and fall back to write() when the kernel
//! lacks the method ([`write::execute_ioctl_fallback`]); which methods failed
//! is remembered per context in [`CmdCtxState`].
//!
//! # What the context code provides
//! `verbs_context.priv` must point to a `#[repr(C)]` struct whose FIRST field
//! is a [`CmdCtxState`] ([`cmd_state`] casts the pointer). The context code
//! fills `driver_id` when it creates the context, then sets
//! `use_ioctl_write` from [`ioctl::has_ioctl_write`] (which already needs
//! `driver_id`), and sets `imported` for contexts made by
//! `ibv_import_device`. The process-wide uverbs ABI version is stored with
//! [`set_abi_ver`] when the library initialises (before any context exists),
//! and `verbs_allow_disassociate_destroy` (exported data, defined here) is
//! set from `RDMAV_ALLOW_DISASSOC_DESTROY` at the same time.

use core::mem::{offset_of, size_of};
use core::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use libc::c_int;

use crate::abi::driver::verbs_context_ops;
use crate::abi::verbs::{ibv_context, verbs_context, __VERBS_ABI_IS_EXTENDED};

pub(crate) mod ioctl;
pub(crate) mod write;

pub(crate) mod ah;
pub(crate) mod cq;
pub(crate) mod device;
pub(crate) mod mcast;
pub(crate) mod mr;
pub(crate) mod mw;
pub(crate) mod pd;
pub(crate) mod qp;
pub(crate) mod srq;
pub(crate) mod counters;
pub(crate) mod dm;
pub(crate) mod flow_action;
pub(crate) mod xrcd;
pub(crate) mod wq;
pub(crate) mod rwq_ind;
pub(crate) mod flow;
pub(crate) mod mr_extra;
pub(crate) mod legacy;
pub(crate) mod cq_extra;
pub(crate) mod dmah;
pub(crate) mod comp_cntr;

/// Number of operations in `verbs_context_ops`, which is also the number of
/// bits in the per-context "ioctl not supported" bitmap.
pub(crate) const VERBS_OPS_NUM: usize = size_of::<verbs_context_ops>() / size_of::<*const ()>();

/// The bit of `reg_mr_ex`, an operation rdma-core 65 added to the ops table:
/// 44's table, which [`cmd_bit!`] indexes, lacks it, so it gets the first
/// bit after that table's.
pub(crate) const REG_MR_EX_BIT: usize = VERBS_OPS_NUM;

/// Bits in the unsupported-ioctl bitmap: one per op of 44's table, then
/// [`REG_MR_EX_BIT`].
const CMD_BITS: usize = VERBS_OPS_NUM + 1;

const BITMAP_WORDS: usize = CMD_BITS.div_ceil(64);

/// The bit that stands for one operation in the unsupported-ioctl bitmap: its
/// index in `verbs_context_ops` (`cmd_bit!(create_cq)`).
macro_rules! cmd_bit {
    ($op:ident) => {
        ::core::mem::offset_of!($crate::abi::driver::verbs_context_ops, $op)
            / ::core::mem::size_of::<*const ()>()
    };
}
pub(crate) use cmd_bit;

/// C's `offsetofend(T, field)`: the offset just past `field` of `T`.
macro_rules! offset_end {
    ($t:ty, $($f:tt)+) => {{
        let u = ::core::mem::MaybeUninit::<$t>::uninit();
        let base = u.as_ptr();
        // SAFETY: a place projection on an uninitialised value; nothing is read.
        #[allow(unused_unsafe)]
        let p = unsafe { ::core::ptr::addr_of!((*base).$($f)+) };
        fn size_of_pointee<U>(_: *const U) -> usize {
            ::core::mem::size_of::<U>()
        }
        (p as usize - base as usize) + size_of_pointee(p)
    }};
}
pub(crate) use offset_end;

/// Per-context state of the command channel; the first field of the
/// library's private context struct (see the module docs).
#[repr(C)]
pub(crate) struct CmdCtxState {
    /// `RDMA_DRIVER_*` of the provider; sent in every ioctl header.
    pub(crate) driver_id: u32,
    /// Send write() commands through `UVERBS_METHOD_INVOKE_WRITE`.
    pub(crate) use_ioctl_write: bool,
    /// The context was imported (`ibv_import_device`): creating objects must
    /// not fall back to write(), which cannot pass the async event FD.
    pub(crate) imported: bool,
    /// The private ABI of the provider that created the context: where the
    /// members of its structures that moved between the ABIs are.
    pub(crate) pabi: crate::pabi::Pabi,
    /// Operations whose ioctl method the kernel rejected; they go straight to
    /// the write() fallback from then on.
    unsupported_ioctls: [AtomicU64; BITMAP_WORDS],
}

impl CmdCtxState {
    pub(crate) const fn new(driver_id: u32) -> Self {
        CmdCtxState {
            driver_id,
            use_ioctl_write: false,
            imported: false,
            pabi: crate::pabi::Pabi::P34,
            unsupported_ioctls: [const { AtomicU64::new(0) }; BITMAP_WORDS],
        }
    }

    pub(crate) fn ioctl_unsupported(&self, bit: usize) -> bool {
        self.unsupported_ioctls[bit / 64].load(Ordering::Relaxed) & (1 << (bit % 64)) != 0
    }

    pub(crate) fn mark_ioctl_unsupported(&self, bit: usize) {
        self.unsupported_ioctls[bit / 64].fetch_or(1 << (bit % 64), Ordering::Relaxed);
    }

    /// The kernel has no ioctl framework at all: every operation falls back.
    pub(crate) fn mark_all_ioctls_unsupported(&self) {
        for bit in 0..CMD_BITS {
            self.mark_ioctl_unsupported(bit);
        }
    }
}

impl Default for CmdCtxState {
    fn default() -> Self {
        Self::new(0)
    }
}

/// The containing `verbs_context` of `ctx`, if `ctx` is one (upstream's
/// `verbs_get_ctx`).
///
/// # Safety
/// `ctx` is NULL or points to a live `ibv_context`.
pub(crate) unsafe fn verbs_get_ctx(ctx: *mut ibv_context) -> Option<*mut verbs_context> {
    // SAFETY: the caller guarantees ctx is NULL or valid.
    let c = unsafe { ctx.as_ref()? };
    if c.abi_compat != __VERBS_ABI_IS_EXTENDED {
        return None;
    }
    Some(
        ctx.cast::<u8>()
            .wrapping_sub(offset_of!(verbs_context, context))
            .cast(),
    )
}

/// The command-channel state of a context, or `None` when `ctx` is not a
/// verbs context with private data (where upstream would crash).
///
/// # Safety
/// `ctx` is NULL or points to a live `ibv_context`; when it is a verbs
/// context, its `priv` is NULL or points to a struct starting with a
/// [`CmdCtxState`] that lives as long as the context.
pub(crate) unsafe fn cmd_state<'a>(ctx: *mut ibv_context) -> Option<&'a CmdCtxState> {
    // SAFETY: forwarded caller guarantee.
    let vctx = unsafe { verbs_get_ctx(ctx)? };
    // SAFETY: vctx contains the live ctx; priv_ points to a CmdCtxState-led
    // struct or is NULL.
    unsafe { ((*vctx).priv_ as *const CmdCtxState).as_ref() }
}

/// The private ABI of `ctx`'s provider (34 when the context has no command
/// state, which no context of this library lacks).
///
/// # Safety
/// As [`cmd_state`].
pub(crate) unsafe fn pabi_of(ctx: *mut ibv_context) -> crate::pabi::Pabi {
    // SAFETY: forwarded caller guarantee.
    unsafe { cmd_state(ctx) }.map_or(crate::pabi::Pabi::P34, |s| s.pabi)
}

/// Process-wide uverbs ABI version (upstream's `abi_ver`), 0 until set.
static ABI_VER: AtomicI32 = AtomicI32::new(0);

/// Records the kernel's uverbs ABI version (sysfs `abi_version`, or 6 when
/// devices are found through netlink).
pub(crate) fn set_abi_ver(v: i32) {
    ABI_VER.store(v, Ordering::Relaxed);
}

pub(crate) fn abi_ver() -> i32 {
    ABI_VER.load(Ordering::Relaxed)
}

// `bool verbs_allow_disassociate_destroy`, exported data: when set, destroy
// commands that fail with EIO (device disassociated) report success, so
// applications can free their resources after a hot unplug. Exported at both
// private ABIs (@IBVERBS_PRIVATE_34, @@IBVERBS_PRIVATE_65) as one byte: a
// versioned alias must be defined in the same object as its target, so the
// byte itself is defined here in assembly and Rust reaches it by its hidden
// name. Providers are shared objects and reach it through their GOT, so both
// versions are the same byte; an executable may have a copy (see
// flag_copies).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
macro_rules! allow_disassociate_destroy_asm {
    ($type:literal) => {
        std::arch::global_asm!(
            ".pushsection .bss.rs_allow_disassociate_destroy,\"aw\"",
            ".globl rs_allow_disassociate_destroy",
            ".hidden rs_allow_disassociate_destroy",
            concat!(".type rs_allow_disassociate_destroy, ", $type),
            ".size rs_allow_disassociate_destroy, 1",
            "rs_allow_disassociate_destroy:",
            ".zero 1",
            ".globl rs_allow_disassociate_destroy_34",
            concat!(".type rs_allow_disassociate_destroy_34, ", $type),
            ".size rs_allow_disassociate_destroy_34, 1",
            ".set rs_allow_disassociate_destroy_34, rs_allow_disassociate_destroy",
            ".symver rs_allow_disassociate_destroy_34, verbs_allow_disassociate_destroy@IBVERBS_PRIVATE_34",
            ".globl rs_allow_disassociate_destroy_65",
            concat!(".type rs_allow_disassociate_destroy_65, ", $type),
            ".size rs_allow_disassociate_destroy_65, 1",
            ".set rs_allow_disassociate_destroy_65, rs_allow_disassociate_destroy",
            ".symver rs_allow_disassociate_destroy_65, verbs_allow_disassociate_destroy@@IBVERBS_PRIVATE_65",
            ".popsection",
        );
    };
}
#[cfg(target_arch = "x86_64")]
allow_disassociate_destroy_asm!("@object");
#[cfg(target_arch = "aarch64")]
allow_disassociate_destroy_asm!("%object");

extern "C" {
    /// The byte defined above. `AtomicBool` has the layout of C's `bool`.
    #[link_name = "rs_allow_disassociate_destroy"]
    static verbs_allow_disassociate_destroy: AtomicBool;
}

/// Every place the flag can be: our byte, and where the dynamic linker put
/// each of its two versioned names. They are all our byte unless an
/// executable uses the variable directly: it then has its own copy of the
/// version it linked against (a copy relocation), which every reference to
/// that version, ours included, must use. Found once with dlvsym; a name not
/// in the global scope (the library loaded RTLD_LOCAL) is our byte.
fn flag_copies() -> &'static [usize; 3] {
    static COPIES: std::sync::OnceLock<[usize; 3]> = std::sync::OnceLock::new();
    COPIES.get_or_init(|| {
        let own = std::ptr::addr_of!(verbs_allow_disassociate_destroy) as usize;
        let find = |version: &std::ffi::CStr| {
            // SAFETY: dlvsym reads the loader's tables; both strings are
            // NUL-terminated.
            let p = unsafe { libc::dlvsym(libc::RTLD_DEFAULT, c"verbs_allow_disassociate_destroy".as_ptr(), version.as_ptr()) };
            if p.is_null() { own } else { p as usize }
        };
        [own, find(c"IBVERBS_PRIVATE_34"), find(c"IBVERBS_PRIVATE_65")]
    })
}

pub(crate) fn set_allow_disassociate_destroy(allow: bool) {
    for &a in flag_copies() {
        // SAFETY: each address is the byte defined above or the copy of it
        // the dynamic linker made, alive for the process, and only ever
        // accessed atomically by us.
        unsafe { (*(a as *const AtomicBool)).store(allow, Ordering::Relaxed) };
    }
}

pub(crate) fn allow_disassociate_destroy() -> bool {
    // SAFETY: as in set_allow_disassociate_destroy.
    flag_copies().iter().any(|&a| unsafe { (*(a as *const AtomicBool)).load(Ordering::Relaxed) })
}

/// True when a destroy command's result `ret` means the caller must stop and
/// return it. EIO with disassociated destroy allowed becomes success
/// (`*ret = 0`) and also ends the caller's work (upstream's
/// `verbs_is_destroy_err`).
pub(crate) fn is_destroy_err(ret: &mut c_int) -> bool {
    if *ret == libc::EIO && allow_disassociate_destroy() {
        *ret = 0;
        return true;
    }
    *ret != 0
}

/// The two system calls the channel makes, with an interception point for
/// unit tests (the fake kernel of `crate::testkit::kernel` fills it).
pub(crate) mod sys {
    use crate::abi::kern::{ib_uverbs_ioctl_hdr, RDMA_VERBS_IOCTL};
    use libc::{c_int, c_void};

    /// Test builds: where a fake kernel takes the commands instead of the
    /// device. Each hook returns None when no fake kernel serves the calling
    /// thread, and the real system call is made.
    #[cfg(test)]
    pub(crate) struct Intercept {
        pub(crate) ioctl: fn(c_int, *mut ib_uverbs_ioctl_hdr) -> Option<c_int>,
        pub(crate) write: fn(c_int, *const c_void, usize) -> Option<isize>,
    }

    #[cfg(test)]
    pub(crate) static INTERCEPT: std::sync::OnceLock<Intercept> = std::sync::OnceLock::new();

    /// `ioctl(fd, RDMA_VERBS_IOCTL, hdr)`: 0, or the errno value (errno is
    /// left set as well).
    ///
    /// # Safety
    /// `hdr` points to a complete ioctl command whose attribute pointers are
    /// valid for the lengths they declare.
    #[inline(always)]
    pub(crate) unsafe fn verbs_ioctl(fd: c_int, hdr: *mut ib_uverbs_ioctl_hdr) -> c_int {
        #[cfg(test)]
        if let Some(r) = INTERCEPT.get().and_then(|i| (i.ioctl)(fd, hdr)) {
            return r;
        }
        // SAFETY: the caller guarantees the command is well-formed.
        if unsafe { libc::ioctl(fd, RDMA_VERBS_IOCTL, hdr) } != 0 {
            return rdma_util::ffi::errno();
        }
        if under_valgrind() {
            // SAFETY: as above: the header is followed by its attributes.
            unsafe { outputs_defined(hdr) };
        }
        0
    }

    /// Whether the process runs under valgrind, asked once: the walk of
    /// [`outputs_defined`] cost every command 35 to 90 instructions when
    /// made unasked, and outside valgrind this is one load and branch.
    #[inline(always)]
    fn under_valgrind() -> bool {
        use core::sync::atomic::{AtomicU8, Ordering};
        // 0: not asked yet; 1: no; 2: yes.
        static UNDER: AtomicU8 = AtomicU8::new(0);
        match UNDER.load(Ordering::Relaxed) {
            0 => {
                let yes = rdma_util::valgrind::running();
                UNDER.store(if yes { 2 } else { 1 }, Ordering::Relaxed);
                yes
            }
            v => v == 2,
        }
    }

    /// Tells valgrind what the kernel wrote (see `rdma_util::valgrind`),
    /// as upstream's ioctl path does: the attribute array (inline outputs
    /// live there) and every output buffer the kernel marked written.
    ///
    /// # Safety
    /// As for [`verbs_ioctl`].
    #[cold]
    unsafe fn outputs_defined(hdr: *mut ib_uverbs_ioctl_hdr) {
        use crate::abi::kern::{ib_uverbs_attr, UVERBS_ATTR_F_VALID_OUTPUT};
        // SAFETY: the caller's complete command.
        let n = unsafe { (*hdr).num_attrs } as usize;
        // SAFETY: the attributes follow the header.
        let attrs = unsafe { hdr.add(1) }.cast::<ib_uverbs_attr>();
        rdma_util::valgrind::make_mem_defined(attrs, n * core::mem::size_of::<ib_uverbs_attr>());
        for i in 0..n {
            // SAFETY: i < num_attrs.
            let a = unsafe { &*attrs.add(i) };
            if a.flags & UVERBS_ATTR_F_VALID_OUTPUT != 0 && a.len as usize > core::mem::size_of::<u64>() {
                rdma_util::valgrind::make_mem_defined(a.data as usize as *const u8, a.len as usize);
            }
        }
    }

    /// `write(fd, buf, len)`.
    ///
    /// # Safety
    /// `buf` is readable for `len` bytes; pointers inside the command are
    /// valid for what they describe.
    pub(crate) unsafe fn write(fd: c_int, buf: *const c_void, len: usize) -> isize {
        #[cfg(test)]
        if let Some(r) = INTERCEPT.get().and_then(|i| (i.write)(fd, buf, len)) {
            return r;
        }
        // SAFETY: forwarded caller guarantee.
        unsafe { libc::write(fd, buf, len) }
    }
}
