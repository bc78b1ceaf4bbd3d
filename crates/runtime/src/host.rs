//! The runtime's fixed surroundings, [`Host`]: the kernel interface, the machine the model
//! sees, the configuration and the clock. Set once at start-up; every other part of the
//! [`crate::runtime::Runtime`] reads it.

use crate::config::Config;
use crate::error::{Code, RtError};
use crate::sys::Sys;
use numaplace_model::placement::PlacementCaps;
use numaplace_model::topology::{host_machine, parse_cpulist, HostNode, HostOptions, MemoryKind};
use numaplace_model::{placement, Machine, Spec};
use std::time::Instant;

/// The kernel, the machine, the configuration and the start time.
pub struct Host {
    pub sys: Box<dyn Sys>,
    pub machine: Machine,
    pub cfg: Config,
    /// What the configured placement (`cfg.placement`) can do, from its registry entry.
    pub placement_caps: PlacementCaps,
    /// Per node, the nodes by distance (the mover's fallbacks).
    pub(crate) nearest: Vec<Vec<usize>>,
    pub(crate) started: Instant,
}

impl Host {
    /// The host of `sys` with `cfg`, the configured placement checked (a bad name fails here,
    /// at init).
    ///
    /// # Errors
    /// A bad placement spec, or a topology the model refuses.
    pub fn new(sys: Box<dyn Sys>, cfg: Config) -> Result<Host, RtError> {
        let machine = machine_of(sys.as_ref(), Some(cfg.slow_nodes.as_str()))?;
        let spec_err = |e: &dyn std::fmt::Display| RtError::new(Code::Spec, e.to_string());
        let spec = Spec::parse(&cfg.placement).map_err(|e| spec_err(&e))?;
        let (info, _) = placement::REGISTRY.resolve(&spec).map_err(|e| spec_err(&e))?;
        placement::check_driver(info, numaplace_model::dynamic::Driver::Runtime).map_err(|e| spec_err(&e))?;
        placement::build(&spec, &machine, cfg.seed).map_err(|e| spec_err(&e))?;
        let placement_caps = placement::REGISTRY.get(&spec.name).map_err(|e| spec_err(&e))?.caps;
        let nearest = machine.nearest.iter().map(|v| v.iter().map(|n| n.index()).collect()).collect();
        Ok(Host { sys, machine, cfg, placement_caps, nearest, started: Instant::now() })
    }

    pub fn nodes(&self) -> usize {
        self.machine.nodes()
    }

    pub fn page_size(&self) -> usize {
        self.sys.page_size()
    }

    /// Time since the runtime started, in the model's picoseconds.
    pub(crate) fn now(&self) -> numaplace_model::Ps {
        (self.started.elapsed().as_nanos() as u64).saturating_mul(1000)
    }

    /// Whether sampling stays off on this host: one node, where every access is local, unless
    /// forced (`NUMAPLACE_FORCE=1`).
    pub fn one_node_off(&self) -> bool {
        self.nodes() == 1 && !self.cfg.force
    }
}

/// The variable of the setting (`slow_nodes`, `numaplace run --slow-nodes`) that declares
/// nodes slow, as errors name it.
fn slow_nodes_env() -> &'static str {
    numaplace_model::rtconfig::option("slow_nodes").map_or("slow_nodes", |o| o.env)
}

/// The model's machine for this host's topology, each node's memory kind by
/// [`memory_kinds`] (`slow`: the `slow_nodes` setting, if any).
///
/// # Errors
/// A `slow` that is not a list of this host's nodes, or a topology the model refuses.
pub(crate) fn machine_of(sys: &dyn Sys, slow: Option<&str>) -> Result<Machine, RtError> {
    let t = sys.topology();
    let nodes: Vec<HostNode> = (0..t.nodes())
        .map(|n| HostNode { cpus: t.cpus[n].len() as u32, memory_kib: t.mem_bytes[n] >> 10, distance: t.distance[n].iter().map(|&d| f64::from(d)).collect() })
        .collect();
    let opts = HostOptions { page_size: sys.page_size() as u64, ..HostOptions::default() };
    let topo_err = |e: &dyn std::fmt::Display| RtError::new(Code::Sys, format!("this host's topology: {e}"));
    let machine = host_machine(&nodes, &opts, "sysfs").map_err(|e| topo_err(&e))?;
    let declared = match slow.map(str::trim).filter(|s| !s.is_empty()) {
        None => Vec::new(),
        Some(text) => {
            let bad = |what: String| RtError::new(Code::Invalid, format!("{}={text}: {what}", slow_nodes_env()));
            let ids = parse_cpulist(text).ok_or_else(|| bad("expected a node list such as 2 or 2-3".into()))?;
            ids.iter()
                .map(|&id| t.dense(id as i32).ok_or_else(|| bad(format!("no node {id} on this host (nodes: {:?})", t.linux_ids))))
                .collect::<Result<Vec<usize>, RtError>>()?
        }
    };
    let kinds = memory_kinds(&t.tiers, &declared, t.nodes());
    if !declared.is_empty() && (0..t.nodes()).all(|n| t.mem_bytes[n] == 0 || kinds[n] != MemoryKind::Dram) {
        return Err(RtError::new(
            Code::Invalid,
            format!("{}={}: every node with memory would be slow; a fast tier needs one", slow_nodes_env(), slow.unwrap_or_default().trim()),
        ));
    }
    if kinds.iter().all(|k| *k == MemoryKind::Dram) {
        return Ok(machine);
    }
    let why = if declared.is_empty() { "below the kernel's top memory tier" } else { "declared slow, or below the kernel's top memory tier" };
    let mut raw = machine.raw.clone();
    for (node, &k) in raw.nodes.iter_mut().zip(&kinds) {
        node.memory = k;
    }
    let slow: Vec<String> = (0..kinds.len()).filter(|&n| kinds[n] != MemoryKind::Dram).map(|n| t.linux_ids[n].to_string()).collect();
    raw.description += &format!("; node {} cxl ({why})", slow.join(","));
    Machine::from_raw(raw, "sysfs").map_err(|e| topo_err(&e))
}

/// Each node's memory kind, by one documented rule (docs/runtime.md, "Memory tiers"): a
/// node the kernel ranks below its top memory tier (`tiers[n]`: the N of the
/// `memory_tierN` listing it, the lowest N being the top; `None` where none lists it) is CXL,
/// as is a node in `slow` (declared by the user: a host whose kernel puts every node in one
/// tier); every other node is DRAM. Linux 6.1 ranks a CPU-less node with boot memory in the
/// DRAM tier (only dax/kmem memory ranks lower), so being CPU-less alone does not make a
/// node slow here either.
pub fn memory_kinds(tiers: &[Option<u32>], slow: &[usize], nodes: usize) -> Vec<MemoryKind> {
    let top = tiers.iter().flatten().min().copied();
    (0..nodes)
        .map(|n| {
            let below = matches!((tiers.get(n).copied().flatten(), top), (Some(t), Some(top)) if t > top);
            if below || slow.contains(&n) {
                MemoryKind::Cxl
            } else {
                MemoryKind::Dram
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::FakeSys;
    use numaplace_model::NodeId;
    use MemoryKind::{Cxl, Dram};

    #[test]
    fn nodes_below_the_kernels_top_tier_or_declared_slow_are_cxl() {
        assert_eq!(memory_kinds(&[Some(4), Some(22), None], &[], 3), [Dram, Cxl, Dram]);
        assert_eq!(memory_kinds(&[Some(4), Some(4)], &[1], 2), [Dram, Cxl]);
        assert_eq!(memory_kinds(&[], &[], 2), [Dram, Dram]);
        let mut sys = FakeSys::new(3, 1000);
        sys.topo.cpus[2].clear(); // a CPU-less node: still DRAM unless said otherwise
        let m = machine_of(&sys, None).unwrap();
        assert!(!m.is_tiered());
        let m = machine_of(&sys, Some("2")).unwrap();
        assert!(m.is_toptier(NodeId(0)) && !m.is_toptier(NodeId(2)));
        assert_eq!(m.demotion[0], Some(NodeId(2)));
        assert!(m.raw.description.ends_with("; node 2 cxl (declared slow, or below the kernel's top memory tier)"), "{}", m.raw.description);
        sys.topo.tiers = vec![Some(4), Some(4), Some(22)];
        assert!(!machine_of(&sys, None).unwrap().is_toptier(NodeId(2)), "the kernel's tiers alone");
        let e = machine_of(&sys, Some("7")).unwrap_err();
        assert_eq!(e.message, "NUMAPLACE_SLOW_NODES=7: no node 7 on this host (nodes: [0, 1, 2])");
        let e = machine_of(&sys, Some("two")).unwrap_err();
        assert_eq!(e.message, "NUMAPLACE_SLOW_NODES=two: expected a node list such as 2 or 2-3");
        let e = machine_of(&sys, Some("0-2")).unwrap_err();
        assert_eq!(e.message, "NUMAPLACE_SLOW_NODES=0-2: every node with memory would be slow; a fast tier needs one");
    }
}
