//! The sampler part of the [`crate::runtime::Runtime`], [`Sampling`]: where samples come from
//! (hinting faults or precise samples), the sampling pace (the timer tick and its back-off)
//! and what sampling costs the runtime itself (its revocations, timed; the faults' critical
//! path, [`crate::cost::Critical`]). Which pages it revokes is the regions' business
//! ([`crate::regions`]); the fault handler is [`crate::sampler`].

use crate::cost::Critical;
use std::cell::Cell;
use std::time::{Duration, Instant};

/// What the library says, and writes as the stats file's `source_reason`, on a one-node host.
pub const ONE_NODE: &str = "this host has one NUMA node: every access is local, nothing to place or move; \
sampling off (NUMAPLACE_FORCE=1 / numaplace run --force samples anyway)";

/// Whether [`Sampling::say_off`] has spoken in this process (or the one it was forked from: a
/// forked child says nothing again).
static SAID_OFF: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The sample source, the pace and the runtime's own cost of sampling.
#[derive(Default)]
pub struct Sampling {
    /// Whether hinting-fault sampling is on (fault handler installed, windows revoked).
    pub on: bool,
    /// The source used: `hinting-faults`, `perf_event` or `none`.
    pub source: &'static str,
    pub source_reason: String,
    /// Precise memory sampling, when that is the source (no page is revoked then).
    pub perf: Option<crate::perf::Perf>,
    /// Why nothing is sampled although the policy would sample (a one-node host), said once
    /// on stderr when the first region is registered ([`Sampling::say_off`]).
    pub off_reason: Option<String>,
    /// The next window's first page, counting the regions end to end.
    pub(crate) cursor: usize,
    /// Timer-thread ticks since the last sampling step, and the back-off: a step every
    /// `2^backoff` ticks ([`Sampling::due`]).
    pub(crate) ticks: u32,
    pub(crate) backoff: u32,
    /// Holding decisions in a row at the current back-off.
    pub(crate) holds: u32,
    /// The runtime's own time for sampling: revoking and reopening pages while sampling with
    /// hinting faults ([`Sampling::timed`]), draining precise samples. A cell: the paths that
    /// reopen pages for a look borrow the runtime shared.
    pub time_revoking: Cell<Duration>,
    /// The hinting faults' cost on the critical path, interval by interval.
    pub critical: Critical,
}

impl Sampling {
    /// Nothing sampled yet: source `none`.
    pub fn new() -> Sampling {
        Sampling { source: "none", ..Sampling::default() }
    }

    /// Runs `f`, a change of page protections made for sampling (revoking pages, reopening
    /// them), and adds its time to [`Sampling::time_revoking`] when sampling with hinting
    /// faults is on (otherwise no page is ever revoked, and reopening costs nothing sampling
    /// caused).
    pub(crate) fn timed<T>(&self, f: impl FnOnce() -> T) -> T {
        if !self.on {
            return f();
        }
        let t = Instant::now();
        let out = f();
        self.time_revoking.set(self.time_revoking.get() + t.elapsed());
        out
    }

    /// Says on stderr, once per process (a forked child does not repeat it), why nothing is
    /// sampled, if sampling is off for a reason the user may not expect
    /// ([`Sampling::off_reason`]). Called when a region is registered: a process that manages
    /// no memory (a shell running the program) has nothing to say.
    pub(crate) fn say_off(&self) {
        if let Some(why) = &self.off_reason {
            if !SAID_OFF.swap(true, std::sync::atomic::Ordering::Relaxed) {
                eprintln!("numaplace: {why}");
            }
        }
    }

    /// Moves precise samples into the counts, when they are the source; false when they are
    /// not. `verbose`: say why a forked child samples nothing.
    pub(crate) fn drain_perf(&mut self, verbose: bool) -> bool {
        let Some(p) = self.perf.as_mut() else { return false };
        p.drain();
        if let Some(why) = p.lost.take() {
            // A forked child that cannot open its own events: say so once, and sample nothing.
            self.source_reason = why;
            if verbose {
                eprintln!("numaplace: {}; no samples in this process", self.source_reason);
            }
        }
        true
    }

    /// One timer tick: closes an interval of the critical-path estimate and says whether a
    /// sampling step is due (one every `2^backoff` ticks).
    pub(crate) fn due(&mut self) -> bool {
        self.critical.close();
        self.ticks += 1;
        if self.ticks >= 1 << self.backoff {
            self.ticks = 0;
            return true;
        }
        false
    }

    /// The sampling pace after a timer decision on `samples` samples (`local` of them on the
    /// page's node, from `active_nodes` nodes) that moved `moved` of `pages` managed pages.
    /// Like Linux's NUMA balancing, which lengthens its scan period while most hinting faults
    /// are local (kernel/sched/fair.c, `update_task_scan_period`), sampling backs off while
    /// the placement holds: a decision on samples at least 99 % local that moved at most
    /// 0.1 % of the managed pages "holds"; after `2^backoff` holding decisions in a row the
    /// interval between sampling steps doubles (up to 64 ticks), so the pace slows gently; a
    /// decision that finds accesses elsewhere restores the full rate at once. A decision on
    /// samples from fewer than two nodes changes nothing: one thread touching its data (a
    /// program's start-up) says nothing about where the parallel phases will access it.
    pub(crate) fn pace(&mut self, samples: u64, local: u64, active_nodes: u64, moved: u64, pages: u64) {
        if samples == 0 || active_nodes < 2 {
            return;
        }
        if local * 100 >= samples * 99 && moved * 1000 <= pages {
            self.holds += 1;
            if self.holds >= 1 << self.backoff && self.backoff < 6 {
                self.backoff += 1;
                self.holds = 0;
            }
        } else {
            self.backoff = 0;
            self.holds = 0;
        }
    }
}

/// The runs `(slot, from, to)` of the sampling window of `window` pages starting at page
/// `cursor` of the regions, given as `(slot, pages)` and taken end to end, wrapping round to
/// the first region (a window at least as large as every region covers each page once).
pub(crate) fn window_runs(regions: &[(usize, usize)], cursor: usize, window: usize) -> Vec<(usize, usize, usize)> {
    let total: usize = regions.iter().map(|r| r.1).sum();
    let mut out = Vec::new();
    if total == 0 {
        return out;
    }
    let (mut pos, mut left) = (cursor % total, window.min(total));
    while left > 0 {
        let mut base = 0;
        for &(slot, pages) in regions {
            if pos < base + pages {
                let from = pos - base;
                let to = (from + left).min(pages);
                out.push((slot, from, to));
                left -= to - from;
                pos = (pos + to - from) % total;
                break;
            }
            base += pages;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampling_windows_wrap_round_and_cover_every_page_once() {
        let regions = [(7, 10), (8, 1), (9, 5)];
        // A window larger than everything: each page once, starting at the cursor.
        assert_eq!(window_runs(&regions, 12, 100), vec![(9, 1, 5), (7, 0, 10), (8, 0, 1), (9, 0, 1)]);
        assert_eq!(window_runs(&regions, 0, 100), vec![(7, 0, 10), (8, 0, 1), (9, 0, 5)]);
        // A smaller window crosses region boundaries and wraps.
        assert_eq!(window_runs(&regions, 14, 4), vec![(9, 3, 5), (7, 0, 2)]);
        assert!(window_runs(&[], 3, 10).is_empty());
    }

    #[test]
    fn revocations_are_timed_only_while_sampling_with_hinting_faults() {
        let mut s = Sampling::new();
        s.timed(|| std::thread::sleep(Duration::from_millis(2)));
        assert_eq!(s.time_revoking.get(), Duration::ZERO);
        s.on = true;
        s.timed(|| std::thread::sleep(Duration::from_millis(2)));
        assert!(s.time_revoking.get() >= Duration::from_millis(2));
    }
}
