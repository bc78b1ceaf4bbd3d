//! The policy-driver part of the [`crate::runtime::Runtime`], [`Driver`]: the dynamic policy
//! driven on real pages, its decisions and its timer, and the sampler thread's tick (a
//! sampling step at the pace [`crate::sampling`] keeps, then the policy's timer when due).
//!
//! The policies are the model crate's own code (`numaplace_model::dynamic`), driven exactly as
//! the simulator drives them, with real data in the `View` ([`crate::snapshot::Snapshot::view`]):
//!
//! | policy | trigger here | model hook |
//! |---|---|---|
//! | `upmlib` | `numaplace_migrate()` / `upmlib_migrate_memory()` | `on_iteration_end(view, k)` |
//! | `sampled` | a timer thread every `period_ms` (or `numaplace_migrate()`) | `on_timer(view)` |
//! | `upmlib-recrep` | `numaplace_record` (1st call: phase start, 2nd: end), `upmlib_compare_counters`, `numaplace_replay`, `numaplace_undo` | `on_epoch_start/end(view, 2, phase)`, `on_iteration_end(view, 2)`, `on_epoch_start/end(view, 3, phase)` |
//!
//! Where the simulator counts every access (or every N-th), the runtime counts hinting-fault
//! samples ([`crate::space`]): after every revocation of a page, its first access. Samples are
//! what the policies compare, as seed 003's engine compares bus-analyser samples.

use crate::error::{Code, RtError};
use crate::host::Host;
use crate::parts::Parts;
use numaplace_model::dynamic::{self, DynamicPolicy};
use numaplace_model::Spec;
use std::time::{Duration, Instant};

/// The dynamic policy and what drives it.
pub struct Driver {
    pub(crate) policy: Option<Box<dyn DynamicPolicy>>,
    /// The policy's timer period, if it has one.
    pub timer: Option<Duration>,
    pub(crate) last_timer: Instant,
    /// Iteration ends seen (`numaplace_migrate()` calls that decided).
    pub(crate) iteration: u32,
    /// Calls of the API that drive a policy (`numaplace_migrate`, `upmlib_migrate_memory`,
    /// the record-replay calls): none, with a policy that only they run, is said at exit.
    pub api_calls: u64,
}

impl Driver {
    /// The policy `host.cfg.dynamic` (none for `none` or empty), checked and built.
    ///
    /// # Errors
    /// A bad policy spec, or a policy this driver cannot run.
    pub fn new(host: &Host) -> Result<Driver, RtError> {
        let cfg = &host.cfg;
        let policy = if cfg.dynamic == "none" || cfg.dynamic.is_empty() {
            None
        } else {
            let spec = Spec::parse(&cfg.dynamic).map_err(|e| RtError::new(Code::Spec, e.to_string()))?;
            // What the policy observes decides whether this driver can run it (its
            // capabilities), checked before it is built.
            let (info, _) = dynamic::resolve(&spec).map_err(|e| RtError::new(Code::Spec, e.to_string()))?;
            dynamic::check_driver(info, dynamic::Driver::Runtime).map_err(|e| RtError::new(Code::Unsupported, e.to_string()))?;
            let cpus = host.sys.topology().cpus.iter().map(Vec::len).sum();
            let (p, _) = dynamic::build(&spec, &host.machine, cpus).map_err(|e| RtError::new(Code::Spec, e.to_string()))?;
            Some(p)
        };
        // The policy's timer, no more often than the sampler revokes windows: a check reads
        // every managed page's node, which costs more than the simulator's look.
        let timer = policy
            .as_ref()
            .and_then(|p| p.timer_period())
            .map(|ps| Duration::from_nanos(ps / 1000).max(Duration::from_secs_f64(cfg.sample_period_ms / 1000.0)));
        Ok(Driver { policy, timer, last_timer: Instant::now(), iteration: 0, api_calls: 0 })
    }

    /// Whether the policy counts samples (wants them).
    pub fn counts(&self) -> bool {
        self.policy.as_ref().is_some_and(|p| p.counts())
    }

    /// What to say at exit about a policy that did nothing: one that decides at iteration ends
    /// (the model's `DynamicPolicy::decides_at_iteration_end`: `upmlib`, `upmlib-recrep`), whose
    /// iteration ends only the program's own calls mark (`numaplace_migrate()`), preloaded into
    /// a program that `managed` memory and never called the API. A policy with a timer of its
    /// own (`adaptive`) acted without the calls. `None` otherwise.
    pub fn idle_policy_warning(&self, dynamic: &str, managed: bool) -> Option<String> {
        let policy = self.policy.as_ref()?;
        if !policy.decides_at_iteration_end() || policy.timer_period().is_some() || self.api_calls > 0 || !managed {
            return None;
        }
        let name = dynamic.split(':').next().unwrap_or_default();
        Some(format!(
            "--dynamic {name} did nothing: the program never called numaplace_migrate() or upmlib_migrate_memory(), \
which run it; use --dynamic sampled for unmodified programs"
        ))
    }

    /// Invokes the dynamic policy now: `upmlib` as at the end of an iteration, a timer
    /// policy as a timer tick. Returns pages moved. `recording`: a record-replay phase is
    /// being recorded (it wants samples too).
    ///
    /// # Errors
    /// A failed system call.
    pub(crate) fn migrate(&mut self, parts: &mut Parts, kind: &'static str, recording: bool) -> Result<u64, RtError> {
        if kind != "timer" {
            self.api_calls += 1;
        }
        parts.sampling.drain_perf(parts.host.cfg.verbose);
        let Some(timer) = self.policy.as_ref().map(|p| p.timer_period().is_some()) else { return Ok(0) };
        let result = self.invoke(parts, kind);
        let want = self.counts() || recording;
        let decided = match result {
            Ok(d) => d,
            Err(e) => {
                parts.rearm(want);
                return Err(e);
            }
        };
        let Some(moved) = decided else { return Ok(0) }; // a tick the policy let pass
        if parts.sampling.backoff == 0 || !timer {
            parts.rearm(want);
        } else {
            // Sampling goes on at the slower pace of the windows; the pages this decision
            // opened are sampled again when their window comes round.
        }
        Ok(moved)
    }

    /// One policy decision; `None` when the policy let a timer tick pass.
    fn invoke(&mut self, parts: &mut Parts, kind: &'static str) -> Result<Option<u64>, RtError> {
        let policy = self.policy.as_mut().expect("migrate checked it");
        let timer = policy.timer_period().is_some();
        // A timer check only looks (the policy may let it pass); an iteration end closes the
        // interval.
        let snap = if timer { parts.snapshot_peek()? } else { parts.snapshot()? };
        let view = snap.view(&parts.host.machine, parts.host.now());
        let (actions, reset) = if timer {
            let t = policy.on_timer(&view);
            if t.age {
                parts.regions.age_samples();
            }
            if t.actions.is_empty() && !t.reset && !t.age {
                // The policy let the tick pass (e.g. `sampled` with an adaptive period, still
                // short of samples): the interval goes on, undisturbed.
                return Ok(None);
            }
            // Acting: pages must be accessible to move (the interval ends here).
            parts.regions.unprotect_all(parts.sampling);
            (t.actions, t.reset)
        } else {
            if !policy.counts() {
                return Ok(Some(0));
            }
            self.iteration += 1;
            let a = policy.on_iteration_end(&view, self.iteration);
            (a, policy.reset_after_iteration())
        };
        parts.stats.invocations += 1;
        let (rep, per_node) = parts.apply(&snap, &actions)?;
        if reset {
            parts.regions.clear_samples();
        }
        if timer && kind == "timer" {
            let pages: u64 = parts.regions.list.iter().map(|r| r.pages as u64).sum();
            parts.sampling.pace(snap.samples, snap.local, snap.active_nodes, rep.moved, pages);
        }
        parts.log(kind, &snap, rep.moved, per_node);
        Ok(Some(rep.moved))
    }

    /// The sampler thread's tick: a sampling step when due (the revocation of the next window,
    /// when samples are wanted), and the policy's timer when its period has passed. Returns
    /// pages moved.
    ///
    /// # Errors
    /// A failed system call.
    pub(crate) fn tick(&mut self, parts: &mut Parts, recording: bool) -> Result<u64, RtError> {
        let t = Instant::now();
        if parts.sampling.drain_perf(parts.host.cfg.verbose) {
            parts.sampling.time_revoking.set(parts.sampling.time_revoking.get() + t.elapsed());
        }
        if parts.sampling.due() && parts.sampling.on && (self.counts() || recording) {
            parts.regions.sample_step(parts.sampling, parts.host.cfg.window_pages);
        }
        match self.timer {
            Some(period) if self.last_timer.elapsed() >= period => {
                self.last_timer = Instant::now();
                self.migrate(parts, "timer", recording)
            }
            _ => Ok(0),
        }
    }
}
