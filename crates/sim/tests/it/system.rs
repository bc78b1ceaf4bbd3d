//! System runs (seed 002): hand-made streams of 1 to 3 small jobs on the 16-CPU Origin2000.

use numaplace_model::jobs::{Job, JobStream};
use numaplace_sim::system::{simulate_system, SystemConfig, SystemResult};

/// A memory-bound job: three arrays of 256 pages swept by block, 8 timed sweeps.
const SWEEP: &str = "stream:pages=256,iterations=8";

fn job(id: u32, arrival_ms: f64, cpus: u32, workload: &str) -> Job {
    Job { id, arrival: (arrival_ms * 1e9) as u64, cpus, workload: workload.into(), origin: None }
}

fn run(jobs: Vec<Job>, scheduler: &str, dynamic: Option<&str>) -> SystemResult {
    let cfg = SystemConfig { scheduler: scheduler.into(), dynamic: dynamic.map(str::to_string), ..Default::default() };
    simulate_system("origin2000", &JobStream { jobs }, &cfg).unwrap()
}

#[test]
fn a_job_alone_gets_its_cpus() {
    for scheduler in ["equipartition", "pdpa", "irix:affinity=1", "linux"] {
        let r = run(vec![job(0, 2.0, 8, SWEEP)], scheduler, None);
        let j = &r.jobs[0];
        assert_eq!(j.start_ns, 2e6, "{scheduler}: admitted on arrival");
        assert_eq!(j.wait_ns, 0.0);
        if scheduler != "pdpa" {
            // PDPA may shrink it once it measures it; the others give it its 8 for good.
            assert!((j.mean_cpus - 8.0).abs() < 1e-9, "{scheduler}: {}", j.mean_cpus);
            assert_eq!((j.process_migrations, j.bursts), (0, 8), "{scheduler}");
            assert_eq!(r.timeline.len(), 2, "{scheduler}: start and end");
        }
        assert_eq!((r.timeline[0].job, r.timeline[0].cpus, r.timeline[0].time_ns), (0, 8, 2e6), "{scheduler}");
        assert_eq!(r.timeline.last().unwrap().cpus, 0);
        assert_eq!(r.timeline.last().unwrap().time_ns, j.end_ns);
        assert!(j.speedup > 1.0, "{scheduler}: speedup {}", j.speedup);
        assert!(j.local_fraction > 0.99, "{scheduler}: first touch by its own threads, {}", j.local_fraction);
        assert_eq!(r.system.jobs, 1);
        assert_eq!(r.system.makespan_ns, j.end_ns);
        assert!(j.cpu_time_ns >= j.execution_ns, "{scheduler}");
    }
    // More than the machine: all of it under space sharing.
    let r = run(vec![job(0, 0.0, 64, SWEEP)], "equipartition", None);
    assert!((r.jobs[0].mean_cpus - 16.0).abs() < 1e-9);
}

/// Job 0 first-touches its data with 16 threads; job 1 arrives during its run and
/// equipartition halves job 0, whose 8 remaining threads each take over a second chunk whose
/// pages are on another node. Job 1 runs longer, so job 0 ends shrunk (growing back would be
/// a second remap).
fn shrunk(dynamic: Option<&str>) -> SystemResult {
    let (short, long) = ("stream:pages=256,iterations=40", "stream:pages=256,iterations=400");
    run(vec![job(0, 0.0, 16, short), job(1, 20.0, 16, long)], "equipartition", dynamic)
}

#[test]
fn remapped_threads_leave_their_pages_behind_until_migration_follows() {
    let off = shrunk(None);
    let on = shrunk(Some("kernel"));
    // Without migration half of job 0's chunks run remote after the shrink.
    let (a, b) = (&off.jobs[0], &on.jobs[0]);
    assert!(a.mean_cpus < 15.0, "job 0 was shrunk: {}", a.mean_cpus);
    assert!(a.local_fraction < 0.8, "remote after the remap: {}", a.local_fraction);
    // The IRIX engine (50 % threshold) brings the pages to their new threads.
    assert!(b.pages_migrated > 0);
    assert!(b.local_fraction > a.local_fraction + 0.1, "migration on {} vs off {}", b.local_fraction, a.local_fraction);
    assert_eq!(a.pages_migrated, 0);
    assert_eq!((a.process_migrations, b.process_migrations), (0, 0), "space sharing keeps the kept threads' CPUs");
}

#[test]
fn irix_migrates_processes_far_more_than_equipartition() {
    // Short epochs (64-page arrays) against a 1 ms quantum: moves take effect at epoch
    // boundaries, so epochs must be shorter than the quantum's multiple for moves to show.
    let w = "stream:pages=64,iterations=40";
    let jobs = || vec![job(0, 0.0, 8, w), job(1, 1.0, 8, w), job(2, 2.0, 2, w)];
    let equip = run(jobs(), "equipartition", None);
    let irix = run(jobs(), "irix:quantum_ms=1", None);
    let (e, i) = (&equip.system, &irix.system);
    assert!(i.process_migrations > 100, "irix: {}", i.process_migrations);
    assert!(i.process_migrations > 20 * e.process_migrations.max(1), "irix {} vs equipartition {}", i.process_migrations, e.process_migrations);
    assert!(i.mean_burst_ns * 10.0 < e.mean_burst_ns, "bursts: irix {} ns vs equipartition {} ns", i.mean_burst_ns, e.mean_burst_ns);
    // Moved threads find their data remote.
    assert!(i.local_fraction < e.local_fraction, "{} vs {}", i.local_fraction, e.local_fraction);
}

#[test]
fn pdpa_shrinks_a_job_below_its_target_efficiency_and_keeps_an_efficient_one() {
    // CG's irregular, remote accesses keep it far from 70 % efficiency on 16 CPUs; a sweep
    // over its own data is efficient and keeps them.
    let r = run(vec![job(0, 0.0, 16, "nas-cg:class=S")], "pdpa", None);
    let j = &r.jobs[0];
    assert!(j.mean_cpus < 12.0, "{}", j.mean_cpus);
    assert!(r.timeline.iter().any(|p| p.job == 0 && p.cpus > 0 && p.cpus < 16), "{:?}", r.timeline);
    let r = run(vec![job(0, 0.0, 16, "stream:pages=256,iterations=30")], "pdpa", None);
    assert!((r.jobs[0].mean_cpus - 16.0).abs() < 1e-9, "{}", r.jobs[0].mean_cpus);
}

#[test]
fn the_same_inputs_give_the_same_bytes() {
    let jobs = || vec![job(0, 0.0, 8, SWEEP), job(1, 1.0, 8, "nas-cg:class=S"), job(2, 1.5, 2, SWEEP)];
    for scheduler in ["irix:quantum_ms=2", "equipartition", "pdpa", "linux:numa_period_ms=5"] {
        let a = run(jobs(), scheduler, Some("kernel")).to_json();
        let b = run(jobs(), scheduler, Some("kernel")).to_json();
        assert_eq!(a, b, "{scheduler}");
    }
    let seeded = |seed| {
        let cfg = SystemConfig { scheduler: "irix:quantum_ms=1".into(), seed, ..Default::default() };
        simulate_system("origin2000", &JobStream { jobs: jobs() }, &cfg).unwrap().to_json()
    };
    assert_ne!(seeded(1), seeded(2), "the seed drives irix's choices");
}

#[test]
fn the_multiprogramming_level_queues_jobs() {
    let jobs: Vec<Job> = (0..5).map(|i| job(i, 0.0, 4, SWEEP)).collect();
    let r = run(jobs, "equipartition:mpl=2", None);
    assert_eq!(r.system.max_running, 2);
    assert!(r.jobs[4].wait_ns > 0.0);
    let mut ends: Vec<f64> = r.jobs.iter().map(|j| j.end_ns).collect();
    ends.sort_by(f64::total_cmp);
    assert!(r.jobs[2].start_ns >= ends[0], "job 2 starts when a job ends");
}

#[test]
fn bad_input_is_a_one_line_error_naming_the_thing() {
    let stream = JobStream { jobs: vec![job(0, 0.0, 2, SWEEP), job(1, 0.0, 2, "nosuch")] };
    let err = |cfg: SystemConfig| simulate_system("origin2000", &stream, &cfg).unwrap_err().to_string();
    let e = err(SystemConfig { scheduler: "fifo".into(), ..Default::default() });
    assert_eq!(e, "unknown scheduler 'fifo' (known: equipartition, irix, linux, pdpa)");
    let e = err(SystemConfig::default());
    assert!(e.starts_with("job 1: unknown workload 'nosuch'"), "{e}");
    let e = err(SystemConfig { scheduler: "pdpa:target=2".into(), ..Default::default() });
    assert!(e.contains("target"), "{e}");
    let e = err(SystemConfig { placement: "oracle".into(), ..Default::default() });
    assert!(e.contains("oracle"), "{e}");
    let unsorted = JobStream { jobs: vec![job(0, 5.0, 2, SWEEP), job(1, 0.0, 2, SWEEP)] };
    let e = simulate_system("origin2000", &unsorted, &SystemConfig::default()).unwrap_err().to_string();
    assert_eq!(e, "job stream: job 1 arrives before job 0 but comes after it");
}

#[test]
fn every_scheduler_parameter_at_its_bounds_runs_or_refuses_cleanly() {
    use numaplace_model::sched::REGISTRY;
    use numaplace_model::ParamKind;
    let tiny = "stream:pages=32,iterations=3";
    let jobs = || vec![job(0, 0.0, 8, tiny), job(1, 0.1, 8, tiny), job(2, 0.2, 2, tiny)];
    for info in REGISTRY.iter() {
        for p in info.params {
            let values: Vec<String> = match p.kind {
                ParamKind::UInt { min, max } => vec![min.to_string(), max.to_string(), max.saturating_add(1).to_string()],
                ParamKind::Float { min, max } => vec![min.to_string(), max.to_string(), (max * 2.0 + 1.0).to_string(), "nan".into()],
                _ => vec![],
            };
            for v in values {
                let spec = format!("{}:{}={v}", info.name, p.name);
                let cfg = SystemConfig { scheduler: spec.clone(), dynamic: Some("kernel".into()), ..Default::default() };
                match simulate_system("origin2000", &JobStream { jobs: jobs() }, &cfg) {
                    Ok(r) => assert_eq!(r.jobs.len(), 3, "{spec}"),
                    Err(e) => {
                        let e = e.to_string();
                        assert!(!e.contains('\n') && e.contains(p.name), "{spec}: {e}");
                    }
                }
            }
        }
    }
}

#[test]
fn random_streams_keep_the_invariants() {
    // Small random streams under every scheduler, migration on and off: every job runs to its
    // end once, within its request, and the records add up.
    use numaplace_model::rng::SplitMix64;
    let mut rng = SplitMix64::new(11);
    let workloads = ["stream:pages=32,iterations=4", "nas-cg:class=S,iterations=2", "random:pages=64,iterations=3"];
    for round in 0..12 {
        let n = 1 + rng.below(5) as u32;
        let mut t = 0.0;
        let jobs: Vec<Job> = (0..n)
            .map(|id| {
                t += rng.unit() * 3.0;
                job(id, t, 1 + rng.below(20) as u32, workloads[rng.below(3) as usize])
            })
            .collect();
        let scheduler = ["irix:quantum_ms=1", "equipartition:mpl=2", "pdpa:step=2", "linux:numa_period_ms=1"][round % 4];
        let dynamic = if round % 3 == 0 { None } else { Some("kernel") };
        let r = run(jobs.clone(), scheduler, dynamic);
        assert_eq!(r.jobs.len(), jobs.len());
        for (j, given) in r.jobs.iter().zip(&jobs) {
            let at = format!("round {round} {scheduler} job {}", j.job);
            assert_eq!(j.arrival_ns, given.arrival as f64 / 1000.0, "{at}");
            assert!(j.start_ns >= j.arrival_ns && j.end_ns > j.start_ns, "{at}");
            // Threads: at most the request, and the machine's 16 CPUs unless time-shared.
            let most = if scheduler.starts_with("linux") { given.cpus } else { given.cpus.min(16) };
            assert!(j.mean_cpus >= 1.0 - 1e-9 && j.mean_cpus <= most as f64 + 1e-9, "{at}: {}", j.mean_cpus);
            assert!(j.cpu_time_ns > 0.0 && j.one_cpu_ns > 0.0 && j.speedup > 0.0, "{at}");
            assert!(j.bursts > j.process_migrations, "{at}");
            assert!((0.0..=1.0).contains(&j.local_fraction), "{at}");
            if dynamic.is_none() {
                assert_eq!(j.pages_migrated, 0, "{at}");
            }
            // The timeline starts the job at its start and ends it at its end.
            let points: Vec<_> = r.timeline.iter().filter(|p| p.job == j.job).collect();
            assert_eq!(points.first().unwrap().time_ns, j.start_ns, "{at}");
            assert_eq!((points.last().unwrap().time_ns, points.last().unwrap().cpus), (j.end_ns, 0), "{at}");
        }
        assert!(r.timeline.windows(2).all(|w| w[0].time_ns <= w[1].time_ns));
        let cpu: f64 = r.jobs.iter().map(|j| j.cpu_time_ns).sum();
        assert!((r.system.cpu_time_ns - cpu).abs() <= 1e-6 * cpu);
        assert!(r.system.utilisation > 0.0 && r.system.utilisation <= 1.0 + 1e-9, "round {round} {scheduler}: {}", r.system.utilisation);
    }
}

/// A job's one-CPU time, the reference of its speedup and of PDPA's efficiency, is its
/// workload built for one thread and run alone: the page-level run of the same workload on one
/// thread. (It once ran the job's 32 chunks one after another, each with its own cache model,
/// and with the first chunk's compute per line: swim then had a one-CPU time 6.7 times too long
/// and a speedup of 214 on 32 CPUs.)
#[test]
fn a_jobs_one_cpu_time_is_its_workload_run_by_one_thread() {
    for workload in ["swim:n=128,steps=4", "hydro2d:n=96,m=64,steps=4"] {
        let cfg = SystemConfig { init: numaplace_sim::workload::Init::Sequential, ..Default::default() };
        let r = simulate_system("origin2000", &JobStream { jobs: vec![job(0, 0.0, 8, workload)] }, &cfg).unwrap();
        let one = numaplace_sim::run::simulate(&numaplace_sim::run::RunConfig {
            machine: "origin2000".into(),
            workload: workload.into(),
            threads: 1,
            init: numaplace_sim::workload::Init::Sequential,
            ..Default::default()
        })
        .unwrap();
        let alone = one.total_time_ns + one.init_time_ns;
        let j = &r.jobs[0];
        assert!((j.one_cpu_ns - alone).abs() <= 1e-6 * alone, "{workload}: one-CPU {} ns, alone on one thread {alone} ns", j.one_cpu_ns);
        assert!(j.speedup > 1.0 && j.speedup < 2.0 * 8.0, "{workload}: speedup {} on 8 CPUs", j.speedup);
    }
}

/// A job given fewer CPUs than it requested runs several chunks per CPU through one cache:
/// swim requesting 32 CPUs on the 16-CPU machine fetches about what a 16-CPU request does (the
/// cache holds each CPU's two chunks, not two caches' worth), from its very first allocation.
#[test]
fn chunks_on_one_cpu_share_its_cache_from_the_start() {
    let swim = "swim:steps=3";
    let lines = |request: u32| run(vec![job(0, 0.0, request, swim)], "equipartition", None).jobs[0].transactions as f64;
    let (r16, r32) = (lines(16), lines(32));
    assert!((r32 / r16 - 1.0).abs() < 0.1, "request 32 fetched {r32} lines on 16 CPUs, request 16 {r16}");
}

/// A thread the job dropped on a shrink and takes back on a later growth migrates if it
/// resumes on another CPU (seed 002 §2: a process preempted on one processor and resumed on
/// another), as NANOS threads stopped and restarted by the CPUManager do.
#[test]
fn a_dropped_thread_taken_back_elsewhere_is_a_process_migration() {
    let (long, short) = ("stream:pages=256,iterations=200", "stream:pages=256,iterations=20");
    let r = run(vec![job(0, 0.0, 16, long), job(1, 10.0, 16, short), job(2, 20.0, 16, long)], "equipartition", None);
    // Job 0: 16 CPUs, 8 when job 1 arrives, 6 when job 2 does (its threads 6 and 7 stop; job
    // 2 gets their CPUs), 8 again when job 1 ends: threads 6 and 7 resume on CPUs job 1 freed.
    let alloc: Vec<u32> = r.timeline.iter().filter(|a| a.job == 0).map(|a| a.cpus).collect();
    assert_eq!(alloc, vec![16, 8, 6, 8, 0]);
    assert_eq!(r.jobs[0].process_migrations, 2);
    // Jobs 1 and 2 only shrink or take threads they never ran: no migration.
    assert_eq!((r.jobs[1].process_migrations, r.jobs[2].process_migrations), (0, 0));
}

#[test]
fn time_steps_below_their_floors_are_refused_naming_the_option_and_the_bound() {
    use numaplace_model::sched::MIN_PERIOD_MS;
    use numaplace_sim::run::request::MIN_SYSTEM_QUANTUM_NS;
    let stream = || JobStream { jobs: vec![job(0, 0.0, 2, SWEEP)] };
    // A quantum a page run takes (at least 1 us) but a system run does not.
    let cfg = SystemConfig { quantum_ns: 20_000.0, ..Default::default() };
    let e = simulate_system("origin2000", &stream(), &cfg).unwrap_err().to_string();
    assert_eq!(
        e,
        format!("quantum_ns = 20000: a system run's quantum is at least {MIN_SYSTEM_QUANTUM_NS} ns (each quantum costs a timing solve for every running job)")
    );
    let cfg = SystemConfig { quantum_ns: MIN_SYSTEM_QUANTUM_NS, ..Default::default() };
    simulate_system("origin2000", &stream(), &cfg).unwrap();
    // A scheduler's tick period (irix 0.001 ms made a two-job stream take 98 s instead of 11).
    for (spec, key) in [("irix:quantum_ms=0.001", "quantum_ms"), ("linux:numa_period_ms=0.5", "numa_period_ms")] {
        let cfg = SystemConfig { scheduler: spec.into(), ..Default::default() };
        let e = simulate_system("origin2000", &stream(), &cfg).unwrap_err().to_string();
        assert!(e.contains(key) && e.contains(&format!("[{MIN_PERIOD_MS}, ")) && !e.contains('\n'), "{spec}: {e}");
    }
}
