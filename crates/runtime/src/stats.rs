//! The stats part of the [`crate::runtime::Runtime`], [`Stats`]: the run's counters and its
//! epochs (one per policy decision); and the stats file written at exit, gathered from every
//! part ([`stats_file`]). The file's schema is declared once, in [`numaplace_model::stats`]:
//! this module fills its [`StatsFile`] and serialises it.

use crate::error::{Code, RtError};
use crate::host::Host;
use crate::mover::MoveReport;
use crate::regions::Regions;
use crate::sampling::Sampling;
use crate::snapshot::Snapshot;
use crate::space::SPACE;
use numaplace_model::stats::{EpochStats, RegionStats, StatsFile, ThreadStats, VERSION};
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

/// Counters of the whole run.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub samples_local: u64,
    pub samples_seen: u64,
    pub pages_moved: u64,
    pub move_failures: u64,
    pub busy_retries: u64,
    pub fallbacks: u64,
    pub invocations: u64,
    /// Pages moved to a top-tier node from a slower tier, and to a slower tier.
    pub promotions: u64,
    pub demotions: u64,
    /// Moves asked from a slower tier to a top-tier node that failed or landed elsewhere (the
    /// policy's `promotion_failures`, as the simulator counts them).
    pub promotion_failures: u64,
    /// Hinting faults handed to the policy one by one.
    pub faults_forwarded: u64,
    /// Times a node fell below its low watermark and the policy was told.
    pub low_memory_events: u64,
    pub time_migrating: Duration,
    pub epochs: Vec<EpochStats>,
}

impl Stats {
    /// Counts a batch of moves.
    pub(crate) fn account(&mut self, rep: &MoveReport) {
        self.pages_moved += rep.moved;
        self.move_failures += rep.failed;
        self.busy_retries += rep.busy_retries;
        self.fallbacks += rep.fallbacks;
    }

    /// Records a decision of `kind` on `snap` that moved `moved` pages, leaving `per_node`,
    /// at the runtime's time since `started`.
    pub(crate) fn log(&mut self, started: Instant, kind: &'static str, snap: &Snapshot, moved: u64, per_node: Vec<u64>) {
        self.samples_seen += snap.samples;
        self.samples_local += snap.local;
        self.epochs.push(EpochStats {
            t_s: started.elapsed().as_secs_f64(),
            kind: kind.into(),
            samples: snap.samples,
            local_share: Some(if snap.samples == 0 { 0.0 } else { snap.local as f64 / snap.samples as f64 }),
            moved,
            per_node,
        });
    }
}

/// The statistics, as the stats file holds them.
pub fn stats_file(host: &Host, regions: &Regions, sampling: &Sampling, stats: &Stats, policy: std::collections::BTreeMap<String, Option<numaplace_model::stats::RecordValue>>) -> StatsFile {
    let ps = host.page_size();
    let mut list = Vec::new();
    let mut before = vec![0u64; host.nodes()];
    let mut after = vec![0u64; host.nodes()];
    let mut add = |b: &[u64], a: &[u64]| {
        for n in 0..b.len().min(before.len()) {
            before[n] += b[n];
        }
        for n in 0..a.len().min(after.len()) {
            after[n] += a[n];
        }
    };
    for r in &regions.retired {
        add(&r.before, &r.after);
        list.push(r.clone());
    }
    for r in &regions.list {
        let (b, a) = regions.before_after(host, sampling, r);
        add(&b, &a);
        list.push(RegionStats {
            name: r.name.clone(),
            address: Some(format!("{:#x}", r.start)),
            bytes: (r.pages * ps) as u64,
            pages: r.pages as u64,
            before: b,
            after: a,
        });
    }
    let threads = crate::cost::threads();
    let (faults, handler_ns) = threads.iter().fold((0, 0), |(f, h), (_, t)| (f + t.faults, h + t.handler_ns));
    StatsFile {
        numaplace_stats: VERSION,
        program: std::env::args().next().unwrap_or_default(),
        pid: std::process::id(),
        nodes: host.nodes() as u64,
        tier: host.machine.tier.iter().map(|&t| u64::from(t)).collect(),
        page_size: ps as u64,
        source: sampling.source.into(),
        source_reason: sampling.source_reason.clone(),
        placement: host.cfg.placement.clone(),
        dynamic: host.cfg.dynamic.clone(),
        regions: list,
        before,
        after,
        faults_sampled: SPACE.samples.load(Relaxed),
        samples_local: stats.samples_local,
        pages_moved: stats.pages_moved,
        move_failures: stats.move_failures,
        busy_retries: stats.busy_retries,
        fallbacks: stats.fallbacks,
        invocations: stats.invocations,
        promotions: stats.promotions,
        demotions: stats.demotions,
        low_memory_events: stats.low_memory_events,
        faults_forwarded: stats.faults_forwarded,
        faults_dropped: crate::faultq::FAULTS.dropped.load(Relaxed),
        faults_handled: faults,
        fault_round_trip_ns: crate::cost::round_trip_ns().map(|ns| ns as f64),
        time_fault_handling_s: handler_ns as f64 / 1e9,
        time_fault_critical_s: sampling.critical.total_ns() as f64 / 1e9,
        threads: threads
            .iter()
            .map(|(_, t)| ThreadStats { tid: t.tid.into(), faults: t.faults, handler_s: t.handler_ns as f64 / 1e9 })
            .collect(),
        time_revoking_s: sampling.time_revoking.get().as_secs_f64(),
        time_migrating_s: stats.time_migrating.as_secs_f64(),
        wall_s: host.started.elapsed().as_secs_f64(),
        epochs: stats.epochs.clone(),
        policy,
    }
}

/// Writes `file` to `path` by numaplace's output rule (`numaplace-outfile`): a temporary
/// renamed into place, a link's target, or a device or FIFO written through; a directory
/// refused.
///
/// # Errors
/// The file cannot be written.
pub fn write(file: &StatsFile, path: &str) -> Result<(), RtError> {
    let text = serde_json::to_string_pretty(file).expect("plain data serialises") + "\n";
    numaplace_outfile::write_bytes(std::path::Path::new(path), text.as_bytes())
        .map_err(|e| RtError::new(Code::Io, format!("stats file '{path}': {e}")))
}
