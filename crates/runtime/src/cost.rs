//! What hinting-fault sampling costs the program's own threads, measured in the process.
//!
//! The runtime times its own revocations ([`crate::sampling::Sampling::time_revoking`]). A
//! hinting fault costs the thread that takes it two more things, which this module measures:
//!
//! * **the handler**: the time inside the `SIGSEGV` handler for a fault it claims (restoring
//!   the page with `mprotect`, counting the sample), timed with `clock_gettime(CLOCK_MONOTONIC)`
//!   at its entry and exit (async-signal-safe) and counted **per thread** in a fixed table of
//!   [`THREAD_SLOTS`] slots ([`threads`]): a thread claims the first free slot on its probe
//!   sequence for its `gettid()` with a compare-and-swap, and adds to that slot's atomics (no
//!   lock, no allocation, no thread-local storage). Threads beyond the table share one
//!   overflow slot, reported with thread id 0;
//! * **the round trip** the handler cannot see: the trap, the kernel's signal delivery and
//!   `sigreturn`. [`calibrate`] measures it once, when sampling starts: it faults a private
//!   scratch page [`CALIBRATION_FAULTS`] times through the same handler and takes the median
//!   of (time around the faulting access − time inside the handler). It is a measurement on
//!   this machine and kernel, not a constant.
//!
//! A thread's fault cost is its faults × the round trip + its handler time ([`ThreadCost`]).
//! Summed over threads it is CPU time; the wall time a parallel program loses is nearer the
//! critical path, which [`Critical`] estimates per sampling interval.
//!
//! The stats file reports the parts, per thread and in total ([`crate::stats`]); `numaplace
//! report` adds them up.

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering::*};

/// Threads counted apart; more share the overflow slot (thread id 0).
pub const THREAD_SLOTS: usize = 256;

/// One thread's counters: its id (0: free), hinting faults its handler claimed, and the
/// nanoseconds it spent in the handler for them.
struct Slot {
    tid: AtomicU32,
    faults: AtomicU64,
    handler_ns: AtomicU64,
}

#[allow(clippy::declare_interior_mutable_const)] // only the initialiser of SLOTS
const FREE: Slot = Slot { tid: AtomicU32::new(0), faults: AtomicU64::new(0), handler_ns: AtomicU64::new(0) };

/// [`THREAD_SLOTS`] slots, then the overflow slot.
static SLOTS: [Slot; THREAD_SLOTS + 1] = [FREE; THREAD_SLOTS + 1];

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

/// The calling thread's id (`gettid(2)`: a system call, async-signal-safe).
pub(crate) fn gettid() -> u32 {
    // SAFETY: gettid takes no argument and cannot fail.
    unsafe { libc::syscall(libc::SYS_gettid) as u32 }
}

/// The slot of thread `tid`: the one holding `tid` on its probe sequence, else the first free
/// one, claimed with a compare-and-swap; the overflow slot when the table is full. A slot is
/// never freed, so a thread finds its slot before any free one. Async-signal-safe.
fn slot_of(tid: u32) -> usize {
    let start = (tid as usize).wrapping_mul(0x9E37_79B1) % THREAD_SLOTS;
    for i in 0..THREAD_SLOTS {
        let k = (start + i) % THREAD_SLOTS;
        let held = SLOTS[k].tid.load(Acquire);
        if held == tid {
            return k;
        }
        if held == 0 {
            match SLOTS[k].tid.compare_exchange(0, tid, AcqRel, Acquire) {
                Ok(_) => return k,
                Err(now) if now == tid => return k,
                Err(_) => {} // another thread took it: probe on
            }
        }
    }
    THREAD_SLOTS
}

/// Counts one claimed fault that entered the handler at `entered` (from [`now_ns`]) in the
/// calling thread's slot. Async-signal-safe: one system call (`gettid`), atomics.
pub fn fault_handled(entered: u64) {
    let k = slot_of(gettid());
    SLOTS[k].handler_ns.fetch_add(now_ns().saturating_sub(entered), Relaxed);
    SLOTS[k].faults.fetch_add(1, Relaxed);
}

/// One thread's hinting faults and its time in the handler for them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ThreadCost {
    /// `gettid()`; 0 for the threads beyond [`THREAD_SLOTS`], pooled.
    pub tid: u32,
    pub faults: u64,
    pub handler_ns: u64,
}

impl ThreadCost {
    /// Its fault cost in ns with a round trip of `trip` ns: faults × trip + handler time.
    pub fn cost_ns(&self, trip: u64) -> u64 {
        self.faults.saturating_mul(trip).saturating_add(self.handler_ns)
    }
}

/// Every thread that took a hinting fault, in slot order (the overflow slot last), with its
/// slot index.
pub fn threads() -> Vec<(usize, ThreadCost)> {
    (0..=THREAD_SLOTS)
        .filter_map(|k| {
            let s = &SLOTS[k];
            let faults = s.faults.load(Relaxed);
            let tid = s.tid.load(Acquire);
            (faults > 0).then(|| (k, ThreadCost { tid: if k == THREAD_SLOTS { 0 } else { tid }, faults, handler_ns: s.handler_ns.load(Relaxed) }))
        })
        .collect()
}

/// All threads' faults and handler time, summed.
pub fn totals() -> (u64, u64) {
    threads().iter().fold((0, 0), |(f, h), (_, t)| (f + t.faults, h + t.handler_ns))
}

/// The largest growth of a thread's fault cost (`trip` ns a round trip) from `last` (each
/// slot's cost at the last close; missing: 0) to `threads` (slot, counts), and each slot's
/// cost now.
fn growth(last: &[u64], threads: &[(usize, ThreadCost)], trip: u64) -> (u64, Vec<u64>) {
    let mut now = vec![0; THREAD_SLOTS + 1];
    let mut max = 0;
    for &(k, t) in threads {
        now[k] = t.cost_ns(trip);
        max = max.max(now[k].saturating_sub(last.get(k).copied().unwrap_or(0)));
    }
    (max, now)
}

/// The faults' cost on the program's critical path, estimated per interval: the sampler
/// closes an interval at each of its ticks and whenever every page is revoked again
/// ([`Critical::close`]); an interval's cost is the largest of the threads' fault costs in it
/// (the threads fault in parallel; the one that lost most holds the others up at their next
/// join), and the intervals' costs add up. One thread: its whole cost. T threads faulting at
/// once, each as much: 1/T of the sum. Not async-signal-safe (allocates): the runtime's own
/// threads call it, under the runtime lock.
#[derive(Clone, Debug, Default)]
pub struct Critical {
    /// Each slot's fault cost (ns) when the last interval closed.
    last: Vec<u64>,
    /// The closed intervals' costs, summed, ns.
    sum_ns: u64,
}

impl Critical {
    /// The largest growth of a thread's cost since the last close, and each slot's cost now.
    fn open_interval(&self) -> (u64, Vec<u64>) {
        match round_trip_ns() {
            Some(trip) => growth(&self.last, &threads(), trip),
            None => (0, self.last.clone()),
        }
    }

    /// Ends the current interval: adds its cost.
    pub fn close(&mut self) {
        let (max, now) = self.open_interval();
        self.sum_ns += max;
        self.last = now;
    }

    /// The critical-path estimate so far, ns: the closed intervals and the open one.
    pub fn total_ns(&self) -> u64 {
        self.sum_ns + self.open_interval().0
    }
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

/// The calibration's scratch page while it runs, else 0.
#[cfg(test)]
pub(crate) fn scratch_page() -> usize {
    SCRATCH.load(Acquire)
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

    #[test]
    fn an_interval_costs_its_slowest_thread_and_intervals_add_up() {
        let t = |faults, handler_ns| ThreadCost { tid: 7, faults, handler_ns };
        // Interval 1: two threads, 10 faults x 100 ns + 500 ns, and 20 x 100 + 1000: the second.
        let (max, now) = growth(&[], &[(0, t(10, 500)), (3, t(20, 1000))], 100);
        assert_eq!((max, now[0], now[3]), (3000, 1500, 3000));
        // Interval 2: only the first thread faults, 5 more: its growth alone.
        let (max, now) = growth(&now, &[(0, t(15, 700)), (3, t(20, 1000))], 100);
        assert_eq!((max, now[0], now[3]), (700, 2200, 3000));
        // No fault: nothing added.
        assert_eq!(growth(&now, &[(0, t(15, 700)), (3, t(20, 1000))], 100).0, 0);
    }

    #[test]
    fn each_thread_counts_its_faults_in_its_own_slot() {
        let _space = crate::space::testing::hold_space();
        let before: Vec<_> = threads();
        // Alive at once, so that no two have the same id.
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(4));
        let handles: Vec<_> = (0..4u64)
            .map(|i| {
                let barrier = barrier.clone();
                std::thread::spawn(move || {
                    for _ in 0..=i {
                        fault_handled(now_ns());
                    }
                    barrier.wait();
                    gettid()
                })
            })
            .collect();
        let tids: Vec<u32> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        let after = threads();
        for (i, tid) in tids.iter().enumerate() {
            let was = before.iter().find(|(_, t)| t.tid == *tid).map_or(0, |(_, t)| t.faults);
            let (k, t) = after.iter().find(|(_, t)| t.tid == *tid).expect("a slot per thread");
            assert_eq!(t.faults - was, i as u64 + 1, "thread {tid} in slot {k}");
        }
        let mut slots: Vec<usize> = after.iter().filter(|(_, t)| tids.contains(&t.tid)).map(|(k, _)| *k).collect();
        slots.sort_unstable();
        slots.dedup();
        assert_eq!(slots.len(), 4, "four slots for four threads");
    }
}
