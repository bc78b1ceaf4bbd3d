//! A [`Snapshot`] of the managed space for a policy decision: every managed page's home and
//! sample counts, in the runtime's page numbering, and what a policy sees of it.

use crate::error::RtError;
use crate::host::Host;
use crate::mover;
use crate::regions::Regions;
use crate::space::SPACE;
use numaplace_model::counters::PageCounters;
use numaplace_model::dynamic::{Sample, View};
use numaplace_model::pagetable::UNTOUCHED;
use numaplace_model::{Machine, Region};

/// A snapshot of the managed space for a policy decision.
pub(crate) struct Snapshot {
    pub(crate) homes: Vec<u8>,
    pub(crate) counters: PageCounters,
    pub(crate) regions: Vec<Region>,
    pub(crate) free: Vec<u64>,
    pub(crate) addr: Vec<usize>,
    pub(crate) samples: u64,
    pub(crate) local: u64,
    /// Nodes with at least one sample.
    pub(crate) active_nodes: u64,
    /// Per page, whether it was accessed since its last revocation (or was never revoked): the
    /// runtime's stand-in for the page-table entry's accessed bit, which Linux does not show
    /// user space (`/sys/kernel/mm/page_idle` needs `CONFIG_IDLE_PAGE_TRACKING`, which
    /// distribution kernels such as Debian's leave off). A revoked page's first access
    /// restores it ([`crate::space`]), so "not revoked" is "referenced since revoked"; a
    /// reclaimer's [`numaplace_model::dynamic::Timer::clear_referenced`] revokes the page
    /// again. Read before the snapshot opens revoked pages to query them.
    pub(crate) referenced: Vec<u8>,
    /// The address samples taken since the last decision, for a policy that reads them
    /// ([`numaplace_model::dynamic::Observes::AddressSamples`]; empty otherwise).
    pub(crate) addresses: Vec<Sample>,
}

impl Snapshot {
    /// What a policy sees of this snapshot (the runtime makes no replicas).
    pub(crate) fn view<'a>(&'a self, machine: &'a Machine, now: numaplace_model::Ps) -> View<'a> {
        View { machine, counters: &self.counters, replicas: &[], replica_writes: &[], homes: &self.homes, free: &self.free, regions: &self.regions, now, started: 0, queue: &[], done: 0, bursts: false, served: &[], overhead: 0, remaining: None, referenced: &self.referenced, samples: &self.addresses, written: &[] }
    }

    /// Reads homes and sample counts of every page of `regions` as they are (the caller makes
    /// the pages visible to `move_pages` first).
    ///
    /// # Errors
    /// A failed page query.
    pub(crate) fn read(host: &Host, managed: &Regions, referenced: Vec<u8>) -> Result<Snapshot, RtError> {
        let nodes = host.nodes();
        let ps = host.page_size();
        let total = managed.next_first;
        let mut homes = vec![UNTOUCHED; total];
        let mut counters = PageCounters::new(total, nodes, 16);
        let mut regions = Vec::new();
        let mut addr = vec![0usize; total];
        let mut active = 0u64;
        let (mut samples, mut local) = (0u64, 0u64);
        for r in &managed.list {
            let addrs: Vec<usize> = (0..r.pages).map(|p| r.start + p * ps).collect();
            let where_ = mover::query(host.sys.as_ref(), &addrs)?;
            for (p, s) in where_.into_iter().enumerate() {
                let g = r.first + p;
                addr[g] = addrs[p];
                if s >= 0 {
                    homes[g] = s as u8;
                }
                for n in 0..nodes {
                    let c = SPACE.count(r.slot, p, n);
                    if c > 0 {
                        counters.add(g as u32, n, c as u64);
                        samples += c as u64;
                        active |= 1u64 << n;
                        if s == n as i32 {
                            local += c as u64;
                        }
                    }
                }
            }
            regions.push(Region { name: r.name.clone(), first_page: r.first as u32, pages: r.pages as u32 });
        }
        // Free memory as the kernel says now (nodeN/meminfo); where it does not, plenty: the
        // mover falls back when a node is full.
        let free = host.sys.free_pages().filter(|f| f.len() == nodes).unwrap_or_else(|| vec![u64::MAX / 2; nodes]);
        let active_nodes = active.count_ones() as u64;
        Ok(Snapshot { homes, counters, regions, free, addr, samples, local, active_nodes, referenced, addresses: Vec::new() })
    }

    /// Each managed page's referenced bit now ([`Snapshot::referenced`]): 1 unless revoked.
    pub(crate) fn referenced(managed: &Regions) -> Vec<u8> {
        let mut out = vec![0u8; managed.next_first];
        for r in &managed.list {
            for (p, bit) in out[r.first..r.first + r.pages].iter_mut().enumerate() {
                *bit = u8::from(!SPACE.is_revoked(r.slot, p));
            }
        }
        out
    }
}
