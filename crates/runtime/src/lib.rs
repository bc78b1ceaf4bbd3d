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
//! * [`perf`]: precise memory sampling (PEBS) through `perf_event_open`;
//! * [`mover`]: batched `move_pages` with per-page status handling;
//! * [`runtime`]: the policy glue and statistics;
//! * [`capi`]: the C ABI, including UPMlib's names;
//! * [`preload`]: interposed allocation, buffer system calls and signal functions.

pub mod capi;
pub mod mover;
pub mod perf;
pub mod preload;
pub mod runtime;
pub mod sampler;
pub mod space;
pub mod sys;

#[global_allocator]
static GLOBAL: preload::LibcAlloc = preload::LibcAlloc;
