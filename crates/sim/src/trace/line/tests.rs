use super::*;
use crate::protocol::program::{LineOp::*, LineRegion};
use proptest::prelude::*;

/// A program given as whole per-thread operation lists, served in chunks of `chunk`.
struct VecProgram {
    regions: Vec<LineRegion>,
    ops: Vec<Vec<LineOp>>,
    at: Vec<usize>,
    chunk: usize,
}

impl VecProgram {
    fn new(regions: Vec<LineRegion>, ops: Vec<Vec<LineOp>>, chunk: usize) -> Self {
        let at = vec![0; ops.len()];
        VecProgram { regions, ops, at, chunk }
    }
}

impl LineProgram for VecProgram {
    fn name(&self) -> &str {
        "vec"
    }
    fn threads(&self) -> usize {
        self.ops.len()
    }
    fn regions(&self) -> &[LineRegion] {
        &self.regions
    }
    fn fill(&mut self, t: usize, out: &mut Vec<LineOp>) -> bool {
        let rest = &self.ops[t][self.at[t]..];
        if rest.is_empty() {
            return false;
        }
        let n = rest.len().min(self.chunk);
        out.extend_from_slice(&rest[..n]);
        self.at[t] += n;
        true
    }
}

fn regions() -> Vec<LineRegion> {
    vec![
        LineRegion { name: "a".into(), base: 0, bytes: 3 * 8192, proxy: true },
        LineRegion { name: "far".into(), base: 1 << 40, bytes: 100, proxy: false },
    ]
}

fn header(threads: usize) -> LineTraceHeader {
    LineTraceHeader { page_size: 8192, line_size: 64, threads, regions: regions(), meta: vec![("source".into(), "hand".into())] }
}

/// A fresh path per call, removed with its directory when dropped.
fn tmp(name: &str) -> numaplace_outfile::TempPath {
    numaplace_outfile::TempPath::new("line-test", name).unwrap()
}

/// Writes the per-thread operations as given (thread after thread, no validation).
fn raw_trace(h: &LineTraceHeader, ops: &[Vec<LineOp>]) -> Vec<u8> {
    let p = tmp("raw");
    let mut out = Vec::new();
    let mut w = LineTraceWriter::new(&mut out, h, &p).unwrap();
    for (t, o) in ops.iter().enumerate() {
        if !o.is_empty() {
            w.ops(t, o, &p).unwrap();
        }
    }
    w.finish(&p).unwrap();
    out
}

/// Every thread's operations, read back through `fill` in round-robin order.
fn read_back(p: &mut dyn LineProgram) -> Result<Vec<Vec<LineOp>>, SimError> {
    let mut got = vec![Vec::new(); p.threads()];
    let mut done = vec![false; p.threads()];
    while done.iter().any(|d| !d) {
        for t in 0..p.threads() {
            if !done[t] && !p.fill(t, &mut got[t]) {
                done[t] = true;
            }
        }
    }
    match p.take_error() {
        Some(e) => Err(e),
        None => Ok(got),
    }
}

fn valid_ops() -> Vec<Vec<LineOp>> {
    let far = 1u64 << 40;
    vec![
        vec![Write(0), Write(64), Barrier, EndInit, Read(8192 * 2 + 8), Compute(u32::MAX), Lock(far), Write(far + 8), Unlock(far), Barrier, Read(0)],
        vec![Barrier, EndInit, Read(far + 99), Read(0), Barrier],
        vec![Barrier, EndInit, Barrier, Compute(0)],
    ]
}

#[test]
fn a_program_round_trips_through_a_file() {
    let ops = valid_ops();
    let p = tmp("rt.npline");
    let mut prog = VecProgram::new(regions(), ops.clone(), 2);
    let (runs, n) = export_line(&mut prog, 8192, 64, vec![("source".into(), "hand".into())], &p).unwrap();
    assert_eq!(n, ops.iter().map(|o| o.len() as u64).sum::<u64>());
    assert!(runs >= 6, "interleaved by phase: {runs} runs");
    assert_eq!(version_of(&p), Some(VERSION_LINE));
    let mut t = LineTrace::open(&p).unwrap();
    assert_eq!(t.regions(), &regions()[..]);
    assert_eq!(t.name(), "hand");
    let mut h = header(1);
    h.meta = vec![("source".into(), "ge:n=64,schedule=block".into())];
    let bytes = raw_trace(&h, &[vec![EndInit]]);
    assert_eq!(LineTrace::from_reader(Box::new(std::io::Cursor::new(bytes)), "s").unwrap().name(), "ge");
    assert_eq!(read_back(&mut t).unwrap(), ops);
    let i = info(&p).unwrap();
    assert_eq!((i.operations, i.reads, i.writes, i.barriers, i.locks), (n, 4, 3, 2, 1));
    assert_eq!(i.compute_cycles, u32::MAX as u64);
}

#[test]
fn export_interleaves_by_barrier_phase() {
    // Thread 0's first phase is long; the others' operations must follow it phase by phase,
    // so a reader serving thread 1 first never holds more than a phase of thread 0.
    let mut t0 = vec![Read(0); 10_000];
    t0.extend([Barrier, EndInit, Read(64), Barrier]);
    let others = vec![Read(128), Barrier, EndInit, Read(64), Barrier];
    let ops = vec![t0, others.clone(), others];
    let p = tmp("phase.npline");
    export_line(&mut VecProgram::new(regions(), ops.clone(), 4096), 8192, 64, vec![], &p).unwrap();
    let mut t = LineTrace::open(&p).unwrap();
    t.max_buffered = 10_010;
    assert_eq!(read_back(&mut t).unwrap(), ops);
}

#[test]
fn a_reader_refuses_to_buffer_beyond_its_bound() {
    let ops = vec![vec![Read(0); 100].into_iter().chain([Barrier, EndInit]).collect(), vec![Barrier, EndInit]];
    let bytes = raw_trace(&header(2), &ops);
    let mut t = LineTrace::from_reader(Box::new(std::io::Cursor::new(bytes)), "b").unwrap();
    t.max_buffered = 50;
    let mut out = Vec::new();
    // Thread 1 first: thread 0's 102 operations come before it in the file.
    assert!(!t.fill(1, &mut out));
    let e = t.take_error().unwrap().to_string();
    assert!(e.starts_with("b: block at byte ") && e.contains("more than 50 operations buffered"), "{e}");
}

/// Writes `ops` (thread after thread) and reads it back, returning the error message.
fn error_of(ops: &[Vec<LineOp>]) -> String {
    let bytes = raw_trace(&header(ops.len()), ops);
    read_line_all_for_fuzz(&bytes).expect_err("must be refused").to_string()
}

#[test]
fn contract_violations_are_named() {
    let far = 1u64 << 40;
    let cases: &[(&[LineOp], &str)] = &[
        (&[Barrier, EndInit, Read(3 * 8192)], "thread 0: address 0x6000 lies in no region"),
        (&[Barrier, EndInit, Read(far + 100)], "lies in no region"),
        (&[Barrier, EndInit, Lock(0), Lock(64)], "thread 0: lock at 0x40 while holding the lock at 0x0"),
        (&[Barrier, EndInit, Unlock(0)], "unlock at 0x0 of a lock it does not hold"),
        (&[Barrier, EndInit, Lock(0), Barrier], "barrier while holding the lock at 0x0"),
        (&[Barrier, EndInit, EndInit], "a second end of initialisation"),
        (&[Barrier, Read(0), EndInit], "end of initialisation not directly after a barrier"),
        (&[Barrier, EndInit, Lock(0)], "thread 0 ends holding the lock at 0x0"),
        (&[Barrier, Barrier], "thread 0 never states the end of initialisation"),
    ];
    for (ops, want) in cases {
        let e = error_of(&[ops.to_vec()]);
        assert!(e.contains(want) && !e.contains('\n'), "{want}: {e}");
    }
    let e = error_of(&[vec![Barrier, EndInit, Barrier], vec![Barrier, EndInit]]);
    assert!(e.contains("thread 1 states 1 barriers, thread 0 states 2"), "{e}");
    let e = error_of(&[vec![Barrier, EndInit, Barrier], vec![Barrier, Barrier, EndInit]]);
    assert!(e.contains("thread 1 ends initialisation after 2 barriers, thread 0 after 1"), "{e}");
    // A program with no initialisation states EndInit first.
    assert!(read_line_all_for_fuzz(&raw_trace(&header(1), &[vec![EndInit, Read(0)]])).is_ok());
}

#[test]
fn bad_headers_and_the_other_version_are_named() {
    let mut h = header(1);
    h.regions[1].base = 8192 + 1;
    let e = LineTraceWriter::new(Vec::new(), &h, &tmp("x")).err().unwrap().to_string();
    assert!(e.contains("region 'far' at byte 0x2001") && e.contains("page aligned"), "{e}");
    let mut h = header(1);
    h.regions[1].base = 8192;
    let e = LineTraceWriter::new(Vec::new(), &h, &tmp("x")).err().unwrap().to_string();
    assert!(e.contains("sorted, disjoint"), "{e}");
    let e = LineTraceWriter::new(Vec::new(), &header(0), &tmp("x")).err().unwrap().to_string();
    assert!(e.contains("thread count 0"), "{e}");
    // A line-level trace given to the page-level reader, and the converse.
    let bytes = raw_trace(&header(1), &[vec![EndInit]]);
    let e = crate::trace::read_all_for_fuzz(&bytes).err().unwrap().to_string();
    assert!(e.contains("format version 2 is a line-level trace: replay it with the protocol engine"), "{e}");
    let page = {
        let h = crate::trace::TraceHeader {
            page_size: 4096,
            line_size: 64,
            threads: 1,
            regions: vec![numaplace_model::Region { name: "a".into(), first_page: 0, pages: 1 }],
            meta: vec![],
        };
        let mut out = Vec::new();
        crate::trace::TraceWriter::new(&mut out, &h, &tmp("p")).unwrap().finish(&tmp("p")).unwrap();
        out
    };
    let e = read_line_all_for_fuzz(&page).err().unwrap().to_string();
    assert!(e.contains("format version 1 is a page-level trace: replay it with the page-level engine"), "{e}");
}

#[test]
fn corrupt_items_are_named() {
    let good = raw_trace(&header(2), &valid_ops()[..2]);
    // The end marker's totals.
    let mut b = good.clone();
    let n = b.len();
    b[n - 1] ^= 1;
    let e = read_line_all_for_fuzz(&b).err().unwrap().to_string();
    assert!(e.contains("end marker counts"), "{e}");
    // A block's checksum.
    let mut b = good.clone();
    let hlen = u32::from_le_bytes(b[12..16].try_into().unwrap()) as usize;
    let block = 16 + hlen + 4;
    b[block + 13] ^= 0x55;
    let e = read_line_all_for_fuzz(&b).err().unwrap().to_string();
    assert!(e.contains("block") && !e.contains('\n'), "{e}");
}

#[test]
fn unknown_opcodes_and_huge_computes_are_named() {
    // Hand-built items in a stored block, to reach the decoder's own checks.
    let h = header(1);
    let item = |body: &[u8]| {
        let p = tmp("hand");
        let mut out = Vec::new();
        write_frame(&mut out, VERSION_LINE, &h.body(), &p).unwrap();
        let mut raw = body.to_vec();
        flush_block(&mut out, &mut raw, &p).unwrap();
        write_end(&mut out, 1, 1, &p).unwrap();
        read_line_all_for_fuzz(&out).err().unwrap().to_string()
    };
    let e = item(&[ITEM_OPS, 0, 1, 9]);
    assert!(e.contains("thread 0: unknown opcode 9"), "{e}");
    let mut huge = vec![ITEM_OPS, 0, 1, OP_COMPUTE];
    put_uvarint(&mut huge, 1 << 33);
    let e = item(&huge);
    assert!(e.contains("compute of 8589934592 cycles exceeds"), "{e}");
    let e = item(&[ITEM_OPS, 5, 1, OP_BARRIER]);
    assert!(e.contains("run thread 5 out of range"), "{e}");
    let e = item(&[ITEM_OPS, 0, 0]);
    assert!(e.contains("run of 0 operations"), "{e}");
    let e = item(&[0x01]);
    assert!(e.contains("expected an operation run (0x11), found item tag 0x01"), "{e}");
}

/// Replays the saved fuzz corpus of the line-level reader (`fuzz/corpus/line_reader`), as its
/// fuzz target checks each input: a result or a one-line error, never a panic.
#[test]
fn line_fuzz_corpus_replays_without_panic() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/line_reader");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).flatten().map(|e| e.path()).collect();
    files.sort();
    assert!(files.len() >= 3, "the saved corpus is missing");
    let mut valid = 0;
    for p in files {
        match read_line_all_for_fuzz(&std::fs::read(&p).unwrap()) {
            Ok(_) => valid += 1,
            Err(e) => assert!(!e.to_string().contains('\n'), "{}: {e}", p.display()),
        }
    }
    assert!(valid >= 1, "the corpus seeds include a valid trace");
}

/// Writes the corpus seeds (run once by hand: `NUMAPLACE_WRITE_CORPUS=1 cargo test ...`).
#[test]
fn write_corpus_seeds_when_asked() {
    if std::env::var_os("NUMAPLACE_WRITE_CORPUS").is_none() {
        return;
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/line_reader");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("valid-3-threads"), raw_trace(&header(3), &valid_ops())).unwrap();
    std::fs::write(dir.join("valid-1-thread"), raw_trace(&header(1), &[vec![EndInit, Read(0), Write(64), Compute(7)]])).unwrap();
    std::fs::write(dir.join("lock-held"), raw_trace(&header(1), &[vec![EndInit, Lock(0)]])).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Any mutation of a valid trace reads to a result or a one-line error naming the input.
    #[test]
    fn mutated_traces_never_panic(flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8), cut in any::<usize>()) {
        let mut b = raw_trace(&header(3), &valid_ops());
        for (i, v) in flips {
            let n = b.len();
            b[i % n] = v;
        }
        if cut % 4 == 0 {
            b.truncate(cut % (b.len() + 1));
        }
        if let Err(e) = read_line_all_for_fuzz(&b) {
            let m = e.to_string();
            prop_assert!(!m.contains('\n') && m.starts_with("input: "), "{}", m);
        }
    }

    /// Random valid programs round-trip exactly.
    #[test]
    fn random_programs_round_trip(seed in any::<u64>(), threads in 1usize..5, phases in 0usize..4) {
        let mut r = numaplace_model::rng::SplitMix64::new(seed);
        let mut ops = vec![Vec::new(); threads];
        for o in &mut ops {
            o.push(Barrier);
            o.push(EndInit);
            for _ in 0..phases {
                for _ in 0..(r.next_u64() % 50) {
                    let a = r.next_u64() % (3 * 8192);
                    o.push(match r.next_u64() % 4 { 0 => Read(a), 1 => Write(a), 2 => Compute(r.next_u64() as u32), _ => Read(a & !63) });
                }
                o.push(Barrier);
            }
        }
        let p = tmp(&format!("rand-{seed}"));
        export_line(&mut VecProgram::new(regions(), ops.clone(), 7), 8192, 64, vec![], &p).unwrap();
        let got = read_back(&mut LineTrace::open(&p).unwrap()).unwrap();
        std::fs::remove_file(&p).ok();
        prop_assert_eq!(got, ops);
    }
}
