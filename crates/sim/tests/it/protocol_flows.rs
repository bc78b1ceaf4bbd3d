//! Unit tests of the protocol engine's message flows (docs/protocol.md), each on a small
//! scripted program with the directory invariants checked after every event.

use numaplace_model::placement;
use numaplace_model::{Machine, Spec};
use numaplace_sim::protocol::params::small_machine;
use numaplace_sim::protocol::program::LineOp::{self, *};
use numaplace_sim::protocol::script::Script;
use numaplace_sim::protocol::{run, BufferMode, InterfaceModel, ProtocolOptions, ProtocolParams, ProtocolResult, ProxyMode};

const PAGE: u64 = 8192;
const LINE: u64 = 64;

fn params(m: &Machine) -> ProtocolParams {
    // Seed 004's three proxy clusters, or one a node on a smaller machine (a cluster needs a node).
    ProtocolParams { proxy_clusters: 3.min(m.nodes() as u32), ..ProtocolParams::default() }
}

fn go(m: &Machine, p: &ProtocolParams, threads: Vec<Vec<LineOp>>, place: &str, opts: ProtocolOptions, proxy_marked: bool) -> ProtocolResult {
    let mut prog = Script::new("script", Script::one_region(16 * PAGE, proxy_marked), threads);
    let (pl, _) = placement::build(&Spec::parse(place).unwrap(), m, 1).unwrap();
    run(m, p, &mut prog, pl.as_ref(), place, &opts).unwrap_or_else(|e| panic!("{e}"))
}

fn checked() -> ProtocolOptions {
    ProtocolOptions { invariants: true, ..ProtocolOptions::default() }
}

fn msg(r: &ProtocolResult, k: &str) -> u64 {
    r.messages_by_type[&format!("msg_{k}")]
}

/// Line `i` of page `pg`.
fn a(pg: u64, i: u64) -> u64 {
    pg * PAGE + i * LINE
}

#[test]
fn read_miss_clean_at_home() {
    let m = small_machine(2);
    // Thread 0 homes page 0 (first touch) by writing it; after a barrier thread 1 reads it.
    let r = go(&m, &params(&m), vec![vec![Write(a(0, 0)), Barrier], vec![Barrier, Read(a(0, 0))]], "first-touch", checked(), false);
    // Thread 1's read: a fwd_read to the owner (0), data to 1, sharing write-back to home 0 -
    // here home and owner are the same node, so the forward and write-back are local.
    assert_eq!(msg(&r, "read_req"), 1);
    assert_eq!(msg(&r, "data"), 1);
    assert_eq!(r.remote_reads, 1);
    assert!(r.remote_read_mean_cycles >= 15.0, "{}", r.remote_read_mean_cycles);
}

#[test]
fn read_of_a_clean_line_is_two_messages() {
    let m = small_machine(2);
    // Thread 1 first touches page 0 with a read: home 1, clean. Thread 0 then reads it.
    let r = go(&m, &params(&m), vec![vec![Barrier, Read(a(0, 0))], vec![Read(a(0, 0)), Barrier]], "first-touch", checked(), false);
    assert_eq!(r.messages - msg(&r, "barrier_arrive") - msg(&r, "barrier_release"), 2);
    assert_eq!((msg(&r, "read_req"), msg(&r, "data")), (1, 1));
}

#[test]
fn read_of_a_dirty_remote_line_is_forwarded() {
    let m = small_machine(3);
    // Page 0 homed on 0; node 1 writes the line (owner); node 2 reads it.
    let t0 = vec![Read(a(0, 0)), Barrier, Barrier];
    let t1 = vec![Barrier, Write(a(0, 0)), Barrier];
    let t2 = vec![Barrier, Barrier, Read(a(0, 0))];
    let r = go(&m, &params(&m), vec![t0, t1, t2], "first-touch", checked(), false);
    assert_eq!(msg(&r, "fwd_read"), 1);
    assert_eq!(msg(&r, "sharing_wb"), 1);
    // Node 1's write invalidated node 0's copy (home-local: the inval is a local message).
    assert_eq!(msg(&r, "write_req"), 1);
    assert_eq!(msg(&r, "data_ex"), 1);
}

#[test]
fn write_miss_walks_the_sharing_list() {
    let m = small_machine(5);
    // Page 0 homed on 0. Nodes 1..3 read the line (list 3 -> 2 -> 1), node 4 writes it.
    let mut th = Vec::new();
    th.push(vec![Read(a(0, 0)), Barrier, Barrier]);
    for _ in 1..4 {
        th.push(vec![Barrier, Read(a(0, 0)), Barrier]);
    }
    th.push(vec![Barrier, Barrier, Write(a(0, 0))]);
    let r = go(&m, &params(&m), th, "first-touch", checked(), false);
    // List 3 -> 2 -> 1 -> 0: the walk is home 0 -> 3 -> 2 -> 1 -> 0, four network hops; the
    // tail is the home itself, so its acknowledgement is local.
    assert_eq!(msg(&r, "inval"), 4, "one inval per hop of the list");
    assert_eq!(msg(&r, "inval_ack"), 0);
    assert_eq!(msg(&r, "data_ex"), 1);
}

#[test]
fn upgrade_needs_no_data() {
    let m = small_machine(2);
    let r = go(&m, &params(&m), vec![vec![Read(a(0, 0)), Barrier], vec![Barrier, Read(a(0, 0)), Write(a(0, 0))]], "first-touch", checked(), false);
    assert_eq!(msg(&r, "upgrade_req"), 1);
    assert_eq!(msg(&r, "upgrade_ack") + msg(&r, "data_ex"), 1);
}

#[test]
fn dirty_victims_are_written_back_and_shared_ones_replaced() {
    let m = small_machine(2);
    let mut p = params(&m);
    p.flc_bytes = 64;
    p.slc_bytes = 128; // two frames: lines 0 and 2 collide
    // Page 0 homed on 1; node 0 writes line 0 then reads line 2 (same frame): write-back.
    // Then node 0 reads line 4 (frame 0 again) evicting shared line 2: replace.
    let t0 = vec![Barrier, Write(a(0, 0)), Read(a(0, 2)), Read(a(0, 4)), Read(a(0, 0))];
    let t1 = vec![Read(a(0, 1)), Barrier];
    let r = go(&m, &p, vec![t0, t1], "first-touch", checked(), false);
    assert_eq!(msg(&r, "write_back"), 1);
    assert_eq!(msg(&r, "wb_ack"), 1);
    assert!(msg(&r, "replace") >= 1);
}

#[test]
fn sharer_leaving_invalidates_the_lower_list() {
    let m = small_machine(4);
    let mut p = params(&m);
    p.flc_bytes = 64;
    p.slc_bytes = 128;
    // Page 0 homed on 0 (its read). Node 1 reads line 0, then node 2, then node 3: list
    // 3 -> 2 -> 1 -> 0. Node 2 then reads line 2 (same frame): it leaves, and 1 and 0 below
    // it are invalidated (Stanford DD); node 1's re-read misses again.
    let t0 = vec![Read(a(0, 0)), Barrier, Barrier, Barrier, Barrier, Barrier];
    let t1 = vec![Barrier, Read(a(0, 0)), Barrier, Barrier, Barrier, Barrier, Compute(5000), Read(a(0, 0))];
    let t2 = vec![Barrier, Barrier, Read(a(0, 0)), Barrier, Barrier, Read(a(0, 2)), Barrier];
    let t3 = vec![Barrier, Barrier, Barrier, Read(a(0, 0)), Barrier, Barrier];
    let r = go(&m, &p, vec![t0, t1, t2, t3], "first-touch", checked(), false);
    assert_eq!(msg(&r, "replace"), 1);
    assert_eq!(r.slc_misses, 6, "five first reads and node 1's re-read");
}

fn msg_opts(proxies: ProxyMode, limit: Option<u32>) -> ProtocolOptions {
    ProtocolOptions {
        proxies,
        buffers: if limit.is_some() { BufferMode::Finite } else { BufferMode::Infinite },
        buffer_limit: limit,
        invariants: true,
        ..ProtocolOptions::default()
    }
}

#[test]
fn a_pending_proxy_chain_serves_the_first_client_last() {
    let m = small_machine(8);
    let p = ProtocolParams { proxy_clusters: 2, ..params(&m) };
    // Clusters {0..3} and {4..7}; line 0's proxy for the first cluster is node 0. Node 7 homes
    // page 0 with a clean read; then nodes 1, 2, 3 read line 0, a few cycles apart, while node
    // 0's fetch from the home is outstanding.
    let mut th: Vec<Vec<LineOp>> = (0..8).map(|_| vec![Barrier, Barrier]).collect();
    th[7] = vec![Read(a(0, 0)), Barrier, Barrier];
    for (i, t) in [1usize, 2, 3].into_iter().enumerate() {
        th[t] = vec![Barrier, Compute(3 * i as u32), Read(a(0, 0)), Barrier];
    }
    let r = go(&m, &p, th, "first-touch", msg_opts(ProxyMode::Basic, None), true);
    assert_eq!(r.proxy_reads, 3);
    assert_eq!(r.requests_combined, 2, "clients 2 and 3 join client 1's pending chain");
    assert_eq!(r.proxy_hits, 0);
    assert_eq!(msg(&r, "proxy_data"), 3);
    let t = &r.node_remote_read_cycles;
    assert!(t[1] > t[2] && t[2] > t[3], "first client served last: response times {t:?}");
    // A later reader in the cluster is served from the proxy's copy.
    let mut th: Vec<Vec<LineOp>> = (0..8).map(|_| vec![Barrier, Barrier]).collect();
    th[7] = vec![Read(a(0, 0)), Barrier, Barrier];
    th[1] = vec![Barrier, Read(a(0, 0)), Barrier];
    th[2] = vec![Barrier, Barrier, Read(a(0, 0))];
    let r = go(&m, &p, th, "first-touch", msg_opts(ProxyMode::Basic, None), true);
    assert_eq!((r.proxy_reads, r.proxy_hits, r.requests_combined), (2, 1, 0));
}

#[test]
fn basic_proxies_leave_unmarked_data_alone() {
    let m = small_machine(8);
    let mut th: Vec<Vec<LineOp>> = (0..8).map(|_| vec![Barrier, Barrier]).collect();
    th[7] = vec![Read(a(0, 0)), Barrier, Barrier];
    th[1] = vec![Barrier, Read(a(0, 0)), Barrier];
    let r = go(&m, &params(&m), th, "first-touch", msg_opts(ProxyMode::Basic, None), false);
    assert_eq!(r.proxy_reads, 0);
}

/// Node 7 homes page 0; later (no barrier, so that only read traffic reaches a queue) nodes
/// 0..6 read four lines of it each, all at once.
fn hot_home() -> Vec<Vec<LineOp>> {
    let mut th = Vec::new();
    for t in 0..7u64 {
        th.push(vec![Compute(2000), Read(a(0, 4 * t + 4)), Read(a(0, 4 * t + 5)), Read(a(0, 4 * t + 6)), Read(a(0, 4 * t + 7))]);
    }
    th.push(vec![Read(a(0, 0))]);
    th
}

#[test]
fn full_buffers_bounce_read_requests_which_are_retried() {
    let m = small_machine(8);
    let inf = go(&m, &params(&m), hot_home(), "first-touch", msg_opts(ProxyMode::None, None), false);
    assert_eq!(inf.bounces, 0);
    assert!(inf.queue_len_max >= 3, "seven readers queue at the home: {}", inf.queue_len_max);
    let fin = go(&m, &params(&m), hot_home(), "first-touch", msg_opts(ProxyMode::None, Some(1)), false);
    assert!(fin.bounces > 0);
    assert_eq!(msg(&fin, "bounce"), fin.bounces);
    assert_eq!(fin.remote_reads, 28, "every read completes");
    assert_eq!(msg(&fin, "read_req"), 28 + fin.bounces, "each bounce is retried");
    // Seed §1.4's hysteresis: the read that takes the home's queue above the limit is accepted,
    // then reads bounce until it falls below; so at most limit + 1 waiting (plus the one in
    // service), where infinite buffers let all seven readers queue.
    assert!(fin.queue_len_max <= 3 && fin.queue_len_max < inf.queue_len_max, "{} vs {}", fin.queue_len_max, inf.queue_len_max);
    // Without it (`InterfaceModel::IDEAL`) a read is accepted only if the queue then holds at
    // most the limit: never more than the limit waiting (plus the one in service).
    let legacy = ProtocolOptions { interface: InterfaceModel::IDEAL, ..msg_opts(ProxyMode::None, Some(1)) };
    let old = go(&m, &params(&m), hot_home(), "first-touch", legacy, false);
    assert!(old.bounces > 0 && old.remote_reads == 28);
    assert!(old.queue_len_max <= 2, "{}", old.queue_len_max);
}

/// LogP g on receives (seed §1.4): seven barrier arrivals reaching node 0 together are taken in
/// one every g cycles, so the barrier ends 6 g later than with no receive gap.
#[test]
fn receives_are_spaced_by_the_gap() {
    let m = small_machine(8);
    let th: Vec<Vec<LineOp>> = (0..8).map(|_| vec![Barrier]).collect();
    let with = go(&m, &params(&m), th.clone(), "first-touch", checked(), false);
    let legacy = ProtocolOptions { interface: InterfaceModel { receive_gap: false, ..InterfaceModel::default() }, ..checked() };
    let without = go(&m, &params(&m), th, "first-touch", legacy, false);
    assert_eq!(with.cycles, without.cycles + 6 * params(&m).gap, "{} vs {}", with.cycles, without.cycles);
}

#[test]
fn reactive_proxies_trigger_only_on_bounces() {
    let m = small_machine(8);
    let quiet = go(&m, &params(&m), hot_home(), "first-touch", msg_opts(ProxyMode::Reactive, None), false);
    assert_eq!((quiet.bounces, quiet.proxy_reads), (0, 0), "infinite buffers never bounce, so never proxy");
    let r = go(&m, &params(&m), hot_home(), "first-touch", msg_opts(ProxyMode::Reactive, Some(1)), false);
    assert!(r.bounces > 0);
    assert!(r.reactive_proxy_reads > 0);
    assert_eq!(r.proxy_reads, r.reactive_proxy_reads);
    assert!(r.reactive_proxy_reads <= r.bounces);
    assert_eq!(r.remote_reads, 28);
}

#[test]
fn locks_serialise_their_critical_sections() {
    let m = small_machine(4);
    let l = a(1, 0);
    let th: Vec<Vec<LineOp>> =
        (0..4).map(|t| vec![Lock(l), Read(a(0, 0)), Write(a(0, 0)), Compute(20), Unlock(l), Read(a(0, t + 1))]).collect();
    let r = go(&m, &params(&m), th, "round-robin", checked(), false);
    assert_eq!(r.line_accesses, 4 * 5);
    assert!(r.loads_checked >= 8);
}

fn err(m: &Machine, th: Vec<Vec<LineOp>>, opts: ProtocolOptions) -> String {
    let mut prog = Script::new("script", Script::one_region(4 * PAGE, false), th);
    let (pl, _) = placement::build(&Spec::parse("first-touch").unwrap(), m, 1).unwrap();
    run(m, &params(&m), &mut prog, pl.as_ref(), "first-touch", &opts).unwrap_err().to_string()
}

#[test]
fn lack_of_progress_is_an_error_naming_the_stuck() {
    let m = small_machine(2);
    // A barrier only one thread reaches.
    let e = err(&m, vec![vec![Barrier], vec![]], ProtocolOptions::default());
    assert!(e.contains("deadlock") && e.contains("cpu 0 waiting at Barrier"), "{e}");
    // A lock never released.
    let e = err(&m, vec![vec![Lock(0)], vec![Compute(100), Lock(0), Unlock(0)]], ProtocolOptions::default());
    assert!(e.contains("cpu 1 waiting at Lock(0)"), "{e}");
    // A stall limit shorter than one miss names the outstanding miss.
    let opts = ProtocolOptions { stall_cycles: 5, ..ProtocolOptions::default() };
    let e = err(&m, vec![vec![Read(0), Barrier], vec![Barrier, Read(64)]], opts);
    assert!(e.contains("no operation retired for 5 cycles") && e.contains("node 0 line 0x0: Read miss outstanding"), "{e}");
}

#[test]
fn bad_programs_are_one_line_errors() {
    let m = small_machine(2);
    let e = err(&m, vec![vec![Read(99 * PAGE)], vec![]], ProtocolOptions::default());
    assert_eq!(e.lines().count(), 1);
    assert!(e.contains("outside every region"), "{e}");
    // An address whose line number would wrap onto a cached line is still outside: cache hits
    // skip the region check, so the engine bounds every address first.
    let alias = (1u64 << 32) * 64;
    for op in [Read(alias), Write(alias)] {
        let e = err(&m, vec![vec![Write(0), Read(0), op], vec![]], ProtocolOptions::default());
        assert!(e.contains("outside every region") && e.contains(&format!("{alias:#x}")), "{e}");
    }
    let e = err(&m, vec![vec![]], ProtocolOptions::default());
    assert!(e.contains("1 threads") && e.contains("2 nodes"), "{e}");
    let e = err(&m, vec![vec![Unlock(0)], vec![]], ProtocolOptions::default());
    assert!(e.contains("does not hold"), "{e}");
}

#[test]
fn option_names_are_checked() {
    assert_eq!(ProxyMode::parse("reactive").unwrap(), ProxyMode::Reactive);
    assert_eq!(ProxyMode::parse("sometimes").unwrap_err().to_string(), "unknown proxy mode 'sometimes' (known: basic, none, reactive)");
    assert_eq!(BufferMode::parse("finite").unwrap(), BufferMode::Finite);
    assert_eq!(BufferMode::parse("8").unwrap_err().to_string(), "unknown buffer mode '8' (known: finite, infinite)");
    for n in ProxyMode::NAMES {
        assert_eq!(ProxyMode::parse(n).unwrap().name(), n);
    }
}

#[test]
fn talbot64_holds_the_seed_parameters() {
    let m = numaplace_sim::presets::preset("talbot64").unwrap();
    assert_eq!((m.nodes(), m.cpus(), m.raw.page_size, m.raw.line_size), (64, 64, 8192, 64));
    assert_eq!(ProtocolParams::from_machine(&m).unwrap(), ProtocolParams::default());
    let e = ProtocolParams::from_machine(&numaplace_sim::presets::preset("origin2000").unwrap()).unwrap_err().to_string();
    assert!(e.contains("no [protocol] table"), "{e}");
    let text = include_str!("../../../../machines/talbot64.toml").replace("gap = 5 ", "gapp = 5 ");
    let m = Machine::from_toml_str(&text, "t.toml").unwrap();
    let e = ProtocolParams::from_machine(&m).unwrap_err().to_string();
    assert!(e.contains("unknown field `gapp`"), "{e}");
    let text = include_str!("../../../../machines/talbot64.toml").replace("slc_bytes = 4194304", "slc_bytes = 3000000");
    let e = ProtocolParams::from_machine(&Machine::from_toml_str(&text, "t.toml").unwrap()).unwrap_err().to_string();
    assert!(e.contains("protocol.slc_bytes = 3000000"), "{e}");
}

#[test]
fn run_on_reads_the_machine_and_the_placement_registry() {
    use numaplace_sim::protocol::run_on;
    let m = numaplace_sim::presets::preset("talbot64").unwrap();
    let th: Vec<Vec<LineOp>> = (0..64u64).map(|t| vec![Read(a(t % 16, t)), Barrier, Read(a((t + 1) % 16, t))]).collect();
    let mut prog = Script::new("s", Script::one_region(16 * PAGE, false), th.clone());
    let r = run_on(&m, &mut prog, "round-robin", 1, &ProtocolOptions::default()).unwrap();
    assert_eq!((r.nodes, r.line_accesses, r.placement.as_str()), (64, 128, "round-robin"));
    assert!(r.ctrl_util.len() == 64 && r.ctrl_util_max > 0.0);
    let mut prog = Script::new("s", Script::one_region(16 * PAGE, false), th);
    let e = run_on(&m, &mut prog, "first-tuch", 1, &ProtocolOptions::default()).unwrap_err().to_string();
    assert!(e.starts_with("unknown placement 'first-tuch'"), "{e}");
}

/// Seed 004 §1.3's premise on its own machine: a row written by one node and then read by all
/// 64 queues at its home; proxies combine the reads, cutting the remote read response time.
#[test]
fn proxies_relieve_a_hot_home_on_talbot64() {
    use numaplace_sim::protocol::run_on;
    let m = numaplace_sim::presets::preset("talbot64").unwrap();
    let row = 64u64;
    let th: Vec<Vec<LineOp>> = (0..64u64)
        .map(|t| {
            let mut ops = Vec::new();
            if t == 5 {
                ops.extend((0..row).map(|i| Write(a(0, i))));
            }
            ops.push(Barrier);
            if t != 5 {
                ops.extend((0..row).map(|i| Read(a(0, (i + t) % row))));
            }
            ops
        })
        .collect();
    let runs: Vec<ProtocolResult> = [ProxyMode::None, ProxyMode::Basic]
        .into_iter()
        .map(|proxies| {
            let mut prog = Script::new("hot-row", Script::one_region(PAGE, true), th.clone());
            run_on(&m, &mut prog, "first-touch", 1, &ProtocolOptions { proxies, ..ProtocolOptions::default() }).unwrap()
        })
        .collect();
    let (none, basic) = (&runs[0], &runs[1]);
    assert_eq!(none.remote_reads, 63 * 64);
    assert!(basic.proxy_reads > 0 && basic.requests_combined + basic.proxy_hits > 0);
    assert!(
        basic.remote_read_mean_cycles < 0.8 * none.remote_read_mean_cycles,
        "basic {} vs none {}",
        basic.remote_read_mean_cycles,
        none.remote_read_mean_cycles
    );
    assert!(basic.cycles < none.cycles, "basic {} vs none {}", basic.cycles, none.cycles);
    eprintln!(
        "none: {} cycles, {} msgs, read {:.0}; basic: {} cycles, {} msgs, read {:.0}, combined {}, hits {}",
        none.cycles, none.messages, none.remote_read_mean_cycles, basic.cycles, basic.messages, basic.remote_read_mean_cycles,
        basic.requests_combined, basic.proxy_hits
    );
}

/// A program whose stream breaks (as a corrupt line-level trace does) is reported by its own
/// error, not by the deadlock its short thread causes.
#[test]
fn a_failing_program_reports_its_own_error() {
    use numaplace_sim::protocol::program::{LineProgram, LineRegion};
    use numaplace_sim::SimError;
    struct Broken(Script, bool);
    impl LineProgram for Broken {
        fn name(&self) -> &str {
            "broken"
        }
        fn threads(&self) -> usize {
            self.0.threads()
        }
        fn regions(&self) -> &[LineRegion] {
            self.0.regions()
        }
        fn fill(&mut self, t: usize, out: &mut Vec<LineOp>) -> bool {
            if t == 1 {
                self.1 = true;
                return false;
            }
            self.0.fill(t, out)
        }
        fn take_error(&mut self) -> Option<SimError> {
            self.1.then(|| SimError::Trace { path: "t.nptrace".into(), at: "block 2".into(), message: "bad crc".into() })
        }
    }
    let m = small_machine(2);
    let mut prog = Broken(Script::new("b", Script::one_region(PAGE, false), vec![vec![Read(0), Barrier], vec![Barrier]]), false);
    let (pl, _) = placement::build(&Spec::parse("first-touch").unwrap(), &m, 1).unwrap();
    let e = run(&m, &params(&m), &mut prog, pl.as_ref(), "first-touch", &ProtocolOptions::default()).unwrap_err().to_string();
    assert_eq!(e, "t.nptrace: block 2: bad crc");
}

#[test]
fn an_observer_sees_every_barrier_and_can_stop_the_run() {
    use numaplace_sim::protocol::{run_observed, ProtocolProgress};
    use numaplace_sim::SimError;
    let m = small_machine(2);
    let threads = || vec![vec![Write(a(0, 0)), Barrier, Read(a(1, 0)), Barrier, Write(a(0, 1)), Barrier], vec![Write(a(1, 0)), Barrier, Read(a(0, 0)), Barrier, Read(a(0, 1)), Barrier]];
    let (pl, _) = placement::build(&Spec::parse("first-touch").unwrap(), &m, 1).unwrap();
    let mut seen: Vec<ProtocolProgress> = Vec::new();
    let mut prog = Script::new("script", Script::one_region(16 * PAGE, false), threads());
    let watched = run_observed(&m, &params(&m), &mut prog, pl.as_ref(), "first-touch", &checked(), &mut |p| {
        seen.push(*p);
        true
    })
    .unwrap();
    let barriers: Vec<u64> = seen.iter().map(|p| p.barriers).collect();
    assert_eq!(barriers, vec![1, 2, 3], "one report per global barrier");
    assert!(seen.windows(2).all(|w| w[0].simulated_ns <= w[1].simulated_ns && w[0].line_accesses <= w[1].line_accesses));
    assert_eq!(seen[2].line_accesses, 6);
    // Watching changes nothing.
    let plain = go(&m, &params(&m), threads(), "first-touch", checked(), false);
    assert_eq!(serde_json::to_string(&watched).unwrap(), serde_json::to_string(&plain).unwrap());
    // Returning false stops it.
    let mut prog = Script::new("script", Script::one_region(16 * PAGE, false), threads());
    let stopped = run_observed(&m, &params(&m), &mut prog, pl.as_ref(), "first-touch", &checked(), &mut |p| p.barriers < 2);
    assert!(matches!(stopped, Err(SimError::Stopped)), "{stopped:?}");
}

#[test]
fn pages_homed_per_node_are_reported() {
    let m = small_machine(2);
    // Thread 0 first touches pages 0, 1 and 2, thread 1 page 3 (after the barrier, page 0 again).
    let th = vec![vec![Read(a(0, 0)), Write(a(1, 3)), Read(a(2, 1)), Barrier], vec![Read(a(3, 0)), Barrier, Read(a(0, 0))]];
    let r = go(&m, &params(&m), th.clone(), "first-touch", checked(), false);
    assert_eq!(r.per_node_pages, vec![3, 1]);
    let r = go(&m, &params(&m), th, "round-robin", checked(), false);
    assert_eq!(r.per_node_pages.iter().sum::<u64>(), 4);
    assert_eq!(r.per_node_pages, vec![2, 2]);
}
