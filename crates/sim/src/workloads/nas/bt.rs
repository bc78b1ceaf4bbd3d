//! `nas-bt`: NPB BT, the block-tridiagonal ADI solver (NPB 3.3 OpenMP, as run in seed 000).
//!
//! **Arrays** (`header.h`): `u`, `rhs`, `forcing` hold 5 doubles per grid point (40 B),
//! `us`, `vs`, `ws`, `qs`, `rho_i`, `square` one each; all are `(0:IMAXP, 0:JMAXP, 0:KMAX-1)`
//! with `IMAXP = JMAXP = n/2·2` (x and y padded to `n/2·2 + 1` points), stored x fastest. The
//! block matrices `lhs`, `fjac`, `njac` are per-line, thread-private and stay in cache: no
//! region. Class sizes `n³` / iterations: S 12³/60, W 24³/200, A 64³/200, B 102³/200, C 162³/200.
//!
//! **One iteration (`adi`)**, five epochs, each ending at the barrier of its parallel loop:
//! * `compute_rhs` — k-slabs of all planes: reads `u` (and 2 planes of each neighbour slab for
//!   the zeta fluxes and fourth-order dissipation), writes the six auxiliary arrays (reading one
//!   neighbour plane of each back for the zeta fluxes), reads `forcing`, writes `rhs`.
//! * `x_solve`, `y_solve` — k-slabs of the interior planes `1..n-1`: read `rho_i`, `qs`,
//!   `square`, `u`; update `rhs` in place.
//! * `z_solve` — the loop is over **j** (`!$omp parallel do` over `j`, then `i`, then all `k`):
//!   thread t touches rows `j` of its j-block in **every** plane: `u`, `qs`, `square` read,
//!   `rhs` updated. This is the phase change of seed 000 §3.3: the arrays were laid out (and
//!   first touched) for x and y locality, so z_solve's pages are interleaved with other
//!   threads' slabs.
//! * `add` — k-slabs of the interior: `u += rhs`.
//!
//! **First touch as the NPB OpenMP C sources** (`first_touch=npb-c`, seed 003 §5;
//! NPB3.0-omp-C `BT/bt.c`, RWCP's C port of NPB 2.3-OpenMP; arrays `[i][j][k]([m])`, `i`
//! slowest, so an `omp for` over `i` writes slabs of the slowest dimension, the model's k-slabs):
//! `initialize()` (inside `#pragma omp parallel`) first writes `u` in an `omp for` over `i`;
//! `exact_rhs()` writes `forcing` in an `omp for` over `i`; the untimed `adi()` in `main()` then
//! first writes `rho_i`, `us`, `vs`, `ws`, `square`, `qs` in `compute_rhs()`'s first `omp for`
//! over `i` and `rhs` in its second. Every array is k-slabs, as the default (`slabs`) already
//! has it. (The C code's grid-sized `lhs`, `fjac`, `njac`, which `lhsinit()` zeroes over `i`,
//! are per-line scratch in NPB 3.3 and have no region here.)
//!
//! **Transactions.** Within an epoch each line is fetched once (a thread's neighbouring planes
//! and lines stay in cache for the sweep); nothing survives between epochs (see the `nas`
//! module). `rhs` updated in place is one transaction per line, a write.
//!
//! **Compute.** BT's official count is `3478.8 n³ − 17655.7 n² + 28023.7 n` flops per iteration
//! (`bt.f`), ≈ 3 479 per grid point; the model fetches ≈ 5.2 lines (128 B) per point per
//! iteration (halo planes included), so at 7.5 ns per flop the default `think_ns` is 4 975 ns
//! per line at class A with 16 threads (2 395 at class S, 5 352 at class B): compute-bound, as
//! seed 000 finds BT (24% worst-case slowdown against 50–248% for the others). That is the
//! mean: each phase's lines think in proportion to the phase's share of the flops
//! (`PHASE_FLOPS`), so `z_solve` computes 29 % of an iteration and `add` 0.1 %, where an even
//! spread over the lines gave them 16 % and 13 %.

use super::common::{finish, grid_arrays, padded, params, Access, Class, Geom, Part, Sweep, Sweeps, FIRST_TOUCH, ITERATIONS_DOC};
use crate::workload::{WorkloadCtx, WorkloadInfo, Workload};
use numaplace_model::spec::{ParamDecl, ParamKind, Resolved};
use numaplace_model::ModelError;

const PARAMS: &[ParamDecl] = &{
    let [class, iterations, think] = params(
        ITERATIONS_DOC,
        "CPU time per line, ns (auto: 3478.8 flops per grid point per iteration at 7.5 ns per flop over the lines fetched)",
    );
    [
        class,
        iterations,
        think,
        ParamDecl {
            name: "repeat",
            kind: ParamKind::REPEATS,
            default: "1",
            doc: "run each phase's sweep this many times within its epoch: seed 000 §4 encloses each function in a loop of 4 to lengthen the phases",
        },
        FIRST_TOUCH,
    ]
};

pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "nas-bt",
    doc: "NAS BT: block-tridiagonal ADI; x/y sweeps over k-slabs, z_solve over j-blocks (seed 000 §3.3)",
    params: PARAMS,
    caps: (),
    build,
};

/// Flops per grid point of each phase, counted in NPB 3.3's `rhs.f`, `x_solve.f` (and its `y`,
/// `z` twins) and `solve_subs.f`; only their ratios are used (the official count above fixes
/// the total). `compute_rhs`: 12 for `rho_i`, `us`…`qs`, then per direction ≈ 97 for the five
/// flux components and 50 for the fourth-order dissipation (5 components × a 5-point stencil),
/// and 5 for `rhs *= dt`: 458. Each solve: the Jacobians `fjac` and `njac` ≈ 85, the three
/// 5 × 5 blocks of `lhs` ≈ 310, `matvec_sub` 50, `matmul_sub` 250, `binvcrhs` 365 (Gauss–Jordan
/// on a 5 × 5 block with 5 + 1 right-hand columns) and the back substitution 50: 1 110. `add`:
/// 5. Their sum, 3 793, is within 10 % of the official 3 478.8 per point.
const PHASE_FLOPS: [f64; 5] = [458.0, 1110.0, 1110.0, 1110.0, 5.0];

/// Grid points per side and official iterations, `[S, W, A, B, C]`.
const SIZE: [u64; 5] = [12, 24, 64, 102, 162];
const ITERS: [u64; 5] = [60, 200, 200, 200, 200];

// Array indices.
const U: usize = 0;
const RHS: usize = 1;
const FORCING: usize = 2;
const US: usize = 3;
const VS: usize = 4;
const WS: usize = 5;
const QS: usize = 6;
const RHO_I: usize = 7;
const SQUARE: usize = 8;

const ARRAYS: [(&str, u64); 9] = [
    ("u", 40),
    ("rhs", 40),
    ("forcing", 40),
    ("us", 8),
    ("vs", 8),
    ("ws", 8),
    ("qs", 8),
    ("rho_i", 8),
    ("square", 8),
];

fn build(r: &Resolved, ctx: &WorkloadCtx) -> Result<Box<dyn Workload>, ModelError> {
    let class = Class::of(r);
    let n = class.pick(SIZE);
    let g = Geom::of(ctx);
    let (regions, fields) = grid_arrays("nas-bt", &ARRAYS, padded(n), &g)?;
    let solve = [Access::r(RHO_I), Access::r(QS), Access::r(SQUARE), Access::r(U), Access::w(RHS)];
    let interior = Part::Planes { lo: 1, hi: n - 1 };
    let sweeps = vec![
        Sweep::new(
            "compute_rhs",
            Part::Planes { lo: 0, hi: n },
            &[
                Access::r(U).halo(2, 2),
                Access::w(US).halo(1, 1),
                Access::w(VS).halo(1, 1),
                Access::w(WS).halo(1, 1),
                Access::w(QS).halo(1, 1),
                Access::w(RHO_I).halo(1, 1),
                Access::w(SQUARE).halo(1, 1),
                Access::r(FORCING),
                Access::w(RHS),
            ],
        ),
        Sweep::new("x_solve", interior.clone(), &solve),
        Sweep::new("y_solve", interior.clone(), &solve),
        Sweep::new(
            "z_solve",
            Part::Rows { lo: 1, hi: n - 1, k0: 0, k1: n },
            &[Access::r(U), Access::r(QS), Access::r(SQUARE), Access::w(RHS)],
        ),
        Sweep::new("add", interior, &[Access::w(U), Access::r(RHS)]),
    ];
    let nf = n as f64;
    let flops = 3478.8 * nf * nf * nf - 17655.7 * nf * nf + 28023.7 * nf;
    let repeat = r.uint("repeat");
    if !(1..=1000).contains(&repeat) {
        return Err(ModelError::Spec(format!("workload 'nas-bt': repeat={repeat}: expected 1 to 1000")));
    }
    let shares = PHASE_FLOPS.iter().map(|f| f / PHASE_FLOPS.iter().sum::<f64>()).collect();
    let kernel = Sweeps { regions, fields, sweeps, flops, g, threads: ctx.threads, repeat: repeat as u32, shares };
    finish("nas-bt", r, ctx, kernel, class.pick(ITERS))
}
