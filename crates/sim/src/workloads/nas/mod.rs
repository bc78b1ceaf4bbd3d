//! Kernels modelled on the NAS Parallel Benchmarks.

use crate::workload::WorkloadInfo;

/// Every NAS kernel.
pub const INFOS: &[WorkloadInfo] = &[];
