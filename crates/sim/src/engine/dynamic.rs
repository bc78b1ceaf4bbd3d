//! A dynamic policy attached to a page-level run: its counters, sampler, revoked pages and
//! replicas' staleness, the hot loop it runs in, how its actions are applied and charged, and
//! what it reports ([`PolicyStats`]; its decisions go to a [`DecisionLog`] where one is kept).

use super::decisions::{Decision, DecisionLog};
use super::memory::{view, Memory};

/// What a policy's view borrows of an attached policy's state, field by field (so that the
/// policy itself can be borrowed mutably beside it).
macro_rules! observed {
    ($d:expr) => {
        crate::engine::memory::Observed { counters: &$d.counters, replica_writes: &$d.replica_writes, referenced: &$d.referenced, samples: &$d.samples, written: &$d.written }
    };
}
pub(super) use observed;
use crate::bus::Bus;
use crate::hotloop::ThreadSampler;
use crate::workload::Epoch;
use numaplace_model::counters::PageCounters;
use numaplace_model::dynamic::{Action, Applied, DynamicCaps, DynamicPolicy, Observes, Sample, Sampling, Timer, Trigger};
use numaplace_model::report::Report;
use numaplace_model::{Machine, NodeId, PageNo, Ps};

/// Thread `t`'s sampler as a run (or a thread added to it) starts. Each thread starts at a
/// different point of its interval (deterministic), so that threads with the same pattern are
/// not sampled in lockstep; in max-rate mode nothing is recorded until the first quantum
/// boundary sets the budgets.
fn thread_sampler(mode: Sampling, t: usize) -> ThreadSampler {
    let (interval, budget) = match mode {
        Sampling::Interval(n) => (n.max(1), u64::MAX),
        Sampling::MaxRate(_) => (1, 0),
        // The bus sampler takes its samples from the merged stream; this one counts lines.
        Sampling::Bus { .. } => (u64::MAX, 0),
    };
    ThreadSampler { countdown: 1 + (t as u64 * 7919) % interval, interval, lines: 0, samples: 0, budget }
}

/// The sampler of a sampled policy.
pub struct Sampler {
    pub(super) mode: Sampling,
    pub threads: Vec<ThreadSampler>,
    /// Max-rate mode: each thread's fraction of a sample carried to the next quantum.
    pub(super) carry: Vec<f64>,
    /// The bus sampler (seed 003 §2.2), in [`Sampling::Bus`] mode.
    pub bus: Option<Bus>,
}

/// The hot loop a dynamic policy runs in, chosen once when it is attached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum HotLoop {
    /// Counting every access while the policy [`DynamicPolicy::counts`]; the plain loop once it
    /// stops.
    Counted,
    /// Sampling transactions into the counters.
    Sampled,
    /// Taking hinting faults while some page's access is revoked; otherwise as `Counted`.
    Faulting,
    /// Counting, serving reads from replicas and keeping them coherent.
    Replicated,
    /// Appending every `n`-th line of each thread to a stream of address samples.
    AddressSampled,
}

impl HotLoop {
    /// The loop for a policy whose registry entry has `caps`. What it observes decides; the
    /// instance only says whether a replicating policy replicates at all (`wildfire` with
    /// `replication=off` only counts).
    pub(super) fn choose(caps: &DynamicCaps, policy: &dyn DynamicPolicy) -> HotLoop {
        match caps.observes {
            Observes::Counters => HotLoop::Counted,
            Observes::Samples => HotLoop::Sampled,
            Observes::HintingFaults => HotLoop::Faulting,
            Observes::Replicas if policy.replicates() => HotLoop::Replicated,
            Observes::Replicas => HotLoop::Counted,
            Observes::AddressSamples => HotLoop::AddressSampled,
        }
    }
}

/// A dynamic policy attached to a run, with its counters and its record.
pub struct Dynamic {
    pub(super) policy: Box<dyn DynamicPolicy>,
    pub(super) hot: HotLoop,
    pub(super) counters: PageCounters,
    pub(super) threshold: Option<u16>,
    pub(super) timer: Option<(Ps, Ps)>,
    /// CPUs that may cache a page's translation (the process's threads): TLB shootdown cost.
    pub(super) sharing_cpus: usize,
    /// The sampler, for policies that observe a sample of the accesses.
    pub sampler: Option<Sampler>,
    /// Pages whose access is revoked (fault-driven policies), and how many are.
    pub(super) revoked: Vec<bool>,
    pub(super) revoked_count: u64,
    pub faults: u64,
    /// Writes to each page while replicated that invalidated lines of a replica, since the
    /// last timer tick (replicating policies).
    pub(super) replica_writes: Vec<u32>,
    /// Stale lines of each copy of a replicated page, `[page * nodes + node]` (replicating
    /// policies; see `hotloop::Replicating`).
    pub(super) stale: Vec<u16>,
    /// Nodes of the machine and lines per page (for `stale`).
    pub(super) nodes: usize,
    pub(super) page_lines: u16,
    pub replications: u64,
    pub collapses: u64,
    pub migrations: u64,
    pub interrupts: u64,
    pub overhead_ps: Ps,
    /// The decision log, where one is kept ([`Dynamic::set_log`]; none by default: a run
    /// that writes no log spends nothing on it). Bounded: see [`DecisionLog`].
    pub(super) log: Option<DecisionLog>,
    /// Times the policy was asked to decide, and how many of those it acted on
    /// ([`Dynamic::decided`]).
    pub(super) decision_points: u64,
    pub(super) decisions_acted: u64,
    /// Whether the barrier after the last timed iteration was withheld from the policy
    /// ([`Engine::finish`]).
    pub(super) final_barrier_withheld: bool,
    /// The triggers the policy acts on (its registry entry's): the engine raises only these.
    pub(super) triggers: &'static [Trigger],
    /// Nodes whose low-memory trigger was raised and not yet re-armed (free memory back at
    /// the high watermark); empty unless the policy acts on [`Trigger::LowMemory`].
    pub(super) low: Vec<bool>,
    /// Low-memory and allocation-failure triggers raised.
    pub(super) low_memory_events: u64,
    pub(super) allocation_failures: u64,
    /// Each page's referenced byte (the accessed bit), kept for a policy that observes
    /// hinting faults and acts on low memory (it reclaims by them); empty otherwise.
    pub(super) referenced: Vec<u8>,
    /// Each page's earliest store since the policy last cleared it, `Ps::MAX` for none (a
    /// reclaiming policy that [tracks writes](DynamicPolicy::tracks_writes)); empty otherwise.
    pub(super) written: Vec<Ps>,
    /// The address samples taken since the policy's last timer tick (a policy that observes
    /// address samples).
    pub(super) samples: Vec<Sample>,
    /// Moves between tiers, and promotions that did not land on the fastest tier.
    pub(super) promotions: u64,
    pub(super) demotions: u64,
    pub(super) promotion_failures: u64,
    /// Time the policy's background work took (copies by a kernel daemon or a policy thread,
    /// which no application thread waits for), ps.
    pub(super) background_ps: Ps,
    /// Lines the background copies read and wrote at each node since the last quantum
    /// boundary: load on the memory controllers ([`Dynamic::take_copy_lines`]).
    pub(super) copy_lines: Vec<u64>,
    /// Until when the background thread is busy with the work it was last given: one thread
    /// (kswapd, a policy's migration thread) does one thing at a time, so the next background
    /// tick waits for it.
    pub(super) busy_until: Ps,
}

/// A dynamic policy's activity in one run ([`Dynamic::stats`]); all zero without a policy.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolicyStats {
    pub migrations: u64,
    pub replications: u64,
    /// Replicated pages collapsed back to one copy.
    pub collapses: u64,
    /// Time the policy's handlers and actions cost the threads, ps.
    pub overhead_ps: Ps,
    /// Counter interrupts raised (counter-based policies).
    pub interrupts: u64,
    /// Hinting faults taken (fault-driven policies).
    pub hinting_faults: u64,
    /// Times the policy was asked to decide: iteration ends (of a policy that decides there),
    /// timer ticks, counter interrupts, hinting faults, and epoch barriers at which it acted (an epoch hook a policy does not
    /// use returns nothing and is not counted).
    pub decision_points: u64,
    /// Decision points at which the policy returned at least one action.
    pub decisions_acted: u64,
    /// The barrier after the last timed iteration was not given to the policy: nothing
    /// follows it, so nothing could repay an action there (issue: "policies that never lose").
    pub final_barrier_withheld: bool,
    /// The policy's own record: what it reports ([`DynamicPolicy::report`]), the sampler's
    /// statistics if it observes samples, and the counts of the triggers it lists that have
    /// one ([`Trigger::stat`]) — each declared beside its component
    /// ([`DynamicCaps::statistics`]).
    pub report: Report,
}

impl Dynamic {
    /// Attaches `policy`, whose registry entry has `caps`, to a run over `pages` pages of
    /// `machine` with `threads` threads.
    pub fn new(policy: Box<dyn DynamicPolicy>, caps: &DynamicCaps, machine: &Machine, pages: usize, threads: usize) -> Self {
        debug_assert_eq!(caps.check(policy.as_ref()), Ok(()), "a dynamic policy disagrees with its capabilities");
        let hot = HotLoop::choose(caps, policy.as_ref());
        let timer = policy.timer_period().map(|p| (p.max(1), p.max(1)));
        // The sampling mode is the instance's parameter.
        let sampled = matches!(hot, HotLoop::Sampled | HotLoop::AddressSampled);
        let sampling = sampled.then(|| policy.sampling().expect("a policy that observes samples has a sampling mode"));
        // Samples are counted in full 16-bit counters; access counters have the machine's width.
        let bits = if sampling.is_some() { 16 } else { machine.raw.counter_bits };
        let sampler = sampling.map(|mode| {
            let samplers = (0..threads).map(|t| thread_sampler(mode, t)).collect();
            let bus = match mode {
                Sampling::Bus { burst, spacing } => Some(Bus::new(burst, spacing, threads)),
                _ => None,
            };
            Sampler { mode, threads: samplers, carry: vec![0.0; threads], bus }
        });
        // Counters only for a policy that reads them: one that counts (at first; it may stop),
        // samples into them, or replicates.
        let counted = policy.counts() || matches!(hot, HotLoop::Sampled | HotLoop::Replicated);
        let reclaims = hot == HotLoop::Faulting && caps.acts_on(Trigger::LowMemory);
        Dynamic {
            referenced: if reclaims { vec![0; pages] } else { Vec::new() },
            written: if reclaims && policy.tracks_writes() { vec![Ps::MAX; pages] } else { Vec::new() },
            samples: Vec::new(),
            promotions: 0,
            demotions: 0,
            promotion_failures: 0,
            background_ps: 0,
            copy_lines: vec![0; machine.nodes()],
            busy_until: 0,
            threshold: policy.interrupt_threshold(),
            sampler,
            revoked: Vec::new(),
            revoked_count: 0,
            faults: 0,
            replica_writes: if hot == HotLoop::Replicated { vec![0; pages] } else { Vec::new() },
            stale: if hot == HotLoop::Replicated { vec![0; pages * machine.nodes()] } else { Vec::new() },
            nodes: machine.nodes(),
            page_lines: (machine.raw.page_size / machine.raw.line_size.max(1)).clamp(1, u16::MAX as u64) as u16,
            replications: 0,
            collapses: 0,
            policy,
            hot,
            counters: PageCounters::new(if counted { pages } else { 0 }, machine.nodes(), bits),
            timer,
            sharing_cpus: threads,
            migrations: 0,
            interrupts: 0,
            overhead_ps: 0,
            log: None,
            decision_points: 0,
            decisions_acted: 0,
            final_barrier_withheld: false,
            triggers: caps.triggers,
            low: if caps.acts_on(Trigger::LowMemory) { vec![false; machine.nodes()] } else { Vec::new() },
            low_memory_events: 0,
            allocation_failures: 0,
        }
    }

    /// In max-rate mode (seed 003 §4.1: "the maximum number of transactions the
    /// instrumentation software can record bounds the number of samples that can be taken for
    /// a processor"), gives each running thread the next quantum's share of the sample budget
    /// (rate × quantum, shared equally) as a hard cap: a thread that issues fewer lines than
    /// its share has all of them recorded, a faster one only its share, and an unused share
    /// is lost (the software cannot read ahead). The interval spreads a thread's samples over
    /// the quantum, predicted from the lines it issued in the last one.
    pub(super) fn sampler_quantum(&mut self, q_lines: &[u64], nn: usize, quantum: Ps, cursor: &[usize], epoch: &Epoch) {
        let Some(sm) = self.sampler.as_mut() else { return };
        let Sampling::MaxRate(rate) = sm.mode else { return };
        let running = (0..sm.threads.len()).filter(|&t| cursor[t] < epoch.threads[t].txns.len()).count().max(1);
        let share = (rate * quantum as f64 / 1e12 / running as f64).max(1e-9);
        for (t, s) in sm.threads.iter_mut().enumerate() {
            let issued: u64 = q_lines[t * nn..(t + 1) * nn].iter().sum();
            let interval = ((issued as f64 / share).ceil() as u64).max(1);
            s.countdown = s.countdown.min(interval);
            s.interval = interval;
            let credit = sm.carry[t] + share;
            s.budget = credit.floor() as u64;
            sm.carry[t] = credit - credit.floor();
        }
    }

    /// The bus sampler's bursts of the quantum just ended, counted into the samples
    /// ([`Bus::quantum`]); `node_of` is each thread's node.
    pub(super) fn bus_quantum(&mut self, node_of: &[usize]) {
        let Some(sm) = self.sampler.as_mut() else { return };
        if let Some(bus) = sm.bus.as_mut() {
            let mut sampled = vec![0u64; sm.threads.len()];
            bus.quantum(&mut self.counters, &mut sampled, node_of);
            for (s, n) in sm.threads.iter_mut().zip(sampled) {
                s.samples += n;
            }
        }
    }

    /// The share of all transactions that were sampled (seed 003 Table 1, "% sampled").
    pub fn sampled_fraction(&self) -> Option<f64> {
        let sm = self.sampler.as_ref()?;
        let all: u64 = sm.threads.iter().map(|s| s.lines).sum();
        let taken: u64 = sm.threads.iter().map(|s| s.samples).sum();
        (all > 0).then(|| taken as f64 / all as f64)
    }

    /// Seed 003's sampling distance per thread, `|P_sample − P_all| / P_all` with `P` a
    /// thread's share of the samples and of all transactions; `None` without a sampler.
    pub fn sampling_distance(&self) -> Option<Vec<f64>> {
        let sm = self.sampler.as_ref()?;
        let all: u64 = sm.threads.iter().map(|s| s.lines).sum();
        let taken: u64 = sm.threads.iter().map(|s| s.samples).sum();
        Some(
            sm.threads
                .iter()
                .filter(|s| s.lines > 0)
                .map(|s| {
                    let p_all = s.lines as f64 / all as f64;
                    let p_sample = if taken == 0 { 0.0 } else { s.samples as f64 / taken as f64 };
                    (p_sample - p_all).abs() / p_all
                })
                .collect(),
        )
    }

    /// The policy's end-of-run check of its parameters against what the run had
    /// ([`DynamicPolicy::check_finished`]: a phase the workload never had).
    ///
    /// # Errors
    /// The policy's one-line message.
    pub fn check_finished(&self) -> Result<(), String> {
        self.policy.check_finished()
    }

    /// What the policy did and what it cost, as this driver counted it: the policy's part of
    /// the result, reported by the component that knows it.
    pub fn stats(&self) -> PolicyStats {
        let mut report = Report::default();
        let applied = Applied {
            migrations: self.migrations,
            promotions: self.promotions,
            demotions: self.demotions,
            promotion_failures: self.promotion_failures,
            background_ps: self.background_ps,
        };
        self.policy.report(&applied, &mut report);
        if let Some(distance) = self.sampling_distance().filter(|_| self.hot == HotLoop::Sampled) {
            let mean = (!distance.is_empty()).then(|| distance.iter().sum::<f64>() / distance.len() as f64);
            report.numbers("sampling_distance", Some(distance));
            report.number("sampling_distance_mean", mean);
            report.number("sampled_fraction", self.sampled_fraction());
        }
        for t in self.triggers {
            match t.stat().map(|s| s.name) {
                Some(name @ "low_memory_events") => report.count(name, self.low_memory_events),
                Some(name @ "allocation_failures") => report.count(name, self.allocation_failures),
                Some(name) => unreachable!("the engine counts no trigger statistic '{name}'"),
                None => {}
            }
        }
        PolicyStats {
            migrations: self.migrations,
            replications: self.replications,
            collapses: self.collapses,
            overhead_ps: self.overhead_ps,
            interrupts: self.interrupts,
            hinting_faults: self.faults,
            decision_points: self.decision_points,
            decisions_acted: self.decisions_acted,
            final_barrier_withheld: self.final_barrier_withheld,
            report,
        }
    }

    /// The run's threads are now `threads` (a multiprogrammed system changed them at a
    /// barrier): the TLB shootdown reaches that many CPUs, and the sampler has one entry per
    /// thread (new threads start as [`Dynamic::new`] starts them; dropped threads' counts go).
    pub(super) fn resize_threads(&mut self, threads: usize) {
        self.sharing_cpus = threads;
        if let Some(sm) = self.sampler.as_mut() {
            let (mode, old) = (sm.mode, sm.threads.len());
            sm.threads.truncate(threads);
            for t in old..threads {
                sm.threads.push(thread_sampler(mode, t));
            }
            sm.carry.resize(threads, 0.0);
        }
    }

    /// Keeps a decision log (`Some`) or none (the default: moves then record nothing).
    /// The log keeps the page's counts of a policy that has counters, none of one that has
    /// none.
    pub fn set_log(&mut self, log: Option<DecisionLog>) {
        let width = self.counters.row(PageNo(0)).len();
        self.log = log.map(|l| l.with_nodes(width));
    }

    /// The decision log, taken (the run's end).
    pub fn take_log(&mut self) -> Option<DecisionLog> {
        self.log.take()
    }

    /// The bytes of per-page state this attachment holds, by `pagetable::layout` field, from
    /// the vectors' capacities (counters: `pages` × nodes × 2 when allocated, which is what
    /// `PageCounters` holds), then the decision log (its fixed buffer, [`DecisionLog::bytes`]).
    /// The policy's own per-page state is not visible here; see `Engine::state_bytes`.
    pub(super) fn state_bytes(&self, pages: usize) -> Vec<(&'static str, u64)> {
        use numaplace_model::pagetable::layout;
        let counters = self.counters.row(PageNo(0)).len() * pages * std::mem::size_of::<u16>();
        let decisions = self.log.as_ref().map_or(0, DecisionLog::bytes);
        let mut out = vec![
            (layout::REVOKED.name, self.revoked.capacity() as u64),
            (layout::REFERENCED.name, self.referenced.capacity() as u64),
            (layout::COUNTERS.name, counters as u64),
            (layout::REPLICA_WRITES.name, (self.replica_writes.capacity() * 4) as u64),
            (layout::STALE.name, (self.stale.capacity() * 2) as u64),
            ("samples", (self.samples.capacity() * std::mem::size_of::<Sample>()) as u64),
            ("decisions", decisions as u64),
        ];
        if !self.written.is_empty() {
            out.push((layout::WRITTEN.name, (self.written.capacity() * std::mem::size_of::<Ps>()) as u64));
        }
        out
    }

    /// Whether the policy reclaims by referenced bits (its per-page state then includes the
    /// reclaimer's flags, `pagetable::layout::TIERED`).
    pub(super) fn reclaims(&self) -> bool {
        !self.referenced.is_empty()
    }

    /// Whether the policy acts on `trigger`.
    pub(super) fn acts_on(&self, trigger: Trigger) -> bool {
        self.triggers.contains(&trigger)
    }

    /// Counts one decision point; `acted` when the policy returned an action there.
    pub(super) fn decided(&mut self, acted: bool) {
        self.decision_points += 1;
        self.decisions_acted += u64::from(acted);
    }

    /// Applies actions at time `now`, asked at trigger `at` (in the background if
    /// `background`: only the log's record of who paid); returns their cost in ps.
    pub(super) fn apply(&mut self, mem: &mut Memory<'_>, actions: Vec<Action>, now: Ps, at: Trigger, background: bool) -> Ps {
        let mut cost = 0;
        let actions_len = actions.len();
        let mut migrated_in_batch = 0u64;
        let unit = self.policy.migration_unit().max(1);
        let mut last_unit = u32::MAX;
        for a in actions {
            let before = cost;
            // What the policy weighed, asked only while a log is kept.
            let evidence = self.log.as_ref().and_then(|_| self.policy.evidence(&a));
            let rec = |d: &mut Self, mem: &Memory<'_>, cost: Ps, page: PageNo, (from, to): (u8, u8), action: &'static str, reason: &'static str, tier: &'static str| {
                let d_cost = cost - before;
                d.log(mem, Decision { time_ps: now.saturating_add(cost), page: page.0, region: 0, from, to, action, reason, trigger: at, tier, evidence, queue_from_ps: f64::NAN, queue_to_ps: f64::NAN, cost_ps: d_cost, background });
            };
            match a {
                Action::Replicate { page, node, reason } => {
                    if mem.pt.replicate(page, node) {
                        // A fresh copy: every line valid.
                        self.clear_stale(page, Some(node));
                        // A page copy to one node; only that node's mapping changes.
                        cost = Ps::saturating_add(cost, mem.machine.migration_cost_ps(1));
                        self.replications += 1;
                        let home = mem.pt.home(page).map_or(u8::MAX, |n| n.0);
                        rec(self, mem, cost, page, (home, node.0), "replicate", reason, "");
                    }
                }
                Action::Collapse { page, reason } => {
                    if mem.pt.collapse(page) > 0 {
                        self.clear_stale(page, None);
                        // Invalidate the replicas' mappings everywhere (a TLB shootdown).
                        let m = &mem.machine.raw.migration;
                        cost = Ps::saturating_add(cost, numaplace_model::units::ns_to_ps(m.fixed_ns + m.tlb_shootdown_ns_per_cpu * self.sharing_cpus as f64));
                        self.collapses += 1;
                        if let Some(w) = self.replica_writes.get_mut(page.0 as usize) {
                            *w = 0;
                        }
                        let home = mem.pt.home(page).map_or(u8::MAX, |n| n.0);
                        rec(self, mem, cost, page, (home, home), "collapse", reason, "");
                    }
                }
                Action::Shadow { page, node, reason } => {
                    // The frame a migration just left is kept: nothing is copied or mapped.
                    if mem.pt.replicate(page, node) {
                        let home = mem.pt.home(page).map_or(u8::MAX, |n| n.0);
                        rec(self, mem, cost, page, (home, node.0), "shadow", reason, "");
                    }
                }
                Action::Unshadow { page, reason } => {
                    // An unmapped copy is freed: no flush, no cost.
                    if mem.pt.collapse(page) > 0 {
                        let home = mem.pt.home(page).map_or(u8::MAX, |n| n.0);
                        rec(self, mem, cost, page, (home, home), "unshadow", reason, "");
                    }
                }
                Action::Remap { page, to, reason } if mem.pt.replicas(page) & (1u64 << to.0.min(63)) != 0 => {
                    // Onto the clean shadow: the mapping changes, nothing is copied.
                    mem.pt.collapse(page);
                    let from = mem.pt.home(page).map_or(u8::MAX, |n| n.0);
                    let moved = mem.pt.migrate(page, to, mem.machine);
                    let tier = self.count_tiers(mem.machine, from, to, moved);
                    let Some(node) = moved else { continue };
                    let shootdowns = if migrated_in_batch == 0 || actions_len == 1 { self.sharing_cpus } else { 0 };
                    migrated_in_batch += 1;
                    let m = &mem.machine.raw.migration;
                    cost = Ps::saturating_add(cost, numaplace_model::units::ns_to_ps(m.fixed_ns + m.tlb_shootdown_ns_per_cpu * shootdowns as f64));
                    self.migrations += 1;
                    rec(self, mem, cost, page, (from, node.0), "remap", reason, tier);
                    self.counters.reset_page(page);
                }
                Action::Migrate { page, to, reason } | Action::Remap { page, to, reason } => {
                    mem.pt.collapse(page);
                    self.clear_stale(page, None);
                    let from = mem.pt.home(page).map_or(u8::MAX, |n| n.0);
                    let moved = mem.pt.migrate(page, to, mem.machine);
                    let tier = self.count_tiers(mem.machine, from, to, moved);
                    let Some(node) = moved else {
                        if tier == "promotion-failure" {
                            rec(self, mem, cost, page, (from, to.0), "failed", reason, tier);
                        }
                        continue;
                    };
                    // A batch of moves (a barrier's, a timer's) flushes the TLBs once, as
                    // a range migration or Linux's batched migrate_pages does; a single
                    // move (an interrupt, a fault) pays its own shootdown.
                    let shootdowns = if migrated_in_batch == 0 || actions_len == 1 { self.sharing_cpus } else { 0 };
                    migrated_in_batch += 1;
                    // A unit's pages after its first pay only their copy (migration_unit).
                    let c = mem.machine.page_move_cost_ps(shootdowns, page.0 / unit != last_unit || unit == 1);
                    last_unit = page.0 / unit;
                    cost = Ps::saturating_add(cost, c);
                    self.migrations += 1;
                    // Logged (where a log is kept) with the counts behind the move, which the
                    // move then resets.
                    rec(self, mem, cost, page, (from, node.0), "migrate", reason, tier);
                    self.counters.reset_page(page);
                }
            }
        }
        self.overhead_ps = self.overhead_ps.saturating_add(cost);
        cost
    }

    /// Counts a move of a page from node `from` asked toward `to` that landed on `moved`: a
    /// promotion, a demotion, or a promotion that failed; returns which (`""`: none).
    fn count_tiers(&mut self, machine: &Machine, from: u8, to: NodeId, moved: Option<NodeId>) -> &'static str {
        if from == u8::MAX || !machine.is_tiered() {
            return "";
        }
        let from_top = machine.is_toptier(NodeId(from));
        match moved {
            Some(n) if !from_top && machine.is_toptier(n) => {
                self.promotions += 1;
                "promotion"
            }
            Some(n) if from_top && !machine.is_toptier(n) => {
                self.demotions += 1;
                "demotion"
            }
            _ if !from_top && machine.is_toptier(to) => {
                self.promotion_failures += 1;
                "promotion-failure"
            }
            _ => "",
        }
    }

    /// Applies a tick's answer (a timer's or a low-memory trigger's) at `now`: its actions,
    /// then its referenced bits cleared. Returns the time the running threads wait for it: its
    /// cost, or nothing when a background thread does the work (whose copies then load the
    /// memory controllers of both ends, [`Dynamic::take_copy_lines`]).
    pub(super) fn apply_tick(&mut self, mem: &mut Memory<'_>, tick: &mut Timer, now: Ps, at: Trigger) -> Ps {
        let actions = std::mem::take(&mut tick.actions);
        let wait = if tick.background {
            let homes: Vec<(PageNo, u8)> = actions.iter().filter_map(|a| match a {
                Action::Migrate { page, .. } => Some((*page, mem.pt.home(*page).map_or(u8::MAX, |n| n.0))),
                _ => None,
            }).collect();
            let overhead = self.overhead_ps;
            let cost = self.apply(mem, actions, now, at, true);
            // Background work is not the threads' overhead.
            self.overhead_ps = overhead;
            self.background_ps = self.background_ps.saturating_add(cost);
            self.busy_until = now.max(self.busy_until).saturating_add(cost);
            let lines = mem.machine.lines_per_page();
            for (page, from) in homes {
                if let (Some(to), true) = (mem.pt.home(page), from != u8::MAX) {
                    if to.0 != from {
                        self.copy_lines[from as usize] += lines;
                        self.copy_lines[to.index()] += lines;
                    }
                }
            }
            0
        } else {
            self.apply(mem, actions, now, at, false)
        };
        for &p in &tick.clear_referenced {
            if let Some(r) = self.referenced.get_mut(p as usize) {
                *r = 0;
            }
        }
        for &p in &tick.clear_written {
            if let Some(w) = self.written.get_mut(p as usize) {
                *w = Ps::MAX;
            }
        }
        wait
    }

    /// The lines background copies moved at each node since the last call, cleared.
    pub(super) fn take_copy_lines(&mut self) -> Option<Vec<u64>> {
        if self.copy_lines.iter().all(|&l| l == 0) {
            return None;
        }
        let out = self.copy_lines.clone();
        self.copy_lines.fill(0);
        Some(out)
    }

    /// A page's copies become fully valid: one node's (a new replica), or all (the page is back
    /// to a single copy, whose lines are written back to it).
    pub(super) fn clear_stale(&mut self, page: PageNo, node: Option<NodeId>) {
        if self.stale.is_empty() {
            return;
        }
        let start = page.0 as usize * self.nodes;
        match node {
            Some(n) => self.stale[start + n.index()] = 0,
            None => self.stale[start..start + self.nodes].fill(0),
        }
    }

    /// Records one decision in the log, if one is kept: its region, both nodes' queueing
    /// delay as last solved, and the page's counts.
    fn log(&mut self, mem: &Memory<'_>, mut d: Decision) {
        let Some(log) = self.log.as_mut() else { return };
        d.region = log.region_of(d.page);
        let q = |n: u8| mem.queue.get(n as usize).copied().unwrap_or(f64::NAN);
        (d.queue_from_ps, d.queue_to_ps) = (q(d.from), q(d.to));
        log.push(d, self.counters.row(PageNo(d.page)));
    }

    /// A hinting fault at `now` from `node` on `page`: access is restored, the policy decides.
    /// Returns the time charged to the faulting thread.
    pub(super) fn fault(&mut self, mem: &mut Memory<'_>, page: u32, node: usize, now: Ps) -> Ps {
        self.revoked[page as usize] = false;
        self.revoked_count -= 1;
        self.faults += 1;
        let free = mem.pt.free_per_node();
        let action = self.policy.on_fault(&view(observed!(self), mem, &free, now, self.overhead_ps), PageNo(page), NodeId(node as u8));
        self.decided(action.is_some());
        let cost = self.policy.fault_cost();
        self.overhead_ps = self.overhead_ps.saturating_add(cost);
        cost.saturating_add(action.map_or(0, |a| self.apply(mem, vec![a], now, Trigger::HintingFault, false)))
    }

    /// A first touch of `page` at `now` wanted `wanted`, which was full, and got `got`: the
    /// policy decides, and the touching thread pays for its actions (as an allocation that
    /// reclaims synchronously). Returns the time charged to the thread.
    pub(super) fn allocation_failure(&mut self, mem: &mut Memory<'_>, page: u32, wanted: NodeId, got: NodeId, now: Ps) -> Ps {
        self.allocation_failures += 1;
        let free = mem.pt.free_per_node();
        let actions = self.policy.on_allocation_failure(&view(observed!(self), mem, &free, now, self.overhead_ps), PageNo(page), wanted, got);
        self.decided(!actions.is_empty());
        self.apply(mem, actions, now, Trigger::AllocationFailure, false)
    }

    /// A counter interrupt at `now` from `node` for `page`: the trap and its handler run
    /// (`trap_ns`, or `fixed_ns` where the machine does not give the trap separately), the
    /// policy decides, the page's counters are reset whether or not it moves (so a refused
    /// page must earn its next interrupt). Returns the time charged to the thread.
    pub(super) fn interrupt(&mut self, mem: &mut Memory<'_>, page: u32, node: usize, now: Ps) -> Ps {
        self.interrupts += 1;
        let free = mem.pt.free_per_node();
        let action = self.policy.on_interrupt(&view(observed!(self), mem, &free, now, self.overhead_ps), PageNo(page), NodeId(node as u8));
        self.decided(action.is_some());
        let m = &mem.machine.raw.migration;
        let charged = match action {
            // A move pays the page's own cost (which includes `fixed_ns`) after the trap.
            Some(a) => {
                let trap = numaplace_model::units::ns_to_ps(m.trap_ns);
                self.overhead_ps = self.overhead_ps.saturating_add(trap);
                trap.saturating_add(self.apply(mem, vec![a], now.saturating_add(trap), Trigger::CounterInterrupt, false))
            }
            None => {
                let c = numaplace_model::units::ns_to_ps(if m.trap_ns > 0.0 { m.trap_ns } else { m.fixed_ns });
                self.overhead_ps = self.overhead_ps.saturating_add(c);
                c
            }
        };
        // Reset after the move (which reads nothing of them), so that the log holds the counts
        // that raised the interrupt.
        self.counters.reset_page(PageNo(page));
        charged
    }
}
