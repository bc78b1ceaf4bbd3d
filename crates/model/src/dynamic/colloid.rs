//! `colloid`: Colloid (Vuppalapati and Agarwal, "Tiered Memory Management: Access Latency is
//! the Key!", SOSP'24) layered on HeMem, as its HeMem integration does it: repo seo-rii/hemem
//! at commit 3f8207c (a copy of the authors' webglider/hemem), `src/pebs.h` and `src/pebs.c`
//! built with `COLLOID`, `SCAN_AND_SORT`, `COLLOID_EXPR3`, `COLLOID_DYNAMIC_LIMIT`,
//! `COLLOID_COOLING` and `RATE_BETA` defined, as `pebs.h` defines them.
//!
//! * **Loaded latency** (`colloid_update_stats`): per tier, the average occupancy of the
//!   memory requests in flight (CHA TOR occupancy over the time since the last pass) and the
//!   requests that arrived (TOR inserts), each smoothed by an EWMA of weight `COLLOID_EWMA`
//!   (1/16). By Little's law occupancy ÷ arrival rate is the loaded latency. Here the arrivals
//!   are the lines each node served since the last pass ([`View::served`]) and the occupancy is
//!   their rate times the node's loaded latency from the fast node's CPUs: its unloaded latency
//!   plus the memory controller's queueing delay at the pass ([`View::queue`]).
//! * **Access probabilities** (`scan_page_list`, `COLLOID_COOLING`): HeMem's PEBS samples of
//!   load misses to either tier (one every `SAMPLE_PERIOD` = 5,003 per thread), counted per
//!   2 MiB page and per tier; a count past `PEBS_COOLING_THRESHOLD` (18) advances a global
//!   clock, and every count is halved per tick since the page's last sample. A page's
//!   probability is its cooled count over the sum of all pages' counts. Stores are not sampled
//!   in this build; the simulator's written lines are read-for-ownership fetches (the
//!   read-modify-writes of GUPS and the key-value store, whose load PEBS samples), so every
//!   sample counts as a load.
//! * **Decision** (`pebs_policy_thread`, every `PEBS_KSWAPD_INTERVAL` = 10 ms): with
//!   β = inserts(fast) ÷ inserts(slow) (`RATE_BETA`), the fast tier is the slower one when
//!   occ(fast) > β·occ(slow), i.e. when its loaded latency is the higher. The share of accesses
//!   to shift is `COLLOID_EXPR3`'s
//!   Δ = |occ(fast) − β·occ(slow)| ÷ ((ins(fast) + ins(slow)) · (β·occ(slow)/ins(slow) + occ(fast)/ins(fast))).
//!   Both tiers' pages are sorted by probability; pairs are swapped — a page of the slower tier
//!   moves out, a colder page of the other tier moves in — each time the pair whose difference
//!   of probabilities is the largest not above what is left of Δ, until Δ is spent, no pair
//!   fits, or the pass has moved `50 × PAGE_SIZE` bytes or (`COLLOID_DYNAMIC_LIMIT`) Δ times
//!   the bytes both tiers served per pass, whichever is less. A fast page never accessed is
//!   not moved while the fast tier has a free page; a slow page never accessed is not moved in.
//!   HeMem's own hot-page promotion is compiled out of this build: Colloid alone places pages.
//!
//! Modelling choices, written down: the CHA counters read one box per tier and scale by the
//! 18 boxes; [`View::served`] counts every line, so it is not scaled. The queueing delay is the
//! one solved for the quantum the pass ends (the counters average over the pass); migration
//! copies are not counted as arrivals. The C code ends a pass when a tier had no arrivals
//! (its arithmetic then has a NaN); here too. Like HeMem's, the migration thread runs on a
//! core of its own ([`Timer::background`]). A 2 MiB unit's tier is its first placed page's
//! node; its pages that first touch placed elsewhere are moved to that tier at the next pass
//! (`joined_pages`), as the `hemem` policy does. The paper's other hosts are policies of their
//! own, `colloid-tpp` ([`super::colloid_tpp`]) and `colloid-memtis` ([`super::memtis::colloid`]),
//! sharing this module's [`Monitor`]; `host` has the one value.

use super::tiering;
use super::{Action, Applied, DynamicCaps, Evidence, DynamicInfo, DynamicPolicy, Observes, Sampling, Timer, Trigger, View, SIM_ONLY};
use crate::error::ModelError;
use crate::pagetable::UNTOUCHED;
use crate::report::{Report, StatDecl};
use crate::spec::{ParamDecl, ParamKind, Resolved};
use crate::topology::Machine;
use crate::units::{NodeId, PageNo, Ps};

const PARAMS: &[ParamDecl] = &[
    ParamDecl { name: "host", kind: ParamKind::Choice(&["hemem"]), default: "hemem", doc: "the tiering system Colloid is layered on: HeMem (seo-rii/hemem src/pebs.c with COLLOID); the paper's TPP and MEMTIS integrations are the policies colloid-tpp and colloid-memtis" },
    ParamDecl { name: "sample_period", kind: ParamKind::UInt { min: 1, max: 1 << 30 }, default: "5003", doc: "one PEBS sample every this many load misses per thread (src/pebs.h SAMPLE_PERIOD 5003)" },
    ParamDecl { name: "cooling_threshold", kind: ParamKind::UInt { min: 1, max: 1 << 20 }, default: "18", doc: "a page's count above this advances the cooling clock, halving every count (PEBS_COOLING_THRESHOLD 18)" },
    ParamDecl { name: "interval_ms", kind: ParamKind::Float { min: 0.001, max: 1e7 }, default: "10", doc: "period of the migration thread's passes (PEBS_KSWAPD_INTERVAL 10000 us)" },
    ParamDecl { name: "ewma", kind: ParamKind::Float { min: 0.000001, max: 1.0 }, default: "0.0625", doc: "weight of the newest pass in the smoothed occupancies and arrivals (COLLOID_EWMA 0.0625)" },
    ParamDecl { name: "migrate_pages", kind: ParamKind::UInt { min: 1, max: 1 << 30 }, default: "50", doc: "pages (of the managed size) moved per pass at most (migrate_limit = 50 * PAGE_SIZE)" },
    ParamDecl { name: "dynamic_limit", kind: ParamKind::Choice(&["on", "off"]), default: "on", doc: "also limit a pass to the share to shift times the bytes both tiers served in it (COLLOID_DYNAMIC_LIMIT)" },
    tiering::PAGE_UNIT,
];

const OWN_STATS: &[StatDecl] = &[
    tiering::SAMPLES,
    StatDecl { name: "passes", unit: "passes", doc: "migration passes that measured both tiers' arrivals" },
    StatDecl { name: "fast_slower_passes", unit: "passes", doc: "passes at whose end the fast tier's smoothed loaded latency was the higher (Colloid then moves hot pages out of it)" },
    StatDecl { name: "swaps", unit: "pairs", doc: "pairs of pages swapped between the tiers (a side that does not move, a never-accessed page beside free room, counts with the one that does)" },
    StatDecl { name: "joined_pages", unit: "pages", doc: "base pages first touched on another node than their 2 MiB unit's tier, moved to it (HeMem maps a huge page whole)" },
    FAST_LATENCY,
    SLOW_LATENCY,
];

pub(super) const INFO: DynamicInfo = DynamicInfo {
    name: "colloid",
    doc: "Colloid (SOSP'24) on HeMem: balances the tiers' loaded latencies (Little's law over request occupancy and arrivals), swapping pages by sampled access probability",
    params: PARAMS,
    caps: DynamicCaps {
        observes: Observes::AddressSamples,
        drivers: SIM_ONLY,
        why_not: "it reads each tier's request occupancy and arrivals from the uncore's CHA counters (Intel Ice Lake's, through /dev/cpu/*/msr), which the runtime does not read yet",
        needs_program_calls: false,
        triggers: &[Trigger::Timer],
        stats: &[tiering::TIER_STATS, OWN_STATS],
    },
    build: |r, m, _| {
        tiering::require_tiers("colloid", m)?;
        Ok(Box::new(Colloid::new(r, m)?))
    },
};

/// A managed page's sampled loads, per tier it was on when sampled (`accesses[DRAMREAD]`,
/// `accesses[NVMREAD]`), the clock when last sampled, and its tier (0 fast, 1 slow; [`NO_TIER`]
/// before any of its pages was placed).
#[derive(Clone, Copy, Debug)]
struct Unit {
    loads: [u32; 2],
    clock: u64,
    tier: u8,
}

const NO_TIER: u8 = u8::MAX;

impl Default for Unit {
    fn default() -> Self {
        Unit { loads: [0; 2], clock: 0, tier: NO_TIER }
    }
}

/// The tiers' smoothed counters (`smoothed_occ_*`, `smoothed_inserts_*`), `[fast, slow]`.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Smoothed {
    pub occ: [f64; 2],
    pub inserts: [f64; 2],
}

impl Smoothed {
    /// Folds one reading in with weight `a` for the newest (`colloid_update_stats`).
    pub fn fold(&mut self, a: f64, occ: [f64; 2], inserts: [f64; 2]) {
        for t in 0..2 {
            self.occ[t] = a * occ[t] + (1.0 - a) * self.occ[t];
            self.inserts[t] = a * inserts[t] + (1.0 - a) * self.inserts[t];
        }
    }

    /// Whether the fast tier's loaded latency (occupancy over arrivals) is the higher.
    pub fn fast_slower(&self) -> bool {
        self.occ[0] / self.inserts[0] > self.occ[1] / self.inserts[1]
    }
}

/// One reading of the tiers' memory-request counters since the last ([`Monitor::read`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Reading {
    /// Time since the last reading, ns.
    pub elapsed_ns: f64,
    /// Lines each tier served since the last reading: the CHA's TOR inserts.
    pub inserts: [f64; 2],
    /// Requests in flight at each tier, on average: by Little's law the arrival rate times the
    /// tier's loaded latency (TOR occupancy).
    pub occ: [f64; 2],
}

/// Colloid's loaded-latency monitor (`colloid-mon`, and `colloid_update_stats` in the HeMem
/// build): reads each tier's arrivals and occupancy. The arrivals are the lines each node
/// served ([`View::served`]); the occupancy is their rate times the node's loaded latency from
/// the fast node's CPUs, its unloaded latency plus the memory controller's queueing delay
/// ([`View::queue`]). It also keeps each tier's latency weighted by arrivals, for the report.
#[derive(Clone, Debug, Default)]
pub(super) struct Monitor {
    /// `[fast, slow]` lines served at the last reading, and its time.
    last: Option<([u64; 2], Ps)>,
    /// Per tier, the loaded latency of each reading times its arrivals, and the arrivals.
    latency_weighted: [(f64, f64); 2],
    /// Each tier's loaded latency at the last reading, ns.
    pub last_latency_ns: [f64; 2],
}

impl Monitor {
    pub fn new() -> Self {
        Monitor { last: None, latency_weighted: [(0.0, 0.0); 2], last_latency_ns: [f64::NAN; 2] }
    }

    /// The counters since the last reading; `None` when the driver does not count arrivals
    /// or no time passed.
    pub fn read(&mut self, view: &View<'_>, (fast, slow): (NodeId, NodeId)) -> Option<Reading> {
        if view.served.len() != view.machine.nodes() {
            return None;
        }
        let served = [view.served[fast.index()], view.served[slow.index()]];
        let (before, then) = self.last.unwrap_or(([0, 0], view.started.min(view.now)));
        self.last = Some((served, view.now));
        let elapsed_ns = view.now.saturating_sub(then) as f64 / 1000.0;
        if elapsed_ns <= 0.0 {
            return None;
        }
        let mut r = Reading { elapsed_ns, inserts: [0.0; 2], occ: [0.0; 2] };
        for (t, node) in [fast, slow].into_iter().enumerate() {
            let inserts = served[t].saturating_sub(before[t]) as f64;
            let latency_ns = (view.machine.latency(fast, node) as f64 + view.queue.get(node.index()).copied().unwrap_or(0.0)) / 1000.0;
            // Little's law: the mean requests in flight are the arrival rate times the latency.
            r.inserts[t] = inserts;
            r.occ[t] = inserts / elapsed_ns * latency_ns;
            self.latency_weighted[t].0 += latency_ns * inserts;
            self.latency_weighted[t].1 += inserts;
            self.last_latency_ns[t] = latency_ns;
        }
        Some(r)
    }

    /// Reports each tier's mean loaded latency, weighted by arrivals (`fast_latency_ns`,
    /// `slow_latency_ns`).
    pub fn report(&self, out: &mut Report) {
        let mean = |t: usize| {
            let (sum, n) = self.latency_weighted[t];
            (n > 0.0).then(|| sum / n)
        };
        out.number(FAST_LATENCY.name, mean(0));
        out.number(SLOW_LATENCY.name, mean(1));
    }
}

/// The readings of a monitor that runs on its own clock (`colloid-tpp`'s, `colloid-memtis`'s),
/// and how many of them left the flag up ([`Readings`]).
pub(super) const READINGS: StatDecl = StatDecl { name: "readings", unit: "readings", doc: "times the monitor read the tiers' counters" };
pub(super) const FAST_SLOWER_READINGS: StatDecl = StatDecl { name: "fast_slower_readings", unit: "readings", doc: "readings after which the fast tier's smoothed loaded latency was the higher (the flag up)" };

/// The count of a monitor's readings and of those after which the fast tier was the slower.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Readings {
    all: u64,
    fast_slower: u64,
}

impl Readings {
    /// One more reading, with the flag up or down after it.
    pub fn note(&mut self, fast_slower: bool) {
        self.all += 1;
        self.fast_slower += u64::from(fast_slower);
    }

    pub fn report(&self, out: &mut Report) {
        out.count(READINGS.name, self.all);
        out.count(FAST_SLOWER_READINGS.name, self.fast_slower);
    }
}

/// The monitor's statistics ([`Monitor::report`]).
pub(super) const FAST_LATENCY: StatDecl = StatDecl { name: "fast_latency_ns", unit: "ns", doc: "the fast tier's loaded latency from the fast node's CPUs (unloaded plus queueing) at each reading, weighted by its arrivals" };
pub(super) const SLOW_LATENCY: StatDecl = StatDecl { name: "slow_latency_ns", unit: "ns", doc: "the slow tier's loaded latency, likewise" };

struct Colloid {
    period: u64,
    cooling_th: u32,
    interval: Ps,
    ewma: f64,
    migrate_units: u64,
    dynamic_limit: bool,
    per_unit: u32,
    units: Vec<Unit>,
    clock: u64,
    smoothed: Smoothed,
    monitor: Monitor,
    samples: u64,
    passes: u64,
    fast_slower: u64,
    swaps: u64,
    joined: u64,
}

/// One side of the sorted frequency arrays (`struct page_freq`): a unit and its cooled count;
/// `None` once moved in this pass.
type Freq = (u64, Option<u32>);

impl Colloid {
    fn new(r: &Resolved, m: &Machine) -> Result<Self, ModelError> {
        let per_unit = tiering::managed_unit("colloid", r, m)?;
        Ok(Colloid {
            period: r.uint("sample_period"),
            cooling_th: r.uint("cooling_threshold") as u32,
            interval: (r.float("interval_ms") * 1e9) as Ps,
            ewma: r.float("ewma"),
            migrate_units: r.uint("migrate_pages"),
            dynamic_limit: r.choice("dynamic_limit") == "on",
            per_unit,
            units: Vec::new(),
            clock: 0,
            smoothed: Smoothed::default(),
            monitor: Monitor::new(),
            samples: 0,
            passes: 0,
            fast_slower: 0,
            swaps: 0,
            joined: 0,
        })
    }

    /// The scanning thread's handling of one sample of unit `u` on tier `t` (0 fast, 1 slow):
    /// count it, halve the unit's counts per clock tick since its last sample, and advance the
    /// clock when the count passes the cooling threshold (`pebs_scan_thread`).
    fn sampled(&mut self, u: usize, t: usize) {
        let unit = &mut self.units[u];
        unit.loads[t] += 1;
        let shift = (self.clock - unit.clock).min(32) as u32;
        for l in &mut unit.loads {
            *l = l.checked_shr(shift).unwrap_or(0);
        }
        unit.clock = self.clock;
        if unit.loads[t] > self.cooling_th {
            self.clock += 1;
        }
    }

    /// A unit's cooled count (`COLLOID_COOLING` in `scan_page_list`).
    fn freq(&self, u: usize) -> u64 {
        let unit = &self.units[u];
        let shift = (self.clock - unit.clock).min(32) as u32;
        unit.loads.iter().map(|l| u64::from(l.checked_shr(shift).unwrap_or(0))).sum()
    }

    /// Gives each unit whose first page was just placed the tier of that page's node, and
    /// moves the pages of every unit placed on another node since to the unit's tier (HeMem
    /// maps a huge page whole on one tier and allocates it on the slow one when the fast one
    /// is full; here first touch places its base pages one by one). A fast unit whose
    /// stragglers no longer fit in `fast_room` pages becomes a slow one. Returns the pages
    /// moved to the fast tier and to the slow one.
    fn join(&mut self, view: &View<'_>, nodes: [NodeId; 2], mut fast_room: u64, out: &mut Vec<Action>) -> [u64; 2] {
        let mut moved = [0; 2];
        let per = self.per_unit as usize;
        for (u, chunk) in view.homes.chunks(per).enumerate() {
            let unit = &mut self.units[u];
            if unit.tier == NO_TIER {
                let Some(first) = chunk.iter().copied().find(|&h| h != UNTOUCHED) else { continue };
                unit.tier = match first {
                    h if h == nodes[0].0 => 0,
                    h if h == nodes[1].0 => 1,
                    _ => continue,
                };
            }
            let away = |to: NodeId| chunk.iter().filter(|&&h| h != UNTOUCHED && h != to.0).count() as u64;
            if unit.tier == 0 {
                let up = away(nodes[0]);
                if up <= fast_room {
                    fast_room -= up;
                } else {
                    unit.tier = 1;
                    fast_room += away(nodes[1]);
                }
            }
            let tier = unit.tier as usize;
            let to = nodes[tier];
            for (i, &h) in chunk.iter().enumerate() {
                if h != UNTOUCHED && h != to.0 {
                    out.push(Action::Migrate { page: PageNo((u * per + i) as u32), to, reason: "Colloid on HeMem: a page placed since joins its huge page's tier" });
                    moved[tier] += 1;
                }
            }
        }
        self.joined += moved[0] + moved[1];
        moved
    }

    /// Folds the arrivals and occupancies since the last pass into the smoothed counters
    /// (`colloid_update_stats`: the pass's counts, weight `ewma`); `false` when the driver does
    /// not count arrivals.
    fn update_stats(&mut self, view: &View<'_>, tiers: (NodeId, NodeId)) -> bool {
        let Some(r) = self.monitor.read(view, tiers) else { return false };
        self.smoothed.fold(self.ewma, r.occ, r.inserts);
        true
    }

    /// Both tiers' units (those with a placed page), with their cooled counts, each sorted by
    /// count (ties by unit number), and the sum of the counts.
    fn scan(&self) -> ([Vec<Freq>; 2], u64) {
        let mut sides: [Vec<Freq>; 2] = [Vec::new(), Vec::new()];
        let mut total = 0;
        for u in 0..self.units.len() {
            let t = self.units[u].tier as usize;
            if t > 1 {
                continue;
            }
            let f = self.freq(u);
            total += f;
            sides[t].push((f, Some(u as u32)));
        }
        for side in &mut sides {
            side.sort_unstable_by_key(|&(f, u)| (f, u));
        }
        (sides, total)
    }

    /// The pair `(i, j)` of `top` and `bottom` whose probabilities differ the most without the
    /// difference passing `target`, and that difference (the two-pointer search of
    /// `pebs_policy_thread`); `None` if no pair has a positive difference within it.
    fn best_pair(top: &[Freq], bottom: &[Freq], total: f64, target: f64) -> Option<(usize, usize, f64)> {
        let mut best: Option<(usize, usize, f64)> = None;
        let mut j = 0;
        for (i, &(fi, ui)) in top.iter().enumerate() {
            if ui.is_none() {
                continue;
            }
            let pi = fi as f64 / total;
            while j < bottom.len() {
                let (fj, uj) = bottom[j];
                if uj.is_some() {
                    let d = pi - fj as f64 / total;
                    if d <= target {
                        if d > best.map_or(0.0, |b| b.2) {
                            best = Some((i, j, d));
                        }
                        break;
                    }
                }
                j += 1;
            }
        }
        best
    }

    /// The migrations of unit `u`'s placed pages not on `to`.
    fn move_unit(&self, u: u32, to: NodeId, homes: &[u8], reason: &'static str, out: &mut Vec<Action>) {
        let first = u * self.per_unit;
        tiering::unit_moves(homes, first..(first + self.per_unit).min(homes.len() as u32), to, reason, out);
    }

    /// One pass of the migration thread after the counters were updated: the pairs swapped.
    fn migrate(&mut self, view: &View<'_>, tiers: (NodeId, NodeId), mut fast_free: u64, out: &mut Vec<Action>) {
        let s = self.smoothed;
        let beta = s.inserts[0] / s.inserts[1];
        if s.occ[0] == beta * s.occ[1] {
            return;
        }
        let (mut sides, total) = self.scan();
        if total == 0 {
            return;
        }
        let (ins, occ) = (s.inserts, s.occ);
        let mut target = (occ[0] - beta * occ[1]).abs() / ((ins[0] + ins[1]) * (beta * occ[1] / ins[1] + occ[0] / ins[0]));
        if !target.is_finite() {
            return;
        }
        let unit_bytes = u64::from(self.per_unit) * view.machine.raw.page_size;
        let mut limit = self.migrate_units * unit_bytes;
        if self.dynamic_limit {
            limit = limit.min((target * (ins[0] + ins[1]) * view.machine.raw.line_size as f64) as u64);
        }
        // The slower tier's pages are the ones whose probability moves out ("top").
        let fast_slower = occ[0] > beta * occ[1];
        let (fast, slow) = tiers;
        let mut migrated = 0;
        while migrated < limit {
            let [fast_side, slow_side] = &sides;
            let (top, bottom) = if fast_slower { (fast_side, slow_side) } else { (slow_side, fast_side) };
            let Some((i, j, d)) = Self::best_pair(top, bottom, total as f64, target) else { break };
            target -= d;
            let (fi, si) = if fast_slower { (i, j) } else { (j, i) };
            let (ffreq, funit) = sides[0][fi];
            let (sfreq, sunit) = sides[1][si];
            let (funit, sunit) = (funit.expect("a live entry"), sunit.expect("a live entry"));
            // A never-accessed fast page stays while the fast tier has room for the slow one.
            if ffreq == 0 && fast_free >= u64::from(self.per_unit) {
                fast_free -= u64::from(self.per_unit);
            } else {
                migrated += unit_bytes;
                self.move_unit(funit, slow, view.homes, "Colloid: the slower tier's page swapped out toward balanced loaded latency", out);
                self.units[funit as usize].tier = 1;
                sides[0][fi].1 = None;
            }
            if sfreq > 0 {
                migrated += unit_bytes;
                self.move_unit(sunit, fast, view.homes, "Colloid: the other tier's page swapped in toward balanced loaded latency", out);
                self.units[sunit as usize].tier = 0;
                sides[1][si].1 = None;
            } else {
                fast_free += u64::from(self.per_unit);
            }
            self.swaps += 1;
        }
    }
}

impl DynamicPolicy for Colloid {
    fn counts(&self) -> bool {
        false
    }

    fn migration_unit(&self) -> u32 {
        self.per_unit
    }

    fn sampling(&self) -> Option<Sampling> {
        Some(Sampling::Interval(self.period))
    }

    fn timer_period(&self) -> Option<Ps> {
        Some(self.interval.max(1))
    }

    fn on_timer(&mut self, view: &View<'_>) -> Timer {
        let mut tick = Timer { background: true, ..Timer::default() };
        let Some(tiers) = tiering::fast_and_slow(view.machine) else { return tick };
        let units = view.homes.len().div_ceil(self.per_unit as usize);
        if self.units.len() != units {
            self.units.resize(units, Unit::default());
        }
        for s in view.samples {
            self.samples += 1;
            let u = (s.page.0 / self.per_unit) as usize;
            let t = usize::from(view.homes.get(s.page.0 as usize).is_some_and(|&h| h == tiers.1 .0));
            if u < self.units.len() {
                self.sampled(u, t);
            }
        }
        let [up, down] = self.join(view, [tiers.0, tiers.1], view.free[tiers.0.index()], &mut tick.actions);
        let fast_free = (view.free[tiers.0.index()] + down).saturating_sub(up);
        if !self.update_stats(view, tiers) || self.smoothed.inserts.iter().any(|&i| i <= 0.0) {
            return tick;
        }
        self.passes += 1;
        // Occupancy over arrivals: each tier's latency (over the same pass length).
        if self.smoothed.fast_slower() {
            self.fast_slower += 1;
        }
        self.migrate(view, tiers, fast_free, &mut tick.actions);
        tick
    }

    fn evidence(&self, action: &Action) -> Option<Evidence> {
        let Action::Migrate { reason, .. } = action else { return None };
        // A swap weighed the fast tier's loaded latency against the slow tier's; a join, none.
        reason.starts_with("Colloid:").then(|| latency_evidence(&self.monitor))
    }

    fn report(&self, applied: &Applied, out: &mut Report) {
        tiering::report_moves(applied, out);
        out.count("samples", self.samples);
        out.count("passes", self.passes);
        out.count("fast_slower_passes", self.fast_slower);
        out.count("swaps", self.swaps);
        out.count("joined_pages", self.joined);
        self.monitor.report(out);
    }
}

/// What a Colloid move weighed: the fast tier's loaded latency against the slow tier's at the
/// last reading.
pub(super) fn latency_evidence(m: &Monitor) -> Evidence {
    Evidence { measured: FAST_LATENCY.name, value: m.last_latency_ns[0], threshold: SLOW_LATENCY.name, limit: m.last_latency_ns[1] }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamic::fixture::Fixture;
    use crate::dynamic::Sample;

    /// Fast node 0 of 4 pages, slow (CXL) node 1 of 4; 10 ms into the run.
    fn tiered() -> Fixture {
        let mut f = Fixture::tiered(vec![0, 0, 0, 0, 1, 1, 1, 1], vec![0, 500]);
        f.now = 10_000_000_000;
        f
    }

    fn samples(pages: &[(u32, usize)]) -> Vec<Sample> {
        pages.iter().flat_map(|&(p, n)| std::iter::repeat(Sample { page: PageNo(p), node: NodeId(0), write: false }).take(n)).collect()
    }

    fn migrations(t: &Timer) -> Vec<(u32, u8)> {
        t.actions.iter().map(|a| match a { Action::Migrate { page, to, .. } => (page.0, to.0), _ => (u32::MAX, 0) }).collect()
    }

    #[test]
    fn a_loaded_fast_tier_sends_its_hot_pages_out_within_the_share_to_shift() {
        let mut f = tiered();
        // Fast: 1,000 lines at 100 ns + 1 µs of queueing; slow: 100 lines at 200 ns.
        f.served = vec![1000, 100];
        let queue = [1_000_000.0, 0.0];
        let mut p = f.policy("colloid:page=4k");
        let s = samples(&[(0, 10), (1, 2), (4, 1)]);
        let t = p.on_timer(&View { samples: &s, queue: &queue, ..f.view() });
        assert!(t.background);
        // Δ = 0.264 of the accesses: page 0 (10/13) would overshoot, page 1 (2/13) pairs with a
        // never-accessed slow page, which stays; the dynamic limit (Δ × 68.75 lines × 64 B)
        // ends the pass after one page.
        assert_eq!(migrations(&t), vec![(1, 1)]);
        // The swap weighed the fast tier's 1,100 ns against the slow tier's 200 ns.
        let e = p.evidence(&t.actions[0]).unwrap();
        assert_eq!((e.measured, e.threshold), ("fast_latency_ns", "slow_latency_ns"));
        assert!((e.value - 1100.0).abs() < 1e-6 && (e.limit - 200.0).abs() < 1e-6, "{e:?}");
        let mut r = Report::default();
        p.report(&Applied::default(), &mut r);
        assert_eq!((r.count_of("passes"), r.count_of("fast_slower_passes"), r.count_of("swaps")), (1, 1, 1));
    }

    #[test]
    fn an_idle_fast_tier_takes_the_hottest_pair_that_does_not_overshoot() {
        let mut f = tiered();
        f.served = vec![100, 100];
        let mut p = f.policy("colloid:page=4k");
        let s = samples(&[(4, 2), (5, 2), (6, 2), (7, 2), (0, 1)]);
        let t = p.on_timer(&View { samples: &s, queue: &[0.0, 0.0], ..f.view() });
        // Δ = 1/6: a slow page (2/9) against fast page 0 (1/9) shifts 1/9.
        assert_eq!(migrations(&t), vec![(0, 1), (4, 0)]);
        // Alone, a slow page of 10/11 of the accesses overshoots any Δ: nothing moves.
        let mut q = f.policy("colloid:page=4k");
        let s = samples(&[(4, 10), (0, 1)]);
        assert!(q.on_timer(&View { samples: &s, queue: &[0.0, 0.0], ..f.view() }).actions.is_empty());
    }

    #[test]
    fn without_arrival_counts_or_with_an_idle_tier_nothing_moves() {
        let f = tiered();
        let mut p = f.policy("colloid:page=4k");
        let s = samples(&[(4, 5), (0, 1)]);
        assert!(p.on_timer(&View { samples: &s, ..f.view() }).actions.is_empty(), "no View::served (the runtime)");
        let mut g = tiered();
        g.served = vec![100, 0];
        let mut q = g.policy("colloid:page=4k");
        assert!(q.on_timer(&View { samples: &s, queue: &[0.0, 0.0], ..g.view() }).actions.is_empty(), "the slow tier had no arrivals");
    }

    #[test]
    fn counts_cool_by_halves_once_one_passes_the_threshold() {
        let f = tiered();
        let mut c = Colloid::new(&crate::Spec::parse("colloid:page=4k,cooling_threshold=3").unwrap().resolve("dynamic policy", PARAMS).unwrap(), &f.machine).unwrap();
        c.units = vec![Unit::default(); 8];
        for _ in 0..4 {
            c.sampled(0, 0);
        }
        c.sampled(1, 1);
        c.sampled(1, 1);
        assert_eq!(c.clock, 1, "page 0's fourth load passed 3");
        // Page 0 was last sampled before the tick: its 4 count as 2 now. Page 1's first load
        // was halved away when sampled after the tick.
        assert_eq!((c.freq(0), c.freq(1)), (2, 1));
        c.sampled(1, 1);
        assert_eq!(c.units[1].loads, [0, 2]);
    }

    #[test]
    fn a_huge_page_first_touched_on_both_tiers_joins_its_first_pages_tier() {
        let text = crate::topology::tests::TWO_NODES.replace("memory_mib = 2\n", "memory_mib = 2\nmemory = \"cxl\"\n").replace("mlp = 2.0\n", "mlp = 2.0\nhuge_page_size = 8192\n");
        let mut f = tiered();
        f.machine = Machine::from_toml_str(&text, "t2h.toml").unwrap();
        // Units of two pages: {0,1} placed fast then slow, {2,3} slow then fast, {4,5} half untouched.
        f.homes = vec![0, 1, 1, 0, UNTOUCHED, 1, 1, 1];
        f.free = vec![10, 500];
        let mut p = f.policy("colloid");
        let t = p.on_timer(&f.view());
        assert_eq!(migrations(&t), vec![(1, 0), (3, 1)]);
        let mut r = Report::default();
        p.report(&Applied::default(), &mut r);
        assert_eq!(r.count_of("joined_pages"), 2);
    }
}
