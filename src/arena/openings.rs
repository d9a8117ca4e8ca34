//! Opening suites: a match's games start from positions given in advance instead of the
//! empty board, as cutechess-cli plays an opening book and KataGo's match starts from varied
//! positions, so two engines that would replay one game from the empty board play many.
//!
//! A suite is read from an SGF file, a folder of SGF files (recursively, sorted) or an
//! `.sgfs` file (one game a line): each record's main line is one opening. Every opening is
//! checked as it is read (9x9, legal under positional superko, not already over, no setup
//! stones: engines are told an opening with GTP `play` only), and a bad record refuses the
//! whole suite, naming the record and why. The suite's checksum is over the openings' moves
//! written canonically (`B[cc];W[dd]`, one opening a line, in order), so a suite read from a
//! folder, a copy or an `.sgfs` of the same openings has one checksum, and any change to
//! its moves or order changes it.

use std::path::Path;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use crate::rules::{Color, Move};
use crate::sgf::replay::{Superko, check};
use crate::sgf::source::read_all;

/// One opening: where it came from and its moves.
#[derive(Debug, Clone, PartialEq)]
pub struct Opening {
    /// The record it was read from (`file.sgf`, `suite.sgfs:12`).
    pub source: String,
    pub moves: Vec<(Color, Move)>,
}

/// A suite of openings in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Suite {
    pub openings: Vec<Opening>,
}

/// A match's suite as `match.toml` records it: the file it was read from, how many openings
/// and their checksum (what a resume checks the file against).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteSpec {
    pub file: String,
    pub count: u32,
    pub checksum: crate::util::checksum::Checksum,
}

/// The canonical text of a move list: `B[cc];W[dd]` (a pass is `B[]`).
pub fn moves_text(moves: &[(Color, Move)]) -> String {
    moves
        .iter()
        .map(|(c, m)| format!("{}[{}]", c.letter(), m.to_sgf()))
        .collect::<Vec<_>>()
        .join(";")
}

impl Suite {
    /// Reads and checks the suite at `path` (see the module doc).
    pub fn read(path: &Path) -> anyhow::Result<Suite> {
        // A packed games folder's `sgf/` is read from its archive (`util::pack`).
        if !crate::util::pack::found(path) {
            bail!("openings {}: no such file or folder", path.display());
        }
        // A FIFO or a device would be read without end (or wait for a writer for good).
        let kind = std::fs::metadata(path)?.file_type();
        if !kind.is_file() && !kind.is_dir() {
            bail!(
                "openings {}: is not a regular file or a folder (a FIFO, socket or device)",
                path.display()
            );
        }
        let mut openings = Vec::new();
        for raw in read_all(&[path.to_path_buf()]) {
            let raw = raw.map_err(|e| anyhow::anyhow!("openings: {e}"))?;
            // A file may hold a collection of game trees: each one is an opening.
            let records = crate::sgf::parse_records(
                &raw.bytes,
                &raw.id,
                &raw.source,
                crate::sgf::ParseConfig::default(),
            );
            if records.is_empty() {
                bail!("openings {}: {}", raw.source, crate::sgf::SgfError::NoGame);
            }
            let many = records.len() > 1;
            for (k, rec) in records.into_iter().enumerate() {
                let source = if many {
                    format!("{} (game tree {})", raw.source, k + 1)
                } else {
                    raw.source.clone()
                };
                let mut rec = rec.map_err(|e| anyhow::anyhow!("openings {source}: {e}"))?;
                rec.source.clone_from(&source);
                openings.push(Opening::checked(rec).with_context(|| format!("openings {source}"))?);
            }
        }
        if openings.is_empty() {
            bail!("openings {}: no SGF record found", path.display());
        }
        Ok(Suite { openings })
    }

    /// Refuses a suite with an opening that leaves a match capped at `max_moves` no move to
    /// play: its games would end at the cap before either engine moved, and count as results.
    pub fn check_move_cap(&self, max_moves: u32) -> anyhow::Result<()> {
        if let Some((i, o)) = self
            .openings
            .iter()
            .enumerate()
            .find(|(_, o)| o.moves.len() >= max_moves as usize)
        {
            bail!(
                "openings: opening {} ({}) has {} moves, and the move cap (--max-moves) is {}: \
                 its games would end at the cap before either engine moves; give a move cap \
                 above the longest opening",
                i + 1,
                o.source,
                o.moves.len(),
                max_moves
            );
        }
        Ok(())
    }

    /// The checksum of the openings' moves (see the module doc).
    pub fn checksum(&self) -> crate::util::checksum::Checksum {
        let text: String = self
            .openings
            .iter()
            .map(|o| moves_text(&o.moves) + "\n")
            .collect();
        crate::util::checksum::Checksum::of(text.as_bytes())
    }

    /// What `match.toml` records of the suite read from `file`.
    pub fn spec(&self, file: &Path) -> SuiteSpec {
        SuiteSpec {
            file: file.display().to_string(),
            count: self.openings.len() as u32,
            checksum: self.checksum(),
        }
    }

    /// Reads the suite a match recorded, refusing a file whose openings are not the ones
    /// recorded (edited, reordered, another file).
    pub fn read_recorded(spec: &SuiteSpec) -> anyhow::Result<Suite> {
        let suite = Suite::read(Path::new(&spec.file))?;
        let (count, sum) = (suite.openings.len() as u32, suite.checksum());
        if count != spec.count || sum != spec.checksum {
            bail!(
                "openings {}: {count} openings with checksum {sum}, but the match was planned \
                 with {} openings with checksum {}: the suite has changed; use the suite the \
                 match was planned with, or a new --out folder",
                spec.file,
                spec.count,
                spec.checksum
            );
        }
        Ok(suite)
    }
}

impl Opening {
    /// The opening of a parsed record, checked.
    pub fn checked(rec: crate::sgf::GameRecord) -> anyhow::Result<Opening> {
        if !(rec.setup_black.is_empty() && rec.setup_white.is_empty() && rec.setup_empty.is_empty())
        {
            bail!(
                "{}: has setup stones (AB/AW/AE); a match tells engines its opening with GTP \
                 `play` only, so an opening must be moves from the empty board",
                rec.source
            );
        }
        if rec.first_player.is_some_and(|c| c != Color::Black)
            || rec.moves.first().is_some_and(|m| m.0 != Color::Black)
        {
            bail!("{}: an opening starts with black's move", rec.source);
        }
        if let Some(i) = rec.moves.windows(2).position(|w| w[0].0 == w[1].0) {
            bail!(
                "{}: moves {} and {} are both {}'s: an opening's colours alternate",
                rec.source,
                i + 1,
                i + 2,
                rec.moves[i].0.letter()
            );
        }
        let game =
            check(&rec, Superko::Always).map_err(|e| anyhow::anyhow!("{}: {e}", rec.source))?;
        if game.is_over() {
            bail!("{}: the opening ends the game (two passes)", rec.source);
        }
        Ok(Opening {
            source: rec.source,
            moves: rec.moves,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn suites_read_from_files_folders_and_sgfs_and_bad_ones_are_named() {
        let dir = std::env::temp_dir().join(format!("akushu-openings-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("folder")).unwrap();
        write(&dir.join("folder"), "a.sgf", "(;SZ[9];B[ee];W[cc])");
        write(&dir.join("folder"), "b.sgf", "(;SZ[9];B[dd])");
        let sgfs = write(&dir, "s.sgfs", "(;SZ[9];B[ee];W[cc])\n(;SZ[9];B[dd])\n");
        let folder = Suite::read(&dir.join("folder")).unwrap();
        let lines = Suite::read(&sgfs).unwrap();
        assert_eq!(folder.openings.len(), 2);
        assert_eq!(moves_text(&folder.openings[0].moves), "B[ee];W[cc]");
        // The same openings, read two ways: one checksum.
        assert_eq!(folder.checksum(), lines.checksum());
        let one = Suite::read(&dir.join("folder/b.sgf")).unwrap();
        assert_ne!(one.checksum(), folder.checksum());
        for (name, text, says) in [
            ("setup.sgf", "(;SZ[9]AB[ee];W[cc])", "setup stones"),
            ("illegal.sgf", "(;SZ[9];B[ee];W[ee])", "illegal.sgf"),
            ("twice.sgf", "(;SZ[9];B[ee];B[cc])", "both B's"),
            ("over.sgf", "(;SZ[9];B[];W[])", "ends the game"),
            ("big.sgf", "(;SZ[19];B[pp])", "big.sgf"),
            ("white.sgf", "(;SZ[9];W[ee])", "starts with black"),
        ] {
            let p = write(&dir, name, text);
            let e = format!("{:#}", Suite::read(&p).unwrap_err());
            assert!(e.contains(says) && e.contains(name), "{name}: {e}");
        }
        let e = format!("{:#}", Suite::read(&dir.join("none")).unwrap_err());
        assert!(e.contains("no such file"), "{e}");
        // A recorded suite whose file changed is refused.
        let spec = folder.spec(&dir.join("folder"));
        assert_eq!(Suite::read_recorded(&spec).unwrap(), folder);
        write(&dir.join("folder"), "b.sgf", "(;SZ[9];B[de])");
        let e = format!("{:#}", Suite::read_recorded(&spec).unwrap_err());
        assert!(e.contains("the suite has changed"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
