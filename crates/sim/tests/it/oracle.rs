//! The `oracle` placement (the offline bound: each page on the node whose threads fetch the
//! most lines of it in the timed run): no static placement is more local, it reaches the bound
//! its own profile gives, it is first-touch where first-touch is already optimal, it is
//! deterministic, and it replays traces (regular files; a pipe, which cannot be read twice, is
//! refused in one line).

use numaplace_model::placement::REGISTRY as PLACEMENTS;
use numaplace_sim::binding::bind;
use numaplace_sim::presets::load_machine;
use numaplace_sim::run::{build_workload, export_trace, run};
use numaplace_sim::{simulate, Init, RunConfig, SimResult};

fn cfg(machine: &str, workload: &str, placement: &str) -> RunConfig {
    RunConfig { machine: machine.into(), workload: workload.into(), placement: placement.into(), threads: 16, ..RunConfig::default() }
}

fn sim(c: &RunConfig) -> SimResult {
    simulate(c).unwrap_or_else(|e| panic!("{} {} {}: {e}", c.machine, c.workload, c.placement))
}

const WORKLOADS: &[&str] = &[
    "nas-cg:class=S",
    "nas-ft:class=S",
    "nas-is:class=S",
    "nas-mg:class=S",
    "stream:pages=512,iterations=2",
    "random:pages=512,accesses=4000",
];

#[test]
fn no_static_placement_is_more_local_than_the_oracle() {
    for machine in ["origin2000", "modern-2s"] {
        for &w in WORKLOADS {
            let oracle = sim(&cfg(machine, w, "oracle"));
            assert!(oracle.transactions > 0 && oracle.fallback_pages == 0, "{machine} {w}");
            for info in PLACEMENTS.iter().filter(|i| i.name != "oracle") {
                let other = sim(&cfg(machine, w, info.name));
                // The same transactions under every placement: the fractions share a
                // denominator, so the comparison is exact.
                assert_eq!(other.transactions, oracle.transactions, "{machine} {w} {}", info.name);
                assert!(
                    oracle.local_fraction >= other.local_fraction,
                    "{machine} {w}: oracle {} < {} {}",
                    oracle.local_fraction,
                    info.name,
                    other.local_fraction
                );
            }
        }
    }
}

/// The bound the profile itself gives: the sum over pages of the largest per-node count, over
/// all counted lines.
fn bound(c: &RunConfig) -> f64 {
    let m = load_machine(&c.machine).unwrap();
    let threads = bind(&m, c.threads, c.binding, c.oversubscribe).unwrap();
    let (wl, _) = build_workload(&m, c).unwrap();
    let counts = numaplace_sim::run::oracle::profile(&m, c, &threads, None, wl.regions(), &mut |_| true).unwrap();
    let nn = m.nodes();
    let best: u64 = counts.chunks_exact(nn).map(|row| row.iter().copied().max().unwrap()).sum();
    best as f64 / counts.iter().sum::<u64>() as f64
}

#[test]
fn the_oracle_reaches_the_bound_of_its_own_profile() {
    for (machine, w) in [("origin2000", "nas-cg:class=S"), ("origin2000", "nas-is:class=S"), ("modern-2s", "random:pages=512,accesses=4000")] {
        let c = cfg(machine, w, "oracle");
        let r = sim(&c);
        let b = bound(&c);
        assert!((r.local_fraction - b).abs() < 1e-12, "{machine} {w}: local {} against the bound {b}", r.local_fraction);
        // Irregular sharing leaves remote lines even at the bound.
        assert!(b < 1.0, "{machine} {w}: {b}");
    }
}

/// `r`'s JSON with the placement's name blanked, to compare runs under different placements.
fn json_but_placement(r: &SimResult) -> String {
    let mut r = r.clone();
    r.config.placement = String::new();
    r.to_json()
}

#[test]
fn where_first_touch_is_optimal_the_oracle_is_first_touch() {
    // Parallel-initialised stream: each page is fetched by the thread that first touched it,
    // and only by it. The same homes give the same run, line for line.
    for machine in ["origin2000", "modern-2s"] {
        let ft = sim(&cfg(machine, "stream", "first-touch"));
        let oracle = sim(&cfg(machine, "stream", "oracle"));
        assert_eq!(oracle.local_fraction, 1.0);
        assert_eq!(json_but_placement(&oracle), json_but_placement(&ft), "{machine}");
        assert_eq!(oracle.config.placement, "oracle");
    }
}

#[test]
fn pages_only_the_initialisation_touches_go_where_first_touch_puts_them() {
    // Sequential init: thread 0 (node 0) touches every page, so first-touch homes them all on
    // node 0; the oracle moves the timed run's pages to their users and leaves none behind.
    let seq = |p: &str| sim(&RunConfig { init: Init::Sequential, ..cfg("origin2000", "stream:pages=512,iterations=2", p) });
    let (ft, oracle) = (seq("first-touch"), seq("oracle"));
    assert_eq!(ft.per_node_pages[0], 3 * 512);
    assert_eq!(oracle.local_fraction, 1.0);
    assert_eq!(oracle.per_node_pages, sim(&cfg("origin2000", "stream:pages=512,iterations=2", "first-touch")).per_node_pages);
    // A workload with no timed iteration profiles nothing: every page is first-touch's.
    let none = |p: &str| sim(&RunConfig { init: Init::Sequential, ..cfg("origin2000", "stream:pages=512,iterations=0", p) });
    assert_eq!(json_but_placement(&none("oracle")), json_but_placement(&none("first-touch")));
}

#[test]
fn the_oracle_is_deterministic() {
    for w in ["nas-cg:class=S", "random:pages=512,accesses=4000"] {
        let c = cfg("origin2000", w, "oracle");
        assert_eq!(sim(&c).to_json(), sim(&c).to_json(), "{w}");
        // With a dynamic policy as well (the oracle is then the starting placement).
        let d = RunConfig { dynamic: Some("upmlib".into()), ..c.clone() };
        let (a, b) = (run(&d).unwrap(), run(&d).unwrap());
        assert_eq!(a.result.to_json(), b.result.to_json(), "{w} upmlib");
    }
}

/// A fresh path per call, removed with its directory when dropped.
fn temp(tag: &str) -> numaplace_outfile::TempPath {
    numaplace_outfile::TempPath::new("oracle-test", tag).unwrap()
}

#[test]
fn a_trace_replays_under_the_oracle_as_the_workload_it_records() {
    let m = load_machine("origin2000").unwrap();
    let generated = cfg("origin2000", "nas-mg:class=S", "oracle");
    let path = temp("mg.trace");
    export_trace(&m, &generated, &path, false).unwrap();
    let replay = RunConfig { workload: format!("trace:file={}", path.display()), threads_from_trace: true, ..generated.clone() };
    let (a, b) = (sim(&generated), sim(&replay));
    std::fs::remove_file(&path).unwrap();
    assert_eq!(b.config.placement, "oracle");
    assert_eq!((a.local_fraction, a.total_time_ns, &a.per_node_pages), (b.local_fraction, b.total_time_ns, &b.per_node_pages));
    assert!(a.local_fraction > sim(&cfg("origin2000", "nas-mg:class=S", "first-touch")).local_fraction);
}

#[test]
fn a_trace_from_a_pipe_is_refused_in_one_line() {
    let m = load_machine("origin2000").unwrap();
    let small = cfg("origin2000", "stream:pages=16,iterations=1", "oracle");
    let file = temp("small.trace");
    export_trace(&m, &small, &file, false).unwrap();
    let bytes = std::fs::read(&file).unwrap();
    std::fs::remove_file(&file).unwrap();
    let fifo = temp("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let writer = {
        let fifo = fifo.to_path_buf();
        std::thread::spawn(move || {
            use std::io::Write;
            // The reader may stop early (the refusal): a broken pipe is expected then.
            let _ = std::fs::OpenOptions::new().write(true).open(&fifo).and_then(|mut f| f.write_all(&bytes));
        })
    };
    let c = RunConfig { trace: Some(fifo.display().to_string()), ..small };
    let e = simulate(&c).unwrap_err().to_string();
    writer.join().unwrap();
    std::fs::remove_file(&fifo).unwrap();
    assert!(!e.contains('\n'), "{e}");
    assert!(e.starts_with("placement 'oracle' reads the trace twice") && e.contains("is not a regular file"), "{e}");
    // Through a regular file the same trace runs.
    export_trace(&m, &cfg("origin2000", "stream:pages=16,iterations=1", "oracle"), &file, false).unwrap();
    let r = simulate(&RunConfig { trace: Some(file.display().to_string()), ..cfg("origin2000", "", "oracle") });
    std::fs::remove_file(&file).unwrap();
    assert_eq!(r.unwrap().local_fraction, 1.0);
}

#[test]
fn the_profile_is_bounded_before_it_is_allocated() {
    // A machine that holds 3 × 10^9 pages: the run's own byte a page fits the simulator's
    // bound, the profile's 8 bytes a page and node do not, and are refused in one line.
    let big = numaplace_model::Machine::from_toml_str(
        "name = \"big\"\npage_size = 4096\nline_size = 64\nmlp = 1.0\nlatency_ns = [[100.0]]\n\
         [[nodes]]\ncpus = 16\nmemory_mib = 1073741824\nbandwidth_gbps = 10.0\n\
         [migration]\nfixed_ns = 0.0\ncopy_gbps = 1.0\ntlb_shootdown_ns_per_cpu = 0.0\n",
        "big",
    )
    .unwrap();
    let c = RunConfig { workload: "stream:pages=1000000000".into(), placement: "oracle".into(), ..RunConfig::default() };
    let e = numaplace_sim::simulate_on(&big, &c).unwrap_err().to_string();
    assert_eq!(
        e,
        "out of memory: the oracle's profile of 3000000000 pages × 1 nodes needs 24000000000 bytes of simulator state, more than the bound of 17179869184 bytes"
    );
}
