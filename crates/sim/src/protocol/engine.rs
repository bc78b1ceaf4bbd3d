//! The event-driven line-level engine: CPUs, FLC/SLC, non-pipelined node controllers, a LogP
//! crossbar, a distributed directory with singly-linked sharing lists (Stanford DD), finite
//! input buffers and basic/reactive proxies. The message flows, state machines and invariants
//! are in `docs/protocol.md`; this module implements exactly those.
//!
//! Time is in controller cycles. Events are ordered by (time, sequence number), so a run is a
//! pure function of its inputs. A CPU runs its operations inline while they hit in its caches
//! and while its clock is not ahead of the next pending event; a miss, a barrier or a lock
//! hand-off goes through the event queue.

use super::params::{BufferMode, InterfaceModel, ProtocolOptions, ProtocolParams, ProxyMode};
use super::program::{LineOp, LineProgram, CHUNK};
use super::lines::{Lines, CHUNK_LINES, MAX_LINES};
use super::list::SharingList;
use super::result::{Hist, ProtocolResult};
use crate::error::SimError;
use numaplace_model::pagetable::UNTOUCHED;
use numaplace_model::{Machine, ModelError, PageNo, PageTable, PlaceRequest, Placement, Region};
use super::queue::EventQueue;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

const INV: u32 = u32::MAX;
const NONE16: u16 = u16::MAX;

/// SLC line states.
const ST_I: u8 = 0;
const ST_S: u8 = 1;
const ST_M: u8 = 2;

/// An SLC frame's tag word: the line it holds `<< 2 | state`; an empty frame is [`FR_INV`],
/// zero, which reads as line 0 in state I: every test of a frame asks for a valid state too
/// (`valid_at`, the fast path's), so an empty frame never hits, and the machine's frames start
/// as zeroed memory the host maps only where a frame is used. Tags and states share one word
/// so that the hit check of the CPU's fast path reads 4 bytes per frame; the frames' values
/// (for the value checker) are kept apart in `slc_val`.
#[inline]
const fn frame_word(line: u32, st: u8) -> u32 {
    line << 2 | st as u32
}
const FR_INV: u32 = frame_word(0, ST_I);

/// Message types. The order is the order of [`KIND_NAMES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum K {
    ReadReq,
    WriteReq,
    UpgradeReq,
    ProxyRead,
    Data,
    DataEx,
    UpgradeAck,
    ProxyData,
    FwdRead,
    FwdWrite,
    Inval,
    InvalAck,
    SharingWb,
    OwnerAck,
    WriteBack,
    WbAck,
    Replace,
    BarrierArrive,
    BarrierRelease,
    /// A bounced read request (counted as `bounce`; the message keeps its own kind).
    Bounce,
    /// CPU to its own controller (never on the network).
    CpuMiss,
    CpuBarrier,
}

/// Names of the message types as reported (`msg_<name>`), in [`K`] order.
pub const KIND_NAMES: [&str; 20] = [
    "read_req",
    "write_req",
    "upgrade_req",
    "proxy_read",
    "data",
    "data_ex",
    "upgrade_ack",
    "proxy_data",
    "fwd_read",
    "fwd_write",
    "inval",
    "inval_ack",
    "sharing_wb",
    "owner_ack",
    "write_back",
    "wb_ack",
    "replace",
    "barrier_arrive",
    "barrier_release",
    "bounce",
];

impl K {
    /// Carries a line of data (LogP long message).
    fn long(self) -> bool {
        matches!(self, K::Data | K::DataEx | K::ProxyData | K::SharingWb | K::WriteBack)
    }
}

const F_BOUNCED: u8 = 1;
/// A read request a proxy sends on its own behalf (to fill its cache and serve a chain).
const F_FETCH: u8 = 2;
/// SharingWb from an owner that answered from its write-back buffer (it keeps no copy).
const F_NOT_RETAINED: u8 = 4;
/// CpuMiss for a store.
const F_WRITE: u8 = 8;
/// Its receipt slot at the destination's interface is taken (receive gap): it is received
/// when this arrival event fires.
const F_RECEIVED: u8 = 16;

#[derive(Clone, Copy, Debug)]
struct Msg {
    kind: K,
    flags: u8,
    src: u16,
    dst: u16,
    /// The node the transaction is for (the requester).
    req: u16,
    line: u32,
    tid: u32,
    /// Proxy chain slab index, or `INV`.
    chain: u32,
    val: u64,
    /// Arrival time at `dst`.
    at: u64,
}

impl Msg {
    fn new(kind: K, dst: usize, req: usize, line: u32) -> Msg {
        Msg { kind, flags: 0, src: 0, dst: dst as u16, req: req as u16, line, tid: 0, chain: INV, val: 0, at: 0 }
    }
}

/// A queued event's payload (the queue keeps its time; `queue::EventQueue`): bits 30-31: 0
/// CPU, 1 message arrival (slab index), 2 controller done; bits 0-29: the id. Small, so the
/// queue moves little; a message waits in the slab.
const EV_CPU: u32 = 0;
const EV_ARRIVE: u32 = 1 << 30;
const EV_DONE: u32 = 2 << 30;
const EV_ID: u32 = (1 << 30) - 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PKind {
    Read,
    Write,
    Upgrade,
}

/// An outstanding fetch at a node (an MSHR): the CPU's miss, or a proxy's fetch.
#[derive(Clone, Debug)]
struct Pend {
    line: u32,
    kind: PKind,
    /// The CPU's operation is performed when the data arrives.
    cpu: bool,
    /// The CPU waits for this fill, then re-executes its operation.
    cpu_retry: bool,
    /// Proxy clients waiting, in arrival order (served last first).
    chain: Vec<u16>,
    /// First request sent, for the response time; `u64::MAX` when not a remote read.
    sent: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TKind {
    Read,
    Write { need_data: bool },
    Replace,
}

/// A transaction in progress at a home; requests for the line wait behind it.
#[derive(Debug)]
struct Txn {
    tid: u32,
    kind: TKind,
    req: u16,
    waiting: VecDeque<Msg>,
}

#[derive(Default)]
struct Node {
    queue: VecDeque<Msg>,
    /// The controller is busy until then (non-pipelined).
    busy_until: u64,
    /// A `Done` event is scheduled (at `busy_until`) to serve the queue.
    done_pending: bool,
    busy_cycles: u64,
    last_inject: Option<u64>,
    /// The network interface's last receipt (receive gap).
    last_receive: Option<u64>,
    /// Injection times taken, sorted (bounces that cost a slot: the controller's sends and the
    /// send-backs share the interface, one every g cycles).
    inject_slots: Vec<u64>,
    /// Read requests bounce (hysteresis): set when the queue length rises above the limit,
    /// cleared when it falls below it.
    bouncing: bool,
    pend: Vec<Pend>,
    /// Written-back modified lines awaiting their WbAck: (line, value).
    wb: Vec<(u32, u64)>,
    /// Replaced shared lines whose sharing-list entry is still linked.
    leaving: Vec<u32>,
    /// Interventions (Inval, Fwd) that arrived for a line whose fill is in flight.
    deferred: Vec<Msg>,
    slc_free: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CpuState {
    Run,
    Wait,
    Done,
}

/// Why [`Eng::hits`] stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Turn {
    /// The chunk of operations is used up.
    Refill,
    /// The CPU's clock passed the run-ahead window: it waits for the next event.
    Yield,
    /// The next operation needs the general path.
    Slow,
}

struct Cpu {
    ops: Vec<LineOp>,
    pos: usize,
    t: u64,
    state: CpuState,
    finish: u64,
}

/// Controller service context: the node, the start and the work so far.
struct Cx {
    node: usize,
    s: u64,
    w: u64,
}

impl Cx {
    fn now(&self) -> u64 {
        self.s + self.w
    }
}

#[derive(Default)]
struct Stats {
    msgs: [u64; 20],
    hist: Hist,
    node_reads: Vec<u64>,
    node_read_cycles: Vec<u64>,
    queued: u64,
    queue_cycles: u64,
    queue_len_sum: u64,
    queue_len_max: u64,
    bounces: u64,
    proxy_reads: u64,
    reactive_proxy_reads: u64,
    proxy_hits: u64,
    combined: u64,
    line_accesses: u64,
    flc_accesses: u64,
    flc_misses: u64,
    slc_accesses: u64,
    slc_misses: u64,
    loads_checked: u64,
    events: u64,
}

struct Eng<'a> {
    p: ProtocolParams,
    n: usize,
    limit: Option<usize>,
    iface: InterfaceModel,
    proxies: ProxyMode,
    clusters: usize,
    invariants: bool,
    stall: u64,
    line_shift: u32,
    /// The end of the address space the regions span (every address below it has a line
    /// number below 2^28).
    addr_end: u64,
    page_lines_shift: u32,
    flc_frames: usize,
    slc_frames: usize,
    flc: Vec<u32>,
    /// SLC frames' tag words ([`frame_word`]) of every node, node-major.
    slc_tag: Vec<u32>,
    /// SLC frames' values (the store each holds, for the value checker), as `slc_tag`.
    slc_val: Vec<u64>,
    nodes: Vec<Node>,
    cpus: Vec<Cpu>,
    /// The per-line tables, allocated by chunk when a line is first touched ([`Eng::hold`]).
    dir_list: Lines<SharingList>,
    dir_mod: Lines<bool>,
    mem_val: Lines<u64>,
    latest: Lines<u64>,
    accessed: Lines<bool>,
    /// Chunks of the per-line tables allocated (at most `MAX_LINES / CHUNK_LINES`).
    chunks_held: u64,
    touched: Vec<u32>,
    /// Transactions in progress, by line (few at a time: a small table the host keeps cached).
    busy: LineMap<Txn>,
    events: EventQueue,
    slab: Vec<Msg>,
    free_slab: Vec<u32>,
    lookahead: u64,
    now: u64,
    chan: Vec<u64>,
    table: PageTable,
    page_region: Vec<u32>,
    regions: Vec<Region>,
    proxy_region: Vec<bool>,
    placement: &'a dyn Placement,
    machine: &'a Machine,
    chains: Vec<Vec<u16>>,
    free_chains: Vec<u32>,
    next_tid: u32,
    store_seq: u64,
    locks: LineMap<(u16, VecDeque<u16>)>,
    barrier_count: usize,
    /// Global barriers released so far.
    barriers: u64,
    last_progress: u64,
    st: Stats,
    err: Option<String>,
    program_name: String,
}

/// A map keyed by line number. Nothing iterates one except `stuck`, which sorts, so the
/// hash order never reaches a result.
type LineMap<V> = HashMap<u32, V, BuildHasherDefault<LineHasher>>;

/// Hashes a line number by one multiplication (Fibonacci hashing): the keys are engine line
/// numbers, not input an adversary picks, and a few dozen are live at a time.
#[derive(Default)]
struct LineHasher(u64);

impl Hasher for LineHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, x: u32) {
        self.0 = u64::from(x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

fn cfg(msg: String) -> SimError {
    SimError::Model(ModelError::Config(msg))
}

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
        iface: opts.interface,
        proxies: opts.proxies,
        clusters: params.proxy_clusters as usize,
        invariants: opts.invariants,
        stall: opts.stall_cycles.max(1),
        line_shift: line.trailing_zeros(),
        addr_end: total_lines * line,
        page_lines_shift: (page / line).trailing_zeros(),
        flc_frames,
        slc_frames,
        flc: vec![INV; n * flc_frames],
        slc_tag: vec![FR_INV; n * slc_frames],
        slc_val: vec![0; n * slc_frames],
        nodes: (0..n).map(|_| Node::default()).collect(),
        cpus: (0..n).map(|_| Cpu { ops: Vec::with_capacity(CHUNK), pos: 0, t: 0, state: CpuState::Run, finish: 0 }).collect(),
        dir_list: Lines::new(lines),
        dir_mod: Lines::new(lines),
        mem_val: Lines::new(lines),
        latest: Lines::new(lines),
        accessed: Lines::new(lines),
        chunks_held: 0,
        touched: Vec::new(),
        busy: LineMap::default(),
        events: EventQueue::new(),
        slab: Vec::new(),
        free_slab: Vec::new(),
        lookahead: opts.lookahead_cycles,
        now: 0,
        chan: vec![0; n * n],
        table: PageTable::new(total_pages as usize, machine),
        page_region,
        regions,
        proxy_region,
        placement,
        machine,
        chains: Vec::new(),
        free_chains: Vec::new(),
        next_tid: 1,
        store_seq: 0,
        locks: LineMap::default(),
        barrier_count: 0,
        barriers: 0,
        last_progress: 0,
        st: Stats { node_reads: vec![0; n], node_read_cycles: vec![0; n], ..Stats::default() },
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

impl<'a> Eng<'a> {
    /// Schedules CPU `c` to run at `t`.
    #[inline]
    fn push_cpu(&mut self, t: u64, c: usize) {
        self.events.push(t, EV_CPU | c as u32);
    }

    /// Schedules controller `d` to serve its queue at `t` (the end of its current service).
    #[inline]
    fn push_done(&mut self, t: u64, d: usize) {
        self.events.push(t, EV_DONE | d as u32);
    }

    /// Schedules message `m`'s arrival at its destination at `t`; it waits in the slab.
    #[inline]
    fn push_msg(&mut self, t: u64, m: Msg) {
        let i = match self.free_slab.pop() {
            Some(i) => {
                self.slab[i as usize] = m;
                i
            }
            None => {
                self.slab.push(m);
                (self.slab.len() - 1) as u32
            }
        };
        debug_assert!(i <= EV_ID);
        self.events.push(t, EV_ARRIVE | i);
    }

    fn fail(&mut self, msg: String) {
        if self.err.is_none() {
            self.err = Some(msg);
        }
    }

    #[inline]
    fn line_of(&self, a: u64) -> u32 {
        (a >> self.line_shift) as u32
    }

    #[inline]
    fn home_of(&self, line: u32) -> usize {
        self.table.homes()[(line >> self.page_lines_shift) as usize] as usize
    }

    fn proxy_of(&self, line: u32, node: usize) -> usize {
        let (n, k) = (self.n, self.clusters);
        let c = (0..k).find(|&c| node < (c + 1) * n / k).unwrap_or(k - 1);
        let (lo, hi) = (c * n / k, (c + 1) * n / k);
        lo + line as usize % (hi - lo)
    }

    fn is_proxy_line(&self, line: u32) -> bool {
        let r = self.page_region[(line >> self.page_lines_shift) as usize];
        r != INV && self.proxy_region[r as usize]
    }

    /// `a`'s line, or `None` (the run fails) when `a` lies past the regions' end: the bound
    /// comes first because `line_of` truncates, and an address beyond it could name a line
    /// inside.
    #[inline]
    fn bounded_line(&mut self, c: usize, a: u64) -> Option<u32> {
        if a >= self.addr_end {
            self.outside(c, a);
            return None;
        }
        Some(self.line_of(a))
    }

    fn outside(&mut self, c: usize, a: u64) {
        self.fail(format!("program {}: thread {c} accessed address {a:#x}, outside every region", self.program_name));
    }

    /// Makes the per-line tables hold `line` (its chunk allocated when a line of it is first
    /// touched), within [`MAX_LINES`]; the error is one line naming the bound.
    #[inline]
    fn hold(&mut self, line: u32) -> Result<(), String> {
        if self.accessed.has(line as usize) {
            return Ok(());
        }
        self.hold_chunk(line)
    }

    #[cold]
    #[inline(never)]
    fn hold_chunk(&mut self, line: u32) -> Result<(), String> {
        if (self.chunks_held + 1) * CHUNK_LINES as u64 > MAX_LINES {
            let bytes = MAX_LINES << self.line_shift;
            return Err(format!(
                "program {}: the lines it touches need more than the protocol engine's bound of {MAX_LINES} lines of state ({} MiB of memory at {}-byte lines, held in chunks of {CHUNK_LINES} lines)",
                self.program_name,
                bytes >> 20,
                1u64 << self.line_shift
            ));
        }
        self.chunks_held += 1;
        let li = line as usize;
        self.dir_list.alloc(li);
        self.dir_mod.alloc(li);
        self.mem_val.alloc(li);
        self.latest.alloc(li);
        self.accessed.alloc(li);
        Ok(())
    }

    /// Checks that `line` lies in a region and homes its page on first touch by `node`.
    fn touch(&mut self, c: usize, a: u64) -> Option<u32> {
        let line = self.bounded_line(c, a)?;
        let pg = (line >> self.page_lines_shift) as usize;
        if self.page_region[pg] == INV {
            self.outside(c, a);
            return None;
        }
        if self.table.homes()[pg] == UNTOUCHED {
            let region = &self.regions[self.page_region[pg] as usize];
            let req = PlaceRequest { page: PageNo(pg as u32), region, toucher: numaplace_model::NodeId(c as u8) };
            let want = self.placement.place(&req);
            self.table.place(PageNo(pg as u32), want, self.machine);
        }
        if let Err(e) = self.hold(line) {
            self.fail(e);
            return None;
        }
        if !self.accessed[line as usize] {
            self.accessed[line as usize] = true;
            self.touched.push(line);
        }
        Some(line)
    }

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
                            self.latest[line as usize] = self.store_seq;
                            self.mem_val[line as usize] = self.store_seq;
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
                    let m = self.slab[id as usize];
                    self.free_slab.push(id);
                    self.arrive(m)
                }
                _ => self.done(id as usize),
            }
            if let Some(e) = self.err.take() {
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

    /// The stuck transactions and threads, for the lack-of-progress error.
    fn stuck(&self) -> String {
        let mut parts = Vec::new();
        let mut busy: Vec<_> = self.busy.iter().collect();
        busy.sort_unstable_by_key(|(line, _)| **line);
        for (line, t) in busy {
            parts.push(format!(
                "home {} line {line:#x}: {:?} for node {} ({} waiting)",
                self.home_of(*line),
                t.kind,
                t.req,
                t.waiting.len()
            ));
        }
        for (i, nd) in self.nodes.iter().enumerate() {
            for p in &nd.pend {
                parts.push(format!("node {i} line {:#x}: {:?} miss outstanding (cpu {}, chain {})", p.line, p.kind, p.cpu, p.chain.len()));
            }
        }
        for (i, c) in self.cpus.iter().enumerate() {
            if c.state == CpuState::Wait {
                let op = c.ops.get(c.pos).map(|o| format!("{o:?}")).unwrap_or_default();
                parts.push(format!("cpu {i} waiting at {op}"));
            }
        }
        if parts.len() > 12 {
            let more = parts.len() - 12;
            parts.truncate(12);
            parts.push(format!("... and {more} more"));
        }
        parts.join("; ")
    }

    // ------------------------------------------------------------------ CPUs

    /// The CPU's fast path: runs `c`'s operations while they are computes and cache hits, with
    /// the engine's state in locals, and stops at the first operation that needs more (a miss,
    /// a barrier, a lock, an address to check: [`Turn::Slow`], the operation not started), at
    /// the end of the chunk ([`Turn::Refill`]) or when the CPU's clock passes the run-ahead
    /// window ([`Turn::Yield`]). It does exactly what the general path in [`Eng::run_cpu`] does
    /// for those operations, in the same order, so results are the same; no event is pushed
    /// while it runs, so the window's end is computed once.
    #[inline(never)]
    fn hits(&mut self, c: usize) -> Turn {
        let limit = match self.events.peek_t() {
            Some(next) => next + self.lookahead,
            None => u64::MAX,
        };
        let (fmask, smask) = (self.flc_frames - 1, self.slc_frames - 1);
        let p = &self.p;
        let slc_hit = p.acquire_slc_bus + p.slc_lookup + p.slc_line_access + p.release_slc_bus;
        let slc_probe = p.acquire_slc_bus + p.slc_lookup + p.release_slc_bus;
        let (shift, end) = (self.line_shift, self.addr_end);
        let flc = &mut self.flc[c * self.flc_frames..][..fmask + 1];
        let tags = &self.slc_tag[c * self.slc_frames..][..smask + 1];
        let vals = &mut self.slc_val[c * self.slc_frames..][..smask + 1];
        // A line a cache holds was touched, so its chunk of `latest` is allocated; the frame
        // counts are powers of two.
        let latest = &mut self.latest;
        let cpu = &mut self.cpus[c];
        let pos0 = cpu.pos;
        let ops = &cpu.ops[pos0..];
        let mut t = cpu.t;
        let mut free = self.nodes[c].slc_free;
        let seq0 = self.store_seq;
        let mut store_seq = seq0;
        // Loads retired, and of them FLC misses; the stores are `store_seq - seq0`.
        let (mut loads, mut flc_misses) = (0u64, 0u64);
        let mut k = 0;
        let turn = loop {
            let Some(&op) = ops.get(k) else {
                break Turn::Refill;
            };
            if t > limit {
                break Turn::Yield;
            }
            match op {
                LineOp::Compute(n) => t += n as u64,
                LineOp::Read(a) => {
                    if a >= end {
                        break Turn::Slow;
                    }
                    let line = (a >> shift) as u32;
                    let (si, fi, li) = (line as usize & smask, line as usize & fmask, line as usize);
                    // SAFETY: `si` and `fi` are masked to the frame counts, which are the
                    // lengths of `tags`, `vals` and `flc`.
                    unsafe {
                        if *flc.get_unchecked(fi) == line {
                            t += 1;
                        } else {
                            let w = *tags.get_unchecked(si);
                            if w >> 2 != line || w & 3 == ST_I as u32 {
                                break Turn::Slow;
                            }
                            flc_misses += 1;
                            t = t.max(free) + slc_hit;
                            free = t;
                            *flc.get_unchecked_mut(fi) = line;
                        }
                        if *vals.get_unchecked(si) != latest[li] {
                            // The general path counts it, and reports the mismatch.
                            break Turn::Slow;
                        }
                    }
                    loads += 1;
                }
                LineOp::Write(a) => {
                    if a >= end {
                        break Turn::Slow;
                    }
                    let line = (a >> shift) as u32;
                    let (si, li) = (line as usize & smask, line as usize);
                    // SAFETY: as for a read.
                    unsafe {
                        if *tags.get_unchecked(si) != frame_word(line, ST_M) {
                            break Turn::Slow;
                        }
                        let start = t.max(free);
                        free = start + slc_probe;
                        t = start + 1;
                        store_seq += 1;
                        *vals.get_unchecked_mut(si) = store_seq;
                        latest[li] = store_seq;
                    }
                }
                _ => break Turn::Slow,
            }
            k += 1;
        };
        cpu.pos = pos0 + k;
        cpu.t = t;
        self.nodes[c].slc_free = free;
        self.store_seq = store_seq;
        let stores = store_seq - seq0;
        let st = &mut self.st;
        st.flc_accesses += loads;
        st.flc_misses += flc_misses;
        st.slc_accesses += flc_misses + stores;
        st.loads_checked += loads;
        st.line_accesses += loads + stores;
        if k > 0 {
            // The clock of the last retired operation (a `Slow` stop changes it only on a
            // failed value check, which ends the run).
            self.last_progress = self.last_progress.max(t).max(self.now);
        }
        turn
    }

    fn run_cpu(&mut self, c: usize, program: &mut dyn LineProgram) {
        {
            let cpu = &mut self.cpus[c];
            if cpu.state == CpuState::Done {
                return;
            }
            cpu.t = cpu.t.max(self.now);
            cpu.state = CpuState::Run;
        }
        let flc_base = c * self.flc_frames;
        let slc_base = c * self.slc_frames;
        let fmask = self.flc_frames - 1;
        let smask = self.slc_frames - 1;
        let slc_hit = self.p.acquire_slc_bus + self.p.slc_lookup + self.p.slc_line_access + self.p.release_slc_bus;
        let slc_probe = self.p.acquire_slc_bus + self.p.slc_lookup + self.p.release_slc_bus;
        loop {
            if self.cpus[c].pos == self.cpus[c].ops.len() {
                let cpu = &mut self.cpus[c];
                cpu.ops.clear();
                cpu.pos = 0;
                if !program.fill(c, &mut cpu.ops) || cpu.ops.is_empty() {
                    cpu.state = CpuState::Done;
                    cpu.finish = cpu.t;
                    self.last_progress = self.last_progress.max(cpu.t);
                    return;
                }
            }
            match self.hits(c) {
                Turn::Refill => continue,
                Turn::Yield => {
                    let t = self.cpus[c].t;
                    self.push_cpu(t, c);
                    return;
                }
                Turn::Slow => {}
            }
            let t = self.cpus[c].t;
            let op = self.cpus[c].ops[self.cpus[c].pos];
            match op {
                LineOp::Compute(k) => {
                    self.cpus[c].t += k as u64;
                    self.retire(c);
                }
                LineOp::Read(a) => {
                    // A line a cache holds was touched before (its page homed, its region
                    // checked), so only a miss needs `touch`; the bound keeps `line_of` exact.
                    let Some(line) = self.bounded_line(c, a) else { return };
                    self.st.flc_accesses += 1;
                    let fi = flc_base + (line as usize & fmask);
                    let si = slc_base + (line as usize & smask);
                    if self.flc[fi] == line {
                        self.cpus[c].t += 1;
                    } else {
                        self.st.flc_misses += 1;
                        self.st.slc_accesses += 1;
                        let start = t.max(self.nodes[c].slc_free);
                        if self.ftag(si) == line && self.fst(si) != ST_I {
                            self.cpus[c].t = start + slc_hit;
                            self.nodes[c].slc_free = start + slc_hit;
                            self.flc[fi] = line;
                        } else {
                            if self.touch(c, a).is_none() {
                                return;
                            }
                            self.st.slc_misses += 1;
                            self.nodes[c].slc_free = start + slc_probe;
                            self.cpu_miss(c, line, false, start + slc_probe);
                            return;
                        }
                    }
                    if !self.load(c, line) {
                        return;
                    }
                    self.retire_access(c);
                }
                LineOp::Write(a) | LineOp::Lock(a) | LineOp::Unlock(a) => {
                    let Some(line) = self.bounded_line(c, a) else { return };
                    let si = slc_base + (line as usize & smask);
                    let hit = self.ftag(si) == line && self.fst(si) == ST_M;
                    if !hit && self.touch(c, a).is_none() {
                        return;
                    }
                    self.st.slc_accesses += 1;
                    let start = t.max(self.nodes[c].slc_free);
                    if hit {
                        // Write-through into the SLC: the CPU goes on, the SLC bus is held for
                        // the probe (choice: a one-entry write buffer).
                        self.nodes[c].slc_free = start + slc_probe;
                        self.cpus[c].t = start + 1;
                        self.store(c, line);
                        if !self.after_store(c, op, line) {
                            return;
                        }
                    } else {
                        self.st.slc_misses += 1;
                        self.nodes[c].slc_free = start + slc_probe;
                        self.cpu_miss(c, line, true, start + slc_probe);
                        return;
                    }
                }
                LineOp::Barrier => {
                    let cpu = &mut self.cpus[c];
                    cpu.state = CpuState::Wait;
                    let t = cpu.t;
                    let m = Msg::new(K::CpuBarrier, c, c, 0);
                    self.push_local(t, c, m);
                    return;
                }
                LineOp::EndInit => {
                    self.fail(format!("program {}: thread {c} states EndInit twice", self.program_name));
                    return;
                }
            }
        }
    }

    /// Retires the CPU's current load or store.
    #[inline]
    fn retire_access(&mut self, c: usize) {
        self.st.line_accesses += 1;
        self.retire(c);
    }

    /// Retires the CPU's current operation (a load or store through [`Eng::retire_access`]).
    #[inline]
    fn retire(&mut self, c: usize) {
        let cpu = &mut self.cpus[c];
        cpu.pos += 1;
        if cpu.t > self.last_progress {
            self.last_progress = cpu.t;
        }
        if self.now > self.last_progress {
            self.last_progress = self.now;
        }
    }

    /// A load performs: its value must be the latest store's.
    #[inline]
    fn load(&mut self, c: usize, line: u32) -> bool {
        let si = c * self.slc_frames + (line as usize & (self.slc_frames - 1));
        self.st.loads_checked += 1;
        if self.slc_val[si] != self.latest[line as usize] {
            self.load_mismatch(c, line, si);
            return false;
        }
        true
    }

    #[cold]
    #[inline(never)]
    fn load_mismatch(&mut self, c: usize, line: u32, si: usize) {
        self.fail(format!(
            "value check: node {c} read line {line:#x} = store #{}, but the latest store is #{}",
            self.slc_val[si], self.latest[line as usize]
        ));
    }

    /// A store performs (the node holds the line modified).
    #[inline]
    fn store(&mut self, c: usize, line: u32) {
        let si = c * self.slc_frames + (line as usize & (self.slc_frames - 1));
        debug_assert!(self.ftag(si) == line && self.fst(si) == ST_M);
        self.store_seq += 1;
        self.slc_val[si] = self.store_seq;
        self.latest[line as usize] = self.store_seq;
    }

    /// After a store performed for `op`: lock semantics; retires the op unless the thread
    /// parks. Returns whether the CPU goes on.
    #[inline]
    fn after_store(&mut self, c: usize, op: LineOp, line: u32) -> bool {
        if let LineOp::Write(_) = op {
            self.retire_access(c);
            return true;
        }
        self.after_lock_op(c, op, line)
    }

    /// [`Eng::after_store`] for a `Lock` or `Unlock`.
    #[inline(never)]
    fn after_lock_op(&mut self, c: usize, op: LineOp, line: u32) -> bool {
        let t = self.cpus[c].t;
        match op {
            LineOp::Lock(_) => {
                let e = self.locks.entry(line).or_insert((NONE16, VecDeque::new()));
                if e.0 == NONE16 {
                    e.0 = c as u16;
                } else {
                    e.1.push_back(c as u16);
                    self.cpus[c].state = CpuState::Wait;
                    return false;
                }
            }
            LineOp::Unlock(_) => {
                let woke = match self.locks.get_mut(&line) {
                    Some(e) if e.0 == c as u16 => {
                        e.0 = NONE16;
                        e.1.pop_front()
                    }
                    _ => {
                        self.fail(format!("program {}: thread {c} unlocks line {line:#x}, which it does not hold", self.program_name));
                        return false;
                    }
                };
                if let Some(w) = woke {
                    self.push_cpu(t.max(self.now), w as usize);
                }
            }
            _ => {}
        }
        self.retire_access(c);
        true
    }

    /// The CPU's SLC missed: the request goes to its controller at `t`.
    fn cpu_miss(&mut self, c: usize, line: u32, write: bool, t: u64) {
        let cpu = &mut self.cpus[c];
        cpu.t = t;
        cpu.state = CpuState::Wait;
        let mut m = Msg::new(K::CpuMiss, c, c, line);
        if write {
            m.flags |= F_WRITE;
        }
        self.push_local(t, c, m);
    }

    fn push_local(&mut self, t: u64, node: usize, mut m: Msg) {
        m.src = node as u16;
        m.dst = node as u16;
        m.at = t;
        self.push_msg(t, m);
    }

    /// The CPU's operation completes at the fill: performs it, then resumes the CPU at `t`.
    fn cpu_complete(&mut self, c: usize, line: u32, t: u64) {
        self.cpus[c].t = t;
        let op = self.cpus[c].ops[self.cpus[c].pos];
        match op {
            LineOp::Read(_) => {
                let fi = c * self.flc_frames + (line as usize & (self.flc_frames - 1));
                self.flc[fi] = line;
                if !self.load(c, line) {
                    return;
                }
                self.retire_access(c);
            }
            _ => {
                self.store(c, line);
                if !self.after_store(c, op, line) {
                    return;
                }
            }
        }
        self.push_cpu(t, c);
    }

    // ------------------------------------------------------------------ controllers

    fn arrive(&mut self, mut m: Msg) {
        let d = m.dst as usize;
        if self.iface.receive_gap && m.src != m.dst {
            // LogP g on receives (seed §1.4): the interface takes in one message every g
            // cycles, in arrival order; a read it turns away is received first.
            if m.flags & F_RECEIVED == 0 {
                let now = self.now;
                let nd = &mut self.nodes[d];
                let r = nd.last_receive.map_or(now, |l| now.max(l + self.p.gap));
                nd.last_receive = Some(r);
                if r > now {
                    m.flags |= F_RECEIVED;
                    m.at = r;
                    self.push_msg(r, m);
                    return;
                }
            }
            m.flags &= !F_RECEIVED;
        }
        if let Some(limit) = self.limit {
            let read = matches!(m.kind, K::ReadReq | K::ProxyRead);
            let full = if self.iface.hysteresis { self.nodes[d].bouncing } else { self.nodes[d].queue.len() >= limit };
            if read && m.flags & F_BOUNCED == 0 && m.src != m.dst && full {
                // Bounced straight back by the network interface (seed §1.4).
                self.st.bounces += 1;
                self.st.msgs[K::Bounce as usize] += 1;
                m.flags |= F_BOUNCED;
                let s = m.src as usize;
                m.src = d as u16;
                m.dst = s as u16;
                let out = if self.iface.bounce_gap { self.inject_slot(d, self.now) } else { self.now };
                let ch = &mut self.chan[d * self.n + s];
                let at = (out + self.p.latency_short).max(*ch);
                *ch = at;
                m.at = at;
                self.push_msg(at, m);
                return;
            }
        }
        self.enqueue(d, m);
    }

    /// Takes `m` into `d`'s input queue; the controller serves it now if idle, else a `Done`
    /// event at the end of the current service will.
    fn enqueue(&mut self, d: usize, m: Msg) {
        let now = self.now;
        let nd = &self.nodes[d];
        if !nd.done_pending && now >= nd.busy_until && nd.queue.is_empty() {
            // An idle controller takes it at once: what queueing it and serving the queue's
            // head does, without the queue (an empty queue is below any limit, so the
            // hysteresis state is already clear and stays so).
            self.st.queued += 1;
            self.st.queue_len_sum += 1;
            self.st.queue_len_max = self.st.queue_len_max.max(1);
            self.serve_from(d, Some(m));
            return;
        }
        self.nodes[d].queue.push_back(m);
        self.note_len(d);
        let nd = &mut self.nodes[d];
        let in_service = now < nd.busy_until;
        let len = nd.queue.len() as u64 + u64::from(in_service);
        self.st.queued += 1;
        self.st.queue_len_sum += len;
        self.st.queue_len_max = self.st.queue_len_max.max(len);
        if !nd.done_pending {
            if in_service {
                nd.done_pending = true;
                let t = nd.busy_until;
                self.push_done(t, d);
            } else {
                self.serve(d);
            }
        }
    }

    fn done(&mut self, d: usize) {
        self.nodes[d].done_pending = false;
        self.serve(d);
    }

    /// Serves the messages at the head of `d`'s queue (the controller is idle at `now`): the
    /// first now, each next one when the previous ends — directly when no other event comes
    /// first (time then advances to it), else through a `Done` event.
    fn serve(&mut self, d: usize) {
        self.serve_from(d, None);
    }

    /// [`Eng::serve`], `first` (when given) served before the queue, as if it had been its head.
    fn serve_from(&mut self, d: usize, mut first: Option<Msg>) {
        loop {
            let m = match first.take() {
                Some(m) => m,
                None => {
                    let Some(m) = self.nodes[d].queue.pop_front() else { return };
                    self.note_len(d);
                    m
                }
            };
            let s = self.now;
            self.st.queue_cycles += s - m.at.min(s);
            let mut cx = Cx { node: d, s, w: 0 };
            self.handle(&mut cx, m);
            let nd = &mut self.nodes[d];
            nd.busy_cycles += cx.w;
            nd.busy_until = s + cx.w;
            if nd.queue.is_empty() || nd.done_pending {
                return;
            }
            let t = nd.busy_until;
            if self.events.peek_t().is_none_or(|e| e > t) {
                self.now = t;
                continue;
            }
            self.nodes[d].done_pending = true;
            self.push_done(t, d);
            return;
        }
    }

    /// The controller uses the SLC bus for `cycles` (plus acquire and release). It waits for
    /// the CPU's access in progress, at most one SLC access; bus time a CPU running ahead has
    /// booked beyond that slips by the controller's tenure, and so does that CPU's clock.
    fn slc_op(&mut self, cx: &mut Cx, cycles: u64) {
        let node = cx.node;
        let t = cx.now();
        let p = &self.p;
        let dur = p.acquire_slc_bus + cycles + p.release_slc_bus;
        let one_access = p.acquire_slc_bus + p.slc_lookup + p.slc_line_access + p.release_slc_bus;
        let free = self.nodes[node].slc_free;
        let start = free.min(t + one_access).max(t);
        let end = start + dur;
        if free > start {
            self.nodes[node].slc_free = free + dur;
            let cpu = &mut self.cpus[node];
            if cpu.state == CpuState::Run && cpu.t > start {
                cpu.t += dur;
            }
        } else {
            self.nodes[node].slc_free = end;
        }
        cx.w = end - cx.s;
    }

    fn mem_op(&mut self, cx: &mut Cx, cycles: u64) {
        cx.w += self.p.acquire_mem_bus + cycles + self.p.release_mem_bus;
    }

    fn send(&mut self, cx: &mut Cx, mut m: Msg) {
        let src = cx.node;
        let dst = m.dst as usize;
        m.src = src as u16;
        if dst == src {
            // To itself: straight into its own queue, served after the current message.
            m.at = cx.now();
            self.nodes[src].queue.push_back(m);
            self.note_len(src);
            let nd = &mut self.nodes[src];
            let len = nd.queue.len() as u64 + 1;
            self.st.queued += 1;
            self.st.queue_len_sum += len;
            self.st.queue_len_max = self.st.queue_len_max.max(len);
            return;
        }
        cx.w += self.p.send;
        let inject = if self.iface.bounce_gap {
            // Send-backs of bounced reads share the injection slots (InterfaceModel).
            self.inject_slot(src, cx.now())
        } else {
            let nd = &mut self.nodes[src];
            let inject = match nd.last_inject {
                Some(l) => cx.now().max(l + self.p.gap),
                None => cx.now(),
            };
            nd.last_inject = Some(inject);
            inject
        };
        cx.w = inject - cx.s;
        let lat = if m.kind.long() { self.p.latency_long } else { self.p.latency_short };
        let ch = &mut self.chan[src * self.n + dst];
        let at = (inject + lat).max(*ch);
        *ch = at;
        m.at = at;
        self.st.msgs[m.kind as usize] += 1;
        self.push_msg(at, m);
    }

    /// The earliest injection time at or after `t` at least g from every one `node` has taken;
    /// takes it. Times more than g before the current event can no longer conflict.
    fn inject_slot(&mut self, node: usize, t: u64) -> u64 {
        let g = self.p.gap;
        let floor = self.now.saturating_sub(g);
        let slots = &mut self.nodes[node].inject_slots;
        // Slots are taken at or after the current event, so one before `floor` is passed over
        // by every later search: it is pruned only when the list grows, and the common case,
        // a time after every slot taken, is an append.
        if slots.last().is_none_or(|&l| l + g <= t) {
            if slots.len() >= 16 {
                slots.retain(|&r| r >= floor);
            }
            slots.push(t);
            return t;
        }
        slots.retain(|&r| r >= floor);
        let mut x = t;
        let mut at = slots.len();
        for (i, &r) in slots.iter().enumerate() {
            if r + g <= x {
                continue;
            }
            if r >= x + g {
                at = i;
                break;
            }
            x = r + g;
        }
        slots.insert(at, x);
        x
    }

    fn handle(&mut self, cx: &mut Cx, m: Msg) {
        if m.flags & F_BOUNCED != 0 {
            self.retry(cx, m);
            return;
        }
        match m.kind {
            K::CpuMiss => self.on_cpu_miss(cx, m),
            K::CpuBarrier => {
                let mut a = Msg::new(K::BarrierArrive, 0, cx.node, 0);
                a.req = cx.node as u16;
                if cx.node == 0 {
                    self.on_barrier_arrive(cx);
                } else {
                    self.send(cx, a);
                }
            }
            K::BarrierArrive => self.on_barrier_arrive(cx),
            K::BarrierRelease => {
                let c = cx.node;
                self.cpus[c].t = cx.now();
                self.retire(c);
                self.push_cpu(cx.now(), c);
            }
            K::ReadReq | K::WriteReq | K::UpgradeReq | K::Replace => self.home_req(cx, m),
            K::ProxyRead => self.on_proxy_read(cx, m),
            K::Data | K::DataEx | K::UpgradeAck | K::ProxyData => self.on_fill(cx, m),
            K::FwdRead | K::FwdWrite => self.on_fwd(cx, m),
            K::Inval => self.on_inval(cx, m),
            K::InvalAck | K::SharingWb | K::OwnerAck => self.home_reply(cx, m),
            K::WriteBack => self.on_writeback(cx, m),
            K::WbAck => {
                let nd = &mut self.nodes[cx.node];
                if let Some(i) = nd.wb.iter().position(|&(l, _)| l == m.line) {
                    nd.wb.swap_remove(i);
                }
                self.requeue_deferred(cx.node, m.line);
            }
            K::Bounce => unreachable!("bounces keep their own kind"),
        }
    }

    fn on_barrier_arrive(&mut self, cx: &mut Cx) {
        self.barrier_count += 1;
        if self.barrier_count == self.n {
            self.barrier_count = 0;
            self.barriers += 1;
            for d in 0..self.n {
                let r = Msg::new(K::BarrierRelease, d, d, 0);
                self.send(cx, r);
            }
        }
    }

    /// A bounced read request is back at its sender: retry (reactive: through a proxy).
    fn retry(&mut self, cx: &mut Cx, mut m: Msg) {
        m.flags &= !F_BOUNCED;
        let me = cx.node;
        let home = self.home_of(m.line);
        match m.kind {
            K::ReadReq => {
                if self.proxies == ProxyMode::Reactive && m.req as usize == me && m.flags & F_FETCH == 0 {
                    let p = self.proxy_of(m.line, me);
                    if p != me && p != home {
                        self.st.proxy_reads += 1;
                        self.st.reactive_proxy_reads += 1;
                        let r = Msg::new(K::ProxyRead, p, me, m.line);
                        self.send(cx, r);
                        return;
                    }
                }
                m.dst = home as u16;
                self.send(cx, m);
            }
            K::ProxyRead => {
                m.dst = self.proxy_of(m.line, me) as u16;
                self.send(cx, m);
            }
            _ => unreachable!("only read requests bounce"),
        }
    }

    /// The line an SLC frame holds (0 when empty: ask its state too).
    #[inline]
    fn ftag(&self, si: usize) -> u32 {
        self.slc_tag[si] >> 2
    }

    /// An SLC frame's state.
    #[inline]
    fn fst(&self, si: usize) -> u8 {
        (self.slc_tag[si] & 3) as u8
    }

    #[inline]
    fn sidx(&self, node: usize, line: u32) -> usize {
        node * self.slc_frames + (line as usize & (self.slc_frames - 1))
    }

    fn valid_at(&self, node: usize, line: u32) -> u8 {
        let si = self.sidx(node, line);
        if self.ftag(si) == line {
            self.fst(si)
        } else {
            ST_I
        }
    }

    fn pend_pos(&self, node: usize, line: u32) -> Option<usize> {
        self.nodes[node].pend.iter().position(|p| p.line == line)
    }

    fn on_cpu_miss(&mut self, cx: &mut Cx, m: Msg) {
        let c = cx.node;
        let line = m.line;
        let write = m.flags & F_WRITE != 0;
        if let Some(i) = self.pend_pos(c, line) {
            // A proxy fetch of this line is outstanding here: wait for it.
            let p = &mut self.nodes[c].pend[i];
            if !write && p.kind == PKind::Read {
                p.cpu = true;
            } else {
                p.cpu_retry = true;
            }
            return;
        }
        if self.nodes[c].leaving.contains(&line) || self.nodes[c].wb.iter().any(|&(l, _)| l == line) {
            // The node's old entry is still linked in the sharing list (a replaced shared line)
            // or it is still the owner (a write-back in flight): it asks again only once the
            // home has unlinked it (the walk's Inval or the WbAck re-queues this miss), so that
            // a read served by a proxy cannot link it twice.
            self.nodes[c].deferred.push(m);
            return;
        }
        let st = self.valid_at(c, line);
        // The line may have arrived meanwhile (a proxy fill of the same line).
        if (!write && st != ST_I) || (write && st == ST_M) {
            let t = cx.now();
            self.cpu_complete(c, line, t);
            return;
        }
        let kind = if !write {
            PKind::Read
        } else if st == ST_S {
            PKind::Upgrade
        } else {
            PKind::Write
        };
        let home = self.home_of(line);
        let remote_read = kind == PKind::Read && home != c;
        self.nodes[c].pend.push(Pend {
            line,
            kind,
            cpu: true,
            cpu_retry: false,
            chain: Vec::new(),
            sent: if remote_read { cx.now() } else { u64::MAX },
        });
        if kind == PKind::Read && home != c && self.proxies == ProxyMode::Basic && self.is_proxy_line(line) {
            let p = self.proxy_of(line, c);
            if p != c && p != home {
                self.st.proxy_reads += 1;
                let r = Msg::new(K::ProxyRead, p, c, line);
                self.send(cx, r);
                return;
            }
        }
        let k = match kind {
            PKind::Read => K::ReadReq,
            PKind::Write => K::WriteReq,
            PKind::Upgrade => K::UpgradeReq,
        };
        let r = Msg::new(k, home, c, line);
        if home == c {
            let mut r = r;
            r.src = c as u16;
            self.home_req(cx, r);
        } else {
            self.send(cx, r);
        }
    }

    fn new_tid(&mut self) -> u32 {
        self.next_tid = self.next_tid.wrapping_add(1).max(1);
        self.next_tid
    }

    /// A request at the home: waits behind a transaction in progress, else starts.
    fn home_req(&mut self, cx: &mut Cx, m: Msg) {
        if let Some(t) = self.busy.get_mut(&m.line) {
            t.waiting.push_back(m);
            let look = self.p.dram_lookup;
            self.mem_op(cx, look);
            return;
        }
        self.home_start(cx, m);
    }

    fn home_start(&mut self, cx: &mut Cx, m: Msg) {
        let line = m.line;
        let li = line as usize;
        let r = m.req as usize;
        let (look, acc) = (self.p.dram_lookup, self.p.dram_line_access);
        match m.kind {
            K::ReadReq => {
                if self.dir_mod[li] {
                    let o = self.dir_list[li][0] as usize;
                    debug_assert_ne!(o, r);
                    self.mem_op(cx, look);
                    let tid = self.new_tid();
                    self.busy.insert(line, Txn { tid, kind: TKind::Read, req: r as u16, waiting: VecDeque::new() });
                    self.dir_list[li].set(&[r as u16, o as u16]);
                    let mut f = Msg::new(K::FwdRead, o, r, line);
                    f.tid = tid;
                    self.send(cx, f);
                } else {
                    self.mem_op(cx, look + acc);
                    self.dir_list[li].insert(0, r as u16);
                    let mut d = Msg::new(K::Data, r, r, line);
                    d.val = self.mem_val[li];
                    self.send(cx, d);
                }
            }
            K::WriteReq | K::UpgradeReq => {
                if self.dir_mod[li] {
                    let o = self.dir_list[li][0] as usize;
                    debug_assert_ne!(o, r);
                    self.mem_op(cx, look);
                    let tid = self.new_tid();
                    self.busy.insert(line, Txn { tid, kind: TKind::Write { need_data: true }, req: r as u16, waiting: VecDeque::new() });
                    self.dir_list[li].set(&[r as u16]);
                    let mut f = Msg::new(K::FwdWrite, o, r, line);
                    f.tid = tid;
                    self.send(cx, f);
                    return;
                }
                let list = &mut self.dir_list[li];
                let had = match list.iter().position(|&x| x as usize == r) {
                    Some(i) => {
                        list.remove(i);
                        true
                    }
                    None => false,
                };
                // An upgrade whose copy was invalidated meanwhile needs the data.
                let need_data = !(had && m.kind == K::UpgradeReq);
                let head = list.first().copied();
                if let Some(head) = head {
                    self.mem_op(cx, look);
                    let tid = self.new_tid();
                    self.busy.insert(line, Txn { tid, kind: TKind::Write { need_data }, req: r as u16, waiting: VecDeque::new() });
                    let mut i = Msg::new(K::Inval, head as usize, r, line);
                    i.tid = tid;
                    self.send(cx, i);
                } else {
                    self.mem_op(cx, if need_data { look + acc } else { look });
                    self.grant_exclusive(cx, line, r, need_data);
                }
            }
            K::Replace => {
                let x = m.src as usize;
                self.mem_op(cx, look);
                if !self.dir_mod[li] && self.dir_list[li].iter().any(|&y| y as usize == x) {
                    // Stanford DD: the lower part of the list, from the leaving node down, is
                    // invalidated; the walk starts at the leaving node.
                    let tid = self.new_tid();
                    self.busy.insert(line, Txn { tid, kind: TKind::Replace, req: x as u16, waiting: VecDeque::new() });
                    let mut i = Msg::new(K::Inval, x, x, line);
                    i.tid = tid;
                    self.send(cx, i);
                }
                // Otherwise a walk already unlinked the node (and cleared its leaving entry).
            }
            K::WriteBack => self.on_writeback(cx, m),
            _ => unreachable!(),
        }
    }

    fn grant_exclusive(&mut self, cx: &mut Cx, line: u32, r: usize, need_data: bool) {
        let li = line as usize;
        self.dir_list[li].set(&[r as u16]);
        self.dir_mod[li] = true;
        let mut g = Msg::new(if need_data { K::DataEx } else { K::UpgradeAck }, r, r, line);
        g.val = self.mem_val[li];
        self.send(cx, g);
    }

    /// Replies that end a home transaction.
    fn home_reply(&mut self, cx: &mut Cx, m: Msg) {
        let line = m.line;
        let li = line as usize;
        let Some(t) = self.busy.get(&line) else {
            self.fail(format!("{:?} for line {line:#x} at home {} with no transaction in progress", m.kind, cx.node));
            return;
        };
        if t.tid != m.tid {
            self.fail(format!("{:?} for line {line:#x} carries transaction {} but {} is in progress", m.kind, m.tid, t.tid));
            return;
        }
        let t = self.busy.remove(&line).expect("checked");
        let (look, acc) = (self.p.dram_lookup, self.p.dram_line_access);
        match (m.kind, t.kind) {
            (K::InvalAck, TKind::Write { need_data }) => {
                if !self.dir_list[li].is_empty() {
                    self.fail(format!("line {line:#x}: invalidation walk ended with sharers {:?} left", &*self.dir_list[li]));
                    return;
                }
                self.mem_op(cx, if need_data { look + acc } else { look });
                self.grant_exclusive(cx, line, t.req as usize, need_data);
            }
            (K::InvalAck, TKind::Replace) => {
                self.mem_op(cx, look);
            }
            (K::SharingWb, TKind::Read) => {
                self.mem_op(cx, look + acc);
                self.mem_val[li] = m.val;
                self.dir_mod[li] = false;
                if m.flags & F_NOT_RETAINED != 0 {
                    let o = m.src;
                    self.dir_list[li].retain(|&x| x != o);
                }
            }
            (K::OwnerAck, TKind::Write { .. }) => {
                self.mem_op(cx, look);
            }
            (k, tk) => {
                self.fail(format!("line {line:#x}: {k:?} does not end a {tk:?} transaction"));
                return;
            }
        }
        // Requests that waited behind the transaction, in order, until one starts another.
        let mut waiting = t.waiting;
        while let Some(w) = waiting.pop_front() {
            self.home_start(cx, w);
            if let Some(nt) = self.busy.get_mut(&line) {
                nt.waiting.extend(waiting.drain(..));
                break;
            }
        }
    }

    fn on_writeback(&mut self, cx: &mut Cx, m: Msg) {
        let li = m.line as usize;
        let x = m.src;
        let (look, acc) = (self.p.dram_lookup, self.p.dram_line_access);
        self.mem_op(cx, look + acc);
        if let Some(t) = self.busy.get_mut(&m.line) {
            // A forward to the writer is in progress and will be answered from its write-back
            // buffer; the acknowledgement waits until that transaction ends, so the writer
            // cannot ask for the line again while the home still counts it as a sharer.
            t.waiting.push_back(m);
            return;
        }
        if self.dir_mod[li] && self.dir_list[li].first() == Some(&x) {
            self.mem_val[li] = m.val;
            self.dir_mod[li] = false;
            self.dir_list[li].clear();
        }
        // Otherwise stale: a forward took the line from the write-back buffer.
        let a = Msg::new(K::WbAck, x as usize, x as usize, m.line);
        self.send(cx, a);
    }

    fn invalidate_local(&mut self, node: usize, line: u32) {
        let si = self.sidx(node, line);
        if self.ftag(si) == line {
            self.slc_tag[si] = FR_INV;
        }
        let fi = node * self.flc_frames + (line as usize & (self.flc_frames - 1));
        if self.flc[fi] == line {
            self.flc[fi] = INV;
        }
    }

    fn on_inval(&mut self, cx: &mut Cx, m: Msg) {
        let me = cx.node;
        let line = m.line;
        let li = line as usize;
        let lookup = self.p.slc_lookup;
        if self.valid_at(me, line) != ST_I {
            self.slc_op(cx, lookup);
            self.invalidate_local(me, line);
        } else if let Some(i) = self.nodes[me].leaving.iter().position(|&l| l == line) {
            self.nodes[me].leaving.swap_remove(i);
            self.requeue_deferred(me, line);
        } else if self.pend_pos(me, line).is_some() {
            self.nodes[me].deferred.push(m);
            return;
        }
        let list = &mut self.dir_list[li];
        let next = match list.iter().position(|&x| x as usize == me) {
            Some(p) => {
                list.remove(p);
                list.get(p).copied()
            }
            None => None,
        };
        match next {
            Some(nx) => {
                let mut i = Msg::new(K::Inval, nx as usize, m.req as usize, line);
                i.tid = m.tid;
                self.send(cx, i);
            }
            None => {
                let home = self.home_of(line);
                let mut a = Msg::new(K::InvalAck, home, m.req as usize, line);
                a.tid = m.tid;
                self.send(cx, a);
            }
        }
    }

    fn on_fwd(&mut self, cx: &mut Cx, m: Msg) {
        let me = cx.node;
        let line = m.line;
        let r = m.req as usize;
        let home = self.home_of(line);
        let si = self.sidx(me, line);
        let (val, retained) = if self.ftag(si) == line && self.fst(si) == ST_M {
            let a = self.p.slc_lookup + self.p.slc_line_access;
            self.slc_op(cx, a);
            let v = self.slc_val[si];
            if m.kind == K::FwdRead {
                self.slc_tag[si] = frame_word(line, ST_S);
            } else {
                self.invalidate_local(me, line);
            }
            (v, true)
        } else if let Some(&(_, v)) = self.nodes[me].wb.iter().find(|&&(l, _)| l == line) {
            (v, false)
        } else if self.pend_pos(me, line).is_some() {
            self.nodes[me].deferred.push(m);
            return;
        } else {
            self.fail(format!("{:?} for line {line:#x} reached node {me}, which neither owns it nor is fetching it", m.kind));
            return;
        };
        if m.kind == K::FwdRead {
            let mut d = Msg::new(K::Data, r, r, line);
            d.val = val;
            self.send(cx, d);
            let mut w = Msg::new(K::SharingWb, home, r, line);
            w.val = val;
            w.tid = m.tid;
            if !retained {
                w.flags |= F_NOT_RETAINED;
            }
            self.send(cx, w);
        } else {
            let mut d = Msg::new(K::DataEx, r, r, line);
            d.val = val;
            self.send(cx, d);
            let mut a = Msg::new(K::OwnerAck, home, r, line);
            a.tid = m.tid;
            self.send(cx, a);
        }
    }

    fn on_proxy_read(&mut self, cx: &mut Cx, m: Msg) {
        let me = cx.node;
        let line = m.line;
        let client = m.req as usize;
        let home = self.home_of(line);
        let lookup = self.p.slc_lookup;
        if let Some(i) = self.pend_pos(me, line) {
            if self.nodes[me].pend[i].kind == PKind::Read {
                self.nodes[me].pend[i].chain.push(client as u16);
                self.st.combined += 1;
                self.slc_op(cx, lookup);
            } else {
                // A store is pending here: the client's read goes to the home.
                let mut r = Msg::new(K::ReadReq, home, client, line);
                r.req = client as u16;
                self.send(cx, r);
            }
            return;
        }
        match self.valid_at(me, line) {
            ST_S => {
                let a = self.p.slc_lookup + self.p.slc_line_access;
                self.slc_op(cx, a);
                self.st.proxy_hits += 1;
                let si = self.sidx(me, line);
                let val = self.slc_val[si];
                self.link_after(me, client, line);
                let mut d = Msg::new(K::ProxyData, client, client, line);
                d.val = val;
                self.send(cx, d);
            }
            ST_M => {
                self.slc_op(cx, lookup);
                let r = Msg::new(K::ReadReq, home, client, line);
                self.send(cx, r);
            }
            _ => {
                self.slc_op(cx, lookup);
                self.nodes[me].pend.push(Pend {
                    line,
                    kind: PKind::Read,
                    cpu: false,
                    cpu_retry: false,
                    chain: vec![client as u16],
                    sent: u64::MAX,
                });
                let mut r = Msg::new(K::ReadReq, home, me, line);
                r.flags |= F_FETCH;
                self.send(cx, r);
            }
        }
    }

    /// Links `client` into the sharing list directly after `node` (a local pointer update at
    /// `node`: the client takes the node's next pointer).
    fn link_after(&mut self, node: usize, client: usize, line: u32) {
        let list = &mut self.dir_list[line as usize];
        match list.iter().position(|&x| x as usize == node) {
            Some(p) => list.insert(p + 1, client as u16),
            None => self.err = self.err.take().or(Some(format!("proxy {node} serves line {line:#x} but is not in its sharing list"))),
        }
    }

    /// Places a line into the SLC, evicting the frame's line. Returns false when the frame is
    /// pinned by a pending upgrade (the line is then not kept).
    fn fill(&mut self, cx: &mut Cx, line: u32, st: u8, val: u64) -> bool {
        let me = cx.node;
        let si = self.sidx(me, line);
        let mut work = self.p.slc_lookup + self.p.slc_line_access;
        let old = self.ftag(si);
        if old != line && self.fst(si) != ST_I {
            if self.nodes[me].pend.iter().any(|p| p.line == old && p.kind == PKind::Upgrade) {
                self.slc_op(cx, work);
                return false;
            }
            let home = self.home_of(old);
            if self.fst(si) == ST_M {
                work += self.p.slc_line_access;
                let v = self.slc_val[si];
                self.nodes[me].wb.push((old, v));
                self.invalidate_local(me, old);
                self.slc_op(cx, work);
                let mut w = Msg::new(K::WriteBack, home, me, old);
                w.val = v;
                self.send(cx, w);
            } else {
                self.nodes[me].leaving.push(old);
                self.invalidate_local(me, old);
                self.slc_op(cx, work);
                let r = Msg::new(K::Replace, home, me, old);
                self.send(cx, r);
            }
        } else {
            self.slc_op(cx, work);
        }
        self.slc_tag[si] = frame_word(line, st);
        self.slc_val[si] = val;
        true
    }

    fn on_fill(&mut self, cx: &mut Cx, m: Msg) {
        let me = cx.node;
        let line = m.line;
        let Some(pi) = self.pend_pos(me, line) else {
            self.fail(format!("{:?} for line {line:#x} reached node {me}, which is not fetching it", m.kind));
            return;
        };
        let pend = self.nodes[me].pend.swap_remove(pi);
        let kept = match m.kind {
            K::UpgradeAck => {
                let si = self.sidx(me, line);
                if self.ftag(si) != line || self.fst(si) != ST_S {
                    self.fail(format!("upgrade of line {line:#x} acknowledged at node {me}, which lost its copy"));
                    return;
                }
                let lookup = self.p.slc_lookup;
                self.slc_op(cx, lookup);
                self.slc_tag[si] = frame_word(line, ST_M);
                true
            }
            K::DataEx => self.fill(cx, line, ST_M, m.val),
            _ => self.fill(cx, line, ST_S, m.val),
        };
        if pend.sent != u64::MAX && matches!(m.kind, K::Data | K::ProxyData) {
            self.st.hist.add(m.at - pend.sent);
            self.st.node_reads[me] += 1;
            self.st.node_read_cycles[me] += m.at - pend.sent;
        }
        // Proxy chain: the data goes to the last client first, and down the chain from there.
        let chain = if m.kind == K::ProxyData && m.chain != INV { Some(m.chain) } else { None };
        let chain = match chain {
            Some(id) => Some(id),
            None if !pend.chain.is_empty() => {
                let id = match self.free_chains.pop() {
                    Some(id) => {
                        self.chains[id as usize] = pend.chain.clone();
                        id
                    }
                    None => {
                        self.chains.push(pend.chain.clone());
                        (self.chains.len() - 1) as u32
                    }
                };
                Some(id)
            }
            None => None,
        };
        if let Some(id) = chain {
            match self.chains[id as usize].pop() {
                Some(next) => {
                    self.link_after(me, next as usize, line);
                    let mut d = Msg::new(K::ProxyData, next as usize, next as usize, line);
                    d.val = m.val;
                    d.chain = if self.chains[id as usize].is_empty() {
                        self.free_chains.push(id);
                        INV
                    } else {
                        id
                    };
                    self.send(cx, d);
                }
                None => self.free_chains.push(id),
            }
        }
        if !kept {
            // Pinned frame: the proxy served its chain and leaves the list at once.
            self.nodes[me].leaving.push(line);
            let home = self.home_of(line);
            let r = Msg::new(K::Replace, home, me, line);
            self.send(cx, r);
        }
        if pend.cpu {
            let t = cx.now();
            if kept {
                self.cpu_complete(me, line, t);
            } else {
                self.cpus[me].t = t;
                self.push_cpu(t, me);
            }
        } else if pend.cpu_retry {
            let t = cx.now();
            self.cpus[me].t = t;
            self.push_cpu(t, me);
        }
        // Interventions that waited for this fill go first, in order.
        self.requeue_deferred(me, line);
    }

    /// Puts the messages deferred for `line` at `node` back at the head of its queue, in order.
    fn requeue_deferred(&mut self, node: usize, line: u32) {
        let nd = &mut self.nodes[node];
        if nd.deferred.iter().any(|d| d.line == line) {
            let (mine, rest): (Vec<Msg>, Vec<Msg>) = nd.deferred.drain(..).partition(|d| d.line == line);
            nd.deferred = rest;
            for d in mine.into_iter().rev() {
                nd.queue.push_front(d);
            }
            self.note_len(node);
        }
    }

    /// The hysteresis state after `node`'s queue length changed (seed §1.4: bouncing from
    /// when the length has risen above the limit until it has fallen below it).
    #[inline]
    fn note_len(&mut self, node: usize) {
        if let (Some(limit), true) = (self.limit, self.iface.hysteresis) {
            let nd = &mut self.nodes[node];
            let len = nd.queue.len();
            if len > limit {
                nd.bouncing = true;
            } else if len < limit {
                nd.bouncing = false;
            }
        }
    }

    // ------------------------------------------------------------------ checking

    /// The directory invariants (docs/protocol.md, "Invariants") for every line accessed.
    fn check_invariants(&self) -> Result<(), String> {
        for &line in &self.touched {
            let li = line as usize;
            let mut valid = Vec::new();
            let mut owners = 0;
            for nd in 0..self.n {
                let st = self.valid_at(nd, line);
                if st != ST_I {
                    let v = self.slc_val[self.sidx(nd, line)];
                    if v != self.latest[li] {
                        return Err(format!("line {line:#x}: node {nd} holds store #{v}, the latest is #{}", self.latest[li]));
                    }
                    if st == ST_M {
                        owners += 1;
                    }
                    valid.push(nd);
                }
                let fi = nd * self.flc_frames + (li & (self.flc_frames - 1));
                if self.flc[fi] == line && st == ST_I {
                    return Err(format!("line {line:#x}: in node {nd}'s FLC but not its SLC"));
                }
            }
            if owners > 0 && valid.len() > 1 {
                return Err(format!("line {line:#x}: modified at one node while nodes {valid:?} hold copies"));
            }
            let list: &[u16] = &self.dir_list[li];
            let mut sorted = list.to_vec();
            sorted.sort_unstable();
            sorted.dedup();
            if sorted.len() != list.len() {
                return Err(format!("line {line:#x}: sharing list {list:?} names a node twice"));
            }
            if self.busy.contains_key(&line) {
                continue;
            }
            let linked = |nd: usize| {
                let n = &self.nodes[nd];
                n.leaving.contains(&line) || n.pend.iter().any(|p| p.line == line) || n.wb.iter().any(|&(l, _)| l == line)
            };
            if self.dir_mod[li] {
                if list.len() != 1 {
                    return Err(format!("line {line:#x}: modified with list {list:?}"));
                }
                let o = list[0] as usize;
                if !(self.valid_at(o, line) == ST_M || linked(o)) {
                    return Err(format!("line {line:#x}: owner {o} holds no modified copy"));
                }
            } else {
                if owners > 0 {
                    return Err(format!("line {line:#x}: a modified copy exists but the home's state is shared"));
                }
                if self.mem_val[li] != self.latest[li] && !self.nodes.iter().any(|n| n.wb.iter().any(|&(l, _)| l == line)) {
                    return Err(format!("line {line:#x}: memory holds store #{}, the latest is #{}", self.mem_val[li], self.latest[li]));
                }
                for &x in list {
                    let x = x as usize;
                    if self.valid_at(x, line) != ST_S && !linked(x) {
                        return Err(format!("line {line:#x}: node {x} is in the sharing list {list:?} without a copy"));
                    }
                }
                for &nd in &valid {
                    if !list.contains(&(nd as u16)) {
                        return Err(format!("line {line:#x}: node {nd} holds a copy but is not in the sharing list {list:?}"));
                    }
                }
            }
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
            lines_accessed: self.touched.len() as u64,
            per_node_pages: self.table.pages_per_node().to_vec(),
            ctrl_util_mean: if util.is_empty() { 0.0 } else { util.iter().sum::<f64>() / util.len() as f64 },
            ctrl_util_max: util.iter().cloned().fold(0.0, f64::max),
            ctrl_util: util,
            loads_checked: st.loads_checked,
            events: st.events,
        }
    }
}
