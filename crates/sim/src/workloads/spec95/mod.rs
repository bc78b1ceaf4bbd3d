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
//! one (every array those loops touched, at the size `t` touched it) fits in `cache_kb`. Those
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
    let now: Vec<(usize, u64)> = parts
        .iter()
        .map(|p| (p.array, (p.touch.rows.1 - p.touch.rows.0) * (p.touch.cols.1 - p.touch.cols.0) * ELEM))
        .collect();
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
