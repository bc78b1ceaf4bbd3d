//! A small random number generator whose output never changes between versions.
//!
//! Determinism is a feature of numaplace: the same inputs and seed give byte-identical results.
//! External RNG crates may change their streams between releases, so the model carries its own
//! SplitMix64 (Steele, Lea and Flood, OOPSLA 2014), which is fast and passes BigCrush when used
//! as below.

/// SplitMix64: a 64-bit state advanced by a Weyl sequence and mixed by a finaliser.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose stream is determined by `seed` alone.
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix64(self.state)
    }

    /// A uniform integer in `0..n` (`n > 0`), by Lemire's multiply-shift (bias below 2^-32 for
    /// the sizes used here).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// A uniform float in `[0, 1)`.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// The SplitMix64 finaliser: a bijective mix of 64 bits, usable as a stateless hash.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Derives an independent seed for a named stream (a thread, a policy) from a run seed.
pub fn derive(seed: u64, stream: u64) -> u64 {
    mix64(seed ^ mix64(stream.wrapping_add(0x632B_E59B_D9B4_E019)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_is_fixed() {
        // The first outputs for seed 0 are part of the determinism contract: if this changes,
        // every recorded result changes.
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn below_is_in_range_and_covers() {
        let mut r = SplitMix64::new(7);
        let mut seen = [0u32; 5];
        for _ in 0..10_000 {
            let v = r.below(5) as usize;
            seen[v] += 1;
        }
        for s in seen {
            assert!((1800..2200).contains(&s), "{seen:?}");
        }
    }
}
