//! Each node's free memory against its watermarks, for policies that act on
//! [`numaplace_model::dynamic::Trigger::LowMemory`] (a tiering policy demotes from a node
//! that runs low, as Linux's kswapd does when memory tiering is on), and what the kernel says
//! of memory tiers.
//!
//! * Free memory: `/sys/devices/system/node/nodeN/meminfo`'s `MemFree`.
//! * Watermarks: the policy's own where it declares them (TPP's demotion watermark), else the
//!   machine's `[watermarks]` table where it has one (the model's [`Machine::watermarks`]);
//!   else the kernel's own, `/proc/zoneinfo`'s `min`/`low`/`high`
//!   of each zone, summed over the node's zones (mm/page_alloc.c keeps them per zone; kswapd
//!   balances a node until its zones are above high).
//! * [`LowMemory`] raises a node when its free pages fall below *low*, again at every check
//!   while they stay below *high*, and re-arms it when they are back at *high* or above, as
//!   the simulator's engine does.
//!
//! Texts in, numbers out where possible: the parsers are plain functions, tested here.

use numaplace_model::topology::parse_cpulist;
use numaplace_model::watermarks::Watermarks;
use numaplace_model::Machine;
use std::path::Path;

/// `MemFree` in kB from a sysfs `nodeN/meminfo` text (`Node 0 MemFree:  1234 kB`).
pub fn parse_meminfo_free_kb(text: &str) -> Option<u64> {
    text.lines().find(|l| l.contains("MemFree:")).and_then(|l| l.split_whitespace().rev().nth(1)?.parse().ok())
}

/// Each node's watermarks (`linux_ids` in dense order) from a `/proc/zoneinfo` text: the
/// `min`, `low` and `high` of every zone of the node, summed. `None` when a node has no zone
/// in the text or a value does not parse.
pub fn parse_zoneinfo(text: &str, linux_ids: &[i32]) -> Option<Vec<Watermarks>> {
    let mut out = vec![Watermarks { min: 0, low: 0, high: 0 }; linux_ids.len()];
    let mut seen = vec![false; linux_ids.len()];
    let mut node: Option<usize> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("Node ") {
            // "Node 0, zone   Normal"
            let id: i32 = rest.split(',').next()?.trim().parse().ok()?;
            node = linux_ids.iter().position(|&l| l == id);
            if let Some(n) = node {
                seen[n] = true;
            }
            continue;
        }
        let Some(n) = node else { continue };
        let mut words = line.split_whitespace();
        let (Some(key), Some(value), None) = (words.next(), words.next(), words.next()) else { continue };
        let slot = match key {
            "min" => &mut out[n].min,
            "low" => &mut out[n].low,
            "high" => &mut out[n].high,
            _ => continue,
        };
        *slot += value.parse::<u64>().ok()?;
    }
    seen.iter().all(|&s| s).then_some(out)
}

/// The kernel's memory tier of each node (`ids`: Linux node ids in dense order) from the
/// `memory_tiering` directory (`memory_tierN/nodelist`); empty when the directory does not
/// exist (a kernel before 6.1, or without NUMA).
///
/// # Errors
/// A `nodelist` that cannot be read or is not a node list (the message names the file).
pub fn read_memory_tiers(dir: &Path, ids: &[i32]) -> Result<Vec<Option<u32>>, String> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(Vec::new()) };
    let mut tiers = vec![None; ids.len()];
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(tier) = name.strip_prefix("memory_tier").and_then(|t| t.parse::<u32>().ok()) else { continue };
        let p = e.path().join("nodelist");
        let text = std::fs::read_to_string(&p).map_err(|err| format!("{}: {err}", p.display()))?;
        let nodes = parse_cpulist(&text).ok_or_else(|| format!("{}: not a node list: {:?}", p.display(), text.trim()))?;
        for n in nodes {
            if let Some(d) = ids.iter().position(|&id| id as usize == n) {
                tiers[d] = Some(tier);
            }
        }
    }
    Ok(tiers)
}

/// The low-memory trigger's state: each node's watermarks and whether it is armed.
#[derive(Clone, Debug, Default)]
pub struct LowMemory {
    /// Per node; empty when nothing says what they are (the trigger is then never raised).
    pub marks: Vec<Watermarks>,
    /// Where the watermarks come from: `machine`, `zoneinfo` or `none`.
    pub source: &'static str,
    armed: Vec<bool>,
    /// Times a node fell below its low watermark and the policy was told.
    pub events: u64,
}

impl LowMemory {
    /// The watermarks the policy reclaims by (`policy`: its `DynamicPolicy::watermarks` per
    /// node; TPP wakes its demotion at a watermark of its own), else the machine's
    /// `[watermarks]` table, else the kernel's (`kernel`: `Sys::watermarks`).
    pub fn new(machine: &Machine, policy: Option<Vec<Watermarks>>, kernel: Option<Vec<Watermarks>>) -> LowMemory {
        let n = machine.nodes();
        let table: Option<Vec<Watermarks>> = (0..n).map(|i| machine.watermarks(i)).collect();
        let (marks, source) = match (policy, table, kernel) {
            (Some(p), t, _) if p.len() == n && t.as_ref() != Some(&p) => (p, "policy"),
            (_, Some(t), _) => (t, "machine"),
            (_, None, Some(k)) if k.len() == n => (k, "zoneinfo"),
            _ => (Vec::new(), "none"),
        };
        let armed = vec![true; marks.len()];
        LowMemory { marks, source, armed, events: 0 }
    }

    /// The nodes to tell, given each node's free pages: one that fell below its low
    /// watermark (a new event, counted), and one still below its high watermark since it did
    /// (kswapd goes on reclaiming until the node is balanced), as the simulator's engine does;
    /// a node is re-armed once back at high.
    pub fn check(&mut self, free: &[u64]) -> Vec<usize> {
        let mut told = Vec::new();
        for (n, (w, armed)) in self.marks.iter().zip(self.armed.iter_mut()).enumerate() {
            let Some(&f) = free.get(n) else { break };
            if f >= w.high {
                *armed = true;
            } else if !*armed {
                told.push(n);
            } else if f < w.low {
                *armed = false;
                self.events += 1;
                told.push(n);
            }
        }
        told
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ZONEINFO: &str = "Node 0, zone      DMA
  per-node stats
      nr_inactive_anon 0
      nr_free_pages 12
  pages free     3968
        boost    0
        min      33
        low      41
        high     49
        spanned  4095
Node 0, zone    DMA32
  pages free     40000
        min      1000
        low      1250
        high     1500
Node 2, zone  Movable
  pages free     65536
        min      10
        low      20
        high     30
";

    #[test]
    fn zoneinfo_and_meminfo_parse() {
        let w = parse_zoneinfo(ZONEINFO, &[0, 2]).unwrap();
        assert_eq!(w, vec![Watermarks { min: 1033, low: 1291, high: 1549 }, Watermarks { min: 10, low: 20, high: 30 }]);
        assert_eq!(parse_zoneinfo(ZONEINFO, &[0, 1]), None, "node 1 has no zone in the text");
        assert_eq!(parse_zoneinfo("Node 0, zone DMA\n        min      x\n", &[0]), None);
        assert_eq!(parse_meminfo_free_kb("Node 0 MemTotal:  262144 kB\nNode 0 MemFree:   1234 kB\n"), Some(1234));
        assert_eq!(parse_meminfo_free_kb("Node 0 MemTotal:  262144 kB\n"), None);
    }

    #[test]
    fn memory_tiers_are_read_per_node_and_a_missing_directory_is_none() {
        // A private directory, removed when `scratch` is dropped.
        let scratch = numaplace_outfile::TempDir::new("numaplace-tiers").unwrap();
        let dir = scratch.join("d");
        for (tier, list) in [("memory_tier4", "0-1\n"), ("memory_tier22", "3\n")] {
            std::fs::create_dir_all(dir.join(tier)).unwrap();
            std::fs::write(dir.join(tier).join("nodelist"), list).unwrap();
        }
        std::fs::create_dir_all(dir.join("power")).unwrap();
        assert_eq!(read_memory_tiers(&dir, &[0, 1, 2, 3]).unwrap(), vec![Some(4), Some(4), None, Some(22)]);
        std::fs::write(dir.join("memory_tier4").join("nodelist"), "zero").unwrap();
        let e = read_memory_tiers(&dir, &[0]).unwrap_err();
        assert!(e.contains("memory_tier4/nodelist: not a node list"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(read_memory_tiers(&dir, &[0]).unwrap(), Vec::<Option<u32>>::new());
    }

    #[test]
    fn a_node_is_raised_below_low_told_until_high_and_re_armed_there() {
        let mut lm = LowMemory { marks: vec![Watermarks { min: 5, low: 10, high: 20 }; 2], source: "machine", armed: vec![true; 2], events: 0 };
        assert!(lm.check(&[50, 50]).is_empty());
        assert_eq!(lm.check(&[9, 50]), vec![0]);
        assert_eq!(lm.check(&[3, 50]), vec![0], "still low: told again");
        assert_eq!(lm.check(&[15, 50]), vec![0], "between low and high: not balanced yet");
        assert!(lm.check(&[20, 50]).is_empty(), "back at high: re-armed");
        assert!(lm.check(&[15, 50]).is_empty(), "above low: not raised");
        assert_eq!(lm.check(&[20, 9]), vec![1]);
        assert_eq!(lm.check(&[9, 9]), vec![0, 1]);
        assert_eq!(lm.events, 3);
        let mut none = LowMemory::default();
        assert!(none.check(&[0, 0]).is_empty(), "no watermarks: never raised");
    }
}
