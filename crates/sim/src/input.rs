//! The user's input files read whole: each kind has a size bound, checked while reading, so a
//! file that never ends (`/dev/zero`, a FIFO whose writer never stops) costs the bound and no
//! more; each file is opened once (a pipe works as a file does). Traces are read as streams by
//! their own readers (`trace`), whose formats bound every length they hold.

use crate::error::SimError;
use numaplace_model::error::shown_path;
use std::io::Read;
use std::path::Path;

/// A kind of input file and the most bytes one may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputKind {
    /// What the file is, in messages: "machine file".
    pub what: &'static str,
    pub max_bytes: u64,
}

/// A machine file (TOML): 16 MiB. The largest machine the bounds allow in full, 254 nodes
/// with a latency matrix of 64,516 numbers, is under 1 MiB.
pub const MACHINE_FILE: InputKind = InputKind { what: "machine file", max_bytes: 16 << 20 };

/// A job log in the Standard Workload Format: 256 MiB. The Parallel Workloads Archive's
/// largest logs are about 100 MiB; 256 MiB of the shortest job lines is 7.4 M jobs, within
/// `swf::MAX_RECORDS`.
pub const SWF_FILE: InputKind = InputKind { what: "SWF file", max_bytes: 256 << 20 };

/// One file of a sysfs node directory (`topo --detect --sysfs DIR`): 1 MiB. The largest,
/// `distance` of a 254-node machine, is about 1 KiB.
pub const SYSFS_FILE: InputKind = InputKind { what: "sysfs file", max_bytes: 1 << 20 };

/// Every kind, for the documentation and its tests.
pub const KINDS: [InputKind; 3] = [MACHINE_FILE, SWF_FILE, SYSFS_FILE];

/// The text of `path`, a file of `kind`: opened once, read up to the kind's bound (checked
/// while reading), UTF-8.
///
/// # Errors
/// One line naming the file: unreadable, larger than the bound (naming the bound), or not
/// UTF-8 (naming the byte).
pub fn read_text(path: &Path, kind: InputKind) -> Result<String, SimError> {
    let file = std::fs::File::open(path).map_err(|e| SimError::io(path, e))?;
    read_text_from(file, &shown_path(path), kind)
}

/// [`read_text`] from an open reader; `name` stands for the file in messages.
///
/// # Errors
/// As [`read_text`].
pub fn read_text_from(input: impl Read, name: &str, kind: InputKind) -> Result<String, SimError> {
    let mut bytes = Vec::new();
    input
        .take(kind.max_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| SimError::Io { path: name.to_string(), message: format!("read error after {} bytes: {e}", bytes.len()) })?;
    if bytes.len() as u64 > kind.max_bytes {
        return Err(SimError::Io {
            path: name.to_string(),
            message: format!(
                "more than {} bytes ({} MiB), the bound on {}s",
                kind.max_bytes,
                kind.max_bytes >> 20,
                kind.what
            ),
        });
    }
    String::from_utf8(bytes).map_err(|e| SimError::Io {
        path: name.to_string(),
        message: format!("invalid UTF-8 at byte {}: expected a text {}", e.utf8_error().valid_up_to(), kind.what),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_without_end_stops_at_its_kinds_bound() {
        let kind = InputKind { what: "test file", max_bytes: 1000 };
        // An endless reader: only the bound and one byte more are read.
        let mut read = 0u64;
        let endless = std::io::repeat(b'a').take(u64::MAX).inspect_read(&mut read);
        let e = read_text_from(endless, "/dev/zero", kind).unwrap_err().to_string();
        assert_eq!(e, "/dev/zero: more than 1000 bytes (0 MiB), the bound on test files");
        assert_eq!(read, 1001);
        assert_eq!(read_text_from(&b"x = 1\n"[..], "m.toml", kind).unwrap(), "x = 1\n");
        assert_eq!(read_text_from(&[b'a'; 1000][..], "m.toml", kind).unwrap().len(), 1000);
        let e = read_text_from(&b"ab\xffc"[..], "m.toml", kind).unwrap_err().to_string();
        assert_eq!(e, "m.toml: invalid UTF-8 at byte 2: expected a text test file");
    }

    #[test]
    fn dev_zero_is_refused_for_the_small_kinds() {
        // (The SWF file's 256 MiB is the CLI test's: tests/test_hostile_rust_inputs.py.)
        for kind in [MACHINE_FILE, SYSFS_FILE] {
            let e = read_text(Path::new("/dev/zero"), kind).unwrap_err().to_string();
            assert_eq!(e, format!("/dev/zero: more than {} bytes ({} MiB), the bound on {}s", kind.max_bytes, kind.max_bytes >> 20, kind.what));
        }
    }

    /// Counts the bytes a reader hands out.
    trait InspectRead: Read + Sized {
        fn inspect_read(self, n: &mut u64) -> Counted<'_, Self> {
            Counted { inner: self, n }
        }
    }
    impl<R: Read> InspectRead for R {}
    struct Counted<'a, R> {
        inner: R,
        n: &'a mut u64,
    }
    impl<R: Read> Read for Counted<'_, R> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let k = self.inner.read(buf)?;
            *self.n += k as u64;
            Ok(k)
        }
    }
}
