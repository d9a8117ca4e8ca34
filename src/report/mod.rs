//! Reports: charts (PNG via plotters), summary statistics (Wilson intervals) and the
//! experiment report (`report/REPORT.md`).

pub mod plot;
pub mod stats;
pub mod writer;
