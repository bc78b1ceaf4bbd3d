//! The event-driven line-level engine: CPUs, FLC/SLC, non-pipelined node controllers, a LogP
//! crossbar, a distributed directory with singly-linked sharing lists (Stanford DD), finite
//! input buffers and basic/reactive proxies. The message flows, state machines and invariants
//! are in `docs/protocol.md`; the engine implements exactly those.
//!
//! Time is in controller cycles. Events are ordered by (time, sequence number), so a run is a
//! pure function of its inputs. A CPU runs its operations inline while they hit in its caches
//! and while its clock is not ahead of the next pending event; a miss, a barrier or a lock
//! hand-off goes through the event queue.
//!
//! The engine's state is split by component, each a typed part that `state::Eng` owns (their
//! files import none of the engine's others): `msg` (messages and their slab), `caches`,
//! `dir` (the directory and per-line tables), `ctrl` (node controllers and their buffers),
//! `net` (the LogP network), `proxies`, `cpu` and `stats`. The handlers are `impl Eng` blocks
//! by component: `exec` (the CPUs' hit loop and general path), `serve` (controllers, queues and
//! sends), `home`, `remote` (the cache side), `proxy` and `invariants`. This file builds the
//! engine, runs its event loop and makes the result.

use super::caches::Caches;
use super::cpu::{Cpu, CpuState};
use super::ctrl::Node;
use super::dir::{Directory, LineMap};
use super::msg::{MsgSlab, EV_ARRIVE, EV_CPU, EV_ID, INV};
pub use super::msg::KIND_NAMES;
use super::net::Network;
use super::params::{BufferMode, ProtocolOptions, ProtocolParams};
use super::program::{LineOp, LineProgram, CHUNK};
use super::proxies::Proxies;
use super::queue::EventQueue;
use super::result::ProtocolResult;
use super::state::{cfg, Eng};
use super::stats::Stats;
use crate::error::SimError;
use numaplace_model::{Machine, PageTable, Placement, Region};
use std::collections::BTreeMap;

/// What an observer of a protocol run sees ([`run_observed`]): called after every global
/// barrier and every [`PROGRESS_EVENTS`] events.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProtocolProgress {
    /// Global barriers passed so far (initialisation's included).
    pub barriers: u64,
    /// Loads and stores retired so far.
    pub line_accesses: u64,
    /// Simulated time so far, ns.
    pub simulated_ns: f64,
}

/// A protocol run's observer is called at least every this many events (a program with few
/// barriers still reports, and can be stopped).
pub const PROGRESS_EVENTS: u64 = 1 << 20;

/// Runs `program` on the machine: one thread per node, pages homed by `placement` at their
/// first access after `EndInit` (operations before it run untimed, functionally).
///
/// `placement_name` is reported in the result.
///
/// # Errors
/// A program that does not fit the machine (thread count, regions, an access outside them),
/// a violated program contract, a failed value or invariant check, or a lack of progress (the
/// message names the stuck transactions).
pub fn run(
    machine: &Machine,
    params: &ProtocolParams,
    program: &mut dyn LineProgram,
    placement: &dyn Placement,
    placement_name: &str,
    opts: &ProtocolOptions,
) -> Result<ProtocolResult, SimError> {
    run_observed(machine, params, program, placement, placement_name, opts, &mut |_| true)
}

/// [`run`] with an observer, called after every global barrier and at least every
/// [`PROGRESS_EVENTS`] events; returning `false` stops the run ([`SimError::Stopped`]). It sees
/// the run and never changes it: a run it lets finish is byte-identical to [`run`]'s.
///
/// # Errors
/// As [`run`], and [`SimError::Stopped`].
pub fn run_observed(
    machine: &Machine,
    params: &ProtocolParams,
    program: &mut dyn LineProgram,
    placement: &dyn Placement,
    placement_name: &str,
    opts: &ProtocolOptions,
    observer: &mut dyn FnMut(&ProtocolProgress) -> bool,
) -> Result<ProtocolResult, SimError> {
    params.validate(machine)?;
    let n = machine.nodes();
    let name = program.name().to_string();
    if program.threads() != n {
        return Err(cfg(format!(
            "program {name}: {} threads, but the protocol engine runs one thread per node and machine '{}' has {n} nodes",
            program.threads(),
            machine.name()
        )));
    }
    let line = machine.raw.line_size;
    let page = machine.raw.page_size;
    // Regions: sorted, disjoint, page aligned.
    let mut regions = Vec::new();
    let mut proxy_region = Vec::new();
    let mut end = 0u64;
    for r in program.regions() {
        if r.base % page != 0 || r.base < end || r.bytes == 0 {
            return Err(cfg(format!(
                "program {name}: region '{}' at {:#x} ({} bytes) is not page aligned, empty, or overlaps the one before",
                r.name, r.base, r.bytes
            )));
        }
        end = r.base + r.bytes;
        let first_page = r.base / page;
        let pages = r.bytes.div_ceil(page);
        if first_page + pages > u32::MAX as u64 / 2 {
            return Err(cfg(format!("program {name}: region '{}' lies beyond the engine's address range", r.name)));
        }
        regions.push(Region { name: r.name.clone(), first_page: first_page as u32, pages: pages as u32 });
        proxy_region.push(r.proxy);
    }
    let total_pages = end.div_ceil(page);
    let total_lines = total_pages * (page / line);
    if total_lines > (1 << 28) {
        return Err(cfg(format!("program {name}: {total_lines} lines of address space, more than the engine's 2^28")));
    }
    machine.check_footprint(total_pages)?;
    let mut page_region = vec![INV; total_pages as usize];
    for (i, r) in regions.iter().enumerate() {
        for p in r.first_page..r.first_page + r.pages {
            page_region[p as usize] = i as u32;
        }
    }
    let lines = total_lines as usize;
    let flc_frames = (params.flc_bytes / line) as usize;
    let slc_frames = (params.slc_bytes / line) as usize;
    let limit = match opts.buffers {
        BufferMode::Infinite => None,
        BufferMode::Finite => Some(opts.buffer_limit.unwrap_or(params.input_buffer_reads).max(1) as usize),
    };
    let mut e = Eng {
        p: params.clone(),
        n,
        limit,
        hyst_limit: if opts.interface.hysteresis { limit } else { None },
        iface: opts.interface,
        invariants: opts.invariants,
        stall: opts.stall_cycles.max(1),
        lookahead: opts.lookahead_cycles,
        line_shift: line.trailing_zeros(),
        addr_end: total_lines * line,
        page_lines_shift: (page / line).trailing_zeros(),
        table: PageTable::new(total_pages as usize, machine),
        page_region,
        regions,
        placement,
        machine,
        caches: Caches::new(n, flc_frames, slc_frames),
        dir: Directory::new(lines),
        nodes: (0..n).map(|_| Node::default()).collect(),
        cpus: (0..n).map(|_| Cpu { ops: Vec::with_capacity(CHUNK), pos: 0, t: 0, state: CpuState::Run, finish: 0 }).collect(),
        net: Network::new(n, params.gap, opts.interface.bounce_gap),
        prox: Proxies::new(opts.proxies, n, params.proxy_clusters as usize, proxy_region),
        events: EventQueue::new(),
        slab: MsgSlab::default(),
        st: Stats { node_reads: vec![0; n], node_read_cycles: vec![0; n], ..Stats::default() },
        store_seq: 0,
        locks: LineMap::default(),
        barrier_count: 0,
        barriers: 0,
        now: 0,
        last_progress: 0,
        err: None,
        program_name: name.clone(),
    };
    let ran = e.init_phase(program).and_then(|()| {
        for c in 0..n {
            e.push_cpu(0, c);
        }
        e.main_loop(program, observer)
    });
    // A program that failed (a malformed trace) ends its threads early: its own error is the
    // cause of whatever the engine then saw.
    if let Some(err) = program.take_error() {
        return Err(err);
    }
    ran?;
    Ok(e.result(placement_name, opts))
}

/// [`run`] with the parameters from `machine`'s `[protocol]` table and the placement named by
/// `placement` (a registry spec such as `first-touch` or `round-robin`), built with `seed`.
///
/// # Errors
/// Those of [`ProtocolParams::from_machine`], of the placement registry, and of [`run`].
pub fn run_on(
    machine: &Machine,
    program: &mut dyn LineProgram,
    placement: &str,
    seed: u64,
    opts: &ProtocolOptions,
) -> Result<ProtocolResult, SimError> {
    let params = ProtocolParams::from_machine(machine)?;
    let spec = numaplace_model::Spec::parse(placement)?;
    let (pl, _) = numaplace_model::placement::build(&spec, machine, seed)?;
    run(machine, &params, program, pl.as_ref(), placement, opts)
}

impl Eng<'_> {
    /// Operations before `EndInit`, untimed: stores set memory; nothing is cached or homed.
    fn init_phase(&mut self, program: &mut dyn LineProgram) -> Result<(), SimError> {
        for c in 0..self.n {
            'thread: loop {
                while self.cpus[c].pos < self.cpus[c].ops.len() {
                    let op = self.cpus[c].ops[self.cpus[c].pos];
                    self.cpus[c].pos += 1;
                    match op {
                        LineOp::EndInit => break 'thread,
                        LineOp::Write(a) => {
                            let line = self.line_of(a);
                            let pg = (line >> self.page_lines_shift) as usize;
                            if a >= self.addr_end || self.page_region[pg] == INV {
                                return Err(cfg(format!(
                                    "program {}: thread {c} accessed address {a:#x}, outside every region",
                                    self.program_name
                                )));
                            }
                            self.hold(line).map_err(cfg)?;
                            self.store_seq += 1;
                            self.dir.latest[line as usize] = self.store_seq;
                            self.dir.lines[line as usize].mem_val = self.store_seq;
                        }
                        _ => {}
                    }
                }
                let cpu = &mut self.cpus[c];
                cpu.ops.clear();
                cpu.pos = 0;
                if !program.fill(c, &mut cpu.ops) {
                    return Err(cfg(format!("program {}: thread {c} finished without stating EndInit", self.program_name)));
                }
            }
        }
        Ok(())
    }

    fn main_loop(&mut self, program: &mut dyn LineProgram, observer: &mut dyn FnMut(&ProtocolProgress) -> bool) -> Result<(), SimError> {
        let (mut reported, mut next_report) = (0u64, PROGRESS_EVENTS);
        while let Some((t, p)) = self.events.pop() {
            self.now = t;
            self.st.events += 1;
            let id = p & EV_ID;
            match p & !EV_ID {
                EV_CPU => self.run_cpu(id as usize, program),
                EV_ARRIVE => {
                    let m = self.slab.take(id);
                    self.arrive(m)
                }
                _ => self.done(id as usize),
            }
            if self.err.is_some() {
                let e = self.err.take().unwrap_or_default();
                return Err(cfg(format!("protocol engine: {e}")));
            }
            if self.invariants {
                if let Err(e) = self.check_invariants() {
                    return Err(cfg(format!("protocol engine: invariant violated at cycle {}: {e}", self.now)));
                }
            }
            if self.barriers != reported || self.st.events >= next_report {
                reported = self.barriers;
                next_report = self.st.events + PROGRESS_EVENTS;
                let at = ProtocolProgress {
                    barriers: self.barriers,
                    line_accesses: self.st.line_accesses,
                    simulated_ns: self.now as f64 * self.p.cycle_ns,
                };
                if !observer(&at) {
                    return Err(SimError::Stopped);
                }
            }
            if self.now > self.last_progress + self.stall {
                return Err(cfg(format!(
                    "protocol engine: no operation retired for {} cycles (cycle {}); stuck: {}",
                    self.stall,
                    self.now,
                    self.stuck()
                )));
            }
        }
        if self.cpus.iter().any(|c| c.state != CpuState::Done) {
            return Err(cfg(format!("protocol engine: deadlock at cycle {} (no event pending); stuck: {}", self.now, self.stuck())));
        }
        Ok(())
    }

    fn result(&self, placement: &str, opts: &ProtocolOptions) -> ProtocolResult {
        let cycles = self.cpus.iter().map(|c| c.finish).max().unwrap_or(0);
        let st = &self.st;
        let mut by_type = BTreeMap::new();
        for (i, name) in KIND_NAMES.iter().enumerate() {
            by_type.insert(format!("msg_{name}"), st.msgs[i]);
        }
        let messages = st.msgs.iter().sum();
        let util: Vec<f64> =
            self.nodes.iter().map(|n| if cycles == 0 { 0.0 } else { n.busy_cycles as f64 / cycles as f64 }).collect();
        let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        ProtocolResult {
            program: self.program_name.clone(),
            placement: placement.to_string(),
            proxies: opts.proxies.name().to_string(),
            buffers: opts.buffers.name().to_string(),
            buffer_limit: self.limit.unwrap_or(0) as u32,
            nodes: self.n,
            cycles,
            total_time_ns: cycles as f64 * self.p.cycle_ns,
            messages,
            messages_by_type: by_type,
            remote_reads: st.hist.n,
            remote_read_mean_cycles: ratio(st.hist.sum, st.hist.n),
            remote_read_p50_cycles: st.hist.quantile(0.5),
            remote_read_p90_cycles: st.hist.quantile(0.9),
            remote_read_p99_cycles: st.hist.quantile(0.99),
            remote_read_max_cycles: st.hist.max,
            remote_read_hist: st.hist.buckets(),
            node_remote_reads: st.node_reads.clone(),
            node_remote_read_cycles: st.node_read_cycles.clone(),
            queued_messages: st.queued,
            queue_cycles_mean: ratio(st.queue_cycles, st.queued),
            queue_len_mean: ratio(st.queue_len_sum, st.queued),
            queue_len_max: st.queue_len_max,
            bounces: st.bounces,
            proxy_reads: st.proxy_reads,
            reactive_proxy_reads: st.reactive_proxy_reads,
            proxy_hits: st.proxy_hits,
            requests_combined: st.combined,
            line_accesses: st.line_accesses,
            flc_accesses: st.flc_accesses,
            flc_misses: st.flc_misses,
            flc_miss_rate: ratio(st.flc_misses, st.flc_accesses),
            slc_accesses: st.slc_accesses,
            slc_misses: st.slc_misses,
            slc_miss_rate: ratio(st.slc_misses, st.slc_accesses),
            lines_accessed: self.dir.touched.len() as u64,
            per_node_pages: self.table.pages_per_node().to_vec(),
            ctrl_util_mean: if util.is_empty() { 0.0 } else { util.iter().sum::<f64>() / util.len() as f64 },
            ctrl_util_max: util.iter().cloned().fold(0.0, f64::max),
            ctrl_util: util,
            loads_checked: st.loads_checked,
            events: st.events,
        }
    }
}
