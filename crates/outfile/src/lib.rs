//! Every file numaplace writes — the simulator's decisions and traces, the runtime's stats file
//! — is written by one rule, the rule of Python's `numaplace.outfile` for the files the command
//! line writes: nothing partial is left, and no file the user did not name is replaced or
//! removed — a link is written through to its target, a device or FIFO such as `/dev/null` is
//! written in place, a directory is refused. The crate uses only `std`, so the runtime (which
//! links no simulator) and the simulator share it.

use std::io;
use std::path::{Path, PathBuf};

/// Where a write to `path` lands: links followed (an existing target is canonical; a dangling
/// link, or a chain of them up to the kernel's own limit of 40, names the file it makes).
fn resolve(path: &Path) -> PathBuf {
    match std::fs::canonicalize(path) {
        Ok(p) => p,
        Err(_) => {
            let mut p = path.to_path_buf();
            for _ in 0..40 {
                match std::fs::read_link(&p) {
                    Ok(t) => p = p.parent().unwrap_or(Path::new(".")).join(t),
                    Err(_) => break,
                }
            }
            p
        }
    }
}

/// Writes the output file `path`: `write` fills an open file, which is a uniquely named
/// temporary beside a regular file or new path, renamed over it once complete (the temporary
/// is removed on failure); a symbolic link's target is written the same way (the link stays);
/// a character device, FIFO or socket is written through in place, never replaced by a
/// rename; a directory or an empty path is refused. `io_err` turns an I/O error (or a refusal,
/// given as an `InvalidInput` error whose text says why) into the caller's error, which
/// names the path.
///
/// # Errors
/// A directory, an empty path, or the failed write, through `io_err`; `write`'s own errors as
/// they are.
pub fn write_with<T, E>(path: &Path, io_err: impl Fn(io::Error) -> E, write: impl FnOnce(&mut std::fs::File) -> Result<T, E>) -> Result<T, E> {
    use std::sync::atomic::{AtomicU64, Ordering};
    let refuse = |why: &str| io_err(io::Error::new(io::ErrorKind::InvalidInput, why.to_string()));
    if path.as_os_str().is_empty() {
        return Err(refuse("an empty path (give a file name)"));
    }
    let real = resolve(path);
    match std::fs::metadata(&real) {
        Ok(m) if m.is_dir() => return Err(refuse("is a directory (give a file name)")),
        Ok(m) if !m.is_file() => {
            let mut f = std::fs::OpenOptions::new().write(true).open(&real).map_err(&io_err)?;
            return write(&mut f);
        }
        _ => {}
    }
    // Unique per process and call, so two outputs (or two runs) never share a temporary;
    // create_new refuses a stale file of the same name rather than reuse it.
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = real.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = real.with_file_name(format!(".{name}.{}.{}.tmp", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)));
    let written = (|| {
        let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp).map_err(&io_err)?;
        let value = write(&mut f)?;
        drop(f);
        if let Ok(old) = std::fs::metadata(&real) {
            // Keep the replaced file's permissions, as writing it in place would.
            std::fs::set_permissions(&tmp, old.permissions()).map_err(&io_err)?;
        }
        std::fs::rename(&tmp, &real).map_err(&io_err)?;
        Ok(value)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Writes `bytes` to the output file `path` by [`write_with`]'s rule.
///
/// # Errors
/// As [`write_with`], as an I/O error.
pub fn write_bytes(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write as _;
    write_with(path, |e| e, |f| f.write_all(bytes))
}

/// A directory of one's own under the system's temporary directory, for scratch files: made
/// by one `mkdir` (which never follows a link, so nobody else's file or link can stand in for
/// it), mode 0700, named by tag, process, call and clock so no other process or call shares
/// it; it and everything in it is removed when the value is dropped. It reads as its `Path`.
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    /// A new directory `numaplace-{tag}-…` under `std::env::temp_dir()`.
    ///
    /// # Errors
    /// The `mkdir`'s error (the caller names the temporary directory; a name that exists is
    /// retried under another, up to 64 times).
    pub fn new(tag: &str) -> io::Result<TempDir> {
        use std::os::unix::fs::DirBuilderExt as _;
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let base = std::env::temp_dir();
        let mut last = None;
        for _ in 0..64 {
            let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
            let p = base.join(format!("numaplace-{tag}-{}-{}-{nanos:08x}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)));
            match std::fs::DirBuilder::new().mode(0o700).create(&p) {
                Ok(()) => return Ok(TempDir(p)),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("no free temporary name")))
    }

    /// The directory.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl std::ops::Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for TempDir {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One scratch file's path, in a [`TempDir`] of its own that goes when the value is dropped;
/// it reads as the `Path` of the file.
#[derive(Debug)]
pub struct TempPath {
    path: PathBuf,
    _dir: TempDir,
}

impl TempPath {
    /// The path `name` in a new [`TempDir`] tagged `tag` (the file is not created).
    ///
    /// # Errors
    /// As [`TempDir::new`].
    pub fn new(tag: &str, name: impl AsRef<Path>) -> io::Result<TempPath> {
        let dir = TempDir::new(tag)?;
        Ok(TempPath { path: dir.join(name), _dir: dir })
    }
}

impl std::ops::Deref for TempPath {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for TempPath {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<std::ffi::OsStr> for TempPath {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.path.as_os_str()
    }
}

#[cfg(test)]
mod tests {
    use super::write_bytes as write_output;

    use super::TempDir;

    fn names(d: &std::path::Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    #[test]
    fn outputs_follow_links_refuse_directories_and_leave_no_temporary() {
        let d = TempDir::new("outfile-test").unwrap();
        write_output(&d.join("a.csv"), b"x").unwrap();
        assert_eq!(std::fs::read(d.join("a.csv")).unwrap(), b"x");
        std::os::unix::fs::symlink("a.csv", d.join("l.csv")).unwrap();
        write_output(&d.join("l.csv"), b"y").unwrap();
        assert!(std::fs::symlink_metadata(d.join("l.csv")).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(d.join("a.csv")).unwrap(), b"y");
        std::os::unix::fs::symlink("new.jsonl", d.join("dangling.jsonl")).unwrap();
        write_output(&d.join("dangling.jsonl"), b"z").unwrap();
        assert_eq!(std::fs::read(d.join("new.jsonl")).unwrap(), b"z");
        std::os::unix::fs::symlink("hop2.csv", d.join("hop1.csv")).unwrap();
        std::os::unix::fs::symlink("end.csv", d.join("hop2.csv")).unwrap();
        write_output(&d.join("hop1.csv"), b"c").unwrap();
        assert!(std::fs::symlink_metadata(d.join("hop2.csv")).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(d.join("end.csv")).unwrap(), b"c");
        for sub in ["d.csv", "d.jsonl"] {
            std::fs::create_dir(d.join(sub)).unwrap();
            let e = write_output(&d.join(sub), b"w").unwrap_err().to_string();
            assert!(e.contains("is a directory"), "{e}");
        }
        assert!(write_output(std::path::Path::new(""), b"w").is_err());
        // A write that fails after its temporary exists (renaming onto a non-empty directory's
        // name is refused above; a missing directory fails at the create): nothing is left.
        assert!(write_output(&d.join("missing").join("x.csv"), b"w").is_err());
        assert_eq!(names(&d), ["a.csv", "d.csv", "d.jsonl", "dangling.jsonl", "end.csv", "hop1.csv", "hop2.csv", "l.csv", "new.jsonl"]);
        // A device is written through, not replaced.
        write_output(std::path::Path::new("/dev/null"), b"v").unwrap();
        assert!(!std::fs::metadata("/dev/null").unwrap().is_file());
    }

    #[test]
    fn a_temporary_directory_is_private_unique_and_removed_when_dropped() {
        use std::os::unix::fs::PermissionsExt as _;
        let a = TempDir::new("t").unwrap();
        let b = TempDir::new("t").unwrap();
        assert_ne!(a.path(), b.path());
        let m = std::fs::symlink_metadata(a.path()).unwrap();
        assert!(m.is_dir() && !m.file_type().is_symlink());
        assert_eq!(m.permissions().mode() & 0o777, 0o700);
        std::fs::create_dir(a.join("sub")).unwrap();
        std::fs::write(a.join("sub").join("f"), b"x").unwrap();
        let gone = a.path().to_path_buf();
        drop(a);
        assert!(std::fs::symlink_metadata(&gone).is_err(), "{} is left", gone.display());
        let f = super::TempPath::new("t", "f.txt").unwrap();
        std::fs::write(&f, b"x").unwrap();
        let dir = f.parent().unwrap().to_path_buf();
        assert!(dir.starts_with(std::env::temp_dir()) && f.ends_with("f.txt"));
        drop(f);
        assert!(std::fs::symlink_metadata(&dir).is_err(), "{} is left", dir.display());
    }
}
