//! The protocol engine's event queue: events in (time, insertion) order, as a binary heap of
//! `(t, seq)` would give them, but most pushed and popped in constant time.
//!
//! A coherence engine schedules nearly every event a few to a few hundred cycles after the
//! current one (a bus tenure, a LogP latency, a CPU running ahead). So the queue is a *timing
//! wheel*: [`WHEEL`] slots of one cycle each cover the window `[cursor, cursor + WHEEL)`, where
//! `cursor` is the time of the last event popped, and a slot holds its cycle's events in the
//! order they were pushed (a FIFO, linked through one pool of nodes that popped events return
//! to, so a push or pop allocates nothing); a bitmap of non-empty slots finds the next one. Events
//! beyond the window wait in a binary heap and enter their slot when the window reaches them —
//! at the pop that advances `cursor`, before anything can be pushed for that cycle directly, so
//! a slot's FIFO stays in push order. Events pushed for a time before `cursor` (the engine
//! never does; kept exact anyway) wait in a second heap that is served first.
//!
//! Invariants: every wheel event's time lies in `[cursor, cursor + WHEEL)`, one time per slot;
//! every `far` event's time is at least `cursor + WHEEL` (`far_min` is the earliest, or
//! `u64::MAX`); every `past` event's is below `cursor`; a slot's bit is set exactly when its
//! list is non-empty.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Slots of the wheel: cycles of the window (a power of two).
pub(crate) const WHEEL: usize = 1024;
const MASK: u64 = WHEEL as u64 - 1;
const WORDS: usize = WHEEL / 64;
/// The end of a slot's list, or of the free list.
const NIL: u32 = u32::MAX;

pub(crate) struct EventQueue {
    /// Per slot, the first and last node of its cycle's events (a FIFO), or [`NIL`].
    head: Box<[u32; WHEEL]>,
    tail: Box<[u32; WHEEL]>,
    /// The nodes: an event's payload, and the next node of its slot (or of the free list).
    nodes: Vec<(u32, u32)>,
    /// The first free node, or [`NIL`].
    free: u32,
    bits: [u64; WORDS],
    /// Events on the wheel.
    on_wheel: usize,
    cursor: u64,
    /// (time, seq, payload), smallest first.
    far: BinaryHeap<Reverse<(u64, u64, u32)>>,
    /// The earliest time in `far`, `u64::MAX` when it is empty.
    far_min: u64,
    past: BinaryHeap<Reverse<(u64, u64, u32)>>,
    seq: u64,
    /// The earliest time queued, when known.
    min_t: Option<u64>,
}

impl EventQueue {
    pub fn new() -> Self {
        EventQueue {
            head: Box::new([NIL; WHEEL]),
            tail: Box::new([NIL; WHEEL]),
            nodes: Vec::new(),
            free: NIL,
            bits: [0; WORDS],
            on_wheel: 0,
            cursor: 0,
            far: BinaryHeap::new(),
            far_min: u64::MAX,
            past: BinaryHeap::new(),
            seq: 0,
            min_t: None,
        }
    }

    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.on_wheel == 0 && self.far.is_empty() && self.past.is_empty()
    }

    /// Queues payload `p` at time `t`. Inlined into the engine's few push sites (a CPU, a
    /// message, a controller's next service): a call's set-up was a fifth of its cost.
    #[inline(always)]
    pub fn push(&mut self, t: u64, p: u32) {
        self.seq += 1;
        if t.wrapping_sub(self.cursor) < WHEEL as u64 {
            self.wheel_push(t, p);
        } else if t < self.cursor {
            self.past.push(Reverse((t, self.seq, p)));
        } else {
            self.far.push(Reverse((t, self.seq, p)));
            self.far_min = self.far_min.min(t);
        }
        match self.min_t {
            Some(m) if t < m => self.min_t = Some(t),
            None if self.on_wheel + self.far.len() + self.past.len() == 1 => self.min_t = Some(t),
            _ => {}
        }
    }

    /// Appends `p` to the FIFO of `t`'s slot.
    #[inline]
    fn wheel_push(&mut self, t: u64, p: u32) {
        let n = if self.free != NIL {
            let n = self.free;
            // SAFETY: the free list holds only nodes below `nodes.len()` (`pop` frees the node
            // it took from a slot, and every node in a slot was allocated here).
            unsafe {
                let node = self.nodes.get_unchecked_mut(n as usize);
                self.free = node.1;
                *node = (p, NIL);
            }
            n
        } else {
            self.nodes.push((p, NIL));
            (self.nodes.len() - 1) as u32
        };
        let i = (t & MASK) as usize;
        let last = self.tail[i];
        if last == NIL {
            self.head[i] = n;
            self.bits[i / 64] |= 1 << (i % 64);
        } else {
            // SAFETY: a slot's tail is a node in use, below `nodes.len()`.
            unsafe { self.nodes.get_unchecked_mut(last as usize).1 = n };
        }
        self.tail[i] = n;
        self.on_wheel += 1;
    }

    /// The time of the next wheel event: the first non-empty slot from `cursor`'s, circularly.
    #[inline]
    fn wheel_next(&self) -> Option<u64> {
        if self.on_wheel == 0 {
            return None;
        }
        let start = (self.cursor & MASK) as usize;
        let (w0, b0) = (start / 64, start % 64);
        // The start word from the start bit; then the other words and the start word's low bits.
        let first = self.bits[w0] & (!0u64 << b0);
        if first != 0 {
            return Some(self.cursor + u64::from(first.trailing_zeros()) - b0 as u64);
        }
        Some(self.wheel_next_beyond(start, w0, b0))
    }

    fn wheel_next_beyond(&self, start: usize, w0: usize, b0: usize) -> u64 {
        for k in 1..=WORDS {
            let w = (w0 + k) % WORDS;
            let bits = if k == WORDS { self.bits[w] & ((1u64 << b0) - 1) } else { self.bits[w] };
            if bits != 0 {
                let i = w * 64 + bits.trailing_zeros() as usize;
                let d = (i + WHEEL - start) % WHEEL;
                return self.cursor + d as u64;
            }
        }
        unreachable!("on_wheel counts a slot whose bit is clear")
    }

    /// The earliest queued time.
    #[inline]
    pub fn peek_t(&mut self) -> Option<u64> {
        if self.min_t.is_none() {
            self.min_t = self.compute_min();
        }
        self.min_t
    }

    fn compute_min(&self) -> Option<u64> {
        if let Some(Reverse((t, _, _))) = self.past.peek() {
            return Some(*t);
        }
        self.wheel_next().or_else(|| self.far.peek().map(|Reverse((t, _, _))| *t))
    }

    /// Moves the far events the window now covers onto the wheel, in (time, seq) order.
    fn admit(&mut self) {
        while let Some(&Reverse((t, _, p))) = self.far.peek() {
            if t - self.cursor >= WHEEL as u64 {
                self.far_min = t;
                return;
            }
            self.far.pop();
            self.wheel_push(t, p);
        }
        self.far_min = u64::MAX;
    }

    /// The earliest event, (time, payload); among equal times, the first pushed.
    #[inline]
    pub fn pop(&mut self) -> Option<(u64, u32)> {
        if !self.past.is_empty() {
            return self.pop_past();
        }
        // A known earliest time is exact (`push` lowers it, and `pop` forgets it when it empties
        // that time's slot); the past heap, served first, is empty here.
        let t = match self.min_t {
            Some(t) => t,
            None => match self.wheel_next() {
                Some(t) => t,
                None if self.far_min != u64::MAX => self.far_min,
                None => return None,
            },
        };
        if t != self.cursor {
            self.cursor = t;
            if self.far_min - t < WHEEL as u64 {
                self.admit();
            }
        }
        let i = (t & MASK) as usize;
        let n = self.head[i];
        // SAFETY: the slot of the earliest time is non-empty (its bit is set), so its head is a
        // node in use, below `nodes.len()`.
        let (p, nx) = unsafe { *self.nodes.get_unchecked(n as usize) };
        self.head[i] = nx;
        if nx == NIL {
            self.tail[i] = NIL;
            self.bits[i / 64] &= !(1 << (i % 64));
            self.min_t = None;
        }
        // SAFETY: as above.
        unsafe { self.nodes.get_unchecked_mut(n as usize).1 = self.free };
        self.free = n;
        self.on_wheel -= 1;
        Some((t, p))
    }

    #[cold]
    fn pop_past(&mut self) -> Option<(u64, u32)> {
        let Reverse((t, _, p)) = self.past.pop()?;
        self.min_t = None;
        Some((t, p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use numaplace_model::rng::SplitMix64 as Rng;

    /// Random pushes and pops against a binary heap of (t, seq): the same events in the same
    /// order, with times near the last popped (mostly), far beyond the window, equal, and now
    /// and then in the past.
    #[test]
    fn pops_in_the_order_of_a_heap_of_time_and_insertion() {
        for seed in 0..40u64 {
            let mut rng = Rng::new(seed);
            let mut q = EventQueue::new();
            let mut reference: BinaryHeap<Reverse<(u64, u64, u32)>> = BinaryHeap::new();
            let (mut now, mut seq, mut id) = (0u64, 0u64, 0u32);
            for _ in 0..20_000 {
                if rng.below(100) < 55 {
                    let r = rng.below(100);
                    let t = if r < 70 {
                        now + rng.below(64)
                    } else if r < 90 {
                        now + rng.below(3 * WHEEL as u64)
                    } else if r < 99 {
                        now + rng.below(100_000)
                    } else {
                        now.saturating_sub(rng.below(50))
                    };
                    seq += 1;
                    id += 1;
                    q.push(t, id);
                    reference.push(Reverse((t, seq, id)));
                } else {
                    let want = reference.peek().map(|Reverse((t, _, _))| *t);
                    assert_eq!(q.peek_t(), want, "seed {seed}: peek");
                    let got = q.pop();
                    let want = reference.pop().map(|Reverse((t, _, p))| (t, p));
                    assert_eq!(got, want, "seed {seed}");
                    if let Some((t, _)) = got {
                        now = now.max(t);
                    }
                }
                assert_eq!(q.is_empty(), reference.is_empty());
            }
            while let Some(Reverse((t, _, p))) = reference.pop() {
                assert_eq!(q.pop(), Some((t, p)), "seed {seed}: drain");
            }
            assert_eq!(q.pop(), None);
        }
    }
}
