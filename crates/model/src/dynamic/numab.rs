//! `numab-tiering`: Linux NUMA balancing in memory-tiering mode (`kernel.numa_balancing=2`),
//! as in Linux 6.1 (kernel/sched/fair.c `should_numa_migrate_memory`,
//! `numa_promotion_adjust_threshold`, `numa_promotion_rate_limit`, `pgdat_free_space_enough`;
//! mm/mprotect.c; mm/vmscan.c `pgdat_balanced`; mm/page_alloc.c `WMARK_PROMO`).
//!
//! * **Sensing.** The scanner makes the next 256 MB window of the address space fault every
//!   scan period, skipping top-tier pages ([`tiering::Scanner`]). Faults on top-tier pages are
//!   not taken at all in this mode, so the policy sees only slow-tier pages, and only the first
//!   access after each scan. A page's scan time is stamped when a scan makes it fault, and a
//!   page still waiting for its fault from an earlier scan keeps its stamp (change_pte_range
//!   and change_huge_pmd skip a PTE already `protnone` before `xchg_page_access_time`), so a
//!   page untouched for several scans shows a hint-fault latency of several periods.
//! * **Promotion** (in the fault, synchronous: the faulting thread pays the fault and the move).
//!   When the faulting CPU's node has "enough" free memory — above its promotion watermark
//!   plus the larger of 1 GiB and 1/16 of the node — every faulting slow page is promoted and
//!   the threshold is reset. Otherwise a page is promoted only if its hint-fault latency (fault
//!   time minus scan time) is below the hot threshold (1000 ms), and while the promotion
//!   candidates of the current second stay below the rate limit (MB/s). Every scan-period-max
//!   (60 s) the threshold moves by 1/8 of the default, down when the candidates of the period
//!   exceeded the rate limit's share by 10 %, up (to at most twice the default) when they fell
//!   10 % short. A promotion also needs the node above its high watermark plus the page
//!   (`migrate_balanced_pgdat`); otherwise it is deferred (counted) and kswapd wakes.
//! * **Demotion** (with `demotion=on`, `/sys/kernel/mm/numa/demotion_enabled`): kswapd
//!   reclaims a top-tier node that fell below its watermark until it is back at the promotion
//!   watermark (`WMARK_PROMO`, the high watermark plus the low–min gap), demoting the coldest
//!   pages by the LRU ([`tiering::Reclaim`]), in the background.
//!
//! Modelling choices, written down: the scan period stays at its minimum (faults on slow-tier
//! pages are never local to the faulting CPU, so `update_task_scan_period` never lengthens it);
//! kswapd is woken when free memory drops below the high watermark — a failed promotion wakes it
//! there in Linux, and a workload with hot slow pages fails promotions continually; the
//! `hot_selection=off` and `auto_threshold=off` switches give the patch series' earlier steps
//! (the base tiering mode promotes on every fault; a fixed threshold).

use super::colloid_tpp::{self, Gate};
use super::tiering::{self, Reclaim, Scanner};
use super::{Action, Applied, DynamicCaps, DynamicInfo, DynamicPolicy, Evidence, Observes, TierEvidence, Timer, Trigger, View, SIM_ONLY};
use crate::report::{Report, StatDecl};
use crate::spec::{ParamDecl, ParamKind, Resolved};
use crate::topology::Machine;
use crate::units::{NodeId, PageNo, Ps};
use crate::watermarks::Watermarks;

const ON_OFF: ParamKind = ParamKind::Choice(&["on", "off"]);

/// The tiering mode's parameters, and with more those of Colloid's integration on it
/// ([`COLLOID_TPP`]).
macro_rules! numab_params {
    ($($more:expr),* $(,)?) => {
        &[
            tiering::SCAN_DELAY,
            tiering::SCAN_PERIOD,
            tiering::SCAN_SIZE,
            tiering::MAX_SCAN_RATE,
            HOT_THRESHOLD,
            RATE_LIMIT,
            RATE_LIMIT_WINDOW,
            THRESHOLD_PERIOD,
            HOT_SELECTION,
            AUTO_THRESHOLD,
            DEMOTION,
            tiering::FAULT_NS,
            $($more),*
        ]
    };
}

const PARAMS: &[ParamDecl] = numab_params!();

const HOT_THRESHOLD: ParamDecl = ParamDecl { name: "hot_threshold_ms", kind: ParamKind::Float { min: 0.001, max: 1e7 }, default: "1000", doc: "hint-fault latency below which a slow page is hot (numa_balancing_hot_threshold_ms: MSEC_PER_SEC)" };
const RATE_LIMIT: ParamDecl = ParamDecl { name: "rate_limit_mbps", kind: ParamKind::Float { min: 0.001, max: 1e7 }, default: "65536", doc: "promotion candidates per second, MB/s (numa_balancing_promote_rate_limit_MBps: 65536)" };
const RATE_LIMIT_WINDOW: ParamDecl = ParamDecl { name: "rate_limit_window_ms", kind: ParamKind::Float { min: 0.001, max: 1e7 }, default: "1000", doc: "the window the rate limit counts candidates in (numa_promotion_rate_limit: MSEC_PER_SEC)" };
const THRESHOLD_PERIOD: ParamDecl = ParamDecl { name: "threshold_period_ms", kind: ParamKind::Float { min: 0.001, max: 1e8 }, default: "60000", doc: "how often the hot threshold is adjusted (numa_balancing_scan_period_max_ms: 60000)" };
const HOT_SELECTION: ParamDecl = ParamDecl { name: "hot_selection", kind: ON_OFF, default: "on", doc: "choose hot pages by hint-fault latency (off: the base tiering mode, promote on every fault)" };
const AUTO_THRESHOLD: ParamDecl = ParamDecl { name: "auto_threshold", kind: ON_OFF, default: "on", doc: "adjust the hot threshold to the rate limit (numa_promotion_adjust_threshold)" };
const DEMOTION: ParamDecl = ParamDecl { name: "demotion", kind: ON_OFF, default: "on", doc: "kswapd demotes to the next tier (/sys/kernel/mm/numa/demotion_enabled; Linux's default is off, the tiering mode is evaluated with it on)" };

const OWN_STATS: &[StatDecl] = &[
    StatDecl { name: "promotions_deferred", unit: "pages", doc: "hot slow pages not promoted because the fast node was below its high watermark (migrate_balanced_pgdat), kswapd woken instead" },
    StatDecl { name: "rate_limited", unit: "pages", doc: "hot slow pages not promoted because the second's candidates reached the rate limit" },
    StatDecl { name: "hot_threshold_ms", unit: "ms", doc: "the hot threshold at the run's end (auto-adjusted)" },
];

pub(super) const INFO: DynamicInfo = DynamicInfo {
    name: "numab-tiering",
    doc: "Linux NUMA balancing, memory-tiering mode (numa_balancing=2, Linux 6.1): hint faults on slow pages, promotion by hint-fault latency under a rate limit, kswapd demotion",
    params: PARAMS,
    caps: DynamicCaps {
        observes: Observes::HintingFaults,
        drivers: SIM_ONLY,
        why_not: "it is Linux's own tiering mode: on a real host set kernel.numa_balancing=2 and /sys/kernel/mm/numa/demotion_enabled",
        needs_program_calls: false,
        triggers: &[Trigger::Timer, Trigger::HintingFault, Trigger::LowMemory],
        stats: &[tiering::TIER_STATS, OWN_STATS],
    },
    build: |r, m, _| {
        tiering::require_tiers("numab-tiering", m)?;
        Ok(Box::new(NumabTiering::new(r, m)))
    },
};

const MS: f64 = 1e9;

/// `colloid-tpp` ([`super::colloid_tpp`]): the tiering mode's parameters and Colloid's poll.
const COLLOID_TPP_PARAMS: &[ParamDecl] = numab_params!(colloid_tpp::POLL);

pub(super) const COLLOID_TPP: DynamicInfo = DynamicInfo {
    name: "colloid-tpp",
    doc: "Colloid (SOSP'24) on Linux's tiering mode (its TPP integration, Linux 6.3): numab-tiering, with promotion vetoed and hot fast pages demoted from their hint faults while the fast tier's loaded latency is the higher",
    params: COLLOID_TPP_PARAMS,
    caps: DynamicCaps {
        observes: Observes::HintingFaults,
        drivers: SIM_ONLY,
        why_not: "it is a patched kernel (Colloid's linux-6.3 tree with colloid-mon reading the CHA counters); the runtime does not read those counters yet",
        needs_program_calls: false,
        triggers: &[Trigger::Timer, Trigger::HintingFault, Trigger::LowMemory],
        stats: &[tiering::TIER_STATS, OWN_STATS, colloid_tpp::OWN_STATS],
    },
    build: |r, m, _| {
        tiering::require_tiers("colloid-tpp", m)?;
        Ok(Box::new(NumabTiering::with_colloid(r, m)))
    },
};

struct NumabTiering {
    scanner: Scanner,
    delay: Ps,
    started: bool,
    fault_cost: Ps,
    default_th: Ps,
    /// The adjusted threshold (0: the default).
    threshold: Ps,
    rate_limit_pages: u64,
    rl_window: Ps,
    th_period: Ps,
    hot_selection: bool,
    auto_threshold: bool,
    demotion: bool,
    /// Promotion candidates so far, and the count at the start of the rate limit's window and
    /// of the threshold's period, with when those started.
    candidates: u64,
    rl_start: Ps,
    rl_base: u64,
    th_start: Ps,
    th_base: u64,
    reclaim: Reclaim,
    deferred: u64,
    rate_limited: u64,
    /// Each page's scan stamp, µs of simulated time ([`UNSTAMPED`]: no scan is waiting for
    /// its fault).
    stamps: Vec<u32>,
    /// What the last promotion and the last demotion pass weighed ([`DynamicPolicy::evidence`]).
    weighed: TierEvidence,
    /// Colloid's integration (`colloid-tpp`), where built with it.
    colloid: Option<Gate>,
}

const PROMOTE: &str = "hint fault on a slow page: promoted";
const DEMOTE: &str = "kswapd: cold page of a fast node below its watermark";

/// A page no scan is waiting on (it faulted, or was never scanned on the slow tier).
const UNSTAMPED: u32 = u32::MAX;

impl NumabTiering {
    /// When the scan that made `page` fault stamped it, ps (its window's last scan for a page
    /// never stamped).
    fn scanned_at(&self, page: PageNo) -> Ps {
        match self.stamps.get(page.0 as usize) {
            Some(&s) if s != UNSTAMPED => Ps::from(s) * 1_000_000,
            _ => self.scanner.scanned_at(page),
        }
    }

    /// The tiering mode with Colloid's integration on it ([`super::colloid_tpp`]).
    fn with_colloid(r: &Resolved, m: &Machine) -> Self {
        NumabTiering { colloid: Some(Gate::new(r)), ..Self::new(r, m) }
    }

    fn new(r: &Resolved, m: &Machine) -> Self {
        let page = m.raw.page_size as f64;
        let (scanner, delay, fault_cost) = Scanner::from_params(r, m);
        NumabTiering {
            scanner,
            delay,
            started: false,
            fault_cost,
            default_th: (r.float("hot_threshold_ms") * MS) as Ps,
            threshold: 0,
            rate_limit_pages: ((r.float("rate_limit_mbps") * 1048576.0) / page * r.float("rate_limit_window_ms") / 1000.0).ceil().max(1.0) as u64,
            rl_window: (r.float("rate_limit_window_ms") * MS) as Ps,
            th_period: (r.float("threshold_period_ms") * MS) as Ps,
            hot_selection: r.choice("hot_selection") == "on",
            auto_threshold: r.choice("auto_threshold") == "on",
            demotion: r.choice("demotion") == "on",
            candidates: 0,
            rl_start: 0,
            rl_base: 0,
            th_start: 0,
            th_base: 0,
            reclaim: Reclaim::default(),
            deferred: 0,
            rate_limited: 0,
            stamps: Vec::new(),
            weighed: TierEvidence::default(),
            colloid: None,
        }
    }

    /// The hot threshold in force.
    fn threshold(&self) -> Ps {
        if self.threshold == 0 {
            self.default_th
        } else {
            self.threshold
        }
    }

    /// `numa_promotion_adjust_threshold`: once per threshold period, compare the candidates
    /// of the period with what the rate limit allows in it.
    fn adjust_threshold(&mut self, now: Ps) {
        if now.saturating_sub(self.th_start) <= self.th_period {
            return;
        }
        self.th_start = now;
        // The candidates the rate limit allows over the period (rate_limit × period).
        let reference = (self.rate_limit_pages as f64 * self.th_period as f64 / self.rl_window as f64) as u64;
        let diff = self.candidates - self.th_base;
        let unit = self.default_th * 2 / 16;
        let th = self.threshold();
        self.threshold = if diff > reference * 11 / 10 {
            th.saturating_sub(unit).max(unit)
        } else if diff < reference * 9 / 10 {
            (th + unit).min(self.default_th * 2)
        } else {
            th
        };
        self.th_base = self.candidates;
    }

    /// `numa_promotion_rate_limit`: counts the candidate, and says whether this second's
    /// candidates reached the limit.
    fn rate_limit(&mut self, now: Ps) -> bool {
        self.candidates += 1;
        if now.saturating_sub(self.rl_start) > self.rl_window {
            self.rl_start = now;
            self.rl_base = self.candidates - 1;
        }
        self.candidates - self.rl_base >= self.rate_limit_pages
    }
}

/// Linux's watermarks for `node`: the machine's, or, where it declares none, what Linux
/// computes for a node of that size (`min_free_kbytes` ≈ 0.05 %, then low and high 0.1 % and
/// 0.2 % above it with `watermark_scale_factor` 10; crate::watermarks).
pub(super) fn linux_watermarks(machine: &Machine, node: usize) -> Watermarks {
    machine.watermarks(node).unwrap_or_else(|| {
        let w = crate::watermarks::RawWatermarks { min_permille: 0.5, low_permille: 1.5, high_permille: 2.5 };
        w.pages(machine.capacity_pages[node])
    })
}

/// The promotion watermark (`WMARK_PROMO`): the high watermark plus the low–min gap.
fn promo_watermark(w: &Watermarks) -> u64 {
    w.high + (w.low - w.min)
}

impl DynamicPolicy for NumabTiering {
    fn counts(&self) -> bool {
        false
    }

    fn timer_period(&self) -> Option<Ps> {
        Some(self.delay.max(1))
    }

    fn fault_cost(&self) -> Ps {
        self.fault_cost
    }

    fn on_timer(&mut self, view: &View<'_>) -> Timer {
        self.started = true;
        let mut tick = self.scanner.scan(view.homes.len() as u32, view.now);
        // Colloid's tree scans the top tier too (mm/mprotect.c) and stamps its pages.
        let all_tiers = self.colloid.is_some();
        tick.revoke_skip_toptier = !all_tiers;
        if let Some(g) = self.colloid.as_mut() {
            g.observe(view);
        }
        if self.stamps.len() != view.homes.len() {
            self.stamps = vec![UNSTAMPED; view.homes.len()];
        }
        let now = (view.now / 1_000_000).min(u64::from(UNSTAMPED - 1)) as u32;
        for p in tick.revoke.clone().unwrap_or(0..0) {
            // Stamp the slow pages this scan makes fault; one still waiting keeps its stamp.
            let home = view.homes[p as usize];
            if self.stamps[p as usize] == UNSTAMPED && home != crate::pagetable::UNTOUCHED && (all_tiers || !view.machine.is_toptier(NodeId(home))) {
                self.stamps[p as usize] = now;
            }
        }
        tick
    }

    fn on_fault(&mut self, view: &View<'_>, page: PageNo, node: NodeId) -> Option<Action> {
        if let Some(g) = self.colloid.as_mut() {
            g.observe(view);
        }
        let scanned = self.scanned_at(page);
        // The fault restores access: the next scan stamps the page again.
        if let Some(s) = self.stamps.get_mut(page.0 as usize) {
            *s = UNSTAMPED;
        }
        if !tiering::on_slow_tier(view, page) || !view.machine.is_toptier(node) {
            // Colloid: a local fast page's fault may send it away.
            let hot = view.now.saturating_sub(scanned) < self.threshold();
            return self.colloid.as_mut().and_then(|g| g.away(view, page, node, hot));
        }
        let w = linux_watermarks(view.machine, node.index());
        let free = view.free[node.index()];
        let enough = (1u64 << 30) / view.machine.raw.page_size;
        let enough = enough.max(view.machine.capacity_pages[node.index()] / 16);
        let mut ev = Evidence { measured: "free_pages", value: free as f64, threshold: "promote_above_free_pages", limit: (w.high + 1) as f64 };
        if free > promo_watermark(&w) + enough {
            // Workload changed: reset the threshold (pgdat_free_space_enough).
            self.threshold = 0;
            ev.threshold = "free_space_enough_pages";
            ev.limit = (promo_watermark(&w) + enough) as f64;
            if self.colloid.as_mut().is_some_and(|g| g.vetoes()) {
                return None;
            }
        } else if self.hot_selection {
            if self.auto_threshold {
                self.adjust_threshold(view.now);
            }
            let th = self.threshold();
            let latency = view.now.saturating_sub(scanned);
            if latency >= th {
                return None;
            }
            ev = Evidence { measured: "hint_fault_latency_ms", value: latency as f64 / MS, threshold: "hot_threshold_ms", limit: th as f64 / MS };
            if self.colloid.as_mut().is_some_and(|g| g.vetoes()) {
                return None;
            }
            if self.rate_limit(view.now) {
                self.rate_limited += 1;
                return None;
            }
        }
        if free <= w.high + 1 {
            self.deferred += 1;
            return None;
        }
        self.weighed.promoted = Some(ev);
        Some(Action::Migrate { page, to: node, reason: PROMOTE })
    }

    fn watermarks(&self, machine: &Machine, node: usize) -> Option<Watermarks> {
        let w = linux_watermarks(machine, node);
        // kswapd is woken where a promotion is deferred (free at most high + 1: a failed
        // promotion wakes it), and balances the node to WMARK_PROMO.
        Some(Watermarks { min: w.min, low: w.high + 2, high: promo_watermark(&w).max(w.high + 2) })
    }

    fn on_low_memory(&mut self, view: &View<'_>, node: NodeId) -> Timer {
        if !self.demotion || !view.machine.is_toptier(node) {
            return Timer::default();
        }
        let w = self.watermarks(view.machine, node.index()).expect("always some");
        let want = tiering::shortfall(view, node, w.high);
        self.weighed.demoting(view, node, w.high);
        self.reclaim.demote(view, node, want, want.saturating_mul(16) + 4096, DEMOTE)
    }

    fn evidence(&self, action: &Action) -> Option<Evidence> {
        self.colloid.as_ref().and_then(|g| g.evidence(action)).or_else(|| self.weighed.of(action, PROMOTE, DEMOTE))
    }

    fn report(&self, applied: &Applied, out: &mut Report) {
        tiering::report_moves(applied, out);
        out.count("promotions_deferred", self.deferred);
        out.count("rate_limited", self.rate_limited);
        out.number("hot_threshold_ms", Some(self.threshold() as f64 / MS));
        if let Some(g) = &self.colloid {
            g.report(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamic::fixture::Fixture;

    /// The fixture's machine with node 1 (CPU-less) made CXL: a fast node 0 of 256 pages and a
    /// slow node 1 of 512.
    fn tiered() -> Fixture {
        Fixture::tiered(vec![1; 8], vec![250, 500])
    }

    #[test]
    fn promotes_every_faulting_slow_page_while_the_fast_node_has_room_then_only_hot_ones() {
        let mut f = tiered();
        let mut p = f.policy("numab-tiering:scan_size_mb=0.015625");
        assert_eq!(p.timer_period(), Some(1_000_000_000_000));
        f.now = 1_000_000_000_000;
        let t = p.on_timer(&f.view());
        assert_eq!((t.revoke, t.revoke_skip_toptier), (Some(0..4), true));
        // 256 pages hold less than 1 GiB: "enough" free space never holds; free 250 is above
        // the high watermark (1 page), so a hot page is promoted...
        f.now += 500_000_000_000;
        let a = p.on_fault(&f.view(), PageNo(1), NodeId(0));
        assert!(matches!(a, Some(Action::Migrate { to: NodeId(0), .. })));
        // What it weighed: 0.5 s from its scan against the 1 s threshold.
        let e = p.evidence(&a.unwrap()).unwrap();
        assert_eq!((e.measured, e.value, e.threshold, e.limit), ("hint_fault_latency_ms", 500.0, "hot_threshold_ms", 1000.0));
        // ...one faulting 1.5 s after its scan is not hot...
        f.now += 1_000_000_000_000;
        assert_eq!(p.on_fault(&f.view(), PageNo(2), NodeId(0)), None);
        // ...a fast page never faults into a promotion, and a full fast node defers.
        f.homes[3] = 0;
        assert_eq!(p.on_fault(&f.view(), PageNo(3), NodeId(0)), None);
        let mut f2 = tiered();
        f2.free = vec![1, 500];
        let mut p2 = f2.policy("numab-tiering:hot_selection=off");
        assert_eq!(p2.on_fault(&f2.view(), PageNo(0), NodeId(0)), None);
        let mut out = Report::default();
        p2.report(&Applied::default(), &mut out);
        assert_eq!(out.names().collect::<Vec<_>>(), ["promotions", "demotions", "promotion_failures", "background_ms", "promotions_deferred", "rate_limited", "hot_threshold_ms"]);
    }

    #[test]
    fn a_page_untouched_since_an_earlier_scan_keeps_that_scans_stamp() {
        let mut f = tiered();
        // One window of all 8 pages, a pass a second.
        let mut p = f.policy("numab-tiering:scan_size_mb=0.03125");
        let s = 1_000_000_000_000;
        f.now = s;
        p.on_timer(&f.view());
        f.now = s + s / 5;
        assert!(p.on_fault(&f.view(), PageNo(1), NodeId(0)).is_some(), "0.2 s after its scan: hot");
        // The next pass stamps page 1 again (it faulted), not page 2, which is still waiting
        // for the fault the first pass armed (Linux skips a PTE already protnone).
        f.now = 2 * s;
        p.on_timer(&f.view());
        f.now = 2 * s + s / 2;
        assert_eq!(p.on_fault(&f.view(), PageNo(2), NodeId(0)), None, "1.5 s since its stamp: cold");
        assert!(p.on_fault(&f.view(), PageNo(1), NodeId(0)).is_some(), "0.5 s since its new stamp: hot");
    }

    #[test]
    fn the_rate_limit_stops_promotion_within_a_second_and_the_threshold_follows_it() {
        let mut f = tiered();
        // One page a second (4 KiB/s) at most.
        let mut p = NumabTiering::new(&crate::dynamic::resolve(&crate::Spec::parse("numab-tiering:rate_limit_mbps=0.00390625,threshold_period_ms=2000").unwrap()).unwrap().1, &f.machine);
        p.on_timer(&f.view());
        f.now = 10;
        assert_eq!(p.on_fault(&f.view(), PageNo(0), NodeId(0)), None, "the first candidate reaches a limit of one");
        assert_eq!(p.rate_limited, 1);
        // Five more hot candidates in the next second, all limited: page 1 faults (cold, 1.3 s
        // after its stamp), is stamped again by the next scan, and faults soon after...
        f.now = 1_300_000_000_000;
        assert_eq!(p.on_fault(&f.view(), PageNo(1), NodeId(0)), None);
        f.now = 1_400_000_000_000;
        p.on_timer(&f.view());
        for k in 0..5 {
            f.now = 1_500_000_000_000 + k;
            assert_eq!(p.on_fault(&f.view(), PageNo(1), NodeId(0)), None);
        }
        assert_eq!((p.rate_limited, p.candidates), (6, 6));
        // ...so when the 2 s period is over, six candidates against two allowed: the
        // threshold goes down by 1/8 of the default, and a page 3 s from its scan is cold.
        f.now = 3_000_000_000_000;
        assert_eq!(p.on_fault(&f.view(), PageNo(2), NodeId(0)), None);
        assert_eq!(p.threshold, 1_000_000_000_000 - 125_000_000_000);
    }

    #[test]
    fn kswapd_demotes_cold_pages_of_the_fast_node_in_the_background() {
        let mut f = tiered();
        f.homes = vec![0; 8];
        f.free = vec![0, 500];
        let mut p = f.policy("numab-tiering");
        let t = p.on_low_memory(&f.view(), NodeId(0));
        assert!(t.background);
        // Linux's watermarks of 256 pages are one page each: kswapd wakes where a promotion is
        // deferred (free at most high + 1 = 2) and balances to max(promo 1, high + 2): 3 pages.
        assert_eq!(p.watermarks(&f.machine, 0), Some(Watermarks { min: 1, low: 3, high: 3 }));
        assert_eq!(t.actions.len(), 3);
        assert_eq!(t.actions[0], Action::Migrate { page: PageNo(0), to: NodeId(1), reason: "kswapd: cold page of a fast node below its watermark" });
        // Off: nothing.
        let mut off = f.policy("numab-tiering:demotion=off");
        assert_eq!(off.on_low_memory(&f.view(), NodeId(0)), Timer::default());
    }
}
