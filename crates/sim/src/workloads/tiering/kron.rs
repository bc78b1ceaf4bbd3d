//! Kronecker (R-MAT) graphs as GAPBS generates and builds them, in CSR form.
//!
//! Source: GAPBS (sbeamer/gapbs) `src/generator.h` `MakeRMatEL`: `degree · 2^scale` edges,
//! each chosen by `scale` quadrant draws with the Graph500 parameters A = 0.57, B = 0.19,
//! C = 0.19 (a draw `r < A+B` keeps the source bit 0 and sets the destination bit when
//! `r > A`; otherwise the source bit is 1 and the destination bit is set when `r > A+B+C`),
//! then vertex IDs permuted at random (`PermuteIDs`). `src/command_line.h` symmetrises every
//! generated graph (`if (scale_ != -1) symmetrize_ = true`), so each edge is stored in both
//! endpoints' lists (`builder.h` `MakeCSR`), and `SquishCSR` sorts each list, drops duplicate
//! neighbours and self-loops. GAPBS draws from `std::mt19937` with `kRandSeed`; we draw from
//! SplitMix64 seeded from the run's seed, so the graph has the same distribution, not the
//! same edges.

use numaplace_model::rng::SplitMix64;

const A: f64 = 0.57;
const B: f64 = 0.19;
const C: f64 = 0.19;

/// A graph in compressed sparse row form: vertex `u`'s neighbours are
/// `neighs[offsets[u]..offsets[u + 1]]`, sorted, without duplicates or self-loops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Csr {
    pub offsets: Vec<u32>,
    pub neighs: Vec<u32>,
}

impl Csr {
    pub fn vertices(&self) -> usize {
        self.offsets.len() - 1
    }

    #[inline]
    pub fn range(&self, u: u32) -> (u32, u32) {
        (self.offsets[u as usize], self.offsets[u as usize + 1])
    }
}

/// The `degree · 2^scale` edges of an R-MAT graph, IDs permuted.
pub fn edges(scale: u32, degree: u64, rng: &mut SplitMix64) -> Vec<(u32, u32)> {
    let n = 1u64 << scale;
    let m = (degree << scale) as usize;
    let mut el = Vec::with_capacity(m);
    for _ in 0..m {
        let (mut src, mut dst) = (0u32, 0u32);
        for _ in 0..scale {
            let r = rng.unit();
            src <<= 1;
            dst <<= 1;
            if r < A + B {
                if r > A {
                    dst += 1;
                }
            } else {
                src += 1;
                if r > A + B + C {
                    dst += 1;
                }
            }
        }
        el.push((src, dst));
    }
    // Fisher–Yates permutation of the vertex IDs.
    let mut perm: Vec<u32> = (0..n as u32).collect();
    for i in (1..n as usize).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        perm.swap(i, j);
    }
    for e in &mut el {
        *e = (perm[e.0 as usize], perm[e.1 as usize]);
    }
    el
}

/// The symmetrised, squished CSR of `edges` on `n` vertices.
pub fn build_csr(n: usize, edges: &[(u32, u32)]) -> Csr {
    let mut degree = vec![0u32; n + 1];
    for &(u, v) in edges {
        degree[u as usize] += 1;
        degree[v as usize] += 1;
    }
    let mut offsets = vec![0u32; n + 1];
    for u in 0..n {
        offsets[u + 1] = offsets[u] + degree[u];
    }
    let mut fill = offsets.clone();
    let mut neighs = vec![0u32; offsets[n] as usize];
    for &(u, v) in edges {
        neighs[fill[u as usize] as usize] = v;
        fill[u as usize] += 1;
        neighs[fill[v as usize] as usize] = u;
        fill[v as usize] += 1;
    }
    // Squish: sort, drop duplicates and self-loops, compact in place.
    let mut out = 0usize;
    let mut squished = vec![0u32; n + 1];
    for u in 0..n {
        let (lo, hi) = (offsets[u] as usize, offsets[u + 1] as usize);
        neighs[lo..hi].sort_unstable();
        let start = out;
        let mut prev = u32::MAX;
        for i in lo..hi {
            let v = neighs[i];
            if v != prev && v as usize != u {
                neighs[out] = v;
                out += 1;
            }
            prev = v;
        }
        squished[u] = start as u32;
    }
    squished[n] = out as u32;
    neighs.truncate(out);
    neighs.shrink_to_fit();
    Csr { offsets: squished, neighs }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rmat_makes_degree_times_vertices_edges_skewed_to_few_vertices() {
        let mut rng = SplitMix64::new(1);
        let el = edges(10, 16, &mut rng);
        assert_eq!(el.len(), 16 << 10);
        assert!(el.iter().all(|&(u, v)| u < 1024 && v < 1024));
        // R-MAT's skew: the busiest vertex has far more than the mean degree of 32.
        let mut deg = vec![0u32; 1024];
        for &(u, v) in &el {
            deg[u as usize] += 1;
            deg[v as usize] += 1;
        }
        assert!(*deg.iter().max().unwrap() > 10 * 32, "{:?}", deg.iter().max());
    }

    #[test]
    fn the_csr_is_symmetric_sorted_and_squished() {
        let el = vec![(0, 1), (1, 0), (1, 2), (2, 2), (3, 1), (0, 1)];
        let g = build_csr(4, &el);
        assert_eq!(g.offsets, vec![0, 1, 4, 5, 6]);
        assert_eq!(g.neighs, vec![1, 0, 2, 3, 1, 1]);
        let mut rng = SplitMix64::new(2);
        let g = build_csr(256, &edges(8, 8, &mut rng));
        for u in 0..256u32 {
            let (lo, hi) = g.range(u);
            let list = &g.neighs[lo as usize..hi as usize];
            assert!(list.windows(2).all(|w| w[0] < w[1]) && !list.contains(&u));
            for &v in list {
                let (a, b) = g.range(v);
                assert!(g.neighs[a as usize..b as usize].binary_search(&u).is_ok(), "{u}-{v} not symmetric");
            }
        }
    }
}
