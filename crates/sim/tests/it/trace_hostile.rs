//! Hostile traces (issue 16): iteration numbers, region counts and think times beyond the
//! documented bounds, text traces that repeat what may be said once, invalid UTF-8, and traces
//! read from pipes and FIFOs, which can be opened only once. Each case is refused with an error
//! naming the file and the line or byte, or (for a valid trace from a pipe) read correctly.

use numaplace_sim::presets::preset;
use numaplace_sim::trace::{self, TraceHeader, TraceWriter, MAX_ITERATION, MAX_REGIONS, MAX_THINK_NS};
use numaplace_sim::workload::{Epoch, Txn};
use numaplace_sim::{simulate_on, RunConfig};
use numaplace_outfile::{TempDir, TempPath};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A fresh directory per call (tests run in parallel), removed when dropped.
fn tmpdir() -> TempDir {
    TempDir::new("hostile-test").unwrap()
}

/// A fresh path per call, removed with its directory when dropped.
fn tmp(name: &str) -> TempPath {
    TempPath::new("hostile-test", name).unwrap()
}

/// The header lines of a small text trace on the Origin2000's page and line size.
const HEAD: &str = "numaplace-trace 1\npage_size 16384\nline_size 128\nthreads 2\nregion a 0 4\n";

/// The error `trace info` gives for `bytes` written to a file named `name`.
fn info_err(bytes: &[u8], name: &str) -> String {
    let p = tmp(name);
    std::fs::write(&p, bytes).unwrap();
    let e = trace::info(&p).err().unwrap_or_else(|| panic!("{name}: a malformed trace must be refused")).to_string();
    assert!(!e.contains('\n'), "{e}");
    assert!(e.starts_with(&p.display().to_string()), "the error names the file: {e}");
    e
}

/// A binary trace of one epoch per `(iteration, think)` on a one-region, two-thread header.
fn binary(iterations: &[(u32, f64)], meta: Vec<(String, String)>) -> Vec<u8> {
    let h = TraceHeader {
        page_size: 16384,
        line_size: 128,
        threads: 2,
        regions: vec![numaplace_model::Region { name: "a".into(), first_page: 0, pages: 4 }],
        meta,
    };
    let p = Path::new("mem");
    let mut raw = Vec::new();
    let mut w = TraceWriter::new(&mut raw, &h, p).unwrap();
    for &(it, think) in iterations {
        let mut e = Epoch::default();
        e.reset(2, it, "x");
        e.threads[0].txns.push(Txn::read(1, 1));
        e.threads[1].think_ns = think;
        w.epoch(&e, p).unwrap();
    }
    w.finish(p).unwrap();
    raw
}

#[test]
fn an_iteration_number_beyond_the_maximum_is_refused() {
    let big = 10_000_000u64;
    let e = info_err(format!("{HEAD}epoch 1 x\nend\nepoch {big} x\n0 1 1 0\nend\n").as_bytes(), "it.txt");
    assert!(e.ends_with(&format!("line 8: iteration {big} exceeds the maximum iteration number {MAX_ITERATION}")), "{e}");
    let e = info_err(&binary(&[(1, 0.0), (big as u32, 0.0)], vec![]), "it.nptrace");
    assert!(e.contains(&format!("iteration {big} exceeds the maximum iteration number {MAX_ITERATION}")), "{e}");
    assert!(e.contains("payload byte "), "the error names the byte: {e}");
    // One past the maximum is refused, the maximum itself is read.
    let e = info_err(format!("{HEAD}epoch {} x\nend\n", MAX_ITERATION + 1).as_bytes(), "edge.txt");
    assert!(e.contains("exceeds the maximum iteration number"), "{e}");
    let p = tmp("max.txt");
    std::fs::write(&p, format!("{HEAD}epoch {MAX_ITERATION} x\n0 1 1 0\nend\n")).unwrap();
    assert_eq!(trace::info(&p).unwrap().iterations, MAX_ITERATION);
}

#[test]
fn an_iteration_beyond_2_to_the_32_gives_the_true_reason() {
    let e = info_err(format!("{HEAD}epoch 1 x\nend\nepoch 4294967297 x\nend\n").as_bytes(), "wrap.txt");
    assert!(e.ends_with(&format!("line 8: iteration 4294967297 exceeds the maximum iteration number {MAX_ITERATION}")), "{e}");
    // In binary the iteration is a varint; patch the second epoch's one-byte varint `2` into
    // the five bytes of 2^32 + 1 would move every later byte, so build the payload by hand
    // instead: a stored block holding one epoch whose iteration is 2^32 + 1.
    let mut raw = vec![1u8]; // epoch start
    let mut v = (1u64 << 32) + 1;
    while v >= 0x80 {
        raw.push(v as u8 | 0x80);
        v >>= 7;
    }
    raw.push(v as u8);
    raw.push(1);
    raw.push(b'x');
    for _ in 0..2 {
        raw.extend_from_slice(&f64::INFINITY.to_le_bytes());
        raw.extend_from_slice(&0f64.to_le_bytes());
    }
    raw.extend_from_slice(&[3, 0]); // epoch end, no records
    let b = one_stored_block(&raw, 1, 0);
    let e = info_err(&b, "wrap.nptrace");
    assert!(e.contains(&format!("iteration 4294967297 exceeds the maximum iteration number {MAX_ITERATION}")), "{e}");
    assert!(!e.contains("must not decrease"), "{e}");
}

/// CRC-32 (IEEE), bit by bit: the test builds a block without the crate's dependency.
fn crc32fast_hash(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

#[test]
fn an_iterations_metadata_value_beyond_the_maximum_is_refused() {
    let e = info_err(format!("{HEAD}meta iterations 100000000\nepoch 1 x\nend\n").as_bytes(), "meta.txt");
    assert!(e.ends_with(&format!("line 6: metadata iterations = 100000000: expected an iteration count in 0..={MAX_ITERATION}")), "{e}");
    let e = info_err(&binary(&[(1, 0.0)], vec![("iterations".into(), "100000000".into())]), "meta.nptrace");
    assert!(e.contains(&format!("metadata iterations = 100000000: expected an iteration count in 0..={MAX_ITERATION}")), "{e}");
}

#[test]
fn a_think_time_beyond_the_bound_is_refused() {
    let e = info_err(format!("{HEAD}epoch 1 x\nthink 1 1e300\n0 1 1 0\nend\n").as_bytes(), "think.txt");
    assert!(e.ends_with(&format!("line 7: think 1e300: expected a finite number of ns in 0..={MAX_THINK_NS:e}")), "{e}");
    let e = info_err(&binary(&[(1, 1e300)], vec![]), "think.nptrace");
    assert!(e.contains(&format!("thread 1: think time 1e300 ns: expected 0..={MAX_THINK_NS:e}")), "{e}");
    // The bound itself is accepted.
    let p = tmp("ok.txt");
    std::fs::write(&p, format!("{HEAD}epoch 1 x\nthink 1 {MAX_THINK_NS}\n0 1 1 0\nend\n")).unwrap();
    assert_eq!(trace::info(&p).unwrap().epochs, 1);
}

#[test]
fn text_header_lines_said_twice_are_refused() {
    let e = info_err(b"numaplace-trace 1\npage_size 16384\nline_size 128\nthreads 2\nthreads 3\nregion a 0 4\n", "threads.txt");
    assert!(e.ends_with("line 5: \"threads\" given twice (first on line 4)"), "{e}");
    let e = info_err(format!("{HEAD}region a 4 2\nepoch 1 x\nend\n").as_bytes(), "dup.txt");
    assert!(e.ends_with("line 6: region name \"a\" given twice (first on line 5)"), "{e}");
}

#[test]
fn mlp_or_think_after_records_is_refused() {
    let e = info_err(format!("{HEAD}epoch 1 x\n0 1 1 0\nmlp 0 2\nend\n").as_bytes(), "mlp.txt");
    assert!(e.ends_with("line 8: \"mlp\" after the epoch's records: expected it before the first record"), "{e}");
    let e = info_err(format!("{HEAD}epoch 1 x\n0 1 1 0\nthink 1 5\nend\n").as_bytes(), "think-late.txt");
    assert!(e.ends_with("line 8: \"think\" after the epoch's records: expected it before the first record"), "{e}");
}

#[test]
fn invalid_utf8_in_a_text_trace_names_its_line() {
    let mut b = format!("{HEAD}epoch 1 x\n").into_bytes();
    b.extend_from_slice(b"0 1 \xff 0\nend\n");
    let e = info_err(&b, "utf8.txt");
    assert!(e.contains(": line 7: "), "{e}");
    assert!(e.ends_with("invalid UTF-8 at byte 85: expected text"), "{e}");
}

#[test]
fn the_number_of_regions_is_bounded_before_allocating() {
    let mut t = String::from("numaplace-trace 1\npage_size 16384\nline_size 128\nthreads 1\n");
    for r in 0..=MAX_REGIONS {
        t.push_str(&format!("region r{r} {r} 1\n"));
    }
    let e = info_err(t.as_bytes(), "regions.txt");
    let line = 5 + MAX_REGIONS;
    assert!(e.ends_with(&format!("line {line}: more than {MAX_REGIONS} regions")), "{e}");
    // A binary header declaring a region count beyond the bound is refused at that field.
    let mut b = binary(&[(1, 0.0)], vec![]);
    b[28..32].copy_from_slice(&(MAX_REGIONS as u32 + 1).to_le_bytes());
    let body_len = u32::from_le_bytes(b[12..16].try_into().unwrap()) as usize;
    let crc = crc32fast_hash(&b[..16 + body_len]);
    b[16 + body_len..20 + body_len].copy_from_slice(&crc.to_le_bytes());
    let e = info_err(&b, "regions.nptrace");
    assert!(e.contains(&format!("byte 28: region count {}: expected at most {MAX_REGIONS}", MAX_REGIONS + 1)), "{e}");
}

/// Runs `f` on a thread of its own and fails the test if it has not finished in a minute: a
/// trace reader that blocks on a pipe must fail the test, not stall the suite.
fn within_a_minute<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(60)).unwrap_or_else(|_| panic!("{what}: still blocked after 60 s (a second open of a pipe?)"))
}

/// A valid text and a valid binary trace (four threads) and the result of replaying each from
/// a regular file.
fn valid_traces(dir: &Path) -> Vec<(PathBuf, String)> {
    let m = preset("origin2000").unwrap();
    let mut out = Vec::new();
    for text in [true, false] {
        let p = dir.join(if text { "v.txt" } else { "v.nptrace" });
        let cfg = RunConfig {
            machine: "origin2000".into(),
            workload: "random:pages=32,accesses=50,iterations=2".into(),
            threads: 4,
            ..RunConfig::default()
        };
        numaplace_sim::run::export_trace(&m, &cfg, &p, text).unwrap();
        let replay = RunConfig { trace: Some(p.display().to_string()), threads_from_trace: true, ..cfg };
        let json = simulate_on(&m, &replay).unwrap().to_json();
        out.push((p, json));
    }
    out
}

/// Replays `path` (the thread count taken from its header) and returns the result's JSON
/// without the trace path, which differs between a file and a pipe.
fn replay(path: String) -> Result<String, String> {
    let m = preset("origin2000").unwrap();
    let cfg = RunConfig { machine: "origin2000".into(), trace: Some(path), threads_from_trace: true, ..RunConfig::default() };
    simulate_on(&m, &cfg).map(|mut r| {
        r.config.trace = None;
        r.to_json()
    })
    .map_err(|e| e.to_string())
}

fn without_trace(json: &str) -> String {
    let mut v: serde_json::Value = serde_json::from_str(json).unwrap();
    v["config"]["trace"] = serde_json::Value::Null;
    v.to_string()
}

#[test]
fn a_trace_from_an_anonymous_pipe_is_read_once_and_correctly() {
    let dir = tmpdir();
    for (file, expected) in valid_traces(&dir) {
        // `cat FILE |`: the child's stdout is a real pipe, read through /proc/self/fd as the
        // shell's `<(…)` and `/dev/stdin` are.
        for what in ["simulate", "info"] {
            let mut child = std::process::Command::new("cat").arg(&file).stdout(std::process::Stdio::piped()).spawn().unwrap();
            let stdout = child.stdout.take().unwrap();
            let fd = std::os::fd::AsRawFd::as_raw_fd(&stdout);
            let path = format!("/proc/self/fd/{fd}");
            let got = within_a_minute(what, move || {
                let r = if what == "simulate" {
                    replay(path)
                } else {
                    trace::info(Path::new(&path)).map(|i| format!("{} {}", i.epochs, i.threads)).map_err(|e| e.to_string())
                };
                drop(stdout);
                r
            });
            let _ = child.wait();
            let got = got.unwrap_or_else(|e| panic!("{} through a pipe ({what}): {e}", file.display()));
            if what == "simulate" {
                assert_eq!(without_trace(&got), without_trace(&expected), "{}", file.display());
            } else {
                assert_eq!(got, "3 4", "{}", file.display());
            }
        }
    }
}

#[test]
fn a_trace_from_a_fifo_is_read_once_and_does_not_hang() {
    let dir = tmpdir();
    for (file, expected) in valid_traces(&dir) {
        let fifo = dir.join("fifo");
        let _ = std::fs::remove_file(&fifo);
        let ok = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(ok.success(), "mkfifo failed");
        let bytes = std::fs::read(&file).unwrap();
        // The writer opens the FIFO once: a reader that opens it twice would wait for a
        // second writer for ever.
        let w = fifo.clone();
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new().write(true).open(&w).unwrap();
            let _ = f.write_all(&bytes);
        });
        let p = fifo.display().to_string();
        let got = within_a_minute("a FIFO", move || replay(p));
        writer.join().unwrap();
        let got = got.unwrap_or_else(|e| panic!("{} through a FIFO: {e}", file.display()));
        assert_eq!(without_trace(&got), without_trace(&expected), "{}", file.display());
    }
}

/// A binary trace of one epoch whose thread 0 has `n` records of page 0, each of `count`
/// reads, in one stored block: the records a writer never produces (it splits counts into
/// transactions of at most 65,535 lines), so each expands on reading.
fn split_bomb(n: usize, count: u64) -> Vec<u8> {
    let mut raw = vec![1u8, 1, 1, b'x']; // epoch start, iteration 1, phase "x"
    for _ in 0..2 {
        raw.extend_from_slice(&f64::INFINITY.to_le_bytes());
        raw.extend_from_slice(&0f64.to_le_bytes());
    }
    raw.push(2); // a run of thread 0
    raw.push(0);
    let mut v = n as u64;
    while v >= 0x80 {
        raw.push(v as u8 | 0x80);
        v >>= 7;
    }
    raw.push(v as u8);
    raw.push(1 | 5 << 4); // one byte of page delta, five of counts
    for _ in 0..n {
        raw.push(0);
        raw.extend_from_slice(&(count << 1).to_le_bytes()[..5]);
    }
    raw.push(3); // epoch end
    let mut v = n as u64;
    while v >= 0x80 {
        raw.push(v as u8 | 0x80);
        v >>= 7;
    }
    raw.push(v as u8);
    one_stored_block(&raw, 1, n as u64)
}

/// A trace of no regions' header followed by one stored (uncompressed) block holding `raw`,
/// and the end marker with the totals `records` and `transactions` ('Z' and two u64s: the 17
/// bytes cut from the empty trace).
fn one_stored_block(raw: &[u8], records: u64, transactions: u64) -> Vec<u8> {
    let head = binary(&[], vec![]);
    let mut b = head[..head.len() - 17].to_vec();
    b.push(b'S');
    b.extend_from_slice(&(raw.len() as u32).to_le_bytes());
    b.extend_from_slice(&(raw.len() as u32).to_le_bytes());
    b.extend_from_slice(&crc32fast_hash(raw).to_le_bytes());
    b.extend_from_slice(raw);
    b.push(b'Z');
    b.extend_from_slice(&records.to_le_bytes());
    b.extend_from_slice(&transactions.to_le_bytes());
    b
}

#[test]
fn records_that_expand_beyond_the_split_bound_are_refused() {
    use numaplace_sim::trace::MAX_SPLIT_TRANSACTIONS;
    // 300 records of 2^32 - 1 lines each would be 300 × 65,537 transactions (150 MiB): a few
    // kilobytes of file, and without a bound a block of such records would take terabytes.
    let e = info_err(&split_bomb(300, u32::MAX as u64), "split.nptrace");
    assert!(
        e.contains(&format!("more than {MAX_SPLIT_TRANSACTIONS} transactions beyond one per record")),
        "{e}"
    );
    assert!(e.contains("payload byte "), "{e}");
    // A few such records are read.
    let p = tmp("few.nptrace");
    std::fs::write(&p, split_bomb(3, u32::MAX as u64)).unwrap();
    assert_eq!(trace::info(&p).unwrap().transactions, 3 * u32::MAX as u64);
    // In text the bound holds for the whole trace, which is held in memory.
    let mut t = format!("{HEAD}epoch 1 x\n");
    for _ in 0..300 {
        t.push_str("0 1 4294967295 0\n");
    }
    t.push_str("end\n");
    let e = info_err(t.as_bytes(), "split.txt");
    assert!(e.contains(&format!("more than {MAX_SPLIT_TRANSACTIONS} transactions beyond one per record")), "{e}");
    assert!(e.contains(": line "), "{e}");
}

#[test]
fn trace_info_of_either_level_reads_a_fifo_once() {
    // `numaplace trace info` (`trace::info_any`) told the levels apart by opening the file a
    // first time, then read it again: a pipe's first bytes were gone, and a FIFO waited for a
    // second writer.
    let dir = tmpdir();
    let line = dir.join("ge.npline");
    let talbot = preset("talbot64").unwrap();
    let cfg = RunConfig { machine: "talbot64".into(), workload: "ge:n=16".into(), given: vec!["workload"], ..RunConfig::default() };
    numaplace_sim::run::export_trace(&talbot, &cfg, &line, false).unwrap();
    let mut files: Vec<PathBuf> = valid_traces(&dir).into_iter().map(|(p, _)| p).collect();
    files.push(line);
    for file in files {
        let expected = serde_json::to_string(&trace::info_any(&file).unwrap()).unwrap();
        let fifo = dir.join("info-fifo");
        let _ = std::fs::remove_file(&fifo);
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success(), "mkfifo failed");
        let bytes = std::fs::read(&file).unwrap();
        let w = fifo.clone();
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new().write(true).open(&w).unwrap();
            let _ = f.write_all(&bytes);
        });
        let p = fifo.clone();
        let got = within_a_minute("trace info of a FIFO", move || trace::info_any(&p).map(|i| serde_json::to_string(&i).unwrap()));
        writer.join().unwrap();
        assert_eq!(got.unwrap_or_else(|e| panic!("{}: {e}", file.display())), expected, "{}", file.display());
    }
}
