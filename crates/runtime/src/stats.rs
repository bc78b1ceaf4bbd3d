//! The run's statistics: counters, the epochs (one per policy decision), the regions freed,
//! and the stats file written at exit.

use crate::driver::{Runtime, Snapshot};
use crate::error::{Code, RtError};
use crate::mover::MoveReport;
use crate::space::SPACE;
use std::time::Duration;

/// One policy invocation, for the statistics.
#[derive(Clone, Debug, PartialEq)]
pub struct Epoch {
    pub t_s: f64,
    pub kind: &'static str,
    pub samples: u64,
    pub local_share: f64,
    pub moved: u64,
    pub per_node: Vec<u64>,
}

/// A freed region, kept for the statistics.
#[derive(Clone, Debug)]
pub struct Retired {
    pub name: String,
    pub bytes: usize,
    pub pages: usize,
    /// Pages per node at registration and when freed.
    pub before: Vec<u64>,
    pub after: Vec<u64>,
}

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
    pub time_sampling: Duration,
    pub time_migrating: Duration,
    pub epochs: Vec<Epoch>,
    /// Regions already freed.
    pub retired: Vec<Retired>,
}

impl Runtime {
    pub(crate) fn account(&mut self, rep: &MoveReport) {
        self.stats.pages_moved += rep.moved;
        self.stats.move_failures += rep.failed;
        self.stats.busy_retries += rep.busy_retries;
        self.stats.fallbacks += rep.fallbacks;
    }

    pub(crate) fn log(&mut self, kind: &'static str, snap: &Snapshot, moved: u64, per_node: Vec<u64>) {
        self.stats.samples_seen += snap.samples;
        self.stats.samples_local += snap.local;
        self.stats.epochs.push(Epoch {
            t_s: self.started.elapsed().as_secs_f64(),
            kind,
            samples: snap.samples,
            local_share: if snap.samples == 0 { 0.0 } else { snap.local as f64 / snap.samples as f64 },
            moved,
            per_node,
        });
    }

    /// The statistics as JSON (schema `numaplace_stats` 1; see README "Running real
    /// programs").
    pub fn stats_json(&self) -> serde_json::Value {
        use serde_json::json;
        let ps = self.page_size();
        let mut regions = Vec::new();
        let mut before = vec![0u64; self.nodes()];
        let mut after = vec![0u64; self.nodes()];
        let mut add = |b: &[u64], a: &[u64]| {
            for n in 0..b.len().min(before.len()) {
                before[n] += b[n];
            }
            for n in 0..a.len().min(after.len()) {
                after[n] += a[n];
            }
        };
        for r in &self.stats.retired {
            add(&r.before, &r.after);
            regions.push(json!({"name": r.name, "address": null, "bytes": r.bytes, "pages": r.pages, "before": r.before, "after": r.after}));
        }
        for r in &self.regions {
            let (b, a) = self.before_after(r);
            add(&b, &a);
            regions.push(json!({"name": r.name, "address": format!("{:#x}", r.start), "bytes": r.pages * ps, "pages": r.pages, "before": b, "after": a}));
        }
        let epochs: Vec<_> = self
            .stats
            .epochs
            .iter()
            .map(|e| json!({"t_s": e.t_s, "kind": e.kind, "samples": e.samples, "local_share": e.local_share, "moved": e.moved, "per_node": e.per_node}))
            .collect();
        json!({
            "numaplace_stats": 1,
            "program": std::env::args().next().unwrap_or_default(),
            "pid": std::process::id(),
            "nodes": self.nodes(),
            "page_size": ps,
            "source": self.source,
            "source_reason": self.source_reason,
            "placement": self.cfg.placement,
            "dynamic": self.cfg.dynamic,
            "regions": regions,
            "before": before,
            "after": after,
            "faults_sampled": SPACE.samples.load(std::sync::atomic::Ordering::Relaxed),
            "samples_local": self.stats.samples_local,
            "pages_moved": self.stats.pages_moved,
            "move_failures": self.stats.move_failures,
            "busy_retries": self.stats.busy_retries,
            "fallbacks": self.stats.fallbacks,
            "invocations": self.stats.invocations,
            "time_sampling_s": self.stats.time_sampling.as_secs_f64(),
            "time_migrating_s": self.stats.time_migrating.as_secs_f64(),
            "wall_s": self.started.elapsed().as_secs_f64(),
            "epochs": epochs,
        })
    }

    /// Writes the statistics to `path` (atomically: a temporary file renamed).
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn stats_write(&self, path: &str) -> Result<(), RtError> {
        let text = serde_json::to_string_pretty(&self.stats_json()).expect("JSON values serialise") + "\n";
        let tmp = format!("{path}.tmp{}", std::process::id());
        std::fs::write(&tmp, text)
            .and_then(|_| std::fs::rename(&tmp, path))
            .map_err(|e| RtError::new(Code::Io, format!("stats file '{path}': {e}")))
    }
}
