//! Sweeps: how a grid kernel's epoch divides its loop over k-slabs, j-blocks or pipeline
//! stages among the threads, and the records each thread's part fetches from each array.

use super::driver::Kernel;
use super::{Field, Geom};
use crate::workload::{block_range, Op, ThreadWork, Txn};
use numaplace_model::Region;

/// One array touched by a sweep.
///
/// For a k-partitioned sweep, loop planes `[p0, p1)` touch the array's planes
/// `[scale·p0, scale·p1)` with `op` (its *own* part) and the `halo` planes below and above with
/// reads (stencil neighbours owned by other threads). For a j-partitioned or pipelined sweep the
/// halo counts rows instead. `scale = 2` maps a coarse-grid loop onto a fine grid (multigrid).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Access {
    pub field: usize,
    pub op: Op,
    pub scale: u64,
    pub halo: (u64, u64),
}

impl Access {
    pub fn r(field: usize) -> Access {
        Access { field, op: Op::Read, scale: 1, halo: (0, 0) }
    }

    /// A write, or a read-modify-write: either is one line fetched per line touched.
    pub fn w(field: usize) -> Access {
        Access { field, op: Op::Write, scale: 1, halo: (0, 0) }
    }

    pub fn halo(self, below: u64, above: u64) -> Access {
        Access { halo: (below, above), ..self }
    }

    pub fn scale(self, scale: u64) -> Access {
        Access { scale, ..self }
    }
}

/// How a sweep divides its iteration space among threads (OpenMP static schedule).
#[derive(Clone, Debug)]
pub(crate) enum Part {
    /// Loop planes `[lo, hi)` in contiguous blocks: thread `t` sweeps its k-slab.
    Planes { lo: u64, hi: u64 },
    /// Rows `[lo, hi)` in contiguous blocks, in every plane of `[k0, k1)`: thread `t` touches
    /// its rows in all planes (a j-block across the whole k extent), each line of its rows in
    /// every plane before the next line (NPB's loops over `j`, then `i`, then all `k`).
    Rows { lo: u64, hi: u64, k0: u64, k1: u64 },
    /// One stage of a pipelined wavefront over planes `[k0, k1)`: the threads own row blocks of
    /// `[lo, hi)` and the `p`-th thread with rows works, at `stage`, on the `(stage - p)`-th
    /// plane (counting from `k1 - 1` downwards with `p` counted from the last thread when
    /// `up`), so each thread starts a plane once its neighbour has finished it.
    Wave { lo: u64, hi: u64, k0: u64, k1: u64, stage: u64, up: bool },
    /// Scattered points (linear indices) in contiguous blocks of the list, one line each.
    Points(Vec<u64>),
}

/// One epoch of a grid kernel: a phase name, its partition and the arrays it touches.
#[derive(Clone, Debug)]
pub(crate) struct Sweep {
    pub phase: &'static str,
    pub part: Part,
    pub acc: Vec<Access>,
}

impl Sweep {
    pub fn new(phase: &'static str, part: Part, acc: &[Access]) -> Sweep {
        Sweep { phase, part, acc: acc.to_vec() }
    }
}

/// Threads among the first `t` whose block of `n` items is not empty.
fn nonempty_before(n: u64, parts: u64, t: u64) -> u64 {
    (0..t).filter(|&u| block_range(n, parts, u).0 < block_range(n, parts, u).1).count() as u64
}

/// Stages of a pipelined sweep over `planes` planes with `rows` rows among `threads` threads.
pub(crate) fn wave_stages(planes: u64, rows: u64, threads: usize) -> u64 {
    let busy = rows.min(threads as u64);
    if planes == 0 || busy == 0 {
        0
    } else {
        planes + busy - 1
    }
}

/// Appends thread `t`'s records for `sweep`.
pub(crate) fn emit(sweep: &Sweep, fields: &[Field], g: &Geom, t: usize, threads: usize, out: &mut Vec<Txn>) {
    let (tt, nt) = (t as u64, threads as u64);
    let mut cursor = vec![0u64; sweep.acc.len()];
    match &sweep.part {
        Part::Planes { lo, hi } => {
            let (a, b) = block_range(hi.saturating_sub(*lo), nt, tt);
            let (p0, p1) = (lo + a, lo + b);
            for p in p0..p1 {
                for (a, c) in sweep.acc.iter().zip(cursor.iter_mut()) {
                    let f = &fields[a.field];
                    let own = (a.scale * p0, (a.scale * p1).min(f.sz));
                    let full = (own.0.saturating_sub(a.halo.0), (own.1 + a.halo.1).min(f.sz));
                    // This loop plane's share: its own planes, plus the halo at the ends.
                    let from = if p == p0 { full.0 } else { a.scale * p };
                    let to = if p + 1 == p1 { full.1 } else { (a.scale * (p + 1)).min(f.sz) };
                    f.push_planes(g, out, c, from, to.min(own.0), Op::Read);
                    f.push_planes(g, out, c, from.max(own.0), to.min(own.1), a.op);
                    f.push_planes(g, out, c, from.max(own.1), to, Op::Read);
                }
            }
        }
        Part::Rows { lo, hi, k0, k1 } => {
            let (a, b) = block_range(hi.saturating_sub(*lo), nt, tt);
            if a < b {
                // The same lines as plane by plane, in NPB's order: its j-partitioned loops run
                // `j`, then `i`, then **all `k` innermost** (BT's and SP's `z_solve`, LU's
                // zeta fluxes, FT's `cffts3`), so a thread visits every plane's line of its
                // current (j, i) before the next line of its rows: its accesses rotate through
                // every slab's node instead of staying on one slab for a whole plane of rows.
                let mut planes: Vec<Vec<Txn>> = Vec::with_capacity(k1.saturating_sub(*k0) as usize);
                for k in *k0..*k1 {
                    let mut plane = Vec::new();
                    rows_at(sweep, fields, g, k, (lo + a, lo + b), &mut cursor, &mut plane);
                    planes.push(plane);
                }
                interleave_lines(&planes, g.lpp, out);
            }
        }
        Part::Wave { lo, hi, k0, k1, stage, up } => {
            let rows = hi.saturating_sub(*lo);
            let (a, b) = block_range(rows, nt, tt);
            if a < b {
                let busy = rows.min(nt);
                let before = nonempty_before(rows, nt, tt);
                let pos = if *up { busy - 1 - before } else { before };
                let planes = k1.saturating_sub(*k0);
                if *stage >= pos && stage - pos < planes {
                    let i = stage - pos;
                    let k = if *up { k1 - 1 - i } else { k0 + i };
                    rows_at(sweep, fields, g, k, (lo + a, lo + b), &mut cursor, out);
                }
            }
        }
        Part::Points(points) => {
            let (a, b) = block_range(points.len() as u64, nt, tt);
            for &p in &points[a as usize..b as usize] {
                for acc in &sweep.acc {
                    fields[acc.field].push_points(g, out, p, p + 1, acc.op);
                }
            }
        }
    }
}

/// Appends the lines of `planes` (each a plane's records in storage order) one line of each
/// plane in turn: the first line of every plane, then the second of every plane, and so on
/// (a plane with fewer lines drops out when it has no more). A record is extended while
/// consecutive lines fall on one page with one op (at most `lpp` lines a record).
fn interleave_lines(planes: &[Vec<Txn>], lpp: u64, out: &mut Vec<Txn>) {
    // Per plane: (record index, lines of that record already taken).
    let mut at = vec![(0usize, 0u16); planes.len()];
    loop {
        let mut any = false;
        for (plane, pos) in planes.iter().zip(at.iter_mut()) {
            let Some(rec) = plane.get(pos.0) else { continue };
            any = true;
            match out.last_mut() {
                Some(last) if last.page == rec.page && last.op == rec.op && (last.count as u64) < lpp => last.count += 1,
                _ => out.push(Txn { page: rec.page, count: 1, op: rec.op }),
            }
            pos.1 += 1;
            if pos.1 == rec.count {
                *pos = (pos.0 + 1, 0);
            }
        }
        if !any {
            return;
        }
    }
}

/// Rows `own` of plane `k` of every array of the sweep, with their row halos read.
fn rows_at(sweep: &Sweep, fields: &[Field], g: &Geom, k: u64, own: (u64, u64), cursor: &mut [u64], out: &mut Vec<Txn>) {
    for (a, c) in sweep.acc.iter().zip(cursor.iter_mut()) {
        let f = &fields[a.field];
        let (j0, j1) = (own.0.min(f.sy), own.1.min(f.sy));
        f.push_rows(g, out, c, k, j0.saturating_sub(a.halo.0), j0, Op::Read);
        f.push_rows(g, out, c, k, j0, j1, a.op);
        f.push_rows(g, out, c, k, j1, (j1 + a.halo.1).min(f.sy), Op::Read);
    }
}

/// A grid kernel: arrays plus the sweeps of one iteration.
pub(crate) struct Sweeps {
    pub regions: Vec<Region>,
    pub fields: Vec<Field>,
    pub sweeps: Vec<Sweep>,
    pub flops: f64,
    pub g: Geom,
    pub threads: usize,
    /// Each sweep is run this many times in a row within its epoch: seed 000 §4's synthetic
    /// scaling ("we enclosed each function that comprises the main body of the parallel
    /// [region] in a sequential loop with 4 iterations"): longer phases, same access pattern.
    pub repeat: u32,
    /// Each sweep's share of the iteration's flops (empty: in proportion to its lines).
    pub shares: Vec<f64>,
}

impl Kernel for Sweeps {
    fn regions(&self) -> &[Region] {
        &self.regions
    }

    fn epochs_per_iteration(&self) -> usize {
        self.sweeps.len()
    }

    fn phase(&self, e: usize) -> &'static str {
        self.sweeps[e].phase
    }

    fn fill(&self, e: usize, t: usize, work: &mut ThreadWork) {
        for _ in 0..self.repeat.max(1) {
            emit(&self.sweeps[e], &self.fields, &self.g, t, self.threads, &mut work.txns);
        }
    }

    fn init(&self, t: usize, parts: usize, out: &mut Vec<Txn>) {
        for f in &self.fields {
            f.push_init(&self.g, out, t, parts);
        }
    }

    fn flops_per_iteration(&self) -> f64 {
        self.flops * self.repeat.max(1) as f64
    }

    fn flop_shares(&self) -> &[f64] {
        &self.shares
    }

    /// A sweep's records depend on the epoch and the thread only.
    fn same_every_iteration(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g() -> Geom {
        Geom { line: 64, lpp: 4, page: 256 }
    }

    fn field(bpp: u64, dims: (u64, u64, u64)) -> Field {
        Field::grid(&Region { name: "a".into(), first_page: 10, pages: 1000 }, bpp, dims)
    }

    fn lines(out: &[Txn]) -> u64 {
        out.iter().map(|t| t.count as u64).sum()
    }

    #[test]
    fn plane_sweep_reads_its_halo_once() {
        // 4 planes of one 64-byte line each; two threads; halo 1 on each side.
        let f = field(8, (8, 1, 4));
        let s = Sweep::new("s", Part::Planes { lo: 0, hi: 4 }, &[Access::w(0).halo(1, 1)]);
        let mut out = Vec::new();
        emit(&s, &[f], &g(), 0, 2, &mut out);
        // Thread 0: writes planes 0, 1; reads plane 2 (halo).
        assert_eq!(out, vec![Txn::write(10, 2), Txn::read(10, 1)]);
        out.clear();
        emit(&s, &[f], &g(), 1, 2, &mut out);
        // Thread 1: reads plane 1 (halo), writes planes 2, 3 (lines 2, 3: still page 10).
        assert_eq!(out, vec![Txn::read(10, 1), Txn::write(10, 2)]);
    }

    #[test]
    fn row_sweep_visits_every_plane_for_each_line_of_its_rows() {
        // Rows of one line, planes of four (a page each); thread 1 of 2 owns rows 2 and 3. NPB
        // runs all k innermost: row 2 of planes 0, 1, 2, then row 3 of planes 0, 1, 2.
        let f = field(8, (8, 4, 3));
        let s = Sweep::new("s", Part::Rows { lo: 0, hi: 4, k0: 0, k1: 3 }, &[Access::r(0)]);
        let mut out = Vec::new();
        emit(&s, &[f], &g(), 1, 2, &mut out);
        let pages: Vec<u32> = out.iter().map(|t| t.page).collect();
        assert_eq!(pages, vec![10, 11, 12, 10, 11, 12]);
        assert_eq!(lines(&out), 6);
    }

    #[test]
    fn interleaving_takes_a_line_of_each_plane_in_turn_and_keeps_every_line() {
        // Plane A: 3 lines on page 1 then 1 on page 2; plane B: 1 line on page 7; plane C: 2
        // write lines on page 9. Runs on one page with one op merge (up to 4 lines a record).
        let a = vec![Txn::read(1, 3), Txn::read(2, 1)];
        let b = vec![Txn::read(7, 1)];
        let c = vec![Txn::write(9, 2)];
        let mut out = Vec::new();
        interleave_lines(&[a.clone(), b, c], 4, &mut out);
        let want = vec![Txn::read(1, 1), Txn::read(7, 1), Txn::write(9, 1), Txn::read(1, 1), Txn::write(9, 1), Txn::read(1, 1), Txn::read(2, 1)];
        assert_eq!(out, want);
        // One plane alone comes out as it went in.
        let mut one = Vec::new();
        interleave_lines(&[a.clone()], 4, &mut one);
        assert_eq!(one, a);
        // Nothing in, nothing out.
        let mut none = Vec::new();
        interleave_lines(&[Vec::new(), Vec::new()], 4, &mut none);
        assert!(none.is_empty());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 200, ..proptest::prelude::ProptestConfig::default() })]

        /// A row sweep in NPB's order fetches exactly the lines of the same sweep plane by
        /// plane, each with the same op (counted per page and op), in records of at most a
        /// page: only the order changes.
        #[test]
        fn row_sweeps_fetch_the_lines_of_the_plane_by_plane_order(
            sx in 1u64..40, sy in 1u64..12, sz in 1u64..9,
            accs in proptest::collection::vec((0usize..3, proptest::prelude::any::<bool>(), 0u64..3, 0u64..3), 1..4),
            threads in 1usize..6, t in 0usize..6,
        ) {
            let t = t % threads;
            let fields: Vec<Field> = [8u64, 16, 40].iter().enumerate().map(|(i, &bpp)| {
                Field::grid(&Region { name: "a".into(), first_page: 10 + 1000 * i as u32, pages: 1000 }, bpp, (sx, sy, sz))
            }).collect();
            let acc: Vec<Access> = accs.iter().map(|&(f, w, lo, hi)| if w { Access::w(f) } else { Access::r(f) }.halo(lo, hi)).collect();
            let sweep = Sweep::new("s", Part::Rows { lo: 0, hi: sy, k0: 0, k1: sz }, &acc);
            let mut got = Vec::new();
            emit(&sweep, &fields, &g(), t, threads, &mut got);
            let mut want = Vec::new();
            let (a, b) = block_range(sy, threads as u64, t as u64);
            if a < b {
                let mut cursor = vec![0u64; acc.len()];
                for k in 0..sz {
                    rows_at(&sweep, &fields, &g(), k, (a, b), &mut cursor, &mut want);
                }
            }
            let tally = |v: &[Txn]| {
                let mut m = std::collections::BTreeMap::new();
                for x in v {
                    *m.entry((x.page, x.op == Op::Write)).or_insert(0u64) += x.count as u64;
                }
                m
            };
            proptest::prop_assert_eq!(tally(&got), tally(&want));
            proptest::prop_assert!(got.iter().all(|x| x.count >= 1 && x.count as u64 <= g().lpp));
        }
    }

    #[test]
    fn wave_stages_follow_the_pipeline() {
        let f = field(8, (8, 4, 5));
        let stages = wave_stages(5, 4, 2);
        assert_eq!(stages, 6);
        let planes = |t: usize, up: bool| -> Vec<Option<u32>> {
            (0..stages)
                .map(|s| {
                    let sw = Sweep::new("w", Part::Wave { lo: 0, hi: 4, k0: 0, k1: 5, stage: s, up }, &[Access::w(0)]);
                    let mut out = Vec::new();
                    emit(&sw, &[f], &g(), t, 2, &mut out);
                    out.first().map(|x| x.page - 10)
                })
                .collect()
        };
        // Plane k is page k (four one-line rows per plane, four lines per page).
        assert_eq!(planes(0, false), vec![Some(0), Some(1), Some(2), Some(3), Some(4), None]);
        assert_eq!(planes(1, false), vec![None, Some(0), Some(1), Some(2), Some(3), Some(4)]);
        assert_eq!(planes(1, true), vec![Some(4), Some(3), Some(2), Some(1), Some(0), None]);
        assert_eq!(planes(0, true), vec![None, Some(4), Some(3), Some(2), Some(1), Some(0)]);
    }

    #[test]
    fn scaled_access_maps_coarse_loop_onto_fine_planes() {
        let fine = field(8, (8, 1, 8));
        let s = Sweep::new("p", Part::Planes { lo: 0, hi: 4 }, &[Access::r(0).scale(2).halo(1, 1)]);
        let mut out = Vec::new();
        emit(&s, &[fine], &g(), 1, 2, &mut out); // coarse planes 2, 3 -> fine 4..8, halo 3
        assert_eq!(lines(&out), 5);
        assert_eq!(out[0], Txn::read(10, 1)); // fine plane 3 (line 3, page 10)
    }
}
