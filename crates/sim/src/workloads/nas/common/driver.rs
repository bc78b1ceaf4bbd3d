//! The lazy driver that plays a kernel: the initialisation epoch, then the timed iterations,
//! each epoch generated only when asked for, with the compute (`think_ns`) derived from the
//! kernel's official flop count.

use super::NS_PER_FLOP;
use crate::workload::{Epoch, Init, ThreadWork, Txn, Workload, WorkloadCtx};
use numaplace_model::spec::{Resolved, Value};
use numaplace_model::{ModelError, Region};

/// What a NAS kernel provides to the [`Driver`].
pub(crate) trait Kernel: Send {
    fn regions(&self) -> &[Region];
    /// Epochs in one timed iteration.
    fn epochs_per_iteration(&self) -> usize;
    /// The phase name of epoch `e` of an iteration.
    fn phase(&self, e: usize) -> &'static str;
    /// Thread `t`'s work in epoch `e` of an iteration (`work` was reset; `think_ns` is set).
    fn fill(&self, e: usize, t: usize, work: &mut ThreadWork);
    /// Thread `t` of `parts` first touching its data (`parts = 1`: thread 0 touches all).
    fn init(&self, t: usize, parts: usize, out: &mut Vec<Txn>);
    /// The benchmark's official floating-point operations per iteration (what NPB divides by
    /// time to report Mflop/s).
    fn flops_per_iteration(&self) -> f64;
    /// Each epoch's share of an iteration's flops, one per epoch summing to 1; empty (the
    /// default) spreads the compute evenly over the iteration's lines.
    fn flop_shares(&self) -> &[f64] {
        &[]
    }
    /// Whether `fill(e, t, ..)` gives the same records in every iteration: the driver then
    /// generates each (epoch, thread) once and replays it (see [`REPLAY_MAX_RECORDS`]). No by
    /// default: a kernel whose records change between iterations (IS's keys) keeps it so.
    fn same_every_iteration(&self) -> bool {
        false
    }
}

/// The most records (8 bytes each) a driver keeps to replay an iteration: 2 Mi, 16 MiB. A
/// generated iteration of a grid kernel is a few hundred thousand records at class A; a larger
/// one is generated each time, as before. (Generating the records was 13 % of a seed 002 system
/// run's time, 2026-11-28.)
pub(crate) const REPLAY_MAX_RECORDS: usize = 2 << 20;

/// Plays a kernel: the initialisation epoch chosen by `ctx.init`, then the timed iterations,
/// one epoch at a time.
pub(crate) struct Driver<K: Kernel> {
    kernel: K,
    iterations: u32,
    think_ns: f64,
    /// Each epoch's CPU time per line as a multiple of `think_ns` (all 1 without flop shares).
    phase_scale: Vec<f64>,
    threads: usize,
    init: Init,
    /// Next iteration (0: the initialisation epoch) and next epoch within it.
    next: (u32, usize),
    resolved: Resolved,
    /// One iteration's records per (epoch, thread), `e * threads + t`, replayed in every
    /// iteration (empty: each epoch is generated when asked for; [`Kernel::same_every_iteration`]).
    replay: Vec<Vec<Txn>>,
}

/// Lines a kernel fetches in each epoch of one timed iteration, and the iteration's records per
/// (epoch, thread) to replay (`e * threads + t`) when the kernel gives the same records in every
/// iteration and they number at most `max_records` (else none).
fn lines_per_epoch<K: Kernel>(kernel: &K, threads: usize, max_records: usize) -> (Vec<u64>, Vec<Vec<Txn>>) {
    let mut work = ThreadWork::default();
    let mut replay = Vec::new();
    let mut keep = kernel.same_every_iteration();
    let mut records = 0usize;
    let lines = (0..kernel.epochs_per_iteration())
        .map(|e| {
            let mut lines = 0u64;
            for t in 0..threads {
                work.txns.clear();
                kernel.fill(e, t, &mut work);
                lines += work.txns.iter().map(|x| x.count as u64).sum::<u64>();
                records += work.txns.len();
                keep &= records <= max_records;
                if keep {
                    replay.push(work.txns.clone());
                }
            }
            lines
        })
        .collect();
    if !keep {
        replay = Vec::new();
    }
    (lines, replay)
}

/// The default `think_ns` of a kernel: its official flops per iteration at [`NS_PER_FLOP`],
/// spread over the `lines` the model fetches per iteration; rounded to 0.1 ns.
fn auto_think_ns<K: Kernel>(kernel: &K, lines: u64) -> f64 {
    if lines == 0 {
        return 0.0;
    }
    (kernel.flops_per_iteration() * NS_PER_FLOP / lines as f64 * 10.0).round() / 10.0
}

/// Each epoch's CPU time per line relative to the iteration's mean: `share × lines per
/// iteration / lines of the epoch`, so an epoch's compute is its share of the iteration's
/// flops; all 1 when the kernel gives no shares.
fn phase_scale(shares: &[f64], lines: &[u64]) -> Vec<f64> {
    let total: u64 = lines.iter().sum();
    if shares.len() != lines.len() {
        return vec![1.0; lines.len()];
    }
    shares.iter().zip(lines).map(|(&s, &l)| if l == 0 { 0.0 } else { s * total as f64 / l as f64 }).collect()
}

/// Finishes building a kernel: resolves `iterations` (auto: `official`) and `think_ns` (auto:
/// [`auto_think_ns`]) and writes them back into the spec.
///
/// # Errors
/// An iteration count beyond 2^32 - 2.
pub(crate) fn finish<K: Kernel + 'static>(
    name: &str,
    r: &Resolved,
    ctx: &WorkloadCtx,
    kernel: K,
    official: u64,
) -> Result<Box<dyn Workload>, ModelError> {
    #[cfg(test)]
    let max_records = tests::MAX_RECORDS.with(|m| m.get());
    #[cfg(not(test))]
    let max_records = REPLAY_MAX_RECORDS;
    finish_replaying(name, r, ctx, kernel, official, max_records)
}

/// [`finish`], replaying an iteration of at most `max_records` records (0: none).
fn finish_replaying<K: Kernel + 'static>(
    name: &str,
    r: &Resolved,
    ctx: &WorkloadCtx,
    kernel: K,
    official: u64,
    max_records: usize,
) -> Result<Box<dyn Workload>, ModelError> {
    let iterations = if r.is_auto("iterations") { official } else { r.uint("iterations") };
    if iterations >= u32::MAX as u64 {
        return Err(ModelError::Spec(format!("workload '{name}': iterations={iterations}: expected at most {}", u32::MAX - 1)));
    }
    let (lines, replay) = lines_per_epoch(&kernel, ctx.threads, max_records);
    #[cfg(test)]
    tests::REPLAYED.with(|c| c.set(replay.len()));
    let think_ns = if r.is_auto("think_ns") { auto_think_ns(&kernel, lines.iter().sum()) } else { r.float("think_ns") };
    let phase_scale = phase_scale(kernel.flop_shares(), &lines);
    let mut resolved = r.clone();
    resolved.set("iterations", Value::UInt(iterations));
    resolved.set("think_ns", Value::Float(think_ns));
    Ok(Box::new(Driver {
        kernel,
        iterations: iterations as u32,
        think_ns,
        phase_scale,
        threads: ctx.threads,
        init: ctx.init,
        next: (if ctx.init == Init::None { 1 } else { 0 }, 0),
        resolved,
        replay,
    }))
}

impl<K: Kernel> Workload for Driver<K> {
    fn regions(&self) -> &[Region] {
        self.kernel.regions()
    }

    fn iterations(&self) -> u32 {
        self.iterations
    }

    fn resolved(&self) -> Option<&Resolved> {
        Some(&self.resolved)
    }

    fn next_epoch(&mut self, epoch: &mut Epoch) -> bool {
        let (it, e) = self.next;
        if it == 0 {
            // Initialisation: first touches only; its compute is not modelled (think 0).
            epoch.reset(self.threads, 0, "init");
            match self.init {
                Init::Sequential => self.kernel.init(0, 1, &mut epoch.threads[0].txns),
                _ => {
                    for (t, work) in epoch.threads.iter_mut().enumerate() {
                        self.kernel.init(t, self.threads, &mut work.txns);
                    }
                }
            }
            self.next = (1, 0);
            return true;
        }
        let per = self.kernel.epochs_per_iteration();
        if it > self.iterations || per == 0 {
            return false;
        }
        epoch.reset(self.threads, it, self.kernel.phase(e));
        for (t, work) in epoch.threads.iter_mut().enumerate() {
            work.think_ns = self.think_ns * self.phase_scale[e];
            match self.replay.get(e * self.threads + t) {
                Some(txns) => work.txns.extend_from_slice(txns),
                None => self.kernel.fill(e, t, work),
            }
        }
        self.next = if e + 1 == per { (it + 1, 0) } else { (it, e + 1) };
        true
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::workload::Epoch;
    use numaplace_model::Spec;
    use std::cell::Cell;

    thread_local! {
        /// [`finish`]'s replay bound in this test thread.
        pub(in crate::workloads::nas) static MAX_RECORDS: Cell<usize> = const { Cell::new(REPLAY_MAX_RECORDS) };
        /// The (epoch, thread) lists the last driver built in this test thread keeps to replay.
        pub(in crate::workloads::nas) static REPLAYED: Cell<usize> = const { Cell::new(0) };
    }

    /// Every epoch `spec` plays (the init epoch and each iteration's), with at most `max` records
    /// replayed, and whether the driver kept an iteration to replay.
    fn play(spec: &str, threads: usize, max: usize) -> (Vec<Epoch>, bool) {
        MAX_RECORDS.with(|m| m.set(max));
        let ctx = WorkloadCtx { threads, page_size: 4096, line_size: 64, seed: 7, init: Init::Parallel };
        let (mut w, _) = crate::workloads::build(&Spec::parse(spec).unwrap(), &ctx).unwrap();
        MAX_RECORDS.with(|m| m.set(REPLAY_MAX_RECORDS));
        let (mut out, mut e) = (Vec::new(), Epoch::default());
        while w.next_epoch(&mut e) {
            out.push(e.clone());
        }
        (out, REPLAYED.with(|r| r.get()) > 0)
    }

    #[test]
    fn a_replayed_iteration_is_the_generated_one() {
        // The grid kernels replay an iteration; IS (keys drawn anew) and CG never do. Replayed,
        // generated, and replayed up to a bound the iteration passes midway: the same epochs.
        for spec in ["nas-bt:class=S,iterations=3", "nas-sp:class=S,iterations=3", "nas-lu:class=S,iterations=3", "nas-mg:class=S,iterations=3", "nas-ft:class=S,iterations=3", "nas-is:class=S", "nas-cg:class=S,iterations=3"] {
            let (generated, kept) = play(spec, 3, 0);
            assert!(!kept, "{spec}");
            let records: usize = generated.iter().skip(1).map(|e| e.threads.iter().map(|t| t.txns.len()).sum::<usize>()).sum();
            assert!(generated.len() > 2 && records > 0, "{spec}");
            for max in [REPLAY_MAX_RECORDS, records / 7] {
                let (replayed, kept) = play(spec, 3, max);
                let grid = !spec.starts_with("nas-is") && !spec.starts_with("nas-cg");
                assert_eq!(kept, grid && max == REPLAY_MAX_RECORDS, "{spec} at {max}");
                assert_eq!(replayed.len(), generated.len(), "{spec} at {max}");
                for (i, (a, b)) in replayed.iter().zip(&generated).enumerate() {
                    assert_eq!((a.iteration, a.phase), (b.iteration, b.phase), "{spec} at {max}: epoch {i}");
                    for (ta, tb) in a.threads.iter().zip(&b.threads) {
                        assert!(ta.txns == tb.txns && ta.think_ns.to_bits() == tb.think_ns.to_bits() && ta.mlp.to_bits() == tb.mlp.to_bits(), "{spec} at {max}: epoch {i}");
                    }
                }
            }
        }
    }

    #[test]
    fn phase_scale_gives_each_phase_its_share_of_the_compute() {
        // Two phases of 30 and 10 lines, 25 % and 75 % of the flops: the mean per-line think is
        // scaled by 0.25 × 40 / 30 and 0.75 × 40 / 10, so the phases compute 10 and 30 lines'
        // worth of the mean.
        let s = phase_scale(&[0.25, 0.75], &[30, 10]);
        assert!((s[0] * 30.0 - 10.0).abs() < 1e-12 && (s[1] * 10.0 - 30.0).abs() < 1e-12, "{s:?}");
        // No shares, or shares that do not match the phases: the even spread.
        assert_eq!(phase_scale(&[], &[30, 10]), vec![1.0, 1.0]);
        assert_eq!(phase_scale(&[1.0], &[30, 10]), vec![1.0, 1.0]);
        // A phase without lines has nothing to carry its compute.
        assert_eq!(phase_scale(&[0.5, 0.5], &[0, 10])[0], 0.0);
    }
}
