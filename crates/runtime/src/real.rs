//! The C library's own definitions of the functions this library interposes ([`crate::preload`],
//! [`crate::sampler`]): each resolved once, with `dlsym(RTLD_NEXT, ...)`, when the library loads
//! ([`resolve_all`], called first by the load constructor), never lazily inside a hook.
//!
//! Why eagerly: `dlsym` may itself call `free` (glibc's `_dlerror_run` frees the last error
//! message) and `malloc`, which are interposed. A hook that resolved its symbol on first use
//! re-entered itself: libomp's first fork calls `dlopen`, whose `_dlerror_run` calls `free`,
//! whose hook asked `dlsym` for `malloc_usable_size`, which called `free` again ... until the
//! stack overflowed (every clang/libomp program that allocated a managed block before its first
//! parallel region died with SIGSEGV). Resolving everything before the program runs, and a
//! per-thread guard that makes a resolution re-entered from inside `dlsym` answer "not yet"
//! (the hook then falls through to the plain path), keep every hook out of the loader.

use std::cell::Cell;
use std::ffi::{c_void, CStr};
use std::sync::atomic::{AtomicPtr, Ordering::*};

/// One C library function: its name and, once resolved, its address.
pub struct Real {
    ptr: AtomicPtr<c_void>,
    name: &'static CStr,
    /// Where `RTLD_NEXT` finds nothing (the library linked statically into the program, whose
    /// own definitions then shadow libc's public names): a libc-internal name to try instead.
    fallback: Option<&'static CStr>,
}

thread_local! {
    /// This thread is inside `dlsym` on behalf of [`Real::get`] (no allocation: a const `Cell`).
    static RESOLVING: Cell<bool> = const { Cell::new(false) };
}

impl Real {
    pub const fn new(name: &'static CStr, fallback: Option<&'static CStr>) -> Real {
        Real { ptr: AtomicPtr::new(std::ptr::null_mut()), name, fallback }
    }

    /// The function's address, resolving it now if the load constructor did not; `None` when a
    /// call from inside that resolution re-enters (or the C library lacks the name).
    pub fn address(&self) -> Option<*mut c_void> {
        let p = self.ptr.load(Acquire);
        if !p.is_null() {
            return Some(p);
        }
        if RESOLVING.with(|r| r.replace(true)) {
            return None; // re-entered from inside dlsym: the caller takes its plain path
        }
        // SAFETY: dlsym with NUL-terminated names.
        let mut p = unsafe { libc::dlsym(libc::RTLD_NEXT, self.name.as_ptr()) };
        if p.is_null() {
            if let Some(f) = self.fallback {
                // SAFETY: as above.
                p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, f.as_ptr()) };
            }
        }
        RESOLVING.with(|r| r.set(false));
        if !p.is_null() {
            self.ptr.store(p, Release);
        }
        (!p.is_null()).then_some(p)
    }

    /// The function as `T` (its function pointer type), or `None` as [`Real::address`].
    ///
    /// # Safety
    /// `T` must be the C signature of the function this entry names.
    pub unsafe fn get<T: Copy>(&self) -> Option<T> {
        const { assert!(std::mem::size_of::<T>() == std::mem::size_of::<*mut c_void>()) };
        self.address().map(|p| std::mem::transmute_copy::<*mut c_void, T>(&p))
    }

    /// As [`Real::get`] for a function the hook cannot do without: a missing one ends the
    /// process with one line naming it (async-signal-safe; never a panic across the C ABI).
    ///
    /// # Safety
    /// As [`Real::get`].
    pub unsafe fn must<T: Copy>(&self) -> T {
        match self.get() {
            Some(f) => f,
            None => {
                let mut line = *b"numaplace: the C library's function cannot be found (interposed by libnumaplace): ";
                let _ = libc::write(2, line.as_mut_ptr().cast(), line.len());
                let name = self.name.to_bytes();
                let _ = libc::write(2, name.as_ptr().cast(), name.len());
                let _ = libc::write(2, b"\n".as_ptr().cast(), 1);
                libc::abort()
            }
        }
    }

    pub fn name(&self) -> &'static CStr {
        self.name
    }
}

macro_rules! reals {
    ($($id:ident = $name:literal $(or $fallback:literal)?),* $(,)?) => {
        $(
            #[allow(non_upper_case_globals)]
            pub static $id: Real = Real::new($name, reals!(@fb $($fallback)?));
        )*
        /// Every entry of this module, for [`resolve_all`].
        pub static ALL: &[&Real] = &[$(&$id),*];
    };
    (@fb) => { None };
    (@fb $f:literal) => { Some($f) };
}

// One line per function: the interposers in `preload` and the sampler's `sigaction`.
reals! {
    malloc_usable_size = c"malloc_usable_size",
    sigaction = c"sigaction" or c"__sigaction",
    read = c"read", write = c"write",
    pread = c"pread", pwrite = c"pwrite", pread64 = c"pread64", pwrite64 = c"pwrite64",
    recv = c"recv", send = c"send", recvfrom = c"recvfrom", sendto = c"sendto",
    readv = c"readv", writev = c"writev", preadv = c"preadv", pwritev = c"pwritev",
    preadv64 = c"preadv64", pwritev64 = c"pwritev64", preadv2 = c"preadv2", pwritev2 = c"pwritev2",
    recvmsg = c"recvmsg", sendmsg = c"sendmsg", recvmmsg = c"recvmmsg", sendmmsg = c"sendmmsg",
    fread = c"fread", fwrite = c"fwrite", fread_unlocked = c"fread_unlocked", fwrite_unlocked = c"fwrite_unlocked",
}

/// Resolves every entry; the load constructor calls it before the program (or any library's
/// constructor that runs after this one) can reach a hook.
pub fn resolve_all() {
    for r in ALL {
        let _ = r.address();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_resolves_in_a_glibc_process() {
        resolve_all();
        for r in ALL {
            assert!(r.address().is_some(), "{:?} did not resolve", r.name());
        }
    }

    #[test]
    fn a_resolution_re_entered_from_inside_dlsym_answers_not_yet() {
        static LATE: Real = Real::new(c"getpid", None);
        RESOLVING.with(|r| r.set(true));
        assert!(LATE.address().is_none(), "a nested resolution must not call dlsym");
        RESOLVING.with(|r| r.set(false));
        assert!(LATE.address().is_some());
        // Once resolved, the address is answered even from inside a resolution.
        RESOLVING.with(|r| r.set(true));
        assert!(LATE.address().is_some());
        RESOLVING.with(|r| r.set(false));
    }

    #[test]
    fn an_unknown_name_is_none_not_a_panic() {
        static NONE: Real = Real::new(c"numaplace_no_such_function", None);
        assert!(NONE.address().is_none());
        // SAFETY: never called.
        assert!(unsafe { NONE.get::<unsafe extern "C" fn()>() }.is_none());
    }
}
