//! Device discovery and the process-wide device list.
//!
//! Every ibv_get_device_list() rescans the kernel's RDMA devices (netlink
//! first, sysfs as the fallback), keeps the verbs_device objects of devices
//! that are still present, drops the ones that disappeared, and asks the
//! registered providers to claim new ones (loading provider libraries the
//! first time some device is left unclaimed). Devices are reference counted
//! (upstream's ibverbs_device_hold/put): the list holds one reference, each
//! returned device list one per entry and each open context one, so a device
//! that is hot-removed stays valid while anything still uses it.

use std::collections::VecDeque;
use std::ffi::{c_char, c_int};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::ptr;
use std::sync::atomic::{AtomicI32, Ordering};

use parking_lot::Mutex;

use crate::abi::driver::*;
use crate::abi::verbs::*;
use crate::loader;
use crate::log::PFX;
use crate::sysfs::{read_file, read_file_at, sysfs_root};
use crate::util::{cstr_field, env_is_set, set_cstr_field, strtoul, warning};
use rdma_util::fallible::{for_each_dir_entry, path};
use rdma_util::{ensure, export, export_versioned};

const RDMA_CDEV_DIR: &[u8] = b"/dev/infiniband";
/// The uverbs ABI versions this library speaks (IB_USER_VERBS_MIN/MAX_ABI_VERSION).
const UVERBS_MIN_ABI: i64 = 3;
const UVERBS_MAX_ABI: i64 = 6;
/// RDMA_DRIVER_UNKNOWN in ib_user_ioctl_verbs.h.
const RDMA_DRIVER_UNKNOWN: u32 = 0;

/// An owned verbs_sysfs_dev, allocated by us and lent to providers.
pub(crate) struct SysfsDev(Box<verbs_sysfs_dev>);

impl SysfsDev {
    fn new() -> Result<Self, i32> {
        // SAFETY: verbs_sysfs_dev is plain data (integers, arrays, raw pointers
        // and a timespec); all-zero is a valid value.
        let mut d: Box<verbs_sysfs_dev> = rdma_util::fallible::try_box(unsafe { std::mem::zeroed() }).map_err(|_| libc::ENOMEM)?;
        d.ibdev_idx = -1;
        Ok(SysfsDev(d))
    }
    /// Hands ownership to a verbs_device (freed in device_put).
    fn into_raw(self) -> *mut verbs_sysfs_dev {
        Box::into_raw(self.0)
    }
    fn as_mut_ptr(&mut self) -> *mut verbs_sysfs_dev {
        &mut *self.0
    }
}

/// Kernel RDMA_NODE_* to ibv_node_type (they share numbers; others are unknown).
pub(crate) fn decode_knode_type(k: u32) -> ibv_node_type {
    match k {
        1..=7 => k as ibv_node_type,
        _ => IBV_NODE_UNKNOWN,
    }
}

fn set_ibdev_path(d: &mut verbs_sysfs_dev) -> bool {
    let Some(p) = path(&[sysfs_root(), b"/class/infiniband/", cstr_field(&d.ibdev_name)]) else { return false };
    set_cstr_field(&mut d.ibdev_path, p.as_bytes())
}

fn stat_path(p: &[u8]) -> Option<libc::stat> {
    let buf = path(&[p])?;
    let c = buf.c_str()?;
    // SAFETY: zeroed stat is a valid out-buffer; c is NUL-terminated.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    let rc = unsafe { libc::stat(c.as_ptr(), &mut st) };
    (rc == 0).then_some(st)
}

/// The char device must exist in /dev/infiniband.
fn try_access_device(d: &verbs_sysfs_dev) -> bool {
    path(&[RDMA_CDEV_DIR, b"/", cstr_field(&d.sysfs_name)]).is_some_and(|p| stat_path(p.as_bytes()).is_some())
}

/// Fills the uverbs fields from an infiniband_verbs class directory.
fn setup_sysfs_uverbs(uv_dir: &OwnedFd, uverbs: &[u8], d: &mut verbs_sysfs_dev) -> bool {
    if !set_cstr_field(&mut d.sysfs_name, uverbs) {
        return false;
    }
    let Some(st) = stat_path(cstr_field(&d.ibdev_path)) else { return false };
    d.time_created = libc::timespec { tv_sec: st.st_mtime, tv_nsec: st.st_mtime_nsec };
    let mut value = [0u8; 32];
    let n = read_file_at(Some(uv_dir.as_fd()), b"dev", &mut value);
    if n < 0 {
        return false;
    }
    // sscanf("%u:%u"), each value truncated to unsigned int.
    let Some(v) = crate::util::scan_separated::<2>(&value[..n as usize], 10, b':') else { return false };
    let (maj, min) = (v[0] as u32, v[1] as u32);
    d.sysfs_cdev = libc::makedev(maj, min);
    let n = read_file_at(Some(uv_dir.as_fd()), b"abi_version", &mut value);
    if n > 0 {
        d.abi_ver = strtoul(&value[..n as usize], 10) as u32;
    }
    true
}

fn open_dir_at(dirfd: Option<&OwnedFd>, name: &[u8]) -> Option<OwnedFd> {
    use std::os::fd::FromRawFd;
    let buf = path(&[name])?;
    let c = buf.c_str()?;
    let base = dirfd.map(|f| f.as_raw_fd()).unwrap_or(libc::AT_FDCWD);
    // SAFETY: c is NUL-terminated; the fd returned is owned by us.
    let fd = unsafe { libc::openat(base, c.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC) };
    // SAFETY: fd is a fresh descriptor we own.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Calls `f` with each entry of the directory open as `dir`, in readdir
/// order, without dot entries, until `f` returns false. False when the
/// directory cannot be read.
fn each_entry(dir: &OwnedFd, mut f: impl FnMut(&[u8]) -> bool) -> bool {
    for_each_dir_entry(dir.as_raw_fd(), c".", |name| name.first() == Some(&b'.') || f(name)).is_ok()
}

/// Finds the uverbs class device of a netlink-found device through sysfs.
fn find_uverbs_sysfs(d: &mut verbs_sysfs_dev) -> bool {
    let Some(p) = path(&[cstr_field(&d.ibdev_path), b"/device/infiniband_verbs"]) else { return false };
    let Some(dir) = open_dir_at(None, p.as_bytes()) else { return false };
    // Upstream looks at the first entry only.
    let mut found = false;
    each_entry(&dir, |name| {
        found = open_dir_at(Some(&dir), name).is_some_and(|uv| setup_sysfs_uverbs(&uv, name, d));
        false
    }) && found
}

/// Puts `s` at the head of `list`, as upstream's list_add.
fn push_head(list: &mut Vec<SysfsDev>, s: SysfsDev) -> Result<(), i32> {
    list.try_reserve(1).map_err(|_| libc::ENOMEM)?;
    list.insert(0, s);
    Ok(())
}

/// Netlink discovery. Err when netlink is unusable (caller falls back to sysfs).
/// The returned list is in upstream's list order (most recently found first).
fn find_sysfs_devs_nl() -> Result<Vec<SysfsDev>, i32> {
    let found = rdma_util::netlink::get_devices()?;
    let mut list = Vec::new();
    for nd in found {
        let mut s = SysfsDev::new()?;
        let d = &mut *s.0;
        d.ibdev_idx = nd.ibdev_idx as c_int;
        d.num_ports = nd.num_ports;
        d.node_guid = nd.node_guid;
        d.flags |= VSYSFS_READ_NODE_GUID;
        if !set_cstr_field(&mut d.ibdev_name, nd.name.as_bytes()) || !set_ibdev_path(d) {
            // Upstream's dump callback fails on this message, which ends the
            // dump there without failing it: the devices before it are kept.
            break;
        }
        d.node_type = decode_knode_type(nd.node_type as u32);
        push_head(&mut list, s)?;
    }
    list.retain_mut(|s| {
        let d = &mut *s.0;
        let via_nl = match rdma_util::netlink::get_chardev(Some(d.ibdev_idx as u32), "uverbs") {
            Ok(cd) if !cd.name.is_empty() && set_cstr_field(&mut d.sysfs_name, cd.name.as_bytes()) => {
                // The uverbs ABI is 6 whenever the kernel answers GET_CHARDEV.
                crate::cmd::set_abi_ver(6);
                d.abi_ver = cd.abi as u32;
                d.driver_id = cd.driver_id.unwrap_or(RDMA_DRIVER_UNKNOWN);
                d.sysfs_cdev = cd.cdev;
                true
            }
            _ => false,
        };
        (via_nl || find_uverbs_sysfs(d)) && try_access_device(d)
    });
    Ok(list)
}

/// The sysfs fallback: every entry of <sysfs>/class/infiniband_verbs.
fn find_sysfs_devs() -> Result<Vec<SysfsDev>, i32> {
    let class = match path(&[sysfs_root(), b"/class/infiniband_verbs"]) {
        Some(c) if c.len() < IBV_SYSFS_PATH_MAX => c,
        _ => return Err(libc::ENOMEM),
    };
    let Some(class_fd) = open_dir_at(None, class.as_bytes()) else { return Err(libc::ENOSYS) };
    let mut list = Vec::new();
    let mut failed = None;
    let read = each_entry(&class_fd, |uverbs| {
        let mut s = match SysfsDev::new() {
            Ok(s) => s,
            Err(e) => {
                failed = Some(e);
                return false;
            }
        };
        let ok = (|| {
            let d = &mut *s.0;
            let uv = open_dir_at(Some(&class_fd), uverbs)?;
            let mut name = [0u8; 64];
            let n = read_file_at(Some(uv.as_fd()), b"ibdev", &mut name);
            if n < 0 || !set_cstr_field(&mut d.ibdev_name, &name[..n as usize]) {
                return None;
            }
            if !set_ibdev_path(d) || !setup_sysfs_uverbs(&uv, uverbs, d) {
                return None;
            }
            let mut v = [0u8; 32];
            let n = read_file(cstr_field(&d.ibdev_path), b"node_type", &mut v);
            d.node_type = if n <= 0 {
                IBV_NODE_UNKNOWN
            } else {
                decode_knode_type(strtoul(&v[..n as usize], 10) as u32)
            };
            try_access_device(d).then_some(())
        })()
        .is_some();
        if ok {
            if let Err(e) = push_head(&mut list, s) {
                failed = Some(e);
                return false;
            }
        }
        true
    });
    if !read {
        return Err(libc::ENOSYS);
    }
    match failed {
        Some(e) => Err(e),
        None => Ok(list),
    }
}

/// Checks <sysfs>/class/infiniband_verbs/abi_version once it is needed.
fn check_abi_version() -> Result<(), i32> {
    if crate::cmd::abi_ver() != 0 {
        return Ok(());
    }
    let mut v = [0u8; 8];
    let Some(dir) = path(&[sysfs_root(), b"/class/infiniband_verbs"]) else { return Err(libc::ENOSYS) };
    let n = read_file(dir.as_bytes(), b"abi_version", &mut v);
    if n < 0 {
        return Err(libc::ENOSYS);
    }
    let abi = crate::util::strtol(&v[..n as usize], 10);
    crate::cmd::set_abi_ver(abi as i32);
    if !(UVERBS_MIN_ABI..=UVERBS_MAX_ABI).contains(&abi) {
        warning!(
            "{PFX}Fatal: kernel ABI version {} doesn't match library version {}.\n",
            abi as i32, UVERBS_MAX_ABI
        );
        return Err(libc::ENOSYS);
    }
    Ok(())
}

fn same_sysfs_dev(a: &verbs_sysfs_dev, b: &verbs_sysfs_dev) -> bool {
    cstr_field(&a.sysfs_name) == cstr_field(&b.sysfs_name)
        && a.ibdev_idx == b.ibdev_idx
        && (a.ibdev_idx != -1
            || (a.time_created.tv_sec == b.time_created.tv_sec
                && a.time_created.tv_nsec == b.time_created.tv_nsec))
}

/// The devices currently known, in upstream's list order. Each entry holds one
/// reference.
struct DevList(VecDeque<*mut verbs_device>);
// SAFETY: the pointers are only dereferenced under the DEVICES lock or
// through reference-counted holds; verbs_device objects are not thread-bound.
unsafe impl Send for DevList {}

static DEVICES: Mutex<DevList> = Mutex::new(DevList(VecDeque::new()));
static INITIALIZED: Mutex<bool> = Mutex::new(false);

/// Accesses the C `atomic_int refcount` of a verbs_device.
fn refcount<'a>(dev: *mut verbs_device) -> &'a AtomicI32 {
    // SAFETY: dev points to a live verbs_device; its refcount field is a
    // naturally aligned 32-bit C atomic_int, which AtomicI32 matches.
    unsafe { AtomicI32::from_ptr(ptr::addr_of_mut!((*dev).refcount).cast::<i32>()) }
}

pub(crate) fn device_hold(dev: *mut ibv_device) {
    refcount(dev.cast::<verbs_device>()).fetch_add(1, Ordering::AcqRel);
}

pub(crate) fn device_put(dev: *mut ibv_device) {
    let vdev = dev.cast::<verbs_device>();
    if refcount(vdev).fetch_sub(1, Ordering::AcqRel) == 1 {
        // SAFETY: last reference: nobody else uses the device any more.
        unsafe {
            let sysfs = (*vdev).sysfs;
            if !sysfs.is_null() {
                drop(Box::from_raw(sysfs));
            }
            let ops = (*vdev).ops;
            if !ops.is_null() {
                if let Some(uninit) = (*ops).uninit_device {
                    uninit(vdev);
                }
            }
        }
    }
}

/// Scans and updates the device list. Returns the number of devices or a
/// negative errno. Called with the INITIALIZED lock held (upstream's
/// dev_list_lock).
fn refresh(list: &mut DevList) -> Result<usize, i32> {
    let mut sysfs_list = match find_sysfs_devs_nl() {
        Ok(l) => l,
        Err(_) => find_sysfs_devs()?,
    };
    if !sysfs_list.is_empty() {
        check_abi_version()?;
    }
    let mut num = 0;
    // Keep devices that are still present; drop the ones that went away.
    list.0.retain(|&vdev| {
        // SAFETY: devices in the list are alive (the list holds a reference).
        let vsys = unsafe { (*vdev).sysfs };
        // SAFETY: a listed device always has our sysfs record.
        let pos = sysfs_list.iter().position(|s| unsafe { same_sysfs_dev(&*vsys, &s.0) });
        match pos {
            Some(i) => {
                sysfs_list.remove(i);
                num += 1;
                true
            }
            None => {
                device_put(vdev.cast());
                false
            }
        }
    });
    num += try_all_drivers(&mut sysfs_list, list);
    if !sysfs_list.is_empty() && loader::load_drivers_once() {
        num += try_all_drivers(&mut sysfs_list, list);
    }
    if env_is_set(c"IBV_SHOW_WARNINGS") {
        for s in &sysfs_list {
            warning!(
                "{PFX}Warning: no userspace device-specific driver found for {}\n",
                rdma_util::fallible::display_lossy(cstr_field(&s.0.ibdev_name))
            );
        }
    }
    Ok(num)
}

fn try_all_drivers(sysfs_list: &mut Vec<SysfsDev>, list: &mut DevList) -> usize {
    let mut added = 0;
    let mut i = 0;
    while i < sysfs_list.len() {
        // Room first: a device the provider made must find its place. Upstream
        // adds to a linked list, which cannot fail; without the room the
        // device is left unclaimed, as when the provider's own allocation
        // fails.
        if list.0.try_reserve(1).is_err() {
            break;
        }
        let s = sysfs_list[i].as_mut_ptr();
        // SAFETY: s is a live record owned by sysfs_list, not moved during the
        // call.
        match unsafe { loader::try_drivers(s) } {
            Some(vdev) => {
                let owned = sysfs_list.remove(i);
                // SAFETY: vdev is the provider's new device; ownership of the
                // sysfs record moves into it (freed in device_put).
                unsafe { (*vdev).sysfs = owned.into_raw() };
                list.0.push_front(vdev);
                added += 1;
            }
            None => i += 1,
        }
    }
    added
}

/// The body of ibv_get_device_list: NULL with errno on failure.
///
/// # Safety
/// `num` is NULL or points to a writable `c_int`.
pub(crate) unsafe fn get_device_list(num: *mut c_int) -> *mut *mut ibv_device {
    if !num.is_null() {
        // SAFETY: caller's out-parameter.
        unsafe { *num = 0 };
    }
    let mut initialized = INITIALIZED.lock();
    if !*initialized {
        if let Err(e) = crate::init::library_init() {
            rdma_util::ffi::set_errno(e);
            return ptr::null_mut();
        }
        *initialized = true;
    }
    let mut list = DEVICES.lock();
    let n = match refresh(&mut list) {
        Ok(n) => n,
        Err(e) => {
            rdma_util::ffi::set_errno(e);
            return ptr::null_mut();
        }
    };
    // SAFETY: calloc of n+1 pointers; freed by ibv_free_device_list with free().
    let l = unsafe { libc::calloc(n + 1, std::mem::size_of::<*mut ibv_device>()) }.cast::<*mut ibv_device>();
    if l.is_null() {
        rdma_util::ffi::set_errno(libc::ENOMEM);
        return ptr::null_mut();
    }
    for (i, &vdev) in list.0.iter().enumerate() {
        let dev = vdev.cast::<ibv_device>();
        device_hold(dev);
        // SAFETY: i < n: the list has exactly n entries.
        unsafe { *l.add(i) = dev };
    }
    if !num.is_null() {
        // SAFETY: caller's out-parameter.
        unsafe { *num = n as c_int };
    }
    l
}

/// The body of ibv_free_device_list.
///
/// # Safety
/// `list` came from get_device_list and is freed once.
pub(crate) unsafe fn free_device_list(list: *mut *mut ibv_device) {
    let mut i = 0;
    loop {
        // SAFETY: the list is NULL-terminated.
        let d = unsafe { *list.add(i) };
        if d.is_null() {
            break;
        }
        device_put(d);
        i += 1;
    }
    // SAFETY: allocated with calloc in get_device_list.
    unsafe { libc::free(list.cast()) };
}

/// Our sysfs record of a device (NULL for devices not from discovery).
///
/// # Safety
/// `dev` points to a live ibv_device that is the `device` member (at offset 0)
/// of a verbs_device: any device this library hands out (from
/// ibv_get_device_list, or as a context's `device`) while the application
/// still holds it (its list not yet freed, or the context open).
pub(crate) unsafe fn sysfs_of(dev: *mut ibv_device) -> *mut verbs_sysfs_dev {
    // SAFETY: by the contract, dev is the head of a live verbs_device.
    unsafe { (*dev.cast::<verbs_device>()).sysfs }
}

/// The node GUID of a device, network order (0 when unknown).
///
/// # Safety
/// `dev` is a live device of this library, as [`sysfs_of`] requires.
unsafe fn device_guid(dev: *mut ibv_device) -> u64 {
    // SAFETY: the caller's live device of this library.
    let sysfs = unsafe { sysfs_of(dev) };
    if sysfs.is_null() {
        return 0;
    }
    {
        let _g = INITIALIZED.lock();
        // SAFETY: the record lives as long as the device; guarded by the lock.
        let s = unsafe { &*sysfs };
        if s.flags & VSYSFS_READ_NODE_GUID != 0 {
            return s.node_guid.to_be();
        }
    }
    let mut attr = [0u8; 24];
    // SAFETY: as above.
    let n = read_file(unsafe { cstr_field(&(*sysfs).ibdev_path) }, b"node_guid", &mut attr);
    if n < 0 {
        return 0;
    }
    // sscanf("%hx:%hx:%hx:%hx"): four 16-bit groups.
    let Some(parts) = crate::util::scan_separated::<4>(&attr[..n as usize], 16, b':') else { return 0 };
    let guid = parts.iter().fold(0u64, |g, &p| (g << 16) | (p as u16) as u64);
    let _g = INITIALIZED.lock();
    // SAFETY: as above, under the lock.
    unsafe {
        (*sysfs).node_guid = guid;
        (*sysfs).flags |= VSYSFS_READ_NODE_GUID;
    }
    guid.to_be()
}

export_versioned! {
    /// IBVERBS_1.1 (default version): the current RDMA devices.
    fn ibv_get_device_list_v11(num_devices: *mut c_int) -> *mut *mut ibv_device, on_panic = ptr::null_mut();
    {
        // SAFETY: the caller passes NULL or its out-parameter, as
        // ibv_get_device_list requires.
        unsafe { get_device_list(num_devices) }
    }
}

export_versioned! {
    /// IBVERBS_1.1: releases a list from ibv_get_device_list.
    fn ibv_free_device_list_v11(list: *mut *mut ibv_device) -> (), on_panic = ();
    {
        if list.is_null() {
            return;
        }
        // SAFETY: the caller passes a list from ibv_get_device_list.
        unsafe { free_device_list(list) }
    }
}

export_versioned! {
    /// IBVERBS_1.1: the kernel name of the device ("rxe0").
    fn ibv_get_device_name_v11(device: *mut ibv_device) -> *const c_char, on_panic = ptr::null();
    {
        ensure!(!device.is_null(), libc::EINVAL, ptr::null());
        // SAFETY: the caller passes a device from ibv_get_device_list.
        unsafe { (*device).name.as_ptr() }
    }
}

export_versioned! {
    /// IBVERBS_1.1: node GUID in network byte order, 0 when unknown.
    fn ibv_get_device_guid_v11(device: *mut ibv_device) -> u64, on_panic = 0;
    {
        ensure!(!device.is_null(), libc::EINVAL, 0);
        // SAFETY: checked non-NULL; a device the application got from
        // ibv_get_device_list (or a context's device).
        unsafe { device_guid(device) }
    }
}

export! {
    /// IBVERBS_1.9: the kernel's ibdev index, or -1.
    fn ibv_get_device_index(device: *mut ibv_device) -> c_int, on_panic = -1;
    {
        ensure!(!device.is_null(), libc::EINVAL, -1);
        // SAFETY: checked non-NULL; a device the application got from
        // ibv_get_device_list (or a context's device).
        let s = unsafe { sysfs_of(device) };
        // SAFETY: the record lives as long as the device.
        if s.is_null() { -1 } else { unsafe { (*s).ibdev_idx } }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knode() {
        assert_eq!(decode_knode_type(1), IBV_NODE_CA);
        assert_eq!(decode_knode_type(7), IBV_NODE_UNSPECIFIED);
        assert_eq!(decode_knode_type(0), IBV_NODE_UNKNOWN);
        assert_eq!(decode_knode_type(8), IBV_NODE_UNKNOWN);
    }
}
