//! The timing model: unloaded latency, memory-level parallelism, and queueing at the memory
//! controllers. `docs/timing.md` derives it; this is the implementation.
//!
//! A line that thread `t` (on node `n`) fetches from node `h` costs
//!
//! ```text
//!   cost[t][h] = k_t · ( (L[n][h] + W[h]) / m_t + z_t )
//! ```
//!
//! with `L` the unloaded latency, `W[h]` the mean queueing delay at node `h`'s memory controller,
//! `m_t` the thread's memory-level parallelism (`min(workload mlp, machine mlp)`), `z_t` its
//! CPU time per line, and `k_t` the number of threads time-sharing its CPU.
//!
//! Each controller is an M/M/1 server with service time `S[h] = line_size / bandwidth`:
//! `W[h] = S[h] · ρ[h] / (1 − ρ[h])`. Its utilisation `ρ[h] = S[h] · Σ_t v[t][h] / c_t` follows
//! from the threads' line rates `1 / c_t`, where `c_t = Σ_h v[t][h] · cost[t][h]` is thread `t`'s
//! mean time per line and `v[t][h]` the share of its lines that node `h` served in the last
//! quantum. Because `W` raises `c_t`, which lowers `ρ`, the system is closed: at every quantum
//! boundary [`Timing::solve`] finds, node by node (one Gauss–Seidel sweep, warm-started from the
//! previous solution), the unique `W[h]` with `W = S ρ(W) / (1 − ρ(W))`. The root is unique
//! because the right-hand side falls as `W` grows. A node that every thread hammers therefore
//! settles just below saturation with a large `W`, which is the contention seed 000 §2.1
//! describes for worst-case placement.
//!
//! In a multiprogrammed system (`crate::system`) each job has its own model; the other jobs'
//! line rates at each node join `ρ[h]` as a fixed background ([`Timing::set_background`]),
//! zero in a single-program run.

use numaplace_model::{Machine, Ps};

/// Tolerance of the fixed point, as a fraction of the service time (0.16 ns on origin2000:
/// far below any latency in the model).
const TOLERANCE: f64 = 1e-3;

/// The largest cost of one line, ps: 2^40 ps, 1.1 s. A bounded machine's unloaded line costs at
/// most 1 ms (`model::topology::bounds`); only queueing of tens of thousands of threads at one
/// 1 MB/s controller comes near the cap. With at most 65535 lines a record, one record adds at
/// most 2^56 ps to a clock, which keeps every clock far below `u64::MAX` under
/// `model::MAX_TIME_PS` (2^62).
pub const MAX_LINE_PS: Ps = 1 << 40;

/// State of the contention model for one run.
#[derive(Clone, Debug)]
pub struct Timing {
    nn: usize,
    nt: usize,
    machine_mlp: f64,
    service_ps: Vec<f64>,
    /// Unloaded latency from each thread's node, `[t * nn + h]`, ps.
    lat_ps: Vec<f64>,
    /// Threads sharing each thread's CPU.
    share: Vec<f64>,
    /// Current queueing delay per node, ps.
    wait_ps: Vec<f64>,
    /// Share of each thread's lines served by each node, `[t * nn + h]`.
    mix: Vec<f64>,
    inv_mlp: Vec<f64>,
    think_ps: Vec<f64>,
    active: Vec<bool>,
    /// Scratch: each thread's mean time per line at the current `wait_ps`.
    per_line: Vec<f64>,
    /// Lines per ps each node serves to others than these threads (other jobs of a
    /// multiprogrammed system, [`Timing::set_background`]); zero in a single-program run.
    background: Vec<f64>,
}

impl Timing {
    /// A model for threads on `thread_nodes` (with `share[t]` threads per CPU), no queueing yet.
    pub fn new(machine: &Machine, thread_nodes: &[usize], share: &[u32]) -> Self {
        let nn = machine.nodes();
        let nt = thread_nodes.len();
        let mut lat_ps = Vec::with_capacity(nt * nn);
        for &n in thread_nodes {
            lat_ps.extend(machine.latency_ps[n * nn..(n + 1) * nn].iter().map(|&l| l as f64));
        }
        Timing {
            nn,
            nt,
            machine_mlp: machine.raw.mlp,
            service_ps: machine.service_ps.clone(),
            lat_ps,
            share: share.iter().map(|&s| s as f64).collect(),
            wait_ps: vec![0.0; nn],
            mix: vec![0.0; nt * nn],
            inv_mlp: vec![1.0; nt],
            think_ps: vec![0.0; nt],
            active: vec![false; nt],
            per_line: vec![0.0; nt],
            background: vec![0.0; nn],
        }
    }

    /// Sets the line rate (lines per ps) each node serves to threads outside this model: the
    /// other jobs of a multiprogrammed system, whose traffic queues at the same controllers.
    /// Their load alone is kept below 0.95 of a node's capacity, so that this model's threads
    /// still find a fixed point.
    pub fn set_background(&mut self, lines_per_ps: &[f64]) {
        for ((b, &r), &s) in self.background.iter_mut().zip(lines_per_ps).zip(&self.service_ps) {
            *b = if s > 0.0 { r.max(0.0).min(0.95 / s) } else { 0.0 };
        }
    }

    /// The background line rates ([`Timing::set_background`]).
    pub fn background(&self) -> &[f64] {
        &self.background
    }

    /// Sets a thread's parameters for the coming epoch. An inactive thread issues nothing.
    pub fn set_thread(&mut self, t: usize, mlp: f64, think_ns: f64, active: bool) {
        self.inv_mlp[t] = 1.0 / mlp.min(self.machine_mlp).max(1.0);
        self.think_ps[t] = think_ns * 1000.0;
        self.active[t] = active;
    }

    /// Marks a thread finished for the rest of the epoch.
    pub fn retire(&mut self, t: usize) {
        self.active[t] = false;
    }

    /// Records the lines thread `t` fetched from each node in the last quantum; the shares
    /// become its mix. A thread that fetched nothing keeps its previous mix.
    pub fn observe(&mut self, t: usize, lines: &[u64]) {
        let total: u64 = lines.iter().sum();
        if total > 0 {
            for (m, &l) in self.mix[t * self.nn..(t + 1) * self.nn].iter_mut().zip(lines) {
                *m = l as f64 / total as f64;
            }
        }
    }

    /// Current queueing delay per node, ps.
    pub fn wait_ps(&self) -> &[f64] {
        &self.wait_ps
    }

    /// Time per line of thread `t` served by node `h`, ps (before rounding).
    #[inline]
    fn line_cost(&self, t: usize, h: usize) -> f64 {
        self.share[t] * ((self.lat_ps[t * self.nn + h] + self.wait_ps[h]) * self.inv_mlp[t] + self.think_ps[t])
    }

    /// Fills `out[t * nn + h]` with the integer cost in ps of one line.
    pub fn cost_table(&self, out: &mut [Ps]) {
        for t in 0..self.nt {
            for h in 0..self.nn {
                // Costs are positive: adding one half and truncating rounds to nearest. A cost
                // is capped at MAX_LINE_PS so that one record (at most 65535 lines) adds at
                // most 2^56 ps to a clock; the float-to-integer cast saturates as well.
                out[t * self.nn + h] = (self.line_cost(t, h) + 0.5).min(MAX_LINE_PS as f64) as Ps;
            }
        }
    }

    /// Re-solves the queueing delays for the current mixes (one Gauss–Seidel sweep).
    pub fn solve(&mut self) {
        for t in 0..self.nt {
            self.per_line[t] =
                if self.active[t] { (0..self.nn).map(|h| self.mix[t * self.nn + h] * self.line_cost(t, h)).sum() } else { 0.0 };
        }
        for h in 0..self.nn {
            let w = self.solve_node(h);
            let dw = w - self.wait_ps[h];
            if dw != 0.0 {
                for t in 0..self.nt {
                    if self.active[t] {
                        self.per_line[t] += self.share[t] * self.mix[t * self.nn + h] * self.inv_mlp[t] * dw;
                    }
                }
                self.wait_ps[h] = w;
            }
        }
    }

    /// Utilisation of node `h` if its queueing delay were `w` (other nodes fixed), and its
    /// derivative with respect to `w`.
    fn rho(&self, h: usize, w: f64) -> (f64, f64) {
        let dw = w - self.wait_ps[h];
        let (mut rate, mut slope) = (0.0, 0.0);
        for t in 0..self.nt {
            let v = self.mix[t * self.nn + h];
            if self.active[t] && v > 0.0 {
                let b = self.share[t] * v * self.inv_mlp[t];
                let inv_c = 1.0 / (self.per_line[t] + b * dw);
                rate += v * inv_c;
                slope -= v * b * inv_c * inv_c;
            }
        }
        ((rate + self.background[h]) * self.service_ps[h], slope * self.service_ps[h])
    }

    /// `F(w) = w − S ρ(w) / (1 − ρ(w))` and `F'(w)`. `F` increases with `w`; it is `−∞` where
    /// the node would be saturated (`ρ ≥ 1`).
    fn excess(&self, h: usize, w: f64) -> (f64, f64) {
        let (rho, drho) = self.rho(h, w);
        if rho >= 1.0 {
            return (f64::NEG_INFINITY, 0.0);
        }
        let s = self.service_ps[h];
        let q = 1.0 - rho;
        (w - s * rho / q, 1.0 - s * drho / (q * q))
    }

    /// The root of `F` for node `h`: Newton's method from the previous value (usually one or
    /// two evaluations, as the mix changes little between quanta), kept inside a bracket and
    /// falling back to bisection when a step leaves it.
    fn solve_node(&self, h: usize) -> f64 {
        let s = self.service_ps[h];
        let demand = (0..self.nt).any(|t| self.active[t] && self.mix[t * self.nn + h] > 0.0);
        if s == 0.0 || !demand {
            return 0.0;
        }
        let tol = TOLERANCE * s;
        // F(0) ≤ 0 always; `hi` is infinite until a point with F > 0 is seen.
        let (mut lo, mut hi) = (0.0f64, f64::INFINITY);
        let mut w = self.wait_ps[h];
        for _ in 0..100 {
            let (f, df) = self.excess(h, w);
            if f.abs() <= tol {
                return w;
            }
            if f < 0.0 {
                lo = lo.max(w);
            } else {
                hi = hi.min(w);
            }
            if hi - lo <= tol {
                break;
            }
            let newton = if f.is_finite() && df > 0.0 { w - f / df } else { f64::NAN };
            w = if newton > lo && newton < hi {
                newton
            } else if hi.is_finite() {
                0.5 * (lo + hi)
            } else {
                // Saturated or no useful step yet: grow until F turns positive.
                (2.0 * lo).max(s)
            };
        }
        if hi.is_finite() {
            0.5 * (lo + hi)
        } else {
            lo
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::preset;

    fn one_node(latency: f64, bandwidth: f64) -> Machine {
        let t = format!(
            "name = \"one\"\npage_size = 4096\nline_size = 64\nmlp = 1.0\nlatency_ns = [[{latency}]]\n\
             [[nodes]]\ncpus = 16\nmemory_mib = 64\nbandwidth_gbps = {bandwidth}\n\
             [migration]\nfixed_ns = 0.0\ncopy_gbps = 1.0\ntlb_shootdown_ns_per_cpu = 0.0\n"
        );
        Machine::from_toml_str(&t, "one").unwrap()
    }

    #[test]
    fn one_thread_matches_the_hand_solution() {
        // L = 100 ns, S = 64 B / 1.28 GB/s = 50 ns, m = 1, z = 0:
        // W = 50 ρ / (1 − ρ), ρ = 50 / (100 + W)  ⇒  W² + 50 W − 2500 = 0  ⇒  W = 25 (√5 − 1).
        let m = one_node(100.0, 1.28);
        let mut tm = Timing::new(&m, &[0], &[1]);
        tm.set_thread(0, 1.0, 0.0, true);
        tm.observe(0, &[10]);
        tm.solve();
        let expect = 25.0 * (5f64.sqrt() - 1.0) * 1000.0;
        assert!((tm.wait_ps()[0] - expect).abs() < 1.0, "{} vs {expect}", tm.wait_ps()[0]);
    }

    #[test]
    fn saturated_node_settles_below_capacity() {
        // 16 threads with 10 ns latency against a 50 ns server: ρ = 800 / (10 + W) and
        // W = 50 ρ / (1 − ρ) give W² − 790 W − 40000 = 0, so W = (790 + √784100) / 2 ns and
        // throughput approaches but stays below the service rate.
        let m = one_node(10.0, 1.28);
        let mut tm = Timing::new(&m, &[0; 16], &[1; 16]);
        for t in 0..16 {
            tm.set_thread(t, 1.0, 0.0, true);
            tm.observe(t, &[1]);
        }
        tm.solve();
        let expect = (790.0 + 784_100f64.sqrt()) / 2.0 * 1000.0;
        assert!((tm.wait_ps()[0] - expect).abs() < 1.0, "{} vs {expect}", tm.wait_ps()[0]);
        let rho = 16.0 * 50_000.0 / (10_000.0 + tm.wait_ps()[0]);
        assert!(rho < 1.0 && rho > 0.9, "ρ = {rho}");
    }

    #[test]
    fn background_traffic_queues_at_the_same_controller() {
        // The one-thread case above plus other programs' 0.01 lines/ns at the node: with
        // S = 50 ns they load it by ρ_b = 0.5, so W = 50 ρ / (1 − ρ) with ρ = 50 / (100 + W) + 0.5,
        // i.e. W² − 50 W − 10000 = 0 (W = 25 (1 + √17) ns, four times the 30.9 ns alone).
        let m = one_node(100.0, 1.28);
        let mut tm = Timing::new(&m, &[0], &[1]);
        tm.set_thread(0, 1.0, 0.0, true);
        tm.observe(0, &[10]);
        tm.set_background(&[0.01 / 1000.0]);
        tm.solve();
        let expect = 25.0 * (1.0 + 17f64.sqrt()) * 1000.0;
        assert!((tm.wait_ps()[0] - expect).abs() < 50.0, "{} vs {expect}", tm.wait_ps()[0]);
        // Background alone never saturates the node: it is capped below its capacity.
        tm.set_background(&[1.0]);
        assert!(tm.background()[0] * 50_000.0 <= 0.95 + 1e-12);
    }

    #[test]
    fn idle_machine_has_no_queueing() {
        let m = preset("origin2000").unwrap();
        let mut tm = Timing::new(&m, &[0, 1], &[1, 1]);
        tm.solve();
        assert!(tm.wait_ps().iter().all(|&w| w == 0.0));
    }
}
