//! Tests of the runtime's generic support for tiering policies ([`crate::driver`]): hinting
//! faults handed to `on_fault`, a timer's revocation honoured, the low-memory trigger raised
//! once and re-armed, moves between tiers counted as promotions and demotions. A test-only
//! policy ([`Probe`]) records what it is told; the kernel is [`FakeSys`] with two tiers (nodes
//! 2 and 3 ranked below 0 and 1, as `memory_tiering` would say), the managed pages a real
//! mapping so that revocations and faults are real.

use crate::config::Config;
use crate::driver::{check_triggers, Driver};
use crate::faultq::FAULTS;
use crate::runtime::Runtime;
use crate::scenarios::Shared;
use crate::space::SPACE;
use crate::sys::{FakeSys, Sys};
use numaplace_model::dynamic::{self, Action, DynamicCaps, DynamicPolicy, Observes, Timer, Trigger, View};
use numaplace_model::watermarks::Watermarks;
use numaplace_model::{NodeId, PageNo, Ps};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the probe was told.
#[derive(Default)]
struct Told {
    faults: Vec<(u32, u8)>,
    low: Vec<u8>,
}

/// A policy that revokes what the test asks at its next tick, promotes a page from a slow
/// node to the faulting node, and demotes a low node's pages to its demotion target.
struct Probe {
    told: Arc<Mutex<Told>>,
    revoke: Arc<Mutex<Option<std::ops::Range<u32>>>>,
}

const CAPS: DynamicCaps = DynamicCaps {
    observes: Observes::HintingFaults,
    drivers: &[dynamic::Driver::Runtime],
    why_not: "",
    needs_program_calls: false,
    triggers: &[Trigger::Timer, Trigger::HintingFault, Trigger::LowMemory],
    stats: &[],
};

impl DynamicPolicy for Probe {
    fn timer_period(&self) -> Option<Ps> {
        Some(1_000_000_000)
    }

    fn on_timer(&mut self, _view: &View<'_>) -> Timer {
        Timer { revoke: self.revoke.lock().unwrap().take(), ..Timer::default() }
    }

    fn on_fault(&mut self, view: &View<'_>, page: PageNo, node: NodeId) -> Option<Action> {
        self.told.lock().unwrap().faults.push((page.0, node.0));
        let home = NodeId(view.homes[page.0 as usize]);
        (!view.machine.is_toptier(home)).then_some(Action::Migrate { page, to: node, reason: "promote" })
    }

    fn on_low_memory(&mut self, view: &View<'_>, node: NodeId) -> Timer {
        self.told.lock().unwrap().low.push(node.0);
        let Some(to) = view.machine.demotion[node.index()] else { return Timer::default() };
        let actions = (0..view.homes.len())
            .filter(|&p| view.homes[p] == node.0)
            .map(|p| Action::Migrate { page: PageNo(p as u32), to, reason: "demote" })
            .collect();
        Timer { actions, background: true, ..Timer::default() }
    }
}

fn map(pages: usize) -> usize {
    // SAFETY: a fresh anonymous private mapping (unmapped by the test).
    let p = unsafe { libc::mmap(std::ptr::null_mut(), pages * 4096, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0) };
    assert_ne!(p, libc::MAP_FAILED);
    p as usize
}

#[test]
fn faults_reach_the_policy_its_revocation_is_honoured_and_low_memory_is_raised_once() {
    let _space = crate::space::testing::hold_space();
    let mut fake = FakeSys::new(4, 10_000);
    fake.topo.tiers = vec![Some(4), Some(4), Some(22), Some(22)];
    fake.state.lock().unwrap().watermarks = Some(vec![Watermarks { min: 10, low: 100, high: 200 }; 4]);
    fake.state.lock().unwrap().current = 2; // first touch on a slow node
    let fake = Arc::new(fake);
    let mut rt = Runtime::new(Box::new(Shared(fake.clone())), Config::default()).unwrap();
    assert!(rt.host.machine.is_toptier(NodeId(0)) && !rt.host.machine.is_toptier(NodeId(2)));
    let (told, revoke) = (Arc::new(Mutex::new(Told::default())), Arc::new(Mutex::new(None)));
    let probe = Probe { told: told.clone(), revoke: revoke.clone() };
    rt.driver = Driver::with_policy(&rt.host, Some(Box::new(probe)), Some(CAPS));
    rt.driver.timer = Some(Duration::ZERO);
    assert!(rt.driver.takes_faults() && !rt.wants_samples(), "the policy revokes, not the runtime's windows");
    // Every CPU on node 0: the fault below comes from node 0.
    SPACE.configure(4, 4096, &vec![Some(0); crate::space::MAX_CPUS]);
    crate::sampler::install().unwrap();

    let pages = 8;
    let base = map(pages);
    fake.touch(base, pages * 4096);
    let slot = rt.register(base, pages * 4096, "a", None).unwrap();
    let first = rt.regions.list[0].first as u32;
    assert!((0..pages).all(|p| !SPACE.is_revoked(slot, p)), "nothing revoked before the policy asks");

    // The timer's revocation: pages 2..6 of the managed space, exactly.
    *revoke.lock().unwrap() = Some(first + 2..first + 6);
    rt.tick().unwrap();
    let revoked: Vec<bool> = (0..pages).map(|p| SPACE.is_revoked(slot, p)).collect();
    assert_eq!(revoked, [false, false, true, true, true, true, false, false]);

    // A real access to page 3 faults; the next tick hands it to on_fault, which promotes it.
    // SAFETY: page 3 of our mapping; the runtime's handler restores it.
    unsafe { std::ptr::write_volatile((base + 3 * 4096) as *mut u64, 7) };
    assert_eq!(rt.tick().unwrap(), 1);
    assert_eq!(told.lock().unwrap().faults, [(first + 3, 0)]);
    assert_eq!(fake.node_of(base + 3 * 4096), Some(0));
    let revoked: Vec<bool> = (0..pages).map(|p| SPACE.is_revoked(slot, p)).collect();
    assert_eq!(revoked, [false, false, true, false, true, true, false, false], "the rest of the scan stays revoked");
    assert_eq!((rt.stats.promotions, rt.stats.demotions, rt.stats.faults_forwarded), (1, 0, 1));
    assert_eq!(rt.tick().unwrap(), 0, "each fault once");

    // Node 0 runs low: told once, its page demoted to node 2 (its demotion target).
    fake.state.lock().unwrap().free[0] = 50;
    assert_eq!(rt.tick().unwrap(), 1);
    assert_eq!(told.lock().unwrap().low, [0]);
    assert_eq!(fake.node_of(base + 3 * 4096), Some(2));
    assert_eq!(rt.stats.demotions, 1);
    rt.tick().unwrap();
    fake.state.lock().unwrap().free[0] = 150; // above low, below high: not balanced yet
    rt.tick().unwrap();
    assert_eq!(told.lock().unwrap().low, [0, 0, 0], "told at every tick until back at high");
    fake.state.lock().unwrap().free[0] = 200;
    rt.tick().unwrap();
    assert_eq!(told.lock().unwrap().low.len(), 3, "balanced: not told");
    fake.state.lock().unwrap().free[0] = 99;
    rt.tick().unwrap();
    assert_eq!(told.lock().unwrap().low, [0, 0, 0, 0], "re-armed at high, raised again below low");

    let s = rt.stats_file();
    assert_eq!((s.promotions, s.demotions, s.low_memory_events, s.faults_forwarded), (1, 1, 2, 1));
    assert_eq!(s.tier, [0, 0, 1, 1]);
    assert!(s.epochs.iter().any(|e| e.kind == "fault") && s.epochs.iter().any(|e| e.kind == "low-memory"));
    FAULTS.on.store(false, Relaxed);
    rt.unregister(base);
    // SAFETY: the mapping made above, no longer managed.
    unsafe { libc::munmap(base as *mut libc::c_void, pages * 4096) };
}

#[test]
fn a_policy_acting_on_a_trigger_the_runtime_cannot_raise_is_refused() {
    let caps = DynamicCaps { triggers: &[Trigger::Timer, Trigger::AllocationFailure], ..CAPS };
    let e = check_triggers("tiered", &caps).unwrap_err();
    assert_eq!(e.message, "dynamic policy 'tiered' acts on the allocation-failure trigger, which the runtime cannot raise");
    assert!(check_triggers("tiered", &CAPS).is_ok());
}

/// The pages of `slot` revoked now.
fn revoked(slot: usize, pages: usize) -> Vec<bool> {
    (0..pages).map(|p| SPACE.is_revoked(slot, p)).collect()
}

#[test]
fn tpp_runs_on_real_pages_promotes_on_its_third_fault_and_demotes_only_unreferenced_pages() {
    let _space = crate::space::testing::hold_space();
    let mut fake = FakeSys::new(4, 10_000);
    fake.topo.tiers = vec![Some(4), Some(4), Some(22), Some(22)];
    let fake = Arc::new(fake);
    // The registry's tpp, its scan every tick (the sampler's period bounds the timer's).
    let cfg = Config { dynamic: "tpp:scan_delay_ms=0.001,scan_period_ms=0.001,max_scan_mb_per_s=1e12".into(), sample_period_ms: 0.0, ..Config::default() };
    let mut rt = Runtime::new(Box::new(Shared(fake.clone())), cfg).unwrap();
    assert!(rt.driver.takes_faults());
    let low = rt.driver.low.as_ref().expect("tpp acts on low memory");
    // TPP's demotion watermark: 2 % of the node's capacity, above Linux's own low.
    let cap = rt.host.machine.capacity_pages[0];
    assert_eq!((low.source, low.marks[0].low), ("policy", (cap as f64 * 0.02).ceil() as u64), "{:?}", low.marks[0]);
    SPACE.configure(4, 4096, &vec![Some(0); crate::space::MAX_CPUS]);
    crate::sampler::install().unwrap();

    // Pages 0..8 first touched on fast node 0, 8..16 on slow node 2.
    let pages = 16;
    let base = map(pages);
    fake.touch(base, 8 * 4096);
    fake.state.lock().unwrap().current = 2;
    fake.touch(base + 8 * 4096, 8 * 4096);
    let slot = rt.register(base, pages * 4096, "a", None).unwrap();
    let page = |p: usize| (base + p * 4096) as *mut u64;

    // The scan revokes the slow pages only (the tiering mode skips the top tier).
    rt.tick().unwrap();
    assert_eq!(revoked(slot, pages), [[false; 8], [true; 8]].concat());
    // A slow page's first fault marks it referenced, its second active (mark_page_accessed),
    // and only a fault on an active page promotes it; each tick's scan revokes it again.
    for (value, moved) in [(1, 0), (2, 0), (3, 1)] {
        // SAFETY: pages of our mapping; the runtime's handler restores them.
        unsafe { std::ptr::write_volatile(page(9), value) };
        assert_eq!(rt.tick().unwrap(), moved, "fault {value}");
    }
    assert_eq!((fake.node_of(base + 9 * 4096), rt.stats.promotions), (Some(0), 1));

    // Node 0 runs low. The reclaimer's first look finds every fast page referenced (none was
    // revoked since the program touched it): it clears their bits (revokes them) and demotes
    // nothing.
    let cap_low = rt.driver.low.as_ref().unwrap().marks[0].low;
    fake.state.lock().unwrap().free[0] = cap_low - 1;
    assert_eq!(rt.tick().unwrap(), 0);
    let fast: Vec<usize> = (0..pages).filter(|&p| fake.node_of(base + p * 4096) == Some(0)).collect();
    assert_eq!(fast, [0, 1, 2, 3, 4, 5, 6, 7, 9]);
    assert!(fast.iter().all(|&p| SPACE.is_revoked(slot, p)), "the referenced bits read are cleared: {:?}", revoked(slot, pages));
    // The program touches pages 0 and 9 again: referenced. The next looks demote the fast
    // pages nobody touched, coldest first, and keep those two.
    unsafe {
        std::ptr::write_volatile(page(0), 5);
        std::ptr::write_volatile(page(9), 6);
    }
    assert_eq!(rt.tick().unwrap(), 7);
    let on = |p: usize| fake.node_of(base + p * 4096);
    assert_eq!((on(0), on(9)), (Some(0), Some(0)), "the referenced pages stay fast");
    assert!((1..8).all(|p| on(p) == Some(2)), "the untouched fast pages are demoted to node 2: {:?}", (0..pages).map(on).collect::<Vec<_>>());
    assert_eq!((rt.stats.promotions, rt.stats.demotions), (1, 7));
    // Still short of the high watermark. That look cleared the bits of the two, which the
    // program had set again by a fault each, and Linux's MMU would set for free: the next look
    // waits while a tick brings more of them back than the program takes faults on other pages
    // (driver::Pace). Page 0 comes back and no other page faults: no look, page 0 stays
    // referenced, page 9 revoked.
    assert!(fake.state.lock().unwrap().free[0] < rt.driver.low.as_ref().unwrap().marks[0].high);
    unsafe { std::ptr::write_volatile(page(0), 7) };
    assert_eq!(rt.tick().unwrap(), 0);
    assert!(!SPACE.is_revoked(slot, 0) && SPACE.is_revoked(slot, 9), "no look yet: {:?}", revoked(slot, pages));
    // Page 9 too: all came back, the look finds both referenced and clears their bits again.
    unsafe { std::ptr::write_volatile(page(9), 8) };
    assert_eq!(rt.tick().unwrap(), 0);
    assert!(SPACE.is_revoked(slot, 0) && SPACE.is_revoked(slot, 9), "the look cleared both bits: {:?}", revoked(slot, pages));
    // Then nothing touched: a tick without a fault (the program is idle) lets the next look
    // run, which finds the two (active: referenced
    // twice) unreferenced and deactivates them; the one after demotes them.
    assert_eq!(rt.tick().unwrap(), 0);
    assert_eq!(rt.tick().unwrap(), 2);
    assert_eq!((on(0), on(9), rt.stats.demotions), (Some(2), Some(2), 9));
    // TPP's own statistics, in the stats file's policy record.
    let policy = rt.stats_file().policy;
    let count = |n: &str| policy.get(n).cloned().flatten();
    use numaplace_model::stats::RecordValue::Count;
    assert_eq!((count("promotions"), count("demotions"), count("activations")), (Some(Count(1)), Some(Count(9)), Some(Count(2))), "{policy:?}");
    // A promotion the kernel refuses (page 10 stays busy past every retry) is a promotion
    // failure in the policy's record, as the simulator counts one.
    fake.state.lock().unwrap().busy.insert(base + 10 * 4096, crate::mover::BUSY_ROUNDS + 1);
    for value in 1..=3 {
        unsafe { std::ptr::write_volatile(page(10), value) };
        rt.tick().unwrap();
    }
    assert_eq!((on(10), rt.stats.promotions, rt.stats.promotion_failures), (Some(2), 1, 1));
    let policy = rt.stats_file().policy;
    assert_eq!(policy.get("promotion_failures").cloned().flatten(), Some(Count(1)), "{policy:?}");
    // Moving pages never changed the program's data.
    assert_eq!(unsafe { (std::ptr::read_volatile(page(0)), std::ptr::read_volatile(page(9))) }, (7, 8));
    FAULTS.on.store(false, Relaxed);
    rt.unregister(base);
    // SAFETY: the mapping made above, no longer managed.
    unsafe { libc::munmap(base as *mut libc::c_void, pages * 4096) };
}

#[test]
fn a_tiering_policy_on_a_host_of_one_tier_is_refused_naming_the_way_out() {
    let cfg = Config { dynamic: "tpp".into(), ..Config::default() };
    let e = Runtime::new(Box::new(FakeSys::new(2, 1000)), cfg).err().expect("one tier: refused");
    assert_eq!(e.code, crate::error::Code::Unsupported);
    assert!(e.message.starts_with("dynamic policy 'tpp' moves pages between memory tiers, and this host has one") && e.message.contains("--slow-nodes"), "{}", e.message);
}

#[test]
fn hemem_reads_the_cpus_address_samples_and_promotes_a_page_sampled_hot() {
    let _space = crate::space::testing::hold_space();
    let mut fake = FakeSys::new(4, 10_000);
    fake.topo.tiers = vec![Some(4), Some(4), Some(22), Some(22)];
    fake.state.lock().unwrap().current = 2; // everything first touched on slow node 2
    let fake = Arc::new(fake);
    let cfg = Config { dynamic: "hemem:page=4k".into(), sample_period_ms: 0.0, ..Config::default() };
    let mut rt = Runtime::new(Box::new(Shared(fake.clone())), cfg).unwrap();
    assert!(rt.driver.takes_addresses() && !rt.driver.takes_faults());
    // The CPU's sampler, here a source with no events whose kept samples the test writes.
    rt.sampling.perf = Some(crate::perf::Perf::without_events());
    rt.driver.timer = Some(Duration::ZERO);
    SPACE.configure(4, 4096, &vec![Some(0); crate::space::MAX_CPUS]);
    let pages = 8;
    let base = map(pages);
    fake.touch(base, pages * 4096);
    let slot = rt.register(base, pages * 4096, "a", None).unwrap();
    let keep = |rt: &mut Runtime, page: usize, n: usize| {
        let kept = rt.sampling.perf.as_mut().unwrap().addresses.as_mut().unwrap();
        kept.extend(std::iter::repeat((slot, page, 0, false)).take(n));
    };
    // Three reads of page 5 are below HeMem's hot threshold (4): nothing moves.
    keep(&mut rt, 5, 3);
    assert_eq!(rt.tick().unwrap(), 0);
    assert!(rt.sampling.perf.as_ref().unwrap().addresses.as_ref().unwrap().is_empty(), "the tick took the samples");
    // A fourth makes it hot: promoted to the fast tier; a sample of a freed slot is dropped.
    keep(&mut rt, 5, 1);
    rt.sampling.perf.as_mut().unwrap().addresses.as_mut().unwrap().push((slot + 7, 0, 0, true));
    assert_eq!(rt.tick().unwrap(), 1);
    assert_eq!(fake.node_of(base + 5 * 4096), Some(0));
    assert_eq!((rt.stats.promotions, rt.stats.demotions), (1, 0));
    assert!((0..pages).filter(|&p| p != 5).all(|p| fake.node_of(base + p * 4096) == Some(2)));
    rt.unregister(base);
    // SAFETY: the mapping made above, no longer managed.
    unsafe { libc::munmap(base as *mut libc::c_void, pages * 4096) };
}
