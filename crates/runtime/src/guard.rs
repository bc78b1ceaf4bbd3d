//! The crate's panic guard: a panic never crosses the C ABI. Every `extern "C" fn` this
//! crate defines (the C API, the preloaded interposers, the fault handler, the fork and
//! load/unload hooks) runs its body through [`guard`], which catches a panic and returns the
//! function's fallback instead: for the C API a result code ([`crate::capi`]'s `guard`, built
//! on this one), for an interposer what the C library itself would do, for the fault handler
//! `abort()`. `tests/structure.rs` checks that every such function calls it.

use std::panic::{catch_unwind, AssertUnwindSafe};

/// `f()`, or `fallback()` if `f` panicked. Costs nothing while nothing panics (no allocation,
/// no lock: usable in the allocation interposers and the fault handler).
pub fn guard<T>(fallback: impl FnOnce() -> T, f: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(v) => v,
        Err(_) => fallback(),
    }
}

#[cfg(test)]
mod tests {
    use super::guard;

    #[test]
    fn a_panic_becomes_the_fallback_and_a_value_passes_through() {
        assert_eq!(guard(|| 0, || 7), 7);
        assert_eq!(guard(|| -1, || -> i32 { panic!("inside") }), -1);
    }
}
