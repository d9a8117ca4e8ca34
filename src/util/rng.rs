//! The fast seeded generator used in playouts and search.
//!
//! wyrand (Wang Yi's generator): one 64-bit state, one multiply per draw, passes PractRand
//! and BigCrush. Written here rather than taken from `rand` because its output must never
//! change under a dependency upgrade: a logged seed has to replay the same game forever.
//! `rand` serves everything that is not on the hot path (dataset splits, shuffles).

/// Seeded wyrand generator. Same seed, same sequence, on every platform.
#[derive(Clone, Debug)]
pub struct FastRng {
    state: u64,
}

impl FastRng {
    pub fn new(seed: u64) -> FastRng {
        FastRng { state: seed }
    }

    /// A generator for stream `stream` of a run seeded with `seed` (threads, games, ...):
    /// distinct streams get unrelated sequences.
    pub fn for_stream(seed: u64, stream: u64) -> FastRng {
        FastRng::new(mix64(
            seed ^ mix64(stream.wrapping_add(0x9E37_79B9_7F4A_7C15)),
        ))
    }

    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0xa076_1d64_78bd_642f);
        let t = (self.state as u128).wrapping_mul((self.state ^ 0xe703_7ed1_a0b4_28db) as u128);
        ((t >> 64) ^ t) as u64
    }

    /// A number in `0..n` (Lemire's multiply-shift; the bias is below 2^-32 for n <= 2^32).
    #[inline(always)]
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * n as u64) >> 32) as u32
    }

    /// A float in `[0, 1)`.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// splitmix64's finaliser: a good 64-bit mixing function for deriving seeds.
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_sequence_and_range() {
        let mut a = FastRng::new(7);
        let mut b = FastRng::new(7);
        for _ in 0..1000 {
            assert_eq!(a.next_u64(), b.next_u64());
            assert!(a.below(81) < 81);
            b.below(81);
        }
        assert_ne!(
            FastRng::for_stream(1, 0).next_u64(),
            FastRng::for_stream(1, 1).next_u64()
        );
    }

    #[test]
    fn below_is_roughly_uniform() {
        let mut r = FastRng::new(42);
        let mut counts = [0u32; 10];
        for _ in 0..100_000 {
            counts[r.below(10) as usize] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
    }
}
