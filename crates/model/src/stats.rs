//! The schema of the stats file the Linux runtime (`libnumaplace`) writes at exit: declared
//! once, here, as serde structs ([`StatsFile`], [`RegionStats`], [`EpochStats`]) and as data
//! ([`FILE`], [`REGION`], [`EPOCH`]: every field with its kind, whether it may be null, and its
//! doc).
//!
//! The runtime serialises a [`StatsFile`]; the Python package checks files against the tables
//! (`_native.stats_schema()`), so a reader never keeps its own key list. A test in the runtime
//! crate serialises a real run and checks its keys and values against the tables. The schema
//! lives in the model crate because both the runtime and the Python extension reach it, and
//! the extension must not link the runtime (its allocation interposers would be exported).
//! Plain data: no I/O.

use serde::{Deserialize, Serialize};

/// The schema version, the value of the `numaplace_stats` key. A reader refuses other versions.
/// Version 2 replaced `time_sampling_s` (the sampler thread's time only) by the measured cost
/// of sampling: `faults_handled`, `fault_round_trip_ns`, `time_fault_handling_s`,
/// `time_revoking_s`. Version 3 added the per-thread view of that cost: `threads` (each
/// thread's faults and handler time) and `time_fault_critical_s` (the faults' cost on the
/// critical path, the wall-time estimate for a parallel program). Version 4 added memory
/// tiers: `tier` (each node's), `promotions` and `demotions` (moves between tiers),
/// `low_memory_events`, and `faults_forwarded` / `faults_dropped` (hinting faults handed to
/// a policy one by one).
pub const VERSION: u32 = 5;

/// A stats file: one run of one process under the runtime.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StatsFile {
    /// The schema version: [`VERSION`].
    pub numaplace_stats: u32,
    /// The program, as its `argv[0]`.
    pub program: String,
    pub pid: u32,
    /// NUMA nodes of the host: the length of every per-node list.
    pub nodes: u64,
    /// Each node's memory tier, 0 the fastest (the runtime's machine: `Machine::tier`).
    pub tier: Vec<u64>,
    /// Bytes per page of the managed regions.
    pub page_size: u64,
    /// The sample source used: `hinting-faults`, `perf_event` or `none`.
    pub source: String,
    /// Why that source (one line).
    pub source_reason: String,
    /// The placement spec.
    pub placement: String,
    /// The dynamic policy spec (`none` for no policy).
    pub dynamic: String,
    /// Every managed region: freed ones first, then those still mapped at exit.
    pub regions: Vec<RegionStats>,
    /// Pages of all regions per node before the runtime moved any.
    pub before: Vec<u64>,
    /// Pages of all regions per node at exit (or when freed).
    pub after: Vec<u64>,
    /// Samples taken (hinting faults or precise samples).
    pub faults_sampled: u64,
    /// Samples taken on the node holding the page.
    pub samples_local: u64,
    pub pages_moved: u64,
    /// Pages the kernel refused to move.
    pub move_failures: u64,
    /// Moves retried because a page was busy.
    pub busy_retries: u64,
    /// Pages placed on a nearer node than asked because the target was full.
    pub fallbacks: u64,
    /// Policy decisions taken.
    pub invocations: u64,
    /// Pages moved to a top-tier node from a slower tier (`Machine::is_toptier`).
    pub promotions: u64,
    /// Pages moved to a slower tier.
    pub demotions: u64,
    /// Times a node fell below its low watermark and the policy was told.
    pub low_memory_events: u64,
    /// Hinting faults handed to the policy one by one (`DynamicPolicy::on_fault`).
    pub faults_forwarded: u64,
    /// Hinting faults lost before the policy saw them (the runtime's queue was full).
    pub faults_dropped: u64,
    /// Hinting faults the runtime's handler took (a sample each, or a second thread's fault on
    /// a page being restored), in all the program's threads.
    pub faults_handled: u64,
    /// One hinting fault's round trip through the kernel (trap, signal delivery, `sigreturn`)
    /// outside the handler, nanoseconds: the median of a calibration in the process at
    /// start-up, on this machine and kernel; null when the runtime did not sample with hinting
    /// faults.
    pub fault_round_trip_ns: Option<f64>,
    /// Time inside the fault handler for hinting faults (restoring the page, counting the
    /// sample), summed over the program's threads, seconds.
    pub time_fault_handling_s: f64,
    /// The hinting faults' cost on the program's critical path, seconds: per sampling interval
    /// (a tick of the sampler thread, or a revocation of every page), the largest over the
    /// threads of that thread's faults × `fault_round_trip_ns` + its handler time in the
    /// interval, summed over the intervals. Equal to the sum over threads for one thread.
    pub time_fault_critical_s: f64,
    /// Every thread that took a hinting fault, in the order of the runtime's table.
    pub threads: Vec<ThreadStats>,
    /// Time the runtime spent revoking and reopening managed pages (`mprotect`, with the TLB
    /// shoot-downs it waits for) and draining precise samples, seconds.
    pub time_revoking_s: f64,
    /// Time spent moving pages, seconds.
    pub time_migrating_s: f64,
    /// Time from the runtime's start to the file's writing, seconds.
    pub wall_s: f64,
    /// One entry per policy decision, in order.
    pub epochs: Vec<EpochStats>,
    /// The dynamic policy's own statistics (`DynamicPolicy::report`), as `numaplace policies`
    /// declares them: name to number, null or list of numbers; empty without a policy.
    pub policy: std::collections::BTreeMap<String, Option<RecordValue>>,
}

/// A value of a [`Kind::Record`]: a statistic as a component reported it
/// ([`crate::report::StatValue`]; null where undefined).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RecordValue {
    Count(u64),
    Number(f64),
    Numbers(Vec<f64>),
}

/// A component's report as a record: its statistics by name.
pub fn record(report: &crate::report::Report) -> std::collections::BTreeMap<String, Option<RecordValue>> {
    use crate::report::StatValue;
    report
        .names()
        .filter_map(|n| {
            let v = match report.get(n)? {
                StatValue::Count(c) => Some(RecordValue::Count(*c)),
                StatValue::Number(x) => x.map(RecordValue::Number),
                StatValue::Numbers(xs) => xs.clone().map(RecordValue::Numbers),
            };
            Some((n.to_string(), v))
        })
        .collect()
}

/// One managed region of a [`StatsFile`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RegionStats {
    /// The name the program registered it under, or `malloc#N` for a preloaded allocation.
    pub name: String,
    /// Its first page's address (`0x...`); null when the program freed it before exit.
    pub address: Option<String>,
    pub bytes: u64,
    pub pages: u64,
    /// Pages per node before the runtime moved any.
    pub before: Vec<u64>,
    /// Pages per node at exit, or when freed.
    pub after: Vec<u64>,
}

/// One thread of a [`StatsFile`] that took hinting faults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThreadStats {
    /// Its thread id (`gettid()`); 0 pools the threads beyond the runtime's table (256).
    pub tid: u64,
    /// Hinting faults its handler took.
    pub faults: u64,
    /// Time inside the fault handler for them, seconds.
    pub handler_s: f64,
}

/// One policy decision of a [`StatsFile`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EpochStats {
    /// Seconds since the runtime started.
    pub t_s: f64,
    /// What triggered it: `migrate`, `timer`, `fault` (hinting faults handed to the policy),
    /// `low-memory`, `record`, `replay` or `undo`.
    pub kind: String,
    /// Samples the decision saw.
    pub samples: u64,
    /// The share of those samples taken on the node holding the page; null when unknown (the
    /// library writes 0 for a decision without samples).
    pub local_share: Option<f64>,
    pub moved: u64,
    /// Pages of all regions per node after the decision.
    pub per_node: Vec<u64>,
}

/// What a field's value is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// A JSON string.
    Text,
    /// A JSON integer (not a boolean).
    Integer,
    /// A JSON number (not a boolean).
    Number,
    /// A number in `[0, 1]`.
    Share,
    /// A list of page counts (non-negative integers), one per node.
    PerNode,
    /// A list of objects, each with these fields.
    List(&'static [Field]),
    /// An object of statistics a component declares itself: each value a number, null, or a
    /// list of numbers (`report::StatValue`).
    Record,
}

impl Kind {
    /// The kind's name in [`crate::stats`]'s exported table.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Text => "text",
            Kind::Integer => "integer",
            Kind::Number => "number",
            Kind::Share => "share",
            Kind::PerNode => "per-node",
            Kind::List(_) => "list",
            Kind::Record => "record",
        }
    }
}

/// One key of a stats-file object.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Field {
    pub name: &'static str,
    pub kind: Kind,
    /// Whether the value may be JSON null.
    pub nullable: bool,
    pub doc: &'static str,
}

const fn f(name: &'static str, kind: Kind, doc: &'static str) -> Field {
    Field { name, kind, nullable: false, doc }
}

const fn null(name: &'static str, kind: Kind, doc: &'static str) -> Field {
    Field { name, kind, nullable: true, doc }
}

/// The keys of a [`RegionStats`], in the order written.
pub const REGION: &[Field] = &[
    f("name", Kind::Text, "the name the program registered it under, or malloc#N for a preloaded allocation"),
    null("address", Kind::Text, "its first page's address (0x...); null when the program freed it before exit"),
    f("bytes", Kind::Integer, "bytes managed (whole pages)"),
    f("pages", Kind::Integer, "pages managed"),
    f("before", Kind::PerNode, "pages per node before the runtime moved any"),
    f("after", Kind::PerNode, "pages per node at exit, or when freed"),
];

/// The keys of a [`ThreadStats`], in the order written.
pub const THREAD: &[Field] = &[
    f("tid", Kind::Integer, "its thread id (gettid); 0 pools the threads beyond the runtime's table of 256"),
    f("faults", Kind::Integer, "hinting faults its handler took"),
    f("handler_s", Kind::Number, "time inside the fault handler for them, seconds"),
];

/// The keys of an [`EpochStats`], in the order written.
pub const EPOCH: &[Field] = &[
    f("t_s", Kind::Number, "seconds since the runtime started"),
    f("kind", Kind::Text, "what triggered the decision: migrate, timer, fault, low-memory, record, replay or undo"),
    f("samples", Kind::Integer, "samples the decision saw"),
    null("local_share", Kind::Share, "share of those samples taken on the node holding the page; null when unknown"),
    f("moved", Kind::Integer, "pages moved"),
    f("per_node", Kind::PerNode, "pages of all regions per node after the decision"),
];

/// The keys of a [`StatsFile`], in the order written.
pub const FILE: &[Field] = &[
    f("numaplace_stats", Kind::Integer, "the schema version"),
    f("program", Kind::Text, "the program, as its argv[0]"),
    f("pid", Kind::Integer, "its process id"),
    f("nodes", Kind::Integer, "NUMA nodes of the host: the length of every per-node list (at least 1)"),
    f("tier", Kind::PerNode, "each node's memory tier, 0 the fastest"),
    f("page_size", Kind::Integer, "bytes per page of the managed regions"),
    f("source", Kind::Text, "the sample source used: hinting-faults, perf_event or none"),
    f("source_reason", Kind::Text, "why that source"),
    f("placement", Kind::Text, "the placement spec"),
    f("dynamic", Kind::Text, "the dynamic policy spec (none for no policy)"),
    f("regions", Kind::List(REGION), "every managed region: freed ones first, then those mapped at exit"),
    f("before", Kind::PerNode, "pages of all regions per node before the runtime moved any"),
    f("after", Kind::PerNode, "pages of all regions per node at exit (or when freed)"),
    f("faults_sampled", Kind::Integer, "samples taken (hinting faults or precise samples)"),
    f("samples_local", Kind::Integer, "samples taken on the node holding the page"),
    f("pages_moved", Kind::Integer, "pages moved"),
    f("move_failures", Kind::Integer, "pages the kernel refused to move"),
    f("busy_retries", Kind::Integer, "moves retried because a page was busy"),
    f("fallbacks", Kind::Integer, "pages placed on a nearer node than asked because the target was full"),
    f("invocations", Kind::Integer, "policy decisions taken"),
    f("promotions", Kind::Integer, "pages moved to a top-tier node from a slower tier"),
    f("demotions", Kind::Integer, "pages moved to a slower tier"),
    f("low_memory_events", Kind::Integer, "times a node fell below its low watermark and the policy was told"),
    f("faults_forwarded", Kind::Integer, "hinting faults handed to the policy one by one (on_fault)"),
    f("faults_dropped", Kind::Integer, "hinting faults lost before the policy saw them (the runtime's queue was full)"),
    f("faults_handled", Kind::Integer, "hinting faults the runtime's handler took, in all the program's threads"),
    null(
        "fault_round_trip_ns",
        Kind::Number,
        "one hinting fault's kernel round trip (trap, signal delivery, sigreturn) outside the handler, ns: \
the median of a calibration in the process at start-up; null when not sampled by hinting faults",
    ),
    f("time_fault_handling_s", Kind::Number, "time inside the fault handler for hinting faults, summed over the program's threads, seconds"),
    f(
        "time_fault_critical_s",
        Kind::Number,
        "the hinting faults' cost on the critical path, seconds: per sampling interval, the largest over the threads of \
faults x fault_round_trip_ns + handler time, summed over intervals",
    ),
    f("threads", Kind::List(THREAD), "every thread that took a hinting fault: tid, faults, handler_s"),
    f("time_revoking_s", Kind::Number, "time the runtime spent revoking and reopening pages (mprotect) and draining precise samples, seconds"),
    f("time_migrating_s", Kind::Number, "time spent moving pages, seconds"),
    f("wall_s", Kind::Number, "time from the runtime's start to the file's writing, seconds"),
    f("epochs", Kind::List(EPOCH), "one entry per policy decision, in order"),
    f("policy", Kind::Record, "the dynamic policy's own statistics, as numaplace policies declares them (tpp's thrash, hemem's samples); empty without a policy"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_name_each_key_once() {
        for table in [FILE, REGION, EPOCH, THREAD] {
            let mut names: Vec<_> = table.iter().map(|f| f.name).collect();
            names.sort_unstable();
            let n = names.len();
            names.dedup();
            assert_eq!(names.len(), n, "a key twice in {table:?}");
        }
        assert_eq!(FILE[0].name, "numaplace_stats", "readers find the version first");
    }
}
