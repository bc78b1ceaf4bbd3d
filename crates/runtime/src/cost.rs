//! What hinting-fault sampling costs the program's own threads, measured in the process.
//!
//! The runtime times its own revocations ([`crate::stats::Stats::time_revoking`]). A
//! hinting fault costs the thread that takes it two more things, which this module measures:
//!
//! * **the handler**: the time inside the `SIGSEGV` handler for a fault it claims (restoring
//!   the page with `mprotect`, counting the sample), timed with `clock_gettime(CLOCK_MONOTONIC)`
//!   at its entry and exit (async-signal-safe) and summed in atomics ([`HANDLER_NS`],
//!   [`FAULTS`]: no lock, no allocation);
//! * **the round trip** the handler cannot see: the trap, the kernel's signal delivery and
//!   `sigreturn`. [`calibrate`] measures it once, when sampling starts: it faults a private
//!   scratch page [`CALIBRATION_FAULTS`] times through the same handler and takes the median
//!   of (time around the faulting access − time inside the handler). It is a measurement on
//!   this machine and kernel, not a constant.
//!
//! The stats file reports the three parts ([`crate::stats`]); `numaplace report` adds them up.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::*};

/// Hinting faults the handler claimed (samples, and late faults on a page being restored).
pub static FAULTS: AtomicU64 = AtomicU64::new(0);
/// Nanoseconds spent inside the handler for those faults, summed over threads.
pub static HANDLER_NS: AtomicU64 = AtomicU64::new(0);
/// The calibrated round trip of one fault outside the handler, ns; 0 until [`calibrate`] ran.
pub static ROUND_TRIP_NS: AtomicU64 = AtomicU64::new(0);

/// Faults timed by [`calibrate`] (after a few untimed ones that warm the path).
const CALIBRATION_FAULTS: usize = 255;
const WARM_UP: usize = 16;

/// The calibration's scratch page while it runs (0 otherwise), and the handler's time for its
/// last fault there.
static SCRATCH: AtomicUsize = AtomicUsize::new(0);
static SCRATCH_INNER_NS: AtomicU64 = AtomicU64::new(0);

/// `CLOCK_MONOTONIC` in nanoseconds (async-signal-safe).
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec; it is async-signal-safe (POSIX).
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Counts one claimed fault that entered the handler at `entered` (from [`now_ns`]).
pub fn fault_handled(entered: u64) {
    HANDLER_NS.fetch_add(now_ns().saturating_sub(entered), Relaxed);
    FAULTS.fetch_add(1, Relaxed);
}

/// The handler's path for a fault on the calibration's scratch page: restores it and records
/// the time inside the handler. Returns false for any other address. Async-signal-safe.
pub fn claim_scratch(addr: usize, entered: u64) -> bool {
    let page = SCRATCH.load(Acquire);
    if page == 0 || addr < page || addr >= page + crate::space::SPACE.page_size.load(Relaxed) {
        return false;
    }
    // SAFETY: restores the scratch page this module mapped read-write.
    unsafe { libc::mprotect(page as *mut libc::c_void, crate::space::SPACE.page_size.load(Relaxed), libc::PROT_READ | libc::PROT_WRITE) };
    SCRATCH_INNER_NS.store(now_ns().saturating_sub(entered), Release);
    true
}

/// Measures one hinting fault's round trip outside the handler (trap, signal delivery,
/// `sigreturn`, the access retried), in ns: [`CALIBRATION_FAULTS`] faults on a private scratch
/// page, each timed around the access minus the handler's own time, the median. Stores it in
/// [`ROUND_TRIP_NS`]. The fault handler must be installed ([`crate::sampler::install`]);
/// call it from one thread, before the sampler thread starts.
///
/// # Errors
/// The scratch page cannot be mapped or protected (the system call and errno).
pub fn calibrate() -> Result<u64, String> {
    let ps = crate::space::SPACE.page_size.load(Relaxed);
    // SAFETY: a fresh private anonymous mapping of one page, unmapped below.
    let page = unsafe { libc::mmap(std::ptr::null_mut(), ps, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0) };
    if page == libc::MAP_FAILED {
        return Err(format!("calibrating the fault round trip: mmap: {}", std::io::Error::last_os_error()));
    }
    let p = page as *mut u64;
    // SAFETY: the page is ours and read-write: touched so that no first-touch fault is timed.
    unsafe { std::ptr::write_volatile(p, 0) };
    SCRATCH.store(page as usize, Release);
    let mut trips = Vec::with_capacity(CALIBRATION_FAULTS);
    let mut failed = None;
    for i in 0..WARM_UP + CALIBRATION_FAULTS {
        // SAFETY: protects the scratch page; the handler restores it on the access below.
        if unsafe { libc::mprotect(page, ps, libc::PROT_NONE) } != 0 {
            failed = Some(format!("calibrating the fault round trip: mprotect: {}", std::io::Error::last_os_error()));
            break;
        }
        SCRATCH_INNER_NS.store(u64::MAX, Release);
        let t0 = now_ns();
        // SAFETY: faults once (the page is PROT_NONE); the handler makes it read-write again
        // and the write is retried.
        unsafe { std::ptr::write_volatile(p, i as u64) };
        let outer = now_ns().saturating_sub(t0);
        let inner = SCRATCH_INNER_NS.load(Acquire);
        if inner == u64::MAX {
            failed = Some("calibrating the fault round trip: the access did not fault through the handler".into());
            break;
        }
        if i >= WARM_UP {
            trips.push(outer.saturating_sub(inner));
        }
    }
    SCRATCH.store(0, Release);
    // SAFETY: the mapping made above; nothing refers to it any more.
    unsafe { libc::munmap(page, ps) };
    if let Some(why) = failed {
        return Err(why);
    }
    trips.sort_unstable();
    let median = trips[trips.len() / 2].max(1);
    ROUND_TRIP_NS.store(median, Relaxed);
    Ok(median)
}

/// The calibrated round trip, if [`calibrate`] ran in this process (or the one it was forked
/// from: the same kernel and machine).
pub fn round_trip_ns() -> Option<u64> {
    match ROUND_TRIP_NS.load(Relaxed) {
        0 => None,
        ns => Some(ns),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::space::SPACE;

    #[test]
    fn the_calibration_faults_through_the_handler_and_counts_no_sample() {
        let _space = crate::driver::testing::hold_space(); // no other test's samples meanwhile
        crate::sampler::install().unwrap();
        let samples = SPACE.samples.load(Relaxed);
        let ns = calibrate().unwrap();
        assert!(ns > 0);
        assert_eq!(round_trip_ns(), Some(ns));
        assert_eq!(SPACE.samples.load(Relaxed), samples, "a calibration fault is no sample");
        assert_eq!(SCRATCH.load(Relaxed), 0, "the scratch page is forgotten");
    }

    #[test]
    fn a_hinting_fault_through_the_handler_is_counted_and_timed() {
        let _space = crate::driver::testing::hold_space();
        crate::sampler::install().unwrap();
        SPACE.configure(1, 4096, &[Some(0)]);
        // SAFETY: a fresh anonymous private mapping, unmapped below.
        let base = unsafe { libc::mmap(std::ptr::null_mut(), 4 * 4096, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0) } as usize;
        let slot = SPACE.add(base, 4, 0).unwrap();
        let (faults, handler) = (FAULTS.load(Relaxed), HANDLER_NS.load(Relaxed));
        SPACE.revoke_pages(slot, 0, 4).unwrap();
        for p in 0..4 {
            // SAFETY: our mapping; each page faults once, and the handler restores it.
            unsafe { std::ptr::write_volatile((base + p * 4096) as *mut u64, p as u64) };
        }
        assert!(FAULTS.load(Relaxed) >= faults + 4);
        assert!(HANDLER_NS.load(Relaxed) > handler);
        SPACE.remove(slot);
        // SAFETY: the mapping made above.
        unsafe { libc::munmap(base as *mut libc::c_void, 4 * 4096) };
    }
}
