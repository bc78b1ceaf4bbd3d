//! What the tiering policies share: the promotion and demotion counts they report, the
//! NUMA-balancing scanner that makes slow-tier pages fault, and the reclaimer that demotes
//! cold pages from a fast node running low on free memory (Linux's kswapd with
//! `/sys/kernel/mm/numa/demotion_enabled`).
//!
//! Per page the reclaimer keeps one byte of flags ([`Flags`]), the policy's own: the LRU list
//! the page is on (active or inactive), whether a reference was already seen (Linux's
//! `PG_referenced`), and whether the page was demoted (for TPP's thrash count). With the
//! engine's home byte, its revoked flag and the page-table entry's referenced bit, a tiered run
//! keeps four bytes per page.

use super::{Action, Applied, Timer, View};
use crate::report::{Report, StatDecl};
use crate::topology::Machine;
use crate::units::{NodeId, PageNo, Ps};
use crate::pagetable::UNTOUCHED;
use crate::spec::{ParamDecl, ParamKind, Resolved};

/// The moves a tiering policy reports, counted by the driver ([`Applied`]).
pub const TIER_STATS: &[StatDecl] = &[
    StatDecl { name: "promotions", unit: "pages", doc: "pages moved from a slower tier to the fastest (Linux's pgpromote_success)" },
    StatDecl { name: "demotions", unit: "pages", doc: "pages moved from the fastest tier to a slower one (Linux's pgdemote_kswapd)" },
    StatDecl { name: "promotion_failures", unit: "pages", doc: "promotions asked that did not land on the fastest tier: its node was full" },
    StatDecl { name: "background_ms", unit: "ms", doc: "time the background threads (kswapd, the policy's migration thread) spent moving pages, which no application thread waited for" },
];

/// Whether a policy moves pages between tiers (its capabilities report [`TIER_STATS`]).
pub fn moves_between_tiers(caps: &super::DynamicCaps) -> bool {
    caps.stats.iter().any(|group| group.iter().any(|d| d.name == TIER_STATS[0].name))
}

/// Reports [`TIER_STATS`] from what the driver applied.
pub fn report_moves(applied: &Applied, out: &mut Report) {
    out.count("promotions", applied.promotions);
    out.count("demotions", applied.demotions);
    out.count("promotion_failures", applied.promotion_failures);
    out.number("background_ms", Some(applied.background_ps as f64 / 1e9));
}

/// A page's reclaim flags, one byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flags;

impl Flags {
    /// On the active LRU list.
    pub const ACTIVE: u8 = 1;
    /// A reference was seen once already (`PG_referenced`): the next makes the page active.
    pub const REFERENCED: u8 = 2;
    /// Demoted at least once (TPP counts a demoted page that becomes a promotion candidate
    /// again as thrashing).
    pub const DEMOTED: u8 = 4;
}

/// Marks `flags` accessed as Linux's `mark_page_accessed` does: an inactive unreferenced page
/// becomes referenced, an inactive referenced page becomes active (`folio_mark_accessed`,
/// mm/swap.c). Returns whether the page is active afterwards.
pub fn mark_accessed(flags: &mut u8) -> bool {
    if *flags & Flags::ACTIVE != 0 {
        *flags |= Flags::REFERENCED;
    } else if *flags & Flags::REFERENCED != 0 {
        *flags = (*flags | Flags::ACTIVE) & !Flags::REFERENCED;
    } else {
        *flags |= Flags::REFERENCED;
    }
    *flags & Flags::ACTIVE != 0
}

/// The scanner's parameters, shared by the policies built on NUMA balancing's hint faults
/// (Linux's sysctls, kernel/sched/fair.c).
pub const SCAN_DELAY: ParamDecl = ParamDecl { name: "scan_delay_ms", kind: ParamKind::Float { min: 0.001, max: 1e7 }, default: "1000", doc: "time before the first scan (sysctl numa_balancing_scan_delay_ms: 1000)" };
pub const SCAN_PERIOD: ParamDecl = ParamDecl { name: "scan_period_ms", kind: ParamKind::Float { min: 0.001, max: 1e7 }, default: "1000", doc: "time to scan the whole address space (numa_balancing_scan_period_min_ms: 1000, \"approximate time to scan a full NUMA task\"; each window's period is this over the windows, task_scan_min; slow-tier faults are never local, so it stays at its minimum)" };
pub const SCAN_SIZE: ParamDecl = ParamDecl { name: "scan_size_mb", kind: ParamKind::Float { min: 0.001, max: 1e9 }, default: "256", doc: "address space made to fault per scan (numa_balancing_scan_size_mb: 256)" };
/// Linux's cap on the scan rate (kernel/sched/fair.c `MAX_SCAN_WINDOW`, "never scan more PTEs
/// than MAX_SCAN_WINDOW MB/sec"): a window's period is at least scan size ÷ this.
pub const MAX_SCAN_RATE: ParamDecl = ParamDecl { name: "max_scan_mb_per_s", kind: ParamKind::Float { min: 0.001, max: 1e12 }, default: "2560", doc: "the scanner's rate cap: a window's period is at least scan_size_mb / this, s (MAX_SCAN_WINDOW 2560 MB/s, task_scan_min)" };
pub const FAULT_NS: ParamDecl = ParamDecl { name: "fault_ns", kind: ParamKind::Float { min: 0.0, max: 1e9 }, default: "1000", doc: "cost of one hinting fault (assumption: a minor fault, about 1 µs)" };

/// A scan's window in pages ([`SCAN_SIZE`] on `machine`) and the shortest period of one
/// window at the [`MAX_SCAN_RATE`] cap, ps: what every NUMA-balancing scanner reads.
pub fn scan_window(r: &Resolved, machine: &Machine) -> (u32, Ps) {
    let mb = r.float("scan_size_mb");
    let window = ((mb * 1048576.0) / machine.raw.page_size as f64).ceil().max(1.0) as u32;
    (window, (mb / r.float("max_scan_mb_per_s") * 1e12) as Ps)
}

/// `task_scan_min` (kernel/sched/fair.c): the period of one of `windows` windows when a whole
/// pass takes `period`, at least `floor` (and 1 ps).
pub fn per_window(period: Ps, windows: u32, floor: Ps) -> Ps {
    (period / Ps::from(windows.max(1))).max(floor).max(1)
}

/// The NUMA-balancing scanner in a tiering mode: it makes the next window of `window` pages of
/// the address space fault on their next access, one window per `period ÷ windows` (at least
/// `floor`), so the whole space in about `period`, as `task_scan_min` (kernel/sched/fair.c)
/// divides `numa_balancing_scan_period_min_ms` by `task_nr_scan_windows` and floors it at the
/// `MAX_SCAN_WINDOW` rate (the footprint here is the workload's pages, touched or not) — only pages off the
/// fastest tier, as `change_pte_range` skips top-tier pages when NUMA balancing runs in
/// memory-tiering mode only (mm/mprotect.c) — and remembers when each window was scanned (the
/// hint-fault latency is the fault's time minus its page's scan time, kernel/sched/fair.c
/// `numa_hint_fault_latency`; the kernel keeps the scan time in the page's `last_cpupid` bits,
/// here one time per window).
#[derive(Clone, Debug)]
pub struct Scanner {
    pub period: Ps,
    pub window: u32,
    /// The shortest period of one window (the scan-rate cap).
    pub floor: Ps,
    next: u32,
    /// When each window (`page / window`) was last scanned.
    scanned: Vec<Ps>,
}

impl Scanner {
    pub fn new(period: Ps, window: u32, floor: Ps) -> Self {
        Scanner { period, window: window.max(1), floor, next: 0, scanned: Vec::new() }
    }

    /// The period of one window over `windows` windows (`task_scan_min`).
    pub fn window_period(&self, windows: u32) -> Ps {
        per_window(self.period, windows, self.floor)
    }

    /// The scanner of a policy's resolved [`SCAN_PERIOD`], [`SCAN_SIZE`] and [`MAX_SCAN_RATE`] on `machine`, with
    /// the first scan's delay ([`SCAN_DELAY`]) and a fault's cost ([`FAULT_NS`]), ps.
    pub fn from_params(r: &Resolved, machine: &Machine) -> (Scanner, Ps, Ps) {
        let (window, floor) = scan_window(r, machine);
        let scanner = Scanner::new((r.float("scan_period_ms") * 1e9) as Ps, window, floor);
        (scanner, (r.float("scan_delay_ms") * 1e9) as Ps, (r.float("fault_ns") * 1000.0) as Ps)
    }

    /// The next scan at `now`: the timer tick that revokes the next window.
    pub fn scan(&mut self, pages: u32, now: Ps) -> Timer {
        let windows = pages.div_ceil(self.window) as usize;
        if self.scanned.len() != windows {
            self.scanned = vec![0; windows];
        }
        let start = if self.next >= pages { 0 } else { self.next };
        let end = start.saturating_add(self.window).min(pages);
        self.next = end;
        if let Some(t) = self.scanned.get_mut((start / self.window) as usize) {
            *t = now;
        }
        Timer { revoke: Some(start..end), revoke_skip_toptier: true, next_period: Some(self.window_period(windows as u32)), ..Timer::default() }
    }

    /// When `page`'s window was last scanned.
    pub fn scanned_at(&self, page: PageNo) -> Ps {
        self.scanned.get((page.0 / self.window) as usize).copied().unwrap_or(0)
    }
}

/// The reclaimer: demotes cold pages of a fast node to its demotion target
/// ([`Machine::demotion`]), choosing them as Linux's two LRU lists do, approximated by a clock
/// over the node's pages in page order (pages enter the lists in first-touch order, which for
/// the workloads here is mostly page order). Each page the hand passes:
///
/// * referenced since the last pass: its bit is cleared, and an inactive page that was
///   referenced before becomes active, one referenced for the first time is marked
///   (`folio_check_references`, mm/vmscan.c: a mapped page must be referenced twice to be
///   activated);
/// * not referenced and active: deactivated (`shrink_active_list` moves it to the inactive
///   list);
/// * not referenced and inactive: demoted (`demote_folio_list`).
#[derive(Clone, Debug, Default)]
pub struct Reclaim {
    /// Where the hand stands, per node.
    hand: Vec<u32>,
    /// Each page's [`Flags`].
    pub flags: Vec<u8>,
    /// Pages the hand examined.
    pub scanned: u64,
}

impl Reclaim {
    /// The flags of every page of `view`, allocated on first use.
    pub fn flags_for(&mut self, pages: usize) -> &mut [u8] {
        if self.flags.len() != pages {
            self.flags = vec![0; pages];
        }
        &mut self.flags
    }

    /// Demotes up to `want` pages of `node` (a fast node with a demotion target), examining at
    /// most `budget` page numbers and at most one lap of them; the answer runs in the background (kswapd) and clears the
    /// referenced bits it read.
    pub fn demote(&mut self, view: &View<'_>, node: NodeId, want: u64, budget: u64, reason: &'static str) -> Timer {
        let mut tick = Timer { background: true, ..Timer::default() };
        let Some(to) = view.machine.demotion[node.index()] else { return tick };
        let pages = view.homes.len() as u32;
        if pages == 0 || want == 0 {
            return tick;
        }
        let nodes = view.machine.nodes();
        if self.hand.len() != nodes {
            self.hand = vec![0; nodes];
        }
        self.flags_for(pages as usize);
        let room = view.free[to.index()];
        let want = want.min(room);
        let mut p = self.hand[node.index()] % pages;
        // At most one lap: a page is looked at once per call, so a bit it cleared is not read
        // again before the program has had time to set it, and a page is chosen once.
        let budget = budget.min(u64::from(pages));
        let mut looked = 0u64;
        while (tick.actions.len() as u64) < want && looked < budget {
            looked += 1;
            let page = p;
            p = if p + 1 >= pages { 0 } else { p + 1 };
            if view.homes[page as usize] != node.0 {
                // The hand passes the other nodes' pages that follow in one step, each counted
                // as looked at, up to the budget and the end of the pages.
                let limit = ((pages - p) as u64).min(budget - looked) as usize;
                let skip = find_byte(&view.homes[p as usize..p as usize + limit], node.0).unwrap_or(limit);
                looked += skip as u64;
                p += skip as u32;
                if p >= pages {
                    p = 0;
                }
                continue;
            }
            self.scanned += 1;
            let f = &mut self.flags[page as usize];
            if view.referenced.get(page as usize).is_some_and(|&r| r != 0) {
                tick.clear_referenced.push(page);
                if *f & Flags::ACTIVE == 0 {
                    if *f & Flags::REFERENCED != 0 {
                        *f = (*f | Flags::ACTIVE) & !Flags::REFERENCED;
                    } else {
                        *f |= Flags::REFERENCED;
                    }
                }
            } else if *f & Flags::ACTIVE != 0 {
                *f &= !(Flags::ACTIVE | Flags::REFERENCED);
            } else {
                *f = (*f | Flags::DEMOTED) & !Flags::REFERENCED;
                tick.actions.push(Action::Migrate { page: PageNo(page), to, reason });
            }
        }
        self.hand[node.index()] = p;
        tick
    }
}

/// The first position of `b` in `hay`, eight bytes at a time.
fn find_byte(hay: &[u8], b: u8) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let pattern = ONES * b as u64;
    let mut chunks = hay.chunks_exact(8);
    let mut at = 0;
    for c in chunks.by_ref() {
        let x = u64::from_le_bytes(c.try_into().expect("eight bytes")) ^ pattern;
        // A zero byte of `x` (a match) sets its high bit here; the lowest such is exact.
        let zero = x.wrapping_sub(ONES) & !x & HIGHS;
        if zero != 0 {
            return Some(at + (zero.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    chunks.remainder().iter().position(|&h| h == b).map(|i| at + i)
}

/// The pages a node must free to be back at `high`, or 0.
pub fn shortfall(view: &View<'_>, node: NodeId, high: u64) -> u64 {
    high.saturating_sub(view.free[node.index()])
}

/// The fastest-tier node nearest to `node` that has memory (itself when it is one).
pub fn nearest_toptier(machine: &Machine, node: NodeId) -> Option<NodeId> {
    machine.nearest[node.index()].iter().copied().find(|&n| machine.is_toptier(n))
}

/// The unit a huge-page manager (HeMem, Colloid on HeMem) moves: `page=2m`, the machine's huge
/// page (HeMem's `HUGE_PFN_MASK`, 2 MiB), or `page=4k`, its base page ([`managed_unit`]).
pub const PAGE_UNIT: ParamDecl = ParamDecl { name: "page", kind: ParamKind::Choice(&["2m", "4k"]), default: "2m", doc: "the unit managed: the machine's huge page (HeMem's HUGE_PFN_MASK, 2 MiB), or its base page" };

/// The address samples a sampling policy read.
pub const SAMPLES: StatDecl = StatDecl { name: "samples", unit: "samples", doc: "address samples the policy read" };

/// Base pages per unit of [`PAGE_UNIT`] for `policy` on `machine`.
///
/// # Errors
/// `page=2m` on a machine that declares no huge pages.
pub fn managed_unit(policy: &str, r: &Resolved, machine: &Machine) -> Result<u32, crate::error::ModelError> {
    if r.choice(PAGE_UNIT.name) == "4k" {
        return Ok(1);
    }
    machine.pages_per_huge().ok_or_else(|| {
        crate::error::ModelError::Config(format!(
            "dynamic policy '{policy}': page=2m: machine '{}' declares no huge pages (huge_page_size); give it one or use page=4k",
            machine.name()
        ))
    })
}

/// Refuses a tiering policy on a machine of one memory tier, where it could only do nothing.
///
/// # Errors
/// [`ModelError::Config`] naming the policy and the machine.
pub fn require_tiers(policy: &str, machine: &Machine) -> Result<(), crate::error::ModelError> {
    if machine.is_tiered() {
        return Ok(());
    }
    Err(crate::error::ModelError::Config(format!(
        "dynamic policy '{policy}' moves pages between memory tiers, and machine '{}' has one (give a node memory = \"cxl\" or \"pmem\", e.g. the cxl-tiered preset)",
        machine.name()
    )))
}

/// The fast node of a policy that manages one fast and one slow device (HeMem, Memtis, Colloid
/// on HeMem): the top-tier node with the most memory (the lowest on a tie), and its demotion
/// target.
pub fn fast_and_slow(machine: &Machine) -> Option<(NodeId, NodeId)> {
    let fast = (0..machine.nodes()).filter(|&n| machine.is_toptier(NodeId(n as u8))).max_by_key(|&n| (machine.capacity_pages[n], std::cmp::Reverse(n)))?;
    Some((NodeId(fast as u8), machine.demotion[fast]?))
}

/// Moves the placed pages of `pages` that are not on `to` there (a huge page is mapped whole
/// on one node; the simulator places its base pages one by one): appends the migrations to
/// `out` and returns how many, and whether a page of the range is still unplaced.
pub fn unit_moves(homes: &[u8], pages: std::ops::Range<u32>, to: NodeId, reason: &'static str, out: &mut Vec<Action>) -> (u64, bool) {
    let before = out.len();
    let mut unplaced = false;
    for p in pages {
        match homes.get(p as usize).copied() {
            None | Some(UNTOUCHED) => unplaced = true,
            Some(h) if h != to.0 => out.push(Action::Migrate { page: PageNo(p), to, reason }),
            Some(_) => {}
        }
    }
    ((out.len() - before) as u64, unplaced)
}

/// Whether `page` is placed off the fastest tier.
pub fn on_slow_tier(view: &View<'_>, page: PageNo) -> bool {
    let h = view.homes[page.0 as usize];
    h != UNTOUCHED && !view.machine.is_toptier(NodeId(h))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_byte_finds_the_first_match() {
        let mut hay = vec![1u8; 37];
        assert_eq!(find_byte(&hay, 0), None);
        for at in [0, 5, 7, 8, 15, 31, 32, 36] {
            hay.fill(1);
            hay[at] = 0;
            hay[36] = 0;
            assert_eq!(find_byte(&hay, 0), Some(at), "{at}");
            assert_eq!(find_byte(&hay[..at], 0), None);
        }
        // A byte below the searched one borrows in the subtraction: no false match after it.
        assert_eq!(find_byte(&[2, 1, 2, 2, 2, 2, 2, 2, 1], 1), Some(1));
        assert_eq!(find_byte(&[0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80], 0x80), Some(1));
        assert_eq!(find_byte(&[], 3), None);
    }

    #[test]
    fn a_page_is_activated_by_its_second_reference() {
        let mut f = 0u8;
        assert!(!mark_accessed(&mut f));
        assert_eq!(f, Flags::REFERENCED);
        assert!(mark_accessed(&mut f));
        assert_eq!(f, Flags::ACTIVE);
        assert!(mark_accessed(&mut f));
        assert_eq!(f, Flags::ACTIVE | Flags::REFERENCED);
    }

    #[test]
    fn a_tiering_policy_refuses_a_machine_of_one_tier() {
        let flat = Machine::from_toml_str(crate::topology::tests::TWO_NODES, "t2.toml").unwrap();
        for name in ["numab-tiering", "tpp", "hemem"] {
            let e = crate::dynamic::build(&crate::Spec::parse(name).unwrap(), &flat, 2).err().unwrap().to_string();
            assert_eq!(e, format!("dynamic policy '{name}' moves pages between memory tiers, and machine 't2' has one (give a node memory = \"cxl\" or \"pmem\", e.g. the cxl-tiered preset)"));
        }
    }

    #[test]
    fn the_scanner_revokes_windows_in_turn_and_remembers_when() {
        // Three windows: the whole space every 1,200 ps, a window every 400.
        let mut s = Scanner::new(1_200, 4, 100);
        let t = s.scan(10, 5);
        assert_eq!((t.revoke, t.revoke_skip_toptier, t.next_period), (Some(0..4), true, Some(400)));
        assert_eq!(s.scan(10, 7).revoke, Some(4..8));
        assert_eq!(s.scan(10, 9).revoke, Some(8..10));
        assert_eq!(s.scan(10, 11).revoke, Some(0..4));
        assert_eq!((s.scanned_at(PageNo(1)), s.scanned_at(PageNo(5)), s.scanned_at(PageNo(9))), (11, 7, 9));
    }

    #[test]
    fn a_window_takes_the_scan_period_over_the_windows_floored_at_the_rate_cap() {
        // Linux's defaults: 1000 ms per pass, 256 MB windows, at most 2560 MB/s (a window
        // every 100 ms at least). 6.2 windows (1,584 MiB, pmbench's set): 7 windows of 142.9 ms.
        let m = Machine::from_toml_str(crate::topology::tests::TWO_NODES, "t2.toml").unwrap();
        let r = crate::dynamic::resolve(&crate::Spec::parse("tpp").unwrap()).unwrap().1;
        let (s, _, _) = Scanner::from_params(&r, &m);
        assert_eq!((s.window, s.floor), (65_536, 100_000_000_000));
        assert_eq!(s.window_period(7), 142_857_142_857);
        // 64 GiB: 256 windows, the cap rules (a full pass in 25.6 s, not 1 s).
        assert_eq!(s.window_period(256), 100_000_000_000);
        assert_eq!(s.window_period(1), 1_000_000_000_000);
    }
}
