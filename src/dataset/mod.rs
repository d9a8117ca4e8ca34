//! Training data: game records turned into the paper's position/target pairs.
//!
//! The contract other modules rely on is [`Position`] and [`Split`] and the reader
//! [`read_split`] (plus the streaming [`SplitReader`] and the memory-mapped [`MappedSplit`]).
//! [`format`] documents the bytes on disk.

pub use build::{BuildConfig, Manifest, build};
pub use format::{
    DatasetError, MappedSplit, SplitHeader, SplitReader, read_header, read_split, split_path,
};
pub use record::{NO_POINT, Position, Split, TeacherInfo, TeacherLabel};

pub mod build;
pub mod filter;
pub mod format;
pub mod gameset;
pub mod index;
pub mod record;
