//! Seed 002's SPEC CFP95 programs (Corbalan, Martorell, Labarta, ICS 2003, §6): `swim`,
//! `hydro2d` and `apsi`, modelled as OpenMP loop nests over 2-D arrays of doubles, with the
//! CPU's cache in the model. (The fourth program of seed 002, bt, is the existing `nas-bt`.)
//!
//! * [`swim`]: the shallow-water code of SPEC's 102.swim (SHALLOW's program at SPEC95's size);
//!   super-linear speedup, because a thread's share of the grid fits its cache once there are
//!   enough threads.
//! * [`hydro2d`]: a 2-D hydrodynamics time step of many short parallel loops (one barrier
//!   each), a reduction for the time step and boundary conditions run by thread 0; medium-low
//!   speedup.
//! * [`apsi`]: a pollutant-distribution time step whose transport is a serial sweep by thread 0
//!   and whose parallel loops run over a few vertical levels, with reductions; poor
//!   scalability.
//!
//! Seed 002 gives no sizes, run times or speedup figures for them, only the shape of each
//! curve (§6: "Swim reaches a super-linear speedup, hydro2d reaches a medium-low speedup, apsi
//! is not scalable at all"). Each module states the structure it models and which numbers are
//! our choices; none is fitted to a speedup.
//!
//! **The cache (all three).** The simulator's workloads emit the lines that miss in the caches
//! (`docs/timing.md`); the other kernels assume nothing survives from one parallel loop to the
//! next, because their arrays dwarf the 4 MB L2 of the Origin2000's R10000 (seed 000 §2.2).
//! That assumption is what fails for these programs when a thread's share of the data becomes
//! small. Here each thread's cache is an LRU stack of arrays at the granularity of loops
//! ([`PhaseCache`]): when thread `t` touches array `a` in a loop, the rows of `a` it owns are
//! still in its cache if the distinct data `t` touched from its last loop over `a` up to this
//! one fits in `cache_kb`: every array those loops touched, counted at the cache it takes
//! (whole rows by their bytes, a column strip by a line per row). Those
//! rows then cost no transaction. Rows the thread does not own (a stencil's halo, which a
//! neighbour rewrote; data a serial loop of thread 0 reads from every thread's block) always
//! miss: they were written by another CPU since. This is fully associative LRU with the
//! reuse distance rounded up to whole loops; it ignores the L2's 2-way associativity and the
//! L1. A sweep larger than the cache evicts everything (LRU on a cyclic sweep), so the effect
//! is a step: the speedup jumps where a thread's share first fits. A job whose threads move
//! to other CPUs would lose their caches; the model keeps them (a workload does not know where
//! its threads run), so a scheduler's moves cost only their memory placement here.
//!
//! **Compute.** `think_ns` is the CPU time per line the loops touch (flops per element × 4 ns
//! per flop, [`crate::workloads::splash::common::FLOP_NS`], × elements per line). A thread's
//! compute does not shrink when its lines hit in the cache, so in each epoch a thread's
//! `think_ns` is spread over the lines it fetches: `think_ns × lines touched / lines fetched`
//! (and a thread whose every line hits fetches one line, its first, to carry its compute).

pub mod apsi;
pub mod hydro2d;
pub mod swim;

use super::splash::common::{sweep, Geometry, Touch, ELEM};
use crate::workload::{ThreadWork, Txn, WorkloadInfo};
use numaplace_model::spec::{ParamDecl, ParamKind};
use std::collections::VecDeque;

/// Every program of this family.
pub const INFOS: &[WorkloadInfo] = &[swim::INFO, hydro2d::INFO, apsi::INFO];

/// The per-CPU cache parameter every program here declares.
pub(crate) const CACHE_PARAM: ParamDecl = ParamDecl {
    name: "cache_kb",
    kind: ParamKind::UInt { min: 0, max: 1 << 30 },
    default: "4096",
    doc: "cache per CPU, KiB, that keeps a thread's data between loops (4096: the R10000's 4 MB L2, seed 000 §2.2; 0: no reuse)",
};

/// Loops remembered per thread: reuse further back than this counts as a miss.
const HISTORY: usize = 64;

/// The arrays each thread touched in its recent loops (see the module doc): an LRU stack of
/// arrays at loop granularity.
#[derive(Clone, Debug)]
pub(crate) struct PhaseCache {
    bytes: u64,
    /// Per thread, newest last: per loop, (array, bytes touched).
    history: Vec<VecDeque<Vec<(usize, u64)>>>,
}

impl PhaseCache {
    pub fn new(threads: usize, cache_kb: u64) -> Self {
        PhaseCache { bytes: cache_kb * 1024, history: vec![VecDeque::new(); threads] }
    }

    /// Whether array `a`, last touched by thread `t` in an earlier loop, is still in its
    /// cache when the thread's current loop touches `now`: the distinct data of the loops from
    /// that one to this one fits.
    fn resident(&self, t: usize, a: usize, now: &[(usize, u64)]) -> bool {
        fn add(seen: &mut Vec<usize>, total: &mut u64, loop_parts: &[(usize, u64)]) {
            for &(arr, b) in loop_parts {
                if !seen.contains(&arr) {
                    seen.push(arr);
                    *total += b;
                }
            }
        }
        if self.bytes == 0 {
            return false;
        }
        let (mut seen, mut total) = (Vec::new(), 0u64);
        add(&mut seen, &mut total, now);
        for past in self.history[t].iter().rev() {
            add(&mut seen, &mut total, past);
            if total > self.bytes {
                return false;
            }
            if past.iter().any(|&(arr, _)| arr == a) {
                return true;
            }
        }
        false
    }

    fn push(&mut self, t: usize, now: Vec<(usize, u64)>) {
        let h = &mut self.history[t];
        if h.len() == HISTORY {
            h.pop_front();
        }
        h.push_back(now);
    }
}

/// One array's part in a thread's loop: the touch, the array's id (its index among the
/// program's arrays), and the rows the thread keeps in its cache between loops (its own rows;
/// the others always miss).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Part {
    pub touch: Touch,
    pub array: usize,
    pub owned: (u64, u64),
}

impl Part {
    /// Rows `rows` of `touch`, restricted to `keep` (empty when they do not meet).
    fn rows(touch: Touch, keep: (u64, u64)) -> Touch {
        let lo = touch.rows.0.max(keep.0);
        let hi = touch.rows.1.min(keep.1).max(lo);
        Touch { rows: (lo, hi), ..touch }
    }
}

/// The cache a touch occupies: its bytes when it covers whole rows (they are contiguous),
/// else whole lines per row (a column strip holds a line of cache per row).
fn cached_bytes(t: &Touch, line: u64) -> u64 {
    let rows = t.rows.1.saturating_sub(t.rows.0);
    let width = t.cols.1.saturating_sub(t.cols.0) * ELEM;
    if t.cols == (0, t.arr.cols) {
        rows * width
    } else {
        rows * width.div_ceil(line) * line
    }
}

/// Lines a touch covers (as [`sweep`] emits them).
fn lines_of(scratch: &mut Vec<Txn>, g: &Geometry, touches: &[Touch]) -> u64 {
    scratch.clear();
    sweep(scratch, g, touches);
    scratch.iter().map(|t| t.count as u64).sum()
}

/// Fills `work` with thread `t`'s loop over `parts` under the cache model: the lines that miss,
/// in loop order, and `think_ns` spread over them (see the module doc). Records the loop in
/// the thread's history.
pub(crate) fn thread_loop(
    work: &mut ThreadWork,
    g: &Geometry,
    cache: &mut PhaseCache,
    t: usize,
    parts: &[Part],
    think_ns: f64,
    scratch: &mut Vec<Txn>,
) {
    let all: Vec<Touch> = parts.iter().map(|p| p.touch).collect();
    let touched = lines_of(scratch, g, &all);
    if touched == 0 {
        cache.push(t, Vec::new());
        return;
    }
    let now: Vec<(usize, u64)> = parts.iter().map(|p| (p.array, cached_bytes(&p.touch, g.line))).collect();
    // The touches that miss: a resident array's owned rows are left out, its other rows kept.
    let mut missing: Vec<Touch> = Vec::with_capacity(parts.len() * 2);
    for p in parts {
        if cache.resident(t, p.array, &now) {
            missing.push(Part::rows(p.touch, (0, p.owned.0)));
            missing.push(Part::rows(p.touch, (p.owned.1, u64::MAX)));
        } else {
            missing.push(p.touch);
        }
    }
    let before = work.txns.len();
    sweep(&mut work.txns, g, &missing);
    let mut fetched: u64 = work.txns[before..].iter().map(|x| x.count as u64).sum();
    if fetched == 0 {
        // Every line hit: fetch the loop's first line to carry its compute.
        scratch.clear();
        sweep(scratch, g, &all);
        work.txns.push(Txn { count: 1, ..scratch[0] });
        fetched = 1;
    }
    work.think_ns = think_ns * touched as f64 / fetched as f64;
    cache.push(t, now);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Op;
    use crate::workloads::splash::common::Array2;

    #[test]
    fn reuse_distance_is_the_distinct_data_of_the_loops_between() {
        let k = 1024;
        // A 10 KiB cache; arrays 0, 1, 2 of 4 KiB each.
        let mut c = PhaseCache::new(1, 10);
        c.push(0, vec![(0, 4 * k)]);
        c.push(0, vec![(1, 4 * k)]);
        // Array 0 again, touched with array 1: 0 and 1 since, 8 KiB: resident.
        assert!(c.resident(0, 0, &[(0, 4 * k), (1, 4 * k)]));
        // With array 2 in the loop as well, 12 KiB: evicted.
        assert!(!c.resident(0, 0, &[(0, 4 * k), (2, 4 * k)]));
        // An array never touched is not resident; nor is anything with no cache.
        assert!(!c.resident(0, 2, &[(2, 4 * k)]));
        assert!(!PhaseCache::new(1, 0).resident(0, 0, &[(0, 1)]));
        // Repeated arrays count once.
        c.push(0, vec![(1, 4 * k)]);
        c.push(0, vec![(1, 4 * k)]);
        assert!(c.resident(0, 0, &[(0, 4 * k)]));
    }

    #[test]
    fn a_column_strip_takes_a_line_per_row() {
        let a = Array2 { base: 0, rows: 10, cols: 32 };
        assert_eq!(cached_bytes(&Touch::read_rows(a, (0, 10)), 128), 10 * 256);
        assert_eq!(cached_bytes(&Touch::read(a, (0, 10), (0, 2)), 128), 10 * 128);
    }

    #[test]
    fn a_resident_array_costs_its_halo_only_and_keeps_its_compute() {
        // 4 rows of 32 doubles (one 256-byte page each, 2 lines of 128 B); the thread owns
        // rows 0..2 and reads row 2 as a halo.
        let g = Geometry { line: 128, lines_per_page: 2, page: 256 };
        let a = Array2 { base: 0, rows: 4, cols: 32 };
        let part = Part { touch: Touch::read_rows(a, (0, 3)), array: 0, owned: (0, 2) };
        let mut cache = PhaseCache::new(1, 1024);
        let (mut work, mut scratch) = (ThreadWork::default(), Vec::new());
        thread_loop(&mut work, &g, &mut cache, 0, &[part], 10.0, &mut scratch);
        assert_eq!(work.txns.iter().map(|t| t.count).sum::<u16>(), 6, "cold: every line");
        assert_eq!(work.think_ns, 10.0);
        let mut work = ThreadWork::default();
        thread_loop(&mut work, &g, &mut cache, 0, &[part], 10.0, &mut scratch);
        assert_eq!(work.txns, vec![Txn { page: 2, count: 2, op: Op::Read }], "warm: the halo row");
        assert_eq!(work.think_ns, 30.0, "6 lines of compute over 2 fetched");
        // Nothing but owned rows: one line carries the compute.
        let own = Part { touch: Touch::read_rows(a, (0, 2)), array: 0, owned: (0, 2) };
        let mut work = ThreadWork::default();
        thread_loop(&mut work, &g, &mut cache, 0, &[own], 10.0, &mut scratch);
        assert_eq!(work.txns, vec![Txn { page: 0, count: 1, op: Op::Read }]);
        assert_eq!(work.think_ns, 40.0);
    }
}
