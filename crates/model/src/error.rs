//! Errors of the model layer. Each names the thing that was wrong and, where there is a fixed
//! set of valid choices, lists them.

use thiserror::Error;

/// The most characters of one user value (a parameter, a name, a spec, a line of a file) an
/// error shows ([`shown`]): a 300-digit number is cut here.
pub const SHOWN_CHARS: usize = 40;

/// The most characters of a path an error shows ([`shown_path`]).
pub const SHOWN_PATH_CHARS: usize = 256;

/// User text as an error shows it, the one place errors quote what a user gave: control
/// characters (a newline, a NUL, an escape) are written as `\n`, `\x00`, `\x1b`, so that the
/// error stays one line and the terminal sees no control byte, and text longer than
/// [`SHOWN_CHARS`] characters is cut, saying how much was left out
/// (`99999999…(260 more characters)`).
pub fn shown(text: &str) -> String {
    shown_max(text, SHOWN_CHARS)
}

/// A path as an error shows it: as [`shown`], at most [`SHOWN_PATH_CHARS`] characters;
/// bytes that are not UTF-8 are shown as U+FFFD, as `Path::display` does.
pub fn shown_path(path: &std::path::Path) -> String {
    shown_max(&path.to_string_lossy(), SHOWN_PATH_CHARS)
}

/// A whole message made one line: control characters escaped as by [`shown`], nothing cut
/// (the last guard where a message leaves for the user; its parts were cut by [`shown`]).
pub fn one_line(message: &str) -> String {
    shown_max(message, usize::MAX)
}

fn shown_max(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max.saturating_add(32)));
    let mut count = 0usize;
    for c in text.chars() {
        if count == max {
            let rest = text.chars().count() - count;
            out.push_str(&format!("…({rest} more characters)"));
            break;
        }
        if c.is_control() {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
        count += 1;
    }
    out
}

/// A control character as the command line's messages write it (`numaplace.messages.shown`):
/// `\n`, `\r`, `\t`, else `\xNN` up to U+00FF, `\uNNNN`, `\UNNNNNNNN`; one convention
/// whichever layer quotes the text.
fn push_escaped(out: &mut String, c: char) {
    use std::fmt::Write;
    let _ = match c {
        '\n' => write!(out, "\\n"),
        '\r' => write!(out, "\\r"),
        '\t' => write!(out, "\\t"),
        c if (c as u32) <= 0xFF => write!(out, "\\x{:02x}", c as u32),
        c if (c as u32) <= 0xFFFF => write!(out, "\\u{:04x}", c as u32),
        c => write!(out, "\\U{:08x}", c as u32),
    };
}

/// An error from parsing or validating model inputs, or from placing a page.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ModelError {
    /// A machine file (TOML) could not be parsed or failed validation.
    #[error("{origin}: {message}")]
    Machine { origin: String, message: String },
    /// A name (of a placement, workload, policy, machine ...) is not known.
    #[error("unknown {kind} '{name}' (known: {known})")]
    UnknownName { kind: &'static str, name: String, known: String },
    /// A `NAME:key=value` specification is malformed or has a bad parameter.
    #[error("{0}")]
    Spec(String),
    /// The workload's footprint does not fit in the machine's memory.
    #[error("out of memory: {needed} pages needed but the machine '{machine}' holds {capacity}")]
    OutOfMemory { machine: String, needed: u64, capacity: u64 },
    /// The simulator's own per-page state for a run would exceed its documented bound
    /// ([`crate::pagetable::MAX_STATE_BYTES`]): the footprint fits the simulated machine but
    /// not the simulator. Raised before anything is allocated.
    #[error("out of memory: {what} needs {needed_bytes} bytes of simulator state, more than the bound of {limit_bytes} bytes")]
    StateTooLarge { what: String, needed_bytes: u64, limit_bytes: u64 },
    /// A request that contradicts the machine (too many threads, a node that does not exist).
    #[error("{0}")]
    Config(String),
}

impl ModelError {
    /// Builds an [`ModelError::UnknownName`] listing the known names, sorted.
    pub fn unknown<I, S>(kind: &'static str, name: &str, known: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut k: Vec<String> = known.into_iter().map(|s| s.as_ref().to_string()).collect();
        k.sort();
        ModelError::UnknownName { kind, name: shown(name), known: k.join(", ") }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_text_is_one_short_line() {
        assert_eq!(shown("stream:pages=4"), "stream:pages=4");
        assert_eq!(shown("a\nb\0c\u{1b}[2Jd\t\u{85}"), "a\\nb\\x00c\\x1b[2Jd\\t\\x85");
        let digits = "9".repeat(300);
        assert_eq!(shown(&digits), format!("{}…(260 more characters)", "9".repeat(40)));
        assert_eq!(shown(&"é".repeat(41)), format!("{}…(1 more characters)", "é".repeat(40)));
        assert_eq!(shown_path(std::path::Path::new("/tmp/a\nb.swf")), "/tmp/a\\nb.swf");
        assert_eq!(shown_path(std::path::Path::new(&"d/".repeat(200))).chars().count(), SHOWN_PATH_CHARS + "…(144 more characters)".chars().count());
        assert_eq!(one_line(&format!("x\n{digits}")), format!("x\\n{digits}"));
        let e = ModelError::unknown("workload", "st\nream", ["stream"]);
        assert_eq!(e.to_string(), "unknown workload 'st\\nream' (known: stream)");
    }
}
