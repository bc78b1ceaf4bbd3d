//! The speed of a seed-002-sized system run: 125 jobs (W3 at 100 % load: a quarter each of four
//! applications, 32 CPUs requested, 2 for the poorly scaling one) on the 64-CPU Origin2000.
//! A benchmark, not a test: it prints its wall time and asserts nothing about it.
//!
//! `cargo test --release -p numaplace-sim --test it system_bench -- --ignored --nocapture`
//!
//! The workloads default to stand-ins from the existing registry; set `W3_WORKLOADS` to four
//! comma-free specs separated by `;` (swim, bt, hydro2d, apsi), `W3_SCHEDULERS` to the
//! schedulers to time (space-separated), `W3_JOBS` to the job count and `W3_INIT` to the jobs'
//! init mode (`parallel`, `sequential`, `none`).

use numaplace_model::jobs::{Job, JobStream};
use numaplace_model::rng::SplitMix64;
use numaplace_sim::presets::preset;
use numaplace_sim::system::{simulate_system_on, SystemConfig};

/// Jobs cycling over the four applications, exponential inter-arrival times of mean `gap_ps`.
fn w3(workloads: &[String], jobs: u32, gap_ps: f64, seed: u64) -> JobStream {
    let mut rng = SplitMix64::new(seed);
    let mut t = 0.0;
    let jobs = (0..jobs)
        .map(|id| {
            let w = id as usize % workloads.len();
            let job = Job { id, arrival: t as u64, cpus: if w == 3 { 2 } else { 32 }, workload: workloads[w].clone(), origin: None };
            t += -gap_ps * (1.0 - rng.unit()).ln();
            job
        })
        .collect();
    JobStream { jobs }
}

#[test]
#[ignore = "a benchmark: run it by name with --ignored"]
fn w3_at_full_load() {
    let machine = preset("origin2000-64").unwrap();
    let workloads: Vec<String> = std::env::var("W3_WORKLOADS")
        .unwrap_or_else(|_| "shallow:n=512,steps=20;nas-bt:class=S;nas-sp:class=S;nas-cg:class=S".into())
        .split(';')
        .map(str::to_string)
        .collect();
    let jobs: u32 = std::env::var("W3_JOBS").ok().and_then(|v| v.parse().ok()).unwrap_or(125);
    let schedulers = std::env::var("W3_SCHEDULERS").unwrap_or_else(|_| "equipartition irix pdpa".into());
    let init = numaplace_sim::Init::parse(&std::env::var("W3_INIT").unwrap_or_else(|_| "parallel".into())).unwrap();
    // Load 100 %: the mean arrival gap is the mean job's CPU demand over the machine's CPUs.
    // Estimated from each application alone on its request (equipartition, no other job).
    let mut demand = 0.0;
    for (w, spec) in workloads.iter().enumerate() {
        let alone = JobStream { jobs: vec![Job { id: 0, arrival: 0, cpus: if w == 3 { 2 } else { 32 }, workload: spec.clone(), origin: None }] };
        let r = simulate_system_on(&machine, &alone, &SystemConfig::default(), &mut |_| true).unwrap();
        println!("{spec}: alone {:.1} ms on {:.0} CPUs, one CPU {:.1} ms", r.jobs[0].execution_ns / 1e6, r.jobs[0].mean_cpus, r.jobs[0].one_cpu_ns / 1e6);
        demand += r.jobs[0].cpu_time_ns * 1e3 / workloads.len() as f64;
    }
    let gap = demand / machine.cpus() as f64;
    let stream = w3(&workloads, jobs, gap, 3);
    for scheduler in schedulers.split(' ') {
        let mut pair = Vec::new();
        for dynamic in [None, Some("kernel")] {
            let cfg = SystemConfig { scheduler: scheduler.into(), dynamic: dynamic.map(str::to_string), init, ..Default::default() };
            let t = std::time::Instant::now();
            let r = simulate_system_on(&machine, &stream, &cfg, &mut |_| true).unwrap();
            let s = &r.system;
            println!(
                "{scheduler:>14} {:>7}: {:6.1} s wall for {} jobs | makespan {:.2} s, util {:.2}, cpu time {:.1} s, process migrations {}, mean burst {:.3} s, pages migrated {}, local {:.3}, max running {}",
                dynamic.unwrap_or("off"),
                t.elapsed().as_secs_f64(),
                s.jobs,
                s.makespan_ns / 1e9,
                s.utilisation,
                s.cpu_time_ns / 1e9,
                s.process_migrations,
                s.mean_burst_ns / 1e9,
                s.pages_migrated,
                s.local_fraction,
                s.max_running
            );
            pair.push(r);
        }
        // Seed 002's figures: per application, the mean with migration over the mean without.
        for (k, spec) in workloads.iter().enumerate() {
            let mean = |r: &numaplace_sim::system::SystemResult, f: &dyn Fn(&numaplace_sim::system::JobRecord) -> f64| {
                let v: Vec<f64> = r.jobs.iter().filter(|j| j.job as usize % workloads.len() == k).map(f).collect();
                v.iter().sum::<f64>() / v.len().max(1) as f64
            };
            let ratio = |f: &dyn Fn(&numaplace_sim::system::JobRecord) -> f64| mean(&pair[1], f) / mean(&pair[0], f);
            println!(
                "{scheduler:>14} {spec:>28}: with/without migration: cpu time {:.3}, speedup {:.3}, cpus {:.3}",
                ratio(&|j| j.cpu_time_ns),
                ratio(&|j| j.speedup),
                ratio(&|j| j.mean_cpus)
            );
        }
    }
}
