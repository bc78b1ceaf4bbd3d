//! `fmm` at line level: SPLASH-2 FMM, the adaptive fast multipole method in two dimensions
//! (seed 004 Table 1.3: 8K particles; `f_array`, part of `G_Memory`, marked for proxying).
//!
//! **Particles** follow a Plummer model projected onto the plane ([`tree::plummer`]),
//! generated from the run's seed, held fixed over the run's steps (as for Barnes).
//!
//! **Data**: `particles`, one line each (position, charge, potential, field); `boxes`, the
//! boxes of the quadtree, each [`BOX_BYTES`]: two header lines (centre, size, parent, children,
//! particle list), the multipole expansion and the local expansion, [`TERMS`] complex
//! coefficients each (SPLASH-2 sizes expansions by the precision; 20 terms for its default
//! 1e-6), from per-thread pools (each processor allocates the boxes it creates); and two parts
//! of SPLASH-2's `G_Memory` (`memory.H`): `lock_array`, its [`MAX_LOCKS`] lock words (8 bytes
//! each, *choice*), where box `i` of every processor's pool takes lock `i mod (MAX_LOCKS − 1)`
//! (`box.C`: `exp_lock_index`, `particle_lock_index`), so the same-numbered boxes of all
//! processors share a lock; and `f_array[P][4]`, the grid bounds each processor publishes once
//! a step (`MergeLocalGridSize`: its own row written, a barrier, then every row read). The
//! seed marks `f_array` alone for basic proxying (Table 1.3: "f_array (part of G_Memory)"): a
//! 2 KiB array all processors read at once. Regions are page aligned here, so `f_array` has a
//! page of its own (in SPLASH-2 it follows the lock array in one allocation).
//!
//! **Tree**: a quadtree ([`tree::Tree`]) whose boxes split above [`MAX_PER_BOX`] particles;
//! interaction lists from the geometry: a box's *V-list* is the children of its parent's
//! colleagues (same-level adjacent boxes) that are not adjacent to it — multipole-to-local
//! translations; a leaf's *U-list* is every leaf adjacent to it — direct particle–particle
//! interactions. Simplification: the W- and X-lists of the adaptive method (leaves next to
//! boxes of another size) are not separated: adjacent leaves of any size are in the U-list,
//! and non-adjacent same-level boxes in the V-list.
//!
//! **Partition**: cost zones, the particles in depth-first order cut into equal cost (a
//! particle's cost: its leaf's U-list particles, plus its share of its leaf's V-list work);
//! a box belongs to, and is created by, the thread owning its first particle.
//!
//! **Phases of a step**, each ending with a barrier (SPLASH-2's `ConstructGrid`, `UpwardPass`,
//! `ComputeInteractions`, `DownwardPass`, `ComputeParticlePositions`): *bounds* — each thread
//! reads its particles and writes its `f_array` row (`DetermineGridSize`; the barrier is
//! `MergeLocalGridSize`'s); *build* — every `f_array` row read, then each particle
//! inserted as in Barnes (the header lines of the boxes above its leaf read, the leaf's list
//! updated under its parent's lock, boxes written under their parent's lock by their creator);
//! *upward* — own boxes, children first: a leaf reads its particles and writes its multipole
//! expansion, a parent reads its children's and writes its own; *interactions* — for each own
//! box, the header and multipole lines of each V-list box read and the local expansion updated;
//! for each own particle, every particle of its leaf and of its leaf's U-list read and its own
//! line updated; *downward* — own boxes, parents first: the parent's local expansion read, the
//! own one updated, a leaf's particles updated from it; *advance* — own particles updated.
//! Initialisation: the master writes every particle; barrier; `EndInit`.
//!
//! **Compute**: multipole-to-local 8 instructions per pair of terms (a complex multiply-add:
//! 8 flops, operands in registers), multipole-to-multipole and local-to-local 4 per pair,
//! particle-to-multipole and local-to-particle 10 per term, a direct interaction 20, advance
//! 30, insertion 10 per level.
//!
//! **Size**: `steps` defaults to 2 (SPLASH-2's inputs run 3): at 8K particles and 64 threads,
//! 3.5 M line accesses (6.9 M operations) and 13 barriers.

use super::tree::{plummer, Tree};
use super::{compute, spec_error, Driver, Layout, LineInfo, Phased};
use crate::protocol::program::{Addr, LineCtx, LineOp, LineProgram, LineRegion};
use numaplace_model::registry::Info;
use numaplace_model::spec::{ParamDecl, ParamKind, Resolved};
use numaplace_model::ModelError;

const NAME: &str = "fmm";
/// Coefficients of an expansion.
pub const TERMS: u64 = 20;
const EXPANSION_BYTES: u64 = TERMS * 16;
/// Header lines, multipole and local expansions.
pub const BOX_BYTES: u64 = 128 + 2 * EXPANSION_BYTES;
const MP: u64 = 128;
const LOCAL: u64 = 128 + EXPANSION_BYTES;
pub const PARTICLE_BYTES: u64 = 64;
pub const MAX_PER_BOX: usize = 40;
const M2L_CYCLES: u64 = 8 * TERMS * TERMS;
const M2M_CYCLES: u64 = 4 * TERMS * TERMS;
const P2M_CYCLES: u64 = 10 * TERMS;
const DIRECT_CYCLES: u64 = 20;
const ADVANCE_CYCLES: u64 = 30;
const INSERT_CYCLES: u64 = 10;
const INIT_CHUNK: usize = 64;
const STEP_PHASES: usize = 6;
/// SPLASH-2 FMM's `MAX_LOCKS` (`memory.H`).
pub const MAX_LOCKS: u64 = 2048;
/// `f_array`'s row: `NUM_DIM_POW_2` (4) reals.
const F_ROW: u64 = 4 * 8;
const BOUNDS_CYCLES: u64 = 4;

const PARAMS: &[ParamDecl] = &[
    ParamDecl {
        name: "particles",
        kind: ParamKind::UInt { min: 2, max: 1 << 22 },
        default: "8192",
        doc: "particles (seed 004 Table 1.3: 8K)",
    },
    ParamDecl {
        name: "steps",
        kind: ParamKind::UInt { min: 1, max: 64 },
        default: "2",
        doc: "time steps (SPLASH-2's inputs run 3)",
    },
];

pub const INFO: LineInfo = Info {
    name: NAME,
    doc: "SPLASH-2 FMM, 2-D adaptive quadtree with interaction lists, f_array marked (seed 004, 8K particles)",
    params: PARAMS,
    caps: (),
    build,
};

fn build(r: &Resolved, ctx: &LineCtx) -> Result<Box<dyn LineProgram>, ModelError> {
    Ok(Driver::boxed(Fmm::new(r.uint("particles") as usize, r.uint("steps") as usize, ctx)?))
}

pub(crate) struct Fmm {
    regions: Vec<LineRegion>,
    threads: usize,
    line: u64,
    steps: usize,
    n: usize,
    tree: Tree,
    zones: Vec<usize>,
    addr: Vec<Addr>,
    /// Each box's owner (and creator).
    #[cfg_attr(not(test), allow(dead_code))]
    owner: Vec<u16>,
    created: Vec<Vec<u32>>,
    leaf_at: Vec<u32>,
    ulist: Vec<Vec<u32>>,
    vlist: Vec<Vec<u32>>,
    particles: Addr,
    locks: Addr,
    f_array: Addr,
    /// Each box's index in its creator's pool (which picks its lock).
    local: Vec<u64>,
}

impl Fmm {
    fn new(n: usize, steps: usize, ctx: &LineCtx) -> Result<Fmm, ModelError> {
        if ctx.threads > n {
            return Err(spec_error(NAME, format!("particles={n}: fewer particles than {} threads", ctx.threads)));
        }
        let pos = plummer(n, 2, ctx.seed);
        let tree = Tree::build(&pos, 2, MAX_PER_BOX);
        let boxes = tree.nodes.len();
        let mut leaf_at = vec![0u32; n];
        let mut ulist = vec![Vec::new(); boxes];
        let mut vlist = vec![Vec::new(); boxes];
        for (id, node) in tree.nodes.iter().enumerate() {
            let id32 = id as u32;
            if node.is_leaf() {
                leaf_at[node.bodies.0 as usize..node.bodies.1 as usize].fill(id32);
                ulist[id] = tree.adjacent_leaves(id32);
            }
            if node.parent != u32::MAX {
                for c in tree.colleagues(node.parent) {
                    for &k in &tree.nodes[c as usize].children {
                        if !tree.adjacent(k, id32) {
                            vlist[id].push(k);
                        }
                    }
                }
            }
        }
        // Cost of a particle: its direct interactions and its share of its leaf's V-list.
        let mut cost = vec![1u64; n];
        for (id, node) in tree.nodes.iter().enumerate() {
            if node.is_leaf() {
                let direct: u64 = ulist[id].iter().map(|&l| tree.nodes[l as usize].count() as u64).sum::<u64>()
                    + node.count() as u64;
                let v = vlist[id].len() as u64 * M2L_CYCLES / DIRECT_CYCLES / node.count().max(1) as u64;
                for &b in &tree.order[node.bodies.0 as usize..node.bodies.1 as usize] {
                    cost[b as usize] += direct + v;
                }
            }
        }
        let zones = tree.cost_zones(&cost, ctx.threads);
        let zone_of = |i: usize| zones.partition_point(|&z| z <= i) - 1;
        let mut created = vec![Vec::new(); ctx.threads];
        let mut owner = Vec::with_capacity(boxes);
        let mut local = Vec::with_capacity(boxes);
        for (id, node) in tree.nodes.iter().enumerate() {
            let t = zone_of(node.bodies.0 as usize);
            owner.push(t as u16);
            local.push(created[t].len() as u64);
            created[t].push(id as u32);
        }
        let max = created.iter().map(|c| c.len() as u64).max().unwrap_or(1).max(1);
        let mut l = Layout::new(ctx.page_size);
        let particles = l.alloc("particles", n as u64 * PARTICLE_BYTES, false);
        let pool = l.alloc("boxes", ctx.threads as u64 * max * BOX_BYTES, false);
        let locks = l.alloc("lock_array", MAX_LOCKS * 8, false);
        let f_array = l.alloc("f_array", ctx.threads as u64 * F_ROW, true);
        let addr = (0..boxes).map(|id| pool + (owner[id] as u64 * max + local[id]) * BOX_BYTES).collect();
        Ok(Fmm {
            regions: l.regions,
            threads: ctx.threads,
            line: ctx.line_size,
            steps,
            n,
            tree,
            zones,
            addr,
            owner,
            created,
            leaf_at,
            ulist,
            vlist,
            particles,
            locks,
            f_array,
            local,
        })
    }

    fn zone(&self, t: usize) -> (usize, usize) {
        (self.zones[t], self.zones[t + 1])
    }

    fn particle(&self, b: u32) -> Addr {
        self.particles + b as u64 * PARTICLE_BYTES
    }

    /// The lock of box `node`: its pool index modulo `MAX_LOCKS − 1`, as SPLASH-2's `box.C`.
    fn lock(&self, node: u32) -> Addr {
        self.locks + self.local[node as usize] % (MAX_LOCKS - 1) * 8
    }

    fn span(&self, out: &mut Vec<LineOp>, from: Addr, bytes: u64, read: bool, write: bool) {
        let mut a = from;
        while a < from + bytes {
            if read {
                out.push(LineOp::Read(a));
            }
            if write {
                out.push(LineOp::Write(a));
            }
            a += self.line;
        }
    }

    /// The particles of box `n`, as body indices.
    fn members(&self, n: u32) -> &[u32] {
        let node = &self.tree.nodes[n as usize];
        &self.tree.order[node.bodies.0 as usize..node.bodies.1 as usize]
    }
}

impl Phased for Fmm {
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
        let (lo, hi) = self.zone(t);
        if p == 0 {
            return if t == 0 { self.n.div_ceil(INIT_CHUNK) } else { 0 };
        }
        match (p - 1) % STEP_PHASES {
            0 => 1,
            2 | 4 => self.created[t].len(),
            3 => self.created[t].len() + (hi - lo),
            _ => hi - lo,
        }
    }

    fn unit(&self, p: usize, t: usize, u: usize, out: &mut Vec<LineOp>) {
        let line = self.line;
        if p == 0 {
            for b in u * INIT_CHUNK..((u + 1) * INIT_CHUNK).min(self.n) {
                compute(out, 10);
                out.push(LineOp::Write(self.particle(b as u32)));
            }
            return;
        }
        let (lo, hi) = self.zone(t);
        let nodes = &self.tree.nodes;
        match (p - 1) % STEP_PHASES {
            0 => {
                // DetermineLocalGridSize over own particles, then this thread's f_array row.
                for &b in &self.tree.order[lo..hi] {
                    out.push(LineOp::Read(self.particle(b)));
                }
                compute(out, BOUNDS_CYCLES * (hi - lo) as u64);
                out.push(LineOp::Write(self.f_array + t as u64 * F_ROW));
            }
            1 => {
                if u == 0 {
                    // MergeLocalGridSize after its barrier: every processor's row.
                    self.span(out, self.f_array, self.threads as u64 * F_ROW, true, false);
                    compute(out, BOUNDS_CYCLES * self.threads as u64);
                }
                let i = lo + u;
                let leaf = self.leaf_at[i];
                let mut path = Vec::new();
                let mut n = nodes[leaf as usize].parent;
                while n != u32::MAX {
                    path.push(n);
                    n = nodes[n as usize].parent;
                }
                for &c in path.iter().rev() {
                    compute(out, INSERT_CYCLES);
                    out.push(LineOp::Read(self.addr[c as usize]));
                }
                let mut new = Vec::new();
                let mut n = leaf;
                while n != u32::MAX && nodes[n as usize].bodies.0 as usize == i {
                    new.push(n);
                    n = nodes[n as usize].parent;
                }
                for &c in new.iter().rev() {
                    let parent = nodes[c as usize].parent;
                    let lock = self.lock(if parent == u32::MAX { c } else { parent });
                    out.push(LineOp::Lock(lock));
                    self.span(out, self.addr[c as usize], 128, false, true);
                    if parent != u32::MAX {
                        self.span(out, self.addr[parent as usize] + line, line, true, true);
                    }
                    out.push(LineOp::Unlock(lock));
                }
                let parent = nodes[leaf as usize].parent;
                let lock = self.lock(if parent == u32::MAX { leaf } else { parent });
                out.push(LineOp::Lock(lock));
                self.span(out, self.addr[leaf as usize] + line, line, true, true);
                out.push(LineOp::Unlock(lock));
            }
            2 => {
                let list = &self.created[t];
                let n = list[list.len() - 1 - u];
                let node = &nodes[n as usize];
                if node.is_leaf() {
                    for &b in self.members(n) {
                        out.push(LineOp::Read(self.particle(b)));
                        compute(out, P2M_CYCLES);
                    }
                } else {
                    for &c in &node.children {
                        self.span(out, self.addr[c as usize] + MP, EXPANSION_BYTES, true, false);
                        compute(out, M2M_CYCLES);
                    }
                }
                self.span(out, self.addr[n as usize] + MP, EXPANSION_BYTES, false, true);
            }
            3 => {
                let own = self.created[t].len();
                if u < own {
                    let n = self.created[t][u];
                    for &v in &self.vlist[n as usize] {
                        out.push(LineOp::Read(self.addr[v as usize]));
                        self.span(out, self.addr[v as usize] + MP, EXPANSION_BYTES, true, false);
                        compute(out, M2L_CYCLES);
                    }
                    if !self.vlist[n as usize].is_empty() {
                        self.span(out, self.addr[n as usize] + LOCAL, EXPANSION_BYTES, true, true);
                    }
                } else {
                    let i = lo + u - own;
                    let me = self.tree.order[i];
                    let leaf = self.leaf_at[i];
                    for &l in std::iter::once(&leaf).chain(&self.ulist[leaf as usize]) {
                        for &b in self.members(l) {
                            if b != me {
                                out.push(LineOp::Read(self.particle(b)));
                                compute(out, DIRECT_CYCLES);
                            }
                        }
                    }
                    out.push(LineOp::Read(self.particle(me)));
                    out.push(LineOp::Write(self.particle(me)));
                }
            }
            4 => {
                let n = self.created[t][u];
                let node = &nodes[n as usize];
                if node.parent != u32::MAX {
                    self.span(out, self.addr[node.parent as usize] + LOCAL, EXPANSION_BYTES, true, false);
                    compute(out, M2M_CYCLES);
                    self.span(out, self.addr[n as usize] + LOCAL, EXPANSION_BYTES, true, true);
                }
                if node.is_leaf() {
                    for &b in self.members(n) {
                        compute(out, P2M_CYCLES);
                        out.push(LineOp::Read(self.particle(b)));
                        out.push(LineOp::Write(self.particle(b)));
                    }
                }
            }
            _ => {
                let b = self.tree.order[lo + u];
                out.push(LineOp::Read(self.particle(b)));
                compute(out, ADVANCE_CYCLES);
                out.push(LineOp::Write(self.particle(b)));
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
        for (n, threads) in [(50, 1), (400, 4), (300, 3), (128, 8)] {
            check::run(&format!("fmm:particles={n},steps=2"), threads);
        }
    }

    #[test]
    fn generation_is_lazy() {
        check::lazy(Fmm::new(4096, 1, &check::ctx(2)).unwrap());
    }

    #[test]
    fn g_memory_as_splash2_lays_it_out() {
        let threads = 4;
        let s = check::run("fmm:particles=2000,steps=1", threads);
        let f = Fmm::new(2000, 1, &check::ctx(threads)).unwrap();
        // Only f_array is marked (seed 004 Table 1.3), and it holds a row of 4 reals per thread.
        let marked: Vec<_> = f.regions.iter().filter(|r| r.proxy).map(|r| r.name.as_str()).collect();
        assert_eq!(marked, vec!["f_array"]);
        for (t, stream) in s.iter().enumerate() {
            // Bounds: its own row written, no other f_array line touched.
            let bounds = check::timed_phase(stream, 0);
            let rows: Vec<_> = bounds.iter().filter(|op| matches!(op, LineOp::Write(a) if *a >= f.f_array)).collect();
            assert_eq!(rows, vec![&LineOp::Write(f.f_array + t as u64 * 32)]);
            // Build: every row read (two rows to a line), before any insertion.
            let build = check::timed_phase(stream, 1);
            let reads: Vec<_> = build.iter().take_while(|op| matches!(op, LineOp::Read(a) if *a >= f.f_array)).collect();
            assert_eq!(reads.len(), (threads * 32).div_ceil(64));
            // Locks: a box's pool index modulo MAX_LOCKS - 1.
            for op in build {
                if let LineOp::Lock(a) = *op {
                    assert!(a >= f.locks && a < f.locks + (MAX_LOCKS - 1) * 8);
                }
            }
        }
        for (id, &i) in f.local.iter().enumerate() {
            assert_eq!(f.lock(id as u32), f.locks + i % (MAX_LOCKS - 1) * 8);
        }
        // The same-numbered boxes of two threads' pools share a lock.
        let first: Vec<_> = (0..threads).filter_map(|t| f.created[t].first()).collect();
        assert!(first.len() > 1 && first.iter().all(|&&b| f.lock(b) == f.locks));
    }

    #[test]
    fn interaction_lists_read_other_threads_boxes() {
        let threads = 4;
        let s = check::run("fmm:particles=2000,steps=1", threads);
        let f = Fmm::new(2000, 1, &check::ctx(threads)).unwrap();
        assert!(f.vlist.iter().any(|v| !v.is_empty()), "no V-lists");
        let owner_of = |a: Addr| -> Option<usize> {
            f.addr.iter().position(|&b| a >= b && a < b + BOX_BYTES).map(|id| f.owner[id] as usize)
        };
        let mut foreign = 0;
        for (t, stream) in s.iter().enumerate() {
            for op in check::timed_phase(stream, 3) {
                if let LineOp::Read(a) = *op {
                    if owner_of(a).is_some_and(|o| o != t) {
                        foreign += 1;
                    }
                }
            }
        }
        assert!(foreign > 0, "interaction lists read only own boxes");
        // A V-list box is never adjacent, a U-list leaf always is.
        for (id, v) in f.vlist.iter().enumerate() {
            assert!(v.iter().all(|&k| !f.tree.adjacent(k, id as u32)));
        }
        for (id, u) in f.ulist.iter().enumerate() {
            assert!(u.iter().all(|&k| f.tree.adjacent(k, id as u32) && f.tree.nodes[k as usize].is_leaf()));
        }
    }
}
