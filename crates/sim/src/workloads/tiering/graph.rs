//! `graph`: GAPBS's PageRank and betweenness centrality on a generated Kronecker graph.
//!
//! Source: GAPBS (sbeamer/gapbs). The graph is built once at construction ([`super::kron`]:
//! `generator.h`, `builder.h`); the epochs are the accesses the kernels' loops make to the CSR
//! arrays and the per-vertex arrays, one record per line touched (an array read in order
//! touches each of its lines once; a random access is a line, unless it repeats the stream's
//! last line). GAPBS's types: vertex IDs 4 bytes (`NodeID` int32), the index one 8-byte pointer
//! per vertex plus one (`GenIndex`), scores and deltas 4-byte floats, path counts 8-byte doubles.
//!
//! * `pr` (`src/pr.cc`, `PageRankPullGS`): per iteration, for each vertex `u` read its index
//!   entries, for each neighbour `v` read `neighs[e]` and `outgoing_contrib[v]`, then write
//!   `scores[u]` and `outgoing_contrib[u]`. One epoch per iteration (default 20, `pr`'s
//!   `max_iters`; GAPBS may stop earlier at its tolerance, we do not).
//! * `bc` (`src/bc.cc`, `Brandes`): per source (default 4, as `benchmark/bench.mk` runs `bc
//!   -i4`; sources drawn uniformly among vertices with neighbours, as `SourcePicker`), an epoch
//!   resetting `path_counts`, `depths` and `deltas` (parallel fills) and the successor bitmap
//!   (`Bitmap::reset`, thread 0), then one epoch per BFS level (`PBFS`: read the frontier from
//!   the queue, the index, the neighbours and their depths; claim an unvisited neighbour by
//!   writing its depth; for a neighbour one level down set its successor bit and add to its
//!   path count; append the new frontier to the queue), then one epoch per level from the
//!   deepest up (read the successor bits, the successors' path counts and deltas, write
//!   `deltas[u]` and `scores[u]`).
//!
//! Scheduling: vertices (PR) and each level's frontier (BC) are split among threads in
//! contiguous static blocks, OpenMP `schedule(static)`. GAPBS uses `schedule(dynamic, 16384)`
//! in PR and `dynamic, 64` in BC; with equal threads dynamic chunks are dealt about round
//! robin, which this does not model. A BFS level's order is the serial BFS order (threads'
//! discoveries appended in thread order), where GAPBS's depends on timing.
//!
//! Initialisation (iteration 0): GAPBS builds the graph in parallel loops over vertices
//! (`SquishCSR`'s copy into the final neighbour array, `GenIndex`), so with `init = parallel`
//! thread `t` first touches the index and neighbours of its vertex block, and the per-vertex
//! arrays its kernel fills in parallel before the timed loop (PR: `scores`,
//! `outgoing_contrib`; BC: `scores`); BC's other arrays are first touched by its own reset
//! epochs and BFS. With `sequential` thread 0 writes all of those.

use super::kron::{build_csr, edges, Csr};
use super::{first_iteration, pages_for, push_line, Array, Init, Last};
use crate::workload::{block_range, layout, push_lines, Epoch, Op, Txn, Workload, WorkloadCtx, WorkloadInfo};
use numaplace_model::rng::{derive, SplitMix64};
use numaplace_model::spec::{ParamDecl, ParamKind, Resolved, Value};
use numaplace_model::{ModelError, Region};

const KERNELS: &[&str] = &["pr", "bc"];

/// The most edges a generated graph may have before symmetrising (32 M; 256 MiB of CSR).
pub const MAX_EDGES: u64 = 1 << 25;

const PARAMS: &[ParamDecl] = &[
    ParamDecl { name: "kernel", kind: ParamKind::Choice(KERNELS), default: "pr", doc: "GAPBS kernel: pr (PageRank, pull) or bc (Brandes betweenness)" },
    ParamDecl {
        name: "scale",
        kind: ParamKind::UInt { min: 1, max: 24 },
        default: "14",
        doc: "2^scale vertices (assumption: small enough for a quick grid; GAPBS's kron is 27)",
    },
    ParamDecl {
        name: "degree",
        kind: ParamKind::UInt { min: 1, max: 256 },
        default: "16",
        doc: "edges generated per vertex (GAPBS command_line.h degree_ = 16)",
    },
    ParamDecl {
        name: "iterations",
        kind: ParamKind::ITERATIONS,
        default: "auto",
        doc: "PR iterations or BC sources (auto: 20 for pr, pr.cc max_iters; 4 for bc, bench.mk bc -i4)",
    },
    ParamDecl {
        name: "think_ns",
        kind: ParamKind::Float { min: 0.0, max: 1e9 },
        default: "2",
        doc: "CPU time per line outside memory, ns (assumption: a few instructions per edge)",
    },
];

pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "graph",
    doc: "GAPBS PageRank or betweenness centrality on a generated Kronecker graph (A=0.57, B=C=0.19)",
    params: PARAMS,
    caps: (),
    build,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kernel {
    Pr,
    Bc,
}

/// The arrays the kernels touch (those a kernel does not use are unused).
#[derive(Clone, Copy, Debug)]
struct Arrays {
    index: Array,
    neighs: Array,
    scores: Array,
    contrib: Array,
    path_counts: Array,
    depths: Array,
    deltas: Array,
    succ: Array,
    queue: Array,
}

fn bad(msg: String) -> ModelError {
    ModelError::Spec(format!("workload 'graph': {msg}"))
}

fn build(r: &Resolved, ctx: &WorkloadCtx) -> Result<Box<dyn Workload>, ModelError> {
    Ok(Box::new(Graph::new(r, ctx)?))
}

impl Graph {
    fn new(r: &Resolved, ctx: &WorkloadCtx) -> Result<Graph, ModelError> {
    let (scale, degree) = (r.uint("scale") as u32, r.uint("degree"));
    if degree << scale > MAX_EDGES {
        return Err(bad(format!("scale={scale}, degree={degree}: {} edges, more than {MAX_EDGES}", degree << scale)));
    }
    let kernel = if r.choice("kernel") == "bc" { Kernel::Bc } else { Kernel::Pr };
    let iterations = if r.is_auto("iterations") {
        if kernel == Kernel::Pr { 20 } else { 4 }
    } else {
        r.uint("iterations")
    };
    let mut resolved = r.clone();
    resolved.set("iterations", Value::UInt(iterations));
    let n = 1usize << scale;
    let mut rng = SplitMix64::new(derive(ctx.seed, 0x6b72_6f6e));
    let csr = build_csr(n, &edges(scale, degree, &mut rng));
    if csr.neighs.is_empty() {
        return Err(bad(format!("scale={scale}, degree={degree}: the graph has only self-loops, no edges")));
    }
    let (nn, m, ps) = (n as u64, csr.neighs.len() as u64, ctx.page_size);
    let mut spec: Vec<(&str, u64)> = vec![("index", pages_for((nn + 1) * 8, ps)), ("neighs", pages_for(m * 4, ps)), ("scores", pages_for(nn * 4, ps))];
    match kernel {
        Kernel::Pr => spec.push(("contrib", pages_for(nn * 4, ps))),
        Kernel::Bc => spec.extend([
            ("path_counts", pages_for(nn * 8, ps)),
            ("depths", pages_for(nn * 4, ps)),
            ("deltas", pages_for(nn * 4, ps)),
            ("succ", pages_for(m.div_ceil(64) * 8, ps)),
            ("queue", pages_for(nn * 4, ps)),
        ]),
    }
    let regions = layout("graph", &spec)?;
    let at = |name: &str, bytes: u64| Array::of(regions.iter().find(|g| g.name == name).unwrap_or(&regions[2]), bytes);
    let arrays = Arrays {
        index: at("index", 8),
        neighs: at("neighs", 4),
        scores: at("scores", 4),
        contrib: at("contrib", 4),
        path_counts: at("path_counts", 8),
        depths: at("depths", 4),
        deltas: at("deltas", 4),
        succ: at("succ", 8),
        queue: at("queue", 4),
    };
    Ok(Graph {
        regions,
        a: arrays,
        csr,
        kernel,
        iterations: iterations as u32,
        think_ns: r.float("think_ns"),
        sources: SplitMix64::new(derive(ctx.seed, 0x4243)),
        bfs: Bfs::default(),
        ctx: *ctx,
        next: first_iteration(ctx.init),
        step: Step::Reset,
        resolved,
    })
    }
}

/// Where a BC source is: its reset epoch, a forward level, or a backward level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Reset,
    Forward(usize),
    Backward(usize),
}

/// One BC source's breadth-first search: depths, the queue in BFS order and where each level
/// starts in it (the last entry its end), and which vertices the forward epochs have claimed.
#[derive(Clone, Debug, Default)]
struct Bfs {
    depth: Vec<i32>,
    queue: Vec<u32>,
    levels: Vec<usize>,
    claimed: Vec<bool>,
}

impl Bfs {
    fn run(&mut self, g: &Csr, source: u32) {
        let n = g.vertices();
        self.depth.clear();
        self.depth.resize(n, -1);
        self.claimed.clear();
        self.claimed.resize(n, false);
        self.queue.clear();
        self.levels.clear();
        self.depth[source as usize] = 0;
        self.claimed[source as usize] = true;
        self.queue.push(source);
        let mut start = 0;
        while start < self.queue.len() {
            self.levels.push(start);
            let end = self.queue.len();
            for q in start..end {
                let u = self.queue[q];
                let (lo, hi) = g.range(u);
                for &v in &g.neighs[lo as usize..hi as usize] {
                    if self.depth[v as usize] < 0 {
                        self.depth[v as usize] = self.depth[u as usize] + 1;
                        self.queue.push(v);
                    }
                }
            }
            start = end;
        }
        self.levels.push(self.queue.len());
    }

    fn level_count(&self) -> usize {
        self.levels.len() - 1
    }
}

/// Appends a thread's line accesses: each array stream remembers its last line.
struct Emit<'a> {
    out: &'a mut Vec<Txn>,
    ls: u64,
    lpp: u64,
}

impl Emit<'_> {
    #[inline]
    fn touch(&mut self, a: Array, last: &mut Last, i: u64, op: Op) {
        let line = a.line(i, self.ls);
        if last.fresh(line, op) {
            push_line(self.out, a.page(line, self.lpp), op);
        }
    }

    /// Every line of elements `[lo, hi)` of `a`, in order.
    fn span(&mut self, a: Array, lo: u64, hi: u64, op: Op) {
        if hi > lo {
            let (from, to) = (a.line(lo, self.ls), a.line(hi - 1, self.ls) + 1);
            push_lines(self.out, a.first_page, self.lpp, from, to, op);
        }
    }
}

struct Graph {
    regions: Vec<Region>,
    a: Arrays,
    csr: Csr,
    kernel: Kernel,
    iterations: u32,
    think_ns: f64,
    sources: SplitMix64,
    bfs: Bfs,
    ctx: WorkloadCtx,
    next: u32,
    step: Step,
    resolved: Resolved,
}

impl Graph {
    fn emit<'a>(&self, out: &'a mut Vec<Txn>) -> Emit<'a> {
        Emit { out, ls: self.ctx.line_size, lpp: self.ctx.lines_per_page() }
    }

    fn init_epoch(&self, epoch: &mut Epoch) {
        epoch.reset(self.ctx.threads, 0, "init");
        let n = self.csr.vertices() as u64;
        let a = self.a;
        for t in 0..self.ctx.threads {
            let (lo, hi) = match self.ctx.init {
                Init::Sequential if t == 0 => (0, n),
                Init::Sequential => continue,
                _ => block_range(n, self.ctx.threads as u64, t as u64),
            };
            let work = &mut epoch.threads[t];
            work.think_ns = self.think_ns;
            let mut e = self.emit(&mut work.txns);
            e.span(a.index, lo, if hi == n { n + 1 } else { hi }, Op::Write);
            e.span(a.neighs, self.csr.offsets[lo as usize] as u64, self.csr.offsets[hi as usize] as u64, Op::Write);
            e.span(a.scores, lo, hi, Op::Write);
            if self.kernel == Kernel::Pr {
                e.span(a.contrib, lo, hi, Op::Write);
            }
        }
    }

    /// PR's pull loop over vertices `[lo, hi)`.
    fn pr_block(&self, lo: u32, hi: u32, out: &mut Vec<Txn>) {
        let a = self.a;
        let mut e = self.emit(out);
        let (mut li, mut ln, mut lc, mut ls, mut lw) = (Last::NONE, Last::NONE, Last::NONE, Last::NONE, Last::NONE);
        for u in lo..hi {
            e.touch(a.index, &mut li, u as u64, Op::Read);
            e.touch(a.index, &mut li, u as u64 + 1, Op::Read);
            let (s, t) = self.csr.range(u);
            for k in s..t {
                e.touch(a.neighs, &mut ln, k as u64, Op::Read);
                e.touch(a.contrib, &mut lc, self.csr.neighs[k as usize] as u64, Op::Read);
            }
            e.touch(a.scores, &mut ls, u as u64, Op::Write);
            e.touch(a.contrib, &mut lw, u as u64, Op::Write);
        }
    }

    fn pr_epoch(&self, epoch: &mut Epoch, it: u32) {
        epoch.reset(self.ctx.threads, it, "pr");
        let n = self.csr.vertices() as u64;
        for (t, work) in epoch.threads.iter_mut().enumerate() {
            work.think_ns = self.think_ns;
            let (lo, hi) = block_range(n, self.ctx.threads as u64, t as u64);
            self.pr_block(lo as u32, hi as u32, &mut work.txns);
        }
    }

    /// A new source: the BFS, and the epoch that resets the per-source arrays.
    fn bc_reset(&mut self, epoch: &mut Epoch, it: u32) {
        let n = self.csr.vertices() as u64;
        let source = loop {
            let v = self.sources.below(n) as u32;
            let (lo, hi) = self.csr.range(v);
            if hi > lo {
                break v;
            }
        };
        self.bfs.run(&self.csr, source);
        epoch.reset(self.ctx.threads, it, "bc-reset");
        let a = self.a;
        for (t, work) in epoch.threads.iter_mut().enumerate() {
            work.think_ns = self.think_ns;
            let (lo, hi) = block_range(n, self.ctx.threads as u64, t as u64);
            let mut e = self.emit(&mut work.txns);
            e.span(a.path_counts, lo, hi, Op::Write);
            e.span(a.depths, lo, hi, Op::Write);
            e.span(a.deltas, lo, hi, Op::Write);
            if t == 0 {
                e.span(a.succ, 0, (self.csr.neighs.len() as u64).div_ceil(64), Op::Write);
                e.span(a.depths, source as u64, source as u64 + 1, Op::Write);
                e.span(a.path_counts, source as u64, source as u64 + 1, Op::Write);
                e.span(a.queue, 0, 1, Op::Write);
            }
        }
    }

    /// PBFS's level `d`: the frontier split among the threads; returns nothing, claims the
    /// next level's vertices in `bfs.claimed` as it goes.
    fn bc_forward(&mut self, epoch: &mut Epoch, it: u32, d: usize) {
        epoch.reset(self.ctx.threads, it, "bc-forward");
        let (start, end) = (self.bfs.levels[d], self.bfs.levels[d + 1]);
        let mut tail = end as u64;
        let a = self.a;
        let next = d as i32 + 1;
        for t in 0..self.ctx.threads {
            let (lo, hi) = block_range((end - start) as u64, self.ctx.threads as u64, t as u64);
            let mut txns = std::mem::take(&mut epoch.threads[t].txns);
            let mut found = 0u64;
            {
                let mut e = Emit { out: &mut txns, ls: self.ctx.line_size, lpp: self.ctx.lines_per_page() };
                let mut l = [Last::NONE; 9];
                for q in start as u64 + lo..start as u64 + hi {
                    let u = self.bfs.queue[q as usize];
                    e.touch(a.queue, &mut l[0], q, Op::Read);
                    e.touch(a.index, &mut l[1], u as u64, Op::Read);
                    e.touch(a.index, &mut l[1], u as u64 + 1, Op::Read);
                    let (s, f) = self.csr.range(u);
                    for k in s..f {
                        e.touch(a.neighs, &mut l[2], k as u64, Op::Read);
                        let v = self.csr.neighs[k as usize] as usize;
                        if self.bfs.depth[v] != next {
                            e.touch(a.depths, &mut l[3], v as u64, Op::Read);
                            continue;
                        }
                        let claim = !self.bfs.claimed[v];
                        self.bfs.claimed[v] = true;
                        found += claim as u64;
                        e.touch(a.depths, &mut l[3], v as u64, if claim { Op::Write } else { Op::Read });
                        e.touch(a.succ, &mut l[4], k as u64 / 64, Op::Write);
                        e.touch(a.path_counts, &mut l[5], u as u64, Op::Read);
                        e.touch(a.path_counts, &mut l[6], v as u64, Op::Write);
                    }
                }
                e.span(a.queue, tail, tail + found, Op::Write);
            }
            tail += found;
            let work = &mut epoch.threads[t];
            work.txns = txns;
            work.think_ns = self.think_ns;
        }
    }

    /// Brandes's back-propagation over level `d`.
    fn bc_backward(&self, epoch: &mut Epoch, it: u32, d: usize) {
        epoch.reset(self.ctx.threads, it, "bc-backward");
        let (start, end) = (self.bfs.levels[d], self.bfs.levels[d + 1]);
        let a = self.a;
        for (t, work) in epoch.threads.iter_mut().enumerate() {
            work.think_ns = self.think_ns;
            let (lo, hi) = block_range((end - start) as u64, self.ctx.threads as u64, t as u64);
            let mut e = self.emit(&mut work.txns);
            let mut l = [Last::NONE; 9];
            for q in start as u64 + lo..start as u64 + hi {
                let u = self.bfs.queue[q as usize];
                e.touch(a.queue, &mut l[0], q, Op::Read);
                e.touch(a.index, &mut l[1], u as u64, Op::Read);
                e.touch(a.index, &mut l[1], u as u64 + 1, Op::Read);
                e.touch(a.path_counts, &mut l[2], u as u64, Op::Read);
                let (s, f) = self.csr.range(u);
                for k in s..f {
                    e.touch(a.neighs, &mut l[3], k as u64, Op::Read);
                    e.touch(a.succ, &mut l[4], k as u64 / 64, Op::Read);
                    let v = self.csr.neighs[k as usize];
                    if self.bfs.depth[v as usize] == d as i32 + 1 {
                        e.touch(a.path_counts, &mut l[5], v as u64, Op::Read);
                        e.touch(a.deltas, &mut l[6], v as u64, Op::Read);
                    }
                }
                e.touch(a.deltas, &mut l[7], u as u64, Op::Write);
                e.touch(a.scores, &mut l[8], u as u64, Op::Write);
            }
        }
    }

    /// The next BC epoch of source `it`; false when that source is done.
    fn bc_epoch(&mut self, epoch: &mut Epoch, it: u32) -> bool {
        match self.step {
            Step::Reset => {
                self.bc_reset(epoch, it);
                self.step = Step::Forward(0);
            }
            Step::Forward(d) => {
                self.bc_forward(epoch, it, d);
                self.step = if d + 1 < self.bfs.level_count() { Step::Forward(d + 1) } else { Step::Backward(d) };
            }
            Step::Backward(d) => {
                self.bc_backward(epoch, it, d);
                if d == 0 {
                    self.step = Step::Reset;
                    return false;
                }
                self.step = Step::Backward(d - 1);
            }
        }
        true
    }
}

impl Workload for Graph {
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
        if it == 0 {
            self.init_epoch(epoch);
            self.next += 1;
            return true;
        }
        match self.kernel {
            Kernel::Pr => {
                self.pr_epoch(epoch, it);
                self.next += 1;
            }
            Kernel::Bc => {
                if !self.bc_epoch(epoch, it) {
                    // The source's last epoch was generated: the next call starts the next.
                    self.next += 1;
                }
            }
        }
        true
    }
}

#[cfg(test)]
#[path = "graph_tests.rs"]
mod tests;
