//! The NAS kernels: the memory behaviour each is meant to show (BT/SP's z_solve phase change,
//! LU's neighbour exchange, MG's halos, CG's gathers, FT's transpose, EP's lack of traffic),
//! the workload contract (bounds, determinism, laziness of the init modes), official class
//! parameters, and runs through the engine.

use numaplace_model::spec::Resolved;
use numaplace_model::Spec;
use numaplace_sim::binding::{bind, Binding};
use numaplace_sim::presets::preset;
use numaplace_sim::workload::{Epoch, Init, Op, Workload, WorkloadCtx};
use numaplace_sim::workloads::build;
use numaplace_sim::{simulate, RunConfig};
use std::collections::{BTreeSet, HashMap};

const KERNELS: [&str; 8] = ["nas-bt", "nas-sp", "nas-lu", "nas-mg", "nas-cg", "nas-ft", "nas-ep", "nas-is"];
const INITS: [Init; 3] = [Init::Parallel, Init::Sequential, Init::None];

/// The Origin2000's geometry (16 KiB pages, 128-byte lines).
fn ctx(threads: usize, init: Init) -> WorkloadCtx {
    WorkloadCtx { threads, page_size: 16384, line_size: 128, seed: 1, init }
}

fn make(spec: &str, ctx: &WorkloadCtx) -> (Box<dyn Workload>, Resolved) {
    build(&Spec::parse(spec).unwrap(), ctx).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

/// Calls `f` on every epoch until it returns `false` or the workload ends.
fn walk(w: &mut dyn Workload, mut f: impl FnMut(&Epoch) -> bool) {
    let mut e = Epoch::default();
    while w.next_epoch(&mut e) {
        if !f(&e) {
            break;
        }
    }
}

fn lines(e: &Epoch, t: usize) -> u64 {
    e.threads[t].txns.iter().map(|x| x.count as u64).sum()
}

fn pages(e: &Epoch, t: usize) -> BTreeSet<u32> {
    e.threads[t].txns.iter().map(|x| x.page).collect()
}

/// The thread that first touches each page in the initialisation epoch (lowest index wins).
fn first_touchers(init: &Epoch, pages: u64) -> Vec<Option<usize>> {
    assert_eq!(init.iteration, 0);
    let mut owner = vec![None; pages as usize];
    for (t, work) in init.threads.iter().enumerate() {
        for x in &work.txns {
            owner[x.page as usize].get_or_insert(t);
        }
    }
    owner
}

/// The first epoch (init) and the epochs of iteration 1.
fn init_and_first_iteration(spec: &str, threads: usize) -> (Box<dyn Workload>, Epoch, Vec<Epoch>) {
    let (mut w, _) = make(spec, &ctx(threads, Init::Parallel));
    let mut init = None;
    let mut first = Vec::new();
    walk(w.as_mut(), |e| match e.iteration {
        0 => {
            init = Some(e.clone());
            true
        }
        1 => {
            first.push(e.clone());
            true
        }
        _ => false,
    });
    (w, init.expect("an init epoch"), first)
}

fn share_on_own_pages(e: &Epoch, t: usize, owner: &[Option<usize>]) -> f64 {
    let own: u64 = e.threads[t].txns.iter().filter(|x| owner[x.page as usize] == Some(t)).map(|x| x.count as u64).sum();
    own as f64 / lines(e, t).max(1) as f64
}

#[test]
fn bt_and_sp_z_solve_touch_other_pages_than_x_solve() {
    for kernel in ["nas-bt", "nas-sp"] {
        for class in ["W", "A"] {
            let spec = format!("{kernel}:class={class}");
            let (w, init, it) = init_and_first_iteration(&spec, 16);
            let owner = first_touchers(&init, w.pages());
            let x = it.iter().find(|e| e.phase == "x_solve").expect("x_solve");
            let z = it.iter().find(|e| e.phase == "z_solve").expect("z_solve");
            assert!(it.iter().any(|e| e.phase == "y_solve"), "{spec}: y_solve");
            let mut differ = 0;
            for t in 0..16 {
                let (px, pz) = (pages(x, t), pages(z, t));
                assert!(!px.is_empty() && !pz.is_empty(), "{spec}: thread {t} idle");
                let jaccard = px.intersection(&pz).count() as f64 / px.union(&pz).count() as f64;
                if jaccard < 0.5 {
                    differ += 1;
                }
                // At class A, x_solve stays in the thread's own slab (the interior planes it
                // solves are offset from the planes it initialised by at most one), z_solve
                // mostly leaves it.
                if class == "A" {
                    assert!(share_on_own_pages(x, t, &owner) > 0.6, "{spec}: x_solve of thread {t} leaves its slab");
                    assert!(share_on_own_pages(z, t, &owner) < 0.35, "{spec}: z_solve of thread {t} stays in its slab");
                }
            }
            assert!(differ >= 14, "{spec}: only {differ} threads change pages between x_solve and z_solve");
        }
    }
}

#[test]
fn lu_pipeline_reads_what_the_neighbour_just_wrote() {
    let (_, _, it) = init_and_first_iteration("nas-lu:class=W", 16);
    for (phase, from) in [("blts", -1i64), ("buts", 1)] {
        let stages: Vec<&Epoch> = it.iter().filter(|e| e.phase == phase).collect();
        assert_eq!(stages.len(), 31 + 16 - 1, "{phase}: one epoch per pipeline stage");
        let mut fed = BTreeSet::new();
        for pair in stages.windows(2) {
            let written = |t: usize| -> BTreeSet<u32> {
                pair[0].threads[t].txns.iter().filter(|x| x.op == Op::Write).map(|x| x.page).collect()
            };
            for t in 0..16i64 {
                let n = t + from;
                if !(0..16).contains(&n) {
                    continue;
                }
                let reads: BTreeSet<u32> =
                    pair[1].threads[t as usize].txns.iter().filter(|x| x.op == Op::Read).map(|x| x.page).collect();
                if !reads.is_disjoint(&written(n as usize)) {
                    fed.insert(t);
                }
            }
        }
        assert_eq!(fed.len(), 15, "{phase}: threads reading their neighbour's fresh plane: {fed:?}");
        // In every stage at most one plane per thread, and each thread is busy n-2 stages.
        for t in 0..16 {
            assert_eq!(stages.iter().filter(|e| !e.threads[t].txns.is_empty()).count(), 31, "{phase}: thread {t}");
        }
    }
}

#[test]
fn mg_v_cycle_visits_every_level_with_halos_from_neighbours_only() {
    let (w, init, it) = init_and_first_iteration("nas-mg:class=A", 16);
    let count = |p: &str| it.iter().filter(|e| e.phase == p).count();
    assert_eq!((count("rprj3"), count("interp"), count("resid"), count("psinv"), count("zero3")), (7, 7, 8, 8, 7));
    let owner = first_touchers(&init, w.pages());
    let resid = it.last().unwrap();
    assert_eq!(resid.phase, "resid");
    // `u` and `r` hold every level back to back, finest first: the page where the finest level
    // ends also starts the next level (first touched by thread 0). Look at the pages wholly
    // inside the finest level.
    let finest = 258u32 * 258 * 258 * 8 / 16384;
    let inside = |page: u32| {
        w.regions().iter().any(|r| page >= r.first_page && page < r.first_page + if r.name == "v" { r.pages } else { finest })
    };
    for t in 0..16 {
        let touchers: BTreeSet<usize> =
            resid.threads[t].txns.iter().filter(|x| inside(x.page)).filter_map(|x| owner[x.page as usize]).collect();
        let near: BTreeSet<usize> = (t.saturating_sub(1)..=(t + 1).min(15)).collect();
        assert!(touchers.is_subset(&near), "thread {t} reads pages of {touchers:?}");
        assert!(touchers.len() == near.len(), "thread {t} reads no halo from {near:?}: {touchers:?}");
    }
    // The coarse levels have fewer planes than threads: some threads sit out.
    let coarsest = it.iter().find(|e| e.phase == "psinv").unwrap();
    assert!(coarsest.threads.iter().filter(|w| w.txns.is_empty()).count() >= 12);
}

#[test]
fn cg_gathers_p_from_every_node_and_streams_the_matrix_from_one() {
    let (w, _, it) = init_and_first_iteration("nas-cg:class=A", 16);
    let machine = preset("origin2000").unwrap();
    let nodes: Vec<usize> = bind(&machine, 16, Binding::Spread, false).unwrap().iter().map(|p| p.node.index()).collect();
    assert_eq!(nodes[9], 1);
    let region = |name: &str| w.regions().iter().find(|r| r.name == name).unwrap().clone();
    let matvec = it.iter().find(|e| e.phase == "matvec").unwrap();
    let mut readers: HashMap<u32, BTreeSet<usize>> = HashMap::new();
    for (t, work) in matvec.threads.iter().enumerate() {
        for x in work.txns.iter().filter(|x| x.op == Op::Read) {
            readers.entry(x.page).or_default().insert(nodes[t]);
        }
    }
    let p = region("p");
    for page in p.first_page..p.first_page + p.pages {
        assert_eq!(readers.get(&page).map_or(0, BTreeSet::len), 8, "p page {page}");
    }
    for name in ["a", "colidx"] {
        let m = region(name);
        let single = (m.first_page..m.first_page + m.pages).filter(|pg| readers.get(pg).map_or(0, BTreeSet::len) == 1).count();
        assert!(single as f64 > 0.9 * m.pages as f64, "{name}: {single} of {} pages read by one node", m.pages);
    }
    assert_eq!(it.iter().filter(|e| e.phase == "matvec").count(), 25);
}

#[test]
fn ft_transpose_reads_pages_first_touched_by_other_threads() {
    for class in ["S", "A"] {
        let spec = format!("nas-ft:class={class}");
        let (w, init, it) = init_and_first_iteration(&spec, 16);
        let owner = first_touchers(&init, w.pages());
        let transpose = it.iter().find(|e| e.phase == "transpose").unwrap();
        let xy = it.iter().find(|e| e.phase == "fft-xy").unwrap();
        for t in 0..16 {
            let other = 1.0 - share_on_own_pages(transpose, t, &owner);
            assert!(other > 0.8, "{spec}: thread {t}: {other:.2} of transpose lines on others' pages");
            assert!(share_on_own_pages(xy, t, &owner) > 0.8, "{spec}: thread {t}: fft-xy leaves its slab");
        }
    }
}

/// Lines per microsecond of compute over iteration 1.
fn traffic_per_compute_us(spec: &str) -> f64 {
    let (_, _, it) = init_and_first_iteration(spec, 16);
    let (mut lines_total, mut think_ns) = (0u64, 0f64);
    for e in &it {
        for (t, work) in e.threads.iter().enumerate() {
            lines_total += lines(e, t);
            think_ns += work.think_ns * lines(e, t) as f64;
        }
    }
    lines_total as f64 / (think_ns / 1000.0)
}

#[test]
fn ep_is_compute_with_almost_no_memory_traffic() {
    let ep = traffic_per_compute_us("nas-ep:class=A");
    let cg = traffic_per_compute_us("nas-cg:class=A");
    assert!(ep < 0.01 * cg, "EP {ep} vs CG {cg} transactions per us of compute");
    // And its footprint is per-thread buffers only: 1 MiB each plus a few bytes.
    let (w, _) = make("nas-ep:class=B", &ctx(16, Init::Parallel));
    assert!(w.pages() * 16384 <= 17 << 20);
}

#[test]
fn every_kernel_runs_under_every_init_mode_and_sequential_first_touch_uses_one_node() {
    for kernel in KERNELS {
        for init in INITS {
            let workload = format!("{kernel}:class=S");
            let cfg = RunConfig {
                machine: "origin2000".into(),
                workload: workload.clone(),
                placement: "first-touch".into(),
                threads: 16,
                init,
                ..RunConfig::default()
            };
            let r = simulate(&cfg).unwrap_or_else(|e| panic!("{workload} {init:?}: {e}"));
            assert!(r.total_time_ns > 0.0 && r.transactions > 0, "{workload} {init:?}");
            assert_eq!(r.per_iteration_time_ns.len(), r.iterations as usize);
            assert_eq!(r.init_time_ns > 0.0, init != Init::None, "{workload} {init:?}");
            let used = r.per_node_pages.iter().filter(|&&p| p > 0).count();
            match init {
                Init::Sequential => assert_eq!(used, 1, "{workload}: {:?}", r.per_node_pages),
                Init::Parallel => assert!(used > 1, "{workload}: {:?}", r.per_node_pages),
                Init::None => {}
            }
        }
    }
}

#[test]
fn epochs_respect_the_workload_contract() {
    let geometries = [(16384, 128), (4096, 64)];
    for kernel in KERNELS {
        for threads in [1, 3, 16, 40] {
            for init in INITS {
                for (page_size, line_size) in geometries {
                    let c = WorkloadCtx { threads, page_size, line_size, seed: 3, init };
                    let (mut w, _) = make(&format!("{kernel}:class=S"), &c);
                    let lpp = (page_size / line_size) as u16;
                    let regions = w.regions().to_vec();
                    let mut next = 0u32;
                    for r in &regions {
                        assert_eq!(r.first_page, next, "{kernel}: regions contiguous");
                        assert!(r.pages > 0);
                        next += r.pages;
                    }
                    let pages = w.pages();
                    let iterations = w.iterations();
                    let (mut last, mut epochs, mut inits) = (0u32, 0usize, 0usize);
                    walk(w.as_mut(), |e| {
                        assert_eq!(e.threads.len(), threads, "{kernel}");
                        assert!(e.iteration >= last, "{kernel}: iterations go back");
                        last = e.iteration;
                        inits += (e.iteration == 0) as usize;
                        for work in &e.threads {
                            assert!(work.think_ns >= 0.0 && work.mlp > 0.0);
                            for x in &work.txns {
                                assert!((x.page as u64) < pages, "{kernel}: page {} of {pages}", x.page);
                                assert!(x.count >= 1 && x.count <= lpp, "{kernel}: count {}", x.count);
                            }
                        }
                        epochs += 1;
                        true
                    });
                    assert_eq!(inits, (init != Init::None) as usize, "{kernel} {init:?}");
                    assert_eq!(last, iterations, "{kernel}: ends after its last iteration");
                    assert!(epochs >= iterations as usize, "{kernel}");
                }
            }
        }
    }
}

#[test]
fn same_seed_same_epochs_and_the_seed_moves_cg_columns() {
    let c = |seed| WorkloadCtx { seed, ..ctx(16, Init::Parallel) };
    for kernel in KERNELS {
        let spec = format!("{kernel}:class=S");
        let (mut a, _) = make(&spec, &c(7));
        let (mut b, _) = make(&spec, &c(7));
        let (mut ea, mut eb) = (Epoch::default(), Epoch::default());
        loop {
            let (more_a, more_b) = (a.next_epoch(&mut ea), b.next_epoch(&mut eb));
            assert_eq!(more_a, more_b, "{kernel}");
            if !more_a {
                break;
            }
            assert_eq!((ea.iteration, ea.phase), (eb.iteration, eb.phase), "{kernel}");
            for (x, y) in ea.threads.iter().zip(&eb.threads) {
                assert_eq!(x.txns, y.txns, "{kernel}");
                assert_eq!((x.think_ns, x.mlp), (y.think_ns, y.mlp), "{kernel}");
            }
        }
    }
    let matvec = |seed| {
        let (mut w, _) = make("nas-cg:class=S", &c(seed));
        let mut found = None;
        walk(w.as_mut(), |e| {
            if e.phase == "matvec" {
                found = Some(e.clone());
            }
            found.is_none()
        });
        found.unwrap()
    };
    let (m7, m8) = (matvec(7), matvec(8));
    assert!(m7.threads.iter().zip(&m8.threads).any(|(x, y)| x.txns != y.txns), "the seed does not change CG's columns");
}

#[test]
fn official_classes_give_sizes_and_iterations() {
    let iterations: [(&str, [u64; 4]); 8] = [
        ("nas-bt", [60, 200, 200, 200]),
        ("nas-sp", [100, 400, 400, 400]),
        ("nas-lu", [50, 300, 250, 250]),
        ("nas-mg", [4, 4, 4, 20]),
        ("nas-cg", [15, 15, 15, 75]),
        ("nas-ft", [6, 6, 6, 20]),
        ("nas-ep", [1, 1, 1, 1]),
        ("nas-is", [10, 10, 10, 10]),
    ];
    for (kernel, counts) in iterations {
        for (class, count) in ["S", "W", "A", "B"].iter().zip(counts) {
            let (w, resolved) = make(&format!("{kernel}:class={class}"), &ctx(16, Init::Parallel));
            assert_eq!(w.iterations() as u64, count, "{kernel} class {class}");
            let text = resolved.to_string();
            assert!(text.contains(&format!("iterations={count},")), "{text}");
            let think: f64 = text.split("think_ns=").nth(1).unwrap().split(',').next().unwrap().parse().unwrap();
            assert!(think > 0.0, "{text}");
        }
    }
    let region = |spec: &str, name: &str| {
        let (w, _) = make(spec, &ctx(16, Init::Parallel));
        w.regions().iter().find(|r| r.name == name).unwrap().pages
    };
    // 65 × 65 × 64 points × 40 B; 14000 × 12² × 8 B; 257 × 256 × 128 × 16 B; 258³ × 8 B.
    assert_eq!(region("nas-bt:class=A", "u"), 661);
    assert_eq!(region("nas-cg:class=A", "a"), 985);
    assert_eq!(region("nas-ft:class=A", "u0"), 8224);
    assert_eq!(region("nas-mg:class=A", "v"), 8386);
    assert_eq!(region("nas-sp:class=W", "rhs"), 37 * 37 * 36 * 40 / 16384 + 1);
}

#[test]
fn resolved_spec_shows_the_values_chosen() {
    let (w, r) = make("nas-bt", &ctx(16, Init::Parallel));
    let text = r.to_string();
    assert!(text.starts_with("nas-bt:class=A,iterations=200,think_ns="), "{text}");
    assert!(!text.contains("auto"), "{text}");
    assert_eq!(w.iterations(), 200);
    // Given values stay as given.
    let (w, r) = make("nas-cg:class=B,iterations=3,think_ns=12.5", &ctx(16, Init::Parallel));
    assert_eq!(r.to_string(), "nas-cg:class=B,iterations=3,think_ns=12.5,first_touch=slabs");
    assert_eq!(w.iterations(), 3);
    // And the engine's result carries them.
    let cfg = RunConfig { workload: "nas-mg:class=S".into(), ..RunConfig::default() };
    let res = simulate(&cfg).unwrap();
    assert!(res.config.workload.starts_with("nas-mg:class=S,iterations=4,think_ns="), "{}", res.config.workload);
    assert!(!res.config.workload.contains("auto"));
    // Bad values are refused with the valid ones.
    let e = build(&Spec::parse("nas-ft:class=D").unwrap(), &ctx(16, Init::Parallel)).err().unwrap();
    assert!(e.to_string().contains("expected one of: S, W, A, B, C"), "{e}");
}

#[test]
fn think_ns_follows_the_official_flop_counts() {
    // BT is compute-bound, MG and CG memory-bound: per line, BT thinks > 5x longer than MG.
    let think = |spec: &str| -> f64 {
        let (_, r) = make(spec, &ctx(16, Init::Parallel));
        r.to_string().split("think_ns=").nth(1).unwrap().split(',').next().unwrap().parse().unwrap()
    };
    let (bt, sp, mg, cg) = (think("nas-bt"), think("nas-sp"), think("nas-mg"), think("nas-cg"));
    assert!(bt > 5.0 * mg && bt > 3.0 * sp && sp > mg && mg > cg, "bt {bt} sp {sp} mg {mg} cg {cg}");
    // Lines × think over one iteration give back the official flops at 7.5 ns per flop.
    let (_, _, it) = init_and_first_iteration("nas-bt:class=A", 16);
    let compute = |e: &Epoch| -> f64 { e.threads.iter().map(|w| w.think_ns * w.txns.iter().map(|x| x.count as f64).sum::<f64>()).sum() };
    let compute_ns: f64 = it.iter().map(compute).sum();
    let flops = 3478.8 * 64f64.powi(3) - 17655.7 * 64f64.powi(2) + 28023.7 * 64.0;
    assert!((compute_ns / (7.5 * flops) - 1.0).abs() < 1e-3, "{compute_ns} ns for {flops} flops");
    // Each phase computes its share of the flops counted in NPB's source (458, 3 × 1 110 and 5
    // per point), not its share of the lines.
    let share: HashMap<&str, f64> = it.iter().map(|e| (e.phase, compute(e) / compute_ns)).collect();
    for (phase, want) in [("compute_rhs", 458.0), ("x_solve", 1110.0), ("y_solve", 1110.0), ("z_solve", 1110.0), ("add", 5.0)] {
        let want = want / 3793.0;
        assert!((share[phase] / want - 1.0).abs() < 1e-3, "{phase}: share {} of the compute, want {want}", share[phase]);
    }
}

#[test]
fn bt_z_solve_takes_seed_000s_130_ms() {
    // Seed 000 §4: BT's z_solve takes 130 ms per call at class A on 16 processors of the
    // Origin2000, the time the compute rate is calibrated to (within 10 %).
    let cfg = RunConfig { workload: "nas-bt:class=A,iterations=2".into(), ..RunConfig::default() };
    let r = simulate(&cfg).unwrap();
    let z: Vec<f64> = r.epochs.iter().filter(|e| e.phase == "z_solve").map(|e| e.time_ns / 1e6).collect();
    assert_eq!(z.len(), 2);
    for ms in z {
        assert!((117.0..=143.0).contains(&ms), "z_solve {ms:.1} ms, seed 000 §4 gives 130 ms");
    }
}

/// Not a check: the wall time of a class A run of each kernel (16 threads, first-touch,
/// Origin2000). Run with `cargo test --release -p numaplace-sim --test kernels_nas -- --ignored
/// --nocapture`.
#[test]
#[ignore]
fn class_a_wall_times() {
    for kernel in KERNELS {
        let cfg = RunConfig { workload: format!("{kernel}:class=A"), ..RunConfig::default() };
        let start = std::time::Instant::now();
        let r = simulate(&cfg).unwrap();
        let wall = start.elapsed().as_secs_f64();
        println!(
            "{kernel:7} class A: wall {wall:6.2} s  simulated {:8.2} s  epochs {:6}  transactions {:12}  local {:.2}  {}",
            r.total_time_ns / 1e9,
            r.epochs.len(),
            r.transactions,
            r.local_fraction,
            r.config.workload
        );
    }
}


#[test]
fn bt_repeat_runs_each_sweep_n_times_in_its_epoch() {
    // Seed 000 §4's synthetic scaling: the same epochs (phases), each with its sweep four
    // times over, and the same think time per line (the flops are repeated too).
    let lines = |spec: &str| -> (Vec<&'static str>, u64, String) {
        let (mut w, r) = make(spec, &ctx(4, Init::Parallel));
        let mut e = Epoch::default();
        let (mut phases, mut n) = (Vec::new(), 0u64);
        while w.next_epoch(&mut e) {
            if e.iteration == 1 {
                phases.push(e.phase);
                n += e.threads.iter().flat_map(|t| &t.txns).map(|x| x.count as u64).sum::<u64>();
            }
        }
        (phases, n, r.to_string())
    };
    let (p1, n1, r1) = lines("nas-bt:class=S,iterations=1,repeat=1");
    let (p4, n4, r4) = lines("nas-bt:class=S,iterations=1,repeat=4");
    assert_eq!(p1, p4);
    assert_eq!(n4, 4 * n1);
    let think = |r: &str| r.split("think_ns=").nth(1).unwrap().split(',').next().unwrap().to_string();
    assert_eq!(think(&r1), think(&r4));
    let err = build(&Spec::parse("nas-bt:repeat=0").unwrap(), &ctx(4, Init::Parallel)).err().unwrap().to_string();
    assert!(err.contains("repeat=0: expected 1 to 1000"), "{err}");
}

/// The epochs of iterations 1..=`last` of `spec` (16 threads, parallel init), with the init.
fn first_iterations(spec: &str, last: u32) -> (Box<dyn Workload>, Epoch, Vec<Epoch>) {
    let (mut w, _) = make(spec, &ctx(16, Init::Parallel));
    let (mut init, mut out) = (None, Vec::new());
    walk(w.as_mut(), |e| {
        match e.iteration {
            0 => init = Some(e.clone()),
            i if i <= last => out.push(e.clone()),
            _ => return false,
        }
        true
    });
    (w, init.expect("an init epoch"), out)
}

#[test]
fn is_footprint_follows_the_npb_class_table() {
    // NUM_KEYS and MAX_KEY 4-byte integers, one row of NUM_BUCKETS counts per thread
    // (16 KiB pages).
    for (class, keys, max_key, buckets) in [("S", 1u64 << 16, 1u64 << 11, 1u64 << 9), ("W", 1 << 20, 1 << 16, 1 << 10), ("A", 1 << 23, 1 << 19, 1 << 10), ("B", 1 << 25, 1 << 21, 1 << 10)] {
        let (w, _) = make(&format!("nas-is:class={class}"), &ctx(16, Init::Parallel));
        let pages = |name: &str| w.regions().iter().find(|r| r.name == name).unwrap_or_else(|| panic!("{name}")).pages as u64;
        let want = |bytes: u64| bytes.div_ceil(16384);
        assert_eq!(pages("key_array"), want(4 * keys), "class {class}");
        assert_eq!(pages("key_buff2"), want(4 * keys), "class {class}");
        assert_eq!(pages("key_buff1"), want(4 * max_key), "class {class}");
        assert_eq!(pages("bucket_size"), want(4 * 16 * buckets), "class {class}");
        assert_eq!(w.regions().len(), 4);
    }
}

#[test]
fn is_ranking_pages_change_thread_every_iteration_and_key_pages_stay_private() {
    let (w, init, its) = first_iterations("nas-is:class=A", 3);
    let owner = first_touchers(&init, w.pages());
    let region = |name: &str| w.regions().iter().find(|r| r.name == name).unwrap().clone();
    let keys = region("key_array");
    let is_key = |p: u32| p >= keys.first_page && p < keys.first_page + keys.pages;
    let phase = |it: u32, name: &str| its.iter().find(|e| e.iteration == it && e.phase == name).unwrap_or_else(|| panic!("{name} {it}"));
    assert_eq!(its.len(), 9, "three epochs per iteration");
    // Key pages: every access to one is by the thread that first touched it.
    for e in &its {
        for t in 0..16 {
            for x in e.threads[t].txns.iter().filter(|x| is_key(x.page)) {
                assert_eq!(owner[x.page as usize], Some(t), "{} of iteration {}: thread {t} on key page {}", e.phase, e.iteration, x.page);
            }
        }
    }
    // Ranking: the pages a thread touches overlap little between consecutive iterations,
    // while its count phase touches the same pages every time.
    let jaccard = |a: &BTreeSet<u32>, b: &BTreeSet<u32>| a.intersection(b).count() as f64 / a.union(b).count().max(1) as f64;
    let (mut rank, mut count) = (0.0, 0.0);
    for it in 1..3 {
        for t in 0..16 {
            let (a, b) = (pages(phase(it, "rank"), t), pages(phase(it + 1, "rank"), t));
            assert!(!a.is_empty(), "thread {t} ranks nothing in iteration {it}");
            rank += jaccard(&a, &b) / 32.0;
            count += jaccard(&pages(phase(it, "count"), t), &pages(phase(it + 1, "count"), t)) / 32.0;
        }
    }
    eprintln!("nas-is class A: mean page overlap between iterations: rank {rank:.3}, count {count:.3}");
    assert!(rank < 0.3, "rank pages overlap {rank:.3} between iterations");
    assert_eq!(count, 1.0);
    // The scatter writes a slot of every bucket: most pages of key_buff2 have several writers.
    let bucket = phase(1, "bucket");
    let buff2 = region("key_buff2");
    let mut writers: HashMap<u32, BTreeSet<usize>> = HashMap::new();
    for t in 0..16 {
        for x in bucket.threads[t].txns.iter().filter(|x| x.op == Op::Write && x.page >= buff2.first_page) {
            writers.entry(x.page).or_default().insert(t);
        }
    }
    let shared = (buff2.first_page..buff2.first_page + buff2.pages).filter(|p| writers.get(p).map_or(0, BTreeSet::len) >= 2).count();
    assert!(shared as f64 > 0.5 * buff2.pages as f64, "{shared} of {} key_buff2 pages written by several threads", buff2.pages);
}

#[test]
fn is_keys_follow_the_seed() {
    let c = |seed| WorkloadCtx { seed, ..ctx(16, Init::Parallel) };
    let rank = |seed| {
        let (mut w, _) = make("nas-is:class=S", &c(seed));
        let mut found = None;
        walk(w.as_mut(), |e| {
            if e.phase == "bucket" {
                found = Some(e.clone());
            }
            found.is_none()
        });
        found.unwrap()
    };
    let (a, b, c2) = (rank(7), rank(7), rank(8));
    assert!(a.threads.iter().zip(&b.threads).all(|(x, y)| x.txns == y.txns));
    assert!(a.threads.iter().zip(&c2.threads).any(|(x, y)| x.txns != y.txns), "the seed does not change IS's keys");
}

/// The share of each region's pages first touched by each thread (parallel initialisation),
/// region by region; regions of fewer than 16 pages a thread are left out (too few pages to
/// show a partition).
fn npb_c_first_touch(spec: &str, threads: usize) -> HashMap<String, Vec<f64>> {
    let (w, init, _) = init_and_first_iteration(spec, threads);
    let total: u64 = w.regions().iter().map(|r| r.first_page as u64 + r.pages as u64).max().unwrap();
    let owner = first_touchers(&init, total);
    w.regions()
        .iter()
        .filter(|r| r.pages >= 16 * threads as u32)
        .map(|r| {
            let mut share = vec![0.0; threads];
            for p in r.first_page..r.first_page + r.pages {
                if let Some(t) = owner[p as usize] {
                    share[t] += 1.0 / r.pages as f64;
                }
            }
            (r.name.clone(), share)
        })
        .collect()
}

#[test]
fn npb_c_first_touch_follows_the_c_sources_array_by_array() {
    let serial = |s: &[f64]| s[0] > 0.999;
    let spread = |s: &[f64]| s.iter().all(|&x| x > 0.5 / s.len() as f64 && x < 2.0 / s.len() as f64);
    // LU/lu.c: setbv(), erhs(), ssor() write every array in omp for loops over i: spread.
    for (name, s) in npb_c_first_touch("nas-lu:class=S,first_touch=npb-c", 4) {
        assert!(spread(&s), "LU {name}: {s:?}");
    }
    // BT/bt.c: initialize(), exact_rhs(), compute_rhs() over i: spread.
    for (name, s) in npb_c_first_touch("nas-bt:class=W,first_touch=npb-c", 4) {
        assert!(spread(&s), "BT {name}: {s:?}");
    }
    // SP/sp.c: initialize() and exact_rhs() are serial; compute_rhs() over i.
    for (name, s) in npb_c_first_touch("nas-sp:class=W,first_touch=npb-c", 4) {
        let want_serial = name == "u" || name == "forcing";
        assert!(if want_serial { serial(&s) } else { spread(&s) }, "SP {name}: {s:?}");
    }
    // MG/mg.c: every row malloc'ed by the master thread.
    for (name, s) in npb_c_first_touch("nas-mg:class=S,first_touch=npb-c", 4) {
        assert!(serial(&s), "MG {name}: {s:?}");
    }
    // CG/cg.c: colidx in makea()/sparse()'s serial code but for its entries n+1..2n, the rest in
    // omp parallel for loops.
    let cg = npb_c_first_touch("nas-cg:class=W,first_touch=npb-c", 4);
    assert!(cg["colidx"][0] > 0.95, "CG colidx: {:?}", cg["colidx"]);
    assert!(spread(&cg["a"]), "CG a: {:?}", cg["a"]);
    // FT/ft.c: u1 serial (compute_initial_conditions), u0 by cffts3's omp for over j.
    let ft = npb_c_first_touch("nas-ft:class=S,first_touch=npb-c", 4);
    assert!(serial(&ft["u1"]), "FT u1: {:?}", ft["u1"]);
    // (rows of 1 040 B on 16 KiB pages: the row blocks do not fall on page boundaries)
    assert!(ft["u0"].iter().filter(|&&x| x > 0.0).count() == 4, "FT u0: {:?}", ft["u0"]);
    // The default keeps every array in the main loops' slabs.
    for (name, s) in npb_c_first_touch("nas-sp:class=W", 4) {
        assert!(spread(&s), "SP slabs {name}: {s:?}");
    }
}
