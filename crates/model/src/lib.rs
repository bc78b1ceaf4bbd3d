//! The pure model of a NUMA machine shared by the simulator and (later) the Linux runtime.
//!
//! Everything here is deterministic and side-effect free: no I/O, no clock, no syscalls. The
//! simulator drives these types with simulated time; the runtime will drive the same policy code
//! with real time and real pages.
//!
//! * [`units`]: newtypes for node, CPU and page numbers and for time.
//! * [`topology`]: a machine description (parsed from TOML text) and its derived tables.
//! * [`spec`]: the `NAME:key=value,...` syntax and declared, typed parameters.
//! * [`registry`]: the one registry type every plug-in point declares its entries in.
//! * [`placement`]: the `Placement` plug-in point and its registry.
//! * [`pagetable`]: page → home node, with capacity accounting and nearest-node fallback.
//! * [`rng`]: a small, version-stable random number generator.
//! * [`stats`]: the schema of the runtime's stats file, as serde structs and as data.
//! * [`rtconfig`]: the runtime library's settings (option keys, variables, defaults), as data.
//! * [`sched`]: the `Scheduler` plug-in point of multiprogrammed systems and its registry.

pub mod counters;
pub mod dynamic;
pub mod error;
pub mod jobs;
pub mod pagetable;
pub mod placement;
pub mod registry;
pub mod report;
pub mod rng;
pub mod rtconfig;
pub mod sched;
pub mod spec;
pub mod stats;
pub mod topology;
pub mod units;
pub mod watermarks;

pub use error::ModelError;
pub use pagetable::PageTable;
pub use placement::{Placement, PlaceRequest, Region};
pub use spec::{ParamDecl, ParamKind, Resolved, Spec};
pub use topology::Machine;
pub use units::{CpuId, NodeId, PageNo, Ps, MAX_TIME_PS};
