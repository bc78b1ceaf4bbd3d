//! The CPUs' state: per node its buffer of operations (a chunk the program fills), its
//! position and clock. A leaf of the engine's parts; the execution (the hit loop and the
//! general path) is in `exec`.

use super::program::LineOp;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CpuState {
    Run,
    Wait,
    Done,
}

/// Why the hit loop stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Turn {
    /// The chunk of operations is used up.
    Refill,
    /// The CPU's clock passed the run-ahead window: it waits for the next event.
    Yield,
    /// The next operation needs the general path.
    Slow,
}

pub(super) struct Cpu {
    pub ops: Vec<LineOp>,
    pub pos: usize,
    pub t: u64,
    pub state: CpuState,
    pub finish: u64,
}
