//! The process's [`Runtime`] and its policy driver: the dynamic policy driven on real pages,
//! sampling control (windows, the timer tick and its back-off). Its other concerns have their
//! own modules: [`crate::regions`], [`crate::place`], [`crate::recrep`], [`crate::stats`].
//!
//! The C API ([`crate::capi`]) and the preload hooks ([`crate::preload`]) call into one process-wide [`Runtime`] behind a mutex; the fault handler never takes it.
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

use crate::config::Config;
use crate::error::{Code, RtError};
use crate::mover::{self, MoveReport};
use crate::recrep::Phase;
use crate::regions::Managed;
use crate::space::SPACE;
use crate::stats::Stats;
use crate::sys::Sys;
use numaplace_model::counters::PageCounters;
use numaplace_model::dynamic::{self, Action, DynamicPolicy, View};
use numaplace_model::pagetable::UNTOUCHED;
use numaplace_model::placement::PlacementCaps;
use numaplace_model::topology::{host_machine, HostNode, HostOptions};
use numaplace_model::{placement, Machine, Region, Spec};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// A snapshot of the managed space for a policy decision.
pub(crate) struct Snapshot {
    pub(crate) homes: Vec<u8>,
    pub(crate) counters: PageCounters,
    pub(crate) regions: Vec<Region>,
    pub(crate) free: Vec<u64>,
    pub(crate) addr: Vec<usize>,
    pub(crate) samples: u64,
    pub(crate) local: u64,
    /// Nodes with at least one sample.
    pub(crate) active_nodes: u64,
}

impl Snapshot {
    /// What a policy sees of this snapshot (the runtime makes no replicas).
    pub(crate) fn view<'a>(&'a self, machine: &'a Machine, now: numaplace_model::Ps) -> View<'a> {
        View { machine, counters: &self.counters, replicas: &[], replica_writes: &[], homes: &self.homes, free: &self.free, regions: &self.regions, now, started: 0, queue: &[], done: 0, overhead: 0, remaining: None }
    }
}

/// The process's runtime.
pub struct Runtime {
    pub sys: Box<dyn Sys>,
    pub machine: Machine,
    pub cfg: Config,
    /// What the configured placement (`cfg.placement`) can do, from its registry entry.
    pub placement_caps: PlacementCaps,
    pub(crate) nearest: Vec<Vec<usize>>,
    pub regions: Vec<Managed>,
    pub(crate) next_first: usize,
    pub(crate) policy: Option<Box<dyn DynamicPolicy>>,
    pub(crate) phases: HashMap<String, Phase>,
    /// Which phase `upmlib_record` etc. act on (UPMlib's API names no phase).
    pub default_phase: String,
    pub(crate) iteration: u32,
    pub stats: Stats,
    pub source: &'static str,
    pub source_reason: String,
    pub(crate) started: Instant,
    /// Whether hinting-fault sampling is on (fault handler installed, windows revoked).
    pub sampling: bool,
    pub(crate) cursor: usize,
    pub(crate) last_timer: Instant,
    /// Timer-thread ticks since the last sampling step, and the back-off: a step every
    /// `2^backoff` ticks (see [`Runtime::tick`]).
    pub(crate) ticks: u32,
    pub(crate) backoff: u32,
    /// Holding decisions in a row at the current back-off.
    pub(crate) holds: u32,
    /// The policy's timer period, if it has one.
    pub timer: Option<Duration>,
    /// Precise memory sampling, when that is the source (no page is revoked then).
    pub perf: Option<crate::perf::Perf>,
    /// Why nothing is sampled although the policy would sample (a one-node host), said once
    /// on stderr when the first region is registered ([`Runtime::say_sampling_off`]).
    pub sampling_off: Option<String>,
    /// Calls of the API that drive a policy (`numaplace_migrate`, `upmlib_migrate_memory`,
    /// the record-replay calls): none, with a policy that only they run, is said at exit.
    pub api_calls: u64,
}

/// What the library says, and writes as the stats file's `source_reason`, on a one-node host.
pub const ONE_NODE: &str = "this host has one NUMA node: every access is local, nothing to place or move; \
sampling off (NUMAPLACE_FORCE=1 / numaplace run --force samples anyway)";

/// Whether [`Runtime::say_sampling_off`] has spoken in this process (or the one it was forked
/// from: a forked child says nothing again).
static SAID_OFF: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

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
        let (info, _) = placement::REGISTRY.resolve(&spec).map_err(|e| RtError::new(Code::Spec, e.to_string()))?;
        placement::check_driver(info, numaplace_model::dynamic::Driver::Runtime).map_err(|e| RtError::new(Code::Spec, e.to_string()))?;
        placement::build(&spec, &machine, cfg.seed).map_err(|e| RtError::new(Code::Spec, e.to_string()))?;
        let placement_caps = placement::REGISTRY.get(&spec.name).map_err(|e| RtError::new(Code::Spec, e.to_string()))?.caps;
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
            placement_caps,
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
            sampling_off: None,
            api_calls: 0,
        })
    }

    /// Whether sampling stays off on this host: one node, where every access is local, unless
    /// forced (`NUMAPLACE_FORCE=1`).
    pub fn one_node_off(&self) -> bool {
        self.nodes() == 1 && !self.cfg.force
    }

    /// Says on stderr, once per process (a forked child does not repeat it), why nothing is
    /// sampled, if sampling is off for a reason the user may not expect
    /// ([`Runtime::sampling_off`]). Called when a region is registered: a process that manages
    /// no memory (a shell running the program) has nothing to say.
    pub(crate) fn say_sampling_off(&self) {
        if let Some(why) = &self.sampling_off {
            if !SAID_OFF.swap(true, std::sync::atomic::Ordering::Relaxed) {
                eprintln!("numaplace: {why}");
            }
        }
    }

    /// What to say at exit about a policy that did nothing: one that decides at iteration ends
    /// (the model's `DynamicPolicy::decides_at_iteration_end`: `upmlib`, `upmlib-recrep`), whose
    /// iteration ends only the program's own calls mark (`numaplace_migrate()`), preloaded into
    /// a program that managed memory and never called the API. A policy with a timer of its
    /// own (`adaptive`) acted without the calls. `None` otherwise.
    pub fn idle_policy_warning(&self) -> Option<String> {
        let policy = self.policy.as_ref()?;
        let managed = !self.regions.is_empty() || !self.stats.retired.is_empty();
        if !policy.decides_at_iteration_end() || policy.timer_period().is_some() || self.api_calls > 0 || !managed {
            return None;
        }
        let name = self.cfg.dynamic.split(':').next().unwrap_or_default();
        Some(format!(
            "--dynamic {name} did nothing: the program never called numaplace_migrate() or upmlib_migrate_memory(), \
which run it; use --dynamic sampled for unmodified programs"
        ))
    }

    pub fn nodes(&self) -> usize {
        self.machine.nodes()
    }

    /// Time since the runtime started, in the model's picoseconds.
    pub(crate) fn now(&self) -> numaplace_model::Ps {
        (self.started.elapsed().as_nanos() as u64).saturating_mul(1000)
    }

    pub(crate) fn page_size(&self) -> usize {
        self.sys.page_size()
    }

    /// Whether the current policy (or a phase being recorded) wants samples.
    pub fn wants_samples(&self) -> bool {
        self.policy.as_ref().is_some_and(|p| p.counts()) || self.phases.values().any(|p| p.records == 1)
    }

    /// Reads homes and sample counts of every managed page, ending the sampling interval.
    pub(crate) fn snapshot(&self) -> Result<Snapshot, RtError> {
        self.unprotect_all();
        self.read_snapshot()
    }

    /// Reads homes and sample counts without disturbing sampling: pages under sampling stay
    /// so (a look, for a timer check the policy may let pass).
    pub(crate) fn snapshot_peek(&self) -> Result<Snapshot, RtError> {
        self.peek(|| self.read_snapshot())
    }

    pub(crate) fn read_snapshot(&self) -> Result<Snapshot, RtError> {
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

    pub(crate) fn age_samples(&self) {
        for r in &self.regions {
            SPACE.age_counts(r.slot);
        }
    }

    pub(crate) fn clear_samples(&self) {
        for r in &self.regions {
            SPACE.clear_counts(r.slot);
        }
    }

    /// Applies a policy's actions; returns the mover's report. `NUMAPLACE_DEBUG=2` prints each
    /// decision with the samples behind it.
    pub(crate) fn apply(&mut self, snap: &Snapshot, actions: &[Action]) -> Result<(MoveReport, Vec<u64>), RtError> {
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

    /// Revokes every managed page (a new sampling interval starts), or restores them all
    /// when nothing wants samples any more.
    pub fn rearm(&mut self) {
        if !self.sampling {
            return;
        }
        let want = self.wants_samples();
        // Every page revoked at once: a new interval of the critical-path estimate.
        self.stats.critical.close();
        self.timed_revoking(|| {
            for r in &self.regions {
                if want {
                    let _ = SPACE.revoke_pages(r.slot, 0, r.pages);
                } else {
                    SPACE.open_all(r.slot);
                }
            }
        });
    }

    /// Revokes the next window of pages (the sampler thread's periodic step).
    pub fn sample_step(&mut self) {
        if !self.sampling || !self.wants_samples() || self.regions.is_empty() {
            return;
        }
        self.timed_revoking(|| {
            for (slot, from, to) in window_runs(&self.regions, self.cursor, self.cfg.window_pages) {
                let _ = SPACE.revoke_pages(slot, from, to);
            }
        });
        let total: usize = self.regions.iter().map(|r| r.pages).sum();
        self.cursor = (self.cursor + self.cfg.window_pages.min(total)) % total.max(1);
    }

    /// Invokes the dynamic policy now: `upmlib` as at the end of an iteration, a timer
    /// policy as a timer tick. Returns pages moved.
    ///
    /// # Errors
    /// A failed system call.
    pub fn migrate(&mut self, kind: &'static str) -> Result<u64, RtError> {
        if kind != "timer" {
            self.api_calls += 1;
        }
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
    pub(crate) fn invoke(&mut self, policy: &mut dyn DynamicPolicy, kind: &'static str) -> Result<Option<u64>, RtError> {
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
    pub(crate) fn pace(&mut self, snap: &Snapshot, moved: u64) {
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
    pub(crate) fn drain_perf(&mut self) -> bool {
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
        // Each period is an interval of the critical-path estimate (crate::cost::Critical).
        self.stats.critical.close();
        let t = Instant::now();
        if self.drain_perf() {
            self.stats.time_revoking.set(self.stats.time_revoking.get() + t.elapsed());
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

/// The model machine of the host, by the model's one conversion of Linux's node topology
/// ([`host_machine`], as `numaplace detect` makes it), at the host's page size. Here only the
/// node structure and the latency order matter: it is the order the mover falls back in.
fn machine_of(sys: &dyn Sys) -> Result<Machine, RtError> {
    let t = sys.topology();
    let nodes: Vec<HostNode> = (0..t.nodes())
        .map(|n| HostNode { cpus: t.cpus[n].len() as u32, memory_kib: t.mem_bytes[n] >> 10, distance: t.distance[n].iter().map(|&d| f64::from(d)).collect() })
        .collect();
    let opts = HostOptions { page_size: sys.page_size() as u64, ..HostOptions::default() };
    host_machine(&nodes, &opts, "sysfs").map_err(|e| RtError::new(Code::Sys, format!("this host's topology: {e}")))
}

/// What the tests of every module build a runtime from: a fake kernel shared with the test.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;
    use crate::sys::{FakeSys, MemPolicy, SysError};
    use std::sync::Arc;

    /// A FakeSys shared with the test, so it can inspect pages after the runtime moved them.
    pub(crate) struct Shared(pub(crate) Arc<FakeSys>);

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

    /// [`SPACE`] is one per process, and `numaplace_init` (the C API's test) configures it
    /// for this host's nodes: a test that configures it for the fake 4-node kernel and injects
    /// samples holds this lock throughout, so no other test reconfigures it in between.
    static SPACE_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

    /// Holds [`SPACE`] for one test (a failed test's poisoning does not fail the others).
    pub(crate) fn hold_space() -> std::sync::MutexGuard<'static, ()> {
        SPACE_LOCK.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A runtime over a fake 4-node kernel, with [`SPACE`] held for the test (keep the guard).
    pub(crate) fn rt(dynamic: &str) -> (Runtime, Arc<FakeSys>, std::sync::MutexGuard<'static, ()>) {
        let space = hold_space();
        let fake = Arc::new(FakeSys::new(4, 10_000));
        let cfg = Config { dynamic: dynamic.into(), ..Config::default() };
        let rt = Runtime::new(Box::new(Shared(fake.clone())), cfg).unwrap();
        crate::space::SPACE.configure(4, 4096, &[Some(0), Some(1), Some(2), Some(3)]);
        (rt, fake, space)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::testing::{rt, Shared};
    use crate::sys::{FakeSys, Sys};
    use std::sync::Arc;

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

    fn block_owner(p: usize, pages: usize) -> usize {
        p * 4 / pages
    }

    #[test]
    fn upmlib_moves_each_page_to_its_sampled_node_then_deactivates() {
        let (mut rt, fake, _space) = rt("upmlib");
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
        let s = rt.stats_file();
        assert_eq!(s.pages_moved, 48);
        assert_eq!(s.before, [64, 0, 0, 0]);
        assert_eq!(s.after, [16, 16, 16, 16]);
        assert_eq!(s.epochs[0].local_share, Some(0.25));
        assert_eq!(s.epochs[1].local_share, Some(1.0));
        rt.unregister(base);
    }

    #[test]
    fn sampled_with_an_adaptive_period_waits_for_samples_then_moves_to_the_most_sampled_node() {
        let (mut rt, fake, _space) = rt("sampled");
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
        let (mut rt, fake, _space) = rt("sampled:period_ms=1");
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
