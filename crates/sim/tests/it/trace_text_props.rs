//! Property tests of the text-trace reader (issue 16): arbitrary bytes, and arbitrary small
//! mutations of a valid text trace, give either a valid trace or a one-line error naming a
//! line of the input; never a panic, never an allocation beyond a bound linear in the input,
//! never a hang.
//!
//! This file is its own test binary so that the counting allocator below sees only this
//! reader's allocations (counted per thread, as proptest's cases may run beside others).

use numaplace_sim::trace::{TextTrace, TraceSource, MAX_ITERATION, MAX_THINK_NS};
use numaplace_sim::workload::{Epoch, Workload};
use proptest::prelude::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::time::{Duration, Instant};

/// The system allocator, counting the bytes each thread holds and the most it held.
struct Counting;

thread_local! {
    // `const` initialisers: reading them never allocates, which the allocator relies on.
    static HELD: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn note(delta: isize) {
    let _ = HELD.try_with(|h| {
        let now = h.get() + delta;
        h.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        note(l.size() as isize);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        note(-(l.size() as isize));
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        // Both blocks exist while the contents are copied.
        note(new as isize);
        let q = System.realloc(p, l, new);
        note(-(l.size() as isize));
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// The most bytes the reader may hold for an input of `lines` lines and `len` bytes: a fixed
/// allowance, a few times the input (the text, the parsed epochs) and, per line, the largest
/// record's expansion: reads and writes of up to 2^32 lines each become 2 × 65,537
/// eight-byte transactions (about 1 MiB), doubled for a vector's growth.
fn allowance(len: usize, lines: usize) -> isize {
    (16 << 20) + 16 * len as isize + (lines as isize) * (4 << 20)
}

/// A generous limit per input: a hang fails the case, a loaded machine does not.
const TIME_LIMIT: Duration = Duration::from_secs(30);

/// Parses `bytes` and checks the outcome: a valid trace (every epoch checked against its
/// header and the bounds) or a one-line error naming a line; within the allocation and time
/// allowances.
fn check(bytes: &[u8]) -> Result<(), TestCaseError> {
    let lines = bytes.iter().filter(|&&b| b == b'\n').count() + 1;
    let start = Instant::now();
    let base = HELD.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let outcome = TextTrace::parse_bytes(bytes, "prop.txt").map(|mut t| {
        let h = t.header().clone();
        let mut epochs = Vec::new();
        let mut e = Epoch::default();
        while t.next_epoch(&mut e) {
            epochs.push(e.clone());
        }
        (h, epochs)
    });
    let peak = PEAK.with(Cell::get) - base;
    prop_assert!(peak <= allowance(bytes.len(), lines), "{peak} bytes held for a {}-byte input", bytes.len());
    prop_assert!(start.elapsed() < TIME_LIMIT, "{:?} for a {}-byte input", start.elapsed(), bytes.len());
    match outcome {
        Err(e) => {
            let m = e.to_string();
            prop_assert!(!m.contains('\n'), "{m}");
            prop_assert!(m.starts_with("prop.txt: line "), "the error names no line: {m}");
        }
        Ok((h, epochs)) => {
            let pages = h.pages();
            let mut last = 0;
            for e in &epochs {
                prop_assert_eq!(e.threads.len(), h.threads);
                prop_assert!(e.iteration >= last && e.iteration <= MAX_ITERATION);
                last = e.iteration;
                for w in &e.threads {
                    prop_assert!(w.mlp >= 1.0 && (0.0..=MAX_THINK_NS).contains(&w.think_ns));
                    prop_assert!(w.txns.iter().all(|t| (t.page as u64) < pages && t.count > 0));
                }
            }
            let mut names: Vec<&str> = h.regions.iter().map(|r| r.name.as_str()).collect();
            names.sort_unstable();
            names.dedup();
            prop_assert_eq!(names.len(), h.regions.len(), "duplicate region names accepted");
        }
    }
    Ok(())
}

/// A valid trace touching every kind of line.
const VALID: &str = "numaplace-trace 1\npage_size 16384\nline_size 128\nthreads 2\nmeta source hand-written\nmeta iterations 2\n\
region a 0 4\nregion b 4 2\nepoch 0 init\n0 0 64 0\n1 4 0 64\nend\nepoch 1 main\nmlp 0 2.5\nthink 1 10\n0 1 3 1\n1 5 7 2\nend\n\
epoch 2 main # a comment\nmlp 1 inf\n0 3 1 0\nend\n";

/// Words that sit at or beyond the reader's bounds, for mutations to put in place of others.
const HOSTILE: &[&str] = &[
    "0", "-1", "1e300", "nan", "inf", "-inf", "4294967295", "4294967296", "4294967297", "18446744073709551616", "1048576",
    "1048577", "65536", "65537", "1e12", "1000000000001", "threads", "region", "epoch", "end", "mlp", "think", "meta",
    "page_size", "a", "\u{fffd}", "#",
];

/// One small change to a trace's lines.
#[derive(Clone, Debug)]
enum Mutation {
    /// Replaces word `word` of line `line` (both taken modulo what exists) with a hostile one.
    Word { line: usize, word: usize, with: usize },
    /// Repeats line `line` right after itself.
    Repeat(usize),
    /// Deletes line `line`.
    Delete(usize),
    /// Swaps line `line` with the next.
    Swap(usize),
    /// Overwrites byte `at` with `byte` (possibly breaking UTF-8).
    Byte { at: usize, byte: u8 },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<usize>(), 0..HOSTILE.len()).prop_map(|(line, word, with)| Mutation::Word { line, word, with }),
        any::<usize>().prop_map(Mutation::Repeat),
        any::<usize>().prop_map(Mutation::Delete),
        any::<usize>().prop_map(Mutation::Swap),
        (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Mutation::Byte { at, byte }),
    ]
}

fn apply(text: &str, ms: &[Mutation]) -> Vec<u8> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut bytes_edits = Vec::new();
    for m in ms {
        let n = lines.len().max(1);
        match m {
            Mutation::Word { line, word, with } => {
                if let Some(l) = lines.get_mut(line % n) {
                    let mut words: Vec<&str> = l.split(' ').collect();
                    let i = word % words.len();
                    words[i] = HOSTILE[*with];
                    *l = words.join(" ");
                }
            }
            Mutation::Repeat(i) if !lines.is_empty() => {
                let l = lines[i % n].clone();
                lines.insert(i % n + 1, l);
            }
            Mutation::Delete(i) if !lines.is_empty() => {
                lines.remove(i % n);
            }
            Mutation::Swap(i) if lines.len() > 1 => lines.swap(i % (n - 1), i % (n - 1) + 1),
            Mutation::Byte { at, byte } => bytes_edits.push((*at, *byte)),
            _ => {}
        }
    }
    let mut out = (lines.join("\n") + "\n").into_bytes();
    for (at, byte) in bytes_edits {
        let i = at % out.len();
        out[i] = byte;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_give_a_trace_or_an_error_with_a_line(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        check(&bytes)?;
    }

    #[test]
    fn bytes_after_the_magic_line_give_a_trace_or_an_error_with_a_line(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let mut b = b"numaplace-trace 1\n".to_vec();
        b.extend_from_slice(&bytes);
        check(&b)?;
    }

    #[test]
    fn small_mutations_of_a_valid_trace_give_a_trace_or_an_error_with_a_line(ms in proptest::collection::vec(mutation(), 1..4)) {
        check(&apply(VALID, &ms))?;
    }
}

#[test]
fn the_valid_trace_is_valid_and_the_checks_can_fail() {
    // The mutations start from a trace the reader accepts...
    let mut t = TextTrace::parse(VALID, "valid").unwrap_or_else(|e| panic!("{e}"));
    let mut e = Epoch::default();
    let mut n = 0;
    while t.next_epoch(&mut e) {
        n += 1;
    }
    assert_eq!(n, 3);
    // ...and the allocation count sees the reader's memory: a record of 2^32 - 1 reads and
    // writes expands to about a megabyte of transactions.
    let big = VALID.replace("0 3 1 0", "0 3 4294967295 4294967295");
    let base = HELD.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let _t = TextTrace::parse(&big, "big").unwrap();
    assert!(PEAK.with(Cell::get) - base > 1 << 20, "the counting allocator missed the reader's allocations");
}
