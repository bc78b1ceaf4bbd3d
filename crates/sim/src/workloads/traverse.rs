//! `traverse`: one thread walks one array sequentially, strided or randomly (seed 003 §4.2).
//!
//! The seed's test program invalidates the cache line of each element before accessing it, so
//! every access is one line fetched from memory and the accesses do not overlap (`mlp` = 1).
//! Thread 0 walks the array; any other threads stay idle. A traversal touches as many lines as
//! the array has: `sequential` in order, `strided` with a stride of `stride` lines (all
//! residues in turn, so every line once), `random` uniformly at random.
//!
//! `think_ns` (the loop's own time per element) defaults per pattern. The seed reports times
//! but not the loop's instruction cost, so one number is an assumption and the others follow
//! from Table 2's *local* times; the non-local slowdowns are then predictions of the model:
//! * sequential: 70 ns, about 50 cycles of the 750 MHz UltraSPARC III for the invalidation,
//!   load and index update (assumption);
//! * strided: 131 ns = 659.7 / 546.6 × (70 + 225) − 225 (Table 2, local column; 225 ns is the
//!   Sun Fire 6800 local latency, seed 003 §2.1);
//! * random: 52 ns = 512.5 / 546.6 × (70 + 225) − 225 (same derivation).

use crate::workload::{layout, push_lines, Epoch, Op, Txn, WorkloadCtx, WorkloadInfo, Workload};
use numaplace_model::rng::SplitMix64;
use numaplace_model::spec::{ParamDecl, ParamKind, Resolved, Value};
use numaplace_model::{ModelError, Region};

const PATTERNS: &[&str] = &["sequential", "strided", "random"];

const PARAMS: &[ParamDecl] = &[
    ParamDecl { name: "pattern", kind: ParamKind::Choice(PATTERNS), default: "sequential", doc: "access order" },
    ParamDecl { name: "pages", kind: ParamKind::UINT, default: "2048", doc: "pages of the array" },
    ParamDecl { name: "iterations", kind: ParamKind::ITERATIONS, default: "4", doc: "timed traversals" },
    ParamDecl {
        name: "stride",
        kind: ParamKind::UINT,
        default: "auto",
        doc: "stride in lines for pattern=strided (auto: one page plus one line)",
    },
    ParamDecl {
        name: "think_ns",
        kind: ParamKind::Float { min: 0.0, max: 1e9 },
        default: "auto",
        doc: "loop time per element, ns (auto: 70 / 131 / 52 for sequential / strided / random)",
    },
];

pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "traverse",
    doc: "one thread walks one array sequentially, strided or randomly (seed 003 §4.2)",
    params: PARAMS,
    caps: (),
    build,
};

/// The default loop time per element of each pattern, ns (see the module doc).
pub fn default_think_ns(pattern: &str) -> f64 {
    match pattern {
        "strided" => 131.0,
        "random" => 52.0,
        _ => 70.0,
    }
}

fn build(r: &Resolved, ctx: &WorkloadCtx) -> Result<Box<dyn Workload>, ModelError> {
    let pattern = r.choice("pattern");
    let lpp = ctx.lines_per_page();
    let stride = if r.is_auto("stride") { lpp + 1 } else { r.uint("stride") };
    if stride == 0 {
        return Err(ModelError::Spec("workload 'traverse': stride=0: expected at least 1".into()));
    }
    let think_ns = if r.is_auto("think_ns") { default_think_ns(pattern) } else { r.float("think_ns") };
    let mut resolved = r.clone();
    resolved.set("stride", Value::UInt(stride));
    resolved.set("think_ns", Value::Float(think_ns));
    Ok(Box::new(Traverse {
        regions: layout("traverse", &[("array", r.uint("pages"))])?,
        pattern,
        iterations: r.uint("iterations") as u32,
        stride,
        think_ns,
        rng: SplitMix64::new(ctx.thread_seed(0)),
        ctx: *ctx,
        next: if ctx.init == crate::workload::Init::None { 1 } else { 0 },
        resolved,
    }))
}

struct Traverse {
    regions: Vec<Region>,
    pattern: &'static str,
    iterations: u32,
    stride: u64,
    think_ns: f64,
    rng: SplitMix64,
    ctx: WorkloadCtx,
    next: u32,
    resolved: Resolved,
}

impl Workload for Traverse {
    fn regions(&self) -> &[Region] {
        &self.regions
    }

    fn iterations(&self) -> u32 {
        self.iterations
    }

    fn resolved(&self) -> Option<&Resolved> {
        Some(&self.resolved)
    }

    fn next_epoch(&mut self, epoch: &mut Epoch) -> bool {
        if self.next > self.iterations {
            return false;
        }
        let it = self.next;
        self.next += 1;
        let lpp = self.ctx.lines_per_page();
        let lines = self.regions[0].pages as u64 * lpp;
        epoch.reset(self.ctx.threads, it, if it == 0 { "init" } else { "traverse" });
        let work = &mut epoch.threads[0];
        work.mlp = 1.0;
        work.think_ns = self.think_ns;
        let out = &mut work.txns;
        if it == 0 {
            // Whatever the init mode, the walking thread is the one that initialises.
            push_lines(out, 0, lpp, 0, lines, Op::Write);
            return true;
        }
        match self.pattern {
            "sequential" => push_lines(out, 0, lpp, 0, lines, Op::Read),
            "strided" => {
                for start in 0..self.stride.min(lines) {
                    let mut l = start;
                    while l < lines {
                        out.push(Txn::read((l / lpp) as u32, 1));
                        l += self.stride;
                    }
                }
            }
            _ => {
                for _ in 0..lines {
                    out.push(Txn::read((self.rng.below(lines) / lpp) as u32, 1));
                }
            }
        }
        true
    }
}
