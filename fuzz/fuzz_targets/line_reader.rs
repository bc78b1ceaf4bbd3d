//! Fuzz target: any bytes given to the line-level trace reader yield operations or an error,
//! never a panic; an error is one line naming the input.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = numaplace_sim::trace::line::read_line_all_for_fuzz(data) {
        let m = e.to_string();
        assert!(!m.contains('\n'), "{m}");
        assert!(m.starts_with("input: "), "{m}");
    }
});
