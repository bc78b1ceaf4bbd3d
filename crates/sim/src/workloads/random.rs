//! `random`: every thread reads (or writes) uniformly random lines of one shared array.
//!
//! The array is initialised in parallel blocks (each thread first touches its own block), so
//! under first-touch a fraction `1/nodes` of the random accesses is local. Each access is one
//! line of a page drawn uniformly from the whole array from the thread's own seeded stream.
//! Accesses are independent, so the machine's `mlp` applies.

use crate::workload::{block_range, layout, push_lines, Epoch, Init, Op, Txn, WorkloadCtx, WorkloadInfo, Workload};
use numaplace_model::rng::SplitMix64;
use numaplace_model::spec::{ParamDecl, ParamKind, Resolved};
use numaplace_model::{ModelError, Region};

const PARAMS: &[ParamDecl] = &[
    ParamDecl { name: "pages", kind: ParamKind::UINT, default: "16384", doc: "pages of the shared array" },
    ParamDecl { name: "accesses", kind: ParamKind::UInt { min: 0, max: numaplace_model::spec::MAX_EPOCH_RECORDS }, default: "65536", doc: "accesses per thread per iteration" },
    ParamDecl { name: "iterations", kind: ParamKind::ITERATIONS, default: "4", doc: "timed iterations" },
    ParamDecl {
        name: "write_fraction",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: "0",
        doc: "fraction of accesses that are writes",
    },
    ParamDecl {
        name: "think_ns",
        kind: ParamKind::Float { min: 0.0, max: 1e9 },
        default: "10",
        doc: "CPU time per access not overlapped with memory, ns",
    },
];

pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "random",
    doc: "uniform random lines of a shared array from every thread",
    params: PARAMS,
    caps: (),
    build,
};

fn build(r: &Resolved, ctx: &WorkloadCtx) -> Result<Box<dyn Workload>, ModelError> {
    Ok(Box::new(Random {
        regions: layout("random", &[("array", r.uint("pages"))])?,
        accesses: r.uint("accesses"),
        iterations: r.uint("iterations") as u32,
        write_fraction: r.float("write_fraction"),
        think_ns: r.float("think_ns"),
        rngs: (0..ctx.threads).map(|t| SplitMix64::new(ctx.thread_seed(t))).collect(),
        ctx: *ctx,
        next: if ctx.init == Init::None { 1 } else { 0 },
    }))
}

struct Random {
    regions: Vec<Region>,
    accesses: u64,
    iterations: u32,
    write_fraction: f64,
    think_ns: f64,
    rngs: Vec<SplitMix64>,
    ctx: WorkloadCtx,
    next: u32,
}

impl Workload for Random {
    fn regions(&self) -> &[Region] {
        &self.regions
    }

    fn iterations(&self) -> u32 {
        self.iterations
    }

    fn next_epoch(&mut self, epoch: &mut Epoch) -> bool {
        if self.next > self.iterations {
            return false;
        }
        let it = self.next;
        self.next += 1;
        let pages = self.regions[0].pages as u64;
        let lpp = self.ctx.lines_per_page();
        epoch.reset(self.ctx.threads, it, if it == 0 { "init" } else { "access" });
        for (t, work) in epoch.threads.iter_mut().enumerate() {
            work.think_ns = self.think_ns;
            if it == 0 {
                let (lo, hi) = match self.ctx.init {
                    Init::Sequential if t == 0 => (0, pages),
                    Init::Sequential => continue,
                    _ => block_range(pages, self.ctx.threads as u64, t as u64),
                };
                push_lines(&mut work.txns, 0, lpp, lo * lpp, hi * lpp, Op::Write);
                continue;
            }
            let rng = &mut self.rngs[t];
            work.txns.reserve(self.accesses as usize);
            for _ in 0..self.accesses {
                let page = rng.below(pages) as u32;
                let write = self.write_fraction > 0.0 && rng.unit() < self.write_fraction;
                work.txns.push(if write { Txn::write(page, 1) } else { Txn::read(page, 1) });
            }
        }
        true
    }
}
