//! The one parameter syntax used everywhere: `NAME:key=value,key=value`.
//!
//! Every plug-in (placement, workload, and later dynamic policies) declares its parameters once
//! as a table of [`ParamDecl`]s: name, type, default and a one-line doc. [`Spec::resolve`] checks a
//! user's spec against that table in one place (two-phase configuration: raw text first, then
//! validation), so every plug-in reports unknown keys and bad values the same way, and the
//! resolved spec prints back in canonical form with every default filled in — the form written
//! next to every result so a run can be repeated exactly.

use crate::error::shown;
use crate::error::ModelError;
use std::fmt;

/// A parsed but not yet validated `NAME:key=value,...` specification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    /// The plug-in name, e.g. `bind`.
    pub name: String,
    /// The `key=value` pairs in the order given.
    pub params: Vec<(String, String)>,
}

/// The type of a declared parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamKind {
    /// An integer in `[min, max]`. Give a count that means nothing at 0 (an interval, a
    /// threshold, a number of pages to move) `min: 1`, so that 0 is refused rather than
    /// silently treated as 1; [`ParamKind::UINT`] is any non-negative integer.
    UInt { min: u64, max: u64 },
    /// A finite floating-point number in `[min, max]`.
    Float { min: f64, max: f64 },
    /// One of a fixed set of words.
    Choice(&'static [&'static str]),
    /// A free word of letters, digits, `_`, `-` and `+` (a phase name, region names joined by `+`).
    Word,
    /// Any text without a comma (which separates parameters), such as a file path; may be
    /// empty, so a plug-in whose text has no sensible default checks for that itself.
    Text,
}

/// The largest iteration number a run has: a workload's timed iterations and a trace's
/// iteration numbers alike (per-iteration results hold one entry for each).
pub const MAX_ITERATIONS: u64 = 1 << 20;

/// The most records one thread may be asked to generate in one epoch by a single parameter
/// (16 M records, 128 MiB): a workload holds one epoch, so this bounds its memory.
pub const MAX_EPOCH_RECORDS: u64 = 1 << 24;

impl ParamKind {
    /// A count of timed iterations, 0 (initialisation only) to [`MAX_ITERATIONS`].
    pub const ITERATIONS: ParamKind = ParamKind::UInt { min: 0, max: MAX_ITERATIONS };
    /// How many times a step repeats within one epoch (sweeps, cycles, repeats), at most 64:
    /// each multiplies the epoch's records, and a workload holds one epoch in memory.
    pub const REPEATS: ParamKind = ParamKind::UInt { min: 0, max: 64 };
    /// Any non-negative integer.
    pub const UINT: ParamKind = ParamKind::UInt { min: 0, max: u64::MAX };
    /// A positive integer: a count for which 0 means nothing.
    pub const COUNT: ParamKind = ParamKind::UInt { min: 1, max: u64::MAX };
}

/// The range of an integer parameter in words, as help text and errors say it.
fn uint_range(min: u64, max: u64) -> String {
    match (min, max) {
        (0, u64::MAX) => "a non-negative integer".to_string(),
        (_, u64::MAX) => format!("an integer >= {min}"),
        _ => format!("an integer in [{min}, {max}]"),
    }
}

/// One declared parameter of a plug-in.
#[derive(Clone, Copy, Debug)]
pub struct ParamDecl {
    pub name: &'static str,
    pub kind: ParamKind,
    /// The default, in the same text form a user would type.
    pub default: &'static str,
    pub doc: &'static str,
}

/// A typed parameter value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    UInt(u64),
    Float(f64),
    Choice(&'static str),
    /// A free word.
    Text(String),
    /// The word `auto`, accepted by parameters whose default is `auto`: the plug-in picks the
    /// value and writes it back with [`Resolved::set`] so the canonical form shows the number.
    Auto,
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::UInt(v) => write!(f, "{v}"),
            Value::Float(v) => write!(f, "{v}"),
            Value::Choice(v) => write!(f, "{v}"),
            Value::Text(v) => write!(f, "{v}"),
            Value::Auto => write!(f, "auto"),
        }
    }
}

/// A spec validated against its declarations: every declared key has a typed value.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    pub name: String,
    pub values: Vec<(&'static str, Value)>,
}

impl Spec {
    /// Parses `NAME` or `NAME:key=value,key=value`.
    ///
    /// # Errors
    /// An empty name, an empty or `=`-less pair, or a key given twice.
    pub fn parse(text: &str) -> Result<Spec, ModelError> {
        let text = text.trim();
        let (name, rest) = match text.split_once(':') {
            Some((n, r)) => (n.trim(), Some(r)),
            None => (text, None),
        };
        if name.is_empty() {
            return Err(ModelError::Spec(format!("'{}': missing name before ':'", shown(text))));
        }
        let mut params: Vec<(String, String)> = Vec::new();
        if let Some(rest) = rest {
            for pair in rest.split(',') {
                let pair = pair.trim();
                let Some((k, v)) = pair.split_once('=') else {
                    return Err(ModelError::Spec(format!("'{}': parameter '{}' is not of the form key=value", shown(text), shown(pair))));
                };
                let (k, v) = (k.trim(), v.trim());
                if k.is_empty() || v.is_empty() {
                    return Err(ModelError::Spec(format!("'{}': parameter '{}' needs both a key and a value", shown(text), shown(pair))));
                }
                if params.iter().any(|(pk, _)| pk == k) {
                    return Err(ModelError::Spec(format!("'{}': key '{}' given twice", shown(text), shown(k))));
                }
                params.push((k.to_string(), v.to_string()));
            }
        }
        Ok(Spec { name: name.to_string(), params })
    }

    /// Checks this spec against `decls` (the parameters of plug-in `kind` named `self.name`) and
    /// fills in defaults.
    ///
    /// # Errors
    /// An unknown key (the valid keys are listed) or a value of the wrong type or range.
    pub fn resolve(&self, kind: &str, decls: &[ParamDecl]) -> Result<Resolved, ModelError> {
        for (k, _) in &self.params {
            if !decls.iter().any(|d| d.name == k) {
                let valid = if decls.is_empty() {
                    "it takes no parameters".to_string()
                } else {
                    format!("valid keys: {}", decls.iter().map(|d| d.name).collect::<Vec<_>>().join(", "))
                };
                return Err(ModelError::Spec(format!("{kind} '{}': unknown parameter '{}' ({valid})", shown(&self.name), shown(k))));
            }
        }
        let mut values = Vec::with_capacity(decls.len());
        for d in decls {
            let given = self.params.iter().find(|(k, _)| k == d.name).map(|(_, v)| v.as_str());
            let text = given.unwrap_or(d.default);
            let v = parse_value(d, text).map_err(|why| {
                ModelError::Spec(format!("{kind} '{}': {}={}: {why}", shown(&self.name), d.name, shown(text)))
            })?;
            values.push((d.name, v));
        }
        Ok(Resolved { name: self.name.clone(), values })
    }
}

fn parse_value(d: &ParamDecl, text: &str) -> Result<Value, String> {
    if text == "auto" && d.default == "auto" {
        return Ok(Value::Auto);
    }
    match d.kind {
        ParamKind::UInt { min, max } => match text.replace('_', "").parse::<u64>() {
            Ok(v) if (min..=max).contains(&v) => Ok(Value::UInt(v)),
            _ => Err(format!("expected {}", uint_range(min, max))),
        },
        ParamKind::Float { min, max } => {
            let v: f64 = text.parse().map_err(|_| "expected a number".to_string())?;
            if !v.is_finite() || v < min || v > max {
                return Err(format!("expected a number in [{min}, {max}]"));
            }
            Ok(Value::Float(v))
        }
        ParamKind::Word => {
            if !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+')) {
                Ok(Value::Text(text.to_string()))
            } else {
                Err("expected a word of letters, digits, '_', '-' and '+'".to_string())
            }
        }
        ParamKind::Text => Ok(Value::Text(text.to_string())),
        ParamKind::Choice(words) => words
            .iter()
            .find(|w| **w == text)
            .map(|w| Value::Choice(w))
            .ok_or_else(|| format!("expected one of: {}", words.join(", "))),
    }
}

impl Resolved {
    fn get(&self, key: &str) -> &Value {
        &self
            .values
            .iter()
            .find(|(k, _)| *k == key)
            .unwrap_or_else(|| panic!("parameter '{key}' was not declared for '{}'", self.name))
            .1
    }

    /// The value of a declared `UInt` parameter.
    ///
    /// # Panics
    /// If `key` was not declared as `UInt` (a programming error, not a user error).
    pub fn uint(&self, key: &str) -> u64 {
        match self.get(key) {
            Value::UInt(v) => *v,
            other => panic!("parameter '{key}' is not an integer: {other:?}"),
        }
    }

    /// The value of a declared `Float` parameter.
    ///
    /// # Panics
    /// If `key` was not declared as `Float`, or is `auto`.
    pub fn float(&self, key: &str) -> f64 {
        match self.get(key) {
            Value::Float(v) => *v,
            other => panic!("parameter '{key}' is not a number: {other:?}"),
        }
    }

    /// The value of a declared `Word` parameter.
    ///
    /// # Panics
    /// If `key` was not declared as `Word`.
    pub fn text(&self, key: &str) -> &str {
        match self.get(key) {
            Value::Text(v) => v,
            other => panic!("parameter '{key}' is not a word: {other:?}"),
        }
    }

    /// Whether a parameter was left at (or given as) `auto`.
    pub fn is_auto(&self, key: &str) -> bool {
        matches!(self.get(key), Value::Auto)
    }

    /// Replaces a parameter's value, e.g. an `auto` by the value the plug-in chose.
    ///
    /// # Panics
    /// If `key` was not declared.
    pub fn set(&mut self, key: &str, value: Value) {
        let name = self.name.clone();
        let slot = self
            .values
            .iter_mut()
            .find(|(k, _)| *k == key)
            .unwrap_or_else(|| panic!("parameter '{key}' was not declared for '{name}'"));
        slot.1 = value;
    }

    /// The value of a declared `Choice` parameter.
    ///
    /// # Panics
    /// If `key` was not declared as `Choice`.
    pub fn choice(&self, key: &str) -> &'static str {
        match self.get(key) {
            Value::Choice(v) => v,
            other => panic!("parameter '{key}' is not a choice: {other:?}"),
        }
    }
}

impl fmt::Display for Resolved {
    /// The canonical form: `name:key=value,...` with every declared key, in declaration order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)?;
        for (i, (k, v)) in self.values.iter().enumerate() {
            write!(f, "{}{k}={v}", if i == 0 { ':' } else { ',' })?;
        }
        Ok(())
    }
}

/// Renders a declaration table as help text, one parameter a line.
pub fn describe(decls: &[ParamDecl]) -> String {
    decls
        .iter()
        .map(|d| {
            let ty = match d.kind {
                ParamKind::UInt { min: 0, max: u64::MAX } => "integer".to_string(),
                ParamKind::UInt { min, max } => uint_range(min, max).trim_start_matches("an ").to_string(),
                ParamKind::Float { min, max } => format!("number in [{min}, {max}]"),
                ParamKind::Choice(w) => w.join("|"),
                ParamKind::Word => "word".to_string(),
                ParamKind::Text => "text".to_string(),
            };
            let ty = if d.default == "auto" { format!("{ty} or auto") } else { ty };
            format!("  {}={} ({ty}): {}", d.name, d.default, d.doc)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const DECLS: &[ParamDecl] = &[
        ParamDecl { name: "node", kind: ParamKind::UINT, default: "0", doc: "a node" },
        ParamDecl { name: "pattern", kind: ParamKind::Choice(&["a", "b"]), default: "a", doc: "p" },
        ParamDecl { name: "x", kind: ParamKind::Float { min: 0.0, max: 1.0 }, default: "0.5", doc: "x" },
    ];

    #[test]
    fn parses_and_resolves_with_defaults() {
        let s = Spec::parse("bind:node=3").unwrap();
        assert_eq!(s.name, "bind");
        let r = s.resolve("placement", DECLS).unwrap();
        assert_eq!(r.uint("node"), 3);
        assert_eq!(r.choice("pattern"), "a");
        assert_eq!(r.to_string(), "bind:node=3,pattern=a,x=0.5");
    }

    #[test]
    fn canonical_form_round_trips() {
        let r = Spec::parse("t:x=0.25,pattern=b").unwrap().resolve("w", DECLS).unwrap();
        let again = Spec::parse(&r.to_string()).unwrap().resolve("w", DECLS).unwrap();
        assert_eq!(r, again);
    }

    #[test]
    fn unknown_key_lists_valid_keys() {
        let e = Spec::parse("bind:nod=1").unwrap().resolve("placement", DECLS).unwrap_err();
        assert_eq!(
            e.to_string(),
            "placement 'bind': unknown parameter 'nod' (valid keys: node, pattern, x)"
        );
    }

    #[test]
    fn bad_values_are_named() {
        let e = Spec::parse("t:pattern=c").unwrap().resolve("workload", DECLS).unwrap_err();
        assert_eq!(e.to_string(), "workload 't': pattern=c: expected one of: a, b");
        let e = Spec::parse("t:x=2").unwrap().resolve("workload", DECLS).unwrap_err();
        assert!(e.to_string().contains("x=2: expected a number in [0, 1]"), "{e}");
        let e = Spec::parse("t:node=-1").unwrap().resolve("workload", DECLS).unwrap_err();
        assert!(e.to_string().contains("node=-1: expected a non-negative integer"), "{e}");
        // A declared range is enforced at both ends and said in the error and the help.
        const R: &[ParamDecl] = &[ParamDecl { name: "k", kind: ParamKind::UInt { min: 2, max: 5 }, default: "2", doc: "k" }];
        for bad in ["1", "6", "x"] {
            let e = Spec::parse(&format!("t:k={bad}")).unwrap().resolve("workload", R).unwrap_err();
            assert_eq!(e.to_string(), format!("workload 't': k={bad}: expected an integer in [2, 5]"));
        }
        assert_eq!(Spec::parse("t:k=5").unwrap().resolve("workload", R).unwrap().uint("k"), 5);
        assert_eq!(describe(R), "  k=2 (integer in [2, 5]): k");
    }

    #[test]
    fn auto_is_accepted_only_where_it_is_the_default() {
        const A: &[ParamDecl] =
            &[ParamDecl { name: "t", kind: ParamKind::Float { min: 0.0, max: 9.0 }, default: "auto", doc: "" }];
        let mut r = Spec::parse("w").unwrap().resolve("workload", A).unwrap();
        assert!(r.is_auto("t"));
        r.set("t", Value::Float(2.5));
        assert_eq!(r.to_string(), "w:t=2.5");
        assert!(Spec::parse("w:x=auto").unwrap().resolve("workload", DECLS).is_err());
    }

    #[test]
    fn malformed_specs_are_refused() {
        for bad in ["", ":a=1", "x:a", "x:=1", "x:a=", "x:a=1,a=2", "x:a=1,"] {
            assert!(Spec::parse(bad).is_err(), "{bad:?} should fail");
        }
    }

    proptest! {
        // Parsing arbitrary text never panics, and whatever parses resolves or errors cleanly.
        #[test]
        fn parse_never_panics(s in ".{0,40}") {
            if let Ok(spec) = Spec::parse(&s) {
                let _ = spec.resolve("workload", DECLS);
            }
        }
    }
}
