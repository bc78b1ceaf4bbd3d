//! Trace round trips and every malformed-input case, each with its message.

use super::*;
use crate::run::{export_trace, simulate_on, RunConfig};
use crate::presets::preset;
use crate::workload::Init;
use numaplace_outfile::TempPath;

/// A fresh path per call (tests run in parallel), removed with its directory when dropped.
fn tmp(name: &str) -> TempPath {
    TempPath::new("trace-test", name).unwrap()
}

fn cfg(workload: &str, threads: usize) -> RunConfig {
    RunConfig { machine: "origin2000".into(), workload: workload.into(), threads, ..RunConfig::default() }
}

/// A small valid binary trace and its bytes.
fn sample() -> (TempPath, Vec<u8>) {
    let m = preset("origin2000").unwrap();
    let p = tmp("sample.nptrace");
    export_trace(&m, &cfg("random:pages=64,accesses=300,iterations=2,write_fraction=0.3", 4), &p, false).unwrap();
    let bytes = std::fs::read(&p).unwrap();
    (p, bytes)
}

fn replay_err(bytes: &[u8], name: &str) -> String {
    replay_err_threads(bytes, name, 4)
}

fn replay_err_threads(bytes: &[u8], name: &str, threads: usize) -> String {
    let p = tmp(name);
    std::fs::write(&p, bytes).unwrap();
    let m = preset("origin2000").unwrap();
    let c = RunConfig { trace: Some(p.display().to_string()), ..cfg("ignored", threads) };
    let e = simulate_on(&m, &c).err().expect("a malformed trace must fail").to_string();
    assert!(!e.contains('\n'), "{e}");
    e
}

#[test]
fn replay_is_byte_identical_to_the_kernel() {
    let m = preset("origin2000").unwrap();
    for (w, init) in [("stream:pages=64,iterations=3", Init::Parallel), ("random:pages=128,accesses=500", Init::Sequential), ("traverse:pattern=random,pages=16", Init::None)] {
        let threads = if w.starts_with("traverse") { 1 } else { 16 };
        let c = RunConfig { init, placement: "random".into(), seed: 5, ..cfg(w, threads) };
        let direct = simulate_on(&m, &c).unwrap();
        for text in [false, true] {
            let p = tmp(if text { "rt.txt" } else { "rt.nptrace" });
            export_trace(&m, &c, &p, text).unwrap();
            let c2 = RunConfig { trace: Some(p.display().to_string()), ..c.clone() };
            let mut replay = simulate_on(&m, &c2).unwrap();
            assert_eq!(replay.config.trace.take(), Some(p.display().to_string()));
            assert_eq!(direct.to_json(), replay.to_json(), "{w} text={text}");
        }
    }
}

#[test]
fn info_summarises() {
    let (p, _) = sample();
    let i = info(&p).unwrap();
    assert_eq!((i.format, i.threads, i.pages, i.epochs, i.iterations), ("binary", 4, 64, 3, 2));
    assert_eq!(i.transactions, 64 * 128 + 2 * 4 * 300);
    assert_eq!(i.phases[0].0, "init");
    assert!(i.meta.iter().any(|(k, v)| k == "source" && v.starts_with("random:pages=64")));
}

#[test]
fn bad_magic() {
    let (_, mut b) = sample();
    b[0] = b'X';
    let e = replay_err(&b, "magic.nptrace");
    assert!(e.ends_with("byte 0: expected the magic \"NUMAPTRC\" or a first line \"numaplace-trace 1\""), "{e}");
}

#[test]
fn wrong_version() {
    let (_, mut b) = sample();
    b[8] = 9;
    let e = replay_err(&b, "version.nptrace");
    assert!(e.ends_with("byte 8: format version 9, this numaplace reads version 1"), "{e}");
}

#[test]
fn truncation_mid_record_and_everywhere() {
    let (_, b) = sample();
    // Cut inside the last block: its compressed bytes are incomplete.
    let e = replay_err(&b[..b.len() - 40], "trunc.nptrace");
    assert!(e.contains("(truncated)"), "{e}");
    // Every prefix fails cleanly with an offset.
    for cut in (0..b.len()).step_by(37) {
        let e = replay_err(&b[..cut], "prefix.nptrace");
        assert!(e.contains("byte "), "cut {cut}: {e}");
    }
}

#[test]
fn corrupted_compressed_block() {
    let (_, b) = sample();
    let header_len = 16 + u32::from_le_bytes(b[12..16].try_into().unwrap()) as usize + 4;
    let mut c = b.clone();
    c[header_len + 13 + 5] ^= 0x55; // inside the first block's compressed bytes
    let e = replay_err(&c, "corrupt.nptrace");
    assert!(e.contains(&format!("byte {header_len}: ")), "{e}");
    assert!(e.contains("corrupt") || e.contains("checksum mismatch") || e.contains("decodes to"), "{e}");
}

#[test]
fn corrupted_header() {
    let (_, mut b) = sample();
    b[20] ^= 1;
    let e = replay_err(&b, "hdr.nptrace");
    assert!(e.contains("header checksum mismatch"), "{e}");
}

fn text_err(body: &str) -> String {
    TextTrace::parse(body, "t.txt").err().expect("must fail").to_string()
}

const TEXT_HEAD: &str = "numaplace-trace 1\npage_size 16384\nline_size 128\nthreads 2\nregion a 0 4\n";

#[test]
fn page_or_thread_out_of_range() {
    let e = text_err(&format!("{TEXT_HEAD}epoch 1 x\n0 4 1 0\nend\n"));
    assert_eq!(e, "t.txt: line 7: page 4 out of range (the trace has 4 pages)");
    let e = text_err(&format!("{TEXT_HEAD}epoch 1 x\n2 0 1 0\nend\n"));
    assert_eq!(e, "t.txt: line 7: thread 2 out of range (the trace has 2 threads)");
    // The same in binary: write a valid trace, then patch a record's thread.
    let m = preset("origin2000").unwrap();
    let p = tmp("one.nptrace");
    let txt = tmp("one.txt");
    std::fs::write(&txt, format!("{TEXT_HEAD}epoch 1 x\n1 3 1 0\nend\n")).unwrap();
    let mut src = TextTrace::open(&txt).unwrap();
    let h = src.header().clone();
    export(&mut src, &h, &p).unwrap();
    let c = RunConfig { trace: Some(p.display().to_string()), ..cfg("x", 2) };
    assert!(simulate_on(&m, &c).is_ok());
    let mut raw = Vec::new();
    let mut w = TraceWriter::new(&mut raw, &h, &p).unwrap();
    let mut e = Epoch::default();
    e.reset(3, 1, "x");
    e.threads[2].txns.push(crate::workload::Txn::read(1, 1));
    w.epoch(&e, &p).unwrap();
    w.finish(&p).unwrap();
    let err = replay_err_threads(&raw, "thread.nptrace", 2);
    assert!(err.contains("record thread 2 out of range (the trace has 2 threads)"), "{err}");
}

#[test]
fn text_errors_name_the_line_and_expectation() {
    assert_eq!(text_err("hello"), "t.txt: line 1: expected \"numaplace-trace 1\", found \"hello\"");
    assert_eq!(
        text_err(&format!("{TEXT_HEAD}epoch 1 x\n0 1 one 0\nend\n")),
        "t.txt: line 7: expected a read count, found \"one\""
    );
    assert_eq!(
        text_err(&format!("{TEXT_HEAD}epoch 1 x\n0 1 1 0\n")),
        "t.txt: line 7: the trace ends inside an epoch (missing \"end\")"
    );
    assert!(text_err("numaplace-trace 1\npage_size 1000\nthreads 1\nline_size 64\nregion a 0 1\nepoch 1 x\nend\n")
        .contains("page size 1000 is not a power of two"));
}

#[test]
fn mismatched_machine_or_threads_is_refused() {
    let (p, _) = sample();
    let m = preset("origin2000").unwrap();
    let c = RunConfig { trace: Some(p.display().to_string()), ..cfg("x", 8) };
    let e = simulate_on(&m, &c).unwrap_err().to_string();
    assert!(e.ends_with("the trace's thread count is 4 but the run asks for 8"), "{e}");
    let s = preset("sunfire6800").unwrap();
    let c = RunConfig { trace: Some(p.display().to_string()), ..cfg("x", 4) };
    let e = simulate_on(&s, &c).unwrap_err().to_string();
    assert!(e.ends_with("the trace's page size is 16384 but machine 'sunfire6800' has 8192"), "{e}");
}

#[test]
fn zigzag_round_trips() {
    for v in [0i64, 1, -1, 12345, -98765, i64::MAX / 2, i64::MIN / 2] {
        assert_eq!(binary::zigzag_roundtrip(v), v);
    }
}

/// The files of a saved fuzz corpus (`fuzz/corpus/NAME`), each with its bytes.
fn corpus(name: &str) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus").join(name);
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut files: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    files.sort();
    files.into_iter().map(|p| (p.clone(), std::fs::read(&p).unwrap())).collect()
}

/// Replays the saved fuzz corpus of the binary reader (`fuzz/corpus/trace_reader`), as its
/// fuzz target checks each input: a result or a one-line error, never a panic.
#[test]
fn fuzz_corpus_replays_without_panic() {
    let files = corpus("trace_reader");
    assert!(files.len() > 100, "the saved corpus is missing ({} files)", files.len());
    for (p, bytes) in files {
        if let Err(e) = crate::trace::read_all_for_fuzz(&bytes) {
            assert!(!e.to_string().contains('\n'), "{}: {e}", p.display());
        }
    }
}

/// Replays the saved fuzz corpus of the text reader (`fuzz/corpus/text_reader`), as its fuzz
/// target checks each input: a result, or a one-line error naming a line of the input.
#[test]
fn text_fuzz_corpus_replays_with_line_numbers() {
    let files = corpus("text_reader");
    assert!(files.len() >= 10, "the saved corpus is missing ({} files)", files.len());
    let mut valid = 0;
    for (p, bytes) in files {
        match crate::trace::read_text_for_fuzz(&bytes) {
            Ok(_) => valid += 1,
            Err(e) => {
                let m = e.to_string();
                assert!(!m.contains('\n') && m.starts_with("input: line "), "{}: {m}", p.display());
            }
        }
    }
    // The seeds include valid traces, so that the fuzzer starts from inputs that get far.
    assert!(valid >= 2, "only {valid} valid seeds");
}

#[test]
fn unusual_records_round_trip_through_the_slow_path() {
    use crate::workload::Txn;
    let h = TraceHeader {
        page_size: 4096,
        line_size: 64,
        threads: 2,
        regions: vec![numaplace_model::Region { name: "huge".into(), first_page: 0, pages: u32::MAX }],
        meta: vec![],
    };
    let mut e = Epoch::default();
    e.reset(2, 1, "odd");
    // Wide deltas (5 bytes), full-width counts, and a thread with one record at a block tail.
    e.threads[0].txns = vec![Txn::read(0, 1), Txn::write(4_000_000_000, 65535), Txn::read(5, 3), Txn::write(5, 1)];
    e.threads[1].txns = vec![Txn::read(u32::MAX - 1, 7)];
    let p = tmp("odd.nptrace");
    let mut raw = Vec::new();
    let mut w = TraceWriter::new(&mut raw, &h, &p).unwrap();
    w.epoch(&e, &p).unwrap();
    w.finish(&p).unwrap();
    let mut t = BinaryTrace::from_reader(Box::new(std::io::Cursor::new(raw)), "odd").unwrap();
    let mut back = Epoch::default();
    assert!(t.next_epoch(&mut back));
    assert_eq!(back.threads[0].txns, e.threads[0].txns);
    assert_eq!(back.threads[1].txns, e.threads[1].txns);
    assert!(!t.next_epoch(&mut back));
    assert!(t.take_error().is_none());
    // A text record with both counts and a count beyond one transaction record splits.
    let text = "numaplace-trace 1\npage_size 4096\nline_size 64\nthreads 1\nregion a 0 2\nepoch 1 x\n0 1 70000 2\nend\n";
    let mut tt = TextTrace::parse(text, "t").unwrap();
    let mut ep = Epoch::default();
    assert!(tt.next_epoch(&mut ep));
    assert_eq!(ep.threads[0].txns, vec![Txn::read(1, 65535), Txn::read(1, 4465), Txn::write(1, 2)]);
}
