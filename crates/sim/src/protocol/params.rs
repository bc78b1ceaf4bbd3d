//! Parameters of the line-level protocol engine (seed 004) and its run options.
//!
//! [`ProtocolParams`] is the machine's `[protocol]` table (see `machines/talbot64.toml`); every
//! default is the seed's number and is declared once, in [`ProtocolParams::default`], with its
//! citation. [`ProtocolOptions`] holds what a run chooses (proxies, buffers, checking).
//!
//! Citations: "[T1.1]" = seed 004 Table 1.1, "[T1.2]" = Table 1.2, "[§1.3]", "[§1.4]" = seed 004
//! sections. Choices where the seed is silent are marked "choice" and argued in
//! `docs/protocol.md`.

use numaplace_model::topology::{RawMachine, RawMigration, RawNode};
use numaplace_model::{Machine, ModelError};
use serde::{Deserialize, Serialize};

/// The machine's line-level timing, in node-controller cycles unless stated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ProtocolParams {
    /// Cycle time, ns ([T1.1]: node controller cycle time 10 ns; the CPU's CPI 1.0 is taken in
    /// the same cycles).
    pub cycle_ns: f64,
    /// First-level data cache, bytes ([T1.1]: 8 Kbytes, direct mapped, write-through).
    pub flc_bytes: u64,
    /// Second-level cache, bytes ([T1.1]: 4 Mbytes, direct mapped, write-back, 64-byte lines).
    pub slc_bytes: u64,
    /// [T1.2] Acquire SLC bus.
    pub acquire_slc_bus: u64,
    /// [T1.2] Release SLC bus.
    pub release_slc_bus: u64,
    /// [T1.2] SLC lookup.
    pub slc_lookup: u64,
    /// [T1.2] SLC line access.
    pub slc_line_access: u64,
    /// [T1.2] Acquire MEM bus.
    pub acquire_mem_bus: u64,
    /// [T1.2] Release MEM bus.
    pub release_mem_bus: u64,
    /// [T1.2] DRAM lookup (also the directory read, which lives in DRAM: choice).
    pub dram_lookup: u64,
    /// [T1.2] DRAM line access.
    pub dram_line_access: u64,
    /// [T1.2] Initiate message send (controller occupancy per message sent).
    pub send: u64,
    /// LogP L for messages carrying a line ([§1.4]: 10 cycles).
    pub latency_long: u64,
    /// LogP L for all other messages ([§1.4]: 5 cycles).
    pub latency_short: u64,
    /// LogP g: a node injects messages at least this far apart ([§1.4]: 5 cycles).
    pub gap: u64,
    /// Finite input buffers: a read request arriving at a queue holding this many messages
    /// bounces ([§1.4]: eight read requests, sqrt(P) for P = 64).
    pub input_buffer_reads: u32,
    /// Proxy clusters ([§1.3]: the nodes are split into three proxy clusters).
    pub proxy_clusters: u32,
}

impl Default for ProtocolParams {
    fn default() -> Self {
        ProtocolParams {
            cycle_ns: 10.0,
            flc_bytes: 8 << 10,
            slc_bytes: 4 << 20,
            acquire_slc_bus: 2,
            release_slc_bus: 1,
            slc_lookup: 6,
            slc_line_access: 18,
            acquire_mem_bus: 3,
            release_mem_bus: 2,
            dram_lookup: 20,
            dram_line_access: 24,
            send: 5,
            latency_long: 10,
            latency_short: 5,
            gap: 5,
            input_buffer_reads: 8,
            proxy_clusters: 3,
        }
    }
}

fn perr(origin: &str, message: String) -> ModelError {
    ModelError::Machine { origin: origin.to_string(), message }
}

impl ProtocolParams {
    /// The `[protocol]` table of `machine`.
    ///
    /// # Errors
    /// A machine without the table, an unknown key, a wrong type or a value out of range.
    pub fn from_machine(machine: &Machine) -> Result<Self, ModelError> {
        let origin = format!("machine {}", machine.name());
        let table = machine.raw.protocol.clone().ok_or_else(|| {
            perr(&origin, "no [protocol] table: the protocol engine needs one (see machines/talbot64.toml)".into())
        })?;
        let p: ProtocolParams = toml::Value::Table(table)
            .try_into()
            .map_err(|e: toml::de::Error| perr(&origin, format!("[protocol]: {}", e.message().trim().replace('\n', " "))))?;
        p.validate(machine)?;
        Ok(p)
    }

    /// Checks the parameters against each other and the machine.
    ///
    /// # Errors
    /// Names the key and the value.
    pub fn validate(&self, machine: &Machine) -> Result<(), ModelError> {
        let origin = format!("machine {}", machine.name());
        let line = machine.raw.line_size;
        if !(self.cycle_ns.is_finite() && self.cycle_ns > 0.0 && self.cycle_ns <= 1e6) {
            return Err(perr(&origin, format!("protocol.cycle_ns = {}: must be in (0, 1e6]", self.cycle_ns)));
        }
        for (key, v) in [("flc_bytes", self.flc_bytes), ("slc_bytes", self.slc_bytes)] {
            if !v.is_power_of_two() || v < line || v / line > (1 << 24) {
                return Err(perr(
                    &origin,
                    format!("protocol.{key} = {v}: must be a power of two, at least line_size ({line}) and at most 2^24 lines"),
                ));
            }
        }
        if self.flc_bytes > self.slc_bytes {
            return Err(perr(&origin, format!("protocol.flc_bytes = {}: larger than slc_bytes (the SLC includes the FLC)", self.flc_bytes)));
        }
        for (key, v) in [
            ("acquire_slc_bus", self.acquire_slc_bus),
            ("release_slc_bus", self.release_slc_bus),
            ("slc_lookup", self.slc_lookup),
            ("slc_line_access", self.slc_line_access),
            ("acquire_mem_bus", self.acquire_mem_bus),
            ("release_mem_bus", self.release_mem_bus),
            ("dram_lookup", self.dram_lookup),
            ("dram_line_access", self.dram_line_access),
            ("send", self.send),
            ("latency_long", self.latency_long),
            ("latency_short", self.latency_short),
            ("gap", self.gap),
        ] {
            if v > 1_000_000 {
                return Err(perr(&origin, format!("protocol.{key} = {v}: at most 1000000 cycles")));
            }
        }
        if self.latency_long == 0 || self.latency_short == 0 {
            return Err(perr(&origin, "protocol.latency_long and latency_short must be at least 1 cycle".into()));
        }
        if self.input_buffer_reads == 0 {
            return Err(perr(&origin, "protocol.input_buffer_reads = 0: must be at least 1".into()));
        }
        if self.proxy_clusters == 0 || self.proxy_clusters as usize > machine.nodes() {
            return Err(perr(
                &origin,
                format!(
                    "protocol.proxy_clusters = {}: must be 1 .. the machine's {} nodes (a proxy cluster is a set of nodes)",
                    self.proxy_clusters,
                    machine.nodes()
                ),
            ));
        }
        if machine.nodes() > u16::MAX as usize || machine.raw.nodes.iter().any(|n| n.cpus != 1) {
            return Err(perr(&origin, "the protocol engine runs one CPU per node: every [[nodes]] entry needs cpus = 1".into()));
        }
        Ok(())
    }
}

/// Proxying of remote reads (seed 004 §1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProxyMode {
    /// Every read goes to the line's home.
    None,
    /// Reads of lines in regions the program marks `proxy` go through a proxy node.
    Basic,
    /// No marks: a read request bounced by a full input buffer is retried through a proxy.
    Reactive,
}

/// Input buffers (seed 004 §1.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BufferMode {
    Infinite,
    /// Read requests bounce above the limit (`input_buffer_reads`).
    Finite,
}

impl ProxyMode {
    /// Every name, in listing order.
    pub const NAMES: [&'static str; 3] = ["none", "basic", "reactive"];

    /// Parses a name.
    ///
    /// # Errors
    /// An unknown name, listing the known ones.
    pub fn parse(s: &str) -> Result<Self, ModelError> {
        match s {
            "none" => Ok(ProxyMode::None),
            "basic" => Ok(ProxyMode::Basic),
            "reactive" => Ok(ProxyMode::Reactive),
            _ => Err(ModelError::unknown("proxy mode", s, Self::NAMES)),
        }
    }

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

impl BufferMode {
    pub const NAMES: [&'static str; 2] = ["infinite", "finite"];

    /// Parses a name.
    ///
    /// # Errors
    /// An unknown name, listing the known ones.
    pub fn parse(s: &str) -> Result<Self, ModelError> {
        match s {
            "infinite" => Ok(BufferMode::Infinite),
            "finite" => Ok(BufferMode::Finite),
            _ => Err(ModelError::unknown("buffer mode", s, Self::NAMES)),
        }
    }

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// What one protocol run chooses.
#[derive(Clone, Debug, PartialEq)]
pub struct ProtocolOptions {
    pub proxies: ProxyMode,
    pub buffers: BufferMode,
    /// Overrides `input_buffer_reads` for finite buffers (tests force bounces with 1 or 2).
    pub buffer_limit: Option<u32>,
    /// Check the directory invariants after every event (slow; tests and debugging).
    pub invariants: bool,
    /// Stop with an error naming the stuck transactions when no operation has retired for
    /// this many simulated cycles.
    pub stall_cycles: u64,
    /// How far a CPU whose accesses hit in its own caches may run ahead of the earliest pending
    /// event, cycles. 0 interleaves CPUs exactly in time order; a window lets a CPU retire a
    /// run of hits in one go (an invalidation may then take effect up to this many cycles late
    /// for it). Misses, barriers and locks never run ahead.
    pub lookahead_cycles: u64,
    /// How a node's network interface takes messages in and turns read requests away (seed 004
    /// §1.3, §1.4); the default is the seed's text ([`InterfaceModel::SEED`]).
    pub interface: InterfaceModel,
}

/// The network interface's model (seed 004 §1.3, §1.4; docs/protocol.md, "Network" and "Finite
/// input buffers"). [`InterfaceModel::SEED`], the default, reads the seed's text literally;
/// [`InterfaceModel::IDEAL`] turns every part off, which is the engine before 2026-11-27
/// (receives without a gap, bounces free to the bouncing node, a read accepted iff the queue
/// then holds at most the limit), kept so that the parts' effects can be measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InterfaceModel {
    /// LogP g on receives ([§1.4] "g: the gap between successive sends or receives by a
    /// processor"): a node's interface takes in at most one network message every `gap` cycles;
    /// a message arriving at t is received at max(t, last receipt + g). A read request turned
    /// away is received first (it reaches the interface).
    pub receive_gap: bool,
    /// The bounced read's send-back is a send of the bouncing node ([§1.3] "it will immediately
    /// be sent back across the network"; [§1.4] g covers every send): it takes the node's next
    /// injection slot, which its controller's sends share, and no controller time (it never
    /// waits in the input buffer). Off: it leaves at once.
    pub bounce_gap: bool,
    /// [§1.4] "once the queue length has risen above eight, all read requests will be bounced
    /// back to the sender until the queue length has fallen below the limit": a per-node state,
    /// set when the queue length exceeds the limit, cleared when it falls below it; reads bounce
    /// while it is set. Off: a read is accepted iff the queue then holds at most the limit.
    pub hysteresis: bool,
}

impl InterfaceModel {
    /// The seed's text: the receive gap, the send-back taking an injection slot, the hysteresis.
    pub const SEED: InterfaceModel = InterfaceModel { receive_gap: true, bounce_gap: true, hysteresis: true };
    /// No receive gap, free bounces, no hysteresis (the engine before 2026-11-27).
    pub const IDEAL: InterfaceModel = InterfaceModel { receive_gap: false, bounce_gap: false, hysteresis: false };
}

impl Default for InterfaceModel {
    fn default() -> Self {
        InterfaceModel::SEED
    }
}

/// The default of [`ProtocolOptions::lookahead_cycles`]: 500 cycles. Measured on talbot64
/// (docs/protocol.md, "Run-ahead"): against exact interleaving (0), execution time moves by
/// under 1 % and the remote read response time by under 3 %, and windows from 100 to 1000
/// agree with each other more closely still, while the engine runs about 1.25 times faster.
pub const DEFAULT_LOOKAHEAD_CYCLES: u64 = 500;

/// The default of [`ProtocolOptions::stall_cycles`]: 10^8 cycles (1 s simulated) without an
/// operation retiring. A remote miss takes hundreds of cycles, and a barrier waits at most for
/// the slowest thread's work between barriers.
pub const DEFAULT_STALL_CYCLES: u64 = 100_000_000;

impl Default for ProtocolOptions {
    fn default() -> Self {
        ProtocolOptions {
            proxies: ProxyMode::None,
            buffers: BufferMode::Infinite,
            buffer_limit: None,
            invariants: false,
            stall_cycles: DEFAULT_STALL_CYCLES,
            lookahead_cycles: DEFAULT_LOOKAHEAD_CYCLES,
            interface: InterfaceModel::default(),
        }
    }
}

/// A machine of `nodes` one-CPU nodes with 8 KiB pages and 64-byte lines, for tests and the
/// benchmark (its latency matrix is not used by the protocol engine).
pub fn small_machine(nodes: usize) -> Machine {
    let raw = RawMachine {
        name: format!("protocol-test-{nodes}"),
        description: "one CPU per node, for the protocol engine's tests".into(),
        page_size: 8192,
        line_size: 64,
        mlp: 1.0,
        counter_bits: 11,
        latency_ns: (0..nodes).map(|i| (0..nodes).map(|j| if i == j { 850.0 } else { 1100.0 }).collect()).collect(),
        nodes: (0..nodes).map(|_| RawNode { cpus: 1, memory_mib: 1 << 16, bandwidth_gbps: 6.4, memory: Default::default(), antagonist_gbps: 0.0 }).collect(),
        migration: RawMigration { fixed_ns: 0.0, trap_ns: 0.0, copy_gbps: 1.0, tlb_shootdown_ns_per_cpu: 0.0 },
        watermarks: None,
        huge_page_size: None,
        protocol: None,
    };
    Machine::from_raw(raw, "protocol test machine").expect("a valid test machine")
}
