//! The fast tier of a tiered machine resized for one run (the run option `fast_memory_mib`):
//! [`Machine::with_fast_capacity`].

use super::Machine;

/// Bytes as MiB, as few digits as say them exactly (`1980`, `0.5`).
fn mib(bytes: u64) -> String {
    format!("{}", bytes as f64 / f64::from(1u32 << 20))
}

impl Machine {
    /// Pages of the fastest tier (every top-tier node's capacity).
    pub fn fast_capacity_pages(&self) -> u64 {
        (0..self.nodes()).filter(|&n| self.tier[n] == 0).map(|n| self.capacity_pages[n]).sum()
    }

    /// This machine with its fastest tier resized to `bytes` (the `fast_memory_mib` run
    /// option): the bytes are rounded down to whole pages and split over the top-tier nodes
    /// that have memory in proportion to their declared capacity (largest remainder, ties to
    /// the lower node number), and every slower tier keeps its declared capacity. Everything
    /// derived from a node's capacity follows it: its watermarks are the declared shares
    /// ([`Machine::watermarks`] reads `capacity_pages`); the fallback and demotion orders do not
    /// change, since every fast node keeps at least one page. `raw` stays as declared (a run's
    /// echo gives the option beside it); the huge page size is the machine's, and a node need
    /// not hold a whole number of huge pages (a policy managing huge pages fits what it can).
    ///
    /// # Errors
    /// One line each: a machine of one tier (there is no fast tier to size); zero bytes (a fast
    /// tier of zero); more than the machine's whole memory (a tier larger than the machine);
    /// less than one page per fast node.
    pub fn with_fast_capacity(&self, bytes: u64) -> Result<Machine, String> {
        if !self.is_tiered() {
            return Err(format!(
                "machine '{}' has one memory tier: there is no fast tier to size (a tiered machine has a node with memory = \"cxl\" or \"pmem\", e.g. the cxl-1to8 preset)",
                self.name()
            ));
        }
        let page = self.raw.page_size;
        let total = self.capacity_total() * page;
        if bytes == 0 {
            return Err("a fast tier of zero: the fast tier must hold at least one page per fast node".into());
        }
        if bytes > total {
            return Err(format!(
                "a fast tier larger than the machine: machine '{}' has {} MiB of memory in all its tiers",
                self.name(),
                mib(total)
            ));
        }
        let fast: Vec<usize> = (0..self.nodes()).filter(|&n| self.tier[n] == 0 && self.capacity_pages[n] > 0).collect();
        let pages = bytes / page;
        if pages < fast.len() as u64 {
            return Err(format!(
                "a fast tier smaller than one page ({page} bytes) per fast node ({} of them)",
                fast.len()
            ));
        }
        let declared: u128 = fast.iter().map(|&n| u128::from(self.capacity_pages[n])).sum();
        // Each node's exact share pages * c / declared, floored; the pages left over go one
        // each to the largest remainders (ties: the lower node number).
        let mut share: Vec<(usize, u64, u128)> = fast
            .iter()
            .map(|&n| {
                let exact = u128::from(pages) * u128::from(self.capacity_pages[n]);
                (n, (exact / declared) as u64, exact % declared)
            })
            .collect();
        let left = pages - share.iter().map(|s| s.1).sum::<u64>();
        let mut order: Vec<usize> = (0..share.len()).collect();
        order.sort_by(|&a, &b| share[b].2.cmp(&share[a].2).then(share[a].0.cmp(&share[b].0)));
        for &k in order.iter().take(left as usize) {
            share[k].1 += 1;
        }
        // At least one page each: a node whose share rounded to 0 takes one from the largest.
        for k in 0..share.len() {
            if share[k].1 == 0 {
                let big = (0..share.len()).max_by_key(|&j| (share[j].1, std::cmp::Reverse(share[j].0))).expect("fast nodes");
                share[big].1 -= 1;
                share[k].1 = 1;
            }
        }
        let mut m = self.clone();
        for (n, p, _) in share {
            m.capacity_pages[n] = p;
        }
        Ok(m)
    }

}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::tests::TWO_NODES;

    /// Two DRAM nodes of 1 and 3 MiB (256 and 768 pages) and a CXL node of 4 MiB, with
    /// watermarks.
    const UNEVEN_TIERS: &str = r#"
name = "t3"
page_size = 4096
line_size = 64
mlp = 2.0
huge_page_size = 2097152
latency_ns = [[100.0, 200.0, 250.0], [200.0, 100.0, 380.0], [250.0, 380.0, 250.0]]
[watermarks]
min_permille = 10.0
low_permille = 20.0
high_permille = 30.0
[[nodes]]
cpus = 2
memory_mib = 1
bandwidth_gbps = 6.4
[[nodes]]
cpus = 2
memory_mib = 3
bandwidth_gbps = 6.4
[[nodes]]
cpus = 0
memory_mib = 4
bandwidth_gbps = 3.2
memory = "cxl"
[migration]
fixed_ns = 1000.0
copy_gbps = 4.096
tlb_shootdown_ns_per_cpu = 500.0
"#;

    #[test]
    fn the_fast_tier_is_resized_in_proportion_and_the_slow_tier_kept() {
        let m = Machine::from_toml_str(UNEVEN_TIERS, "t3.toml").unwrap();
        assert_eq!(m.fast_capacity_pages(), 1024);
        // Half of it: 512 pages split 1:3; the CXL node keeps its 1024.
        let half = m.with_fast_capacity(512 * 4096).unwrap();
        assert_eq!(half.capacity_pages, vec![128, 384, 1024]);
        assert_eq!(half.fast_capacity_pages(), 512);
        // A part page is dropped; an even split's left-over page goes to the lower node number.
        let ten = m.with_fast_capacity(10 * 4096 + 4095).unwrap();
        assert_eq!(ten.capacity_pages, vec![3, 7, 1024]);
        assert_eq!(m.with_fast_capacity(2 * 4096).unwrap().capacity_pages, vec![1, 1, 1024]);
        // Larger than declared, up to the whole machine's memory (8 MiB): the fast tier holds
        // everything the machine could.
        let all = m.with_fast_capacity(8 << 20).unwrap();
        assert_eq!(all.capacity_pages, vec![512, 1536, 1024]);
        // What derives from a node's capacity follows it; the orders and the description do not change.
        assert_eq!(half.watermarks(1).unwrap(), m.raw.watermarks.unwrap().pages(384));
        assert_eq!(half.watermarks(1).unwrap().high, 12); // 384 * 30 / 1000, rounded up
        assert_eq!(half.watermarks(2), m.watermarks(2));
        assert_eq!((&half.nearest, &half.demotion, &half.tier, &half.raw), (&m.nearest, &m.demotion, &m.tier, &m.raw));
        assert_eq!(half.pages_per_huge(), Some(512));
        // The same size twice is the same machine (deterministic).
        assert_eq!(m.with_fast_capacity(512 * 4096).unwrap(), half);
    }

    #[test]
    fn every_fast_node_keeps_a_page() {
        // 1 MiB beside 1000 MiB: 2 pages would split 0 and 2; the small node takes one.
        let text = UNEVEN_TIERS.replace("memory_mib = 3\n", "memory_mib = 1000\n");
        let m = Machine::from_toml_str(&text, "t3.toml").unwrap();
        assert_eq!(m.with_fast_capacity(2 * 4096).unwrap().capacity_pages[..2], [1, 1]);
        assert_eq!(m.with_fast_capacity(3 * 4096).unwrap().capacity_pages[..2], [1, 2]);
    }

    #[test]
    fn a_fast_tier_of_zero_larger_than_the_machine_or_on_one_tier_is_refused() {
        let m = Machine::from_toml_str(UNEVEN_TIERS, "t3.toml").unwrap();
        assert_eq!(m.with_fast_capacity(0).unwrap_err(), "a fast tier of zero: the fast tier must hold at least one page per fast node");
        assert_eq!(
            m.with_fast_capacity((8 << 20) + 1).unwrap_err(),
            "a fast tier larger than the machine: machine 't3' has 8 MiB of memory in all its tiers"
        );
        assert_eq!(m.with_fast_capacity(4096 + 4095).unwrap_err(), "a fast tier smaller than one page (4096 bytes) per fast node (2 of them)");
        let flat = Machine::from_toml_str(TWO_NODES, "t2.toml").unwrap();
        let e = flat.with_fast_capacity(4096).unwrap_err();
        assert!(e.starts_with("machine 't2' has one memory tier: there is no fast tier to size"), "{e}");
        for e in [e, m.with_fast_capacity(0).unwrap_err()] {
            assert!(!e.contains('\n'));
        }
    }
}
