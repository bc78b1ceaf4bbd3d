//! One run of the protocol engine (seed 004) from a run configuration: the same request,
//! machine presets, placement registry and result path as a page-level run, with a
//! line-level program ([`crate::protocol::programs`], or a version 2 trace) in place of the
//! workload.

use numaplace_model::error::shown_path;
use crate::error::SimError;
use crate::protocol::engine;
use crate::protocol::params::{BufferMode, ProtocolOptions, ProtocolParams, ProxyMode};
use crate::protocol::program::{LineCtx, LineProgram};
use crate::protocol::programs;
use crate::protocol::result::ProtocolResult;
use crate::run::config::{RunConfig, RunKind};
use crate::run::kind::{KindOfRun, Progress};
use crate::run::request::check_applies;
use crate::run::source::trace_path;
use crate::trace::line::LineTrace;
use numaplace_model::placement;
use numaplace_model::topology::RawMachine;
use numaplace_model::{Machine, ModelError, Spec};
use serde::Serialize;
use std::path::Path;

/// The configuration of a protocol run as resolved: enough to repeat it exactly.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ProtocolConfig {
    pub machine: String,
    pub machine_spec: RawMachine,
    pub engine: &'static str,
    pub workload: String,
    pub placement: String,
    pub proxies: &'static str,
    pub buffers: &'static str,
    pub threads: usize,
    pub seed: u64,
    /// The line-level trace replayed, if the program came from one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    pub numaplace_version: &'static str,
}

/// A protocol run's result: its configuration, then the engine's record (one flat row).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ProtocolRun {
    pub config: ProtocolConfig,
    #[serde(flatten)]
    pub result: ProtocolResult,
}

impl ProtocolRun {
    /// The result as pretty JSON (byte-identical for identical runs).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("results serialise")
    }
}

/// The line-level program of `cfg` on `machine`, with the spec it resolved to and the trace
/// it came from.
///
/// # Errors
/// No program named, an unknown program or parameter, a trace that is unreadable, page-level
/// or does not fit the machine.
pub fn program(machine: &Machine, cfg: &RunConfig) -> Result<(Box<dyn LineProgram>, String, Option<String>), SimError> {
    let m = &machine.raw;
    if let Some(path) = trace_path(cfg)? {
        let t = LineTrace::open(Path::new(&path))?;
        let h = t.header();
        let mismatch = |what: &str, trace: u64, machine_has: u64| {
            ModelError::Config(format!("{}: the trace's {what} is {trace} but machine '{}' has {machine_has}", shown_path(Path::new(&path)), machine.name()))
        };
        if h.page_size != m.page_size {
            return Err(mismatch("page size", h.page_size, m.page_size).into());
        }
        if h.line_size != m.line_size {
            return Err(mismatch("line size", h.line_size, m.line_size).into());
        }
        let spec = h.meta("source").map_or_else(|| format!("trace:{path}"), str::to_string);
        return Ok((Box::new(t), spec, Some(path)));
    }
    if !cfg.given.contains(&"workload") {
        let known: Vec<&str> = programs::REGISTRY.names().collect();
        return Err(ModelError::Config(format!(
            "a protocol run needs a line-level program: give workload (one of {}) or a line-level trace",
            known.join(", ")
        ))
        .into());
    }
    let ctx = LineCtx { threads: machine.nodes(), page_size: m.page_size, line_size: m.line_size, seed: cfg.seed };
    let (p, resolved) = programs::build(&Spec::parse(&cfg.workload)?, &ctx)?;
    Ok((p, resolved.to_string(), None))
}

/// The protocol kind of run ([`KindOfRun`]). Its progress: global barriers passed, the total
/// unknown (`iterations` 0).
pub struct Protocol;

impl KindOfRun for Protocol {
    const KIND: RunKind = RunKind::Protocol;
    type Output = ProtocolRun;

    fn run(machine: &Machine, cfg: &RunConfig, observer: &mut dyn FnMut(&Progress) -> bool) -> Result<ProtocolRun, SimError> {
        let mut line_observer = |p: &engine::ProtocolProgress| {
            let at = Progress { iteration: p.barriers.min(u64::from(u32::MAX)) as u32, iterations: 0, epochs: p.barriers, simulated_ns: p.simulated_ns };
            observer(&at)
        };
        run_protocol_observed(machine, cfg, &mut line_observer)
    }
}

/// Runs `cfg` on the protocol engine on `machine`.
///
/// # Errors
/// An option that applies to page-level runs only, a thread count other than the machine's
/// node count, a machine without protocol parameters, a bad program or placement, a
/// placement that needs a page-level profile, or the engine's own errors (a violated
/// program contract, a lack of progress naming the stuck transactions).
pub fn run_protocol(machine: &Machine, cfg: &RunConfig) -> Result<ProtocolRun, SimError> {
    run_protocol_observed(machine, cfg, &mut |_| true)
}

/// [`run_protocol`] with an observer ([`engine::run_observed`]): called after every global
/// barrier and every [`engine::PROGRESS_EVENTS`] events; `false` stops the run.
///
/// # Errors
/// As [`run_protocol`], and [`SimError::Stopped`].
pub fn run_protocol_observed(
    machine: &Machine,
    cfg: &RunConfig,
    observer: &mut dyn FnMut(&engine::ProtocolProgress) -> bool,
) -> Result<ProtocolRun, SimError> {
    check_applies(cfg, RunKind::Protocol)?;
    let nodes = machine.nodes();
    if cfg.given.contains(&"threads") && cfg.threads != nodes {
        return Err(ModelError::Config(format!(
            "threads = {}: the protocol engine runs one thread per node, and machine '{}' has {nodes} nodes",
            cfg.threads,
            machine.name()
        ))
        .into());
    }
    let params = ProtocolParams::from_machine(machine)?;
    let (mut program, workload, trace) = program(machine, cfg)?;
    let (info, resolved) = placement::resolve(&Spec::parse(&cfg.placement)?)?;
    if info.caps.needs_profile {
        let can: Vec<&str> = placement::REGISTRY.iter().filter(|i| !i.caps.needs_profile).map(|i| i.name).collect();
        return Err(ModelError::Config(format!(
            "placement '{}' needs a page-level profile of the run, which the protocol engine does not make; it runs: {}",
            info.name,
            can.join(", ")
        ))
        .into());
    }
    let place = (info.build)(&resolved, machine, cfg.seed)?;
    let opts = ProtocolOptions {
        proxies: ProxyMode::parse(&cfg.proxies)?,
        buffers: BufferMode::parse(&cfg.buffers)?,
        ..ProtocolOptions::default()
    };
    let result = engine::run_observed(machine, &params, program.as_mut(), place.as_ref(), &resolved.to_string(), &opts, observer);
    // A malformed trace ends its threads early, which the engine may report first as a broken
    // contract: the trace's own error is the cause.
    if let Some(e) = program.take_error() {
        return Err(e);
    }
    let result = result?;
    let config = ProtocolConfig {
        machine: machine.name().to_string(),
        machine_spec: machine.raw.clone(),
        engine: RunKind::Protocol.name(),
        workload,
        placement: resolved.to_string(),
        proxies: opts.proxies.name(),
        buffers: opts.buffers.name(),
        threads: nodes,
        seed: cfg.seed,
        trace,
        numaplace_version: env!("CARGO_PKG_VERSION"),
    };
    Ok(ProtocolRun { config, result })
}

/// Writes the line-level program of `cfg` as a version 2 trace at `out`.
///
/// # Errors
/// As [`program`], and a write error.
pub fn export(machine: &Machine, cfg: &RunConfig, out: &Path) -> Result<(u64, u64), SimError> {
    check_applies(cfg, RunKind::Protocol)?;
    let (mut p, spec, _) = program(machine, cfg)?;
    let m = &machine.raw;
    let meta = vec![
        ("source".to_string(), spec),
        ("seed".to_string(), cfg.seed.to_string()),
        ("machine".to_string(), machine.name().to_string()),
        ("writer".to_string(), format!("numaplace {}", env!("CARGO_PKG_VERSION"))),
    ];
    crate::trace::line::export_line(p.as_mut(), m.page_size, m.line_size, meta, out)
}
