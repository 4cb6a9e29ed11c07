//! Which rdma-core release built a provider.
//!
//! IBVERBS_PRIVATE_34 is the private ABI of rdma-core 34 to 56, and one of
//! its functions changed within it: from rdma-core 54 on, providers call
//! ibv_cmd_reg_dmabuf_mr with a trailing `struct ibv_command_buffer *driver`.
//! Debian 12's providers (44) pass seven arguments and Debian 13's (56.1)
//! eight, to the same versioned name. Whatever sits in the eighth argument's
//! place when a seven-argument caller calls is not ours to read, so the
//! library decides from the provider's release, never from the argument.
//!
//! The release comes from the provider's files, as rdma-core's build names
//! them. A provider with a public library of its own (mlx5, efa, mana, hns,
//! mlx4) is installed as `lib<name>.so.<so>.<abi>.<release>` with the
//! provider name `lib<name>-rdmav34.so` a symlink to it. A plain module
//! (rxe, irdma, bnxt_re, ...) has no version in its name; rdma-core installs
//! all providers of one build into one directory, so the release of its
//! directory's versioned providers is its release. A provider whose release
//! cannot be told is taken for one before 54: with the seven-argument
//! signature, a newer provider's driver attributes are left out (the kernel
//! then registers the MR without them), where the other mistake would
//! dereference an arbitrary value.

use std::ffi::CStr;

use parking_lot::Mutex;

use crate::abi::driver::*;
use crate::abi::verbs::*;

/// An rdma-core release, (major, minor): 56.1 is (56, 1).
pub(crate) type Release = (u32, u32);

/// The first release whose providers pass a driver command buffer to
/// ibv_cmd_reg_dmabuf_mr.
const DMABUF_DRIVER_ARG_SINCE: Release = (54, 0);

/// Releases found so far, by the address of the provider's ops table.
static KNOWN: Mutex<Vec<(usize, Option<Release>)>> = Mutex::new(Vec::new());

/// The release in a file name that rdma-core's build gave a shared provider:
/// `libmlx5.so.1.25.56.1` is 56.1 (`.so.`, then the soname version, the
/// library's ABI minor and the release, major and optional minor).
pub(crate) fn release_from_file_name(name: &str) -> Option<Release> {
    let (_, tail) = name.split_once(".so.")?;
    let mut parts = [0u32; 4];
    let mut n = 0;
    for p in tail.split('.') {
        if n == parts.len() || p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        parts[n] = p.parse().ok()?;
        n += 1;
    }
    match n {
        3 => Some((parts[2], 0)),
        4 => Some((parts[2], parts[3])),
        _ => None,
    }
}

/// Where `needle` last occurs in `hay`.
fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

/// The release in the name of the file `path` resolves to (through
/// symlinks). Paths stay on the stack: nothing here allocates but what
/// realpath(3) may need, and it fails rather than abort.
fn release_of_file(path: &[u8]) -> Option<Release> {
    let p = rdma_util::fallible::path(&[path])?;
    let mut real = [0u8; libc::PATH_MAX as usize];
    // SAFETY: p is NUL-terminated; real holds PATH_MAX bytes, as realpath
    // requires of a caller's buffer.
    if unsafe { libc::realpath(p.c_str()?.as_ptr(), real.as_mut_ptr().cast()) }.is_null() {
        return None;
    }
    let real = CStr::from_bytes_until_nul(&real).ok()?.to_bytes();
    let name = &real[real.iter().rposition(|&b| b == b'/').map_or(0, |i| i + 1)..];
    release_from_file_name(core::str::from_utf8(name).ok()?)
}

/// The release of the provider at `path` (the name it was loaded by): its
/// own file's, else that of the versioned providers beside it with the same
/// suffix (`-rdmav34.so`). None when neither tells, or they disagree.
#[cfg(test)]
pub(crate) fn release_of_provider(path: &std::path::Path) -> Option<Release> {
    use std::os::unix::ffi::OsStrExt;
    release_of_path(path.as_os_str().as_bytes())
}

fn release_of_path(path: &[u8]) -> Option<Release> {
    if let Some(r) = release_of_file(path) {
        return Some(r);
    }
    let slash = path.iter().rposition(|&b| b == b'/')?;
    let (dir, name) = (&path[..slash], &path[slash + 1..]);
    let suffix = &name[rfind(name, b"-rdmav")?..];
    release_of_dir(if dir.is_empty() { b"/" } else { dir }, |n| n.ends_with(suffix))
}

/// The rdma-core release whose providers are installed: the one release of
/// the versioned provider files in the provider directory (any private
/// ABI's suffix), found once. None when there are none, or they disagree.
///
/// Upstream's behaviour changed in a few places between the releases we
/// serve without a change of symbols (see `fork::fork_init`); the system's
/// own release decides there, as the distribution's library would.
pub(crate) fn system_release() -> Option<Release> {
    static SYSTEM: std::sync::OnceLock<Option<Release>> = std::sync::OnceLock::new();
    // Looked up at a point where upstream touches no files: errno must come
    // out as it went in (realpath sets EINVAL on success).
    *SYSTEM.get_or_init(|| {
        rdma_util::ffi::errno_kept(|| release_of_dir(crate::loader::PROVIDER_DIR.as_bytes(), |n| rfind(n, b"-rdmav").is_some()))
    })
}

/// The one release of the files of `dir` whose names `pick` takes and whose
/// real file names carry a release. None when none does, or they disagree.
fn release_of_dir(dir: &[u8], pick: impl Fn(&[u8]) -> bool) -> Option<Release> {
    let d = rdma_util::fallible::path(&[dir])?;
    let mut found: Option<Release> = None;
    let mut disagree = false;
    rdma_util::fallible::for_each_dir_entry(libc::AT_FDCWD, d.c_str()?, |n| {
        if !pick(n) {
            return true;
        }
        let Some(full) = rdma_util::fallible::path(&[dir, b"/", n]) else { return true };
        if let Some(r) = release_of_file(full.as_bytes()) {
            match found {
                Some(f) if f != r => {
                    disagree = true;
                    return false;
                }
                _ => found = Some(r),
            }
        }
        true
    })
    .ok()?;
    if disagree {
        None
    } else {
        found
    }
}

/// The file a provider's ops table was loaded from, by dladdr.
fn file_of(ops: *const verbs_device_ops) -> Option<rdma_util::fallible::PathBuf> {
    // SAFETY: an all-zero Dl_info is a valid value to be overwritten.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr only reads the loader's tables for any address.
    if unsafe { libc::dladdr(ops.cast(), &mut info) } == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dli_fname is a NUL-terminated string owned by the loader.
    let name = unsafe { CStr::from_ptr(info.dli_fname) };
    rdma_util::fallible::path(&[name.to_bytes()])
}

/// The release of the provider whose ops table is `ops`, found once (when
/// there is no memory to remember it, found again next time).
fn release_of_ops(ops: *const verbs_device_ops) -> Option<Release> {
    let key = ops as usize;
    if let Some(&(_, r)) = KNOWN.lock().iter().find(|(k, _)| *k == key) {
        return r;
    }
    let r = rdma_util::ffi::errno_kept(|| file_of(ops).and_then(|p| release_of_path(p.as_bytes())));
    let mut known = KNOWN.lock();
    if !known.iter().any(|(k, _)| *k == key) {
        let _ = rdma_util::fallible::push(&mut known, (key, r));
    }
    r
}

/// Whether the provider behind `ctx` calls ibv_cmd_reg_dmabuf_mr with the
/// trailing driver command buffer.
///
/// # Safety
/// `ctx` is a live context; its device, if not NULL, is a verbs_device (as
/// every device this library hands out is).
pub(crate) unsafe fn passes_dmabuf_driver(ctx: *mut ibv_context) -> bool {
    // SAFETY: caller contract: a live context whose device is a verbs_device.
    let ops = unsafe {
        if ctx.is_null() {
            return false;
        }
        let dev = (*ctx).device;
        if dev.is_null() {
            return false;
        }
        (*dev.cast::<verbs_device>()).ops
    };
    !ops.is_null() && release_of_ops(ops).is_some_and(|r| r >= DMABUF_DRIVER_ARG_SINCE)
}

#[cfg(test)]
pub(crate) fn set_release_for_test(ops: *const verbs_device_ops, r: Option<Release>) {
    let mut known = KNOWN.lock();
    known.retain(|(k, _)| *k != ops as usize);
    known.push((ops as usize, r));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};
    use std::os::unix::fs::symlink;

    #[test]
    fn file_names() {
        assert_eq!(release_from_file_name("libmlx5.so.1.25.56.1"), Some((56, 1)));
        assert_eq!(release_from_file_name("libefa.so.1.2.44.0"), Some((44, 0)));
        assert_eq!(release_from_file_name("libmana.so.1.0.65"), Some((65, 0)));
        assert_eq!(release_from_file_name("librxe-rdmav34.so"), None);
        assert_eq!(release_from_file_name("libmlx5.so.1"), None);
        assert_eq!(release_from_file_name("libmlx5.so.1.25"), None);
        assert_eq!(release_from_file_name("libx.so.1.2.56.1.7"), None);
        assert_eq!(release_from_file_name("libx.so.1.2.5x.1"), None);
        assert_eq!(release_from_file_name("libx.so.1..56"), None);
    }

    fn tmpdir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("rdma-release-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("libibverbs")).unwrap();
        d
    }

    #[test]
    fn a_plain_module_takes_its_directorys_release() {
        let d = tmpdir("plain");
        let p = d.join("libibverbs");
        std::fs::write(d.join("libefa.so.1.3.56.1"), b"").unwrap();
        symlink("../libefa.so.1.3.56.1", p.join("libefa-rdmav34.so")).unwrap();
        std::fs::write(p.join("librxe-rdmav34.so"), b"").unwrap();
        std::fs::write(p.join("libirdma-rdmav34.so"), b"").unwrap();
        assert_eq!(release_of_provider(&p.join("libefa-rdmav34.so")), Some((56, 1)));
        assert_eq!(release_of_provider(&p.join("librxe-rdmav34.so")), Some((56, 1)));
        // Another ABI's providers in the same directory do not count.
        std::fs::write(d.join("libmlx5.so.1.26.65.0"), b"").unwrap();
        symlink("../libmlx5.so.1.26.65.0", p.join("libmlx5-rdmav65.so")).unwrap();
        assert_eq!(release_of_provider(&p.join("librxe-rdmav34.so")), Some((56, 1)));
        // Two releases for one ABI: nothing can be told.
        std::fs::write(d.join("libmana.so.1.0.44.0"), b"").unwrap();
        symlink("../libmana.so.1.0.44.0", p.join("libmana-rdmav34.so")).unwrap();
        assert_eq!(release_of_provider(&p.join("librxe-rdmav34.so")), None);
        assert_eq!(release_of_provider(&p.join("libmana-rdmav34.so")), Some((44, 0)));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn nothing_to_tell_by() {
        let d = tmpdir("none");
        let p = d.join("libibverbs");
        std::fs::write(p.join("librxe-rdmav34.so"), b"").unwrap();
        assert_eq!(release_of_provider(&p.join("librxe-rdmav34.so")), None);
        assert_eq!(release_of_provider(&p.join("missing-rdmav34.so")), None);
        assert_eq!(release_of_provider(Path::new("/")), None);
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// The distributions' own provider directories, where they are on this
    /// machine: Debian 12's on the host, Debian 13's in the userland that
    /// abi-tests/vm/build-userland makes.
    #[test]
    fn the_distributions_providers() {
        let mut dirs = vec![(PathBuf::from(crate::loader::PROVIDER_DIR), None)];
        if let Some(home) = std::env::var_os("HOME") {
            let ul = PathBuf::from(home).join(".cache/rdma-core-rs/userland");
            dirs.push((ul.join("trixie").join(crate::loader::PROVIDER_DIR.trim_start_matches('/')), Some((56, 1))));
            dirs.push((ul.join("sid").join(crate::loader::PROVIDER_DIR.trim_start_matches('/')), Some((65, 0))));
        }
        let mut checked = 0;
        for (dir, want) in dirs {
            let Ok(rd) = std::fs::read_dir(&dir) else { continue };
            for e in rd.flatten() {
                let r = release_of_provider(&e.path());
                let want = want.unwrap_or_else(|| {
                    // The host's own: the release of its libibverbs package.
                    release_of_file(format!("{}/../libibverbs.so.1", crate::loader::PROVIDER_DIR).as_bytes())
                        .expect("the host's libibverbs.so.1 names its release")
                });
                assert_eq!(r, Some(want), "{}", e.path().display());
                checked += 1;
            }
            // The directory as a whole: what system_release() reads.
            let host = release_of_file(format!("{}/../libibverbs.so.1", crate::loader::PROVIDER_DIR).as_bytes());
            use std::os::unix::ffi::OsStrExt;
            assert_eq!(
                release_of_dir(dir.as_os_str().as_bytes(), |n| rfind(n, b"-rdmav").is_some()),
                want.or(host),
                "{}",
                dir.display()
            );
        }
        eprintln!("{checked} providers checked");
    }
}
