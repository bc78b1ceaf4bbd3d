//! The run's statistics: counters, the epochs (one per policy decision), the regions freed,
//! and the stats file written at exit. The file's schema is declared once, in
//! [`numaplace_model::stats`]: this module fills its [`StatsFile`] and serialises it.

use crate::driver::{Runtime, Snapshot};
use crate::error::{Code, RtError};
use crate::mover::MoveReport;
use crate::space::SPACE;
use numaplace_model::stats::{EpochStats, RegionStats, StatsFile, ThreadStats, VERSION};
use std::sync::atomic::Ordering::Relaxed;
use std::cell::Cell;
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
    /// The runtime's own time for sampling: revoking and reopening pages while sampling with
    /// hinting faults ([`Runtime::timed_revoking`]), draining precise samples. A cell: the
    /// snapshot paths that reopen pages borrow the runtime shared.
    pub time_revoking: Cell<Duration>,
    /// The hinting faults' cost on the critical path, interval by interval
    /// ([`crate::cost::Critical`]).
    pub critical: crate::cost::Critical,
    pub time_migrating: Duration,
    pub epochs: Vec<EpochStats>,
    /// Regions already freed (no address: it may be reused).
    pub retired: Vec<RegionStats>,
}

impl Runtime {
    /// Runs `f`, a change of page protections made for sampling (revoking pages, reopening
    /// them), and adds its time to [`Stats::time_revoking`] when sampling with hinting faults
    /// is on (otherwise no page is ever revoked, and reopening costs nothing sampling caused).
    pub(crate) fn timed_revoking<T>(&self, f: impl FnOnce() -> T) -> T {
        if !self.sampling {
            return f();
        }
        let t = Instant::now();
        let out = f();
        self.stats.time_revoking.set(self.stats.time_revoking.get() + t.elapsed());
        out
    }

    pub(crate) fn account(&mut self, rep: &MoveReport) {
        self.stats.pages_moved += rep.moved;
        self.stats.move_failures += rep.failed;
        self.stats.busy_retries += rep.busy_retries;
        self.stats.fallbacks += rep.fallbacks;
    }

    pub(crate) fn log(&mut self, kind: &'static str, snap: &Snapshot, moved: u64, per_node: Vec<u64>) {
        self.stats.samples_seen += snap.samples;
        self.stats.samples_local += snap.local;
        self.stats.epochs.push(EpochStats {
            t_s: self.started.elapsed().as_secs_f64(),
            kind: kind.into(),
            samples: snap.samples,
            local_share: Some(if snap.samples == 0 { 0.0 } else { snap.local as f64 / snap.samples as f64 }),
            moved,
            per_node,
        });
    }

    /// The statistics, as the stats file holds them.
    pub fn stats_file(&self) -> StatsFile {
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
            regions.push(r.clone());
        }
        for r in &self.regions {
            let (b, a) = self.before_after(r);
            add(&b, &a);
            regions.push(RegionStats {
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
            nodes: self.nodes() as u64,
            page_size: ps as u64,
            source: self.source.into(),
            source_reason: self.source_reason.clone(),
            placement: self.cfg.placement.clone(),
            dynamic: self.cfg.dynamic.clone(),
            regions,
            before,
            after,
            faults_sampled: SPACE.samples.load(Relaxed),
            samples_local: self.stats.samples_local,
            pages_moved: self.stats.pages_moved,
            move_failures: self.stats.move_failures,
            busy_retries: self.stats.busy_retries,
            fallbacks: self.stats.fallbacks,
            invocations: self.stats.invocations,
            faults_handled: faults,
            fault_round_trip_ns: crate::cost::round_trip_ns().map(|ns| ns as f64),
            time_fault_handling_s: handler_ns as f64 / 1e9,
            time_fault_critical_s: self.stats.critical.total_ns() as f64 / 1e9,
            threads: threads
                .iter()
                .map(|(_, t)| ThreadStats { tid: t.tid.into(), faults: t.faults, handler_s: t.handler_ns as f64 / 1e9 })
                .collect(),
            time_revoking_s: self.stats.time_revoking.get().as_secs_f64(),
            time_migrating_s: self.stats.time_migrating.as_secs_f64(),
            wall_s: self.started.elapsed().as_secs_f64(),
            epochs: self.stats.epochs.clone(),
        }
    }

    /// Writes the statistics to `path` by numaplace's output rule (`numaplace-outfile`): a
    /// temporary renamed into place, a link's target, or a device or FIFO written through; a
    /// directory refused.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn stats_write(&self, path: &str) -> Result<(), RtError> {
        let text = serde_json::to_string_pretty(&self.stats_file()).expect("plain data serialises") + "\n";
        numaplace_outfile::write_bytes(std::path::Path::new(path), text.as_bytes())
            .map_err(|e| RtError::new(Code::Io, format!("stats file '{path}': {e}")))
    }
}

#[cfg(test)]
mod tests {
    use crate::driver::testing::rt;
    use crate::sys::Sys;
    use numaplace_model::stats::{Field, Kind, FILE};
    use serde_json::Value;
    use std::collections::BTreeSet;

    /// Checks `v` against `fields`: the same keys, each value of its kind.
    fn conforms(v: &Value, fields: &[Field], at: &str) {
        let obj = v.as_object().unwrap_or_else(|| panic!("{at}: not an object"));
        let keys: BTreeSet<&str> = obj.keys().map(String::as_str).collect();
        let names: BTreeSet<&str> = fields.iter().map(|f| f.name).collect();
        assert_eq!(keys, names, "{at}: the keys written are not the schema's");
        for f in fields {
            let x = &obj[f.name];
            if x.is_null() {
                assert!(f.nullable, "{at}.{}: null, but the schema says it is not nullable", f.name);
                continue;
            }
            let ok = match f.kind {
                Kind::Text => x.is_string(),
                Kind::Integer => x.is_u64() || x.is_i64(),
                Kind::Number => x.is_number(),
                Kind::Share => x.as_f64().is_some_and(|s| (0.0..=1.0).contains(&s)),
                Kind::PerNode => x.as_array().is_some_and(|a| a.iter().all(Value::is_u64)),
                Kind::List(inner) => {
                    for (i, item) in x.as_array().expect("a list").iter().enumerate() {
                        conforms(item, inner, &format!("{at}.{}[{i}]", f.name));
                    }
                    true
                }
            };
            assert!(ok, "{at}.{}: {x} is not of kind {}", f.name, f.kind.name());
        }
    }

    #[test]
    fn the_stats_written_are_the_schema_with_a_freed_region_a_live_one_and_epochs() {
        let (mut rt, fake, _space) = rt("upmlib");
        let (freed, live) = (0x8000_0000, 0x8100_0000);
        fake.touch(freed, 8 * 4096);
        fake.touch(live, 8 * 4096);
        rt.register(freed, 8 * 4096, "freed", None).unwrap();
        let slot = rt.register(live, 8 * 4096, "live", None).unwrap();
        for p in 0..8 {
            crate::space::SPACE.inject(slot, p, 1, 3);
        }
        assert!(rt.migrate("migrate").unwrap() > 0);
        rt.unregister(freed);
        let v = serde_json::to_value(rt.stats_file()).unwrap();
        conforms(&v, FILE, "stats");
        assert_eq!(v["regions"][0]["address"], Value::Null, "a freed region has no address");
        assert_eq!(v["regions"][1]["address"], format!("{live:#x}"));
        assert_eq!(v["epochs"].as_array().unwrap().len(), 1);
        rt.unregister(live);
    }

    #[test]
    fn the_stats_file_is_written_through_links_and_devices_and_never_onto_a_directory() {
        let (rt, _fake, _space) = rt("upmlib");
        let d = std::env::temp_dir().join(format!("numaplace-stats-write-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        std::os::unix::fs::symlink("target.json", d.join("link.json")).unwrap();
        rt.stats_write(d.join("link.json").to_str().unwrap()).unwrap();
        assert!(std::fs::symlink_metadata(d.join("link.json")).unwrap().file_type().is_symlink(), "the link stays");
        let written: Value = serde_json::from_str(&std::fs::read_to_string(d.join("target.json")).unwrap()).unwrap();
        assert_eq!(written["numaplace_stats"], numaplace_model::stats::VERSION);
        rt.stats_write("/dev/null").unwrap();
        assert!(!std::fs::metadata("/dev/null").unwrap().is_file(), "a device is written through, not replaced");
        std::fs::create_dir(d.join("dir.json")).unwrap();
        let e = rt.stats_write(d.join("dir.json").to_str().unwrap()).unwrap_err();
        assert!(e.message.contains("is a directory"), "{}", e.message);
        let mut left: Vec<String> = std::fs::read_dir(&d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        left.sort();
        assert_eq!(left, ["dir.json", "link.json", "target.json"], "no temporary is left");
        std::fs::remove_dir_all(&d).unwrap();
    }
}
