//! `hydro2d`: a model of SPEC CFP95's 104.hydro2d, the 2-D hydrodynamics program of seed 002
//! (§6: "hydro2d reaches a medium-low speedup").
//!
//! 104.hydro2d solves the Navier–Stokes equations of a galactic jet on a 2-D grid with an
//! explicit, direction-split transport scheme. We model the *structure* of such a time step,
//! not SPEC's source (which we do not cite): every number below is our choice.
//!
//! **Data.** Nine `n × m` arrays of doubles (`n = 400` rows, the parallel dimension, `m = 160`
//! columns: 4.6 MB in all): the conserved variables `ro en gz gr` (density, energy, the two
//! momenta), the derived `p vz vr` (pressure, velocities), the fluxes `fz fr`; and one line per
//! thread, `partial`, for a reduction.
//!
//! **A time step**, 20 loops, each one epoch ending at a barrier; thread `t` owns rows
//! `block_range(n, threads, t)`:
//! * `eos` (parallel, pointwise): `p vz vr` from `ro en gz gr`.
//! * `tstep` (parallel): each thread reads its rows of `p ro vz vr` for the stability limit
//!   and writes its partial minimum to its line of `partial`.
//! * `tstep-sum` (serial: thread 0 only): the reduction, thread 0 reads every partial.
//! * for each of `ro en gz gr`, `tz-*` then `uz-*` (parallel): the flux in `z` (a stencil
//!   over rows `j−1..j+1` of the variable and row `j` of `vz`, into `fz`), then the update
//!   from `fz` (rows `j`, `j+1`). Then `tr-*` and `ur-*`: the same along a row (`vr`, `fr`; no
//!   halo rows). Sixteen short loops, sixteen barriers.
//! * `bound` (serial): thread 0 applies the boundary conditions to `ro en gz gr p vz vr`: the
//!   first and last two rows, and the first and last two columns of every row (one line per
//!   row and side: a strided sweep over every thread's rows).
//!
//! **What limits the speedup.** The serial loops' lines lie in every thread's rows, which
//! their owners rewrote each step, so they always miss and mostly come from remote memory: a
//! fixed cost per step of about `7 × 2 × n` lines that no thread count reduces (Amdahl). The
//! parallel loops shrink as `1/T` and, as a thread's rows of the nine arrays (4.6 MB / `T`)
//! stay in its cache, cost little more than their compute. So the speedup rises steeply at
//! first and flattens where the serial boundary loop dominates. The barriers
//! themselves cost nothing in the timing model; their effect here is the wait for the slowest
//! thread of each of the twenty loops (`n / T` rows do not divide evenly).
//!
//! **Compute.** Our choice: 3 flops per element touched, 4 ns per flop, 16 doubles per
//! 128-byte line: 192 ns per line.

use super::super::splash::common::{
    first_iteration, init_epoch, pages_for, resolve_think, spec_error, Array2, Geometry, Touch, ELEM,
};
use super::{epoch_loops, Part, PhaseCache, CACHE_PARAM, WAYS_PARAM};
use crate::workload::{block_range, layout, Epoch, Init, Workload, WorkloadCtx, WorkloadInfo};
use numaplace_model::spec::{ParamDecl, ParamKind, Resolved};
use numaplace_model::{ModelError, Region};

const NAME: &str = "hydro2d";

/// Flops per element touched (our choice).
const FLOPS_PER_ELEMENT: f64 = 3.0;

const PARAMS: &[ParamDecl] = &[
    ParamDecl { name: "n", kind: ParamKind::UInt { min: 4, max: 1 << 16 }, default: "400", doc: "grid rows, the parallel dimension (our choice)" },
    ParamDecl { name: "m", kind: ParamKind::UInt { min: 4, max: 1 << 16 }, default: "160", doc: "grid columns (our choice)" },
    ParamDecl { name: "steps", kind: ParamKind::ITERATIONS, default: "50", doc: "time steps (our choice)" },
    ParamDecl {
        name: "think_ns",
        kind: ParamKind::Float { min: 0.0, max: 1e9 },
        default: "auto",
        doc: "CPU time per line touched, ns (auto: 3 flops per element x 4 ns x line_size/8, 192 ns for 128-byte lines)",
    },
    CACHE_PARAM,
    WAYS_PARAM,
];

pub const INFO: WorkloadInfo = WorkloadInfo {
    name: NAME,
    doc: "SPEC95 hydro2d model (seed 002): 20 short loops per step, a reduction and boundary conditions on thread 0; medium-low speedup",
    params: PARAMS,
    caps: (),
    build,
};

const ARRAYS: [&str; 9] = ["ro", "en", "gz", "gr", "p", "vz", "vr", "fz", "fr"];
const RO: usize = 0;
const P: usize = 4;
const VZ: usize = 5;
const VR: usize = 6;
const FZ: usize = 7;
const FR: usize = 8;
/// The id of `partial` (after the grid arrays).
const PARTIAL: usize = 9;

/// The loops of one time step, in order.
pub const PHASES: [&str; 20] = [
    "eos", "tstep", "tstep-sum", "tz-ro", "uz-ro", "tz-en", "uz-en", "tz-gz", "uz-gz", "tz-gr", "uz-gr", "tr-ro", "ur-ro",
    "tr-en", "ur-en", "tr-gz", "ur-gz", "tr-gr", "ur-gr", "bound",
];

fn build(r: &Resolved, ctx: &WorkloadCtx) -> Result<Box<dyn Workload>, ModelError> {
    let (n, m) = (r.uint("n"), r.uint("m"));
    if (ctx.threads as u64) > n {
        return Err(spec_error(NAME, format!("n={n}: fewer grid rows than the {} threads", ctx.threads)));
    }
    let (think_ns, resolved) = resolve_think(r, ctx, FLOPS_PER_ELEMENT);
    let grid_pages = pages_for(n * m * ELEM, ctx.page_size);
    let line_elems = (ctx.line_size / ELEM).max(1);
    let partial_pages = pages_for(ctx.threads as u64 * line_elems * ELEM, ctx.page_size);
    let mut spec: Vec<(&str, u64)> = ARRAYS.iter().map(|a| (*a, grid_pages)).collect();
    spec.push(("partial", partial_pages));
    let regions = layout(NAME, &spec)?;
    let base = |i: usize| regions[i].first_page as u64 * ctx.page_size;
    let arrays = (0..ARRAYS.len()).map(|i| Array2 { base: base(i), rows: n, cols: m }).collect();
    let partial = Array2 { base: base(PARTIAL), rows: ctx.threads as u64, cols: line_elems };
    Ok(Box::new(Hydro2d {
        regions,
        arrays,
        partial,
        n,
        m,
        steps: r.uint("steps") as u32,
        think_ns,
        geo: Geometry::new(ctx),
        ctx: *ctx,
        cache: PhaseCache::new(ctx.threads, r.uint("cache_kb"), r.uint("cache_ways")),
        next: (first_iteration(ctx.init), 0),
        resolved,
    }))
}

struct Hydro2d {
    regions: Vec<Region>,
    arrays: Vec<Array2>,
    partial: Array2,
    n: u64,
    m: u64,
    steps: u32,
    think_ns: f64,
    geo: Geometry,
    ctx: WorkloadCtx,
    cache: PhaseCache,
    next: (u32, usize),
    resolved: Resolved,
}

impl Hydro2d {
    fn owned(&self, t: usize) -> (u64, u64) {
        block_range(self.n, self.ctx.threads as u64, t as u64)
    }

    /// Thread `t`'s part of loop `phase` (see the module doc).
    fn parts(&self, phase: usize, t: usize) -> Vec<Part> {
        let own = self.owned(t);
        let (lo, hi) = own;
        let n = self.n;
        let a = |i: usize| self.arrays[i];
        let part = |i: usize, touch: Touch| Part { touch, array: i, owned: own };
        let rd = |i: usize, d0: u64, d1: u64| part(i, Touch::read_rows(a(i), (lo.saturating_sub(d0), (hi + d1).min(n))));
        let wr = |i: usize| part(i, Touch::write_rows(a(i), (lo, hi)));
        let name = PHASES[phase];
        match name {
            "eos" => vec![rd(0, 0, 0), rd(1, 0, 0), rd(2, 0, 0), rd(3, 0, 0), wr(P), wr(VZ), wr(VR)],
            "tstep" => vec![
                rd(P, 0, 0),
                rd(RO, 0, 0),
                rd(VZ, 0, 0),
                rd(VR, 0, 0),
                Part { touch: Touch::write_rows(self.partial, (t as u64, t as u64 + 1)), array: PARTIAL, owned: (0, 0) },
            ],
            "tstep-sum" if t == 0 => {
                vec![Part { touch: Touch::read_rows(self.partial, (0, self.partial.rows)), array: PARTIAL, owned: (0, 0) }]
            }
            "bound" if t == 0 => {
                let mut v = Vec::new();
                let edge = 2.min(n);
                for i in RO..=VR {
                    v.push(part(i, Touch::write_rows(a(i), (0, edge))));
                    v.push(part(i, Touch::write(a(i), (0, n), (0, 2.min(self.m)))));
                    v.push(part(i, Touch::write(a(i), (0, n), (self.m - 2.min(self.m), self.m))));
                    v.push(part(i, Touch::write_rows(a(i), (n - edge, n))));
                }
                v
            }
            "tstep-sum" | "bound" => Vec::new(),
            _ => {
                // tz-*, uz-*, tr-*, ur-*: the variable is the (phase − 3) / 2 mod 4-th of ro..gr.
                let k = phase - 3;
                let var = RO + (k / 2) % 4;
                let along_z = k < 8;
                match (along_z, k.is_multiple_of(2)) {
                    (true, true) => vec![rd(var, 1, 1), rd(VZ, 0, 0), wr(FZ)],
                    (true, false) => vec![rd(FZ, 0, 1), wr(var)],
                    (false, true) => vec![rd(var, 0, 0), rd(VR, 0, 0), wr(FR)],
                    (false, false) => vec![rd(FR, 0, 0), wr(var)],
                }
            }
        }
    }
}

impl Workload for Hydro2d {
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
            let owned: Vec<(u64, u64)> = (0..threads).map(|t| self.owned(t)).collect();
            let (arrays, partial) = (&self.arrays, self.partial);
            init_epoch(epoch, &self.ctx, &self.geo, self.think_ns, |t| {
                let mut v: Vec<Touch> = arrays.iter().map(|&a| Touch::write_rows(a, owned[t])).collect();
                v.push(Touch::write_rows(partial, (t as u64, t as u64 + 1)));
                v
            });
            let row = self.m * ELEM;
            match self.ctx.init {
                Init::Sequential => self.cache.push(0, (0..ARRAYS.len()).map(|i| (i, self.n * row)).collect()),
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
