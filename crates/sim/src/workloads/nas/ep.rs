//! `nas-ep`: NPB EP, embarrassingly parallel Gaussian pairs (NPB 3.3 OpenMP `ep.f`).
//!
//! **Work.** `2^M` pairs of uniform random numbers (class S M = 24, W 25, A 28, B 30, C 32) are
//! generated in batches of `NK = 2^16` pairs; the batches are split among threads in
//! contiguous blocks (`!$omp do`). For each batch a thread fills its private buffer `x` (2·NK
//! doubles, 1 MiB, `threadprivate`) with `vranlc`, turns acceptable pairs into Gaussian
//! deviates and counts them in its `q` (10 doubles, plus the sums `sx`, `sy`). There is no
//! barrier until the final reduction, so one timed iteration is one epoch, `pairs`; the
//! official benchmark has no iteration loop and `iterations` defaults to 1.
//!
//! **Arrays**: `x` — one 1 MiB buffer per thread, each starting on a page; `q` — one 128-byte
//! slot per thread (96 bytes used).
//!
//! **Transactions.** The buffer is reused by every batch and fits in L2, so after its first
//! touch almost nothing goes to memory. We take the rate from seed 003 §5 Table 4: EP class C
//! (2^32 pairs) requested 42 M address transactions of 64-byte lines on the Sun Fire, i.e.
//! 0.626 bytes of memory traffic per pair: 40 KiB per batch, modelled as a window of the
//! thread's `x` that moves through the buffer batch after batch (conflict misses refilling
//! it), written. The thread's `q` slot is written once at the end of its block.
//!
//! **Compute.** NPB counts EP in random numbers, not flops. We estimate ≈ 70 flop-equivalents
//! per pair: `vranlc` ≈ 13 operations per number (26 per pair), 3 for the acceptance test, and
//! for the π/4 = 78.5% of pairs accepted a logarithm, a square root and a division (counted as
//! ≈ 45 operations, at R10000 latencies) plus the two products and sums. At 7.5 ns per flop
//! that is 525 ns per pair, 34.5 ms per batch, so with 320 lines per batch (128-byte lines) the
//! default `think_ns` is ≈ 108 µs per line: EP is almost pure compute.

use super::common::{finish, params, regions, Class, Field, Geom, Kernel};
use crate::workload::{block_range, Op, ThreadWork, Txn, WorkloadCtx, WorkloadInfo, Workload};
use numaplace_model::spec::{ParamDecl, Resolved};
use numaplace_model::{ModelError, Region};

const PARAMS: &[ParamDecl] = &params(
    "timed repetitions of the whole EP run (auto: 1; NPB EP has no iteration loop)",
    "CPU time per line, ns (auto: ~70 flops per pair at 7.5 ns per flop over the lines fetched)",
);

pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "nas-ep",
    doc: "NAS EP: Gaussian pairs in cache-resident per-thread buffers; almost no memory traffic",
    params: PARAMS,
    caps: (),
    build,
};

/// log2 of the pairs, `M`.
const M: [u32; 5] = [24, 25, 28, 30, 32];
/// log2 of the pairs per batch, `MK`.
const MK: u32 = 16;
/// Flop-equivalents per pair (see the module doc).
const FLOPS_PER_PAIR: f64 = 70.0;
/// Memory traffic per batch, bytes: 42 M transactions × 64 B / 2^32 pairs (seed 003 Table 4)
/// × 2^16 pairs, rounded to 40 KiB.
const BYTES_PER_BATCH: u64 = 40 * 1024;
/// Bytes of one thread's `q` slot.
const Q_SLOT: u64 = 128;

struct Ep {
    regions: Vec<Region>,
    g: Geom,
    threads: usize,
    batches: u64,
    /// Pages of one thread's buffer.
    buffer_pages: u64,
    lines_per_batch: u64,
    flops: f64,
}

fn build(r: &Resolved, ctx: &WorkloadCtx) -> Result<Box<dyn Workload>, ModelError> {
    let class = Class::of(r);
    let g = Geom::of(ctx);
    let buffer = 2 * (1u64 << MK) * 8;
    let buffer_pages = g.pages(buffer);
    let t = ctx.threads as u64;
    let regions = regions("nas-ep", &[("x", buffer_pages * g.page * t), ("q", Q_SLOT * t)], &g)?;
    let pairs = 1u64 << class.pick(M);
    let kernel = Ep {
        regions,
        g,
        threads: ctx.threads,
        batches: pairs >> MK,
        buffer_pages,
        lines_per_batch: BYTES_PER_BATCH.div_ceil(g.line).min(buffer / g.line),
        flops: pairs as f64 * FLOPS_PER_PAIR,
    };
    finish("nas-ep", r, ctx, kernel, 1)
}

impl Ep {
    /// Thread `u`'s buffer.
    fn buffer(&self, u: usize) -> Field {
        let first = self.regions[0].first_page + (u as u64 * self.buffer_pages) as u32;
        let region = Region { name: String::new(), first_page: first, pages: self.buffer_pages as u32 };
        Field::vector(&region, 8, 2 << MK)
    }

    fn q(&self) -> Field {
        Field::vector(&self.regions[1], Q_SLOT, self.threads as u64)
    }
}

impl Kernel for Ep {
    fn regions(&self) -> &[Region] {
        &self.regions
    }

    fn epochs_per_iteration(&self) -> usize {
        1
    }

    fn phase(&self, _e: usize) -> &'static str {
        "pairs"
    }

    fn fill(&self, _e: usize, t: usize, work: &mut ThreadWork) {
        let (b0, b1) = block_range(self.batches, self.threads as u64, t as u64);
        if b0 == b1 {
            return;
        }
        let x = self.buffer(t);
        let total = x.bytes().div_ceil(self.g.line);
        let mut at = 0;
        for _ in b0..b1 {
            // A window of the buffer, wrapping around.
            let mut left = self.lines_per_batch;
            while left > 0 {
                let take = left.min(total - at);
                x.push_span(&self.g, &mut work.txns, &mut 0, at * self.g.line, (at + take) * self.g.line, Op::Write);
                at = (at + take) % total;
                left -= take;
            }
        }
        self.q().push_points(&self.g, &mut work.txns, t as u64, t as u64 + 1, Op::Write);
    }

    fn init(&self, t: usize, parts: usize, out: &mut Vec<Txn>) {
        // Each thread's first batch fills its whole buffer; thread 0 does all of them when
        // initialisation is sequential.
        let (u0, u1) = block_range(self.threads as u64, parts as u64, t as u64);
        for u in u0..u1 {
            let x = self.buffer(u as usize);
            x.push_points(&self.g, out, 0, 2 << MK, Op::Write);
            self.q().push_points(&self.g, out, u, u + 1, Op::Write);
        }
    }

    fn flops_per_iteration(&self) -> f64 {
        self.flops
    }
}

