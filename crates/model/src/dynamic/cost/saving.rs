//! The benefit model of the gate: what a move saves over one window, from the machine's
//! latencies and its memory controllers' queueing (the M/M/1 model of docs/timing.md), and over
//! the rest of the run.

use crate::dynamic::View;
use crate::units::{NodeId, PageNo, Ps};

/// What one window showed of a page: per-node counts and what a count stands for.
#[derive(Clone, Copy, Debug)]
pub struct Evidence<'a> {
    /// Per-node counts over the window.
    pub counts: &'a [u16],
    /// Transactions one count stands for (1 for counters; the sampling interval for samples).
    pub scale: f64,
    /// Length of the window the counts cover, ps (at least 1).
    pub window: Ps,
}


/// Each memory controller's utilisation as the view's measured queueing implies it (the M/M/1
/// model: `ρ = W / (S + W)`); empty where the driver measures none.
pub fn utilisation_from_queue(view: &View<'_>) -> Vec<f64> {
    let s = &view.machine.service_ps;
    view.queue.iter().zip(s).map(|(&w, &s)| if s > 0.0 { w / (s + w) } else { 0.0 }).collect()
}

/// Each memory controller's utilisation over a window of `window` ps, from the lines the
/// counters say it served (each count standing for `scale` lines): `ρ = lines · S / window`,
/// capped below saturation.
pub fn utilisation_from_counts(view: &View<'_>, window: Ps, scale: f64) -> Vec<f64> {
    let m = view.machine;
    let nodes = m.nodes();
    let mut lines = vec![0.0; nodes];
    for (page, &home) in view.homes.iter().enumerate() {
        if (home as usize) < nodes {
            lines[home as usize] += view.counters.row(PageNo(page as u32)).iter().map(|&c| c as f64).sum::<f64>() * scale;
        }
    }
    lines.iter().zip(&m.service_ps).map(|(&l, &s)| (l * s / window.max(1) as f64).min(SATURATED)).collect()
}

/// A controller's queueing delay at utilisation `rho` with service time `service`, ps (the
/// M/M/1 model of docs/timing.md).
pub(super) fn queue_delay(service: f64, rho: f64) -> f64 {
    service * rho / (1.0 - rho)
}

/// The utilisation past which a controller counts as saturated.
pub(super) const SATURATED: f64 = 0.99;

/// What moving a page from `home` to `to` saves over one window of `window` ps whose per-node
/// counts are `counts` (each standing for `scale` transactions), ps; negative when the move
/// makes the page farther for its accessors or loads the target's memory controller more than
/// it relieves the home's.
///
/// With the controllers' utilisations `rho` (empty: latency only), the move's load is weighed
/// with the simulator's own M/M/1 model (docs/timing.md): a controller with service time `S`
/// at utilisation `ρ` delays each line `S ρ / (1 − ρ)` and serves `ρ / S` lines per ps; the
/// page's `λ` lines per ps leave the home's `ρ` and join the target's, and every other line a
/// controller serves pays or saves the change in its delay. A move that would saturate the
/// target saves nothing.
pub fn saving(view: &View<'_>, rho: &[f64], home: NodeId, to: NodeId, counts: impl IntoIterator<Item = f64>, scale: f64, window: Ps) -> f64 {
    weighted_saving(view, rho, home, to, counts, scale, window, Weights::ONE)
}

/// What a ps saved by each node's threads is worth to the run: 1 where the thread that saves
/// it is the one that waits for the move (a fault, an interrupt); less where every thread
/// waits (a barrier, a timer tick) and the wall clock follows the slowest
/// ([`super::critical`]).
#[derive(Clone, Copy, Debug)]
pub struct Weights<'a> {
    /// Per accessing node (empty: `uniform` for every node).
    pub per_node: &'a [f64],
    pub uniform: f64,
    /// The weight of the other lines a controller serves, whose delay the move changes.
    pub others: f64,
}

impl Weights<'_> {
    /// Every ps saved is a ps of the run.
    pub const ONE: Weights<'static> = Weights { per_node: &[], uniform: 1.0, others: 1.0 };

    fn of(&self, node: usize) -> f64 {
        self.per_node.get(node).copied().unwrap_or(self.uniform)
    }
}

/// [`saving`], each accessor's share weighted by what its time is worth to the run
/// (`weights`).
#[allow(clippy::too_many_arguments)]
pub fn weighted_saving(view: &View<'_>, rho: &[f64], home: NodeId, to: NodeId, counts: impl IntoIterator<Item = f64>, scale: f64, window: Ps, weights: Weights<'_>) -> f64 {
    let m = view.machine;
    let lines: Vec<f64> = counts.into_iter().map(|c| c * scale).collect();
    let total: f64 = lines.iter().sum();
    let window = window.max(1) as f64;
    let rate = total / window;
    // (delay before, delay after, change borne by the controller's other lines per window).
    let load = |node: NodeId, delta: f64| -> Option<(f64, f64, f64)> {
        let rho = *rho.get(node.index())?;
        let s = *m.service_ps.get(node.index())?;
        if s <= 0.0 {
            return None;
        }
        let after = (rho + delta * s).max(0.0);
        if after >= SATURATED {
            return Some((0.0, f64::INFINITY, f64::INFINITY));
        }
        let (w, w2) = (queue_delay(s, rho), queue_delay(s, after));
        let others = (rho / s * window - if delta < 0.0 { total } else { 0.0 }).max(0.0);
        Some((w, w2, others * (w2 - w)))
    };
    let (w_home, _, home_others) = load(home, -rate).unwrap_or((0.0, 0.0, 0.0));
    let (_, w_to, to_others) = load(to, rate).unwrap_or((0.0, 0.0, 0.0));
    if !w_to.is_finite() {
        return f64::NEG_INFINITY;
    }
    let mut saved = 0.0;
    for (n, &c) in lines.iter().enumerate() {
        if c == 0.0 {
            continue;
        }
        let from = NodeId(n as u8);
        saved += weights.of(n) * c * (m.latency(from, home) as f64 + w_home - m.latency(from, to) as f64 - w_to);
    }
    // The home's other lines wait less (`home_others` is negative), the target's more.
    saved -= weights.others * (home_others + to_others);
    saved / m.raw.mlp.max(1.0)
}

/// What moving a page from `home` to `to` is expected to save over the rest of the run, ps:
/// the window's saving times the windows the run is expected still to last (what the
/// program's declared iterations imply, `View::remaining`; else as many again as have
/// passed), at most `tenure` windows.
pub fn expected_benefit(view: &View<'_>, rho: &[f64], home: NodeId, to: NodeId, ev: Evidence<'_>, tenure: f64, weights: Weights<'_>) -> f64 {
    let saved = weighted_saving(view, rho, home, to, ev.counts.iter().map(|&c| c as f64), ev.scale, ev.window, weights);
    let left = view.remaining.unwrap_or_else(|| view.now.saturating_sub(view.started)) as f64;
    saved * (left / ev.window.max(1) as f64).min(tenure)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamic::fixture::Fixture;

    fn ev(counts: &[u16], window: Ps) -> Evidence<'_> {
        Evidence { counts, scale: 1.0, window }
    }

    #[test]
    fn queueing_at_the_home_counts_as_benefit_and_a_saturated_target_refuses() {
        let mut f = Fixture::new(1);
        let w = 1_000_000; // 1 µs windows
        f.now = 2 * w;
        let counts = [0u16, 10];
        let plain = expected_benefit(&f.view(), &[], NodeId(0), NodeId(1), ev(&counts, w), f64::INFINITY, Weights::ONE);
        // Node 0 (S = 10 ns) queues 40 ns: utilisation 0.8, 80 lines a µs; node 1 is idle.
        let queue = [40_000.0, 0.0];
        let mut v = f.view();
        v.queue = &queue;
        let loaded = expected_benefit(&v, &utilisation_from_queue(&v), NodeId(0), NodeId(1), ev(&counts, w), f64::INFINITY, Weights::ONE);
        assert!(loaded > plain + 10.0 * 40_000.0 * 2.0 / f.machine.raw.mlp, "the page's own lines stop queueing: {plain} {loaded}");
        // The other way round, onto the busy node: its 70 other lines a µs would wait longer,
        // and the move costs more than the latency it saves.
        f.homes = vec![1];
        let mut v = f.view();
        v.queue = &queue;
        let toward = [10u16, 0];
        assert!(expected_benefit(&v, &utilisation_from_queue(&v), NodeId(1), NodeId(0), ev(&toward, w), f64::INFINITY, Weights::ONE) < 0.0);
        // Enough lines to saturate it: never worth it.
        let flood = [0u16, 30];
        assert_eq!(saving(&v, &utilisation_from_queue(&v), NodeId(1), NodeId(0), flood.iter().map(|&c| c as f64), 1.0, w), f64::NEG_INFINITY);
    }
}
