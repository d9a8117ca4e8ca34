//! Repeated games: two engines that play the same moves from the same position make the
//! same game again (a fixed-visit search with a fixed seed, a deterministic engine), and a
//! match of such games counts one game many times: its interval is far too narrow. The
//! summary and `akushu rate` count the games identical to an earlier one and the games that
//! share a long opening ([`SHARED_PREFIX`] moves or more) with an earlier one, so a folder's
//! figures say how independent its games were.
//!
//! In a paired match the two games of a pair start from the same opening by design and are
//! not compared with each other; every other pair of games is.

use std::collections::HashMap;

use crate::rules::{Color, Move};

/// Opening moves two games must share to be counted as sharing their opening.
pub const SHARED_PREFIX: usize = 30;

/// One game's moves, named for the report.
pub struct GameMoves {
    /// How the report names the game (`game 7`, `runs/x/game 7`).
    pub label: String,
    /// Games with the same key (a folder and a pair) are a pair of a paired match: not
    /// compared with each other.
    pub pair: Option<(usize, u32)>,
    pub moves: Vec<(Color, Move)>,
}

/// A game found to repeat an earlier one.
#[derive(Debug, Clone, PartialEq)]
pub struct Repeat {
    pub game: String,
    pub earlier: String,
    /// Moves the two share from the start.
    pub shared: usize,
}

/// What [`find_repeats`] found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Repeats {
    /// Games compared.
    pub games: usize,
    /// Games identical (every move) to an earlier game.
    pub identical: Vec<Repeat>,
    /// Games, not identical to an earlier one, sharing their first [`SHARED_PREFIX`] moves or
    /// more with an earlier game.
    pub shared_opening: Vec<Repeat>,
}

/// One move as a byte: the point's index, 81 for a pass, the top bit for white.
fn code((c, m): &(Color, Move)) -> u8 {
    let p = match m {
        Move::Play(p) => p.index() as u8,
        Move::Pass => 81,
    };
    p | if *c == Color::White { 0x80 } else { 0 }
}

/// Compares every game with the earlier ones (in the order given), leaving out its pair's
/// other game.
pub fn find_repeats(games: &[GameMoves]) -> Repeats {
    let mut out = Repeats {
        games: games.len(),
        ..Repeats::default()
    };
    // By whole game and by opening: the earlier games with that key.
    let mut whole: HashMap<Vec<u8>, Vec<usize>> = HashMap::new();
    let mut openings: HashMap<Vec<u8>, Vec<usize>> = HashMap::new();
    let codes: Vec<Vec<u8>> = games
        .iter()
        .map(|g| g.moves.iter().map(code).collect())
        .collect();
    let unpaired = |i: usize, j: usize| games[i].pair.is_none() || games[i].pair != games[j].pair;
    for (i, key) in codes.iter().enumerate() {
        let same = whole.entry(key.clone()).or_default();
        if let Some(&j) = same.iter().find(|&&j| unpaired(i, j)) {
            out.identical.push(Repeat {
                game: games[i].label.clone(),
                earlier: games[j].label.clone(),
                shared: key.len(),
            });
        } else if key.len() >= SHARED_PREFIX
            && let Some(&j) = openings
                .get(&key[..SHARED_PREFIX])
                .and_then(|v| v.iter().find(|&&j| unpaired(i, j)))
        {
            let shared = key
                .iter()
                .zip(&codes[j])
                .take_while(|(a, b)| a == b)
                .count();
            out.shared_opening.push(Repeat {
                game: games[i].label.clone(),
                earlier: games[j].label.clone(),
                shared,
            });
        }
        same.push(i);
        if key.len() >= SHARED_PREFIX {
            openings
                .entry(key[..SHARED_PREFIX].to_vec())
                .or_default()
                .push(i);
        }
    }
    out
}

impl Repeats {
    /// The summary's lines (empty where no game was compared).
    pub fn describe(&self) -> String {
        if self.games == 0 {
            return String::new();
        }
        let examples = |list: &[Repeat]| {
            let shown: Vec<String> = list
                .iter()
                .take(5)
                .map(|r| format!("{} = {} ({} moves)", r.game, r.earlier, r.shared))
                .collect();
            let more = if list.len() > 5 { ", ..." } else { "" };
            format!("{}{more}", shown.join(", "))
        };
        let mut text = format!(
            "Repeated games (of {} compared): {} identical to an earlier game, {} more sharing \
             their first {SHARED_PREFIX}+ moves with an earlier game",
            self.games,
            self.identical.len(),
            self.shared_opening.len()
        );
        if !self.identical.is_empty() {
            text += &format!("\n- identical: {}", examples(&self.identical));
        }
        if !self.shared_opening.is_empty() {
            text += &format!("\n- shared openings: {}", examples(&self.shared_opening));
        }
        if !self.identical.is_empty() || !self.shared_opening.is_empty() {
            text += "\n- repeated games are not independent: the intervals above count each as \
                     a game of its own and are too narrow";
        }
        text
    }

    /// The figures for `summary.json`.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "games_compared": self.games,
            "identical": self.identical.len(),
            "shared_opening": self.shared_opening.len(),
            "shared_prefix_moves": SHARED_PREFIX,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Point;

    fn game(label: &str, pair: Option<(usize, u32)>, points: &[usize]) -> GameMoves {
        let moves = points
            .iter()
            .enumerate()
            .map(|(i, &p)| {
                let c = if i % 2 == 0 {
                    Color::Black
                } else {
                    Color::White
                };
                (
                    c,
                    if p == 81 {
                        Move::Pass
                    } else {
                        Move::Play(Point::new(p))
                    },
                )
            })
            .collect();
        GameMoves {
            label: label.into(),
            pair,
            moves,
        }
    }

    #[test]
    fn identical_games_and_long_shared_openings_are_counted() {
        let long: Vec<usize> = (0..40).collect();
        let mut other = long.clone();
        other[35] = 60;
        let mut short_shared = long.clone();
        short_shared[20] = 70;
        let r = find_repeats(&[
            game("game 1", None, &long),
            game("game 2", None, &long),
            game("game 3", None, &other),
            game("game 4", None, &short_shared),
            game("game 5", None, &[1, 2, 81, 81]),
            game("game 6", None, &[1, 2, 81, 81]),
        ]);
        assert_eq!(r.games, 6);
        let ids: Vec<(&str, &str)> = r
            .identical
            .iter()
            .map(|x| (x.game.as_str(), x.earlier.as_str()))
            .collect();
        assert_eq!(ids, [("game 2", "game 1"), ("game 6", "game 5")]);
        assert_eq!(r.shared_opening.len(), 1);
        assert_eq!(
            (
                r.shared_opening[0].game.as_str(),
                r.shared_opening[0].shared
            ),
            ("game 3", 35)
        );
        assert!(r.describe().contains("2 identical"), "{}", r.describe());
    }

    #[test]
    fn the_two_games_of_a_pair_are_not_compared() {
        let moves: Vec<usize> = (0..40).collect();
        let r = find_repeats(&[
            game("game 1", Some((0, 0)), &moves),
            game("game 2", Some((0, 0)), &moves),
            game("game 3", Some((0, 1)), &moves),
        ]);
        // Game 2 is game 1's pair; game 3 repeats them both.
        let ids: Vec<&str> = r.identical.iter().map(|x| x.game.as_str()).collect();
        assert_eq!(ids, ["game 3"]);
    }
}
