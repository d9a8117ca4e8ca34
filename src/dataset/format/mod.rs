//! The on-disk dataset format: one binary file per split plus `manifest.json` in a directory.
//!
//! A split file (`train.akd`, `validation.akd`, `test.akd`) is a 64-byte header followed by
//! fixed-size 40-byte records, all little endian:
//!
//! | bytes  | header field                                             |
//! |--------|----------------------------------------------------------|
//! | 0..8   | magic `AKUSHUDS`                                         |
//! | 8..12  | format version (`u32`, currently 1)                      |
//! | 12..16 | record size in bytes (`u32`, 40)                         |
//! | 16..24 | number of records (`u64`)                                |
//! | 24..28 | number of games in the split (`u32`)                     |
//! | 28..32 | CRC-32 of all record bytes (`u32`)                       |
//! | 32     | split (0 train, 1 validation, 2 test)                    |
//! | 33..64 | reserved, zero                                           |
//!
//! | bytes  | record field ([`Position`])                                        |
//! |--------|---------------------------------------------------------------------|
//! | 0..21  | the 81 cells, 2 bits each (cell `i` in byte `i / 4`, bits `2 * (i % 4)`) |
//! | 21     | `to_move` (1 black, 2 white)                                        |
//! | 22     | `played` (0..=80, 81 pass)                                          |
//! | 23     | `ko` (0..=80 or 255)                                                |
//! | 24..26 | `move_number` (`u16`)                                               |
//! | 26..30 | `last_moves`, newest first                                          |
//! | 30     | `winner` (0 unknown/draw, 1 black, 2 white)                         |
//! | 31     | `black_rank` (`i8`)                                                 |
//! | 32     | `white_rank` (`i8`)                                                 |
//! | 33..36 | reserved, zero                                                      |
//! | 36..40 | `game` (`u32`), index into the manifest's `games.csv`               |
//!
//! Version 2 (self-play records, [`SearchTarget`]) keeps the header and the first 40 bytes
//! and appends 200 bytes, for 240-byte records; readers take both versions, and a split
//! holds one version throughout:
//!
//! | bytes    | version 2 field                                                     |
//! |----------|---------------------------------------------------------------------|
//! | 40..204  | root visits of the 81 points and pass (`u16` each)                  |
//! | 204..208 | root value for the side to move (`f32`, NaN = none)                 |
//! | 208..212 | simulations (`u32`)                                                 |
//! | 212..233 | final owner of each point, 2 bits each as the cells (0 none, 1 black, 2 white) |
//! | 233      | flags: bit 0 = ownership known                                      |
//! | 234..236 | reserved, zero                                                      |
//! | 236..240 | final area margin for black, komi included (`f32`, NaN = not counted) |
//!
//! Version 3 (records labelled by a teacher engine, [`TeacherLabel`]) keeps the first 240
//! bytes (the search part zero when the source had none) and appends 592, for 832-byte
//! records:
//!
//! | bytes    | version 3 field                                                     |
//! |----------|---------------------------------------------------------------------|
//! | 240..404 | teacher policy of the 81 points and pass (`u16`, share x 65534; 65535 = illegal) |
//! | 404..408 | teacher win rate for the side to move (`f32`)                       |
//! | 408..412 | teacher score lead for the side to move (`f32`, points)             |
//! | 412..416 | teacher visits (`u32`)                                              |
//! | 416..497 | teacher ownership of each point (`i8`, black's share x 127)         |
//! | 497      | flags: bit 0 = search part present, bit 1 = per-move values present |
//! | 498..500 | reserved, zero                                                      |
//! | 500..664 | each move's win rate for the mover after it (`u16`, x 65534; 65535 = not judged) |
//! | 664..828 | each move's score lead for the mover after it (`i16`, 1/100 point; -32768 = not judged) |
//! | 828..832 | reserved, zero                                                      |
//!
//! Fixed-size records make a split memory-mappable ([`MappedSplit`]) and streamable
//! ([`SplitReader`]); the checksum catches truncation and bit rot before training starts.
//! Files are written inside a temporary directory that the builder renames into place, so
//! a reader never sees a half-written dataset.
//!
//! Files: this one the constants, errors and the split header; `codec.rs` a record's
//! bytes; `write.rs` the writer; `read.rs` the readers; `tests.rs` the tests.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::record::{
    MoveValues, NO_POINT, NO_SCORE, NO_SHARE, Position, SearchTarget, Split, TeacherLabel,
    VISIT_SLOTS,
};
use crate::rules::{Board, CellsError, NN, PASS_INDEX};

mod codec;
mod read;
mod write;
pub use codec::*;
pub use read::*;
pub use write::*;

/// File magic of a split file.
pub const MAGIC: &[u8; 8] = b"AKUSHUDS";
/// Format version of human records (no search data); readers take it and [`VERSION_SEARCH`].
pub const VERSION: u32 = 1;
/// Format version of records with search data (self-play).
pub const VERSION_SEARCH: u32 = 2;
/// Format version of records labelled by a teacher engine.
pub const VERSION_TEACHER: u32 = 3;
/// Size of the header in bytes.
pub const HEADER_SIZE: usize = 64;
/// Size of one version-1 record in bytes (the first bytes of every record).
pub const RECORD_SIZE: usize = 40;
/// Size of one version-2 record in bytes.
pub const SEARCH_RECORD_SIZE: usize = 240;
/// Size of one version-3 record in bytes.
pub const TEACHER_RECORD_SIZE: usize = 832;
/// The largest record of any version.
pub const MAX_RECORD_SIZE: usize = TEACHER_RECORD_SIZE;

/// The record size of a format version.
pub fn record_size(version: u32) -> usize {
    match version {
        VERSION_SEARCH => SEARCH_RECORD_SIZE,
        VERSION_TEACHER => TEACHER_RECORD_SIZE,
        _ => RECORD_SIZE,
    }
}

/// The format version a position is written in: 3 with a teacher's label, 2 with search
/// data alone, else 1.
pub fn version_of(p: &Position) -> u32 {
    if p.teacher.is_some() {
        VERSION_TEACHER
    } else if p.search.is_some() {
        VERSION_SEARCH
    } else {
        VERSION
    }
}
/// Name of the manifest inside a dataset directory.
pub const MANIFEST_FILE: &str = "manifest.json";

/// Why a dataset could not be read.
#[derive(Debug, Error)]
pub enum DatasetError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{path}: not an akushu dataset file (bad magic)")]
    BadMagic { path: PathBuf },
    #[error(
        "{path}: format version {found} is not supported (this build reads versions {VERSION} to {VERSION_TEACHER})"
    )]
    Version { path: PathBuf, found: u32 },
    #[error("{path}: record size {found} bytes, expected {expected} for its version")]
    RecordSize {
        path: PathBuf,
        found: u32,
        expected: usize,
    },
    #[error("{path}: header says split {found}, file name says {expected}")]
    WrongSplit {
        path: PathBuf,
        expected: &'static str,
        found: u8,
    },
    #[error("{path}: truncated: header promises {expected} records, file holds {found}")]
    Truncated {
        path: PathBuf,
        expected: u64,
        found: u64,
    },
    #[error(
        "{path}: size mismatch: header promises {expected} records ({expected_bytes} bytes), \
         the file has {found_bytes} bytes ({} extra)",
        found_bytes - expected_bytes
    )]
    ExtraBytes {
        path: PathBuf,
        expected: u64,
        expected_bytes: u64,
        found_bytes: u64,
    },
    #[error("{path}: checksum mismatch (header {expected:08x}, data {found:08x}): file is corrupt")]
    Checksum {
        path: PathBuf,
        expected: u32,
        found: u32,
    },
    #[error("{path}: record {index} is invalid: {reason}")]
    BadRecord {
        path: PathBuf,
        index: u64,
        #[source]
        reason: RecordError,
    },
    #[error("{path}: record {index} asked for, the split holds {len}")]
    OutOfRange { path: PathBuf, index: u64, len: u64 },
    #[error("{path}: manifest: {reason}")]
    Manifest { path: PathBuf, reason: String },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> DatasetError + '_ {
    move |source| DatasetError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The path of `split`'s file inside dataset directory `dir`.
pub fn split_path(dir: &Path, split: Split) -> PathBuf {
    dir.join(format!("{}.akd", split.name()))
}

fn split_code(split: Split) -> u8 {
    match split {
        Split::Train => 0,
        Split::Validation => 1,
        Split::Test => 2,
    }
}

/// The parsed header of a split file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitHeader {
    pub version: u32,
    pub count: u64,
    pub games: u32,
    pub crc: u32,
    pub split: Split,
}

impl SplitHeader {
    /// Bytes per record in this split.
    pub fn record_size(&self) -> usize {
        record_size(self.version)
    }

    fn to_bytes(self) -> [u8; HEADER_SIZE] {
        let mut h = [0u8; HEADER_SIZE];
        h[0..8].copy_from_slice(MAGIC);
        h[8..12].copy_from_slice(&self.version.to_le_bytes());
        h[12..16].copy_from_slice(&(record_size(self.version) as u32).to_le_bytes());
        h[16..24].copy_from_slice(&self.count.to_le_bytes());
        h[24..28].copy_from_slice(&self.games.to_le_bytes());
        h[28..32].copy_from_slice(&self.crc.to_le_bytes());
        h[32] = split_code(self.split);
        h
    }

    fn parse(
        h: &[u8; HEADER_SIZE],
        path: &Path,
        split: Split,
    ) -> Result<SplitHeader, DatasetError> {
        if &h[0..8] != MAGIC {
            return Err(DatasetError::BadMagic {
                path: path.to_path_buf(),
            });
        }
        let u32_at = |i: usize| u32::from_le_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]]);
        let version = u32_at(8);
        if !(VERSION..=VERSION_TEACHER).contains(&version) {
            return Err(DatasetError::Version {
                path: path.to_path_buf(),
                found: version,
            });
        }
        let size = u32_at(12);
        if size as usize != record_size(version) {
            return Err(DatasetError::RecordSize {
                path: path.to_path_buf(),
                found: size,
                expected: record_size(version),
            });
        }
        if h[32] != split_code(split) {
            return Err(DatasetError::WrongSplit {
                path: path.to_path_buf(),
                expected: split.name(),
                found: h[32],
            });
        }
        let mut count = [0u8; 8];
        count.copy_from_slice(&h[16..24]);
        Ok(SplitHeader {
            version,
            count: u64::from_le_bytes(count),
            games: u32_at(24),
            crc: u32_at(28),
            split,
        })
    }
}

#[cfg(test)]
mod tests;
