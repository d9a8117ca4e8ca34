//! # akushu (悪手, "bad move")
//!
//! A research toolkit that learns which moves in 9x9 Go are bad and uses that knowledge to
//! prune Monte-Carlo tree search. The ideas come from five short papers summarised in the
//! project's `docs/papers.md`; `ARCHITECTURE.md` maps every module.
//!
//! ## Reading guide
//!
//! Read bottom-up, like michi:
//!
//! 1. **Coordinates** — [`rules::coord`]: the one table of coordinate systems (flat index,
//!    row/col, GTP, SGF) and the only conversions.
//! 2. **The board** — [`rules::board::Board`]: `place` is where stones go down, chains merge
//!    and captures happen; `random_move` is paper B's O(1) empty-point draw.
//! 3. **The game** — [`rules::game::Game`]: history, superko, passes, komi; [`rules::score`]
//!    counts area and territory.
//! 4. **Playouts** — [`playout::run`]: the loop every Monte-Carlo engine here shares; a
//!    [`playout::PlayoutPolicy`] decides each move, which is where pruning plugs in.
//!
//! Higher layers build on these and never the other way round. The layers, lowest first
//! (modules on one line do not use each other): [`util`]; [`rules`], [`runs`]; [`playout`],
//! [`sgf`]; [`dataset`], [`board_analysis`], [`prune`]; [`net`], [`yose`]; [`search`];
//! [`gtp`], [`arena`]; [`report`], [`teacher`]; [`selfplay_loop`]; [`cli`]. The test `tests/layers.rs` holds the code to this order.
//!
//! ```
//! use akushu::rules::{Game, Move};
//! let mut game = Game::new(6.5);
//! game.play(Move::from_gtp("E5").unwrap()).unwrap();
//! assert!(game.play(Move::from_gtp("E5").unwrap()).is_err()); // occupied
//! ```

pub mod arena;
pub mod board_analysis;
pub mod cli;
pub mod dataset;
pub mod gtp;
pub mod net;
pub mod playout;
pub mod prune;
pub mod report;
pub mod rules;
pub mod runs;
pub mod search;
pub mod selfplay_loop;
pub mod sgf;
pub mod teacher;
pub mod util;
pub mod yose;
