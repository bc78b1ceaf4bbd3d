//! One malleable OpenMP job in a system run: its workload, its engine (its own address space,
//! page table, placement, dynamic policy and counters) and its accounting.
//!
//! **Malleability.** The workload is built once for the job's request `R` threads: each epoch
//! holds `R` chunks of work, the parts a static schedule gives `R` threads. Given `p ≤ R`
//! CPUs, thread `i` runs chunks `block_range(R, p, i)` one after another — the partition a
//! static schedule of `p` threads gives when `p` divides `R`, and the imbalance of an `R`-chunk
//! decomposition otherwise. The thread count and the threads' CPUs change only at epoch
//! boundaries (parallel-region boundaries, where NthLib adapts). A chunk keeps its pages where
//! they are when another thread, on another CPU, takes it over: its accesses are remote until a
//! dynamic policy moves them.

use super::result::JobRecord;
use crate::binding::Placed;
use crate::engine::Engine;
use crate::error::SimError;
use crate::workload::{block_range, Epoch, Init, ThreadWork, Workload, WorkloadCtx};
use crate::workloads;
use numaplace_model::jobs::{job_name, JobOrigin};
use numaplace_model::placement;
use numaplace_model::units::PS_PER_NS;
use numaplace_model::{dynamic, CpuId, Machine, ModelError, Ps, Spec};

/// Every this many records of a thread, one is a sample of its "faults" (the nodes serving it),
/// for schedulers that place tasks by them (`linux`): NUMA hinting faults are a sample too.
const FAULT_SAMPLE: usize = 64;

/// What a job is built from.
pub(super) struct JobSpec<'a> {
    pub id: u32,
    /// Where the job came from (an SWF log's line and job number), for messages.
    pub origin: Option<JobOrigin>,
    pub workload: &'a str,
    pub request: u32,
    pub placement: &'a str,
    pub dynamic: Option<&'a str>,
    pub seed: u64,
    pub init: Init,
    pub quantum_ps: Ps,
}

/// A job in progress.
pub(super) struct Live<'m> {
    pub id: u32,
    pub origin: Option<JobOrigin>,
    pub request: u32,
    pub workload: String,
    engine: Engine<'m>,
    wl: Box<dyn Workload>,
    /// The workload's epoch (`request` chunks) and the merged one the engine runs.
    chunks: Epoch,
    merged: Epoch,
    /// The threads' CPUs and placement now.
    pub cpus: Vec<CpuId>,
    placed: Vec<Placed>,
    /// Per thread the job ever had, the CPU it last ran on: a thread the job dropped and takes
    /// back later resumes there or migrates.
    last_cpu: Vec<CpuId>,
    /// System time of the job's start, and of its next epoch boundary.
    pub start: Ps,
    pub clock: Ps,
    iteration: u32,
    /// Engine time when the current timed iteration started, and whether its thread count
    /// changed since (then its measurement is not reported).
    iteration_start: Ps,
    iteration_mixed: bool,
    /// Epochs run in the current iteration.
    iteration_epochs: u32,
    pub cpu_time: f64,
    alloc_time: f64,
    pub migrations: u64,
    pub bursts: u64,
    /// Lines each node served this job so far, and the rate of the last step (lines per ps).
    served: Vec<u64>,
    pub rate: Vec<f64>,
    /// Sampled lines per thread per node in the current iteration (`linux`).
    pub faults: Vec<Vec<u64>>,
    sample_faults: bool,
    /// (time, threads) changes, for the timeline.
    pub allocations: Vec<(Ps, u32)>,
}

/// What the job's step did.
pub(super) enum Step {
    /// An epoch ran.
    Ran,
    /// A timed iteration ended before the epoch: its wall time (ps) and thread count, if its
    /// thread count did not change during it.
    Iteration { time: Ps, threads: u32 },
    /// The job finished.
    Done,
}

fn ns(ps: f64) -> f64 {
    ps / PS_PER_NS as f64
}

impl<'m> Live<'m> {
    /// Builds the job on `machine` with its threads on `cpus` (sharing as `share` says), at
    /// system time `now`.
    ///
    /// # Errors
    /// A bad workload, placement or policy spec, or a footprint the machine cannot hold; each
    /// message names the job.
    pub fn new(machine: &'m Machine, spec: &JobSpec<'_>, placed: Vec<Placed>, now: Ps, sample_faults: bool) -> Result<Self, SimError> {
        let named = |e: ModelError| -> SimError { ModelError::Spec(format!("{}: {e}", job_name(spec.id, spec.origin))).into() };
        let ctx = WorkloadCtx {
            threads: spec.request.max(1) as usize,
            page_size: machine.raw.page_size,
            line_size: machine.raw.line_size,
            seed: spec.seed,
            init: spec.init,
        };
        let (mut wl, resolved) = workloads::build(&Spec::parse(spec.workload).map_err(named)?, &ctx).map_err(named)?;
        machine.check_footprint(wl.pages()).map_err(named)?;
        wl.share_caches(&thread_of_chunks(spec.request.max(1), placed.len()));
        let (place, _) = placement::build(&Spec::parse(spec.placement)?, machine, spec.seed)?;
        let mut engine = Engine::new(machine, &placed, wl.regions().to_vec(), place, spec.quantum_ps);
        if let Some(text) = spec.dynamic {
            let (policy, resolved) = dynamic::build(&Spec::parse(text)?, machine, ctx.threads)?;
            policy.check_regions(wl.regions()).map_err(|e| named(ModelError::Spec(e)))?;
            engine.set_dynamic(policy, &dynamic::REGISTRY.get(&resolved.name)?.caps);
        }
        engine.set_declared_iterations(wl.declared_iterations());
        let nn = machine.nodes();
        let p = placed.len() as u32;
        Ok(Live {
            id: spec.id,
            origin: spec.origin,
            request: spec.request.max(1),
            workload: resolved.to_string(),
            engine,
            wl,
            chunks: Epoch::default(),
            merged: Epoch::default(),
            cpus: placed.iter().map(|x| x.cpu).collect(),
            last_cpu: placed.iter().map(|x| x.cpu).collect(),
            placed,
            start: now,
            clock: now,
            iteration: 0,
            iteration_start: 0,
            iteration_mixed: false,
            iteration_epochs: 0,
            cpu_time: 0.0,
            alloc_time: 0.0,
            migrations: 0,
            bursts: 0,
            served: vec![0; nn],
            rate: vec![0.0; nn],
            faults: if sample_faults { vec![vec![0; nn]; p as usize] } else { Vec::new() },
            sample_faults,
            allocations: vec![(now, p)],
        })
    }

    /// Pages the job holds on each node.
    pub fn pages_per_node(&self) -> &[u64] {
        self.engine.page_table().pages_per_node()
    }

    /// Pages of the job's address space.
    pub fn footprint(&self) -> u64 {
        self.wl.pages()
    }

    /// The threads run on `placed` from the next epoch: moves are process migrations, every
    /// move or dropped thread ends a burst.
    pub fn adopt(&mut self, placed: Vec<Placed>, now: Ps) {
        if placed == self.placed {
            return;
        }
        let cpus: Vec<CpuId> = placed.iter().map(|p| p.cpu).collect();
        let kept = cpus.len().min(self.cpus.len());
        let moved = (0..kept).filter(|&i| cpus[i] != self.cpus[i]).count() as u64;
        self.bursts += moved + (self.cpus.len() - kept) as u64;
        // A process migration is a thread resuming on another CPU than it last ran on (seed
        // 002 §2): a kept thread moved (`last_cpu` starts with the current CPUs), or a dropped
        // one taken back elsewhere.
        self.migrations += (0..cpus.len()).filter(|&i| self.last_cpu.get(i).is_some_and(|&c| c != cpus[i])).count() as u64;
        for (i, &c) in cpus.iter().enumerate() {
            match self.last_cpu.get_mut(i) {
                Some(last) => *last = c,
                None => self.last_cpu.push(c),
            }
        }
        if cpus.len() != self.cpus.len() {
            // A change before the iteration's first epoch (at the boundary where it starts)
            // leaves its measurement whole.
            self.iteration_mixed |= self.iteration_epochs > 0;
            self.allocations.push((now, cpus.len() as u32));
            if self.sample_faults {
                self.faults.resize(cpus.len(), vec![0; self.served.len()]);
            }
        }
        // Each chunk whose CPU changed finds its cache cold there; the chunks one thread runs
        // share its CPU's cache.
        for c in moved_chunks(self.request, &self.cpus, &cpus) {
            self.wl.cache_lost(c);
        }
        if cpus.len() != self.cpus.len() {
            self.wl.share_caches(&thread_of_chunks(self.request, cpus.len()));
        }
        self.engine.rebind(&placed);
        self.cpus = cpus;
        self.placed = placed;
    }

    /// Fetches the next epoch. At the boundary of a timed iteration the engine's iteration hook
    /// runs (its policy's moves lengthen the iteration) and the finished iteration is returned;
    /// at the end the job is done. Call [`Live::run`] after anything but `Done`.
    pub fn next(&mut self) -> Step {
        let before = self.engine.now();
        if !self.wl.next_epoch(&mut self.chunks) {
            if self.iteration > 0 {
                self.engine.finish();
            }
            return Step::Done;
        }
        let mut step = Step::Ran;
        if self.chunks.iteration != self.iteration && self.iteration > 0 {
            self.engine.end_iteration(self.iteration);
            let time = self.engine.now() - self.iteration_start;
            if !self.iteration_mixed {
                step = Step::Iteration { time, threads: self.cpus.len() as u32 };
            }
        }
        if self.chunks.iteration > 0 && self.iteration == 0 {
            self.engine.start_timed();
        }
        if self.chunks.iteration != self.iteration {
            self.iteration_start = self.engine.now();
            self.iteration_mixed = false;
            self.iteration_epochs = 0;
        }
        self.iteration = self.chunks.iteration;
        // The iteration hook's cost is time the threads spend (spinning) at the barrier.
        self.account(before, false);
        step
    }

    /// Runs the fetched epoch with the current threads, other jobs' traffic `background` (lines
    /// per ps per node) queueing at the same controllers and `capacity` pages per node left to
    /// this job.
    pub fn run(&mut self, background: &[f64], capacity: &[u64]) {
        let before = self.engine.now();
        self.engine.set_background(background);
        self.engine.set_capacity(capacity);
        let p = self.cpus.len();
        let r = self.chunks.threads.len();
        self.iteration_epochs += 1;
        if p == r {
            self.engine.run_epoch(&self.chunks);
        } else {
            merge(&self.chunks, p, &mut self.merged);
            self.engine.run_epoch(&self.merged);
        }
        if self.sample_faults {
            let homes = self.engine.page_table().homes();
            let epoch = if p == r { &self.chunks } else { &self.merged };
            for (f, work) in self.faults.iter_mut().zip(&epoch.threads) {
                for tx in work.txns.iter().step_by(FAULT_SAMPLE) {
                    if let Some(n) = f.get_mut(homes[tx.page as usize] as usize) {
                        *n += tx.count as u64;
                    }
                }
            }
        }
        self.account(before, true);
    }

    /// Charges the time since `before` (engine time): CPU time by each thread's share, the
    /// allocation and, after an epoch (`traffic`), the rate of the lines it was served.
    fn account(&mut self, before: Ps, traffic: bool) {
        let now = self.engine.now();
        let wall = (now - before) as f64;
        self.clock = self.start + now;
        if wall <= 0.0 {
            return;
        }
        let shares: f64 = self.placed.iter().map(|p| 1.0 / p.share.max(1) as f64).sum();
        self.cpu_time += wall * shares;
        self.alloc_time += wall * self.placed.len() as f64;
        if !traffic {
            return;
        }
        let nn = self.served.len();
        let (init, timed) = (&self.engine.init.lines, &self.engine.timed.lines);
        for h in 0..nn {
            let total: u64 = (0..nn).map(|n| init[n * nn + h] + timed[n * nn + h]).sum();
            self.rate[h] = (total - self.served[h]) as f64 / wall;
            self.served[h] = total;
        }
    }

    /// Whether the engine passed the simulator's time bound.
    pub fn overran(&self) -> bool {
        self.engine.overran
    }

    /// The job's record, at its end (system time `self.clock`); the threads' last bursts end.
    pub fn finish(mut self, arrival: Ps, one_cpu: Ps) -> Result<JobRecord, SimError> {
        if let Some(d) = &self.engine.dynamic {
            d.check_finished().map_err(|e| ModelError::Spec(format!("{}: {e}", job_name(self.id, self.origin))))?;
        }
        self.bursts += self.cpus.len() as u64;
        let nn = self.served.len();
        let (init, timed) = (&self.engine.init.lines, &self.engine.timed.lines);
        let all: u64 = init.iter().chain(timed).sum();
        let local: u64 = (0..nn).map(|n| init[n * nn + n] + timed[n * nn + n]).sum();
        let stats = self.engine.dynamic.as_ref().map(|d| d.stats()).unwrap_or_default();
        let execution = (self.clock - self.start) as f64;
        Ok(JobRecord {
            job: self.id,
            workload: std::mem::take(&mut self.workload),
            request: self.request,
            arrival_ns: ns(arrival as f64),
            start_ns: ns(self.start as f64),
            end_ns: ns(self.clock as f64),
            response_ns: ns((self.clock - arrival) as f64),
            wait_ns: ns((self.start - arrival) as f64),
            execution_ns: ns(execution),
            cpu_time_ns: ns(self.cpu_time),
            one_cpu_ns: ns(one_cpu as f64),
            speedup: if execution > 0.0 { one_cpu as f64 / execution } else { 0.0 },
            mean_cpus: if execution > 0.0 { self.alloc_time / execution } else { self.cpus.len() as f64 },
            process_migrations: self.migrations,
            bursts: self.bursts,
            mean_burst_ns: if self.bursts > 0 { ns(self.cpu_time) / self.bursts as f64 } else { 0.0 },
            local_fraction: if all == 0 { 0.0 } else { local as f64 / all as f64 },
            pages_migrated: stats.migrations,
            transactions: all,
            policy_overhead_ns: ns(stats.overhead_ps as f64),
        })
    }
}

/// The thread of `p` that runs each of the `r` chunks (thread `i` runs chunks
/// `block_range(r, p, i)`).
fn thread_of_chunks(r: u32, p: usize) -> Vec<usize> {
    let (r, p) = (u64::from(r), p as u64);
    (0..p).flat_map(|i| {
        let (a, b) = block_range(r, p, i);
        (a..b).map(move |_| i as usize)
    })
    .collect()
}

/// The chunks (of `r`) whose CPU differs between thread CPUs `old` and `new` (thread `i` of
/// `p` runs chunks `block_range(r, p, i)`).
fn moved_chunks(r: u32, old: &[CpuId], new: &[CpuId]) -> Vec<usize> {
    let r = u64::from(r);
    let cpu_of = |cpus: &[CpuId], c: u64| {
        let p = cpus.len() as u64;
        (0..p).find(|&i| block_range(r, p, i).1 > c).map(|i| cpus[i as usize])
    };
    (0..r).filter(|&c| cpu_of(old, c) != cpu_of(new, c)).map(|c| c as usize).collect()
}

/// Merges the chunks of `chunks` into `p` threads: thread `i` runs chunks
/// `block_range(R, p, i)` one after another.
fn merge(chunks: &Epoch, p: usize, out: &mut Epoch) {
    let r = chunks.threads.len();
    out.iteration = chunks.iteration;
    out.phase = chunks.phase;
    out.threads.resize_with(p, ThreadWork::default);
    for (i, t) in out.threads.iter_mut().enumerate() {
        let (a, b) = block_range(r as u64, p as u64, i as u64);
        let group = &chunks.threads[a as usize..b as usize];
        t.txns.clear();
        t.txns.reserve(group.iter().map(|c| c.txns.len()).sum());
        for c in group {
            t.txns.extend_from_slice(&c.txns);
        }
        // A line costs `latency / mlp + think` (`Timing`): the merged thread keeps each chunk's
        // compute and memory time by weighting both by the chunks' lines. (Chunks differ: under
        // a cache model a chunk whose lines mostly hit carries its compute on the few it
        // fetches, so its `think_ns` per fetched line is many times another's.)
        let (mut lines, mut think, mut inv_mlp) = (0.0f64, 0.0f64, 0.0f64);
        for c in group {
            // Summed as integers (a float sum of integers below 2^53 is exact: the same bits,
            // without a chain of dependent float additions).
            let n = c.txns.iter().map(|x| u64::from(x.count)).sum::<u64>() as f64;
            lines += n;
            think += n * c.think_ns;
            inv_mlp += n / c.mlp;
        }
        if lines > 0.0 {
            t.think_ns = think / lines;
            t.mlp = if inv_mlp > 0.0 { lines / inv_mlp } else { f64::INFINITY };
        } else {
            t.think_ns = 0.0;
            t.mlp = f64::INFINITY;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Txn;

    #[test]
    fn chunks_merge_into_contiguous_blocks() {
        let chunks = Epoch {
            iteration: 2,
            phase: "p",
            threads: (0..4u32).map(|c| ThreadWork { txns: vec![Txn::read(c, 1)], mlp: 2.0, think_ns: 1.0 }).collect(),
        };
        let mut out = Epoch::default();
        merge(&chunks, 2, &mut out);
        let pages: Vec<Vec<u32>> = out.threads.iter().map(|t| t.txns.iter().map(|x| x.page).collect()).collect();
        assert_eq!(pages, vec![vec![0, 1], vec![2, 3]]);
        merge(&chunks, 3, &mut out);
        let pages: Vec<Vec<u32>> = out.threads.iter().map(|t| t.txns.iter().map(|x| x.page).collect()).collect();
        assert_eq!(pages, vec![vec![0], vec![1], vec![2, 3]]);
        assert_eq!((out.iteration, out.phase, out.threads[2].mlp, out.threads[2].think_ns), (2, "p", 2.0, 1.0));
    }

    #[test]
    fn chunks_whose_cpu_changes_are_the_moved_ones() {
        let c = |xs: &[u16]| xs.iter().map(|&x| CpuId(x)).collect::<Vec<_>>();
        // 4 chunks on CPUs 0-3; shrunk to 2 threads on CPUs 0 and 1: chunks 0-1 on 0, 2-3 on
        // 1. Chunk 0 stays; 1 moves to 0; 2 to 1; 3 to 1.
        assert_eq!(thread_of_chunks(4, 2), vec![0, 0, 1, 1]);
        assert_eq!(thread_of_chunks(5, 2), vec![0, 0, 1, 1, 1]);
        assert_eq!(thread_of_chunks(3, 3), vec![0, 1, 2]);
        assert_eq!(moved_chunks(4, &c(&[0, 1, 2, 3]), &c(&[0, 1])), vec![1, 2, 3]);
        // The same CPUs: nothing moves; a thread moved to CPU 9 moves its chunks.
        assert_eq!(moved_chunks(4, &c(&[0, 1]), &c(&[0, 1])), Vec::<usize>::new());
        assert_eq!(moved_chunks(4, &c(&[0, 1]), &c(&[9, 1])), vec![0, 1]);
        // Grown back: chunk 2 keeps CPU 1; chunks 1 and 3 go to CPUs 5 and 7.
        assert_eq!(moved_chunks(4, &c(&[0, 1]), &c(&[0, 5, 1, 7])), vec![1, 3]);
    }

    #[test]
    fn a_merged_thread_keeps_every_chunks_compute_and_memory_time() {
        // Chunk 0 fetched 1 line carrying 100 ns of compute (its other lines hit); chunk 1
        // fetched 9 lines at 10 ns each and overlaps no misses; chunk 2 is empty.
        let w = |lines: u16, mlp: f64, think_ns: f64| ThreadWork { txns: if lines > 0 { vec![Txn::read(0, lines)] } else { vec![] }, mlp, think_ns };
        let chunks = Epoch { iteration: 1, phase: "p", threads: vec![w(1, 4.0, 100.0), w(9, 1.0, 10.0), w(0, 8.0, 5.0)] };
        let mut out = Epoch::default();
        merge(&chunks, 1, &mut out);
        let t = &out.threads[0];
        assert!((t.think_ns * 10.0 - (100.0 + 90.0)).abs() < 1e-9, "compute {}", t.think_ns * 10.0);
        assert!((10.0 / t.mlp - (1.0 / 4.0 + 9.0)).abs() < 1e-9, "memory time in latencies {}", 10.0 / t.mlp);
        // An idle thread carries nothing.
        merge(&Epoch { iteration: 1, phase: "p", threads: vec![w(0, 8.0, 5.0)] }, 1, &mut out);
        assert_eq!((out.threads[0].think_ns, out.threads[0].mlp), (0.0, f64::INFINITY));
    }
}
