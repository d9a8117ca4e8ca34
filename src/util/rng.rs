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

    /// A standard normal draw (Box-Muller; the second value is dropped, so a draw is a pure
    /// function of the state before it).
    pub fn normal(&mut self) -> f64 {
        let u = 1.0 - self.unit(); // (0, 1]
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// A Gamma(`shape`, 1) draw (Marsaglia and Tsang 2000; for `shape < 1` the boost
    /// `Gamma(shape + 1) * U^(1/shape)`). `shape` must be positive.
    pub fn gamma(&mut self, shape: f64) -> f64 {
        if shape < 1.0 {
            let u = 1.0 - self.unit();
            return self.gamma(shape + 1.0) * u.powf(1.0 / shape);
        }
        let d = shape - 1.0 / 3.0;
        let c = 1.0 / (9.0 * d).sqrt();
        loop {
            let x = self.normal();
            let v = (1.0 + c * x).powi(3);
            if v <= 0.0 {
                continue;
            }
            let u = 1.0 - self.unit();
            if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
                return d * v;
            }
        }
    }

    /// Fills `out` with a draw from the symmetric Dirichlet distribution of concentration
    /// `alpha` (normalised Gamma draws; AlphaZero's root noise).
    pub fn dirichlet(&mut self, alpha: f64, out: &mut [f64]) {
        for o in out.iter_mut() {
            *o = self.gamma(alpha);
        }
        let sum: f64 = out.iter().sum();
        if sum > 0.0 {
            out.iter_mut().for_each(|o| *o /= sum);
        } else if !out.is_empty() {
            // Every draw underflowed (tiny alpha): all the mass on one entry, as the limit.
            let k = self.below(out.len() as u32) as usize;
            out.iter_mut()
                .enumerate()
                .for_each(|(i, o)| *o = f64::from(u8::from(i == k)));
        }
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
    fn gamma_and_dirichlet_have_their_moments() {
        let mut r = FastRng::new(9);
        for shape in [0.1, 0.5, 1.0, 3.0] {
            let n = 200_000;
            let draws: Vec<f64> = (0..n).map(|_| r.gamma(shape)).collect();
            let mean = draws.iter().sum::<f64>() / n as f64;
            let var = draws.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
            // Gamma(k, 1): mean k, variance k.
            assert!(
                (mean - shape).abs() < 0.02 * shape.max(0.5),
                "{shape}: mean {mean}"
            );
            assert!(
                (var - shape).abs() < 0.06 * shape.max(0.5),
                "{shape}: var {var}"
            );
        }
        let mut d = [0.0; 10];
        let mut first = 0.0;
        for _ in 0..20_000 {
            r.dirichlet(0.15, &mut d);
            assert!((d.iter().sum::<f64>() - 1.0).abs() < 1e-9);
            first += d[0];
        }
        assert!(
            (first / 20_000.0 - 0.1).abs() < 0.01,
            "{}",
            first / 20_000.0
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
