//! The line-level, event-driven protocol engine (seed 004): caches, node controllers, a
//! distributed directory, finite input buffers and proxies.
//!
//! * [`program`]: what the engine runs (the `LineProgram` interface); [`programs`]: seed 004's
//!   programs.
//! * [`params`]: the machine's `[protocol]` table and a run's options.
//! * [`engine`]: the engine ([`engine::run`]); [`result`]: what a run reports; `queue`: its
//!   event queue (a timing wheel).
//!
//! The message flows, state machines and invariants are documented in `docs/protocol.md`.

pub mod engine;
pub mod lines;
pub mod list;
pub mod params;
pub mod program;
pub mod programs;
mod queue;
pub mod result;
pub mod script;

pub use engine::{run, run_observed, run_on, ProtocolProgress, PROGRESS_EVENTS};
pub use params::{BufferMode, InterfaceModel, ProtocolOptions, ProtocolParams, ProxyMode};
pub use result::ProtocolResult;
