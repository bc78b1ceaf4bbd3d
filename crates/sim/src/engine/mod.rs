//! The engine: runs epochs of a workload on a machine under a placement policy.
//!
//! Threads are interleaved in quanta of simulated time. Within a quantum each thread, in thread
//! order, consumes its transactions until its clock passes the quantum's end; a transaction
//! first touching a page asks the placement policy (the page table falls back to the nearest
//! node with room). At each quantum boundary the timing model re-solves the memory controllers'
//! queueing delays from the lines each thread fetched, and the per-line costs are refreshed. An
//! epoch ends at a barrier: its time is that of the slowest thread, and all threads start the
//! next epoch together.
//!
//! The inner loop is the simulator's hot path: per transaction it reads the record and the
//! page's home byte, adds a table cost to the thread's clock and counts the lines. Everything
//! else (placement, timing) happens on the cold path or at quantum boundaries.

pub mod decisions;
mod dynamic;
mod memory;
mod quantum;

pub use decisions::{Batch, Decision, DecisionLog, DecisionSink, Kept, LineSink, LogSummary};
pub use dynamic::{Dynamic, PolicyStats, Sampler};
use dynamic::observed;

use crate::binding::Placed;
use crate::hotloop::{
    hot_loop, hot_loop_address_sampled, hot_loop_counted, hot_loop_faulting, hot_loop_faulting_marked, hot_loop_faulting_written, hot_loop_replicated, hot_loop_sampled, hot_loop_bus, prefetch_resume, Stop, Toucher,
};
use crate::timing::Timing;
use crate::workload::{Epoch, Txn};
use dynamic::HotLoop;
use memory::{view, Memory};
use quantum::{bandwidth_guard, touched_nodes, touched_nodes_from};
use numaplace_model::dynamic::{DynamicCaps, DynamicPolicy, Trigger};
use numaplace_model::pagetable::UNTOUCHED;
use numaplace_model::placement::Placement;
use numaplace_model::{Machine, NodeId, PageTable, Ps, Region, MAX_TIME_PS};

/// Time and label of one simulated epoch.
#[derive(Clone, Debug, PartialEq)]
pub struct EpochStat {
    pub iteration: u32,
    pub phase: &'static str,
    pub time_ps: Ps,
}

/// Lines fetched, by the node of the fetching thread (rows) and the serving node (columns).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Traffic {
    pub lines: Vec<u64>,
    pub writes: u64,
}

impl Traffic {
    fn new(nn: usize) -> Self {
        Traffic { lines: vec![0; nn * nn], writes: 0 }
    }
}

/// Solves the queueing delays and refreshes the cost table; with a dynamic policy attached,
/// copies the delays into `queue`, its view's (what its cost model may weigh).
fn solve(timing: &mut Timing, queue: Option<&mut [f64]>) {
    timing.solve();
    if let Some(q) = queue {
        q.copy_from_slice(timing.wait_ps());
    }
    timing.refresh_costs();
}

/// Records per thread examined at the start of an epoch to predict its mix of serving nodes.
const LOOKAHEAD: usize = 256;

/// A simulation in progress.
pub struct Engine<'m> {
    nn: usize,
    nt: usize,
    mem: Memory<'m>,
    thread_node: Vec<usize>,
    quantum_ps: Ps,
    timing: Timing,
    /// Lines fetched in the current quantum, `[t * nn + h]`.
    q_lines: Vec<u64>,
    /// Per thread, the nodes it fetched lines from in the quantum (`[t * nn ..]`, ascending)
    /// and their number ([`touched_nodes`]).
    q_nodes: Vec<u32>,
    q_count: Vec<u32>,
    /// Per thread, the length of the last list its `q_nodes` row holds (kept when the quantum
    /// ends and `q_count` is cleared): the nodes [`touched_nodes_from`] tries first.
    q_last: Vec<u32>,
    /// Scratch of the bandwidth guard: the quantum's lines per node and each node's floor.
    node_lines: Vec<u64>,
    node_floor: Vec<Ps>,
    /// The nodes that served lines in the last quantum (where `node_lines` is not zero).
    node_used: Vec<u32>,
    now: Ps,
    /// Set when the run's simulated time passed [`MAX_TIME_PS`]: the epoch stopped there with
    /// transactions unplayed, and the run's result is not a measurement (the driver refuses it).
    pub overran: bool,
    pub epochs: Vec<EpochStat>,
    /// Traffic of the initialisation epoch (iteration 0) and of the timed epochs.
    pub init: Traffic,
    pub timed: Traffic,
    clocks: Vec<Ps>,
    cursor: Vec<usize>,
    /// The dynamic policy, if any.
    pub dynamic: Option<Dynamic>,
    /// Local and total lines of each timed iteration (for the per-iteration local fraction).
    pub iteration_traffic: Vec<(u64, u64)>,
    /// The line rate each node serves to others than this run's threads (the machine's
    /// antagonist, and the other jobs of a multiprogrammed system, [`Engine::set_background`]),
    /// before the policy's background copies are added to it.
    background: Vec<f64>,
    /// Per node, the queueing delay of each line it served in the timed iterations, summed
    /// (ps × lines), and those lines: the loaded latency the run saw at each controller.
    timed_wait: Vec<f64>,
    timed_served: Vec<u64>,
    /// Whether the last quantum's background copies were added to the timing model's load.
    copy_load: bool,
}

impl<'m> Engine<'m> {
    /// An engine for `threads` bound as given, over an address space of `regions`.
    pub fn new(machine: &'m Machine, threads: &[Placed], regions: Vec<Region>, placement: Box<dyn Placement>, quantum_ps: Ps) -> Self {
        let nn = machine.nodes();
        let nt = threads.len();
        let pages = regions.last().map_or(0, |r| r.first_page as usize + r.pages as usize);
        let thread_node: Vec<usize> = threads.iter().map(|p| p.node.index()).collect();
        let share: Vec<u32> = threads.iter().map(|p| p.share).collect();
        let antagonist = machine.antagonist_lines_per_ps();
        let mut timing = Timing::new(machine, &thread_node, &share);
        timing.set_background(&antagonist);
        Engine {
            nn,
            nt,
            mem: Memory { machine, pt: PageTable::new(pages, machine), placement, regions, started: 0, queue: vec![0.0; nn], done: 0, served: vec![0; nn], declared: None, completed: 0, last_end: 0, last_len: 0 },
            timing,
            thread_node,
            quantum_ps: quantum_ps.max(1),
            q_lines: vec![0; nt * nn],
            q_nodes: vec![0; nt * nn],
            q_count: vec![0; nt],
            q_last: vec![0; nt],
            node_lines: vec![0; nn],
            node_floor: vec![0; nn],
            node_used: Vec::with_capacity(nn),
            now: 0,
            overran: false,
            epochs: Vec::new(),
            init: Traffic::new(nn),
            timed: Traffic::new(nn),
            clocks: vec![0; nt],
            cursor: vec![0; nt],
            dynamic: None,
            iteration_traffic: Vec::new(),
            background: antagonist,
            timed_wait: vec![0.0; nn],
            timed_served: vec![0; nn],
            copy_load: false,
        }
    }

    /// Attaches a dynamic policy; `caps`, its registry entry's capabilities, choose the hot
    /// loop it runs in.
    /// The timed iterations the workload declares (`Workload::declared_iterations`): what a
    /// policy's view estimates the remaining run from.
    pub fn set_declared_iterations(&mut self, iterations: Option<u32>) {
        self.mem.declared = iterations;
    }

    pub fn set_dynamic(&mut self, policy: Box<dyn DynamicPolicy>, caps: &DynamicCaps) {
        let pages = self.mem.pt.homes().len();
        self.dynamic = Some(Dynamic::new(policy, caps, self.mem.machine, pages, self.nt));
    }

    /// Moves the threads (and changes their number) between epochs: a multiprogrammed system's
    /// scheduler remapped them (`crate::system`). Pages stay where they are; the next epoch must
    /// have `threads.len()` threads. Not used by single-program runs.
    pub fn rebind(&mut self, threads: &[Placed]) {
        let nn = self.nn;
        let nt = threads.len();
        self.nt = nt;
        self.thread_node = threads.iter().map(|p| p.node.index()).collect();
        let share: Vec<u32> = threads.iter().map(|p| p.share).collect();
        let background = self.timing.background().to_vec();
        self.timing = Timing::new(self.mem.machine, &self.thread_node, &share);
        self.timing.set_background(&background);
        self.q_lines = vec![0; nt * nn];
        self.q_nodes = vec![0; nt * nn];
        self.q_count = vec![0; nt];
        self.q_last = vec![0; nt];
        self.clocks = vec![0; nt];
        self.cursor = vec![0; nt];
        if let Some(d) = self.dynamic.as_mut() {
            d.resize_threads(nt);
        }
    }

    /// The line rate (lines per ps) each node serves to other programs sharing the machine
    /// ([`Timing::set_background`]), on top of the machine's antagonist; zero unless a
    /// multiprogrammed system sets it.
    pub fn set_background(&mut self, lines_per_ps: &[f64]) {
        self.background = self.mem.machine.antagonist_lines_per_ps().iter().zip(lines_per_ps).map(|(a, b)| a + b).collect();
        self.timing.set_background(&self.background);
    }

    /// Per node, the mean queueing delay of a line it served in the timed iterations, ns (0
    /// where it served none): with the unloaded latency, the loaded latency the run saw.
    pub fn timed_queue_ns(&self) -> Vec<f64> {
        self.timed_wait.iter().zip(&self.timed_served).map(|(&w, &l)| if l == 0 { 0.0 } else { w / l as f64 / 1000.0 }).collect()
    }

    /// Adds the policy's background copies of the quantum that just ended to the memory
    /// controllers' load for the next one (lines read at the source and written at the
    /// destination, spread over a quantum), or takes them away once there are none.
    fn copy_load(&mut self) {
        let Some(d) = self.dynamic.as_mut() else { return };
        match d.take_copy_lines() {
            Some(lines) => {
                let q = self.quantum_ps as f64;
                let load: Vec<f64> = self.background.iter().zip(&lines).map(|(&b, &l)| b + l as f64 / q).collect();
                self.timing.set_background(&load);
                self.copy_load = true;
            }
            None if self.copy_load => {
                self.timing.set_background(&self.background);
                self.copy_load = false;
            }
            None => {}
        }
    }

    /// The pages each node may hold for this run's address space
    /// ([`PageTable::set_capacity`]): what the other programs sharing the machine leave.
    pub fn set_capacity(&mut self, pages: &[u64]) {
        self.mem.pt.set_capacity(pages);
    }

    /// The threads' nodes.
    pub fn thread_nodes(&self) -> &[usize] {
        &self.thread_node
    }

    /// The policy's hook before (`start`) or after an epoch, at the barrier; returns the cost
    /// of its actions, which every thread waits for.
    fn epoch_hook(&mut self, epoch: &Epoch, start: bool) -> Ps {
        let Some(d) = self.dynamic.as_mut().filter(|d| d.acts_on(Trigger::EpochBoundary)) else { return 0 };
        let free = self.mem.pt.free_per_node();
        let v = view(observed!(d), &self.mem, &free, self.now, d.overhead_ps);
        let actions = if start {
            d.policy.on_epoch_start(&v, epoch.iteration, epoch.phase)
        } else {
            d.policy.on_epoch_end(&v, epoch.iteration, epoch.phase)
        };
        if actions.is_empty() {
            return 0;
        }
        d.decided(true);
        d.apply(&mut self.mem, actions, self.now, Trigger::EpochBoundary, false)
    }

    /// The start of the timed iterations: a policy that reads counters per iteration starts
    /// from zero (registering its hot regions clears their counters, as UPMlib's
    /// `upmlib_memrefcnt` does before the time-step loop).
    pub fn start_timed(&mut self) {
        self.mem.started = self.now;
        if let Some(d) = self.dynamic.as_mut() {
            if d.policy.reset_after_iteration() {
                d.counters.reset_all();
            }
        }
    }

    /// The barrier after the last timed iteration. Nothing follows it, so an action there
    /// could only cost: the policy is not asked (its iteration hook would run once more than
    /// the iterations that can benefit, and a one-iteration program would pay for a whole
    /// round of migrations). The result says the barrier was withheld.
    pub fn finish(&mut self) {
        if let Some(d) = self.dynamic.as_mut() {
            d.final_barrier_withheld = true;
        }
    }

    /// The end of timed iteration `iteration`: the policy's iteration hook runs at the
    /// barrier; its migrations are done by one thread while the others wait, so their cost
    /// lengthens the iteration (added to its last epoch).
    pub fn end_iteration(&mut self, iteration: u32) {
        self.mem.end_iteration(iteration, self.now);
        let Some(d) = self.dynamic.as_mut() else { return };
        let actions = if d.acts_on(Trigger::IterationEnd) {
            let free = self.mem.pt.free_per_node();
            d.policy.on_iteration_end(&view(observed!(d), &self.mem, &free, self.now, d.overhead_ps), iteration)
        } else {
            Vec::new()
        };
        if d.policy.decides_at_iteration_end() {
            d.decided(!actions.is_empty());
        }
        let invoked = d.policy.reset_after_iteration();
        let cost = d.apply(&mut self.mem, actions, self.now, Trigger::IterationEnd, false);
        if invoked {
            d.counters.reset_all();
        }
        self.now = self.now.saturating_add(cost);
        if let Some(e) = self.epochs.last_mut() {
            e.time_ps = e.time_ps.saturating_add(cost);
        }
    }

    /// Keeps a decision log of the attached policy's first [`decisions::KEPT`] actions
    /// (`true`) or none (`false`, the default: a benchmark's).
    pub fn keep_decisions(&mut self, keep: bool) {
        let log = keep.then(|| DecisionLog::keeping(decisions::KEPT, &self.mem.regions, self.nn));
        self.set_decision_log(log);
    }

    /// Attaches a decision log to the policy ([`DecisionLog`]), or none.
    pub fn set_decision_log(&mut self, log: Option<DecisionLog>) {
        if let Some(d) = self.dynamic.as_mut() {
            d.set_log(log);
        }
    }

    /// The decision log, taken at the run's end.
    pub fn take_decision_log(&mut self) -> Option<DecisionLog> {
        self.dynamic.as_mut().and_then(Dynamic::take_log)
    }

    /// A decision sink's failure, if one failed (the run should end with it).
    pub fn decision_error(&mut self) -> Option<crate::error::SimError> {
        self.dynamic.as_mut()?.log.as_mut()?.take_error()
    }

    /// The bytes of per-page state the run holds now, by field of
    /// `numaplace_model::pagetable::layout` (plus the decisions log and the address samples),
    /// each from its vector's capacity. The policy's own per-page state lives inside the
    /// policy, which the engine cannot see into: a reclaiming policy's flags
    /// (`layout::RECLAIM_FLAGS`, allocated on its first fault or reclaim pass) are counted as
    /// declared, one byte a page.
    pub fn state_bytes(&self) -> Vec<(&'static str, u64)> {
        use numaplace_model::pagetable::layout;
        let (home, replicas) = self.mem.pt.state_bytes();
        let pages = self.mem.pt.homes().len();
        let mut out = vec![(layout::HOME.name, home), (layout::REPLICA_MASK.name, replicas)];
        if let Some(d) = &self.dynamic {
            out.extend(d.state_bytes(pages));
            if d.reclaims() {
                out.push((layout::RECLAIM_FLAGS.name, pages as u64 * layout::RECLAIM_FLAGS.bytes));
            }
        }
        out
    }

    /// The page table (placement outcome so far).
    pub fn page_table(&self) -> &PageTable {
        &self.mem.pt
    }

    /// Simulated time so far, ps.
    pub fn now(&self) -> Ps {
        self.now
    }

    /// Gives the timing model each thread's mix of serving nodes from its first records, so
    /// that queueing is in force from the epoch's first quantum rather than one quantum late
    /// (a phase change, the first epoch of a run, an epoch shorter than a quantum).
    fn predict_mix(&mut self, epoch: &Epoch) {
        let nn = self.nn;
        for (t, work) in epoch.threads.iter().enumerate() {
            let toucher = NodeId(self.thread_node[t] as u8);
            let lines = &mut self.q_lines[t * nn..(t + 1) * nn];
            for tx in work.txns.iter().take(LOOKAHEAD) {
                lines[self.mem.predict(tx.page, toucher)] += tx.count as u64;
            }
            self.timing.observe(t, lines);
            lines.fill(0);
        }
    }

    /// Runs one epoch to its barrier: the policy's epoch-start hook, then quanta until every
    /// thread has played its transactions ([`Engine::play_thread`] for each thread, then
    /// [`Engine::quantum_boundary`]), then the epoch-end hook.
    ///
    /// # Panics
    /// If the epoch has a different number of threads than the engine, or a transaction names a
    /// page outside the regions (workloads guarantee neither happens; trace readers check).
    pub fn run_epoch(&mut self, epoch: &Epoch) {
        assert_eq!(epoch.threads.len(), self.nt, "epoch has the wrong number of threads");
        let barrier = self.now;
        self.now = self.now.saturating_add(self.epoch_hook(epoch, true));
        let start = self.now;
        for (t, work) in epoch.threads.iter().enumerate() {
            self.timing.set_thread(t, work.mlp, work.think_ns, !work.txns.is_empty());
            self.clocks[t] = start;
            self.cursor[t] = 0;
        }
        self.predict_mix(epoch);
        solve(&mut self.timing, self.dynamic.as_ref().map(|_| &mut self.mem.queue[..]));
        let iteration_slot = (epoch.iteration > 0).then(|| epoch.iteration as usize - 1);
        if let Some(it) = iteration_slot {
            if self.iteration_traffic.len() <= it {
                self.iteration_traffic.resize(it + 1, (0, 0));
            }
        }
        let mut qend = start;
        loop {
            qend = qend.saturating_add(self.quantum_ps);
            let mut active = false;
            let mut writes = 0u64;
            for t in 0..self.nt {
                if let Some((w, unfinished)) = self.play_thread(t, epoch, qend) {
                    writes += w;
                    active |= unfinished;
                }
            }
            self.traffic_of(epoch).writes += writes;
            self.quantum_boundary(epoch, qend, iteration_slot);
            if !active {
                break;
            }
            // The time bound (MAX_TIME_PS): past it the epoch stops with work unplayed, rather
            // than letting the clocks approach u64::MAX, where they would wrap.
            if qend >= MAX_TIME_PS {
                self.overran = true;
                break;
            }
            solve(&mut self.timing, self.dynamic.as_ref().map(|_| &mut self.mem.queue[..]));
        }
        let end = self.clocks.iter().copied().max().unwrap_or(start).max(start);
        self.now = end;
        self.now = self.now.saturating_add(self.epoch_hook(epoch, false));
        self.epochs.push(EpochStat { iteration: epoch.iteration, phase: epoch.phase, time_ps: self.now - barrier });
    }

    /// The traffic an epoch adds to: the initialisation's (iteration 0) or the timed run's.
    fn traffic_of(&mut self, epoch: &Epoch) -> &mut Traffic {
        if epoch.iteration == 0 {
            &mut self.init
        } else {
            &mut self.timed
        }
    }

    /// Plays thread `t`'s transactions of `epoch` until its clock passes `qend` or it has none
    /// left: the hot loop its policy runs in ([`HotLoop`]), leaving it only for the cold paths
    /// (a first touch, a counter interrupt, a hinting fault). Returns the lines it wrote and
    /// whether it has transactions left; `None` if it had finished before this quantum.
    fn play_thread(&mut self, t: usize, epoch: &Epoch, qend: Ps) -> Option<(u64, bool)> {
        let nn = self.nn;
        let txns: &[Txn] = &epoch.threads[t].txns;
        let mut i = self.cursor[t];
        if i >= txns.len() {
            return None;
        }
        let node = self.thread_node[t];
        let row = self.timing.cost_row(t);
        let lines = &mut self.q_lines[t * nn..(t + 1) * nn];
        let mut clock = self.clocks[t];
        let mut writes = 0u64;
        // A first touch is placed in the loop unless the page falls back from the node the
        // placement wants and the policy acts on that (`Toucher`).
        let stop_on_fallback = self.dynamic.as_ref().is_some_and(|d| d.acts_on(Trigger::AllocationFailure));
        loop {
            let (homes, pt, replicas) = self.mem.pt.placer();
            let pages = homes.len();
            let homes = &mut Toucher::new(homes, pt, &*self.mem.placement, &self.mem.regions, self.mem.machine, NodeId(node as u8), stop_on_fallback);
            let stop = match self.dynamic.as_mut() {
                Some(d) if d.hot == HotLoop::Sampled && d.sampler.as_ref().is_some_and(|s| s.bus.is_some()) => {
                    let sm = d.sampler.as_mut().expect("a sampled loop has a sampler");
                    let bus = sm.bus.as_mut().expect("checked");
                    hot_loop_bus(txns, &mut i, homes, row, lines, &mut clock, qend, &mut writes, &mut bus.logs[t], &mut sm.threads[t])
                }
                Some(d) if d.hot == HotLoop::Sampled => {
                    let sm = d.sampler.as_mut().expect("a sampled loop has a sampler");
                    hot_loop_sampled(txns, &mut i, homes, row, lines, &mut clock, qend, &mut writes, &mut d.counters, node, &mut sm.threads[t])
                }
                Some(d) if d.hot == HotLoop::Replicated => hot_loop_replicated(
                    txns,
                    &mut i,
                    homes,
                    replicas,
                    row,
                    lines,
                    &mut clock,
                    qend,
                    &mut writes,
                    &mut d.counters,
                    &mut d.replica_writes,
                    &mut d.stale,
                    d.page_lines,
                    node,
                ),
                Some(d) if d.hot == HotLoop::AddressSampled => {
                    let sm = d.sampler.as_mut().expect("an address-sampled loop has a sampler");
                    hot_loop_address_sampled(txns, &mut i, homes, row, lines, &mut clock, qend, &mut writes, &mut d.samples, node, &mut sm.threads[t])
                }
                // A reclaiming policy's referenced bits (and store times, where it tracks
                // them) are kept whether or not pages are revoked.
                Some(d) if d.hot == HotLoop::Faulting && !d.referenced.is_empty() && !d.written.is_empty() => {
                    if d.revoked.len() != pages {
                        d.revoked = vec![false; pages];
                    }
                    if d.written.len() < pages {
                        d.written.resize(pages, Ps::MAX);
                    }
                    hot_loop_faulting_written(txns, &mut i, homes, row, lines, &mut clock, qend, &mut writes, &d.revoked, &mut d.referenced, &mut d.written)
                }
                Some(d) if d.hot == HotLoop::Faulting && !d.referenced.is_empty() => {
                    if d.revoked.len() != pages {
                        d.revoked = vec![false; pages];
                    }
                    hot_loop_faulting_marked(txns, &mut i, homes, row, lines, &mut clock, qend, &mut writes, &d.revoked, &mut d.referenced)
                }
                Some(d) if d.hot == HotLoop::Faulting && d.revoked_count > 0 => {
                    hot_loop_faulting(txns, &mut i, homes, row, lines, &mut clock, qend, &mut writes, &d.revoked)
                }
                // Counted, or Faulting with no page revoked.
                Some(d) if d.policy.counts() => {
                    hot_loop_counted(txns, &mut i, homes, row, lines, &mut clock, qend, &mut writes, &mut d.counters, node, d.threshold)
                }
                _ => hot_loop(txns, &mut i, homes, row, lines, &mut clock, qend, &mut writes),
            };
            match stop {
                Stop::Done => break,
                // Cold path: a first touch the loop did not place (the page falls back from the
                // node the placement wants, and the policy acts on that). Place the page, then
                // resume the hot loop, which re-reads the record and now finds its home.
                Stop::Untouched => {
                    let page = txns[i].page;
                    let (wanted, got) = self.mem.first_touch(page, NodeId(node as u8));
                    if wanted != got {
                        if let Some(d) = self.dynamic.as_mut().filter(|d| d.acts_on(Trigger::AllocationFailure)) {
                            clock = clock.saturating_add(d.allocation_failure(&mut self.mem, page, wanted, got, clock));
                        }
                    }
                }
                // Cold path: the interrupted thread runs the handler.
                Stop::Interrupt(page) => {
                    let d = self.dynamic.as_mut().expect("interrupts need a policy");
                    clock = clock.saturating_add(if d.revoked.get(page as usize).copied().unwrap_or(false) {
                        d.fault(&mut self.mem, page, node, clock)
                    } else {
                        d.interrupt(&mut self.mem, page, node, clock)
                    });
                }
            }
        }
        // This turn's records, which the next turn's prefetch is judged from.
        let start = self.cursor[t];
        self.clocks[t] = clock;
        self.cursor[t] = i;
        // The nodes the thread fetched from in this quantum: lines are added only for records
        // consumed, so a thread whose clock was already past the quantum's end (one record may
        // span several quanta) has none, and its row is not scanned.
        // A turn of a few records (as in a system run's many short quanta) is summed and its
        // thread's last nodes tried first; a longer one is cheaper to scan.
        if i > start {
            let (row, listed) = (&self.q_lines[t * nn..(t + 1) * nn], &mut self.q_nodes[t * nn..(t + 1) * nn]);
            self.q_count[t] = if i - start <= nn {
                touched_nodes_from(row, listed, self.q_last[t], txns[start..i].iter().map(|x| x.count as u64).sum())
            } else {
                touched_nodes(row, listed)
            };
            self.q_last[t] = self.q_count[t];
        } else {
            self.q_count[t] = 0;
        }
        let unfinished = i < txns.len();
        if unfinished {
            let homes = self.mem.pt.homes().as_ptr();
            match self.dynamic.as_ref() {
                Some(d) if d.hot == HotLoop::Faulting && !d.revoked.is_empty() => {
                    let revoked = d.revoked.as_ptr() as *const u8;
                    if d.referenced.is_empty() {
                        prefetch_resume(txns, start, i, &[homes, revoked]);
                    } else {
                        prefetch_resume(txns, start, i, &[homes, revoked, d.referenced.as_ptr()]);
                    }
                }
                _ => prefetch_resume(txns, start, i, &[homes]),
            }
        }
        if !unfinished {
            self.timing.retire(t);
        }
        Some((writes, unfinished))
    }

    /// The quantum that ends at `qend` is over: the bandwidth guard, the policy's timer and
    /// sampler, then the quantum's lines folded into the totals and the timing model.
    fn quantum_boundary(&mut self, epoch: &Epoch, qend: Ps, iteration_slot: Option<usize>) {
        // First the bandwidth guard: a controller cannot serve more lines than its bandwidth
        // allows. The queueing model keeps utilisation below 1 when it knows the threads' mix;
        // when the mix changed within the quantum (pages first touched by others, a new phase)
        // the quantum may have charged too little, so every thread that used a node waits
        // until the node could have served the quantum's lines.
        let nn = self.nn;
        bandwidth_guard(
            &self.q_lines,
            &self.q_nodes,
            &self.q_count,
            &mut self.clocks,
            &self.mem.machine.service_ps,
            qend - self.quantum_ps,
            &mut self.node_lines,
            &mut self.node_floor,
            &mut self.node_used,
        );
        // The nodes that served nothing add nothing (a zero to a sum, to the bit).
        for &h in &self.node_used {
            self.mem.served[h as usize] += self.node_lines[h as usize];
        }
        // The delay these lines were charged: the one solved before the quantum.
        if epoch.iteration > 0 {
            let wait = self.timing.wait_ps();
            for &h in &self.node_used {
                let h = h as usize;
                self.timed_wait[h] += self.node_lines[h] as f64 * wait[h];
                self.timed_served[h] += self.node_lines[h];
            }
        }
        // The bus sampler's bursts of this quantum reach the counters before the timer reads them.
        if let Some(d) = self.dynamic.as_mut() {
            d.bus_quantum(&self.thread_node);
        }
        self.timer_tick(epoch, qend);
        self.low_memory(epoch, qend);
        self.copy_load();
        if let Some(d) = self.dynamic.as_mut() {
            d.sampler_quantum(&self.q_lines, self.nn, self.quantum_ps, &self.cursor, epoch);
        }
        // Then fold the quantum's lines into the totals and the timing model (a thread that
        // fetched nothing adds nothing and keeps its mix), visiting only the nodes each thread
        // fetched from.
        let traffic = if epoch.iteration == 0 { &mut self.init } else { &mut self.timed };
        for t in 0..self.nt {
            let touched = &self.q_nodes[t * nn..t * nn + self.q_count[t] as usize];
            if touched.is_empty() {
                continue;
            }
            let lines = &mut self.q_lines[t * nn..(t + 1) * nn];
            let from = self.thread_node[t];
            let sums = &mut traffic.lines[from * nn..(from + 1) * nn];
            let mut all = 0u64;
            for &h in touched {
                let l = lines[h as usize];
                sums[h as usize] += l;
                all += l;
            }
            if let Some(it) = iteration_slot {
                self.iteration_traffic[it].0 += lines[from];
                self.iteration_traffic[it].1 += all;
                self.mem.done += all;
            }
            self.timing.observe_touched(t, lines, touched, all);
            for &h in touched {
                lines[h as usize] = 0;
            }
            self.q_count[t] = 0;
        }
    }

    /// The low-memory trigger, for a policy that acts on it: a node whose free pages fell
    /// below its low watermark (the policy's, [`DynamicPolicy::watermarks`]; by default the
    /// machine's `[watermarks]`) is given to the policy, and given again at every quantum
    /// boundary while it stays below its high watermark (kswapd reclaims until the node is
    /// balanced); it is re-armed once its free pages are back at the high watermark. The
    /// answer is applied as a timer tick's: stop-the-world, unless it runs in the background.
    fn low_memory(&mut self, epoch: &Epoch, qend: Ps) {
        // kswapd still busy with its last batch is not woken again.
        let Some(d) = self.dynamic.as_mut().filter(|d| !d.low.is_empty() && d.busy_until <= qend) else { return };
        let mut free = self.mem.pt.free_per_node();
        for n in 0..self.nn {
            if self.mem.machine.capacity_pages[n] == 0 {
                continue;
            }
            let Some(w) = d.policy.watermarks(self.mem.machine, n) else { continue };
            if free[n] >= w.high {
                d.low[n] = false;
                continue;
            }
            if !d.low[n] {
                if free[n] >= w.low {
                    continue;
                }
                d.low[n] = true;
                d.low_memory_events += 1;
            }
            let mut tick = d.policy.on_low_memory(&view(observed!(d), &self.mem, &free, qend, d.overhead_ps), NodeId(n as u8));
            d.decided(!tick.actions.is_empty());
            if tick.actions.is_empty() && tick.clear_referenced.is_empty() {
                continue;
            }
            let cost = d.apply_tick(&mut self.mem, &mut tick, qend, Trigger::LowMemory);
            for (t, clock) in self.clocks.iter_mut().enumerate() {
                if cost > 0 && self.cursor[t] < epoch.threads[t].txns.len() {
                    *clock = (*clock).max(qend).saturating_add(cost);
                }
            }
            free = self.mem.pt.free_per_node();
        }
    }

    /// The policy's timer, if it has one and it is due at `qend`: the policy decides, and every
    /// thread still running waits for its actions (stop the world); then the counters are aged
    /// or reset, pages revoked, and the next tick set, as the tick says.
    fn timer_tick(&mut self, epoch: &Epoch, qend: Ps) {
        let Some(d) = self.dynamic.as_mut() else { return };
        let Some((period, next)) = d.timer else { return };
        if qend < next {
            return;
        }
        let free = self.mem.pt.free_per_node();
        let mut tick = d.policy.on_timer(&view(observed!(d), &self.mem, &free, qend, d.overhead_ps));
        // The samples are the policy's once it has seen them.
        d.samples.clear();
        d.decided(!tick.actions.is_empty());
        let cost = d.apply_tick(&mut self.mem, &mut tick, qend, Trigger::Timer);
        for (t, clock) in self.clocks.iter_mut().enumerate() {
            if cost > 0 && self.cursor[t] < epoch.threads[t].txns.len() {
                *clock = (*clock).max(qend).saturating_add(cost);
            }
        }
        if tick.age {
            d.counters.age();
        }
        if tick.reset {
            d.counters.reset_all();
            d.replica_writes.fill(0);
        }
        if let Some(range) = tick.revoke {
            // Another loop would never see the revoked pages.
            debug_assert_eq!(d.hot, HotLoop::Faulting, "only a policy that observes hinting faults revokes access");
            if d.revoked.len() != self.mem.pt.homes().len() {
                d.revoked = vec![false; self.mem.pt.homes().len()];
            }
            let homes = self.mem.pt.homes();
            let machine = self.mem.machine;
            for p in range {
                let h = homes[p as usize];
                let scanned = h != UNTOUCHED && !(tick.revoke_skip_toptier && machine.is_toptier(NodeId(h)));
                if scanned && !d.revoked[p as usize] {
                    d.revoked[p as usize] = true;
                    d.revoked_count += 1;
                }
            }
        }
        let period = tick.next_period.unwrap_or(period).max(1);
        // A background thread's next pass starts when it has finished this one.
        let next = qend.saturating_add(period);
        d.timer = Some((period, if tick.background { next.max(d.busy_until) } else { next }));
    }
}

#[cfg(test)]
mod tests;
