//! The runtime's settings ([`Config`]): `numaplace_init`'s option string
//! (`key=value;key=value`) over the `NUMAPLACE_*` environment variables over the defaults.

use crate::error::{Code, RtError};

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
    /// Parameters of record-replay phases (`threshold=..,n=..`).
    pub recrep: String,
    pub seed: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            placement: "first-touch".into(),
            dynamic: "upmlib".into(),
            min_bytes: 1 << 20,
            sample_period_ms: 100.0,
            window_pages: 4096,
            source: "auto".into(),
            stats: None,
            verbose: false,
            recrep: String::new(),
            seed: 1,
        }
    }
}

impl Config {
    /// Applies one `key=value` setting.
    ///
    /// # Errors
    /// An unknown key or a bad value (message names it).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), RtError> {
        let bad = |what: &str| RtError::new(Code::Invalid, format!("option '{key}={value}': {what}"));
        match key {
            "placement" => self.placement = value.into(),
            "dynamic" => self.dynamic = value.into(),
            "min_bytes" => self.min_bytes = value.parse().map_err(|_| bad("not a byte count"))?,
            "sample_period_ms" => {
                self.sample_period_ms = value.parse().ok().filter(|v: &f64| *v > 0.0).ok_or_else(|| bad("not a positive number"))?
            }
            "window_pages" => self.window_pages = value.parse().ok().filter(|&v| v > 0).ok_or_else(|| bad("not a positive count"))?,
            "source" => {
                if !["auto", "faults", "perf"].contains(&value) {
                    return Err(bad("expected auto, faults or perf"));
                }
                self.source = value.into()
            }
            "stats" => self.stats = (!value.is_empty()).then(|| value.into()),
            "verbose" => self.verbose = value == "1" || value == "true",
            "recrep" => self.recrep = value.into(),
            "seed" => self.seed = value.parse().map_err(|_| bad("not an integer"))?,
            _ => {
                return Err(RtError::new(
                    Code::Invalid,
                    format!("unknown option '{key}' (known: placement, dynamic, min_bytes, sample_period_ms, window_pages, source, stats, verbose, recrep, seed)"),
                ))
            }
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
        for (var, key) in [
            ("NUMAPLACE_PLACEMENT", "placement"),
            ("NUMAPLACE_DYNAMIC", "dynamic"),
            ("NUMAPLACE_MIN_BYTES", "min_bytes"),
            ("NUMAPLACE_SAMPLE_PERIOD_MS", "sample_period_ms"),
            ("NUMAPLACE_WINDOW_PAGES", "window_pages"),
            ("NUMAPLACE_SOURCE", "source"),
            ("NUMAPLACE_STATS", "stats"),
            ("NUMAPLACE_VERBOSE", "verbose"),
            ("NUMAPLACE_RECREP", "recrep"),
            ("NUMAPLACE_SEED", "seed"),
        ] {
            if let Ok(v) = std::env::var(var) {
                self.set(key, &v).map_err(|e| RtError::new(e.code, format!("{var}: {}", e.message)))?;
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
        assert!(c.apply("source=bus-analyser").unwrap_err().message.contains("auto, faults or perf"));
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
