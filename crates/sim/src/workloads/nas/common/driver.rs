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
}

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
}

/// Lines a kernel fetches in each epoch of one timed iteration.
fn lines_per_epoch<K: Kernel>(kernel: &K, threads: usize) -> Vec<u64> {
    let mut work = ThreadWork::default();
    (0..kernel.epochs_per_iteration())
        .map(|e| {
            let mut lines = 0u64;
            for t in 0..threads {
                work.txns.clear();
                kernel.fill(e, t, &mut work);
                lines += work.txns.iter().map(|x| x.count as u64).sum::<u64>();
            }
            lines
        })
        .collect()
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
    let iterations = if r.is_auto("iterations") { official } else { r.uint("iterations") };
    if iterations >= u32::MAX as u64 {
        return Err(ModelError::Spec(format!("workload '{name}': iterations={iterations}: expected at most {}", u32::MAX - 1)));
    }
    let lines = lines_per_epoch(&kernel, ctx.threads);
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
            self.kernel.fill(e, t, work);
        }
        self.next = if e + 1 == per { (it + 1, 0) } else { (it, e + 1) };
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
