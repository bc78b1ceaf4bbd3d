//! What a workload does, without timing it: `numaplace workload show`.
//!
//! Plays the initialisation epoch and the first timed iteration through a page-use tally (no
//! engine, no placement) and reports, per phase, the transactions, the pages touched, and how
//! much of the data each phase shares across nodes (a page is shared when threads on more than
//! one node touch it in that phase).

use crate::binding::bind;
use crate::error::SimError;
use crate::run::config::RunConfig;
use crate::run::source::build_workload;
use crate::workload::{Epoch, Op};
use numaplace_model::Machine;
use serde::Serialize;

/// One phase of the first timed iteration (or the initialisation).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PhaseInfo {
    pub iteration: u32,
    pub phase: &'static str,
    pub transactions: u64,
    pub writes: u64,
    pub pages_touched: u64,
    /// Pages touched by threads on more than one node.
    pub pages_shared: u64,
    /// Share of the phase's transactions that go to shared pages.
    pub shared_transactions_fraction: f64,
}

/// A workload's shape.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct WorkloadInfo {
    pub workload: String,
    pub threads: usize,
    pub page_size: u64,
    pub footprint_pages: u64,
    pub footprint_bytes: u64,
    pub iterations: u32,
    /// `(name, first page, pages)`.
    pub regions: Vec<(String, u32, u32)>,
    pub phases: Vec<PhaseInfo>,
    pub transactions_per_iteration: u64,
}

/// Describes the workload of `cfg` on `machine`.
///
/// # Errors
/// A bad configuration.
pub fn inspect(machine: &Machine, cfg: &RunConfig) -> Result<WorkloadInfo, SimError> {
    let cfg = &crate::run::source::settle_threads(cfg)?;
    let placed = bind(machine, cfg.threads, cfg.binding, cfg.oversubscribe)?;
    let (mut wl, resolved) = build_workload(machine, cfg)?;
    let pages = wl.pages();
    // The footprint is checked, as a run checks it, before the per-page bitmask is allocated
    // (`stream:pages=1000000000` used to allocate 24 GB here and abort).
    machine.check_footprint(pages)?;
    // Per page: a bitmask of the nodes that touched it in the current phase (nodes ≥ 64 share
    // bit 63: enough to tell "more than one").
    let bytes = pages.saturating_mul(std::mem::size_of::<u64>() as u64);
    numaplace_model::pagetable::check_state_bytes(&format!("workload show of {pages} pages"), bytes)?;
    let mut seen = vec![0u64; pages as usize];
    let mut epoch = Epoch::default();
    let mut phases: Vec<PhaseInfo> = Vec::new();
    while wl.next_epoch(&mut epoch) {
        if epoch.iteration > 1 {
            break;
        }
        seen.fill(0);
        let (mut tx, mut writes) = (0u64, 0u64);
        for (t, w) in epoch.threads.iter().enumerate() {
            let bit = 1u64 << placed[t].node.index().min(63);
            for r in &w.txns {
                seen[r.page as usize] |= bit;
                tx += r.count as u64;
                if r.op == Op::Write {
                    writes += r.count as u64;
                }
            }
        }
        let mut shared_tx = 0u64;
        for w in &epoch.threads {
            for r in &w.txns {
                if seen[r.page as usize].count_ones() > 1 {
                    shared_tx += r.count as u64;
                }
            }
        }
        let touched = seen.iter().filter(|&&b| b != 0).count() as u64;
        let shared = seen.iter().filter(|&&b| b.count_ones() > 1).count() as u64;
        phases.push(PhaseInfo {
            iteration: epoch.iteration,
            phase: epoch.phase,
            transactions: tx,
            writes,
            pages_touched: touched,
            pages_shared: shared,
            shared_transactions_fraction: if tx == 0 { 0.0 } else { shared_tx as f64 / tx as f64 },
        });
    }
    if let Some(e) = wl.take_error() {
        return Err(e);
    }
    Ok(WorkloadInfo {
        workload: resolved.to_string(),
        threads: cfg.threads,
        page_size: machine.raw.page_size,
        footprint_pages: pages,
        footprint_bytes: pages * machine.raw.page_size,
        iterations: wl.iterations(),
        regions: wl.regions().iter().map(|r| (r.name.clone(), r.first_page, r.pages)).collect(),
        transactions_per_iteration: phases.iter().filter(|p| p.iteration == 1).map(|p| p.transactions).sum(),
        phases,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::preset;

    #[test]
    fn stream_phases_are_private_and_random_is_shared() {
        let m = preset("origin2000").unwrap();
        let cfg = RunConfig { workload: "stream:pages=64,iterations=2".into(), ..RunConfig::default() };
        let i = inspect(&m, &cfg).unwrap();
        assert_eq!(i.footprint_pages, 192);
        assert_eq!(i.phases.len(), 2);
        assert_eq!(i.phases[1].phase, "sweep");
        assert_eq!(i.phases[1].pages_shared, 0);
        assert_eq!(i.transactions_per_iteration, 192 * 128);
        let cfg = RunConfig { workload: "random:pages=64,accesses=4000".into(), ..RunConfig::default() };
        let i = inspect(&m, &cfg).unwrap();
        assert!(i.phases[1].shared_transactions_fraction > 0.99, "{:?}", i.phases[1]);
    }

    #[test]
    fn a_footprint_is_checked_before_it_is_allocated() {
        // On origin2000 (8 GiB) three arrays of a billion pages do not fit: the run's error.
        let m = preset("origin2000").unwrap();
        let cfg = RunConfig { workload: "stream:pages=1000000000".into(), ..RunConfig::default() };
        let e = inspect(&m, &cfg).unwrap_err().to_string();
        assert_eq!(e, "out of memory: 3000000000 pages needed but the machine 'origin2000' holds 524288");
        // On a machine that holds them, the inspection's own 8 bytes a page exceed the bound.
        let big = Machine::from_toml_str(
            "name = \"big\"\npage_size = 4096\nline_size = 64\nmlp = 1.0\nlatency_ns = [[100.0]]\n\
             [[nodes]]\ncpus = 16\nmemory_mib = 1073741824\nbandwidth_gbps = 10.0\n\
             [migration]\nfixed_ns = 0.0\ncopy_gbps = 1.0\ntlb_shootdown_ns_per_cpu = 0.0\n",
            "big",
        )
        .unwrap();
        let e = inspect(&big, &cfg).unwrap_err().to_string();
        assert_eq!(
            e,
            "out of memory: workload show of 3000000000 pages needs 24000000000 bytes of simulator state, more than the bound of 17179869184 bytes"
        );
    }
}
