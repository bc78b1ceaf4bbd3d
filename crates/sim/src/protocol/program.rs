//! The line-level program interface: what the protocol engine runs (seed 004).
//!
//! A [`LineProgram`] is a shared address space of named regions and, per thread, a lazily
//! generated stream of [`LineOp`]s in program order. Unlike the page-level [`crate::workload`]
//! (transactions already counted per page and epoch), a line-level program states each access
//! to a cache line, each local computation, each barrier and each lock, so that the engine can
//! interleave threads event by event and run the coherence protocol on every miss.
//!
//! Access granularity: `Read(a)`/`Write(a)` is one access to the cache line holding byte
//! address `a`. A thread touching several consecutive words of one line with no other access
//! between them states it once; the instructions that do so are in a neighbouring `Compute`.
//!
//! # Contract
//! * `regions` are disjoint, sorted by `base`, each `base` a multiple of the page size the
//!   program was built for; every address a thread accesses lies inside one of them.
//! * `fill(t, out)` appends thread `t`'s next operations (at most [`CHUNK`]) and returns
//!   `true`, or appends nothing and returns `false` once thread `t` has finished. Streams are
//!   independent of timing: the same program and seed give the same streams.
//! * Every thread states the same number of `Barrier`s, in the same order with respect to
//!   `EndInit`: each thread states `EndInit` exactly once, directly after the barrier that ends
//!   initialisation (a program with no initialisation states it first).
//! * Each `Lock(a)` is followed, in the same thread, by exactly one `Unlock(a)` before the next
//!   `Lock` or `Barrier`; lock words lie in a region like any data.
//! * Generation is lazy: a program never holds more than a chunk of operations per thread.

/// A byte address in the program's shared address space.
pub type Addr = u64;

/// The most operations one `fill` call appends.
pub const CHUNK: usize = 4096;

/// One operation of one thread, in program order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineOp {
    /// A load from the line holding this address.
    Read(Addr),
    /// A store to the line holding this address.
    Write(Addr),
    /// Local work: this many CPU cycles (CPI 1.0) with no shared-memory access.
    Compute(u32),
    /// A global barrier among all the program's threads.
    Barrier,
    /// Acquire the lock whose word is at this address (test-and-set on the line).
    Lock(Addr),
    /// Release the lock whose word is at this address.
    Unlock(Addr),
    /// Initialisation is over: from here, "first touch after initialisation" homes a page on
    /// the node of the first thread that accesses it, and the timed run starts.
    EndInit,
}

/// A named region of the address space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineRegion {
    pub name: String,
    /// First byte; a multiple of the page size.
    pub base: Addr,
    pub bytes: u64,
    /// Marked for basic proxying by the program (seed 004 Table 1.3).
    pub proxy: bool,
}

/// What a line-level program is built for.
#[derive(Clone, Copy, Debug)]
pub struct LineCtx {
    pub threads: usize,
    pub page_size: u64,
    pub line_size: u64,
    pub seed: u64,
}

/// A line-level program. See the module's *Contract*.
pub trait LineProgram: Send {
    fn name(&self) -> &str;
    fn threads(&self) -> usize;
    fn regions(&self) -> &[LineRegion];
    fn fill(&mut self, thread: usize, out: &mut Vec<LineOp>) -> bool;

    /// An error that ended a thread's operations early (a malformed line-level trace); `None`
    /// for generated programs, which cannot fail once built. A driver asks once every thread
    /// has finished, and reports it instead of a result.
    fn take_error(&mut self) -> Option<crate::error::SimError> {
        None
    }
}
