//! The project's benchmarks, measured in the same process so that ratios, not absolute times,
//! are compared on a shared, noisy machine.
//!
//! * [`speed`]: 64 M transactions on 256 K pages, uniformly at random, from 16 threads on
//!   `origin2000` under first-touch. The records are generated into memory first; then the
//!   engine runs over them, and a plain loop that reads each record and increments a per-page
//!   counter runs over the same records. `ratio = seconds / limit_seconds`.
//! * [`footprint`]: a 16 M-page (64 GiB of 4 KiB pages) sweep on `modern-2s`, reporting the
//!   process's peak resident memory.

use crate::binding::{bind, Binding};
use crate::engine::Engine;
use crate::error::SimError;
use crate::presets::preset;
use crate::run::{simulate_on, RunConfig, DEFAULT_QUANTUM_NS};
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
    fn rss_is_readable() {
        assert!(peak_rss_bytes().unwrap() > 1 << 20);
    }
}
