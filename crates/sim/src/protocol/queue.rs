//! The protocol engine's event queue: events in (time, insertion) order, as a binary heap of
//! `(t, seq)` would give them, but most pushed and popped in constant time.
//!
//! A coherence engine schedules nearly every event a few to a few hundred cycles after the
//! current one (a bus tenure, a LogP latency, a CPU running ahead). So the queue is a *timing
//! wheel*: [`WHEEL`] slots of one cycle each cover the window `[cursor, cursor + WHEEL)`, where
//! `cursor` is the time of the last event popped, and a slot holds its cycle's events in the
//! order they were pushed (a FIFO); a bitmap of non-empty slots finds the next one. Events
//! beyond the window wait in a binary heap and enter their slot when the window reaches them —
//! at the pop that advances `cursor`, before anything can be pushed for that cycle directly, so
//! a slot's FIFO stays in push order. Events pushed for a time before `cursor` (the engine
//! never does; kept exact anyway) wait in a second heap that is served first.
//!
//! Invariants: every wheel event's time lies in `[cursor, cursor + WHEEL)`, one time per slot;
//! every `far` event's time is at least `cursor + WHEEL`; every `past` event's is below
//! `cursor`.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Slots of the wheel: cycles of the window (a power of two).
pub(crate) const WHEEL: usize = 1024;
const MASK: u64 = WHEEL as u64 - 1;
const WORDS: usize = WHEEL / 64;

/// One cycle's events: payloads in push order, `head` the next to pop.
#[derive(Default, Clone)]
struct Slot {
    items: Vec<u32>,
    head: usize,
}

pub(crate) struct EventQueue {
    slots: Vec<Slot>,
    bits: [u64; WORDS],
    /// Events on the wheel.
    on_wheel: usize,
    cursor: u64,
    /// (time, seq, payload), smallest first.
    far: BinaryHeap<Reverse<(u64, u64, u32)>>,
    past: BinaryHeap<Reverse<(u64, u64, u32)>>,
    seq: u64,
    /// The earliest time queued, when known.
    min_t: Option<u64>,
}

impl EventQueue {
    pub fn new() -> Self {
        EventQueue {
            slots: vec![Slot::default(); WHEEL],
            bits: [0; WORDS],
            on_wheel: 0,
            cursor: 0,
            far: BinaryHeap::new(),
            past: BinaryHeap::new(),
            seq: 0,
            min_t: None,
        }
    }

    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.on_wheel == 0 && self.far.is_empty() && self.past.is_empty()
    }

    #[inline]
    pub fn push(&mut self, t: u64, p: u32) {
        self.seq += 1;
        if t < self.cursor {
            self.past.push(Reverse((t, self.seq, p)));
        } else if t - self.cursor < WHEEL as u64 {
            self.wheel_push(t, p);
        } else {
            self.far.push(Reverse((t, self.seq, p)));
        }
        if self.min_t.is_some_and(|m| t < m) || self.on_wheel + self.far.len() + self.past.len() == 1 {
            self.min_t = Some(t);
        }
    }

    #[inline]
    fn wheel_push(&mut self, t: u64, p: u32) {
        let i = (t & MASK) as usize;
        self.slots[i].items.push(p);
        self.bits[i / 64] |= 1 << (i % 64);
        self.on_wheel += 1;
    }

    /// The time of the next wheel event: the first non-empty slot from `cursor`'s, circularly.
    fn wheel_next(&self) -> Option<u64> {
        if self.on_wheel == 0 {
            return None;
        }
        let start = (self.cursor & MASK) as usize;
        let (w0, b0) = (start / 64, start % 64);
        // The start word from the start bit, the other words, then the start word's low bits.
        let first = self.bits[w0] & (!0u64 << b0);
        if first != 0 {
            let i = w0 * 64 + first.trailing_zeros() as usize;
            return Some(self.cursor + (i - start) as u64);
        }
        for k in 1..=WORDS {
            let w = (w0 + k) % WORDS;
            let bits = if k == WORDS { self.bits[w] & ((1u64 << b0) - 1) } else { self.bits[w] };
            if bits != 0 {
                let i = w * 64 + bits.trailing_zeros() as usize;
                let d = (i + WHEEL - start) % WHEEL;
                return Some(self.cursor + d as u64);
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
                break;
            }
            self.far.pop();
            self.wheel_push(t, p);
        }
    }

    /// The earliest event, (time, payload); among equal times, the first pushed.
    pub fn pop(&mut self) -> Option<(u64, u32)> {
        if let Some(Reverse((t, _, p))) = self.past.pop() {
            self.min_t = None;
            return Some((t, p));
        }
        let t = match self.wheel_next() {
            Some(t) => t,
            None => {
                let Reverse((t, _, _)) = *self.far.peek()?;
                t
            }
        };
        if t != self.cursor {
            self.cursor = t;
            self.admit();
        }
        let i = (t & MASK) as usize;
        let slot = &mut self.slots[i];
        let p = slot.items[slot.head];
        slot.head += 1;
        if slot.head == slot.items.len() {
            slot.items.clear();
            slot.head = 0;
            self.bits[i / 64] &= !(1 << (i % 64));
            self.min_t = None;
        }
        self.on_wheel -= 1;
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
