//! NOMAD end to end on a tiered preset under fast-tier memory pressure: a pmbench set twice
//! the fast node, first touched by one thread, so that the Gaussian hot middle starts half on
//! the slow node and the fast node is full. NOMAD must promote by committed transactions
//! (each committed one a promotion), keep shadows that hold slow-tier pages, demote clean
//! shadowed pages by a remap, keep every transaction of the workload, and give the same bytes
//! twice. How its time compares with TPP's is the reproduce experiment's question
//! (`tiering-nomad`, docs/tiering.md), not this test's.

use numaplace_sim::{simulate, RunConfig, SimResult};

/// `cxl-1to32`'s fast node holds 15,360 pages; the set is twice that.
const PAGES: u64 = 30_720;

/// The scanners' periods shortened to the run's milliseconds (and their rate cap raised by as
/// much), as the tiering test does.
const SCALED: &str = "scan_delay_ms=1,scan_period_ms=1,max_scan_mb_per_s=2560000";

fn run(dynamic: Option<&str>, read_percent: u32) -> SimResult {
    let cfg = RunConfig {
        machine: "cxl-1to32".into(),
        workload: format!("pmbench:pages={PAGES},pattern=normal,read_percent={read_percent},accesses=100000,iterations=6"),
        placement: "first-touch".into(),
        init: numaplace_sim::Init::Sequential,
        threads: 4,
        dynamic: dynamic.map(str::to_string),
        ..RunConfig::default()
    };
    simulate(&cfg).unwrap_or_else(|e| panic!("{dynamic:?}: {e}"))
}

#[test]
fn nomad_promotes_by_transactions_and_keeps_shadows_that_hold_slow_pages() {
    let none = run(None, 50);
    let spec = format!("nomad:{SCALED}");
    let r = run(Some(&spec), 50);
    let again = run(Some(&spec), 50);
    assert_eq!(serde_json::to_string(&r).unwrap(), serde_json::to_string(&again).unwrap(), "not deterministic");
    assert_eq!((r.transactions, r.writes), (none.transactions, none.writes));
    let p = &r.policy;
    let (commits, promotions) = (p.count_of("tx_commits"), p.count_of("promotions"));
    assert!(commits > 100, "{p:?}");
    assert_eq!(promotions, commits, "every committed transaction is a promotion: {p:?}");
    assert!(p.count_of("tx_aborts") > 0, "half the accesses store: some copies are written: {p:?}");
    assert!(p.count_of("shadows_made") > 0 && p.count_of("shadow_demotions") > 0, "{p:?}");
    // Every page is placed once; the shadows still held take slow-tier pages beside them.
    assert_eq!(r.per_node_pages.iter().sum::<u64>(), PAGES + p.count_of("shadows_held"), "{p:?}");
    // Each move is a promotion or a demotion (a remap onto a shadow is a demotion too).
    assert_eq!(promotions + p.count_of("demotions"), r.migrations, "{p:?}");
}

#[test]
fn without_stores_no_transaction_aborts_and_no_shadow_breaks() {
    let r = run(Some(&format!("nomad:{SCALED}")), 100);
    let p = &r.policy;
    assert!(p.count_of("tx_commits") > 100, "{p:?}");
    assert_eq!((p.count_of("tx_aborts"), p.count_of("shadows_broken")), (0, 0), "{p:?}");
}
