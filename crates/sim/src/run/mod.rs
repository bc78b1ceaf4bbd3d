//! The run layer: a request becomes a result here, for every kind of run.
//!
//! * [`request`]: every run option declared once ([`request::OPTIONS`]) and the resolution of a
//!   raw request into a typed [`config::RunConfig`];
//! * [`config`]: that configuration, and the kind of run it makes ([`config::RunKind`],
//!   chosen once by [`config::RunKind::of`]);
//! * [`kind`]: the interface each kind implements ([`kind::KindOfRun`]) and [`kind::Progress`];
//! * [`source`]: where a run's accesses come from (a generated workload, or a trace read once);
//! * the kinds: [`page`] (one program on the page-level engine), [`protocol`] (one line-level
//!   program on the protocol engine, seed 004), [`system`] (a multiprogrammed job stream,
//!   seed 002); [`oracle`]: the profile pass of a placement that needs one;
//! * this module: the dispatcher ([`run_any_observed`], [`export_trace`]).
//!
//! The files form a layered graph, checked by `tests/test_crate_layering.py`: `config` ←
//! `request` ← `kind`, `source` ← `oracle` ← `page` ← `system`, `protocol` ← this module.

pub mod config;
pub mod kind;
pub mod oracle;
pub mod page;
pub mod protocol;
pub mod request;
pub mod source;
pub mod system;

pub use config::{RunConfig, RunKind};
pub use kind::{KindOfRun, Progress};
pub use page::{run, run_observed, run_on, run_on_logged, run_on_observed, simulate, simulate_on, write_decisions, EpochRecord, LogTo, ResolvedConfig, Run, SimResult};
pub use request::DEFAULT_QUANTUM_NS;
pub use source::{build_workload, settle_threads, workload_ctx};

use crate::error::SimError;
use crate::presets::load_machine;
use numaplace_model::Machine;

/// A finished run of any kind.
pub enum Outcome {
    Page(Run),
    Protocol(protocol::ProtocolRun),
    System(system::SystemRun),
}

impl Outcome {
    /// The result as pretty JSON (byte-identical for identical runs).
    pub fn to_json(&self) -> String {
        match self {
            Outcome::Page(r) => r.result.to_json(),
            Outcome::Protocol(r) => r.to_json(),
            Outcome::System(r) => r.to_json(),
        }
    }
}

/// Runs `cfg` as the kind of run it makes ([`RunKind::of`]: a system when it names a job
/// stream, else the engine it asks for, `auto` being the machine's), with an observer called
/// as each kind reports progress: a page-level run at its epoch boundaries, a system run at its
/// jobs' completions (`iteration` of `iterations`: jobs done of the stream's), a protocol run
/// at its global barriers and every `protocol::PROGRESS_EVENTS` events (`iteration`: barriers
/// passed; `iterations` 0, the total being unknown).
///
/// # Errors
/// The kind's own ([`KindOfRun::run`]), and [`SimError::Stopped`].
pub fn run_any_observed(cfg: &RunConfig, observer: &mut dyn FnMut(&Progress) -> bool) -> Result<Outcome, SimError> {
    let machine = load_machine(&cfg.machine)?;
    run_any_on(&machine, cfg, observer)
}

/// [`run_any_observed`] on an already loaded machine (`cfg.machine` is then only a label).
///
/// # Errors
/// As [`run_any_observed`].
pub fn run_any_on(machine: &Machine, cfg: &RunConfig, observer: &mut dyn FnMut(&Progress) -> bool) -> Result<Outcome, SimError> {
    Ok(match RunKind::of(machine, cfg) {
        RunKind::Page => Outcome::Page(page::Page::run(machine, cfg, observer)?),
        RunKind::Protocol => Outcome::Protocol(protocol::Protocol::run(machine, cfg, observer)?),
        RunKind::System => Outcome::System(system::System::run(machine, cfg, observer)?),
    })
}

/// Writes the workload of `cfg` on `machine` as a trace at `path`: a page-level workload in
/// the binary form, or the text form if `text`; a line-level program (a protocol run) as a
/// version 2 trace, which has no text form.
///
/// # Errors
/// A bad configuration (a system run has no single workload to write), a text form asked of a
/// line-level program, or a write error.
pub fn export_trace(machine: &Machine, cfg: &RunConfig, path: &std::path::Path, text: bool) -> Result<(), SimError> {
    match RunKind::of(machine, cfg) {
        RunKind::Protocol if text => Err(numaplace_model::ModelError::Config("a line-level program has no text trace form: write the binary form (drop text)".into()).into()),
        RunKind::Protocol => protocol::export(machine, cfg, path).map(|_| ()),
        RunKind::Page | RunKind::System => page::export(machine, cfg, path, text),
    }
}
