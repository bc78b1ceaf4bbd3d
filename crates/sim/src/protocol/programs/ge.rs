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
//! barrier: row `k+1` is final only when step `k` ends): every thread with rows to update runs,
//! for each of its rows `i`, the update loop `a[i][j] -= m · a[k][j]` for `j = k .. n−1`
//! element by element: a `Read` of `a[k][j]` (the pivot row, the widely shared data of seed
//! 004), a `Read` of `a[i][j]`, the update's `Compute` and a `Write` of `a[i][j]`. The loop
//! alternates between two lines, so by the operations' contract each access is stated
//! (`program.rs`: only consecutive accesses to one line with nothing between them are stated
//! once), and the engine's first-level cache decides what hits: with rows of 4 KiB (n = 512)
//! and the 8 KiB direct-mapped FLC, `a[k][j]` and `a[i][j]` fall in the same frame whenever
//! `i − k` is even, and evict each other at every element, so half the rows fetch the pivot
//! row's lines from the SLC at every element, the other half keep them in the FLC. (Before,
//! the model read the pivot row once per step on the assumption that it stayed in the FLC for
//! the step, which the direct-mapped FLC does not allow.) No pivot search, no back
//! substitution (the seed's GE is the elimination).
//!
//! **Compute.** Per element updated, `a[i][j] -= m · a[k][j]`: two loads, a multiply, a
//! subtract, a store, an index increment and a branch — 7 instructions, of which the loads
//! and the store are the element's operations (a cycle each at least) and 4 its `Compute`;
//! per row, computing the multiplier `m = a[i][k] / a[k][k]` and the loop set-up, 20.
//! Initialisation: 3 per element (value, store, loop).
//!
//! **Size.** At the defaults (n = 512, 64 threads) one run is 134.2 M line accesses (179.2 M
//! operations: three accesses per element of the n³/3 updated, and its compute; the
//! initialisation's 32 K lines) and 512 barriers (1 ending the initialisation, 511 pivot
//! steps): the whole elimination, nothing truncated. A row's loop is cut into units of
//! [`UNIT_ELEMENTS`] elements (a unit stays below the engine's `CHUNK` of operations for any
//! `n`).

use super::{compute, Driver, LineInfo, Phased};
use crate::protocol::program::{LineCtx, LineOp, LineProgram, LineRegion};
use crate::workloads::splash::common::{Array2, ELEM};
use crate::workloads::splash::ge::{assigned_rows, matrix_layout, order, N_PARAM, SCHEDULE_PARAM};
use numaplace_model::registry::Info;
use numaplace_model::spec::{ParamDecl, Resolved};
use numaplace_model::ModelError;

const NAME: &str = "ge";

/// Instructions per element updated.
pub const UPDATE_CYCLES: u64 = 7;
/// Of them, the two loads and the store, stated as operations.
const UPDATE_ACCESSES: u64 = 3;
/// Elements of a row's update loop per unit.
pub const UNIT_ELEMENTS: u64 = 256;
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

    /// Units of one row's update loop over `elements` elements.
    fn units_per_row(elements: u64) -> usize {
        elements.div_ceil(UNIT_ELEMENTS) as usize
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
        let k = Self::pivot(p);
        self.row_count(k + 1, t) * Self::units_per_row(self.a.cols - k)
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
        let per_row = Self::units_per_row(a.cols - k);
        let (r, b) = (u / per_row, (u % per_row) as u64);
        let i = self.row(k + 1, t, r);
        if b == 0 {
            compute(out, ROW_CYCLES);
        }
        let from = k + b * UNIT_ELEMENTS;
        for j in from..(from + UNIT_ELEMENTS).min(a.cols) {
            out.push(LineOp::Read(a.addr(k, j)));
            out.push(LineOp::Read(a.addr(i, j)));
            compute(out, UPDATE_CYCLES - UPDATE_ACCESSES);
            out.push(LineOp::Write(a.addr(i, j)));
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
    fn each_element_update_reads_the_pivot_then_the_row_then_writes_the_row() {
        // n = 300: rows longer than a unit, so a row's loop spans units.
        for (n, cyclic) in [(32u64, false), (300, false), (40, true)] {
            let spec = format!("ge:n={n}{}", if cyclic { ",schedule=cyclic" } else { "" });
            let s = check::run(&spec, 4);
            let c = check::ctx(4);
            let a = Array2 { base: 0, rows: n, cols: n };
            let phases: Vec<Vec<&[LineOp]>> = s.iter().map(|stream| check::timed_phases(stream)).collect();
            for k in 0..n - 1 {
                for (t, stream) in phases.iter().enumerate() {
                    let phase = stream[k as usize];
                    let got: Vec<LineOp> = phase.iter().copied().filter(|o| !matches!(o, LineOp::Compute(_))).collect();
                    let mut want = Vec::new();
                    for (lo, hi) in assigned_rows(n, c.threads, cyclic, k + 1, t) {
                        for i in lo..hi {
                            for j in k..n {
                                want.extend([LineOp::Read(a.addr(k, j)), LineOp::Read(a.addr(i, j)), LineOp::Write(a.addr(i, j))]);
                            }
                        }
                    }
                    assert_eq!(got, want, "{spec}: step {k} thread {t}");
                    // The compute: 20 per row and 4 per element, the loads and store a cycle each.
                    let cycles: u64 = phase.iter().map(|o| if let LineOp::Compute(x) = o { *x as u64 } else { 0 }).sum();
                    let rows = assigned_rows(n, c.threads, cyclic, k + 1, t).iter().map(|(lo, hi)| hi - lo).sum::<u64>();
                    assert_eq!(cycles, rows * (ROW_CYCLES + (n - k) * (UPDATE_CYCLES - UPDATE_ACCESSES)), "{spec}: step {k} thread {t}");
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
