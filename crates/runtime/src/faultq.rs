//! The hinting faults a policy wants one by one ([`numaplace_model::dynamic::Observes::HintingFaults`]):
//! a fixed ring the fault handler appends `(page, node)` to, lock-free and without allocation
//! (async-signal-safe), and the sampler thread drains at its tick to hand each fault to
//! `DynamicPolicy::on_fault` ([`crate::driver`]).
//!
//! Linux calls its NUMA hinting-fault handler (`do_numa_page`) synchronously, in the faulting
//! thread, and migrates there; here the handler only records the fault and the decision is
//! taken on the sampler thread, deferred by at most one tick. A full ring drops the fault and
//! counts it ([`FaultQueue::dropped`]); the sample is still counted.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::*};

/// Faults the ring holds between two ticks.
pub(crate) const CAPACITY: usize = 1 << 16;

/// The ring: `head` counts faults appended, `tail` faults drained; an entry is
/// `(page + 1) << 8 | node` (0: not written yet).
pub struct FaultQueue {
    entries: [AtomicU64; CAPACITY],
    head: AtomicUsize,
    tail: AtomicUsize,
    /// Whether faults are recorded (a policy that acts on hinting faults is running).
    pub on: AtomicBool,
    /// Faults lost to a full ring.
    pub dropped: AtomicU64,
}

#[allow(clippy::declare_interior_mutable_const)]
const EMPTY: AtomicU64 = AtomicU64::new(0);

/// The process's queue.
pub static FAULTS: FaultQueue = FaultQueue::new();

impl Default for FaultQueue {
    fn default() -> Self {
        FaultQueue::new()
    }
}

impl FaultQueue {
    pub const fn new() -> FaultQueue {
        FaultQueue { entries: [EMPTY; CAPACITY], head: AtomicUsize::new(0), tail: AtomicUsize::new(0), on: AtomicBool::new(false), dropped: AtomicU64::new(0) }
    }

    /// Appends a fault on `page` (the runtime's page numbering) from `node` when recording is
    /// on. Async-signal-safe: a compare-and-swap reserves the entry, a store fills it.
    pub fn push(&self, page: usize, node: usize) {
        if !self.on.load(Relaxed) {
            return;
        }
        let mut h = self.head.load(Acquire);
        loop {
            if h.wrapping_sub(self.tail.load(Acquire)) >= CAPACITY {
                self.dropped.fetch_add(1, Relaxed);
                return;
            }
            match self.head.compare_exchange_weak(h, h + 1, AcqRel, Acquire) {
                Ok(_) => break,
                Err(now) => h = now,
            }
        }
        self.entries[h % CAPACITY].store(((page as u64 + 1) << 8) | (node as u64 & 0xff), Release);
    }

    /// Takes every fault recorded so far, in order, as `(page, node)`; stops early at an
    /// entry still being written (taken at the next drain). One drainer at a time (the
    /// runtime's lock).
    pub fn drain(&self) -> Vec<(usize, usize)> {
        let (mut t, h) = (self.tail.load(Acquire), self.head.load(Acquire));
        let mut out = Vec::with_capacity(h.wrapping_sub(t));
        while t != h {
            let v = self.entries[t % CAPACITY].swap(0, AcqRel);
            if v == 0 {
                break;
            }
            out.push(((v >> 8) as usize - 1, (v & 0xff) as usize));
            t += 1;
        }
        self.tail.store(t, Release);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_come_out_in_order_and_a_full_ring_drops_and_counts() {
        let q = Box::new(FaultQueue::new());
        q.push(5, 1);
        assert!(q.drain().is_empty(), "nothing is recorded while off");
        q.on.store(true, Relaxed);
        q.push(5, 1);
        q.push(0, 0);
        q.push(7, 3);
        assert_eq!(q.drain(), vec![(5, 1), (0, 0), (7, 3)]);
        assert!(q.drain().is_empty());
        for p in 0..CAPACITY + 10 {
            q.push(p, 2);
        }
        assert_eq!(q.dropped.load(Relaxed), 10);
        let all = q.drain();
        assert_eq!(all.len(), CAPACITY);
        assert_eq!(all[CAPACITY - 1], (CAPACITY - 1, 2));
        q.push(1, 1);
        assert_eq!(q.drain(), vec![(1, 1)], "room again after a drain");
    }
}
