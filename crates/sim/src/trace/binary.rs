//! The binary trace form: writer and streaming reader. Layout in `docs/trace-format.md`.

use numaplace_model::error::shown_path;
use super::{
    check_iteration, check_iterations_meta, intern, think_ok, Format, TraceHeader, TraceSource, MAGIC, MAX_HEADER_BYTES,
    MAX_REGIONS, MAX_SPLIT_TRANSACTIONS, MAX_THINK_NS, VERSION, VERSION_LINE,
};
use crate::error::SimError;
use crate::workload::{Epoch, Op, Workload};
use numaplace_model::Region;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

const TAG_BLOCK: u8 = b'B';
const TAG_STORED: u8 = b'S';
const TAG_END: u8 = b'Z';
const ITEM_EPOCH: u8 = 1;
/// A run of records of one thread: `thread, n` (varints), a widths byte (low nibble: bytes of
/// each page delta, high nibble: bytes of each counts field, 1..8), then `n` fixed-width
/// records: the zigzag page delta and `count << 1 | is_write`, little-endian. A record that
/// both reads and writes is two entries, the reads first (the second with delta 0).
const ITEM_RUN: u8 = 2;
/// Records per run item at most (keeps items, and so blocks, bounded).
const RUN_MAX: usize = 4096;
const ITEM_EPOCH_END: u8 = 3;
/// A block is flushed once its raw payload reaches this size (at an item boundary).
const BLOCK_TARGET: usize = 256 * 1024;
/// The largest raw block a reader accepts: bounds the memory a corrupt length can demand.
const BLOCK_MAX: usize = 16 * 1024 * 1024;

pub(super) fn put_uvarint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub(super) fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

pub(super) fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Writes a binary trace, one epoch at a time.
pub struct TraceWriter<W: Write> {
    out: W,
    threads: usize,
    raw: Vec<u8>,
    epochs: u64,
    records: u64,
}

impl<W: Write> TraceWriter<W> {
    /// Starts a trace: writes the header.
    ///
    /// # Errors
    /// A write error (`path` names the destination in the message).
    pub fn new(mut out: W, header: &TraceHeader, path: &Path) -> Result<Self, SimError> {
        let mut body = Vec::new();
        body.extend_from_slice(&(header.page_size as u32).to_le_bytes());
        body.extend_from_slice(&(header.line_size as u32).to_le_bytes());
        body.extend_from_slice(&(header.threads as u32).to_le_bytes());
        body.extend_from_slice(&(header.regions.len() as u32).to_le_bytes());
        for r in &header.regions {
            put_str(&mut body, &r.name);
            body.extend_from_slice(&r.first_page.to_le_bytes());
            body.extend_from_slice(&r.pages.to_le_bytes());
        }
        body.extend_from_slice(&(header.meta.len() as u16).to_le_bytes());
        for (k, v) in &header.meta {
            put_str(&mut body, k);
            put_str(&mut body, v);
        }
        write_frame(&mut out, VERSION, &body, path)?;
        Ok(TraceWriter { out, threads: header.threads, raw: Vec::with_capacity(BLOCK_TARGET * 2), epochs: 0, records: 0 })
    }

    /// Appends one epoch (threads' records in thread order).
    ///
    /// # Errors
    /// A write error.
    pub fn epoch(&mut self, epoch: &Epoch, path: &Path) -> Result<(), SimError> {
        self.raw.push(ITEM_EPOCH);
        put_uvarint(&mut self.raw, epoch.iteration as u64);
        let phase = epoch.phase.as_bytes();
        self.raw.push(phase.len().min(255) as u8);
        self.raw.extend_from_slice(&phase[..phase.len().min(255)]);
        for t in 0..self.threads {
            let (mlp, think) = epoch.threads.get(t).map_or((f64::INFINITY, 0.0), |w| (w.mlp, w.think_ns));
            self.raw.extend_from_slice(&mlp.to_le_bytes());
            self.raw.extend_from_slice(&think.to_le_bytes());
        }
        let mut n = 0u64;
        for (t, work) in epoch.threads.iter().enumerate() {
            let mut prev: i64 = 0;
            // Runs of at most RUN_MAX records, so that a block stays near its target size.
            for run in work.txns.chunks(RUN_MAX) {
                // Fixed-width fields per run: as wide as the run's largest value needs, so that
                // the reader decodes without data-dependent branches.
                let mut max_delta = 0u64;
                let mut max_counts = 0u64;
                let mut p = prev;
                for tx in run {
                    max_delta = max_delta.max(zigzag(tx.page as i64 - p));
                    p = tx.page as i64;
                    max_counts = max_counts.max(counts_field(tx));
                }
                let (dw, cw) = (width(max_delta), width(max_counts));
                self.raw.push(ITEM_RUN);
                put_uvarint(&mut self.raw, t as u64);
                put_uvarint(&mut self.raw, run.len() as u64);
                self.raw.push((dw as u8) | (cw as u8) << 4);
                for tx in run {
                    let d = zigzag(tx.page as i64 - prev);
                    prev = tx.page as i64;
                    self.raw.extend_from_slice(&d.to_le_bytes()[..dw]);
                    self.raw.extend_from_slice(&counts_field(tx).to_le_bytes()[..cw]);
                }
                n += run.len() as u64;
                if self.raw.len() >= BLOCK_TARGET {
                    self.flush(path)?;
                }
            }
        }
        self.raw.push(ITEM_EPOCH_END);
        put_uvarint(&mut self.raw, n);
        self.epochs += 1;
        self.records += n;
        if self.raw.len() >= BLOCK_TARGET {
            self.flush(path)?;
        }
        Ok(())
    }

    fn flush(&mut self, path: &Path) -> Result<(), SimError> {
        flush_block(&mut self.out, &mut self.raw, path)
    }

    /// Ends the trace: flushes the last block and writes the end marker with the totals.
    ///
    /// # Errors
    /// A write error.
    pub fn finish(mut self, path: &Path) -> Result<(u64, u64), SimError> {
        self.flush(path)?;
        write_end(&mut self.out, self.epochs, self.records, path)?;
        Ok((self.epochs, self.records))
    }
}

/// Writes a header frame: magic, `version`, flags 0, the body's length, the body, and the
/// CRC-32 of all of it.
pub(super) fn write_frame<W: Write>(out: &mut W, version: u16, body: &[u8], path: &Path) -> Result<(), SimError> {
    let mut head = Vec::with_capacity(16 + body.len() + 4);
    head.extend_from_slice(MAGIC);
    head.extend_from_slice(&version.to_le_bytes());
    head.extend_from_slice(&0u16.to_le_bytes());
    head.extend_from_slice(&(body.len() as u32).to_le_bytes());
    head.extend_from_slice(body);
    let crc = crc32fast::hash(&head);
    head.extend_from_slice(&crc.to_le_bytes());
    out.write_all(&head).map_err(|e| SimError::io(path, e))
}

/// Writes `raw` as one block (compressed, or stored when LZ4 does not shrink it by an eighth)
/// and clears it; nothing for an empty buffer.
pub(super) fn flush_block<W: Write>(out: &mut W, raw: &mut Vec<u8>, path: &Path) -> Result<(), SimError> {
    if raw.is_empty() {
        return Ok(());
    }
    let packed = lz4_flex::block::compress(raw);
    // A block that LZ4 cannot shrink by an eighth is stored as it is: reading it then
    // costs no decompression (random page numbers hardly compress).
    let stored = packed.len() > raw.len() - raw.len() / 8;
    let body: &[u8] = if stored { raw } else { &packed };
    let mut head = [0u8; 13];
    head[0] = if stored { TAG_STORED } else { TAG_BLOCK };
    head[1..5].copy_from_slice(&(raw.len() as u32).to_le_bytes());
    head[5..9].copy_from_slice(&(body.len() as u32).to_le_bytes());
    head[9..13].copy_from_slice(&crc32fast::hash(raw).to_le_bytes());
    out.write_all(&head).map_err(|e| SimError::io(path, e))?;
    out.write_all(body).map_err(|e| SimError::io(path, e))?;
    raw.clear();
    Ok(())
}

/// Writes the end marker with the file's two totals, and flushes.
pub(super) fn write_end<W: Write>(out: &mut W, a: u64, b: u64, path: &Path) -> Result<(), SimError> {
    let mut end = vec![TAG_END];
    end.extend_from_slice(&a.to_le_bytes());
    end.extend_from_slice(&b.to_le_bytes());
    out.write_all(&end).map_err(|e| SimError::io(path, e))?;
    out.flush().map_err(|e| SimError::io(path, e))
}

/// The counts field of a transaction: `count << 1 | is_write`.
fn counts_field(tx: &crate::workload::Txn) -> u64 {
    (tx.count as u64) << 1 | (tx.op == Op::Write) as u64
}

/// Bytes needed to hold `v` (at least one).
fn width(v: u64) -> usize {
    (((64 - v.leading_zeros()) as usize + 7) / 8).max(1)
}

pub(super) fn put_str(out: &mut Vec<u8>, s: &str) {
    let b = &s.as_bytes()[..s.len().min(u16::MAX as usize)];
    out.extend_from_slice(&(b.len() as u16).to_le_bytes());
    out.extend_from_slice(b);
}

/// Writes `workload` (all its epochs) as a binary trace at `path`, by the output rule of
/// [`crate::output::write_with`]: a temporary renamed into place once complete (a failure
/// leaves nothing behind), a link's target, or a device or FIFO written through.
///
/// # Errors
/// A write error.
pub fn export(workload: &mut dyn Workload, header: &TraceHeader, path: &Path) -> Result<(u64, u64), SimError> {
    crate::output::write_with(path, |file| {
        let mut w = TraceWriter::new(BufWriter::new(file), header, path)?;
        let mut epoch = Epoch::default();
        while workload.next_epoch(&mut epoch) {
            w.epoch(&epoch, path)?;
        }
        if let Some(e) = workload.take_error() {
            return Err(e);
        }
        w.finish(path)
    })
}

/// What the block reader hands to the parser.
pub(super) enum Next {
    /// A block's raw (checked, decompressed) payload and the block's file offset.
    Block { at: u64, raw: Vec<u8> },
    /// The end marker, at file offset `at`, with the totals it declares.
    End { at: u64, epochs: u64, records: u64 },
}

/// Blocks of a trace read ahead on a thread of their own, so that reading the file, checking
/// checksums and decompressing overlap with decoding records (two blocks in flight at most).
pub(super) struct BlockReader {
    path: String,
    input: BufReader<Box<dyn Read + Send>>,
    /// File offset of the next unread byte.
    offset: u64,
    packed: Vec<u8>,
}

/// How many blocks the reader thread may be ahead of the parser.
const READ_AHEAD: usize = 2;

impl BlockReader {
    /// A reader of `input` (`name` stands for the file in messages), buffering `buffer` bytes.
    pub(super) fn new(input: Box<dyn Read + Send>, name: &str, buffer: usize) -> Self {
        BlockReader { path: name.to_string(), input: BufReader::with_capacity(buffer, input), offset: 0, packed: Vec::new() }
    }

    /// An error at file offset `at`.
    pub(super) fn err(&self, at: u64, message: impl Into<String>) -> SimError {
        SimError::Trace { path: self.path.clone(), at: format!("byte {at}"), message: message.into() }
    }

    fn read_exact(&mut self, buf: &mut [u8], what: &str) -> Result<(), SimError> {
        let at = self.offset;
        let mut got = 0;
        while got < buf.len() {
            match self.input.read(&mut buf[got..]) {
                Ok(0) => {
                    return Err(self.err(
                        at,
                        format!("file ends after {got} of the {} bytes of {what} (truncated)", buf.len()),
                    ))
                }
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.err(at + got as u64, format!("read error: {e}"))),
            }
        }
        self.offset += buf.len() as u64;
        Ok(())
    }

    /// Reads the header's frame (magic, version, length, body, checksum) and returns the
    /// version and the body, checked against its checksum. `expect` is the version the
    /// caller reads; another known version is refused with what reads it instead.
    pub(super) fn read_frame(&mut self, expect: u16) -> Result<Vec<u8>, SimError> {
        let mut fixed = [0u8; 16];
        self.read_exact(&mut fixed, "the header")?;
        if &fixed[..8] != MAGIC {
            return Err(self.err(0, "expected the magic \"NUMAPTRC\": not a numaplace trace"));
        }
        let version = u16::from_le_bytes([fixed[8], fixed[9]]);
        if version != expect {
            let m = match version {
                VERSION => format!("format version {version} is a page-level trace: replay it with the page-level engine"),
                VERSION_LINE => {
                    format!("format version {version} is a line-level trace: replay it with the protocol engine (engine = protocol)")
                }
                _ => format!("format version {version}, this numaplace reads version {expect}"),
            };
            return Err(self.err(8, m));
        }
        let len = u32::from_le_bytes(fixed[12..16].try_into().expect("4 bytes")) as usize;
        if len > MAX_HEADER_BYTES {
            return Err(self.err(12, format!("header length {len} exceeds {MAX_HEADER_BYTES} bytes")));
        }
        let mut body = vec![0u8; len];
        self.read_exact(&mut body, "the header body")?;
        let mut crc = [0u8; 4];
        self.read_exact(&mut crc, "the header checksum")?;
        let mut h = crc32fast::Hasher::new();
        h.update(&fixed);
        h.update(&body);
        if h.finalize() != u32::from_le_bytes(crc) {
            return Err(self.err(16 + len as u64, "header checksum mismatch (the header is corrupt)"));
        }
        Ok(body)
    }

    fn read_header(&mut self) -> Result<TraceHeader, SimError> {
        let body = self.read_frame(VERSION)?;
        let mut c = Cursor { buf: &body, pos: 0 };
        let parse = |c: &mut Cursor<'_>| -> Result<TraceHeader, (usize, String)> {
            let page_size = c.u32("the page size")? as u64;
            let line_size = c.u32("the line size")? as u64;
            let threads = c.u32("the thread count")? as usize;
            let count_at = c.pos;
            let nregions = c.u32("the region count")? as usize;
            // Checked before the table is allocated: the count is the file's word.
            if nregions > MAX_REGIONS {
                return Err((count_at, format!("region count {nregions}: expected at most {MAX_REGIONS}")));
            }
            if nregions > body.len() {
                return Err((c.pos, format!("region count {nregions} cannot fit in the header")));
            }
            let mut regions = Vec::with_capacity(nregions);
            for _ in 0..nregions {
                let name = c.string("a region name")?;
                let first_page = c.u32("a region's first page")?;
                let pages = c.u32("a region's page count")?;
                regions.push(Region { name, first_page, pages });
            }
            let nmeta = c.u16("the metadata count")? as usize;
            let mut meta = Vec::with_capacity(nmeta.min(1024));
            for _ in 0..nmeta {
                let k = c.string("a metadata key")?;
                let v = c.string("a metadata value")?;
                meta.push((k, v));
            }
            if c.pos != body.len() {
                return Err((c.pos, format!("{} unexpected bytes after the metadata", body.len() - c.pos)));
            }
            Ok(TraceHeader { page_size, line_size, threads, regions, meta })
        };
        let header = parse(&mut c).map_err(|(p, m)| self.err(16 + p as u64, m))?;
        let path = self.path.clone();
        header.validate(&|m| SimError::Trace { path: path.clone(), at: "header".into(), message: m })?;
        Ok(header)
    }

    /// Reads the next block, checked and decompressed, or the end marker.
    pub(super) fn next_block(&mut self) -> Result<Next, SimError> {
        let at = self.offset;
        let mut tag = [0u8; 1];
        self.read_exact(&mut tag, "a block tag (the end marker is missing)")?;
        match tag[0] {
            TAG_END => {
                let mut end = [0u8; 16];
                self.read_exact(&mut end, "the end marker")?;
                let epochs = u64::from_le_bytes(end[..8].try_into().expect("8 bytes"));
                let records = u64::from_le_bytes(end[8..].try_into().expect("8 bytes"));
                let mut extra = [0u8; 1];
                if self.input.read(&mut extra).map_err(|e| self.err(self.offset, e.to_string()))? != 0 {
                    return Err(self.err(self.offset, "unexpected bytes after the end marker"));
                }
                Ok(Next::End { at, epochs, records })
            }
            TAG_BLOCK | TAG_STORED => {
                let mut head = [0u8; 12];
                self.read_exact(&mut head, "a block header")?;
                let raw_len = u32::from_le_bytes(head[..4].try_into().expect("4 bytes")) as usize;
                let body_len = u32::from_le_bytes(head[4..8].try_into().expect("4 bytes")) as usize;
                let crc = u32::from_le_bytes(head[8..].try_into().expect("4 bytes"));
                let stored = tag[0] == TAG_STORED;
                if raw_len == 0
                    || raw_len > BLOCK_MAX
                    || (stored && body_len != raw_len)
                    || body_len > lz4_flex::block::get_maximum_output_size(raw_len)
                {
                    return Err(self.err(
                        at + 1,
                        format!("implausible block sizes: {raw_len} bytes raw, {body_len} stored (at most {BLOCK_MAX} raw)"),
                    ));
                }
                let mut raw = vec![0u8; raw_len];
                if stored {
                    self.read_exact(&mut raw, "a stored block")?;
                } else {
                    let mut packed = std::mem::take(&mut self.packed);
                    packed.resize(body_len, 0);
                    let r = self.read_exact(&mut packed, "a compressed block");
                    self.packed = packed;
                    r?;
                    match lz4_flex::block::decompress_into(&self.packed, &mut raw) {
                        Ok(n) if n == raw_len => {}
                        Ok(n) => {
                            return Err(self.err(at, format!("compressed block decodes to {n} bytes, header says {raw_len}")))
                        }
                        Err(e) => return Err(self.err(at, format!("corrupt compressed block: {e}"))),
                    }
                }
                if crc32fast::hash(&raw) != crc {
                    return Err(self.err(at, "block checksum mismatch (the block is corrupt)"));
                }
                Ok(Next::Block { at, raw })
            }
            other => Err(self.err(at, format!("expected a block tag 'B' or 'S' or the end tag 'Z', found byte 0x{other:02x}"))),
        }
    }

    /// Runs on the reader thread: sends blocks until the end marker, an error, or the parser
    /// hanging up.
    pub(super) fn run(mut self, out: std::sync::mpsc::SyncSender<Result<Next, SimError>>) {
        loop {
            let next = self.next_block();
            let last = !matches!(next, Ok(Next::Block { .. }));
            if out.send(next).is_err() || last {
                return;
            }
        }
    }
}

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
pub(super) fn take_split(extra: u64, left: &mut u64) -> Result<(), String> {
    if extra > *left {
        return Err(format!("records expand to more than {MAX_SPLIT_TRANSACTIONS} transactions beyond one per record"));
    }
    *left -= extra;
    Ok(())
}

/// Appends a record with both counts, or counts beyond one transaction record: the reads
/// first, then the writes.
#[cold]
pub(super) fn split_counts(out: &mut Vec<crate::workload::Txn>, page: u32, reads: u64, writes: u64) {
    use crate::workload::Txn;
    for (mut n, write) in [(reads, false), (writes, true)] {
        while n > 0 {
            let c = n.min(u16::MAX as u64) as u16;
            out.push(if write { Txn::write(page, c) } else { Txn::read(page, c) });
            n -= c as u64;
        }
    }
}

/// A bounds-checked reader over a byte slice; errors carry the offset and what was expected.
pub(super) struct Cursor<'a> {
    pub(super) buf: &'a [u8],
    pub(super) pos: usize,
}

pub(super) type CursorResult<T> = Result<T, (usize, String)>;

impl<'a> Cursor<'a> {
    pub(super) fn bytes(&mut self, n: usize, what: &str) -> CursorResult<&'a [u8]> {
        if self.buf.len() - self.pos < n {
            return Err((self.pos, format!("expected {what} ({n} bytes), found only {} (truncated)", self.buf.len() - self.pos)));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    pub(super) fn u8(&mut self, what: &str) -> CursorResult<u8> {
        Ok(self.bytes(1, what)?[0])
    }
    pub(super) fn u16(&mut self, what: &str) -> CursorResult<u16> {
        Ok(u16::from_le_bytes(self.bytes(2, what)?.try_into().expect("2 bytes")))
    }
    pub(super) fn u32(&mut self, what: &str) -> CursorResult<u32> {
        Ok(u32::from_le_bytes(self.bytes(4, what)?.try_into().expect("4 bytes")))
    }
    pub(super) fn f64(&mut self, what: &str) -> CursorResult<f64> {
        Ok(f64::from_le_bytes(self.bytes(8, what)?.try_into().expect("8 bytes")))
    }
    pub(super) fn string(&mut self, what: &str) -> CursorResult<String> {
        let n = self.u16(what)? as usize;
        let at = self.pos;
        let b = self.bytes(n, what)?;
        String::from_utf8(b.to_vec()).map_err(|_| (at, format!("{what} is not UTF-8")))
    }
    pub(super) fn uvarint(&mut self, what: &str) -> CursorResult<u64> {
        let start = self.pos;
        let mut v: u64 = 0;
        for shift in (0..70).step_by(7) {
            let b = *self
                .buf
                .get(self.pos)
                .ok_or_else(|| (start, format!("expected {what} (a varint), found the end of the block (truncated)")))?;
            self.pos += 1;
            if shift == 63 && b > 1 {
                break;
            }
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err((start, format!("expected {what}: varint longer than 64 bits")))
    }
}

#[cfg(test)]
pub(crate) fn zigzag_roundtrip(v: i64) -> i64 {
    unzigzag(zigzag(v))
}
