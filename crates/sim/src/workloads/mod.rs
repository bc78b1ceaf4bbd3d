//! The built-in workloads. Each module holds workloads with their parameter tables, registry
//! entries (`INFO` / `INFOS`) and generators:
//!
//! * `stream`, `random`, `traverse`: microbenchmarks.
//! * [`nas`]: kernels modelled on the NAS Parallel Benchmarks (BT, SP, LU, MG, CG, FT, EP).
//! * [`splash`]: SHALLOW, SPLASH-2 Ocean and Gaussian elimination.

pub mod nas;
pub mod random;
pub mod splash;
pub mod stream;
pub mod traverse;

use crate::workload::WorkloadInfo;

/// The microbenchmarks.
pub const BASIC: &[WorkloadInfo] = &[stream::INFO, random::INFO, traverse::INFO];
