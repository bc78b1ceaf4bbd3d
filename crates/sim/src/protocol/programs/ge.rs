//! `ge` at line level: Gaussian elimination of an `n × n` matrix (seed 004 Table 1.3: 512 ×
//! 512, the whole matrix marked for basic proxying).
//!
//! **Layout and assignment** are the page-level [`crate::workloads::splash::ge`]'s, shared:
//! one row-major matrix of doubles in region `a` ([`matrix_layout`]), rows assigned by
//! [`assigned_rows`]. The default `schedule=block` re-divides the active rows `k+1 .. n−1`
//! among the threads at every pivot step, so that "the responsibility for updating rows of the
//! matrix shifts during execution, so the first-touch placement slowly becomes inappropriate"
//! and accesses "concentrate on fewer and fewer home nodes" — seed 004 §1.5.1's own account of
//! why GE prefers round-robin, which a fixed assignment could not produce. `schedule=cyclic`
//! deals rows round-robin instead (ownership never moves), for comparison.
//!
//! **Accesses.** Initialisation: each thread writes every line of the rows it owns at step 0
//! (owner initialisation), then barrier, `EndInit`. Pivot step `k` (one phase, ending with a
//! barrier: row `k+1` is final only when step `k` ends): every thread with rows to update
//! reads the pivot row's active part, `a[k][k..n]` (one `Read` per line: at most 4 KiB, it
//! stays in the 8 KiB first-level cache for the step — the widely shared data of seed 004),
//! then for each of its rows `i` and each line of `a[i][k..n]` a `Read`, the update's
//! `Compute` and a `Write` (load, then store, of the same line: the read miss and the
//! write upgrade a real read-modify-write loop makes). No pivot search, no back substitution
//! (the seed's GE is the elimination).
//!
//! **Compute.** Per element updated, `a[i][j] -= m · a[k][j]`: two loads, a multiply, a
//! subtract, a store, an index increment and a branch — 7 instructions; per row, computing
//! the multiplier `m = a[i][k] / a[k][k]` and the loop set-up, 20. Initialisation: 3 per
//! element (value, store, loop).
//!
//! **Size.** At the defaults (n = 512, 64 threads) one run is 12.4 M line accesses (18.2 M
//! operations; about 2 × n³/24 lines for the updates, 1 M for the pivot rows) and 512 barriers
//! (1 ending the initialisation, 511 pivot steps): the whole elimination, nothing truncated.

use super::{compute, lines, Driver, LineInfo, Phased};
use crate::protocol::program::{LineCtx, LineOp, LineProgram, LineRegion};
use crate::workloads::splash::common::{Array2, ELEM};
use crate::workloads::splash::ge::{assigned_rows, matrix_layout, order, N_PARAM, SCHEDULE_PARAM};
use numaplace_model::registry::Info;
use numaplace_model::spec::{ParamDecl, Resolved};
use numaplace_model::ModelError;

const NAME: &str = "ge";

/// Instructions per element updated.
pub const UPDATE_CYCLES: u64 = 7;
/// Instructions per row: the multiplier and the loop set-up.
pub const ROW_CYCLES: u64 = 20;
/// Instructions per element initialised.
pub const INIT_CYCLES: u64 = 3;

const PARAMS: &[ParamDecl] = &[N_PARAM, SCHEDULE_PARAM];

pub const INFO: LineInfo = Info {
    name: NAME,
    doc: "Gaussian elimination, pivot row read by all threads (seed 004 GE, 512 x 512)",
    params: PARAMS,
    caps: (),
    build,
};

fn build(r: &Resolved, ctx: &LineCtx) -> Result<Box<dyn LineProgram>, ModelError> {
    let n = order(NAME, r)?;
    let pages = matrix_layout(NAME, n, ctx.page_size)?;
    let regions: Vec<LineRegion> = pages
        .iter()
        .map(|p| LineRegion {
            name: p.name.clone(),
            base: p.first_page as u64 * ctx.page_size,
            bytes: p.pages as u64 * ctx.page_size,
            proxy: true,
        })
        .collect();
    let a = Array2 { base: regions[0].base, rows: n, cols: n };
    Ok(Driver::boxed(Ge {
        regions,
        a,
        cyclic: r.choice("schedule") == "cyclic",
        threads: ctx.threads,
        line: ctx.line_size,
    }))
}

pub(crate) struct Ge {
    regions: Vec<LineRegion>,
    a: Array2,
    cyclic: bool,
    threads: usize,
    line: u64,
}

impl Ge {
    fn row_count(&self, from: u64, t: usize) -> usize {
        assigned_rows(self.a.rows, self.threads, self.cyclic, from, t).iter().map(|(lo, hi)| (hi - lo) as usize).sum()
    }

    /// The `u`-th of thread `t`'s rows of `from .. n`.
    fn row(&self, from: u64, t: usize, u: usize) -> u64 {
        let runs = assigned_rows(self.a.rows, self.threads, self.cyclic, from, t);
        if self.cyclic {
            runs[u].0
        } else {
            runs[0].0 + u as u64
        }
    }

    /// The pivot row of phase `p` (pivot step `p − 1`).
    fn pivot(p: usize) -> u64 {
        p as u64 - 1
    }
}

impl Phased for Ge {
    fn name(&self) -> &str {
        NAME
    }

    fn threads(&self) -> usize {
        self.threads
    }

    fn regions(&self) -> &[LineRegion] {
        &self.regions
    }

    fn phases(&self) -> usize {
        self.a.rows as usize
    }

    fn init_phases(&self) -> usize {
        1
    }

    fn units(&self, p: usize, t: usize) -> usize {
        if p == 0 {
            return self.row_count(0, t);
        }
        let rows = self.row_count(Self::pivot(p) + 1, t);
        if rows == 0 {
            0
        } else {
            rows + 1
        }
    }

    fn unit(&self, p: usize, t: usize, u: usize, out: &mut Vec<LineOp>) {
        let a = self.a;
        if p == 0 {
            let i = self.row(0, t, u);
            let (from, to) = (a.addr(i, 0), a.addr(i, a.cols));
            let mut l = from;
            while l < to {
                let end = (l / self.line + 1) * self.line;
                compute(out, INIT_CYCLES * ((end.min(to) - l) / ELEM));
                out.push(LineOp::Write(l));
                l = end;
            }
            return;
        }
        let k = Self::pivot(p);
        if u == 0 {
            lines(out, self.line, a.addr(k, k), a.addr(k, a.cols), LineOp::Read);
            return;
        }
        let i = self.row(k + 1, t, u - 1);
        compute(out, ROW_CYCLES);
        let (from, to) = (a.addr(i, k), a.addr(i, a.cols));
        let mut l = from;
        while l < to {
            let end = (l / self.line + 1) * self.line;
            out.push(LineOp::Read(l));
            compute(out, UPDATE_CYCLES * ((end.min(to) - l) / ELEM));
            out.push(LineOp::Write(l));
            l = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::check;
    use super::*;

    #[test]
    fn contract_holds_on_small_matrices() {
        for spec in ["ge:n=24", "ge:n=17,schedule=cyclic", "ge:n=3"] {
            for threads in [1, 3, 4] {
                check::run(spec, threads);
            }
        }
    }

    #[test]
    fn generation_is_lazy() {
        let g = Ge {
            regions: Vec::new(),
            a: Array2 { base: 0, rows: 300, cols: 300 },
            cyclic: false,
            threads: 2,
            line: 64,
        };
        check::lazy(g);
    }

    #[test]
    fn every_thread_with_rows_reads_the_pivot_row_each_step() {
        let n = 32u64;
        let s = check::run(&format!("ge:n={n}"), 4);
        let c = check::ctx(4);
        let a = Array2 { base: 0, rows: n, cols: n };
        for k in 0..n - 1 {
            let pivot: Vec<u64> = (a.addr(k, k) / 64..a.addr(k, n).div_ceil(64)).map(|l| l * 64).collect();
            for (t, stream) in s.iter().enumerate() {
                let phase = check::timed_phase(stream, k as usize);
                let reads: Vec<u64> =
                    phase.iter().filter_map(|o| if let LineOp::Read(x) = o { Some(*x) } else { None }).collect();
                let has_rows = assigned_rows(n, c.threads, false, k + 1, t).iter().any(|(lo, hi)| lo < hi);
                if has_rows {
                    assert_eq!(&reads[..pivot.len()], &pivot[..], "step {k} thread {t}");
                } else {
                    assert!(phase.is_empty());
                }
                // It writes only rows below the pivot.
                for o in phase {
                    if let LineOp::Write(x) = o {
                        assert!(*x >= a.addr(k + 1, 0), "step {k}: write above the active rows");
                    }
                }
            }
        }
    }

    #[test]
    fn block_ownership_shifts_to_the_last_threads() {
        // Step 0: thread 0 updates the top rows; the last step's only row belongs to the last thread.
        let n = 32u64;
        let s = check::run(&format!("ge:n={n}"), 4);
        let last = check::timed_phase(&s[3], n as usize - 2);
        assert!(last.iter().any(|o| matches!(o, LineOp::Write(x) if *x >= (n - 1) * n * 8)));
        assert!(check::timed_phase(&s[0], n as usize - 2).is_empty());
    }
}
