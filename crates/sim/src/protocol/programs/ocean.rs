//! `ocean-contig` and `ocean-noncontig` at line level: SPLASH-2 Ocean (seed 004 Table 1.3: a
//! 258 × 258 ocean).
//!
//! **Shared with the page-level model.** Layout, decomposition and the phases of a time step
//! are those of [`crate::workloads::splash::ocean`], used as is: [`OceanLayout`] places the 15
//! full-size grids and the multigrid `q_multi`/`rhs_multi` (contig: each thread's subgrid of
//! every grid on pages of its own, ghost cells included; non-contig: plain 2-D arrays, so a
//! page holds row segments of several threads' subgrids), and [`Planner::step`] lists the
//! phases: `laplacian`, `jacobian`, `rhs`, then per elliptic solve `setup`, `cycles`
//! multigrid V-cycles (red-black relaxation, a barrier between colours, restriction to the
//! coarser levels and interpolation back) and `store`, then `update`; with the contiguous
//! layout an `exchange` phase copies neighbours' borders into ghost cells before a stencil
//! reads a stale grid. See that module for the derivation of the phases from SPLASH-2's
//! `slave1`/`slave2`/`multig`, and its simplification (fixed V-cycles and sweeps instead of
//! iterating to a tolerance). Every phase ends with a barrier, as SPLASH-2's do.
//!
//! **Proxy marks** (Table 1.3): contig, `q_multi` and `rhs_multi`; non-contig, "fields,
//! fields2, wrk and frcng" — SPLASH-2 non-contig's arrays of the stream functions (`fields`:
//! `psi*`, `psim*`), the old right-hand sides (`fields2`: `oldga`, `oldgb`), the work arrays
//! (`wrk`: `work*`, `ga`, `gb`) and the forcing (`frcng`: `tauz`): every full-size grid, and
//! not the multigrid arrays.
//!
//! **Accesses.** Initialisation: each thread writes every line of its partition of every grid
//! at every level (SPLASH-2 initialises in the slaves, each its own subgrid), barrier,
//! `EndInit`. A sweep phase walks the thread's partition row by row; a unit is one row of the
//! phase's first operand and the matching rows of the others (a stencil operand's halo rows
//! and columns included, so on the non-contiguous layout a thread reads its neighbours' border
//! elements in place, and on the contiguous one only its own allocation). Per row and operand:
//! one access per line; a grid only written (`Write`) is stored, a grid relaxed in place
//! (`UpdateHalo`) is loaded then stored line by line. An exchange unit is one neighbour's
//! border (row, column or corner) of one grid: its lines read, then our ghost lines written —
//! the only accesses the contiguous layout makes outside a thread's own allocations.
//!
//! **Compute** per interior point of the phase's first operand: flops + loads + stores + 3 of
//! loop overhead, from the stencils (see [`cycles_per_point`]): `laplacian` 51 (4 grids × (5
//! loads, 6 flops, 1 store)), `jacobian` 111 (2 × 35 flops of Arakawa's Jacobian and 2 × 19
//! loads/stores), `rhs` 20, `setup` 7, one relaxation colour 9 (half the points updated: 5
//! loads, 7 flops, 1 store each), `restrict` 12, `interpolate` 8, `store` 5, `update` 27; a
//! ghost element copied: 3.
//!
//! **Size.** `steps` defaults to 2 (SPLASH-2's run is 6 steps of 8 hours; two steps are enough
//! to repeat the steady pattern of a step and keep the seed 004 grid quick): at 258 × 258 and
//! 64 threads 5.9 M line accesses and 725 barriers (contig: 6.5 M operations) and 4.4 M and
//! 369 (non-contig: 4.9 M operations; no exchange phases) — see the `default_budget` test.

use super::{compute, spec_error, Driver, LineInfo, Phased};
use crate::protocol::program::{LineCtx, LineOp, LineProgram, LineRegion};
use crate::workloads::splash::common::Touch;
use crate::workloads::splash::ocean::{OceanLayout, Planner, Role, Task, CYCLES_PARAM, N_PARAM, Q, RHS, SWEEPS_PARAM};
use numaplace_model::registry::Info;
use numaplace_model::spec::{ParamDecl, ParamKind, Resolved};
use numaplace_model::ModelError;

const PARAMS: &[ParamDecl] = &[
    N_PARAM,
    ParamDecl {
        name: "steps",
        kind: ParamKind::UInt { min: 1, max: 1 << 10 },
        default: "2",
        doc: "time steps (SPLASH-2 runs 6; 2 repeat a step's pattern at a sixth of the cost)",
    },
    CYCLES_PARAM,
    SWEEPS_PARAM,
];

pub const CONTIG: LineInfo = Info {
    name: "ocean-contig",
    doc: "SPLASH-2 Ocean, contiguous partitions, q_multi/rhs_multi marked (seed 004, 258 x 258)",
    params: PARAMS,
    caps: (),
    build: build_contig,
};

pub const NONCONTIG: LineInfo = Info {
    name: "ocean-noncontig",
    doc: "SPLASH-2 Ocean, 2-D arrays, the full-size grids marked (seed 004, 258 x 258)",
    params: PARAMS,
    caps: (),
    build: build_noncontig,
};

fn build_contig(r: &Resolved, ctx: &LineCtx) -> Result<Box<dyn LineProgram>, ModelError> {
    build(r, ctx, true)
}

fn build_noncontig(r: &Resolved, ctx: &LineCtx) -> Result<Box<dyn LineProgram>, ModelError> {
    build(r, ctx, false)
}

/// Instructions per interior point of a phase (see the module doc).
pub fn cycles_per_point(phase: &str) -> u64 {
    match phase {
        "laplacian" => 51,
        "jacobian" => 111,
        "rhs" => 20,
        "setup" => 7,
        "relax" => 9,
        "restrict" => 12,
        "interpolate" => 8,
        "store" => 5,
        "update" => 27,
        _ => 3,
    }
}

/// Instructions per ghost element copied.
const COPY_CYCLES: u64 = 3;

fn build(r: &Resolved, ctx: &LineCtx, contig: bool) -> Result<Box<dyn LineProgram>, ModelError> {
    Ok(Driver::boxed(Ocean::new(r, ctx, contig)?))
}

impl Ocean {
    fn new(r: &Resolved, ctx: &LineCtx, contig: bool) -> Result<Ocean, ModelError> {
        let name = if contig { CONTIG.name } else { NONCONTIG.name };
        let lay = OceanLayout::new(name, r.uint("n"), ctx.threads, ctx.page_size, contig)
            .map_err(|e| spec_error(name, e.to_string()))?;
        let regions = lay
            .regions
            .iter()
            .enumerate()
            .map(|(f, p)| LineRegion {
                name: p.name.clone(),
                base: p.first_page as u64 * ctx.page_size,
                bytes: p.pages as u64 * ctx.page_size,
                proxy: if contig { f == Q || f == RHS } else { f < Q },
            })
            .collect();
        let plan = Planner::step(contig, lay.d.sides.len(), r.uint("cycles"), r.uint("sweeps"));
        Ok(Ocean {
            name,
            regions,
            lay,
            plan,
            steps: r.uint("steps") as usize,
            threads: ctx.threads,
            line: ctx.line_size,
        })
    }
}

pub(crate) struct Ocean {
    name: &'static str,
    regions: Vec<LineRegion>,
    lay: OceanLayout,
    plan: Vec<Task>,
    steps: usize,
    threads: usize,
    line: u64,
}

impl Ocean {
    fn task(&self, p: usize) -> &Task {
        &self.plan[(p - 1) % self.plan.len()]
    }

    /// Thread `t`'s ghost-cell copies in an exchange of `grids`, in order.
    fn exchanges(&self, grids: &[(usize, usize)], t: usize) -> Vec<(Touch, Touch)> {
        grids.iter().flat_map(|&(f, k)| self.lay.exchange(f, k, t)).collect()
    }

    /// One access per line of `touch`'s row `r` (columns `cols`), of kind `op`.
    fn row(&self, out: &mut Vec<LineOp>, touch: &Touch, r: u64, rmw: bool, write: bool) {
        let (from, to) = (touch.arr.addr(r, touch.cols.0), touch.arr.addr(r, touch.cols.1));
        let mut a = from / self.line * self.line;
        while a < to {
            if !write || rmw {
                out.push(LineOp::Read(a));
            }
            if write {
                out.push(LineOp::Write(a));
            }
            a += self.line;
        }
    }
}

impl Phased for Ocean {
    fn name(&self) -> &str {
        self.name
    }

    fn threads(&self) -> usize {
        self.threads
    }

    fn regions(&self) -> &[LineRegion] {
        &self.regions
    }

    fn phases(&self) -> usize {
        1 + self.steps * self.plan.len()
    }

    fn init_phases(&self) -> usize {
        1
    }

    fn units(&self, p: usize, t: usize) -> usize {
        if p == 0 {
            return self.lay.owned(t).iter().map(|o| (o.rows.1 - o.rows.0) as usize).sum();
        }
        match self.task(p) {
            Task::Sweep { ops, .. } => {
                let first = self.lay.touch(&ops[0], t);
                (first.rows.1 - first.rows.0) as usize
            }
            Task::Exchange(grids) => self.exchanges(grids, t).len(),
        }
    }

    fn unit(&self, p: usize, t: usize, u: usize, out: &mut Vec<LineOp>) {
        if p == 0 {
            let mut u = u as u64;
            for o in self.lay.owned(t) {
                let n = o.rows.1 - o.rows.0;
                if u < n {
                    compute(out, COPY_CYCLES * (o.cols.1 - o.cols.0));
                    self.row(out, &o, o.rows.0 + u, false, true);
                    return;
                }
                u -= n;
            }
            unreachable!("init unit out of range");
        }
        match self.task(p) {
            Task::Sweep { phase, ops } => {
                let touches: Vec<Touch> = ops.iter().map(|o| self.lay.touch(o, t)).collect();
                let chunks = touches[0].rows.1 - touches[0].rows.0;
                let c = u as u64;
                for (o, tc) in ops.iter().zip(&touches) {
                    let n = tc.rows.1 - tc.rows.0;
                    let (a, b) = (tc.rows.0 + n * c / chunks, tc.rows.0 + n * (c + 1) / chunks);
                    for r in a..b {
                        let written = (tc.write.0..tc.write.1).contains(&r);
                        self.row(out, tc, r, o.role == Role::UpdateHalo, written);
                    }
                }
                // The interior points of the first operand's row.
                let (_, _, cols) = self.lay.part(ops[0].field, ops[0].level, t);
                compute(out, cycles_per_point(phase) * (cols.1 - cols.0));
            }
            Task::Exchange(grids) => {
                let (read, write) = self.exchanges(grids, t)[u];
                for r in read.rows.0..read.rows.1 {
                    self.row(out, &read, r, false, false);
                }
                let elems = (write.rows.1 - write.rows.0) * (write.cols.1 - write.cols.0);
                compute(out, COPY_CYCLES * elems);
                for r in write.rows.0..write.rows.1 {
                    self.row(out, &write, r, false, true);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::check;
    use super::*;

    fn program(spec: &str, threads: usize) -> Ocean {
        let spec = numaplace_model::spec::Spec::parse(spec).unwrap();
        let (info, resolved) = super::super::REGISTRY.resolve(&spec).unwrap();
        Ocean::new(&resolved, &check::ctx(threads), info.name == CONTIG.name).unwrap()
    }

    #[test]
    fn contract_holds_on_small_oceans() {
        for name in ["ocean-contig", "ocean-noncontig"] {
            for (n, threads) in [(10, 1), (18, 4), (34, 2), (18, 6)] {
                check::run(&format!("{name}:n={n},steps=1,cycles=1,sweeps=1"), threads);
            }
        }
    }

    #[test]
    fn generation_is_lazy() {
        check::lazy(program("ocean-contig:n=130", 2));
        check::lazy(program("ocean-noncontig:n=130", 2));
    }

    /// The region and owner of every byte: (field, owning thread) for the contiguous layout.
    fn contig_owner(o: &Ocean, a: u64) -> Option<usize> {
        for field in &o.lay.fields {
            for level in &field.levels {
                for (t, arr) in level.iter().enumerate() {
                    if a >= arr.base && a < arr.base + arr.bytes() {
                        return Some(t);
                    }
                }
            }
        }
        None
    }

    #[test]
    fn contig_reads_outside_the_partition_only_in_exchanges_and_only_borders() {
        let threads = 4;
        let spec = "ocean-contig:n=34,steps=1,cycles=1,sweeps=1";
        let s = check::run(spec, threads);
        let o = program(spec, threads);
        let plan = &o.plan;
        for (t, stream) in s.iter().enumerate() {
            for (i, task) in plan.iter().enumerate() {
                let phase = check::timed_phase(stream, i);
                for op in phase {
                    let (a, w) = match *op {
                        LineOp::Read(a) => (a, false),
                        LineOp::Write(a) => (a, true),
                        _ => continue,
                    };
                    let owner = contig_owner(&o, a);
                    if owner == Some(t) {
                        continue;
                    }
                    // Lines straddling two allocations may be shared; allow only in exchanges.
                    assert!(matches!(task, Task::Exchange(_)), "thread {t} accesses {a:#x} of {owner:?} in a sweep");
                    assert!(!w, "thread {t} writes another's partition");
                }
            }
            // And it does read its neighbours' borders.
            let foreign = check::timed(stream).iter().filter(|(a, _)| contig_owner(&o, *a) != Some(t)).count();
            assert!(foreign > 0);
        }
    }

    #[test]
    fn noncontig_reads_neighbours_borders_in_place() {
        let threads = 4; // a 2 x 2 process grid
        let spec = "ocean-noncontig:n=34,steps=1,cycles=1,sweeps=1";
        let s = check::run(spec, threads);
        let o = program(spec, threads);
        // psi1 at level 0 is one 34 x 34 array; thread 0 owns interior rows/cols 1..17.
        let psi1 = o.lay.fields[0].levels[0][0];
        let lap = check::timed_phase(&s[0], 0);
        let reads: Vec<u64> =
            lap.iter().filter_map(|op| if let LineOp::Read(a) = op { Some(*a) } else { None }).collect();
        // Row 17 (thread 2's first row) is read as a halo; row 18 is not.
        assert!(reads.contains(&(psi1.addr(17, 1) / 64 * 64)));
        assert!(!reads.contains(&(psi1.addr(18, 8) / 64 * 64)));
    }
}
