//! Reading SGF game records: sources (files, folders, archives, `.sgfs`), byte decoding,
//! parsing with `sgf-parse` (its pitfalls handled in [`record`]), root-property values and
//! replay through the rules core; and [`write`], the few pieces akushu writes records with.
//!
//! Pipeline: [`source`] yields raw bytes, [`decode`] turns them into text, [`record`] parses
//! a [`GameRecord`], [`replay`] checks every move and visits every position.

pub mod decode;
pub mod props;
pub mod record;
pub mod replay;
pub mod source;
pub mod write;

pub use props::{GameResult, ResultKind, parse_rank, rank_text};
pub use record::{GameRecord, ParseConfig, SgfError, parse_record, parse_records};
pub use replay::{ReplayError, Step, Superko, replay};
pub use source::{RawRecord, SourceError};
