//! `barnes` at line level: SPLASH-2 Barnes, the Barnes–Hut hierarchical N-body method (seed
//! 004 Table 1.3: 16K particles; all its shared data marked for basic proxying).
//!
//! **Bodies** follow a Plummer model generated from the run's seed ([`tree::plummer`], as
//! SPLASH-2's `testdata`), unit masses. Positions are held fixed over the run's few steps (a
//! time step moves a body by a small fraction of its cell, so the tree and the zones barely
//! change in SPLASH-2's default four steps): every step rebuilds the same tree.
//!
//! **Data** (after SPLASH-2 `defs.H`): `bodytab`, a body per [`BODY_BYTES`] (line 0: type,
//! mass, position, cost, level, parent — the position read by other threads' force walks, the
//! cost written by the owner's; line 1: velocity, acceleration, potential); `celltab`, cells of [`CELL_BYTES`] (line 0: mass, centre of mass, size; line 1: the
//! eight child pointers; line 2: quadrupole moments); `leaftab`, leaves of [`LEAF_BYTES`] (line
//! 0: header; lines 1–2: up to 10 body pointers, SPLASH-2's `MAX_BODIES_PER_LEAF`); `locks`,
//! SPLASH-2's `CellLock` array of 2048 lock words hashed by cell number. Cells and leaves come
//! from per-thread pools (SPLASH-2's `mycelltab`/`myleaftab`: each processor allocates the
//! nodes it creates from its own segment of the global arrays).
//!
//! **Tree** ([`tree::Tree`]): an octree, cells split above 10 bodies. The node a thread
//! creates is taken to be created by the thread that owns the node's first body in cost-zone
//! order (the insertion that first reaches it). SPLASH-2 builds the tree incrementally under
//! locks; we emit the final tree's accesses: the insertion of a body reads the child-pointer
//! line of every cell from the root to its leaf's parent, then locks the parent's lock, reads
//! and writes the leaf's pointer line and unlocks; the creation of a node writes its lines
//! under its parent's lock.
//!
//! **Partition**: cost zones — the bodies in depth-first (space-filling) order cut into
//! `threads` zones of equal cost, the cost of a body being its number of interactions in the
//! force walk (SPLASH-2 uses the previous step's; ours is the same every step).
//!
//! **Phases of a step** (SPLASH-2's `stepsystem`), each ending with a barrier: `maketree`
//! (above); `hackcofm`: each thread computes the centre of mass of the nodes it created,
//! children before parents (reads the children's line 0 — a leaf's bodies' line 0 —, writes
//! line 0 and the quadrupole line); `computeforces`: for each own body, a Barnes–Hut walk from
//! the root with opening angle `theta` (a node is opened when its side exceeds `theta` times
//! the distance to its centre of mass; leaves are tested too, as SPLASH-2's `walksub` applies
//! `subdivp` to every node, and a far leaf is one interaction with its centre of mass): every
//! node visited has line 0 read, an accepted cell its quadrupole line, an opened cell its
//! child pointers, an opened leaf its body pointers and each of its bodies' line 0 — the tree
//! reads by every thread of
//! cells and bodies created and owned by others; the body's cost (line 0) is zeroed before its
//! walk and written after it, with its acceleration and potential (line 1), as SPLASH-2's
//! `computeforces` and `hackgrav` do, so the walks of other threads that read its position
//! in the meantime lose the line (the false sharing of `Pos` and `Cost`);
//! `advance`: own bodies' lines 0 and 1 read and written. Initialisation: the master writes
//! every body (SPLASH-2's `testdata` runs in the master); barrier; `EndInit`.
//!
//! **Compute**: body–cell interaction with quadrupole 60 instructions, body–body 25, opening
//! test 10 per node visited, centre of mass 20 per child, advance 40 per body, insertion 10 per
//! level.
//!
//! **Size**: `steps` defaults to 1 (SPLASH-2 runs 4 and measures from the third; every step
//! here repeats the same tree, and one is already large): at 16K bodies, 64 threads and
//! `theta` = 1.0, 8.1 M line accesses (15.5 M operations) and 5 barriers, about 480 line
//! reads per body's force walk (900 before far leaves were taken whole).

use super::tree::{plummer, Tree};
use super::{compute, spec_error, Driver, Layout, LineInfo, Phased};
use crate::protocol::program::{Addr, LineCtx, LineOp, LineProgram, LineRegion};
use numaplace_model::registry::Info;
use numaplace_model::spec::{ParamDecl, ParamKind, Resolved};
use numaplace_model::ModelError;

const NAME: &str = "barnes";
pub const BODY_BYTES: u64 = 128;
pub const CELL_BYTES: u64 = 192;
pub const LEAF_BYTES: u64 = 192;
const MAX_PER_LEAF: usize = 10;
const LOCKS: u64 = 2048;
const CELL_CYCLES: u64 = 60;
const BODY_CYCLES: u64 = 25;
const OPEN_CYCLES: u64 = 10;
const COFM_CYCLES: u64 = 20;
const ADVANCE_CYCLES: u64 = 40;
const INSERT_CYCLES: u64 = 10;
/// Bodies per unit of the master's initialisation.
const INIT_CHUNK: usize = 32;
const STEP_PHASES: usize = 4;

const PARAMS: &[ParamDecl] = &[
    ParamDecl {
        name: "particles",
        kind: ParamKind::UInt { min: 2, max: 1 << 22 },
        default: "16384",
        doc: "bodies (seed 004 Table 1.3: 16K)",
    },
    ParamDecl {
        name: "steps",
        kind: ParamKind::UInt { min: 1, max: 64 },
        default: "1",
        doc: "time steps (SPLASH-2 runs 4; one is already 15 M line accesses at 16K bodies)",
    },
    ParamDecl {
        name: "theta",
        kind: ParamKind::Float { min: 0.1, max: 2.0 },
        default: "1.0",
        doc: "opening angle (SPLASH-2's default 1.0)",
    },
];

pub const INFO: LineInfo = Info {
    name: NAME,
    doc: "SPLASH-2 Barnes-Hut, octree built under locks, read by all (seed 004, 16K particles)",
    params: PARAMS,
    caps: (),
    build,
};

fn build(r: &Resolved, ctx: &LineCtx) -> Result<Box<dyn LineProgram>, ModelError> {
    Ok(Driver::boxed(Barnes::new(r.uint("particles") as usize, r.uint("steps") as usize, r.float("theta"), ctx)?))
}

/// What a force walk meets.
enum Visit {
    /// A node's line 0 read and its opening test.
    Node(u32),
    /// A cell accepted: its quadrupole line read, one interaction.
    Accept(u32),
    /// A cell opened: its child pointers read.
    Open(u32),
    /// A leaf opened: its body pointers read.
    Leaf(u32),
    /// A body of an opened leaf: its line 0 read, one interaction.
    Body(u32),
    /// A leaf far enough to be taken whole: one interaction with its centre of mass (its line
    /// 0, already read for the test; a leaf has no quadrupole).
    FarLeaf(u32),
}

pub(crate) struct Barnes {
    regions: Vec<LineRegion>,
    threads: usize,
    line: u64,
    steps: usize,
    theta: f64,
    pos: Vec<[f64; 3]>,
    tree: Tree,
    /// Zone boundaries in `tree.order`.
    zones: Vec<usize>,
    /// Each node's address.
    addr: Vec<Addr>,
    /// The nodes each thread creates, in depth-first order.
    created: Vec<Vec<u32>>,
    /// The leaf holding the body at each position of `tree.order`.
    leaf_at: Vec<u32>,
    bodytab: Addr,
    locks: Addr,
}

impl Barnes {
    fn new(n: usize, steps: usize, theta: f64, ctx: &LineCtx) -> Result<Barnes, ModelError> {
        if ctx.threads > n {
            return Err(spec_error(NAME, format!("particles={n}: fewer bodies than {} threads", ctx.threads)));
        }
        let pos = plummer(n, 3, ctx.seed);
        let tree = Tree::build(&pos, 3, MAX_PER_LEAF);
        let mut leaf_at = vec![0u32; n];
        for (id, node) in tree.nodes.iter().enumerate() {
            if node.is_leaf() {
                leaf_at[node.bodies.0 as usize..node.bodies.1 as usize].fill(id as u32);
            }
        }
        let mut b = Barnes {
            regions: Vec::new(),
            threads: ctx.threads,
            line: ctx.line_size,
            steps,
            theta,
            pos,
            tree,
            zones: Vec::new(),
            addr: Vec::new(),
            created: vec![Vec::new(); ctx.threads],
            leaf_at,
            bodytab: 0,
            locks: 0,
        };
        let mut cost = vec![0u64; n];
        for (i, c) in cost.iter_mut().enumerate() {
            b.walk(i as u32, |v| {
                if matches!(v, Visit::Accept(_) | Visit::Body(_) | Visit::FarLeaf(_)) {
                    *c += 1;
                }
            });
        }
        b.zones = b.tree.cost_zones(&cost, ctx.threads);
        // Creators and per-thread pools.
        let mut cells = vec![0u64; ctx.threads];
        let mut leaves = vec![0u64; ctx.threads];
        let mut local = Vec::with_capacity(b.tree.nodes.len());
        for (id, node) in b.tree.nodes.iter().enumerate() {
            let t = b.zone_of(node.bodies.0 as usize);
            b.created[t].push(id as u32);
            let pool = if node.is_leaf() { &mut leaves } else { &mut cells };
            local.push(pool[t]);
            pool[t] += 1;
        }
        let (max_c, max_l) = (cells.iter().copied().max().unwrap_or(0).max(1), leaves.iter().copied().max().unwrap_or(1));
        let mut l = Layout::new(ctx.page_size);
        b.bodytab = l.alloc("bodytab", n as u64 * BODY_BYTES, true);
        let celltab = l.alloc("celltab", ctx.threads as u64 * max_c * CELL_BYTES, true);
        let leaftab = l.alloc("leaftab", ctx.threads as u64 * max_l * LEAF_BYTES, true);
        b.locks = l.alloc("locks", LOCKS * 8, true);
        b.regions = l.regions;
        b.addr = b
            .tree
            .nodes
            .iter()
            .enumerate()
            .map(|(id, node)| {
                let t = b.zone_of(node.bodies.0 as usize) as u64;
                if node.is_leaf() {
                    leaftab + (t * max_l + local[id]) * LEAF_BYTES
                } else {
                    celltab + (t * max_c + local[id]) * CELL_BYTES
                }
            })
            .collect();
        Ok(b)
    }

    /// The thread whose zone holds position `i` of the depth-first order.
    fn zone_of(&self, i: usize) -> usize {
        self.zones.partition_point(|&z| z <= i) - 1
    }

    fn body(&self, b: u32) -> Addr {
        self.bodytab + b as u64 * BODY_BYTES
    }

    fn lock_of(&self, node: u32) -> Addr {
        self.locks + (node as u64 % LOCKS) * 8
    }

    /// The Barnes–Hut walk of body `b` from the root.
    fn walk(&self, b: u32, mut visit: impl FnMut(Visit)) {
        let p = self.pos[b as usize];
        let mut stack = vec![0u32];
        while let Some(n) = stack.pop() {
            let node = &self.tree.nodes[n as usize];
            visit(Visit::Node(n));
            // SPLASH-2's walksub applies the opening test (subdivp) to leaves as to cells.
            let d2: f64 = (0..3).map(|d| (p[d] - node.com[d]).powi(2)).sum();
            let far = node.side * node.side < self.theta * self.theta * d2;
            if node.is_leaf() && far {
                visit(Visit::FarLeaf(n));
            } else if node.is_leaf() {
                visit(Visit::Leaf(n));
                for &o in &self.tree.order[node.bodies.0 as usize..node.bodies.1 as usize] {
                    if o != b {
                        visit(Visit::Body(o));
                    }
                }
            } else if far {
                visit(Visit::Accept(n));
            } else {
                visit(Visit::Open(n));
                stack.extend(node.children.iter().rev());
            }
        }
    }

    /// Positions of `tree.order` in thread `t`'s zone.
    fn zone(&self, t: usize) -> (usize, usize) {
        (self.zones[t], self.zones[t + 1])
    }

    fn rw(out: &mut Vec<LineOp>, a: Addr) {
        out.push(LineOp::Read(a));
        out.push(LineOp::Write(a));
    }
}

impl Phased for Barnes {
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
            return if t == 0 { self.pos.len().div_ceil(INIT_CHUNK) } else { 0 };
        }
        match (p - 1) % STEP_PHASES {
            1 => self.created[t].len(),
            _ => hi - lo,
        }
    }

    fn unit(&self, p: usize, t: usize, u: usize, out: &mut Vec<LineOp>) {
        let line = self.line;
        if p == 0 {
            for b in u * INIT_CHUNK..((u + 1) * INIT_CHUNK).min(self.pos.len()) {
                compute(out, 20);
                out.push(LineOp::Write(self.body(b as u32)));
                out.push(LineOp::Write(self.body(b as u32) + line));
            }
            return;
        }
        let (lo, _) = self.zone(t);
        match (p - 1) % STEP_PHASES {
            0 => {
                // maketree: the insertion of the body at position lo + u, creating the nodes
                // whose first body it is.
                let i = lo + u;
                let leaf = self.leaf_at[i];
                let mut path = Vec::new();
                let mut n = self.tree.nodes[leaf as usize].parent;
                while n != u32::MAX {
                    path.push(n);
                    n = self.tree.nodes[n as usize].parent;
                }
                for &c in path.iter().rev() {
                    compute(out, INSERT_CYCLES);
                    out.push(LineOp::Read(self.addr[c as usize] + line));
                }
                // Nodes created by this insertion, top-down.
                let mut new = Vec::new();
                let mut n = leaf;
                while n != u32::MAX && self.tree.nodes[n as usize].bodies.0 as usize == i {
                    new.push(n);
                    n = self.tree.nodes[n as usize].parent;
                }
                for &c in new.iter().rev() {
                    let parent = self.tree.nodes[c as usize].parent;
                    let lock = self.lock_of(if parent == u32::MAX { c } else { parent });
                    out.push(LineOp::Lock(lock));
                    out.push(LineOp::Write(self.addr[c as usize]));
                    out.push(LineOp::Write(self.addr[c as usize] + line));
                    if parent != u32::MAX {
                        Self::rw(out, self.addr[parent as usize] + line);
                    }
                    out.push(LineOp::Unlock(lock));
                }
                let parent = self.tree.nodes[leaf as usize].parent;
                let lock = self.lock_of(if parent == u32::MAX { leaf } else { parent });
                out.push(LineOp::Lock(lock));
                let slot = (i as u64 - self.tree.nodes[leaf as usize].bodies.0 as u64) * 8;
                Self::rw(out, self.addr[leaf as usize] + line + slot / line * line);
                out.push(LineOp::Unlock(lock));
            }
            1 => {
                // hackcofm, children before parents: our created nodes in reverse order.
                let list = &self.created[t];
                let n = list[list.len() - 1 - u];
                let node = &self.tree.nodes[n as usize];
                if node.is_leaf() {
                    let a = self.addr[n as usize];
                    out.push(LineOp::Read(a + line));
                    if node.count() > 8 {
                        out.push(LineOp::Read(a + 2 * line));
                    }
                    for &o in &self.tree.order[node.bodies.0 as usize..node.bodies.1 as usize] {
                        out.push(LineOp::Read(self.body(o)));
                        compute(out, COFM_CYCLES);
                    }
                    out.push(LineOp::Write(a));
                } else {
                    for &c in &node.children {
                        out.push(LineOp::Read(self.addr[c as usize]));
                        compute(out, COFM_CYCLES);
                    }
                    out.push(LineOp::Write(self.addr[n as usize]));
                    out.push(LineOp::Write(self.addr[n as usize] + 2 * line));
                }
            }
            2 => {
                let b = self.tree.order[lo + u];
                out.push(LineOp::Write(self.body(b)));
                self.walk(b, |v| match v {
                    Visit::Node(n) => {
                        out.push(LineOp::Read(self.addr[n as usize]));
                        compute(out, OPEN_CYCLES);
                    }
                    Visit::Accept(n) => {
                        out.push(LineOp::Read(self.addr[n as usize] + 2 * line));
                        compute(out, CELL_CYCLES);
                    }
                    Visit::Open(n) => out.push(LineOp::Read(self.addr[n as usize] + line)),
                    Visit::Leaf(n) => {
                        out.push(LineOp::Read(self.addr[n as usize] + line));
                        if self.tree.nodes[n as usize].count() > 8 {
                            out.push(LineOp::Read(self.addr[n as usize] + 2 * line));
                        }
                    }
                    Visit::Body(o) => {
                        out.push(LineOp::Read(self.body(o)));
                        compute(out, BODY_CYCLES);
                    }
                    Visit::FarLeaf(n) => {
                        debug_assert!(self.tree.nodes[n as usize].is_leaf());
                        compute(out, BODY_CYCLES)
                    }
                });
                out.push(LineOp::Write(self.body(b)));
                out.push(LineOp::Write(self.body(b) + line));
            }
            _ => {
                let b = self.tree.order[lo + u];
                Self::rw(out, self.body(b));
                compute(out, ADVANCE_CYCLES);
                Self::rw(out, self.body(b) + line);
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
        for (n, threads) in [(50, 1), (200, 4), (300, 3), (64, 8)] {
            check::run(&format!("barnes:particles={n},steps=2"), threads);
        }
    }

    #[test]
    fn generation_is_lazy() {
        check::lazy(Barnes::new(4096, 1, 1.0, &check::ctx(2)).unwrap());
    }

    #[test]
    fn force_walks_read_cells_created_by_others_and_inserts_lock() {
        let threads = 4;
        let s = check::run("barnes:particles=400,steps=1", threads);
        let b = Barnes::new(400, 1, 1.0, &check::ctx(threads)).unwrap();
        let creator: std::collections::HashMap<Addr, usize> = b
            .created
            .iter()
            .enumerate()
            .flat_map(|(t, l)| l.iter().map(move |&n| (n, t)))
            .map(|(n, t)| (b.addr[n as usize], t))
            .collect();
        for (t, stream) in s.iter().enumerate() {
            let force = check::timed_phase(stream, 2);
            let foreign = force.iter().filter(|op| matches!(op, LineOp::Read(a) if creator.get(a).is_some_and(|&c| c != t))).count();
            assert!(foreign > 0, "thread {t} reads no other thread's nodes");
            // The root is read by every walk.
            assert!(force.contains(&LineOp::Read(b.addr[0])));
            // Each own body's cost (line 0) is written before and after its walk; no other
            // body's line 0 is written.
            let (lo, hi) = b.zone(t);
            let mut costs = std::collections::HashMap::new();
            for op in force {
                if let LineOp::Write(a) = *op {
                    if a >= b.bodytab && a < b.bodytab + 400 * BODY_BYTES && (a - b.bodytab) % BODY_BYTES == 0 {
                        *costs.entry(a).or_insert(0) += 1;
                    }
                }
            }
            let own: std::collections::HashMap<_, _> = b.tree.order[lo..hi].iter().map(|&o| (b.body(o), 2)).collect();
            assert_eq!(costs, own, "thread {t}");
            let tree = check::timed_phase(stream, 0);
            assert!(tree.iter().any(|op| matches!(op, LineOp::Lock(_))), "thread {t} inserts without locks");
        }
    }

    #[test]
    fn far_leaves_are_taken_whole() {
        // As SPLASH-2's walksub: a leaf passing the opening test is one interaction with its
        // centre of mass, its bodies unread; with a tiny opening angle nothing is far.
        let count = |theta: f64| {
            let b = Barnes::new(2000, 1, theta, &check::ctx(4)).unwrap();
            let (mut far, mut bodies) = (0u64, 0u64);
            for i in 0..2000 {
                b.walk(i, |v| match v {
                    Visit::FarLeaf(n) => {
                        assert!(b.tree.nodes[n as usize].is_leaf());
                        far += 1
                    }
                    Visit::Body(_) => bodies += 1,
                    _ => {}
                });
            }
            (far, bodies)
        };
        let (far, bodies) = count(1.0);
        assert!(far > 2000, "{far}");
        let (none, all) = count(1e-6);
        assert_eq!(none, 0);
        assert!(bodies < all / 2, "{bodies} of {all}");
        // Every body still meets the whole mass once: each walk's bodies, far leaves' and
        // accepted cells' counts add up to the other 1999.
        let b = Barnes::new(2000, 1, 1.0, &check::ctx(4)).unwrap();
        for i in [0u32, 777, 1999] {
            let mut mass = 0u32;
            b.walk(i, |v| match v {
                Visit::FarLeaf(n) | Visit::Accept(n) => mass += b.tree.nodes[n as usize].count(),
                Visit::Body(_) => mass += 1,
                _ => {}
            });
            assert!(mass == 1999 || mass == 2000, "body {i}: {mass}");
        }
    }

    #[test]
    fn zones_balance_the_walk_cost() {
        let b = Barnes::new(2000, 1, 1.0, &check::ctx(8)).unwrap();
        assert_eq!(b.zones.len(), 9);
        assert!(b.zones.windows(2).all(|w| w[0] < w[1]));
    }
}
