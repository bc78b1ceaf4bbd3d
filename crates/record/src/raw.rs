//! The recording library's raw stream (crates/record/recorder.c): chunks `u32 length, u8 type,
//! payload`, little-endian. A chunk cut short (a crash or a full disk while writing) ends the
//! readable stream.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

pub const HEADER: u8 = b'H';
pub const ALLOC: u8 = b'A';
pub const FREE: u8 = b'F';
pub const RECORDS: u8 = b'R';
pub const EPOCH: u8 = b'E';
pub const COUNTERS: u8 = b'C';
pub const MAPS: u8 = b'M';
pub const END: u8 = b'Z';
/// Sampled mode: u32 windows per cycle (1/rate), u32 lines per page.
pub const SAMPLING: u8 = b'S';

/// The first-touch bit of a record's page.
pub const FT_BIT: u64 = 1 << 63;
/// Bytes of one record: page, reads, writes.
pub const RECORD_BYTES: usize = 24;
/// The largest chunk the library writes (its per-thread buffer, or the maps text).
const CHUNK_MAX: u32 = 1 << 21;

/// Boundary kinds (recorder.c: K_*).
pub fn kind_name(k: u8) -> &'static str {
    match k {
        1 => "fork",
        2 => "barrier",
        3 => "join",
        4 => "exit",
        _ => "boundary",
    }
}

pub struct Chunk {
    pub kind: u8,
    /// File offset of the chunk's payload.
    pub offset: u64,
    pub payload: Vec<u8>,
}

/// Reads chunks in order; `None` at the end of the file or at a chunk cut short.
pub struct Reader {
    input: BufReader<File>,
    pos: u64,
    len: u64,
    /// Set when the stream ended inside a chunk.
    pub cut: bool,
}

impl Reader {
    pub fn open(path: &Path) -> std::io::Result<Reader> {
        let f = File::open(path)?;
        let len = f.metadata()?.len();
        Ok(Reader { input: BufReader::with_capacity(1 << 20, f), pos: 0, len, cut: false })
    }

    pub fn next_chunk(&mut self) -> std::io::Result<Option<Chunk>> {
        if self.pos == self.len {
            return Ok(None);
        }
        if self.len - self.pos < 5 {
            self.cut = true;
            return Ok(None);
        }
        let mut head = [0u8; 5];
        self.input.read_exact(&mut head)?;
        let n = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        if n > CHUNK_MAX || self.len - self.pos - 5 < n as u64 {
            self.cut = true;
            return Ok(None);
        }
        let mut payload = vec![0u8; n as usize];
        self.input.read_exact(&mut payload)?;
        let offset = self.pos + 5;
        self.pos += 5 + n as u64;
        Ok(Some(Chunk { kind: head[4], offset, payload }))
    }

}

/// The raw stream mapped read-only (pass 2 reads each epoch's chunks where pass 1 found them).
/// The library buffers each thread's chunks, so one epoch's chunks lie far apart in the file:
/// a read per chunk made millions of system calls (NPB SP at class W: 3 million epochs, 1.7 GB),
/// and a seek of the buffered reader re-read a whole buffer for each. The stream is the
/// recording's private file and is not written while it is converted.
pub struct Mapped {
    ptr: *const u8,
    len: usize,
}

impl Mapped {
    pub fn open(path: &Path) -> std::io::Result<Mapped> {
        use std::os::unix::io::AsRawFd;
        let f = File::open(path)?;
        let len = usize::try_from(f.metadata()?.len()).map_err(|_| std::io::Error::other("raw stream too large"))?;
        if len == 0 {
            return Ok(Mapped { ptr: std::ptr::NonNull::dangling().as_ptr(), len: 0 });
        }
        // SAFETY: a read-only private mapping of a whole regular file, unmapped in Drop; the
        // slices handed out borrow `self`.
        let p = unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, libc::MAP_PRIVATE, f.as_raw_fd(), 0) };
        if p == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Mapped { ptr: p as *const u8, len })
    }

    /// The `n` bytes at `offset` (a chunk pass 1 read whole, so within the file).
    pub fn at(&self, offset: u64, n: usize) -> std::io::Result<&[u8]> {
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        if start > self.len || self.len - start < n {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "chunk beyond the raw stream's end"));
        }
        // SAFETY: within the mapping, which lives as long as `self`.
        Ok(unsafe { std::slice::from_raw_parts(self.ptr.add(start), n) })
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        if self.len > 0 {
            // SAFETY: the mapping made in `open`.
            unsafe { libc::munmap(self.ptr as *mut libc::c_void, self.len) };
        }
    }
}

/// A cursor over a payload; every read is checked (a malformed chunk is an error, not a panic).
pub struct Cur<'a> {
    pub b: &'a [u8],
    pub i: usize,
}

impl<'a> Cur<'a> {
    pub fn new(b: &'a [u8]) -> Self {
        Cur { b, i: 0 }
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.b.len() - self.i < n {
            return Err(format!("chunk payload ends at byte {} (needed {n} more)", self.b.len()));
        }
        let s = &self.b[self.i..self.i + n];
        self.i += n;
        Ok(s)
    }
    pub fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }
    pub fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    pub fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
    pub fn str(&mut self) -> Result<String, String> {
        let n = u16::from_le_bytes(self.take(2)?.try_into().unwrap()) as usize;
        Ok(String::from_utf8_lossy(self.take(n)?).into_owned())
    }
    pub fn done(&self) -> bool {
        self.i == self.b.len()
    }
}
