//! Seed 002's SPEC CFP95 programs (Corbalan, Martorell, Labarta, ICS 2003, §6): `swim`,
//! `hydro2d` and `apsi`, modelled as OpenMP loop nests over 2-D arrays of doubles, with the
//! CPU's cache in the model. (The fourth program of seed 002, bt, is the existing `nas-bt`.)
//!
//! * [`swim`]: the shallow-water code of SPEC's 102.swim (SHALLOW's program at SPEC95's size);
//!   super-linear speedup, because a thread's share of the grid stays in its cache once there
//!   are enough threads.
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
//! small, so here each CPU has a cache (`cache_kb`, `cache_ways`), modelled at the granularity
//! of loops ([`PhaseCache`]):
//!
//! * *Reuse distance.* When thread `t` touches array `a` in a loop, the distance `d` is the
//!   distinct data `t` touched from its last loop over `a` up to this one: every array those
//!   loops touched, counted at the cache it takes (whole rows by their bytes, a column strip by
//!   a line per row).
//! * *What survives.* A cyclic sweep of `d` bytes through a `w`-way set-associative cache of
//!   `C` bytes whose pages fall on random sets (page colours): a set receives a Poisson number
//!   of the sweep's lines with mean `λ = w d / C`, and under LRU a line survives to its next
//!   use when its set received at most `w` lines, so the share of lines still cached is
//!   `P(Poisson(λ) ≤ w − 1)` — for 2 ways `e^−λ (1 + λ)`: 0.41 at `d = C`, 0.91 at `d = C/4`,
//!   0.008 at `d = 3.4 C`. (With many ways this tends to fully associative LRU's step at
//!   `d = C`.) Which pages survive is a fixed draw per page (its colour does not change), so
//!   the same pages miss every step.
//! * *Whose lines.* Only rows the thread owns can survive. Rows it does not own (a stencil's
//!   halo, which a neighbour rewrote; data a serial loop of thread 0 reads from every thread's
//!   block) always miss: another CPU wrote them since.
//!
//! It ignores the L1 and the sets' actual colouring by the operating system. A workload does
//! not know where its threads run; a system run that moves a thread's work to another CPU
//! tells it (`Workload::cache_lost`), and the thread starts cold from the next loop it
//! generates (the loop already generated keeps its hits: the system driver fetches an epoch
//! before the scheduler's decision for it). A system run that runs several threads' work on one
//! CPU tells it which (`Workload::share_caches`), and each one's reuse distance counts the data
//! of all of them over the same loops (their rows differ: the distinct data of each, summed).
//! Time slices of threads sharing a CPU do not evict each other here.
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
use crate::workload::{Op, ThreadWork, Txn, WorkloadInfo};
use numaplace_model::rng::mix64;
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

/// The salt of the pages' colours (which pages of a sweep stay cached).
const COLOUR_SALT: u64 = 0xC0_10_55;

/// A uniform number in `[0, 1)` from 64 random bits.
fn unit(bits: u64) -> f64 {
    (bits >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The associativity parameter every program here declares.
pub(crate) const WAYS_PARAM: ParamDecl = ParamDecl {
    name: "cache_ways",
    kind: ParamKind::UInt { min: 1, max: 64 },
    default: "2",
    doc: "the cache's associativity (2: the R10000's L2 is 2-way set associative, Yeager, IEEE Micro 1996)",
};

/// Loops remembered per thread: reuse further back than this counts as a miss.
const HISTORY: usize = 64;

/// The arrays each thread touched in its recent loops (see the module doc): an LRU stack of
/// arrays at loop granularity.
#[derive(Clone, Debug)]
pub(crate) struct PhaseCache {
    bytes: u64,
    ways: u64,
    /// Per thread, newest last: per loop, (array, bytes touched).
    history: Vec<VecDeque<Vec<(usize, u64)>>>,
    /// Per thread (a chunk of a system run's job), the cache it runs through: threads with the
    /// same one share a CPU ([`PhaseCache::share`]); by default each has its own.
    cache_of: Vec<usize>,
}

impl PhaseCache {
    pub fn new(threads: usize, cache_kb: u64, ways: u64) -> Self {
        PhaseCache { bytes: cache_kb * 1024, ways: ways.max(1), history: vec![VecDeque::new(); threads], cache_of: (0..threads).collect() }
    }

    /// Threads `t` and `u` run through one cache when `cache_of[t] == cache_of[u]` (a system
    /// run gave the job fewer CPUs than chunks, `Workload::share_caches`): each one's data
    /// then competes with the others' for the CPU's cache.
    pub fn share(&mut self, cache_of: &[usize]) {
        debug_assert_eq!(cache_of.len(), self.history.len());
        self.cache_of = cache_of.to_vec();
    }

    /// The reuse distance of array `a` for thread `t`, whose threads' current loops touch
    /// `nows` (per thread): the distinct data (bytes of cache) of the loops from `t`'s last loop
    /// over `a` up to this one, of every thread sharing `t`'s cache (each thread its own data:
    /// their rows differ); `None` when `a` is not among `t`'s last [`HISTORY`] loops. Every
    /// thread records every loop (an empty one too), so the same count of loops back is the
    /// same stretch of time for all.
    #[cfg(test)]
    fn distance(&self, t: usize, a: usize, nows: &[Vec<(usize, u64)>]) -> Option<u64> {
        Distances::new(self, nows).distance(t, a)
    }

    /// The share of a sweep's lines still cached after a reuse distance of `d` bytes, in a
    /// `ways`-way set-associative cache with pages of random colour: `P(Poisson(λ) ≤ ways − 1)`
    /// with `λ = ways × d / cache` (see the module doc).
    fn hit_fraction(&self, d: u64) -> f64 {
        if self.bytes == 0 {
            return 0.0;
        }
        let lambda = self.ways as f64 * d as f64 / self.bytes as f64;
        let (mut term, mut sum) = (1.0f64, 1.0f64);
        for i in 1..self.ways {
            term *= lambda / i as f64;
            sum += term;
        }
        (sum * (-lambda).exp()).min(1.0)
    }

    /// Thread `t`'s cache is cold: nothing it touched before is cached.
    pub fn forget(&mut self, t: usize) {
        self.history[t].clear();
    }

    fn push(&mut self, t: usize, now: Vec<(usize, u64)>) {
        let h = &mut self.history[t];
        if h.len() == HISTORY {
            h.pop_front();
        }
        h.push_back(now);
    }
}

/// The reuse distances of one epoch's loops ([`PhaseCache::distance`]). Each thread's distinct
/// data at each depth is computed once and kept for every array and thread that asks for it:
/// entry `b` of `prefix[u]` is the distinct data of `u`'s current loop and its `b` latest past
/// loops. (Computed for each array of each thread anew, they were a tenth of a system run.)
struct Distances<'a> {
    cache: &'a PhaseCache,
    nows: &'a [Vec<(usize, u64)>],
    prefix: Vec<Vec<u64>>,
    /// Per thread, the arrays its `prefix` has counted so far.
    seen: Vec<Vec<usize>>,
}

impl<'a> Distances<'a> {
    fn new(cache: &'a PhaseCache, nows: &'a [Vec<(usize, u64)>]) -> Self {
        let n = cache.history.len();
        Distances { cache, nows, prefix: vec![Vec::new(); n], seen: vec![Vec::new(); n] }
    }

    /// See [`PhaseCache::distance`].
    fn distance(&mut self, t: usize, a: usize) -> Option<u64> {
        let c = self.cache;
        let back = c.history[t].iter().rev().position(|past| past.iter().any(|&(arr, _)| arr == a))? + 1;
        let mine = c.cache_of[t];
        Some((0..c.history.len()).filter(|&u| c.cache_of[u] == mine).map(|u| self.distinct(u, back)).sum())
    }

    /// The distinct data of thread `u`'s current loop and its `back` latest past loops (all of
    /// them when it has fewer).
    fn distinct(&mut self, u: usize, back: usize) -> u64 {
        let history = &self.cache.history[u];
        let (prefix, seen) = (&mut self.prefix[u], &mut self.seen[u]);
        while prefix.len() <= back {
            let depth = prefix.len();
            let mut total = prefix.last().copied().unwrap_or(0);
            let parts = match depth {
                0 => Some(self.nows[u].as_slice()),
                d => history.len().checked_sub(d).map(|i| history[i].as_slice()),
            };
            for &(arr, bytes) in parts.unwrap_or(&[]) {
                if !seen.contains(&arr) {
                    seen.push(arr);
                    total += bytes;
                }
            }
            prefix.push(total);
        }
        prefix[back]
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

/// Appends lines `[from, to)` of `page` (absolute line numbers), extending the last record when
/// they continue it (`tail` is the line after its last one).
fn push_merge(out: &mut Vec<Txn>, page: u64, from: u64, to: u64, op: Op, tail: &mut Option<u64>) {
    if let (Some(end), Some(last)) = (*tail, out.last_mut()) {
        if end == from && last.page as u64 == page && last.op == op {
            last.count += (to - from) as u16; // within one page: at most a page of lines
            *tail = Some(to);
            return;
        }
    }
    out.push(Txn { page: page as u32, count: (to - from) as u16, op });
    *tail = Some(to);
}

/// One array's part of a loop as [`sweep_cached`] emits it: the touch, the rows the thread
/// owns, and the share of those rows' pages still in its cache.
struct Cached {
    touch: Touch,
    owned: (u64, u64),
    hit: f64,
}

/// [`sweep`] with the cache: the same loop order (every touch's rows advance together, a
/// chunk of about a page of the first touch at a time; a line shared by consecutive rows once),
/// but a page's lines of owned rows are left out when the page's colour keeps it cached (a
/// fixed draw per page, true with probability `hit`). Returns the lines touched and fetched.
fn sweep_cached(out: &mut Vec<Txn>, g: &Geometry, parts: &[Cached]) -> (u64, u64) {
    let Some(first) = parts.first() else { return (0, 0) };
    let rows = first.touch.rows.1 - first.touch.rows.0;
    let bytes = rows * (first.touch.cols.1 - first.touch.cols.0) * ELEM;
    let chunks = bytes.div_ceil(g.page).clamp(1, rows.max(1));
    let lpp = g.lines_per_page;
    let (mut touched, mut fetched) = (0u64, 0u64);
    let mut last = vec![0u64; parts.len()];
    let mut tail = None;
    for c in 0..chunks {
        for (k, p) in parts.iter().enumerate() {
            let t = &p.touch;
            let n = t.rows.1 - t.rows.0;
            for r in t.rows.0 + n * c / chunks..t.rows.0 + n * (c + 1) / chunks {
                let op = if (t.write.0..t.write.1).contains(&r) { Op::Write } else { Op::Read };
                let from = (t.arr.addr(r, t.cols.0) / g.line).max(last[k]);
                let to = t.arr.addr(r, t.cols.1).div_ceil(g.line);
                if from >= to {
                    continue;
                }
                last[k] = to;
                touched += to - from;
                let cached = p.hit > 0.0 && (p.owned.0..p.owned.1).contains(&r);
                let mut line = from;
                while line < to {
                    let page = line / lpp;
                    let end = ((page + 1) * lpp).min(to);
                    if !cached || unit(mix64(page ^ COLOUR_SALT)) >= p.hit {
                        push_merge(out, page, line, end, op, &mut tail);
                        fetched += end - line;
                    }
                    line = end;
                }
            }
        }
    }
    (touched, fetched)
}

/// Fills each thread's work with its loop over `parts[t]` under the cache model: the lines
/// that miss, in loop order, and `think_ns` spread over them (see the module doc). Records the
/// loop in every thread's history (after all are generated: the threads run it together).
pub(crate) fn epoch_loops(threads: &mut [ThreadWork], g: &Geometry, cache: &mut PhaseCache, parts: &[Vec<Part>], think_ns: f64) {
    let parts: Vec<Vec<&Part>> =
        parts.iter().map(|ps| ps.iter().filter(|p| p.touch.rows.0 < p.touch.rows.1 && p.touch.cols.0 < p.touch.cols.1).collect()).collect();
    let nows: Vec<Vec<(usize, u64)>> =
        parts.iter().map(|ps| ps.iter().map(|p| (p.array, cached_bytes(&p.touch, g.line))).collect()).collect();
    let mut distances = Distances::new(cache, &nows);
    for (t, (work, ps)) in threads.iter_mut().zip(&parts).enumerate() {
        let cached: Vec<Cached> = ps
            .iter()
            .map(|p| Cached {
                touch: p.touch,
                owned: p.owned,
                hit: distances.distance(t, p.array).map_or(0.0, |d| cache.hit_fraction(d)),
            })
            .collect();
        let before = work.txns.len();
        let (touched, mut fetched) = sweep_cached(&mut work.txns, g, &cached);
        if touched > 0 && fetched == 0 {
            // Every line hit: fetch the loop's first line to carry its compute.
            let mut one = Vec::new();
            sweep(&mut one, g, &[ps[0].touch]);
            work.txns.push(Txn { count: 1, ..one[0] });
            fetched = 1;
        }
        if fetched > 0 {
            work.think_ns = think_ns * touched as f64 / fetched as f64;
        }
        debug_assert!(work.txns.len() >= before);
    }
    for (t, now) in nows.into_iter().enumerate() {
        cache.push(t, now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workloads::splash::common::Array2;

    #[test]
    fn reuse_distance_is_the_distinct_data_of_the_loops_between() {
        let k = 1024;
        let mut c = PhaseCache::new(1, 10, 2);
        c.push(0, vec![(0, 4 * k)]);
        c.push(0, vec![(1, 4 * k)]);
        assert_eq!(c.distance(0, 0, &[vec![(0, 4 * k), (1, 4 * k)]]), Some(8 * k));
        assert_eq!(c.distance(0, 0, &[vec![(0, 4 * k), (2, 4 * k)]]), Some(12 * k));
        assert_eq!(c.distance(0, 2, &[vec![(2, 4 * k)]]), None);
        // Repeated arrays count once.
        c.push(0, vec![(1, 4 * k)]);
        assert_eq!(c.distance(0, 0, &[vec![(0, 4 * k)]]), Some(8 * k));
    }

    #[test]
    fn threads_sharing_a_cache_count_each_others_data() {
        let k = 1024;
        let mut c = PhaseCache::new(3, 10, 2);
        for t in 0..3 {
            c.push(t, vec![(0, 4 * k)]);
            c.push(t, vec![(1, (t as u64 + 1) * k)]);
        }
        let nows: Vec<Vec<(usize, u64)>> = (0..3).map(|t| vec![(0, 4 * k), (2, (t as u64 + 1) * k)]).collect();
        // Alone: its own loops only.
        assert_eq!(c.distance(1, 0, &nows), Some(4 * k + 2 * k + 2 * k));
        // Threads 0 and 1 on one CPU: each one's distance holds both threads' loops back to
        // its last loop over the array; thread 2 is unaffected.
        c.share(&[0, 0, 1]);
        let both = (4 * k + k + k) + (4 * k + 2 * k + 2 * k);
        assert_eq!(c.distance(0, 0, &nows), Some(both));
        assert_eq!(c.distance(1, 0, &nows), Some(both));
        assert_eq!(c.distance(2, 0, &nows), Some(4 * k + 3 * k + 3 * k));
        // A thread that has no past loop over the array misses whoever it shares with.
        assert_eq!(c.distance(0, 3, &nows), None);
        // A cold partner adds only its current loop.
        c.forget(1);
        assert_eq!(c.distance(0, 0, &nows), Some((4 * k + k + k) + (4 * k + 2 * k)));
    }

    #[test]
    fn a_shared_cache_misses_more_of_the_same_sweep() {
        // Two threads each sweep 600 pages of their own; a cache of 1000 pages (2 ways) keeps
        // most of one thread's sweep, far less of two.
        let g = Geometry { line: 128, lines_per_page: 1, page: 128 };
        let a = Array2 { base: 0, rows: 1200, cols: 16 };
        let part = |t: u64| Part { touch: Touch::read_rows(a, (600 * t, 600 * (t + 1))), array: 0, owned: (600 * t, 600 * (t + 1)) };
        let parts = vec![vec![part(0)], vec![part(1)]];
        let fetched = |share: bool| {
            let mut cache = PhaseCache::new(2, 1000 * 128 / 1024, 2);
            if share {
                cache.share(&[0, 0]);
            }
            let mut threads = vec![ThreadWork::default(), ThreadWork::default()];
            epoch_loops(&mut threads, &g, &mut cache, &parts, 1.0);
            let mut threads = vec![ThreadWork::default(), ThreadWork::default()];
            epoch_loops(&mut threads, &g, &mut cache, &parts, 1.0);
            threads.iter().flat_map(|w| &w.txns).map(|t| u64::from(t.count)).sum::<u64>()
        };
        let (alone, shared) = (fetched(false), fetched(true));
        // λ = 2 × 600 / 1000 = 1.2: 66 % hit alone; λ = 2.4: 31 % hit shared.
        assert!((alone as f64 / 1200.0 - (1.0 - 2.2 * (-1.2f64).exp())).abs() < 0.06, "{alone}");
        assert!((shared as f64 / 1200.0 - (1.0 - 3.4 * (-2.4f64).exp())).abs() < 0.06, "{shared}");
    }

    #[test]
    fn hit_fraction_is_the_poisson_tail_and_tends_to_lru() {
        // 2 ways, d = cache: λ = 2, P(X ≤ 1) = 3 e^-2.
        let c = PhaseCache::new(1, 1, 2);
        assert!((c.hit_fraction(1024) - 3.0 * (-2.0f64).exp()).abs() < 1e-12);
        assert!(c.hit_fraction(64) > 0.99 && c.hit_fraction(16 * 1024) < 0.001);
        assert_eq!(PhaseCache::new(1, 0, 2).hit_fraction(1), 0.0);
        // Many ways: the step of fully associative LRU at d = cache.
        let lru = PhaseCache::new(1, 1, 64);
        assert!(lru.hit_fraction(800) > 0.95 && lru.hit_fraction(1300) < 0.05);
    }

    #[test]
    fn a_column_strip_takes_a_line_per_row() {
        let a = Array2 { base: 0, rows: 10, cols: 32 };
        assert_eq!(cached_bytes(&Touch::read_rows(a, (0, 10)), 128), 10 * 256);
        assert_eq!(cached_bytes(&Touch::read(a, (0, 10), (0, 2)), 128), 10 * 128);
    }

    #[test]
    fn a_cached_array_costs_its_halo_only_and_keeps_its_compute() {
        // 4 rows of 32 doubles (one 256-byte page each, 2 lines of 128 B); the thread owns
        // rows 0..2 and reads row 2 as a halo. A 1 MiB cache with 64 ways holds all of it.
        let g = Geometry { line: 128, lines_per_page: 2, page: 256 };
        let a = Array2 { base: 0, rows: 4, cols: 32 };
        let part = Part { touch: Touch::read_rows(a, (0, 3)), array: 0, owned: (0, 2) };
        let mut cache = PhaseCache::new(1, 1024, 64);
        let one = |cache: &mut PhaseCache, p: Part| {
            let mut w = [ThreadWork::default()];
            epoch_loops(&mut w, &g, cache, &[vec![p]], 10.0);
            let [w] = w;
            w
        };
        let work = one(&mut cache, part);
        assert_eq!(work.txns.iter().map(|t| t.count).sum::<u16>(), 6, "cold: every line");
        assert_eq!(work.think_ns, 10.0);
        let work = one(&mut cache, part);
        assert_eq!(work.txns, vec![Txn { page: 2, count: 2, op: Op::Read }], "warm: the halo row");
        assert_eq!(work.think_ns, 30.0, "6 lines of compute over 2 fetched");
        // Nothing but owned rows: one line carries the compute.
        let own = Part { touch: Touch::read_rows(a, (0, 2)), array: 0, owned: (0, 2) };
        let work = one(&mut cache, own);
        assert_eq!(work.txns, vec![Txn { page: 0, count: 1, op: Op::Read }]);
        assert_eq!(work.think_ns, 40.0);
    }

    #[test]
    fn pages_of_a_half_cached_sweep_hit_by_a_fixed_draw() {
        // 1000 pages of one line each, owned; reuse distance = the cache, 2 ways: about 41 %
        // of the pages hit, the same ones every time.
        let g = Geometry { line: 128, lines_per_page: 1, page: 128 };
        let a = Array2 { base: 0, rows: 1000, cols: 16 };
        let part = Part { touch: Touch::read_rows(a, (0, 1000)), array: 0, owned: (0, 1000) };
        let mut cache = PhaseCache::new(1, 1000 * 128 / 1024, 2);
        cache.push(0, vec![(0, 1000 * 128)]);
        let run = |cache: &mut PhaseCache| {
            let mut w = [ThreadWork::default()];
            epoch_loops(&mut w, &g, cache, &[vec![part]], 1.0);
            let [w] = w;
            w.txns
        };
        let (x, y) = (run(&mut cache.clone()), run(&mut cache));
        assert_eq!(x, y);
        let hit = 1.0 - x.len() as f64 / 1000.0;
        assert!((hit - 3.0 * (-2.0f64).exp()).abs() < 0.05, "{hit}");
    }
}
