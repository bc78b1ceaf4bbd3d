//! `ocean-contig` and `ocean-noncontig`: SPLASH-2 Ocean, the two data layouts of seed 004
//! (Talbot & Kelly, §1.4, Table 1.3: a 258 × 258 ocean; §1.5: Ocean-Contig suits first-touch,
//! Ocean-Non-Contig much less so).
//!
//! **Decomposition.** The `(n−2)²` interior points of every grid are split into square-ish
//! subgrids over a `px × py` process grid (`px ≤ py`, `px·py = threads`, the factors closest to
//! √threads, as SPLASH-2's `main.c` chooses them; 16 threads → 4 × 4). Thread `t` is process
//! row `t / px`, column `t % px`; a dimension that does not divide evenly is split with
//! `block_range`.
//!
//! **Layouts** — the only difference between the two workloads:
//! * `ocean-contig` (SPLASH-2 `contiguous_partitions`, "4-D arrays"): every thread's subgrid of
//!   every grid is its own page-aligned allocation of `(rows+2) × (cols+2)` doubles, ghost rows
//!   and columns included (SPLASH-2 `valloc`s each one separately); the multigrid arrays
//!   `q_multi` and `rhs_multi` are one allocation per thread holding all levels. A thread's
//!   partition therefore occupies whole pages of its own. Before a stencil reads a grid whose
//!   ghost cells are stale, an `exchange` epoch copies the neighbours' border rows, columns and
//!   corners into them (SPLASH-2's `copy_borders`, `copy_red`, `copy_black`): the only epochs in
//!   which a thread reads another's pages.
//! * `ocean-noncontig` (SPLASH-2 `non_contiguous_partitions`): every grid is one plain `n × n`
//!   array (the multigrid levels one after the other), so a row of a page holds row segments of
//!   all `px` subgrids of a process row, and a stencil reads its neighbours' border elements in
//!   place. There is no exchange.
//!
//! **Grids** (15 full-size ones, the subset of SPLASH-2's 25 that the modelled phases touch):
//! `psi1 psi3 psim1 psim3` (stream function, two layers, two time levels), `work1_1 work1_3`
//! (their Laplacians), `work5_1 work5_3` (Jacobians), `work7_1 work7_3` (Laplacians of `psim`,
//! the friction terms), `tauz` (wind-stress curl), `ga gb` (right-hand sides of the two elliptic
//! solves), `oldga oldgb`; and the multigrid `q_multi`, `rhs_multi` (every level).
//!
//! **Phases of one time step** (epochs; flops per point in brackets):
//! 1. `laplacian`: `work1_*` ← ∇² `psi*`, `work7_*` ← ∇² `psim*` (5-point, 4 × 6).
//! 2. `jacobian`: `work5_*` ← J(`psi*`, `work1_*`) (Arakawa's 9-point Jacobian, 2 × 35).
//! 3. `rhs`: `ga`, `gb` from `work5_*`, `work7_*`, `tauz` (pointwise, 10).
//! 4. For `g` in `ga`, `gb`: `setup` (`rhs_multi`, `q_multi` ← `g` at the finest level), then
//!    `cycles` multigrid V-cycles, then `store` (`g` ← `q_multi`). A V-cycle relaxes each
//!    level from the finest down (`restrict`: residual into the coarser `rhs_multi`, coarser
//!    `q_multi` zeroed — SPLASH-2's `rescal` and `putz`), relaxes the coarsest, and comes back up
//!    (`interpolate`: correction added to the finer `q_multi` — `intadd`), relaxing each level.
//!    Each level visit is `sweeps` red-black Gauss–Seidel iterations, each a red and a black
//!    `relax` epoch (a barrier between colours, as in SPLASH-2's `multig`; each colour updates
//!    every other point, so touches every line: 3.5 flops per point). Levels run from the
//!    finest down to the coarsest that still has at least 2 × 2 points per thread (SPLASH-2's
//!    `minlevel`).
//! 5. `update`: `psi*`, `psim*`, `oldga`, `oldgb` from `ga`, `gb` (pointwise, 16).
//!
//! SPLASH-2 iterates each level to a tolerance in adaptive W-cycles; a fixed number of V-cycles
//! and sweeps is our simplification (the iteration counts depend on the data). The defaults
//! give about 300 flops over about 145 elements fetched per grid point and time step, so 2 flops
//! per element set the default `think_ns`. Six time steps by default: SPLASH-2's defaults
//! (`dtau` = 28 800 s, `outday3` = 2) integrate two days.
//!
//! **Loads and stores → transactions.** Each epoch fetches every line of every grid it touches
//! once: a stencil walks rows in order and keeps the previous and next rows in cache, so the
//! halo rows cost one fetch each and a line read and written costs one (write-allocate). No
//! reuse between epochs is modelled. That is exact for grids larger than the caches; at 258 ×
//! 258 a thread's share would fit a 4 MB cache, so the absolute miss counts overstate a real
//! run's — which thread touches which page, what placement acts on, is what this kernel models.
//! Accesses are independent (the machine's `mlp` applies).
//!
//! **Init.** `parallel`: each thread writes its partition of every grid at every level (contig:
//! its whole allocations, ghost cells included; non-contig: its interior block, plus the grid
//! boundary next to it); `sequential`: thread 0 writes everything. No randomness.

use super::common::{first_iteration, init_epoch, pages_for, resolve_think, spec_error, sweep, Array2, Geometry, Touch};
use crate::workload::{block_range, layout, Epoch, Txn, WorkloadCtx, WorkloadInfo, Workload};
use numaplace_model::spec::{ParamDecl, ParamKind, Resolved};
use numaplace_model::{ModelError, Region};

/// Flops per element fetched over a time step at the default `cycles` and `sweeps`.
pub const FLOPS_PER_ELEMENT: f64 = 2.0;

/// The grid size, shared with the line-level Ocean ([`crate::protocol::programs::ocean`]).
pub const N_PARAM: ParamDecl = ParamDecl {
    name: "n",
    kind: ParamKind::UINT,
    default: "258",
    doc: "grid points per side, boundary included; (power of 2) + 2 (seed 004 Table 1.3: 258 x 258)",
};

/// V-cycles per solve, shared with the line-level Ocean.
pub const CYCLES_PARAM: ParamDecl =
    ParamDecl { name: "cycles", kind: ParamKind::REPEATS, default: "2", doc: "multigrid V-cycles per elliptic solve" };

/// Relaxation iterations per level visit, shared with the line-level Ocean.
pub const SWEEPS_PARAM: ParamDecl = ParamDecl {
    name: "sweeps",
    kind: ParamKind::REPEATS,
    default: "2",
    doc: "red-black relaxation iterations per level visit",
};

const PARAMS: &[ParamDecl] = &[
    N_PARAM,
    ParamDecl {
        name: "steps",
        kind: ParamKind::ITERATIONS,
        default: "6",
        doc: "time steps (SPLASH-2's default run: two days of 8-hour steps)",
    },
    CYCLES_PARAM,
    SWEEPS_PARAM,
    ParamDecl {
        name: "think_ns",
        kind: ParamKind::Float { min: 0.0, max: 1e9 },
        default: "auto",
        doc: "CPU time per line, ns (auto: 2 flops per element x 4 ns per flop x line_size/8, 128 ns for 128-byte lines)",
    },
];

pub const CONTIG: WorkloadInfo = WorkloadInfo {
    name: "ocean-contig",
    doc: "SPLASH-2 Ocean, contiguous partitions: each thread's subgrids on pages of their own (seed 004)",
    params: PARAMS,
    caps: (),
    build: build_contig,
};

pub const NONCONTIG: WorkloadInfo = WorkloadInfo {
    name: "ocean-noncontig",
    doc: "SPLASH-2 Ocean, plain 2-D arrays: subgrids of several threads share pages (seed 004)",
    params: PARAMS,
    caps: (),
    build: build_noncontig,
};

/// The full-size grids, in region order; then the two multigrid fields.
pub const GRIDS: [&str; 15] = [
    "psi1", "psi3", "psim1", "psim3", "work1_1", "work1_3", "work5_1", "work5_3", "work7_1", "work7_3", "tauz", "ga", "gb",
    "oldga", "oldgb",
];
pub const PSI1: usize = 0;
pub const PSI3: usize = 1;
pub const PSIM1: usize = 2;
pub const PSIM3: usize = 3;
pub const WORK1_1: usize = 4;
pub const WORK1_3: usize = 5;
pub const WORK5_1: usize = 6;
pub const WORK5_3: usize = 7;
pub const WORK7_1: usize = 8;
pub const WORK7_3: usize = 9;
pub const TAUZ: usize = 10;
pub const GA: usize = 11;
pub const GB: usize = 12;
pub const OLDGA: usize = 13;
pub const OLDGB: usize = 14;
pub const Q: usize = 15;
pub const RHS: usize = 16;
pub const FIELDS: usize = 17;

fn build_contig(r: &Resolved, ctx: &WorkloadCtx) -> Result<Box<dyn Workload>, ModelError> {
    build(r, ctx, true)
}

fn build_noncontig(r: &Resolved, ctx: &WorkloadCtx) -> Result<Box<dyn Workload>, ModelError> {
    build(r, ctx, false)
}

/// The process grid and the multigrid levels.
#[derive(Clone, Debug)]
pub struct Decomp {
    pub px: u64,
    pub py: u64,
    /// Interior points per side of each level, finest first.
    pub sides: Vec<u64>,
}

impl Decomp {
    fn new(name: &str, n: u64, threads: u64) -> Result<Decomp, ModelError> {
        let interior = n.saturating_sub(2);
        if n > (1 << 20) + 2 || !interior.is_power_of_two() || interior < 2 {
            return Err(spec_error(name, format!("n={n}: expected a power of 2 plus 2, from 4 to {}", (1u64 << 20) + 2)));
        }
        // SPLASH-2 main.c: the factor pair closest to the square root, no wider than tall.
        let threads = threads.max(1);
        let mut j = (threads as f64).sqrt() as u64;
        while threads % j != 0 {
            j -= 1;
        }
        let (px, py) = (j.min(threads / j), j.max(threads / j));
        let sides: Vec<u64> =
            (0..).map(|k| interior >> k).take_while(|&s| s >= 1 && s / py >= 2 && s / px >= 2).collect();
        if sides.is_empty() {
            return Err(spec_error(
                name,
                format!("n={n}: a {px} x {py} process grid needs at least 2 x 2 interior points per thread"),
            ));
        }
        Ok(Decomp { px, py, sides })
    }

    /// Rows and columns `[lo, hi)` of thread `t`'s block at level `k`, in interior coordinates.
    pub fn block(&self, k: usize, t: usize) -> ((u64, u64), (u64, u64)) {
        let (prow, pcol) = (t as u64 / self.px, t as u64 % self.px);
        (block_range(self.sides[k], self.py, prow), block_range(self.sides[k], self.px, pcol))
    }

    pub fn thread(&self, prow: u64, pcol: u64) -> usize {
        (prow * self.px + pcol) as usize
    }
}

/// Where one field lives: per level, one array per thread (contig) or one array (non-contig).
#[derive(Clone, Debug)]
pub struct Field {
    pub levels: Vec<Vec<Array2>>,
}

/// Lays out a field of `levels` levels from page `first_page`; returns it and its pages.
fn place(d: &Decomp, contig: bool, levels: usize, threads: usize, first_page: u64, page: u64) -> (Field, u64) {
    let mut field = Field { levels: vec![Vec::new(); levels] };
    let mut next = first_page * page;
    // Levels are stored coarsest first, as SPLASH-2 allocates them.
    if contig {
        for t in 0..threads {
            let start = next;
            for k in (0..levels).rev() {
                let ((r0, r1), (c0, c1)) = d.block(k, t);
                let a = Array2 { base: next, rows: r1 - r0 + 2, cols: c1 - c0 + 2 };
                next += a.bytes();
                field.levels[k].push(a);
            }
            next = start + pages_for(next - start, page) * page;
        }
    } else {
        let start = next;
        for k in (0..levels).rev() {
            let a = Array2 { base: next, rows: d.sides[k] + 2, cols: d.sides[k] + 2 };
            next += a.bytes();
            field.levels[k].push(a);
        }
        next = start + pages_for(next - start, page) * page;
    }
    (field, next / page - first_page)
}

/// How an epoch uses one grid at one level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Read,
    Write,
    /// Read, with a halo of one point all round (a stencil input).
    Halo,
    /// Written, reading a halo of one point all round (relaxation in place).
    UpdateHalo,
}

#[derive(Clone, Copy, Debug)]
pub struct Operand {
    pub field: usize,
    pub level: usize,
    pub role: Role,
}

#[derive(Clone, Debug)]
pub enum Task {
    /// One loop nest over each thread's partition.
    Sweep { phase: &'static str, ops: Vec<Operand> },
    /// Ghost-cell refresh of these (field, level)s (contig only).
    Exchange(Vec<(usize, usize)>),
}

/// Builds the epochs of one time step (see the module doc), tracking which grids' ghost cells
/// are stale so that the contiguous layout exchanges exactly before the stencils that need it.
pub struct Planner {
    contig: bool,
    levels: usize,
    fresh: Vec<bool>,
    tasks: Vec<Task>,
}

impl Planner {
    fn slot(&self, field: usize, level: usize) -> usize {
        field * self.levels + level
    }

    fn sweep(&mut self, phase: &'static str, ops: &[(usize, usize, Role)]) {
        let ops: Vec<Operand> = ops.iter().map(|&(field, level, role)| Operand { field, level, role }).collect();
        if self.contig {
            let stale: Vec<(usize, usize)> = ops
                .iter()
                .filter(|o| matches!(o.role, Role::Halo | Role::UpdateHalo) && !self.fresh[self.slot(o.field, o.level)])
                .map(|o| (o.field, o.level))
                .collect();
            if !stale.is_empty() {
                for &(f, k) in &stale {
                    let s = self.slot(f, k);
                    self.fresh[s] = true;
                }
                self.tasks.push(Task::Exchange(stale));
            }
        }
        for o in ops.iter().filter(|o| matches!(o.role, Role::Write | Role::UpdateHalo)) {
            let s = self.slot(o.field, o.level);
            self.fresh[s] = false;
        }
        self.tasks.push(Task::Sweep { phase, ops });
    }

    fn relax(&mut self, k: usize, sweeps: u64) {
        for _ in 0..2 * sweeps {
            self.sweep("relax", &[(Q, k, Role::UpdateHalo), (RHS, k, Role::Read)]);
        }
    }

    pub fn step(contig: bool, levels: usize, cycles: u64, sweeps: u64) -> Vec<Task> {
        use Role::*;
        let mut p = Planner { contig, levels, fresh: vec![false; FIELDS * levels], tasks: Vec::new() };
        p.sweep(
            "laplacian",
            &[
                (PSI1, 0, Halo),
                (PSI3, 0, Halo),
                (PSIM1, 0, Halo),
                (PSIM3, 0, Halo),
                (WORK1_1, 0, Write),
                (WORK1_3, 0, Write),
                (WORK7_1, 0, Write),
                (WORK7_3, 0, Write),
            ],
        );
        p.sweep(
            "jacobian",
            &[(PSI1, 0, Halo), (PSI3, 0, Halo), (WORK1_1, 0, Halo), (WORK1_3, 0, Halo), (WORK5_1, 0, Write), (WORK5_3, 0, Write)],
        );
        p.sweep(
            "rhs",
            &[(WORK5_1, 0, Read), (WORK5_3, 0, Read), (WORK7_1, 0, Read), (WORK7_3, 0, Read), (TAUZ, 0, Read), (GA, 0, Write), (GB, 0, Write)],
        );
        let coarsest = levels - 1;
        for g in [GA, GB] {
            p.sweep("setup", &[(g, 0, Read), (RHS, 0, Write), (Q, 0, Write)]);
            for _ in 0..cycles {
                for k in 0..coarsest {
                    p.relax(k, sweeps);
                    p.sweep("restrict", &[(Q, k, Halo), (RHS, k, Read), (RHS, k + 1, Write), (Q, k + 1, Write)]);
                }
                p.relax(coarsest, sweeps);
                for k in (0..coarsest).rev() {
                    p.sweep("interpolate", &[(Q, k + 1, Halo), (Q, k, Write)]);
                    p.relax(k, sweeps);
                }
            }
            p.sweep("store", &[(Q, 0, Read), (g, 0, Write)]);
        }
        p.sweep(
            "update",
            &[
                (GA, 0, Read),
                (GB, 0, Read),
                (PSI1, 0, Write),
                (PSI3, 0, Write),
                (PSIM1, 0, Write),
                (PSIM3, 0, Write),
                (OLDGA, 0, Write),
                (OLDGB, 0, Write),
            ],
        );
        p.tasks
    }
}

/// The names of the fields, in region order: [`GRIDS`], then `q_multi` and `rhs_multi`.
pub fn field_names() -> Vec<&'static str> {
    GRIDS.iter().copied().chain(["q_multi", "rhs_multi"]).collect()
}

/// Where every field of one Ocean layout lives, and who owns what: shared by the page-level
/// workloads here and the line-level programs of [`crate::protocol::programs::ocean`].
#[derive(Clone, Debug)]
pub struct OceanLayout {
    pub regions: Vec<Region>,
    pub fields: Vec<Field>,
    pub d: Decomp,
    pub contig: bool,
}

impl OceanLayout {
    /// Lays out every field of an `n × n` ocean for `threads` threads from page 0.
    ///
    /// # Errors
    /// A bad `n` for this many threads, naming `name`.
    pub fn new(name: &str, n: u64, threads: usize, page_size: u64, contig: bool) -> Result<OceanLayout, ModelError> {
        let d = Decomp::new(name, n, threads as u64)?;
        let levels = |f: usize| if f >= Q { d.sides.len() } else { 1 };
        let names = field_names();
        let spec: Vec<(&str, u64)> =
            (0..FIELDS).map(|f| (names[f], place(&d, contig, levels(f), threads, 0, page_size).1)).collect();
        let regions = layout(name, &spec)?;
        let fields = (0..FIELDS)
            .map(|f| place(&d, contig, levels(f), threads, regions[f].first_page as u64, page_size).0)
            .collect();
        Ok(OceanLayout { regions, fields, d, contig })
    }

    /// Thread `t`'s partition of field `f` at level `k`: its array and interior rows and
    /// columns in that array's coordinates.
    pub fn part(&self, f: usize, k: usize, t: usize) -> (Array2, (u64, u64), (u64, u64)) {
        let arrays = &self.fields[f].levels[k];
        if self.contig {
            let a = arrays[t];
            (a, (1, a.rows - 1), (1, a.cols - 1))
        } else {
            let ((r0, r1), (c0, c1)) = self.d.block(k, t);
            (arrays[0], (r0 + 1, r1 + 1), (c0 + 1, c1 + 1))
        }
    }

    /// The rectangle operand `o` covers for thread `t` (halo included), rows written marked.
    pub fn touch(&self, o: &Operand, t: usize) -> Touch {
        let (a, rows, cols) = self.part(o.field, o.level, t);
        match o.role {
            Role::Read => Touch::read(a, rows, cols),
            Role::Write => Touch::write(a, rows, cols),
            Role::Halo => Touch::stencil(a, rows, cols, 1, false),
            Role::UpdateHalo => Touch::stencil(a, rows, cols, 1, true),
        }
    }

    /// What thread `t` initialises: its partition of every field at every level.
    pub fn owned(&self, t: usize) -> Vec<Touch> {
        let mut v = Vec::new();
        for (f, field) in self.fields.iter().enumerate() {
            for k in 0..field.levels.len() {
                if self.contig {
                    v.push(field.levels[k][t].all());
                } else {
                    // The interior block, extended to the grid boundary along the edges.
                    let (a, (r0, r1), (c0, c1)) = self.part(f, k, t);
                    let (last_r, last_c) = (a.rows - 1, a.cols - 1);
                    let ext = |lo: u64, hi: u64, last: u64| (if lo == 1 { 0 } else { lo }, if hi == last { hi + 1 } else { hi });
                    v.push(Touch::write(a, ext(r0, r1, last_r), ext(c0, c1, last_c)));
                }
            }
        }
        v
    }

    /// Thread `t`'s ghost-cell refresh of field `f` at level `k` (contiguous layout): for each
    /// neighbour, its border row, column or corner read and the matching ghost cells written.
    pub fn exchange(&self, f: usize, k: usize, t: usize) -> Vec<(Touch, Touch)> {
        let (prow, pcol) = (t as u64 / self.d.px, t as u64 % self.d.px);
        let own = self.fields[f].levels[k][t];
        let mut v = Vec::new();
        for dr in [-1i64, 0, 1] {
            for dc in [-1i64, 0, 1] {
                let (nr, nc) = (prow as i64 + dr, pcol as i64 + dc);
                if (dr, dc) == (0, 0) || nr < 0 || nc < 0 || nr >= self.d.py as i64 || nc >= self.d.px as i64 {
                    continue;
                }
                let src = self.fields[f].levels[k][self.d.thread(nr as u64, nc as u64)];
                // The neighbour's edge facing us (in its coordinates) and our ghost cells.
                let edge = |d: i64, len: u64| match d {
                    -1 => (len - 2, len - 1),
                    1 => (1, 2),
                    _ => (1, len - 1),
                };
                let ghost = |d: i64, len: u64| match d {
                    -1 => (0, 1),
                    1 => (len - 1, len),
                    _ => (1, len - 1),
                };
                let read = Touch::read(src, edge(dr, src.rows), edge(dc, src.cols));
                let write = Touch::write(own, ghost(dr, own.rows), ghost(dc, own.cols));
                v.push((read, write));
            }
        }
        v
    }
}

fn build(r: &Resolved, ctx: &WorkloadCtx, contig: bool) -> Result<Box<dyn Workload>, ModelError> {
    let name = if contig { CONTIG.name } else { NONCONTIG.name };
    let lay = OceanLayout::new(name, r.uint("n"), ctx.threads, ctx.page_size, contig)?;
    let (think_ns, resolved) = resolve_think(r, ctx, FLOPS_PER_ELEMENT);
    Ok(Box::new(Ocean {
        plan: Planner::step(contig, lay.d.sides.len(), r.uint("cycles"), r.uint("sweeps")),
        lay,
        steps: r.uint("steps") as u32,
        think_ns,
        geo: Geometry::new(ctx),
        ctx: *ctx,
        next: (first_iteration(ctx.init), 0),
        resolved,
    }))
}

struct Ocean {
    lay: OceanLayout,
    /// The epochs of one time step (descriptions, not transactions).
    plan: Vec<Task>,
    steps: u32,
    think_ns: f64,
    geo: Geometry,
    ctx: WorkloadCtx,
    /// The next epoch: (time step, index in `plan`); step 0 is the initialisation.
    next: (u32, usize),
    resolved: Resolved,
}

impl Ocean {
    fn exchange(&self, f: usize, k: usize, t: usize, out: &mut Vec<Txn>) {
        for (read, write) in self.lay.exchange(f, k, t) {
            sweep(out, &self.geo, &[read, write]);
        }
    }
}

impl Workload for Ocean {
    fn regions(&self) -> &[Region] {
        &self.lay.regions
    }

    fn iterations(&self) -> u32 {
        self.steps
    }

    fn resolved(&self) -> Option<&Resolved> {
        Some(&self.resolved)
    }

    fn next_epoch(&mut self, epoch: &mut Epoch) -> bool {
        let (step, i) = self.next;
        if step > self.steps {
            return false;
        }
        if step == 0 {
            self.next = (1, 0);
            init_epoch(epoch, &self.ctx, &self.geo, self.think_ns, |t| self.lay.owned(t));
            return true;
        }
        self.next = if i + 1 == self.plan.len() { (step + 1, 0) } else { (step, i + 1) };
        let task = &self.plan[i];
        let phase = match task {
            Task::Sweep { phase, .. } => phase,
            Task::Exchange(_) => "exchange",
        };
        epoch.reset(self.ctx.threads, step, phase);
        for t in 0..self.ctx.threads {
            let work = &mut epoch.threads[t];
            work.think_ns = self.think_ns;
            match task {
                Task::Sweep { ops, .. } => {
                    let touches: Vec<Touch> = ops.iter().map(|o| self.lay.touch(o, t)).collect();
                    sweep(&mut work.txns, &self.geo, &touches);
                }
                Task::Exchange(grids) => {
                    for &(f, k) in grids {
                        self.exchange(f, k, t, &mut work.txns);
                    }
                }
            }
        }
        true
    }
}
