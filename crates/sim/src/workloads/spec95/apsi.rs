//! `apsi`: a model of SPEC CFP95's 141.apsi, the pollutant-distribution program of seed 002
//! (§6: "apsi is not scalable at all"; its jobs request 2 CPUs "due to its bad scalability").
//!
//! 141.apsi computes the transport and diffusion of a pollutant in the lower atmosphere on a
//! 3-D grid. We model the *structure* that makes such a code scale badly under loop-level
//! OpenMP, not SPEC's source (which we do not cite): every number below is our choice.
//!
//! **Data.** Eight `nx × ny × nz` fields of doubles (`64 × 64 × 20`, 640 KB each, 5.1 MB in
//! all), stored level by level (a row of the 2-D layout is one `(k, j)` line of `nx` values,
//! rows `k·ny .. (k+1)·ny` are level `k`): the wind `u v w`, temperature `t`, humidity `q`,
//! the pollutant `c`, the diffusivity `kz` and a scratch `tmp`; and one line per thread,
//! `partial`, for a reduction.
//!
//! **A time step**, 7 loops, one epoch each. The parallel loops run over the `nz` levels
//! (OpenMP static schedule: thread `t` gets levels `block_range(nz, threads, t)`, so beyond
//! `nz` threads the rest idle):
//! * `wind` (parallel): `w` from `u v t` at the thread's levels.
//! * `advect` (serial: thread 0 only): the transport of `c t q` along the wind, a sweep with
//!   a loop-carried dependence left sequential: reads `u v w`, updates `c t q`, every level.
//! * `diffuse` (parallel): the vertical diffusion of `c` into `tmp`, a stencil over the
//!   levels `k−1..k+1` with `kz`.
//! * `update` (parallel): `c` from `tmp`.
//! * `mass` (parallel): the thread's part of the pollutant mass, from `c`, into its line of
//!   `partial`.
//! * `mass-sum` (serial): thread 0 sums the partials (a reduction).
//! * `physics` (parallel): `kz` from `t q`.
//!
//! **What limits the speedup.** `advect` is about a third of the lines of a step (6 of the 19
//! array sweeps) and runs on one thread whatever the thread count; its lines of `c t q` were
//! written by the other threads' parallel loops (and theirs by it), so they miss on both sides
//! — the serial loop makes the data move between caches every step, and the wind `u v`, which
//! nothing writes, is the only data thread 0 keeps. Beyond 20 threads the level loops have no
//! work for the rest. So the speedup stays low (Amdahl with a serial third: below 3), and it
//! falls again beyond a few threads: first-touch spreads the levels over more nodes, so more
//! of thread 0's serial sweep comes from remote memory.
//!
//! **Compute.** Our choice: 2 flops per element touched, 4 ns per flop, 16 doubles per
//! 128-byte line: 128 ns per line.

use super::super::splash::common::{
    first_iteration, init_epoch, pages_for, resolve_think, spec_error, Array2, Geometry, Touch, ELEM,
};
use super::{epoch_loops, Part, PhaseCache, CACHE_PARAM, WAYS_PARAM};
use crate::workload::{block_range, layout, Epoch, Init, Workload, WorkloadCtx, WorkloadInfo};
use numaplace_model::spec::{ParamDecl, ParamKind, Resolved};
use numaplace_model::{ModelError, Region};

const NAME: &str = "apsi";

/// Flops per element touched (our choice).
const FLOPS_PER_ELEMENT: f64 = 2.0;

const PARAMS: &[ParamDecl] = &[
    ParamDecl { name: "nx", kind: ParamKind::UInt { min: 1, max: 1 << 12 }, default: "64", doc: "grid points along x (our choice)" },
    ParamDecl { name: "ny", kind: ParamKind::UInt { min: 1, max: 1 << 12 }, default: "64", doc: "grid points along y (our choice)" },
    ParamDecl {
        name: "nz",
        kind: ParamKind::UInt { min: 1, max: 1 << 12 },
        default: "20",
        doc: "vertical levels, the parallel loops' dimension (our choice)",
    },
    ParamDecl { name: "steps", kind: ParamKind::ITERATIONS, default: "50", doc: "time steps (our choice)" },
    ParamDecl {
        name: "think_ns",
        kind: ParamKind::Float { min: 0.0, max: 1e9 },
        default: "auto",
        doc: "CPU time per line touched, ns (auto: 2 flops per element x 4 ns x line_size/8, 128 ns for 128-byte lines)",
    },
    CACHE_PARAM,
    WAYS_PARAM,
];

pub const INFO: WorkloadInfo = WorkloadInfo {
    name: NAME,
    doc: "SPEC95 apsi model (seed 002): a serial transport sweep on thread 0, parallel loops over 20 levels, a reduction; poor scalability",
    params: PARAMS,
    caps: (),
    build,
};

const ARRAYS: [&str; 8] = ["u", "v", "w", "t", "q", "c", "kz", "tmp"];
const U: usize = 0;
const V: usize = 1;
const W: usize = 2;
const T: usize = 3;
const Q: usize = 4;
const C: usize = 5;
const KZ: usize = 6;
const TMP: usize = 7;
const PARTIAL: usize = 8;

/// The loops of one time step, in order.
pub const PHASES: [&str; 7] = ["wind", "advect", "diffuse", "update", "mass", "mass-sum", "physics"];

/// The most grid points: 2^26 (512 MB per field).
const MAX_POINTS: u64 = 1 << 26;

fn build(r: &Resolved, ctx: &WorkloadCtx) -> Result<Box<dyn Workload>, ModelError> {
    let (nx, ny, nz) = (r.uint("nx"), r.uint("ny"), r.uint("nz"));
    if nx * ny * nz > MAX_POINTS {
        return Err(spec_error(NAME, format!("nx*ny*nz = {}: more than {MAX_POINTS} grid points", nx * ny * nz)));
    }
    let (think_ns, resolved) = resolve_think(r, ctx, FLOPS_PER_ELEMENT);
    let rows = ny * nz;
    let field_pages = pages_for(rows * nx * ELEM, ctx.page_size);
    let line_elems = (ctx.line_size / ELEM).max(1);
    let partial_pages = pages_for(ctx.threads as u64 * line_elems * ELEM, ctx.page_size);
    let mut spec: Vec<(&str, u64)> = ARRAYS.iter().map(|a| (*a, field_pages)).collect();
    spec.push(("partial", partial_pages));
    let regions = layout(NAME, &spec)?;
    let base = |i: usize| regions[i].first_page as u64 * ctx.page_size;
    let arrays = (0..ARRAYS.len()).map(|i| Array2 { base: base(i), rows, cols: nx }).collect();
    let partial = Array2 { base: base(PARTIAL), rows: ctx.threads as u64, cols: line_elems };
    Ok(Box::new(Apsi {
        regions,
        arrays,
        partial,
        ny,
        nz,
        steps: r.uint("steps") as u32,
        think_ns,
        geo: Geometry::new(ctx),
        ctx: *ctx,
        cache: PhaseCache::new(ctx.threads, r.uint("cache_kb"), r.uint("cache_ways")),
        next: (first_iteration(ctx.init), 0),
        resolved,
    }))
}

struct Apsi {
    regions: Vec<Region>,
    arrays: Vec<Array2>,
    partial: Array2,
    ny: u64,
    nz: u64,
    steps: u32,
    think_ns: f64,
    geo: Geometry,
    ctx: WorkloadCtx,
    cache: PhaseCache,
    next: (u32, usize),
    resolved: Resolved,
}

impl Apsi {
    /// The rows of thread `t`'s levels.
    fn owned(&self, t: usize) -> (u64, u64) {
        let (k0, k1) = block_range(self.nz, self.ctx.threads as u64, t as u64);
        (k0 * self.ny, k1 * self.ny)
    }

    fn parts(&self, phase: usize, t: usize) -> Vec<Part> {
        let own = self.owned(t);
        let all = (0, self.nz * self.ny);
        let a = |i: usize| self.arrays[i];
        // The wind u, v is never written: every thread keeps all of it.
        let keep = |i: usize| if i == U || i == V { all } else { own };
        let rd = |i: usize| Part { touch: Touch::read_rows(a(i), own), array: i, owned: keep(i) };
        let wr = |i: usize| Part { touch: Touch::write_rows(a(i), own), array: i, owned: own };
        let partial = |rows: (u64, u64), write: bool| Part {
            touch: if write { Touch::write_rows(self.partial, rows) } else { Touch::read_rows(self.partial, rows) },
            array: PARTIAL,
            owned: (0, 0),
        };
        match PHASES[phase] {
            _ if own.0 == own.1 && !matches!(PHASES[phase], "advect" | "mass-sum") => Vec::new(),
            "wind" => vec![rd(U), rd(V), rd(T), wr(W)],
            "advect" if t == 0 => {
                let r = |i: usize| Part { touch: Touch::read_rows(a(i), all), array: i, owned: keep(i) };
                let w = |i: usize| Part { touch: Touch::write_rows(a(i), all), array: i, owned: own };
                vec![r(U), r(V), r(W), w(C), w(T), w(Q)]
            }
            "diffuse" => {
                let halo = (own.0.saturating_sub(self.ny), (own.1 + self.ny).min(all.1));
                vec![Part { touch: Touch::read_rows(a(C), halo), array: C, owned: own }, rd(KZ), wr(TMP)]
            }
            "update" => vec![rd(TMP), wr(C)],
            "mass" => vec![rd(C), partial((t as u64, t as u64 + 1), true)],
            "mass-sum" if t == 0 => vec![partial((0, self.partial.rows), false)],
            "physics" => vec![rd(T), rd(Q), wr(KZ)],
            _ => Vec::new(),
        }
    }
}

impl Workload for Apsi {
    fn regions(&self) -> &[Region] {
        &self.regions
    }

    fn iterations(&self) -> u32 {
        self.steps
    }

    fn resolved(&self) -> Option<&Resolved> {
        Some(&self.resolved)
    }

    fn cache_lost(&mut self, thread: usize) {
        self.cache.forget(thread);
    }

    fn share_caches(&mut self, cache_of: &[usize]) {
        self.cache.share(cache_of);
    }

    fn next_epoch(&mut self, epoch: &mut Epoch) -> bool {
        let (step, phase) = self.next;
        if step > self.steps {
            return false;
        }
        let threads = self.ctx.threads;
        if step == 0 {
            self.next = (1, 0);
            // Each thread first touches its levels (thread 0 also every level no thread owns
            // when there are more threads than levels: none, as block ranges cover all).
            let owned: Vec<(u64, u64)> = (0..threads).map(|t| self.owned(t)).collect();
            let (arrays, partial) = (&self.arrays, self.partial);
            init_epoch(epoch, &self.ctx, &self.geo, self.think_ns, |t| {
                let mut v: Vec<Touch> = arrays.iter().map(|&a| Touch::write_rows(a, owned[t])).collect();
                v.push(Touch::write_rows(partial, (t as u64, t as u64 + 1)));
                v
            });
            let row = self.arrays[0].cols * ELEM;
            match self.ctx.init {
                Init::Sequential => {
                    let whole = self.arrays[0].rows * row;
                    self.cache.push(0, (0..ARRAYS.len()).map(|i| (i, whole)).collect());
                }
                _ => {
                    for (t, &(lo, hi)) in owned.iter().enumerate() {
                        self.cache.push(t, (0..ARRAYS.len()).map(|i| (i, (hi - lo) * row)).collect());
                    }
                }
            }
            return true;
        }
        self.next = if phase + 1 == PHASES.len() { (step + 1, 0) } else { (step, phase + 1) };
        epoch.reset(threads, step, PHASES[phase]);
        let parts: Vec<Vec<Part>> = (0..threads).map(|t| self.parts(phase, t)).collect();
        epoch_loops(&mut epoch.threads, &self.geo, &mut self.cache, &parts, self.think_ns);
        true
    }
}
