//! `wildfire`: Sun Wildfire's page migration and replication (seed 001 §2). A daemon reads
//! per-page, per-node counters every period and migrates or replicates pages with many remote
//! accesses; replicas are kept coherent line by line by the driver and collapsed when other
//! nodes' writes invalidate too much of them.

use super::cost::{self, Evidence, Gate, Payer, Verdict};
use crate::report::Report;
use super::{Action, DynamicCaps, DynamicInfo, DynamicPolicy, Observes, Timer, View, SIM_ONLY, Trigger, Applied};
use crate::spec::{ParamDecl, ParamKind, Resolved};
use crate::units::{NodeId, PageNo, Ps};

const WILDFIRE_PARAMS: &[ParamDecl] = &[
    ParamDecl { name: "migration", kind: ParamKind::Choice(&["on", "off"]), default: "on", doc: "move pages to the node that uses them (seed 001 §2)" },
    ParamDecl { name: "replication", kind: ParamKind::Choice(&["on", "off"]), default: "on", doc: "give nodes read-only replicas of pages they read (seed 001 §2)" },
    ParamDecl {
        name: "threshold",
        kind: ParamKind::COUNT,
        default: "64",
        doc: "remote accesses from one node in an interval that make a page a candidate (assumption: seed 001 gives no number)",
    },
    ParamDecl {
        name: "period_ms",
        kind: ParamKind::Float { min: 0.001, max: 1e7 },
        default: "1000",
        doc: "how often the daemon examines the counters (assumption)",
    },
    ParamDecl {
        name: "collapse_ratio",
        kind: ParamKind::Float { min: 0.0, max: 1e6 },
        default: "0.5",
        doc: "a replicated page is collapsed when the lines other nodes' writes invalidate in its replicas in an interval exceed this share of the replicas' own accesses (assumption: seed 001 gives no rule)",
    },
    ParamDecl {
        name: "recent",
        kind: ParamKind::COUNT,
        default: "4",
        doc: "a page migrated within this many intervals is replicated rather than moved again",
    },
    cost::COST_AWARE,
];

pub(super) const INFO: DynamicInfo = DynamicInfo {
    name: "wildfire",
    doc: "Sun Wildfire: page migration and/or replication from remote-access counts, replicas collapsed on writes (seed 001 §2)",
    params: WILDFIRE_PARAMS,
    caps: DynamicCaps {
        observes: Observes::Replicas,
        drivers: SIM_ONLY,
        why_not: "it replicates pages and counts remote accesses per page in hardware, which Linux does not offer user space",
        needs_program_calls: false,
        triggers: &[Trigger::Timer],
        stats: &[cost::GATE_STATS],
    },
    build: |r, _, threads| Ok(Box::new(Wildfire::new(r, threads))),
};

/// Sun Wildfire's migration and replication (seed 001 §2). Every period the daemon reads the
/// per-page, per-node counters: a page with more than `threshold` accesses from some remote
/// node in the interval is a candidate. With migration on, a candidate whose busiest node
/// outdoes its home moves there, unless (with replication on) it is already replicated or
/// migrated recently: then, as when migration is off, the busiest remote node gets a replica.
/// A replica is seed 001 §2's "shadow" page: it satisfies its node's misses to the page while
/// coherence is kept line by line, so the node's reads and its writes to lines it holds alone
/// are local, and another node's write invalidates the written lines in every other copy (the
/// driver's model; see the simulator's hot loop). A page whose replicas lose, in an interval,
/// more lines to other nodes' writes than `collapse_ratio` times the replicas' own accesses is
/// collapsed back to one copy and never replicated again (without that it would be replicated
/// and collapsed over and over).
/// Counters restart every interval.
///
/// With `cost_aware=on` each migration or replication must also pass the [`Gate`] (the window
/// is the interval; a replica's benefit counts only its own node's accesses).
struct Wildfire {
    migration: bool,
    replication: bool,
    threshold: u16,
    period: Ps,
    collapse_ratio: f64,
    recent: u32,
    tick: u32,
    migrated: std::collections::HashMap<u32, u32>,
    collapsed: std::collections::HashMap<u32, u32>,
    gate: Gate,
    last: Option<Ps>,
}

impl Wildfire {
    fn new(r: &Resolved, threads: usize) -> Self {
        Wildfire {
            migration: r.choice("migration") == "on",
            replication: r.choice("replication") == "on",
            threshold: r.uint("threshold").min(u16::MAX as u64) as u16,
            period: (r.float("period_ms") * 1e9) as Ps,
            collapse_ratio: r.float("collapse_ratio"),
            recent: r.uint("recent") as u32,
            tick: 0,
            migrated: std::collections::HashMap::new(),
            collapsed: std::collections::HashMap::new(),
            gate: Gate::new(r, threads, Payer::EveryThread),
            last: None,
        }
    }
}

impl DynamicPolicy for Wildfire {
    fn counts(&self) -> bool {
        self.migration || self.replication
    }

    fn replicates(&self) -> bool {
        self.replication
    }

    fn timer_period(&self) -> Option<Ps> {
        (self.migration || self.replication).then_some(self.period)
    }

    fn on_timer(&mut self, view: &View<'_>) -> Timer {
        if let Some(actions) = self.gate.audit(view) {
            return Timer { reset: true, actions, ..Timer::default() };
        }
        self.tick += 1;
        let window = view.now.saturating_sub(self.last.unwrap_or(view.started)).max(1);
        self.last = Some(view.now);
        let nodes = view.machine.nodes();
        let mut actions = Vec::new();
        let mut only = vec![0u16; nodes];
        self.gate.begin_window(view, window, 1.0);
        for (page, &home) in view.homes.iter().enumerate() {
            let home = home as usize;
            if home >= nodes {
                continue;
            }
            let p = PageNo(page as u32);
            let replicas = view.replicas.get(page).copied().unwrap_or(0);
            let row = view.counters.row(p);
            if replicas != 0 {
                // The replicas' own accesses in the interval, against the lines other nodes'
                // writes took from them.
                let writes = view.replica_writes.get(page).copied().unwrap_or(0) as f64;
                let served: f64 = row.iter().enumerate().filter(|&(n, _)| n < 64 && replicas & (1 << n) != 0).map(|(_, &v)| v as f64).sum();
                if writes > self.collapse_ratio * served.max(1.0) {
                    self.collapsed.insert(p.0, self.tick);
                    actions.push(Action::Collapse { page: p, reason: "written often while replicated" });
                    continue;
                }
            }
            let (best, count) = row
                .iter()
                .enumerate()
                .filter(|&(n, _)| n != home && replicas & (1 << n) == 0)
                .fold((0usize, 0u16), |acc, (n, &v)| if v > acc.1 { (n, v) } else { acc });
            if count <= self.threshold {
                if count > 0 {
                    self.gate.note(p, NodeId(best as u8));
                }
                continue;
            }
            let recently = self.migrated.get(&p.0).is_some_and(|&t| t + self.recent >= self.tick);
            let replicate = self.replication && (!self.migration || replicas != 0 || recently);
            if replicate && self.collapsed.contains_key(&p.0) {
                continue;
            }
            let to = NodeId(best as u8);
            if replicate {
                only[best] = count;
                let ev = Evidence { counts: &only, scale: 1.0, window };
                let verdict = self.gate.judge(view, p, NodeId(home as u8), to, ev, 0);
                only[best] = 0;
                if verdict != Verdict::Move {
                    continue;
                }
                actions.push(Action::Replicate { page: p, node: to, reason: "remote reads past the threshold" });
            } else if self.migration && count > row[home] {
                if self.gate.judge(view, p, NodeId(home as u8), to, Evidence { counts: row, scale: 1.0, window }, 0) != Verdict::Move {
                    continue;
                }
                self.migrated.insert(p.0, self.tick);
                actions.push(Action::Migrate { page: p, to: NodeId(best as u8), reason: "remote accesses past the threshold" });
            }
        }
        Timer { reset: true, actions, ..Timer::default() }
    }

    fn report(&self, _applied: &Applied, out: &mut Report) {
        self.gate.refused.report(out);
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture::Fixture;
    use super::*;

    #[test]
    fn migrates_a_page_past_the_threshold_then_replicates_it_if_it_stays_remote() {
        let mut f = Fixture::new(2);
        let mut w = f.policy("wildfire");
        // Page 1's 64 remote accesses are not past the threshold of 64.
        f.counters.add(0, 1, 100);
        f.counters.add(1, 1, 64);
        let t = w.on_timer(&f.view());
        assert!(t.reset);
        assert_eq!(t.actions, vec![Action::Migrate { page: PageNo(0), to: NodeId(1), reason: "remote accesses past the threshold" }]);
        // Still remote one interval later: migrated recently, so replicated instead.
        let t = w.on_timer(&f.view());
        assert_eq!(t.actions, vec![Action::Replicate { page: PageNo(0), node: NodeId(1), reason: "remote reads past the threshold" }]);
        // Without replication it only migrates.
        let mut m = f.policy("wildfire:replication=off");
        assert!(!m.replicates());
        m.on_timer(&f.view());
        assert!(matches!(m.on_timer(&f.view()).actions[..], [Action::Migrate { .. }]));
    }
}
