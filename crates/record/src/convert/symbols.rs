//! What binutils says about the recorded program: the source locations of code addresses
//! (`addr2line`), its static data objects (`nm`) and its thread-local symbols (`readelf`).

use super::pass1::Site;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::process::Command;

/// Source locations of code addresses, through `addr2line` (binutils) when it is installed:
/// per address, the chain of functions (innermost first, inlined frames included) and the
/// innermost `file:line`.
pub(super) struct Symbols {
    map: HashMap<u64, (Vec<String>, String)>,
}

fn is_pie(module: &str) -> bool {
    // ELF e_type at byte 16: 3 = ET_DYN (PIE or shared object), 2 = ET_EXEC.
    use std::io::Read;
    let mut head = [0u8; 18];
    match std::fs::File::open(module).and_then(|mut f| f.read_exact(&mut head)) {
        Ok(()) => head[16] == 3,
        Err(_) => true,
    }
}

impl Symbols {
    pub(super) fn resolve(sites: &[&Site]) -> Symbols {
        let mut by_module: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
        for s in sites {
            if s.base != 0 && !s.module.is_empty() {
                by_module.entry(&s.module).or_default().push(s.pc);
            }
        }
        let mut map = HashMap::new();
        for (module, mut pcs) in by_module {
            pcs.sort_unstable();
            pcs.dedup();
            let base = sites.iter().find(|s| s.module == module).map_or(0, |s| s.base);
            let rel = if is_pie(module) { base } else { 0 };
            // A return address points after the call: look up the call instruction's byte.
            let args: Vec<String> = pcs.iter().map(|pc| format!("0x{:x}", pc - rel - 1)).collect();
            let Ok(out) = Command::new("addr2line").args(["-a", "-f", "-i", "-C", "-e", module]).args(&args).output() else {
                break;
            };
            if !out.status.success() {
                continue;
            }
            let text = String::from_utf8_lossy(&out.stdout);
            let mut cur: Option<u64> = None;
            let mut lines = text.lines();
            let mut entry: (Vec<String>, String) = (Vec::new(), String::new());
            while let Some(l) = lines.next() {
                if let Some(hex) = l.strip_prefix("0x") {
                    if let Some(pc) = cur.take() {
                        map.insert(pc, std::mem::take(&mut entry));
                    }
                    cur = u64::from_str_radix(hex, 16).ok().map(|a| a + rel + 1);
                    continue;
                }
                // Frames come innermost first (inlined functions, then the function they are
                // inlined into); each location is where the next frame out is.
                let loc = lines.next().unwrap_or("??:0");
                if l != "??" {
                    entry.0.push(l.to_string());
                }
                if !loc.starts_with("??") {
                    let file = loc.rsplit('/').next().unwrap_or(loc);
                    entry.1 = file.split(" (").next().unwrap_or(file).to_string();
                }
            }
            if let Some(pc) = cur {
                map.insert(pc, entry);
            }
        }
        Symbols { map }
    }

    /// `function file:line` of the outermost frame (the function the code was compiled into,
    /// and the line in it, through inlined calls), else `symbol+0xoff`, else `module+0xoff`.
    pub(super) fn name(&self, s: &Site) -> String {
        if s.pc == 0 {
            return "end".into();
        }
        if let Some((funcs, loc)) = self.map.get(&s.pc) {
            if let Some(f) = funcs.last() {
                return if loc.is_empty() { f.clone() } else { format!("{f} {loc}") };
            }
        }
        let module = s.module.rsplit('/').next().unwrap_or("");
        if !s.sym.is_empty() {
            format!("{}+0x{:x}", s.sym, s.pc.wrapping_sub(s.base))
        } else if !module.is_empty() {
            format!("{module}+0x{:x}", s.pc.wrapping_sub(s.base))
        } else {
            format!("0x{:x}", s.pc)
        }
    }

    /// Whether code address `s` lies in function `f` (any frame of its inlined chain, or the
    /// dynamic symbol).
    pub(super) fn in_function(&self, s: &Site, f: &str) -> bool {
        s.sym == f || self.map.get(&s.pc).is_some_and(|(funcs, _)| funcs.iter().any(|g| g == f || g.starts_with(&format!("{f}("))))
    }
}

/// The program's data and bss objects of at least `min` bytes, as (name, address, size) at their
/// run-time addresses, from `nm -S` (none when binutils' nm is missing), by address.
pub(super) fn static_objects(exe: &str, maps: &[(u64, u64, String)], min: u64) -> Vec<(String, u64, u64)> {
    let Ok(out) = Command::new("nm").args(["-S", "-C", "--defined-only", exe]).output() else {
        return Vec::new();
    };
    if !out.status.success() {
        return Vec::new();
    }
    // A position-independent program is loaded at its lowest mapping's address.
    let base = if is_pie(exe) { maps.iter().filter(|m| m.2 == exe).map(|m| m.0).min().unwrap_or(0) } else { 0 };
    let tls = tls_symbols(exe);
    let mut objs: Vec<(String, u64, u64)> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut f = l.splitn(4, ' ');
            let addr = u64::from_str_radix(f.next()?, 16).ok()?;
            let size = u64::from_str_radix(f.next()?, 16).ok()?;
            let kind = f.next()?;
            let name = f.next()?.trim();
            let data = matches!(kind, "b" | "B" | "d" | "D") && !tls.contains(name);
            (data && size >= min).then(|| (name.to_string(), base + addr, size))
        })
        .collect();
    objs.sort_by_key(|o| o.1);
    objs
}

/// The program's thread-local symbols (`readelf`'s type `TLS`, demangled as `nm -C` names them):
/// `nm` lists them as data at their offset in the thread-local block (EP's `threadprivate` `x`
/// at 0), which is no address of the running program; each thread's copy lives elsewhere.
fn tls_symbols(exe: &str) -> HashSet<String> {
    let Ok(out) = Command::new("readelf").args(["-sW", "--demangle", exe]).output() else {
        return HashSet::new();
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            // Num: Value Size Type Bind Vis Ndx Name...
            (f.len() >= 8 && f[3] == "TLS").then(|| f[7..].join(" "))
        })
        .collect()
}
