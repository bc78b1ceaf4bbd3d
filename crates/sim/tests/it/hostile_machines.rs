//! Hostile machine files (issue 16): every numeric key of every preset, set in turn to values a
//! careless script or a hostile user would write, must either be refused with one line that
//! names the key, or give a machine on which a tiny workload finishes in a bounded number of
//! quanta with a finite total. Before the machine file's ranges existed, `bandwidth_gbps =
//! 1e-9` and latencies of 1e12 ns hung a run, 1e20 ns wrapped its clock, `cpus = 4294967295`
//! aborted and `memory_mib = 2^44 + 1` wrapped to 256 pages.

use numaplace_model::Machine;
use numaplace_sim::presets::PRESETS;
use numaplace_sim::{simulate_on, RunConfig};
use toml::Value;

/// What replaces a key's value, as TOML text: zero, negative, tiny, huge, not-a-number (as a
/// float and as a string), past u64, the memory size that once wrapped, u32::MAX, and the
/// bandwidth and latency that once hung.
const HOSTILE: &[&str] = &[
    "0",
    "-1",
    "1e-300",
    "1e300",
    "nan",
    "\"nan\"",
    "inf",
    "18446744073709551616",
    "17592186044417",
    "4294967295",
    "1e-9",
    "1e12",
];

/// The tiny workload every accepted machine must finish.
const WORKLOAD: &str = "stream:pages=2,arrays=1,iterations=1";

/// The quanta a tiny run may take at most. The slowest line a bounded machine allows costs
/// about a millisecond (a 1 ms latency, or 1 KiB at 1 MB/s), and the workload fetches at
/// most 4 pages of 65535 lines: some 2.6e5 ms, 1.3e6 quanta of the default 200 us.
const MAX_QUANTA: f64 = 1e7;

/// The paths of the numeric leaves to try: every scalar key, the first node's and the last
/// node's keys, and two latency entries (the diagonal and one off it, set symmetrically).
fn leaves(root: &Value) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let table = root.as_table().unwrap();
    for (k, v) in table {
        if v.is_integer() || v.is_float() {
            out.push(vec![k.clone()]);
        }
    }
    for section in ["migration", "watermarks"] {
        for (k, v) in table.get(section).and_then(Value::as_table).into_iter().flatten() {
            if v.is_integer() || v.is_float() {
                out.push(vec![section.into(), k.clone()]);
            }
        }
    }
    let nodes = table["nodes"].as_array().unwrap();
    let mut which = vec![0];
    if nodes.len() > 1 {
        which.push(nodes.len() - 1);
    }
    for i in which {
        for (k, _) in nodes[i].as_table().unwrap() {
            out.push(vec!["nodes".into(), i.to_string(), k.clone()]);
        }
    }
    let n = nodes.len();
    out.push(vec!["latency_ns".into(), "0".into(), "0".into()]);
    if n > 1 {
        out.push(vec!["latency_ns".into(), "0".into(), (n - 1).to_string()]);
    }
    out
}

/// The value at `path`, mutably.
fn at<'a>(v: &'a mut Value, path: &[String]) -> &'a mut Value {
    path.iter().fold(v, |v, seg| match v {
        Value::Table(t) => t.get_mut(seg).unwrap(),
        Value::Array(a) => &mut a[seg.parse::<usize>().unwrap()],
        _ => panic!("no {seg} in a scalar"),
    })
}

/// The machine text with the value at `path` (and, for a latency, its mirror) replaced by
/// `raw` TOML text.
fn with_value(root: &Value, path: &[String], raw: &str) -> String {
    let mut v = root.clone();
    *at(&mut v, path) = Value::String("@HOSTILE@".into());
    if path[0] == "latency_ns" {
        let mirror = [path[0].clone(), path[2].clone(), path[1].clone()];
        *at(&mut v, &mirror) = Value::String("@HOSTILE@".into());
    }
    toml::to_string(&v).unwrap().replace("\"@HOSTILE@\"", raw)
}

#[test]
fn every_numeric_key_of_every_preset_survives_hostile_values() {
    let (mut refused, mut simulated) = (0, 0);
    for (name, text) in PRESETS {
        let mut root: Value = toml::from_str(text).unwrap();
        // The optional keys too.
        let t = root.as_table_mut().unwrap();
        t.entry("counter_bits").or_insert(Value::Integer(11));
        t["migration"].as_table_mut().unwrap().entry("trap_ns").or_insert(Value::Float(0.0));
        t.entry("watermarks").or_insert_with(|| toml::from_str("min_permille = 0.5\nlow_permille = 1.5\nhigh_permille = 2.5").unwrap());
        for path in leaves(&root) {
            let key = path.last().unwrap().as_str();
            let key = if path[0] == "latency_ns" { "latency_ns" } else { key };
            for raw in HOSTILE {
                let case = format!("{name}: {} = {raw}", path.join("."));
                let machine = match Machine::from_toml_str(&with_value(&root, &path, raw), "hostile.toml") {
                    Err(e) => {
                        let e = e.to_string();
                        assert!(e.starts_with("hostile.toml"), "{case}: {e}");
                        assert!(e.contains(key), "{case}: the error does not name `{key}`: {e}");
                        assert!(!e.contains('\n'), "{case}: {e}");
                        refused += 1;
                        continue;
                    }
                    Ok(m) => m,
                };
                let cfg = RunConfig { workload: WORKLOAD.into(), threads: 1, ..RunConfig::default() };
                match simulate_on(&machine, &cfg) {
                    Ok(r) => {
                        assert!(r.total_time_ns.is_finite() && r.total_time_ns > 0.0, "{case}: total {}", r.total_time_ns);
                        let quanta = r.total_time_ns / cfg.quantum_ns;
                        assert!(quanta <= MAX_QUANTA, "{case}: {quanta} quanta");
                        simulated += 1;
                    }
                    // A machine too small for the workload, say: refused in one line.
                    Err(e) => assert!(!e.to_string().contains('\n'), "{case}: {e}"),
                }
            }
        }
    }
    // Both outcomes happen: the suite exercises the checks and the simulator.
    assert!(refused > 100 && simulated > 20, "refused {refused}, simulated {simulated}");
}

#[test]
fn the_reported_reproductions_are_refused_naming_their_key() {
    let (_, text) = PRESETS[0];
    let root: Value = toml::from_str(text).unwrap();
    let path = |s: &str| s.split('.').map(str::to_string).collect::<Vec<_>>();
    for (p, raw, want) in [
        ("nodes.0.bandwidth_gbps", "1e-9", "nodes[0].bandwidth_gbps = 0.000000001: must be a number in [0.001, 1000000] GB/s"),
        ("latency_ns.0.1", "1e12", "latency_ns[0][1] = 1000000000000: must be a number in [1, 1000000] ns"),
        ("latency_ns.0.1", "1e20", "latency_ns[0][1] = 100000000000000000000: must be a number in [1, 1000000] ns"),
        ("nodes.0.cpus", "1000000000", "nodes[0].cpus = 1000000000: more than 65535 CPUs in all"),
        ("nodes.0.cpus", "4294967295", "nodes[0].cpus = 4294967295: more than 65535 CPUs in all"),
        ("nodes.0.memory_mib", "17592186044417", "nodes[0].memory_mib = 17592186044417: must be at most 1073741824 (1 PiB)"),
    ] {
        let e = Machine::from_toml_str(&with_value(&root, &path(p), raw), "o.toml").unwrap_err().to_string();
        assert_eq!(e, format!("o.toml: {want}"));
    }
}
