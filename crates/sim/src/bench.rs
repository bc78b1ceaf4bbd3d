//! The project's benchmarks, measured in the same process so that ratios, not absolute times,
//! are compared on a shared, noisy machine.
//!
//! * [`speed`]: 64 M transactions on 256 K pages, uniformly at random, from 16 threads on
//!   `origin2000` under first-touch. The records are generated into memory first; then the
//!   engine runs over them, and a plain loop that reads each record and increments a per-page
//!   counter runs over the same records. `ratio = seconds / limit_seconds`.
//! * [`protocol_speed`]: the line-level protocol engine on `talbot64` (64 nodes) running a
//!   fixed synthetic line-level program ([`ProtocolBenchProgram`]: each node sweeping a private
//!   array with stores, reading a shared array whose slices their owners keep rewriting),
//!   against a limit loop that pulls the same operations and looks each access's line up in a
//!   per-thread direct-mapped tag array of the SLC's size. Reported: line accesses after the
//!   FLC per second, and `ratio = seconds / limit_seconds` over the same accesses.
//! * [`footprint`]: a 16 M-page (64 GiB of 4 KiB pages) sweep on `modern-2s`, reporting the
//!   process's peak resident memory.

use crate::binding::{bind, Binding};
use crate::engine::Engine;
use crate::error::SimError;
use crate::presets::preset;
use crate::run::config::RunConfig;
use crate::run::page::simulate_on;
use crate::run::request::DEFAULT_QUANTUM_NS;
use crate::workload::{Epoch, Init, Workload, WorkloadCtx};
use crate::workloads;
use numaplace_model::{dynamic, placement};
use numaplace_model::units::ns_to_ps;
use numaplace_model::Spec;
use serde::Serialize;
use std::hint::black_box;
use std::time::Instant;

/// Output of [`speed`].
#[derive(Clone, Debug, Serialize)]
pub struct SpeedResult {
    pub transactions: u64,
    pub pages: u64,
    pub threads: usize,
    pub machine: &'static str,
    pub repetitions: u32,
    /// Best engine time over the repetitions, s.
    pub seconds: f64,
    pub transactions_per_second: f64,
    /// Best time of the plain read-and-count loop over the same records, s.
    pub limit_seconds: f64,
    pub ratio: f64,
    /// Generating the same records (the `random` workload), best time, s.
    pub generation_seconds: f64,
    pub generation_transactions_per_second: f64,
    /// Reading the same records back from a binary trace (from the page cache), best time, s.
    pub trace_read_seconds: f64,
    pub trace_read_transactions_per_second: f64,
    pub trace_bytes: u64,
    /// The engine with the `kernel` policy's per-page counters on, best time, s.
    pub kernel_seconds: f64,
    pub kernel_ratio: f64,
}

/// Output of [`footprint`].
#[derive(Clone, Debug, Serialize)]
pub struct FootprintResult {
    pub pages: u64,
    pub page_size: u64,
    pub machine: &'static str,
    pub seconds: f64,
    pub peak_rss_bytes: u64,
}

/// Runs the speed benchmark with `transactions` records over `pages` pages.
///
/// # Errors
/// Only if the built-in configuration were invalid.
pub fn speed(transactions: u64, pages: u64, repetitions: u32) -> Result<SpeedResult, SimError> {
    const THREADS: usize = 16;
    let machine = preset("origin2000")?;
    let ctx = WorkloadCtx {
        threads: THREADS,
        page_size: machine.raw.page_size,
        line_size: machine.raw.line_size,
        seed: 1,
        init: Init::None,
    };
    let spec = format!("random:pages={pages},accesses={},iterations=1", transactions / THREADS as u64);
    let (mut wl, _) = workloads::build(&Spec::parse(&spec)?, &ctx)?;
    let mut epoch = Epoch::default();
    assert!(wl.next_epoch(&mut epoch), "the benchmark workload yields one epoch");
    let records: u64 = epoch.threads.iter().map(|t| t.txns.len() as u64).sum();
    let threads = bind(&machine, THREADS, Binding::Spread, false)?;

    let (mut best_engine, mut best_limit) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..repetitions.max(1) {
        let (place, _) = placement::build(&Spec::parse("first-touch")?, &machine, 1)?;
        let mut engine =
            Engine::new(&machine, &threads, wl.regions().to_vec(), place, ns_to_ps(DEFAULT_QUANTUM_NS));
        let t0 = Instant::now();
        engine.run_epoch(&epoch);
        best_engine = best_engine.min(t0.elapsed().as_secs_f64());
        black_box(engine.now());

        let mut counts = vec![0u64; pages as usize];
        let t0 = Instant::now();
        for work in &epoch.threads {
            for tx in black_box(&work.txns) {
                counts[tx.page as usize] += tx.count as u64;
            }
        }
        best_limit = best_limit.min(t0.elapsed().as_secs_f64());
        black_box(&counts);
    }
    // The engine with counters on (the `kernel` policy: counter updates and threshold checks
    // on every record).
    let mut best_kernel = f64::INFINITY;
    for _ in 0..repetitions.max(1) {
        let (place, _) = placement::build(&Spec::parse("first-touch")?, &machine, 1)?;
        let mut engine =
            Engine::new(&machine, &threads, wl.regions().to_vec(), place, ns_to_ps(DEFAULT_QUANTUM_NS));
        let (policy, _) = dynamic::build(&Spec::parse("kernel")?, &machine, THREADS)?;
        engine.set_dynamic(policy, &dynamic::REGISTRY.get("kernel")?.caps);
        let t0 = Instant::now();
        engine.run_epoch(&epoch);
        best_kernel = best_kernel.min(t0.elapsed().as_secs_f64());
        black_box(engine.now());
    }

    // Generation: a fresh workload into a reused buffer (the second pass, so that page faults
    // of a first allocation are not counted).
    let mut scratch = Epoch::default();
    let mut best_gen = f64::INFINITY;
    for _ in 0..repetitions.max(1) + 1 {
        let (mut w2, _) = workloads::build(&Spec::parse(&spec)?, &ctx)?;
        let t0 = Instant::now();
        w2.next_epoch(&mut scratch);
        best_gen = best_gen.min(t0.elapsed().as_secs_f64());
    }
    black_box(&scratch);

    // Trace reading: write the records once, read them back into the reused buffer.
    let path = std::env::temp_dir().join(format!("numaplace-bench-{}.nptrace", std::process::id()));
    let header = crate::trace::TraceHeader {
        page_size: machine.raw.page_size,
        line_size: machine.raw.line_size,
        threads: THREADS,
        regions: wl.regions().to_vec(),
        meta: Vec::new(),
    };
    let file = std::fs::File::create(&path).map_err(|e| SimError::io(&path, e))?;
    let mut w = crate::trace::TraceWriter::new(std::io::BufWriter::new(file), &header, &path)?;
    w.epoch(&epoch, &path)?;
    w.finish(&path)?;
    let trace_bytes = std::fs::metadata(&path).map_err(|e| SimError::io(&path, e))?.len();
    let mut best_read = f64::INFINITY;
    for _ in 0..repetitions.max(1) {
        let mut t = crate::trace::BinaryTrace::open(&path)?;
        let t0 = Instant::now();
        let ok = t.next_epoch(&mut scratch);
        best_read = best_read.min(t0.elapsed().as_secs_f64());
        if let Some(e) = t.take_error() {
            let _ = std::fs::remove_file(&path);
            return Err(e);
        }
        assert!(ok, "the benchmark trace holds one epoch");
    }
    let _ = std::fs::remove_file(&path);

    Ok(SpeedResult {
        kernel_seconds: best_kernel,
        kernel_ratio: best_kernel / best_limit,
        generation_seconds: best_gen,
        generation_transactions_per_second: records as f64 / best_gen,
        trace_read_seconds: best_read,
        trace_read_transactions_per_second: records as f64 / best_read,
        trace_bytes,
        transactions: records,
        pages,
        threads: THREADS,
        machine: "origin2000",
        repetitions: repetitions.max(1),
        seconds: best_engine,
        transactions_per_second: records as f64 / best_engine,
        limit_seconds: best_limit,
        ratio: best_engine / best_limit,
    })
}

/// Output of [`protocol_speed`].
#[derive(Clone, Debug, Serialize)]
pub struct ProtocolSpeedResult {
    pub machine: &'static str,
    pub nodes: usize,
    pub sweeps: u32,
    /// The CPUs' run-ahead window (`ProtocolOptions::lookahead_cycles`).
    pub lookahead_cycles: u64,
    /// Operations of the program (loads, stores, barriers).
    pub operations: u64,
    /// Loads and stores.
    pub line_accesses: u64,
    /// Accesses that reached the SLC (FLC misses and stores).
    pub accesses_after_flc: u64,
    pub slc_misses: u64,
    pub messages: u64,
    pub events: u64,
    pub repetitions: u32,
    /// Best engine time, s.
    pub seconds: f64,
    pub accesses_after_flc_per_second: f64,
    /// Best time of the limit loop over the same accesses, s.
    pub limit_seconds: f64,
    pub ratio: f64,
}

/// The protocol benchmark's line-level program, generated lazily: per node a private array of
/// 8192 lines (512 KiB, local under first touch) swept `sweeps` times with a load of every line
/// and a store to every fourth; every 32nd access a load of the next line of a shared array of
/// 4096 lines (64 KiB per node's slice, homed by whoever reads it first), whose slices their
/// owners rewrite at the start of each sweep (so the shared loads keep missing); a barrier after
/// each sweep. The first sweep misses on everything (cold caches); later sweeps hit in the SLC
/// except for the shared lines.
pub struct ProtocolBenchProgram {
    nodes: usize,
    sweeps: u32,
    regions: Vec<crate::protocol::program::LineRegion>,
    /// Per thread: (sweep, position in the sweep, shared cursor).
    state: Vec<(u32, u64, u64)>,
}

const PB_PRIVATE: u64 = 8192;
const PB_SHARED: u64 = 4096;
const PB_LINE: u64 = 64;

impl ProtocolBenchProgram {
    pub fn new(nodes: usize, sweeps: u32) -> Self {
        use crate::protocol::program::LineRegion;
        let mut regions = vec![LineRegion { name: "shared".into(), base: 0, bytes: PB_SHARED * PB_LINE, proxy: true }];
        for t in 0..nodes {
            regions.push(LineRegion {
                name: format!("private{t}"),
                base: Self::private_base(t),
                bytes: PB_PRIVATE * PB_LINE,
                proxy: false,
            });
        }
        let state = (0..nodes).map(|t| (0, 0, (t as u64 * 977) % PB_SHARED)).collect();
        ProtocolBenchProgram { nodes, sweeps, regions, state }
    }

    fn private_base(t: usize) -> u64 {
        PB_SHARED * PB_LINE + t as u64 * PB_PRIVATE * PB_LINE
    }

    /// Loads and stores per thread per sweep: the slice's stores, the private loads and
    /// stores, the shared loads.
    pub fn accesses_per_sweep(nodes: usize) -> u64 {
        PB_SHARED / nodes as u64 + PB_PRIVATE + PB_PRIVATE / 4 + PB_PRIVATE / 32
    }
}

impl crate::protocol::program::LineProgram for ProtocolBenchProgram {
    fn name(&self) -> &str {
        "protocol-bench"
    }

    fn threads(&self) -> usize {
        self.nodes
    }

    fn regions(&self) -> &[crate::protocol::program::LineRegion] {
        &self.regions
    }

    fn fill(&mut self, t: usize, out: &mut Vec<crate::protocol::program::LineOp>) -> bool {
        use crate::protocol::program::{LineOp, CHUNK};
        let slice = PB_SHARED / self.nodes as u64;
        let (mut sweep, mut pos, mut cur) = self.state[t];
        if sweep == u32::MAX {
            return false;
        }
        if sweep == 0 && pos == 0 {
            out.push(LineOp::EndInit);
        }
        let base = Self::private_base(t);
        // Positions 0..slice: the slice's stores; then the private lines; then the barrier.
        while out.len() + 3 <= CHUNK {
            if pos < slice {
                out.push(LineOp::Write((t as u64 * slice + pos) * PB_LINE));
            } else if pos < slice + PB_PRIVATE {
                let i = pos - slice;
                let a = base + i * PB_LINE;
                out.push(LineOp::Read(a));
                if i.is_multiple_of(4) {
                    out.push(LineOp::Write(a));
                }
                if i.is_multiple_of(32) {
                    out.push(LineOp::Read(cur * PB_LINE));
                    cur = (cur + 1) % PB_SHARED;
                }
            } else {
                out.push(LineOp::Barrier);
                sweep += 1;
                pos = 0;
                if sweep == self.sweeps {
                    self.state[t] = (u32::MAX, 0, cur);
                    return true;
                }
                continue;
            }
            pos += 1;
        }
        self.state[t] = (sweep, pos, cur);
        true
    }
}

/// Runs the protocol engine's speed benchmark: [`ProtocolBenchProgram`] with `sweeps` sweeps
/// on `talbot64`, first-touch, no proxies, infinite buffers, the default options except the
/// CPUs' run-ahead window when `lookahead_cycles` is given.
///
/// The limit loop pulls the same operations from a fresh copy of the program through `fill`
/// (as the engine does) and looks each access's line up in a per-thread direct-mapped tag
/// array the size of the SLC.
///
/// # Errors
/// Only if the built-in configuration were invalid.
pub fn protocol_speed(sweeps: u32, repetitions: u32, lookahead_cycles: Option<u64>) -> Result<ProtocolSpeedResult, SimError> {
    use crate::protocol::program::{LineOp, LineProgram, CHUNK};
    use crate::protocol::{run as prun, ProtocolOptions, ProtocolParams};
    let machine = preset("talbot64")?;
    let params = ProtocolParams::from_machine(&machine)?;
    let nodes = machine.nodes();
    let mut opts = ProtocolOptions::default();
    if let Some(w) = lookahead_cycles {
        opts.lookahead_cycles = w;
    }
    let frames = (params.slc_bytes / machine.raw.line_size) as usize;
    let (mut best, mut best_limit) = (f64::INFINITY, f64::INFINITY);
    let mut last = None;
    let mut operations = 0u64;
    for _ in 0..repetitions.max(1) {
        let mut prog = ProtocolBenchProgram::new(nodes, sweeps);
        let (place, _) = placement::build(&Spec::parse("first-touch")?, &machine, 1)?;
        let t0 = Instant::now();
        let r = prun(&machine, &params, &mut prog, place.as_ref(), "first-touch", &opts)?;
        best = best.min(t0.elapsed().as_secs_f64());
        last = Some(r);

        let mut prog = ProtocolBenchProgram::new(nodes, sweeps);
        let mut tags = vec![u32::MAX; nodes * frames];
        let mut buf = Vec::with_capacity(CHUNK);
        let (mut misses, mut ops) = (0u64, 0u64);
        let t0 = Instant::now();
        for t in 0..nodes {
            let tag = &mut tags[t * frames..(t + 1) * frames];
            loop {
                buf.clear();
                if !prog.fill(t, &mut buf) {
                    break;
                }
                ops += buf.len() as u64;
                for op in black_box(&buf) {
                    if let LineOp::Read(a) | LineOp::Write(a) = *op {
                        let line = (a >> 6) as u32;
                        let i = line as usize & (frames - 1);
                        if tag[i] != line {
                            tag[i] = line;
                            misses += 1;
                        }
                    }
                }
            }
        }
        best_limit = best_limit.min(t0.elapsed().as_secs_f64());
        black_box(misses);
        operations = ops;
    }
    let r = last.expect("at least one repetition");
    Ok(ProtocolSpeedResult {
        machine: "talbot64",
        nodes,
        sweeps,
        lookahead_cycles: opts.lookahead_cycles,
        operations,
        line_accesses: r.line_accesses,
        accesses_after_flc: r.slc_accesses,
        slc_misses: r.slc_misses,
        messages: r.messages,
        events: r.events,
        repetitions: repetitions.max(1),
        seconds: best,
        accesses_after_flc_per_second: r.slc_accesses as f64 / best,
        limit_seconds: best_limit,
        ratio: best / best_limit,
    })
}

/// Runs a one-sweep `stream` over `pages` 4 KiB pages on `modern-2s` and reports peak RSS.
///
/// # Errors
/// If the run fails, or `/proc/self/status` cannot be read.
pub fn footprint(pages: u64) -> Result<FootprintResult, SimError> {
    let machine = preset("modern-2s")?;
    let cfg = RunConfig {
        machine: "modern-2s".into(),
        workload: format!("stream:pages={pages},arrays=1,iterations=1"),
        threads: 16,
        ..RunConfig::default()
    };
    let t0 = Instant::now();
    let r = simulate_on(&machine, &cfg)?;
    let seconds = t0.elapsed().as_secs_f64();
    black_box(r.total_time_ns);
    Ok(FootprintResult {
        pages,
        page_size: machine.raw.page_size,
        machine: "modern-2s",
        seconds,
        peak_rss_bytes: peak_rss_bytes()?,
    })
}

/// The process's peak resident set size (`VmHWM`), bytes.
///
/// # Errors
/// If `/proc/self/status` is unreadable or has no `VmHWM` line.
pub fn peak_rss_bytes() -> Result<u64, SimError> {
    let path = std::path::Path::new("/proc/self/status");
    let text = std::fs::read_to_string(path).map_err(|e| SimError::io(path, e))?;
    text.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .ok_or_else(|| SimError::Io { path: path.display().to_string(), message: "no VmHWM line".into() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_speed_run_counts_every_record() {
        let r = speed(16 * 1000, 1024, 1).unwrap();
        assert_eq!(r.transactions, 16_000);
        assert!(r.seconds > 0.0 && r.limit_seconds > 0.0);
    }

    #[test]
    fn protocol_speed_runs_the_whole_program_deterministically() {
        let r = protocol_speed(1, 1, None).unwrap();
        assert_eq!(ProtocolBenchProgram::accesses_per_sweep(64), 64 + 8192 + 2048 + 256);
        assert_eq!(r.line_accesses, 64 * ProtocolBenchProgram::accesses_per_sweep(64));
        assert!(r.accesses_after_flc > 0 && r.seconds > 0.0 && r.limit_seconds > 0.0);
        let again = protocol_speed(1, 1, Some(0)).unwrap();
        assert_eq!(again.line_accesses, r.line_accesses);
        let again = protocol_speed(1, 1, None).unwrap();
        assert_eq!((again.events, again.messages, again.slc_misses), (r.events, r.messages, r.slc_misses));
    }

    #[test]
    fn rss_is_readable() {
        assert!(peak_rss_bytes().unwrap() > 1 << 20);
    }
}
