//! The runtime library's settings, declared once as data: the `key=value` keys of
//! `numaplace_init`'s option string, the `NUMAPLACE_*` variables that set them, their
//! defaults, and the defaults of the `numaplace run` launcher where it has a flag for one.
//!
//! The runtime (`crates/runtime/src/config.rs`) parses and defaults its `Config` from this
//! table; the launcher (`numaplace.runtime`, `numaplace run`) reads it through the Python
//! extension to build its flags and the environment it passes. It lives in the model crate
//! because both the runtime and the extension reach the model, and the extension must not
//! link the runtime (whose interposers it would export).

/// How a setting's text is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtKind {
    /// A `NAME:key=value` spec of this plug-in kind (checked against its registry).
    Spec(&'static str),
    /// A non-negative byte count.
    Bytes,
    /// A positive number.
    Positive,
    /// A positive count.
    Count,
    /// One of these words.
    Choice(&'static [&'static str]),
    /// A file path; empty for none.
    Path,
    /// `1`/`true` for on, anything else off.
    Flag,
    /// Free text (parameters passed on to a policy).
    Text,
    /// A non-negative integer.
    Integer,
    /// Linux node ids as a node list (`2`, `2-3`, `1,3`); empty for none.
    NodeList,
}

impl RtKind {
    /// The word listings and JSON use.
    pub fn name(self) -> &'static str {
        match self {
            RtKind::Spec(_) => "spec",
            RtKind::Bytes => "bytes",
            RtKind::Positive => "positive",
            RtKind::Count => "count",
            RtKind::Choice(_) => "choice",
            RtKind::Path => "path",
            RtKind::Flag => "flag",
            RtKind::Text => "text",
            RtKind::Integer => "integer",
            RtKind::NodeList => "node-list",
        }
    }
}

/// One setting of the runtime library.
#[derive(Clone, Copy, Debug)]
pub struct RtOption {
    /// The key in `numaplace_init`'s option string.
    pub name: &'static str,
    /// The environment variable that sets it.
    pub env: &'static str,
    pub kind: RtKind,
    /// The library's default, as text.
    pub default: &'static str,
    /// `numaplace run`'s default where the launcher has a flag for the setting (it sets or
    /// clears the variable on every launch); `None`: no flag, the variable passes through.
    pub launcher: Option<&'static str>,
    pub doc: &'static str,
}

/// The variable that says the library was preloaded by a launcher (not a setting).
pub const PRELOAD_ENV: &str = "NUMAPLACE_PRELOAD";

/// Every setting, in the order listings show them.
pub const OPTIONS: &[RtOption] = &[
    RtOption {
        name: "placement",
        env: "NUMAPLACE_PLACEMENT",
        kind: RtKind::Spec("placement"),
        default: "first-touch",
        launcher: Some("first-touch"),
        doc: "placement of managed regions (numaplace placements)",
    },
    RtOption {
        name: "dynamic",
        env: "NUMAPLACE_DYNAMIC",
        kind: RtKind::Spec("dynamic"),
        // A program that calls the API asks for migrations itself (UPMlib's loop); a
        // preloaded program never calls it, so the launcher's default acts on a timer: the
        // cost-aware `adaptive`, which on the suite's class-S traces (tests/suite, 2 threads,
        // modern-2s) was never slower than no policy (0.83-1.00 of its time), where `sampled`
        // was 2.8 % slower on the serially initialised Jacobi (docs/runtime.md, "The default").
        default: "upmlib",
        launcher: Some("adaptive"),
        doc: "dynamic policy, or none (numaplace policies; the runtime runs those whose drivers include it)",
    },
    RtOption {
        name: "min_bytes",
        env: "NUMAPLACE_MIN_BYTES",
        kind: RtKind::Bytes,
        default: "1048576",
        launcher: Some("1048576"),
        doc: "manage allocations of at least this many bytes",
    },
    RtOption {
        name: "sample_period_ms",
        env: "NUMAPLACE_SAMPLE_PERIOD_MS",
        kind: RtKind::Positive,
        default: "100",
        launcher: None,
        doc: "the sampler revokes the next window of pages every this many ms (the full rate)",
    },
    RtOption {
        name: "window_pages",
        env: "NUMAPLACE_WINDOW_PAGES",
        kind: RtKind::Count,
        default: "4096",
        launcher: None,
        doc: "pages per revocation window",
    },
    RtOption {
        name: "source",
        env: "NUMAPLACE_SOURCE",
        kind: RtKind::Choice(&["auto", "faults", "perf"]),
        default: "auto",
        launcher: Some("auto"),
        doc: "where access samples come from: precise sampling where it opens, else hinting faults",
    },
    RtOption {
        name: "stats",
        env: "NUMAPLACE_STATS",
        kind: RtKind::Path,
        default: "",
        launcher: Some(""),
        doc: "write the stats JSON here at exit (none by default)",
    },
    RtOption {
        name: "verbose",
        env: "NUMAPLACE_VERBOSE",
        kind: RtKind::Flag,
        default: "false",
        launcher: Some("false"),
        doc: "say on stderr which sample source is in use and why",
    },
    RtOption {
        name: "force",
        env: "NUMAPLACE_FORCE",
        kind: RtKind::Flag,
        default: "false",
        launcher: Some("false"),
        doc: "sample and run the policy's timer on a one-node host too (where every access is local: nothing to place or move)",
    },
    RtOption {
        name: "slow_nodes",
        env: "NUMAPLACE_SLOW_NODES",
        kind: RtKind::NodeList,
        default: "",
        launcher: Some(""),
        doc: "nodes to rank in a slower memory tier (Linux node ids, e.g. 2 or 2-3) besides those the kernel ranks below its top tier: \
for tiering policies on a host whose kernel puts every node in one tier",
    },
    RtOption {
        name: "recrep",
        env: "NUMAPLACE_RECREP",
        kind: RtKind::Text,
        default: "",
        launcher: None,
        doc: "parameters of record-replay phases (upmlib-recrep's, e.g. threshold=4)",
    },
    RtOption {
        name: "seed",
        env: "NUMAPLACE_SEED",
        kind: RtKind::Integer,
        default: "1",
        launcher: None,
        doc: "seed of the placements' random choices",
    },
];

/// The setting named `name`.
pub fn option(name: &str) -> Option<&'static RtOption> {
    OPTIONS.iter().find(|o| o.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_variables_are_unique_and_variables_follow_the_names() {
        for (i, o) in OPTIONS.iter().enumerate() {
            assert_eq!(o.env, format!("NUMAPLACE_{}", o.name.to_uppercase()), "{}", o.name);
            assert!(OPTIONS[..i].iter().all(|p| p.name != o.name), "{} twice", o.name);
        }
        assert!(option("source").is_some() && option("colour").is_none());
    }

    #[test]
    fn choices_include_their_defaults() {
        for o in OPTIONS {
            if let RtKind::Choice(words) = o.kind {
                assert!(words.contains(&o.default), "{}", o.name);
                assert!(o.launcher.map_or(true, |l| words.contains(&l)), "{}", o.name);
            }
        }
    }
}
