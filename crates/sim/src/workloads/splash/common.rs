//! Geometry shared by the grid kernels: 2-D arrays of doubles stored row-major in the workload's
//! address space, rectangles of them turned into line records, and the defaults derived from
//! flop counts.
//!
//! A kernel describes one thread's loop nest in an epoch as a list of [`Touch`]es (an array, a
//! rectangle of it, and which of its rows are written) and [`sweep`] emits them the way the loop
//! walks memory: the row ranges of all touches advance together, a chunk of about one page of
//! the first touch at a time, so the arrays of a stencil are interleaved as the loop interleaves
//! them. Within one touch every line is emitted once, in address order, even where consecutive
//! rows share a line: a row-major sweep keeps the line it just left in cache. A record holds
//! consecutive lines of one page; a sweep extends its last record when the next lines continue it.

use crate::workload::{push_lines, Epoch, Init, Op, Txn, WorkloadCtx};
use numaplace_model::spec::{Resolved, Value};
use numaplace_model::ModelError;

/// Bytes per element: every array of these kernels holds `double`s.
pub const ELEM: u64 = 8;

/// CPU time per floating-point operation, ns: one flop per cycle of a 250 MHz processor (the
/// MIPS R10000 of seed 000's Origin2000 and the UltraSPARC II of seed 001's Wildfire both run at
/// 250 MHz). The loads, stores and index arithmetic around each flop issue alongside it on these
/// superscalar CPUs; the memory stalls are the timing model's business, not this figure's.
pub const FLOP_NS: f64 = 4.0;

/// The default `think_ns` of a kernel doing `flops_per_element` flops per element it fetches:
/// [`FLOP_NS`] × flops per element × elements per line (`line_size` / 8).
pub fn think_from_flops(flops_per_element: f64, line_size: u64) -> f64 {
    FLOP_NS * flops_per_element * (line_size as f64 / ELEM as f64)
}

/// Resolves a `think_ns` parameter declared with default `auto`: `auto` becomes
/// [`think_from_flops`], written back so the canonical spec shows the number.
pub fn resolve_think(r: &Resolved, ctx: &WorkloadCtx, flops_per_element: f64) -> (f64, Resolved) {
    let think = if r.is_auto("think_ns") { think_from_flops(flops_per_element, ctx.line_size) } else { r.float("think_ns") };
    let mut resolved = r.clone();
    resolved.set("think_ns", Value::Float(think));
    (think, resolved)
}

/// A spec error naming the workload.
pub fn spec_error(workload: &str, what: String) -> ModelError {
    ModelError::Spec(format!("workload '{workload}': {what}"))
}

/// Pages needed for `bytes` bytes (at least one).
pub fn pages_for(bytes: u64, page_size: u64) -> u64 {
    bytes.div_ceil(page_size).max(1)
}

/// A `rows × cols` array of doubles, row-major, starting at byte `base` of the address space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Array2 {
    pub base: u64,
    pub rows: u64,
    pub cols: u64,
}

impl Array2 {
    pub fn bytes(&self) -> u64 {
        self.rows * self.cols * ELEM
    }

    /// Byte address of element `(r, c)`.
    pub fn addr(&self, r: u64, c: u64) -> u64 {
        self.base + (r * self.cols + c) * ELEM
    }

    /// Every element, written: the whole array as an initialisation touch.
    pub fn all(self) -> Touch {
        Touch::write(self, (0, self.rows), (0, self.cols))
    }
}

/// One array's part in a loop nest: rows `rows.0..rows.1` × columns `cols.0..cols.1`; rows
/// inside `write` are written (read-modify-write costs one transaction per line, as a write),
/// the others only read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Touch {
    pub arr: Array2,
    pub rows: (u64, u64),
    pub cols: (u64, u64),
    pub write: (u64, u64),
}

impl Touch {
    pub fn read(arr: Array2, rows: (u64, u64), cols: (u64, u64)) -> Self {
        Touch { arr, rows, cols, write: (0, 0) }
    }

    pub fn write(arr: Array2, rows: (u64, u64), cols: (u64, u64)) -> Self {
        Touch { arr, rows, cols, write: rows }
    }

    /// Full rows `rows` of `arr`, read.
    pub fn read_rows(arr: Array2, rows: (u64, u64)) -> Self {
        Touch::read(arr, rows, (0, arr.cols))
    }

    /// Full rows `rows` of `arr`, written.
    pub fn write_rows(arr: Array2, rows: (u64, u64)) -> Self {
        Touch::write(arr, rows, (0, arr.cols))
    }

    /// A stencil operand: the interior `rows × cols` (written when `write`) plus a halo of
    /// `halo` rows and columns on every side (read), clamped to the array.
    pub fn stencil(arr: Array2, rows: (u64, u64), cols: (u64, u64), halo: u64, write: bool) -> Self {
        let r = (rows.0.saturating_sub(halo), (rows.1 + halo).min(arr.rows));
        let c = (cols.0.saturating_sub(halo), (cols.1 + halo).min(arr.cols));
        Touch { arr, rows: r, cols: c, write: if write { rows } else { (0, 0) } }
    }

    fn is_empty(&self) -> bool {
        self.rows.0 >= self.rows.1 || self.cols.0 >= self.cols.1
    }
}

/// Line and page sizes of the machine a workload is built for.
#[derive(Clone, Copy, Debug)]
pub struct Geometry {
    pub line: u64,
    pub lines_per_page: u64,
    pub page: u64,
}

impl Geometry {
    pub fn new(ctx: &WorkloadCtx) -> Self {
        Geometry { line: ctx.line_size, lines_per_page: ctx.lines_per_page(), page: ctx.page_size }
    }
}

/// Appends the records of lines `[from, to)` (absolute line numbers). When they continue the
/// last record — `tail` is the line after its last one, on the same page, with the same
/// operation — that record is extended: a record is `count` consecutive lines of one page.
fn emit(out: &mut Vec<Txn>, lpp: u64, mut from: u64, to: u64, op: Op, tail: &mut Option<u64>) {
    if from >= to {
        return;
    }
    if let (Some(end), Some(last)) = (*tail, out.last_mut()) {
        let page_end = (from / lpp + 1) * lpp;
        if end == from && last.page as u64 == from / lpp && last.op == op {
            let n = page_end.min(to) - from;
            last.count += n as u16; // at most a page of lines in all
            from += n;
        }
    }
    push_lines(out, 0, lpp, from, to, op);
    *tail = Some(to);
}

/// Emits `touches` as one loop nest (see the module doc): every touch's rows are split into the
/// same number of chunks, one chunk of each touch in turn.
pub fn sweep(out: &mut Vec<Txn>, g: &Geometry, touches: &[Touch]) {
    let touches: Vec<&Touch> = touches.iter().filter(|t| !t.is_empty()).collect();
    let Some(first) = touches.first() else { return };
    let rows = first.rows.1 - first.rows.0;
    let bytes = rows * (first.cols.1 - first.cols.0) * ELEM;
    let chunks = bytes.div_ceil(g.page).clamp(1, rows);
    let mut last_end = vec![0u64; touches.len()];
    let mut tail = None;
    for c in 0..chunks {
        for (t, last) in touches.iter().zip(last_end.iter_mut()) {
            let n = t.rows.1 - t.rows.0;
            let (a, b) = (t.rows.0 + n * c / chunks, t.rows.0 + n * (c + 1) / chunks);
            for r in a..b {
                let op = if (t.write.0..t.write.1).contains(&r) { Op::Write } else { Op::Read };
                let from = (t.arr.addr(r, t.cols.0) / g.line).max(*last);
                let to = t.arr.addr(r, t.cols.1).div_ceil(g.line);
                if from < to {
                    emit(out, g.lines_per_page, from, to, op, &mut tail);
                    *last = to;
                }
            }
        }
    }
}

/// The first iteration of a workload under `init`: 0 (an initialisation epoch) or 1.
pub fn first_iteration(init: Init) -> u32 {
    if init == Init::None {
        1
    } else {
        0
    }
}

/// Fills the initialisation epoch: under [`Init::Parallel`] thread `t` writes the touches
/// `owned(t)` lists (the data it owns); under [`Init::Sequential`] thread 0 writes every
/// thread's share, in thread order. (Under [`Init::None`] there is no initialisation epoch.)
pub fn init_epoch(epoch: &mut Epoch, ctx: &WorkloadCtx, g: &Geometry, think_ns: f64, owned: impl Fn(usize) -> Vec<Touch>) {
    epoch.reset(ctx.threads, 0, "init");
    for t in 0..ctx.threads {
        let writer = if ctx.init == Init::Sequential { 0 } else { t };
        let work = &mut epoch.threads[writer];
        work.think_ns = think_ns;
        for touch in owned(t) {
            sweep(&mut work.txns, g, &[touch]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geo() -> Geometry {
        Geometry { line: 64, lines_per_page: 4, page: 256 }
    }

    #[test]
    fn full_rows_merge_into_one_record_per_page() {
        // 3 rows of 20 doubles (160 B = 2.5 lines): 480 B = 7.5 lines, lines 0..8 on pages 0, 1.
        let a = Array2 { base: 0, rows: 3, cols: 20 };
        let mut v = Vec::new();
        sweep(&mut v, &geo(), &[Touch::read_rows(a, (0, 3))]);
        assert_eq!(v, vec![Txn::read(0, 4), Txn::read(1, 4)]);
    }

    #[test]
    fn halo_rows_are_read_and_interior_written() {
        let a = Array2 { base: 0, rows: 4, cols: 32 }; // one row = 256 B = one page
        let mut v = Vec::new();
        sweep(&mut v, &geo(), &[Touch::stencil(a, (1, 3), (0, 32), 1, true)]);
        assert_eq!(v, vec![Txn::read(0, 4), Txn::write(1, 4), Txn::write(2, 4), Txn::read(3, 4)]);
    }

    #[test]
    fn a_column_is_one_line_per_row() {
        let a = Array2 { base: 1024, rows: 4, cols: 32 };
        let mut v = Vec::new();
        sweep(&mut v, &geo(), &[Touch::read(a, (0, 4), (5, 6))]);
        assert_eq!(v, vec![Txn::read(4, 1), Txn::read(5, 1), Txn::read(6, 1), Txn::read(7, 1)]);
    }

    #[test]
    fn only_consecutive_lines_share_a_record() {
        // Rows of 8 doubles (one line): column 0 of rows 0..4 is lines 0..4, consecutive, while
        // in rows of 16 doubles it is every other line.
        let (a, b) = (Array2 { base: 0, rows: 4, cols: 8 }, Array2 { base: 512, rows: 4, cols: 16 });
        let mut v = Vec::new();
        sweep(&mut v, &geo(), &[Touch::read(a, (0, 4), (0, 1))]);
        assert_eq!(v, vec![Txn::read(0, 4)]);
        v.clear();
        sweep(&mut v, &geo(), &[Touch::read(b, (0, 2), (0, 1))]);
        assert_eq!(v, vec![Txn::read(2, 1), Txn::read(2, 1)]);
    }

    #[test]
    fn touches_interleave_by_chunks() {
        let a = Array2 { base: 0, rows: 2, cols: 32 };
        let b = Array2 { base: 512, rows: 2, cols: 32 };
        let mut v = Vec::new();
        sweep(&mut v, &geo(), &[Touch::read_rows(a, (0, 2)), Touch::write_rows(b, (0, 2))]);
        assert_eq!(v, vec![Txn::read(0, 4), Txn::write(2, 4), Txn::read(1, 4), Txn::write(3, 4)]);
    }

    #[test]
    fn default_think_scales_with_the_line() {
        assert_eq!(think_from_flops(2.0, 128), 128.0);
        assert_eq!(think_from_flops(2.5, 64), 80.0);
    }
}
