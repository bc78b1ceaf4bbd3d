//! `pdpa`: Performance-Driven Processor Allocation (Corbalán, Martorell, Labarta, OSDI 2000 and
//! IEEE TPDS 16(7), 2005; seed 002 §5 [4]). A coordinated processor-allocation and
//! multiprogramming-level policy driven by each job's efficiency as measured while it runs
//! (NANOS's SelfAnalyzer, once per outer iteration):
//!
//! * Allocation: "allocates to applications the maximum number of processors to reach a given
//!   target efficiency" (0.7 in seed 002 §5). Each job moves through states: with no
//!   measurement yet it keeps its first allocation; a job whose efficiency is at or above the
//!   target grows by `step` CPUs (never past its request, only onto free CPUs) and keeps growing
//!   while it stays efficient; a job below the target shrinks by `step` until it reaches the
//!   target (or one CPU); a job that grew and fell below the target gives the last step back;
//!   then it is stable and keeps its CPUs.
//! * Multiprogramming level: "allows the execution of a new application when free processors
//!   are available and the allocation of all the running applications is stable, or if some
//!   applications show bad performance" (TPDS 2005 abstract); below the default level (4, seed
//!   002 §6.1) a job is always admitted, taking an equal share from the largest jobs if no CPU
//!   is free. The level is otherwise unbounded (seed 002 §6.1.2 saw up to 36 jobs).
//!
//! The mapping is stable as under `equipartition` (the same CPUManager).

use super::{equal_shares, JobInfo, Pool, Report, Running, SchedCaps, Scheduler, SchedulerInfo, Sharing, MPL};
use crate::spec::{ParamDecl, ParamKind, Resolved};
use crate::topology::Machine;
use crate::units::Ps;
use std::collections::VecDeque;

const PARAMS: &[ParamDecl] = &[
    ParamDecl {
        name: "target",
        kind: ParamKind::Float { min: 0.01, max: 1.0 },
        default: "0.7",
        doc: "target efficiency: jobs at or above it grow, below it shrink (seed 002 §5: 0.7)",
    },
    ParamDecl {
        name: "step",
        kind: ParamKind::UInt { min: 1, max: 4096 },
        default: "4",
        doc: "CPUs added or removed per decision (assumption: seed 002 does not give PDPA's step; 4 CPUs, two Origin2000 nodes)",
    },
    MPL,
];

pub(super) const INFO: SchedulerInfo = SchedulerInfo {
    name: "pdpa",
    doc: "Performance-Driven Processor Allocation: grows jobs above the target efficiency, shrinks the rest, dynamic multiprogramming level (Corbalan et al., OSDI 2000; seed 002 §5)",
    params: PARAMS,
    caps: SchedCaps { sharing: Sharing::Space, efficiency: true, faults: false },
    build: |r, m, _seed| Box::new(Pdpa::new(r, m)),
};

/// A job's place in PDPA's search for its allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum State {
    /// No measurement at the current allocation yet.
    NoRef,
    /// Efficient so far: growing.
    Inc,
    /// Inefficient: shrinking.
    Dec,
    /// Settled.
    Stable,
}

pub(super) struct Pdpa {
    target: f64,
    step: usize,
    mpl: usize,
    pool: Pool,
    running: Vec<Running>,
    state: Vec<State>,
    queue: VecDeque<JobInfo>,
}

impl Pdpa {
    fn new(r: &Resolved, m: &Machine) -> Self {
        Pdpa {
            target: r.float("target"),
            step: r.uint("step") as usize,
            mpl: r.uint("mpl") as usize,
            pool: Pool::new(m),
            running: Vec::new(),
            state: Vec::new(),
            queue: VecDeque::new(),
        }
    }

    /// Admits queued jobs while the multiprogramming-level policy allows.
    fn admit(&mut self) {
        while let Some(&head) = self.queue.front() {
            let below_default = self.running.len() < self.mpl.min(self.pool.cpus());
            let settled = self.state.iter().all(|s| matches!(s, State::Stable | State::Dec));
            let free = self.pool.free();
            if !(below_default || (free > 0 && settled)) {
                break;
            }
            self.queue.pop_front();
            let request = head.request.max(1);
            let mut job = Running { id: head.id, request, cpus: Vec::new() };
            let want = if free > 0 {
                (request as usize).min(free.max(self.pool.cpus() / (self.running.len() + 1)))
            } else {
                // Below the default level with every CPU taken: an equal share, taken from the
                // largest jobs.
                let mut requests: Vec<u32> = self.running.iter().map(|r| r.cpus.len() as u32).collect();
                requests.push(request);
                *equal_shares(&requests, self.pool.cpus() as u32).last().expect("one job at least") as usize
            };
            let need = want.saturating_sub(free).max(usize::from(free == 0));
            self.take_from_largest(need);
            self.pool.grow(&mut job, want.max(1).min(self.pool.free()));
            if job.cpus.is_empty() {
                // No CPU could be found (more jobs than CPUs): it waits.
                self.queue.push_front(head);
                break;
            }
            self.running.push(job);
            self.state.push(State::NoRef);
        }
    }

    /// Frees `n` CPUs, one at a time from the job holding the most (never below one CPU).
    fn take_from_largest(&mut self, n: usize) {
        for _ in 0..n {
            let Some((i, _)) = self.running.iter().enumerate().filter(|(_, r)| r.cpus.len() > 1).max_by_key(|(i, r)| (r.cpus.len(), std::cmp::Reverse(*i)))
            else {
                return;
            };
            self.pool.shrink(&mut self.running[i], 1);
            // Its allocation changed: measure again.
            self.state[i] = State::NoRef;
        }
    }

    /// The state of job `i` after a measurement of `efficiency` at its current allocation.
    fn decide(&mut self, i: usize, efficiency: f64) {
        let good = efficiency >= self.target;
        let have = self.running[i].cpus.len();
        let room = (self.running[i].request as usize).saturating_sub(have).min(self.pool.free()).min(self.step);
        let next = match (self.state[i], good) {
            (State::NoRef | State::Inc, true) if room > 0 => {
                self.pool.grow(&mut self.running[i], room);
                State::Inc
            }
            (State::NoRef | State::Inc, true) => State::Stable,
            // Grew past the target: give the last step back.
            (State::Inc, false) => {
                self.pool.shrink(&mut self.running[i], self.step.min(have - 1));
                State::Stable
            }
            (State::NoRef | State::Dec, false) if have > 1 => {
                self.pool.shrink(&mut self.running[i], self.step.min(have - 1));
                State::Dec
            }
            (State::Dec, true) => State::Stable,
            (s, _) => {
                if s == State::NoRef {
                    State::Stable
                } else {
                    s
                }
            }
        };
        self.state[i] = next;
    }
}

impl Scheduler for Pdpa {
    fn arrive(&mut self, _now: Ps, job: JobInfo) {
        self.queue.push_back(job);
        self.admit();
    }

    fn complete(&mut self, _now: Ps, job: u32) {
        if let Some(i) = self.running.iter().position(|r| r.id == job) {
            let mut r = self.running.remove(i);
            self.state.remove(i);
            self.pool.release(&mut r);
        }
        self.admit();
    }

    fn report(&mut self, _now: Ps, report: &Report) {
        let Some(i) = self.running.iter().position(|r| r.id == report.job) else { return };
        // A measurement of an allocation the job no longer has says nothing about this one.
        if report.cpus as usize != self.running[i].cpus.len() || self.state[i] == State::Stable {
            return;
        }
        self.decide(i, report.efficiency);
        self.admit();
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

    fn report(s: &mut dyn Scheduler, job: u32, efficiency: f64) {
        let cpus = s.running().iter().find(|r| r.id == job).unwrap().cpus.len() as u32;
        s.report(0, &Report { job, cpus, efficiency, faults: Vec::new() });
    }

    #[test]
    fn an_efficient_job_grows_and_an_inefficient_one_shrinks() {
        let mut s = sched("pdpa:step=1,mpl=2");
        s.arrive(0, JobInfo { id: 0, request: 6 });
        s.arrive(0, JobInfo { id: 1, request: 6 });
        // Job 0 took its 6; job 1 (below the default level) an equal share from it.
        assert_eq!(counts(s.as_ref()), vec![(0, 4), (1, 4)]);
        // Job 1 is inefficient: it shrinks, step by step, while it stays below the target.
        report(s.as_mut(), 1, 0.4);
        assert_eq!(counts(s.as_ref()), vec![(0, 4), (1, 3)]);
        report(s.as_mut(), 1, 0.5);
        assert_eq!(counts(s.as_ref()), vec![(0, 4), (1, 2)]);
        // Job 0 is efficient: it grows onto the freed CPUs.
        report(s.as_mut(), 0, 0.9);
        assert_eq!(counts(s.as_ref()), vec![(0, 5), (1, 2)]);
        report(s.as_mut(), 0, 0.8);
        assert_eq!(counts(s.as_ref()), vec![(0, 6), (1, 2)]);
        // At its request it is stable; job 1 reaching the target is stable too.
        report(s.as_mut(), 0, 0.8);
        report(s.as_mut(), 1, 0.75);
        assert_eq!(counts(s.as_ref()), vec![(0, 6), (1, 2)]);
        check(s.as_ref(), Sharing::Space);
    }

    #[test]
    fn a_job_that_grows_past_the_target_gives_the_step_back() {
        let mut s = sched("pdpa:step=2,mpl=1");
        s.arrive(0, JobInfo { id: 0, request: 8 });
        assert_eq!(counts(s.as_ref()), vec![(0, 8)]);
        s.complete(1, 0);
        s.arrive(2, JobInfo { id: 1, request: 2 });
        s.arrive(2, JobInfo { id: 2, request: 8 });
        // mpl=1 and job 1 unmeasured: job 2 waits although CPUs are free.
        assert_eq!(counts(s.as_ref()), vec![(1, 2)]);
        assert_eq!(s.queued(), 1);
        // Job 1 measured and stable at its request: job 2 is admitted onto the free CPUs.
        report(s.as_mut(), 1, 0.9);
        assert_eq!(counts(s.as_ref()), vec![(1, 2), (2, 6)]);
        // Job 2 efficient but no CPU free: stable. Dynamic level: job 3 waits for free CPUs.
        report(s.as_mut(), 2, 0.9);
        s.arrive(3, JobInfo { id: 3, request: 8 });
        assert_eq!(s.queued(), 1);
        // Job 2 inefficient now, but it is stable: it keeps its CPUs.
        report(s.as_mut(), 2, 0.3);
        assert_eq!(counts(s.as_ref()), vec![(1, 2), (2, 6)]);
    }

    #[test]
    fn an_inc_job_that_falls_below_the_target_steps_back() {
        let mut s = sched("pdpa:step=2,mpl=2");
        s.arrive(0, JobInfo { id: 0, request: 8 });
        s.arrive(0, JobInfo { id: 1, request: 2 });
        assert_eq!(counts(s.as_ref()), vec![(0, 6), (1, 2)]);
        s.complete(1, 1);
        report(s.as_mut(), 0, 0.9);
        assert_eq!(counts(s.as_ref()), vec![(0, 8)]);
        report(s.as_mut(), 0, 0.6);
        assert_eq!(counts(s.as_ref()), vec![(0, 6)]);
        report(s.as_mut(), 0, 0.9);
        assert_eq!(counts(s.as_ref()), vec![(0, 6)], "stable");
    }
}
