//! [`Parts`]: the data parts of the [`crate::runtime::Runtime`] (its host, regions, sampler
//! and stats) borrowed together, and the steps of a policy decision that need several of them:
//! a snapshot, applying a policy's actions, revoking every page again, logging an epoch. The
//! policy driver ([`crate::driver`]), record-replay ([`crate::recrep`]) and placements
//! ([`crate::place`]) work through them.

use crate::error::RtError;
use crate::host::Host;
use crate::mover::{self, MoveReport};
use crate::regions::Regions;
use crate::sampling::Sampling;
use crate::snapshot::Snapshot;
use crate::space::SPACE;
use crate::stats::Stats;
use numaplace_model::dynamic::Action;
use std::time::Instant;

/// The runtime's data parts, borrowed for one operation.
pub struct Parts<'a> {
    pub host: &'a Host,
    pub regions: &'a mut Regions,
    pub sampling: &'a mut Sampling,
    pub stats: &'a mut Stats,
}

impl Parts<'_> {
    /// Reads homes and sample counts of every managed page, ending the sampling interval.
    pub(crate) fn snapshot(&self) -> Result<Snapshot, RtError> {
        let referenced = Snapshot::referenced(self.regions);
        self.regions.unprotect_all(self.sampling);
        Snapshot::read(self.host, self.regions, referenced)
    }

    /// Reads homes and sample counts without disturbing sampling: pages under sampling stay
    /// so (a look, for a timer check the policy may let pass).
    pub(crate) fn snapshot_peek(&self) -> Result<Snapshot, RtError> {
        let referenced = Snapshot::referenced(self.regions);
        self.regions.peek(self.sampling, || Snapshot::read(self.host, self.regions, referenced))
    }

    /// Revokes every managed page when `want` (samples are wanted: a new interval), or
    /// restores them all.
    pub(crate) fn rearm(&mut self, want: bool) {
        self.regions.rearm(self.sampling, want);
    }

    /// Records a decision as an epoch.
    pub(crate) fn log(&mut self, kind: &'static str, snap: &Snapshot, moved: u64, per_node: Vec<u64>) {
        self.stats.log(self.host.started, kind, snap, moved, per_node);
    }

    /// Applies a policy's actions; returns the mover's report. `NUMAPLACE_DEBUG=2` prints each
    /// decision with the samples behind it.
    pub(crate) fn apply(&mut self, snap: &Snapshot, actions: &[Action]) -> Result<(MoveReport, Vec<u64>), RtError> {
        // Pages present for the first time count, where they are, in their region's "before".
        let nodes = self.host.nodes();
        for r in &mut self.regions.list {
            for (p, &h) in snap.homes[r.first..r.first + r.pages].iter().enumerate() {
                if (h as usize) < nodes && !r.seen[p] {
                    r.seen[p] = true;
                    r.before[h as usize] += 1;
                }
            }
        }
        if std::env::var("NUMAPLACE_DEBUG").as_deref() == Ok("2") {
            eprintln!("numaplace: {} action(s) on {} sample(s)", actions.len(), snap.samples);
            for a in actions {
                if let Action::Migrate { page, to, reason } = a {
                    eprintln!("numaplace: page {} home {} -> {} ({reason}); samples {:?}", page.0, snap.homes[page.0 as usize], to.0, snap.counters.row(*page));
                }
            }
        }
        let (mut pages, mut targets, mut index) = (Vec::new(), Vec::new(), Vec::new());
        let ps = self.host.page_size();
        // One move per page, the last decided (a batch of faults may decide on a page twice).
        let mut last = std::collections::HashMap::new();
        for (i, a) in actions.iter().enumerate() {
            if let Action::Migrate { page, .. } = a {
                last.insert(page.0, i);
            }
        }
        for (i, a) in actions.iter().enumerate() {
            if let Action::Migrate { page, to, .. } = a {
                let g = page.0 as usize;
                if last.get(&page.0) == Some(&i) && g < snap.addr.len() && snap.addr[g] != 0 {
                    // A page still revoked (a decision on one hinting fault, in the middle of a
                    // policy's scan) is opened first: move_pages does not see PROT_NONE pages.
                    if let Some((slot, p)) = SPACE.find(snap.addr[g]) {
                        if SPACE.is_revoked(slot, p) {
                            self.sampling.timed(|| SPACE.open_range(snap.addr[g], ps));
                        }
                    }
                    pages.push(snap.addr[g]);
                    targets.push(to.index());
                    index.push(g);
                }
            }
        }
        let t = Instant::now();
        let rep = mover::move_pages(self.host.sys.as_ref(), &pages, &targets, &self.host.nearest)?;
        self.stats.time_migrating += t.elapsed();
        self.stats.account(&rep);
        // Pages per node after the decision: the snapshot's homes with the mover's results.
        let mut per_node = vec![0u64; nodes];
        for &h in &snap.homes {
            if (h as usize) < nodes {
                per_node[h as usize] += 1;
            }
        }
        let machine = &self.host.machine;
        for ((&g, &now), &asked) in index.iter().zip(&rep.result).zip(&targets) {
            let was = snap.homes[g] as usize;
            let landed_top = now >= 0 && (now as usize) < nodes && machine.tier[now as usize] == 0;
            if was < nodes && machine.tier[was] > 0 && machine.tier[asked] == 0 && !landed_top {
                // A promotion asked that failed (no room, a busy page) or fell back below.
                self.stats.promotion_failures += 1;
            }
            if now >= 0 && was < nodes && now as usize != was {
                per_node[was] -= 1;
                per_node[now as usize] += 1;
                // Between tiers: up to the top tier, or down to a slower one.
                let (from, to) = (machine.tier[was], machine.tier[now as usize]);
                if to == 0 && from > 0 {
                    self.stats.promotions += 1;
                } else if to > from {
                    self.stats.demotions += 1;
                }
            }
        }
        Ok((rep, per_node))
    }
}
