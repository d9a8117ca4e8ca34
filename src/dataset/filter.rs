//! Which games go into a dataset: moves, handicap, result, ranks, rules, komi and bots.
//!
//! Board size is not a filter here: akushu reads 9x9 only, so other sizes are skipped as
//! `board-size` by the reader. Ranks and the bot flag come from the game index when the
//! game is in it (the shared OGS index has corrected ranks), else from the SGF.

use serde::{Deserialize, Serialize};

use crate::sgf::{GameRecord, parse_rank};

/// Whether a rank bound must hold for one player or for both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum RankScope {
    /// At least one player within the bounds.
    #[default]
    Either,
    /// Both players within the bounds.
    Both,
}

/// Filter settings (the `[filter]` section of a dataset TOML file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FilterConfig {
    /// Minimum main-line moves, passes included (as the shared OGS index counts `n_moves`).
    pub min_moves: usize,
    /// Maximum main-line moves (0 = no limit).
    pub max_moves: usize,
    /// Drop handicap games: `HA` >= 2, and (unless `allow_setup`) games that start from
    /// setup stones (`AB`/`AW`), which on OGS are mostly handicap stones without `HA`.
    pub no_handicap: bool,
    /// With `no_handicap`, keep games with setup stones but `HA` < 2 (the shared OGS
    /// index counts only `HA` as handicap; this reproduces its figures exactly).
    pub allow_setup: bool,
    /// Drop games whose result is unknown (`?`, empty) or void; draws are kept.
    pub result_known: bool,
    /// Lowest rank allowed (e.g. `1d`, `5k`); see `rank_scope`.
    pub min_rank: Option<String>,
    /// Highest rank allowed.
    pub max_rank: Option<String>,
    /// Whether the rank bounds apply to either player or to both.
    pub rank_scope: RankScope,
    /// Keep only games whose `RU` contains one of these (case-insensitive); empty = any.
    pub rules: Vec<String>,
    /// Lowest komi allowed (games without komi fail a komi bound).
    pub min_komi: Option<f32>,
    /// Highest komi allowed.
    pub max_komi: Option<f32>,
    /// Drop games played by a bot: index flag when the game is indexed, else a player name
    /// containing one of `bot_names`.
    pub exclude_bots: bool,
    /// Name fragments (case-insensitive) that mark a bot.
    pub bot_names: Vec<String>,
}

impl Default for FilterConfig {
    fn default() -> Self {
        FilterConfig {
            min_moves: 0,
            max_moves: 0,
            no_handicap: false,
            allow_setup: false,
            result_known: false,
            min_rank: None,
            max_rank: None,
            rank_scope: RankScope::Either,
            rules: Vec::new(),
            min_komi: None,
            max_komi: None,
            exclude_bots: false,
            bot_names: [
                "bot",
                "gnugo",
                "gnu go",
                "fuego",
                "leela",
                "katago",
                "pachi",
                "crazystone",
                "mogo",
                "oakfoam",
                "golois",
            ]
            .map(String::from)
            .to_vec(),
        }
    }
}

/// A game's effective ranks and bot flag (index over SGF).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Players {
    pub black_rank: Option<i8>,
    pub white_rank: Option<i8>,
    pub bot: bool,
}

/// A filter with its rank bounds parsed.
#[derive(Debug, Clone)]
pub struct Filter {
    cfg: FilterConfig,
    min_rank: Option<i8>,
    max_rank: Option<i8>,
    bot_names: Vec<String>,
}

impl Filter {
    /// Checks the configuration (rank texts must parse).
    pub fn new(cfg: FilterConfig) -> Result<Filter, String> {
        let rank = |t: &Option<String>, what: &str| -> Result<Option<i8>, String> {
            t.as_deref()
                .map(|t| {
                    parse_rank(t).ok_or_else(|| format!("{what} {t:?} is not a rank like 5k or 1d"))
                })
                .transpose()
        };
        Ok(Filter {
            min_rank: rank(&cfg.min_rank, "min_rank")?,
            max_rank: rank(&cfg.max_rank, "max_rank")?,
            bot_names: cfg.bot_names.iter().map(|n| n.to_lowercase()).collect(),
            cfg,
        })
    }

    /// Whether a player name looks like a bot.
    pub fn is_bot_name(&self, name: &str) -> bool {
        let n = name.to_lowercase();
        self.bot_names
            .iter()
            .any(|b| !b.is_empty() && n.contains(b.as_str()))
    }

    fn rank_ok(&self, r: Option<i8>) -> bool {
        let Some(r) = r else {
            return self.min_rank.is_none() && self.max_rank.is_none();
        };
        self.min_rank.is_none_or(|m| r >= m) && self.max_rank.is_none_or(|m| r <= m)
    }

    /// `Ok` when the game passes, else the short reason key of the first failing filter
    /// (`filter:bot`, `filter:result`, ...), used for skip counts.
    pub fn check(&self, rec: &GameRecord, players: &Players) -> Result<(), &'static str> {
        let c = &self.cfg;
        if c.exclude_bots && players.bot {
            return Err("filter:bot");
        }
        if c.result_known && !rec.result.is_known() {
            return Err("filter:result");
        }
        if c.no_handicap && rec.handicap >= 2 {
            return Err("filter:handicap");
        }
        let setup = !rec.setup_black.is_empty() || !rec.setup_white.is_empty();
        if c.no_handicap && !c.allow_setup && setup {
            return Err("filter:setup-stones");
        }
        let n = rec.moves.len();
        if n < c.min_moves || (c.max_moves > 0 && n > c.max_moves) {
            return Err("filter:moves");
        }
        if self.min_rank.is_some() || self.max_rank.is_some() {
            let (b, w) = (
                self.rank_ok(players.black_rank),
                self.rank_ok(players.white_rank),
            );
            let ok = match c.rank_scope {
                RankScope::Either => b || w,
                RankScope::Both => b && w,
            };
            if !ok {
                return Err("filter:rank");
            }
        }
        if !c.rules.is_empty() {
            let ru = rec.rules.as_deref().unwrap_or("").to_lowercase();
            if !c.rules.iter().any(|r| ru.contains(&r.to_lowercase())) {
                return Err("filter:rules");
            }
        }
        if c.min_komi.is_some() || c.max_komi.is_some() {
            let ok = rec.komi.is_some_and(|k| {
                c.min_komi.is_none_or(|m| k >= m) && c.max_komi.is_none_or(|m| k <= m)
            });
            if !ok {
                return Err("filter:komi");
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sgf::parse_record;

    fn rec(extra: &str, moves: usize) -> GameRecord {
        let mut s = format!("(;SZ[9]{extra}");
        let pts = ["ee", "cc", "gg", "cg", "gc", "ec", "eg", "ce", "ge", "dd"];
        for (i, p) in pts.iter().take(moves).enumerate() {
            let c = if i % 2 == 0 { 'B' } else { 'W' };
            s.push_str(&format!(";{c}[{p}]"));
        }
        s.push(')');
        parse_record(s.as_bytes(), "t", "t").unwrap()
    }

    fn players(b: Option<i8>, w: Option<i8>) -> Players {
        Players {
            black_rank: b,
            white_rank: w,
            bot: false,
        }
    }

    #[test]
    fn each_filter_rejects_with_its_reason() {
        let f = Filter::new(FilterConfig {
            min_moves: 4,
            no_handicap: true,
            result_known: true,
            min_rank: Some("1d".into()),
            exclude_bots: true,
            rules: vec!["japanese".into()],
            min_komi: Some(5.0),
            ..FilterConfig::default()
        })
        .unwrap();
        let good = rec("RE[B+R]RU[Japanese]KM[6.5]", 6);
        let dan = players(Some(2), Some(-3));
        assert_eq!(f.check(&good, &dan), Ok(()));
        assert_eq!(
            f.check(&good, &Players { bot: true, ..dan }),
            Err("filter:bot")
        );
        assert_eq!(
            f.check(&rec("RE[Void]RU[Japanese]KM[6.5]", 6), &dan),
            Err("filter:result")
        );
        assert_eq!(
            f.check(&rec("RE[?]RU[Japanese]KM[6.5]", 6), &dan),
            Err("filter:result")
        );
        assert_eq!(
            f.check(&rec("RE[B+R]HA[2]RU[Japanese]KM[6.5]", 6), &dan),
            Err("filter:handicap")
        );
        let setup = rec("RE[B+R]AB[aa]RU[Japanese]KM[6.5]", 6);
        assert_eq!(f.check(&setup, &dan), Err("filter:setup-stones"));
        let allow = Filter::new(FilterConfig {
            allow_setup: true,
            ..f.cfg.clone()
        })
        .unwrap();
        assert_eq!(allow.check(&setup, &dan), Ok(()));
        assert_eq!(
            f.check(&rec("RE[B+R]RU[Japanese]KM[6.5]", 3), &dan),
            Err("filter:moves")
        );
        assert_eq!(f.check(&good, &players(Some(0), None)), Err("filter:rank"));
        assert_eq!(
            f.check(&rec("RE[B+R]RU[Chinese]KM[6.5]", 6), &dan),
            Err("filter:rules")
        );
        assert_eq!(
            f.check(&rec("RE[B+R]RU[Japanese]KM[0.5]", 6), &dan),
            Err("filter:komi")
        );
        assert_eq!(
            f.check(&rec("RE[B+R]RU[Japanese]", 6), &dan),
            Err("filter:komi")
        );
    }

    #[test]
    fn rank_scope() {
        let cfg = FilterConfig {
            min_rank: Some("5k".into()),
            ..FilterConfig::default()
        };
        let either = Filter::new(cfg.clone()).unwrap();
        let both = Filter::new(FilterConfig {
            rank_scope: RankScope::Both,
            ..cfg
        })
        .unwrap();
        let g = rec("", 2);
        let mixed = players(Some(-4), Some(-10));
        assert_eq!(either.check(&g, &mixed), Ok(()));
        assert_eq!(both.check(&g, &mixed), Err("filter:rank"));
        assert_eq!(both.check(&g, &players(Some(-4), Some(3))), Ok(()));
        assert_eq!(both.check(&g, &players(Some(-4), None)), Err("filter:rank"));
        assert!(
            Filter::new(FilterConfig {
                min_rank: Some("x".into()),
                ..FilterConfig::default()
            })
            .is_err()
        );
        assert!(either.is_bot_name("GnuGo-3.8") && !either.is_bot_name("alice"));
    }
}
