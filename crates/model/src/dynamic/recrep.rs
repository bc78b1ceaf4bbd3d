//! `upmlib-recrep`: UPMlib's record–replay (seed 000 §3.3). Iteration 2 records one phase's
//! isolated counts; every later iteration moves the most critical pages to their busiest node
//! before the phase and back after it. Reuses `upmlib` for the optional data distribution
//! after iteration 1.

use super::cost;
use super::upmlib::{Upmlib, UPMLIB_PARAMS};
use crate::report::Report;
use super::{Action, DynamicCaps, DynamicInfo, DynamicPolicy, Observes, View, SIM_ONLY, Trigger, Applied};
use crate::spec::{ParamDecl, ParamKind, Resolved, Spec};
use crate::units::{NodeId, PageNo};

const RECREP_PARAMS: &[ParamDecl] = &[
    ParamDecl { name: "phase", kind: ParamKind::Word, default: "z_solve", doc: "the phase to redistribute for (BT's z_solve, seed 000 §3.3)" },
    ParamDecl {
        name: "threshold",
        kind: ParamKind::Float { min: 0.0, max: 1e6 },
        default: "2",
        doc: "a page is eligible when r_max / a_local exceeds this (choice: seed 000 leaves thr open)",
    },
    ParamDecl { name: "n", kind: ParamKind::COUNT, default: "20", doc: "the n most critical pages (highest ratio) move, per transition" },
    ParamDecl {
        name: "distribute",
        kind: ParamKind::Choice(&["on", "off"]),
        default: "on",
        doc: "also run upmlib's migrate_memory once, at the end of iteration 1 (data distribution), as seed 000 Figure 3 does",
    },
    cost::COST_AWARE,
];

pub(super) const INFO: DynamicInfo = DynamicInfo {
    name: "upmlib-recrep",
    doc: "UPMlib record-replay: a phase's isolated counters from iteration 2 select pages to move before it and back after it (seed 000 §3.3)",
    params: RECREP_PARAMS,
    caps: DynamicCaps {
        observes: Observes::Counters,
        drivers: SIM_ONLY,
        why_not: "on real processes record-replay is driven by the program's numaplace_record/numaplace_replay calls (upmlib_record, upmlib_replay), not chosen as the run's policy",
        needs_program_calls: true,
        triggers: &[Trigger::IterationEnd, Trigger::EpochBoundary],
        stats: &[cost::GATE_STATS],
    },
    build: |r, _, threads| Ok(Box::new(RecRep::new(r, threads))),
};

/// Record–replay (seed 000 §3.3): in iteration 2 the counters of every page are recorded
/// before and after each epoch of the phase; the difference isolates the phase's accesses.
/// Pages with `r_max / a_local > threshold` (the busiest remote node's count over the home
/// node's) are eligible; the `n` with the highest ratio move to their busiest node before the
/// phase in every later iteration, and back to their original node after it. Both moves are
/// on the critical path.
///
/// With `cost_aware=on` a page is planned only if the phase's recorded accesses would save
/// more on each occurrence than its two moves (replay and undo) cost; the distribution after
/// iteration 1 is cost-aware too (and, needing two looks to judge stability, decides at the
/// end of iteration 2). One recording gives no history, so no stability test: the
/// recorded phase is taken as every later occurrence's, the premise of seed 000 §3.3.
struct RecRep {
    phase: String,
    ratio: f64,
    n: usize,
    /// Counters at the start of the phase's current epoch in iteration 2.
    snapshot: Vec<u16>,
    /// The phase's accumulated counts per page and node (iteration 2).
    isolated: Vec<u32>,
    /// When the phase's current epoch started in iteration 2, and the phase's accumulated
    /// time there (the window its counts cover, for the cost model).
    phase_started: crate::units::Ps,
    phase_time: crate::units::Ps,
    /// (page, target) to replay, decided at the end of iteration 2.
    plan: Vec<(PageNo, NodeId)>,
    /// (page, original node) moved by the current replay, to undo.
    undo: Vec<(PageNo, NodeId)>,
    recorded: bool,
    /// The distinct phases the run has had so far, in order of first appearance (a workload
    /// has a handful), to check `phase` against once the run is over.
    phases_seen: Vec<String>,
    /// UPMlib's data distribution, run once at the end of iteration 1 (Figure 3).
    distribute: Option<Upmlib>,
    cost_aware: bool,
    sharing_cpus: usize,
    refused: cost::Refusals,
}

impl RecRep {
    fn new(r: &Resolved, threads: usize) -> Self {
        let cost_aware = r.choice("cost_aware");
        let upmlib = Spec::parse(&format!("upmlib:cost_aware={cost_aware}"))
            .and_then(|s| s.resolve("dynamic policy", UPMLIB_PARAMS))
            .expect("upmlib's defaults resolve");
        RecRep {
            distribute: (r.choice("distribute") == "on").then(|| Upmlib::new(&upmlib, threads)),
            cost_aware: cost_aware == "on",
            sharing_cpus: threads.max(1),
            refused: cost::Refusals::default(),
            phase: r.text("phase").to_string(),
            ratio: r.float("threshold"),
            n: r.uint("n") as usize,
            snapshot: Vec::new(),
            isolated: Vec::new(),
            phase_started: 0,
            phase_time: 0,
            plan: Vec::new(),
            undo: Vec::new(),
            recorded: false,
            phases_seen: Vec::new(),
        }
    }

    fn all_counts(view: &View<'_>) -> Vec<u16> {
        (0..view.homes.len()).flat_map(|p| view.counters.row(PageNo(p as u32)).to_vec()).collect()
    }
}

impl DynamicPolicy for RecRep {
    fn counts(&self) -> bool {
        !self.recorded
    }

    /// Counters restart at each iteration: the distribution at the end of iteration 1 reads
    /// that iteration's counts; the recording differences counters within iteration 2.
    fn decides_at_iteration_end(&self) -> bool {
        true
    }

    fn reset_after_iteration(&self) -> bool {
        true
    }

    fn check_finished(&self) -> Result<(), String> {
        if self.phases_seen.iter().any(|p| *p == self.phase) {
            return Ok(());
        }
        Err(format!(
            "dynamic policy 'upmlib-recrep': phase={}: the workload has no such phase (its phases: {})",
            self.phase,
            if self.phases_seen.is_empty() { "none".to_string() } else { self.phases_seen.join(", ") }
        ))
    }

    fn on_epoch_start(&mut self, view: &View<'_>, iteration: u32, phase: &str) -> Vec<Action> {
        if !self.phases_seen.iter().any(|p| p == phase) {
            self.phases_seen.push(phase.to_string());
        }
        if phase != self.phase {
            return Vec::new();
        }
        if iteration == 2 {
            self.snapshot = Self::all_counts(view);
            self.phase_started = view.now;
            return Vec::new();
        }
        if iteration < 3 {
            return Vec::new();
        }
        self.undo.clear();
        let mut out = Vec::new();
        for &(page, to) in &self.plan {
            let home = view.homes[page.0 as usize];
            if home != to.0 && (home as usize) < view.machine.nodes() {
                self.undo.push((page, NodeId(home)));
                out.push(Action::Migrate { page, to, reason: "record-replay: replay before the phase" });
            }
        }
        out
    }

    fn on_epoch_end(&mut self, view: &View<'_>, iteration: u32, phase: &str) -> Vec<Action> {
        if phase != self.phase {
            return Vec::new();
        }
        if iteration == 2 && !self.snapshot.is_empty() {
            self.phase_time = self.phase_time.saturating_add(view.now.saturating_sub(self.phase_started));
            let now = Self::all_counts(view);
            if self.isolated.is_empty() {
                self.isolated = vec![0; now.len()];
            }
            for ((acc, &after), &before) in self.isolated.iter_mut().zip(&now).zip(&self.snapshot) {
                *acc += after.saturating_sub(before) as u32;
            }
            return Vec::new();
        }
        self.undo
            .drain(..)
            .map(|(page, to)| Action::Migrate { page, to, reason: "record-replay: undo after the phase" })
            .collect()
    }

    fn on_iteration_end(&mut self, view: &View<'_>, iteration: u32) -> Vec<Action> {
        if iteration == 1 {
            return self.distribute.as_mut().map_or_else(Vec::new, |u| u.on_iteration_end(view, 1));
        }
        if iteration != 2 || self.recorded {
            return Vec::new();
        }
        // A cost-aware distribution judges a page's stability from two looks: it looked at
        // the end of iteration 1 and decides now.
        let distributed = match self.distribute.as_mut() {
            Some(u) if self.cost_aware => u.on_iteration_end(view, 2),
            _ => Vec::new(),
        };
        self.recorded = true;
        let nodes = view.machine.nodes();
        let mut eligible: Vec<(f64, u32, PageNo, NodeId)> = Vec::new();
        let rho = cost::utilisation_from_queue(view);
        for (page, &home) in view.homes.iter().enumerate() {
            let home = home as usize;
            if home >= nodes || self.isolated.is_empty() {
                continue;
            }
            let row = &self.isolated[page * nodes..(page + 1) * nodes];
            let (best, r_max) = row
                .iter()
                .enumerate()
                .filter(|&(n, _)| n != home)
                .fold((0, 0u32), |acc, (n, &v)| if v > acc.1 { (n, v) } else { acc });
            if r_max == 0 {
                continue;
            }
            // No local access at all: the ratio is unbounded, the page eligible. (Counting
            // a_local = 0 as 1 would make a driver with sparse counts, such as the runtime's
            // hinting-fault samples, never select a page seen once or twice remotely.)
            let ratio = if row[home] == 0 { f64::INFINITY } else { r_max as f64 / row[home] as f64 };
            if ratio > self.ratio && self.cost_aware {
                let saved = cost::saving(view, &rho, NodeId(home as u8), NodeId(best as u8), row.iter().map(|&c| c as f64), 1.0, self.phase_time.max(1));
                // Replay and undo stop every thread; the saving is spread over them.
                if saved / self.sharing_cpus as f64 <= 2.0 * view.machine.migration_cost_ps(self.sharing_cpus) as f64 {
                    self.refused.costly += 1;
                    continue;
                }
            }
            if ratio > self.ratio {
                eligible.push((ratio, r_max, PageNo(page as u32), NodeId(best as u8)));
            }
        }
        // Highest ratio first, then most remote accesses; ties by page number, for determinism.
        eligible.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        self.plan = eligible.into_iter().take(self.n).map(|(_, _, p, to)| (p, to)).collect();
        self.isolated = Vec::new();
        self.snapshot = Vec::new();
        distributed
    }

    fn report(&self, _applied: &Applied, out: &mut Report) {
        let d = self.distribute.as_ref().map(|u| u.refused()).unwrap_or_default();
        (self.refused + d).report(out);
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture::Fixture;
    use super::*;

    #[test]
    fn a_phase_the_run_never_had_is_refused_at_its_end() {
        let f = Fixture::new(2);
        let mut r = f.policy("upmlib-recrep:phase=nope");
        assert!(r.check_finished().is_err(), "before any epoch");
        for it in 0..3 {
            for phase in ["init", "x_solve", "z_solve"] {
                r.on_epoch_start(&f.view(), it, phase);
                r.on_epoch_end(&f.view(), it, phase);
            }
        }
        assert_eq!(
            r.check_finished().unwrap_err(),
            "dynamic policy 'upmlib-recrep': phase=nope: the workload has no such phase (its phases: init, x_solve, z_solve)"
        );
        let mut ok = f.policy("upmlib-recrep:phase=x_solve");
        ok.on_epoch_start(&f.view(), 0, "x_solve");
        assert_eq!(ok.check_finished(), Ok(()));
    }

    #[test]
    fn records_the_phase_in_iteration_two_and_replays_it_around_the_phase() {
        let mut f = Fixture::new(2);
        let mut r = f.policy("upmlib-recrep:phase=p,n=1,distribute=off");
        assert!(r.on_epoch_start(&f.view(), 2, "p").is_empty());
        // Inside the phase node 1 reads page 1 and never page 0; outside it, page 0.
        f.counters.add(1, 1, 4);
        assert!(r.on_epoch_end(&f.view(), 2, "p").is_empty());
        f.counters.add(0, 1, 9);
        assert!(r.on_iteration_end(&f.view(), 2).is_empty());
        assert!(!r.counts(), "recording is over");
        assert!(r.on_epoch_start(&f.view(), 3, "other").is_empty());
        let before = r.on_epoch_start(&f.view(), 3, "p");
        assert_eq!(before, vec![Action::Migrate { page: PageNo(1), to: NodeId(1), reason: "record-replay: replay before the phase" }]);
        f.homes[1] = 1;
        let after = r.on_epoch_end(&f.view(), 3, "p");
        assert_eq!(after, vec![Action::Migrate { page: PageNo(1), to: NodeId(0), reason: "record-replay: undo after the phase" }]);
    }
}
