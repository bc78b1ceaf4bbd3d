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
mod text;

pub use binary::{export, BinaryTrace, TraceWriter};
pub use text::{write_text, TextTrace};

use crate::error::SimError;
use crate::workload::{Epoch, Workload};
use numaplace_model::Region;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

/// The file's first eight bytes.
pub const MAGIC: &[u8; 8] = b"NUMAPTRC";
/// The first line of the text form.
pub const TEXT_MAGIC: &str = "numaplace-trace";
/// The format version this code reads and writes.
pub const VERSION: u16 = 1;

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

/// A trace being replayed: a [`Workload`] whose epochs come from a file. Errors found while
/// reading end the epochs early and are kept for [`Workload::take_error`].
pub trait TraceSource: Workload {
    fn header(&self) -> &TraceHeader;
}

/// Opens a trace file, binary or text (told apart by their first bytes).
///
/// # Errors
/// A file that cannot be read, is neither form, or has a malformed header.
pub fn open(path: &Path) -> Result<Box<dyn TraceSource>, SimError> {
    use std::io::Read;
    let mut f = std::fs::File::open(path).map_err(|e| SimError::io(path, e))?;
    let mut first = [0u8; 8];
    let n = f.read(&mut first).map_err(|e| SimError::io(path, e))?;
    if n == 8 && &first == MAGIC {
        Ok(Box::new(BinaryTrace::open(path)?))
    } else if first[..n].starts_with(&TEXT_MAGIC.as_bytes()[..n.min(TEXT_MAGIC.len())]) && n > 0 {
        Ok(Box::new(TextTrace::open(path)?))
    } else {
        Err(SimError::Trace {
            path: path.display().to_string(),
            at: "byte 0".into(),
            message: format!("expected the magic \"NUMAPTRC\" or a first line \"{TEXT_MAGIC} 1\""),
        })
    }
}

/// Interns a phase name read from a file, so epochs can carry `&'static str` like the
/// built-in workloads. Distinct names are few (a workload's phases); the table is bounded.
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
    let mut t = open(path)?;
    let h = t.header().clone();
    let format = if std::fs::read(path).map(|b| b.starts_with(MAGIC)).unwrap_or(false) { "binary" } else { "text" };
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
        let text = std::str::from_utf8(bytes).map_err(|_| SimError::Trace {
            path: "input".into(),
            at: "byte 0".into(),
            message: "neither a binary trace nor UTF-8 text".into(),
        })?;
        Box::new(TextTrace::parse(text, "input")?)
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
