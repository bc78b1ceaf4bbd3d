//! The machine presets are the files of `machines/`: this writes `$OUT_DIR/presets.rs`, one
//! `(name, TOML text)` entry per `machines/NAME.toml` in name order, so that a preset is added
//! by adding its file (`presets::PRESETS`; a test checks each file's `name` is its stem).

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../machines");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort_by_key(|p| p.file_stem().map(|s| s.to_os_string()));
    let mut out = String::from("/// `(name, TOML text)` of every shipped preset, generated from `machines/*.toml` in name order.\npub const PRESETS: &[(&str, &str)] = &[\n");
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path.file_stem().and_then(|s| s.to_str()).expect("a UTF-8 file name");
        let full = path.canonicalize().expect("the preset file exists");
        writeln!(out, "    ({name:?}, include_str!({:?})),", full.display().to_string()).unwrap();
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("presets.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("writing {}: {e}", dest.display()));
}
