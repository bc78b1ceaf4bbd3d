//! The policy-driver part of the [`crate::runtime::Runtime`], [`Driver`]: the dynamic policy
//! driven on real pages, its decisions and its timer, and the sampler thread's tick (a
//! sampling step at the pace [`crate::sampling`] keeps, then the policy's timer when due).
//!
//! The policies are the model crate's own code (`numaplace_model::dynamic`), driven exactly as
//! the simulator drives them, with real data in the `View` ([`crate::snapshot::Snapshot::view`]):
//!
//! | policy | trigger here | model hook |
//! |---|---|---|
//! | `upmlib` | `numaplace_migrate()` / `upmlib_migrate_memory()` | `on_iteration_end(view, k)` |
//! | `sampled` | a timer thread every `period_ms` (or `numaplace_migrate()`) | `on_timer(view)` |
//! | `tpp` | the timer thread (its scan), the faults of the pages it revoked, a node's free memory below its watermark | `on_timer`, `on_fault`, `on_low_memory` |
//! | `hemem` | the timer thread, with the CPU's address samples since its last tick (PEBS or IBS, [`crate::perf`]) | `on_timer(view)`, `view.samples` |
//! | `upmlib-recrep` | `numaplace_record` (1st call: phase start, 2nd: end), `upmlib_compare_counters`, `numaplace_replay`, `numaplace_undo` | `on_epoch_start/end(view, 2, phase)`, `on_iteration_end(view, 2)`, `on_epoch_start/end(view, 3, phase)` |
//!
//! Where the simulator counts every access (or every N-th), the runtime counts hinting-fault
//! samples ([`crate::space`]): after every revocation of a page, its first access. Samples are
//! what the policies compare, as seed 003's engine compares bus-analyser samples.
//!
//! Generic by capabilities ([`DynamicCaps`]), for the tiering policies:
//!
//! * a policy that observes hinting faults ([`Observes::HintingFaults`]) says which pages to
//!   revoke (its timer's [`numaplace_model::dynamic::Timer::revoke`], pages of the managed
//!   space in page order); the runtime revokes those and no window of its own, and hands each
//!   fault, with the faulting CPU's node, to `on_fault` ([`crate::faultq`]). Linux decides in
//!   the fault path, synchronously; here the faults are handed over in a batch at the
//!   sampler thread's next tick, a decision deferred by at most one tick;
//! * a policy that acts on [`Trigger::LowMemory`] is told, at a tick, of each node whose free
//!   memory fell below its low watermark ([`crate::lowmem`]), then again while it stays below
//!   high, at the pace the program comes back to the pages a pass cleared ([`Pace`]: only its
//!   faults set those referenced bits again).
//!
//! Either's actions are applied with `move_pages` as a timer's are; the stats count moves
//! between tiers as promotions and demotions ([`crate::parts`]). A policy that acts on a
//! trigger the runtime cannot raise (a counter interrupt, an allocation failure) is refused.

use crate::error::{Code, RtError};
use crate::faultq::FAULTS;
use crate::host::Host;
use crate::lowmem::LowMemory;
use crate::parts::Parts;
use crate::snapshot::Snapshot;
use numaplace_model::dynamic::{self, Action, DynamicCaps, DynamicPolicy, Observes, Sample, Timer, Trigger};
use numaplace_model::pagetable::UNTOUCHED;
use numaplace_model::{NodeId, PageNo, Spec};
use std::time::{Duration, Instant};

/// The dynamic policy and what drives it.
pub struct Driver {
    pub(crate) policy: Option<Box<dyn DynamicPolicy>>,
    /// What the policy can do and needs (its registry entry).
    pub(crate) caps: Option<DynamicCaps>,
    /// The low-memory trigger, for a policy that acts on it.
    pub(crate) low: Option<LowMemory>,
    /// When the reclaimer that trigger runs may look again ([`Pace`]).
    pace: Pace,
    /// The policy's timer period, if it has one.
    pub timer: Option<Duration>,
    pub(crate) last_timer: Instant,
    /// Iteration ends seen (`numaplace_migrate()` calls that decided).
    pub(crate) iteration: u32,
    /// Calls of the API that drive a policy (`numaplace_migrate`, `upmlib_migrate_memory`,
    /// the record-replay calls): none, with a policy that only they run, is said at exit.
    pub api_calls: u64,
}

impl Driver {
    /// The policy `host.cfg.dynamic` (none for `none` or empty), checked and built.
    ///
    /// # Errors
    /// A bad policy spec, or a policy this driver cannot run.
    pub fn new(host: &Host) -> Result<Driver, RtError> {
        let cfg = &host.cfg;
        if cfg.dynamic == "none" || cfg.dynamic.is_empty() {
            return Ok(Driver::with_policy(host, None, None));
        }
        let spec = Spec::parse(&cfg.dynamic).map_err(|e| RtError::new(Code::Spec, e.to_string()))?;
        // What the policy observes decides whether this driver can run it (its
        // capabilities), checked before it is built.
        let (info, _) = dynamic::resolve(&spec).map_err(|e| RtError::new(Code::Spec, e.to_string()))?;
        dynamic::check_driver(info, dynamic::Driver::Runtime).map_err(|e| RtError::new(Code::Unsupported, e.to_string()))?;
        check_triggers(info.name, &info.caps)?;
        if dynamic::tiering::moves_between_tiers(&info.caps) && !host.machine.is_tiered() {
            return Err(RtError::new(
                Code::Unsupported,
                format!(
                    "dynamic policy '{}' moves pages between memory tiers, and this host has one: the kernel ranks every node in \
one tier (/sys/devices/virtual/memory_tiering); name the slower nodes with --slow-nodes (NUMAPLACE_SLOW_NODES)",
                    info.name
                ),
            ));
        }
        let cpus = host.sys.topology().cpus.iter().map(Vec::len).sum();
        let (p, _) = dynamic::build(&spec, &host.machine, cpus).map_err(|e| RtError::new(Code::Spec, e.to_string()))?;
        Ok(Driver::with_policy(host, Some(p), Some(info.caps)))
    }

    /// The driver of `policy` with capabilities `caps` (checked by the caller).
    pub(crate) fn with_policy(host: &Host, policy: Option<Box<dyn DynamicPolicy>>, caps: Option<DynamicCaps>) -> Driver {
        // The policy's timer, no more often than the sampler revokes windows.
        let timer = policy.as_ref().and_then(|p| p.timer_period()).map(|ps| Self::period(host, ps));
        let acts = |t| caps.is_some_and(|c| c.acts_on(t));
        let low = acts(Trigger::LowMemory).then(|| {
            let machine = &host.machine;
            let own = policy.as_ref().and_then(|p| (0..machine.nodes()).map(|n| p.watermarks(machine, n)).collect());
            LowMemory::new(machine, own, host.sys.watermarks())
        });
        if acts(Trigger::HintingFault) {
            FAULTS.on.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        Driver { policy, caps, low, pace: Pace::default(), timer, last_timer: Instant::now(), iteration: 0, api_calls: 0 }
    }

    /// The timer period of a policy that asks for `ps` picoseconds: no shorter than the
    /// sampler's period (a check reads every managed page's node, which costs more than the
    /// simulator's look).
    fn period(host: &Host, ps: numaplace_model::Ps) -> Duration {
        Duration::from_nanos(ps / 1000).max(Duration::from_secs_f64(host.cfg.sample_period_ms / 1000.0))
    }

    /// The policy's own statistics (`DynamicPolicy::report`), told what the runtime applied of
    /// its actions: the moves, promotions and demotions the stats count, and the time the
    /// sampler thread spent moving pages as its background time (no program thread waits for
    /// it). Empty without a policy.
    pub(crate) fn report(&self, stats: &crate::stats::Stats) -> std::collections::BTreeMap<String, Option<numaplace_model::stats::RecordValue>> {
        let Some(policy) = self.policy.as_ref() else { return Default::default() };
        let applied = dynamic::Applied {
            migrations: stats.pages_moved,
            promotions: stats.promotions,
            demotions: stats.demotions,
            promotion_failures: stats.promotion_failures,
            background_ps: stats.time_migrating.as_nanos() as u64 * 1000,
        };
        let mut out = numaplace_model::report::Report::default();
        policy.report(&applied, &mut out);
        numaplace_model::stats::record(&out)
    }

    /// Whether the policy takes hinting faults one by one on the pages it revokes
    /// ([`Observes::HintingFaults`]): the runtime then revokes only what it asks.
    pub fn takes_faults(&self) -> bool {
        self.caps.is_some_and(|c| c.observes == Observes::HintingFaults)
    }

    /// Whether the policy reads address samples ([`Observes::AddressSamples`]: `hemem`), which
    /// only the CPU's sampler gives ([`crate::perf`]).
    pub fn takes_addresses(&self) -> bool {
        self.caps.is_some_and(|c| c.observes == Observes::AddressSamples)
    }

    /// Whether the policy counts samples (wants them) from the runtime's own sampling
    /// windows: not a policy that revokes pages itself.
    pub fn counts(&self) -> bool {
        self.policy.as_ref().is_some_and(|p| p.counts()) && !self.takes_faults()
    }

    /// Revokes every managed page (or restores them all), unless the policy revokes pages
    /// itself: its revocations stand until their faults.
    fn rearm(&self, parts: &mut Parts, want: bool) {
        if !self.takes_faults() {
            parts.rearm(want);
        }
    }

    /// What to say at exit about a policy that did nothing: one that decides at iteration ends
    /// (the model's `DynamicPolicy::decides_at_iteration_end`: `upmlib`, `upmlib-recrep`), whose
    /// iteration ends only the program's own calls mark (`numaplace_migrate()`), preloaded into
    /// a program that `managed` memory and never called the API. A policy with a timer of its
    /// own (`adaptive`) acted without the calls. `None` otherwise.
    pub fn idle_policy_warning(&self, dynamic: &str, managed: bool) -> Option<String> {
        let policy = self.policy.as_ref()?;
        if !policy.decides_at_iteration_end() || policy.timer_period().is_some() || self.api_calls > 0 || !managed {
            return None;
        }
        let name = dynamic.split(':').next().unwrap_or_default();
        Some(format!(
            "--dynamic {name} did nothing: the program never called numaplace_migrate() or upmlib_migrate_memory(), \
which run it; use --dynamic sampled for unmodified programs"
        ))
    }

    /// Invokes the dynamic policy now: `upmlib` as at the end of an iteration, a timer
    /// policy as a timer tick. Returns pages moved. `recording`: a record-replay phase is
    /// being recorded (it wants samples too).
    ///
    /// # Errors
    /// A failed system call.
    pub(crate) fn migrate(&mut self, parts: &mut Parts, kind: &'static str, recording: bool) -> Result<u64, RtError> {
        if kind != "timer" {
            self.api_calls += 1;
        }
        parts.sampling.drain_perf(parts.host.cfg.verbose);
        let Some(timer) = self.policy.as_ref().map(|p| p.timer_period().is_some()) else { return Ok(0) };
        let result = self.invoke(parts, kind);
        let want = self.counts() || recording;
        let decided = match result {
            Ok(d) => d,
            Err(e) => {
                self.rearm(parts, want);
                return Err(e);
            }
        };
        let Some(moved) = decided else { return Ok(0) }; // a tick the policy let pass
        if parts.sampling.backoff == 0 || !timer {
            self.rearm(parts, want);
        } else {
            // Sampling goes on at the slower pace of the windows; the pages this decision
            // opened are sampled again when their window comes round.
        }
        Ok(moved)
    }

    /// One policy decision; `None` when the policy let a timer tick pass.
    fn invoke(&mut self, parts: &mut Parts, kind: &'static str) -> Result<Option<u64>, RtError> {
        let own_revocations = self.takes_faults();
        let addresses = self.takes_addresses();
        let policy = self.policy.as_mut().expect("migrate checked it");
        let timer = policy.timer_period().is_some();
        // A timer check only looks (the policy may let it pass); an iteration end closes the
        // interval.
        let mut snap = if timer { parts.snapshot_peek()? } else { parts.snapshot()? };
        if addresses {
            snap.addresses = take_addresses(parts);
        }
        let view = snap.view(&parts.host.machine, parts.host.now());
        let mut after = Timer::default();
        let (actions, reset) = if timer {
            let mut t = policy.on_timer(&view);
            if t.age {
                parts.regions.age_samples();
            }
            if let Some(next) = t.next_period {
                self.timer = Some(Self::period(parts.host, next));
            }
            if t.actions.is_empty() && !t.reset && !t.age {
                // The policy let the tick pass (e.g. `sampled` with an adaptive period, still
                // short of samples): the interval goes on, undisturbed.
                follow_up(parts, &snap, &t);
                return Ok(None);
            }
            // Acting: pages must be accessible to move (the interval ends here); a policy
            // that revokes pages itself keeps its revocations (the mover opens what it moves).
            if !own_revocations {
                parts.regions.unprotect_all(parts.sampling);
            }
            let actions = std::mem::take(&mut t.actions);
            let reset = t.reset;
            after = t;
            (actions, reset)
        } else {
            if !policy.counts() {
                return Ok(Some(0));
            }
            self.iteration += 1;
            let a = policy.on_iteration_end(&view, self.iteration);
            (a, policy.reset_after_iteration())
        };
        parts.stats.invocations += 1;
        let (rep, per_node) = parts.apply(&snap, &actions)?;
        if reset {
            parts.regions.clear_samples();
        }
        follow_up(parts, &snap, &after);
        if timer && kind == "timer" {
            let pages: u64 = parts.regions.list.iter().map(|r| r.pages as u64).sum();
            parts.sampling.pace(snap.samples, snap.local, snap.active_nodes, rep.moved, pages);
        }
        parts.log(kind, &snap, rep.moved, per_node);
        Ok(Some(rep.moved))
    }

    /// The sampler thread's tick: a sampling step when due (the revocation of the next window,
    /// when samples are wanted), and the policy's timer when its period has passed. Returns
    /// pages moved.
    ///
    /// # Errors
    /// A failed system call.
    pub(crate) fn tick(&mut self, parts: &mut Parts, recording: bool) -> Result<u64, RtError> {
        let t = Instant::now();
        if parts.sampling.drain_perf(parts.host.cfg.verbose) {
            parts.sampling.time_revoking.set(parts.sampling.time_revoking.get() + t.elapsed());
        }
        if parts.sampling.due() && parts.sampling.on && (self.counts() || recording) {
            parts.regions.sample_step(parts.sampling, parts.host.cfg.window_pages);
        }
        let moved = self.deliver_faults(parts)? + self.watch_memory(parts)?;
        match self.timer {
            Some(period) if self.last_timer.elapsed() >= period => {
                self.last_timer = Instant::now();
                Ok(moved + self.migrate(parts, "timer", recording)?)
            }
            _ => Ok(moved),
        }
    }

    /// Hands the hinting faults taken since the last tick to the policy, one `on_fault` each,
    /// and applies what it decides. Returns pages moved.
    ///
    /// # Errors
    /// A failed system call.
    pub(crate) fn deliver_faults(&mut self, parts: &mut Parts) -> Result<u64, RtError> {
        if !self.caps.is_some_and(|c| c.acts_on(Trigger::HintingFault)) {
            return Ok(0);
        }
        let faults = FAULTS.drain();
        let Some(policy) = self.policy.as_mut().filter(|_| !faults.is_empty()) else { return Ok(0) };
        // A look: the pages of the policy's scan not yet faulted on stay revoked.
        let snap = parts.snapshot_peek()?;
        let view = snap.view(&parts.host.machine, parts.host.now());
        let mut actions = Vec::new();
        for &(page, node) in &faults {
            // Pages of regions freed since (no address any more) are no longer the program's.
            if snap.addr.get(page).is_some_and(|&a| a != 0) {
                parts.stats.faults_forwarded += 1;
                actions.extend(policy.on_fault(&view, PageNo(page as u32), NodeId(node as u8)));
            }
        }
        self.decide(parts, &snap, &actions, "fault")
    }

    /// Tells the policy of each node whose free memory fell below its low watermark since the
    /// last tick, and applies what it decides. Returns pages moved.
    ///
    /// # Errors
    /// A failed system call.
    pub(crate) fn watch_memory(&mut self, parts: &mut Parts) -> Result<u64, RtError> {
        let (Some(low), Some(policy)) = (self.low.as_mut(), self.policy.as_mut()) else { return Ok(0) };
        if low.marks.is_empty() {
            return Ok(0);
        }
        let Some(free) = parts.host.sys.free_pages() else { return Ok(0) };
        let raised = low.check(&free);
        parts.stats.low_memory_events = low.events;
        if raised.is_empty() {
            // Balanced (or never low): the next fall below low starts afresh.
            self.pace = Pace::default();
            return Ok(0);
        }
        let faults = || crate::space::SPACE.samples.load(std::sync::atomic::Ordering::Relaxed);
        if !self.pace.due(parts.regions, faults()) {
            return Ok(0);
        }
        let snap = parts.snapshot_peek()?;
        let view = snap.view(&parts.host.machine, parts.host.now());
        // The runtime moves pages on its sampler thread: a background tick and a stop-the-world
        // one are applied alike (the program's threads never wait for it).
        let mut actions: Vec<Action> = Vec::new();
        let mut after = Timer::default();
        for n in raised {
            let mut t = policy.on_low_memory(&view, NodeId(n as u8));
            actions.append(&mut t.actions);
            after.clear_referenced.append(&mut t.clear_referenced);
        }
        let moved = self.decide(parts, &snap, &actions, "low-memory")?;
        follow_up(parts, &snap, &after);
        self.pace.passed(&after.clear_referenced, faults());
        Ok(moved)
    }

    /// Applies the actions of a decision triggered by `kind` and logs it (nothing when there
    /// are none). Returns pages moved.
    fn decide(&mut self, parts: &mut Parts, snap: &Snapshot, actions: &[Action], kind: &'static str) -> Result<u64, RtError> {
        if actions.is_empty() {
            return Ok(0);
        }
        parts.stats.invocations += 1;
        let (rep, per_node) = parts.apply(snap, actions)?;
        parts.log(kind, snap, rep.moved, per_node);
        Ok(rep.moved)
    }
}

/// When the low-memory reclaimer may make its next pass (its clock's next lap) while a node
/// stays below its high watermark.
///
/// Linux's referenced bit costs the program nothing: the MMU sets it on the access, so kswapd
/// may age the LRU lists as fast as reclaim pressure asks (mm/vmscan.c). Here the bit is the
/// runtime's revocation ([`follow_up`]), which the program sets again only by taking a fault,
/// and a reclaimer that looked at every tick aged the pages at the pace of the sampler's clock,
/// not of the program: where faults are slow or the program is short of CPU, it cannot come back
/// to what it uses between two ticks. In vm/tests/test_tiering.py's TCG guest beside two `yes`
/// loops on a 2-core host (a fault about 1.6 ms of CPU), the GUPS re-marked only 100-150 of its
/// ~250 hot fast pages between passes 1-1.5 s apart, each pass demoted 30-60 hot pages, and the
/// hot set ended 66-74 % on the fast node (idle: 370-400 of ~406, passes 0.5 s apart).
///
/// So the next pass waits until the program has come back to what it uses of the pages the
/// last one cleared, measured in its own faults ([`crate::space::Space::samples`]), not in
/// ticks: until, over a tick, it came back to no more of them than it took faults on other
/// pages (those TPP's scan revoked, mostly slow and cold). While its hot pages are still
/// coming back they take most of its faults, however slow each fault is or however little CPU
/// it gets (beside the `yes` loops, 230-330 pages came back in the first tick after a pass,
/// 120-150 in the second, 45-60 in the third, where the pass became due); what it has not come
/// back to once its faults go elsewhere is what it touches no more than its cold memory, which
/// the pass then demotes (after two unreferenced passes, as Linux's two lists). The pass is
/// also due once every cleared page came back, and at a tick without any fault (the program is
/// idle). Bits it had not paid for ask for nothing: a pass that cleared none of the pages the
/// pass before had (pages never revoked read as referenced, as a freshly faulted-in page's
/// entry is young) is followed by another at the next tick, as kswapd's would be, which demotes
/// what the program did not touch in between. Two other rules were tried on that test: waiting
/// until a tick brought none of the cleared pages back demoted nothing (cold pages the program
/// touches now and then, GUPS's cold 10 % of updates, kept coming back); waiting until it came
/// back to as many pages as between the two passes before only ever lengthened the wait, and
/// TPP's promotions refilled the fast node (97.9 % of the array there at the end); comparing
/// the share of the pending pages that came back with the share of the other revoked pages
/// faulted on waited too long as well (cold pages come back alike on either node: 88-93 %
/// there at the end). The simulator's reclaimer reads bits that cost nothing and looks at every check, as kswapd does.
#[derive(Clone, Debug, Default)]
struct Pace {
    /// The pages the last pass cleared, in order.
    cleared: Vec<u32>,
    /// Whether that pass cleared none of the pages the one before had (nothing paid for).
    fresh: bool,
    /// Of `cleared`, those come back by the last tick, and the faults taken by then.
    back: u64,
    faults: u64,
}

impl Pace {
    /// Whether a pass may run at this tick (`regions`: the managed regions now, `faults`: the
    /// faults taken by now); remembers where the program stands either way.
    fn due(&mut self, regions: &crate::regions::Regions, faults: u64) -> bool {
        let (mut back, mut pending) = (0u64, 0u64);
        for r in &regions.list {
            let from = self.cleared.partition_point(|&p| (p as usize) < r.first);
            let to = self.cleared.partition_point(|&p| (p as usize) < r.first + r.pages);
            for &p in &self.cleared[from..to] {
                // Pages of regions freed since are neither: they are no longer the program's.
                if crate::space::SPACE.is_revoked(r.slot, p as usize - r.first) {
                    pending += 1;
                } else {
                    back += 1;
                }
            }
        }
        // Over the last tick: the cleared pages come back, and the faults on other pages.
        let came = back.saturating_sub(self.back);
        let other = faults.saturating_sub(self.faults).saturating_sub(came);
        (self.back, self.faults) = (back, faults);
        self.fresh || pending == 0 || came <= other
    }

    /// A pass cleared the bits of `cleared` (in any order, repeats allowed); `faults` taken by
    /// its end.
    fn passed(&mut self, cleared: &[u32], faults: u64) {
        let mut now = cleared.to_vec();
        now.sort_unstable();
        now.dedup();
        self.fresh = !now.iter().any(|p| self.cleared.binary_search(p).is_ok());
        self.cleared = now;
        (self.back, self.faults) = (0, faults);
    }
}

/// What a timer's answer asks of the pages once its actions are applied: its scan's
/// revocation ([`Timer::revoke`], only the pages off the fastest tier when
/// [`Timer::revoke_skip_toptier`], and only pages present, as Linux's `change_prot_numa` changes
/// present entries), and the referenced bits its reclaimer read cleared
/// ([`Timer::clear_referenced`]: the pages are revoked, so that their next access sets the bit
/// again, [`Snapshot::referenced`]). Those revocations' faults reach the policy as hinting
/// faults where it takes them; the tiering policies ignore faults on fast pages, and the faults
/// cost the program about what the kernel's own hinting faults do.
fn follow_up(parts: &mut Parts, snap: &Snapshot, t: &Timer) {
    if let Some(r) = t.revoke.clone() {
        if t.revoke_skip_toptier {
            let machine = &parts.host.machine;
            let slow = |g: &u32| snap.homes.get(*g as usize).is_some_and(|&h| h != UNTOUCHED && !machine.is_toptier(NodeId(h)));
            parts.regions.revoke_pages(parts.sampling, r.filter(slow));
        } else {
            parts.regions.revoke_range(parts.sampling, r);
        }
    }
    if !t.clear_referenced.is_empty() {
        let mut pages = t.clear_referenced.clone();
        pages.sort_unstable();
        pages.dedup();
        parts.regions.revoke_pages(parts.sampling, pages.into_iter());
    }
}

/// The address samples the CPU's sampler kept since the last take ([`crate::perf::Perf::addresses`]),
/// in the runtime's page numbering; samples of regions freed since are dropped.
fn take_addresses(parts: &mut Parts) -> Vec<Sample> {
    let Some(kept) = parts.sampling.perf.as_mut().and_then(|p| p.addresses.as_mut()) else { return Vec::new() };
    let list = &parts.regions.list;
    std::mem::take(kept)
        .into_iter()
        .filter_map(|(slot, p, node, write)| {
            let r = list.iter().find(|r| r.slot == slot && p < r.pages)?;
            Some(Sample { page: PageNo((r.first + p) as u32), node: NodeId(node as u8), write })
        })
        .collect()
}

/// Refuses a policy that acts on a trigger the runtime cannot raise.
///
/// # Errors
/// The first such trigger, named.
pub(crate) fn check_triggers(name: &str, caps: &DynamicCaps) -> Result<(), RtError> {
    const RAISED: [Trigger; 5] = [Trigger::IterationEnd, Trigger::EpochBoundary, Trigger::Timer, Trigger::HintingFault, Trigger::LowMemory];
    match caps.triggers.iter().find(|t| !RAISED.contains(t)) {
        None => Ok(()),
        Some(t) => Err(RtError::new(
            Code::Unsupported,
            format!("dynamic policy '{name}' acts on the {} trigger, which the runtime cannot raise", t.name()),
        )),
    }
}
