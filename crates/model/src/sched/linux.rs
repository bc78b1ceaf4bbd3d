//! `linux`: today's reference — Linux's CFS time sharing with NUMA-balancing task placement
//! (kernel/sched/fair.c; not a seed's policy). OpenMP runs with its default of a fixed thread
//! count (OMP_DYNAMIC false), so every job runs as many threads as it requests, and the CPUs
//! are time-shared when the running jobs' threads outnumber them. A job's threads start on the
//! least-loaded CPUs; load balancing moves a thread from the most to the least loaded CPU while
//! their loads differ by more than one (at arrivals, completions and every period).
//!
//! NUMA balancing: each task counts its NUMA hinting faults per node, decayed by half at every
//! placement (`task_numa_placement`: `numa_faults = numa_faults / 2 + new faults`), and prefers
//! the node with the most (`numa_preferred_nid`, set by `sched_setnuma`). Every period
//! (`numa_balancing_scan_period_min`, 1000 ms) a task not on its preferred node is moved to the
//! least-loaded CPU there if that CPU is less loaded than its own, or swapped with a task there
//! that does not prefer that node (`task_numa_migrate`'s move or swap). The faults are the lines
//! each thread fetched from each node in its last iteration, sampled by the driver
//! ([`super::Report::faults`]).

use super::{loads, ms, JobInfo, Report, Running, SchedCaps, Scheduler, SchedulerInfo, Sharing, MPL};
use crate::spec::{ParamDecl, ParamKind, Resolved};
use crate::topology::Machine;
use crate::units::{CpuId, Ps};
use std::collections::VecDeque;

const PARAMS: &[ParamDecl] = &[
    ParamDecl {
        name: "numa_period_ms",
        kind: ParamKind::Float { min: super::MIN_PERIOD_MS, max: 1e7 },
        default: "1000",
        doc: "period of NUMA task placement and load balancing (kernel/sched/fair.c sysctl_numa_balancing_scan_period_min: 1000 ms)",
    },
    MPL,
];

pub(super) const INFO: SchedulerInfo = SchedulerInfo {
    name: "linux",
    doc: "Linux CFS time sharing with NUMA-balancing task placement: a preferred node per task from its decayed faults (kernel/sched/fair.c task_numa_placement)",
    params: PARAMS,
    caps: SchedCaps { sharing: Sharing::Time, efficiency: false, faults: true },
    build: |r, m, _seed| Box::new(Linux::new(r, m)),
};

pub(super) struct Linux {
    period: Ps,
    mpl: usize,
    cpu_node: Vec<usize>,
    nodes: usize,
    running: Vec<Running>,
    /// Per running job, per thread, per node: decayed fault counts.
    faults: Vec<Vec<Vec<f64>>>,
    queue: VecDeque<JobInfo>,
    /// Tasks moved or swapped by NUMA placement (for tests and listings).
    pub numa_moves: u64,
}

impl Linux {
    fn new(r: &Resolved, m: &Machine) -> Self {
        Linux {
            period: ms(r.float("numa_period_ms")).max(1),
            mpl: r.uint("mpl") as usize,
            cpu_node: m.cpu_node.iter().map(|n| n.index()).collect(),
            nodes: m.nodes(),
            running: Vec::new(),
            faults: Vec::new(),
            queue: VecDeque::new(),
            numa_moves: 0,
        }
    }

    fn cpus(&self) -> usize {
        self.cpu_node.len()
    }

    /// The node a task prefers: the most faults (the lowest node on ties), none before any.
    fn preferred(&self, j: usize, t: usize) -> Option<usize> {
        let f = self.faults[j].get(t)?;
        let (best, &max) = f.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))?;
        (max > 0.0).then_some(best)
    }

    /// Admits up to the multiprogramming level; each new thread goes to the least-loaded CPU
    /// (the lowest on ties).
    fn admit(&mut self) {
        while self.running.len() < self.mpl {
            let Some(j) = self.queue.pop_front() else { break };
            let mut load = loads(self.cpus(), &self.running);
            let mut cpus = Vec::with_capacity(j.request as usize);
            for _ in 0..j.request.max(1) {
                let c = (0..load.len()).min_by_key(|&c| (load[c], c)).expect("a machine has CPUs");
                load[c] += 1;
                cpus.push(CpuId(c as u16));
            }
            self.faults.push(vec![vec![0.0; self.nodes]; cpus.len()]);
            self.running.push(Running { id: j.id, request: j.request.max(1), cpus });
        }
    }

    /// CFS load balancing: while the most and least loaded CPUs differ by more than one thread,
    /// move one from the first to the second (a thread preferring the target's node if there
    /// is one, else the last one found).
    fn balance(&mut self) {
        loop {
            let load = loads(self.cpus(), &self.running);
            let src = (0..load.len()).max_by_key(|&c| (load[c], std::cmp::Reverse(c))).expect("CPUs");
            let dst = (0..load.len()).min_by_key(|&c| (load[c], c)).expect("CPUs");
            if load[src] <= load[dst] + 1 {
                return;
            }
            let on_src: Vec<(usize, usize)> = self.tasks().filter(|&(j, t)| self.running[j].cpus[t].0 as usize == src).collect();
            let pick = on_src
                .iter()
                .copied()
                .find(|&(j, t)| self.preferred(j, t) == Some(self.cpu_node[dst]))
                .or_else(|| on_src.last().copied())
                .expect("a loaded CPU has a task");
            self.running[pick.0].cpus[pick.1] = CpuId(dst as u16);
        }
    }

    /// Every task as (job index, thread index), in order.
    fn tasks(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.running.iter().enumerate().flat_map(|(j, r)| (0..r.cpus.len()).map(move |t| (j, t)))
    }

    /// NUMA placement: each task off its preferred node moves there or swaps with a task there.
    fn numa_place(&mut self) {
        let tasks: Vec<(usize, usize)> = self.tasks().collect();
        for (j, t) in tasks {
            let Some(want) = self.preferred(j, t) else { continue };
            let src = self.running[j].cpus[t].0 as usize;
            if self.cpu_node[src] == want {
                continue;
            }
            let load = loads(self.cpus(), &self.running);
            let Some(dst) = (0..load.len()).filter(|&c| self.cpu_node[c] == want).min_by_key(|&c| (load[c], c)) else { continue };
            if load[dst] < load[src] {
                self.running[j].cpus[t] = CpuId(dst as u16);
                self.numa_moves += 1;
                continue;
            }
            let other = self
                .tasks()
                .find(|&(oj, ot)| self.running[oj].cpus[ot].0 as usize == dst && self.preferred(oj, ot) != Some(want));
            if let Some((oj, ot)) = other {
                self.running[oj].cpus[ot] = CpuId(src as u16);
                self.running[j].cpus[t] = CpuId(dst as u16);
                self.numa_moves += 1;
            }
        }
    }
}

impl Scheduler for Linux {
    fn arrive(&mut self, _now: Ps, job: JobInfo) {
        self.queue.push_back(job);
        self.admit();
    }

    fn complete(&mut self, _now: Ps, job: u32) {
        if let Some(i) = self.running.iter().position(|r| r.id == job) {
            self.running.remove(i);
            self.faults.remove(i);
        }
        self.admit();
        self.balance();
    }

    fn report(&mut self, _now: Ps, report: &Report) {
        let Some(j) = self.running.iter().position(|r| r.id == report.job) else { return };
        let nodes = self.nodes;
        let f = &mut self.faults[j];
        f.resize(report.faults.len().max(f.len()), vec![0.0; nodes]);
        for (task, new) in f.iter_mut().zip(&report.faults) {
            for (old, &n) in task.iter_mut().zip(new) {
                *old = *old / 2.0 + n as f64;
            }
        }
    }

    fn period(&self) -> Option<Ps> {
        Some(self.period)
    }

    fn tick(&mut self, _now: Ps) {
        self.numa_place();
        self.balance();
    }

    fn running(&self) -> &[Running] {
        &self.running
    }

    fn queued(&self) -> usize {
        self.queue.len()
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{check, counts, machine};
    use super::super::*;
    use super::Linux;

    fn linux() -> Linux {
        let (_, r) = REGISTRY.resolve(&Spec::parse("linux").unwrap()).unwrap();
        Linux::new(&r, &machine())
    }

    #[test]
    fn jobs_run_their_requested_threads_time_shared() {
        let mut s = linux();
        s.arrive(0, JobInfo { id: 0, request: 6 });
        s.arrive(0, JobInfo { id: 1, request: 6 });
        assert_eq!(counts(&s), vec![(0, 6), (1, 6)]);
        check(&s, Sharing::Time);
        let load = loads(8, s.running());
        // Twelve threads on eight CPUs: loads 1 or 2.
        assert_eq!(load.iter().sum::<u32>(), 12);
        assert!(load.iter().all(|&l| (1..=2).contains(&l)), "{load:?}");
        s.complete(1, 0);
        let load = loads(8, s.running());
        assert!(load.iter().all(|&l| l <= 1), "balanced after the completion: {load:?}");
    }

    #[test]
    fn a_task_moves_to_its_preferred_node() {
        let mut s = linux();
        s.arrive(0, JobInfo { id: 0, request: 2 });
        // Threads on CPUs 0 and 1 (node 0).
        assert_eq!(s.running()[0].cpus, vec![CpuId(0), CpuId(1)]);
        // Thread 1's accesses go to node 3: after a period it runs there.
        let faults = vec![vec![10, 0, 0, 0], vec![1, 0, 0, 30]];
        s.report(0, &Report { job: 0, cpus: 2, efficiency: 1.0, faults });
        s.tick(1);
        assert_eq!(s.running()[0].cpus[0], CpuId(0));
        assert_eq!(s.running()[0].cpus[1].0 / 2, 3, "{:?}", s.running()[0].cpus);
        assert_eq!(s.numa_moves, 1);
        // Decay: old faults halve, so a new majority wins after enough reports.
        for _ in 0..3 {
            s.report(0, &Report { job: 0, cpus: 2, efficiency: 1.0, faults: vec![vec![0, 40, 0, 0], vec![0, 0, 0, 1]] });
        }
        s.tick(2);
        assert_eq!(s.running()[0].cpus[0].0 / 2, 1);
    }

    #[test]
    fn a_full_node_swaps_a_task_that_does_not_prefer_it() {
        let mut s = linux();
        s.arrive(0, JobInfo { id: 0, request: 8 });
        // Every CPU busy; thread 0 (node 0) prefers node 2, whose threads 4, 5 prefer nothing.
        let mut faults = vec![vec![0; 4]; 8];
        faults[0] = vec![0, 0, 9, 0];
        s.report(0, &Report { job: 0, cpus: 8, efficiency: 1.0, faults });
        s.tick(1);
        let cpus = &s.running()[0].cpus;
        assert_eq!(cpus[0].0 / 2, 2);
        check(&s, Sharing::Space);
    }
}
