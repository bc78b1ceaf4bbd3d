//! Machine presets shipped with numaplace, compiled into the binary from `machines/*.toml`,
//! and resolution of a machine argument (a preset name or a file path).

use crate::error::SimError;
use numaplace_model::{Machine, ModelError};
use std::path::Path;

/// `(name, TOML text)` of every shipped preset. Each number in those files cites its source.
pub const PRESETS: &[(&str, &str)] = &[
    ("origin2000", include_str!("../../../machines/origin2000.toml")),
    ("origin2000-64", include_str!("../../../machines/origin2000-64.toml")),
    ("wildfire", include_str!("../../../machines/wildfire.toml")),
    ("sunfire6800", include_str!("../../../machines/sunfire6800.toml")),
    ("modern-2s", include_str!("../../../machines/modern-2s.toml")),
    ("cxl-tiered", include_str!("../../../machines/cxl-tiered.toml")),
    ("talbot64", include_str!("../../../machines/talbot64.toml")),
];

/// Loads a preset by name.
///
/// # Errors
/// An unknown name (the presets are listed) or an invalid preset (a bug caught by the tests).
pub fn preset(name: &str) -> Result<Machine, SimError> {
    let (_, text) = PRESETS
        .iter()
        .find(|(n, _)| *n == name)
        .ok_or_else(|| ModelError::unknown("machine", name, PRESETS.iter().map(|(n, _)| *n)))?;
    Ok(Machine::from_toml_str(text, &format!("preset {name}"))?)
}

/// Resolves a machine argument: a path (anything containing `/` or ending in `.toml`) is read
/// as a machine file, anything else is a preset name.
///
/// # Errors
/// A missing or unreadable file, invalid TOML, or an unknown preset name.
pub fn load_machine(arg: &str) -> Result<Machine, SimError> {
    if arg.contains('/') || arg.ends_with(".toml") {
        let path = Path::new(arg);
        let text = crate::input::read_text(path, crate::input::MACHINE_FILE)?;
        Ok(Machine::from_toml_str(&text, &numaplace_model::error::shown_path(path))?)
    } else {
        preset(arg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_valid_and_named_after_itself() {
        for (name, _) in PRESETS {
            let m = preset(name).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(m.name(), *name);
            assert!(!m.raw.description.is_empty(), "{name} needs a description");
        }
    }

    #[test]
    fn preset_shapes_match_the_seeds() {
        let o = preset("origin2000").unwrap();
        assert_eq!((o.nodes(), o.cpus(), o.raw.page_size), (8, 16, 16384));
        let mut lat: Vec<u64> = o.latency_ps[..8].to_vec();
        lat.sort();
        lat.dedup();
        assert_eq!(lat, vec![329_000, 564_000, 759_000, 862_000]);
        let s = preset("sunfire6800").unwrap();
        assert_eq!((s.nodes(), s.cpus(), s.raw.page_size), (6, 24, 8192));
        assert_eq!((s.latency_ps[0], s.latency_ps[1]), (225_000, 300_000));
        let w = preset("wildfire").unwrap();
        assert_eq!(w.nodes(), 3);
        let ratio = w.latency_ps[1] as f64 / w.latency_ps[0] as f64;
        assert!((6.0..=7.0).contains(&ratio), "wildfire remote/local = {ratio}");
        let c = preset("cxl-tiered").unwrap();
        assert!(c.raw.nodes.iter().any(|n| n.cpus == 0 && n.memory_mib > 0));
    }

    #[test]
    fn unknown_machine_lists_presets() {
        let e = load_machine("origin3000").unwrap_err().to_string();
        assert_eq!(
            e,
            "unknown machine 'origin3000' (known: cxl-tiered, modern-2s, origin2000, origin2000-64, sunfire6800, talbot64, wildfire)"
        );
    }

    #[test]
    fn missing_file_is_named() {
        let e = load_machine("/nonexistent/m.toml").unwrap_err().to_string();
        assert_eq!(e, "/nonexistent/m.toml: no such file");
    }
}
