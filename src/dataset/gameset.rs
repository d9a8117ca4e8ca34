//! Game identity and provenance: a game's content hash, a dataset's per-split game sets and
//! fingerprint, and the compact game-set file a model keeps of the games it trained on.
//!
//! A game's hash is a function of the game alone (board size, komi, handicap, setup stones
//! and main line: [`crate::sgf::SgfRecord::content_key`]), so the same game gets the same hash
//! in every dataset, whatever the filters, inputs or ids. Splits drawn from it
//! ([`split_of_hash`]) therefore never move a game, and a model's training games can be
//! compared with any evaluated split ([`GameSet::overlap`]).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::record::Split;

/// FNV-1a over `bytes` started from `seed`, finished with splitmix64's mixer so that inputs
/// differing in their last bytes spread over the whole range. Stable across platforms and
/// releases: splits and game identities depend on it.
pub fn seeded_hash(bytes: &[u8], seed: u64) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    for &b in bytes {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// A game's identity: the unseeded hash of its content key.
pub fn game_hash(content_key: &[u8]) -> u64 {
    seeded_hash(content_key, 0)
}

/// The identity self-play datasets gave a game before every path took its SGF's: the hash
/// of `selfplay` followed by each move's point (81 for a pass). Game sets of models trained
/// then hold it; `akushu provenance --sgf-identities` maps them to [`game_hash`].
pub fn selfplay_moves_hash(moves: impl IntoIterator<Item = Option<usize>>) -> u64 {
    let mut key = b"selfplay".to_vec();
    key.extend(moves.into_iter().map(|m| m.map_or(81, |p| p as u8)));
    game_hash(&key)
}

/// The `.sgf` files directly in `dir`, sorted by path (so a folder reads in the same order
/// everywhere); an unreadable folder is an error naming it. The `sgf/` of a packed games
/// folder lists its archive's files by the paths they have loose, which [`read_sgf_game`]
/// reads.
pub fn sgf_files_in(dir: &Path) -> Result<Vec<PathBuf>> {
    if let Some(packed) = crate::util::pack::list_sgf_dir(dir)? {
        return Ok(packed
            .into_iter()
            .filter(|p| p.extension().is_some_and(|x| x == "sgf"))
            .collect());
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "sgf"))
        .collect();
    files.sort();
    Ok(files)
}

/// The game of the SGF file at `path` (the first of a collection), errors naming the file:
/// what a recorded game's identity ([`game_hash`] of its content key) is read from. A
/// packed games folder's file is read from its archive.
pub fn read_sgf_game(path: &Path) -> Result<crate::sgf::GameRecord> {
    let bytes = crate::util::pack::read_game_file(path)?;
    let text = path.display().to_string();
    crate::sgf::parse_record(&bytes, &text, &text).map_err(|e| anyhow::anyhow!("{text}: {e}"))
}

/// The split a game with hash `hash` falls in: a seeded hash of it read as a fraction of
/// 2^64, below `validation` is validation, below `validation + test` is test.
pub fn split_of_hash(hash: u64, validation: f64, test: f64, seed: u64) -> Split {
    split_of_unit(seeded_hash(&hash.to_le_bytes(), seed), validation, test)
}

/// A 64-bit hash read as a fraction of 2^64 and cut at the shares.
pub fn split_of_unit(h: u64, validation: f64, test: f64) -> Split {
    let u = h as f64 / 2f64.powi(64);
    if u < validation {
        Split::Validation
    } else if u < validation + test {
        Split::Test
    } else {
        Split::Train
    }
}

/// The text form of a game hash in `games.csv` (16 hex digits).
pub fn hash_text(h: u64) -> String {
    format!("{h:016x}")
}

/// A set of game hashes, sorted and without repeats.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameSet(Vec<u64>);

/// First line of a game-set file.
const MAGIC: &[u8] = b"akushu game hashes 1\n";

impl GameSet {
    pub fn new(mut hashes: Vec<u64>) -> GameSet {
        hashes.sort_unstable();
        hashes.dedup();
        GameSet(hashes)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn contains(&self, h: u64) -> bool {
        self.0.binary_search(&h).is_ok()
    }

    /// How many of `hashes` are in the set.
    pub fn overlap<'a>(&self, hashes: impl IntoIterator<Item = &'a u64>) -> usize {
        hashes.into_iter().filter(|&&h| self.contains(h)).count()
    }

    /// The union of both sets.
    pub fn union(&self, other: &GameSet) -> GameSet {
        GameSet::new(self.0.iter().chain(&other.0).copied().collect())
    }

    /// The hashes, ascending.
    pub fn hashes(&self) -> &[u64] {
        &self.0
    }

    /// The file form: the magic line, the count (u64 LE), the gaps between sorted hashes as
    /// LEB128 varints (7 bytes a game from about 60,000 games on, 8 below), then a CRC-32 of
    /// all before it.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&(self.0.len() as u64).to_le_bytes());
        let mut prev = 0u64;
        for &h in &self.0 {
            let mut gap = h - prev;
            prev = h;
            loop {
                let byte = (gap & 0x7f) as u8;
                gap >>= 7;
                if gap == 0 {
                    out.push(byte);
                    break;
                }
                out.push(byte | 0x80);
            }
        }
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<GameSet, String> {
        let body_end = bytes
            .len()
            .checked_sub(4)
            .filter(|&n| n >= MAGIC.len() + 8 && bytes.starts_with(MAGIC))
            .ok_or("not an akushu game-set file")?;
        let (body, crc) = bytes.split_at(body_end);
        if crc32fast::hash(body) != u32::from_le_bytes(crc.try_into().expect("4 bytes")) {
            return Err("checksum mismatch (the file is damaged)".into());
        }
        let count = u64::from_le_bytes(body[MAGIC.len()..MAGIC.len() + 8].try_into().expect("8"));
        let mut rest = &body[MAGIC.len() + 8..];
        // Every hash takes at least one byte: a count past the bytes left is a lie.
        if count > rest.len() as u64 {
            return Err(format!("{count} hashes announced in {} bytes", rest.len()));
        }
        let mut hashes = Vec::with_capacity(count as usize);
        let mut prev = 0u64;
        for _ in 0..count {
            let mut gap = 0u64;
            let mut shift = 0;
            loop {
                let (&byte, tail) = rest.split_first().ok_or("truncated")?;
                rest = tail;
                if shift > 63 {
                    return Err("a gap longer than 64 bits".into());
                }
                gap |= u64::from(byte & 0x7f) << shift;
                shift += 7;
                if byte & 0x80 == 0 {
                    break;
                }
            }
            prev = prev.checked_add(gap).ok_or("hashes out of order")?;
            hashes.push(prev);
        }
        if !rest.is_empty() {
            return Err(format!("{} bytes past the last hash", rest.len()));
        }
        Ok(GameSet::new(hashes))
    }

    /// Writes the set atomically.
    pub fn write(&self, path: &Path) -> Result<()> {
        crate::util::fsio::write_atomic_with(path, |w| w.write_all(&self.to_bytes()))
            .map_err(anyhow::Error::from)
    }

    pub fn read(path: &Path) -> Result<GameSet> {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        GameSet::from_bytes(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
    }
}

/// Every game of a dataset by split, as `games.csv` lists them (`hash` column), in game order.
#[derive(Debug, Clone, Default)]
pub struct DatasetGames {
    pub by_split: BTreeMap<&'static str, Vec<u64>>,
    /// Every game's hash by game number (the `game` field of its positions).
    pub by_game: Vec<u64>,
}

impl DatasetGames {
    /// Reads `dir/games.csv`. A dataset built before games had hashes has no `hash` column:
    /// `None` (its games cannot be compared with a model's).
    pub fn read(dir: &Path) -> Result<Option<DatasetGames>> {
        let path = dir.join("games.csv");
        let mut reader =
            csv::Reader::from_path(&path).with_context(|| format!("reading {}", path.display()))?;
        let header = reader
            .headers()
            .with_context(|| format!("reading {}", path.display()))?
            .clone();
        let col = |name: &str| header.iter().position(|h| h == name);
        let (Some(split_col), Some(hash_col)) = (col("split"), col("hash")) else {
            return Ok(None);
        };
        let mut games = DatasetGames::default();
        for (line, row) in reader.records().enumerate() {
            let at = || format!("{}: line {}", path.display(), line + 2);
            let row = row.with_context(at)?;
            let split = Split::ALL
                .into_iter()
                .find(|s| Some(s.name()) == row.get(split_col))
                .with_context(|| format!("{}: unknown split", at()))?;
            let text = row.get(hash_col).unwrap_or_default();
            let hash = u64::from_str_radix(text, 16)
                .ok()
                .filter(|_| text.len() == 16)
                .with_context(|| format!("{}: hash {text:?} is not 16 hex digits", at()))?;
            games.by_split.entry(split.name()).or_default().push(hash);
            games.by_game.push(hash);
        }
        Ok(Some(games))
    }

    /// The hashes of the games in `splits`.
    pub fn of(&self, splits: &[Split]) -> Vec<u64> {
        splits
            .iter()
            .flat_map(|s| self.by_split.get(s.name()).into_iter().flatten().copied())
            .collect()
    }
}

/// A dataset's fingerprint: a hash of each split's game hashes (in order) and its record
/// CRC-32 and counts, as 16 hex digits. Two datasets with the same fingerprint hold the same
/// games in the same splits with the same bytes.
pub fn fingerprint(games: &DatasetGames, crcs: &BTreeMap<String, (u64, u32)>) -> String {
    let mut bytes = Vec::new();
    for split in Split::ALL {
        bytes.extend_from_slice(split.name().as_bytes());
        let (positions, crc) = crcs.get(split.name()).copied().unwrap_or_default();
        bytes.extend_from_slice(&positions.to_le_bytes());
        bytes.extend_from_slice(&crc.to_le_bytes());
        for h in games.of(&[split]) {
            bytes.extend_from_slice(&h.to_le_bytes());
        }
    }
    hash_text(seeded_hash(&bytes, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_sets_round_trip_compactly_and_refuse_damage() {
        let mut rng = crate::util::rng::FastRng::new(7);
        let hashes: Vec<u64> = (0..5000).map(|_| rng.next_u64()).collect();
        let set = GameSet::new(hashes.clone());
        let bytes = set.to_bytes();
        assert!(bytes.len() <= 5000 * 8 + 40, "{} bytes", bytes.len());
        assert_eq!(GameSet::from_bytes(&bytes).unwrap(), set);
        assert_eq!(set.overlap(&hashes[..10]), 10);
        assert_eq!(set.overlap(&[1, 2, 3]), 0);
        let mut bad = bytes.clone();
        bad[40] ^= 1;
        assert!(GameSet::from_bytes(&bad).unwrap_err().contains("checksum"));
        assert!(GameSet::from_bytes(&bytes[..bytes.len() - 9]).is_err());
        assert!(GameSet::from_bytes(b"nonsense").is_err());
        let empty = GameSet::default();
        assert_eq!(GameSet::from_bytes(&empty.to_bytes()).unwrap(), empty);
    }

    #[test]
    fn a_games_split_follows_its_hash_alone() {
        let shares: Vec<Split> = (0..20_000u64)
            .map(|g| split_of_hash(game_hash(&g.to_le_bytes()), 0.1, 0.1, 1))
            .collect();
        let test = shares.iter().filter(|&&s| s == Split::Test).count();
        assert!((1800..2200).contains(&test), "{test}");
        // Another seed draws other splits.
        let other = (0..20_000u64)
            .filter(|&g| {
                split_of_hash(game_hash(&g.to_le_bytes()), 0.1, 0.1, 2) != shares[g as usize]
            })
            .count();
        assert!(other > 4000, "{other}");
    }
}
