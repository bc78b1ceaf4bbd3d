//! `nas-sp`: NPB SP, the scalar-pentadiagonal ADI solver (NPB 3.3 OpenMP, seed 000).
//!
//! **Arrays** (`header.h`): `u`, `rhs`, `forcing` (5 doubles per point), `us`, `vs`, `ws`,
//! `qs`, `rho_i`, `speed`, `square` (one each), on the padded grid `(n/2·2 + 1)² × n`, x
//! fastest. `lhs`, `lhsp`, `lhsm` are per-line and thread-private (cache-resident): no region.
//! Class sizes / iterations: S 12³/100, W 36³/400, A 64³/400, B 102³/400, C 162³/400.
//!
//! **One iteration (`adi`)**, seven epochs:
//! * `compute_rhs` — k-slabs of all planes: reads `u` (+2 neighbour planes each side), writes
//!   the seven auxiliary arrays (reading one neighbour plane of each back), reads `forcing`,
//!   writes `rhs`.
//! * `txinvr` — k-slabs of the interior: reads `rho_i`, `us`, `vs`, `ws`, `speed`, `qs`;
//!   updates `rhs`.
//! * `x_solve` (with `ninvr`), `y_solve` (with `pinvr`) — k-slabs of the interior: read
//!   `rho_i`, `us`/`vs`, `speed`; update `rhs`.
//! * `z_solve` — over **j** (`!$omp parallel do` over `j`, all `k` inside): each thread
//!   touches its rows in every plane: reads `rho_i`, `ws`, `speed`; updates `rhs`. The same
//!   phase change as BT's (seed 000 §3.3).
//! * `tzetar` — the back-transformation after z_solve, again over k-slabs: reads `us`, `vs`,
//!   `ws`, `speed`, `qs`, `u`; updates `rhs`.
//! * `add` — k-slabs: `u += rhs`.
//!
//! **First touch as the NPB OpenMP C sources** (`first_touch=npb-c`, seed 003 §5;
//! NPB3.0-omp-C `SP/sp.c`, RWCP's C port of NPB 2.3-OpenMP; arrays `[5][i][j][k]` or
//! `[i][j][k]`, `i` slowest, so an `omp for` over `i` writes slabs of the slowest dimension, the
//! model's k-slabs): `main()` calls `initialize()` (writes `u`) and `exact_rhs()` (writes
//! `forcing`) outside any parallel region, so thread 0 writes both (`Serial`); `lhsinit()`'s
//! orphaned `omp for` also runs on the master thread (its `lhs` has no counterpart in the
//! model). The untimed `adi()` in `main()` then first writes `rho_i`, `us`, `vs`, `ws`,
//! `square`, `qs`, `speed` (and `ainv`) in `compute_rhs()`'s first `#pragma omp for` over `i`
//! and `rhs` in its second (`rhs[m][i][j][k] = forcing[m][i][j][k]`): k-slabs (`Planes`).
//!
//! **Transactions**: as for every NAS kernel (the `nas` module): each line once per epoch,
//! nothing kept between epochs, in-place updates are one write per line.
//!
//! **Compute.** SP's official count is `881.174 n³ − 4683.91 n² + 11484.5 n − 19272.4` flops
//! per iteration (`sp.f`), ≈ 881 per point; the model fetches ≈ 6.2 lines (128 B) per point
//! per iteration, so the default is 1 069 ns per line at class A with 16 threads: SP is far more
//! memory-bound than BT.

use super::common::{finish, grid_arrays, npb_c, padded, params, Access, Class, Geom, InitPart, Part, Sweep, Sweeps, FIRST_TOUCH, ITERATIONS_DOC};
use crate::workload::{WorkloadCtx, WorkloadInfo, Workload};
use numaplace_model::spec::{ParamDecl, Resolved};
use numaplace_model::ModelError;

const PARAMS: &[ParamDecl] = &{
    let [class, iterations, think] = params(
        ITERATIONS_DOC,
        "CPU time per line, ns (auto: 881.2 flops per grid point per iteration at 7.5 ns per flop over the lines fetched)",
    );
    [class, iterations, think, FIRST_TOUCH]
};

pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "nas-sp",
    doc: "NAS SP: scalar-pentadiagonal ADI; x/y sweeps over k-slabs, z_solve over j-blocks",
    params: PARAMS,
    caps: (),
    build,
};

const SIZE: [u64; 5] = [12, 36, 64, 102, 162];
const ITERS: [u64; 5] = [100, 400, 400, 400, 400];

const U: usize = 0;
const RHS: usize = 1;
const FORCING: usize = 2;
const US: usize = 3;
const VS: usize = 4;
const WS: usize = 5;
const QS: usize = 6;
const RHO_I: usize = 7;
const SPEED: usize = 8;
const SQUARE: usize = 9;

const ARRAYS: [(&str, u64); 10] = [
    ("u", 40),
    ("rhs", 40),
    ("forcing", 40),
    ("us", 8),
    ("vs", 8),
    ("ws", 8),
    ("qs", 8),
    ("rho_i", 8),
    ("speed", 8),
    ("square", 8),
];

fn build(r: &Resolved, ctx: &WorkloadCtx) -> Result<Box<dyn Workload>, ModelError> {
    let class = Class::of(r);
    let n = class.pick(SIZE);
    let g = Geom::of(ctx);
    let (regions, mut fields) = grid_arrays("nas-sp", &ARRAYS, padded(n), &g)?;
    if npb_c(r) {
        // SP/sp.c (module doc): u and forcing in serial code; the rest k-slabs (Planes).
        fields[U].init = InitPart::Serial;
        fields[FORCING].init = InitPart::Serial;
    }
    let interior = Part::Planes { lo: 1, hi: n - 1 };
    let mut rhs_acc = vec![Access::r(U).halo(2, 2)];
    rhs_acc.extend([US, VS, WS, QS, RHO_I, SPEED, SQUARE].map(|a| Access::w(a).halo(1, 1)));
    rhs_acc.extend([Access::r(FORCING), Access::w(RHS)]);
    let sweeps = vec![
        Sweep::new("compute_rhs", Part::Planes { lo: 0, hi: n }, &rhs_acc),
        Sweep::new(
            "txinvr",
            interior.clone(),
            &[
                Access::r(RHO_I),
                Access::r(US),
                Access::r(VS),
                Access::r(WS),
                Access::r(SPEED),
                Access::r(QS),
                Access::w(RHS),
            ],
        ),
        Sweep::new("x_solve", interior.clone(), &[Access::r(RHO_I), Access::r(US), Access::r(SPEED), Access::w(RHS)]),
        Sweep::new("y_solve", interior.clone(), &[Access::r(RHO_I), Access::r(VS), Access::r(SPEED), Access::w(RHS)]),
        Sweep::new(
            "z_solve",
            Part::Rows { lo: 1, hi: n - 1, k0: 0, k1: n },
            &[Access::r(RHO_I), Access::r(WS), Access::r(SPEED), Access::w(RHS)],
        ),
        Sweep::new(
            "tzetar",
            interior.clone(),
            &[
                Access::r(US),
                Access::r(VS),
                Access::r(WS),
                Access::r(SPEED),
                Access::r(QS),
                Access::r(U),
                Access::w(RHS),
            ],
        ),
        Sweep::new("add", interior, &[Access::w(U), Access::r(RHS)]),
    ];
    let nf = n as f64;
    let flops = 881.174 * nf * nf * nf - 4683.91 * nf * nf + 11484.5 * nf - 19272.4;
    let kernel = Sweeps { regions, fields, sweeps, flops, g, threads: ctx.threads, repeat: 1, shares: Vec::new() };
    finish("nas-sp", r, ctx, kernel, class.pick(ITERS))
}
