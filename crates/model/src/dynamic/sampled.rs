//! `sampled`: seed 003's profile-driven migration (seed 003 §3, §4.1, §5). The driver samples
//! transactions into per-page, per-node sample counts: by default as seed 003's bus analyser
//! does (§2.2: one sampler over the address bus, every N-th transaction of all threads
//! interleaved, each sample the next 8 consecutive transactions; `sampler=bus`), or each
//! thread's every N-th (`sampler=per-thread`, a per-CPU counter);
//! every period a migration thread moves pages to the node with the most samples and freezes
//! pages that moved recently.

use super::cost::{self, Evidence, Gate, Payer, Verdict};
use crate::report::Report;
use super::{Action, DynamicCaps, DynamicInfo, DynamicPolicy, Observes, Sampling, Timer, View, BOTH, Trigger, Applied, FROZEN_PAGES};
use crate::spec::{ParamDecl, ParamKind, Resolved};
use crate::units::{NodeId, PageNo, Ps};

const SAMPLED_PARAMS: &[ParamDecl] = &[
    ParamDecl {
        name: "mode",
        kind: ParamKind::Choice(&["interval", "max-rate"]),
        default: "interval",
        doc: "sample every N-th transaction, or at most R samples per second (seed 003 §4.1)",
    },
    ParamDecl { name: "interval", kind: ParamKind::COUNT, default: "1024", doc: "N: every N-th transaction (seed 003 §5 samples every 1024)" },
    ParamDecl {
        name: "sampler",
        kind: ParamKind::Choice(&["bus", "per-thread"]),
        default: "bus",
        doc: "bus (seed 003 §2.2, the default): one counter over the machine's address bus, the transactions of all threads in simulated time order, each sample the next `burst` consecutive transactions (the bus analyser's 8-deep FIFO); per-thread: each thread's own countdown, one transaction per sample (a per-CPU counter, as other machines have)",
    },
    ParamDecl { name: "burst", kind: ParamKind::COUNT, default: "8", doc: "bus sampler: consecutive transactions a sample records (seed 003 §2.2: \"an 8-deep FIFO that records a limited sequence of consecutive interconnect address transactions\"; Table 1's % sampled is 8/N)" },
    ParamDecl {
        name: "poll_gap",
        kind: ParamKind::Float { min: 1.0, max: 1e12 },
        default: "82.05",
        doc: "bus sampler, interval mode: the software takes a burst at most every G transactions (seed 003 Table 1: 9.75 % sampled at 1 in 64 where 8/64 is 12.5 %: G = 8 / 0.0975; at 256 and above the interval is longer and decides)",
    },
    ParamDecl {
        name: "max_rate_gap",
        kind: ParamKind::Float { min: 1.0, max: 1e12 },
        default: "45.56",
        doc: "bus sampler, max-rate mode: a burst every G transactions, as fast as the software reads (seed 003 Table 1: 17.56 % sampled: G = 8 / 0.1756)",
    },
    ParamDecl {
        name: "max_rate",
        kind: ParamKind::Float { min: 1.0, max: 1e12 },
        default: "100000",
        doc: "R: samples per second in max-rate mode (assumption: what the bus analyzer's software could read)",
    },
    ParamDecl {
        name: "period_ms",
        kind: ParamKind::Float { min: 0.001, max: 1e7 },
        default: "auto",
        doc: "T: migration interval in ms; auto (the default): seed 003 §5's 5 s scaled to the run, ending an interval once the samples taken in it reach samples_per_page per placed page",
    },
    ParamDecl {
        name: "samples_per_page",
        kind: ParamKind::Float { min: 0.001, max: 1e6 },
        default: "1.8",
        doc: "with period_ms=auto: samples per placed page that end an interval, a bus sample counting as one however many transactions its burst holds (seed 003's 5 s intervals held 0.4 to 8.7 samples per page, median 1.8: Tables 4 and 6 with the NPB class B/C footprints, docs/timing.md; with the bus sampler that is 14.4 sampled transactions, 8 a sample)",
    },
    ParamDecl { name: "freeze", kind: ParamKind::COUNT, default: "3", doc: "F: the freeze's intervals (seed 003 §3: \"we freeze memory pages that have been migrated recently for a fixed number of page migration iterations (We currently freeze a page if it migrated during the last 3 consecutive intervals)\")" },
    ParamDecl {
        name: "freeze_mode",
        kind: ParamKind::Choice(&["temporary", "permanent"]),
        default: "temporary",
        doc: "temporary (seed 003 §3 as written): a page that migrated in any of the last F intervals is not a candidate; permanent (this project's earlier reading): a page that migrated in each of the last F intervals never moves again",
    },
    cost::COST_AWARE,
];

pub(super) const INFO: DynamicInfo = DynamicInfo {
    name: "sampled",
    doc: "profile-driven migration from sampled transactions, every period, with freezing (seed 003 §3)",
    params: SAMPLED_PARAMS,
    caps: DynamicCaps { observes: Observes::Samples, drivers: BOTH, why_not: "", needs_program_calls: false, triggers: &[Trigger::Timer], stats: &[&[FROZEN_PAGES], cost::GATE_STATS] },
    build: |r, _, threads| Ok(Box::new(Sampled::new(r, threads))),
};

/// With `period_ms=auto`, how often the migration thread looks at the sample count (it runs
/// on its own CPU, seed 003 §3, so looking costs the application nothing).
const SAMPLED_CHECK_PS: Ps = 10_000_000_000;

/// Seed 003's engine: a profiler samples transactions into per-page, per-node sample counts;
/// every period a migration thread stops the application, moves every page to the node with
/// the most samples (no minimum count, seed 003 §3), skips pages the freeze holds, and clears
/// the samples. The freeze (§3): "we freeze memory pages that have been migrated recently for a
/// fixed number of page migration iterations (We currently freeze a page if it migrated during
/// the last 3 consecutive intervals)" — read as written (`freeze_mode=temporary`), a page that
/// migrated in any of the last `freeze` intervals is not a candidate, and may move again after;
/// `freeze_mode=permanent` keeps the earlier reading, a page that migrated in each of the last
/// `freeze` intervals frozen for good.
///
/// The period: seed 003 §5 uses T = 5 s on runs of 31 s to 65 min and found 1 s to 50 s
/// equally good. Our runs are 10 to 1000 times shorter and sample at different rates, so a
/// fixed T cannot carry over; what does carry over is what a period holds. With
/// `period_ms=auto` an interval ends once the samples taken in it reach `samples_per_page` per
/// placed page (checked every 10 ms of simulated time); a number fixes T instead.
///
/// With `cost_aware=on` each move must also pass the [`Gate`]: the window is the interval just
/// ended, and a sample stands for `interval` transactions (in max-rate mode for one: the rate
/// hides how many it stands for, so the benefit is a lower bound there).
struct Sampled {
    sampling: Sampling,
    /// `None`: adaptive (`period_ms=auto`).
    period: Option<Ps>,
    per_page: f64,
    freeze: u32,
    /// `freeze_mode=permanent`.
    permanent: bool,
    tick: u32,
    /// Per page that has migrated: the consecutive intervals (ending at `tick`) it moved in.
    streak: std::collections::HashMap<u32, (u32, u32)>,
    /// Permanent: the pages frozen for good. Temporary: the pages the freeze held back at least
    /// once (what `frozen_pages` reports).
    frozen: std::collections::HashSet<u32>,
    gate: Gate,
    /// When the previous interval ended.
    last: Option<Ps>,
}

impl Sampled {
    fn new(r: &Resolved, threads: usize) -> Self {
        Sampled {
            sampling: match (r.choice("sampler"), r.choice("mode")) {
                ("bus", "max-rate") => Sampling::Bus { burst: r.uint("burst").max(1) as u32, spacing: r.float("max_rate_gap") },
                ("bus", _) => Sampling::Bus {
                    burst: r.uint("burst").max(1) as u32,
                    spacing: (r.uint("interval").max(1) as f64).max(r.float("poll_gap")),
                },
                (_, "max-rate") => Sampling::MaxRate(r.float("max_rate")),
                _ => Sampling::Interval(r.uint("interval").max(1)),
            },
            period: (!r.is_auto("period_ms")).then(|| ((r.float("period_ms") * 1e9) as Ps).max(1)),
            per_page: r.float("samples_per_page"),
            freeze: r.uint("freeze") as u32,
            permanent: r.choice("freeze_mode") == "permanent",
            tick: 0,
            streak: std::collections::HashMap::new(),
            frozen: std::collections::HashSet::new(),
            gate: Gate::new(r, threads, Payer::EveryThread),
            last: None,
        }
    }
}

impl DynamicPolicy for Sampled {
    fn sampling(&self) -> Option<Sampling> {
        Some(self.sampling)
    }

    fn timer_period(&self) -> Option<Ps> {
        Some(self.period.unwrap_or(SAMPLED_CHECK_PS))
    }

    fn on_timer(&mut self, view: &View<'_>) -> Timer {
        let nodes = view.machine.nodes();
        // The gate measures its moves at every look, also between the intervals that act:
        // an adaptive interval may last many looks.
        if let Some(actions) = self.gate.audit(view) {
            // Moves back are made at once; the counters (samples) are left as they are.
            return Timer { actions, ..Timer::default() };
        }
        if self.period.is_none() {
            // Adaptive period: act only once the interval holds enough samples.
            let placed = view.homes.iter().filter(|&&h| (h as usize) < nodes).count() as f64;
            let taken = view.counters.total();
            // Samples, not transactions: the simulator's bus sampler adds a burst of
            // transactions to the counters a sample (`View::bursts`); the runtime's samplers
            // (precise samples, hinting faults) one address each.
            let per_sample = match self.sampling {
                Sampling::Bus { burst, .. } if view.bursts => burst as f64,
                _ => 1.0,
            };
            if placed == 0.0 || (taken as f64) < self.per_page * per_sample * placed {
                return Timer::default();
            }
        }
        self.tick += 1;
        let window = view.now.saturating_sub(self.last.unwrap_or(view.started)).max(1);
        self.last = Some(view.now);
        let scale = match self.sampling {
            Sampling::Interval(n) => n as f64,
            Sampling::MaxRate(_) => 1.0,
            // A sampled transaction stands for `spacing / burst` of the bus's.
            Sampling::Bus { burst, spacing } => spacing / burst as f64,
        };
        let mut actions = Vec::new();
        self.gate.begin_window(view, window, scale);
        for (page, &home) in view.homes.iter().enumerate() {
            if home as usize >= nodes || (self.permanent && self.frozen.contains(&(page as u32))) {
                continue;
            }
            let p = PageNo(page as u32);
            let (best, count) = view.counters.busiest(p);
            if count == 0 {
                continue;
            }
            if best.0 == home || count <= view.counters.get(p.0, home as usize) {
                self.gate.note(p, best);
                continue;
            }
            let previous = self.streak.get(&p.0).copied();
            // Temporary freeze: moved in one of the last `freeze` intervals (this is `tick`).
            if !self.permanent && previous.is_some_and(|(last, _)| self.tick - last <= self.freeze) {
                self.frozen.insert(p.0);
                continue;
            }
            let ev = Evidence { counts: view.counters.row(p), scale, window };
            if self.gate.judge(view, p, NodeId(home), best, ev, 0) != Verdict::Move {
                continue;
            }
            let run = match previous {
                Some((last, n)) if last + 1 == self.tick => n + 1,
                _ => 1,
            };
            self.streak.insert(p.0, (self.tick, run));
            if self.permanent && self.freeze > 0 && run >= self.freeze {
                self.frozen.insert(p.0);
            }
            actions.push(Action::Migrate { page: p, to: best, reason: "most samples in the interval" });
        }
        Timer { reset: true, actions, ..Timer::default() }
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
    use crate::units::NodeId;

    #[test]
    fn the_bus_sampler_is_the_default_and_the_polling_limit_bounds_its_rate() {
        let f = Fixture::new(1);
        assert_eq!(f.policy("sampled:interval=64").sampling(), Some(Sampling::Bus { burst: 8, spacing: 82.05 }));
        assert_eq!(f.policy("sampled:interval=4096").sampling(), Some(Sampling::Bus { burst: 8, spacing: 4096.0 }));
        assert_eq!(f.policy("sampled:mode=max-rate").sampling(), Some(Sampling::Bus { burst: 8, spacing: 45.56 }));
        assert_eq!(f.policy("sampled:sampler=per-thread").sampling(), Some(Sampling::Interval(1024)));
    }

    #[test]
    fn a_temporary_freeze_holds_a_page_for_its_intervals_then_lets_it_move() {
        let mut f = Fixture::new(1);
        let mut s = f.policy("sampled:period_ms=1");
        f.counters.add(0, 1, 3);
        // Moved in interval 1 (the page stays at home in this fixture, so it asks again):
        // held in 2, 3 and 4 (it moved within the last three), free to move in 5, held after.
        let acted: Vec<bool> = (1..=9).map(|_| !s.on_timer(&f.view()).actions.is_empty()).collect();
        assert_eq!(acted, [true, false, false, false, true, false, false, false, true]);
        let mut out = crate::report::Report::default();
        s.report(&Applied::default(), &mut out);
        assert_eq!(out.count_of("frozen_pages"), 1, "held back at least once");
    }

    #[test]
    fn the_automatic_interval_counts_samples_whether_a_sample_adds_a_burst_or_one() {
        // One placed page at 2 samples a page: the simulator's bus sampler adds 8 counts a
        // sample, so 15 counts are under 2 samples and 16 are 2; a runtime sampler adds one a
        // sample, so 2 counts are 2.
        let acts = |bursts: bool, counts: u64| {
            let mut f = Fixture::new(1);
            f.bursts = bursts;
            f.counters.add(0, 1, counts);
            !f.policy("sampled:samples_per_page=2").on_timer(&f.view()).actions.is_empty()
        };
        assert!(!acts(true, 15) && acts(true, 16));
        assert!(!acts(false, 1) && acts(false, 2));
    }

    #[test]
    fn moves_to_the_most_sampled_node_and_freezes_a_page_that_keeps_moving() {
        let mut f = Fixture::new(1);
        let mut s = f.policy("sampled:period_ms=1,freeze=2,freeze_mode=permanent");
        assert_eq!(s.sampling(), Some(Sampling::Bus { burst: 8, spacing: 1024.0 }));
        assert_eq!(s.timer_period(), Some(1_000_000_000));
        f.counters.add(0, 1, 3);
        let moved = Action::Migrate { page: PageNo(0), to: NodeId(1), reason: "most samples in the interval" };
        for tick in 1..=3 {
            let t = s.on_timer(&f.view());
            assert!(t.reset);
            // Moved in intervals 1 and 2 (the page stays at home in this fixture), frozen after.
            let want = if tick <= 2 { vec![moved.clone()] } else { Vec::new() };
            assert_eq!(t.actions, want, "interval {tick}");
        }
        let mut out = crate::report::Report::default();
        s.report(&Applied::default(), &mut out);
        assert_eq!(out.count_of("frozen_pages"), 1);
    }
}
