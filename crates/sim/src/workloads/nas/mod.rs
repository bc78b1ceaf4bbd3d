//! Kernels modelled on the NAS Parallel Benchmarks, OpenMP versions (NPB 3.3-OMP), as run on
//! the Origin2000 in seed 000 (BT, SP, CG, MG, FT at class A on 16 processors) and on the
//! Wildfire and Sun Fire in seeds 001 and 003: `nas-bt`, `nas-sp`, `nas-lu`, `nas-mg`,
//! `nas-cg`, `nas-ft`, `nas-ep`, and `nas-is` (IS, integer sort: the irregular kernel whose
//! ranking pages change thread every iteration).
//!
//! Every kernel takes `class` (S, W, A, B, C with the official NPB 3.x sizes, default A),
//! `iterations` (auto: the class's official count) and `think_ns` (auto: from the benchmark's
//! official flop count, see [`common`]). Arrays are regions named as in the NPB sources and
//! sized from the class; grids are stored x fastest (Fortran order). Work is split among
//! `ctx.threads` threads with OpenMP's static schedule, as the NPB loops are.
//!
//! **Initialisation** (iteration 0), as NAS's untimed cold-start iteration (seed 000 §2.1):
//! with `init = parallel` each thread first touches (writes) the part of every array it owns in
//! the main partition — k-slabs for the grid codes, row blocks for CG, its own buffer for EP, its key block for IS;
//! with `sequential` thread 0 writes everything (the seeds' "distribution off"); with `none`
//! the timed iterations first-touch the pages.
//!
//! How loads and stores become transactions, and how `think_ns` is derived, is in [`common`];
//! each kernel's module doc lists its arrays, phases, partitions and exceptions.

pub(crate) mod common;

mod bt;
mod cg;
mod ep;
mod ft;
mod is;
mod lu;
mod mg;
mod sp;

use crate::workload::WorkloadInfo;

/// Every NAS kernel.
pub const INFOS: &[WorkloadInfo] = &[bt::INFO, sp::INFO, lu::INFO, mg::INFO, cg::INFO, ft::INFO, ep::INFO, is::INFO];
