//! Memory regions: ibv_reg_mr (and its _iova/_iova2 forms), ibv_reg_dmabuf_mr,
//! ibv_rereg_mr and ibv_dereg_mr (verbs.c).
//!
//! Registration brackets the provider call with the fork-safety hooks: the
//! range is marked "don't copy on fork" first and unmarked again if the
//! provider fails; deregistration unmarks it once the provider has released
//! the MR. On-demand-paging MRs never pin memory, so they skip both.

use std::ffi::{c_int, c_uint, c_void};
use std::ptr;

use crate::abi::driver::*;
use crate::abi::kern::IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS;
use crate::abi::verbs::*;
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
}
