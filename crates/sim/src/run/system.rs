//! One multiprogrammed-system run (seed 002) from a run configuration: the job stream the
//! request names (a generated mix at a load, or an SWF file), the scheduler, placement and
//! dynamic policy, through [`crate::system`].
//!
//! A mix's arrival rate comes from its applications' demands (`numaplace_model::jobs::mix`:
//! mean inter-arrival = mean demand / (load × CPUs)); the demand of an application is measured
//! here by running one of its jobs alone on its requested CPUs, with the run's placement, init
//! mode and seed, no dynamic policy: its simulated time (initialisation included, as a job
//! runs it) times the CPUs requested.

use numaplace_model::error::shown_path;
use crate::error::SimError;
use crate::run::config::{RunConfig, RunKind};
use crate::run::kind::{KindOfRun, Progress};
use crate::run::page::simulate_on;
use crate::run::request::check_applies;
use crate::system::{check_config, simulate_system_on, SystemConfig, SystemProgress, SystemResult};
use numaplace_model::jobs::{mix, swf, JobStream};
use numaplace_model::topology::RawMachine;
use numaplace_model::{Machine, ModelError};
use serde::Serialize;
use std::path::Path;

/// The configuration of a system run as resolved: enough to repeat it exactly.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SystemRunConfig {
    pub machine: String,
    pub machine_spec: RawMachine,
    pub engine: &'static str,
    /// The stream as the request named it (a mix, or the SWF file).
    pub job_stream: String,
    /// A mix's load (absent for an SWF file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load: Option<f64>,
    /// What each application ran (a mix: `app=spec`), or the SWF application map.
    pub apps: String,
    /// A mix's measured demand per application, CPU-seconds of one job on its request.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub demand_s: Vec<(String, f64)>,
    /// A mix's mean inter-arrival time, s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_interarrival_s: Option<f64>,
    /// An SWF file's jobs that asked for more CPUs than the machine has and run on all of them,
    /// in words (absent when none did).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clamped_jobs: Option<String>,
    /// An SWF file whose header's `MaxProcs` (the processors of the machine the log was taken
    /// on) is not the machine's CPU count, in words (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_procs: Option<String>,
    pub seed: u64,
    pub numaplace_version: &'static str,
}

/// A system run's result: its configuration, the system record, a record per job, and the
/// allocation timeline.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SystemRun {
    pub config: SystemRunConfig,
    #[serde(flatten)]
    pub result: SystemResult,
}

impl SystemRun {
    /// The result as pretty JSON (byte-identical for identical runs).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("results serialise")
    }
}

/// A mix's application map, `app=spec;...`, checked against the mix's applications.
fn mix_workloads(text: &str) -> Result<Vec<(String, String)>, ModelError> {
    let mut out: Vec<(String, String)> = Vec::new();
    for entry in text.split(';').map(str::trim) {
        let Some((app, spec)) = entry.split_once('=').map(|(a, s)| (a.trim(), s.trim())) else {
            return Err(ModelError::Spec(format!("apps = {text}: entry '{entry}' is not APP=SPEC (APP one of swim, bt, hydro2d, apsi)")));
        };
        if !mix::APPS.iter().any(|a| a.name == app) {
            return Err(ModelError::unknown("application of seed 002", app, mix::APPS.iter().map(|a| a.name)));
        }
        if spec.is_empty() || out.iter().any(|(a, _)| a == app) {
            return Err(ModelError::Spec(format!("apps = {text}: application '{app}' has no spec or is given twice")));
        }
        out.push((app.to_string(), spec.to_string()));
    }
    Ok(out)
}

/// The job stream of `cfg` on `machine`, with the resolved configuration's stream fields.
fn stream(machine: &Machine, cfg: &RunConfig, jobs: &str) -> Result<(JobStream, SystemRunConfig), SimError> {
    let mut out = SystemRunConfig {
        machine: machine.name().to_string(),
        machine_spec: machine.raw.clone(),
        engine: RunKind::System.name(),
        job_stream: jobs.to_string(),
        load: None,
        apps: String::new(),
        demand_s: Vec::new(),
        mean_interarrival_s: None,
        clamped_jobs: None,
        max_procs: None,
        seed: cfg.seed,
        numaplace_version: env!("CARGO_PKG_VERSION"),
    };
    let is_mix = mix::MIXES.iter().any(|m| m.name.eq_ignore_ascii_case(jobs));
    if !is_mix {
        if cfg.given.contains(&"load") {
            return Err(ModelError::Config(format!("load = {}: a load is a generated mix's (W1..W4); an SWF file's jobs arrive when it says", cfg.load)).into());
        }
        let path = Path::new(jobs);
        let shown = shown_path(path);
        if !(jobs.contains('/') || jobs.ends_with(".swf")) {
            return Err(ModelError::unknown("job mix", jobs, mix::MIXES.iter().map(|m| m.name)).into());
        }
        let text = crate::input::read_text(path, crate::input::SWF_FILE)?;
        let log = swf::parse(&text).map_err(|e| ModelError::Config(format!("{shown}: {e}")))?;
        let apps = match &cfg.apps {
            Some(a) => swf::AppMap::parse(a)?,
            None => swf::AppMap::default(),
        };
        out.apps = cfg.apps.clone().unwrap_or_else(|| swf::DEFAULT_APPS.join(";"));
        let max_cpus = Some(u32::try_from(machine.cpus()).unwrap_or(u32::MAX));
        let opts = swf::StreamOptions { first: 0, limit: cfg.job_count.map(|n| n as usize), apps, max_cpus };
        let s = swf::to_stream(&log, &opts).map_err(|e| ModelError::Config(format!("{shown}: {e}")))?;
        if s.stream.jobs.is_empty() {
            return Err(ModelError::Config(format!("{shown}: no job with a processor count")).into());
        }
        // The log's own machine, where its header says (`MaxProcs`), against this one.
        if let Some(p) = log.header.max_procs.filter(|&p| p > 0 && p as u64 != machine.cpus() as u64) {
            out.max_procs = Some(format!("the log's machine had {p} processors (MaxProcs), machine '{}' has {}", machine.name(), machine.cpus()));
        }
        if let Some(&(line, job, cpus)) = s.clamped.first() {
            out.clamped_jobs = Some(format!(
                "{} job{} asked for more than the machine's {} CPUs and ran on all of them (the first: swf line {line}, job {job}, {cpus} CPUs)",
                s.clamped.len(),
                if s.clamped.len() == 1 { "" } else { "s" },
                machine.cpus()
            ));
        }
        return Ok((s.stream, out));
    }
    let m = mix::mix(jobs)?;
    let overrides = match &cfg.apps {
        Some(a) => mix_workloads(a)?,
        None => Vec::new(),
    };
    let spec_of = |app: &mix::App| {
        overrides.iter().find(|(a, _)| a == app.name).map_or_else(|| app.workload.to_string(), |(_, s)| s.clone())
    };
    // Each application's demand: one job alone on its request.
    let mut demand: Vec<(String, f64)> = Vec::new();
    for (name, _) in m.shares {
        let app = mix::APPS.iter().find(|a| a.name == *name).expect("a mix names declared applications");
        let alone = RunConfig {
            machine: cfg.machine.clone(),
            workload: spec_of(app),
            placement: cfg.placement.clone(),
            threads: app.cpus as usize,
            init: cfg.init,
            seed: cfg.seed,
            quantum_ns: cfg.quantum_ns,
            ..RunConfig::default()
        };
        let r = simulate_on(machine, &alone).map_err(|e| ModelError::Config(format!("jobs = {jobs}: measuring {name}'s demand: {e}")))?;
        demand.push((name.to_string(), (r.init_time_ns + r.total_time_ns) * app.cpus as f64 / 1e9));
    }
    let workloads: Vec<(&str, String)> = mix::APPS.iter().map(|a| (a.name, spec_of(a))).collect();
    let workloads_ref: Vec<(&str, &str)> = workloads.iter().map(|(a, s)| (*a, s.as_str())).collect();
    let demand_ref: Vec<(&str, f64)> = demand.iter().map(|(a, d)| (a.as_str(), *d)).collect();
    let req = mix::MixRequest {
        mix: jobs,
        load: cfg.load,
        machine_cpus: machine.cpus() as u32,
        seed: cfg.seed,
        jobs: cfg.job_count,
        demand: &demand_ref,
        workloads: &workloads_ref,
    };
    let s = mix::generate(&req)?;
    out.load = Some(cfg.load);
    out.mean_interarrival_s = Some(mix::mean_interarrival_s(&req)?);
    out.apps = workloads.iter().filter(|(a, _)| m.shares.iter().any(|(n, _)| n == a)).map(|(a, s)| format!("{a}={s}")).collect::<Vec<_>>().join(";");
    out.demand_s = demand;
    Ok((s, out))
}

/// The system kind of run ([`KindOfRun`]). Its progress: a job's completion, as the fraction of
/// the stream's jobs in place of iterations (the simulated time is the system's).
pub struct System;

impl KindOfRun for System {
    const KIND: RunKind = RunKind::System;
    type Output = SystemRun;

    fn run(machine: &Machine, cfg: &RunConfig, observer: &mut dyn FnMut(&Progress) -> bool) -> Result<SystemRun, SimError> {
        let mut sys_observer = |p: &SystemProgress| {
            let at = Progress { iteration: p.done as u32, iterations: p.jobs as u32, epochs: p.done as u64, simulated_ns: p.simulated_ns };
            observer(&at)
        };
        run_system(machine, cfg, &mut sys_observer)
    }
}

/// Runs the system `cfg` names on `machine`, reporting each job's completion to `observer`.
///
/// # Errors
/// An option that does not apply to system runs, the protocol engine asked for, a bad job
/// stream (unknown mix, unreadable or malformed SWF file, bad application map), and the
/// system simulator's errors.
pub fn run_system(machine: &Machine, cfg: &RunConfig, observer: &mut dyn FnMut(&SystemProgress) -> bool) -> Result<SystemRun, SimError> {
    check_applies(cfg, RunKind::System)?;
    if cfg.engine == "protocol" {
        return Err(ModelError::Config("engine = protocol: a system run's jobs run on the page engine".into()).into());
    }
    let jobs = cfg.job_stream.as_deref().expect("a system run names its job stream");
    let sys = SystemConfig {
        scheduler: cfg.scheduler.clone(),
        placement: cfg.placement.clone(),
        dynamic: cfg.dynamic.clone(),
        seed: cfg.seed,
        quantum_ns: cfg.quantum_ns,
        init: cfg.init,
    };
    // Before a mix's applications are measured alone, at this quantum.
    check_config(machine, &sys)?;
    let (stream, config) = stream(machine, cfg, jobs)?;
    let result = simulate_system_on(machine, &stream, &sys, observer)?;
    Ok(SystemRun { config, result })
}
