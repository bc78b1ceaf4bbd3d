//! Applying a model placement to an address range of the process (`numaplace_place`, and
//! preloaded allocations under a placement other than the kernel's own): how the placement is
//! realised on Linux follows from its capabilities ([`numaplace_model::placement::PlacementCaps`]).
//! A placement computed from a profile of the whole run (`oracle`) cannot be: the runtime
//! does not see a program's accesses before they happen, so it is refused with the reason.

use crate::driver::Runtime;
use crate::error::{Code, RtError};
use crate::mover;
use crate::sys::MemPolicy;
use numaplace_model::dynamic::Driver;
use numaplace_model::{placement, NodeId, PageNo, PlaceRequest, Region, Spec};
use std::time::Instant;

impl Runtime {
    /// Places `[addr, addr+len)` by `placement` (a model placement spec), as its capabilities
    /// say: the kernel's default (`first-touch`) resets the range's memory policy to the default
    /// (pages go where first touched, pages already present stay); a one-node placement
    /// (`bind:node=N`) binds it with `mbind(MPOL_BIND, MPOL_MF_MOVE)`; every other scheme asks the model's placement for each page's node, makes the pages present and
    /// moves them there with `move_pages`. Returns pages moved.
    ///
    /// # Errors
    /// A bad spec, a placement the runtime cannot realise (one that needs a profile of the run,
    /// [`placement::check_driver`]), or a failed system call.
    pub fn place(&mut self, addr: usize, len: usize, spec_text: &str) -> Result<u64, RtError> {
        let ps = self.page_size();
        let spec = Spec::parse(spec_text).map_err(|e| RtError::new(Code::Spec, e.to_string()))?;
        let (info, resolved) = placement::resolve(&spec).map_err(|e| RtError::new(Code::Spec, e.to_string()))?;
        placement::check_driver(info, Driver::Runtime).map_err(|e| RtError::new(Code::Spec, e.to_string()))?;
        let pl = (info.build)(&resolved, &self.machine, self.cfg.seed).map_err(|e| RtError::new(Code::Spec, e.to_string()))?;
        let start = addr / ps * ps;
        let end = (addr + len).div_ceil(ps) * ps;
        if len == 0 || addr == 0 {
            return Err(RtError::new(Code::Invalid, "place: empty or null range"));
        }
        if info.caps.kernel_default {
            self.sys.mbind(start, end - start, &MemPolicy::Default)?;
            return Ok(0);
        }
        if info.caps.one_node {
            // The kernel binds and moves the range in one call, cheaper than page by page.
            let node = resolved.uint("node") as usize;
            let before = self.per_node(start, (end - start) / ps)?;
            self.sys.mbind(start, end - start, &MemPolicy::Bind(node))?;
            let after = self.per_node(start, (end - start) / ps)?;
            return Ok(after[node].saturating_sub(before[node]));
        }
        let pages = (end - start) / ps;
        // Page numbers as the region's own (the placement sees the range as one region).
        let region = Region { name: "place".into(), first_page: 0, pages: pages as u32 };
        let here = NodeId(self.sys.current_node() as u8);
        let targets: Vec<usize> =
            (0..pages).map(|p| pl.place(&PlaceRequest { page: PageNo(p as u32), region: &region, toucher: here }).index()).collect();
        self.unprotect_all();
        self.sys.touch(start, end - start);
        let addrs: Vec<usize> = (0..pages).map(|p| start + p * ps).collect();
        let t = Instant::now();
        let rep = mover::move_pages(self.sys.as_ref(), &addrs, &targets, &self.nearest);
        self.rearm();
        let rep = rep?;
        self.stats.time_migrating += t.elapsed();
        self.account(&rep);
        Ok(rep.moved)
    }
}

#[cfg(test)]
mod tests {
    use crate::driver::testing::rt;
    use crate::sys::MemPolicy;

    #[test]
    fn place_round_robin_and_bind_use_the_model_placement_and_mbind() {
        let (mut rt, fake, _space) = rt("none");
        let base = 0x10_0000;
        assert_eq!(rt.place(base, 8 * 4096, "round-robin").unwrap(), 6); // pages 0 and 4 stay on node 0
        let nodes: Vec<_> = (0..8).map(|p| fake.node_of(base + p * 4096).unwrap()).collect();
        assert_eq!(nodes, vec![0, 1, 2, 3, 0, 1, 2, 3]);
        assert_eq!(rt.place(base, 8 * 4096, "bind:node=2").unwrap(), 6);
        assert!((0..8).all(|p| fake.node_of(base + p * 4096) == Some(2)));
        rt.place(base, 4096, "first-touch").unwrap();
        assert_eq!(fake.state.lock().unwrap().mbinds.last().unwrap().2, MemPolicy::Default);
        assert_eq!(rt.where_(base + 100, 2 * 4096).unwrap(), vec![2, 2, 2]);
        assert!(rt.place(base, 4096, "round-robin:nodes=9").is_err());
    }

    #[test]
    fn a_placement_that_needs_a_profile_is_refused_with_the_reason() {
        let (mut rt, fake, _space) = rt("none");
        let base = 0x10_0000;
        let moves = fake.state.lock().unwrap().mbinds.len();
        let e = rt.place(base, 8 * 4096, "oracle").unwrap_err();
        assert!(e.message.starts_with("placement 'oracle' cannot run in the runtime: it is computed from a profile"), "{}", e.message);
        assert!(e.message.contains("numaplace sim --placement oracle") && !e.message.contains('\n'), "{}", e.message);
        assert_eq!(fake.state.lock().unwrap().mbinds.len(), moves, "nothing was done");
        assert!((0..8).all(|p| fake.node_of(base + p * 4096).is_none()), "no page was touched");
    }
}
