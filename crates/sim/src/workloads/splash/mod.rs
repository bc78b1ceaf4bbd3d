//! SHALLOW (seed 001), SPLASH-2 Ocean and Gaussian elimination (seed 004).

use crate::workload::WorkloadInfo;

/// Every kernel of this family.
pub const INFOS: &[WorkloadInfo] = &[];
