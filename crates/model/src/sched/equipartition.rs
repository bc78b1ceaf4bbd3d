//! `equipartition`: McCann, Vaswani and Zahorjan's dynamic equal space sharing ("A Dynamic
//! Processor Allocation Policy for Multiprogrammed Shared-Memory Multiprocessors", ACM TOCS
//! 11(2), 1993; seed 002 [11]), as seed 002 §5 ran it in NANOS: every running job gets an equal
//! share of the CPUs, never more than it requests, the CPUs a small job leaves going to the
//! others; shares are recomputed at each arrival and completion; a fixed multiprogramming level
//! (seed 002 §5: "we use a fixed multiprogramming level to control the system load") admits
//! jobs first come, first served. The CPUManager "maintains the processor mapping as much as
//! possible" (seed 002 §6.1.2): a job keeps its CPUs across reallocations.

use super::{equal_shares, JobInfo, Pool, Running, SchedCaps, Scheduler, SchedulerInfo, Sharing, MPL};
use crate::spec::{ParamDecl, Resolved};
use crate::topology::Machine;
use crate::units::Ps;
use std::collections::VecDeque;

const PARAMS: &[ParamDecl] = &[MPL];

pub(super) const INFO: SchedulerInfo = SchedulerInfo {
    name: "equipartition",
    doc: "space sharing, equal allocation recomputed at arrivals and completions, fixed multiprogramming level, stable mapping (McCann et al. 1993; seed 002 §5)",
    params: PARAMS,
    caps: SchedCaps { sharing: Sharing::Space, efficiency: false, faults: false },
    build: |r, m, _seed| Box::new(Equipartition::new(r, m)),
};

pub(super) struct Equipartition {
    mpl: usize,
    pool: Pool,
    running: Vec<Running>,
    queue: VecDeque<JobInfo>,
}

impl Equipartition {
    fn new(r: &Resolved, m: &Machine) -> Self {
        Equipartition { mpl: r.uint("mpl") as usize, pool: Pool::new(m), running: Vec::new(), queue: VecDeque::new() }
    }

    /// Admits queued jobs up to the multiprogramming level (never more jobs than CPUs), then
    /// recomputes the equal shares.
    fn rebalance(&mut self) {
        let limit = self.mpl.min(self.pool.cpus());
        while self.running.len() < limit {
            let Some(j) = self.queue.pop_front() else { break };
            self.running.push(Running { id: j.id, request: j.request.max(1), cpus: Vec::new() });
        }
        let requests: Vec<u32> = self.running.iter().map(|r| r.request).collect();
        let targets = equal_shares(&requests, self.pool.cpus() as u32);
        self.pool.reallocate(&mut self.running, &targets);
    }
}

impl Scheduler for Equipartition {
    fn arrive(&mut self, _now: Ps, job: JobInfo) {
        self.queue.push_back(job);
        self.rebalance();
    }

    fn complete(&mut self, _now: Ps, job: u32) {
        if let Some(i) = self.running.iter().position(|r| r.id == job) {
            let mut r = self.running.remove(i);
            self.pool.release(&mut r);
        }
        self.rebalance();
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
    fn equal_shares_at_arrival_and_completion() {
        let mut s = sched("equipartition");
        s.arrive(0, JobInfo { id: 0, request: 8 });
        // Alone: all it asks for.
        assert_eq!(counts(s.as_ref()), vec![(0, 8)]);
        s.arrive(1, JobInfo { id: 1, request: 8 });
        assert_eq!(counts(s.as_ref()), vec![(0, 4), (1, 4)]);
        s.arrive(2, JobInfo { id: 2, request: 2 });
        // The small job gets its 2; the others split the rest.
        assert_eq!(counts(s.as_ref()), vec![(0, 3), (1, 3), (2, 2)]);
        check(s.as_ref(), Sharing::Space);
        s.complete(3, 1);
        assert_eq!(counts(s.as_ref()), vec![(0, 6), (2, 2)]);
        check(s.as_ref(), Sharing::Space);
    }

    #[test]
    fn the_multiprogramming_level_queues_the_rest() {
        let mut s = sched("equipartition:mpl=2");
        for id in 0..4 {
            s.arrive(id as u64, JobInfo { id, request: 8 });
        }
        assert_eq!(counts(s.as_ref()), vec![(0, 4), (1, 4)]);
        assert_eq!(s.queued(), 2);
        s.complete(10, 0);
        // First come, first served.
        assert_eq!(counts(s.as_ref()), vec![(1, 4), (2, 4)]);
        assert_eq!(s.queued(), 1);
    }

    #[test]
    fn jobs_keep_their_cpus_across_reallocations() {
        let mut s = sched("equipartition");
        s.arrive(0, JobInfo { id: 0, request: 8 });
        s.arrive(1, JobInfo { id: 1, request: 8 });
        let before = s.running()[0].cpus.clone();
        s.arrive(2, JobInfo { id: 2, request: 8 });
        let after = s.running()[0].cpus.clone();
        // Job 0 shrank by releasing its last CPUs: the ones it kept are where they were.
        assert_eq!(&before[..after.len()], &after[..]);
        s.complete(3, 2);
        assert_eq!(&s.running()[0].cpus[..after.len()], &after[..]);
    }
}
