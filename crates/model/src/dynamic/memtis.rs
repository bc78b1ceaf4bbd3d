//! `memtis`: Memtis (Lee et al., "MEMTIS: Efficient Memory Tiering with Dynamic Page
//! Classification and Page Size Determination", SOSP'23), as its public code does it (repo
//! cosmoss-jigu/memtis at 92487b9, Linux 5.15.19: `linux/include/linux/htmm.h`,
//! `linux/mm/htmm_sampler.c`, `htmm_core.c`, `htmm_migrater.c`, `rmap.c`, the `htmm_*` defaults
//! in `mm/mempolicy.c`).
//!
//! * **Sensing** (`ksamplingd`): PEBS records of LLC load misses (`DRAM_LLC_LOAD_MISS`, and
//!   `NVM_LLC_LOAD_MISS` or the CXL one by the page's tier) at one period and of stores
//!   (`ALL_STORES`) at another, read by one kernel thread, `ksampled`, kept near 3 % of a
//!   CPU: it measures its CPU time every 15 s (`cpucap_period`) and steps both periods one entry
//!   up its list (`pebs_period_list`, 199 … 19,997; `pebs_inst_period_list`, 100,003 …
//!   1,500,003) when it used more than `ksampled_soft_cpu_quota` + 0.5 % (30 ‰ + 5), one down
//!   when less than 30 ‰ − 5. The first measurement is scaled by 0.8 (`cputime` starts at 0,
//!   the EMA branch). Here the engine hands over every `sample_period`-th line of each thread
//!   ([`super::Observes::AddressSamples`]); every line is a load miss (a written line is
//!   fetched first, by a read-modify-write such as GUPS's update or by its RFO), and a written
//!   one is also a store. The policy
//!   keeps the share of them that the current periods give (the list entry over the first, by
//!   a deterministic credit), then charges `sample_cost_ns` of ksampled's time per record it
//!   reads. ksampled is one thread: records beyond what it can read in the elapsed time are
//!   lost (a full perf buffer), thinned evenly over the pass (`samples_lost`).
//! * **Counts** (`update_pginfo`): per 4 KiB page `total_accesses += HPAGE_PMD_NR` (512) a
//!   sample; per 2 MiB page `total_accesses += 1` and its subpage's `+= 512`. Bins are
//!   `get_idx` (⌊log2(n + 1)⌋, at most 15). Two histograms of pages per bin: `hotness_hg`
//!   (a huge page counts 512 in its bin) and `ebp_hotness_hg` (the subpages one by one, the
//!   "estimated base page" histogram). A new page starts at `2^(active_threshold + 1)`
//!   (`set_page_coolstatus`, `__prep_transhuge_page_for_htmm`): presumed hot, so its first
//!   sample activates it.
//! * **Thresholds** (`__adjust_active_threshold`, every `htmm_adaptation_period` = 100,000
//!   samples): the hot bin is the lowest whose pages, with every hotter bin's, fit the fast
//!   tier less its promotion watermark; at least `htmm_thres_hot` (1). After a cooling it only
//!   steps down by one. The warm threshold is one below when the hot set fills under 75 % of
//!   the fast tier (`htmm_nowarm` 0); warm pages are not demoted.
//! * **Cooling** (`__cooling`, every `htmm_cooling_period` = 2,000,000 samples, or when the
//!   footprint grew by `htmm_thres_cooling_alloc` = 10 GiB): the clock advances and the
//!   histograms are reset; each page is halved once per tick it missed, lazily when next
//!   sampled, and by each tier's kmigraterd on its next pass (`cooling_node` scans both LRU
//!   lists whole), which re-enters it in the histograms. A cooling while the last one is
//!   still pending only advances the clock.
//! * **kmigraterd** (one thread per node, each pass every `htmm_demotion_period_in_ms` /
//!   `htmm_promotion_period_in_ms` = 500 ms): splits up to 50 queued huge pages
//!   (`deferred_split_scan_for_htmm`), cools or re-classifies its node's pages, then the fast
//!   node's thread demotes (`need_toptier_demotion`, `demote_node`: inactive, not warm pages,
//!   until the fast node is below its cgroup limit less the promotion watermark with room for
//!   the slow node's active pages), and the slow node's thread promotes its active pages into
//!   the room left above the promotion watermark (`promotion_available`, `promote_node`'s
//!   priority loop: Σ n >> p for p = 12 … 1). Watermarks (`get_memcg_*_watermark`): demotion
//!   2 % of the limit within [50 MB, 1000 MB], promotion 3 % within [100 MB, 1500 MB]. An
//!   allocation that fills the fast node to within the demotion watermark sets
//!   `need_demotion`, which then demotes the excess plus 50 MB (12,800 pages).
//! * **Splitting** (`set_memcg_nr_split`, `set_memcg_split_thres`, `check_split_huge_page`):
//!   at a cooling, once the samples since the last decision exceed max(footprint / 4, the fast
//!   tier) (`htmm_split_period` 2), the next adaptation estimates the hit ratio had every hot
//!   subpage been in DRAM (`max_dram_sampled`, 95 % of it) against the real one
//!   (`dram_sampled`); if higher, `nr_split` = (eHR − rHR) × utilisation ÷ records ÷ mean
//!   huge-page accesses × (slow − fast latency) ÷ fast latency × 512 × `htmm_gamma` / 10 base
//!   pages (latencies 80, and 170 for CXL or 270 for NVM, `htmm.h`) are split, the most skewed
//!   first (skewness Σ H² / 11 / hot subpages², binned by `get_skew_idx`). A split that did not
//!   raise the real hit ratio by 3 % at the next decision turns splitting off for good
//!   (`htmm_thres_split = 0`). A split unit's subpages are then managed as 4 KiB pages.
//!
//! Modelling choices, written down:
//! * The cgroup's fast-node limit (`memory.max_at_node`, which the artifact's
//!   `set_mem_size.sh` sets; without it Memtis never demotes) is the fast node's capacity; the
//!   fast node is the top-tier node with the most memory, the slow one its demotion target.
//! * One timer of `period_ms` runs both kmigraterd threads: the samples since the last pass
//!   are read first (ksampled runs continually; only the order within 500 ms is lost), then
//!   the fast node's thread (split, cool or adjust, demote), then the slow node's (split,
//!   cool or adjust, promote). An allocation's wake-up of the demotion thread waits for the
//!   next pass. Copies run in the background (kmigraterd has its own cores); ksampled's CPU is
//!   not taken from the application threads (it is reported, `ksampled_cpu_permil`).
//! * `sample_cost_ns` (1 µs) is an assumption: the code gives no per-record cost; a record
//!   takes a pid and mm lookup, a page-table walk, a lock and histogram updates.
//! * The LRU lists are approximated by a hand per tier over the pages in page order; a page is
//!   active or not as the code sets `PageActive`.
//! * `MAX_MIGRATION_RATE_IN_MBPS` was 100 in the first release (226737e), 1024 and bounding
//!   each demotion pass in fa3ebdb8f, and is 2048 and unused in the final code: by default no
//!   rate cap (`migration_mbps=0`); a value caps each thread's pass at that rate × period.
//! * The split subpages keep their counts and the unit's cooling clock; Memtis's unmapping of
//!   zero-filled subpages at a split (4f44bd132) is not modelled. Split pages of one 2 MiB
//!   region moved one after another in a pass share the engine's fixed cost per aligned unit
//!   (`migration_unit`), an undercharge.
//! * A huge page is mapped whole on one tier; the simulator touches its base pages one by
//!   one, so a unit's pages placed elsewhere join the unit's tier at the next pass
//!   (`joined_pages`, [`tiering::unit_moves`]).
//! * Pages on a node other than the fast one count as the slow tier's (Memtis's CXL mode
//!   promotes to node 0 and demotes to node 1); a sample is a DRAM hit on the fast node (CXL
//!   mode) or on any top-tier node (NVM).
//! * `bp_active_threshold` is decremented at a cooling without going below 0 (the code's
//!   unsigned decrement would wrap).

use super::tiering;
use super::{Action, Applied, DynamicCaps, DynamicInfo, DynamicPolicy, Observes, Sampling, Timer, Trigger, View, SIM_ONLY};
use crate::error::ModelError;
use crate::pagetable::UNTOUCHED;
use crate::report::{Report, StatDecl};
use crate::spec::{ParamDecl, ParamKind, Resolved};
use crate::topology::{Machine, MemoryKind};
use crate::units::{NodeId, PageNo, Ps};

mod hotness;
use hotness::{accesses_from_idx, footprint, get_idx};

/// Memtis's parameters, also those of Colloid's integration on it ([`colloid`]).
macro_rules! memtis_params {
    ($($more:expr),* $(,)?) => {
        &[
            ParamDecl { name: "sample_period", kind: ParamKind::UInt { min: 1, max: 1 << 30 }, default: "199", doc: "load-miss sample period, the first entry of the adaptive list (htmm.h pebs_period_list[0] 199, mempolicy.c htmm_sample_period 199); the list's other entries scale with it" },
            ParamDecl { name: "inst_sample_period", kind: ParamKind::UInt { min: 1, max: 1 << 40 }, default: "100007", doc: "store sample period (mempolicy.c htmm_inst_sample_period 100007); later entries pebs_inst_period_list scaled by it over 100003" },
            ParamDecl { name: "cpu_quota_permil", kind: ParamKind::UInt { min: 0, max: 1000 }, default: "30", doc: "ksampled's CPU target, per mille, +/- 5 (mempolicy.c ksampled_soft_cpu_quota 30); 0 keeps the period fixed" },
            ParamDecl { name: "cpucap_period_ms", kind: ParamKind::Float { min: 0.001, max: 1e9 }, default: "15000", doc: "how often ksampled measures its CPU time and steps the periods (htmm_sampler.c cpucap_period 15 s)" },
            ParamDecl { name: "sample_cost_ns", kind: ParamKind::Float { min: 0.0, max: 1e9 }, default: "1000", doc: "ksampled's time per record read (assumption: the code gives none; a pid/mm lookup, page-table walk and histogram update, about 1 us)" },
            ParamDecl { name: "cooling_period", kind: ParamKind::UInt { min: 1, max: 1 << 40 }, default: "2000000", doc: "samples between coolings, which halve every count (mempolicy.c htmm_cooling_period 2000000)" },
            ParamDecl { name: "adaptation_period", kind: ParamKind::UInt { min: 1, max: 1 << 40 }, default: "100000", doc: "samples between hot-threshold adaptations (mempolicy.c htmm_adaptation_period 100000)" },
            ParamDecl { name: "thres_hot", kind: ParamKind::UInt { min: 0, max: 15 }, default: "1", doc: "the lowest hot bin (mempolicy.c htmm_thres_hot 1)" },
            ParamDecl { name: "period_ms", kind: ParamKind::Float { min: 0.001, max: 1e7 }, default: "500", doc: "kmigraterd's pass period (mempolicy.c htmm_promotion_period_in_ms 500, htmm_demotion_period_in_ms 500)" },
            ParamDecl { name: "split", kind: ParamKind::Choice(&["on", "off"]), default: "on", doc: "huge-page splitting (mempolicy.c htmm_thres_split 2, i.e. on; 0 off)" },
            ParamDecl { name: "split_period", kind: ParamKind::UInt { min: 0, max: 40 }, default: "2", doc: "a split decision needs more samples than the footprint >> this (mempolicy.c htmm_split_period 2)" },
            ParamDecl { name: "gamma", kind: ParamKind::UInt { min: 0, max: 1000 }, default: "4", doc: "split scale, tenths (mempolicy.c htmm_gamma 4, i.e. 0.4)" },
            ParamDecl { name: "warm", kind: ParamKind::Choice(&["on", "off"]), default: "on", doc: "the warm set: pages one bin below hot are not demoted while the hot set is small (mempolicy.c htmm_nowarm 0)" },
            ParamDecl { name: "cooling_alloc_mb", kind: ParamKind::Float { min: 0.001, max: 1e12 }, default: "10240", doc: "footprint growth that forces a cooling, MB (mempolicy.c htmm_thres_cooling_alloc 256*1024*10 pages, 10 GiB)" },
            ParamDecl { name: "demotion_floor_mb", kind: ParamKind::Float { min: 0.0, max: 1e9 }, default: "50", doc: "the demotion watermark's floor, MB (htmm_migrater.c MIN_WATERMARK_LOWER_LIMIT 12800 pages; its ceiling 1000 MB and 2 % of the limit between; also what a direct demotion frees beyond the excess, 128*100 pages)" },
            ParamDecl { name: "promotion_floor_mb", kind: ParamKind::Float { min: 0.0, max: 1e9 }, default: "100", doc: "the promotion watermark's floor, MB (htmm_migrater.c MAX_WATERMARK_LOWER_LIMIT 25600 pages; its ceiling 1500 MB and 3 % of the limit between)" },
            ParamDecl { name: "migration_mbps", kind: ParamKind::Float { min: 0.0, max: 1e9 }, default: "0", doc: "cap on each kmigraterd pass, MB/s x period; 0 for none (htmm.h MAX_MIGRATION_RATE_IN_MBPS: 100 at first, 2048 and unused in the final code)" },
            ParamDecl { name: "page", kind: ParamKind::Choice(&["2m", "4k"]), default: "2m", doc: "the unit Memtis starts from: the machine's huge page (THP, HTMM_HUGEPAGE_OPT), or base pages only" },
            $($more),*
        ]
    };
}
pub(super) mod colloid;

const PARAMS: &[ParamDecl] = memtis_params!();

const OWN_STATS: &[StatDecl] = &[
    StatDecl { name: "samples", unit: "samples", doc: "PEBS records ksampled read (after the adaptive period and the lost ones)" },
    StatDecl { name: "samples_lost", unit: "samples", doc: "records ksampled could not read in time (one thread at sample_cost_ns a record)" },
    StatDecl { name: "sample_period", unit: "lines", doc: "the load-miss sample period at the run's end (ksampled's adaptation)" },
    StatDecl { name: "ksampled_cpu_permil", unit: "permil", doc: "ksampled's CPU use over the run, per mille of one core" },
    StatDecl { name: "coolings", unit: "ticks", doc: "the cooling clock at the run's end: how often counts were halved" },
    StatDecl { name: "hot_threshold", unit: "bin", doc: "the hot threshold (get_idx bin) at the run's end" },
    StatDecl { name: "splits", unit: "huge pages", doc: "2 MiB pages split into base pages (skew inside them)" },
    StatDecl { name: "joined_pages", unit: "pages", doc: "base pages first touched after their 2 MiB unit was placed or moved, moved to the unit's tier (a huge page is mapped whole)" },
];

pub(super) const INFO: DynamicInfo = DynamicInfo {
    name: "memtis",
    doc: "Memtis (SOSP'23): PEBS samples under a 3 % CPU cap, access-count histograms that size the hot set to the fast tier, cooling, kmigraterd every 500 ms, huge-page splitting by skew",
    params: PARAMS,
    caps: DynamicCaps {
        observes: Observes::AddressSamples,
        drivers: SIM_ONLY,
        why_not: "ksampled's CPU budget and period adaptation are modelled on simulated time; not yet tried on real processes",
        needs_program_calls: false,
        triggers: &[Trigger::Timer],
        stats: &[tiering::TIER_STATS, OWN_STATS],
    },
    build: |r, m, _| {
        tiering::require_tiers("memtis", m)?;
        Ok(Box::new(Memtis::new(r, m, "memtis")?))
    },
};

/// `pebs_period_list` and `pebs_inst_period_list` (htmm.h).
const PERIODS: [u64; 30] = [199, 293, 401, 499, 599, 701, 797, 907, 997, 1201, 1399, 1601, 1801, 1999, 2503, 3001, 3499, 4001, 4507, 4999, 6007, 7001, 7993, 9001, 10007, 12007, 13999, 16001, 17989, 19997];
const INST_PERIODS: [u64; 5] = [100003, 300007, 600011, 1000003, 1500003];
/// `DRAM_ACCESS_LATENCY`, `CXL_ACCESS_LATENCY`, `NVM_ACCESS_LATENCY` (htmm.h).
const DRAM_LAT: u64 = 80;
/// Huge pages split per kmigraterd pass (`deferred_split_scan_for_htmm` nr_max).
const SPLITS_PER_PASS: usize = 50;

/// A 4 KiB page's `pginfo_t` (also a huge page's subpage).
#[derive(Clone, Copy, Debug, Default)]
struct Base {
    total: u64,
    clock: u32,
    may_hot: bool,
    active: bool,
}

/// A 2 MiB page's meta page (`page[3]`).
#[derive(Clone, Copy, Debug, Default)]
struct Huge {
    total: u64,
    clock: u32,
    idx: u32,
    skew: u32,
    active: bool,
    split: bool,
    queued: bool,
    fast: bool,
    registered: bool,
    incomplete: bool,
}

/// What the memcg keeps (`struct mem_cgroup`'s htmm fields).
#[derive(Clone, Debug, Default)]
struct Memcg {
    hg: [u64; 16],
    ebp: [u64; 16],
    access_map: [u64; 21],
    active: u32,
    warm: u32,
    bp: u32,
    clock: u32,
    cooled: bool,
    nr_sampled: u64,
    nr_for_split: u64,
    dram_sampled: u64,
    prev_dram: u64,
    max_dram: u64,
    prev_max_dram: u64,
    nr_max_sampled: u64,
    sum_util: u64,
    num_util: u64,
    split_thres: u32,
    nr_split: u64,
    nr_split_tail: u64,
    need_split: bool,
    split_happen: bool,
    split_on: bool,
    nr_alloc: u64,
    need_cooling: [bool; 2],
    need_adjusting: [bool; 2],
    need_demotion: bool,
    /// The footprint at the last pass (an allocation since may set `need_demotion`).
    footprint: u64,
}

/// ksampled: the adaptive periods, the credits that thin the engine's samples to them, and the
/// CPU-time accounting.
#[derive(Clone, Debug, Default)]
struct Ksampled {
    k: usize,
    ki: usize,
    load_credit: u64,
    store_credit: u64,
    last: Ps,
    cap_start: Ps,
    cap_busy: Ps,
    cputime: u64,
    busy: Ps,
    read: u64,
    lost: u64,
}

struct Memtis {
    base_period: u64,
    inst_period: u64,
    quota: u64,
    cap_period: Ps,
    cost: Ps,
    cooling_period: u64,
    adaptation_period: u64,
    thres_hot: u32,
    interval: Ps,
    split_period: u32,
    gamma: u64,
    warm: bool,
    cooling_alloc: u64,
    demotion_floor: u64,
    promotion_floor: u64,
    pass_pages: u64,
    /// Base pages per unit (1 with `page=4k`) and `HPAGE_PMD_NR`.
    per_unit: u32,
    pmd_nr: u64,
    /// The slow tier's latency in htmm.h's units (CXL 170, NVM 270).
    captier_lat: u64,
    pages: Vec<Base>,
    units: Vec<Huge>,
    cg: Memcg,
    ks: Ksampled,
    queued: [Vec<u32>; 2],
    incomplete: Vec<u32>,
    sweep: u32,
    hands: [u32; 2],
    splits: u64,
    joined: u64,
    /// Colloid's integration (`colloid-memtis`), where built with it.
    colloid: Option<colloid::Gate>,
}

impl Memtis {
    /// Memtis of `r` on `m`, built as policy `name` (its errors name it).
    fn new(r: &Resolved, m: &Machine, name: &str) -> Result<Self, ModelError> {
        let per_unit = if r.choice("page") == "2m" {
            m.pages_per_huge().ok_or_else(|| {
                ModelError::Config(format!("dynamic policy '{name}': page=2m: machine '{}' declares no huge pages (huge_page_size); give it one or use page=4k", m.name()))
            })?
        } else {
            1
        };
        let mb = |v: f64| (v * 1048576.0 / m.raw.page_size as f64).round() as u64;
        let slow_kind = tiering::fast_and_slow(m).map_or(MemoryKind::Cxl, |(_, s)| m.raw.nodes[s.index()].memory);
        let period = r.float("period_ms");
        let thres_hot = r.uint("thres_hot") as u32;
        Ok(Memtis {
            base_period: r.uint("sample_period"),
            inst_period: r.uint("inst_sample_period"),
            quota: r.uint("cpu_quota_permil"),
            cap_period: (r.float("cpucap_period_ms") * 1e9) as Ps,
            cost: (r.float("sample_cost_ns") * 1e3) as Ps,
            cooling_period: r.uint("cooling_period"),
            adaptation_period: r.uint("adaptation_period"),
            thres_hot,
            interval: (period * 1e9) as Ps,
            split_period: r.uint("split_period") as u32,
            gamma: r.uint("gamma"),
            warm: r.choice("warm") == "on",
            cooling_alloc: mb(r.float("cooling_alloc_mb")).max(1),
            demotion_floor: mb(r.float("demotion_floor_mb")),
            promotion_floor: mb(r.float("promotion_floor_mb")),
            pass_pages: mb(r.float("migration_mbps") * period / 1000.0),
            per_unit,
            pmd_nr: u64::from(m.pages_per_huge().unwrap_or(512)),
            captier_lat: if slow_kind == MemoryKind::Pmem { 270 } else { 170 },
            pages: Vec::new(),
            units: Vec::new(),
            cg: Memcg { active: thres_hot, warm: thres_hot, bp: thres_hot, split_thres: 21, split_on: r.choice("split") == "on", ..Memcg::default() },
            ks: Ksampled::default(),
            queued: [Vec::new(), Vec::new()],
            incomplete: Vec::new(),
            sweep: 0,
            hands: [0; 2],
            splits: 0,
            joined: 0,
            colloid: None,
        })
    }

    /// `get_memcg_demotion_watermark` and `get_memcg_promotion_watermark` (htmm_migrater.c), in
    /// pages, for a limit of `max` pages; the ceilings are 20 and 15 times the floors.
    fn watermarks(&self, max: u64) -> (u64, u64) {
        let demotion = (max * 2 / 100).clamp(self.demotion_floor, self.demotion_floor * 20);
        let promotion = (max * 3 / 100).clamp(self.promotion_floor, self.promotion_floor * 15);
        (demotion, promotion)
    }

    /// Whether unit `u` is managed as base pages (split, or `page=4k`).
    fn is_base(&self, u: u32) -> bool {
        self.per_unit == 1 || self.units[u as usize].split
    }

    /// Registers the units whose first page was placed since (a fault maps a page with its
    /// `pginfo` at `2^(active + 1)` and the next clock tick, `htmm_skip_cooling`).
    fn register(&mut self, view: &View<'_>, fast: NodeId) {
        let n = view.homes.len();
        let total = (n as u32).div_ceil(self.per_unit);
        if self.pages.len() != n {
            self.pages = vec![Base::default(); n];
            self.units = vec![Huge::default(); total as usize];
            self.sweep = 0;
        }
        let factor = accesses_from_idx(self.cg.active + 1);
        let clock = self.cg.clock + 1;
        while self.sweep < total {
            let u = self.sweep;
            let (first, end) = (u * self.per_unit, ((u + 1) * self.per_unit).min(n as u32));
            let Some(home) = view.homes[first as usize..end as usize].iter().copied().find(|&h| h != UNTOUCHED) else { break };
            for p in first..end {
                self.pages[p as usize] = Base { total: factor, clock, may_hot: false, active: false };
            }
            self.units[u as usize] = Huge { total: factor, clock, fast: home == fast.0, registered: true, ..Huge::default() };
            if self.per_unit > 1 {
                self.mark_incomplete(u);
            }
            self.sweep += 1;
        }
    }

    fn mark_incomplete(&mut self, u: u32) {
        if !self.units[u as usize].incomplete {
            self.units[u as usize].incomplete = true;
            self.incomplete.push(u);
        }
    }

    /// The engine's samples since the last pass, as ksampled reads them: thinned to the
    /// current periods, then to what one thread can read in the time, each given to
    /// `update_pginfo`; then the CPU-time check that steps the periods.
    fn read_samples(&mut self, view: &View<'_>) {
        let elapsed = view.now.saturating_sub(self.ks.last);
        self.ks.last = view.now;
        let load = self.base_period * PERIODS[self.ks.k] / PERIODS[0];
        let store = self.inst_period * INST_PERIODS[self.ks.ki] / INST_PERIODS[0];
        let mut kept = Vec::with_capacity(view.samples.len() / 2);
        for s in view.samples {
            // Every line is a load miss (a write's line is fetched by a read-modify-write or
            // its RFO); a write is also a store.
            self.ks.load_credit += self.base_period;
            if self.ks.load_credit >= load {
                self.ks.load_credit -= load;
                kept.push(*s);
            }
            if s.write {
                self.ks.store_credit += self.base_period;
                if self.ks.store_credit >= store {
                    self.ks.store_credit -= store;
                    kept.push(*s);
                }
            }
        }
        // ksampled reads `can` of the `n` records in the time: the others are lost, evenly.
        let (n, can) = (kept.len() as u128, if self.cost == 0 { u128::MAX } else { u128::from(elapsed / self.cost) });
        let fast = tiering::fast_and_slow(view.machine).map(|(f, _)| f.0);
        for (i, s) in kept.into_iter().enumerate() {
            let i = i as u128;
            if can < n && (i + 1) * can / n == i * can / n {
                self.ks.lost += 1;
                continue;
            }
            self.ks.read += 1;
            let h = view.homes.get(s.page.0 as usize).copied().unwrap_or(UNTOUCHED);
            if h != UNTOUCHED && (s.page.0 as usize) < self.pages.len() && self.units[(s.page.0 / self.per_unit) as usize].registered {
                // A DRAM hit: on node 0 in `htmm_cxl_mode` (the fast node here), on a top-tier
                // node otherwise (`__update_pte_pginfo`).
                let dram = if self.captier_lat == 270 { view.machine.is_toptier(NodeId(h)) } else { Some(h) == fast };
                self.update_pginfo(s.page.0, dram, view);
            }
        }
        self.adapt_period(view.now);
    }

    /// ksampled's CPU check every `cpucap_period` (htmm_sampler.c): steps both periods one
    /// entry up above the quota + 5 ‰, one down below the quota − 5 ‰.
    fn adapt_period(&mut self, now: Ps) {
        let busy = self.ks.read * self.cost;
        let new = busy - self.ks.busy;
        self.ks.busy = busy;
        self.ks.cap_busy += new;
        if self.quota == 0 || now.saturating_sub(self.ks.cap_start) < self.cap_period {
            return;
        }
        let permil = (self.ks.cap_busy as u128 * 1000 / now.saturating_sub(self.ks.cap_start).max(1) as u128) as u64;
        self.ks.cputime = if self.ks.cputime == 0 { permil * 8 / 10 } else { permil };
        if self.ks.cputime > self.quota + 5 {
            self.ks.k = (self.ks.k + 1).min(PERIODS.len() - 1);
            self.ks.ki = (self.ks.ki + 1).min(INST_PERIODS.len() - 1);
        } else if self.ks.cputime + 5 < self.quota {
            self.ks.k = self.ks.k.saturating_sub(1);
            self.ks.ki = self.ks.ki.saturating_sub(1);
        }
        self.ks.cap_start = now;
        self.ks.cap_busy = 0;
    }
}

/// A page or a unit kmigraterd looks at: a huge unit, or a base page of a split (or 4 KiB) unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Entity {
    Huge(u32),
    Base(u32),
}

/// kmigraterd (htmm_migrater.c).
impl Memtis {
    /// Calls `f` for each entity on tier `t` (0 the fast node, 1 the others), units in order from
    /// unit `from`, one lap, until it returns false; returns the unit it stopped at (the hand).
    fn visit(&mut self, homes: &[u8], fast: NodeId, t: usize, from: u32, f: &mut dyn FnMut(&mut Memtis, Entity) -> bool) -> u32 {
        let n = self.units.len() as u32;
        for i in 0..n {
            let u = (from + i) % n;
            let h = self.units[u as usize];
            if !h.registered || h.queued {
                continue;
            }
            if !self.is_base(u) {
                if h.fast == (t == 0) && !f(self, Entity::Huge(u)) {
                    return u;
                }
                continue;
            }
            for p in u * self.per_unit..((u + 1) * self.per_unit).min(homes.len() as u32) {
                let home = homes[p as usize];
                if home != UNTOUCHED && (home == fast.0) == (t == 0) && !f(self, Entity::Base(p)) {
                    return u;
                }
            }
        }
        from
    }

    /// Base pages of an entity, and whether it is on the active list.
    fn size_active(&self, e: Entity) -> (u64, bool) {
        match e {
            Entity::Huge(u) => (u64::from(self.per_unit), self.units[u as usize].active),
            Entity::Base(p) => (1, self.pages[p as usize].active),
        }
    }

    /// Base pages on tier `t` that are on the active list and that are not.
    fn lru_sizes(&mut self, homes: &[u8], fast: NodeId, t: usize) -> (u64, u64) {
        let (mut active, mut inactive) = (0, 0);
        self.visit(homes, fast, t, 0, &mut |m, e| {
            let (n, a) = m.size_active(e);
            if a { active += n } else { inactive += n }
            true
        });
        (active, inactive)
    }

    /// Moves an entity to `to` (the fast node when `up`); returns the base pages moved.
    fn move_entity(&mut self, e: Entity, to: NodeId, up: bool, homes: &[u8], reason: &'static str, out: &mut Vec<Action>) -> u64 {
        match e {
            Entity::Base(p) => {
                out.push(Action::Migrate { page: PageNo(p), to, reason });
                1
            }
            Entity::Huge(u) => {
                let (n, unplaced) = tiering::unit_moves(homes, u * self.per_unit..((u + 1) * self.per_unit).min(homes.len() as u32), to, reason, out);
                self.units[u as usize].fast = up;
                if unplaced {
                    self.mark_incomplete(u);
                }
                n
            }
        }
    }

    /// Splits up to 50 queued huge pages of tier `t` (`deferred_split_scan_for_htmm`): each
    /// subpage becomes a base page with its count, the unit's clock and its LRU list.
    fn split_queued(&mut self, t: usize) {
        let n = self.queued[t].len().min(SPLITS_PER_PASS);
        for u in self.queued[t].drain(..n).collect::<Vec<_>>() {
            let h = &mut self.units[u as usize];
            h.queued = false;
            if h.split {
                continue;
            }
            h.split = true;
            let (clock, active) = (h.clock, h.active);
            for p in u * self.per_unit..((u + 1) * self.per_unit).min(self.pages.len() as u32) {
                let b = &mut self.pages[p as usize];
                b.clock = clock;
                b.active = active;
            }
            self.splits += 1;
            self.cg.split_happen = true;
        }
    }

    /// `cooling_node` (every page of the tier cooled and re-entered in the histograms) or
    /// `adjusting_node` (every page re-classified against the threshold); either queues the
    /// huge pages `check_split_huge_page` picks.
    fn classify(&mut self, homes: &[u8], fast: NodeId, t: usize) {
        let cooling = self.cg.need_cooling[t];
        if !cooling && !self.cg.need_adjusting[t] {
            return;
        }
        self.visit(homes, fast, t, 0, &mut |m, e| {
            match e {
                Entity::Huge(u) => {
                    if m.check_split(u) {
                        m.units[u as usize].queued = true;
                        m.queued[t].push(u);
                        if cooling {
                            m.check_huge_cooling(u);
                        }
                        return true;
                    }
                    if cooling {
                        m.check_huge_cooling(u);
                    }
                    let h = &mut m.units[u as usize];
                    h.active = h.idx >= m.cg.active;
                }
                Entity::Base(p) if cooling => match m.cooling_page(p) {
                    2 => m.pages[p as usize].active = true,
                    1 => m.pages[p as usize].active = false,
                    _ => {}
                },
                Entity::Base(p) => {
                    let b = &mut m.pages[p as usize];
                    b.active = get_idx(b.total) >= m.cg.active;
                }
            }
            true
        });
        if cooling {
            self.cg.need_cooling[t] = false;
        } else {
            self.cg.need_adjusting[t] = false;
        }
    }

    /// The fast node's thread: `need_toptier_demotion`, then `demote_node` (inactive pages
    /// that are not warm, from the hand; active ones too when a direct demotion cannot be met
    /// from the inactive list). Returns the pages demoted.
    #[allow(clippy::too_many_arguments)]
    fn demote(&mut self, homes: &[u8], (fast, slow): (NodeId, NodeId), cap: u64, used: u64, slow_active: u64, out: &mut Vec<Action>) -> u64 {
        let (min_w, max_w) = self.watermarks(cap);
        let exceeded = if self.cg.need_demotion && used + max_w > cap {
            (used + max_w).saturating_sub(cap) + self.demotion_floor
        } else if (slow_active > 0 && used + slow_active + max_w <= cap) || (slow_active == 0 && used + min_w <= cap) {
            return 0;
        } else {
            (used + slow_active + max_w).saturating_sub(cap)
        };
        let (_, evictable) = self.lru_sizes(homes, fast, 0);
        let shrink_active = exceeded > evictable && self.cg.need_demotion;
        let target = if self.pass_pages > 0 { exceeded.min(self.pass_pages) } else { exceeded };
        let mut done = 0u64;
        let (warm_on, warm) = (self.warm, self.cg.warm);
        self.hands[0] = self.visit(homes, fast, 0, self.hands[0], &mut |m, e| {
            if done >= target {
                return false;
            }
            let (_, active) = m.size_active(e);
            let idx = match e {
                Entity::Huge(u) => m.units[u as usize].idx,
                Entity::Base(p) => get_idx(m.pages[p as usize].total),
            };
            if (!active || shrink_active) && !(warm_on && idx >= warm) {
                done += m.move_entity(e, slow, false, homes, "Memtis: kmigraterd demotes a cold page", out);
            }
            true
        });
        if warm_on {
            let lower = slow_active.min(exceeded);
            if lower > 0 && done < lower {
                self.cg.warm = self.cg.active;
            }
        }
        if used.saturating_sub(done) + min_w < cap {
            self.cg.need_demotion = false;
        }
        done
    }

    /// The slow node's thread: `promotion_available`, then `promote_node` (active pages from
    /// the hand, Σ n >> p for p = 12 … 1 of them). Returns the pages promoted.
    fn promote(&mut self, homes: &[u8], fast: NodeId, cap: u64, used: u64, slow_active: u64, out: &mut Vec<Action>) -> u64 {
        let (_, max_w) = self.watermarks(cap);
        if used + max_w >= cap {
            return 0;
        }
        let n = (cap - max_w - used).min(slow_active);
        let mut budget: u64 = (1..=12).map(|p| n >> p).sum();
        if self.pass_pages > 0 {
            budget = budget.min(self.pass_pages);
        }
        let room = cap - used;
        let mut done = 0u64;
        self.hands[1] = self.visit(homes, fast, 1, self.hands[1], &mut |m, e| {
            let (size, active) = m.size_active(e);
            if done >= budget || done + size > room {
                return false;
            }
            if active {
                done += m.move_entity(e, fast, true, homes, "Memtis: kmigraterd promotes a hot page", out);
            }
            true
        });
        done
    }

    /// Pages of incomplete huge units placed since join their unit's tier. Returns the pages
    /// moved to the fast node and away from it.
    fn join(&mut self, homes: &[u8], (fast, slow): (NodeId, NodeId), out: &mut Vec<Action>) -> (u64, u64) {
        let (mut up, mut down) = (0, 0);
        let mut keep = Vec::new();
        for u in std::mem::take(&mut self.incomplete) {
            let h = self.units[u as usize];
            if h.split {
                self.units[u as usize].incomplete = false;
                continue;
            }
            let range = u * self.per_unit..((u + 1) * self.per_unit).min(homes.len() as u32);
            let (n, unplaced) = tiering::unit_moves(homes, range, if h.fast { fast } else { slow }, "Memtis: page placed since joins its huge page's tier", out);
            if h.fast { up += n } else { down += n }
            if unplaced { keep.push(u) } else { self.units[u as usize].incomplete = false }
        }
        self.incomplete = keep;
        self.joined += up + down;
        (up, down)
    }

    /// One pass of both kmigraterd threads.
    fn kmigraterd(&mut self, view: &View<'_>, (fast, slow): (NodeId, NodeId)) -> Vec<Action> {
        let mut out = Vec::new();
        let homes = view.homes;
        let cap = view.machine.capacity_pages[fast.index()];
        let (up, down) = self.join(homes, (fast, slow), &mut out);
        let mut used = (cap.saturating_sub(view.free[fast.index()]) + up).saturating_sub(down);
        // An allocation that left the fast node within its demotion watermark wakes the
        // demotion thread (mempolicy.c).
        let grown = footprint(view) > self.cg.footprint;
        self.cg.footprint = footprint(view);
        if grown && used + self.watermarks(cap).0 >= cap {
            self.cg.need_demotion = true;
        }
        for t in 0..2 {
            self.split_queued(t);
            self.classify(homes, fast, t);
        }
        let (slow_active, _) = self.lru_sizes(homes, fast, 1);
        used = used.saturating_sub(self.demote(homes, (fast, slow), cap, used, slow_active, &mut out));
        if self.colloid.is_some() {
            self.colloid_pass(homes, (fast, slow), cap, used, slow_active, &mut out);
        } else {
            self.promote(homes, fast, cap, used, slow_active, &mut out);
        }
        out
    }
}

impl DynamicPolicy for Memtis {
    fn counts(&self) -> bool {
        false
    }

    fn migration_unit(&self) -> u32 {
        self.per_unit
    }

    fn sampling(&self) -> Option<Sampling> {
        Some(Sampling::Interval(self.base_period))
    }

    fn timer_period(&self) -> Option<Ps> {
        Some(self.colloid.as_ref().map_or(self.interval, |g| g.period).max(1))
    }

    fn on_timer(&mut self, view: &View<'_>) -> Timer {
        let mut tick = Timer { background: true, ..Timer::default() };
        let Some(tiers) = tiering::fast_and_slow(view.machine) else { return tick };
        self.register(view, tiers.0);
        self.read_samples(view);
        if self.colloid_tick(view) {
            tick.actions = self.kmigraterd(view, tiers);
        }
        tick
    }

    fn report(&self, applied: &Applied, out: &mut Report) {
        tiering::report_moves(applied, out);
        out.count("samples", self.ks.read);
        out.count("samples_lost", self.ks.lost);
        out.count("sample_period", self.base_period * PERIODS[self.ks.k] / PERIODS[0]);
        out.number("ksampled_cpu_permil", (self.ks.last > 0).then(|| self.ks.busy as f64 * 1000.0 / self.ks.last as f64));
        out.count("coolings", u64::from(self.cg.clock));
        out.count("hot_threshold", u64::from(self.cg.active));
        out.count("splits", self.splits);
        out.count("joined_pages", self.joined);
        if let Some(g) = &self.colloid {
            g.report(out);
        }
    }
}

#[cfg(test)]
mod tests;
