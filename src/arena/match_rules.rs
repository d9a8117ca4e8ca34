//! How each game of a match is played: the part of a match's config that `akushu match`'s
//! flags (flattened into them), an experiment's `[match]` table (beside its `games` and
//! `seed`) and the self-play loop's gate all set. One type read three ways, so a rule, its
//! range and its default are written once; [`MatchRules::config`] makes the match.

use serde::{Deserialize, Serialize};

use super::player::GtpTimeouts;
use super::runner::{MatchConfig, TimeSpec};
use super::sprt::SprtText;

/// The rules of a match's games. The doc lines are `akushu match`'s help; the serde names are
/// the keys of an experiment's `[match]` table (`genmove_timeout_s`, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, clap::Args)]
#[serde(deny_unknown_fields, default)]
pub struct MatchRules {
    /// Komi for white (-10000 to 10000).
    #[arg(long, default_value_t = MatchRules::default().komi, allow_hyphen_values = true, value_parser = crate::rules::komi_arg)]
    pub komi: f32,
    /// Alternate colours between games (default: fixed colours, the paper's setup).
    #[arg(long)]
    pub alternate: bool,
    /// Move cap, 1 to 100,000; a game reaching it is counted as it stands.
    #[arg(long, default_value_t = super::game::MATCH_MAX_MOVES, value_parser = max_moves_arg)]
    pub max_moves: u32,
    /// Seconds a GTP engine may take for one genmove before it loses the game (above 0, at
    /// most 1e6).
    #[arg(long = "genmove-timeout", default_value_t = GtpTimeouts::default().genmove_s, value_parser = crate::util::num::seconds_arg)]
    #[serde(rename = "genmove_timeout_s")]
    pub genmove_timeout: f64,
    /// Seconds for every other GTP command (above 0, at most 1e6).
    #[arg(long = "command-timeout", default_value_t = GtpTimeouts::default().command_s, value_parser = crate::util::num::seconds_arg)]
    #[serde(rename = "command_timeout_s")]
    pub command_timeout: f64,
    /// Both players get S seconds a move (Canadian overtime, one stone per S seconds, no
    /// main time): the way to compare engines at equal time. The referee keeps the clocks;
    /// a player that overruns loses on time.
    #[arg(long, value_name = "S", value_parser = crate::util::num::seconds_arg, conflicts_with = "time")]
    #[serde(rename = "time_per_move_s", skip_serializing_if = "Option::is_none")]
    pub time_per_move: Option<f64>,
    /// Stop as soon as a sequential probability ratio test on A's results decides
    /// (`elo0=0,elo1=35,alpha=0.05,beta=0.05`; alpha and beta default to 0.05): H1 "A is
    /// better than elo0" against H0 "A is not elo1 better". `--games` is then the most played;
    /// the summary records the LLR, the bounds and the decision.
    #[arg(long, value_name = "elo0=E0,elo1=E1[,alpha=A,beta=B]")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtText>,
}

impl Default for MatchRules {
    fn default() -> Self {
        let timeouts = GtpTimeouts::default();
        MatchRules {
            komi: 6.5,
            alternate: false,
            max_moves: super::game::MATCH_MAX_MOVES,
            genmove_timeout: timeouts.genmove_s,
            command_timeout: timeouts.command_s,
            time_per_move: None,
            sprt: None,
        }
    }
}

impl MatchRules {
    /// The match these rules play: `games` games between `black` (player A) and `white`,
    /// seeded with `seed`, `jobs` at once, from the empty board, unsharded and unpaired (what
    /// `akushu match` adds on its own flags).
    pub fn config(
        &self,
        black: String,
        white: String,
        games: u32,
        seed: u64,
        jobs: usize,
    ) -> MatchConfig {
        MatchConfig {
            black,
            white,
            games,
            seed,
            komi: self.komi,
            alternate: self.alternate,
            max_moves: self.max_moves,
            timeouts: GtpTimeouts {
                genmove_s: self.genmove_timeout,
                command_s: self.command_timeout,
            },
            jobs,
            shard: None,
            time: self.time_per_move.map(TimeSpec::per_move),
            sprt: self.sprt.as_ref().map(SprtText::test),
            openings: None,
            pairs: false,
        }
    }
}

/// clap parser for `--max-moves`: the range `MatchConfig::validate` accepts, said when the
/// flag is parsed.
fn max_moves_arg(text: &str) -> Result<u32, String> {
    crate::util::num::parse_in("max-moves", text, 1, 100_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rules' defaults are a match's: the CLI, the experiment files and the gate start
    /// from one set.
    #[test]
    fn the_rules_defaults_make_the_default_match() {
        let c = MatchRules::default().config("random".into(), "random".into(), 100, 1, 1);
        assert_eq!(c, MatchConfig::default());
    }

    /// A table of every key reads back to the same rules, under the experiment files' names.
    #[test]
    fn the_rules_round_trip_under_the_experiment_keys() {
        let rules = MatchRules {
            komi: 7.5,
            alternate: true,
            max_moves: 200,
            genmove_timeout: 5.0,
            command_timeout: 3.0,
            time_per_move: Some(0.5),
            sprt: Some("elo0=0,elo1=35".parse().unwrap()),
        };
        let text = toml::to_string(&rules).unwrap();
        assert!(
            text.contains("genmove_timeout_s = 5.0") && text.contains("time_per_move_s = 0.5"),
            "{text}"
        );
        assert_eq!(toml::from_str::<MatchRules>(&text).unwrap(), rules);
        let c = rules.config("a".into(), "b".into(), 10, 3, 2);
        assert_eq!(c.time, Some(TimeSpec::per_move(0.5)));
        assert_eq!(c.sprt.map(|s| s.elo1), Some(35.0));
    }
}
