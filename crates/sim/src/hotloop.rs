//! The simulator's hot path: one loop over a thread's records, specialised per observer.
//!
//! [`run_records`] consumes a thread's records while its clock is before the quantum's end,
//! charging each record its per-line cost and counting its lines per serving node. What a
//! dynamic policy needs to see of each access is an [`Observe`] implementation, inlined into
//! the loop at compile time: no observer for runs without a policy ([`hot_loop`]), counters
//! with threshold interrupts, samples, revoked pages, replicas. Each entry point is a separate,
//! non-inlined function taking only slices, so that its state lives in registers: inlined into
//! the epoch loop, the loop's state spilled to the stack and it ran at half speed.

use crate::bus::BusLog;
use crate::workload::{Op, Txn};
use numaplace_model::counters::PageCounters;
use numaplace_model::dynamic::Sample;
use numaplace_model::pagetable::{Placer, UNTOUCHED};
use numaplace_model::placement::{PlaceRequest, Placement};
use numaplace_model::{Machine, NodeId, PageNo, Ps, Region};

/// Why a hot loop stopped before its quantum or records ran out.
pub enum Stop {
    /// Quantum or records used up.
    Done,
    /// At a record (not consumed) whose page is untouched (from an entry point: one that could
    /// not be placed there, its node being full under a policy that acts on allocation
    /// failures, [`Toucher`]).
    Untouched,
    /// After a record (consumed) that raised a counter interrupt or a hinting fault.
    Interrupt(u32),
}

/// What a hot loop needs to place a page it touches first without leaving the loop: the page
/// table's homes and capacity accounting, the placement and the regions, and the touching
/// thread's node. A first touch is placed exactly as the engine's cold path places it
/// (`Memory::first_touch`: the placement's node, or the nearest with room); only a page that
/// cannot go where the placement wants it, when the policy acts on allocation failures, stops
/// the loop ([`Stop::Untouched`]) for the cold path, which places it and asks the policy.
pub struct Toucher<'a> {
    homes: &'a mut [u8],
    place: Place<'a>,
}

/// A [`Toucher`]'s all but the home bytes (borrowed apart from them in the loop).
struct Place<'a> {
    pt: Placer<'a>,
    placement: &'a dyn Placement,
    regions: &'a [Region],
    machine: &'a Machine,
    node: NodeId,
    stop_on_fallback: bool,
    /// The region of the last page placed (`regions.len()` before the first).
    region: usize,
    /// The last fallback: the node wanted and the node the page went to instead. While the
    /// loop runs only its own placements change the nodes' free pages, which only shrink: the
    /// nodes nearer than that one stay full, so it stays the answer while it has room.
    fallback: Option<(NodeId, NodeId)>,
}

impl<'a> Toucher<'a> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(homes: &'a mut [u8], pt: Placer<'a>, placement: &'a dyn Placement, regions: &'a [Region], machine: &'a Machine, node: NodeId, stop_on_fallback: bool) -> Self {
        Toucher { homes, place: Place { pt, placement, regions, machine, node, stop_on_fallback, region: regions.len(), fallback: None } }
    }
}

impl Place<'_> {
    /// Places untouched `page` as `Memory::first_touch` and `PageTable::place` do; its home,
    /// or `None` to stop the loop.
    #[cold]
    #[inline(never)]
    fn touch(&mut self, homes: &mut [u8], page: u32) -> Option<u8> {
        let r = match self.regions.get(self.region) {
            Some(r) if r.first_page <= page && page - r.first_page < r.pages => self.region,
            _ => {
                self.region = self.regions.partition_point(|r| r.first_page <= page) - 1;
                self.region
            }
        };
        let want = self.placement.place(&PlaceRequest { page: PageNo(page), region: &self.regions[r], toucher: self.node });
        if self.pt.has_room(want) {
            self.pt.put(homes, PageNo(page), want, false);
            return Some(want.0);
        }
        if self.stop_on_fallback {
            return None;
        }
        let got = match self.fallback {
            Some((w, g)) if w == want && self.pt.has_room(g) => g,
            _ => {
                let g = self.pt.fallback(want, self.machine);
                self.fallback = Some((want, g));
                g
            }
        };
        self.pt.put(homes, PageNo(page), got, true);
        Some(got.0)
    }
}

/// What a dynamic policy observes of each access. Every method is inlined into the loop.
trait Observe {
    /// Before record `j` is read (e.g. to prefetch a later record's state).
    #[inline(always)]
    fn before(&mut self, _txns: &[Txn], _j: usize) {}

    /// Which nodes serve the record's lines: `(a, b, k)` means `count − k` lines from node `a`
    /// and `k` from node `b` (default: every line from the home `h`; a replica's node serves
    /// its valid lines and the others come from elsewhere).
    #[inline(always)]
    fn serve(&mut self, _tx: Txn, h: usize, _node: usize) -> (usize, usize, u64) {
        (h, h, 0)
    }

    /// After the record is charged and consumed: extra time for the thread, and whether to
    /// stop (an interrupt or fault to handle).
    #[inline(always)]
    fn after(&mut self, _tx: Txn, _h: usize, _node: usize, _row: &[Ps], _now: Ps) -> (Ps, bool) {
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
        let (serve, other, k) = obs.serve(tx, h, node);
        debug_assert!(serve < nodes && other < nodes, "serving node {serve}/{other} out of range");
        let c = tx.count as u64;
        // SAFETY: `serve` and `other` are nodes of the machine: the home byte, which the page
        // table only ever sets to a node number (`PageTable::place`, `migrate`), or nodes
        // holding a replica (bits of the replica mask, set only for nodes of the machine);
        // `row` and `lines` have one entry per node. `k <= c` (observers split a record).
        unsafe {
            if k == 0 {
                now += *row.get_unchecked(serve) * c;
                *lines.get_unchecked_mut(serve) += c;
            } else {
                now += *row.get_unchecked(serve) * (c - k) + *row.get_unchecked(other) * k;
                *lines.get_unchecked_mut(serve) += c - k;
                *lines.get_unchecked_mut(other) += k;
            }
        }
        // Writes: `c` when the op is Write (1), else 0, without a multiply or a branch.
        w += c & (tx.op as u64).wrapping_neg();
        j += 1;
        let (extra, halt) = obs.after(tx, h, node, row, now);
        now += extra;
        if halt {
            stop = Stop::Interrupt(tx.page);
            break;
        }
    }
    (*i, *clock, *writes) = (j, now, w);
    stop
}

/// [`run_records`], placing the untouched pages it stops at ([`Toucher`]) and resuming at
/// the same record, as the engine's cold path would; it stops at one only when the page must
/// leave for the cold path. The inner loop keeps the home bytes read-only (the placing call
/// outside it), so that its state stays in registers.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn run_touching<O: Observe>(
    txns: &[Txn],
    i: &mut usize,
    touch: &mut Toucher<'_>,
    row: &[Ps],
    lines: &mut [u64],
    clock: &mut Ps,
    qend: Ps,
    writes: &mut u64,
    node: usize,
    obs: &mut O,
) -> Stop {
    loop {
        match run_records(txns, i, touch.homes, row, lines, clock, qend, writes, node, obs) {
            Stop::Untouched => {
                if touch.place.touch(touch.homes, txns[*i].page).is_none() {
                    return Stop::Untouched;
                }
            }
            stop => return stop,
        }
    }
}

/// No policy: nothing observed.
struct Plain;
impl Observe for Plain {}

/// The hot loop without a dynamic policy.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub fn hot_loop(txns: &[Txn], i: &mut usize, touch: &mut Toucher<'_>, row: &[Ps], lines: &mut [u64], clock: &mut Ps, qend: Ps, writes: &mut u64) -> Stop {
    run_touching(txns, i, touch, row, lines, clock, qend, writes, 0, &mut Plain)
}

/// How many records ahead the counting loop prefetches counters (~0.5 µs ahead at ~8 ns per
/// record). Measured with `numaplace bench`: 64 with the unchecked prefetch runs the kernel
/// loop ~11 % faster than 16 with a bounds-checked one.
const PREFETCH_AHEAD: usize = 64;

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
    fn after(&mut self, tx: Txn, h: usize, node: usize, _row: &[Ps], _now: Ps) -> (Ps, bool) {
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
    touch: &mut Toucher<'_>,
    row: &[Ps],
    lines: &mut [u64],
    clock: &mut Ps,
    qend: Ps,
    writes: &mut u64,
    counters: &mut PageCounters,
    node: usize,
    threshold: Option<u16>,
) -> Stop {
    run_touching(txns, i, touch, row, lines, clock, qend, writes, node, &mut Counting { counters, threshold })
}

/// One thread's sampler: lines until its next sample, its current interval, and what it has
/// issued and had sampled (for the sampling distance, seed 003 §4.1).
#[derive(Clone, Debug, Default)]
pub struct ThreadSampler {
    pub countdown: u64,
    pub interval: u64,
    pub lines: u64,
    pub samples: u64,
    /// Samples the profiler can still record for this thread in the current quantum
    /// (`u64::MAX` without a rate limit).
    pub budget: u64,
}

impl ThreadSampler {
    /// Counts a record of `c` lines: how many samples fall in it (every `interval`-th line),
    /// with the countdown moved past it.
    #[inline(always)]
    fn due(&mut self, c: u64) -> u64 {
        self.lines += c;
        if c < self.countdown {
            self.countdown -= c;
            return 0;
        }
        let k = 1 + (c - self.countdown) / self.interval;
        self.countdown = self.interval - (c - self.countdown) % self.interval;
        k
    }
}

/// Every `interval`-th line of the thread is a sample of its page from the thread's node.
struct Sampling<'a> {
    samples: &'a mut PageCounters,
    s: &'a mut ThreadSampler,
}

impl Observe for Sampling<'_> {
    #[inline(always)]
    fn after(&mut self, tx: Txn, _h: usize, node: usize, _row: &[Ps], _now: Ps) -> (Ps, bool) {
        let s = &mut *self.s;
        let k = s.due(tx.count as u64).min(s.budget);
        if k > 0 {
            self.samples.add(tx.page, node, k);
            s.samples += k;
            s.budget -= k;
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
    touch: &mut Toucher<'_>,
    row: &[Ps],
    lines: &mut [u64],
    clock: &mut Ps,
    qend: Ps,
    writes: &mut u64,
    samples: &mut PageCounters,
    node: usize,
    s: &mut ThreadSampler,
) -> Stop {
    run_touching(txns, i, touch, row, lines, clock, qend, writes, node, &mut Sampling { samples, s })
}

/// Seed 003's bus sampler ([`crate::bus`]): each record is logged with the times it
/// started and ended, for the bus stream merged at the quantum's end; the thread's lines are
/// counted here (for the sampling distance).
struct BusLogging<'a> {
    log: &'a mut BusLog,
    s: &'a mut ThreadSampler,
    last: Ps,
}

impl Observe for BusLogging<'_> {
    #[inline(always)]
    fn after(&mut self, tx: Txn, _h: usize, _node: usize, _row: &[Ps], now: Ps) -> (Ps, bool) {
        let c = tx.count as u64;
        self.s.lines += c;
        self.log.push(self.last, now, tx.page, c);
        self.last = now;
        (0, false)
    }
}

/// The hot loop of a sampled policy with the bus sampler: records logged for the bus stream.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub fn hot_loop_bus(
    txns: &[Txn],
    i: &mut usize,
    touch: &mut Toucher<'_>,
    row: &[Ps],
    lines: &mut [u64],
    clock: &mut Ps,
    qend: Ps,
    writes: &mut u64,
    log: &mut BusLog,
    s: &mut ThreadSampler,
) -> Stop {
    let last = *clock;
    run_touching(txns, i, touch, row, lines, clock, qend, writes, 0, &mut BusLogging { log, s, last })
}

/// Every `interval`-th line of the thread is a sample with its page, node and kind, appended
/// to the stream a PEBS-like policy reads ([`numaplace_model::dynamic::Observes::AddressSamples`]).
struct AddressSampling<'a> {
    samples: &'a mut Vec<Sample>,
    s: &'a mut ThreadSampler,
}

impl Observe for AddressSampling<'_> {
    #[inline(always)]
    fn after(&mut self, tx: Txn, _h: usize, node: usize, _row: &[Ps], _now: Ps) -> (Ps, bool) {
        let k = self.s.due(tx.count as u64);
        if k > 0 {
            let sample = Sample { page: PageNo(tx.page), node: NodeId(node as u8), write: tx.op == Op::Write };
            self.samples.extend(std::iter::repeat(sample).take(k as usize));
            self.s.samples += k;
        }
        (0, false)
    }
}

/// The hot loop of policies that read a stream of address samples.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub fn hot_loop_address_sampled(
    txns: &[Txn],
    i: &mut usize,
    touch: &mut Toucher<'_>,
    row: &[Ps],
    lines: &mut [u64],
    clock: &mut Ps,
    qend: Ps,
    writes: &mut u64,
    samples: &mut Vec<Sample>,
    node: usize,
    s: &mut ThreadSampler,
) -> Stop {
    run_touching(txns, i, touch, row, lines, clock, qend, writes, node, &mut AddressSampling { samples, s })
}

/// An access to a page whose access was revoked stops the loop with a fault; with `MARK`,
/// every access also sets the page's referenced byte (the page-table entry's accessed bit,
/// which a reclaiming policy reads); with `WRITES`, a store lowers the page's store time to
/// the thread's clock (the dirty bit with the time it was set, for a policy that
/// [tracks writes](numaplace_model::dynamic::DynamicPolicy::tracks_writes)).
struct Faulting<'a, const MARK: bool, const WRITES: bool> {
    revoked: &'a [bool],
    referenced: &'a mut [u8],
    written: &'a mut [Ps],
}

impl<const MARK: bool, const WRITES: bool> Observe for Faulting<'_, MARK, WRITES> {
    #[inline(always)]
    fn after(&mut self, tx: Txn, _h: usize, _node: usize, _row: &[Ps], now: Ps) -> (Ps, bool) {
        let p = tx.page as usize;
        debug_assert!(p < self.revoked.len() && (!MARK || p < self.referenced.len()) && (!WRITES || p < self.written.len()));
        // SAFETY: the loop read the page's home byte (bounds-checked) before this, and the
        // entry points check that `revoked` (and with MARK `referenced`, with WRITES
        // `written`) are at least as long as the home bytes.
        unsafe {
            if MARK {
                *self.referenced.get_unchecked_mut(p) = 1;
            }
            if WRITES && tx.op == Op::Write {
                let w = self.written.get_unchecked_mut(p);
                *w = (*w).min(now);
            }
            (0, *self.revoked.get_unchecked(p))
        }
    }
}

/// The hot loop of fault-driven policies that also read referenced bits: every access marks
/// its page, and one to a revoked page faults (the handler clears the page's flag). `revoked`
/// and `referenced` have one entry per page.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub fn hot_loop_faulting_marked(
    txns: &[Txn],
    i: &mut usize,
    touch: &mut Toucher<'_>,
    row: &[Ps],
    lines: &mut [u64],
    clock: &mut Ps,
    qend: Ps,
    writes: &mut u64,
    revoked: &[bool],
    referenced: &mut [u8],
) -> Stop {
    assert!(revoked.len() >= touch.homes.len() && referenced.len() >= touch.homes.len(), "a flag for every page");
    run_touching(txns, i, touch, row, lines, clock, qend, writes, 0, &mut Faulting::<true, false> { revoked, referenced, written: &mut [] })
}

/// [`hot_loop_faulting_marked`] that also keeps each page's earliest store since it was
/// cleared (`written`, one entry per page).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub fn hot_loop_faulting_written(
    txns: &[Txn],
    i: &mut usize,
    touch: &mut Toucher<'_>,
    row: &[Ps],
    lines: &mut [u64],
    clock: &mut Ps,
    qend: Ps,
    writes: &mut u64,
    revoked: &[bool],
    referenced: &mut [u8],
    written: &mut [Ps],
) -> Stop {
    let n = touch.homes.len();
    assert!(revoked.len() >= n && referenced.len() >= n && written.len() >= n, "a flag for every page");
    run_touching(txns, i, touch, row, lines, clock, qend, writes, 0, &mut Faulting::<true, true> { revoked, referenced, written })
}

/// The hot loop of fault-driven policies (the handler clears the page's flag).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub fn hot_loop_faulting(
    txns: &[Txn],
    i: &mut usize,
    touch: &mut Toucher<'_>,
    row: &[Ps],
    lines: &mut [u64],
    clock: &mut Ps,
    qend: Ps,
    writes: &mut u64,
    revoked: &[bool],
) -> Stop {
    assert!(revoked.len() >= touch.homes.len(), "a flag for every page");
    run_touching(txns, i, touch, row, lines, clock, qend, writes, 0, &mut Faulting::<false, false> { revoked, referenced: &mut [], written: &mut [] })
}

/// Replicas as seed 001 §2 describes Wildfire's: a "shadow" page on the replica's node
/// satisfies that node's misses to the page, while "cache coherency is still maintained at the
/// cache-line level on a system-wide basis". Page-granular bookkeeping of that line-level
/// coherence: every node holding a copy (the home and each replica) has a count of the page's
/// lines that are stale in its copy (`stale`, at most the lines of a page).
///
/// * A read by a copy holder: its stale lines (up to the record's count) are coherence misses,
///   served by the other copy with the most valid lines, and become valid; the rest are local.
/// * A write by a copy holder: lines stale in its copy, or still valid in another copy (they
///   must be invalidated there), cost a round trip to that other copy; the rest are lines the
///   node already holds alone, written locally. The written lines become stale in every other
///   copy.
/// * Any access by a node without a copy is served by the home, as without replicas; its
///   writes make the lines stale in every copy.
///
/// Counting is by line counts, not line identities: the written lines are taken to be the
/// ones still valid elsewhere, and a node rewriting lines it already holds alone needs no
/// invalidation (the steady state of an owner writing its own part of an array). Writes that
/// invalidate valid lines of a replica count towards collapsing the page (`replica_writes`).
struct Replicating<'a> {
    replicas: &'a [u64],
    counters: &'a mut PageCounters,
    replica_writes: &'a mut [u32],
    /// Stale lines per copy, `[page * nodes + node]`.
    stale: &'a mut [u16],
    nodes: usize,
    page_lines: u16,
}

impl Replicating<'_> {
    /// The copy holder other than `x` with the most valid lines (lowest number on ties), and
    /// how many valid lines it has.
    #[inline(always)]
    fn best_other(row: &[u16], copies: u64, x: usize, page_lines: u16) -> (usize, u16) {
        let mut best = (usize::MAX, 0u16);
        for (y, &s) in row.iter().enumerate() {
            if y != x && y < 64 && copies & (1 << y) != 0 {
                let valid = page_lines - s.min(page_lines);
                if best.0 == usize::MAX || valid > best.1 {
                    best = (y, valid);
                }
            }
        }
        best
    }
}

impl Observe for Replicating<'_> {
    #[inline(always)]
    fn serve(&mut self, tx: Txn, h: usize, node: usize) -> (usize, usize, u64) {
        let mask = self.replicas.get(tx.page as usize).copied().unwrap_or(0);
        if mask == 0 || node >= 64 || h >= 64 {
            return (h, h, 0);
        }
        let copies = mask | (1 << h);
        let (c, lines) = (tx.count as u64, self.page_lines);
        let start = tx.page as usize * self.nodes;
        let row = &mut self.stale[start..start + self.nodes];
        let has = copies & (1 << node) != 0;
        if tx.op == Op::Read {
            if !has {
                return (h, h, 0);
            }
            let k = c.min(row[node] as u64);
            if k == 0 {
                return (node, node, 0);
            }
            row[node] -= k as u16;
            let (from, _) = Self::best_other(row, copies, node, lines);
            return (node, from, k);
        }
        // A write. Lines the writer must fetch or invalidate elsewhere: its own stale lines
        // plus those still valid in the other copy that has the most (capped at the record).
        let (other, other_valid) = Self::best_other(row, copies, node, lines);
        let remote = if has { c.min(row[node] as u64 + other_valid as u64) } else { 0 };
        // Invalidations of replicas' valid lines (not the home memory's) count towards
        // collapsing; every other copy then has the written lines stale.
        let mut invalidated = 0u64;
        for (y, s) in row.iter_mut().enumerate() {
            if y != node && y < 64 && copies & (1 << y) != 0 {
                if y != h {
                    invalidated = invalidated.max(c.min((lines - (*s).min(lines)) as u64));
                }
                *s = (*s as u64 + c).min(lines as u64) as u16;
            }
        }
        if invalidated > 0 {
            let slot = &mut self.replica_writes[tx.page as usize];
            *slot = slot.saturating_add(invalidated.min(u32::MAX as u64) as u32);
        }
        if !has {
            return (h, h, 0);
        }
        row[node] = row[node].saturating_sub(c.min(u16::MAX as u64) as u16);
        (node, if other == usize::MAX { node } else { other }, remote)
    }

    #[inline(always)]
    fn after(&mut self, tx: Txn, _h: usize, node: usize, _row: &[Ps], _now: Ps) -> (Ps, bool) {
        self.counters.add(tx.page, node, tx.count as u64);
        (0, false)
    }
}

/// The hot loop of replicating policies: `stale` has one entry per page and node, and
/// `page_lines` is the number of lines in a page.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub fn hot_loop_replicated(
    txns: &[Txn],
    i: &mut usize,
    touch: &mut Toucher<'_>,
    replicas: &[u64],
    row: &[Ps],
    lines: &mut [u64],
    clock: &mut Ps,
    qend: Ps,
    writes: &mut u64,
    counters: &mut PageCounters,
    replica_writes: &mut [u32],
    stale: &mut [u16],
    page_lines: u16,
    node: usize,
) -> Stop {
    let nodes = row.len();
    let mut obs = Replicating { replicas, counters, replica_writes, stale, nodes, page_lines };
    run_touching(txns, i, touch, row, lines, clock, qend, writes, node, &mut obs)
}

/// The most records [`prefetch_resume`] looks ahead.
const RESUME_AHEAD: usize = 256;

/// Prefetches the per-page bytes (`arrays`: one byte a page each, e.g. the homes and a
/// policy's revoked and referenced flags) that a thread streaming through its pages will read
/// next, when its turn (records `start..i`) ends. A thread resumes only after every other
/// thread has had its turn: each turn is a short run of records, too short for the hardware
/// prefetcher to follow the threads' interleaved streams, so without this every turn of a
/// streaming thread starts with a cache miss in each array. Only the records already read are
/// looked at (the turn's first and last, and the next): when the turn's pages ascended within a
/// few times its records, the same span ahead of the next record is prefetched, and the next
/// turn's records themselves. A hint: it reads nothing into the program's state.
#[inline]
pub fn prefetch_resume(txns: &[Txn], start: usize, i: usize, arrays: &[*const u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        let done = i.saturating_sub(start);
        let (Some(first), Some(prev), Some(next)) = (txns.get(start), i.checked_sub(1).and_then(|p| txns.get(p)), txns.get(i)) else { return };
        let span = prev.page.wrapping_sub(first.page) as usize;
        if prev.page < first.page || span > 4 * done.min(RESUME_AHEAD) {
            return;
        }
        let prefetch = |p: *const u8| {
            // SAFETY: prefetching never faults, even outside the allocation (the address is
            // computed with wrapping arithmetic and never dereferenced).
            unsafe { core::arch::x86_64::_mm_prefetch(p as *const i8, core::arch::x86_64::_MM_HINT_T0) };
        };
        let mut p = next.page as usize & !63;
        while p <= next.page as usize + span {
            for &a in arrays {
                prefetch(a.wrapping_add(p));
            }
            p += 64;
        }
        // The next turn's records.
        let bytes = done.min(RESUME_AHEAD) * std::mem::size_of::<Txn>();
        let base = txns[i..].as_ptr() as *const u8;
        let mut off = 0;
        while off < bytes {
            prefetch(base.wrapping_add(off));
            off += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (txns, start, i, arrays);
}
