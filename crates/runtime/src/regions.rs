//! The regions part of the [`crate::runtime::Runtime`], [`Regions`]: registering and
//! withdrawing address ranges (the fault handler's table lives in [`crate::space`]; this is
//! the runtime's side of it), where their pages are, revoking them for sampling, and looking
//! at pages under sampling without ending the sampling interval.

use crate::host::Host;
use crate::error::{Code, RtError};
use crate::mover;
use crate::sampling::{window_runs, Sampling};
use crate::space::SPACE;
use numaplace_model::stats::RegionStats;

/// One managed region.
#[derive(Clone, Debug)]
pub struct Managed {
    pub name: String,
    pub slot: usize,
    pub start: usize,
    pub pages: usize,
    /// First page in the runtime's numbering.
    pub first: usize,
    /// Mapped by the runtime's allocator (freed with `munmap`), with this length.
    pub owned: Option<usize>,
    /// Pages per node before the runtime moved any: each page counted on the node it was on
    /// when the runtime first saw it present (at registration, or at a later decision for
    /// pages touched after it: a fresh allocation is registered untouched).
    pub before: Vec<u64>,
    /// Pages already counted in `before`.
    pub(crate) seen: Vec<bool>,
}

/// The managed regions, and those freed.
#[derive(Default)]
pub struct Regions {
    /// Those mapped, in registration order.
    pub list: Vec<Managed>,
    /// The next region's first page in the runtime's numbering (pages of all regions ever
    /// registered, end to end).
    pub(crate) next_first: usize,
    /// Regions already freed, as the stats file lists them (no address: it may be reused).
    pub retired: Vec<RegionStats>,
}

impl Regions {
    /// Registers `[addr, addr+len)` (rounded inward to whole pages) as a hot region, its
    /// pages revoked at once when `revoke` (sampling with hinting faults, samples wanted).
    ///
    /// # Errors
    /// A null or empty range, or too many regions.
    #[allow(clippy::too_many_arguments)] // the parts it reads, then the C API's arguments
    pub fn register(&mut self, host: &Host, sampling: &Sampling, revoke: bool, addr: usize, len: usize, name: &str, owned: Option<usize>) -> Result<usize, RtError> {
        let ps = host.page_size();
        if addr == 0 || len == 0 {
            return Err(RtError::new(Code::Invalid, format!("register '{name}': empty or null range")));
        }
        let start = addr.div_ceil(ps) * ps;
        let end = (addr + len) / ps * ps;
        if end <= start {
            return Err(RtError::new(Code::Invalid, format!("register '{name}': {len} bytes at {addr:#x} hold no whole page")));
        }
        // Already managed (e.g. a malloc'd array the preload hooks manage, registered again by
        // the program): rename it rather than manage it twice.
        if let Some(r) = self.list.iter_mut().find(|r| start >= r.start && end <= r.start + r.pages * ps) {
            if owned.is_none() {
                r.name = name.to_string();
            }
            return Ok(r.slot);
        }
        if self.list.iter().any(|r| start < r.start + r.pages * ps && r.start < end) {
            return Err(RtError::new(Code::Invalid, format!("register '{name}': {start:#x}..{end:#x} overlaps a managed region")));
        }
        let pages = (end - start) / ps;
        host.sys.base_pages(start, end - start);
        let addrs: Vec<usize> = (0..pages).map(|p| start + p * ps).collect();
        let mut before = vec![0u64; host.nodes()];
        let mut seen = vec![false; pages];
        for (p, st) in mover::query(host.sys.as_ref(), &addrs)?.into_iter().enumerate() {
            if st >= 0 {
                before[st as usize] += 1;
                seen[p] = true;
            }
        }
        // Published for the fault handler last, once nothing can fail.
        let slot = SPACE.add(start, pages, self.next_first).map_err(|m| RtError::new(Code::Limit, m))?;
        self.list.push(Managed { name: name.to_string(), slot, start, pages, first: self.next_first, owned, before, seen });
        self.next_first += pages;
        if revoke {
            sampling.timed(|| SPACE.revoke_pages(slot, 0, pages)).ok();
        }
        sampling.say_off();
        Ok(slot)
    }

    /// Withdraws the managed region starting at or containing `addr`; returns its owned
    /// mapping length, if the runtime mapped it.
    pub fn unregister(&mut self, host: &Host, sampling: &Sampling, addr: usize) -> Option<Option<usize>> {
        let ps = host.page_size();
        // The region containing `addr`, else one starting within a page after it (a range the
        // program registered from an address that was not page-aligned).
        let i = self
            .list
            .iter()
            .position(|r| addr >= r.start && addr < r.start + r.pages * ps)
            .or_else(|| self.list.iter().position(|r| addr < r.start && addr >= r.start.saturating_sub(ps)))?;
        let (before, after) = self.before_after(host, sampling, &self.list[i]);
        let r = self.list.remove(i);
        sampling.timed(|| SPACE.remove(r.slot));
        self.retired.push(RegionStats {
            name: r.name.clone(),
            address: None,
            bytes: (r.pages * ps) as u64,
            pages: r.pages as u64,
            before,
            after,
        });
        Some(r.owned)
    }

    /// Withdraws every managed region overlapping `[addr, addr+len)` (memory the program is
    /// about to free).
    pub fn forget_range(&mut self, host: &Host, sampling: &Sampling, addr: usize, len: usize) {
        let ps = host.page_size();
        let hits: Vec<usize> = self.list.iter().filter(|r| addr < r.start + r.pages * ps && r.start < addr + len).map(|r| r.start).collect();
        for s in hits {
            self.unregister(host, sampling, s);
        }
    }

    /// A region's pages per node before the runtime moved any (pages never seen until now
    /// count where they are: the runtime never moved them) and now.
    pub(crate) fn before_after(&self, host: &Host, sampling: &Sampling, r: &Managed) -> (Vec<u64>, Vec<u64>) {
        let ps = host.page_size();
        let addrs: Vec<usize> = (0..r.pages).map(|p| r.start + p * ps).collect();
        let (mut before, mut after) = (r.before.clone(), vec![0u64; host.nodes()]);
        if let Ok(now) = self.peek(sampling, || mover::query(host.sys.as_ref(), &addrs)) {
            for (p, st) in now.into_iter().enumerate() {
                if st >= 0 {
                    after[st as usize] += 1;
                    if !r.seen[p] {
                        before[st as usize] += 1;
                    }
                }
            }
        }
        (before, after)
    }

    /// Pages per node of `[start, start + pages·ps)` (not-present pages are not counted).
    pub(crate) fn per_node(&self, host: &Host, sampling: &Sampling, start: usize, pages: usize) -> Result<Vec<u64>, RtError> {
        let ps = host.page_size();
        let addrs: Vec<usize> = (0..pages).map(|p| start + p * ps).collect();
        let mut out = vec![0u64; host.nodes()];
        for s in self.peek(sampling, || mover::query(host.sys.as_ref(), &addrs))? {
            if s >= 0 {
                out[s as usize] += 1;
            }
        }
        Ok(out)
    }

    /// Node of every page of `[addr, addr+len)` (`-errno` where not present).
    ///
    /// # Errors
    /// The query failed.
    pub fn where_(&self, host: &Host, sampling: &Sampling, addr: usize, len: usize) -> Result<Vec<i32>, RtError> {
        let ps = host.page_size();
        let start = addr / ps * ps;
        let pages = (addr + len).div_ceil(ps) * ps / ps - start / ps;
        let addrs: Vec<usize> = (0..pages).map(|p| start + p * ps).collect();
        Ok(self.peek(sampling, || mover::query(host.sys.as_ref(), &addrs))?)
    }

    /// Restores access to every protected managed page without counting it. Linux's
    /// `move_pages` does not see a `PROT_NONE` page (it answers `-ENOENT`, as for a page never
    /// touched), so the runtime ends a sampling interval before it queries or moves pages.
    pub(crate) fn unprotect_all(&self, sampling: &Sampling) {
        sampling.timed(|| {
            for r in &self.list {
                SPACE.open_all(r.slot);
            }
        });
    }

    /// Runs `f` with every protected managed page briefly accessible (so `move_pages` sees
    /// them), then protects those pages again: a look that does not end the sampling interval.
    pub(crate) fn peek<T>(&self, sampling: &Sampling, f: impl FnOnce() -> T) -> T {
        let mut runs = Vec::new();
        for r in &self.list {
            let mut p = 0;
            while p < r.pages {
                if !SPACE.is_revoked(r.slot, p) {
                    p += 1;
                    continue;
                }
                let mut q = p + 1;
                while q < r.pages && SPACE.is_revoked(r.slot, q) {
                    q += 1;
                }
                runs.push((r.slot, p, q));
                p = q;
            }
        }
        self.unprotect_all(sampling);
        let out = f();
        sampling.timed(|| {
            for &(slot, p, q) in &runs {
                let _ = SPACE.revoke_pages(slot, p, q);
            }
        });
        out
    }
    /// Revokes every managed page (a new sampling interval starts) when `want`, or restores
    /// them all. Nothing while hinting-fault sampling is off.
    pub(crate) fn rearm(&self, sampling: &mut Sampling, want: bool) {
        if !sampling.on {
            return;
        }
        // Every page revoked at once: a new interval of the critical-path estimate.
        sampling.critical.close();
        sampling.timed(|| {
            for r in &self.list {
                if want {
                    let _ = SPACE.revoke_pages(r.slot, 0, r.pages);
                } else {
                    SPACE.open_all(r.slot);
                }
            }
        });
    }

    /// Revokes the next window of `window` pages (the sampler thread's periodic step).
    pub(crate) fn sample_step(&self, sampling: &mut Sampling, window: usize) {
        if self.list.is_empty() {
            return;
        }
        let runs: Vec<(usize, usize)> = self.list.iter().map(|r| (r.slot, r.pages)).collect();
        sampling.timed(|| {
            for (slot, from, to) in window_runs(&runs, sampling.cursor, window) {
                let _ = SPACE.revoke_pages(slot, from, to);
            }
        });
        let total: usize = self.list.iter().map(|r| r.pages).sum();
        sampling.cursor = (sampling.cursor + window.min(total)) % total.max(1);
    }

    /// Revokes the pages `range` of the managed space (the runtime's page numbering, regions
    /// end to end: a policy's [`numaplace_model::dynamic::Timer::revoke`]); the next access
    /// to each takes a hinting fault. Pages of regions freed since are skipped.
    pub(crate) fn revoke_range(&self, sampling: &Sampling, range: std::ops::Range<u32>) {
        let (lo, hi) = (range.start as usize, range.end as usize);
        sampling.timed(|| {
            for r in &self.list {
                let (from, to) = (lo.max(r.first), hi.min(r.first + r.pages));
                if from < to {
                    let _ = SPACE.revoke_pages(r.slot, from - r.first, to - r.first);
                }
            }
        });
    }

    /// Revokes the pages `pages` of the managed space (ascending page numbers in the runtime's
    /// numbering), a run of consecutive pages at a time.
    pub(crate) fn revoke_pages(&self, sampling: &Sampling, pages: impl Iterator<Item = u32>) {
        let mut run: Option<std::ops::Range<u32>> = None;
        for g in pages {
            match &mut run {
                Some(r) if r.end == g => r.end += 1,
                _ => {
                    if let Some(r) = run.replace(g..g + 1) {
                        self.revoke_range(sampling, r);
                    }
                }
            }
        }
        if let Some(r) = run {
            self.revoke_range(sampling, r);
        }
    }

    /// Halves every sample count (a policy's ageing).
    pub(crate) fn age_samples(&self) {
        for r in &self.list {
            SPACE.age_counts(r.slot);
        }
    }

    /// Forgets every sample count.
    pub(crate) fn clear_samples(&self) {
        for r in &self.list {
            SPACE.clear_counts(r.slot);
        }
    }
}

