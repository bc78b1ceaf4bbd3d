//! `tpp`: Transparent Page Placement (Maruf et al., "TPP: Transparent Page Placement for
//! CXL-Enabled Tiered-Memory", ASPLOS'23; the LKML series "[PATCH 0/5] Transparent Page
//! Placement for Tiered-Memory", Meta, 2022).
//!
//! * **Sensing**: NUMA balancing's hint faults, on slow-tier pages only (the series' last
//!   patch stops scanning top-tier pages), with the same scanner as `numab-tiering`.
//! * **Promotion with hysteresis** (patch 4/5, `do_numa_page`: "Only migrate pages that are
//!   active on non-toptier node"): a faulting slow page that is not on the active LRU list is
//!   only marked accessed (`mark_page_accessed`: its first fault marks it referenced, its
//!   second makes it active) and stays; a fault on an active slow page promotes it to the
//!   faulting CPU's node, synchronously, if that node is above its high watermark
//!   (`migrate_balanced_pgdat`) — otherwise the promotion is deferred and counted.
//! * **Demotion decoupled from allocation** (patch 2/5, `demote_scale_factor`): kswapd wakes
//!   when a top-tier node's free memory falls below the demotion watermark — 2 % of the node by
//!   default ("The default value of 200 means if there are less than 2% of free toptier memory
//!   in a node/system, we will start to demote pages from that node") — and demotes the
//!   coldest pages by the LRU until the node is back above it plus the normal high–low gap (an
//!   assumption: the patch text says the factor also sets "how much memory needs to be free
//!   ... before kswapd goes back to sleep" without a formula), in the background. New
//!   allocations therefore find headroom on the fast node.
//! * **Statistics** (patch 1/5): promotions, demotions, failures, and demoted pages that
//!   became promotion candidates again (`thrash`).
//!
//! On a real host the runtime drives the same code (`numaplace run --dynamic tpp`): its scan
//! revokes the slow pages with `mprotect` (a hinting fault each, as the kernel's `PROT_NONE`
//! entries give), its `move_pages` promotes and demotes, its low-memory trigger reads each
//! node's free memory against TPP's watermarks, and the reclaimer's referenced bits are the
//! runtime's revocations (a page not revoked since the reclaimer cleared its bit was accessed;
//! the bit costs the page one fault where the kernel reads the page-table entry for free).

use super::numab::linux_watermarks;
use super::tiering::{self, mark_accessed, Flags, Reclaim, Scanner};
use super::{Action, Applied, DynamicCaps, DynamicInfo, DynamicPolicy, Evidence, Observes, TierEvidence, Timer, Trigger, View, BOTH};
use crate::report::{Report, StatDecl};
use crate::spec::{ParamDecl, ParamKind, Resolved};
use crate::topology::Machine;
use crate::units::{NodeId, PageNo, Ps};
use crate::watermarks::Watermarks;

const PARAMS: &[ParamDecl] = &[
    tiering::SCAN_DELAY,
    tiering::SCAN_PERIOD,
    tiering::SCAN_SIZE,
    tiering::MAX_SCAN_RATE,
    ParamDecl { name: "demote_scale_factor", kind: ParamKind::Float { min: 0.0, max: 10000.0 }, default: "200", doc: "demotion watermark in 1/10000 of a fast node (TPP patch 2/5 vm.demote_scale_factor: 200, i.e. 2 %)" },
    tiering::FAULT_NS,
];

const OWN_STATS: &[StatDecl] = &[
    StatDecl { name: "promotions_deferred", unit: "pages", doc: "active slow pages not promoted because the fast node was below its high watermark" },
    StatDecl { name: "activations", unit: "pages", doc: "faulting slow pages that were only marked accessed (not active yet): TPP's hysteresis at work" },
    StatDecl { name: "thrash", unit: "pages", doc: "demoted pages that became promotion candidates again, once per demotion (TPP patch 1/5)" },
];

pub(super) const INFO: DynamicInfo = DynamicInfo {
    name: "tpp",
    doc: "TPP (ASPLOS'23): hint faults on slow pages, promotion of active-LRU pages only, demotion at a higher watermark so the fast tier keeps headroom",
    params: PARAMS,
    caps: DynamicCaps {
        observes: Observes::HintingFaults,
        drivers: BOTH,
        why_not: "",
        needs_program_calls: false,
        triggers: &[Trigger::Timer, Trigger::HintingFault, Trigger::LowMemory],
        stats: &[tiering::TIER_STATS, OWN_STATS],
    },
    build: |r, m, _| {
        tiering::require_tiers("tpp", m)?;
        Ok(Box::new(Tpp::new(r, m)))
    },
};

struct Tpp {
    scanner: Scanner,
    delay: Ps,
    fault_cost: Ps,
    demote_scale: f64,
    reclaim: Reclaim,
    deferred: u64,
    activations: u64,
    thrash: u64,
    /// What the last promotion and the last demotion pass weighed ([`DynamicPolicy::evidence`]).
    weighed: TierEvidence,
}

const PROMOTE: &str = "hint fault on an active slow page: promoted";
const DEMOTE: &str = "kswapd: cold page below TPP's demotion watermark";

impl Tpp {
    fn new(r: &Resolved, m: &Machine) -> Self {
        let (scanner, delay, fault_cost) = Scanner::from_params(r, m);
        Tpp {
            scanner,
            delay,
            fault_cost,
            demote_scale: r.float("demote_scale_factor"),
            reclaim: Reclaim::default(),
            deferred: 0,
            activations: 0,
            thrash: 0,
            weighed: TierEvidence::default(),
        }
    }
}

impl DynamicPolicy for Tpp {
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
        self.scanner.scan(view.homes.len() as u32, view.now)
    }

    fn on_fault(&mut self, view: &View<'_>, page: PageNo, node: NodeId) -> Option<Action> {
        if !tiering::on_slow_tier(view, page) || !view.machine.is_toptier(node) {
            return None;
        }
        let flags = &mut self.reclaim.flags_for(view.homes.len())[page.0 as usize];
        if *flags & Flags::ACTIVE == 0 {
            mark_accessed(flags);
            self.activations += 1;
            return None;
        }
        // A promotion candidate: one that was demoted before is thrashing (counted once per
        // demotion).
        if *flags & Flags::DEMOTED != 0 {
            self.thrash += 1;
            *flags &= !Flags::DEMOTED;
        }
        let w = linux_watermarks(view.machine, node.index());
        if view.free[node.index()] <= w.high + 1 {
            self.deferred += 1;
            return None;
        }
        self.weighed.promoted = Some(Evidence { measured: "free_pages", value: view.free[node.index()] as f64, threshold: "promote_above_free_pages", limit: (w.high + 1) as f64 });
        Some(Action::Migrate { page, to: node, reason: PROMOTE })
    }

    fn watermarks(&self, machine: &Machine, node: usize) -> Option<Watermarks> {
        let w = linux_watermarks(machine, node);
        let demote = (machine.capacity_pages[node] as f64 * self.demote_scale / 10000.0).ceil() as u64;
        // Never below where a promotion is deferred (free at most high + 1), which wakes
        // kswapd in Linux.
        let low = w.low.max(demote).max(w.high + 2);
        Some(Watermarks { min: w.min, low, high: w.high.max(low + (w.high - w.low)) })
    }

    fn on_low_memory(&mut self, view: &View<'_>, node: NodeId) -> Timer {
        if !view.machine.is_toptier(node) {
            return Timer::default();
        }
        let w = self.watermarks(view.machine, node.index()).expect("always some");
        let want = tiering::shortfall(view, node, w.high);
        self.weighed.demoting(view, node, w.high);
        self.reclaim.demote(view, node, want, want.saturating_mul(16) + 4096, DEMOTE)
    }

    fn evidence(&self, action: &Action) -> Option<Evidence> {
        self.weighed.of(action, PROMOTE, DEMOTE)
    }

    fn report(&self, applied: &Applied, out: &mut Report) {
        tiering::report_moves(applied, out);
        out.count("promotions_deferred", self.deferred);
        out.count("activations", self.activations);
        out.count("thrash", self.thrash);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamic::fixture::Fixture;

    fn tiered() -> Fixture {
        Fixture::tiered(vec![1; 8], vec![250, 500])
    }

    #[test]
    fn a_slow_page_is_promoted_on_the_fault_after_it_became_active() {
        let f = tiered();
        let mut p = f.policy("tpp");
        assert_eq!(p.on_fault(&f.view(), PageNo(2), NodeId(0)), None, "first fault: referenced");
        assert_eq!(p.on_fault(&f.view(), PageNo(2), NodeId(0)), None, "second: active");
        let a = p.on_fault(&f.view(), PageNo(2), NodeId(0)).unwrap();
        assert!(matches!(a, Action::Migrate { to: NodeId(0), .. }));
        let e = p.evidence(&a).unwrap();
        assert_eq!((e.measured, e.value, e.threshold), ("free_pages", 250.0, "promote_above_free_pages"));
        let mut out = Report::default();
        p.report(&Applied::default(), &mut out);
        assert_eq!(out.names().collect::<Vec<_>>(), ["promotions", "demotions", "promotion_failures", "background_ms", "promotions_deferred", "activations", "thrash"]);
    }

    #[test]
    fn demotion_starts_at_two_percent_and_counts_a_demoted_page_that_faults_again() {
        let mut f = tiered();
        let p = Tpp::new(&crate::dynamic::resolve(&crate::Spec::parse("tpp").unwrap()).unwrap().1, &f.machine);
        // 256 pages: 2 % is 6 pages (rounded up); Linux's own watermarks of so small a node
        // round to one page each, so the high–low gap adds nothing.
        assert_eq!(p.watermarks(&f.machine, 0), Some(Watermarks { min: 1, low: 6, high: 6 }));
        let mut p: Box<dyn DynamicPolicy> = Box::new(p);
        f.homes = vec![0; 8];
        f.free = vec![4, 500];
        let t = p.on_low_memory(&f.view(), NodeId(0));
        assert!(t.background);
        assert_eq!(t.actions.len(), 2, "from 4 free pages back to 6");
        // The demoted page 0, once on the slow node, faults until it is a promotion candidate
        // (inactive after its demotion: twice to become active, the third promotes): thrash,
        // once.
        f.homes[0] = 1;
        f.free = vec![250, 500];
        for _ in 0..4 {
            p.on_fault(&f.view(), PageNo(0), NodeId(0));
        }
        let mut out = Report::default();
        p.report(&Applied::default(), &mut out);
        assert_eq!(out.count_of("thrash"), 1);
    }
}
