//! Shared machinery of the NAS kernels: problem classes and parameters, the compute rate behind
//! `think_ns`, arrays stored x fastest, sweeps over k-slabs, j-blocks and pipeline stages, and
//! the lazy driver that turns a kernel's plan for one iteration into epochs.
//!
//! A kernel describes *one timed iteration* as a list of epochs (a phase each) and how each
//! thread first touches its data; [`Driver`](driver::Driver) plays the initialisation epoch
//! (iteration 0, as `ctx.init` asks) and then the iterations, generating each epoch only when
//! asked for it.
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

use crate::workload::{block_range, layout, push_lines, Op, Txn, WorkloadCtx};
use numaplace_model::spec::{ParamDecl, ParamKind, Resolved};
use numaplace_model::{ModelError, Region};

mod driver;
mod sweep;

pub(crate) use driver::{finish, Kernel};
pub(crate) use sweep::{wave_stages, Access, Part, Sweep, Sweeps};

/// The NPB problem classes modelled.
pub(crate) const CLASSES: &[&str] = &["S", "W", "A", "B", "C"];

/// An NPB problem class; tables indexed by it are `[S, W, A, B, C]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    S = 0,
    W = 1,
    A = 2,
    B = 3,
    C = 4,
}

impl Class {
    /// The class of a resolved spec (its `class` parameter).
    pub fn of(r: &Resolved) -> Class {
        match r.choice("class") {
            "S" => Class::S,
            "W" => Class::W,
            "A" => Class::A,
            "B" => Class::B,
            _ => Class::C,
        }
    }

    /// The entry of a per-class table `[S, W, A, B, C]`.
    pub fn pick<T: Copy>(self, table: [T; 5]) -> T {
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
            doc: "NPB problem class (S, W, A, B, C), official NPB 3.x sizes",
        },
        ParamDecl { name: "iterations", kind: ParamKind::ITERATIONS, default: "auto", doc: iterations_doc },
        ParamDecl { name: "think_ns", kind: ParamKind::Float { min: 0.0, max: 1e9 }, default: "auto", doc: think_doc },
    ]
}

/// `first_touch`: which loops first touch each array when the initialisation is parallel
/// (`init=parallel`; under `init=sequential` thread 0 touches everything either way). `slabs`:
/// every array in the partition of the kernel's main loops (NPB 3.3 OpenMP Fortran's
/// cold-start iteration, as seed 000 ran it). `npb-c`: each array as the NPB OpenMP C sources
/// first write it (seed 003 §5 ran "the OpenMP C implementation of the NAS Parallel Benchmark
/// suite"): in serial code (thread 0) or in the `omp for` loop that first writes it, with the
/// loop's partition of the array's storage; each kernel's module doc cites its file and loop.
pub(crate) const FIRST_TOUCH: ParamDecl = ParamDecl {
    name: "first_touch",
    kind: ParamKind::Choice(&["slabs", "npb-c"]),
    default: "slabs",
    doc: "under init=parallel, which loops first touch each array: slabs (the main loops' partition, NPB 3.3 Fortran) or npb-c (the NPB OpenMP C sources' loops, serial or omp for, array by array; seed 003 §5)",
};

/// Whether `r` asks for the NPB OpenMP C sources' first touch ([`FIRST_TOUCH`]).
pub(crate) fn npb_c(r: &Resolved) -> bool {
    r.choice("first_touch") == "npb-c"
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
    /// Blocks of x points in every row of every plane (an `omp for` over the fastest index);
    /// every thread writes into every page, so which thread touches a page first is a race the
    /// engine settles in its own order (threads played quantum by quantum).
    Columns,
    /// All of it by thread 0: serial code (before any parallel region, or a heap the master
    /// thread's allocator writes into).
    Serial,
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
            InitPart::Columns => {
                let (i0, i1) = block_range(self.sx, parts as u64, t as u64);
                for row in 0..self.sy * self.sz {
                    let at = row * self.row_bytes();
                    self.push_span(g, out, &mut cursor, at + i0 * self.bpp, at + i1 * self.bpp, Op::Write);
                }
            }
            InitPart::Serial if t == 0 => self.push_planes(g, out, &mut cursor, 0, self.sz, Op::Write),
            InitPart::Serial => {}
        }
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
    fn init_partitions_cover_the_array() {
        for part in [InitPart::Planes, InitPart::Rows, InitPart::Serial] {
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
