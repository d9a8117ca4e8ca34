//! Summary statistics for results: the Wilson score interval for a win rate. It lives in the
//! lowest layer because both the match summaries (arena) and the report above them use it.

/// z for a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Wilson score interval for `wins` successes in `n` trials at normal quantile `z`
/// (Wilson 1927; Newcombe 1998, method 3). Returns `(low, high)`; `(0, 1)` when `n = 0`.
pub fn wilson(wins: f64, n: f64, z: f64) -> (f64, f64) {
    if n <= 0.0 {
        return (0.0, 1.0);
    }
    let p = wins / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = p + z2 / (2.0 * n);
    let spread = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    (
        ((centre - spread) / denom).max(0.0),
        ((centre + spread) / denom).min(1.0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Newcombe (1998), "Two-sided confidence intervals for the single proportion",
    /// Statistics in Medicine 17:857-872, Table II, method 3 (Wilson score, no continuity
    /// correction), to four decimals.
    #[test]
    fn wilson_matches_newcombe_1998() {
        let cases = [
            (81.0, 263.0, 0.2553, 0.3662),
            (15.0, 148.0, 0.0624, 0.1605),
            (0.0, 20.0, 0.0, 0.1611),
            (1.0, 29.0, 0.0061, 0.1718),
        ];
        for (x, n, lo, hi) in cases {
            let (l, h) = wilson(x, n, Z95);
            assert!((l - lo).abs() < 6e-5, "{x}/{n}: low {l} vs {lo}");
            assert!((h - hi).abs() < 6e-5, "{x}/{n}: high {h} vs {hi}");
        }
        assert_eq!(wilson(0.0, 0.0, Z95), (0.0, 1.0));
    }

    #[test]
    fn wilson_is_symmetric() {
        let (l, h) = wilson(3.0, 10.0, Z95);
        let (l2, h2) = wilson(7.0, 10.0, Z95);
        assert!((l - (1.0 - h2)).abs() < 1e-12 && (h - (1.0 - l2)).abs() < 1e-12);
    }
}
