//! The CM's list of RDMA devices ("cma devices"): one entry per libibverbs
//! device, opened lazily, with the protection domain (and XRC domain) that
//! ids on it share, and reference counts held by ids and by
//! `rdma_get_devices` lists.
//!
//! Semantics follow upstream: the list is filled on first use
//! (`ucma_init`), kept in ibv-index order (GUID order when the kernel gives
//! no index), and re-synchronised with `ibv_get_device_list` by
//! `rdma_get_devices` and whenever the kernel names a device (by GUID and
//! index) that is not in the list. Devices that disappeared are dropped, or
//! marked dead while still referenced and dropped with their last
//! reference. An entry that fails to open is marked dead.
//!
//! Hot-plug (devices added or removed while the process runs, e.g.
//! `rdma link add rxe1 type rxe netdev X`). Upstream's re-sync can go wrong
//! in three ways, which this implementation avoids:
//! 1. It sorts both device arrays with a comparator that truncates the
//!    difference of two pointers to `int`, then merges them assuming a
//!    consistent pointer order. Pointers more than 2 GiB apart compare
//!    wrongly, so the merge can take a device present in both lists for
//!    removed (killing an entry in use and adding a duplicate) or miss an
//!    added one. We compare the lists as sets, which needs no order.
//! 2. When libibverbs reports no device at all (the last device was
//!    removed), it returns ENODEV without touching the list, so entries of
//!    removed devices stay alive: later lookups by GUID (kernels without
//!    ibdev_index) match them and hand out a context of a gone device. We
//!    treat an empty list as "every device went away" (still failing the
//!    call with ENODEV, as upstream).
//! 3. An entry whose device was removed but is still referenced is kept
//!    with a pointer into a freed device list; upstream's merge never looks
//!    at it again, and neither do we: removal candidates are only entries
//!    whose device was in the previous list, and new devices are those not
//!    in the previous list, so a recycled address can't be confused with a
//!    dead entry.

use crate::abi::verbs::*;
use rdma_util::ffi::errno;
use core::ffi::c_int;
use parking_lot::Mutex;

/// `ibdev_index` value meaning "the kernel did not say".
pub(crate) const UCMA_INVALID_IB_INDEX: u32 = u32::MAX;

/// One RDMA device as the CM knows it.
pub(crate) struct CmaDevice {
    /// libibverbs' device (identity for re-sync).
    pub(crate) dev: *mut ibv_device,
    /// Open context, null until first needed.
    pub(crate) verbs: *mut ibv_context,
    /// Shared PD of the ids on this device (while any holds a reference).
    pub(crate) pd: *mut ibv_pd,
    pub(crate) xrcd: *mut ibv_xrcd,
    /// Link layer per port (index port_num - 1).
    pub(crate) port: Vec<u8>,
    /// Node GUID, big-endian as libibverbs returns it.
    pub(crate) guid: u64,
    pub(crate) refcnt: i32,
    pub(crate) max_qpsize: i32,
    pub(crate) max_initiator_depth: u8,
    pub(crate) max_responder_resources: u8,
    /// ibv device index, -1 when unknown.
    pub(crate) ibv_idx: i32,
    pub(crate) dead: bool,
}

impl CmaDevice {
    fn new(dev: *mut ibv_device, guid: u64, ibv_idx: i32) -> Self {
        CmaDevice {
            dev,
            verbs: core::ptr::null_mut(),
            pd: core::ptr::null_mut(),
            xrcd: core::ptr::null_mut(),
            port: Vec::new(),
            guid,
            refcnt: 0,
            max_qpsize: 0,
            max_initiator_depth: 0,
            max_responder_resources: 0,
            ibv_idx,
            dead: false,
        }
    }

    /// Upstream's `match`: GUID only when either side has no index.
    fn matches(&self, guid: u64, idx: u32) -> bool {
        if idx == UCMA_INVALID_IB_INDEX || self.ibv_idx == -1 {
            return self.guid == guid;
        }
        self.ibv_idx as u32 == idx && self.guid == guid
    }
}

/// What the list needs from libibverbs (a fake in the unit tests).
pub(crate) trait Backend {
    /// A device list as returned by `ibv_get_device_list`.
    type List;
    /// Fetches the current list; Err(errno) when libibverbs fails.
    fn get_list(&mut self) -> Result<Self::List, c_int>;
    fn devices<'a>(&self, list: &'a Self::List) -> &'a [*mut ibv_device];
    fn free_list(&mut self, list: Self::List);
    /// The device's GUID (big-endian).
    ///
    /// # Safety
    /// `dev` is an entry of a list from `get_list` that is not yet freed.
    unsafe fn guid(&self, dev: *mut ibv_device) -> u64;
    /// The device's kernel index, -1 when unknown.
    ///
    /// # Safety
    /// As for [`Backend::guid`].
    unsafe fn index(&self, dev: *mut ibv_device) -> i32;
    /// Opens the device and fills `verbs`, `port`, `max_*`.
    fn open(&mut self, d: &mut CmaDevice) -> Result<(), c_int>;
    /// Releases xrcd, pd and context of a device being dropped.
    fn close(&mut self, d: &mut CmaDevice);
    /// Releases pd and xrcd when the last reference goes.
    fn release_domains(&mut self, d: &mut CmaDevice);
}

pub(crate) struct DevList<B: Backend> {
    pub(crate) backend: B,
    /// Entries, boxed so ids can keep pointers to them.
    // The boxes are the point: an entry keeps its address while the Vec
    // grows, shrinks or reorders (clippy's vec_box assumes they are not).
    #[allow(clippy::vec_box)]
    pub(crate) devs: Vec<Box<CmaDevice>>,
    /// The list of the last successful sync (upstream's `dev_list`).
    held: Option<B::List>,
}

impl<B: Backend> DevList<B> {
    pub(crate) const fn new(backend: B) -> Self {
        DevList { backend, devs: Vec::new(), held: None }
    }

    /// Inserts a new entry at upstream's position: after the last entry
    /// with a smaller index (smaller host-order GUID if there's no index).
    /// The caller has reserved room in `devs`.
    fn insert(&mut self, d: Box<CmaDevice>) {
        let pos = self
            .devs
            .iter()
            .rposition(|p| {
                if d.ibv_idx == -1 {
                    u64::from_be(p.guid) < u64::from_be(d.guid)
                } else {
                    p.ibv_idx < d.ibv_idx
                }
            })
            .map_or(0, |i| i + 1);
        self.devs.insert(pos, d);
    }

    /// Drops entry `i`, or marks it dead while referenced. Returns whether it
    /// was dropped.
    fn remove_at(&mut self, i: usize) -> bool {
        if self.devs[i].refcnt != 0 {
            self.devs[i].dead = true;
            return false;
        }
        let mut d = self.devs.remove(i);
        self.backend.close(&mut d);
        true
    }

    /// Drops (or kills) every entry whose device `gone` picks.
    fn remove_devices(&mut self, gone: impl Fn(*mut ibv_device) -> bool) {
        let mut i = 0;
        while i < self.devs.len() {
            if gone(self.devs[i].dev) && self.remove_at(i) {
                continue;
            }
            i += 1;
        }
    }

    /// The entries for the devices of `new` that `old` lacks, allocated
    /// before anything changes (with room for them in `devs`), so that a
    /// failed allocation leaves the list as it was: ENOMEM.
    // Boxed, as `devs` holds them (see there).
    #[allow(clippy::vec_box)]
    fn new_entries(&mut self, new: &B::List, old: &[*mut ibv_device]) -> Result<Vec<Box<CmaDevice>>, c_int> {
        let added: &[*mut ibv_device] = self.backend.devices(new);
        let n = added.iter().filter(|d| !old.contains(d)).count();
        self.devs.try_reserve(n).map_err(|_| libc::ENOMEM)?;
        let mut out = rdma_util::fallible::vec_with_capacity(n).map_err(|_| libc::ENOMEM)?;
        for &dev in added.iter().filter(|d| !old.contains(d)) {
            // SAFETY: dev is an entry of `new`, a list the caller holds.
            let d = unsafe { CmaDevice::new(dev, self.backend.guid(dev), self.backend.index(dev)) };
            out.push(rdma_util::fallible::try_box(d).map_err(|_| libc::ENOMEM)?);
        }
        Ok(out)
    }

    /// Re-reads libibverbs' device list and applies additions/removals.
    /// Err(ENODEV) when there is no device (or the list can't be read),
    /// ENOMEM (and nothing changed) when the new entries cannot be had.
    pub(crate) fn sync(&mut self) -> Result<(), c_int> {
        let new = self.backend.get_list().map_err(|_| libc::ENODEV)?;
        let held = self.held.take();
        let old: &[*mut ibv_device] = match &held {
            Some(l) => self.backend.devices(l),
            None => &[],
        };

        if self.backend.devices(&new).is_empty() {
            // Everything we knew is gone (see the module docs, point 2).
            self.remove_devices(|d| old.contains(&d));
            self.backend.free_list(new);
            if let Some(old) = held {
                self.backend.free_list(old);
            }
            return Err(libc::ENODEV);
        }

        let entries = match self.new_entries(&new, old) {
            Ok(e) => e,
            Err(e) => {
                self.backend.free_list(new);
                self.held = held;
                return Err(e);
            }
        };
        let current: &[*mut ibv_device] = self.backend.devices(&new);
        self.remove_devices(|d| old.contains(&d) && !current.contains(&d));
        for d in entries {
            self.insert(d);
        }
        // `new` is freed only after it replaces `held` and that in turn is
        // replaced: the entries point into it.
        self.held = Some(new);
        if let Some(old) = held {
            self.backend.free_list(old);
        }
        Ok(())
    }

    /// Opens an entry if needed (`ucma_init_device`).
    pub(crate) fn init_device(&mut self, i: usize) -> Result<(), c_int> {
        if !self.devs[i].verbs.is_null() {
            return Ok(());
        }
        let (backend, devs) = (&mut self.backend, &mut self.devs);
        backend.open(&mut devs[i])
    }

    fn find(&self, guid: u64, idx: u32) -> Option<usize> {
        self.devs.iter().position(|d| !d.dead && d.matches(guid, idx))
    }

    /// Finds the live entry for (guid, idx), re-syncing once on a miss, and
    /// takes a reference (`ucma_get_cma_device`).
    pub(crate) fn lookup(&mut self, guid: u64, idx: u32) -> Option<usize> {
        let i = match self.find(guid, idx) {
            Some(i) => i,
            None => {
                self.sync().ok()?;
                self.find(guid, idx)?
            }
        };
        self.devs[i].refcnt += 1;
        Some(i)
    }

    /// Drops a reference (`ucma_put_device`).
    pub(crate) fn put(&mut self, d: *const CmaDevice) {
        let Some(i) = self.devs.iter().position(|x| core::ptr::eq(&**x, d)) else {
            return;
        };
        self.devs[i].refcnt -= 1;
        if self.devs[i].refcnt == 0 {
            let (backend, devs) = (&mut self.backend, &mut self.devs);
            backend.release_domains(&mut devs[i]);
            if self.devs[i].dead {
                self.remove_at(i);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The real backend: libibverbs
// ---------------------------------------------------------------------------

/// A list from `ibv_get_device_list`, and its length.
pub(crate) struct IbvList(*mut *mut ibv_device, usize);

pub(crate) struct Verbs;

impl Backend for Verbs {
    type List = IbvList;

    fn get_list(&mut self) -> Result<IbvList, c_int> {
        let mut n: c_int = 0;
        // SAFETY: n is a valid out-pointer.
        let l = unsafe { crate::verbs::ibv_get_device_list(&mut n) };
        if l.is_null() {
            Err(errno())
        } else {
            Ok(IbvList(l, n.max(0) as usize))
        }
    }

    fn devices<'a>(&self, list: &'a IbvList) -> &'a [*mut ibv_device] {
        // SAFETY: the list holds list.1 devices before its NULL, and stays
        // allocated while borrowed.
        unsafe { core::slice::from_raw_parts(list.0, list.1) }
    }

    fn free_list(&mut self, list: IbvList) {
        // SAFETY: list came from ibv_get_device_list and is freed once.
        unsafe { crate::verbs::ibv_free_device_list(list.0) }
    }

    unsafe fn guid(&self, dev: *mut ibv_device) -> u64 {
        // SAFETY: dev is in a list we hold (the contract).
        unsafe { crate::verbs::ibv_get_device_guid(dev) }
    }

    unsafe fn index(&self, dev: *mut ibv_device) -> i32 {
        // SAFETY: dev is in a list we hold (the contract).
        unsafe { crate::verbs::ibv_get_device_index(dev) }
    }

    fn open(&mut self, d: &mut CmaDevice) -> Result<(), c_int> {
        use crate::verbs::*;
        // SAFETY: d.dev is in the list we hold.
        let ctx = unsafe { ibv_open_device(d.dev) };
        if ctx.is_null() {
            return Err(libc::ENODEV);
        }
        // SAFETY: all-zero is a valid ibv_device_attr.
        let mut attr: ibv_device_attr = unsafe { core::mem::zeroed() };
        // SAFETY: ctx is open; attr is a valid out-buffer.
        let ret = unsafe { ibv_query_device(ctx, &mut attr) };
        if ret != 0 {
            // SAFETY: closing the context we just opened.
            unsafe { ibv_close_device(ctx) };
            return Err(ret);
        }
        let Ok(mut ports) = rdma_util::fallible::vec_with_capacity(attr.phys_port_cnt as usize) else {
            // SAFETY: closing the context we just opened.
            unsafe { ibv_close_device(ctx) };
            return Err(libc::ENOMEM);
        };
        for p in 1..=attr.phys_port_cnt {
            // SAFETY: all-zero is a valid ibv_port_attr.
            let mut pa: ibv_port_attr = unsafe { core::mem::zeroed() };
            // SAFETY: ctx is open.
            ports.push(if unsafe { query_port(ctx, p, &mut pa) } != 0 { IBV_LINK_LAYER_UNSPECIFIED } else { pa.link_layer });
        }
        d.port = ports;
        d.max_qpsize = attr.max_qp_wr;
        d.max_initiator_depth = attr.max_qp_init_rd_atom as u8;
        d.max_responder_resources = attr.max_qp_rd_atom as u8;
        d.verbs = ctx;
        Ok(())
    }

    fn close(&mut self, d: &mut CmaDevice) {
        // SAFETY: each object was created by us on this device and is
        // released once (pointers are cleared).
        unsafe {
            if !d.xrcd.is_null() {
                crate::verbs::close_xrcd(d.xrcd);
            }
            if !d.pd.is_null() {
                crate::verbs::ibv_dealloc_pd(d.pd);
            }
            if !d.verbs.is_null() {
                crate::verbs::ibv_close_device(d.verbs);
            }
        }
        d.xrcd = core::ptr::null_mut();
        d.pd = core::ptr::null_mut();
        d.verbs = core::ptr::null_mut();
    }

    fn release_domains(&mut self, d: &mut CmaDevice) {
        // SAFETY: as in close.
        unsafe {
            if !d.pd.is_null() {
                crate::verbs::ibv_dealloc_pd(d.pd);
            }
            if !d.xrcd.is_null() {
                crate::verbs::close_xrcd(d.xrcd);
            }
        }
        d.pd = core::ptr::null_mut();
        d.xrcd = core::ptr::null_mut();
    }
}

/// The process-wide list; raw pointers inside are only touched under the lock.
pub(crate) struct Global(pub DevList<Verbs>);
// SAFETY: the list's raw pointers are libibverbs objects usable from any
// thread; all access goes through the mutex below.
unsafe impl Send for Global {}

pub(crate) static DEVICES: Mutex<Global> = Mutex::new(Global(DevList::new(Verbs)));

/// Takes a device for an id: looks up (guid, idx), opens it, allocates the
/// shared PD. Ok((entry, context, pd)); Err(errno) (ENODEV when unknown).
pub(crate) fn get_device(guid: u64, idx: u32) -> Result<(*mut CmaDevice, *mut ibv_context, *mut ibv_pd), c_int> {
    let mut g = DEVICES.lock();
    let l = &mut g.0;
    let i = l.lookup(guid, idx).ok_or(libc::ENODEV)?;
    let r = (|| {
        l.init_device(i)?;
        let d = &mut l.devs[i];
        if d.pd.is_null() {
            // SAFETY: d.verbs is open.
            d.pd = unsafe { crate::verbs::ibv_alloc_pd(d.verbs) };
        }
        if d.pd.is_null() {
            return Err(errno());
        }
        Ok((&mut **d as *mut CmaDevice, d.verbs, d.pd))
    })();
    if r.is_err() {
        l.devs[i].refcnt -= 1;
    }
    r
}

/// Releases an id's device reference.
pub(crate) fn put_device(d: *mut CmaDevice) {
    DEVICES.lock().0.put(d);
}

/// The device's shared XRC domain, opened on first use (null on failure,
/// errno set).
///
/// # Safety
/// `d` is a live device entry on which the caller holds a reference (an id
/// bound to that device).
pub(crate) unsafe fn get_xrcd(d: *mut CmaDevice) -> *mut ibv_xrcd {
    let _g = DEVICES.lock();
    // SAFETY: d is a live entry (the caller's id holds a reference) and the
    // list lock is held.
    let d = unsafe { &mut *d };
    if d.xrcd.is_null() {
        // SAFETY: a C struct of integers; all-zero is its "no fields set".
        let mut attr: ibv_xrcd_init_attr = unsafe { rdma_util::mem::zeroed_unchecked() };
        attr.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
        attr.fd = -1;
        attr.oflags = libc::O_CREAT;
        // SAFETY: d.verbs is open while referenced.
        d.xrcd = unsafe { crate::verbs::open_xrcd(d.verbs, &mut attr) };
    }
    d.xrcd
}

/// `rdma_get_devices`: re-syncs, opens every live device, returns their
/// contexts and takes a reference on each. Err(ENODEV) when there is no
/// device, ENOMEM when the list cannot be allocated.
pub(crate) fn get_devices() -> Result<Vec<*mut ibv_context>, c_int> {
    let mut g = DEVICES.lock();
    let l = &mut g.0;
    l.sync().map_err(|e| if e == libc::ENOMEM { e } else { libc::ENODEV })?;
    for i in 0..l.devs.len() {
        if !l.devs[i].dead && l.init_device(i).is_err() {
            l.devs[i].dead = true;
        }
    }
    let live = l.devs.iter().filter(|d| !d.dead).count();
    let mut out = rdma_util::fallible::vec_with_capacity(live).map_err(|_| libc::ENOMEM)?;
    for d in l.devs.iter_mut().filter(|d| !d.dead) {
        out.push(d.verbs);
        d.refcnt += 1;
    }
    Ok(out)
}

/// `rdma_free_devices`: drops one reference per listed context.
pub(crate) fn free_devices(list: &[*mut ibv_context]) {
    let mut g = DEVICES.lock();
    let l = &mut g.0;
    let mut i = 0;
    while i < l.devs.len() {
        let verbs = l.devs[i].verbs;
        let mut dropped = false;
        for _ in list.iter().filter(|&&c| c == verbs) {
            l.devs[i].refcnt -= 1;
            if l.devs[i].dead && l.remove_at(i) {
                dropped = true;
                break;
            }
        }
        if !dropped {
            i += 1;
        }
    }
}

/// The smallest max_qp_wr of the live devices after opening them all, or
/// that of `d` (`ucma_max_qpsize`, whose initialisation, for `None`, is
/// `cma::max_qpsize`'s).
pub(crate) fn max_qpsize(d: Option<*mut CmaDevice>) -> i32 {
    if let Some(d) = d {
        // SAFETY: the caller's id holds a reference to d.
        return unsafe { (*d).max_qpsize };
    }
    let mut g = DEVICES.lock();
    let l = &mut g.0;
    for i in 0..l.devs.len() {
        if !l.devs[i].dead && l.init_device(i).is_err() {
            l.devs[i].dead = true;
        }
    }
    l.devs
        .iter()
        .filter(|d| !d.dead)
        .map(|d| d.max_qpsize)
        .fold(0, |m, s| if m == 0 || m > s { s } else { m })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// A fake libibverbs: devices are small integers cast to pointers, with
    /// GUID 0x100+n and index n; `present` is what the next list returns.
    #[derive(Default)]
    struct Fake {
        present: Vec<usize>,
        fail_open: HashSet<usize>,
        opened: Vec<usize>,
        closed: Vec<usize>,
        lists_out: i32,
    }
    fn dp(n: usize) -> *mut ibv_device {
        (n * 0x1000) as *mut ibv_device
    }
    fn num(d: *mut ibv_device) -> usize {
        d as usize / 0x1000
    }
    impl Backend for Fake {
        type List = Vec<*mut ibv_device>;
        fn get_list(&mut self) -> Result<Self::List, c_int> {
            self.lists_out += 1;
            Ok(self.present.iter().map(|&n| dp(n)).collect())
        }
        fn devices<'a>(&self, l: &'a Self::List) -> &'a [*mut ibv_device] {
            l
        }
        fn free_list(&mut self, _l: Self::List) {
            self.lists_out -= 1;
        }
        unsafe fn guid(&self, d: *mut ibv_device) -> u64 {
            (0x100 + num(d) as u64).to_be()
        }
        unsafe fn index(&self, d: *mut ibv_device) -> i32 {
            num(d) as i32
        }
        fn open(&mut self, d: &mut CmaDevice) -> Result<(), c_int> {
            if self.fail_open.contains(&num(d.dev)) {
                return Err(libc::ENODEV);
            }
            self.opened.push(num(d.dev));
            d.verbs = (num(d.dev) * 0x10) as *mut ibv_context;
            d.port = vec![IBV_LINK_LAYER_ETHERNET];
            Ok(())
        }
        fn close(&mut self, d: &mut CmaDevice) {
            self.closed.push(num(d.dev));
            d.verbs = core::ptr::null_mut();
        }
        fn release_domains(&mut self, _d: &mut CmaDevice) {}
    }
    fn guid(n: u64) -> u64 {
        (0x100 + n).to_be()
    }
    fn ids(l: &DevList<Fake>) -> Vec<(usize, bool)> {
        l.devs.iter().map(|d| (num(d.dev), d.dead)).collect()
    }

    #[test]
    fn no_device_is_enodev() {
        let mut l = DevList::new(Fake::default());
        assert_eq!(l.sync(), Err(libc::ENODEV));
        assert!(l.devs.is_empty());
        assert_eq!(l.lookup(guid(1), 1), None);
        assert_eq!(l.backend.lists_out, 0);
    }

    #[test]
    fn first_sync_orders_by_index_and_lookup_takes_references() {
        let mut l = DevList::new(Fake { present: vec![3, 1, 2], ..Default::default() });
        l.sync().unwrap();
        assert_eq!(ids(&l), vec![(1, false), (2, false), (3, false)]);
        let i = l.lookup(guid(2), 2).unwrap();
        assert_eq!(l.devs[i].refcnt, 1);
        // GUID match alone is enough when the kernel gives no index.
        let j = l.lookup(guid(3), UCMA_INVALID_IB_INDEX).unwrap();
        assert_eq!(num(l.devs[j].dev), 3);
        // A wrong index with the right GUID does not match.
        assert_eq!(l.lookup(guid(3), 7), None);
        assert_eq!(l.backend.lists_out, 1);
    }

    #[test]
    fn a_device_added_later_is_found_by_the_resync_on_lookup() {
        let mut l = DevList::new(Fake { present: vec![1], ..Default::default() });
        l.sync().unwrap();
        assert_eq!(l.lookup(guid(5), 5), None);
        l.backend.present = vec![1, 5];
        let i = l.lookup(guid(5), 5).expect("hot-plugged device");
        assert_eq!(num(l.devs[i].dev), 5);
        assert_eq!(ids(&l), vec![(1, false), (5, false)]);
        assert_eq!(l.backend.lists_out, 1, "old list freed, new one held");
    }

    #[test]
    fn removed_devices_are_dropped_or_killed_until_released() {
        let mut l = DevList::new(Fake { present: vec![1, 2], ..Default::default() });
        l.sync().unwrap();
        let i = l.lookup(guid(1), 1).unwrap();
        l.init_device(i).unwrap();
        let held: *const CmaDevice = &*l.devs[i];
        l.backend.present = vec![3];
        l.sync().unwrap();
        // 2 was unreferenced: dropped. 1 is referenced: dead, not matchable.
        assert_eq!(ids(&l), vec![(1, true), (3, false)]);
        assert_eq!(l.find(guid(1), 1), None);
        l.put(held);
        assert_eq!(ids(&l), vec![(3, false)]);
        assert_eq!(l.backend.closed, vec![2, 1]);
    }

    #[test]
    fn an_empty_list_retires_every_device_but_still_fails() {
        let mut l = DevList::new(Fake { present: vec![1], ..Default::default() });
        l.sync().unwrap();
        l.backend.present = vec![];
        assert_eq!(l.sync(), Err(libc::ENODEV));
        assert!(l.devs.is_empty(), "the removed device must not stay matchable");
        assert_eq!(l.lookup(guid(1), UCMA_INVALID_IB_INDEX), None);
        // The device comes back (same GUID, new index): found again.
        l.backend.present = vec![4];
        assert!(l.lookup(guid(4), UCMA_INVALID_IB_INDEX).is_some());
        assert_eq!(l.backend.lists_out, 1);
    }

    #[test]
    fn distant_pointers_do_not_confuse_the_resync() {
        // Devices whose addresses are more than 2 GiB apart: upstream's
        // int-truncating comparator could misorder these.
        let mut f = Fake { present: vec![1, 0x100000, 2], ..Default::default() };
        f.present.sort();
        let mut l = DevList::new(f);
        l.sync().unwrap();
        let before: Vec<_> = l.devs.iter().map(|d| d.dev).collect();
        l.backend.present = vec![0x100000, 2, 1, 7];
        l.sync().unwrap();
        let after: Vec<_> = l.devs.iter().map(|d| d.dev).collect();
        assert_eq!(after.len(), 4);
        for d in before {
            assert_eq!(after.iter().filter(|&&x| x == d).count(), 1);
        }
    }

    #[test]
    fn guid_order_when_no_index() {
        struct NoIdx(Fake);
        impl Backend for NoIdx {
            type List = Vec<*mut ibv_device>;
            fn get_list(&mut self) -> Result<Self::List, c_int> {
                self.0.get_list()
            }
            fn devices<'a>(&self, l: &'a Self::List) -> &'a [*mut ibv_device] {
                l
            }
            fn free_list(&mut self, l: Self::List) {
                self.0.free_list(l)
            }
            unsafe fn guid(&self, d: *mut ibv_device) -> u64 {
                // SAFETY: forwarded contract (the fake never dereferences).
                unsafe { self.0.guid(d) }
            }
            unsafe fn index(&self, _d: *mut ibv_device) -> i32 {
                -1
            }
            fn open(&mut self, d: &mut CmaDevice) -> Result<(), c_int> {
                self.0.open(d)
            }
            fn close(&mut self, d: &mut CmaDevice) {
                self.0.close(d)
            }
            fn release_domains(&mut self, _d: &mut CmaDevice) {}
        }
        let mut l = DevList::new(NoIdx(Fake { present: vec![9, 3, 6], ..Default::default() }));
        l.sync().unwrap();
        let order: Vec<usize> = l.devs.iter().map(|d| num(d.dev)).collect();
        assert_eq!(order, vec![3, 6, 9]);
        // Any index from the kernel matches by GUID when ours is unknown.
        assert!(l.lookup(guid(6), 42).is_some());
    }

    #[test]
    fn open_failure_is_reported() {
        let mut l = DevList::new(Fake { present: vec![1], ..Default::default() });
        l.backend.fail_open.insert(1);
        l.sync().unwrap();
        assert_eq!(l.init_device(0), Err(libc::ENODEV));
        assert!(l.devs[0].verbs.is_null());
    }
}

// ---------------------------------------------------------------------------
// Exports
// ---------------------------------------------------------------------------

rdma_util::export! {
    /// Releases a list from rdma_get_devices.
    fn rdma_free_devices(list: *mut *mut ibv_context) -> (), on_panic = ();
    {
        rdma_util::ensure!(!list.is_null(), libc::EINVAL);
        let mut v = Vec::new();
        // SAFETY: a NULL-terminated array from rdma_get_devices.
        unsafe {
            let mut p = list;
            while !(*p).is_null() {
                v.push(*p);
                p = p.add(1);
            }
        }
        free_devices(&v);
        // SAFETY: allocated with malloc by rdma_get_devices.
        unsafe { libc::free(list.cast()) };
    }
}
