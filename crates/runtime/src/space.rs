//! The managed address space, readable from a signal handler: registered regions, per-page
//! per-node sample counts, and which pages have their access revoked for hinting-fault
//! sampling.
//!
//! Everything the fault handler touches is a fixed-size table of atomics: no locks, no
//! allocation (async-signal-safe). Writers (registration, revocation) hold the runtime's lock,
//! so there is one writer at a time; readers see a slot only once `live` is published.
//!
//! Hinting faults (the user-level form of Linux's NUMA hinting faults, and of seed 003 §6's
//! suggestion to sample with page protection where no bus analyser exists): the sampler marks
//! a page *revoked* (and not *taken*), then `mprotect`s it `PROT_NONE`. The next access faults;
//! the handler restores `PROT_READ|PROT_WRITE`, and whoever sets the page's *taken* bit counts
//! one sample for the faulting CPU's node. The revoked bit stays set until the next revocation:
//! a second thread that faulted on the page before it was restored, but whose handler runs
//! after, still finds it ours, restores (idempotent) and returns. A fault on a managed page
//! never revoked is not ours and goes to the application's handler. Managed regions are
//! assumed read-write: the program must not `mprotect` them itself.

use std::sync::atomic::{fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering::*};

pub const MAX_REGIONS: usize = 256;
pub const MAX_CPUS: usize = 4096;
/// Buffers of system calls in flight that the sampler leaves accessible ([`Space::pin`]).
pub const MAX_PINS: usize = 64;

/// Where a revocation is when it calls its test hook ([`Space::revoke_pages`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// The bits are set and the pins read; nothing is protected yet.
    BeforeProtect,
    /// The pages are protected; pinned buffers not yet restored.
    AfterProtect,
}

/// One pinned buffer, `[start, end)`; `end == 0`: free.
pub struct Pin {
    start: AtomicUsize,
    end: AtomicUsize,
}

#[allow(clippy::declare_interior_mutable_const)]
const FREE_PIN: Pin = Pin { start: AtomicUsize::new(0), end: AtomicUsize::new(0) };

/// One registered region.
pub struct Slot {
    pub start: AtomicUsize,
    pub pages: AtomicUsize,
    /// Index of the region's first page in the runtime's page numbering (stable, never reused).
    pub first: AtomicUsize,
    /// `pages * nodes` sample counters.
    counts: AtomicPtr<AtomicU32>,
    /// One bit per page: access revoked by the sampler in the current interval.
    revoked: AtomicPtr<AtomicU64>,
    /// One bit per page: the revoked page's access was restored (its sample taken).
    taken: AtomicPtr<AtomicU64>,
    pub live: AtomicBool,
}

#[allow(clippy::declare_interior_mutable_const)]
const EMPTY_SLOT: Slot = Slot {
    start: AtomicUsize::new(0),
    pages: AtomicUsize::new(0),
    first: AtomicUsize::new(0),
    counts: AtomicPtr::new(std::ptr::null_mut()),
    revoked: AtomicPtr::new(std::ptr::null_mut()),
    taken: AtomicPtr::new(std::ptr::null_mut()),
    live: AtomicBool::new(false),
};

#[allow(clippy::declare_interior_mutable_const)]
const NO_NODE: AtomicU8 = AtomicU8::new(0);

/// The process's managed space (one per process: [`SPACE`]).
pub struct Space {
    pub slots: [Slot; MAX_REGIONS],
    pub nodes: AtomicUsize,
    pub page_size: AtomicUsize,
    cpu_node: [AtomicU8; MAX_CPUS],
    /// Samples counted (faults claimed, and system-call buffers restored).
    pub samples: AtomicU64,
    /// Number of live slots (0: the fault and system-call paths return at once).
    pub live_slots: AtomicUsize,
    /// Whether the fault-handling path is enabled (handler installed).
    pub armed: AtomicBool,
    /// Buffers of system calls in flight ([`Space::pin`]).
    pins: [Pin; MAX_PINS],
    /// System calls in flight with a managed buffer no pin covers (every pin was taken, or the
    /// call has more buffers than it may pin): while there is one, a revocation protects
    /// nothing ([`Space::enter_unpinned`]).
    unpinned: AtomicUsize,
    /// Revocations under way (set before their bits are read against pins and unpinned
    /// calls, cleared when their pages are as they will stay): a call about to use managed
    /// buffers waits for none ([`Space::wait_revocation`]).
    revoking: AtomicUsize,
}

pub static SPACE: Space = Space::new();

impl Default for Space {
    fn default() -> Self {
        Space::new()
    }
}

/// A leaked, zeroed array of `n` atomics (lives as long as the process: slots may be read by a
/// handler at any time).
fn leak_zeroed<T: Default>(n: usize) -> *mut T {
    let v: Vec<T> = (0..n.max(1)).map(|_| T::default()).collect();
    Box::leak(v.into_boxed_slice()).as_mut_ptr()
}

impl Space {
    /// An empty space: no region, one node, 4 KiB pages.
    pub const fn new() -> Space {
        Space {
            slots: [EMPTY_SLOT; MAX_REGIONS],
            nodes: AtomicUsize::new(1),
            page_size: AtomicUsize::new(4096),
            cpu_node: [NO_NODE; MAX_CPUS],
            samples: AtomicU64::new(0),
            live_slots: AtomicUsize::new(0),
            armed: AtomicBool::new(false),
            pins: [FREE_PIN; MAX_PINS],
            unpinned: AtomicUsize::new(0),
            revoking: AtomicUsize::new(0),
        }
    }

    /// Waits (a bounded while: at most about 10,000 yields) until no revocation is under way,
    /// after pinning a call's buffers or entering an unpinned call: a revocation that started
    /// before saw neither, and may be about to protect the buffers; one that starts after sees
    /// both. The bound keeps a call made by a signal handler that interrupted a revocation in
    /// its own thread from waiting for ever (its buffers are then opened when it fails with
    /// `EFAULT`). Async-signal-safe.
    pub fn wait_revocation(&self) {
        for _ in 0..10_000 {
            if self.revoking.load(SeqCst) == 0 {
                return;
            }
            // SAFETY: sched_yield has no preconditions.
            unsafe { libc::sched_yield() };
        }
    }

    /// A system call is about to use a managed buffer that no pin covers: until
    /// [`Space::leave_unpinned`], every revocation opens again what it protected, so the call
    /// cannot meet a protected page (whose copy, half done, would return a short count no
    /// retry can repair). Sampling pauses meanwhile. Call before restoring the buffer: either
    /// the revocation sees the count, or the restore sees the revocation.
    pub fn enter_unpinned(&self) {
        self.unpinned.fetch_add(1, SeqCst);
        fence(SeqCst);
    }

    /// The call of [`Space::enter_unpinned`] has returned.
    pub fn leave_unpinned(&self) {
        self.unpinned.fetch_sub(1, Release);
    }

    /// Pins `[addr, addr+len)`, the buffer of a system call about to run: until [`Space::unpin`],
    /// a revocation that covers it restores it at once, so the call cannot meet a protected
    /// page even when it blocks. Returns the pin, or `None` when every pin is taken (the
    /// caller then relies on retrying a call that fails with `EFAULT`). Call before restoring
    /// the buffer ([`Space::restore_range`]): either the revocation sees the pin, or the
    /// restore sees the revocation (both sides store, fence, then load).
    /// A buffer outside every managed region needs no pin and takes none.
    pub fn pin(&self, addr: usize, len: usize) -> Option<usize> {
        if len == 0 || self.live_slots.load(Relaxed) == 0 || self.find_overlap(addr, len).is_none() {
            return None;
        }
        let end = addr.saturating_add(len);
        let i = self.pins.iter().position(|p| p.end.compare_exchange(0, end, AcqRel, Relaxed).is_ok())?;
        self.pins[i].start.store(addr, SeqCst);
        fence(SeqCst);
        Some(i)
    }

    /// Releases a pin from [`Space::pin`].
    pub fn unpin(&self, pin: usize) {
        self.pins[pin].start.store(0, Relaxed);
        self.pins[pin].end.store(0, Release);
    }

    /// Opens, without counting them, the pages of `[from, to)` of `slot` that a pinned
    /// buffer covers (after they were revoked). Whatever the bits say: the call that pinned
    /// the buffer may have restored it between this revocation's setting of the bits and its
    /// `mprotect` (its *taken* bits are then set on pages protected again), and a bit-driven
    /// restore would leave the buffer `PROT_NONE` for the call to fail on with `EFAULT`.
    fn restore_pinned(&self, slot: usize, from: usize, to: usize) {
        fence(SeqCst);
        self.each_pinned(slot, from, to, |a, b| self.open_pages(slot, a, b));
    }

    /// Calls `f(a, b)` for each pinned buffer overlapping the pages `from..to` of `slot`, with
    /// the pages `a..b` it covers there. A pin still being published (its start not yet
    /// stored) counts from 0: wider. Async-signal-safe (no allocation).
    fn each_pinned(&self, slot: usize, from: usize, to: usize, mut f: impl FnMut(usize, usize)) {
        let ps = self.page_size.load(Relaxed);
        let base = self.slots[slot].start.load(Relaxed);
        let (lo, hi) = (base + from * ps, base + to * ps);
        for p in &self.pins {
            let end = p.end.load(SeqCst);
            if end == 0 {
                continue;
            }
            let start = p.start.load(SeqCst);
            if start < hi && lo < end {
                f((start.max(lo) - base) / ps, (end.min(hi) - base).div_ceil(ps));
            }
        }
    }

    /// Sets the node count, page size and CPU → node table (before any region exists).
    pub fn configure(&self, nodes: usize, page_size: usize, cpu_nodes: &[Option<u8>]) {
        self.nodes.store(nodes.max(1), Relaxed);
        self.page_size.store(page_size, Relaxed);
        for (c, n) in cpu_nodes.iter().enumerate().take(MAX_CPUS) {
            self.cpu_node[c].store(n.unwrap_or(0), Relaxed);
        }
    }

    /// Dense node of the calling CPU (async-signal-safe).
    pub fn current_node(&self) -> usize {
        let mut cpu: libc::c_uint = 0;
        // SAFETY: getcpu writes one unsigned int; the other arguments may be null.
        let rc = unsafe { libc::syscall(libc::SYS_getcpu, &mut cpu as *mut libc::c_uint, std::ptr::null_mut::<libc::c_uint>(), std::ptr::null_mut::<libc::c_void>()) };
        if rc != 0 || cpu as usize >= MAX_CPUS {
            return 0;
        }
        self.cpu_node[cpu as usize].load(Relaxed) as usize
    }

    /// Publishes a region in a free slot. Caller holds the runtime lock.
    ///
    /// # Errors
    /// Every slot is taken.
    pub fn add(&self, start: usize, pages: usize, first: usize) -> Result<usize, String> {
        let nodes = self.nodes.load(Relaxed);
        let i = self
            .slots
            .iter()
            .position(|s| !s.live.load(Acquire) && s.start.load(Relaxed) == 0)
            .or_else(|| self.slots.iter().position(|s| !s.live.load(Acquire)))
            .ok_or_else(|| format!("too many managed regions (at most {MAX_REGIONS})"))?;
        let s = &self.slots[i];
        s.start.store(start, Relaxed);
        s.pages.store(pages, Relaxed);
        s.first.store(first, Relaxed);
        s.counts.store(leak_zeroed::<AtomicU32>(pages * nodes), Relaxed);
        s.revoked.store(leak_zeroed::<AtomicU64>(pages.div_ceil(64)), Relaxed);
        s.taken.store(leak_zeroed::<AtomicU64>(pages.div_ceil(64)), Relaxed);
        s.live.store(true, Release);
        self.live_slots.fetch_add(1, Relaxed);
        Ok(i)
    }

    /// Withdraws a region: restores access to its revoked pages, then unpublishes it.
    pub fn remove(&self, i: usize) {
        let s = &self.slots[i];
        if !s.live.load(Acquire) {
            return;
        }
        self.open_all(i);
        s.live.store(false, Release);
        self.live_slots.fetch_sub(1, Relaxed);
    }

    /// The slot and page index holding `addr`, among live slots.
    pub fn find(&self, addr: usize) -> Option<(usize, usize)> {
        if self.live_slots.load(Relaxed) == 0 {
            return None;
        }
        let ps = self.page_size.load(Relaxed);
        for (i, s) in self.slots.iter().enumerate() {
            if !s.live.load(Acquire) {
                continue;
            }
            let start = s.start.load(Relaxed);
            let len = s.pages.load(Relaxed) * ps;
            if addr >= start && addr < start + len {
                return Some((i, (addr - start) / ps));
            }
        }
        None
    }

    fn revoked_word(&self, slot: usize, page: usize) -> &AtomicU64 {
        // SAFETY: the slot is live, so its bitmap holds pages.div_ceil(64) words and is never
        // freed; `page` < pages was checked by the caller.
        unsafe { &*self.slots[slot].revoked.load(Relaxed).add(page / 64) }
    }

    fn taken_word(&self, slot: usize, page: usize) -> &AtomicU64 {
        // SAFETY: as `revoked_word`.
        unsafe { &*self.slots[slot].taken.load(Relaxed).add(page / 64) }
    }

    /// Whether `page` is protected now: revoked and not yet restored.
    fn protected(&self, slot: usize, page: usize) -> bool {
        let bit = 1u64 << (page % 64);
        self.revoked_word(slot, page).load(Acquire) & bit != 0 && self.taken_word(slot, page).load(Acquire) & bit == 0
    }

    /// Sample count of `page` of `slot` for `node`.
    pub fn count(&self, slot: usize, page: usize, node: usize) -> u32 {
        let nodes = self.nodes.load(Relaxed);
        // SAFETY: live slot, page < pages, node < nodes.
        unsafe { (*self.slots[slot].counts.load(Relaxed).add(page * nodes + node)).load(Relaxed) }
    }

    /// Clears every sample count of `slot`.
    pub fn clear_counts(&self, slot: usize) {
        let n = self.slots[slot].pages.load(Relaxed) * self.nodes.load(Relaxed);
        let base = self.slots[slot].counts.load(Relaxed);
        for k in 0..n {
            // SAFETY: k < pages * nodes.
            unsafe { (*base.add(k)).store(0, Relaxed) };
        }
    }

    /// Halves every sample count of `slot` (a policy's aging).
    pub fn age_counts(&self, slot: usize) {
        let n = self.slots[slot].pages.load(Relaxed) * self.nodes.load(Relaxed);
        let base = self.slots[slot].counts.load(Relaxed);
        for k in 0..n {
            // SAFETY: k < pages * nodes.
            let c = unsafe { &*base.add(k) };
            let _ = c.fetch_update(Relaxed, Relaxed, |v| Some(v / 2));
        }
    }

    fn record(&self, slot: usize, page: usize, node: usize) {
        let nodes = self.nodes.load(Relaxed);
        // SAFETY: live slot, page < pages, node < nodes (the cpu table holds dense nodes).
        unsafe { (*self.slots[slot].counts.load(Relaxed).add(page * nodes + node.min(nodes - 1))).fetch_add(1, Relaxed) };
        self.samples.fetch_add(1, Relaxed);
        if std::ptr::eq(self, &SPACE) {
            // For a policy that takes hinting faults one by one (crate::faultq).
            crate::faultq::FAULTS.push(self.slots[slot].first.load(Relaxed) + page, node.min(nodes - 1));
        }
    }

    /// Revokes access to pages `[from, to)` of `slot`: set the bits, then `PROT_NONE`.
    ///
    /// # Errors
    /// `mprotect` failed (errno).
    pub fn revoke_pages(&self, slot: usize, from: usize, to: usize) -> Result<(), i32> {
        self.revoke_pages_then(slot, from, to, |_| {})
    }

    /// [`Space::revoke_pages`], calling `hook` at the points where another thread's call may
    /// run (the tests put one there): before the `mprotect` ([`Stage::BeforeProtect`]) and
    /// between it and the restore of pinned buffers ([`Stage::AfterProtect`]).
    ///
    /// Pages of buffers pinned when the revocation starts are never protected: a call blocked
    /// on one (a `recv` waiting for data) could otherwise have its copy land in the moment
    /// between this `mprotect` and the restore after it, and fail with `EFAULT`. A buffer
    /// pinned while the revocation runs is opened after the `mprotect` ([`Space::restore_pinned`]).
    fn revoke_pages_then(&self, slot: usize, from: usize, to: usize, mut hook: impl FnMut(Stage)) -> Result<(), i32> {
        if from >= to {
            return Ok(());
        }
        self.revoking.fetch_add(1, SeqCst);
        let r = self.revoke_under_way(slot, from, to, &mut hook);
        self.revoking.fetch_sub(1, SeqCst);
        r
    }

    fn revoke_under_way(&self, slot: usize, from: usize, to: usize, hook: &mut impl FnMut(Stage)) -> Result<(), i32> {
        for p in from..to {
            self.revoked_word(slot, p).fetch_or(1 << (p % 64), AcqRel);
            self.taken_word(slot, p).fetch_and(!(1 << (p % 64)), AcqRel);
        }
        // The pins published by now, as page ranges of this slot (both sides store, fence,
        // then load: a pin published later waits for this revocation to end, then restores
        // by the bits; restore_pinned opens it too).
        fence(SeqCst);
        if self.unpinned.load(SeqCst) > 0 {
            // A call with a buffer no pin covers is in flight: protect nothing (and open what
            // earlier revocations left protected here).
            self.open_pages(slot, from, to);
            return Ok(());
        }
        let ps = self.page_size.load(Relaxed);
        let base = self.slots[slot].start.load(Relaxed);
        let mut pinned = [(0usize, 0usize); MAX_PINS];
        let mut n = 0;
        self.each_pinned(slot, from, to, |a, b| {
            pinned[n] = (a, b);
            n += 1;
        });
        let is_pinned = |page: usize| pinned[..n].iter().any(|&(a, b)| a <= page && page < b);
        hook(Stage::BeforeProtect);
        let mut page = from;
        while page < to {
            if is_pinned(page) {
                // Restored at once, uncounted: as restore_pinned would.
                self.taken_word(slot, page).fetch_or(1 << (page % 64), AcqRel);
                page += 1;
                continue;
            }
            let mut q = page + 1;
            while q < to && !is_pinned(q) {
                q += 1;
            }
            // SAFETY: the range lies inside a region the program registered as its own memory.
            let rc = unsafe { libc::mprotect((base + page * ps) as *mut libc::c_void, (q - page) * ps, libc::PROT_NONE) };
            if rc != 0 {
                let e = std::io::Error::last_os_error().raw_os_error().unwrap_or(0);
                self.open_pages(slot, from, to);
                return Err(e);
            }
            page = q;
        }
        hook(Stage::AfterProtect);
        fence(SeqCst);
        if self.unpinned.load(SeqCst) > 0 {
            // A call with a buffer no pin covers is in flight: protect nothing now.
            self.open_pages(slot, from, to);
            return Ok(());
        }
        self.restore_pinned(slot, from, to);
        Ok(())
    }

    /// Restores access to the protected pages among `[from, to)` of `slot`; counts a sample
    /// for each page whose *taken* bit this call set when `count` is set. Async-signal-safe.
    pub fn restore_pages(&self, slot: usize, from: usize, to: usize, count: bool) -> usize {
        let ps = self.page_size.load(Relaxed);
        let start = self.slots[slot].start.load(Relaxed);
        let node = if count { self.current_node() } else { 0 };
        let mut restored = 0;
        let mut p = from;
        while p < to {
            if !self.protected(slot, p) {
                p += 1;
                continue;
            }
            // A run of protected pages, restored with one mprotect.
            let mut q = p + 1;
            while q < to && self.protected(slot, q) {
                q += 1;
            }
            // SAFETY: restores the program's own protection (read-write) on its own pages.
            unsafe { libc::mprotect((start + p * ps) as *mut libc::c_void, (q - p) * ps, libc::PROT_READ | libc::PROT_WRITE) };
            for k in p..q {
                let bit = 1u64 << (k % 64);
                if self.taken_word(slot, k).fetch_or(bit, AcqRel) & bit == 0 {
                    restored += 1;
                    if count {
                        self.record(slot, k, node);
                    }
                }
            }
            p = q;
        }
        restored
    }

    /// Makes every page of `slot` accessible and marks every revoked page taken, whatever the
    /// bits say: a revocation racing with a fault handler can leave a page `PROT_NONE` with
    /// its taken bit set (the handler restored and marked it between the sampler's clearing
    /// and its `mprotect`), which the program never notices (its next access restores the
    /// page) but `move_pages` would (it does not see `PROT_NONE` pages). The runtime calls
    /// this, under its lock, before it queries or moves pages.
    pub fn open_all(&self, slot: usize) {
        let s = &self.slots[slot];
        let pages = s.pages.load(Relaxed);
        let ps = self.page_size.load(Relaxed);
        // SAFETY: restores the program's own protection (read-write) on its own pages.
        unsafe { libc::mprotect(s.start.load(Relaxed) as *mut libc::c_void, pages * ps, libc::PROT_READ | libc::PROT_WRITE) };
        for w in 0..pages.div_ceil(64) {
            // SAFETY: w < pages.div_ceil(64), the bitmap's length.
            let (rev, taken) = unsafe { (&*s.revoked.load(Relaxed).add(w), &*s.taken.load(Relaxed).add(w)) };
            taken.fetch_or(rev.load(Acquire), AcqRel);
        }
    }

    /// Makes pages `[from, to)` of `slot` accessible and marks the revoked ones taken, whatever
    /// the bits say (uncounted): [`Space::open_all`] for a range. Async-signal-safe.
    fn open_pages(&self, slot: usize, from: usize, to: usize) {
        let s = &self.slots[slot];
        let to = to.min(s.pages.load(Relaxed));
        if from >= to {
            return;
        }
        let ps = self.page_size.load(Relaxed);
        // SAFETY: restores the program's own protection (read-write) on its own pages.
        unsafe { libc::mprotect((s.start.load(Relaxed) + from * ps) as *mut libc::c_void, (to - from) * ps, libc::PROT_READ | libc::PROT_WRITE) };
        for p in from..to {
            let bit = 1u64 << (p % 64);
            if self.revoked_word(slot, p).load(Acquire) & bit != 0 {
                self.taken_word(slot, p).fetch_or(bit, AcqRel);
            }
        }
    }

    /// Makes every managed page of `[addr, addr+len)` accessible whatever the bits say
    /// (uncounted): for a system call's buffer that failed with `EFAULT` although restored —
    /// a fault handler's restore that raced with a revocation leaves a page `PROT_NONE` with
    /// its *taken* bit set (see [`Space::open_all`]), which a bit-driven restore skips, and
    /// for stdio's calls, which cannot be retried. Async-signal-safe.
    pub fn open_range(&self, addr: usize, len: usize) {
        self.each_overlap(addr, len, |slot, from, to| self.open_pages(slot, from, to));
    }

    /// Calls `f(slot, from, to)` for each live slot overlapping `[addr, addr+len)`, with the
    /// slot's pages `from..to` that the range covers. Async-signal-safe (no allocation).
    fn each_overlap(&self, addr: usize, len: usize, mut f: impl FnMut(usize, usize, usize)) {
        if len == 0 || self.live_slots.load(Relaxed) == 0 {
            return;
        }
        let ps = self.page_size.load(Relaxed);
        let end = addr.saturating_add(len);
        for (i, s) in self.slots.iter().enumerate() {
            if !s.live.load(Acquire) {
                continue;
            }
            let start = s.start.load(Relaxed);
            let stop = start + s.pages.load(Relaxed) * ps;
            if end <= start || addr >= stop {
                continue;
            }
            f(i, (addr.max(start) - start) / ps, (end.min(stop) - start).div_ceil(ps));
        }
    }

    /// The fault path: if `addr` is a managed page revoked in this interval, make sure it is
    /// accessible, count the sample if nobody has, and return true (the access is retried);
    /// otherwise false (not ours).
    pub fn claim_fault(&self, addr: usize) -> bool {
        let Some((slot, page)) = self.find(addr) else { return false };
        let bit = 1u64 << (page % 64);
        if self.revoked_word(slot, page).load(Acquire) & bit == 0 {
            return false;
        }
        if self.restore_pages(slot, page, page + 1, true) == 0 {
            // Restored by another thread after this one faulted: make sure (idempotent).
            let ps = self.page_size.load(Relaxed);
            let start = self.slots[slot].start.load(Relaxed) + page * ps;
            // SAFETY: as in restore_pages.
            unsafe { libc::mprotect(start as *mut libc::c_void, ps, libc::PROT_READ | libc::PROT_WRITE) };
        }
        true
    }

    /// Before a system call reads into or writes from `[addr, addr+len)`: restores access to
    /// every revoked managed page there (counting them as accesses of this CPU's node), so
    /// the call behaves exactly as without sampling.
    pub fn restore_range(&self, addr: usize, len: usize) {
        self.each_overlap(addr, len, |slot, from, to| {
            self.restore_pages(slot, from, to, true);
        });
    }

    /// The first live slot overlapping `[addr, addr+len)`.
    pub fn find_overlap(&self, addr: usize, len: usize) -> Option<usize> {
        let ps = self.page_size.load(Relaxed);
        let end = addr.saturating_add(len);
        self.slots.iter().position(|s| {
            s.live.load(Acquire) && {
                let start = s.start.load(Relaxed);
                addr < start + s.pages.load(Relaxed) * ps && start < end
            }
        })
    }

    /// Adds `n` samples of `node` to `page` of `slot` (tests of the policy glue, where no real
    /// fault happens).
    pub fn inject(&self, slot: usize, page: usize, node: usize, n: u32) {
        for _ in 0..n {
            self.record(slot, page, node);
        }
    }

    /// Whether `page` of `slot` is protected now (revoked, not yet restored).
    pub fn is_revoked(&self, slot: usize, page: usize) -> bool {
        self.protected(slot, page)
    }
}

/// What tests that configure or sample [`SPACE`] share.
#[cfg(test)]
pub(crate) mod testing {
    /// [`super::SPACE`] is one per process, and `numaplace_init` (the C API's test) configures
    /// it for this host's nodes: a test that configures it for the fake 4-node kernel and
    /// injects samples holds this lock throughout, so no other test reconfigures it in between.
    static SPACE_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

    /// Holds [`super::SPACE`] for one test (a failed test's poisoning does not fail the others).
    pub(crate) fn hold_space() -> std::sync::MutexGuard<'static, ()> {
        SPACE_LOCK.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pages: usize) -> usize {
        // SAFETY: a fresh anonymous private mapping.
        let p = unsafe { libc::mmap(std::ptr::null_mut(), pages * 4096, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0) };
        assert_ne!(p, libc::MAP_FAILED);
        p as usize
    }

    #[test]
    fn revoke_then_restore_range_counts_each_page_once_and_keeps_data() {
        let space = Space::new();
        space.nodes.store(2, Relaxed);
        let base = map(8);
        // SAFETY: our own mapping.
        unsafe { *(base as *mut u64) = 42 };
        let slot = space.add(base, 8, 100).unwrap();
        assert!(!space.claim_fault(base)); // never revoked: not ours
        assert_eq!(space.find(base + 3 * 4096 + 5), Some((slot, 3)));
        assert_eq!(space.find(base + 8 * 4096), None);
        space.revoke_pages(slot, 0, 8).unwrap();
        assert!((0..8).all(|p| space.is_revoked(slot, p)));
        space.restore_range(base + 4096 + 10, 2 * 4096);
        assert_eq!((0..8).filter(|&p| space.is_revoked(slot, p)).count(), 5);
        assert_eq!(space.samples.load(Relaxed), 3);
        assert_eq!((0..2).map(|n| space.count(slot, 1, n)).sum::<u32>(), 1);
        // Restoring again claims nothing more.
        space.restore_range(base + 4096, 4096);
        assert_eq!(space.samples.load(Relaxed), 3);
        assert!(space.claim_fault(base)); // page 0 was revoked
        assert_eq!(space.samples.load(Relaxed), 4);
        // A late fault on the restored page (another thread's) is still ours, and not counted.
        assert!(space.claim_fault(base));
        assert_eq!(space.samples.load(Relaxed), 4);
        // SAFETY: page 0 is accessible again.
        assert_eq!(unsafe { *(base as *const u64) }, 42);
        space.remove(slot);
        assert_eq!(space.find(base), None);
        // remove restored the rest: every page is readable.
        for p in 0..8 {
            // SAFETY: restored pages of our mapping.
            let _ = unsafe { std::ptr::read_volatile((base + p * 4096) as *const u8) };
        }
    }

    /// Whether the kernel can read `[addr, addr+len)` for a system call (a write to a pipe
    /// fails with `EFAULT` on a `PROT_NONE` page instead of faulting).
    fn readable_by_the_kernel(addr: usize, len: usize) -> bool {
        let mut fd = [0; 2];
        // SAFETY: a fresh pipe, written from our own mapping (or failing with EFAULT), closed.
        unsafe {
            assert_eq!(libc::pipe(fd.as_mut_ptr()), 0);
            let n = libc::write(fd[1], addr as *const libc::c_void, len);
            libc::close(fd[0]);
            libc::close(fd[1]);
            n == len as isize
        }
    }

    #[test]
    fn a_call_that_restores_its_pinned_buffer_while_a_revocation_is_half_done_keeps_it_accessible() {
        // The race a loaded host showed (pwritev(2) from sampled pages failed): the sampler
        // set the bits of every page and was preempted before its mprotect; the call pinned
        // its buffer and restored it (setting the taken bits, the mprotect a no-op); the
        // sampler's mprotect then protected the buffer again, and its restore of pinned
        // buffers, going by the bits, found nothing to restore.
        let space = Space::new();
        let base = map(8);
        let slot = space.add(base, 8, 0).unwrap();
        let (buf, len) = (base + 2 * 4096 + 100, 2 * 4096);
        let mut pin = None;
        space
            .revoke_pages_then(slot, 0, 8, |stage| {
                if stage == Stage::BeforeProtect {
                    pin = space.pin(buf, len);
                    space.restore_range(buf, len);
                }
            })
            .unwrap();
        assert!(readable_by_the_kernel(buf, len), "the pinned buffer was left PROT_NONE");
        let protected: Vec<bool> = (0..8).map(|p| space.is_revoked(slot, p)).collect();
        assert_eq!(protected, [true, true, false, false, false, true, true, true]);
        // Pinned before the revocation starts (a call blocked on it), the buffer is never
        // protected, not even between the mprotect and the restore of pinned buffers.
        space
            .revoke_pages_then(slot, 0, 8, |stage| {
                if stage == Stage::AfterProtect {
                    assert!(readable_by_the_kernel(buf, len), "a blocked call's buffer was protected for a moment");
                    assert!(!readable_by_the_kernel(base, 4096));
                }
            })
            .unwrap();
        space.unpin(pin.unwrap());
        // Unpinned, a fault handler's restore in the same place leaves the page PROT_NONE with
        // its taken bit set: a bit-driven restore skips it, open_range opens it.
        let page5 = base + 5 * 4096;
        space.revoke_pages_then(slot, 0, 8, |stage| if stage == Stage::BeforeProtect { assert!(space.claim_fault(page5)) }).unwrap();
        space.restore_range(page5, 4096);
        assert!(!readable_by_the_kernel(page5, 4096), "the race this test provokes did not happen");
        space.open_range(page5, 4096);
        assert!(readable_by_the_kernel(page5, 4096));
        assert!(!readable_by_the_kernel(base + 6 * 4096, 4096), "open_range opened only its range");
        space.remove(slot);
    }

    #[test]
    fn while_a_call_with_an_unpinned_buffer_is_in_flight_a_revocation_protects_nothing() {
        let space = Space::new();
        let base = map(8);
        let slot = space.add(base, 8, 0).unwrap();
        // The call enters while the revocation is half done (after its bits, before its mprotect).
        space.revoke_pages_then(slot, 0, 8, |stage| if stage == Stage::BeforeProtect { space.enter_unpinned() }).unwrap();
        assert!(readable_by_the_kernel(base, 8 * 4096), "a page was left protected");
        assert!((0..8).all(|p| !space.is_revoked(slot, p)));
        space.revoke_pages(slot, 0, 8).unwrap();
        assert!(readable_by_the_kernel(base, 8 * 4096));
        space.leave_unpinned();
        space.revoke_pages(slot, 0, 8).unwrap();
        assert!((0..8).all(|p| space.is_revoked(slot, p)) && !readable_by_the_kernel(base, 4096));
        space.remove(slot);
    }

    #[test]
    fn a_pinned_buffer_stays_accessible_through_a_revocation() {
        let space = Space::new();
        let base = map(8);
        let slot = space.add(base, 8, 0).unwrap();
        // A call's buffer over pages 2-4 (from mid-page 2 to mid-page 4).
        let pin = space.pin(base + 2 * 4096 + 100, 2 * 4096).unwrap();
        space.revoke_pages(slot, 0, 8).unwrap();
        let protected: Vec<bool> = (0..8).map(|p| space.is_revoked(slot, p)).collect();
        assert_eq!(protected, [true, true, false, false, false, true, true, true]);
        // SAFETY: page 3 of our mapping, left accessible by the pin.
        unsafe { std::ptr::write_volatile((base + 3 * 4096) as *mut u8, 7) };
        // Restored pages of a pinned buffer are not samples.
        assert_eq!(space.samples.load(Relaxed), 0);
        space.unpin(pin);
        space.revoke_pages(slot, 0, 8).unwrap();
        assert!((0..8).all(|p| space.is_revoked(slot, p)));
        // A buffer outside the managed regions takes no pin.
        assert_eq!(space.pin(base + 8 * 4096, 4096), None);
        // Every pin taken: the next one is refused.
        let all: Vec<usize> = (0..MAX_PINS).map(|_| space.pin(base, 4096).unwrap()).collect();
        assert_eq!(space.pin(base, 4096), None);
        all.into_iter().for_each(|p| space.unpin(p));
        assert!(space.pin(base, 4096).is_some());
        space.remove(slot);
    }
}
