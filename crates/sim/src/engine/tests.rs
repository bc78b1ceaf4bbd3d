//! The page engine's unit tests.

use super::*;

/// One node, two CPUs, fast memory, free migration: the small machine of several tests.
fn two_cpu_machine() -> Machine {
    small_machine("two", 2, 1000.0)
}

/// One node of 64 MiB with `cpus` CPUs and the given bandwidth: 100 ns, MLP 1, 4 KiB
/// pages, 64-byte lines, free migration.
fn small_machine(name: &str, cpus: u32, bandwidth_gbps: f64) -> Machine {
    let text = format!(
        "name = \"{name}\"\npage_size = 4096\nline_size = 64\nmlp = 1.0\nlatency_ns = [[100.0]]\n\
         [[nodes]]\ncpus = {cpus}\nmemory_mib = 64\nbandwidth_gbps = {bandwidth_gbps}\n\
         [migration]\nfixed_ns = 0.0\ncopy_gbps = 1.0\ntlb_shootdown_ns_per_cpu = 0.0\n"
    );
    Machine::from_toml_str(&text, name).unwrap()
}
use crate::binding::{bind, Binding};
use crate::workload::ThreadWork;
use numaplace_model::{dynamic, placement};
use numaplace_model::{PageNo, Spec};

/// One node, L = 100 ns, S = 64 B / 1.28 GB/s = 50 ns, MLP 1: the case `docs/timing.md`
/// works by hand.
fn one_node() -> Machine {
    small_machine("one", 1, 1.28)
}

#[test]
fn hand_worked_single_thread_epoch() {
    // 1000 dependent line reads by one thread. The thread's own traffic loads the
    // controller from the first line (the engine predicts the epoch's mix before it
    // starts): W = 25 (√5 − 1) ns = 30.902 ns, so each line costs 130.902 ns and the
    // epoch 130 901.7 ns, whatever the quantum.
    let m = one_node();
    let threads = bind(&m, 1, Binding::Spread, false).unwrap();
    let (place, _) = placement::build(&Spec::parse("first-touch").unwrap(), &m, 0).unwrap();
    let regions = vec![Region { name: "a".into(), first_page: 0, pages: 1 }];
    let mut engine = Engine::new(&m, &threads, regions, place, 20_000_000);
    let epoch = Epoch {
        iteration: 1,
        phase: "walk",
        threads: vec![ThreadWork { txns: vec![Txn::read(0, 1); 1000], mlp: 1.0, think_ns: 0.0 }],
    };
    engine.run_epoch(&epoch);
    let got = engine.epochs[0].time_ps as f64 / 1000.0;
    // The fixed point is solved to 1e-3 of the service time (0.05 ns) per line.
    assert!((got - 130_901.7).abs() <= 1000.0 * 0.05, "epoch took {got} ns");
    assert_eq!(engine.timed.lines, vec![1000]);
}

#[test]
fn a_run_past_the_time_bound_stops_instead_of_wrapping() {
    // The slowest machine the bounds allow (1 ms a miss) and 300 000 records of 65 535
    // lines: 1.97e19 ps, more than a u64 holds. The clock used to wrap to a small total;
    // now the epoch stops at the bound and says so.
    let slow = "name = \"slow\"\npage_size = 4096\nline_size = 64\nmlp = 1.0\nlatency_ns = [[1e6]]\n\
                [[nodes]]\ncpus = 1\nmemory_mib = 64\nbandwidth_gbps = 1e6\n\
                [migration]\nfixed_ns = 0.0\ncopy_gbps = 1.0\ntlb_shootdown_ns_per_cpu = 0.0\n";
    let m = Machine::from_toml_str(slow, "slow").unwrap();
    let threads = bind(&m, 1, Binding::Spread, false).unwrap();
    let (place, _) = placement::build(&Spec::parse("first-touch").unwrap(), &m, 0).unwrap();
    let regions = vec![Region { name: "a".into(), first_page: 0, pages: 1 }];
    let mut engine = Engine::new(&m, &threads, regions, place, 1_000_000_000_000_000);
    let epoch = Epoch {
        iteration: 1,
        phase: "long",
        threads: vec![ThreadWork { txns: vec![Txn::read(0, u16::MAX); 300_000], mlp: 1.0, think_ns: 0.0 }],
    };
    engine.run_epoch(&epoch);
    assert!(engine.overran, "the bound was passed");
    assert!(engine.now() >= MAX_TIME_PS && engine.now() < MAX_TIME_PS + (1 << 60), "{}", engine.now());
    assert_eq!(engine.epochs[0].time_ps, engine.now());
    // A further epoch ends at once rather than looping at the saturated clock.
    engine.run_epoch(&epoch);
    assert!(engine.now() < MAX_TIME_PS + (1 << 61), "{}", engine.now());
    // A normal run is not flagged.
    assert!(!{
        let m = one_node();
        let threads = bind(&m, 1, Binding::Spread, false).unwrap();
        let (place, _) = placement::build(&Spec::parse("first-touch").unwrap(), &m, 0).unwrap();
        let mut e = Engine::new(&m, &threads, vec![Region { name: "a".into(), first_page: 0, pages: 1 }], place, 20_000_000);
        e.run_epoch(&Epoch { iteration: 1, phase: "p", threads: vec![ThreadWork { txns: vec![Txn::read(0, 1); 10], mlp: 1.0, think_ns: 0.0 }] });
        e.overran
    });
}

#[test]
fn max_rate_sampling_never_records_more_than_the_rate() {
    // Seed 003 §4.1: the software records at most R samples per second. Two threads on
    // one node, R = 1e5/s, quanta of 100 us: 10 samples a quantum, 5 per running thread.
    // Thread 0 issues 20 000 dependent lines (about 2 ms); thread 1 a handful. However
    // the interval prediction fares, thread 0 gets at most its share of each quantum.
    let m2 = two_cpu_machine();
    let threads = bind(&m2, 2, Binding::Spread, false).unwrap();
    let (place, _) = placement::build(&Spec::parse("first-touch").unwrap(), &m2, 0).unwrap();
    let regions = vec![Region { name: "a".into(), first_page: 0, pages: 2 }];
    let mut engine = Engine::new(&m2, &threads, regions, place, 100_000_000);
    let spec = Spec::parse("sampled:sampler=per-thread,mode=max-rate,max_rate=100000,period_ms=1000").unwrap();
    let (policy, _) = numaplace_model::dynamic::build(&spec, &m2, 2).unwrap();
    engine.set_dynamic(policy, &dynamic::REGISTRY.get("sampled").unwrap().caps);
    let epoch = Epoch {
        iteration: 1,
        phase: "p",
        threads: vec![
            ThreadWork { txns: vec![Txn::read(0, 1); 20_000], mlp: 1.0, think_ns: 0.0 },
            ThreadWork { txns: vec![Txn::read(1, 1); 3], mlp: 1.0, think_ns: 0.0 },
        ],
    };
    engine.run_epoch(&epoch);
    let quanta = engine.now().div_ceil(100_000_000);
    let sm = engine.dynamic.as_ref().unwrap().sampler.as_ref().unwrap();
    let (lines, samples) = (sm.threads[0].lines, sm.threads[0].samples);
    assert_eq!(lines, 20_000);
    // 5 a quantum while both run, up to 10 once thread 1 is done.
    assert!(samples > 0 && samples <= quanta * 10, "{samples} samples in {quanta} quanta");
    assert!(sm.threads[1].samples <= 3);
}

#[test]
fn the_bus_sampler_samples_eight_in_every_n_transactions_of_all_threads() {
    // Seed 003 §2.2, Table 1: one sampler over the bus, 8 consecutive transactions every
    // 1024: 0.78 % of all transactions, each thread in proportion to what it issues (thread 0
    // issues three times thread 1's lines over the same time).
    let m2 = two_cpu_machine();
    let threads = bind(&m2, 2, Binding::Spread, false).unwrap();
    let (place, _) = placement::build(&Spec::parse("first-touch").unwrap(), &m2, 0).unwrap();
    let regions = vec![Region { name: "a".into(), first_page: 0, pages: 2 }];
    let mut engine = Engine::new(&m2, &threads, regions, place, 100_000_000);
    let (policy, _) = numaplace_model::dynamic::build(&Spec::parse("sampled:period_ms=1000").unwrap(), &m2, 2).unwrap();
    engine.set_dynamic(policy, &dynamic::REGISTRY.get("sampled").unwrap().caps);
    let epoch = Epoch {
        iteration: 1,
        phase: "p",
        threads: vec![
            ThreadWork { txns: vec![Txn::read(0, 3); 40_000], mlp: 1.0, think_ns: 0.0 },
            ThreadWork { txns: vec![Txn::read(1, 1); 40_000], mlp: 1.0, think_ns: 0.0 },
        ],
    };
    engine.run_epoch(&epoch);
    let d = engine.dynamic.as_ref().unwrap();
    let sm = d.sampler.as_ref().unwrap();
    assert!(sm.bus.is_some(), "the bus sampler is sampled's default");
    let fraction = d.sampled_fraction().unwrap();
    assert!((fraction - 8.0 / 1024.0).abs() < 0.0005, "{fraction}");
    let share = sm.threads[0].samples as f64 / (sm.threads[0].samples + sm.threads[1].samples) as f64;
    let issued = sm.threads[0].lines as f64 / (sm.threads[0].lines + sm.threads[1].lines) as f64;
    assert!((share - issued).abs() < 0.05, "sampled share {share}, issued {issued}");
}

#[test]
fn the_hot_loop_follows_the_capabilities() {
    // Every registry entry, and wildfire without replication, which observes counters only,
    // on a tiered machine (the tiering policies refuse others).
    let m2 = crate::presets::preset("cxl-tiered").unwrap();
    let cases = [
        ("kernel", HotLoop::Counted),
        ("upmlib-recrep", HotLoop::Counted),
        ("sampled", HotLoop::Sampled),
        ("autonuma", HotLoop::Faulting),
        ("wildfire", HotLoop::Replicated),
        ("wildfire:replication=off", HotLoop::Counted),
        ("upmlib", HotLoop::Counted),
        ("adaptive", HotLoop::Counted),
        ("numab-tiering", HotLoop::Faulting),
        ("colloid-tpp", HotLoop::Faulting),
        ("tpp", HotLoop::Faulting),
        ("hemem:page=4k", HotLoop::AddressSampled),
        ("memtis", HotLoop::AddressSampled),
        ("colloid-memtis", HotLoop::AddressSampled),
        ("colloid:page=4k", HotLoop::AddressSampled),
        ("nomad", HotLoop::Faulting),
    ];
    for name in dynamic::REGISTRY.names() {
        assert!(cases.iter().any(|&(text, _)| text.split(':').next() == Some(name)), "no case for '{name}'");
    }
    for (text, want) in cases {
        let spec = Spec::parse(text).unwrap();
        let (info, _) = dynamic::resolve(&spec).unwrap();
        let (policy, _) = dynamic::build(&spec, &m2, 2).unwrap();
        let d = Dynamic::new(policy, &info.caps, &m2, 4, 2);
        assert_eq!(d.hot, want, "{text}");
        assert_eq!(d.sampler.is_some(), matches!(want, HotLoop::Sampled | HotLoop::AddressSampled), "{text}");
        // Counters only for a policy that reads them; referenced bits only for one that
        // reclaims by them.
        assert_eq!(d.counters.row(PageNo(0)).is_empty(), !(info.caps.observes != dynamic::Observes::HintingFaults && want != HotLoop::AddressSampled), "{text}");
        assert_eq!(d.referenced.len(), if matches!(text, "numab-tiering" | "colloid-tpp" | "tpp" | "nomad") { 4 } else { 0 }, "{text}");
        assert_eq!(d.written.len(), if text == "nomad" { 4 } else { 0 }, "{text}");
        assert_eq!(d.replica_writes.len(), if want == HotLoop::Replicated { 4 } else { 0 }, "{text}");
    }
}

#[test]
fn a_rebound_thread_leaves_its_pages_behind() {
    // Thread 0 first-touches page 0 on node 0, then moves to node 1 and reads it again:
    // the page stays on node 0 and the lines are remote. A second thread then joins.
    let m = crate::presets::preset("origin2000").unwrap();
    let threads = bind(&m, 1, Binding::Spread, false).unwrap();
    let (place, _) = placement::build(&Spec::parse("first-touch").unwrap(), &m, 0).unwrap();
    let regions = vec![Region { name: "a".into(), first_page: 0, pages: 2 }];
    let mut engine = Engine::new(&m, &threads, regions, place, 1_000_000);
    let one = |pages: &[u32]| Epoch {
        iteration: 1,
        phase: "p",
        threads: pages.iter().map(|&p| ThreadWork { txns: vec![Txn::read(p, 4)], mlp: 1.0, think_ns: 0.0 }).collect(),
    };
    engine.run_epoch(&one(&[0]));
    let on = |node: u8| crate::binding::Placed { cpu: m.cpu_node.iter().position(|n| n.0 == node).map(|c| numaplace_model::CpuId(c as u16)).unwrap(), node: NodeId(node), share: 1 };
    engine.rebind(&[on(1)]);
    assert_eq!(engine.thread_nodes(), &[1]);
    engine.run_epoch(&one(&[0]));
    let nn = m.nodes();
    assert_eq!(engine.page_table().home(PageNo(0)), Some(NodeId(0)));
    assert_eq!((engine.timed.lines[0], engine.timed.lines[nn]), (4, 4), "local first, then remote from node 1");
    engine.rebind(&[on(1), on(2)]);
    engine.run_epoch(&one(&[0, 1]));
    assert_eq!(engine.page_table().home(PageNo(1)), Some(NodeId(2)), "the new thread's first touch");
}

#[test]
fn barrier_waits_for_the_slowest_thread() {
    let m2 = two_cpu_machine();
    let threads = bind(&m2, 2, Binding::Spread, false).unwrap();
    let (place, _) = placement::build(&Spec::parse("first-touch").unwrap(), &m2, 0).unwrap();
    let regions = vec![Region { name: "a".into(), first_page: 0, pages: 1 }];
    let mut engine = Engine::new(&m2, &threads, regions, place, 1_000_000);
    let epoch = Epoch {
        iteration: 1,
        phase: "p",
        threads: vec![
            ThreadWork { txns: vec![Txn::read(0, 10)], mlp: 1.0, think_ns: 0.0 },
            ThreadWork { txns: vec![Txn::read(0, 30)], mlp: 1.0, think_ns: 0.0 },
        ],
    };
    engine.run_epoch(&epoch);
    // Thread 1's 30 lines at ~100 ns (a 0.064 ns service time queues almost nothing).
    let t = engine.epochs[0].time_ps as f64 / 1000.0;
    assert!((3000.0..3010.0).contains(&t), "{t}");
    assert_eq!(engine.now(), engine.epochs[0].time_ps);
}

/// The bandwidth guard as it was written before the quantum's rows were listed sparsely: every
/// (thread, node) of the dense rows visited.
fn dense_guard(q_lines: &[u64], clocks: &mut [Ps], service_ps: &[f64], qstart: Ps) -> Vec<u64> {
    let nn = service_ps.len();
    let mut node_lines = vec![0u64; nn];
    for row in q_lines.chunks_exact(nn) {
        for (n, &l) in node_lines.iter_mut().zip(row) {
            *n += l;
        }
    }
    for (h, &s) in service_ps.iter().enumerate() {
        if node_lines[h] == 0 {
            continue;
        }
        let floor = qstart.saturating_add((node_lines[h] as f64 * s).ceil() as Ps);
        for (row, clock) in q_lines.chunks_exact(nn).zip(clocks.iter_mut()) {
            if row[h] > 0 && *clock < floor {
                *clock = floor;
            }
        }
    }
    node_lines
}

proptest::proptest! {
    /// Listing each thread's touched nodes and guarding only those gives the dense guard's
    /// clocks and per-node lines exactly, whatever the rows (mostly zeros, as quanta are) and
    /// whatever the last quantum left in the scratch; it lists the nodes that served lines.
    #[test]
    fn the_sparse_bandwidth_guard_is_the_dense_one(
        nn in 1usize..70,
        nt in 1usize..20,
        seed in proptest::prelude::any::<u64>(),
        qstart in 0u64..1_000_000,
    ) {
        let mut rng = numaplace_model::rng::SplitMix64::new(seed);
        let q_lines: Vec<u64> = (0..nt * nn).map(|_| if rng.below(4) == 0 { rng.below(1000) } else { 0 }).collect();
        let service_ps: Vec<f64> = (0..nn).map(|_| rng.below(200) as f64 + 0.25).collect();
        let clocks0: Vec<Ps> = (0..nt).map(|_| qstart + rng.below(2_000_000)).collect();
        let mut dense = clocks0.clone();
        let want = dense_guard(&q_lines, &mut dense, &service_ps, qstart);
        let mut touched = vec![0u32; nt * nn];
        let counts: Vec<u32> = (0..nt).map(|t| touched_nodes(&q_lines[t * nn..(t + 1) * nn], &mut touched[t * nn..(t + 1) * nn])).collect();
        for t in 0..nt {
            let listed = &touched[t * nn..t * nn + counts[t] as usize];
            let nonzero: Vec<u32> = (0..nn as u32).filter(|&h| q_lines[t * nn + h as usize] != 0).collect();
            proptest::prop_assert_eq!(listed, nonzero.as_slice());
        }
        // The scratch as a previous quantum left it: its lines at the nodes it used.
        let (mut node_lines, mut floor, mut used) = (vec![0; nn], vec![0; nn], Vec::new());
        let before: Vec<u64> = (0..nt * nn).map(|_| if rng.below(3) == 0 { rng.below(1000) } else { 0 }).collect();
        let mut before_touched = vec![0u32; nt * nn];
        let before_counts: Vec<u32> = (0..nt).map(|t| touched_nodes(&before[t * nn..(t + 1) * nn], &mut before_touched[t * nn..(t + 1) * nn])).collect();
        bandwidth_guard(&before, &before_touched, &before_counts, &mut vec![0; nt], &service_ps, 0, &mut node_lines, &mut floor, &mut used);
        let mut sparse = clocks0;
        bandwidth_guard(&q_lines, &touched, &counts, &mut sparse, &service_ps, qstart, &mut node_lines, &mut floor, &mut used);
        proptest::prop_assert_eq!(sparse, dense);
        used.sort_unstable();
        let serving: Vec<u32> = (0..nn as u32).filter(|&h| want[h as usize] != 0).collect();
        proptest::prop_assert_eq!(used, serving);
        proptest::prop_assert_eq!(node_lines, want);
    }

    /// Trying the last turn's nodes first lists the same nodes as scanning the row, whichever
    /// nodes the last list held (all, some or none of this turn's).
    #[test]
    fn the_last_nodes_tried_first_give_the_scan(nn in 1usize..70, seed in proptest::prelude::any::<u64>()) {
        let mut rng = numaplace_model::rng::SplitMix64::new(seed);
        let row: Vec<u64> = (0..nn).map(|_| if rng.below(4) == 0 { rng.below(1000) } else { 0 }).collect();
        let mut scanned = vec![0u32; nn];
        let k = touched_nodes(&row, &mut scanned) as usize;
        let mut tried = vec![0u32; nn];
        let last: Vec<u32> = (0..nn as u32).filter(|_| rng.below(3) == 0).collect();
        tried[..last.len()].copy_from_slice(&last);
        let got = touched_nodes_from(&row, &mut tried, last.len() as u32, row.iter().sum()) as usize;
        proptest::prop_assert_eq!(&tried[..got], &scanned[..k]);
    }
}
