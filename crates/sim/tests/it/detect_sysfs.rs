//! Host detection over fake sysfs trees (issue 16): a hostile `cpulist` is refused before it is
//! expanded, a repeated CPU is not counted twice, and the migration costs a detected machine
//! gets are the `modern-2s` preset's, as `docs/machines.md` says ("`[migration]` takes the
//! `modern-2s` preset's Linux figures").

use numaplace_sim::detect::{detect, DetectOptions};
use numaplace_sim::presets::preset;
use numaplace_outfile::TempDir;

/// A sysfs node directory with one node per `cpulist`, each with 1 GiB and a SLIT row.
/// In a directory of its own, removed when the value is dropped.
fn fake_sysfs(tag: &str, cpulists: &[&str]) -> TempDir {
    let root = TempDir::new(&format!("detect-{tag}")).unwrap();
    let n = cpulists.len();
    for (i, list) in cpulists.iter().enumerate() {
        let dir = root.join(format!("node{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("cpulist"), format!("{list}\n")).unwrap();
        std::fs::write(dir.join("meminfo"), format!("Node {i} MemTotal:       1048576 kB\n")).unwrap();
        let row: Vec<&str> = (0..n).map(|j| if i == j { "10" } else { "21" }).collect();
        std::fs::write(dir.join("distance"), row.join(" ") + "\n").unwrap();
    }
    root
}

#[test]
fn a_huge_or_overlapping_cpulist_is_refused_without_expanding_it() {
    // `0-999999999` used to allocate 8 GB and abort; `0-1,1,0-1` counted 5 CPUs.
    for (tag, list) in [("huge", "0-999999999"), ("overlap", "0-1,1,0-1")] {
        let root = fake_sysfs(tag, &[list, "4-7"]);
        let e = detect(&root, &DetectOptions::default()).unwrap_err().to_string();
        assert_eq!(e, format!("{}: not a CPU list", root.join("node0/cpulist").display()));
    }
}

#[test]
fn a_detected_machine_counts_each_cpu_once_and_has_the_documented_migration_costs() {
    let root = fake_sysfs("ok", &["0-3,8", "4-7"]);
    let m = detect(&root, &DetectOptions::default()).unwrap();
    assert_eq!(m.raw.nodes.iter().map(|n| n.cpus).collect::<Vec<_>>(), [5, 4]);
    assert_eq!(m.raw.latency_ns, vec![vec![90.0, 189.0], vec![189.0, 90.0]]);
    // The TLB shootdown in particular: 250 ns per CPU, as machines/modern-2s.toml argues.
    assert_eq!(m.raw.migration, preset("modern-2s").unwrap().raw.migration);
    assert_eq!(m.raw.migration.tlb_shootdown_ns_per_cpu, 250.0);
}
