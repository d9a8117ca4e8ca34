//! The arena: matches between two players (in-process engine specs or external GTP engines),
//! with reproducible seeds, resumable results folders, sharding and merging.
//!
//! - [`player`]: the fallible [`Player`](player::Player) interface, spec parsing, in-process
//!   and GTP players;
//! - [`gtp`]: the GTP client (child process, per-command timeouts);
//! - [`referee`]: plays one game and scores it;
//! - [`record`]: the CSV row and the SGF of a game;
//! - [`summary`]: win rates with Wilson intervals ([`crate::util::stats`]), errors, time
//!   per move, overhead;
//! - [`experiment`]: experiment files (`experiments/*.toml`) and running their arms;
//! - [`runner`]: plans, runs, resumes, shards and merges matches;
//! - [`sprt`]: the sequential test that stops a match once its games decide;
//! - [`rating`]: Bradley-Terry ratings of every player in a set of match folders;
//! - [`cluster`]: an experiment's shards as Slurm array jobs and GNU parallel tasks.

pub mod cluster;
pub mod experiment;
pub mod game;
pub mod gtp;
pub mod player;
pub mod rating;
pub mod record;
pub mod referee;
pub mod runner;
pub mod selfplay;
pub mod selfplay_run;
pub mod sprt;
pub mod summary;

/// The random mover lives with the other engines; matches name it `random`.
pub use crate::search::random;
pub use player::{GtpTimeouts, Player, build_engine, build_player};
pub use record::{EndReason, GameRecord};
pub use runner::{
    MatchConfig, MatchOutcome, MergeOutcome, Shard, TimeSpec, merge, resummarize, run_match,
};
pub use summary::MatchSummary;
