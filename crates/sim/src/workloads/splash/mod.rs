//! SHALLOW (seed 001), SPLASH-2 Ocean and Gaussian elimination (seed 004): grid and matrix
//! kernels whose page placement story is their data layout.
//!
//! * [`shallow`]: 2-D shallow-water stencil over row blocks (seed 001 §3).
//! * [`ocean`]: `ocean-contig` (each thread's subgrids on pages of their own) and
//!   `ocean-noncontig` (plain 2-D arrays, pages shared by neighbouring subgrids) (seed 004).
//! * [`ge`]: Gaussian elimination, the pivot row read by every thread (seed 004).
//! * [`common`]: 2-D arrays, rectangles of them as line records, defaults from flop counts.

pub mod common;
pub mod ge;
pub mod ocean;
pub mod shallow;

use crate::workload::WorkloadInfo;

/// Every kernel of this family.
pub const INFOS: &[WorkloadInfo] = &[shallow::INFO, ocean::CONTIG, ocean::NONCONTIG, ge::INFO];
