//! The provider loader: reading /etc/libibverbs.d, dlopen()ing the C provider
//! libraries, the driver registry filled by verbs_register_driver_34 and
//! verbs_register_driver_65 (which also tell each driver's private ABI), and
//! matching devices to providers (driver id, name, modalias, PCI ids, ABI
//! range) exactly in upstream's order.

use std::ffi::{c_char, CStr};
use std::ptr;
use std::sync::atomic::Ordering;

use parking_lot::Mutex;

use crate::abi::driver::*;
use crate::abi::verbs::*;
use crate::log::PFX;
use crate::pabi::Pabi;
use crate::sysfs::{read_file, sysfs_root};
use crate::util::{cstr_field, env_bytes, not_setuid, set_cstr_field, warning};
use rdma_util::fallible::{display_lossy as lossy, path, FixedBuf};
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

/// The registered driver number `i`, if there is one. Read one at a time,
/// without holding the lock across the provider's callbacks (a provider may
/// load another library, whose constructor registers).
fn registered(i: usize) -> Option<*const verbs_device_ops> {
    DRIVERS.lock().0.get(i).map(|d| d.0)
}

/// Adds a driver, or warns as upstream does when its record cannot be
/// allocated (the driver then stays unregistered).
fn register(ops: *const verbs_device_ops, pabi: Pabi) {
    if rdma_util::fallible::push(&mut DRIVERS.lock().0, (ops, pabi)).is_err() {
        // SAFETY: a provider's ops carry its static C string name (or NULL).
        let name = unsafe { (*ops).name };
        let name = if name.is_null() { &b""[..] } else { unsafe { CStr::from_ptr(name) }.to_bytes() };
        warning!("{PFX}Warning: couldn't allocate driver for {}\n", lossy(name));
    }
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
        register(ops, Pabi::P34);
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
        register(ops.cast::<verbs_device_ops>(), Pabi::P65);
    }
}

/// The whole of a file, read into a Vec grown with `try_reserve`; None
/// when it cannot be opened or read, or the memory is not there.
fn read_whole_file(path: &CStr) -> Option<Vec<u8>> {
    // SAFETY: path is NUL-terminated.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return None;
    }
    let mut text: Vec<u8> = Vec::new();
    let ok = loop {
        if text.try_reserve(4096).is_err() {
            break false;
        }
        let room = text.capacity() - text.len();
        // SAFETY: the spare capacity holds `room` writable bytes.
        let n = unsafe { libc::read(fd, text.as_mut_ptr().add(text.len()).cast(), room) };
        match n {
            0 => break true,
            n if n > 0 => {
                // SAFETY: read() initialised n more bytes.
                unsafe { text.set_len(text.len() + n as usize) };
            }
            _ if rdma_util::ffi::errno() == libc::EINTR => {}
            _ => break false,
        }
    };
    // SAFETY: fd was opened above and is closed once.
    unsafe { libc::close(fd) };
    ok.then_some(text)
}

/// Parses one config file's "driver NAME" lines into `names`. Bad
/// directives are warned about, as upstream does, and so is a name that
/// cannot be kept for want of memory. Names are added in file order.
fn read_config_file(path: &CStr, names: &mut Vec<Vec<u8>>) {
    let shown = lossy(path.to_bytes());
    let Some(text) = read_whole_file(path) else {
        warning!("{PFX}Warning: couldn't read config file {shown}.\n");
        return;
    };
    for raw in text.split_inclusive(|&b| b == b'\n') {
        let line = trim_start_blank(raw);
        if line.is_empty() || line[0] == b'\n' || line[0] == b'#' {
            continue;
        }
        let (field, rest) = split_token(line);
        if field == b"driver" {
            if let Some(rest) = rest {
                let (name, _) = split_token(trim_start_blank(rest));
                let kept = rdma_util::fallible::concat(&[name]).and_then(|n| rdma_util::fallible::push(names, n));
                if kept.is_err() {
                    warning!("{PFX}Warning: couldn't allocate driver name '{}'.\n", lossy(name));
                }
                continue;
            }
        }
        warning!("{PFX}Warning: ignoring bad config directive '{}' in file '{shown}'.\n", lossy(field));
    }
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
fn read_config() -> Vec<Vec<u8>> {
    let mut names = Vec::new();
    let dir = path(&[CONFIG_DIR.as_bytes()]).expect("a short constant");
    let listed = rdma_util::fallible::for_each_dir_entry(libc::AT_FDCWD, dir.c_str().expect("no NUL"), |entry| {
        let Some(p) = path(&[CONFIG_DIR.as_bytes(), b"/", entry]) else {
            // Upstream's asprintf failing: it stops reading the directory.
            warning!("{PFX}Warning: couldn't read config file {CONFIG_DIR}/{}.\n", lossy(entry));
            return false;
        };
        let Some(c) = p.c_str() else { return true };
        // SAFETY: zeroed stat is a valid out-buffer; c is NUL-terminated.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: as above.
        if unsafe { libc::stat(c.as_ptr(), &mut st) } != 0 {
            warning!("{PFX}Warning: couldn't stat config file '{}'.\n", lossy(p.as_bytes()));
        } else if st.st_mode & libc::S_IFMT == libc::S_IFREG {
            read_config_file(c, &mut names);
        }
        true
    });
    if listed.is_err() {
        warning!("{PFX}Warning: couldn't open config directory '{CONFIG_DIR}'.\n");
    }
    names.reverse();
    names
}

/// dlopen(path, RTLD_NOW); on failure, dlerror()'s message (empty when it
/// has none), which stays valid until the thread's next dl call.
fn dlopen_now(path: &CStr) -> Result<(), &'static [u8]> {
    // SAFETY: path is NUL-terminated; the handle is intentionally never
    // closed (providers stay loaded for the life of the process, as upstream).
    let h = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW) };
    if !h.is_null() {
        return Ok(());
    }
    // SAFETY: dlerror returns NULL or a thread-local C string, valid until
    // the next dl call of this thread; it is printed before any.
    let e = unsafe { libc::dlerror() };
    // SAFETY: as above.
    Err(if e.is_null() { &[] } else { unsafe { CStr::from_ptr(e) }.to_bytes() })
}

/// The provider suffixes in the order to try them: the private ABI of the
/// installed providers first. A system has the providers of one release, so
/// the first suffix is also the one a failure is reported with, as that
/// release's own libibverbs would.
fn suffix_order() -> [&'static str; 2] {
    static ORDER: std::sync::OnceLock<[&'static str; 2]> = std::sync::OnceLock::new();
    *ORDER.get_or_init(|| suffix_order_in(PROVIDER_DIR.as_bytes()))
}

fn suffix_order_in(dir: &[u8]) -> [&'static str; 2] {
    let [new, old] = PROVIDER_SUFFIXES;
    let mut has_new = false;
    if let Some(c) = path(&[dir]) {
        let _ = rdma_util::fallible::for_each_dir_entry(libc::AT_FDCWD, c.c_str().unwrap_or(c"/nonexistent"), |e| {
            has_new = e.ends_with(new.as_bytes());
            !has_new
        });
    }
    if has_new { [new, old] } else { [old, new] }
}

/// Loads one provider by name: an absolute path (plus suffix), else from the
/// provider directory, else through the library search path; each with the
/// suffixes in [`suffix_order`].
fn load_driver(name: &[u8]) {
    let order = suffix_order();
    // The first failure is the one reported: its file name and dlerror().
    let mut first_err: Option<(FixedBuf<4096>, FixedBuf<1024>)> = None;
    for suffix in order {
        let so = if name.first() == Some(&b'/') {
            path(&[name, suffix.as_bytes()])
        } else {
            if let Some(p) = path(&[PROVIDER_DIR.as_bytes(), b"/lib", name, suffix.as_bytes()]) {
                if p.c_str().is_some_and(|c| dlopen_now(c).is_ok()) {
                    return;
                }
            }
            path(&[b"lib", name, suffix.as_bytes()])
        };
        let Some(so) = so.filter(|p| p.c_str().is_some()) else {
            // Upstream's asprintf failing (here: a name too long for a path).
            if first_err.is_none() {
                warning!("{PFX}Warning: couldn't load driver '{}'.\n", lossy(name));
                return;
            }
            continue;
        };
        match dlopen_now(so.c_str().expect("checked")) {
            Ok(()) => return,
            Err(e) => {
                if first_err.is_none() {
                    let mut msg = FixedBuf::new();
                    let _ = msg.push(&e[..e.len().min(1023)]);
                    first_err = Some((so, msg));
                }
            }
        }
    }
    if let Some((so, e)) = first_err {
        warning!("{PFX}Warning: couldn't load driver '{}': {}\n", lossy(so.as_bytes()), lossy(e.as_bytes()));
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
        let env = env_bytes(c"RDMAV_DRIVERS").or_else(|| env_bytes(c"IBV_DRIVERS"));
        if let Some(list) = env {
            for n in list.split(|&b| b == b':' || b == b';') {
                load_driver(n);
            }
        }
    }
    for n in names {
        load_driver(&n);
    }
    *loaded = true;
    true
}

/// fnmatch(3) with flags 0, of a value of at most 511 bytes (longer ones
/// match nothing).
fn fnmatch(pattern: &CStr, value: &[u8]) -> bool {
    let Some(v) = FixedBuf::<512>::of(&[value]) else { return false };
    let Some(v) = v.c_str() else { return false };
    // SAFETY: both are NUL-terminated.
    unsafe { libc::fnmatch(pattern.as_ptr(), v.as_ptr(), 0) == 0 }
}

/// A provider's match table, entry by entry up to the sentinel.
fn match_table(ops: &verbs_device_ops) -> impl Iterator<Item = *const verbs_match_ent> {
    let mut p = ops.match_table;
    std::iter::from_fn(move || {
        // SAFETY: providers terminate their table with a VERBS_MATCH_SENTINEL
        // entry; p never passes it.
        if p.is_null() || unsafe { (*p).kind } == VERBS_MATCH_SENTINEL {
            return None;
        }
        let e = p;
        // SAFETY: e is not the sentinel, so the table goes on after it.
        p = unsafe { p.add(1) };
        Some(e)
    })
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
            fnmatch(unsafe { CStr::from_ptr(pat) }, value)
        }
        VERBS_MATCH_PCI => {
            let Some(pat) = rdma_util::fixed_format!(64; "pci:v{:08X}d{:08X}sv*", ent.vendor, ent.device) else {
                return false;
            };
            pat.c_str().is_some_and(|p| fnmatch(p, value))
        }
        _ => false,
    }
}

fn match_driver_id(ops: &verbs_device_ops, s: &verbs_sysfs_dev) -> *const verbs_match_ent {
    if s.driver_id == 0 {
        return ptr::null();
    }
    match_table(ops)
        // SAFETY: entries of a live match table.
        .find(|&e| unsafe { (*e).kind == VERBS_MATCH_DRIVER_ID && (*e).u.driver_id == s.driver_id as u64 })
        .unwrap_or(ptr::null())
}

fn match_name(ops: &verbs_device_ops, s: &verbs_sysfs_dev) -> *const verbs_match_ent {
    let Some(name) = FixedBuf::<100>::of(&[b"rdma_device:N", cstr_field(&s.ibdev_name)]) else {
        return ptr::null();
    };
    match_table(ops)
        // SAFETY: entries of a live match table.
        .find(|&e| match_modalias(unsafe { &*e }, name.as_bytes()))
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
    let value = cstr_field(&s.modalias);
    match_table(ops)
        // SAFETY: entries of a live match table.
        .find(|&e| match_modalias(unsafe { &*e }, value))
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
        let name = lossy(unsafe { CStr::from_ptr(ops.name) }.to_bytes());
        warning!(
            "{PFX}Warning: Driver {name} does not support the kernel ABI of {} (supports {} to {}) for device {}\n",
            sd.abi_ver,
            ops.match_min_abi_version,
            ops.match_max_abi_version,
            rdma_util::fallible::display_lossy(cstr_field(&sd.ibdev_path))
        );
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
    let p = path(&[sysfs_root(), b"/class/infiniband_verbs/", cstr_field(&s.sysfs_name)]);
    if !p.is_some_and(|p| set_cstr_field(&mut dev.dev_path, p.as_bytes())) {
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
        warning!(
            "{PFX}Fatal: couldn't allocate device for {}\n",
            rdma_util::fallible::display_lossy(cstr_field(&sd.ibdev_path))
        );
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
    let drivers = || (0..).map_while(registered);
    // SAFETY: s is our live record.
    let driver_id = unsafe { (*s).driver_id };
    if driver_id != 0 {
        for d in drivers() {
            // SAFETY: registered ops tables are alive; s is our record.
            if !match_driver_id(unsafe { &*d }, unsafe { &*s }).is_null() {
                if let Some(v) = try_driver(d, s) {
                    return Some(v);
                }
            }
        }
    }
    drivers().find_map(|d| try_driver(d, s))
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
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        let mut names = Vec::new();
        read_config_file(&c, &mut names);
        assert_eq!(names, [b"mlx5".to_vec(), b"foo".to_vec()]);
        std::fs::remove_file(&p).unwrap();
    }

    #[test]
    fn the_installed_providers_suffix_comes_first() {
        let home = std::env::var_os("HOME").map(std::path::PathBuf::from).unwrap_or_default();
        let ul = home.join(".cache/rdma-core-rs/userland");
        let inside = PROVIDER_DIR.trim_start_matches('/');
        // Debian 12 (the host) and 13 install -rdmav34.so providers, sid
        // -rdmav65.so ones; an empty or missing directory keeps 34 first.
        assert_eq!(suffix_order_in(PROVIDER_DIR.as_bytes()), ["-rdmav34.so", "-rdmav65.so"]);
        for (suite, first) in [("trixie", "-rdmav34.so"), ("sid", "-rdmav65.so")] {
            let dir = ul.join(suite).join(inside);
            if dir.is_dir() {
                assert_eq!(suffix_order_in(dir.as_os_str().as_encoded_bytes())[0], first, "{}", dir.display());
            }
        }
        assert_eq!(suffix_order_in(b"/nonexistent"), ["-rdmav34.so", "-rdmav65.so"]);
    }

    /// /etc/libibverbs.d files, mutated from a valid one and random: the
    /// parser must not panic, and every driver name it keeps is a single
    /// token (no blank, newline or NUL).
    #[test]
    fn fuzz_config_files() {
        let p = std::env::temp_dir().join(format!("ibv-cfg-fuzz-{}", std::process::id()));
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        let valid = b"# comment\n\n  driver   mlx5\ndriver\trxe\nfoo bar\ndriver\n";
        // The warnings (random bytes) go to stderr's descriptor directly,
        // past the test harness's capture: to /dev/null for the run.
        // SAFETY: plain descriptor calls; fd 2 is restored below.
        let saved = unsafe { libc::dup(2) };
        // SAFETY: as above.
        unsafe {
            let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY);
            libc::dup2(null, 2);
            libc::close(null);
        }
        rdma_util::fuzz::run(
            "libibverbs.d",
            3_000,
            |r| if r.below(2) == 0 { r.mutate(valid) } else { let n = r.below(80); r.bytes(n) },
            |text| {
                std::fs::write(&p, text).unwrap();
                let mut names = Vec::new();
                // Warnings for bad directives go to stderr, as upstream's.
                read_config_file(&c, &mut names);
                for n in &names {
                    assert!(!n.iter().any(|&b| b == b' ' || b == b'\t' || b == b'\n'), "{n:?}");
                }
            },
        );
        // SAFETY: puts back the stderr saved above.
        unsafe {
            libc::dup2(saved, 2);
            libc::close(saved);
        }
        std::fs::remove_file(&p).unwrap();
    }

    #[test]
    fn globbing() {
        assert!(fnmatch(c"rdma_device:*N*rxe*", b"rdma_device:Nrxe0"));
        assert!(!fnmatch(c"pci:v000015B3d00001017sv*", b"pci:v000015B3d00001018sv0"));
    }
}
