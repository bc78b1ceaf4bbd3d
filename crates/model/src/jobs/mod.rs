//! Jobs and job streams for multiprogrammed systems (seed 002).
//!
//! A *job* is a workload instance with an arrival time and a requested CPU count; a *job
//! stream* is jobs in arrival order. Streams come from two sources:
//!
//! * [`swf`]: a log in the Standard Workload Format of Feitelson's Parallel Workloads Archive,
//!   parsed from text the caller reads (this crate does no I/O), then windowed and mapped to
//!   workloads;
//! * [`mix`]: seed 002's mixes W1–W4 (its Table 1), with exponential inter-arrival times set
//!   to a target load of the machine's CPUs, from a seed.

pub mod mix;
pub mod swf;

use crate::units::Ps;
use std::fmt;

/// Where a job of a stream came from, for messages: its log's line (from 1) and its job number
/// there (field 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobOrigin {
    pub line: usize,
    pub number: i64,
}

impl fmt::Display for JobOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "swf line {}, job {}", self.line, self.number)
    }
}

/// How messages name job `id` of a stream: `job 3`, or with where it came from, `job 3 (swf
/// line 17, job 12)`.
pub fn job_name(id: u32, origin: Option<JobOrigin>) -> String {
    match origin {
        Some(o) => format!("job {id} ({o})"),
        None => format!("job {id}"),
    }
}

/// One job of a stream: a workload instance with an arrival time and a requested CPU count.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// Position in the stream, from 0.
    pub id: u32,
    /// Arrival time from the stream's start.
    pub arrival: Ps,
    /// CPUs requested.
    pub cpus: u32,
    /// The workload, as a spec the simulator's workload registry resolves (`swim`,
    /// `nas-bt:class=W`, ...).
    pub workload: String,
    /// The log line and job number it came from (an SWF log), or `None` (a generated mix).
    pub origin: Option<JobOrigin>,
}

impl Job {
    /// The job as messages name it ([`job_name`]).
    pub fn name(&self) -> String {
        job_name(self.id, self.origin)
    }
}

/// Jobs sorted by arrival (ties by id).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobStream {
    pub jobs: Vec<Job>,
}

impl JobStream {
    /// A stream of `jobs` sorted by arrival (stably: jobs arriving together keep their order)
    /// and renumbered from 0 in that order.
    pub fn from_jobs(mut jobs: Vec<Job>) -> JobStream {
        jobs.sort_by_key(|j| j.arrival);
        for (i, j) in jobs.iter_mut().enumerate() {
            j.id = i as u32;
        }
        JobStream { jobs }
    }

    /// The application of each job: its workload spec's name (the text before `:`).
    pub fn app(job: &Job) -> &str {
        job.workload.split(':').next().unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_jobs_sorts_stably_and_numbers() {
        let j = |id, arrival, w: &str| Job { id, arrival, cpus: 1, workload: w.into(), origin: None };
        let s = JobStream::from_jobs(vec![j(9, 5, "a"), j(9, 1, "b"), j(9, 5, "c:x=1")]);
        let got: Vec<(u32, Ps, &str)> = s.jobs.iter().map(|j| (j.id, j.arrival, j.workload.as_str())).collect();
        assert_eq!(got, vec![(0, 1, "b"), (1, 5, "a"), (2, 5, "c:x=1")]);
        assert_eq!(JobStream::app(&s.jobs[2]), "c");
    }
}
