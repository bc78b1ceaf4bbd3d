//! The built-in workloads and their registry ([`REGISTRY`], [`build`]). Each module holds
//! workloads with their parameter tables, registry entries (`INFO` / `INFOS`) and generators:
//!
//! * `stream`, `random`, `traverse`: microbenchmarks.
//! * [`nas`]: kernels modelled on the NAS Parallel Benchmarks (BT, SP, LU, MG, CG, FT, EP, IS).
//! * [`splash`]: SHALLOW, SPLASH-2 Ocean and Gaussian elimination.
//! * [`spec95`]: seed 002's SPEC CFP95 programs swim, hydro2d and apsi, with a per-CPU cache.
//! * [`tiering`]: the memory-tiering papers' GUPS with a hot set, a YCSB key-value store, GAPBS
//!   PageRank and betweenness centrality on a Kronecker graph, and pmbench.

pub mod nas;
pub mod random;
pub mod spec95;
pub mod splash;
pub mod stream;
pub mod tiering;
pub mod traverse;

use crate::workload::{Build, Workload, WorkloadCtx, WorkloadInfo};
use numaplace_model::registry::Registry;
use numaplace_model::spec::{describe, Resolved, Spec};
use numaplace_model::ModelError;

/// The microbenchmarks.
pub const BASIC: &[WorkloadInfo] = &[stream::INFO, random::INFO, traverse::INFO];

/// Every workload, keyed by the name users type, in listing order: the generated ones, then
/// the trace of a recorded program (`trace:file=PATH`).
pub const REGISTRY: Registry<Build> =
    Registry { kind: "workload", groups: &[BASIC, nas::INFOS, splash::INFOS, spec95::INFOS, tiering::INFOS, &[crate::trace::INFO]] };

/// Builds the workload named by `spec`, returning it with its resolved spec.
///
/// # Errors
/// An unknown name (listing the known ones) or a bad parameter.
pub fn build(spec: &Spec, ctx: &WorkloadCtx) -> Result<(Box<dyn Workload>, Resolved), ModelError> {
    let (info, resolved) = REGISTRY.resolve(spec)?;
    let w = (info.build)(&resolved, ctx)?;
    let resolved = w.resolved().cloned().unwrap_or(resolved);
    Ok((w, resolved))
}

/// Help text for one workload: its doc line and parameters.
pub fn help(info: &WorkloadInfo) -> String {
    format!("{}: {}\n{}", info.name, info.doc, describe(info.params))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Init;

    #[test]
    fn unknown_workload_lists_known() {
        let ctx = WorkloadCtx { threads: 1, page_size: 4096, line_size: 64, seed: 0, init: Init::Parallel };
        let e = build(&Spec::parse("nas-xx").unwrap(), &ctx).err().unwrap().to_string();
        assert!(e.starts_with("unknown workload 'nas-xx' (known: "), "{e}");
        for name in REGISTRY.names() {
            assert!(e.contains(name), "{name} missing from: {e}");
        }
    }
}
