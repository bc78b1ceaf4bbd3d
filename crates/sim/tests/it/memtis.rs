//! Memtis end to end on a tiered preset: GUPS whose whole table starts on the slow (CXL) node.
//! Memtis must find the hot set and promote it, keep every page and transaction, report its
//! moves as the engine counted them, and give the same bytes twice; ksampled must stay within
//! what one thread can read.

use numaplace_model::report::StatValue;
use numaplace_sim::{simulate, RunConfig, SimResult};

/// 60,000 pages (the fast node of `cxl-1to32` holds 15,360, 60 MiB), a hot set of 10 % that
/// fits it, all bound to the slow node (as `tiering.rs` runs the other tiering policies). Base
/// pages: the policy's `page=4k`.
fn run(dynamic: Option<&str>) -> SimResult {
    let workload = "gups:pages=60000,hot_fraction=0.1,updates=50000,iterations=6";
    let cfg = RunConfig { machine: "cxl-1to32".into(), workload: workload.into(), placement: "bind:node=1".into(), threads: 4, dynamic: dynamic.map(str::to_string), ..RunConfig::default() };
    simulate(&cfg).unwrap_or_else(|e| panic!("{dynamic:?}: {e}"))
}

/// Memtis's periods shortened to the run's milliseconds, and its watermark floors (50 and
/// 100 MB, more than this fast node) scaled down by as much.
const SCALED: &str = "memtis:page=4k,period_ms=1,cpucap_period_ms=30,cooling_period=20000,adaptation_period=1000,demotion_floor_mb=0.5,promotion_floor_mb=1";

fn number(r: &SimResult, name: &str) -> f64 {
    match r.policy.get(name) {
        Some(StatValue::Number(Some(v))) => *v,
        other => panic!("{name}: {other:?}"),
    }
}

#[test]
fn memtis_promotes_a_hot_set_that_starts_on_the_slow_tier() {
    let none = run(None);
    let r = run(Some(SCALED));
    let again = run(Some(SCALED));
    assert_eq!(serde_json::to_string(&r).unwrap(), serde_json::to_string(&again).unwrap(), "not deterministic");
    assert_eq!(r.per_node_pages.iter().sum::<u64>(), 60000);
    assert_eq!((r.transactions, r.writes), (none.transactions, none.writes));
    let (promotions, demotions) = (r.policy.count_of("promotions"), r.policy.count_of("demotions"));
    assert!(promotions > 1000, "{:?}", r.policy);
    assert_eq!(promotions + demotions, r.migrations);
    assert_eq!(r.per_node_pages[0], promotions - demotions);
    assert!(r.local_fraction > 0.25, "local {}", r.local_fraction);
    assert!(r.total_time_ns < none.total_time_ns, "{} vs {}", r.total_time_ns, none.total_time_ns);
    // ksampled reads at most one core's worth of records, and the rest are lost.
    assert!(number(&r, "ksampled_cpu_permil") <= 1000.0 + 1e-9, "{:?}", r.policy);
    assert!(r.policy.count_of("samples") > 0);
}

/// With the code's watermark floors (a 100 MB promotion watermark) a 60 MiB fast node never
/// has room to promote into: Memtis does nothing, as the code would.
#[test]
fn the_codes_watermarks_leave_no_room_on_a_small_fast_tier() {
    let r = run(Some("memtis:page=4k,period_ms=1"));
    assert_eq!(r.policy.count_of("promotions"), 0, "{:?}", r.policy);
}
