//! What the first-touch path and a policy's view need of the run's memory: the page table,
//! the placement, the regions, and the run's progress as a policy may weigh it.

use numaplace_model::counters::PageCounters;
use numaplace_model::dynamic::{Sample, View};
use numaplace_model::pagetable::UNTOUCHED;
use numaplace_model::placement::{PlaceRequest, Placement};
use numaplace_model::{Machine, NodeId, PageNo, PageTable, Ps, Region};

/// Page table, placement and regions: everything the first-touch path needs.
pub(super) struct Memory<'m> {
    pub(super) machine: &'m Machine,
    pub(super) pt: PageTable,
    pub(super) placement: Box<dyn Placement>,
    pub(super) regions: Vec<Region>,
    /// When the timed iterations started (a policy's view of the run's length so far).
    pub(super) started: Ps,
    /// Each memory controller's queueing delay as last solved, ps, kept while a dynamic policy
    /// is attached (what its cost model may weigh; `solve`).
    pub(super) queue: Vec<f64>,
    /// Lines fetched in the timed iterations so far (a policy's view; folded in at each
    /// quantum's end).
    pub(super) done: u64,
    /// Lines each node served so far, initialisation included (a policy's view; folded in at
    /// each quantum's end).
    pub(super) served: Vec<u64>,
    /// The timed iterations the workload declares, and how many have ended.
    pub(super) declared: Option<u32>,
    pub(super) completed: u32,
    /// When the latest timed iteration ended (the timed run's start before the first), and
    /// how long it lasted.
    pub(super) last_end: Ps,
    pub(super) last_len: Ps,
}

impl Memory<'_> {
    /// The run's remaining time as the workload's declared iterations imply at `now`: the
    /// iterations left times the lesser of the mean iteration so far and the latest one
    /// (`None` before the first has ended, or when the workload declares none). The lesser,
    /// so that the estimate is never the optimistic one: a program whose iterations shrink
    /// (Gaussian elimination's rows) has less left than its mean implies; one whose
    /// iterations grow is taken at its mean.
    pub(super) fn remaining(&self, now: Ps) -> Option<Ps> {
        let total = self.declared?;
        if self.completed == 0 {
            return None;
        }
        let per = (now.saturating_sub(self.started) / self.completed as Ps).min(self.last_len);
        Some(per.saturating_mul(total.saturating_sub(self.completed) as Ps))
    }

    /// Timed iteration `iteration` ended at `now`.
    pub(super) fn end_iteration(&mut self, iteration: u32, now: Ps) {
        self.completed = iteration;
        self.last_len = now.saturating_sub(self.last_end.max(self.started));
        self.last_end = now;
    }
}

impl Memory<'_> {
    /// Where the placement policy wants `page` when `toucher` touches it first.
    fn wanted(&self, page: u32, toucher: NodeId) -> NodeId {
        let idx = self.regions.partition_point(|r| r.first_page <= page) - 1;
        self.placement.place(&PlaceRequest { page: PageNo(page), region: &self.regions[idx], toucher })
    }

    #[cold]
    #[inline(never)]
    /// Places `page`, first touched by `toucher`: where the placement wants it, or, that node
    /// being full, on the nearest with room. Returns the node wanted and the node it got.
    pub(super) fn first_touch(&mut self, page: u32, toucher: NodeId) -> (NodeId, NodeId) {
        let want = self.wanted(page, toucher);
        (want, self.pt.place(PageNo(page), want, self.machine))
    }

    /// The node that will serve `page` if `toucher` accesses it now: its home, or for an
    /// untouched page the placement's choice (capacity fallback ignored: a prediction).
    pub(super) fn predict(&self, page: u32, toucher: NodeId) -> usize {
        match self.pt.homes()[page as usize] {
            UNTOUCHED => self.wanted(page, toucher).index(),
            h => h as usize,
        }
    }
}

/// What a policy observes of the accesses, as the attached policy keeps it (`observed!`).
pub(super) struct Observed<'a> {
    pub(super) counters: &'a PageCounters,
    pub(super) replica_writes: &'a [u32],
    pub(super) referenced: &'a [u8],
    pub(super) samples: &'a [Sample],
    pub(super) written: &'a [Ps],
}

/// What a policy sees: what it observed and the memory state at `now`.
pub(super) fn view<'a>(o: Observed<'a>, mem: &'a Memory<'_>, free: &'a [u64], now: Ps, overhead: Ps) -> View<'a> {
    View {
        machine: mem.machine,
        counters: o.counters,
        replicas: mem.pt.replica_masks(),
        replica_writes: o.replica_writes,
        homes: mem.pt.homes(),
        free,
        regions: &mem.regions,
        now,
        started: mem.started,
        queue: &mem.queue,
        done: mem.done,
        bursts: true,
        served: &mem.served,
        overhead,
        remaining: mem.remaining(now),
        referenced: o.referenced,
        samples: o.samples,
        written: o.written,
    }
}
