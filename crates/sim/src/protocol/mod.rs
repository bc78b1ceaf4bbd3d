//! The line-level, event-driven protocol engine (seed 004): caches, node controllers, a
//! distributed directory, finite input buffers and proxies.

pub mod program;
pub mod programs;
