//! Summary statistics for results: the Wilson score interval for a win rate, the normal
//! quantile for multiplicity-adjusted intervals, exact binomial tails (one-sided tests
//! against a target, McNemar's paired test), Holm's step-down adjustment and the chi-squared
//! test of equal rates. It lives in the lowest layer because both the match summaries (arena)
//! and the report above them use it.

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

/// The standard normal quantile (inverse CDF) at `p` in (0, 1): Acklam's rational
/// approximation (relative error under 1.2e-9), enough for interval widths.
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let p = p.clamp(1e-300, 1.0 - 1e-16);
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.02425 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// z of a two-sided interval with family-wise confidence 95% over `m` intervals
/// (Bonferroni: each at 1 - 0.05 / m).
pub fn bonferroni_z(m: usize) -> f64 {
    normal_quantile(1.0 - 0.025 / m.max(1) as f64)
}

/// ln C(n, k).
fn ln_choose(n: u64, k: u64) -> f64 {
    ln_gamma(n as f64 + 1.0) - ln_gamma(k as f64 + 1.0) - ln_gamma((n - k) as f64 + 1.0)
}

/// ln Gamma(x) for x > 0 (Lanczos, g = 7, 9 terms: about 15 digits).
pub fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection.
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        a += g / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// P(X >= k) for X ~ Binomial(n, p), summed exactly term by term in log space.
pub fn binomial_upper_tail(k: u64, n: u64, p: f64) -> f64 {
    if k == 0 {
        return 1.0;
    }
    if k > n {
        return 0.0;
    }
    if p <= 0.0 {
        return 0.0;
    }
    if p >= 1.0 {
        return 1.0;
    }
    (k..=n)
        .map(|i| (ln_choose(n, i) + i as f64 * p.ln() + (n - i) as f64 * (1.0 - p).ln()).exp())
        .sum::<f64>()
        .min(1.0)
}

/// McNemar's exact test on paired games: `b` pairs won only by the first arm, `c` only by
/// the second. Two-sided p-value (twice the smaller binomial tail at 1/2, at most 1).
pub fn mcnemar_exact(b: u64, c: u64) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    (2.0 * binomial_upper_tail(b.max(c), n, 0.5)).min(1.0)
}

/// Holm's step-down adjustment of `p` (family-wise error control, any dependence): the
/// adjusted p-values in the input order.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut out = vec![0.0; m];
    let mut running = 0.0f64;
    for (rank, &i) in order.iter().enumerate() {
        running = running.max(((m - rank) as f64 * p[i]).min(1.0));
        out[i] = running;
    }
    out
}

/// Pearson's chi-squared test that `k` win rates are equal: (statistic, degrees of freedom,
/// p-value) over `(wins, games)` pairs; none with fewer than two groups or no variation.
pub fn chi_squared_equal_rates(groups: &[(u64, u64)]) -> Option<(f64, usize, f64)> {
    let (w, n): (u64, u64) = groups.iter().fold((0, 0), |(w, n), &(a, b)| (w + a, n + b));
    let groups: Vec<&(u64, u64)> = groups.iter().filter(|g| g.1 > 0).collect();
    if groups.len() < 2 || w == 0 || w == n {
        return None;
    }
    let pooled = w as f64 / n as f64;
    let stat: f64 = groups
        .iter()
        .map(|&&(wins, games)| {
            let e_win = games as f64 * pooled;
            let e_loss = games as f64 - e_win;
            let losses = (games - wins) as f64;
            (wins as f64 - e_win).powi(2) / e_win + (losses - e_loss).powi(2) / e_loss
        })
        .sum();
    let df = groups.len() - 1;
    Some((stat, df, chi_squared_upper_tail(stat, df as f64)))
}

/// P(X > x) for X ~ chi-squared with `k` degrees of freedom: the regularised upper
/// incomplete gamma Q(k/2, x/2), by its series below a + 1 and its continued fraction above.
pub fn chi_squared_upper_tail(x: f64, k: f64) -> f64 {
    let (a, x) = (k / 2.0, x / 2.0);
    if x <= 0.0 {
        return 1.0;
    }
    let ln_prefix = a * x.ln() - x - ln_gamma(a);
    if x < a + 1.0 {
        let (mut term, mut sum, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..1000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-15 {
                break;
            }
        }
        (1.0 - sum * ln_prefix.exp()).clamp(0.0, 1.0)
    } else {
        // Lentz's method.
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..1000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            d = if d.abs() < tiny { tiny } else { d };
            c = b + an / c;
            c = if c.abs() < tiny { tiny } else { c };
            d = 1.0 / d;
            let delta = d * c;
            h *= delta;
            if (delta - 1.0).abs() < 1e-15 {
                break;
            }
        }
        (ln_prefix.exp() * h).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_tails_and_adjustments_match_known_values() {
        assert!((normal_quantile(0.975) - Z95).abs() < 1e-8);
        assert!((normal_quantile(0.5)).abs() < 1e-12);
        assert!((normal_quantile(0.001) + 3.090_232_306_167_813).abs() < 1e-7);
        // Six intervals: each at 1 - 0.05 / 6, z = 2.638.
        assert!((bonferroni_z(6) - 2.638_257_273).abs() < 1e-6);
        // P(X >= 8 | n = 10, p = 0.5) = 56 / 1024.
        assert!((binomial_upper_tail(8, 10, 0.5) - 56.0 / 1024.0).abs() < 1e-12);
        assert_eq!(binomial_upper_tail(0, 10, 0.3), 1.0);
        // McNemar on 21 against 17 discordant games: p = 0.627.
        assert!(
            (mcnemar_exact(21, 17) - 0.6271).abs() < 1e-3,
            "{}",
            mcnemar_exact(21, 17)
        );
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        // Holm: sorted 0.01, 0.02, 0.04 -> 0.03, 0.04, 0.04.
        let h = holm(&[0.04, 0.01, 0.02]);
        assert!(
            (h[0] - 0.04).abs() < 1e-12
                && (h[1] - 0.03).abs() < 1e-12
                && (h[2] - 0.04).abs() < 1e-12
        );
        // Chi-squared: P(X > 3.84 | 1 df) = 0.05, P(X > 11.07 | 5 df) = 0.05.
        assert!((chi_squared_upper_tail(3.841_458_8, 1.0) - 0.05).abs() < 1e-6);
        assert!((chi_squared_upper_tail(11.070_497_7, 5.0) - 0.05).abs() < 1e-6);
        assert!((chi_squared_upper_tail(1.0, 10.0) - 0.999_827_8).abs() < 1e-6);
        let (stat, df, p) = chi_squared_equal_rates(&[(30, 50), (20, 50)]).unwrap();
        assert!((stat - 4.0).abs() < 1e-9 && df == 1 && (p - 0.0455).abs() < 1e-3);
        assert_eq!(chi_squared_equal_rates(&[(3, 5)]), None);
    }

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
