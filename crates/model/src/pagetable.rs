//! Page → home node, with per-node capacity accounting.
//!
//! One byte per page keeps per-page state small: 16 M pages (64 GiB of 4 KiB pages) cost 16 MiB.
//! A page never touched holds [`UNTOUCHED`]. When the node a placement chose is full, the page
//! goes to the nearest node with free memory (by latency from the chosen node), as IRIX did.

use crate::error::ModelError;
use crate::topology::Machine;
use crate::units::{NodeId, PageNo};

/// The home-node byte of a page that has not been touched yet.
pub const UNTOUCHED: u8 = 0xFF;

/// The bound on the simulator's per-page state for one run, bytes: 16 GiB. A run without a
/// policy keeps one byte per page, so every footprint a page number can address (2^32 pages)
/// fits; a policy adds its counters, replica masks and write tallies
/// ([`run_state_bytes`]), which on a two-node machine still allows about 690 M pages (2.6 TiB
/// of 4 KiB pages). The model cannot ask the host how much memory it has (it does no I/O), so
/// the bound is a constant: what a workstation can hold, refused with a one-line error
/// rather than an allocator abort.
pub const MAX_STATE_BYTES: u64 = 1 << 34;

/// One field of a page-level run's per-page state: `bytes` a page, plus `per_node` a page and
/// node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerPage {
    pub name: &'static str,
    pub bytes: u64,
    pub per_node: u64,
}

/// The per-page state of a page-level run, declared once: each field, and which fields each
/// kind of run keeps. [`run_state_bytes`] bounds a run by the largest layout before anything
/// is allocated; the engine's `state_bytes` sums what a run really allocated, field by field,
/// and its tests hold each policy's allocations to its layout here.
pub mod layout {
    use super::PerPage;

    /// The page table's home byte ([`super::PageTable`]): every run.
    pub const HOME: PerPage = PerPage { name: "home", bytes: 1, per_node: 0 };
    /// The page table's replica bitmask (allocated on the first replication).
    pub const REPLICA_MASK: PerPage = PerPage { name: "replica_mask", bytes: 8, per_node: 0 };
    /// The replicas' write tally (`u32`, a replicating policy).
    pub const REPLICA_WRITES: PerPage = PerPage { name: "replica_writes", bytes: 4, per_node: 0 };
    /// A 16-bit stale-line count per copy (a replicating policy).
    pub const STALE: PerPage = PerPage { name: "stale", bytes: 0, per_node: 2 };
    /// A 16-bit access counter per node (a policy that reads counters or samples into them).
    pub const COUNTERS: PerPage = PerPage { name: "counters", bytes: 0, per_node: 2 };
    /// A cost-aware gate's last target, agreement tally and home before its first move
    /// (`dynamic::cost`).
    pub const COST_GATE: PerPage = PerPage { name: "cost_gate", bytes: 4, per_node: 0 };
    /// The revoked flag (a policy that observes hinting faults).
    pub const REVOKED: PerPage = PerPage { name: "revoked", bytes: 1, per_node: 0 };
    /// The page-table entry's referenced byte (a policy that also reclaims by it).
    pub const REFERENCED: PerPage = PerPage { name: "referenced", bytes: 1, per_node: 0 };
    /// The reclaimer's LRU flags, the policy's own (`dynamic::tiering::Reclaim`).
    pub const RECLAIM_FLAGS: PerPage = PerPage { name: "reclaim_flags", bytes: 1, per_node: 0 };
    /// Each page's earliest store since the policy cleared it (a policy that tracks writes).
    pub const WRITTEN: PerPage = PerPage { name: "written", bytes: 8, per_node: 0 };

    /// No dynamic policy.
    pub const NO_POLICY: &[PerPage] = &[HOME];
    /// A counting or sampling policy, perhaps cost-aware.
    pub const COUNTING: &[PerPage] = &[HOME, COUNTERS, COST_GATE];
    /// A policy that observes hinting faults without reclaiming, perhaps cost-aware.
    pub const FAULTING: &[PerPage] = &[HOME, REVOKED, COST_GATE];
    /// A tiering policy that observes hinting faults and reclaims (`tpp`, `numab-tiering`):
    /// four bytes a page.
    pub const TIERED: &[PerPage] = &[HOME, REVOKED, REFERENCED, RECLAIM_FLAGS];
    /// `nomad`: a tiered policy that also tracks stores and keeps shadows (as replicas; its
    /// queued flag is one more byte, counted with the reclaimer's).
    pub const SHADOWING: &[PerPage] = &[HOME, REPLICA_MASK, REVOKED, REFERENCED, RECLAIM_FLAGS, WRITTEN];
    /// A replicating policy, perhaps cost-aware: the largest.
    pub const REPLICATING: &[PerPage] = &[HOME, REPLICA_MASK, REPLICA_WRITES, COUNTERS, STALE, COST_GATE];
    /// Every layout a run with a dynamic policy may have.
    pub const WITH_POLICY: &[&[PerPage]] = &[COUNTING, FAULTING, TIERED, SHADOWING, REPLICATING];

    /// Bytes a page of `fields` on a machine of `nodes` nodes.
    pub const fn bytes_per_page(fields: &[PerPage], nodes: usize) -> u64 {
        let mut sum = 0;
        let mut i = 0;
        while i < fields.len() {
            sum += fields[i].bytes + fields[i].per_node * nodes as u64;
            i += 1;
        }
        sum
    }
}

/// The bytes of per-page state a run of `pages` pages on `nodes` nodes may allocate: the home
/// byte, and with a dynamic policy the largest of the layouts a policy may have
/// ([`layout::WITH_POLICY`]; a replicating one's, 17 + 4 × nodes). Saturates rather than wraps.
pub fn run_state_bytes(pages: u64, nodes: usize, policy: bool) -> u64 {
    let per_page = if policy {
        layout::WITH_POLICY.iter().map(|l| layout::bytes_per_page(l, nodes)).max().unwrap_or(0)
    } else {
        layout::bytes_per_page(layout::NO_POLICY, nodes)
    };
    pages.saturating_mul(per_page)
}

/// Refuses `bytes` of simulator state for `what` (a run, a workload's inspection) above
/// [`MAX_STATE_BYTES`], before the caller allocates it.
///
/// # Errors
/// [`ModelError::StateTooLarge`], naming `what` and the bytes it would need.
pub fn check_state_bytes(what: &str, bytes: u64) -> Result<(), ModelError> {
    if bytes > MAX_STATE_BYTES {
        return Err(ModelError::StateTooLarge { what: what.to_string(), needed_bytes: bytes, limit_bytes: MAX_STATE_BYTES });
    }
    Ok(())
}

/// Home nodes of all pages of one address space.
#[derive(Clone, Debug)]
pub struct PageTable {
    home: Vec<u8>,
    /// Nodes holding a read-only replica of each page (bit n: node n), allocated on the first
    /// replication; replicas take capacity on their nodes.
    replicas: Vec<u64>,
    used: Vec<u64>,
    capacity: Vec<u64>,
    fallbacks: u64,
}

/// The page table's capacity accounting, borrowed by a hot loop beside the home bytes so that
/// it can place a first-touched page without leaving the loop ([`PageTable::placer`]).
pub struct Placer<'a> {
    used: &'a mut [u64],
    capacity: &'a [u64],
    fallbacks: &'a mut u64,
}

impl Placer<'_> {
    /// Whether `node` has a free page.
    #[inline(always)]
    pub fn has_room(&self, node: NodeId) -> bool {
        self.used[node.index()] < self.capacity[node.index()]
    }

    /// [`PageTable::place`], `home` being the table's home bytes.
    #[inline]
    pub fn place(&mut self, home: &mut [u8], page: PageNo, preferred: NodeId, machine: &Machine) -> NodeId {
        if self.has_room(preferred) {
            self.put(home, page, preferred, false);
            return preferred;
        }
        let node = self.fallback(preferred, machine);
        self.put(home, page, node, true);
        node
    }

    /// The nearest node to `preferred` (by latency from it) with a free page: where a page
    /// `preferred` has no room for goes.
    #[inline]
    pub fn fallback(&self, preferred: NodeId, machine: &Machine) -> NodeId {
        *machine.nearest[preferred.index()].iter().find(|n| self.has_room(**n)).expect("footprint was checked against capacity")
    }

    /// Places untouched `page` on `node`, which has room: where the placement wanted it, or
    /// (`fell_back`) the [`Placer::fallback`] of the node it wanted.
    #[inline(always)]
    pub fn put(&mut self, home: &mut [u8], page: PageNo, node: NodeId, fell_back: bool) {
        debug_assert_eq!(home[page.0 as usize], UNTOUCHED);
        debug_assert!(self.has_room(node));
        *self.fallbacks += u64::from(fell_back);
        self.used[node.index()] += 1;
        home[page.0 as usize] = node.0;
    }
}

impl PageTable {
    /// A table of `pages` untouched pages on `machine`.
    pub fn new(pages: usize, machine: &Machine) -> Self {
        PageTable {
            home: vec![UNTOUCHED; pages],
            replicas: Vec::new(),
            used: vec![0; machine.nodes()],
            capacity: machine.capacity_pages.clone(),
            fallbacks: 0,
        }
    }

    /// The raw home bytes, indexed by page number ([`UNTOUCHED`] where not yet placed). The
    /// engine's inner loop reads this slice directly.
    #[inline]
    pub fn homes(&self) -> &[u8] {
        &self.home
    }

    /// The home of `page`, if it has been placed.
    pub fn home(&self, page: PageNo) -> Option<NodeId> {
        match self.home[page.0 as usize] {
            UNTOUCHED => None,
            h => Some(NodeId(h)),
        }
    }

    /// Places an untouched page on `preferred`, or on the nearest node with free memory when
    /// `preferred` is full or has no memory. Returns the node used.
    ///
    /// The caller guarantees (by checking the footprint against the machine's capacity up
    /// front) that some node has room.
    pub fn place(&mut self, page: PageNo, preferred: NodeId, machine: &Machine) -> NodeId {
        let (home, mut placer, _) = self.placer();
        placer.place(home, page, preferred, machine)
    }

    /// The table opened for a hot loop: the home bytes, a [`Placer`] (placing untouched pages
    /// as [`PageTable::place`] does) and the replica masks, borrowed at once.
    #[inline]
    pub fn placer(&mut self) -> (&mut [u8], Placer<'_>, &[u64]) {
        (&mut self.home, Placer { used: &mut self.used, capacity: &self.capacity, fallbacks: &mut self.fallbacks }, &self.replicas)
    }

    /// Moves a placed page to `to`, or to the nearest node with room when `to` is full (as
    /// IRIX forwards a migration, seed 000 §3.1). Returns the node used, or `None` when the
    /// page is already there or no node has room.
    pub fn migrate(&mut self, page: PageNo, to: NodeId, machine: &Machine) -> Option<NodeId> {
        let from = self.home(page)?;
        debug_assert_eq!(self.replicas(page), 0, "collapse a page's replicas before migrating it");
        let node = *machine.nearest[to.index()].iter().find(|n| self.used[n.index()] < self.capacity[n.index()] || **n == from)?;
        if node == from {
            return None;
        }
        self.used[from.index()] -= 1;
        self.used[node.index()] += 1;
        self.home[page.0 as usize] = node.0;
        Some(node)
    }

    /// The replica bitmask of every page (empty until a page is replicated).
    #[inline]
    pub fn replica_masks(&self) -> &[u64] {
        &self.replicas
    }

    /// The nodes holding replicas of `page`, as a bitmask.
    pub fn replicas(&self, page: PageNo) -> u64 {
        self.replicas.get(page.0 as usize).copied().unwrap_or(0)
    }

    /// Adds a replica of a placed page on `node` (nodes 0..64). Returns false when the page
    /// lives there already, has a replica there, or the node has no room.
    pub fn replicate(&mut self, page: PageNo, node: NodeId) -> bool {
        let Some(home) = self.home(page) else { return false };
        if home == node || node.index() >= 64 || self.used[node.index()] >= self.capacity[node.index()] {
            return false;
        }
        if self.replicas.is_empty() {
            self.replicas = vec![0; self.home.len()];
        }
        let bit = 1u64 << node.index();
        if self.replicas[page.0 as usize] & bit != 0 {
            return false;
        }
        self.replicas[page.0 as usize] |= bit;
        self.used[node.index()] += 1;
        true
    }

    /// Removes every replica of `page`; returns how many there were.
    pub fn collapse(&mut self, page: PageNo) -> u32 {
        let Some(mask) = self.replicas.get_mut(page.0 as usize) else { return 0 };
        let n = mask.count_ones();
        for node in 0..64 {
            if *mask & (1 << node) != 0 {
                self.used[node] -= 1;
            }
        }
        *mask = 0;
        n
    }

    /// Replicas in the whole table (the memory replication costs, in pages).
    pub fn replica_pages(&self) -> u64 {
        self.replicas.iter().map(|m| m.count_ones() as u64).sum()
    }

    /// Free pages on each node.
    pub fn free_per_node(&self) -> Vec<u64> {
        self.capacity.iter().zip(&self.used).map(|(c, u)| c - u).collect()
    }

    /// Pages placed on each node.
    pub fn pages_per_node(&self) -> &[u64] {
        &self.used
    }

    /// The bytes its per-page vectors hold ([`layout::HOME`], [`layout::REPLICA_MASK`]), by
    /// their capacities: `(home, replica masks)`.
    pub fn state_bytes(&self) -> (u64, u64) {
        (self.home.capacity() as u64, (self.replicas.capacity() * std::mem::size_of::<u64>()) as u64)
    }

    /// Pages that could not go where the placement wanted because that node was full.
    pub fn fallbacks(&self) -> u64 {
        self.fallbacks
    }

    /// Sets the pages each node may hold for this table: what other address spaces sharing the
    /// machine leave (a multiprogrammed system). Never below what the table already holds
    /// there.
    pub fn set_capacity(&mut self, capacity: &[u64]) {
        for ((c, &want), &u) in self.capacity.iter_mut().zip(capacity).zip(&self.used) {
            *c = want.max(u);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simulator_state_is_bounded_before_allocation() {
        // Every page number fits without a policy; 254 nodes' counters for 2^32 pages do not.
        assert_eq!(run_state_bytes(1 << 32, 254, false), 1 << 32);
        assert_eq!(check_state_bytes("a run", run_state_bytes(1 << 32, 254, false)), Ok(()));
        let e = check_state_bytes("a run of 4294967296 pages", run_state_bytes(1 << 32, 254, true)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "out of memory: a run of 4294967296 pages needs 4436701216768 bytes of simulator state, more than the bound of 17179869184 bytes"
        );
        assert_eq!(run_state_bytes(u64::MAX, 254, true), u64::MAX);
    }

    #[test]
    fn the_bound_is_the_largest_declared_layout() {
        // A tiered run (home, revoked, referenced, the reclaimer's flags): four bytes a page,
        // so a 1 TiB machine's 2^28 pages of 4 KiB take 1 GiB.
        assert_eq!(layout::bytes_per_page(layout::TIERED, 2), 4);
        assert_eq!(layout::bytes_per_page(layout::NO_POLICY, 8), 1);
        for nodes in [1, 2, 8, 254] {
            let largest = layout::WITH_POLICY.iter().map(|l| layout::bytes_per_page(l, nodes)).max().unwrap();
            assert_eq!(largest, layout::bytes_per_page(layout::REPLICATING, nodes));
            assert_eq!(largest, 17 + 4 * nodes as u64);
            assert_eq!(run_state_bytes(1 << 28, nodes, true), (1 << 28) * largest);
            for l in layout::WITH_POLICY {
                assert!(layout::bytes_per_page(l, nodes) <= largest);
            }
        }
        assert_eq!(check_state_bytes("a run", (1 << 28) * layout::bytes_per_page(layout::TIERED, 2)), Ok(()));
    }

    #[test]
    fn full_node_falls_back_to_nearest_with_room() {
        // Three nodes in a line: 0 - 1 - 2; node 0 holds one page.
        let text = r#"
name = "line"
page_size = 1048576
line_size = 64
mlp = 1.0
latency_ns = [[100.0, 200.0, 300.0], [200.0, 100.0, 200.0], [300.0, 200.0, 100.0]]
[[nodes]]
cpus = 1
memory_mib = 1
bandwidth_gbps = 1.0
[[nodes]]
cpus = 1
memory_mib = 1
bandwidth_gbps = 1.0
[[nodes]]
cpus = 1
memory_mib = 2
bandwidth_gbps = 1.0
[migration]
fixed_ns = 0.0
copy_gbps = 1.0
tlb_shootdown_ns_per_cpu = 0.0
"#;
        let m = Machine::from_toml_str(text, "line").unwrap();
        let mut pt = PageTable::new(4, &m);
        assert_eq!(pt.place(PageNo(0), NodeId(0), &m), NodeId(0));
        assert_eq!(pt.place(PageNo(1), NodeId(0), &m), NodeId(1));
        assert_eq!(pt.place(PageNo(2), NodeId(0), &m), NodeId(2));
        assert_eq!(pt.home(PageNo(3)), None);
        assert_eq!(pt.pages_per_node(), &[1, 1, 1]);
        assert_eq!(pt.fallbacks(), 2);
    }
}
