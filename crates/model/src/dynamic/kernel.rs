//! `kernel`: the IRIX / Stanford FLASH kernel's competitive page migration (seed 000 §2.1,
//! seed 002 §3). Per-page hardware counters interrupt the kernel when a remote node's count
//! passes the home node's by a threshold; the handler filters (per-page and system-wide rate
//! limits, room on the target) and migrates. Counters age on a timer.

use super::cost::{self, Evidence, Gate, Payer, Verdict};
use crate::report::Report;
use super::{Action, DynamicCaps, DynamicInfo, DynamicPolicy, Observes, Timer, View, SIM_ONLY, Trigger, Applied};
use crate::spec::{ParamDecl, ParamKind, Resolved};
use crate::topology::Machine;
use crate::units::{NodeId, PageNo, Ps};

const KERNEL_PARAMS: &[ParamDecl] = &[
    ParamDecl {
        name: "threshold",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: "0.5",
        doc: "interrupt when a remote count exceeds the home count by this fraction of the counter range (IRIX default 50%, seed 002 §3)",
    },
    ParamDecl {
        name: "page_interval_ms",
        kind: ParamKind::Float { min: 0.0, max: 1e6 },
        default: "10",
        doc: "filter: a page migrates at most once per this interval (assumption: IRIX's per-page rate limit)",
    },
    ParamDecl {
        name: "max_rate",
        kind: ParamKind::Float { min: 0.0, max: 1e9 },
        default: "10000",
        doc: "filter: system-wide migrations per second at most (assumption)",
    },
    ParamDecl {
        name: "aging_ms",
        kind: ParamKind::Float { min: 0.0, max: 1e6 },
        default: "1000",
        doc: "counters are halved every this many ms (0: never). Assumption: the seeds give no period; at 50 ms the counts of these kernels' pages never reach the threshold",
    },
    cost::COST_AWARE,
];

pub(super) const INFO: DynamicInfo = DynamicInfo {
    name: "kernel",
    doc: "IRIX / Stanford FLASH competitive migration: counter interrupts, filters, aging (seed 000 §2.1, seed 002 §3)",
    params: KERNEL_PARAMS,
    caps: DynamicCaps {
        observes: Observes::Counters,
        drivers: SIM_ONLY,
        why_not: "it needs per-frame hardware reference counters that interrupt the kernel (the Origin2000's), which Linux does not give user space",
        needs_program_calls: false,
        triggers: &[Trigger::CounterInterrupt, Trigger::Timer, Trigger::IterationEnd],
        stats: &[cost::GATE_STATS],
    },
    build: |r, m, threads| Ok(Box::new(Kernel::new(r, m, threads))),
};

/// The IRIX kernel engine: hardware counters raise an interrupt when a remote node's count
/// exceeds the home node's by the threshold; the handler applies its filters and migrates.
///
/// With `cost_aware=on` the handler also asks the [`Gate`]: a page's window is the time since
/// its previous interrupt (its counters are reset at each), at most two aging periods, and it
/// is stable when its previous interrupt came from the same node.
struct Kernel {
    threshold: u16,
    page_interval: Ps,
    min_gap: Ps,
    aging: Option<Ps>,
    last_migration: std::collections::HashMap<u32, Ps>,
    last_any: Option<Ps>,
    gate: Gate,
    /// Time of each page's previous interrupt (cost-aware only).
    last_interrupt: std::collections::HashMap<u32, Ps>,
    /// What the last interrupt that moved a page weighed ([`DynamicPolicy::evidence`]).
    weighed: Option<super::Evidence>,
}

impl Kernel {
    fn new(r: &Resolved, m: &Machine, threads: usize) -> Self {
        let max = ((1u32 << m.raw.counter_bits.clamp(1, 16)) - 1) as f64;
        let rate = r.float("max_rate");
        let aging = r.float("aging_ms");
        Kernel {
            threshold: (r.float("threshold") * max).round().max(1.0) as u16,
            page_interval: (r.float("page_interval_ms") * 1e9) as Ps,
            min_gap: if rate > 0.0 { (1e12 / rate) as Ps } else { Ps::MAX },
            aging: (aging > 0.0).then(|| (aging * 1e9) as Ps),
            last_migration: std::collections::HashMap::new(),
            last_any: None,
            gate: Gate::new(r, threads, Payer::Accessor),
            last_interrupt: std::collections::HashMap::new(),
            weighed: None,
        }
    }
}

impl DynamicPolicy for Kernel {
    /// Once a cost-aware gate withdraws, the counters stop: no more interrupts to pay for.
    fn counts(&self) -> bool {
        !self.gate.withdrawn()
    }

    fn interrupt_threshold(&self) -> Option<u16> {
        Some(self.threshold)
    }

    fn on_interrupt(&mut self, view: &View<'_>, page: PageNo, node: NodeId) -> Option<Action> {
        // Filters, as the IRIX handler applies them (seed 002 §3): the page's own rate
        // limit, room on the target node, and the system-wide migration rate.
        if let Some(&t) = self.last_migration.get(&page.0) {
            if view.now < t.saturating_add(self.page_interval) {
                return None;
            }
        }
        if view.free[node.index()] == 0 {
            return None;
        }
        if let Some(t) = self.last_any {
            if view.now < t.saturating_add(self.min_gap) {
                return None;
            }
        }
        if self.gate.on() {
            let since = self.last_interrupt.insert(page.0, view.now).unwrap_or(view.started);
            let mut window = view.now.saturating_sub(since).max(1);
            if let Some(aging) = self.aging {
                window = window.min(aging.saturating_mul(2));
            }
            let home = NodeId(view.homes[page.0 as usize]);
            let ev = Evidence { counts: view.counters.row(page), scale: 1.0, window };
            if self.gate.judge(view, page, home, node, ev, 0) != Verdict::Move {
                return None;
            }
        }
        self.last_migration.insert(page.0, view.now);
        self.last_any = Some(view.now);
        let home = view.homes[page.0 as usize] as usize;
        let lead = i64::from(view.counters.get(page.0, node.index())) - view.counters.row(page).get(home).map_or(0, |&c| i64::from(c));
        self.weighed = Some(super::Evidence { measured: "remote_minus_home_count", value: lead as f64, threshold: "threshold_count", limit: f64::from(self.threshold) });
        Some(Action::Migrate { page, to: node, reason: "counter interrupt" })
    }

    fn evidence(&self, action: &Action) -> Option<super::Evidence> {
        match action {
            Action::Migrate { reason: "counter interrupt", .. } => self.weighed,
            _ => None,
        }
    }

    fn timer_period(&self) -> Option<Ps> {
        self.aging
    }

    fn on_timer(&mut self, _view: &View<'_>) -> Timer {
        Timer { age: true, ..Timer::default() }
    }

    /// With the gate on, its measured payback is checked at each iteration's barrier (the
    /// interrupts come mid-window); IRIX itself does nothing there.
    fn on_iteration_end(&mut self, view: &View<'_>, _iteration: u32) -> Vec<Action> {
        self.gate.audit(view).unwrap_or_default()
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
    fn an_interrupt_migrates_unless_the_page_moved_within_its_interval() {
        let mut f = Fixture::new(2);
        let mut k = f.policy("kernel");
        let to_1 = |page| Some(Action::Migrate { page: PageNo(page), to: NodeId(1), reason: "counter interrupt" });
        assert_eq!(k.on_interrupt(&f.view(), PageNo(0), NodeId(1)), to_1(0));
        // 1 ms later: page 0 is inside its 10 ms interval; page 1 is past the 100 µs
        // system-wide gap (10 000 migrations a second).
        f.now = 1_000_000_000;
        assert_eq!(k.on_interrupt(&f.view(), PageNo(0), NodeId(1)), None);
        assert_eq!(k.on_interrupt(&f.view(), PageNo(1), NodeId(1)), to_1(1));
        // No room on the target node.
        f.now = 20_000_000_000;
        f.free[1] = 0;
        assert_eq!(k.on_interrupt(&f.view(), PageNo(0), NodeId(1)), None);
    }
}
