//! Pass 1 of the conversion: every chunk of the raw stream read once, for the header, the
//! tracked allocations, each epoch's boundaries and the offsets of its record chunks, the pages
//! touched, the counters and the end.

use crate::raw::{self, Chunk, Cur, Reader};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

pub(super) struct Alloc {
    pub(super) addr: u64,
    pub(super) size: u64,
    pub(super) site: Site,
}

/// A code address, as the library saw it: absolute, and its module's load base and path.
#[derive(Clone, Default)]
pub(super) struct Site {
    pub(super) pc: u64,
    pub(super) base: u64,
    pub(super) module: String,
    pub(super) sym: String,
}

#[derive(Default)]
pub(super) struct EpochInfo {
    /// Threads that reached the epoch's end.
    pub(super) ended: HashSet<u32>,
    /// Threads with records, and the offsets and lengths of their record chunks, in file order.
    pub(super) chunks: Vec<(u64, usize)>,
    pub(super) threads: HashSet<u32>,
    /// Thread 0's boundary: kind and code pointer.
    pub(super) kind: u8,
    pub(super) site: Site,
}

pub(super) struct Pass1 {
    pub(super) page_size: u64,
    pub(super) line_size: u64,
    pub(super) cache_bytes: u64,
    pub(super) ways: u32,
    pub(super) exe: String,
    pub(super) allocs: Vec<Alloc>,
    pub(super) epochs: BTreeMap<u32, EpochInfo>,
    pub(super) pages: HashSet<u64>,
    pub(super) counters: Vec<(String, u64)>,
    pub(super) maps: String,
    pub(super) end: Option<(u32, u32)>,
    pub(super) cut: bool,
    /// Sampled mode: (windows per cycle, lines per page); None in exact mode.
    pub(super) sampling: Option<(u32, u32)>,
}

/// An error naming the raw stream's file.
pub(super) fn err(path: &Path, m: impl std::fmt::Display) -> String {
    format!("{}: {m}", path.display())
}

pub(super) fn pass1(path: &Path) -> Result<Pass1, String> {
    let mut r = Reader::open(path).map_err(|e| err(path, e))?;
    let mut p = Pass1 {
        page_size: 0,
        line_size: 0,
        cache_bytes: 0,
        ways: 0,
        exe: String::new(),
        allocs: Vec::new(),
        epochs: BTreeMap::new(),
        pages: HashSet::new(),
        counters: Vec::new(),
        maps: String::new(),
        end: None,
        cut: false,
        sampling: None,
    };
    let mut first = true;
    while let Some(Chunk { kind, offset, payload }) = r.next_chunk().map_err(|e| err(path, e))? {
        let at = |m: String| err(path, format!("chunk at byte {}: {m}", offset - 5));
        let mut c = Cur::new(&payload);
        if first && kind != raw::HEADER {
            return Err(at("expected the header chunk (is this a numaplace recording?)".into()));
        }
        first = false;
        match kind {
            raw::HEADER => {
                p.page_size = c.u32().map_err(at)? as u64;
                p.line_size = c.u32().map_err(at)? as u64;
                p.cache_bytes = c.u64().map_err(at)?;
                p.ways = c.u32().map_err(at)?;
                p.exe = c.str().map_err(at)?;
                if !p.page_size.is_power_of_two() || !p.line_size.is_power_of_two() || p.line_size > p.page_size {
                    return Err(at(format!("bad page size {} or line size {}", p.page_size, p.line_size)));
                }
            }
            raw::ALLOC => {
                let addr = c.u64().map_err(at)?;
                let size = c.u64().map_err(at)?;
                let pc = c.u64().map_err(at)?;
                let base = c.u64().map_err(at)?;
                let module = c.str().map_err(at)?;
                let sym = c.str().map_err(at)?;
                p.allocs.push(Alloc { addr, size, site: Site { pc, base, module, sym } });
            }
            raw::FREE => {}
            raw::RECORDS => {
                let thread = c.u32().map_err(at)?;
                let epoch = c.u32().map_err(at)?;
                if (payload.len() - 8) % raw::RECORD_BYTES != 0 {
                    return Err(at("records chunk of a partial record".into()));
                }
                while !c.done() {
                    let v = c.u64().map_err(at)? & !raw::FT_BIT;
                    c.u64().map_err(at)?;
                    c.u64().map_err(at)?;
                    p.pages.insert(v);
                }
                let e = p.epochs.entry(epoch).or_default();
                e.chunks.push((offset, payload.len()));
                e.threads.insert(thread);
            }
            raw::EPOCH => {
                let thread = c.u32().map_err(at)?;
                let epoch = c.u32().map_err(at)?;
                let k = c.u8().map_err(at)?;
                let pc = c.u64().map_err(at)?;
                let base = c.u64().map_err(at)?;
                let module = c.str().map_err(at)?;
                let sym = c.str().map_err(at)?;
                let e = p.epochs.entry(epoch).or_default();
                e.ended.insert(thread);
                if thread == 0 {
                    e.kind = k;
                    e.site = Site { pc, base, module, sym };
                }
            }
            raw::COUNTERS => {
                while !c.done() {
                    let name = c.str().map_err(at)?;
                    let v = c.u64().map_err(at)?;
                    p.counters.push((name, v));
                }
            }
            raw::SAMPLING => {
                let k = c.u32().map_err(at)?;
                let lines = c.u32().map_err(at)?;
                if k == 0 || lines == 0 {
                    return Err(at(format!("bad sampling chunk (windows {k}, lines per page {lines})")));
                }
                p.sampling = Some((k, lines));
            }
            raw::MAPS => p.maps = String::from_utf8_lossy(&payload).into_owned(),
            raw::END => {
                let status = c.u32().map_err(at)?;
                let last = c.u32().map_err(at)?;
                p.end = Some((status, last));
            }
            k => return Err(at(format!("unknown chunk type 0x{k:02x}"))),
        }
    }
    if first {
        return Err(err(path, "empty recording (the program wrote nothing)"));
    }
    p.cut = r.cut;
    Ok(p)
}
