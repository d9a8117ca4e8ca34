//! Elo, the logistic scale every rating, sequential test and gate in akushu speaks: a
//! difference of `d` points means an expected score of `1 / (1 + 10^(-d / 400))`.

/// Elo points per natural-log unit of the odds (`400 / ln 10`): a Bradley-Terry strength
/// ratio `r` is `ln(r) * ELO_PER_NAT` points.
pub const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// The expected score of a player `elo` points stronger.
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference a share `s` of points over `n` games means (the share kept half a game
/// from 0 and 1, so a clean sweep gives a finite number).
pub fn elo_of_share(s: f64, n: u32) -> f64 {
    let n = f64::from(n.max(1));
    let s = s.clamp(0.5 / n, 1.0 - 0.5 / n);
    -400.0 * (1.0 / s - 1.0).log10()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The three forms agree: a share is the expected score of its Elo, and the natural-log
    /// constant turns odds into the same points.
    #[test]
    fn shares_odds_and_points_are_one_scale() {
        for elo in [-400.0, -35.0, 0.0, 35.0, 191.0, 400.0] {
            let s = expected_score(elo);
            assert!((elo_of_share(s, 1_000_000) - elo).abs() < 1e-6, "{elo}");
            assert!(
                ((s / (1.0 - s)).ln() * ELO_PER_NAT - elo).abs() < 1e-9,
                "{elo}"
            );
        }
        assert!((expected_score(0.0) - 0.5).abs() < 1e-15);
        assert!((elo_of_share(0.75, 4) - 190.8).abs() < 0.1);
        // A clean sweep of 4 games counts as 3.5 of 4.
        assert_eq!(elo_of_share(1.0, 4), elo_of_share(0.875, 4));
    }
}
