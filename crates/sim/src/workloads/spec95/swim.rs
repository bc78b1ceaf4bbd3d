//! `swim`: SPEC CFP95's 102.swim, the shallow-water code of seed 002 (§6: "Swim reaches a
//! super-linear speedup").
//!
//! **Program.** 102.swim is the SWM finite-difference code that [`super::super::splash::shallow`]
//! models for seed 001 (Sadourny's scheme, NCAR's SHALLOW): the same three loops per time step
//! (`calc1`, `calc2`, `calc3`), the same stencils and periodic continuation, parallelised the
//! same way (row blocks of the outer loop `J`, OpenMP's static schedule); see that module for
//! the loop nests, which this one follows line for line. What differs is the size: SPEC95's
//! arrays are 513 × 513 single-precision reals (McCalpin, "Using timings for the SWIM
//! benchmark ...", 2002: 14 arrays, 14.05 MB in all; 13 are used by the time step), so the
//! default `n = 512`. A row of 513 four-byte reals (2052 B) is laid out as 257 eight-byte
//! elements (2056 B): the grid helpers count doubles; a row is 4 bytes longer than SPEC's.
//!
//! **Why super-linear.** One thread sweeps 13 arrays of 1.05 MB per step: with a 4 MB 2-way
//! cache under 1 % of its lines survive from one loop over an array to the next (see the cache
//! model in [`super`]). With `T` threads a thread's rows of the 13 arrays are 13.7 MB / `T`:
//! 49 % of them survive at `T = 4`, 79 % at 8, 93 % at 16, 98 % at 32, and the thread fetches
//! only the rest, its halo row and the periodic rows its neighbours rewrote. Its time per line
//! falls from memory latency + compute towards compute alone, so the speedup passes `T` from
//! 4 threads on. That is the explanation usually given for swim's super-linear speedup on the
//! Origin2000, and it is the only source of super-linearity here.
//!
//! **Steps.** 50 time steps by default (our choice: SPEC95's iteration count is not used;
//! every step after the first costs the same, so the speedup does not depend on it).
//!
//! **Compute.** 65 flops per grid point over 26 array elements touched (as SHALLOW), 4 ns per
//! flop, 32 four-byte elements per 128-byte line: 320 ns per line.

use super::super::splash::common::{first_iteration, init_epoch, pages_for, spec_error, Array2, Geometry, Touch, ELEM, FLOP_NS};
use super::super::splash::shallow::FLOPS_PER_ELEMENT;
use super::{epoch_loops, Part, PhaseCache, CACHE_PARAM, WAYS_PARAM};
use crate::workload::{block_range, layout, Epoch, Init, Workload, WorkloadCtx, WorkloadInfo};
use numaplace_model::spec::{ParamDecl, ParamKind, Resolved, Value};
use numaplace_model::{ModelError, Region};

const NAME: &str = "swim";

/// Bytes of one single-precision real.
const REAL: u64 = 4;

const PARAMS: &[ParamDecl] = &[
    ParamDecl {
        name: "n",
        kind: ParamKind::UInt { min: 2, max: 1 << 16 },
        default: "512",
        doc: "grid intervals per side; arrays are (n+1) x (n+1) reals (SPEC95 102.swim: 512, 513 x 513 x 4 B)",
    },
    ParamDecl { name: "steps", kind: ParamKind::ITERATIONS, default: "50", doc: "time steps (our choice)" },
    ParamDecl {
        name: "think_ns",
        kind: ParamKind::Float { min: 0.0, max: 1e9 },
        default: "auto",
        doc: "CPU time per line touched, ns (auto: 65 flops over 26 elements per point x 4 ns x line_size/4, 320 ns for 128-byte lines)",
    },
    CACHE_PARAM,
    WAYS_PARAM,
];

pub const INFO: WorkloadInfo = WorkloadInfo {
    name: NAME,
    doc: "SPEC95 swim (seed 002): SHALLOW's stencil at 513 x 513 reals; super-linear once a thread's share fits its cache",
    params: PARAMS,
    caps: (),
    build,
};

// SHALLOW's arrays and loops: swim is the same program (the module doc).
use super::super::splash::shallow::{periodic_arrays, ARRAYS, CU, CV, H, P, PNEW, POLD, U, UNEW, UOLD, V, VNEW, VOLD, Z};
/// The loops of one time step, in order.
pub use super::super::splash::shallow::PHASES;

fn build(r: &Resolved, ctx: &WorkloadCtx) -> Result<Box<dyn Workload>, ModelError> {
    let n = r.uint("n");
    if (ctx.threads as u64) > n {
        return Err(spec_error(NAME, format!("n={n}: fewer grid rows than the {} threads", ctx.threads)));
    }
    let mut resolved = r.clone();
    let think_ns = if r.is_auto("think_ns") {
        FLOP_NS * FLOPS_PER_ELEMENT * (ctx.line_size / REAL) as f64
    } else {
        r.float("think_ns")
    };
    resolved.set("think_ns", Value::Float(think_ns));
    let side = n + 1;
    let cols = (side * REAL).div_ceil(ELEM);
    let pages = pages_for(side * cols * ELEM, ctx.page_size);
    let spec: Vec<(&str, u64)> = ARRAYS.iter().map(|a| (*a, pages)).collect();
    let regions = layout(NAME, &spec)?;
    let arrays = regions
        .iter()
        .map(|reg| Array2 { base: reg.first_page as u64 * ctx.page_size, rows: side, cols })
        .collect();
    Ok(Box::new(Swim {
        regions,
        arrays,
        n,
        steps: r.uint("steps") as u32,
        think_ns,
        geo: Geometry::new(ctx),
        ctx: *ctx,
        cache: PhaseCache::new(ctx.threads, r.uint("cache_kb"), r.uint("cache_ways")),
        next: (first_iteration(ctx.init), 0),
        resolved,
    }))
}

struct Swim {
    regions: Vec<Region>,
    arrays: Vec<Array2>,
    n: u64,
    steps: u32,
    think_ns: f64,
    geo: Geometry,
    ctx: WorkloadCtx,
    cache: PhaseCache,
    /// The next epoch: (time step, loop index); step 0 is the initialisation.
    next: (u32, usize),
    resolved: Resolved,
}

impl Swim {
    /// Rows thread `t` owns: its block, and the periodic row `n` for the last thread.
    fn owned(&self, t: usize) -> (u64, u64) {
        let (lo, hi) = block_range(self.n, self.ctx.threads as u64, t as u64);
        (lo, if t + 1 == self.ctx.threads { self.n + 1 } else { hi })
    }

    /// Thread `t`'s loop `phase` and its periodic continuation, as SHALLOW's (see its module).
    fn parts(&self, phase: usize, t: usize) -> Vec<Part> {
        let (lo, hi) = block_range(self.n, self.ctx.threads as u64, t as u64);
        let owned = self.owned(t);
        let a = |i: usize| self.arrays[i];
        let rd = |i: usize, d0: u64, d1: u64| Part { touch: Touch::read_rows(a(i), (lo + d0, hi + d1)), array: i, owned };
        let wr = |i: usize, d: u64| Part { touch: Touch::write_rows(a(i), (lo + d, hi + d)), array: i, owned };
        let mut v = match phase {
            0 => vec![rd(U, 0, 1), rd(V, 0, 1), rd(P, 0, 1), wr(CU, 0), wr(CV, 1), wr(Z, 1), wr(H, 0)],
            1 => vec![
                rd(CU, 0, 1),
                rd(CV, 0, 1),
                rd(Z, 0, 1),
                rd(H, 0, 1),
                rd(UOLD, 0, 0),
                rd(VOLD, 1, 1),
                rd(POLD, 0, 0),
                wr(UNEW, 0),
                wr(VNEW, 1),
                wr(PNEW, 0),
            ],
            _ => vec![
                rd(UNEW, 0, 0),
                rd(VNEW, 0, 0),
                rd(PNEW, 0, 0),
                wr(UOLD, 0),
                wr(VOLD, 0),
                wr(POLD, 0),
                wr(U, 0),
                wr(V, 0),
                wr(P, 0),
            ],
        };
        // Periodic continuation: row 0 -> row n by the last thread, row n -> row 0 by thread 0.
        let (down, up) = periodic_arrays(phase);
        let n = self.n;
        let copy = |i: usize, from: u64, to: u64| {
            [
                Part { touch: Touch::read_rows(a(i), (from, from + 1)), array: i, owned },
                Part { touch: Touch::write_rows(a(i), (to, to + 1)), array: i, owned },
            ]
        };
        if t + 1 == self.ctx.threads {
            v.extend(down.iter().flat_map(|&i| copy(i, 0, n)));
        }
        if t == 0 {
            v.extend(up.iter().flat_map(|&i| copy(i, n, 0)));
        }
        v
    }
}

impl Workload for Swim {
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
            let arrays = &self.arrays;
            init_epoch(epoch, &self.ctx, &self.geo, self.think_ns, |t| {
                arrays.iter().map(|&a| Touch::write_rows(a, owned[t])).collect()
            });
            // What each thread's cache holds after it: its rows of every array, or (sequential)
            // thread 0's whole grid.
            let row = self.arrays[0].cols * ELEM;
            match self.ctx.init {
                Init::Sequential => self.cache.push(0, (0..ARRAYS.len()).map(|i| (i, (self.n + 1) * row)).collect()),
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
