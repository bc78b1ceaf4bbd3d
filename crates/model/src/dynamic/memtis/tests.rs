//! Memtis's decisions on the two-node test machine with its second node made CXL: a fast node
//! of 256 pages, a slow one of 512.

use super::hotness::{get_idx, get_skew_idx};
use super::*;
use crate::dynamic::fixture::Fixture;
use crate::dynamic::Sample;

/// Pages 0–3 on the fast node, 4–7 on the slow one; `huge` base pages per huge page (0: none).
fn tiered(huge: u32) -> Fixture {
    let mut f = Fixture::new(8);
    let mut text = crate::topology::tests::TWO_NODES.replace("memory_mib = 2\n", "memory_mib = 2\nmemory = \"cxl\"\n");
    if huge > 0 {
        text = text.replace("mlp = 2.0\n", &format!("mlp = 2.0\nhuge_page_size = {}\n", huge * 4096));
    }
    f.machine = Machine::from_toml_str(&text, "t2c.toml").unwrap();
    f.homes = vec![0, 0, 0, 0, 1, 1, 1, 1];
    f.free = vec![252, 508];
    f.now = 1_000_000_000;
    f
}

/// Memtis with its watermark floors at 0 (the code's 50 and 100 MB exceed this machine).
fn memtis(f: &Fixture, params: &str) -> Memtis {
    let spec = format!("memtis:demotion_floor_mb=0,promotion_floor_mb=0{}{params}", if params.is_empty() { "" } else { "," });
    Memtis::new(&crate::dynamic::resolve(&crate::Spec::parse(&spec).unwrap()).unwrap().1, &f.machine, "memtis").unwrap()
}

fn reads(pages: &[u32]) -> Vec<Sample> {
    pages.iter().map(|&p| Sample { page: PageNo(p), node: NodeId(0), write: false }).collect()
}

fn moves(t: &Timer) -> Vec<(u32, u8)> {
    t.actions.iter().map(|a| match a { Action::Migrate { page, to, .. } => (page.0, to.0), _ => (u32::MAX, 0) }).collect()
}

#[test]
fn the_bins_are_htmm_cores() {
    let idx: Vec<u32> = [0, 1, 2, 3, 511, 512, 1023, u64::MAX].iter().map(|&n| get_idx(n)).collect();
    assert_eq!(idx, vec![0, 1, 1, 2, 9, 9, 10, 15]);
    let skew: Vec<u32> = [0, 1, 3, 4, 1023, 1024, 2048, 2049, 1 << 30].iter().map(|&n| get_skew_idx(n)).collect();
    assert_eq!(skew, vec![0, 1, 2, 3, 10, 11, 12, 13, 20]);
}

/// A new page starts presumed hot (2^(threshold + 1)): its first sample activates it. The
/// promotion thread promotes Σ n >> p of n active pages, p = 12 … 1: one page of two, and none
/// of one.
#[test]
fn a_sampled_slow_page_is_promoted_and_the_priority_loop_rounds_down() {
    let f = tiered(0);
    let mut p = f.policy("memtis:page=4k,demotion_floor_mb=0,promotion_floor_mb=0");
    let one = reads(&[5]);
    let t = p.on_timer(&View { samples: &one, ..f.view() });
    assert!(t.background && t.actions.is_empty(), "one active page: 1 >> p is 0");
    let two = reads(&[6]);
    let later = Fixture { now: 2_000_000_000, ..tiered(0) };
    let t = p.on_timer(&View { samples: &two, ..later.view() });
    assert_eq!(moves(&t), vec![(5, 0)]);
}

/// A full fast node makes room for the slow node's active pages: the demotion thread demotes
/// inactive pages that are not warm. New pages are warm (their presumed count), so with the
/// warm set on nothing moves.
#[test]
fn a_full_fast_node_demotes_cold_pages_that_are_not_warm() {
    let mut f = tiered(0);
    f.free = vec![0, 508];
    let samples = reads(&[5, 6]);
    let mut warm = f.policy("memtis:page=4k,demotion_floor_mb=0,promotion_floor_mb=0");
    assert!(warm.on_timer(&View { samples: &samples, ..f.view() }).actions.is_empty());
    let mut cold = f.policy("memtis:page=4k,demotion_floor_mb=0,promotion_floor_mb=0,warm=off");
    assert_eq!(moves(&cold.on_timer(&View { samples: &samples, ..f.view() })), vec![(0, 1), (1, 1), (5, 0)]);
}

/// Every `cooling_period` samples the clock advances; a page's count is halved when it is
/// next sampled, and a page never sampled since its fault (clock + 1) is not halved.
#[test]
fn cooling_halves_counts_lazily_and_skips_new_pages() {
    let f = tiered(0);
    let mut m = memtis(&f, "page=4k,cooling_period=3,adaptation_period=1000");
    m.register(&f.view(), NodeId(0));
    assert_eq!(m.pages[4].total, 4);
    for _ in 0..3 {
        m.update_pginfo(4, false, &f.view());
    }
    assert_eq!((m.cg.clock, m.pages[4].total, m.cg.need_cooling), (1, 4 + 3 * 512, [true, true]));
    m.update_pginfo(4, false, &f.view());
    assert_eq!(m.pages[4].total, (4 + 3 * 512) / 2 + 512);
    m.classify(&f.homes, NodeId(0), 1);
    assert_eq!((m.pages[5].total, m.cg.need_cooling), (4, [true, false]));
}

/// The hot threshold is the lowest bin whose pages, with the hotter ones, fit the fast node
/// (less its promotion watermark); after a cooling it only steps down by one.
#[test]
fn the_hot_threshold_sizes_the_hot_set_to_the_fast_tier() {
    let f = tiered(0);
    let mut m = memtis(&f, "page=4k");
    m.cg.hg[10] = 100;
    m.cg.hg[9] = 100;
    m.cg.hg[8] = 100;
    m.adjust_active_threshold(&f.view());
    assert_eq!((m.cg.active, m.cg.warm), (9, 9), "200 pages fit 256, 300 do not");
    m.cg.hg = [0; 16];
    m.cg.cooled = true;
    m.adjust_active_threshold(&f.view());
    assert_eq!((m.cg.active, m.cg.warm), (8, 7), "a step down after a cooling; a small hot set leaves a warm bin");
}

/// ksampled reads what one thread can: at 1 µs a record, 1,000 of 10,000 records in 1 ms, the
/// rest lost; over its quota it steps to the next period (293).
#[test]
fn ksampled_loses_what_it_cannot_read_and_lengthens_its_period() {
    let f = tiered(0);
    let mut m = memtis(&f, "page=4k,cpucap_period_ms=1");
    let samples = reads(&[5; 10_000]);
    m.register(&f.view(), NodeId(0));
    m.read_samples(&View { samples: &samples, ..f.view() });
    assert_eq!((m.ks.read, m.ks.lost, m.ks.cputime, m.ks.k, m.ks.ki), (1000, 9000, 800, 1, 1));
    let mut out = Report::default();
    m.report(&Applied::default(), &mut out);
    assert_eq!(out.count_of("sample_period"), 293);
}

/// A huge page whose skewness reaches the split threshold is queued by kmigraterd's scan and
/// split at its next pass; its subpages are then managed one by one.
#[test]
fn a_skewed_huge_page_is_queued_then_split() {
    let f = tiered(4);
    let mut m = memtis(&f, "");
    m.register(&f.view(), NodeId(0));
    assert_eq!((m.per_unit, m.units[1].fast), (4, false));
    m.units[1].skew = 5;
    m.cg.access_map[5] = 1;
    (m.cg.split_thres, m.cg.nr_split_tail, m.cg.need_adjusting) = (6, 4, [true, true]);
    m.classify(&f.homes, NodeId(0), 1);
    assert!(m.units[1].queued && !m.units[0].queued);
    assert_eq!((m.cg.nr_split_tail, m.cg.access_map[5]), (0, 0));
    m.split_queued(1);
    assert!(m.is_base(1) && !m.is_base(0));
    assert_eq!((m.splits, m.cg.split_happen), (1, true));
}
