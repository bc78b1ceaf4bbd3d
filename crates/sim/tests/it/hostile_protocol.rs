//! Hostile input to the protocol engine (issue 37): a declared size that is never touched costs
//! nothing, touching more than the engine's bound is one line naming it, and the `[protocol]`
//! table's proxy clusters are checked against the machine.

use numaplace_model::{placement, Machine, Spec};
use numaplace_sim::protocol::lines::{CHUNK_LINES, MAX_LINES};
use numaplace_sim::protocol::params::small_machine;
use numaplace_sim::protocol::program::LineOp::{self, *};
use numaplace_sim::protocol::program::LineRegion;
use numaplace_sim::protocol::script::Script;
use numaplace_sim::protocol::{run, ProtocolOptions, ProtocolParams, ProtocolResult};

const LINE: u64 = 64;

fn go(m: &Machine, region_bytes: u64, threads: Vec<Vec<LineOp>>) -> Result<ProtocolResult, String> {
    let mut prog = Script::new("script", vec![LineRegion { name: "data".into(), base: 0, bytes: region_bytes, proxy: false }], threads);
    let (pl, _) = placement::build(&Spec::parse("first-touch").unwrap(), m, 1).unwrap();
    let p = ProtocolParams { proxy_clusters: 2, ..ProtocolParams::default() };
    run(m, &p, &mut prog, pl.as_ref(), "first-touch", &ProtocolOptions { invariants: true, ..ProtocolOptions::default() })
        .map_err(|e| e.to_string())
}

/// The process's peak resident memory, bytes (`VmHWM`).
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kb: u64 = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).unwrap().trim().trim_end_matches("kB").trim().parse().unwrap();
    kb << 10
}

#[test]
fn a_16_gib_region_read_in_four_lines_costs_what_four_lines_do() {
    let m = small_machine(4);
    // Four threads, each reads one line 3 GiB apart, then a barrier; the region declares 16 GiB
    // (2^28 lines, the engine's address space), which used to cost 32-44 bytes a line.
    let threads = || (0..4u64).map(|t| vec![Read(t * (3 << 30)), Barrier, Write(t * (3 << 30) + LINE)]).collect::<Vec<_>>();
    let big = go(&m, 16 << 30, threads()).unwrap();
    assert!(peak_rss() < 1 << 30, "peak RSS {} MiB", peak_rss() >> 20);
    assert_eq!(big.lines_accessed, 8);
    // The same accesses in a region just large enough give the same result, byte for byte.
    let small = go(&m, (9 << 30) + 8192, threads()).unwrap();
    assert_eq!(serde_json::to_string(&big).unwrap(), serde_json::to_string(&small).unwrap());
}

#[test]
fn touching_more_lines_than_the_bound_is_one_line_naming_it() {
    let m = small_machine(2);
    // One store a chunk in the initialisation, one chunk more than the bound holds.
    let chunks = MAX_LINES / CHUNK_LINES as u64 + 1;
    let mut t0: Vec<LineOp> = (0..chunks).map(|c| Write(c * CHUNK_LINES as u64 * LINE)).collect();
    t0.extend([Barrier, EndInit]);
    let e = go(&m, chunks * CHUNK_LINES as u64 * LINE, vec![t0, vec![Barrier, EndInit]]).unwrap_err();
    assert_eq!(
        e,
        format!(
            "program script: the lines it touches need more than the protocol engine's bound of {MAX_LINES} lines of state ({} MiB of memory at 64-byte lines, held in chunks of {CHUNK_LINES} lines)",
            (MAX_LINES * LINE) >> 20
        )
    );
    // At the bound itself the run goes on (the error is the program's, not the bound's).
    let mut t0: Vec<LineOp> = (0..chunks - 1).map(|c| Write(c * CHUNK_LINES as u64 * LINE)).collect();
    t0.extend([Barrier, EndInit, Read(0)]);
    let r = go(&m, chunks * CHUNK_LINES as u64 * LINE, vec![t0, vec![Barrier, EndInit]]).unwrap();
    assert_eq!(r.lines_accessed, 1);
}

#[test]
fn proxy_clusters_beyond_the_nodes_are_refused_in_one_line() {
    let m = small_machine(4);
    for (clusters, ok) in [(0, false), (1, true), (4, true), (5, false), (1000, false), (u32::MAX, false)] {
        let p = ProtocolParams { proxy_clusters: clusters, ..ProtocolParams::default() };
        match p.validate(&m) {
            Ok(()) => assert!(ok, "{clusters} accepted"),
            Err(e) => {
                let e = e.to_string();
                assert!(!ok, "{clusters}: {e}");
                assert_eq!(
                    e,
                    format!("machine protocol-test-4: protocol.proxy_clusters = {clusters}: must be 1 .. the machine's 4 nodes (a proxy cluster is a set of nodes)")
                );
            }
        }
    }
    // Through a machine file's [protocol] table.
    let talbot = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../machines/talbot64.toml")).unwrap();
    let text = talbot.replace("proxy_clusters = 3 ", "proxy_clusters = 1000 ");
    assert_ne!(text, talbot);
    let m = Machine::from_toml_str(&text, "t.toml").unwrap();
    let e = ProtocolParams::from_machine(&m).unwrap_err().to_string();
    assert!(e.contains("protocol.proxy_clusters = 1000: must be 1 .. the machine's 64 nodes") && !e.contains('\n'), "{e}");
}

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// A declared size that is never touched changes nothing and costs nothing: a program's
    /// accesses scattered over a 16 GiB region give the result they give in a region that
    /// just holds them, byte for byte, in little memory.
    #[test]
    fn the_declared_size_of_a_region_changes_nothing(
        nodes in 2usize..=4,
        lines in prop::collection::vec((0u64..(16u64 << 30) / LINE, any::<bool>()), 1..12),
    ) {
        let m = small_machine(nodes);
        let threads: Vec<Vec<LineOp>> = (0..nodes)
            .map(|t| {
                let mut ops: Vec<LineOp> = lines
                    .iter()
                    .skip(t)
                    .step_by(nodes)
                    .map(|&(l, w)| if w { Write(l * LINE) } else { Read(l * LINE) })
                    .collect();
                ops.push(Barrier);
                ops.extend(lines.iter().map(|&(l, _)| Read(l * LINE)));
                ops
            })
            .collect();
        let end = lines.iter().map(|&(l, _)| l * LINE + LINE).max().unwrap();
        let big = go(&m, 16 << 30, threads.clone()).unwrap();
        let small = go(&m, end, threads).unwrap();
        prop_assert_eq!(serde_json::to_string(&big).unwrap(), serde_json::to_string(&small).unwrap());
        prop_assert!(peak_rss() < 1 << 30, "peak RSS {} MiB", peak_rss() >> 20);
    }
}
