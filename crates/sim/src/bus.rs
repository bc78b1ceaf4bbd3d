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

    /// The first record that ends after `t`, searched from record `hint` on by doubling steps
    /// then bisecting (a few steps when `t` is a few records on); from the first record when
    /// the hint is past it.
    #[inline]
    fn after(&self, t: Ps, hint: usize) -> usize {
        let n = self.ends.len();
        let mut lo = if hint > 0 && hint <= n && self.ends[hint - 1] <= t { hint } else { 0 };
        let mut step = 1;
        let hi = loop {
            let probe = lo + step - 1;
            if probe >= n {
                break n;
            }
            if self.ends[probe] > t {
                break probe;
            }
            lo = probe + 1;
            step *= 2;
        };
        lo + self.ends[lo..hi].partition_point(|&e| e <= t)
    }

    /// Lines issued at or before `t`, and the first record ending after it (searched from
    /// record `hint`, [`BusLog::after`]).
    #[inline]
    fn upto(&self, t: Ps, hint: usize) -> (u64, usize) {
        let r = self.after(t, hint);
        let done = if r == 0 { 0 } else { self.cum[r - 1] };
        if r == self.ends.len() || t <= self.starts[r] {
            return (done, r);
        }
        let (s, e, c) = (self.starts[r], self.ends[r], self.cum[r] - done);
        // t < e here, so fewer than c lines of the record.
        (done + mul_div(t - s, c, e - s, false), r)
    }

    /// The record holding the thread's `line`-th line (0-based) in the quantum, searched from
    /// record `from` on (a record at or before it).
    #[inline]
    fn record_of(&self, line: u64, from: usize) -> usize {
        let mut r = from;
        while r < self.cum.len() && self.cum[r] <= line {
            r += 1;
        }
        r
    }

    /// The thread's line `j`: its time (`Ps::MAX` past the last) and record, searched from
    /// record `from` on. Line i of a record is issued at s + ceil((i + 1)(e − s) / c), the
    /// instant [`BusLog::upto`] first counts it.
    #[inline]
    fn line(&self, j: u64, from: usize) -> Line {
        if j >= self.total() {
            return Line { j, at: Ps::MAX, record: from };
        }
        let r = self.record_of(j, from);
        let before = if r == 0 { 0 } else { self.cum[r - 1] };
        let (s, e, c) = (self.starts[r], self.ends[r], self.cum[r] - before);
        Line { j, at: s + mul_div(j - before + 1, e - s, c, true), record: r }
    }
}

/// A thread's next line on the bus: its number in the thread's quantum, its time and record.
#[derive(Clone, Copy, Debug)]
struct Line {
    j: u64,
    at: Ps,
    record: usize,
}

/// A place in the quantum's bus stream: every thread's next line, and the lines before them.
struct Cursor {
    next: Vec<Line>,
    at: u64,
}

impl Cursor {
    /// Past the lines issued at or before `t` (before every line with `None`), each thread's
    /// search starting at `hints` (records at or before the answer, or ignored).
    fn after(logs: &[BusLog], t: Option<Ps>, hints: &[usize]) -> Cursor {
        let next: Vec<Line> = logs
            .iter()
            .zip(hints)
            .map(|(log, &hint)| match t {
                None => log.line(0, 0),
                Some(t) => {
                    let (j, r) = log.upto(t, hint);
                    log.line(j, r)
                }
            })
            .collect();
        let at = next.iter().map(|l| l.j).sum();
        Cursor { next, at }
    }

    /// The stream's next line, as (thread, page, time), and the cursor moved past it: the
    /// earliest of the threads' next lines, the lower thread on a tie. `None` at the end.
    #[inline]
    fn advance(&mut self, logs: &[BusLog]) -> Option<(usize, u32, Ps)> {
        let (t, l) = self.next.iter().enumerate().min_by_key(|&(t, l)| (l.at, t)).map(|(t, &l)| (t, l))?;
        if l.at == Ps::MAX {
            return None;
        }
        self.next[t] = logs[t].line(l.j + 1, l.record);
        self.at += 1;
        Some((t, logs[t].pages[l.record], l.at))
    }

    fn records(&self) -> Vec<usize> {
        self.next.iter().map(|l| l.record).collect()
    }
}

/// How far ahead (in lines of the stream) the next burst may be for the sampler to walk to it
/// line by line rather than search for it in time: a walk costs a comparison of every thread's
/// next line per line, a search step a count of every thread's lines.
const WALK: u64 = 32;

/// `x · c / d`, rounded down (or up with `ceil`), exactly: in 64 bits when the product fits,
/// which it does for any quantum this engine plays, else in 128.
#[inline]
fn mul_div(x: u64, c: u64, d: u64, ceil: bool) -> u64 {
    match x.checked_mul(c) {
        Some(p) if ceil => p.div_ceil(d),
        Some(p) => p / d,
        None if ceil => (x as u128 * c as u128).div_ceil(d as u128) as u64,
        None => (x as u128 * c as u128 / d as u128) as u64,
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
    /// A sampler taking `burst` consecutive lines every `spacing` lines of the stream. Bursts
    /// never overlap: the analyser starts its next sample once the FIFO's burst has been
    /// recorded, so the spacing is at least the burst.
    pub fn new(burst: u32, spacing: f64, threads: usize) -> Self {
        let burst = burst.max(1) as u64;
        let spacing = spacing.max(burst as f64);
        Bus { burst, spacing, next: spacing, pending: 0, pos: 0, logs: vec![BusLog::default(); threads] }
    }

    /// Lines of all threads issued at or before `t`, each thread's search starting at its
    /// record in `hints`.
    fn upto(&self, t: Ps, hints: &[usize]) -> u64 {
        self.logs.iter().zip(hints).map(|(l, &h)| l.upto(t, h).0).sum()
    }

    /// A time `t0` (at or after `from`) by which at most `a` of the quantum's lines have been
    /// issued, fewer than [`WALK`] short of `a` where the times allow it. By `from` (`None`:
    /// before the quantum's first line, which `start` precedes) about `at` lines, at most `a`,
    /// were issued, and all `total` by `end`. Each step counts the lines at a time interpolated
    /// between the bounds known (the bus's rate is nearly steady over a few bursts), aiming
    /// [`WALK`]/2 lines short of `a`; a step that leaves more than half the bracket is followed
    /// by a bisection, so the search never takes more than about twice the bisection's steps.
    fn time_before(&self, a: u64, from: (Option<Ps>, u64), start: Ps, end: (Ps, u64), hints: &[usize]) -> Option<Ps> {
        let ((mut lo, mut n_lo), (mut hi, mut n_hi)) = (from, end);
        let target = a.saturating_sub(WALK / 2) as f64;
        let mut bisect = false;
        loop {
            let base = lo.unwrap_or(start);
            if hi <= base.saturating_add(1) {
                return lo;
            }
            let width = hi - base;
            let mid = if bisect || n_hi <= n_lo {
                base + width / 2
            } else {
                let share = ((target - n_lo as f64) / (n_hi - n_lo) as f64).clamp(0.0, 1.0);
                (base + (share * width as f64) as Ps).clamp(base + 1, hi - 1)
            };
            let n = self.upto(mid, hints);
            if n > a {
                hi = mid;
                n_hi = n;
            } else {
                lo = Some(mid);
                n_lo = n;
                if a - n < WALK {
                    return lo;
                }
            }
            bisect = !bisect && hi - lo.unwrap_or(start) > width / 2;
        }
    }

    /// The quantum is over: the bursts that fall in its bus stream are counted into `samples`
    /// (each line a sample of its page from its thread's node, `node_of`), and into each
    /// thread's count of sampled lines, `sampled`; the logs are cleared.
    ///
    /// The stream is read with a [`Cursor`]: walked line by line to a burst [`WALK`] lines
    /// ahead or nearer, else placed by a search in time ([`Bus::time_before`]) and walked the
    /// rest of the way.
    pub fn quantum(&mut self, samples: &mut PageCounters, sampled: &mut [u64], node_of: &[usize]) {
        let total: u64 = self.logs.iter().map(BusLog::total).sum();
        if total == 0 {
            return;
        }
        let lo = self.logs.iter().filter_map(|l| l.starts.first()).copied().min().unwrap_or(0);
        let hi = self.logs.iter().filter_map(|l| l.ends.last()).copied().max().unwrap_or(0);
        let end = self.pos + total;
        let logs = &self.logs;
        let mut cursor = Cursor::after(logs, None, &vec![0; logs.len()]);
        // No line of the stream after the cursor is issued at or before `from`.
        let mut from: Option<Ps> = None;
        let mut take = |a: u64, b: u64| {
            if a >= cursor.at + WALK {
                let hints = cursor.records();
                let t0 = self.time_before(a, (from, cursor.at), lo, (hi, total), &hints);
                if t0 > from {
                    cursor = Cursor::after(logs, t0, &hints);
                    from = t0;
                }
            }
            while cursor.at < b {
                let taking = cursor.at >= a;
                let Some((t, page, at)) = cursor.advance(logs) else { break };
                // Lines tied at `at` may follow; those before it are behind the cursor.
                from = from.max(at.checked_sub(1));
                if taking {
                    samples.add(page, node_of[t], 1);
                    sampled[t] += 1;
                }
            }
        };
        let (mut next, mut pending) = (self.next, self.pending);
        if pending > 0 {
            let n = pending.min(total);
            take(0, n);
            pending -= n;
        }
        loop {
            let first = next.floor() as u64;
            if first >= end {
                break;
            }
            let last = (first + self.burst).min(end);
            let at = first.max(self.pos);
            take(at - self.pos, last - self.pos);
            pending = first + self.burst - last;
            next += self.spacing;
        }
        self.next = next;
        self.pending = pending;
        self.pos = end;
        for l in &mut self.logs {
            l.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The bus stream written out line by line: every line of every thread with the time
    /// `BusLog` gives it (line i of a record at s + ceil((i + 1)(e − s) / c)), ordered by time,
    /// then thread; a burst of `burst` lines every `spacing` of the run's stream, cut by quanta
    /// and continued. The reference the sampler's search and walk must agree with.
    fn by_line(quanta: &[Vec<Vec<(Ps, Ps, u32, u64)>>], burst: u64, spacing: f64) -> Vec<(u32, usize)> {
        let mut stream = Vec::new();
        for q in quanta {
            let mut lines = Vec::new();
            for (t, records) in q.iter().enumerate() {
                for &(s, e, page, c) in records {
                    for i in 0..c {
                        lines.push((s + ((i + 1) as u128 * (e - s) as u128).div_ceil(c as u128) as Ps, t, page));
                    }
                }
            }
            lines.sort_by_key(|&(at, t, _)| (at, t));
            stream.extend(lines.into_iter().map(|(_, t, page)| (page, t)));
        }
        let mut out = Vec::new();
        let spacing = spacing.max(burst as f64);
        let mut next = spacing;
        while (next.floor() as usize) < stream.len() {
            let first = next.floor() as usize;
            out.extend_from_slice(&stream[first..(first + burst as usize).min(stream.len())]);
            next += spacing;
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn the_sampled_lines_are_those_of_the_stream_written_out_line_by_line(
            quanta in proptest::collection::vec(
                proptest::collection::vec(
                    // Per thread: records as (gap before, duration, page, lines); gaps and
                    // zero durations make ties and idle stretches.
                    proptest::collection::vec((0u64..3, 0u64..40, 0u32..16, 0u64..70), 0..30),
                    1..5,
                ),
                1..4,
            ),
            burst in 1u64..10,
            spacing in 1.0f64..300.0,
        ) {
            let threads = quanta.iter().map(Vec::len).max().unwrap_or(1);
            let mut bus = Bus::new(burst as u32, spacing, threads);
            let (mut clock, mut logged) = (vec![0; threads], Vec::new());
            let mut samples = PageCounters::new(16, threads, 16);
            let mut th = sampler(threads);
            for q in &quanta {
                let mut this = vec![Vec::new(); threads];
                for (t, records) in q.iter().enumerate() {
                    for &(gap, d, page, c) in records {
                        let s = clock[t] + gap;
                        clock[t] = s + d;
                        bus.logs[t].push(s, s + d, page, c);
                        this[t].push((s, s + d, page, c));
                    }
                }
                logged.push(this);
                bus.quantum(&mut samples, &mut th, &(0..threads).collect::<Vec<_>>());
            }
            let mut want = PageCounters::new(16, threads, 16);
            let mut want_th = sampler(threads);
            for (page, t) in by_line(&logged, burst, spacing) {
                want.add(page, t, 1);
                want_th[t] += 1;
            }
            prop_assert_eq!(&th, &want_th);
            for p in 0..16 {
                for t in 0..threads {
                    prop_assert_eq!(samples.get(p, t), want.get(p, t), "page {} thread {}", p, t);
                }
            }
        }
    }

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
