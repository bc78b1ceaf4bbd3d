//! The `DynamicPolicy` plug-in point: when pages move, decided from what the policy learns
//! about accesses. Written once, driven by the simulator (and later by the Linux runtime).
//!
//! A policy sees accesses through per-page, per-node counters ([`PageCounters`]) that the
//! driver maintains, and acts at its triggers: a counter interrupt (the driver raises it when a
//! remote node's count exceeds the home node's by the policy's interrupt threshold), the end of
//! an iteration, or a periodic timer. It answers with [`Action`]s, which the driver applies
//! with their costs.
//!
//! Policies here: `kernel` (IRIX / FLASH competitive migration, seed 000 §2.1, seed 002 §3) and
//! `upmlib` (user-level iterative migration, seed 000 §3.2).

use crate::counters::PageCounters;
use crate::error::ModelError;
use crate::registry::{Info, Registry};
use crate::spec::{ParamDecl, ParamKind, Resolved, Spec};
use crate::topology::Machine;
use crate::units::{NodeId, PageNo, Ps};
use crate::Region;

/// What a policy asks the driver to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Move `page` to `to` (the driver falls back to the nearest node with room).
    Migrate { page: PageNo, to: NodeId, reason: &'static str },
    /// Give `node` a read-only replica of `page` (if it has room).
    Replicate { page: PageNo, node: NodeId, reason: &'static str },
    /// Remove every replica of `page`.
    Collapse { page: PageNo, reason: &'static str },
}

/// What a timer tick asks of the driver.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timer {
    /// Halve every counter.
    pub age: bool,
    /// Clear every counter (after reading them).
    pub reset: bool,
    pub actions: Vec<Action>,
    /// Revoke access to these pages: the next access to each takes a hinting fault
    /// ([`DynamicPolicy::on_fault`]).
    pub revoke: Option<std::ops::Range<u32>>,
    /// When the next tick should come, if the policy changes its period.
    pub next_period: Option<Ps>,
}

/// Sampled observation (seed 003 §3, §4.1): the counters then hold samples, not accesses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sampling {
    /// Every `n`-th transaction of each thread is a sample.
    Interval(u64),
    /// At most this many samples per second of simulated time, shared among the running
    /// threads: a thread that issues fewer transactions than its share has all of them
    /// sampled, a faster one only its share (the bias of seed 003 §4.1).
    MaxRate(f64),
}

/// What a policy can see when it decides.
pub struct View<'a> {
    pub machine: &'a Machine,
    pub counters: &'a PageCounters,
    /// Replica bitmask per page (empty when nothing was ever replicated).
    pub replicas: &'a [u64],
    /// Writes to each replicated page since the last timer tick that invalidated lines held by
    /// a replica (empty likewise). The simulator keeps replicas coherent line by line (seed 001
    /// §2) and counts only such writes; a driver that cannot tell counts every write.
    pub replica_writes: &'a [u32],
    /// Home node of every page (`pagetable::UNTOUCHED` where not placed).
    pub homes: &'a [u8],
    /// Free pages per node.
    pub free: &'a [u64],
    pub regions: &'a [Region],
    /// Simulated time now.
    pub now: Ps,
}

/// Decides when pages move.
///
/// # Contract
/// * The driver counts every access of every page in [`PageCounters`] when
///   [`DynamicPolicy::counts`] is true, and calls the hooks below at their triggers, in
///   simulated-time order. A policy never changes state outside its own struct.
/// * Actions are applied in order; a migration's cost (machine `[migration]`) is charged as
///   the hook's documentation says. After a migration the page's counters are reset.
/// * Deterministic: the same sequence of calls gives the same actions.
pub trait DynamicPolicy: Send {
    /// Checks the policy's parameters against the workload's regions (e.g. named hot
    /// regions); the message names the parameter and lists the regions.
    ///
    /// # Errors
    /// A parameter that names a region the workload does not have.
    fn check_regions(&self, _regions: &[Region]) -> Result<(), String> {
        Ok(())
    }

    /// Whether the driver must keep counters for this policy.
    fn counts(&self) -> bool {
        true
    }

    /// The difference `count(remote) − count(home)` beyond which the driver raises
    /// [`DynamicPolicy::on_interrupt`]; `None` for no interrupts.
    fn interrupt_threshold(&self) -> Option<u16> {
        None
    }

    /// A counter interrupt for `page` caused by an access from `node`. The interrupted thread
    /// pays the handler and any migration.
    fn on_interrupt(&mut self, _view: &View<'_>, _page: PageNo, _node: NodeId) -> Option<Action> {
        None
    }

    /// The end of timed iteration `iteration` (at its barrier). Migrations are performed by
    /// one thread while the others wait: their cost lengthens the iteration.
    fn on_iteration_end(&mut self, _view: &View<'_>, _iteration: u32) -> Vec<Action> {
        Vec::new()
    }

    /// Before an epoch of `phase` in `iteration` starts (at the barrier before it). Migrations
    /// are on the critical path: every thread waits for them.
    fn on_epoch_start(&mut self, _view: &View<'_>, _iteration: u32, _phase: &str) -> Vec<Action> {
        Vec::new()
    }

    /// After an epoch of `phase` in `iteration` ends (at its barrier); as
    /// [`DynamicPolicy::on_epoch_start`].
    fn on_epoch_end(&mut self, _view: &View<'_>, _iteration: u32, _phase: &str) -> Vec<Action> {
        Vec::new()
    }

    /// Whether the driver resets every counter after [`DynamicPolicy::on_iteration_end`] (a
    /// policy that reads counters per iteration).
    fn reset_after_iteration(&self) -> bool {
        false
    }

    /// Period of [`DynamicPolicy::on_timer`], if any.
    fn timer_period(&self) -> Option<Ps> {
        None
    }

    /// A periodic timer. The actions stop the world: every running thread waits for them.
    fn on_timer(&mut self, _view: &View<'_>) -> Timer {
        Timer::default()
    }

    /// A hinting fault: `node`'s access to `page`, whose access was revoked. The faulting
    /// thread pays the fault (`fault_cost`) and any migration.
    fn on_fault(&mut self, _view: &View<'_>, _page: PageNo, _node: NodeId) -> Option<Action> {
        None
    }

    /// Cost of one hinting fault, ps.
    fn fault_cost(&self) -> Ps {
        0
    }

    /// Whether the policy makes replicas (the driver then serves reads from them and charges
    /// writes for invalidating them).
    fn replicates(&self) -> bool {
        false
    }

    /// How the driver observes accesses for this policy: every access counted (the default)
    /// or a sample of them.
    fn sampling(&self) -> Option<Sampling> {
        None
    }

    /// Pages frozen (never to migrate again) so far.
    fn frozen_pages(&self) -> u64 {
        0
    }

    /// Migrations decided at the first invocation, for policies that are invoked repeatedly.
    fn first_invocation_migrations(&self) -> Option<u64> {
        None
    }
}

/// What a dynamic policy observes of the accesses: the simulator picks the hot loop that
/// gathers it once, when the policy is attached, and a driver that cannot gather it refuses
/// the policy before anything runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Observes {
    /// Every access counted per page and node ([`DynamicPolicy::counts`] says when); a
    /// counter past [`DynamicPolicy::interrupt_threshold`] stops the accessing thread.
    Counters,
    /// A sample of the transactions ([`DynamicPolicy::sampling`]).
    Samples,
    /// Hinting faults on the pages whose access the policy revoked ([`Timer::revoke`]).
    HintingFaults,
    /// Counters, with read replicas the driver keeps coherent line by line.
    Replicas,
}

impl Observes {
    /// The word listings and JSON use.
    pub fn name(self) -> &'static str {
        match self {
            Observes::Counters => "counters",
            Observes::Samples => "samples",
            Observes::HintingFaults => "hinting-faults",
            Observes::Replicas => "replicas",
        }
    }
}

/// A program that runs policies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Driver {
    /// The simulator (`numaplace sim`): runs every policy.
    Simulator,
    /// The Linux runtime (`libnumaplace`, `numaplace run`) on real processes.
    Runtime,
}

impl Driver {
    /// The word listings and JSON use.
    pub fn name(self) -> &'static str {
        match self {
            Driver::Simulator => "simulator",
            Driver::Runtime => "runtime",
        }
    }
}

/// What a dynamic policy can do and needs, as data a driver asks before acting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DynamicCaps {
    pub observes: Observes,
    /// The drivers that can run it as a run's dynamic policy.
    pub drivers: &'static [Driver],
    /// Why the drivers not in `drivers` cannot (empty when every driver can).
    pub why_not: &'static str,
}

impl DynamicCaps {
    /// Whether `driver` can run the policy.
    pub fn runs_on(&self, driver: Driver) -> bool {
        self.drivers.contains(&driver)
    }
}

const BOTH: &[Driver] = &[Driver::Simulator, Driver::Runtime];
const SIM_ONLY: &[Driver] = &[Driver::Simulator];

/// A policy's constructor: resolved parameters, the machine and the run's thread count.
pub type Build = fn(&Resolved, &Machine, usize) -> Result<Box<dyn DynamicPolicy>, ModelError>;

/// One registry entry.
pub type DynamicInfo = Info<Build, DynamicCaps>;

/// Every dynamic policy, keyed by the name users type.
pub const REGISTRY: Registry<Build, DynamicCaps> = Registry { kind: "dynamic policy", groups: &[POLICIES] };

const POLICIES: &[DynamicInfo] = &[
    DynamicInfo {
        name: "kernel",
        doc: "IRIX / Stanford FLASH competitive migration: counter interrupts, filters, aging (seed 000 §2.1, seed 002 §3)",
        params: KERNEL_PARAMS,
        caps: DynamicCaps {
            observes: Observes::Counters,
            drivers: SIM_ONLY,
            why_not: "it needs per-frame hardware reference counters that interrupt the kernel (the Origin2000's), which Linux does not give user space",
        },
        build: |r, m, threads| Ok(Box::new(Kernel::new(r, m, threads))),
    },
    DynamicInfo {
        name: "upmlib-recrep",
        doc: "UPMlib record-replay: a phase's isolated counters from iteration 2 select pages to move before it and back after it (seed 000 §3.3)",
        params: RECREP_PARAMS,
        caps: DynamicCaps {
            observes: Observes::Counters,
            drivers: SIM_ONLY,
            why_not: "on real processes record-replay is driven by the program's numaplace_record/numaplace_replay calls (upmlib_record, upmlib_replay), not chosen as the run's policy",
        },
        build: |r, _, _| Ok(Box::new(RecRep::new(r))),
    },
    DynamicInfo {
        name: "sampled",
        doc: "profile-driven migration from sampled transactions, every period, with freezing (seed 003 §3)",
        params: SAMPLED_PARAMS,
        caps: DynamicCaps { observes: Observes::Samples, drivers: BOTH, why_not: "" },
        build: |r, _, _| Ok(Box::new(Sampled::new(r))),
    },
    DynamicInfo {
        name: "autonuma",
        doc: "Linux automatic NUMA balancing: scanner, hinting faults, two-fault filter, adaptive scan period (kernel/sched/fair.c)",
        params: AUTONUMA_PARAMS,
        caps: DynamicCaps {
            observes: Observes::HintingFaults,
            drivers: SIM_ONLY,
            why_not: "it is Linux's own NUMA balancing: on a real host turn that on instead (sysctl kernel.numa_balancing=1)",
        },
        build: |r, m, _| Ok(Box::new(AutoNuma::new(r, m))),
    },
    DynamicInfo {
        name: "wildfire",
        doc: "Sun Wildfire: page migration and/or replication from remote-access counts, replicas collapsed on writes (seed 001 §2)",
        params: WILDFIRE_PARAMS,
        caps: DynamicCaps {
            observes: Observes::Replicas,
            drivers: SIM_ONLY,
            why_not: "it replicates pages and counts remote accesses per page in hardware, which Linux does not offer user space",
        },
        build: |r, _, _| Ok(Box::new(Wildfire::new(r))),
    },
    DynamicInfo {
        name: "upmlib",
        doc: "UPMlib iterative migration at iteration ends until nothing moves; freezes bouncing pages (seed 000 §3.2)",
        params: UPMLIB_PARAMS,
        caps: DynamicCaps { observes: Observes::Counters, drivers: BOTH, why_not: "" },
        build: |r, _, _| Ok(Box::new(Upmlib::new(r))),
    },
];

/// Builds the policy named by `spec` for `machine` and a run of `threads` threads.
///
/// # Errors
/// An unknown name (listing the known ones) or a bad parameter.
pub fn build(spec: &Spec, machine: &Machine, threads: usize) -> Result<(Box<dyn DynamicPolicy>, Resolved), ModelError> {
    let (info, resolved) = resolve(spec)?;
    Ok(((info.build)(&resolved, machine, threads)?, resolved))
}

/// Finds `spec`'s policy and checks its parameters (names, types, ranges), without a machine.
///
/// # Errors
/// An unknown name (listing the known ones) or a bad parameter.
pub fn resolve(spec: &Spec) -> Result<(&'static DynamicInfo, Resolved), ModelError> {
    REGISTRY.resolve(spec)
}

/// Checks that `driver` can run `spec`'s policy (after [`resolve`]); the message gives the
/// reason and the policies it can run.
///
/// # Errors
/// [`ModelError::Config`] for a policy the driver cannot run.
pub fn check_driver(info: &DynamicInfo, driver: Driver) -> Result<(), ModelError> {
    if info.caps.runs_on(driver) {
        return Ok(());
    }
    let can: Vec<&str> = REGISTRY.iter().filter(|i| i.caps.runs_on(driver)).map(|i| i.name).collect();
    Err(ModelError::Config(format!(
        "dynamic policy '{}' cannot run in the {}: {}; the {} runs: none, {}",
        info.name,
        driver.name(),
        info.caps.why_not,
        driver.name(),
        can.join(", ")
    )))
}

const KERNEL_PARAMS: &[ParamDecl] = &[
    ParamDecl {
        name: "threshold",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: "0.5",
        doc: "interrupt when a remote count exceeds the home count by this fraction of the counter range (IRIX default 50%, seed 002 §3)",
    },
    ParamDecl {
        name: "page_interval_ms",
        kind: ParamKind::Float { min: 0.0, max: 1e6 },
        default: "10",
        doc: "filter: a page migrates at most once per this interval (assumption: IRIX's per-page rate limit)",
    },
    ParamDecl {
        name: "max_rate",
        kind: ParamKind::Float { min: 0.0, max: 1e9 },
        default: "10000",
        doc: "filter: system-wide migrations per second at most (assumption)",
    },
    ParamDecl {
        name: "aging_ms",
        kind: ParamKind::Float { min: 0.0, max: 1e6 },
        default: "1000",
        doc: "counters are halved every this many ms (0: never). Assumption: the seeds give no period; at 50 ms the counts of these kernels' pages never reach the threshold",
    },
];

/// The IRIX kernel engine: hardware counters raise an interrupt when a remote node's count
/// exceeds the home node's by the threshold; the handler applies its filters and migrates.
struct Kernel {
    threshold: u16,
    page_interval: Ps,
    min_gap: Ps,
    aging: Option<Ps>,
    last_migration: std::collections::HashMap<u32, Ps>,
    last_any: Option<Ps>,
}

impl Kernel {
    fn new(r: &Resolved, m: &Machine, _threads: usize) -> Self {
        let max = ((1u32 << m.raw.counter_bits.clamp(1, 16)) - 1) as f64;
        let rate = r.float("max_rate");
        let aging = r.float("aging_ms");
        Kernel {
            threshold: (r.float("threshold") * max).round().max(1.0) as u16,
            page_interval: (r.float("page_interval_ms") * 1e9) as Ps,
            min_gap: if rate > 0.0 { (1e12 / rate) as Ps } else { Ps::MAX },
            aging: (aging > 0.0).then(|| (aging * 1e9) as Ps),
            last_migration: std::collections::HashMap::new(),
            last_any: None,
        }
    }
}

impl DynamicPolicy for Kernel {
    fn interrupt_threshold(&self) -> Option<u16> {
        Some(self.threshold)
    }

    fn on_interrupt(&mut self, view: &View<'_>, page: PageNo, node: NodeId) -> Option<Action> {
        // Filters, as the IRIX handler applies them (seed 002 §3): the page's own rate
        // limit, room on the target node, and the system-wide migration rate.
        if let Some(&t) = self.last_migration.get(&page.0) {
            if view.now < t.saturating_add(self.page_interval) {
                return None;
            }
        }
        if view.free[node.index()] == 0 {
            return None;
        }
        if let Some(t) = self.last_any {
            if view.now < t.saturating_add(self.min_gap) {
                return None;
            }
        }
        self.last_migration.insert(page.0, view.now);
        self.last_any = Some(view.now);
        Some(Action::Migrate { page, to: node, reason: "counter interrupt" })
    }

    fn timer_period(&self) -> Option<Ps> {
        self.aging
    }

    fn on_timer(&mut self, _view: &View<'_>) -> Timer {
        Timer { age: true, ..Timer::default() }
    }
}

const UPMLIB_PARAMS: &[ParamDecl] = &[
    ParamDecl {
        name: "threshold",
        kind: ParamKind::Float { min: 1.0, max: 1e6 },
        default: "2",
        doc: "competitive criterion: migrate when the busiest node's count exceeds the home count times this (choice: seed 000 does not give it)",
    },
    ParamDecl {
        name: "regions",
        kind: ParamKind::Word,
        default: "all",
        doc: "hot regions to monitor: all, or region names joined by '+', e.g. u+rhs+forcing (seed 000 Figure 2)",
    },
];

/// UPMlib: after iteration 1, and after each later iteration while the previous invocation
/// moved something, move each page to the node that accessed it most when that node's count
/// beats the home node's by the threshold ratio. A page that moves back to the node it came
/// from in consecutive invocations is frozen. Counters are read and reset at each invocation.
struct Upmlib {
    ratio: f64,
    /// Names of the hot regions, or `None` for all.
    regions: Option<Vec<String>>,
    active: bool,
    invocations: u32,
    first: Option<u64>,
    /// Last move of each page: (invocation, from, to).
    moved: std::collections::HashMap<u32, (u32, u8, u8)>,
    frozen: std::collections::HashSet<u32>,
}

impl Upmlib {
    fn new(r: &Resolved) -> Self {
        let regions = r.text("regions");
        Upmlib {
            ratio: r.float("threshold"),
            regions: (regions != "all").then(|| regions.split('+').map(str::to_string).collect()),
            active: true,
            invocations: 0,
            first: None,
            moved: std::collections::HashMap::new(),
            frozen: std::collections::HashSet::new(),
        }
    }
}

impl DynamicPolicy for Upmlib {
    fn check_regions(&self, regions: &[Region]) -> Result<(), String> {
        for name in self.regions.iter().flatten() {
            if !regions.iter().any(|r| &r.name == name) {
                let known: Vec<&str> = regions.iter().map(|r| r.name.as_str()).collect();
                return Err(format!("dynamic policy 'upmlib': regions: no region '{name}' (the workload has: {})", known.join(", ")));
            }
        }
        Ok(())
    }

    fn counts(&self) -> bool {
        self.active
    }

    fn on_iteration_end(&mut self, view: &View<'_>, _iteration: u32) -> Vec<Action> {
        if !self.active {
            return Vec::new();
        }
        self.invocations += 1;
        let inv = self.invocations;
        let mut out = Vec::new();
        let hot: Vec<&Region> = match &self.regions {
            Some(names) => view.regions.iter().filter(|r| names.contains(&r.name)).collect(),
            None => view.regions.iter().collect(),
        };
        let pages = hot.iter().flat_map(|r| r.first_page as usize..(r.first_page + r.pages) as usize);
        for page in pages {
            let home = view.homes[page];
            if home as usize >= view.machine.nodes() || self.frozen.contains(&(page as u32)) {
                continue;
            }
            let p = PageNo(page as u32);
            let (best, count) = view.counters.busiest(p);
            let local = view.counters.get(p.0, home as usize);
            if best.0 == home || count == 0 || (count as f64) <= self.ratio * local as f64 {
                continue;
            }
            // Ping-pong: the page moves back to where it came from one invocation later.
            if let Some(&(when, from, to)) = self.moved.get(&p.0) {
                if when + 1 == inv && from == best.0 && to == home {
                    self.frozen.insert(p.0);
                    continue;
                }
            }
            self.moved.insert(p.0, (inv, home, best.0));
            out.push(Action::Migrate { page: p, to: best, reason: "competitive criterion" });
        }
        if self.first.is_none() {
            self.first = Some(out.len() as u64);
        }
        if out.is_empty() {
            self.active = false; // self-deactivation (seed 000 §3.2)
        }
        out
    }

    fn reset_after_iteration(&self) -> bool {
        true
    }

    fn frozen_pages(&self) -> u64 {
        self.frozen.len() as u64
    }

    fn first_invocation_migrations(&self) -> Option<u64> {
        self.first
    }
}

const RECREP_PARAMS: &[ParamDecl] = &[
    ParamDecl { name: "phase", kind: ParamKind::Word, default: "z_solve", doc: "the phase to redistribute for (BT's z_solve, seed 000 §3.3)" },
    ParamDecl {
        name: "threshold",
        kind: ParamKind::Float { min: 0.0, max: 1e6 },
        default: "2",
        doc: "a page is eligible when r_max / a_local exceeds this (choice: seed 000 leaves thr open)",
    },
    ParamDecl { name: "n", kind: ParamKind::UInt, default: "20", doc: "the n most critical pages (highest ratio) move, per transition" },
    ParamDecl {
        name: "distribute",
        kind: ParamKind::Choice(&["on", "off"]),
        default: "on",
        doc: "also run upmlib's migrate_memory once, at the end of iteration 1 (data distribution), as seed 000 Figure 3 does",
    },
];

/// Record–replay (seed 000 §3.3): in iteration 2 the counters of every page are recorded
/// before and after each epoch of the phase; the difference isolates the phase's accesses.
/// Pages with `r_max / a_local > threshold` (the busiest remote node's count over the home
/// node's) are eligible; the `n` with the highest ratio move to their busiest node before the
/// phase in every later iteration, and back to their original node after it. Both moves are
/// on the critical path.
struct RecRep {
    phase: String,
    ratio: f64,
    n: usize,
    /// Counters at the start of the phase's current epoch in iteration 2.
    snapshot: Vec<u16>,
    /// The phase's accumulated counts per page and node (iteration 2).
    isolated: Vec<u32>,
    /// (page, target) to replay, decided at the end of iteration 2.
    plan: Vec<(PageNo, NodeId)>,
    /// (page, original node) moved by the current replay, to undo.
    undo: Vec<(PageNo, NodeId)>,
    recorded: bool,
    /// UPMlib's data distribution, run once at the end of iteration 1 (Figure 3).
    distribute: Option<Upmlib>,
}

impl RecRep {
    fn new(r: &Resolved) -> Self {
        let upmlib = Spec::parse("upmlib").and_then(|s| s.resolve("dynamic policy", UPMLIB_PARAMS)).expect("upmlib's defaults resolve");
        RecRep {
            distribute: (r.choice("distribute") == "on").then(|| Upmlib::new(&upmlib)),
            phase: r.text("phase").to_string(),
            ratio: r.float("threshold"),
            n: r.uint("n") as usize,
            snapshot: Vec::new(),
            isolated: Vec::new(),
            plan: Vec::new(),
            undo: Vec::new(),
            recorded: false,
        }
    }

    fn all_counts(view: &View<'_>) -> Vec<u16> {
        (0..view.homes.len()).flat_map(|p| view.counters.row(PageNo(p as u32)).to_vec()).collect()
    }
}

impl DynamicPolicy for RecRep {
    fn counts(&self) -> bool {
        !self.recorded
    }

    /// Counters restart at each iteration: the distribution at the end of iteration 1 reads
    /// that iteration's counts; the recording differences counters within iteration 2.
    fn reset_after_iteration(&self) -> bool {
        true
    }

    fn on_epoch_start(&mut self, view: &View<'_>, iteration: u32, phase: &str) -> Vec<Action> {
        if phase != self.phase {
            return Vec::new();
        }
        if iteration == 2 {
            self.snapshot = Self::all_counts(view);
            return Vec::new();
        }
        if iteration < 3 {
            return Vec::new();
        }
        self.undo.clear();
        let mut out = Vec::new();
        for &(page, to) in &self.plan {
            let home = view.homes[page.0 as usize];
            if home != to.0 && (home as usize) < view.machine.nodes() {
                self.undo.push((page, NodeId(home)));
                out.push(Action::Migrate { page, to, reason: "record-replay: replay before the phase" });
            }
        }
        out
    }

    fn on_epoch_end(&mut self, view: &View<'_>, iteration: u32, phase: &str) -> Vec<Action> {
        if phase != self.phase {
            return Vec::new();
        }
        if iteration == 2 && !self.snapshot.is_empty() {
            let now = Self::all_counts(view);
            if self.isolated.is_empty() {
                self.isolated = vec![0; now.len()];
            }
            for ((acc, &after), &before) in self.isolated.iter_mut().zip(&now).zip(&self.snapshot) {
                *acc += after.saturating_sub(before) as u32;
            }
            return Vec::new();
        }
        self.undo
            .drain(..)
            .map(|(page, to)| Action::Migrate { page, to, reason: "record-replay: undo after the phase" })
            .collect()
    }

    fn on_iteration_end(&mut self, view: &View<'_>, iteration: u32) -> Vec<Action> {
        if iteration == 1 {
            return self.distribute.as_mut().map_or_else(Vec::new, |u| u.on_iteration_end(view, 1));
        }
        if iteration != 2 || self.recorded {
            return Vec::new();
        }
        self.recorded = true;
        let nodes = view.machine.nodes();
        let mut eligible: Vec<(f64, u32, PageNo, NodeId)> = Vec::new();
        for (page, &home) in view.homes.iter().enumerate() {
            let home = home as usize;
            if home >= nodes || self.isolated.is_empty() {
                continue;
            }
            let row = &self.isolated[page * nodes..(page + 1) * nodes];
            let (best, r_max) = row
                .iter()
                .enumerate()
                .filter(|&(n, _)| n != home)
                .fold((0, 0u32), |acc, (n, &v)| if v > acc.1 { (n, v) } else { acc });
            if r_max == 0 {
                continue;
            }
            // No local access at all: the ratio is unbounded, the page eligible. (Counting
            // a_local = 0 as 1 would make a driver with sparse counts, such as the runtime's
            // hinting-fault samples, never select a page seen once or twice remotely.)
            let ratio = if row[home] == 0 { f64::INFINITY } else { r_max as f64 / row[home] as f64 };
            if ratio > self.ratio {
                eligible.push((ratio, r_max, PageNo(page as u32), NodeId(best as u8)));
            }
        }
        // Highest ratio first, then most remote accesses; ties by page number, for determinism.
        eligible.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        self.plan = eligible.into_iter().take(self.n).map(|(_, _, p, to)| (p, to)).collect();
        self.isolated = Vec::new();
        self.snapshot = Vec::new();
        Vec::new()
    }
}

const SAMPLED_PARAMS: &[ParamDecl] = &[
    ParamDecl {
        name: "mode",
        kind: ParamKind::Choice(&["interval", "max-rate"]),
        default: "interval",
        doc: "sample every N-th transaction, or at most R samples per second (seed 003 §4.1)",
    },
    ParamDecl { name: "interval", kind: ParamKind::UInt, default: "1024", doc: "N: every N-th transaction (seed 003 §5 samples every 1024)" },
    ParamDecl {
        name: "max_rate",
        kind: ParamKind::Float { min: 1.0, max: 1e12 },
        default: "100000",
        doc: "R: samples per second in max-rate mode (assumption: what the bus analyzer's software could read)",
    },
    ParamDecl {
        name: "period_ms",
        kind: ParamKind::Float { min: 0.001, max: 1e7 },
        default: "auto",
        doc: "T: migration interval in ms; auto (the default): seed 003 §5's 5 s scaled to the run, ending an interval once the samples taken in it reach samples_per_page per placed page",
    },
    ParamDecl {
        name: "samples_per_page",
        kind: ParamKind::Float { min: 0.001, max: 1e6 },
        default: "1.8",
        doc: "with period_ms=auto: samples per placed page that end an interval (seed 003's 5 s intervals held 0.4 to 8.7 per page, median 1.8: Tables 4 and 6 with the NPB class B/C footprints, docs/timing.md)",
    },
    ParamDecl { name: "freeze", kind: ParamKind::UInt, default: "3", doc: "freeze a page that migrated in each of the last this many intervals (seed 003 §3)" },
];

/// With `period_ms=auto`, how often the migration thread looks at the sample count (it runs
/// on its own CPU, seed 003 §3, so looking costs the application nothing).
const SAMPLED_CHECK_PS: Ps = 10_000_000_000;

/// Seed 003's engine: a profiler samples transactions into per-page, per-node sample counts;
/// every period a migration thread stops the application, moves every page to the node with
/// the most samples (no minimum count, seed 003 §3), freezes pages that migrated in each of
/// the last `freeze` intervals, and clears the samples.
///
/// The period: seed 003 §5 uses T = 5 s on runs of 31 s to 65 min and found 1 s to 50 s
/// equally good. Our runs are 10 to 1000 times shorter and sample at different rates, so a
/// fixed T cannot carry over; what does carry over is what a period holds. With
/// `period_ms=auto` an interval ends once the samples taken in it reach `samples_per_page` per
/// placed page (checked every 10 ms of simulated time); a number fixes T instead.
struct Sampled {
    sampling: Sampling,
    /// `None`: adaptive (`period_ms=auto`).
    period: Option<Ps>,
    per_page: f64,
    freeze: u32,
    tick: u32,
    /// Per page that has migrated: the consecutive intervals (ending at `tick`) it moved in.
    streak: std::collections::HashMap<u32, (u32, u32)>,
    frozen: std::collections::HashSet<u32>,
}

impl Sampled {
    fn new(r: &Resolved) -> Self {
        Sampled {
            sampling: match r.choice("mode") {
                "max-rate" => Sampling::MaxRate(r.float("max_rate")),
                _ => Sampling::Interval(r.uint("interval").max(1)),
            },
            period: (!r.is_auto("period_ms")).then(|| ((r.float("period_ms") * 1e9) as Ps).max(1)),
            per_page: r.float("samples_per_page"),
            freeze: r.uint("freeze") as u32,
            tick: 0,
            streak: std::collections::HashMap::new(),
            frozen: std::collections::HashSet::new(),
        }
    }
}

impl DynamicPolicy for Sampled {
    fn sampling(&self) -> Option<Sampling> {
        Some(self.sampling)
    }

    fn timer_period(&self) -> Option<Ps> {
        Some(self.period.unwrap_or(SAMPLED_CHECK_PS))
    }

    fn on_timer(&mut self, view: &View<'_>) -> Timer {
        let nodes = view.machine.nodes();
        if self.period.is_none() {
            // Adaptive period: act only once the interval holds enough samples.
            let placed = view.homes.iter().filter(|&&h| (h as usize) < nodes).count() as f64;
            let taken: u64 = (0..view.homes.len()).map(|p| view.counters.row(PageNo(p as u32)).iter().map(|&v| v as u64).sum::<u64>()).sum();
            if placed == 0.0 || (taken as f64) < self.per_page * placed {
                return Timer::default();
            }
        }
        self.tick += 1;
        let mut actions = Vec::new();
        for (page, &home) in view.homes.iter().enumerate() {
            if home as usize >= nodes || self.frozen.contains(&(page as u32)) {
                continue;
            }
            let p = PageNo(page as u32);
            let (best, count) = view.counters.busiest(p);
            if count == 0 || best.0 == home || count <= view.counters.get(p.0, home as usize) {
                continue;
            }
            let run = match self.streak.get(&p.0) {
                Some(&(last, n)) if last + 1 == self.tick => n + 1,
                _ => 1,
            };
            self.streak.insert(p.0, (self.tick, run));
            if self.freeze > 0 && run >= self.freeze {
                self.frozen.insert(p.0);
            }
            actions.push(Action::Migrate { page: p, to: best, reason: "most samples in the interval" });
        }
        Timer { reset: true, actions, ..Timer::default() }
    }

    fn frozen_pages(&self) -> u64 {
        self.frozen.len() as u64
    }
}

const AUTONUMA_PARAMS: &[ParamDecl] = &[
    ParamDecl {
        name: "scan_period_min_ms",
        kind: ParamKind::Float { min: 0.001, max: 1e7 },
        default: "1000",
        doc: "shortest scan period (Linux sysctl numa_balancing_scan_period_min_ms, kernel/sched/fair.c: 1000)",
    },
    ParamDecl {
        name: "scan_period_max_ms",
        kind: ParamKind::Float { min: 0.001, max: 1e7 },
        default: "60000",
        doc: "longest scan period (numa_balancing_scan_period_max_ms: 60000)",
    },
    ParamDecl {
        name: "scan_size_mb",
        kind: ParamKind::Float { min: 0.001, max: 1e9 },
        default: "256",
        doc: "address space made to fault per scan (numa_balancing_scan_size_mb: 256)",
    },
    ParamDecl {
        name: "fault_ns",
        kind: ParamKind::Float { min: 0.0, max: 1e9 },
        default: "1000",
        doc: "cost of one hinting fault (assumption: a minor fault, about 1 µs)",
    },
];

/// Linux automatic NUMA balancing, reduced to its page-migration core (kernel/sched/fair.c,
/// mm/memory.c): every scan period the scanner revokes access to the next `scan_size` window
/// of the address space (task_numa_work); the next access to such a page takes a hinting
/// fault; the page migrates to the faulting node when the previous fault on it also came from
/// that node (the two-stage filter of should_numa_migrate_memory, which compares with the
/// last faulting CPU's node). The period doubles after a scan window whose faults were
/// mostly local (≥ 70 %, NUMA_PERIOD_THRESHOLD 7 of 10) and halves otherwise, between the
/// minimum and the maximum. Task placement (moving threads) is not modelled: threads are bound.
struct AutoNuma {
    min: Ps,
    max: Ps,
    period: Ps,
    window: u32,
    next_page: u32,
    fault_cost: Ps,
    /// Node of the last fault on each page (`u8::MAX`: none yet).
    last_fault: Vec<u8>,
    local_faults: u64,
    faults: u64,
}

impl AutoNuma {
    fn new(r: &Resolved, m: &Machine) -> Self {
        let min = (r.float("scan_period_min_ms") * 1e9) as Ps;
        let max = ((r.float("scan_period_max_ms") * 1e9) as Ps).max(min);
        let window = ((r.float("scan_size_mb") * 1048576.0) / m.raw.page_size as f64).ceil().max(1.0) as u32;
        AutoNuma {
            min,
            max,
            // Linux starts at the minimum period (task_scan_start).
            period: min,
            window,
            next_page: 0,
            fault_cost: (r.float("fault_ns") * 1000.0) as Ps,
            last_fault: Vec::new(),
            local_faults: 0,
            faults: 0,
        }
    }
}

impl DynamicPolicy for AutoNuma {
    fn counts(&self) -> bool {
        false
    }

    fn timer_period(&self) -> Option<Ps> {
        Some(self.min)
    }

    fn fault_cost(&self) -> Ps {
        self.fault_cost
    }

    fn on_timer(&mut self, view: &View<'_>) -> Timer {
        let pages = view.homes.len() as u32;
        if self.last_fault.len() != pages as usize {
            self.last_fault = vec![u8::MAX; pages as usize];
        }
        // Adapt the period to the last window's faults.
        if self.faults > 0 {
            self.period = if self.local_faults * 10 >= self.faults * 7 {
                (self.period * 2).min(self.max)
            } else {
                (self.period / 2).max(self.min)
            };
        }
        self.local_faults = 0;
        self.faults = 0;
        let start = if self.next_page >= pages { 0 } else { self.next_page };
        let end = start.saturating_add(self.window).min(pages);
        self.next_page = end;
        Timer { revoke: Some(start..end), next_period: Some(self.period), ..Timer::default() }
    }

    fn on_fault(&mut self, view: &View<'_>, page: PageNo, node: NodeId) -> Option<Action> {
        let home = view.homes[page.0 as usize];
        self.faults += 1;
        if home == node.0 {
            self.local_faults += 1;
        }
        let slot = self.last_fault.get_mut(page.0 as usize)?;
        let previous = std::mem::replace(slot, node.0);
        (previous == node.0 && home != node.0 && view.free[node.index()] > 0)
            .then_some(Action::Migrate { page, to: node, reason: "two consecutive hinting faults from this node" })
    }
}

const WILDFIRE_PARAMS: &[ParamDecl] = &[
    ParamDecl { name: "migration", kind: ParamKind::Choice(&["on", "off"]), default: "on", doc: "move pages to the node that uses them (seed 001 §2)" },
    ParamDecl { name: "replication", kind: ParamKind::Choice(&["on", "off"]), default: "on", doc: "give nodes read-only replicas of pages they read (seed 001 §2)" },
    ParamDecl {
        name: "threshold",
        kind: ParamKind::UInt,
        default: "64",
        doc: "remote accesses from one node in an interval that make a page a candidate (assumption: seed 001 gives no number)",
    },
    ParamDecl {
        name: "period_ms",
        kind: ParamKind::Float { min: 0.001, max: 1e7 },
        default: "1000",
        doc: "how often the daemon examines the counters (assumption)",
    },
    ParamDecl {
        name: "collapse_ratio",
        kind: ParamKind::Float { min: 0.0, max: 1e6 },
        default: "0.5",
        doc: "a replicated page is collapsed when the lines other nodes' writes invalidate in its replicas in an interval exceed this share of the replicas' own accesses (assumption: seed 001 gives no rule)",
    },
    ParamDecl {
        name: "recent",
        kind: ParamKind::UInt,
        default: "4",
        doc: "a page migrated within this many intervals is replicated rather than moved again",
    },
];

/// Sun Wildfire's migration and replication (seed 001 §2). Every period the daemon reads the
/// per-page, per-node counters: a page with more than `threshold` accesses from some remote
/// node in the interval is a candidate. With migration on, a candidate whose busiest node
/// outdoes its home moves there, unless (with replication on) it is already replicated or
/// migrated recently: then, as when migration is off, the busiest remote node gets a replica.
/// A replica is seed 001 §2's "shadow" page: it satisfies its node's misses to the page while
/// coherence is kept line by line, so the node's reads and its writes to lines it holds alone
/// are local, and another node's write invalidates the written lines in every other copy (the
/// driver's model; see the simulator's hot loop). A page whose replicas lose, in an interval,
/// more lines to other nodes' writes than `collapse_ratio` times the replicas' own accesses is
/// collapsed back to one copy and never replicated again (without that it would be replicated
/// and collapsed over and over).
/// Counters restart every interval.
struct Wildfire {
    migration: bool,
    replication: bool,
    threshold: u16,
    period: Ps,
    collapse_ratio: f64,
    recent: u32,
    tick: u32,
    migrated: std::collections::HashMap<u32, u32>,
    collapsed: std::collections::HashMap<u32, u32>,
}

impl Wildfire {
    fn new(r: &Resolved) -> Self {
        Wildfire {
            migration: r.choice("migration") == "on",
            replication: r.choice("replication") == "on",
            threshold: r.uint("threshold").min(u16::MAX as u64) as u16,
            period: (r.float("period_ms") * 1e9) as Ps,
            collapse_ratio: r.float("collapse_ratio"),
            recent: r.uint("recent") as u32,
            tick: 0,
            migrated: std::collections::HashMap::new(),
            collapsed: std::collections::HashMap::new(),
        }
    }
}

impl DynamicPolicy for Wildfire {
    fn counts(&self) -> bool {
        self.migration || self.replication
    }

    fn replicates(&self) -> bool {
        self.replication
    }

    fn timer_period(&self) -> Option<Ps> {
        (self.migration || self.replication).then_some(self.period)
    }

    fn on_timer(&mut self, view: &View<'_>) -> Timer {
        self.tick += 1;
        let nodes = view.machine.nodes();
        let mut actions = Vec::new();
        for (page, &home) in view.homes.iter().enumerate() {
            let home = home as usize;
            if home >= nodes {
                continue;
            }
            let p = PageNo(page as u32);
            let replicas = view.replicas.get(page).copied().unwrap_or(0);
            let row = view.counters.row(p);
            if replicas != 0 {
                // The replicas' own accesses in the interval, against the lines other nodes'
                // writes took from them.
                let writes = view.replica_writes.get(page).copied().unwrap_or(0) as f64;
                let served: f64 = row.iter().enumerate().filter(|&(n, _)| n < 64 && replicas & (1 << n) != 0).map(|(_, &v)| v as f64).sum();
                if writes > self.collapse_ratio * served.max(1.0) {
                    self.collapsed.insert(p.0, self.tick);
                    actions.push(Action::Collapse { page: p, reason: "written often while replicated" });
                    continue;
                }
            }
            let (best, count) = row
                .iter()
                .enumerate()
                .filter(|&(n, _)| n != home && replicas & (1 << n) == 0)
                .fold((0usize, 0u16), |acc, (n, &v)| if v > acc.1 { (n, v) } else { acc });
            if count <= self.threshold {
                continue;
            }
            let recently = self.migrated.get(&p.0).is_some_and(|&t| t + self.recent >= self.tick);
            let replicate = self.replication && (!self.migration || replicas != 0 || recently);
            if replicate && self.collapsed.contains_key(&p.0) {
                continue;
            }
            if replicate {
                actions.push(Action::Replicate { page: p, node: NodeId(best as u8), reason: "remote reads past the threshold" });
            } else if self.migration && count > row[home] {
                self.migrated.insert(p.0, self.tick);
                actions.push(Action::Migrate { page: p, to: NodeId(best as u8), reason: "remote accesses past the threshold" });
            }
        }
        Timer { reset: true, actions, ..Timer::default() }
    }
}
