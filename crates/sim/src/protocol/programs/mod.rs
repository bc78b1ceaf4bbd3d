//! Seed 004's seven programs at line level, and their registry ([`REGISTRY`], [`build`]).
//!
//! * [`ge`]: Gaussian elimination, the pivot row read by every thread.
//! * [`ocean`]: SPLASH-2 Ocean, contiguous and non-contiguous partitions.
//! * [`fft`]: SPLASH-2 FFT, the six-step algorithm with blocked transposes.
//! * [`barnes`]: SPLASH-2 Barnes, a Barnes–Hut octree built under locks and read by all.
//! * [`fmm`]: SPLASH-2 FMM, a 2-D adaptive quadtree with interaction lists.
//! * [`water`]: SPLASH-2 Water-Nsquared, pairwise forces under per-molecule locks.
//!
//! Every program is written as a sequence of *phases* (the [`Phased`] trait), each ending with
//! a barrier in every thread; a phase splits, per thread, into small *units* (a row, a body, a
//! molecule) generated on demand. [`Driver`] turns that into a [`LineProgram`]: it keeps a
//! cursor per thread and hands out at most [`CHUNK`] operations per `fill`, so a run is never
//! materialised. The first `init_phases` phases are the initialisation: `EndInit` follows the
//! barrier that ends them.
//!
//! **Compute.** Between accesses a program states `Compute(cycles)`, the instructions it
//! executes at CPI 1.0 (seed 004 Table 1.1): flops, plus the loads, stores, address arithmetic
//! and loop overhead around them, estimated per element from each algorithm and documented in
//! each module. The figures are estimates for an Alpha-like RISC (Table 1.1: "based on DEC
//! Alpha"): one instruction per flop, per load or store and per branch, plus one or two of index
//! arithmetic per inner-loop iteration.

pub mod barnes;
pub mod fft;
pub mod fmm;
pub mod ge;
pub mod ocean;
mod tree;
pub mod water;

use super::program::{Addr, LineCtx, LineOp, LineProgram, LineRegion, CHUNK};
use numaplace_model::registry::{Info, Registry};
use numaplace_model::spec::{Resolved, Spec};
use numaplace_model::ModelError;

/// A line-level program's constructor.
pub type LineBuild = fn(&Resolved, &LineCtx) -> Result<Box<dyn LineProgram>, ModelError>;

/// A line-level program's registry entry.
pub type LineInfo = Info<LineBuild>;

/// Seed 004 Table 1.3, in the table's order.
pub const SEED004: &[LineInfo] = &[barnes::INFO, fft::INFO, fmm::INFO, ge::INFO, ocean::CONTIG, ocean::NONCONTIG, water::INFO];

/// Every line-level program, keyed by the name users type.
pub const REGISTRY: Registry<LineBuild> = Registry { kind: "line-level program", groups: &[SEED004] };

/// Builds the line-level program named by `spec`, returning it with its resolved spec.
///
/// # Errors
/// An unknown name (listing the known ones) or a bad parameter.
pub fn build(spec: &Spec, ctx: &LineCtx) -> Result<(Box<dyn LineProgram>, Resolved), ModelError> {
    let (info, resolved) = REGISTRY.resolve(spec)?;
    let p = (info.build)(&resolved, ctx)?;
    Ok((p, resolved))
}

/// A spec error naming the program.
pub(crate) fn spec_error(program: &str, what: String) -> ModelError {
    ModelError::Spec(format!("line-level program '{program}': {what}"))
}

/// A program as phases of per-thread units (see the module doc).
pub(crate) trait Phased: Send + Sync {
    fn name(&self) -> &str;
    fn threads(&self) -> usize;
    fn regions(&self) -> &[LineRegion];
    /// How many phases there are; each ends with a barrier.
    fn phases(&self) -> usize;
    /// How many of the first phases are the initialisation (`EndInit` follows the barrier that
    /// ends the last of them; 0: `EndInit` comes first).
    fn init_phases(&self) -> usize;
    /// Thread `t`'s number of units in phase `p`.
    fn units(&self, p: usize, t: usize) -> usize;
    /// Appends unit `u` of thread `t` in phase `p`: fewer than [`CHUNK`] operations.
    fn unit(&self, p: usize, t: usize, u: usize, out: &mut Vec<LineOp>);
}

/// One thread's position in a [`Phased`] program.
#[derive(Clone, Debug, Default)]
struct Cursor {
    phase: usize,
    unit: usize,
    /// Units of `phase` (`None` until asked).
    units: Option<usize>,
    /// `EndInit` has been stated.
    ended_init: bool,
    done: bool,
    /// Operations generated but not yet handed out (a unit's tail), oldest first, from `head`.
    carry: Vec<LineOp>,
    head: usize,
}

/// Runs a [`Phased`] program as a [`LineProgram`] (see the module doc).
pub(crate) struct Driver<P: Phased> {
    pub(crate) prog: P,
    cursors: Vec<Cursor>,
    /// The most operations ever carried over between two `fill`s of one thread.
    pub(crate) max_carry: usize,
}

impl<P: Phased> Driver<P> {
    pub(crate) fn new(prog: P) -> Self {
        let cursors = vec![Cursor::default(); prog.threads()];
        Driver { prog, cursors, max_carry: 0 }
    }

    pub(crate) fn boxed(prog: P) -> Box<dyn LineProgram>
    where
        P: 'static,
    {
        Box::new(Driver::new(prog))
    }

    /// Appends thread `t`'s next operations to `dst` (at least one unless finished).
    fn advance(prog: &P, t: usize, c: &mut Cursor, dst: &mut Vec<LineOp>) {
        let init = prog.init_phases();
        if !c.ended_init && init == 0 {
            c.ended_init = true;
            dst.push(LineOp::EndInit);
            return;
        }
        while !c.done {
            if c.phase >= prog.phases() {
                c.done = true;
                return;
            }
            let units = *c.units.get_or_insert_with(|| prog.units(c.phase, t));
            if c.unit < units {
                let (before, last) = (dst.len(), dst.last().copied());
                prog.unit(c.phase, t, c.unit, dst);
                // A unit's streams are its own: a leading `Compute` that `compute` merged into
                // the previous unit's trailing one is split off again.
                if let (Some(LineOp::Compute(was)), Some(&LineOp::Compute(now))) = (last, before.checked_sub(1).and_then(|i| dst.get(i))) {
                    if now != was {
                        dst[before - 1] = LineOp::Compute(was);
                        dst.insert(before, LineOp::Compute(now - was));
                    }
                }
                c.unit += 1;
                if dst.len() > before {
                    return;
                }
                continue;
            }
            dst.push(LineOp::Barrier);
            c.phase += 1;
            c.unit = 0;
            c.units = None;
            if c.phase == init && !c.ended_init {
                c.ended_init = true;
                dst.push(LineOp::EndInit);
            }
            return;
        }
    }
}

impl<P: Phased> LineProgram for Driver<P> {
    fn name(&self) -> &str {
        self.prog.name()
    }

    fn threads(&self) -> usize {
        self.prog.threads()
    }

    fn regions(&self) -> &[LineRegion] {
        self.prog.regions()
    }

    fn fill(&mut self, thread: usize, out: &mut Vec<LineOp>) -> bool {
        let c = &mut self.cursors[thread];
        let start = out.len();
        // What the last call generated beyond its chunk goes first.
        let n = (c.carry.len() - c.head).min(CHUNK);
        out.extend_from_slice(&c.carry[c.head..c.head + n]);
        c.head += n;
        if c.head == c.carry.len() {
            c.carry.clear();
            c.head = 0;
        }
        // Then new operations, generated straight into `out`; a unit that runs past the chunk
        // leaves its tail in `carry` (copied once, not every operation through `carry`).
        while c.carry.is_empty() && out.len() - start < CHUNK && !c.done {
            Self::advance(&self.prog, thread, c, out);
        }
        if out.len() - start > CHUNK {
            c.carry.extend_from_slice(&out[start + CHUNK..]);
            out.truncate(start + CHUNK);
        }
        let left = c.carry.len() - c.head;
        self.max_carry = self.max_carry.max(left);
        out.len() > start
    }
}

/// Page-aligned regions laid out back to back from address 0.
pub(crate) struct Layout {
    pub(crate) regions: Vec<LineRegion>,
    page: u64,
    next: Addr,
}

impl Layout {
    pub(crate) fn new(page: u64) -> Self {
        Layout { regions: Vec::new(), page, next: 0 }
    }

    /// Adds a region of at least `bytes` bytes (whole pages, at least one) and returns its base.
    pub(crate) fn alloc(&mut self, name: &str, bytes: u64, proxy: bool) -> Addr {
        let base = self.next;
        let bytes = bytes.div_ceil(self.page).max(1) * self.page;
        self.regions.push(LineRegion { name: name.to_string(), base, bytes, proxy });
        self.next += bytes;
        base
    }
}

/// Appends `Compute(cycles)` unless `cycles` is 0 (merged into a preceding `Compute`).
pub(crate) fn compute(out: &mut Vec<LineOp>, cycles: u64) {
    if cycles == 0 {
        return;
    }
    if let Some(LineOp::Compute(c)) = out.last_mut() {
        let sum = *c as u64 + cycles;
        if sum <= u32::MAX as u64 {
            *c = sum as u32;
            return;
        }
    }
    out.push(LineOp::Compute(cycles.min(u32::MAX as u64) as u32));
}

#[cfg(test)]
pub(crate) mod check;

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> LineCtx {
        LineCtx { threads: 2, page_size: 8192, line_size: 64, seed: 1 }
    }

    #[test]
    fn unknown_program_lists_known() {
        let e = build(&Spec::parse("splash-xx").unwrap(), &ctx()).err().unwrap().to_string();
        assert!(e.starts_with("unknown line-level program 'splash-xx' (known: "), "{e}");
        for name in REGISTRY.names() {
            assert!(e.contains(name), "{name} missing from: {e}");
        }
        assert_eq!(REGISTRY.names().count(), 7, "seed 004 Table 1.3 has seven programs");
    }

    /// Line accesses and barriers of each program at its defaults on seed 004's machine (64
    /// threads, 8 KiB pages, 64-byte lines), as the module docs state them.
    const DEFAULTS: [(&str, u64, u64); 7] = [
        ("barnes", 8_131_736, 5),
        ("fft", 1_918_016, 12),
        ("fmm", 3_547_096, 13),
        ("ge", 134_249_984, 512),
        ("ocean-contig", 5_909_216, 725),
        ("ocean-noncontig", 4_419_208, 369),
        ("water-nsq", 4_402_372, 10),
    ];

    /// The seed 004 grid (7 programs × 12 configurations) must take minutes, not hours: every
    /// program 1–20 M line accesses past the first-level cache's easy hits, at ~10 M per
    /// second. GE states each element's three accesses (its loop alternates between two
    /// lines), most of them FLC hits the engine retires at ~50 M per second, so it may state up
    /// to 150 M; the others state a line once per use; 200 M in all.
    #[test]
    fn default_sizes_fit_the_budget() {
        let c = LineCtx { threads: 64, page_size: 8192, line_size: 64, seed: 1 };
        let mut total = 0;
        for (name, accesses, barriers) in DEFAULTS {
            let n = check::count(name, &c);
            eprintln!("{name}: {n:?}");
            assert_eq!((n.accesses, n.barriers), (accesses, barriers), "{name}: update its module doc and this table");
            let most = if name == "ge" { 150_000_000 } else { 20_000_000 };
            assert!((1_000_000..=most).contains(&n.accesses), "{name}: {n:?}");
            total += n.accesses;
        }
        assert!(total <= 200_000_000, "{total}");
        assert_eq!(REGISTRY.names().collect::<Vec<_>>(), DEFAULTS.map(|d| d.0));
    }

    /// Units that start and end with `Compute`, of sizes up to nearly a chunk.
    struct Toy;

    impl Phased for Toy {
        fn name(&self) -> &str {
            "toy"
        }
        fn threads(&self) -> usize {
            2
        }
        fn regions(&self) -> &[LineRegion] {
            &[]
        }
        fn phases(&self) -> usize {
            3
        }
        fn init_phases(&self) -> usize {
            1
        }
        fn units(&self, p: usize, t: usize) -> usize {
            5 + p + t
        }
        fn unit(&self, p: usize, t: usize, u: usize, out: &mut Vec<LineOp>) {
            let n = [0, 1, 7, CHUNK - 3, 900, CHUNK / 2][(p + 2 * t + u) % 6];
            compute(out, 1 + u as u64);
            for i in 0..n as u64 {
                out.push(LineOp::Read(64 * i));
            }
            compute(out, 2);
        }
    }

    #[test]
    fn the_driver_hands_out_each_unit_as_generated_in_chunks() {
        let mut d = Driver::new(Toy);
        for t in 0..2 {
            let mut want = Vec::new();
            for p in 0..3 {
                for u in 0..Toy.units(p, t) {
                    let mut one = Vec::new();
                    Toy.unit(p, t, u, &mut one);
                    want.extend(one);
                }
                want.push(LineOp::Barrier);
                if p == 0 {
                    want.push(LineOp::EndInit);
                }
            }
            let (mut got, mut chunk) = (Vec::new(), Vec::new());
            loop {
                chunk.clear();
                if !d.fill(t, &mut chunk) {
                    break;
                }
                assert!(!chunk.is_empty() && chunk.len() <= CHUNK, "{}", chunk.len());
                got.extend_from_slice(&chunk);
            }
            assert!(chunk.is_empty());
            // No unit's leading Compute is merged into the unit before it.
            assert_eq!(got, want, "thread {t}");
        }
        assert!(d.max_carry < CHUNK);
    }

    #[test]
    fn compute_merges_and_skips_zero() {
        let mut v = Vec::new();
        compute(&mut v, 0);
        compute(&mut v, 3);
        compute(&mut v, 4);
        v.push(LineOp::Read(0));
        compute(&mut v, 1);
        assert_eq!(v, vec![LineOp::Compute(7), LineOp::Read(0), LineOp::Compute(1)]);
    }
}
