//! The providers' private ABI: IBVERBS_PRIVATE_34 (rdma-core 44 to 56,
//! Debian 12 and 13) or IBVERBS_PRIVATE_65 (rdma-core 65, sid).
//!
//! A provider speaks the one its file name says: libibverbs looks for
//! `lib<name>-rdmav<NN>.so`, NN its own private ABI, so the name a provider
//! was loaded under is the ABI of the library that loaded it. Loaded under
//! another name (a test, a hand-made dlopen), the provider takes the newest
//! ABI the library offers.

use core::ffi::{c_void, CStr};

/// One of the two private ABIs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pabi {
    /// IBVERBS_PRIVATE_34, as rdma-core 44 lays out its structures.
    V34,
    /// IBVERBS_PRIVATE_65.
    V65,
}

impl Pabi {
    /// The symbol version of the private functions.
    pub const fn version(self) -> &'static CStr {
        match self {
            Pabi::V34 => c"IBVERBS_PRIVATE_34",
            Pabi::V65 => c"IBVERBS_PRIVATE_65",
        }
    }

    /// The registration function of this ABI.
    pub const fn register_name(self) -> &'static CStr {
        match self {
            Pabi::V34 => c"verbs_register_driver_34",
            Pabi::V65 => c"verbs_register_driver_65",
        }
    }

    /// The ABI a provider file name asks for: `...-rdmav34.so` or
    /// `...-rdmav65.so`; None for any other name.
    pub fn from_file_name(name: &[u8]) -> Option<Pabi> {
        if name.ends_with(b"-rdmav34.so") {
            Some(Pabi::V34)
        } else if name.ends_with(b"-rdmav65.so") {
            Some(Pabi::V65)
        } else {
            None
        }
    }
}

/// The file the dynamic loader mapped `addr` from (the path it was
/// dlopen()ed by, symlinks unresolved), as bytes; None if it cannot tell.
// dladdr only compares the address with the loaded objects' ranges.
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn file_of(addr: *const c_void) -> Option<Vec<u8>> {
    // SAFETY: Dl_info is plain data; dladdr fills it or returns 0.
    let mut info: libc::Dl_info = unsafe { core::mem::zeroed() };
    // SAFETY: addr is only looked up, never dereferenced.
    if unsafe { libc::dladdr(addr, &mut info) } == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dli_fname is the loader's NUL-terminated name of the object.
    // A copy that cannot be allocated reads as "unknown".
    rdma_util::fallible::concat(&[unsafe { CStr::from_ptr(info.dli_fname) }.to_bytes()]).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names() {
        assert_eq!(
            Pabi::from_file_name(b"/x/librxe-rs-rdmav34.so"),
            Some(Pabi::V34)
        );
        assert_eq!(
            Pabi::from_file_name(b"/usr/lib/libibverbs/librxe-rdmav65.so"),
            Some(Pabi::V65)
        );
        assert_eq!(Pabi::from_file_name(b"librxe_provider.so"), None);
        assert_eq!(Pabi::from_file_name(b"-rdmav34.so.1"), None);
    }

    #[test]
    fn own_file() {
        let f = file_of(file_of as *const c_void).expect("dladdr knows the test binary");
        assert!(!f.is_empty());
    }
}
