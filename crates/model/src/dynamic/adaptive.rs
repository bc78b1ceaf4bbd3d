//! `adaptive`: numaplace's policy for a user who knows nothing about the program. It migrates
//! from per-page counters like UPMlib, but every move passes the cost-aware [`Gate`] (on by
//! default), and it sets its own pace and threshold instead of asking for them:
//!
//! * **Windows.** In the simulator it decides at iteration ends when the program has them,
//!   and otherwise every `period`; once an iteration end has been seen, timer ticks let the
//!   iterations rule, and the stability history of the timer's windows is forgotten. Under
//!   the runtime, which runs a policy with a timer as timer ticks, its timer thread and the
//!   program's `numaplace_migrate()` calls both end a window.
//! * **Period.** In timer mode the period doubles (up to `max_period_ms`) after a window that
//!   moved nothing, and halves (down to `min_period_ms`) after one that moved at least 1 % of
//!   the pages it saw accessed, as Linux's NUMA balancing lengthens its scan period while
//!   placement holds (`update_task_scan_period`, kernel/sched/fair.c).
//! * **Threshold.** A page is a candidate when its busiest node's count exceeds the home
//!   node's times a competitive ratio that starts at UPMlib's 2. When a window sees a moved
//!   page asked back to where it came from (a bounce: page-level false sharing or a phase
//!   change), the ratio doubles (at most 16), and a page that bounces twice is frozen; a
//!   window with moves and no bounce halves it again (at least 2).
//!
//! Every choice here is numaplace's, not a seed's; docs/timing.md ("Cost-aware decisions")
//! gives the reasoning.

use super::cost::{self, Evidence, Gate, Payer, Verdict};
use crate::report::Report;
use super::{Action, DynamicCaps, DynamicInfo, DynamicPolicy, Observes, Timer, View, BOTH, Trigger, Applied, FROZEN_PAGES};
use crate::spec::{ParamDecl, ParamKind, Resolved};
use crate::units::{NodeId, PageNo, Ps};
use std::collections::{HashMap, HashSet};

const ADAPTIVE_PARAMS: &[ParamDecl] = &[
    ParamDecl {
        name: "min_period_ms",
        kind: ParamKind::Float { min: 0.001, max: 1e7 },
        default: "1",
        doc: "shortest window in timer mode (choice: a few times a page migration's cost on every preset)",
    },
    ParamDecl {
        name: "max_period_ms",
        kind: ParamKind::Float { min: 0.001, max: 1e7 },
        default: "1000",
        doc: "longest window in timer mode (choice: Linux's shortest NUMA scan period, numa_balancing_scan_period_min_ms)",
    },
    cost::param("on"),
];

pub(super) const INFO: DynamicInfo = DynamicInfo {
    name: "adaptive",
    doc: "cost-aware migration that sets its own period and threshold: decides at iteration ends or on an adaptive timer, backs off pages that bounce (numaplace's own)",
    params: ADAPTIVE_PARAMS,
    caps: DynamicCaps { observes: Observes::Counters, drivers: BOTH, why_not: "", needs_program_calls: false, triggers: &[Trigger::IterationEnd, Trigger::Timer], stats: &[&[FROZEN_PAGES], cost::GATE_STATS] },
    build: |r, _, threads| Ok(Box::new(Adaptive::new(r, threads))),
};

/// The competitive ratio it starts from, and the least it lowers it to: UPMlib's (seed 000
/// §3.2, `upmlib`'s `threshold` default).
const START_RATIO: f64 = 2.0;

/// The largest competitive ratio the bounces may raise the threshold to.
const MAX_RATIO: f64 = 16.0;

/// A window that moves at least this share of the pages it saw accessed halves the period.
const BUSY_SHARE: f64 = 0.01;

struct Adaptive {
    min: Ps,
    max: Ps,
    period: Ps,
    ratio: f64,
    gate: Gate,
    /// When the previous decision was taken (the start of the current window).
    last: Option<Ps>,
    /// Whether the program has shown an iteration end.
    iterations: bool,
    /// Last move of each page: (from, to).
    moved: HashMap<u32, (u8, u8)>,
    bounced: HashSet<u32>,
    frozen: HashSet<u32>,
}

impl Adaptive {
    fn new(r: &Resolved, threads: usize) -> Self {
        let min = ((r.float("min_period_ms") * 1e9) as Ps).max(1);
        let max = ((r.float("max_period_ms") * 1e9) as Ps).max(min);
        Adaptive {
            min,
            max,
            period: min,
            ratio: START_RATIO,
            gate: Gate::new(r, threads, Payer::EveryThread),
            last: None,
            iterations: false,
            moved: HashMap::new(),
            bounced: HashSet::new(),
            frozen: HashSet::new(),
        }
    }

    /// One window's decisions; returns the actions and how many pages it saw accessed.
    fn decide(&mut self, view: &View<'_>) -> (Vec<Action>, usize) {
        let window = view.now.saturating_sub(self.last.unwrap_or(view.started)).max(1);
        self.last = Some(view.now);
        if let Some(back) = self.gate.audit(view) {
            return (back, 0);
        }
        let nodes = view.machine.nodes();
        self.gate.begin_window(view, window, 1.0);
        let (mut seen, mut bounces) = (0usize, 0u32);
        let mut proposed = Vec::new();
        for (page, &home) in view.homes.iter().enumerate() {
            if home as usize >= nodes || self.frozen.contains(&(page as u32)) {
                continue;
            }
            let p = PageNo(page as u32);
            let (best, count) = view.counters.busiest(p);
            if count == 0 {
                continue;
            }
            seen += 1;
            let local = view.counters.get(p.0, home as usize);
            if best.0 == home || count as f64 <= self.ratio * local as f64 {
                self.gate.note(p, best);
                continue;
            }
            if let Some(&(from, to)) = self.moved.get(&p.0) {
                if from == best.0 && to == home {
                    bounces += 1;
                    if !self.bounced.insert(p.0) {
                        self.frozen.insert(p.0);
                        continue;
                    }
                }
            }
            proposed.push((p, NodeId(home), best));
        }
        // The window's moves are one batch sharing one TLB shootdown: weighed together first.
        let ev = |p: PageNo| Evidence { counts: view.counters.row(p), scale: 1.0, window };
        let surplus = proposed.iter().map(|&(p, home, to)| self.gate.surplus(view, p, home, to, ev(p), 0)).sum();
        self.gate.share_shootdown(view, surplus);
        let mut out = Vec::new();
        // Free frames per node as the window's moves use and free them; a move into a full
        // node waits for an exchange ([`Adaptive::exchange`]).
        let mut free: Vec<i64> = view.free.iter().map(|&f| f as i64).collect();
        let mut full = Vec::new();
        for (p, home, to) in proposed {
            if free.get(to.index()).is_some_and(|&f| f <= 0) {
                full.push((p, home, to));
                continue;
            }
            if self.gate.judge(view, p, home, to, ev(p), 0) == Verdict::Move {
                self.moved.insert(p.0, (home.0, to.0));
                free[to.index()] -= 1;
                free[home.index()] += 1;
                out.push(Action::Migrate { page: p, to, reason: MOVE });
            }
        }
        if !full.is_empty() {
            self.exchange(view, window, full, &mut free, &mut out);
        }
        if bounces > 0 {
            self.ratio = (self.ratio * 2.0).min(MAX_RATIO);
        } else if !out.is_empty() {
            self.ratio = (self.ratio / 2.0).max(START_RATIO);
        }
        (out, seen)
    }

    /// The window's moves into full nodes (a tiered machine's fast tier, once first touch or
    /// the policy filled it): hottest first, each as an exchange with the coldest page at its
    /// target not already moving, which goes first to the target's demotion node (the nearest
    /// slower tier, `Machine::demotion`) or else to the nearest node with room. The gate
    /// judges the hot page's move with the victim's move and its expected loss
    /// ([`Gate::eviction_loss`]) as extra cost, so an exchange is made only when the pair
    /// gains more than both moves cost; a victim is never as hot as the page it makes room
    /// for. On machines whose nodes never fill (every NUMA preset with the seeds' workloads)
    /// this is never called.
    fn exchange(&mut self, view: &View<'_>, window: Ps, mut full: Vec<(PageNo, NodeId, NodeId)>, free: &mut [i64], out: &mut Vec<Action>) {
        let total = |p: u32| view.counters.row(PageNo(p)).iter().map(|&c| c as u64).sum::<u64>();
        full.sort_by_key(|&(p, _, _)| (std::cmp::Reverse(total(p.0)), p.0));
        let busy: HashSet<u32> = full.iter().map(|&(p, _, _)| p.0).chain(out.iter().filter_map(|a| match a {
            Action::Migrate { page, .. } => Some(page.0),
            _ => None,
        }))
        .collect();
        // Per full node, its pages coldest last (popped first), built when first needed.
        let mut victims: HashMap<u8, Vec<(u64, u32)>> = HashMap::new();
        for (p, home, to) in full {
            let m = view.machine;
            let room = |n: &NodeId, free: &[i64]| *n != to && free[n.index()] > 0;
            let Some(d) = m.demotion[to.index()].filter(|d| room(d, free)).or_else(|| m.nearest[to.index()].iter().copied().find(|n| room(n, free))) else {
                continue;
            };
            let cold = victims.entry(to.0).or_insert_with(|| {
                let mut v: Vec<(u64, u32)> = (0..view.homes.len() as u32)
                    .filter(|&q| view.homes[q as usize] == to.0 && !busy.contains(&q) && !self.frozen.contains(&q))
                    .map(|q| (total(q), q))
                    .collect();
                v.sort_unstable_by(|a, b| b.cmp(a));
                v
            });
            let Some(&(_, v)) = cold.last().filter(|&&(heat, _)| heat < total(p.0)) else { continue };
            let ev = |q: u32| Evidence { counts: view.counters.row(PageNo(q)), scale: 1.0, window };
            let extra = m.migration_cost_ps(0).saturating_add(self.gate.eviction_loss(view, to, d, ev(v)));
            if self.gate.judge(view, p, home, to, ev(p.0), extra) != Verdict::Move {
                continue;
            }
            cold.pop();
            free[d.index()] -= 1;
            free[home.index()] += 1;
            self.moved.insert(v, (to.0, d.0));
            self.moved.insert(p.0, (home.0, to.0));
            out.push(Action::Migrate { page: PageNo(v), to: d, reason: EVICT });
            out.push(Action::Migrate { page: p, to, reason: MOVE });
        }
    }
}

/// Why `adaptive` moves a page: its own accesses, or room for a hotter one.
const MOVE: &str = "adaptive: expected benefit exceeds cost";
const EVICT: &str = "adaptive: makes room for a hotter page (exchange)";

impl DynamicPolicy for Adaptive {
    /// Once its gate withdraws, nothing is counted, except while the windows are the timer's:
    /// the first iteration end lifts a withdrawal made on timer windows (`Gate::forget`), and
    /// its look needs the counts of the window it ends (uncounted, that look saw no page and
    /// the first moves came an iteration later: Ocean-Contig from worst-case).
    fn counts(&self) -> bool {
        !self.gate.withdrawn() || !self.iterations
    }

    fn decides_at_iteration_end(&self) -> bool {
        true
    }

    fn reset_after_iteration(&self) -> bool {
        true
    }

    fn on_iteration_end(&mut self, view: &View<'_>, _iteration: u32) -> Vec<Action> {
        if !self.iterations {
            // The windows change kind: what the timer's windows showed of each page's target
            // is no evidence of its stability from one iteration to the next, nor their time
            // per line a baseline for the iterations' (the gate's audit starts again).
            self.gate.forget(view);
            self.iterations = true;
        }
        self.decide(view).0
    }

    fn timer_period(&self) -> Option<Ps> {
        Some(self.min)
    }

    fn on_timer(&mut self, view: &View<'_>) -> Timer {
        if self.iterations {
            // The program's iterations are the windows; let the tick pass, slowly.
            return Timer { next_period: Some(self.max), ..Timer::default() };
        }
        let (actions, seen) = self.decide(view);
        self.period = if actions.is_empty() {
            self.period.saturating_mul(2).min(self.max)
        } else if actions.len() as f64 >= BUSY_SHARE * seen as f64 {
            (self.period / 2).max(self.min)
        } else {
            self.period
        };
        Timer { reset: true, actions, next_period: Some(self.period), ..Timer::default() }
    }

    fn report(&self, _applied: &Applied, out: &mut Report) {
        out.count(FROZEN_PAGES.name, self.frozen.len() as u64);
        self.gate.refused.report(out);
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture::Fixture;
    use super::*;

    /// Remote accesses to page 0 (at home on node 1) from node 0, where the fixture's two
    /// threads run: enough that two windows pay for a move.
    fn busy(f: &mut Fixture) {
        f.homes = vec![1];
        f.counters.reset_all();
        f.counters.add(0, 0, 60_000);
    }

    #[test]
    fn a_stable_remote_page_moves_at_its_second_window() {
        let mut f = Fixture::new(1);
        let mut a = f.policy("adaptive");
        let w = 10_000_000_000; // 10 ms iterations
        f.now = w;
        busy(&mut f);
        assert_eq!(a.on_iteration_end(&f.view(), 1), Vec::new(), "first sight: no history");
        f.now = 2 * w;
        busy(&mut f);
        assert_eq!(a.on_iteration_end(&f.view(), 2), vec![Action::Migrate { page: PageNo(0), to: NodeId(0), reason: "adaptive: expected benefit exceeds cost" }]);
        let mut out = crate::report::Report::default();
        a.report(&Applied::default(), &mut out);
        assert_eq!((out.count_of("refused_unstable"), out.count_of("refused_costly"), out.count_of("frozen_pages")), (1, 0, 0));
    }

    #[test]
    fn a_page_whose_accessor_changes_every_window_never_moves() {
        let mut f = Fixture::new(1);
        f.homes = vec![1];
        let mut a = f.policy("adaptive");
        for k in 1..40u64 {
            f.now = k * 10_000_000_000;
            f.counters.reset_all();
            // Busiest alternately node 1 (home: no move wanted) and node 0.
            let node = (k % 2) as usize;
            f.counters.add(0, node, 60_000);
            assert_eq!(a.on_iteration_end(&f.view(), k as u32), Vec::new(), "window {k}");
        }
    }

    /// Two windows of the tiered fixture with the fast node 0 full: page 0, on the slow node,
    /// read 60,000 lines a window by node 0's threads; pages 1 and 2 on node 0, read `warm`
    /// and `cold` lines. What the second window does.
    fn full_fast_tier(warm: u64, cold: u64) -> Vec<Action> {
        let mut f = Fixture::tiered(vec![1, 0, 0], vec![0, 10]);
        let mut a = f.policy("adaptive");
        let w = 10_000_000_000; // 10 ms iterations
        let mut out = Vec::new();
        for k in 1..=2u32 {
            f.now = k as Ps * w;
            f.counters.reset_all();
            f.counters.add(0, 0, 60_000);
            f.counters.add(1, 0, warm);
            f.counters.add(2, 0, cold);
            out = a.on_iteration_end(&f.view(), k);
        }
        out
    }

    #[test]
    fn on_a_full_fast_tier_a_hot_page_is_exchanged_with_the_coldest() {
        assert_eq!(
            full_fast_tier(500, 3),
            vec![Action::Migrate { page: PageNo(2), to: NodeId(1), reason: EVICT }, Action::Migrate { page: PageNo(0), to: NodeId(0), reason: MOVE }],
            "the coldest page makes room, first"
        );
        // No page on the fast tier is colder than the candidate: nothing moves.
        assert_eq!(full_fast_tier(60_000, 60_000), Vec::new());
        // A victim that loses about as much as the candidate gains: the pair does not pay.
        assert_eq!(full_fast_tier(59_999, 59_999), Vec::new());
    }

    #[test]
    fn a_withdrawal_on_timer_windows_keeps_counting_for_the_first_iteration_end() {
        let mut f = Fixture::new(1);
        let mut a = f.policy("adaptive");
        let w = 10_000_000_000; // 10 ms windows
        let lines = 100_000;
        for k in 1..=2u64 {
            f.now = k * w;
            f.done = k * lines;
            busy(&mut f);
            let t = a.on_timer(&f.view());
            assert_eq!(t.actions.len() as u64, k - 1, "window {k}: look, then move");
        }
        f.homes = vec![0];
        // The next two windows' lines take three times as long (as many lines as the two
        // before the move, the audit's baseline): the move is withdrawn and undone.
        for _ in 0..2 {
            f.now += 3 * w;
            f.done += lines;
            busy(&mut f);
            f.homes = vec![0];
        }
        let t = a.on_timer(&f.view());
        assert_eq!(t.actions, vec![Action::Migrate { page: PageNo(0), to: NodeId(1), reason: "measured payback: moved back" }]);
        assert!(a.counts(), "counted until the first iteration end, which may lift the withdrawal");
        a.on_iteration_end(&f.view(), 1);
        assert!(a.counts());
    }

    #[test]
    fn the_timer_backs_off_while_nothing_moves_and_yields_to_iterations() {
        let mut f = Fixture::new(1);
        let mut a = f.policy("adaptive");
        let min = a.timer_period().unwrap();
        f.now = min;
        let t = a.on_timer(&f.view());
        assert!(t.actions.is_empty() && t.reset);
        assert_eq!(t.next_period, Some(2 * min));
        a.on_iteration_end(&f.view(), 1);
        let t = a.on_timer(&f.view());
        assert!(!t.reset && t.actions.is_empty(), "iterations rule once seen");
    }
}
