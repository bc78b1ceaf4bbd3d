//! `pmbench`: a pmbench-like paging benchmark.
//!
//! Source: pmbench by Jisoo Yang (read from blakecaldwell/pmbench: `doc/pmbench.1`,
//! `pattern.c`, `pmbench.c`). Its threads share one memory map and each keeps its own pattern
//! generator; each access picks a page of the working set by the pattern and touches one word
//! of it, reading or writing by the read/write ratio (`-r`, percentage of reads, default 50).
//! The patterns modelled:
//! * `uniform` (pmbench's default): every page of the set equally likely;
//! * `normal`: pmbench's Box–Muller Gaussian around the middle of the set (`n / 2`) with a
//!   standard deviation in pages (its `shape`), a draw outside the set taken as the middle;
//! * `stride`: pmbench's `linear` pattern: from page 0 every `stride` pages, and at the end of
//!   the set from page 1 (the next phase), and so on, so every page is visited once per
//!   `pages` accesses. As in pmbench every thread's walk starts at page 0.
//!
//! One access is one line (the word's). pmbench times each access on its own (`access.c`:
//! `measure_read` and `measure_write` start a stopwatch, touch the word, stop the stopwatch
//! and record the latency in a histogram), so a thread's accesses do not overlap: its timed
//! epochs have a memory-level parallelism of 1, not the machine's. pmbench's map may be larger than its set; only the set
//! is modelled. Initialisation: with `init = parallel` each thread writes a block of the set
//! (pmbench warms up with its pattern instead; `init = none` leaves first touch to the
//! accesses, which is close to a `--cold` run).

use super::{first_iteration, init_in_blocks, Init};
use crate::workload::{layout, Epoch, Txn, Workload, WorkloadCtx, WorkloadInfo};
use numaplace_model::rng::SplitMix64;
use numaplace_model::spec::{ParamDecl, ParamKind, Resolved, Value, MAX_EPOCH_RECORDS};
use numaplace_model::{ModelError, Region};

const PATTERNS: &[&str] = &["uniform", "normal", "stride"];

const PARAMS: &[ParamDecl] = &[
    ParamDecl {
        name: "pages",
        kind: ParamKind::UInt { min: 1, max: u32::MAX as u64 },
        default: "32768",
        doc: "pages of the working set (pmbench.c default setsize 128 MiB, in 4 KiB pages)",
    },
    ParamDecl {
        name: "pattern",
        kind: ParamKind::Choice(PATTERNS),
        default: "uniform",
        doc: "page access pattern (pmbench.c default: uniform; stride is its 'linear')",
    },
    ParamDecl {
        name: "stddev",
        kind: ParamKind::Float { min: 0.0, max: 1e12 },
        default: "auto",
        doc: "standard deviation in pages for pattern=normal (auto: pages / 12, as pmbench's normal_ih pattern)",
    },
    ParamDecl {
        name: "stride",
        kind: ParamKind::UInt { min: 1, max: u32::MAX as u64 },
        default: "1",
        doc: "stride in pages for pattern=stride (pmbench.1: linear's default shape 1)",
    },
    ParamDecl {
        name: "read_percent",
        kind: ParamKind::UInt { min: 0, max: 100 },
        default: "50",
        doc: "percentage of accesses that read, the rest write (pmbench.c -r, default 50)",
    },
    ParamDecl {
        name: "accesses",
        kind: ParamKind::UInt { min: 0, max: MAX_EPOCH_RECORDS },
        default: "65536",
        doc: "accesses per thread per iteration (assumption)",
    },
    ParamDecl { name: "iterations", kind: ParamKind::ITERATIONS, default: "10", doc: "timed iterations (assumption)" },
    ParamDecl {
        name: "think_ns",
        kind: ParamKind::Float { min: 0.0, max: 1e9 },
        default: "20",
        doc: "CPU time per access outside memory, ns (assumption: pmbench's pattern draw and timestamps; its delay default is 0)",
    },
];

pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "pmbench",
    doc: "pmbench-like: threads touch pages of a shared set, uniform, Gaussian or strided, reading or writing",
    params: PARAMS,
    caps: (),
    build,
};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Pattern {
    Uniform,
    Normal(f64),
    Stride(u64),
}

fn build(r: &Resolved, ctx: &WorkloadCtx) -> Result<Box<dyn Workload>, ModelError> {
    let pages = r.uint("pages");
    let mut resolved = r.clone();
    let stddev = if r.is_auto("stddev") { pages as f64 / 12.0 } else { r.float("stddev") };
    resolved.set("stddev", Value::Float(stddev));
    let pattern = match r.choice("pattern") {
        "normal" => Pattern::Normal(stddev),
        "stride" => {
            let s = r.uint("stride");
            if s >= pages && pages > 1 {
                return Err(ModelError::Spec(format!("workload 'pmbench': stride={s}: expected fewer than pages={pages}")));
            }
            Pattern::Stride(s)
        }
        _ => Pattern::Uniform,
    };
    Ok(Box::new(Pmbench {
        regions: layout("pmbench", &[("set", pages)])?,
        pattern,
        reads: r.uint("read_percent") as f64 / 100.0,
        accesses: r.uint("accesses"),
        iterations: r.uint("iterations") as u32,
        think_ns: r.float("think_ns"),
        gens: (0..ctx.threads).map(|t| Gen { rng: SplitMix64::new(ctx.thread_seed(t)), i: 0, phase: 0, saved: None }).collect(),
        ctx: *ctx,
        next: first_iteration(ctx.init),
        resolved,
    }))
}

/// One thread's pattern generator state.
struct Gen {
    rng: SplitMix64,
    /// Stride: the next page and the current phase.
    i: u64,
    phase: u64,
    /// Normal: the second value of the last Box–Muller pair.
    saved: Option<u64>,
}

impl Gen {
    fn next_page(&mut self, pattern: Pattern, n: u64) -> u64 {
        match pattern {
            Pattern::Uniform => self.rng.below(n),
            Pattern::Stride(s) => {
                let page = self.i;
                self.i += s;
                if self.i >= n {
                    self.phase = (self.phase + 1) % s;
                    self.i = self.phase.min(n - 1);
                }
                page
            }
            Pattern::Normal(sd) => {
                if let Some(p) = self.saved.take() {
                    return p;
                }
                // Marsaglia's polar form of Box–Muller, as pmbench's normal pattern.
                let (x1, x2, w) = loop {
                    let x1 = 2.0 * self.rng.unit() - 1.0;
                    let x2 = 2.0 * self.rng.unit() - 1.0;
                    let w = x1 * x1 + x2 * x2;
                    if w < 1.0 && w > 0.0 {
                        break (x1, x2, w);
                    }
                };
                let f = (-2.0 * w.ln() / w).sqrt() * sd;
                let place = |y: f64| {
                    let v = (n / 2) as f64 + y;
                    if v < 0.0 || v >= n as f64 {
                        n / 2
                    } else {
                        v as u64
                    }
                };
                self.saved = Some(place(x2 * f));
                place(x1 * f)
            }
        }
    }
}

struct Pmbench {
    regions: Vec<Region>,
    pattern: Pattern,
    reads: f64,
    accesses: u64,
    iterations: u32,
    think_ns: f64,
    gens: Vec<Gen>,
    ctx: WorkloadCtx,
    next: u32,
    resolved: Resolved,
}

impl Workload for Pmbench {
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
        if it == 0 {
            debug_assert!(self.ctx.init != Init::None);
            init_in_blocks(epoch, &self.ctx, &self.regions, self.think_ns);
            return true;
        }
        let n = self.regions[0].pages as u64;
        let first = self.regions[0].first_page;
        epoch.reset(self.ctx.threads, it, "access");
        for (work, gen) in epoch.threads.iter_mut().zip(self.gens.iter_mut()) {
            work.think_ns = self.think_ns;
            // Each access is timed on its own (module doc).
            work.mlp = 1.0;
            work.txns.reserve(self.accesses as usize);
            for _ in 0..self.accesses {
                let page = first + gen.next_page(self.pattern, n) as u32;
                let read = self.reads >= 1.0 || (self.reads > 0.0 && gen.rng.unit() < self.reads);
                work.txns.push(if read { Txn::read(page, 1) } else { Txn::write(page, 1) });
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
    fn each_timed_access_is_timed_alone_so_a_thread_never_overlaps_two() {
        let mut w = make("pmbench:pages=100,accesses=10,iterations=1", &ctx(2, 1));
        let mut e = crate::workload::Epoch::default();
        assert!(w.next_epoch(&mut e));
        assert!(e.threads.iter().all(|t| t.mlp.is_infinite()), "the warm-up writes overlap");
        assert!(w.next_epoch(&mut e));
        assert!(e.threads.iter().all(|t| t.mlp == 1.0), "timed accesses: mlp 1");
    }

    #[test]
    fn pmbench_is_deterministic_per_seed() {
        check_determinism("pmbench:pages=1000,accesses=3000,iterations=2,pattern=normal");
        check_determinism("pmbench:pages=1000,accesses=3000,iterations=2");
    }

    fn timed_pages(spec: &str, threads: usize) -> Vec<Vec<u32>> {
        let all = epochs(make(spec, &ctx(threads, 4)).as_mut());
        let (_, _, ts) = all.iter().find(|(it, _, _)| *it == 1).unwrap();
        ts.iter().map(|v| v.iter().map(|t| t.page).collect()).collect()
    }

    #[test]
    fn the_stride_pattern_visits_pages_in_pmbenchs_linear_order() {
        // pmbench pattern.c's own example: size 10, stride 3.
        let pages = timed_pages("pmbench:pages=10,pattern=stride,stride=3,accesses=22,iterations=1", 2);
        let want = vec![0, 3, 6, 9, 1, 4, 7, 2, 5, 8, 0, 3, 6, 9, 1, 4, 7, 2, 5, 8, 0, 3];
        assert_eq!(pages[0], want);
        assert_eq!(pages[1], want, "every thread walks from page 0");
        // A larger set: every page exactly once per pass.
        let pages = timed_pages("pmbench:pages=1000,pattern=stride,stride=7,accesses=1000,iterations=1", 1);
        let mut seen = pages[0].clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..1000).collect::<Vec<u32>>());
    }

    #[test]
    fn the_normal_pattern_centres_on_the_middle_with_its_stddev() {
        let pages = timed_pages("pmbench:pages=10000,pattern=normal,stddev=500,accesses=100000,iterations=1", 1);
        let xs: Vec<f64> = pages[0].iter().map(|&p| p as f64).collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / xs.len() as f64).sqrt();
        assert!((mean - 4999.5).abs() < 10.0, "{mean}");
        assert!((sd - 500.0).abs() < 10.0, "{sd}");
    }

    #[test]
    fn the_read_percentage_sets_the_mix() {
        let all = epochs(make("pmbench:pages=100,accesses=50000,iterations=1,read_percent=70", &ctx(1, 9)).as_mut());
        let txns = &all[1].2[0];
        let reads = txns.iter().filter(|t| t.op == Op::Read).count() as f64 / txns.len() as f64;
        assert!((reads - 0.7).abs() < 0.01, "{reads}");
    }

    #[test]
    fn bad_pmbench_parameters_are_refused_by_name() {
        check_error("pmbench:pattern=pareto", "pmbench", "pattern");
        check_error("pmbench:pages=10,pattern=stride,stride=10", "pmbench", "stride");
        check_error("pmbench:read_percent=101", "pmbench", "read_percent");
    }
}
