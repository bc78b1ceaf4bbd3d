//! The `DynamicPolicy` plug-in point: when pages move, decided from what the policy learns
//! about accesses. Written once, driven by the simulator and by the Linux runtime.
//!
//! A policy sees accesses through per-page, per-node counters ([`PageCounters`]) that the
//! driver maintains, and acts at its triggers: a counter interrupt (the driver raises it when a
//! remote node's count exceeds the home node's by the policy's interrupt threshold), the end of
//! an iteration, a phase boundary, a periodic timer or a hinting fault. It answers with
//! [`Action`]s, which the driver applies with their costs.
//!
//! This module holds the trait, what it exchanges with drivers, the capabilities a driver asks
//! before running a policy ([`DynamicCaps`]) and the [`REGISTRY`]. Each policy lives in its own
//! file with its parameters and its registry entry (`INFO`):
//!
//! * `kernel`: IRIX / FLASH competitive migration (seed 000 §2.1, seed 002 §3).
//! * `upmlib`: UPMlib's user-level iterative migration (seed 000 §3.2).
//! * `recrep` (`upmlib-recrep`): UPMlib's record–replay (seed 000 §3.3).
//! * `sampled`: migration from sampled transactions (seed 003 §3).
//! * `autonuma`: Linux's automatic NUMA balancing (kernel/sched/fair.c).
//! * `wildfire`: Sun Wildfire's migration and replication (seed 001 §2).
//! * `numab-tiering`: Linux NUMA balancing's memory-tiering mode (`numa_balancing=2`).
//! * `tpp`: Transparent Page Placement (Meta, ASPLOS'23).
//! * `hemem`: HeMem's PEBS-sampled hot/cold tiering (SOSP'21).
//! * `memtis`: Memtis's histogram-sized hot set with huge-page splitting (SOSP'23).
//! * `colloid`: Colloid's loaded-latency balancing (SOSP'24), layered on HeMem.
//! * `nomad`: NOMAD's transactional migration and page shadowing on TPP's sensing (OSDI'24).
//!
//! `tiering` holds what the tiering policies share: the promotion and demotion counts, and the
//! reclaimer that demotes cold pages from a fast node that runs low (Linux's kswapd with
//! demotion enabled).

use crate::counters::PageCounters;
use crate::error::ModelError;
use crate::registry::{Info, Registry};
use crate::report::{Report, StatDecl};
use crate::spec::{Resolved, Spec};
use crate::topology::Machine;
use crate::units::{NodeId, PageNo, Ps};
use crate::Region;

mod adaptive;
mod autonuma;
mod colloid;
mod colloid_tpp;
pub mod cost;
mod hemem;
mod kernel;
mod memtis;
mod nomad;
mod numab;
mod recrep;
mod sampled;
pub mod tiering;
mod tpp;
mod upmlib;
mod wildfire;

/// What a policy asks the driver to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Move `page` to `to` (the driver falls back to the nearest node with room).
    Migrate { page: PageNo, to: NodeId, reason: &'static str },
    /// Give `node` a read-only replica of `page` (if it has room).
    Replicate { page: PageNo, node: NodeId, reason: &'static str },
    /// Remove every replica of `page`.
    Collapse { page: PageNo, reason: &'static str },
    /// Keep `page`'s frame on `node`, which a migration just left, as the page's shadow: a
    /// copy that is not mapped and holds a page of `node`'s capacity (NOMAD's page shadowing).
    /// Nothing is copied; the driver records it as a replica.
    Shadow { page: PageNo, node: NodeId, reason: &'static str },
    /// Free `page`'s shadow (a store made it stale, or its node needs the room). Nothing is
    /// mapped there, so nothing is flushed.
    Unshadow { page: PageNo, reason: &'static str },
    /// Move `page` onto its shadow on `to`, which the policy knows to be clean: the mapping
    /// changes (its fixed cost and TLB shootdowns), nothing is copied. Without a shadow there,
    /// a [`Action::Migrate`].
    Remap { page: PageNo, to: NodeId, reason: &'static str },
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
    /// Revoke only the pages of [`Timer::revoke`] that are off the fastest tier (NUMA
    /// balancing's memory-tiering mode does not scan top-tier pages).
    pub revoke_skip_toptier: bool,
    /// When the next tick should come, if the policy changes its period.
    pub next_period: Option<Ps>,
    /// The actions are done by a background thread (a kernel daemon such as kswapd, or a
    /// policy's own migration thread on a core of its own): no application thread waits for
    /// them, but their page copies load the memory controllers of both nodes.
    pub background: bool,
    /// Pages whose referenced bit ([`View::referenced`]) the driver clears once the actions
    /// are applied: what a reclaimer's scan looked at.
    pub clear_referenced: Vec<u32>,
    /// Pages whose store time ([`View::written`]) the driver clears once the actions are
    /// applied: a policy that tracks writes cleaning the page-table entries' dirty bits.
    pub clear_written: Vec<u32>,
}

/// One sampled access, as a precise-event sampler (Intel PEBS) reports a load miss or a store
/// with its data address ([`Observes::AddressSamples`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    pub page: PageNo,
    /// The node of the accessing CPU.
    pub node: NodeId,
    pub write: bool,
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
    /// Seed 003's bus analyser (§2.2): one sampler over the machine's address bus, the
    /// transactions of all threads interleaved in simulated time; each sample is a burst of
    /// the `burst` consecutive transactions that follow its trigger (the analyser's FIFO), and
    /// bursts begin `spacing` transactions apart (the interval, or the software's polling
    /// limit where that is longer).
    Bus { burst: u32, spacing: f64 },
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
    /// Time now (simulated, or since the runtime started).
    pub now: Ps,
    /// When the timed run started (after initialisation), on the same clock as `now`.
    pub started: Ps,
    /// Each node's memory-controller queueing delay now, ps, where the driver measures it
    /// (empty otherwise).
    pub queue: &'a [f64],
    /// Lines fetched from memory since the timed run started (0 where the driver does not
    /// count them): with `now`, what a cost-aware policy measures its moves' payback by.
    pub done: u64,
    /// Whether a sample adds every transaction it recorded to the counters, as the
    /// simulator's bus sampler does (a burst of consecutive bus transactions a sample, seed 003
    /// §2.2), rather than one count a sample (the runtime's samplers: a precise sample or a
    /// hinting fault names one address). What a policy that counts its samples divides by.
    pub bursts: bool,
    /// Lines each node's memory served since the run started, initialisation included (empty
    /// where the driver does not count them): the arrivals a memory controller's request
    /// counters see (the CHA's TOR inserts Colloid reads).
    pub served: &'a [u64],
    /// What the policy's own work has cost so far (traps, faults, moves), ps, as the driver
    /// charged it (0 where it charges none): the time a payback audit leaves out of the
    /// program's and holds against the moves.
    pub overhead: Ps,
    /// How much longer the run will last, where the program declared its iterations (the
    /// mean iteration so far times the iterations left); `None` where the driver cannot know.
    pub remaining: Option<Ps>,
    /// Whether each page was accessed since its bit was last cleared ([`Timer::clear_referenced`]):
    /// the page-table entry's accessed bit, kept for a policy that observes hinting faults and
    /// reclaims (empty otherwise). Nonzero means referenced.
    pub referenced: &'a [u8],
    /// The address samples taken since the policy's last timer tick, in the order taken
    /// (empty unless the policy observes [`Observes::AddressSamples`]).
    pub samples: &'a [Sample],
    /// Per page, the earliest store since the policy last cleared it ([`Timer::clear_written`]),
    /// on the clock of `now`, or `Ps::MAX` for none: the page-table entry's dirty bit with the
    /// time it was set (empty unless [`DynamicPolicy::tracks_writes`]).
    pub written: &'a [Ps],
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

    /// Checks, once the run is over, that the parameters meant something for the workload it
    /// ran: a phase is known only from the epochs a workload yields (the `Workload` trait
    /// declares regions up front, not phases), so a policy that names a phase can refuse it
    /// only at the end. The driver turns an error into the run's error.
    ///
    /// # Errors
    /// A parameter that names a phase the run never had; the message lists the phases it had.
    fn check_finished(&self) -> Result<(), String> {
        Ok(())
    }

    /// Whether the driver must keep counters for this policy.
    fn counts(&self) -> bool {
        true
    }

    /// Whether the driver keeps each page's earliest store time for this policy
    /// ([`View::written`]; a policy that observes hinting faults).
    fn tracks_writes(&self) -> bool {
        false
    }

    /// Base pages per mapping the policy moves whole (a 2 MiB huge page: 512): within one
    /// batch of actions the driver charges a move's fixed cost (unmap, remap) once per aligned
    /// unit, and its copy per base page. 1 for policies that move base pages.
    fn migration_unit(&self) -> u32 {
        1
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

    /// Whether the policy decides at iteration ends ([`DynamicPolicy::on_iteration_end`] is
    /// its own): the driver counts those barriers as the policy's decision points.
    fn decides_at_iteration_end(&self) -> bool {
        false
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

    /// A node's free memory is below its low watermark ([`Trigger::LowMemory`];
    /// [`DynamicPolicy::watermarks`]): the policy may free room there (demote pages to another
    /// node), as kswapd does. Raised when `node` crosses the low watermark and then at every
    /// quantum boundary (the driver's scheduling step) while it stays below its high watermark
    /// — kswapd keeps reclaiming until the node is balanced — and not again until it has been
    /// back at the high watermark. The answer is applied as a timer tick's: stop-the-world
    /// unless [`Timer::background`]; its period and counter fields are ignored.
    fn on_low_memory(&mut self, _view: &View<'_>, _node: NodeId) -> Timer {
        Timer::default()
    }

    /// Node `node`'s watermarks as this policy's reclaim uses them: the machine's (the
    /// default), or the policy's own (TPP wakes its demotion at a higher watermark).
    fn watermarks(&self, machine: &Machine, node: usize) -> Option<crate::watermarks::Watermarks> {
        machine.watermarks(node)
    }

    /// A first touch of `page` wanted `wanted`, which was full, and placed the page on `got`
    /// ([`Trigger::AllocationFailure`]). The touching thread pays for the actions (as an
    /// allocation that reclaims synchronously does).
    fn on_allocation_failure(&mut self, _view: &View<'_>, _page: PageNo, _wanted: NodeId, _got: NodeId) -> Vec<Action> {
        Vec::new()
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

    /// Reports the policy's own statistics for the run, each declared in its registry entry
    /// ([`DynamicCaps::stats`]), in declaration order; `applied` is what the driver did of
    /// what it asked.
    fn report(&self, _applied: &Applied, _out: &mut Report) {}

    /// What the policy weighed when it asked for `action` (just returned from one of its
    /// hooks, before the driver applies it): the quantity it measured and the threshold in
    /// force it held it against, for a driver's decision log (`numaplace explain`). Called
    /// only while a log is kept; `None` (the default) when the policy declares nothing beyond
    /// the page's counters, which the log holds anyway.
    fn evidence(&self, _action: &Action) -> Option<Evidence> {
        None
    }
}

/// What a policy weighed for one action ([`DynamicPolicy::evidence`]): a measured quantity and
/// the threshold in force, each by a name that carries its unit (`hint_fault_latency_ms`
/// against `hot_threshold_ms`, `free_pages` against `demotion_watermark_pages`). `value` is
/// NaN where only the threshold is known (the counts behind it are the log's own).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Evidence {
    pub measured: &'static str,
    pub value: f64,
    pub threshold: &'static str,
    pub limit: f64,
}

/// What a tiering policy's last promotion and last demotion pass weighed, told apart by their
/// reasons (the [`DynamicPolicy::evidence`] of `tpp` and `numab-tiering`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TierEvidence {
    pub promoted: Option<Evidence>,
    pub demoted: Option<Evidence>,
}

impl TierEvidence {
    /// A demotion pass of `node`, which demotes until it has `high` free pages.
    pub fn demoting(&mut self, view: &View<'_>, node: NodeId, high: u64) {
        self.demoted = Some(Evidence { measured: "free_pages", value: view.free[node.index()] as f64, threshold: "demote_until_free_pages", limit: high as f64 });
    }

    /// The evidence of `action`, a promotion if its reason is `promote`, a demotion if `demote`.
    pub fn of(&self, action: &Action, promote: &str, demote: &str) -> Option<Evidence> {
        match action {
            Action::Migrate { reason, .. } if *reason == promote => self.promoted,
            Action::Migrate { reason, .. } if *reason == demote => self.demoted,
            _ => None,
        }
    }
}

/// What a driver applied of a policy's actions, for the policy's own statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    pub migrations: u64,
    /// Migrations from a slower tier to the fastest ([`Machine::is_toptier`]).
    pub promotions: u64,
    /// Migrations from the fastest tier to a slower one.
    pub demotions: u64,
    /// Migrations asked toward the fastest tier that did not land there (the node was full).
    pub promotion_failures: u64,
    /// Time the policy's background work took ([`Timer::background`]), ps.
    pub background_ps: Ps,
}

/// Pages a freezing policy's freeze held (its doc says how).
pub const FROZEN_PAGES: StatDecl = StatDecl {
    name: "frozen_pages",
    unit: "pages",
    doc: "pages the policy's freeze held: frozen for good by the run's end, or, under sampled's temporary freeze, held back at least once",
};

/// What the engine's sampler reports for a policy that observes samples (seed 003 §4.1).
pub const SAMPLER_STATS: &[StatDecl] = &[
    StatDecl { name: "sampling_distance", unit: "share", doc: "per thread, |P_sample - P_all| / P_all, P a thread's share of the samples and of all transactions (seed 003 Table 1's D)" },
    StatDecl { name: "sampling_distance_mean", unit: "share", doc: "the mean of sampling_distance over the threads" },
];

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
    /// A stream of sampled accesses with their addresses and kinds ([`View::samples`]), as
    /// Intel PEBS reports load misses and stores: every `n`-th line of each thread
    /// ([`DynamicPolicy::sampling`], interval mode only).
    AddressSamples,
}

impl Observes {
    /// The word listings and JSON use.
    pub fn name(self) -> &'static str {
        match self {
            Observes::Counters => "counters",
            Observes::Samples => "samples",
            Observes::HintingFaults => "hinting-faults",
            Observes::Replicas => "replicas",
            Observes::AddressSamples => "address-samples",
        }
    }
}

/// When a driver asks a policy to decide: every trigger, declared once. A policy's registry
/// entry lists the triggers it acts on ([`DynamicCaps::triggers`]); a driver raises only those
/// (and refuses a policy whose triggers it cannot raise), and [`DynamicCaps::check`] holds the
/// list against what the instance asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// A page's counter from a remote node passed the home node's by the policy's threshold
    /// ([`DynamicPolicy::on_interrupt`]); the accessing thread takes the trap.
    CounterInterrupt,
    /// A timed iteration ended, at its barrier ([`DynamicPolicy::on_iteration_end`]).
    IterationEnd,
    /// An epoch is about to start, or has ended, at its barrier
    /// ([`DynamicPolicy::on_epoch_start`], [`DynamicPolicy::on_epoch_end`]).
    EpochBoundary,
    /// The policy's periodic timer ([`DynamicPolicy::on_timer`]).
    Timer,
    /// An access to a page whose access the policy revoked ([`DynamicPolicy::on_fault`]).
    HintingFault,
    /// A node's free memory fell below its low watermark (`crate::watermarks`; the machine
    /// declares them) ([`DynamicPolicy::on_low_memory`]).
    LowMemory,
    /// A first touch could not place its page where the placement wanted it (the node was
    /// full) and the page went to the nearest node with room
    /// ([`DynamicPolicy::on_allocation_failure`]).
    AllocationFailure,
}

impl Trigger {
    /// Every trigger, in listing order.
    pub const ALL: [Trigger; 7] = [
        Trigger::CounterInterrupt,
        Trigger::IterationEnd,
        Trigger::EpochBoundary,
        Trigger::Timer,
        Trigger::HintingFault,
        Trigger::LowMemory,
        Trigger::AllocationFailure,
    ];

    /// The count of this trigger the engine reports in the policy's record, for the triggers
    /// no shipped policy acted on before the tiering work (the others' counts are the result's
    /// own: `interrupts`, `hinting_faults`, `policy_decision_points`).
    pub fn stat(self) -> Option<&'static StatDecl> {
        const LOW: StatDecl = StatDecl { name: "low_memory_events", unit: "events", doc: "times a node fell below its low watermark and the policy was told" };
        const FAILED: StatDecl = StatDecl { name: "allocation_failures", unit: "pages", doc: "first touches that fell back from a full node, each told to the policy" };
        match self {
            Trigger::LowMemory => Some(&LOW),
            Trigger::AllocationFailure => Some(&FAILED),
            _ => None,
        }
    }

    /// The word listings and JSON use.
    pub fn name(self) -> &'static str {
        match self {
            Trigger::CounterInterrupt => "counter-interrupt",
            Trigger::IterationEnd => "iteration-end",
            Trigger::EpochBoundary => "epoch-boundary",
            Trigger::Timer => "timer",
            Trigger::HintingFault => "hinting-fault",
            Trigger::LowMemory => "low-memory",
            Trigger::AllocationFailure => "allocation-failure",
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
    /// It decides only at iteration ends and has no timer: on a real process it acts only when
    /// the program calls `numaplace_migrate()` (or `upmlib_migrate_memory()`), so an unmodified
    /// program run under it is left as placed (`numaplace advise` does not offer it for one).
    pub needs_program_calls: bool,
    /// The triggers it acts on: the driver raises these and no others.
    pub triggers: &'static [Trigger],
    /// The statistics it reports ([`DynamicPolicy::report`]), in groups (its own, the cost
    /// gate's [`cost::GATE_STATS`]).
    pub stats: &'static [&'static [StatDecl]],
}

impl DynamicCaps {
    /// Whether `driver` can run the policy.
    pub fn runs_on(&self, driver: Driver) -> bool {
        self.drivers.contains(&driver)
    }

    /// Whether the policy acts on `trigger`.
    pub fn acts_on(&self, trigger: Trigger) -> bool {
        self.triggers.contains(&trigger)
    }

    /// Every statistic a run of the policy reports in its `policy` record, in order: its own
    /// ([`DynamicCaps::stats`]), the sampler's if it observes samples, and a count per trigger
    /// it lists that the engine counts ([`Trigger::stat`]).
    pub fn statistics(&self) -> Vec<&'static StatDecl> {
        let sampler = if self.observes == Observes::Samples { SAMPLER_STATS } else { &[] };
        let own = self.stats.iter().flat_map(|g| g.iter());
        own.chain(sampler).chain(self.triggers.iter().filter_map(|t| t.stat())).collect()
    }

    /// Checks that `policy`, built from the entry these capabilities belong to, asks for what
    /// they say it observes. A driver sets up its observation from the capabilities once and
    /// reads the instance only for its parameters (the sampling mode, whether this instance
    /// replicates), so a disagreement would go unobserved: a threshold no loop checks, a
    /// sampler never built.
    ///
    /// # Errors
    /// The first disagreement, in words.
    pub fn check(&self, policy: &dyn DynamicPolicy) -> Result<(), String> {
        let observes = self.observes.name();
        let samples = matches!(self.observes, Observes::Samples | Observes::AddressSamples);
        if policy.sampling().is_some() != samples {
            return Err(format!("observes {observes} but sampling() is {:?}", policy.sampling()));
        }
        if self.observes == Observes::AddressSamples && !matches!(policy.sampling(), Some(Sampling::Interval(_))) {
            return Err(format!("observes {observes} but sampling() is not an interval"));
        }
        if policy.replicates() && self.observes != Observes::Replicas {
            return Err(format!("observes {observes} but replicates()"));
        }
        // Only the counted loop raises counter interrupts.
        if policy.interrupt_threshold().is_some() && self.observes != Observes::Counters {
            return Err(format!("observes {observes} but has an interrupt threshold"));
        }
        // Store times are kept only by the loop that takes hinting faults and keeps referenced
        // bits (a reclaiming fault-driven policy).
        if policy.tracks_writes() && (self.observes != Observes::HintingFaults || !self.acts_on(Trigger::LowMemory)) {
            return Err(format!("observes {observes} but tracks writes, which only a fault-driven policy that reclaims gets"));
        }
        // Access is revoked only by a timer tick.
        if self.observes == Observes::HintingFaults && policy.timer_period().is_none() {
            return Err(format!("observes {observes} but has no timer to revoke access with"));
        }
        // What the instance asks for must be among the declared triggers (an instance may use
        // fewer: `kernel` without aging has no timer), and a policy that observes hinting
        // faults acts on them.
        let uses = [
            (Trigger::CounterInterrupt, policy.interrupt_threshold().is_some()),
            (Trigger::Timer, policy.timer_period().is_some()),
            (Trigger::IterationEnd, policy.decides_at_iteration_end()),
            (Trigger::HintingFault, self.observes == Observes::HintingFaults),
        ];
        for (trigger, used) in uses {
            if used && !self.acts_on(trigger) {
                return Err(format!("it uses the {} trigger, which its capabilities do not list", trigger.name()));
            }
        }
        if self.acts_on(Trigger::HintingFault) && self.observes != Observes::HintingFaults {
            return Err(format!("observes {observes} but lists the hinting-fault trigger"));
        }
        let calls = policy.decides_at_iteration_end() && policy.timer_period().is_none();
        if calls != self.needs_program_calls {
            return Err(format!("needs_program_calls is {} but the policy {} timer and {} at iteration ends",
                self.needs_program_calls, if policy.timer_period().is_some() { "has a" } else { "has no" },
                if policy.decides_at_iteration_end() { "decides" } else { "does not decide" }));
        }
        Ok(())
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

/// In listing order (`numaplace policies`, the unknown-name error).
const POLICIES: &[DynamicInfo] =
    &[kernel::INFO, recrep::INFO, sampled::INFO, autonuma::INFO, wildfire::INFO, upmlib::INFO, adaptive::INFO, numab::INFO, tpp::INFO, hemem::INFO, memtis::INFO, colloid::INFO, numab::COLLOID_TPP, memtis::colloid::INFO, nomad::INFO];


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

/// What the policies' unit tests decide from: the two-node test machine, every page at home on
/// node 0 with room on both nodes, one region, and counters the test fills.
#[cfg(test)]
pub(crate) mod fixture;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::tests::TWO_NODES;

    /// The test machine with its CPU-less node made CXL and huge pages of two base pages: every
    /// policy builds on it (HeMem needs huge pages).
    fn tiered_machine() -> Machine {
        let text = TWO_NODES.replace("memory_mib = 2\n", "memory_mib = 2\nmemory = \"cxl\"\n").replace("mlp = 2.0\n", "mlp = 2.0\nhuge_page_size = 8192\n");
        Machine::from_toml_str(&text, "t2c.toml").unwrap()
    }

    /// Every policy's defaults, and the parameters that change what an instance observes.
    #[test]
    fn every_instance_agrees_with_its_capabilities() {
        let machine = tiered_machine();
        let variants = ["wildfire:replication=off", "wildfire:migration=off,replication=off", "sampled:mode=max-rate", "upmlib-recrep:distribute=off"];
        let specs = REGISTRY.names().map(str::to_string).chain(variants.iter().map(|v| v.to_string()));
        let mut checked = 0;
        for text in specs {
            let spec = Spec::parse(&text).unwrap();
            let (info, _) = resolve(&spec).unwrap();
            let (policy, _) = build(&spec, &machine, 2).unwrap();
            assert_eq!(info.caps.check(policy.as_ref()), Ok(()), "{text}");
            checked += 1;
        }
        assert_eq!(checked, REGISTRY.iter().count() + variants.len());
    }

    /// Each policy reports exactly its own declared statistics, in order (the sampler's and
    /// the triggers' are the engine's to report).
    #[test]
    fn every_policy_reports_what_its_entry_declares() {
        let machine = tiered_machine();
        for info in REGISTRY.iter() {
            let (policy, _) = build(&Spec::parse(info.name).unwrap(), &machine, 2).unwrap();
            let mut out = Report::default();
            policy.report(&Applied { migrations: 3, ..Applied::default() }, &mut out);
            let declared: Vec<&str> = info.caps.stats.iter().flat_map(|g| g.iter()).map(|s| s.name).collect();
            assert_eq!(out.names().collect::<Vec<_>>(), declared, "{}", info.name);
            let all: Vec<&str> = info.caps.statistics().iter().map(|s| s.name).collect();
            let mut unique = all.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), all.len(), "{}: a statistic declared twice: {all:?}", info.name);
        }
    }

    #[test]
    fn counts_that_mean_nothing_at_zero_are_refused() {
        // Each was accepted; `sampled:interval=0` behaved as 1 but was recorded as 0.
        let machine = Machine::from_toml_str(TWO_NODES, "t2.toml").unwrap();
        for (text, want) in [
            ("sampled:interval=0", "dynamic policy 'sampled': interval=0: expected an integer >= 1"),
            ("sampled:freeze=0", "dynamic policy 'sampled': freeze=0: expected an integer >= 1"),
            ("wildfire:threshold=0", "dynamic policy 'wildfire': threshold=0: expected an integer >= 1"),
            ("wildfire:recent=0", "dynamic policy 'wildfire': recent=0: expected an integer >= 1"),
            ("upmlib-recrep:n=0", "dynamic policy 'upmlib-recrep': n=0: expected an integer >= 1"),
        ] {
            let e = build(&Spec::parse(text).unwrap(), &machine, 2).err().unwrap_or_else(|| panic!("{text} accepted"));
            assert_eq!(e.to_string(), want);
        }
        // The smallest meaningful values are still accepted.
        for text in ["sampled:interval=1,freeze=1", "wildfire:threshold=1,recent=1", "upmlib-recrep:n=1"] {
            assert!(build(&Spec::parse(text).unwrap(), &machine, 2).is_ok(), "{text}");
        }
    }

    #[test]
    fn a_disagreement_is_named() {
        // The kernel policy has an interrupt threshold, which no sampled loop would check.
        let machine = Machine::from_toml_str(TWO_NODES, "t2.toml").unwrap();
        let (kernel, _) = build(&Spec::parse("kernel").unwrap(), &machine, 2).unwrap();
        let (sampled, _) = build(&Spec::parse("sampled").unwrap(), &machine, 2).unwrap();
        let samples = DynamicCaps { observes: Observes::Samples, drivers: SIM_ONLY, why_not: "", needs_program_calls: false, triggers: &[], stats: &[] };
        let counters = DynamicCaps { observes: Observes::Counters, drivers: SIM_ONLY, why_not: "", needs_program_calls: false, triggers: &[Trigger::CounterInterrupt, Trigger::IterationEnd, Trigger::Timer], stats: &[] };
        assert_eq!(samples.check(kernel.as_ref()), Err("observes samples but sampling() is None".to_string()));
        assert!(counters.check(sampled.as_ref()).unwrap_err().starts_with("observes counters but sampling() is Some("));
        let faults = DynamicCaps { observes: Observes::HintingFaults, drivers: SIM_ONLY, why_not: "", needs_program_calls: false, triggers: &[], stats: &[] };
        assert_eq!(faults.check(kernel.as_ref()), Err("observes hinting-faults but has an interrupt threshold".to_string()));
        // UPMlib decides only at iteration ends, with no timer: it needs the program's calls.
        let (upmlib, _) = build(&Spec::parse("upmlib").unwrap(), &machine, 2).unwrap();
        assert_eq!(
            counters.check(upmlib.as_ref()),
            Err("needs_program_calls is false but the policy has no timer and decides at iteration ends".to_string())
        );
        assert_eq!(DynamicCaps { needs_program_calls: true, ..counters }.check(upmlib.as_ref()), Ok(()));
        // A trigger the instance uses must be listed; hinting faults only by a policy that
        // observes them.
        assert_eq!(
            DynamicCaps { needs_program_calls: true, triggers: &[Trigger::Timer], ..counters }.check(upmlib.as_ref()),
            Err("it uses the iteration-end trigger, which its capabilities do not list".to_string())
        );
        assert_eq!(
            DynamicCaps { needs_program_calls: true, triggers: &[Trigger::IterationEnd, Trigger::HintingFault], ..counters }.check(upmlib.as_ref()),
            Err("observes counters but lists the hinting-fault trigger".to_string())
        );
    }
}
