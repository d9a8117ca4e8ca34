//! A GTP (Go Text Protocol, version 2) front end for any [`Engine`], so GUIs (GoGui, Sabaki),
//! servers (kgsGtp) and tournament tools (gogui-twogtp) can drive akushu's engines.
//!
//! Robustness rules: every input line gets exactly one reply (`=` or `?`, with the command's
//! id when it had one); malformed, unknown or illegal input gets `? message`, never a panic or
//! a hang. Control characters are dropped, tabs become spaces, `#` starts a comment, empty
//! lines are ignored (GTP 2, section 3.1).
//!
//! Live analysis (`lz-analyze`, `kata-analyze`) answers `=` at once and then prints `info`
//! lines until the next input line arrives, so input is read on its own thread and handed
//! over a channel: the analysis loop searches in short chunks and polls the channel between
//! them, stops on any line, ends its response with the blank line, then answers that line.
//!
//! A controller that is gone stops the search: with [`GtpServer::with_stop_at_eof`], input
//! that ends without `quit` sets the engine's stop flag ([`Engine::set_stop`]), so a running
//! `genmove` ends at its next clock check and is answered with the move found so far, and
//! the binary sets the same flag when its stdout's reader is gone. A controller that sends
//! no time settings gets moves of at most [`GtpServer::with_move_cap`] seconds; any
//! `time_settings` or `kgs-time_settings` hands the clock to the controller instead.

pub mod analyze;
pub mod json_analysis;
pub mod setup;

use std::io::{self, BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, sync_channel};
use std::time::{Duration, Instant};

use crate::rules::MAX_KOMI;
use crate::rules::{Color, Game, Move, N, NN, Point, bit};
use crate::search::{Engine, EngineMove, TimeControl};
use crate::util::num::MAX_SECONDS;
use analyze::{AnalyzeArgs, Format};

/// The commands answered, in `list_commands` order.
pub const COMMANDS: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "undo",
    "showboard",
    "final_score",
    "final_status_list",
    "time_settings",
    "kgs-time_settings",
    "time_left",
    "kgs-genmove_cleanup",
    "gogui-analyze_commands",
    "akushu-pruner_scores",
    "akushu-pruned",
    "fixed_handicap",
    "place_free_handicap",
    "set_free_handicap",
    "loadsgf",
    "printsgf",
    "lz-analyze",
    "kata-analyze",
    "lz-genmove_analyze",
    "kata-genmove_analyze",
    "genmove_analyze",
];

/// The commands only engines with an [`crate::search::LiveAnalysis`] answer; the others do not
/// list them, so a GUI does not offer analysis it would only get errors for.
const ANALYSIS_COMMANDS: &[&str] = &[
    "lz-analyze",
    "kata-analyze",
    "lz-genmove_analyze",
    "kata-genmove_analyze",
    "genmove_analyze",
];

/// Input lines read ahead of the server at most (a peer flooding lines waits instead of
/// filling the memory).
const READ_AHEAD: usize = 64;

/// Longest search chunk of live analysis: the most a new command waits for the analysis to
/// notice it.
const MAX_CHUNK: Duration = Duration::from_millis(50);

/// Shortest search chunk, so that an interval of 0 still searches between two updates.
const MIN_CHUNK: Duration = Duration::from_millis(5);

/// One input line as the reader thread hands it over.
enum Input {
    Line(String),
    /// A line that cannot be a command, with the reply it gets.
    Refused(&'static str),
}

/// What the reader thread sends: a line, or the read error that ended the input.
type Incoming = io::Result<Input>;

/// A parsed command line.
struct Parsed {
    id: Option<String>,
    name: String,
    args: Vec<String>,
}

/// Longest command line read, in bytes.
const MAX_LINE: u64 = 1 << 20;

/// One GTP session around an engine.
pub struct GtpServer {
    engine: Box<dyn Engine>,
    komi: f32,
    /// Print one line of search statistics per genmove to stderr (GoGui shows it in its
    /// GTP shell; stdout stays pure protocol).
    log: bool,
    /// After each move it generates, search the opponent's replies until the next line
    /// arrives (pondering: the tree it grows serves the next `genmove`).
    ponder: bool,
    /// The engine's stop flag ([`Engine::set_stop`]): set when the controller is gone.
    stop: Arc<AtomicBool>,
    /// Set `stop` when the input ends without `quit` ([`GtpServer::with_stop_at_eof`]).
    stop_at_eof: bool,
}

/// A reply: success or failure text (without the `=`/`?` prefix).
type Reply = Result<String, String>;

impl GtpServer {
    pub fn new(mut engine: Box<dyn Engine>) -> GtpServer {
        let komi = 6.5;
        engine.new_game(komi);
        let stop = Arc::new(AtomicBool::new(false));
        engine.set_stop(stop.clone());
        GtpServer {
            engine,
            komi,
            log: false,
            ponder: false,
            stop,
            stop_at_eof: false,
        }
    }

    /// Caps each move's search at `seconds` until the controller sends time settings
    /// (`time_settings`, `kgs-time_settings`), from which on its clock rules alone; `None`
    /// leaves the engine's own budget alone.
    pub fn with_move_cap(mut self, seconds: Option<f64>) -> GtpServer {
        self.engine.set_move_cap(seconds);
        self
    }

    /// Treats input that ends without `quit` as a controller that is gone (off by default):
    /// the search running then ends at its next clock check, is answered with the move found
    /// so far, and every later search ends at once. For a live peer on a pipe (the binary's
    /// stdin); a script read from memory ends at once and would have every search cut short.
    pub fn with_stop_at_eof(mut self, on: bool) -> GtpServer {
        self.stop_at_eof = on;
        self
    }

    /// The engine's stop flag: setting it ends the running search and every later one
    /// (what the binary does when its stdout's reader is gone).
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Turns pondering on or off (off by default): after each generated move the engine
    /// searches for the side to move next until the next command arrives, which stops it.
    pub fn with_ponder(mut self, on: bool) -> GtpServer {
        self.ponder = on;
        self
    }

    /// Turns the per-genmove statistics line on stderr on or off (off by default).
    pub fn with_log(mut self, on: bool) -> GtpServer {
        self.log = on;
        self
    }

    pub fn engine(&self) -> &dyn Engine {
        self.engine.as_ref()
    }

    /// The engine, to inspect its analysis (tests, embedding programs).
    pub fn engine_mut(&mut self) -> &mut dyn Engine {
        self.engine.as_mut()
    }

    /// Answers one input line. Returns the full reply text (ending in a blank line) and
    /// whether to stop reading (`quit`), or `None` for lines that need no reply. Live
    /// analysis, which has no next line to wait for here, runs one short search chunk
    /// (`MIN_CHUNK`) and ends.
    pub fn handle_line(&mut self, line: &str) -> Option<(String, bool)> {
        let mut out = Vec::new();
        let quit = self
            .answer(line, &mut out, &mut || true, MIN_CHUNK)
            .expect("writing to memory cannot fail");
        (!out.is_empty()).then(|| (String::from_utf8_lossy(&out).into_owned(), quit))
    }

    /// Reads commands until `quit` or end of input, writing replies as they come. Input is
    /// read on a scoped thread, so this returns only once `input` has ended or delivers
    /// another line after `quit`: give [`GtpServer::run_detached`] a pipe that may stay
    /// open.
    pub fn run<R: BufRead + Send, W: Write>(&mut self, input: R, output: W) -> io::Result<()> {
        let gone = self.stop_at_eof.then(|| self.stop.clone());
        std::thread::scope(|s| {
            let (tx, rx) = sync_channel(READ_AHEAD);
            s.spawn(move || read_lines(input, tx, gone));
            self.serve(rx, output)
        })
    }

    /// Like [`GtpServer::run`], but the reader thread is detached, so `quit` returns at
    /// once even while the peer keeps the input open (the `akushu gtp` binary on stdin).
    pub fn run_detached<R: BufRead + Send + 'static, W: Write>(
        &mut self,
        input: R,
        output: W,
    ) -> io::Result<()> {
        let gone = self.stop_at_eof.then(|| self.stop.clone());
        let (tx, rx) = sync_channel(READ_AHEAD);
        std::thread::spawn(move || read_lines(input, tx, gone));
        self.serve(rx, output)
    }

    /// Answers the lines from `rx` until `quit` or the end of input.
    fn serve<W: Write>(&mut self, rx: Receiver<Incoming>, mut output: W) -> io::Result<()> {
        // A line that arrived during live analysis: it stopped the analysis and is answered
        // next.
        let mut pending: Option<Incoming> = None;
        loop {
            let next = match pending.take() {
                Some(n) => n,
                None => match rx.recv() {
                    Ok(n) => n,
                    Err(_) => break,
                },
            };
            let line = match next? {
                Input::Line(l) => l,
                Input::Refused(reply) => {
                    output.write_all(reply.as_bytes())?;
                    output.flush()?;
                    continue;
                }
            };
            let mut stop = || match rx.try_recv() {
                Ok(n) => {
                    pending = Some(n);
                    true
                }
                Err(TryRecvError::Empty) => false,
                // The input ended: nothing will ever stop the analysis otherwise.
                Err(TryRecvError::Disconnected) => true,
            };
            if self.answer(&line, &mut output, &mut stop, MAX_CHUNK)? {
                break;
            }
        }
        Ok(())
    }

    /// Answers one line on `out`; `stop` tells live analysis when to end, checked after
    /// search chunks of at most `max_chunk`. Returns whether to stop reading (`quit`).
    fn answer(
        &mut self,
        line: &str,
        out: &mut dyn Write,
        stop: &mut dyn FnMut() -> bool,
        max_chunk: Duration,
    ) -> io::Result<bool> {
        let cmd = match parse_line(line) {
            None => return Ok(false),
            Some(Err(reply)) => {
                out.write_all(reply.as_bytes())?;
                out.flush()?;
                return Ok(false);
            }
            Some(Ok(cmd)) => cmd,
        };
        let args: Vec<&str> = cmd.args.iter().map(String::as_str).collect();
        let id = cmd.id.as_deref().unwrap_or("");
        match cmd.name.as_str() {
            "lz-analyze" | "kata-analyze" => {
                self.live_analysis(id, &cmd.name, &args, out, stop, max_chunk)?;
                return Ok(false);
            }
            "lz-genmove_analyze" | "kata-genmove_analyze" | "genmove_analyze" => {
                self.genmove_analyze(id, &cmd.name, &args, out)?;
                return Ok(false);
            }
            _ => {}
        }
        let reply = self.dispatch(&cmd.name, &args);
        let quit = cmd.name == "quit" && reply.is_ok();
        let generated =
            reply.is_ok() && matches!(cmd.name.as_str(), "genmove" | "kgs-genmove_cleanup");
        out.write_all(format_reply(id, reply).as_bytes())?;
        out.flush()?;
        if generated && self.ponder {
            self.ponder_until(stop, max_chunk);
        }
        Ok(quit)
    }

    /// Searches the position for the side to move (the opponent, after our move) in
    /// chunks of at most `max_chunk` until `stop` says a line arrived. Prints nothing.
    fn ponder_until(&mut self, stop: &mut dyn FnMut() -> bool, max_chunk: Duration) {
        if self.engine.game().is_over() {
            return;
        }
        let color = self.engine.game().to_move();
        let Some(analyzer) = self.engine.analyzer() else {
            return;
        };
        loop {
            analyzer.analyze_until(color, Instant::now() + max_chunk.max(MIN_CHUNK));
            if stop() {
                break;
            }
        }
    }

    /// `lz-analyze` / `kata-analyze`: `=` at once, then an `info` line every interval
    /// until `stop` says a new line arrived (checked after every search chunk of at most
    /// `max_chunk`), a last line for what was searched since, and the blank line that ends
    /// the response.
    fn live_analysis(
        &mut self,
        id: &str,
        command: &str,
        args: &[&str],
        out: &mut dyn Write,
        stop: &mut dyn FnMut() -> bool,
        max_chunk: Duration,
    ) -> io::Result<()> {
        let Some((opts, format)) = self.start_analysis(id, command, args, out)? else {
            return Ok(());
        };
        let analyzer = self.engine.analyzer().expect("checked by start_analysis");
        let mut due = Instant::now() + opts.interval;
        // Simulations run since the last info line.
        let mut fresh = 0u64;
        loop {
            let now = Instant::now();
            let chunk = due
                .saturating_duration_since(now)
                .clamp(MIN_CHUNK, max_chunk.max(MIN_CHUNK));
            fresh += analyzer.analyze_until(opts.color, now + chunk);
            let stopping = stop();
            if stopping && fresh == 0 {
                break;
            }
            if stopping || Instant::now() >= due {
                let line = info_text(analyzer, &opts, format);
                if !line.is_empty() {
                    write_flush(out, &format!("{line}\n"))?;
                }
                fresh = 0;
                due = Instant::now() + opts.interval;
            }
            if stopping {
                break;
            }
        }
        write_flush(out, "\n")
    }

    /// The stones the search expects to die, once the game is over (two passes): a stone
    /// is dead when, over [`DEAD_STONE_SIMS`] simulations from here, its point ends as its
    /// colour's in under a quarter of them (ownership below -0.5 for its colour). Empty
    /// before the end, for engines without analysis, and for a search that keeps no owners.
    fn dead_stones(&mut self) -> crate::rules::Bits {
        let game = self.engine.game();
        if !game.is_over() {
            return 0;
        }
        let (to_move, board, original) = (game.to_move(), *game.board(), game.clone());
        // Searched as a position to play on (after two passes every simulation would end at
        // once), then the game is put back as it was.
        let position = Game::from_board(board, to_move, original.komi());
        if self.engine.analyzer().is_none() || self.engine.set_game(position).is_err() {
            return 0;
        }
        let owners = self.engine.analyzer().and_then(|a| {
            a.analyze_sims(to_move, DEAD_STONE_SIMS);
            a.ownership(Color::Black)
        });
        let _ = self.engine.set_game(original);
        let Some(black_owner) = owners else {
            return 0;
        };
        let mut dead = 0;
        for p in Point::all() {
            let own = match board.color_at(p) {
                Some(Color::Black) => black_owner[p.index()],
                Some(Color::White) => -black_owner[p.index()],
                None => continue,
            };
            if own < -0.5 {
                dead |= bit(p.index());
            }
        }
        dead
    }

    /// The common start of the analysis commands: parses the arguments and checks that the
    /// engine analyzes, answering `?` when not (then `None`), else writes the `=` line that
    /// opens the response.
    fn start_analysis(
        &mut self,
        id: &str,
        command: &str,
        args: &[&str],
        out: &mut dyn Write,
    ) -> io::Result<Option<(AnalyzeArgs, Format)>> {
        let format = if command.starts_with("kata-") {
            Format::Kata
        } else {
            Format::Leela
        };
        let to_move = self.engine.game().to_move();
        let reply = match analyze::parse_args(command, args, to_move) {
            Ok(_) if self.engine.analyzer().is_none() => Err("analysis not supported".into()),
            other => other,
        };
        match reply {
            Ok(opts) => {
                write_flush(out, &format!("={id}\n"))?;
                Ok(Some((opts, format)))
            }
            Err(e) => {
                write_flush(out, &format_reply(id, Err(e)))?;
                Ok(None)
            }
        }
    }

    /// `lz-genmove_analyze` / `kata-genmove_analyze` / `genmove_analyze`: the engine's
    /// usual move search, then one `info` line for it and `play MOVE` (Sabaki's analysis
    /// while the engine plays). The arguments are those of the analyze commands; the color
    /// is the side to play.
    fn genmove_analyze(
        &mut self,
        id: &str,
        command: &str,
        args: &[&str],
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let Some((opts, format)) = self.start_analysis(id, command, args, out)? else {
            return Ok(());
        };
        let analyzer = self.engine.analyzer().expect("checked by start_analysis");
        let (m, _, candidates) = analyzer.genmove_analyze(opts.color, analyze::MAX_PV);
        let line = analyze::info_line(&analyze::shown(candidates, &[], &opts), format);
        if !line.is_empty() {
            write_flush(out, &format!("{line}\n"))?;
        }
        let played = match m {
            EngineMove::Play(mv) => mv.to_gtp(),
            EngineMove::Resign => "resign".into(),
        };
        write_flush(out, &format!("play {played}\n\n"))
    }

    fn dispatch(&mut self, command: &str, args: &[&str]) -> Reply {
        match command {
            "protocol_version" => Ok("2".into()),
            "name" => Ok("akushu".into()),
            "version" => Ok(format!(
                "{} ({})",
                env!("CARGO_PKG_VERSION"),
                self.engine.name()
            )),
            "known_command" => {
                let c = arg(args, 0, "command name")?;
                Ok(self.commands().contains(&c).to_string())
            }
            "list_commands" => Ok(self.commands().join("\n")),
            "quit" => Ok(String::new()),
            "boardsize" => {
                let n: usize = parse(arg(args, 0, "size")?, "board size")?;
                if n != N {
                    return Err("unacceptable size".into());
                }
                self.engine.new_game(self.komi);
                Ok(String::new())
            }
            "clear_board" => {
                self.engine.new_game(self.komi);
                Ok(String::new())
            }
            "komi" => {
                let k = ranged(arg(args, 0, "komi")?, "komi", -MAX_KOMI, MAX_KOMI)?;
                self.komi = k;
                self.engine.set_komi(k);
                Ok(String::new())
            }
            "play" => {
                let color = color_arg(args, 0)?;
                let mv = vertex_arg(args, 1)?;
                self.engine
                    .play(color, mv)
                    .map(|_| String::new())
                    .map_err(|e| format!("illegal move: {e}"))
            }
            "genmove" | "kgs-genmove_cleanup" => {
                let color = color_arg(args, 0)?;
                let (m, stats) = if command == "genmove" {
                    self.engine.genmove(color)
                } else {
                    self.engine.genmove_cleanup(color)
                };
                let text = match m {
                    EngineMove::Play(mv) => mv.to_gtp(),
                    EngineMove::Resign => "resign".into(),
                };
                if self.log {
                    let wr = stats.winrate.map_or("-".into(), |w| format!("{w:.3}"));
                    crate::errln!(
                        "# {command} {}: {text}  winrate {wr}  sims {}  {:.3} s",
                        color.letter(),
                        stats.simulations,
                        stats.seconds
                    );
                }
                Ok(text)
            }
            "undo" => {
                if self.engine.undo() {
                    Ok(String::new())
                } else {
                    Err("cannot undo".into())
                }
            }
            "showboard" => Ok(format!("\n{}", self.engine.game().board())),
            "final_score" => {
                // After two passes, the stones the search expects to die are taken off (so a
                // GUI's count agrees with the search); before that the board counts as it is.
                let dead = self.dead_stones();
                let game = self.engine.game();
                let margin =
                    crate::rules::score::area_without(game.board(), dead).margin(game.komi());
                Ok(Game::result_text(margin))
            }
            "final_status_list" => {
                let status = arg(args, 0, "status")?;
                if !matches!(status, "alive" | "dead" | "seki") {
                    return Err(format!("syntax error: unknown status `{status}`"));
                }
                let dead = self.dead_stones();
                let board = self.engine.game().board();
                let pts: Vec<String> = Point::all()
                    .filter(|&p| {
                        let is_dead = dead & bit(p.index()) != 0;
                        match status {
                            "alive" => board.color_at(p).is_some() && !is_dead,
                            "dead" => is_dead,
                            _ => false,
                        }
                    })
                    .map(|p| p.to_gtp())
                    .collect();
                Ok(pts.join(" "))
            }
            "time_settings" => {
                let main = ranged(arg(args, 0, "main time")?, "main time", 0.0, MAX_SECONDS)?;
                let byo = ranged(
                    arg(args, 1, "byo-yomi time")?,
                    "byo-yomi time",
                    0.0,
                    MAX_SECONDS,
                )?;
                let stones: u32 = parse(arg(args, 2, "byo-yomi stones")?, "byo-yomi stones")?;
                self.set_clock(TimeControl::from_gtp(main, byo, stones));
                Ok(String::new())
            }
            "kgs-time_settings" => {
                let control = TimeControl::from_kgs(args)
                    .map_err(|e| format!("syntax error: kgs-time_settings: {e}"))?;
                self.set_clock(control);
                Ok(String::new())
            }
            "time_left" => {
                let color = color_arg(args, 0)?;
                let secs = ranged(arg(args, 1, "time")?, "time", 0.0, MAX_SECONDS)?;
                let stones: u32 = parse(arg(args, 2, "stones")?, "stones")?;
                self.engine.set_time_left(color, secs, stones);
                Ok(String::new())
            }
            "gogui-analyze_commands" => Ok([
                "dboard/Pruner badness/akushu-pruner_scores %c",
                "gfx/Pruned points/akushu-pruned %c",
            ]
            .join("\n")),
            "akushu-pruner_scores" => {
                let color = color_arg(args, 0)?;
                let view = self.pruner_view(color)?;
                let mut rows = Vec::new();
                for r in 0..N {
                    let row: Vec<String> = (0..N)
                        .map(|c| format!("{:.3}", view.scores[r * N + c]))
                        .collect();
                    rows.push(row.join(" "));
                }
                Ok(format!("\n{}", rows.join("\n")))
            }
            "akushu-pruned" => {
                let color = color_arg(args, 0)?;
                let view = self.pruner_view(color)?;
                let pts: Vec<String> = (0..NN)
                    .filter(|&i| view.pruned & bit(i) != 0)
                    .map(|i| Point::new(i).to_gtp())
                    .collect();
                // Pruning from depth 1 or deeper leaves the root whole: say so, so the marks
                // are not read as moves the search does not consider now.
                let text = if view.depth == 0 {
                    format!("{} prunes {} points", view.name, pts.len())
                } else {
                    format!(
                        "{} prunes from depth {}: nothing at the root; marked, the {} points it \
                         drops where this position is a node at depth {} or deeper",
                        view.name,
                        view.depth,
                        pts.len(),
                        view.depth
                    )
                };
                Ok(format!("TEXT {text}\nMARK {}", pts.join(" ")))
            }
            "fixed_handicap" => {
                let n: usize = parse(arg(args, 0, "number of stones")?, "number of stones")?;
                let stones = setup::fixed_points(n).ok_or_else(|| {
                    format!(
                        "invalid number of stones: fixed_handicap takes 2 to {} on 9x9, not {n}",
                        setup::MAX_FIXED
                    )
                })?;
                self.place_handicap(&stones)
            }
            "place_free_handicap" => {
                let n: usize = parse(arg(args, 0, "number of stones")?, "number of stones")?;
                if !(2..NN).contains(&n) {
                    return Err(format!(
                        "invalid number of stones: place_free_handicap takes 2 to {}, not {n}",
                        NN - 1
                    ));
                }
                // The engine's choice is the fixed pattern; GTP lets it place fewer stones
                // than asked, so more than the pattern's nine get nine.
                let stones = setup::fixed_points(n.min(setup::MAX_FIXED)).expect("2..=9 stones");
                self.place_handicap(&stones)
            }
            "set_free_handicap" => {
                let stones = setup::free_points(args)?;
                self.place_handicap(&stones).map(|_| String::new())
            }
            "loadsgf" => {
                let path = arg(args, 0, "file name")?;
                let number = match args.get(1) {
                    Some(t) => Some(ranged(t, "loadsgf move_number", 1, 100_000)?),
                    None => None,
                };
                let game = setup::load_sgf(path, number, self.komi)?;
                let komi = game.komi();
                self.engine
                    .set_game(game)
                    .map_err(|e| format!("loadsgf: {e}"))?;
                self.komi = komi;
                Ok(String::new())
            }
            "printsgf" => match args.first() {
                None => Ok(setup::to_sgf(self.engine.game())),
                Some(path) => setup::write_sgf(path, self.engine.game()).map(|_| String::new()),
            },
            _ => Err("unknown command".into()),
        }
    }

    /// The controller's time settings: its clock rules from now on, so the per-move cap for
    /// controllers without one ([`GtpServer::with_move_cap`]) is lifted, even by settings
    /// that say there is no limit.
    fn set_clock(&mut self, control: TimeControl) {
        self.engine.set_move_cap(None);
        self.engine.set_time_control(control);
    }

    /// The commands this engine answers: every command, less analysis when the engine has
    /// no analyzer.
    fn commands(&mut self) -> Vec<&'static str> {
        let analysis = self.engine.analyzer().is_some();
        COMMANDS
            .iter()
            .copied()
            .filter(|c| analysis || !ANALYSIS_COMMANDS.contains(c))
            .collect()
    }

    /// Puts black handicap stones on the empty board (white to move); replies with their
    /// vertices.
    fn place_handicap(&mut self, stones: &[Point]) -> Reply {
        let game = setup::handicap_game(self.engine.game(), stones, self.komi)?;
        self.engine.set_game(game)?;
        Ok(setup::vertex_list(stones))
    }

    fn pruner_view(&self, color: Color) -> Result<crate::search::PrunerView, String> {
        self.engine
            .pruner_view(color)
            .ok_or_else(|| "this engine has no pruner".to_string())
    }
}

fn arg<'a>(args: &[&'a str], i: usize, what: &str) -> Result<&'a str, String> {
    args.get(i)
        .copied()
        .ok_or_else(|| format!("syntax error: missing {what}"))
}

fn parse<T: std::str::FromStr>(text: &str, what: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("syntax error: bad {what} `{text}`"))
}

/// A number argument in `lo..=hi` (NaN and infinities refused), as a GTP syntax error.
fn ranged<T>(text: &str, what: &str, lo: T, hi: T) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display + std::fmt::Debug + Copy,
    T::Err: std::fmt::Display,
{
    crate::util::num::parse_in(what, text, lo, hi).map_err(|e| format!("syntax error: {e}"))
}

fn color_arg(args: &[&str], i: usize) -> Result<Color, String> {
    let text = arg(args, i, "color")?;
    Color::parse(text).ok_or_else(|| format!("syntax error: invalid color `{text}`"))
}

fn vertex_arg(args: &[&str], i: usize) -> Result<Move, String> {
    let text = arg(args, i, "vertex")?;
    Move::from_gtp(text).map_err(|e| format!("syntax error: {e}"))
}

/// Splits a line into id, command and arguments after GTP's clean-up (comments, control
/// characters, tabs). `None` for a line with no command; `Some(Err(reply))` for a line that
/// gets an error reply before any command runs.
fn parse_line(line: &str) -> Option<Result<Parsed, String>> {
    let cleaned: String = line
        .split('#')
        .next()
        .unwrap_or("")
        .chars()
        .filter_map(|c| match c {
            '\t' => Some(' '),
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect();
    let mut words = cleaned.split_whitespace();
    let first = words.next()?;
    let (id, name) = if first.bytes().all(|b| b.is_ascii_digit()) {
        match words.next() {
            Some(cmd) => (Some(first.to_string()), cmd),
            None => return Some(Err(format!("?{first} missing command\n\n"))),
        }
    } else {
        (None, first)
    };
    Some(Ok(Parsed {
        id,
        name: name.to_string(),
        args: words.map(str::to_string).collect(),
    }))
}

/// A whole reply: `=` or `?`, the id, the text, the blank line.
fn format_reply(id: &str, reply: Reply) -> String {
    let (mark, text) = match reply {
        Ok(t) => ('=', t),
        Err(t) => ('?', t),
    };
    let text = if text.is_empty() {
        String::new()
    } else {
        format!(" {text}")
    };
    format!("{mark}{id}{text}\n\n")
}

fn write_flush(out: &mut dyn Write, text: &str) -> io::Result<()> {
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Simulations the search runs to tell dead stones at the end of a game.
const DEAD_STONE_SIMS: u64 = 2_000;

/// The info line of the analyzer's current candidates for `opts`.
fn info_text(
    analyzer: &mut dyn crate::search::LiveAnalysis,
    opts: &AnalyzeArgs,
    format: Format,
) -> String {
    let candidates = analyzer.candidates(opts.color, analyze::MAX_PV);
    let unvisited = if candidates.len() < opts.min_moves {
        analyzer.unvisited(opts.color)
    } else {
        Vec::new()
    };
    let mut line = analyze::info_line(&analyze::shown(candidates, &unvisited, opts), format);
    if format == Format::Kata
        && opts.ownership
        && !line.is_empty()
        && let Some(owners) = analyzer.ownership(opts.color)
    {
        line.push_str(&analyze::ownership_field(&owners));
    }
    line
}

/// The reader thread: sends every input line (or the reply for a line that cannot be one)
/// until the input ends, a read fails or the server stops listening. With `gone`, input
/// that ends (or fails) before a `quit` line sets it: the controller left without saying
/// so, and no search should run on for it.
fn read_lines<R: BufRead>(mut input: R, tx: SyncSender<Incoming>, gone: Option<Arc<AtomicBool>>) {
    let mut quit = false;
    let left = |quit: bool| {
        if let Some(flag) = gone.as_ref().filter(|_| !quit) {
            flag.store(true, Ordering::Relaxed);
        }
    };
    loop {
        let next = match read_line(&mut input) {
            Ok(None) => return left(quit),
            Ok(Some(i)) => Ok(i),
            Err(e) => Err(e),
        };
        if let Ok(Input::Line(line)) = &next {
            quit |= matches!(parse_line(line), Some(Ok(cmd)) if cmd.name == "quit");
        }
        let failed = next.is_err();
        if failed {
            left(quit);
        }
        if tx.send(next).is_err() || failed {
            return;
        }
    }
}

/// Reads one line of at most `MAX_LINE` bytes; `None` at the end of input.
fn read_line<R: BufRead>(input: &mut R) -> io::Result<Option<Input>> {
    use crate::util::lines::{CappedLine, read_capped_line};
    Ok(read_capped_line(input, MAX_LINE)?.map(|line| match line {
        CappedLine::Line(l) => Input::Line(l),
        CappedLine::TooLong => Input::Refused("? command line too long\n\n"),
        // Invalid UTF-8: answer it as malformed rather than stopping.
        CappedLine::NotUtf8 => Input::Refused("? invalid UTF-8 in command\n\n"),
    }))
}
