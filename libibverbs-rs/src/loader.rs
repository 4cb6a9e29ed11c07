//! The provider loader: reading /etc/libibverbs.d, dlopen()ing the C provider
//! libraries, the driver registry filled by verbs_register_driver_34 and
//! verbs_register_driver_65 (which also tell each driver's private ABI), and
//! matching devices to providers (driver id, name, modalias, PCI ids, ABI
//! range) exactly in upstream's order.

use std::ffi::{c_char, CStr, CString};
use std::ptr;
use std::sync::atomic::Ordering;

use parking_lot::Mutex;

use crate::abi::driver::*;
use crate::abi::verbs::*;
use crate::log::PFX;
use crate::pabi::Pabi;
use crate::sysfs::{read_file, sysfs_root};
use crate::util::{cstr_field, env_bytes, not_setuid, set_cstr_field, warn};
use rdma_util::{ensure, export};

/// Where Debian installs the providers.
#[cfg(target_arch = "x86_64")]
const DEBIAN_PROVIDER_DIR: &str = "/usr/lib/x86_64-linux-gnu/libibverbs";
#[cfg(target_arch = "aarch64")]
const DEBIAN_PROVIDER_DIR: &str = "/usr/lib/aarch64-linux-gnu/libibverbs";
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const DEBIAN_PROVIDER_DIR: &str = "/usr/lib/libibverbs";
/// The provider directory: Debian's, unless the build names another with
/// RDMA_CORE_RS_PROVIDER_DIR (packaging/build-rpm: Fedora's
/// /usr/lib64/libibverbs), as upstream's comes from its build's libdir.
pub(crate) const PROVIDER_DIR: &str = match option_env!("RDMA_CORE_RS_PROVIDER_DIR") {
    Some(dir) => dir,
    None => DEBIAN_PROVIDER_DIR,
};
/// The providers' file name suffixes: the private ABI number in them is the
/// one the provider speaks. Newest first.
pub(crate) const PROVIDER_SUFFIXES: [&str; 2] = ["-rdmav65.so", "-rdmav34.so"];
pub(crate) const CONFIG_DIR: &str = "/etc/libibverbs.d";

struct Registry(Vec<(*const verbs_device_ops, Pabi)>);
// SAFETY: the ops tables are immutable statics inside provider libraries that
// are never unloaded.
unsafe impl Send for Registry {}

/// Registered providers, in registration order.
static DRIVERS: Mutex<Registry> = Mutex::new(Registry(Vec::new()));
static DRIVERS_LOADED: Mutex<bool> = Mutex::new(false);

fn registered() -> Vec<*const verbs_device_ops> {
    DRIVERS.lock().0.iter().map(|d| d.0).collect()
}

/// The private ABI of the driver whose ops table a device carries (34 for a
/// table that never registered: the library's own test drivers).
pub(crate) fn pabi_of_ops(ops: *const verbs_device_ops) -> Pabi {
    DRIVERS.lock().0.iter().find(|d| d.0 == ops).map_or(Pabi::P34, |d| d.1)
}

export! {
    /// IBVERBS_PRIVATE_34: called by each provider's constructor when its
    /// library is loaded.
    fn verbs_register_driver_34(ops: *const verbs_device_ops) -> (), on_panic = ();
    {
        ensure!(!ops.is_null(), libc::EINVAL);
        DRIVERS.lock().0.push((ops, Pabi::P34));
    }
}

export! {
    /// IBVERBS_PRIVATE_65: as verbs_register_driver_34, for a provider of
    /// rdma-core 65. Its verbs_device_ops has 44's layout (65 names it anew
    /// only for the types its members point to), so it is kept as 44's; the
    /// contexts its alloc_context returns have 65's.
    fn verbs_register_driver_65(ops: *const crate::abi::driver65::verbs_device_ops) -> (), on_panic = ();
    {
        ensure!(!ops.is_null(), libc::EINVAL);
        DRIVERS.lock().0.push((ops.cast::<verbs_device_ops>(), Pabi::P65));
    }
}

/// Parses one config file's "driver NAME" lines. Bad directives are warned
/// about, as upstream does. Names are returned in file order.
fn read_config_file(path: &str) -> Vec<String> {
    let Ok(text) = std::fs::read(path) else {
        warn(&format!("{PFX}Warning: couldn't read config file {path}.\n"));
        return Vec::new();
    };
    let mut names = Vec::new();
    for raw in text.split_inclusive(|&b| b == b'\n') {
        let line = trim_start_blank(raw);
        if line.is_empty() || line[0] == b'\n' || line[0] == b'#' {
            continue;
        }
        let (field, rest) = split_token(line);
        if field == b"driver" {
            if let Some(rest) = rest {
                let (name, _) = split_token(trim_start_blank(rest));
                names.push(String::from_utf8_lossy(name).into_owned());
                continue;
            }
        }
        warn(&format!(
            "{PFX}Warning: ignoring bad config directive '{}' in file '{path}'.\n",
            String::from_utf8_lossy(field)
        ));
    }
    names
}

fn trim_start_blank(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
    &s[n..]
}

/// strsep(&s, "\n\t "): the token, and the rest after the delimiter (None when
/// the token ran to the end of the line without a delimiter).
fn split_token(s: &[u8]) -> (&[u8], Option<&[u8]>) {
    match s.iter().position(|&b| b == b'\n' || b == b'\t' || b == b' ') {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    }
}

/// Reads every regular file of the config directory, in readdir order. The
/// names are returned in the order upstream loads them (its list prepends, so
/// the last name read is loaded first).
fn read_config() -> Vec<String> {
    let Ok(rd) = std::fs::read_dir(CONFIG_DIR) else {
        warn(&format!("{PFX}Warning: couldn't open config directory '{CONFIG_DIR}'.\n"));
        return Vec::new();
    };
    let mut names = Vec::new();
    for e in rd.flatten() {
        let path = format!("{CONFIG_DIR}/{}", e.file_name().to_string_lossy());
        match std::fs::metadata(&path) {
            Err(_) => warn(&format!("{PFX}Warning: couldn't stat config file '{path}'.\n")),
            Ok(m) if m.is_file() => names.extend(read_config_file(&path)),
            Ok(_) => {}
        }
    }
    names.reverse();
    names
}

fn dlopen_now(path: &str) -> Result<(), String> {
    let c = CString::new(path).map_err(|_| "invalid name".to_string())?;
    // SAFETY: c is NUL-terminated; the handle is intentionally never closed
    // (providers stay loaded for the life of the process, as upstream).
    let h = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW) };
    if !h.is_null() {
        return Ok(());
    }
    // SAFETY: dlerror returns NULL or a thread-local C string.
    let e = unsafe { libc::dlerror() };
    Err(if e.is_null() {
        String::new()
    } else {
        // SAFETY: non-NULL dlerror string.
        unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
    })
}

/// The provider suffixes in the order to try them: the private ABI of the
/// installed providers first. A system has the providers of one release, so
/// the first suffix is also the one a failure is reported with, as that
/// release's own libibverbs would.
fn suffix_order() -> [&'static str; 2] {
    static ORDER: std::sync::OnceLock<[&'static str; 2]> = std::sync::OnceLock::new();
    *ORDER.get_or_init(|| suffix_order_in(std::path::Path::new(PROVIDER_DIR)))
}

fn suffix_order_in(dir: &std::path::Path) -> [&'static str; 2] {
    let [new, old] = PROVIDER_SUFFIXES;
    let has_new = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().any(|e| e.file_name().to_string_lossy().ends_with(new)))
        .unwrap_or(false);
    if has_new { [new, old] } else { [old, new] }
}

/// Loads one provider by name: an absolute path (plus suffix), else from the
/// provider directory, else through the library search path; each with the
/// suffixes in [`suffix_order`].
fn load_driver(name: &str) {
    let order = suffix_order();
    let mut first_err = None;
    for suffix in order {
        let so = if name.starts_with('/') {
            format!("{name}{suffix}")
        } else {
            if dlopen_now(&format!("{PROVIDER_DIR}/lib{name}{suffix}")).is_ok() {
                return;
            }
            format!("lib{name}{suffix}")
        };
        match dlopen_now(&so) {
            Ok(()) => return,
            Err(e) => {
                first_err.get_or_insert((so, e));
            }
        }
    }
    if let Some((so, e)) = first_err {
        warn(&format!("{PFX}Warning: couldn't load driver '{so}': {e}\n"));
    }
}

/// Loads the providers the first time it is called; returns whether it did.
pub(crate) fn load_drivers_once() -> bool {
    let mut loaded = DRIVERS_LOADED.lock();
    if *loaded {
        return false;
    }
    let names = read_config();
    if not_setuid() {
        let env = env_bytes("RDMAV_DRIVERS").or_else(|| env_bytes("IBV_DRIVERS"));
        if let Some(list) = env {
            for n in list.split(|&b| b == b':' || b == b';') {
                load_driver(&String::from_utf8_lossy(n));
            }
        }
    }
    for n in names {
        load_driver(&n);
    }
    *loaded = true;
    true
}

/// fnmatch(3) with flags 0.
fn fnmatch(pattern: &[u8], value: &[u8]) -> bool {
    let (Ok(p), Ok(v)) = (CString::new(pattern), CString::new(value)) else { return false };
    // SAFETY: both are NUL-terminated.
    unsafe { libc::fnmatch(p.as_ptr(), v.as_ptr(), 0) == 0 }
}

/// Iterates a provider's match table up to the sentinel.
fn match_table(ops: &verbs_device_ops) -> Vec<*const verbs_match_ent> {
    let mut v = Vec::new();
    let mut p = ops.match_table;
    if p.is_null() {
        return v;
    }
    // SAFETY: providers terminate their table with a VERBS_MATCH_SENTINEL entry.
    unsafe {
        while (*p).kind != VERBS_MATCH_SENTINEL {
            v.push(p);
            p = p.add(1);
        }
    }
    v
}

fn match_modalias(ent: &verbs_match_ent, value: &[u8]) -> bool {
    match ent.kind {
        VERBS_MATCH_MODALIAS => {
            // SAFETY: for MODALIAS entries the union holds a C string pointer.
            let pat = unsafe { ent.u.modalias };
            if pat.is_null() {
                return false;
            }
            // SAFETY: providers' modalias patterns are static C strings.
            fnmatch(unsafe { CStr::from_ptr(pat) }.to_bytes(), value)
        }
        VERBS_MATCH_PCI => {
            let pat = format!("pci:v{:08X}d{:08X}sv*", ent.vendor, ent.device);
            fnmatch(pat.as_bytes(), value)
        }
        _ => false,
    }
}

fn match_driver_id(ops: &verbs_device_ops, s: &verbs_sysfs_dev) -> *const verbs_match_ent {
    if s.driver_id == 0 {
        return ptr::null();
    }
    match_table(ops)
        .into_iter()
        // SAFETY: entries of a live match table.
        .find(|&e| unsafe { (*e).kind == VERBS_MATCH_DRIVER_ID && (*e).u.driver_id == s.driver_id as u64 })
        .unwrap_or(ptr::null())
}

fn match_name(ops: &verbs_device_ops, s: &verbs_sysfs_dev) -> *const verbs_match_ent {
    let mut name = b"rdma_device:N".to_vec();
    name.extend_from_slice(cstr_field(&s.ibdev_name));
    if name.len() >= 100 {
        return ptr::null();
    }
    match_table(ops)
        .into_iter()
        // SAFETY: entries of a live match table.
        .find(|&e| match_modalias(unsafe { &*e }, &name))
        .unwrap_or(ptr::null())
}

fn match_modalias_device(ops: &verbs_device_ops, s: &mut verbs_sysfs_dev) -> *const verbs_match_ent {
    if s.flags & VSYSFS_READ_MODALIAS == 0 {
        s.flags |= VSYSFS_READ_MODALIAS;
        let mut buf = [0u8; 512];
        let n = read_file(cstr_field(&s.ibdev_path), b"device/modalias", &mut buf);
        if n <= 0 {
            s.modalias[0] = 0;
            return ptr::null();
        }
        for (d, b) in s.modalias.iter_mut().zip(buf.iter()) {
            *d = *b as c_char;
        }
    }
    let value = cstr_field(&s.modalias).to_vec();
    match_table(ops)
        .into_iter()
        // SAFETY: entries of a live match table.
        .find(|&e| match_modalias(unsafe { &*e }, &value))
        .unwrap_or(ptr::null())
}

fn match_device(ops: &verbs_device_ops, s: *mut verbs_sysfs_dev) -> bool {
    // SAFETY: s is our live sysfs record, not shared with another thread
    // (discovery runs under the device-list lock).
    let sd = unsafe { &mut *s };
    if !ops.match_table.is_null() {
        sd.match_ = match_driver_id(ops, sd);
        if sd.match_.is_null() {
            sd.match_ = match_name(ops, sd);
        }
        if sd.match_.is_null() {
            sd.match_ = match_modalias_device(ops, sd);
        }
    }
    match ops.match_device {
        // SAFETY: provider callback with our live record.
        Some(f) => {
            if !unsafe { f(s) } {
                return false;
            }
        }
        None => {
            if sd.match_.is_null() {
                return false;
            }
        }
    }
    if sd.abi_ver < ops.match_min_abi_version || sd.abi_ver > ops.match_max_abi_version {
        // SAFETY: provider names are static C strings.
        let name = unsafe { CStr::from_ptr(ops.name) }.to_string_lossy();
        warn(&format!(
            "{PFX}Warning: Driver {name} does not support the kernel ABI of {} (supports {} to {}) for device {}\n",
            sd.abi_ver,
            ops.match_min_abi_version,
            ops.match_max_abi_version,
            String::from_utf8_lossy(cstr_field(&sd.ibdev_path))
        ));
        return false;
    }
    true
}

/// Fills the public ibv_device fields of a freshly claimed device.
///
/// # Safety
/// `vdev` points to a writable `verbs_device` that no one else uses yet (the
/// provider's alloc_device just returned it).
unsafe fn init_device_fields(vdev: *mut verbs_device, s: &verbs_sysfs_dev) -> bool {
    // SAFETY: vdev was just returned by the provider's alloc_device.
    let dev = unsafe { &mut (*vdev).device };
    dev.node_type = s.node_type;
    dev.transport_type = match s.node_type {
        IBV_NODE_CA | IBV_NODE_SWITCH | IBV_NODE_ROUTER => IBV_TRANSPORT_IB,
        IBV_NODE_RNIC => IBV_TRANSPORT_IWARP,
        IBV_NODE_USNIC => IBV_TRANSPORT_USNIC,
        IBV_NODE_USNIC_UDP => IBV_TRANSPORT_USNIC_UDP,
        IBV_NODE_UNSPECIFIED => IBV_TRANSPORT_UNSPECIFIED,
        _ => IBV_TRANSPORT_UNKNOWN,
    };
    set_cstr_field(&mut dev.dev_name, cstr_field(&s.sysfs_name));
    let mut p = sysfs_root().to_vec();
    p.extend_from_slice(b"/class/infiniband_verbs/");
    p.extend_from_slice(cstr_field(&s.sysfs_name));
    if !set_cstr_field(&mut dev.dev_path, &p) {
        return false;
    }
    set_cstr_field(&mut dev.name, cstr_field(&s.ibdev_name));
    set_cstr_field(&mut dev.ibdev_path, cstr_field(&s.ibdev_path));
    true
}

fn try_driver(ops_ptr: *const verbs_device_ops, s: *mut verbs_sysfs_dev) -> Option<*mut verbs_device> {
    // SAFETY: registered ops tables live for the whole process.
    let ops = unsafe { &*ops_ptr };
    if !match_device(ops, s) {
        return None;
    }
    let alloc = ops.alloc_device?;
    // SAFETY: provider callback with our live record.
    let vdev = unsafe { alloc(s) };
    // SAFETY: s is our live record.
    let sd = unsafe { &*s };
    if vdev.is_null() {
        warn(&format!(
            "{PFX}Fatal: couldn't allocate device for {}\n",
            String::from_utf8_lossy(cstr_field(&sd.ibdev_path))
        ));
        return None;
    }
    // SAFETY: vdev is the provider's freshly allocated device.
    unsafe {
        (*vdev).ops = ops_ptr;
        std::sync::atomic::AtomicI32::from_ptr(ptr::addr_of_mut!((*vdev).refcount).cast::<i32>())
            .store(1, Ordering::Release);
    }
    // SAFETY: vdev is the provider's freshly allocated device, not yet shared.
    if !unsafe { init_device_fields(vdev, sd) } {
        if let Some(uninit) = ops.uninit_device {
            // SAFETY: undoing the provider's allocation.
            unsafe { uninit(vdev) };
        }
        return None;
    }
    Some(vdev)
}

/// Offers a device to the registered providers: driver-id matches first, then
/// every provider in registration order.
///
/// # Safety
/// `s` points to a live sysfs record that outlives the call.
pub(crate) unsafe fn try_drivers(s: *mut verbs_sysfs_dev) -> Option<*mut verbs_device> {
    let drivers = registered();
    // SAFETY: s is our live record.
    let driver_id = unsafe { (*s).driver_id };
    if driver_id != 0 {
        for &d in &drivers {
            // SAFETY: registered ops tables are alive; s is our record.
            if !match_driver_id(unsafe { &*d }, unsafe { &*s }).is_null() {
                if let Some(v) = try_driver(d, s) {
                    return Some(v);
                }
            }
        }
    }
    drivers.into_iter().find_map(|d| try_driver(d, s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens() {
        assert_eq!(split_token(b"driver rxe\n"), (&b"driver"[..], Some(&b"rxe\n"[..])));
        assert_eq!(split_token(b"driver"), (&b"driver"[..], None));
        assert_eq!(trim_start_blank(b" \tdriver"), b"driver");
    }

    #[test]
    fn config_file() {
        let p = std::env::temp_dir().join(format!("ibv-cfg-{}", std::process::id()));
        std::fs::write(&p, b"# comment\n\n  driver   mlx5\ndriver\tfoo bar\n").unwrap();
        let names = read_config_file(p.to_str().unwrap());
        assert_eq!(names, vec!["mlx5".to_string(), "foo".to_string()]);
        std::fs::remove_file(&p).unwrap();
    }

    #[test]
    fn the_installed_providers_suffix_comes_first() {
        let home = std::env::var_os("HOME").map(std::path::PathBuf::from).unwrap_or_default();
        let ul = home.join(".cache/rdma-core-rs/userland");
        let inside = PROVIDER_DIR.trim_start_matches('/');
        // Debian 12 (the host) and 13 install -rdmav34.so providers, sid
        // -rdmav65.so ones; an empty or missing directory keeps 34 first.
        assert_eq!(suffix_order_in(std::path::Path::new(PROVIDER_DIR)), ["-rdmav34.so", "-rdmav65.so"]);
        for (suite, first) in [("trixie", "-rdmav34.so"), ("sid", "-rdmav65.so")] {
            let dir = ul.join(suite).join(inside);
            if dir.is_dir() {
                assert_eq!(suffix_order_in(&dir)[0], first, "{}", dir.display());
            }
        }
        assert_eq!(suffix_order_in(std::path::Path::new("/nonexistent")), ["-rdmav34.so", "-rdmav65.so"]);
    }

    #[test]
    fn globbing() {
        assert!(fnmatch(b"rdma_device:*N*rxe*", b"rdma_device:Nrxe0"));
        assert!(!fnmatch(b"pci:v000015B3d00001017sv*", b"pci:v000015B3d00001018sv0"));
    }
}
