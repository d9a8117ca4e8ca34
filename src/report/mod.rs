//! Reports: charts (PNG via plotters) and, later, summaries and the experiment report.

pub mod plot;
