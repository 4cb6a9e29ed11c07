//! Memory regions: ibv_reg_mr (and its _iova/_iova2 forms), ibv_reg_dmabuf_mr,
//! ibv_reg_mr_ex and ibv_reg_buf_mr, ibv_rereg_mr and ibv_dereg_mr (verbs.c).
//!
//! Registration brackets the provider call with the fork-safety hooks: the
//! range is marked "don't copy on fork" first and unmarked again if the
//! provider fails; deregistration unmarks it once the provider has released
//! the MR. On-demand-paging MRs never pin memory, so they skip both, and so
//! do dma-buf registrations, whose memory is not the process's.

use std::ffi::{c_int, c_uint, c_void};
use std::ptr;

use crate::abi::driver::*;
use crate::abi::driver65::ibv_buf;
use crate::abi::kern::IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS;
use crate::abi::verbs::*;
use crate::abi::verbs65::{
    ibv_mr_init_attr, ibv_mr_init_attr_mask, IBV_REG_MR_MASK_ADDR, IBV_REG_MR_MASK_BUF, IBV_REG_MR_MASK_DMAH,
    IBV_REG_MR_MASK_FD, IBV_REG_MR_MASK_FD_OFFSET, IBV_REG_MR_MASK_IOVA,
};
use crate::ctx_priv::ops_of;
use rdma_util::ffi::set_errno;
use rdma_util::{ensure, export, export_versioned, symver};

#[cfg(not(test))]
use crate::fork::{dofork_range, dontfork_range};
#[cfg(test)]
use tests::spy::{dofork_range, dontfork_range};

/// Upstream's ibv_reg_mr_iova2, the one path all three registration entry
/// points share. NULL with errno set on failure.
///
/// # Safety
/// `pd` is a live PD whose context and the context's device are set.
pub(crate) unsafe fn reg_mr(pd: *mut ibv_pd, addr: *mut c_void, length: usize, iova: u64, mut access: c_uint) -> *mut ibv_mr {
    // SAFETY: the caller's live PD.
    let context = unsafe { (*pd).context };
    // SAFETY: a live context's device is the verbs_device its provider
    // allocated (ibv_device is its first member).
    let core_support = unsafe { (*(*context).device.cast::<verbs_device>()).core_support };
    let odp = access & IBV_ACCESS_ON_DEMAND != 0;
    // Kernels that do not know the optional access bits would refuse them;
    // they are optional, so drop them.
    if core_support & IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS as u64 == 0 {
        access &= !IBV_ACCESS_OPTIONAL_RANGE;
    }
    if !odp && dontfork_range(addr, length) != 0 {
        return ptr::null_mut();
    }
    // SAFETY: the context of the caller's live PD is a live context of this library.
    let mr = match unsafe { ops_of(context) }.reg_mr {
        // SAFETY: provider op with the caller's arguments; the access bits
        // travel as C's int, as upstream passes them.
        Some(f) => unsafe { f(pd, addr, length, iova, access as c_int) },
        None => {
            set_errno(libc::EOPNOTSUPP);
            ptr::null_mut()
        }
    };
    if mr.is_null() {
        if !odp {
            // errno is the provider's; upstream ignores this result too.
            let _ = dofork_range(addr, length);
        }
        return mr;
    }
    // SAFETY: the provider's new MR.
    let m = unsafe { &mut *mr };
    m.context = context;
    m.pd = pd;
    m.addr = addr;
    m.length = length;
    mr
}

/// Upstream's ibv_dereg_mr: the provider's result (0 or an errno value).
///
/// # Safety
/// `mr` is a live MR, allocated by its provider as a verbs_mr, whose context
/// is set.
pub(crate) unsafe fn dereg_mr(mr: *mut ibv_mr) -> c_int {
    let vmr = mr.cast::<verbs_mr>();
    // Read everything before the provider frees the MR.
    // SAFETY: every MR a provider hands out is the head of a verbs_mr.
    let (context, addr, length, mr_type, access) =
        unsafe { ((*mr).context, (*mr).addr, (*mr).length, (*vmr).mr_type, (*vmr).access) };
    // SAFETY: the context of the caller's live MR is a live context of this library.
    let Some(f) = unsafe { ops_of(context) }.dereg_mr else { return libc::EOPNOTSUPP };
    // SAFETY: provider op on its own MR.
    let ret = unsafe { f(vmr) };
    // Only ordinary registrations of pinned memory went through
    // dontfork_range (null, imported and dma-buf MRs did not).
    if ret == 0 && mr_type == IBV_MR_TYPE_MR && (access as c_uint) & IBV_ACCESS_ON_DEMAND == 0 {
        let _ = dofork_range(addr, length);
    }
    ret
}

/// Upstream's ibv_rereg_mr: 0, or one of the IBV_REREG_MR_ERR_* codes with
/// errno set.
///
/// Changing the translation moves the fork protection: the new range is
/// marked "don't copy on fork" before the provider runs, the old range is
/// released once the provider succeeded, and the new range again if it
/// failed. Each of those steps has its own error code.
///
/// # Safety
/// `mr` is a live MR, allocated by its provider as a verbs_mr, whose context
/// is set; `pd` is NULL or a live PD.
pub(crate) unsafe fn rereg_mr(mr: *mut ibv_mr, flags: c_int, pd: *mut ibv_pd, addr: *mut c_void, length: usize,
                       access: c_int) -> c_int {
    let vmr = mr.cast::<verbs_mr>();
    let bad_input = || {
        set_errno(libc::EINVAL);
        IBV_REREG_MR_ERR_INPUT
    };
    // Null, imported and dma-buf MRs cannot be re-registered.
    // SAFETY: every MR a provider hands out is the head of a verbs_mr.
    if unsafe { (*vmr).mr_type } != IBV_MR_TYPE_MR {
        return bad_input();
    }
    // C compares the int against the complement of the enum's int value: a
    // negative flags word has unknown bits too.
    let bits = flags as c_uint;
    if bits & !IBV_REREG_MR_FLAGS_SUPPORTED != 0 {
        return bad_input();
    }
    let translate = bits & IBV_REREG_MR_CHANGE_TRANSLATION != 0;
    if translate && (length == 0 || addr.is_null()) {
        return bad_input();
    }
    if access != 0 && bits & IBV_REREG_MR_CHANGE_ACCESS == 0 {
        return bad_input();
    }
    if translate && dontfork_range(addr, length) != 0 {
        return IBV_REREG_MR_ERR_DONT_FORK_NEW;
    }
    // SAFETY: the caller's live MR.
    let (context, old_addr, old_len) = unsafe { ((*mr).context, (*mr).addr, (*mr).length) };
    // SAFETY: the context of the caller's live MR is a live context of this library.
    let ret = match unsafe { ops_of(context) }.rereg_mr {
        // SAFETY: provider op on its own MR with the caller's arguments.
        Some(f) => unsafe { f(vmr, flags, pd, addr, length, access) },
        None => {
            set_errno(libc::EOPNOTSUPP);
            IBV_REREG_MR_ERR_INPUT
        }
    };
    if ret != 0 {
        // Whatever the provider returned, the caller learns "the command
        // failed" (errno is the provider's unless the undo fails too).
        if translate && dofork_range(addr, length) != 0 {
            return IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW;
        }
        return IBV_REREG_MR_ERR_CMD;
    }
    // SAFETY: the caller's live MR, updated by its provider.
    let m = unsafe { &mut *mr };
    if bits & IBV_REREG_MR_CHANGE_PD != 0 {
        m.pd = pd;
    }
    if translate {
        m.addr = addr;
        m.length = length;
        if dofork_range(old_addr, old_len) != 0 {
            return IBV_REREG_MR_ERR_DO_FORK_OLD;
        }
    }
    0
}

/// Upstream's ibv_reg_dmabuf_mr: the provider registers `length` bytes at
/// `offset` of the dma-buf `fd`; the MR's `addr` records the offset. No
/// fork protection: the memory is not the process's. NULL with errno set on
/// failure.
///
/// # Safety
/// `pd` is a live PD whose context is set.
pub(crate) unsafe fn reg_dmabuf_mr(pd: *mut ibv_pd, offset: u64, length: usize, iova: u64, fd: c_int,
                            access: c_int) -> *mut ibv_mr {
    // SAFETY: the caller's live PD.
    let context = unsafe { (*pd).context };
    // SAFETY: the context of the caller's live PD is a live context of this library.
    let Some(f) = unsafe { ops_of(context) }.reg_dmabuf_mr else {
        set_errno(libc::EOPNOTSUPP);
        return ptr::null_mut();
    };
    // SAFETY: provider op with the caller's arguments.
    let mr = unsafe { f(pd, offset, length, iova, fd, access) };
    if mr.is_null() {
        return mr;
    }
    // SAFETY: the provider's new MR.
    let m = unsafe { &mut *mr };
    m.context = context;
    m.pd = pd;
    m.addr = offset as usize as *mut c_void;
    m.length = length;
    mr
}

/// Whether `mask` (an ibv_mr_init_attr comp_mask) has `bit`.
fn has(mask: u64, bit: ibv_mr_init_attr_mask) -> bool {
    mask & u64::from(bit) != 0
}

/// Upstream's fill_mr_init_attr_from_buf: checks a buffer registration
/// (IBV_REG_MR_MASK_BUF) and turns it into one the lower layers know. The
/// range must be within the buffer, given by address, on the buffer's own PD,
/// and not also as a dma-buf. Memory behind a dma-buf is then registered
/// through it (fd, offset in it, and the address as I/O virtual address,
/// which the caller therefore cannot choose); other memory by address. False,
/// with errno EINVAL, for a request that breaks these rules, and for a NULL
/// buffer (which upstream would dereference).
fn buf_to_attr(pd: *mut ibv_pd, attr: &mut ibv_mr_init_attr) -> bool {
    let fail = || {
        set_errno(libc::EINVAL);
        false
    };
    if attr.buf.is_null() {
        return fail();
    }
    // SAFETY: checked non-NULL; a handle the caller got from ibv_alloc_buf.
    let buf = unsafe { &*attr.buf };
    let mask = attr.comp_mask;
    if pd != buf.pd || !has(mask, IBV_REG_MR_MASK_ADDR) {
        return fail();
    }
    let (base, addr) = (buf.addr as usize, attr.addr as usize);
    let Some(off) = addr.checked_sub(base) else { return fail() };
    if off > buf.size || attr.length > buf.size - off {
        return fail();
    }
    if has(mask, IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET) {
        return fail();
    }
    attr.comp_mask &= !u64::from(IBV_REG_MR_MASK_BUF);
    // Exactly -1 means "no dma-buf", as upstream tests it.
    if buf.dmabuf_fd != -1 {
        if has(mask, IBV_REG_MR_MASK_IOVA) {
            return fail();
        }
        attr.comp_mask &= !u64::from(IBV_REG_MR_MASK_ADDR);
        attr.comp_mask |= u64::from(IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET | IBV_REG_MR_MASK_IOVA);
        attr.fd = buf.dmabuf_fd;
        attr.fd_offset = off as u64;
        attr.iova = addr as u64;
    }
    true
}

/// Upstream's ibv_reg_mr_ex: one registration for user memory, dma-buf
/// memory, a DMA handle's placement or an ibv_alloc_buf buffer, as the
/// attributes' mask says. NULL with errno set on failure.
///
/// The provider gets a copy of the attributes holding only the fields the
/// mask marks valid (the others zero), with a buffer request already
/// translated; the caller's attributes are never written. Unknown mask bits
/// are passed on for the provider to judge (the default op, built on the
/// older registrations, refuses them). Fork protection covers the range by
/// address unless the memory is on-demand paged or a dma-buf; the optional
/// access bits are dropped for kernels that do not know them, as for
/// ibv_reg_mr. On success the library sets the MR's context, PD and length,
/// and its address: the registered address, or for a registration without
/// one (dma-buf), the offset in the dma-buf, as ibv_reg_dmabuf_mr records it.
///
/// # Safety
/// `pd` is a live PD whose context and the context's device are set.
pub(crate) unsafe fn reg_mr_ex(pd: *mut ibv_pd, req: &ibv_mr_init_attr) -> *mut ibv_mr {
    let mask = req.comp_mask;
    let valid = |bit| has(mask, bit);
    let mut attr = ibv_mr_init_attr {
        length: req.length,
        access: req.access,
        comp_mask: mask,
        iova: if valid(IBV_REG_MR_MASK_IOVA) { req.iova } else { 0 },
        addr: if valid(IBV_REG_MR_MASK_ADDR) { req.addr } else { ptr::null_mut() },
        fd: if valid(IBV_REG_MR_MASK_FD) { req.fd } else { 0 },
        fd_offset: if valid(IBV_REG_MR_MASK_FD_OFFSET) { req.fd_offset } else { 0 },
        dmah: if valid(IBV_REG_MR_MASK_DMAH) { req.dmah } else { ptr::null_mut() },
        buf: if valid(IBV_REG_MR_MASK_BUF) { req.buf } else { ptr::null_mut() },
    };
    if has(attr.comp_mask, IBV_REG_MR_MASK_BUF) && !buf_to_attr(pd, &mut attr) {
        return ptr::null_mut();
    }
    let need_fork = (attr.access as c_uint) & IBV_ACCESS_ON_DEMAND == 0 && !has(attr.comp_mask, IBV_REG_MR_MASK_FD);
    // As upstream, even without an address in the mask: the range then
    // starts at NULL.
    if need_fork && dontfork_range(attr.addr, attr.length) != 0 {
        return ptr::null_mut();
    }
    // SAFETY: the caller's live PD.
    let context = unsafe { (*pd).context };
    // SAFETY: a live context's device is the verbs_device its provider
    // allocated (ibv_device is its first member).
    let core_support = unsafe { (*(*context).device.cast::<verbs_device>()).core_support };
    if core_support & IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS as u64 == 0 {
        attr.access &= !(IBV_ACCESS_OPTIONAL_RANGE as c_int);
    }
    // SAFETY: the context of the caller's live PD is a live context of this library.
    let mr = match unsafe { ops_of(context) }.reg_mr_ex {
        // SAFETY: provider (or default) op with the caller's PD and our copy.
        Some(f) => unsafe { f(pd, &mut attr) },
        None => {
            set_errno(libc::EOPNOTSUPP);
            ptr::null_mut()
        }
    };
    if mr.is_null() {
        if need_fork {
            // errno is the provider's; upstream ignores this result too.
            let _ = dofork_range(attr.addr, attr.length);
        }
        return mr;
    }
    // SAFETY: the provider's new MR.
    let m = unsafe { &mut *mr };
    m.context = context;
    m.length = attr.length;
    m.pd = pd;
    m.addr = if has(attr.comp_mask, IBV_REG_MR_MASK_ADDR) { attr.addr } else { attr.fd_offset as usize as *mut c_void };
    mr
}

/// Checks of a PD argument where upstream would crash.
fn pd_usable(pd: *mut ibv_pd) -> bool {
    // SAFETY: short-circuit: each pointer is read only once checked non-NULL.
    !pd.is_null() && unsafe { !(*pd).context.is_null() && !(*(*pd).context).device.is_null() }
}

/// A PD argument a verb may dispatch through (its context is set).
pub(crate) fn pd_has_context(pd: *mut ibv_pd) -> bool {
    // SAFETY: short-circuit: the PD is read only once checked non-NULL.
    !pd.is_null() && unsafe { !(*pd).context.is_null() }
}

export! {
    /// ibv_reg_mr_iova2@@IBVERBS_1.8: registration with an explicit I/O
    /// virtual address and unsigned access flags.
    fn ibv_reg_mr_iova2(pd: *mut ibv_pd, addr: *mut c_void, length: usize, iova: u64, access: c_uint) -> *mut ibv_mr,
        on_panic = ptr::null_mut();
    {
        ensure!(pd_usable(pd), libc::EINVAL, ptr::null_mut());
        // SAFETY: the caller's PD, checked usable.
        unsafe { reg_mr(pd, addr, length, iova, access) }
    }
}

export! {
    /// ibv_reg_mr_iova@@IBVERBS_1.7: as ibv_reg_mr_iova2, access as int.
    fn ibv_reg_mr_iova(pd: *mut ibv_pd, addr: *mut c_void, length: usize, iova: u64, access: c_int) -> *mut ibv_mr,
        on_panic = ptr::null_mut();
    {
        ensure!(pd_usable(pd), libc::EINVAL, ptr::null_mut());
        // SAFETY: the caller's PD, checked usable.
        unsafe { reg_mr(pd, addr, length, iova, access as c_uint) }
    }
}

export_versioned! {
    /// ibv_reg_mr@@IBVERBS_1.1: the I/O virtual address is the buffer's own.
    fn ibv_reg_mr_v11(pd: *mut ibv_pd, addr: *mut c_void, length: usize, access: c_int) -> *mut ibv_mr,
        on_panic = ptr::null_mut();
    {
        ensure!(pd_usable(pd), libc::EINVAL, ptr::null_mut());
        // SAFETY: the caller's PD, checked usable.
        unsafe { reg_mr(pd, addr, length, addr as usize as u64, access as c_uint) }
    }
}
symver!(default ibv_reg_mr, "IBVERBS_1.1", ibv_reg_mr_v11);

export_versioned! {
    /// ibv_dereg_mr@@IBVERBS_1.1: 0 or an errno value.
    fn ibv_dereg_mr_v11(mr: *mut ibv_mr) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!mr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked non-NULL; the caller's MR.
        ensure!(!unsafe { (*mr).context }.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the caller's MR, with its context set.
        unsafe { dereg_mr(mr) }
    }
}
symver!(default ibv_dereg_mr, "IBVERBS_1.1", ibv_dereg_mr_v11);

export! {
    /// ibv_rereg_mr@@IBVERBS_1.1: 0 or an IBV_REREG_MR_ERR_* code.
    fn ibv_rereg_mr(mr: *mut ibv_mr, flags: c_int, pd: *mut ibv_pd, addr: *mut c_void, length: usize,
                    access: c_int) -> c_int, on_panic = IBV_REREG_MR_ERR_INPUT;
    {
        ensure!(!mr.is_null(), libc::EINVAL, IBV_REREG_MR_ERR_INPUT);
        // SAFETY: checked non-NULL; the caller's MR.
        ensure!(!unsafe { (*mr).context }.is_null(), libc::EINVAL, IBV_REREG_MR_ERR_INPUT);
        // SAFETY: the caller's MR, with its context set.
        unsafe { rereg_mr(mr, flags, pd, addr, length, access) }
    }
}

export! {
    /// ibv_reg_dmabuf_mr@@IBVERBS_1.12
    fn ibv_reg_dmabuf_mr(pd: *mut ibv_pd, offset: u64, length: usize, iova: u64, fd: c_int, access: c_int)
        -> *mut ibv_mr, on_panic = ptr::null_mut();
    {
        ensure!(pd_has_context(pd), libc::EINVAL, ptr::null_mut());
        // SAFETY: the caller's PD, with its context set.
        unsafe { reg_dmabuf_mr(pd, offset, length, iova, fd, access) }
    }
}

export! {
    /// ibv_reg_mr_ex@@IBVERBS_1.15: see [`reg_mr_ex`]. A NULL PD (or one
    /// without its context or device) or NULL attributes are EINVAL.
    fn ibv_reg_mr_ex(pd: *mut ibv_pd, mr_init_attr: *mut ibv_mr_init_attr) -> *mut ibv_mr,
        on_panic = ptr::null_mut();
    {
        ensure!(pd_usable(pd) && !mr_init_attr.is_null(), libc::EINVAL, ptr::null_mut());
        // SAFETY: the caller's PD, checked usable, and attributes, checked non-NULL.
        unsafe { reg_mr_ex(pd, &*mr_init_attr) }
    }
}

export! {
    /// ibv_reg_buf_mr@@IBVERBS_1.17: registers `length` bytes at `addr`
    /// within a buffer of ibv_alloc_buf, as ibv_reg_mr_ex with the buffer and
    /// the address (see [`buf_to_attr`] for the rules). A NULL PD (or one
    /// without its context or device) or buffer is EINVAL.
    fn ibv_reg_buf_mr(pd: *mut ibv_pd, buf: *mut ibv_buf, addr: *mut c_void, length: usize, access: c_int)
        -> *mut ibv_mr, on_panic = ptr::null_mut();
    {
        ensure!(pd_usable(pd), libc::EINVAL, ptr::null_mut());
        let req = ibv_mr_init_attr {
            length,
            access,
            comp_mask: u64::from(IBV_REG_MR_MASK_BUF | IBV_REG_MR_MASK_ADDR),
            iova: 0,
            addr,
            fd: 0,
            fd_offset: 0,
            dmah: ptr::null_mut(),
            buf,
        };
        // SAFETY: the caller's PD, checked usable; the buffer is checked by
        // buf_to_attr before use.
        unsafe { reg_mr_ex(pd, &req) }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use rdma_util::ffi::errno;
    use crate::testkit::ctx::{no_ops, FakeCtx};
    use std::cell::RefCell;

    /// Everything the fake provider and the fork hooks saw, in order.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) enum Ev {
        DontFork(usize, usize),
        DoFork(usize, usize),
        /// reg_mr(pd, addr, length, iova, access).
        Reg(usize, usize, usize, u64, c_int),
        Dereg(usize),
        /// rereg_mr(vmr, flags, pd, addr, length, access).
        Rereg(usize, c_int, usize, usize, usize, c_int),
        /// reg_dmabuf_mr(pd, offset, length, iova, fd, access).
        RegDmabuf(usize, u64, usize, u64, c_int, c_int),
        /// reg_mr_ex(pd, attributes as the provider saw them).
        RegEx(usize, ExAttr),
    }

    /// An ibv_mr_init_attr as plain comparable values.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub(crate) struct ExAttr {
        pub(crate) length: usize,
        pub(crate) access: c_int,
        pub(crate) comp_mask: u64,
        pub(crate) iova: u64,
        pub(crate) addr: usize,
        pub(crate) fd: c_int,
        pub(crate) fd_offset: u64,
        pub(crate) dmah: usize,
        pub(crate) buf: usize,
    }

    impl From<&ibv_mr_init_attr> for ExAttr {
        fn from(a: &ibv_mr_init_attr) -> Self {
            ExAttr {
                length: a.length,
                access: a.access,
                comp_mask: a.comp_mask,
                iova: a.iova,
                addr: a.addr as usize,
                fd: a.fd,
                fd_offset: a.fd_offset,
                dmah: a.dmah as usize,
                buf: a.buf as usize,
            }
        }
    }

    impl ExAttr {
        fn to_c(self) -> ibv_mr_init_attr {
            ibv_mr_init_attr {
                length: self.length,
                access: self.access,
                comp_mask: self.comp_mask,
                iova: self.iova,
                addr: self.addr as *mut c_void,
                fd: self.fd,
                fd_offset: self.fd_offset,
                dmah: self.dmah as *mut _,
                buf: self.buf as *mut _,
            }
        }
    }

    #[derive(Default)]
    pub(crate) struct Script {
        pub(crate) log: Vec<Ev>,
        /// dontfork_range's result (errno set to it when non-zero).
        pub(crate) dontfork_ret: c_int,
        /// reg_mr fails with this errno when set.
        pub(crate) reg_fail: Option<c_int>,
        /// The mr_type/access the provider records (as ibv_cmd_reg_mr would).
        pub(crate) mr_type: ibv_mr_type,
        pub(crate) dereg_ret: c_int,
        /// dofork_range's result (errno set to it when non-zero).
        pub(crate) dofork_ret: c_int,
        /// rereg_mr's result, with errno set to `rereg_errno` when non-zero.
        pub(crate) rereg_ret: c_int,
        pub(crate) rereg_errno: c_int,
    }

    thread_local! {
        pub(crate) static S: RefCell<Script> = RefCell::new(Script::default());
    }

    fn log(e: Ev) {
        S.with(|s| s.borrow_mut().log.push(e));
    }

    /// Stand-ins for crate::fork's hooks in this module's unit tests, so the
    /// tests see each call and its place among the provider's.
    pub(crate) mod spy {
        use super::*;

        pub(crate) fn dontfork_range(base: *mut c_void, size: usize) -> c_int {
            log(Ev::DontFork(base as usize, size));
            let r = S.with(|s| s.borrow().dontfork_ret);
            if r != 0 {
                set_errno(r);
            }
            r
        }

        pub(crate) fn dofork_range(base: *mut c_void, size: usize) -> c_int {
            log(Ev::DoFork(base as usize, size));
            let r = S.with(|s| s.borrow().dofork_ret);
            if r != 0 {
                set_errno(r);
            }
            r
        }
    }

    unsafe extern "C" fn fake_reg_mr(pd: *mut ibv_pd, addr: *mut c_void, length: usize, iova: u64, access: c_int) -> *mut ibv_mr {
        log(Ev::Reg(pd as usize, addr as usize, length, iova, access));
        let (fail, mr_type) = S.with(|s| (s.borrow().reg_fail, s.borrow().mr_type));
        if let Some(e) = fail {
            set_errno(e);
            return ptr::null_mut();
        }
        // SAFETY: all-zero is a valid verbs_mr.
        let mut vmr: Box<verbs_mr> = Box::new(unsafe { std::mem::zeroed() });
        vmr.mr_type = mr_type;
        vmr.access = access;
        vmr.ibv_mr.lkey = 0x1234;
        Box::into_raw(vmr).cast()
    }

    unsafe extern "C" fn fake_dereg_mr(vmr: *mut verbs_mr) -> c_int {
        log(Ev::Dereg(vmr as usize));
        let r = S.with(|s| s.borrow().dereg_ret);
        if r == 0 {
            // SAFETY: created by fake_reg_mr (or by a test as a Box).
            drop(unsafe { Box::from_raw(vmr) });
        }
        r
    }

    unsafe extern "C" fn fake_rereg_mr(vmr: *mut verbs_mr, flags: c_int, pd: *mut ibv_pd, addr: *mut c_void,
                                       length: usize, access: c_int) -> c_int {
        log(Ev::Rereg(vmr as usize, flags, pd as usize, addr as usize, length, access));
        let (r, e) = S.with(|s| (s.borrow().rereg_ret, s.borrow().rereg_errno));
        if r != 0 {
            set_errno(e);
        }
        r
    }

    unsafe extern "C" fn fake_reg_dmabuf_mr(pd: *mut ibv_pd, offset: u64, length: usize, iova: u64, fd: c_int,
                                            access: c_int) -> *mut ibv_mr {
        log(Ev::RegDmabuf(pd as usize, offset, length, iova, fd, access));
        if let Some(e) = S.with(|s| s.borrow().reg_fail) {
            set_errno(e);
            return ptr::null_mut();
        }
        // SAFETY: all-zero is a valid verbs_mr.
        let mut vmr: Box<verbs_mr> = Box::new(unsafe { std::mem::zeroed() });
        vmr.mr_type = IBV_MR_TYPE_DMABUF_MR;
        vmr.ibv_mr.addr = ptr::dangling_mut();
        vmr.ibv_mr.lkey = 0x99;
        Box::into_raw(vmr).cast()
    }

    unsafe extern "C" fn fake_reg_mr_ex(pd: *mut ibv_pd, attr: *mut ibv_mr_init_attr) -> *mut ibv_mr {
        // SAFETY: the library's copy of the attributes.
        log(Ev::RegEx(pd as usize, ExAttr::from(unsafe { &*attr })));
        if let Some(e) = S.with(|s| s.borrow().reg_fail) {
            set_errno(e);
            return ptr::null_mut();
        }
        // SAFETY: all-zero is a valid verbs_mr.
        let mut vmr: Box<verbs_mr> = Box::new(unsafe { std::mem::zeroed() });
        // Junk where the library's values go: the tests see them replaced.
        vmr.ibv_mr.context = ptr::dangling_mut();
        vmr.ibv_mr.pd = ptr::dangling_mut();
        vmr.ibv_mr.addr = ptr::dangling_mut();
        vmr.ibv_mr.length = 1;
        vmr.ibv_mr.lkey = 0x55;
        Box::into_raw(vmr).cast()
    }

    /// A context of a PABI 65 provider with the fake reg_mr/dereg_mr/
    /// rereg_mr/reg_dmabuf_mr, and reg_mr_ex when `ex`; a PD on it.
    fn provider65(core_support: u64, ex: bool) -> (FakeCtx, Box<ibv_pd>) {
        S.with(|s| *s.borrow_mut() = Script::default());
        let mut c = FakeCtx::with_pabi(core_support, crate::pabi::Pabi::P65);
        let mut ops = no_ops();
        ops.reg_mr = Some(fake_reg_mr);
        ops.dereg_mr = Some(fake_dereg_mr);
        ops.rereg_mr = Some(fake_rereg_mr);
        ops.reg_dmabuf_mr = Some(fake_reg_dmabuf_mr);
        let mut ops65 = crate::context::ops65_of_34(&ops);
        if ex {
            ops65.reg_mr_ex = Some(fake_reg_mr_ex);
        }
        c.set_ops65(&ops65);
        let pd = Box::new(ibv_pd { context: c.ctx(), handle: 5 });
        (c, pd)
    }

    fn provider(core_support: u64) -> (FakeCtx, Box<ibv_pd>) {
        S.with(|s| *s.borrow_mut() = Script::default());
        let mut c = FakeCtx::new(core_support);
        let mut ops = no_ops();
        ops.reg_mr = Some(fake_reg_mr);
        ops.dereg_mr = Some(fake_dereg_mr);
        ops.rereg_mr = Some(fake_rereg_mr);
        ops.reg_dmabuf_mr = Some(fake_reg_dmabuf_mr);
        c.set_ops(&ops);
        let pd = Box::new(ibv_pd { context: c.ctx(), handle: 5 });
        (c, pd)
    }

    fn take_log() -> Vec<Ev> {
        S.with(|s| std::mem::take(&mut s.borrow_mut().log))
    }

    const LOCAL_WRITE: c_int = IBV_ACCESS_LOCAL_WRITE as c_int;
    const ODP: c_int = IBV_ACCESS_ON_DEMAND as c_int;

    #[test]
    fn reg_and_dereg_in_upstream_order() {
        let (c, mut pd) = provider(0);
        let pdp: *mut ibv_pd = &mut *pd;
        let mut buf = vec![0u8; 4096];
        let addr = buf.as_mut_ptr().cast::<c_void>();
        // SAFETY: our PD on a live fake context, a live buffer.
        let mr = unsafe { ibv_reg_mr_v11(pdp, addr, 4096, LOCAL_WRITE) };
        assert!(!mr.is_null());
        assert_eq!(
            take_log(),
            vec![Ev::DontFork(addr as usize, 4096), Ev::Reg(pdp as usize, addr as usize, 4096, addr as u64, LOCAL_WRITE)]
        );
        // SAFETY: the provider's MR.
        let m = unsafe { &*mr };
        assert_eq!((m.context, m.pd, m.addr, m.length, m.lkey), (pd.context, pdp, addr, 4096, 0x1234));
        // SAFETY: the MR just registered.
        assert_eq!(unsafe { ibv_dereg_mr_v11(mr) }, 0);
        assert_eq!(take_log(), vec![Ev::Dereg(mr as usize), Ev::DoFork(addr as usize, 4096)]);
        drop(c);
    }

    #[test]
    fn iova_forms_pass_their_iova() {
        let (_c, mut pd) = provider(0);
        let pdp: *mut ibv_pd = &mut *pd;
        let addr = 0x10000usize as *mut c_void;
        // SAFETY: our PD; the fake provider does not touch the memory.
        let mr = unsafe { ibv_reg_mr_iova(pdp, addr, 100, 0xabc000, LOCAL_WRITE) };
        assert!(!mr.is_null());
        // SAFETY: the provider's MR: addr is the buffer, not the iova.
        assert_eq!(unsafe { ((*mr).addr, (*mr).length) }, (addr, 100));
        // SAFETY: as above.
        let mr2 = unsafe { ibv_reg_mr_iova2(pdp, addr, 200, 0xdef000, LOCAL_WRITE as c_uint) };
        assert!(!mr2.is_null());
        assert_eq!(
            take_log(),
            vec![
                Ev::DontFork(0x10000, 100),
                Ev::Reg(pdp as usize, 0x10000, 100, 0xabc000, LOCAL_WRITE),
                Ev::DontFork(0x10000, 200),
                Ev::Reg(pdp as usize, 0x10000, 200, 0xdef000, LOCAL_WRITE),
            ]
        );
        // SAFETY: both MRs are live.
        unsafe {
            assert_eq!(ibv_dereg_mr_v11(mr), 0);
            assert_eq!(ibv_dereg_mr_v11(mr2), 0);
        }
    }

    #[test]
    fn optional_range_masked_without_core_support() {
        let all = LOCAL_WRITE | IBV_ACCESS_OPTIONAL_RANGE as c_int;
        for (core, expect) in [(0u64, LOCAL_WRITE), (IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS as u64, all)] {
            let (_c, mut pd) = provider(core);
            let pdp: *mut ibv_pd = &mut *pd;
            // SAFETY: our PD; the fake provider does not touch the memory.
            let mr = unsafe { ibv_reg_mr_v11(pdp, 0x2000 as *mut c_void, 8, all) };
            assert!(!mr.is_null());
            assert!(matches!(take_log()[1], Ev::Reg(_, _, _, _, a) if a == expect), "core_support {core}");
            // SAFETY: the MR just registered.
            assert_eq!(unsafe { ibv_dereg_mr_v11(mr) }, 0);
        }
    }

    #[test]
    fn odp_skips_the_fork_hooks() {
        let (_c, mut pd) = provider(0);
        let pdp: *mut ibv_pd = &mut *pd;
        // SAFETY: our PD; the fake provider does not touch the memory.
        let mr = unsafe { ibv_reg_mr_v11(pdp, 0x3000 as *mut c_void, 16, ODP | LOCAL_WRITE) };
        assert!(!mr.is_null());
        // SAFETY: the MR just registered.
        assert_eq!(unsafe { ibv_dereg_mr_v11(mr) }, 0);
        assert_eq!(take_log(), vec![Ev::Reg(pdp as usize, 0x3000, 16, 0x3000, ODP | LOCAL_WRITE), Ev::Dereg(mr as usize)]);
        // A failing ODP registration does not undo what it never did.
        S.with(|s| s.borrow_mut().reg_fail = Some(libc::EINVAL));
        // SAFETY: as above.
        assert!(unsafe { ibv_reg_mr_v11(pdp, 0x3000 as *mut c_void, 16, ODP) }.is_null());
        assert_eq!(take_log(), vec![Ev::Reg(pdp as usize, 0x3000, 16, 0x3000, ODP)]);
    }

    #[test]
    fn provider_failure_undoes_dontfork_and_keeps_errno() {
        let (_c, mut pd) = provider(0);
        let pdp: *mut ibv_pd = &mut *pd;
        S.with(|s| s.borrow_mut().reg_fail = Some(libc::EFAULT));
        set_errno(0);
        // SAFETY: our PD; the fake provider does not touch the memory.
        assert!(unsafe { ibv_reg_mr_v11(pdp, 0x4000 as *mut c_void, 32, LOCAL_WRITE) }.is_null());
        assert_eq!(errno(), libc::EFAULT);
        assert_eq!(
            take_log(),
            vec![Ev::DontFork(0x4000, 32), Ev::Reg(pdp as usize, 0x4000, 32, 0x4000, LOCAL_WRITE), Ev::DoFork(0x4000, 32)]
        );
    }

    #[test]
    fn dontfork_failure_stops_before_the_provider() {
        let (_c, mut pd) = provider(0);
        let pdp: *mut ibv_pd = &mut *pd;
        S.with(|s| s.borrow_mut().dontfork_ret = libc::ENOMEM);
        set_errno(0);
        // SAFETY: our PD.
        assert!(unsafe { ibv_reg_mr_v11(pdp, 0x5000 as *mut c_void, 64, LOCAL_WRITE) }.is_null());
        assert_eq!(errno(), libc::ENOMEM);
        assert_eq!(take_log(), vec![Ev::DontFork(0x5000, 64)]);
    }

    #[test]
    fn dereg_failure_and_non_plain_mrs_keep_dontfork() {
        let (_c, mut pd) = provider(0);
        let pdp: *mut ibv_pd = &mut *pd;
        // SAFETY: our PD; the fake provider does not touch the memory.
        let mr = unsafe { ibv_reg_mr_v11(pdp, 0x6000 as *mut c_void, 8, LOCAL_WRITE) };
        take_log();
        S.with(|s| s.borrow_mut().dereg_ret = libc::EBUSY);
        // SAFETY: the MR just registered (the provider keeps it on EBUSY).
        assert_eq!(unsafe { ibv_dereg_mr_v11(mr) }, libc::EBUSY);
        assert_eq!(take_log(), vec![Ev::Dereg(mr as usize)]);
        S.with(|s| s.borrow_mut().dereg_ret = 0);
        // SAFETY: still live.
        assert_eq!(unsafe { ibv_dereg_mr_v11(mr) }, 0);
        assert_eq!(take_log(), vec![Ev::Dereg(mr as usize), Ev::DoFork(0x6000, 8)]);

        for t in [IBV_MR_TYPE_NULL_MR, IBV_MR_TYPE_IMPORTED_MR, IBV_MR_TYPE_DMABUF_MR] {
            // SAFETY: all-zero is a valid verbs_mr.
            let mut vmr: Box<verbs_mr> = Box::new(unsafe { std::mem::zeroed() });
            vmr.mr_type = t;
            vmr.ibv_mr.context = pd.context;
            vmr.ibv_mr.addr = 0x7000 as *mut c_void;
            vmr.ibv_mr.length = 8;
            let p = Box::into_raw(vmr);
            // SAFETY: a provider-style MR on our context; the fake frees it.
            assert_eq!(unsafe { ibv_dereg_mr_v11(p.cast()) }, 0);
            assert_eq!(take_log(), vec![Ev::Dereg(p as usize)], "mr_type {t}");
        }
    }

    #[test]
    fn unimplemented_ops_are_eopnotsupp() {
        S.with(|s| *s.borrow_mut() = Script::default());
        let mut c = FakeCtx::new(0);
        let mut pd = ibv_pd { context: c.ctx(), handle: 0 };
        set_errno(0);
        // SAFETY: a PD on our context with the dummy ops.
        assert!(unsafe { ibv_reg_mr_v11(&mut pd, 0x8000 as *mut c_void, 8, 0) }.is_null());
        assert_eq!(errno(), libc::EOPNOTSUPP);
        assert_eq!(take_log(), vec![Ev::DontFork(0x8000, 8), Ev::DoFork(0x8000, 8)]);
        // SAFETY: all-zero is a valid verbs_mr.
        let mut vmr: verbs_mr = unsafe { std::mem::zeroed() };
        vmr.ibv_mr.context = c.ctx();
        // SAFETY: an MR on our context; the dummy op does not touch it.
        assert_eq!(unsafe { ibv_dereg_mr_v11(&mut vmr.ibv_mr) }, libc::EOPNOTSUPP);
        assert_eq!(take_log(), vec![]);
    }

    #[test]
    fn null_arguments_are_einval() {
        S.with(|s| *s.borrow_mut() = Script::default());
        let mut no_ctx = ibv_pd { context: ptr::null_mut(), handle: 0 };
        let mut ctx: ibv_context = {
            // SAFETY: all-zero is a valid ibv_context (device NULL).
            unsafe { std::mem::zeroed() }
        };
        let mut no_dev = ibv_pd { context: &mut ctx, handle: 0 };
        for pd in [ptr::null_mut(), &mut no_ctx as *mut _, &mut no_dev as *mut _] {
            set_errno(0);
            // SAFETY: unusable PDs are rejected before use.
            unsafe {
                assert!(ibv_reg_mr_v11(pd, ptr::null_mut(), 0, 0).is_null());
                assert_eq!(errno(), libc::EINVAL);
                assert!(ibv_reg_mr_iova(pd, ptr::null_mut(), 0, 0, 0).is_null());
                assert!(ibv_reg_mr_iova2(pd, ptr::null_mut(), 0, 0, 0).is_null());
                assert_eq!(errno(), libc::EINVAL);
            }
        }
        assert_eq!(take_log(), vec![]);
        // SAFETY: as above.
        assert_eq!(unsafe { ibv_dereg_mr_v11(ptr::null_mut()) }, libc::EINVAL);
        // SAFETY: all-zero is a valid ibv_mr (context NULL), rejected before use.
        let mut mr: ibv_mr = unsafe { std::mem::zeroed() };
        // SAFETY: as above.
        assert_eq!(unsafe { ibv_dereg_mr_v11(&mut mr) }, libc::EINVAL);
    }

    /// A registered MR of 0x1000 bytes at 0xa000 on `pd`, with the log cleared.
    fn registered(pd: *mut ibv_pd) -> *mut ibv_mr {
        // SAFETY: our PD; the fake provider does not touch the memory.
        let mr = unsafe { ibv_reg_mr_v11(pd, 0xa000 as *mut c_void, 0x1000, LOCAL_WRITE) };
        assert!(!mr.is_null());
        take_log();
        mr
    }

    const TRANSLATION: c_int = IBV_REREG_MR_CHANGE_TRANSLATION as c_int;
    const CHANGE_PD: c_int = IBV_REREG_MR_CHANGE_PD as c_int;
    const CHANGE_ACCESS: c_int = IBV_REREG_MR_CHANGE_ACCESS as c_int;

    #[test]
    fn rereg_every_flag_combination() {
        let (_c, mut pd) = provider(0);
        let pdp: *mut ibv_pd = &mut *pd;
        let mut pd2 = ibv_pd { context: pd.context, handle: 6 };
        let pd2p: *mut ibv_pd = &mut pd2;
        for flags in 0..=IBV_REREG_MR_FLAGS_SUPPORTED as c_int {
            for access in [0, LOCAL_WRITE] {
                for provider_err in [0, libc::EACCES] {
                    let what = format!("flags {flags} access {access} provider {provider_err}");
                    let mr = registered(pdp);
                    S.with(|s| {
                        let mut s = s.borrow_mut();
                        s.rereg_ret = if provider_err != 0 { -1 } else { 0 };
                        s.rereg_errno = provider_err;
                    });
                    set_errno(0);
                    // SAFETY: a live MR of the fake provider.
                    let ret = unsafe { ibv_rereg_mr(mr, flags, pd2p, 0xb000 as *mut c_void, 0x2000, access) };
                    let log = take_log();
                    // SAFETY: still live.
                    let m = unsafe { &*mr };
                    let translate = flags & TRANSLATION != 0;
                    if access != 0 && flags & CHANGE_ACCESS == 0 {
                        assert_eq!((ret, errno()), (IBV_REREG_MR_ERR_INPUT, libc::EINVAL), "{what}");
                        assert_eq!(log, vec![], "{what}");
                    } else {
                        let call = Ev::Rereg(mr as usize, flags, pd2p as usize, 0xb000, 0x2000, access);
                        let mut want = vec![];
                        if translate {
                            want.push(Ev::DontFork(0xb000, 0x2000));
                        }
                        want.push(call);
                        if translate {
                            want.push(if provider_err == 0 { Ev::DoFork(0xa000, 0x1000) } else { Ev::DoFork(0xb000, 0x2000) });
                        }
                        assert_eq!(log, want, "{what}");
                        if provider_err == 0 {
                            assert_eq!(ret, 0, "{what}");
                        } else {
                            assert_eq!((ret, errno()), (IBV_REREG_MR_ERR_CMD, provider_err), "{what}");
                        }
                    }
                    let done = ret == 0;
                    let want_pd = if done && flags & CHANGE_PD != 0 { pd2p } else { pdp };
                    let want_range = if done && translate { (0xb000, 0x2000) } else { (0xa000, 0x1000) };
                    assert_eq!((m.pd, m.addr as usize, m.length), (want_pd, want_range.0, want_range.1), "{what}");
                    // SAFETY: the live MR, released.
                    assert_eq!(unsafe { ibv_dereg_mr_v11(mr) }, 0);
                    take_log();
                }
            }
        }
    }

    #[test]
    fn rereg_fork_step_failures_have_their_codes() {
        let (_c, mut pd) = provider(0);
        let pdp: *mut ibv_pd = &mut *pd;
        let mr = registered(pdp);
        let new = 0xc000 as *mut c_void;

        // Marking the new range fails: the provider is never asked.
        S.with(|s| s.borrow_mut().dontfork_ret = libc::ENOMEM);
        set_errno(0);
        // SAFETY: a live MR of the fake provider.
        assert_eq!(unsafe { ibv_rereg_mr(mr, TRANSLATION, ptr::null_mut(), new, 8, 0) }, IBV_REREG_MR_ERR_DONT_FORK_NEW);
        assert_eq!(errno(), libc::ENOMEM);
        assert_eq!(take_log(), vec![Ev::DontFork(0xc000, 8)]);
        S.with(|s| s.borrow_mut().dontfork_ret = 0);

        // The provider fails and unmarking the new range fails too.
        S.with(|s| {
            let mut s = s.borrow_mut();
            s.rereg_ret = -1;
            s.rereg_errno = libc::EIO;
            s.dofork_ret = libc::EFAULT;
        });
        // SAFETY: as above.
        assert_eq!(unsafe { ibv_rereg_mr(mr, TRANSLATION, ptr::null_mut(), new, 8, 0) },
                   IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW);
        assert_eq!(errno(), libc::EFAULT);
        assert_eq!(take_log(), vec![Ev::DontFork(0xc000, 8), Ev::Rereg(mr as usize, TRANSLATION, 0, 0xc000, 8, 0),
                                    Ev::DoFork(0xc000, 8)]);

        // The provider succeeds but unmarking the old range fails: the MR
        // has its new range all the same.
        S.with(|s| s.borrow_mut().rereg_ret = 0);
        // SAFETY: as above.
        assert_eq!(unsafe { ibv_rereg_mr(mr, TRANSLATION, ptr::null_mut(), new, 8, 0) }, IBV_REREG_MR_ERR_DO_FORK_OLD);
        assert_eq!(take_log(), vec![Ev::DontFork(0xc000, 8), Ev::Rereg(mr as usize, TRANSLATION, 0, 0xc000, 8, 0),
                                    Ev::DoFork(0xa000, 0x1000)]);
        // SAFETY: as above.
        assert_eq!(unsafe { ((*mr).addr, (*mr).length) }, (new, 8));

        // Any non-zero provider result is "the command failed", even a
        // positive errno value.
        S.with(|s| {
            let mut s = s.borrow_mut();
            s.dofork_ret = 0;
            s.rereg_ret = libc::EINVAL;
            s.rereg_errno = libc::EINVAL;
        });
        // SAFETY: as above.
        assert_eq!(unsafe { ibv_rereg_mr(mr, CHANGE_ACCESS, ptr::null_mut(), ptr::null_mut(), 0, 1) }, IBV_REREG_MR_ERR_CMD);
        assert_eq!(take_log(), vec![Ev::Rereg(mr as usize, CHANGE_ACCESS, 0, 0, 0, 1)]);
    }

    #[test]
    fn rereg_input_errors() {
        let (_c, mut pd) = provider(0);
        let pdp: *mut ibv_pd = &mut *pd;
        let mr = registered(pdp);
        let b = 0xd000 as *mut c_void;
        for (flags, addr, len, access) in [
            (8, b, 8, 0),
            (-1, b, 8, 0),
            (IBV_REREG_MR_FLAGS_SUPPORTED as c_int | 0x100, b, 8, 0),
            (TRANSLATION, b, 0, 0),
            (TRANSLATION, ptr::null_mut(), 8, 0),
            (CHANGE_PD, ptr::null_mut(), 0, LOCAL_WRITE),
        ] {
            set_errno(0);
            // SAFETY: a live MR of the fake provider.
            let ret = unsafe { ibv_rereg_mr(mr, flags, pdp, addr, len, access) };
            assert_eq!((ret, errno()), (IBV_REREG_MR_ERR_INPUT, libc::EINVAL), "flags {flags:#x} len {len}");
        }
        assert_eq!(take_log(), vec![]);
        // Only plain registrations can be changed.
        for t in [IBV_MR_TYPE_NULL_MR, IBV_MR_TYPE_IMPORTED_MR, IBV_MR_TYPE_DMABUF_MR] {
            // SAFETY: all-zero is a valid verbs_mr.
            let mut vmr: verbs_mr = unsafe { std::mem::zeroed() };
            vmr.mr_type = t;
            vmr.ibv_mr.context = pd.context;
            set_errno(0);
            // SAFETY: a provider-style MR on our context.
            let ret = unsafe { ibv_rereg_mr(&mut vmr.ibv_mr, CHANGE_ACCESS, ptr::null_mut(), ptr::null_mut(), 0, 1) };
            assert_eq!((ret, errno()), (IBV_REREG_MR_ERR_INPUT, libc::EINVAL), "mr_type {t}");
        }
        assert_eq!(take_log(), vec![]);
        // SAFETY: the live MR, released.
        assert_eq!(unsafe { ibv_dereg_mr_v11(mr) }, 0);
    }

    #[test]
    fn rereg_without_provider_op_is_a_command_error() {
        S.with(|s| *s.borrow_mut() = Script::default());
        let mut c = FakeCtx::new(0);
        // SAFETY: all-zero is a valid verbs_mr (a plain MR).
        let mut vmr: verbs_mr = unsafe { std::mem::zeroed() };
        vmr.ibv_mr.context = c.ctx();
        vmr.ibv_mr.addr = 0xe000 as *mut c_void;
        vmr.ibv_mr.length = 16;
        set_errno(0);
        // SAFETY: an MR on our context with the dummy ops.
        let ret = unsafe { ibv_rereg_mr(&mut vmr.ibv_mr, TRANSLATION, ptr::null_mut(), 0xf000 as *mut c_void, 32, 0) };
        assert_eq!((ret, errno()), (IBV_REREG_MR_ERR_CMD, libc::EOPNOTSUPP));
        assert_eq!(take_log(), vec![Ev::DontFork(0xf000, 32), Ev::DoFork(0xf000, 32)]);
        assert_eq!((vmr.ibv_mr.addr as usize, vmr.ibv_mr.length), (0xe000, 16));
    }

    #[test]
    fn rereg_null_arguments_are_input_errors() {
        set_errno(0);
        // SAFETY: NULL is rejected before use.
        assert_eq!(unsafe { ibv_rereg_mr(ptr::null_mut(), 0, ptr::null_mut(), ptr::null_mut(), 0, 0) }, IBV_REREG_MR_ERR_INPUT);
        assert_eq!(errno(), libc::EINVAL);
        // SAFETY: all-zero is a valid verbs_mr (context NULL), rejected before use.
        let mut vmr: verbs_mr = unsafe { std::mem::zeroed() };
        set_errno(0);
        // SAFETY: as above.
        assert_eq!(unsafe { ibv_rereg_mr(&mut vmr.ibv_mr, 0, ptr::null_mut(), ptr::null_mut(), 0, 0) }, IBV_REREG_MR_ERR_INPUT);
        assert_eq!(errno(), libc::EINVAL);
    }

    #[test]
    fn dmabuf_registration() {
        let (_c, mut pd) = provider(0);
        let pdp: *mut ibv_pd = &mut *pd;
        // SAFETY: our PD; the fake provider does not touch the dma-buf.
        let mr = unsafe { ibv_reg_dmabuf_mr(pdp, 0x3000, 0x1000, 0x77000, 9, LOCAL_WRITE) };
        assert!(!mr.is_null());
        // No fork marks: the memory is not the process's.
        assert_eq!(take_log(), vec![Ev::RegDmabuf(pdp as usize, 0x3000, 0x1000, 0x77000, 9, LOCAL_WRITE)]);
        // SAFETY: the provider's MR.
        let m = unsafe { &*mr };
        assert_eq!((m.context, m.pd, m.addr as usize, m.length, m.lkey), (pd.context, pdp, 0x3000, 0x1000, 0x99));
        // Deregistration does not unmark anything either.
        // SAFETY: the MR just registered.
        assert_eq!(unsafe { ibv_dereg_mr_v11(mr) }, 0);
        assert_eq!(take_log(), vec![Ev::Dereg(mr as usize)]);

        S.with(|s| s.borrow_mut().reg_fail = Some(libc::EBADF));
        set_errno(0);
        // SAFETY: as above.
        assert!(unsafe { ibv_reg_dmabuf_mr(pdp, 0, 8, 0, -1, 0) }.is_null());
        assert_eq!(errno(), libc::EBADF);
        assert_eq!(take_log(), vec![Ev::RegDmabuf(pdp as usize, 0, 8, 0, -1, 0)]);
    }

    #[test]
    fn dmabuf_unimplemented_and_null() {
        S.with(|s| *s.borrow_mut() = Script::default());
        let mut c = FakeCtx::new(0);
        let mut pd = ibv_pd { context: c.ctx(), handle: 0 };
        set_errno(0);
        // SAFETY: a PD on our context with the dummy ops.
        assert!(unsafe { ibv_reg_dmabuf_mr(&mut pd, 0, 8, 0, 3, 0) }.is_null());
        assert_eq!(errno(), libc::EOPNOTSUPP);
        let mut no_ctx = ibv_pd { context: ptr::null_mut(), handle: 0 };
        for p in [ptr::null_mut(), &mut no_ctx as *mut ibv_pd] {
            set_errno(0);
            // SAFETY: rejected before use.
            assert!(unsafe { ibv_reg_dmabuf_mr(p, 0, 8, 0, 3, 0) }.is_null());
            assert_eq!(errno(), libc::EINVAL);
        }
        assert_eq!(take_log(), vec![]);
    }

    const M_IOVA: u64 = IBV_REG_MR_MASK_IOVA as u64;
    const M_ADDR: u64 = IBV_REG_MR_MASK_ADDR as u64;
    const M_FD: u64 = IBV_REG_MR_MASK_FD as u64;
    const M_FD_OFFSET: u64 = IBV_REG_MR_MASK_FD_OFFSET as u64;
    const M_DMAH: u64 = IBV_REG_MR_MASK_DMAH as u64;
    const M_BUF: u64 = IBV_REG_MR_MASK_BUF as u64;
    const M_DMABUF: u64 = M_FD | M_FD_OFFSET | M_IOVA;

    /// ibv_reg_mr_ex with `req`, checking that the caller's attributes are
    /// left as they were.
    fn reg_ex(pd: *mut ibv_pd, req: ExAttr) -> *mut ibv_mr {
        let mut a = req.to_c();
        // SAFETY: our PD (or a bad one the verb rejects) and local attributes;
        // the fake providers do not touch the memory.
        let mr = unsafe { ibv_reg_mr_ex(pd, &mut a) };
        assert_eq!(ExAttr::from(&a), req, "the caller's attributes are read only");
        mr
    }

    /// The MR's (context, pd, addr, length, lkey).
    fn fields(mr: *mut ibv_mr) -> (*mut ibv_context, *mut ibv_pd, usize, usize, u32) {
        assert!(!mr.is_null());
        // SAFETY: a live MR of a fake provider.
        let m = unsafe { &*mr };
        (m.context, m.pd, m.addr as usize, m.length, m.lkey)
    }

    #[test]
    fn reg_mr_ex_hands_the_provider_only_the_valid_fields() {
        let (_c, mut pd) = provider65(0, true);
        let pdp: *mut ibv_pd = &mut *pd;
        let unknown = 1u64 << 40;
        // fd, fd_offset and buf are junk the mask does not mark valid.
        let req = ExAttr {
            length: 0x1000, access: LOCAL_WRITE, comp_mask: M_ADDR | M_IOVA | M_DMAH | unknown, iova: 0x9000,
            addr: 0xa000, fd: 77, fd_offset: 0x44, dmah: 0xd0, buf: 0xb0,
        };
        let mr = reg_ex(pdp, req);
        let seen = ExAttr { fd: 0, fd_offset: 0, buf: 0, ..req };
        assert_eq!(take_log(), vec![Ev::DontFork(0xa000, 0x1000), Ev::RegEx(pdp as usize, seen)]);
        assert_eq!(fields(mr), (pd.context, pdp, 0xa000, 0x1000, 0x55));
        // An ordinary MR: its deregistration releases the range.
        // SAFETY: the MR just registered.
        assert_eq!(unsafe { ibv_dereg_mr_v11(mr) }, 0);
        assert_eq!(take_log(), vec![Ev::Dereg(mr as usize), Ev::DoFork(0xa000, 0x1000)]);

        // Nothing valid but the length and access: all else is zero.
        let junk = ExAttr { length: 8, access: 0, comp_mask: 0, iova: 1, addr: 2, fd: 3, fd_offset: 4, dmah: 5, buf: 6 };
        let mr = reg_ex(pdp, junk);
        let seen = ExAttr { length: 8, ..ExAttr::default() };
        // The fork range starts at NULL, as upstream's does.
        assert_eq!(take_log(), vec![Ev::DontFork(0, 8), Ev::RegEx(pdp as usize, seen)]);
        // No address and no dma-buf offset: the MR's address is 0.
        assert_eq!(fields(mr), (pd.context, pdp, 0, 8, 0x55));
    }

    #[test]
    fn reg_mr_ex_fork_protection() {
        let (_c, mut pd) = provider65(0, true);
        let pdp: *mut ibv_pd = &mut *pd;
        let p = pdp as usize;
        let plain = ExAttr { length: 64, access: LOCAL_WRITE, comp_mask: M_ADDR, addr: 0x4000, ..ExAttr::default() };

        // On-demand paging: no fork hooks.
        let odp = ExAttr { access: ODP | LOCAL_WRITE, ..plain };
        assert!(!reg_ex(pdp, odp).is_null());
        assert_eq!(take_log(), vec![Ev::RegEx(p, odp)]);

        // A dma-buf: no fork hooks, and the MR's address is the offset.
        let dmabuf = ExAttr { comp_mask: M_DMABUF, fd: 5, fd_offset: 0x3000, iova: 0x77000, addr: 0, ..plain };
        let mr = reg_ex(pdp, dmabuf);
        assert_eq!(take_log(), vec![Ev::RegEx(p, dmabuf)]);
        assert_eq!(fields(mr), (pd.context, pdp, 0x3000, 64, 0x55));

        // The provider fails: the range is released again, its errno kept.
        S.with(|s| s.borrow_mut().reg_fail = Some(libc::EFAULT));
        set_errno(0);
        assert!(reg_ex(pdp, plain).is_null());
        assert_eq!(errno(), libc::EFAULT);
        assert_eq!(take_log(), vec![Ev::DontFork(0x4000, 64), Ev::RegEx(p, plain), Ev::DoFork(0x4000, 64)]);
        for req in [odp, dmabuf] {
            assert!(reg_ex(pdp, req).is_null());
            assert_eq!(take_log(), vec![Ev::RegEx(p, req)]);
        }
        S.with(|s| s.borrow_mut().reg_fail = None);

        // Marking the range fails: the provider is never asked.
        S.with(|s| s.borrow_mut().dontfork_ret = libc::ENOMEM);
        set_errno(0);
        assert!(reg_ex(pdp, plain).is_null());
        assert_eq!(errno(), libc::ENOMEM);
        assert_eq!(take_log(), vec![Ev::DontFork(0x4000, 64)]);
    }

    #[test]
    fn reg_mr_ex_optional_access_needs_core_support() {
        let all = LOCAL_WRITE | IBV_ACCESS_OPTIONAL_RANGE as c_int;
        for (core, expect) in [(0u64, LOCAL_WRITE), (IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS as u64, all)] {
            let (_c, mut pd) = provider65(core, true);
            let pdp: *mut ibv_pd = &mut *pd;
            let req = ExAttr { length: 8, access: all, comp_mask: M_ADDR, addr: 0x2000, ..ExAttr::default() };
            assert!(!reg_ex(pdp, req).is_null());
            assert_eq!(take_log()[1], Ev::RegEx(pdp as usize, ExAttr { access: expect, ..req }), "core_support {core}");
        }
    }

    #[test]
    fn reg_mr_ex_without_provider_op_uses_the_older_registrations() {
        // A provider of 65 without reg_mr_ex, and one of 34, which cannot have it.
        for pabi65 in [true, false] {
            let (_c, mut pd) = if pabi65 { provider65(0, false) } else { provider(0) };
            let pdp: *mut ibv_pd = &mut *pd;
            let p = pdp as usize;
            let base = ExAttr { length: 0x100, access: LOCAL_WRITE, addr: 0x6000, ..ExAttr::default() };

            // By address; the I/O virtual address is the address unless given.
            let mr = reg_ex(pdp, ExAttr { comp_mask: M_ADDR, iova: 0x1234, ..base });
            assert_eq!(take_log(), vec![Ev::DontFork(0x6000, 0x100), Ev::Reg(p, 0x6000, 0x100, 0x6000, LOCAL_WRITE)]);
            assert_eq!(fields(mr), (pd.context, pdp, 0x6000, 0x100, 0x1234));
            assert!(!reg_ex(pdp, ExAttr { comp_mask: M_ADDR | M_IOVA, iova: 0xf000, ..base }).is_null());
            assert_eq!(take_log(), vec![Ev::DontFork(0x6000, 0x100), Ev::Reg(p, 0x6000, 0x100, 0xf000, LOCAL_WRITE)]);

            // By dma-buf: fd, offset and I/O virtual address all needed.
            let dmabuf = ExAttr { comp_mask: M_DMABUF, addr: 0, fd: 7, fd_offset: 0x2000, iova: 0x88000, ..base };
            let mr = reg_ex(pdp, dmabuf);
            assert_eq!(take_log(), vec![Ev::RegDmabuf(p, 0x2000, 0x100, 0x88000, 7, LOCAL_WRITE)]);
            assert_eq!(fields(mr), (pd.context, pdp, 0x2000, 0x100, 0x99));

            // Contradictory or incomplete requests: EINVAL, the fork hooks
            // bracketing the failure wherever the request is not a dma-buf.
            let a = base.addr;
            for (mask, hooks) in [
                (M_FD, false),
                (M_FD | M_FD_OFFSET, false),
                (M_FD | M_IOVA, false),
                (M_DMABUF | M_ADDR, false),
                (0, true),
                (M_IOVA, true),
                (M_ADDR | M_FD_OFFSET, true),
            ] {
                let req = ExAttr { comp_mask: mask, fd: 7, fd_offset: 0x2000, ..base };
                set_errno(0);
                assert!(reg_ex(pdp, req).is_null(), "mask {mask:#x}");
                assert_eq!(errno(), libc::EINVAL, "mask {mask:#x}");
                let start = if mask & M_ADDR != 0 { a } else { 0 };
                let want = if hooks { vec![Ev::DontFork(start, 0x100), Ev::DoFork(start, 0x100)] } else { vec![] };
                assert_eq!(take_log(), want, "mask {mask:#x}");
            }

            // What the older registrations cannot express: EOPNOTSUPP.
            for mask in [M_ADDR | M_DMAH, M_ADDR | (1 << 6), M_ADDR | (1 << 63)] {
                set_errno(0);
                assert!(reg_ex(pdp, ExAttr { comp_mask: mask, dmah: 0xd0, ..base }).is_null(), "mask {mask:#x}");
                assert_eq!(errno(), libc::EOPNOTSUPP, "mask {mask:#x}");
                assert_eq!(take_log(), vec![Ev::DontFork(a, 0x100), Ev::DoFork(a, 0x100)], "mask {mask:#x}");
            }
        }

        // No registration op at all: the default reg_mr's EOPNOTSUPP.
        S.with(|s| *s.borrow_mut() = Script::default());
        let mut c = FakeCtx::with_pabi(0, crate::pabi::Pabi::P65);
        let mut pd = ibv_pd { context: c.ctx(), handle: 0 };
        set_errno(0);
        assert!(reg_ex(&mut pd, ExAttr { length: 8, comp_mask: M_ADDR, addr: 0x8000, ..ExAttr::default() }).is_null());
        assert_eq!(errno(), libc::EOPNOTSUPP);
        assert_eq!(take_log(), vec![Ev::DontFork(0x8000, 8), Ev::DoFork(0x8000, 8)]);
    }

    /// A buffer handle of 0x4000 bytes at 0x10000 on `pd`.
    fn buf_on(pd: *mut ibv_pd, dmabuf_fd: c_int) -> ibv_buf {
        ibv_buf { addr: 0x10000 as *mut c_void, size: 0x4000, pd, dmabuf_fd }
    }

    #[test]
    fn buffers_register_by_address_or_by_their_dmabuf() {
        let (_c, mut pd) = provider65(0, true);
        let pdp: *mut ibv_pd = &mut *pd;
        let p = pdp as usize;
        let mut plain = buf_on(pdp, -1);
        let mut dma = buf_on(pdp, 9);
        let (pb, db) = (&mut plain as *mut ibv_buf, &mut dma as *mut ibv_buf);

        // SAFETY: our PD and buffer handle; the fake provider touches no memory.
        let mr = unsafe { ibv_reg_buf_mr(pdp, pb, 0x11000 as *mut c_void, 0x1000, LOCAL_WRITE) };
        let seen = ExAttr { length: 0x1000, access: LOCAL_WRITE, comp_mask: M_ADDR, addr: 0x11000, buf: pb as usize,
                            ..ExAttr::default() };
        assert_eq!(take_log(), vec![Ev::DontFork(0x11000, 0x1000), Ev::RegEx(p, seen)]);
        assert_eq!(fields(mr), (pd.context, pdp, 0x11000, 0x1000, 0x55));

        // Behind a dma-buf: registered through it, at the offset in the
        // buffer, the address as I/O virtual address; no fork hooks.
        // SAFETY: as above.
        let mr = unsafe { ibv_reg_buf_mr(pdp, db, 0x11000 as *mut c_void, 0x1000, LOCAL_WRITE) };
        let seen = ExAttr { comp_mask: M_DMABUF, iova: 0x11000, fd: 9, fd_offset: 0x1000, buf: db as usize, ..seen };
        assert_eq!(take_log(), vec![Ev::RegEx(p, seen)]);
        assert_eq!(fields(mr), (pd.context, pdp, 0x1000, 0x1000, 0x55));

        // Through ibv_reg_mr_ex: other valid bits are kept; an I/O virtual
        // address is the caller's to choose for memory by address.
        let req = ExAttr { length: 0x10, access: 0, comp_mask: M_BUF | M_ADDR | M_IOVA | M_DMAH, iova: 0xe000,
                           addr: 0x10000, dmah: 0xd0, buf: pb as usize, ..ExAttr::default() };
        assert!(!reg_ex(pdp, req).is_null());
        assert_eq!(take_log(), vec![Ev::DontFork(0x10000, 0x10), Ev::RegEx(p, ExAttr { comp_mask: M_ADDR | M_IOVA | M_DMAH, ..req })]);
        let req = ExAttr { comp_mask: M_BUF | M_ADDR | M_DMAH, iova: 0, buf: db as usize, ..req };
        assert!(!reg_ex(pdp, req).is_null());
        let seen = ExAttr { comp_mask: M_DMABUF | M_DMAH, iova: 0x10000, fd: 9, fd_offset: 0, ..req };
        assert_eq!(take_log(), vec![Ev::RegEx(p, seen)]);

        // Only -1 means "no dma-buf": any other value is taken for one.
        let mut odd = buf_on(pdp, -2);
        // SAFETY: as above.
        assert!(!unsafe { ibv_reg_buf_mr(pdp, &mut odd, 0x10000 as *mut c_void, 8, 0) }.is_null());
        assert!(matches!(take_log()[..], [Ev::RegEx(_, ExAttr { comp_mask: M_DMABUF, fd: -2, .. })]));

        // The whole buffer, and an empty range at its end, are within it.
        for (addr, len) in [(0x10000, 0x4000), (0x14000, 0)] {
            // SAFETY: as above.
            assert!(!unsafe { ibv_reg_buf_mr(pdp, pb, addr as *mut c_void, len, 0) }.is_null(), "{addr:#x}+{len:#x}");
            assert_eq!(take_log().len(), 2);
        }
    }

    #[test]
    fn buffer_registrations_outside_the_rules_are_einval() {
        let (_c, mut pd) = provider65(0, true);
        let pdp: *mut ibv_pd = &mut *pd;
        let mut other_pd = ibv_pd { context: pd.context, handle: 6 };
        let mut plain = buf_on(pdp, -1);
        let mut dma = buf_on(pdp, 9);
        let mut foreign = buf_on(&mut other_pd, -1);
        let (pb, db) = (&mut plain as *mut ibv_buf as usize, &mut dma as *mut ibv_buf as usize);
        let req = ExAttr { length: 0x100, comp_mask: M_BUF | M_ADDR, addr: 0x10000, buf: pb, ..ExAttr::default() };
        for (what, r) in [
            ("another PD's buffer", ExAttr { buf: &mut foreign as *mut ibv_buf as usize, ..req }),
            ("no address", ExAttr { comp_mask: M_BUF, ..req }),
            ("before the buffer", ExAttr { addr: 0xffff, ..req }),
            ("past its end", ExAttr { addr: 0x14001, length: 0, ..req }),
            ("running over its end", ExAttr { addr: 0x13000, length: 0x1001, ..req }),
            ("length overflowing", ExAttr { addr: 0x10001, length: usize::MAX, ..req }),
            ("also a dma-buf fd", ExAttr { comp_mask: M_BUF | M_ADDR | M_FD, ..req }),
            ("also a dma-buf offset", ExAttr { comp_mask: M_BUF | M_ADDR | M_FD_OFFSET, ..req }),
            ("an iova for a dma-buf buffer", ExAttr { comp_mask: M_BUF | M_ADDR | M_IOVA, buf: db, ..req }),
            ("no buffer", ExAttr { buf: 0, ..req }),
        ] {
            set_errno(0);
            assert!(reg_ex(pdp, r).is_null(), "{what}");
            assert_eq!(errno(), libc::EINVAL, "{what}");
            assert_eq!(take_log(), vec![], "{what}");
        }
        set_errno(0);
        // SAFETY: our PD; the NULL buffer is rejected before use.
        assert!(unsafe { ibv_reg_buf_mr(pdp, ptr::null_mut(), 0x10000 as *mut c_void, 8, 0) }.is_null());
        assert_eq!(errno(), libc::EINVAL);
        assert_eq!(take_log(), vec![]);
    }

    #[test]
    fn default_buffers_register_through_reg_mr() {
        let (_c, mut pd) = provider(0);
        let pdp: *mut ibv_pd = &mut *pd;
        let mut h: *mut ibv_buf = ptr::null_mut();
        // SAFETY: our PD; the library's default buffer ops.
        let mem = unsafe { crate::buf::ibv_alloc_buf(pdp, 8192, &mut h) };
        assert!(!mem.is_null());
        let at = mem as usize + 4096;
        // SAFETY: our PD and the buffer's handle.
        let mr = unsafe { ibv_reg_buf_mr(pdp, h, at as *mut c_void, 4096, LOCAL_WRITE) };
        assert_eq!(take_log(), vec![Ev::DontFork(at, 4096), Ev::Reg(pdp as usize, at, 4096, at as u64, LOCAL_WRITE)]);
        assert_eq!(fields(mr), (pd.context, pdp, at, 4096, 0x1234));
        // SAFETY: the MR, then the buffer.
        unsafe {
            assert_eq!(ibv_dereg_mr_v11(mr), 0);
            crate::buf::ibv_free_buf(h);
        }
    }

    #[test]
    fn reg_mr_ex_null_arguments_are_einval() {
        let (_c, mut pd) = provider65(0, true);
        let mut no_ctx = ibv_pd { context: ptr::null_mut(), handle: 0 };
        // SAFETY: all-zero is a valid ibv_context (device NULL).
        let mut ctx: ibv_context = unsafe { std::mem::zeroed() };
        let mut no_dev = ibv_pd { context: &mut ctx, handle: 0 };
        let req = ExAttr { length: 8, comp_mask: M_ADDR, addr: 0x1000, ..ExAttr::default() };
        let mut b = buf_on(&mut *pd, -1);
        for p in [ptr::null_mut(), &mut no_ctx as *mut ibv_pd, &mut no_dev as *mut ibv_pd] {
            set_errno(0);
            assert!(reg_ex(p, req).is_null());
            assert_eq!(errno(), libc::EINVAL);
            set_errno(0);
            // SAFETY: the bad PD is rejected before use.
            assert!(unsafe { ibv_reg_buf_mr(p, &mut b, 0x10000 as *mut c_void, 8, 0) }.is_null());
            assert_eq!(errno(), libc::EINVAL);
        }
        set_errno(0);
        // SAFETY: our PD; NULL attributes are rejected before use.
        assert!(unsafe { ibv_reg_mr_ex(&mut *pd, ptr::null_mut()) }.is_null());
        assert_eq!(errno(), libc::EINVAL);
        assert_eq!(take_log(), vec![]);
    }
}
