//! The streaming reader of page-level binary traces: [`BinaryTrace`] replays a trace one epoch
//! at a time, blocks read ahead on a thread of their own, record runs decoded by the reader's
//! hot loop ([`decode_run`]).

use super::codec::{unzigzag, BlockReader, Cursor, Next};
use super::{ITEM_EPOCH, ITEM_EPOCH_END, ITEM_RUN};
use crate::error::SimError;
use crate::trace::{
    check_iteration, check_iterations_meta, intern, think_ok, Format, TraceHeader, TraceSource, MAX_SPLIT_TRANSACTIONS,
    MAX_THINK_NS,
};
use crate::workload::{Epoch, Workload};
use numaplace_model::error::shown_path;
use numaplace_model::Region;
use std::io::Read;
use std::path::Path;

/// How many blocks the reader thread may be ahead of the parser.
const READ_AHEAD: usize = 2;

/// A binary trace opened for replay.
pub struct BinaryTrace {
    path: String,
    header: TraceHeader,
    blocks: std::sync::mpsc::Receiver<Result<Next, SimError>>,
    /// The current block's raw payload, its file offset, and the read position in it.
    raw: Vec<u8>,
    block_at: u64,
    pos: usize,
    pages: u64,
    iterations: u32,
    last_iteration: u32,
    epochs: u64,
    records: u64,
    finished: bool,
    error: Option<SimError>,
}

impl BinaryTrace {
    /// Opens `path` and reads its header.
    ///
    /// # Errors
    /// An unreadable file, bad magic, an unknown version, a truncated or corrupt header.
    pub fn open(path: &Path) -> Result<Self, SimError> {
        let file = std::fs::File::open(path).map_err(|e| SimError::io(path, e))?;
        Self::from_reader(Box::new(file), &shown_path(path))
    }

    /// Reads only the header of the binary trace at `path`: no block is read or decoded and no
    /// reader thread starts.
    ///
    /// # Errors
    /// As [`BinaryTrace::open`].
    pub fn read_header(path: &Path) -> Result<TraceHeader, SimError> {
        let file = std::fs::File::open(path).map_err(|e| SimError::io(path, e))?;
        Self::header_from_reader(Box::new(file), &shown_path(path))
    }

    /// Reads only the header from a byte stream; `name` stands for the file in messages.
    ///
    /// # Errors
    /// As [`BinaryTrace::open`].
    pub fn header_from_reader(input: Box<dyn Read + Send>, name: &str) -> Result<TraceHeader, SimError> {
        let mut reader = BlockReader::new(input, name, 1 << 12);
        reader.read_header()
    }

    /// Reads a trace from any byte stream; `name` stands for the file in messages.
    ///
    /// # Errors
    /// As [`BinaryTrace::open`].
    pub fn from_reader(input: Box<dyn Read + Send>, name: &str) -> Result<Self, SimError> {
        let mut reader = BlockReader::new(input, name, 1 << 16);
        let header = reader.read_header()?;
        let (tx, rx) = std::sync::mpsc::sync_channel(READ_AHEAD);
        std::thread::Builder::new()
            .name("numaplace-trace-reader".into())
            .spawn(move || reader.run(tx))
            .map_err(|e| SimError::Io { path: name.to_string(), message: format!("cannot start the reader thread: {e}") })?;
        Ok(BinaryTrace {
            path: name.to_string(),
            pages: header.pages(),
            // Checked by the header's validation; absent, the iterations come from the epochs.
            iterations: header.meta("iterations").and_then(|v| check_iterations_meta(v).ok()).unwrap_or(0),
            header,
            blocks: rx,
            raw: Vec::new(),
            block_at: 0,
            pos: 0,
            last_iteration: 0,
            epochs: 0,
            records: 0,
            finished: false,
            error: None,
        })
    }

    /// An error at file offset `at`.
    fn err(&self, at: u64, message: impl Into<String>) -> SimError {
        SimError::Trace { path: self.path.clone(), at: format!("byte {at}"), message: message.into() }
    }

    /// Takes the next block from the reader thread; `Ok(false)` at the (checked) end marker.
    fn next_block(&mut self) -> Result<bool, SimError> {
        let next = self.blocks.recv().map_err(|_| SimError::Io {
            path: self.path.clone(),
            message: "the trace reader thread stopped unexpectedly".into(),
        })??;
        match next {
            Next::Block { at, raw } => {
                self.raw = raw;
                self.block_at = at;
                self.pos = 0;
                Ok(true)
            }
            Next::End { at, epochs, records } => {
                if (epochs, records) != (self.epochs, self.records) {
                    return Err(self.err(
                        at,
                        format!(
                            "end marker counts {epochs} epochs and {records} records, the file holds {} and {}",
                            self.epochs, self.records
                        ),
                    ));
                }
                self.block_at = at;
                Ok(false)
            }
        }
    }

    /// Reads one epoch into `epoch`; `Ok(false)` at the end of the trace.
    fn read_epoch(&mut self, epoch: &mut Epoch) -> Result<bool, SimError> {
        if self.finished {
            return Ok(false);
        }
        let threads = self.header.threads;
        let mut started = false;
        let mut count = 0u64;
        // What is left of the epoch's allowance of transactions beyond one per record.
        let mut split_left = MAX_SPLIT_TRANSACTIONS;
        let mut prev = vec![0i64; threads];
        loop {
            if self.pos >= self.raw.len() && !self.next_block()? {
                self.finished = true;
                if started {
                    return Err(self.err(self.block_at, "the trace ends inside an epoch"));
                }
                return Ok(false);
            }
            let (block_at, item_at) = (self.block_at, self.pos);
            let mut c = Cursor { buf: &self.raw, pos: self.pos };
            let e = |p: usize, m: String| SimError::Trace {
                path: self.path.clone(),
                at: format!("block at byte {block_at}, payload byte {p}"),
                message: m,
            };
            let tag = c.u8("an item tag").map_err(|(p, m)| e(p, m))?;
            match tag {
                ITEM_EPOCH if !started => {
                    let it = c.uvarint("an iteration").map_err(|(p, m)| e(p, m))?;
                    let it = check_iteration(it, self.last_iteration).map_err(|m| e(item_at, m))?;
                    let plen = c.u8("a phase length").map_err(|(p, m)| e(p, m))? as usize;
                    let phase = c.bytes(plen, "a phase name").map_err(|(p, m)| e(p, m))?;
                    let phase = std::str::from_utf8(phase).map_err(|_| e(item_at, "phase name is not UTF-8".into()))?;
                    let phase = intern(phase).ok_or_else(|| e(item_at, "too many distinct phase names".into()))?;
                    epoch.reset(threads, it, phase);
                    for t in 0..threads {
                        let mlp = c.f64("a thread's mlp").map_err(|(p, m)| e(p, m))?;
                        let think = c.f64("a thread's think time").map_err(|(p, m)| e(p, m))?;
                        if !(mlp >= 1.0) {
                            return Err(e(item_at, format!("thread {t}: mlp {mlp:e}: expected a number >= 1 or inf")));
                        }
                        if !think_ok(think) {
                            return Err(e(item_at, format!("thread {t}: think time {think:e} ns: expected 0..={MAX_THINK_NS:e}")));
                        }
                        epoch.threads[t].mlp = mlp;
                        epoch.threads[t].think_ns = think;
                    }
                    self.last_iteration = it;
                    started = true;
                }
                ITEM_RUN if started => {
                    let t = c.uvarint("a run's thread").map_err(|(p, m)| e(p, m))?;
                    if t >= threads as u64 {
                        return Err(e(item_at, format!("record thread {t} out of range (the trace has {threads} threads)")));
                    }
                    let n = c.uvarint("a run's record count").map_err(|(p, m)| e(p, m))?;
                    let widths = c.u8("a run's field widths").map_err(|(p, m)| e(p, m))?;
                    let (dw, cw) = ((widths & 15) as usize, (widths >> 4) as usize);
                    if !(1..=8).contains(&dw) || !(1..=8).contains(&cw) {
                        return Err(e(item_at, format!("run field widths {dw} and {cw}: expected 1..8 bytes each")));
                    }
                    if n == 0 || n > ((c.buf.len() - c.pos) / (dw + cw)) as u64 {
                        return Err(e(item_at, format!("run of {n} records cannot fit in the rest of the block")));
                    }
                    let t = t as usize;
                    let (pos, page) =
                        decode_run(&mut epoch.threads[t].txns, c.buf, c.pos, n as usize, (dw, cw), prev[t], self.pages, &mut split_left)
                            .map_err(|(p, m)| e(p, m))?;
                    c.pos = pos;
                    prev[t] = page;
                    count += n;
                }
                ITEM_EPOCH_END if started => {
                    let n = c.uvarint("an epoch's record count").map_err(|(p, m)| e(p, m))?;
                    if n != count {
                        return Err(e(item_at, format!("epoch end counts {n} records, the epoch has {count}")));
                    }
                    self.pos = c.pos;
                    self.epochs += 1;
                    self.records += count;
                    return Ok(true);
                }
                other => {
                    let expected = if started { "a record run (2) or an epoch end (3)" } else { "an epoch start (1)" };
                    return Err(e(item_at, format!("expected {expected}, found item tag {other}")));
                }
            }
            self.pos = c.pos;
        }
    }
}

impl Workload for BinaryTrace {
    fn regions(&self) -> &[Region] {
        &self.header.regions
    }

    fn iterations(&self) -> u32 {
        // The `iterations` metadata if the writer gave it; else the highest seen so far
        // (complete once the trace has been read, which is when results are summarised).
        self.iterations.max(self.last_iteration)
    }

    fn declared_iterations(&self) -> Option<u32> {
        (self.iterations > 0).then_some(self.iterations)
    }

    fn next_epoch(&mut self, epoch: &mut Epoch) -> bool {
        if self.error.is_some() {
            return false;
        }
        match self.read_epoch(epoch) {
            Ok(more) => more,
            Err(e) => {
                self.error = Some(e);
                false
            }
        }
    }

    fn take_error(&mut self) -> Option<SimError> {
        self.error.take()
    }
}

impl TraceSource for BinaryTrace {
    fn header(&self) -> &TraceHeader {
        &self.header
    }

    fn format(&self) -> Format {
        Format::Binary
    }
}

/// Reads a little-endian field of `w` bytes (1..=8) at `pos` of a slice with at least eight
/// bytes from `pos` on: one unaligned load and a mask.
#[inline(always)]
fn field8(buf: &[u8], pos: usize, w: usize) -> u64 {
    u64::from_le_bytes(buf[pos..pos + 8].try_into().expect("8 bytes")) & (u64::MAX >> (64 - 8 * w))
}

/// Decodes the `n` fixed-width records of a run starting at `pos` (the caller checked that
/// they fit), appending them as transactions: the reader's hot loop. `split_left` is what
/// remains of the epoch's allowance of transactions beyond one per record. Returns the
/// position after the run and the last page.
#[allow(clippy::too_many_arguments)]
fn decode_run(
    out: &mut Vec<crate::workload::Txn>,
    buf: &[u8],
    pos: usize,
    n: usize,
    (dw, cw): (usize, usize),
    page: i64,
    pages: u64,
    split_left: &mut u64,
) -> Result<(usize, i64), (usize, String)> {
    // The widths as constants for the common cases (sequential kernels: 1 and 2; random
    // pages: 3 and 1), so that the masks are immediates.
    macro_rules! fast {
        ($($d:literal, $c:literal);*) => {
            match (dw, cw) {
                $(($d, $c) => decode_fast::<$d, $c>(out, buf, pos, n, page, pages),)*
                _ => decode_fast::<0, 0>(out, buf, pos, n, page, pages),
            }
        };
    }
    let (done, pos, page) = fast!(1, 1; 1, 2; 2, 1; 2, 2; 3, 1; 3, 2; 4, 1; 4, 2);
    decode_slow(out, buf, pos, n - done, (dw, cw), page, pages, split_left)
}

/// The fast path of [`decode_run`]: decodes records with a count that fits one transaction
/// and a page in range, while eight bytes remain after each field, into a pre-sized slice.
/// Stops at the first other record. `D` and `C` are the field widths; `D = 0` decodes nothing
/// (uncommon widths go to the slow path). Returns (records decoded, position, last page).
#[inline(never)]
fn decode_fast<const D: usize, const C: usize>(
    out: &mut Vec<crate::workload::Txn>,
    buf: &[u8],
    mut pos: usize,
    n: usize,
    mut page: i64,
    pages: u64,
) -> (usize, usize, i64) {
    use crate::workload::Txn;
    if D == 0 {
        return (0, pos, page);
    }
    let start = out.len();
    out.resize(start + n, Txn::read(0, 0));
    let dst = &mut out[start..];
    let mut done = 0;
    while done < n && pos + D + 8 + C <= buf.len() {
        let d = field8(buf, pos, D);
        let v = field8(buf, pos + D, C);
        let next = page.wrapping_add(unzigzag(d));
        let count = v >> 1;
        if next < 0 || next as u64 >= pages || count == 0 || count > 0xffff {
            break;
        }
        page = next;
        dst[done] = if v & 1 == 0 { Txn::read(page as u32, count as u16) } else { Txn::write(page as u32, count as u16) };
        pos += D + C;
        done += 1;
    }
    out.truncate(start + done);
    (done, pos, page)
}

/// The checked path of [`decode_run`]: any record, any position, with errors.
#[allow(clippy::too_many_arguments)]
fn decode_slow(
    out: &mut Vec<crate::workload::Txn>,
    buf: &[u8],
    mut pos: usize,
    n: usize,
    (dw, cw): (usize, usize),
    mut page: i64,
    pages: u64,
    split_left: &mut u64,
) -> Result<(usize, i64), (usize, String)> {
    use crate::workload::Txn;
    let field = |pos: usize, w: usize| buf[pos..pos + w].iter().rev().fold(0u64, |v, &b| v << 8 | b as u64);
    for _ in 0..n {
        let at = pos;
        let d = field(pos, dw);
        let v = field(pos + dw, cw);
        pos += dw + cw;
        page = page.wrapping_add(unzigzag(d));
        let count = v >> 1;
        if page < 0 || page as u64 >= pages || count == 0 || count > 0xffff {
            bad_record(out, at, page, count, v & 1 == 1, pages, split_left)?;
        } else {
            out.push(if v & 1 == 0 { Txn::read(page as u32, count as u16) } else { Txn::write(page as u32, count as u16) });
        }
    }
    Ok((pos, page))
}

/// The uncommon records of [`decode_run`]: a page out of range or a count of zero (errors),
/// or a count beyond one transaction record (split, within what is left of the epoch's
/// allowance, checked before the transactions are allocated).
#[cold]
fn bad_record(
    out: &mut Vec<crate::workload::Txn>,
    at: usize,
    page: i64,
    count: u64,
    write: bool,
    pages: u64,
    split_left: &mut u64,
) -> Result<(), (usize, String)> {
    if page < 0 || page as u64 >= pages {
        return Err((at, format!("record page {page} out of range (the trace has {pages} pages)")));
    }
    if count == 0 || count > u32::MAX as u64 {
        return Err((at, format!("record count {count}: expected 1..2^32 lines")));
    }
    take_split(count.div_ceil(u16::MAX as u64) - 1, split_left).map_err(|m| (at, m))?;
    if write {
        split_counts(out, page as u32, 0, count);
    } else {
        split_counts(out, page as u32, count, 0);
    }
    Ok(())
}

/// Takes `extra` transactions (beyond one per record) from what is left of the allowance,
/// or says why not.
pub(in crate::trace) fn take_split(extra: u64, left: &mut u64) -> Result<(), String> {
    if extra > *left {
        return Err(format!("records expand to more than {MAX_SPLIT_TRANSACTIONS} transactions beyond one per record"));
    }
    *left -= extra;
    Ok(())
}

/// Appends a record with both counts, or counts beyond one transaction record: the reads
/// first, then the writes.
#[cold]
pub(in crate::trace) fn split_counts(out: &mut Vec<crate::workload::Txn>, page: u32, reads: u64, writes: u64) {
    use crate::workload::Txn;
    for (mut n, write) in [(reads, false), (writes, true)] {
        while n > 0 {
            let c = n.min(u16::MAX as u64) as u16;
            out.push(if write { Txn::write(page, c) } else { Txn::read(page, c) });
            n -= c as u64;
        }
    }
}
