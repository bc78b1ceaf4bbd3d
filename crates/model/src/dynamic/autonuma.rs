//! `autonuma`: Linux's automatic NUMA balancing, reduced to its page-migration core
//! (kernel/sched/fair.c, mm/memory.c; Linux's own mechanism, not a seed's). A scanner
//! revokes access to a window of pages per scan period; hinting faults on them feed a
//! two-fault filter that decides migrations; the period adapts to the share of local faults.

use super::cost::{self, Evidence, Gate, Payer, Verdict};
use crate::report::Report;
use super::{Action, DynamicCaps, DynamicInfo, DynamicPolicy, Observes, Timer, View, SIM_ONLY, Trigger, Applied};
use crate::spec::{ParamDecl, ParamKind, Resolved};
use crate::topology::Machine;
use crate::units::{NodeId, PageNo, Ps};

const AUTONUMA_PARAMS: &[ParamDecl] = &[
    ParamDecl {
        name: "scan_period_min_ms",
        kind: ParamKind::Float { min: 0.001, max: 1e7 },
        default: "1000",
        doc: "shortest time to scan the whole address space (Linux sysctl numa_balancing_scan_period_min_ms, kernel/sched/fair.c: 1000); a window's period is this over the windows (task_scan_min)",
    },
    ParamDecl {
        name: "scan_period_max_ms",
        kind: ParamKind::Float { min: 0.001, max: 1e7 },
        default: "60000",
        doc: "longest time to scan the whole address space (numa_balancing_scan_period_max_ms: 60000); over the windows (task_scan_max)",
    },
    ParamDecl {
        name: "scan_size_mb",
        kind: ParamKind::Float { min: 0.001, max: 1e9 },
        default: "256",
        doc: "address space made to fault per scan (numa_balancing_scan_size_mb: 256)",
    },
    super::tiering::MAX_SCAN_RATE,
    ParamDecl {
        name: "fault_ns",
        kind: ParamKind::Float { min: 0.0, max: 1e9 },
        default: "1000",
        doc: "cost of one hinting fault (assumption: a minor fault, about 1 µs)",
    },
    cost::COST_AWARE,
];

pub(super) const INFO: DynamicInfo = DynamicInfo {
    name: "autonuma",
    doc: "Linux automatic NUMA balancing: scanner, hinting faults, two-fault filter, adaptive scan period (kernel/sched/fair.c)",
    params: AUTONUMA_PARAMS,
    caps: DynamicCaps {
        observes: Observes::HintingFaults,
        drivers: SIM_ONLY,
        why_not: "it is Linux's own NUMA balancing: on a real host turn that on instead (sysctl kernel.numa_balancing=1)",
        needs_program_calls: false,
        triggers: &[Trigger::Timer, Trigger::HintingFault],
        stats: &[cost::GATE_STATS],
    },
    build: |r, m, threads| Ok(Box::new(AutoNuma::new(r, m, threads))),
};

/// Linux automatic NUMA balancing, reduced to its page-migration core (kernel/sched/fair.c,
/// mm/memory.c): every scan period the scanner revokes access to the next `scan_size` window
/// of the address space (task_numa_work); the next access to such a page takes a hinting
/// fault; the page migrates to the faulting node when the previous fault on it also came from
/// that node (the two-stage filter of should_numa_migrate_memory, which compares with the
/// last faulting CPU's node). A window's period starts at the minimum over the windows of the
/// address space (`task_scan_min`: the sysctl is the time of a whole pass, floored at the
/// `MAX_SCAN_WINDOW` rate) and doubles after a scan window whose faults were mostly local
/// (≥ 70 %, NUMA_PERIOD_THRESHOLD 7 of 10) and halves otherwise, between that and the maximum
/// over the windows (`task_scan_max`). Task placement (moving threads) is not modelled: threads are bound.
///
/// With `cost_aware=on` a migration the filter lets through must also pass the [`Gate`]. A
/// hinting fault shows one access since the page's access was revoked, so the page's rate is
/// estimated as one access per fault latency (the time from the scan to the fault), as
/// Linux's memory-tiering mode ranks hot pages by hinting-fault latency
/// (`numa_hint_fault_latency`, kernel/sched/fair.c): a lower bound on a busy page's rate.
struct AutoNuma {
    min: Ps,
    max: Ps,
    /// The current period of one window (0 before the first scan).
    period: Ps,
    window: u32,
    /// The shortest period of one window (the scan-rate cap).
    floor: Ps,
    next_page: u32,
    fault_cost: Ps,
    /// Node of the last fault on each page (`u8::MAX`: none yet).
    last_fault: Vec<u8>,
    local_faults: u64,
    faults: u64,
    gate: Gate,
    /// When the latest scan revoked access.
    scanned: Ps,
}

impl AutoNuma {
    fn new(r: &Resolved, m: &Machine, threads: usize) -> Self {
        let min = (r.float("scan_period_min_ms") * 1e9) as Ps;
        let max = ((r.float("scan_period_max_ms") * 1e9) as Ps).max(min);
        let (window, floor) = super::tiering::scan_window(r, m);
        AutoNuma {
            min,
            max,
            // Linux starts at the minimum period (task_scan_start), set at the first scan.
            period: 0,
            window,
            floor,
            next_page: 0,
            fault_cost: (r.float("fault_ns") * 1000.0) as Ps,
            last_fault: Vec::new(),
            local_faults: 0,
            faults: 0,
            gate: Gate::new(r, threads, Payer::Accessor),
            scanned: 0,
        }
    }
}

impl DynamicPolicy for AutoNuma {
    fn counts(&self) -> bool {
        false
    }

    fn timer_period(&self) -> Option<Ps> {
        Some(self.min)
    }

    fn fault_cost(&self) -> Ps {
        self.fault_cost
    }

    fn on_timer(&mut self, view: &View<'_>) -> Timer {
        if let Some(actions) = self.gate.audit(view) {
            // Its moves did not pay: no more scanning, hence no more faults.
            return Timer { actions, next_period: Some(self.max), ..Timer::default() };
        }
        let pages = view.homes.len() as u32;
        if self.last_fault.len() != pages as usize {
            self.last_fault = vec![u8::MAX; pages as usize];
        }
        // A window's bounds (task_scan_min, task_scan_max), then the period adapted to the
        // last window's faults.
        let windows = pages.div_ceil(self.window);
        let lo = super::tiering::per_window(self.min, windows, self.floor);
        let hi = super::tiering::per_window(self.max, windows, lo);
        if self.period == 0 {
            self.period = lo;
        }
        if self.faults > 0 {
            self.period = if self.local_faults * 10 >= self.faults * 7 { self.period * 2 } else { self.period / 2 };
        }
        self.period = self.period.clamp(lo, hi);
        self.local_faults = 0;
        self.faults = 0;
        let start = if self.next_page >= pages { 0 } else { self.next_page };
        let end = start.saturating_add(self.window).min(pages);
        self.next_page = end;
        self.scanned = view.now;
        Timer { revoke: Some(start..end), next_period: Some(self.period), ..Timer::default() }
    }

    fn on_fault(&mut self, view: &View<'_>, page: PageNo, node: NodeId) -> Option<Action> {
        let home = view.homes[page.0 as usize];
        self.faults += 1;
        if home == node.0 {
            self.local_faults += 1;
        }
        let slot = self.last_fault.get_mut(page.0 as usize)?;
        let previous = std::mem::replace(slot, node.0);
        if !(previous == node.0 && home != node.0 && view.free[node.index()] > 0) {
            self.gate.note(page, node);
            return None;
        }
        if self.gate.on() {
            let mut one = vec![0u16; view.machine.nodes()];
            one[node.index()] = 1;
            let ev = Evidence { counts: &one, scale: 1.0, window: view.now.saturating_sub(self.scanned).max(1) };
            if self.gate.judge(view, page, NodeId(home), node, ev, 0) != Verdict::Move {
                return None;
            }
        }
        Some(Action::Migrate { page, to: node, reason: "two consecutive hinting faults from this node" })
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
    fn scans_a_window_and_migrates_on_the_second_fault_from_a_node() {
        let f = Fixture::new(4);
        // 8 KiB windows: two 4 KiB pages.
        let mut a = f.policy("autonuma:scan_size_mb=0.0078125");
        let t = a.on_timer(&f.view());
        assert_eq!(t.revoke, Some(0..2));
        // Two windows: each comes every 500 ms, a whole pass every 1000 ms.
        assert_eq!(t.next_period, Some(500_000_000_000));
        assert_eq!(a.on_fault(&f.view(), PageNo(0), NodeId(1)), None);
        let second = a.on_fault(&f.view(), PageNo(0), NodeId(1));
        assert_eq!(second, Some(Action::Migrate { page: PageNo(0), to: NodeId(1), reason: "two consecutive hinting faults from this node" }));
        // Every fault was remote: the next window comes as soon as the minimum allows.
        let t = a.on_timer(&f.view());
        assert_eq!((t.revoke, t.next_period), (Some(2..4), Some(500_000_000_000)));
    }
}
