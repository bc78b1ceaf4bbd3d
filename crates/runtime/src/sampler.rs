//! Where samples come from, and the fault handler.
//!
//! **Hinting faults** (always available): the runtime's `SIGSEGV` handler claims faults on
//! revoked managed pages ([`crate::space`]) and passes every other fault on, unchanged, to the
//! application's own handler, or to the default action. The application still installs its
//! handler with `sigaction(2)`/`signal(2)` as usual: the library interposes both for
//! `SIGSEGV` only, records the application's handler, and keeps its own in front.
//!
//! System calls that read into or write from user memory would fail with `EFAULT` on a
//! revoked page instead of faulting; the library interposes `read`, `write`, `pread`,
//! `pwrite`, `readv` and `writev` and restores access to the buffers first, so they behave
//! exactly as without sampling. Other calls that take user buffers (`recv`, `fread`'s direct
//! path, io_uring, ...) are not interposed: do not register memory used as their buffers, or
//! use `NUMAPLACE_SOURCE=perf`.
//!
//! **perf_event** (where kernel and CPU support precise memory sampling: Intel PEBS
//! `mem-loads`): [`crate::perf`]; [`choose`] prefers it and says why it is not used.

use crate::space::SPACE;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering::*};

type SigactionFn = unsafe extern "C" fn(libc::c_int, *const libc::sigaction, *mut libc::sigaction) -> libc::c_int;

static INSTALLED: AtomicBool = AtomicBool::new(false);
/// `NUMAPLACE_DEBUG=1`: say on stderr why a fault was passed on.
pub static DEBUG: AtomicBool = AtomicBool::new(false);

/// Writes one line about a fault passed on to the application (async-signal-safe: formats
/// into a stack buffer, one write).
fn debug_fault(addr: usize) {
    let mut buf = [0u8; 96];
    let mut n = 0;
    let mut put = |b: &[u8]| {
        for &c in b {
            if n < buf.len() {
                buf[n] = c;
                n += 1;
            }
        }
    };
    put(b"numaplace: fault at 0x");
    for shift in (0..16).rev() {
        put(&[b"0123456789abcdef"[(addr >> (shift * 4)) & 15]]);
    }
    put(match SPACE.find(addr) {
        Some(_) => b" in a managed region, not revoked: passed on\n",
        None => b" outside managed regions: passed on\n",
    });
    // SAFETY: write(2) of a stack buffer is async-signal-safe.
    unsafe { libc::syscall(libc::SYS_write, 2, buf.as_ptr(), n) };
}
/// The application's SIGSEGV disposition (what it would be without the runtime).
static APP: AtomicPtr<libc::sigaction> = AtomicPtr::new(std::ptr::null_mut());

/// libc's own `sigaction` (the next definition after this library's interposer; resolved when
/// the library loads, [`crate::real`]).
pub fn real_sigaction() -> SigactionFn {
    // SAFETY: the entry names libc's sigaction, which has this signature.
    unsafe { crate::real::sigaction.must() }
}

fn leak(act: libc::sigaction) -> *mut libc::sigaction {
    Box::into_raw(Box::new(act))
}

extern "C" fn on_segv(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // A panic here would be a bug; the guard turns it into abort() rather than an unwind out
    // of a signal handler. Catching costs nothing while nothing panics (async-signal-safe).
    // SAFETY: abort is async-signal-safe.
    crate::guard::guard(|| unsafe { libc::abort() }, || handle_segv(sig, info, ctx))
}

/// The body of [`on_segv`].
fn handle_segv(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // The time inside the handler of a fault it claims is part of sampling's cost (crate::cost).
    let entered = crate::cost::now_ns();
    // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers.
    let addr = unsafe { (*info).si_addr() } as usize;
    if SPACE.claim_fault(addr) {
        crate::cost::fault_handled(entered);
        return;
    }
    if crate::cost::claim_scratch(addr, entered) {
        return;
    }
    // Not ours: what the application asked for.
    if DEBUG.load(Relaxed) {
        debug_fault(addr);
    }
    let app = APP.load(Acquire);
    // SAFETY: APP always points to a leaked, never-freed sigaction.
    let app = unsafe { &*app };
    match app.sa_sigaction {
        libc::SIG_DFL | libc::SIG_IGN => {
            // Restore the default and return: the access faults again and the default action
            // (terminate, core dump) happens as it would have.
            // SAFETY: a zeroed sigaction with SIG_DFL is a valid argument.
            unsafe {
                let mut dfl: libc::sigaction = std::mem::zeroed();
                dfl.sa_sigaction = libc::SIG_DFL;
                real_sigaction()(libc::SIGSEGV, &dfl, std::ptr::null_mut());
            }
        }
        h => {
            if app.sa_flags & libc::SA_RESETHAND != 0 {
                // SAFETY: zeroed = SIG_DFL.
                APP.store(leak(unsafe { std::mem::zeroed() }), Release);
            }
            if app.sa_flags & libc::SA_SIGINFO != 0 {
                // SAFETY: the application installed this three-argument handler.
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) = unsafe { std::mem::transmute(h) };
                f(sig, info, ctx);
            } else {
                // SAFETY: the application installed this one-argument handler.
                let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(h) };
                f(sig);
            }
        }
    }
}

/// Installs the fault handler (once), remembering the current disposition as the
/// application's.
///
/// # Errors
/// `sigaction` failed (errno).
pub fn install() -> Result<(), i32> {
    if INSTALLED.load(Acquire) {
        return Ok(());
    }
    // SAFETY: plain sigaction calls with valid structures.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        let mut act: libc::sigaction = std::mem::zeroed();
        act.sa_sigaction = on_segv as *const () as usize;
        act.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART | libc::SA_ONSTACK | libc::SA_NODEFER;
        libc::sigemptyset(&mut act.sa_mask);
        if real_sigaction()(libc::SIGSEGV, &act, &mut old) != 0 {
            return Err(std::io::Error::last_os_error().raw_os_error().unwrap_or(0));
        }
        APP.store(leak(old), Release);
    }
    SPACE.armed.store(true, Release);
    INSTALLED.store(true, Release);
    Ok(())
}

/// The interposed `sigaction` for `SIGSEGV` while the handler is installed: swaps the
/// recorded application disposition. Returns `None` when the call is not ours to handle.
///
/// # Safety
/// `act` and `old` are null or valid, as for `sigaction(2)`.
pub unsafe fn app_sigaction(sig: libc::c_int, act: *const libc::sigaction, old: *mut libc::sigaction) -> Option<libc::c_int> {
    if sig != libc::SIGSEGV || !INSTALLED.load(Acquire) {
        return None;
    }
    let cur = APP.load(Acquire);
    if !old.is_null() {
        *old = *cur;
    }
    if !act.is_null() {
        APP.store(leak(*act), Release);
    }
    Some(0)
}

/// Whether the fault handler is installed.
pub fn installed() -> bool {
    INSTALLED.load(Acquire)
}

/// The sample source chosen for a run.
pub enum Source {
    Faults,
    Perf(crate::perf::Perf),
}

/// Chooses the sample source for `wanted` (`auto`, `faults`, `perf`) on `cpus` (CPU, dense
/// node): precise memory sampling where it opens, else hinting faults; with the reason.
///
/// # Errors
/// `perf` was asked for and is not available (the reason says why).
pub fn choose(wanted: &str, cpus: &[(usize, usize)]) -> Result<(Source, String), String> {
    if wanted == "faults" {
        return Ok((Source::Faults, "asked for (NUMAPLACE_SOURCE=faults)".into()));
    }
    match crate::perf::Perf::open(cpus) {
        Ok(p) => {
            let why = p.describe();
            Ok((Source::Perf(p), why))
        }
        Err(why) if wanted == "perf" => Err(format!("NUMAPLACE_SOURCE=perf: {why}")),
        Err(why) => Ok((Source::Faults, why)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cost;
    use std::sync::atomic::Ordering::Relaxed;

    #[test]
    fn the_calibration_faults_through_the_handler_and_counts_no_sample() {
        let _space = crate::space::testing::hold_space(); // no other test's samples meanwhile
        install().unwrap();
        let samples = SPACE.samples.load(Relaxed);
        let ns = cost::calibrate().unwrap();
        assert!(ns > 0);
        assert_eq!(cost::round_trip_ns(), Some(ns));
        assert_eq!(SPACE.samples.load(Relaxed), samples, "a calibration fault is no sample");
        assert_eq!(cost::scratch_page(), 0, "the scratch page is forgotten");
    }

    #[test]
    fn a_hinting_fault_through_the_handler_is_counted_and_timed() {
        let _space = crate::space::testing::hold_space();
        install().unwrap();
        SPACE.configure(1, 4096, &[Some(0)]);
        // SAFETY: a fresh anonymous private mapping, unmapped below.
        let base = unsafe { libc::mmap(std::ptr::null_mut(), 4 * 4096, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0) } as usize;
        let slot = SPACE.add(base, 4, 0).unwrap();
        let (faults, handler) = cost::totals();
        let mine = cost::threads().into_iter().find(|(_, t)| t.tid == cost::gettid()).map(|(_, t)| t).unwrap_or_default();
        SPACE.revoke_pages(slot, 0, 4).unwrap();
        for p in 0..4 {
            // SAFETY: our mapping; each page faults once, and the handler restores it.
            unsafe { std::ptr::write_volatile((base + p * 4096) as *mut u64, p as u64) };
        }
        assert!(cost::totals().0 >= faults + 4);
        assert!(cost::totals().1 > handler);
        let after = cost::threads().into_iter().find(|(_, t)| t.tid == cost::gettid()).map(|(_, t)| t).unwrap();
        assert_eq!(after.faults, mine.faults + 4, "counted in this thread's slot");
        assert!(after.handler_ns > mine.handler_ns);
        SPACE.remove(slot);
        // SAFETY: the mapping made above.
        unsafe { libc::munmap(base as *mut libc::c_void, 4 * 4096) };
    }
}
