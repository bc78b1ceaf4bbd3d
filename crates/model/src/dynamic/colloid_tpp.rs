//! `colloid-tpp`: Colloid (Vuppalapati and Agarwal, SOSP'24) layered on Linux's NUMA
//! balancing in tiering mode, as its TPP integration does it: repo host-architecture/colloid
//! at commit d02a6b1, `tpp/linux-6.3` (Linux 6.3, whose tiering mode is the one the
//! `numab-tiering` policy models, run with `kernel.numa_balancing=6`: tiering plus
//! `NUMA_BALANCING_COLLOID`, `scripts/linux-colloid.sh`) and `tpp/colloid-mon/colloid-mon.c`.
//! The host's scanner, hot threshold, rate limit and kswapd demotion are `numab-tiering`'s,
//! unchanged; Colloid adds:
//!
//! * **The monitor** (`colloid-mon.c`): a core polls each tier's CHA counters (TOR occupancy
//!   and inserts of demand reads) and smooths both by an EWMA of weight 1/32 per poll
//!   (`EWMA_EXP` 5 with `SPINPOLL`); the fast tier is "slower" when its occupancy over its
//!   inserts, its loaded latency by Little's law, is the higher, a single flag the kernel
//!   reads (`colloid_local_lat_gt_remote`). Here the counters are the monitor of the HeMem
//!   build ([`super::colloid::Monitor`]: the lines each node served, and their rate times the
//!   node's loaded latency), read whenever the policy runs (a scan, a hint fault) and at most
//!   once per poll; the polls a reading stands for are its elapsed time over `poll_us`, each
//!   weighing 1/32. The spin loop's period is not in the code: `poll_us` is our estimate of
//!   four MSR reads and the arithmetic. Arrivals are per microsecond, so readings of
//!   different lengths weigh alike. With no arrivals smoothed at a tier the flag is down.
//! * **A promotion veto** (`should_numa_migrate_memory`, kernel/sched/fair.c): a hint fault on
//!   a slow page is not promoted to the node of interest while the flag is up, both where the
//!   fast node has free space enough and after the hint-fault latency test (before the rate
//!   limit counts the candidate). The base mode (`hot_selection=off`) predates the veto.
//! * **Hot pages sent away** (`numa_migrate_memory_away_target`, called from `do_numa_page`):
//!   the scanner no longer skips the top tier (mm/mprotect.c), so a fast page faults too; a
//!   fault on a fast page from its own node's CPU, while the flag is up, demotes the page to
//!   the node's demotion target if it is hot — with `NUMA_BALANCING_NORMAL` off, a hint-fault
//!   latency below the hot threshold in force. One page a fault, no rate limit: the paper's
//!   amount "proportional to the gap" is this flag's duty cycle here.
//!
//! The code exports no statistics of its own (promotions and demotions count in vmstat); the
//! simulator reports the readings, the vetoes and the hot pages sent away beside the host's.
//!
//! This module is Colloid's part, the [`Gate`] the host carries; the policy's registry entry is
//! the host's ([`super::numab::COLLOID_TPP`]), which builds the host with it.

use super::colloid::{latency_evidence, Monitor, Readings, Smoothed, FAST_LATENCY, FAST_SLOWER_READINGS, READINGS, SLOW_LATENCY};
use super::tiering;
use super::{Action, Evidence, View};
use crate::pagetable::UNTOUCHED;
use crate::report::{Report, StatDecl};
use crate::spec::{ParamDecl, ParamKind, Resolved};
use crate::units::{NodeId, PageNo, Ps};

pub(super) const POLL: ParamDecl = ParamDecl {
    name: "poll_us",
    kind: ParamKind::Float { min: 0.000001, max: 1e9 },
    default: "10",
    doc: "the monitor's poll period, µs: each poll folds the counters in with weight 1/32 (colloid-mon.c spins with SPINPOLL, EWMA_EXP 5; the period is our estimate, the code has none)",
};

pub(super) const OWN_STATS: &[StatDecl] = &[
    READINGS,
    FAST_SLOWER_READINGS,
    StatDecl { name: "promotions_vetoed", unit: "pages", doc: "slow pages the host would have promoted, held back because the fast tier was the slower" },
    StatDecl { name: "hot_demotions", unit: "pages", doc: "hot fast pages sent to the slow tier from their hint fault while the fast tier was the slower" },
    FAST_LATENCY,
    SLOW_LATENCY,
];

const AWAY: &str = "Colloid on TPP: hot fast page's hint fault while the fast tier is the slower: demoted";

/// Colloid's part of the host: the monitor, its flag and what it did.
pub(super) struct Gate {
    monitor: Monitor,
    /// Smoothed occupancy (requests in flight) and arrivals per µs, `[fast, slow]`.
    smoothed: Smoothed,
    poll: Ps,
    last: Option<Ps>,
    fast_slower: bool,
    readings: Readings,
    vetoed: u64,
    away: u64,
}

/// The weight of each poll (`EWMA_EXP` 5: 1/32).
const POLL_WEIGHT: f64 = 1.0 / 32.0;

impl Gate {
    pub(super) fn new(r: &Resolved) -> Self {
        Gate {
            monitor: Monitor::new(),
            smoothed: Smoothed::default(),
            poll: ((r.float("poll_us") * 1e6) as Ps).max(1),
            last: None,
            fast_slower: false,
            readings: Readings::default(),
            vetoed: 0,
            away: 0,
        }
    }

    /// Reads the counters if a poll period has passed since the last reading, and sets the flag.
    pub(super) fn observe(&mut self, view: &View<'_>) {
        if self.last.is_some_and(|t| view.now < t.saturating_add(self.poll)) {
            return;
        }
        let Some(tiers) = tiering::fast_and_slow(view.machine) else { return };
        let Some(r) = self.monitor.read(view, tiers) else { return };
        self.last = Some(view.now);
        let polls = r.elapsed_ns * 1000.0 / self.poll as f64;
        let a = 1.0 - (1.0 - POLL_WEIGHT).powf(polls.max(1.0));
        let per_us = r.elapsed_ns / 1000.0;
        self.smoothed.fold(a, r.occ, [r.inserts[0] / per_us, r.inserts[1] / per_us]);
        self.fast_slower = self.smoothed.inserts.iter().all(|&i| i > 0.0) && self.smoothed.fast_slower();
        self.readings.note(self.fast_slower);
    }

    /// Whether a promotion to the fast node is vetoed: the flag is up (`colloid_nid_of_interest`
    /// is the fast node, the only promotion target of a two-tier machine).
    pub(super) fn vetoes(&mut self) -> bool {
        if self.fast_slower {
            self.vetoed += 1;
        }
        self.fast_slower
    }

    /// A hint fault on `page` from a CPU of `node`, which is not a slow page promoted: sends
    /// a `hot` page of the faulting CPU's own fast node to its demotion target while the flag is up.
    pub(super) fn away(&mut self, view: &View<'_>, page: PageNo, node: NodeId, hot: bool) -> Option<Action> {
        let home = *view.homes.get(page.0 as usize)?;
        if home == UNTOUCHED || home != node.0 || !view.machine.is_toptier(node) || !self.fast_slower || !hot {
            return None;
        }
        let to = view.machine.demotion[node.index()]?;
        self.away += 1;
        Some(Action::Migrate { page, to, reason: AWAY })
    }

    pub(super) fn evidence(&self, action: &Action) -> Option<Evidence> {
        matches!(action, Action::Migrate { reason, .. } if *reason == AWAY).then(|| latency_evidence(&self.monitor))
    }

    pub(super) fn report(&self, out: &mut Report) {
        self.readings.report(out);
        out.count("promotions_vetoed", self.vetoed);
        out.count("hot_demotions", self.away);
        self.monitor.report(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamic::fixture::Fixture;
    use crate::dynamic::{Applied, DynamicPolicy, Timer};

    /// Fast node 0 and slow node 1, pages 0-3 fast and 4-7 slow; the fast node has room for a
    /// promotion but not "enough" free space (256 pages hold less than 1 GiB), so promotion
    /// goes through the hot test.
    fn tiered() -> Fixture {
        let mut f = Fixture::tiered(vec![0, 0, 0, 0, 1, 1, 1, 1], vec![250, 500]);
        f.now = 1_000_000_000;
        f
    }

    /// The policy after one scan of every page at `f.now`, then 1 ms (100 polls) later, with
    /// the fast tier served `fast` lines at `queue` ps of queueing and the slow tier 100 lines.
    fn scanned(f: &mut Fixture, spec: &str, fast: u64, queue: f64) -> (Box<dyn DynamicPolicy>, Vec<f64>) {
        let mut p = f.policy(spec);
        let q = vec![queue, 0.0];
        f.served = vec![0, 0];
        let t: Timer = p.on_timer(&View { queue: &q, ..f.view() });
        assert!(!t.revoke_skip_toptier, "the top tier is scanned too");
        f.now += 1_000_000_000;
        f.served = vec![fast, 100];
        (p, q)
    }

    #[test]
    fn a_loaded_fast_tier_sends_its_hot_pages_away_and_vetoes_promotion() {
        let mut f = tiered();
        let (mut p, q) = scanned(&mut f, "colloid-tpp:scan_size_mb=1", 1000, 2_000_000.0);
        // Fast: 100 ns + 2 µs of queueing; slow: 200 ns unloaded. A fault on fast page 1 from
        // node 0 within the hot threshold sends it to node 1.
        let a = p.on_fault(&View { queue: &q, ..f.view() }, PageNo(1), NodeId(0)).expect("sent away");
        assert_eq!(a, Action::Migrate { page: PageNo(1), to: NodeId(1), reason: AWAY });
        let e = p.evidence(&a).unwrap();
        assert!((e.value - 2100.0).abs() < 1e-6 && (e.limit - 200.0).abs() < 1e-6, "{e:?}");
        // A hot slow page is not promoted while the flag is up.
        assert_eq!(p.on_fault(&View { queue: &q, ..f.view() }, PageNo(5), NodeId(0)), None);
        let mut r = Report::default();
        p.report(&Applied::default(), &mut r);
        assert_eq!((r.count_of("hot_demotions"), r.count_of("promotions_vetoed"), r.count_of("fast_slower_readings")), (1, 1, 1));
        assert_eq!(r.count_of("readings"), 2, "the scan's and the first fault's: the second fault came within the poll period");
    }

    #[test]
    fn an_idle_fast_tier_promotes_as_the_host_does_and_keeps_its_pages() {
        let mut f = tiered();
        let (mut p, q) = scanned(&mut f, "colloid-tpp:scan_size_mb=1", 1000, 0.0);
        assert_eq!(p.on_fault(&View { queue: &q, ..f.view() }, PageNo(1), NodeId(0)), None, "a fast page stays");
        let a = p.on_fault(&View { queue: &q, ..f.view() }, PageNo(5), NodeId(0));
        assert!(matches!(a, Some(Action::Migrate { page: PageNo(5), to: NodeId(0), .. })), "{a:?}");
        // The same faults under numab-tiering: no fast page ever faults there, the slow one
        // is promoted alike.
        let mut g = tiered();
        let mut host = g.policy("numab-tiering:scan_size_mb=1");
        assert!(host.on_timer(&g.view()).revoke_skip_toptier);
        g.now += 1_000_000_000;
        assert_eq!(host.on_fault(&g.view(), PageNo(5), NodeId(0)), a);
    }

    #[test]
    fn without_arrivals_at_a_tier_the_flag_stays_down() {
        let mut f = tiered();
        let (mut p, q) = scanned(&mut f, "colloid-tpp:scan_size_mb=1", 1000, 5_000_000.0);
        f.served = vec![1000, 0];
        assert_eq!(p.on_fault(&View { queue: &q, ..f.view() }, PageNo(1), NodeId(0)), None);
    }
}
