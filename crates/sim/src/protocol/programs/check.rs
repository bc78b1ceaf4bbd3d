//! Test support: the [`LineProgram`] contract checked on a whole run, and a counter.

use super::super::program::{Addr, LineCtx, LineOp, LineProgram, CHUNK};
use super::{build, Driver, Phased};
use numaplace_model::spec::Spec;

/// A small machine: `threads` threads, 8 KiB pages (seed 004 Table 1.1), 64-byte lines.
pub fn ctx(threads: usize) -> LineCtx {
    LineCtx { threads, page_size: 8192, line_size: 64, seed: 7 }
}

/// Every thread's whole stream, drained by `fill` calls in `order` (thread visiting order,
/// repeated until all are done), each call checked against [`CHUNK`].
pub fn drain(p: &mut dyn LineProgram, rotate: bool) -> Vec<Vec<LineOp>> {
    let n = p.threads();
    let mut streams = vec![Vec::new(); n];
    let mut done = vec![false; n];
    let mut round = 0usize;
    while done.iter().any(|d| !d) {
        for i in 0..n {
            let t = if rotate { (i + round) % n } else { n - 1 - i };
            if done[t] {
                continue;
            }
            let mut buf = Vec::new();
            let more = p.fill(t, &mut buf);
            assert!(buf.len() <= CHUNK, "fill appended {} > CHUNK", buf.len());
            if more {
                assert!(!buf.is_empty(), "fill returned true with nothing");
            } else {
                assert!(buf.is_empty(), "fill returned false with operations");
                done[t] = true;
                let mut again = Vec::new();
                assert!(!p.fill(t, &mut again) && again.is_empty(), "a finished thread came back");
            }
            streams[t].extend(buf);
        }
        round += 1;
    }
    streams
}

/// Checks the contract of `program.rs` on whole streams; panics naming the breach.
pub fn contract(p: &dyn LineProgram, streams: &[Vec<LineOp>], page: u64) {
    let regions = p.regions();
    assert!(!regions.is_empty());
    for w in regions.windows(2) {
        assert!(w[0].base + w[0].bytes <= w[1].base, "regions {} and {} overlap or are unsorted", w[0].name, w[1].name);
    }
    for r in regions {
        assert_eq!(r.base % page, 0, "region {} not page aligned", r.name);
        assert!(r.bytes > 0, "region {} empty", r.name);
    }
    let inside = |a: Addr| regions.iter().any(|r| a >= r.base && a < r.base + r.bytes);
    let mut shape: Option<(usize, usize)> = None;
    for (t, s) in streams.iter().enumerate() {
        let mut barriers = 0;
        let mut end_init = None;
        let mut held: Option<Addr> = None;
        for (i, op) in s.iter().enumerate() {
            match *op {
                LineOp::Read(a) | LineOp::Write(a) => {
                    assert!(inside(a), "thread {t} op {i}: {a:#x} outside every region")
                }
                LineOp::Compute(_) => {}
                LineOp::Barrier => {
                    assert!(held.is_none(), "thread {t}: barrier with a lock held");
                    barriers += 1;
                }
                LineOp::Lock(a) => {
                    assert!(inside(a), "thread {t}: lock {a:#x} outside every region");
                    assert!(held.is_none(), "thread {t} op {i}: lock while holding one");
                    held = Some(a);
                }
                LineOp::Unlock(a) => {
                    assert_eq!(held, Some(a), "thread {t} op {i}: unlock of a lock not held");
                    held = None;
                }
                LineOp::EndInit => {
                    assert!(end_init.is_none(), "thread {t}: EndInit twice");
                    assert!(i == 0 || s[i - 1] == LineOp::Barrier, "thread {t}: EndInit not after a barrier");
                    end_init = Some(barriers);
                }
            }
        }
        assert!(held.is_none(), "thread {t} ends holding a lock");
        let e = end_init.unwrap_or_else(|| panic!("thread {t}: no EndInit"));
        match shape {
            None => shape = Some((barriers, e)),
            Some(sh) => assert_eq!(sh, (barriers, e), "thread {t}: barriers / EndInit position differ from thread 0"),
        }
    }
}

/// Builds `spec` for `threads` threads, checks the contract, determinism (a second build
/// drained in another thread order gives the same streams) and returns the streams.
pub fn run(spec: &str, threads: usize) -> Vec<Vec<LineOp>> {
    let c = ctx(threads);
    let (mut p, _) = build(&Spec::parse(spec).unwrap(), &c).unwrap();
    let a = drain(p.as_mut(), false);
    contract(p.as_ref(), &a, c.page_size);
    let (mut q, _) = build(&Spec::parse(spec).unwrap(), &c).unwrap();
    let b = drain(q.as_mut(), true);
    assert!(a == b, "{spec}: streams depend on the fill order or are not deterministic");
    a
}

/// Checks that a driver never carried a chunk's worth of operations between `fill`s.
pub fn lazy<P: Phased>(prog: P) {
    let mut d = Driver::new(prog);
    drain(&mut d, false);
    assert!(d.max_carry < CHUNK, "carried {} operations", d.max_carry);
}

/// Counts of one whole run.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    pub ops: u64,
    pub accesses: u64,
    pub barriers: u64,
    pub compute: u64,
}

/// Counts `spec` on `ctx` without keeping the streams.
pub fn count(spec: &str, ctx: &LineCtx) -> Counts {
    let (mut p, _) = build(&Spec::parse(spec).unwrap(), ctx).unwrap();
    let mut c = Counts::default();
    let mut buf = Vec::with_capacity(CHUNK);
    for t in 0..p.threads() {
        loop {
            buf.clear();
            if !p.fill(t, &mut buf) {
                break;
            }
            for op in &buf {
                c.ops += 1;
                match op {
                    LineOp::Read(_) | LineOp::Write(_) => c.accesses += 1,
                    LineOp::Barrier if t == 0 => c.barriers += 1,
                    LineOp::Compute(n) => c.compute += *n as u64,
                    _ => {}
                }
            }
        }
    }
    c
}

/// The addresses thread `t` accesses after `EndInit`, with whether each is a write.
pub fn timed(stream: &[LineOp]) -> Vec<(Addr, bool)> {
    let start = stream.iter().position(|o| *o == LineOp::EndInit).unwrap();
    stream[start..]
        .iter()
        .filter_map(|o| match *o {
            LineOp::Read(a) => Some((a, false)),
            LineOp::Write(a) => Some((a, true)),
            _ => None,
        })
        .collect()
}

/// The operations between the `k`-th and `k+1`-th barrier after `EndInit` (phase `k` of the
/// timed part).
pub fn timed_phase(stream: &[LineOp], k: usize) -> &[LineOp] {
    timed_phases(stream)[k]
}

/// Every timed phase of `stream` in order (what `timed_phase` gives for k = 0, 1, ...), found in
/// one pass: a test that visits every phase of a long stream calls this once, not once a phase.
pub fn timed_phases(stream: &[LineOp]) -> Vec<&[LineOp]> {
    let start = stream.iter().position(|o| *o == LineOp::EndInit).unwrap() + 1;
    let mut phases: Vec<&[LineOp]> = stream[start..].split(|o| *o == LineOp::Barrier).collect();
    phases.pop(); // what follows the last barrier ends no phase
    phases
}
