//! Multiprogrammed systems (seed 002): a machine, a job stream, a processor scheduler, and the
//! placement and dynamic policy every job runs under. `docs/multiprogramming.md` describes the
//! model; this is the driver.
//!
//! Each running job is a malleable OpenMP program ([`job`]) with its own engine: its own
//! address space (page table), placement, dynamic policy and counters. What the jobs share is
//! the machine: its CPUs (the scheduler's), its memory (each job's page table may use what the
//! others leave on each node) and its memory controllers (each job's timing model sees the
//! others' latest line rates as background load queueing at the same controllers).
//!
//! The driver is a discrete-event loop over job arrivals, scheduler ticks and the jobs' epoch
//! boundaries, always taking the earliest (arrivals before ticks before epochs on ties, epochs
//! by job id). At an epoch boundary a job fetches its next epoch; if a timed iteration ended
//! there it reports its efficiency (and sampled faults) to the scheduler; it then adopts the
//! scheduler's current mapping for it (thread count and CPUs) as far as the CPUs are free
//! ([`effective`]: under space sharing a CPU still running another job's thread is handed over
//! when that job reaches its own boundary; under time sharing threads share it) and runs the
//! epoch. A scheduler's change therefore takes effect at each job's next parallel region, as
//! NthLib adapts.

mod job;
pub mod result;

use crate::binding::Placed;
use crate::error::SimError;
use crate::presets::load_machine;
use crate::workload::Init;
use job::{JobSpec, Live, Step};
use numaplace_model::jobs::{job_name, JobStream};
use numaplace_model::rng::derive;
use numaplace_model::sched::{self, JobInfo, Report, Scheduler};
use numaplace_model::units::ns_to_ps;
use numaplace_model::{CpuId, Machine, ModelError, Ps, Spec};
pub use result::{AllocationPoint, JobRecord, SystemRecord, SystemResult};
use std::collections::BTreeMap;

/// Everything besides the machine and the stream that determines a system run.
#[derive(Clone, Debug, PartialEq)]
pub struct SystemConfig {
    /// The processor scheduler, `NAME:key=value,...` (`numaplace_model::sched::REGISTRY`).
    pub scheduler: String,
    /// Every job's placement.
    pub placement: String,
    /// Every job's dynamic policy (`None`: pages never move).
    pub dynamic: Option<String>,
    /// The run's seed: the scheduler's random choices and each job's workload seed (derived
    /// per job id).
    pub seed: u64,
    /// The engines' interleaving quantum, ns.
    pub quantum_ns: f64,
    /// How each job initialises its data.
    pub init: Init,
}

impl Default for SystemConfig {
    /// Seed 002's configuration: `equipartition`, first touch, no migration, the run defaults.
    fn default() -> Self {
        SystemConfig {
            scheduler: "equipartition".into(),
            placement: "first-touch".into(),
            dynamic: None,
            seed: 0,
            quantum_ns: crate::run::request::DEFAULT_QUANTUM_NS,
            init: Init::Parallel,
        }
    }
}

/// Where a system run is, reported after each job's completion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SystemProgress {
    pub done: usize,
    pub jobs: usize,
    pub simulated_ns: f64,
}

/// Runs `stream` on the machine named by `machine` (a preset or a file).
///
/// # Errors
/// As [`simulate_system_on`], and an unknown machine.
pub fn simulate_system(machine: &str, stream: &JobStream, cfg: &SystemConfig) -> Result<SystemResult, SimError> {
    simulate_system_on(&load_machine(machine)?, stream, cfg, &mut |_| true)
}

/// One-CPU times per (workload, request): the job's work alone on CPU 0, total and per timed
/// iteration.
type OneCpu = BTreeMap<(String, u32), (Ps, Ps)>;

/// Checks `cfg`'s quantum, against the bound of a system run ([`MIN_SYSTEM_QUANTUM_NS`]), and
/// its scheduler, placement and policy specs, before anything runs (a stream's jobs measured
/// alone, say).
///
/// [`MIN_SYSTEM_QUANTUM_NS`]: crate::run::request::MIN_SYSTEM_QUANTUM_NS
///
/// # Errors
/// The first bad value, in one line naming it.
pub fn check_config(machine: &Machine, cfg: &SystemConfig) -> Result<(), SimError> {
    crate::run::request::check_value("quantum_ns", &serde_json::Value::from(cfg.quantum_ns))?;
    if cfg.quantum_ns < crate::run::request::MIN_SYSTEM_QUANTUM_NS {
        return Err(ModelError::Config(format!(
            "quantum_ns = {}: a system run's quantum is at least {} ns (each quantum costs a timing solve for every running job)",
            cfg.quantum_ns,
            crate::run::request::MIN_SYSTEM_QUANTUM_NS
        ))
        .into());
    }
    sched::build(&Spec::parse(&cfg.scheduler)?, machine, 0)?;
    numaplace_model::placement::resolve(&Spec::parse(&cfg.placement)?)?;
    if let Some(text) = &cfg.dynamic {
        numaplace_model::dynamic::resolve(&Spec::parse(text)?)?;
    }
    Ok(())
}

/// Runs `stream` on `machine` under `cfg`, calling `observer` after each job's completion
/// (returning `false` stops the run).
///
/// # Errors
/// A bad scheduler, placement, policy or workload spec (naming the job), a job whose footprint
/// does not fit beside the running ones, a run past the simulator's time bound, a scheduler
/// that breaks its contract, [`SimError::Stopped`].
pub fn simulate_system_on(
    machine: &Machine,
    stream: &JobStream,
    cfg: &SystemConfig,
    observer: &mut dyn FnMut(&SystemProgress) -> bool,
) -> Result<SystemResult, SimError> {
    check_config(machine, cfg)?;
    let (mut scheduler, sched_resolved) = sched::build(&Spec::parse(&cfg.scheduler)?, machine, derive(cfg.seed, 0x5C4E))?;
    let caps = sched::REGISTRY.get(&sched_resolved.name)?.caps;
    let (_, pl_resolved) = numaplace_model::placement::resolve(&Spec::parse(&cfg.placement)?)?;
    let dyn_resolved = match &cfg.dynamic {
        Some(text) => Some(numaplace_model::dynamic::resolve(&Spec::parse(text)?)?.1.to_string()),
        None => None,
    };
    let index = index_jobs(stream)?;
    let quantum_ps = ns_to_ps(cfg.quantum_ns);
    let spec_of = |i: usize| {
        let j = &stream.jobs[i];
        JobSpec {
            id: j.id,
            origin: j.origin,
            workload: &j.workload,
            request: j.cpus.max(1),
            placement: &cfg.placement,
            dynamic: cfg.dynamic.as_deref(),
            seed: derive(cfg.seed, 0x10B_0000 + j.id as u64),
            init: cfg.init,
            quantum_ps,
        }
    };
    let mut one_cpu = OneCpu::new();
    let mut live: Vec<Live<'_>> = Vec::new();
    let mut records: Vec<Option<JobRecord>> = vec![None; stream.jobs.len()];
    let mut timeline: Vec<AllocationPoint> = Vec::new();
    let mut next_arrival = 0usize;
    let mut next_tick = scheduler.period();
    let mut now: Ps = 0;
    let mut done = 0usize;
    let mut max_running = 0usize;
    let nn = machine.nodes();
    loop {
        let ta = stream.jobs.get(next_arrival).map(|j| j.arrival);
        let tj = live.iter().enumerate().min_by_key(|(_, l)| (l.clock, l.id)).map(|(i, l)| (l.clock, i));
        // Ticks only while jobs run; an idle machine skips to the next arrival.
        if live.is_empty() {
            if let (Some(p), Some(t), Some(a)) = (scheduler.period(), next_tick, ta) {
                if t < a {
                    next_tick = Some(t + (a - t).div_ceil(p) * p);
                }
            }
        }
        let tt = if live.is_empty() { None } else { next_tick };
        let first = [ta, tt, tj.map(|x| x.0)].into_iter().flatten().min();
        let Some(t) = first else { break };
        now = now.max(t);
        if ta == Some(t) {
            let j = &stream.jobs[next_arrival];
            next_arrival += 1;
            scheduler.arrive(now, JobInfo { id: j.id, request: j.cpus.max(1) });
        } else if tt == Some(t) {
            scheduler.tick(now);
            next_tick = scheduler.period().map(|p| t + p.max(1));
        } else {
            let (_, i) = tj.expect("the earliest event is a job's");
            match live[i].next() {
                Step::Done => {
                    let l = live.remove(i);
                    let id = l.id;
                    if l.overran() {
                        return Err(time_bound().into());
                    }
                    let k = index[&id];
                    let arrival = stream.jobs[k].arrival;
                    let key = (l.workload.clone(), l.request);
                    let t1 = one_cpu_time(machine, &spec_of(k), &mut one_cpu, &key)?.0;
                    let end = l.clock;
                    now = now.max(end);
                    timeline.push(AllocationPoint { time_ns: ns(end), job: id, cpus: 0 });
                    records[k] = Some(l.finish(arrival, t1)?);
                    scheduler.complete(now, id);
                    done += 1;
                    if !observer(&SystemProgress { done, jobs: stream.jobs.len(), simulated_ns: ns(now) }) {
                        return Err(SimError::Stopped);
                    }
                }
                step => {
                    if let Step::Iteration { time, threads } = step {
                        let l = &mut live[i];
                        let efficiency = if caps.efficiency {
                            let key = (l.workload.clone(), l.request);
                            let per_iteration = one_cpu_time(machine, &spec_of(index[&l.id]), &mut one_cpu, &key)?.1;
                            per_iteration as f64 / time.max(1) as f64 / threads.max(1) as f64
                        } else {
                            0.0
                        };
                        let faults = if caps.faults { std::mem::replace(&mut l.faults, vec![vec![0; nn]; threads as usize]) } else { Vec::new() };
                        scheduler.report(now, &Report { job: l.id, cpus: threads, efficiency, faults });
                    }
                    check_answer(machine, scheduler.as_ref(), &sched_resolved.name, caps.sharing)?;
                    start_admitted(machine, scheduler.as_ref(), &mut live, &spec_of, &index, now, caps.faults, caps.sharing, &mut timeline)?;
                    let l_id = live[i].id;
                    let wanted = target(scheduler.as_ref(), &sched_resolved.name, l_id)?;
                    let placed = effective(machine, &wanted, &live[i].cpus, &occupancy(machine.cpus(), &live, Some(i)), caps.sharing);
                    let old = live[i].cpus.len();
                    live[i].adopt(placed, now);
                    if live[i].cpus.len() != old {
                        timeline.push(AllocationPoint { time_ns: ns(now), job: l_id, cpus: live[i].cpus.len() as u32 });
                    }
                    let (background, capacity) = beside(machine, &live, i);
                    live[i].run(&background, &capacity);
                    if live[i].overran() {
                        return Err(time_bound().into());
                    }
                }
            }
        }
        check_answer(machine, scheduler.as_ref(), &sched_resolved.name, caps.sharing)?;
        start_admitted(machine, scheduler.as_ref(), &mut live, &spec_of, &index, now, caps.faults, caps.sharing, &mut timeline)?;
        max_running = max_running.max(live.len());
    }
    if done < stream.jobs.len() {
        return Err(ModelError::Config(format!(
            "scheduler '{}' left {} job(s) queued with nothing running",
            sched_resolved.name,
            stream.jobs.len() - done
        ))
        .into());
    }
    let jobs: Vec<JobRecord> = records.into_iter().map(|r| r.expect("every job finished")).collect();
    timeline.sort_by(|a, b| a.time_ns.total_cmp(&b.time_ns).then(a.job.cmp(&b.job)));
    let system = system_record(machine, cfg, sched_resolved.to_string(), pl_resolved.to_string(), dyn_resolved, &jobs, max_running);
    Ok(SystemResult { system, jobs, timeline })
}

/// The jobs of `stream` by id, each with its index in the stream, checked: the stream is in
/// arrival order (ties by id) and no two jobs share an id.
fn index_jobs(stream: &JobStream) -> Result<BTreeMap<u32, usize>, SimError> {
    for w in stream.jobs.windows(2) {
        if (w[1].arrival, w[1].id) < (w[0].arrival, w[0].id) {
            return Err(ModelError::Config(format!("job stream: job {} arrives before job {} but comes after it", w[1].id, w[0].id)).into());
        }
    }
    let index: BTreeMap<u32, usize> = stream.jobs.iter().enumerate().map(|(i, j)| (j.id, i)).collect();
    if index.len() != stream.jobs.len() {
        return Err(ModelError::Config("job stream: two jobs have the same id".into()).into());
    }
    Ok(index)
}

/// Other jobs' traffic and memory, as job `i` of `live` runs beside them: per node, their line
/// rates (background load at the node's memory controller) and the pages they leave free.
fn beside(machine: &Machine, live: &[Live<'_>], i: usize) -> (Vec<f64>, Vec<u64>) {
    let nn = machine.nodes();
    let mut background = vec![0.0; nn];
    let mut used = vec![0u64; nn];
    for (k, o) in live.iter().enumerate() {
        if k != i {
            for h in 0..nn {
                background[h] += o.rate[h];
                used[h] += o.pages_per_node()[h];
            }
        }
    }
    let capacity: Vec<u64> = machine.capacity_pages.iter().zip(&used).map(|(c, u)| c.saturating_sub(*u)).collect();
    (background, capacity)
}

/// The system's summary from its finished `jobs`, under the resolved `scheduler`, `placement`
/// and `dynamic` specs, with at most `max_running` jobs running at once.
fn system_record(
    machine: &Machine,
    cfg: &SystemConfig,
    scheduler: String,
    placement: String,
    dynamic: Option<String>,
    jobs: &[JobRecord],
    max_running: usize,
) -> SystemRecord {
    let makespan = jobs.iter().map(|j| j.end_ns).fold(0.0, f64::max);
    let cpu_time: f64 = jobs.iter().map(|j| j.cpu_time_ns).sum();
    let bursts: u64 = jobs.iter().map(|j| j.bursts).sum();
    let lines: u64 = jobs.iter().map(|j| j.transactions).sum();
    let local: f64 = jobs.iter().map(|j| j.local_fraction * j.transactions as f64).sum();
    let cpus = machine.cpus();
    SystemRecord {
        machine: machine.name().to_string(),
        scheduler,
        placement,
        dynamic,
        seed: cfg.seed,
        quantum_ns: cfg.quantum_ns,
        init: cfg.init.name().to_string(),
        jobs: jobs.len(),
        cpus,
        makespan_ns: makespan,
        utilisation: if makespan > 0.0 { cpu_time / (cpus as f64 * makespan) } else { 0.0 },
        cpu_time_ns: cpu_time,
        process_migrations: jobs.iter().map(|j| j.process_migrations).sum(),
        bursts,
        mean_burst_ns: if bursts > 0 { cpu_time / bursts as f64 } else { 0.0 },
        bursts_per_cpu: bursts as f64 / cpus as f64,
        pages_migrated: jobs.iter().map(|j| j.pages_migrated).sum(),
        local_fraction: if lines > 0 { local / lines as f64 } else { 0.0 },
        mean_response_ns: if jobs.is_empty() { 0.0 } else { jobs.iter().map(|j| j.response_ns).sum::<f64>() / jobs.len() as f64 },
        max_running,
        numaplace_version: env!("CARGO_PKG_VERSION"),
    }
}

fn ns(ps: Ps) -> f64 {
    ps as f64 / numaplace_model::units::PS_PER_NS as f64
}

fn time_bound() -> ModelError {
    ModelError::Config(format!("the system's simulated time passed {} ps (about 53 days), the simulator's bound", numaplace_model::units::MAX_TIME_PS))
}

fn dropped(scheduler: &str, job: u32) -> SimError {
    ModelError::Config(format!("scheduler '{scheduler}' dropped running job {job} from its answer (its contract keeps it until its completion)")).into()
}

/// Checks the scheduler's answer against its contract: every running job has between one and
/// `request` threads on CPUs of the machine, each job listed once, no CPU given twice under
/// space sharing.
fn check_answer(machine: &Machine, scheduler: &dyn Scheduler, name: &str, sharing: sched::Sharing) -> Result<(), SimError> {
    let broke = |what: String| -> SimError { ModelError::Config(format!("scheduler '{name}' broke its contract: {what}")).into() };
    let mut taken = vec![false; machine.cpus()];
    let mut ids = std::collections::BTreeSet::new();
    for r in scheduler.running() {
        if !ids.insert(r.id) {
            return Err(broke(format!("job {} listed twice", r.id)));
        }
        if r.cpus.is_empty() || r.cpus.len() > r.request.max(1) as usize {
            return Err(broke(format!("job {} given {} threads (request {})", r.id, r.cpus.len(), r.request)));
        }
        for c in &r.cpus {
            let Some(t) = taken.get_mut(c.0 as usize) else {
                return Err(broke(format!("job {} given CPU {}, which machine '{}' does not have", r.id, c.0, machine.name())));
            };
            if *t && sharing == sched::Sharing::Space {
                return Err(broke(format!("CPU {} given twice under space sharing", c.0)));
            }
            *t = true;
        }
    }
    Ok(())
}

/// Threads of the running jobs (but job `except`) on each CPU, as they run now: the mappings
/// the jobs have adopted, which may lag the scheduler's by up to one epoch of each job.
fn occupancy(cpus: usize, live: &[Live<'_>], except: Option<usize>) -> Vec<u32> {
    let mut load = vec![0u32; cpus];
    for (k, l) in live.iter().enumerate() {
        if Some(k) != except {
            for c in &l.cpus {
                load[c.0 as usize] += 1;
            }
        }
    }
    load
}

/// Where a job's threads run when the scheduler wants them on `target` and the other jobs'
/// threads occupy `others`. Under time sharing every thread runs where the scheduler put it and
/// shares its CPU with every thread there. Under space sharing a CPU the scheduler gave the job
/// may still be running another job's thread until that job reaches its own parallel-region
/// boundary and lets it go (NANOS's CPUManager hands over a CPU once its holder released it):
/// the job runs its first threads up to the first CPU of its target that is busy (a thread
/// already running on its CPU, `current`, keeps it, sharing it meanwhile); if even its first
/// CPU is busy, on all its target, sharing the busy CPUs meanwhile.
fn effective(machine: &Machine, target: &[CpuId], current: &[CpuId], others: &[u32], sharing: sched::Sharing) -> Vec<Placed> {
    let free = target.iter().enumerate().take_while(|&(i, c)| others[c.0 as usize] == 0 || current.get(i) == Some(c)).count();
    let cpus = if sharing == sched::Sharing::Space && free > 0 { &target[..free] } else { target };
    let mut load = others.to_vec();
    for c in cpus {
        load[c.0 as usize] += 1;
    }
    cpus.iter().map(|&cpu| Placed { cpu, node: machine.node_of(cpu), share: load[cpu.0 as usize] }).collect()
}

/// The CPUs the scheduler gives job `id` now.
fn target(scheduler: &dyn Scheduler, name: &str, id: u32) -> Result<Vec<CpuId>, SimError> {
    scheduler.running().iter().find(|r| r.id == id).map(|r| r.cpus.clone()).ok_or_else(|| dropped(name, id))
}

/// Builds the jobs the scheduler has admitted since the last call, in its start order.
#[allow(clippy::too_many_arguments)]
fn start_admitted<'m, 's>(
    machine: &'m Machine,
    scheduler: &dyn Scheduler,
    live: &mut Vec<Live<'m>>,
    spec_of: &dyn Fn(usize) -> JobSpec<'s>,
    index: &BTreeMap<u32, usize>,
    now: Ps,
    faults: bool,
    sharing: sched::Sharing,
    timeline: &mut Vec<AllocationPoint>,
) -> Result<(), SimError> {
    let new: Vec<u32> = scheduler.running().iter().map(|r| r.id).filter(|id| !live.iter().any(|l| l.id == *id)).collect();
    if new.is_empty() {
        return Ok(());
    }
    for id in new {
        let Some(&k) = index.get(&id) else {
            return Err(ModelError::Config(format!("the scheduler started job {id}, which never arrived")).into());
        };
        let spec = spec_of(k);
        let placed = effective(machine, &target(scheduler, "", id)?, &[], &occupancy(machine.cpus(), live, None), sharing);
        let l = Live::new(machine, &spec, placed, now, faults)?;
        // Memory: the running jobs' footprints together must fit the machine.
        let footprints: u64 = live.iter().map(Live::footprint).sum::<u64>() + l.footprint();
        if footprints > machine.capacity_total() {
            return Err(ModelError::Config(format!(
                "{}: the running jobs' footprints ({footprints} pages) exceed machine '{}''s memory ({} pages)",
                job_name(id, spec.origin),
                machine.name(),
                machine.capacity_total()
            ))
            .into());
        }
        timeline.push(AllocationPoint { time_ns: ns(now), job: id, cpus: l.cpus.len() as u32 });
        live.push(l);
    }
    Ok(())
}

/// The job's one-CPU time (total, and per timed iteration), computed once per (workload,
/// request): the workload built for one thread, run on CPU 0 of the otherwise idle machine,
/// under the run's placement and no dynamic policy. (Not the job's `request` chunks run one
/// after another: a workload with a cache model keeps each chunk's cache, and one CPU would
/// then have `request` caches.)
fn one_cpu_time(machine: &Machine, spec: &JobSpec<'_>, cache: &mut OneCpu, key: &(String, u32)) -> Result<(Ps, Ps), SimError> {
    if let Some(&t) = cache.get(key) {
        return Ok(t);
    }
    let memo_key = OneCpuKey {
        machine: serde_json::to_string(&machine.raw).map_err(|e| ModelError::Config(format!("machine '{}': {e}", machine.name())))?,
        workload: spec.workload.to_string(),
        placement: spec.placement.to_string(),
        seed: spec.seed,
        init: spec.init.name(),
        quantum_ps: spec.quantum_ps,
    };
    if let Some(&t) = lock_memo().get(&memo_key) {
        cache.insert(key.clone(), t);
        return Ok(t);
    }
    let cpu = CpuId(0);
    let placed = vec![Placed { cpu, node: machine.node_of(cpu), share: 1 }];
    let alone = JobSpec { dynamic: None, request: 1, ..*spec };
    let mut l = Live::new(machine, &alone, placed, 0, false)?;
    let background = vec![0.0; machine.nodes()];
    let (mut sum, mut count) = (0 as Ps, 0 as Ps);
    loop {
        match l.next() {
            Step::Done => break,
            Step::Iteration { time, .. } => {
                sum += time;
                count += 1;
            }
            Step::Ran => {}
        }
        l.run(&background, &machine.capacity_pages);
        if l.overran() {
            return Err(time_bound().into());
        }
    }
    let total = l.clock;
    let t = (total, sum.checked_div(count).unwrap_or(total));
    cache.insert(key.clone(), t);
    let mut memo = lock_memo();
    if memo.len() >= ONE_CPU_MEMO_ENTRIES {
        memo.clear();
    }
    memo.insert(memo_key, t);
    Ok(t)
}

/// Everything a job's one-CPU time depends on ([`one_cpu_time`] runs the workload built for one
/// thread on CPU 0 of the idle machine, under the placement, with no dynamic policy): the
/// machine as written, the workload, placement, seed and initialisation, and the quantum.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct OneCpuKey {
    machine: String,
    workload: String,
    placement: String,
    seed: u64,
    init: &'static str,
    quantum_ps: Ps,
}

/// One-CPU times this process has computed, by [`OneCpuKey`]: the runs of a seed 002 grid share
/// their streams' jobs, and each run would otherwise simulate every (workload, request) alone
/// again (bt at class A: about a second each, a tenth of a quick-grid run). A pure function's
/// results: a hit is the value the simulation would give, to the bit.
static ONE_CPU_MEMO: std::sync::Mutex<BTreeMap<OneCpuKey, (Ps, Ps)>> = std::sync::Mutex::new(BTreeMap::new());

/// Entries [`ONE_CPU_MEMO`] holds before it starts again (a few kilobytes each, nearly all of
/// it the machine's description: 6 KB for `origin2000-64`).
const ONE_CPU_MEMO_ENTRIES: usize = 256;

fn lock_memo() -> std::sync::MutexGuard<'static, BTreeMap<OneCpuKey, (Ps, Ps)>> {
    // A panic elsewhere while the lock was held leaves entries that are each complete.
    ONE_CPU_MEMO.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
