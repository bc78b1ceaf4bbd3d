//! Binding threads to CPUs.
//!
//! `spread` (the default, as the seeds ran their codes) deals threads out over the nodes with
//! CPUs: thread 0 on node 0, thread 1 on node 1, ..., wrapping to each node's next CPU.
//! `compact` fills node 0's CPUs first, then node 1's, and so on. With more threads than CPUs
//! the run is refused unless oversubscription is allowed; then threads are dealt out in the
//! same order and the threads sharing a CPU each run at `1 / k` speed (time slicing).

use numaplace_model::{CpuId, Machine, ModelError, NodeId};

/// How threads are placed on CPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binding {
    Spread,
    Compact,
}

impl Binding {
    pub const NAMES: &'static [&'static str] = &["spread", "compact"];

    /// Parses a binding name.
    ///
    /// # Errors
    /// An unknown name, with the known ones listed.
    pub fn parse(s: &str) -> Result<Binding, ModelError> {
        match s {
            "spread" => Ok(Binding::Spread),
            "compact" => Ok(Binding::Compact),
            _ => Err(ModelError::unknown("binding", s, Binding::NAMES)),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Binding::Spread => "spread",
            Binding::Compact => "compact",
        }
    }
}

/// Where one thread runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placed {
    pub cpu: CpuId,
    pub node: NodeId,
    /// Threads sharing this thread's CPU (1 unless oversubscribed).
    pub share: u32,
}

/// Binds `threads` threads on `machine`.
///
/// # Errors
/// Zero threads, or more threads than CPUs without `oversubscribe`.
pub fn bind(machine: &Machine, threads: usize, binding: Binding, oversubscribe: bool) -> Result<Vec<Placed>, ModelError> {
    let cpus = machine.cpus();
    if threads == 0 {
        return Err(ModelError::Config("threads = 0: a run needs at least one thread".into()));
    }
    if threads > cpus && !oversubscribe {
        return Err(ModelError::Config(format!(
            "{threads} threads but machine '{}' has {cpus} CPUs (pass --oversubscribe to time-share CPUs)",
            machine.name()
        )));
    }
    let order: Vec<CpuId> = match binding {
        Binding::Compact => (0..cpus).map(|c| CpuId(c as u16)).collect(),
        Binding::Spread => {
            // CPUs of each node, then dealt round by round.
            let mut per_node: Vec<Vec<CpuId>> = vec![Vec::new(); machine.nodes()];
            for (c, n) in machine.cpu_node.iter().enumerate() {
                per_node[n.index()].push(CpuId(c as u16));
            }
            let rounds = per_node.iter().map(Vec::len).max().unwrap_or(0);
            (0..rounds).flat_map(|r| per_node.iter().filter_map(move |cs| cs.get(r).copied())).collect()
        }
    };
    let mut load = vec![0u32; cpus];
    let cpus_used: Vec<CpuId> = (0..threads).map(|t| order[t % cpus]).collect();
    for c in &cpus_used {
        load[c.0 as usize] += 1;
    }
    Ok(cpus_used
        .into_iter()
        .map(|cpu| Placed { cpu, node: machine.node_of(cpu), share: load[cpu.0 as usize] })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::preset;

    #[test]
    fn spread_deals_over_nodes_and_compact_fills() {
        let m = preset("origin2000").unwrap();
        let s = bind(&m, 10, Binding::Spread, false).unwrap();
        let nodes: Vec<u8> = s.iter().map(|p| p.node.0).collect();
        assert_eq!(nodes, vec![0, 1, 2, 3, 4, 5, 6, 7, 0, 1]);
        let c = bind(&m, 5, Binding::Compact, false).unwrap();
        let nodes: Vec<u8> = c.iter().map(|p| p.node.0).collect();
        assert_eq!(nodes, vec![0, 0, 1, 1, 2]);
        assert!(s.iter().chain(&c).all(|p| p.share == 1));
    }

    #[test]
    fn oversubscription_is_refused_or_time_shared() {
        let m = preset("origin2000").unwrap();
        let e = bind(&m, 17, Binding::Spread, false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "17 threads but machine 'origin2000' has 16 CPUs (pass --oversubscribe to time-share CPUs)"
        );
        let p = bind(&m, 17, Binding::Spread, true).unwrap();
        assert_eq!(p[0].share, 2);
        assert_eq!(p[16].cpu, p[0].cpu);
        assert_eq!(p[1].share, 1);
    }

    #[test]
    fn cpu_less_nodes_get_no_threads() {
        let m = preset("cxl-tiered").unwrap();
        let p = bind(&m, m.cpus(), Binding::Spread, false).unwrap();
        assert!(p.iter().all(|x| m.raw.nodes[x.node.index()].cpus > 0));
    }
}
