//! Property tests of the protocol engine: random small programs (2 to 8 nodes, tiny caches
//! that force evictions, reads, writes, barriers and locks over a few lines), every proxy mode,
//! finite buffers with limits of 1 or 2 that force bounces, and both placements. The engine's
//! value checker (every load returns the latest store in the order the engine commits) is
//! always on; the directory invariants are checked after every event.

use numaplace_model::placement;
use numaplace_model::Spec;
use numaplace_sim::protocol::params::small_machine;
use numaplace_sim::protocol::program::{LineOp, LineRegion};
use numaplace_sim::protocol::script::Script;
use numaplace_sim::protocol::{run, BufferMode, InterfaceModel, ProtocolOptions, ProtocolParams, ProxyMode};
use proptest::prelude::*;

const PAGE: u64 = 8192;

#[derive(Clone, Debug)]
enum Step {
    Read(u8),
    Write(u8),
    Compute(u8),
    Locked(u8, Vec<(bool, u8)>),
}

/// Address of data line `i` (0..12): three pages, four lines each, so that lines of different
/// pages share cache frames in a tiny SLC.
fn data(i: u8) -> u64 {
    (i as u64 / 4) * PAGE + (i as u64 % 4) * 64
}

/// Lock words live on page 3.
fn lock(i: u8) -> u64 {
    3 * PAGE + i as u64 * 64
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0u8..12).prop_map(Step::Read),
        3 => (0u8..12).prop_map(Step::Write),
        1 => (0u8..40).prop_map(Step::Compute),
        1 => ((0u8..2), prop::collection::vec((any::<bool>(), 0u8..12), 0..3)).prop_map(|(l, b)| Step::Locked(l, b)),
    ]
}

#[derive(Clone, Debug)]
struct Case {
    nodes: usize,
    init: Vec<u8>,
    /// Per thread, per barrier-separated segment, the steps.
    threads: Vec<Vec<Vec<Step>>>,
    proxies: ProxyMode,
    finite: Option<u32>,
    round_robin: bool,
    marked: bool,
    slc_frames: u64,
    flc_frames: u64,
    lookahead: u64,
    /// The network interface: 0 the default, 1 `InterfaceModel::IDEAL`, 2 no receive gap,
    /// 3 the receive gap alone.
    iface: u8,
}

fn case() -> impl Strategy<Value = Case> {
    (2usize..=8, 0usize..4).prop_flat_map(|(nodes, segs)| {
        (
            Just(nodes),
            prop::collection::vec(0u8..12, 0..4),
            prop::collection::vec(prop::collection::vec(prop::collection::vec(step(), 0..12), segs + 1), nodes),
            prop_oneof![Just(ProxyMode::None), Just(ProxyMode::Basic), Just(ProxyMode::Reactive)],
            prop_oneof![Just(None), (1u32..=2).prop_map(Some)],
            any::<bool>(),
            any::<bool>(),
            prop_oneof![Just(2u64), Just(4), Just(8)],
            prop_oneof![Just(1u64), Just(2)],
            prop_oneof![Just(0u64), Just(7), Just(100), Just(500)],
            0u8..4,
        )
            .prop_map(|(nodes, init, threads, proxies, finite, round_robin, marked, slc_frames, flc_frames, lookahead, iface)| Case {
                nodes,
                init,
                threads,
                proxies,
                finite,
                round_robin,
                marked,
                slc_frames,
                flc_frames,
                lookahead,
                iface,
            })
    })
}

fn program(c: &Case) -> Script {
    let mut threads = Vec::new();
    for (t, segs) in c.threads.iter().enumerate() {
        let mut ops = Vec::new();
        if t == 0 {
            ops.extend(c.init.iter().map(|&i| LineOp::Write(data(i))));
        }
        ops.push(LineOp::Barrier);
        ops.push(LineOp::EndInit);
        for (k, seg) in segs.iter().enumerate() {
            if k > 0 {
                ops.push(LineOp::Barrier);
            }
            for s in seg {
                match s {
                    Step::Read(i) => ops.push(LineOp::Read(data(*i))),
                    Step::Write(i) => ops.push(LineOp::Write(data(*i))),
                    Step::Compute(k) => ops.push(LineOp::Compute(*k as u32)),
                    Step::Locked(l, body) => {
                        ops.push(LineOp::Lock(lock(*l)));
                        for &(w, i) in body {
                            ops.push(if w { LineOp::Write(data(i)) } else { LineOp::Read(data(i)) });
                        }
                        ops.push(LineOp::Unlock(lock(*l)));
                    }
                }
            }
        }
        threads.push(ops);
    }
    let regions = vec![
        LineRegion { name: "data".into(), base: 0, bytes: 3 * PAGE, proxy: c.marked },
        LineRegion { name: "locks".into(), base: 3 * PAGE, bytes: PAGE, proxy: false },
    ];
    Script::new("random", regions, threads)
}

fn run_case(c: &Case) -> Result<String, String> {
    let m = small_machine(c.nodes);
    let p = ProtocolParams { flc_bytes: 64 * c.flc_frames, slc_bytes: 64 * c.slc_frames, proxy_clusters: 2, ..ProtocolParams::default() };
    let place = if c.round_robin { "round-robin" } else { "first-touch" };
    let (pl, _) = placement::build(&Spec::parse(place).unwrap(), &m, 1).unwrap();
    let opts = ProtocolOptions {
        proxies: c.proxies,
        buffers: if c.finite.is_some() { BufferMode::Finite } else { BufferMode::Infinite },
        buffer_limit: c.finite,
        invariants: true,
        stall_cycles: 10_000_000,
        lookahead_cycles: c.lookahead,
        interface: match c.iface {
            0 => InterfaceModel::default(),
            1 => InterfaceModel::IDEAL,
            2 => InterfaceModel { receive_gap: false, ..InterfaceModel::default() },
            _ => InterfaceModel { receive_gap: true, ..InterfaceModel::IDEAL },
        },
    };
    let mut prog = program(c);
    let r = run(&m, &p, &mut prog, pl.as_ref(), place, &opts).map_err(|e| e.to_string())?;
    let accesses: usize = prog_accesses(c);
    if r.line_accesses as usize != accesses {
        return Err(format!("{} line accesses reported, {accesses} in the program", r.line_accesses));
    }
    Ok(serde_json::to_string(&r).unwrap())
}

/// Loads and stores after EndInit, lock acquires and releases (each counted once, when it
/// retires).
fn prog_accesses(c: &Case) -> usize {
    let mut n = 0;
    for segs in &c.threads {
        for seg in segs {
            for s in seg {
                n += match s {
                    Step::Read(_) | Step::Write(_) => 1,
                    Step::Compute(_) => 0,
                    Step::Locked(_, b) => 2 + b.len(),
                };
            }
        }
    }
    n
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn random_programs_are_coherent_and_deterministic(c in case()) {
        let first = run_case(&c);
        prop_assert!(first.is_ok(), "{:?}", first);
        let second = run_case(&c);
        prop_assert_eq!(first, second, "two runs of the same case differ");
    }
}

/// Found by the property test: a node whose modified line is in its write-back buffer re-reads
/// it through a proxy while a forward is answered from that buffer; it must not be linked into
/// the sharing list twice.
#[test]
fn regression_write_back_in_flight_and_a_proxied_re_read() {
    use Step::*;
    let c = Case{nodes:3,init:vec![],threads:vec![vec![vec![Locked(1,vec![(true,6,),(false,6,),],),Write(10,),Compute(36,),Compute(12,),Read(0,),Write(2,),],vec![Read(9,),Read(3,),Write(1,),Read(2,),Read(9,),],vec![Compute(35,),Locked(0,vec![(false,8,),(false,2,),],),],],vec![vec![Read(3,),Compute(23,),Write(4,),Locked(0,vec![(false,5,),],),Locked(0,vec![(false,6,),(false,8,),],),Write(5,),Read(8,),Read(2,),Read(6,),Read(4,),],vec![Locked(1,vec![(false,7,),(true,9,),],),Compute(5,),Write(7,),Read(11,),Read(5,),Locked(0,vec![],),Write(7,),Compute(9,),Write(6,),],vec![Read(3,),Write(6,),Read(2,),Write(11,),Locked(1,vec![(false,0,),(false,1,),],),Read(4,),Read(9,),],],vec![vec![Read(4,),Read(11,),Read(11,),Read(7,),Read(8,),Read(3,),Compute(26,),Locked(1,vec![(false,8,),(true,6,),],),],vec![Write(4,),Read(3,),Compute(9,),Read(3,),Compute(14,),],vec![Read(6,),Write(2,),Read(10,),Read(2,),],],],proxies:ProxyMode::Basic,finite:Some(2,),round_robin:true,marked:true,slc_frames:8,flc_frames:1,lookahead:0,iface:1,};
    run_case(&c).unwrap();
    run_case(&Case { iface: 0, ..c }).unwrap();
}
