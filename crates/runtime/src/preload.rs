//! Interposed C library functions, for unmodified programs (`numaplace run`, which sets
//! `LD_PRELOAD` and `NUMAPLACE_PRELOAD=1`) and for the sampler's correctness in any program
//! that links the library.
//!
//! * **Allocation** (`malloc`, `calloc`, `realloc`, `reallocarray`, `free`, `posix_memalign`,
//!   `aligned_alloc`, `memalign`, `malloc_usable_size`): with `NUMAPLACE_PRELOAD=1`, a request of at least
//!   `NUMAPLACE_MIN_BYTES` is served by its own anonymous mapping, registered as a managed
//!   region named `malloc#k` and placed by `NUMAPLACE_PLACEMENT`; everything else (and every
//!   request when preload mode is off) goes to glibc's `__libc_*` functions. `free` of a
//!   managed block unmaps it; freeing memory inside a region the program registered itself
//!   withdraws the region first. The library's own allocations never come here (its global
//!   allocator calls glibc directly), so no hook re-enters the runtime. glibc only.
//! * **Calls with user buffers** (`read`, `write`, `pread`, `pwrite` and their `64` names,
//!   `readv`, `writev`, `preadv`, `pwritev` (also `64` and `2`), `recv`, `recvfrom`, `recvmsg`,
//!   `recvmmsg`, `send`, `sendto`, `sendmsg`, `sendmmsg`, and stdio's `fread`, `fwrite` and their
//!   `_unlocked` forms): restore access to sampled pages of every buffer first
//!   ([`crate::space`]), and pin them for the call's duration so that no revocation while it
//!   runs or blocks protects them; a buffer no pin covers (every pin taken, or more buffers
//!   than a call may pin) pauses sampling until the call returns (no revocation protects
//!   anything meanwhile); a system call that still fails with `EFAULT` (a fault handler's
//!   restore that raced with a revocation) has its buffers opened and is made again.
//! * **Signals** (`sigaction`, `signal`): `SIGSEGV` dispositions the program sets are
//!   recorded and honoured behind the sampler's handler ([`crate::sampler`]).
//!
//! A constructor initialises the runtime in preload mode; a destructor writes the statistics
//! file (`NUMAPLACE_STATS`) when the process managed any memory, so that in a process tree
//! (a shell running the program) the file describes the process that did the work. That
//! process is also warned at exit when its policy is one only the API runs (`upmlib`) and the
//! program never called it ([`crate::runtime::Runtime::idle_policy_warning`]).

// The interposers are left out of unit-test builds (they would replace the test harness's own
// malloc and signal functions); the helpers only they use are then unused.
#![cfg_attr(test, allow(dead_code, unused_imports))]

use crate::capi;
use crate::sampler;
use crate::space::SPACE;
use std::ffi::{c_int, c_void};
use crate::real;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};

extern "C" {
    fn __libc_malloc(size: usize) -> *mut c_void;
    fn __libc_calloc(n: usize, size: usize) -> *mut c_void;
    fn __libc_realloc(p: *mut c_void, size: usize) -> *mut c_void;
    fn __libc_free(p: *mut c_void);
    fn __libc_memalign(align: usize, size: usize) -> *mut c_void;
}

/// The library's global allocator: glibc directly, bypassing the interposed `malloc`.
pub struct LibcAlloc;

// SAFETY: glibc's allocator satisfies GlobalAlloc's contract for the alignments passed.
unsafe impl std::alloc::GlobalAlloc for LibcAlloc {
    unsafe fn alloc(&self, l: std::alloc::Layout) -> *mut u8 {
        if l.align() <= 16 {
            __libc_malloc(l.size()) as *mut u8
        } else {
            __libc_memalign(l.align(), l.size()) as *mut u8
        }
    }
    unsafe fn alloc_zeroed(&self, l: std::alloc::Layout) -> *mut u8 {
        if l.align() <= 16 {
            __libc_calloc(1, l.size()) as *mut u8
        } else {
            let p = self.alloc(l);
            if !p.is_null() {
                std::ptr::write_bytes(p, 0, l.size());
            }
            p
        }
    }
    unsafe fn dealloc(&self, p: *mut u8, _l: std::alloc::Layout) {
        __libc_free(p as *mut c_void)
    }
    unsafe fn realloc(&self, p: *mut u8, l: std::alloc::Layout, new: usize) -> *mut u8 {
        if l.align() <= 16 {
            __libc_realloc(p as *mut c_void, new) as *mut u8
        } else {
            let q = self.alloc(std::alloc::Layout::from_size_align_unchecked(new, l.align()));
            if !q.is_null() {
                std::ptr::copy_nonoverlapping(p, q, l.size().min(new));
                self.dealloc(p, l);
            }
            q
        }
    }
}

/// Preload mode: large allocations become managed regions.
static MANAGE: AtomicBool = AtomicBool::new(false);
static MIN_BYTES: AtomicUsize = AtomicUsize::new(usize::MAX);
static NEXT_ID: AtomicUsize = AtomicUsize::new(0);

const MAX_OWNED: usize = 4096;
#[allow(clippy::declare_interior_mutable_const)]
const ZERO: AtomicUsize = AtomicUsize::new(0);
/// Blocks served by our own mappings: (address, mapping length); address 0 = free entry.
static OWNED_ADDR: [AtomicUsize; MAX_OWNED] = [ZERO; MAX_OWNED];
static OWNED_LEN: [AtomicUsize; MAX_OWNED] = [ZERO; MAX_OWNED];
static OWNED_COUNT: AtomicUsize = AtomicUsize::new(0);

fn page() -> usize {
    SPACE.page_size.load(Relaxed)
}

fn owned_len(p: usize) -> Option<(usize, usize)> {
    if OWNED_COUNT.load(Acquire) == 0 || !p.is_multiple_of(page()) {
        return None;
    }
    (0..MAX_OWNED).find(|&i| OWNED_ADDR[i].load(Acquire) == p).map(|i| (i, OWNED_LEN[i].load(Relaxed)))
}

/// Serves `size` bytes from a fresh mapping and manages it, or `None` (then glibc serves).
fn big_alloc(size: usize) -> Option<*mut c_void> {
    if !MANAGE.load(Relaxed) || size < MIN_BYTES.load(Relaxed) || capi::holding() {
        return None;
    }
    let len = size.div_ceil(page()) * page();
    // SAFETY: a fresh anonymous private mapping.
    let p = unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0) };
    if p == libc::MAP_FAILED {
        return None;
    }
    // Base pages before anything touches the block (see `Sys::base_pages`).
    // SAFETY: advice on our own fresh mapping.
    unsafe { libc::madvise(p, len, libc::MADV_NOHUGEPAGE) };
    let Some(i) = (0..MAX_OWNED).find(|&i| OWNED_ADDR[i].compare_exchange(0, p as usize, AcqRel, Relaxed).is_ok()) else {
        // SAFETY: the mapping made above.
        unsafe { libc::munmap(p, len) };
        return None;
    };
    OWNED_LEN[i].store(len, Release);
    OWNED_COUNT.fetch_add(1, Release);
    let mut g = capi::lock();
    if let Some(rt) = g.as_mut() {
        let name = format!("malloc#{}", NEXT_ID.fetch_add(1, Relaxed));
        if rt.register(p as usize, len, &name, Some(len)).is_ok() && !rt.host.placement_caps.kernel_default {
            let spec = rt.host.cfg.placement.clone();
            let _ = rt.place(p as usize, len, &spec);
        }
    }
    Some(p)
}

/// Releases a block from [`big_alloc`]; false if `p` is not one.
fn big_free(p: *mut c_void) -> bool {
    let Some((i, len)) = owned_len(p as usize) else { return false };
    {
        let mut g = capi::lock();
        if let Some(rt) = g.as_mut() {
            rt.unregister(p as usize);
        }
    }
    // SAFETY: our own mapping of `len` bytes, no longer registered.
    unsafe { libc::munmap(p, len) };
    OWNED_LEN[i].store(0, Relaxed);
    OWNED_ADDR[i].store(0, Release);
    OWNED_COUNT.fetch_sub(1, Release);
    true
}

/// Before glibc frees `p`: withdraw any registered region inside the block.
fn forget_libc_block(p: *mut c_void) {
    if SPACE.live_slots.load(Relaxed) == 0 || capi::holding() {
        return;
    }
    // SAFETY: `p` is a live glibc block.
    let Some(len) = (unsafe { real_usable_size(p) }) else { return };
    if len < page() || SPACE.find_overlap(p as usize, len).is_none() {
        return;
    }
    let mut g = capi::lock();
    if let Some(rt) = g.as_mut() {
        rt.forget_range(p as usize, len);
    }
}

/// glibc's `malloc_usable_size` of a glibc block; `None` only while the symbol is being resolved
/// on this thread (a `free` from inside `dlsym`: see [`crate::real`]).
unsafe fn real_usable_size(p: *mut c_void) -> Option<usize> {
    let f: unsafe extern "C" fn(*mut c_void) -> usize = real::malloc_usable_size.get()?;
    Some(f(p))
}

#[cfg(not(test))]
mod hooks {
    use super::*;
    use crate::guard::guard;
    use libc::{iovec, off_t, size_t, ssize_t};

    /// A failed allocation: null, `errno` `ENOMEM`.
    unsafe fn enomem() -> *mut c_void {
        *libc::__errno_location() = libc::ENOMEM;
        std::ptr::null_mut()
    }

    #[no_mangle]
    pub unsafe extern "C" fn malloc(size: size_t) -> *mut c_void {
        guard(
            || __libc_malloc(size),
            || {
                big_alloc(size).unwrap_or_else(|| __libc_malloc(size))
            },
        )
    }

    #[no_mangle]
    pub unsafe extern "C" fn calloc(n: size_t, size: size_t) -> *mut c_void {
        guard(
            || __libc_calloc(n, size),
            || {
                match n.checked_mul(size) {
                    Some(total) => big_alloc(total).unwrap_or_else(|| __libc_calloc(n, size)),
                    None => {
                        *libc::__errno_location() = libc::ENOMEM;
                        std::ptr::null_mut()
                    }
                }
            },
        )
    }

    #[no_mangle]
    pub unsafe extern "C" fn free(p: *mut c_void) {
        guard(
            || () /* leaked: whose block it is is unknown */,
            || {
                if p.is_null() || big_free(p) {
                    return;
                }
                forget_libc_block(p);
                __libc_free(p)
            },
        )
    }

    #[no_mangle]
    pub unsafe extern "C" fn realloc(p: *mut c_void, size: size_t) -> *mut c_void {
        guard(
            || enomem(),
            || {
                if p.is_null() {
                    return malloc(size);
                }
                let old = owned_len(p as usize).map(|(_, l)| l);
                if old.is_none() && (size < MIN_BYTES.load(Relaxed) || !MANAGE.load(Relaxed)) {
                    forget_libc_block(p);
                    return __libc_realloc(p, size);
                }
                let q = malloc(size);
                if q.is_null() {
                    return q;
                }
                let Some(have) = old.or_else(|| real_usable_size(p)) else {
                    // glibc's block of unknown size (inside a symbol's resolution): glibc reallocates it.
                    free(q);
                    return __libc_realloc(p, size);
                };
                std::ptr::copy_nonoverlapping(p as *const u8, q as *mut u8, have.min(size));
                free(p);
                q
            },
        )
    }

    #[no_mangle]
    pub unsafe extern "C" fn reallocarray(p: *mut c_void, n: size_t, size: size_t) -> *mut c_void {
        guard(
            || enomem(),
            || {
                match n.checked_mul(size) {
                    Some(total) => realloc(p, total),
                    None => {
                        *libc::__errno_location() = libc::ENOMEM;
                        std::ptr::null_mut()
                    }
                }
            },
        )
    }

    #[no_mangle]
    pub unsafe extern "C" fn posix_memalign(out: *mut *mut c_void, align: size_t, size: size_t) -> c_int {
        guard(
            || libc::ENOMEM,
            || {
                if align <= page() {
                    if let Some(p) = big_alloc(size) {
                        *out = p;
                        return 0;
                    }
                }
                if align < std::mem::size_of::<*mut c_void>() || !align.is_power_of_two() {
                    return libc::EINVAL;
                }
                let p = __libc_memalign(align, size);
                if p.is_null() {
                    return libc::ENOMEM;
                }
                *out = p;
                0
            },
        )
    }

    #[no_mangle]
    pub unsafe extern "C" fn aligned_alloc(align: size_t, size: size_t) -> *mut c_void {
        guard(
            || __libc_memalign(align, size),
            || {
                memalign(align, size)
            },
        )
    }

    #[no_mangle]
    pub unsafe extern "C" fn memalign(align: size_t, size: size_t) -> *mut c_void {
        guard(
            || __libc_memalign(align, size),
            || {
                if align <= page() {
                    if let Some(p) = big_alloc(size) {
                        return p;
                    }
                }
                __libc_memalign(align, size)
            },
        )
    }

    #[no_mangle]
    pub unsafe extern "C" fn malloc_usable_size(p: *mut c_void) -> size_t {
        guard(
            || 0,
            || {
                if p.is_null() {
                    return 0;
                }
                match owned_len(p as usize) {
                    Some((_, l)) => l,
                    None => real_usable_size(p).unwrap_or(0),
                }
            },
        )
    }

    /// How many times a call that failed with `EFAULT` on managed memory is made again. Pins
    /// ([`Pins`]) keep a call's buffers accessible while it runs, and a call with a buffer no
    /// pin covers pauses sampling; a page can still be left protected with its sample taken by
    /// a fault handler's restore that raced with a revocation (see `Space::open_all`).
    const EFAULT_RETRIES: u32 = 4;

    /// Linux's limit on the entries of an iovec (and on the messages of `sendmmsg`/`recvmmsg`).
    const IOV_MAX: usize = 1024;

    /// The buffers of one call: each pinned (while pins last), then restored.
    struct Pins {
        held: [usize; Pins::MAX],
        n: usize,
        /// A managed buffer went without a pin ([`crate::space::Space::enter_unpinned`]).
        unpinned: bool,
        /// Open the buffers whatever the sampling bits say ([`crate::space::Space::open_range`]):
        /// for a call made again after `EFAULT`, and for stdio's, which cannot be made again.
        force: bool,
    }

    impl Pins {
        const MAX: usize = 8;

        fn new(force: bool) -> Pins {
            Pins { held: [0; Pins::MAX], n: 0, unpinned: false, force }
        }

        /// Pins (if a pin is left) and restores `[addr, addr+len)`.
        fn add(&mut self, addr: usize, len: usize) {
            let mut pinned = false;
            if self.n < Pins::MAX {
                if let Some(p) = SPACE.pin(addr, len) {
                    self.held[self.n] = p;
                    self.n += 1;
                    pinned = true;
                }
            }
            if !pinned && !self.unpinned && len > 0 && SPACE.find_overlap(addr, len).is_some() {
                // Every pin taken, or more buffers than this call may pin: no revocation
                // protects anything until the call returns.
                SPACE.enter_unpinned();
                self.unpinned = true;
            }
            if pinned || self.unpinned {
                SPACE.wait_revocation();
            }
            SPACE.restore_range(addr, len);
            if self.force {
                SPACE.open_range(addr, len);
            }
        }
    }

    impl Drop for Pins {
        fn drop(&mut self) {
            self.held[..self.n].iter().for_each(|&p| SPACE.unpin(p));
            if self.unpinned {
                SPACE.leave_unpinned();
            }
        }
    }

    /// Runs `call` with its buffers (added by `buffers`) pinned and restored; a failure with
    /// `EFAULT` while managed memory exists pins, restores and calls again. Linux copies
    /// nothing when such a call fails before any byte moved; pipes, stream sockets and files
    /// also consume nothing then, but a datagram socket drops the datagram — which the pins
    /// prevent for calls with up to [`Pins::MAX`] buffers.
    unsafe fn buffered<R: PartialEq + From<i8>>(buffers: impl Fn(&mut Pins), mut call: impl FnMut() -> R) -> R {
        let mut tries = 0;
        loop {
            let r = if SPACE.live_slots.load(Relaxed) == 0 {
                call()
            } else {
                // A retry opens the buffers whatever the bits say: a fault handler's restore
                // that raced with a revocation can leave a page protected with its sample
                // taken, which the bit-driven restore skips.
                let mut pins = Pins::new(tries > 0);
                buffers(&mut pins);
                call()
            };
            if r != R::from(-1) || tries == EFAULT_RETRIES || SPACE.live_slots.load(Relaxed) == 0 || *libc::__errno_location() != libc::EFAULT {
                return r;
            }
            tries += 1;
        }
    }

    macro_rules! buffer_call {
        ($name:ident, ($($arg:ident: $ty:ty),*), $buf:ident, $len:expr, $ret:ty) => {
            #[no_mangle]
            pub unsafe extern "C" fn $name($($arg: $ty),*) -> $ret {
                let f: unsafe extern "C" fn($($ty),*) -> $ret = real::$name.must();
                guard(|| f($($arg),*), || buffered(|p| p.add($buf as usize, $len), || f($($arg),*)))
            }
        };
    }

    buffer_call!(read, (fd: c_int, buf: *mut c_void, count: size_t), buf, count, ssize_t);
    buffer_call!(write, (fd: c_int, buf: *const c_void, count: size_t), buf, count, ssize_t);
    buffer_call!(pread, (fd: c_int, buf: *mut c_void, count: size_t, off: off_t), buf, count, ssize_t);
    buffer_call!(pwrite, (fd: c_int, buf: *const c_void, count: size_t, off: off_t), buf, count, ssize_t);
    buffer_call!(pread64, (fd: c_int, buf: *mut c_void, count: size_t, off: off_t), buf, count, ssize_t);
    buffer_call!(pwrite64, (fd: c_int, buf: *const c_void, count: size_t, off: off_t), buf, count, ssize_t);
    buffer_call!(recv, (fd: c_int, buf: *mut c_void, len: size_t, flags: c_int), buf, len, ssize_t);
    buffer_call!(send, (fd: c_int, buf: *const c_void, len: size_t, flags: c_int), buf, len, ssize_t);
    buffer_call!(
        recvfrom,
        (fd: c_int, buf: *mut c_void, len: size_t, flags: c_int, addr: *mut libc::sockaddr, alen: *mut libc::socklen_t),
        buf,
        len,
        ssize_t
    );
    buffer_call!(
        sendto,
        (fd: c_int, buf: *const c_void, len: size_t, flags: c_int, addr: *const libc::sockaddr, alen: libc::socklen_t),
        buf,
        len,
        ssize_t
    );

    unsafe fn add_iov(pins: &mut Pins, iov: *const iovec, n: c_int) {
        if iov.is_null() {
            return;
        }
        // Linux refuses more than IOV_MAX (1024) entries: read no further than it would.
        for i in 0..(n.max(0) as usize).min(IOV_MAX) {
            let v = &*iov.add(i);
            pins.add(v.iov_base as usize, v.iov_len);
        }
    }

    /// A message's data (its iovec), ancillary data and address.
    unsafe fn add_msg(pins: &mut Pins, m: *const libc::msghdr) {
        if m.is_null() {
            return;
        }
        let m = &*m;
        add_iov(pins, m.msg_iov, m.msg_iovlen.min(IOV_MAX) as c_int);
        pins.add(m.msg_control as usize, m.msg_controllen);
        pins.add(m.msg_name as usize, m.msg_namelen as usize);
    }

    macro_rules! iov_call {
        ($name:ident, ($($arg:ident: $ty:ty),*)) => {
            #[no_mangle]
            pub unsafe extern "C" fn $name(fd: c_int, iov: *const iovec, n: c_int $(, $arg: $ty)*) -> ssize_t {
                let f: unsafe extern "C" fn(c_int, *const iovec, c_int $(, $ty)*) -> ssize_t = real::$name.must();
                guard(|| f(fd, iov, n $(, $arg)*), || buffered(|p| add_iov(p, iov, n), || f(fd, iov, n $(, $arg)*)))
            }
        };
    }

    iov_call!(readv, ());
    iov_call!(writev, ());
    iov_call!(preadv, (off: off_t));
    iov_call!(pwritev, (off: off_t));
    iov_call!(preadv64, (off: off_t));
    iov_call!(pwritev64, (off: off_t));
    iov_call!(preadv2, (off: off_t, flags: c_int));
    iov_call!(pwritev2, (off: off_t, flags: c_int));

    #[no_mangle]
    pub unsafe extern "C" fn recvmsg(fd: c_int, m: *mut libc::msghdr, flags: c_int) -> ssize_t {
        let f: unsafe extern "C" fn(c_int, *mut libc::msghdr, c_int) -> ssize_t = real::recvmsg.must();
        guard(|| f(fd, m, flags), || buffered(|p| add_msg(p, m), || f(fd, m, flags)))
    }

    #[no_mangle]
    pub unsafe extern "C" fn sendmsg(fd: c_int, m: *const libc::msghdr, flags: c_int) -> ssize_t {
        let f: unsafe extern "C" fn(c_int, *const libc::msghdr, c_int) -> ssize_t = real::sendmsg.must();
        guard(|| f(fd, m, flags), || buffered(|p| add_msg(p, m), || f(fd, m, flags)))
    }

    unsafe fn add_mmsg(pins: &mut Pins, v: *const libc::mmsghdr, n: libc::c_uint) {
        if v.is_null() {
            return;
        }
        for i in 0..(n as usize).min(IOV_MAX) {
            add_msg(pins, &(*v.add(i)).msg_hdr);
        }
    }

    #[no_mangle]
    pub unsafe extern "C" fn recvmmsg(fd: c_int, v: *mut libc::mmsghdr, n: libc::c_uint, flags: c_int, t: *mut libc::timespec) -> c_int {
        let f: unsafe extern "C" fn(c_int, *mut libc::mmsghdr, libc::c_uint, c_int, *mut libc::timespec) -> c_int = real::recvmmsg.must();
        guard(|| f(fd, v, n, flags, t), || buffered(|p| add_mmsg(p, v, n), || f(fd, v, n, flags, t)))
    }

    #[no_mangle]
    pub unsafe extern "C" fn sendmmsg(fd: c_int, v: *mut libc::mmsghdr, n: libc::c_uint, flags: c_int) -> c_int {
        let f: unsafe extern "C" fn(c_int, *mut libc::mmsghdr, libc::c_uint, c_int) -> c_int = real::sendmmsg.must();
        guard(|| f(fd, v, n, flags), || buffered(|p| add_mmsg(p, v, n), || f(fd, v, n, flags)))
    }

    // stdio moves large requests straight between the caller's buffer and the file with
    // glibc's internal read/write, which no interposer sees: pin and restore before. A failure
    // there sets the stream's error flag, so these are not retried.
    macro_rules! stdio_call {
        ($name:ident, $buf:ty) => {
            #[no_mangle]
            pub unsafe extern "C" fn $name(buf: $buf, size: size_t, n: size_t, stream: *mut libc::FILE) -> size_t {
                let f: unsafe extern "C" fn($buf, size_t, size_t, *mut libc::FILE) -> size_t = real::$name.must();
                guard(
                    || f(buf, size, n, stream),
                    || {
                        let mut pins = Pins::new(true);
                        pins.add(buf as usize, size.saturating_mul(n));
                        f(buf, size, n, stream)
                    },
                )
            }
        };
    }

    stdio_call!(fread, *mut c_void);
    stdio_call!(fwrite, *const c_void);
    stdio_call!(fread_unlocked, *mut c_void);
    stdio_call!(fwrite_unlocked, *const c_void);

    #[no_mangle]
    pub unsafe extern "C" fn sigaction(sig: c_int, act: *const libc::sigaction, old: *mut libc::sigaction) -> c_int {
        guard(
            || sampler::real_sigaction()(sig, act, old),
            || {
                match sampler::app_sigaction(sig, act, old) {
                    Some(rc) => rc,
                    None => sampler::real_sigaction()(sig, act, old),
                }
            },
        )
    }

    #[no_mangle]
    pub unsafe extern "C" fn signal(sig: c_int, handler: libc::sighandler_t) -> libc::sighandler_t {
        guard(
            || libc::SIG_ERR,
            || {
                let mut act: libc::sigaction = std::mem::zeroed();
                act.sa_sigaction = handler;
                act.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut act.sa_mask);
                let mut old: libc::sigaction = std::mem::zeroed();
                if sigaction(sig, &act, &mut old) != 0 {
                    return libc::SIG_ERR;
                }
                old.sa_sigaction
            },
        )
    }

    extern "C" fn on_load() {
        guard(
            || (),
            || {
                // Before anything else: no hook may resolve a symbol lazily (see `crate::real`).
                real::resolve_all();
                MIN_BYTES.store(usize::MAX, Relaxed);
                if std::env::var("NUMAPLACE_PRELOAD").as_deref() != Ok("1") {
                    return;
                }
                if let Err(e) = capi::init_with(None, true) {
                    eprintln!("numaplace: {}", e.message);
                    // SAFETY: terminating before the program starts; nothing to flush.
                    unsafe { libc::_exit(2) };
                }
                if let Some(rt) = capi::lock().as_ref() {
                    MIN_BYTES.store(rt.host.cfg.min_bytes.max(1), Relaxed);
                }
                MANAGE.store(true, Release);
            },
        )
    }

    extern "C" fn on_unload() {
        guard(
            || (),
            || {
                let preloaded = MANAGE.swap(false, AcqRel);
                let g = capi::lock();
                if let Some(rt) = g.as_ref() {
                    if preloaded {
                        if let Some(w) = rt.idle_policy_warning() {
                            eprintln!("numaplace: {w}");
                        }
                    }
                    if let Some(path) = &rt.host.cfg.stats {
                        if rt.stats.invocations > 0 || !rt.regions.list.is_empty() || !rt.regions.retired.is_empty() {
                            if let Err(e) = rt.stats_write(path) {
                                eprintln!("numaplace: {}", e.message);
                            }
                        }
                    }
                }
            },
        )
    }

    #[used]
    #[link_section = ".init_array"]
    static ON_LOAD: extern "C" fn() = on_load;

    #[used]
    #[link_section = ".fini_array"]
    static ON_UNLOAD: extern "C" fn() = on_unload;
}
