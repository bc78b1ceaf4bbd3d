//! Fuzz target: any bytes given to the trace reader (binary or text) yield epochs or an error,
//! never a panic, and an error is one line.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = numaplace_sim::trace::read_all_for_fuzz(data) {
        assert!(!e.to_string().contains('\n'));
    }
});
