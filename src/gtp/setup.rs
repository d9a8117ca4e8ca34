//! Positions that do not start from the empty board with black to move: handicap stones
//! (`fixed_handicap`, `place_free_handicap`, `set_free_handicap`) and SGF records
//! (`loadsgf`, `printsgf`).
//!
//! Handicap stones are setup stones of a [`Game`] started with [`Game::from_board`]: they
//! are not moves, so `undo` stops at them, superko counts the handicap position as seen,
//! white moves first, and area scoring counts them like any stone.

use std::path::Path;

use crate::rules::{Board, Color, Game, Move, NN, Point};
use crate::sgf::replay::initial_board;
use crate::sgf::write;

/// GTP 2's fixed handicap points for 9x9 (section 4.1.1, the 19x19 table moved to the
/// 3-3 points, sides and centre), in the order the table adds them for even counts.
const FIXED_EVEN: [&str; 8] = ["C3", "G7", "C7", "G3", "C5", "G5", "E3", "E7"];

/// The centre, added for odd counts of five and more.
const CENTRE: &str = "E5";

/// Most handicap stones GTP 2 allows on 9x9.
pub const MAX_FIXED: usize = 9;

/// Longest SGF file `loadsgf` reads (a 9x9 game is a few kilobytes).
const MAX_SGF_BYTES: u64 = 1 << 20;

/// The fixed handicap points for `n` stones (2..=9), as GTP 2 places them.
pub fn fixed_points(n: usize) -> Option<Vec<Point>> {
    if !(2..=MAX_FIXED).contains(&n) {
        return None;
    }
    let names: Vec<&str> = if n >= 5 && n % 2 == 1 {
        FIXED_EVEN[..n - 1]
            .iter()
            .copied()
            .chain([CENTRE])
            .collect()
    } else {
        FIXED_EVEN[..n].to_vec()
    };
    Some(
        names
            .iter()
            .map(|v| match Move::from_gtp(v) {
                Ok(Move::Play(p)) => p,
                _ => unreachable!("fixed handicap vertex {v}"),
            })
            .collect(),
    )
}

/// Parses `set_free_handicap`'s vertex list: at least two distinct board points.
pub fn free_points(args: &[&str]) -> Result<Vec<Point>, String> {
    if args.len() < 2 || args.len() >= NN {
        return Err(format!(
            "bad vertex list: set_free_handicap takes 2 to {} vertices, got {}",
            NN - 1,
            args.len()
        ));
    }
    let mut points: Vec<Point> = Vec::with_capacity(args.len());
    for v in args {
        let p = match Move::from_gtp(v) {
            Ok(Move::Play(p)) => p,
            Ok(Move::Pass) => {
                return Err("bad vertex list: set_free_handicap: pass is not a point".into());
            }
            Err(e) => return Err(format!("bad vertex list: set_free_handicap: {e}")),
        };
        if points.contains(&p) {
            return Err(format!(
                "bad vertex list: set_free_handicap: {} given twice",
                p.to_gtp()
            ));
        }
        points.push(p);
    }
    Ok(points)
}

/// The game after placing `stones` black handicap stones on the empty board: white to
/// move. Fails (with GTP's "board not empty") when stones or moves are already there.
pub fn handicap_game(current: &Game, stones: &[Point], komi: f32) -> Result<Game, String> {
    if current.move_count() > 0 || current.board().empty_bits().count_ones() as usize != NN {
        return Err("board not empty".into());
    }
    let mut board = Board::new();
    board.setup(stones, &[], &[])?;
    Ok(Game::from_board(board, Color::White, komi))
}

/// Vertices as GTP lists them.
pub fn vertex_list(points: &[Point]) -> String {
    points
        .iter()
        .map(|p| p.to_gtp())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Reads an SGF file (9x9 only) and returns the game before move `move_number` (1-based;
/// `None` = after the last move), and its komi (`default_komi` without `KM`).
/// The bytes of the SGF file at `path`: only a regular file (a FIFO would never answer,
/// `/dev/zero` never end, and both report size 0), read through a reader bounded at
/// [`MAX_SGF_BYTES`] so a file that grows while it is read cannot exhaust memory either.
fn read_bounded(path: &str) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let fail = |why: String| format!("cannot load file: loadsgf `{path}`: {why}");
    // Checked before opening: opening a FIFO for reading blocks until a writer comes.
    let meta = std::fs::metadata(path).map_err(|e| fail(e.to_string()))?;
    if !meta.is_file() {
        return Err(fail("not a regular file".into()));
    }
    let file = std::fs::File::open(path).map_err(|e| fail(e.to_string()))?;
    let mut bytes = Vec::new();
    file.take(MAX_SGF_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(e.to_string()))?;
    if bytes.len() as u64 > MAX_SGF_BYTES {
        return Err(fail(format!("more than {MAX_SGF_BYTES} bytes")));
    }
    Ok(bytes)
}

pub fn load_sgf(path: &str, move_number: Option<usize>, default_komi: f32) -> Result<Game, String> {
    let bytes = read_bounded(path)?;
    let id = crate::sgf::source::id_from_name(path);
    let rec = crate::sgf::parse_record(&bytes, &id, path)
        .map_err(|e| format!("cannot load file: loadsgf `{path}`: {e}"))?;
    let board = initial_board(&rec).map_err(|e| format!("loadsgf `{path}`: {e}"))?;
    let handicap_only = rec.setup_white.is_empty() && !rec.setup_black.is_empty();
    let first = rec
        .first_player
        .or(rec.moves.first().map(|m| m.0))
        .unwrap_or(if handicap_only {
            Color::White
        } else {
            Color::Black
        });
    let komi = rec.komi.unwrap_or(default_komi);
    let mut game = Game::from_board(board, first, komi);
    let upto = move_number.map_or(rec.moves.len(), |n| n.saturating_sub(1));
    for (i, &(color, mv)) in rec.moves.iter().take(upto).enumerate() {
        game.play_as(color, mv).map_err(|e| {
            format!(
                "loadsgf `{path}`: move {} {} {} is illegal: {e}",
                i + 1,
                color.letter(),
                mv.to_gtp()
            )
        })?;
    }
    Ok(game)
}

/// The game as an SGF record: setup stones as `AB`/`AW` (with `HA` when they are black
/// handicap stones only), `PL` for the first side to move, then the moves.
pub fn to_sgf(game: &Game) -> String {
    let start = game.initial_board();
    let mut sgf = write::root(game.komi());
    let mut setup = [Vec::new(), Vec::new()];
    for p in Point::all() {
        if let Some(c) = start.color_at(p) {
            setup[c.idx()].push(p);
        }
    }
    let [black, white] = &setup;
    if white.is_empty() && black.len() >= 2 {
        sgf.push_str(&format!("HA[{}]", black.len()));
    }
    for (tag, stones) in [("AB", black), ("AW", white)] {
        if !stones.is_empty() {
            sgf.push_str(tag);
            for p in stones {
                sgf.push_str(&format!("[{}]", p.to_sgf()));
            }
        }
    }
    let first = game
        .moves()
        .first()
        .map_or(game.to_move(), |&(color, _)| color);
    sgf.push_str(&format!("PL[{}]", first.letter()));
    write::push_moves(&mut sgf, game.moves());
    sgf.push(')');
    sgf
}

/// The SGF files akushu writes, for the output rule: only a file that begins this way is
/// replaced.
pub const SGF_FILE: crate::util::output::FileKind = crate::util::output::FileKind {
    name: "game record (SGF)",
    signature: b"(;GM[1]FF[4]CA[UTF-8]AP[akushu:",
    mark: None,
};

/// Writes `game`'s SGF to `path` atomically (a reader never sees half a file), under the
/// output rule: a new file in an existing folder, or an SGF file akushu wrote. Anything else
/// is refused with the file left as it was: another file, a symbolic link, a missing folder
/// (nothing is created but the file), and a FIFO or device, which a GTP session must not
/// block on.
pub fn write_sgf(path: &str, game: &Game) -> Result<(), String> {
    use crate::util::output::{FileTarget, file_target};
    let file = Path::new(path);
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty())
        && !dir.is_dir()
    {
        return Err(format!(
            "printsgf: folder `{}` does not exist",
            dir.display()
        ));
    }
    let target = match file_target(file, SGF_FILE, false, &[]) {
        Ok(FileTarget::Replace(target)) => target,
        Ok(FileTarget::Stream(_)) => {
            return Err(format!("printsgf: `{path}` is not a regular file"));
        }
        Err(e) => return Err(format!("printsgf: {e}")),
    };
    let mut text = to_sgf(game);
    text.push('\n');
    crate::util::fsio::write_atomic(&target, text.as_bytes()).map_err(|e| format!("printsgf: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_points_follow_the_gtp_table() {
        let names = |n| vertex_list(&fixed_points(n).unwrap());
        assert_eq!(names(2), "C3 G7");
        assert_eq!(names(3), "C3 G7 C7");
        assert_eq!(names(5), "C3 G7 C7 G3 E5");
        assert_eq!(names(6), "C3 G7 C7 G3 C5 G5");
        assert_eq!(names(9), "C3 G7 C7 G3 C5 G5 E3 E7 E5");
        assert!(fixed_points(1).is_none() && fixed_points(10).is_none());
    }

    #[test]
    fn sgf_keeps_setup_and_moves() {
        let stones = fixed_points(2).unwrap();
        let mut game = handicap_game(&Game::new(0.5), &stones, 0.5).unwrap();
        assert_eq!(game.to_move(), Color::White);
        game.play(Move::from_gtp("E5").unwrap()).unwrap();
        game.play(Move::Pass).unwrap();
        let sgf = to_sgf(&game);
        assert!(sgf.contains("HA[2]AB[gc][cg]PL[W]"), "{sgf}");
        assert!(sgf.ends_with(";W[ee];B[])"), "{sgf}");
        let rec = crate::sgf::parse_record(sgf.as_bytes(), "t", "t").unwrap();
        assert_eq!(rec.moves, game.moves());
        assert_eq!(rec.setup_black.len(), 2);
        assert!(handicap_game(&game, &stones, 0.5).is_err());
    }
}
