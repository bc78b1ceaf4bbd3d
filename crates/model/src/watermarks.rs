//! Free-memory watermarks of a machine's nodes: when a node runs low on free memory.
//!
//! Linux keeps three watermarks per memory zone (mm/page_alloc.c, `__setup_per_zone_wmarks`):
//! below *low*, kswapd wakes and reclaims (or, with memory tiering, demotes) in the background
//! until free memory is back above *high*; below *min*, an allocation reclaims synchronously.
//! A machine declares them as shares of each node's capacity in an optional `[watermarks]`
//! table; the page-level engine raises a policy's low-memory trigger
//! (`dynamic::Trigger::LowMemory`) when a node's free pages fall below `low`, once, and re-arms
//! it when they are back at `high` or above. Without the table no node is ever low (the
//! machines of the seeds, whose papers have no such notion).
//!
//! Linux's own defaults, for reference: `min` is `min_free_kbytes` (4·√(lowmem in KiB), at
//! most 256 MiB: about 0.05 % of a 64 GiB node), `low` and `high` add one and two times
//! `max(min/4, managed × watermark_scale_factor / 10000)` with `watermark_scale_factor` 10
//! (0.1 %): about 0.15 % and 0.25 % of a 64 GiB node (Documentation/admin-guide/sysctl/vm.rst).

use serde::{Deserialize, Serialize};

/// A machine file's `[watermarks]` table: each node's min, low and high watermarks in
/// thousandths of its capacity.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RawWatermarks {
    pub min_permille: f64,
    pub low_permille: f64,
    pub high_permille: f64,
}

/// A node's watermarks in pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Watermarks {
    pub min: u64,
    pub low: u64,
    pub high: u64,
}

impl RawWatermarks {
    /// Checks that each share is a finite number in [0, 1000] and `min <= low <= high`.
    ///
    /// # Errors
    /// The first value out of range or order, in words naming its key.
    pub fn check(&self) -> Result<(), String> {
        for (key, v) in [("min_permille", self.min_permille), ("low_permille", self.low_permille), ("high_permille", self.high_permille)] {
            if !(v.is_finite() && (0.0..=1000.0).contains(&v)) {
                return Err(format!("watermarks.{key} = {v}: expected a number in [0, 1000]"));
            }
        }
        if !(self.min_permille <= self.low_permille && self.low_permille <= self.high_permille) {
            return Err(format!(
                "watermarks: expected min_permille <= low_permille <= high_permille, got {} / {} / {}",
                self.min_permille, self.low_permille, self.high_permille
            ));
        }
        Ok(())
    }

    /// The watermarks of a node that holds `capacity` pages, rounded up (a node of any memory
    /// with a non-zero share has a watermark of at least one page).
    pub fn pages(&self, capacity: u64) -> Watermarks {
        let at = |permille: f64| (capacity as f64 * permille / 1000.0).ceil() as u64;
        Watermarks { min: at(self.min_permille), low: at(self.low_permille), high: at(self.high_permille) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_become_pages_rounded_up_and_bad_tables_are_named() {
        let w = RawWatermarks { min_permille: 0.5, low_permille: 1.5, high_permille: 2.5 };
        assert_eq!(w.check(), Ok(()));
        assert_eq!(w.pages(16_777_216), Watermarks { min: 8389, low: 25166, high: 41944 });
        assert_eq!(w.pages(10), Watermarks { min: 1, low: 1, high: 1 });
        assert_eq!(w.pages(0), Watermarks { min: 0, low: 0, high: 0 });
        let bad = RawWatermarks { low_permille: 3.0, ..w };
        assert_eq!(bad.check().unwrap_err(), "watermarks: expected min_permille <= low_permille <= high_permille, got 0.5 / 3 / 2.5");
        let bad = RawWatermarks { min_permille: f64::NAN, ..w };
        assert_eq!(bad.check().unwrap_err(), "watermarks.min_permille = NaN: expected a number in [0, 1000]");
        let bad = RawWatermarks { high_permille: 1000.5, ..w };
        assert!(bad.check().unwrap_err().starts_with("watermarks.high_permille = 1000.5"));
    }
}
