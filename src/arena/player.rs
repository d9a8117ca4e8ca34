//! The arena's view of a player: an in-process [`Engine`] or an external GTP engine, behind
//! one fallible interface so that a crash, a hang or garbage becomes a lost game, not a
//! crashed match.
//!
//! Specs: `gtp:<command line>` starts an external engine; anything else is an in-process
//! engine spec built by [`build_engine`], the same registry GTP and experiments use.

use std::time::Instant;

use thiserror::Error;

use super::gtp::{GtpClient, GtpError};
use super::outside::GtpAnswers;
use super::spec::{PlayerSpec, player_spec};
use crate::dataset::record::VISIT_SLOTS;
use crate::rules::{Color, Move};
use crate::search::TimeControl;
use crate::search::{Engine, EngineMove, MoveStats};

/// A player failed; the game is lost for it.
#[derive(Debug, Clone, Error, PartialEq)]
pub enum PlayerError {
    #[error(transparent)]
    Gtp(#[from] GtpError),
    #[error("engine rejected a move: {0}")]
    Rejected(String),
    #[error("{0}")]
    Build(String),
    /// The machine could not give the engine what it needs (its search tree's memory).
    #[error("{0} (this machine's limit, not the engine's fault)")]
    Resources(String),
}

impl PlayerError {
    /// Whether the referee's machine, not the player, failed (see
    /// [`GtpError::Resources`]): such a game is not the player's loss.
    pub fn is_referee_fault(&self) -> bool {
        match self {
            PlayerError::Gtp(e) => e.is_referee_fault(),
            PlayerError::Resources(_) => true,
            _ => false,
        }
    }
}

/// Timeouts for external engines.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GtpTimeouts {
    /// Seconds an engine may think on one `genmove` before it loses the game.
    pub genmove_s: f64,
    /// Seconds for every other command (setup, `play`, `final_score`).
    pub command_s: f64,
}

impl Default for GtpTimeouts {
    fn default() -> Self {
        GtpTimeouts {
            genmove_s: 60.0,
            command_s: 10.0,
        }
    }
}

/// One side of a game.
pub trait Player: Send {
    /// The spec the player was built from.
    fn spec(&self) -> &str;
    /// Prepares a new game on the empty 9x9 board.
    fn new_game(&mut self, komi: f32) -> Result<(), PlayerError>;
    /// Tells the player about a move (its own moves are recorded by `genmove`).
    fn play(&mut self, color: Color, mv: Move) -> Result<(), PlayerError>;
    /// Asks for a move for `color`. The returned stats carry arena-measured seconds.
    fn genmove(&mut self, color: Color) -> Result<(EngineMove, MoveStats), PlayerError>;
    /// Asks for a move with the search's root visits at every point and pass (self-play's
    /// training target and its temperature draw). A player that cannot say answers as
    /// [`Player::genmove`] does, with no visits.
    fn genmove_with_visits(&mut self, color: Color) -> Result<Searched, PlayerError> {
        let (mv, stats) = self.genmove(color)?;
        Ok((mv, stats, None))
    }
    /// Takes back the last move (the temperature draw replaces a player's own choice).
    fn undo(&mut self) -> Result<(), PlayerError> {
        Err(PlayerError::Rejected(
            "this player cannot take a move back".into(),
        ))
    }
    /// The player's own count of the final position (GTP `final_score`), if it has one.
    fn final_score(&mut self) -> Option<String> {
        None
    }
    /// Ends the player (GTP `quit`).
    fn close(&mut self) {}
    /// CPU seconds the player has used so far, where known: an in-process engine's
    /// `genmove` and `play` on the game's thread (all of a one-thread engine's work), a GTP
    /// engine's process and its children (start-up included; a game counts from its set-up).
    fn cpu_seconds(&self) -> Option<f64> {
        None
    }
    /// Announces the clock system (before the first move).
    fn set_time_control(&mut self, _control: TimeControl) -> Result<(), PlayerError> {
        Ok(())
    }
    /// Reports a side's clock (before each of its moves).
    fn time_left(&mut self, _color: Color, _seconds: f64, _stones: u32) -> Result<(), PlayerError> {
        Ok(())
    }
    /// An outside engine's answers to GTP `name` and `version`, which the match folder
    /// records; `None` for an in-process engine, whose spec says what it is.
    fn gtp_answers(&mut self) -> Result<Option<GtpAnswers>, PlayerError> {
        Ok(None)
    }
}

/// A move with its stats and, where the player reports them, the root's visits by point
/// index (pass last).
pub type Searched = (EngineMove, MoveStats, Option<Box<[u32; VISIT_SLOTS]>>);

use crate::search::engine::EngineBuildError;
/// In-process engines of every registered kind ([`crate::search::spec::ENGINE_KINDS`]).
pub use crate::search::spec::build_engine;

/// Builds the player for `spec` with the per-game `seed`.
pub fn build_player(
    spec: &str,
    seed: u64,
    timeouts: GtpTimeouts,
) -> Result<Box<dyn Player>, PlayerError> {
    if let PlayerSpec::Outside(command) = player_spec(spec) {
        Ok(Box::new(GtpPlayer::start(spec, &command, seed, timeouts)?))
    } else {
        let engine = build_engine(spec, seed).map_err(|e| match e {
            EngineBuildError::Resources { .. } => PlayerError::Resources(format!("{e:#}")),
            EngineBuildError::Spec(_) => PlayerError::Build(format!("{e:#}")),
        })?;
        Ok(Box::new(InProcess::new(spec, engine)))
    }
}

/// An in-process engine (cannot crash or hang short of a bug, which is a panic).
pub struct InProcess {
    spec: String,
    engine: Box<dyn Engine>,
    /// CPU seconds of this thread spent in the engine's `genmove` and `play` (`None` where
    /// the platform does not say): an engine that works on a move it is told (moving its
    /// tree along) spends CPU there as a GTP engine's process does.
    cpu: Option<f64>,
    /// Reads this thread's CPU seconds: [`crate::util::thread_cpu_seconds`], or a fake
    /// clock where a test must not depend on how much CPU the machine gives.
    cpu_clock: fn() -> Option<f64>,
}

impl InProcess {
    /// The player of an engine already built from `spec`.
    pub fn new(spec: &str, engine: Box<dyn Engine>) -> InProcess {
        InProcess::with_cpu_clock(spec, engine, crate::util::thread_cpu_seconds)
    }

    /// [`InProcess::new`] whose CPU seconds are read from `cpu_clock` (seconds on this
    /// thread, `None` where unknown) instead of the thread's own clock.
    pub fn with_cpu_clock(
        spec: &str,
        engine: Box<dyn Engine>,
        cpu_clock: fn() -> Option<f64>,
    ) -> InProcess {
        InProcess {
            spec: spec.to_string(),
            engine,
            cpu: cpu_clock().map(|_| 0.0),
            cpu_clock,
        }
    }

    /// Runs `search` on the engine, timing it on the wall clock and this thread's CPU clock.
    fn timed<T>(&mut self, search: impl FnOnce(&mut dyn Engine) -> T) -> (T, f64) {
        let start = Instant::now();
        let answer = self.charged(search);
        (answer, start.elapsed().as_secs_f64())
    }

    /// Runs `work` on the engine, adding this thread's CPU time in it to the engine's.
    fn charged<T>(&mut self, work: impl FnOnce(&mut dyn Engine) -> T) -> T {
        let cpu0 = (self.cpu_clock)();
        let answer = work(self.engine.as_mut());
        self.cpu = match (self.cpu, cpu0, (self.cpu_clock)()) {
            (Some(sum), Some(a), Some(b)) => Some(sum + (b - a).max(0.0)),
            _ => None,
        };
        answer
    }
}

impl Player for InProcess {
    fn spec(&self) -> &str {
        &self.spec
    }
    fn new_game(&mut self, komi: f32) -> Result<(), PlayerError> {
        self.engine.new_game(komi);
        Ok(())
    }
    fn play(&mut self, color: Color, mv: Move) -> Result<(), PlayerError> {
        self.charged(|e| e.play(color, mv))
            .map_err(|e| PlayerError::Rejected(e.to_string()))
    }
    fn genmove(&mut self, color: Color) -> Result<(EngineMove, MoveStats), PlayerError> {
        let ((mv, mut stats), seconds) = self.timed(|e| e.genmove(color));
        stats.seconds = seconds;
        Ok((mv, stats))
    }
    fn genmove_with_visits(&mut self, color: Color) -> Result<Searched, PlayerError> {
        if self.engine.analyzer().is_none() {
            let (mv, stats) = self.genmove(color)?;
            return Ok((mv, stats, None));
        }
        let ((mv, mut stats, candidates), seconds) = self.timed(|e| {
            let analyzer = e.analyzer().expect("checked above");
            analyzer.genmove_analyze(color, 1)
        });
        stats.seconds = seconds;
        let mut counts = Box::new([0u32; VISIT_SLOTS]);
        for c in &candidates {
            counts[c.mv.index()] += c.visits;
        }
        Ok((mv, stats, Some(counts)))
    }
    fn undo(&mut self) -> Result<(), PlayerError> {
        if self.engine.undo() {
            Ok(())
        } else {
            Err(PlayerError::Rejected("no move to take back".into()))
        }
    }
    fn cpu_seconds(&self) -> Option<f64> {
        self.cpu
    }
    fn set_time_control(&mut self, control: TimeControl) -> Result<(), PlayerError> {
        self.engine.set_time_control(control);
        Ok(())
    }
    fn time_left(&mut self, color: Color, seconds: f64, stones: u32) -> Result<(), PlayerError> {
        self.engine.set_time_left(color, seconds, stones);
        Ok(())
    }
}

/// An external engine spoken to over GTP.
pub struct GtpPlayer {
    spec: String,
    client: GtpClient,
    timeouts: GtpTimeouts,
    seed: u64,
}

impl GtpPlayer {
    /// Starts the engine; the seed is sent with `set_random_seed` when the engine knows it
    /// (GNU Go does), so that its own choices are logged and replayable.
    pub fn start(
        spec: &str,
        command_line: &str,
        seed: u64,
        timeouts: GtpTimeouts,
    ) -> Result<GtpPlayer, PlayerError> {
        Ok(GtpPlayer {
            spec: spec.to_string(),
            client: GtpClient::spawn(command_line)?,
            timeouts,
            seed,
        })
    }

    fn command(&mut self, command: &str) -> Result<String, PlayerError> {
        let t = crate::util::num::duration_saturating(self.timeouts.command_s);
        Ok(self.client.command(command, t)?)
    }
}

impl Player for GtpPlayer {
    fn spec(&self) -> &str {
        &self.spec
    }

    fn new_game(&mut self, komi: f32) -> Result<(), PlayerError> {
        self.command("boardsize 9")?;
        self.command("clear_board")?;
        self.command(&format!("komi {komi}"))?;
        // `known_command` is required by GTP 2, but an engine that refuses it just gets no seed.
        let knows_seed = match self.command("known_command set_random_seed") {
            Ok(answer) => answer == "true",
            Err(PlayerError::Gtp(GtpError::Refused { .. })) => false,
            Err(e) => return Err(e),
        };
        if knows_seed {
            // GNU Go takes a 31-bit seed.
            self.command(&format!("set_random_seed {}", self.seed & 0x7fff_ffff))?;
        }
        Ok(())
    }

    fn play(&mut self, color: Color, mv: Move) -> Result<(), PlayerError> {
        self.command(&format!("play {} {}", color.letter(), mv.to_gtp()))
            .map(|_| ())
    }

    fn genmove(&mut self, color: Color) -> Result<(EngineMove, MoveStats), PlayerError> {
        let command = format!("genmove {}", color.letter());
        let start = Instant::now();
        let t = crate::util::num::duration_saturating(self.timeouts.genmove_s);
        let reply = self.client.command(&command, t)?;
        let stats = MoveStats {
            simulations: 0,
            seconds: start.elapsed().as_secs_f64(),
            winrate: None,
        };
        let text = reply.trim();
        if text.eq_ignore_ascii_case("resign") {
            return Ok((EngineMove::Resign, stats));
        }
        let mv = Move::from_gtp(text).map_err(|_| {
            PlayerError::Gtp(GtpError::Garbage {
                command,
                reply: reply.clone(),
            })
        })?;
        Ok((EngineMove::Play(mv), stats))
    }

    fn final_score(&mut self) -> Option<String> {
        self.command("final_score").ok()
    }

    fn undo(&mut self) -> Result<(), PlayerError> {
        self.command("undo").map(|_| ())
    }

    fn set_time_control(&mut self, control: TimeControl) -> Result<(), PlayerError> {
        // GTP 2's time_settings speaks Canadian overtime only: Japanese byo-yomi goes as
        // kgs-time_settings when the engine knows it, else as one stone per period.
        let gtp = match control {
            TimeControl::None => "time_settings 0 1 0".to_string(),
            TimeControl::Absolute { main } => format!("time_settings {main} 0 0"),
            TimeControl::Canadian {
                main,
                period,
                stones,
            } => format!("time_settings {main} {period} {stones}"),
            TimeControl::ByoYomi {
                main,
                period,
                periods,
            } => {
                let kgs = self.command("known_command kgs-time_settings");
                if matches!(kgs.as_deref(), Ok("true")) {
                    format!("kgs-time_settings byoyomi {main} {period} {periods}")
                } else {
                    format!("time_settings {main} {period} 1")
                }
            }
        };
        self.command(&gtp).map(|_| ())
    }

    fn time_left(&mut self, color: Color, seconds: f64, stones: u32) -> Result<(), PlayerError> {
        // Whole seconds, rounded down, as GTP 2 specifies.
        let secs = seconds.max(0.0).floor() as u64;
        self.command(&format!("time_left {} {secs} {stones}", color.letter()))
            .map(|_| ())
    }

    fn close(&mut self) {
        self.client.quit();
    }

    fn cpu_seconds(&self) -> Option<f64> {
        crate::util::process_cpu_seconds(self.client.pid())
    }

    fn gtp_answers(&mut self) -> Result<Option<GtpAnswers>, PlayerError> {
        // Both are GTP 2's required commands; an engine refusing one has no answer recorded,
        // any other failure (a crash, a hang, garbage) is the engine's and is reported.
        let mut ask = |command: &str| match self.command(command) {
            Ok(answer) => Ok(Some(answer)),
            Err(PlayerError::Gtp(GtpError::Refused { .. })) => Ok(None),
            Err(e) => Err(e),
        };
        Ok(Some(GtpAnswers {
            name: ask("name")?,
            version: ask("version")?,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Game, IllegalMove};
    use std::cell::Cell;

    thread_local! {
        /// The fake CPU clock of this test thread: what the fake engine has "spent".
        static FAKE_CPU: Cell<f64> = const { Cell::new(0.0) };
    }

    fn fake_cpu() -> Option<f64> {
        Some(FAKE_CPU.with(Cell::get))
    }

    fn burn(seconds: f64) {
        FAKE_CPU.with(|c| c.set(c.get() + seconds));
    }

    /// An engine that passes, spending on the fake clock 4 s to set a game up, 1 s a move
    /// it searches and 0.25 s a move it is told.
    struct Burner {
        game: Game,
    }

    impl Engine for Burner {
        fn name(&self) -> String {
            "burner".into()
        }
        fn new_game(&mut self, komi: f32) {
            burn(4.0);
            self.game = Game::new(komi);
        }
        fn play(&mut self, color: Color, mv: Move) -> Result<(), IllegalMove> {
            burn(0.25);
            self.game.play_as(color, mv)
        }
        fn genmove(&mut self, color: Color) -> (EngineMove, MoveStats) {
            burn(1.0);
            self.game
                .play_as(color, Move::Pass)
                .expect("a pass is legal");
            (EngineMove::Play(Move::Pass), MoveStats::default())
        }
        fn undo(&mut self) -> bool {
            self.game.undo()
        }
        fn game(&self) -> &Game {
            &self.game
        }
    }

    /// An in-process engine is charged the CPU of its searches and of the moves it is told
    /// (an engine moving its tree along works there).
    #[test]
    fn an_in_process_engine_is_charged_its_moves_and_the_moves_it_is_told() {
        let engine = Box::new(Burner {
            game: Game::new(6.5),
        });
        let mut p = InProcess::with_cpu_clock("burner", engine, fake_cpu);
        p.new_game(6.5).unwrap();
        let set_up = p.cpu_seconds().expect("the fake clock reads");
        let spent = |p: &InProcess| p.cpu_seconds().unwrap() - set_up;
        p.genmove(Color::Black).unwrap();
        assert_eq!(spent(&p), 1.0);
        p.play(Color::White, Move::from_gtp("E5").unwrap()).unwrap();
        assert_eq!(spent(&p), 1.25);
        p.genmove_with_visits(Color::Black).unwrap();
        assert_eq!(spent(&p), 2.25);
    }
}
