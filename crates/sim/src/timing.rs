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

/// The set bits of `words` (bit `i` of word `c` is `64 c + i`), ascending.
fn set_bits(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(c, &word)| {
        std::iter::successors((word != 0).then_some(word), |&m| Some(m & (m - 1)).filter(|&m| m != 0)).map(move |m| c * 64 + m.trailing_zeros() as usize)
    })
}

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
    /// The nodes each thread's mix names (share above zero), ascending: what [`Timing::solve`]
    /// visits instead of every node of every thread.
    thread_nodes: Vec<Vec<u32>>,
    /// Scratch of [`Timing::solve`]: per node, the active threads that fetch from it (ascending,
    /// each with its share `v` and `b = share · v / mlp`), in compressed rows: node `h`'s are
    /// `node_start[h]..node_end[h]`, set for the nodes in play only.
    node_start: Vec<usize>,
    node_end: Vec<usize>,
    /// Scratch of the same: each node's count of threads, then the next free place in its row
    /// while they are filled; zero between sweeps.
    node_fill: Vec<usize>,
    /// Bit `h` (of word `h / 64`): node `h` has a queueing delay other than zero.
    waiting: Vec<u64>,
    /// Scratch of [`Timing::solve`], the same bits: the nodes in play in a sweep (some active
    /// thread fetches from it, or its delay is not zero yet). Only those are visited: every
    /// other node's delay is zero and stays zero, so the sweep is the one over every node, to
    /// the bit.
    in_play: Vec<u64>,
    node_thread: Vec<u32>,
    node_v: Vec<f64>,
    node_b: Vec<f64>,
    /// The cost of one line, `[t * nn + h]`, ps ([`Timing::refresh_costs`]); rows of inactive
    /// threads may be stale.
    cost_ps: Vec<Ps>,
    /// Whether a row of `cost_ps` must be recomputed (its thread's parameters changed, or a
    /// queueing delay changed while it was inactive), and the nodes whose queueing delay
    /// changed since the last refresh (their column must be).
    row_stale: Vec<bool>,
    stale_nodes: Vec<u32>,
    /// Whether anything [`Timing::solve`] reads besides the delays (a mix, a thread's
    /// parameters or activity, the background) changed since its last sweep, and whether that
    /// sweep left every delay as it found it. When neither, another sweep would too: it is
    /// skipped.
    inputs_changed: bool,
    settled: bool,
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
            thread_nodes: vec![Vec::new(); nt],
            node_start: vec![0; nn],
            node_end: vec![0; nn],
            node_fill: vec![0; nn],
            waiting: vec![0; nn.div_ceil(64)],
            in_play: vec![0; nn.div_ceil(64)],
            node_thread: Vec::new(),
            node_v: Vec::new(),
            node_b: Vec::new(),
            cost_ps: vec![0; nt * nn],
            row_stale: vec![true; nt],
            stale_nodes: Vec::new(),
            inputs_changed: true,
            settled: false,
        }
    }

    /// Sets the line rate (lines per ps) each node serves to threads outside this model: the
    /// other jobs of a multiprogrammed system, whose traffic queues at the same controllers.
    /// Their load alone is kept below 0.95 of a node's capacity, so that this model's threads
    /// still find a fixed point.
    pub fn set_background(&mut self, lines_per_ps: &[f64]) {
        for ((b, &r), &s) in self.background.iter_mut().zip(lines_per_ps).zip(&self.service_ps) {
            let new = if s > 0.0 { r.max(0.0).min(0.95 / s) } else { 0.0 };
            self.inputs_changed |= new.to_bits() != b.to_bits();
            *b = new;
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
        self.row_stale[t] = true;
        self.inputs_changed = true;
    }

    /// Marks a thread finished for the rest of the epoch.
    pub fn retire(&mut self, t: usize) {
        self.inputs_changed |= self.active[t];
        self.active[t] = false;
    }

    /// Records the lines thread `t` fetched from each node in the last quantum; the shares
    /// become its mix. A thread that fetched nothing keeps its previous mix.
    pub fn observe(&mut self, t: usize, lines: &[u64]) {
        let touched: Vec<u32> = (0..lines.len() as u32).filter(|&h| lines[h as usize] != 0).collect();
        self.observe_touched(t, lines, &touched, lines.iter().sum());
    }

    /// [`Timing::observe`] for a row whose non-zero entries are `touched` (ascending) and sum to
    /// `total`, without visiting the other nodes (the engine lists them as its threads play).
    pub fn observe_touched(&mut self, t: usize, lines: &[u64], touched: &[u32], total: u64) {
        if total == 0 {
            return;
        }
        let mix = &mut self.mix[t * self.nn..(t + 1) * self.nn];
        let nz = &mut self.thread_nodes[t];
        let share = |h: u32| lines[h as usize] as f64 / total as f64;
        // Unchanged when the same nodes get the same shares, to the bit.
        if nz.as_slice() == touched && touched.iter().all(|&h| mix[h as usize].to_bits() == share(h).to_bits()) {
            return;
        }
        for &h in nz.iter() {
            mix[h as usize] = 0.0;
        }
        nz.clear();
        for &h in touched {
            mix[h as usize] = share(h);
            nz.push(h);
        }
        self.inputs_changed = true;
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

    /// Recomputes the integer cost in ps of one line (`[t * nn + h]`) where it may have changed
    /// since the last call: the rows of threads whose parameters were set since, and in every
    /// other active thread's row the nodes whose queueing delay changed. An inactive thread's
    /// row is left stale until its thread is set again ([`Timing::set_thread`]): nothing reads
    /// it meanwhile.
    pub fn refresh_costs(&mut self) {
        let nn = self.nn;
        for t in 0..self.nt {
            if !self.active[t] {
                self.row_stale[t] |= !self.stale_nodes.is_empty();
            } else if self.row_stale[t] {
                for h in 0..nn {
                    self.cost_ps[t * nn + h] = self.cost(t, h);
                }
                self.row_stale[t] = false;
            } else {
                for &h in &self.stale_nodes {
                    self.cost_ps[t * nn + h as usize] = self.cost(t, h as usize);
                }
            }
        }
        self.stale_nodes.clear();
    }

    /// The integer cost in ps of one line of thread `t` from node `h`. Costs are positive:
    /// adding one half and truncating rounds to nearest. A cost is capped at MAX_LINE_PS so that
    /// one record (at most 65535 lines) adds at most 2^56 ps to a clock; the float-to-integer
    /// cast saturates as well.
    #[inline]
    fn cost(&self, t: usize, h: usize) -> Ps {
        (self.line_cost(t, h) + 0.5).min(MAX_LINE_PS as f64) as Ps
    }

    /// Thread `t`'s cost of one line from each node, ps, as of the last
    /// [`Timing::refresh_costs`] (current for every thread active then).
    #[inline]
    pub fn cost_row(&self, t: usize) -> &[Ps] {
        &self.cost_ps[t * self.nn..(t + 1) * self.nn]
    }

    /// Re-solves the queueing delays for the current mixes (one Gauss–Seidel sweep).
    ///
    /// Only the (thread, node) pairs with a share above zero are visited, and only the nodes in
    /// play (`in_play`): a zero share adds nothing to a thread's time per line nor to a node's
    /// utilisation, and a node no thread fetches from whose delay is zero keeps it, so the
    /// result is the one of the sweep over every pair and every node, to the bit.
    pub fn solve(&mut self) {
        if self.settled && !self.inputs_changed {
            return;
        }
        let nn = self.nn;
        // Each active thread's time per line, each node's count of threads, the nodes in play.
        self.in_play.copy_from_slice(&self.waiting);
        for t in 0..self.nt {
            self.per_line[t] = 0.0;
            if !self.active[t] {
                continue;
            }
            let mut sum = 0.0;
            for &h in &self.thread_nodes[t] {
                let h = h as usize;
                sum += self.mix[t * nn + h] * self.line_cost(t, h);
                self.node_fill[h] += 1;
                self.in_play[h / 64] |= 1 << (h % 64);
            }
            self.per_line[t] = sum;
        }
        // The nodes' rows, in ascending order of node.
        let mut pairs = 0;
        for h in set_bits(&self.in_play) {
            self.node_start[h] = pairs;
            pairs += self.node_fill[h];
            self.node_end[h] = pairs;
            self.node_fill[h] = self.node_start[h];
        }
        self.node_thread.resize(pairs, 0);
        self.node_v.resize(pairs, 0.0);
        self.node_b.resize(pairs, 0.0);
        for t in 0..self.nt {
            if !self.active[t] {
                continue;
            }
            for &h in &self.thread_nodes[t] {
                let h = h as usize;
                let v = self.mix[t * nn + h];
                let k = self.node_fill[h];
                self.node_fill[h] += 1;
                self.node_thread[k] = t as u32;
                self.node_v[k] = v;
                self.node_b[k] = self.share[t] * v * self.inv_mlp[t];
            }
        }
        // The sweep, in ascending order of node (each node's new delay feeds the next).
        let mut changed = false;
        for h in set_bits(&self.in_play) {
            self.node_fill[h] = 0;
            let w = self.solve_node(h);
            let dw = w - self.wait_ps[h];
            if dw != 0.0 {
                for k in self.node_start[h]..self.node_end[h] {
                    self.per_line[self.node_thread[k] as usize] += self.node_b[k] * dw;
                }
                self.wait_ps[h] = w;
                if w == 0.0 {
                    self.waiting[h / 64] &= !(1 << (h % 64));
                } else {
                    self.waiting[h / 64] |= 1 << (h % 64);
                }
                self.stale_nodes.push(h as u32);
                changed = true;
            }
        }
        self.settled = !changed;
        self.inputs_changed = false;
    }

    /// Utilisation of node `h` if its queueing delay were `w` (other nodes fixed), and its
    /// derivative with respect to `w`.
    fn rho(&self, h: usize, w: f64) -> (f64, f64) {
        let dw = w - self.wait_ps[h];
        let (mut rate, mut slope) = (0.0, 0.0);
        for k in self.node_start[h]..self.node_end[h] {
            let (v, b) = (self.node_v[k], self.node_b[k]);
            let inv_c = 1.0 / (self.per_line[self.node_thread[k] as usize] + b * dw);
            rate += v * inv_c;
            slope -= v * b * inv_c * inv_c;
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
        let demand = self.node_end[h] > self.node_start[h];
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

    /// The oracle: the sweep over every (thread, node) pair, as `solve`, `solve_node` and the
    /// cost table were before they visited only the pairs with a share above zero. Returns the
    /// delays after one sweep from `wait` and the cost table at them.
    fn dense_reference(tm: &Timing, wait: &[f64]) -> (Vec<f64>, Vec<Ps>) {
        let (nn, nt) = (tm.nn, tm.nt);
        let mut w = wait.to_vec();
        let cost = |w: &[f64], t: usize, h: usize| tm.share[t] * ((tm.lat_ps[t * nn + h] + w[h]) * tm.inv_mlp[t] + tm.think_ps[t]);
        let mut per_line: Vec<f64> =
            (0..nt).map(|t| if tm.active[t] { (0..nn).map(|h| tm.mix[t * nn + h] * cost(&w, t, h)).sum() } else { 0.0 }).collect();
        for h in 0..nn {
            let s = tm.service_ps[h];
            // F(x) = x − S ρ(x) / (1 − ρ(x)) and F'(x), every thread visited.
            let excess = |x: f64, per_line: &[f64]| {
                let (mut rate, mut slope) = (0.0, 0.0);
                for t in 0..nt {
                    let v = tm.mix[t * nn + h];
                    if tm.active[t] && v > 0.0 {
                        let b = tm.share[t] * v * tm.inv_mlp[t];
                        let inv_c = 1.0 / (per_line[t] + b * (x - w[h]));
                        rate += v * inv_c;
                        slope -= v * b * inv_c * inv_c;
                    }
                }
                let (rho, drho) = ((rate + tm.background[h]) * s, slope * s);
                if rho >= 1.0 {
                    return (f64::NEG_INFINITY, 0.0);
                }
                (x - s * rho / (1.0 - rho), 1.0 - s * drho / ((1.0 - rho) * (1.0 - rho)))
            };
            let demand = (0..nt).any(|t| tm.active[t] && tm.mix[t * nn + h] > 0.0);
            let root = if s == 0.0 || !demand {
                0.0
            } else {
                let tol = TOLERANCE * s;
                let (mut lo, mut hi, mut x) = (0.0f64, f64::INFINITY, w[h]);
                let mut found = None;
                for _ in 0..100 {
                    let (f, df) = excess(x, &per_line);
                    if f.abs() <= tol {
                        found = Some(x);
                        break;
                    }
                    if f < 0.0 {
                        lo = lo.max(x);
                    } else {
                        hi = hi.min(x);
                    }
                    if hi - lo <= tol {
                        break;
                    }
                    let newton = if f.is_finite() && df > 0.0 { x - f / df } else { f64::NAN };
                    x = if newton > lo && newton < hi {
                        newton
                    } else if hi.is_finite() {
                        0.5 * (lo + hi)
                    } else {
                        (2.0 * lo).max(s)
                    };
                }
                found.unwrap_or(if hi.is_finite() { 0.5 * (lo + hi) } else { lo })
            };
            let dw = root - w[h];
            if dw != 0.0 {
                for t in 0..nt {
                    if tm.active[t] {
                        per_line[t] += tm.share[t] * tm.mix[t * nn + h] * tm.inv_mlp[t] * dw;
                    }
                }
                w[h] = root;
            }
        }
        let costs = (0..nt * nn).map(|i| (cost(&w, i / nn, i % nn) + 0.5).min(MAX_LINE_PS as f64) as Ps).collect();
        (w, costs)
    }

    /// A machine of `n` nodes of two CPUs each, 100 ns plus 10 ns a hop along a line.
    fn line_of_nodes(n: usize) -> Machine {
        let rows: Vec<String> = (0..n).map(|i| format!("[{}]", (0..n).map(|j| format!("{}.0", 100 + 10 * i.abs_diff(j))).collect::<Vec<_>>().join(", "))).collect();
        let nodes = "[[nodes]]\ncpus = 2\nmemory_mib = 64\nbandwidth_gbps = 2.0\n".repeat(n);
        let t = format!(
            "name = \"line\"\npage_size = 4096\nline_size = 64\nmlp = 4.0\nlatency_ns = [{}]\n{nodes}\
             [migration]\nfixed_ns = 0.0\ncopy_gbps = 1.0\ntlb_shootdown_ns_per_cpu = 0.0\n",
            rows.join(", ")
        );
        Machine::from_toml_str(&t, "line").unwrap()
    }

    #[test]
    fn sparse_solve_and_costs_match_the_dense_sweep_to_the_bit() {
        sparse_matches_dense(&preset("origin2000").unwrap());
    }

    /// Past 64 nodes the nodes in play take two words of bits.
    #[test]
    fn sparse_solve_matches_the_dense_sweep_past_64_nodes() {
        sparse_matches_dense(&line_of_nodes(70));
    }

    fn sparse_matches_dense(m: &Machine) {
        let nn = m.nodes();
        let mut rng = numaplace_model::rng::SplitMix64::new(7);
        let threads: Vec<usize> = (0..12).map(|t| (t * 7) % nn).collect();
        let mut tm = Timing::new(m, &threads, &[1, 2, 1, 1, 3, 1, 1, 1, 2, 1, 1, 1]);
        let mut wait = vec![0.0; nn];
        let mut last: Vec<Vec<u64>> = Vec::new();
        let mut skipped = 0;
        for quantum in 0..200 {
            if quantum % 25 == 0 {
                for t in 0..threads.len() {
                    tm.set_thread(t, 1.0 + rng.below(8) as f64, rng.below(400) as f64, rng.below(5) > 0);
                }
            }
            // Some threads fetch nothing (keeping their mix), most from a few nodes; in runs of
            // quanta every thread fetches as before (the mixes unchanged: a settled sweep is
            // skipped, and must give what a sweep would).
            // In every other run of 50 quanta the threads fetch from the first two nodes only:
            // the others' delays must fall back to zero, and stay there.
            let narrow = quantum % 100 >= 50;
            if quantum % 10 < 6 {
                last = (0..threads.len())
                    .map(|_| (0..nn).map(|h| if (!narrow || h < 2) && rng.below(3) == 0 { rng.below(5000) } else { 0 }).collect())
                    .collect();
            }
            for (t, lines) in last.iter().enumerate() {
                tm.observe(t, lines);
            }
            if quantum % 7 == 3 {
                tm.retire(quantum % threads.len());
            }
            let (next, expect) = dense_reference(&tm, &wait);
            wait = next;
            skipped += usize::from(tm.settled && !tm.inputs_changed);
            tm.solve();
            tm.refresh_costs();
            assert_eq!(tm.wait_ps().iter().map(|w| w.to_bits()).collect::<Vec<_>>(), wait.iter().map(|w| w.to_bits()).collect::<Vec<_>>(), "quantum {quantum}");
            for t in (0..threads.len()).filter(|&t| tm.active[t]) {
                assert_eq!(tm.cost_row(t), &expect[t * nn..(t + 1) * nn], "quantum {quantum}, thread {t}");
            }
        }
        assert!(skipped >= 20, "the settled sweeps were skipped {skipped} times");
    }

    #[test]
    fn idle_machine_has_no_queueing() {
        let m = preset("origin2000").unwrap();
        let mut tm = Timing::new(&m, &[0, 1], &[1, 1]);
        tm.solve();
        assert!(tm.wait_ps().iter().all(|&w| w == 0.0));
    }
}
