//! `ge`: Gaussian elimination of an `n × n` matrix, the GE benchmark of seed 004 (Talbot &
//! Kelly, §1.4, Table 1.3: 512 × 512, "similar to that used to study eager combining" by
//! Bianchini and LeBlanc; §1.5.1).
//!
//! **Data.** One `n × n` matrix of doubles, row-major (`n = 512`: a row is 4 KiB).
//!
//! **Algorithm.** Forward elimination without pivoting search: for pivot step `k = 0 .. n−2`,
//! every row `i > k` is updated, `a[i][j] −= a[i][k] / a[k][k] · a[k][j]` for `j ≥ k` (the
//! multiplier stored in `a[i][k]`). Each pivot step is one epoch (phase `eliminate`, iteration
//! `k+1`): row `k+1`, the next pivot, is final only when step `k` ends, so every step ends at a
//! barrier and steps cannot be grouped.
//!
//! **Assignment.** `schedule=block` (default): at every step the active rows `k+1 .. n−1` are
//! re-divided into `threads` contiguous blocks (OpenMP static schedule of the row loop). This is
//! the behaviour seed 004 §1.5.1 describes — "the responsibility for updating rows of the matrix
//! shifts during execution, so the first-touch placement slowly becomes inappropriate", and
//! accesses "concentrate on fewer and fewer home nodes" as the active rows shrink to the
//! bottom of the matrix, first-touched by the last threads. `schedule=cyclic` deals rows
//! round-robin (row `i` to thread `i mod threads`) for comparison: ownership then never moves.
//!
//! **Loads and stores → transactions.** In step `k` a thread with rows to update first reads the
//! pivot row's active part, columns `k .. n−1` (4 KiB at most: it stays in cache for the step),
//! then fetches each line of each of its rows' active part once (read-modify-write: one
//! transaction, counted as a write). The pivot row is thus read by every thread that has work:
//! the widely shared data of seed 004. Nothing is assumed to stay cached from one step to the
//! next. That is exact for matrices larger than the caches; at 512 × 512 (2 MiB) a thread's
//! rows would fit seed 004's 4 MB second-level cache, where the misses that remain are the
//! pivot row's and those of rows changing owner, so the absolute counts here are an upper
//! bound — the pattern of which thread touches which page is what this kernel models.
//! Accesses are independent (the machine's `mlp` applies); the update is one multiply-subtract,
//! 2 flops per element, which sets the default `think_ns`.
//!
//! **Init.** `parallel`: each thread writes the rows it owns at the start (its block, or its
//! cyclic share, of all `n` rows) — seed 004's "first-touch after initialisation";
//! `sequential`: thread 0 writes the matrix. No randomness.

use super::common::{first_iteration, init_epoch, pages_for, resolve_think, spec_error, sweep, Array2, Geometry, Touch, ELEM};
use crate::workload::{block_range, layout, Epoch, WorkloadCtx, WorkloadInfo, Workload};
use numaplace_model::spec::{ParamDecl, ParamKind, Resolved};
use numaplace_model::{ModelError, Region};

const NAME: &str = "ge";

/// Flops per element fetched: one multiply and one subtract per updated element.
pub const FLOPS_PER_ELEMENT: f64 = 2.0;

const SCHEDULES: &[&str] = &["block", "cyclic"];

/// The matrix order, shared with the line-level GE ([`crate::protocol::programs::ge`]).
pub const N_PARAM: ParamDecl =
    ParamDecl { name: "n", kind: ParamKind::UINT, default: "512", doc: "matrix order (seed 004 Table 1.3: 512 x 512)" };

/// The row assignment, shared with the line-level GE.
pub const SCHEDULE_PARAM: ParamDecl = ParamDecl {
    name: "schedule",
    kind: ParamKind::Choice(SCHEDULES),
    default: "block",
    doc: "row assignment: active rows re-divided in blocks every step, or rows dealt cyclically",
};

const PARAMS: &[ParamDecl] = &[
    N_PARAM,
    SCHEDULE_PARAM,
    ParamDecl {
        name: "think_ns",
        kind: ParamKind::Float { min: 0.0, max: 1e9 },
        default: "auto",
        doc: "CPU time per line, ns (auto: 2 flops per element x 4 ns per flop x line_size/8, 128 ns for 128-byte lines)",
    },
];

pub const INFO: WorkloadInfo = WorkloadInfo {
    name: NAME,
    doc: "Gaussian elimination, pivot row read by all threads, shrinking active rows (seed 004)",
    params: PARAMS,
    caps: (),
    build,
};

/// The matrix order `n` of `r`, checked; the error names `workload`.
pub fn order(workload: &str, r: &Resolved) -> Result<u64, ModelError> {
    let n = r.uint("n");
    if !(2..=1 << 20).contains(&n) {
        return Err(spec_error(workload, format!("n={n}: expected 2..{}", 1u64 << 20)));
    }
    Ok(n)
}

/// The regions of an `n × n` matrix (one, `a`), laid out from page 0.
pub fn matrix_layout(workload: &str, n: u64, page_size: u64) -> Result<Vec<Region>, ModelError> {
    layout(workload, &[("a", pages_for(n * n * ELEM, page_size))])
}

/// The rows of `from .. n` that thread `t` of `threads` updates, as contiguous runs: a block of
/// the active rows, re-divided every step, or (`cyclic`) row `i` when `i mod threads == t`.
pub fn assigned_rows(n: u64, threads: usize, cyclic: bool, from: u64, t: usize) -> Vec<(u64, u64)> {
    let (p, t) = (threads as u64, t as u64);
    if cyclic {
        let first = from + (t + p - from % p) % p;
        (first..n).step_by(p as usize).map(|i| (i, i + 1)).collect()
    } else {
        let (lo, hi) = block_range(n - from, p, t);
        if lo < hi {
            vec![(from + lo, from + hi)]
        } else {
            Vec::new()
        }
    }
}

fn build(r: &Resolved, ctx: &WorkloadCtx) -> Result<Box<dyn Workload>, ModelError> {
    let n = order(NAME, r)?;
    let (think_ns, resolved) = resolve_think(r, ctx, FLOPS_PER_ELEMENT);
    let regions = matrix_layout(NAME, n, ctx.page_size)?;
    Ok(Box::new(Ge {
        a: Array2 { base: regions[0].first_page as u64 * ctx.page_size, rows: n, cols: n },
        regions,
        cyclic: r.choice("schedule") == "cyclic",
        think_ns,
        geo: Geometry::new(ctx),
        ctx: *ctx,
        next: first_iteration(ctx.init),
        resolved,
    }))
}

struct Ge {
    regions: Vec<Region>,
    a: Array2,
    cyclic: bool,
    think_ns: f64,
    geo: Geometry,
    ctx: WorkloadCtx,
    /// The next epoch's iteration: 0 is the initialisation, `k+1` pivot step `k`.
    next: u32,
    resolved: Resolved,
}

impl Ge {
    /// The rows of `from .. n` that thread `t` updates, as contiguous runs.
    fn rows(&self, from: u64, t: usize) -> Vec<(u64, u64)> {
        assigned_rows(self.a.rows, self.ctx.threads, self.cyclic, from, t)
    }
}

impl Workload for Ge {
    fn regions(&self) -> &[Region] {
        &self.regions
    }

    fn iterations(&self) -> u32 {
        (self.a.rows - 1) as u32
    }

    fn resolved(&self) -> Option<&Resolved> {
        Some(&self.resolved)
    }

    fn next_epoch(&mut self, epoch: &mut Epoch) -> bool {
        let it = self.next;
        if it > self.iterations() {
            return false;
        }
        self.next += 1;
        if it == 0 {
            init_epoch(epoch, &self.ctx, &self.geo, self.think_ns, |t| {
                self.rows(0, t).into_iter().map(|rows| Touch::write_rows(self.a, rows)).collect()
            });
            return true;
        }
        let k = (it - 1) as u64;
        let cols = (k, self.a.cols);
        epoch.reset(self.ctx.threads, it, "eliminate");
        for t in 0..self.ctx.threads {
            let rows = self.rows(k + 1, t);
            if rows.is_empty() {
                continue;
            }
            let work = &mut epoch.threads[t];
            work.think_ns = self.think_ns;
            sweep(&mut work.txns, &self.geo, &[Touch::read(self.a, (k, k + 1), cols)]);
            for r in rows {
                sweep(&mut work.txns, &self.geo, &[Touch::write(self.a, r, cols)]);
            }
        }
        true
    }
}
