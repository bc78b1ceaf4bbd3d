//! The run request: every option of one simulation, declared once.
//!
//! [`OPTIONS`] is the one table of what a run takes — name, type and range, default, doc, and
//! whether it is an input of the run (a sweep can vary it) or where an output goes. Everything
//! else is generated from it or checked against it: the `numaplace sim` options, the keyword
//! arguments of `numaplace.simulate`, the axes a sweep spec may name, the type stubs, and
//! [`RunConfig`]'s defaults (see the tests beside each).
//!
//! Configuration has two phases, as ripgrep's `LowArgs` → `HiArgs`: a raw request (JSON from
//! Python, or any map of option names to values) is checked against the table and becomes a
//! typed [`RunConfig`] in [`resolve`]; the names inside it (machine, workload, placement,
//! policy) are resolved against their registries when the run is built (`run::simulate`).

use crate::binding::Binding;
use crate::error::SimError;
use crate::run::config::{RunConfig, RunKind};
use crate::workload::Init;
use numaplace_model::ModelError;
use serde_json::{Map, Value};

/// The type of a run option.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OptKind {
    /// Free text: a preset name or machine file, a `NAME:key=value` spec, a path.
    Text,
    /// An integer in `[min, max]`.
    Int { min: u64, max: u64 },
    /// A finite number in `[min, max]`.
    Float { min: f64, max: f64 },
    Bool,
    /// One of these names; another is an unknown-name error that lists them.
    Name { what: &'static str, names: &'static [&'static str] },
}

/// Every kind of run.
pub const ALL: &[RunKind] = &[RunKind::Page, RunKind::Protocol, RunKind::System];
const PAGE: &[RunKind] = &[RunKind::Page];
const PROTOCOL: &[RunKind] = &[RunKind::Protocol];
const SYSTEM: &[RunKind] = &[RunKind::System];
const PAGE_AND_SYSTEM: &[RunKind] = &[RunKind::Page, RunKind::System];
const PAGE_AND_PROTOCOL: &[RunKind] = &[RunKind::Page, RunKind::Protocol];

/// One option of a run.
#[derive(Clone, Copy, Debug)]
pub struct RunOption {
    pub name: &'static str,
    pub kind: OptKind,
    /// The default, as a user would type it; `None` for an option that is unset unless given.
    pub default: Option<&'static str>,
    pub doc: &'static str,
    /// An input of the run, which a sweep may vary; `false` for where an output goes.
    pub input: bool,
    /// The keyword `numaplace.simulate` takes it as, where the name is a Python keyword.
    pub python: Option<&'static str>,
    /// The kinds of run that take it: giving it to another kind is an error naming both.
    pub applies: &'static [RunKind],
    /// The plug-in registry whose `NAME[:key=value,...]` specs it takes (`workload`,
    /// `placement`, `dynamic`, `scheduler`), `None` for any other option: a sweep may vary such
    /// an option one parameter at a time (`scheduler.mpl`).
    pub registry: Option<&'static str>,
}

/// Default interleaving quantum, ns: long enough that the per-quantum work (a timing solve) is
/// small beside the transactions, short beside any epoch of interest.
pub const DEFAULT_QUANTUM_NS: f64 = 200_000.0;

/// The shortest interleaving quantum, ns: 1 µs, about one miss of the slowest preset. Each
/// quantum costs a timing solve of O(threads × nodes) however few records it holds, so the
/// cost of a run grows as 1 / quantum: the default run took over 90 s at 1 ns, and takes 1.8 s
/// at this bound (0.5 s at the default).
pub const MIN_QUANTUM_NS: f64 = 1_000.0;

/// The shortest quantum of a system run, ns: 100 µs. A system simulates minutes of its jobs,
/// each job's threads solved every quantum: a stream of two W1 jobs takes 10 s at the default,
/// 27 s at this bound and 100 s at 20 µs.
pub const MIN_SYSTEM_QUANTUM_NS: f64 = 100_000.0;

/// The `fast_memory_mib` option's range bound, MiB: every node at its largest
/// (`topology::bounds::MAX_NODE_MEMORY_MIB`); the machine's own memory bounds it per run.
pub const MAX_FAST_MEMORY_MIB: f64 = (numaplace_model::topology::bounds::MAX_NODE_MEMORY_MIB * numaplace_model::units::MAX_NODES as u64) as f64;

/// Every option of a run, in the order listings show them.
pub const OPTIONS: &[RunOption] = &[
    RunOption {
        name: "machine",
        kind: OptKind::Text,
        default: Some("origin2000"),
        doc: "a preset name (numaplace machines) or a machine TOML file, optionally ending in :time_scale=K (page-migration costs divided by K)",
        input: true,
        python: None,
        applies: ALL,
        registry: None,
    },
    RunOption {
        name: "engine",
        kind: OptKind::Name { what: "engine", names: RunKind::ENGINES },
        default: Some("auto"),
        doc: "page (page-level: transactions per page and epoch) or protocol (line-level: caches, coherence messages, buffers, proxies; docs/protocol.md); auto: the machine's (protocol where it has a [protocol] table)",
        input: true,
        python: None,
        applies: ALL,
        registry: None,
    },
    RunOption {
        name: "workload",
        kind: OptKind::Text,
        default: Some("stream"),
        doc: "NAME[:key=value,...] (numaplace workloads); trace:file=PATH replays a trace",
        input: true,
        python: None,
        applies: PAGE_AND_PROTOCOL,
        registry: Some("workload"),
    },
    RunOption {
        name: "class",
        kind: OptKind::Text,
        default: None,
        doc: "problem class of a kernel (S, W, A, B, C), added to the workload's spec",
        input: true,
        python: Some("problem_class"),
        applies: PAGE,
        registry: None,
    },
    RunOption {
        name: "threads",
        kind: OptKind::Int { min: 1, max: 65535 },
        default: Some("16"),
        doc: "threads, one per CPU (a trace's own count when the workload is a trace)",
        input: true,
        python: None,
        applies: PAGE_AND_PROTOCOL,
        registry: None,
    },
    RunOption {
        name: "placement",
        kind: OptKind::Text,
        default: Some("first-touch"),
        doc: "NAME[:key=value,...] (numaplace placements)",
        input: true,
        python: None,
        applies: ALL,
        registry: Some("placement"),
    },
    RunOption {
        name: "init",
        kind: OptKind::Name { what: "init mode", names: Init::NAMES },
        default: Some("parallel"),
        doc: "who touches the data first: every thread its own part, thread 0 all of it, or nobody",
        input: true,
        python: None,
        applies: PAGE_AND_SYSTEM,
        registry: None,
    },
    RunOption {
        name: "dynamic",
        kind: OptKind::Text,
        default: Some("none"),
        doc: "a dynamic policy NAME[:key=value,...] (numaplace policies), or none",
        input: true,
        python: None,
        applies: PAGE_AND_SYSTEM,
        registry: Some("dynamic"),
    },
    RunOption {
        name: "binding",
        kind: OptKind::Name { what: "binding", names: Binding::NAMES },
        default: Some("spread"),
        doc: "threads over nodes: spread round the nodes, or compact (fill a node first)",
        input: true,
        python: None,
        applies: PAGE,
        registry: None,
    },
    RunOption {
        name: "fast_memory_mib",
        kind: OptKind::Float { min: 0.0, max: MAX_FAST_MEMORY_MIB },
        default: None,
        doc: "the fast tier's capacity for this run, MiB (fractions allowed, rounded down to whole pages): a tiered machine's fastest tier resized to it, split over its nodes in proportion to their declared memory, the slower tiers as declared (docs/tiering.md); at most the machine's whole memory",
        input: true,
        python: None,
        applies: PAGE,
        registry: None,
    },
    RunOption {
        name: "proxies",
        kind: OptKind::Name { what: "proxy mode", names: &crate::protocol::params::ProxyMode::NAMES },
        default: Some("none"),
        doc: "remote reads through proxy nodes (seed 004): none, basic (the regions the program marks) or reactive (a read bounced by a full buffer)",
        input: true,
        python: None,
        applies: PROTOCOL,
        registry: None,
    },
    RunOption {
        name: "buffers",
        kind: OptKind::Name { what: "buffer mode", names: &crate::protocol::params::BufferMode::NAMES },
        default: Some("infinite"),
        doc: "node controllers' input buffers: infinite, or finite (read requests above the machine's limit bounce back to the sender)",
        input: true,
        python: None,
        applies: PROTOCOL,
        registry: None,
    },
    RunOption {
        name: "job_stream",
        kind: OptKind::Text,
        default: None,
        doc: "a job stream, which makes the run a multiprogrammed system (docs/multiprogramming.md): W1, W2, W3 or W4 (seed 002's mixes, at load), or an SWF file (Parallel Workloads Archive format)",
        input: true,
        python: None,
        applies: SYSTEM,
        registry: None,
    },
    RunOption {
        name: "load",
        kind: OptKind::Float { min: 0.01, max: numaplace_model::jobs::mix::MAX_LOAD },
        default: Some("1"),
        doc: "offered load of a generated job mix: the CPU demand arriving per unit time over the machine's CPUs (seed 002: 0.6, 0.8, 1)",
        input: true,
        python: None,
        applies: SYSTEM,
        registry: None,
    },
    RunOption {
        name: "job_count",
        kind: OptKind::Int { min: 1, max: numaplace_model::jobs::mix::MAX_JOBS as u64 },
        default: None,
        doc: "jobs in the stream: a mix's count (default: seed 002 Table 1's at 100 % load, times the load), or the first jobs of an SWF file (default: all)",
        input: true,
        python: None,
        applies: SYSTEM,
        registry: None,
    },
    RunOption {
        name: "apps",
        kind: OptKind::Text,
        default: None,
        doc: "what the jobs run: for a mix, APP=SPEC;... (swim, bt, hydro2d, apsi); for an SWF file, SPEC;SPEC;... cycled by executable number, or N=SPEC;...;*=SPEC",
        input: true,
        python: None,
        applies: SYSTEM,
        registry: None,
    },
    RunOption {
        name: "scheduler",
        kind: OptKind::Text,
        default: Some("equipartition"),
        doc: "the processor scheduler of a system run, NAME[:key=value,...] (numaplace schedulers)",
        input: true,
        python: None,
        applies: SYSTEM,
        registry: Some("scheduler"),
    },
    RunOption {
        name: "seed",
        kind: OptKind::Int { min: 0, max: u64::MAX },
        default: Some("0"),
        doc: "seed of every random choice (same inputs and seed: the same result, byte for byte)",
        input: true,
        python: None,
        applies: ALL,
        registry: None,
    },
    RunOption {
        name: "quantum_ns",
        kind: OptKind::Float { min: MIN_QUANTUM_NS, max: 1e12 },
        default: Some("200000"),
        doc: "interleaving quantum of simulated time, ns (at least 1000; 100000 for a system run: each quantum costs a timing solve)",
        input: true,
        python: None,
        applies: PAGE_AND_SYSTEM,
        registry: None,
    },
    RunOption {
        name: "oversubscribe",
        kind: OptKind::Bool,
        default: Some("false"),
        doc: "allow more threads than CPUs",
        input: true,
        python: None,
        applies: PAGE,
        registry: None,
    },
    RunOption {
        name: "trace",
        kind: OptKind::Text,
        default: None,
        doc: "replay this trace file: the same as workload trace:file=PATH",
        input: true,
        python: None,
        applies: PAGE_AND_PROTOCOL,
        registry: None,
    },
    RunOption {
        name: "decisions",
        kind: OptKind::Text,
        default: None,
        doc: "write every policy action to this file (.csv, else JSON Lines)",
        input: false,
        python: None,
        applies: PAGE,
        registry: None,
    },
];

impl Default for RunConfig {
    /// Every option's declared default ([`OPTIONS`]).
    fn default() -> Self {
        resolve(&serde_json::Map::new()).expect("the declared defaults are valid")
    }
}


/// The option named `name`.
pub fn option(name: &str) -> Option<&'static RunOption> {
    OPTIONS.iter().find(|o| o.name == name)
}

/// A typed option value.
#[derive(Clone, Debug, PartialEq)]
enum Typed {
    Text(String),
    Int(u64),
    Float(f64),
    Bool(bool),
}

fn bad(o: &RunOption, value: &Value, why: String) -> SimError {
    ModelError::Config(format!("{} = {}: {why}", o.name, numaplace_model::error::shown(&value.to_string()))).into()
}

/// Checks one JSON value against its option.
fn check(o: &RunOption, value: &Value) -> Result<Typed, SimError> {
    match o.kind {
        // An empty name, spec or path is never meant: refused here, rather than left to run a
        // default (an empty workload) or to write nowhere (an empty path).
        OptKind::Text => match value.as_str() {
            Some(s) if s.trim().is_empty() => Err(bad(o, value, "expected a non-empty string".into())),
            Some(s) => Ok(Typed::Text(s.to_string())),
            None => Err(bad(o, value, "expected a string".into())),
        },
        OptKind::Name { what, names } => match value.as_str() {
            Some(s) if names.contains(&s) => Ok(Typed::Text(s.to_string())),
            Some(s) => Err(ModelError::unknown(what, s, names.iter().copied()).into()),
            None => Err(bad(o, value, "expected a string".into())),
        },
        OptKind::Int { min, max } => match value.as_u64() {
            Some(v) if (min..=max).contains(&v) => Ok(Typed::Int(v)),
            _ => Err(bad(o, value, format!("expected an integer in [{min}, {max}]"))),
        },
        OptKind::Float { min, max } => match value.as_f64() {
            Some(v) if v.is_finite() && (min..=max).contains(&v) => Ok(Typed::Float(v)),
            _ => Err(bad(o, value, format!("expected a number in [{min}, {max}]"))),
        },
        OptKind::Bool => match value.as_bool() {
            Some(v) => Ok(Typed::Bool(v)),
            None => Err(bad(o, value, "expected true or false".into())),
        },
    }
}

/// Checks one value of run option `name` against its declaration, for a configuration built
/// without a request (Rust callers of `run::run`).
///
/// # Errors
/// A value of the wrong type or outside its range, naming the option.
///
/// # Panics
/// If `name` is not a declared option (a programming error).
pub fn check_value(name: &str, value: &Value) -> Result<(), SimError> {
    let o = option(name).unwrap_or_else(|| panic!("run option '{name}' is not declared"));
    check(o, value).map(|_| ())
}

/// The JSON value of an option's default text.
fn default_value(o: &RunOption, text: &str) -> Value {
    match o.kind {
        OptKind::Text | OptKind::Name { .. } => Value::String(text.to_string()),
        OptKind::Int { .. } => Value::from(text.parse::<u64>().expect("declared integer defaults parse")),
        OptKind::Float { .. } => Value::from(text.parse::<f64>().expect("declared number defaults parse")),
        OptKind::Bool => Value::Bool(text == "true"),
    }
}

/// Resolves a raw request — a JSON object of option names to values; a missing or `null`
/// value takes the option's default — into a typed configuration. This is the one place a
/// run's options are validated; the names they hold are resolved when the run is built.
///
/// # Errors
/// Text that is not a JSON object, an unknown option (the known ones are listed), or a value of
/// the wrong type or outside its range (the message names the option).
pub fn resolve(request: &Map<String, Value>) -> Result<RunConfig, SimError> {
    let mut unknown: Vec<&str> = request.keys().map(String::as_str).filter(|k| option(k).is_none()).collect();
    if !unknown.is_empty() {
        unknown.sort_unstable();
        let known: Vec<&str> = OPTIONS.iter().map(|o| o.name).collect();
        return Err(ModelError::Config(format!("unknown option(s) {} for a run (known: {})", unknown.join(", "), known.join(", "))).into());
    }
    let mut cfg = RunConfig {
        machine: String::new(),
        workload: String::new(),
        placement: String::new(),
        threads: 0,
        binding: Binding::Spread,
        init: Init::Parallel,
        seed: 0,
        quantum_ns: 0.0,
        oversubscribe: false,
        fast_memory_mib: None,
        trace: None,
        class: None,
        dynamic: None,
        decisions: None,
        threads_from_trace: false,
        engine: String::new(),
        proxies: String::new(),
        buffers: String::new(),
        job_stream: None,
        load: 0.0,
        job_count: None,
        apps: None,
        scheduler: String::new(),
        given: Vec::new(),
    };
    let mut threads_given = false;
    for o in OPTIONS {
        let given = request.get(o.name).filter(|v| !v.is_null());
        threads_given |= o.name == "threads" && given.is_some();
        let default = o.default.map(|d| check(o, &default_value(o, d)).expect("declared defaults are valid"));
        let value = match (given, default) {
            (Some(v), default) => {
                let v = check(o, v)?;
                // Set: given with a value other than its default (a caller that passes every
                // option, defaults included, sets only those it changed).
                if default.as_ref() != Some(&v) {
                    cfg.given.push(o.name);
                }
                v
            }
            (None, Some(d)) => d,
            (None, None) => continue,
        };
        match (o.name, value) {
            ("machine", Typed::Text(v)) => cfg.machine = v,
            ("workload", Typed::Text(v)) => cfg.workload = v,
            ("class", Typed::Text(v)) => cfg.class = Some(v),
            ("threads", Typed::Int(v)) => cfg.threads = v as usize,
            ("placement", Typed::Text(v)) => cfg.placement = v,
            ("init", Typed::Text(v)) => cfg.init = Init::parse(&v)?,
            ("dynamic", Typed::Text(v)) => cfg.dynamic = (v.trim() != "none").then_some(v),
            ("binding", Typed::Text(v)) => cfg.binding = Binding::parse(&v)?,
            ("seed", Typed::Int(v)) => cfg.seed = v,
            ("quantum_ns", Typed::Float(v)) => cfg.quantum_ns = v,
            ("oversubscribe", Typed::Bool(v)) => cfg.oversubscribe = v,
            ("fast_memory_mib", Typed::Float(v)) => cfg.fast_memory_mib = Some(v),
            ("trace", Typed::Text(v)) => cfg.trace = Some(v),
            ("decisions", Typed::Text(v)) => cfg.decisions = Some(v),
            ("engine", Typed::Text(v)) => cfg.engine = v,
            ("proxies", Typed::Text(v)) => cfg.proxies = v,
            ("buffers", Typed::Text(v)) => cfg.buffers = v,
            ("job_stream", Typed::Text(v)) => cfg.job_stream = Some(v),
            ("load", Typed::Float(v)) => cfg.load = v,
            ("job_count", Typed::Int(v)) => cfg.job_count = Some(v as u32),
            ("apps", Typed::Text(v)) => cfg.apps = Some(v),
            ("scheduler", Typed::Text(v)) => cfg.scheduler = v,
            (name, v) => unreachable!("option '{name}' declared with a kind its field does not take: {v:?}"),
        }
    }
    if let (Some(path), None) = (&cfg.decisions, &cfg.dynamic) {
        return Err(ModelError::Config(format!("decisions = {path}: only a dynamic policy makes decisions (give dynamic)")).into());
    }
    // A trace knows its thread count; the request's is only checked against it when given.
    cfg.threads_from_trace = !threads_given && (cfg.trace.is_some() || is_trace_spec(&cfg.workload));
    Ok(cfg)
}

/// Checks that every option the request set (to a value other than its default) applies to a
/// run of `kind`.
///
/// # Errors
/// The first option given that does not, naming it and the kinds it applies to.
pub fn check_applies(cfg: &RunConfig, kind: RunKind) -> Result<(), SimError> {
    for name in &cfg.given {
        let o = option(name).expect("given options are declared");
        if !o.applies.contains(&kind) {
            let to: Vec<&str> = o.applies.iter().map(|k| k.name()).collect();
            return Err(ModelError::Config(format!(
                "option {name} applies to {} runs, not to this {} run",
                to.join(" and "),
                kind.name()
            ))
            .into());
        }
    }
    Ok(())
}

/// [`resolve`] for a request given as JSON text.
///
/// # Errors
/// As [`resolve`].
pub fn resolve_json(text: &str) -> Result<RunConfig, SimError> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => resolve(&map),
        Ok(_) | Err(_) => Err(ModelError::Config(format!("a run request must be a JSON object of options, got: {}", text.chars().take(80).collect::<String>())).into()),
    }
}

/// Whether a workload spec names the trace workload (`trace:file=PATH`).
pub fn is_trace_spec(workload: &str) -> bool {
    workload.trim().split(':').next().map(str::trim) == Some(crate::trace::WORKLOAD)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn req(v: Value) -> Result<RunConfig, SimError> {
        resolve(v.as_object().expect("an object"))
    }

    #[test]
    fn every_default_is_valid_and_the_defaults_are_run_configs_default() {
        let cfg = req(json!({})).unwrap();
        assert_eq!(format!("{cfg:?}"), format!("{:?}", RunConfig::default()));
        assert_eq!(cfg.machine, "origin2000");
        assert_eq!(cfg.threads, 16);
        assert_eq!(cfg.quantum_ns, DEFAULT_QUANTUM_NS);
        assert!(cfg.dynamic.is_none() && cfg.class.is_none() && !cfg.threads_from_trace);
    }

    #[test]
    fn values_are_typed_and_ranged() {
        let e = |v: Value| req(v).err().expect("an error").to_string();
        assert_eq!(e(json!({"threads": 0})), "threads = 0: expected an integer in [1, 65535]");
        assert_eq!(e(json!({"threads": "4"})), "threads = \"4\": expected an integer in [1, 65535]");
        assert_eq!(e(json!({"threads": 4.0})), "threads = 4.0: expected an integer in [1, 65535]");
        assert_eq!(e(json!({"threads": true})), "threads = true: expected an integer in [1, 65535]");
        assert_eq!(e(json!({"seed": -1})), "seed = -1: expected an integer in [0, 18446744073709551615]");
        assert_eq!(e(json!({"quantum_ns": 1})), "quantum_ns = 1: expected a number in [1000, 1000000000000]");
        assert_eq!(e(json!({"quantum_ns": 999.9})), "quantum_ns = 999.9: expected a number in [1000, 1000000000000]");
        assert_eq!(e(json!({"quantum_ns": 1e17})), "quantum_ns = 1e+17: expected a number in [1000, 1000000000000]");
        assert_eq!(e(json!({"oversubscribe": 1})), "oversubscribe = 1: expected true or false");
        assert_eq!(e(json!({"machine": 3})), "machine = 3: expected a string");
        assert_eq!(e(json!({"workload": ""})), "workload = \"\": expected a non-empty string");
        assert_eq!(e(json!({"decisions": " "})), "decisions = \" \": expected a non-empty string");
        assert_eq!(e(json!({"binding": "diagonal"})), "unknown binding 'diagonal' (known: compact, spread)");
        assert!(e(json!({"thread": 4, "colour": 1})).starts_with("unknown option(s) colour, thread for a run (known: machine, engine, workload, class, "));
    }

    #[test]
    fn null_is_not_given_and_none_is_no_policy() {
        let cfg = req(json!({"threads": null, "dynamic": "none", "class": null})).unwrap();
        assert_eq!(cfg.threads, 16);
        assert!(cfg.dynamic.is_none() && cfg.class.is_none());
        assert_eq!(req(json!({"dynamic": "upmlib"})).unwrap().dynamic.as_deref(), Some("upmlib"));
    }

    #[test]
    fn a_trace_takes_its_thread_count_unless_one_is_given() {
        let cfg = req(json!({"trace": "ft.nptrace", "threads": 4})).unwrap();
        assert_eq!(cfg.trace.as_deref(), Some("ft.nptrace"));
        assert!(!cfg.threads_from_trace);
        assert!(req(json!({"trace": "ft.nptrace"})).unwrap().threads_from_trace);
        assert!(req(json!({"workload": "trace:file=ft.nptrace"})).unwrap().threads_from_trace);
        assert!(!req(json!({"workload": "stream"})).unwrap().threads_from_trace);
    }

    #[test]
    fn decisions_need_a_dynamic_policy() {
        let e = req(json!({"decisions": "d.csv"})).err().unwrap().to_string();
        assert_eq!(e, "decisions = d.csv: only a dynamic policy makes decisions (give dynamic)");
        assert!(req(json!({"decisions": "d.csv", "dynamic": "none"})).is_err());
        assert!(req(json!({"decisions": "d.csv", "dynamic": "upmlib"})).is_ok());
    }

    #[test]
    fn options_set_to_another_value_than_their_default_must_apply_to_the_engine() {
        // Given at its default, an option is not set: callers that pass every option work.
        let cfg = req(json!({"init": "parallel", "proxies": "none", "workload": "ge"})).unwrap();
        assert_eq!(cfg.given, ["workload"]);
        assert!(check_applies(&cfg, RunKind::Protocol).is_ok() && check_applies(&cfg, RunKind::Page).is_ok());
        let cfg = req(json!({"proxies": "basic", "dynamic": "upmlib"})).unwrap();
        let e = check_applies(&cfg, RunKind::Page).err().unwrap().to_string();
        assert_eq!(e, "option proxies applies to protocol runs, not to this page run");
        let e = check_applies(&cfg, RunKind::Protocol).err().unwrap().to_string();
        assert_eq!(e, "option dynamic applies to page and system runs, not to this protocol run");
        let cfg = req(json!({"job_stream": "W1", "threads": 4})).unwrap();
        let e = check_applies(&cfg, RunKind::System).err().unwrap().to_string();
        assert_eq!(e, "option threads applies to page and protocol runs, not to this system run");
        let e = req(json!({"buffers": "huge"})).err().unwrap().to_string();
        assert_eq!(e, "unknown buffer mode 'huge' (known: finite, infinite)");
        let e = req(json!({"engine": "gem5"})).err().unwrap().to_string();
        assert_eq!(e, "unknown engine 'gem5' (known: auto, page, protocol)");
    }

    #[test]
    fn non_objects_are_refused() {
        for text in ["[]", "3", "{", ""] {
            assert!(resolve_json(text).err().unwrap().to_string().starts_with("a run request must be a JSON object"), "{text}");
        }
    }

    #[test]
    fn python_keywords_are_renamed_and_only_outputs_are_not_inputs() {
        let renamed: Vec<&str> = OPTIONS.iter().filter(|o| o.python.is_some()).map(|o| o.name).collect();
        assert_eq!(renamed, ["class"]);
        let outputs: Vec<&str> = OPTIONS.iter().filter(|o| !o.input).map(|o| o.name).collect();
        assert_eq!(outputs, ["decisions"]);
        let specs: Vec<(&str, &str)> = OPTIONS.iter().filter_map(|o| o.registry.map(|r| (o.name, r))).collect();
        assert_eq!(specs, [("workload", "workload"), ("placement", "placement"), ("dynamic", "dynamic"), ("scheduler", "scheduler")]);
        assert!(OPTIONS.iter().all(|o| o.registry.is_none() || (o.input && o.kind == OptKind::Text)), "a spec option is a text input");
    }
}
