//! Jobs and job streams for multiprogrammed systems (seed 002).

use crate::units::Ps;

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
}

/// Jobs sorted by arrival (ties by id).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobStream {
    pub jobs: Vec<Job>,
}
