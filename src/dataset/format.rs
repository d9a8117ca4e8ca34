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

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::record::{
    MoveValues, NO_POINT, NO_SCORE, NO_SHARE, Position, SearchTarget, Split, TeacherLabel,
    VISIT_SLOTS,
};
use crate::rules::{Board, CellsError, NN, PASS_INDEX};

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

/// Encodes `p` into one record.
pub fn encode(p: &Position) -> [u8; RECORD_SIZE] {
    let mut r = [0u8; RECORD_SIZE];
    for (i, &c) in p.cells.iter().enumerate() {
        r[i / 4] |= (c & 3) << (2 * (i % 4));
    }
    r[21] = p.to_move;
    r[22] = p.played;
    r[23] = p.ko;
    r[24..26].copy_from_slice(&p.move_number.to_le_bytes());
    r[26..30].copy_from_slice(&p.last_moves);
    r[30] = p.winner;
    r[31] = p.black_rank as u8;
    r[32] = p.white_rank as u8;
    r[36..40].copy_from_slice(&p.game.to_le_bytes());
    r
}

/// Encodes `p` into one record of its version ([`version_of`]): 40 bytes, 240 with its
/// search data, 832 with a teacher's label.
pub fn encode_any(p: &Position) -> Vec<u8> {
    let mut r = encode(p).to_vec();
    match (&p.search, &p.teacher) {
        (Some(t), None) => r.extend_from_slice(&encode_search(t)),
        (search, Some(label)) => {
            match search {
                Some(t) => r.extend_from_slice(&encode_search(t)),
                None => r.resize(SEARCH_RECORD_SIZE, 0),
            }
            r.extend_from_slice(&encode_teacher(label, search.is_some()));
        }
        (None, None) => {}
    }
    r
}

/// Bytes of the teacher part of a version-3 record.
const TEACHER_PART: usize = TEACHER_RECORD_SIZE - SEARCH_RECORD_SIZE;
const FLAG_SEARCH: u8 = 1;
const FLAG_PER_MOVE: u8 = 2;

/// The 592 bytes a version-3 record appends for `t`; `search` says whether the search part
/// before them holds data.
pub fn encode_teacher(t: &TeacherLabel, search: bool) -> [u8; TEACHER_PART] {
    let mut r = [0u8; TEACHER_PART];
    for (i, v) in t.policy.iter().enumerate() {
        r[2 * i..2 * i + 2].copy_from_slice(&v.to_le_bytes());
    }
    r[164..168].copy_from_slice(&t.winrate.to_le_bytes());
    r[168..172].copy_from_slice(&t.score_lead.to_le_bytes());
    r[172..176].copy_from_slice(&t.visits.to_le_bytes());
    for (i, &o) in t.ownership.iter().enumerate() {
        r[176 + i] = o as u8;
    }
    let mut flags = if search { FLAG_SEARCH } else { 0 };
    if let Some(m) = &t.moves {
        flags |= FLAG_PER_MOVE;
        for (i, (w, v)) in m.winrate.iter().zip(&m.score_lead).enumerate() {
            r[260 + 2 * i..262 + 2 * i].copy_from_slice(&w.to_le_bytes());
            r[424 + 2 * i..426 + 2 * i].copy_from_slice(&v.to_le_bytes());
        }
    }
    r[257] = flags;
    r
}

/// Decodes the teacher part of a version-3 record (the bytes after the first 240), with
/// whether the search part holds data.
fn decode_teacher(r: &[u8]) -> Result<(TeacherLabel, bool), RecordError> {
    let u16_at = |i: usize| u16::from_le_bytes([r[i], r[i + 1]]);
    let f32_at = |i: usize| f32::from_le_bytes([r[i], r[i + 1], r[i + 2], r[i + 3]]);
    let mut policy = [0u16; VISIT_SLOTS];
    for (i, p) in policy.iter_mut().enumerate() {
        *p = u16_at(2 * i);
    }
    let winrate = f32_at(164);
    if !(0.0..=1.0).contains(&winrate) {
        return Err(RecordError::Value(winrate));
    }
    let score_lead = f32_at(168);
    if !score_lead.is_finite() {
        return Err(RecordError::Score(score_lead));
    }
    let visits = u32::from_le_bytes([r[172], r[173], r[174], r[175]]);
    let mut ownership = [0i8; NN];
    for (i, o) in ownership.iter_mut().enumerate() {
        *o = r[176 + i] as i8;
        if *o == i8::MIN {
            return Err(RecordError::Owner(i));
        }
    }
    let flags = r[257];
    if flags & !(FLAG_SEARCH | FLAG_PER_MOVE) != 0 || r[258] != 0 || r[259] != 0 {
        return Err(RecordError::Flags(flags));
    }
    let moves = if flags & FLAG_PER_MOVE != 0 {
        let mut m = MoveValues {
            winrate: [NO_SHARE; VISIT_SLOTS],
            score_lead: [NO_SCORE; VISIT_SLOTS],
        };
        for i in 0..VISIT_SLOTS {
            m.winrate[i] = u16_at(260 + 2 * i);
            m.score_lead[i] = u16_at(424 + 2 * i) as i16;
        }
        Some(Box::new(m))
    } else {
        None
    };
    let label = TeacherLabel {
        policy,
        winrate,
        score_lead,
        visits,
        ownership,
        moves,
    };
    Ok((label, flags & FLAG_SEARCH != 0))
}

/// The 200 bytes a version-2 record appends for `t`.
pub fn encode_search(t: &SearchTarget) -> [u8; SEARCH_RECORD_SIZE - RECORD_SIZE] {
    let mut r = [0u8; SEARCH_RECORD_SIZE - RECORD_SIZE];
    for (i, v) in t.visits.iter().enumerate() {
        r[2 * i..2 * i + 2].copy_from_slice(&v.to_le_bytes());
    }
    r[164..168].copy_from_slice(&t.value.to_le_bytes());
    r[168..172].copy_from_slice(&t.simulations.to_le_bytes());
    if let Some(own) = &t.ownership {
        for (i, &c) in own.iter().enumerate() {
            r[172 + i / 4] |= (c & 3) << (2 * (i % 4));
        }
        r[193] = 1;
    }
    r[196..200].copy_from_slice(&t.score.to_le_bytes());
    r
}

/// Decodes the search part of a version-2 record (the bytes after the first 40).
fn decode_search(r: &[u8]) -> Result<SearchTarget, RecordError> {
    let mut visits = [0u16; VISIT_SLOTS];
    for (i, v) in visits.iter_mut().enumerate() {
        *v = u16::from_le_bytes([r[2 * i], r[2 * i + 1]]);
    }
    let f32_at = |i: usize| f32::from_le_bytes([r[i], r[i + 1], r[i + 2], r[i + 3]]);
    let value = f32_at(164);
    if !(value.is_nan() || (0.0..=1.0).contains(&value)) {
        return Err(RecordError::Value(value));
    }
    let simulations = u32::from_le_bytes([r[168], r[169], r[170], r[171]]);
    if r[193] > 1 || r[194] != 0 || r[195] != 0 {
        return Err(RecordError::Flags(r[193]));
    }
    let ownership = if r[193] == 1 {
        let mut own = [0u8; NN];
        for (i, o) in own.iter_mut().enumerate() {
            *o = (r[172 + i / 4] >> (2 * (i % 4))) & 3;
            if *o == 3 {
                return Err(RecordError::Owner(i));
            }
        }
        Some(own)
    } else {
        None
    };
    let score = f32_at(196);
    if score.is_infinite() {
        return Err(RecordError::Score(score));
    }
    Ok(SearchTarget {
        visits,
        value,
        simulations,
        ownership,
        score,
    })
}

/// Why one record does not decode ([`decode`]).
#[derive(Debug, Clone, PartialEq, Error)]
pub enum RecordError {
    #[error(
        "record has {0} bytes, expected {RECORD_SIZE}, {SEARCH_RECORD_SIZE} or {TEACHER_RECORD_SIZE}"
    )]
    Size(usize),
    #[error("root value {0} (expected 0..=1 or NaN)")]
    Value(f32),
    #[error("flags byte {0} or its reserved neighbours are not valid")]
    Flags(u8),
    #[error("owner of point {0} is 3 (expected 0, 1 or 2)")]
    Owner(usize),
    #[error("score {0} is not finite")]
    Score(f32),
    #[error("padding bits of the last cell byte are set")]
    Padding,
    #[error("to_move {0} (expected 1 or 2)")]
    ToMove(u8),
    #[error("played {0} (expected a point or 81 = pass)")]
    Played(u8),
    #[error("played point {0} is occupied")]
    PlayedOccupied(u8),
    #[error("ko {0} (expected a point or 255 = none)")]
    Ko(u8),
    #[error("last_moves {0:?} (each a point, 81 = pass or 255 = none)")]
    LastMoves([u8; 4]),
    #[error("winner {0} (expected 0, 1 or 2)")]
    Winner(u8),
    #[error("stones: {0}")]
    Stones(#[from] CellsError),
}

/// Decodes one record (any version, told by its length), checking every field's range
/// and that the stones form a position (every chain has a liberty), so [`Position::board`]
/// cannot fail on what it returns.
pub fn decode(r: &[u8]) -> Result<Position, RecordError> {
    let (search, teacher) = match r.len() {
        RECORD_SIZE => (None, None),
        SEARCH_RECORD_SIZE => (Some(Box::new(decode_search(&r[RECORD_SIZE..])?)), None),
        TEACHER_RECORD_SIZE => {
            let (label, has_search) = decode_teacher(&r[SEARCH_RECORD_SIZE..])?;
            let search = if has_search {
                Some(Box::new(decode_search(
                    &r[RECORD_SIZE..SEARCH_RECORD_SIZE],
                )?))
            } else {
                None
            };
            (search, Some(Box::new(label)))
        }
        n => return Err(RecordError::Size(n)),
    };
    let mut cells = [0u8; NN];
    for (i, cell) in cells.iter_mut().enumerate() {
        let v = (r[i / 4] >> (2 * (i % 4))) & 3;
        if v == 3 {
            return Err(CellsError::BadCell { index: i, value: v }.into());
        }
        *cell = v;
    }
    if r[20] >> 2 != 0 {
        return Err(RecordError::Padding);
    }
    let p = Position {
        cells,
        to_move: r[21],
        played: r[22],
        ko: r[23],
        move_number: u16::from_le_bytes([r[24], r[25]]),
        last_moves: [r[26], r[27], r[28], r[29]],
        winner: r[30],
        black_rank: r[31] as i8,
        white_rank: r[32] as i8,
        game: u32::from_le_bytes([r[36], r[37], r[38], r[39]]),
        search,
        teacher,
    };
    if !(1..=2).contains(&p.to_move) {
        return Err(RecordError::ToMove(p.to_move));
    }
    if p.played as usize > PASS_INDEX {
        return Err(RecordError::Played(p.played));
    }
    if (p.played as usize) < NN && p.cells[p.played as usize] != 0 {
        return Err(RecordError::PlayedOccupied(p.played));
    }
    if p.ko != NO_POINT && p.ko as usize >= NN {
        return Err(RecordError::Ko(p.ko));
    }
    if p.last_moves
        .iter()
        .any(|&m| m != NO_POINT && m as usize > PASS_INDEX)
    {
        return Err(RecordError::LastMoves(p.last_moves));
    }
    if p.winner > 2 {
        return Err(RecordError::Winner(p.winner));
    }
    Board::from_cells(&p.cells, [0, 0])?;
    Ok(p)
}

/// The parsed header of a split file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub version: u32,
    pub count: u64,
    pub games: u32,
    pub crc: u32,
    pub split: Split,
}

impl Header {
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

    fn parse(h: &[u8; HEADER_SIZE], path: &Path, split: Split) -> Result<Header, DatasetError> {
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
        Ok(Header {
            version,
            count: u64::from_le_bytes(count),
            games: u32_at(24),
            crc: u32_at(28),
            split,
        })
    }
}

/// Writes one split file: a placeholder header, the records, then the real header. Its
/// errors name the file (a full disk must say where it was met).
pub struct SplitWriter {
    out: BufWriter<File>,
    path: PathBuf,
    split: Split,
    version: u32,
    count: u64,
    crc: crc32fast::Hasher,
}

impl SplitWriter {
    /// Creates `split`'s file of version-1 records in `dir` (normally the builder's
    /// temporary directory).
    pub fn create(dir: &Path, split: Split) -> io::Result<SplitWriter> {
        SplitWriter::create_version(dir, split, VERSION)
    }

    /// Creates `split`'s file for records of format `version` (1, 2 or 3).
    pub fn create_version(dir: &Path, split: Split, version: u32) -> io::Result<SplitWriter> {
        let path = split_path(dir, split);
        let named = |e| crate::util::fsio::naming(&path, e);
        let mut out = BufWriter::with_capacity(1 << 20, File::create(&path).map_err(named)?);
        out.write_all(&[0u8; HEADER_SIZE]).map_err(named)?;
        Ok(SplitWriter {
            out,
            path,
            split,
            version,
            count: 0,
            crc: crc32fast::Hasher::new(),
        })
    }

    /// Appends one position; it must be of the writer's version ([`version_of`]: a
    /// teacher's label exactly in version 3, search data alone exactly in version 2).
    pub fn push(&mut self, p: &Position) -> io::Result<()> {
        let found = version_of(p);
        if found != self.version {
            let what = match found {
                VERSION_TEACHER => "with a teacher's label",
                VERSION_SEARCH => "with search data",
                _ => "without search data or a label",
            };
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("a position {what} in a version-{} split", self.version),
            ));
        }
        self.push_encoded(&encode_any(p))
    }

    /// Appends records already encoded with [`encode`] or [`encode_any`] (whole records of
    /// the writer's version).
    pub fn push_encoded(&mut self, bytes: &[u8]) -> io::Result<()> {
        let size = record_size(self.version);
        debug_assert_eq!(bytes.len() % size, 0);
        self.crc.update(bytes);
        self.count += (bytes.len() / size) as u64;
        self.out
            .write_all(bytes)
            .map_err(|e| crate::util::fsio::naming(&self.path, e))
    }

    /// Records written so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Writes the final header, flushes and syncs; returns the header.
    pub fn finish(self, games: u32) -> io::Result<Header> {
        let header = Header {
            version: self.version,
            count: self.count,
            games,
            crc: self.crc.finalize(),
            split: self.split,
        };
        let (mut out, path) = (self.out, self.path);
        let written = (|| {
            out.seek(SeekFrom::Start(0))?;
            out.write_all(&header.to_bytes())?;
            let file = out.into_inner().map_err(|e| e.into_error())?;
            file.sync_all()
        })();
        written.map_err(|e| crate::util::fsio::naming(&path, e))?;
        Ok(header)
    }
}

fn open_checked(dir: &Path, split: Split) -> Result<(File, Header, PathBuf), DatasetError> {
    let path = split_path(dir, split);
    let mut file = File::open(&path).map_err(io_err(&path))?;
    let mut h = [0u8; HEADER_SIZE];
    file.read_exact(&mut h).map_err(|e| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            DatasetError::BadMagic { path: path.clone() }
        } else {
            io_err(&path)(e)
        }
    })?;
    let header = Header::parse(&h, &path, split)?;
    let size = header.record_size() as u64;
    let len = file.metadata().map_err(io_err(&path))?.len();
    let found = len.saturating_sub(HEADER_SIZE as u64) / size;
    let expected_bytes = (HEADER_SIZE as u64).saturating_add(header.count.saturating_mul(size));
    if len > expected_bytes {
        // Longer than promised is not a truncation: say what is wrong.
        return Err(DatasetError::ExtraBytes {
            path,
            expected: header.count,
            expected_bytes,
            found_bytes: len,
        });
    }
    if found != header.count || !(len - HEADER_SIZE as u64).is_multiple_of(size) {
        return Err(DatasetError::Truncated {
            path,
            expected: header.count,
            found,
        });
    }
    check_against_manifest(dir, split, &header, &path)?;
    Ok((file, header, path))
}

/// Refuses a split file that is not the one its folder's `manifest.json` lists (its count
/// and CRC-32): another build's `train.akd` or `test.akd` copied in would otherwise be
/// trained on or evaluated under this dataset's fingerprint, and every overlap check made
/// with that fingerprint would be wrong. A folder without a manifest (a bare split) or a
/// manifest that does not list the split is not checked.
fn check_against_manifest(
    dir: &Path,
    split: Split,
    header: &Header,
    path: &Path,
) -> Result<(), DatasetError> {
    let manifest = dir.join(MANIFEST_FILE);
    let text = match std::fs::read_to_string(&manifest) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_err(&manifest)(e)),
    };
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| DatasetError::Manifest {
            path: manifest.clone(),
            reason: e.to_string(),
        })?;
    let Some(listed) = value.get("splits").and_then(|s| s.get(split.name())) else {
        return Ok(());
    };
    let positions = listed.get("positions").and_then(serde_json::Value::as_u64);
    let crc = listed.get("crc32").and_then(serde_json::Value::as_u64);
    if positions == Some(header.count) && crc == Some(u64::from(header.crc)) {
        return Ok(());
    }
    Err(DatasetError::Manifest {
        path: path.to_path_buf(),
        reason: format!(
            "{} lists {} positions with CRC-32 {} for the {} split; this file holds {} with \
             {:08x}: it is not this build's file (rebuild the dataset)",
            manifest.display(),
            positions.map_or("no".into(), |n| n.to_string()),
            crc.map_or("none".into(), |c| format!("{c:08x}")),
            split.name(),
            header.count,
            header.crc
        ),
    })
}

/// Reads every position of `split` from dataset directory `dir`, checking the header, the
/// size and the checksum. This is the entry point the networks use.
pub fn read_split(dir: &Path, split: Split) -> Result<Vec<Position>, DatasetError> {
    SplitReader::open(dir, split)?.collect()
}

/// Reads only the header of `split`'s file (counts without loading records).
pub fn read_header(dir: &Path, split: Split) -> Result<Header, DatasetError> {
    open_checked(dir, split).map(|(_, h, _)| h)
}

/// Streams the positions of one split in file order; the checksum is verified when the last
/// record has been read (an error is then the final item).
pub struct SplitReader {
    input: BufReader<File>,
    header: Header,
    path: PathBuf,
    next: u64,
    crc: crc32fast::Hasher,
    done: bool,
}

impl SplitReader {
    pub fn open(dir: &Path, split: Split) -> Result<SplitReader, DatasetError> {
        let (file, header, path) = open_checked(dir, split)?;
        Ok(SplitReader {
            input: BufReader::with_capacity(1 << 20, file),
            header,
            path,
            next: 0,
            crc: crc32fast::Hasher::new(),
            done: false,
        })
    }

    pub fn header(&self) -> Header {
        self.header
    }
}

impl Iterator for SplitReader {
    type Item = Result<Position, DatasetError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if self.next == self.header.count {
            self.done = true;
            let found = std::mem::take(&mut self.crc).finalize();
            return (found != self.header.crc).then(|| {
                Err(DatasetError::Checksum {
                    path: self.path.clone(),
                    expected: self.header.crc,
                    found,
                })
            });
        }
        let mut buf = [0u8; MAX_RECORD_SIZE];
        let r = &mut buf[..self.header.record_size()];
        if let Err(e) = self.input.read_exact(r) {
            self.done = true;
            return Some(Err(io_err(&self.path)(e)));
        }
        self.crc.update(r);
        let index = self.next;
        self.next += 1;
        Some(decode(r).map_err(|reason| {
            self.done = true;
            DatasetError::BadRecord {
                path: self.path.clone(),
                index,
                reason,
            }
        }))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = (self.header.count - self.next) as usize;
        (left, Some(left + 1))
    }
}

/// A memory-mapped split: random access to any record without loading the file.
pub struct MappedSplit {
    map: memmap2::Mmap,
    header: Header,
    path: PathBuf,
}

impl MappedSplit {
    /// Maps `split`'s file and verifies its checksum (one pass over the bytes).
    pub fn open(dir: &Path, split: Split) -> Result<MappedSplit, DatasetError> {
        let (file, header, path) = open_checked(dir, split)?;
        // Safety: dataset files are written once into a temporary directory and renamed into
        // place; nothing modifies them while they are mapped.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io_err(&path))?;
        let found = crc32fast::hash(&map[HEADER_SIZE..]);
        if found != header.crc {
            return Err(DatasetError::Checksum {
                path,
                expected: header.crc,
                found,
            });
        }
        Ok(MappedSplit { map, header, path })
    }

    pub fn header(&self) -> Header {
        self.header
    }

    pub fn len(&self) -> usize {
        self.header.count as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The raw bytes of record `i`.
    pub fn raw(&self, i: usize) -> &[u8] {
        let size = self.header.record_size();
        let start = HEADER_SIZE + i * size;
        &self.map[start..start + size]
    }

    /// Record `i`, decoded and range-checked.
    pub fn get(&self, i: usize) -> Result<Position, DatasetError> {
        if i >= self.len() {
            return Err(DatasetError::OutOfRange {
                path: self.path.clone(),
                index: i as u64,
                len: self.len() as u64,
            });
        }
        decode(self.raw(i)).map_err(|reason| DatasetError::BadRecord {
            path: self.path.clone(),
            index: i as u64,
            reason,
        })
    }

    /// Every record in file order.
    pub fn iter(&self) -> impl Iterator<Item = Result<Position, DatasetError>> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(i: u32) -> Position {
        let mut cells = [0u8; NN];
        // Lone stones on every fourth point: a legal position (decode checks liberties).
        for (k, c) in cells.iter_mut().enumerate() {
            if k as u32 % 4 == i % 4 {
                *c = 1 + ((k as u32 + i) % 2) as u8;
            }
        }
        cells[40] = 0;
        Position {
            cells,
            to_move: 1 + (i % 2) as u8,
            played: 40,
            move_number: i as u16,
            last_moves: [3, 81, NO_POINT, NO_POINT],
            ko: if i.is_multiple_of(3) { 12 } else { NO_POINT },
            winner: (i % 3) as u8,
            black_rank: -5,
            white_rank: i8::MIN,
            game: i * 1000,
            search: None,
            teacher: None,
        }
    }

    fn with_search(i: u32) -> Position {
        let mut p = sample(i);
        let mut visits = [0u16; VISIT_SLOTS];
        visits[40] = 300 + i as u16;
        visits[81] = 7;
        let mut own = [0u8; NN];
        for (k, o) in own.iter_mut().enumerate() {
            *o = (k % 3) as u8;
        }
        p.search = Some(Box::new(SearchTarget {
            visits,
            value: 0.25,
            simulations: 400,
            ownership: i.is_multiple_of(2).then_some(own),
            score: if i.is_multiple_of(2) { -3.5 } else { f32::NAN },
        }));
        p
    }

    #[test]
    fn version_two_records_round_trip_and_refuse_bad_search_fields() {
        let dir = temp_dir("v2");
        let mut w = SplitWriter::create_version(&dir, Split::Train, VERSION_SEARCH).unwrap();
        let written: Vec<Position> = (0..5).map(with_search).collect();
        for p in &written {
            w.push(p).unwrap();
        }
        // A record without search data does not go into a version-2 split.
        assert!(w.push(&sample(9)).is_err());
        let h = w.finish(5).unwrap();
        assert_eq!(
            (h.version, h.record_size()),
            (VERSION_SEARCH, SEARCH_RECORD_SIZE)
        );
        let back = read_split(&dir, Split::Train).unwrap();
        assert_eq!(back.len(), 5);
        for (a, b) in written.iter().zip(&back) {
            let (ta, tb) = (a.search.as_ref().unwrap(), b.search.as_ref().unwrap());
            assert_eq!(
                (ta.visits, ta.simulations, ta.ownership),
                (tb.visits, tb.simulations, tb.ownership)
            );
            assert_eq!(ta.value, tb.value);
            assert_eq!(ta.score.is_nan(), tb.score.is_nan());
            assert_eq!(a.cells, b.cells);
        }
        let mapped = MappedSplit::open(&dir, Split::Train).unwrap();
        assert_eq!(mapped.get(2).unwrap().search, written[2].search); // even: a score, so no NaN
        // Range checks on the appended bytes.
        let good = encode_any(&written[0]);
        let mut bad = good.clone();
        bad[RECORD_SIZE + 164..RECORD_SIZE + 168].copy_from_slice(&1.5f32.to_le_bytes());
        assert!(matches!(decode(&bad), Err(RecordError::Value(_))));
        let mut bad = good.clone();
        bad[RECORD_SIZE + 172] = 0xff;
        assert!(matches!(decode(&bad), Err(RecordError::Owner(_))));
        let mut bad = good;
        bad[RECORD_SIZE + 193] = 2;
        assert!(matches!(decode(&bad), Err(RecordError::Flags(2))));
        assert!(matches!(decode(&[0u8; 100]), Err(RecordError::Size(100))));
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn labelled(i: u32, search: bool, per_move: bool) -> Position {
        let mut p = if search { with_search(i) } else { sample(i) };
        let mut policy = [0u16; VISIT_SLOTS];
        for (k, v) in policy.iter_mut().enumerate() {
            *v = if k % 7 == 0 {
                NO_SHARE
            } else {
                (k as u16) * 300 + i as u16
            };
        }
        let mut ownership = [0i8; NN];
        for (k, o) in ownership.iter_mut().enumerate() {
            *o = (k as i32 * 3 - 120) as i8;
        }
        let moves = per_move.then(|| {
            let mut m = MoveValues {
                winrate: [NO_SHARE; VISIT_SLOTS],
                score_lead: [NO_SCORE; VISIT_SLOTS],
            };
            for k in (0..VISIT_SLOTS).step_by(3) {
                m.winrate[k] = (k as u16) * 700;
                m.score_lead[k] = k as i16 * 37 - 1500;
            }
            Box::new(m)
        });
        p.teacher = Some(Box::new(TeacherLabel {
            policy,
            winrate: 0.25 + i as f32 / 100.0,
            score_lead: -3.5 * i as f32,
            visits: 1 + i,
            ownership,
            moves,
        }));
        p
    }

    /// Version 3 at its documented offsets: labels with and without search data and
    /// per-move values round-trip through a split file, the bytes lie where the table says,
    /// a label goes only into a version-3 split, and bad label bytes are refused.
    #[test]
    fn version_three_records_round_trip_at_their_documented_offsets() {
        let dir = temp_dir("v3");
        let mut w = SplitWriter::create_version(&dir, Split::Test, VERSION_TEACHER).unwrap();
        let written: Vec<Position> = (0..4).map(|i| labelled(i, i % 2 == 1, i >= 2)).collect();
        for p in &written {
            w.push(p).unwrap();
        }
        assert!(w.push(&sample(9)).is_err());
        assert!(w.push(&with_search(9)).is_err());
        let h = w.finish(4).unwrap();
        assert_eq!(
            (h.version, h.record_size()),
            (VERSION_TEACHER, TEACHER_RECORD_SIZE)
        );
        // Compared as bytes: a search part's NaN score is not equal to itself.
        let back = read_split(&dir, Split::Test).unwrap();
        let bytes = |v: &[Position]| v.iter().map(encode_any).collect::<Vec<_>>();
        assert_eq!(bytes(&back), bytes(&written));
        assert_eq!(back[2], written[2], "no search part: equal as values too");
        let mut v1 = SplitWriter::create(&dir, Split::Train).unwrap();
        assert!(v1.push(&written[0]).is_err());
        let r = encode_any(&written[3]);
        assert_eq!(r.len(), TEACHER_RECORD_SIZE);
        let t = written[3].teacher.as_ref().unwrap();
        let u16_at = |i: usize| u16::from_le_bytes([r[i], r[i + 1]]);
        let f32_at = |i: usize| f32::from_le_bytes([r[i], r[i + 1], r[i + 2], r[i + 3]]);
        assert_eq!(u16_at(240 + 2 * 5), t.policy[5]);
        assert_eq!(u16_at(402), t.policy[81]);
        assert_eq!((f32_at(404), f32_at(408)), (t.winrate, t.score_lead));
        assert_eq!(
            u32::from_le_bytes([r[412], r[413], r[414], r[415]]),
            t.visits
        );
        assert_eq!(r[416 + 80] as i8, t.ownership[80]);
        assert_eq!(r[497], 3, "search part and per-move values present");
        let m = t.moves.as_ref().unwrap();
        assert_eq!(u16_at(500 + 2 * 3), m.winrate[3]);
        assert_eq!(u16_at(664 + 2 * 81) as i16, m.score_lead[81]);
        assert_eq!(
            &r[RECORD_SIZE..SEARCH_RECORD_SIZE],
            &encode_search(written[3].search.as_ref().unwrap())[..]
        );
        // Without search data the search part is zero and its flag clear.
        let r0 = encode_any(&written[0]);
        assert!(r0[RECORD_SIZE..SEARCH_RECORD_SIZE].iter().all(|&b| b == 0));
        assert_eq!(r0[497], 0);
        for (at, value) in [(404, 1.5f32), (408, f32::INFINITY)] {
            let mut bad = r.clone();
            bad[at..at + 4].copy_from_slice(&value.to_le_bytes());
            assert!(decode(&bad).is_err(), "{at}");
        }
        let mut bad = r.clone();
        bad[416] = 0x80;
        assert!(matches!(decode(&bad), Err(RecordError::Owner(0))));
        let mut bad = r;
        bad[497] = 4;
        assert!(matches!(decode(&bad), Err(RecordError::Flags(4))));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The version-2 bytes where the module's layout table puts them, field by field, in
    /// both directions: an encoded record read at the documented offsets, and a record
    /// written at the documented offsets decoded.
    #[test]
    fn version_two_fields_lie_at_their_documented_offsets() {
        // The table: 40..204 visits, 204..208 value, 208..212 simulations, 212..233 owners,
        // 233 flags, 234..236 reserved, 236..240 score.
        const VISITS: usize = 40;
        const VALUE: usize = 204;
        const SIMULATIONS: usize = 208;
        const OWNERS: usize = 212;
        const FLAGS: usize = 233;
        const SCORE: usize = 236;
        let p = with_search(0);
        let t = p.search.as_ref().unwrap();
        let r = encode_any(&p);
        assert_eq!(r.len(), SEARCH_RECORD_SIZE);
        assert_eq!(r[..RECORD_SIZE], encode(&p));
        let u16_at = |i: usize| u16::from_le_bytes([r[i], r[i + 1]]);
        let f32_at = |i: usize| f32::from_le_bytes(r[i..i + 4].try_into().unwrap());
        for (k, &v) in t.visits.iter().enumerate() {
            assert_eq!(u16_at(VISITS + 2 * k), v, "visits of slot {k}");
        }
        assert_eq!(VISITS + 2 * VISIT_SLOTS, VALUE);
        assert_eq!(f32_at(VALUE), t.value);
        assert_eq!(
            u32::from_le_bytes(r[SIMULATIONS..SIMULATIONS + 4].try_into().unwrap()),
            t.simulations
        );
        let own = t.ownership.unwrap();
        for (i, &o) in own.iter().enumerate() {
            assert_eq!(
                (r[OWNERS + i / 4] >> (2 * (i % 4))) & 3,
                o,
                "owner of point {i}"
            );
        }
        assert_eq!(OWNERS + NN.div_ceil(4), FLAGS);
        assert_eq!(r[FLAGS], 1, "ownership known");
        assert_eq!(r[FLAGS + 1..SCORE], [0, 0], "reserved");
        assert_eq!(f32_at(SCORE), t.score);
        assert_eq!(SCORE + 4, SEARCH_RECORD_SIZE);

        // A record written from the table alone decodes to the fields put there.
        let mut w = encode(&sample(1)).to_vec();
        w.resize(SEARCH_RECORD_SIZE, 0);
        w[VISITS + 2 * 7..VISITS + 2 * 7 + 2].copy_from_slice(&513u16.to_le_bytes());
        w[VISITS + 2 * 81..VISITS + 2 * 81 + 2].copy_from_slice(&9u16.to_le_bytes());
        w[VALUE..VALUE + 4].copy_from_slice(&0.625f32.to_le_bytes());
        w[SIMULATIONS..SIMULATIONS + 4].copy_from_slice(&70_000u32.to_le_bytes());
        // Point 0 black, point 5 white, point 80 black; the rest nobody's.
        w[OWNERS] = 1;
        w[OWNERS + 1] = 2 << 2;
        w[OWNERS + 20] = 1;
        w[FLAGS] = 1;
        w[SCORE..SCORE + 4].copy_from_slice(&(-12.5f32).to_le_bytes());
        let back = decode(&w).unwrap();
        let s = back.search.unwrap();
        let mut visits = [0u16; VISIT_SLOTS];
        visits[7] = 513;
        visits[81] = 9;
        assert_eq!(s.visits, visits);
        assert_eq!(s.value, 0.625);
        assert_eq!(s.simulations, 70_000);
        let mut owners = [0u8; NN];
        owners[0] = 1;
        owners[5] = 2;
        owners[80] = 1;
        assert_eq!(s.ownership, Some(owners));
        assert_eq!(s.score, -12.5);
        // Flags 0: the owner bytes are not read.
        w[FLAGS] = 0;
        assert_eq!(decode(&w).unwrap().search.unwrap().ownership, None);
    }

    #[test]
    fn visits_above_u16_are_scaled_keeping_every_visited_move() {
        let mut counts = [0u32; VISIT_SLOTS];
        counts[0] = 200_000;
        counts[1] = 1;
        counts[2] = 100_000;
        let v = SearchTarget::visits_from(&counts);
        assert_eq!((v[0], v[1], v[2], v[3]), (65_535, 1, 32_768, 0));
    }

    fn temp_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("akushu-fmt-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_stone_without_liberties_is_a_typed_error() {
        let mut p = sample(1);
        p.cells = [0; NN];
        p.cells[0] = 1;
        p.cells[1] = 2;
        p.cells[9] = 2;
        assert_eq!(
            decode(&encode(&p)),
            Err(RecordError::Stones(CellsError::NoLiberties(
                crate::rules::Point::new(0)
            )))
        );
    }

    #[test]
    fn record_round_trip() {
        for i in 0..50 {
            let p = sample(i);
            assert_eq!(decode(&encode(&p)).unwrap(), p);
        }
    }

    #[test]
    fn write_read_stream_and_map() {
        let dir = temp_dir("rw");
        let ps: Vec<Position> = (0..1000).map(sample).collect();
        let mut w = SplitWriter::create(&dir, Split::Validation).unwrap();
        for p in &ps {
            w.push(p).unwrap();
        }
        let h = w.finish(7).unwrap();
        assert_eq!((h.count, h.games), (1000, 7));
        assert_eq!(read_split(&dir, Split::Validation).unwrap(), ps);
        let m = MappedSplit::open(&dir, Split::Validation).unwrap();
        assert_eq!(m.len(), 1000);
        assert_eq!(m.get(999).unwrap(), ps[999]);
        assert!(m.get(1000).is_err());
        // A missing split is an I/O error naming the file.
        let e = read_split(&dir, Split::Test).unwrap_err().to_string();
        assert!(e.contains("test.akd"), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn corruption_and_truncation_are_detected() {
        let dir = temp_dir("bad");
        let mut w = SplitWriter::create(&dir, Split::Train).unwrap();
        for i in 0..10 {
            w.push(&sample(i)).unwrap();
        }
        w.finish(1).unwrap();
        let path = split_path(&dir, Split::Train);
        let good = std::fs::read(&path).unwrap();

        let mut flipped = good.clone();
        flipped[HEADER_SIZE + 5 * RECORD_SIZE + 37] ^= 1; // game id byte: still decodable
        std::fs::write(&path, &flipped).unwrap();
        assert!(matches!(
            read_split(&dir, Split::Train),
            Err(DatasetError::Checksum { .. })
        ));
        assert!(matches!(
            MappedSplit::open(&dir, Split::Train),
            Err(DatasetError::Checksum { .. })
        ));

        std::fs::write(&path, &good[..good.len() - 3]).unwrap();
        assert!(matches!(
            read_split(&dir, Split::Train),
            Err(DatasetError::Truncated { .. })
        ));

        let mut longer = good.clone();
        longer.extend_from_slice(b"extra");
        std::fs::write(&path, &longer).unwrap();
        let e = read_split(&dir, Split::Train).unwrap_err();
        assert!(matches!(e, DatasetError::ExtraBytes { .. }), "{e}");
        assert!(e.to_string().contains("5 extra"), "{e}");

        let mut magic = good.clone();
        magic[0] = b'X';
        std::fs::write(&path, &magic).unwrap();
        assert!(matches!(
            read_split(&dir, Split::Train),
            Err(DatasetError::BadMagic { .. })
        ));

        let mut version = good.clone();
        version[8] = 9;
        std::fs::write(&path, &version).unwrap();
        assert!(matches!(
            read_split(&dir, Split::Train),
            Err(DatasetError::Version { found: 9, .. })
        ));

        // A file renamed to another split's name is refused.
        std::fs::write(split_path(&dir, Split::Test), &good).unwrap();
        assert!(matches!(
            read_split(&dir, Split::Test),
            Err(DatasetError::WrongSplit { .. })
        ));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
