//! Allocation that reports failure instead of ending the process.
//!
//! Rust's infallible allocations (`Box::new`, `Vec::push`, `format!`,
//! `CString::new`, ...) call the allocation-error handler when the allocator
//! returns NULL, and on stable Rust that handler aborts the process. In a
//! system library that is a crash of the application, where upstream's C
//! returns ENOMEM. So the paths of our libraries that allocate use these
//! helpers, which return [`NoMem`] (the caller turns it into ENOMEM, or into
//! the error upstream returns at that point), or avoid the heap altogether
//! with [`FixedBuf`], a fixed-size buffer on the stack for paths and short
//! messages.
//!
//! Each helper allocates through the `Vec` API's `try_reserve`, which returns
//! an error instead of calling the handler.

use core::fmt;
use std::ffi::CStr;

/// An allocation failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoMem;

impl NoMem {
    /// The errno upstream reports for it.
    pub const ERRNO: i32 = libc::ENOMEM;
}

impl fmt::Display for NoMem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Cannot allocate memory")
    }
}

/// `Box::new(value)`, or `NoMem`.
pub fn try_box<T>(value: T) -> Result<Box<T>, NoMem> {
    if core::mem::size_of::<T>() == 0 {
        return Ok(Box::new(value));
    }
    let layout = core::alloc::Layout::new::<T>();
    // SAFETY: the layout has a non-zero size (checked above).
    let p = unsafe { std::alloc::alloc(layout) }.cast::<T>();
    if p.is_null() {
        return Err(NoMem);
    }
    // SAFETY: p is a fresh, suitably aligned allocation for one T, made with
    // the global allocator and the layout Box<T> uses, so Box may own it.
    unsafe {
        p.write(value);
        Ok(Box::from_raw(p))
    }
}

/// `Box::new_uninit()`, or `NoMem`: for a value built in place.
pub fn try_box_uninit<T>() -> Result<Box<core::mem::MaybeUninit<T>>, NoMem> {
    if core::mem::size_of::<T>() == 0 {
        return Ok(Box::new_uninit());
    }
    let layout = core::alloc::Layout::new::<T>();
    // SAFETY: the layout has a non-zero size (checked above).
    let p = unsafe { std::alloc::alloc(layout) }.cast::<core::mem::MaybeUninit<T>>();
    if p.is_null() {
        return Err(NoMem);
    }
    // SAFETY: a fresh allocation with Box<MaybeUninit<T>>'s layout, which
    // needs no initialisation.
    Ok(unsafe { Box::from_raw(p) })
}

/// An empty `Vec` with room for `n` elements, or `NoMem`.
pub fn vec_with_capacity<T>(n: usize) -> Result<Vec<T>, NoMem> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| NoMem)?;
    Ok(v)
}

/// `v.push(x)`, or `NoMem` (and `v` unchanged).
pub fn push<T>(v: &mut Vec<T>, x: T) -> Result<(), NoMem> {
    v.try_reserve(1).map_err(|_| NoMem)?;
    v.push(x);
    Ok(())
}

/// `v.extend_from_slice(s)`, or `NoMem` (and `v` unchanged).
pub fn extend<T: Clone>(v: &mut Vec<T>, s: &[T]) -> Result<(), NoMem> {
    v.try_reserve(s.len()).map_err(|_| NoMem)?;
    v.extend_from_slice(s);
    Ok(())
}

/// `n` copies of `x`, or `NoMem`.
pub fn vec_filled<T: Clone>(x: T, n: usize) -> Result<Vec<T>, NoMem> {
    let mut v = vec_with_capacity(n)?;
    v.resize(n, x);
    Ok(v)
}

/// A boxed slice of `n` copies of `x`, or `NoMem` (allocated at its exact
/// size, so no reallocation follows).
pub fn boxed_slice_filled<T: Copy>(x: T, n: usize) -> Result<Box<[T]>, NoMem> {
    let Ok(layout) = core::alloc::Layout::array::<T>(n) else { return Err(NoMem) };
    if layout.size() == 0 {
        return Ok(vec![x; n].into_boxed_slice());
    }
    // SAFETY: a non-zero size (checked above).
    let p = unsafe { std::alloc::alloc(layout) }.cast::<T>();
    if p.is_null() {
        return Err(NoMem);
    }
    for i in 0..n {
        // SAFETY: i < n: inside the allocation.
        unsafe { p.add(i).write(x) };
    }
    // SAFETY: n initialised Ts in an allocation with Box<[T]>'s layout.
    Ok(unsafe { Box::from_raw(core::ptr::slice_from_raw_parts_mut(p, n)) })
}

/// The parts, one after the other, in one new `Vec`.
pub fn concat(parts: &[&[u8]]) -> Result<Vec<u8>, NoMem> {
    let mut v = vec_with_capacity(parts.iter().map(|p| p.len()).sum())?;
    for p in parts {
        v.extend_from_slice(p);
    }
    Ok(v)
}

struct Lossy<'a>(&'a [u8]);

impl fmt::Display for Lossy<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for chunk in self.0.utf8_chunks() {
            f.write_str(chunk.valid())?;
            if !chunk.invalid().is_empty() {
                f.write_str("\u{FFFD}")?;
            }
        }
        Ok(())
    }
}

/// Displays bytes as `String::from_utf8_lossy` would, without allocating.
pub fn display_lossy(b: &[u8]) -> impl fmt::Display + '_ {
    Lossy(b)
}

/// A [`FixedBuf`] had no room for what was to be added.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Full;

/// A byte string of at most `N - 1` bytes on the stack, always followed by a
/// NUL: paths, and messages that must go out in one write. Every append
/// fails (and leaves the contents as they were) when it does not fit.
#[derive(Clone, Copy)]
pub struct FixedBuf<const N: usize> {
    len: usize,
    buf: [u8; N],
}

impl<const N: usize> Default for FixedBuf<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> FixedBuf<N> {
    pub const fn new() -> Self {
        FixedBuf { len: 0, buf: [0; N] }
    }

    /// The parts one after the other; None if they do not fit.
    pub fn of(parts: &[&[u8]]) -> Option<Self> {
        let mut b = Self::new();
        for p in parts {
            b.push(p).ok()?;
        }
        Some(b)
    }

    /// Appends `s`; Err (contents unchanged) when it does not fit.
    pub fn push(&mut self, s: &[u8]) -> Result<(), Full> {
        if s.len() >= N - self.len {
            return Err(Full);
        }
        self.buf[self.len..self.len + s.len()].copy_from_slice(s);
        self.len += s.len();
        self.buf[self.len] = 0;
        Ok(())
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// The contents followed by their NUL, for C (which reads up to the
    /// first NUL, should the contents hold one).
    pub fn as_c_ptr(&self) -> *const core::ffi::c_char {
        self.buf.as_ptr().cast()
    }

    /// The contents as a C string; None if they hold a NUL.
    pub fn c_str(&self) -> Option<&CStr> {
        CStr::from_bytes_until_nul(&self.buf[..=self.len])
            .ok()
            .filter(|c| c.to_bytes().len() == self.len)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn clear(&mut self) {
        self.len = 0;
        self.buf[0] = 0;
    }
}

impl<const N: usize> PartialEq for FixedBuf<N> {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl<const N: usize> Eq for FixedBuf<N> {}

impl<const N: usize> fmt::Debug for FixedBuf<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02x?}", self.as_bytes())
    }
}

impl<const N: usize> fmt::Write for FixedBuf<N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.push(s.as_bytes()).map_err(|_| fmt::Error)
    }
}

/// `fixed_format!(N; ...)`: the formatted text in a `FixedBuf<N>`, or None
/// when it does not fit.
#[macro_export]
macro_rules! fixed_format {
    ($n:literal; $($arg:tt)*) => {{
        let mut b = $crate::fallible::FixedBuf::<$n>::new();
        match ::core::fmt::Write::write_fmt(&mut b, format_args!($($arg)*)) {
            Ok(()) => Some(b),
            Err(_) => None,
        }
    }};
}

/// Writes a formatted message to `fd` without allocating: in one write when
/// it fits in 4 KiB (as glibc's fprintf to an unbuffered stderr), else in
/// 4 KiB pieces. Errors are ignored, as fprintf's are by its callers.
pub fn write_fd(fd: i32, args: fmt::Arguments<'_>) {
    struct Out {
        fd: i32,
        buf: FixedBuf<4097>,
    }
    impl Out {
        fn flush(&mut self) {
            let mut b = self.buf.as_bytes();
            while !b.is_empty() {
                // SAFETY: b is a readable slice of b.len() bytes.
                let n = unsafe { libc::write(self.fd, b.as_ptr().cast(), b.len()) };
                if n <= 0 {
                    break;
                }
                b = &b[n as usize..];
            }
            self.buf.clear();
        }
    }
    impl fmt::Write for Out {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            let mut s = s.as_bytes();
            while self.buf.push(s).is_err() {
                let room = 4096 - self.buf.len();
                let _ = self.buf.push(&s[..room]);
                s = &s[room..];
                self.flush();
            }
            Ok(())
        }
    }
    let mut out = Out { fd, buf: FixedBuf::new() };
    let _ = fmt::write(&mut out, args);
    out.flush();
}

/// A copy of the environment variable `name` (a C string), or None when it
/// is not set or the copy cannot be allocated. Reads the C library's
/// environment with getenv, as upstream does.
pub fn env(name: &CStr) -> Option<Vec<u8>> {
    // SAFETY: name is NUL-terminated; getenv returns NULL or a
    // NUL-terminated string, copied here before any other call.
    let v = unsafe { libc::getenv(name.as_ptr()) };
    if v.is_null() {
        return None;
    }
    // SAFETY: as above.
    let bytes = unsafe { CStr::from_ptr(v) }.to_bytes();
    let mut out = vec_with_capacity(bytes.len()).ok()?;
    out.extend_from_slice(bytes);
    Some(out)
}

/// A shared, reference-counted value, as `std::sync::Arc`, whose creation
/// reports a failed allocation ([`Shared::try_new`]) where `Arc::new`
/// would abort (`Arc::try_new` is not stable Rust). It has the part of
/// Arc's interface our libraries use: clone, deref, pointer identity, and
/// the conversion to and from a raw pointer; no weak references.
pub struct Shared<T> {
    ptr: core::ptr::NonNull<SharedInner<T>>,
}

struct SharedInner<T> {
    count: core::sync::atomic::AtomicUsize,
    value: T,
}

// SAFETY: as Arc<T>: the value is shared between threads (Sync needed) and
// may be dropped on any of them (Send needed).
unsafe impl<T: Send + Sync> Send for Shared<T> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync> Sync for Shared<T> {}

impl<T> Shared<T> {
    /// The value, shared once; `NoMem` when it cannot be allocated (the
    /// value is then dropped).
    pub fn try_new(value: T) -> Result<Self, NoMem> {
        let b = try_box(SharedInner { count: core::sync::atomic::AtomicUsize::new(1), value })?;
        Ok(Shared { ptr: core::ptr::NonNull::from(Box::leak(b)) })
    }

    /// Whether both point at the same value.
    pub fn ptr_eq(a: &Self, b: &Self) -> bool {
        a.ptr == b.ptr
    }

    /// The address of the value.
    pub fn as_ptr(this: &Self) -> *const T {
        // SAFETY: the inner block is alive while `this` is.
        unsafe { core::ptr::addr_of!((*this.ptr.as_ptr()).value) }
    }

    /// Gives up this reference without dropping it: the pointer is the
    /// value's address, for [`Shared::from_raw`].
    pub fn into_raw(this: Self) -> *const T {
        let p = Self::as_ptr(&this);
        core::mem::forget(this);
        p
    }

    /// Takes back a reference given up with [`Shared::into_raw`].
    ///
    /// # Safety
    /// `p` came from `into_raw` of a `Shared<T>` and is taken back once.
    pub unsafe fn from_raw(p: *const T) -> Self {
        let offset = core::mem::offset_of!(SharedInner<T>, value);
        // SAFETY: p is the value field of a live SharedInner (the contract),
        // so stepping back by its offset gives the block's start.
        let inner = unsafe { p.cast::<u8>().sub(offset) }.cast::<SharedInner<T>>().cast_mut();
        // SAFETY: non-null: derived from a live block.
        Shared { ptr: unsafe { core::ptr::NonNull::new_unchecked(inner) } }
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        // SAFETY: the block is alive while self is.
        let old = unsafe { self.ptr.as_ref() }.count.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
        // As Arc: a count this large means references are leaked in a loop.
        if old > isize::MAX as usize {
            std::process::abort();
        }
        Shared { ptr: self.ptr }
    }
}

impl<T> Drop for Shared<T> {
    fn drop(&mut self) {
        use core::sync::atomic::{fence, Ordering};
        // SAFETY: the block is alive while self is.
        if unsafe { self.ptr.as_ref() }.count.fetch_sub(1, Ordering::Release) != 1 {
            return;
        }
        // Every other reference's use happens before the value is dropped.
        fence(Ordering::Acquire);
        // SAFETY: the last reference: the block came from try_box (Box::leak)
        // and nobody else can reach it now.
        drop(unsafe { Box::from_raw(self.ptr.as_ptr()) });
    }
}

impl<T> core::ops::Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the block is alive while self is.
        unsafe { &self.ptr.as_ref().value }
    }
}

impl<T: fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

/// Starts a detached thread named `name` (at most 15 bytes show) running
/// `f`, with pthread_create as upstream's libraries do: `std::thread`
/// allocates the thread's handle, name and result slot with infallible
/// allocations. Err(errno) when the closure cannot be boxed (ENOMEM) or the
/// thread cannot be made (pthread_create's EAGAIN, ...). A panic in `f`
/// ends the thread only.
pub fn spawn_detached<F: FnOnce() + Send + 'static>(name: &CStr, f: F) -> Result<(), i32> {
    type Job = Box<dyn FnOnce() + Send>;
    extern "C" fn start(arg: *mut core::ffi::c_void) -> *mut core::ffi::c_void {
        // SAFETY: arg is the Box<Job> leaked by spawn_detached for this
        // thread alone.
        let job = unsafe { Box::from_raw(arg.cast::<Job>()) };
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
        core::ptr::null_mut()
    }
    let job: Job = try_box(f).map_err(|_| libc::ENOMEM)?;
    let arg = Box::into_raw(try_box(job).map_err(|_| libc::ENOMEM)?);
    // SAFETY: attr is initialised before use and destroyed after; tid is
    // a local out-parameter; start takes ownership of arg only when the
    // thread is created, else it is freed here.
    unsafe {
        let mut attr: libc::pthread_attr_t = core::mem::zeroed();
        let rc = libc::pthread_attr_init(&mut attr);
        if rc != 0 {
            drop(Box::from_raw(arg));
            return Err(rc);
        }
        libc::pthread_attr_setdetachstate(&mut attr, libc::PTHREAD_CREATE_DETACHED);
        let mut tid: libc::pthread_t = 0;
        let rc = libc::pthread_create(&mut tid, &attr, start, arg.cast());
        libc::pthread_attr_destroy(&mut attr);
        if rc != 0 {
            drop(Box::from_raw(arg));
            return Err(rc);
        }
        let mut short = [0u8; 16];
        let n = name.to_bytes().len().min(15);
        short[..n].copy_from_slice(&name.to_bytes()[..n]);
        libc::pthread_setname_np(tid, short.as_ptr().cast());
    }
    Ok(())
}

/// Reads the start of the file `path` into `buf` (up to its length) without
/// allocating: the number of bytes read, or None when it cannot be opened
/// or read. For the small settings files (a number each) that upstream
/// reads with fscanf.
pub fn read_head(path: &[u8], buf: &mut [u8]) -> Option<usize> {
    let p = self::path(&[path])?;
    // SAFETY: p is NUL-terminated.
    let fd = unsafe { libc::open(p.c_str()?.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return None;
    }
    let mut n = 0;
    let ok = loop {
        if n == buf.len() {
            break true;
        }
        // SAFETY: buf[n..] is writable for its length.
        let r = unsafe { libc::read(fd, buf[n..].as_mut_ptr().cast(), buf.len() - n) };
        match r {
            0 => break true,
            r if r > 0 => n += r as usize,
            _ if crate::ffi::errno() == libc::EINTR => {}
            _ => break false,
        }
    };
    // SAFETY: fd was opened above and is closed once.
    unsafe { libc::close(fd) };
    ok.then_some(n)
}

/// A path of at most PATH_MAX bytes (NUL included), on the stack.
pub type PathBuf = FixedBuf<{ libc::PATH_MAX as usize }>;

/// The parts of a path, one after the other; None when longer than PATH_MAX.
pub fn path(parts: &[&[u8]]) -> Option<PathBuf> {
    PathBuf::of(parts)
}

/// Calls `f` with the name of each entry of the directory `dir` (relative
/// to the directory fd `at`, or AT_FDCWD), in readdir order, "." and ".."
/// left out, until `f` returns false. Allocates only what opendir does
/// (glibc's DIR, with malloc: its failure is ENOMEM). Err(errno) when the
/// directory cannot be opened.
pub fn for_each_dir_entry(at: i32, dir: &CStr, mut f: impl FnMut(&[u8]) -> bool) -> Result<(), i32> {
    // SAFETY: dir is NUL-terminated; the fd returned is ours.
    let fd = unsafe { libc::openat(at, dir.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(crate::ffi::errno());
    }
    // SAFETY: fd is an open directory; on success DIR owns it.
    let d = unsafe { libc::fdopendir(fd) };
    if d.is_null() {
        let e = crate::ffi::errno();
        // SAFETY: fdopendir failed, so fd is still ours to close.
        unsafe { libc::close(fd) };
        return Err(e);
    }
    loop {
        // SAFETY: d is an open DIR.
        let ent = unsafe { libc::readdir(d) };
        if ent.is_null() {
            break;
        }
        // SAFETY: readdir's entry holds a NUL-terminated d_name, valid
        // until the next readdir on d.
        let name = unsafe { CStr::from_ptr((*ent).d_name.as_ptr()) }.to_bytes();
        if name == b"." || name == b".." {
            continue;
        }
        if !f(name) {
            break;
        }
    }
    // SAFETY: closes the DIR (and fd) opened above.
    unsafe { libc::closedir(d) };
    Ok(())
}

#[cfg(test)]
pub(crate) mod testalloc {
    //! A global allocator for this crate's tests that fails on request:
    //! `fail_after(n)` makes the calling thread's allocation number n+1
    //! (counting from the call) return NULL.
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    thread_local! {
        static COUNTDOWN: Cell<Option<usize>> = const { Cell::new(None) };
    }

    pub struct Failing;

    // SAFETY: forwards to System, except that it may return NULL, which
    // GlobalAlloc allows.
    unsafe impl GlobalAlloc for Failing {
        unsafe fn alloc(&self, l: Layout) -> *mut u8 {
            if should_fail() {
                return std::ptr::null_mut();
            }
            // SAFETY: the caller's layout, passed on.
            unsafe { System.alloc(l) }
        }
        unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
            // SAFETY: p came from System with l.
            unsafe { System.dealloc(p, l) }
        }
        unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
            if should_fail() {
                return std::ptr::null_mut();
            }
            // SAFETY: the caller's arguments, passed on.
            unsafe { System.realloc(p, l, n) }
        }
    }

    fn should_fail() -> bool {
        COUNTDOWN
            .try_with(|c| match c.get() {
                Some(0) => {
                    c.set(None);
                    true
                }
                Some(n) => {
                    c.set(Some(n - 1));
                    false
                }
                None => false,
            })
            .unwrap_or(false)
    }

    pub fn fail_after(n: usize) {
        COUNTDOWN.with(|c| c.set(Some(n)));
    }

    pub fn disarm() {
        COUNTDOWN.with(|c| c.set(None));
    }

    #[global_allocator]
    static A: Failing = Failing;
}

#[cfg(test)]
mod tests {
    use super::testalloc::{disarm, fail_after};
    use super::*;

    #[test]
    fn helpers_report_failure() {
        fail_after(0);
        assert_eq!(try_box([7u64; 8]).err(), Some(NoMem));
        fail_after(0);
        assert!(try_box_uninit::<[u64; 4]>().is_err());
        fail_after(0);
        assert_eq!(vec_with_capacity::<u8>(10).err(), Some(NoMem));
        fail_after(0);
        assert!(boxed_slice_filled(0u32, 4).is_err());
        let mut v = vec![1u8];
        v.shrink_to_fit();
        fail_after(0);
        assert_eq!(push(&mut v, 2), Err(NoMem));
        assert_eq!(v, [1]);
        fail_after(0);
        assert_eq!(extend(&mut v, &[2, 3]), Err(NoMem));
        fail_after(0);
        assert!(env(c"PATH").is_none());
        disarm();
    }

    #[test]
    fn helpers_work() {
        assert_eq!(*try_box(5u32).unwrap(), 5);
        let mut b = try_box_uninit::<u32>().unwrap();
        b.write(6);
        // SAFETY: written just above.
        assert_eq!(*unsafe { b.assume_init() }, 6);
        assert_eq!(concat(&[b"ab", b"", b"c"]).unwrap(), b"abc");
        assert_eq!(vec_filled(9u8, 3).unwrap(), [9, 9, 9]);
        assert_eq!(&*boxed_slice_filled(7u16, 3).unwrap(), &[7, 7, 7]);
        assert!(boxed_slice_filled((), 3).unwrap().len() == 3);
        assert_eq!(format!("{}", display_lossy(b"a\xffb")), "a\u{FFFD}b");
    }

    #[test]
    fn dir_entries_without_dots() {
        let dir = std::env::temp_dir().join(format!("fallible-dir-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("b")).unwrap();
        std::fs::write(dir.join("a"), b"").unwrap();
        let c = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()).unwrap();
        let mut names = Vec::new();
        for_each_dir_entry(libc::AT_FDCWD, &c, |n| {
            names.push(n.to_vec());
            true
        })
        .unwrap();
        names.sort();
        assert_eq!(names, [b"a".to_vec(), b"b".to_vec()]);
        let mut first = 0;
        for_each_dir_entry(libc::AT_FDCWD, &c, |_| {
            first += 1;
            false
        })
        .unwrap();
        assert_eq!(first, 1);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(for_each_dir_entry(libc::AT_FDCWD, &c, |_| true), Err(libc::ENOENT));
        assert!(path(&[&[b'x'; 5000]]).is_none());
        let f = std::env::temp_dir().join(format!("fallible-head-{}", std::process::id()));
        std::fs::write(&f, b"12345678").unwrap();
        let mut b = [0u8; 4];
        assert_eq!(read_head(f.as_os_str().as_encoded_bytes(), &mut b), Some(4));
        assert_eq!(&b, b"1234");
        std::fs::remove_file(&f).unwrap();
        assert_eq!(read_head(f.as_os_str().as_encoded_bytes(), &mut b), None);
    }

    #[test]
    fn shared_counts_and_drops_once() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static DROPS: AtomicUsize = AtomicUsize::new(0);
        struct D(u32);
        impl Drop for D {
            fn drop(&mut self) {
                DROPS.fetch_add(1, Ordering::SeqCst);
            }
        }
        let a = Shared::try_new(D(7)).unwrap();
        let b = a.clone();
        assert!(Shared::ptr_eq(&a, &b));
        assert_eq!(b.0, 7);
        let raw = Shared::into_raw(b);
        assert_eq!(raw, Shared::as_ptr(&a));
        // SAFETY: raw came from into_raw just above.
        let c = unsafe { Shared::from_raw(raw) };
        let t = std::thread::spawn(move || c.0);
        assert_eq!(t.join().unwrap(), 7);
        assert_eq!(DROPS.load(Ordering::SeqCst), 0);
        drop(a);
        assert_eq!(DROPS.load(Ordering::SeqCst), 1);
        fail_after(0);
        assert!(Shared::try_new(D(1)).is_err());
        disarm();
        // The value given to a failed try_new is dropped.
        assert_eq!(DROPS.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn detached_threads_run_and_report_failure() {
        let (tx, rx) = std::sync::mpsc::channel();
        spawn_detached(c"fallible-test", move || tx.send(5).unwrap()).unwrap();
        assert_eq!(rx.recv().unwrap(), 5);
        fail_after(0);
        assert_eq!(spawn_detached(c"x", || ()), Err(libc::ENOMEM));
        disarm();
    }

    #[test]
    fn fixed_buf_bounds() {
        let mut b = FixedBuf::<8>::new();
        b.push(b"1234567").unwrap();
        assert_eq!(b.push(b"8"), Err(Full));
        assert_eq!(b.as_bytes(), b"1234567");
        assert_eq!(b.c_str().unwrap().to_bytes(), b"1234567");
        assert!(FixedBuf::<8>::of(&[b"1234", b"5678"]).is_none());
        assert!(FixedBuf::<8>::of(&[b"a\0"]).unwrap().c_str().is_none());
        let f = fixed_format!(16; "ports/{}/gids/{}", 1, 12).unwrap();
        assert_eq!(f.as_bytes(), b"ports/1/gids/12");
        assert!(fixed_format!(4; "{}", 12345).is_none());
    }

    #[test]
    fn write_fd_splits_long_messages() {
        let mut fds = [0; 2];
        // SAFETY: fds has room for the two descriptors.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        let long = "x".repeat(5000);
        write_fd(fds[1], format_args!("{long}|{}\n", 7));
        // SAFETY: closes the write end made above.
        unsafe { libc::close(fds[1]) };
        let mut got = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            // SAFETY: buf is writable for its length.
            let n = unsafe { libc::read(fds[0], buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                break;
            }
            got.extend_from_slice(&buf[..n as usize]);
        }
        // SAFETY: closes the read end.
        unsafe { libc::close(fds[0]) };
        assert_eq!(got, format!("{long}|7\n").into_bytes());
    }
}
