//! The runtime's fixed surroundings, [`Host`]: the kernel interface, the machine the model
//! sees, the configuration and the clock. Set once at start-up; every other part of the
//! [`crate::runtime::Runtime`] reads it.

use crate::config::Config;
use crate::error::{Code, RtError};
use crate::sys::Sys;
use numaplace_model::placement::PlacementCaps;
use numaplace_model::topology::{host_machine, HostNode, HostOptions};
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
        let machine = machine_of(sys.as_ref())?;
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

/// The model's machine for this host's topology.
fn machine_of(sys: &dyn Sys) -> Result<Machine, RtError> {
    let t = sys.topology();
    let nodes: Vec<HostNode> = (0..t.nodes())
        .map(|n| HostNode { cpus: t.cpus[n].len() as u32, memory_kib: t.mem_bytes[n] >> 10, distance: t.distance[n].iter().map(|&d| f64::from(d)).collect() })
        .collect();
    let opts = HostOptions { page_size: sys.page_size() as u64, ..HostOptions::default() };
    host_machine(&nodes, &opts, "sysfs").map_err(|e| RtError::new(Code::Sys, format!("this host's topology: {e}")))
}
