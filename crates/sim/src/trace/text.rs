//! The text trace form, for hand-written cases and tests. Line-oriented; `#` starts a comment.
//!
//! ```text
//! numaplace-trace 1
//! page_size 4096
//! line_size 64
//! threads 2
//! meta source hand-written
//! region a 0 4
//! region b 4 2
//! epoch 0 init
//! mlp 1 inf
//! think 1 10
//! 0 0 64 0
//! 1 4 0 64
//! end
//! ```
//!
//! After the header lines come epochs: `epoch ITERATION PHASE`, optional `mlp THREAD VALUE`
//! and `think THREAD NS` lines (defaults: `inf` and 0), records `THREAD PAGE READS WRITES`,
//! and `end`. `page_size`, `line_size` and `threads` are said once each, region names are
//! distinct, and an epoch's `mlp` and `think` lines come before its records. The whole file is
//! read at once (text traces are small: at most [`MAX_TEXT_BYTES`]).

use numaplace_model::error::{shown, shown_path};
use super::{
    check_iteration, check_iterations_meta, intern, push_record, think_ok, Format, TraceHeader, TraceSource, MAX_REGIONS,
    MAX_SPLIT_TRANSACTIONS, MAX_THINK_NS, TEXT_MAGIC, VERSION,
};
use crate::error::SimError;
use crate::workload::{Epoch, Op, Workload};
use numaplace_model::Region;
use std::collections::{HashMap, VecDeque};
use std::io::Read;
use std::path::Path;

/// The largest text trace read, in bytes: a text trace is held whole in memory, and a pipe
/// that never ends must not take all of it. Larger traces belong in the binary form.
pub const MAX_TEXT_BYTES: u64 = 256 * 1024 * 1024;

/// A text trace, parsed and held in memory.
pub struct TextTrace {
    header: TraceHeader,
    epochs: VecDeque<Epoch>,
    iterations: u32,
    /// The `iterations` metadata, if the writer gave it.
    declared: Option<u32>,
}

impl TextTrace {
    /// Reads and parses `path`.
    ///
    /// # Errors
    /// An unreadable file, or a malformed line (named by its number, with what was expected).
    pub fn open(path: &Path) -> Result<Self, SimError> {
        let file = std::fs::File::open(path).map_err(|e| SimError::io(path, e))?;
        Self::from_reader(Box::new(file), &shown_path(path))
    }

    /// Reads and parses a text trace from a byte stream (at most [`MAX_TEXT_BYTES`]); `origin`
    /// names it in errors.
    ///
    /// # Errors
    /// A read error, a stream beyond the size bound, or as [`TextTrace::parse_bytes`].
    pub fn from_reader(input: Box<dyn Read + Send>, origin: &str) -> Result<Self, SimError> {
        let mut bytes = Vec::new();
        input.take(MAX_TEXT_BYTES + 1).read_to_end(&mut bytes).map_err(|e| SimError::Io {
            path: origin.to_string(),
            message: format!("read error after {} bytes: {e}", bytes.len()),
        })?;
        if bytes.len() as u64 > MAX_TEXT_BYTES {
            return Err(SimError::Trace {
                path: origin.to_string(),
                at: format!("byte {MAX_TEXT_BYTES}"),
                message: format!("a text trace larger than {MAX_TEXT_BYTES} bytes: expected the binary form for traces this large"),
            });
        }
        Self::parse_bytes(&bytes, origin)
    }

    /// Parses trace bytes, which must be UTF-8; `origin` names them in errors.
    ///
    /// # Errors
    /// Invalid UTF-8 (named by its line and byte), or as [`TextTrace::parse`].
    pub fn parse_bytes(bytes: &[u8], origin: &str) -> Result<Self, SimError> {
        match std::str::from_utf8(bytes) {
            Ok(text) => Self::parse(text, origin),
            Err(e) => {
                let at = e.valid_up_to();
                let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
                Err(SimError::Trace {
                    path: origin.to_string(),
                    at: format!("line {line}"),
                    message: format!("invalid UTF-8 at byte {at}: expected text"),
                })
            }
        }
    }

    /// Parses trace text; `origin` names it in errors.
    ///
    /// # Errors
    /// A malformed line, named by its number, with what was expected.
    pub fn parse(text: &str, origin: &str) -> Result<Self, SimError> {
        let err = |line: usize, message: String| SimError::Trace {
            path: origin.to_string(),
            at: format!("line {line}"),
            message,
        };
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.split('#').next().unwrap_or("").trim()))
            .filter(|(_, l)| !l.is_empty());
        let (n, first) = lines.next().ok_or_else(|| err(1, format!("expected \"{TEXT_MAGIC} {VERSION}\", found an empty file")))?;
        if first != format!("{TEXT_MAGIC} {VERSION}") {
            return Err(err(n, format!("expected \"{TEXT_MAGIC} {VERSION}\", found \"{}\"", shown(first))));
        }
        let mut h = TraceHeader { page_size: 0, line_size: 0, threads: 0, regions: Vec::new(), meta: Vec::new() };
        let mut epochs = VecDeque::new();
        let mut current: Option<(Epoch, usize)> = None;
        let mut last_iteration = 0u32;
        let mut header_done = false;
        let mut pages = 0u64;
        // What is left of the trace's allowance of transactions beyond one per record.
        let mut split_left = MAX_SPLIT_TRANSACTIONS;
        // Where each once-only header line and each region name was first given.
        let mut said: HashMap<&str, usize> = HashMap::new();
        let mut region_lines: HashMap<&str, usize> = HashMap::new();
        for (n, line) in lines {
            let mut f = line.split_whitespace();
            let word = f.next().unwrap_or("");
            if !header_done && matches!(word, "epoch") {
                let path = origin.to_string();
                h.validate(&|m| SimError::Trace { path: path.clone(), at: format!("line {n}"), message: format!("header: {m}") })?;
                pages = h.pages();
                header_done = true;
            }
            if !header_done && matches!(word, "page_size" | "line_size" | "threads") {
                if let Some(first) = said.insert(word, n) {
                    return Err(err(n, format!("\"{}\" given twice (first on line {first})", shown(word))));
                }
            }
            match (word, header_done) {
                ("page_size", false) => h.page_size = num(f.next(), "a page size", n, &err)?,
                ("line_size", false) => h.line_size = num(f.next(), "a line size", n, &err)?,
                ("threads", false) => h.threads = num(f.next(), "a thread count", n, &err)?,
                ("meta", false) => {
                    let k = f.next().ok_or_else(|| err(n, "expected a metadata key".into()))?;
                    let v: Vec<&str> = f.collect();
                    let v = v.join(" ");
                    if k == "iterations" {
                        check_iterations_meta(&v).map_err(|m| err(n, m))?;
                    }
                    h.meta.push((k.to_string(), v));
                    continue;
                }
                ("region", false) => {
                    let name = f.next().ok_or_else(|| err(n, "expected a region name".into()))?;
                    // Checked before the region is kept: the table grows by one line at a time.
                    if h.regions.len() >= MAX_REGIONS {
                        return Err(err(n, format!("more than {MAX_REGIONS} regions")));
                    }
                    if let Some(first) = region_lines.insert(name, n) {
                        return Err(err(n, format!("region name \"{}\" given twice (first on line {first})", shown(name))));
                    }
                    let first_page = num(f.next(), "a first page", n, &err)?;
                    let count = num(f.next(), "a page count", n, &err)?;
                    h.regions.push(Region { name: name.to_string(), first_page, pages: count });
                }
                ("epoch", true) => {
                    if current.is_some() {
                        return Err(err(n, "expected \"end\" before the next epoch".into()));
                    }
                    let it: u64 = num(f.next(), "an iteration number", n, &err)?;
                    let it = check_iteration(it, last_iteration).map_err(|m| err(n, m))?;
                    last_iteration = it;
                    let phase = f.next().unwrap_or("main");
                    let phase = intern(phase).ok_or_else(|| err(n, "too many distinct phase names".into()))?;
                    let mut e = Epoch::default();
                    e.reset(h.threads, it, phase);
                    current = Some((e, 0));
                }
                ("mlp" | "think", true) => {
                    let (e, records) = current.as_mut().ok_or_else(|| err(n, format!("\"{}\" outside an epoch", shown(word))))?;
                    if *records > 0 {
                        return Err(err(n, format!("\"{}\" after the epoch's records: expected it before the first record", shown(word))));
                    }
                    let t: usize = num(f.next(), "a thread", n, &err)?;
                    let v: f64 = num(f.next(), "a number", n, &err)?;
                    set_thread(e, h.threads, word, t, v).map_err(|m| err(n, m))?;
                }
                ("end", true) => {
                    let (e, _) = current.take().ok_or_else(|| err(n, "\"end\" outside an epoch".into()))?;
                    epochs.push_back(e);
                }
                (_, true) if word.bytes().all(|b| b.is_ascii_digit()) => {
                    let (e, records) = current.as_mut().ok_or_else(|| err(n, "a record outside an epoch".into()))?;
                    let t: usize = num(Some(word), "a thread", n, &err)?;
                    let page: u64 = num(f.next(), "a page", n, &err)?;
                    let reads: u64 = num(f.next(), "a read count", n, &err)?;
                    let writes: u64 = num(f.next(), "a write count", n, &err)?;
                    check_record(t, page, reads, writes, h.threads, pages).map_err(|m| err(n, m))?;
                    let pieces = reads.div_ceil(u16::MAX as u64) + writes.div_ceil(u16::MAX as u64);
                    super::binary::take_split(pieces - 1, &mut split_left).map_err(|m| err(n, m))?;
                    push_record(e, t, page as u32, reads, writes);
                    *records += 1;
                }
                _ => {
                    let expected = if header_done {
                        "\"epoch\", \"mlp\", \"think\", \"end\" or a record THREAD PAGE READS WRITES"
                    } else {
                        "\"page_size\", \"line_size\", \"threads\", \"meta\", \"region\" or \"epoch\""
                    };
                    return Err(err(n, format!("expected {expected}, found \"{}\"", shown(line))));
                }
            }
            if let Some(extra) = f.next() {
                return Err(err(n, format!("unexpected \"{}\" at the end of the line", shown(extra))));
            }
        }
        if current.is_some() {
            return Err(err(text.lines().count(), "the trace ends inside an epoch (missing \"end\")".into()));
        }
        if !header_done {
            // A trace without epochs: its header ends with the file, whose last line the error
            // names.
            let (path, last) = (origin.to_string(), text.lines().count().max(1));
            h.validate(&|m| SimError::Trace { path: path.clone(), at: format!("line {last}"), message: format!("header: {m}") })?;
        }
        // The metadata value was checked on its line.
        let declared = h.meta("iterations").and_then(|v| check_iterations_meta(v).ok());
        Ok(TextTrace { header: h, epochs, iterations: declared.unwrap_or(last_iteration), declared })
    }
}

/// A number, the next field of a line (`None`: the line ended); `what` names it in errors.
fn num<T: std::str::FromStr>(s: Option<&str>, what: &str, line: usize, err: &dyn Fn(usize, String) -> SimError) -> Result<T, SimError> {
    let s = s.ok_or_else(|| err(line, format!("expected {what}, found the end of the line")))?;
    s.parse().map_err(|_| err(line, format!("expected {what}, found \"{}\"", shown(s))))
}

/// Sets thread `t`'s `mlp` or `think` (the line's `word`) in epoch `e` of a trace of `threads`
/// threads to `v`, or says why not.
fn set_thread(e: &mut Epoch, threads: usize, word: &str, t: usize, v: f64) -> Result<(), String> {
    let w = e.threads.get_mut(t).ok_or_else(|| format!("thread {t} out of range (the trace has {threads} threads)"))?;
    if word == "mlp" {
        if !(v >= 1.0) {
            return Err(format!("mlp {v:e}: expected a number >= 1 or inf"));
        }
        w.mlp = v;
    } else {
        if !think_ok(v) {
            return Err(format!("think {v:e}: expected a finite number of ns in 0..={MAX_THINK_NS:e}"));
        }
        w.think_ns = v;
    }
    Ok(())
}

/// Checks a record of thread `t` for `page` against a trace of `threads` threads and `pages`
/// pages, and its counts (one line at least, each below 2^32), or says why not.
fn check_record(t: usize, page: u64, reads: u64, writes: u64, threads: usize, pages: u64) -> Result<(), String> {
    if t >= threads {
        return Err(format!("thread {t} out of range (the trace has {threads} threads)"));
    }
    if page >= pages {
        return Err(format!("page {page} out of range (the trace has {pages} pages)"));
    }
    if reads == 0 && writes == 0 || reads > u32::MAX as u64 || writes > u32::MAX as u64 {
        return Err(format!("reads={reads} writes={writes}: expected 1..2^32 lines in all"));
    }
    Ok(())
}

impl Workload for TextTrace {
    fn regions(&self) -> &[Region] {
        &self.header.regions
    }

    fn iterations(&self) -> u32 {
        self.iterations
    }

    fn declared_iterations(&self) -> Option<u32> {
        self.declared
    }

    fn next_epoch(&mut self, epoch: &mut Epoch) -> bool {
        match self.epochs.pop_front() {
            Some(e) => {
                *epoch = e;
                true
            }
            None => false,
        }
    }
}

impl TraceSource for TextTrace {
    fn header(&self) -> &TraceHeader {
        &self.header
    }

    fn format(&self) -> Format {
        Format::Text
    }
}

/// Writes `workload` as a text trace, by the output rule of [`crate::output::write_with`].
///
/// # Errors
/// A write error.
pub fn write_text(workload: &mut dyn Workload, header: &TraceHeader, path: &Path) -> Result<(), SimError> {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(out, "{TEXT_MAGIC} {VERSION}");
    let _ = writeln!(out, "page_size {}\nline_size {}\nthreads {}", header.page_size, header.line_size, header.threads);
    for (k, v) in &header.meta {
        let _ = writeln!(out, "meta {k} {v}");
    }
    for r in &header.regions {
        let _ = writeln!(out, "region {} {} {}", r.name, r.first_page, r.pages);
    }
    let mut epoch = Epoch::default();
    while workload.next_epoch(&mut epoch) {
        let _ = writeln!(out, "epoch {} {}", epoch.iteration, epoch.phase);
        for (t, w) in epoch.threads.iter().enumerate() {
            if w.mlp != f64::INFINITY {
                let _ = writeln!(out, "mlp {t} {}", w.mlp);
            }
            if w.think_ns != 0.0 {
                let _ = writeln!(out, "think {t} {}", w.think_ns);
            }
        }
        for (t, w) in epoch.threads.iter().enumerate() {
            for tx in &w.txns {
                let (r, wr) = if tx.op == Op::Write { (0, tx.count) } else { (tx.count, 0) };
                let _ = writeln!(out, "{t} {} {r} {wr}", tx.page);
            }
        }
        let _ = writeln!(out, "end");
    }
    if let Some(e) = workload.take_error() {
        return Err(e);
    }
    crate::output::write_bytes(path, out.as_bytes())
}
