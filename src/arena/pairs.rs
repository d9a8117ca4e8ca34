//! Paired games and their statistics, as engine testers score them (cutechess-cli,
//! fishtest): each opening is played twice with colours swapped, and the unit of the
//! statistics is the pair, not the game, so the opening's own bias (one side's position is
//! better) cancels within a pair instead of adding noise.
//!
//! A pair's score for player A is 0, 0.5, 1, 1.5 or 2; the five counts are the
//! pentanomial. The Elo and its 95% interval follow fishtest's `stat_util.get_elo`: the
//! mean score a game and its variance from the pair scores (so the correlation of the two
//! games of a pair is in the variance), a normal interval for the mean, and each end turned
//! into Elo. The same formulas over the win/draw/loss counts give the trinomial figure,
//! which treats games as independent; both are shown so the difference can be read off.
//! The sequential test on pair frequencies is [`super::sprt::Sprt::llr_frequencies`].

use serde::Serialize;

use crate::util::stats::Z95;

/// A pentanomial: pairs by A's score in them (index = twice the score: 0 = lost both, 4 =
/// won both).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Pentanomial {
    pub counts: [u32; 5],
}

impl Pentanomial {
    /// Counts one pair whose score for A is `score` (0, 0.5, 1, 1.5 or 2; anything else is
    /// rounded to the nearest half).
    pub fn add(&mut self, score: f64) {
        let i = (score * 2.0).round().clamp(0.0, 4.0) as usize;
        self.counts[i] += 1;
    }

    /// The pentanomial of a run of pair scores.
    pub fn of(scores: impl IntoIterator<Item = f64>) -> Pentanomial {
        let mut p = Pentanomial::default();
        for s in scores {
            p.add(s);
        }
        p
    }

    pub fn pairs(&self) -> u32 {
        self.counts.iter().sum()
    }

    /// The counts as frequencies for [`elo_of_frequencies`] and the sequential test.
    pub fn frequencies(&self) -> [f64; 5] {
        self.counts.map(f64::from)
    }

    /// The Elo from the pairs (`None` with no pair).
    pub fn elo(&self) -> Option<EloEstimate> {
        elo_of_frequencies(&self.frequencies())
    }
}

/// An Elo estimate with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EloEstimate {
    pub elo: f64,
    /// Half the interval's width, as fishtest prints it (`elo ± half`).
    pub half_width: f64,
    /// The interval's ends.
    pub lo: f64,
    pub hi: f64,
    /// A's mean score a game.
    pub score: f64,
    /// Games the frequencies stand for (twice the pairs of a pentanomial).
    pub games: f64,
}

impl std::fmt::Display for EloEstimate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:+.1} ± {:.1} [{:+.1}, {:+.1}]",
            self.elo, self.half_width, self.lo, self.hi
        )
    }
}

/// fishtest's Elo of a score (`stat_util.elo`): the score kept within [0.001, 0.999].
pub fn elo_of_score(x: f64) -> f64 {
    let x = x.clamp(1e-3, 1.0 - 1e-3);
    -400.0 * (1.0 / x - 1.0).log10()
}

/// fishtest's regularisation: an empty cell counts as 0.001, so a one-sided record still
/// has a variance and every cell a probability.
pub fn regularize(freqs: &[f64]) -> Vec<f64> {
    freqs
        .iter()
        .map(|&f| if f == 0.0 { 1e-3 } else { f })
        .collect()
}

/// The Elo and its 95% interval from frequencies of length `2n + 1` (3: losses, draws,
/// wins; 5: the pentanomial), by fishtest's `get_elo`: `games = N * n`, the mean score a
/// game `mu`, the variance a game `var` (the unit's variance divided by `n`), and
/// `mu ± z * sqrt(var / games)` turned into Elo. `None` with no results.
pub fn elo_of_frequencies(freqs: &[f64]) -> Option<EloEstimate> {
    if freqs.len() < 3 || freqs.len().is_multiple_of(2) || freqs.iter().sum::<f64>() <= 0.0 {
        return None;
    }
    let r = regularize(freqs);
    let l = r.len();
    let n = r.iter().sum::<f64>();
    let per_unit = (l - 1) as f64 / 2.0;
    let games = n * per_unit;
    // A unit's score is i / 2 (a game's 0, 0.5, 1; a pair's 0 to 2).
    let mu = r
        .iter()
        .enumerate()
        .map(|(i, c)| c * i as f64 / 2.0)
        .sum::<f64>()
        / games;
    let unit_mean = per_unit * mu;
    let var = r
        .iter()
        .enumerate()
        .map(|(i, c)| c * (i as f64 / 2.0 - unit_mean).powi(2))
        .sum::<f64>()
        / games;
    let se = (var / games).sqrt();
    let (lo, hi) = (elo_of_score(mu - Z95 * se), elo_of_score(mu + Z95 * se));
    Some(EloEstimate {
        elo: elo_of_score(mu),
        half_width: (hi - lo) / 2.0,
        lo,
        hi,
        score: mu,
        games: freqs.iter().sum::<f64>() * per_unit,
    })
}

/// The trinomial figure of a run of game scores (1 win, 0.5 draw, 0 loss).
pub fn trinomial_elo(scores: impl IntoIterator<Item = f64>) -> Option<EloEstimate> {
    let mut counts = [0.0; 3];
    for s in scores {
        counts[(s * 2.0).round().clamp(0.0, 2.0) as usize] += 1.0;
    }
    elo_of_frequencies(&counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_counted_by_twice_their_score() {
        let p = Pentanomial::of([0.0, 0.5, 1.0, 1.0, 1.5, 2.0, 2.0, 2.0]);
        assert_eq!(p.counts, [1, 1, 2, 1, 3]);
        assert_eq!(p.pairs(), 8);
        assert!(Pentanomial::default().elo().is_none());
    }

    /// fishtest's own example in `stat_util.py`: pentanomial [10789, 19328, 33806, 19402,
    /// 10543] gives -0.77 ± 1.28 Elo (mu = 0.498887 a game; the figures recomputed here
    /// from the formulas themselves).
    #[test]
    fn the_pentanomial_elo_follows_fishtests_formulas() {
        let counts = [10789.0, 19328.0, 33806.0, 19402.0, 10543.0];
        let e = elo_of_frequencies(&counts).unwrap();
        let n: f64 = counts.iter().sum();
        let mu = (counts[1] * 0.5 + counts[2] + counts[3] * 1.5 + counts[4] * 2.0) / (2.0 * n);
        let var = counts
            .iter()
            .enumerate()
            .map(|(i, c)| c * (i as f64 / 2.0 - 2.0 * mu).powi(2))
            .sum::<f64>()
            / (2.0 * n);
        assert!((e.score - mu).abs() < 1e-12);
        let se = (var / (2.0 * n)).sqrt();
        let want = (elo_of_score(mu + Z95 * se) - elo_of_score(mu - Z95 * se)) / 2.0;
        assert!((e.half_width - want).abs() < 1e-9);
        assert!((e.elo - elo_of_score(mu)).abs() < 1e-12);
        assert!(
            (e.elo + 0.774).abs() < 0.001 && (e.half_width - 1.278).abs() < 0.001,
            "{e}"
        );
        assert_eq!(e.games, 2.0 * n);
    }

    /// Pairs whose two games agree (the opening decides) have a larger variance than the
    /// same games scored as independent: the pentanomial interval is wider.
    #[test]
    fn correlated_pairs_widen_the_interval() {
        // 30 pairs won twice, 20 lost twice: 60 wins, 40 losses.
        let p = Pentanomial::of((0..50).map(|i| if i < 30 { 2.0 } else { 0.0 }));
        let paired = p.elo().unwrap();
        let games = trinomial_elo((0..100).map(|i| if i < 60 { 1.0 } else { 0.0 })).unwrap();
        assert!((paired.elo - games.elo).abs() < 0.1);
        assert!(
            paired.half_width > 1.3 * games.half_width,
            "{paired} vs {games}"
        );
        // Pairs split 1-1 in every opening: no information about the players beyond 0.
        let split = Pentanomial::of((0..50).map(|_| 1.0)).elo().unwrap();
        assert!(split.elo.abs() < 1e-9 && split.half_width < 5.0, "{split}");
    }
}
