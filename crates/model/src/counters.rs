//! Per-page, per-node access counters, as the Origin2000's memory frames carry them (seed 000
//! §2.1: "each physical memory frame is equipped with a set of 11-bit hardware counters", one per
//! node). Counters saturate at `2^bits − 1`; aging halves them all.

use crate::units::{NodeId, PageNo};

/// Saturating counters, `[page * nodes + node]`, and their sum.
#[derive(Clone, Debug)]
pub struct PageCounters {
    nodes: usize,
    max: u16,
    c: Vec<u16>,
    /// The sum of every counter, kept by each change (a policy that checks how many samples
    /// an interval holds reads it at every look, too often to sum the counters each time).
    total: u64,
}

impl PageCounters {
    /// Counters of `bits` bits (1..=16) for `pages` pages on `nodes` nodes, all zero.
    pub fn new(pages: usize, nodes: usize, bits: u32) -> Self {
        let bits = bits.clamp(1, 16);
        PageCounters { nodes, max: ((1u32 << bits) - 1) as u16, c: vec![0; pages * nodes], total: 0 }
    }

    /// The saturation value.
    pub fn max(&self) -> u16 {
        self.max
    }

    /// Adds `n` accesses from `node` to `page`; returns the new count.
    #[inline]
    pub fn add(&mut self, page: u32, node: usize, n: u64) -> u16 {
        let slot = &mut self.c[page as usize * self.nodes + node];
        let old = *slot;
        *slot = (old as u64 + n).min(self.max as u64) as u16;
        self.total += (*slot - old) as u64;
        *slot
    }

    /// Hints the processor to bring `page`'s counters into the cache (a no-op where the
    /// architecture has no prefetch instruction). Pure performance: no effect on values.
    #[inline(always)]
    pub fn prefetch(&self, page: u32) {
        #[cfg(target_arch = "x86_64")]
        {
            // No bounds check (a branch per record in the hot loop): the address is computed
            // with wrapping arithmetic and never dereferenced.
            let slot = self.c.as_ptr().wrapping_add(page as usize * self.nodes);
            // SAFETY: prefetching is a hint that never faults, even for an address outside
            // the allocation, and reads nothing into the program's state.
            unsafe { core::arch::x86_64::_mm_prefetch(slot as *const i8, core::arch::x86_64::_MM_HINT_T0) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = page;
    }

    /// Adds `n` accesses from `node` to `page` and returns by how much the page's count for
    /// `node` now exceeds its count for `other` (0 when it does not): one row lookup for
    /// the counter-interrupt check of the hot loop.
    #[inline]
    pub fn add_and_lead(&mut self, page: u32, node: usize, other: usize, n: u64) -> u16 {
        let start = page as usize * self.nodes;
        let row = &mut self.c[start..start + self.nodes];
        let v = (row[node] as u64 + n).min(self.max as u64) as u16;
        self.total += (v - row[node]) as u64;
        row[node] = v;
        v.saturating_sub(row[other])
    }

    /// The count of `node` for `page`.
    #[inline]
    pub fn get(&self, page: u32, node: usize) -> u16 {
        self.c[page as usize * self.nodes + node]
    }

    /// All of a page's counts, one per node.
    pub fn row(&self, page: PageNo) -> &[u16] {
        let i = page.0 as usize * self.nodes;
        // Counters of no pages (a driver keeps none for a policy that does not count) have
        // empty rows.
        self.c.get(i..i + self.nodes).unwrap_or(&[])
    }

    /// The sum of every page's counts on every node.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The sum recomputed from the counters (what `total` must equal).
    fn sum(&self) -> u64 {
        self.c.iter().map(|&v| v as u64).sum()
    }

    /// Clears one page's counters (after it migrated).
    pub fn reset_page(&mut self, page: PageNo) {
        let i = page.0 as usize * self.nodes;
        if let Some(row) = self.c.get_mut(i..i + self.nodes) {
            self.total -= row.iter().map(|&v| v as u64).sum::<u64>();
            row.fill(0);
        }
    }

    /// Clears every counter.
    pub fn reset_all(&mut self) {
        self.c.fill(0);
        self.total = 0;
    }

    /// Halves every counter (periodic aging).
    pub fn age(&mut self) {
        for v in &mut self.c {
            *v >>= 1;
        }
        self.total = self.sum();
    }

    /// The node with the most accesses to `page` (lowest number on ties) and its count.
    pub fn busiest(&self, page: PageNo) -> (NodeId, u16) {
        let mut best = (NodeId(0), 0u16);
        for (n, &v) in self.row(page).iter().enumerate() {
            if v > best.1 {
                best = (NodeId(n as u8), v);
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_saturate_age_and_reset() {
        let mut c = PageCounters::new(2, 3, 11);
        assert_eq!(c.max(), 2047);
        assert_eq!(c.add(1, 2, 2000), 2000);
        assert_eq!(c.add(1, 2, 100), 2047);
        c.add(1, 0, 10);
        assert_eq!(c.busiest(PageNo(1)), (NodeId(2), 2047));
        c.age();
        assert_eq!(c.row(PageNo(1)), &[5, 0, 1023]);
        c.reset_page(PageNo(1));
        assert_eq!(c.row(PageNo(1)), &[0, 0, 0]);
        assert_eq!(c.get(0, 0), 0);
    }

    #[test]
    fn the_total_follows_every_change() {
        let mut c = PageCounters::new(70_000, 3, 16);
        let check = |c: &PageCounters| assert_eq!(c.total(), c.sum());
        for p in 0..70_000 {
            c.add(p, (p % 3) as usize, 65_000);
        }
        c.add(3, 0, 65_000); // saturates: adds only 535
        check(&c);
        assert_eq!(c.total(), 70_000 * 65_000 + 535);
        c.add_and_lead(5, 1, 2, 70_000);
        check(&c);
        c.reset_page(PageNo(5));
        check(&c);
        c.age();
        check(&c);
        c.reset_all();
        assert_eq!(c.total(), 0);
        assert_eq!(PageCounters::new(0, 2, 16).total(), 0);
    }
}
