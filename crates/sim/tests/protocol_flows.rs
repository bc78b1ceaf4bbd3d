//! Unit tests of the protocol engine's message flows (docs/protocol.md), each on a small
//! scripted program with the directory invariants checked after every event.

use numaplace_model::placement;
use numaplace_model::{Machine, Spec};
use numaplace_sim::protocol::params::small_machine;
use numaplace_sim::protocol::program::LineOp::{self, *};
use numaplace_sim::protocol::script::Script;
use numaplace_sim::protocol::{run, BufferMode, ProtocolOptions, ProtocolParams, ProtocolResult, ProxyMode};

const PAGE: u64 = 8192;
const LINE: u64 = 64;

fn params() -> ProtocolParams {
    ProtocolParams::default()
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
    let r = go(&m, &params(), vec![vec![Write(a(0, 0)), Barrier], vec![Barrier, Read(a(0, 0))]], "first-touch", checked(), false);
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
    let r = go(&m, &params(), vec![vec![Barrier, Read(a(0, 0))], vec![Read(a(0, 0)), Barrier]], "first-touch", checked(), false);
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
    let r = go(&m, &params(), vec![t0, t1, t2], "first-touch", checked(), false);
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
    let r = go(&m, &params(), th, "first-touch", checked(), false);
    // List 3 -> 2 -> 1 -> 0: the walk is home 0 -> 3 -> 2 -> 1 -> 0, four network hops; the
    // tail is the home itself, so its acknowledgement is local.
    assert_eq!(msg(&r, "inval"), 4, "one inval per hop of the list");
    assert_eq!(msg(&r, "inval_ack"), 0);
    assert_eq!(msg(&r, "data_ex"), 1);
}

#[test]
fn upgrade_needs_no_data() {
    let m = small_machine(2);
    let r = go(&m, &params(), vec![vec![Read(a(0, 0)), Barrier], vec![Barrier, Read(a(0, 0)), Write(a(0, 0))]], "first-touch", checked(), false);
    assert_eq!(msg(&r, "upgrade_req"), 1);
    assert_eq!(msg(&r, "upgrade_ack") + msg(&r, "data_ex"), 1);
}

#[test]
fn dirty_victims_are_written_back_and_shared_ones_replaced() {
    let m = small_machine(2);
    let mut p = params();
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
    let mut p = params();
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
