//! Line-level traces, format version 2: a [`LineProgram`] (the protocol engine's input,
//! [`crate::protocol::program`]) written to a file and replayed. `docs/trace-format.md`
//! specifies it byte by byte.
//!
//! The container is version 1's (magic, checksummed header, LZ4 blocks with CRC-32, end
//! marker): only the header's region table and the items differ. Items are runs of one
//! thread's operations. A writer interleaves threads by barrier phase (each thread's
//! operations up to and including its next barrier, thread after thread), so that a reader
//! serving threads in simulated-time order buffers about one phase; the reader refuses a file
//! that would make it buffer more than [`MAX_BUFFERED_OPS`].
//!
//! The reader checks everything the program *Contract* promises the engine: addresses inside
//! regions, locks paired and not held across a barrier, `EndInit` once per thread and right
//! after a barrier (or first), the same number of barriers in every thread, the same barrier
//! before every thread's `EndInit`. Every malformed input is a one-line error naming the file
//! and the position; the reader never panics and never trusts a count it has not checked.

use numaplace_model::error::{shown, shown_path};
use super::binary::{flush_block, put_str, put_uvarint, unzigzag, write_end, write_frame, zigzag, BlockReader, Cursor, Next};
use super::{MAX_REGIONS, VERSION, VERSION_LINE};
use crate::error::SimError;
use crate::protocol::program::{Addr, LineOp, LineProgram, LineRegion, CHUNK};
use std::collections::VecDeque;
use std::io::{BufWriter, Read, Write};
use std::path::Path;

/// The most operations a reader holds for threads that have not asked for them yet.
/// 2^24 operations are 256 MiB.
pub const MAX_BUFFERED_OPS: usize = 1 << 24;
/// The highest byte address a line-level trace may use (2^48: today's virtual address width).
pub const MAX_ADDR: u64 = 1 << 48;
/// The most threads a line-level trace may have (the protocol engine runs one per node).
pub const MAX_LINE_THREADS: usize = 4096;

/// A run of one thread's operations: thread, count `n` (varints, 1..=[`RUN_MAX`]), then `n`
/// operations, each an opcode byte and its operand.
const ITEM_OPS: u8 = 0x11;
const RUN_MAX: usize = 4096;
const BLOCK_TARGET: usize = 256 * 1024;

const OP_READ: u8 = 0;
const OP_WRITE: u8 = 1;
const OP_COMPUTE: u8 = 2;
const OP_BARRIER: u8 = 3;
const OP_LOCK: u8 = 4;
const OP_UNLOCK: u8 = 5;
const OP_END_INIT: u8 = 6;

/// Region flag: marked for basic proxying.
const REGION_PROXY: u8 = 1;

/// What a line-level trace says about itself before its operations.
#[derive(Clone, Debug, PartialEq)]
pub struct LineTraceHeader {
    pub page_size: u64,
    pub line_size: u64,
    pub threads: usize,
    pub regions: Vec<LineRegion>,
    /// Free-form `key = value` metadata: `source` (the program's resolved spec), `seed`, ...
    pub meta: Vec<(String, String)>,
}

impl LineTraceHeader {
    /// A metadata value.
    pub fn meta(&self, key: &str) -> Option<&str> {
        self.meta.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Checks sizes and the region table (disjoint, sorted, page aligned, below [`MAX_ADDR`]).
    fn validate(&self) -> Result<(), String> {
        if !self.page_size.is_power_of_two() || self.page_size < 512 {
            return Err(format!("page size {} is not a power of two >= 512", self.page_size));
        }
        if !self.line_size.is_power_of_two() || self.line_size < 8 || self.line_size > self.page_size {
            return Err(format!("line size {} is not a power of two between 8 and the page size", self.line_size));
        }
        if self.threads == 0 || self.threads > MAX_LINE_THREADS {
            return Err(format!("thread count {} is not in 1..={MAX_LINE_THREADS}", self.threads));
        }
        if self.regions.is_empty() {
            return Err("no regions".into());
        }
        let mut end = 0u64;
        for r in &self.regions {
            if r.bytes == 0 || r.base % self.page_size != 0 || r.base < end || r.base.saturating_add(r.bytes) > MAX_ADDR {
                return Err(format!(
                    "region '{}' at byte {:#x} with {} bytes: regions must be non-empty, page aligned, sorted, disjoint and below {MAX_ADDR:#x}",
                    r.name, r.base, r.bytes
                ));
            }
            end = r.base + r.bytes;
        }
        Ok(())
    }

    fn body(&self) -> Vec<u8> {
        let mut body = Vec::new();
        body.extend_from_slice(&(self.page_size as u32).to_le_bytes());
        body.extend_from_slice(&(self.line_size as u32).to_le_bytes());
        body.extend_from_slice(&(self.threads as u32).to_le_bytes());
        body.extend_from_slice(&(self.regions.len() as u32).to_le_bytes());
        for r in &self.regions {
            put_str(&mut body, &r.name);
            body.extend_from_slice(&r.base.to_le_bytes());
            body.extend_from_slice(&r.bytes.to_le_bytes());
            body.push(if r.proxy { REGION_PROXY } else { 0 });
        }
        body.extend_from_slice(&(self.meta.len() as u16).to_le_bytes());
        for (k, v) in &self.meta {
            put_str(&mut body, k);
            put_str(&mut body, v);
        }
        body
    }

    fn parse(body: &[u8]) -> Result<Self, (usize, String)> {
        let mut c = Cursor { buf: body, pos: 0 };
        let page_size = c.u32("the page size")? as u64;
        let line_size = c.u32("the line size")? as u64;
        let threads = c.u32("the thread count")? as usize;
        let count_at = c.pos;
        let n = c.u32("the region count")? as usize;
        // Checked before the table is allocated: the count is the file's word.
        if n > MAX_REGIONS || n > body.len() {
            return Err((count_at, format!("region count {n}: expected at most {MAX_REGIONS}, and no more than the header holds")));
        }
        let mut regions = Vec::with_capacity(n);
        for _ in 0..n {
            let name = c.string("a region name")?;
            let base = u64::from_le_bytes(c.bytes(8, "a region's base")?.try_into().expect("8 bytes"));
            let bytes = u64::from_le_bytes(c.bytes(8, "a region's size")?.try_into().expect("8 bytes"));
            let flags_at = c.pos;
            let flags = c.u8("a region's flags")?;
            if flags & !REGION_PROXY != 0 {
                return Err((flags_at, format!("region '{}': unknown flags {flags:#04x}", shown(&name))));
            }
            regions.push(LineRegion { name, base, bytes, proxy: flags & REGION_PROXY != 0 });
        }
        let m = c.u16("the metadata count")? as usize;
        let mut meta = Vec::with_capacity(m.min(1024));
        for _ in 0..m {
            let k = c.string("a metadata key")?;
            let v = c.string("a metadata value")?;
            meta.push((k, v));
        }
        if c.pos != body.len() {
            return Err((c.pos, format!("{} unexpected bytes after the metadata", body.len() - c.pos)));
        }
        Ok(LineTraceHeader { page_size, line_size, threads, regions, meta })
    }
}

/// Writes a line-level trace, run by run.
pub struct LineTraceWriter<W: Write> {
    out: W,
    threads: usize,
    raw: Vec<u8>,
    /// Each thread's previous address: addresses are written as zigzag deltas from it.
    prev: Vec<u64>,
    runs: u64,
    ops: u64,
}

impl<W: Write> LineTraceWriter<W> {
    /// Starts a trace: checks the header and writes it.
    ///
    /// # Errors
    /// An invalid header, or a write error (`path` names the destination).
    pub fn new(mut out: W, header: &LineTraceHeader, path: &Path) -> Result<Self, SimError> {
        header.validate().map_err(|m| SimError::Trace { path: shown_path(path), at: "header".into(), message: m })?;
        write_frame(&mut out, VERSION_LINE, &header.body(), path)?;
        Ok(LineTraceWriter {
            out,
            threads: header.threads,
            raw: Vec::with_capacity(BLOCK_TARGET * 2),
            prev: vec![0; header.threads],
            runs: 0,
            ops: 0,
        })
    }

    /// Appends operations of `thread`, in its program order.
    ///
    /// # Errors
    /// A write error.
    pub fn ops(&mut self, thread: usize, ops: &[LineOp], path: &Path) -> Result<(), SimError> {
        assert!(thread < self.threads, "thread {thread} of {}", self.threads);
        for run in ops.chunks(RUN_MAX) {
            self.raw.push(ITEM_OPS);
            put_uvarint(&mut self.raw, thread as u64);
            put_uvarint(&mut self.raw, run.len() as u64);
            for op in run {
                let (code, addr) = match *op {
                    LineOp::Read(a) => (OP_READ, Some(a)),
                    LineOp::Write(a) => (OP_WRITE, Some(a)),
                    LineOp::Lock(a) => (OP_LOCK, Some(a)),
                    LineOp::Unlock(a) => (OP_UNLOCK, Some(a)),
                    LineOp::Compute(c) => {
                        self.raw.push(OP_COMPUTE);
                        put_uvarint(&mut self.raw, c as u64);
                        continue;
                    }
                    LineOp::Barrier => (OP_BARRIER, None),
                    LineOp::EndInit => (OP_END_INIT, None),
                };
                self.raw.push(code);
                if let Some(a) = addr {
                    put_uvarint(&mut self.raw, zigzag(a.wrapping_sub(self.prev[thread]) as i64));
                    self.prev[thread] = a;
                }
            }
            self.runs += 1;
            self.ops += run.len() as u64;
            if self.raw.len() >= BLOCK_TARGET {
                flush_block(&mut self.out, &mut self.raw, path)?;
            }
        }
        Ok(())
    }

    /// Ends the trace: the last block and the end marker with the run and operation totals.
    ///
    /// # Errors
    /// A write error.
    pub fn finish(mut self, path: &Path) -> Result<(u64, u64), SimError> {
        flush_block(&mut self.out, &mut self.raw, path)?;
        write_end(&mut self.out, self.runs, self.ops, path)?;
        Ok((self.runs, self.ops))
    }
}

/// Writes `program` as a line-level trace at `path` (by the output rule of
/// [`crate::output::write_with`]), interleaving threads by barrier phase. Returns the runs and
/// operations written.
///
/// # Errors
/// An invalid region table, a program error, or a write error.
pub fn export_line(
    program: &mut dyn LineProgram,
    page_size: u64,
    line_size: u64,
    meta: Vec<(String, String)>,
    path: &Path,
) -> Result<(u64, u64), SimError> {
    let header = LineTraceHeader { page_size, line_size, threads: program.threads(), regions: program.regions().to_vec(), meta };
    crate::output::write_with(path, |file| {
        let mut w = LineTraceWriter::new(BufWriter::new(file), &header, path)?;
        let threads = header.threads;
        let mut pending: Vec<Vec<LineOp>> = vec![Vec::new(); threads];
        let mut done = vec![false; threads];
        loop {
            let mut wrote = false;
            for t in 0..threads {
                // Thread t's operations up to and including its next barrier.
                loop {
                    if pending[t].is_empty() && (done[t] || !program.fill(t, &mut pending[t])) {
                        done[t] = true;
                        break;
                    }
                    wrote = true;
                    match pending[t].iter().position(|op| *op == LineOp::Barrier) {
                        Some(i) => {
                            w.ops(t, &pending[t][..=i], path)?;
                            pending[t].drain(..=i);
                            break;
                        }
                        None => {
                            w.ops(t, &pending[t], path)?;
                            pending[t].clear();
                        }
                    }
                }
            }
            if !wrote {
                break;
            }
        }
        if let Some(e) = program.take_error() {
            return Err(e);
        }
        w.finish(path)
    })
}

/// What the reader knows of one thread, to check the program contract as it decodes.
#[derive(Clone, Debug, Default)]
struct ThreadState {
    prev: u64,
    barriers: u64,
    /// Barriers before its `EndInit`, once seen.
    end_init: Option<u64>,
    /// Whether the previous operation was a barrier, or there was none.
    at_phase_start: bool,
    lock: Option<Addr>,
}

/// A line-level trace opened for replay: a [`LineProgram`] whose operations come from a file.
pub struct LineTrace {
    path: String,
    header: LineTraceHeader,
    blocks: std::sync::mpsc::Receiver<Result<Next, SimError>>,
    raw: Vec<u8>,
    block_at: u64,
    pos: usize,
    queues: Vec<VecDeque<LineOp>>,
    buffered: usize,
    /// [`MAX_BUFFERED_OPS`], lowered by tests.
    max_buffered: usize,
    state: Vec<ThreadState>,
    runs: u64,
    ops: u64,
    finished: bool,
    error: Option<SimError>,
}

impl LineTrace {
    /// Opens the line-level trace at `path` and reads its header.
    ///
    /// # Errors
    /// An unreadable file, bad magic, another version, a truncated or corrupt header.
    pub fn open(path: &Path) -> Result<Self, SimError> {
        let file = std::fs::File::open(path).map_err(|e| SimError::io(path, e))?;
        Self::from_reader(Box::new(file), &shown_path(path))
    }

    /// Reads a line-level trace from any byte stream; `name` stands for the file in messages.
    ///
    /// # Errors
    /// As [`LineTrace::open`].
    pub fn from_reader(input: Box<dyn Read + Send>, name: &str) -> Result<Self, SimError> {
        let mut reader = BlockReader::new(input, name, 1 << 16);
        let body = reader.read_frame(VERSION_LINE)?;
        let header = LineTraceHeader::parse(&body).map_err(|(p, m)| reader.err(16 + p as u64, m))?;
        header.validate().map_err(|m| SimError::Trace { path: name.to_string(), at: "header".into(), message: m })?;
        let (tx, rx) = std::sync::mpsc::sync_channel(2);
        std::thread::Builder::new()
            .name("numaplace-trace-reader".into())
            .spawn(move || reader.run(tx))
            .map_err(|e| SimError::Io { path: name.to_string(), message: format!("cannot start the reader thread: {e}") })?;
        let threads = header.threads;
        Ok(LineTrace {
            path: name.to_string(),
            header,
            blocks: rx,
            raw: Vec::new(),
            block_at: 0,
            pos: 0,
            queues: vec![VecDeque::new(); threads],
            buffered: 0,
            max_buffered: MAX_BUFFERED_OPS,
            state: vec![ThreadState { at_phase_start: true, ..Default::default() }; threads],
            runs: 0,
            ops: 0,
            finished: false,
            error: None,
        })
    }

    pub fn header(&self) -> &LineTraceHeader {
        &self.header
    }

    fn err_at(&self, at: String, message: impl Into<String>) -> SimError {
        SimError::Trace { path: self.path.clone(), at, message: message.into() }
    }

    /// Reads one item (a run) into the queues, or the end marker; errors as they come.
    fn read_item(&mut self) -> Result<(), SimError> {
        if self.pos >= self.raw.len() {
            let next = self.blocks.recv().map_err(|_| SimError::Io {
                path: self.path.clone(),
                message: "the trace reader thread stopped unexpectedly".into(),
            })??;
            match next {
                Next::Block { at, raw } => {
                    self.raw = raw;
                    self.block_at = at;
                    self.pos = 0;
                }
                Next::End { at, epochs: runs, records: ops } => {
                    self.finished = true;
                    let at = format!("byte {at}");
                    if (runs, ops) != (self.runs, self.ops) {
                        let m = format!("end marker counts {runs} runs and {ops} operations, the file holds {} and {}", self.runs, self.ops);
                        return Err(self.err_at(at, m));
                    }
                    return self.check_end().map_err(|m| self.err_at(at, m));
                }
            }
            return Ok(());
        }
        let block_at = self.block_at;
        let at = |p: usize| format!("block at byte {block_at}, payload byte {p}");
        let raw = std::mem::take(&mut self.raw);
        let mut c = Cursor { buf: &raw, pos: self.pos };
        let item_at = c.pos;
        let r = decode_run(&mut c, &self.header, &mut self.state);
        let end = c.pos;
        self.raw = raw;
        let (t, ops) = r.map_err(|(p, m)| self.err_at(at(p), m))?;
        self.pos = end;
        self.runs += 1;
        self.ops += ops.len() as u64;
        self.buffered += ops.len();
        if self.buffered > self.max_buffered {
            let m = format!(
                "more than {} operations buffered for threads that have not reached them: the file does not interleave threads by barrier phase",
                self.max_buffered
            );
            return Err(self.err_at(at(item_at), m));
        }
        self.queues[t].extend(ops);
        Ok(())
    }

    /// The checks only the end of the file can make.
    fn check_end(&self) -> Result<(), String> {
        let first = &self.state[0];
        for (t, s) in self.state.iter().enumerate() {
            if let Some(l) = s.lock {
                return Err(format!("thread {t} ends holding the lock at {l:#x}"));
            }
            if s.barriers != first.barriers {
                return Err(format!("thread {t} states {} barriers, thread 0 states {}", s.barriers, first.barriers));
            }
            match (s.end_init, first.end_init) {
                (None, _) => return Err(format!("thread {t} never states the end of initialisation")),
                (Some(a), Some(b)) if a != b => {
                    return Err(format!("thread {t} ends initialisation after {a} barriers, thread 0 after {b}"))
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// Decodes one item at the cursor: a run of one thread's operations, checked against the
/// regions and the program contract (the thread's state is updated only if all of it is
/// valid). Returns the thread and its operations.
fn decode_run(c: &mut Cursor<'_>, header: &LineTraceHeader, state: &mut [ThreadState]) -> Result<(usize, Vec<LineOp>), (usize, String)> {
    let item_at = c.pos;
    let tag = c.u8("an item tag")?;
    if tag != ITEM_OPS {
        return Err((item_at, format!("expected an operation run (0x11), found item tag {tag:#04x}")));
    }
    let t = c.uvarint("a run's thread")?;
    if t >= header.threads as u64 {
        return Err((item_at, format!("run thread {t} out of range (the trace has {} threads)", header.threads)));
    }
    let n = c.uvarint("a run's operation count")?;
    if n == 0 || n > RUN_MAX as u64 || n > (c.buf.len() - c.pos) as u64 {
        return Err((item_at, format!("run of {n} operations: expected 1..={RUN_MAX}, within the block")));
    }
    let t = t as usize;
    let mut ops = Vec::with_capacity(n as usize);
    let mut st = state[t].clone();
    for _ in 0..n {
        let op_at = c.pos;
        let code = c.u8("an opcode")?;
        let op = match code {
            OP_READ | OP_WRITE | OP_LOCK | OP_UNLOCK => {
                let d = unzigzag(c.uvarint("an address delta")?);
                let a = st.prev.wrapping_add(d as u64);
                st.prev = a;
                if !in_regions(&header.regions, a) {
                    return Err((op_at, format!("thread {t}: address {a:#x} lies in no region")));
                }
                match code {
                    OP_READ => LineOp::Read(a),
                    OP_WRITE => LineOp::Write(a),
                    OP_LOCK => LineOp::Lock(a),
                    _ => LineOp::Unlock(a),
                }
            }
            OP_COMPUTE => {
                let v = c.uvarint("a cycle count")?;
                LineOp::Compute(u32::try_from(v).map_err(|_| (op_at, format!("thread {t}: compute of {v} cycles exceeds 2^32 - 1")))?)
            }
            OP_BARRIER => LineOp::Barrier,
            OP_END_INIT => LineOp::EndInit,
            other => return Err((op_at, format!("thread {t}: unknown opcode {other}"))),
        };
        check_op(&mut st, t, op).map_err(|m| (op_at, m))?;
        ops.push(op);
    }
    state[t] = st;
    Ok((t, ops))
}

/// Whether `a` lies in one of the (sorted) regions.
fn in_regions(regions: &[LineRegion], a: Addr) -> bool {
    let i = regions.partition_point(|r| r.base <= a);
    i > 0 && a - regions[i - 1].base < regions[i - 1].bytes
}

/// Checks one operation against the program contract and updates the thread's state.
fn check_op(st: &mut ThreadState, t: usize, op: LineOp) -> Result<(), String> {
    let phase_start = std::mem::replace(&mut st.at_phase_start, false);
    match op {
        LineOp::Barrier => {
            if let Some(l) = st.lock {
                return Err(format!("thread {t}: barrier while holding the lock at {l:#x}"));
            }
            st.barriers += 1;
            st.at_phase_start = true;
        }
        LineOp::Lock(a) => {
            if let Some(l) = st.lock {
                return Err(format!("thread {t}: lock at {a:#x} while holding the lock at {l:#x}"));
            }
            st.lock = Some(a);
        }
        LineOp::Unlock(a) => {
            if st.lock != Some(a) {
                return Err(format!("thread {t}: unlock at {a:#x} of a lock it does not hold"));
            }
            st.lock = None;
        }
        LineOp::EndInit => {
            if st.end_init.is_some() {
                return Err(format!("thread {t}: a second end of initialisation"));
            }
            if !phase_start {
                return Err(format!("thread {t}: end of initialisation not directly after a barrier"));
            }
            st.end_init = Some(st.barriers);
            // Still at the phase's start: nothing has happened since the barrier.
            st.at_phase_start = true;
        }
        LineOp::Read(_) | LineOp::Write(_) | LineOp::Compute(_) => {}
    }
    Ok(())
}

impl LineProgram for LineTrace {
    /// The recorded program's name (its `source` spec's, before any parameters), else `trace`.
    fn name(&self) -> &str {
        self.header.meta("source").and_then(|s| s.split(':').next()).filter(|s| !s.is_empty()).unwrap_or("trace")
    }

    fn threads(&self) -> usize {
        self.header.threads
    }

    fn regions(&self) -> &[LineRegion] {
        &self.header.regions
    }

    fn fill(&mut self, thread: usize, out: &mut Vec<LineOp>) -> bool {
        while self.error.is_none() && self.queues[thread].is_empty() && !self.finished {
            if let Err(e) = self.read_item() {
                self.error = Some(e);
            }
        }
        if self.error.is_some() || self.queues[thread].is_empty() {
            return false;
        }
        let q = &mut self.queues[thread];
        let n = q.len().min(CHUNK);
        out.extend(q.drain(..n));
        self.buffered -= n;
        true
    }

    fn take_error(&mut self) -> Option<SimError> {
        self.error.take()
    }
}

/// Summary of a line-level trace, as `numaplace trace info` prints it.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct LineTraceInfo {
    pub format: &'static str,
    pub page_size: u64,
    pub line_size: u64,
    pub threads: usize,
    /// `(name, base, bytes, proxy)`.
    pub regions: Vec<(String, u64, u64, bool)>,
    pub meta: Vec<(String, String)>,
    pub operations: u64,
    pub reads: u64,
    pub writes: u64,
    pub compute_cycles: u64,
    /// Barriers per thread.
    pub barriers: u64,
    pub locks: u64,
}

/// Reads a whole line-level program (thread after thread, a chunk each in turn) and summarises
/// it; for a trace, this checks the whole file.
///
/// # Errors
/// The program's error (a malformed trace).
pub fn summarise(p: &mut dyn LineProgram) -> Result<LineTraceInfo, SimError> {
    let threads = p.threads();
    let mut info = LineTraceInfo {
        format: "line",
        threads,
        regions: p.regions().iter().map(|r| (r.name.clone(), r.base, r.bytes, r.proxy)).collect(),
        ..Default::default()
    };
    let mut done = vec![false; threads];
    let mut buf = Vec::with_capacity(CHUNK);
    while done.iter().any(|d| !d) {
        for t in 0..threads {
            if done[t] {
                continue;
            }
            buf.clear();
            if !p.fill(t, &mut buf) {
                done[t] = true;
                continue;
            }
            for op in &buf {
                info.operations += 1;
                match op {
                    LineOp::Read(_) => info.reads += 1,
                    LineOp::Write(_) => info.writes += 1,
                    LineOp::Compute(c) => info.compute_cycles += *c as u64,
                    LineOp::Barrier if t == 0 => info.barriers += 1,
                    LineOp::Lock(_) => info.locks += 1,
                    _ => {}
                }
            }
        }
    }
    match p.take_error() {
        Some(e) => Err(e),
        None => Ok(info),
    }
}

/// Reads and summarises the line-level trace at `path`.
///
/// # Errors
/// Any malformed part of the file.
pub fn info(path: &Path) -> Result<LineTraceInfo, SimError> {
    let file = std::fs::File::open(path).map_err(|e| SimError::io(path, e))?;
    info_from_reader(Box::new(file), &shown_path(path))
}

/// Reads a line-level trace from a byte stream and summarises it; `name` stands for the file in
/// messages.
///
/// # Errors
/// Any malformed part of the stream.
pub fn info_from_reader(input: Box<dyn Read + Send>, name: &str) -> Result<LineTraceInfo, SimError> {
    let mut t = LineTrace::from_reader(input, name)?;
    let h = t.header().clone();
    let mut info = summarise(&mut t)?;
    info.page_size = h.page_size;
    info.line_size = h.line_size;
    info.meta = h.meta;
    Ok(info)
}

/// The version of the trace at `path` from its header's first bytes: 1 for a page-level trace,
/// 2 for a line-level one; `None` for a text trace (page level) or what is no trace at all.
/// This opens the file: to read a trace of either level from a pipe, use
/// [`super::info_any`], which opens it once.
pub fn version_of(path: &Path) -> Option<u16> {
    let mut f = std::fs::File::open(path).ok()?;
    let mut first = [0u8; 10];
    f.read_exact(&mut first).ok()?;
    (&first[..8] == super::MAGIC).then(|| u16::from_le_bytes([first[8], first[9]]))
}

// The page-level version, for the message that tells the two apart.
const _: () = assert!(VERSION != VERSION_LINE);

/// Reads a whole line-level trace from bytes, as the `line_reader` fuzz target does: returns
/// the number of operations, or the error.
#[doc(hidden)]
pub fn read_line_all_for_fuzz(bytes: &[u8]) -> Result<u64, SimError> {
    let mut t = LineTrace::from_reader(Box::new(std::io::Cursor::new(bytes.to_vec())), "input")?;
    Ok(summarise(&mut t)?.operations)
}

#[cfg(test)]
mod tests;
