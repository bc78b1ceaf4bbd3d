//! Errors of the model layer. Each names the thing that was wrong and, where there is a fixed
//! set of valid choices, lists them.

use thiserror::Error;

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
        ModelError::UnknownName { kind, name: name.to_string(), known: k.join(", ") }
    }
}
