//! `stream`: each thread sweeps its block of shared arrays, repeatedly (STREAM-triad-like).
//!
//! With `arrays = k`, arrays `0..k-1` are read and the last is written (k = 1: read only), so
//! the default of 3 is `c[i] = a[i] + s * b[i]`. Thread `t` owns the `t`-th of `threads` equal
//! contiguous blocks of every array (OpenMP static schedule). Each element line is one
//! transaction: arrays are far larger than any cache, so nothing survives between sweeps.
//! Records are one per page and array, interleaved across arrays page by page, as the loop
//! touches them. Accesses are independent, so the machine's `mlp` applies.

use crate::workload::{block_range, layout, push_lines, Epoch, Init, Op, WorkloadCtx, WorkloadInfo, Workload};
use numaplace_model::spec::{ParamDecl, ParamKind, Resolved};
use numaplace_model::{ModelError, Region};

const PARAMS: &[ParamDecl] = &[
    ParamDecl { name: "pages", kind: ParamKind::UINT, default: "4096", doc: "pages per array" },
    ParamDecl { name: "arrays", kind: ParamKind::UINT, default: "3", doc: "arrays swept (the last is written)" },
    ParamDecl { name: "iterations", kind: ParamKind::ITERATIONS, default: "10", doc: "timed sweeps" },
    ParamDecl {
        name: "think_ns",
        kind: ParamKind::Float { min: 0.0, max: 1e9 },
        default: "10",
        doc: "CPU time per line not overlapped with memory, ns",
    },
];

pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "stream",
    doc: "each thread sweeps its block of shared arrays, repeatedly (STREAM triad)",
    params: PARAMS,
    caps: (),
    build,
};

fn build(r: &Resolved, ctx: &WorkloadCtx) -> Result<Box<dyn Workload>, ModelError> {
    let arrays = r.uint("arrays");
    if !(1..=26).contains(&arrays) {
        return Err(ModelError::Spec(format!("workload 'stream': arrays={arrays}: expected 1..26")));
    }
    let names: Vec<String> = (0..arrays).map(|i| ((b'a' + i as u8) as char).to_string()).collect();
    let spec: Vec<(&str, u64)> = names.iter().map(|n| (n.as_str(), r.uint("pages"))).collect();
    Ok(Box::new(Stream {
        regions: layout("stream", &spec)?,
        iterations: r.uint("iterations") as u32,
        think_ns: r.float("think_ns"),
        ctx: *ctx,
        next: if ctx.init == Init::None { 1 } else { 0 },
    }))
}

struct Stream {
    regions: Vec<Region>,
    iterations: u32,
    think_ns: f64,
    ctx: WorkloadCtx,
    next: u32,
}

impl Workload for Stream {
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
        let threads = self.ctx.threads as u64;
        let lpp = self.ctx.lines_per_page();
        let lines = self.regions[0].pages as u64 * lpp;
        let last = self.regions.len() - 1;
        epoch.reset(self.ctx.threads, it, if it == 0 { "init" } else { "sweep" });
        for (t, work) in epoch.threads.iter_mut().enumerate() {
            work.think_ns = self.think_ns;
            let (lo, hi) = match (it, self.ctx.init) {
                (0, Init::Sequential) if t == 0 => (0, lines),
                (0, Init::Sequential) => continue,
                _ => block_range(lines, threads, t as u64),
            };
            // Walk the block page by page, touching every array on each page in turn.
            let mut from = lo;
            while from < hi {
                let to = ((from / lpp + 1) * lpp).min(hi);
                for (a, region) in self.regions.iter().enumerate() {
                    let op = if it == 0 || (a == last && last > 0) { Op::Write } else { Op::Read };
                    push_lines(&mut work.txns, region.first_page, lpp, from, to, op);
                }
                from = to;
            }
        }
        true
    }
}
