//! The result of a system run: one flat record per job, one for the system, and the allocation
//! timeline — each a list of flat rows that loads into pandas as it is
//! (`pandas.DataFrame(result["jobs"])`). Times in ns, like the single-program result.

use serde::Serialize;

/// One job of the stream, as it ran.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct JobRecord {
    pub job: u32,
    /// The workload spec as resolved.
    pub workload: String,
    /// CPUs requested.
    pub request: u32,
    pub arrival_ns: f64,
    /// When the scheduler admitted it.
    pub start_ns: f64,
    pub end_ns: f64,
    /// `end − arrival`.
    pub response_ns: f64,
    /// `start − arrival`: time queued.
    pub wait_ns: f64,
    /// `end − start`.
    pub execution_ns: f64,
    /// CPU time consumed: each epoch's wall time times the CPU share each of its threads held
    /// (OpenMP threads spin at the barrier, so a thread that finishes early still holds its
    /// CPU), summed.
    pub cpu_time_ns: f64,
    /// The job's execution time alone on one CPU of the machine (same workload, placement and
    /// initialisation, no dynamic policy).
    pub one_cpu_ns: f64,
    /// `one_cpu_ns / execution_ns`.
    pub speedup: f64,
    /// Threads it ran with, averaged over its execution time (its processor allocation).
    pub mean_cpus: f64,
    /// Times one of its threads resumed on a different CPU than it last ran on.
    pub process_migrations: u64,
    /// Stretches of a thread on one CPU, ended by a move, by the thread's removal or by the
    /// job's end.
    pub bursts: u64,
    /// `cpu_time_ns / bursts`.
    pub mean_burst_ns: f64,
    /// Share of its lines (initialisation included) served by the fetching thread's node.
    pub local_fraction: f64,
    /// Pages its dynamic policy migrated.
    pub pages_migrated: u64,
    /// Lines it fetched, initialisation included.
    pub transactions: u64,
    /// What its dynamic policy's traps and moves cost its threads.
    pub policy_overhead_ns: f64,
}

/// The whole system.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SystemRecord {
    pub machine: String,
    /// The scheduler, placement and dynamic policy as resolved.
    pub scheduler: String,
    pub placement: String,
    pub dynamic: Option<String>,
    pub seed: u64,
    pub quantum_ns: f64,
    pub init: String,
    pub jobs: usize,
    pub cpus: usize,
    /// From time 0 (the stream's origin) to the last job's end.
    pub makespan_ns: f64,
    /// CPU time consumed over `cpus × makespan`.
    pub utilisation: f64,
    pub cpu_time_ns: f64,
    pub process_migrations: u64,
    pub bursts: u64,
    /// `cpu_time_ns / bursts`.
    pub mean_burst_ns: f64,
    /// `bursts / cpus` (seed 002 Table 2's "bursts per cpu").
    pub bursts_per_cpu: f64,
    pub pages_migrated: u64,
    /// Share of all jobs' lines served locally.
    pub local_fraction: f64,
    pub mean_response_ns: f64,
    /// The most jobs that ran at once (the multiprogramming level reached).
    pub max_running: usize,
    pub numaplace_version: &'static str,
}

/// A job's thread count from a time on (0 when it ends).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct AllocationPoint {
    pub time_ns: f64,
    pub job: u32,
    pub cpus: u32,
}

/// A system run's result.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SystemResult {
    pub system: SystemRecord,
    /// In job order.
    pub jobs: Vec<JobRecord>,
    /// In time order.
    pub timeline: Vec<AllocationPoint>,
}

impl SystemResult {
    /// The result as pretty JSON (byte-identical for identical runs).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("results serialise")
    }
}
