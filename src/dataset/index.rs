//! A game index CSV (like the shared `ogs9x9_index.csv.xz`) that overrides ranks and flags
//! bots per game id. Ranks inside OGS files can be wrong (one scrape mirrored kyu ranks),
//! so when an index is given its ranks win over `BR`/`WR`.
//!
//! Columns read (by header name, others ignored): `game_id` (required), `BR_num`/`WR_num`
//! (numeric ranks, 1k = 0, 1d = 1; empty = unknown) or else `BR`/`WR` (rank text), and
//! `bot_suspect` (1 = bot). The file may be plain, `.gz` or `.xz`.

use std::collections::HashMap;
use std::path::Path;

use thiserror::Error;

use crate::sgf::parse_rank;
use crate::sgf::source::read_maybe_compressed;

/// One game's index entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IndexEntry {
    pub black_rank: Option<i8>,
    pub white_rank: Option<i8>,
    pub bot: bool,
}

/// Why an index could not be loaded.
#[derive(Debug, Error)]
pub enum IndexError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: line {line}: {reason}")]
    Csv {
        path: String,
        line: u64,
        reason: String,
    },
    #[error("{path}: no `game_id` column")]
    NoId { path: String },
}

/// Index entries by game id.
#[derive(Debug, Clone, Default)]
pub struct GameIndex {
    entries: HashMap<String, IndexEntry>,
}

impl GameIndex {
    /// Loads an index file.
    pub fn load(path: &Path) -> Result<GameIndex, IndexError> {
        let name = path.display().to_string();
        let bytes = read_maybe_compressed(path).map_err(|source| IndexError::Io {
            path: name.clone(),
            source,
        })?;
        GameIndex::from_csv(&bytes, &name)
    }

    /// Parses index CSV bytes; `name` is used in errors.
    pub fn from_csv(bytes: &[u8], name: &str) -> Result<GameIndex, IndexError> {
        let mut rd = csv::ReaderBuilder::new().flexible(true).from_reader(bytes);
        let csv_err = |e: csv::Error| IndexError::Csv {
            path: name.to_string(),
            line: e.position().map_or(0, |p| p.line()),
            reason: e.to_string(),
        };
        let headers = rd.headers().map_err(csv_err)?.clone();
        let col = |n: &str| headers.iter().position(|h| h.trim() == n);
        let id_col = col("game_id").ok_or_else(|| IndexError::NoId {
            path: name.to_string(),
        })?;
        let (br_num, wr_num) = (col("BR_num"), col("WR_num"));
        let (br, wr) = (col("BR"), col("WR"));
        let bot = col("bot_suspect");
        let mut entries = HashMap::new();
        for row in rd.records() {
            let row = row.map_err(csv_err)?;
            let field = |c: Option<usize>| c.and_then(|c| row.get(c)).map(str::trim);
            let rank = |num: Option<usize>, text: Option<usize>| match field(num) {
                Some(v) if num.is_some() => v.parse::<i8>().ok(),
                _ => field(text).and_then(parse_rank),
            };
            let entry = IndexEntry {
                black_rank: rank(br_num, br),
                white_rank: rank(wr_num, wr),
                bot: field(bot) == Some("1"),
            };
            if let Some(id) = field(Some(id_col)).filter(|s| !s.is_empty()) {
                entries.insert(id.to_string(), entry);
            }
        }
        Ok(GameIndex { entries })
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry for a record id: the id itself, or its numeric tail (`ogs_123` -> `123`).
    pub fn get(&self, record_id: &str) -> Option<&IndexEntry> {
        self.entries.get(record_id).or_else(|| {
            let tail = record_id.rsplit('_').next()?;
            self.entries.get(tail)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_numeric_and_text_ranks() {
        let csv = "game_id,BR,WR,BR_num,WR_num,bot_suspect\n\
                   12,3k,1d,-2,1,0\n\
                   13,5k,2d,,,1\n";
        let idx = GameIndex::from_csv(csv.as_bytes(), "t").unwrap();
        assert_eq!(idx.len(), 2);
        let e = idx.get("ogs_12").unwrap();
        assert_eq!(
            (e.black_rank, e.white_rank, e.bot),
            (Some(-2), Some(1), false)
        );
        // Empty numeric ranks mean unknown (the numeric column wins when present).
        let e = idx.get("13").unwrap();
        assert_eq!((e.black_rank, e.bot), (None, true));
        assert!(idx.get("ogs_14").is_none());
        let text_only = "game_id,BR,WR\n7,3k,2d\n";
        let idx = GameIndex::from_csv(text_only.as_bytes(), "t").unwrap();
        assert_eq!(idx.get("7").unwrap().white_rank, Some(2));
        assert!(GameIndex::from_csv(b"a,b\n1,2\n", "t").is_err());
    }
}
