//! `shallow`: the SHALLOW 2-D shallow-water code of seed 001 (Bull & Johnson, §3, Tables 1–2,
//! Figure 1: 100 time steps on the Sun Wildfire), modelled on the classic SWM finite-difference
//! code (Sadourny's scheme, as in NCAR's `shallow` and SPEC's `swim`).
//!
//! **Data.** Thirteen `(n+1) × (n+1)` arrays of doubles: `u v p unew vnew pnew uold vold pold cu
//! cv z h`, each its own region. In the Fortran code they are `(M+1, N+1)` column-major with the
//! parallel loop over the outer index `J`; here a *row* is one Fortran column `J` (contiguous),
//! so row `j` of every array is what iteration `J = j+1` of the parallel loop touches. Rows
//! `0..n` are computed; row `n` is the periodic copy of row 0.
//!
//! **Size.** Seed 001 does not state the grid. The default `n = 2816` is sized on its timings:
//! 18 threads on the `wildfire` preset (6 per node, parallel init, first-touch) then take 0.63 s
//! per step, Table 1's 63 s for 100 steps with distribution on (Table 2: 0.61 s per step over
//! the last 10). The same run with sequential init takes 3.2 s per step against the seed's 2.75
//! (275 s) — a prediction, not fitted. The fit rests on the preset's assumed latencies and on
//! the flop time of `common::FLOP_NS`, so `n` is a size consistent with the seed, not the
//! seed's own. The 13 arrays (8 × 2817² bytes each, 825 MB in all) far exceed the caches of the
//! seed's runs (18 × 4 MB), as the no-reuse-between-phases assumption below requires.
//!
//! **Parallelisation.** Thread `t` owns rows `block_range(n, threads, t)` (OpenMP static
//! schedule over `J`); the last thread also owns the periodic row `n`.
//!
//! **Phases** (one epoch each, per time step; the flop counts set the default `think_ns`):
//! * `calc1`: `cu, cv, z, h` from `u, v, p` (24 flops per point). Reads rows `j` and `j+1` of
//!   `u v p` (the halo row is the next thread's first row); writes `cu h` at row `j` and `cv z` at
//!   row `j+1` (the code's `CV(I,J+1)`, `Z(I+1,J+1)`).
//! * `calc2`: `unew vnew pnew` from `cu cv z h` (rows `j`, `j+1`) and `uold vold pold` (26 flops);
//!   `vnew` and `vold` at row `j+1`.
//! * `calc3`: the time filter, pointwise over rows `j`: reads `unew vnew pnew`, updates `uold vold
//!   pold u v p` (15 flops).
//!
//! Each phase ends with its periodic continuation: row `n` ← row 0 (and, for `cv z vnew`, row 0 ←
//! row `n`). It is charged to the thread owning the destination row (the last thread reads
//! thread 0's row 0; thread 0 reads the last thread's row `n`). So every thread's halo is its
//! successor's first row — SWM's differences reach `J+1`, never `J−1` — and, the grid being
//! periodic, the two end threads also read one row of each other's. In the code the copy
//! follows the loop's barrier; here it shares the phase's epoch (which line a value comes from
//! does not change which page is touched).
//!
//! **Loads and stores → transactions.** A row of `n+1` doubles is 22 KiB at the default size, so
//! the rows `j` and `j+1` a stencil needs stay in cache while `j` advances: each line of each
//! array a phase touches is fetched once per phase (the halo row once more, by its reader), and a
//! line that is read and written costs one transaction (write-allocate). The arrays exceed the
//! caches, so nothing survives from one phase to the next. The arrays of a phase are interleaved
//! a page at a time, as the loop interleaves them. Accesses are independent (the machine's `mlp`
//! applies).
//!
//! **Init.** `parallel`: each thread writes its rows of all thirteen arrays; `sequential`: thread
//! 0 writes everything. There is no randomness: the output depends on the parameters only.

use super::common::{first_iteration, init_epoch, pages_for, resolve_think, spec_error, sweep, Array2, Geometry, Touch, ELEM};
use crate::workload::{block_range, layout, Epoch, WorkloadCtx, WorkloadInfo, Workload};
use numaplace_model::spec::{ParamDecl, ParamKind, Resolved};
use numaplace_model::{ModelError, Region};

const NAME: &str = "shallow";

/// Flops per element fetched over a time step: (24 + 26 + 15) flops per grid point over 26
/// array elements touched per point (7 in `calc1`, 10 in `calc2`, 9 in `calc3`).
pub const FLOPS_PER_ELEMENT: f64 = 65.0 / 26.0;

const PARAMS: &[ParamDecl] = &[
    ParamDecl {
        name: "n",
        kind: ParamKind::UINT,
        default: "2816",
        doc: "grid points per side; arrays are (n+1) x (n+1) doubles (seed 001 gives none: sized on its Table 1 times)",
    },
    ParamDecl { name: "steps", kind: ParamKind::ITERATIONS, default: "100", doc: "time steps (seed 001 §3, Figure 1: 100)" },
    ParamDecl {
        name: "think_ns",
        kind: ParamKind::Float { min: 0.0, max: 1e9 },
        default: "auto",
        doc: "CPU time per line, ns (auto: 65 flops over 26 elements per point x 4 ns per flop x line_size/8, 160 ns for 128-byte lines)",
    },
];

pub const INFO: WorkloadInfo = WorkloadInfo {
    name: NAME,
    doc: "SHALLOW 2-D shallow-water stencil, 13 arrays, row blocks, 100 steps (seed 001 §3)",
    params: PARAMS,
    caps: (),
    build,
};

/// The arrays, in region order.
pub(crate) const ARRAYS: [&str; 13] = ["u", "v", "p", "unew", "vnew", "pnew", "uold", "vold", "pold", "cu", "cv", "z", "h"];
pub(crate) const U: usize = 0;
pub(crate) const V: usize = 1;
pub(crate) const P: usize = 2;
pub(crate) const UNEW: usize = 3;
pub(crate) const VNEW: usize = 4;
pub(crate) const PNEW: usize = 5;
pub(crate) const UOLD: usize = 6;
pub(crate) const VOLD: usize = 7;
pub(crate) const POLD: usize = 8;
pub(crate) const CU: usize = 9;
pub(crate) const CV: usize = 10;
pub(crate) const Z: usize = 11;
pub(crate) const H: usize = 12;

/// The arrays the periodic continuation at the end of `phase` copies: row 0 → row n (by the
/// last thread), and row n → row 0 (by thread 0). `swim`'s too.
pub(crate) fn periodic_arrays(phase: usize) -> (&'static [usize], &'static [usize]) {
    match phase {
        0 => (&[CU, H], &[CV, Z]),
        1 => (&[UNEW, PNEW], &[VNEW]),
        _ => (&[UOLD, VOLD, POLD, U, V, P], &[]),
    }
}

/// The phases of one time step, in order (`swim`'s too).
pub const PHASES: [&str; 3] = ["calc1", "calc2", "calc3"];

fn build(r: &Resolved, ctx: &WorkloadCtx) -> Result<Box<dyn Workload>, ModelError> {
    let n = r.uint("n");
    if !(2..=1 << 20).contains(&n) {
        return Err(spec_error(NAME, format!("n={n}: expected 2..{}", 1u64 << 20)));
    }
    if (ctx.threads as u64) > n {
        return Err(spec_error(NAME, format!("n={n}: fewer grid rows than the {} threads", ctx.threads)));
    }
    let (think_ns, resolved) = resolve_think(r, ctx, FLOPS_PER_ELEMENT);
    let side = n + 1;
    let pages = pages_for(side * side * ELEM, ctx.page_size);
    let spec: Vec<(&str, u64)> = ARRAYS.iter().map(|a| (*a, pages)).collect();
    let regions = layout(NAME, &spec)?;
    let arrays = regions
        .iter()
        .map(|reg| Array2 { base: reg.first_page as u64 * ctx.page_size, rows: side, cols: side })
        .collect();
    Ok(Box::new(Shallow {
        regions,
        arrays,
        n,
        steps: r.uint("steps") as u32,
        think_ns,
        geo: Geometry::new(ctx),
        ctx: *ctx,
        next: (first_iteration(ctx.init), 0),
        resolved,
    }))
}

struct Shallow {
    regions: Vec<Region>,
    arrays: Vec<Array2>,
    n: u64,
    steps: u32,
    think_ns: f64,
    geo: Geometry,
    ctx: WorkloadCtx,
    /// The next epoch: (time step, phase index); step 0 is the initialisation.
    next: (u32, usize),
    resolved: Resolved,
}

impl Shallow {
    /// Rows `[lo, hi)` of thread `t`'s block.
    fn block(&self, t: usize) -> (u64, u64) {
        block_range(self.n, self.ctx.threads as u64, t as u64)
    }

    /// The loop nest of thread `t` in phase `phase` (see the module doc).
    fn loop_touches(&self, phase: usize, t: usize) -> Vec<Touch> {
        let (lo, hi) = self.block(t);
        let a = |i: usize| self.arrays[i];
        let rd = |i: usize, d0: u64, d1: u64| Touch::read_rows(a(i), (lo + d0, hi + d1));
        let wr = |i: usize, d: u64| Touch::write_rows(a(i), (lo + d, hi + d));
        match phase {
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
        }
    }

    /// The periodic continuation thread `t` does at the end of phase `phase`: per array copied,
    /// the source row read and the destination row written.
    fn periodic(&self, phase: usize, t: usize) -> Vec<[Touch; 2]> {
        let (down, up) = periodic_arrays(phase);
        let (n, last) = (self.n, t + 1 == self.ctx.threads);
        let copy = |i: usize, from: u64, to: u64| {
            [Touch::read_rows(self.arrays[i], (from, from + 1)), Touch::write_rows(self.arrays[i], (to, to + 1))]
        };
        let mut v: Vec<[Touch; 2]> = Vec::new();
        if last {
            v.extend(down.iter().map(|&i| copy(i, 0, n)));
        }
        if t == 0 {
            v.extend(up.iter().map(|&i| copy(i, n, 0)));
        }
        v
    }
}

impl Workload for Shallow {
    fn regions(&self) -> &[Region] {
        &self.regions
    }

    fn iterations(&self) -> u32 {
        self.steps
    }

    fn resolved(&self) -> Option<&Resolved> {
        Some(&self.resolved)
    }

    fn next_epoch(&mut self, epoch: &mut Epoch) -> bool {
        let (step, phase) = self.next;
        if step > self.steps {
            return false;
        }
        if step == 0 {
            self.next = (1, 0);
            let n = self.n;
            let threads = self.ctx.threads;
            init_epoch(epoch, &self.ctx, &self.geo, self.think_ns, |t| {
                let (lo, hi) = block_range(n, threads as u64, t as u64);
                let hi = if t + 1 == threads { n + 1 } else { hi };
                self.arrays.iter().map(|&a| Touch::write_rows(a, (lo, hi))).collect()
            });
            return true;
        }
        self.next = if phase + 1 == PHASES.len() { (step + 1, 0) } else { (step, phase + 1) };
        epoch.reset(self.ctx.threads, step, PHASES[phase]);
        for t in 0..self.ctx.threads {
            let work = &mut epoch.threads[t];
            work.think_ns = self.think_ns;
            sweep(&mut work.txns, &self.geo, &self.loop_touches(phase, t));
            for pair in self.periodic(phase, t) {
                sweep(&mut work.txns, &self.geo, &pair);
            }
        }
        true
    }
}
