//! A machine: nodes with CPUs and memory, an unloaded latency matrix, memory service rates, page
//! and line sizes, and migration cost parameters.
//!
//! Machines are written as TOML (see `docs/machines.md` and the presets in `machines/`). Parsing
//! is two-phase: the text maps 1:1 onto [`RawMachine`] (serde, unknown keys refused), then
//! [`Machine::from_raw`] validates it in one place and derives the tables the engine uses.
//! Every error names the file, the key and the offending value.

use crate::error::ModelError;
use crate::units::{ns_to_ps, CpuId, NodeId, Ps, MAX_NODES};
use serde::{Deserialize, Serialize};

mod fast;
mod host;

pub use host::{
    host_machine, host_machine_hmat, parse_cpulist, parse_meminfo_total_kb, sysfs_node_ids, HostMachine, HostNode, HostOptions,
    HostPerf, LINUX_MIGRATION,
};

/// The TOML form of a machine, exactly as written.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RawMachine {
    /// Short name used on the command line, e.g. `origin2000`.
    pub name: String,
    /// One line saying what machine this models.
    #[serde(default)]
    pub description: String,
    /// Page size in bytes (a power of two).
    pub page_size: u64,
    /// Cache-line size in bytes: one transaction moves one line.
    pub line_size: u64,
    /// Memory-level parallelism: how many independent misses one CPU overlaps at most.
    pub mlp: f64,
    /// Width in bits of the per-page, per-node access counters (11 on the Origin2000, seed
    /// 000 §2.1); used by counter-based dynamic policies.
    #[serde(default = "default_counter_bits")]
    pub counter_bits: u32,
    /// `latency_ns[i][j]`: unloaded latency of a miss from a CPU on node i to memory on node j.
    pub latency_ns: Vec<Vec<f64>>,
    /// The nodes, in node-number order.
    pub nodes: Vec<RawNode>,
    /// What moving a page costs.
    pub migration: RawMigration,
    /// Each node's free-memory watermarks (`crate::watermarks`), an optional table: without
    /// it no node is ever low on memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watermarks: Option<crate::watermarks::RawWatermarks>,
    /// The transparent huge page size in bytes (2 MiB on x86-64), where the machine has huge
    /// pages: a policy that manages memory in huge pages (HeMem's 2 MiB pages) needs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub huge_page_size: Option<u64>,
    /// Parameters of the line-level protocol engine (seed 004), an optional table the
    /// page-level engine ignores; parsed and validated by `numaplace_sim::protocol::params`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<toml::Table>,
}

fn default_counter_bits() -> u32 {
    11
}

/// One node of a [`RawMachine`].
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RawNode {
    /// Number of CPUs on the node (0 for a CPU-less memory node).
    pub cpus: u32,
    /// Memory capacity in MiB (0 for a memory-less node).
    pub memory_mib: u64,
    /// Sustainable bandwidth of the node's memory controller in GB/s (10^9 bytes per second).
    /// The service rate in lines per second is `bandwidth / line_size`.
    pub bandwidth_gbps: f64,
    /// The kind of memory the node has, which ranks it in a memory tier ([`MemoryKind::tier`]);
    /// DRAM unless written.
    #[serde(default, skip_serializing_if = "MemoryKind::is_dram")]
    pub memory: MemoryKind,
    /// Bandwidth another program uses at the node's memory controller, GB/s: a memory
    /// antagonist, as Colloid (SOSP'24) runs beside its workloads to load the default tier. Its
    /// lines join the controller's utilisation as fixed background traffic (the simulated
    /// threads' own lines queue behind them); 0 unless written, below `bandwidth_gbps`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub antagonist_gbps: f64,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// The kind of a node's memory. Linux ranks memory into tiers by an abstract distance derived
/// from each device's performance (mm/memory-tiers.c: DRAM at `MEMTIER_ADISTANCE_DRAM`; a CXL
/// or persistent-memory device registered by dax/kmem further out), and demotes from a tier to
/// the next slower one. Here the kind alone gives the tier: a machine declares what each node
/// is, and latency and bandwidth stay the node's own numbers.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum MemoryKind {
    /// Local DRAM: the top tier.
    #[default]
    Dram,
    /// A CXL Type-3 memory expander (CXL.mem), exposed as a CPU-less node.
    Cxl,
    /// Persistent memory in memory mode (Intel Optane DC PMM under dax/kmem).
    Pmem,
}

impl MemoryKind {
    /// The tier the kind ranks in, 0 the fastest: DRAM 0, CXL 1, persistent memory 2.
    pub fn tier(self) -> u8 {
        match self {
            MemoryKind::Dram => 0,
            MemoryKind::Cxl => 1,
            MemoryKind::Pmem => 2,
        }
    }

    /// The word machine files and listings use.
    pub fn name(self) -> &'static str {
        match self {
            MemoryKind::Dram => "dram",
            MemoryKind::Cxl => "cxl",
            MemoryKind::Pmem => "pmem",
        }
    }

    fn is_dram(&self) -> bool {
        *self == MemoryKind::Dram
    }
}

/// Migration cost parameters of a [`RawMachine`].
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RawMigration {
    /// Fixed cost of migrating one page (page-table update; fault or interrupt handling unless
    /// `trap_ns` gives it separately), ns. Paid for every page, in a batch too.
    pub fixed_ns: f64,
    /// Cost of the trap that hands one page to the OS (a counter interrupt and its policy
    /// checks), ns: paid by the interrupted thread for every trap, whether the page then moves
    /// or not, and never by a batch of moves decided at a barrier or a timer. 0 (the default)
    /// where `fixed_ns` already includes it.
    #[serde(default)]
    pub trap_ns: f64,
    /// Bandwidth of the page copy, GB/s.
    pub copy_gbps: f64,
    /// TLB shootdown cost per CPU that may cache the mapping, ns.
    pub tlb_shootdown_ns_per_cpu: f64,
}

/// A validated machine with derived tables.
#[derive(Clone, Debug, PartialEq)]
pub struct Machine {
    /// The description as written (serialised into every result's configuration).
    pub raw: RawMachine,
    /// Node of every CPU, CPUs numbered node by node.
    pub cpu_node: Vec<NodeId>,
    /// Pages each node can hold.
    pub capacity_pages: Vec<u64>,
    /// For each node, every node with memory ordered by latency from it (ties by node number),
    /// itself first when it has memory: the fallback order of a full node.
    pub nearest: Vec<Vec<NodeId>>,
    /// Unloaded latency in ps, row-major `[from * n + to]`.
    pub latency_ps: Vec<Ps>,
    /// Memory-controller service time of one line in ps (0 for a memory-less node).
    pub service_ps: Vec<f64>,
    /// Each node's memory tier ([`MemoryKind::tier`]), renumbered densely over the tiers the
    /// machine has: 0 is the fastest present, and a machine of one kind has only tier 0.
    pub tier: Vec<u8>,
    /// Each node's demotion target: the nearest node with memory (by latency from it) in the
    /// next slower tier the machine has, as Linux's `establish_demotion_targets`
    /// (mm/memory-tiers.c) prefers the nearest lower-tier node; `None` in the slowest tier.
    pub demotion: Vec<Option<NodeId>>,
}

/// The ranges of a machine's timing quantities and sizes. Every value a machine file may hold is
/// bounded, so that the simulator's integer picoseconds (`u64`, 213 simulated days) cannot
/// overflow in any one cost and a run of bounded length cannot hang in quanta of idle time.
/// Each bound is far outside real hardware in both directions; see `docs/machines.md`.
pub mod bounds {
    /// Latency of one miss, ns. 1 ns is an L1 hit (no memory answers faster); 1 ms is a
    /// thousand times a far CXL or multi-hop SGI UV miss (0.25-1 us) and ten times an NVMe read,
    /// so even swapped or network-disaggregated memory fits.
    pub const LATENCY_NS: (f64, f64) = (1.0, 1e6);
    /// A memory controller's or a page copy's bandwidth, GB/s. 1 MB/s is a thousand times below
    /// the slowest controller in the presets (Origin2000 Hub, 0.78 GB/s); 1 PB/s is 300 times an
    /// HBM3 GPU's 3.35 TB/s.
    pub const BANDWIDTH_GBPS: (f64, f64) = (1e-3, 1e6);
    /// Misses one CPU overlaps: 1 (dependent misses) to 1024, 20 times a Golden Cove core's 48
    /// L2 miss slots.
    pub const MLP: (f64, f64) = (1.0, 1024.0);
    /// A migration cost term (`fixed_ns`, `trap_ns`, `tlb_shootdown_ns_per_cpu`), ns: 0 to 1 s,
    /// a thousand times the slowest per-page cost in the presets (140 us on the Origin2000).
    pub const MIGRATION_NS: (f64, f64) = (0.0, 1e9);
    /// The largest cache line, bytes: four times IBM z's 256-byte line, the largest shipped.
    /// With at most 65535 lines a page, pages are then at most 32 MiB.
    pub const MAX_LINE_SIZE: u64 = 1024;
    /// Memory of one node, MiB: 1 PiB, twenty times the largest single-image machine
    /// (HPE Superdome Flex, 48 TiB). `memory_mib * 2^20` then fits in 50 bits.
    pub const MAX_NODE_MEMORY_MIB: u64 = 1 << 30;
    /// CPUs of the whole machine (CPU ids are 16 bits).
    pub const MAX_CPUS: u64 = u16::MAX as u64;
    /// The largest huge page, bytes: 1 GiB, x86-64's largest (PUD-mapped) page.
    pub const MAX_HUGE_PAGE: u64 = 1 << 30;
}

/// Each node's tier, renumbered densely over the kinds present (0 the fastest).
fn dense_tiers(nodes: &[RawNode]) -> Vec<u8> {
    let mut present: Vec<u8> = nodes.iter().map(|nd| nd.memory.tier()).collect();
    present.sort_unstable();
    present.dedup();
    nodes.iter().map(|nd| present.iter().position(|&t| t == nd.memory.tier()).unwrap_or(0) as u8).collect()
}

/// Refuses `v` outside `[lo, hi]` (or not finite), naming the key, the value and the unit.
fn in_range(origin: &str, key: &str, v: f64, (lo, hi): (f64, f64), unit: &str) -> Result<(), ModelError> {
    if v.is_finite() && v >= lo && v <= hi {
        return Ok(());
    }
    let unit = if unit.is_empty() { String::new() } else { format!(" {unit}") };
    Err(err(origin, format!("{key} = {v}: must be a number in [{lo}, {hi}]{unit}")))
}

fn err(origin: &str, message: impl Into<String>) -> ModelError {
    ModelError::Machine { origin: origin.to_string(), message: message.into() }
}

/// Converts a TOML deserialisation error into one line naming the source line and its text.
fn toml_error(origin: &str, text: &str, e: &toml::de::Error) -> ModelError {
    let msg = e.message().trim().replace('\n', " ");
    match e.span() {
        Some(span) => {
            let line_no = text[..span.start.min(text.len())].matches('\n').count() + 1;
            let line = text.lines().nth(line_no - 1).unwrap_or("").trim();
            err(&format!("{origin}:{line_no}"), format!("`{}`: {}", crate::error::shown(line), crate::error::one_line(&msg)))
        }
        None => err(origin, msg),
    }
}

impl Machine {
    /// Parses and validates machine TOML text; `origin` (a file path or preset name) prefixes
    /// every error message.
    ///
    /// # Errors
    /// Malformed TOML, unknown keys, wrong types, or any failed validation rule.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Machine, ModelError> {
        let raw: RawMachine = toml::from_str(text).map_err(|e| toml_error(origin, text, &e))?;
        Machine::from_raw(raw, origin)
    }

    /// Validates a raw machine and derives its tables.
    ///
    /// # Errors
    /// Each rule names the key and value: sizes not powers of two, no CPUs at all, no memory at
    /// all, a latency matrix that is not square, not positive, or not symmetric, non-positive
    /// bandwidths.
    pub fn from_raw(raw: RawMachine, origin: &str) -> Result<Machine, ModelError> {
        let n = raw.nodes.len();
        if raw.name.trim().is_empty() {
            return Err(err(origin, "name = \"\": a machine needs a name"));
        }
        if n == 0 {
            return Err(err(origin, "nodes: a machine needs at least one [[nodes]] entry"));
        }
        if n > MAX_NODES {
            return Err(err(origin, format!("nodes: {n} nodes, at most {MAX_NODES} are supported")));
        }
        if !raw.page_size.is_power_of_two() || raw.page_size < 512 {
            return Err(err(origin, format!("page_size = {}: must be a power of two >= 512", raw.page_size)));
        }
        if !raw.line_size.is_power_of_two() || raw.line_size < 8 || raw.line_size > bounds::MAX_LINE_SIZE || raw.line_size > raw.page_size {
            return Err(err(
                origin,
                format!(
                    "line_size = {}: must be a power of two between 8 and {}, at most page_size",
                    raw.line_size,
                    bounds::MAX_LINE_SIZE
                ),
            ));
        }
        if raw.page_size / raw.line_size > u16::MAX as u64 {
            return Err(err(origin, format!("page_size = {}: more than 65535 lines per page", raw.page_size)));
        }
        in_range(origin, "mlp", raw.mlp, bounds::MLP, "")?;
        if !(1..=16).contains(&raw.counter_bits) {
            return Err(err(origin, format!("counter_bits = {}: must be between 1 and 16", raw.counter_bits)));
        }
        if raw.nodes.iter().all(|nd| nd.cpus == 0) {
            return Err(err(origin, "nodes: no node has CPUs (cpus = 0 everywhere)"));
        }
        if raw.nodes.iter().all(|nd| nd.memory_mib == 0) {
            return Err(err(origin, "nodes: no node has memory (memory_mib = 0 everywhere)"));
        }
        // Counted in u64 before anything is allocated per CPU.
        let mut cpus = 0u64;
        for (i, nd) in raw.nodes.iter().enumerate() {
            cpus += u64::from(nd.cpus);
            if cpus > bounds::MAX_CPUS {
                return Err(err(origin, format!("nodes[{i}].cpus = {}: more than {} CPUs in all", nd.cpus, bounds::MAX_CPUS)));
            }
            if nd.memory_mib > bounds::MAX_NODE_MEMORY_MIB {
                return Err(err(
                    origin,
                    format!("nodes[{i}].memory_mib = {}: must be at most {} (1 PiB)", nd.memory_mib, bounds::MAX_NODE_MEMORY_MIB),
                ));
            }
            if nd.memory_mib > 0 {
                in_range(origin, &format!("nodes[{i}].bandwidth_gbps"), nd.bandwidth_gbps, bounds::BANDWIDTH_GBPS, "GB/s")?;
            }
            let busy = if nd.memory_mib > 0 { nd.bandwidth_gbps } else { 0.0 };
            if !(nd.antagonist_gbps >= 0.0 && (nd.antagonist_gbps == 0.0 || nd.antagonist_gbps < busy)) {
                return Err(err(
                    origin,
                    format!("nodes[{i}].antagonist_gbps = {}: must be at least 0 and below the node's bandwidth_gbps ({busy})", nd.antagonist_gbps),
                ));
            }
        }
        if raw.latency_ns.len() != n {
            return Err(err(
                origin,
                format!("latency_ns: {} rows for {n} nodes (must be {n} x {n})", raw.latency_ns.len()),
            ));
        }
        for (i, row) in raw.latency_ns.iter().enumerate() {
            if row.len() != n {
                return Err(err(origin, format!("latency_ns[{i}]: {} entries, expected {n}", row.len())));
            }
            for (j, &v) in row.iter().enumerate() {
                in_range(origin, &format!("latency_ns[{i}][{j}]"), v, bounds::LATENCY_NS, "ns")?;
            }
        }
        for i in 0..n {
            for j in 0..i {
                let (a, b) = (raw.latency_ns[i][j], raw.latency_ns[j][i]);
                if (a - b).abs() > 1e-9 * a.abs().max(b.abs()) {
                    return Err(err(
                        origin,
                        format!("latency_ns[{i}][{j}] = {a} but latency_ns[{j}][{i}] = {b}: the matrix must be symmetric"),
                    ));
                }
            }
        }
        let m = &raw.migration;
        for (key, v, range, unit) in [
            ("migration.fixed_ns", m.fixed_ns, bounds::MIGRATION_NS, "ns"),
            ("migration.trap_ns", m.trap_ns, bounds::MIGRATION_NS, "ns"),
            ("migration.copy_gbps", m.copy_gbps, bounds::BANDWIDTH_GBPS, "GB/s"),
            ("migration.tlb_shootdown_ns_per_cpu", m.tlb_shootdown_ns_per_cpu, bounds::MIGRATION_NS, "ns"),
        ] {
            in_range(origin, key, v, range, unit)?;
        }

        if let Some(w) = &raw.watermarks {
            w.check().map_err(|e| err(origin, e))?;
        }
        if let Some(h) = raw.huge_page_size {
            if !h.is_power_of_two() || h <= raw.page_size || h > bounds::MAX_HUGE_PAGE {
                return Err(err(
                    origin,
                    format!("huge_page_size = {h}: must be a power of two above page_size ({}) and at most {} (1 GiB)", raw.page_size, bounds::MAX_HUGE_PAGE),
                ));
            }
        }
        let tier = dense_tiers(&raw.nodes);
        let top_memory: u64 = raw.nodes.iter().zip(&tier).filter(|(_, &t)| t == 0).map(|(nd, _)| nd.memory_mib).sum();
        if tier.iter().any(|&t| t > 0) && top_memory == 0 {
            return Err(err(origin, "nodes: the fastest tier has no memory (memory_mib = 0 on every node of it): a tiered machine needs a fast tier"));
        }

        // At most MAX_CPUS entries (checked above).
        let mut cpu_node = Vec::with_capacity(cpus as usize);
        for (i, nd) in raw.nodes.iter().enumerate() {
            cpu_node.extend(std::iter::repeat(NodeId(i as u8)).take(nd.cpus as usize));
        }
        // memory_mib <= 2^30 (checked above), so the product fits in 50 bits.
        let capacity_pages: Vec<u64> =
            raw.nodes.iter().map(|nd| nd.memory_mib * (1 << 20) / raw.page_size).collect();
        let nearest: Vec<Vec<NodeId>> = (0..n)
            .map(|from| {
                let mut order: Vec<NodeId> =
                    (0..n).filter(|&j| capacity_pages[j] > 0).map(|j| NodeId(j as u8)).collect();
                order.sort_by(|a, b| {
                    let (la, lb) = (raw.latency_ns[from][a.index()], raw.latency_ns[from][b.index()]);
                    // Itself first, then by latency, then by number.
                    (a.index() != from, la, a.0).partial_cmp(&(b.index() != from, lb, b.0)).unwrap()
                });
                order
            })
            .collect();
        let latency_ps = raw.latency_ns.iter().flatten().map(|&v| ns_to_ps(v)).collect();
        let service_ps = raw
            .nodes
            .iter()
            .map(|nd| if nd.memory_mib == 0 { 0.0 } else { raw.line_size as f64 / nd.bandwidth_gbps * 1000.0 })
            .collect();
        let demotion = (0..n)
            .map(|from| {
                let below = (0..n).filter(|&j| tier[j] > tier[from] && capacity_pages[j] > 0).map(|j| tier[j]).min()?;
                nearest[from].iter().copied().find(|d| tier[d.index()] == below)
            })
            .collect();
        Ok(Machine { raw, cpu_node, capacity_pages, nearest, latency_ps, service_ps, tier, demotion })
    }

    /// Whether `node` is in the fastest tier (Linux's `node_is_toptier`): a tiering policy
    /// promotes to such nodes and demotes from them.
    pub fn is_toptier(&self, node: NodeId) -> bool {
        self.tier[node.index()] == 0
    }

    /// Whether the machine has more than one memory tier.
    pub fn is_tiered(&self) -> bool {
        self.tier.iter().any(|&t| t > 0)
    }

    /// Pages per huge page, where the machine declares huge pages.
    pub fn pages_per_huge(&self) -> Option<u32> {
        self.raw.huge_page_size.map(|h| (h / self.raw.page_size) as u32)
    }

    /// Node `node`'s free-memory watermarks in pages, if the machine declares them.
    pub fn watermarks(&self, node: usize) -> Option<crate::watermarks::Watermarks> {
        self.raw.watermarks.map(|w| w.pages(self.capacity_pages[node]))
    }

    /// Each node's antagonist ([`RawNode::antagonist_gbps`]) as a line rate, lines per ps.
    pub fn antagonist_lines_per_ps(&self) -> Vec<f64> {
        self.raw.nodes.iter().map(|nd| nd.antagonist_gbps / self.raw.line_size as f64 / 1000.0).collect()
    }

    /// The machine with an antagonist of `gbps` at every node that has both CPUs and memory
    /// (a program on those CPUs streaming through its local memory; on a tiered preset, the
    /// DRAM node), checked as a machine file's would be.
    ///
    /// # Errors
    /// `gbps` negative, or not below such a node's bandwidth.
    pub fn with_antagonist(mut self, gbps: f64, origin: &str) -> Result<Self, ModelError> {
        for nd in self.raw.nodes.iter_mut().filter(|nd| nd.cpus > 0 && nd.memory_mib > 0) {
            nd.antagonist_gbps = gbps;
        }
        Machine::from_raw(self.raw, origin)
    }

    /// The machine's name.
    pub fn name(&self) -> &str {
        &self.raw.name
    }

    /// Number of nodes.
    pub fn nodes(&self) -> usize {
        self.raw.nodes.len()
    }

    /// Number of CPUs.
    pub fn cpus(&self) -> usize {
        self.cpu_node.len()
    }

    /// The node a CPU belongs to.
    pub fn node_of(&self, cpu: CpuId) -> NodeId {
        self.cpu_node[cpu.0 as usize]
    }

    /// Nodes that have memory, in node order.
    pub fn memory_nodes(&self) -> Vec<NodeId> {
        (0..self.nodes()).filter(|&i| self.capacity_pages[i] > 0).map(|i| NodeId(i as u8)).collect()
    }

    /// Unloaded latency from a CPU on `from` to memory on `to`, ps.
    #[inline]
    pub fn latency(&self, from: NodeId, to: NodeId) -> Ps {
        self.latency_ps[from.index() * self.nodes() + to.index()]
    }

    /// Lines per page.
    pub fn lines_per_page(&self) -> u64 {
        self.raw.page_size / self.raw.line_size
    }

    /// Total pages the machine can hold.
    pub fn capacity_total(&self) -> u64 {
        self.capacity_pages.iter().sum()
    }

    /// Refuses a footprint of `pages` pages larger than the machine's memory.
    ///
    /// # Errors
    /// [`ModelError::OutOfMemory`], naming the pages needed and the machine's capacity.
    pub fn check_footprint(&self, pages: u64) -> Result<(), ModelError> {
        if pages > self.capacity_total() {
            return Err(ModelError::OutOfMemory { machine: self.name().to_string(), needed: pages, capacity: self.capacity_total() });
        }
        Ok(())
    }

    /// Time to migrate one page, charged to whoever performs the migration: the fixed cost, the
    /// copy at `copy_gbps`, and a TLB shootdown on `sharing_cpus` CPUs.
    /// This machine with every page-migration cost term divided by `k` (`fixed_ns`, `trap_ns`,
    /// `tlb_shootdown_ns_per_cpu`; `copy_gbps` multiplied): the machine for a policy whose
    /// periods and fault costs are divided by `k` to run `k` times faster, so that its moves,
    /// `k` times more frequent, keep their real share of the run time.
    pub fn with_time_scale(mut self, k: f64) -> Self {
        let m = &mut self.raw.migration;
        m.fixed_ns /= k;
        m.trap_ns /= k;
        m.tlb_shootdown_ns_per_cpu /= k;
        m.copy_gbps *= k;
        self
    }

    pub fn migration_cost_ps(&self, sharing_cpus: usize) -> Ps {
        self.page_move_cost_ps(sharing_cpus, true)
    }

    /// One page's move: its copy, the shoot-downs of `sharing_cpus` TLBs, and the fixed cost
    /// when `fixed` (a page moved as part of a larger mapping pays the fixed cost once for the
    /// mapping).
    pub fn page_move_cost_ps(&self, sharing_cpus: usize, fixed: bool) -> Ps {
        let m = &self.raw.migration;
        let copy_ns = self.raw.page_size as f64 / m.copy_gbps;
        ns_to_ps(if fixed { m.fixed_ns } else { 0.0 } + copy_ns + m.tlb_shootdown_ns_per_cpu * sharing_cpus as f64)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    pub(crate) const TWO_NODES: &str = r#"
name = "t2"
page_size = 4096
line_size = 64
mlp = 2.0
latency_ns = [[100.0, 200.0], [200.0, 100.0]]
[[nodes]]
cpus = 2
memory_mib = 1
bandwidth_gbps = 6.4
[[nodes]]
cpus = 0
memory_mib = 2
bandwidth_gbps = 12.8
[migration]
fixed_ns = 1000.0
copy_gbps = 4.096
tlb_shootdown_ns_per_cpu = 500.0
"#;

    #[test]
    fn parses_and_derives() {
        let m = Machine::from_toml_str(TWO_NODES, "t2.toml").unwrap();
        assert_eq!(m.cpus(), 2);
        assert_eq!(m.cpu_node, vec![NodeId(0), NodeId(0)]);
        assert_eq!(m.capacity_pages, vec![256, 512]);
        assert_eq!(m.nearest[1], vec![NodeId(1), NodeId(0)]);
        assert_eq!(m.latency(NodeId(0), NodeId(1)), 200_000);
        // 64 B at 6.4 GB/s = 10 ns.
        assert!((m.service_ps[0] - 10_000.0).abs() < 1e-6);
        // 1000 ns + 4096 B / 4.096 GB/s (1000 ns) + 2 × 500 ns.
        assert_eq!(m.migration_cost_ps(2), 3_000_000);
    }

    fn refused(text: &str) -> String {
        Machine::from_toml_str(text, "bad.toml").unwrap_err().to_string()
    }

    #[test]
    fn tiers_come_from_the_memory_kinds_and_slow_nodes_demote_to_the_nearest_slower_one() {
        // Two DRAM sockets, a CXL node near socket 0 and a PMEM node near socket 1.
        let text = r#"
name = "t4"
page_size = 4096
line_size = 64
mlp = 2.0
huge_page_size = 2097152
latency_ns = [[100.0, 200.0, 250.0, 400.0], [200.0, 100.0, 380.0, 300.0], [250.0, 380.0, 250.0, 500.0], [400.0, 300.0, 500.0, 300.0]]
[[nodes]]
cpus = 2
memory_mib = 1
bandwidth_gbps = 6.4
[[nodes]]
cpus = 2
memory_mib = 1
bandwidth_gbps = 6.4
[[nodes]]
cpus = 0
memory_mib = 4
bandwidth_gbps = 3.2
memory = "cxl"
[[nodes]]
cpus = 0
memory_mib = 4
bandwidth_gbps = 3.2
memory = "pmem"
[migration]
fixed_ns = 1000.0
copy_gbps = 4.096
tlb_shootdown_ns_per_cpu = 500.0
"#;
        let m = Machine::from_toml_str(text, "t4.toml").unwrap();
        assert_eq!(m.tier, vec![0, 0, 1, 2]);
        assert_eq!(m.demotion, vec![Some(NodeId(2)), Some(NodeId(2)), Some(NodeId(3)), None]);
        assert!(m.is_tiered() && m.is_toptier(NodeId(1)) && !m.is_toptier(NodeId(2)));
        assert_eq!(m.pages_per_huge(), Some(512));
        // Without CXL the PMEM node is tier 1, the next below DRAM.
        let no_cxl = Machine::from_toml_str(&text.replace("memory = \"cxl\"", ""), "t4.toml").unwrap();
        assert_eq!(no_cxl.tier, vec![0, 0, 0, 1]);
        assert_eq!(no_cxl.demotion, vec![Some(NodeId(3)), Some(NodeId(3)), Some(NodeId(3)), None]);
        // A machine of one kind has one tier and demotes nowhere; the echo omits the kind.
        let flat = Machine::from_toml_str(TWO_NODES, "t2.toml").unwrap();
        assert!(!flat.is_tiered());
        assert_eq!(flat.demotion, vec![None, None]);
        assert!(!toml::to_string(&flat.raw).unwrap().contains("memory ="));
        // A fast tier without memory, an unknown kind, a huge page that is not one.
        let e = refused(&text.replace("cpus = 2\nmemory_mib = 1\n", "cpus = 2\nmemory_mib = 0\n"));
        assert!(e.contains("the fastest tier has no memory"), "{e}");
        let e = refused(&text.replace("\"pmem\"", "\"hbm\""));
        assert!(e.contains("unknown variant `hbm`"), "{e}");
        let e = refused(&text.replace("2097152", "3000000"));
        assert!(e.contains("huge_page_size = 3000000: must be a power of two above page_size (4096)"), "{e}");
    }

    #[test]
    fn trap_cost_defaults_to_zero_and_must_not_be_negative() {
        let m = Machine::from_toml_str(TWO_NODES, "t2.toml").unwrap();
        assert_eq!(m.raw.migration.trap_ns, 0.0);
        let with = Machine::from_toml_str(&TWO_NODES.replace("fixed_ns = 1000.0", "fixed_ns = 1000.0\ntrap_ns = 25000.0"), "t2.toml").unwrap();
        assert_eq!(with.raw.migration.trap_ns, 25000.0);
        // The trap is not part of a page's own cost (a batch never pays it).
        assert_eq!(with.migration_cost_ps(2), m.migration_cost_ps(2));
        let e = refused(&TWO_NODES.replace("fixed_ns = 1000.0", "fixed_ns = 1000.0\ntrap_ns = -1.0"));
        assert_eq!(e, "bad.toml: migration.trap_ns = -1: must be a number in [0, 1000000000] ns");
    }

    #[test]
    fn asymmetric_latency_is_refused() {
        let e = refused(&TWO_NODES.replace("[200.0, 100.0]]", "[250.0, 100.0]]"));
        assert_eq!(
            e,
            "bad.toml: latency_ns[1][0] = 250 but latency_ns[0][1] = 200: the matrix must be symmetric"
        );
    }

    #[test]
    fn negative_latency_is_refused() {
        let e = refused(&TWO_NODES.replace("[[100.0,", "[[-5.0,"));
        assert_eq!(e, "bad.toml: latency_ns[0][0] = -5: must be a number in [1, 1000000] ns");
    }

    #[test]
    fn no_cpus_is_refused() {
        let e = refused(&TWO_NODES.replace("cpus = 2", "cpus = 0"));
        assert!(e.contains("no node has CPUs"), "{e}");
    }

    #[test]
    fn unknown_key_names_line_and_key() {
        let e = refused(&TWO_NODES.replace("mlp = 2.0", "mlp = 2.0\ncolour = \"red\""));
        assert!(e.starts_with("bad.toml:6: `colour = \"red\"`: unknown field `colour`"), "{e}");
    }

    #[test]
    fn wrong_type_names_line_key_and_value() {
        let e = refused(&TWO_NODES.replace("cpus = 2", "cpus = \"two\""));
        assert!(e.starts_with("bad.toml:8: `cpus = \"two\"`: invalid type: string \"two\""), "{e}");
        assert!(!e.contains('\n'));
    }

    #[test]
    fn malformed_toml_is_one_line() {
        let e = refused("name = \"x\"\npage_size = [");
        assert!(e.starts_with("bad.toml:"), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }

    #[test]
    fn non_square_matrix_is_refused() {
        let e = refused(&TWO_NODES.replace("[200.0, 100.0]]", "[200.0]]"));
        assert_eq!(e, "bad.toml: latency_ns[1]: 1 entries, expected 2");
    }

    #[test]
    fn timing_quantities_outside_their_physical_ranges_are_refused() {
        // Each of these hung the simulator or wrapped its clock before the ranges existed.
        let cases = [
            ("bandwidth_gbps = 6.4", "bandwidth_gbps = 1e-9", "nodes[0].bandwidth_gbps = 0.000000001: must be a number in [0.001, 1000000] GB/s"),
            ("[[100.0, 200.0]", "[[1e12, 200.0]", "latency_ns[0][0] = 1000000000000: must be a number in [1, 1000000] ns"),
            ("[[100.0, 200.0]", "[[1e20, 200.0]", "latency_ns[0][0] = 100000000000000000000: must be a number in [1, 1000000] ns"),
            ("[[100.0, 200.0]", "[[0.5, 200.0]", "latency_ns[0][0] = 0.5: must be a number in [1, 1000000] ns"),
            ("mlp = 2.0", "mlp = 1e9", "mlp = 1000000000: must be a number in [1, 1024]"),
            ("copy_gbps = 4.096", "copy_gbps = 1e-9", "migration.copy_gbps = 0.000000001: must be a number in [0.001, 1000000] GB/s"),
            ("fixed_ns = 1000.0", "fixed_ns = 1e300", &format!("migration.fixed_ns = {}: must be a number in [0, 1000000000] ns", 1e300)),
            ("tlb_shootdown_ns_per_cpu = 500.0", "tlb_shootdown_ns_per_cpu = 1e10", "migration.tlb_shootdown_ns_per_cpu = 10000000000: must be a number in [0, 1000000000] ns"),
            ("line_size = 64", "line_size = 4096", "line_size = 4096: must be a power of two between 8 and 1024, at most page_size"),
        ];
        for (from, to, want) in cases {
            assert_eq!(refused(&TWO_NODES.replace(from, to)), format!("bad.toml: {want}"), "{to}");
        }
        // The bounds themselves are accepted.
        let edge = TWO_NODES.replace("[[100.0, 200.0], [200.0, 100.0]]", "[[1.0, 1e6], [1e6, 1.0]]").replace("bandwidth_gbps = 6.4", "bandwidth_gbps = 1e-3");
        let m = Machine::from_toml_str(&edge, "edge.toml").unwrap();
        assert_eq!(m.latency(NodeId(0), NodeId(1)), 1_000_000_000);
    }

    #[test]
    fn counts_are_checked_before_anything_is_allocated() {
        // A billion CPUs on one node used to allocate a byte per CPU before the 65535 check;
        // u32::MAX CPUs aborted.
        for cpus in ["1000000000", "4294967295", "65536"] {
            let e = refused(&TWO_NODES.replace("cpus = 2", &format!("cpus = {cpus}")));
            assert_eq!(e, format!("bad.toml: nodes[0].cpus = {cpus}: more than 65535 CPUs in all"));
        }
        let e = refused(&TWO_NODES.replace("cpus = 0", "cpus = 65534"));
        assert_eq!(e, "bad.toml: nodes[1].cpus = 65534: more than 65535 CPUs in all");
    }

    #[test]
    fn memory_that_would_wrap_is_refused() {
        // 2^44 + 1 MiB times 2^20 wrapped to 2^20 bytes: 256 pages, and "512" in messages.
        let e = refused(&TWO_NODES.replace("memory_mib = 1\n", &format!("memory_mib = {}\n", (1u64 << 44) + 1)));
        assert_eq!(e, "bad.toml: nodes[0].memory_mib = 17592186044417: must be at most 1073741824 (1 PiB)");
        let m = Machine::from_toml_str(&TWO_NODES.replace("memory_mib = 1\n", "memory_mib = 1073741824\n"), "big.toml").unwrap();
        assert_eq!(m.capacity_pages[0], 1 << 38);
    }
    proptest! {
        // Fuzzing the parser: arbitrary edits of a valid file never panic, and an error is one line.
        #[test]
        fn parser_never_panics(pos in 0usize..400, junk in ".{0,8}") {
            let mut text = TWO_NODES.to_string();
            let mut p = pos.min(text.len());
            while !text.is_char_boundary(p) { p -= 1; }
            text.insert_str(p, &junk);
            if let Err(e) = Machine::from_toml_str(&text, "f.toml") {
                prop_assert!(!e.to_string().contains('\n'));
            }
        }
    }
}
