//! The committed C header is what cbindgen generates from the C API now.

#[test]
fn committed_header_matches_the_c_api() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let config = cbindgen::Config::from_file(format!("{dir}/cbindgen.toml")).expect("cbindgen.toml parses");
    let bindings = cbindgen::Builder::new().with_crate(dir).with_config(config).generate().expect("cbindgen generates the header");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let generated = String::from_utf8(generated).unwrap();
    let path = format!("{dir}/include/numaplace.h");
    if std::env::var_os("NUMAPLACE_UPDATE_HEADER").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(committed == generated, "include/numaplace.h is stale: regenerate with NUMAPLACE_UPDATE_HEADER=1 cargo test -p numaplace-runtime --test header");
    for name in ["numaplace_init", "numaplace_register", "numaplace_place", "numaplace_migrate", "numaplace_record", "numaplace_replay", "numaplace_undo", "numaplace_where", "numaplace_stats_write", "numaplace_last_error", "upmlib_memrefcnt", "NUMAPLACE_API_VERSION"] {
        assert!(generated.contains(name), "{name} missing from the header");
    }
    assert!(!generated.contains(" malloc("), "interposed libc functions must not be declared");
}
