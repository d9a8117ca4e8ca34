//! A match's summary: win rate of each player overall and by colour with Wilson 95%
//! intervals, errors counted separately, time per move, and the arena's own overhead.

use std::fmt;

use serde::Serialize;

use super::outcome::{Side, Winner};
use super::record::{EndReason, GameRecord};
use crate::rules::Color;
use crate::util::stats::{Z95, wilson};

/// Wins out of games, with the rate and its Wilson 95% interval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Rate {
    pub wins: u32,
    pub games: u32,
}

impl Rate {
    pub fn add(&mut self, won: bool) {
        self.games += 1;
        self.wins += won as u32;
    }
    /// The win rate (0 with no games).
    pub fn rate(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            self.wins as f64 / self.games as f64
        }
    }
    /// Wilson 95% interval.
    pub fn interval(&self) -> (f64, f64) {
        wilson(self.wins as f64, self.games as f64, Z95)
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.games == 0 {
            return write!(f, "-");
        }
        let (lo, hi) = self.interval();
        write!(
            f,
            "{}/{} = {} [{:.3}, {:.3}]",
            self.wins,
            self.games,
            share_text(self.wins, self.games),
            lo,
            hi
        )
    }
}

/// `wins / games` to three decimals, rounded half up from the exact fraction: 203/400 =
/// 0.5075 prints as 0.508 (the nearest double, 0.50749999..., printed with `{:.3}`, reads
/// 0.507).
pub fn share_text(wins: u32, games: u32) -> String {
    let (w, g) = (u64::from(wins), u64::from(games.max(1)));
    let thousandths = (2000 * w + g) / (2 * g);
    format!("{}.{:03}", thousandths / 1000, thousandths % 1000)
}

/// One match player's figures.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PlayerSummary {
    /// `A` or `B`.
    pub label: String,
    pub spec: String,
    /// All games; a game lost by an error counts as a loss for the side that erred.
    pub overall: Rate,
    /// Only games without an error.
    pub clean: Rate,
    /// Every game but the losses on time by a starved machine
    /// ([`GameRecord::is_starved_forfeit`]): the games the engines decided.
    pub unforfeited: Rate,
    /// Games this player lost on time while its engine got almost no CPU.
    pub starved_losses: u32,
    pub as_black: Rate,
    pub as_white: Rate,
    pub draws: u32,
    /// Games this player lost by an error (crash, hang, garbage, illegal move).
    pub errors: u32,
    pub seconds: f64,
    pub moves: u64,
    /// Simulations over the moves whose simulations were measured (`sims_moves`).
    pub sims: u64,
    pub sims_moves: u64,
    /// Whether the player's engine reports its simulations: not an outside (`gtp:`) engine,
    /// whose visits the arena does not read ([`super::outside`]).
    pub reports_sims: bool,
    /// CPU seconds and moves of the games whose CPU time was measured.
    pub cpu_seconds: f64,
    pub cpu_moves: u64,
}

impl PlayerSummary {
    pub fn seconds_per_move(&self) -> f64 {
        self.seconds / self.moves.max(1) as f64
    }
    /// Simulations a move, `None` where the engine does not report them (never a 0 that
    /// was not counted).
    pub fn sims_per_move(&self) -> Option<f64> {
        self.reports_sims
            .then(|| self.sims as f64 / self.sims_moves.max(1) as f64)
    }
    /// CPU seconds per move over the games that measured it.
    pub fn cpu_per_move(&self) -> Option<f64> {
        (self.cpu_moves > 0).then(|| self.cpu_seconds / self.cpu_moves as f64)
    }
}

/// Everything the summary reports.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MatchSummary {
    pub games: u32,
    pub players: [PlayerSummary; 2],
    /// Black's wins over all games (the paper's measure when black is the pruned program).
    pub black: Rate,
    pub ends: [(String, u32); 5],
    pub errors: u32,
    /// Games lost on time, and those of them lost by a starved machine (the loser's engine
    /// got under [`super::record::STARVED_CPU_SHARE`] of its thinking time as CPU).
    pub time_losses: u32,
    pub starved_forfeits: u32,
    pub score_disagreements: u32,
    /// Sum of per-game wall-clock seconds.
    pub wall_seconds: f64,
    /// Sum of both engines' thinking seconds.
    pub thinking_seconds: f64,
    /// One line for each outside engine among the players: what its match folder records
    /// of it ([`super::outside::OutsideEngine::describe`]), filled in by the folder's writer.
    pub outside_engines: Vec<String>,
}

impl MatchSummary {
    /// The arena's overhead: (wall - thinking) / thinking.
    pub fn overhead(&self) -> f64 {
        if self.thinking_seconds <= 0.0 {
            0.0
        } else {
            (self.wall_seconds - self.thinking_seconds) / self.thinking_seconds
        }
    }
}

/// Summarises rows; `specs` are players A and B.
pub fn summarize(rows: &[GameRecord], specs: [&str; 2]) -> MatchSummary {
    let mut s = MatchSummary {
        games: rows.len() as u32,
        ..MatchSummary::default()
    };
    for (i, label) in ["A", "B"].iter().enumerate() {
        s.players[i].label = label.to_string();
        s.players[i].spec = specs[i].to_string();
        s.players[i].reports_sims = super::outside::gtp_command(specs[i]).is_none();
    }
    let reasons = [
        EndReason::Passes,
        EndReason::Resign,
        EndReason::MoveCap,
        EndReason::Error,
        EndReason::Time,
    ];
    for (slot, r) in s.ends.iter_mut().zip(reasons) {
        slot.0 = r.name().to_string();
    }
    for row in rows {
        let black_idx = if row.black_player == Side::B { 1 } else { 0 };
        let winner = row.winner_color();
        let erred = row.reason == EndReason::Error;
        let forfeit = row.is_starved_forfeit();
        s.black.add(winner == Some(Color::Black));
        for (color, idx) in [(Color::Black, black_idx), (Color::White, 1 - black_idx)] {
            let p = &mut s.players[idx];
            let won = winner == Some(color);
            p.overall.add(won);
            if !erred {
                p.clean.add(won);
            }
            if !forfeit {
                p.unforfeited.add(won);
            }
            p.starved_losses += u32::from(forfeit && !won);
            match color {
                Color::Black => p.as_black.add(won),
                Color::White => p.as_white.add(won),
            }
            p.draws += (row.winner == Winner::Draw) as u32;
            p.errors += (erred && row.error_by == color.letter().to_string()) as u32;
            p.moves += row.moves_by(color) as u64;
            let (secs, cpu) = match color {
                Color::Black => (row.black_seconds, row.black_cpu_seconds),
                Color::White => (row.white_seconds, row.white_cpu_seconds),
            };
            p.seconds += secs;
            if let Some(sims) = row.sims_by(color) {
                p.sims += sims;
                p.sims_moves += row.moves_by(color) as u64;
            }
            if let Some(cpu) = cpu {
                p.cpu_seconds += cpu;
                p.cpu_moves += row.moves_by(color) as u64;
            }
        }
        let ri = reasons.iter().position(|r| *r == row.reason).unwrap_or(3);
        s.ends[ri].1 += 1;
        s.errors += erred as u32;
        s.time_losses += u32::from(row.reason == EndReason::Time);
        s.starved_forfeits += u32::from(forfeit);
        s.score_disagreements += row.score_disagreement as u32;
        s.wall_seconds += row.wall_seconds;
        s.thinking_seconds += row.black_seconds + row.white_seconds;
    }
    s
}

impl fmt::Display for MatchSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "games: {}", self.games)?;
        writeln!(
            f,
            "\nwin rates (wins/games = rate [Wilson 95%]); an error loses the game for the side that erred\n"
        )?;
        writeln!(
            f,
            "| player | spec | all games | without error games | as black | as white | errors | draws | s/move | sims/move |"
        )?;
        writeln!(f, "|---|---|---|---|---|---|---|---|---|---|")?;
        for p in &self.players {
            writeln!(
                f,
                "| {} | `{}` | {} | {} | {} | {} | {} | {} | {:.4} | {} |",
                p.label,
                p.spec,
                p.overall,
                p.clean,
                p.as_black,
                p.as_white,
                p.errors,
                p.draws,
                p.seconds_per_move(),
                p.sims_per_move()
                    .map_or("not reported".to_string(), |s| format!("{s:.0}"))
            )?;
        }
        if !self.outside_engines.is_empty() {
            writeln!(f, "\noutside engines (as match.toml records them):\n")?;
            for line in &self.outside_engines {
                writeln!(f, "- {line}")?;
            }
        }
        let cpu: Vec<String> = self
            .players
            .iter()
            .filter_map(|p| p.cpu_per_move().map(|c| format!("{} {c:.4}", p.label)))
            .collect();
        if !cpu.is_empty() {
            writeln!(
                f,
                "\nCPU seconds per move (each engine's own from the game's set-up to its last move: an in-process engine's genmove and play on the game's thread, a GTP engine's process after its start-up): {}",
                cpu.join(", ")
            )?;
        }
        writeln!(f, "\nblack wins: {}", self.black)?;
        // Losses on time exist only in matches with a clock: listed only when there are any.
        let ends: Vec<String> = self
            .ends
            .iter()
            .filter(|(n, c)| *c > 0 || n != EndReason::Time.name())
            .map(|(n, c)| format!("{n} {c}"))
            .collect();
        writeln!(f, "game ends: {}", ends.join(", "))?;
        writeln!(f, "errors: {}", self.errors)?;
        writeln!(
            f,
            "forfeits (lost on time by a starved machine: the loser's engine got under {:.0}% \
             of its thinking time as CPU): {} of {} losses on time",
            super::record::STARVED_CPU_SHARE * 100.0,
            self.starved_forfeits,
            self.time_losses
        )?;
        if self.starved_forfeits > 0 {
            let without: Vec<String> = self
                .players
                .iter()
                .map(|p| format!("{} {}", p.label, p.unforfeited))
                .collect();
            writeln!(f, "without the forfeits: {}", without.join(", "))?;
        }
        writeln!(
            f,
            "GTP final_score disagreements with the referee: {}",
            self.score_disagreements
        )?;
        writeln!(
            f,
            "arena overhead: {:.2}% (summed over games, which run side by side with --jobs: \
             wall {:.2}s, engines thinking {:.2}s; includes engine start-up)",
            self.overhead() * 100.0,
            self.wall_seconds,
            self.thinking_seconds
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(game: u32, black_player: &str, winner: &str, error_by: &str) -> GameRecord {
        GameRecord {
            game,
            black: "b".into(),
            white: "w".into(),
            black_player: black_player.parse::<String>().unwrap().try_into().unwrap(),
            winner: winner.parse().unwrap(),
            result: String::new(),
            score: None,
            moves: 11,
            reason: if error_by.is_empty() {
                EndReason::Passes
            } else {
                EndReason::Error
            },
            black_seconds: 6.0,
            white_seconds: 5.0,
            black_sims: Some(600),
            white_sims: Some(0),
            wall_seconds: 11.5,
            seed: 0,
            error_by: error_by.into(),
            error: String::new(),
            gtp_score: String::new(),
            score_disagreement: false,
            black_cpu_seconds: None,
            white_cpu_seconds: None,
        }
    }

    /// Exact halves of a thousandth round up, as the fraction says, not down as its
    /// nearest double would print.
    #[test]
    fn shares_round_half_up_from_the_exact_fraction() {
        assert_eq!(share_text(203, 400), "0.508");
        assert_eq!(share_text(1, 8), "0.125");
        assert_eq!(share_text(1, 3), "0.333");
        assert_eq!(share_text(2, 3), "0.667");
        assert_eq!(share_text(7, 7), "1.000");
        assert_eq!(share_text(0, 16), "0.000");
        let r = Rate {
            wins: 203,
            games: 400,
        };
        assert!(r.to_string().starts_with("203/400 = 0.508 ["), "{r}");
    }

    #[test]
    fn counts_players_colours_and_errors() {
        // Game 1: A black wins. Game 2: B black, A (white) wins. Game 3: A black, white (B)
        // errs, so A wins by error.
        let rows = [
            row(1, "A", "B", ""),
            row(2, "B", "W", ""),
            row(3, "A", "B", "W"),
        ];
        let s = summarize(&rows, ["a", "b"]);
        let (a, b) = (&s.players[0], &s.players[1]);
        assert_eq!((a.overall.wins, a.overall.games), (3, 3));
        assert_eq!((a.clean.wins, a.clean.games), (2, 2));
        assert_eq!((a.as_black.wins, a.as_black.games), (2, 2));
        assert_eq!((a.as_white.wins, a.as_white.games), (1, 1));
        assert_eq!((b.overall.wins, b.errors, a.errors), (0, 1, 0));
        assert_eq!((s.black.wins, s.black.games), (2, 3));
        assert_eq!(s.errors, 1);
        // A moved 6 times as black (games 1, 3) twice and 5 times as white once.
        assert_eq!(a.moves, 6 + 6 + 5);
        assert!((a.seconds - 17.0).abs() < 1e-9);
        assert!((s.overhead() - 1.5 / 33.0).abs() < 1e-9);
        assert_eq!((s.time_losses, s.starved_forfeits), (0, 0));
    }

    /// A loss on time whose loser got almost no CPU is a forfeit, counted apart and left
    /// out of the unforfeited rates; one whose loser got its CPU is a real loss; a
    /// many-thread in-process engine's reading (its game thread only) proves nothing.
    #[test]
    fn losses_on_time_by_a_starved_machine_are_counted_as_forfeits() {
        let timed = |game, winner: &str, loser_cpu: f64, spec: &str| {
            let mut r = row(game, "A", winner, "");
            r.reason = EndReason::Time;
            (r.black, r.white) = (spec.to_string(), spec.to_string());
            // The loser thought 0.56 s.
            if winner == "B" {
                (r.white_seconds, r.white_cpu_seconds) = (0.56, Some(loser_cpu));
                r.black_cpu_seconds = Some(0.5);
            } else {
                (r.black_seconds, r.black_cpu_seconds) = (0.56, Some(loser_cpu));
                r.white_cpu_seconds = Some(0.5);
            }
            r
        };
        let starved = timed(1, "B", 0.008, "uct");
        let beaten = timed(2, "W", 0.55, "uct");
        let threads = timed(3, "B", 0.008, "uct:threads=4");
        assert!(starved.is_starved_forfeit());
        assert!(!beaten.is_starved_forfeit());
        assert!(!threads.is_starved_forfeit());
        let s = summarize(
            &[starved, beaten, threads, row(4, "A", "B", "")],
            ["a", "b"],
        );
        assert_eq!((s.time_losses, s.starved_forfeits), (3, 1));
        let (a, b) = (&s.players[0], &s.players[1]);
        // A (black in every game) won games 1, 3 and 4, lost game 2.
        assert_eq!((a.overall.wins, a.overall.games), (3, 4));
        assert_eq!((a.unforfeited.wins, a.unforfeited.games), (2, 3));
        assert_eq!((b.starved_losses, a.starved_losses), (1, 0));
        let text = s.to_string();
        assert!(text.contains("1 of 3 losses on time"), "{text}");
        assert!(text.contains("without the forfeits: A 2/3"), "{text}");
    }
}
