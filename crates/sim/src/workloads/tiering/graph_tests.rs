//! Tests of `graph` (kept beside it, in their own file for length).

use super::super::kron::{build_csr, edges};
use super::super::testing::{check_determinism, check_error, ctx, epochs, make};
use super::*;
use crate::workloads::REGISTRY;
use numaplace_model::spec::Spec;

fn graph(spec: &str, threads: usize) -> Graph {
    let (_, r) = REGISTRY.resolve(&Spec::parse(spec).unwrap()).unwrap();
    Graph::new(&r, &ctx(threads, 3)).unwrap()
}

/// Lines of region `name` that `txns` touch, summed.
fn lines_in(g: &Graph, name: &str, txns: &[Txn]) -> u64 {
    let r = g.regions.iter().find(|r| r.name == name).unwrap();
    let pages = r.first_page..r.first_page + r.pages;
    txns.iter().filter(|t| pages.contains(&t.page)).map(|t| t.count as u64).sum()
}

#[test]
fn graph_is_deterministic_per_seed() {
    check_determinism("graph:scale=8,iterations=2");
    check_determinism("graph:kernel=bc,scale=8,iterations=2");
}

#[test]
fn the_generated_graph_has_2_to_the_scale_vertices_and_degree_times_as_many_edges() {
    let mut rng = SplitMix64::new(derive(3, 0x6b72_6f6e));
    let el = edges(12, 16, &mut rng);
    assert_eq!(el.len(), 16 << 12, "edges before symmetrising and squishing");
    let g = graph("graph:scale=12", 1);
    assert_eq!(g.csr, build_csr(1 << 12, &el), "the workload builds the same CSR from the run's seed");
    assert_eq!(g.csr.vertices(), 1 << 12);
    // Symmetrised: at most two entries per edge; squished: duplicates and self-loops gone.
    let m = g.csr.neighs.len();
    assert!(m <= 2 * el.len() && m > el.len(), "{m}");
}

#[test]
fn pagerank_reads_every_neighbour_entry_once_per_iteration() {
    for threads in [1, 3] {
        let mut g = graph("graph:scale=10,iterations=2", threads);
        let lines = (g.csr.neighs.len() as u64 * 4).div_ceil(64);
        let mut epoch = Epoch::default();
        let mut timed = 0;
        while g.next_epoch(&mut epoch) {
            if epoch.iteration == 0 {
                continue;
            }
            timed += 1;
            let per: Vec<u64> = epoch.threads.iter().map(|t| lines_in(&g, "neighs", &t.txns)).collect();
            let total: u64 = per.iter().sum();
            // A line two threads' blocks share is read by both.
            assert!(total >= lines && total < lines + threads as u64, "{threads} threads: {total} vs {lines}");
            // And contrib once per entry, unless the same line as the entry before.
            let contrib: u64 = epoch.threads.iter().map(|t| lines_in(&g, "contrib", &t.txns)).sum();
            assert!(contrib > g.csr.neighs.len() as u64 / 2 && contrib <= g.csr.neighs.len() as u64 + 2 * 1024);
        }
        assert_eq!(timed, 2);
    }
}

#[test]
fn bc_walks_each_sources_bfs_levels_forward_then_back() {
    let mut g = graph("graph:kernel=bc,scale=9,iterations=2", 1);
    let mut epoch = Epoch::default();
    assert!(g.next_epoch(&mut epoch) && epoch.phase == "init");
    for source in 1..=2 {
        assert!(g.next_epoch(&mut epoch));
        assert_eq!((epoch.iteration, epoch.phase), (source, "bc-reset"));
        let levels = g.bfs.level_count();
        assert!(levels >= 2);
        // BFS depths differ by at most one along every edge between reached vertices.
        for u in 0..g.csr.vertices() as u32 {
            let (lo, hi) = g.csr.range(u);
            for &v in &g.csr.neighs[lo as usize..hi as usize] {
                let (du, dv) = (g.bfs.depth[u as usize], g.bfs.depth[v as usize]);
                assert!(du < 0 && dv < 0 || (du - dv).abs() <= 1);
            }
        }
        for d in 0..levels {
            assert!(g.next_epoch(&mut epoch));
            assert_eq!((epoch.iteration, epoch.phase), (source, "bc-forward"));
            // The level's frontier read from the queue, line by line.
            let (s, e) = (g.bfs.levels[d] as u64, g.bfs.levels[d + 1] as u64);
            let want = (e * 4 - 1) / 64 - s * 4 / 64 + 1;
            let reads: u64 = epoch.threads[0].txns.iter().filter(|t| t.op == Op::Read).map(|t| lines_in(&g, "queue", &[*t])).sum();
            assert_eq!(reads, want, "level {d}");
        }
        for d in (0..levels).rev() {
            assert!(g.next_epoch(&mut epoch));
            assert_eq!((epoch.iteration, epoch.phase), (source, "bc-backward"), "level {d}");
        }
    }
    assert!(!g.next_epoch(&mut epoch));
}

#[test]
fn init_first_touches_each_threads_vertex_block_or_nothing() {
    let mut c = ctx(2, 1);
    let all = epochs(make("graph:scale=8,iterations=1", &c).as_mut());
    assert_eq!(all[0].1, "init");
    assert!(all[0].2.iter().all(|t| !t.is_empty() && t.iter().all(|x| x.op == Op::Write)));
    c.init = Init::None;
    let all = epochs(make("graph:scale=8,iterations=1", &c).as_mut());
    assert_eq!(all.iter().map(|e| e.0).collect::<Vec<_>>(), vec![1]);
}

#[test]
fn bad_graph_parameters_are_refused_by_name() {
    check_error("graph:kernel=bfs", "graph", "kernel");
    check_error("graph:scale=24,degree=16", "graph", "scale");
    check_error("graph:scale=25", "graph", "scale");
    check_error("graph:degree=0", "graph", "degree");
}
