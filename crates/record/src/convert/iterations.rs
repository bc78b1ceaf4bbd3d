//! The iterations of a recording's epochs, from the repeats of their phase names or from a
//! marker function (docs/record.md, "Iterations").

use std::collections::HashMap;

/// The longest period [`iterations`] looks for: `L` ≤ this, and `L × epochs` ≤ [`PERIOD_WORK`].
pub const MAX_PERIOD: usize = 4096;
/// Comparisons [`iterations`] may spend looking for periods (bounds its time on long runs).
pub const PERIOD_WORK: usize = 200_000_000;

/// The iterations of a sequence of phase names (docs/record.md, "Iterations"). The first epoch
/// (up to the first fork) is the initialisation. After it, the longest stretch that repeats a
/// block of `L` phases at least twice (`L` ≤ [`MAX_PERIOD`]; ties: shorter `L`, then earlier
/// start) gives iterations 1, 2, … for its repeats, and one more for a partial repeat at its
/// end; epochs before the stretch are initialisation (0), epochs after it belong to the last
/// iteration. Without a repeat: every epoch after the first is iteration 1.
pub fn iterations(names: &[&str]) -> Vec<u32> {
    let n = names.len();
    // Compare small integers, not strings.
    let mut ids: HashMap<&str, u32> = HashMap::new();
    let seq: Vec<u32> = names.iter().map(|s| { let k = ids.len() as u32; *ids.entry(s).or_insert(k) }).collect();
    let max_l = (n.saturating_sub(1) / 2).min(MAX_PERIOD).min((PERIOD_WORK / n.max(1)).max(64));
    let mut best: Option<(usize, usize, usize)> = None; // (periodic length, L, start)
    for l in 1..=max_l {
        let mut i = 1;
        while i + l < n {
            if seq[i] != seq[i + l] {
                i += 1;
                continue;
            }
            let start = i;
            while i + l < n && seq[i] == seq[i + l] {
                i += 1;
            }
            // seq[start..i+l) is l-periodic.
            let len = i + l - start;
            if len >= 2 * l {
                let better = match best {
                    None => true,
                    Some((c, bl, bs)) => len > c || (len == c && (l < bl || (l == bl && start < bs))),
                };
                if better {
                    best = Some((len, l, start));
                }
            }
        }
    }
    match best {
        None => (0..n).map(|i| u32::from(i > 0)).collect(),
        Some((len, l, start)) => {
            let last = len.div_ceil(l) as u32;
            (0..n)
                .map(|i| if i < start { 0 } else if i < start + len { 1 + ((i - start) / l) as u32 } else { last })
                .collect()
        }
    }
}

/// Iterations from a marker: each marked epoch starts one (the epochs before the first are 0).
pub(super) fn marker_iterations(in_marker: &[bool]) -> Vec<u32> {
    let mut it = 0;
    in_marker
        .iter()
        .map(|&m| {
            if m {
                it += 1;
            }
            it
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterations_find_the_repeating_block() {
        let s = ["init", "a", "b", "a", "b", "a", "b", "end"];
        assert_eq!(iterations(&s), vec![0, 1, 1, 2, 2, 3, 3, 3]);
        let s = ["i", "x", "x", "x"];
        assert_eq!(iterations(&s), vec![0, 1, 2, 3]);
        // No repeat: the first epoch is the initialisation.
        assert_eq!(iterations(&["a", "b", "c"]), vec![0, 1, 1]);
        // A longer stretch wins over a shorter period.
        let s = ["i", "a", "a", "b", "c", "a", "b", "c", "a", "b", "c"];
        assert_eq!(iterations(&s)[..3], [0, 0, 1]);
        assert_eq!(*iterations(&s).last().unwrap(), 3);
        // The first epoch is initialisation even when it repeats; a partial repeat at the end
        // is one more iteration (three products, each a fork and a barrier).
        let s = ["fork", "bar", "fork", "bar", "fork", "bar", "exit"];
        assert_eq!(iterations(&s), vec![0, 1, 1, 2, 2, 3, 3]);
    }

    #[test]
    fn marker_iterations_count_marked_epochs() {
        assert_eq!(marker_iterations(&[false, true, false, true, true]), vec![0, 1, 1, 2, 3]);
    }
}
