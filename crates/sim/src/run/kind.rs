//! The interface every kind of run implements, and what a run reports while it runs.
//!
//! A kind of run (page, protocol, system; [`RunKind`]) is one module behind [`KindOfRun`]:
//! it checks that the request's options apply to it, builds what it needs from the
//! configuration, runs, and returns its own result record. The dispatcher
//! (`run::run_any_observed`) chooses the kind once ([`RunKind::of`]) and calls it; each kind
//! reports its progress as a [`Progress`], whatever its own unit of progress is.

use crate::error::SimError;
use crate::run::config::{RunConfig, RunKind};
use numaplace_model::Machine;

/// Where a run is, reported to an observer at each epoch boundary.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// The iteration of the epoch just finished: 0 is the (untimed) initialisation.
    pub iteration: u32,
    /// The workload's timed iterations (0 when unknown: a protocol run counts barriers).
    pub iterations: u32,
    /// Epochs finished so far, the initialisation's included.
    pub epochs: u64,
    /// Simulated time so far, ns.
    pub simulated_ns: f64,
}

/// One kind of run.
pub trait KindOfRun {
    /// Which kind this is (the names its options' `applies` use).
    const KIND: RunKind;
    /// The kind's finished run: its result record, and whatever else the caller may keep.
    type Output;

    /// Runs `cfg` on `machine`, calling `observer` as the run goes (returning `false` stops it
    /// with [`SimError::Stopped`]); the observer sees the run and never changes it.
    ///
    /// # Errors
    /// An option given that does not apply to this kind, any configuration error of the kind
    /// (each a one-line message), and [`SimError::Stopped`].
    fn run(machine: &Machine, cfg: &RunConfig, observer: &mut dyn FnMut(&Progress) -> bool) -> Result<Self::Output, SimError>;
}
