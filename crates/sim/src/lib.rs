//! The numaplace simulator: a fast, deterministic model of cc-NUMA machines running parallel
//! workloads under page placement policies.
//!
//! * [`presets`]: shipped machines and resolution of a machine argument.
//! * [`detect`]: a machine file from this host's `/sys/devices/system/node`.
//! * [`workload`] and [`workloads`]: the `Workload` plug-in point and the built-in workloads.
//! * [`binding`]: threads to CPUs.
//! * [`timing`]: latency, memory-level parallelism and memory-controller queueing.
//! * [`engine`]: the quantum-interleaved epoch loop; [`hotloop`]: the hot path, one loop
//!   specialised per dynamic policy's observer.
//! * [`run`]: the run layer — the request (every option declared once), the kind of run chosen
//!   once (page, protocol, system), each kind behind one trait, the dispatcher;
//!   [`bench`]: the speed and footprint benchmarks.
//! * [`output`]: the one rule every written file follows (temporary and rename, links
//!   followed, devices written through, directories refused).
//! * [`protocol`]: the line-level protocol engine (seed 004) and its programs.
//! * [`system`]: multiprogrammed systems (seed 002): job streams, processor schedulers, jobs on
//!   per-job engines.
//! * [`trace`]: the trace format (writer, streaming reader, text form); [`inspect`]: a
//!   workload's shape without timing it.

pub mod bench;
pub mod bus;
pub mod binding;
pub mod detect;
pub mod engine;
pub mod error;
pub mod hotloop;
pub mod input;
pub mod inspect;
pub mod output;
pub mod presets;
pub mod protocol;
pub mod run;
pub mod system;
pub mod timing;
pub mod trace;
pub mod workload;
pub mod workloads;

pub use binding::Binding;
pub use error::SimError;
pub use run::{simulate, simulate_on, RunConfig, SimResult};
pub use workload::Init;
