//! The `Workload` plug-in point: per-thread memory transactions, epoch by epoch.
//!
//! A workload declares its regions (named arrays) and yields *epochs*: a parallel phase that
//! ends at a barrier, labelled with an iteration and a phase name. In an epoch each thread has a
//! list of transactions (a page, read or write, and a count of cache lines) plus the CPU time it
//! spends per line outside the memory system and how many of its misses can overlap.
//!
//! Iteration 0 is the initialisation (cold-start) epoch, chosen by [`Init`]; it is simulated —
//! it is what places pages under first-touch — but not counted in the run's timed total, as the
//! NAS benchmarks exclude their cold-start iteration from timing (seed 000 §2.1).
//!
//! This module is what a workload implements and the helpers it uses; it does not know the
//! workloads. The registry that lists them is in [`crate::workloads`], which depends on this
//! module and not the other way round.

use numaplace_model::rng::derive;
use numaplace_model::registry::Info;
use numaplace_model::spec::Resolved;
use numaplace_model::{ModelError, Region};

/// Reading or writing.
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Read = 0,
    Write = 1,
}

/// One transaction record: `count` cache lines of `page` read or written. 8 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Txn {
    pub page: u32,
    pub count: u16,
    pub op: Op,
}

impl Txn {
    #[inline]
    pub fn read(page: u32, count: u16) -> Self {
        Txn { page, count, op: Op::Read }
    }
    #[inline]
    pub fn write(page: u32, count: u16) -> Self {
        Txn { page, count, op: Op::Write }
    }
}

/// What one thread does in one epoch.
#[derive(Clone, Debug, Default)]
pub struct ThreadWork {
    /// Transactions in program order.
    pub txns: Vec<Txn>,
    /// Misses this thread can overlap: `f64::INFINITY` for independent accesses (then the
    /// machine's `mlp` limits it), 1 for dependent ones (pointer chasing).
    pub mlp: f64,
    /// CPU time per line outside the memory system, ns.
    pub think_ns: f64,
}

/// One epoch: a parallel phase ending at a barrier.
#[derive(Clone, Debug, Default)]
pub struct Epoch {
    pub iteration: u32,
    pub phase: &'static str,
    /// One entry per thread; a thread with no transactions waits at the barrier.
    pub threads: Vec<ThreadWork>,
}

impl Epoch {
    /// Clears every thread's work, keeping allocations, and sets the label.
    pub fn reset(&mut self, threads: usize, iteration: u32, phase: &'static str) {
        self.threads.resize_with(threads, ThreadWork::default);
        for t in &mut self.threads {
            t.txns.clear();
            t.mlp = f64::INFINITY;
            t.think_ns = 0.0;
        }
        self.iteration = iteration;
        self.phase = phase;
    }
}

/// How data is first touched before the timed iterations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Init {
    /// Each thread first touches the data it will use (NAS's cold-start iteration).
    Parallel,
    /// Thread 0 touches everything (the seeds' "distribution off"; with first-touch, their
    /// worst case).
    Sequential,
    /// No initialisation epoch: pages are first touched by the timed iterations.
    None,
}

impl Init {
    pub const NAMES: &'static [&'static str] = &["parallel", "sequential", "none"];

    /// Parses an init mode name.
    ///
    /// # Errors
    /// An unknown name, with the known ones listed.
    pub fn parse(s: &str) -> Result<Init, ModelError> {
        match s {
            "parallel" => Ok(Init::Parallel),
            "sequential" => Ok(Init::Sequential),
            "none" => Ok(Init::None),
            _ => Err(ModelError::unknown("init mode", s, Init::NAMES)),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Init::Parallel => "parallel",
            Init::Sequential => "sequential",
            Init::None => "none",
        }
    }
}

/// What a workload is built for.
#[derive(Clone, Copy, Debug)]
pub struct WorkloadCtx {
    pub threads: usize,
    pub page_size: u64,
    pub line_size: u64,
    pub seed: u64,
    pub init: Init,
}

impl WorkloadCtx {
    pub fn lines_per_page(&self) -> u64 {
        self.page_size / self.line_size
    }

    /// An independent seed for thread `t`'s random stream.
    pub fn thread_seed(&self, t: usize) -> u64 {
        derive(self.seed, 0x1000 + t as u64)
    }
}

/// A source of epochs.
///
/// # Contract
/// * `regions` are disjoint, sorted by `first_page`, and cover `0..pages()`; every transaction's
///   page lies inside them.
/// * `next_epoch` fills `epoch` (after `epoch.reset`) with exactly `ctx.threads` thread entries
///   and returns `false` when the workload is finished. Iteration 0, if present, is the
///   initialisation epoch; iterations are non-decreasing.
/// * Output depends only on the parameters and `ctx` (including its seed): deterministic.
/// * Generation is lazy: a workload never holds more than one epoch of transactions.
pub trait Workload: Send {
    fn regions(&self) -> &[Region];
    /// Number of timed iterations.
    fn iterations(&self) -> u32;

    /// The timed iterations the program declares before it runs, which a policy may plan by
    /// (a generated workload's parameters; a trace's `iterations` metadata); `None` when only
    /// reading it to the end would tell.
    fn declared_iterations(&self) -> Option<u32> {
        Some(self.iterations())
    }
    fn next_epoch(&mut self, epoch: &mut Epoch) -> bool;

    /// Thread `t`'s work now runs on another CPU (a system run moved it): what its data left
    /// in the old CPU's cache is gone. Workloads with a cache model (`spec95`) forget `t`'s,
    /// from the next epoch they generate; the others keep nothing between loops anyway.
    fn cache_lost(&mut self, _thread: usize) {}

    /// Threads `t` and `u` now run on one CPU when `cache_of[t] == cache_of[u]` (a system run
    /// gave the job fewer CPUs than it has threads, and one CPU runs several threads' work one
    /// after another): their data share that CPU's cache. Workloads with a cache model
    /// (`spec95`) count the others' data in each one's reuse distances from the next epoch they
    /// generate; by default (and until called) every thread has its own CPU.
    fn share_caches(&mut self, _cache_of: &[usize]) {}

    /// An error that ended the epochs early (a malformed trace); `None` for generated
    /// workloads, which cannot fail once built.
    fn take_error(&mut self) -> Option<crate::error::SimError> {
        None
    }

    /// The resolved spec with `auto` parameters replaced by the values chosen, when the
    /// workload chose any; `None` means the spec as resolved is already complete.
    fn resolved(&self) -> Option<&Resolved> {
        None
    }

    /// Total pages of the address space.
    fn pages(&self) -> u64 {
        self.regions().last().map_or(0, |r| r.first_page as u64 + r.pages as u64)
    }
}

/// A workload's constructor: resolved parameters and the run's context.
pub type Build = fn(&Resolved, &WorkloadCtx) -> Result<Box<dyn Workload>, ModelError>;

/// One registry entry.
pub type WorkloadInfo = Info<Build>;

/// Splits `n` items into `parts` contiguous blocks; returns the half-open range of block `i`
/// (OpenMP's static schedule).
pub fn block_range(n: u64, parts: u64, i: u64) -> (u64, u64) {
    (n * i / parts, n * (i + 1) / parts)
}

/// Appends records covering lines `[from, to)` of a region starting at page `first_page`, one
/// record per page touched, in line order.
pub fn push_lines(out: &mut Vec<Txn>, first_page: u32, lines_per_page: u64, from: u64, to: u64, op: Op) {
    let mut line = from;
    while line < to {
        let page = line / lines_per_page;
        let end = ((page + 1) * lines_per_page).min(to);
        out.push(Txn { page: first_page + page as u32, count: (end - line) as u16, op });
        line = end;
    }
}

/// Builds the regions of `workload` laid out back to back from page 0.
///
/// # Errors
/// A region of zero pages, or a footprint beyond 2^32 pages; both name the workload.
pub fn layout(workload: &str, arrays: &[(&str, u64)]) -> Result<Vec<Region>, ModelError> {
    let mut next: u64 = 0;
    let mut out = Vec::with_capacity(arrays.len());
    for (name, pages) in arrays {
        if *pages == 0 {
            return Err(ModelError::Spec(format!(
                "workload '{workload}': region '{name}' would have no pages (check its size parameters)"
            )));
        }
        out.push(Region { name: name.to_string(), first_page: next as u32, pages: *pages as u32 });
        next += pages;
        if next > u32::MAX as u64 {
            return Err(ModelError::Spec(format!("workload '{workload}': footprint of {next} pages exceeds 2^32 pages")));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn txn_is_eight_bytes() {
        assert_eq!(std::mem::size_of::<Txn>(), 8);
    }

    #[test]
    fn push_lines_splits_at_page_boundaries() {
        let mut v = Vec::new();
        push_lines(&mut v, 10, 4, 3, 10, Op::Read);
        assert_eq!(v, vec![Txn::read(10, 1), Txn::read(11, 4), Txn::read(12, 2)]);
    }

    #[test]
    fn block_ranges_cover_exactly() {
        let ranges: Vec<_> = (0..3).map(|i| block_range(10, 3, i)).collect();
        assert_eq!(ranges, vec![(0, 3), (3, 6), (6, 10)]);
    }
}
