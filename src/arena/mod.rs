//! The arena: matches between two players (in-process engine specs or external GTP engines)
//! and self-play, with reproducible seeds, resumable folders, sharding and merging.
//!
//! - [`game`]: the one game runner ([`game::play_game`]), its rules, winner and observer;
//! - the games folder every run keeps its rows in is [`crate::runs::folder`], below the
//!   engines;
//! - [`player`]: the fallible [`Player`](player::Player) interface, spec parsing, in-process
//!   and GTP players;
//! - [`gtp`]: the GTP client (child process, per-command timeouts);
//! - [`referee`]: a match's game on the runner, as its CSV row and SGF;
//! - [`record`]: the CSV row and the SGF of a game;
//! - [`summary`]: win rates with Wilson intervals ([`crate::util::stats`]), errors, time
//!   per move, overhead;
//! - [`experiment`]: experiment files (`experiments/*.toml`) and running their arms;
//! - [`runner`]: matches on the games folder: plans, runs, resumes, shards and merges;
//! - [`selfplay`]: a self-play game on the runner, recorded by an observer as training
//!   records;
//! - [`selfplay_run`]: self-play runs on the games folder, and datasets built from them;
//! - [`sprt`]: the sequential test that stops a match once its games (or pairs) decide;
//! - [`pairs`]: paired games: the pentanomial, its Elo and interval;
//! - [`outside`]: what an outside (`gtp:`) engine is: its `name`/`version` answers and the
//!   SHA-256 of its program and the files its command line names;
//! - [`openings`]: opening suites (SGF files, folders, `.sgfs`) games start from;
//! - [`repeats`]: identical games and long shared openings, counted;
//! - [`rating`]: Bradley-Terry ratings of every player in a set of match folders;
//! - [`cluster`]: an experiment's shards as Slurm array jobs and GNU parallel tasks.

pub mod cluster;
pub mod experiment;
pub mod game;
pub mod gtp;
pub mod identity;
pub mod match_rules;
pub mod openings;
pub mod outcome;
pub mod outside;
pub mod pairs;
pub mod player;
pub mod rating;
pub mod record;
pub mod referee;
pub mod repeats;
pub mod runner;
pub mod selfplay;
pub mod selfplay_run;
pub mod spec;
pub mod sprt;
pub mod summary;

/// The random mover lives with the other engines; matches name it `random`.
pub use crate::search::random;
pub use player::{GtpTimeouts, Player, build_engine, build_player};
pub use record::{EndReason, GameRecord};
pub use runner::{
    MatchConfig, MatchOutcome, MergeOutcome, Shard, TimeSpec, merge, resummarize, run_match,
    run_match_with,
};
pub use spec::{PlayerSpec, player_spec};
pub use summary::MatchSummary;
