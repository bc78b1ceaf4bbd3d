//! A machine description of this host, from Linux's `/sys/devices/system/node`.
//!
//! Read per node: `cpulist` (CPUs), `meminfo` (`MemTotal`), `distance` (the ACPI SLIT row, where
//! 10 means local), and where the kernel publishes ACPI HMAT figures
//! (Documentation/admin-guide/mm/numaperf.rst) `access1/initiators/` (CPU initiators) or else
//! `access0/initiators/` (any initiator): `read_latency` (ns), `read_bandwidth` (MiB/s) and the
//! `nodeK` links naming the node's local initiators. Node directories with sparse numbers
//! (node0, node2) are renumbered densely in order. This module only reads the files; the
//! conversion into a machine (latencies from HMAT and the SLIT, memory, the assumed costs) is
//! the model's [`host_machine_hmat`], whose HMAT-less form the Linux runtime uses too.

use crate::error::SimError;
use numaplace_model::topology::{
    bounds, host_machine_hmat, parse_cpulist, parse_meminfo_total_kb, sysfs_node_ids, HostMachine, HostNode, HostPerf,
};
use numaplace_model::{Machine, ModelError};
use std::path::Path;

/// Options of the detection that sysfs cannot supply (the model's, with its defaults).
pub use numaplace_model::topology::HostOptions as DetectOptions;

fn read(path: &Path) -> Result<String, SimError> {
    crate::input::read_text(path, crate::input::SYSFS_FILE)
}

fn bad(path: &Path, what: String) -> SimError {
    SimError::Io { path: numaplace_model::error::shown_path(path), message: what }
}

/// The access classes read, best first: CPU initiators (newer kernels), then any initiator.
const HMAT_CLASSES: [&str; 2] = ["access1", "access0"];

/// One HMAT attribute file: `None` if absent or 0 (the kernel's "not published"); an error
/// naming the file if it is not a whole number, or if `scale` of it lies outside `range`
/// (the machine bounds of docs/bounds.md).
fn hmat_value(path: &Path, scale: f64, range: (f64, f64), unit: &str) -> Result<Option<f64>, SimError> {
    if !path.exists() {
        return Ok(None);
    }
    let text = read(path)?;
    let raw: u64 = text.trim().parse().map_err(|_| bad(path, format!("{:?} is not a whole number", text.trim())))?;
    if raw == 0 {
        return Ok(None);
    }
    let v = raw as f64 * scale;
    if !(range.0..=range.1).contains(&v) {
        return Err(bad(path, format!("{raw} gives {v} {unit}, outside the machine bounds [{}, {}] {unit} (docs/bounds.md)", range.0, range.1)));
    }
    Ok(Some(v))
}

/// What HMAT publishes for the node in `dir`: the first class of [`HMAT_CLASSES`] that publishes
/// a latency or a bandwidth (a kernel may create `access1/` and leave it empty); `ids` maps
/// the `nodeK` links to dense indices.
fn hmat(dir: &Path, ids: &[u32]) -> Result<HostPerf, SimError> {
    for class in HMAT_CLASSES {
        let init = dir.join(class).join("initiators");
        if !init.is_dir() {
            continue;
        }
        let entries = std::fs::read_dir(&init).map_err(|e| SimError::io(&init, e))?;
        let linked = sysfs_node_ids(entries.filter_map(|e| e.ok()?.file_name().into_string().ok()));
        let perf = HostPerf {
            class: class.to_string(),
            read_latency_ns: hmat_value(&init.join("read_latency"), 1.0, bounds::LATENCY_NS, "ns")?,
            // MiB/s (numaperf.rst) to GB/s.
            read_bandwidth_gbps: hmat_value(&init.join("read_bandwidth"), 1048576.0 / 1e9, bounds::BANDWIDTH_GBPS, "GB/s")?,
            initiators: linked.iter().filter_map(|k| ids.iter().position(|i| i == k)).collect(),
        };
        if perf.read_latency_ns.is_some() || perf.read_bandwidth_gbps.is_some() {
            return Ok(perf);
        }
    }
    Ok(HostPerf::default())
}

/// Builds a machine from a sysfs node directory (normally `/sys/devices/system/node`), with
/// notes saying where each figure came from and which were assumed.
///
/// # Errors
/// A missing or unreadable directory or file, unparsable contents (an HMAT value that is not
/// a whole number, or outside the machine bounds), or a result that fails machine validation
/// (for example a host whose nodes report no CPUs).
pub fn detect_host(root: &Path, opts: &DetectOptions) -> Result<HostMachine, SimError> {
    let entries = std::fs::read_dir(root).map_err(|e| SimError::io(root, e))?;
    let ids = sysfs_node_ids(entries.filter_map(|e| e.ok()?.file_name().into_string().ok()));
    if ids.is_empty() {
        return Err(bad(root, "no node* directories: is this a Linux sysfs node directory?".into()));
    }
    let mut nodes = Vec::new();
    let mut perf = Vec::new();
    for id in &ids {
        let dir = root.join(format!("node{id}"));
        let p = dir.join("cpulist");
        let cpus = parse_cpulist(&read(&p)?).ok_or_else(|| bad(&p, "not a CPU list".into()))?.len() as u32;
        let p = dir.join("meminfo");
        let memory_kib = parse_meminfo_total_kb(&read(&p)?).ok_or_else(|| bad(&p, "no MemTotal line".into()))?;
        let p = dir.join("distance");
        let row: Result<Vec<f64>, _> = read(&p)?.split_whitespace().map(|v| v.parse::<f64>()).collect();
        let distance = row.map_err(|_| bad(&p, "not a list of numbers".into()))?;
        if distance.len() != ids.len() {
            return Err(bad(&p, format!("{} distances for {} nodes", distance.len(), ids.len())));
        }
        nodes.push(HostNode { cpus, memory_kib, distance });
        perf.push(hmat(&dir, &ids)?);
    }
    host_machine_hmat(&nodes, &perf, opts, &numaplace_model::error::shown_path(root)).map_err(SimError::from)
}

/// Builds a machine from a sysfs node directory; [`detect_host`] without the notes.
///
/// # Errors
/// As [`detect_host`].
pub fn detect(root: &Path, opts: &DetectOptions) -> Result<Machine, SimError> {
    detect_host(root, opts).map(|h| h.machine)
}

/// The machine file `numaplace topo --detect` writes: a comment line `header`, one comment line
/// per note of the detection (`# assumed ...` for each value the kernel did not publish), then
/// the machine.
///
/// # Errors
/// Only if the machine could not be serialised (a bug).
pub fn detected_toml(h: &HostMachine, header: &str) -> Result<String, SimError> {
    let notes: String = h.notes.iter().map(|n| format!("# {n}\n")).collect();
    Ok(format!("# {header}\n{notes}{}", body(&h.machine)?))
}

fn body(m: &Machine) -> Result<String, SimError> {
    Ok(toml::to_string(&m.raw).map_err(|e| ModelError::Config(format!("cannot write machine TOML: {e}")))?)
}

/// Writes a machine as TOML text that [`Machine::from_toml_str`] reads back, after a comment
/// line `header`.
///
/// # Errors
/// Only if the machine could not be serialised (a bug).
pub fn to_toml(m: &Machine, header: &str) -> Result<String, SimError> {
    Ok(format!("# {header}\n{}", body(m)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake_sysfs(dir: &Path, nodes: &[(&str, u64, &str)]) {
        for (i, (cpus, kb, dist)) in nodes.iter().enumerate() {
            let d = dir.join(format!("node{}", i * 2));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("cpulist"), format!("{cpus}\n")).unwrap();
            std::fs::write(d.join("meminfo"), format!("Node {} MemTotal:       {kb} kB\nNode 0 MemFree: 1 kB\n", i * 2))
                .unwrap();
            std::fs::write(d.join("distance"), format!("{dist}\n")).unwrap();
        }
        std::fs::write(dir.join("possible"), "0,2\n").unwrap();
    }

    #[test]
    fn detects_a_two_node_host_and_round_trips() {
        // A private directory, removed when `scratch` is dropped.
        let scratch = numaplace_outfile::TempDir::new("np-detect").unwrap();
        let dir = scratch.join("d");
        let _ = std::fs::remove_dir_all(&dir);
        fake_sysfs(&dir, &[("0-3,8-11", 4 * 1024 * 1024, "10 21"), ("4-7", 2 * 1024 * 1024, "21 10")]);
        let m = detect(&dir, &DetectOptions::default()).unwrap();
        assert_eq!(m.cpus(), 12);
        assert_eq!(m.raw.nodes[0].memory_mib, 4096);
        assert_eq!(m.raw.latency_ns[0][1], 189.0);
        assert_eq!(m.raw.latency_ns[1][1], 90.0);
        let text = to_toml(&m, "test").unwrap();
        let back = Machine::from_toml_str(&text, "detected.toml").unwrap();
        assert_eq!(back, Machine { ..m });
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_directory_is_named() {
        let e = detect(Path::new("/nonexistent/node"), &DetectOptions::default()).unwrap_err();
        assert_eq!(e.to_string(), "/nonexistent/node: no such file");
    }

    #[test]
    fn cpulists_are_counted() {
        assert_eq!(parse_cpulist("0-3,8,10-11").map(|c| c.len()), Some(7));
        assert_eq!(parse_cpulist("").map(|c| c.len()), Some(0));
        assert_eq!(parse_cpulist("3-1"), None);
        assert_eq!(parse_cpulist("x"), None);
    }
}
