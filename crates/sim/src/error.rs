//! Errors of the simulator: model errors plus file access. Every message is one line that
//! names the thing that was wrong.

use numaplace_model::ModelError;
use thiserror::Error;

/// An error from setting up or running a simulation.
#[derive(Debug, Error)]
pub enum SimError {
    #[error(transparent)]
    Model(#[from] ModelError),
    /// A file could not be read or written.
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    /// A trace file is malformed: `at` is a byte offset, a block and payload offset, or a line.
    #[error("{path}: {at}: {message}")]
    Trace { path: String, at: String, message: String },
    /// The run's observer ([`crate::run::run_observed`]) asked it to stop (an interrupt).
    #[error("the run was stopped before it finished")]
    Stopped,
}

impl SimError {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: &std::path::Path, e: std::io::Error) -> Self {
        let message = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            _ => e.to_string(),
        };
        SimError::Io { path: numaplace_model::error::shown_path(path), message }
    }
}
