//! The container that page-level traces share with line-level ones ([`crate::trace::line`]):
//! a checksummed header frame, LZ4 blocks each with the CRC-32 of its contents, the end marker
//! with the file's totals, and the fields inside them (varints, zigzag integers, strings), with
//! the block reader that reads ahead on a thread of its own and the bounds-checked [`Cursor`].

use crate::error::SimError;
use crate::trace::{TraceHeader, MAGIC, MAX_HEADER_BYTES, MAX_REGIONS, VERSION, VERSION_LINE};
use numaplace_model::Region;
use std::io::{BufReader, Read, Write};
use std::path::Path;

const TAG_BLOCK: u8 = b'B';
const TAG_STORED: u8 = b'S';
const TAG_END: u8 = b'Z';
/// The largest raw block a reader accepts: bounds the memory a corrupt length can demand.
const BLOCK_MAX: usize = 16 * 1024 * 1024;

pub(in crate::trace) fn put_uvarint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub(in crate::trace) fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

pub(in crate::trace) fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

pub(in crate::trace) fn put_str(out: &mut Vec<u8>, s: &str) {
    let b = &s.as_bytes()[..s.len().min(u16::MAX as usize)];
    out.extend_from_slice(&(b.len() as u16).to_le_bytes());
    out.extend_from_slice(b);
}

/// Writes a header frame: magic, `version`, flags 0, the body's length, the body, and the
/// CRC-32 of all of it.
pub(in crate::trace) fn write_frame<W: Write>(out: &mut W, version: u16, body: &[u8], path: &Path) -> Result<(), SimError> {
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
pub(in crate::trace) fn flush_block<W: Write>(out: &mut W, raw: &mut Vec<u8>, path: &Path) -> Result<(), SimError> {
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
pub(in crate::trace) fn write_end<W: Write>(out: &mut W, a: u64, b: u64, path: &Path) -> Result<(), SimError> {
    let mut end = vec![TAG_END];
    end.extend_from_slice(&a.to_le_bytes());
    end.extend_from_slice(&b.to_le_bytes());
    out.write_all(&end).map_err(|e| SimError::io(path, e))?;
    out.flush().map_err(|e| SimError::io(path, e))
}

/// What the block reader hands to the parser.
pub(in crate::trace) enum Next {
    /// A block's raw (checked, decompressed) payload and the block's file offset.
    Block { at: u64, raw: Vec<u8> },
    /// The end marker, at file offset `at`, with the totals it declares.
    End { at: u64, epochs: u64, records: u64 },
}

/// Blocks of a trace read ahead on a thread of their own, so that reading the file, checking
/// checksums and decompressing overlap with decoding records (two blocks in flight at most).
pub(in crate::trace) struct BlockReader {
    path: String,
    input: BufReader<Box<dyn Read + Send>>,
    /// File offset of the next unread byte.
    offset: u64,
    packed: Vec<u8>,
}

impl BlockReader {
    /// A reader of `input` (`name` stands for the file in messages), buffering `buffer` bytes.
    pub(in crate::trace) fn new(input: Box<dyn Read + Send>, name: &str, buffer: usize) -> Self {
        BlockReader { path: name.to_string(), input: BufReader::with_capacity(buffer, input), offset: 0, packed: Vec::new() }
    }

    /// An error at file offset `at`.
    pub(in crate::trace) fn err(&self, at: u64, message: impl Into<String>) -> SimError {
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
    pub(in crate::trace) fn read_frame(&mut self, expect: u16) -> Result<Vec<u8>, SimError> {
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

    pub(super) fn read_header(&mut self) -> Result<TraceHeader, SimError> {
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
    pub(in crate::trace) fn next_block(&mut self) -> Result<Next, SimError> {
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
    pub(in crate::trace) fn run(mut self, out: std::sync::mpsc::SyncSender<Result<Next, SimError>>) {
        loop {
            let next = self.next_block();
            let last = !matches!(next, Ok(Next::Block { .. }));
            if out.send(next).is_err() || last {
                return;
            }
        }
    }
}

/// A bounds-checked reader over a byte slice; errors carry the offset and what was expected.
pub(in crate::trace) struct Cursor<'a> {
    pub(in crate::trace) buf: &'a [u8],
    pub(in crate::trace) pos: usize,
}

pub(in crate::trace) type CursorResult<T> = Result<T, (usize, String)>;

impl<'a> Cursor<'a> {
    pub(in crate::trace) fn bytes(&mut self, n: usize, what: &str) -> CursorResult<&'a [u8]> {
        if self.buf.len() - self.pos < n {
            return Err((self.pos, format!("expected {what} ({n} bytes), found only {} (truncated)", self.buf.len() - self.pos)));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    pub(in crate::trace) fn u8(&mut self, what: &str) -> CursorResult<u8> {
        Ok(self.bytes(1, what)?[0])
    }
    pub(in crate::trace) fn u16(&mut self, what: &str) -> CursorResult<u16> {
        Ok(u16::from_le_bytes(self.bytes(2, what)?.try_into().expect("2 bytes")))
    }
    pub(in crate::trace) fn u32(&mut self, what: &str) -> CursorResult<u32> {
        Ok(u32::from_le_bytes(self.bytes(4, what)?.try_into().expect("4 bytes")))
    }
    pub(in crate::trace) fn f64(&mut self, what: &str) -> CursorResult<f64> {
        Ok(f64::from_le_bytes(self.bytes(8, what)?.try_into().expect("8 bytes")))
    }
    pub(in crate::trace) fn string(&mut self, what: &str) -> CursorResult<String> {
        let n = self.u16(what)? as usize;
        let at = self.pos;
        let b = self.bytes(n, what)?;
        String::from_utf8(b.to_vec()).map_err(|_| (at, format!("{what} is not UTF-8")))
    }
    pub(in crate::trace) fn uvarint(&mut self, what: &str) -> CursorResult<u64> {
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
