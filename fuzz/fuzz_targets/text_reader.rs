//! Fuzz target: any bytes given to the text-trace reader yield epochs or an error, never a
//! panic; an error is one line and names a line of the input (or the byte where a size bound
//! was passed), so a user can find what to fix.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = numaplace_sim::trace::read_text_for_fuzz(data) {
        let m = e.to_string();
        assert!(!m.contains('\n'), "{m}");
        assert!(m.starts_with("input: line "), "{m}");
    }
});
