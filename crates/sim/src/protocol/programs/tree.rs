//! The spatial trees of the N-body programs (`barnes`: an octree, `fmm`: a quadtree; both
//! import this module, so it names them without a link), built on the host from the bodies'
//! positions, and the partitioning SPLASH-2 calls *cost zones*.
//!
//! A node with more than `max_per_leaf` bodies is a cell divided into `2^dims` equal
//! sub-cubes (empty ones omitted); the others are leaves. Nodes are numbered in depth-first
//! order (children in octant order), and the bodies are permuted so that every node's bodies
//! are one contiguous range of [`Tree::order`]: depth-first order is the space-filling order in
//! which SPLASH-2 cuts cost zones.

use numaplace_model::rng::{derive, SplitMix64};

/// One node.
#[derive(Clone, Debug)]
pub struct Node {
    pub parent: u32,
    pub children: Vec<u32>,
    pub depth: u32,
    pub center: [f64; 3],
    /// Side length of the node's cube.
    pub side: f64,
    /// Its bodies, as a range of [`Tree::order`].
    pub bodies: (u32, u32),
    /// Centre of mass (unit masses).
    pub com: [f64; 3],
}

impl Node {
    pub fn is_leaf(&self) -> bool {
        self.children.is_empty()
    }

    pub fn count(&self) -> u32 {
        self.bodies.1 - self.bodies.0
    }
}

pub struct Tree {
    pub dims: usize,
    pub nodes: Vec<Node>,
    /// Body indices in depth-first order.
    pub order: Vec<u32>,
}

/// Deepest level: bodies closer than `side / 2^MAX_DEPTH` share a leaf.
const MAX_DEPTH: u32 = 40;

impl Tree {
    pub fn build(pos: &[[f64; 3]], dims: usize, max_per_leaf: usize) -> Tree {
        let mut extent: f64 = 0.0;
        for p in pos {
            for c in p.iter().take(dims) {
                extent = extent.max(c.abs());
            }
        }
        let side = 2.0 * extent * 1.0001 + 1e-9;
        let mut t = Tree { dims, nodes: Vec::new(), order: (0..pos.len() as u32).collect() };
        t.split(pos, u32::MAX, 0, [0.0; 3], side, 0, pos.len(), max_per_leaf);
        t
    }

    #[allow(clippy::too_many_arguments)]
    fn split(
        &mut self,
        pos: &[[f64; 3]],
        parent: u32,
        depth: u32,
        center: [f64; 3],
        side: f64,
        lo: usize,
        hi: usize,
        max: usize,
    ) -> u32 {
        let id = self.nodes.len() as u32;
        let mut com = [0.0; 3];
        for &b in &self.order[lo..hi] {
            for d in 0..3 {
                com[d] += pos[b as usize][d] / (hi - lo) as f64;
            }
        }
        self.nodes.push(Node {
            parent,
            children: Vec::new(),
            depth,
            center,
            side,
            bodies: (lo as u32, hi as u32),
            com,
        });
        if hi - lo <= max || depth >= MAX_DEPTH {
            return id;
        }
        let dims = self.dims;
        let octant = |p: &[f64; 3]| (0..dims).fold(0usize, |o, d| o | (((p[d] >= center[d]) as usize) << d));
        // Stable partition of the range by octant.
        let mut slice: Vec<u32> = self.order[lo..hi].to_vec();
        slice.sort_by_key(|&b| octant(&pos[b as usize]));
        self.order[lo..hi].copy_from_slice(&slice);
        let mut start = lo;
        let mut children = Vec::new();
        for o in 0..1usize << dims {
            let mut end = start;
            while end < hi && octant(&pos[self.order[end] as usize]) == o {
                end += 1;
            }
            if end > start {
                let mut c = center;
                for (d, cd) in c.iter_mut().enumerate().take(dims) {
                    *cd += if o >> d & 1 == 1 { side / 4.0 } else { -side / 4.0 };
                }
                children.push(self.split(pos, id, depth + 1, c, side / 2.0, start, end, max));
            }
            start = end;
        }
        self.nodes[id as usize].children = children;
        id
    }

    /// Whether the cubes of nodes `a` and `b` touch or overlap.
    pub fn adjacent(&self, a: u32, b: u32) -> bool {
        let (x, y) = (&self.nodes[a as usize], &self.nodes[b as usize]);
        let eps = 1e-9 * x.side.max(y.side);
        (0..self.dims).all(|d| (x.center[d] - y.center[d]).abs() <= (x.side + y.side) / 2.0 + eps)
    }

    /// Every leaf adjacent to node `n` (not `n` itself), in depth-first order.
    pub fn adjacent_leaves(&self, n: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let mut stack = vec![0u32];
        while let Some(m) = stack.pop() {
            if m == n || !self.adjacent(m, n) {
                continue;
            }
            let node = &self.nodes[m as usize];
            if node.is_leaf() {
                out.push(m);
            } else {
                stack.extend(node.children.iter().rev());
            }
        }
        out.sort_unstable();
        out
    }

    /// Nodes at `depth` adjacent to node `n` (its colleagues; not `n` itself).
    pub fn colleagues(&self, n: u32) -> Vec<u32> {
        let depth = self.nodes[n as usize].depth;
        let mut out = Vec::new();
        let mut stack = vec![0u32];
        while let Some(m) = stack.pop() {
            let node = &self.nodes[m as usize];
            if !self.adjacent(m, n) {
                continue;
            }
            if node.depth == depth {
                if m != n {
                    out.push(m);
                }
            } else {
                stack.extend(node.children.iter().rev());
            }
        }
        out.sort_unstable();
        out
    }

    /// Cuts the bodies, in depth-first order, into `parts` contiguous zones of about equal
    /// total `cost`: returns the zone boundaries in [`Tree::order`] (`parts + 1` entries).
    pub fn cost_zones(&self, cost: &[u64], parts: usize) -> Vec<usize> {
        let total: u64 = self.order.iter().map(|&b| cost[b as usize]).sum();
        let mut bounds = vec![0usize];
        let mut acc = 0u64;
        let mut k = 1;
        for (i, &b) in self.order.iter().enumerate() {
            acc += cost[b as usize];
            while k < parts && acc as u128 * parts as u128 >= total as u128 * k as u128 && i + 1 > *bounds.last().unwrap() {
                bounds.push(i + 1);
                k += 1;
            }
        }
        while bounds.len() < parts + 1 {
            bounds.push(self.order.len());
        }
        *bounds.last_mut().unwrap() = self.order.len();
        bounds
    }
}

/// `n` points of a Plummer model (Aarseth, Hénon and Wielen 1974, as SPLASH-2's `testdata`
/// generates them: radius from the cumulative mass, direction uniform, radii above 9 virial
/// units redrawn, scaled by 3π/16), in `dims` dimensions (2: projected onto the plane),
/// determined by `seed`.
pub fn plummer(n: usize, dims: usize, seed: u64) -> Vec<[f64; 3]> {
    let mut rng = SplitMix64::new(derive(seed, 0x504C_554D));
    let scale = 3.0 * std::f64::consts::PI / 16.0;
    (0..n)
        .map(|_| {
            let r = loop {
                let x = rng.unit().max(1e-12);
                let r = 1.0 / (x.powf(-2.0 / 3.0) - 1.0).max(1e-300).sqrt();
                if r <= 9.0 {
                    break r;
                }
            };
            let z = 2.0 * rng.unit() - 1.0;
            let phi = 2.0 * std::f64::consts::PI * rng.unit();
            let s = (1.0 - z * z).sqrt();
            let mut p = [r * s * phi.cos() * scale, r * s * phi.sin() * scale, r * z * scale];
            if dims == 2 {
                p[2] = 0.0;
            }
            p
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_body_in_one_leaf_and_ranges_nest() {
        let pos = plummer(2000, 3, 1);
        let t = Tree::build(&pos, 3, 10);
        let mut seen = vec![0; pos.len()];
        for n in &t.nodes {
            if n.is_leaf() {
                assert!(n.count() <= 10 && n.count() > 0);
                for &b in &t.order[n.bodies.0 as usize..n.bodies.1 as usize] {
                    seen[b as usize] += 1;
                }
            } else {
                let sum: u32 = n.children.iter().map(|&c| t.nodes[c as usize].count()).sum();
                assert_eq!(sum, n.count());
            }
        }
        assert!(seen.iter().all(|&s| s == 1));
    }

    #[test]
    fn cost_zones_cover_everything_in_order() {
        let pos = plummer(1000, 2, 3);
        let t = Tree::build(&pos, 2, 40);
        let z = t.cost_zones(&vec![1; 1000], 7);
        assert_eq!(z.len(), 8);
        assert_eq!((z[0], z[7]), (0, 1000));
        assert!(z.windows(2).all(|w| w[0] <= w[1] && w[1] - w[0] <= 144));
    }

    #[test]
    fn plummer_is_deterministic_and_seeded() {
        assert_eq!(plummer(10, 3, 5), plummer(10, 3, 5));
        assert_ne!(plummer(10, 3, 5), plummer(10, 3, 6));
    }
}
