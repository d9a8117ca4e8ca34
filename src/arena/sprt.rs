//! A sequential test for a match: Wald's SPRT on player A's results, as Leela Zero's network
//! validation and fishtest decide whether a change is an improvement, so a match stops as soon
//! as its games decide instead of after a fixed count.
//!
//! H0: A's expected score is that of an Elo difference `elo0` over B; H1: that of `elo1`
//! (logistic Elo, score = 1 / (1 + 10^(-elo/400))). After each game, in game order, the
//! log-likelihood ratio of the results so far is compared with Wald's bounds
//! `ln(beta / (1 - alpha))` (accept H0) and `ln((1 - beta) / alpha)` (accept H1); the first
//! game that crosses one decides. 9x9 with a half-point komi has no draws, so each game is a
//! Bernoulli trial and the ratio is exact; a draw (a capped game that ends level) counts as
//! half a win and half a loss.
//!
//! Games are counted in game-number order from game 1 (the games a resumed or parallel run
//! has finished past a gap wait for it), so the decision and the game that made it do not
//! depend on `--jobs` or on interruptions; games still in flight when it comes are played
//! and recorded, but do not change it.
//!
//! A paired match (`--pairs`: each opening twice, colours swapped) is tested on its pairs
//! instead, as fishtest does: after each complete pair, the generalized log-likelihood ratio
//! of the pentanomial frequencies so far ([`Sprt::llr_frequencies`], fishtest's
//! `LLR_logistic`): under each hypothesis the maximum-likelihood distribution of pair
//! scores whose mean is that hypothesis' score, found from the observed frequencies by the
//! secular equation of fishtest's `MLE_expected`. fishtest's dynamic overshoot correction
//! of the bounds is not applied (the bounds are Wald's, as above).

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

/// The test's hypotheses and error rates (`elo0=0,elo1=35,alpha=0.05,beta=0.05`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    /// Elo difference of A over B under H0.
    pub elo0: f64,
    /// Elo difference under H1 (above `elo0`).
    pub elo1: f64,
    /// Probability of accepting H1 when H0 holds.
    pub alpha: f64,
    /// Probability of accepting H0 when H1 holds.
    pub beta: f64,
}

/// What the games so far say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// H0 accepted: A is not `elo1` better.
    H0,
    /// H1 accepted: A is better than `elo0`.
    H1,
    /// Neither bound crossed yet.
    Undecided,
}

/// A test as a file spells it (`sprt = "elo0=0,elo1=35"` in an experiment's `[match]` or a
/// loop's `[gate]`): parsed when the file is read (a bad one is refused with the file's line),
/// and written back as the same text, so a config written again is byte-identical.
#[derive(Debug, Clone, PartialEq)]
pub struct SprtText {
    text: String,
    test: Sprt,
}

impl SprtText {
    /// The parsed test.
    pub fn test(&self) -> Sprt {
        self.test
    }
}

impl std::str::FromStr for SprtText {
    type Err = String;
    fn from_str(text: &str) -> Result<SprtText, String> {
        let test = Sprt::parse(text).map_err(|e| format!("{e:#}"))?;
        Ok(SprtText {
            text: text.to_string(),
            test,
        })
    }
}

impl std::fmt::Display for SprtText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

crate::serde_as_text!(SprtText);

/// The test after a run of games.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SprtState {
    pub decision: Decision,
    /// Games counted: up to and including the deciding one.
    pub games: usize,
    /// A's score in them (wins, draws as halves).
    pub score: f64,
    /// The log-likelihood ratio after them.
    pub llr: f64,
    /// Pairs counted, where the test ran on pairs ([`Sprt::run_pairs`]).
    pub pairs: Option<usize>,
}

pub use crate::util::elo::expected_score;

impl Sprt {
    /// Parses `elo0=E0,elo1=E1[,alpha=A][,beta=B]` (alpha and beta default to 0.05).
    pub fn parse(text: &str) -> anyhow::Result<Sprt> {
        let (mut elo0, mut elo1) = (None, None);
        let (mut alpha, mut beta) = (0.05, 0.05);
        let mut seen: Vec<&str> = Vec::new();
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (key, value) = item
                .split_once('=')
                .with_context(|| format!("--sprt `{text}`: `{item}` is not KEY=VALUE"))?;
            // A key given twice would silently keep one of the two values.
            if seen.contains(&key.trim()) {
                bail!("--sprt `{text}`: {} is given twice", key.trim());
            }
            seen.push(key.trim());
            let v: f64 = value
                .trim()
                .parse()
                .with_context(|| format!("--sprt `{text}`: {key} `{value}` is not a number"))?;
            match key.trim() {
                "elo0" => elo0 = Some(v),
                "elo1" => elo1 = Some(v),
                "alpha" => alpha = v,
                "beta" => beta = v,
                other => bail!("--sprt `{text}`: unknown key `{other}` (elo0, elo1, alpha, beta)"),
            }
        }
        let (Some(elo0), Some(elo1)) = (elo0, elo1) else {
            bail!("--sprt `{text}`: give elo0 and elo1, e.g. elo0=0,elo1=35");
        };
        let s = Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        };
        s.validate()?;
        Ok(s)
    }

    /// Checks the ranges: `elo0 < elo1` within ±2000, error rates in (0, 0.5).
    pub fn validate(&self) -> anyhow::Result<()> {
        let finite = [self.elo0, self.elo1, self.alpha, self.beta]
            .iter()
            .all(|v| v.is_finite());
        if !finite || self.elo0.abs() > 2000.0 || self.elo1.abs() > 2000.0 {
            bail!("sprt: elo0 and elo1 must be numbers within ±2000");
        }
        if self.elo0 >= self.elo1 {
            bail!(
                "sprt: elo0 ({}) must be below elo1 ({})",
                self.elo0,
                self.elo1
            );
        }
        for (name, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(v > 0.0 && v < 0.5) {
                bail!("sprt: {name} {v} must be between 0 and 0.5");
            }
        }
        Ok(())
    }

    /// Wald's bounds on the log-likelihood ratio: (accept H0 at or below, accept H1 at or
    /// above).
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of H1 against H0 after `score` of `games` for A.
    pub fn llr(&self, score: f64, games: f64) -> f64 {
        let (p0, p1) = (expected_score(self.elo0), expected_score(self.elo1));
        score * (p1 / p0).ln() + (games - score) * ((1.0 - p1) / (1.0 - p0)).ln()
    }

    /// Runs the test over A's scores (1 win, 0.5 draw, 0 loss) in game order, stopping at
    /// the first game that decides.
    pub fn run(&self, scores: impl IntoIterator<Item = f64>) -> SprtState {
        let (lower, upper) = self.bounds();
        let mut state = SprtState {
            decision: Decision::Undecided,
            games: 0,
            score: 0.0,
            llr: 0.0,
            pairs: None,
        };
        for s in scores {
            state.games += 1;
            state.score += s;
            state.llr = self.llr(state.score, state.games as f64);
            state.decision = decision_at(state.llr, lower, upper);
            if state.decision != Decision::Undecided {
                break;
            }
        }
        state
    }

    /// fishtest's generalized log-likelihood ratio (`LLRcalc.LLR_logistic`) of frequencies
    /// of length `2n + 1` (the pentanomial, or losses, draws and wins): the frequencies
    /// regularized (an empty cell counts 0.001), unit scores `i / 2n` as a game's mean, and
    /// `N * sum p_i (ln q1_i - ln q0_i)` where `q_k` is the maximum-likelihood distribution
    /// with mean `expected_score(elo_k)`.
    pub fn llr_frequencies(&self, freqs: &[f64]) -> f64 {
        let r = super::pairs::regularize(freqs);
        let n: f64 = r.iter().sum();
        if r.len() < 2 || n <= 0.0 {
            return 0.0;
        }
        let last = (r.len() - 1) as f64;
        let pdf: Vec<(f64, f64)> = r
            .iter()
            .enumerate()
            .map(|(i, c)| (i as f64 / last, c / n))
            .collect();
        let (s0, s1) = (expected_score(self.elo0), expected_score(self.elo1));
        let (x0, x1) = (secular_root(&pdf, s0), secular_root(&pdf, s1));
        n * pdf
            .iter()
            .map(|&(a, p)| p * ((1.0 + x0 * (a - s0)).ln() - (1.0 + x1 * (a - s1)).ln()))
            .sum::<f64>()
    }

    /// Runs the test over A's pair scores (0, 0.5, 1, 1.5, 2) in pair order on the
    /// pentanomial frequencies, stopping at the first pair that decides. `games` counts
    /// both games of every pair counted.
    pub fn run_pairs(&self, pair_scores: impl IntoIterator<Item = f64>) -> SprtState {
        let (lower, upper) = self.bounds();
        let mut counts = super::pairs::Pentanomial::default();
        let mut state = SprtState {
            decision: Decision::Undecided,
            games: 0,
            score: 0.0,
            llr: 0.0,
            pairs: Some(0),
        };
        for s in pair_scores {
            counts.add(s);
            state.games += 2;
            state.score += s;
            state.pairs = Some(counts.pairs() as usize);
            state.llr = self.llr_frequencies(&counts.frequencies());
            state.decision = decision_at(state.llr, lower, upper);
            if state.decision != Decision::Undecided {
                break;
            }
        }
        state
    }

    /// The summary line: hypotheses, bounds, LLR and the decision.
    pub fn describe(&self, state: &SprtState) -> String {
        let (lower, upper) = self.bounds();
        let decision = match state.decision {
            Decision::H1 => format!("**H1 accepted** (A is better than {} Elo)", self.elo0),
            Decision::H0 => format!("**H0 accepted** (A is not {} Elo better)", self.elo1),
            Decision::Undecided => "undecided".to_string(),
        };
        let pairs = state.pairs.map_or(String::new(), |p| {
            format!(
                " in {p} pair{}, on pentanomial frequencies",
                if p == 1 { "" } else { "s" }
            )
        });
        format!(
            "SPRT elo0={} elo1={} alpha={} beta={}: {decision} after {} games{pairs} (A scored \
             {}), LLR {:.3}, bounds [{lower:.3}, {upper:.3}]",
            self.elo0, self.elo1, self.alpha, self.beta, state.games, state.score, state.llr
        )
    }
}

/// The decision at log-likelihood ratio `llr` between Wald's bounds: H1 at or above the
/// upper, H0 at or below the lower.
fn decision_at(llr: f64, lower: f64, upper: f64) -> Decision {
    if llr >= upper {
        Decision::H1
    } else if llr <= lower {
        Decision::H0
    } else {
        Decision::Undecided
    }
}

/// The root `x` of fishtest's secular equation `sum_i p_i (a_i - s) / (1 + x (a_i - s)) = 0`
/// (`LLRcalc.secular` on `MLE_expected`'s shifted values): the maximum-likelihood
/// distribution with mean `s` is `p_i / (1 + x (a_i - s))`. The left side falls from
/// +infinity to -infinity on `(-1 / (max a - s), 1 / (s - min a))`, so bisection finds its
/// one root; `s` must lie strictly between the smallest and largest value.
fn secular_root(pdf: &[(f64, f64)], s: f64) -> f64 {
    let f = |x: f64| {
        pdf.iter()
            .map(|&(a, p)| p * (a - s) / (1.0 + x * (a - s)))
            .sum::<f64>()
    };
    let hi_value = pdf.iter().map(|&(a, _)| a).fold(f64::MIN, f64::max) - s;
    let lo_value = pdf.iter().map(|&(a, _)| a).fold(f64::MAX, f64::min) - s;
    let (mut lo, mut hi) = (-1.0 / hi_value, -1.0 / lo_value);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::rng::FastRng;

    #[test]
    fn a_key_given_twice_is_refused() {
        let err = Sprt::parse("elo0=0,elo1=35,elo0=50").unwrap_err();
        assert!(
            format!("{err:#}").contains("elo0 is given twice"),
            "{err:#}"
        );
    }

    #[test]
    fn parses_checks_and_names_its_errors() {
        let s = Sprt::parse("elo0=0, elo1=35").unwrap();
        assert_eq!((s.elo0, s.elo1, s.alpha, s.beta), (0.0, 35.0, 0.05, 0.05));
        let s = Sprt::parse("elo0=-10,elo1=10,alpha=0.1,beta=0.2").unwrap();
        assert_eq!((s.alpha, s.beta), (0.1, 0.2));
        for (bad, says) in [
            ("elo0=0", "give elo0 and elo1"),
            ("elo0=35,elo1=0", "must be below"),
            ("elo0=0,elo1=35,alpha=0.7", "alpha"),
            ("elo0=0,elo1=x", "not a number"),
            ("elo0=0,elo1=35,gamma=1", "unknown key"),
            ("elo0=0,elo1=inf", "within"),
        ] {
            let e = format!("{:#}", Sprt::parse(bad).unwrap_err());
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn llr_and_bounds_match_walds_formulas() {
        let s = Sprt::parse("elo0=0,elo1=35").unwrap();
        let (lo, hi) = s.bounds();
        assert!((lo - (0.05f64 / 0.95).ln()).abs() < 1e-12);
        assert!((hi - (0.95f64 / 0.05).ln()).abs() < 1e-12);
        let p1 = expected_score(35.0);
        assert!((expected_score(0.0) - 0.5).abs() < 1e-12);
        let want = 7.0 * (p1 / 0.5).ln() + 3.0 * ((1.0 - p1) / 0.5).ln();
        assert!((s.llr(7.0, 10.0) - want).abs() < 1e-12);
        // A draw is half a win and half a loss.
        assert!((s.run([0.5, 0.5]).llr - s.llr(1.0, 2.0)).abs() < 1e-12);
    }

    /// The pentanomial test and the pair Elo on fixed simulated pair streams, against the
    /// figures of a separate implementation of fishtest's formulas
    /// (`scripts/pentanomial_sprt.py`, which solves the secular equation another way),
    /// committed in `tests/fixtures/arena/pentanomial_sprt.json`; where python3 is there the
    /// script is run again and must write the same figures.
    #[test]
    fn the_pentanomial_test_agrees_with_a_separate_implementation_of_fishtest() {
        let committed = include_str!("../../tests/fixtures/arena/pentanomial_sprt.json");
        let check = |fixture: &serde_json::Value| {
            let f = |v: &serde_json::Value| v.as_f64().unwrap();
            for case in fixture["pairs"].as_array().unwrap() {
                let s = Sprt {
                    elo0: f(&case["elo0"]),
                    elo1: f(&case["elo1"]),
                    alpha: f(&case["alpha"]),
                    beta: f(&case["beta"]),
                };
                let stream = case["stream"].as_str().unwrap();
                let scores = stream.bytes().map(|b| f64::from(b - b'0') / 2.0);
                let state = s.run_pairs(scores);
                let want = match case["decision"].as_str().unwrap() {
                    "H0" => Decision::H0,
                    "H1" => Decision::H1,
                    _ => Decision::Undecided,
                };
                let pairs = case["pairs"].as_u64().unwrap() as usize;
                assert_eq!(
                    (state.decision, state.pairs),
                    (want, Some(pairs)),
                    "{stream}"
                );
                assert_eq!(state.games, 2 * pairs);
                let llr = f(&case["llr"]);
                assert!((state.llr - llr).abs() < 1e-7, "LLR {} vs {llr}", state.llr);
                let counts = super::super::pairs::Pentanomial::of(
                    stream[..pairs].bytes().map(|b| f64::from(b - b'0') / 2.0),
                );
                let want_counts: Vec<u32> = case["counts"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_u64().unwrap() as u32)
                    .collect();
                assert_eq!(counts.counts.to_vec(), want_counts);
                let e = counts.elo().unwrap();
                assert!((e.elo - f(&case["elo"])).abs() < 1e-7, "{e}");
                assert!((e.half_width - f(&case["elo95"])).abs() < 1e-7, "{e}");
            }
            for case in fixture["trinomial"].as_array().unwrap() {
                let s = Sprt {
                    elo0: f(&case["elo0"]),
                    elo1: f(&case["elo1"]),
                    alpha: 0.05,
                    beta: 0.05,
                };
                let counts: Vec<f64> = case["counts"].as_array().unwrap().iter().map(f).collect();
                let llr = s.llr_frequencies(&counts);
                assert!((llr - f(&case["llr"])).abs() < 1e-7, "{counts:?}: {llr}");
            }
        };
        let fixture: serde_json::Value = serde_json::from_str(committed).unwrap();
        check(&fixture);
        // The committed figures are the script's: rerun it where python3 is installed.
        let run = std::process::Command::new("python3")
            .arg("scripts/pentanomial_sprt.py")
            .output();
        if let Some(out) = run.ok().filter(|o| o.status.success()) {
            let again: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(again["pairs"].as_array().map(Vec::len), Some(6));
            check(&again);
        }
    }

    /// An even record (a score of 0.5, nearer elo0's than elo1's) speaks for H0; a better
    /// one less so.
    #[test]
    fn the_frequency_llr_rises_with_the_score() {
        let s = Sprt::parse("elo0=0,elo1=35").unwrap();
        let low = s.llr_frequencies(&[10.0, 20.0, 40.0, 20.0, 10.0]);
        let high = s.llr_frequencies(&[5.0, 15.0, 40.0, 25.0, 15.0]);
        assert!(low < 0.0 && high > low, "{low} {high}");
    }

    /// After a sequential stop, an interval computed as for a fixed number of games covers
    /// less than its 95% (what a decided match's summary says): seeded matches under
    /// `elo0=0,elo1=35`, between equal players and at +35 Elo, stop where the results ran
    /// to a bound, and the Wilson interval at the stop holds the true share in about 91% of
    /// them (4,000 matches each: a standard error near 0.005).
    #[test]
    fn intervals_after_a_sequential_stop_cover_less_than_95_percent() {
        use crate::util::stats::{Z95, wilson};
        let s = Sprt::parse("elo0=0,elo1=35").unwrap();
        for (elo, seed) in [(0.0, 21), (35.0, 22)] {
            let p = expected_score(elo);
            let mut rng = FastRng::new(seed);
            let trials = 4000;
            let covered = (0..trials)
                .filter(|_| {
                    let results = std::iter::from_fn(|| Some(f64::from(u8::from(rng.unit() < p))));
                    let state = s.run(results.take(100_000));
                    assert_ne!(state.decision, Decision::Undecided);
                    let (lo, hi) = wilson(state.score, state.games as f64, Z95);
                    (lo..=hi).contains(&p)
                })
                .count();
            let coverage = covered as f64 / trials as f64;
            assert!(
                (0.85..0.935).contains(&coverage),
                "elo {elo} (seed {seed}): coverage {coverage}"
            );
        }
    }

    /// Error rates measured on simulated matches between players of known strength: at
    /// H0's strength H1 is accepted about alpha of the time, at H1's H0 about beta (Wald's
    /// bounds keep both at or under their nominal values, up to the simulation's noise).
    #[test]
    fn error_rates_hold_for_players_of_known_strength() {
        let s = Sprt::parse("elo0=0,elo1=50,alpha=0.05,beta=0.1").unwrap();
        let trials = 2000;
        let rate = |elo: f64, want: Decision, seed: u64| {
            let p = expected_score(elo);
            let mut rng = FastRng::new(seed);
            let mut hits = 0;
            let mut games = 0;
            for _ in 0..trials {
                let results = std::iter::from_fn(|| Some(f64::from(u8::from(rng.unit() < p))));
                let state = s.run(results.take(100_000));
                assert_ne!(state.decision, Decision::Undecided);
                hits += usize::from(state.decision == want);
                games += state.games;
            }
            (hits as f64 / trials as f64, games as f64 / trials as f64)
        };
        let (false_h1, games0) = rate(0.0, Decision::H1, 1);
        let (false_h0, games1) = rate(50.0, Decision::H0, 2);
        assert!(false_h1 <= 0.05 + 0.015, "false H1 rate {false_h1}");
        assert!(false_h0 <= 0.10 + 0.02, "false H0 rate {false_h0}");
        // A clearly stronger player is accepted in far fewer games.
        let (true_h1, games_strong) = rate(200.0, Decision::H1, 3);
        assert!(true_h1 > 0.99, "{true_h1}");
        assert!(
            games_strong * 4.0 < games0.min(games1),
            "{games_strong} vs {games0}, {games1}"
        );
    }
}
