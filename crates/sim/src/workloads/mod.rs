//! The built-in workloads. Each module holds one workload: its parameter table, its registry
//! entry (`INFO`) and its generator. Kernels modelled on the seeds' benchmarks join them later.

pub mod random;
pub mod stream;
pub mod traverse;
