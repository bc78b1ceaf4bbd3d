//! Raw stream → numaplace trace (docs/trace-format.md) and a JSON summary (docs/record.md).
//!
//! Pass 1 reads every chunk: the header, the tracked allocations, each epoch's boundaries and
//! the offsets of its record chunks, the pages touched, the counters and the end. From these it
//! fixes the regions (one per allocation call, then one per kind of untracked memory), the
//! epochs kept (whole, with records), their phase names and iterations. Pass 2 reads each
//! kept epoch's record chunks and writes the trace, one epoch at a time.

use crate::raw::{self, Chunk, Cur, Reader};
use numaplace_model::Region;
use numaplace_sim::trace::{TraceHeader, TraceWriter};
use numaplace_sim::workload::{Epoch, Op, ThreadWork, Txn};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::process::Command;

pub struct Options {
    pub raw: PathBuf,
    pub out: PathBuf,
    pub summary: Option<PathBuf>,
    pub iteration_marker: Option<String>,
    /// How the program ended, as `numaplace record` saw it (`exit 0`, `signal 11`, ...).
    pub status: String,
    /// The command recorded, for the trace's `source` metadata.
    pub command: String,
    /// Also write every page's transactions per thread, summed over the epochs, as JSON
    /// (`{"threads", "counts": [[trace page, thread, reads, writes], ...]}`): the sampled mode's
    /// error is measured on these (python/numaplace/record.py `page_counts`).
    pub page_counts: Option<PathBuf>,
}

struct Alloc {
    addr: u64,
    size: u64,
    site: Site,
}

/// A code address, as the library saw it: absolute, and its module's load base and path.
#[derive(Clone, Default)]
struct Site {
    pc: u64,
    base: u64,
    module: String,
    sym: String,
}

#[derive(Default)]
struct EpochInfo {
    /// Threads that reached the epoch's end.
    ended: HashSet<u32>,
    /// Threads with records, and the offsets and lengths of their record chunks, in file order.
    chunks: Vec<(u64, usize)>,
    threads: HashSet<u32>,
    /// Thread 0's boundary: kind and code pointer.
    kind: u8,
    site: Site,
}

struct Pass1 {
    page_size: u64,
    line_size: u64,
    cache_bytes: u64,
    ways: u32,
    exe: String,
    allocs: Vec<Alloc>,
    epochs: BTreeMap<u32, EpochInfo>,
    pages: HashSet<u64>,
    counters: Vec<(String, u64)>,
    maps: String,
    end: Option<(u32, u32)>,
    cut: bool,
    /// Sampled mode: (windows per cycle, lines per page); None in exact mode.
    sampling: Option<(u32, u32)>,
}

/// The error's words when whole epochs hold no access (`numaplace record` recognises them).
pub const NO_ACCESS_COUNTED: &str = "no memory access was counted in the recording's whole epochs";

fn err(o: &Options, m: impl std::fmt::Display) -> String {
    format!("{}: {m}", o.raw.display())
}

fn pass1(o: &Options) -> Result<Pass1, String> {
    let mut r = Reader::open(&o.raw).map_err(|e| err(o, e))?;
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
    while let Some(Chunk { kind, offset, payload }) = r.next_chunk().map_err(|e| err(o, e))? {
        let at = |m: String| err(o, format!("chunk at byte {}: {m}", offset - 5));
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
        return Err(err(o, "empty recording (the program wrote nothing)"));
    }
    p.cut = r.cut;
    Ok(p)
}

/// Source locations of code addresses, through `addr2line` (binutils) when it is installed:
/// per address, the chain of functions (innermost first, inlined frames included) and the
/// innermost `file:line`.
struct Symbols {
    map: HashMap<u64, (Vec<String>, String)>,
}

fn is_pie(module: &str) -> bool {
    // ELF e_type at byte 16: 3 = ET_DYN (PIE or shared object), 2 = ET_EXEC.
    use std::io::Read;
    let mut head = [0u8; 18];
    match std::fs::File::open(module).and_then(|mut f| f.read_exact(&mut head)) {
        Ok(()) => head[16] == 3,
        Err(_) => true,
    }
}

impl Symbols {
    fn resolve(sites: &[&Site]) -> Symbols {
        let mut by_module: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
        for s in sites {
            if s.base != 0 && !s.module.is_empty() {
                by_module.entry(&s.module).or_default().push(s.pc);
            }
        }
        let mut map = HashMap::new();
        for (module, mut pcs) in by_module {
            pcs.sort_unstable();
            pcs.dedup();
            let base = sites.iter().find(|s| s.module == module).map_or(0, |s| s.base);
            let rel = if is_pie(module) { base } else { 0 };
            // A return address points after the call: look up the call instruction's byte.
            let args: Vec<String> = pcs.iter().map(|pc| format!("0x{:x}", pc - rel - 1)).collect();
            let Ok(out) = Command::new("addr2line").args(["-a", "-f", "-i", "-C", "-e", module]).args(&args).output() else {
                break;
            };
            if !out.status.success() {
                continue;
            }
            let text = String::from_utf8_lossy(&out.stdout);
            let mut cur: Option<u64> = None;
            let mut lines = text.lines();
            let mut entry: (Vec<String>, String) = (Vec::new(), String::new());
            while let Some(l) = lines.next() {
                if let Some(hex) = l.strip_prefix("0x") {
                    if let Some(pc) = cur.take() {
                        map.insert(pc, std::mem::take(&mut entry));
                    }
                    cur = u64::from_str_radix(hex, 16).ok().map(|a| a + rel + 1);
                    continue;
                }
                // Frames come innermost first (inlined functions, then the function they are
                // inlined into); each location is where the next frame out is.
                let loc = lines.next().unwrap_or("??:0");
                if l != "??" {
                    entry.0.push(l.to_string());
                }
                if !loc.starts_with("??") {
                    let file = loc.rsplit('/').next().unwrap_or(loc);
                    entry.1 = file.split(" (").next().unwrap_or(file).to_string();
                }
            }
            if let Some(pc) = cur {
                map.insert(pc, entry);
            }
        }
        Symbols { map }
    }

    /// `function file:line` of the outermost frame (the function the code was compiled into,
    /// and the line in it, through inlined calls), else `symbol+0xoff`, else `module+0xoff`.
    fn name(&self, s: &Site) -> String {
        if s.pc == 0 {
            return "end".into();
        }
        if let Some((funcs, loc)) = self.map.get(&s.pc) {
            if let Some(f) = funcs.last() {
                return if loc.is_empty() { f.clone() } else { format!("{f} {loc}") };
            }
        }
        let module = s.module.rsplit('/').next().unwrap_or("");
        if !s.sym.is_empty() {
            format!("{}+0x{:x}", s.sym, s.pc.wrapping_sub(s.base))
        } else if !module.is_empty() {
            format!("{module}+0x{:x}", s.pc.wrapping_sub(s.base))
        } else {
            format!("0x{:x}", s.pc)
        }
    }

    /// Whether code address `s` lies in function `f` (any frame of its inlined chain, or the
    /// dynamic symbol).
    fn in_function(&self, s: &Site, f: &str) -> bool {
        s.sym == f || self.map.get(&s.pc).is_some_and(|(funcs, _)| funcs.iter().any(|g| g == f || g.starts_with(&format!("{f}("))))
    }
}

/// The longest period [`iterations`] looks for: `L` ≤ this, and `L × epochs` ≤ [`PERIOD_WORK`].
pub const MAX_PERIOD: usize = 4096;
/// Comparisons [`iterations`] may spend looking for periods (bounds its time on long runs).
pub const PERIOD_WORK: usize = 200_000_000;

/// The iterations of a sequence of phase names (docs/record.md, "Iterations"). The first epoch
/// (up to the first fork) is the initialisation. After it, the longest stretch that repeats a
/// block of `L` phases at least twice (`L` ≤ [`MAX_PERIOD`]; ties: shorter `L`, then earlier
/// start) gives iterations 1, 2, … for its repeats, and one more for a partial repeat at its
/// end; epochs before the stretch are initialisation (0), epochs after it belong to the last
/// iteration. Without a repeat: every epoch after the first is iteration 1.
pub fn iterations(names: &[&str]) -> Vec<u32> {
    let n = names.len();
    // Compare small integers, not strings.
    let mut ids: HashMap<&str, u32> = HashMap::new();
    let seq: Vec<u32> = names.iter().map(|s| { let k = ids.len() as u32; *ids.entry(s).or_insert(k) }).collect();
    let max_l = (n.saturating_sub(1) / 2).min(MAX_PERIOD).min((PERIOD_WORK / n.max(1)).max(64));
    let mut best: Option<(usize, usize, usize)> = None; // (periodic length, L, start)
    for l in 1..=max_l {
        let mut i = 1;
        while i + l < n {
            if seq[i] != seq[i + l] {
                i += 1;
                continue;
            }
            let start = i;
            while i + l < n && seq[i] == seq[i + l] {
                i += 1;
            }
            // seq[start..i+l) is l-periodic.
            let len = i + l - start;
            if len >= 2 * l {
                let better = match best {
                    None => true,
                    Some((c, bl, bs)) => len > c || (len == c && (l < bl || (l == bl && start < bs))),
                };
                if better {
                    best = Some((len, l, start));
                }
            }
        }
    }
    match best {
        None => (0..n).map(|i| u32::from(i > 0)).collect(),
        Some((len, l, start)) => {
            let last = len.div_ceil(l) as u32;
            (0..n)
                .map(|i| if i < start { 0 } else if i < start + len { 1 + ((i - start) / l) as u32 } else { last })
                .collect()
        }
    }
}

/// Iterations from a marker: each marked epoch starts one (the epochs before the first are 0).
fn marker_iterations(in_marker: &[bool]) -> Vec<u32> {
    let mut it = 0;
    in_marker
        .iter()
        .map(|&m| {
            if m {
                it += 1;
            }
            it
        })
        .collect()
}

/// The kind of untracked memory a page lies in, from the program's `/proc/self/maps`.
fn classify(maps: &[(u64, u64, String)], addr: u64, exe: &str) -> String {
    for (lo, hi, name) in maps {
        if *lo <= addr && addr < *hi {
            return if name == "[stack]" {
                "stack".into()
            } else if name == "[heap]" {
                "heap".into()
            } else if name == exe {
                "static data".into()
            } else if name.starts_with('/') {
                format!("static data of {}", name.rsplit('/').next().unwrap_or(name))
            } else {
                "anonymous memory".into()
            };
        }
    }
    "other memory".into()
}

/// The program's data and bss objects of at least `min` bytes, as (name, address, size) at their
/// run-time addresses, from `nm -S` (none when binutils' nm is missing), by address.
fn static_objects(exe: &str, maps: &[(u64, u64, String)], min: u64) -> Vec<(String, u64, u64)> {
    let Ok(out) = Command::new("nm").args(["-S", "-C", "--defined-only", exe]).output() else {
        return Vec::new();
    };
    if !out.status.success() {
        return Vec::new();
    }
    // A position-independent program is loaded at its lowest mapping's address.
    let base = if is_pie(exe) { maps.iter().filter(|m| m.2 == exe).map(|m| m.0).min().unwrap_or(0) } else { 0 };
    let tls = tls_symbols(exe);
    let mut objs: Vec<(String, u64, u64)> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut f = l.splitn(4, ' ');
            let addr = u64::from_str_radix(f.next()?, 16).ok()?;
            let size = u64::from_str_radix(f.next()?, 16).ok()?;
            let kind = f.next()?;
            let name = f.next()?.trim();
            let data = matches!(kind, "b" | "B" | "d" | "D") && !tls.contains(name);
            (data && size >= min).then(|| (name.to_string(), base + addr, size))
        })
        .collect();
    objs.sort_by_key(|o| o.1);
    objs
}

/// The program's thread-local symbols (`readelf`'s type `TLS`, demangled as `nm -C` names them):
/// `nm` lists them as data at their offset in the thread-local block (EP's `threadprivate` `x`
/// at 0), which is no address of the running program; each thread's copy lives elsewhere.
fn tls_symbols(exe: &str) -> HashSet<String> {
    let Ok(out) = Command::new("readelf").args(["-sW", "--demangle", exe]).output() else {
        return HashSet::new();
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            // Num: Value Size Type Bind Vis Ndx Name...
            (f.len() >= 8 && f[3] == "TLS").then(|| f[7..].join(" "))
        })
        .collect()
}

fn parse_maps(text: &str) -> Vec<(u64, u64, String)> {
    text.lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let range = f.next()?;
            let (lo, hi) = range.split_once('-')?;
            let name = f.nth(4).unwrap_or("").to_string();
            Some((u64::from_str_radix(lo, 16).ok()?, u64::from_str_radix(hi, 16).ok()?, name))
        })
        .collect()
}

/// Converts; returns the summary (also written to `o.summary`).
pub fn convert(o: &Options) -> Result<Value, String> {
    let p = pass1(o)?;
    let ps = p.page_size;

    // Epochs kept: whole (thread 0 and every thread with records reached the end), empty or not
    // (an empty phase still marks the program's structure).
    // After a crash, the stream is read up to the first epoch that is not whole.
    let mut kept: Vec<u32> = Vec::new();
    let mut dropped_tail = 0usize;
    let mut empty = 0usize;
    let mut stop = false;
    for (&id, e) in &p.epochs {
        let whole = e.ended.contains(&0) && e.threads.iter().all(|t| e.ended.contains(t));
        if stop || !whole {
            stop = true;
            dropped_tail += usize::from(!e.chunks.is_empty());
            continue;
        }
        empty += usize::from(e.chunks.is_empty());
        kept.push(id);
    }
    let truncated = match (p.end, p.cut) {
        (Some((0, _)), false) if dropped_tail == 0 => None,
        (Some((0, _)), _) => Some("the recording stream was cut short (disk full?)".to_string()),
        (Some((sig, _)), _) => Some(format!("the program was stopped by signal {sig}")),
        (None, _) => Some(format!("the recording has no end ({}; killed, _exit, or disk full?)", o.status)),
    };
    let threads = kept.iter().flat_map(|id| p.epochs[id].threads.iter().copied()).max().map_or(0, |t| t as usize + 1);
    if kept.is_empty() {
        return Err(err(o, "no whole epoch with memory accesses was recorded"));
    }
    if threads == 0 {
        // Whole epochs, but not one access counted in them (sampled mode on a program whose
        // data is all static or in small allocations, which it does not sample).
        let forks = kept.iter().filter(|id| raw::kind_name(p.epochs[id].kind) == "fork").count();
        return Err(err(o, &format!("{NO_ACCESS_COUNTED}: {} whole epochs, {forks} parallel regions", kept.len())));
    }

    // Symbols: allocation sites and epoch ends.
    // dladdr names the main program as it was started (maybe a relative path): use its path.
    let mut p = p;
    let exe = p.exe.clone();
    for s in p.allocs.iter_mut().map(|a| &mut a.site).chain(p.epochs.values_mut().map(|e| &mut e.site)) {
        if !s.module.is_empty() && !s.module.starts_with('/') {
            s.module = exe.clone();
        }
    }
    let mut sites: Vec<&Site> = p.allocs.iter().map(|a| &a.site).collect();
    sites.extend(kept.iter().map(|id| &p.epochs[id].site));
    let syms = Symbols::resolve(&sites);

    // Regions: each tracked allocation (in allocation order) claims its pages not claimed yet;
    // touched pages outside every allocation are grouped by the kind of memory they lie in.
    // Live allocations never overlap, so where two do, the earlier was freed before the later
    // was made: the address's page belongs to its latest allocation (the data it holds when
    // the program ends), and an allocation whose every page was reused has no region.
    let page_range = |addr: u64, size: u64| addr / ps..=(addr + size.max(1) - 1) / ps;
    let mut latest: HashMap<u64, usize> = HashMap::new();
    for (i, a) in p.allocs.iter().enumerate() {
        for v in page_range(a.addr, a.size) {
            latest.insert(v, i);
        }
    }
    let mut page_of: HashMap<u64, u32> = HashMap::new();
    let mut regions: Vec<Region> = Vec::new();
    let mut region_info: Vec<Value> = Vec::new();
    let mut next: u64 = 0;
    let mut names_used: HashMap<String, usize> = HashMap::new();
    let mut unique = |base: String| -> String {
        let n = names_used.entry(base.clone()).or_insert(0);
        *n += 1;
        if *n == 1 {
            base
        } else {
            format!("{base}#{n}")
        }
    };
    // Claims the pages of `range` that `mine` accepts and nothing claimed before, as one region
    // named `name` (none if it claims nothing).
    let mut claim = |range: std::ops::RangeInclusive<u64>, mine: &dyn Fn(u64) -> bool, name: &dyn Fn() -> String, addr: u64, bytes: u64| {
        let first = next;
        for v in range {
            if mine(v) {
                if let std::collections::hash_map::Entry::Vacant(e) = page_of.entry(v) {
                    e.insert(next as u32);
                    next += 1;
                }
            }
        }
        if next > first {
            let name = unique(name());
            region_info.push(json!({"name": name, "first_page": first, "pages": next - first, "bytes": bytes,
                "address": format!("0x{addr:x}"), "tracked": true}));
            regions.push(Region { name, first_page: first as u32, pages: (next - first) as u32 });
        }
    };
    for (i, a) in p.allocs.iter().enumerate() {
        claim(page_range(a.addr, a.size), &|v| latest.get(&v) == Some(&i), &|| syms.name(&a.site), a.addr, a.size);
    }
    // The program's static arrays (data and bss objects of at least a page, from its symbol
    // table through `nm`) are regions named after their symbols.
    let maps = parse_maps(&p.maps);
    for (name, addr, size) in static_objects(&p.exe, &maps, ps) {
        claim(page_range(addr, size), &|_| true, &|| format!("{name} (static)"), addr, size);
    }
    let mut untracked: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for &v in &p.pages {
        if !page_of.contains_key(&v) {
            untracked.entry(classify(&maps, v * ps, &p.exe)).or_default().push(v);
        }
    }
    for (kind, mut pages) in untracked {
        pages.sort_unstable();
        let first = next;
        for v in &pages {
            page_of.insert(*v, next as u32);
            next += 1;
        }
        let name = unique(format!("({kind})"));
        region_info.push(json!({"name": name, "first_page": first, "pages": pages.len(), "bytes": pages.len() as u64 * ps, "tracked": false}));
        regions.push(Region { name, first_page: first as u32, pages: pages.len() as u32 });
    }
    if next > u32::MAX as u64 {
        return Err(err(o, format!("{next} pages: more than a trace holds")));
    }

    // Phases and iterations.
    let phase_names: Vec<String> = kept
        .iter()
        .map(|id| {
            let e = &p.epochs[id];
            let mut s = format!("{} {}", raw::kind_name(e.kind), syms.name(&e.site));
            s.truncate(255);
            while !s.is_char_boundary(s.len()) {
                s.pop();
            }
            s
        })
        .collect();
    let iters = match &o.iteration_marker {
        Some(f) => {
            // The first barrier (or fork) reached inside F marks the start of each iteration:
            // F's first phase ends there each time F runs.
            let inside: Vec<bool> = kept.iter().map(|id| syms.in_function(&p.epochs[id].site, f)).collect();
            let Some(first) = inside.iter().position(|&m| m) else {
                return Err(format!("--iteration-marker {f}: no epoch ends in function {f}"));
            };
            let marks: Vec<bool> = (0..kept.len()).map(|k| inside[k] && phase_names[k] == phase_names[first]).collect();
            marker_iterations(&marks)
        }
        None => iterations(&phase_names.iter().map(String::as_str).collect::<Vec<_>>()),
    };
    let timed = *iters.last().unwrap_or(&0);

    let mut meta = vec![
        ("source".to_string(), format!("record:{}", o.command)),
        ("writer".to_string(), format!("numaplace record {}", env!("CARGO_PKG_VERSION"))),
        ("iterations".to_string(), timed.to_string()),
        ("init".to_string(), "recorded".to_string()),
        ("status".to_string(), o.status.clone()),
    ];
    if p.sampling.is_none() {
        meta.insert(4, ("cache".to_string(), format!("{},{}", p.cache_bytes, p.ways)));
    }
    if let Some((k, lines)) = p.sampling {
        // docs/record.md, "Sampled mode": what a count means.
        meta.push(("counts".to_string(), "sampled".to_string()));
        meta.push(("sampling_rate".to_string(), format!("1/{k}")));
        meta.push((
            "sample_weight".to_string(),
            format!("first touch {lines} lines, window sample {} lines", lines as u64 * k as u64),
        ));
    }
    if let Some(t) = &truncated {
        meta.push(("truncated".to_string(), t.clone()));
    }
    for (k, v) in &p.counters {
        meta.push((format!("count.{k}"), v.to_string()));
    }
    let header = TraceHeader { page_size: ps, line_size: p.line_size, threads, regions, meta };

    // Pass 2.
    let mut r = Reader::open(&o.raw).map_err(|e| err(o, e))?;
    let mut buf = Vec::new();
    let mut epoch_info = Vec::new();
    let mut ft: Vec<(u32, u32, usize)> = Vec::new(); // (trace page, thread, kept epoch index)
    let region_of = |page: u32| header.regions.partition_point(|rg| rg.first_page + rg.pages <= page);
    // Per region and thread: [initialisation (iteration 0), timed iterations].
    let mut region_reads = vec![[vec![0u64; threads], vec![0u64; threads]]; header.regions.len()];
    let mut region_writes = region_reads.clone();
    let mut per_page: BTreeMap<(u32, u32), (u64, u64)> = BTreeMap::new();
    let trace_path = o.out.clone();
    let leaked: Vec<&'static str> = phase_names.iter().map(|s| &*Box::leak(s.clone().into_boxed_str())).collect();
    numaplace_sim::output::write_with(&trace_path, |f| {
        let mut w = TraceWriter::new(std::io::BufWriter::new(f), &header, &trace_path)?;
        let mut ep = Epoch { iteration: 0, phase: "", threads: Vec::new() };
        for (k, id) in kept.iter().enumerate() {
            ep.reset(threads, iters[k], leaked[k]);
            let mut reads = vec![0u64; threads];
            let mut writes = vec![0u64; threads];
            for &(off, len) in &p.epochs[id].chunks {
                r.read_at(off, len, &mut buf).map_err(|e| numaplace_sim::SimError::io(&o.raw, e))?;
                let thread = u32::from_le_bytes(buf[0..4].try_into().unwrap()) as usize;
                let work: &mut ThreadWork = &mut ep.threads[thread];
                for rec in buf[8..].chunks_exact(raw::RECORD_BYTES) {
                    let v = u64::from_le_bytes(rec[0..8].try_into().unwrap());
                    let rd = u64::from_le_bytes(rec[8..16].try_into().unwrap());
                    let wr = u64::from_le_bytes(rec[16..24].try_into().unwrap());
                    let page = page_of[&(v & !raw::FT_BIT)];
                    if v & raw::FT_BIT != 0 {
                        ft.push((page, thread as u32, k));
                    }
                    for (mut n, op) in [(rd, Op::Read), (wr, Op::Write)] {
                        while n > 0 {
                            let c = n.min(u16::MAX as u64);
                            work.txns.push(Txn { page, count: c as u16, op });
                            n -= c;
                        }
                    }
                    reads[thread] += rd;
                    writes[thread] += wr;
                    if o.page_counts.is_some() {
                        let c = per_page.entry((page, thread as u32)).or_default();
                        c.0 += rd;
                        c.1 += wr;
                    }
                    let rg = region_of(page);
                    let timed = usize::from(iters[k] > 0);
                    region_reads[rg][timed][thread] += rd;
                    region_writes[rg][timed][thread] += wr;
                }
            }
            w.epoch(&ep, &trace_path)?;
            epoch_info.push(json!({"raw_epoch": id, "phase": phase_names[k], "iteration": iters[k], "reads": reads, "writes": writes}));
        }
        w.finish(&trace_path)
    })
    .map_err(|e| e.to_string())?;

    // First touches as runs of consecutive pages with the same thread and epoch.
    ft.sort_unstable();
    let mut runs: Vec<[u64; 4]> = Vec::new();
    for (page, thread, k) in ft {
        match runs.last_mut() {
            Some(last) if last[0] + last[1] == page as u64 && last[2] == thread as u64 && last[3] == k as u64 => last[1] += 1,
            _ => runs.push([page as u64, 1, thread as u64, k as u64]),
        }
    }
    for (i, info) in region_info.iter_mut().enumerate() {
        info["init_reads"] = json!(region_reads[i][0]);
        info["init_writes"] = json!(region_writes[i][0]);
        info["reads"] = json!(region_reads[i][1]);
        info["writes"] = json!(region_writes[i][1]);
    }
    let summary = json!({
        "trace": o.out.display().to_string(),
        "command": o.command,
        "status": o.status,
        "truncated": truncated,
        "page_size": ps,
        "line_size": p.line_size,
        "sampling": p.sampling.map(|(k, lines)| json!({"rate": 1.0 / k as f64, "windows": k, "lines_per_page": lines})),
        "cache_bytes": p.cache_bytes,
        "cache_ways": p.ways,
        "threads": threads,
        "iterations": timed,
        "epochs": epoch_info,
        "empty_epochs": empty,
        "regions": region_info,
        "first_touch_runs": runs,
        "counters": p.counters.iter().map(|(k, v)| (k.clone(), json!(v))).collect::<serde_json::Map<String, Value>>(),
    });
    if let Some(path) = &o.page_counts {
        let counts: Vec<[u64; 4]> = per_page.iter().map(|(&(pg, t), &(r, w))| [pg as u64, t as u64, r, w]).collect();
        let text = serde_json::to_string(&json!({"threads": threads, "counts": counts})).map_err(|e| e.to_string())?;
        numaplace_sim::output::write_with(path, |f| {
            use std::io::Write;
            f.write_all(text.as_bytes()).map_err(|e| numaplace_sim::SimError::io(path, e))
        })
        .map_err(|e| e.to_string())?;
    }
    if let Some(path) = &o.summary {
        let text = serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())?;
        numaplace_sim::output::write_with(path, |f| {
            use std::io::Write;
            f.write_all(text.as_bytes()).map_err(|e| numaplace_sim::SimError::io(path, e))
        })
        .map_err(|e| e.to_string())?;
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn iterations_find_the_repeating_block() {
        let s = ["init", "a", "b", "a", "b", "a", "b", "end"];
        assert_eq!(iterations(&s), vec![0, 1, 1, 2, 2, 3, 3, 3]);
        let s = ["i", "x", "x", "x"];
        assert_eq!(iterations(&s), vec![0, 1, 2, 3]);
        // No repeat: the first epoch is the initialisation.
        assert_eq!(iterations(&["a", "b", "c"]), vec![0, 1, 1]);
        // A longer stretch wins over a shorter period.
        let s = ["i", "a", "a", "b", "c", "a", "b", "c", "a", "b", "c"];
        assert_eq!(iterations(&s)[..3], [0, 0, 1]);
        assert_eq!(*iterations(&s).last().unwrap(), 3);
        // The first epoch is initialisation even when it repeats; a partial repeat at the end
        // is one more iteration (three products, each a fork and a barrier).
        let s = ["fork", "bar", "fork", "bar", "fork", "bar", "exit"];
        assert_eq!(iterations(&s), vec![0, 1, 1, 2, 2, 3, 3]);
    }

    #[test]
    fn marker_iterations_count_marked_epochs() {
        assert_eq!(marker_iterations(&[false, true, false, true, true]), vec![0, 1, 1, 2, 3]);
    }

    #[test]
    fn maps_classify_pages() {
        let maps = parse_maps("55d0-55e0 rw-p 00000000 00:00 0 /bin/x\n7ff0-7ff8 rw-p 00000000 00:00 0 [stack]\n9000-a000 rw-p 0 0 0\n");
        assert_eq!(classify(&maps, 0x55d8, "/bin/x"), "static data");
        assert_eq!(classify(&maps, 0x7ff1, "/bin/x"), "stack");
        assert_eq!(classify(&maps, 0x9100, "/bin/x"), "anonymous memory");
        assert_eq!(classify(&maps, 0x1, "/bin/x"), "other memory");
    }

    /// A raw stream written as recorder.c writes it.
    struct Raw(Vec<u8>);

    impl Raw {
        fn chunk(&mut self, kind: u8, payload: &[u8]) {
            self.0.extend_from_slice(&(payload.len() as u32).to_le_bytes());
            self.0.push(kind);
            self.0.extend_from_slice(payload);
        }
        fn header(&mut self) {
            let mut p = Vec::new();
            p.extend_from_slice(&4096u32.to_le_bytes());
            p.extend_from_slice(&64u32.to_le_bytes());
            p.extend_from_slice(&32768u64.to_le_bytes());
            p.extend_from_slice(&8u32.to_le_bytes());
            p.extend_from_slice(&[0, 0]);
            self.chunk(raw::HEADER, &p);
        }
        fn alloc(&mut self, addr: u64, size: u64) {
            let mut p = Vec::new();
            for v in [addr, size, 0x1234, 0x1000] {
                p.extend_from_slice(&v.to_le_bytes());
            }
            p.extend_from_slice(&[0, 0, 4, 0]);
            p.extend_from_slice(b"main");
            self.chunk(raw::ALLOC, &p);
        }
        fn records(&mut self, thread: u32, epoch: u32, recs: &[(u64, u64, u64)]) {
            let mut p = Vec::new();
            p.extend_from_slice(&thread.to_le_bytes());
            p.extend_from_slice(&epoch.to_le_bytes());
            for &(v, r, w) in recs {
                for x in [v, r, w] {
                    p.extend_from_slice(&x.to_le_bytes());
                }
            }
            self.chunk(raw::RECORDS, &p);
        }
        fn boundary(&mut self, thread: u32, epoch: u32, kind: u8) {
            let mut p = Vec::new();
            p.extend_from_slice(&thread.to_le_bytes());
            p.extend_from_slice(&epoch.to_le_bytes());
            p.push(kind);
            p.extend_from_slice(&0x2000u64.to_le_bytes());
            p.extend_from_slice(&0x1000u64.to_le_bytes());
            p.extend_from_slice(&[0, 0]);
            p.extend_from_slice(&[2, 0]);
            p.extend_from_slice(format!("k{kind}").as_bytes());
            self.chunk(raw::EPOCH, &p);
        }
        fn end(&mut self, status: u32) {
            let mut p = status.to_le_bytes().to_vec();
            p.extend_from_slice(&3u32.to_le_bytes());
            self.chunk(raw::END, &p);
        }
    }

    /// Serial start (epoch 0, thread 0 first-touches page 16), then a fork and two barrier
    /// epochs of two threads over a 3-page allocation at page 16.
    fn program() -> Raw {
        let mut r = Raw(Vec::new());
        r.header();
        r.alloc(16 * 4096, 3 * 4096);
        r.records(0, 0, &[(16 | raw::FT_BIT, 64, 64)]);
        r.boundary(0, 0, 1);
        r.records(1, 1, &[(17 | raw::FT_BIT, 64, 64), (18 | raw::FT_BIT, 70_000, 0)]);
        r.boundary(1, 1, 2);
        r.records(0, 1, &[(16, 64, 0)]);
        r.boundary(0, 1, 2);
        r.records(0, 2, &[(17, 5, 0)]);
        r.boundary(0, 2, 2);
        r.records(1, 2, &[(16, 7, 1)]);
        r.boundary(1, 2, 2);
        r
    }

    fn run(raw: &Raw, dir: &Path, name: &str) -> Result<(Value, Vec<u8>), String> {
        let rawp = dir.join(format!("{name}.raw"));
        std::fs::write(&rawp, &raw.0).unwrap();
        let out = dir.join(format!("{name}.nptrace"));
        let o = Options { raw: rawp, out: out.clone(), summary: None, iteration_marker: None, status: "exit 0".into(), command: "prog".into(), page_counts: None };
        let v = convert(&o)?;
        Ok((v, std::fs::read(&out).unwrap()))
    }

    fn tmpdir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("numaplace-record-test-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_whole_recording_converts_deterministically() {
        let d = tmpdir("whole");
        let mut r = program();
        r.end(0);
        let (v, bytes) = run(&r, &d, "a").unwrap();
        let (_, again) = run(&r, &d, "b").unwrap();
        assert_eq!(bytes, again, "same raw stream, same trace bytes");
        assert!(v["truncated"].is_null());
        assert_eq!(v["threads"], 2);
        assert_eq!(v["epochs"].as_array().unwrap().len(), 3);
        assert_eq!(v["epochs"][1]["reads"], json!([64, 70_064]));
        assert_eq!(v["regions"][0]["pages"], 3);
        // Pages 16, 17, 18 are trace pages 0, 1, 2: first touched by threads 0 (epoch 0) and 1 (epoch 1).
        assert_eq!(v["first_touch_runs"], json!([[0, 1, 0, 0], [1, 2, 1, 1]]));
        let info = numaplace_sim::trace::info(&d.join("a.nptrace")).unwrap();
        assert_eq!(info.epochs, 3);
        // 70,000 lines are two transactions of at most 65,535 lines.
        assert_eq!(info.transactions, (64 + 64) + (64 + 64) + 70_000 + 64 + 5 + (7 + 1));
        std::fs::remove_dir_all(d).ok();
    }

    #[test]
    fn a_sampled_recording_says_so() {
        let d = tmpdir("sampled");
        let mut r = program();
        r.end(0);
        // The sampling chunk right after the header: 1/4, 64 lines a page.
        let head = 5 + u32::from_le_bytes(r.0[0..4].try_into().unwrap()) as usize;
        let mut s = Raw(Vec::new());
        s.chunk(raw::SAMPLING, &[4u32.to_le_bytes(), 64u32.to_le_bytes()].concat());
        r.0.splice(head..head, s.0);
        let (v, _) = run(&r, &d, "s").unwrap();
        assert_eq!(v["sampling"], json!({"rate": 0.25, "windows": 4, "lines_per_page": 64}));
        let info = numaplace_sim::trace::info(&d.join("s.nptrace")).unwrap();
        let meta = |k: &str| info.meta.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        assert_eq!(meta("counts").as_deref(), Some("sampled"));
        assert_eq!(meta("sampling_rate").as_deref(), Some("1/4"));
        assert_eq!(meta("cache"), None, "no cache model in sampled mode");
        // Exact mode: no sampling fields, a cache.
        let mut e = program();
        e.end(0);
        let (v, _) = run(&e, &d, "e").unwrap();
        assert!(v["sampling"].is_null());
        let info = numaplace_sim::trace::info(&d.join("e.nptrace")).unwrap();
        assert!(info.meta.iter().any(|(k, _)| k == "cache") && !info.meta.iter().any(|(k, _)| k == "counts"));
        // A malformed sampling chunk is an error naming it.
        let mut bad = program();
        let mut z = Raw(Vec::new());
        z.chunk(raw::SAMPLING, &[0u32.to_le_bytes(), 64u32.to_le_bytes()].concat());
        bad.0.splice(head..head, z.0);
        assert!(run(&bad, &d, "b").unwrap_err().contains("bad sampling chunk"));
        std::fs::remove_dir_all(d).ok();
    }

    #[test]
    fn a_cut_recording_keeps_its_whole_epochs_and_says_so() {
        let d = tmpdir("cut");
        let mut r = program();
        // A crash: thread 1 never ended epoch 3, and the last chunk is cut short.
        r.records(1, 3, &[(18, 1, 1)]);
        r.boundary(0, 3, 2);
        r.records(0, 4, &[(18, 1, 1)]);
        r.0.truncate(r.0.len() - 7);
        let (v, _) = run(&r, &d, "c").unwrap();
        assert_eq!(v["epochs"].as_array().unwrap().len(), 3);
        assert!(v["truncated"].as_str().unwrap().contains("no end"));
        let info = numaplace_sim::trace::info(&d.join("c.nptrace")).unwrap();
        assert!(info.meta.iter().any(|(k, _)| k == "truncated"));
        // A crash signal in the end chunk is named.
        let mut r = program();
        r.end(11);
        let (v, _) = run(&r, &d, "s").unwrap();
        assert!(v["truncated"].as_str().unwrap().contains("signal 11"));
        std::fs::remove_dir_all(d).ok();
    }

    #[test]
    fn bad_streams_are_errors_naming_the_file() {
        let d = tmpdir("bad");
        let e = run(&Raw(Vec::new()), &d, "empty").unwrap_err();
        assert!(e.contains("empty.raw") && e.contains("empty recording"), "{e}");
        let mut r = Raw(Vec::new());
        r.chunk(b'Q', &[1, 2]);
        let e = run(&r, &d, "junk").unwrap_err();
        assert!(e.contains("expected the header chunk"), "{e}");
        let mut r = Raw(Vec::new());
        r.header();
        r.end(0);
        let e = run(&r, &d, "none").unwrap_err();
        assert!(e.contains("no whole epoch"), "{e}");
        // Parallel regions ran, but nothing was counted in them: said so, with the regions.
        let mut r = Raw(Vec::new());
        r.header();
        r.boundary(0, 0, 1);
        r.boundary(0, 1, 2);
        r.end(0);
        let e = run(&r, &d, "nothing").unwrap_err();
        assert!(e.contains(NO_ACCESS_COUNTED) && e.contains("2 whole epochs, 1 parallel regions"), "{e}");
        std::fs::remove_dir_all(d).ok();
    }
}
