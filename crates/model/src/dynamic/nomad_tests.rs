use super::*;
use crate::dynamic::fixture::Fixture;

/// Eight pages on the slow node 1 of the tiered fixture (fast node 0: 256 pages).
fn tiered() -> Fixture {
    let mut f = Fixture::tiered(vec![1; 8], vec![250, 500]);
    f.written = vec![Ps::MAX; 8];
    f
}

/// Page 2 made active by two faults and queued by the third.
fn queued(f: &Fixture, spec: &str) -> Box<dyn DynamicPolicy> {
    let mut p = f.policy(spec);
    for _ in 0..3 {
        assert_eq!(p.on_fault(&f.view(), PageNo(2), NodeId(0)), None, "a fault never migrates");
    }
    p
}

fn stats(p: &dyn DynamicPolicy) -> Report {
    let mut out = Report::default();
    p.report(&Applied::default(), &mut out);
    out
}

fn copy_ps(f: &Fixture) -> Ps {
    f.machine.page_move_cost_ps(0, false)
}

#[test]
fn a_clean_copy_commits_in_the_background_and_keeps_a_shadow() {
    let mut f = tiered();
    let mut p = queued(&f, "nomad");
    f.now = 1_000;
    let t = p.on_timer(&f.view());
    assert!(t.background && t.actions.is_empty(), "the copy starts; nothing is remapped yet");
    assert_eq!(t.clear_written, vec![2], "the page's dirty bit is cleaned before its copy");
    // Before the copy ends nothing commits.
    f.now = 1_000 + copy_ps(&f) - 1;
    assert!(p.on_timer(&f.view()).actions.is_empty());
    f.now = 1_000 + copy_ps(&f);
    let t = p.on_timer(&f.view());
    assert_eq!(
        t.actions,
        vec![
            Action::Migrate { page: PageNo(2), to: NodeId(0), reason: PROMOTE },
            Action::Shadow { page: PageNo(2), node: NodeId(1), reason: SHADOW },
        ]
    );
    assert_eq!(t.clear_written, vec![2], "the shadow is intact until the next store");
    let out = stats(p.as_ref());
    assert_eq!((out.count_of("tx_commits"), out.count_of("tx_aborts"), out.count_of("shadows_made"), out.count_of("shadows_held")), (1, 0, 1, 1));
    assert_eq!(out.count_of("activations"), 2);
}

#[test]
fn a_store_during_the_copy_aborts_and_the_page_is_retried_until_the_passes_run_out() {
    let mut f = tiered();
    let mut p = queued(&f, "nomad:passes=3");
    let c = copy_ps(&f);
    f.now = 1_000;
    p.on_timer(&f.view());
    for pass in 0..3u64 {
        // A store inside this pass's copy window.
        f.written[2] = f.now + c / 2;
        f.now += c;
        let t = p.on_timer(&f.view());
        assert!(!t.actions.iter().any(|a| matches!(a, Action::Migrate { .. })), "pass {pass} aborted");
        let again = pass + 1 < 3;
        assert_eq!(t.clear_written.contains(&2), again, "pass {pass}: retried (its copy restarts)");
        f.written[2] = Ps::MAX;
    }
    let out = stats(p.as_ref());
    assert_eq!((out.count_of("tx_aborts"), out.count_of("tx_retries"), out.count_of("tx_given_up"), out.count_of("tx_commits")), (3, 2, 1, 0));
}

#[test]
fn a_clean_shadowed_page_is_demoted_by_a_remap_and_a_stored_one_by_a_copy() {
    let mut f = tiered();
    let mut p = queued(&f, "nomad");
    f.now = 1_000;
    p.on_timer(&f.view());
    f.now += copy_ps(&f);
    p.on_timer(&f.view());
    // The engine applied the promotion: page 2 on the fast node, which then runs low.
    f.homes = vec![0; 8];
    f.free = vec![4, 500];
    let t = p.on_low_memory(&f.view(), NodeId(0));
    let remaps: Vec<u32> = t.actions.iter().filter_map(|a| match a { Action::Remap { page, .. } => Some(page.0), _ => None }).collect();
    let migrates = t.actions.iter().filter(|a| matches!(a, Action::Migrate { .. })).count();
    assert!(t.background);
    // The reclaimer's hand passes pages 0 and 1 (never referenced) first: two demotions,
    // neither shadowed.
    assert_eq!((remaps.len(), migrates), (0, 2));
    // Demote page 2 itself: clean, so a remap onto its shadow.
    let mut g = tiered();
    let mut q = queued(&g, "nomad");
    g.now = 1_000;
    q.on_timer(&g.view());
    g.now += copy_ps(&g);
    q.on_timer(&g.view());
    g.homes = vec![1, 1, 0, 1, 1, 1, 1, 1];
    g.free = vec![4, 500];
    // Active from its faults: the hand's first pass deactivates it, the second demotes it.
    assert!(q.on_low_memory(&g.view(), NodeId(0)).actions.is_empty());
    let t = q.on_low_memory(&g.view(), NodeId(0));
    assert_eq!(t.actions, vec![Action::Remap { page: PageNo(2), to: NodeId(1), reason: DEMOTE_SHADOW }]);
    assert_eq!(stats(q.as_ref()).count_of("shadow_demotions"), 1);
    // The same, but the page was stored to since its promotion: the shadow is stale, the
    // demotion copies.
    let mut h = tiered();
    let mut r = queued(&h, "nomad");
    h.now = 1_000;
    r.on_timer(&h.view());
    h.now += copy_ps(&h);
    r.on_timer(&h.view());
    h.homes = vec![1, 1, 0, 1, 1, 1, 1, 1];
    h.free = vec![4, 500];
    h.written[2] = h.now + 5;
    assert!(r.on_low_memory(&h.view(), NodeId(0)).actions.is_empty());
    let t = r.on_low_memory(&h.view(), NodeId(0));
    assert_eq!(t.actions, vec![Action::Migrate { page: PageNo(2), to: NodeId(1), reason: DEMOTE }]);
    let out = stats(r.as_ref());
    assert_eq!((out.count_of("shadow_demotions"), out.count_of("shadows_broken"), out.count_of("shadows_held")), (0, 1, 0));
}

#[test]
fn a_store_frees_the_shadow_at_the_next_scan() {
    let mut f = tiered();
    let mut p = queued(&f, "nomad:scan_delay_ms=1");
    f.now = 1_000;
    p.on_timer(&f.view());
    f.now += copy_ps(&f);
    p.on_timer(&f.view());
    f.homes[2] = 0;
    f.written[2] = f.now + 1;
    f.now = 2_000_000_000;
    let t = p.on_timer(&f.view());
    assert!(t.revoke.is_some(), "the scanner's window");
    assert_eq!(t.actions, vec![Action::Unshadow { page: PageNo(2), reason: BROKEN }]);
    let out = stats(p.as_ref());
    assert_eq!((out.count_of("shadows_broken"), out.count_of("shadows_held")), (1, 0));
}

#[test]
fn shadows_are_reclaimed_first_when_the_demotion_target_is_full() {
    // Three promoted pages with shadows; the slow node then has no free page.
    let mut f = tiered();
    let mut p = f.policy("nomad:shadow_reclaim=2");
    for page in [2, 3, 4] {
        for _ in 0..3 {
            p.on_fault(&f.view(), PageNo(page), NodeId(0));
        }
    }
    f.now = 1_000;
    p.on_timer(&f.view());
    f.now += 3 * copy_ps(&f);
    let t = p.on_timer(&f.view());
    assert_eq!(t.actions.iter().filter(|a| matches!(a, Action::Shadow { .. })).count(), 3);
    f.homes = vec![0, 0, 0, 0, 0, 1, 1, 1];
    f.free = vec![4, 0];
    let t = p.on_low_memory(&f.view(), NodeId(0));
    // Two pages short on the fast node, none free on the slow: one batch of two shadows
    // (in page order) goes before the demotions.
    assert_eq!(&t.actions[..2], &[Action::Unshadow { page: PageNo(2), reason: RECLAIM }, Action::Unshadow { page: PageNo(3), reason: RECLAIM }]);
    assert_eq!(t.actions[2..].iter().filter(|a| matches!(a, Action::Migrate { .. })).count(), 2);
    let out = stats(p.as_ref());
    assert_eq!((out.count_of("shadows_reclaimed"), out.count_of("shadows_held")), (2, 1));
}

#[test]
fn without_shadowing_a_commit_keeps_no_copy_and_a_full_ring_queues_nothing() {
    let mut f = tiered();
    let mut p = f.policy("nomad:shadowing=off,queue_len=1");
    for page in [2, 3] {
        for _ in 0..3 {
            p.on_fault(&f.view(), PageNo(page), NodeId(0));
        }
    }
    f.now = 1_000;
    p.on_timer(&f.view());
    f.now += copy_ps(&f);
    let t = p.on_timer(&f.view());
    assert_eq!(t.actions, vec![Action::Migrate { page: PageNo(2), to: NodeId(0), reason: PROMOTE }]);
    let out = stats(p.as_ref());
    assert_eq!((out.count_of("queued"), out.count_of("queue_full"), out.count_of("shadows_made")), (1, 1, 0));
}
