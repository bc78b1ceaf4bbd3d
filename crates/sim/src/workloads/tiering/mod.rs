//! The memory-tiering papers' workloads (issue 35): `gups`, `kvstore`, `graph`, `pmbench`.
//!
//! HeMem (SOSP '21), Colloid (SOSP '24) and the Linux NUMA-balancing tiering patches measured
//! their policies on these four kinds of program: GUPS with a hot set, a key-value store under
//! YCSB's Zipfian keys, GAPBS graph kernels on a Kronecker graph, and pmbench. Each module cites
//! the source it follows; `docs/workloads-tiering.md` says what each models and simplifies.
//!
//! Common rules. Iteration 0 is the initialisation epoch as `ctx.init` asks (parallel: each
//! thread first touches its block of every array, or what the program's own parallel loops
//! touch; sequential: thread 0 touches everything; none: no initialisation epoch). A
//! transaction is one cache line fetched; an update (read-modify-write) of a line is one write
//! transaction, as everywhere in numaplace (`nas::common`). Random streams are SplitMix64
//! seeded from `ctx` (`ctx.thread_seed(t)` for thread `t`), so the epochs depend only on the
//! parameters and the context.

mod graph;
mod gups;
mod kron;
mod kvstore;
mod pmbench;
mod zipf;

use crate::workload::{block_range, push_lines, Epoch, Init, Op, Txn, WorkloadCtx, WorkloadInfo};
use numaplace_model::Region;

/// Every tiering workload, in listing order.
pub const INFOS: &[WorkloadInfo] = &[gups::INFO, kvstore::INFO, graph::INFO, pmbench::INFO];

/// The first iteration a workload plays: 0 (the initialisation epoch) unless `init` is `none`.
pub(crate) fn first_iteration(init: Init) -> u32 {
    if init == Init::None {
        1
    } else {
        0
    }
}

/// Appends one line of `page` to `out`, merged into the last record when that is the same page
/// and operation (the records stay in program order; a record counts lines).
#[inline]
pub(crate) fn push_line(out: &mut Vec<Txn>, page: u32, op: Op) {
    if let Some(last) = out.last_mut() {
        if last.page == page && last.op == op && last.count < u16::MAX {
            last.count += 1;
            return;
        }
    }
    out.push(Txn { page, count: 1, op });
}

/// An array of fixed-size elements at the start of a region, addressed by line.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Array {
    pub first_page: u32,
    pub elem_bytes: u64,
}

impl Array {
    pub fn of(region: &Region, elem_bytes: u64) -> Array {
        Array { first_page: region.first_page, elem_bytes }
    }

    /// The region line holding element `i`.
    #[inline]
    pub fn line(&self, i: u64, line_size: u64) -> u64 {
        i * self.elem_bytes / line_size
    }

    /// The page holding region line `line`.
    #[inline]
    pub fn page(&self, line: u64, lines_per_page: u64) -> u32 {
        self.first_page + (line / lines_per_page) as u32
    }
}

/// The last line one access stream touched: touching it again hits in the cache, so only a
/// new line is a transaction (consecutive accesses to one line merge), or a write to a line
/// the stream last read (the upgrade of a read-modify-write).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Last(u64, bool);

impl Last {
    pub const NONE: Last = Last(u64::MAX, false);

    /// Whether accessing `line` by `op` is a new transaction (and remembers it).
    #[inline]
    pub fn fresh(&mut self, line: u64, op: Op) -> bool {
        let write = op == Op::Write;
        let new = self.0 != line || (write && !self.1);
        if self.0 != line {
            self.1 = write;
        } else {
            self.1 |= write;
        }
        self.0 = line;
        new
    }
}

/// The initialisation epoch of workloads whose arrays are first touched in even blocks: with
/// `init = parallel` thread `t` writes block `t` of every region's lines (OpenMP static
/// schedule), with `sequential` thread 0 writes every line.
pub(crate) fn init_in_blocks(epoch: &mut Epoch, ctx: &WorkloadCtx, regions: &[Region], think_ns: f64) {
    epoch.reset(ctx.threads, 0, "init");
    let lpp = ctx.lines_per_page();
    for (t, work) in epoch.threads.iter_mut().enumerate() {
        work.think_ns = think_ns;
        for r in regions {
            let lines = r.pages as u64 * lpp;
            let (lo, hi) = match ctx.init {
                Init::Sequential if t == 0 => (0, lines),
                Init::Sequential => continue,
                _ => block_range(lines, ctx.threads as u64, t as u64),
            };
            push_lines(&mut work.txns, r.first_page, lpp, lo, hi, Op::Write);
        }
    }
}

/// Pages holding `bytes` bytes, at least one.
pub(crate) fn pages_for(bytes: u64, page_size: u64) -> u64 {
    bytes.div_ceil(page_size).max(1)
}

#[cfg(test)]
pub(crate) mod testing {
    //! Helpers the workloads' tests share.

    use crate::workload::{Epoch, Init, Workload, WorkloadCtx};
    use crate::workloads::build;
    use numaplace_model::spec::Spec;

    pub fn ctx(threads: usize, seed: u64) -> WorkloadCtx {
        WorkloadCtx { threads, page_size: 4096, line_size: 64, seed, init: Init::Parallel }
    }

    pub fn make(spec: &str, ctx: &WorkloadCtx) -> Box<dyn Workload> {
        build(&Spec::parse(spec).unwrap(), ctx).unwrap().0
    }

    /// The build error of `spec`, as text.
    pub fn error(spec: &str, ctx: &WorkloadCtx) -> String {
        match build(&Spec::parse(spec).unwrap(), ctx) {
            Ok(_) => panic!("{spec}: built"),
            Err(e) => e.to_string(),
        }
    }

    /// Every epoch of `w`, as (iteration, phase, per-thread records).
    pub fn epochs(w: &mut dyn Workload) -> Vec<(u32, &'static str, Vec<Vec<crate::workload::Txn>>)> {
        let mut out = Vec::new();
        let mut e = Epoch::default();
        while w.next_epoch(&mut e) {
            out.push((e.iteration, e.phase, e.threads.iter().map(|t| t.txns.clone()).collect()));
        }
        out
    }

    /// Same seed, same epochs; another seed, other epochs.
    pub fn check_determinism(spec: &str) {
        let a = epochs(make(spec, &ctx(3, 7)).as_mut());
        let b = epochs(make(spec, &ctx(3, 7)).as_mut());
        let c = epochs(make(spec, &ctx(3, 8)).as_mut());
        assert!(!a.is_empty());
        assert_eq!(a, b, "{spec}: same seed, other epochs");
        assert_ne!(a, c, "{spec}: another seed, same epochs");
    }

    /// The error is one line naming the workload and `param`.
    pub fn check_error(spec: &str, name: &str, param: &str) {
        let e = error(spec, &ctx(2, 0));
        assert!(!e.contains('\n') && e.contains(name) && e.contains(param), "{spec}: {e}");
    }
}
