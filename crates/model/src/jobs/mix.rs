//! Seed 002's job mixes (Corbalan, Martorell, Labarta, ICS 2003, §6 Table 1) as generated
//! streams.
//!
//! **Applications.** swim, hydro2d and apsi (SPEC CFP95) and bt (NAS); swim, bt and hydro2d
//! request 32 CPUs and apsi 2 "due to its bad scalability" (§6). [`APPS`] declares them with
//! the workload spec each job runs (the simulator's `swim`, `nas-bt`, `hydro2d`, `apsi`); a
//! caller may run other specs for them ([`MixRequest::workloads`]).
//!
//! **Mixes** ([`MIXES`], Table 1): W1 50 % swim + 50 % bt; W2 50 % bt + 50 % hydro2d; W3 25 %
//! each of the four; W4 100 % bt. A stream's applications are in exactly these proportions
//! (counts by largest remainder, so they sum to the job count), in an order shuffled by the
//! seed.
//!
//! **Job count.** Table 1 gives the jobs executed at 100 % load: W1 61, W2 48, W3 125, W4 99.
//! The seed does not say how many ran at 60 % and 80 %. Our choice: `round(n₁₀₀ × load)`, so
//! that every load's stream spans the same expected time (`n / λ = n₁₀₀ × mean demand / CPUs`)
//! and differs only in how densely jobs arrive, as the seed's "exponential inter-arrival
//! function with a different frequency" suggests. [`MixRequest::jobs`] overrides it.
//!
//! **Load.** The offered load of a stream is the CPU demand arriving per unit time over the
//! machine's CPUs: `load = λ × D̄ / P`, with `λ` the arrival rate, `P` the machine's CPUs and
//! `D̄ = Σₐ shareₐ × Dₐ` the mix's mean demand, `Dₐ` being the CPU-seconds one job of
//! application `a` uses on its requested CPUs (its run time there × the CPUs it requested).
//! Inter-arrival times are exponential with mean
//!
//! ```text
//!   mean inter-arrival = D̄ / (load × P)
//! ```
//!
//! The demands are the caller's ([`MixRequest::demand`]): the system simulator measures them
//! by simulating each application alone; nothing here assumes a run time. The first job
//! arrives at time 0, each next one an exponential gap later (inverse transform of a
//! [`SplitMix64`] uniform; the application order and the gaps come from two streams
//! [`derive`]d from the seed, so they are independent).

use super::{Job, JobStream};
use crate::error::ModelError;
use crate::rng::{derive, SplitMix64};
use crate::units::{Ps, MAX_TIME_PS};

/// One application of seed 002's workloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct App {
    /// The name the seed uses.
    pub name: &'static str,
    /// The workload spec its jobs run by default.
    pub workload: &'static str,
    /// CPUs each job requests (§6).
    pub cpus: u32,
}

/// Seed 002's applications (§6).
pub const APPS: [App; 4] = [
    App { name: "swim", workload: "swim", cpus: 32 },
    App { name: "bt", workload: "nas-bt", cpus: 32 },
    App { name: "hydro2d", workload: "hydro2d", cpus: 32 },
    App { name: "apsi", workload: "apsi", cpus: 2 },
];

/// One mix of Table 1: each application's share in percent, and the jobs executed at 100 %
/// load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mix {
    pub name: &'static str,
    pub shares: &'static [(&'static str, u32)],
    pub jobs_at_full_load: u32,
}

/// Table 1 of seed 002.
pub const MIXES: [Mix; 4] = [
    Mix { name: "W1", shares: &[("swim", 50), ("bt", 50)], jobs_at_full_load: 61 },
    Mix { name: "W2", shares: &[("bt", 50), ("hydro2d", 50)], jobs_at_full_load: 48 },
    Mix { name: "W3", shares: &[("swim", 25), ("bt", 25), ("hydro2d", 25), ("apsi", 25)], jobs_at_full_load: 125 },
    Mix { name: "W4", shares: &[("bt", 100)], jobs_at_full_load: 99 },
];

/// The largest load a stream may be generated at: 4 (400 % of the machine's CPUs); seed 002
/// uses 0.6, 0.8 and 1.0.
pub const MAX_LOAD: f64 = 4.0;

/// The most jobs a generated stream may hold (the bound of SWF streams,
/// [`super::swf::MAX_STREAM_JOBS`]).
pub const MAX_JOBS: u32 = super::swf::MAX_STREAM_JOBS as u32;

/// The most CPUs a machine may have for this generator ([`super::swf::MAX_JOB_CPUS`]).
pub const MAX_CPUS: u32 = super::swf::MAX_JOB_CPUS as u32;

/// The largest demand of one job, CPU-seconds (10^9: 32 CPUs for a year is 10^9).
pub const MAX_DEMAND_S: f64 = 1e9;

/// What to generate.
#[derive(Clone, Copy, Debug)]
pub struct MixRequest<'a> {
    /// `W1`..`W4` (any case).
    pub mix: &'a str,
    /// The target load as a fraction: 0.6, 0.8, 1.0 for the seed's 60, 80, 100 %.
    pub load: f64,
    /// The machine's CPUs (64 in seed 002).
    pub machine_cpus: u32,
    /// The seed of the application order and the inter-arrival times.
    pub seed: u64,
    /// The number of jobs; `None` for `round(jobs at 100 % × load)` (see the module doc).
    pub jobs: Option<u32>,
    /// CPU-seconds of one job of each application on its requested CPUs, by [`App::name`]:
    /// every application of the mix needs one.
    pub demand: &'a [(&'a str, f64)],
    /// Workload specs to run instead of [`App::workload`], by application name.
    pub workloads: &'a [(&'a str, &'a str)],
}

/// The mix named `name` (any case).
///
/// # Errors
/// An unknown name, listing the known ones.
pub fn mix(name: &str) -> Result<&'static Mix, ModelError> {
    MIXES
        .iter()
        .find(|m| m.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| ModelError::unknown("job mix", name, MIXES.iter().map(|m| m.name)))
}

/// The application named `name`.
fn app(name: &str) -> &'static App {
    APPS.iter().find(|a| a.name == name).expect("Table 1 names only declared applications")
}

/// The mean inter-arrival time of `mix` at `load` on `machine_cpus` CPUs, seconds:
/// `D̄ / (load × P)` with `D̄` the share-weighted mean demand (see the module doc).
///
/// # Errors
/// As [`generate`], for the mix, load, CPUs and demands.
pub fn mean_interarrival_s(req: &MixRequest) -> Result<f64, ModelError> {
    let m = mix(req.mix)?;
    check(req)?;
    let mut mean = 0.0;
    for &(name, pct) in m.shares {
        mean += pct as f64 / 100.0 * demand_of(req, m, name)?;
    }
    Ok(mean / (req.load * req.machine_cpus as f64))
}

/// Checks the load and the CPU count.
fn check(req: &MixRequest) -> Result<(), ModelError> {
    if !(req.load.is_finite() && req.load > 0.0 && req.load <= MAX_LOAD) {
        return Err(ModelError::Config(format!(
            "job mix load {} is out of range: expected a fraction in (0, {MAX_LOAD}] (1.0 is 100 % of the machine's CPUs)",
            req.load
        )));
    }
    if req.machine_cpus == 0 || req.machine_cpus > MAX_CPUS {
        return Err(ModelError::Config(format!(
            "job mix machine CPUs {} is out of range: expected 1..{MAX_CPUS}",
            req.machine_cpus
        )));
    }
    for name in req.demand.iter().map(|d| d.0).chain(req.workloads.iter().map(|w| w.0)) {
        if !APPS.iter().any(|a| a.name == name) {
            return Err(ModelError::unknown("application of seed 002", name, APPS.iter().map(|a| a.name)));
        }
    }
    Ok(())
}

/// The demand of application `name`, checked.
fn demand_of(req: &MixRequest, m: &Mix, name: &str) -> Result<f64, ModelError> {
    let d = req.demand.iter().find(|(n, _)| *n == name).map(|(_, d)| *d).ok_or_else(|| {
        ModelError::Config(format!("job mix {}: no demand given for '{name}' (CPU-seconds of one job on its requested CPUs)", m.name))
    })?;
    if !(d.is_finite() && d > 0.0 && d <= MAX_DEMAND_S) {
        return Err(ModelError::Config(format!(
            "job mix {}: demand of '{name}' is {d}: expected CPU-seconds in (0, {MAX_DEMAND_S:e}]",
            m.name
        )));
    }
    Ok(d)
}

/// Counts per application summing to `n`, in proportion to the shares (largest remainder;
/// ties to the earlier application of the mix).
pub fn counts(m: &Mix, n: u32) -> Vec<(&'static str, u32)> {
    let total: u64 = m.shares.iter().map(|&(_, p)| p as u64).sum();
    let mut out: Vec<(&'static str, u32, u64)> =
        m.shares.iter().map(|&(a, p)| (a, (n as u64 * p as u64 / total) as u32, n as u64 * p as u64 % total)).collect();
    let mut left = n - out.iter().map(|c| c.1).sum::<u32>();
    let mut order: Vec<usize> = (0..out.len()).collect();
    order.sort_by(|&i, &j| out[j].2.cmp(&out[i].2).then(i.cmp(&j)));
    for i in order {
        if left == 0 {
            break;
        }
        out[i].1 += 1;
        left -= 1;
    }
    out.into_iter().map(|(a, c, _)| (a, c)).collect()
}

/// Generates the stream `req` describes (see the module doc).
///
/// # Errors
/// An unknown mix (listing W1..W4), a load outside (0, [`MAX_LOAD`]], machine CPUs outside
/// 1..[`MAX_CPUS`], a missing or non-positive demand for an application of the mix, a demand
/// or workload given for an application seed 002 does not have, a job count of 0 or above
/// [`MAX_JOBS`], or a stream whose last arrival passes the simulator's clock bound. One line
/// each.
pub fn generate(req: &MixRequest) -> Result<JobStream, ModelError> {
    let m = mix(req.mix)?;
    let mean_s = mean_interarrival_s(req)?;
    let n = match req.jobs {
        Some(n) => n,
        None => (m.jobs_at_full_load as f64 * req.load).round() as u32,
    };
    if n == 0 || n > MAX_JOBS {
        return Err(ModelError::Config(format!("job mix {}: {n} jobs: expected 1..{MAX_JOBS}", m.name)));
    }
    // The applications in their proportions, shuffled (Fisher–Yates).
    let mut apps: Vec<&'static App> = Vec::with_capacity(n as usize);
    for (name, c) in counts(m, n) {
        apps.extend(std::iter::repeat_n(app(name), c as usize));
    }
    let mut order = SplitMix64::new(derive(req.seed, 0x002_0001));
    for i in (1..apps.len()).rev() {
        let j = order.below(i as u64 + 1) as usize;
        apps.swap(i, j);
    }
    let mut gaps = SplitMix64::new(derive(req.seed, 0x002_0002));
    let mut t_s = 0.0f64;
    let mut jobs = Vec::with_capacity(n as usize);
    for (i, a) in apps.iter().enumerate() {
        if i > 0 {
            // Inverse transform: 1 − u is in (0, 1], so the logarithm is finite.
            t_s += -mean_s * (1.0 - gaps.unit()).ln();
        }
        let arrival_ps = t_s * 1e12;
        if arrival_ps.is_nan() || arrival_ps >= MAX_TIME_PS as f64 {
            return Err(ModelError::Config(format!(
                "job mix {}: job {i} would arrive at {t_s:.0} s, beyond the simulator's clock bound of {} s (fewer jobs or smaller demands)",
                m.name,
                MAX_TIME_PS / 1_000_000_000_000
            )));
        }
        let workload = req.workloads.iter().find(|(n, _)| *n == a.name).map_or(a.workload, |(_, w)| w);
        jobs.push(Job { id: i as u32, arrival: arrival_ps.round() as Ps, cpus: a.cpus, workload: workload.to_string(), origin: None });
    }
    Ok(JobStream { jobs })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEMAND: [(&str, f64); 4] = [("swim", 3200.0), ("bt", 6400.0), ("hydro2d", 1600.0), ("apsi", 100.0)];

    fn req(mix: &'static str, load: f64) -> MixRequest<'static> {
        MixRequest { mix, load, machine_cpus: 64, seed: 7, jobs: None, demand: &DEMAND, workloads: &[] }
    }

    fn count(s: &JobStream, workload: &str) -> usize {
        s.jobs.iter().filter(|j| j.workload == workload).count()
    }

    #[test]
    fn job_counts_follow_table_1_and_scale_with_load() {
        for (mix, n100) in [("W1", 61), ("W2", 48), ("W3", 125), ("W4", 99)] {
            assert_eq!(generate(&req(mix, 1.0)).unwrap().jobs.len(), n100, "{mix}");
            assert_eq!(generate(&req(mix, 0.6)).unwrap().jobs.len(), (n100 as f64 * 0.6).round() as usize, "{mix}");
        }
        let r = MixRequest { jobs: Some(10), ..req("w3", 0.8) };
        assert_eq!(generate(&r).unwrap().jobs.len(), 10);
    }

    #[test]
    fn proportions_and_requests_are_the_seeds() {
        let s = generate(&req("W3", 1.0)).unwrap();
        // 125 jobs in four equal shares: 32, 31, 31, 31 by largest remainder.
        assert_eq!([count(&s, "swim"), count(&s, "nas-bt"), count(&s, "hydro2d"), count(&s, "apsi")], [32, 31, 31, 31]);
        assert!(s.jobs.iter().all(|j| j.cpus == if j.workload == "apsi" { 2 } else { 32 }));
        let w1 = generate(&req("W1", 1.0)).unwrap();
        assert_eq!((count(&w1, "swim"), count(&w1, "nas-bt")), (31, 30));
        let w4 = generate(&req("W4", 0.8)).unwrap();
        assert_eq!(count(&w4, "nas-bt"), w4.jobs.len());
        // Shuffled: the first half of W1 is not all one application.
        assert!(count(&JobStream { jobs: w1.jobs[..30].to_vec() }, "swim") > 5);
    }

    #[test]
    fn same_seed_same_stream_and_ids_in_arrival_order() {
        let a = generate(&req("W3", 0.8)).unwrap();
        assert_eq!(a, generate(&req("W3", 0.8)).unwrap());
        assert_ne!(a, generate(&MixRequest { seed: 8, ..req("W3", 0.8) }).unwrap());
        assert_eq!(a.jobs[0].arrival, 0);
        for (i, w) in a.jobs.windows(2).enumerate() {
            assert!(w[0].arrival <= w[1].arrival);
            assert_eq!(w[0].id as usize, i);
        }
    }

    #[test]
    fn mean_interarrival_matches_the_formula_over_a_long_stream() {
        // W3: mean demand (32 + 64 + 16 + 1) / 4 = 28.25 CPU-s; at 80 % of 64 CPUs the mean
        // gap is 28.25 / 51.2 = 0.5518 s.
        let demand = [("swim", 32.0), ("bt", 64.0), ("hydro2d", 16.0), ("apsi", 1.0)];
        let r = MixRequest { jobs: Some(100_000), demand: &demand, ..req("W3", 0.8) };
        let mean = mean_interarrival_s(&r).unwrap();
        assert!((mean - 28.25 / 51.2).abs() < 1e-12, "{mean}");
        let s = generate(&r).unwrap();
        let measured = s.jobs.last().unwrap().arrival as f64 / 1e12 / (s.jobs.len() - 1) as f64;
        // The standard error of the mean of 10^5 exponential gaps is 0.3 % of the mean; the
        // seed is fixed, so the bound of 2 % (7 standard errors) is a check of the formula,
        // not a chance.
        assert!((measured / mean - 1.0).abs() < 0.02, "measured {measured}, formula {mean}");
    }

    #[test]
    fn workloads_can_be_replaced() {
        let r = MixRequest { workloads: &[("bt", "nas-bt:class=A")], ..req("W4", 0.6) };
        assert!(generate(&r).unwrap().jobs.iter().all(|j| j.workload == "nas-bt:class=A"));
    }

    #[test]
    fn bad_requests_are_one_line_errors() {
        let cases: Vec<(MixRequest, &str)> = vec![
            (req("W5", 1.0), "unknown job mix 'W5' (known: W1, W2, W3, W4)"),
            (req("W1", 0.0), "job mix load 0 is out of range"),
            (req("W1", f64::NAN), "job mix load NaN is out of range"),
            (req("W1", 4.5), "job mix load 4.5 is out of range"),
            (MixRequest { machine_cpus: 0, ..req("W1", 1.0) }, "machine CPUs 0 is out of range"),
            (MixRequest { demand: &[("swim", 1.0)], ..req("W1", 1.0) }, "job mix W1: no demand given for 'bt'"),
            (MixRequest { demand: &[("swim", 1.0), ("bt", -2.0)], ..req("W1", 1.0) }, "demand of 'bt' is -2"),
            (MixRequest { demand: &[("swim", 1.0), ("lu", 2.0)], ..req("W1", 1.0) }, "unknown application of seed 002 'lu'"),
            (MixRequest { workloads: &[("ft", "nas-ft")], ..req("W1", 1.0) }, "unknown application of seed 002 'ft'"),
            (MixRequest { jobs: Some(0), ..req("W1", 1.0) }, "job mix W1: 0 jobs"),
            (MixRequest { demand: &[("bt", 1e9)], jobs: Some(1_000_000), machine_cpus: 1, ..req("W4", 0.01) }, "beyond the simulator's clock bound"),
        ];
        for (r, want) in cases {
            let e = generate(&r).unwrap_err().to_string();
            assert!(e.contains(want) && !e.contains('\n'), "want '{want}', got '{e}'");
        }
    }

    #[test]
    fn counts_sum_and_split_by_largest_remainder() {
        for m in &MIXES {
            for n in [1, 2, 3, 7, 61, 125] {
                assert_eq!(counts(m, n).iter().map(|c| c.1).sum::<u32>(), n);
            }
        }
        assert_eq!(counts(&MIXES[2], 6), vec![("swim", 2), ("bt", 2), ("hydro2d", 1), ("apsi", 1)]);
    }
}
