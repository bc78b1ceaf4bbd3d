//! YCSB's scrambled Zipfian key generator, written from its algorithm.
//!
//! YCSB (`core/src/main/java/site/ycsb/generator/ScrambledZipfianGenerator.java`) draws a rank
//! from a Zipfian generator over `ITEM_COUNT` = 10^16 items with Zipfian constant 0.99 and the
//! precomputed `ZETAN` = 26.46902820178302, then hashes it with FNV-1a 64 (`Utils.fnvhash64`,
//! eight octets of the rank, low first, then `Math.abs`) and takes it modulo the record count,
//! which scatters the popular keys over the key space. The Zipfian generator
//! (`ZipfianGenerator.java`) is the algorithm of Gray et al., "Quickly Generating
//! Billion-Record Synthetic Databases", SIGMOD 1994: with `u` uniform in [0, 1),
//! rank 0 if `u·zetan < 1`, rank 1 if `u·zetan < 1 + 0.5^theta`, else
//! `items · (eta·u − eta + 1)^alpha`, where `alpha = 1/(1 − theta)` and
//! `eta = (1 − (2/items)^(1−theta)) / (1 − zeta(2)/zetan)`.

use numaplace_model::rng::SplitMix64;

/// YCSB's Zipfian constant (`ZipfianGenerator.ZIPFIAN_CONSTANT`).
pub const THETA: f64 = 0.99;
/// The items YCSB's scrambled generator draws ranks from (`ScrambledZipfianGenerator.ITEM_COUNT`).
pub const ITEM_COUNT: u64 = 10_000_000_000_000_000;
/// YCSB's precomputed zeta (`ScrambledZipfianGenerator.ZETAN`), used as YCSB uses it. It is
/// zeta(10^10, 0.99), not zeta(ITEM_COUNT, 0.99) = 45.12 (test
/// `zeta_matches_direct_sums_and_ycsbs_constant`); YCSB's draws, and ours, follow it.
pub const ZETAN: f64 = 26.469_028_201_783_02;

const FNV_OFFSET_BASIS_64: u64 = 0xCBF2_9CE4_8422_2325;
const FNV_PRIME_64: u64 = 1_099_511_628_211;

/// YCSB's `Utils.fnvhash64`: FNV-1a over the eight octets of `v`, low first, then the absolute
/// value as a signed 64-bit number.
pub fn fnv_hash64(mut v: u64) -> u64 {
    let mut h = FNV_OFFSET_BASIS_64;
    for _ in 0..8 {
        h ^= v & 0xff;
        h = h.wrapping_mul(FNV_PRIME_64);
        v >>= 8;
    }
    (h as i64).wrapping_abs() as u64
}

/// zeta(n, theta) = sum of i^-theta for i in 1..=n: exactly up to 10^5 terms, then the
/// Euler–Maclaurin tail (integral, end corrections and the first derivative term).
pub fn zeta(n: u64, theta: f64) -> f64 {
    const EXACT: u64 = 100_000;
    let m = n.min(EXACT);
    let mut sum: f64 = (1..=m).rev().map(|i| (i as f64).powf(-theta)).sum();
    if n > m {
        let (a, b) = (m as f64, n as f64);
        let f = |x: f64| x.powf(-theta);
        let df = |x: f64| -theta * x.powf(-theta - 1.0);
        let integral = (b.powf(1.0 - theta) - a.powf(1.0 - theta)) / (1.0 - theta);
        sum += integral + (f(b) - f(a)) / 2.0 + (df(b) - df(a)) / 12.0;
    }
    sum
}

/// A scrambled Zipfian key generator over `records` keys.
#[derive(Clone, Debug)]
pub struct ScrambledZipf {
    records: u64,
    items: f64,
    alpha: f64,
    eta: f64,
    second: f64,
}

impl ScrambledZipf {
    pub fn new(records: u64) -> Self {
        // YCSB builds `new ZipfianGenerator(0, ITEM_COUNT, ...)`: min 0, max ITEM_COUNT, so
        // ITEM_COUNT + 1 items.
        let items = ITEM_COUNT as f64 + 1.0;
        let zeta2 = zeta(2, THETA);
        let eta = (1.0 - (2.0 / items).powf(1.0 - THETA)) / (1.0 - zeta2 / ZETAN);
        ScrambledZipf { records, items, alpha: 1.0 / (1.0 - THETA), eta, second: 1.0 + 0.5f64.powf(THETA) }
    }

    /// The Zipfian rank (0 the most popular) of one draw.
    #[inline]
    pub fn rank(&self, rng: &mut SplitMix64) -> u64 {
        let u = rng.unit();
        let uz = u * ZETAN;
        if uz < 1.0 {
            0
        } else if uz < self.second {
            1
        } else {
            (self.items * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64
        }
    }

    /// The key of one draw, in `0..records`.
    #[inline]
    pub fn key(&self, rng: &mut SplitMix64) -> u64 {
        fnv_hash64(self.rank(rng)) % self.records
    }

    /// The most popular key (rank 0's).
    #[cfg(test)]
    pub fn hottest(&self) -> u64 {
        fnv_hash64(0) % self.records
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeta_matches_direct_sums_and_ycsbs_constant() {
        for n in [1u64, 2, 1000, 250_000, 1_000_000] {
            let direct: f64 = (1..=n).rev().map(|i| (i as f64).powf(-THETA)).sum();
            assert!((zeta(n, THETA) - direct).abs() < 1e-9 * direct, "n={n}");
        }
        // YCSB's ZETAN is zeta over 10^10 items, not over its ITEM_COUNT of 10^16 (45.12): the
        // generator keeps YCSB's constant, so its head has YCSB's probabilities.
        let z = zeta(10_000_000_000, THETA);
        assert!((z - ZETAN).abs() < 1e-9 * ZETAN, "{z} vs {ZETAN}");
        let full = zeta(ITEM_COUNT, THETA);
        assert!((full - 45.1205).abs() < 1e-3, "{full}");
    }

    #[test]
    fn fnv_hash_is_fnv1a_over_eight_octets() {
        // FNV-1a of eight zero octets, by hand: each step xors 0 and multiplies.
        let mut h = FNV_OFFSET_BASIS_64;
        for _ in 0..8 {
            h = h.wrapping_mul(FNV_PRIME_64);
        }
        assert_eq!(fnv_hash64(0), (h as i64).wrapping_abs() as u64);
        assert_ne!(fnv_hash64(1), fnv_hash64(256));
    }

    #[test]
    fn ranks_follow_the_zipfian_head() {
        let z = ScrambledZipf::new(1000);
        let mut rng = SplitMix64::new(11);
        let n = 400_000;
        let (mut r0, mut r1) = (0u32, 0u32);
        for _ in 0..n {
            match z.rank(&mut rng) {
                0 => r0 += 1,
                1 => r1 += 1,
                _ => {}
            }
        }
        let (p0, p1) = (1.0 / ZETAN, 0.5f64.powf(THETA) / ZETAN);
        assert!((r0 as f64 / n as f64 - p0).abs() < 0.002, "{r0}");
        assert!((r1 as f64 / n as f64 - p1).abs() < 0.002, "{r1}");
    }
}
