//! The decision log: every action a dynamic policy took, as data — when, which page (and its
//! region), from and to which node, what the driver did, the policy's reason, which trigger
//! asked it, what it weighed ([`Evidence`]), the page's counts, both nodes' queueing delay
//! and what the move cost — for `numaplace explain` to answer "why did this page move, and
//! what did it cost".
//!
//! Bounded in memory: the records live in a buffer of a fixed capacity. With a sink attached
//! ([`DecisionSink`], [`DecisionLog::streaming`]) a full buffer is handed to it as one batch
//! and reused, so a run of millions of moves holds one batch at a time; without one
//! ([`DecisionLog::keeping`]) the first records are kept and the rest only counted
//! ([`DecisionLog::dropped`], reported in the result's `decision_log`), never silently.
//!
//! A record holds no heap part: its region is an index (named when a batch is written, from
//! [`DecisionLog::regions`]), its strings are the policy's `&'static str`s, and the page's
//! counts sit in one flat vector beside the buffer, `nodes` a record.

use crate::error::SimError;
use numaplace_model::dynamic::{Evidence, Trigger};
use numaplace_model::{Ps, Region};

/// Records a batch holds while streaming: about 1.2 MB of records, written some thousand
/// times in a run of ten million moves.
pub const BATCH: usize = 8192;

/// Records kept without a sink: the first 65,536 (about 10 MB); the rest are counted.
pub const KEPT: usize = 65_536;

/// One action a dynamic policy took, as the driver applied it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision {
    /// When the action completed (the hook's time plus the cost of the batch so far), ps.
    pub time_ps: Ps,
    pub page: u32,
    /// The page's region, an index into [`DecisionLog::regions`].
    pub region: u32,
    /// The page's home before, and where it went (`u8::MAX`: none); a replica's node.
    pub from: u8,
    pub to: u8,
    /// `migrate`, `replicate`, `collapse`, or `failed` (a migration that found no room
    /// anywhere: `to` is the node asked for).
    pub action: &'static str,
    /// The policy's reason, as it gave it.
    pub reason: &'static str,
    /// The hook that asked the policy ([`Trigger::name`]).
    pub trigger: Trigger,
    /// What the move was between tiers: `promotion`, `demotion`, `promotion-failure` (asked
    /// toward the fastest tier, landed elsewhere or nowhere), or `""` (an untiered machine,
    /// or a move within a tier).
    pub tier: &'static str,
    /// What the policy weighed ([`numaplace_model::dynamic::DynamicPolicy::evidence`]).
    pub evidence: Option<Evidence>,
    /// The memory controllers' queueing delay at `from` and `to` when the policy decided, ps
    /// (NaN where the driver does not measure it, or for no node).
    pub queue_from_ps: f64,
    pub queue_to_ps: f64,
    /// What the action cost, ps, and whether a background thread paid it (no application
    /// thread waited).
    pub cost_ps: Ps,
    pub background: bool,
}

/// Where a streaming log's batches go: a file written as the run goes (CSV, JSON Lines), or a
/// caller's writer (Parquet, through Python's pyarrow).
pub trait DecisionSink: Send {
    /// Takes one batch, in order; `counts` holds `batch.nodes` counts per record.
    ///
    /// # Errors
    /// A failed write: the log stops writing and the run ends with it.
    fn write(&mut self, batch: &Batch<'_>) -> Result<(), SimError>;

    /// The log has ended: anything buffered is written.
    ///
    /// # Errors
    /// A failed write.
    fn finish(&mut self) -> Result<(), SimError> {
        Ok(())
    }
}

/// One batch of records, with what is needed to write them.
pub struct Batch<'a> {
    pub records: &'a [Decision],
    /// The pages' counts, `nodes` per record (empty rows, `nodes` = 0, for a policy that
    /// keeps no counters).
    pub counts: &'a [u16],
    pub nodes: usize,
    /// Region names, by [`Decision::region`].
    pub regions: &'a [String],
}

impl Batch<'_> {
    /// Record `i`'s counts.
    pub fn counts_of(&self, i: usize) -> &[u16] {
        &self.counts[i * self.nodes..(i + 1) * self.nodes]
    }
}

/// What a run's log holds and wrote, for the result's `decision_log`.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct LogSummary {
    /// Actions the policy took (every one, written or not).
    pub records: u64,
    /// Records written to the sink, or kept.
    pub written: u64,
    /// Records neither written nor kept (a log without a sink past its capacity).
    pub dropped: u64,
    /// The capacity of the buffer, records.
    pub capacity: u64,
    pub promotions: u64,
    pub demotions: u64,
    pub promotion_failures: u64,
    /// Migrations that took a page back to the node it left on its previous move (ping-pong).
    pub returns: u64,
    /// Pages that moved back at least once.
    pub pages_returned: u64,
    /// What the logged actions cost, ns: all of it, and the background threads' part.
    pub cost_ns: f64,
    pub background_cost_ns: f64,
}

/// The log: a buffer of at most `capacity` records, a sink or none, and the summary.
pub struct DecisionLog {
    capacity: usize,
    nodes: usize,
    records: Vec<Decision>,
    counts: Vec<u16>,
    sink: Option<Box<dyn DecisionSink>>,
    /// Region names and first pages, copied once when the log is attached.
    regions: Vec<String>,
    first_pages: Vec<u32>,
    /// The node each page left on its last move (`u8::MAX`: none yet), and whether it has
    /// moved back before: for `returns`.
    left: Vec<u8>,
    returned: Vec<bool>,
    summary: LogSummary,
    cost_ps: Ps,
    background_ps: Ps,
    error: Option<SimError>,
}

impl DecisionLog {
    fn new(capacity: usize, sink: Option<Box<dyn DecisionSink>>, regions: &[Region], nodes: usize) -> Self {
        let capacity = capacity.max(1);
        DecisionLog {
            capacity,
            nodes,
            records: Vec::new(),
            counts: Vec::new(),
            sink,
            regions: regions.iter().map(|r| r.name.clone()).collect(),
            first_pages: regions.iter().map(|r| r.first_page).collect(),
            left: Vec::new(),
            returned: Vec::new(),
            summary: LogSummary { capacity: capacity as u64, ..LogSummary::default() },
            cost_ps: 0,
            background_ps: 0,
            error: None,
        }
    }

    /// A log that keeps its first `capacity` records and counts the rest as dropped.
    pub fn keeping(capacity: usize, regions: &[Region], nodes: usize) -> Self {
        Self::new(capacity, None, regions, nodes)
    }

    /// A log that hands every `capacity` records to `sink` as they come.
    pub fn streaming(capacity: usize, sink: Box<dyn DecisionSink>, regions: &[Region], nodes: usize) -> Self {
        Self::new(capacity, Some(sink), regions, nodes)
    }

    /// The same log keeping `nodes` counts a record (the policy's counters' width; 0 for a
    /// policy that keeps none).
    pub fn with_nodes(mut self, nodes: usize) -> Self {
        self.nodes = nodes;
        self
    }

    /// The region index of `page`.
    pub fn region_of(&self, page: u32) -> u32 {
        (self.first_pages.partition_point(|&f| f <= page).max(1) - 1) as u32
    }

    /// Appends one record with the page's `counts` (as many as the log's nodes, or none).
    pub fn push(&mut self, d: Decision, counts: &[u16]) {
        self.count(&d);
        if self.records.len() == self.capacity {
            if self.sink.is_none() {
                self.summary.dropped += 1;
                return;
            }
            self.flush();
        }
        if self.records.len() == self.records.capacity() {
            // Grown by doubling up to the capacity, never past it.
            let more = self.records.len().max(16).min(self.capacity - self.records.len());
            self.records.reserve_exact(more);
            self.counts.reserve_exact(more * self.nodes);
        }
        self.records.push(d);
        let row = self.counts.len();
        self.counts.resize(row + self.nodes, 0);
        let n = counts.len().min(self.nodes);
        self.counts[row..row + n].copy_from_slice(&counts[..n]);
    }

    fn count(&mut self, d: &Decision) {
        let s = &mut self.summary;
        s.records += 1;
        match d.tier {
            "promotion" => s.promotions += 1,
            "demotion" => s.demotions += 1,
            "promotion-failure" => s.promotion_failures += 1,
            _ => {}
        }
        self.cost_ps = self.cost_ps.saturating_add(d.cost_ps);
        if d.background {
            self.background_ps = self.background_ps.saturating_add(d.cost_ps);
        }
        if d.action != "migrate" || d.from == d.to || d.from == u8::MAX {
            return;
        }
        let p = d.page as usize;
        if self.left.len() <= p {
            self.left.resize(p + 1, u8::MAX);
            self.returned.resize(p + 1, false);
        }
        if self.left[p] == d.to {
            s.returns += 1;
            if !self.returned[p] {
                self.returned[p] = true;
                s.pages_returned += 1;
            }
        }
        self.left[p] = d.from;
    }

    /// Hands the buffer to the sink (if any, and none failed) and empties it.
    fn flush(&mut self) {
        let Some(sink) = self.sink.as_mut() else { return };
        if self.error.is_none() && !self.records.is_empty() {
            let batch = Batch { records: &self.records, counts: &self.counts, nodes: self.nodes, regions: &self.regions };
            match sink.write(&batch) {
                Ok(()) => self.summary.written += self.records.len() as u64,
                Err(e) => self.error = Some(e),
            }
        }
        self.records.clear();
        self.counts.clear();
    }

    /// A sink's failure, taken (the run ends with it).
    pub fn take_error(&mut self) -> Option<SimError> {
        self.error.take()
    }

    /// Ends the log: the last batch written, the summary complete. Returns the records kept
    /// (all of a log without a sink that never filled; none of a streaming one).
    ///
    /// # Errors
    /// The sink's first failure.
    pub fn finish(mut self) -> Result<(LogSummary, Kept), SimError> {
        self.flush();
        if let (Some(sink), None) = (self.sink.as_mut(), &self.error) {
            self.error = sink.finish().err();
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let mut summary = self.summary;
        if self.sink.is_none() {
            summary.written = self.records.len() as u64;
        }
        summary.cost_ns = self.cost_ps as f64 / 1000.0;
        summary.background_cost_ns = self.background_ps as f64 / 1000.0;
        Ok((summary, Kept { records: self.records, counts: self.counts, nodes: self.nodes, regions: self.regions }))
    }

    /// Bytes the log holds now (its buffers' capacities and the per-page return state).
    pub fn bytes(&self) -> usize {
        self.records.capacity() * std::mem::size_of::<Decision>() + self.counts.capacity() * 2 + self.left.capacity() + self.returned.capacity()
    }
}

/// The records a log kept, owned: what a run returns for its caller to write.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Kept {
    pub records: Vec<Decision>,
    pub counts: Vec<u16>,
    pub nodes: usize,
    pub regions: Vec<String>,
}

impl Kept {
    /// The kept records as one batch.
    pub fn batch(&self) -> Batch<'_> {
        Batch { records: &self.records, counts: &self.counts, nodes: self.nodes, regions: &self.regions }
    }
}

/// The columns of a written log, in order (CSV header, JSON keys, Parquet schema).
pub const COLUMNS: [&str; 17] = [
    "time_ns", "page", "region", "from", "to", "action", "reason", "trigger", "tier", "measured", "value", "threshold", "limit",
    "queue_from_ns", "queue_to_ns", "cost_ns", "background",
];

/// A file sink: CSV (with a header) or JSON Lines, each record one line, written as batches
/// come (`counts` last, space-separated in CSV, a list in JSON).
pub struct LineSink<W: std::io::Write + Send> {
    out: W,
    csv: bool,
    started: bool,
    path: std::path::PathBuf,
}

impl<W: std::io::Write + Send> LineSink<W> {
    pub fn new(out: W, csv: bool, path: &std::path::Path) -> Self {
        LineSink { out, csv, started: false, path: path.to_path_buf() }
    }

}

/// A value as CSV writes it: quoted when it holds a comma, quote or line break.
fn csv_field(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\"")).into()
    } else {
        s.into()
    }
}

/// A float as the log writes it: NaN as empty (CSV) or null (JSON).
fn num(x: f64, csv: bool) -> String {
    match (x.is_finite(), csv) {
        (true, _) => x.to_string(),
        (false, true) => String::new(),
        (false, false) => "null".into(),
    }
}

/// A node as the log writes it (`u8::MAX`, none: empty or null).
fn node(n: u8, csv: bool) -> String {
    match (n, csv) {
        (u8::MAX, true) => String::new(),
        (u8::MAX, false) => "null".into(),
        (n, _) => n.to_string(),
    }
}

impl<W: std::io::Write + Send> DecisionSink for LineSink<W> {
    fn write(&mut self, batch: &Batch<'_>) -> Result<(), SimError> {
        use std::fmt::Write as _;
        let mut text = String::new();
        if self.csv && !self.started {
            let _ = writeln!(text, "{},counts", COLUMNS.join(","));
        }
        self.started = true;
        for (i, d) in batch.records.iter().enumerate() {
            let region = batch.regions.get(d.region as usize).map_or("", String::as_str);
            let (measured, value, threshold, limit) = d.evidence.map_or(("", f64::NAN, "", f64::NAN), |e| (e.measured, e.value, e.threshold, e.limit));
            let counts = batch.counts_of(i);
            let c = self.csv;
            if c {
                let counts: Vec<String> = counts.iter().map(u16::to_string).collect();
                let _ = writeln!(
                    text,
                    "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                    d.time_ps as f64 / 1000.0, d.page, csv_field(region), node(d.from, c), node(d.to, c), d.action, csv_field(d.reason), d.trigger.name(), d.tier,
                    measured, num(value, c), threshold, num(limit, c), num(d.queue_from_ps / 1000.0, c), num(d.queue_to_ps / 1000.0, c),
                    d.cost_ps as f64 / 1000.0, d.background, counts.join(" "),
                );
            } else {
                let s = |x: &str| serde_json::to_string(x).expect("strings serialise");
                let opt = |x: &str| if x.is_empty() { "null".to_string() } else { s(x) };
                let counts: Vec<String> = counts.iter().map(u16::to_string).collect();
                let _ = writeln!(
                    text,
                    "{{\"time_ns\":{},\"page\":{},\"region\":{},\"from\":{},\"to\":{},\"action\":{},\"reason\":{},\"trigger\":{},\"tier\":{},\"measured\":{},\"value\":{},\"threshold\":{},\"limit\":{},\"queue_from_ns\":{},\"queue_to_ns\":{},\"cost_ns\":{},\"background\":{},\"counts\":[{}]}}",
                    num(d.time_ps as f64 / 1000.0, c), d.page, s(region), node(d.from, c), node(d.to, c), s(d.action), s(d.reason), s(d.trigger.name()), s(d.tier),
                    opt(measured), num(value, c), opt(threshold), num(limit, c), num(d.queue_from_ps / 1000.0, c), num(d.queue_to_ps / 1000.0, c),
                    num(d.cost_ps as f64 / 1000.0, c), d.background, counts.join(","),
                );
            }
        }
        self.out.write_all(text.as_bytes()).map_err(|e| SimError::io(&self.path, e))
    }

    fn finish(&mut self) -> Result<(), SimError> {
        if self.csv && !self.started {
            // A log without a record still has its header.
            self.started = true;
            let header = format!("{},counts\n", COLUMNS.join(","));
            self.out.write_all(header.as_bytes()).map_err(|e| SimError::io(&self.path, e))?;
        }
        self.out.flush().map_err(|e| SimError::io(&self.path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::{run_on_logged, LogTo, RunConfig};
    use std::sync::{Arc, Mutex};

    fn record(page: u32, from: u8, to: u8) -> Decision {
        Decision {
            time_ps: u64::from(page) * 1000,
            page,
            region: 0,
            from,
            to,
            action: "migrate",
            reason: "test",
            trigger: Trigger::Timer,
            tier: "",
            evidence: None,
            queue_from_ps: f64::NAN,
            queue_to_ps: f64::NAN,
            cost_ps: 10,
            background: page % 2 == 0,
        }
    }

    fn regions() -> Vec<Region> {
        vec![Region { name: "a".into(), first_page: 0, pages: 10 }, Region { name: "b".into(), first_page: 10, pages: 10 }]
    }

    /// Batches as a sink saw them: their lengths and pages.
    #[derive(Default)]
    struct Seen {
        batches: Vec<usize>,
        pages: Vec<u32>,
    }

    struct Collect(Arc<Mutex<Seen>>);

    impl DecisionSink for Collect {
        fn write(&mut self, batch: &Batch<'_>) -> Result<(), SimError> {
            let mut s = self.0.lock().unwrap();
            s.batches.push(batch.records.len());
            s.pages.extend(batch.records.iter().map(|r| r.page));
            Ok(())
        }
    }

    #[test]
    fn a_log_without_a_sink_keeps_its_first_records_and_counts_the_rest() {
        let mut log = DecisionLog::keeping(4, &regions(), 2);
        for p in 0..10 {
            log.push(record(p, 0, 1), &[1, 2]);
        }
        // Bounded: four records and their counts, whatever was pushed.
        assert_eq!((log.records.capacity(), log.counts.capacity()), (4, 8));
        let (s, kept) = log.finish().unwrap();
        assert_eq!((s.records, s.written, s.dropped, s.capacity), (10, 4, 6, 4));
        assert_eq!(kept.records.iter().map(|r| r.page).collect::<Vec<_>>(), [0, 1, 2, 3]);
        assert_eq!(kept.batch().counts_of(3), [1, 2]);
        assert_eq!((s.cost_ns, s.background_cost_ns), (0.1, 0.05));
    }

    #[test]
    fn a_streaming_log_hands_on_batches_of_its_capacity_and_holds_no_more() {
        let seen = Arc::new(Mutex::new(Seen::default()));
        let mut log = DecisionLog::streaming(4, Box::new(Collect(seen.clone())), &regions(), 0);
        for p in 0..10 {
            log.push(record(p, 0, 1), &[]);
            assert!(log.records.capacity() <= 4);
        }
        let (s, kept) = log.finish().unwrap();
        assert_eq!((s.records, s.written, s.dropped), (10, 10, 0));
        assert!(kept.records.is_empty());
        let seen = seen.lock().unwrap();
        assert_eq!(seen.batches, [4, 4, 2]);
        assert_eq!(seen.pages, (0..10).collect::<Vec<_>>());
    }

    #[test]
    fn returns_count_a_page_moved_back_to_the_node_it_just_left() {
        let mut log = DecisionLog::keeping(16, &regions(), 0);
        for (from, to) in [(0, 1), (1, 0), (0, 1), (1, 2)] {
            log.push(record(3, from, to), &[]);
        }
        log.push(record(12, 0, 1), &[]);
        assert_eq!(log.region_of(12), 1);
        let (s, _) = log.finish().unwrap();
        assert_eq!((s.returns, s.pages_returned), (2, 1));
    }

    #[test]
    fn a_csv_log_quotes_what_needs_it_and_has_its_header_when_empty() {
        let mut out = Vec::new();
        let mut sink = LineSink::new(&mut out, true, std::path::Path::new("x.csv"));
        sink.finish().unwrap();
        drop(sink);
        assert_eq!(String::from_utf8(out).unwrap(), format!("{},counts\n", COLUMNS.join(",")));
        assert_eq!(csv_field("a,b \"c\""), "\"a,b \"\"c\"\"\"");
    }

    fn tiered_run() -> RunConfig {
        RunConfig {
            machine: "cxl-1to8".into(),
            workload: "gups:pages=65536,iterations=2,updates=8192".into(),
            threads: 8,
            dynamic: Some("tpp:scan_delay_ms=0.1,scan_period_ms=1,max_scan_mb_per_s=1000000".into()),
            ..RunConfig::default()
        }
    }

    #[test]
    fn a_run_logs_the_same_whether_kept_or_streamed_and_the_result_is_unchanged() {
        let cfg = tiered_run();
        let machine = crate::presets::load_machine(&cfg.machine).unwrap();
        let plain = run_on_logged(&machine, &cfg, &mut |_| true, LogTo::Off).unwrap();
        assert!(plain.decisions.is_none() && plain.result.decision_log.is_none());
        let kept = run_on_logged(&machine, &cfg, &mut |_| true, LogTo::Keep(1 << 20)).unwrap();
        let seen = Arc::new(Mutex::new(Seen::default()));
        let streamed = run_on_logged(&machine, &cfg, &mut |_| true, LogTo::Stream(256, Box::new(Collect(seen.clone())))).unwrap();
        let small = run_on_logged(&machine, &cfg, &mut |_| true, LogTo::Keep(100)).unwrap();
        let (k, s, b) = (kept.result.decision_log.clone().unwrap(), streamed.result.decision_log.clone().unwrap(), small.result.decision_log.clone().unwrap());
        assert!(k.records > 1000 && k.demotions > 0, "{k:?}");
        assert_eq!((k.records, k.dropped), (s.records, 0));
        assert_eq!((b.records, b.written, b.dropped), (k.records, 100, k.records - 100));
        assert_eq!(k.promotions + k.demotions, plain.result.migrations);
        let pages: Vec<u32> = kept.decisions.unwrap().records.iter().map(|r| r.page).collect();
        assert_eq!(seen.lock().unwrap().pages, pages);
        assert!(seen.lock().unwrap().batches.iter().all(|&n| n <= 256));
        // The log changes nothing of the run.
        let strip = |mut r: crate::run::SimResult| {
            r.decision_log = None;
            r.to_json()
        };
        assert_eq!(strip(kept.result), plain.result.to_json());
        assert_eq!(strip(streamed.result), plain.result.to_json());
    }
}
