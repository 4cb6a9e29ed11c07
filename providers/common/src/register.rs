//! Registration: what a provider's constructor does.
//!
//! libibverbs dlopen()s the provider; the provider's constructor (a function
//! in `.init_array`, see [`provider_constructor!`]) calls [`register`]:
//!
//! 1. find the libibverbs that is loading us: `dlopen("libibverbs.so.1",
//!    RTLD_NOLOAD)`, which never loads a second copy;
//! 2. pick the private ABI: the one the provider's own file name carries
//!    (`...-rdmav34.so` or `...-rdmav65.so`, through `dladdr`), else the
//!    newest one the library has;
//! 3. resolve the function table ([`crate::verbs::Verbs`]) at that ABI's
//!    symbol version;
//! 4. call `verbs_register_driver_34` or `_65` with the device ops.
//!
//! A library without the names (or no libibverbs at all) gets nothing
//! registered, and no crash.
//!
//! `verbs_device_ops` has the same layout in both ABIs (65 only renames the
//! types it points to), so one static serves both.

use core::ffi::c_void;

use rdma_abi::driver::pabi34_v44::{verbs_device_ops, verbs_match_ent, verbs_match_ent_u};
use rdma_abi::driver::pabi34_v44::{
    VERBS_MATCH_DRIVER_ID, VERBS_MATCH_MODALIAS, VERBS_MATCH_SENTINEL,
};

use crate::pabi::Pabi;
use crate::verbs::Verbs;

/// A provider's device ops as a `static` (the C struct holds pointers,
/// which Rust does not share between threads unasked; the library only
/// reads it).
#[repr(transparent)]
pub struct DeviceOps(pub verbs_device_ops);
// SAFETY: never written after construction; its pointers are to statics.
unsafe impl Sync for DeviceOps {}

/// A provider's match table as a `static`, ending with the sentinel entry.
#[repr(transparent)]
pub struct MatchTable<const N: usize>(pub [verbs_match_ent; N]);
// SAFETY: as for DeviceOps.
unsafe impl<const N: usize> Sync for MatchTable<N> {}

impl<const N: usize> MatchTable<N> {
    /// The table's first entry, for `verbs_device_ops::match_table`.
    pub const fn as_ptr(&'static self) -> *const verbs_match_ent {
        self.0.as_ptr()
    }
}

/// C's `VERBS_DRIVER_ID(id)`.
pub const fn match_driver_id(id: u32) -> verbs_match_ent {
    verbs_match_ent {
        driver_data: core::ptr::null_mut(),
        u: verbs_match_ent_u {
            driver_id: id as u64,
        },
        vendor: 0,
        device: 0,
        kind: VERBS_MATCH_DRIVER_ID,
    }
}

/// C's `VERBS_NAME_MATCH(prefix, NULL)`: a modalias fnmatch pattern,
/// `rdma_device:*N<prefix>*` for a device whose name starts with `prefix`.
pub const fn match_modalias(pattern: &'static core::ffi::CStr) -> verbs_match_ent {
    verbs_match_ent {
        driver_data: core::ptr::null_mut(),
        u: verbs_match_ent_u {
            modalias: pattern.as_ptr(),
        },
        vendor: 0,
        device: 0,
        kind: VERBS_MATCH_MODALIAS,
    }
}

/// The entry that ends a match table.
pub const fn match_sentinel() -> verbs_match_ent {
    verbs_match_ent {
        driver_data: core::ptr::null_mut(),
        u: verbs_match_ent_u { driver_id: 0 },
        vendor: 0,
        device: 0,
        kind: VERBS_MATCH_SENTINEL,
    }
}

/// The ABI for a provider loaded as `file`: the name's, else the newest one
/// `has` says the library offers.
pub fn choose_pabi(file: Option<&[u8]>, has: impl Fn(Pabi) -> bool) -> Option<Pabi> {
    if let Some(p) = file.and_then(Pabi::from_file_name) {
        return has(p).then_some(p);
    }
    [Pabi::V65, Pabi::V34].into_iter().find(|&p| has(p))
}

/// Binds to the libibverbs that is loading this provider and registers
/// `ops` with it. Returns the ABI registered under, or None when nothing
/// was registered. Runs from the constructor, once.
///
/// # Safety
/// `ops` and everything it points to live for the rest of the process.
pub unsafe fn register(ops: &'static DeviceOps) -> Option<Pabi> {
    // SAFETY: a NUL-terminated name; NOLOAD only looks up a loaded library.
    let h = unsafe {
        libc::dlopen(
            c"libibverbs.so.1".as_ptr(),
            libc::RTLD_NOW | libc::RTLD_NOLOAD,
        )
    };
    if h.is_null() {
        return None;
    }
    let file = crate::pabi::file_of(register as *const c_void);
    let has = |p: Pabi| {
        // SAFETY: NUL-terminated names; h is a live handle.
        !unsafe { libc::dlvsym(h, p.register_name().as_ptr(), p.version().as_ptr()) }.is_null()
    };
    let pabi = choose_pabi(file.as_deref(), has)?;
    // SAFETY: h is libibverbs.so.1's handle.
    let table = unsafe { Verbs::resolve(h, pabi) }?;
    let v = table.install();
    if v.pabi != pabi {
        return None;
    }
    // SAFETY: ops is a valid, static verbs_device_ops of this ABI's layout.
    unsafe { v.register_driver(&ops.0) };
    Some(pabi)
}

/// Puts `$init` (an `unsafe fn()`) in the provider's `.init_array`, run by
/// the dynamic loader when libibverbs dlopen()s the provider, inside the FFI
/// guard. It must sit in the provider's own crate: a constructor in an
/// rlib's object that nothing references would not be linked in.
#[macro_export]
// `crate::LIB_NAME` on purpose: the invoking provider's name.
#[allow(clippy::crate_in_macro_def)]
macro_rules! provider_constructor {
    ($init:path) => {
        #[used]
        #[link_section = ".init_array"]
        static PROVIDER_CONSTRUCTOR: unsafe extern "C" fn() = {
            unsafe extern "C" fn provider_constructor() {
                // SAFETY: runs once, from the dynamic loader.
                $crate::guard(crate::LIB_NAME, "constructor", (), || unsafe { $init() })
            }
            provider_constructor
        };
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pabi_choice() {
        let both = |_: Pabi| true;
        let only34 = |p: Pabi| p == Pabi::V34;
        let only65 = |p: Pabi| p == Pabi::V65;
        let none = |_: Pabi| false;
        assert_eq!(
            choose_pabi(Some(b"/a/librxe-rs-rdmav34.so"), both),
            Some(Pabi::V34)
        );
        assert_eq!(
            choose_pabi(Some(b"/a/librxe-rs-rdmav65.so"), both),
            Some(Pabi::V65)
        );
        // Named for an ABI the library lacks: nothing.
        assert_eq!(choose_pabi(Some(b"/a/librxe-rs-rdmav65.so"), only34), None);
        // Other names: the newest the library has.
        assert_eq!(
            choose_pabi(Some(b"/a/librxe_provider.so"), both),
            Some(Pabi::V65)
        );
        assert_eq!(choose_pabi(None, only34), Some(Pabi::V34));
        assert_eq!(choose_pabi(None, only65), Some(Pabi::V65));
        assert_eq!(choose_pabi(None, none), None);
    }

    #[test]
    fn match_entries() {
        static T: MatchTable<3> = MatchTable([
            match_driver_id(14),
            match_modalias(c"rdma_device:*Nrxe*"),
            match_sentinel(),
        ]);
        assert_eq!(T.0[0].kind, VERBS_MATCH_DRIVER_ID);
        // SAFETY: a DRIVER_ID entry holds driver_id.
        assert_eq!(unsafe { T.0[0].u.driver_id }, 14);
        assert_eq!(T.0[1].kind, VERBS_MATCH_MODALIAS);
        assert_eq!(T.0[2].kind, VERBS_MATCH_SENTINEL);
    }
}
