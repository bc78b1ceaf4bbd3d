//! Measured payback: the gate's check of its moves against the clock (the baseline, probation,
//! and the withdrawal that moves pages back; [`super`]'s documentation, "Measured payback").

use super::Gate;
use crate::dynamic::{Action, View};
use crate::units::{NodeId, PageNo, Ps};

/// How much slower than the baseline's time per line the pages, or the run, may get before the
/// gate withdraws (measured payback). A choice: above the simulator's window-to-window
/// variation of a regular program's time per line (none) and of a timer window's (a few
/// tenths of a percent on the built-in kernels), below the 5 % the cost model is held to.
pub const PAYBACK_TOLERANCE: f64 = 0.02;

/// The gate's check of its moves against the clock (measured payback).
#[derive(Default)]
pub(super) struct Payback {
    /// Time (overhead excluded) and lines of the latest intervals before the gate's first move,
    /// oldest first: the last two, and more as long as they hold fewer lines than the first
    /// interval (the program's time per line just before the moves, not at its start, which
    /// may differ: a shrinking elimination's first step is slower per line than its later
    /// ones; two, so that windows that alternate between two kinds are compared as pairs).
    base: std::collections::VecDeque<(f64, f64)>,
    /// Lines of the first interval.
    first: f64,
    /// Time (overhead excluded) and lines of the windows since the first move, or since the
    /// last block of them was judged.
    after: (f64, f64),
    /// The policy's work left out of `after`'s time, and what the block's batch was expected
    /// to cost ([`Gate::judge`]): the batch is the investment the run repays line by line;
    /// everything else the policy spends (interrupts, scans) is taken to recur at the block's
    /// rate.
    after_overhead: f64,
    moves_cost: f64,
    /// `(now, done, overhead)` at the previous fold.
    mark: Option<(Ps, u64, Ps)>,
    /// Overhead not yet left out: it exceeded the interval it was charged in.
    unpaid: f64,
    moved: bool,
    /// When the latest batch was let through: the moves of one decision point are a batch.
    batch: Option<Ps>,
    /// The latest batch has been measured (a block of windows judged since) and did not make
    /// the gate withdraw.
    proven: bool,
    pub(super) withdrawn: bool,
    /// Per page, its home before the gate first let it move (`u8::MAX`: never moved).
    origin: Vec<u8>,
}

impl Payback {
    /// Whether a move proposed now must wait: the gate's latest batch is in force and not yet
    /// measured long enough to tell whether it pays (one experiment at a time). Never where
    /// the driver counts no lines (no measurement will come).
    pub(super) fn on_probation(&self, view: &View<'_>) -> bool {
        self.moved && !self.proven && view.done > 0 && self.batch != Some(view.now)
    }

    /// Adds the time (the policy's own overhead left out) and lines since the previous fold to
    /// the baseline, or, after the first move, to the record since (with the overhead);
    /// nothing where the driver counts no lines.
    fn fold(&mut self, view: &View<'_>) {
        if view.now <= view.started || view.done == 0 {
            return;
        }
        let (t0, d0, o0) = self.mark.unwrap_or((view.started, 0, 0));
        let lines = view.done.saturating_sub(d0) as f64;
        if lines == 0.0 {
            return;
        }
        self.mark = Some((view.now, view.done, view.overhead));
        // The policy's work, left out; a stall longer than the interval (a batch of moves
        // made at a tick, whose threads resume after later ticks) is left out of the next.
        let overhead = view.overhead.saturating_sub(o0) as f64 + std::mem::take(&mut self.unpaid);
        let time = view.now.saturating_sub(t0) as f64 - overhead;
        if time < 0.0 {
            self.unpaid = -time;
        }
        let time = time.max(0.0);
        let left_out = view.now.saturating_sub(t0) as f64 - time;
        if self.first == 0.0 {
            self.first = lines;
        }
        if self.moved {
            self.after.0 += time;
            self.after.1 += lines;
            self.after_overhead += left_out;
        } else {
            self.base.push_back((time, lines));
            while self.base.len() > 2 && self.baseline().1 - self.base[0].1 >= self.first {
                self.base.pop_front();
            }
        }
    }

    /// The policy's windows change kind (its timer's windows give way to the program's
    /// iterations): a time per line measured over the old windows, which cut the program's
    /// phases anywhere, is no baseline for the new ones, nor evidence against the moves made
    /// in them. The audit starts again: the pages where they are, and as the baseline the
    /// whole timed run so far (the policy's work left out), which spans the first window of
    /// the new kind (a first iteration) and so compares with the next ones; any withdrawal is
    /// lifted (it rested on the incomparable measurements). Moves made before are not
    /// judged; the next ones are, against that baseline. The windows change kind once in a
    /// run, so this lifts at most one withdrawal.
    pub(super) fn rebase(&mut self, view: &View<'_>) {
        *self = Payback::default();
        self.fold(view);
    }

    /// Time and lines of the baseline intervals together.
    fn baseline(&self) -> (f64, f64) {
        self.base.iter().fold((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1))
    }
}

impl Gate {
    /// Notes a move let through, expected to cost `cost`: the baseline ends (at the first
    /// move, wherever in a window it falls), and the page's home before the gate first moved
    /// it is kept.
    pub(super) fn paid(&mut self, view: &View<'_>, page: PageNo, home: NodeId, cost: f64) {
        let every_thread = self.share > 1.0;
        let p = &mut self.payback;
        // A new batch of a policy that moves while every thread waits (at barriers, ticks) is
        // an experiment of its own: what came before it is the baseline (the first batch) or
        // the end of the previous block, already judged; the block that measures it starts
        // now. A policy that moves one page per interrupt or fault has its first move measured
        // so, and the later ones in the blocks as they come.
        if p.batch != Some(view.now) && (every_thread || !p.moved) {
            p.fold(view);
            if p.moved {
                p.after = (0.0, 0.0);
                p.after_overhead = 0.0;
            }
            p.moves_cost = 0.0;
            p.proven = false;
            p.batch = Some(view.now);
        }
        p.moves_cost += cost;
        p.moved = true;
        let i = page.0 as usize;
        if p.origin.len() <= i {
            p.origin.resize(i + 1, u8::MAX);
        }
        if p.origin[i] == u8::MAX {
            p.origin[i] = home.0;
        }
    }

    /// Whether the gate has withdrawn: its moves did not pay, and it lets none through.
    pub fn withdrawn(&self) -> bool {
        self.payback.withdrawn
    }

    /// Measured payback, at one of the policy's decision points (before it judges the
    /// window's moves): folds the time and lines since the previous audit into the baseline
    /// (before the gate's first move) or the record since; withdraws when the moves are not
    /// paying (module documentation). `None` while the gate stands: the policy decides as
    /// usual. Once it has withdrawn, `Some` of the moves the policy makes instead of deciding:
    /// at the withdrawal, every page the gate moved that is not at its old home goes back;
    /// afterwards, nothing.
    pub fn audit(&mut self, view: &View<'_>) -> Option<Vec<Action>> {
        if !self.on {
            return None;
        }
        if self.payback.withdrawn {
            return Some(Vec::new());
        }
        self.payback.fold(view);
        let p = &mut self.payback;
        let elapsed = view.now.saturating_sub(view.started) as f64;
        let base = p.baseline();
        if !p.moved || base.1 == 0.0 || p.after.1 < base.1 {
            return None;
        }
        let (before, with) = (base.0 / base.1, p.after.0 / p.after.1);
        // The pages are worse where the gate put them than where they were, the policy's
        // work left out of both.
        let worse = with > before * (1.0 + PAYBACK_TOLERANCE);
        // Or the run, the policy's work included, will end slower than every line at the
        // baseline's pace: the time so far, and the lines still to come at the block's pace
        // with the policy's recurring work, against all the lines at the baseline's. A batch
        // is an investment: right after it the run is behind by its cost, and what it saves
        // per line repays that over the rest of the run, estimated as the gate's horizon is
        // (the declared iterations' remaining time in lines at the run's pace so far; else
        // as many lines again as so far, never more).
        let done = view.done as f64;
        let left = match view.remaining {
            Some(r) if elapsed > 0.0 => r as f64 * done / elapsed,
            _ => done,
        };
        let recurring = (p.after_overhead - p.moves_cost).max(0.0) / p.after.1;
        let slower = elapsed + (with + recurring) * left > before * (done + left) * (1.0 + PAYBACK_TOLERANCE);
        if !worse && !slower {
            // Each block of windows is judged on its own: a state that was faster once may
            // not stay so (rows that drift away from the nodes they were moved to).
            p.proven = true;
            p.after = (0.0, 0.0);
            (p.after_overhead, p.moves_cost) = (0.0, 0.0);
            return None;
        }
        p.withdrawn = true;
        if !worse {
            // The pages are no worse where they are; what does not pay is the policy's work.
            return Some(Vec::new());
        }
        let back: Vec<Action> = p
            .origin
            .iter()
            .enumerate()
            .filter(|&(page, &o)| o != u8::MAX && view.homes.get(page).is_some_and(|&h| h != o && (h as usize) < view.machine.nodes()))
            .map(|(page, &o)| Action::Migrate { page: PageNo(page as u32), to: NodeId(o), reason: "measured payback: moved back" })
            .collect();
        // Moving back restores the measured placement, and is itself a batch of moves: worth
        // it only when what the pages lose per line, over the lines still to come, exceeds
        // what moving them back costs (near the run's end it does not: they stay).
        let undo = view.machine.migration_cost_ps(0) as f64 * back.len() as f64 + self.shootdown(view);
        if (with - before) * left <= undo {
            return Some(Vec::new());
        }
        self.refused.undone += back.len() as u64;
        Some(back)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Evidence, Payer, Verdict};
    use super::*;
    use crate::dynamic::fixture::Fixture;

    fn ev(counts: &[u16], window: Ps) -> Evidence<'_> {
        Evidence { counts, scale: 1.0, window }
    }

    /// Payback fixtures: a first window of `LINES` lines in `W` ps, then page 0 (at home on
    /// node 0, hammered from node 1) let through to node 1 and moved there.
    const W: Ps = 1_000_000_000;
    const LINES: u64 = 100_000;

    fn moved_after_one_window(f: &mut Fixture) -> Gate {
        let mut g = Gate::with(true, 2, Payer::EveryThread);
        f.now = W;
        f.done = LINES;
        assert_eq!(g.audit(&f.view()), None, "nothing moved: nothing to judge");
        let counts = [0, u16::MAX];
        assert_eq!(g.judge(&f.view(), PageNo(0), NodeId(0), NodeId(1), ev(&counts, W), 0), Verdict::Unstable);
        assert_eq!(g.judge(&f.view(), PageNo(0), NodeId(0), NodeId(1), ev(&counts, W), 0), Verdict::Move);
        f.homes[0] = 1;
        g
    }

    /// The window after the move: `LINES` lines taking `per_line` of the first window's time
    /// per line, after the move's own cost (the policy's overhead).
    fn next_window(f: &mut Fixture, per_line: f64) {
        let stall = f.machine.migration_cost_ps(2);
        f.overhead += stall;
        f.now += stall + (W as f64 * per_line) as Ps;
        f.done += LINES;
    }

    #[test]
    fn moves_that_make_each_line_slower_are_withdrawn_and_undone() {
        let mut f = Fixture::new(2);
        let mut g = moved_after_one_window(&mut f);
        next_window(&mut f, 1.0 + 2.0 * PAYBACK_TOLERANCE);
        let back = vec![Action::Migrate { page: PageNo(0), to: NodeId(0), reason: "measured payback: moved back" }];
        assert_eq!(g.audit(&f.view()), Some(back), "the page goes back where it was");
        assert!(g.withdrawn());
        assert_eq!(g.refused.undone, 1);
        // Nothing more moves, however good it looks, and nothing is undone twice.
        f.homes[0] = 0;
        let counts = [0, u16::MAX];
        assert_eq!(g.judge(&f.view(), PageNo(0), NodeId(0), NodeId(1), ev(&counts, W), 0), Verdict::Withdrawn);
        assert_eq!(g.refused.withdrawn, 1);
        next_window(&mut f, 1.0);
        assert_eq!(g.audit(&f.view()), Some(Vec::new()));
    }

    #[test]
    fn moves_that_pay_per_line_stand_and_their_cost_is_weighed_over_the_run() {
        let mut f = Fixture::new(2);
        let mut g = moved_after_one_window(&mut f);
        // As fast per line as before, the move's cost left out; the cost is within the
        // tolerance over the run so far.
        assert!((f.machine.migration_cost_ps(2) as f64) < PAYBACK_TOLERANCE * 2.0 * W as f64);
        next_window(&mut f, 1.0);
        assert_eq!(g.audit(&f.view()), None);
        next_window(&mut f, 0.8);
        assert_eq!(g.audit(&f.view()), None);
        assert!(!g.withdrawn());
        assert_eq!(g.judge(&f.view(), PageNo(1), NodeId(0), NodeId(1), ev(&[0, u16::MAX], W), 0), Verdict::Unstable, "still judging");
    }

    #[test]
    fn payback_waits_for_as_many_lines_as_the_baseline_held() {
        let mut f = Fixture::new(2);
        let mut g = moved_after_one_window(&mut f);
        // Half the baseline's lines, much slower: not yet evidence.
        f.overhead += f.machine.migration_cost_ps(2);
        f.now += f.machine.migration_cost_ps(2) + W;
        f.done += LINES / 2;
        assert_eq!(g.audit(&f.view()), None);
        assert!(!g.withdrawn());
        f.now += W;
        f.done += LINES / 2;
        assert_eq!(g.audit(&f.view()).map(|back| back.len()), Some(1));
    }

    #[test]
    fn a_policy_whose_work_costs_more_than_its_moves_save_withdraws_and_leaves_the_pages() {
        let mut f = Fixture::new(2);
        let mut g = moved_after_one_window(&mut f);
        // The lines are 1 % faster, but the policy's work (interrupts that came to nothing)
        // took a tenth of the window.
        f.overhead += W / 10;
        f.now += W / 10 + (W as f64 * 0.99) as Ps;
        f.done += LINES;
        assert_eq!(g.audit(&f.view()), Some(Vec::new()), "the pages stay: they are no worse where they are");
        assert!(g.withdrawn());
        assert_eq!(g.refused.undone, 0);
    }

    #[test]
    fn later_moves_wait_until_the_first_batch_has_been_measured() {
        let mut f = Fixture::new(3);
        let mut g = moved_after_one_window(&mut f);
        let counts = [0, u16::MAX];
        // The rest of the first batch (same decision point) goes through.
        assert_eq!(g.judge(&f.view(), PageNo(1), NodeId(0), NodeId(1), ev(&counts, W), 0), Verdict::Unstable);
        g.note(PageNo(2), NodeId(1));
        assert_eq!(g.judge(&f.view(), PageNo(2), NodeId(0), NodeId(1), ev(&counts, W), 0), Verdict::Move);
        // A later decision point waits for the measurement.
        f.now += 1;
        assert_eq!(g.judge(&f.view(), PageNo(1), NodeId(0), NodeId(1), ev(&counts, W), 0), Verdict::Probation);
        assert_eq!(g.refused.probation, 1);
        next_window(&mut f, 1.0);
        assert_eq!(g.audit(&f.view()), None);
        assert_eq!(g.judge(&f.view(), PageNo(1), NodeId(0), NodeId(1), ev(&counts, W), 0), Verdict::Move, "measured: moves go on");
    }

    #[test]
    fn every_batch_waits_for_its_own_measurement() {
        let mut f = Fixture::new(3);
        let mut g = moved_after_one_window(&mut f);
        let counts = [0, u16::MAX];
        next_window(&mut f, 1.0);
        assert_eq!(g.audit(&f.view()), None);
        // The first batch measured: a second goes through, then waits for its own block.
        g.note(PageNo(1), NodeId(1));
        assert_eq!(g.judge(&f.view(), PageNo(1), NodeId(0), NodeId(1), ev(&counts, W), 0), Verdict::Move);
        f.homes[1] = 1;
        // Half the baseline's lines since the second batch: not yet measured.
        let c = f.machine.migration_cost_ps(2);
        f.overhead += c;
        f.now += c + W / 2;
        f.done += LINES / 2;
        assert_eq!(g.audit(&f.view()), None);
        assert_eq!(g.judge(&f.view(), PageNo(2), NodeId(0), NodeId(1), ev(&counts, W), 0), Verdict::Probation);
        f.now += W / 2;
        f.done += LINES / 2;
        assert_eq!(g.audit(&f.view()), None);
        assert_eq!(g.judge(&f.view(), PageNo(2), NodeId(0), NodeId(1), ev(&counts, W), 0), Verdict::Move);
    }

    /// A first window of `LINES` lines in `W` ps, then `n` pages moved in one batch; the next
    /// window's lines take `per_line` of the first's time each, after the batch's cost (the
    /// driver charges what the gate expected).
    fn batch_then_window(f: &mut Fixture, n: u32, per_line: f64) -> Gate {
        let mut g = Gate::with(true, 2, Payer::EveryThread);
        f.now = W;
        f.done = LINES;
        assert_eq!(g.audit(&f.view()), None);
        let counts = [0, u16::MAX];
        for p in 0..n {
            g.note(PageNo(p), NodeId(1));
            assert_eq!(g.judge(&f.view(), PageNo(p), NodeId(0), NodeId(1), ev(&counts, W), 0), Verdict::Move);
            f.homes[p as usize] = 1;
        }
        let cost = g.payback.moves_cost as Ps;
        f.overhead += cost;
        f.now += cost + (W as f64 * per_line) as Ps;
        f.done += LINES;
        g
    }

    #[test]
    fn a_batch_that_puts_the_run_behind_stands_when_the_rest_of_the_run_repays_it() {
        // A batch costing about a third of a window makes every line 10 % faster: the run is
        // behind the baseline's pace at once (2.2 windows for 2 windows' lines) ...
        let n = (0.3 * W as f64 / Fixture::new(1).machine.migration_cost_ps(2) as f64) as u32;
        let long = |remaining: Option<Ps>| {
            let mut f = Fixture::new(n);
            f.remaining = remaining;
            let mut g = batch_then_window(&mut f, n, 0.9);
            assert!(f.now > 2 * W + W / 10, "the run is behind");
            let verdict = g.audit(&f.view());
            (verdict, g.withdrawn(), g.refused.undone)
        };
        // ... and with twenty windows still to come, the faster lines repay it: it stands.
        assert_eq!(long(Some(20 * W)), (None, false, 0));
        // With half a window left they cannot: the gate withdraws, and the pages, no worse
        // where they are, stay.
        assert_eq!(long(Some(W / 2)), (Some(Vec::new()), true, 0));
    }

    #[test]
    fn pages_worse_where_they_are_go_back_only_while_the_rest_of_the_run_repays_the_moves() {
        let undone = |remaining: Option<Ps>| {
            let mut f = Fixture::new(2);
            let mut g = moved_after_one_window(&mut f);
            f.remaining = remaining;
            next_window(&mut f, 1.0 + 2.0 * PAYBACK_TOLERANCE);
            let back = g.audit(&f.view()).expect("withdrawn").len();
            assert!(g.withdrawn());
            back
        };
        assert_eq!(undone(Some(10 * W)), 1);
        assert_eq!(undone(None), 1, "as many lines again as so far");
        assert_eq!(undone(Some(0)), 0, "the run is over: moving back would only cost");
    }

    #[test]
    fn windows_of_a_new_kind_start_the_audit_again_from_where_the_pages_are() {
        // A move made in a timer window, then the program's first iteration end: that window
        // is slower per line (another phase), which on the old baseline would undo the move.
        let mut f = Fixture::new(2);
        let mut g = moved_after_one_window(&mut f);
        g.forget(&f.view());
        next_window(&mut f, 1.0 + 2.0 * PAYBACK_TOLERANCE);
        assert_eq!(g.audit(&f.view()), None, "the new windows' first is a baseline, not a verdict");
        assert!(!g.withdrawn());
        assert_eq!(g.refused.undone, 0);
        // Later moves are judged against the new baseline: a move that makes lines slower than
        // the new windows' pace is undone, back to where it was when the audit restarted.
        g.note(PageNo(1), NodeId(1));
        f.now += 1;
        assert_eq!(g.judge(&f.view(), PageNo(1), NodeId(0), NodeId(1), ev(&[0, u16::MAX], W), 0), Verdict::Move);
        f.homes[1] = 1;
        // (the baseline now holds the run before the switch and the window after it: the
        // audit waits for as many lines)
        next_window(&mut f, 1.1 * (1.0 + 2.0 * PAYBACK_TOLERANCE));
        assert_eq!(g.audit(&f.view()), None);
        next_window(&mut f, 1.1 * (1.0 + 2.0 * PAYBACK_TOLERANCE));
        let back = vec![Action::Migrate { page: PageNo(1), to: NodeId(0), reason: "measured payback: moved back" }];
        assert_eq!(g.audit(&f.view()), Some(back), "only the move judged since; page 0 stays");
    }

    #[test]
    fn a_driver_that_counts_no_lines_gets_no_audit() {
        let mut f = Fixture::new(2);
        let mut g = Gate::with(true, 2, Payer::EveryThread);
        f.now = W;
        let counts = [0, u16::MAX];
        g.judge(&f.view(), PageNo(0), NodeId(0), NodeId(1), ev(&counts, W), 0);
        assert_eq!(g.judge(&f.view(), PageNo(0), NodeId(0), NodeId(1), ev(&counts, W), 0), Verdict::Move);
        f.homes[0] = 1;
        f.now = 10 * W;
        assert_eq!(g.audit(&f.view()), None);
        assert!(!g.withdrawn());
    }
}
