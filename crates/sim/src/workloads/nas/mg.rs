//! `nas-mg`: NPB MG, a V-cycle multigrid solver of a 3-D Poisson problem (NPB 3.3 OpenMP).
//!
//! **Arrays** (`mg.f`): `u` and `r` each hold the whole hierarchy of grids one after the other,
//! finest first (`ir(lt) = 1`, `ir(k) = ir(k+1) + m(k+1)³`), and `v` the finest grid only; level
//! k (1 = coarsest 2³, lt = finest n³) stores `(2^k + 2)³` doubles (one ghost layer on each side),
//! x fastest. Class sizes / iterations: S 32³/4, W 128³/4, A 256³/4, B 256³/20, C 512³/20.
//!
//! **One iteration**: `mg3P` then `resid` on the finest grid. Every operator is a parallel
//! loop over its grid's planes (`!$omp parallel do` over `i3`), so one epoch each, and every
//! level is k-partitioned among the threads (at the coarse levels most threads have no plane):
//! * down the V: `rprj3` (restriction) from level k to k-1: a coarse k-slab written, the fine
//!   planes under it (twice as many) read with one neighbour plane each side;
//! * at the coarsest level: `zero3` then `psinv` (the smoother);
//! * up the V, per level: `zero3` of `u`, `interp` (prolongation: coarse planes read with the
//!   next one, the fine planes over them updated), `resid` (`r = v − A u`: the 27-point
//!   stencil reads the slab of `u` plus one halo plane from each neighbour slab, writes `r`;
//!   below the finest level `v` is `r` itself), `psinv` (`u += C r`: `r` read with halo);
//! * at the finest level: `interp`, `resid` (reading `v`), `psinv`; then the final `resid`.
//!
//! Phases are named after the routines. The periodic-boundary copies of `comm3` touch only
//! ghost faces and are left out.
//!
//! **First touch as the NPB OpenMP C sources** (`first_touch=npb-c`, seed 003 §5;
//! NPB3.0-omp-C `MG/mg.c`, RWCP's C port of NPB 2.3-OpenMP): `main()` allocates `u`, `v` and
//! `r` row by row in serial code (`u[l][k][j] = (double *)malloc(m1[l]*sizeof(double))`, every
//! level, then `v`, then `r`), rows of `(2^l + 2)` doubles (2 KiB at the finest level of classes
//! A and B, less below). A boundary-tag allocator (Solaris libc's, glibc's) writes each block's
//! header beside it, so the master thread writes into every page of the three arrays as it
//! allocates them, before the parallel `zero3()`, `zran3()` and `resid()` loops (`omp parallel
//! for` over `i3`) write their values: every array starts on thread 0's node (`Serial`). This
//! rests on the allocator writing its headers in the heap pages, which the C source does not
//! show; the `slabs` default is the loops' own partition.
//!
//! **Transactions**: as for every NAS kernel: each line once per epoch (a stencil's k±1 planes
//! stay in cache within the sweep), nothing kept between epochs.
//!
//! **Compute.** MG's official count is `58 n³` flops per iteration (`mg.f`); the model fetches
//! ≈ 0.76 lines (128 B) per finest point per iteration, so the default is 572 ns per line at
//! class A with 16 threads, about one miss's latency on the Origin2000 (329 ns local, 564–862 ns
//! remote): MG is memory-bound.

use super::common::{finish, npb_c, params, regions, Access, Class, Field, Geom, InitPart, Part, Sweep, Sweeps, FIRST_TOUCH, ITERATIONS_DOC};
use crate::workload::{WorkloadCtx, WorkloadInfo, Workload};
use numaplace_model::spec::{ParamDecl, Resolved};
use numaplace_model::ModelError;

const PARAMS: &[ParamDecl] = &{
    let [class, iterations, think] = params(
        ITERATIONS_DOC,
        "CPU time per line, ns (auto: 58 flops per finest grid point per iteration at 7.5 ns per flop over the lines fetched)",
    );
    [class, iterations, think, FIRST_TOUCH]
};

pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "nas-mg",
    doc: "NAS MG: V-cycle multigrid; stencils, restriction and prolongation over k-slabs of every level",
    params: PARAMS,
    caps: (),
    build,
};

/// log2 of the finest grid side (`lt`), and official iterations.
const LEVELS: [u32; 5] = [5, 7, 8, 8, 9];
const ITERS: [u64; 5] = [4, 4, 4, 20, 20];

fn build(r: &Resolved, ctx: &WorkloadCtx) -> Result<Box<dyn Workload>, ModelError> {
    let class = Class::of(r);
    let lt = class.pick(LEVELS) as usize;
    let g = Geom::of(ctx);
    // m[k]: stored points per side at level k (1-based; m[0] unused).
    let m: Vec<u64> = (0..=lt).map(|k| (1u64 << k) + 2).collect();
    let cube = |k: usize| m[k] * m[k] * m[k] * 8;
    let hierarchy: u64 = (1..=lt).map(cube).sum();
    let regions = regions("nas-mg", &[("u", hierarchy), ("v", cube(lt)), ("r", hierarchy)], &g)?;
    // Fields: u(k) = 2(k-1), r(k) = 2(k-1)+1, then v.
    let u = |k: usize| 2 * (k - 1);
    let rr = |k: usize| 2 * (k - 1) + 1;
    let v = 2 * lt;
    let mut fields = Vec::with_capacity(2 * lt + 1);
    let mut base = vec![0u64; lt + 2];
    for k in (1..lt).rev() {
        base[k] = base[k + 1] + cube(k + 1);
    }
    for k in 1..=lt {
        let dims = (m[k], m[k], m[k]);
        fields.push(Field { base: base[k], ..Field::grid(&regions[0], 8, dims) });
        fields.push(Field { base: base[k], ..Field::grid(&regions[2], 8, dims) });
    }
    fields.push(Field::grid(&regions[1], 8, (m[lt], m[lt], m[lt])));
    if npb_c(r) {
        // MG/mg.c main(): every row malloc'ed by the master thread (module doc).
        for f in &mut fields {
            f.init = InitPart::Serial;
        }
    }

    let inner = |k: usize| Part::Planes { lo: 1, hi: m[k] - 1 };
    let all = |k: usize| Part::Planes { lo: 0, hi: m[k] };
    let rprj3 = |k: usize| Sweep::new("rprj3", inner(k - 1), &[Access::r(rr(k)).scale(2).halo(1, 1), Access::w(rr(k - 1))]);
    let interp = |k: usize| {
        Sweep::new("interp", Part::Planes { lo: 0, hi: m[k - 1] - 1 }, &[Access::r(u(k - 1)).halo(0, 1), Access::w(u(k)).scale(2)])
    };
    let psinv = |k: usize| Sweep::new("psinv", inner(k), &[Access::r(rr(k)).halo(1, 1), Access::w(u(k))]);
    let zero3 = |k: usize| Sweep::new("zero3", all(k), &[Access::w(u(k))]);
    let resid_fine = Sweep::new("resid", inner(lt), &[Access::r(u(lt)).halo(1, 1), Access::r(v), Access::w(rr(lt))]);

    let mut sweeps: Vec<Sweep> = (2..=lt).rev().map(rprj3).collect();
    sweeps.push(zero3(1));
    sweeps.push(psinv(1));
    for k in 2..lt {
        sweeps.push(zero3(k));
        sweeps.push(interp(k));
        sweeps.push(Sweep::new("resid", inner(k), &[Access::r(u(k)).halo(1, 1), Access::w(rr(k))]));
        sweeps.push(psinv(k));
    }
    sweeps.push(interp(lt));
    sweeps.push(resid_fine.clone());
    sweeps.push(psinv(lt));
    sweeps.push(resid_fine);

    let n = (1u64 << lt) as f64;
    let kernel = Sweeps { regions, fields, sweeps, flops: 58.0 * n * n * n, g, threads: ctx.threads, repeat: 1, shares: Vec::new() };
    finish("nas-mg", r, ctx, kernel, class.pick(ITERS))
}
