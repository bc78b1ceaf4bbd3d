//! The CPUs' execution: the hit loop (`Eng::hits`, computes and cache hits with the state in
//! locals) and the general path (`Eng::run_cpu`: misses, barriers, locks, the value check), and
//! a CPU's operation completing at its fill.

use super::caches::{frame_word, ST_I, ST_M};
use super::cpu::{CpuState, Turn};
use super::msg::{Msg, K, F_WRITE, NONE16};
use super::program::{LineOp, LineProgram};
use super::state::Eng;
use std::collections::VecDeque;

impl Eng<'_> {
    /// The CPU's fast path: runs `c`'s operations while they are computes and cache hits, with
    /// the engine's state in locals, and stops at the first operation that needs more (a miss,
    /// a barrier, a lock, an address to check: [`Turn::Slow`], the operation not started), at
    /// the end of the chunk ([`Turn::Refill`]) or when the CPU's clock passes the run-ahead
    /// window ([`Turn::Yield`]). It does exactly what the general path in [`Eng::run_cpu`] does
    /// for those operations, in the same order, so results are the same; no event is pushed
    /// while it runs, so the window's end is computed once.
    #[inline(never)]
    pub(super) fn hits(&mut self, c: usize) -> Turn {
        let limit = match self.events.peek_t() {
            Some(next) => next + self.lookahead,
            None => u64::MAX,
        };
        // One bound, not an optional one: the compiler otherwise tests "no event pending" at
        // every operation.
        let limit = std::hint::black_box(limit);
        let (fmask, smask) = (self.caches.flc_frames - 1, self.caches.slc_frames - 1);
        let p = &self.p;
        let slc_hit = p.acquire_slc_bus + p.slc_lookup + p.slc_line_access + p.release_slc_bus;
        let slc_probe = p.acquire_slc_bus + p.slc_lookup + p.release_slc_bus;
        let (shift, end) = (self.line_shift, self.addr_end);
        let flc = &mut self.caches.flc[c * self.caches.flc_frames..][..fmask + 1];
        let tags = &self.caches.slc_tag[c * self.caches.slc_frames..][..smask + 1];
        let vals = &mut self.caches.slc_val[c * self.caches.slc_frames..][..smask + 1];
        // A line a cache holds was touched, so its chunk of `latest` is allocated; the frame
        // counts are powers of two.
        let latest = &mut self.dir.latest;
        let cpu = &mut self.cpus[c];
        let pos0 = cpu.pos;
        let ops = &cpu.ops[pos0..];
        let mut t = cpu.t;
        let mut free = self.caches.slc_free[c];
        let seq0 = self.store_seq;
        let mut store_seq = seq0;
        // Computes retired, and loads that missed the FLC; the stores are `store_seq - seq0`
        // and the loads the rest of the `k` operations retired.
        let (mut computes, mut flc_misses) = (0u64, 0u64);
        let mut k = 0;
        let turn = loop {
            let Some(&op) = ops.get(k) else {
                break Turn::Refill;
            };
            if t > limit {
                break Turn::Yield;
            }
            match op {
                LineOp::Compute(n) => {
                    t += n as u64;
                    computes += 1;
                }
                LineOp::Read(a) => {
                    if a >= end {
                        break Turn::Slow;
                    }
                    let line = (a >> shift) as u32;
                    let (si, fi, li) = (line as usize & smask, line as usize & fmask, line as usize);
                    // SAFETY: `si` and `fi` are masked to the frame counts, which are the
                    // lengths of `tags`, `vals` and `flc`.
                    unsafe {
                        if *flc.get_unchecked(fi) == line {
                            t += 1;
                        } else {
                            let w = *tags.get_unchecked(si);
                            if w >> 2 != line || w & 3 == ST_I as u32 {
                                break Turn::Slow;
                            }
                            flc_misses += 1;
                            t = t.max(free) + slc_hit;
                            free = t;
                            *flc.get_unchecked_mut(fi) = line;
                        }
                        if *vals.get_unchecked(si) != latest[li] {
                            // The general path counts it, and reports the mismatch.
                            break Turn::Slow;
                        }
                    }
                }
                LineOp::Write(a) => {
                    if a >= end {
                        break Turn::Slow;
                    }
                    let line = (a >> shift) as u32;
                    let (si, li) = (line as usize & smask, line as usize);
                    // SAFETY: as for a read.
                    unsafe {
                        if *tags.get_unchecked(si) != frame_word(line, ST_M) {
                            break Turn::Slow;
                        }
                        let start = t.max(free);
                        free = start + slc_probe;
                        t = start + 1;
                        store_seq += 1;
                        *vals.get_unchecked_mut(si) = store_seq;
                        latest[li] = store_seq;
                    }
                }
                _ => break Turn::Slow,
            }
            k += 1;
        };
        cpu.pos = pos0 + k;
        cpu.t = t;
        self.caches.slc_free[c] = free;
        self.store_seq = store_seq;
        let stores = store_seq - seq0;
        let loads = k as u64 - stores - computes;
        let st = &mut self.st;
        st.flc_accesses += loads;
        st.flc_misses += flc_misses;
        st.slc_accesses += flc_misses + stores;
        st.loads_checked += loads;
        st.line_accesses += loads + stores;
        if k > 0 {
            // The clock of the last retired operation (a `Slow` stop changes it only on a
            // failed value check, which ends the run).
            self.last_progress = self.last_progress.max(t).max(self.now);
        }
        turn
    }

    /// What [`Eng::hits`] returns when it would stop before `c`'s next operation (which exists):
    /// `Yield` past the run-ahead window, `Slow` for an operation it leaves to the general path
    /// (a miss in both caches, a barrier or lock, an address past the regions); `None` when it
    /// would retire it. Checked first because a turn that starts with a miss (most turns while
    /// the caches are cold) then skips the hit loop's set-up; a stop at the first operation
    /// changes nothing in `hits`, so the answer is the same either way.
    #[inline]
    fn stops_at_once(&mut self, c: usize) -> Option<Turn> {
        let cpu = &self.cpus[c];
        let op = cpu.ops[cpu.pos];
        let t = cpu.t;
        if let Some(next) = self.events.peek_t() {
            if t > next + self.lookahead {
                return Some(Turn::Yield);
            }
        }
        let a = match op {
            LineOp::Compute(_) => return None,
            LineOp::Read(a) | LineOp::Write(a) => a,
            _ => return Some(Turn::Slow),
        };
        if a >= self.addr_end {
            return Some(Turn::Slow);
        }
        let line = self.line_of(a);
        let w = self.caches.slc_tag[self.caches.sidx(c, line)];
        let slow = match op {
            LineOp::Read(_) => self.caches.flc[self.caches.fidx(c, line)] != line && (w >> 2 != line || w & 3 == ST_I as u32),
            _ => w != frame_word(line, ST_M),
        };
        slow.then_some(Turn::Slow)
    }

    pub(super) fn run_cpu(&mut self, c: usize, program: &mut dyn LineProgram) {
        {
            let cpu = &mut self.cpus[c];
            if cpu.state == CpuState::Done {
                return;
            }
            cpu.t = cpu.t.max(self.now);
            cpu.state = CpuState::Run;
        }
        let flc_base = c * self.caches.flc_frames;
        let slc_base = c * self.caches.slc_frames;
        let fmask = self.caches.flc_frames - 1;
        let smask = self.caches.slc_frames - 1;
        let slc_hit = self.p.acquire_slc_bus + self.p.slc_lookup + self.p.slc_line_access + self.p.release_slc_bus;
        let slc_probe = self.p.acquire_slc_bus + self.p.slc_lookup + self.p.release_slc_bus;
        loop {
            if self.cpus[c].pos == self.cpus[c].ops.len() {
                let cpu = &mut self.cpus[c];
                cpu.ops.clear();
                cpu.pos = 0;
                if !program.fill(c, &mut cpu.ops) || cpu.ops.is_empty() {
                    cpu.state = CpuState::Done;
                    cpu.finish = cpu.t;
                    self.last_progress = self.last_progress.max(cpu.t);
                    return;
                }
            }
            match self.stops_at_once(c).unwrap_or_else(|| self.hits(c)) {
                Turn::Refill => continue,
                Turn::Yield => {
                    let t = self.cpus[c].t;
                    self.push_cpu(t, c);
                    return;
                }
                Turn::Slow => {}
            }
            let t = self.cpus[c].t;
            let op = self.cpus[c].ops[self.cpus[c].pos];
            match op {
                LineOp::Compute(k) => {
                    self.cpus[c].t += k as u64;
                    self.retire(c);
                }
                LineOp::Read(a) => {
                    // A line a cache holds was touched before (its page homed, its region
                    // checked), so only a miss needs `touch`; the bound keeps `line_of` exact.
                    let Some(line) = self.bounded_line(c, a) else { return };
                    self.st.flc_accesses += 1;
                    let fi = flc_base + (line as usize & fmask);
                    let si = slc_base + (line as usize & smask);
                    if self.caches.flc[fi] == line {
                        self.cpus[c].t += 1;
                    } else {
                        self.st.flc_misses += 1;
                        self.st.slc_accesses += 1;
                        let start = t.max(self.caches.slc_free[c]);
                        if self.caches.ftag(si) == line && self.caches.fst(si) != ST_I {
                            self.cpus[c].t = start + slc_hit;
                            self.caches.slc_free[c] = start + slc_hit;
                            self.caches.flc[fi] = line;
                        } else {
                            if self.touch(c, a).is_none() {
                                return;
                            }
                            self.st.slc_misses += 1;
                            self.caches.slc_free[c] = start + slc_probe;
                            self.cpu_miss(c, line, false, start + slc_probe);
                            return;
                        }
                    }
                    if !self.load(c, line) {
                        return;
                    }
                    self.retire_access(c);
                }
                LineOp::Write(a) | LineOp::Lock(a) | LineOp::Unlock(a) => {
                    let Some(line) = self.bounded_line(c, a) else { return };
                    let si = slc_base + (line as usize & smask);
                    let hit = self.caches.ftag(si) == line && self.caches.fst(si) == ST_M;
                    if !hit && self.touch(c, a).is_none() {
                        return;
                    }
                    self.st.slc_accesses += 1;
                    let start = t.max(self.caches.slc_free[c]);
                    if hit {
                        // Write-through into the SLC: the CPU goes on, the SLC bus is held for
                        // the probe (choice: a one-entry write buffer).
                        self.caches.slc_free[c] = start + slc_probe;
                        self.cpus[c].t = start + 1;
                        self.store(c, line);
                        if !self.after_store(c, op, line) {
                            return;
                        }
                    } else {
                        self.st.slc_misses += 1;
                        self.caches.slc_free[c] = start + slc_probe;
                        self.cpu_miss(c, line, true, start + slc_probe);
                        return;
                    }
                }
                LineOp::Barrier => {
                    let cpu = &mut self.cpus[c];
                    cpu.state = CpuState::Wait;
                    let t = cpu.t;
                    let m = Msg::new(K::CpuBarrier, c, c, 0);
                    self.push_local(t, c, m);
                    return;
                }
                LineOp::EndInit => {
                    self.fail(format!("program {}: thread {c} states EndInit twice", self.program_name));
                    return;
                }
            }
        }
    }

    /// Retires the CPU's current load or store.
    #[inline]
    pub(super) fn retire_access(&mut self, c: usize) {
        self.st.line_accesses += 1;
        self.retire(c);
    }

    /// Retires the CPU's current operation (a load or store through [`Eng::retire_access`]).
    #[inline]
    pub(super) fn retire(&mut self, c: usize) {
        let cpu = &mut self.cpus[c];
        cpu.pos += 1;
        if cpu.t > self.last_progress {
            self.last_progress = cpu.t;
        }
        if self.now > self.last_progress {
            self.last_progress = self.now;
        }
    }

    /// A load performs: its value must be the latest store's.
    #[inline]
    pub(super) fn load(&mut self, c: usize, line: u32) -> bool {
        let si = c * self.caches.slc_frames + (line as usize & (self.caches.slc_frames - 1));
        self.st.loads_checked += 1;
        if self.caches.slc_val[si] != self.dir.latest[line as usize] {
            self.load_mismatch(c, line, si);
            return false;
        }
        true
    }

    #[cold]
    #[inline(never)]
    pub(super) fn load_mismatch(&mut self, c: usize, line: u32, si: usize) {
        self.fail(format!(
            "value check: node {c} read line {line:#x} = store #{}, but the latest store is #{}",
            self.caches.slc_val[si], self.dir.latest[line as usize]
        ));
    }

    /// A store performs (the node holds the line modified).
    #[inline]
    pub(super) fn store(&mut self, c: usize, line: u32) {
        let si = c * self.caches.slc_frames + (line as usize & (self.caches.slc_frames - 1));
        debug_assert!(self.caches.ftag(si) == line && self.caches.fst(si) == ST_M);
        self.store_seq += 1;
        self.caches.slc_val[si] = self.store_seq;
        self.dir.latest[line as usize] = self.store_seq;
    }

    /// After a store performed for `op`: lock semantics; retires the op unless the thread
    /// parks. Returns whether the CPU goes on.
    #[inline]
    pub(super) fn after_store(&mut self, c: usize, op: LineOp, line: u32) -> bool {
        if let LineOp::Write(_) = op {
            self.retire_access(c);
            return true;
        }
        self.after_lock_op(c, op, line)
    }

    /// [`Eng::after_store`] for a `Lock` or `Unlock`.
    #[inline(never)]
    pub(super) fn after_lock_op(&mut self, c: usize, op: LineOp, line: u32) -> bool {
        let t = self.cpus[c].t;
        match op {
            LineOp::Lock(_) => {
                let e = self.locks.entry(line).or_insert((NONE16, VecDeque::new()));
                if e.0 == NONE16 {
                    e.0 = c as u16;
                } else {
                    e.1.push_back(c as u16);
                    self.cpus[c].state = CpuState::Wait;
                    return false;
                }
            }
            LineOp::Unlock(_) => {
                let woke = match self.locks.get_mut(&line) {
                    Some(e) if e.0 == c as u16 => {
                        e.0 = NONE16;
                        e.1.pop_front()
                    }
                    _ => {
                        self.fail(format!("program {}: thread {c} unlocks line {line:#x}, which it does not hold", self.program_name));
                        return false;
                    }
                };
                if let Some(w) = woke {
                    self.push_cpu(t.max(self.now), w as usize);
                }
            }
            _ => {}
        }
        self.retire_access(c);
        true
    }

    /// The CPU's SLC missed: the request goes to its controller at `t`.
    #[inline]
    pub(super) fn cpu_miss(&mut self, c: usize, line: u32, write: bool, t: u64) {
        let cpu = &mut self.cpus[c];
        cpu.t = t;
        cpu.state = CpuState::Wait;
        let mut m = Msg::new(K::CpuMiss, c, c, line);
        if write {
            m.flags |= F_WRITE;
        }
        self.push_local(t, c, m);
    }

    /// Sends `m` from `node`'s CPU to its own controller at `t` (never on the network).
    #[inline]
    pub(super) fn push_local(&mut self, t: u64, node: usize, mut m: Msg) {
        m.src = node as u16;
        m.dst = node as u16;
        m.at = t;
        self.push_msg(t, m);
    }

    /// The CPU's operation completes at the fill: performs it, then resumes the CPU at `t`.
    #[inline]
    pub(super) fn cpu_complete(&mut self, c: usize, line: u32, t: u64) {
        self.cpus[c].t = t;
        let op = self.cpus[c].ops[self.cpus[c].pos];
        match op {
            LineOp::Read(_) => {
                let fi = c * self.caches.flc_frames + (line as usize & (self.caches.flc_frames - 1));
                self.caches.flc[fi] = line;
                if !self.load(c, line) {
                    return;
                }
                self.retire_access(c);
            }
            _ => {
                self.store(c, line);
                if !self.after_store(c, op, line) {
                    return;
                }
            }
        }
        self.push_cpu(t, c);
    }
}
