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
//! and `end`. The whole file is read at once (text traces are small).

use super::{intern, push_record, TraceHeader, TraceSource, TEXT_MAGIC, VERSION};
use crate::error::SimError;
use crate::workload::{Epoch, Op, Workload};
use numaplace_model::Region;
use std::collections::VecDeque;
use std::path::Path;

/// A text trace, parsed and held in memory.
pub struct TextTrace {
    header: TraceHeader,
    epochs: VecDeque<Epoch>,
    iterations: u32,
}

impl TextTrace {
    /// Reads and parses `path`.
    ///
    /// # Errors
    /// An unreadable file, or a malformed line (named by its number, with what was expected).
    pub fn open(path: &Path) -> Result<Self, SimError> {
        let text = std::fs::read_to_string(path).map_err(|e| SimError::io(path, e))?;
        Self::parse(&text, &path.display().to_string())
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
            return Err(err(n, format!("expected \"{TEXT_MAGIC} {VERSION}\", found \"{first}\"")));
        }
        let mut h = TraceHeader { page_size: 0, line_size: 0, threads: 0, regions: Vec::new(), meta: Vec::new() };
        let mut epochs = VecDeque::new();
        let mut current: Option<(Epoch, usize)> = None;
        let mut last_iteration = 0u32;
        let mut header_done = false;
        fn num<T: std::str::FromStr>(s: Option<&str>, what: &str, line: usize, err: &dyn Fn(usize, String) -> SimError) -> Result<T, SimError> {
            let s = s.ok_or_else(|| err(line, format!("expected {what}, found the end of the line")))?;
            s.parse().map_err(|_| err(line, format!("expected {what}, found \"{s}\"")))
        }
        let mut pages = 0u64;
        for (n, line) in lines {
            let mut f = line.split_whitespace();
            let word = f.next().unwrap_or("");
            if !header_done && matches!(word, "epoch") {
                let path = origin.to_string();
                h.validate(&|m| SimError::Trace { path: path.clone(), at: format!("line {n}"), message: format!("header: {m}") })?;
                pages = h.pages();
                header_done = true;
            }
            match (word, header_done) {
                ("page_size", false) => h.page_size = num(f.next(), "a page size", n, &err)?,
                ("line_size", false) => h.line_size = num(f.next(), "a line size", n, &err)?,
                ("threads", false) => h.threads = num(f.next(), "a thread count", n, &err)?,
                ("meta", false) => {
                    let k = f.next().ok_or_else(|| err(n, "expected a metadata key".into()))?;
                    let v: Vec<&str> = f.collect();
                    h.meta.push((k.to_string(), v.join(" ")));
                    continue;
                }
                ("region", false) => {
                    let name = f.next().ok_or_else(|| err(n, "expected a region name".into()))?;
                    let first_page = num(f.next(), "a first page", n, &err)?;
                    let count = num(f.next(), "a page count", n, &err)?;
                    h.regions.push(Region { name: name.to_string(), first_page, pages: count });
                }
                ("epoch", true) => {
                    if current.is_some() {
                        return Err(err(n, "expected \"end\" before the next epoch".into()));
                    }
                    let it: u32 = num(f.next(), "an iteration number", n, &err)?;
                    if it < last_iteration {
                        return Err(err(n, format!("iteration {it} after {last_iteration}: iterations must not decrease")));
                    }
                    last_iteration = it;
                    let phase = f.next().unwrap_or("main");
                    let phase = intern(phase).ok_or_else(|| err(n, "too many distinct phase names".into()))?;
                    let mut e = Epoch::default();
                    e.reset(h.threads, it, phase);
                    current = Some((e, 0));
                }
                ("mlp" | "think", true) => {
                    let (e, _) = current.as_mut().ok_or_else(|| err(n, format!("\"{word}\" outside an epoch")))?;
                    let t: usize = num(f.next(), "a thread", n, &err)?;
                    let v: f64 = num(f.next(), "a number", n, &err)?;
                    let w = e.threads.get_mut(t).ok_or_else(|| err(n, format!("thread {t} out of range (the trace has {} threads)", h.threads)))?;
                    if word == "mlp" {
                        if !(v >= 1.0) {
                            return Err(err(n, format!("mlp {v}: expected a number >= 1 or inf")));
                        }
                        w.mlp = v;
                    } else {
                        if !(v >= 0.0 && v.is_finite()) {
                            return Err(err(n, format!("think {v}: expected a finite number >= 0")));
                        }
                        w.think_ns = v;
                    }
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
                    if t >= h.threads {
                        return Err(err(n, format!("thread {t} out of range (the trace has {} threads)", h.threads)));
                    }
                    if page >= pages {
                        return Err(err(n, format!("page {page} out of range (the trace has {pages} pages)")));
                    }
                    if reads == 0 && writes == 0 || reads > u32::MAX as u64 || writes > u32::MAX as u64 {
                        return Err(err(n, format!("reads={reads} writes={writes}: expected 1..2^32 lines in all")));
                    }
                    push_record(e, t, page as u32, reads, writes);
                    *records += 1;
                }
                _ => {
                    let expected = if header_done {
                        "\"epoch\", \"mlp\", \"think\", \"end\" or a record THREAD PAGE READS WRITES"
                    } else {
                        "\"page_size\", \"line_size\", \"threads\", \"meta\", \"region\" or \"epoch\""
                    };
                    return Err(err(n, format!("expected {expected}, found \"{line}\"")));
                }
            }
            if let Some(extra) = f.next() {
                return Err(err(n, format!("unexpected \"{extra}\" at the end of the line")));
            }
        }
        if current.is_some() {
            return Err(err(text.lines().count(), "the trace ends inside an epoch (missing \"end\")".into()));
        }
        if !header_done {
            let path = origin.to_string();
            h.validate(&|m| SimError::Trace { path: path.clone(), at: "header".into(), message: m })?;
        }
        let iterations = h.meta("iterations").and_then(|v| v.parse().ok()).unwrap_or(last_iteration);
        Ok(TextTrace { header: h, epochs, iterations })
    }
}

impl Workload for TextTrace {
    fn regions(&self) -> &[Region] {
        &self.header.regions
    }

    fn iterations(&self) -> u32 {
        self.iterations
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
}

/// Writes `workload` as a text trace.
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
    std::fs::write(path, out).map_err(|e| SimError::io(path, e))
}
