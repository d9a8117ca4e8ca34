//! Reports: charts (PNG via plotters), summary statistics (Wilson intervals) and the
//! experiment report (`report/REPORT.md`).

pub mod plot;
/// The Wilson interval, kept under its old path; it lives in [`crate::util::stats`] so that
/// the arena below this module can use it too.
pub use crate::util::stats;
pub mod writer;
