//! Cost-aware decisions: a move is made only when what it is expected to save over the rest of
//! the run exceeds what it costs now. None of the seeds' engines, nor Linux's, weighs this;
//! every policy that migrates or replicates offers it (`cost_aware=on`, default `off` so that
//! each seed's policy keeps its seed's behaviour, harm included) and `adaptive` runs with it.
//!
//! The [`Gate`] judges one proposed move of one page from what the policy already has:
//!
//! * **Stability.** The page's target must be the node the gate saw last time it looked at the
//!   page (the busiest node of the previous observation window, or the node of the previous
//!   interrupt or fault). A page whose accessors change from one window to the next (a bucket
//!   sort's buckets, a page falsely shared by threads on two nodes) is never "stable", so it
//!   is never worth moving: what the last window measured says nothing of the next.
//! * **Benefit.** Over one observation window of length `w`, the page's counts `c[n]` (each
//!   standing for `scale` transactions) would each have saved `lat(n, home) + W[home] −
//!   lat(n, to) − W'[to]`, divided by the machine's memory-level parallelism (overlapped
//!   misses save less), where `lat` is the machine's unloaded latency and `W` a memory
//!   controller's queueing delay in the M/M/1 model of docs/timing.md. The controllers' loads
//!   come from the counts themselves, averaged over the windows so far (a policy that reads
//!   counters per window calls [`Gate::begin_window`]; every move let through then shifts its
//!   page's load, so the window's later moves see what the earlier ones add), or else from
//!   the queueing the
//!   driver measured (the simulator's last solve; the runtime measures none, and there the
//!   benefit counts latency alone). The page's load leaves the home and joins the target, and
//!   the controllers' other lines gain or lose the change in delay. Accesses that the move
//!   makes farther count negatively; a move that saturates the target saves nothing.
//! * **Horizon.** Where the program declares its iterations (a generated workload; a trace's
//!   `iterations` metadata), the remaining run is the mean iteration so far times the
//!   iterations left (`View::remaining`). Otherwise it is unknown, and it is estimated as long
//!   again as the run has lasted (`now − started`): the doubling estimate of online
//!   algorithms, which never expects more than has been seen. A page's own history caps it:
//!   the gate counts, per page, the windows it looked at the page and how often the target
//!   changed between them, and expects the target to hold for `(looked + 1) / (changes + 1)`
//!   windows more (the mean tenure of a target so far). A page that lands on the same target
//!   twice by chance among many changes (a random key's bucket), or whose accessor drifts
//!   (Gaussian elimination's shrinking rows), is not worth a move it would soon undo. The
//!   expected benefit is the window's saving times the lesser of the two horizons.
//! * **Who pays.** A move made at a barrier or a timer tick stops every thread (the drivers'
//!   contract for those hooks), so its cost is on the run's critical path in full while the
//!   saving is spread over the threads: the wall-clock saving is the benefit divided by the
//!   run's threads. A move made in a counter interrupt or a hinting fault is paid by the
//!   accessing thread alone, which is also the one that saves: no division.
//! * **Cost.** The machine's cost of migrating one page (`migration_cost_ps`: fixed work, the
//!   copy, and a TLB shootdown on every CPU of the run), plus what the policy says the move
//!   adds (a record–replay undo). The moves of one window ([`Gate::begin_window`]) are a batch
//!   that flushes the TLBs once, as the drivers charge it: after the first, a move costs its
//!   fixed work and copy only.
//!
//! The move goes ahead when the expected benefit exceeds the cost. The gate counts what it
//! refused, by reason, for the run's result.
//!
//! **Measured payback.** The estimate above is a model, and a model misses what it does not
//! know: a move that makes a page local can load its new controller at the moment a phase
//! hammers it; when the page's accessor drifts (Gaussian elimination's re-divided rows) the
//! data ends up concentrated on a few controllers a few windows later; and a policy's own
//! work (the IRIX engine's counter interrupts, which come whether or not the gate lets the
//! move through) costs time no move repays. So the gate also checks itself against the clock,
//! from what every window gives a driver that counts lines: the time it lasted, the lines it
//! fetched and what the policy's work cost in it (`View::now`, `done`, `overhead`), at each
//! of the policy's decision points ([`Gate::audit`]).
//!
//! * The **baseline** is the program's time per line, the policy's work left out, over the
//!   latest stretch before the gate's first move: its last two windows, and more until the
//!   stretch holds as many lines as the run's first window (a program's time per line
//!   drifts: a shrinking elimination's first step is slower per line than its later ones, so
//!   the stretch just before the moves is the comparison, not the run's start; and two
//!   windows, so that a program whose windows alternate between two kinds is compared pair
//!   for pair).
//! * Until the windows since the first move have fetched as many lines as the baseline, the
//!   gate lets no further move through (**probation**: one experiment at a time), except the
//!   rest of the first move's batch. Then, and for every further block of windows that holds
//!   as many lines, two questions are asked. Are the **pages worse** where the gate put them —
//!   the block's time per line, the policy's work left out, above the baseline by more than
//!   [`PAYBACK_TOLERANCE`]? (Block by block, not since the first move: a state that was
//!   faster once need not stay so, as rows drift away from the nodes they were moved to.) Is
//!   the **run slower** — the time since the run started, the policy's work included, above
//!   the baseline's pace for every line fetched by more than the same tolerance?
//! * Either way the gate **withdraws**: it lets no further move through (and the policies
//!   whose counting serves only their moves stop counting: no more interrupts). When the pages
//!   are worse, it also hands the policy the moves that put every page it moved back where it
//!   was ([`Gate::audit`]'s result): the placement it measured as faster. That costs what the
//!   moves cost, once more, and is made whatever the horizon says: the moves back restore a
//!   measured state rather than a modelled one, so their worst case is the moves' own cost
//!   again.
//!
//! A driver that does not count lines (`View::done` stays 0: the runtime) gets no audit.

use super::{Action, View};
use crate::spec::{ParamDecl, ParamKind, Resolved};
use crate::units::{NodeId, PageNo, Ps};

/// The parameter every migrating policy takes; `default` is `off` for the seeds' policies
/// (their published behaviour) and `on` for `adaptive`.
pub(super) const fn param(default: &'static str) -> ParamDecl {
    ParamDecl {
        name: "cost_aware",
        kind: ParamKind::Choice(&["on", "off"]),
        default,
        doc: "weigh each move's cost (machine [migration]) against the benefit expected over the rest of the run, from the counts it has and their stability across windows, and withdraw, moving pages back, when the moves do not pay in measured time (docs/timing.md, \"Cost-aware decisions\", \"Measured payback\")",
    }
}

/// The parameter with the seeds' default (`off`).
pub(super) const COST_AWARE: ParamDecl = param("off");

/// Why the gate refused a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Move,
    /// The target differs from the one seen in the page's previous window.
    Unstable,
    /// Stable, but the expected benefit does not cover the cost.
    Costly,
    /// The gate's earlier moves did not pay (measured payback): it lets none through.
    Withdrawn,
    /// The gate's first moves have not yet been measured long enough (measured payback).
    Probation,
}

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

/// Counts of refused moves, reported in the run's result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Refusals {
    pub unstable: u64,
    pub costly: u64,
    /// Moves proposed after the gate withdrew (its moves did not pay).
    pub withdrawn: u64,
    /// Moves proposed while the gate's first moves were being measured.
    pub probation: u64,
    /// Pages moved back to where they were before the gate moved them, on withdrawal.
    pub undone: u64,
}

impl std::ops::Add for Refusals {
    type Output = Refusals;
    fn add(self, o: Refusals) -> Refusals {
        Refusals { unstable: self.unstable + o.unstable, costly: self.costly + o.costly, withdrawn: self.withdrawn + o.withdrawn, probation: self.probation + o.probation, undone: self.undone + o.undone }
    }
}

/// How much slower than the baseline's time per line the pages, or the run, may get before the
/// gate withdraws (measured payback). A choice: above the simulator's window-to-window
/// variation of a regular program's time per line (none) and of a timer window's (a few
/// tenths of a percent on the built-in kernels), below the 5 % the cost model is held to.
pub const PAYBACK_TOLERANCE: f64 = 0.02;

impl Payback {
    /// Whether a move proposed now must wait: the gate's first batch is in force and not yet
    /// measured long enough to tell whether it pays (one experiment at a time). Never where
    /// the driver counts no lines (no measurement will come).
    fn on_probation(&self, view: &View<'_>) -> bool {
        self.moved && !self.proven && view.done > 0 && self.first_move != Some(view.now)
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
        if self.first == 0.0 {
            self.first = lines;
        }
        if self.moved {
            self.after.0 += time;
            self.after.1 += lines;
        } else {
            self.base.push_back((time, lines));
            while self.base.len() > 2 && self.baseline().1 - self.base[0].1 >= self.first {
                self.base.pop_front();
            }
        }
    }

    /// Time and lines of the baseline intervals together.
    fn baseline(&self) -> (f64, f64) {
        self.base.iter().fold((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1))
    }
}

/// The gate's check of its moves against the clock (measured payback).
#[derive(Default)]
struct Payback {
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
    /// `(now, done, overhead)` at the previous fold.
    mark: Option<(Ps, u64, Ps)>,
    /// Overhead not yet left out: it exceeded the interval it was charged in.
    unpaid: f64,
    moved: bool,
    /// When the first move was let through: the moves of that decision point are its batch.
    first_move: Option<Ps>,
    /// The first batch has been measured and did not make the gate withdraw.
    proven: bool,
    withdrawn: bool,
    /// Per page, its home before the gate first let it move (`u8::MAX`: never moved).
    origin: Vec<u8>,
}

/// Who waits while a move is made: the hook the policy moves pages from decides it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Payer {
    /// Every thread (iteration ends, epoch barriers, timer ticks).
    EveryThread,
    /// The thread whose access raised the interrupt or fault.
    Accessor,
}

/// The cost-aware filter a policy holds; a no-op when off.
pub struct Gate {
    on: bool,
    /// Per page, the node last seen as its target (`u8::MAX`: never seen).
    seen: Vec<u8>,
    /// Per page, (looks that had a previous target, of which agreed with it); halved together
    /// before they overflow.
    agreement: Vec<(u8, u8)>,
    /// CPUs that may cache a page's translation: the shootdown part of the cost.
    sharing_cpus: usize,
    /// The threads a move's benefit is spread over, against its cost (1 for an accessor).
    share: f64,
    /// Whether a move of the current window's batch has paid the batch's TLB shootdown.
    batched: bool,
    /// Each controller's busy time summed over the windows so far, and their length, ps.
    busy: Vec<f64>,
    span: f64,
    /// The controllers' utilisations in the current window ([`Gate::begin_window`]), updated
    /// as moves are let through; empty: taken from the view's queueing at each judgement.
    rho: Vec<f64>,
    payback: Payback,
    pub refused: Refusals,
}

impl Gate {
    /// The gate of a policy built with `r` (which declares [`COST_AWARE`] or [`param`]) for a
    /// run of `threads` threads.
    pub fn new(r: &Resolved, threads: usize, payer: Payer) -> Self {
        Gate::with(r.choice("cost_aware") == "on", threads, payer)
    }

    pub fn with(on: bool, threads: usize, payer: Payer) -> Self {
        let share = match payer {
            Payer::EveryThread => threads.max(1) as f64,
            Payer::Accessor => 1.0,
        };
        Gate { on, seen: Vec::new(), agreement: Vec::new(), sharing_cpus: threads.max(1), share, batched: false, busy: Vec::new(), span: 0.0, rho: Vec::new(), payback: Payback::default(), refused: Refusals::default() }
    }

    pub fn on(&self) -> bool {
        self.on
    }

    /// Starts a window of decisions from counters that cover `window` ps (each count standing
    /// for `scale` lines): the controllers' loads are taken from the counts, and every move let
    /// through in the window shifts its page's load from its home to its target, so that the
    /// window's later moves see the load the earlier ones add (many pages moved to one node
    /// in one window would otherwise each be judged against the node's old load).
    ///
    /// A controller's load is its mean over every window so far, not the last window's: a hot
    /// spot that moves from window to window (Gaussian elimination's pivot row) must not make
    /// the node it happened to be on look worth leaving for good.
    pub fn begin_window(&mut self, view: &View<'_>, window: Ps, scale: f64) {
        if self.on {
            let now = utilisation_from_counts(view, window, scale);
            let w = window.max(1) as f64;
            if self.busy.len() != now.len() {
                self.busy = vec![0.0; now.len()];
                self.span = 0.0;
            }
            self.batched = false;
            self.busy.iter_mut().zip(&now).for_each(|(b, &r)| *b += r * w);
            self.span += w;
            self.rho = self.busy.iter().map(|&b| (b / self.span).min(SATURATED)).collect();
        }
    }

    /// Forgets every page's history (the policy's windows changed kind).
    pub fn forget(&mut self) {
        self.seen.clear();
        self.agreement.clear();
    }

    /// Notes that `page`'s busiest node in the window just read is `best` (the policy looked
    /// at the page but proposes nothing), so that the page's next proposal can be judged for
    /// stability. A window without accesses to the page is no evidence: do not call this then.
    pub fn note(&mut self, page: PageNo, best: NodeId) {
        if self.on {
            let i = page.0 as usize;
            if self.seen.len() <= i {
                self.seen.resize(i + 1, u8::MAX);
                self.agreement.resize(i + 1, (0, 0));
            }
            let before = std::mem::replace(&mut self.seen[i], best.0);
            if before != u8::MAX {
                let a = &mut self.agreement[i];
                if a.0 == u8::MAX {
                    *a = (a.0 / 2, a.1 / 2);
                }
                *a = (a.0 + 1, a.1 + u8::from(before == best.0));
            }
        }
    }

    /// How many more windows `page`'s target is expected to hold: the mean tenure of its
    /// targets so far, `(looked + 1) / (changes + 1)`.
    fn tenure(&self, page: PageNo) -> f64 {
        let (looked, agreed) = self.agreement.get(page.0 as usize).copied().unwrap_or((0, 0));
        (looked as f64 + 1.0) / ((looked - agreed) as f64 + 1.0)
    }

    /// Notes a move let through: the baseline ends (at the first move, wherever in a window
    /// it falls), and the page's home before the gate first moved it is kept.
    fn paid(&mut self, view: &View<'_>, page: PageNo, home: NodeId) {
        let p = &mut self.payback;
        if !p.moved {
            p.fold(view);
        }
        p.moved = true;
        p.first_move.get_or_insert(view.now);
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
        // Or the run so far, the policy's work included, is slower than every line at the
        // baseline's pace.
        let slower = elapsed > before * view.done as f64 * (1.0 + PAYBACK_TOLERANCE);
        if !worse && !slower {
            // Each block of windows is judged on its own: a state that was faster once may
            // not stay so (rows that drift away from the nodes they were moved to).
            p.proven = true;
            p.after = (0.0, 0.0);
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
        self.refused.undone += back.len() as u64;
        Some(back)
    }

    /// Judges a proposed move of `page` (at home on `home`) to `to`, with `extra` cost beyond
    /// one page migration; notes `to` as the page's target either way.
    pub fn judge(&mut self, view: &View<'_>, page: PageNo, home: NodeId, to: NodeId, ev: Evidence<'_>, extra: Ps) -> Verdict {
        if !self.on {
            return Verdict::Move;
        }
        let i = page.0 as usize;
        let before = self.seen.get(i).copied().unwrap_or(u8::MAX);
        self.note(page, to);
        if self.payback.withdrawn {
            self.refused.withdrawn += 1;
            return Verdict::Withdrawn;
        }
        if self.payback.on_probation(view) {
            self.refused.probation += 1;
            return Verdict::Probation;
        }
        if before != to.0 {
            self.refused.unstable += 1;
            return Verdict::Unstable;
        }
        let queue;
        let rho = if self.rho.is_empty() {
            queue = utilisation_from_queue(view);
            &queue
        } else {
            &self.rho
        };
        // A batch (the moves of one window, every thread waiting) flushes the TLBs once, as
        // the drivers charge it: its first move pays the shootdown, the others fixed work and
        // copy. A move in an interrupt or fault pays its own.
        let shootdowns = if self.share > 1.0 && self.batched { 0 } else { self.sharing_cpus };
        let cost = view.machine.migration_cost_ps(shootdowns).saturating_add(extra) as f64;
        if expected_benefit(view, rho, home, to, ev, self.tenure(page)) / self.share > cost {
            self.batched = self.share > 1.0 && !self.rho.is_empty();
            self.paid(view, page, home);
            if !self.rho.is_empty() {
                let lines: f64 = ev.counts.iter().map(|&c| c as f64).sum::<f64>() * ev.scale / ev.window.max(1) as f64;
                let s = &view.machine.service_ps;
                self.rho[home.index()] = (self.rho[home.index()] - lines * s[home.index()]).max(0.0);
                self.rho[to.index()] = (self.rho[to.index()] + lines * s[to.index()]).min(SATURATED);
            }
            Verdict::Move
        } else {
            self.refused.costly += 1;
            Verdict::Costly
        }
    }
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

/// The utilisation past which a controller counts as saturated.
const SATURATED: f64 = 0.99;

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
        let (w, w2) = (s * rho / (1.0 - rho), s * after / (1.0 - after));
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
        saved += c * (m.latency(from, home) as f64 + w_home - m.latency(from, to) as f64 - w_to);
    }
    // The home's other lines wait less (`home_others` is negative), the target's more.
    saved -= home_others + to_others;
    saved / m.raw.mlp.max(1.0)
}

/// What moving a page from `home` to `to` is expected to save over the rest of the run, ps:
/// the window's saving times the windows the run is expected still to last (what the
/// program's declared iterations imply, `View::remaining`; else as many again as have
/// passed), at most `tenure` windows.
pub fn expected_benefit(view: &View<'_>, rho: &[f64], home: NodeId, to: NodeId, ev: Evidence<'_>, tenure: f64) -> f64 {
    let saved = saving(view, rho, home, to, ev.counts.iter().map(|&c| c as f64), ev.scale, ev.window);
    let left = view.remaining.unwrap_or_else(|| view.now.saturating_sub(view.started)) as f64;
    saved * (left / ev.window.max(1) as f64).min(tenure)
}

#[cfg(test)]
mod tests {
    use super::super::fixture::Fixture;
    use super::*;

    fn ev(counts: &[u16], window: Ps) -> Evidence<'_> {
        Evidence { counts, scale: 1.0, window }
    }

    #[test]
    fn off_lets_everything_through() {
        let f = Fixture::new(2);
        let mut g = Gate::with(false, 2, Payer::Accessor);
        assert_eq!(g.judge(&f.view(), PageNo(0), NodeId(0), NodeId(1), ev(&[0, 1], 1), 0), Verdict::Move);
        assert_eq!(g.refused, Refusals::default());
    }

    #[test]
    fn a_stable_page_moves_once_its_expected_benefit_covers_the_cost() {
        let mut f = Fixture::new(2);
        let mut g = Gate::with(true, 2, Payer::Accessor);
        let c = f.machine.migration_cost_ps(2) as f64;
        let gap = (f.machine.latency(NodeId(1), NodeId(0)) - f.machine.latency(NodeId(1), NodeId(1))) as f64 / f.machine.raw.mlp;
        // Enough remote accesses per window that two windows pay for the move, not one.
        let per_window = (c / gap / 2.0).ceil() as u16 + 1;
        assert!((per_window as f64) * gap < c);
        let counts = [0, per_window];
        let w = 1_000_000;
        f.now = w;
        // First sight: no history, so not stable.
        assert_eq!(g.judge(&f.view(), PageNo(0), NodeId(0), NodeId(1), ev(&counts, w), 0), Verdict::Unstable);
        // Second look, same target (expected to hold two more windows), but one window
        // elapsed: the horizon is one window.
        assert_eq!(g.judge(&f.view(), PageNo(0), NodeId(0), NodeId(1), ev(&counts, w), 0), Verdict::Costly);
        // Two windows elapsed, the target held three looks: the benefit covers the cost.
        f.now = 2 * w;
        assert_eq!(g.judge(&f.view(), PageNo(0), NodeId(0), NodeId(1), ev(&counts, w), 0), Verdict::Move);
        assert_eq!(g.refused, Refusals { unstable: 1, costly: 1, ..Default::default() });
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

    #[test]
    fn a_move_the_declared_rest_of_the_run_cannot_repay_is_refused() {
        let mut f = Fixture::new(2);
        let c = f.machine.migration_cost_ps(2) as f64;
        let gap = (f.machine.latency(NodeId(1), NodeId(0)) - f.machine.latency(NodeId(1), NodeId(1))) as f64 / f.machine.raw.mlp;
        // Saves a tenth of its cost per window; 30 windows have passed, the target has held
        // all along: the doubling estimate would expect 30 more and let it through.
        let per_window = (c / gap / 10.0).ceil() as u16;
        let counts = [0, per_window];
        let w = 1_000_000;
        f.now = 30 * w;
        let judge = |f: &Fixture| {
            let mut g = Gate::with(true, 2, Payer::Accessor);
            for _ in 0..30 {
                g.note(PageNo(0), NodeId(1));
            }
            g.judge(&f.view(), PageNo(0), NodeId(0), NodeId(1), ev(&counts, w), 0)
        };
        assert_eq!(judge(&f), Verdict::Move);
        // The program declared its iterations, and five windows are left: it cannot repay.
        f.remaining = Some(5 * w);
        assert_eq!(judge(&f), Verdict::Costly);
        f.remaining = Some(20 * w);
        assert_eq!(judge(&f), Verdict::Move);
    }

    #[test]
    fn a_page_whose_accessor_changes_every_window_never_moves() {
        let mut f = Fixture::new(1);
        let mut g = Gate::with(true, 2, Payer::Accessor);
        for k in 1..50u64 {
            f.now = k * 1_000_000_000; // a long run: any stable page would pay back
            let to = NodeId((k % 2) as u8);
            let mut counts = [0u16; 2];
            counts[to.index()] = u16::MAX;
            let home = NodeId(1 - to.0);
            assert_eq!(g.judge(&f.view(), PageNo(0), home, to, ev(&counts, 1_000_000), 0), Verdict::Unstable, "window {k}");
        }
    }

    #[test]
    fn a_move_every_thread_waits_for_must_save_that_many_times_more() {
        // The fixture's two threads are on node 0; pages at home on node 1, read from node 0.
        let mut f = Fixture::new(2);
        f.homes = vec![1, 1];
        let w = 1_000_000;
        f.now = 100 * w;
        let c = f.machine.migration_cost_ps(2) as f64;
        let gap = (f.machine.latency(NodeId(0), NodeId(1)) - f.machine.latency(NodeId(0), NodeId(0))) as f64 / f.machine.raw.mlp;
        // After three agreeing looks the target is expected to hold three windows: accesses
        // enough that three windows pay for the move once, not twice.
        let counts = [(c / gap / 3.0 * 1.5).round() as u16, 0];
        let benefit = expected_benefit(&f.view(), &[], NodeId(1), NodeId(0), ev(&counts, w), 3.0);
        assert!(benefit > c && benefit / 2.0 < c, "benefit {benefit}, cost {c}");
        let mut alone = Gate::with(true, 2, Payer::Accessor);
        let mut all = Gate::with(true, 2, Payer::EveryThread);
        for g in [&mut alone, &mut all] {
            for p in 0..2 {
                g.note(PageNo(p), NodeId(0));
                g.note(PageNo(p), NodeId(0));
            }
        }
        // The accessor alone pays and saves: it moves.
        assert_eq!(alone.judge(&f.view(), PageNo(0), NodeId(1), NodeId(0), ev(&counts, w), 0), Verdict::Move);
        // Both threads wait for the move while the saving is spread over them: half of it,
        // short of the cost.
        all.begin_window(&f.view(), w, 1.0);
        assert_eq!(all.judge(&f.view(), PageNo(0), NodeId(1), NodeId(0), ev(&counts, w), 0), Verdict::Costly);
        // Twice the accesses pay.
        let double = [counts[0] * 2, 0];
        assert_eq!(all.judge(&f.view(), PageNo(1), NodeId(1), NodeId(0), ev(&double, w), 0), Verdict::Move);
    }

    #[test]
    fn a_target_that_holds_twice_by_chance_after_many_changes_is_not_expected_to_last() {
        let mut f = Fixture::new(1);
        let mut g = Gate::with(true, 2, Payer::Accessor);
        let w = 1_000_000;
        // Ten looks that alternate between the two nodes, then two agreeing ones.
        for k in 0..10u8 {
            g.note(PageNo(0), NodeId(k % 2));
        }
        g.note(PageNo(0), NodeId(1));
        f.now = 20 * w;
        let c = f.machine.migration_cost_ps(2) as f64;
        // A benefit that covers the cost three times over, undiscounted.
        let gap = (f.machine.latency(NodeId(1), NodeId(0)) - f.machine.latency(NodeId(1), NodeId(1))) as f64 / f.machine.raw.mlp;
        let counts = [0, (3.0 * c / gap / 20.0).ceil() as u16];
        assert!(expected_benefit(&f.view(), &[], NodeId(0), NodeId(1), ev(&counts, w), f64::INFINITY) > 2.9 * c);
        // 9 changes in 11 looks: the target is expected to hold 12 / 10 windows.
        assert_eq!(g.judge(&f.view(), PageNo(0), NodeId(0), NodeId(1), ev(&counts, w), 0), Verdict::Costly);
    }

    #[test]
    fn accesses_the_move_makes_farther_count_against_it() {
        let mut f = Fixture::new(1);
        let mut g = Gate::with(true, 2, Payer::Accessor);
        f.now = 1_000_000_000_000;
        // As many accesses from the home node as from the target: nothing to gain.
        g.note(PageNo(0), NodeId(1));
        assert_eq!(g.judge(&f.view(), PageNo(0), NodeId(0), NodeId(1), ev(&[500, 500], 1_000_000), 0), Verdict::Costly);
    }

    #[test]
    fn queueing_at_the_home_counts_as_benefit_and_a_saturated_target_refuses() {
        let mut f = Fixture::new(1);
        let w = 1_000_000; // 1 µs windows
        f.now = 2 * w;
        let counts = [0u16, 10];
        let plain = expected_benefit(&f.view(), &[], NodeId(0), NodeId(1), ev(&counts, w), f64::INFINITY);
        // Node 0 (S = 10 ns) queues 40 ns: utilisation 0.8, 80 lines a µs; node 1 is idle.
        let queue = [40_000.0, 0.0];
        let mut v = f.view();
        v.queue = &queue;
        let loaded = expected_benefit(&v, &utilisation_from_queue(&v), NodeId(0), NodeId(1), ev(&counts, w), f64::INFINITY);
        assert!(loaded > plain + 10.0 * 40_000.0 * 2.0 / f.machine.raw.mlp, "the page's own lines stop queueing: {plain} {loaded}");
        // The other way round, onto the busy node: its 70 other lines a µs would wait longer,
        // and the move costs more than the latency it saves.
        f.homes = vec![1];
        let mut v = f.view();
        v.queue = &queue;
        let toward = [10u16, 0];
        assert!(expected_benefit(&v, &utilisation_from_queue(&v), NodeId(1), NodeId(0), ev(&toward, w), f64::INFINITY) < 0.0);
        // Enough lines to saturate it: never worth it.
        let flood = [0u16, 30];
        assert_eq!(saving(&v, &utilisation_from_queue(&v), NodeId(1), NodeId(0), flood.iter().map(|&c| c as f64), 1.0, w), f64::NEG_INFINITY);
    }

    #[test]
    fn a_window_that_moves_many_pages_to_one_node_sees_the_load_it_adds() {
        // 40 pages on node 1, each read 30 times a µs window from node 0 (S = 10 ns there):
        // one page's move adds 0.3 to node 0's utilisation, so all 40 would saturate it; the
        // window lets through only what node 0 can serve.
        let mut f = Fixture::new(40);
        f.homes = vec![1; 40];
        for p in 0..40 {
            f.counters.add(p, 0, 30);
        }
        let w = 1_000_000;
        f.now = 1_000 * w;
        let mut g = Gate::with(true, 2, Payer::Accessor);
        for p in 0..40 {
            g.note(PageNo(p), NodeId(0));
        }
        g.begin_window(&f.view(), w, 1.0);
        assert_eq!((g.rho[0], g.rho[1]), (0.0, SATURATED));
        let moved = (0..40)
            .filter(|&p| {
                let row = f.counters.row(PageNo(p)).to_vec();
                g.judge(&f.view(), PageNo(p), NodeId(1), NodeId(0), ev(&row, w), 0) == Verdict::Move
            })
            .count();
        assert!((1..4).contains(&moved), "{moved} pages moved to node 0");
        assert!(g.rho[0] < SATURATED);
    }
}
