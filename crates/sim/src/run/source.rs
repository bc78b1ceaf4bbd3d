//! Where a run's accesses come from: a generated workload (its spec, class and context) or a
//! trace (its path, given as `trace` or as the workload `trace:file=PATH`, read once here for
//! every kind of run), and the thread count a trace implies.

use crate::error::SimError;
use crate::run::config::RunConfig;
use crate::trace;
use crate::workload::{Workload, WorkloadCtx};
use crate::workloads;
use numaplace_model::{Machine, ModelError, Resolved, Spec};

/// The workload context a configuration implies on `machine`.
pub fn workload_ctx(machine: &Machine, cfg: &RunConfig) -> WorkloadCtx {
    WorkloadCtx {
        threads: cfg.threads,
        page_size: machine.raw.page_size,
        line_size: machine.raw.line_size,
        seed: cfg.seed,
        init: cfg.init,
    }
}

/// Builds the workload of a configuration (not a trace) with its resolved spec.
///
/// # Errors
/// An unknown workload or a bad parameter.
pub fn build_workload(machine: &Machine, cfg: &RunConfig) -> Result<(Box<dyn Workload>, Resolved), SimError> {
    let mut spec = Spec::parse(&cfg.workload)?;
    if let Some(class) = &cfg.class {
        if spec.params.iter().any(|(k, _)| k == "class") {
            return Err(ModelError::Spec(format!(
                "workload '{}': class given twice (in the spec and as --class {class})",
                spec.name
            ))
            .into());
        }
        spec.params.push(("class".into(), class.clone()));
    }
    Ok(workloads::build(&spec, &workload_ctx(machine, cfg))?)
}

/// `cfg` with its thread count settled: a trace's own (from its header, its body not read)
/// when the workload is a trace and the request gave none.
///
/// # Errors
/// A bad trace workload spec, or a trace whose header cannot be read.
pub fn settle_threads(cfg: &RunConfig) -> Result<RunConfig, SimError> {
    let header = match (trace_path(cfg)?, cfg.threads_from_trace) {
        (Some(path), true) => Some(trace::header(std::path::Path::new(&path))?),
        _ => None,
    };
    Ok(with_threads_of(cfg, header.as_ref()))
}

/// `cfg` with the thread count of `header` (a trace's) when it asks for it.
pub fn with_threads_of(cfg: &RunConfig, header: Option<&trace::TraceHeader>) -> RunConfig {
    let threads = match (header, cfg.threads_from_trace) {
        (Some(h), true) => h.threads,
        _ => cfg.threads,
    };
    RunConfig { threads, threads_from_trace: false, ..cfg.clone() }
}

/// The trace a configuration replays: its `trace` path, or the `file` of a `trace:file=PATH`
/// workload (checked against the trace workload's declared parameters). The one reading of
/// it: page and protocol runs, the oracle's profile and `trace export` all ask here.
///
/// # Errors
/// A trace workload spec with a bad or missing key, or a `class` given with a trace.
pub fn trace_path(cfg: &RunConfig) -> Result<Option<String>, SimError> {
    let path = match &cfg.trace {
        Some(p) => p.clone(),
        None if crate::run::request::is_trace_spec(&cfg.workload) => {
            let (_, r) = crate::workloads::REGISTRY.resolve(&Spec::parse(&cfg.workload)?)?;
            r.text("file").to_string()
        }
        None => return Ok(None),
    };
    if let Some(class) = &cfg.class {
        return Err(ModelError::Spec(format!("workload 'trace': class given ({class}), but a trace was recorded at its own size")).into());
    }
    if path.is_empty() {
        return Err(ModelError::Spec("workload 'trace': file= names no file".into()).into());
    }
    Ok(Some(path))
}

