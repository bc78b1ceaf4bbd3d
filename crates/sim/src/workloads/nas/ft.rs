//! `nas-ft`: NPB FT, a 3-D FFT PDE solver (NPB 3.3 OpenMP `ft.f`).
//!
//! **Arrays**: `u0`, `u1` — double complex (16 B) `(nx+1, ny, nz)` (x padded by one point),
//! x fastest; `twiddle` — doubles on the same grid. Class sizes / iterations: S 64³/6,
//! W 128×128×32/6, A 256×256×128/6, B 512×256×256/20, C 512³/20.
//!
//! **One iteration** (`evolve`, the inverse `fft`, `checksum`):
//! * `evolve` — k-slabs: `u0 = u0 · twiddle; u1 = u0` (reads `twiddle`, updates `u0`, writes
//!   `u1`).
//! * `transpose` — `cffts3`, the FFTs along z: `!$omp parallel do` over **j**, each thread
//!   gathers its rows `j` from **every** plane (in blocks of 16 columns into a private buffer),
//!   transforms and scatters them back in place: all `k` innermost, so a thread's accesses
//!   rotate through every slab's node line by line. Its data were first touched by the threads
//!   owning the k-slabs, so with 16 threads 15/16 of its lines are on other threads' pages:
//!   this is the all-to-all exchange an MPI FT does with a transpose.
//! * `fft-xy` — `cffts2` then `cffts1`, the FFTs along y and x, both over k-slabs: each pass
//!   reads and rewrites the thread's slab of `u1` (two transactions per line: at class A a
//!   thread's slab, 8 MiB, does not survive in the 4 MB L2 from one pass to the next).
//! * `checksum` — 1024 scattered points of `u1` (`u1(mod(j,nx)+1, mod(3j,ny)+1,
//!   mod(5j,nz)+1)`), split among threads: one line each.
//!
//! The setup (initial conditions, the forward FFT) is folded into the initialisation epoch,
//! where each thread first touches its k-slab of the three arrays (`init_ui`).
//!
//! **First touch as the NPB OpenMP C sources** (`first_touch=npb-c`, seed 003 §5;
//! NPB3.0-omp-C `FT/ft.c`, RWCP's C port of NPB 2.3-OpenMP, arrays `u0`, `u1`, `u2`,
//! `indexmap[NZ][NY][NX]` declared in `main()`): `compute_initial_conditions(u1)` is serial code
//! (thread 0 writes all of `u1`); the forward `fft(1, u1, u0)` first writes `u0` in `cffts3()`,
//! whose `#pragma omp for` is over `j`, the middle index (a thread's rows in every plane:
//! `Rows`); `compute_indexmap()`'s `#pragma omp parallel for` is over `i`, the fastest index, so
//! every thread writes into every page of `indexmap` (the model's `twiddle`; `Columns`, the
//! first writer of each page a race). The C code's third array `u2` (the inverse FFT's output)
//! has no counterpart in the model.
//!
//! **Transactions**: as for every NAS kernel: each line once per epoch pass, nothing kept
//! between epochs; the FFT butterflies work on private, cache-resident buffers.
//!
//! **Compute.** FT's official count is `N (5.23518 + 7.21113 ln N)` flops per iteration for
//! `N` points (`ft.f`), 120 per point at class A; the model fetches ≈ 0.69 lines (128 B) per
//! point per iteration, so the default is 1 306 ns per line at class A with 16 threads.

use super::common::{finish, grid_arrays, npb_c, params, Access, Class, Geom, InitPart, Part, Sweep, Sweeps, FIRST_TOUCH, ITERATIONS_DOC};
use crate::workload::{WorkloadCtx, WorkloadInfo, Workload};
use numaplace_model::spec::{ParamDecl, Resolved};
use numaplace_model::ModelError;

const PARAMS: &[ParamDecl] = &{
    let [class, iterations, think] = params(
        ITERATIONS_DOC,
        "CPU time per line, ns (auto: 5.235 + 7.211 ln N flops per point per iteration at 7.5 ns per flop over the lines fetched)",
    );
    [class, iterations, think, FIRST_TOUCH]
};

pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "nas-ft",
    doc: "NAS FT: 3-D FFT; x/y FFTs in k-slabs, z FFTs over j-blocks reading every thread's slab",
    params: PARAMS,
    caps: (),
    build,
};

/// `(nx, ny, nz)` and official iterations.
const SIZE: [(u64, u64, u64); 5] = [(64, 64, 64), (128, 128, 32), (256, 256, 128), (512, 256, 256), (512, 512, 512)];
const ITERS: [u64; 5] = [6, 6, 6, 20, 20];

const U0: usize = 0;
const U1: usize = 1;
const TWIDDLE: usize = 2;

fn build(r: &Resolved, ctx: &WorkloadCtx) -> Result<Box<dyn Workload>, ModelError> {
    let class = Class::of(r);
    let (nx, ny, nz) = class.pick(SIZE);
    let g = Geom::of(ctx);
    let dims = (nx + 1, ny, nz);
    let (regions, mut fields) = grid_arrays("nas-ft", &[("u0", 16), ("u1", 16), ("twiddle", 8)], dims, &g)?;
    if npb_c(r) {
        // FT/ft.c (module doc): u1 serial, u0 by cffts3's omp for over j, twiddle (indexmap)
        // by compute_indexmap's omp parallel for over i, the fastest index.
        for (f, part) in fields.iter_mut().zip([InitPart::Rows, InitPart::Serial, InitPart::Columns]) {
            f.init = part;
        }
    }
    let points: Vec<u64> =
        (1..=1024u64).map(|j| (j % nx) + (3 * j % ny) * dims.0 + (5 * j % nz) * dims.0 * dims.1).collect();
    let slabs = Part::Planes { lo: 0, hi: nz };
    let sweeps = vec![
        Sweep::new("evolve", slabs.clone(), &[Access::r(TWIDDLE), Access::w(U0), Access::w(U1)]),
        Sweep::new("transpose", Part::Rows { lo: 0, hi: ny, k0: 0, k1: nz }, &[Access::w(U1)]),
        Sweep::new("fft-xy", slabs, &[Access::w(U1), Access::w(U1)]),
        Sweep::new("checksum", Part::Points(points), &[Access::r(U1)]),
    ];
    let n = (nx * ny * nz) as f64;
    let flops = n * (5.23518 + 7.21113 * n.ln());
    let kernel = Sweeps { regions, fields, sweeps, flops, g, threads: ctx.threads, repeat: 1, shares: Vec::new() };
    finish("nas-ft", r, ctx, kernel, class.pick(ITERS))
}
