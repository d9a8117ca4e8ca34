//! The loop's gate as a test with stated error rates: the chance that it promotes a
//! candidate no stronger than the best, and its power at a chosen gain, are computed exactly
//! before any game is played, printed in the loop's summary, and a gate whose chance of
//! promoting an equal network exceeds its `alpha` is refused.
//!
//! Two rules, each with no fallback that could promote more often than its figures say:
//! - **fixed**: all `games` are played; the candidate is promoted when its points reach the
//!   one-sided critical value of the binomial test at level `alpha` against an equal
//!   network (the smallest `k` with P(X >= k) <= alpha for X ~ Binomial(games, 1/2));
//! - **sequential**: Wald's SPRT on the candidate's results, cut at `games`. H1 accepted
//!   promotes, H0 accepted keeps the best; a test still undecided after the last game
//!   promotes only when the candidate's points reach a critical value chosen, like the fixed
//!   rule's, so that the whole test (early H1 plus the cut) promotes an equal network with
//!   probability at most the test's `alpha`. (The test cut at 100 games without such a
//!   critical value, H1 only, promotes a candidate 35 Elo stronger 1% of the time; falling
//!   back to a 55% share instead promotes an equal one 18% of the time.)
//!
//! The figures are exact for decisive games (under a half-point komi no game is drawn; under
//! a whole-point komi a draw counts as half a win and half a loss, as in the match's own
//! test, and the figures are then approximate): the fixed rule's from the binomial tail, the
//! sequential rule's from a walk over (games, wins) that applies the test's own bounds at
//! every step.

use anyhow::bail;

use crate::arena::sprt::{Decision, Sprt};
use crate::util::elo::expected_score;
use crate::util::stats::binomial_upper_tail;

/// The gate's level and the gain its power is stated at, when the config gives none.
pub const DEFAULT_ALPHA: f64 = 0.05;
pub const DEFAULT_ELO1: f64 = 35.0;

/// How the gate decides.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GateRule {
    /// Promote when the candidate's points over all games reach `critical`.
    Fixed { critical: u64 },
    /// Promote when the sequential test accepts H1 within the games, or is undecided after
    /// all of them with the candidate's points at `critical` or more.
    Sequential { sprt: Sprt, critical: u64 },
}

/// A gate: its rule, its game count, its level and the gain its power is stated at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GateTest {
    pub games: u32,
    pub rule: GateRule,
    /// The stated bound on P(promote | equal networks).
    pub alpha: f64,
    /// The Elo gain the power is stated at.
    pub elo1: f64,
}

impl GateTest {
    /// The fixed-sample gate of `games` at level `alpha`, its power stated at `elo1`.
    pub fn fixed(games: u32, alpha: f64, elo1: f64) -> anyhow::Result<GateTest> {
        check_games(games)?;
        if !(alpha > 0.0 && alpha < 0.5) {
            bail!("gate.alpha {alpha} must be between 0 and 0.5");
        }
        if !(elo1.is_finite() && elo1 > 0.0 && elo1 <= 2000.0) {
            bail!("gate.elo1 {elo1} must be above 0 and at most 2000");
        }
        let n = u64::from(games);
        // The smallest k whose tail is within alpha; n + 1 (never promote) always is.
        let critical = (0..=n + 1)
            .find(|&k| binomial_upper_tail(k, n, 0.5) <= alpha)
            .expect("the empty tail is within alpha");
        Ok(GateTest {
            games,
            rule: GateRule::Fixed { critical },
            alpha,
            elo1,
        })
    }

    /// The sequential gate: `sprt` cut at `games`, its level the test's alpha, its power
    /// stated at the test's elo1; the cut's critical value is the smallest that keeps the
    /// whole test's P(promote | equal) within alpha. Refused when the early H1 decisions
    /// alone exceed alpha (an `elo0` below 0 can).
    pub fn sequential(games: u32, sprt: Sprt) -> anyhow::Result<GateTest> {
        check_games(games)?;
        sprt.validate()?;
        let (crossed, undecided) = sequential_walk(&sprt, games, 0.5);
        if crossed > sprt.alpha {
            bail!(
                "gate.sprt: cut at {games} games this test promotes an equal network with \
                 probability {crossed:.4}, above its alpha {}: raise elo0 to 0 or more",
                sprt.alpha
            );
        }
        let n = undecided.len() as u64 - 1;
        let critical = (0..=n + 1)
            .find(|&c| crossed + tail(&undecided, c) <= sprt.alpha)
            .expect("the empty tail is within alpha");
        Ok(GateTest {
            games,
            rule: GateRule::Sequential { sprt, critical },
            alpha: sprt.alpha,
            elo1: sprt.elo1,
        })
    }

    /// Whether the candidate's scores (1 win, 0.5 draw, 0 loss, in game order) promote it.
    /// Only the first `games` scores count.
    pub fn promotes(&self, scores: impl IntoIterator<Item = f64>) -> bool {
        let scores = scores.into_iter().take(self.games as usize);
        match self.rule {
            GateRule::Fixed { critical } => scores.sum::<f64>() >= critical as f64,
            GateRule::Sequential { sprt, critical } => {
                let scores: Vec<f64> = scores.collect();
                let state = sprt.run(scores.iter().copied());
                match state.decision {
                    Decision::H1 => true,
                    Decision::H0 => false,
                    // Only a test that ran its course is cut: fewer games promote nothing.
                    Decision::Undecided => {
                        scores.len() == self.games as usize && state.score >= critical as f64
                    }
                }
            }
        }
    }

    /// The exact probability that a candidate `elo` points stronger than the best is
    /// promoted (decisive games).
    pub fn promote_probability(&self, elo: f64) -> f64 {
        let p = expected_score(elo);
        match self.rule {
            GateRule::Fixed { critical } => binomial_upper_tail(critical, u64::from(self.games), p),
            GateRule::Sequential { sprt, critical } => {
                let (crossed, undecided) = sequential_walk(&sprt, self.games, p);
                crossed + tail(&undecided, critical)
            }
        }
    }

    /// One line for the summary: the rule, then P(promote | equal) and the power at elo1.
    pub fn describe(&self) -> String {
        let rule = match self.rule {
            GateRule::Fixed { critical } => format!(
                "fixed test: all {} games, promoted at {critical} points or more \
                 (one-sided binomial test at level {})",
                self.games, self.alpha
            ),
            GateRule::Sequential { sprt: s, critical } => format!(
                "SPRT elo0={} elo1={} alpha={} beta={} cut at {} games: H1 promotes, H0 keeps \
                 the best, undecided after the last game promotes at {critical} points or more",
                s.elo0, s.elo1, s.alpha, s.beta, self.games
            ),
        };
        format!(
            "{rule}. P(promote | equal) = {:.4} (at most {}), P(promote | +{} Elo) = {:.3} \
             (exact, for games without draws)",
            self.promote_probability(0.0),
            self.alpha,
            self.elo1,
            self.promote_probability(self.elo1)
        )
    }
}

fn check_games(games: u32) -> anyhow::Result<()> {
    if games == 0 || games > 100_000 {
        bail!("gate.games {games} is not from 1 to 100000");
    }
    Ok(())
}

/// The test over `games` games each won with probability `p`: the probability that it
/// accepts H1 within them, and the probability of each win count among the runs still
/// undecided after the last game (index = wins). The probability mass of the undecided runs,
/// by wins so far, is carried one game at a time; at each step the states that cross a bound
/// leave it, exactly as `Sprt::run` stops (the upper bound checked first, with the test's
/// own ratio).
fn sequential_walk(sprt: &Sprt, games: u32, p: f64) -> (f64, Vec<f64>) {
    let (lower, upper) = sprt.bounds();
    let mut alive = vec![1.0f64];
    let mut promoted = 0.0;
    for n in 1..=games as usize {
        let mut next = vec![0.0; n + 1];
        for (w, &mass) in alive.iter().enumerate() {
            next[w] += mass * (1.0 - p);
            next[w + 1] += mass * p;
        }
        for (w, mass) in next.iter_mut().enumerate() {
            let llr = sprt.llr(w as f64, n as f64);
            if llr >= upper {
                promoted += *mass;
                *mass = 0.0;
            } else if llr <= lower {
                *mass = 0.0;
            }
        }
        alive = next;
    }
    (promoted, alive)
}

/// The mass of `by_wins` at `critical` wins or more.
fn tail(by_wins: &[f64], critical: u64) -> f64 {
    by_wins.iter().skip(critical as usize).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::rng::FastRng;

    /// The share of `trials` simulated gates, each between a candidate `elo` points stronger
    /// and the best (every game a seeded Bernoulli draw), that promote the candidate.
    fn simulated_rate(gate: &GateTest, elo: f64, trials: usize, seed: u64) -> f64 {
        let p = expected_score(elo);
        let mut rng = FastRng::new(seed);
        let mut promoted = 0usize;
        for _ in 0..trials {
            let scores: Vec<f64> = (0..gate.games)
                .map(|_| f64::from(u8::from(rng.unit() < p)))
                .collect();
            promoted += usize::from(gate.promotes(scores));
        }
        promoted as f64 / trials as f64
    }

    /// Many seeded gates at equal strength and at elo1, for both rules at the settings the
    /// loops use (100 games; the committed loops' `elo0=0,elo1=35`): the false-promotion
    /// rate stays within alpha (up to three standard errors of the simulation), and both
    /// simulated rates agree with the exact figures the summary prints. The old rule (an
    /// SPRT cut at 100 games falling back to a 55% share) promoted an equal network 18% of
    /// the time; the simulated rate of that rule is checked to be far above alpha, so this
    /// test tells the two apart.
    #[test]
    fn simulated_gates_promote_equal_networks_at_most_alpha_of_the_time() {
        let trials = 20_000;
        let sprt = Sprt::parse("elo0=0,elo1=35").unwrap();
        let gates = [
            GateTest::fixed(100, DEFAULT_ALPHA, DEFAULT_ELO1).unwrap(),
            GateTest::sequential(100, sprt).unwrap(),
            GateTest::fixed(400, DEFAULT_ALPHA, DEFAULT_ELO1).unwrap(),
        ];
        for (i, gate) in gates.iter().enumerate() {
            let seed = 1000 + i as u64;
            let equal = simulated_rate(gate, 0.0, trials, seed);
            let exact_equal = gate.promote_probability(0.0);
            let se = (gate.alpha * (1.0 - gate.alpha) / trials as f64).sqrt();
            assert!(
                equal <= gate.alpha + 3.0 * se,
                "{gate:?} (seed {seed}): promoted an equal network {equal}"
            );
            assert!(exact_equal <= gate.alpha, "{gate:?}: exact {exact_equal}");
            let se_equal = (exact_equal * (1.0 - exact_equal) / trials as f64).sqrt();
            assert!(
                (equal - exact_equal).abs() <= 4.0 * se_equal + 1e-9,
                "{gate:?} (seed {seed}): simulated {equal}, exact {exact_equal}"
            );
            let power = simulated_rate(gate, gate.elo1, trials, seed + 100);
            let exact_power = gate.promote_probability(gate.elo1);
            let se_power = (exact_power * (1.0 - exact_power) / trials as f64).sqrt();
            assert!(
                (power - exact_power).abs() <= 4.0 * se_power + 1e-9,
                "{gate:?} (seed {}): power simulated {power}, exact {exact_power}",
                seed + 100
            );
            assert!(exact_power > exact_equal, "{gate:?}");
        }
        // The rule this one replaces, simulated the same way: far above alpha.
        let old = |scores: &[f64]| match sprt.run(scores.iter().copied()).decision {
            Decision::H1 => true,
            Decision::H0 => false,
            Decision::Undecided => scores.iter().sum::<f64>() / scores.len() as f64 >= 0.55,
        };
        let mut rng = FastRng::new(7);
        let old_rate = (0..trials)
            .filter(|_| {
                let scores: Vec<f64> = (0..100)
                    .map(|_| f64::from(u8::from(rng.unit() < 0.5)))
                    .collect();
                old(&scores)
            })
            .count() as f64
            / trials as f64;
        assert!(old_rate > 0.15, "{old_rate}");
    }

    /// The fixed rule's critical value is the binomial test's: 59 of 100 (P(X >= 59) =
    /// 0.044, P(X >= 58) = 0.067), so 58 points keep the best and 59 promote.
    #[test]
    fn the_fixed_rule_promotes_at_its_critical_value_and_not_below() {
        let gate = GateTest::fixed(100, 0.05, 35.0).unwrap();
        assert_eq!(gate.rule, GateRule::Fixed { critical: 59 });
        let scores = |wins: usize| (0..100).map(move |i| f64::from(u8::from(i < wins)));
        assert!(gate.promotes(scores(59)));
        assert!(!gate.promotes(scores(58)));
        // 55/100, which the old threshold promoted, keeps the best.
        assert!(!gate.promotes(scores(55)));
        let e = (gate.promote_probability(0.0) - 0.0443).abs();
        assert!(e < 5e-4, "{}", gate.promote_probability(0.0));
    }

    /// The sequential gate's cut: at 100 games of `elo0=0,elo1=35` its critical value is
    /// 59 points, as the fixed rule's (the early H1 decisions are rare at that length): an
    /// undecided test promotes at 59 and keeps the best at 58, or at 55 (which the old
    /// fallback to a 55% share promoted); a test cut short of its games promotes nothing
    /// undecided; H1 promotes early.
    #[test]
    fn an_undecided_sequential_gate_promotes_only_at_its_critical_value() {
        let sprt = Sprt::parse("elo0=0,elo1=35").unwrap();
        let gate = GateTest::sequential(100, sprt).unwrap();
        let GateRule::Sequential { critical, .. } = gate.rule else {
            panic!("{gate:?}")
        };
        assert_eq!(critical, 59);
        // `wins` wins spread evenly over 100 games, never crossing a bound.
        let spread = |wins: usize| -> Vec<f64> {
            (0..100)
                .map(|i| f64::from(u8::from((i * wins) % 100 < wins)))
                .collect()
        };
        for (wins, promoted) in [(59, true), (58, false), (55, false)] {
            let scores = spread(wins);
            assert_eq!(scores.iter().sum::<f64>(), wins as f64);
            let state = sprt.run(scores.iter().copied());
            assert_eq!(state.decision, Decision::Undecided, "{wins}");
            assert_eq!(gate.promotes(scores), promoted, "{wins}");
        }
        assert!(!gate.promotes(spread(59).into_iter().take(99)));
        assert!(gate.promotes(vec![1.0; 40]));
    }

    /// A sequential gate that would promote an equal network more than alpha of the time
    /// (elo0 below 0) is refused, with the figure.
    #[test]
    fn a_gate_above_its_alpha_is_refused() {
        let sprt = Sprt::parse("elo0=-35,elo1=35").unwrap();
        let e = GateTest::sequential(400, sprt).unwrap_err().to_string();
        assert!(e.contains("promotes an equal network"), "{e}");
        assert!(GateTest::fixed(100, 0.7, 35.0).is_err());
        assert!(GateTest::fixed(0, 0.05, 35.0).is_err());
    }
}
