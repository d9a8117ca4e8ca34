//! What a finished game leaves behind: one CSV row ([`GameRecord`]) and one SGF file.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::outcome::{Side, Winner};
use crate::rules::{Color, Move};
use crate::sgf::write;

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// Two passes in a row; scored by area with komi.
    Passes,
    /// A player resigned.
    Resign,
    /// The move cap was reached; scored by area with komi as the board stands.
    MoveCap,
    /// A player crashed, hung, answered garbage or an illegal move, and lost.
    Error,
    /// A player overran its clock (`match --time-per-move`, `--time`) and lost.
    Time,
}

impl EndReason {
    /// The name used in the CSV (`passes`, `resign`, `move_cap`, `error`, `time`).
    pub fn name(self) -> &'static str {
        match self {
            EndReason::Passes => "passes",
            EndReason::Resign => "resign",
            EndReason::MoveCap => "move_cap",
            EndReason::Error => "error",
            EndReason::Time => "time",
        }
    }
}

/// One game: a row of `games.csv`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Game number, 1-based; the game's seed and colours follow from it.
    pub game: u32,
    /// Black's engine spec.
    pub black: String,
    /// White's engine spec.
    pub white: String,
    /// Which match player had black: `A` (the `--black` spec) or `B` (the `--white` spec);
    /// they differ from the fixed colours only with `--alternate`.
    pub black_player: Side,
    /// `B`, `W` or `draw`.
    pub winner: Winner,
    /// SGF-style result: `B+3.5`, `W+R` (resignation), `B+E` (white erred), `0`.
    pub result: String,
    /// Black's area margin with komi, when the game was counted.
    pub score: Option<f32>,
    /// Moves played, passes included.
    pub moves: u32,
    /// How the game ended.
    pub reason: EndReason,
    /// Seconds black spent thinking (arena-measured around each genmove).
    pub black_seconds: f64,
    /// Seconds white spent thinking.
    pub white_seconds: f64,
    /// Simulations black ran; empty where the engine does not report them (an outside GTP
    /// engine: see [`reported_sims`]). Older folders wrote 0 for those.
    pub black_sims: Option<u64>,
    /// Simulations white ran.
    pub white_sims: Option<u64>,
    /// Wall-clock seconds of the whole game, engine start-up included: wall minus thinking
    /// is the arena's overhead.
    pub wall_seconds: f64,
    /// The game's seed (derived from the match seed and the game number).
    pub seed: u64,
    /// Who erred: `B`, `W` or empty.
    pub error_by: String,
    /// The error, if any.
    pub error: String,
    /// GTP engines' own `final_score` answers (`black=... white=...`), if asked.
    pub gtp_score: String,
    /// True when a GTP engine's `final_score` names a different winner than the referee.
    pub score_disagreement: bool,
    /// CPU seconds black's engine used in the game, where known ([`super::Player::cpu_seconds`]):
    /// what "equal time" cost each side. Empty in folders recorded before it was measured.
    #[serde(default)]
    pub black_cpu_seconds: Option<f64>,
    /// The same for white.
    #[serde(default)]
    pub white_cpu_seconds: Option<f64>,
}

/// A side that lost on time while its engine got less CPU than this share of the seconds it
/// was thinking was starved by the machine (other games, other programs), not beaten by the
/// clock. Unloaded, a one-thread engine gets its whole thinking time as CPU (the committed
/// gates' clean games: 0.46 to 1.0 over a game); the starved losses of the loop gates got
/// 0.011 to 0.19, many at move 0 or 1.
pub const STARVED_CPU_SHARE: f64 = 0.25;

/// Whether `cpu` CPU seconds over `seconds` of thinking is a starved engine.
pub fn starved(cpu: f64, seconds: f64) -> bool {
    seconds > 0.0 && cpu < STARVED_CPU_SHARE * seconds
}

/// Whether a player's CPU reading covers its whole search, so that a low reading means it
/// did not get the CPU: a GTP engine's process (every thread), an in-process engine that
/// searches on the game's thread alone. A many-thread in-process engine's reading is only
/// the game's thread, which waits for the workers: it says nothing.
pub fn cpu_covers_search(spec: &str) -> bool {
    match super::spec::player_spec(spec) {
        super::spec::PlayerSpec::Outside(_) => true,
        super::spec::PlayerSpec::Engine(spec) => {
            crate::search::spec::parse_uct_kind(&spec).map_or(true, |c| c.threads <= 1)
        }
    }
}

/// A side's simulations as a row records them: `None` for an outside (`gtp:`) engine, whose
/// visits the arena does not read (see [`super::outside`]), so its tally of 0 is no count.
pub fn reported_sims(spec: &str, tallied: u64) -> Option<u64> {
    super::outside::gtp_command(spec)
        .is_none()
        .then_some(tallied)
}

impl GameRecord {
    /// The simulations `color` ran, where they were measured: never for an outside engine,
    /// whose 0 in rows written before the column could be empty was not a count either.
    pub fn sims_by(&self, color: Color) -> Option<u64> {
        let (spec, sims) = match color {
            Color::Black => (&self.black, self.black_sims),
            Color::White => (&self.white, self.white_sims),
        };
        sims.and_then(|n| reported_sims(spec, n))
    }

    /// A loss on time by a starved machine: the loser's engine, whose CPU reading covers
    /// its search, got less than [`STARVED_CPU_SHARE`] of its thinking seconds as CPU over
    /// the game (the rows keep game totals, not the move that overran). Such a game is the
    /// machine's fault, not the engine's: summaries count it apart, and the loop's gate
    /// leaves it out.
    pub fn is_starved_forfeit(&self) -> bool {
        if self.reason != EndReason::Time {
            return false;
        }
        let (spec, cpu, seconds) = match self.winner_color() {
            Some(Color::Black) => (&self.white, self.white_cpu_seconds, self.white_seconds),
            Some(Color::White) => (&self.black, self.black_cpu_seconds, self.black_seconds),
            None => return false,
        };
        cpu.is_some_and(|c| starved(c, seconds)) && cpu_covers_search(spec)
    }

    /// Moves made by `color` (black moves first).
    pub fn moves_by(&self, color: Color) -> u32 {
        match color {
            Color::Black => self.moves.div_ceil(2),
            Color::White => self.moves / 2,
        }
    }

    /// The winning colour, if any.
    pub fn winner_color(&self) -> Option<Color> {
        match self.winner {
            Winner::Black => Some(Color::Black),
            Winner::White => Some(Color::White),
            Winner::Draw => None,
        }
    }

    /// The row with every timing column zeroed: what must be identical between two runs
    /// with the same seed.
    pub fn without_timing(&self) -> GameRecord {
        GameRecord {
            black_seconds: 0.0,
            white_seconds: 0.0,
            wall_seconds: 0.0,
            black_cpu_seconds: None,
            white_cpu_seconds: None,
            ..self.clone()
        }
    }
}

/// Rounds seconds to microseconds so the CSV stays readable.
pub fn round_seconds(s: f64) -> f64 {
    (s * 1e6).round() / 1e6
}

impl crate::runs::folder::GameRow for GameRecord {
    fn game(&self) -> u32 {
        self.game
    }
}

/// Reads a match's `games.csv` (see [`crate::runs::folder::read_rows`]).
pub fn read_csv(path: &Path) -> anyhow::Result<Vec<GameRecord>> {
    crate::runs::folder::read_rows(path)
}

/// Writes `rows` (sorted by game) to `path` atomically.
pub fn write_csv(path: &Path, rows: &[GameRecord]) -> anyhow::Result<()> {
    crate::runs::folder::write_rows(path, rows)
}

/// The SGF of a game: engine specs, komi, rules, result, seed and end reason in the root.
pub fn to_sgf(
    record: &GameRecord,
    komi: f32,
    moves: &[(Color, Move)],
    opening: Option<(usize, &str)>,
) -> String {
    let mut comment = format!(
        "akushu arena game {}; seed {}; ended by {}",
        record.game,
        record.seed,
        record.reason.name()
    );
    if !record.error.is_empty() {
        comment.push_str(&format!("; error ({}): {}", record.error_by, record.error));
    }
    if !record.gtp_score.is_empty() {
        comment.push_str(&format!("; GTP final_score: {}", record.gtp_score));
    }
    if let Some((n, name)) = opening {
        comment.push_str(&format!("; opening: {name}, {n} moves"));
    }
    let mut sgf = game_root(
        komi,
        [&record.black, &record.white],
        &record.result,
        &format!("game {}", record.game),
        &comment,
    );
    let note = opening.filter(|&(n, _)| n > 0).map(|(n, name)| {
        (
            n - 1,
            format!("end of the set opening ({name}): the players' own moves follow"),
        )
    });
    write::push_moves_noted(
        &mut sgf,
        moves,
        note.as_ref().map(|(i, t)| (*i, t.as_str())),
    );
    sgf.push_str(")\n");
    sgf
}

/// An arena SGF: the root (komi, rules), players, result, game name and comment, then the
/// moves. Matches and self-play write their games with it.
pub fn game_sgf(
    komi: f32,
    [black, white]: [&str; 2],
    result: &str,
    name: &str,
    comment: &str,
    moves: &[(Color, Move)],
) -> String {
    let mut sgf = game_root(komi, [black, white], result, name, comment);
    write::push_moves(&mut sgf, moves);
    sgf.push_str(")\n");
    sgf
}

/// The root node of an arena SGF (see [`game_sgf`]).
fn game_root(
    komi: f32,
    [black, white]: [&str; 2],
    result: &str,
    name: &str,
    comment: &str,
) -> String {
    let mut sgf = write::root(komi);
    sgf.push_str(&format!(
        "PB[{}]PW[{}]RE[{}]GN[{}]C[{}]",
        write::escape(black),
        write::escape(white),
        write::escape(result),
        write::escape(name),
        write::escape(comment),
    ));
    sgf
}
