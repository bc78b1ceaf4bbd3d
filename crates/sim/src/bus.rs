//! Seed 003's bus analyser (§2.2): one sampler over the machine's address bus (the engine's
//! sampled policies with `sampler=bus`).
//!
//! "The Sun Fire Link hardware monitor counts and samples the transactions on the address bus
//! of the Sun Fireplane interconnect" and "has an 8-deep FIFO that records a limited sequence
//! of consecutive interconnect address transactions" (§2.2). So the sampler sees one stream,
//! the transactions of every processor interleaved as they reach the bus, and a sample is a
//! burst of consecutive transactions of that stream, whoever issued them; Table 1's
//! "% sampled" (0.19 / 0.78 / 3.07 / 9.75 % at 1 in 4K / 1K / 256 / 64) is 8/N, except at 64,
//! where the software's polling limit caps it (the policy's `poll_gap`).
//!
//! **The bus order.** The engine plays threads one after another within a quantum, each up to
//! the quantum's end on its own clock. While a sampled policy runs, each thread logs its
//! records with the simulated times they started and ended ([`BusLog`]); a record's lines are
//! spread evenly over its time (line j of c at `start + (j+1)(end − start)/c`). At the quantum's
//! boundary the logs of all threads are merged in simulated time ([`Bus::quantum`]): the bus
//! stream is every thread's lines ordered by their times (ties: lower thread first). Bursts
//! are taken from that stream before the policy's timer sees the counts. Approximations: the
//! order is exact within a quantum; a thread's last record may end after the quantum's end,
//! and its lines are put in this quantum's stream, before any line of the next quantum; the
//! bandwidth guard's later correction of the clocks does not reorder lines already logged.

use numaplace_model::counters::PageCounters;
use numaplace_model::Ps;

/// One thread's records in the current quantum: start and end times, page, and the lines up
/// to and including each record.
#[derive(Clone, Debug, Default)]
pub struct BusLog {
    starts: Vec<Ps>,
    ends: Vec<Ps>,
    pages: Vec<u32>,
    cum: Vec<u64>,
}

impl BusLog {
    /// A record of `count` lines of `page`, issued over `(start, end]`.
    #[inline(always)]
    pub fn push(&mut self, start: Ps, end: Ps, page: u32, count: u64) {
        let before = self.cum.last().copied().unwrap_or(0);
        self.starts.push(start);
        self.ends.push(end);
        self.pages.push(page);
        self.cum.push(before + count);
    }

    fn total(&self) -> u64 {
        self.cum.last().copied().unwrap_or(0)
    }

    fn clear(&mut self) {
        self.starts.clear();
        self.ends.clear();
        self.pages.clear();
        self.cum.clear();
    }

    /// Lines issued at or before `t`.
    fn upto(&self, t: Ps) -> u64 {
        let r = self.ends.partition_point(|&e| e <= t);
        let done = if r == 0 { 0 } else { self.cum[r - 1] };
        if r == self.ends.len() || t <= self.starts[r] {
            return done;
        }
        let (s, e, c) = (self.starts[r], self.ends[r], self.cum[r] - done);
        // t < e here, so fewer than c lines of the record.
        done + ((t - s) as u128 * c as u128 / (e - s) as u128) as u64
    }

    /// The page of the thread's `line`-th line (0-based) in the quantum.
    fn page_of(&self, line: u64) -> u32 {
        self.pages[self.cum.partition_point(|&x| x <= line)]
    }
}

/// The bus sampler of a run: where the next burst starts on the bus, and the threads' logs.
#[derive(Clone, Debug)]
pub struct Bus {
    burst: u64,
    spacing: f64,
    /// Bus position (lines since the run began) of the next burst's first line.
    next: f64,
    /// Lines of a burst cut by the end of the last quantum, taken first in the next.
    pending: u64,
    /// Lines on the bus before the current quantum's.
    pos: u64,
    pub logs: Vec<BusLog>,
}

impl Bus {
    pub fn new(burst: u32, spacing: f64, threads: usize) -> Self {
        let spacing = spacing.max(1.0);
        Bus { burst: burst.max(1) as u64, spacing, next: spacing, pending: 0, pos: 0, logs: vec![BusLog::default(); threads] }
    }

    /// Lines of all threads issued at or before `t`.
    fn upto(&self, t: Ps) -> u64 {
        self.logs.iter().map(|l| l.upto(t)).sum()
    }

    /// The earliest time by which `k` lines of the quantum have been issued (`k` ≥ 1, and no
    /// more than the quantum's lines), searched from `lo` (a time before it) by doubling steps of
    /// `step` ps, then bisecting.
    fn time_of(&self, k: u64, lo: Ps, hi: Ps, step: Ps) -> Ps {
        let (mut lo, mut hi, mut step) = (lo, hi, step.max(1));
        // Galloping: bursts come in order, each a little after the last.
        loop {
            let probe = lo.saturating_add(step).min(hi);
            if probe >= hi || self.upto(probe) >= k {
                hi = probe;
                break;
            }
            lo = probe + 1;
            step = step.saturating_mul(2);
        }
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.upto(mid) >= k {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }

    /// The quantum's lines `[a, b)` of the bus stream, as `(thread, thread's line)`, and the
    /// time of line `a` (the next search starts there). Lines are ordered by time, then thread.
    fn lines(&self, a: u64, b: u64, lo: Ps, hi: Ps, step: Ps) -> (Vec<(usize, u64)>, Ps) {
        let ta = self.time_of(a + 1, lo, hi, step);
        // Each thread's first line at or after ta, and its time.
        let time = |log: &BusLog, j: u64| -> Ps {
            if j >= log.total() {
                return Ps::MAX;
            }
            let r = log.cum.partition_point(|&x| x <= j);
            let before = if r == 0 { 0 } else { log.cum[r - 1] };
            let (s, e, c) = (log.starts[r], log.ends[r], log.cum[r] - before);
            // Line i of the record is issued at s + ceil((i + 1)(e − s) / c) (see `upto`).
            s + (((j - before + 1) as u128 * (e - s) as u128).div_ceil(c as u128)) as Ps
        };
        let mut next: Vec<(u64, Ps)> = self
            .logs
            .iter()
            .map(|log| {
                let j = ta.checked_sub(1).map_or(0, |t| log.upto(t));
                (j, time(log, j))
            })
            .collect();
        // Lines at ta that precede line a (ties), then the burst.
        let mut skip = a - next.iter().map(|&(j, _)| j).sum::<u64>();
        let mut out = Vec::with_capacity((b - a) as usize);
        while (out.len() as u64) < b - a {
            let (t, &(j, at)) = next.iter().enumerate().min_by_key(|&(t, &(_, at))| (at, t)).expect("threads");
            if at == Ps::MAX {
                break;
            }
            if skip > 0 {
                skip -= 1;
            } else {
                out.push((t, j));
            }
            next[t] = (j + 1, time(&self.logs[t], j + 1));
        }
        (out, ta)
    }

    /// The quantum is over: the bursts that fall in its bus stream are counted into `samples`
    /// (each line a sample of its page from its thread's node, `node_of`), and into each
    /// thread's count of sampled lines, `sampled`; the logs are cleared.
    pub fn quantum(&mut self, samples: &mut PageCounters, sampled: &mut [u64], node_of: &[usize]) {
        let total: u64 = self.logs.iter().map(BusLog::total).sum();
        if total == 0 {
            return;
        }
        let lo = self.logs.iter().filter_map(|l| l.starts.first()).copied().min().unwrap_or(0);
        let hi = self.logs.iter().filter_map(|l| l.ends.last()).copied().max().unwrap_or(0);
        let end = self.pos + total;
        // The first step of a search: about the time the bus takes for a burst's spacing.
        let step = ((hi - lo) as f64 / total as f64 * self.spacing) as Ps;
        let mut from_t = lo;
        let mut take = |a: u64, b: u64, bus: &Bus| {
            let (lines, ta) = bus.lines(a, b, from_t, hi, step);
            from_t = ta;
            for (t, j) in lines {
                samples.add(bus.logs[t].page_of(j), node_of[t], 1);
                sampled[t] += 1;
            }
        };
        if self.pending > 0 {
            let n = self.pending.min(total);
            take(0, n, self);
            self.pending -= n;
        }
        loop {
            let first = self.next.floor() as u64;
            if first >= end {
                break;
            }
            let last = (first + self.burst).min(end);
            let from = first.max(self.pos);
            take(from - self.pos, last - self.pos, self);
            self.pending = first + self.burst - last;
            self.next += self.spacing;
        }
        self.pos = end;
        for l in &mut self.logs {
            l.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sampler(threads: usize) -> Vec<u64> {
        vec![0; threads]
    }

    #[test]
    fn a_sample_is_eight_consecutive_transactions_of_the_interleaved_bus_stream() {
        // Two threads, each issuing one line every 10 ps, offset by 5 ps: the bus order is
        // A0 B0 A1 B1 ...; thread 0 reads page 0..20 (one page per line), thread 1 pages 100..
        let mut bus = Bus::new(8, 16.0, 2);
        for j in 0..20u64 {
            bus.logs[0].push(j * 10, j * 10 + 10, j as u32, 1);
            bus.logs[1].push(j * 10 + 5, j * 10 + 15, 100 + j as u32, 1);
        }
        let mut samples = PageCounters::new(200, 2, 16);
        let mut th = sampler(2);
        bus.quantum(&mut samples, &mut th, &[0, 1]);
        // Bursts start at bus lines 16 and 32 (of 40): lines 16..24 and 32..40, alternating
        // threads: A8 B8 A9 B9 A10 B10 A11 B11, then A16 .. B19.
        let sampled = |p: u32, n: usize| samples.get(p, n);
        for j in (8..12).chain(16..20) {
            assert_eq!(sampled(j, 0), 1, "thread 0 line {j}");
            assert_eq!(sampled(100 + j, 1), 1, "thread 1 line {j}");
        }
        for j in (0..8).chain(12..16) {
            assert_eq!(sampled(j, 0) + sampled(100 + j, 1), 0, "line {j} not sampled");
        }
        assert_eq!((th[0], th[1]), (8, 8));
    }

    #[test]
    fn the_stream_follows_simulated_time_not_the_order_threads_are_played() {
        // Thread 1 issues its 8 lines before thread 0 issues any: a burst at the start of the
        // stream takes only thread 1's lines, though thread 0 was logged (played) first.
        let mut bus = Bus::new(8, 1.0, 2);
        bus.next = 0.0;
        bus.spacing = 1e9;
        bus.logs[0].push(1000, 1800, 7, 8);
        bus.logs[1].push(0, 800, 9, 8);
        let mut samples = PageCounters::new(10, 2, 16);
        let mut th = sampler(2);
        bus.quantum(&mut samples, &mut th, &[0, 1]);
        assert_eq!((samples.get(9, 1), samples.get(7, 0)), (8, 0));
    }

    #[test]
    fn a_burst_cut_by_the_quantum_continues_in_the_next() {
        let mut bus = Bus::new(8, 10.0, 1);
        bus.logs[0].push(0, 120, 1, 12);
        let mut samples = PageCounters::new(3, 1, 16);
        let mut th = sampler(1);
        bus.quantum(&mut samples, &mut th, &[0]);
        assert_eq!(samples.get(1, 0), 2, "lines 10 and 11 of the burst at 10");
        bus.logs[0].push(120, 220, 2, 10);
        bus.quantum(&mut samples, &mut th, &[0]);
        // The burst's other 6 lines (12..18), then the burst at 20: lines 20 and 21 of 22.
        assert_eq!(samples.get(2, 0), 8);
        assert_eq!(th[0], 10);
    }
}
