//! `nas-is`: NPB IS, integer sort by buckets (NPB 3.3 OpenMP `is.c`, bucket version).
//!
//! **Sizes** (`is.c`'s class table): `2^TOTAL_KEYS_LOG_2` keys below `2^MAX_KEY_LOG_2`, sorted
//! through `2^NUM_BUCKETS_LOG_2` buckets — class S 2^16 keys, key range 2^11, 2^9 buckets; W
//! 2^20, 2^16, 2^10; A 2^23, 2^19, 2^10; B 2^25, 2^21, 2^10; C 2^27, 2^23, 2^10. Keys are 4-byte integers
//! (`INT_TYPE` is `int` below class D). Ten timed iterations (`MAX_ITERATIONS`), after one
//! untimed ranking that "guarantees initialization of all data and code pages" (`is.c`): the
//! initialisation epoch below.
//!
//! **Keys.** `create_seq` draws each key as `MAX_KEY/4 · (x1 + x2 + x3 + x4)` from four uniform
//! numbers, so keys are bell-shaped over `[0, MAX_KEY)` and the middle buckets are the fullest.
//! We draw them the same way from four 16-bit fields of one random word, from streams derived
//! from the run seed and the key's block of 2^16 keys (independent of the thread count): the
//! pattern is fixed for a run and changes with the seed. The master changes two keys per
//! iteration (`key_array[it]`, `key_array[it + 10]`); that changes no bucket count measurably
//! and is not modelled (those lines are in thread 0's block, which it reads anyway).
//!
//! **Arrays**: `key_array` and `key_buff2` (`NUM_KEYS` integers each), `key_buff1` (`MAX_KEY`
//! integers, the key counts), `bucket_size` (one row of `NUM_BUCKETS` integers per thread, the
//! per-thread buckets; rows back to back). Each thread's `bucket_ptrs` (one row, private) stays
//! in cache and is not modelled.
//!
//! **One iteration** (`rank`), three epochs, as its three barriers divide it:
//! * `count` — `!$omp for schedule(static)` over the keys: the thread reads its block of
//!   `key_array` and counts its keys per bucket into its own row of `bucket_size`.
//! * `bucket` — every thread reads all rows of `bucket_size` (the bucket pointers: all threads'
//!   counts of lower buckets, and of this bucket from lower threads), then reads its keys again
//!   and writes each into `key_buff2` at its slot of the key's bucket: the buckets lie one after
//!   the other in `key_buff2` and every thread owns a contiguous slot in each, so a thread
//!   writes a little of every bucket. The slot writes are interleaved with the key reads in
//!   proportion (after a thread has read a fraction f of its keys it has filled a fraction f of
//!   every slot).
//! * `rank` — `!$omp for schedule(dynamic)` over the buckets: the thread that takes bucket `b`
//!   zeroes its range of `key_buff1`, reads the bucket's keys from `key_buff2`, counts them in
//!   `key_buff1` and prefix-sums the range. Which thread takes which bucket is decided by who
//!   asks first, so it changes from iteration to iteration: we replay the dynamic schedule with
//!   each bucket's time as its keys plus its key range, times `1 + JITTER · u` with `u` uniform
//!   from a stream derived from the seed and the iteration (timing noise: remote and local
//!   misses, other threads' traffic). The free thread with the lowest finish time takes the next
//!   bucket. So the key pages are private to their thread, while the `key_buff1` and
//!   `key_buff2` pages a thread touches in `rank` differ from one iteration to the next.
//!
//! The partial verification (five reads by the master) and the untimed full verification are
//! not modelled.
//!
//! **Transactions**: as for every NAS kernel, each line once per epoch and nothing kept between
//! epochs; the read-modify-writes of `bucket_size` and `key_buff1` (whose touched range is
//! cache-sized per bucket) are one written line each.
//!
//! **Initialisation.** With `init = parallel` each thread writes its block of `key_array`
//! (`create_seq` is parallel, each thread generating its own block from `find_my_seed`) and its
//! block of `key_buff2` (`alloc_key_buff` zeroes it in a static `omp parallel for`), then takes
//! the untimed ranking's first touches: its `bucket_size` row and the `key_buff1` ranges of the
//! buckets it takes in that ranking (the schedule of "iteration 0"); the ranking's other
//! accesses fall on pages touched already. With `sequential` thread 0 does all of that.
//!
//! **Compute.** NPB reports IS in keys ranked, not flops. IS's loops are loads and stores: the
//! R10000 has one load/store unit, so we count load/store cycles — per key 2 in `count` (load
//! the key, update the count), 3 in `bucket` (key, pointer, store) and 3 in `rank` (key from
//! `key_buff2`, the count's load and store), and 3 per key value for zeroing and the prefix
//! sum — each as one operation at [`super::common::NS_PER_FLOP`]. At class A that is ≈ 470 ns
//! per line fetched: IS is memory-bound.

use super::common::{finish, params, regions, Class, Field, Geom, Kernel, ITERATIONS_DOC};
use crate::workload::{block_range, Epoch, Op, ThreadWork, Txn, Workload, WorkloadCtx, WorkloadInfo};
use numaplace_model::rng::{derive, SplitMix64};
use numaplace_model::spec::{ParamDecl, Resolved};
use numaplace_model::{ModelError, Region};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

const PARAMS: &[ParamDecl] = &params(
    ITERATIONS_DOC,
    "CPU time per line, ns (auto: IS's load/store cycles per key and key value at 7.5 ns over the lines fetched)",
);

pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "nas-is",
    doc: "NAS IS: bucket sort of random keys; per-thread buckets, ranking pages change owner every iteration",
    params: PARAMS,
    caps: (),
    build,
};

/// `(TOTAL_KEYS_LOG_2, MAX_KEY_LOG_2, NUM_BUCKETS_LOG_2)` of `is.c`.
const SIZE: [(u32, u32, u32); 5] = [(16, 11, 9), (20, 16, 10), (23, 19, 10), (25, 21, 10), (27, 23, 10)];
/// `MAX_ITERATIONS` of `is.c`, every class.
const ITERATIONS: u64 = 10;
/// Bytes per key (`INT_TYPE`).
const KEY: u64 = 4;
/// Keys drawn from one random stream.
const KEY_BLOCK: u64 = 1 << 16;
/// Stream ids of the key blocks and of the dynamic schedule of each iteration.
const KEY_STREAM: u64 = 0x15_0000_0000;
const SCHEDULE_STREAM: u64 = 0x15_8000_0000;
/// Relative spread of a bucket's time in the dynamic schedule (an assumption: per-bucket
/// times vary by up to half, as local and remote misses and contention do).
const JITTER: f64 = 0.5;
/// Load/store cycles per key (2 + 3 + 3) and per key value (zero, prefix), see the module doc.
const OPS_PER_KEY: f64 = 8.0;
const OPS_PER_KEY_VALUE: f64 = 3.0;

const KEYS: usize = 0;
const BUFF2: usize = 1;
const BUFF1: usize = 2;
const BUCKET_SIZE: usize = 3;

struct Is {
    regions: Vec<Region>,
    fields: Vec<Field>,
    g: Geom,
    threads: usize,
    seed: u64,
    keys: u64,
    buckets: u64,
    /// Key values per bucket.
    bucket_keys: u64,
    /// Keys per bucket, all threads.
    total: Vec<u64>,
    /// `slot[t][b]`: the first index of thread `t`'s slot in bucket `b` of `key_buff2`.
    slot: Vec<Vec<u64>>,
    /// `count[t][b]`: thread `t`'s keys in bucket `b`.
    count: Vec<Vec<u64>>,
    /// The iteration being generated (0: the untimed ranking), set by [`IsRun`].
    iteration: Arc<AtomicU32>,
    flops: f64,
}

/// Thread-by-bucket key counts of `keys` keys below `2^max_log`, split among `threads`.
fn count_keys(seed: u64, keys: u64, max_log: u32, bucket_log: u32, threads: usize) -> Vec<Vec<u64>> {
    let buckets = 1usize << bucket_log;
    let mut count = vec![vec![0u64; buckets]; threads];
    let mut t = 0;
    let mut end = block_range(keys, threads as u64, 0).1;
    for block in 0..keys.div_ceil(KEY_BLOCK) {
        let mut rng = SplitMix64::new(derive(seed, KEY_STREAM + block));
        for i in block * KEY_BLOCK..((block + 1) * KEY_BLOCK).min(keys) {
            while i >= end {
                t += 1;
                end = block_range(keys, threads as u64, t as u64).1;
            }
            let r = rng.next_u64();
            let sum = (r & 0xFFFF) + ((r >> 16) & 0xFFFF) + ((r >> 32) & 0xFFFF) + (r >> 48);
            // sum / 2^18 is the mean of the four uniforms' sum / 4, in [0, 1).
            let key = (sum << max_log) >> 18;
            count[t][(key >> (max_log - bucket_log)) as usize] += 1;
        }
    }
    count
}

fn build(r: &Resolved, ctx: &WorkloadCtx) -> Result<Box<dyn Workload>, ModelError> {
    let class = Class::of(r);
    let (keys_log, max_log, bucket_log) = class.pick(SIZE);
    let g = Geom::of(ctx);
    let (keys, max_key, buckets) = (1u64 << keys_log, 1u64 << max_log, 1u64 << bucket_log);
    let t = ctx.threads as u64;
    let regions = regions(
        "nas-is",
        &[("key_array", keys * KEY), ("key_buff2", keys * KEY), ("key_buff1", max_key * KEY), ("bucket_size", t * buckets * KEY)],
        &g,
    )?;
    let fields = vec![
        Field::vector(&regions[KEYS], KEY, keys),
        Field::vector(&regions[BUFF2], KEY, keys),
        Field::vector(&regions[BUFF1], KEY, max_key),
        Field::grid(&regions[BUCKET_SIZE], KEY, (buckets, t, 1)),
    ];
    let count = count_keys(ctx.seed, keys, max_log, bucket_log, ctx.threads);
    let total: Vec<u64> = (0..buckets as usize).map(|b| count.iter().map(|c| c[b]).sum()).collect();
    let mut slot = vec![vec![0u64; buckets as usize]; ctx.threads];
    let mut at = 0;
    for b in 0..buckets as usize {
        for (u, c) in count.iter().enumerate() {
            slot[u][b] = at;
            at += c[b];
        }
    }
    let iteration = Arc::new(AtomicU32::new(0));
    let kernel = Is {
        regions,
        fields,
        g,
        threads: ctx.threads,
        seed: ctx.seed,
        keys,
        buckets,
        bucket_keys: max_key / buckets,
        total,
        slot,
        count,
        iteration: iteration.clone(),
        flops: keys as f64 * OPS_PER_KEY + max_key as f64 * OPS_PER_KEY_VALUE,
    };
    let per = kernel.epochs_per_iteration() as u64;
    // The default think_ns is measured on the untimed ranking's schedule (iteration 0).
    let inner = finish("nas-is", r, ctx, kernel, ITERATIONS)?;
    let init = ctx.init != crate::workload::Init::None;
    Ok(Box::new(IsRun { inner, iteration, per, played: 0, init }))
}

impl Is {
    /// The thread that takes each bucket in the `rank` epoch of `iteration` (schedule dynamic).
    fn schedule(&self, iteration: u32) -> Vec<usize> {
        let mut rng = SplitMix64::new(derive(self.seed, SCHEDULE_STREAM + iteration as u64));
        let mut busy_until = vec![0f64; self.threads];
        (0..self.buckets as usize)
            .map(|b| {
                let cost = (self.total[b] + self.bucket_keys) as f64 * (1.0 + JITTER * rng.unit());
                let mut t = 0;
                for u in 1..self.threads {
                    if busy_until[u] < busy_until[t] {
                        t = u;
                    }
                }
                busy_until[t] += cost;
                t
            })
            .collect()
    }

    /// Thread `t`'s own block of keys.
    fn block(&self, t: usize) -> (u64, u64) {
        block_range(self.keys, self.threads as u64, t as u64)
    }

    /// Reads thread `t`'s keys and, when `scatter`, writes them to its slots of `key_buff2`
    /// in proportion; `op` is the keys' (a write when generating them).
    fn keys_and_slots(&self, t: usize, op: Op, scatter: bool, out: &mut Vec<Txn>) {
        let g = &self.g;
        let (k0, k1) = self.block(t);
        let keys = &self.fields[KEYS];
        let buff2 = &self.fields[BUFF2];
        let per_page = g.page / KEY;
        let pieces = (k1 - k0).div_ceil(per_page).max(1);
        let mut key_cursor = 0;
        let mut slot_cursor = vec![0u64; self.buckets as usize];
        for p in 0..pieces {
            let (a, b) = (k0 + (k1 - k0) * p / pieces, k0 + (k1 - k0) * (p + 1) / pieces);
            keys.push_span(g, out, &mut key_cursor, a * KEY, b * KEY, op);
            if !scatter {
                continue;
            }
            for (bucket, cursor) in slot_cursor.iter_mut().enumerate() {
                let (s, n) = (self.slot[t][bucket], self.count[t][bucket]);
                let (lo, hi) = (s + n * p / pieces, s + n * (p + 1) / pieces);
                buff2.push_span(g, out, cursor, lo * KEY, hi * KEY, Op::Write);
            }
        }
    }

    /// Thread `t`'s `rank` epoch under `owner`: its buckets' key ranges and keys.
    fn rank(&self, t: usize, owner: &[usize], out: &mut Vec<Txn>) {
        let g = &self.g;
        let (mut c1, mut c2) = (0, 0);
        let mut start = 0;
        for b in 0..self.buckets as usize {
            let n = self.total[b];
            if owner[b] == t {
                let k = b as u64 * self.bucket_keys;
                self.fields[BUFF1].push_span(g, out, &mut c1, k * KEY, (k + self.bucket_keys) * KEY, Op::Write);
                self.fields[BUFF2].push_span(g, out, &mut c2, start * KEY, (start + n) * KEY, Op::Read);
            }
            start += n;
        }
    }
}

impl Kernel for Is {
    fn regions(&self) -> &[Region] {
        &self.regions
    }

    fn epochs_per_iteration(&self) -> usize {
        3
    }

    fn phase(&self, e: usize) -> &'static str {
        ["count", "bucket", "rank"][e]
    }

    fn fill(&self, e: usize, t: usize, work: &mut ThreadWork) {
        let out = &mut work.txns;
        let sizes = &self.fields[BUCKET_SIZE];
        match e {
            0 => {
                self.keys_and_slots(t, Op::Read, false, out);
                sizes.push_rows(&self.g, out, &mut 0, 0, t as u64, t as u64 + 1, Op::Write);
            }
            1 => {
                sizes.push_rows(&self.g, out, &mut 0, 0, 0, self.threads as u64, Op::Read);
                self.keys_and_slots(t, Op::Read, true, out);
            }
            _ => {
                let owner = self.schedule(self.iteration.load(Ordering::Relaxed));
                self.rank(t, &owner, out);
            }
        }
    }

    fn init(&self, t: usize, parts: usize, out: &mut Vec<Txn>) {
        // create_seq, alloc_key_buff and the untimed ranking's first touches; thread 0 does
        // every thread's part when initialisation is sequential.
        let owner = self.schedule(0);
        let (u0, u1) = block_range(self.threads as u64, parts as u64, t as u64);
        for u in u0 as usize..u1 as usize {
            self.keys_and_slots(u, Op::Write, false, out);
            let (k0, k1) = self.block(u);
            self.fields[BUFF2].push_points(&self.g, out, k0, k1, Op::Write);
            self.fields[BUCKET_SIZE].push_rows(&self.g, out, &mut 0, 0, u as u64, u as u64 + 1, Op::Write);
            let mut c1 = 0;
            for b in (0..self.buckets as usize).filter(|&b| owner[b] == u) {
                let k = b as u64 * self.bucket_keys;
                self.fields[BUFF1].push_span(&self.g, out, &mut c1, k * KEY, (k + self.bucket_keys) * KEY, Op::Write);
            }
        }
    }

    fn flops_per_iteration(&self) -> f64 {
        self.flops
    }
}

/// The driven kernel, telling it which iteration each epoch belongs to (the dynamic schedule
/// of `rank` depends on it).
struct IsRun {
    inner: Box<dyn Workload>,
    iteration: Arc<AtomicU32>,
    per: u64,
    /// Epochs played so far.
    played: u64,
    /// Whether the first epoch is the initialisation epoch.
    init: bool,
}

impl Workload for IsRun {
    fn regions(&self) -> &[Region] {
        self.inner.regions()
    }

    fn iterations(&self) -> u32 {
        self.inner.iterations()
    }

    fn resolved(&self) -> Option<&Resolved> {
        self.inner.resolved()
    }

    fn next_epoch(&mut self, epoch: &mut Epoch) -> bool {
        let timed = if self.init { self.played.checked_sub(1) } else { Some(self.played) };
        let iteration = timed.map_or(0, |n| 1 + n / self.per);
        self.iteration.store(iteration.min(u32::MAX as u64) as u32, Ordering::Relaxed);
        let more = self.inner.next_epoch(epoch);
        debug_assert!(!more || epoch.iteration as u64 == iteration);
        self.played += more as u64;
        more
    }
}
