//! Device, port, GID and P_Key queries.

use std::ffi::{c_int, c_uint};
use std::mem::{offset_of, size_of};
use std::ptr;

use crate::abi::driver::*;
use crate::abi::kern::*;
use crate::abi::verbs::*;
use crate::abi::verbs65;
use crate::pabi::Pabi;
use crate::cmd::ioctl::{CmdBuf, CmdSpace};
use crate::cmd::write::{execute_ioctl_fallback, Fallback};
use crate::ctx_priv::ops_of;
use crate::device::sysfs_of;
use crate::sysfs::read_ibdev_file;
use crate::util::query_without_output;
use rdma_util::{ensure, export, export_versioned, symver};

export_versioned! {
    /// ibv_query_device@@IBVERBS_1.1: the provider's query_device_ex with the
    /// size of the legacy attribute structure.
    fn ibv_query_device_v11(context: *mut ibv_context, device_attr: *mut ibv_device_attr) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!context.is_null() && !device_attr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked non-NULL; a context the application got from this library.
        let Some(f) = unsafe { ops_of(context) }.query_device_ex else { return libc::EOPNOTSUPP };
        // orig_attr is the first member of ibv_device_attr_ex, so the legacy
        // structure's address is also the extended one's.
        const _: () = assert!(offset_of!(ibv_device_attr_ex, orig_attr) == 0);
        // SAFETY: provider op; it writes at most size_of::<ibv_device_attr>() bytes.
        unsafe { f(context, ptr::null(), device_attr.cast(), size_of::<ibv_device_attr>()) }
    }
}
symver!(default ibv_query_device, "IBVERBS_1.1", ibv_query_device_v11);

/// The library's query_port (verbs_context.query_port, used by the inline
/// ibv_query_port): never lets the provider see a short buffer.
///
/// # Safety
/// `context` is NULL or a live context of this library; `port_attr` is NULL
/// or writable for `port_attr_len` bytes.
pub(crate) unsafe extern "C" fn lib_query_port(
    context: *mut ibv_context,
    port_num: u8,
    port_attr: *mut ibv_port_attr,
    port_attr_len: usize,
) -> c_int {
    rdma_util::ffi::guard(crate::LIB_NAME, "ibv_query_port", libc::EIO, || {
        ensure!(!context.is_null() && !port_attr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked non-NULL; a context the application got from this library.
        // SAFETY: checked non-NULL; a context the application got from this library.
        let p = unsafe { crate::ctx_priv::priv_of(context) };
        let Some(f) = p.ops.query_port else { return libc::EOPNOTSUPP };
        // What the provider writes: the ibv_port_attr of its release.
        let full = match p.cmd.pabi {
            Pabi::P34 => size_of::<ibv_port_attr>(),
            Pabi::P65 => size_of::<verbs65::ibv_port_attr>(),
        };
        if port_attr_len < full {
            // SAFETY: all-zero is a valid ibv_port_attr.
            let mut tmp: verbs65::ibv_port_attr = unsafe { std::mem::zeroed() };
            // SAFETY: provider op on a local buffer of the largest layout.
            let rc = unsafe { f(context, port_num, &mut tmp) };
            if rc != 0 {
                return rc;
            }
            // SAFETY: the caller's buffer has port_attr_len bytes, fewer than tmp.
            unsafe { ptr::copy_nonoverlapping((&tmp as *const verbs65::ibv_port_attr).cast::<u8>(), port_attr.cast::<u8>(), port_attr_len) };
            return 0;
        }
        // SAFETY: the caller's buffer has port_attr_len bytes.
        unsafe { ptr::write_bytes(port_attr.cast::<u8>(), 0, port_attr_len) };
        // SAFETY: provider op on the caller's buffer, at least as large as
        // what the provider writes.
        unsafe { f(context, port_num, port_attr.cast()) }
    })
}

export_versioned! {
    /// ibv_query_port@@IBVERBS_1.1 (the non-inline entry, for binaries that
    /// call it directly): takes the older, shorter port attribute structure.
    fn ibv_query_port_v11(context: *mut ibv_context, port_num: u8, port_attr: *mut _compat_ibv_port_attr) -> c_int, on_panic = libc::EIO;
    {
        // SAFETY: forwarding the caller's arguments.
        unsafe { lib_query_port(context, port_num, port_attr.cast(), size_of::<_compat_ibv_port_attr>()) }
    }
}
symver!(default ibv_query_port, "IBVERBS_1.1", ibv_query_port_v11);

export! {
    /// ibv_query_port_speed@@IBVERBS_1.16: the port's effective speed, in
    /// units of 100 Mb/s, into `*port_speed`, from the provider; 0 or an
    /// errno value (EOPNOTSUPP without provider support). A NULL context is
    /// EINVAL; a NULL `port_speed` is handled as [`query_without_output`]
    /// says.
    fn ibv_query_port_speed(context: *mut ibv_context, port_num: u32, port_speed: *mut u64) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(!context.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked non-NULL; a context the application got from this library.
        let Some(f) = unsafe { ops_of(context) }.query_port_speed else { return libc::EOPNOTSUPP };
        if port_speed.is_null() {
            let mut scratch = 0u64;
            // SAFETY: provider op with the caller's context and port, into a local.
            return query_without_output(unsafe { f(context, port_num, &mut scratch) });
        }
        // SAFETY: provider op with the caller's arguments.
        unsafe { f(context, port_num, port_speed) }
    }
}

fn is_zero_gid(g: &ibv_gid) -> bool {
    // SAFETY: every bit pattern of the 16 raw bytes is valid.
    unsafe { g.raw }.iter().all(|&b| b == 0)
}

/// Reads ports/<port>/gids/<index>: eight colon-separated 16-bit hex groups.
fn query_sysfs_gid(s: &verbs_sysfs_dev, port: u32, index: u32, gid: &mut ibv_gid) -> bool {
    let mut attr = [0u8; 41];
    let n = read_ibdev_file(s, rel(format_args!("ports/{port}/gids/{index}")).as_bytes(), &mut attr);
    if n < 0 {
        return false;
    }
    let mut raw = [0u8; 16];
    for i in 0..8 {
        let start = i * 5;
        let Some(v) = attr.get(start..).and_then(scan_hex16) else { return false };
        raw[i * 2] = (v >> 8) as u8;
        raw[i * 2 + 1] = v as u8;
    }
    gid.raw = raw;
    true
}

/// A sysfs path relative to a device, formatted on the stack. Its parts
/// are numbers, so it always fits.
fn rel(args: std::fmt::Arguments<'_>) -> rdma_util::fallible::FixedBuf<96> {
    let mut b = rdma_util::fallible::FixedBuf::new();
    let _ = std::fmt::Write::write_fmt(&mut b, args);
    b
}

/// sscanf("%hx") at the start of `s`.
fn scan_hex16(s: &[u8]) -> Option<u16> {
    let s = &s[..s.iter().position(|&b| b == 0).unwrap_or(s.len())];
    crate::util::scan_unsigned(s, 16).map(|(v, _)| v as u16)
}

/// Reads ports/<port>/gid_attrs/types/<index> the way upstream does,
/// including its guesses for kernels and link layers without the file.
fn query_sysfs_gid_type(s: &verbs_sysfs_dev, port: u32, index: u32) -> Result<ibv_gid_type_sysfs, ()> {
    let mut buf = [0u8; 11];
    rdma_util::ffi::set_errno(0);
    let n = read_ibdev_file(s, rel(format_args!("ports/{port}/gid_attrs/types/{index}")).as_bytes(), &mut buf);
    if n <= 0 {
        if rdma_util::ffi::errno() == libc::EINVAL {
            // InfiniBand ports have no type file; the kernel answers EINVAL.
            return Ok(IBV_GID_TYPE_SYSFS_IB_ROCE_V1);
        }
        let tail = rel(format_args!("/ports/{port}/gid_attrs/"));
        let Some(dir) = rdma_util::fallible::path(&[crate::util::cstr_field(&s.ibdev_path), tail.as_bytes()]) else {
            rdma_util::ffi::set_errno(libc::ENAMETOOLONG);
            return Err(());
        };
        // opendir() of the directory, as upstream.
        // SAFETY: dir is NUL-terminated (a path holds no NUL: it comes from
        // our own C string field and digits).
        let d = unsafe { libc::opendir(dir.as_c_ptr()) };
        if d.is_null() {
            if rdma_util::ffi::errno() == libc::ENOENT {
                return Ok(IBV_GID_TYPE_SYSFS_IB_ROCE_V1);
            }
            return Err(());
        }
        // SAFETY: closes the DIR opened above.
        unsafe { libc::closedir(d) };
        rdma_util::ffi::set_errno(libc::EFAULT);
        return Err(());
    }
    match &buf[..n as usize] {
        b"IB/RoCE v1" => Ok(IBV_GID_TYPE_SYSFS_IB_ROCE_V1),
        b"RoCE v2" => Ok(IBV_GID_TYPE_SYSFS_ROCE_V2),
        _ => {
            rdma_util::ffi::set_errno(libc::ENOTSUP);
            Err(())
        }
    }
}

/// The sysfs fallback of a GID entry query. Returns 0 or an errno.
///
/// # Safety
/// `context` is a live context of this library (its device is one of ours,
/// as [`sysfs_of`] requires).
unsafe fn query_sysfs_gid_entry(
    context: *mut ibv_context,
    port: u32,
    index: u32,
    entry: &mut ibv_gid_entry,
    mask: u32,
    mut link_layer: c_int,
) -> c_int {
    // SAFETY: the caller's live context; its device is one of ours and lives
    // at least as long as the context.
    let sysfs = unsafe { sysfs_of((*context).device) };
    if sysfs.is_null() {
        return libc::EINVAL;
    }
    // SAFETY: the record lives as long as the device.
    let s = unsafe { &*sysfs };
    entry.gid_index = index;
    entry.port_num = port;
    if mask & VERBS_QUERY_GID_ATTR_GID != 0 && !query_sysfs_gid(s, port, index, &mut entry.gid) {
        return libc::EINVAL;
    }
    if mask & VERBS_QUERY_GID_ATTR_TYPE != 0 {
        let Ok(t) = query_sysfs_gid_type(s, port, index) else { return libc::EINVAL };
        if t == IBV_GID_TYPE_SYSFS_IB_ROCE_V1 {
            if link_layer < 0 {
                // SAFETY: all-zero is a valid ibv_port_attr.
                let mut pa: ibv_port_attr = unsafe { std::mem::zeroed() };
                // SAFETY: full-size local buffer.
                let rc = unsafe { lib_query_port(context, port as u8, &mut pa, size_of::<ibv_port_attr>()) };
                if rc != 0 {
                    return rc;
                }
                link_layer = pa.link_layer as c_int;
            }
            entry.gid_type = if link_layer == IBV_LINK_LAYER_ETHERNET as c_int {
                IBV_GID_TYPE_ROCE_V1
            } else {
                IBV_GID_TYPE_IB
            };
        } else {
            entry.gid_type = IBV_GID_TYPE_ROCE_V2;
        }
    }
    if mask & VERBS_QUERY_GID_ATTR_NDEV_IFINDEX != 0 {
        let mut name = [0u8; libc::IF_NAMESIZE];
        let n = read_ibdev_file(s, rel(format_args!("ports/{port}/gid_attrs/ndevs/{index}")).as_bytes(), &mut name);
        if n <= 0 {
            entry.ndev_ifindex = 0;
        } else {
            // SAFETY: name is NUL-terminated by read_ibdev_file (n < len).
            entry.ndev_ifindex = unsafe { libc::if_nametoindex(name.as_ptr().cast()) };
            if entry.ndev_ifindex == 0 {
                return rdma_util::ffi::errno();
            }
        }
    }
    0
}

/// The kernel's answer to GID queries is remembered per context under the
/// async_event op's bit: neither query has an op of its own, and kernels that
/// lack one lack both.
const GID_QUERY_BIT: usize = crate::cmd::cmd_bit!(async_event);

/// UVERBS_METHOD_QUERY_GID_ENTRY.
///
/// # Safety
/// `context` is live; `entry` is writable for `entry_size` bytes.
unsafe fn gid_entry_ioctl(context: *mut ibv_context, port: u32, index: u32, entry: *mut ibv_gid_entry,
                          flags: u32, entry_size: usize) -> Fallback {
    let mut cmd_space = CmdSpace::new();
    let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_ENTRY, 4) {
        Ok(b) => b,
        Err(e) => return Fallback::Error(e),
    };
    cmdb.fill_const_in(UVERBS_ATTR_QUERY_GID_ENTRY_PORT, port as u64);
    cmdb.fill_const_in(UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, index as u64);
    cmdb.fill_in_u32(UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, flags);
    // SAFETY: the caller's buffer, valid for entry_size bytes.
    unsafe {
        cmdb.fill_out(UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY, entry.cast(), entry_size);
        execute_ioctl_fallback(context, GID_QUERY_BIT, cmdb.as_ptr())
    }
}

/// UVERBS_METHOD_QUERY_GID_TABLE.
///
/// # Safety
/// `context` is live; `entries` is writable for max_entries * entry_size bytes.
unsafe fn gid_table_ioctl(context: *mut ibv_context, entries: *mut ibv_gid_entry, max_entries: usize,
                          flags: u32, entry_size: usize, num: &mut u64) -> Fallback {
    let mut cmd_space = CmdSpace::new();
    let mut cmdb = match CmdBuf::new_in(&mut cmd_space, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_TABLE, 4) {
        Ok(b) => b,
        Err(e) => return Fallback::Error(e),
    };
    cmdb.fill_const_in(UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, entry_size as u64);
    cmdb.fill_in_u32(UVERBS_ATTR_QUERY_GID_TABLE_FLAGS, flags);
    let len = entry_size.saturating_mul(max_entries);
    // SAFETY: the caller's array and our local counter outlive the call.
    unsafe {
        cmdb.fill_out(UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES, entries.cast(), len);
        cmdb.fill_out_ptr(UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, num as *mut u64);
        execute_ioctl_fallback(context, GID_QUERY_BIT, cmdb.as_ptr())
    }
}

/// Upstream's __ibv_query_gid_ex: the kernel's QUERY_GID_ENTRY method, or
/// sysfs where the kernel lacks it. Returns 0, ENODATA for an empty GID
/// (fallback path), or an errno.
///
/// # Safety
/// `context` is a live context; `entry` is NULL or writable for `entry_size`
/// bytes, and for a whole `ibv_gid_entry` (the sysfs fallback fills one).
pub(crate) unsafe fn query_gid_ex(
    context: *mut ibv_context,
    port: u32,
    index: u32,
    entry: *mut ibv_gid_entry,
    flags: u32,
    entry_size: usize,
    fallback_mask: u32,
) -> c_int {
    // SAFETY: live context; entry is the caller's buffer of entry_size bytes.
    match unsafe { gid_entry_ioctl(context, port, index, entry, flags, entry_size) } {
        Fallback::Success => 0,
        Fallback::Error(e) => e,
        Fallback::TryWrite | Fallback::TryWriteEx => {
            if flags != 0 {
                return libc::EOPNOTSUPP;
            }
            if entry.is_null() {
                return libc::EINVAL;
            }
            // SAFETY: the caller's entry buffer (at least a full ibv_gid_entry
            // on this path: checked by the callers).
            let e = unsafe { &mut *entry };
            // SAFETY: the caller's live context of this library.
            let ret = unsafe { query_sysfs_gid_entry(context, port, index, e, fallback_mask, -1) };
            if ret != 0 {
                return ret;
            }
            if fallback_mask & VERBS_QUERY_GID_ATTR_GID != 0 && is_zero_gid(&e.gid) {
                return libc::ENODATA;
            }
            0
        }
    }
}

export_versioned! {
    /// ibv_query_gid@@IBVERBS_1.1: 0, or -1 on failure; an empty GID is all zero.
    fn ibv_query_gid_v11(context: *mut ibv_context, port_num: u8, index: c_int, gid: *mut ibv_gid) -> c_int, on_panic = -1;
    {
        ensure!(!context.is_null() && !gid.is_null(), libc::EINVAL, -1);
        // SAFETY: checked non-NULL; the caller's live context and buffer.
        unsafe { query_gid(context, port_num, index, gid) }
    }
}
symver!(default ibv_query_gid, "IBVERBS_1.1", ibv_query_gid_v11);

/// ibv_query_gid's body: 0, or -1 on failure.
///
/// # Safety
/// `context` is a live context and `gid` is writable.
pub(crate) unsafe fn query_gid(context: *mut ibv_context, port_num: u8, index: c_int, gid: *mut ibv_gid) -> c_int {
    // SAFETY: all-zero is a valid ibv_gid_entry.
    let mut entry: ibv_gid_entry = unsafe { std::mem::zeroed() };
    // SAFETY: the caller's live context; a local entry of the size passed.
    let ret = unsafe {
        query_gid_ex(context, port_num as u32, index as u32, &mut entry, 0, size_of::<ibv_gid_entry>(), VERBS_QUERY_GID_ATTR_GID)
    };
    if ret == libc::ENODATA {
        // SAFETY: the caller's GID buffer.
        unsafe { (*gid).raw = [0; 16] };
        return 0;
    }
    if ret != 0 {
        return -1;
    }
    // SAFETY: as above.
    unsafe { *gid = entry.gid };
    0
}

rdma_util::export_versioned! {
    /// IBVERBS_PRIVATE_34 (used by ibv_devinfo): RoCE v1/IB or RoCE v2.
    fn ibv_query_gid_type(context: *mut ibv_context, port_num: u8, index: c_uint, type_: *mut ibv_gid_type_sysfs) -> c_int, on_panic = -1;
    {
        ensure!(!context.is_null() && !type_.is_null(), libc::EINVAL, -1);
        // SAFETY: all-zero is a valid ibv_gid_entry.
        let mut entry: ibv_gid_entry = unsafe { std::mem::zeroed() };
        // SAFETY: the caller's context (checked non-NULL); a local entry of
        // the size passed.
        let ret = unsafe {
            query_gid_ex(context, port_num as u32, index, &mut entry, 0, size_of::<ibv_gid_entry>(), VERBS_QUERY_GID_ATTR_TYPE)
        };
        // SAFETY: the caller's out-parameter (checked non-NULL).
        let out = unsafe { &mut *type_ };
        if ret == libc::ENODATA {
            *out = IBV_GID_TYPE_SYSFS_IB_ROCE_V1;
            return 0;
        }
        if ret != 0 {
            return -1;
        }
        *out = if entry.gid_type == IBV_GID_TYPE_IB || entry.gid_type == IBV_GID_TYPE_ROCE_V1 {
            IBV_GID_TYPE_SYSFS_IB_ROCE_V1
        } else {
            IBV_GID_TYPE_SYSFS_ROCE_V2
        };
        0
    }
}
private_abi_both!(ibv_query_gid_type);

export! {
    /// IBVERBS_1.11: one GID entry with type and netdev. Returns 0 or an errno.
    fn _ibv_query_gid_ex(context: *mut ibv_context, port_num: u32, gid_index: u32, entry: *mut ibv_gid_entry,
                         flags: u32, entry_size: usize) -> c_int, on_panic = libc::EIO;
    {
        // A NULL entry goes to the kernel as is (EFAULT, as upstream); the
        // sysfs fallback refuses it (query_gid_ex).
        ensure!(!context.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked non-NULL; the caller's live context and its entry
        // buffer of entry_size bytes (ibv_query_gid_ex's contract).
        unsafe {
            query_gid_ex(context, port_num, gid_index, entry, flags, entry_size,
                         VERBS_QUERY_GID_ATTR_GID | VERBS_QUERY_GID_ATTR_TYPE | VERBS_QUERY_GID_ATTR_NDEV_IFINDEX)
        }
    }
}

/// The sysfs fallback of the GID table query: every non-empty GID of every
/// port, `entry_size` bytes apart.
///
/// # Safety
/// `context` is a live context of this library; `entries` is writable for
/// `max_entries` entries `entry_size` (at least `size_of::<ibv_gid_entry>()`)
/// bytes apart.
unsafe fn query_gid_table_fb(context: *mut ibv_context, entries: *mut ibv_gid_entry, max_entries: usize,
                      num: &mut u64, entry_size: usize) -> c_int {
    // SAFETY: all-zero is a valid ibv_device_attr.
    let mut dev_attr: ibv_device_attr = unsafe { std::mem::zeroed() };
    // SAFETY: forwarding to our own export with a local buffer.
    let ret = unsafe { ibv_query_device_v11(context, &mut dev_attr) };
    if ret != 0 {
        return ret;
    }
    *num = 0;
    // SAFETY: all-zero is a valid ibv_gid_entry (integers and a byte array).
    let mut spare: ibv_gid_entry = unsafe { std::mem::zeroed() };
    let mut out = entries.cast::<u8>();
    let mask = VERBS_QUERY_GID_ATTR_GID | VERBS_QUERY_GID_ATTR_TYPE | VERBS_QUERY_GID_ATTR_NDEV_IFINDEX;
    for port in 1..=dev_attr.phys_port_cnt as u32 {
        // SAFETY: all-zero is a valid ibv_port_attr.
        let mut pa: ibv_port_attr = unsafe { std::mem::zeroed() };
        // SAFETY: full-size local buffer.
        let ret = unsafe { lib_query_port(context, port as u8, &mut pa, size_of::<ibv_port_attr>()) };
        if ret != 0 {
            return ret;
        }
        for j in 0..pa.gid_tbl_len.max(0) as u32 {
            let full = *num as usize == max_entries;
            // Once the caller's array is full, keep scanning into a spare
            // entry: the call only fails if another non-empty GID exists.
            let target: &mut ibv_gid_entry = if full {
                &mut spare
            } else {
                // SAFETY: out points inside the caller's array of
                // max_entries entries of entry_size bytes.
                unsafe { &mut *out.cast::<ibv_gid_entry>() }
            };
            // SAFETY: the caller's live context of this library.
            let ret = unsafe { query_sysfs_gid_entry(context, port, j, target, mask, pa.link_layer as c_int) };
            if ret != 0 {
                return ret;
            }
            if is_zero_gid(&target.gid) {
                continue;
            }
            if full {
                return libc::EINVAL;
            }
            *num += 1;
            // SAFETY: advancing within (or one past) the caller's array.
            out = unsafe { out.add(entry_size) };
        }
    }
    0
}

export! {
    /// IBVERBS_1.11: all valid GIDs of the device. Returns the count or a
    /// negative errno.
    fn _ibv_query_gid_table(context: *mut ibv_context, entries: *mut ibv_gid_entry, max_entries: usize,
                            flags: u32, entry_size: usize) -> isize, on_panic = -(libc::EIO as isize);
    {
        // A NULL array goes to the kernel as is (EFAULT, as upstream); only
        // the sysfs fallback, which writes through it, refuses it.
        ensure!(!context.is_null(), libc::EINVAL, -(libc::EINVAL as isize));
        let mut num: u64 = 0;
        // SAFETY: live context; the caller's array of max_entries entries.
        let ret = match unsafe { gid_table_ioctl(context, entries, max_entries, flags, entry_size, &mut num) } {
            Fallback::Success => 0,
            Fallback::Error(e) => e,
            Fallback::TryWrite | Fallback::TryWriteEx => {
                if flags != 0 {
                    return -(libc::EOPNOTSUPP as isize);
                }
                if entry_size < size_of::<ibv_gid_entry>() || (entries.is_null() && max_entries != 0) {
                    return -(libc::EINVAL as isize);
                }
                // SAFETY: checked non-NULL; the application's context and its
                // array of max_entries entries, entry_size (checked to hold an
                // ibv_gid_entry) bytes apart.
                unsafe { query_gid_table_fb(context, entries, max_entries, &mut num, entry_size) }
            }
        };
        if ret != 0 {
            return -(ret as isize);
        }
        num as isize
    }
}

/// Reads ports/<port>/pkeys/<index> into network order.
///
/// # Safety
/// `context` is a live context of this library (its device is one of ours,
/// as [`sysfs_of`] requires).
unsafe fn query_pkey(context: *mut ibv_context, port_num: u8, index: c_int, pkey: &mut u16) -> c_int {
    // SAFETY: the caller's live context; its device is one of ours and lives
    // at least as long as the context.
    let sysfs = unsafe { sysfs_of((*context).device) };
    if sysfs.is_null() {
        rdma_util::ffi::set_errno(libc::EINVAL);
        return -1;
    }
    let mut attr = [0u8; 8];
    // SAFETY: the record lives as long as the device.
    let n = read_ibdev_file(unsafe { &*sysfs }, rel(format_args!("ports/{port_num}/pkeys/{index}")).as_bytes(), &mut attr);
    if n < 0 {
        return -1;
    }
    let Some(v) = scan_hex16(&attr[..n as usize]) else { return -1 };
    *pkey = v.to_be();
    0
}

export_versioned! {
    /// ibv_query_pkey@@IBVERBS_1.1: the P_Key at `index`, network order.
    fn ibv_query_pkey_v11(context: *mut ibv_context, port_num: u8, index: c_int, pkey: *mut u16) -> c_int, on_panic = -1;
    {
        ensure!(!context.is_null() && !pkey.is_null(), libc::EINVAL, -1);
        // SAFETY: checked non-NULL: the application's context from this library
        // and its out-parameter.
        unsafe { query_pkey(context, port_num, index, &mut *pkey) }
    }
}
symver!(default ibv_query_pkey, "IBVERBS_1.1", ibv_query_pkey_v11);

export! {
    /// IBVERBS_1.5: the index of a P_Key (network order), or -1.
    fn ibv_get_pkey_index(context: *mut ibv_context, port_num: u8, pkey: u16) -> c_int, on_panic = -1;
    {
        ensure!(!context.is_null(), libc::EINVAL, -1);
        let mut i: c_int = 0;
        loop {
            let mut v = 0u16;
            // SAFETY: checked non-NULL; the application's context from this library.
            let ret = unsafe { query_pkey(context, port_num, i, &mut v) };
            if ret < 0 {
                return ret;
            }
            if v == pkey {
                return i;
            }
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex16() {
        assert_eq!(scan_hex16(b"fe80:0000"), Some(0xfe80));
        assert_eq!(scan_hex16(b"0000"), Some(0));
        assert_eq!(scan_hex16(b"0xffff"), Some(0xffff));
        assert_eq!(scan_hex16(b":"), None);
        assert_eq!(scan_hex16(b""), None);
    }

    mod port_speed {
        use super::super::*;
        use crate::testkit::ctx::FakeCtx;
        use rdma_util::ffi::{errno, set_errno};
        use std::cell::RefCell;

        thread_local! {
            /// (context, port) of each call, and what the op returns.
            static CALLS: RefCell<Vec<(usize, u32)>> = const { RefCell::new(Vec::new()) };
            static RET: RefCell<c_int> = const { RefCell::new(0) };
        }

        unsafe extern "C" fn p_speed(ctx: *mut ibv_context, port: u32, speed: *mut u64) -> c_int {
            CALLS.with(|c| c.borrow_mut().push((ctx as usize, port)));
            let r = RET.with(|r| *r.borrow());
            if r == 0 {
                // SAFETY: the caller's (or the library's scratch) output.
                unsafe { *speed = 4000 };
            }
            r
        }

        fn provider() -> FakeCtx {
            let mut c = FakeCtx::with_pabi(0, Pabi::P65);
            // SAFETY: all-zero is every op unset.
            let mut ops: crate::abi::driver65::verbs_context_ops = unsafe { std::mem::zeroed() };
            ops.query_port_speed = Some(p_speed);
            c.set_ops65(&ops);
            c
        }

        #[test]
        fn dispatches_to_the_provider() {
            let mut c = provider();
            let ctx = c.ctx();
            let mut speed = 0u64;
            // SAFETY: our live fake context and a local output.
            assert_eq!(unsafe { ibv_query_port_speed(ctx, 0x1_0002, &mut speed) }, 0);
            assert_eq!(speed, 4000);
            RET.with(|r| *r.borrow_mut() = libc::EIO);
            speed = 1;
            // SAFETY: as above.
            assert_eq!(unsafe { ibv_query_port_speed(ctx, 1, &mut speed) }, libc::EIO);
            assert_eq!(speed, 1);
            RET.with(|r| *r.borrow_mut() = 0);
            CALLS.with(|c| assert_eq!(*c.borrow(), vec![(ctx as usize, 0x1_0002), (ctx as usize, 1)]));
        }

        #[test]
        fn without_the_op_it_is_eopnotsupp() {
            for pabi in [Pabi::P34, Pabi::P65] {
                let mut c = FakeCtx::with_pabi(0, pabi);
                let mut speed = 9u64;
                set_errno(0);
                // SAFETY: our live fake context with the default ops.
                assert_eq!(unsafe { ibv_query_port_speed(c.ctx(), 1, &mut speed) }, libc::EOPNOTSUPP);
                // Upstream's NULL output reaches the default op, which ignores it.
                // SAFETY: as above; NULL output on purpose.
                assert_eq!(unsafe { ibv_query_port_speed(c.ctx(), 1, ptr::null_mut()) }, libc::EOPNOTSUPP);
                assert_eq!((speed, errno()), (9, 0), "{pabi:?}");
            }
        }

        #[test]
        fn null_arguments() {
            let mut speed = 0u64;
            set_errno(0);
            // SAFETY: rejected before use.
            assert_eq!(unsafe { ibv_query_port_speed(ptr::null_mut(), 1, &mut speed) }, libc::EINVAL);
            assert_eq!(errno(), libc::EINVAL);
            let mut c = provider();
            // A provider that fails keeps its error; one that succeeds would
            // have written through NULL.
            RET.with(|r| *r.borrow_mut() = libc::ENODEV);
            // SAFETY: our live fake context; NULL output on purpose.
            assert_eq!(unsafe { ibv_query_port_speed(c.ctx(), 1, ptr::null_mut()) }, libc::ENODEV);
            RET.with(|r| *r.borrow_mut() = 0);
            set_errno(0);
            // SAFETY: as above.
            assert_eq!(unsafe { ibv_query_port_speed(c.ctx(), 1, ptr::null_mut()) }, libc::EINVAL);
            assert_eq!(errno(), libc::EINVAL);
            assert_eq!(CALLS.with(|c| c.borrow().len()), 2);
        }
    }
}
