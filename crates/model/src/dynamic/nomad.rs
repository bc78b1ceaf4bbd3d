//! `nomad`: NOMAD's non-exclusive tiering (Xiang et al., "Nomad: Non-Exclusive Memory Tiering
//! via Transactional Page Migration", OSDI'24; code lingfenghsiang/Nomad: the kernel patch
//! `src/implementation_patches/nomad.patch` on Linux 5.13-rc6 with TPP, and the module
//! `src/nomad_module/async_promote_main.c`).
//!
//! * **Sensing** is TPP's ([`super::tpp`]): NUMA balancing's hint faults on slow-tier pages
//!   and TPP's active-LRU hysteresis — a faulting inactive page is only marked accessed. The
//!   module's `decide_queue_page` judges a faulting page at later faults (up to
//!   `PG_FAULT_LOOKBACK_DIST` = 20 back) by its PTE's young bit and `PageActive`; the young bit
//!   is always set once the hint fault has restored the mapping (`do_numa_page`'s `out_map`),
//!   so the test is TPP's, and it is made here at the fault itself.
//! * **Asynchronous promotion**: the fault does not migrate. An active page is queued
//!   (`queue_pages_for_promotion`, a ring of `PROMOTE_QUEUE_LEN` = 512 tasks, a page queued at
//!   most once, `PagePromQueued`) and one worker (the unbound workqueue `async_promote`,
//!   `max_active` 1, `promote_work_handler`) takes what is queued and migrates it, which no
//!   application thread waits for. Here the worker is the policy's background timer, woken
//!   at every quantum boundary.
//! * **Transactional migration** (mm/migrate.c `nomad_copy_and_remap_page`): the page's PTE
//!   is cleaned (`nomad_clean_pte`), the page is copied while still mapped, and the remap
//!   (`nomad_remap_single_ref` in mm/rmap.c) commits only if the PTE is still clean; a dirty
//!   PTE keeps the old page (`-EAGAIN`) and `nomad_transit_pages` retries it, for at most 10
//!   passes. Here a batch's pages are copied one after another at the machine's copy
//!   bandwidth from the tick that starts it; page `i`'s transaction aborts if the page was
//!   stored to between the batch's start and the end of its own copy (the driver's earliest
//!   store time since the policy cleared it, [`View::written`]), and commits at the first tick
//!   after the batch's copies end, as a background migration.
//! * **Page shadowing**: a committed promotion keeps the old slow-tier frame as the page's
//!   shadow (`link_shadow_page`), which holds slow-tier capacity. The new PTE is
//!   write-protected (`remap_clean_page`, `_PAGE_BIT_ORIGINALLY_WRITABLE`), so the first store
//!   breaks the shadow (`do_wp_page` → `release_shadow_page`). Demoting a page whose shadow is
//!   intact only remaps it onto the shadow (`demote_shadow_page_find`,
//!   `demote_shadow_page_breakup`: no copy). When the demotion target has no free page,
//!   shadows are freed first, 10 at a time (mm/vmscan.c `alloc_demote_page` →
//!   `reclaim_shadow_page(node, 10)`, in the xarray's order: here page order).
//! * **Demotion**: TPP's kswapd at its demotion watermark (the NOMAD kernel carries TPP's
//!   patch, `vm.demote_scale_factor`).
//!
//! Simulator only: the runtime has neither the PTE dirty bit nor frames to keep.

use super::numab::linux_watermarks;
use super::tiering::{self, mark_accessed, Flags, Reclaim, Scanner};
use super::{Action, Applied, DynamicCaps, DynamicInfo, DynamicPolicy, Evidence, Observes, TierEvidence, Timer, Trigger, View, SIM_ONLY};
use crate::report::{Report, StatDecl};
use crate::spec::{ParamDecl, ParamKind, Resolved};
use crate::topology::Machine;
use crate::units::{NodeId, PageNo, Ps};
use crate::watermarks::Watermarks;
use std::collections::{BTreeMap, VecDeque};

const PARAMS: &[ParamDecl] = &[
    tiering::SCAN_DELAY,
    tiering::SCAN_PERIOD,
    tiering::SCAN_SIZE,
    tiering::MAX_SCAN_RATE,
    ParamDecl { name: "demote_scale_factor", kind: ParamKind::Float { min: 0.0, max: 10000.0 }, default: "200", doc: "demotion watermark in 1/10000 of a fast node (TPP's vm.demote_scale_factor, which the NOMAD kernel carries: nomad.patch Documentation/admin-guide/sysctl/vm.rst, 200 = 2 %)" },
    tiering::FAULT_NS,
    ParamDecl { name: "queue_len", kind: ParamKind::UInt { min: 1, max: 1 << 20 }, default: "512", doc: "promotion tasks queued or in flight at most; a fault finding the ring full queues nothing (async_promote_main.c PROMOTE_QUEUE_LEN = 1 << 9, queue_pages_for_promotion)" },
    ParamDecl { name: "passes", kind: ParamKind::UInt { min: 1, max: 1000 }, default: "10", doc: "transactions tried per queued page: an abort is retried until this many passes (mm/migrate.c nomad_transit_pages: pass < 10)" },
    ParamDecl { name: "shadow_reclaim", kind: ParamKind::UInt { min: 1, max: 1 << 20 }, default: "10", doc: "shadows freed at a time when a demotion finds its target full (mm/vmscan.c alloc_demote_page: reclaim_page(node, 10))" },
    ParamDecl { name: "shadowing", kind: ParamKind::Choice(&["on", "off"]), default: "on", doc: "keep a promoted page's slow-tier frame as its shadow (link_shadow_page); off: transactional migration alone (an ablation, not a configuration of the module)" },
];

const OWN_STATS: &[StatDecl] = &[
    StatDecl { name: "activations", unit: "pages", doc: "faulting slow pages that were only marked accessed (not active yet): TPP's hysteresis" },
    StatDecl { name: "thrash", unit: "pages", doc: "demoted pages that became promotion candidates again, once per demotion (TPP's count)" },
    StatDecl { name: "queued", unit: "pages", doc: "active slow pages queued for the promotion worker (queue_pages_for_promotion)" },
    StatDecl { name: "queue_full", unit: "pages", doc: "promotion candidates not queued: the ring held queue_len tasks" },
    StatDecl { name: "tx_commits", unit: "pages", doc: "transactions that committed: the page was clean at the end of its copy (transactional_migration_success)" },
    StatDecl { name: "tx_aborts", unit: "pages", doc: "transactions aborted: the page was stored to during its copy (transactional_migration_fail)" },
    StatDecl { name: "tx_retries", unit: "pages", doc: "aborted transactions tried again in a later pass (retry_nr)" },
    StatDecl { name: "tx_given_up", unit: "pages", doc: "pages whose every pass aborted, left on the slow tier (retreated_page_nr)" },
    StatDecl { name: "tx_nomem", unit: "pages", doc: "clean copies not committed: the fast node was at its min watermark (alloc_promote_page does not reclaim)" },
    StatDecl { name: "shadows_made", unit: "pages", doc: "promotions that kept the slow frame as a shadow (link_num)" },
    StatDecl { name: "shadow_demotions", unit: "pages", doc: "demotions onto an intact shadow: a remap, no copy (shadow_demote_num)" },
    StatDecl { name: "shadows_broken", unit: "pages", doc: "shadows freed because their page was stored to (do_wp_page, wp_num)" },
    StatDecl { name: "shadows_reclaimed", unit: "pages", doc: "shadows freed to make room on a full demotion target (batch_free_num)" },
    StatDecl { name: "shadows_held", unit: "pages", doc: "shadows held at the end of the run (xa_mapping_num)" },
];

pub(super) const INFO: DynamicInfo = DynamicInfo {
    name: "nomad",
    doc: "NOMAD (OSDI'24): TPP's hint faults, asynchronous transactional promotion (copy while mapped, commit if still clean, retry otherwise), promoted pages keep a slow-tier shadow that makes a clean demotion a remap",
    params: PARAMS,
    caps: DynamicCaps {
        observes: Observes::HintingFaults,
        drivers: SIM_ONLY,
        why_not: "NOMAD needs each page's store time during its copy (the PTE dirty bit) and keeps shadow frames, which user space cannot",
        needs_program_calls: false,
        triggers: &[Trigger::Timer, Trigger::HintingFault, Trigger::LowMemory],
        stats: &[tiering::TIER_STATS, OWN_STATS],
    },
    build: |r, m, _| {
        tiering::require_tiers("nomad", m)?;
        Ok(Box::new(Nomad::new(r, m)))
    },
};

const PROMOTE: &str = "promotion worker: transaction committed (page clean after its copy)";
const DEMOTE: &str = "kswapd: cold page below TPP's demotion watermark";
const DEMOTE_SHADOW: &str = "kswapd: cold page remapped onto its clean shadow";
const SHADOW: &str = "promotion keeps the slow frame as the page's shadow";
const BROKEN: &str = "a store broke the shadow";
const RECLAIM: &str = "demotion target full: shadows freed first";

/// Per page: queued for promotion or in flight (`PagePromQueued`).
const QUEUED: u8 = 1;

/// One page's transaction in the batch in flight.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Tx {
    page: u32,
    to: NodeId,
    /// When its copy ends.
    end: Ps,
    /// Passes tried before this one.
    pass: u32,
}

struct Nomad {
    scanner: Scanner,
    next_scan: Ps,
    fault_cost: Ps,
    demote_scale: f64,
    queue_len: usize,
    passes: u32,
    shadow_reclaim: u64,
    shadowing: bool,
    reclaim: Reclaim,
    /// [`QUEUED`] per page.
    state: Vec<u8>,
    queue: VecDeque<(u32, NodeId)>,
    batch: Vec<Tx>,
    /// The pages with a shadow and the shadow's node, in the order shadows are reclaimed.
    shadows: BTreeMap<u32, NodeId>,
    stats: Stats,
    weighed: TierEvidence,
}

#[derive(Clone, Copy, Debug, Default)]
struct Stats {
    activations: u64,
    thrash: u64,
    queued: u64,
    queue_full: u64,
    commits: u64,
    aborts: u64,
    retries: u64,
    given_up: u64,
    nomem: u64,
    made: u64,
    shadow_demotions: u64,
    broken: u64,
    reclaimed: u64,
}

impl Nomad {
    fn new(r: &Resolved, m: &Machine) -> Self {
        let (scanner, delay, fault_cost) = Scanner::from_params(r, m);
        Nomad {
            scanner,
            next_scan: delay.max(1),
            fault_cost,
            demote_scale: r.float("demote_scale_factor"),
            queue_len: r.uint("queue_len") as usize,
            passes: r.uint("passes") as u32,
            shadow_reclaim: r.uint("shadow_reclaim"),
            shadowing: r.choice("shadowing") == "on",
            reclaim: Reclaim::default(),
            state: Vec::new(),
            queue: VecDeque::new(),
            batch: Vec::new(),
            shadows: BTreeMap::new(),
            stats: Stats::default(),
            weighed: TierEvidence::default(),
        }
    }

    fn state_for(&mut self, pages: usize) -> &mut [u8] {
        if self.state.len() != pages {
            self.state = vec![0; pages];
        }
        &mut self.state
    }

    /// Whether `page` was stored to since the policy last cleared its store time.
    fn written(view: &View<'_>, page: u32) -> Ps {
        view.written.get(page as usize).copied().unwrap_or(Ps::MAX)
    }

    /// The shadows the machine can hold: its pages beyond the workload's footprint, so that a
    /// shadow never keeps a first touch from finding room (a choice: the kernel would reclaim
    /// or swap).
    fn spare(view: &View<'_>) -> u64 {
        view.machine.capacity_pages.iter().sum::<u64>().saturating_sub(view.homes.len() as u64)
    }

    /// Ends the batch in flight: each page commits (a background migration, keeping its shadow)
    /// or aborts (retried in the next batch, or given up after `passes`).
    fn commit(&mut self, view: &View<'_>, tick: &mut Timer, retry: &mut Vec<Tx>) {
        let mut free = view.free.to_vec();
        let spare = Self::spare(view);
        let mut nomem = false;
        for tx in std::mem::take(&mut self.batch) {
            let p = tx.page as usize;
            if !tiering::on_slow_tier(view, PageNo(tx.page)) {
                self.state[p] &= !QUEUED;
                continue;
            }
            let stored = Self::written(view, tx.page);
            if stored < tx.end {
                self.stats.aborts += 1;
                if tx.pass + 1 < self.passes {
                    self.stats.retries += 1;
                    retry.push(Tx { pass: tx.pass + 1, ..tx });
                } else {
                    self.stats.given_up += 1;
                    self.state[p] &= !QUEUED;
                }
                continue;
            }
            self.state[p] &= !QUEUED;
            // The new page was allocated without reclaim (alloc_promote_page): at the min
            // watermark the worker gives up on the rest of its list (-ENOMEM).
            let w = linux_watermarks(view.machine, tx.to.index());
            if nomem || free[tx.to.index()] <= w.min {
                nomem = true;
                self.stats.nomem += 1;
                continue;
            }
            free[tx.to.index()] -= 1;
            self.stats.commits += 1;
            let from = NodeId(view.homes[p]);
            // The copy ended before the page's first store since its clean-up (none: infinity).
            let first_store = if stored == Ps::MAX { f64::INFINITY } else { stored as f64 };
            self.weighed.promoted = Some(Evidence { measured: "copy_end_ps", value: tx.end as f64, threshold: "first_store_ps", limit: first_store });
            tick.actions.push(Action::Migrate { page: PageNo(tx.page), to: tx.to, reason: PROMOTE });
            tick.clear_written.push(tx.page);
            if !self.shadowing {
                continue;
            }
            if stored != Ps::MAX {
                // Stored to after its copy, before this tick's remap: the write-protected
                // PTE would have broken the shadow at once.
                self.stats.broken += 1;
            } else if (self.shadows.len() as u64) < spare {
                tick.actions.push(Action::Shadow { page: PageNo(tx.page), node: from, reason: SHADOW });
                self.shadows.insert(tx.page, from);
                self.stats.made += 1;
            }
        }
    }

    /// Starts a batch: the retried pages, then what is queued, copied one after another from
    /// now; their store times are cleared (`nomad_clean_pte`).
    fn start(&mut self, view: &View<'_>, tick: &mut Timer, retry: Vec<Tx>) {
        let copy = view.machine.page_move_cost_ps(0, false).max(1);
        let mut end = view.now;
        let queued = std::mem::take(&mut self.queue);
        let next = retry.into_iter().map(|t| (t.page, t.to, t.pass)).chain(queued.into_iter().map(|(p, to)| (p, to, 0)));
        for (page, to, pass) in next {
            if !tiering::on_slow_tier(view, PageNo(page)) {
                self.state[page as usize] &= !QUEUED;
                continue;
            }
            end = end.saturating_add(copy);
            self.batch.push(Tx { page, to, end, pass });
            tick.clear_written.push(page);
        }
    }

    /// Frees the shadows whose pages were stored to (what `do_wp_page` did at the store).
    fn sweep(&mut self, view: &View<'_>, tick: &mut Timer) {
        let broken: Vec<u32> = self.shadows.keys().copied().filter(|&p| Self::written(view, p) != Ps::MAX).collect();
        for p in broken {
            self.drop_shadow(p);
            self.stats.broken += 1;
            tick.actions.push(Action::Unshadow { page: PageNo(p), reason: BROKEN });
        }
    }

    fn drop_shadow(&mut self, page: u32) {
        self.shadows.remove(&page);
    }
}

impl DynamicPolicy for Nomad {
    fn counts(&self) -> bool {
        false
    }

    fn tracks_writes(&self) -> bool {
        true
    }

    fn timer_period(&self) -> Option<Ps> {
        Some(1)
    }

    fn fault_cost(&self) -> Ps {
        self.fault_cost
    }

    /// The promotion worker, at every quantum boundary, and the scanner when its window is due.
    fn on_timer(&mut self, view: &View<'_>) -> Timer {
        let pages = view.homes.len();
        self.state_for(pages);
        let mut tick = Timer { background: true, next_period: Some(1), ..Timer::default() };
        let mut retry = Vec::new();
        if !self.batch.is_empty() && self.batch.last().is_some_and(|t| t.end <= view.now) {
            self.commit(view, &mut tick, &mut retry);
        }
        if view.now >= self.next_scan {
            let scan = self.scanner.scan(pages as u32, view.now);
            tick.revoke = scan.revoke;
            tick.revoke_skip_toptier = scan.revoke_skip_toptier;
            self.next_scan = view.now.saturating_add(scan.next_period.unwrap_or(1).max(1));
            self.sweep(view, &mut tick);
        }
        if self.batch.is_empty() {
            self.start(view, &mut tick, retry);
        }
        tick
    }

    fn on_fault(&mut self, view: &View<'_>, page: PageNo, node: NodeId) -> Option<Action> {
        if !tiering::on_slow_tier(view, page) || !view.machine.is_toptier(node) {
            return None;
        }
        let pages = view.homes.len();
        let flags = &mut self.reclaim.flags_for(pages)[page.0 as usize];
        if *flags & Flags::ACTIVE == 0 {
            mark_accessed(flags);
            self.stats.activations += 1;
            return None;
        }
        if *flags & Flags::DEMOTED != 0 {
            self.stats.thrash += 1;
            *flags &= !Flags::DEMOTED;
        }
        let queue_len = self.queue_len;
        let in_ring = self.queue.len() + self.batch.len();
        let s = &mut self.state_for(pages)[page.0 as usize];
        if *s & QUEUED != 0 {
            return None;
        }
        if in_ring >= queue_len {
            self.stats.queue_full += 1;
            return None;
        }
        *s |= QUEUED;
        self.queue.push_back((page.0, node));
        self.stats.queued += 1;
        None
    }

    fn watermarks(&self, machine: &Machine, node: usize) -> Option<Watermarks> {
        // TPP's demotion watermark (tpp.rs).
        let w = linux_watermarks(machine, node);
        let demote = (machine.capacity_pages[node] as f64 * self.demote_scale / 10000.0).ceil() as u64;
        let low = w.low.max(demote).max(w.high + 2);
        Some(Watermarks { min: w.min, low, high: w.high.max(low + (w.high - w.low)) })
    }

    fn on_low_memory(&mut self, view: &View<'_>, node: NodeId) -> Timer {
        let Some(to) = view.machine.demotion[node.index()].filter(|_| view.machine.is_toptier(node)) else {
            return Timer::default();
        };
        self.state_for(view.homes.len());
        let w = self.watermarks(view.machine, node.index()).expect("always some");
        let want = tiering::shortfall(view, node, w.high);
        self.weighed.demoting(view, node, w.high);
        // Shadows on the target go first when it has no room for the demotions.
        let mut free = view.free.to_vec();
        let mut first = Vec::new();
        if want > free[to.index()] {
            let batches = (want - free[to.index()]).div_ceil(self.shadow_reclaim);
            let on_target: Vec<u32> = self.shadows.iter().filter(|(_, &n)| n == to).map(|(&p, _)| p).take((batches * self.shadow_reclaim) as usize).collect();
            for p in on_target {
                self.drop_shadow(p);
                self.stats.reclaimed += 1;
                free[to.index()] += 1;
                first.push(Action::Unshadow { page: PageNo(p), reason: RECLAIM });
            }
        }
        let adjusted = View { free: &free, ..*view };
        let mut tick = self.reclaim.demote(&adjusted, node, want, want.saturating_mul(16) + 4096, DEMOTE);
        for a in &mut tick.actions {
            let Action::Migrate { page, to, .. } = *a else { continue };
            let Some(&at) = self.shadows.get(&page.0) else { continue };
            self.drop_shadow(page.0);
            if at == to && Self::written(view, page.0) == Ps::MAX {
                self.stats.shadow_demotions += 1;
                *a = Action::Remap { page, to, reason: DEMOTE_SHADOW };
            } else {
                // The store broke the shadow; the demotion copies.
                self.stats.broken += 1;
            }
        }
        first.append(&mut tick.actions);
        tick.actions = first;
        tick
    }

    fn evidence(&self, action: &Action) -> Option<Evidence> {
        match action {
            Action::Remap { .. } => self.weighed.demoted,
            a => self.weighed.of(a, PROMOTE, DEMOTE),
        }
    }

    fn report(&self, applied: &Applied, out: &mut Report) {
        let s = &self.stats;
        tiering::report_moves(applied, out);
        out.count("activations", s.activations);
        out.count("thrash", s.thrash);
        out.count("queued", s.queued);
        out.count("queue_full", s.queue_full);
        out.count("tx_commits", s.commits);
        out.count("tx_aborts", s.aborts);
        out.count("tx_retries", s.retries);
        out.count("tx_given_up", s.given_up);
        out.count("tx_nomem", s.nomem);
        out.count("shadows_made", s.made);
        out.count("shadow_demotions", s.shadow_demotions);
        out.count("shadows_broken", s.broken);
        out.count("shadows_reclaimed", s.reclaimed);
        out.count("shadows_held", self.shadows.len() as u64);
    }
}

#[cfg(test)]
#[path = "nomad_tests.rs"]
mod tests;
