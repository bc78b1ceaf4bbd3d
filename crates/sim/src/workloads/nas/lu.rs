//! `nas-lu`: NPB LU, the SSOR solver with a pipelined wavefront (NPB 3.3 OpenMP `ssor.f`).
//!
//! **Arrays** (`applu.incl`): `u`, `rsd`, `frct` (5 doubles per point), `rho_i`, `qs` (one),
//! on the padded grid `(n/2·2 + 1)² × n`, x fastest; and the Jacobian blocks `a`, `b`, `c`, `d`
//! (lower) and `au`, `bu`, `cu`, `du` (upper): 5×5 doubles per point of **one** plane
//! (`(5, 5, i, j)`), recomputed for every plane. Class sizes / iterations: S 12³/50, W 33³/300,
//! A 64³/250, B 102³/250, C 162³/250.
//!
//! **One iteration (`ssor`)**:
//! * `scale` — k-slabs of the interior: `rsd = dt · rsd`.
//! * `blts` — the lower-triangular sweep, pipelined: for k = 1 … n-2 in order, `jacld(k)` and
//!   `blts(k)` on each thread's block of rows `j` (`!$omp do` over j inside the k loop, with
//!   point-to-point flags between neighbours). Thread t may start plane k only when thread t-1
//!   has finished it, so the model plays one epoch per pipeline **stage**: at stage s the p-th
//!   thread (in row order) works on the (s-p)-th plane; `n-2 + threads - 1` stages. At its
//!   plane thread t reads `u`, `rho_i`, `qs` in its rows plus row `j0-1` (the `(i, j-1, k)`
//!   neighbour, owned by thread t-1), reads the row `j0-1` of `rsd` that **thread t-1 wrote in
//!   the previous stage**, and updates its own rows of `rsd`. Plane k-1 of its own rows is still
//!   in cache from the previous stage.
//! * `buts` — the upper sweep, the same pipeline backwards (k = n-2 … 1, the last thread
//!   first): reads row `j1` (owned by thread t+1) of `u`, `rho_i`, `qs` and of the `rsd` that
//!   thread t+1 has just written.
//! * `add` — k-slabs: `u += tmp · rsd`.
//! * `rhs`, `rhs-z` — the residual: `rsd = −frct`, `rho_i`, `qs` and the xi/eta fluxes over
//!   k-slabs (in-plane stencils: no halo planes), then the zeta fluxes over **j**-blocks of all
//!   planes (`!$omp do` over j in `rhs.f`): `u`, `rho_i`, `qs` read, `rsd` updated.
//!
//! **First touch.** NPB initialises `u`, `rsd` and `frct` over k (`setiv`, `erhs`, `rhs`),
//! so with parallel initialisation the pages are laid out in k-slabs while the pipelined sweeps
//! and the zeta fluxes work on j-blocks across all planes: about half of LU's lines are remote
//! even under first-touch (≈ 0.49 local at class A, 16 threads on the Origin2000), which is
//! seed 003 §5's observation that in LU "all system boards uniformly access most of the memory
//! pages".
//!
//! **First touch as the NPB OpenMP C sources** (`first_touch=npb-c`, seed 003 §5;
//! NPB3.0-omp-C `LU/lu.c`, RWCP's C port of NPB 2.3-OpenMP; `u`, `rsd`, `frct` are
//! `[i][j][k][5]`, `i` slowest, so an `omp for` over `i` writes slabs of the slowest dimension,
//! the model's k-slabs): `setbv()` first writes `u` (its first `omp for` over `i` writes the
//! `k = 0` and `k = nz-1` faces of every `(i, j)`, a page of each thread's slab at least, before
//! `setiv()`'s loop over `j`); `erhs()` first writes `frct` (`frct[i][j][k][m] = 0.0`) and `rsd`
//! in `omp for` loops over `i`; `ssor()` zeroes the Jacobians `a`, `b`, `c`, `d`
//! (`[i][j][5][5]`, one plane) in an `omp for` over `i`, their slowest index (the model's rows of
//! the plane). NPB 2.3's C code has no `rho_i`, `qs` arrays (it recomputes them inline in
//! `rhs()`, whose loops are over `i`) nor `au` … `du` (`jacu()` reuses `a` … `d`): they are given
//! the same partitions. Every array's partition is thus the one the default (`slabs`) has.
//!
//! **Transactions**: as for every NAS kernel (each line once per epoch, nothing kept between
//! epochs), with one exception: the Jacobian blocks. They hold one plane (a thread's share is
//! 4 × 5×5×8 B × its rows, ≈ 0.2 MB at class A with 16 threads), are rewritten and reread at
//! every plane by the same thread, and so stay in its L2: they are first touched (by rows, as
//! `ssor.f` zeroes them) in the initialisation epoch and cost no transactions afterwards.
//!
//! **Compute.** LU's official count is `1984.77 n³ − 10923.3 n² + 27770.9 n − 144010` flops
//! per iteration (`lu.f`), ≈ 1 985 per point; the model fetches ≈ 5.0 lines (128 B) per point
//! per iteration, so the default is 2 960 ns per line at class A with 16 threads.

use super::common::{finish, padded, params, regions, wave_stages, Access, Class, Field, Geom, InitPart, Part, Sweep, Sweeps, FIRST_TOUCH, ITERATIONS_DOC};
use crate::workload::{WorkloadCtx, WorkloadInfo, Workload};
use numaplace_model::spec::{ParamDecl, Resolved};
use numaplace_model::ModelError;

const PARAMS: &[ParamDecl] = &{
    let [class, iterations, think] = params(
        ITERATIONS_DOC,
        "CPU time per line, ns (auto: 1984.8 flops per grid point per iteration at 7.5 ns per flop over the lines fetched)",
    );
    [class, iterations, think, FIRST_TOUCH]
};

pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "nas-lu",
    doc: "NAS LU: SSOR with pipelined blts/buts wavefronts over j-blocks; neighbours exchange planes",
    params: PARAMS,
    caps: (),
    build,
};

const SIZE: [u64; 5] = [12, 33, 64, 102, 162];
const ITERS: [u64; 5] = [50, 300, 250, 250, 250];

const U: usize = 0;
const RSD: usize = 1;
const FRCT: usize = 2;
const RHO_I: usize = 3;
const QS: usize = 4;

const GRID: [(&str, u64); 5] = [("u", 40), ("rsd", 40), ("frct", 40), ("rho_i", 8), ("qs", 8)];
const JACOBIANS: [&str; 8] = ["a", "b", "c", "d", "au", "bu", "cu", "du"];

fn build(r: &Resolved, ctx: &WorkloadCtx) -> Result<Box<dyn Workload>, ModelError> {
    let class = Class::of(r);
    let n = class.pick(SIZE);
    let g = Geom::of(ctx);
    let dims = padded(n);
    let plane = (dims.0, dims.1, 1);
    let mut arrays: Vec<(&str, u64)> = GRID.iter().map(|(a, bpp)| (*a, bpp * dims.0 * dims.1 * dims.2)).collect();
    arrays.extend(JACOBIANS.iter().map(|a| (*a, 200 * plane.0 * plane.1)));
    let regions = regions("nas-lu", &arrays, &g)?;
    let mut fields: Vec<Field> = GRID.iter().zip(&regions).map(|((_, bpp), r)| Field::grid(r, *bpp, dims)).collect();
    fields.extend(regions[GRID.len()..].iter().map(|r| Field { init: InitPart::Rows, ..Field::grid(r, 200, plane) }));

    let interior = Part::Planes { lo: 1, hi: n - 1 };
    let stages = wave_stages(n - 2, n - 2, ctx.threads);
    let wave = |stage, up| Part::Wave { lo: 1, hi: n - 1, k0: 1, k1: n - 1, stage, up };
    let lower = [Access::r(U).halo(1, 0), Access::r(RHO_I).halo(1, 0), Access::r(QS).halo(1, 0), Access::w(RSD).halo(1, 0)];
    let upper = [Access::r(U).halo(0, 1), Access::r(RHO_I).halo(0, 1), Access::r(QS).halo(0, 1), Access::w(RSD).halo(0, 1)];
    let mut sweeps = vec![Sweep::new("scale", interior.clone(), &[Access::w(RSD)])];
    sweeps.extend((0..stages).map(|s| Sweep::new("blts", wave(s, false), &lower)));
    sweeps.extend((0..stages).map(|s| Sweep::new("buts", wave(s, true), &upper)));
    sweeps.push(Sweep::new("add", interior, &[Access::w(U), Access::r(RSD)]));
    sweeps.push(Sweep::new(
        "rhs",
        Part::Planes { lo: 0, hi: n },
        &[Access::r(FRCT), Access::r(U), Access::w(RHO_I), Access::w(QS), Access::w(RSD)],
    ));
    sweeps.push(Sweep::new(
        "rhs-z",
        Part::Rows { lo: 1, hi: n - 1, k0: 0, k1: n },
        &[Access::r(U), Access::r(RHO_I), Access::r(QS), Access::w(RSD)],
    ));
    let nf = n as f64;
    let flops = 1984.77 * nf * nf * nf - 10923.3 * nf * nf + 27770.9 * nf - 144010.0;
    let kernel = Sweeps { regions, fields, sweeps, flops, g, threads: ctx.threads, repeat: 1, shares: Vec::new() };
    finish("nas-lu", r, ctx, kernel, class.pick(ITERS))
}
