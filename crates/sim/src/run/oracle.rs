//! The placement of a run, and the profile pass the `oracle` placement needs.
//!
//! A placement whose capabilities say it needs a profile
//! ([`numaplace_model::placement::PlacementCaps::needs_profile`], i.e. `oracle`, the offline
//! bound) is not built from its parameters: before the run, the workload is played once more,
//! untimed — a fresh instance of the same spec, class, init mode and seed, or the same trace file
//! read again — through a tally of the lines each node's threads fetch of each page, with the
//! run's own binding (the node of each thread's CPU). [`numaplace_model::placement::Oracle`] is
//! built from that table: each page homed on the node whose threads fetch the most lines of it.
//!
//! **What is counted.** Only the timed iterations (1 and up), because the bound is on the
//! timed run's local share (`local_fraction`), which the initialisation epoch does not enter.
//! A page that only the initialisation touches is left out of the table, and its first touch
//! places it where first-touch would (the oracle's fallback), so every page still gets a home.
//! With no dynamic policy and no page spilling from a full node, no static placement has more
//! local lines in the timed run than the oracle: each page's local lines are at most the
//! largest count of its row, which the oracle achieves.
//!
//! **Cost.** One extra pass over the workload's transactions, generated or read, without
//! timing: on the Origin2000 at class A it adds 5 % to SP's run and about as much again as
//! the run to IS's and CG's, whose generation dominates their runs. And `8 × nodes` bytes a
//! page for the table, checked
//! against [`numaplace_model::pagetable::MAX_STATE_BYTES`] before it is allocated and freed
//! before the run starts. A trace is read twice, so it must be a regular file (a pipe cannot be
//! read again); a trace that changed between the two reads is refused.
//!
//! The run's observer is called after each profiled epoch with a [`Progress`] at iteration 0,
//! epoch 0 and no simulated time (the run has not started), so a long profile can be stopped.

use crate::binding::Placed;
use crate::error::SimError;
use crate::run::config::RunConfig;
use crate::run::kind::Progress;
use crate::run::source::build_workload;
use crate::trace;
use crate::workload::{Epoch, Workload};
use numaplace_model::pagetable::check_state_bytes;
use numaplace_model::placement::{self, Oracle, Placement};
use numaplace_model::{Machine, ModelError, Region, Resolved, Spec};

/// The placement of `cfg` for a run on `machine` with threads bound as `threads`, with its
/// resolved spec: from its registry entry, or, for a placement that needs a profile, from a
/// profile pass over the workload ([`profile`]; `trace` is the trace the run replays, and
/// `regions` the run's workload's regions, which the profiled workload must have too).
///
/// # Errors
/// A bad placement spec; for a profiled placement, anything [`profile`] refuses; and
/// [`SimError::Stopped`] when the observer asks the profile to stop.
pub fn placement(
    machine: &Machine,
    cfg: &RunConfig,
    threads: &[Placed],
    trace: Option<&str>,
    regions: &[Region],
    observer: &mut dyn FnMut(&Progress) -> bool,
) -> Result<(Box<dyn Placement>, Resolved), SimError> {
    let (info, resolved) = placement::resolve(&Spec::parse(&cfg.placement)?)?;
    if !info.caps.needs_profile {
        return Ok(((info.build)(&resolved, machine, cfg.seed)?, resolved));
    }
    let counts = profile(machine, cfg, threads, trace, regions, observer)?;
    Ok((Box::new(Oracle::from_counts(&counts, machine)), resolved))
}

/// Plays the workload of `cfg` untimed and counts, for each page and node, the lines of the
/// page that threads on the node fetch in the timed iterations: `counts[page * nodes + node]`,
/// saturating. `threads` is the run's binding; a trace (`trace`) is opened again.
///
/// # Errors
/// A bad workload, a table above the simulator's state bound, a trace that is not a regular
/// file or that no longer matches `regions` (the run's) or the run, a malformed trace, or
/// [`SimError::Stopped`] from the observer.
pub fn profile(
    machine: &Machine,
    cfg: &RunConfig,
    threads: &[Placed],
    trace: Option<&str>,
    regions: &[Region],
    observer: &mut dyn FnMut(&Progress) -> bool,
) -> Result<Vec<u64>, SimError> {
    let mut wl: Box<dyn Workload> = match trace {
        Some(path) => reopen(machine, cfg, path)?,
        None => build_workload(machine, cfg)?.0,
    };
    if wl.regions() != regions {
        let what = trace.map_or_else(|| format!("workload '{}'", cfg.workload), |p| format!("trace '{p}'"));
        return Err(ModelError::Config(format!("placement 'oracle': {what} changed between the profile and the run")).into());
    }
    let nn = machine.nodes();
    let pages = wl.pages();
    let bytes = pages.saturating_mul(nn as u64 * std::mem::size_of::<u64>() as u64);
    check_state_bytes(&format!("the oracle's profile of {pages} pages × {nn} nodes"), bytes)?;
    let mut counts = vec![0u64; pages as usize * nn];
    let node: Vec<usize> = threads.iter().map(|p| p.node.index()).collect();
    let iterations = wl.iterations();
    let mut epoch = Epoch::default();
    while wl.next_epoch(&mut epoch) {
        if epoch.iteration > 0 {
            for (work, &n) in epoch.threads.iter().zip(&node) {
                for r in &work.txns {
                    let c = &mut counts[r.page as usize * nn + n];
                    *c = c.saturating_add(r.count as u64);
                }
            }
        }
        if !observer(&Progress { iteration: 0, iterations, epochs: 0, simulated_ns: 0.0 }) {
            return Err(SimError::Stopped);
        }
    }
    if let Some(e) = wl.take_error() {
        return Err(e);
    }
    Ok(counts)
}

/// Opens the run's trace a second time, for the profile: only a regular file can be.
fn reopen(machine: &Machine, cfg: &RunConfig, path: &str) -> Result<Box<dyn Workload>, SimError> {
    let p = std::path::Path::new(path);
    if !std::fs::metadata(p).is_ok_and(|m| m.is_file()) {
        return Err(ModelError::Config(format!(
            "placement 'oracle' reads the trace twice (a profile, then the run), but '{path}' is not a regular file: save the trace to a file first"
        ))
        .into());
    }
    let t = trace::open(p)?;
    let m = &machine.raw;
    trace::check_fits(t.header(), path, &format!("machine '{}'", machine.name()), m.page_size, m.line_size, cfg.threads)?;
    Ok(t)
}
