//! A dynamic policy written in the test tree, outside the crates, that acts on two triggers no
//! shipped policy uses (low free memory on a node, a first touch that fell back from a full
//! node) and reports two statistics of its own: it declares both in its capabilities and
//! implements their hooks, and the engine raises the triggers and carries the statistics into
//! the policy's record. Nothing else of the simulator knows it (issue 33: "adding a policy
//! that needs a new trigger and reports two new counters touches its own file and its
//! registry line only").

use numaplace_model::dynamic::{Action, Applied, DynamicCaps, DynamicPolicy, Observes, Timer, Trigger, View};
use numaplace_model::report::{Report, StatDecl};
use numaplace_model::placement;
use numaplace_model::{Machine, NodeId, PageNo, Region, Spec};
use numaplace_sim::binding::{bind, Binding};
use numaplace_sim::engine::Engine;
use numaplace_sim::workload::{Epoch, ThreadWork, Txn};

/// Demotes to node 1 the lowest-numbered pages of a node that runs low, `batch` at a time, and
/// records every trigger it was given (`low`: the node and its free pages when told).
struct Demoter {
    batch: usize,
    demoted: u64,
    low: Vec<(u8, u64)>,
    failed: Vec<(u32, u8, u8)>,
}

impl DynamicPolicy for Demoter {
    fn counts(&self) -> bool {
        false
    }

    fn on_low_memory(&mut self, view: &View<'_>, node: NodeId) -> Timer {
        self.low.push((node.0, view.free[node.index()]));
        let on_node = view.homes.iter().enumerate().filter(|&(_, &h)| h == node.0).map(|(p, _)| p as u32);
        let actions: Vec<Action> = on_node.take(self.batch).map(|p| Action::Migrate { page: PageNo(p), to: NodeId(1), reason: "demote" }).collect();
        self.demoted += actions.len() as u64;
        Timer { actions, ..Timer::default() }
    }

    fn report(&self, _applied: &Applied, out: &mut Report) {
        out.count("demoted", self.demoted);
        // The fallbacks it was told of from node 0 (the touching thread's, full) to node 1.
        out.count("fallbacks_seen", self.failed.iter().filter(|&&(_, wanted, got)| (wanted, got) == (0, 1)).count() as u64);
    }

    fn on_allocation_failure(&mut self, _view: &View<'_>, page: PageNo, wanted: NodeId, got: NodeId) -> Vec<Action> {
        self.failed.push((page.0, wanted.0, got.0));
        Vec::new()
    }
}

/// Its registry entry's capabilities: what it observes, and the triggers it acts on.
const CAPS: DynamicCaps = DynamicCaps {
    observes: Observes::Counters,
    drivers: &[numaplace_model::dynamic::Driver::Simulator],
    why_not: "a test policy",
    needs_program_calls: false,
    triggers: &[Trigger::LowMemory, Trigger::AllocationFailure],
    stats: &[STATS],
};

/// Its own two statistics, declared beside it and reported by it.
const STATS: &[StatDecl] = &[
    StatDecl { name: "demoted", unit: "pages", doc: "pages it asked to demote" },
    StatDecl { name: "fallbacks_seen", unit: "pages", doc: "first touches it was told fell back from node 0 to node 1" },
];

/// Two nodes of 1 MiB (256 pages of 4 KiB), the CPU on node 0; watermarks at 100 / 150 / 200
/// thousandths (26, 39 and 52 pages) when `watermarks`.
fn machine(watermarks: bool) -> Machine {
    let table = if watermarks { "[watermarks]\nmin_permille = 100\nlow_permille = 150\nhigh_permille = 200\n" } else { "" };
    let text = format!(
        "name = \"two-small\"\npage_size = 4096\nline_size = 64\nmlp = 1.0\nlatency_ns = [[100.0, 200.0], [200.0, 100.0]]\n\
         [[nodes]]\ncpus = 1\nmemory_mib = 1\nbandwidth_gbps = 10.0\n\
         [[nodes]]\ncpus = 0\nmemory_mib = 1\nbandwidth_gbps = 10.0\n\
         [migration]\nfixed_ns = 100.0\ncopy_gbps = 10.0\ntlb_shootdown_ns_per_cpu = 0.0\n{table}"
    );
    Machine::from_toml_str(&text, "two-small.toml").unwrap()
}

/// Runs one thread on node 0 first-touching `pages` pages one after another, under the
/// demoter; returns the engine's policy record and the policy.
fn run(m: &Machine, pages: u32, batch: usize) -> (numaplace_sim::engine::PolicyStats, Vec<u64>) {
    let threads = bind(m, 1, Binding::Spread, false).unwrap();
    let (place, _) = placement::build(&Spec::parse("first-touch").unwrap(), m, 0).unwrap();
    let regions = vec![Region { name: "a".into(), first_page: 0, pages }];
    // A quantum of 2 µs, a few first touches each: the watermarks are checked many times as
    // node 0 fills.
    let mut engine = Engine::new(m, &threads, regions, place, 2_000_000);
    engine.set_dynamic(Box::new(Demoter { batch, demoted: 0, low: Vec::new(), failed: Vec::new() }), &CAPS);
    let txns = (0..pages).map(|p| Txn::write(p, 1)).collect();
    engine.run_epoch(&Epoch { iteration: 1, phase: "fill", threads: vec![ThreadWork { txns, mlp: 1.0, think_ns: 0.0 }] });
    let stats = engine.dynamic.as_ref().unwrap().stats();
    (stats, engine.page_table().pages_per_node().to_vec())
}

#[test]
fn the_caps_agree_with_the_policy() {
    let d = Demoter { batch: 1, demoted: 0, low: Vec::new(), failed: Vec::new() };
    assert_eq!(CAPS.check(&d), Ok(()));
    assert!(CAPS.acts_on(Trigger::LowMemory) && !CAPS.acts_on(Trigger::Timer));
}

#[test]
fn a_node_below_its_low_watermark_is_told_until_balanced_and_its_demotions_apply() {
    // 240 pages first touched on node 0 (256 pages): free drops below low (39) after 217.
    let (stats, per_node) = run(&machine(true), 240, 64);
    assert_eq!(stats.report.count_of("low_memory_events"), 1, "raised once, not re-armed: free never got back to high (52) before demotion");
    // Its own statistics, then the engine's counts of its triggers, as its caps declare them.
    let declared: Vec<&str> = CAPS.statistics().iter().map(|s| s.name).collect();
    assert_eq!(stats.report.names().collect::<Vec<_>>(), declared);
    assert_eq!(declared, ["demoted", "fallbacks_seen", "low_memory_events", "allocation_failures"]);
    assert_eq!((stats.report.count_of("demoted"), stats.report.count_of("fallbacks_seen")), (64, 0));
    assert_eq!(stats.migrations, 64);
    assert_eq!(per_node, vec![240 - 64, 64]);
    assert_eq!(stats.report.count_of("allocation_failures"), 0, "no first touch fell back");
    assert_eq!(stats.decision_points, 1, "64 pages brought it back above high at once");
    // One page at a time does not: it is told again at each quantum boundary (kswapd goes on
    // reclaiming) while it stays below high, still within one low-memory event.
    let (stats, _) = run(&machine(true), 240, 1);
    assert_eq!(stats.report.count_of("low_memory_events"), 1);
    assert!(stats.decision_points > 1 && stats.decision_points == stats.report.count_of("demoted"), "{stats:?}");
}

#[test]
fn a_node_re_arms_at_its_high_watermark_and_is_told_again() {
    // Demoting 64 pages brings node 0's free pages back above high (52), so when it fills
    // again it is told again.
    let (stats, per_node) = run(&machine(true), 300, 64);
    assert_eq!(stats.report.count_of("low_memory_events"), 2, "{stats:?}");
    assert_eq!(stats.migrations, 128);
    assert_eq!(per_node, vec![300 - 128, 128]);
    assert_eq!(stats.report.count_of("allocation_failures"), 0);
}

#[test]
fn without_watermarks_no_node_is_ever_low_and_a_full_node_reports_its_fallbacks() {
    // 300 pages on a node of 256: the last 44 fall back to node 1, each an allocation failure.
    let (stats, per_node) = run(&machine(false), 300, 64);
    assert_eq!(stats.report.count_of("low_memory_events"), 0);
    assert_eq!(stats.migrations, 0);
    assert_eq!(per_node, vec![256, 44]);
    assert_eq!(stats.report.count_of("allocation_failures"), 44);
    assert_eq!(stats.report.count_of("fallbacks_seen"), 44, "the policy was told each, wanted node 0 and got node 1");
}
