//! The line-level, event-driven protocol engine (seed 004): caches, node controllers, a
//! distributed directory, finite input buffers and proxies.
//!
//! * [`program`]: what the engine runs (the `LineProgram` interface); [`programs`]: seed 004's
//!   programs.
//! * [`params`]: the machine's `[protocol]` table and a run's options.
//! * [`engine`]: the engine ([`engine::run`]); [`result`]: what a run reports; `queue`: its
//!   event queue (a timing wheel).
//! * The engine's state by component, each a typed part the engine owns and none importing
//!   the engine: `msg` (messages, their slab, event payloads), `caches` (FLC and SLC frames,
//!   the SLC bus), `dir` (directory entries and per-line tables, over [`lines`] and [`list`]),
//!   `ctrl` (node controllers, buffers, MSHRs), `net` (the LogP network), `proxies`, `cpu`,
//!   `stats`; `state` gathers them into the engine (`Eng`).
//! * Its handlers, `impl Eng` blocks by component: `exec` (the CPUs' hit loop and general
//!   path), `serve` (arrivals, queues, service, sends), `home` (the home side), `remote` (the
//!   cache side), `proxy`, `invariants`. Only [`engine`] builds and runs an `Eng`.
//!
//! The message flows, state machines and invariants are documented in `docs/protocol.md`.

mod caches;
mod cpu;
mod ctrl;
mod dir;
pub mod engine;
mod exec;
mod home;
mod invariants;
pub mod lines;
pub mod list;
mod msg;
mod net;
pub mod params;
pub mod program;
pub mod programs;
mod proxies;
mod proxy;
mod queue;
mod remote;
pub mod result;
pub mod script;
mod serve;
mod state;
mod stats;

pub use engine::{run, run_observed, run_on, ProtocolProgress, PROGRESS_EVENTS};
pub use params::{BufferMode, InterfaceModel, ProtocolOptions, ProtocolParams, ProxyMode};
pub use result::ProtocolResult;
