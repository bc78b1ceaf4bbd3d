//! `gups`: GUPS with a hot set, as HeMem and Colloid run it.
//!
//! Sources: HeMem's `microbenchmarks/gups.c` and `gups-hotset-move.c` (cuhk-mass/hemem) and
//! Colloid's `gups/gups.c` (host-architecture/colloid). In both, each thread updates its own
//! partition of the table (HeMem: `field = p + i * nelems * elt_size`; Colloid: one buffer per
//! thread), and its hot set is a window of that partition (HeMem: at its start,
//! `hot_start = 0`, of `tot_hot_size / threads` bytes; Colloid: at its end). An update draws
//! the hot set with probability 90 % (`gups-hotset-move.c`: `lfsr % 100 < 90`; Colloid:
//! `x % 100 < 90`), else an element uniformly from the whole partition (HeMem:
//! `lfsr % args->size`), and reads, modifies and writes it (HeMem: `tmp = field[i]; field[i] =
//! tmp + i` for 8-byte elements). So an update is one write transaction of the lines of one
//! element (one line for HeMem's 8-byte elements; 64 for Colloid's 4 KiB chunks).
//!
//! Here thread `t` owns block `t` of the table's pages (static split), and its hot set is
//! `hot_pages × (its pages / pages)` pages (at least one). With `move_every = K`, the hot set
//! moves to the next window of its size in the partition (wrapping at its end) every K
//! timed iterations: HeMem's "hot set moves" experiment (`gups-hotset-move.c` shifts part of
//! it once, Colloid's `move` option the whole of it once; a period generalises both). Updates
//! are independent, so the machine's `mlp` applies. Initialisation: each thread writes its own
//! partition (Colloid `memset`s its buffer in its thread).

use super::{first_iteration, Init};
use crate::workload::{block_range, layout, push_lines, Epoch, Op, Txn, Workload, WorkloadCtx, WorkloadInfo};
use numaplace_model::rng::SplitMix64;
use numaplace_model::spec::{ParamDecl, ParamKind, Resolved, Value, MAX_EPOCH_RECORDS};
use numaplace_model::{ModelError, Region};

const PARAMS: &[ParamDecl] = &[
    ParamDecl {
        name: "pages",
        kind: ParamKind::UInt { min: 1, max: u32::MAX as u64 },
        default: "32768",
        doc: "pages of the table (assumption: 128 MiB of 4 KiB pages, a scaled-down HeMem/Colloid table)",
    },
    ParamDecl {
        name: "hot_fraction",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: "0.25",
        doc: "hot set as a fraction of the table when hot_pages=auto (assumption, near Colloid gups.c's HOTSS/WSS = 20/72 GiB)",
    },
    ParamDecl {
        name: "hot_pages",
        kind: ParamKind::UINT,
        default: "auto",
        doc: "pages of the hot set, split among the threads (auto: hot_fraction x pages)",
    },
    ParamDecl {
        name: "hot_share",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: "0.9",
        doc: "share of updates drawn from the hot set, the rest uniform over the partition (HeMem gups-hotset-move.c and Colloid gups.c: 90 %)",
    },
    ParamDecl {
        name: "element_bytes",
        kind: ParamKind::UInt { min: 8, max: 1 << 30 },
        default: "8",
        doc: "bytes one update reads and writes, a power of two up to a page (HeMem gups.c: 8-byte elements; Colloid: 4096)",
    },
    ParamDecl {
        name: "updates",
        kind: ParamKind::UInt { min: 0, max: MAX_EPOCH_RECORDS },
        default: "65536",
        doc: "updates per thread per iteration (assumption)",
    },
    ParamDecl { name: "iterations", kind: ParamKind::ITERATIONS, default: "10", doc: "timed iterations (assumption)" },
    ParamDecl {
        name: "move_every",
        kind: ParamKind::UInt { min: 0, max: numaplace_model::spec::MAX_ITERATIONS },
        default: "0",
        doc: "move the hot set to the next window every this many iterations, 0 never (HeMem's hot-set-move experiment)",
    },
    ParamDecl {
        name: "think_ns",
        kind: ParamKind::Float { min: 0.0, max: 1e9 },
        default: "5",
        doc: "CPU time per update outside memory, ns (assumption: an xorshift step and an add)",
    },
];

pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "gups",
    doc: "GUPS with a hot set: read-modify-write of random elements, 90 % in a per-thread hot set (HeMem, Colloid)",
    params: PARAMS,
    caps: (),
    build,
};

fn bad(msg: String) -> ModelError {
    ModelError::Spec(format!("workload 'gups': {msg}"))
}

fn build(r: &Resolved, ctx: &WorkloadCtx) -> Result<Box<dyn Workload>, ModelError> {
    let pages = r.uint("pages");
    let threads = ctx.threads as u64;
    if pages < threads {
        return Err(bad(format!("pages={pages}: fewer than the {threads} threads, each needs a partition")));
    }
    let hot_pages = if r.is_auto("hot_pages") {
        (r.float("hot_fraction") * pages as f64).round() as u64
    } else {
        r.uint("hot_pages")
    };
    if hot_pages > pages {
        return Err(bad(format!("hot_pages={hot_pages}: larger than the table (pages={pages})")));
    }
    let hot_share = r.float("hot_share");
    if hot_pages == 0 && hot_share > 0.0 {
        return Err(bad(format!(
            "hot set of 0 pages (hot_pages={}, hot_fraction={}) with hot_share={hot_share}: give it at least one page",
            if r.is_auto("hot_pages") { "auto".to_string() } else { hot_pages.to_string() },
            r.float("hot_fraction")
        )));
    }
    let element = r.uint("element_bytes");
    if !element.is_power_of_two() || element > ctx.page_size {
        return Err(bad(format!("element_bytes={element}: expected a power of two up to the page size ({})", ctx.page_size)));
    }
    let mut resolved = r.clone();
    resolved.set("hot_pages", Value::UInt(hot_pages));
    let parts = (0..threads)
        .map(|t| {
            let (lo, hi) = block_range(pages, threads, t);
            let hot = ((hot_pages as u128 * (hi - lo) as u128) / pages as u128) as u64;
            Part { lo, len: hi - lo, hot: if hot_pages > 0 { hot.max(1) } else { 0 } }
        })
        .collect();
    Ok(Box::new(Gups {
        regions: layout("gups", &[("table", pages)])?,
        parts,
        hot_share,
        lines: (element / ctx.line_size).max(1) as u16,
        updates: r.uint("updates"),
        iterations: r.uint("iterations") as u32,
        move_every: r.uint("move_every"),
        think_ns: r.float("think_ns"),
        rngs: (0..ctx.threads).map(|t| SplitMix64::new(ctx.thread_seed(t))).collect(),
        ctx: *ctx,
        next: first_iteration(ctx.init),
        resolved,
    }))
}

/// One thread's partition: first page, pages, pages of its hot set.
#[derive(Clone, Copy, Debug)]
struct Part {
    lo: u64,
    len: u64,
    hot: u64,
}

struct Gups {
    regions: Vec<Region>,
    parts: Vec<Part>,
    hot_share: f64,
    lines: u16,
    updates: u64,
    iterations: u32,
    move_every: u64,
    think_ns: f64,
    rngs: Vec<SplitMix64>,
    ctx: WorkloadCtx,
    next: u32,
    resolved: Resolved,
}

impl Gups {
    /// The first page of thread part `p`'s hot window in timed iteration `it`, relative to the
    /// partition.
    fn hot_start(&self, p: &Part, it: u32) -> u64 {
        if self.move_every == 0 || p.len == 0 {
            return 0;
        }
        let window = (it as u64 - 1) / self.move_every;
        ((window as u128 * p.hot as u128) % p.len as u128) as u64
    }
}

impl Workload for Gups {
    fn regions(&self) -> &[Region] {
        &self.regions
    }

    fn iterations(&self) -> u32 {
        self.iterations
    }

    fn resolved(&self) -> Option<&Resolved> {
        Some(&self.resolved)
    }

    fn next_epoch(&mut self, epoch: &mut Epoch) -> bool {
        if self.next > self.iterations {
            return false;
        }
        let it = self.next;
        self.next += 1;
        let lpp = self.ctx.lines_per_page();
        let table = self.regions[0].first_page;
        epoch.reset(self.ctx.threads, it, if it == 0 { "init" } else { "update" });
        for t in 0..self.ctx.threads {
            let p = self.parts[t];
            let work = &mut epoch.threads[t];
            work.think_ns = self.think_ns;
            if it == 0 {
                let (lo, hi) = match self.ctx.init {
                    Init::Sequential if t == 0 => (0, self.regions[0].pages as u64),
                    Init::Sequential => continue,
                    _ => (p.lo, p.lo + p.len),
                };
                push_lines(&mut work.txns, table, lpp, lo * lpp, hi * lpp, Op::Write);
                continue;
            }
            let start = self.hot_start(&p, it);
            let rng = &mut self.rngs[t];
            work.txns.reserve(self.updates as usize);
            for _ in 0..self.updates {
                let off = if p.hot > 0 && rng.unit() < self.hot_share {
                    (start + rng.below(p.hot)) % p.len
                } else {
                    rng.below(p.len)
                };
                work.txns.push(Txn::write(table + (p.lo + off) as u32, self.lines));
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_determinism, check_error, ctx, epochs, make};
    use crate::workload::Op;

    #[test]
    fn gups_is_deterministic_per_seed() {
        check_determinism("gups:pages=512,updates=2000,iterations=2,move_every=1");
    }

    /// Share of thread 0's updates in iteration `it` that land in pages `[lo, hi)`.
    fn share_in(spec: &str, it: u32, lo: u32, hi: u32) -> f64 {
        let all = epochs(make(spec, &ctx(1, 3)).as_mut());
        let (_, _, threads) = all.iter().find(|(i, _, _)| *i == it).unwrap();
        let txns = &threads[0];
        assert!(txns.iter().all(|t| t.op == Op::Write && t.count == 1), "an update is one line written");
        txns.iter().filter(|t| (lo..hi).contains(&t.page)).count() as f64 / txns.len() as f64
    }

    #[test]
    fn the_hot_set_gets_its_share_of_updates() {
        // 90 % to the hot tenth, and 10 % uniform over the partition of which a tenth is hot.
        let spec = "gups:pages=1000,hot_pages=100,hot_share=0.9,updates=65536,iterations=1";
        let s = share_in(spec, 1, 0, 100);
        assert!((s - 0.91).abs() < 0.01, "{s}");
        let s = share_in("gups:pages=1000,hot_pages=100,hot_share=0.5,updates=65536,iterations=1", 1, 0, 100);
        assert!((s - 0.55).abs() < 0.01, "{s}");
    }

    #[test]
    fn a_moving_hot_set_shifts_to_the_next_window() {
        let spec = "gups:pages=1000,hot_pages=100,updates=65536,iterations=3,move_every=2";
        assert!((share_in(spec, 2, 0, 100) - 0.91).abs() < 0.01);
        let moved = share_in(spec, 3, 100, 200);
        assert!((moved - 0.91).abs() < 0.01, "{moved}");
    }

    #[test]
    fn each_thread_updates_only_its_partition_and_elements_span_lines() {
        let all = epochs(make("gups:pages=100,updates=1000,iterations=1,element_bytes=4096", &ctx(4, 1)).as_mut());
        let (_, _, threads) = &all[1];
        for (t, txns) in threads.iter().enumerate() {
            let (lo, hi) = (25 * t as u32, 25 * (t as u32 + 1));
            assert!(txns.iter().all(|x| (lo..hi).contains(&x.page) && x.count == 64), "thread {t}");
        }
        // The initialisation epoch writes each partition once.
        let init: Vec<u64> = all[0].2.iter().map(|v| v.iter().map(|t| t.count as u64).sum()).collect();
        assert_eq!(init, vec![25 * 64; 4]);
    }

    #[test]
    fn bad_gups_parameters_are_refused_by_name() {
        check_error("gups:pages=100,hot_pages=101", "gups", "hot_pages");
        check_error("gups:hot_fraction=0", "gups", "hot_fraction");
        check_error("gups:element_bytes=24", "gups", "element_bytes");
        check_error("gups:element_bytes=8192", "gups", "element_bytes");
        check_error("gups:pages=1", "gups", "pages");
    }
}
