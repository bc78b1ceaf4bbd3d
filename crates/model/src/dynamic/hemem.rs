//! `hemem`: HeMem (Raybuck et al., "HeMem: Scalable Tiered Memory Management for Big Data
//! Applications and Real NVM", SOSP'21), as its public code does it (repo cuhk-mass/hemem,
//! `src/pebs.h` and `src/pebs.c` at commit 57fb561).
//!
//! * **Sensing**: PEBS samples of DRAM-read, NVM-read and store events at a fixed period
//!   (`SAMPLE_PERIOD` 19,997; an earlier version had 10,007), each with its data address, read
//!   by a scanning thread on a core of its own. Here every 19,997-th line a thread fetches is a
//!   sample ([`super::Observes::AddressSamples`]); reads of either tier count together, as
//!   `pebs.c` adds `DRAMREAD` and `NVMREAD` for the hot test.
//! * **Hot and cold**: per 2 MiB page, counts of reads and of writes; a page is hot when its
//!   writes reach `HOT_WRITE_THRESHOLD` (4) or its reads `HOT_READ_THRESHOLD` (4), cold
//!   otherwise, and moves between a hot and a cold FIFO list of its tier. Cooling: the sampled
//!   count is halved once per tick of a global clock since the page's last sample, and a count
//!   above `PEBS_COOLING_THRESHOLD` (10) advances the clock (so every other page's counts are
//!   halved lazily, when next sampled); hot lists are then re-checked, `COOLING_PAGES` (8192)
//!   entries per pass, and pages that cooled go to the cold lists.
//! * **Migration**: a policy thread on a core of its own moves hot slow pages to the fast tier,
//!   oldest first, up to `PEBS_KSWAPD_MIGRATE_RATE` (10 GB) per pass: into a free fast page if
//!   there is one, else after demoting the oldest cold fast page; when every fast page is hot
//!   it stops. Pages start where they were first touched (HeMem allocates DRAM first, then NVM
//!   when DRAM is full, `pebs_allocate_page`), on their tier's cold list.
//!
//! Modelling choices, written down: the policy thread's passes run every
//! `PEBS_KSWAPD_INTERVAL` (10 ms; the loop in `pebs_policy_thread` does not sleep between
//! passes, so this is the period at which the simulator hands it the samples); its copies (DMA
//! offload in the paper) load the memory controllers but stall no application thread, and the
//! write-protection during a copy is not charged; the fast tier is the top-tier node with the
//! most memory (HeMem manages one DRAM and one NVM device), the slow one its demotion target.
//! HeMem maps a 2 MiB page whole on one tier; here a unit's base pages are first touched one by
//! one, so a unit placed or moved before all its pages were touched is kept on a list, and each
//! pass moves its pages placed since to the unit's tier (`joined_pages`), charged as migrations.

use super::tiering;
use super::{Action, Applied, DynamicCaps, DynamicInfo, DynamicPolicy, Evidence, Observes, Sampling, Timer, Trigger, View, BOTH};
use crate::error::ModelError;
use crate::pagetable::UNTOUCHED;
use crate::report::{Report, StatDecl};
use crate::spec::{ParamDecl, ParamKind, Resolved};
use crate::topology::Machine;
use crate::units::{NodeId, Ps};
use std::collections::VecDeque;

const PARAMS: &[ParamDecl] = &[
    ParamDecl { name: "sample_period", kind: ParamKind::UInt { min: 1, max: 1 << 30 }, default: "19997", doc: "one sample every this many memory accesses per thread (src/pebs.h SAMPLE_PERIOD 19997; 10007 in an earlier version)" },
    ParamDecl { name: "hot_read_threshold", kind: ParamKind::UInt { min: 1, max: 1 << 20 }, default: "4", doc: "reads that make a page hot (HOT_READ_THRESHOLD 4)" },
    ParamDecl { name: "hot_write_threshold", kind: ParamKind::UInt { min: 1, max: 1 << 20 }, default: "4", doc: "writes that make a page hot (HOT_WRITE_THRESHOLD 4)" },
    ParamDecl { name: "cooling_threshold", kind: ParamKind::UInt { min: 1, max: 1 << 20 }, default: "10", doc: "a count above this advances the cooling clock (PEBS_COOLING_THRESHOLD 10)" },
    ParamDecl { name: "cooling_pages", kind: ParamKind::UInt { min: 1, max: 1 << 30 }, default: "8192", doc: "hot-list entries re-checked per pass while cooling (COOLING_PAGES 8192)" },
    ParamDecl { name: "interval_ms", kind: ParamKind::Float { min: 0.001, max: 1e7 }, default: "10", doc: "period of the policy thread's passes (PEBS_KSWAPD_INTERVAL 10000 us)" },
    ParamDecl { name: "migrate_gb", kind: ParamKind::Float { min: 0.000001, max: 1e6 }, default: "10", doc: "bytes migrated per pass at most, GB (PEBS_KSWAPD_MIGRATE_RATE 10 GiB)" },
    tiering::PAGE_UNIT,
];

const OWN_STATS: &[StatDecl] = &[
    tiering::SAMPLES,
    StatDecl { name: "cooling_clock", unit: "ticks", doc: "the global cooling clock at the run's end: how often counts were halved" },
    StatDecl { name: "fast_full_of_hot", unit: "passes", doc: "passes that stopped because every fast page was hot (a hot slow page found no cold fast page to replace)" },
    StatDecl { name: "joined_pages", unit: "pages", doc: "base pages first touched after their 2 MiB unit was placed or moved, moved to the unit's tier (HeMem maps a huge page whole)" },
];

pub(super) const INFO: DynamicInfo = DynamicInfo {
    name: "hemem",
    doc: "HeMem (SOSP'21): PEBS-sampled read/write counts per 2 MiB page, hot/cold FIFO lists with lazy cooling, a background thread promoting hot slow pages",
    params: PARAMS,
    caps: DynamicCaps {
        observes: Observes::AddressSamples,
        drivers: BOTH,
        why_not: "",
        needs_program_calls: false,
        triggers: &[Trigger::Timer],
        stats: &[tiering::TIER_STATS, OWN_STATS],
    },
    build: |r, m, _| {
        tiering::require_tiers("hemem", m)?;
        Ok(Box::new(HeMem::new(r, m)?))
    },
};

/// Which list a unit is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    None,
    Hot,
    Cold,
}

#[derive(Clone, Copy, Debug)]
struct Unit {
    /// Reads and writes sampled (`accesses[DRAMREAD] + accesses[NVMREAD]`, `accesses[WRITE]`).
    reads: u32,
    writes: u32,
    /// The global clock when last sampled.
    clock: u64,
    list: List,
    /// Bumped at every list change: an entry of a list whose generation differs is stale.
    generation: u32,
    fast: bool,
    /// On the incomplete list (`HeMem::incomplete`).
    incomplete: bool,
}

struct HeMem {
    period: u64,
    read_th: u32,
    write_th: u32,
    cooling_th: u32,
    cooling_pages: usize,
    interval: Ps,
    migrate_bytes: u64,
    /// Base pages per unit.
    per_unit: u32,
    units: Vec<Unit>,
    /// FIFO lists: `[fast hot, fast cold, slow hot, slow cold]`, entries `(unit, generation)`.
    lists: [VecDeque<(u32, u32)>; 4],
    clock: u64,
    need_cool: [bool; 2],
    /// Units registered so far by the sweep over placed pages.
    sweep: u32,
    samples: u64,
    full_of_hot: u64,
    /// Units some of whose pages were not yet placed when the unit was registered or moved
    /// (a 2 MiB unit first touched page by page): each pass moves their pages placed since to
    /// the unit's tier, as HeMem maps a huge page whole on one tier (module doc).
    incomplete: Vec<u32>,
    /// Pages so moved.
    joined: u64,
}

impl HeMem {
    fn new(r: &Resolved, m: &Machine) -> Result<Self, ModelError> {
        let per_unit = tiering::managed_unit("hemem", r, m)?;
        Ok(HeMem {
            period: r.uint("sample_period"),
            read_th: r.uint("hot_read_threshold") as u32,
            write_th: r.uint("hot_write_threshold") as u32,
            cooling_th: r.uint("cooling_threshold") as u32,
            cooling_pages: r.uint("cooling_pages") as usize,
            interval: (r.float("interval_ms") * 1e9) as Ps,
            migrate_bytes: (r.float("migrate_gb") * (1u64 << 30) as f64) as u64,
            per_unit,
            units: Vec::new(),
            lists: Default::default(),
            clock: 0,
            need_cool: [false; 2],
            sweep: 0,
            samples: 0,
            full_of_hot: 0,
            incomplete: Vec::new(),
            joined: 0,
        })
    }

    fn list_index(fast: bool, list: List) -> usize {
        match (fast, list) {
            (true, List::Hot) => 0,
            (true, _) => 1,
            (false, List::Hot) => 2,
            (false, _) => 3,
        }
    }

    /// Puts unit `u` at the tail of `list` of its tier.
    fn enqueue(&mut self, u: u32, list: List) {
        let unit = &mut self.units[u as usize];
        unit.generation = unit.generation.wrapping_add(1);
        unit.list = list;
        let entry = (u, unit.generation);
        let i = Self::list_index(unit.fast, list);
        self.lists[i].push_back(entry);
    }

    /// The oldest live entry of list `i`, removed.
    fn dequeue(&mut self, i: usize) -> Option<u32> {
        while let Some((u, g)) = self.lists[i].pop_front() {
            let unit = &mut self.units[u as usize];
            if unit.generation == g && unit.list != List::None {
                unit.list = List::None;
                return Some(u);
            }
        }
        None
    }

    fn is_hot(&self, u: &Unit) -> bool {
        u.writes >= self.write_th || u.reads >= self.read_th
    }

    /// Registers units whose pages were placed since, on the cold list of their tier, at most
    /// `budget` units a pass (HeMem lists a page when it allocates it).
    fn register(&mut self, view: &View<'_>, fast: NodeId, budget: u32) {
        let total = (view.homes.len() as u32).div_ceil(self.per_unit);
        if self.units.len() != total as usize {
            self.units = vec![Unit { reads: 0, writes: 0, clock: 0, list: List::None, generation: 0, fast: false, incomplete: false }; total as usize];
            self.sweep = 0;
        }
        let mut left = budget;
        while self.sweep < total && left > 0 {
            let first = self.sweep * self.per_unit;
            let end = (first + self.per_unit).min(view.homes.len() as u32);
            let Some(home) = view.homes[first as usize..end as usize].iter().copied().find(|&h| h != UNTOUCHED) else { break };
            self.units[self.sweep as usize].fast = view.machine.is_toptier(NodeId(home)) || home == fast.0;
            self.enqueue(self.sweep, List::Cold);
            if self.per_unit > 1 {
                self.mark_incomplete(self.sweep);
            }
            self.sweep += 1;
            left -= 1;
        }
    }

    /// The scanning thread's handling of one sample (`pebs_scan_thread`).
    fn sampled(&mut self, u: u32, write: bool) {
        let clock = self.clock;
        let unit = &mut self.units[u as usize];
        if write {
            unit.writes += 1;
        } else {
            unit.reads += 1;
        }
        let hot = unit.writes >= self.write_th || unit.reads >= self.read_th;
        let (listed, was_hot) = (unit.list != List::None, unit.list == List::Hot);
        // Only the sampled kind is halved, as pebs.c does.
        let shift = clock - unit.clock;
        let count = if write { &mut unit.writes } else { &mut unit.reads };
        *count = count.checked_shr(shift.min(32) as u32).unwrap_or(0);
        unit.clock = clock;
        let over = *count > self.cooling_th;
        if listed && hot != was_hot {
            // make_hot / make_cold move the unit between its tier's lists.
            self.enqueue(u, if hot { List::Hot } else { List::Cold });
        }
        if over {
            self.clock += 1;
            self.need_cool = [true, true];
        }
    }

    /// `partial_cool_peek_and_move`: re-checks up to `cooling_pages` entries of a hot list,
    /// moving units whose halved counts are no longer hot to the cold list.
    fn cool(&mut self, fast: bool) {
        let t = usize::from(!fast);
        if !self.need_cool[t] {
            return;
        }
        let i = Self::list_index(fast, List::Hot);
        let n = self.lists[i].len().min(self.cooling_pages);
        for _ in 0..n {
            let Some(u) = self.dequeue(i) else { break };
            let unit = self.units[u as usize];
            let shift = (self.clock - unit.clock).min(32) as u32;
            let cooled = Unit { reads: unit.reads.checked_shr(shift).unwrap_or(0), writes: unit.writes.checked_shr(shift).unwrap_or(0), ..unit };
            self.enqueue(u, if self.is_hot(&cooled) { List::Hot } else { List::Cold });
        }
        if n == self.lists[i].len() || n < self.cooling_pages {
            self.need_cool[t] = false;
        }
    }

    /// Moves unit `u`'s placed pages that are not on `to` there; returns how many. A unit with
    /// pages not yet placed is listed as incomplete.
    fn move_unit(&mut self, u: u32, to: NodeId, view: &View<'_>, reason: &'static str, out: &mut Vec<Action>) -> u64 {
        let (moved, untouched) = self.gather(u, to, view, reason, out);
        if untouched {
            self.mark_incomplete(u);
        }
        moved
    }

    /// Lists unit `u` as incomplete, once.
    fn mark_incomplete(&mut self, u: u32) {
        let unit = &mut self.units[u as usize];
        if !unit.incomplete {
            unit.incomplete = true;
            self.incomplete.push(u);
        }
    }

    /// Migrations of unit `u`'s placed pages that are not on `to`: how many, and whether a page
    /// of the unit is still unplaced.
    fn gather(&self, u: u32, to: NodeId, view: &View<'_>, reason: &'static str, out: &mut Vec<Action>) -> (u64, bool) {
        let first = u * self.per_unit;
        tiering::unit_moves(view.homes, first..(first + self.per_unit).min(view.homes.len() as u32), to, reason, out)
    }

    /// Pages placed since in incomplete units join their unit's tier; units now whole leave the
    /// list. Returns the pages moved to the fast and to the slow node.
    fn join_stragglers(&mut self, (fast, slow): (NodeId, NodeId), view: &View<'_>, out: &mut Vec<Action>) -> (u64, u64) {
        let (mut up, mut down) = (0, 0);
        let mut keep = Vec::with_capacity(self.incomplete.len());
        for u in std::mem::take(&mut self.incomplete) {
            let to_fast = self.units[u as usize].fast;
            let (n, untouched) = self.gather(u, if to_fast { fast } else { slow }, view, "HeMem: page placed since joins its huge page's tier", out);
            if to_fast {
                up += n;
            } else {
                down += n;
            }
            if untouched {
                keep.push(u);
            } else {
                self.units[u as usize].incomplete = false;
            }
        }
        self.incomplete = keep;
        self.joined += up + down;
        (up, down)
    }

}

impl DynamicPolicy for HeMem {
    fn counts(&self) -> bool {
        false
    }

    fn migration_unit(&self) -> u32 {
        self.per_unit
    }

    fn sampling(&self) -> Option<Sampling> {
        Some(Sampling::Interval(self.period))
    }

    fn timer_period(&self) -> Option<Ps> {
        Some(self.interval.max(1))
    }

    fn on_timer(&mut self, view: &View<'_>) -> Timer {
        let mut tick = Timer { background: true, ..Timer::default() };
        let Some((fast, slow)) = tiering::fast_and_slow(view.machine) else { return tick };
        self.register(view, fast, 1 << 16);
        for s in view.samples {
            self.samples += 1;
            let u = s.page.0 / self.per_unit;
            if (u as usize) < self.units.len() {
                self.sampled(u, s.write);
            }
        }
        // The policy thread's pass: hot slow units up, cold fast units down to make room.
        let unit_bytes = self.per_unit as u64 * view.machine.raw.page_size;
        let (mut fast_free, mut slow_free) = (view.free[fast.index()], view.free[slow.index()]);
        if !self.incomplete.is_empty() {
            let (up, down) = self.join_stragglers((fast, slow), view, &mut tick.actions);
            fast_free = (fast_free + down).saturating_sub(up);
            slow_free = (slow_free + up).saturating_sub(down);
        }
        let mut migrated = 0u64;
        while migrated < self.migrate_bytes {
            let Some(p) = self.dequeue(Self::list_index(false, List::Hot)) else { break };
            if !self.is_hot(&self.units[p as usize]) {
                self.enqueue(p, List::Cold);
                continue;
            }
            let mut placed = false;
            for _ in 0..2 {
                if fast_free >= self.per_unit as u64 {
                    let n = self.move_unit(p, fast, view, "HeMem: hot slow page promoted", &mut tick.actions);
                    fast_free -= n;
                    slow_free += n;
                    self.units[p as usize].fast = true;
                    self.enqueue(p, List::Hot);
                    migrated += unit_bytes;
                    placed = true;
                    break;
                }
                let Some(c) = self.dequeue(Self::list_index(true, List::Cold)) else { break };
                if slow_free < self.per_unit as u64 {
                    self.enqueue(c, List::Cold);
                    break;
                }
                let n = self.move_unit(c, slow, view, "HeMem: cold fast page demoted to make room", &mut tick.actions);
                fast_free += n;
                slow_free -= n;
                self.units[c as usize].fast = false;
                self.enqueue(c, List::Cold);
            }
            if !placed {
                // Every fast page is hot: put it back and end the pass.
                self.enqueue(p, List::Hot);
                self.full_of_hot += 1;
                break;
            }
        }
        self.cool(true);
        self.cool(false);
        tick
    }

    /// A moved page's unit's sampled counts as the pass left them, against the threshold that
    /// made it hot (writes first, as `is_hot` reads them) or left it cold.
    fn evidence(&self, action: &Action) -> Option<Evidence> {
        let Action::Migrate { page, .. } = action else { return None };
        let u = self.units.get((page.0 / self.per_unit) as usize)?;
        Some(if u.writes >= self.write_th {
            Evidence { measured: "sampled_writes", value: u.writes as f64, threshold: "hot_write_threshold", limit: self.write_th as f64 }
        } else {
            Evidence { measured: "sampled_reads", value: u.reads as f64, threshold: "hot_read_threshold", limit: self.read_th as f64 }
        })
    }

    fn report(&self, applied: &Applied, out: &mut Report) {
        tiering::report_moves(applied, out);
        out.count("samples", self.samples);
        out.count("cooling_clock", self.clock);
        out.count("fast_full_of_hot", self.full_of_hot);
        out.count("joined_pages", self.joined);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamic::fixture::Fixture;
    use crate::dynamic::Sample;
    use crate::units::PageNo;

    /// Fast node 0 of 4 pages, slow node 1 of 8; HeMem on base pages.
    fn tiered() -> Fixture {
        Fixture::tiered(vec![0, 0, 0, 0, 1, 1, 1, 1], vec![0, 500])
    }

    #[test]
    fn a_page_sampled_hot_on_the_slow_tier_replaces_the_oldest_cold_fast_page() {
        let f = tiered();
        let mut p = f.policy("hemem:page=4k");
        let reads: Vec<Sample> = (0..4).map(|_| Sample { page: PageNo(5), node: NodeId(0), write: false }).collect();
        let samples = f.view();
        let view = View { samples: &reads, ..samples };
        let t = p.on_timer(&view);
        assert!(t.background);
        assert_eq!(
            t.actions,
            vec![
                Action::Migrate { page: PageNo(0), to: NodeId(1), reason: "HeMem: cold fast page demoted to make room" },
                Action::Migrate { page: PageNo(5), to: NodeId(0), reason: "HeMem: hot slow page promoted" },
            ]
        );
        // Three reads are not hot.
        let mut q = f.policy("hemem:page=4k");
        let three = &reads[..3];
        assert!(q.on_timer(&View { samples: three, ..f.view() }).actions.is_empty());
    }

    #[test]
    fn huge_pages_move_whole_and_need_a_machine_that_has_them() {
        let f = tiered();
        let e = crate::dynamic::build(&crate::Spec::parse("hemem").unwrap(), &f.machine, 2).err().unwrap();
        assert_eq!(e.to_string(), "dynamic policy 'hemem': page=2m: machine 't2' declares no huge pages (huge_page_size); give it one or use page=4k");
        let text = crate::topology::tests::TWO_NODES.replace("memory_mib = 2\n", "memory_mib = 2\nmemory = \"cxl\"\n").replace("mlp = 2.0\n", "mlp = 2.0\nhuge_page_size = 8192\n");
        let mut g = tiered();
        g.machine = Machine::from_toml_str(&text, "t2h.toml").unwrap();
        g.free = vec![10, 500];
        let mut p = g.policy("hemem");
        let writes: Vec<Sample> = (0..4).map(|_| Sample { page: PageNo(6), node: NodeId(0), write: true }).collect();
        let t = p.on_timer(&View { samples: &writes, ..g.view() });
        let moved: Vec<u32> = t.actions.iter().map(|a| match a { Action::Migrate { page, .. } => page.0, _ => u32::MAX }).collect();
        assert_eq!(moved, vec![6, 7], "the 8 KiB unit of pages 6 and 7");
    }

    #[test]
    fn pages_touched_after_their_unit_moved_join_it_on_the_next_pass() {
        let text = crate::topology::tests::TWO_NODES
            .replace("memory_mib = 2\n", "memory_mib = 2\nmemory = \"cxl\"\n")
            .replace("mlp = 2.0\n", "mlp = 2.0\nhuge_page_size = 16384\n");
        let mut f = tiered();
        f.machine = Machine::from_toml_str(&text, "t2h.toml").unwrap();
        f.free = vec![10, 500];
        // A unit of four pages (4..8) of which only 4 and 5 are placed yet, on the slow node.
        f.homes = vec![0, 0, 0, 0, 1, 1, UNTOUCHED, UNTOUCHED];
        let mut p = f.policy("hemem");
        let writes: Vec<Sample> = (0..4)
            .map(|_| Sample {
                page: PageNo(4),
                node: NodeId(0),
                write: true,
            })
            .collect();
        let moved = |t: &Timer| {
            t.actions
                .iter()
                .map(|a| match a {
                    Action::Migrate { page, to, .. } => (page.0, to.0),
                    _ => (u32::MAX, 0),
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            moved(&p.on_timer(&View {
                samples: &writes,
                ..f.view()
            })),
            vec![(4, 0), (5, 0)]
        );
        // Pages 6 and 7 are then first touched where the placement puts them, the slow node.
        f.homes = vec![0, 0, 0, 0, 0, 0, 1, UNTOUCHED];
        assert_eq!(
            moved(&p.on_timer(&f.view())),
            vec![(6, 0)],
            "page 6 joins its unit"
        );
        f.homes[6] = 0;
        f.homes[7] = 1;
        assert_eq!(moved(&p.on_timer(&f.view())), vec![(7, 0)]);
        f.homes[7] = 0;
        assert!(
            p.on_timer(&f.view()).actions.is_empty(),
            "a whole unit leaves the list"
        );
    }

    #[test]
    fn a_count_past_the_cooling_threshold_halves_the_others_lazily() {
        let f = tiered();
        let mut h = HeMem::new(&crate::dynamic::resolve(&crate::Spec::parse("hemem:page=4k").unwrap()).unwrap().1, &f.machine).unwrap();
        h.register(&f.view(), NodeId(0), 100);
        for _ in 0..6 {
            h.sampled(4, false);
        }
        for _ in 0..11 {
            h.sampled(5, false);
        }
        assert_eq!(h.clock, 1, "page 5's eleventh read advanced the clock");
        // Page 4's next read is halved first: (6 + 1) >> 1.
        h.sampled(4, false);
        assert_eq!(h.units[4].reads, 3);
        assert_eq!(h.units[4].list, List::Hot, "classified before the halving, as pebs.c does");
    }
}
