//! The simulator's outputs (decisions, traces) follow the one output rule of the
//! `numaplace-outfile` crate (a temporary renamed into place, links followed, devices written
//! through, directories refused), with its I/O errors as [`SimError`]s naming the path.

use crate::error::SimError;
use std::path::Path;

/// Writes the output file `path` by the output rule; `write` fills the open file.
///
/// # Errors
/// A directory, an empty path or a failed write (naming `path`); `write`'s own errors.
pub fn write_with<T>(path: &Path, write: impl FnOnce(&mut std::fs::File) -> Result<T, SimError>) -> Result<T, SimError> {
    numaplace_outfile::write_with(path, |e| SimError::io(path, e), write)
}

/// Writes `bytes` to the output file `path` by the output rule.
///
/// # Errors
/// As [`write_with`].
pub fn write_bytes(path: &Path, bytes: &[u8]) -> Result<(), SimError> {
    use std::io::Write as _;
    write_with(path, |f| f.write_all(bytes).map_err(|e| SimError::io(path, e)))
}
