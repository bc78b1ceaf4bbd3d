//! `libnumaplace`: numaplace's Linux runtime.
//!
//! A program links it (C, C++, Fortran; `include/numaplace.h`) or `numaplace run` preloads it
//! into an unmodified binary. It applies the model crate's placements and dynamic policies to
//! the process's real pages:
//!
//! * [`sys`]: the system-call layer (`move_pages`, `mbind`, topology) behind a trait, with a
//!   fake kernel for unit tests;
//! * [`space`]: the managed regions, sample counters and revoked-page bits, readable from a
//!   signal handler;
//! * [`sampler`]: the hinting-fault handler and the sample-source choice;
//! * [`cost`]: what hinting faults cost the program's threads, measured in the process;
//! * [`perf`]: precise memory sampling (PEBS) through `perf_event_open`;
//! * [`faultq`]: the hinting faults a policy takes one by one, queued by the handler;
//! * [`lowmem`]: each node's free memory against its watermarks (the low-memory trigger);
//! * [`mover`]: batched `move_pages` with per-page status handling;
//! * [`error`]: the runtime's errors and the C API's result codes;
//! * [`guard`]: the panic guard every `extern "C" fn` runs through;
//! * [`config`]: settings from the option string and `NUMAPLACE_*` variables;
//! * [`runtime`]: the process's [`runtime::Runtime`], composed of typed parts, each in its
//!   own module: [`host`] (kernel, machine, configuration), [`regions`] (the managed regions),
//!   [`sampling`] (the sample source, the pace, sampling's own cost), [`driver`] (the policy
//!   driver), [`recrep`] (record-replay phases), [`stats`] (the run's statistics and the stats
//!   file); [`parts`] borrows the data parts together for an operation that needs several,
//!   [`snapshot`] is what a decision reads, [`place`] applies placements to address ranges;
//! * [`capi`]: the C ABI, including UPMlib's names;
//! * [`preload`]: interposed allocation, buffer system calls and signal functions;
//! * [`real`]: the C library's own definitions of what `preload` interposes, resolved at load.

pub mod capi;
pub mod config;
pub mod cost;
pub mod driver;
pub mod error;
pub mod faultq;
pub mod guard;
pub mod host;
pub mod lowmem;
pub mod mover;
pub mod parts;
pub mod perf;
pub mod place;
pub mod preload;
pub mod real;
pub mod recrep;
pub mod regions;
pub mod runtime;
pub mod sampler;
pub mod sampling;
#[cfg(test)]
mod scenarios;
#[cfg(test)]
mod tiering_tests;
pub mod snapshot;
pub mod space;
pub mod stats;
pub mod sys;

#[global_allocator]
static GLOBAL: preload::LibcAlloc = preload::LibcAlloc;
