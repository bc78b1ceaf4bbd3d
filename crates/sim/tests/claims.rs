//! Integration tests of the simulator's claims against the seeds, and of properties every run
//! must have (determinism, conservation of traffic), across all placements.

use numaplace_model::placement::REGISTRY as PLACEMENTS;
use numaplace_sim::{simulate, Binding, Init, RunConfig, SimResult};

fn run(machine: &str, workload: &str, placement: &str, threads: usize) -> SimResult {
    let cfg = RunConfig {
        machine: machine.into(),
        workload: workload.into(),
        placement: placement.into(),
        threads,
        ..RunConfig::default()
    };
    simulate(&cfg).unwrap_or_else(|e| panic!("{machine} {workload} {placement}: {e}"))
}

#[test]
fn origin_stream_worst_case_is_slowest_and_balanced_schemes_between() {
    let t = |p: &str| run("origin2000", "stream", p, 16).total_time_ns;
    let (ft, rr, rnd, wc) = (t("first-touch"), t("round-robin"), t("random"), t("worst-case"));
    eprintln!("stream: ft {ft} rr {rr} random {rnd} wc {wc}");
    assert!(wc >= 1.5 * ft, "worst-case {wc} vs first-touch {ft}");
    for (name, v) in [("round-robin", rr), ("random", rnd)] {
        assert!(ft < v && v < wc, "{name} {v} not strictly between {ft} and {wc}");
    }
}

#[test]
fn sunfire_traverse_non_local_slowdown_matches_seed_003_range() {
    for pattern in ["sequential", "strided", "random"] {
        let w = format!("traverse:pattern={pattern}");
        let local = run("sunfire6800", &w, "first-touch", 1);
        let remote = run("sunfire6800", &w, "bind:node=1", 1);
        assert_eq!(local.config.thread_nodes, vec![0]);
        assert!(local.local_fraction > 0.999 && remote.local_fraction < 0.001);
        let ratio = remote.total_time_ns / local.total_time_ns;
        eprintln!("traverse {pattern}: {ratio:.3}");
        assert!((1.10..=1.33).contains(&ratio), "{pattern}: slowdown {ratio}");
    }
}

#[test]
fn contention_is_real_when_all_pages_sit_on_one_node() {
    // Every page on node 0 and 16 streaming threads: the time must exceed what unloaded
    // latency alone explains (the lines each thread fetches × its mean unloaded latency).
    let r = run("origin2000", "stream", "worst-case", 16);
    let m = numaplace_sim::presets::preset("origin2000").unwrap();
    let lines_per_thread = r.transactions as f64 / 16.0;
    let worst_latency = (0..8).map(|n| m.latency_ps[n * 8] as f64 / 1000.0).fold(0.0, f64::max);
    let latency_only = lines_per_thread * (worst_latency + 10.0);
    assert!(r.total_time_ns > 2.0 * latency_only, "{} vs latency-only {latency_only}", r.total_time_ns);
    assert!(r.per_node_utilisation[0] > 0.9, "node 0 utilisation {}", r.per_node_utilisation[0]);
}

#[test]
fn same_inputs_and_seed_give_identical_json_and_seeds_matter() {
    let a = run("origin2000", "random:accesses=2000", "random", 16).to_json();
    let b = run("origin2000", "random:accesses=2000", "random", 16).to_json();
    assert_eq!(a, b);
    let mut cfg = RunConfig { workload: "random:accesses=2000".into(), placement: "random".into(), ..RunConfig::default() };
    cfg.seed = 1;
    let c = simulate(&cfg).unwrap().to_json();
    assert_ne!(a, c);
}

#[test]
fn every_placement_conserves_traffic_and_places_every_page() {
    for info in PLACEMENTS.iter() {
        for init in [Init::Parallel, Init::Sequential, Init::None] {
            let cfg = RunConfig {
                machine: "cxl-tiered".into(),
                workload: "stream:pages=64,iterations=2".into(),
                placement: info.name.into(),
                threads: 8,
                binding: Binding::Compact,
                init,
                ..RunConfig::default()
            };
            let r = simulate(&cfg).unwrap();
            let lines_per_page = 4096 / 64;
            assert_eq!(r.transactions, 3 * 64 * lines_per_page * 2, "{} {init:?}", info.name);
            assert_eq!(r.per_node_transactions.iter().sum::<u64>(), r.transactions);
            assert_eq!(r.per_node_pages.iter().sum::<u64>(), 3 * 64);
            assert_eq!(r.writes, 64 * lines_per_page * 2);
            assert_eq!(r.per_iteration_time_ns.len(), 2);
            let sum: f64 = r.per_iteration_time_ns.iter().sum();
            assert!((sum - r.total_time_ns).abs() < 1e-6);
            assert_eq!(r.init_time_ns == 0.0, init == Init::None);
        }
    }
}

#[test]
fn first_touch_with_parallel_init_is_all_local_for_stream() {
    let r = run("origin2000", "stream", "first-touch", 16);
    assert_eq!(r.local_fraction, 1.0);
    let wc = run("origin2000", "stream", "worst-case", 16);
    // 2 of 16 threads sit on node 0.
    assert!((wc.local_fraction - 2.0 / 16.0).abs() < 1e-9, "{}", wc.local_fraction);
    assert_eq!(wc.per_node_pages[0], 3 * 4096);
}

#[test]
fn full_node_falls_back_and_is_reported() {
    // 3 × 40000 pages of 16 KiB bound to node 0 (65536 pages of room) must spill.
    let r = run("origin2000", "stream:pages=40000,iterations=1", "bind:node=0", 16);
    assert_eq!(r.per_node_pages[0], 65536);
    assert_eq!(r.fallback_pages, 120_000 - 65_536);
}
