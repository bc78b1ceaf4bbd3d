//! The tiering policies end to end on a tiered preset: GUPS whose whole table starts on the
//! slow (CXL) node, so its hot set must be found and promoted. Each policy must promote pages
//! into the fast node, keep every page and every transaction, report its moves as the engine
//! counted them, and give the same bytes twice. How much faster each run is, is the
//! reproduce section's question (docs/tiering.md), not this test's.

use numaplace_model::report::StatValue;
use numaplace_sim::{simulate, RunConfig, SimResult};

/// 60,000 pages (the fast node of `cxl-1to32` holds 15,360), a hot set of 10 % that fits it,
/// all bound to the slow node; the policies' periods shortened to the run's milliseconds
/// (and the scanners' rate cap raised by as much).
fn run(dynamic: Option<&str>) -> SimResult {
    let cfg = RunConfig {
        machine: "cxl-1to32".into(),
        workload: "gups:pages=60000,hot_fraction=0.1,updates=50000,iterations=6".into(),
        placement: "bind:node=1".into(),
        threads: 4,
        dynamic: dynamic.map(str::to_string),
        ..RunConfig::default()
    };
    simulate(&cfg).unwrap_or_else(|e| panic!("{dynamic:?}: {e}"))
}

#[test]
fn every_tiering_policy_promotes_a_hot_set_that_starts_on_the_slow_tier() {
    let none = run(None);
    assert_eq!(none.per_node_pages, vec![0, 60000]);
    assert_eq!(none.local_fraction, 0.0);
    for spec in ["numab-tiering:scan_delay_ms=1,scan_period_ms=1,max_scan_mb_per_s=2560000", "tpp:scan_delay_ms=1,scan_period_ms=1,max_scan_mb_per_s=2560000", "hemem:sample_period=997,interval_ms=1"] {
        let r = run(Some(spec));
        let again = run(Some(spec));
        assert_eq!(serde_json::to_string(&r).unwrap(), serde_json::to_string(&again).unwrap(), "{spec}: not deterministic");
        assert_eq!(r.per_node_pages.iter().sum::<u64>(), 60000, "{spec}");
        assert_eq!((r.transactions, r.writes), (none.transactions, none.writes), "{spec}");
        let promotions = r.policy.count_of("promotions");
        let demotions = r.policy.count_of("demotions");
        assert!(promotions > 1000, "{spec}: {:?}", r.policy);
        // Every move is between the tiers here: a promotion or a demotion.
        assert_eq!(promotions + demotions, r.migrations, "{spec}");
        assert_eq!(r.per_node_pages[0], promotions - demotions, "{spec}");
        // A good share of the lines now come from the fast node, against none without a
        // policy (HeMem, sampling one access in 997, finds the hot set last: about 0.43 here).
        assert!(r.local_fraction > 0.25, "{spec}: local {}", r.local_fraction);
    }
}

/// HeMem moves 2 MiB units: its background thread pays the move's fixed cost (2 µs on the
/// `cxl-1to32` preset) once per unit and the copy (4 KiB at 10 GB/s, 409.6 ns) per base page,
/// plus one TLB shoot-down per batch.
#[test]
fn hemem_pays_a_huge_pages_fixed_cost_once_per_unit() {
    let r = run(Some("hemem:sample_period=997,interval_ms=1"));
    let migrations = r.migrations as f64;
    let Some(StatValue::Number(Some(background_ms))) = r.policy.get("background_ms") else { panic!("{:?}", r.policy) };
    let background_ns = background_ms * 1e6;
    let copy_ns = 4096.0 / 10.0;
    assert!(background_ns >= migrations * copy_ns, "{background_ns} ns for {migrations} pages");
    // Charged per base page, the fixed cost alone would be migrations × 2,000 ns.
    assert!(background_ns < migrations * (copy_ns + 2000.0 / 16.0), "{background_ns} ns for {migrations} pages");
}

/// Colloid on HeMem (SOSP'24) where the fast tier is the loaded one: `cxl-1to8` with its DRAM
/// cut to 20 GB/s (a stand-in for the paper's antagonist on the default tier), 16 GUPS threads
/// first-touching their tables (about 0.2 s simulated: 13 passes of 10 ms). The fast tier's loaded latency exceeds the slow tier's; Colloid
/// moves hot pages out of it until they meet, and the run is faster than without a policy.
/// On the unmodified preset (the fast tier idle) it keeps the hot set where it is.
#[test]
fn colloid_moves_hot_pages_off_a_loaded_fast_tier_and_keeps_them_on_an_idle_one() {
    let text = include_str!("../../../../machines/cxl-1to8.toml");
    let loaded = text.replacen("bandwidth_gbps = 250.0", "bandwidth_gbps = 20.0", 1);
    assert_ne!(loaded, text);
    let run = |machine: &str, dynamic: Option<&str>| {
        let m = numaplace_model::Machine::from_toml_str(machine, "cxl-1to8.toml").unwrap();
        let cfg = RunConfig {
            workload: "gups:pages=100000,hot_fraction=0.1,updates=1000000,iterations=4".into(),
            placement: "first-touch".into(),
            threads: 16,
            dynamic: dynamic.map(str::to_string),
            ..RunConfig::default()
        };
        numaplace_sim::simulate_on(&m, &cfg).unwrap()
    };
    let (none, colloid) = (run(&loaded, None), run(&loaded, Some("colloid")));
    let latency = |r: &SimResult, name: &str| match r.policy.get(name) {
        Some(StatValue::Number(Some(v))) => *v,
        other => panic!("{name}: {other:?}"),
    };
    assert!(colloid.policy.count_of("fast_slower_passes") > 0, "{:?}", colloid.policy);
    assert!(latency(&colloid, "fast_latency_ns") > latency(&colloid, "slow_latency_ns") * 0.8, "{:?}", colloid.policy);
    assert!(colloid.local_fraction < none.local_fraction - 0.05, "{} vs {}", colloid.local_fraction, none.local_fraction);
    // Measured: 128.9 ms against 197.7 ms, the tiers' latencies 246 and 256 ns.
    assert!(colloid.total_time_ns < none.total_time_ns * 0.9, "{} vs {}", colloid.total_time_ns, none.total_time_ns);
    let idle = run(text, Some("colloid"));
    assert_eq!(idle.policy.count_of("fast_slower_passes"), 0, "{:?}", idle.policy);
    assert!(idle.local_fraction > 0.85, "{}", idle.local_fraction);
}

/// A memory antagonist (`:antagonist_gbps=`) is background traffic at the DRAM controller: the
/// same run, its pages on DRAM, waits longer there and takes longer, the more bandwidth the
/// antagonist takes, while the CXL node it does not use is unchanged; and each run reports the
/// mean queueing delay its lines saw per node.
#[test]
fn an_antagonist_loads_the_dram_controller_and_shows_in_the_queueing_delay() {
    let run = |machine: &str| {
        let cfg = RunConfig {
            machine: machine.into(),
            workload: "gups:pages=20000,hot_fraction=0.1,updates=50000,iterations=3".into(),
            placement: "bind:node=0".into(),
            threads: 16,
            ..RunConfig::default()
        };
        simulate(&cfg).unwrap_or_else(|e| panic!("{machine}: {e}"))
    };
    let quiet = run("cxl-1to8");
    let half = run("cxl-1to8:antagonist_gbps=125");
    let heavy = run("cxl-1to8:antagonist_gbps=237.5");
    for r in [&quiet, &half, &heavy] {
        assert_eq!(r.per_node_queue_ns.len(), 2);
        assert_eq!(r.per_node_queue_ns[1], 0.0, "no line served by CXL: {:?}", r.per_node_queue_ns);
        assert_eq!(r.transactions, quiet.transactions);
    }
    let q: Vec<f64> = [&quiet, &half, &heavy].iter().map(|r| r.per_node_queue_ns[0]).collect();
    assert!(q[0] >= 0.0 && q[0] < q[1] && q[1] < q[2], "DRAM queueing: {q:?}");
    assert!(quiet.total_time_ns < half.total_time_ns && half.total_time_ns < heavy.total_time_ns);
    assert_eq!(heavy.config.machine, "cxl-1to8");
}
