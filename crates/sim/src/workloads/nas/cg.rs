//! `nas-cg`: NPB CG, conjugate gradient on a random sparse matrix (NPB 3.3 OpenMP `cg.f`).
//!
//! **Arrays**: the matrix in CSR form — `a` (doubles) and `colidx` (4-byte Fortran integers),
//! `nnz` entries each, and `rowstr` (`n + 1` integers) — and the vectors `x`, `z`, `p`, `q`, `r`
//! (`n + 2` doubles each). Class sizes: S n = 1400, nonzer = 7, 15 iterations; W 7000/8/15;
//! A 14000/11/15; B 75000/13/75; C 150000/15/75.
//!
//! **The matrix.** NPB's `makea` sums `n` outer products of random sparse vectors with
//! `nonzer + 1` entries each and allocates `nz = n (nonzer + 1)²` entries for the result; we
//! take that bound as the model's `nnz` (duplicates make the true count a few per cent lower),
//! with `(nonzer + 1)²` entries in every row. The column of each entry is drawn uniformly over
//! the whole vector from a stream seeded by the run seed and the row (`derive(seed, row)`), so
//! the pattern is fixed for a run, changes with the seed, and each thread's rows reference
//! columns across the whole vector, as the outer products of random vectors do.
//!
//! **One iteration** (one call of `conj_grad`, then the normalisation of `x`); vectors and
//! matrix rows are split among threads in contiguous row blocks (`!$omp do`), which is also
//! how `makea` and the initial loops first touch them:
//! * `cg-init` — `q = z = 0`, `r = x`, `p = r` and `rho = r·r` on the thread's block.
//! * 25 times: `matvec` — `q = A p` (with `d = p·q`): the thread streams its rows of `rowstr`,
//!   `colidx` and `a` and gathers `p(colidx(k))`: it fetches each line of `p` its columns hit
//!   once (then it stays in cache for the sweep), in first-reference order, interleaved with
//!   the matrix pages — with random columns, nearly every line of `p`, so every page of `p` is
//!   read by every thread while each matrix page is read by its row owner only. `axpy` —
//!   `z += αp`, `r −= αq`, `rho = r·r` on the block. `p-update` — `p = r + βp` on the block.
//! * `residual` — `r = A z` (the same gather, from `z`) and `‖x − r‖`.
//! * `norm` — `x·z`, `z·z`; `x-update` — `x = z / ‖z‖`.
//!
//! **First touch as the NPB OpenMP C sources** (`first_touch=npb-c`, seed 003 §5;
//! NPB3.0-omp-C `CG/cg.c`, RWCP's C port of NPB 2.3-OpenMP): `makea()` runs in serial code from
//! `main()`; within it `#pragma omp parallel for` zeroes `colidx[n+1 ..= 2n]` (thread t its
//! block), then `sprnvc()` and `sparse()`'s serial loop (`colidx[k] = acol[nza]`) write the rest
//! of `colidx` on the master thread; `sparse()`'s `omp parallel for` loops first write `rowstr`
//! (`rowstr[j] = 0`, row blocks), `a` (`a[k] = 0.0` over each row's entries, row blocks) and `x`
//! (`x[i] = 0.0`, blocks); `main()`'s `omp for` writes `q`, `z`, `r`, `p` (blocks). So `colidx`
//! starts on thread 0's node, except the pages of its entries `n+1 ..= 2n`; everything else is
//! in the row blocks the default (`slabs`) also gives.
//!
//! **Transactions**: as for every NAS kernel: each line once per epoch, nothing kept between
//! epochs. (At class A the whole per-thread working set, ≈ 1.6 MB, would in fact fit the
//! Origin's 4 MB L2; the model streams it anyway, as at class B where it cannot fit.)
//!
//! **mlp.** The gathers `p(colidx(k))` are independent loads (their addresses come from the
//! streamed `colidx`, not from earlier gathers), so `mlp` stays unbounded and the machine's
//! limit applies, as for the streaming accesses.
//!
//! **Compute.** CG's official count is `2 n (3 + nonzer(nonzer+1) + 25 (5 + nonzer(nonzer+1))
//! + 3)` flops per iteration (`cg.f`), 99.8 M at class A, where the model fetches ≈ 5.5 M lines
//! (128 B) per iteration, so the default is 137 ns per line (class A, 16 threads): CG is
//! memory-bound, about 19 flops per line.

use super::common::{finish, npb_c, params, regions, Class, Field, Geom, Kernel, FIRST_TOUCH, ITERATIONS_DOC};
use crate::workload::{block_range, Op, ThreadWork, Txn, WorkloadCtx, WorkloadInfo, Workload};
use numaplace_model::rng::{derive, SplitMix64};
use numaplace_model::spec::{ParamDecl, Resolved};
use numaplace_model::{ModelError, Region};

const PARAMS: &[ParamDecl] = &{
    let [class, iterations, think] = params(
        ITERATIONS_DOC,
        "CPU time per line, ns (auto: NPB's CG flop count per iteration at 7.5 ns per flop over the lines fetched)",
    );
    [class, iterations, think, FIRST_TOUCH]
};

pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "nas-cg",
    doc: "NAS CG: sparse matrix-vector products; row blocks per thread, p gathered at random columns",
    params: PARAMS,
    caps: (),
    build,
};

/// `(n, nonzer)` and official iterations.
const SIZE: [(u64, u64); 5] = [(1400, 7), (7000, 8), (14000, 11), (75000, 13), (150000, 15)];
const ITERS: [u64; 5] = [15, 15, 15, 75, 75];
/// CG iterations inside `conj_grad` (`cgitmax`).
const CGITMAX: usize = 25;

/// Stream id of the column draws of row 0 (rows follow).
const COLUMN_STREAM: u64 = 0xC6_0000_0000;

const A: usize = 0;
const COLIDX: usize = 1;
const ROWSTR: usize = 2;
const X: usize = 3;
const Z: usize = 4;
const P: usize = 5;
const Q: usize = 6;
const R: usize = 7;

struct Cg {
    regions: Vec<Region>,
    fields: Vec<Field>,
    g: Geom,
    threads: usize,
    n: u64,
    /// Entries per row, `(nonzer + 1)²`.
    width: u64,
    /// Per thread: `(entry offset within its rows, line of the vector)` of every vector line
    /// its rows reference, at the entry that first references it.
    gathers: Vec<Vec<(u32, u32)>>,
    flops: f64,
    /// `first_touch=npb-c`: `colidx` written serially (module doc).
    npb_c: bool,
}

fn build(r: &Resolved, ctx: &WorkloadCtx) -> Result<Box<dyn Workload>, ModelError> {
    let class = Class::of(r);
    let (n, nonzer) = class.pick(SIZE);
    let g = Geom::of(ctx);
    let width = (nonzer + 1) * (nonzer + 1);
    let nnz = n * width;
    let regions = regions(
        "nas-cg",
        &[
            ("a", nnz * 8),
            ("colidx", nnz * 4),
            ("rowstr", (n + 1) * 4),
            ("x", (n + 2) * 8),
            ("z", (n + 2) * 8),
            ("p", (n + 2) * 8),
            ("q", (n + 2) * 8),
            ("r", (n + 2) * 8),
        ],
        &g,
    )?;
    let sizes = [(8, nnz), (4, nnz), (4, n + 1), (8, n + 2), (8, n + 2), (8, n + 2), (8, n + 2), (8, n + 2)];
    let fields = regions.iter().zip(sizes).map(|(reg, (bpp, len))| Field::vector(reg, bpp, len)).collect();
    let gathers = (0..ctx.threads).map(|t| gathers(ctx, &g, n, width, t)).collect();
    let nz1 = (nonzer * (nonzer + 1)) as f64;
    let flops = 2.0 * n as f64 * (3.0 + nz1 + CGITMAX as f64 * (5.0 + nz1) + 3.0);
    let kernel = Cg { regions, fields, g, threads: ctx.threads, n, width, gathers, flops, npb_c: npb_c(r) };
    finish("nas-cg", r, ctx, kernel, class.pick(ITERS))
}

/// The vector lines thread `t`'s rows reference, each at its first reference.
fn gathers(ctx: &WorkloadCtx, g: &Geom, n: u64, width: u64, t: usize) -> Vec<(u32, u32)> {
    let (r0, r1) = block_range(n, ctx.threads as u64, t as u64);
    let lines = ((n + 2) * 8).div_ceil(g.line);
    let mut seen = vec![false; lines as usize];
    let mut out = Vec::new();
    for row in r0..r1 {
        let mut rng = SplitMix64::new(derive(ctx.seed, COLUMN_STREAM + row));
        for k in 0..width {
            let line = rng.below(n) * 8 / g.line;
            if !seen[line as usize] {
                seen[line as usize] = true;
                out.push((((row - r0) * width + k) as u32, line as u32));
            }
        }
    }
    out
}

impl Cg {
    fn rows(&self, t: usize) -> (u64, u64) {
        block_range(self.n, self.threads as u64, t as u64)
    }

    /// Thread `t`'s block of each vector in `acc`, one after the other.
    fn vectors(&self, t: usize, acc: &[(usize, Op)], out: &mut Vec<Txn>) {
        let (r0, r1) = self.rows(t);
        for &(f, op) in acc {
            self.fields[f].push_points(&self.g, out, r0, r1, op);
        }
    }

    /// `dst = A src` on thread `t`'s rows: the matrix streamed page by page of `a`, each line
    /// of `src` gathered at its first reference.
    fn matvec(&self, t: usize, src: usize, dst: usize, out: &mut Vec<Txn>) {
        let (r0, r1) = self.rows(t);
        if r0 == r1 {
            return;
        }
        let g = &self.g;
        self.fields[ROWSTR].push_points(g, out, r0, r1 + 1, Op::Read);
        let (e0, e1) = (r0 * self.width, r1 * self.width);
        let per_page = g.page / 8;
        let gathers = &self.gathers[t];
        let (mut next, mut ca, mut cc) = (0usize, 0u64, 0u64);
        let mut s = e0;
        while s < e1 {
            let e = ((s / per_page + 1) * per_page).min(e1);
            self.fields[COLIDX].push_span(g, out, &mut cc, s * 4, e * 4, Op::Read);
            self.fields[A].push_span(g, out, &mut ca, s * 8, e * 8, Op::Read);
            while next < gathers.len() && e0 + (gathers[next].0 as u64) < e {
                let line = gathers[next].1 as u64;
                self.fields[src].push_span(g, out, &mut 0, line * g.line, (line + 1) * g.line, Op::Read);
                next += 1;
            }
            s = e;
        }
        self.fields[dst].push_points(g, out, r0, r1, Op::Write);
    }
}

impl Kernel for Cg {
    fn regions(&self) -> &[Region] {
        &self.regions
    }

    fn epochs_per_iteration(&self) -> usize {
        1 + 3 * CGITMAX + 3
    }

    fn phase(&self, e: usize) -> &'static str {
        match e {
            0 => "cg-init",
            e if e <= 3 * CGITMAX => ["matvec", "axpy", "p-update"][(e - 1) % 3],
            e if e == 3 * CGITMAX + 1 => "residual",
            e if e == 3 * CGITMAX + 2 => "norm",
            _ => "x-update",
        }
    }

    fn fill(&self, e: usize, t: usize, work: &mut ThreadWork) {
        let out = &mut work.txns;
        match self.phase(e) {
            "cg-init" => self.vectors(t, &[(X, Op::Read), (Q, Op::Write), (Z, Op::Write), (R, Op::Write), (P, Op::Write)], out),
            "matvec" => self.matvec(t, P, Q, out),
            "axpy" => self.vectors(t, &[(Z, Op::Write), (P, Op::Read), (R, Op::Write), (Q, Op::Read)], out),
            "p-update" => self.vectors(t, &[(R, Op::Read), (P, Op::Write)], out),
            "residual" => {
                self.matvec(t, Z, R, out);
                self.vectors(t, &[(X, Op::Read)], out);
            }
            "norm" => self.vectors(t, &[(X, Op::Read), (Z, Op::Read)], out),
            _ => self.vectors(t, &[(Z, Op::Read), (X, Op::Write)], out),
        }
    }

    fn init(&self, t: usize, parts: usize, out: &mut Vec<Txn>) {
        // makea and the first loops: each thread writes its rows of the matrix and its blocks
        // of the vectors; the last block also takes the trailing elements.
        let (r0, r1) = block_range(self.n, parts as u64, t as u64);
        let last = t + 1 == parts;
        let g = &self.g;
        let f = &self.fields;
        f[ROWSTR].push_points(g, out, r0, if last { self.n + 1 } else { r1 }, Op::Write);
        f[A].push_points(g, out, r0 * self.width, r1 * self.width, Op::Write);
        if !self.npb_c {
            f[COLIDX].push_points(g, out, r0 * self.width, r1 * self.width, Op::Write);
        } else {
            // `makea`'s parallel loop zeroes colidx[n+1 ..= 2n] first (thread t its block);
            // `sprnvc` and `sparse`'s serial loop then write the rest on the master thread.
            f[COLIDX].push_points(g, out, self.n + 1 + r0, self.n + 1 + r1, Op::Write);
            if t == 0 {
                f[COLIDX].push_points(g, out, 0, self.n + 1, Op::Write);
                f[COLIDX].push_points(g, out, 2 * self.n + 1, self.n * self.width, Op::Write);
            }
        }
        for v in [X, Z, P, Q, R] {
            f[v].push_points(g, out, r0, if last { self.n + 2 } else { r1 }, Op::Write);
        }
    }

    fn flops_per_iteration(&self) -> f64 {
        self.flops
    }
}
