//! Whose time a batch saves: the wall-clock weight of a move made while every thread waits.
//!
//! A move made at a barrier or a timer tick stops every thread, so its cost is on the run's
//! critical path in full. What it saves is the time of the threads that access the page, and
//! the wall clock follows the slowest thread to the next barrier. The gate used to divide
//! every saving by the run's threads: right when every thread is as slow as the others (a
//! balanced program: moving one thread's pages is worth a thread's share of a batch that moves
//! everyone's), and 8× wrong on a program whose time is one node's (a serial section's
//! arrays, SPEC's apsi and hydro2d from first touch, whose other nodes wait at the barrier
//! whatever is moved for them).
//!
//! Each window's counts give each node's threads' memory time: `T[n] = Σ_pages c[n] ·
//! (lat(n, home) + W[home])` (the gate's own latency and M/M/1 queueing model). A ps saved by
//! node `n`'s accesses is worth `crit[n] / t[n]` of the run, where
//!
//! * `t[n]` is the threads on node `n`: the run's threads spread evenly over the nodes whose
//!   accesses the window counted (exact for the simulator's `spread` binding, and for
//!   `compact` when the nodes are full; the view does not say where each thread runs);
//! * `crit[n] = T[n] / Σ T` is how critical node `n`'s threads are: `1 / nodes` when every
//!   node is as slow (the balanced case: the old rule), near 1 when one node's time dominates.
//!   It is the gradient of the 2-norm standing in for the maximum over nodes: parameter-free,
//!   exact at both ends, and between them it under-credits the slowest node's moves and
//!   over-credits the others' by at most their share of the time.
//!
//! Every move let through shifts its accessors' time (`T[n]` loses what it saves), so the
//! window's later moves see the slowest node's time fall and the weights even out.
//!
//! The other lines a controller serves, whose delay the move changes, are weighted by the
//! mean weight of the window's lines.

use super::saving::{queue_delay, Weights, SATURATED};
use crate::dynamic::View;
use crate::units::{NodeId, PageNo};

/// One window's wall-clock weights ([`Critical::measure`]).
#[derive(Debug, Default)]
pub(super) struct Critical {
    /// Each node's accesses' time in the window, summed over its threads, ps.
    time: Vec<f64>,
    /// Each node's lines in the window.
    lines: Vec<f64>,
    /// Threads per node that accessed anything.
    per_node: f64,
    weight: Vec<f64>,
    others: f64,
}

/// A controller's queueing delay at utilisation `rho`, capped below saturation, ps.
fn delay(service: f64, rho: f64) -> f64 {
    queue_delay(service, rho.min(SATURATED))
}

impl Critical {
    /// The window's weights from its counts (each standing for `scale` lines) and the
    /// controllers' utilisations `rho`, for a run of `threads` threads.
    pub(super) fn measure(view: &View<'_>, rho: &[f64], scale: f64, threads: usize) -> Self {
        let m = view.machine;
        let nodes = m.nodes();
        let wait: Vec<f64> = (0..nodes).map(|h| delay(m.service_ps[h], rho.get(h).copied().unwrap_or(0.0))).collect();
        let (mut time, mut lines) = (vec![0.0; nodes], vec![0.0; nodes]);
        for (page, &home) in view.homes.iter().enumerate() {
            let h = home as usize;
            if h >= nodes {
                continue;
            }
            for (n, &c) in view.counters.row(PageNo(page as u32)).iter().enumerate() {
                if c > 0 {
                    let l = c as f64 * scale;
                    lines[n] += l;
                    time[n] += l * (m.latency(NodeId(n as u8), NodeId(home)) as f64 + wait[h]);
                }
            }
        }
        let active = lines.iter().filter(|&&l| l > 0.0).count().max(1);
        let mut c = Critical { time, lines, per_node: threads.max(1) as f64 / active as f64, weight: Vec::new(), others: 0.0 };
        c.reweigh();
        c
    }

    fn reweigh(&mut self) {
        let total: f64 = self.time.iter().map(|t| t.max(0.0)).sum();
        if total <= 0.0 {
            self.weight.clear();
            return;
        }
        self.weight = self.time.iter().map(|t| t.max(0.0) / total / self.per_node).collect();
        let lines: f64 = self.lines.iter().sum();
        self.others = self.lines.iter().zip(&self.weight).map(|(l, w)| l * w).sum::<f64>() / lines;
    }

    /// The weights in force, or `fallback` for every node where the window counted nothing.
    pub(super) fn weights(&self, fallback: f64) -> Weights<'_> {
        if self.weight.is_empty() {
            Weights { per_node: &[], uniform: fallback, others: fallback }
        } else {
            Weights { per_node: &self.weight, uniform: 0.0, others: self.others }
        }
    }

    /// A move of a page with `counts` (each `scale` lines) from `home` to `to` was let
    /// through, with the controllers at `rho` before it: its accessors' time changes by what
    /// it saves them.
    pub(super) fn moved(&mut self, view: &View<'_>, rho: &[f64], home: NodeId, to: NodeId, counts: &[u16], scale: f64) {
        if self.weight.is_empty() {
            return;
        }
        let m = view.machine;
        let wait = |n: NodeId| delay(m.service_ps[n.index()], rho.get(n.index()).copied().unwrap_or(0.0));
        for (n, &c) in counts.iter().enumerate() {
            if c > 0 && n < self.time.len() {
                let from = NodeId(n as u8);
                let change = m.latency(from, to) as f64 + wait(to) - m.latency(from, home) as f64 - wait(home);
                self.time[n] += c as f64 * scale * change;
            }
        }
        self.reweigh();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamic::fixture::Fixture;

    /// Page 0 at home on node 1, read 100 lines from node 0 (far); page 1 on node 1, read 100
    /// lines from node 1.
    fn one_far_one_near() -> Fixture {
        let mut f = Fixture::new(2);
        f.homes = vec![1, 1];
        f.counters.add(0, 0, 100);
        f.counters.add(1, 1, 100);
        f
    }

    #[test]
    fn one_slow_node_gets_the_weight_and_a_balanced_run_divides_by_its_threads() {
        let mut f = one_far_one_near();
        let c = Critical::measure(&f.view(), &[], 1.0, 4);
        let (far, near) = (f.machine.latency(NodeId(0), NodeId(1)) as f64, f.machine.latency(NodeId(1), NodeId(1)) as f64);
        let w = c.weights(0.25);
        // Two threads a node; node 0's share of the time is far / (far + near).
        assert!((w.per_node[0] - far / (far + near) / 2.0).abs() < 1e-12, "{w:?}");
        assert!((w.per_node[0] + w.per_node[1] - 0.5).abs() < 1e-12, "the weights of a thread's ps sum to 1 / threads-per-node");
        assert!(w.per_node[0] > w.per_node[1] && w.per_node[1] > 0.0);
        // Both pages local: a balanced run, each node's ps worth a quarter (1 / threads).
        f.homes = vec![0, 1];
        let c = Critical::measure(&f.view(), &[], 1.0, 4);
        assert_eq!(c.weights(0.25).per_node, &[0.25, 0.25]);
        // Nothing counted: the fallback.
        f.counters.reset_all();
        let c = Critical::measure(&f.view(), &[], 1.0, 4);
        assert_eq!((c.weights(0.25).uniform, c.weights(0.25).others), (0.25, 0.25));
    }

    #[test]
    fn a_move_that_speeds_the_slow_node_shifts_the_weight_away_from_it() {
        let f = one_far_one_near();
        let mut c = Critical::measure(&f.view(), &[], 1.0, 2);
        let before = c.weights(0.5).per_node[0];
        c.moved(&f.view(), &[], NodeId(1), NodeId(0), f.counters.row(PageNo(0)), 1.0);
        let after = c.weights(0.5).per_node.to_vec();
        assert!(after[0] < before && (after[0] - 0.5).abs() < 1e-12 && (after[1] - 0.5).abs() < 1e-12, "both local now: {after:?}");
    }
}
