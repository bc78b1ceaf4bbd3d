//! `upmlib`: UPMlib's user-level iterative migration (seed 000 §3.2). At the end of each
//! iteration the library reads the per-page counters of the hot regions and moves pages to
//! their busiest node by a competitive criterion, freezes pages that bounce, and deactivates
//! itself once an invocation moves nothing.

use super::cost::{self, Evidence, Gate, Payer, Verdict};
use crate::report::Report;
use super::{Action, DynamicCaps, DynamicInfo, DynamicPolicy, Observes, View, BOTH, Trigger, Applied, FROZEN_PAGES};
use crate::spec::{ParamDecl, ParamKind, Resolved};
use crate::units::{NodeId, PageNo, Ps};
use crate::Region;

pub(super) const UPMLIB_PARAMS: &[ParamDecl] = &[
    ParamDecl {
        name: "threshold",
        kind: ParamKind::Float { min: 1.0, max: 1e6 },
        default: "2",
        doc: "competitive criterion: migrate when the busiest node's count exceeds the home count times this (choice: seed 000 does not give it)",
    },
    ParamDecl {
        name: "regions",
        kind: ParamKind::Word,
        default: "all",
        doc: "hot regions to monitor: all, or region names joined by '+', e.g. u+rhs+forcing (seed 000 Figure 2)",
    },
    cost::COST_AWARE,
];

pub(super) const INFO: DynamicInfo = DynamicInfo {
    name: "upmlib",
    doc: "UPMlib iterative migration at iteration ends until nothing moves; freezes bouncing pages (seed 000 §3.2)",
    params: UPMLIB_PARAMS,
    caps: DynamicCaps { observes: Observes::Counters, drivers: BOTH, why_not: "", needs_program_calls: true, triggers: &[Trigger::IterationEnd], stats: &[&[FROZEN_PAGES, FIRST_INVOCATION], cost::GATE_STATS] },
    build: |r, _, threads| Ok(Box::new(Upmlib::new(r, threads))),
};

/// UPMlib: after iteration 1, and after each later iteration while the previous invocation
/// moved something, move each page to the node that accessed it most when that node's count
/// beats the home node's by the threshold ratio. A page that moves back to the node it came
/// from in consecutive invocations is frozen. Counters are read and reset at each invocation.
///
/// With `cost_aware=on` each move must also pass the [`Gate`] (the window is the iteration
/// just ended), and an invocation whose moves the gate held back does not count as one that
/// moved nothing: the pages it refused may be stable by the next iteration.
pub(super) struct Upmlib {
    ratio: f64,
    /// Names of the hot regions, or `None` for all.
    regions: Option<Vec<String>>,
    active: bool,
    invocations: u32,
    first: Option<u64>,
    /// Last move of each page: (invocation, from, to).
    moved: std::collections::HashMap<u32, (u32, u8, u8)>,
    frozen: std::collections::HashSet<u32>,
    gate: Gate,
    /// When the previous invocation ran (the start of the window its counters cover).
    last: Option<Ps>,
    /// The last invocation's moves, by page (ascending): the busiest node's count and the
    /// threshold times the home node's it beat ([`DynamicPolicy::evidence`]).
    weighed: Vec<(u32, f64, f64)>,
}

impl Upmlib {
    /// The moves its cost gate refused (for `upmlib-recrep`, which distributes with it).
    pub(super) fn refused(&self) -> cost::Refusals {
        self.gate.refused
    }

    pub(super) fn new(r: &Resolved, threads: usize) -> Self {
        let regions = r.text("regions");
        Upmlib {
            ratio: r.float("threshold"),
            regions: (regions != "all").then(|| regions.split('+').map(str::to_string).collect()),
            active: true,
            invocations: 0,
            first: None,
            moved: std::collections::HashMap::new(),
            frozen: std::collections::HashSet::new(),
            gate: Gate::new(r, threads, Payer::EveryThread),
            last: None,
            weighed: Vec::new(),
        }
    }
}

impl DynamicPolicy for Upmlib {
    fn check_regions(&self, regions: &[Region]) -> Result<(), String> {
        for name in self.regions.iter().flatten() {
            if !regions.iter().any(|r| &r.name == name) {
                let known: Vec<&str> = regions.iter().map(|r| r.name.as_str()).collect();
                return Err(format!("dynamic policy 'upmlib': regions: no region '{name}' (the workload has: {})", known.join(", ")));
            }
        }
        Ok(())
    }

    fn counts(&self) -> bool {
        self.active
    }

    fn on_iteration_end(&mut self, view: &View<'_>, _iteration: u32) -> Vec<Action> {
        if !self.active {
            return Vec::new();
        }
        self.invocations += 1;
        self.weighed.clear();
        let inv = self.invocations;
        let window = view.now.saturating_sub(self.last.unwrap_or(view.started)).max(1);
        self.last = Some(view.now);
        if let Some(back) = self.gate.audit(view) {
            self.active = false;
            return back;
        }
        let held = self.gate.refused;
        self.gate.begin_window(view, window, 1.0);
        let mut out = Vec::new();
        let hot: Vec<&Region> = match &self.regions {
            Some(names) => view.regions.iter().filter(|r| names.contains(&r.name)).collect(),
            None => view.regions.iter().collect(),
        };
        let pages = hot.iter().flat_map(|r| r.first_page as usize..(r.first_page + r.pages) as usize);
        for page in pages {
            let home = view.homes[page];
            if home as usize >= view.machine.nodes() || self.frozen.contains(&(page as u32)) {
                continue;
            }
            let p = PageNo(page as u32);
            let (best, count) = view.counters.busiest(p);
            let local = view.counters.get(p.0, home as usize);
            if count == 0 {
                continue;
            }
            if best.0 == home || (count as f64) <= self.ratio * local as f64 {
                self.gate.note(p, best);
                continue;
            }
            // Ping-pong: the page moves back to where it came from one invocation later.
            if let Some(&(when, from, to)) = self.moved.get(&p.0) {
                if when + 1 == inv && from == best.0 && to == home {
                    self.frozen.insert(p.0);
                    continue;
                }
            }
            let ev = Evidence { counts: view.counters.row(p), scale: 1.0, window };
            if self.gate.judge(view, p, NodeId(home), best, ev, 0) != Verdict::Move {
                continue;
            }
            self.moved.insert(p.0, (inv, home, best.0));
            self.weighed.push((p.0, count as f64, self.ratio * local as f64));
            out.push(Action::Migrate { page: p, to: best, reason: "competitive criterion" });
        }
        if self.first.is_none() {
            self.first = Some(out.len() as u64);
        }
        if out.is_empty() && self.gate.refused == held {
            self.active = false; // self-deactivation (seed 000 §3.2)
        }
        out
    }

    fn evidence(&self, action: &Action) -> Option<super::Evidence> {
        let Action::Migrate { page, .. } = action else { return None };
        let i = self.weighed.binary_search_by_key(&page.0, |w| w.0).ok()?;
        let (_, count, limit) = self.weighed[i];
        Some(super::Evidence { measured: "busiest_node_count", value: count, threshold: "threshold_x_home_count", limit })
    }

    fn decides_at_iteration_end(&self) -> bool {
        true
    }

    fn reset_after_iteration(&self) -> bool {
        true
    }

    fn report(&self, applied: &Applied, out: &mut Report) {
        out.count(FROZEN_PAGES.name, self.frozen.len() as u64);
        let first = self.first.map(|f| if applied.migrations == 0 { 0.0 } else { f as f64 / applied.migrations as f64 });
        out.number(FIRST_INVOCATION.name, first);
        self.gate.refused.report(out);
    }
}

/// The share of the run's migrations decided at the first invocation (seed 000 §5's "most
/// migrations happen at the first invocation").
pub(super) const FIRST_INVOCATION: crate::report::StatDecl = crate::report::StatDecl {
    name: "first_invocation_fraction",
    unit: "share",
    doc: "share of the run's migrations decided at the policy's first invocation (seed 000 §5)",
};

#[cfg(test)]
mod tests {
    use super::super::fixture::Fixture;
    use super::*;
    use crate::units::NodeId;

    #[test]
    fn moves_pages_past_the_ratio_then_deactivates_when_nothing_moves() {
        let mut f = Fixture::new(2);
        let mut u = f.policy("upmlib");
        // Page 0: 5 remote against 1 local beats the ratio of 2; page 1: 3 against 2 does not.
        f.counters.add(0, 1, 5);
        f.counters.add(0, 0, 1);
        f.counters.add(1, 1, 3);
        f.counters.add(1, 0, 2);
        let moves = u.on_iteration_end(&f.view(), 1);
        assert_eq!(moves, vec![Action::Migrate { page: PageNo(0), to: NodeId(1), reason: "competitive criterion" }]);
        // What it weighed: 5 against twice the home node's 1.
        let e = u.evidence(&moves[0]).unwrap();
        assert_eq!((e.measured, e.value, e.threshold, e.limit), ("busiest_node_count", 5.0, "threshold_x_home_count", 2.0));
        assert_eq!(u.evidence(&Action::Migrate { page: PageNo(1), to: NodeId(1), reason: "competitive criterion" }), None);
        // One migration at the first invocation: half of a run's two.
        let mut out = crate::report::Report::default();
        u.report(&Applied { migrations: 2, ..Applied::default() }, &mut out);
        assert_eq!(out.get("first_invocation_fraction"), Some(&crate::report::StatValue::Number(Some(0.5))));
        assert!(u.counts());
        f.counters.reset_all();
        assert!(u.on_iteration_end(&f.view(), 2).is_empty());
        assert!(!u.counts(), "an invocation that moves nothing deactivates the library");
    }
}
