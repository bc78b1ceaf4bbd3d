//! `fft` at line level: SPLASH-2 FFT, the radix-√N six-step algorithm (seed 004 Table 1.3: 64K
//! points; all its data marked for basic proxying).
//!
//! **Data** (SPLASH-2 `fft.c`): `N = 2^m` complex doubles (16 bytes) viewed as a `√N × √N`
//! matrix with padded rows: `x` (the data), `trans` (the transpose scratch), `umain2` (the
//! `√N × √N` twiddle factors), each page aligned, and `umain` (the `√N` roots of unity of a row
//! FFT). The padding is SPLASH-2's (`fft.C`, [`pad_elements`]): at least a cache line per row,
//! grown so that each process's `√N/P` rows end on a `PAGE_SIZE` boundary ("thus ensuring that
//! all data ... needed by a processor can be allocated in its local memory"). `PAGE_SIZE` is
//! the source's `#define`, 4096 (*choice*: seed 004 does not say it recompiled FFT for its
//! 8 KiB pages; `pad_page=8192` does, and then no page holds two threads' rows). At 64K
//! points and 64 threads a row is 256 + 64 elements (5120 bytes): a thread's 4 rows are two
//! and a half 8 KiB pages, so every other page boundary between two threads falls mid-page.
//!
//! **Partitioning**: each thread owns a contiguous block of `√N/P` rows of every matrix.
//!
//! **Initialisation**: the master writes `x`, `umain` and `umain2` (SPLASH-2 initialises them in
//! `main` before creating the processes); barrier; `EndInit`.
//!
//! **Timed phases**, each ending with a barrier (SPLASH-2's `FFT1D`): first each thread touches
//! its rows of `x`, `trans` and `umain2` (SPLASH-2's `TouchArray`, which is what homes them
//! under first-touch); then per pass: transpose `x → trans`; a row FFT of each own row of
//! `trans` (bit reversal and `log₂√N` radix-2 butterfly stages, each reading and writing every
//! line of the row and reading `umain`), each row then multiplied by its `umain2` row
//! (twiddle); transpose `trans → x`; row FFTs of `x`; transpose `x → trans`. A transpose is
//! blocked as SPLASH-2's: thread `t` copies the `√N/P × √N/P` block of each other thread `s`
//! (starting with `s = t + 1`, staggered so that threads do not all read from the same one)
//! from `s`'s rows into its own rows: for each of its rows `i`, column `i` of `s`'s rows (one
//! line read per source row; the next columns of that line hit in the cache) becomes row
//! `i`'s segment (its lines written). That is the all-to-all communication of FFT: every thread reads a
//! block of every other thread's rows in every transpose.
//!
//! **Passes**: `passes=2` (default) runs the forward transform and then the inverse on the
//! result (SPLASH-2's `-t` test run); the inverse repeats the same access pattern.
//!
//! **Compute**: butterfly stage, 11 instructions per point (a complex multiply and two complex
//! adds over a pair: 10 flops, 8 loads/stores, 4 of index arithmetic); bit reversal 4 per point;
//! twiddle 14 per point (complex multiply, 4 loads, 2 stores, 2 index); transpose 6 per point.
//!
//! **Size**: at 64K points and 64 threads 1.9 M line accesses (2.0 M operations) and 12 barriers: FFT is the
//! smallest of the seven, as in SPLASH-2 (its work is O(N log N) on 1 MB of data).

use super::{compute, spec_error, Driver, Layout, LineInfo, Phased};
use crate::protocol::program::{Addr, LineCtx, LineOp, LineProgram, LineRegion};
use crate::workload::block_range;
use numaplace_model::registry::Info;
use numaplace_model::spec::{ParamDecl, ParamKind, Resolved};
use numaplace_model::ModelError;

const NAME: &str = "fft";
const COMPLEX: u64 = 16;
const BUTTERFLY_CYCLES: u64 = 11;
const REVERSE_CYCLES: u64 = 4;
const TWIDDLE_CYCLES: u64 = 14;
const TRANSPOSE_CYCLES: u64 = 6;

const PARAMS: &[ParamDecl] = &[
    ParamDecl {
        name: "points",
        kind: ParamKind::UInt { min: 16, max: 1 << 30 },
        default: "65536",
        doc: "complex points, an even power of 2 (seed 004 Table 1.3: 64K)",
    },
    ParamDecl {
        name: "passes",
        kind: ParamKind::UInt { min: 1, max: 16 },
        default: "2",
        doc: "transforms: 2 = forward then inverse (SPLASH-2's -t run)",
    },
    ParamDecl {
        name: "pad_page",
        kind: ParamKind::UInt { min: 64, max: 1 << 24 },
        default: "4096",
        doc: "bytes: the PAGE_SIZE SPLASH-2's row padding aligns each thread's rows to (fft.C's #define: 4096)",
    },
];

pub const INFO: LineInfo = Info {
    name: NAME,
    doc: "SPLASH-2 FFT, six-step with blocked all-to-all transposes (seed 004, 64K points)",
    params: PARAMS,
    caps: (),
    build,
};

fn build(r: &Resolved, ctx: &LineCtx) -> Result<Box<dyn LineProgram>, ModelError> {
    Ok(Driver::boxed(Fft::new(r.uint("points"), r.uint("passes") as usize, r.uint("pad_page"), ctx)?))
}

/// Padding elements per row, as SPLASH-2's `fft.C` computes them for `root` elements per row,
/// `rows_per_proc = root / P` rows per process, a `line`-byte cache line and its `PAGE_SIZE`
/// `page`: one line's worth of elements, then, if a process's rows fill a page, as many whole
/// pages as that padding needs spread over its rows; else whatever makes its rows one page
/// (rounded down where that does not divide; SPLASH-2 then stops with "Padding algorithm
/// unsuccessful").
fn pad_elements(root: u64, rows_per_proc: u64, line: u64, page: u64) -> u64 {
    let pad = (line / COMPLEX).max(1);
    if rows_per_proc * root * COMPLEX >= page {
        let pages = (pad * COMPLEX * rows_per_proc).div_ceil(page);
        pages * page / (COMPLEX * rows_per_proc)
    } else {
        (page - rows_per_proc * root * COMPLEX) / (COMPLEX * rows_per_proc)
    }
}

/// A padded `root × root` complex matrix.
#[derive(Clone, Copy, Debug)]
struct Matrix {
    base: Addr,
    /// Bytes per row, padding included.
    row: u64,
}

impl Matrix {
    fn at(&self, r: u64, c: u64) -> Addr {
        self.base + r * self.row + c * COMPLEX
    }
}

/// What one timed phase does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Touch,
    /// Transpose from the first matrix (0: `x`, 1: `trans`) into the other.
    Transpose(usize),
    /// Row FFTs of a matrix, with the twiddle multiply when `true`.
    Rows(usize, bool),
}

const PASS: [Step; 5] =
    [Step::Transpose(0), Step::Rows(1, true), Step::Transpose(1), Step::Rows(0, false), Step::Transpose(0)];

pub(crate) struct Fft {
    regions: Vec<LineRegion>,
    root: u64,
    passes: usize,
    threads: usize,
    line: u64,
    /// `x`, `trans`, `umain2`.
    mats: [Matrix; 3],
    umain: Addr,
}

impl Fft {
    fn new(points: u64, passes: usize, pad_page: u64, ctx: &LineCtx) -> Result<Fft, ModelError> {
        let m = points.trailing_zeros();
        if !points.is_power_of_two() || !m.is_multiple_of(2) {
            return Err(spec_error(NAME, format!("points={points}: expected an even power of 2 (4^k)")));
        }
        let root = 1u64 << (m / 2);
        if ctx.threads as u64 > root {
            return Err(spec_error(NAME, format!("points={points}: fewer than one row ({root} rows) per thread")));
        }
        if !pad_page.is_power_of_two() {
            return Err(spec_error(NAME, format!("pad_page={pad_page}: expected a power of 2")));
        }
        let row = (root + pad_elements(root, root / ctx.threads as u64, ctx.line_size, pad_page)) * COMPLEX;
        let mut l = Layout::new(ctx.page_size);
        let mut mats = [Matrix { base: 0, row }; 3];
        for (i, name) in ["x", "trans", "umain2"].iter().enumerate() {
            mats[i].base = l.alloc(name, root * row, true);
        }
        let umain = l.alloc("umain", root * COMPLEX, true);
        Ok(Fft { regions: l.regions, root, passes, threads: ctx.threads, line: ctx.line_size, mats, umain })
    }

    fn rows(&self, t: usize) -> (u64, u64) {
        block_range(self.root, self.threads as u64, t as u64)
    }

    fn step(&self, p: usize) -> Step {
        if p == 1 {
            Step::Touch
        } else {
            PASS[(p - 2) % PASS.len()]
        }
    }

    fn span(&self, out: &mut Vec<LineOp>, from: Addr, to: Addr, read: bool, write: bool) {
        let mut a = from / self.line * self.line;
        while a < to {
            if read {
                out.push(LineOp::Read(a));
            }
            if write {
                out.push(LineOp::Write(a));
            }
            a += self.line;
        }
    }

    /// Row `r` of matrix `m`, its points only.
    fn row(&self, m: usize, r: u64) -> (Addr, Addr) {
        (self.mats[m].at(r, 0), self.mats[m].at(r, self.root))
    }
}

impl Phased for Fft {
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
        2 + self.passes * PASS.len()
    }

    fn init_phases(&self) -> usize {
        1
    }

    fn units(&self, p: usize, t: usize) -> usize {
        let (lo, hi) = self.rows(t);
        let own = (hi - lo) as usize;
        if p == 0 {
            return if t == 0 { 2 * self.root as usize + 1 } else { 0 };
        }
        match self.step(p) {
            Step::Touch | Step::Rows(..) => own,
            Step::Transpose(_) => self.threads * own,
        }
    }

    fn unit(&self, p: usize, t: usize, u: usize, out: &mut Vec<LineOp>) {
        let (lo, _) = self.rows(t);
        if p == 0 {
            // `x` and `umain2`, not `trans` (SPLASH-2's main writes x, umain and umain2).
            let (m, r) = (u as u64 / self.root, u as u64 % self.root);
            if m < 2 {
                let (from, to) = self.row([0, 2][m as usize], r);
                compute(out, 4 * self.root);
                self.span(out, from, to, false, true);
            } else {
                compute(out, 4 * self.root);
                self.span(out, self.umain, self.umain + self.root * COMPLEX, false, true);
            }
            return;
        }
        match self.step(p) {
            Step::Touch => {
                let r = lo + u as u64;
                for m in 0..3 {
                    let (from, to) = self.row(m, r);
                    self.span(out, from, to, true, false);
                }
                compute(out, self.root);
            }
            Step::Transpose(src) => {
                // Unit (block of thread s, our row i): column i of s's rows, read element by
                // element, is row i's segment of s's columns.
                let (dlo, dhi) = self.rows(t);
                let own = (dhi - dlo) as usize;
                let s = (t + 1 + u / own) % self.threads;
                let i = dlo + (u % own) as u64;
                let (slo, shi) = self.rows(s);
                let (from, to) = (self.mats[src], self.mats[1 - src]);
                for r in slo..shi {
                    out.push(LineOp::Read(from.at(r, i) / self.line * self.line));
                }
                compute(out, TRANSPOSE_CYCLES * (shi - slo));
                self.span(out, to.at(i, slo), to.at(i, shi), false, true);
            }
            Step::Rows(m, twiddle) => {
                let r = lo + u as u64;
                let (from, to) = self.row(m, r);
                // Bit reversal, then log2(root) butterfly stages reading the roots.
                compute(out, REVERSE_CYCLES * self.root);
                self.span(out, from, to, true, true);
                let stages = self.root.trailing_zeros() as u64;
                for s in 0..stages {
                    // Stage s uses 2^s roots, spread over umain.
                    let roots = (1u64 << s).min(self.root);
                    self.span(out, self.umain, self.umain + roots * COMPLEX, true, false);
                    compute(out, BUTTERFLY_CYCLES * self.root);
                    self.span(out, from, to, true, true);
                }
                if twiddle {
                    let (wf, wt) = self.row(2, r);
                    self.span(out, wf, wt, true, false);
                    compute(out, TWIDDLE_CYCLES * self.root);
                    self.span(out, from, to, true, true);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::check;
    use super::*;

    #[test]
    fn contract_holds_on_small_transforms() {
        for (points, threads) in [(16, 1), (256, 4), (1024, 3), (64, 8)] {
            check::run(&format!("fft:points={points}"), threads);
        }
        check::run("fft:points=256,passes=1", 2);
    }

    #[test]
    fn bad_sizes_are_errors() {
        for spec in ["fft:points=128", "fft:points=100", "fft:points=16,passes=1"] {
            let r = super::super::build(&numaplace_model::spec::Spec::parse(spec).unwrap(), &check::ctx(8));
            let e = r.err().unwrap().to_string();
            assert!(e.contains("fft") && e.contains("points="), "{spec}: {e}");
        }
    }

    #[test]
    fn rows_are_padded_as_splash2_pads_them() {
        // 64K points on 64 threads (4 rows of 256 elements each), 64-byte lines: SPLASH-2's
        // PAGE_SIZE 4096 gives 64 elements of padding (each thread's rows 5 such pages), 8192
        // gives 128 (3 pages of 8 KiB: no page shared between threads).
        assert_eq!(pad_elements(256, 4, 64, 4096), 64);
        assert_eq!(pad_elements(256, 4, 64, 8192), 128);
        // Rows that do not fill a page are padded up to one: 2 rows of 32 elements.
        assert_eq!(pad_elements(32, 2, 64, 4096), (4096 - 2 * 32 * 16) / 32);
        for (pad_page, ctx_page) in [(4096u64, 8192u64), (8192, 8192), (4096, 4096)] {
            let ctx = LineCtx { threads: 64, page_size: ctx_page, line_size: 64, seed: 1 };
            let f = Fft::new(1 << 16, 1, pad_page, &ctx).unwrap();
            for m in f.mats {
                assert_eq!(m.base % ctx_page, 0);
                // Every thread's rows end on a pad_page boundary.
                assert_eq!((4 * m.row) % pad_page, 0, "{pad_page}");
            }
        }
        let e = super::super::build(&numaplace_model::spec::Spec::parse("fft:pad_page=5000").unwrap(), &check::ctx(8));
        assert!(e.err().unwrap().to_string().contains("pad_page=5000"));
    }

    #[test]
    fn generation_is_lazy() {
        check::lazy(Fft::new(1 << 16, 1, 4096, &check::ctx(2)).unwrap());
    }

    #[test]
    fn transposes_read_every_other_threads_block() {
        let threads = 4;
        let s = check::run("fft:points=1024,passes=1", threads);
        let f = Fft::new(1024, 1, 4096, &check::ctx(threads)).unwrap();
        let x = f.mats[0];
        for (t, stream) in s.iter().enumerate() {
            // Timed phase 1 is the first transpose, x -> trans.
            let phase = check::timed_phase(stream, 1);
            for other in 0..threads {
                let (slo, _) = f.rows(other);
                let (dlo, _) = f.rows(t);
                let want = LineOp::Read(x.at(slo, dlo) / 64 * 64);
                assert!(phase.contains(&want), "thread {t} does not read thread {other}'s block");
            }
            // It writes only its own rows of trans.
            let (lo, hi) = f.rows(t);
            let trans = f.mats[1];
            for op in phase {
                if let LineOp::Write(a) = *op {
                    assert!(a >= trans.at(lo, 0) && a < trans.at(hi, 0), "thread {t} writes {a:#x}");
                }
            }
        }
    }
}
