//! The machine of the host this runs on, from what Linux reports of its NUMA nodes (sysfs:
//! CPUs, memory, the SLIT's distances) and of their performance (ACPI HMAT), by one documented
//! rule (docs/machines.md, "Detecting this host"). Text in, machine out: the callers read the
//! files.

use super::{bounds, default_counter_bits, Machine, MemoryKind, RawMachine, RawMigration, RawNode};
use crate::error::ModelError;

/// The node numbers among the entry names of a sysfs node directory (`node0`, `node2`, ...;
/// other names such as `possible` or `power` are skipped), sorted. Names in, numbers out: the
/// callers (host detection, the runtime) list the directory.
pub fn sysfs_node_ids<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> Vec<u32> {
    let mut ids: Vec<u32> = names.into_iter().filter_map(|n| n.as_ref().strip_prefix("node")?.parse().ok()).collect();
    ids.sort_unstable();
    ids
}

/// The CPUs of a Linux cpulist such as `0-3,8,10-11` (sysfs `nodeN/cpulist`), or `None` if
/// the text is not one. Text in, numbers out: the callers (host detection, the runtime) read
/// the files.
///
/// The list is refused (`None`) when it holds more than [`bounds::MAX_CPUS`] CPUs — checked
/// before each range is expanded, so `0-999999999` allocates nothing — or names a CPU twice:
/// the kernel writes each CPU once (`bitmap_print_to_pagebuf`), so an overlap is not a cpulist.
/// The CPUs come back sorted.
pub fn parse_cpulist(text: &str) -> Option<Vec<usize>> {
    let text = text.trim();
    let mut out = Vec::new();
    if text.is_empty() {
        return Some(out);
    }
    let max = bounds::MAX_CPUS as usize;
    for part in text.split(',') {
        let (a, b): (usize, usize) = match part.split_once('-') {
            Some((a, b)) => (a.trim().parse().ok()?, b.trim().parse().ok()?),
            None => {
                let a = part.trim().parse().ok()?;
                (a, a)
            }
        };
        if b < a || b - a >= max - out.len().min(max) {
            return None;
        }
        out.extend(a..=b);
    }
    out.sort_unstable();
    if out.windows(2).any(|w| w[0] == w[1]) {
        return None;
    }
    Some(out)
}

/// `MemTotal` in kB from a sysfs `nodeN/meminfo` text (`Node 0 MemTotal:  262144 kB`).
pub fn parse_meminfo_total_kb(text: &str) -> Option<u64> {
    text.lines().find(|l| l.contains("MemTotal:")).and_then(|l| l.split_whitespace().rev().nth(1).and_then(|v| v.parse().ok()))
}

/// One NUMA node of a host as Linux reports it (a sysfs `nodeN/` directory), in dense order.
/// The callers read the files (host detection in the simulator, the runtime at start-up); this
/// is what they read.
#[derive(Clone, Debug, PartialEq)]
pub struct HostNode {
    /// CPUs of the node (`cpulist`).
    pub cpus: u32,
    /// The node's memory (`meminfo`'s `MemTotal`), KiB; 0 for a memory-less node.
    pub memory_kib: u64,
    /// The node's row of the ACPI SLIT (`distance`), where 10 means local.
    pub distance: Vec<f64>,
}

/// What sysfs cannot supply about a host, with the documented defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct HostOptions {
    pub name: String,
    /// The local latency the SLIT's 10 stands for, ns.
    pub local_ns: f64,
    /// Memory bandwidth per node, GB/s.
    pub bandwidth_gbps: f64,
    pub mlp: f64,
    pub page_size: u64,
    pub line_size: u64,
}

impl Default for HostOptions {
    fn default() -> Self {
        HostOptions { name: "this-host".into(), local_ns: 90.0, bandwidth_gbps: 20.0, mlp: 10.0, page_size: 4096, line_size: 64 }
    }
}

/// Linux's page-migration costs (`move_pages(2)`: per page, unmap with a TLB flush by IPIs to
/// the CPUs that run the mm, copy, remap): the assumptions of the `modern-2s` preset
/// (`machines/modern-2s.toml`), where each is argued. In particular the TLB shootdown costs
/// 250 ns per CPU, not a whole IPI round trip (1-2 us) per CPU: Linux sends the shootdown IPIs
/// to all CPUs at once (`flush_tlb_mm_range` -> `on_each_cpu_cond_mask`) and waits for them
/// together, so each extra CPU adds only a fraction of one round trip.
pub const LINUX_MIGRATION: RawMigration =
    RawMigration { fixed_ns: 2000.0, trap_ns: 0.0, copy_gbps: 10.0, tlb_shootdown_ns_per_cpu: 250.0 };

/// What the kernel publishes about one memory node's performance from ACPI HMAT (Linux's
/// `nodeN/access1/initiators/` for CPU initiators, else `access0/`, any initiator;
/// Documentation/admin-guide/mm/numaperf.rst), as the callers read it. `None` where nothing
/// is published (no directory, no file, or the kernel's 0 for "unknown").
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostPerf {
    /// The access class the values come from (`"access1"` or `"access0"`).
    pub class: String,
    /// `read_latency`: ns, from the node's local initiators.
    pub read_latency_ns: Option<f64>,
    /// `read_bandwidth`, converted from MiB/s to GB/s (1e9 B/s).
    pub read_bandwidth_gbps: Option<f64>,
    /// The local initiators linked under `initiators/` (`nodeK` links), as dense node indices.
    pub initiators: Vec<usize>,
}

/// A host's machine and how each of its figures was obtained, one line each: the lines that
/// start with `assumed` name the values the kernel did not publish.
#[derive(Clone, Debug, PartialEq)]
pub struct HostMachine {
    pub machine: Machine,
    pub notes: Vec<String>,
}

/// The machine of a host from its NUMA nodes as Linux reports them, without HMAT (as
/// [`host_machine_hmat`] with nothing published).
///
/// # Errors
/// As [`host_machine_hmat`].
pub fn host_machine(nodes: &[HostNode], opts: &HostOptions, origin: &str) -> Result<Machine, ModelError> {
    host_machine_hmat(nodes, &vec![HostPerf::default(); nodes.len()], opts, origin).map(|h| h.machine)
}

/// Node numbers as a compact list, `0-2,5`.
fn node_list(ids: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < ids.len() {
        let mut j = i;
        while j + 1 < ids.len() && ids[j + 1] == ids[j] + 1 {
            j += 1;
        }
        parts.push(if j == i { ids[i].to_string() } else { format!("{}-{}", ids[i], ids[j]) });
        i = j + 1;
    }
    parts.join(",")
}

/// The machine of a host from its NUMA nodes and what HMAT publishes, by one documented rule
/// (docs/machines.md, "Detecting this host"):
///
/// * local latency `L[j]` of each node with memory: HMAT's `read_latency` where published,
///   else `opts.local_ns` (assumed);
/// * directed latency from a CPU on node `i` to memory on node `j`:
///   `a[i][j] = L[j] * distance[i][j] / r[j]`, where `r[j]` is the SLIT distance from `j`'s
///   nearest HMAT initiator (its linked initiators, else the nearest node with CPUs) when HMAT
///   gives `L[j]`, and 10 (the SLIT's local distance) when `L[j]` is assumed. Without HMAT this
///   is `local_ns * distance[i][j] / 10`;
/// * the machine's symmetric `latency_ns[i][j]`: `a[j][j]` on the diagonal; elsewhere the mean
///   of the directions that can occur (a CPU on one side, memory on the other), or of both
///   when neither can;
/// * bandwidth of each node with memory: HMAT's `read_bandwidth` where published, else
///   `opts.bandwidth_gbps` (assumed; also given, unused, to memory-less nodes);
/// * memory: `MemTotal` in whole MiB, rounded down, but at least 1 MiB for a node with any
///   memory, so only a node without memory is memory-less;
/// * MLP, page and line size: from `opts`; counter width: the model's default (Linux has no
///   per-page access counters); migration: [`LINUX_MIGRATION`].
///
/// `origin` names where the nodes were read, in the description and in errors.
///
/// # Errors
/// A distance row of the wrong length, a `perf` of the wrong length, or a machine
/// [`Machine::from_raw`] refuses (no CPUs, no memory, too many nodes, values out of bounds).
pub fn host_machine_hmat(nodes: &[HostNode], perf: &[HostPerf], opts: &HostOptions, origin: &str) -> Result<HostMachine, ModelError> {
    let n = nodes.len();
    if let Some((i, row)) = nodes.iter().enumerate().find(|(_, nd)| nd.distance.len() != n) {
        return Err(ModelError::Config(format!("{origin}: node {i} has {} distances for {n} nodes", row.distance.len())));
    }
    if perf.len() != n {
        return Err(ModelError::Config(format!("{origin}: performance of {} nodes for {n} nodes", perf.len())));
    }
    let d = |i: usize, j: usize| nodes[i].distance[j];
    let has_mem = |j: usize| nodes[j].memory_kib > 0;
    let has_cpu = |i: usize| nodes[i].cpus > 0;
    // The local latency of each node and the distance it stands for.
    let local: Vec<(f64, f64)> = (0..n)
        .map(|j| match perf[j].read_latency_ns {
            Some(l) => {
                let near = |ks: &mut dyn Iterator<Item = usize>| ks.map(|k| d(k, j)).fold(f64::INFINITY, f64::min);
                let mut r = near(&mut perf[j].initiators.iter().copied().filter(|&k| k < n));
                if !r.is_finite() {
                    r = near(&mut (0..n).filter(|&k| has_cpu(k)));
                }
                (l, r)
            }
            None => (opts.local_ns, 10.0),
        })
        .collect();
    let a = |i: usize, j: usize| local[j].0 * d(i, j) / local[j].1;
    let latency_ns: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| {
                    if i == j {
                        return a(i, i);
                    }
                    let ij = has_cpu(i) && has_mem(j);
                    let ji = has_cpu(j) && has_mem(i);
                    match (ij, ji) {
                        (true, false) => a(i, j),
                        (false, true) => a(j, i),
                        _ => (a(i, j) + a(j, i)) / 2.0,
                    }
                })
                .collect()
        })
        .collect();
    let bandwidth: Vec<f64> = (0..n).map(|j| perf[j].read_bandwidth_gbps.unwrap_or(opts.bandwidth_gbps)).collect();

    // Where each figure came from, by node (nodes with memory only: the others' are unused).
    let mem_nodes: Vec<usize> = (0..n).filter(|&j| has_mem(j)).collect();
    let mut notes = Vec::new();
    let mut sources = |what: &str, file: &str, published: &dyn Fn(usize) -> bool, assumed: String| {
        let (from, not): (Vec<usize>, Vec<usize>) = mem_nodes.iter().partition(|&&j| published(j));
        let mut classes: Vec<&str> = from.iter().map(|&j| perf[j].class.as_str()).collect();
        classes.sort_unstable();
        classes.dedup();
        if !from.is_empty() {
            notes.push(format!("{what}: HMAT {}/initiators/{file} on node {}", classes.join("+"), node_list(&from)));
        }
        if !not.is_empty() {
            notes.push(format!("assumed {what} {assumed} on node {} (no HMAT {file})", node_list(&not)));
        }
    };
    sources("local latency", "read_latency", &|j| perf[j].read_latency_ns.is_some(), format!("{} ns", opts.local_ns));
    sources("bandwidth", "read_bandwidth", &|j| perf[j].read_bandwidth_gbps.is_some(), format!("{} GB/s", opts.bandwidth_gbps));
    if n > 1 {
        notes.push(if perf.iter().any(|p| p.read_latency_ns.is_some()) {
            "remote latency = the memory node's local latency x SLIT distance / the SLIT distance from its nearest HMAT initiator (10 where assumed)".into()
        } else {
            "remote latency = local latency x SLIT distance / 10".into()
        });
    }

    let raw = RawMachine {
        name: opts.name.clone(),
        description: format!("detected from {origin} ({n} node{}); {}", if n == 1 { "" } else { "s" }, notes.join("; ")),
        page_size: opts.page_size,
        line_size: opts.line_size,
        mlp: opts.mlp,
        counter_bits: default_counter_bits(),
        latency_ns,
        nodes: nodes
            .iter()
            .zip(&bandwidth)
            .map(|(nd, &bw)| RawNode {
                cpus: nd.cpus,
                memory_mib: if nd.memory_kib == 0 { 0 } else { (nd.memory_kib / 1024).max(1) },
                bandwidth_gbps: bw,
                memory: MemoryKind::Dram,
                antagonist_gbps: 0.0,
            })
            .collect(),
        migration: LINUX_MIGRATION,
        watermarks: None,
        huge_page_size: None,
        protocol: None,
    };
    Ok(HostMachine { machine: Machine::from_raw(raw, origin)?, notes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::NodeId;

    #[test]
    fn sysfs_texts_parse() {
        assert_eq!(parse_cpulist("0-3,8,10-11\n"), Some(vec![0, 1, 2, 3, 8, 10, 11]));
        assert_eq!(parse_cpulist(""), Some(vec![]));
        assert_eq!(parse_cpulist("3-1"), None);
        assert_eq!(parse_cpulist("x"), None);
        assert_eq!(parse_meminfo_total_kb("Node 0 MemTotal:       262144 kB\nNode 0 MemFree: 1 kB\n"), Some(262144));
        assert_eq!(parse_meminfo_total_kb("Node 0 MemFree: 1 kB\n"), None);
        assert_eq!(sysfs_node_ids(["node2", "possible", "node0", "nodeX", "node10", "power"]), vec![0, 2, 10]);
    }

    #[test]
    fn a_host_machine_follows_the_documented_rule() {
        let node = |cpus, memory_kib, distance: &[f64]| HostNode { cpus, memory_kib, distance: distance.to_vec() };
        // An asymmetric SLIT, a small node and a CPU-only (memory-less) node.
        let nodes = [node(4, 4 << 20, &[10.0, 20.0, 30.0]), node(2, 100, &[22.0, 10.0, 30.0]), node(2, 0, &[30.0, 30.0, 10.0])];
        let m = host_machine(&nodes, &HostOptions::default(), "sysfs").unwrap();
        assert_eq!(m.raw.latency_ns[0][0], 90.0);
        assert_eq!(m.raw.latency_ns[0][1], 189.0); // 90 x mean(20, 22) / 10
        assert_eq!(m.raw.latency_ns[1][0], 189.0);
        assert_eq!(m.raw.nodes.iter().map(|n| n.memory_mib).collect::<Vec<_>>(), [4096, 1, 0]);
        assert_eq!(m.memory_nodes(), [NodeId(0), NodeId(1)]);
        assert_eq!(m.raw.migration.tlb_shootdown_ns_per_cpu, 250.0);
        assert_eq!(m.raw.counter_bits, default_counter_bits());
        let e = host_machine(&nodes[..2], &HostOptions::default(), "sysfs").unwrap_err();
        assert_eq!(e.to_string(), "sysfs: node 0 has 3 distances for 2 nodes");
    }
    #[test]
    fn hmat_latencies_scale_by_the_slit_from_the_nearest_initiator() {
        let node = |cpus, memory_kib, distance: &[f64]| HostNode { cpus, memory_kib, distance: distance.to_vec() };
        let perf = |l: Option<f64>, bw: Option<f64>, initiators: &[usize]| HostPerf {
            class: "access1".into(),
            read_latency_ns: l,
            read_bandwidth_gbps: bw,
            initiators: initiators.to_vec(),
        };
        // A socket with memory, a CPU-only socket (no memory), and a CPU-less memory node whose
        // HMAT links no initiator: its nearest node with CPUs (node 0, distance 20) stands in.
        let nodes = [node(4, 1 << 20, &[10.0, 20.0, 20.0]), node(4, 0, &[20.0, 10.0, 40.0]), node(0, 1 << 20, &[20.0, 40.0, 10.0])];
        let hm = host_machine_hmat(&nodes, &[perf(Some(100.0), Some(50.0), &[0]), perf(None, None, &[]), perf(Some(300.0), None, &[])], &HostOptions::default(), "sysfs").unwrap();
        let l = &hm.machine.raw.latency_ns;
        assert_eq!(l[0][0], 100.0);
        assert_eq!(l[1][0], 200.0); // only CPU 1 -> memory 0 can occur: 100 x 20 / 10
        assert_eq!(l[0][2], 300.0); // 300 x 20 / 20
        assert_eq!(l[1][2], 600.0); // 300 x 40 / 20
        assert_eq!(l[2][2], 150.0); // 300 x 10 / 20, never used by a CPU
        assert_eq!(hm.machine.raw.nodes.iter().map(|n| n.bandwidth_gbps).collect::<Vec<_>>(), [50.0, 20.0, 20.0]);
        // Node 1 has no memory, so nothing of it is reported as assumed.
        assert_eq!(hm.notes.iter().filter(|n| n.starts_with("assumed")).collect::<Vec<_>>(), ["assumed bandwidth 20 GB/s on node 2 (no HMAT read_bandwidth)"]);
        assert_eq!(node_list(&[0, 1, 2, 4, 6, 7]), "0-2,4,6-7");
        let e = host_machine_hmat(&nodes, &[], &HostOptions::default(), "sysfs").unwrap_err();
        assert_eq!(e.to_string(), "sysfs: performance of 0 nodes for 3 nodes");
    }

    #[test]
    fn a_cpulist_is_bounded_and_counts_each_cpu_once() {
        assert_eq!(parse_cpulist("0-999999999"), None);
        assert_eq!(parse_cpulist("0-65534"), Some((0..65535).collect()));
        assert_eq!(parse_cpulist("0-65535"), None);
        // Many ranges that each fit but together do not.
        assert_eq!(parse_cpulist(&(0..100).map(|i| format!("{}-{}", i * 1000, i * 1000 + 999)).collect::<Vec<_>>().join(",")), None);
        // Overlaps: Linux never writes them, and counting them twice inflated the node.
        assert_eq!(parse_cpulist("0-1,1,0-1"), None);
        assert_eq!(parse_cpulist("4,0-1"), Some(vec![0, 1, 4]));
        assert_eq!(parse_cpulist("99999999999999999999"), None);
    }
}
