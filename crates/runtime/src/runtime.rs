//! The process's [`Runtime`]: the parts it is made of, each typed and in its own module, and
//! the operations of the C API on them.
//!
//! * [`Host`] ([`crate::host`]): the kernel, the machine, the configuration, the clock;
//! * [`Regions`] ([`crate::regions`]): the managed regions and those freed;
//! * [`Sampling`] ([`crate::sampling`]): the sample source, the pace and sampling's own cost;
//! * [`Driver`] ([`crate::driver`]): the dynamic policy, its decisions and timer;
//! * [`Phases`] ([`crate::recrep`]): record-replay phases;
//! * [`Stats`] ([`crate::stats`]): the run's counters and epochs.
//!
//! An operation that needs several data parts borrows them together as [`Parts`]
//! ([`crate::parts`]). The C API ([`crate::capi`]) and the preload hooks ([`crate::preload`])
//! call into one process-wide [`Runtime`] behind a mutex; the fault handler never takes it.

use crate::config::Config;
use crate::driver::Driver;
use crate::error::RtError;
use crate::host::Host;
use crate::parts::Parts;
use crate::recrep::Phases;
use crate::regions::Regions;
use crate::sampling::Sampling;
use crate::stats::Stats;
use crate::sys::Sys;
use numaplace_model::stats::StatsFile;

/// The process's runtime: its parts.
pub struct Runtime {
    pub host: Host,
    pub regions: Regions,
    pub sampling: Sampling,
    pub driver: Driver,
    pub phases: Phases,
    pub stats: Stats,
}

impl Runtime {
    /// A runtime over `sys` with `cfg`. Does not install the fault handler (see
    /// [`crate::sampler`]).
    ///
    /// # Errors
    /// A bad placement or policy spec, an unsupported policy, or a topology the model refuses.
    pub fn new(sys: Box<dyn Sys>, cfg: Config) -> Result<Runtime, RtError> {
        let host = Host::new(sys, cfg)?;
        let driver = Driver::new(&host)?;
        Ok(Runtime { host, regions: Regions::default(), sampling: Sampling::new(), driver, phases: Phases::default(), stats: Stats::default() })
    }

    /// The data parts, borrowed together, beside the driver and the phases.
    fn split(&mut self) -> (Parts<'_>, &mut Driver, &mut Phases) {
        let Runtime { host, regions, sampling, driver, phases, stats } = self;
        (Parts { host, regions, sampling, stats }, driver, phases)
    }

    pub fn nodes(&self) -> usize {
        self.host.nodes()
    }

    pub fn page_size(&self) -> usize {
        self.host.page_size()
    }

    /// Whether sampling stays off on this host ([`Host::one_node_off`]).
    pub fn one_node_off(&self) -> bool {
        self.host.one_node_off()
    }

    /// Whether the current policy (or a phase being recorded) wants samples.
    pub fn wants_samples(&self) -> bool {
        self.driver.counts() || self.phases.recording()
    }

    /// Registers `[addr, addr+len)` (rounded inward to whole pages) as a hot region
    /// ([`Regions::register`]); revoked at once when sampling with hinting faults.
    ///
    /// # Errors
    /// A null or empty range, or too many regions.
    pub fn register(&mut self, addr: usize, len: usize, name: &str, owned: Option<usize>) -> Result<usize, RtError> {
        let revoke = self.sampling.on && self.wants_samples();
        self.regions.register(&self.host, &self.sampling, revoke, addr, len, name, owned)
    }

    /// Withdraws the managed region starting at or containing `addr`
    /// ([`Regions::unregister`]).
    pub fn unregister(&mut self, addr: usize) -> Option<Option<usize>> {
        self.regions.unregister(&self.host, &self.sampling, addr)
    }

    /// Withdraws every managed region overlapping `[addr, addr+len)`.
    pub fn forget_range(&mut self, addr: usize, len: usize) {
        self.regions.forget_range(&self.host, &self.sampling, addr, len)
    }

    /// Node of every page of `[addr, addr+len)` (`-errno` where not present).
    ///
    /// # Errors
    /// The query failed.
    pub fn where_(&self, addr: usize, len: usize) -> Result<Vec<i32>, RtError> {
        self.regions.where_(&self.host, &self.sampling, addr, len)
    }

    /// Places `[addr, addr+len)` by a model placement ([`crate::place::place`]).
    ///
    /// # Errors
    /// A bad spec or range, or a failed system call.
    pub fn place(&mut self, addr: usize, len: usize, spec: &str) -> Result<u64, RtError> {
        let want = self.wants_samples();
        crate::place::place(&mut self.split().0, want, addr, len, spec)
    }

    /// Revokes every managed page (a new sampling interval starts), or restores them all
    /// when nothing wants samples any more.
    pub fn rearm(&mut self) {
        let want = self.wants_samples();
        self.regions.rearm(&mut self.sampling, want);
    }

    /// Invokes the dynamic policy now ([`Driver::migrate`]). Returns pages moved.
    ///
    /// # Errors
    /// A failed system call.
    pub fn migrate(&mut self, kind: &'static str) -> Result<u64, RtError> {
        let (mut parts, driver, phases) = self.split();
        driver.migrate(&mut parts, kind, phases.recording())
    }

    /// The sampler thread's tick ([`Driver::tick`]). Returns pages moved.
    ///
    /// # Errors
    /// A failed system call.
    pub fn tick(&mut self) -> Result<u64, RtError> {
        let (mut parts, driver, phases) = self.split();
        driver.tick(&mut parts, phases.recording())
    }

    /// `record(phase)` ([`Phases::record`]).
    ///
    /// # Errors
    /// A third call, or a failed system call.
    pub fn record(&mut self, name: &str) -> Result<(), RtError> {
        let (mut parts, driver, phases) = self.split();
        driver.api_calls += 1;
        phases.record(&mut parts, driver.counts(), name)
    }

    /// `compare_counters` ([`Phases::compare`]).
    ///
    /// # Errors
    /// The phase was not recorded start and end.
    pub fn compare(&mut self, name: &str) -> Result<(), RtError> {
        let (mut parts, driver, phases) = self.split();
        driver.api_calls += 1;
        phases.compare(&mut parts, name)
    }

    /// `replay(phase)` ([`Phases::replay`]).
    ///
    /// # Errors
    /// Out of order, or a failed system call.
    pub fn replay(&mut self, name: &str) -> Result<u64, RtError> {
        let (mut parts, driver, phases) = self.split();
        driver.api_calls += 1;
        phases.replay(&mut parts, driver.counts(), name)
    }

    /// `undo()` ([`Phases::undo`]).
    ///
    /// # Errors
    /// A failed system call.
    pub fn undo(&mut self) -> Result<u64, RtError> {
        let (mut parts, driver, phases) = self.split();
        driver.api_calls += 1;
        phases.undo(&mut parts, driver.counts())
    }

    /// What to say at exit about a policy that did nothing ([`Driver::idle_policy_warning`]).
    pub fn idle_policy_warning(&self) -> Option<String> {
        let managed = !self.regions.list.is_empty() || !self.regions.retired.is_empty();
        self.driver.idle_policy_warning(&self.host.cfg.dynamic, managed)
    }

    /// The statistics, as the stats file holds them.
    pub fn stats_file(&self) -> StatsFile {
        crate::stats::stats_file(&self.host, &self.regions, &self.sampling, &self.stats, self.driver.report(&self.stats))
    }

    /// Writes the statistics to `path` ([`crate::stats::write`]).
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn stats_write(&self, path: &str) -> Result<(), RtError> {
        crate::stats::write(&self.stats_file(), path)
    }
}
