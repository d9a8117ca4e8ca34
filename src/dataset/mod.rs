//! Training data: game records turned into the paper's position/target pairs.
//!
//! The contract other modules rely on is [`Position`] and [`Split`] below and the reader
//! `read_split(dir, split) -> Result<Vec<Position>>` (added with the on-disk format).

pub use record::{NO_POINT, Position, Split};

pub mod record;
