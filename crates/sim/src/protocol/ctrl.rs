//! The node controllers' state: per node its input queue (finite or not), its non-pipelined
//! service (busy until), the outstanding fetches (MSHRs), the write-back buffer, the replaced
//! shared lines still linked, and the interventions deferred behind a fill; and the service
//! context of one message. A leaf of the engine's parts.

use super::msg::Msg;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PKind {
    Read,
    Write,
    Upgrade,
}

/// An outstanding fetch at a node (an MSHR): the CPU's miss, or a proxy's fetch.
#[derive(Clone, Debug)]
pub(super) struct Pend {
    pub line: u32,
    pub kind: PKind,
    /// The CPU's operation is performed when the data arrives.
    pub cpu: bool,
    /// The CPU waits for this fill, then re-executes its operation.
    pub cpu_retry: bool,
    /// Proxy clients waiting, in arrival order (served last first).
    pub chain: Vec<u16>,
    /// First request sent, for the response time; `u64::MAX` when not a remote read.
    pub sent: u64,
}

/// One node's controller.
#[derive(Default)]
pub(super) struct Node {
    pub queue: VecDeque<Msg>,
    /// The controller is busy until then (non-pipelined).
    pub busy_until: u64,
    /// A `Done` event is scheduled (at `busy_until`) to serve the queue.
    pub done_pending: bool,
    pub busy_cycles: u64,
    /// Read requests bounce (hysteresis): set when the queue length rises above the limit,
    /// cleared when it falls below it.
    pub bouncing: bool,
    pub pend: Vec<Pend>,
    /// Written-back modified lines awaiting their WbAck: (line, value).
    pub wb: Vec<(u32, u64)>,
    /// Replaced shared lines whose sharing-list entry is still linked.
    pub leaving: Vec<u32>,
    /// Interventions (Inval, Fwd) that arrived for a line whose fill is in flight.
    pub deferred: Vec<Msg>,
}

impl Node {
    /// The outstanding fetch of `line`, if any.
    #[inline]
    pub(super) fn pend_pos(&self, line: u32) -> Option<usize> {
        self.pend.iter().position(|p| p.line == line)
    }

    /// The hysteresis state after the queue's length changed (seed §1.4: bouncing from when
    /// the length has risen above the limit until it has fallen below it); `limit` is `None`
    /// without hysteresis.
    #[inline]
    pub(super) fn note_len(&mut self, limit: Option<usize>) {
        if let Some(limit) = limit {
            let len = self.queue.len();
            if len > limit {
                self.bouncing = true;
            } else if len < limit {
                self.bouncing = false;
            }
        }
    }
}

/// Controller service context: the node, the start and the work so far.
pub(super) struct Cx {
    pub node: usize,
    pub s: u64,
    pub w: u64,
}

impl Cx {
    #[inline]
    pub(super) fn now(&self) -> u64 {
        self.s + self.w
    }
}
