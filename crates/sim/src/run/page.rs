//! A page-level run: one program on the page-level engine, from a configuration to a result —
//! resolve the machine, bind the threads, build the workload and placement, run the engine
//! over every epoch, summarise.

use crate::binding::bind;
use crate::engine::{Engine, Traffic};
use crate::error::SimError;
use crate::presets::load_machine;
use crate::run::config::{RunConfig, RunKind};
use crate::run::kind::{KindOfRun, Progress};
use crate::run::request::{check_applies, check_value};
use crate::run::source::{build_workload, settle_threads, trace_path, with_threads_of};
use crate::trace;
use crate::workload::{Epoch, Workload};
use numaplace_model::dynamic;
use numaplace_model::topology::RawMachine;
use numaplace_model::units::{ns_to_ps, PS_PER_NS};
use numaplace_model::{Machine, ModelError, Ps, Spec};
use serde::Serialize;


/// The configuration as resolved: every default filled in, the machine written out in full,
/// so that a run can be repeated exactly from it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ResolvedConfig {
    pub machine: String,
    pub machine_spec: RawMachine,
    pub workload: String,
    pub placement: String,
    pub dynamic: Option<String>,
    pub threads: usize,
    pub binding: &'static str,
    pub init: String,
    pub seed: u64,
    pub quantum_ns: f64,
    pub oversubscribe: bool,
    /// The fast tier's capacity the run gave the machine, MiB (`machine_spec` is the machine
    /// as declared); absent when the run kept the declared tiers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fast_memory_mib: Option<f64>,
    /// The trace file replayed, if the workload came from one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    pub thread_nodes: Vec<u8>,
    pub numaplace_version: &'static str,
}

/// One epoch in the result.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct EpochRecord {
    pub iteration: u32,
    pub phase: &'static str,
    pub time_ns: f64,
}

/// The result of one simulation. Times in ns; traffic in lines (transactions).
///
/// `total_time_ns` and the traffic figures cover the timed iterations (1 and up); the
/// initialisation epoch is reported separately, as NAS excludes its cold start from timing.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SimResult {
    pub config: ResolvedConfig,
    pub total_time_ns: f64,
    pub init_time_ns: f64,
    pub iterations: u32,
    pub per_iteration_time_ns: Vec<f64>,
    pub epochs: Vec<EpochRecord>,
    pub transactions: u64,
    pub reads: u64,
    pub writes: u64,
    pub local_fraction: f64,
    pub per_node_transactions: Vec<u64>,
    pub per_node_utilisation: Vec<f64>,
    /// Per node, the mean queueing delay of a line it served in the timed iterations, ns: with
    /// the unloaded latency from the requesting CPU, the loaded latency the run saw there.
    pub per_node_queue_ns: Vec<f64>,
    pub per_node_pages: Vec<u64>,
    pub fallback_pages: u64,
    pub init_transactions: u64,
    pub migrations: u64,
    pub replications: u64,
    /// Replicated pages collapsed back to one copy.
    pub collapses: u64,
    /// Replicas alive at the end (the memory replication costs, in pages).
    pub replica_pages: u64,
    pub policy_overhead_ns: f64,
    /// Counter interrupts raised (counter-based policies).
    pub interrupts: u64,
    /// Hinting faults taken (fault-driven policies).
    pub hinting_faults: u64,
    /// Local share of each timed iteration's transactions.
    pub per_iteration_local_fraction: Vec<f64>,
    /// Times the dynamic policy was asked to decide (iteration ends of a policy that decides
    /// there, timer ticks, counter
    /// interrupts, hinting faults, epoch barriers at which it acted); 0 without a policy, and
    /// 0 with one whose period is longer than the run (it never got to act).
    pub policy_decision_points: u64,
    /// Decision points at which the policy acted (returned at least one migration,
    /// replication or collapse).
    pub policy_decisions_acted: u64,
    /// The barrier after the last timed iteration was not given to the policy (nothing
    /// follows it to repay an action); false without a policy.
    pub policy_final_barrier_withheld: bool,
    /// The dynamic policy's own record (empty without one): the statistics its registry entry
    /// declares (`numaplace policies` lists them; `DynamicCaps::statistics`), as it reported
    /// them — frozen pages, the cost gate's refusals, seed 003's sampling distance, the
    /// low-memory events of a tiering policy...
    pub policy: numaplace_model::report::Report,
    /// What the run's decision log holds and wrote (`--decisions`; absent when no log was
    /// kept): its records, those dropped by a log without a sink past its capacity, the
    /// promotions, demotions, promotion failures and returns (ping-pong) it saw, and their
    /// cost (`crate::engine::decisions`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision_log: Option<crate::engine::LogSummary>,
}

impl SimResult {
    /// The result as pretty JSON (byte-identical for identical runs).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("results serialise")
    }
}

fn ns(ps: Ps) -> f64 {
    ps as f64 / PS_PER_NS as f64
}

/// Runs one simulation.
///
/// # Errors
/// Any configuration error (unknown names, bad parameters, too many threads, a footprint that
/// does not fit), each with a one-line message.
pub fn simulate(cfg: &RunConfig) -> Result<SimResult, SimError> {
    Ok(run(cfg)?.result)
}

/// Runs one simulation on an already loaded machine (`cfg.machine` is then only a label).
///
/// # Errors
/// As [`simulate`].
pub fn simulate_on(machine: &Machine, cfg: &RunConfig) -> Result<SimResult, SimError> {
    Ok(run_on(machine, cfg)?.result)
}

/// A finished run: its result and, with a dynamic policy and a log kept without a sink
/// ([`LogTo::Keep`]), the decisions the log kept, for the caller to keep or write
/// ([`write_decisions`]); the run itself writes no file.
pub struct Run {
    pub result: SimResult,
    pub decisions: Option<crate::engine::Kept>,
}

/// Where a page-level run's decision log goes ([`run_on_logged`]).
pub enum LogTo {
    /// No log: moves record nothing (the default of a run that writes no decisions).
    Off,
    /// Keep the first `n` records, count the rest as dropped ([`Run::decisions`]).
    Keep(usize),
    /// Hand every batch of `n` records to the sink as the run goes.
    Stream(usize, Box<dyn crate::engine::DecisionSink>),
}

impl LogTo {
    /// The default for `cfg`: the first [`crate::engine::decisions::KEPT`] records when it
    /// names a decisions output, else none.
    pub fn default_for(cfg: &RunConfig) -> LogTo {
        if cfg.decisions.is_some() {
            LogTo::Keep(crate::engine::decisions::KEPT)
        } else {
            LogTo::Off
        }
    }
}

/// Runs one simulation, returning its decisions beside the result.
///
/// # Errors
/// As [`simulate`].
pub fn run(cfg: &RunConfig) -> Result<Run, SimError> {
    let machine = load_machine(&cfg.machine)?;
    run_on(&machine, cfg)
}

/// [`run`] on an already loaded machine (`cfg.machine` is then only a label).
///
/// # Errors
/// As [`simulate`].
pub fn run_on(machine: &Machine, cfg: &RunConfig) -> Result<Run, SimError> {
    run_on_observed(machine, cfg, &mut |_| true)
}

/// [`run`] with an observer called after every epoch; returning `false` stops the run
/// ([`SimError::Stopped`]). The observer sees the run and never changes it: a run it lets
/// finish gives the same result as [`run`].
///
/// # Errors
/// As [`simulate`], and [`SimError::Stopped`].
pub fn run_observed(cfg: &RunConfig, observer: &mut dyn FnMut(&Progress) -> bool) -> Result<Run, SimError> {
    let machine = load_machine(&cfg.machine)?;
    run_on_observed(&machine, cfg, observer)
}

/// The page-level kind of run ([`KindOfRun`]).
pub struct Page;

impl KindOfRun for Page {
    const KIND: RunKind = RunKind::Page;
    type Output = Run;

    fn run(machine: &Machine, cfg: &RunConfig, observer: &mut dyn FnMut(&Progress) -> bool) -> Result<Run, SimError> {
        run_on_observed(machine, cfg, observer)
    }
}

/// [`run_observed`] on an already loaded machine.
///
/// # Errors
/// As [`run_observed`]; a configuration for the protocol engine.
pub fn run_on_observed(machine: &Machine, cfg: &RunConfig, observer: &mut dyn FnMut(&Progress) -> bool) -> Result<Run, SimError> {
    run_on_logged(machine, cfg, observer, LogTo::default_for(cfg))
}

/// [`run_on_observed`] with its decision log going where `log` says (a dynamic policy's;
/// without one nothing is logged).
///
/// # Errors
/// As [`run_observed`]; the sink's first failure.
pub fn run_on_logged(machine: &Machine, cfg: &RunConfig, observer: &mut dyn FnMut(&Progress) -> bool, log: LogTo) -> Result<Run, SimError> {
    if RunKind::of(machine, cfg) == RunKind::Protocol {
        return Err(ModelError::Config(format!(
            "machine '{}' with engine = {} runs on the protocol engine: run it with run_any_observed",
            machine.name(),
            cfg.engine
        ))
        .into());
    }
    check_applies(cfg, RunKind::Page)?;
    // A RunConfig built in Rust skips the request: its quantum meets the declared range here.
    check_value("quantum_ns", &serde_json::Value::from(cfg.quantum_ns))?;
    if let Some(mib) = cfg.fast_memory_mib {
        check_value("fast_memory_mib", &serde_json::Value::from(mib))?;
    }
    // The machine this run simulates: with `fast_memory_mib`, its fast tier resized.
    let resized = cfg.machine_for_run(machine)?;
    let machine = resized.as_ref().unwrap_or(machine);
    // A trace is opened once (it may be a pipe): its header gives the thread count when the
    // request gave none, and the same source is replayed.
    let trace_path = trace_path(cfg)?;
    let opened = match &trace_path {
        Some(path) => Some(trace::open(std::path::Path::new(path))?),
        None => None,
    };
    let cfg = &with_threads_of(cfg, opened.as_ref().map(|t| t.header()));
    let threads = bind(machine, cfg.threads, cfg.binding, cfg.oversubscribe)?;
    let (mut wl, workload_spec, init): (Box<dyn Workload>, String, String) = match (opened, &trace_path) {
        (Some(t), Some(path)) => {
            let m = &machine.raw;
            trace::check_fits(t.header(), path, &format!("machine '{}'", machine.name()), m.page_size, m.line_size, cfg.threads)?;
            let h = t.header();
            let spec = h.meta("source").map_or_else(|| format!("trace:{path}"), str::to_string);
            let init = h.meta("init").unwrap_or("recorded").to_string();
            (t, spec, init)
        }
        _ => {
            let (wl, resolved) = build_workload(machine, cfg)?;
            (wl, resolved.to_string(), cfg.init.name().to_string())
        }
    };
    let needed = wl.pages();
    machine.check_footprint(needed)?;
    // The simulator's own per-page state, checked before it is allocated.
    let state = numaplace_model::pagetable::run_state_bytes(needed, machine.nodes(), cfg.dynamic.is_some());
    numaplace_model::pagetable::check_state_bytes(&format!("a run of {needed} pages"), state)?;
    // A placement that needs a profile of the run (`oracle`) gets it here: run::oracle.
    let (place, pl_resolved) = crate::run::oracle::placement(machine, cfg, &threads, trace_path.as_deref(), wl.regions(), observer)?;
    let mut engine = Engine::new(machine, &threads, wl.regions().to_vec(), place, ns_to_ps(cfg.quantum_ns));
    let dynamic = match &cfg.dynamic {
        Some(text) => {
            let (policy, resolved) = dynamic::build(&Spec::parse(text)?, machine, cfg.threads)?;
            policy.check_regions(wl.regions()).map_err(ModelError::Spec)?;
            engine.set_dynamic(policy, &dynamic::REGISTRY.get(&resolved.name)?.caps);
            let (regions, nodes) = (wl.regions(), machine.nodes());
            engine.set_decision_log(match log {
                LogTo::Off => None,
                LogTo::Keep(n) => Some(crate::engine::DecisionLog::keeping(n, regions, nodes)),
                LogTo::Stream(n, sink) => Some(crate::engine::DecisionLog::streaming(n, sink, regions, nodes)),
            });
            Some(resolved.to_string())
        }
        None => None,
    };
    engine.set_declared_iterations(wl.declared_iterations());
    let mut epoch = Epoch::default();
    let mut iteration = 0;
    let iterations = wl.iterations();
    let mut epochs = 0u64;
    while wl.next_epoch(&mut epoch) {
        if epoch.iteration != iteration && iteration > 0 {
            engine.end_iteration(iteration);
        }
        if epoch.iteration > 0 && iteration == 0 {
            engine.start_timed();
        }
        iteration = epoch.iteration;
        engine.run_epoch(&epoch);
        epochs += 1;
        let at = Progress { iteration, iterations, epochs, simulated_ns: ns(engine.now()) };
        if !observer(&at) {
            return Err(SimError::Stopped);
        }
        if let Some(e) = engine.decision_error() {
            return Err(e);
        }
    }
    if iteration > 0 {
        engine.finish();
    }
    if let Some(e) = wl.take_error() {
        return Err(e);
    }
    if engine.overran {
        return Err(ModelError::Config(format!(
            "the run's simulated time passed {} ps (about 53 days), the simulator's bound",
            numaplace_model::units::MAX_TIME_PS
        ))
        .into());
    }
    if let Some(d) = &engine.dynamic {
        d.check_finished().map_err(ModelError::Spec)?;
    }
    let config = ResolvedConfig {
        machine: machine.name().to_string(),
        machine_spec: machine.raw.clone(),
        workload: workload_spec,
        placement: pl_resolved.to_string(),
        dynamic,
        threads: cfg.threads,
        binding: cfg.binding.name(),
        init,
        seed: cfg.seed,
        quantum_ns: cfg.quantum_ns,
        oversubscribe: cfg.oversubscribe,
        fast_memory_mib: cfg.fast_memory_mib,
        trace: trace_path,
        thread_nodes: threads.iter().map(|p| p.node.0).collect(),
        numaplace_version: env!("CARGO_PKG_VERSION"),
    };
    let mut result = summarise(machine, &engine, wl.as_ref(), config);
    let logged = engine.take_decision_log().map(crate::engine::DecisionLog::finish).transpose()?;
    let (summary, kept) = logged.unzip();
    result.decision_log = summary;
    Ok(Run { result, decisions: kept })
}

/// Writes the page-level workload of `cfg` on `machine` as a trace at `path` (text form if
/// `text`), with the metadata that lets a replay reproduce the run (`run::export_trace` is the
/// entry point for every kind).
///
/// # Errors
/// A bad configuration or a write error.
pub fn export(machine: &Machine, cfg: &RunConfig, path: &std::path::Path, text: bool) -> Result<(), SimError> {
    check_applies(cfg, RunKind::Page)?;
    let cfg = &settle_threads(cfg)?;
    bind(machine, cfg.threads, cfg.binding, cfg.oversubscribe)?;
    let (mut wl, resolved) = build_workload(machine, cfg)?;
    let header = trace::TraceHeader {
        page_size: machine.raw.page_size,
        line_size: machine.raw.line_size,
        threads: cfg.threads,
        regions: wl.regions().to_vec(),
        meta: vec![
            ("source".into(), resolved.to_string()),
            ("init".into(), cfg.init.name().into()),
            ("seed".into(), cfg.seed.to_string()),
            ("iterations".into(), wl.iterations().to_string()),
            ("machine".into(), machine.name().into()),
            ("writer".into(), format!("numaplace {}", env!("CARGO_PKG_VERSION"))),
        ],
    };
    if text {
        trace::write_text(wl.as_mut(), &header, path)
    } else {
        trace::export(wl.as_mut(), &header, path).map(|_| ())
    }
}

/// Writes kept decisions as CSV (a `.csv` path) or JSON Lines, atomically (a run that
/// streams its log writes it as it goes: [`LogTo::Stream`], `crate::engine::LineSink`).
///
/// # Errors
/// The file cannot be written.
pub fn write_decisions(path: &std::path::Path, decisions: &crate::engine::Kept) -> Result<(), SimError> {
    use crate::engine::DecisionSink as _;
    let csv = path.extension().is_some_and(|e| e == "csv");
    crate::output::write_with(path, |f| {
        let mut sink = crate::engine::LineSink::new(std::io::BufWriter::new(f), csv, path);
        sink.write(&decisions.batch())?;
        sink.finish()
    })
}

fn summarise(machine: &Machine, engine: &Engine<'_>, wl: &dyn Workload, config: ResolvedConfig) -> SimResult {
    let nn = machine.nodes();
    let Traffic { lines, writes } = &engine.timed;
    let transactions: u64 = lines.iter().sum();
    let local: u64 = (0..nn).map(|n| lines[n * nn + n]).sum();
    let per_node: Vec<u64> = (0..nn).map(|h| (0..nn).map(|n| lines[n * nn + h]).sum()).collect();
    let timed_ps: Ps = engine.epochs.iter().filter(|e| e.iteration > 0).map(|e| e.time_ps).sum();
    let init_ps: Ps = engine.epochs.iter().filter(|e| e.iteration == 0).map(|e| e.time_ps).sum();
    let iterations = wl.iterations();
    let mut per_iter = vec![0 as Ps; iterations as usize];
    for e in engine.epochs.iter().filter(|e| e.iteration > 0) {
        if let Some(slot) = per_iter.get_mut(e.iteration as usize - 1) {
            *slot += e.time_ps;
        }
    }
    let policy = engine.dynamic.as_ref().map(|d| d.stats()).unwrap_or_default();
    let utilisation = per_node
        .iter()
        .zip(&machine.service_ps)
        .map(|(&l, &s)| if timed_ps == 0 { 0.0 } else { l as f64 * s / timed_ps as f64 })
        .collect();
    SimResult {
        config,
        total_time_ns: ns(timed_ps),
        init_time_ns: ns(init_ps),
        iterations,
        per_iteration_time_ns: per_iter.into_iter().map(ns).collect(),
        epochs: engine
            .epochs
            .iter()
            .map(|e| EpochRecord { iteration: e.iteration, phase: e.phase, time_ns: ns(e.time_ps) })
            .collect(),
        transactions,
        reads: transactions - writes,
        writes: *writes,
        local_fraction: if transactions == 0 { 0.0 } else { local as f64 / transactions as f64 },
        per_node_transactions: per_node,
        per_node_utilisation: utilisation,
        per_node_queue_ns: engine.timed_queue_ns(),
        per_node_pages: engine.page_table().pages_per_node().to_vec(),
        fallback_pages: engine.page_table().fallbacks(),
        init_transactions: engine.init.lines.iter().sum(),
        migrations: policy.migrations,
        replications: policy.replications,
        collapses: policy.collapses,
        replica_pages: engine.page_table().replica_pages(),
        policy_overhead_ns: ns(policy.overhead_ps),
        interrupts: policy.interrupts,
        hinting_faults: policy.hinting_faults,
        policy_decision_points: policy.decision_points,
        policy_decisions_acted: policy.decisions_acted,
        policy_final_barrier_withheld: policy.final_barrier_withheld,
        policy: policy.report,
        decision_log: None,
        per_iteration_local_fraction: engine
            .iteration_traffic
            .iter()
            .map(|&(local, all)| if all == 0 { 0.0 } else { local as f64 / all as f64 })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> RunConfig {
        crate::run::request::resolve_json(r#"{"workload": "nas-cg", "class": "S", "threads": 4, "dynamic": "upmlib"}"#).unwrap()
    }

    fn tiered(extra: &str) -> Result<SimResult, SimError> {
        let text = format!(r#"{{"machine": "cxl-1to8", "workload": "gups:pages=2000,updates=2000,iterations=2", "threads": 2{extra}}}"#);
        simulate(&crate::run::request::resolve_json(&text)?)
    }

    #[test]
    fn fast_memory_resizes_the_fast_tier_for_the_run_and_is_echoed() {
        let declared = tiered("").unwrap();
        assert_eq!(declared.per_node_pages, vec![2000, 0]); // 8,000 KiB fit the 220 MiB fast node
        assert!(!declared.to_json().contains("fast_memory_mib"));
        // 2 MiB: 512 pages on the fast node, the rest falls back to CXL.
        let small = tiered(r#", "fast_memory_mib": 2"#).unwrap();
        assert_eq!(small.per_node_pages, vec![512, 1488]);
        assert!(small.local_fraction < declared.local_fraction);
        assert!(small.total_time_ns > declared.total_time_ns);
        assert_eq!(small.config.fast_memory_mib, Some(2.0));
        assert_eq!(small.config.machine_spec, declared.config.machine_spec); // as declared
        assert!(small.to_json().contains("\"fast_memory_mib\": 2.0"));
        // Fractions of a MiB: 0.25 MiB is 64 pages.
        assert_eq!(tiered(r#", "fast_memory_mib": 0.25"#).unwrap().per_node_pages, vec![64, 1936]);
        assert_eq!(tiered(r#", "fast_memory_mib": 2"#).unwrap().to_json(), small.to_json());
    }

    #[test]
    fn fast_memory_errors_name_the_option_and_the_value() {
        let e = |extra: &str| tiered(extra).err().expect("an error").to_string();
        assert_eq!(e(r#", "fast_memory_mib": 0"#), "fast_memory_mib = 0: a fast tier of zero: the fast tier must hold at least one page per fast node");
        assert_eq!(
            e(r#", "fast_memory_mib": 1980.5"#),
            "fast_memory_mib = 1980.5: a fast tier larger than the machine: machine 'cxl-1to8' has 1980 MiB of memory in all its tiers"
        );
        assert!(tiered(r#", "fast_memory_mib": 1980"#).is_ok()); // the whole machine, exactly
        assert_eq!(e(r#", "fast_memory_mib": -1"#), "fast_memory_mib = -1: expected a number in [0, 272730423296]");
        let flat = r#"{"machine": "modern-2s", "workload": "stream:pages=64", "threads": 2, "fast_memory_mib": 64}"#;
        let e = simulate(&crate::run::request::resolve_json(flat).unwrap()).err().unwrap().to_string();
        assert!(e.starts_with("fast_memory_mib = 64: machine 'modern-2s' has one memory tier: there is no fast tier to size"), "{e}");
        // A footprint larger than the whole machine is the existing error, not this option's.
        let big = r#"{"machine": "cxl-1to8", "workload": "gups:pages=600000,updates=10", "threads": 2, "fast_memory_mib": 1}"#;
        let e = simulate(&crate::run::request::resolve_json(big).unwrap()).err().unwrap().to_string();
        assert!(e.starts_with("out of memory: 600000 pages needed"), "{e}");
    }

    #[test]
    fn an_observer_sees_every_epoch_and_changes_nothing() {
        let plain = run(&cfg()).unwrap().result;
        let mut seen: Vec<Progress> = Vec::new();
        let observed = run_observed(&cfg(), &mut |p| {
            seen.push(*p);
            true
        })
        .unwrap()
        .result;
        assert_eq!(observed.to_json(), plain.to_json());
        assert_eq!(seen.len(), plain.epochs.len());
        for (i, (p, e)) in seen.iter().zip(&plain.epochs).enumerate() {
            assert_eq!((p.iteration, p.iterations, p.epochs), (e.iteration, plain.iterations, i as u64 + 1));
        }
        assert!(seen.windows(2).all(|w| w[0].simulated_ns <= w[1].simulated_ns));
        let end = seen.last().unwrap().simulated_ns;
        let sum: f64 = plain.epochs.iter().map(|e| e.time_ns).sum();
        assert!((end - sum).abs() <= 1e-6 * sum, "simulated {end} ns, epochs sum to {sum} ns");
    }

    #[test]
    fn an_observer_that_says_stop_stops_the_run() {
        let mut calls = 0;
        let r = run_observed(&cfg(), &mut |_| {
            calls += 1;
            calls < 3
        });
        assert!(matches!(r, Err(SimError::Stopped)));
        assert_eq!(calls, 3);
    }
}
