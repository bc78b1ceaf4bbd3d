//! Tests of the whole [`Runtime`] over a fake kernel ([`crate::sys::FakeSys`]): the policy
//! driver, the regions, placements, record-replay and the stats file, each driven through the
//! runtime's operations as the C API drives them. (In a module of their own so that each
//! part's module needs nothing above it.)

use crate::config::Config;
use crate::error::Code;
use crate::runtime::Runtime;
use crate::space::SPACE;
use crate::sys::{FakeSys, MemPolicy, Sys, SysError};
use std::sync::Arc;
use std::time::Duration;

/// A FakeSys shared with the test, so it can inspect pages after the runtime moved them.
pub(crate) struct Shared(pub(crate) Arc<FakeSys>);

impl Sys for Shared {
    fn page_size(&self) -> usize {
        self.0.page_size()
    }
    fn topology(&self) -> &crate::sys::Topology {
        self.0.topology()
    }
    fn move_pages(&self, p: &[usize], t: Option<&[usize]>, s: &mut [i32]) -> Result<(), SysError> {
        self.0.move_pages(p, t, s)
    }
    fn mbind(&self, a: usize, l: usize, p: &MemPolicy) -> Result<(), SysError> {
        self.0.mbind(a, l, p)
    }
    fn touch(&self, a: usize, l: usize) {
        self.0.touch(a, l)
    }
    fn current_node(&self) -> usize {
        self.0.current_node()
    }
    fn free_pages(&self) -> Option<Vec<u64>> {
        self.0.free_pages()
    }
    fn watermarks(&self) -> Option<Vec<numaplace_model::watermarks::Watermarks>> {
        self.0.watermarks()
    }
}

/// A runtime over a fake 4-node kernel, with [`SPACE`] held for the test (keep the guard).
pub(crate) fn rt(dynamic: &str) -> (Runtime, Arc<FakeSys>, std::sync::MutexGuard<'static, ()>) {
    let space = crate::space::testing::hold_space();
    let fake = Arc::new(FakeSys::new(4, 10_000));
    let cfg = Config { dynamic: dynamic.into(), ..Config::default() };
    let rt = Runtime::new(Box::new(Shared(fake.clone())), cfg).unwrap();
    SPACE.configure(4, 4096, &[Some(0), Some(1), Some(2), Some(3)]);
    (rt, fake, space)
}

/// The policy driver ([`crate::driver`]).
mod driver {
    use super::*;

    #[test]
    fn unknown_and_unsupported_policies_are_refused_with_names() {
        let fake = Arc::new(FakeSys::new(2, 100));
        let e = Runtime::new(Box::new(Shared(fake.clone())), Config { dynamic: "nosuch".into(), ..Config::default() }).err().unwrap();
        assert_eq!(e.code, Code::Spec);
        assert!(e.message.contains("nosuch") && e.message.contains("upmlib"), "{}", e.message);
        let e = Runtime::new(Box::new(Shared(fake.clone())), Config { dynamic: "kernel".into(), ..Config::default() }).err().unwrap();
        assert_eq!(e.code, Code::Unsupported);
        let e = Runtime::new(Box::new(Shared(fake)), Config { placement: "wc".into(), ..Config::default() }).err().unwrap();
        assert_eq!(e.code, Code::Spec);
    }

    fn block_owner(p: usize, pages: usize) -> usize {
        p * 4 / pages
    }

    #[test]
    fn upmlib_moves_each_page_to_its_sampled_node_then_deactivates() {
        let (mut rt, fake, _space) = rt("upmlib");
        let base = 0x4000_0000;
        let pages = 64;
        fake.touch(base, pages * 4096); // first touch by "thread 0": all on node 0
        let slot = rt.register(base, pages * 4096, "a", None).unwrap();
        for p in 0..pages {
            SPACE.inject(slot, p, block_owner(p, pages), 3);
        }
        assert_eq!(rt.migrate("migrate").unwrap(), 48);
        assert!((0..pages).all(|p| fake.node_of(base + p * 4096) == Some(block_owner(p, pages))));
        // Iteration 2: the samples agree with the placement: nothing moves, upmlib switches off.
        for p in 0..pages {
            SPACE.inject(slot, p, block_owner(p, pages), 3);
        }
        assert_eq!(rt.migrate("migrate").unwrap(), 0);
        assert!(!rt.wants_samples());
        let s = rt.stats_file();
        assert_eq!(s.pages_moved, 48);
        assert_eq!(s.before, [64, 0, 0, 0]);
        assert_eq!(s.after, [16, 16, 16, 16]);
        assert_eq!(s.epochs[0].local_share, Some(0.25));
        assert_eq!(s.epochs[1].local_share, Some(1.0));
        rt.unregister(base);
    }

    #[test]
    fn sampled_with_an_adaptive_period_waits_for_samples_then_moves_to_the_most_sampled_node() {
        let (mut rt, fake, _space) = rt("sampled");
        assert_eq!(rt.driver.timer, Some(Duration::from_millis(100))); // 10 ms checks, at the sampler's pace
        let base = 0x6000_0000;
        let pages = 16;
        fake.touch(base, pages * 4096);
        let slot = rt.register(base, pages * 4096, "a", None).unwrap();
        for p in 0..pages {
            SPACE.inject(slot, p, 2, 1); // 1 sample per page: below 1.8
        }
        assert_eq!(rt.migrate("timer").unwrap(), 0);
        assert!(rt.stats.epochs.is_empty(), "a declined tick is not an epoch");
        for p in 0..pages {
            SPACE.inject(slot, p, 2, 1); // the interval goes on: now 2 per page
        }
        assert_eq!(rt.migrate("timer").unwrap(), 16);
        assert!((0..pages).all(|p| fake.node_of(base + p * 4096) == Some(2)));
        assert_eq!(rt.stats.epochs.len(), 1);
        assert_eq!(SPACE.count(slot, 0, 2), 0, "the policy's reset cleared the samples");
        rt.unregister(base);
    }

    #[test]
    fn a_timer_policy_backs_off_while_placement_holds_and_comes_back_on_a_move() {
        let (mut rt, fake, _space) = rt("sampled:period_ms=1");
        let base = 0x7000_0000;
        let pages = 64;
        fake.touch(base, pages * 4096);
        let slot = rt.register(base, pages * 4096, "a", None).unwrap();
        // Two threads, on nodes 1 and 2, each using half the pages.
        let decide = |rt: &mut Runtime, user: &dyn Fn(usize) -> usize| {
            for p in 0..pages {
                SPACE.inject(slot, p, user(p), 2);
            }
            rt.migrate("timer").unwrap()
        };
        let halves = |p: usize| if p < pages / 2 { 1 } else { 2 };
        // One node's samples alone (a start-up, one thread touching everything) say nothing.
        assert_eq!(decide(&mut rt, &|_| 0), 0);
        assert_eq!(rt.sampling.backoff, 0);
        assert_eq!(decide(&mut rt, &halves), 64);
        assert_eq!(rt.sampling.backoff, 0);
        // Placement holds: the back-off rises after 1, 2, 4, ... holding decisions in a row.
        let mut levels = Vec::new();
        for _ in 0..40 {
            assert_eq!(decide(&mut rt, &halves), 0);
            levels.push(rt.sampling.backoff);
        }
        assert_eq!(&levels[..8], &[1, 1, 2, 2, 2, 2, 3, 3]);
        assert_eq!(*levels.last().unwrap(), 5);
        assert_eq!(decide(&mut rt, &|p| if p < pages / 2 { 3 } else { 2 }), 32); // accesses moved
        assert_eq!(rt.sampling.backoff, 0);
        // An explicit call (numaplace_migrate, not the timer) does not change the pace.
        for p in 0..pages {
            SPACE.inject(slot, p, if p < pages / 2 { 3 } else { 2 }, 2);
        }
        assert_eq!(rt.migrate("migrate").unwrap(), 0);
        assert_eq!(rt.sampling.backoff, 0);
        rt.unregister(base);
    }
}

/// The regions ([`crate::regions`]).
mod regions {
    use super::*;

    #[test]
    fn a_failed_registration_leaves_nothing_managed_and_unregister_finds_unaligned_ranges() {
        let (mut rt, fake, _space) = rt("none");
        let base = 0x7100_0000;
        fake.state.lock().unwrap().fail_all = Some(libc::EPERM);
        let e = rt.register(base, 4 * 4096, "x", None).unwrap_err();
        assert_eq!(e.code, Code::Sys);
        assert!(SPACE.find(base).is_none() && rt.regions.list.is_empty());
        fake.state.lock().unwrap().fail_all = None;
        // Registered from an unaligned address: the region starts at the next page.
        rt.register(base + 100, 4 * 4096, "y", None).unwrap();
        assert_eq!(rt.regions.list[0].start, base + 4096);
        assert_eq!(rt.unregister(base + 100), Some(None));
        assert!(rt.regions.list.is_empty() && SPACE.find(base + 4096).is_none());
    }
}

/// Placements ([`crate::place`]).
mod place {
    use super::*;

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

/// Record-replay ([`crate::recrep`]).
mod recrep {
    use super::*;

    #[test]
    fn record_replay_moves_the_phase_pages_and_undo_restores_them() {
        let (mut rt, fake, _space) = rt("none");
        rt.host.cfg.recrep = "n=100".into();
        let base = 0x5000_0000;
        let pages = 32;
        fake.touch(base, pages * 4096);
        let slot = rt.register(base, pages * 4096, "u", None).unwrap();
        assert_eq!(rt.replay("z").unwrap_err().code, Code::State);
        rt.record("z").unwrap();
        // In the phase, node 3 uses the second half.
        for p in pages / 2..pages {
            SPACE.inject(slot, p, 3, 2);
        }
        rt.record("z").unwrap();
        assert_eq!(rt.record("z").unwrap_err().code, Code::State);
        rt.compare("z").unwrap();
        assert_eq!(rt.replay("z").unwrap(), 16);
        assert!((pages / 2..pages).all(|p| fake.node_of(base + p * 4096) == Some(3)));
        assert_eq!(rt.undo().unwrap(), 16);
        assert!((0..pages).all(|p| fake.node_of(base + p * 4096) == Some(0)));
        // Replayed again in the next iteration.
        assert_eq!(rt.replay("z").unwrap(), 16);
        assert_eq!(rt.undo().unwrap(), 16);
        rt.unregister(base);
    }
}

/// The stats file ([`crate::stats`]).
mod stats {
    use super::*;
    use numaplace_model::stats::{Field, Kind, FILE};
    use serde_json::Value;
    use std::collections::BTreeSet;

    /// Checks `v` against `fields`: the same keys, each value of its kind.
    fn conforms(v: &Value, fields: &[Field], at: &str) {
        let obj = v.as_object().unwrap_or_else(|| panic!("{at}: not an object"));
        let keys: BTreeSet<&str> = obj.keys().map(String::as_str).collect();
        let names: BTreeSet<&str> = fields.iter().map(|f| f.name).collect();
        assert_eq!(keys, names, "{at}: the keys written are not the schema's");
        for f in fields {
            let x = &obj[f.name];
            if x.is_null() {
                assert!(f.nullable, "{at}.{}: null, but the schema says it is not nullable", f.name);
                continue;
            }
            let ok = match f.kind {
                Kind::Text => x.is_string(),
                Kind::Integer => x.is_u64() || x.is_i64(),
                Kind::Number => x.is_number(),
                Kind::Share => x.as_f64().is_some_and(|s| (0.0..=1.0).contains(&s)),
                Kind::PerNode => x.as_array().is_some_and(|a| a.iter().all(Value::is_u64)),
                Kind::Record => x.as_object().is_some_and(|o| o.values().all(|v| v.is_number() || v.is_null() || v.as_array().is_some_and(|a| a.iter().all(|y| y.is_number() || y.is_null())))),
                Kind::List(inner) => {
                    for (i, item) in x.as_array().expect("a list").iter().enumerate() {
                        conforms(item, inner, &format!("{at}.{}[{i}]", f.name));
                    }
                    true
                }
            };
            assert!(ok, "{at}.{}: {x} is not of kind {}", f.name, f.kind.name());
        }
    }

    #[test]
    fn the_stats_written_are_the_schema_with_a_freed_region_a_live_one_and_epochs() {
        let (mut rt, fake, _space) = rt("upmlib");
        let (freed, live) = (0x8000_0000, 0x8100_0000);
        fake.touch(freed, 8 * 4096);
        fake.touch(live, 8 * 4096);
        rt.register(freed, 8 * 4096, "freed", None).unwrap();
        let slot = rt.register(live, 8 * 4096, "live", None).unwrap();
        for p in 0..8 {
            SPACE.inject(slot, p, 1, 3);
        }
        assert!(rt.migrate("migrate").unwrap() > 0);
        rt.unregister(freed);
        let v = serde_json::to_value(rt.stats_file()).unwrap();
        conforms(&v, FILE, "stats");
        assert_eq!(v["regions"][0]["address"], Value::Null, "a freed region has no address");
        assert_eq!(v["regions"][1]["address"], format!("{live:#x}"));
        assert_eq!(v["epochs"].as_array().unwrap().len(), 1);
        rt.unregister(live);
    }

    #[test]
    fn the_stats_file_is_written_through_links_and_devices_and_never_onto_a_directory() {
        let (rt, _fake, _space) = rt("upmlib");
        // A private directory, removed when `scratch` is dropped.
        let scratch = numaplace_outfile::TempDir::new("numaplace-stats-write").unwrap();
        let d = scratch.join("d");
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        std::os::unix::fs::symlink("target.json", d.join("link.json")).unwrap();
        rt.stats_write(d.join("link.json").to_str().unwrap()).unwrap();
        assert!(std::fs::symlink_metadata(d.join("link.json")).unwrap().file_type().is_symlink(), "the link stays");
        let written: Value = serde_json::from_str(&std::fs::read_to_string(d.join("target.json")).unwrap()).unwrap();
        assert_eq!(written["numaplace_stats"], numaplace_model::stats::VERSION);
        rt.stats_write("/dev/null").unwrap();
        assert!(!std::fs::metadata("/dev/null").unwrap().is_file(), "a device is written through, not replaced");
        std::fs::create_dir(d.join("dir.json")).unwrap();
        let e = rt.stats_write(d.join("dir.json").to_str().unwrap()).unwrap_err();
        assert!(e.message.contains("is a directory"), "{}", e.message);
        let mut left: Vec<String> = std::fs::read_dir(&d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        left.sort();
        assert_eq!(left, ["dir.json", "link.json", "target.json"], "no temporary is left");
        std::fs::remove_dir_all(&d).unwrap();
    }
}
