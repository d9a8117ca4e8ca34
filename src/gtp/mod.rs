//! A GTP (Go Text Protocol, version 2) front end for any [`Engine`], so GUIs (GoGui, Sabaki),
//! servers (kgsGtp) and tournament tools (gogui-twogtp) can drive akushu's engines.
//!
//! Robustness rules: every input line gets exactly one reply (`=` or `?`, with the command's
//! id when it had one); malformed, unknown or illegal input gets `? message`, never a panic or
//! a hang. Control characters are dropped, tabs become spaces, `#` starts a comment, empty
//! lines are ignored (GTP 2, section 3.1).

use crate::util::num::{MAX_KOMI, MAX_SECONDS};
use std::io::{BufRead, Write};

use crate::rules::{Color, Game, Move, N, NN, Point, Scoring, bit};
use crate::search::{Engine, EngineMove, TimeControl};

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
];

/// Longest command line read, in bytes.
const MAX_LINE: u64 = 1 << 20;

/// One GTP session around an engine.
pub struct GtpServer {
    engine: Box<dyn Engine>,
    komi: f32,
    /// Print one line of search statistics per genmove to stderr (GoGui shows it in its
    /// GTP shell; stdout stays pure protocol).
    log: bool,
}

/// A reply: success or failure text (without the `=`/`?` prefix).
type Reply = Result<String, String>;

impl GtpServer {
    pub fn new(mut engine: Box<dyn Engine>) -> GtpServer {
        let komi = 6.5;
        engine.new_game(komi);
        GtpServer {
            engine,
            komi,
            log: false,
        }
    }

    /// Turns the per-genmove statistics line on stderr on or off (off by default).
    pub fn with_log(mut self, on: bool) -> GtpServer {
        self.log = on;
        self
    }

    pub fn engine(&self) -> &dyn Engine {
        self.engine.as_ref()
    }

    /// Answers one input line. Returns the full reply text (ending in a blank line) and
    /// whether the session should end, or `None` for lines that need no reply.
    pub fn handle_line(&mut self, line: &str) -> Option<(String, bool)> {
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
        let (id, command) = if first.bytes().all(|b| b.is_ascii_digit()) {
            match words.next() {
                Some(cmd) => (Some(first), cmd),
                None => return Some((format!("?{first} missing command\n\n"), false)),
            }
        } else {
            (None, first)
        };
        let args: Vec<&str> = words.collect();
        let quit = command == "quit";
        let reply = self.dispatch(command, &args);
        let (mark, text) = match reply {
            Ok(t) => ('=', t),
            Err(t) => ('?', t),
        };
        let id = id.unwrap_or("");
        let text = if text.is_empty() {
            String::new()
        } else {
            format!(" {text}")
        };
        Some((format!("{mark}{id}{text}\n\n"), quit && mark == '='))
    }

    /// Reads commands until `quit` or end of input, writing replies as they come.
    pub fn run<R: BufRead, W: Write>(
        &mut self,
        mut input: R,
        mut output: W,
    ) -> std::io::Result<()> {
        let mut bytes = Vec::new();
        loop {
            bytes.clear();
            // A command line is read up to MAX_LINE bytes: a peer that never sends a
            // newline must not fill the memory.
            if std::io::Read::take(&mut input, MAX_LINE + 1).read_until(b'\n', &mut bytes)? == 0 {
                break;
            }
            if bytes.len() as u64 > MAX_LINE && bytes.last() != Some(&b'\n') {
                // Drop the rest of the line, then refuse it.
                while !bytes.ends_with(b"\n") {
                    bytes.clear();
                    if std::io::Read::take(&mut input, MAX_LINE).read_until(b'\n', &mut bytes)? == 0
                    {
                        break;
                    }
                }
                output.write_all(b"? command line too long\n\n")?;
                output.flush()?;
                continue;
            }
            let line = match std::str::from_utf8(&bytes) {
                Ok(l) => l.trim_end_matches(['\n', '\r']).to_string(),
                // Invalid UTF-8: answer it as malformed rather than stopping.
                Err(_) => {
                    output.write_all(b"? invalid UTF-8 in command\n\n")?;
                    output.flush()?;
                    continue;
                }
            };
            if let Some((reply, quit)) = self.handle_line(&line) {
                output.write_all(reply.as_bytes())?;
                output.flush()?;
                if quit {
                    break;
                }
            }
        }
        Ok(())
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
                Ok(COMMANDS.contains(&c).to_string())
            }
            "list_commands" => Ok(COMMANDS.join("\n")),
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
                let margin = self.engine.game().score(Scoring::Area, 0);
                Ok(Game::result_text(margin))
            }
            "final_status_list" => {
                // Area scoring as played out: every stone on the board counts as alive.
                let status = arg(args, 0, "status")?;
                let board = self.engine.game().board();
                match status {
                    "alive" => {
                        let mut pts = Vec::new();
                        for p in Point::all() {
                            if board.color_at(p).is_some() {
                                pts.push(p.to_gtp());
                            }
                        }
                        Ok(pts.join(" "))
                    }
                    "dead" | "seki" => Ok(String::new()),
                    other => Err(format!("syntax error: unknown status `{other}`")),
                }
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
                self.engine
                    .set_time_control(TimeControl::from_gtp(main, byo, stones));
                Ok(String::new())
            }
            "kgs-time_settings" => {
                let control = TimeControl::from_kgs(args)
                    .map_err(|e| format!("syntax error: kgs-time_settings: {e}"))?;
                self.engine.set_time_control(control);
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
                Ok(format!(
                    "TEXT {} prunes {} points\nMARK {}",
                    view.name,
                    pts.len(),
                    pts.join(" ")
                ))
            }
            _ => Err("unknown command".into()),
        }
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
