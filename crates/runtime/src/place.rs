//! Applying a model placement to an address range of the process (`numaplace_place`, and
//! preloaded allocations under a placement other than the kernel's own): how the placement is
//! realised on Linux follows from its capabilities ([`numaplace_model::placement::PlacementCaps`]).
//! A placement computed from a profile of the whole run (`oracle`) cannot be: the runtime
//! does not see a program's accesses before they happen, so it is refused with the reason.

use crate::parts::Parts;
use crate::error::{Code, RtError};
use crate::mover;
use crate::sys::MemPolicy;
use numaplace_model::dynamic::Driver;
use numaplace_model::{placement, NodeId, PageNo, PlaceRequest, Region, Spec};
use std::time::Instant;

/// Places `[addr, addr+len)` by `placement` (a model placement spec), as its capabilities
/// say: the kernel's default (`first-touch`) resets the range's memory policy to the default
/// (pages go where first touched, pages already present stay); a one-node placement
/// (`bind:node=N`) binds it with `mbind(MPOL_BIND, MPOL_MF_MOVE)`; every other scheme asks the model's placement for each page's node, makes the pages present and
/// moves them there with `move_pages`. Returns pages moved.
///
/// # Errors
/// A bad spec, a placement the runtime cannot realise (one that needs a profile of the run,
/// [`placement::check_driver`]), or a failed system call.
pub fn place(parts: &mut Parts, want: bool, addr: usize, len: usize, spec_text: &str) -> Result<u64, RtError> {
    let host = parts.host;
    let ps = host.page_size();
    let spec = Spec::parse(spec_text).map_err(|e| RtError::new(Code::Spec, e.to_string()))?;
    let (info, resolved) = placement::resolve(&spec).map_err(|e| RtError::new(Code::Spec, e.to_string()))?;
    placement::check_driver(info, Driver::Runtime).map_err(|e| RtError::new(Code::Spec, e.to_string()))?;
    let pl = (info.build)(&resolved, &host.machine, host.cfg.seed).map_err(|e| RtError::new(Code::Spec, e.to_string()))?;
    let start = addr / ps * ps;
    let end = (addr + len).div_ceil(ps) * ps;
    if len == 0 || addr == 0 {
        return Err(RtError::new(Code::Invalid, "place: empty or null range"));
    }
    if info.caps.kernel_default {
        host.sys.mbind(start, end - start, &MemPolicy::Default)?;
        return Ok(0);
    }
    if info.caps.one_node {
        // The kernel binds and moves the range in one call, cheaper than page by page.
        let node = resolved.uint("node") as usize;
        let before = parts.regions.per_node(host, parts.sampling, start, (end - start) / ps)?;
        host.sys.mbind(start, end - start, &MemPolicy::Bind(node))?;
        let after = parts.regions.per_node(host, parts.sampling, start, (end - start) / ps)?;
        return Ok(after[node].saturating_sub(before[node]));
    }
    let pages = (end - start) / ps;
    // Page numbers as the region's own (the placement sees the range as one region).
    let region = Region { name: "place".into(), first_page: 0, pages: pages as u32 };
    let here = NodeId(host.sys.current_node() as u8);
    let targets: Vec<usize> =
        (0..pages).map(|p| pl.place(&PlaceRequest { page: PageNo(p as u32), region: &region, toucher: here }).index()).collect();
    parts.regions.unprotect_all(parts.sampling);
    host.sys.touch(start, end - start);
    let addrs: Vec<usize> = (0..pages).map(|p| start + p * ps).collect();
    let t = Instant::now();
    let rep = mover::move_pages(host.sys.as_ref(), &addrs, &targets, &host.nearest);
    parts.rearm(want);
    let rep = rep?;
    parts.stats.time_migrating += t.elapsed();
    parts.stats.account(&rep);
    Ok(rep.moved)
}
