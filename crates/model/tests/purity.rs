//! The model crate's purity invariant, enforced: it does no I/O, reads no clock, no
//! environment and makes no system call, so the simulator and the runtime can drive the same
//! policy code with simulated or real time. Every source file is scanned for the paths that
//! would break that, and the manifest for a dependency that would.

use std::path::{Path, PathBuf};

/// Paths the model must not use, with why.
const FORBIDDEN: &[(&str, &str)] = &[
    ("std::fs", "file I/O"),
    ("std::io", "I/O"),
    ("std::net", "network I/O"),
    ("std::time", "the clock"),
    ("std::env", "the environment"),
    ("std::process", "processes"),
    ("std::thread", "threads and sleeping"),
    ("libc", "system calls"),
    ("println!", "printing"),
    ("eprintln!", "printing"),
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("the model's source folder is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_model_does_no_io_reads_no_clock_and_makes_no_syscall() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    assert!(files.len() >= 10, "found only {} source files under {}", files.len(), root.display());
    let mut breaches = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a source file is readable");
        for (n, line) in text.lines().enumerate() {
            // Comments may name what the code must not use.
            let code = line.split("//").next().unwrap_or("");
            for (path, why) in FORBIDDEN {
                if code.contains(path) {
                    breaches.push(format!("{}:{}: {path} ({why})", file.display(), n + 1));
                }
            }
        }
    }
    assert!(breaches.is_empty(), "the model crate must stay pure:\n{}", breaches.join("\n"));
}

#[test]
fn the_model_depends_on_no_system_crate() {
    let manifest = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).expect("the manifest");
    let deps = manifest.split("[dependencies]").nth(1).expect("a [dependencies] table");
    let deps = deps.split("\n[").next().unwrap_or(deps);
    for name in ["libc", "nix", "rustix", "memmap", "tokio"] {
        assert!(!deps.lines().any(|l| l.trim_start().starts_with(name)), "the model depends on {name}");
    }
}
