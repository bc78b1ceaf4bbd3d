//! The runtime's settings ([`Config`]): `numaplace_init`'s option string
//! (`key=value;key=value`) over the `NUMAPLACE_*` environment variables over the defaults.
//! The keys, variables, kinds and defaults are declared once, in
//! [`numaplace_model::rtconfig::OPTIONS`]; this file reads text into typed fields.

use crate::error::{Code, RtError};
use numaplace_model::rtconfig::{self, RtKind, OPTIONS};

/// Settings, from `numaplace_init`'s option string and the environment.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub placement: String,
    pub dynamic: String,
    /// Allocations at least this big become managed regions (preload mode).
    pub min_bytes: usize,
    /// The sampler revokes the next window every this many ms.
    pub sample_period_ms: f64,
    /// Pages per revocation window.
    pub window_pages: usize,
    /// `auto`, `faults` or `perf`.
    pub source: String,
    pub stats: Option<String>,
    pub verbose: bool,
    /// Sample on a one-node host too (off by default: every access is local there).
    pub force: bool,
    /// Linux node ids to rank in a slower memory tier (a node list; empty for none), checked
    /// against the host's nodes by [`crate::host::machine_of`].
    pub slow_nodes: String,
    /// Parameters of record-replay phases (`threshold=..,n=..`).
    pub recrep: String,
    pub seed: u64,
}

impl Default for Config {
    /// Every setting's declared default ([`numaplace_model::rtconfig::OPTIONS`]).
    fn default() -> Self {
        let mut c = Config {
            placement: String::new(),
            dynamic: String::new(),
            min_bytes: 0,
            sample_period_ms: 0.0,
            window_pages: 0,
            source: String::new(),
            stats: None,
            verbose: false,
            force: false,
            slow_nodes: String::new(),
            recrep: String::new(),
            seed: 0,
        };
        for o in OPTIONS {
            c.set(o.name, o.default).expect("the declared defaults are valid");
        }
        c
    }
}

/// A [`RtKind::Flag`]'s value: `1`/`true` for on, anything else off.
fn flag(value: &str) -> bool {
    value == "1" || value == "true"
}

impl Config {
    /// Applies one `key=value` setting.
    ///
    /// # Errors
    /// An unknown key or a bad value (message names it).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), RtError> {
        let bad = |what: &str| RtError::new(Code::Invalid, format!("option '{key}={value}': {what}"));
        let Some(option) = rtconfig::option(key) else {
            let known: Vec<&str> = OPTIONS.iter().map(|o| o.name).collect();
            return Err(RtError::new(Code::Invalid, format!("unknown option '{key}' (known: {})", known.join(", "))));
        };
        if let RtKind::Choice(words) = option.kind {
            if !words.contains(&value) {
                return Err(bad(&format!("expected one of: {}", words.join(", "))));
            }
        }
        match key {
            "placement" => self.placement = value.into(),
            "dynamic" => self.dynamic = value.into(),
            "min_bytes" => self.min_bytes = value.parse().map_err(|_| bad("not a byte count"))?,
            "sample_period_ms" => {
                self.sample_period_ms = value.parse().ok().filter(|v: &f64| *v > 0.0).ok_or_else(|| bad("not a positive number"))?
            }
            "window_pages" => self.window_pages = value.parse().ok().filter(|&v| v > 0).ok_or_else(|| bad("not a positive count"))?,
            "source" => self.source = value.into(),
            "stats" => self.stats = (!value.is_empty()).then(|| value.into()),
            "verbose" => self.verbose = flag(value),
            "force" => self.force = flag(value),
            "slow_nodes" => self.slow_nodes = value.trim().into(),
            "recrep" => self.recrep = value.into(),
            "seed" => self.seed = value.parse().map_err(|_| bad("not an integer"))?,
            other => unreachable!("setting '{other}' is declared in rtconfig::OPTIONS but has no field"),
        }
        Ok(())
    }

    /// Applies `key=value;key=value` (`;` separates: specs contain `,` and `=`).
    ///
    /// # Errors
    /// As [`Config::set`]; an item without `=`.
    pub fn apply(&mut self, options: &str) -> Result<(), RtError> {
        for item in options.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            let (k, v) = item.split_once('=').ok_or_else(|| RtError::new(Code::Invalid, format!("option '{item}': expected key=value")))?;
            self.set(k.trim(), v.trim())?;
        }
        Ok(())
    }

    /// Settings from `NUMAPLACE_*` environment variables over the defaults.
    ///
    /// # Errors
    /// A bad value (message names the variable).
    pub fn from_env(mut self) -> Result<Self, RtError> {
        for o in OPTIONS {
            if let Ok(v) = std::env::var(o.env) {
                self.set(o.name, &v).map_err(|e| RtError::new(e.code, format!("{}: {}", o.env, e.message)))?;
            }
        }
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_parses_options_and_names_bad_ones() {
        let mut c = Config::default();
        c.apply("placement=round-robin; dynamic=sampled:period_ms=50,freeze=2 ;min_bytes=4096").unwrap();
        assert_eq!(c.placement, "round-robin");
        assert_eq!(c.dynamic, "sampled:period_ms=50,freeze=2");
        assert_eq!(c.min_bytes, 4096);
        assert!(c.apply("colour=red").unwrap_err().message.contains("unknown option 'colour'"));
        assert!(c.apply("min_bytes=lots").unwrap_err().message.contains("option 'min_bytes=lots'"));
        assert!(c.apply("justakey").unwrap_err().message.contains("expected key=value"));
        assert!(c.apply("source=bus-analyser").unwrap_err().message.contains("expected one of: auto, faults, perf"));
    }

    #[test]
    fn every_declared_setting_has_a_field_and_the_defaults_are_the_declared_ones() {
        let c = Config::default();
        assert_eq!((c.placement.as_str(), c.dynamic.as_str(), c.min_bytes, c.window_pages), ("first-touch", "upmlib", 1 << 20, 4096));
        assert_eq!((c.sample_period_ms, c.source.as_str(), c.stats.as_deref(), c.verbose, c.seed), (100.0, "auto", None, false, 1));
        assert!(!c.force);
        for o in OPTIONS {
            // Setting each to its default is accepted (a declared key without a field panics).
            Config::default().set(o.name, o.default).unwrap();
        }
    }
}

#[cfg(test)]
mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any option string: applied or refused with one line naming the option, never a panic.
        #[test]
        fn arbitrary_options_are_applied_or_refused_in_one_line(text in "[a-z_=;,:. 0-9-]{0,40}") {
            let mut c = Config::default();
            if let Err(e) = c.apply(&text) {
                prop_assert!(!e.message.contains('\n'));
                prop_assert!(e.message.starts_with("option '") || e.message.starts_with("unknown option '"), "{}", e.message);
            }
        }
    }
}
