//! The trace's regions: one per tracked allocation, one per static array of the program, then
//! one per kind of untracked memory (from the program's `/proc/self/maps`) for the pages touched
//! outside them.

use super::pass1::Pass1;
use super::symbols::{static_objects, Symbols};
use numaplace_model::Region;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};

/// The regions of a recording, and where its pages go in the trace.
pub(super) struct Regions {
    /// Each touched (or claimed) page's trace page.
    pub(super) page_of: HashMap<u64, u32>,
    pub(super) regions: Vec<Region>,
    /// Each region's summary (docs/record.md).
    pub(super) region_info: Vec<Value>,
    /// The trace's pages in all.
    pub(super) pages: u64,
}

/// The regions of the pages `p` touched, pages of `ps` bytes, allocation sites named by `syms`.
pub(super) fn regions(p: &Pass1, syms: &Symbols, ps: u64) -> Regions {
    // Regions: each tracked allocation (in allocation order) claims its pages not claimed yet;
    // touched pages outside every allocation are grouped by the kind of memory they lie in.
    // Live allocations never overlap, so where two do, the earlier was freed before the later
    // was made: the address's page belongs to its latest allocation (the data it holds when
    // the program ends), and an allocation whose every page was reused has no region.
    let page_range = |addr: u64, size: u64| addr / ps..=(addr + size.max(1) - 1) / ps;
    let mut latest: HashMap<u64, usize> = HashMap::new();
    for (i, a) in p.allocs.iter().enumerate() {
        for v in page_range(a.addr, a.size) {
            latest.insert(v, i);
        }
    }
    let mut page_of: HashMap<u64, u32> = HashMap::new();
    let mut regions: Vec<Region> = Vec::new();
    let mut region_info: Vec<Value> = Vec::new();
    let mut next: u64 = 0;
    let mut names_used: HashMap<String, usize> = HashMap::new();
    let mut unique = |base: String| -> String {
        let n = names_used.entry(base.clone()).or_insert(0);
        *n += 1;
        if *n == 1 {
            base
        } else {
            format!("{base}#{n}")
        }
    };
    // Claims the pages of `range` that `mine` accepts and nothing claimed before, as one region
    // named `name` (none if it claims nothing).
    let mut claim = |range: std::ops::RangeInclusive<u64>, mine: &dyn Fn(u64) -> bool, name: &dyn Fn() -> String, addr: u64, bytes: u64| {
        let first = next;
        for v in range {
            if mine(v) {
                if let std::collections::hash_map::Entry::Vacant(e) = page_of.entry(v) {
                    e.insert(next as u32);
                    next += 1;
                }
            }
        }
        if next > first {
            let name = unique(name());
            region_info.push(json!({"name": name, "first_page": first, "pages": next - first, "bytes": bytes,
                "address": format!("0x{addr:x}"), "tracked": true}));
            regions.push(Region { name, first_page: first as u32, pages: (next - first) as u32 });
        }
    };
    for (i, a) in p.allocs.iter().enumerate() {
        claim(page_range(a.addr, a.size), &|v| latest.get(&v) == Some(&i), &|| syms.name(&a.site), a.addr, a.size);
    }
    // The program's static arrays (data and bss objects of at least a page, from its symbol
    // table through `nm`) are regions named after their symbols.
    let maps = parse_maps(&p.maps);
    for (name, addr, size) in static_objects(&p.exe, &maps, ps) {
        claim(page_range(addr, size), &|_| true, &|| format!("{name} (static)"), addr, size);
    }
    let mut untracked: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for &v in &p.pages {
        if !page_of.contains_key(&v) {
            untracked.entry(classify(&maps, v * ps, &p.exe)).or_default().push(v);
        }
    }
    for (kind, mut pages) in untracked {
        pages.sort_unstable();
        let first = next;
        for v in &pages {
            page_of.insert(*v, next as u32);
            next += 1;
        }
        let name = unique(format!("({kind})"));
        region_info.push(json!({"name": name, "first_page": first, "pages": pages.len(), "bytes": pages.len() as u64 * ps, "tracked": false}));
        regions.push(Region { name, first_page: first as u32, pages: pages.len() as u32 });
    }
    Regions { page_of, regions, region_info, pages: next }
}

/// The kind of untracked memory a page lies in, from the program's `/proc/self/maps`.
fn classify(maps: &[(u64, u64, String)], addr: u64, exe: &str) -> String {
    for (lo, hi, name) in maps {
        if *lo <= addr && addr < *hi {
            return if name == "[stack]" {
                "stack".into()
            } else if name == "[heap]" {
                "heap".into()
            } else if name == exe {
                "static data".into()
            } else if name.starts_with('/') {
                format!("static data of {}", name.rsplit('/').next().unwrap_or(name))
            } else {
                "anonymous memory".into()
            };
        }
    }
    "other memory".into()
}

fn parse_maps(text: &str) -> Vec<(u64, u64, String)> {
    text.lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let range = f.next()?;
            let (lo, hi) = range.split_once('-')?;
            let name = f.nth(4).unwrap_or("").to_string();
            Some((u64::from_str_radix(lo, 16).ok()?, u64::from_str_radix(hi, 16).ok()?, name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_classify_pages() {
        let maps = parse_maps("55d0-55e0 rw-p 00000000 00:00 0 /bin/x\n7ff0-7ff8 rw-p 00000000 00:00 0 [stack]\n9000-a000 rw-p 0 0 0\n");
        assert_eq!(classify(&maps, 0x55d8, "/bin/x"), "static data");
        assert_eq!(classify(&maps, 0x7ff1, "/bin/x"), "stack");
        assert_eq!(classify(&maps, 0x9100, "/bin/x"), "anonymous memory");
        assert_eq!(classify(&maps, 0x1, "/bin/x"), "other memory");
    }
}
