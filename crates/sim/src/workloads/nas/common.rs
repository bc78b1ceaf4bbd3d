//! Shared machinery of the NAS kernels: problem classes and parameters, the compute rate behind
//! `think_ns`, arrays stored x fastest, sweeps over k-slabs, j-blocks and pipeline stages, and
//! the lazy driver that turns a kernel's plan for one iteration into epochs.
//!
//! A kernel describes *one timed iteration* as a list of epochs (a phase each) and how each
//! thread first touches its data; [`Driver`] plays the initialisation epoch (iteration 0, as
//! `ctx.init` asks) and then the iterations, generating each epoch only when asked for it.
//!
//! **How loads and stores become transactions (every NAS kernel).** A transaction is one cache
//! line fetched from memory. Within an epoch (one parallel loop nest up to its barrier) a thread
//! fetches every line it touches once: stencil neighbours and the planes next to the current
//! one stay in cache for the length of a sweep. Between epochs nothing stays in cache: the
//! arrays of classes A and B are much larger than the 4 MB L2 of the Origin2000's R10000
//! (seed 000 §2.2). A read-modify-write of a line is one transaction (write-allocate, as in
//! `docs/timing.md`), recorded as a write; write-backs are not transactions. Exceptions are
//! stated in each kernel's module doc (LU's per-plane Jacobian scratch, EP's cache-resident
//! batch buffer).
//!
//! **Compute (`think_ns`).** The default is derived from each benchmark's official operation
//! count (the formula NPB itself uses to report Mflop/s, per iteration) and one compute rate
//! calibrated to seed 000, [`NS_PER_FLOP`]: `think_ns = flops per iteration × NS_PER_FLOP /
//! lines the model fetches per iteration`, the lines being counted by generating one
//! iteration. It is one number per kernel (and class, thread count and line size), the mean
//! over the iteration's lines; the value chosen is written back into the resolved spec. A
//! kernel that gives each phase's share of its flops (BT, whose phases range from 5 to 1 110
//! flops per point) has each phase's lines think `share × lines per iteration / lines of the
//! phase` times that mean, so a phase's compute is its share; the others spread it evenly
//! over every line.

use crate::workload::{block_range, layout, push_lines, Epoch, Init, Op, ThreadWork, Txn, Workload, WorkloadCtx};
use numaplace_model::spec::{ParamDecl, ParamKind, Resolved, Value};
use numaplace_model::{ModelError, Region};

/// The NPB problem classes modelled.
pub(crate) const CLASSES: &[&str] = &["S", "W", "A", "B"];

/// An NPB problem class; tables indexed by it are `[S, W, A, B]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    S = 0,
    W = 1,
    A = 2,
    B = 3,
}

impl Class {
    /// The class of a resolved spec (its `class` parameter).
    pub fn of(r: &Resolved) -> Class {
        match r.choice("class") {
            "S" => Class::S,
            "W" => Class::W,
            "A" => Class::A,
            _ => Class::B,
        }
    }

    /// The entry of a per-class table `[S, W, A, B]`.
    pub fn pick<T: Copy>(self, table: [T; 4]) -> T {
        table[self as usize]
    }
}

/// CPU time per floating-point operation, ns, outside the memory system, on the Origin2000's
/// 250 MHz MIPS R10000 (seed 000 §2.2; two flops per cycle at peak, 0.5 ns). Calibrated to the
/// one absolute time seed 000 gives: BT's `z_solve` takes 130 ms per call at class A on 16
/// processors (§4, "from 130 ms to approximately 520 ms"). With `z_solve`'s share of BT's
/// flops counted in NPB's source (29 %, see `bt.rs`), 7.5 ns per flop (1.9 cycles, a quarter
/// of peak) gives 127 ms in the model under first-touch, memory stalls included (test
/// `bt_z_solve_takes_seed_000s_130_ms`); 4 ns, our earlier assumption of one flop per cycle,
/// gave 72 ms. Memory stalls are not in this number: the timing model adds them. With it BT
/// (≈ 660 flops per line fetched, 5 µs of compute per line) is compute-bound and MG (≈ 76) or CG (≈ 18)
/// memory-bound, as in seed 000 Fig. 1, where worst-case placement slows BT by 24% and the
/// others by 50–248%.
pub(crate) const NS_PER_FLOP: f64 = 7.5;

/// The three parameters every NAS kernel takes: `class`, `iterations` and `think_ns`.
pub(crate) const fn params(iterations_doc: &'static str, think_doc: &'static str) -> [ParamDecl; 3] {
    [
        ParamDecl {
            name: "class",
            kind: ParamKind::Choice(CLASSES),
            default: "A",
            doc: "NPB problem class (S, W, A, B), official NPB 3.x sizes",
        },
        ParamDecl { name: "iterations", kind: ParamKind::ITERATIONS, default: "auto", doc: iterations_doc },
        ParamDecl { name: "think_ns", kind: ParamKind::Float { min: 0.0, max: 1e9 }, default: "auto", doc: think_doc },
    ]
}

/// The doc of `iterations` for the kernels with an official iteration count.
pub(crate) const ITERATIONS_DOC: &str = "timed iterations (auto: the class's official NPB count)";

/// Line and page sizes of the machine, from the workload context.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Geom {
    pub line: u64,
    pub lpp: u64,
    pub page: u64,
}

impl Geom {
    pub fn of(ctx: &WorkloadCtx) -> Geom {
        Geom { line: ctx.line_size, lpp: ctx.lines_per_page(), page: ctx.page_size }
    }

    /// Pages needed for `bytes`.
    pub fn pages(&self, bytes: u64) -> u64 {
        bytes.div_ceil(self.page)
    }
}

/// Lays out one region per `(name, bytes)`, each starting on a page boundary.
pub(crate) fn regions(workload: &str, arrays: &[(&str, u64)], g: &Geom) -> Result<Vec<Region>, ModelError> {
    let pages: Vec<(&str, u64)> = arrays.iter().map(|(n, b)| (*n, g.pages(*b))).collect();
    layout(workload, &pages)
}

/// The storage of BT's, SP's and LU's arrays for a grid of `n³` points: x and y padded to
/// `n/2·2 + 1` points (`IMAXP + 1` in `header.h`, to break power-of-two strides), `n` planes.
pub(crate) fn padded(n: u64) -> (u64, u64, u64) {
    (n / 2 * 2 + 1, n / 2 * 2 + 1, n)
}

/// One region and field per `(name, bytes per point)`, all on the grid `dims`, first touched
/// in k-slabs.
pub(crate) fn grid_arrays(
    workload: &str,
    arrays: &[(&str, u64)],
    dims: (u64, u64, u64),
    g: &Geom,
) -> Result<(Vec<Region>, Vec<Field>), ModelError> {
    let bytes: Vec<(&str, u64)> = arrays.iter().map(|(a, bpp)| (*a, bpp * dims.0 * dims.1 * dims.2)).collect();
    let regions = regions(workload, &bytes, g)?;
    let fields = regions.iter().zip(arrays).map(|(r, (_, bpp))| Field::grid(r, *bpp, dims)).collect();
    Ok((regions, fields))
}

/// How the initialisation epoch partitions an array among threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum InitPart {
    /// Contiguous blocks of k planes (NPB's `!$omp do` over k): a k-slab each.
    Planes,
    /// Blocks of j rows in every plane (`!$omp do` over j).
    Rows,
}

/// An array of `sz` planes of `sy` rows of `sx` points of `bpp` bytes, stored x fastest
/// (Fortran order `a(..., i, j, k)`), at byte `base` of a region starting at `first_page`.
/// A 1-D array is `sy = sz = 1`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Field {
    pub first_page: u32,
    pub base: u64,
    pub bpp: u64,
    pub sx: u64,
    pub sy: u64,
    pub sz: u64,
    pub init: InitPart,
}

impl Field {
    /// A field filling `region` from its start.
    pub fn grid(region: &Region, bpp: u64, (sx, sy, sz): (u64, u64, u64)) -> Field {
        Field { first_page: region.first_page, base: 0, bpp, sx, sy, sz, init: InitPart::Planes }
    }

    /// A 1-D array of `n` elements of `bpp` bytes filling `region` from its start.
    pub fn vector(region: &Region, bpp: u64, n: u64) -> Field {
        Field::grid(region, bpp, (n, 1, 1))
    }

    pub fn row_bytes(&self) -> u64 {
        self.sx * self.bpp
    }

    pub fn plane_bytes(&self) -> u64 {
        self.sy * self.row_bytes()
    }

    pub fn bytes(&self) -> u64 {
        self.sz * self.plane_bytes()
    }

    /// Appends the lines holding bytes `[lo, hi)` of the array, skipping lines before
    /// `*cursor` (already fetched in this epoch) and advancing it.
    pub fn push_span(&self, g: &Geom, out: &mut Vec<Txn>, cursor: &mut u64, lo: u64, hi: u64, op: Op) {
        if lo >= hi {
            return;
        }
        let mut from = ((self.base + lo) / g.line).max(*cursor);
        let to = (self.base + hi).div_ceil(g.line);
        if from >= to {
            return;
        }
        *cursor = to;
        // Extend the previous record when it is on the same page with the same op (small
        // planes and rows would otherwise give several records per page).
        if let Some(last) = out.last_mut() {
            let page = from / g.lpp;
            let end = ((page + 1) * g.lpp).min(to);
            if last.page == self.first_page + page as u32 && last.op == op && last.count as u64 + (end - from) <= g.lpp {
                last.count += (end - from) as u16;
                from = end;
            }
        }
        push_lines(out, self.first_page, g.lpp, from, to, op);
    }

    /// Appends the lines of planes `[k0, k1)`.
    pub fn push_planes(&self, g: &Geom, out: &mut Vec<Txn>, cursor: &mut u64, k0: u64, k1: u64, op: Op) {
        let pb = self.plane_bytes();
        self.push_span(g, out, cursor, k0 * pb, k1.min(self.sz) * pb, op);
    }

    /// Appends the lines of rows `[j0, j1)` of plane `k`.
    pub fn push_rows(&self, g: &Geom, out: &mut Vec<Txn>, cursor: &mut u64, k: u64, j0: u64, j1: u64, op: Op) {
        if k >= self.sz {
            return;
        }
        let at = k * self.plane_bytes();
        self.push_span(g, out, cursor, at + j0 * self.row_bytes(), at + j1.min(self.sy) * self.row_bytes(), op);
    }

    /// Appends the lines of points `[p0, p1)` in storage order.
    pub fn push_points(&self, g: &Geom, out: &mut Vec<Txn>, p0: u64, p1: u64, op: Op) {
        self.push_span(g, out, &mut 0, p0 * self.bpp, p1 * self.bpp, op);
    }

    /// Thread `t` of `parts` first touching (writing) its part of the array.
    pub fn push_init(&self, g: &Geom, out: &mut Vec<Txn>, t: usize, parts: usize) {
        let mut cursor = 0;
        match self.init {
            InitPart::Planes => {
                let (k0, k1) = block_range(self.sz, parts as u64, t as u64);
                self.push_planes(g, out, &mut cursor, k0, k1, Op::Write);
            }
            InitPart::Rows => {
                let (j0, j1) = block_range(self.sy, parts as u64, t as u64);
                for k in 0..self.sz {
                    self.push_rows(g, out, &mut cursor, k, j0, j1, Op::Write);
                }
            }
        }
    }
}

/// One array touched by a sweep.
///
/// For a k-partitioned sweep, loop planes `[p0, p1)` touch the array's planes
/// `[scale·p0, scale·p1)` with `op` (its *own* part) and the `halo` planes below and above with
/// reads (stencil neighbours owned by other threads). For a j-partitioned or pipelined sweep the
/// halo counts rows instead. `scale = 2` maps a coarse-grid loop onto a fine grid (multigrid).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Access {
    pub field: usize,
    pub op: Op,
    pub scale: u64,
    pub halo: (u64, u64),
}

impl Access {
    pub fn r(field: usize) -> Access {
        Access { field, op: Op::Read, scale: 1, halo: (0, 0) }
    }

    /// A write, or a read-modify-write: either is one line fetched per line touched.
    pub fn w(field: usize) -> Access {
        Access { field, op: Op::Write, scale: 1, halo: (0, 0) }
    }

    pub fn halo(self, below: u64, above: u64) -> Access {
        Access { halo: (below, above), ..self }
    }

    pub fn scale(self, scale: u64) -> Access {
        Access { scale, ..self }
    }
}

/// How a sweep divides its iteration space among threads (OpenMP static schedule).
#[derive(Clone, Debug)]
pub(crate) enum Part {
    /// Loop planes `[lo, hi)` in contiguous blocks: thread `t` sweeps its k-slab.
    Planes { lo: u64, hi: u64 },
    /// Rows `[lo, hi)` in contiguous blocks, in every plane of `[k0, k1)`: thread `t` touches
    /// its rows in all planes (a j-block across the whole k extent), each line of its rows in
    /// every plane before the next line (NPB's loops over `j`, then `i`, then all `k`).
    Rows { lo: u64, hi: u64, k0: u64, k1: u64 },
    /// One stage of a pipelined wavefront over planes `[k0, k1)`: the threads own row blocks of
    /// `[lo, hi)` and the `p`-th thread with rows works, at `stage`, on the `(stage - p)`-th
    /// plane (counting from `k1 - 1` downwards with `p` counted from the last thread when
    /// `up`), so each thread starts a plane once its neighbour has finished it.
    Wave { lo: u64, hi: u64, k0: u64, k1: u64, stage: u64, up: bool },
    /// Scattered points (linear indices) in contiguous blocks of the list, one line each.
    Points(Vec<u64>),
}

/// One epoch of a grid kernel: a phase name, its partition and the arrays it touches.
#[derive(Clone, Debug)]
pub(crate) struct Sweep {
    pub phase: &'static str,
    pub part: Part,
    pub acc: Vec<Access>,
}

impl Sweep {
    pub fn new(phase: &'static str, part: Part, acc: &[Access]) -> Sweep {
        Sweep { phase, part, acc: acc.to_vec() }
    }
}

/// Threads among the first `t` whose block of `n` items is not empty.
fn nonempty_before(n: u64, parts: u64, t: u64) -> u64 {
    (0..t).filter(|&u| block_range(n, parts, u).0 < block_range(n, parts, u).1).count() as u64
}

/// Stages of a pipelined sweep over `planes` planes with `rows` rows among `threads` threads.
pub(crate) fn wave_stages(planes: u64, rows: u64, threads: usize) -> u64 {
    let busy = rows.min(threads as u64);
    if planes == 0 || busy == 0 {
        0
    } else {
        planes + busy - 1
    }
}

/// Appends thread `t`'s records for `sweep`.
pub(crate) fn emit(sweep: &Sweep, fields: &[Field], g: &Geom, t: usize, threads: usize, out: &mut Vec<Txn>) {
    let (tt, nt) = (t as u64, threads as u64);
    let mut cursor = vec![0u64; sweep.acc.len()];
    match &sweep.part {
        Part::Planes { lo, hi } => {
            let (a, b) = block_range(hi.saturating_sub(*lo), nt, tt);
            let (p0, p1) = (lo + a, lo + b);
            for p in p0..p1 {
                for (a, c) in sweep.acc.iter().zip(cursor.iter_mut()) {
                    let f = &fields[a.field];
                    let own = (a.scale * p0, (a.scale * p1).min(f.sz));
                    let full = (own.0.saturating_sub(a.halo.0), (own.1 + a.halo.1).min(f.sz));
                    // This loop plane's share: its own planes, plus the halo at the ends.
                    let from = if p == p0 { full.0 } else { a.scale * p };
                    let to = if p + 1 == p1 { full.1 } else { (a.scale * (p + 1)).min(f.sz) };
                    f.push_planes(g, out, c, from, to.min(own.0), Op::Read);
                    f.push_planes(g, out, c, from.max(own.0), to.min(own.1), a.op);
                    f.push_planes(g, out, c, from.max(own.1), to, Op::Read);
                }
            }
        }
        Part::Rows { lo, hi, k0, k1 } => {
            let (a, b) = block_range(hi.saturating_sub(*lo), nt, tt);
            if a < b {
                // The same lines as plane by plane, in NPB's order: its j-partitioned loops run
                // `j`, then `i`, then **all `k` innermost** (BT's and SP's `z_solve`, LU's
                // zeta fluxes, FT's `cffts3`), so a thread visits every plane's line of its
                // current (j, i) before the next line of its rows: its accesses rotate through
                // every slab's node instead of staying on one slab for a whole plane of rows.
                let mut planes: Vec<Vec<Txn>> = Vec::with_capacity(k1.saturating_sub(*k0) as usize);
                for k in *k0..*k1 {
                    let mut plane = Vec::new();
                    rows_at(sweep, fields, g, k, (lo + a, lo + b), &mut cursor, &mut plane);
                    planes.push(plane);
                }
                interleave_lines(&planes, g.lpp, out);
            }
        }
        Part::Wave { lo, hi, k0, k1, stage, up } => {
            let rows = hi.saturating_sub(*lo);
            let (a, b) = block_range(rows, nt, tt);
            if a < b {
                let busy = rows.min(nt);
                let before = nonempty_before(rows, nt, tt);
                let pos = if *up { busy - 1 - before } else { before };
                let planes = k1.saturating_sub(*k0);
                if *stage >= pos && stage - pos < planes {
                    let i = stage - pos;
                    let k = if *up { k1 - 1 - i } else { k0 + i };
                    rows_at(sweep, fields, g, k, (lo + a, lo + b), &mut cursor, out);
                }
            }
        }
        Part::Points(points) => {
            let (a, b) = block_range(points.len() as u64, nt, tt);
            for &p in &points[a as usize..b as usize] {
                for acc in &sweep.acc {
                    fields[acc.field].push_points(g, out, p, p + 1, acc.op);
                }
            }
        }
    }
}

/// Appends the lines of `planes` (each a plane's records in storage order) one line of each
/// plane in turn: the first line of every plane, then the second of every plane, and so on
/// (a plane with fewer lines drops out when it has no more). A record is extended while
/// consecutive lines fall on one page with one op (at most `lpp` lines a record).
fn interleave_lines(planes: &[Vec<Txn>], lpp: u64, out: &mut Vec<Txn>) {
    // Per plane: (record index, lines of that record already taken).
    let mut at = vec![(0usize, 0u16); planes.len()];
    loop {
        let mut any = false;
        for (plane, pos) in planes.iter().zip(at.iter_mut()) {
            let Some(rec) = plane.get(pos.0) else { continue };
            any = true;
            match out.last_mut() {
                Some(last) if last.page == rec.page && last.op == rec.op && (last.count as u64) < lpp => last.count += 1,
                _ => out.push(Txn { page: rec.page, count: 1, op: rec.op }),
            }
            pos.1 += 1;
            if pos.1 == rec.count {
                *pos = (pos.0 + 1, 0);
            }
        }
        if !any {
            return;
        }
    }
}

/// Rows `own` of plane `k` of every array of the sweep, with their row halos read.
fn rows_at(sweep: &Sweep, fields: &[Field], g: &Geom, k: u64, own: (u64, u64), cursor: &mut [u64], out: &mut Vec<Txn>) {
    for (a, c) in sweep.acc.iter().zip(cursor.iter_mut()) {
        let f = &fields[a.field];
        let (j0, j1) = (own.0.min(f.sy), own.1.min(f.sy));
        f.push_rows(g, out, c, k, j0.saturating_sub(a.halo.0), j0, Op::Read);
        f.push_rows(g, out, c, k, j0, j1, a.op);
        f.push_rows(g, out, c, k, j1, (j1 + a.halo.1).min(f.sy), Op::Read);
    }
}

/// What a NAS kernel provides to the [`Driver`].
pub(crate) trait Kernel: Send {
    fn regions(&self) -> &[Region];
    /// Epochs in one timed iteration.
    fn epochs_per_iteration(&self) -> usize;
    /// The phase name of epoch `e` of an iteration.
    fn phase(&self, e: usize) -> &'static str;
    /// Thread `t`'s work in epoch `e` of an iteration (`work` was reset; `think_ns` is set).
    fn fill(&self, e: usize, t: usize, work: &mut ThreadWork);
    /// Thread `t` of `parts` first touching its data (`parts = 1`: thread 0 touches all).
    fn init(&self, t: usize, parts: usize, out: &mut Vec<Txn>);
    /// The benchmark's official floating-point operations per iteration (what NPB divides by
    /// time to report Mflop/s).
    fn flops_per_iteration(&self) -> f64;
    /// Each epoch's share of an iteration's flops, one per epoch summing to 1; empty (the
    /// default) spreads the compute evenly over the iteration's lines.
    fn flop_shares(&self) -> &[f64] {
        &[]
    }
}

/// A grid kernel: arrays plus the sweeps of one iteration.
pub(crate) struct Sweeps {
    pub regions: Vec<Region>,
    pub fields: Vec<Field>,
    pub sweeps: Vec<Sweep>,
    pub flops: f64,
    pub g: Geom,
    pub threads: usize,
    /// Each sweep is run this many times in a row within its epoch: seed 000 §4's synthetic
    /// scaling ("we enclosed each function that comprises the main body of the parallel
    /// [region] in a sequential loop with 4 iterations"): longer phases, same access pattern.
    pub repeat: u32,
    /// Each sweep's share of the iteration's flops (empty: in proportion to its lines).
    pub shares: Vec<f64>,
}

impl Kernel for Sweeps {
    fn regions(&self) -> &[Region] {
        &self.regions
    }

    fn epochs_per_iteration(&self) -> usize {
        self.sweeps.len()
    }

    fn phase(&self, e: usize) -> &'static str {
        self.sweeps[e].phase
    }

    fn fill(&self, e: usize, t: usize, work: &mut ThreadWork) {
        for _ in 0..self.repeat.max(1) {
            emit(&self.sweeps[e], &self.fields, &self.g, t, self.threads, &mut work.txns);
        }
    }

    fn init(&self, t: usize, parts: usize, out: &mut Vec<Txn>) {
        for f in &self.fields {
            f.push_init(&self.g, out, t, parts);
        }
    }

    fn flops_per_iteration(&self) -> f64 {
        self.flops * self.repeat.max(1) as f64
    }

    fn flop_shares(&self) -> &[f64] {
        &self.shares
    }
}

/// Plays a kernel: the initialisation epoch chosen by `ctx.init`, then the timed iterations,
/// one epoch at a time.
pub(crate) struct Driver<K: Kernel> {
    kernel: K,
    iterations: u32,
    think_ns: f64,
    /// Each epoch's CPU time per line as a multiple of `think_ns` (all 1 without flop shares).
    phase_scale: Vec<f64>,
    threads: usize,
    init: Init,
    /// Next iteration (0: the initialisation epoch) and next epoch within it.
    next: (u32, usize),
    resolved: Resolved,
}

/// Lines a kernel fetches in each epoch of one timed iteration.
fn lines_per_epoch<K: Kernel>(kernel: &K, threads: usize) -> Vec<u64> {
    let mut work = ThreadWork::default();
    (0..kernel.epochs_per_iteration())
        .map(|e| {
            let mut lines = 0u64;
            for t in 0..threads {
                work.txns.clear();
                kernel.fill(e, t, &mut work);
                lines += work.txns.iter().map(|x| x.count as u64).sum::<u64>();
            }
            lines
        })
        .collect()
}

/// The default `think_ns` of a kernel: its official flops per iteration at [`NS_PER_FLOP`],
/// spread over the `lines` the model fetches per iteration; rounded to 0.1 ns.
fn auto_think_ns<K: Kernel>(kernel: &K, lines: u64) -> f64 {
    if lines == 0 {
        return 0.0;
    }
    (kernel.flops_per_iteration() * NS_PER_FLOP / lines as f64 * 10.0).round() / 10.0
}

/// Each epoch's CPU time per line relative to the iteration's mean: `share × lines per
/// iteration / lines of the epoch`, so an epoch's compute is its share of the iteration's
/// flops; all 1 when the kernel gives no shares.
fn phase_scale(shares: &[f64], lines: &[u64]) -> Vec<f64> {
    let total: u64 = lines.iter().sum();
    if shares.len() != lines.len() {
        return vec![1.0; lines.len()];
    }
    shares.iter().zip(lines).map(|(&s, &l)| if l == 0 { 0.0 } else { s * total as f64 / l as f64 }).collect()
}

/// Finishes building a kernel: resolves `iterations` (auto: `official`) and `think_ns` (auto:
/// [`auto_think_ns`]) and writes them back into the spec.
///
/// # Errors
/// An iteration count beyond 2^32 - 2.
pub(crate) fn finish<K: Kernel + 'static>(
    name: &str,
    r: &Resolved,
    ctx: &WorkloadCtx,
    kernel: K,
    official: u64,
) -> Result<Box<dyn Workload>, ModelError> {
    let iterations = if r.is_auto("iterations") { official } else { r.uint("iterations") };
    if iterations >= u32::MAX as u64 {
        return Err(ModelError::Spec(format!("workload '{name}': iterations={iterations}: expected at most {}", u32::MAX - 1)));
    }
    let lines = lines_per_epoch(&kernel, ctx.threads);
    let think_ns = if r.is_auto("think_ns") { auto_think_ns(&kernel, lines.iter().sum()) } else { r.float("think_ns") };
    let phase_scale = phase_scale(kernel.flop_shares(), &lines);
    let mut resolved = r.clone();
    resolved.set("iterations", Value::UInt(iterations));
    resolved.set("think_ns", Value::Float(think_ns));
    Ok(Box::new(Driver {
        kernel,
        iterations: iterations as u32,
        think_ns,
        phase_scale,
        threads: ctx.threads,
        init: ctx.init,
        next: (if ctx.init == Init::None { 1 } else { 0 }, 0),
        resolved,
    }))
}

impl<K: Kernel> Workload for Driver<K> {
    fn regions(&self) -> &[Region] {
        self.kernel.regions()
    }

    fn iterations(&self) -> u32 {
        self.iterations
    }

    fn resolved(&self) -> Option<&Resolved> {
        Some(&self.resolved)
    }

    fn next_epoch(&mut self, epoch: &mut Epoch) -> bool {
        let (it, e) = self.next;
        if it == 0 {
            // Initialisation: first touches only; its compute is not modelled (think 0).
            epoch.reset(self.threads, 0, "init");
            match self.init {
                Init::Sequential => self.kernel.init(0, 1, &mut epoch.threads[0].txns),
                _ => {
                    for (t, work) in epoch.threads.iter_mut().enumerate() {
                        self.kernel.init(t, self.threads, &mut work.txns);
                    }
                }
            }
            self.next = (1, 0);
            return true;
        }
        let per = self.kernel.epochs_per_iteration();
        if it > self.iterations || per == 0 {
            return false;
        }
        epoch.reset(self.threads, it, self.kernel.phase(e));
        for (t, work) in epoch.threads.iter_mut().enumerate() {
            work.think_ns = self.think_ns * self.phase_scale[e];
            self.kernel.fill(e, t, work);
        }
        self.next = if e + 1 == per { (it + 1, 0) } else { (it, e + 1) };
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g() -> Geom {
        Geom { line: 64, lpp: 4, page: 256 }
    }

    fn field(bpp: u64, dims: (u64, u64, u64)) -> Field {
        Field::grid(&Region { name: "a".into(), first_page: 10, pages: 1000 }, bpp, dims)
    }

    fn lines(out: &[Txn]) -> u64 {
        out.iter().map(|t| t.count as u64).sum()
    }

    #[test]
    fn phase_scale_gives_each_phase_its_share_of_the_compute() {
        // Two phases of 30 and 10 lines, 25 % and 75 % of the flops: the mean per-line think is
        // scaled by 0.25 × 40 / 30 and 0.75 × 40 / 10, so the phases compute 10 and 30 lines'
        // worth of the mean.
        let s = phase_scale(&[0.25, 0.75], &[30, 10]);
        assert!((s[0] * 30.0 - 10.0).abs() < 1e-12 && (s[1] * 10.0 - 30.0).abs() < 1e-12, "{s:?}");
        // No shares, or shares that do not match the phases: the even spread.
        assert_eq!(phase_scale(&[], &[30, 10]), vec![1.0, 1.0]);
        assert_eq!(phase_scale(&[1.0], &[30, 10]), vec![1.0, 1.0]);
        // A phase without lines has nothing to carry its compute.
        assert_eq!(phase_scale(&[0.5, 0.5], &[0, 10])[0], 0.0);
    }

    #[test]
    fn spans_round_out_to_lines_and_skip_fetched_lines() {
        let f = field(8, (10, 1, 1));
        let mut out = Vec::new();
        let mut c = 0;
        f.push_span(&g(), &mut out, &mut c, 8, 72, Op::Read); // bytes 8..72: lines 0..2
        assert_eq!(out, vec![Txn::read(10, 2)]);
        f.push_span(&g(), &mut out, &mut c, 72, 80, Op::Read); // line 1 already fetched
        assert_eq!(out.len(), 1);
        assert_eq!(c, 2);
    }

    #[test]
    fn plane_sweep_reads_its_halo_once() {
        // 4 planes of one 64-byte line each; two threads; halo 1 on each side.
        let f = field(8, (8, 1, 4));
        let s = Sweep::new("s", Part::Planes { lo: 0, hi: 4 }, &[Access::w(0).halo(1, 1)]);
        let mut out = Vec::new();
        emit(&s, &[f], &g(), 0, 2, &mut out);
        // Thread 0: writes planes 0, 1; reads plane 2 (halo).
        assert_eq!(out, vec![Txn::write(10, 2), Txn::read(10, 1)]);
        out.clear();
        emit(&s, &[f], &g(), 1, 2, &mut out);
        // Thread 1: reads plane 1 (halo), writes planes 2, 3 (lines 2, 3: still page 10).
        assert_eq!(out, vec![Txn::read(10, 1), Txn::write(10, 2)]);
    }

    #[test]
    fn row_sweep_visits_every_plane_for_each_line_of_its_rows() {
        // Rows of one line, planes of four (a page each); thread 1 of 2 owns rows 2 and 3. NPB
        // runs all k innermost: row 2 of planes 0, 1, 2, then row 3 of planes 0, 1, 2.
        let f = field(8, (8, 4, 3));
        let s = Sweep::new("s", Part::Rows { lo: 0, hi: 4, k0: 0, k1: 3 }, &[Access::r(0)]);
        let mut out = Vec::new();
        emit(&s, &[f], &g(), 1, 2, &mut out);
        let pages: Vec<u32> = out.iter().map(|t| t.page).collect();
        assert_eq!(pages, vec![10, 11, 12, 10, 11, 12]);
        assert_eq!(lines(&out), 6);
    }

    #[test]
    fn interleaving_takes_a_line_of_each_plane_in_turn_and_keeps_every_line() {
        // Plane A: 3 lines on page 1 then 1 on page 2; plane B: 1 line on page 7; plane C: 2
        // write lines on page 9. Runs on one page with one op merge (up to 4 lines a record).
        let a = vec![Txn::read(1, 3), Txn::read(2, 1)];
        let b = vec![Txn::read(7, 1)];
        let c = vec![Txn::write(9, 2)];
        let mut out = Vec::new();
        interleave_lines(&[a.clone(), b, c], 4, &mut out);
        let want = vec![Txn::read(1, 1), Txn::read(7, 1), Txn::write(9, 1), Txn::read(1, 1), Txn::write(9, 1), Txn::read(1, 1), Txn::read(2, 1)];
        assert_eq!(out, want);
        // One plane alone comes out as it went in.
        let mut one = Vec::new();
        interleave_lines(&[a.clone()], 4, &mut one);
        assert_eq!(one, a);
        // Nothing in, nothing out.
        let mut none = Vec::new();
        interleave_lines(&[Vec::new(), Vec::new()], 4, &mut none);
        assert!(none.is_empty());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 200, ..proptest::prelude::ProptestConfig::default() })]

        /// A row sweep in NPB's order fetches exactly the lines of the same sweep plane by
        /// plane, each with the same op (counted per page and op), in records of at most a
        /// page: only the order changes.
        #[test]
        fn row_sweeps_fetch_the_lines_of_the_plane_by_plane_order(
            sx in 1u64..40, sy in 1u64..12, sz in 1u64..9,
            accs in proptest::collection::vec((0usize..3, proptest::prelude::any::<bool>(), 0u64..3, 0u64..3), 1..4),
            threads in 1usize..6, t in 0usize..6,
        ) {
            let t = t % threads;
            let fields: Vec<Field> = [8u64, 16, 40].iter().enumerate().map(|(i, &bpp)| {
                Field::grid(&Region { name: "a".into(), first_page: 10 + 1000 * i as u32, pages: 1000 }, bpp, (sx, sy, sz))
            }).collect();
            let acc: Vec<Access> = accs.iter().map(|&(f, w, lo, hi)| if w { Access::w(f) } else { Access::r(f) }.halo(lo, hi)).collect();
            let sweep = Sweep::new("s", Part::Rows { lo: 0, hi: sy, k0: 0, k1: sz }, &acc);
            let mut got = Vec::new();
            emit(&sweep, &fields, &g(), t, threads, &mut got);
            let mut want = Vec::new();
            let (a, b) = block_range(sy, threads as u64, t as u64);
            if a < b {
                let mut cursor = vec![0u64; acc.len()];
                for k in 0..sz {
                    rows_at(&sweep, &fields, &g(), k, (a, b), &mut cursor, &mut want);
                }
            }
            let tally = |v: &[Txn]| {
                let mut m = std::collections::BTreeMap::new();
                for x in v {
                    *m.entry((x.page, x.op == Op::Write)).or_insert(0u64) += x.count as u64;
                }
                m
            };
            proptest::prop_assert_eq!(tally(&got), tally(&want));
            proptest::prop_assert!(got.iter().all(|x| x.count >= 1 && x.count as u64 <= g().lpp));
        }
    }

    #[test]
    fn wave_stages_follow_the_pipeline() {
        let f = field(8, (8, 4, 5));
        let stages = wave_stages(5, 4, 2);
        assert_eq!(stages, 6);
        let planes = |t: usize, up: bool| -> Vec<Option<u32>> {
            (0..stages)
                .map(|s| {
                    let sw = Sweep::new("w", Part::Wave { lo: 0, hi: 4, k0: 0, k1: 5, stage: s, up }, &[Access::w(0)]);
                    let mut out = Vec::new();
                    emit(&sw, &[f], &g(), t, 2, &mut out);
                    out.first().map(|x| x.page - 10)
                })
                .collect()
        };
        // Plane k is page k (four one-line rows per plane, four lines per page).
        assert_eq!(planes(0, false), vec![Some(0), Some(1), Some(2), Some(3), Some(4), None]);
        assert_eq!(planes(1, false), vec![None, Some(0), Some(1), Some(2), Some(3), Some(4)]);
        assert_eq!(planes(1, true), vec![Some(4), Some(3), Some(2), Some(1), Some(0), None]);
        assert_eq!(planes(0, true), vec![None, Some(4), Some(3), Some(2), Some(1), Some(0)]);
    }

    #[test]
    fn scaled_access_maps_coarse_loop_onto_fine_planes() {
        let fine = field(8, (8, 1, 8));
        let s = Sweep::new("p", Part::Planes { lo: 0, hi: 4 }, &[Access::r(0).scale(2).halo(1, 1)]);
        let mut out = Vec::new();
        emit(&s, &[fine], &g(), 1, 2, &mut out); // coarse planes 2, 3 -> fine 4..8, halo 3
        assert_eq!(lines(&out), 5);
        assert_eq!(out[0], Txn::read(10, 1)); // fine plane 3 (line 3, page 10)
    }

    #[test]
    fn init_partitions_cover_the_array() {
        for part in [InitPart::Planes, InitPart::Rows] {
            let f = Field { init: part, ..field(8, (8, 4, 3)) };
            let total: u64 = (0..5)
                .map(|t| {
                    let mut out = Vec::new();
                    f.push_init(&g(), &mut out, t, 5);
                    assert!(out.iter().all(|x| x.op == Op::Write));
                    lines(&out)
                })
                .sum();
            assert_eq!(total, 12);
        }
    }
}
