//! The runtime's errors: a stable [`Code`] (the C API's result code, `NUMAPLACE_E_*` in
//! `include/numaplace.h`) and a one-line message, as [`RtError`].

use crate::sys::SysError;

/// An error of the runtime: a stable code (the C API's result code) and a one-line message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RtError {
    pub code: Code,
    pub message: String,
}

/// Result codes of the C API (negated where a function returns a count).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum Code {
    Ok = 0,
    /// A bad argument (null pointer, zero length, bad UTF-8).
    Invalid = 1,
    /// An unknown placement or policy name, or a bad parameter.
    Spec = 2,
    /// A system call failed.
    Sys = 3,
    /// `numaplace_init` was not called (or failed).
    NotInitialised = 4,
    /// The address range is not a managed region.
    NotManaged = 5,
    /// A call out of order (replay before record, ...).
    State = 6,
    /// Writing the statistics file failed.
    Io = 7,
    /// A limit was reached (too many regions).
    Limit = 8,
    /// An internal error (a panic caught at the C boundary).
    Internal = 9,
    /// The policy cannot run on real processes.
    Unsupported = 10,
}

impl RtError {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        RtError { code, message: message.into() }
    }
}

impl From<SysError> for RtError {
    fn from(e: SysError) -> Self {
        RtError::new(Code::Sys, e.to_string())
    }
}
