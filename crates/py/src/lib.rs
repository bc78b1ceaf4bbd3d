//! The `numaplace._native` extension: a thin PyO3 layer over the simulator.
//!
//! Functions take plain strings and numbers and return JSON text (parsed on the Python side),
//! so the Rust result types stay the single definition of every field. Long runs release the
//! GIL. Every Rust error becomes a Python exception of a class a user can catch; all derive
//! from `NumaplaceError`.

use numaplace_model::dynamic::{self, Driver};
use numaplace_model::spec::{ParamDecl, ParamKind, Spec};
use numaplace_model::ModelError;
use numaplace_sim::detect::{detect_host, detected_toml, to_toml, DetectOptions};
use numaplace_sim::presets::{load_machine as load, PRESETS};
use numaplace_sim::run::request::OptKind;
use numaplace_sim::{bench, RunConfig, SimError};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use serde_json::{json, Value};

mod stats;

create_exception!(_native, NumaplaceError, PyException, "Base class of every numaplace error.");
create_exception!(_native, MachineError, NumaplaceError, "A machine file is malformed or invalid.");
create_exception!(_native, UnknownNameError, NumaplaceError, "A machine, workload, policy or option name is not known.");
create_exception!(_native, SpecError, NumaplaceError, "A NAME:key=value specification has a bad key or value.");
create_exception!(_native, ConfigError, NumaplaceError, "A run configuration contradicts the machine.");
create_exception!(_native, OutOfMemoryError, NumaplaceError, "The workload does not fit in the machine's memory.");
create_exception!(_native, FileError, NumaplaceError, "A file could not be read or written.");
create_exception!(_native, TraceError, NumaplaceError, "A trace file is malformed (the message names the byte or line).");

fn to_py(e: SimError) -> PyErr {
    // Its parts that quote a user were cut and escaped where they were written
    // (`numaplace_model::error::shown`); the whole message is one line whatever it holds.
    let msg = numaplace_model::error::one_line(&e.to_string());
    match e {
        SimError::Io { .. } => FileError::new_err(msg),
        SimError::Trace { .. } => TraceError::new_err(msg),
        SimError::Model(m) => match m {
            ModelError::Machine { .. } => MachineError::new_err(msg),
            ModelError::UnknownName { .. } => UnknownNameError::new_err(msg),
            ModelError::Spec(_) => SpecError::new_err(msg),
            ModelError::Config(_) => ConfigError::new_err(msg),
            ModelError::OutOfMemory { .. } | ModelError::StateTooLarge { .. } => OutOfMemoryError::new_err(msg),
        },
        // Only an observer stops a run, and its exception is raised instead of this.
        SimError::Stopped => NumaplaceError::new_err(msg),
    }
}

fn model(e: ModelError) -> PyErr {
    to_py(SimError::Model(e))
}

/// A run request (a JSON object of options, `numaplace_sim::run::request::OPTIONS`) resolved.
fn request(text: &str) -> PyResult<RunConfig> {
    numaplace_sim::run::request::resolve_json(text).map_err(to_py)
}

/// The run options as JSON: name, kind (type, range or names), default, doc, whether a sweep
/// may vary it, and the keyword `numaplace.simulate` takes it as.
#[pyfunction]
fn run_options() -> String {
    let v: Vec<Value> = numaplace_sim::run::request::OPTIONS
        .iter()
        .map(|o| {
            let kind = match o.kind {
                OptKind::Text => json!({"type": "text"}),
                OptKind::Int { min, max } => json!({"type": "integer", "min": min, "max": max}),
                OptKind::Float { min, max } => json!({"type": "number", "min": min, "max": max}),
                OptKind::Bool => json!({"type": "bool"}),
                OptKind::Name { what, names } => json!({"type": "name", "what": what, "choices": names}),
            };
            json!({
                "name": o.name,
                "kind": kind,
                "default": o.default,
                "doc": o.doc,
                "input": o.input,
                "python": o.python.unwrap_or(o.name),
                "applies": o.applies.iter().map(|k| k.name()).collect::<Vec<_>>(),
                "registry": o.registry,
            })
        })
        .collect();
    Value::Array(v).to_string()
}

/// How often, at most, a running simulation takes the GIL back, s: cheap beside the epochs
/// (a run of thousands of epochs reports a few times a second), soon enough for Ctrl-C, and
/// long enough that a run shorter than it draws no progress bar.
const PROGRESS_PERIOD_S: f64 = 0.1;

/// Runs one simulation of a run request (JSON text) and returns its result as JSON text.
///
/// The GIL is released while it runs. At an epoch boundary, at most every `period` seconds
/// (default [`PROGRESS_PERIOD_S`]), the GIL is taken back to
/// check for signals (Ctrl-C raises KeyboardInterrupt and stops the run) and to call
/// `progress(iteration, iterations, epochs, simulated_ns)` if given; an exception from either
/// stops the run and is raised. Neither changes the result.
///
/// The request's `decisions` output (a page-level run with a dynamic policy) is written as the
/// run goes, one batch of [`numaplace_sim::engine::decisions::BATCH`] records at a time: to a
/// `.csv` or JSON Lines file here, or, when `decisions` is given, to that callable, called
/// with each batch as a dict of columns (a `.parquet` output is written so, by
/// `numaplace.simulate`).
#[pyfunction]
#[pyo3(signature = (request_json, progress=None, period=None, decisions=None))]
fn simulate(py: Python<'_>, request_json: &str, progress: Option<PyObject>, period: Option<f64>, decisions: Option<PyObject>) -> PyResult<String> {
    let cfg = request(request_json)?;
    let period = period.unwrap_or(PROGRESS_PERIOD_S);
    let period = std::time::Duration::try_from_secs_f64(period)
        .map_err(|_| pyo3::exceptions::PyValueError::new_err(format!("simulate: period = {period}: expected seconds, 0 or more")))?;
    if let (Some(path), None) = (&cfg.decisions, &decisions) {
        if path.ends_with(".parquet") {
            return Err(FileError::new_err(format!("decisions = {}: a Parquet log is written through numaplace.simulate (give a .csv or JSON Lines path here)", numaplace_model::error::one_line(path))));
        }
    }
    let mut pending: Option<PyErr> = None;
    let sink_error = std::sync::Arc::new(std::sync::Mutex::new(None));
    let r = py.allow_threads(|| {
        let mut last = std::time::Instant::now();
        let mut observer = |p: &numaplace_sim::run::Progress| -> bool {
            if last.elapsed() < period {
                return true;
            }
            let keep_going = Python::with_gil(|py| {
                let called = py.check_signals().and_then(|()| match &progress {
                    Some(f) => f.call1(py, (p.iteration, p.iterations, p.epochs, p.simulated_ns)).map(drop),
                    None => Ok(()),
                });
                called.map_err(|e| pending = Some(e)).is_ok()
            });
            last = std::time::Instant::now();
            keep_going
        };
        let machine = load(&cfg.machine)?;
        let page = numaplace_sim::run::RunKind::of(&machine, &cfg) == numaplace_sim::run::RunKind::Page;
        let batch = numaplace_sim::engine::decisions::BATCH;
        match (&cfg.decisions, decisions) {
            (Some(_), Some(f)) if page && cfg.dynamic.is_some() => {
                let sink = PySink { f, error: sink_error.clone() };
                let log = numaplace_sim::run::LogTo::Stream(batch, Box::new(sink));
                numaplace_sim::run::run_on_logged(&machine, &cfg, &mut observer, log).map(numaplace_sim::run::Outcome::Page)
            }
            (Some(path), None) if page && cfg.dynamic.is_some() => {
                // The file is written by the output rule: a temporary renamed into place once
                // the run has finished, removed if it fails.
                let path = std::path::Path::new(path);
                let csv = path.extension().is_some_and(|e| e == "csv");
                numaplace_sim::output::write_with(path, |f| {
                    let out = f.try_clone().map_err(|e| SimError::io(path, e))?;
                    let sink = numaplace_sim::engine::LineSink::new(std::io::BufWriter::new(out), csv, path);
                    let log = numaplace_sim::run::LogTo::Stream(batch, Box::new(sink));
                    numaplace_sim::run::run_on_logged(&machine, &cfg, &mut observer, log).map(numaplace_sim::run::Outcome::Page)
                })
            }
            _ => numaplace_sim::run::run_any_on(&machine, &cfg, &mut observer),
        }
    });
    if let Some(e) = pending.or_else(|| sink_error.lock().ok()?.take()) {
        return Err(e);
    }
    Ok(r.map_err(to_py)?.to_json())
}

/// A decision log's batches handed to a Python callable, as a dict of columns (each a list;
/// `counts` a list of lists; None where a record has no value). Its exception is kept and
/// raised once the run has stopped.
struct PySink {
    f: PyObject,
    error: std::sync::Arc<std::sync::Mutex<Option<PyErr>>>,
}

impl numaplace_sim::engine::DecisionSink for PySink {
    fn write(&mut self, b: &numaplace_sim::engine::Batch<'_>) -> Result<(), SimError> {
        use pyo3::types::PyDict;
        let r = &b.records;
        let finite = |x: f64| x.is_finite().then_some(x);
        let node = |n: u8| (n != u8::MAX).then_some(n);
        let called = Python::with_gil(|py| -> PyResult<()> {
            let d = PyDict::new_bound(py);
            d.set_item("time_ns", r.iter().map(|x| x.time_ps as f64 / 1000.0).collect::<Vec<_>>())?;
            d.set_item("page", r.iter().map(|x| x.page).collect::<Vec<_>>())?;
            d.set_item("region", r.iter().map(|x| b.regions.get(x.region as usize).map_or("", String::as_str)).collect::<Vec<_>>())?;
            d.set_item("from", r.iter().map(|x| node(x.from)).collect::<Vec<_>>())?;
            d.set_item("to", r.iter().map(|x| node(x.to)).collect::<Vec<_>>())?;
            d.set_item("action", r.iter().map(|x| x.action).collect::<Vec<_>>())?;
            d.set_item("reason", r.iter().map(|x| x.reason).collect::<Vec<_>>())?;
            d.set_item("trigger", r.iter().map(|x| x.trigger.name()).collect::<Vec<_>>())?;
            d.set_item("tier", r.iter().map(|x| x.tier).collect::<Vec<_>>())?;
            d.set_item("measured", r.iter().map(|x| x.evidence.map(|e| e.measured)).collect::<Vec<_>>())?;
            d.set_item("value", r.iter().map(|x| x.evidence.and_then(|e| finite(e.value))).collect::<Vec<_>>())?;
            d.set_item("threshold", r.iter().map(|x| x.evidence.map(|e| e.threshold)).collect::<Vec<_>>())?;
            d.set_item("limit", r.iter().map(|x| x.evidence.and_then(|e| finite(e.limit))).collect::<Vec<_>>())?;
            d.set_item("queue_from_ns", r.iter().map(|x| finite(x.queue_from_ps / 1000.0)).collect::<Vec<_>>())?;
            d.set_item("queue_to_ns", r.iter().map(|x| finite(x.queue_to_ps / 1000.0)).collect::<Vec<_>>())?;
            d.set_item("cost_ns", r.iter().map(|x| x.cost_ps as f64 / 1000.0).collect::<Vec<_>>())?;
            d.set_item("background", r.iter().map(|x| x.background).collect::<Vec<_>>())?;
            d.set_item("counts", (0..r.len()).map(|i| b.counts_of(i).to_vec()).collect::<Vec<_>>())?;
            self.f.call1(py, (d,)).map(drop)
        });
        called.map_err(|e| {
            if let Ok(mut slot) = self.error.lock() {
                slot.get_or_insert(e);
            }
            SimError::Stopped
        })
    }
}

/// Writes the workload of a run request as a trace file (binary, or text if `text`).
#[pyfunction]
#[pyo3(signature = (request_json, out, text=false))]
fn trace_export(py: Python<'_>, request_json: &str, out: String, text: bool) -> PyResult<()> {
    let cfg = request(request_json)?;
    py.allow_threads(|| {
        let m = load(&cfg.machine)?;
        numaplace_sim::run::export_trace(&m, &cfg, std::path::Path::new(&out), text)
    })
    .map_err(to_py)
}

/// Summarises a trace file, as JSON.
#[pyfunction]
fn trace_info(py: Python<'_>, path: String) -> PyResult<String> {
    // One open for either level: the trace may come from a pipe.
    let p = std::path::Path::new(&path);
    let i = py.allow_threads(|| numaplace_sim::trace::info_any(p)).map_err(to_py)?;
    Ok(serde_json::to_string(&i).expect("serialise"))
}

/// The data objects (regions) of a page-level trace diagnosed for placement with its threads
/// bound on a machine (`numaplace advise`'s diagnosis; `trace::objects`), as JSON.
#[pyfunction]
#[pyo3(signature = (path, machine, binding="spread", oversubscribe=false))]
fn trace_objects(py: Python<'_>, path: String, machine: String, binding: &str, oversubscribe: bool) -> PyResult<String> {
    let b = numaplace_sim::binding::Binding::parse(binding).map_err(|e| to_py(e.into()))?;
    let o = py
        .allow_threads(|| {
            let m = load(&machine)?;
            numaplace_sim::trace::objects::objects(std::path::Path::new(&path), &m, b, oversubscribe)
        })
        .map_err(to_py)?;
    Ok(serde_json::to_string(&o).expect("serialise"))
}

/// The node of each of `threads` threads bound on a machine as a run binds them (a JSON list).
#[pyfunction]
#[pyo3(signature = (machine, threads, binding="spread", oversubscribe=false))]
fn thread_nodes(machine: String, threads: usize, binding: &str, oversubscribe: bool) -> PyResult<String> {
    let b = numaplace_sim::binding::Binding::parse(binding).map_err(|e| to_py(e.into()))?;
    let m = load(&machine).map_err(to_py)?;
    let placed = numaplace_sim::binding::bind(&m, threads, b, oversubscribe).map_err(|e| to_py(e.into()))?;
    Ok(serde_json::to_string(&placed.iter().map(|p| p.node.index()).collect::<Vec<_>>()).expect("serialise"))
}

/// The regions, phases, footprint and sharing of a run request's workload, as JSON.
#[pyfunction]
fn workload_show(py: Python<'_>, request_json: &str) -> PyResult<String> {
    let cfg = request(request_json)?;
    let i = py
        .allow_threads(|| {
            let m = load(&cfg.machine)?;
            numaplace_sim::inspect::inspect(&m, &cfg)
        })
        .map_err(to_py)?;
    Ok(serde_json::to_string(&i).expect("serialise"))
}

fn params_json(decls: &[ParamDecl]) -> Value {
    decls
        .iter()
        .map(|d| {
            let ty = match d.kind {
                ParamKind::UInt { min, max } => json!({"type": "integer", "min": min, "max": max}),
                ParamKind::Float { min, max } => json!({"type": "number", "min": min, "max": max}),
                ParamKind::Choice(w) => json!({"type": "choice", "choices": w}),
                ParamKind::Word => json!({"type": "word"}),
                ParamKind::Text => json!({"type": "text"}),
            };
            json!({"name": d.name, "default": d.default, "doc": d.doc, "kind": ty})
        })
        .collect()
}

/// The shipped machine presets as JSON: name, description, nodes, CPUs, page size.
#[pyfunction]
fn machines() -> PyResult<String> {
    let mut out = Vec::new();
    for (name, _) in PRESETS {
        let m = load(name).map_err(to_py)?;
        out.push(json!({
            "name": name,
            "description": m.raw.description,
            "nodes": m.nodes(),
            "cpus": m.cpus(),
            "page_size": m.raw.page_size,
            "memory_mib": m.raw.nodes.iter().map(|n| n.memory_mib).sum::<u64>(),
        }));
    }
    Ok(Value::Array(out).to_string())
}

/// The validated machine (preset name or file path) as JSON.
#[pyfunction]
fn machine(arg: &str) -> PyResult<String> {
    let m = load(arg).map_err(to_py)?;
    Ok(serde_json::to_string(&m.raw).expect("machines serialise"))
}

/// A machine's memory tiers as the simulator derives them (`Machine::tier`): each node's tier
/// (0 the fastest present) and capacity in pages, the page size, whether it is tiered, and
/// its fast tier's pages (`Machine::fast_capacity_pages`), as JSON.
#[pyfunction]
fn machine_tiers(arg: &str) -> PyResult<String> {
    let m = load(arg).map_err(to_py)?;
    Ok(json!({
        "tier": m.tier,
        "capacity_pages": m.capacity_pages,
        "page_size": m.raw.page_size,
        "tiered": m.is_tiered(),
        "fast_pages": m.fast_capacity_pages(),
        "total_pages": m.capacity_total(),
    })
    .to_string())
}

/// The TOML text of a preset or of a validated machine file.
#[pyfunction]
fn machine_toml(arg: &str) -> PyResult<String> {
    if let Some((_, text)) = PRESETS.iter().find(|(n, _)| *n == arg) {
        return Ok(text.to_string());
    }
    let m = load(arg).map_err(to_py)?;
    to_toml(&m, &format!("numaplace machine, validated from {arg}")).map_err(to_py)
}

/// Every workload with its doc line and parameters, as JSON.
#[pyfunction]
fn workloads() -> String {
    let v: Vec<Value> = numaplace_sim::workloads::REGISTRY
        .iter()
        .map(|w| json!({"name": w.name, "doc": w.doc, "params": params_json(w.params)}))
        .collect();
    Value::Array(v).to_string()
}

/// Every line-level program (the protocol engine's workloads, seed 004) with its doc line and
/// parameters, as JSON.
#[pyfunction]
fn programs() -> String {
    let v: Vec<Value> = numaplace_sim::protocol::programs::REGISTRY
        .iter()
        .map(|w| json!({"name": w.name, "doc": w.doc, "params": params_json(w.params)}))
        .collect();
    Value::Array(v).to_string()
}

/// Every processor scheduler of system runs (seed 002) with its doc line, parameters and
/// capabilities (`sharing`: space or time; what it reads), as JSON.
#[pyfunction]
fn schedulers() -> String {
    let v: Vec<Value> = numaplace_model::sched::REGISTRY
        .iter()
        .map(|w| {
            json!({
                "name": w.name,
                "doc": w.doc,
                "params": params_json(w.params),
                "sharing": w.caps.sharing.name(),
                "reads_efficiency": w.caps.efficiency,
                "reads_faults": w.caps.faults,
            })
        })
        .collect();
    Value::Array(v).to_string()
}

/// Every placement policy with its doc line, parameters and capabilities (`kernel_default`:
/// the kernel's own first touch; `one_node`: every page on the node of its `node` parameter;
/// `needs_profile`: computed from a profile of the whole run, so the simulator only), as JSON.
#[pyfunction]
fn placements() -> String {
    let v: Vec<Value> = numaplace_model::placement::REGISTRY
        .iter()
        .map(|p| {
            json!({
                "name": p.name,
                "doc": p.doc,
                "params": params_json(p.params),
                "kernel_default": p.caps.kernel_default,
                "one_node": p.caps.one_node,
                "needs_profile": p.caps.needs_profile,
            })
        })
        .collect();
    Value::Array(v).to_string()
}

/// Every dynamic policy with its doc line and parameters, as JSON.
#[pyfunction]
fn policies() -> String {
    let v: Vec<Value> = numaplace_model::dynamic::REGISTRY
        .iter()
        .map(|p| {
            let drivers: Vec<&str> = p.caps.drivers.iter().map(|d| d.name()).collect();
            let triggers: Vec<&str> = p.caps.triggers.iter().map(|t| t.name()).collect();
            let stats: Vec<Value> = p.caps.statistics().iter().map(|s| json!({"name": s.name, "unit": s.unit, "doc": s.doc})).collect();
            // A tiering policy reports the tier moves (`tiering::TIER_STATS`): it moves pages
            // between memory tiers, and runs on a tiered machine only (`tiering::require_tiers`).
            let all = p.caps.statistics();
            let tiering = numaplace_model::dynamic::tiering::TIER_STATS.iter().all(|t| all.iter().any(|s| s.name == t.name));
            json!({
                "name": p.name,
                "doc": p.doc,
                "params": params_json(p.params),
                "observes": p.caps.observes.name(),
                "drivers": drivers,
                "why_not": p.caps.why_not,
                "needs_program_calls": p.caps.needs_program_calls,
                "tiering": tiering,
                "triggers": triggers,
                "stats": stats,
            })
        })
        .collect();
    Value::Array(v).to_string()
}

/// Checks a `workload`, `placement` or `dynamic` spec (name, keys, value types and ranges) as
/// a run would, without a machine (a workload's checks that need the machine or its other
/// parameters are left to the run); returns `{"name", "values": {key: text}}` as JSON. `none` is a
/// valid dynamic spec (no policy). With `driver` (`simulator` or `runtime`), a dynamic policy
/// or placement that driver cannot run is refused with the reason (its capabilities).
#[pyfunction]
#[pyo3(signature = (kind, text, driver=None))]
fn check_spec(kind: &str, text: &str, driver: Option<&str>) -> PyResult<String> {
    if kind == "dynamic" && text.trim() == "none" {
        return Ok(json!({"name": "none", "values": {}}).to_string());
    }
    let driver = match driver {
        None => None,
        Some("simulator") => Some(Driver::Simulator),
        Some("runtime") => Some(Driver::Runtime),
        Some(other) => return Err(pyo3::exceptions::PyValueError::new_err(format!("check_spec: driver '{other}': expected simulator or runtime"))),
    };
    let spec = Spec::parse(text).map_err(model)?;
    let resolved = match kind {
        "placement" => {
            let (info, resolved) = numaplace_model::placement::resolve(&spec).map_err(model)?;
            if let Some(d) = driver {
                numaplace_model::placement::check_driver(info, d).map_err(model)?;
            }
            resolved
        }
        "workload" => numaplace_sim::workloads::REGISTRY.resolve(&spec).map_err(model)?.1,
        "scheduler" => numaplace_model::sched::REGISTRY.resolve(&spec).map_err(model)?.1,
        "dynamic" => {
            let (info, resolved) = dynamic::resolve(&spec).map_err(model)?;
            if let Some(d) = driver {
                dynamic::check_driver(info, d).map_err(model)?;
            }
            resolved
        }
        _ => return Err(pyo3::exceptions::PyValueError::new_err(format!("check_spec: kind '{kind}': expected workload, placement, dynamic or scheduler"))),
    };
    let values: serde_json::Map<String, Value> = resolved.values.iter().map(|(k, v)| (k.to_string(), Value::String(v.to_string()))).collect();
    Ok(json!({"name": resolved.name, "values": values}).to_string())
}

/// Describes this host from a sysfs node directory (with HMAT where published); returns machine
/// TOML text whose leading comments say where each figure came from (`# assumed ...`).
#[pyfunction]
#[pyo3(signature = (root, name, local_ns, bandwidth_gbps, mlp, page_size))]
fn detect(root: &str, name: String, local_ns: f64, bandwidth_gbps: f64, mlp: f64, page_size: u64) -> PyResult<String> {
    let opts = DetectOptions { name, local_ns, bandwidth_gbps, mlp, page_size, ..DetectOptions::default() };
    let h = detect_host(std::path::Path::new(root), &opts).map_err(to_py)?;
    detected_toml(&h, "numaplace machine file, written by `numaplace topo --detect`").map_err(to_py)
}

/// The speed benchmark, as JSON.
#[pyfunction]
fn bench_speed(py: Python<'_>, transactions: u64, pages: u64, repetitions: u32) -> PyResult<String> {
    let r = py.allow_threads(|| bench::speed(transactions, pages, repetitions)).map_err(to_py)?;
    Ok(serde_json::to_string(&r).expect("serialise"))
}

/// The protocol engine's speed benchmark (seed 004's line level), as JSON.
#[pyfunction]
fn bench_protocol(py: Python<'_>, sweeps: u32, repetitions: u32) -> PyResult<String> {
    let r = py.allow_threads(|| bench::protocol_speed(sweeps, repetitions, None)).map_err(to_py)?;
    Ok(serde_json::to_string(&r).expect("serialise"))
}

/// The tiered benchmark (a 1 TiB DRAM+CXL machine under tpp), as JSON.
#[pyfunction]
fn bench_tiered(py: Python<'_>, pages: u64, sweeps: u32, repetitions: u32) -> PyResult<String> {
    let r = py.allow_threads(|| bench::tiered(pages, sweeps, repetitions)).map_err(to_py)?;
    Ok(serde_json::to_string(&r).expect("serialise"))
}

/// The footprint benchmark, as JSON.
#[pyfunction]
fn bench_footprint(py: Python<'_>, pages: u64) -> PyResult<String> {
    let r = py.allow_threads(|| bench::footprint(pages)).map_err(to_py)?;
    Ok(serde_json::to_string(&r).expect("serialise"))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("DEFAULT_QUANTUM_NS", numaplace_sim::run::DEFAULT_QUANTUM_NS)?;
    m.add("TIME_SCALE_SUFFIX", numaplace_sim::presets::TIME_SCALE_SUFFIX)?;
    m.add("ANTAGONIST_SUFFIX", numaplace_sim::presets::ANTAGONIST_SUFFIX)?;
    m.add("PROGRESS_PERIOD_S", PROGRESS_PERIOD_S)?;
    m.add("NumaplaceError", py.get_type_bound::<NumaplaceError>())?;
    m.add("MachineError", py.get_type_bound::<MachineError>())?;
    m.add("UnknownNameError", py.get_type_bound::<UnknownNameError>())?;
    m.add("SpecError", py.get_type_bound::<SpecError>())?;
    m.add("ConfigError", py.get_type_bound::<ConfigError>())?;
    m.add("OutOfMemoryError", py.get_type_bound::<OutOfMemoryError>())?;
    m.add("FileError", py.get_type_bound::<FileError>())?;
    m.add("TraceError", py.get_type_bound::<TraceError>())?;
    m.add_function(wrap_pyfunction!(run_options, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(bench_protocol, m)?)?;
    m.add_function(wrap_pyfunction!(programs, m)?)?;
    m.add_function(wrap_pyfunction!(schedulers, m)?)?;
    m.add_function(wrap_pyfunction!(machines, m)?)?;
    m.add_function(wrap_pyfunction!(machine, m)?)?;
    m.add_function(wrap_pyfunction!(machine_toml, m)?)?;
    m.add_function(wrap_pyfunction!(machine_tiers, m)?)?;
    m.add_function(wrap_pyfunction!(workloads, m)?)?;
    m.add_function(wrap_pyfunction!(placements, m)?)?;
    m.add_function(wrap_pyfunction!(policies, m)?)?;
    m.add_function(wrap_pyfunction!(check_spec, m)?)?;
    m.add_function(wrap_pyfunction!(detect, m)?)?;
    m.add_function(wrap_pyfunction!(bench_speed, m)?)?;
    m.add_function(wrap_pyfunction!(bench_footprint, m)?)?;
    m.add_function(wrap_pyfunction!(bench_tiered, m)?)?;
    m.add_function(wrap_pyfunction!(trace_export, m)?)?;
    m.add_function(wrap_pyfunction!(trace_info, m)?)?;
    m.add_function(wrap_pyfunction!(trace_objects, m)?)?;
    m.add_function(wrap_pyfunction!(thread_nodes, m)?)?;
    m.add_function(wrap_pyfunction!(workload_show, m)?)?;
    stats::register(m)?;
    Ok(())
}
