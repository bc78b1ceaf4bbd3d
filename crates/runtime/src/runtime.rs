//! The runtime proper: managed regions, placements, the dynamic policy driven on real pages,
//! and the statistics. The C API ([`crate::capi`]) and the preload hooks ([`crate::preload`])
//! call into one process-wide [`Runtime`] behind a mutex; the fault handler never takes it.
//!
//! The policies are the model crate's own code (`numaplace_model::dynamic`), driven exactly as
//! the simulator drives them, with real data in the [`View`]:
//!
//! | policy | trigger here | model hook |
//! |---|---|---|
//! | `upmlib` | `numaplace_migrate()` / `upmlib_migrate_memory()` | `on_iteration_end(view, k)` |
//! | `sampled` | a timer thread every `period_ms` (or `numaplace_migrate()`) | `on_timer(view)` |
//! | `upmlib-recrep` | `numaplace_record` (1st call: phase start, 2nd: end), `upmlib_compare_counters`, `numaplace_replay`, `numaplace_undo` | `on_epoch_start/end(view, 2, phase)`, `on_iteration_end(view, 2)`, `on_epoch_start/end(view, 3, phase)` |
//!
//! Where the simulator counts every access (or every N-th), the runtime counts hinting-fault
//! samples ([`crate::space`]): after every revocation of a page, its first access. Samples are
//! what the policies compare, as seed 003's engine compares bus-analyser samples.

use crate::mover::{self, MoveReport};
use crate::space::SPACE;
use crate::sys::{MemPolicy, Sys, SysError};
use numaplace_model::counters::PageCounters;
use numaplace_model::dynamic::{self, Action, DynamicPolicy, View};
use numaplace_model::pagetable::UNTOUCHED;
use numaplace_model::topology::{RawMachine, RawMigration, RawNode};
use numaplace_model::{placement, Machine, NodeId, PageNo, PlaceRequest, Region, Spec};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// An error of the runtime: a stable code (the C API's result code) and a one-line message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RtError {
    pub code: Code,
    pub message: String,
}

/// Result codes of the C API (negated where a function returns a count).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum Code {
    Ok = 0,
    /// A bad argument (null pointer, zero length, bad UTF-8).
    Invalid = 1,
    /// An unknown placement or policy name, or a bad parameter.
    Spec = 2,
    /// A system call failed.
    Sys = 3,
    /// `numaplace_init` was not called (or failed).
    NotInitialised = 4,
    /// The address range is not a managed region.
    NotManaged = 5,
    /// A call out of order (replay before record, ...).
    State = 6,
    /// Writing the statistics file failed.
    Io = 7,
    /// A limit was reached (too many regions).
    Limit = 8,
    /// An internal error (a panic caught at the C boundary).
    Internal = 9,
    /// The policy cannot run on real processes.
    Unsupported = 10,
}

impl RtError {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        RtError { code, message: message.into() }
    }
}

impl From<SysError> for RtError {
    fn from(e: SysError) -> Self {
        RtError::new(Code::Sys, e.to_string())
    }
}

/// Settings, from `numaplace_init`'s option string and the environment.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub placement: String,
    pub dynamic: String,
    /// Allocations at least this big become managed regions (preload mode).
    pub min_bytes: usize,
    /// The sampler revokes the next window every this many ms.
    pub sample_period_ms: f64,
    /// Pages per revocation window.
    pub window_pages: usize,
    /// `auto`, `faults` or `perf`.
    pub source: String,
    pub stats: Option<String>,
    pub verbose: bool,
    /// Parameters of record-replay phases (`threshold=..,n=..`).
    pub recrep: String,
    pub seed: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            placement: "first-touch".into(),
            dynamic: "upmlib".into(),
            min_bytes: 1 << 20,
            sample_period_ms: 100.0,
            window_pages: 4096,
            source: "auto".into(),
            stats: None,
            verbose: false,
            recrep: String::new(),
            seed: 1,
        }
    }
}

impl Config {
    /// Applies one `key=value` setting.
    ///
    /// # Errors
    /// An unknown key or a bad value (message names it).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), RtError> {
        let bad = |what: &str| RtError::new(Code::Invalid, format!("option '{key}={value}': {what}"));
        match key {
            "placement" => self.placement = value.into(),
            "dynamic" => self.dynamic = value.into(),
            "min_bytes" => self.min_bytes = value.parse().map_err(|_| bad("not a byte count"))?,
            "sample_period_ms" => {
                self.sample_period_ms = value.parse().ok().filter(|v: &f64| *v > 0.0).ok_or_else(|| bad("not a positive number"))?
            }
            "window_pages" => self.window_pages = value.parse().ok().filter(|&v| v > 0).ok_or_else(|| bad("not a positive count"))?,
            "source" => {
                if !["auto", "faults", "perf"].contains(&value) {
                    return Err(bad("expected auto, faults or perf"));
                }
                self.source = value.into()
            }
            "stats" => self.stats = (!value.is_empty()).then(|| value.into()),
            "verbose" => self.verbose = value == "1" || value == "true",
            "recrep" => self.recrep = value.into(),
            "seed" => self.seed = value.parse().map_err(|_| bad("not an integer"))?,
            _ => {
                return Err(RtError::new(
                    Code::Invalid,
                    format!("unknown option '{key}' (known: placement, dynamic, min_bytes, sample_period_ms, window_pages, source, stats, verbose, recrep, seed)"),
                ))
            }
        }
        Ok(())
    }

    /// Applies `key=value;key=value` (`;` separates: specs contain `,` and `=`).
    ///
    /// # Errors
    /// As [`Config::set`]; an item without `=`.
    pub fn apply(&mut self, options: &str) -> Result<(), RtError> {
        for item in options.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            let (k, v) = item.split_once('=').ok_or_else(|| RtError::new(Code::Invalid, format!("option '{item}': expected key=value")))?;
            self.set(k.trim(), v.trim())?;
        }
        Ok(())
    }

    /// Settings from `NUMAPLACE_*` environment variables over the defaults.
    ///
    /// # Errors
    /// A bad value (message names the variable).
    pub fn from_env(mut self) -> Result<Self, RtError> {
        for (var, key) in [
            ("NUMAPLACE_PLACEMENT", "placement"),
            ("NUMAPLACE_DYNAMIC", "dynamic"),
            ("NUMAPLACE_MIN_BYTES", "min_bytes"),
            ("NUMAPLACE_SAMPLE_PERIOD_MS", "sample_period_ms"),
            ("NUMAPLACE_WINDOW_PAGES", "window_pages"),
            ("NUMAPLACE_SOURCE", "source"),
            ("NUMAPLACE_STATS", "stats"),
            ("NUMAPLACE_VERBOSE", "verbose"),
            ("NUMAPLACE_RECREP", "recrep"),
            ("NUMAPLACE_SEED", "seed"),
        ] {
            if let Ok(v) = std::env::var(var) {
                self.set(key, &v).map_err(|e| RtError::new(e.code, format!("{var}: {}", e.message)))?;
            }
        }
        Ok(self)
    }
}

/// One managed region.
#[derive(Clone, Debug)]
pub struct Managed {
    pub name: String,
    pub slot: usize,
    pub start: usize,
    pub pages: usize,
    /// First page in the runtime's numbering.
    pub first: usize,
    /// Mapped by the runtime's allocator (freed with `munmap`), with this length.
    pub owned: Option<usize>,
    /// Pages per node before the runtime moved any: each page counted on the node it was on
    /// when the runtime first saw it present (at registration, or at a later decision for
    /// pages touched after it: a fresh allocation is registered untouched).
    pub before: Vec<u64>,
    /// Pages already counted in `before`.
    seen: Vec<bool>,
}

/// One policy invocation, for the statistics.
#[derive(Clone, Debug, PartialEq)]
pub struct Epoch {
    pub t_s: f64,
    pub kind: &'static str,
    pub samples: u64,
    pub local_share: f64,
    pub moved: u64,
    pub per_node: Vec<u64>,
}

/// A freed region, kept for the statistics.
#[derive(Clone, Debug)]
pub struct Retired {
    pub name: String,
    pub bytes: usize,
    pub pages: usize,
    /// Pages per node at registration and when freed.
    pub before: Vec<u64>,
    pub after: Vec<u64>,
}

/// Counters of the whole run.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub samples_local: u64,
    pub samples_seen: u64,
    pub pages_moved: u64,
    pub move_failures: u64,
    pub busy_retries: u64,
    pub fallbacks: u64,
    pub invocations: u64,
    pub time_sampling: Duration,
    pub time_migrating: Duration,
    pub epochs: Vec<Epoch>,
    /// Regions already freed.
    pub retired: Vec<Retired>,
}

/// A record-replay phase: its policy instance and how many `record` calls it has had.
struct Phase {
    policy: Box<dyn DynamicPolicy>,
    records: u32,
    compared: bool,
    replaying: bool,
}

/// A snapshot of the managed space for a policy decision.
struct Snapshot {
    homes: Vec<u8>,
    counters: PageCounters,
    regions: Vec<Region>,
    free: Vec<u64>,
    addr: Vec<usize>,
    samples: u64,
    local: u64,
    /// Nodes with at least one sample.
    active_nodes: u64,
}

impl Snapshot {
    /// What a policy sees of this snapshot (the runtime makes no replicas).
    fn view<'a>(&'a self, machine: &'a Machine, now: numaplace_model::Ps) -> View<'a> {
        View { machine, counters: &self.counters, replicas: &[], replica_writes: &[], homes: &self.homes, free: &self.free, regions: &self.regions, now }
    }
}

/// The process's runtime.
pub struct Runtime {
    pub sys: Box<dyn Sys>,
    pub machine: Machine,
    pub cfg: Config,
    nearest: Vec<Vec<usize>>,
    pub regions: Vec<Managed>,
    next_first: usize,
    policy: Option<Box<dyn DynamicPolicy>>,
    phases: HashMap<String, Phase>,
    /// Which phase `upmlib_record` etc. act on (UPMlib's API names no phase).
    pub default_phase: String,
    iteration: u32,
    pub stats: Stats,
    pub source: &'static str,
    pub source_reason: String,
    started: Instant,
    /// Whether hinting-fault sampling is on (fault handler installed, windows revoked).
    pub sampling: bool,
    cursor: usize,
    last_timer: Instant,
    /// Timer-thread ticks since the last sampling step, and the back-off: a step every
    /// `2^backoff` ticks (see [`Runtime::tick`]).
    ticks: u32,
    backoff: u32,
    /// Holding decisions in a row at the current back-off.
    holds: u32,
    /// The policy's timer period, if it has one.
    pub timer: Option<Duration>,
    /// Precise memory sampling, when that is the source (no page is revoked then).
    pub perf: Option<crate::perf::Perf>,
}

impl Runtime {
    /// A runtime over `sys` with `cfg`. Does not install the fault handler (see
    /// [`crate::sampler`]).
    ///
    /// # Errors
    /// A bad placement or policy spec, an unsupported policy, or a topology the model refuses.
    pub fn new(sys: Box<dyn Sys>, cfg: Config) -> Result<Runtime, RtError> {
        let machine = machine_of(sys.as_ref())?;
        // Validate the placement now, so a bad name fails at init.
        let spec = Spec::parse(&cfg.placement).map_err(|e| RtError::new(Code::Spec, e.to_string()))?;
        placement::build(&spec, &machine, cfg.seed).map_err(|e| RtError::new(Code::Spec, e.to_string()))?;
        let policy = if cfg.dynamic == "none" || cfg.dynamic.is_empty() {
            None
        } else {
            let spec = Spec::parse(&cfg.dynamic).map_err(|e| RtError::new(Code::Spec, e.to_string()))?;
            // What the policy observes decides whether this driver can run it (its
            // capabilities), checked before it is built.
            let (info, _) = dynamic::resolve(&spec).map_err(|e| RtError::new(Code::Spec, e.to_string()))?;
            dynamic::check_driver(info, dynamic::Driver::Runtime).map_err(|e| RtError::new(Code::Unsupported, e.to_string()))?;
            let (p, _) = dynamic::build(&spec, &machine, sys.topology().cpus.iter().map(Vec::len).sum()).map_err(|e| RtError::new(Code::Spec, e.to_string()))?;
            Some(p)
        };
        // The policy's timer, no more often than the sampler revokes windows: a check reads
        // every managed page's node, which costs more than the simulator's look.
        let timer = policy
            .as_ref()
            .and_then(|p| p.timer_period())
            .map(|ps| Duration::from_nanos(ps / 1000).max(Duration::from_secs_f64(cfg.sample_period_ms / 1000.0)));
        let nearest = machine.nearest.iter().map(|v| v.iter().map(|n| n.index()).collect()).collect();
        Ok(Runtime {
            sys,
            machine,
            cfg,
            nearest,
            regions: Vec::new(),
            next_first: 0,
            policy,
            phases: HashMap::new(),
            default_phase: "phase".into(),
            iteration: 0,
            stats: Stats::default(),
            source: "none",
            source_reason: String::new(),
            started: Instant::now(),
            sampling: false,
            cursor: 0,
            last_timer: Instant::now(),
            ticks: 0,
            backoff: 0,
            holds: 0,
            timer,
            perf: None,
        })
    }

    pub fn nodes(&self) -> usize {
        self.machine.nodes()
    }

    /// Time since the runtime started, in the model's picoseconds.
    fn now(&self) -> numaplace_model::Ps {
        (self.started.elapsed().as_nanos() as u64).saturating_mul(1000)
    }

    fn page_size(&self) -> usize {
        self.sys.page_size()
    }

    /// Whether the current policy (or a phase being recorded) wants samples.
    pub fn wants_samples(&self) -> bool {
        self.policy.as_ref().is_some_and(|p| p.counts()) || self.phases.values().any(|p| p.records == 1)
    }

    /// Registers `[addr, addr+len)` (rounded inward to whole pages) as a hot region.
    ///
    /// # Errors
    /// A null or empty range, or too many regions.
    pub fn register(&mut self, addr: usize, len: usize, name: &str, owned: Option<usize>) -> Result<usize, RtError> {
        let ps = self.page_size();
        if addr == 0 || len == 0 {
            return Err(RtError::new(Code::Invalid, format!("register '{name}': empty or null range")));
        }
        let start = addr.div_ceil(ps) * ps;
        let end = (addr + len) / ps * ps;
        if end <= start {
            return Err(RtError::new(Code::Invalid, format!("register '{name}': {len} bytes at {addr:#x} hold no whole page")));
        }
        // Already managed (e.g. a malloc'd array the preload hooks manage, registered again by
        // the program): rename it rather than manage it twice.
        if let Some(r) = self.regions.iter_mut().find(|r| start >= r.start && end <= r.start + r.pages * ps) {
            if owned.is_none() {
                r.name = name.to_string();
            }
            return Ok(r.slot);
        }
        if self.regions.iter().any(|r| start < r.start + r.pages * ps && r.start < end) {
            return Err(RtError::new(Code::Invalid, format!("register '{name}': {start:#x}..{end:#x} overlaps a managed region")));
        }
        let pages = (end - start) / ps;
        self.sys.base_pages(start, end - start);
        let addrs: Vec<usize> = (0..pages).map(|p| start + p * ps).collect();
        let mut before = vec![0u64; self.nodes()];
        let mut seen = vec![false; pages];
        for (p, st) in mover::query(self.sys.as_ref(), &addrs)?.into_iter().enumerate() {
            if st >= 0 {
                before[st as usize] += 1;
                seen[p] = true;
            }
        }
        // Published for the fault handler last, once nothing can fail.
        let slot = SPACE.add(start, pages, self.next_first).map_err(|m| RtError::new(Code::Limit, m))?;
        self.regions.push(Managed { name: name.to_string(), slot, start, pages, first: self.next_first, owned, before, seen });
        self.next_first += pages;
        if self.sampling && self.wants_samples() {
            let _ = SPACE.revoke_pages(slot, 0, pages);
        }
        Ok(slot)
    }

    /// Withdraws the managed region starting at or containing `addr`; returns its owned
    /// mapping length, if the runtime mapped it.
    pub fn unregister(&mut self, addr: usize) -> Option<Option<usize>> {
        let ps = self.page_size();
        // The region containing `addr`, else one starting within a page after it (a range the
        // program registered from an address that was not page-aligned).
        let i = self
            .regions
            .iter()
            .position(|r| addr >= r.start && addr < r.start + r.pages * ps)
            .or_else(|| self.regions.iter().position(|r| addr < r.start && addr >= r.start.saturating_sub(ps)))?;
        let (before, after) = self.before_after(&self.regions[i]);
        let r = self.regions.remove(i);
        SPACE.remove(r.slot);
        self.stats.retired.push(Retired { name: r.name.clone(), bytes: r.pages * ps, pages: r.pages, before, after });
        Some(r.owned)
    }

    /// Withdraws every managed region overlapping `[addr, addr+len)` (memory the program is
    /// about to free).
    pub fn forget_range(&mut self, addr: usize, len: usize) {
        let ps = self.page_size();
        let hits: Vec<usize> = self.regions.iter().filter(|r| addr < r.start + r.pages * ps && r.start < addr + len).map(|r| r.start).collect();
        for s in hits {
            self.unregister(s);
        }
    }

    /// A region's pages per node before the runtime moved any (pages never seen until now
    /// count where they are: the runtime never moved them) and now.
    fn before_after(&self, r: &Managed) -> (Vec<u64>, Vec<u64>) {
        let ps = self.page_size();
        let addrs: Vec<usize> = (0..r.pages).map(|p| r.start + p * ps).collect();
        let (mut before, mut after) = (r.before.clone(), vec![0u64; self.nodes()]);
        if let Ok(now) = self.peek(|| mover::query(self.sys.as_ref(), &addrs)) {
            for (p, st) in now.into_iter().enumerate() {
                if st >= 0 {
                    after[st as usize] += 1;
                    if !r.seen[p] {
                        before[st as usize] += 1;
                    }
                }
            }
        }
        (before, after)
    }

    /// Pages per node of `[start, start + pages·ps)` (not-present pages are not counted).
    fn per_node(&self, start: usize, pages: usize) -> Result<Vec<u64>, RtError> {
        let ps = self.page_size();
        let addrs: Vec<usize> = (0..pages).map(|p| start + p * ps).collect();
        let mut out = vec![0u64; self.nodes()];
        for s in self.peek(|| mover::query(self.sys.as_ref(), &addrs))? {
            if s >= 0 {
                out[s as usize] += 1;
            }
        }
        Ok(out)
    }

    /// Node of every page of `[addr, addr+len)` (`-errno` where not present).
    ///
    /// # Errors
    /// The query failed.
    pub fn where_(&self, addr: usize, len: usize) -> Result<Vec<i32>, RtError> {
        let ps = self.page_size();
        let start = addr / ps * ps;
        let pages = (addr + len).div_ceil(ps) * ps / ps - start / ps;
        let addrs: Vec<usize> = (0..pages).map(|p| start + p * ps).collect();
        Ok(self.peek(|| mover::query(self.sys.as_ref(), &addrs))?)
    }

    /// Places `[addr, addr+len)` by `placement` (a model placement spec). `first-touch` resets
    /// the range's memory policy to the default (pages go where first touched, pages already
    /// present stay); `bind:node=N` binds it with `mbind(MPOL_BIND, MPOL_MF_MOVE)`; every other
    /// scheme asks the model's placement for each page's node, makes the pages present and
    /// moves them there with `move_pages`. Returns pages moved.
    ///
    /// # Errors
    /// A bad spec, or a failed system call.
    pub fn place(&mut self, addr: usize, len: usize, spec_text: &str) -> Result<u64, RtError> {
        let ps = self.page_size();
        let spec = Spec::parse(spec_text).map_err(|e| RtError::new(Code::Spec, e.to_string()))?;
        let (pl, resolved) = placement::build(&spec, &self.machine, self.cfg.seed).map_err(|e| RtError::new(Code::Spec, e.to_string()))?;
        let start = addr / ps * ps;
        let end = (addr + len).div_ceil(ps) * ps;
        if len == 0 || addr == 0 {
            return Err(RtError::new(Code::Invalid, "place: empty or null range"));
        }
        match spec.name.as_str() {
            "first-touch" => {
                self.sys.mbind(start, end - start, &MemPolicy::Default)?;
                return Ok(0);
            }
            "bind" => {
                let node = resolved.uint("node") as usize;
                let before = self.per_node(start, (end - start) / ps)?;
                self.sys.mbind(start, end - start, &MemPolicy::Bind(node))?;
                let after = self.per_node(start, (end - start) / ps)?;
                return Ok(after[node].saturating_sub(before[node]));
            }
            _ => {}
        }
        let pages = (end - start) / ps;
        // Page numbers as the region's own (the placement sees the range as one region).
        let region = Region { name: "place".into(), first_page: 0, pages: pages as u32 };
        let here = NodeId(self.sys.current_node() as u8);
        let targets: Vec<usize> =
            (0..pages).map(|p| pl.place(&PlaceRequest { page: PageNo(p as u32), region: &region, toucher: here }).index()).collect();
        self.unprotect_all();
        self.sys.touch(start, end - start);
        let addrs: Vec<usize> = (0..pages).map(|p| start + p * ps).collect();
        let t = Instant::now();
        let rep = mover::move_pages(self.sys.as_ref(), &addrs, &targets, &self.nearest);
        self.rearm();
        let rep = rep?;
        self.stats.time_migrating += t.elapsed();
        self.account(&rep);
        Ok(rep.moved)
    }

    fn account(&mut self, rep: &MoveReport) {
        self.stats.pages_moved += rep.moved;
        self.stats.move_failures += rep.failed;
        self.stats.busy_retries += rep.busy_retries;
        self.stats.fallbacks += rep.fallbacks;
    }

    /// Restores access to every protected managed page without counting it. Linux's
    /// `move_pages` does not see a `PROT_NONE` page (it answers `-ENOENT`, as for a page never
    /// touched), so the runtime ends a sampling interval before it queries or moves pages.
    fn unprotect_all(&self) {
        for r in &self.regions {
            SPACE.open_all(r.slot);
        }
    }

    /// Runs `f` with every protected managed page briefly accessible (so `move_pages` sees
    /// them), then protects those pages again: a look that does not end the sampling interval.
    fn peek<T>(&self, f: impl FnOnce() -> T) -> T {
        let mut runs = Vec::new();
        for r in &self.regions {
            let mut p = 0;
            while p < r.pages {
                if !SPACE.is_revoked(r.slot, p) {
                    p += 1;
                    continue;
                }
                let mut q = p + 1;
                while q < r.pages && SPACE.is_revoked(r.slot, q) {
                    q += 1;
                }
                runs.push((r.slot, p, q));
                p = q;
            }
        }
        self.unprotect_all();
        let out = f();
        for &(slot, p, q) in &runs {
            let _ = SPACE.revoke_pages(slot, p, q);
        }
        out
    }

    /// Reads homes and sample counts of every managed page, ending the sampling interval.
    fn snapshot(&self) -> Result<Snapshot, RtError> {
        self.unprotect_all();
        self.read_snapshot()
    }

    /// Reads homes and sample counts without disturbing sampling: pages under sampling stay
    /// so (a look, for a timer check the policy may let pass).
    fn snapshot_peek(&self) -> Result<Snapshot, RtError> {
        self.peek(|| self.read_snapshot())
    }

    fn read_snapshot(&self) -> Result<Snapshot, RtError> {
        let nodes = self.nodes();
        let ps = self.page_size();
        let total = self.next_first;
        let mut homes = vec![UNTOUCHED; total];
        let mut counters = PageCounters::new(total, nodes, 16);
        let mut regions = Vec::new();
        let mut addr = vec![0usize; total];
        let mut active = 0u64;
        let (mut samples, mut local) = (0u64, 0u64);
        for r in &self.regions {
            let addrs: Vec<usize> = (0..r.pages).map(|p| r.start + p * ps).collect();
            let where_ = mover::query(self.sys.as_ref(), &addrs)?;
            for (p, s) in where_.into_iter().enumerate() {
                let g = r.first + p;
                addr[g] = addrs[p];
                if s >= 0 {
                    homes[g] = s as u8;
                }
                for n in 0..nodes {
                    let c = SPACE.count(r.slot, p, n);
                    if c > 0 {
                        counters.add(g as u32, n, c as u64);
                        samples += c as u64;
                        active |= 1u64 << n;
                        if s == n as i32 {
                            local += c as u64;
                        }
                    }
                }
            }
            regions.push(Region { name: r.name.clone(), first_page: r.first as u32, pages: r.pages as u32 });
        }
        // Free memory is not tracked: the mover falls back when a node is full.
        let active_nodes = active.count_ones() as u64;
        Ok(Snapshot { homes, counters, regions, free: vec![u64::MAX / 2; nodes], addr, samples, local, active_nodes })
    }

    fn age_samples(&self) {
        for r in &self.regions {
            SPACE.age_counts(r.slot);
        }
    }

    fn clear_samples(&self) {
        for r in &self.regions {
            SPACE.clear_counts(r.slot);
        }
    }

    /// Applies a policy's actions; returns the mover's report. `NUMAPLACE_DEBUG=2` prints each
    /// decision with the samples behind it.
    fn apply(&mut self, snap: &Snapshot, actions: &[Action]) -> Result<(MoveReport, Vec<u64>), RtError> {
        // Pages present for the first time count, where they are, in their region's "before".
        let nodes = self.nodes();
        for r in &mut self.regions {
            for (p, &h) in snap.homes[r.first..r.first + r.pages].iter().enumerate() {
                if (h as usize) < nodes && !r.seen[p] {
                    r.seen[p] = true;
                    r.before[h as usize] += 1;
                }
            }
        }
        if std::env::var("NUMAPLACE_DEBUG").as_deref() == Ok("2") {
            eprintln!("numaplace: {} action(s) on {} sample(s)", actions.len(), snap.samples);
            for a in actions {
                if let Action::Migrate { page, to, reason } = a {
                    eprintln!("numaplace: page {} home {} -> {} ({reason}); samples {:?}", page.0, snap.homes[page.0 as usize], to.0, snap.counters.row(*page));
                }
            }
        }
        let (mut pages, mut targets, mut index) = (Vec::new(), Vec::new(), Vec::new());
        for a in actions {
            if let Action::Migrate { page, to, .. } = a {
                let g = page.0 as usize;
                if g < snap.addr.len() && snap.addr[g] != 0 {
                    pages.push(snap.addr[g]);
                    targets.push(to.index());
                    index.push(g);
                }
            }
        }
        let t = Instant::now();
        let rep = mover::move_pages(self.sys.as_ref(), &pages, &targets, &self.nearest)?;
        self.stats.time_migrating += t.elapsed();
        self.account(&rep);
        // Pages per node after the decision: the snapshot's homes with the mover's results.
        let mut per_node = vec![0u64; nodes];
        for &h in &snap.homes {
            if (h as usize) < nodes {
                per_node[h as usize] += 1;
            }
        }
        for (&g, &now) in index.iter().zip(&rep.result) {
            let was = snap.homes[g] as usize;
            if now >= 0 && was < nodes && now as usize != was {
                per_node[was] -= 1;
                per_node[now as usize] += 1;
            }
        }
        Ok((rep, per_node))
    }

    fn log(&mut self, kind: &'static str, snap: &Snapshot, moved: u64, per_node: Vec<u64>) {
        self.stats.samples_seen += snap.samples;
        self.stats.samples_local += snap.local;
        self.stats.epochs.push(Epoch {
            t_s: self.started.elapsed().as_secs_f64(),
            kind,
            samples: snap.samples,
            local_share: if snap.samples == 0 { 0.0 } else { snap.local as f64 / snap.samples as f64 },
            moved,
            per_node,
        });
    }

    /// Revokes every managed page (a new sampling interval starts), or restores them all
    /// when nothing wants samples any more.
    pub fn rearm(&mut self) {
        if !self.sampling {
            return;
        }
        let t = Instant::now();
        let want = self.wants_samples();
        for r in &self.regions {
            if want {
                let _ = SPACE.revoke_pages(r.slot, 0, r.pages);
            } else {
                SPACE.open_all(r.slot);
            }
        }
        self.stats.time_sampling += t.elapsed();
    }

    /// Revokes the next window of pages (the sampler thread's periodic step).
    pub fn sample_step(&mut self) {
        if !self.sampling || !self.wants_samples() || self.regions.is_empty() {
            return;
        }
        let t = Instant::now();
        for (slot, from, to) in window_runs(&self.regions, self.cursor, self.cfg.window_pages) {
            let _ = SPACE.revoke_pages(slot, from, to);
        }
        let total: usize = self.regions.iter().map(|r| r.pages).sum();
        self.cursor = (self.cursor + self.cfg.window_pages.min(total)) % total.max(1);
        self.stats.time_sampling += t.elapsed();
    }

    /// Invokes the dynamic policy now: `upmlib` as at the end of an iteration, a timer
    /// policy as a timer tick. Returns pages moved.
    ///
    /// # Errors
    /// A failed system call.
    pub fn migrate(&mut self, kind: &'static str) -> Result<u64, RtError> {
        self.drain_perf();
        let Some(mut policy) = self.policy.take() else { return Ok(0) };
        let timer = policy.timer_period().is_some();
        let result = self.invoke(policy.as_mut(), kind);
        self.policy = Some(policy);
        let decided = match result {
            Ok(d) => d,
            Err(e) => {
                self.rearm();
                return Err(e);
            }
        };
        let Some(moved) = decided else { return Ok(0) }; // a tick the policy let pass
        if self.backoff == 0 || !timer {
            self.rearm();
        } else {
            // Sampling goes on at the slower pace of the windows; the pages this decision
            // opened are sampled again when their window comes round.
        }
        Ok(moved)
    }

    /// One policy decision; `None` when the policy let a timer tick pass.
    fn invoke(&mut self, policy: &mut dyn DynamicPolicy, kind: &'static str) -> Result<Option<u64>, RtError> {
        let timer = policy.timer_period().is_some();
        // A timer check only looks (the policy may let it pass); an iteration end closes the
        // interval.
        let snap = if timer { self.snapshot_peek()? } else { self.snapshot()? };
        let view = snap.view(&self.machine, self.now());
        let (actions, reset) = if timer {
            let t = policy.on_timer(&view);
            if t.age {
                self.age_samples();
            }
            if t.actions.is_empty() && !t.reset && !t.age {
                // The policy let the tick pass (e.g. `sampled` with an adaptive period, still
                // short of samples): the interval goes on, undisturbed.
                return Ok(None);
            }
            // Acting: pages must be accessible to move (the interval ends here).
            self.unprotect_all();
            (t.actions, t.reset)
        } else {
            if !policy.counts() {
                return Ok(Some(0));
            }
            self.iteration += 1;
            let a = policy.on_iteration_end(&view, self.iteration);
            (a, policy.reset_after_iteration())
        };
        self.stats.invocations += 1;
        let (rep, per_node) = self.apply(&snap, &actions)?;
        if reset {
            self.clear_samples();
        }
        if timer && kind == "timer" {
            self.pace(&snap, rep.moved);
        }
        self.log(kind, &snap, rep.moved, per_node);
        Ok(Some(rep.moved))
    }

    /// The sampling pace after a timer decision. Like Linux's NUMA balancing, which lengthens
    /// its scan period while most hinting faults are local (kernel/sched/fair.c,
    /// `update_task_scan_period`), sampling backs off while the placement holds: a decision
    /// on samples at least 99 % local that moved at most 0.1 % of the managed pages "holds";
    /// after `2^backoff` holding decisions in a row the interval between sampling steps doubles
    /// (up to 64 ticks), so the pace slows gently; a decision that finds accesses
    /// elsewhere restores the full rate at once. A decision on samples from fewer than two
    /// nodes changes nothing: one thread touching its data (a program's start-up) says nothing
    /// about where the parallel phases will access it.
    fn pace(&mut self, snap: &Snapshot, moved: u64) {
        if snap.samples == 0 || snap.active_nodes < 2 {
            return;
        }
        let pages: u64 = self.regions.iter().map(|r| r.pages as u64).sum();
        if snap.local * 100 >= snap.samples * 99 && moved * 1000 <= pages {
            self.holds += 1;
            if self.holds >= 1 << self.backoff && self.backoff < 6 {
                self.backoff += 1;
                self.holds = 0;
            }
        } else {
            self.backoff = 0;
            self.holds = 0;
        }
    }

    /// Moves precise samples into the counts, when they are the source; false when they are not.
    fn drain_perf(&mut self) -> bool {
        let Some(p) = self.perf.as_mut() else { return false };
        p.drain();
        if let Some(why) = p.lost.take() {
            // A forked child that cannot open its own events: say so once, and sample nothing.
            self.source_reason = why;
            if self.cfg.verbose {
                eprintln!("numaplace: {}; no samples in this process", self.source_reason);
            }
        }
        true
    }

    /// The timer thread's tick: a sampling step, and the policy's timer when its period has
    /// passed. Returns pages moved.
    ///
    /// # Errors
    /// A failed system call.
    pub fn tick(&mut self) -> Result<u64, RtError> {
        let t = Instant::now();
        if self.drain_perf() {
            self.stats.time_sampling += t.elapsed();
        }
        self.ticks += 1;
        if self.ticks >= 1 << self.backoff {
            self.ticks = 0;
            self.sample_step();
        }
        match self.timer {
            Some(period) if self.last_timer.elapsed() >= period => {
                self.last_timer = Instant::now();
                self.migrate("timer")
            }
            _ => Ok(0),
        }
    }

    fn phase(&mut self, name: &str) -> Result<&mut Phase, RtError> {
        if !self.phases.contains_key(name) {
            let mut text = format!("upmlib-recrep:phase={name}");
            if !self.cfg.recrep.is_empty() {
                text.push(',');
                text.push_str(&self.cfg.recrep);
            }
            let spec = Spec::parse(&text).map_err(|e| RtError::new(Code::Spec, format!("record-replay: {e}")))?;
            let (policy, _) = dynamic::build(&spec, &self.machine, 1).map_err(|e| RtError::new(Code::Spec, format!("record-replay: {e}")))?;
            self.phases.insert(name.to_string(), Phase { policy, records: 0, compared: false, replaying: false });
        }
        Ok(self.phases.get_mut(name).expect("inserted above"))
    }

    /// Runs one record-replay hook of `phase`'s policy on a fresh snapshot and applies its
    /// actions.
    fn phase_hook(&mut self, name: &str, kind: &'static str, hook: impl FnOnce(&mut dyn DynamicPolicy, &View<'_>) -> Vec<Action>) -> Result<u64, RtError> {
        let mut phase = self.phases.remove(name).expect("phase exists");
        let result = (|| {
            let snap = self.snapshot()?;
            let view = snap.view(&self.machine, self.now());
            let actions = hook(phase.policy.as_mut(), &view);
            let (rep, per_node) = self.apply(&snap, &actions)?;
            self.log(kind, &snap, rep.moved, per_node);
            Ok(rep.moved)
        })();
        self.phases.insert(name.to_string(), phase);
        result
    }

    /// `record(phase)`: the first call marks the phase's start (counters snapshotted, a
    /// fresh sampling interval begins), the second its end (the phase's own samples are the
    /// difference). Seed 000 §3.3 records in iteration 2.
    ///
    /// # Errors
    /// A third call, or a failed system call.
    pub fn record(&mut self, name: &str) -> Result<(), RtError> {
        let records = self.phase(name)?.records;
        match records {
            0 => {
                self.phase(name)?.records = 1;
                self.clear_samples();
                self.phase_hook(name, "record", |p, v| p.on_epoch_start(v, 2, name))?;
                self.rearm();
            }
            1 => {
                self.phase_hook(name, "record", |p, v| p.on_epoch_end(v, 2, name))?;
                self.phase(name)?.records = 2;
                self.rearm();
            }
            _ => return Err(RtError::new(Code::State, format!("record '{name}': already recorded (start and end)"))),
        }
        Ok(())
    }

    /// `compare_counters`: decides, from the recorded phase, which pages to move before it.
    ///
    /// # Errors
    /// The phase was not recorded start and end.
    pub fn compare(&mut self, name: &str) -> Result<(), RtError> {
        if self.phase(name)?.records != 2 {
            return Err(RtError::new(Code::State, format!("compare '{name}': record the phase's start and end first")));
        }
        self.phase_hook(name, "record", |p, v| p.on_iteration_end(v, 2))?;
        self.phase(name)?.compared = true;
        Ok(())
    }

    /// `replay(phase)`: moves the phase's pages to the nodes that use them in the phase.
    ///
    /// # Errors
    /// Out of order, or a failed system call.
    pub fn replay(&mut self, name: &str) -> Result<u64, RtError> {
        if self.phase(name)?.records == 2 && !self.phase(name)?.compared {
            self.compare(name)?;
        }
        if !self.phase(name)?.compared {
            return Err(RtError::new(Code::State, format!("replay '{name}': the phase was not recorded (call record before and after it first)")));
        }
        self.phase(name)?.replaying = true;
        let moved = self.phase_hook(name, "replay", |p, v| p.on_epoch_start(v, 3, name));
        self.rearm();
        moved
    }

    /// `undo()`: moves back every page the last replay of any phase moved.
    ///
    /// # Errors
    /// A failed system call.
    pub fn undo(&mut self) -> Result<u64, RtError> {
        let names: Vec<String> = self.phases.iter().filter(|(_, p)| p.replaying).map(|(n, _)| n.clone()).collect();
        let mut moved = 0;
        for name in names {
            self.phase(&name)?.replaying = false;
            moved += self.phase_hook(&name, "undo", |p, v| p.on_epoch_end(v, 3, &name))?;
        }
        self.rearm();
        Ok(moved)
    }

    /// The statistics as JSON (schema `numaplace_stats` 1; see README "Running real
    /// programs").
    pub fn stats_json(&self) -> serde_json::Value {
        use serde_json::json;
        let ps = self.page_size();
        let mut regions = Vec::new();
        let mut before = vec![0u64; self.nodes()];
        let mut after = vec![0u64; self.nodes()];
        let mut add = |b: &[u64], a: &[u64]| {
            for n in 0..b.len().min(before.len()) {
                before[n] += b[n];
            }
            for n in 0..a.len().min(after.len()) {
                after[n] += a[n];
            }
        };
        for r in &self.stats.retired {
            add(&r.before, &r.after);
            regions.push(json!({"name": r.name, "address": null, "bytes": r.bytes, "pages": r.pages, "before": r.before, "after": r.after}));
        }
        for r in &self.regions {
            let (b, a) = self.before_after(r);
            add(&b, &a);
            regions.push(json!({"name": r.name, "address": format!("{:#x}", r.start), "bytes": r.pages * ps, "pages": r.pages, "before": b, "after": a}));
        }
        let epochs: Vec<_> = self
            .stats
            .epochs
            .iter()
            .map(|e| json!({"t_s": e.t_s, "kind": e.kind, "samples": e.samples, "local_share": e.local_share, "moved": e.moved, "per_node": e.per_node}))
            .collect();
        json!({
            "numaplace_stats": 1,
            "program": std::env::args().next().unwrap_or_default(),
            "pid": std::process::id(),
            "nodes": self.nodes(),
            "page_size": ps,
            "source": self.source,
            "source_reason": self.source_reason,
            "placement": self.cfg.placement,
            "dynamic": self.cfg.dynamic,
            "regions": regions,
            "before": before,
            "after": after,
            "faults_sampled": SPACE.samples.load(std::sync::atomic::Ordering::Relaxed),
            "samples_local": self.stats.samples_local,
            "pages_moved": self.stats.pages_moved,
            "move_failures": self.stats.move_failures,
            "busy_retries": self.stats.busy_retries,
            "fallbacks": self.stats.fallbacks,
            "invocations": self.stats.invocations,
            "time_sampling_s": self.stats.time_sampling.as_secs_f64(),
            "time_migrating_s": self.stats.time_migrating.as_secs_f64(),
            "wall_s": self.started.elapsed().as_secs_f64(),
            "epochs": epochs,
        })
    }

    /// Writes the statistics to `path` (atomically: a temporary file renamed).
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn stats_write(&self, path: &str) -> Result<(), RtError> {
        let text = serde_json::to_string_pretty(&self.stats_json()).expect("JSON values serialise") + "\n";
        let tmp = format!("{path}.tmp{}", std::process::id());
        std::fs::write(&tmp, text)
            .and_then(|_| std::fs::rename(&tmp, path))
            .map_err(|e| RtError::new(Code::Io, format!("stats file '{path}': {e}")))
    }
}

/// The runs `(slot, from, to)` of the sampling window of `window` pages starting at page
/// `cursor` of the regions taken end to end, wrapping round to the first region (a window at
/// least as large as every region covers each page once).
fn window_runs(regions: &[Managed], cursor: usize, window: usize) -> Vec<(usize, usize, usize)> {
    let total: usize = regions.iter().map(|r| r.pages).sum();
    let mut out = Vec::new();
    if total == 0 {
        return out;
    }
    let (mut pos, mut left) = (cursor % total, window.min(total));
    while left > 0 {
        let mut base = 0;
        for r in regions {
            if pos < base + r.pages {
                let from = pos - base;
                let to = (from + left).min(r.pages);
                out.push((r.slot, from, to));
                left -= to - from;
                pos = (pos + to - from) % total;
                break;
            }
            base += r.pages;
        }
    }
    out
}

/// The model machine of the host: nodes, CPUs and memory from the topology, latencies from
/// the SLIT (10 = 100 ns; only their order matters here: it is the fallback order).
fn machine_of(sys: &dyn Sys) -> Result<Machine, RtError> {
    let t = sys.topology();
    let raw = RawMachine {
        name: "this-host".into(),
        description: "the host, as the runtime sees it".into(),
        page_size: sys.page_size() as u64,
        line_size: 64,
        mlp: 10.0,
        counter_bits: 16,
        latency_ns: t.distance.iter().map(|row| row.iter().map(|&d| d as f64 * 10.0).collect()).collect(),
        nodes: (0..t.nodes()).map(|n| RawNode { cpus: t.cpus[n].len() as u32, memory_mib: (t.mem_bytes[n] >> 20).max(1), bandwidth_gbps: 10.0 }).collect(),
        migration: RawMigration { fixed_ns: 2000.0, trap_ns: 0.0, copy_gbps: 10.0, tlb_shootdown_ns_per_cpu: 250.0 },
    };
    Machine::from_raw(raw, "sysfs").map_err(|e| RtError::new(Code::Sys, format!("this host's topology: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::FakeSys;
    use std::sync::Arc;

    /// A FakeSys shared with the test, so it can inspect pages after the runtime moved them.
    struct Shared(Arc<FakeSys>);

    impl Sys for Shared {
        fn page_size(&self) -> usize {
            self.0.page_size()
        }
        fn topology(&self) -> &crate::sys::Topology {
            self.0.topology()
        }
        fn move_pages(&self, p: &[usize], t: Option<&[usize]>, s: &mut [i32]) -> Result<(), SysError> {
            self.0.move_pages(p, t, s)
        }
        fn mbind(&self, a: usize, l: usize, p: &MemPolicy) -> Result<(), SysError> {
            self.0.mbind(a, l, p)
        }
        fn touch(&self, a: usize, l: usize) {
            self.0.touch(a, l)
        }
        fn current_node(&self) -> usize {
            self.0.current_node()
        }
    }

    fn rt(dynamic: &str) -> (Runtime, Arc<FakeSys>) {
        let fake = Arc::new(FakeSys::new(4, 10_000));
        let cfg = Config { dynamic: dynamic.into(), ..Config::default() };
        let rt = Runtime::new(Box::new(Shared(fake.clone())), cfg).unwrap();
        crate::space::SPACE.configure(4, 4096, &[Some(0), Some(1), Some(2), Some(3)]);
        (rt, fake)
    }

    #[test]
    fn config_parses_options_and_names_bad_ones() {
        let mut c = Config::default();
        c.apply("placement=round-robin; dynamic=sampled:period_ms=50,freeze=2 ;min_bytes=4096").unwrap();
        assert_eq!(c.placement, "round-robin");
        assert_eq!(c.dynamic, "sampled:period_ms=50,freeze=2");
        assert_eq!(c.min_bytes, 4096);
        assert!(c.apply("colour=red").unwrap_err().message.contains("unknown option 'colour'"));
        assert!(c.apply("min_bytes=lots").unwrap_err().message.contains("option 'min_bytes=lots'"));
        assert!(c.apply("justakey").unwrap_err().message.contains("expected key=value"));
        assert!(c.apply("source=bus-analyser").unwrap_err().message.contains("auto, faults or perf"));
    }

    #[test]
    fn unknown_and_unsupported_policies_are_refused_with_names() {
        let fake = Arc::new(FakeSys::new(2, 100));
        let e = Runtime::new(Box::new(Shared(fake.clone())), Config { dynamic: "nosuch".into(), ..Config::default() }).err().unwrap();
        assert_eq!(e.code, Code::Spec);
        assert!(e.message.contains("nosuch") && e.message.contains("upmlib"), "{}", e.message);
        let e = Runtime::new(Box::new(Shared(fake.clone())), Config { dynamic: "kernel".into(), ..Config::default() }).err().unwrap();
        assert_eq!(e.code, Code::Unsupported);
        let e = Runtime::new(Box::new(Shared(fake)), Config { placement: "wc".into(), ..Config::default() }).err().unwrap();
        assert_eq!(e.code, Code::Spec);
    }

    #[test]
    fn place_round_robin_and_bind_use_the_model_placement_and_mbind() {
        let (mut rt, fake) = rt("none");
        let base = 0x10_0000;
        assert_eq!(rt.place(base, 8 * 4096, "round-robin").unwrap(), 6); // pages 0 and 4 stay on node 0
        let nodes: Vec<_> = (0..8).map(|p| fake.node_of(base + p * 4096).unwrap()).collect();
        assert_eq!(nodes, vec![0, 1, 2, 3, 0, 1, 2, 3]);
        assert_eq!(rt.place(base, 8 * 4096, "bind:node=2").unwrap(), 6);
        assert!((0..8).all(|p| fake.node_of(base + p * 4096) == Some(2)));
        rt.place(base, 4096, "first-touch").unwrap();
        assert_eq!(fake.state.lock().unwrap().mbinds.last().unwrap().2, MemPolicy::Default);
        assert_eq!(rt.where_(base + 100, 2 * 4096).unwrap(), vec![2, 2, 2]);
        assert!(rt.place(base, 4096, "round-robin:nodes=9").is_err());
    }

    fn block_owner(p: usize, pages: usize) -> usize {
        p * 4 / pages
    }

    #[test]
    fn upmlib_moves_each_page_to_its_sampled_node_then_deactivates() {
        let (mut rt, fake) = rt("upmlib");
        let base = 0x4000_0000;
        let pages = 64;
        fake.touch(base, pages * 4096); // first touch by "thread 0": all on node 0
        let slot = rt.register(base, pages * 4096, "a", None).unwrap();
        for p in 0..pages {
            crate::space::SPACE.inject(slot, p, block_owner(p, pages), 3);
        }
        assert_eq!(rt.migrate("migrate").unwrap(), 48);
        assert!((0..pages).all(|p| fake.node_of(base + p * 4096) == Some(block_owner(p, pages))));
        // Iteration 2: the samples agree with the placement: nothing moves, upmlib switches off.
        for p in 0..pages {
            crate::space::SPACE.inject(slot, p, block_owner(p, pages), 3);
        }
        assert_eq!(rt.migrate("migrate").unwrap(), 0);
        assert!(!rt.wants_samples());
        let s = rt.stats_json();
        assert_eq!(s["pages_moved"], 48);
        assert_eq!(s["before"], serde_json::json!([64, 0, 0, 0]));
        assert_eq!(s["after"], serde_json::json!([16, 16, 16, 16]));
        assert_eq!(s["epochs"][0]["local_share"], 0.25);
        assert_eq!(s["epochs"][1]["local_share"], 1.0);
        rt.unregister(base);
    }

    #[test]
    fn record_replay_moves_the_phase_pages_and_undo_restores_them() {
        let (mut rt, fake) = rt("none");
        rt.cfg.recrep = "n=100".into();
        let base = 0x5000_0000;
        let pages = 32;
        fake.touch(base, pages * 4096);
        let slot = rt.register(base, pages * 4096, "u", None).unwrap();
        assert_eq!(rt.replay("z").unwrap_err().code, Code::State);
        rt.record("z").unwrap();
        // In the phase, node 3 uses the second half.
        for p in pages / 2..pages {
            crate::space::SPACE.inject(slot, p, 3, 2);
        }
        rt.record("z").unwrap();
        assert_eq!(rt.record("z").unwrap_err().code, Code::State);
        rt.compare("z").unwrap();
        assert_eq!(rt.replay("z").unwrap(), 16);
        assert!((pages / 2..pages).all(|p| fake.node_of(base + p * 4096) == Some(3)));
        assert_eq!(rt.undo().unwrap(), 16);
        assert!((0..pages).all(|p| fake.node_of(base + p * 4096) == Some(0)));
        // Replayed again in the next iteration.
        assert_eq!(rt.replay("z").unwrap(), 16);
        assert_eq!(rt.undo().unwrap(), 16);
        rt.unregister(base);
    }

    #[test]
    fn sampled_with_an_adaptive_period_waits_for_samples_then_moves_to_the_most_sampled_node() {
        let (mut rt, fake) = rt("sampled");
        assert_eq!(rt.timer, Some(Duration::from_millis(100))); // 10 ms checks, at the sampler's pace
        let base = 0x6000_0000;
        let pages = 16;
        fake.touch(base, pages * 4096);
        let slot = rt.register(base, pages * 4096, "a", None).unwrap();
        for p in 0..pages {
            crate::space::SPACE.inject(slot, p, 2, 1); // 1 sample per page: below 1.8
        }
        assert_eq!(rt.migrate("timer").unwrap(), 0);
        assert!(rt.stats.epochs.is_empty(), "a declined tick is not an epoch");
        for p in 0..pages {
            crate::space::SPACE.inject(slot, p, 2, 1); // the interval goes on: now 2 per page
        }
        assert_eq!(rt.migrate("timer").unwrap(), 16);
        assert!((0..pages).all(|p| fake.node_of(base + p * 4096) == Some(2)));
        assert_eq!(rt.stats.epochs.len(), 1);
        assert_eq!(crate::space::SPACE.count(slot, 0, 2), 0, "the policy's reset cleared the samples");
        rt.unregister(base);
    }

    #[test]
    fn a_timer_policy_backs_off_while_placement_holds_and_comes_back_on_a_move() {
        let (mut rt, fake) = rt("sampled:period_ms=1");
        let base = 0x7000_0000;
        let pages = 64;
        fake.touch(base, pages * 4096);
        let slot = rt.register(base, pages * 4096, "a", None).unwrap();
        // Two threads, on nodes 1 and 2, each using half the pages.
        let decide = |rt: &mut Runtime, user: &dyn Fn(usize) -> usize| {
            for p in 0..pages {
                crate::space::SPACE.inject(slot, p, user(p), 2);
            }
            rt.migrate("timer").unwrap()
        };
        let halves = |p: usize| if p < pages / 2 { 1 } else { 2 };
        // One node's samples alone (a start-up, one thread touching everything) say nothing.
        assert_eq!(decide(&mut rt, &|_| 0), 0);
        assert_eq!(rt.backoff, 0);
        assert_eq!(decide(&mut rt, &halves), 64);
        assert_eq!(rt.backoff, 0);
        // Placement holds: the back-off rises after 1, 2, 4, ... holding decisions in a row.
        let mut levels = Vec::new();
        for _ in 0..40 {
            assert_eq!(decide(&mut rt, &halves), 0);
            levels.push(rt.backoff);
        }
        assert_eq!(&levels[..8], &[1, 1, 2, 2, 2, 2, 3, 3]);
        assert_eq!(*levels.last().unwrap(), 5);
        assert_eq!(decide(&mut rt, &|p| if p < pages / 2 { 3 } else { 2 }), 32); // accesses moved
        assert_eq!(rt.backoff, 0);
        // An explicit call (numaplace_migrate, not the timer) does not change the pace.
        for p in 0..pages {
            crate::space::SPACE.inject(slot, p, if p < pages / 2 { 3 } else { 2 }, 2);
        }
        assert_eq!(rt.migrate("migrate").unwrap(), 0);
        assert_eq!(rt.backoff, 0);
        rt.unregister(base);
    }

    #[test]
    fn a_failed_registration_leaves_nothing_managed_and_unregister_finds_unaligned_ranges() {
        let (mut rt, fake) = rt("none");
        let base = 0x7100_0000;
        fake.state.lock().unwrap().fail_all = Some(libc::EPERM);
        let e = rt.register(base, 4 * 4096, "x", None).unwrap_err();
        assert_eq!(e.code, Code::Sys);
        assert!(crate::space::SPACE.find(base).is_none() && rt.regions.is_empty());
        fake.state.lock().unwrap().fail_all = None;
        // Registered from an unaligned address: the region starts at the next page.
        rt.register(base + 100, 4 * 4096, "y", None).unwrap();
        assert_eq!(rt.regions[0].start, base + 4096);
        assert_eq!(rt.unregister(base + 100), Some(None));
        assert!(rt.regions.is_empty() && crate::space::SPACE.find(base + 4096).is_none());
    }


    #[test]
    fn sampling_windows_wrap_round_and_cover_every_page_once() {
        let region = |slot: usize, pages: usize| Managed { name: String::new(), slot, start: 0, pages, first: 0, owned: None, before: vec![], seen: vec![] };
        let regions = [region(7, 10), region(8, 1), region(9, 5)];
        // A window larger than everything: each page once, starting at the cursor.
        assert_eq!(window_runs(&regions, 12, 100), vec![(9, 1, 5), (7, 0, 10), (8, 0, 1), (9, 0, 1)]);
        assert_eq!(window_runs(&regions, 0, 100), vec![(7, 0, 10), (8, 0, 1), (9, 0, 5)]);
        // A smaller window crosses region boundaries and wraps.
        assert_eq!(window_runs(&regions, 14, 4), vec![(9, 3, 5), (7, 0, 2)]);
        assert!(window_runs(&[], 3, 10).is_empty());
    }

}

#[cfg(test)]
mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any option string: applied or refused with one line naming the option, never a panic.
        #[test]
        fn arbitrary_options_are_applied_or_refused_in_one_line(text in "[a-z_=;,:. 0-9-]{0,40}") {
            let mut c = Config::default();
            if let Err(e) = c.apply(&text) {
                prop_assert!(!e.message.contains('\n'));
                prop_assert!(e.message.starts_with("option '") || e.message.starts_with("unknown option '"), "{}", e.message);
            }
        }
    }
}
