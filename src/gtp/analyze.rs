//! Live analysis for GUIs: the arguments of `lz-analyze` / `kata-analyze` and the `info`
//! lines they print, in Leela Zero's and KataGo's formats (what Sabaki and Lizzie parse).
//!
//! Leela Zero's line: `info move D4 visits 120 winrate 5321 prior 812 lcb 5100 order 0 pv D4
//! E5 info move ...`, every candidate of one update on one line, win rate, prior and lcb in
//! 1/10000. KataGo's line has the same shape with floats in 0..1 and score fields. akushu
//! has no score estimate, so KataGo's score fields are 0. Moves the engine's tree pruning
//! dropped at the root never become root children, so they are never listed.

use std::time::Duration;

use crate::rules::{Color, Move};
use crate::search::Candidate;

/// Longest principal variation shown per candidate.
pub const MAX_PV: usize = 12;

/// Update interval when the command gives none (Leela Zero's GUIs always give one).
const DEFAULT_INTERVAL_CS: u32 = 100;

/// Longest interval accepted, in centiseconds (one hour).
const MAX_INTERVAL_CS: u32 = 360_000;

/// Which program's `info` format to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Leela Zero (`lz-analyze`, `lz-genmove_analyze`): integers in 1/10000.
    Leela,
    /// KataGo (`kata-analyze`, `kata-genmove_analyze`): floats.
    Kata,
}

/// The parsed arguments of an analyze command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnalyzeArgs {
    /// Side to analyze for (default: the side to move).
    pub color: Color,
    /// Time between two `info` lines.
    pub interval: Duration,
    /// List at least this many moves (padding with unvisited candidates).
    pub min_moves: usize,
    /// List at most this many moves (0 = no limit).
    pub max_moves: usize,
    /// Append each point's expected owner (KataGo's `ownership true`).
    pub ownership: bool,
}

/// Parses `[color] [interval] [key value]...` (keys `interval`, `minmoves`, `maxmoves`,
/// `ownership`; KataGo's `ownershipStdev`, `pvVisits` and `movesOwnership` are accepted and
/// ignored, since akushu keeps none of them).
/// Errors name the command and the argument.
pub fn parse_args(command: &str, args: &[&str], to_move: Color) -> Result<AnalyzeArgs, String> {
    let mut out = AnalyzeArgs {
        color: to_move,
        interval: Duration::from_millis(10 * DEFAULT_INTERVAL_CS as u64),
        min_moves: 0,
        max_moves: 0,
        ownership: false,
    };
    let mut rest = args;
    if let Some(c) = rest.first().and_then(|a| Color::parse(a)) {
        out.color = c;
        rest = &rest[1..];
    }
    // Leela Zero's short form: a bare number is the interval (a negative or fractional one
    // is refused as an interval, not taken for a key).
    if let Some(first) = rest.first()
        && first.parse::<f64>().is_ok()
    {
        out.interval = interval(command, first)?;
        rest = &rest[1..];
    }
    for pair in rest.chunks(2) {
        let key = pair[0];
        let Some(&value) = pair.get(1) else {
            return Err(format!("syntax error: {command}: `{key}` needs a value"));
        };
        match key {
            "interval" => out.interval = interval(command, value)?,
            "minmoves" => out.min_moves = count(command, key, value)?,
            "maxmoves" => out.max_moves = count(command, key, value)?,
            "ownership" | "ownershipStdev" | "pvVisits" | "movesOwnership" => {
                if value != "true" && value != "false" {
                    return Err(format!(
                        "syntax error: {command}: `{key}` takes true or false, not `{value}`"
                    ));
                }
                if key == "ownership" {
                    out.ownership = value == "true";
                }
            }
            _ => return Err(format!("syntax error: {command}: unknown argument `{key}`")),
        }
    }
    Ok(out)
}

fn interval(command: &str, text: &str) -> Result<Duration, String> {
    if text.parse::<u32>().is_err() && text.parse::<f64>().is_ok() {
        return Err(format!(
            "syntax error: {command}: the interval `{text}` must be a whole number of \
             centiseconds, 0 to {MAX_INTERVAL_CS}"
        ));
    }
    let cs: u32 =
        crate::util::num::parse_in(&format!("{command} interval"), text, 0, MAX_INTERVAL_CS)
            .map_err(|e| format!("syntax error: {e}"))?;
    Ok(Duration::from_millis(10 * cs as u64))
}

fn count(command: &str, key: &str, text: &str) -> Result<usize, String> {
    crate::util::num::parse_in(&format!("{command} {key}"), text, 0, 1000)
        .map_err(|e| format!("syntax error: {e}"))
}

/// The candidates one update shows: at most `max_moves` (0 = all), padded to `min_moves`
/// with `unvisited` moves (0 visits, the move alone as variation).
pub fn shown(
    mut candidates: Vec<Candidate>,
    unvisited: &[Move],
    args: &AnalyzeArgs,
) -> Vec<Candidate> {
    for &mv in unvisited {
        if candidates.len() >= args.min_moves {
            break;
        }
        candidates.push(Candidate {
            mv,
            visits: 0,
            winrate: 0.0,
            prior: 0.0,
            lcb: 0.0,
            pv: vec![mv],
            score: None,
        });
    }
    if args.max_moves > 0 {
        candidates.truncate(args.max_moves);
    }
    candidates
}

/// One `info` line for `candidates` (best first), without the newline; empty when there
/// is no candidate.
pub fn info_line(candidates: &[Candidate], format: Format) -> String {
    let mut parts = Vec::with_capacity(candidates.len());
    for (order, c) in candidates.iter().enumerate() {
        let pv: Vec<String> = c.pv.iter().map(|m| m.to_gtp()).collect();
        let stats = match format {
            Format::Leela => format!(
                "visits {} winrate {} prior {} lcb {}",
                c.visits,
                per_10000(c.winrate),
                per_10000(c.prior),
                per_10000(c.lcb)
            ),
            // The score fields only where the search measured them: a constant would read
            // as a measurement in a GUI.
            Format::Kata => format!(
                "visits {} utility {:.6} winrate {:.6} {}prior {:.6} lcb {:.6}",
                c.visits,
                2.0 * c.winrate - 1.0,
                c.winrate,
                c.score.map_or(String::new(), |s| format!(
                    "scoreMean {:.6} scoreStdev {:.6} scoreLead {:.6} ",
                    s.mean, s.stdev, s.mean
                )),
                c.prior,
                c.lcb
            ),
        };
        parts.push(format!(
            "info move {} {stats} order {order} pv {}",
            c.mv.to_gtp(),
            pv.join(" ")
        ));
    }
    parts.join(" ")
}

/// KataGo's ` ownership` field: the 81 values in -1..=1 for the analysed side, row by row
/// from the top left (A9, B9, ..., J1), which is akushu's point order.
pub fn ownership_field(owners: &[f32; crate::rules::NN]) -> String {
    let values: Vec<String> = owners.iter().map(|v| format!("{v:.6}")).collect();
    format!(" ownership {}", values.join(" "))
}

/// A share in 0..=1 as Leela Zero's integer in 0..=10000.
fn per_10000(x: f32) -> u32 {
    (x.clamp(0.0, 1.0) * 10_000.0).round() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_in_every_form() {
        let b = Color::Black;
        let a = parse_args("lz-analyze", &["w", "25"], b).unwrap();
        assert_eq!(
            (a.color, a.interval),
            (Color::White, Duration::from_millis(250))
        );
        let a = parse_args("lz-analyze", &["50"], b).unwrap();
        assert_eq!((a.color, a.interval), (b, Duration::from_millis(500)));
        let a = parse_args("lz-analyze", &["B", "interval", "50", "maxmoves", "3"], b).unwrap();
        assert_eq!((a.interval, a.max_moves), (Duration::from_millis(500), 3));
        let a = parse_args("kata-analyze", &["10", "ownership", "true"], b).unwrap();
        assert_eq!(
            (a.interval, a.ownership),
            (Duration::from_millis(100), true)
        );
        let e = parse_args("lz-analyze", &["B", "interval"], b).unwrap_err();
        assert!(e.contains("lz-analyze") && e.contains("interval"), "{e}");
        let e = parse_args("lz-analyze", &["B", "avoid", "b"], b).unwrap_err();
        assert!(e.contains("`avoid`"), "{e}");
        let e = parse_args("lz-analyze", &["interval", "x"], b).unwrap_err();
        assert!(e.contains("lz-analyze interval"), "{e}");
    }

    #[test]
    fn leela_and_kata_lines() {
        let e5 = Move::from_gtp("E5").unwrap();
        let d4 = Move::from_gtp("D4").unwrap();
        let c = Candidate {
            mv: e5,
            visits: 120,
            winrate: 0.53214,
            prior: 0.0812,
            lcb: 0.51,
            pv: vec![e5, d4],
            score: None,
        };
        assert_eq!(
            info_line(std::slice::from_ref(&c), Format::Leela),
            "info move E5 visits 120 winrate 5321 prior 812 lcb 5100 order 0 pv E5 D4"
        );
        let kata = info_line(&[c.clone(), c], Format::Kata);
        assert!(kata.starts_with("info move E5 visits 120 utility 0.064280 winrate 0.532140"));
        assert!(kata.contains("order 1 pv E5 D4"), "{kata}");
        assert_eq!(info_line(&[], Format::Leela), "");
    }
}
