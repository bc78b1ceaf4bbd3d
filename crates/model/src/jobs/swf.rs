//! The Standard Workload Format (SWF) of Feitelson's Parallel Workloads Archive
//! (<http://www.cs.huji.ac.il/labs/parallel/workload/swf.html>), the format seed 002's job
//! streams were written in (its reference [19]).
//!
//! A log is text: header comments (`;` lines, `; Key: value` for the keys the format defines),
//! then one line per job of [`FIELDS`] (18) whitespace-separated numbers, `-1` where a value is
//! unknown. [`parse`] reads the text a caller gives it (this crate does no I/O) into an
//! [`SwfLog`]: the header keys and one [`SwfRecord`] per job, every field typed. [`to_stream`]
//! turns the records into a [`JobStream`]: arrival = submit time, CPUs = requested processors
//! (the allocated ones where the request is unknown), workload = the executable (application)
//! number mapped through an [`AppMap`].
//!
//! Every number is an integer, except fields 6 (average CPU time used, seconds) and 7 (used
//! memory, KB), which some archive logs give with a fraction and are read as `f64`. A
//! malformed line is an error naming its line number (from 1) and the field, in one line:
//! `swf line 17: field 5 (allocated processors) is 'x', not an integer`. A blank line or a
//! comment is skipped wherever it is; text after a `;` that starts a job line is not allowed.

use super::{Job, JobOrigin, JobStream};
use crate::error::{shown, ModelError};
use crate::units::{Ps, MAX_TIME_PS};
use std::fmt;

/// Fields per job line.
pub const FIELDS: usize = 18;

/// The fields' names, in order (field `i + 1` of the format is `FIELD_NAMES[i]`).
pub const FIELD_NAMES: [&str; FIELDS] = [
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average CPU time used",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user id",
    "group id",
    "executable number",
    "queue number",
    "partition number",
    "preceding job number",
    "think time from preceding job",
];

/// The most job lines one log may hold (10 M; the archive's largest logs have a few million).
/// A [`SwfRecord`] is 144 bytes, so this bounds a parsed log near 1.4 GB.
pub const MAX_RECORDS: usize = 10_000_000;

/// The most processors one job may request or be allocated (2^20; the archive's largest
/// machine, ANL's Intrepid, has 163 840 cores).
pub const MAX_JOB_CPUS: u64 = 1 << 20;

/// The most jobs one stream may hold (1 M): every job of a stream is simulated, so a stream is
/// a window of a log ([`StreamOptions::first`], [`StreamOptions::limit`]), not a whole year.
pub const MAX_STREAM_JOBS: usize = 1 << 20;

/// A parse error: the line (from 1) and what was wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwfError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for SwfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "swf line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for SwfError {}

impl From<SwfError> for ModelError {
    fn from(e: SwfError) -> Self {
        ModelError::Config(e.to_string())
    }
}

/// One job line, every field typed; `-1` (or any negative value) means unknown, as the format
/// says.
#[derive(Clone, Debug, PartialEq)]
pub struct SwfRecord {
    /// The line of the log it came from (from 1).
    pub line: usize,
    /// 1. Job number.
    pub job: i64,
    /// 2. Submit time, seconds from the log's start (`UnixStartTime`).
    pub submit: i64,
    /// 3. Wait time, seconds.
    pub wait: i64,
    /// 4. Run time (wall clock), seconds.
    pub run: i64,
    /// 5. Number of allocated processors.
    pub allocated: i64,
    /// 6. Average CPU time used per processor, seconds.
    pub avg_cpu: f64,
    /// 7. Used memory per processor, KB.
    pub used_memory: f64,
    /// 8. Requested number of processors.
    pub requested: i64,
    /// 9. Requested time, seconds.
    pub requested_time: i64,
    /// 10. Requested memory per processor, KB.
    pub requested_memory: i64,
    /// 11. Status (1 completed, 0 failed, 5 cancelled; 2–4 parts of checkpointed jobs).
    pub status: i64,
    /// 12. User id.
    pub user: i64,
    /// 13. Group id.
    pub group: i64,
    /// 14. Executable (application) number.
    pub executable: i64,
    /// 15. Queue number.
    pub queue: i64,
    /// 16. Partition number.
    pub partition: i64,
    /// 17. Preceding job number.
    pub preceding: i64,
    /// 18. Think time from the preceding job, seconds.
    pub think: i64,
}

impl SwfRecord {
    /// The processors the job asked for: the request (field 8), or the allocation (field 5)
    /// where the request is unknown; `None` when neither is a positive number.
    pub fn cpus(&self) -> Option<u64> {
        [self.requested, self.allocated].into_iter().find(|&n| n > 0).map(|n| n as u64)
    }
}

/// The header keys a log declares. The integer keys the format defines are typed (a value
/// that is not an integer is an error naming its line); every other `; Key: value` comment is
/// kept as text in `other`, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SwfHeader {
    pub version: Option<String>,
    pub computer: Option<String>,
    pub installation: Option<String>,
    pub max_jobs: Option<i64>,
    pub max_records: Option<i64>,
    pub unix_start_time: Option<i64>,
    pub time_zone: Option<i64>,
    pub max_nodes: Option<i64>,
    pub max_procs: Option<i64>,
    pub max_runtime: Option<i64>,
    pub max_memory: Option<i64>,
    pub other: Vec<(String, String)>,
}

/// A parsed log.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SwfLog {
    pub header: SwfHeader,
    pub records: Vec<SwfRecord>,
}

/// The integer header keys the format defines.
const INT_KEYS: [&str; 8] = ["MaxJobs", "MaxRecords", "UnixStartTime", "TimeZone", "MaxNodes", "MaxProcs", "MaxRuntime", "MaxMemory"];

/// Reads one header comment (the text after `;`) into `h`. Only `Key: value` comments whose
/// key is one word starting with a capital letter are header keys (the format's keys are
/// capitalised words); a continuation line (`;   http://...`) or a blank `;` is free text.
fn header_line(h: &mut SwfHeader, text: &str, line: usize) -> Result<(), SwfError> {
    let text = text.trim();
    let Some((key, value)) = text.split_once(':') else { return Ok(()) };
    let key = key.trim();
    let is_key = key.chars().next().is_some_and(|c| c.is_ascii_uppercase()) && key.chars().all(|c| c.is_ascii_alphanumeric());
    if !is_key {
        return Ok(());
    }
    let value = value.trim();
    if INT_KEYS.contains(&key) {
        let v: i64 = value
            .parse()
            .map_err(|_| SwfError { line, message: format!("header {key} is '{}', not an integer", shown(value)) })?;
        set_int(h, key, v);
        return Ok(());
    }
    match key {
        "Version" => h.version = Some(value.to_string()),
        "Computer" => h.computer = Some(value.to_string()),
        "Installation" => h.installation = Some(value.to_string()),
        _ => h.other.push((key.to_string(), value.to_string())),
    }
    Ok(())
}

fn set_int(h: &mut SwfHeader, key: &str, v: i64) {
    match key {
        "MaxJobs" => h.max_jobs = Some(v),
        "MaxRecords" => h.max_records = Some(v),
        "UnixStartTime" => h.unix_start_time = Some(v),
        "TimeZone" => h.time_zone = Some(v),
        "MaxNodes" => h.max_nodes = Some(v),
        "MaxProcs" => h.max_procs = Some(v),
        "MaxRuntime" => h.max_runtime = Some(v),
        "MaxMemory" => h.max_memory = Some(v),
        _ => {}
    }
}


/// Parses a log's text.
///
/// # Errors
/// The first malformed line: a job line without exactly [`FIELDS`] fields, a field that is
/// not a number of its type, a processor count beyond [`MAX_JOB_CPUS`], more than
/// [`MAX_RECORDS`] job lines, or an integer header key (`MaxProcs`, `UnixStartTime`, ...)
/// whose value is not an integer. The error names the line and, for a field, its number and
/// name.
pub fn parse(text: &str) -> Result<SwfLog, SwfError> {
    let mut log = SwfLog::default();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            continue;
        }
        if let Some(comment) = trimmed.strip_prefix(';') {
            header_line(&mut log.header, comment, line)?;
            continue;
        }
        if log.records.len() == MAX_RECORDS {
            return Err(SwfError { line, message: format!("more than {MAX_RECORDS} job lines (the bound on one log)") });
        }
        log.records.push(record(trimmed, line)?);
    }
    Ok(log)
}

/// Parses one job line.
fn record(text: &str, line: usize) -> Result<SwfRecord, SwfError> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    if fields.len() != FIELDS {
        return Err(SwfError { line, message: format!("{} fields, expected {FIELDS}", fields.len()) });
    }
    let int = |i: usize| -> Result<i64, SwfError> {
        fields[i].parse::<i64>().map_err(|_| SwfError {
            line,
            message: format!("field {} ({}) is '{}', not an integer", i + 1, FIELD_NAMES[i], shown(fields[i])),
        })
    };
    let num = |i: usize| -> Result<f64, SwfError> {
        match fields[i].parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(SwfError {
                line,
                message: format!("field {} ({}) is '{}', not a number", i + 1, FIELD_NAMES[i], shown(fields[i])),
            }),
        }
    };
    let procs = |i: usize| -> Result<i64, SwfError> {
        let v = int(i)?;
        if v > MAX_JOB_CPUS as i64 {
            return Err(SwfError {
                line,
                message: format!("field {} ({}) is {v}, more than the bound of {MAX_JOB_CPUS} processors", i + 1, FIELD_NAMES[i]),
            });
        }
        Ok(v)
    };
    Ok(SwfRecord {
        line,
        job: int(0)?,
        submit: int(1)?,
        wait: int(2)?,
        run: int(3)?,
        allocated: procs(4)?,
        avg_cpu: num(5)?,
        used_memory: num(6)?,
        requested: procs(7)?,
        requested_time: int(8)?,
        requested_memory: int(9)?,
        status: int(10)?,
        user: int(11)?,
        group: int(12)?,
        executable: int(13)?,
        queue: int(14)?,
        partition: int(15)?,
        preceding: int(16)?,
        think: int(17)?,
    })
}

/// Which workload a job of a log runs, from its executable (application) number (field 14).
#[derive(Clone, Debug, PartialEq)]
pub enum AppMap {
    /// Executable `a ≥ 1` runs `specs[(a − 1) mod specs.len()]`; an unknown executable (`-1`,
    /// or any number below 1) runs `specs[0]`.
    Cycle(Vec<String>),
    /// Executable `a` runs the spec paired with `a`; executables not listed, and unknown ones,
    /// run `default`.
    Table { pairs: Vec<(i64, String)>, default: String },
}

/// The default map: seed 002's four applications cycled by executable number (1 → `swim`,
/// 2 → `nas-bt`, 3 → `hydro2d`, 4 → `apsi`, 5 → `swim`, ...; unknown → `swim`).
pub const DEFAULT_APPS: [&str; 4] = ["swim", "nas-bt", "hydro2d", "apsi"];

impl Default for AppMap {
    fn default() -> Self {
        AppMap::Cycle(DEFAULT_APPS.iter().map(|s| s.to_string()).collect())
    }
}

impl AppMap {
    /// Parses the text form: entries separated by `;`. Either every entry is a workload spec
    /// (a [`AppMap::Cycle`], e.g. `swim;nas-bt:class=A`), or every entry is `N=SPEC` with `N` an
    /// executable number or `*` for the default, which must be present (a [`AppMap::Table`],
    /// e.g. `1=swim;7=apsi;*=nas-bt`). An entry is `N=SPEC` when the text before its first `=`
    /// is an integer or `*`.
    ///
    /// # Errors
    /// An empty map or entry, a mixture of the two forms, a table without `*`, or an
    /// executable number given twice; each names the map.
    pub fn parse(text: &str) -> Result<AppMap, ModelError> {
        let err = |what: String| ModelError::Spec(format!("application map '{}': {what}", shown(text)));
        let entries: Vec<&str> = text.split(';').map(str::trim).collect();
        if entries.iter().any(|e| e.is_empty()) {
            return Err(err("an empty entry (entries are separated by ';')".into()));
        }
        let keyed = |e: &str| -> Option<(String, String)> {
            let (k, v) = e.split_once('=')?;
            let k = k.trim();
            (k == "*" || k.parse::<i64>().is_ok()).then(|| (k.to_string(), v.trim().to_string()))
        };
        let keyed_count = entries.iter().filter(|e| keyed(e).is_some()).count();
        if keyed_count == 0 {
            return Ok(AppMap::Cycle(entries.iter().map(|e| e.to_string()).collect()));
        }
        if keyed_count != entries.len() {
            return Err(err("mixes N=SPEC entries with plain specs; use one form".into()));
        }
        let mut pairs: Vec<(i64, String)> = Vec::new();
        let mut default = None;
        for (k, v) in entries.iter().filter_map(|e| keyed(e)) {
            if v.is_empty() {
                return Err(err(format!("entry '{k}=' has no workload")));
            }
            if k == "*" {
                if default.replace(v).is_some() {
                    return Err(err("'*' given twice".into()));
                }
            } else {
                let a: i64 = k.parse().expect("checked above");
                if pairs.iter().any(|(b, _)| *b == a) {
                    return Err(err(format!("executable {a} given twice")));
                }
                pairs.push((a, v));
            }
        }
        let default = default.ok_or_else(|| err("no '*=SPEC' entry for the executables not listed".into()))?;
        Ok(AppMap::Table { pairs, default })
    }

    /// The workload spec of executable number `executable`.
    pub fn workload(&self, executable: i64) -> &str {
        match self {
            AppMap::Cycle(specs) if specs.is_empty() => "",
            AppMap::Cycle(specs) => {
                let i = if executable >= 1 { ((executable - 1) as u64 % specs.len() as u64) as usize } else { 0 };
                &specs[i]
            }
            AppMap::Table { pairs, default } => {
                pairs.iter().find(|(a, _)| *a == executable).map_or(default.as_str(), |(_, s)| s.as_str())
            }
        }
    }
}

/// Which records of a log become the stream, and what they run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StreamOptions {
    /// Records to skip first (in log order).
    pub first: usize,
    /// The most jobs to take after them (`None`: to the end of the log).
    pub limit: Option<usize>,
    /// The workload of each executable number.
    pub apps: AppMap,
    /// The machine's CPUs: a job asking for more runs on them all, and is listed in
    /// [`SwfStream::clamped`] (`None`: no bound; a request of up to 2^20 builds that many
    /// threads' state).
    pub max_cpus: Option<u32>,
}

/// A stream and what was left out of it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SwfStream {
    pub stream: JobStream,
    /// Lines of records in the window that have no processor count (neither requested nor
    /// allocated is positive: cancelled before they started, in the archive's logs) and were
    /// left out.
    pub skipped: Vec<usize>,
    /// Jobs that asked for more than [`StreamOptions::max_cpus`] and run on that many: (line,
    /// job number, processors asked for).
    pub clamped: Vec<(usize, i64, u64)>,
}

/// Converts the window of `log` that `opts` selects into a job stream. Arrival is the submit
/// time (field 2) minus the window's earliest submit time, so the stream starts at 0; CPUs are
/// [`SwfRecord::cpus`]; the workload is `opts.apps` of the executable number (field 14). Jobs
/// are sorted by arrival (a log is sorted by submit time already; ties keep log order) and
/// numbered from 0. Records without a processor count are skipped and listed.
///
/// # Errors
/// A record in the window with an unknown (negative) submit time, an arrival beyond the
/// simulator's clock ([`MAX_TIME_PS`], 53 days: choose a window of the log), a window of more
/// than [`MAX_STREAM_JOBS`] jobs, or an application map with no workload. Each names the
/// record's line.
pub fn to_stream(log: &SwfLog, opts: &StreamOptions) -> Result<SwfStream, ModelError> {
    if matches!(&opts.apps, AppMap::Cycle(v) if v.is_empty()) {
        return Err(ModelError::Spec("application map: no workload given".into()));
    }
    let window = log.records.iter().skip(opts.first).take(opts.limit.unwrap_or(usize::MAX));
    let mut picked: Vec<(&SwfRecord, u64)> = Vec::new();
    let mut skipped = Vec::new();
    let mut clamped = Vec::new();
    for r in window {
        if r.submit < 0 {
            return Err(SwfError { line: r.line, message: format!("field 2 (submit time) is {}: unknown, so the job has no arrival", r.submit) }.into());
        }
        match r.cpus() {
            Some(c) if opts.max_cpus.is_some_and(|m| c > u64::from(m)) => {
                clamped.push((r.line, r.job, c));
                picked.push((r, u64::from(opts.max_cpus.unwrap_or_default())));
            }
            Some(c) => picked.push((r, c)),
            None => skipped.push(r.line),
        }
    }
    if picked.len() > MAX_STREAM_JOBS {
        return Err(ModelError::Config(format!(
            "swf: {} jobs selected, more than the bound of {MAX_STREAM_JOBS} per stream (choose a window: first, limit)",
            picked.len()
        )));
    }
    let start = picked.iter().map(|(r, _)| r.submit).min().unwrap_or(0);
    const PS_PER_S: u64 = 1_000_000_000_000;
    let max_s = MAX_TIME_PS / PS_PER_S;
    let mut jobs = Vec::with_capacity(picked.len());
    for (r, cpus) in picked {
        let rel = (r.submit - start) as u64;
        if rel > max_s {
            return Err(SwfError {
                line: r.line,
                message: format!(
                    "field 2 (submit time) is {rel} s after the window's first job, beyond the simulator's clock bound of {max_s} s (choose a window: first, limit)"
                ),
            }
            .into());
        }
        let arrival: Ps = rel * PS_PER_S;
        let origin = Some(JobOrigin { line: r.line, number: r.job });
        jobs.push(Job { id: 0, arrival, cpus: cpus as u32, workload: opts.apps.workload(r.executable).to_string(), origin });
    }
    Ok(SwfStream { stream: JobStream::from_jobs(jobs), skipped, clamped })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = "1 0 10 100 4 50.5 -1 8 3600 -1 1 5 2 3 1 0 -1 -1";

    #[test]
    fn a_job_asking_for_more_than_the_machine_runs_on_all_of_it_and_is_listed() {
        let log = parse("1 0 10 100 4 -1 -1 8 -1 -1 1 5 2 3 1 0 -1 -1\n2 5 10 100 -1 -1 -1 65536 -1 -1 1 5 2 3 1 0 -1 -1").unwrap();
        let s = to_stream(&log, &StreamOptions { max_cpus: Some(64), ..StreamOptions::default() }).unwrap();
        assert_eq!(s.stream.jobs.iter().map(|j| j.cpus).collect::<Vec<_>>(), vec![8, 64]);
        assert_eq!(s.clamped, vec![(2, 2, 65536)]);
        // Without a bound the request stands.
        let s = to_stream(&log, &StreamOptions::default()).unwrap();
        assert_eq!((s.stream.jobs[1].cpus, s.clamped.len()), (65536, 0));
    }

    #[test]
    fn a_line_reads_every_field() {
        let log = parse(LINE).unwrap();
        let r = &log.records[0];
        assert_eq!((r.line, r.job, r.submit, r.wait, r.run, r.allocated), (1, 1, 0, 10, 100, 4));
        assert_eq!((r.avg_cpu, r.used_memory, r.requested, r.requested_time), (50.5, -1.0, 8, 3600));
        assert_eq!((r.requested_memory, r.status, r.user, r.group, r.executable), (-1, 1, 5, 2, 3));
        assert_eq!((r.queue, r.partition, r.preceding, r.think), (1, 0, -1, -1));
        assert_eq!(r.cpus(), Some(8));
    }

    #[test]
    fn header_keys_are_typed_and_free_text_ignored() {
        let text = "; Version: 2.2\n; Computer: Intel iPSC/860\n;    http://example\n;\n; MaxProcs: 128\n; UnixStartTime: 749458803\n; Note: x: y\n";
        let h = parse(text).unwrap().header;
        assert_eq!(h.version.as_deref(), Some("2.2"));
        assert_eq!(h.computer.as_deref(), Some("Intel iPSC/860"));
        assert_eq!((h.max_procs, h.unix_start_time), (Some(128), Some(749458803)));
        assert_eq!(h.other, vec![("Note".to_string(), "x: y".to_string())]);
        let e = parse("; MaxProcs: many\n").unwrap_err();
        assert_eq!(e.to_string(), "swf line 1: header MaxProcs is 'many', not an integer");
    }

    #[test]
    fn app_maps_parse_and_map() {
        let c = AppMap::parse("swim;nas-bt:class=A").unwrap();
        assert_eq!((c.workload(1), c.workload(2), c.workload(3), c.workload(-1)), ("swim", "nas-bt:class=A", "swim", "swim"));
        let t = AppMap::parse("1=swim; 7=apsi ;*=nas-bt:class=W").unwrap();
        assert_eq!((t.workload(1), t.workload(7), t.workload(2), t.workload(-1)), ("swim", "apsi", "nas-bt:class=W", "nas-bt:class=W"));
        let d = AppMap::default();
        assert_eq!((d.workload(1), d.workload(4), d.workload(5), d.workload(-1)), ("swim", "apsi", "swim", "swim"));
        for (text, what) in [
            ("", "empty entry"),
            ("swim;;apsi", "empty entry"),
            ("1=swim;apsi", "mixes"),
            ("1=swim;2=apsi", "no '*=SPEC'"),
            ("1=swim;1=apsi;*=x", "executable 1 given twice"),
            ("*=a;*=b", "'*' given twice"),
            ("1=;*=a", "no workload"),
        ] {
            let e = AppMap::parse(text).unwrap_err().to_string();
            assert!(e.starts_with("application map '") && e.contains(what) && !e.contains('\n'), "{text}: {e}");
        }
    }
}
