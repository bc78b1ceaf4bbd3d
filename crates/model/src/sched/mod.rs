//! The `Scheduler` plug-in point: which CPUs each job of a multiprogrammed system runs on, over
//! time (seed 002). Pure: a scheduler sees job arrivals, completions, periodic ticks and the
//! jobs' measured performance, and answers with the running jobs and, for each, the CPU of every
//! one of its threads. The system simulator (`numaplace_sim::system`) drives it.
//!
//! One file per scheduler, each with its parameters and registry entry (`INFO`):
//!
//! * `irix`: IRIX 6.5's time sharing of kernel threads (seed 002 §5, §6.1.3, Table 2).
//! * `equipartition`: McCann, Vaswani and Zahorjan's equal space sharing (seed 002 §5, [11]).
//! * `pdpa`: Performance-Driven Processor Allocation (seed 002 §5, [4]).
//! * `linux`: time sharing with NUMA-balancing task placement (kernel/sched/fair.c).

use crate::error::ModelError;
use crate::registry::{Info, Registry};
use crate::rng::SplitMix64;
use crate::spec::{Resolved, Spec};
use crate::topology::Machine;
use crate::units::{CpuId, Ps};

mod equipartition;
mod irix;
mod linux;
mod pdpa;

/// A job as a scheduler knows it on arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobInfo {
    pub id: u32,
    /// CPUs requested (the most the job can use: its threads when it runs alone).
    pub request: u32,
}

/// A running job and the CPU of each of its threads (thread `i` runs on `cpus[i]`). Under
/// space sharing the CPUs are distinct and no other job's thread uses them; under time sharing
/// a CPU may carry several threads, which then share it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Running {
    pub id: u32,
    pub request: u32,
    pub cpus: Vec<CpuId>,
}

/// What a running job tells the scheduler at the end of one of its timed iterations (its
/// outer time-step loop: SelfAnalyzer's measurement point in NANOS).
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub job: u32,
    /// Threads the iteration ran with.
    pub cpus: u32,
    /// Speedup of the iteration over the job's one-CPU time per iteration, divided by `cpus`.
    pub efficiency: f64,
    /// Per thread, the lines it fetched from each node in the iteration (a sample), when the
    /// scheduler's capabilities ask for it ([`SchedCaps::faults`]); empty otherwise.
    pub faults: Vec<Vec<u64>>,
}

/// Decides which CPUs the jobs' threads run on.
///
/// # Contract
/// * The driver calls [`Scheduler::arrive`] for each job at its arrival time,
///   [`Scheduler::complete`] when a running job finishes, [`Scheduler::report`] at the end of
///   each timed iteration of a running job, and [`Scheduler::tick`] every [`Scheduler::period`],
///   all in simulated-time order; after every call it reads [`Scheduler::running`].
/// * `running` lists the admitted, unfinished jobs in the order they started, each with at
///   least one thread and at most `request` threads, every CPU a valid CPU of the machine.
///   A job stays in the list from its admission until its completion; a job in no list is
///   queued. Space-sharing schedulers never give a CPU to two threads.
/// * A thread's index is its identity: thread `i` of a job that keeps at least `i + 1` threads
///   is the same thread, and a change of its CPU between two reads is a process migration.
/// * A job's thread count takes effect at its next parallel-region boundary (the driver's
///   concern); the scheduler may change it at any call.
/// * Deterministic: the same calls (and the seed given at construction) give the same answers;
///   no state outside the struct.
pub trait Scheduler: Send {
    /// A job arrives (it queues until admitted).
    fn arrive(&mut self, now: Ps, job: JobInfo);
    /// A running job finished.
    fn complete(&mut self, now: Ps, job: u32);
    /// A running job's measurement at the end of one of its iterations.
    fn report(&mut self, _now: Ps, _report: &Report) {}
    /// Period of [`Scheduler::tick`], if the scheduler has one.
    fn period(&self) -> Option<Ps> {
        None
    }
    /// A periodic tick (time-sharing quantum, load balancing).
    fn tick(&mut self, _now: Ps) {}
    /// The running jobs, in start order, with their threads' CPUs.
    fn running(&self) -> &[Running];
    /// Jobs waiting to be admitted.
    fn queued(&self) -> usize;
}

/// How a scheduler shares the CPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sharing {
    /// Each CPU belongs to one job's thread at a time (space sharing).
    Space,
    /// Threads of several jobs may share a CPU by quantum (time sharing).
    Time,
}

impl Sharing {
    pub fn name(self) -> &'static str {
        match self {
            Sharing::Space => "space",
            Sharing::Time => "time",
        }
    }
}

/// What a scheduler does and needs, as data the driver asks before running it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchedCaps {
    pub sharing: Sharing,
    /// Whether it reads [`Report::efficiency`].
    pub efficiency: bool,
    /// Whether it reads [`Report::faults`] (the driver samples them only then).
    pub faults: bool,
}

/// A scheduler's constructor: resolved parameters, the machine and the run's seed.
pub type Build = fn(&Resolved, &Machine, u64) -> Box<dyn Scheduler>;

/// One registry entry.
pub type SchedulerInfo = Info<Build, SchedCaps>;

/// Every scheduler, keyed by the name users type.
pub const REGISTRY: Registry<Build, SchedCaps> = Registry { kind: "scheduler", groups: &[SCHEDULERS] };

/// In listing order.
const SCHEDULERS: &[SchedulerInfo] = &[irix::INFO, equipartition::INFO, pdpa::INFO, linux::INFO];

/// Builds the scheduler named by `spec` for `machine`, with `seed` for its random choices.
///
/// # Errors
/// An unknown name (listing the known ones) or a bad parameter.
pub fn build(spec: &Spec, machine: &Machine, seed: u64) -> Result<(Box<dyn Scheduler>, Resolved), ModelError> {
    let (info, resolved) = REGISTRY.resolve(spec)?;
    Ok(((info.build)(&resolved, machine, seed), resolved))
}

/// The shared multiprogramming-level parameter (seed 002 §6.1: "the default multiprogramming
/// level has been set to 4 applications in all the scheduling policies").
pub(crate) const MPL: crate::spec::ParamDecl = crate::spec::ParamDecl {
    name: "mpl",
    kind: crate::spec::ParamKind::UInt { min: 1, max: 4096 },
    default: "4",
    doc: "jobs admitted to run at once (seed 002 §6.1: 4 in all its scheduling policies); the queue is first come, first served",
};

/// The shortest period of a scheduler's tick (`irix:quantum_ms`, `linux:numa_period_ms`), ms:
/// 1 ms, the kernel's timer tick at HZ = 1000; no scheduler decides more often. A system run
/// costs a tick for every period of its makespan: `irix:quantum_ms=0.001` made a two-job
/// stream take 98 s against 11 s at the default 100 ms.
pub const MIN_PERIOD_MS: f64 = 1.0;

/// Milliseconds to picoseconds.
pub(crate) fn ms(v: f64) -> Ps {
    (v * 1e9).round() as Ps
}

/// Equal shares of `cpus` CPUs among jobs requesting `requests`, no job above its request, the
/// CPUs a satisfied job leaves going to the others (McCann et al.'s equipartition): dealt one
/// at a time in job order, so earlier jobs get the remainder.
pub fn equal_shares(requests: &[u32], cpus: u32) -> Vec<u32> {
    let mut share = vec![0u32; requests.len()];
    let mut left = cpus;
    loop {
        let mut gave = false;
        for (s, &r) in share.iter_mut().zip(requests) {
            if left == 0 {
                return share;
            }
            if *s < r {
                *s += 1;
                left -= 1;
                gave = true;
            }
        }
        if !gave {
            return share;
        }
    }
}

/// The CPUs of a machine and which job's thread holds each, for space-sharing schedulers: the
/// stable thread-to-CPU mapping (a job keeps its CPUs; it grows onto free CPUs near the ones it
/// has and shrinks by releasing its last threads' CPUs).
#[derive(Clone, Debug)]
pub(crate) struct Pool {
    cpu_node: Vec<usize>,
    /// Nodes by distance from each node (the machine's fallback order).
    nearest: Vec<Vec<usize>>,
    owner: Vec<Option<u32>>,
}

impl Pool {
    pub fn new(m: &Machine) -> Self {
        Pool {
            cpu_node: m.cpu_node.iter().map(|n| n.index()).collect(),
            nearest: m.nearest.iter().map(|v| v.iter().map(|n| n.index()).collect()).collect(),
            owner: vec![None; m.cpus()],
        }
    }

    pub fn cpus(&self) -> usize {
        self.owner.len()
    }

    pub fn free(&self) -> usize {
        self.owner.iter().filter(|o| o.is_none()).count()
    }

    /// Gives `job` up to `n` more free CPUs: on the nodes nearest its first CPU's node, or for a
    /// job with none, from the node with the most free CPUs outward (lowest CPU first within a
    /// node).
    pub fn grow(&mut self, job: &mut Running, n: usize) {
        if n == 0 {
            return;
        }
        let start = match job.cpus.first() {
            Some(c) => self.cpu_node[c.0 as usize],
            None => {
                let mut free = vec![0usize; self.nearest.len()];
                for (c, o) in self.owner.iter().enumerate() {
                    if o.is_none() {
                        free[self.cpu_node[c]] += 1;
                    }
                }
                // Most free CPUs; ties to the lowest node.
                (0..free.len()).max_by_key(|&i| (free[i], std::cmp::Reverse(i))).unwrap_or(0)
            }
        };
        let mut added = 0;
        for &node in &self.nearest[start] {
            for c in 0..self.owner.len() {
                if added == n {
                    return;
                }
                if self.cpu_node[c] == node && self.owner[c].is_none() {
                    self.owner[c] = Some(job.id);
                    job.cpus.push(CpuId(c as u16));
                    added += 1;
                }
            }
        }
    }

    /// Takes `n` CPUs from `job`, its last threads' first.
    pub fn shrink(&mut self, job: &mut Running, n: usize) {
        for _ in 0..n.min(job.cpus.len()) {
            let c = job.cpus.pop().expect("counted");
            self.owner[c.0 as usize] = None;
        }
    }

    /// Frees every CPU of `job`.
    pub fn release(&mut self, job: &mut Running) {
        let n = job.cpus.len();
        self.shrink(job, n);
    }

    /// Brings each job to its target count: every shrink first (freeing CPUs), then every grow.
    pub fn reallocate(&mut self, jobs: &mut [Running], targets: &[u32]) {
        for (j, &t) in jobs.iter_mut().zip(targets) {
            if j.cpus.len() > t as usize {
                let n = j.cpus.len() - t as usize;
                self.shrink(j, n);
            }
        }
        for (j, &t) in jobs.iter_mut().zip(targets) {
            if j.cpus.len() < t as usize {
                let n = t as usize - j.cpus.len();
                self.grow(j, n);
            }
        }
    }
}

/// Threads on each CPU, for time-sharing schedulers.
pub(crate) fn loads(cpus: usize, jobs: &[Running]) -> Vec<u32> {
    let mut load = vec![0u32; cpus];
    for j in jobs {
        for c in &j.cpus {
            load[c.0 as usize] += 1;
        }
    }
    load
}

/// A uniformly chosen least-loaded CPU.
pub(crate) fn least_loaded(load: &[u32], rng: &mut SplitMix64) -> usize {
    let min = *load.iter().min().expect("a machine has CPUs");
    let n = load.iter().filter(|&&l| l == min).count();
    let k = rng.below(n as u64) as usize;
    load.iter().enumerate().filter(|(_, &l)| l == min).nth(k).map(|(i, _)| i).expect("k < n")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// 4 nodes x 2 CPUs, latencies by a ring distance.
    pub const EIGHT: &str = "name = \"eight\"\npage_size = 4096\nline_size = 64\nmlp = 1.0\n\
        latency_ns = [[100.0, 200.0, 300.0, 200.0], [200.0, 100.0, 200.0, 300.0], [300.0, 200.0, 100.0, 200.0], [200.0, 300.0, 200.0, 100.0]]\n\
        [[nodes]]\ncpus = 2\nmemory_mib = 64\nbandwidth_gbps = 1.0\n\
        [[nodes]]\ncpus = 2\nmemory_mib = 64\nbandwidth_gbps = 1.0\n\
        [[nodes]]\ncpus = 2\nmemory_mib = 64\nbandwidth_gbps = 1.0\n\
        [[nodes]]\ncpus = 2\nmemory_mib = 64\nbandwidth_gbps = 1.0\n\
        [migration]\nfixed_ns = 0.0\ncopy_gbps = 1.0\ntlb_shootdown_ns_per_cpu = 0.0\n";

    pub fn machine() -> Machine {
        Machine::from_toml_str(EIGHT, "eight").unwrap()
    }

    pub fn sched(spec: &str) -> Box<dyn Scheduler> {
        build(&Spec::parse(spec).unwrap(), &machine(), 7).unwrap().0
    }

    /// `(id, threads)` of the running jobs.
    pub fn counts(s: &dyn Scheduler) -> Vec<(u32, usize)> {
        s.running().iter().map(|r| (r.id, r.cpus.len())).collect()
    }

    /// Checks the contract's invariants on one answer.
    pub fn check(s: &dyn Scheduler, sharing: Sharing) {
        let mut seen = std::collections::HashSet::new();
        for r in s.running() {
            assert!(!r.cpus.is_empty() && r.cpus.len() <= r.request as usize, "{r:?}");
            for c in &r.cpus {
                assert!((c.0 as usize) < 8);
                if sharing == Sharing::Space {
                    assert!(seen.insert(c.0), "CPU {} given twice", c.0);
                }
            }
        }
    }

    #[test]
    fn equal_shares_cap_at_requests_and_pass_the_rest_on() {
        assert_eq!(equal_shares(&[32, 32], 64), vec![32, 32]);
        assert_eq!(equal_shares(&[32, 2, 32], 64), vec![31, 2, 31]);
        assert_eq!(equal_shares(&[32, 32, 32], 64), vec![22, 21, 21]);
        assert_eq!(equal_shares(&[2, 2], 64), vec![2, 2]);
        assert_eq!(equal_shares(&[], 8), Vec::<u32>::new());
    }

    #[test]
    fn a_pool_grows_near_and_shrinks_from_the_end() {
        let m = machine();
        let mut p = Pool::new(&m);
        let mut a = Running { id: 0, request: 8, cpus: vec![] };
        p.grow(&mut a, 3);
        // Node 0 first (all nodes tie on free CPUs), then its nearest.
        assert_eq!(a.cpus, vec![CpuId(0), CpuId(1), CpuId(2)]);
        let mut b = Running { id: 1, request: 8, cpus: vec![] };
        p.grow(&mut b, 2);
        // Node 2 and 3 have 2 free each, node 1 one: node 2 first.
        assert_eq!(b.cpus, vec![CpuId(4), CpuId(5)]);
        p.shrink(&mut a, 2);
        assert_eq!(a.cpus, vec![CpuId(0)]);
        assert_eq!(p.free(), 5);
    }

    #[test]
    fn every_entry_builds_with_its_defaults() {
        for info in REGISTRY.iter() {
            let (s, r) = build(&Spec::parse(info.name).unwrap(), &machine(), 1).unwrap();
            assert!(s.running().is_empty() && s.queued() == 0, "{}", r);
            assert!(info.params.iter().all(|p| !p.doc.is_empty()));
        }
        let e = build(&Spec::parse("fifo").unwrap(), &machine(), 1).err().unwrap().to_string();
        assert_eq!(e, "unknown scheduler 'fifo' (known: equipartition, irix, linux, pdpa)");
    }
}
