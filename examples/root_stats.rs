//! The root statistics of one UCT search: which moves the engine weighed and how often it
//! won with each, for looking into a lost game.
//!
//! Run: `cargo run --release --example root_stats -- SPEC GAME.sgf MOVES [SEED]`: replays
//! the first MOVES moves of the game's main line, searches for the side to move and prints
//! its ten most visited moves.

use akushu::rules::Color;
use akushu::search::engine::Engine;
use akushu::search::spec::parse_uct;
use akushu::search::uct::UctEngine;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [spec, sgf, moves, rest @ ..] = args.as_slice() else {
        anyhow::bail!("usage: root_stats SPEC GAME.sgf MOVES [SEED]");
    };
    let seed: u64 = rest.first().map_or(Ok(1), |s| s.parse())?;
    let n: usize = moves.parse()?;
    let bytes = std::fs::read(sgf)?;
    let played = akushu::sgf::record::parse_record(&bytes, "game", sgf)?.moves;
    let mut engine = UctEngine::new(parse_uct(spec)?, seed)?;
    engine.new_game(6.5);
    let mut to_move = Color::Black;
    for &(color, mv) in played.iter().take(n) {
        engine.play(color, mv)?;
        to_move = color.opponent();
    }
    let mut stats = engine.analyze(to_move);
    stats.sort_by_key(|s| std::cmp::Reverse(s.visits));
    println!("{to_move:?} to move after {n} moves");
    for s in stats.iter().take(10) {
        let rate = if s.visits > 0 {
            s.wins / s.visits as f32
        } else {
            0.0
        };
        println!(
            "{:>5} visits {:>6} win rate {rate:.3}",
            s.mv.to_gtp(),
            s.visits
        );
    }
    Ok(())
}
