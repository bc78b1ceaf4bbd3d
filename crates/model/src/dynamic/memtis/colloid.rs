//! `colloid-memtis`: Colloid (Vuppalapati and Agarwal, SOSP'24) layered on Memtis, as its
//! MEMTIS integration does it: repo webglider/memtis, branch `colloid-icelake` at 1c7e20e
//! (`colloid-mon/colloid-mon.c`; `linux/mm/htmm_migrater.c`: `kmigraterd_promotion`,
//! `promote_node`, `demote_node_active_colloid`, `migrate_lruvec_colloid`;
//! `linux/mm/mempolicy.c`: `htmm_colloid`, `htmm_migration_limit_nr_pages`). Memtis's
//! sampling, histograms, cooling, splitting and its fast node's demotion thread are
//! unchanged; Colloid changes the slow node's thread:
//!
//! * **The monitor** (`colloid-mon.c` without `SPINPOLL`: delayed work every
//!   `SAMPLE_INTERVAL_MS` = 10 ms, EWMA weight 1/16, `EWMA_EXP` 4): each tier's occupancy and
//!   inserts, here [`Monitor`]'s Little's-law readings (the arrivals scaled to the 10 ms
//!   interval). The fast tier is the slower when occ(fast)·ins(slow) > occ(slow)·ins(fast).
//!   Δp, the share of accesses to shift: 0 when the gap is within `COLLOID_DELTA_PERCENT`
//!   (5 %) of occ(fast)·ins(slow); otherwise a bisection over the fast tier's share of
//!   arrivals p = ins(fast) ÷ (ins(fast) + ins(slow)) kept across readings — the current share
//!   becomes the lower bound while the fast tier is the faster (the upper while it is the
//!   slower), the other bound is reset to 1 (0) when it is crossed or when the bracket is
//!   narrower than `COLLOID_EPSILON_PERCENT` (1 %) — and Δp = |midpoint − p|. The page budget
//!   `colloid_dynlimit` is Δp times the arrivals of both tiers in a 10 ms interval, over the
//!   lines of a page, times the 500 ms ÷ 10 ms intervals of a pass (the code's × 18 CHA boxes
//!   is left out: [`Monitor`]'s arrivals are every line, not one box's).
//! * **The slow node's pass** (`kmigraterd_promotion`, every 500 ms): while the fast tier is
//!   the faster (or Colloid's flag is down), `promote_node` as Memtis gates it
//!   (`promotion_available`: room below the promotion watermark; an active slow list), its
//!   count capped at `htmm_migration_limit_nr_pages` and the budget; while the fast tier is
//!   the slower, `demote_node_active_colloid` from the fast node's active list, capped alike
//!   (no room is checked on the slow node). Both take pages by `migrate_lruvec_colloid`: from
//!   the list's end (here the tier's hand, as Memtis's own passes), as many as the cap, each
//!   moved while its probability — its access count (a huge page's `total_accesses`, a base
//!   page's over `HPAGE_PMD_NR`) over `nr_max_sampled` — is above 0 and within what is left of
//!   Δp; only active pages move. Memtis's own priority loop is not run.
//!
//! Modelling choices: the C code's integer arithmetic (u64 counts, shifts) is done in floating
//! point; the monitor runs on the policy's timer at its 10 ms, and kmigraterd on every pass
//! period of it (both threads then, as `memtis`); the counts are the stored ones, not cooled
//! first (the C code reads the fields as they are).

use super::{Entity, Memtis, OWN_STATS as MEMTIS_STATS};
use crate::dynamic::colloid::{Monitor, Readings, Smoothed, FAST_LATENCY, FAST_SLOWER_READINGS, READINGS, SLOW_LATENCY};
use crate::dynamic::tiering;
use crate::dynamic::{Action, DynamicCaps, DynamicInfo, Observes, Trigger, View, SIM_ONLY};
use crate::report::{Report, StatDecl};
use crate::spec::{ParamDecl, ParamKind, Resolved};
use crate::topology::Machine;
use crate::units::{NodeId, Ps};

const MONITOR: ParamDecl = ParamDecl {
    name: "monitor_ms",
    kind: ParamKind::Float { min: 0.000001, max: 1e7 },
    default: "10",
    doc: "the monitor's period, ms: each reading folds in with weight 1/16 (colloid-mon.c SAMPLE_INTERVAL_MS 10, EWMA_EXP 4)",
};
const LIMIT: ParamDecl = ParamDecl {
    name: "migration_limit_mb",
    kind: ParamKind::Float { min: 0.0, max: 1e12 },
    default: "5120",
    doc: "pages a pass moves at most, MB (mempolicy.c htmm_migration_limit_nr_pages 1310720 pages of 4 KiB)",
};

const PARAMS: &[ParamDecl] = memtis_params!(MONITOR, LIMIT);

const OWN_STATS: &[StatDecl] = &[
    READINGS,
    FAST_SLOWER_READINGS,
    StatDecl { name: "colloid_demotion_passes", unit: "passes", doc: "slow-node passes that demoted hot fast pages (the fast tier the slower) instead of promoting" },
    FAST_LATENCY,
    SLOW_LATENCY,
];

pub(in crate::dynamic) const INFO: DynamicInfo = DynamicInfo {
    name: "colloid-memtis",
    doc: "Colloid (SOSP'24) on Memtis (its MEMTIS integration): kmigraterd's slow-node pass promotes, or demotes hot fast pages while the fast tier's loaded latency is the higher, each pass within the share of accesses to shift",
    params: PARAMS,
    caps: DynamicCaps {
        observes: Observes::AddressSamples,
        drivers: SIM_ONLY,
        why_not: "it reads each tier's request occupancy and arrivals from the uncore's CHA counters, which the runtime does not read yet, and Memtis's ksampled is modelled on simulated time",
        needs_program_calls: false,
        triggers: &[Trigger::Timer],
        stats: &[tiering::TIER_STATS, MEMTIS_STATS, OWN_STATS],
    },
    build: |r, m, _| {
        tiering::require_tiers("colloid-memtis", m)?;
        Ok(Box::new(Memtis::with_colloid(r, m)?))
    },
};

/// The weight of each reading (`EWMA_EXP` 4: 1/16).
const WEIGHT: f64 = 1.0 / 16.0;
/// `COLLOID_DELTA_PERCENT` and `COLLOID_EPSILON_PERCENT`, as shares.
const DELTA: f64 = 0.05;
const EPSILON: f64 = 0.01;

/// Colloid's part of Memtis: the monitor, Δp, the budget and what it did.
pub(super) struct Gate {
    monitor: Monitor,
    pub period: Ps,
    /// When the next kmigraterd pass is due.
    next_pass: Option<Ps>,
    pass: Ps,
    /// Smoothed occupancy (requests in flight) and inserts per monitor period, `[fast, slow]`.
    smoothed: Smoothed,
    p_lo: f64,
    p_hi: f64,
    pub fast_slower: bool,
    pub delta_p: f64,
    /// `colloid_dynlimit`, pages.
    pub dynlimit: u64,
    /// `htmm_migration_limit_nr_pages`.
    pub limit: u64,
    lines_per_page: f64,
    readings: Readings,
    pub demotion_passes: u64,
}

impl Gate {
    fn new(r: &Resolved, m: &Machine, pass: Ps) -> Self {
        Gate {
            monitor: Monitor::new(),
            period: ((r.float("monitor_ms") * 1e9) as Ps).max(1),
            next_pass: None,
            pass,
            smoothed: Smoothed::default(),
            p_lo: 0.0,
            p_hi: 0.0,
            fast_slower: false,
            delta_p: 0.0,
            dynlimit: 0,
            limit: (r.float("migration_limit_mb") * 1048576.0 / m.raw.page_size as f64).round() as u64,
            lines_per_page: m.lines_per_page() as f64,
            readings: Readings::default(),
            demotion_passes: 0,
        }
    }

    /// One reading of the monitor: the flag, Δp and the budget (`thread_fun_poll_cha`).
    fn read(&mut self, view: &View<'_>) {
        let Some(tiers) = tiering::fast_and_slow(view.machine) else { return };
        let Some(r) = self.monitor.read(view, tiers) else { return };
        let per_period = self.period as f64 / 1000.0 / r.elapsed_ns;
        self.smoothed.fold(WEIGHT, r.occ, r.inserts.map(|i| i * per_period));
        let (occ, ins) = (self.smoothed.occ, self.smoothed.inserts);
        // Cross-multiplied as the code compares them (a tier without arrivals divides nothing).
        let (fast, slow) = (occ[0] * ins[1], occ[1] * ins[0]);
        self.fast_slower = fast > slow;
        self.readings.note(self.fast_slower);
        let all = ins[0] + ins[1];
        if (fast - slow).abs() <= DELTA * fast || all <= 0.0 {
            self.delta_p = 0.0;
        } else {
            let p = ins[0] / all;
            if self.fast_slower {
                self.p_hi = p;
                if self.p_lo >= self.p_hi {
                    self.p_lo = 0.0;
                }
            } else {
                self.p_lo = p;
                if self.p_hi <= self.p_lo {
                    self.p_hi = 1.0;
                }
            }
            if self.p_hi - self.p_lo < EPSILON {
                if self.fast_slower {
                    self.p_lo = 0.0;
                } else {
                    self.p_hi = 1.0;
                }
            }
            self.delta_p = ((self.p_lo + self.p_hi) / 2.0 - p).abs();
        }
        let intervals = self.pass as f64 / self.period as f64;
        self.dynlimit = (self.delta_p * all / self.lines_per_page * intervals) as u64;
    }

    pub(super) fn report(&self, out: &mut Report) {
        self.readings.report(out);
        out.count("colloid_demotion_passes", self.demotion_passes);
        self.monitor.report(out);
    }
}

impl Memtis {
    /// Memtis with Colloid's integration ([`INFO`]).
    fn with_colloid(r: &Resolved, m: &Machine) -> Result<Self, crate::error::ModelError> {
        let mut memtis = Memtis::new(r, m, INFO.name)?;
        memtis.colloid = Some(Gate::new(r, m, memtis.interval));
        Ok(memtis)
    }

    /// Colloid's monitor reading at a timer tick; whether kmigraterd's pass is due.
    pub(super) fn colloid_tick(&mut self, view: &View<'_>) -> bool {
        let Some(g) = self.colloid.as_mut() else { return true };
        g.read(view);
        let due = *g.next_pass.get_or_insert(view.started.saturating_add(g.pass));
        if view.now < due {
            return false;
        }
        g.next_pass = Some(view.now.saturating_add(g.pass));
        true
    }

    /// The slow node's pass with Colloid (`kmigraterd_promotion`): promotes, or demotes the
    /// fast node's hot pages while the fast tier is the slower. Returns the pages promoted.
    pub(super) fn colloid_pass(&mut self, homes: &[u8], (fast, slow): (NodeId, NodeId), cap: u64, used: u64, slow_active: u64, out: &mut Vec<Action>) -> u64 {
        let g = self.colloid.as_ref().expect("a Colloid pass has a gate");
        let (limit, delta_p, slower) = (g.limit.min(g.dynlimit), g.delta_p, g.fast_slower);
        if slower {
            self.colloid.as_mut().expect("checked").demotion_passes += 1;
            let (fast_active, _) = self.lru_sizes(homes, fast, 0);
            self.migrate_colloid(homes, 0, fast, slow, fast_active.min(limit), delta_p, out);
            return 0;
        }
        // promotion_available, need_lowertier_promotion.
        let (_, max_w) = self.watermarks(cap);
        if slow_active == 0 || used + max_w >= cap {
            return 0;
        }
        let n = (cap - max_w - used).min(slow_active).min(limit);
        self.migrate_colloid(homes, 1, fast, fast, n, delta_p, out)
    }

    /// `migrate_lruvec_colloid`: from tier `t`'s hand, `n` pages' worth of active entities
    /// looked at, each moved to `to` while its probability is above 0 and within what is left
    /// of `delta_p`, until `n` pages moved. Returns the pages moved.
    #[allow(clippy::too_many_arguments)]
    fn migrate_colloid(&mut self, homes: &[u8], t: usize, fast: NodeId, to: NodeId, n: u64, delta_p: f64, out: &mut Vec<Action>) -> u64 {
        let overall = self.cg.nr_max_sampled as f64;
        if n == 0 || overall <= 0.0 {
            return 0;
        }
        let (up, reason) = if t == 1 { (true, "Colloid on Memtis: a hot page promoted within the share to shift") } else { (false, "Colloid on Memtis: a hot fast page demoted, the fast tier the slower") };
        let (mut scanned, mut moved, mut mass) = (0u64, 0u64, delta_p);
        let pmd_nr = self.pmd_nr as f64;
        self.hands[t] = self.visit(homes, fast, t, self.hands[t], &mut |m, e| {
            if scanned >= n || moved >= n || mass <= 0.0 {
                return false;
            }
            let (size, active) = m.size_active(e);
            if !active {
                return true;
            }
            scanned += size;
            let freq = match e {
                Entity::Huge(u) => m.units[u as usize].total as f64,
                Entity::Base(p) => (m.pages[p as usize].total as f64 / pmd_nr).floor(),
            };
            let p = freq / overall;
            if p > 0.0 && p <= mass {
                mass -= p;
                moved += m.move_entity(e, to, up, homes, reason, out);
            }
            true
        });
        moved
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamic::fixture::Fixture;

    fn gate(f: &Fixture) -> Gate {
        let r = crate::Spec::parse("colloid-memtis:page=4k").unwrap().resolve("dynamic policy", PARAMS).unwrap();
        Gate::new(&r, &f.machine, 500_000_000_000)
    }

    /// A reading 10 ms on, the fast tier serving `fast` lines at `queue` ps of queueing, the
    /// slow one 100 lines unloaded.
    fn read(g: &mut Gate, f: &mut Fixture, fast: u64, queue: f64) {
        f.now += 10_000_000_000;
        f.served = vec![f.served.first().copied().unwrap_or(0) + fast, f.served.get(1).copied().unwrap_or(0) + 100];
        let q = [queue, 0.0];
        g.read(&View { queue: &q, ..f.view() });
    }

    #[test]
    fn the_share_to_shift_bisects_toward_balanced_latencies() {
        let mut f = Fixture::tiered(vec![0, 1], vec![100, 100]);
        let mut g = gate(&f);
        // Fast tier loaded (100 ns + 2 µs against 200 ns): the slower; p = 0.9 becomes the
        // upper bound, the lower is 0, so Δp = |0.45 − 0.9|.
        read(&mut g, &mut f, 900, 2_000_000.0);
        assert!(g.fast_slower);
        assert!((g.p_hi - 0.9).abs() < 1e-9 && g.p_lo == 0.0 && (g.delta_p - 0.45).abs() < 1e-9, "{} {} {}", g.p_lo, g.p_hi, g.delta_p);
        // The budget: Δp × the smoothed arrivals of 10 ms (1,000 × 1/16) ÷ 64 lines × 50.
        assert_eq!(g.dynlimit, (0.45 * 1000.0 / 16.0 / 64.0 * 50.0) as u64);
        // Idle again (100 ns against 200), at the same shares: once the smoothed latencies
        // cross, p is the lower bound and the upper (0.9, not above it) is reset to 1:
        // Δp = |0.95 − 0.9|.
        for _ in 0..60 {
            read(&mut g, &mut f, 900, 0.0);
        }
        assert!(!g.fast_slower);
        assert!((g.p_lo - 0.9).abs() < 1e-9 && g.p_hi == 1.0 && (g.delta_p - 0.05).abs() < 1e-9, "{} {} {}", g.p_lo, g.p_hi, g.delta_p);
    }

    #[test]
    fn latencies_within_five_percent_shift_nothing() {
        let mut f = Fixture::tiered(vec![0, 1], vec![100, 100]);
        let mut g = gate(&f);
        // The fast tier 100 ns + 100 ns of queueing = the slow tier's 200 ns.
        read(&mut g, &mut f, 900, 100_000.0);
        assert_eq!((g.delta_p, g.dynlimit), (0.0, 0));
    }

    #[test]
    fn the_policy_runs_the_monitor_every_10_ms_and_kmigraterd_every_pass() {
        let f = Fixture::tiered(vec![0, 1], vec![100, 100]);
        let p = f.policy("colloid-memtis:page=4k");
        assert_eq!(p.timer_period(), Some(10_000_000_000));
        let q = f.policy("memtis:page=4k");
        assert_eq!(q.timer_period(), Some(500_000_000_000));
    }
}
