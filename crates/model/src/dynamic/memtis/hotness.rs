//! Memtis's page classification, as `ksampled` and the memcg do it (htmm_core.c): the counts a
//! sample adds, the bins and histograms, cooling, the hot threshold's adaptation and the split
//! decision. The parent module holds the state, the sampler and kmigraterd.

use super::{tiering, Memtis, View, DRAM_LAT};

/// `get_idx` (htmm_core.c): ⌊log2(n + 1)⌋, at most 15.
pub fn get_idx(n: u64) -> u32 {
    (64 - (n.saturating_add(1)).leading_zeros() - 1).min(15)
}

/// `get_skew_idx` (htmm_core.c): bits of `n` below 1024, then 11 + the kibis above it (at most 20).
pub fn get_skew_idx(n: u64) -> u32 {
    if n >= 1024 {
        let mut tmp = n;
        let mut cnt = 0;
        while tmp > 1024 && cnt < 9 {
            tmp -= 1024;
            cnt += 1;
        }
        cnt + 11
    } else {
        64 - n.leading_zeros()
    }
}

/// `get_accesses_from_idx`.
pub(super) fn accesses_from_idx(idx: u32) -> u64 {
    if idx == 0 { 0 } else { 1u64 << idx.min(40) }
}

/// What ksampled's `update_pginfo` and the memcg's decisions do (htmm_core.c).
impl Memtis {
    /// `update_pginfo` for a sample of `page`, on the fast tier or not.
    pub(super) fn update_pginfo(&mut self, page: u32, dram: bool, view: &View<'_>) {
        let u = page / self.per_unit;
        if self.is_base(u) {
            self.update_base(page);
        } else {
            self.update_huge(u, page);
        }
        let cg = &mut self.cg;
        cg.nr_sampled += 1;
        cg.nr_for_split += 1;
        cg.nr_max_sampled += 1;
        cg.dram_sampled += u64::from(dram);
        if cg.nr_sampled % self.cooling_period == 0 || self.need_memcg_cooling(view) {
            self.cooling_decision(view);
        } else if self.cg.nr_sampled % self.adaptation_period == 0 {
            self.adjust_active_threshold(view);
        }
    }

    /// `need_memcg_cooling`: the footprint grew by `htmm_thres_cooling_alloc` since.
    fn need_memcg_cooling(&mut self, view: &View<'_>) -> bool {
        let usage = footprint(view);
        if self.cg.nr_alloc + self.cooling_alloc <= usage {
            self.cg.nr_alloc = usage;
            return true;
        }
        false
    }

    /// Moves one page from bin `prev` to bin `cur` of a histogram, as the code does.
    fn rebin(hg: &mut [u64; 16], prev: u32, cur: u32, n: u64) {
        if prev != cur {
            hg[prev as usize] = hg[prev as usize].saturating_sub(n);
            hg[cur as usize] += n;
        }
    }

    /// What a sample does to a 4 KiB page's (or a subpage's) `pginfo`: the count grows by
    /// `HPAGE_PMD_NR`, an estimated DRAM hit is counted if it was `may_hot`, and the estimated
    /// base-page histogram follows. Returns the page's bins before and after.
    fn count_subpage(&mut self, page: u32) -> (u32, u32) {
        let b = &mut self.pages[page as usize];
        let prev = get_idx(b.total);
        b.total += self.pmd_nr;
        let cur = get_idx(b.total);
        self.cg.max_dram += u64::from(b.may_hot);
        b.may_hot = cur >= self.cg.bp;
        Self::rebin(&mut self.cg.ebp, prev, cur, 1);
        (prev, cur)
    }

    /// `update_base_page`.
    fn update_base(&mut self, page: u32) {
        self.check_base_cooling(page);
        let (prev, cur) = self.count_subpage(page);
        self.pages[page as usize].active = cur >= self.cg.active;
        Self::rebin(&mut self.cg.hg, prev, cur, 1);
    }

    /// `update_huge_page` (the split check is kmigraterd's, `DEFERRED_SPLIT_ISOLATED`): the
    /// subpage counts as a base page does, the huge page by one.
    fn update_huge(&mut self, u: u32, page: u32) {
        self.check_huge_cooling(u);
        self.count_subpage(page);
        let h = &mut self.units[u as usize];
        h.total += 1;
        let cur = get_idx(h.total);
        Self::rebin(&mut self.cg.hg, h.idx, cur, self.pmd_nr);
        h.idx = cur;
        h.active = cur >= self.cg.active;
    }

    /// `check_base_cooling`: halves a base page's count once per clock tick it missed.
    fn check_base_cooling(&mut self, page: u32) {
        let clock = self.cg.clock;
        let b = &mut self.pages[page as usize];
        if clock > b.clock {
            b.may_hot = get_idx(b.total) >= self.cg.bp;
            b.total = b.total.checked_shr(clock - b.clock).unwrap_or(0);
            let cur = get_idx(b.total) as usize;
            self.cg.hg[cur] += 1;
            self.cg.ebp[cur] += 1;
        }
        b.clock = clock;
    }

    /// `cooling_page` (rmap.c, kmigraterd's cooling of a base page): 2 if still hot (one bin
    /// below the threshold counts), 1 if cooled cold, 0 if it needed no cooling.
    pub(super) fn cooling_page(&mut self, page: u32) -> u8 {
        let clock = self.cg.clock;
        let b = &mut self.pages[page as usize];
        if clock <= b.clock {
            return 0;
        }
        let prev = b.total;
        b.total = b.total.checked_shr(clock - b.clock).unwrap_or(0);
        let cur = get_idx(b.total);
        self.cg.hg[cur as usize] += 1;
        self.cg.ebp[cur as usize] += 1;
        b.may_hot = get_idx(prev) >= self.cg.bp;
        b.clock = clock;
        if cur + 1 >= self.cg.active { 2 } else { 1 }
    }

    /// `check_transhuge_cooling`: halves a huge page's and its subpages' counts, re-enters them
    /// in the histograms and recomputes the unit's skewness.
    pub(super) fn check_huge_cooling(&mut self, u: u32) {
        let clock = self.cg.clock;
        let h = self.units[u as usize];
        if clock <= h.clock {
            self.units[u as usize].clock = clock;
            return;
        }
        let diff = clock - h.clock;
        let bp_hot = self.cg.active.min(self.cg.bp);
        let (mut hot_utils, mut refs, mut skew) = (0u64, 0u64, 0u64);
        let first = u * self.per_unit;
        for p in first..(first + self.per_unit).min(self.pages.len() as u32) {
            let b = &mut self.pages[p as usize];
            let prev = get_idx(b.total);
            if prev >= bp_hot {
                hot_utils += 1;
                refs += b.total;
            }
            skew = skew.saturating_add(b.total.saturating_mul(b.total));
            b.may_hot = prev >= self.cg.bp;
            b.total = b.total.checked_shr(diff).unwrap_or(0);
            self.cg.ebp[get_idx(b.total) as usize] += 1;
        }
        let h = &mut self.units[u as usize];
        h.total = h.total.checked_shr(diff).unwrap_or(0);
        h.idx = get_idx(h.total);
        self.cg.hg[h.idx as usize] += self.pmd_nr;
        h.skew = if hot_utils == 0 || h.idx >= 13 { 0 } else { get_skew_idx(skew / 11 / hot_utils / hot_utils) };
        self.cg.access_map[h.skew as usize] += 1;
        if hot_utils > 0 {
            self.cg.sum_util += refs / self.pmd_nr;
            self.cg.num_util += 1;
        }
        h.clock = clock;
    }

    /// `__cooling` and what `update_pginfo` does after it: the actual and estimated DRAM hit
    /// counts age, and the split decision period may end.
    fn cooling_decision(&mut self, view: &View<'_>) {
        let cg = &mut self.cg;
        if cg.need_cooling.iter().any(|&c| c) {
            cg.clock += 1;
            return;
        }
        cg.hg = [0; 16];
        cg.ebp = [0; 16];
        cg.access_map = [0; 21];
        cg.sum_util = 0;
        cg.num_util = 0;
        cg.clock += 1;
        cg.bp = cg.bp.saturating_sub(1);
        cg.cooled = true;
        cg.need_cooling = [true; 2];
        let temp_rhr = cg.prev_dram;
        cg.prev_dram = (cg.prev_dram >> 1) + cg.dram_sampled;
        cg.dram_sampled = 0;
        cg.prev_max_dram = (cg.prev_max_dram >> 1) + cg.max_dram;
        cg.max_dram = 0;
        if !cg.need_split && cg.split_on {
            let usage = (footprint(view) >> self.split_period).max(fast_limit(view));
            if cg.nr_for_split > usage {
                if cg.split_happen && cg.prev_dram < temp_rhr * 103 / 100 {
                    // Splitting did not raise the hit ratio by 3 %: off for good.
                    cg.split_on = false;
                    return;
                }
                cg.split_happen = false;
                cg.need_split = true;
            } else {
                cg.nr_split += cg.nr_split_tail;
                cg.nr_split_tail = 0;
                self.set_split_thres();
            }
        }
        self.cg.nr_max_sampled >>= 1;
    }

    /// `__adjust_active_threshold`.
    pub(super) fn adjust_active_threshold(&mut self, view: &View<'_>) {
        let max_dram = fast_limit(view);
        let max = max_dram.saturating_sub(self.watermarks(max_dram).1);
        let fit = |hg: &[u64; 16]| {
            let mut n = 0u64;
            let mut idx = 15i32;
            while idx >= 0 && n + hg[idx as usize] <= max {
                n += hg[idx as usize];
                idx -= 1;
            }
            ((if idx != 15 { idx + 1 } else { idx }) as u32, n)
        };
        let (idx_hot, nr_active) = fit(&self.cg.hg);
        let (idx_bp, _) = fit(&self.cg.ebp);
        let need_warm = nr_active < max * 75 / 100;
        let (idx_hot, idx_bp) = (idx_hot.max(self.thres_hot), idx_bp.max(self.thres_hot));
        let cg = &mut self.cg;
        if cg.cooled {
            if idx_hot < cg.active && cg.active > 1 {
                cg.active -= 1;
            }
            if idx_bp < cg.bp {
                cg.bp = idx_bp;
            }
            cg.cooled = false;
            cg.need_adjusting = [true; 2];
            if cg.need_split {
                self.set_nr_split();
                self.set_split_thres();
                self.cg.nr_for_split = 0;
                self.cg.need_split = false;
            }
        } else {
            if idx_hot > cg.active {
                cg.active = idx_hot;
                cg.need_adjusting = [true; 2];
            } else if cg.split_happen && cg.split_on && idx_hot < cg.active {
                cg.active = idx_hot;
                cg.need_adjusting = [true; 2];
            }
            cg.bp = idx_bp;
        }
        let cg = &mut self.cg;
        cg.warm = if self.warm && need_warm { cg.active.saturating_sub(1) } else { cg.active };
    }

    /// `set_memcg_nr_split`: how many base pages' worth of huge pages to split.
    fn set_nr_split(&mut self) {
        let cg = &mut self.cg;
        cg.nr_split = 0;
        cg.nr_split_tail = 0;
        let ehr = cg.prev_max_dram * 95 / 100;
        let rhr = cg.prev_dram;
        if ehr <= rhr || cg.num_util == 0 {
            return;
        }
        let avg = cg.sum_util / cg.num_util;
        if avg == 0 {
            return;
        }
        let records = (self.cooling_period << 1).saturating_sub(self.cooling_period.checked_shr(cg.clock.saturating_sub(1)).unwrap_or(0)).max(1);
        // In 128 bits: the code's unsigned long cannot overflow at its sample counts, these may.
        let mut n = u128::from(ehr - rhr) * u128::from(cg.sum_util) / u128::from(records) / u128::from(avg);
        n = n * u128::from(self.captier_lat - DRAM_LAT) / u128::from(DRAM_LAT);
        n *= u128::from(self.pmd_nr);
        cg.nr_split = u64::try_from(n * u128::from(self.gamma) / 10).unwrap_or(u64::MAX);
    }

    /// `set_memcg_split_thres`: the skewness bin from which huge pages are split.
    fn set_split_thres(&mut self) {
        let cg = &mut self.cg;
        if cg.nr_split == 0 {
            cg.split_thres = 21;
            return;
        }
        let mut left = cg.nr_split;
        let mut i = 20;
        while i > 0 {
            let pages = cg.access_map[i] * self.pmd_nr;
            if left < pages {
                cg.nr_split_tail = left;
                cg.nr_split -= left;
                break;
            }
            left -= pages;
            i -= 1;
        }
        if i != 20 {
            cg.split_thres = i as u32 + 1;
        }
    }

    /// `check_split_huge_page`: whether unit `u` is split, taking it from the budget.
    pub(super) fn check_split(&mut self, u: u32) -> bool {
        let cg = &mut self.cg;
        let h = self.units[u as usize];
        if !cg.split_on || cg.split_thres == 0 || h.queued || h.skew + 1 < cg.split_thres {
            return false;
        }
        let tail = h.skew + 1 == cg.split_thres || cg.nr_split == 0;
        if tail && cg.nr_split_tail == 0 {
            return false;
        }
        if tail {
            cg.nr_split_tail = cg.nr_split_tail.saturating_sub(self.pmd_nr);
        } else {
            cg.nr_split = cg.nr_split.saturating_sub(self.pmd_nr);
        }
        cg.access_map[h.skew as usize] = cg.access_map[h.skew as usize].saturating_sub(1);
        true
    }
}

/// Pages the workload has placed (the memcg's usage).
pub(super) fn footprint(view: &View<'_>) -> u64 {
    view.machine.capacity_pages.iter().sum::<u64>().saturating_sub(view.free.iter().sum::<u64>())
}

/// The cgroup's fast-node limit (`max_nr_dram_pages`): the fast node's capacity.
fn fast_limit(view: &View<'_>) -> u64 {
    tiering::fast_and_slow(view.machine).map_or(0, |(f, _)| view.machine.capacity_pages[f.index()])
}
