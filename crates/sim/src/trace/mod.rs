//! Traces: workloads recorded to a file and replayed.
//!
//! The binary format (`docs/trace-format.md` specifies it byte by byte) is a small header with
//! the page and line size, the thread count, the region table and free-form metadata, followed
//! by LZ4-compressed blocks of items (epoch starts, `(thread, page, reads, writes)` records,
//! epoch ends), each block with a CRC-32 of its contents. A reader holds one block and one
//! epoch at a time. A small text form carries the same content for hand-written cases.
//!
//! Every malformed input is an error naming the file, the byte offset (or line) and what was
//! expected; the reader never panics and never trusts a length it has not checked.

mod binary;
pub mod line;
pub mod objects;
mod text;

pub use binary::{export, BinaryTrace, TraceWriter};
pub use text::{write_text, TextTrace};

use numaplace_model::error::shown_path;
use crate::error::SimError;
use crate::workload::{Epoch, Workload, WorkloadCtx, WorkloadInfo};
use numaplace_model::spec::{ParamDecl, ParamKind, Resolved};
use numaplace_model::ModelError;
use numaplace_model::Region;
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;
use std::sync::Mutex;

/// The file's first eight bytes.
pub const MAGIC: &[u8; 8] = b"NUMAPTRC";
/// The first line of the text form.
pub const TEXT_MAGIC: &str = "numaplace-trace";
/// The format version of page-level traces, which this code reads and writes.
pub const VERSION: u16 = 1;
/// The format version of line-level traces ([`line`]), which this code reads and writes.
pub const VERSION_LINE: u16 = 2;

/// The largest iteration number a trace may carry (and the largest `iterations` metadata
/// value). A run keeps a few numbers per iteration (its time, its traffic), indexed by the
/// iteration number, so this bounds that memory whatever the number of epochs: without it a
/// 184-byte trace whose iteration jumps to 10^7 took a gigabyte.
pub const MAX_ITERATION: u32 = numaplace_model::spec::MAX_ITERATIONS as u32;
/// The most regions a trace header may declare: checked before the region table is
/// allocated, so that a header cannot demand memory in proportion to a count it states.
pub const MAX_REGIONS: usize = 1 << 16;
/// The largest think time a thread may have in one epoch, in nanoseconds (about 17 minutes):
/// larger values would overflow the timing model's picoseconds and were silently capped.
pub const MAX_THINK_NS: f64 = 1e12;
/// The largest binary header body a reader accepts, in bytes.
pub const MAX_HEADER_BYTES: usize = 16 * 1024 * 1024;
/// The most transactions the records of one epoch (of a binary trace; of the whole trace, for
/// the text form, held whole) may expand to beyond one per record. A record of more than
/// 65,535 lines becomes several transactions: up to 65,537 for one of 2^32 lines, so a few
/// bytes of file could otherwise demand half a megabyte each. A writer never writes such
/// records (it splits counts itself), so this bounds only crafted traces: 2^24 extra
/// transactions are 128 MiB.
pub const MAX_SPLIT_TRANSACTIONS: u64 = 1 << 24;

/// What a trace says about itself before its epochs.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceHeader {
    pub page_size: u64,
    pub line_size: u64,
    pub threads: usize,
    pub regions: Vec<Region>,
    /// Free-form `key = value` metadata: `source` (the workload spec), `init`, `seed`, ...
    pub meta: Vec<(String, String)>,
}

impl TraceHeader {
    /// A metadata value.
    pub fn meta(&self, key: &str) -> Option<&str> {
        self.meta.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Total pages of the address space.
    pub fn pages(&self) -> u64 {
        self.regions.last().map_or(0, |r| r.first_page as u64 + r.pages as u64)
    }

    /// Checks sizes and the region table; `at` names where the header was read from.
    pub(crate) fn validate(&self, at: &dyn Fn(String) -> SimError) -> Result<(), SimError> {
        if !self.page_size.is_power_of_two() || self.page_size < 512 {
            return Err(at(format!("page size {} is not a power of two >= 512", self.page_size)));
        }
        if !self.line_size.is_power_of_two() || self.line_size < 8 || self.line_size > self.page_size {
            return Err(at(format!("line size {} is not a power of two between 8 and the page size", self.line_size)));
        }
        if self.threads == 0 || self.threads > u16::MAX as usize {
            return Err(at(format!("thread count {} is not in 1..=65535", self.threads)));
        }
        if self.regions.is_empty() {
            return Err(at("no regions".into()));
        }
        if self.regions.len() > MAX_REGIONS {
            return Err(at(format!("{} regions: expected at most {MAX_REGIONS}", self.regions.len())));
        }
        if let Some(v) = self.meta("iterations") {
            check_iterations_meta(v).map_err(at)?;
        }
        let mut next = 0u64;
        for r in &self.regions {
            if r.first_page as u64 != next || r.pages == 0 {
                return Err(at(format!(
                    "region '{}' starts at page {} with {} pages; regions must be non-empty and follow each other from page 0 (expected start {next})",
                    r.name, r.first_page, r.pages
                )));
            }
            next += r.pages as u64;
        }
        if next > u32::MAX as u64 {
            return Err(at(format!("{next} pages exceed 2^32")));
        }
        Ok(())
    }
}

/// Checks the `iterations` metadata value: a whole number no larger than [`MAX_ITERATION`],
/// since a run sizes its per-iteration results by it.
pub(crate) fn check_iterations_meta(v: &str) -> Result<u32, String> {
    match v.parse::<u64>() {
        Ok(n) if n <= MAX_ITERATION as u64 => Ok(n as u32),
        _ => Err(format!("metadata iterations = {v}: expected an iteration count in 0..={MAX_ITERATION}")),
    }
}

/// Checks an epoch's iteration number against [`MAX_ITERATION`] and the previous epoch's
/// (`last`): the message gives the reason that applies, the bound first.
pub(crate) fn check_iteration(it: u64, last: u32) -> Result<u32, String> {
    if it > MAX_ITERATION as u64 {
        return Err(format!("iteration {it} exceeds the maximum iteration number {MAX_ITERATION}"));
    }
    if (it as u32) < last {
        return Err(format!("iteration {it} after iteration {last}: iterations must not decrease"));
    }
    Ok(it as u32)
}

/// Checks a think time, in ns: finite, not negative, at most [`MAX_THINK_NS`].
pub(crate) fn think_ok(ns: f64) -> bool {
    (0.0..=MAX_THINK_NS).contains(&ns)
}

/// A trace being replayed: a [`Workload`] whose epochs come from a file. Errors found while
/// reading end the epochs early and are kept for [`Workload::take_error`].
pub trait TraceSource: Workload {
    fn header(&self) -> &TraceHeader;
    /// The form the trace was read in.
    fn format(&self) -> Format;
}

/// Opens a trace file, binary or text (told apart by their first bytes). The file is opened
/// once: a pipe or a FIFO (`/dev/stdin`, the shell's `<(…)`) cannot be opened a second time,
/// so the first bytes that tell the forms apart are read from the same reader the trace is
/// then read from. A pipe whose header [`header`] read is handed back from there.
///
/// # Errors
/// A file that cannot be read, is neither form, or has a malformed header.
pub fn open(path: &Path) -> Result<Box<dyn TraceSource>, SimError> {
    if let Some(t) = pending::take(path) {
        return Ok(t);
    }
    let o = open_input(path)?;
    open_reader(o.format, o.input, &shown_path(path))
}

/// Reads a trace of `format` from `input`; `name` stands for the file in messages.
fn open_reader(format: Format, input: Box<dyn Read + Send>, name: &str) -> Result<Box<dyn TraceSource>, SimError> {
    match format {
        Format::Binary => Ok(Box::new(BinaryTrace::from_reader(input, name)?)),
        Format::Text => Ok(Box::new(TextTrace::from_reader(input, name)?)),
    }
}

/// The two forms of a trace file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Binary,
    Text,
}

impl Format {
    /// The word `trace info` prints.
    pub fn name(self) -> &'static str {
        match self {
            Format::Binary => "binary",
            Format::Text => "text",
        }
    }
}

/// Which form the file at `path` is in, from its first eight bytes. This opens the file: for
/// a pipe, whose bytes can be read only once, use [`open`] or [`info`] instead.
///
/// # Errors
/// An unreadable file, or neither magic.
pub fn sniff(path: &Path) -> Result<Format, SimError> {
    Ok(open_input(path)?.format)
}

/// An input opened once, its first bytes read and put back.
struct Opened {
    format: Format,
    /// A binary trace's version (the two bytes after the magic), if the file holds them.
    version: Option<u16>,
    /// The whole file, its first bytes included.
    input: Box<dyn Read + Send>,
}

/// Opens `path` once and tells its form from its first eight bytes (and a binary trace's
/// version from the next two), which stay in the returned reader (put back in front of the
/// rest of the file), so that nothing is read twice and a pipe works as a file does.
///
/// # Errors
/// An unreadable file, or neither magic.
fn open_input(path: &Path) -> Result<Opened, SimError> {
    let mut f = std::fs::File::open(path).map_err(|e| SimError::io(path, e))?;
    let mut first = [0u8; 10];
    let mut n = 0;
    // A short read is not the end of the file (a pipe hands over what its writer wrote so
    // far): read until 8 bytes or the end of the file.
    while n < first.len() {
        match f.read(&mut first[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(SimError::io(path, e)),
        }
    }
    let format = if n >= 8 && &first[..8] == MAGIC {
        Format::Binary
    } else if first[..n].starts_with(&TEXT_MAGIC.as_bytes()[..n.min(TEXT_MAGIC.len())]) && n > 0 {
        Format::Text
    } else {
        return Err(SimError::Trace {
            path: shown_path(path),
            at: "byte 0".into(),
            message: format!("expected the magic \"NUMAPTRC\" or a first line \"{TEXT_MAGIC} 1\""),
        });
    };
    let version = (format == Format::Binary && n == 10).then(|| u16::from_le_bytes([first[8], first[9]]));
    let input: Box<dyn Read + Send> = Box::new(std::io::Cursor::new(first[..n].to_vec()).chain(f));
    Ok(Opened { format, version, input })
}

/// The header of the trace at `path`, checked, without decoding its body (a text trace, the
/// form for small cases, is parsed whole).
///
/// A regular file is read again by the [`open`] that follows. A pipe or a FIFO cannot be:
/// its trace is opened here, once, and kept for the next [`open`] of the same path (the same
/// pipe), which takes it instead of opening the path again; so a run that reads a trace's
/// thread count from its header and then replays it works on a pipe too.
///
/// # Errors
/// As [`open`].
pub fn header(path: &Path) -> Result<TraceHeader, SimError> {
    if !pending::is_regular(path) {
        let t = open(path)?;
        let h = t.header().clone();
        pending::keep(path, t);
        return Ok(h);
    }
    let o = open_input(path)?;
    let name = shown_path(path);
    match o.format {
        Format::Binary => BinaryTrace::header_from_reader(o.input, &name),
        Format::Text => Ok(TextTrace::from_reader(o.input, &name)?.header().clone()),
    }
}

/// Traces from pipes whose header [`header`] read, kept for the [`open`] that follows.
mod pending {
    use super::TraceSource;
    use std::path::Path;
    use std::sync::Mutex;

    /// A pipe's identity: the device and inode `stat` gives through the path (the same for
    /// `/dev/stdin`, `/proc/self/fd/N` and a FIFO's name, without opening it).
    type Key = (u64, u64);

    /// At most this many are kept: a header read whose open never came is dropped after a
    /// few others, so the list cannot grow.
    const MAX_KEPT: usize = 4;

    static KEPT: Mutex<Vec<(Key, Box<dyn TraceSource>)>> = Mutex::new(Vec::new());

    fn key(path: &Path) -> Option<Key> {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }

    /// Whether `path` is a regular file (which can be opened and read again).
    pub(super) fn is_regular(path: &Path) -> bool {
        std::fs::metadata(path).map_or(true, |m| m.is_file())
    }

    pub(super) fn keep(path: &Path, t: Box<dyn TraceSource>) {
        let Some(k) = key(path) else { return };
        let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|(old, _)| *old != k);
        if kept.len() >= MAX_KEPT {
            kept.remove(0);
        }
        kept.push((k, t));
    }

    pub(super) fn take(path: &Path) -> Option<Box<dyn TraceSource>> {
        if is_regular(path) {
            return None;
        }
        let k = key(path)?;
        let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
        let i = kept.iter().position(|(old, _)| *old == k)?;
        Some(kept.remove(i).1)
    }
}

/// The name of the workload that replays a trace: `trace:file=PATH`.
pub const WORKLOAD: &str = "trace";

/// The trace workload's registry entry: a trace is a workload like the generated ones, whose
/// thread count, page and line size come from its header.
pub const INFO: WorkloadInfo = WorkloadInfo {
    name: WORKLOAD,
    doc: "replays a trace file (docs/trace-format.md); its header gives the thread count, page and line size",
    params: &[ParamDecl { name: "file", kind: ParamKind::Text, default: "", doc: "the trace file (binary or text form)" }],
    caps: (),
    build: build_workload,
};

fn build_workload(r: &Resolved, ctx: &WorkloadCtx) -> Result<Box<dyn Workload>, ModelError> {
    // The run itself opens traces through `run::simulate_on`, which keeps file and format
    // errors as such; this path serves export and inspection, whose errors are one line too.
    let as_model = |e: SimError| ModelError::Config(e.to_string());
    let path = Path::new(r.text("file"));
    if path.as_os_str().is_empty() {
        return Err(ModelError::Spec("workload 'trace': file= names no file".into()));
    }
    let fits = |h: &TraceHeader| check_fits(h, r.text("file"), "the machine", ctx.page_size, ctx.line_size, ctx.threads);
    // One open: the trace may come from a pipe.
    let t = open(path).map_err(as_model)?;
    fits(t.header())?;
    let w: Box<dyn Workload> = t;
    Ok(w)
}

/// Checks that a trace fits a run: its page and line size are the machine's (`machine` names
/// it in the message) and its thread count is the run's.
///
/// # Errors
/// [`ModelError::Config`] naming the file and the mismatch.
pub fn check_fits(h: &TraceHeader, path: &str, machine: &str, page_size: u64, line_size: u64, threads: usize) -> Result<(), ModelError> {
    let mismatch = |what: &str, trace: u64, run: u64, hint: &str| {
        Err(ModelError::Config(format!("{}: the trace's {what} is {trace} but {hint} {run}", shown_path(Path::new(path)))))
    };
    if h.page_size != page_size {
        return mismatch("page size", h.page_size, page_size, &format!("{machine} has"));
    }
    if h.line_size != line_size {
        return mismatch("line size", h.line_size, line_size, &format!("{machine} has"));
    }
    if h.threads != threads {
        return mismatch("thread count", h.threads as u64, threads as u64, "the run asks for");
    }
    Ok(())
}

pub(crate) fn intern(name: &str) -> Option<&'static str> {
    static NAMES: Mutex<Option<HashMap<String, &'static str>>> = Mutex::new(None);
    const MAX_NAMES: usize = 4096;
    let mut guard = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    let map = guard.get_or_insert_with(HashMap::new);
    if let Some(s) = map.get(name) {
        return Some(s);
    }
    if map.len() >= MAX_NAMES {
        return None;
    }
    let leaked: &'static str = Box::leak(name.to_string().into_boxed_str());
    map.insert(name.to_string(), leaked);
    Some(leaked)
}

/// Appends a record `(reads, writes)` of `page` to an epoch thread as transactions: the reads
/// first, then the writes, each split into counts that fit a transaction record.
pub(crate) fn push_record(epoch: &mut Epoch, thread: usize, page: u32, reads: u64, writes: u64) {
    binary::split_counts(&mut epoch.threads[thread].txns, page, reads, writes);
}

/// Summary of a trace, as `numaplace trace info` prints it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TraceInfo {
    pub format: &'static str,
    pub page_size: u64,
    pub line_size: u64,
    pub threads: usize,
    pub pages: u64,
    pub regions: Vec<(String, u32, u32)>,
    pub meta: Vec<(String, String)>,
    pub epochs: u64,
    pub iterations: u32,
    pub records: u64,
    pub transactions: u64,
    pub writes: u64,
    /// `(phase, epochs, transactions)` in order of first appearance.
    pub phases: Vec<(String, u64, u64)>,
}

/// Reads a whole trace and summarises it (streaming: one epoch in memory at a time).
///
/// # Errors
/// Any malformed part of the file.
pub fn info(path: &Path) -> Result<TraceInfo, SimError> {
    summarise(open(path)?)
}

/// A trace's summary, page-level or line-level: what `numaplace trace info` prints.
#[derive(Clone, Debug, serde::Serialize)]
#[serde(untagged)]
pub enum AnyInfo {
    Page(TraceInfo),
    Line(line::LineTraceInfo),
}

/// Reads the trace at `path`, of either level (a version 2 binary trace is line-level), and
/// summarises it. The file is opened once and its level told from the bytes read for its form,
/// so a pipe works (docs/trace-format.md, "Reading from pipes").
///
/// # Errors
/// Any malformed part of the file.
pub fn info_any(path: &Path) -> Result<AnyInfo, SimError> {
    if let Some(t) = pending::take(path) {
        return Ok(AnyInfo::Page(summarise(t)?));
    }
    let o = open_input(path)?;
    let name = shown_path(path);
    if o.version == Some(VERSION_LINE) {
        return Ok(AnyInfo::Line(line::info_from_reader(o.input, &name)?));
    }
    Ok(AnyInfo::Page(summarise(open_reader(o.format, o.input, &name)?)?))
}

/// Reads the rest of a page-level trace and summarises it.
fn summarise(mut t: Box<dyn TraceSource>) -> Result<TraceInfo, SimError> {
    let format = t.format().name();
    let h = t.header().clone();
    let mut epoch = Epoch::default();
    let (mut epochs, mut records, mut transactions, mut writes, mut iterations) = (0u64, 0u64, 0u64, 0u64, 0u32);
    let mut phases: Vec<(String, u64, u64)> = Vec::new();
    while t.next_epoch(&mut epoch) {
        epochs += 1;
        iterations = iterations.max(epoch.iteration);
        let mut tx = 0;
        for w in &epoch.threads {
            records += w.txns.len() as u64;
            for r in &w.txns {
                tx += r.count as u64;
                writes += if r.op == crate::workload::Op::Write { r.count as u64 } else { 0 };
            }
        }
        transactions += tx;
        match phases.iter_mut().find(|(p, _, _)| p == epoch.phase) {
            Some(p) => {
                p.1 += 1;
                p.2 += tx;
            }
            None => phases.push((epoch.phase.to_string(), 1, tx)),
        }
    }
    if let Some(e) = t.take_error() {
        return Err(e);
    }
    Ok(TraceInfo {
        format,
        page_size: h.page_size,
        line_size: h.line_size,
        threads: h.threads,
        pages: h.pages(),
        regions: h.regions.iter().map(|r| (r.name.clone(), r.first_page, r.pages)).collect(),
        meta: h.meta.clone(),
        epochs,
        iterations,
        records,
        transactions,
        writes,
        phases,
    })
}

#[cfg(test)]
mod tests;

/// Reads a whole trace from bytes (binary or text), as the fuzz target does: returns the
/// number of epochs, or the error.
#[doc(hidden)]
pub fn read_all_for_fuzz(bytes: &[u8]) -> Result<u64, SimError> {
    let mut t: Box<dyn TraceSource> = if bytes.starts_with(MAGIC) {
        Box::new(BinaryTrace::from_reader(Box::new(std::io::Cursor::new(bytes.to_vec())), "input")?)
    } else {
        Box::new(TextTrace::parse_bytes(bytes, "input")?)
    };
    let mut epoch = Epoch::default();
    let mut n = 0;
    while t.next_epoch(&mut epoch) {
        n += 1;
    }
    match t.take_error() {
        Some(e) => Err(e),
        None => Ok(n),
    }
}

/// Reads a whole text trace from bytes, as the `text_reader` fuzz target does: returns the
/// number of epochs, or the error (which names a line).
#[doc(hidden)]
pub fn read_text_for_fuzz(bytes: &[u8]) -> Result<u64, SimError> {
    let mut t = TextTrace::parse_bytes(bytes, "input")?;
    let mut epoch = Epoch::default();
    let mut n = 0;
    while t.next_epoch(&mut epoch) {
        n += 1;
    }
    Ok(n)
}
