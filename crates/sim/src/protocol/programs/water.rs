//! `water-nsq` at line level: SPLASH-2 Water-Nsquared (seed 004 Table 1.3: 512 molecules;
//! `VAR` and `PFORCES` marked for basic proxying).
//!
//! **Data** (after SPLASH-2's `water-nsquared`):
//! * `VAR`: the molecules, one record each of [`MOL_BYTES`] bytes — the predictor-corrector
//!   array `F[7][3][3]` (orders: displacement, velocity, acceleration, three higher derivatives,
//!   forces; 3 directions; 3 atoms) of doubles and `VM[3]`; an order's 9 doubles are 72 bytes.
//! * `PFORCES`: per thread, a force accumulator of 9 doubles per molecule (the intermolecular
//!   forces a thread computes are summed privately, then added into `VAR` under locks).
//! * `locks`: one lock word per molecule (`MolLock`), 8 bytes each, contiguous.
//! * `gl`: the global sums (virial, kinetic energy), each on its own line with its lock word.
//!
//! **Partitioning**: molecules in contiguous blocks, `N·t/P ..` (SPLASH-2's `StartMol`).
//!
//! **Initialisation**: the master writes every molecule (SPLASH-2's `INITIA`/`SYSCNS` run in the
//! master before the children start) and the global sums; barrier; `EndInit`.
//!
//! **One time step**, phases as SPLASH-2's `MDMAIN`:
//! 1. `PREDIC` + `INTRAF` on the thread's own molecules: orders 0–5 read and written (Taylor
//!    predictor), then the intramolecular forces (displacement read, forces written).
//! 2. `INTERF`: the thread zeroes its `PFORCES` block, then for each own molecule `i` and each
//!    of the next `N/2` molecules `j` (cyclically; `N/2 − 1` for the second half when `N` is
//!    even, so each pair is computed once — SPLASH-2's half-sweep) reads `j`'s displacements
//!    and adds the pair's forces into `PFORCES[me][i]` and `PFORCES[me][j]`; then adds its
//!    virial to the global sum under the sum's lock; then, for each molecule from its first
//!    own one to the last one it computed a pair with (SPLASH-2's `comp_last`: its own
//!    molecules and the `N/2` after them, wrapping), takes the molecule's lock, adds
//!    `PFORCES[me][mol]` into `VAR[mol]`'s forces and releases it. The pairwise interaction
//!    reads every other thread's molecules: the sharing of `VAR`; the lock-protected updates
//!    write each molecule from about half the threads: the migratory sharing of the force
//!    lines.
//! 3. The rest of `INTERF` after its barrier (each thread divides its own molecules' forces by
//!    the masses: read and written), `CORREC` + `BNDRY` + `KINETI`: own molecules' orders 0–5
//!    corrected from the forces (read and written), the periodic boundary applied, the kinetic
//!    energy summed under lock.
//!
//! Simplifications: every pair is inside the cutoff (SPLASH-2's cutoff is half the box: most
//! pairs are); `POTENG` (the potential energy, computed only on print steps) is left out.
//!
//! **Compute**: a pair's interaction (14 site–site distances, the cutoff test, the
//! Coulomb/exponential terms and the 18 force components): 400 instructions; predictor or
//! corrector: 6 per double (126 doubles per molecule); intramolecular forces: 250 per
//! molecule; adding a force accumulator: 3 per double.
//!
//! **Size**: `steps` defaults to 3 (SPLASH-2's sample input runs 3 steps): at 512 molecules
//! and 64 threads 4.4 M line accesses (5.0 M operations) and 10 barriers.

use super::{compute, spec_error, Driver, Layout, LineInfo, Phased};
use crate::protocol::program::{Addr, LineCtx, LineOp, LineProgram, LineRegion};
use crate::workload::block_range;
use numaplace_model::registry::Info;
use numaplace_model::spec::{ParamDecl, ParamKind, Resolved};
use numaplace_model::ModelError;

const NAME: &str = "water-nsq";

/// Bytes of one order of one molecule: 3 directions × 3 atoms doubles.
pub const ORDER_BYTES: u64 = 72;
/// Orders in the predictor-corrector array; the last holds the forces.
pub const ORDERS: u64 = 7;
/// Bytes of one molecule record: `F[7][3][3]` and `VM[3]`.
pub const MOL_BYTES: u64 = ORDERS * ORDER_BYTES + 24;
const FORCES: u64 = ORDERS - 1;
/// Orders the predictor and corrector read and write (all but the forces).
const PREDICTED: u64 = ORDERS - 1;

const PAIR_CYCLES: u64 = 400;
const PREDICT_CYCLES_PER_DOUBLE: u64 = 6;
const INTRAF_CYCLES: u64 = 250;
const ADD_CYCLES_PER_DOUBLE: u64 = 3;

const PARAMS: &[ParamDecl] = &[
    ParamDecl {
        name: "molecules",
        kind: ParamKind::UInt { min: 2, max: 1 << 16 },
        default: "512",
        doc: "molecules (seed 004 Table 1.3: 512)",
    },
    ParamDecl {
        name: "steps",
        kind: ParamKind::UInt { min: 1, max: 1 << 10 },
        default: "3",
        doc: "time steps (SPLASH-2's sample input: 3)",
    },
];

pub const INFO: LineInfo = Info {
    name: NAME,
    doc: "SPLASH-2 Water-Nsquared, pairwise forces under per-molecule locks (seed 004, 512 molecules)",
    params: PARAMS,
    caps: (),
    build,
};

fn build(r: &Resolved, ctx: &LineCtx) -> Result<Box<dyn LineProgram>, ModelError> {
    Ok(Driver::boxed(Water::new(r.uint("molecules"), r.uint("steps") as usize, ctx)?))
}

pub(crate) struct Water {
    regions: Vec<LineRegion>,
    n: u64,
    steps: usize,
    threads: usize,
    line: u64,
    var: Addr,
    pforces: Addr,
    locks: Addr,
    gl: Addr,
}

/// Phases of one time step.
const STEP_PHASES: usize = 3;
/// Molecules per unit when zeroing `PFORCES`, and partners per unit of the pair loop.
const ZERO_CHUNK: u64 = 64;
const PAIR_CHUNK: u64 = 32;

impl Water {
    fn new(n: u64, steps: usize, ctx: &LineCtx) -> Result<Water, ModelError> {
        if (ctx.threads as u64) > n {
            return Err(spec_error(NAME, format!("molecules={n}: fewer molecules than {} threads", ctx.threads)));
        }
        let mut l = Layout::new(ctx.page_size);
        let var = l.alloc("VAR", n * MOL_BYTES, true);
        let pforces = l.alloc("PFORCES", ctx.threads as u64 * n * ORDER_BYTES, true);
        let locks = l.alloc("locks", n * 8, false);
        let gl = l.alloc("gl", 4 * ctx.line_size, false);
        Ok(Water { regions: l.regions, n, steps, threads: ctx.threads, line: ctx.line_size, var, pforces, locks, gl })
    }

    fn own(&self, t: usize) -> (u64, u64) {
        block_range(self.n, self.threads as u64, t as u64)
    }

    fn order(&self, mol: u64, order: u64) -> (Addr, Addr) {
        let a = self.var + mol * MOL_BYTES + order * ORDER_BYTES;
        (a, a + ORDER_BYTES)
    }

    fn pf(&self, t: usize, mol: u64) -> (Addr, Addr) {
        let a = self.pforces + (t as u64 * self.n + mol) * ORDER_BYTES;
        (a, a + ORDER_BYTES)
    }

    /// One access per line of `[from, to)`: a read, a write, or a read then a write.
    fn touch(&self, out: &mut Vec<LineOp>, (from, to): (Addr, Addr), read: bool, write: bool) {
        let mut a = from / self.line * self.line;
        while a < to {
            if read {
                out.push(LineOp::Read(a));
            }
            if write {
                out.push(LineOp::Write(a));
            }
            a += self.line;
        }
    }

    /// The partners of molecule `i` in the half-sweep.
    fn partners(&self, i: u64) -> impl Iterator<Item = u64> {
        let n = self.n;
        let half = if n.is_multiple_of(2) && i >= n / 2 { n / 2 - 1 } else { n / 2 };
        (1..=half).map(move |d| (i + d) % n)
    }

    /// Molecules whose forces thread `t` adds into `VAR` under their locks: SPLASH-2's
    /// `INTERF` updates from its first molecule up to `comp_last`, the last it computed a pair
    /// with (its last own molecule's last partner, not reduced modulo `N`): its own molecules
    /// and the half-sweep after them, not every molecule.
    fn updated(&self, t: usize) -> u64 {
        let (lo, hi) = self.own(t);
        if hi == lo {
            return 0;
        }
        let last = hi - 1 + self.partners(hi - 1).count() as u64;
        (last + 1 - lo).min(self.n)
    }

    /// Units of the zeroing of a `PFORCES` block, and of one molecule's pair loop.
    fn zero_units(&self) -> u64 {
        self.n.div_ceil(ZERO_CHUNK)
    }

    fn pair_units(&self) -> u64 {
        (self.n / 2).div_ceil(PAIR_CHUNK).max(1)
    }

    /// A global sum `s` (0: virial, 1: kinetic energy) updated under its lock.
    fn sum(&self, out: &mut Vec<LineOp>, s: u64) {
        let line = self.gl + s * self.line;
        out.push(LineOp::Lock(line));
        out.push(LineOp::Read(line + 8));
        out.push(LineOp::Write(line + 8));
        out.push(LineOp::Unlock(line));
    }
}

impl Phased for Water {
    fn name(&self) -> &str {
        NAME
    }

    fn threads(&self) -> usize {
        self.threads
    }

    fn regions(&self) -> &[LineRegion] {
        &self.regions
    }

    fn phases(&self) -> usize {
        1 + STEP_PHASES * self.steps
    }

    fn init_phases(&self) -> usize {
        1
    }

    fn units(&self, p: usize, t: usize) -> usize {
        let (lo, hi) = self.own(t);
        let own = (hi - lo) as usize;
        if p == 0 {
            return if t == 0 { self.n as usize + 1 } else { 0 };
        }
        match (p - 1) % STEP_PHASES {
            0 => own,
            1 => (self.zero_units() + own as u64 * self.pair_units() + 1 + self.updated(t)) as usize,
            _ => own + 1,
        }
    }

    fn unit(&self, p: usize, t: usize, u: usize, out: &mut Vec<LineOp>) {
        let (lo, hi) = self.own(t);
        let own = hi - lo;
        let u = u as u64;
        if p == 0 {
            if u < self.n {
                compute(out, 3 * MOL_BYTES / 8);
                self.touch(out, (self.var + u * MOL_BYTES, self.var + (u + 1) * MOL_BYTES), false, true);
            } else {
                self.touch(out, (self.gl, self.gl + 4 * self.line), false, true);
            }
            return;
        }
        match (p - 1) % STEP_PHASES {
            0 => {
                // PREDIC, then INTRAF.
                let m = lo + u;
                let (from, _) = self.order(m, 0);
                compute(out, PREDICT_CYCLES_PER_DOUBLE * PREDICTED * ORDER_BYTES / 8);
                self.touch(out, (from, from + PREDICTED * ORDER_BYTES), true, true);
                compute(out, INTRAF_CYCLES);
                self.touch(out, self.order(m, FORCES), false, true);
            }
            1 => {
                let (zero, pairs) = (self.zero_units(), own * self.pair_units());
                if u < zero {
                    let mols = (u * ZERO_CHUNK, ((u + 1) * ZERO_CHUNK).min(self.n));
                    let (from, to) = (self.pf(t, mols.0).0, self.pf(t, mols.1).0);
                    compute(out, (mols.1 - mols.0) * 9);
                    self.touch(out, (from, to), false, true);
                } else if u < zero + pairs {
                    let (i, c) = (lo + (u - zero) / self.pair_units(), (u - zero) % self.pair_units());
                    if c == 0 {
                        self.touch(out, self.order(i, 0), true, false);
                    }
                    for j in self.partners(i).skip((c * PAIR_CHUNK) as usize).take(PAIR_CHUNK as usize) {
                        self.touch(out, self.order(j, 0), true, false);
                        compute(out, PAIR_CYCLES);
                        self.touch(out, self.pf(t, i), true, true);
                        self.touch(out, self.pf(t, j), true, true);
                    }
                } else if u == zero + pairs {
                    self.sum(out, 0);
                } else {
                    // From the first own molecule to the last one touched, as SPLASH-2's
                    // `INTERF` (staggered, and only the molecules this thread computed for).
                    let mol = (lo + (u - zero - pairs - 1)) % self.n;
                    let lock = self.locks + mol * 8;
                    out.push(LineOp::Lock(lock));
                    self.touch(out, self.pf(t, mol), true, false);
                    compute(out, ADD_CYCLES_PER_DOUBLE * 9);
                    self.touch(out, self.order(mol, FORCES), true, true);
                    out.push(LineOp::Unlock(lock));
                }
            }
            _ => {
                if u < own {
                    // The end of INTERF after its barrier (the forces divided by the masses),
                    // then CORREC, then BNDRY.
                    let m = lo + u;
                    compute(out, 9);
                    self.touch(out, self.order(m, FORCES), true, true);
                    let (from, _) = self.order(m, 0);
                    compute(out, PREDICT_CYCLES_PER_DOUBLE * PREDICTED * ORDER_BYTES / 8);
                    self.touch(out, (from, from + PREDICTED * ORDER_BYTES), true, true);
                    compute(out, 30);
                } else {
                    self.sum(out, 1);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::check;
    use super::*;

    #[test]
    fn contract_holds_on_small_systems() {
        for (n, threads) in [(8, 1), (9, 3), (16, 4), (7, 7)] {
            check::run(&format!("water-nsq:molecules={n},steps=2"), threads);
        }
    }

    #[test]
    fn too_many_threads_is_an_error() {
        let e =
            super::super::build(&numaplace_model::spec::Spec::parse("water-nsq:molecules=4").unwrap(), &check::ctx(8))
                .err()
                .unwrap()
                .to_string();
        assert!(e.contains("water-nsq") && e.contains("molecules=4"), "{e}");
    }

    #[test]
    fn generation_is_lazy() {
        check::lazy(Water::new(2048, 1, &check::ctx(2)).unwrap());
    }

    #[test]
    fn each_pair_once_and_every_force_under_its_lock() {
        let (n, threads) = (16u64, 4);
        let s = check::run(&format!("water-nsq:molecules={n},steps=1"), threads);
        let w = Water::new(n, 1, &check::ctx(threads)).unwrap();
        // Pairs: count reads of other molecules' displacement line in INTERF.
        let mut pairs = std::collections::BTreeSet::new();
        for (t, stream) in s.iter().enumerate() {
            let (lo, hi) = w.own(t);
            for i in lo..hi {
                for j in w.partners(i) {
                    assert!(pairs.insert((i.min(j), i.max(j))), "pair {i},{j} twice");
                }
            }
            // Every force write to VAR in INTERF happens under that molecule's lock.
            let interf = check::timed_phase(stream, 1);
            let mut held = None;
            let mut locked = Vec::new();
            for op in interf {
                match *op {
                    LineOp::Lock(a) => {
                        held = Some((a - w.locks) / 8);
                        locked.push(a);
                    }
                    LineOp::Unlock(_) => held = None,
                    LineOp::Write(a) if a >= w.var && a < w.var + n * MOL_BYTES => {
                        let mol = held.expect("a VAR write outside a lock");
                        let (f, e) = w.order(mol, FORCES);
                        assert!(a + 64 > f && a < e, "write {a:#x} is not molecule {mol}'s forces");
                    }
                    _ => {}
                }
            }
            // The virial's lock, then one per molecule from the first own one to the last one
            // it computed a pair with (SPLASH-2's comp_last), in order, wrapping at N.
            let last = w.partners(hi - 1).last().unwrap();
            let span = (last + n - lo) % n + 1;
            assert!(span > hi - lo && span < n, "thread {t}: {span}");
            let mut want = vec![w.gl];
            want.extend((0..span).map(|k| w.locks + (lo + k) % n * 8));
            assert_eq!(locked, want, "thread {t}");
            // It reads molecules owned by others.
            let reads_others = interf.iter().any(|op| {
                matches!(*op, LineOp::Read(a) if a >= w.var && a < w.var + n * MOL_BYTES
                    && !(lo..hi).contains(&((a - w.var) / MOL_BYTES)))
            });
            assert!(reads_others, "thread {t}");
        }
        assert_eq!(pairs.len() as u64, n * (n - 1) / 2);
    }
}
