//! The simulator's hot path: one loop over a thread's records, specialised per observer.
//!
//! [`run_records`] consumes a thread's records while its clock is before the quantum's end,
//! charging each record its per-line cost and counting its lines per serving node. What a
//! dynamic policy needs to see of each access is an [`Observe`] implementation, inlined into
//! the loop at compile time: no observer for runs without a policy ([`hot_loop`]), counters
//! with threshold interrupts, samples, revoked pages, replicas. Each entry point is a separate,
//! non-inlined function taking only slices, so that its state lives in registers: inlined into
//! the epoch loop, the loop's state spilled to the stack and it ran at half speed.

use crate::workload::{Op, Txn};
use numaplace_model::counters::PageCounters;
use numaplace_model::pagetable::UNTOUCHED;
use numaplace_model::Ps;

/// Why a hot loop stopped before its quantum or records ran out.
pub enum Stop {
    /// Quantum or records used up.
    Done,
    /// At a record (not consumed) whose page is untouched.
    Untouched,
    /// After a record (consumed) that raised a counter interrupt or a hinting fault.
    Interrupt(u32),
}

/// What a dynamic policy observes of each access. Every method is inlined into the loop.
trait Observe {
    /// Before record `j` is read (e.g. to prefetch a later record's state).
    #[inline(always)]
    fn before(&mut self, _txns: &[Txn], _j: usize) {}

    /// The node that serves the record (a replica's node, or the home `h`).
    #[inline(always)]
    fn serve(&mut self, _tx: Txn, h: usize, _node: usize) -> usize {
        h
    }

    /// After the record is charged and consumed: extra time for the thread, and whether to
    /// stop (an interrupt or fault to handle).
    #[inline(always)]
    fn after(&mut self, _tx: Txn, _h: usize, _node: usize, _row: &[Ps]) -> (Ps, bool) {
        (0, false)
    }
}

/// The loop shared by every entry point. Returns why it stopped; `*i`, `*clock` and
/// `*writes` are advanced past the records consumed.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn run_records<O: Observe>(
    txns: &[Txn],
    i: &mut usize,
    homes: &[u8],
    row: &[Ps],
    lines: &mut [u64],
    clock: &mut Ps,
    qend: Ps,
    writes: &mut u64,
    node: usize,
    obs: &mut O,
) -> Stop {
    let (mut j, mut now, mut w) = (*i, *clock, *writes);
    let nodes = row.len().min(lines.len());
    let mut stop = Stop::Done;
    while j < txns.len() && now < qend {
        obs.before(txns, j);
        let tx = txns[j];
        let h = homes[tx.page as usize] as usize;
        if h == UNTOUCHED as usize {
            stop = Stop::Untouched;
            break;
        }
        let serve = obs.serve(tx, h, node);
        debug_assert!(serve < nodes, "serving node {serve} out of range");
        let c = tx.count as u64;
        // SAFETY: `serve` is a node of the machine: either the home byte, which the page table
        // only ever sets to a node number (`PageTable::place`, `migrate`), or the thread's own
        // node (a replica); `row` and `lines` have one entry per node.
        unsafe {
            now += *row.get_unchecked(serve) * c;
            *lines.get_unchecked_mut(serve) += c;
        }
        // Writes: `c` when the op is Write (1), else 0, without a multiply or a branch.
        w += c & (tx.op as u64).wrapping_neg();
        j += 1;
        let (extra, halt) = obs.after(tx, h, node, row);
        now += extra;
        if halt {
            stop = Stop::Interrupt(tx.page);
            break;
        }
    }
    (*i, *clock, *writes) = (j, now, w);
    stop
}

/// No policy: nothing observed.
struct Plain;
impl Observe for Plain {}

/// The hot loop without a dynamic policy.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub fn hot_loop(txns: &[Txn], i: &mut usize, homes: &[u8], row: &[Ps], lines: &mut [u64], clock: &mut Ps, qend: Ps, writes: &mut u64) -> Stop {
    run_records(txns, i, homes, row, lines, clock, qend, writes, 0, &mut Plain)
}

/// How many records ahead the counting loop prefetches counters.
const PREFETCH_AHEAD: usize = 16;

/// Per-page counters; an interrupt when the thread's node's count exceeds the home node's by
/// more than the threshold.
struct Counting<'a> {
    counters: &'a mut PageCounters,
    threshold: Option<u16>,
}

impl Observe for Counting<'_> {
    #[inline(always)]
    fn before(&mut self, txns: &[Txn], j: usize) {
        // The counters (16 bytes a page on 8 nodes) are the loop's one large random-access
        // array: fetch the row of a record a few iterations ahead.
        if let Some(ahead) = txns.get(j + PREFETCH_AHEAD) {
            self.counters.prefetch(ahead.page);
        }
    }

    #[inline(always)]
    fn after(&mut self, tx: Txn, h: usize, node: usize, _row: &[Ps]) -> (Ps, bool) {
        let lead = self.counters.add_and_lead(tx.page, node, h, tx.count as u64);
        // `lead` is 0 when node == h; without a threshold nothing interrupts.
        (0, lead > self.threshold.unwrap_or(u16::MAX))
    }
}

/// The hot loop with access counters on (counter-based policies).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub fn hot_loop_counted(
    txns: &[Txn],
    i: &mut usize,
    homes: &[u8],
    row: &[Ps],
    lines: &mut [u64],
    clock: &mut Ps,
    qend: Ps,
    writes: &mut u64,
    counters: &mut PageCounters,
    node: usize,
    threshold: Option<u16>,
) -> Stop {
    run_records(txns, i, homes, row, lines, clock, qend, writes, node, &mut Counting { counters, threshold })
}

/// One thread's sampler: lines until its next sample, its current interval, and what it has
/// issued and had sampled (for the sampling distance, seed 003 §4.1).
#[derive(Clone, Debug, Default)]
pub struct ThreadSampler {
    pub countdown: u64,
    pub interval: u64,
    pub lines: u64,
    pub samples: u64,
}

/// Every `interval`-th line of the thread is a sample of its page from the thread's node.
struct Sampling<'a> {
    samples: &'a mut PageCounters,
    s: &'a mut ThreadSampler,
}

impl Observe for Sampling<'_> {
    #[inline(always)]
    fn after(&mut self, tx: Txn, _h: usize, node: usize, _row: &[Ps]) -> (Ps, bool) {
        let (c, s) = (tx.count as u64, &mut *self.s);
        s.lines += c;
        if c >= s.countdown {
            let k = 1 + (c - s.countdown) / s.interval;
            self.samples.add(tx.page, node, k);
            s.samples += k;
            s.countdown = s.interval - (c - s.countdown) % s.interval;
        } else {
            s.countdown -= c;
        }
        (0, false)
    }
}

/// The hot loop of sampled policies.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub fn hot_loop_sampled(
    txns: &[Txn],
    i: &mut usize,
    homes: &[u8],
    row: &[Ps],
    lines: &mut [u64],
    clock: &mut Ps,
    qend: Ps,
    writes: &mut u64,
    samples: &mut PageCounters,
    node: usize,
    s: &mut ThreadSampler,
) -> Stop {
    run_records(txns, i, homes, row, lines, clock, qend, writes, node, &mut Sampling { samples, s })
}

/// An access to a page whose access was revoked stops the loop with a fault.
struct Faulting<'a> {
    revoked: &'a [bool],
}

impl Observe for Faulting<'_> {
    #[inline(always)]
    fn after(&mut self, tx: Txn, _h: usize, _node: usize, _row: &[Ps]) -> (Ps, bool) {
        (0, self.revoked[tx.page as usize])
    }
}

/// The hot loop of fault-driven policies (the handler clears the page's flag).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub fn hot_loop_faulting(
    txns: &[Txn],
    i: &mut usize,
    homes: &[u8],
    row: &[Ps],
    lines: &mut [u64],
    clock: &mut Ps,
    qend: Ps,
    writes: &mut u64,
    revoked: &[bool],
) -> Stop {
    run_records(txns, i, homes, row, lines, clock, qend, writes, 0, &mut Faulting { revoked })
}

/// Counts accesses; a read is served by the thread's node when it holds a replica; a write to
/// a replicated page costs one invalidation per replica (a round trip to the home each) and
/// counts towards collapsing the page.
struct Replicating<'a> {
    replicas: &'a [u64],
    counters: &'a mut PageCounters,
    replica_writes: &'a mut [u32],
}

impl Observe for Replicating<'_> {
    #[inline(always)]
    fn serve(&mut self, tx: Txn, h: usize, node: usize) -> usize {
        let mask = self.replicas.get(tx.page as usize).copied().unwrap_or(0);
        if tx.op == Op::Read && node < 64 && mask & (1 << node) != 0 {
            node
        } else {
            h
        }
    }

    #[inline(always)]
    fn after(&mut self, tx: Txn, h: usize, node: usize, row: &[Ps]) -> (Ps, bool) {
        let c = tx.count as u64;
        self.counters.add(tx.page, node, c);
        let mask = self.replicas.get(tx.page as usize).copied().unwrap_or(0);
        if tx.op == Op::Write && mask != 0 {
            let slot = &mut self.replica_writes[tx.page as usize];
            *slot = slot.saturating_add(c as u32);
            return (row[h] * mask.count_ones() as u64 * c, false);
        }
        (0, false)
    }
}

/// The hot loop of replicating policies.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub fn hot_loop_replicated(
    txns: &[Txn],
    i: &mut usize,
    homes: &[u8],
    replicas: &[u64],
    row: &[Ps],
    lines: &mut [u64],
    clock: &mut Ps,
    qend: Ps,
    writes: &mut u64,
    counters: &mut PageCounters,
    replica_writes: &mut [u32],
    node: usize,
) -> Stop {
    let mut obs = Replicating { replicas, counters, replica_writes };
    run_records(txns, i, homes, row, lines, clock, qend, writes, node, &mut obs)
}
