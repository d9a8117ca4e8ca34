//! A balanced opening suite made with a teacher (`akushu match openings`): positions a few
//! moves into recorded games, drawn with a seed, told apart by position up to the board's
//! eight symmetries, and kept where the teacher's win rate for the side to move lies in a
//! band, so neither colour starts from a decided game.
//!
//! The candidates are every position after `moves.0` to `moves.1` moves of each record
//! under the source folders (the main line; records with setup stones, passes in the
//! opening or illegal moves are left out and counted), one per position up to symmetry (the
//! first met in the sorted order of the records). They are shuffled with the seed and asked
//! in that order, a batch at a time, over KataGo's JSON analysis protocol
//! ([`super::client::Teacher`]) with win rates reported for the side to move; the suite is
//! the first `count` in the band, in the shuffled order, so a teacher that answers a
//! position the same way each time makes the same suite.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use serde_json::{Value, json};

use super::client::Teacher;
use crate::rules::{Color, Game, Move, NN};
use crate::util::rng::FastRng;

/// What `akushu match openings` asks for.
#[derive(Debug, Clone)]
pub struct SuiteRequest {
    /// Folders or files of SGF records the positions are drawn from.
    pub from: Vec<PathBuf>,
    /// The teacher's command line (`akushu analysis --engine strong8`).
    pub teacher: String,
    /// Positions after this many moves, inclusive.
    pub moves: (usize, usize),
    /// The band the side to move's win rate must lie in, inclusive.
    pub band: (f64, f64),
    pub count: usize,
    pub seed: u64,
    /// Visits a query (`maxVisits`).
    pub visits: u32,
    pub komi: f32,
    /// Longest wait for one answer.
    pub timeout: Duration,
}

/// One kept opening.
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteOpening {
    pub source: String,
    pub moves: Vec<(Color, Move)>,
    /// The teacher's win rate for the side to move.
    pub winrate: f64,
}

/// What making a suite found.
#[derive(Debug, Clone, Default)]
pub struct SuiteReport {
    pub records: usize,
    /// Records left out (unreadable, setup stones, illegal).
    pub skipped: usize,
    /// Distinct positions up to symmetry.
    pub candidates: usize,
    /// Positions asked.
    pub asked: usize,
    pub kept: Vec<SuiteOpening>,
}

/// The position's key, the same for all eight symmetric images: the smallest of the
/// images' cells with the side to move.
fn position_key(game: &Game) -> Vec<u8> {
    let cells = game.board().cells();
    let mut best: Option<Vec<u8>> = None;
    for sym in 0..8u8 {
        let mut image = vec![0u8; NN + 1];
        for (i, &c) in cells.iter().enumerate() {
            image[crate::net::encode::sym_point(sym, i as u8) as usize] = c;
        }
        image[NN] = game.to_move().idx() as u8;
        if best.as_ref().is_none_or(|b| image < *b) {
            best = Some(image);
        }
    }
    best.expect("eight images")
}

/// The candidate positions of the records under `from` (see the module doc).
fn candidates(req: &SuiteRequest, report: &mut SuiteReport) -> Vec<(String, Vec<(Color, Move)>)> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for raw in crate::sgf::source::read_all(&req.from) {
        report.records += 1;
        let Ok(raw) = raw else {
            report.skipped += 1;
            continue;
        };
        let Ok(rec) = crate::sgf::parse_record(&raw.bytes, &raw.id, &raw.source) else {
            report.skipped += 1;
            continue;
        };
        let mut game = Game::new(req.komi);
        game.set_superko(true);
        let usable = rec.setup_black.is_empty() && rec.setup_white.is_empty();
        if !usable {
            report.skipped += 1;
            continue;
        }
        for (i, &(c, m)) in rec.moves.iter().enumerate().take(req.moves.1) {
            if m == Move::Pass || c != game.to_move() || game.play_as(c, m).is_err() {
                break;
            }
            let n = i + 1;
            if n >= req.moves.0 && seen.insert(position_key(&game)) {
                out.push((
                    format!("{} after {n} moves", raw.source),
                    rec.moves[..n].to_vec(),
                ));
            }
        }
    }
    report.candidates = out.len();
    out
}

/// Makes the suite (see the module doc).
pub fn make_suite(req: &SuiteRequest) -> anyhow::Result<SuiteReport> {
    if req.moves.0 == 0 || req.moves.0 > req.moves.1 {
        bail!(
            "--moves {}-{}: give 1 <= FIRST <= LAST",
            req.moves.0,
            req.moves.1
        );
    }
    // A packed games folder's `sgf/` is read from its archive (`util::pack`).
    if let Some(p) = req.from.iter().find(|p| !crate::util::pack::found(p)) {
        bail!("--from {}: no such file or folder", p.display());
    }
    let (lo, hi) = req.band;
    if !(0.0..=1.0).contains(&lo) || !(0.0..=1.0).contains(&hi) || lo > hi {
        bail!("--winrate {lo}-{hi}: give 0 <= LOW <= HIGH <= 1");
    }
    let mut report = SuiteReport::default();
    let mut pool = candidates(req, &mut report);
    if pool.is_empty() {
        bail!(
            "no position after {}-{} moves in {} records under {:?}",
            req.moves.0,
            req.moves.1,
            report.records,
            req.from
        );
    }
    // Fisher-Yates with the seed: the order positions are asked and kept in.
    let mut rng = FastRng::new(req.seed);
    for i in (1..pool.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        pool.swap(i, j);
    }
    let mut teacher = Teacher::start(&req.teacher)?;
    let batch = 16;
    let mut next = 0;
    while report.kept.len() < req.count && next < pool.len() {
        let end = (next + batch).min(pool.len());
        for (k, (_, moves)) in pool[next..end].iter().enumerate() {
            let moves: Vec<Value> = moves
                .iter()
                .map(|(c, m)| json!([c.letter().to_string(), m.to_gtp()]))
                .collect();
            teacher.send(&json!({
                "id": format!("opening-{}", next + k),
                "moves": moves,
                "rules": "tromp-taylor",
                "komi": req.komi,
                "boardXSize": 9,
                "boardYSize": 9,
                "maxVisits": req.visits,
                "overrideSettings": {"reportAnalysisWinratesAs": "SIDETOMOVE"},
            }))?;
        }
        let mut answers: Vec<Option<f64>> = vec![None; end - next];
        let mut left = end - next;
        while left > 0 {
            let v = teacher.recv(req.timeout)?;
            if v.get("isDuringSearch").and_then(Value::as_bool) == Some(true) {
                continue;
            }
            let id = v.get("id").and_then(Value::as_str).unwrap_or_default();
            let slot = id
                .strip_prefix("opening-")
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|n| (next..end).contains(n))
                .with_context(|| {
                    format!("teacher `{}` answered an id not asked: {v}", req.teacher)
                })?;
            if let Some(e) = v.get("error") {
                bail!("teacher `{}` refused {}: {e}", req.teacher, pool[slot].0);
            }
            let w = v
                .pointer("/rootInfo/winrate")
                .and_then(Value::as_f64)
                .filter(|w| (0.0..=1.0).contains(w))
                .with_context(|| {
                    format!(
                        "teacher `{}`: no win rate for {} in {v}",
                        req.teacher, pool[slot].0
                    )
                })?;
            if answers[slot - next].replace(w).is_none() {
                left -= 1;
            }
        }
        report.asked += end - next;
        for (k, w) in answers.into_iter().enumerate() {
            let w = w.expect("every answer taken");
            if (lo..=hi).contains(&w) && report.kept.len() < req.count {
                let (source, moves) = &pool[next + k];
                report.kept.push(SuiteOpening {
                    source: source.clone(),
                    moves: moves.clone(),
                    winrate: w,
                });
            }
        }
        next = end;
    }
    teacher.close(Duration::from_secs(5));
    Ok(report)
}

/// The suite as an `.sgfs` file: one record a line, each with the opening's moves and a
/// comment naming its source and the teacher's win rate.
pub fn sgfs_text(kept: &[SuiteOpening], komi: f32) -> String {
    kept.iter()
        .map(|o| {
            let mut line = format!(
                "(;GM[1]FF[4]SZ[9]KM[{komi}]RU[Tromp-Taylor]C[{}]",
                crate::sgf::write::escape(&format!(
                    "from {}; teacher win rate for the side to move {:.3}",
                    o.source, o.winrate
                ))
            );
            for (c, m) in &o.moves {
                line += &format!(";{}[{}]", c.letter(), m.to_sgf());
            }
            line + ")\n"
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetric_positions_share_a_key() {
        let play = |moves: &[(usize, usize)]| {
            let mut g = Game::new(7.0);
            for &(x, y) in moves {
                let c = g.to_move();
                g.play_as(c, Move::Play(crate::rules::Point::new(y * 9 + x)))
                    .unwrap();
            }
            g
        };
        let a = play(&[(2, 2), (6, 6)]);
        let mirrored = play(&[(6, 2), (2, 6)]);
        let rotated = play(&[(6, 6), (2, 2)]);
        assert_eq!(position_key(&a), position_key(&mirrored));
        assert_eq!(position_key(&a), position_key(&rotated));
        assert_ne!(position_key(&a), position_key(&play(&[(2, 2), (6, 5)])));
        // The same stones with the other side to move are another position.
        assert_ne!(
            position_key(&a),
            position_key(&play(&[(2, 2), (6, 6), (0, 0)]))
        );
    }
}
