//! `irix`: IRIX 6.5's native scheduler as seed 002 observed it (§5, §6.1.3, Table 2). IRIX
//! time-shares the kernel threads of the running jobs, using "information related to the
//! process placement to maintain as much as possible the process affinity" (§5), yet the jobs
//! "suffer a lot of unneeded kernel thread migrations" (§6.1.3): more than 150 000 process
//! migrations and bursts of 0.243 s on average, against more than 10 s under the NANOS
//! policies (Table 2).
//!
//! The model: jobs run OpenMP with the DYNAMIC flag, so each job's thread count is its equal
//! share of the machine (§6.1.3: "the resulting processor allocation should be equal to the
//! Equipartition"), recomputed at arrivals and completions, with the same multiprogramming level
//! as the other policies (§6.1). Every `quantum_ms` each thread is dispatched again: it stays
//! on the CPU it last ran on with probability `affinity` (the affinity IRIX keeps) and is
//! otherwise run on a uniformly chosen least-loaded CPU (IRIX's load balancing over its global
//! run queue; a thread that blocked at a barrier wakes up wherever a CPU is free). A thread's
//! mean burst on one CPU is therefore about `quantum / (1 − affinity)` (a moved thread may
//! draw its own CPU again). New threads go to a
//! least-loaded CPU; when the running jobs' threads outnumber the CPUs, CPUs carry several
//! threads, which share them.

use super::{equal_shares, least_loaded, loads, ms, JobInfo, Running, SchedCaps, Scheduler, SchedulerInfo, Sharing, MPL};
use crate::rng::{derive, SplitMix64};
use crate::spec::{ParamDecl, ParamKind, Resolved};
use crate::topology::Machine;
use crate::units::{CpuId, Ps};
use std::collections::VecDeque;

const PARAMS: &[ParamDecl] = &[
    ParamDecl {
        name: "quantum_ms",
        kind: ParamKind::Float { min: super::MIN_PERIOD_MS, max: 1e6 },
        default: "100",
        doc: "time between dispatches of every thread (assumption: a time slice of the order of IRIX's; seed 002 gives only the bursts)",
    },
    ParamDecl {
        name: "affinity",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: "0.6",
        doc: "probability that a dispatched thread stays on its last CPU: the mean burst quantum/(1-affinity) is 250 ms at the defaults, seed 002 Table 2's 0.243 s",
    },
    MPL,
];

pub(super) const INFO: SchedulerInfo = SchedulerInfo {
    name: "irix",
    doc: "IRIX 6.5 time sharing of kernel threads: equal thread counts (OpenMP DYNAMIC), affinity but frequent moves between CPUs (seed 002 §6.1.3, Table 2)",
    params: PARAMS,
    caps: SchedCaps { sharing: Sharing::Time, efficiency: false, faults: false },
    build: |r, m, seed| Box::new(Irix::new(r, m, seed)),
};

pub(super) struct Irix {
    quantum: Ps,
    affinity: f64,
    mpl: usize,
    cpus: usize,
    rng: SplitMix64,
    running: Vec<Running>,
    queue: VecDeque<JobInfo>,
}

impl Irix {
    fn new(r: &Resolved, m: &Machine, seed: u64) -> Self {
        Irix {
            quantum: ms(r.float("quantum_ms")).max(1),
            affinity: r.float("affinity"),
            mpl: r.uint("mpl") as usize,
            cpus: m.cpus(),
            rng: SplitMix64::new(derive(seed, 0x1_41C5)),
            running: Vec::new(),
            queue: VecDeque::new(),
        }
    }

    /// Admits up to the multiprogramming level and sets every job's thread count to its equal
    /// share: a job drops its last threads, new threads start on least-loaded CPUs.
    fn rebalance(&mut self) {
        while self.running.len() < self.mpl.min(self.cpus) {
            let Some(j) = self.queue.pop_front() else { break };
            self.running.push(Running { id: j.id, request: j.request.max(1), cpus: Vec::new() });
        }
        let requests: Vec<u32> = self.running.iter().map(|r| r.request).collect();
        let targets = equal_shares(&requests, self.cpus as u32);
        for (j, &t) in self.running.iter_mut().zip(&targets) {
            j.cpus.truncate(t as usize);
        }
        let mut load = loads(self.cpus, &self.running);
        for (i, &t) in targets.iter().enumerate() {
            while self.running[i].cpus.len() < t as usize {
                let c = least_loaded(&load, &mut self.rng);
                load[c] += 1;
                self.running[i].cpus.push(CpuId(c as u16));
            }
        }
    }
}

impl Scheduler for Irix {
    fn arrive(&mut self, _now: Ps, job: JobInfo) {
        self.queue.push_back(job);
        self.rebalance();
    }

    fn complete(&mut self, _now: Ps, job: u32) {
        self.running.retain(|r| r.id != job);
        self.rebalance();
    }

    fn period(&self) -> Option<Ps> {
        Some(self.quantum)
    }

    /// Every thread is dispatched again: kept on its CPU with probability `affinity` (if no
    /// kept thread took that CPU first), otherwise to a least-loaded CPU.
    fn tick(&mut self, _now: Ps) {
        let mut load = vec![0u32; self.cpus];
        let mut moved: Vec<(usize, usize)> = Vec::new();
        for (j, job) in self.running.iter().enumerate() {
            for (t, c) in job.cpus.iter().enumerate() {
                let c = c.0 as usize;
                if load[c] == 0 && self.rng.unit() < self.affinity {
                    load[c] = 1;
                } else {
                    moved.push((j, t));
                }
            }
        }
        for (j, t) in moved {
            let c = least_loaded(&load, &mut self.rng);
            load[c] += 1;
            self.running[j].cpus[t] = CpuId(c as u16);
        }
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
    use super::super::tests::{check, counts, sched};
    use super::super::*;

    #[test]
    fn thread_counts_are_equal_shares() {
        let mut s = sched("irix:mpl=2");
        s.arrive(0, JobInfo { id: 0, request: 8 });
        assert_eq!(counts(s.as_ref()), vec![(0, 8)]);
        s.arrive(0, JobInfo { id: 1, request: 8 });
        s.arrive(0, JobInfo { id: 2, request: 8 });
        assert_eq!(counts(s.as_ref()), vec![(0, 4), (1, 4)]);
        assert_eq!(s.queued(), 1);
        check(s.as_ref(), Sharing::Space);
    }

    #[test]
    fn time_sharing_moves_threads_every_quantum() {
        let mut s = sched("irix:affinity=0.6");
        s.arrive(0, JobInfo { id: 0, request: 4 });
        s.arrive(0, JobInfo { id: 1, request: 4 });
        let (mut moves, mut dispatches) = (0, 0);
        for k in 0..500 {
            let before: Vec<CpuId> = s.running().iter().flat_map(|r| r.cpus.clone()).collect();
            s.tick(k * s.period().unwrap());
            let after: Vec<CpuId> = s.running().iter().flat_map(|r| r.cpus.clone()).collect();
            // Eight threads, eight CPUs: one each, always.
            check(s.as_ref(), Sharing::Space);
            moves += before.iter().zip(&after).filter(|(a, b)| a != b).count();
            dispatches += before.len();
        }
        // A thread leaves its CPU 40 % of the time, and lands elsewhere most of those times
        // (a moved thread may draw its own CPU back when it is free).
        let rate = moves as f64 / dispatches as f64;
        assert!((0.2..0.42).contains(&rate), "moved {rate} of the time");
        // Affinity 1: nothing moves.
        let mut s = sched("irix:affinity=1");
        s.arrive(0, JobInfo { id: 0, request: 8 });
        let before = s.running()[0].cpus.clone();
        s.tick(1);
        assert_eq!(s.running()[0].cpus, before);
    }

    #[test]
    fn the_same_seed_gives_the_same_moves() {
        let run = |seed| {
            let mut s = build(&Spec::parse("irix").unwrap(), &super::super::tests::machine(), seed).unwrap().0;
            s.arrive(0, JobInfo { id: 0, request: 8 });
            (0..10).map(|k| { s.tick(k); s.running()[0].cpus.clone() }).collect::<Vec<_>>()
        };
        assert_eq!(run(3), run(3));
        assert_ne!(run(3), run(4));
    }
}
