//! Dynamic policies on hand-made traces: each test states the accesses and the decision the
//! policy's rule implies.

use numaplace_model::report::StatValue;
use numaplace_sim::{simulate, RunConfig, SimResult};

/// Runs a text trace (2 threads: thread 0 on node 0, thread 1 on node 1 of the Origin2000)
/// with region `a` over pages 0-1.

/// The number a policy reported as `name` in its record.
fn number(r: &SimResult, name: &str) -> f64 {
    match r.policy.get(name) {
        Some(StatValue::Number(Some(v))) => *v,
        other => panic!("{name}: {other:?}"),
    }
}

fn run(body: &str, dynamic: &str) -> SimResult {
    try_run("region a 0 2\n", body, dynamic).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs a text trace with the given region lines; the simulator's answer as it is.
fn try_run(regions: &str, body: &str, dynamic: &str) -> Result<SimResult, numaplace_sim::SimError> {
    let text = format!("numaplace-trace 1\npage_size 16384\nline_size 128\nthreads 2\n{regions}{body}");
    // One directory per call (tests run in parallel), removed when `path` is dropped.
    let path = numaplace_outfile::TempPath::new("dynamic-test", "t.txt").unwrap();
    std::fs::write(&path, text).unwrap();
    let cfg = RunConfig {
        machine: "origin2000".into(),
        threads: 2,
        trace: Some(path.display().to_string()),
        // "none" as the request reads it (`request::resolve`): no policy.
        dynamic: (dynamic != "none").then(|| dynamic.into()),
        ..RunConfig::default()
    };
    simulate(&cfg)
}

/// Thread 0 first touches page 0 (home: node 0).
const INIT: &str = "epoch 0 init\n0 0 0 128\n0 1 0 128\nend\n";

#[test]
fn kernel_migrates_when_a_remote_count_crosses_the_threshold() {
    // Node 1 reads page 0 1100 times; node 0 never does after init (counters start at 0 in
    // the timed part... and init's 128 writes count for node 0). The threshold is half the
    // 11-bit range (1024): 1100 − 128 = 972 stays below, 1200 − 128 = 1072 crosses.
    let below = run(&format!("{INIT}epoch 1 a\n1 0 1100 0\nend\n"), "kernel");
    assert_eq!((below.interrupts, below.migrations), (0, 0));
    let above = run(&format!("{INIT}epoch 1 a\n1 0 1200 0\nend\n"), "kernel");
    assert_eq!((above.interrupts, above.migrations), (1, 1));
    assert_eq!(above.per_node_pages[1], 1, "page 0 now lives on node 1");
    assert!(above.policy_overhead_ns > 0.0);
}

#[test]
fn kernel_interrupt_pays_the_trap_then_the_page() {
    // The Origin2000 preset: a 25 us trap, then the page's 5 us + 16 KiB at 0.546 GB/s
    // + a TLB shootdown on the run's 2 CPUs at 5 us each; a refused interrupt pays only the trap.
    let moved = run(&format!("{INIT}epoch 1 a\n1 0 1200 0\nend\n"), "kernel");
    let page = 5_000.0 + 16384.0 / 0.546 + 2.0 * 5_000.0;
    assert!((moved.policy_overhead_ns - (25_000.0 + page)).abs() < 1.0, "{}", moved.policy_overhead_ns);
    let body = format!("{INIT}epoch 1 a\n1 0 1200 0\nend\nepoch 2 b\n0 0 2000 0\nend\n");
    let refused = run(&body, "kernel:page_interval_ms=1000000");
    assert_eq!((refused.interrupts, refused.migrations), (2, 1));
    assert!((refused.policy_overhead_ns - (2.0 * 25_000.0 + page)).abs() < 1.0, "{}", refused.policy_overhead_ns);
}

#[test]
fn kernel_filter_refuses_a_second_move_within_the_page_interval() {
    // Page 0 moves to node 1, then node 0 hammers it: the interrupt fires, but the page's
    // rate limit (1000 s) refuses the move back.
    let body = format!("{INIT}epoch 1 a\n1 0 1200 0\nend\nepoch 2 b\n0 0 2000 0\nend\n");
    let r = run(&body, "kernel:page_interval_ms=1000000");
    assert_eq!((r.interrupts, r.migrations), (2, 1));
    let free = run(&body, "kernel:page_interval_ms=0");
    assert_eq!(free.migrations, 2, "without the filter the page moves back");
}

#[test]
fn upmlib_migrates_after_iteration_one_then_deactivates() {
    // Iterations 1 and 2: node 1 reads page 0 (home node 0). The first invocation moves it;
    // the second finds nothing to move and deactivates; node 0's heavy use in iteration 3 is
    // then never acted on.
    let body = format!("{INIT}epoch 1 a\n1 0 300 0\nend\nepoch 2 a\n1 0 300 0\nend\nepoch 3 a\n0 0 2000 0\nend\n");
    let r = run(&body, "upmlib");
    assert_eq!(r.migrations, 1);
    assert_eq!(r.per_node_pages, vec![1, 1, 0, 0, 0, 0, 0, 0]);
    assert_eq!(r.policy.get("first_invocation_fraction"), Some(&StatValue::Number(Some(1.0))));
    assert_eq!(r.per_iteration_local_fraction, vec![0.0, 1.0, 0.0]);
}

#[test]
fn upmlib_freezes_a_page_that_bounces_between_two_nodes() {
    // Iteration 1: node 1 dominates page 0 → moves 0 → 1. Iteration 2: node 0 dominates → a
    // move back 1 → 0 in the next invocation is a bounce: the page is frozen instead.
    // (Iteration 3 follows, so that the end of iteration 2 is a decision point.)
    let body = format!("{INIT}epoch 1 a\n1 0 300 0\nend\nepoch 2 a\n0 0 300 0\nend\nepoch 3 a\n0 0 1 0\nend\n");
    let r = run(&body, "upmlib");
    assert_eq!((r.migrations, r.policy.count_of("frozen_pages")), (1, 1));
}

#[test]
fn nothing_moves_at_the_barrier_after_the_last_iteration() {
    // One timed iteration in which node 1 alone uses page 0 (home node 0): the barrier after
    // it is the run's last, so upmlib is not asked there. The run costs what it costs without
    // a policy, and the result says the barrier was withheld.
    let one = format!("{INIT}epoch 1 a\n1 0 300 0\nend\n");
    let r = run(&one, "upmlib");
    assert_eq!((r.migrations, r.policy_decision_points, r.policy_decisions_acted), (0, 0, 0));
    assert!(r.policy_final_barrier_withheld);
    let none = try_run("region a 0 2\n", &one, "none").unwrap();
    assert_eq!(r.total_time_ns, none.total_time_ns, "nothing charged after the last iteration");
    assert!(!none.policy_final_barrier_withheld);
    // Two iterations: the barrier between them is a decision point, acted on.
    let two = format!("{INIT}epoch 1 a\n1 0 300 0\nend\nepoch 2 a\n1 0 300 0\nend\n");
    let r = run(&two, "upmlib");
    assert_eq!((r.migrations, r.policy_decision_points, r.policy_decisions_acted), (1, 1, 1));
    assert_eq!(r.per_iteration_local_fraction, vec![0.0, 1.0]);
}

#[test]
fn decision_points_count_what_the_policy_was_asked_and_what_it_did() {
    // upmlib over three iterations: asked at the ends of iterations 1 and 2, acting at the
    // first only (it then deactivates).
    let body = format!("{INIT}epoch 1 a\n1 0 300 0\nend\nepoch 2 a\n1 0 300 0\nend\nepoch 3 a\n1 0 300 0\nend\n");
    let r = run(&body, "upmlib");
    assert_eq!((r.policy_decision_points, r.policy_decisions_acted), (2, 1));
    // The kernel policy decides at counter interrupts: one raised, one acted on.
    let k = run(&format!("{INIT}epoch 1 a\n1 0 1200 0\nend\n"), "kernel");
    assert_eq!((k.interrupts, k.policy_decision_points, k.policy_decisions_acted), (1, 1, 1));
    // Linux's NUMA balancing waits a second before its first scan: in a run of microseconds
    // it is never asked (the barrier between the iterations is not its decision point).
    let idle = run(&format!("{INIT}epoch 1 a\n1 0 300 0\nend\nepoch 2 a\n1 0 300 0\nend\n"), "autonuma");
    assert_eq!((idle.policy_decision_points, idle.policy_decisions_acted, idle.migrations), (0, 0, 0));
}

#[test]
fn upmlib_competitive_criterion_needs_the_ratio() {
    // Node 1 reads 200 lines, node 0 150: 200 < 2 × 150, no move; with ratio 1.2 it moves
    // (at the end of iteration 1, which iteration 2 follows).
    let body = format!("{INIT}epoch 1 a\n1 0 200 0\n0 0 150 0\nend\nepoch 2 a\n0 0 1 0\nend\n");
    assert_eq!(run(&body, "upmlib").migrations, 0);
    assert_eq!(run(&body, "upmlib:threshold=1.2").migrations, 1);
}

#[test]
fn unknown_policy_and_bad_parameter_are_explained() {
    let cfg = RunConfig { workload: "stream:pages=8".into(), dynamic: Some("autonumb".into()), ..RunConfig::default() };
    let e = simulate(&cfg).unwrap_err().to_string();
    assert!(e.starts_with("unknown dynamic policy 'autonumb' (known: "), "{e}");
    for name in numaplace_model::dynamic::REGISTRY.iter().map(|p| p.name) {
        assert!(e.contains(name), "{name} missing: {e}");
    }
    let cfg = RunConfig { workload: "stream:pages=8".into(), dynamic: Some("kernel:threshold=2".into()), ..RunConfig::default() };
    let e = simulate(&cfg).unwrap_err().to_string();
    assert!(e.contains("threshold=2: expected a number in [0, 1]"), "{e}");
}

#[test]
fn migration_recovers_worst_case_stream() {
    // Seed 000 §2–3 in miniature: every page on node 0 and 16 streaming threads; both
    // engines move pages to their users, UPMlib after one iteration, the kernel once a page's
    // remote count has grown past half the 11-bit range (128 lines per sweep: the ninth
    // sweep; without aging, which would keep the counts below it). 60 sweeps amortise the
    // 152 µs per migration (a 6-sweep run would not: UPMlib's moves then cost more than
    // they save, which is the policy working as designed).
    let base = RunConfig { workload: "stream:pages=256,iterations=60".into(), ..RunConfig::default() };
    let t = |placement: &str, dynamic: Option<&str>| {
        simulate(&RunConfig { placement: placement.into(), dynamic: dynamic.map(str::to_string), ..base.clone() }).unwrap()
    };
    let ft = t("first-touch", None);
    let wc = t("worst-case", None);
    let up = t("worst-case", Some("upmlib"));
    let k = t("worst-case", Some("kernel:aging_ms=0"));
    assert!(up.total_time_ns < wc.total_time_ns && k.total_time_ns < wc.total_time_ns);
    assert!(up.per_iteration_local_fraction[5] > 0.9, "{:?}", up.per_iteration_local_fraction);
    // What is left over first-touch is the first (worst-case) sweep and the migrations' cost.
    let overhead = up.policy_overhead_ns + wc.per_iteration_time_ns[0];
    assert!((up.total_time_ns - ft.total_time_ns - overhead).abs() < 0.05 * ft.total_time_ns);
    assert!(up.total_time_ns < 0.5 * wc.total_time_ns, "{} vs {}", up.total_time_ns, wc.total_time_ns);
    assert!(number(&up, "first_invocation_fraction") >= 0.75);
}

#[test]
fn record_replay_moves_before_the_phase_and_undoes_after_it() {
    // Each iteration: phase x (node 0 reads page 0), phase z (node 1 reads page 0 heavily).
    // Iteration 2 records z in isolation; iterations 3 and 4 move page 0 to node 1 before z
    // and back after it: 2 moves each, the page ending where it started.
    let it = |i: u32| format!("epoch {i} x\n0 0 100 0\nend\nepoch {i} z\n1 0 400 0\nend\n");
    let body = format!("{INIT}{}{}{}{}", it(1), it(2), it(3), it(4));
    let r = run(&body, "upmlib-recrep:phase=z,distribute=off");
    assert_eq!(r.migrations, 4);
    assert_eq!(r.per_node_pages[0], 2, "page 0 is back on node 0");
    let lf = &r.per_iteration_local_fraction;
    assert!(lf[2] > lf[1] + 0.5, "{lf:?}");
    // n = 0 would move nothing, so it is refused (issue 16), and so is a phase the run never
    // had (at its end: a workload yields its phases only as it runs).
    let e = try_run("region a 0 2\n", &body, "upmlib-recrep:phase=z,n=0,distribute=off").err().expect("n=0 refused");
    assert_eq!(e.to_string(), "dynamic policy 'upmlib-recrep': n=0: expected an integer >= 1");
    let e = try_run("region a 0 2\n", &body, "upmlib-recrep:phase=y,distribute=off").err().expect("an unknown phase refused");
    assert_eq!(e.to_string(), "dynamic policy 'upmlib-recrep': phase=y: the workload has no such phase (its phases: init, x, z)");
    // With upmlib's distribution after iteration 1 (seed 000 Figure 3, the default), page 0
    // moves to node 1, its busiest user (400 > 2 x 100), and z has nothing left to replay.
    let r = run(&body, "upmlib-recrep:phase=z");
    assert_eq!((r.migrations, r.per_node_pages[1]), (1, 1), "{:?}", r.per_node_pages);
}

#[test]
fn sampled_policy_samples_every_nth_line_and_moves_to_the_most_sampled_node() {
    // Node 1 reads page 0 (home node 0) 2000 lines per epoch for 40 epochs: with a sample
    // every 100 lines, node 1 collects 20 samples per epoch, and at the first period (1 ms)
    // page 0 moves to node 1. The distance is 0 with one sampled thread... and two threads
    // reading equally are sampled equally.
    let epochs: String = (1..=40).map(|i| format!("epoch {i} a\n1 0 2000 0\n0 1 2000 0\nend\n")).collect();
    let r = run(&format!("{INIT}{epochs}"), "sampled:interval=100,period_ms=1");
    assert_eq!(r.migrations, 1);
    assert_eq!(r.per_node_pages[1], 1);
    let Some(StatValue::Numbers(Some(d))) = r.policy.get("sampling_distance").cloned() else { panic!("no sampling distance") };
    assert_eq!(d.len(), 2);
    assert!(d.iter().all(|&x| x < 0.01), "{d:?}");
}

#[test]
fn sampled_policy_freezes_a_page_that_moves_in_three_consecutive_intervals() {
    // Page 0 is read by node 1 in odd epochs and node 0 in even ones, one epoch a period: it
    // wants to move every interval. The permanent freeze stops it for good after the third
    // consecutive move; the temporary one (seed 003 §3 as written, the default) holds it for
    // the three intervals after each move, so it moves about every fourth interval.
    let epochs: String = (1..=12)
        .map(|i| format!("epoch {i} a\n{} 0 4000 0\nend\n", if i % 2 == 1 { 1 } else { 0 }))
        .collect();
    let r = run(&format!("{INIT}{epochs}"), "sampled:interval=10,period_ms=0.5,freeze_mode=permanent");
    assert_eq!(r.policy.count_of("frozen_pages"), 1);
    assert!(r.migrations >= 3 && r.migrations <= 4, "{}", r.migrations);
    let held = run(&format!("{INIT}{epochs}"), "sampled:interval=10,period_ms=0.5");
    assert_eq!(held.policy.count_of("frozen_pages"), 1, "held back at least once");
    // Unfrozen it would follow its reader every interval; held, it moves in one interval of
    // four at most (2 moves here).
    assert!((2..=4).contains(&held.migrations), "{}", held.migrations);
}

#[test]
fn sampled_auto_period_waits_for_enough_samples_per_page() {
    // period_ms=auto: an interval ends once its samples reach samples_per_page per placed page
    // (2 pages here). Node 1 reads page 0 (home 0) 20 000 lines, sampled every 10th: 2 000
    // samples. At 50 per page (100 in all) the engine acts and moves page 0 to node 1; at
    // 2 000 per page (4 000) the run ends first and nothing moves.
    let epochs: String = (1..=20).map(|i| format!("epoch {i} a\n1 0 1000 0\nend\n")).collect();
    let body = format!("{INIT}{epochs}");
    let enough = run(&body, "sampled:interval=10,samples_per_page=50");
    assert_eq!(enough.migrations, 1);
    assert_eq!(enough.per_node_pages[1], 1);
    let starved = run(&body, "sampled:interval=10,samples_per_page=2000");
    assert_eq!(starved.migrations, 0);
}

#[test]
fn max_rate_sampling_favours_the_slow_thread() {
    // Thread 0 issues lines 10× slower (think time) than thread 1: under a tight sample budget
    // thread 0 is sampled fully and thread 1 only up to its share, so thread 0's share of the
    // samples far exceeds its share of the lines (seed 003 §4.1); interval sampling does not.
    // That is the per-thread sampler's max-rate model; the bus sampler's bursts every 45.6
    // transactions of the merged stream sample each thread in proportion.
    let epochs: String = (1..=20)
        .map(|i| format!("epoch {i} a\nthink 0 5000\n0 0 200 0\n1 1 20000 0\nend\n"))
        .collect();
    let body = format!("{INIT}{epochs}");
    let biased = run(&body, "sampled:sampler=per-thread,mode=max-rate,max_rate=200000,period_ms=1000");
    let fair = run(&body, "sampled:interval=64,period_ms=1000");
    let bus = run(&body, "sampled:mode=max-rate,period_ms=1000");
    let mean = |r: &SimResult| number(r, "sampling_distance_mean");
    assert!(mean(&biased) > 0.3, "max-rate distance {}", mean(&biased));
    assert!(mean(&fair) < 0.05, "interval distance {}", mean(&fair));
    assert!(mean(&bus) < 0.05, "bus max-rate distance {}", mean(&bus));
}

#[test]
fn autonuma_migrates_on_the_second_fault_from_the_same_node() {
    // Node 1 reads page 0 (home 0) steadily; the scanner revokes every page each 1 ms. The
    // first hinting fault from node 1 only records it; the second migrates the page.
    let epochs: String = (1..=30).map(|i| format!("epoch {i} a\n1 0 2000 0\nend\n")).collect();
    let r = run(&format!("{INIT}{epochs}"), "autonuma:scan_period_min_ms=1,scan_period_max_ms=1,max_scan_mb_per_s=2560000");
    assert_eq!(r.migrations, 1);
    assert_eq!(r.per_node_pages[1], 1);
    assert!(r.hinting_faults >= 2, "{}", r.hinting_faults);
    assert!(r.policy_overhead_ns >= r.hinting_faults as f64 * 1000.0);
}

#[test]
fn autonuma_scans_less_often_when_faults_are_local() {
    // All accesses local: the period doubles after each scan up to the maximum, so a run
    // with a long maximum takes fewer faults than one pinned at the minimum.
    let epochs: String = (1..=60).map(|i| format!("epoch {i} a\n0 0 2000 0\n1 1 2000 0\nend\n")).collect();
    let body = format!("epoch 0 init\n0 0 0 128\n1 1 0 128\nend\n{epochs}");
    let pinned = run(&body, "autonuma:scan_period_min_ms=1,scan_period_max_ms=1,max_scan_mb_per_s=2560000");
    let adaptive = run(&body, "autonuma:scan_period_min_ms=1,scan_period_max_ms=16,max_scan_mb_per_s=2560000");
    assert_eq!(pinned.migrations + adaptive.migrations, 0);
    assert!(adaptive.hinting_faults * 2 < pinned.hinting_faults, "{} vs {}", adaptive.hinting_faults, pinned.hinting_faults);
}

#[test]
fn wildfire_replica_serves_reads_and_writes_collapse_it() {
    // Node 1 reads page 0 (home 0) past the threshold in the first interval: replication
    // only gives node 1 a replica, and its later reads are local.
    let reads: String = (1..=8).map(|i| format!("epoch {i} a\n1 0 3000 0\nend\n")).collect();
    let r = run(&format!("{INIT}{reads}"), "wildfire:migration=off,period_ms=0.5");
    assert_eq!((r.replications, r.migrations), (1, 0));
    assert_eq!(r.replica_pages, 1);
    assert!(r.per_iteration_local_fraction[7] > 0.99, "{:?}", r.per_iteration_local_fraction);
    // Then node 0 writes the page heavily and node 1 only reads a little: node 0's writes
    // invalidate the replica's lines faster than node 1 reads them (every read is a coherence
    // miss), so the page collapses back to one copy, for good.
    let writes: String = (9..=16).map(|i| format!("epoch {i} b\n0 0 0 3000\n1 0 100 0\nend\n")).collect();
    let w = run(&format!("{INIT}{reads}{writes}"), "wildfire:migration=off,period_ms=0.5");
    assert_eq!((w.replications, w.collapses, w.replica_pages), (1, 1, 0));
}

#[test]
fn wildfire_replica_node_writes_the_lines_it_holds_locally() {
    // Seed 001 §2: a replica is a "shadow" page kept coherent line by line. Node 1 reads and
    // writes page 0 (home 0) and nobody else touches it: once replicated, node 1 holds every
    // line alone, so its reads and its writes are local (only the first writes after the
    // copy take ownership from the home), and nothing invalidates the replica.
    let rw: String = (1..=8).map(|i| format!("epoch {i} a\n1 0 3000 3000\nend\n")).collect();
    let r = run(&format!("{INIT}{rw}"), "wildfire:migration=off,period_ms=0.5");
    assert_eq!((r.replications, r.collapses, r.replica_pages), (1, 0, 1));
    assert!(r.per_iteration_local_fraction[7] > 0.999, "{:?}", r.per_iteration_local_fraction);
}

#[test]
fn wildfire_home_writes_invalidate_only_the_written_lines_of_a_replica() {
    // Node 1 reads page 0 (home 0) 3000 lines an epoch; node 0 writes 64 of its 128 lines
    // each epoch. Once replicated, each epoch costs 64 invalidations (node 0's writes reach
    // the replica) and 64 coherence misses (node 1 refetches them); the other 2936 of node
    // 1's reads hit the replica. 64 lost lines per 3000 served: the replica stays.
    let mix: String = (1..=8).map(|i| format!("epoch {i} a\n0 0 0 64\n1 0 3000 0\nend\n")).collect();
    let r = run(&format!("{INIT}{mix}"), "wildfire:migration=off,period_ms=0.5");
    assert_eq!((r.replications, r.collapses), (1, 0));
    let expect = 2936.0 / 3064.0;
    let got = r.per_iteration_local_fraction[7];
    assert!((got - expect).abs() < 1e-9, "local fraction {got}, expected {expect}");
}

#[test]
fn wildfire_with_both_mechanisms_migrates_first() {
    // Node 1 reads page 0 past the threshold: with migration and replication on, migration
    // is tried first, so the page moves to node 1 (and needs no replica); with both off,
    // nothing happens.
    let one: String = (1..=4).map(|i| format!("epoch {i} a\n1 0 3000 0\nend\n")).collect();
    let two: String = (5..=8).map(|i| format!("epoch {i} a\n1 0 100 0\nend\n")).collect();
    let r = run(&format!("{INIT}{one}{two}"), "wildfire:period_ms=0.5");
    assert_eq!(r.replications, 0);
    assert_eq!(r.migrations, 1);
    assert_eq!(r.per_node_pages[1], 1);
    let off = run(&format!("{INIT}{one}"), "wildfire:migration=off,replication=off");
    assert_eq!((off.migrations, off.replications), (0, 0));
}

#[test]
fn upmlib_monitors_only_the_named_hot_regions() {
    // Node 1 reads page 0 (region a) and page 2 (region b, homed on node 0 as well); with
    // regions=b only page 2 may move.
    let text_init = "epoch 0 init\n0 0 0 128\n0 2 0 128\nend\n";
    let body = format!("{text_init}epoch 1 x\n1 0 300 0\n1 2 300 0\nend\nepoch 2 x\n1 0 300 0\nend\n");
    let two_regions = |dynamic: &str| try_run("region a 0 2\nregion b 2 2\n", &body, dynamic);
    assert_eq!(two_regions("upmlib").unwrap().migrations, 2);
    assert_eq!(two_regions("upmlib:regions=b").unwrap().migrations, 1);
    assert_eq!(two_regions("upmlib:regions=a+b").unwrap().migrations, 2);
    let e = two_regions("upmlib:regions=c").unwrap_err().to_string();
    assert_eq!(e, "dynamic policy 'upmlib': regions: no region 'c' (the workload has: a, b)");
}

/// Thirty iterations: page 0 (first touched on node 0) is read 1024 lines an iteration from
/// node 1 only; page 1 is read as much, from node 1 in odd iterations and from node 0 (its
/// home) in even ones, as a page whose accessor changes every iteration.
fn stable_and_changing() -> String {
    let mut body = String::from(INIT);
    for it in 1..=30 {
        body += &format!("epoch {it} work\n");
        let changing = if it % 2 == 1 { 1 } else { 0 };
        for _ in 0..8 {
            body += &format!("1 0 128 0\n{changing} 1 128 0\n");
        }
        body += "end\n";
    }
    body
}

#[test]
fn cost_aware_moves_the_stable_page_and_leaves_the_one_whose_accessor_changes() {
    let body = stable_and_changing();
    // The seed's UPMlib moves both after iteration 1; the changing page, asked back after
    // iteration 2, is frozen where it went (on node 1, away from half its accesses).
    let seed = run(&body, "upmlib");
    assert_eq!((seed.migrations, seed.policy.count_of("frozen_pages")), (2, 1));
    assert_eq!(seed.per_node_pages[..2], [0, 2]);
    for spec in ["upmlib:cost_aware=on", "adaptive"] {
        let r = run(&body, spec);
        // Page 0 ends on node 1, page 1 stays home on node 0: one migration.
        assert_eq!(r.migrations, 1, "{spec}");
        assert_eq!(r.per_node_pages[..2], [1, 1], "{spec}");
        assert!(r.policy.count_of("refused_unstable") > 0, "{spec}: the changing page was never refused as unstable");
        assert!(r.policy_final_barrier_withheld, "{spec}");
        assert!(r.total_time_ns < seed.total_time_ns, "{spec}: no faster than the seed's UPMlib");
    }
}
