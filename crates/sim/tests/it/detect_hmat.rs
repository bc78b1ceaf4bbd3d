//! Host detection with and without ACPI HMAT (issue 15), over fake sysfs trees: what the kernel
//! publishes under `nodeN/access1/initiators/` (else `access0/`) replaces the assumed 90 ns and
//! 20 GB/s node by node, remote latencies follow the SLIT from the node's nearest initiator, and
//! what was assumed is said in the notes.

use numaplace_sim::detect::{detect_host, detected_toml, DetectOptions};
use numaplace_model::Machine;
use numaplace_outfile::TempDir;
use std::path::Path;

/// One node of a fake tree: its cpulist, MemTotal in kB and SLIT row.
struct Node<'a> {
    cpus: &'a str,
    kb: u64,
    distance: &'a str,
}

/// The tree in a directory of its own, removed when the value is dropped.
fn tree(tag: &str, nodes: &[Node]) -> TempDir {
    let root = TempDir::new(&format!("hmat-{tag}")).unwrap();
    for (i, n) in nodes.iter().enumerate() {
        let dir = root.join(format!("node{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("cpulist"), format!("{}\n", n.cpus)).unwrap();
        std::fs::write(dir.join("meminfo"), format!("Node {i} MemTotal:       {} kB\n", n.kb)).unwrap();
        std::fs::write(dir.join("distance"), format!("{}\n", n.distance)).unwrap();
    }
    root
}

/// Publishes `files` (name, text) in `nodeN/CLASS/initiators/`, with links to `initiators`.
fn hmat(root: &Path, node: usize, class: &str, files: &[(&str, &str)], initiators: &[usize]) {
    let dir = root.join(format!("node{node}")).join(class).join("initiators");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), format!("{text}\n")).unwrap();
    }
    for k in initiators {
        std::os::unix::fs::symlink(format!("../../../node{k}"), dir.join(format!("node{k}"))).unwrap();
    }
}

fn two_nodes(tag: &str) -> TempDir {
    tree(tag, &[Node { cpus: "0-3", kb: 4 << 20, distance: "10 21" }, Node { cpus: "4-7", kb: 4 << 20, distance: "21 10" }])
}

fn assumed(notes: &[String]) -> Vec<&str> {
    notes.iter().filter(|n| n.starts_with("assumed")).map(String::as_str).collect()
}

#[test]
fn without_hmat_the_documented_values_are_assumed_and_said() {
    let root = two_nodes("none");
    let h = detect_host(&root, &DetectOptions::default()).unwrap();
    assert_eq!(h.machine.raw.latency_ns, vec![vec![90.0, 189.0], vec![189.0, 90.0]]);
    assert!(h.machine.raw.nodes.iter().all(|n| n.bandwidth_gbps == 20.0));
    assert_eq!(
        assumed(&h.notes),
        [
            "assumed local latency 90 ns on node 0-1 (no HMAT read_latency)",
            "assumed bandwidth 20 GB/s on node 0-1 (no HMAT read_bandwidth)"
        ]
    );
    assert!(h.notes.contains(&"remote latency = local latency x SLIT distance / 10".to_string()));
    // The file says it too, in its leading comments, and reads back as the same machine.
    let text = detected_toml(&h, "test").unwrap();
    assert!(text.starts_with("# test\n# assumed local latency 90 ns on node 0-1"), "{text}");
    assert_eq!(Machine::from_toml_str(&text, "host.toml").unwrap(), h.machine);
}

#[test]
fn hmat_on_every_node_replaces_the_assumptions_and_access1_wins() {
    let root = two_nodes("all");
    // 95367 MiB/s = 99.9996 GB/s; access0 (any initiator, say a faster accelerator) is ignored
    // where access1 (CPU initiators) is published.
    hmat(&root, 0, "access1", &[("read_latency", "80"), ("read_bandwidth", "95367"), ("write_latency", "90")], &[0]);
    hmat(&root, 0, "access0", &[("read_latency", "5"), ("read_bandwidth", "1")], &[0]);
    hmat(&root, 1, "access1", &[("read_latency", "120"), ("read_bandwidth", "47684")], &[1]);
    let h = detect_host(&root, &DetectOptions::default()).unwrap();
    // a[0][1] = 120 x 21 / 10 = 252, a[1][0] = 80 x 21 / 10 = 168; the machine's is their mean.
    assert_eq!(h.machine.raw.latency_ns, vec![vec![80.0, 210.0], vec![210.0, 120.0]]);
    let bw: Vec<f64> = h.machine.raw.nodes.iter().map(|n| n.bandwidth_gbps).collect();
    assert!((bw[0] - 95367.0 * 1048576.0 / 1e9).abs() < 1e-9 && (bw[1] - 47684.0 * 1048576.0 / 1e9).abs() < 1e-9, "{bw:?}");
    assert!(assumed(&h.notes).is_empty(), "{:?}", h.notes);
    assert!(h.notes.contains(&"local latency: HMAT access1/initiators/read_latency on node 0-1".to_string()), "{:?}", h.notes);
    assert!(h.machine.raw.description.contains("HMAT access1/initiators/read_bandwidth on node 0-1"));
}

#[test]
fn partial_hmat_mixes_published_and_assumed_values_and_says_which() {
    let root = two_nodes("partial");
    // Node 0 publishes its latency through access0 only (access1 is there but says nothing)
    // and a 0 bandwidth, the kernel's "unknown"; node 1 publishes nothing.
    hmat(&root, 0, "access1", &[("read_latency", "0")], &[0]);
    hmat(&root, 0, "access0", &[("read_latency", "70"), ("read_bandwidth", "0")], &[0]);
    let h = detect_host(&root, &DetectOptions { local_ns: 100.0, bandwidth_gbps: 7.0, ..DetectOptions::default() }).unwrap();
    // a[0][1] = 100 x 21 / 10 (assumed, over 10) = 210, a[1][0] = 70 x 21 / 10 = 147.
    assert_eq!(h.machine.raw.latency_ns, vec![vec![70.0, 178.5], vec![178.5, 100.0]]);
    assert!(h.machine.raw.nodes.iter().all(|n| n.bandwidth_gbps == 7.0));
    assert_eq!(
        assumed(&h.notes),
        ["assumed local latency 100 ns on node 1 (no HMAT read_latency)", "assumed bandwidth 7 GB/s on node 0-1 (no HMAT read_bandwidth)"]
    );
    assert!(h.notes.contains(&"local latency: HMAT access0/initiators/read_latency on node 0".to_string()), "{:?}", h.notes);
}

#[test]
fn a_malformed_or_out_of_bounds_hmat_value_is_one_line_naming_its_file() {
    for (tag, file, text, says) in [
        ("word", "read_latency", "fast", "\"fast\" is not a whole number"),
        ("neg", "read_latency", "-5", "\"-5\" is not a whole number"),
        ("frac", "read_bandwidth", "1.5", "\"1.5\" is not a whole number"),
        ("far", "read_latency", "2000000", "2000000 gives 2000000 ns, outside the machine bounds [1, 1000000] ns (docs/bounds.md)"),
    ] {
        let root = two_nodes(tag);
        hmat(&root, 1, "access1", &[(file, text)], &[1]);
        let e = detect_host(&root, &DetectOptions::default()).unwrap_err().to_string();
        let path = root.join("node1/access1/initiators").join(file);
        assert_eq!(e, format!("{}: {says}", path.display()));
        assert_eq!(e.lines().count(), 1);
    }
}

#[test]
fn a_cpu_less_memory_node_takes_its_latency_from_its_initiator_and_the_slit() {
    // Two sockets and a CXL expander behind socket 0 (node 2: memory, no CPUs).
    let root = tree(
        "cxl",
        &[
            Node { cpus: "0-3", kb: 4 << 20, distance: "10 21 24" },
            Node { cpus: "4-7", kb: 4 << 20, distance: "21 10 34" },
            Node { cpus: "", kb: 8 << 20, distance: "24 34 10" },
        ],
    );
    hmat(&root, 0, "access1", &[("read_latency", "110")], &[0]);
    hmat(&root, 1, "access1", &[("read_latency", "110")], &[1]);
    hmat(&root, 2, "access1", &[("read_latency", "250"), ("read_bandwidth", "47684")], &[0]);
    let h = detect_host(&root, &DetectOptions::default()).unwrap();
    let l = &h.machine.raw.latency_ns;
    assert_eq!(h.machine.raw.nodes[2].cpus, 0);
    // From its initiator, node 0: the published 250 ns. From node 1: 250 x 34 / 24. The
    // CPU-less node's own row never serves a CPU; the matrix stays symmetric.
    assert_eq!(l[0][2], 250.0);
    assert!((l[1][2] - 250.0 * 34.0 / 24.0).abs() < 1e-9, "{l:?}");
    assert_eq!(l[2][0], l[0][2]);
    assert_eq!(l[2][1], l[1][2]);
    assert_eq!(l[0][1], 231.0);
    assert_eq!(h.machine.nearest[1].iter().map(|n| n.0).collect::<Vec<_>>(), [1, 0, 2]);
    assert_eq!(assumed(&h.notes), ["assumed bandwidth 20 GB/s on node 0-1 (no HMAT read_bandwidth)"]);
}
