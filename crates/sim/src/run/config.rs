//! What a run is: its typed configuration ([`RunConfig`], resolved from a request by
//! `run::request::resolve`, whose option table declares every field) and its kind
//! ([`RunKind`], chosen once per run by [`RunKind::of`]).

use crate::binding::Binding;
use crate::workload::Init;
use numaplace_model::Machine;

/// Everything that determines a simulation.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// A preset name or a path to a machine file.
    pub machine: String,
    /// `NAME:key=value,...`
    pub workload: String,
    /// `NAME:key=value,...`
    pub placement: String,
    pub threads: usize,
    pub binding: Binding,
    pub init: Init,
    pub seed: u64,
    /// Length of the interleaving quantum, ns.
    pub quantum_ns: f64,
    pub oversubscribe: bool,
    /// The fast tier's capacity for this run, MiB: the machine's fastest tier resized to it
    /// (`Machine::with_fast_capacity`; [`RunConfig::machine_for_run`]).
    pub fast_memory_mib: Option<f64>,
    /// Replay this trace file instead of generating `workload` (whose text is then ignored;
    /// init comes from the trace): the same as the workload `trace:file=PATH`, for any path.
    pub trace: Option<String>,
    /// A problem class (`S`, `W`, `A`, `B`) added to the workload's spec as `class=...`.
    pub class: Option<String>,
    /// A dynamic policy, `NAME:key=value,...`.
    pub dynamic: Option<String>,
    /// Write every policy decision here (`.csv`, else JSON Lines).
    pub decisions: Option<String>,
    /// The workload is a trace and the request gave no thread count: take the trace's.
    pub threads_from_trace: bool,
    /// `auto`, `page` or `protocol` ([`RunKind::ENGINES`]).
    pub engine: String,
    /// The protocol engine's proxy mode (`none`, `basic`, `reactive`).
    pub proxies: String,
    /// The protocol engine's input buffers (`infinite`, `finite`).
    pub buffers: String,
    /// A job stream (`W1`..`W4`, or an SWF file): the run is a multiprogrammed system.
    pub job_stream: Option<String>,
    /// A generated mix's offered load.
    pub load: f64,
    /// Jobs in the stream (a mix's count; an SWF file's first jobs).
    pub job_count: Option<u32>,
    /// What the jobs run (an application map).
    pub apps: Option<String>,
    /// A system run's processor scheduler, `NAME:key=value,...`.
    pub scheduler: String,
    /// The options the request set (given with a value other than their default): each must
    /// apply to the kind of run made (`run::request::check_applies`).
    pub given: Vec<&'static str>,
}

impl RunConfig {
    /// The machine this run simulates: `machine` itself, or with its fast tier resized to
    /// `fast_memory_mib` (rounded down to whole pages).
    ///
    /// # Errors
    /// `fast_memory_mib` on a machine of one tier, zero, larger than the machine's whole
    /// memory, or less than a page per fast node: one line naming the option and its value.
    pub fn machine_for_run(&self, machine: &Machine) -> Result<Option<Machine>, numaplace_model::ModelError> {
        let Some(mib) = self.fast_memory_mib else { return Ok(None) };
        let bytes = (mib * f64::from(1u32 << 20)).floor() as u64;
        machine
            .with_fast_capacity(bytes)
            .map(Some)
            .map_err(|e| numaplace_model::ModelError::Config(format!("fast_memory_mib = {mib}: {e}")))
    }
}

/// What a run simulates, and so which options it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunKind {
    /// One program on the page-level engine (the default engine).
    Page,
    /// One line-level program on the protocol engine (seed 004; docs/protocol.md).
    Protocol,
    /// A multiprogrammed system: a job stream under a processor scheduler, every job on the
    /// page-level engine (seed 002; docs/multiprogramming.md). A run is one when `job_stream` is set.
    System,
}

impl RunKind {
    /// The `engine` option's names for each kind.
    pub const ENGINES: &'static [&'static str] = &["auto", "page", "protocol"];

    /// The kind of run `cfg` makes on `machine`, chosen once: a system when it names a job
    /// stream; else the protocol engine when `engine = protocol`, or `auto` on a machine with a
    /// `[protocol]` table; else the page engine.
    pub fn of(machine: &Machine, cfg: &RunConfig) -> RunKind {
        if cfg.job_stream.is_some() {
            return RunKind::System;
        }
        match cfg.engine.as_str() {
            "protocol" => RunKind::Protocol,
            "page" => RunKind::Page,
            _ if machine.raw.protocol.is_some() => RunKind::Protocol,
            _ => RunKind::Page,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            RunKind::Page => "page",
            RunKind::Protocol => "protocol",
            RunKind::System => "system",
        }
    }
}

