use super::*;
use crate::dataset::{NO_POINT, Position};
use crate::net::NetPruner;
use crate::net::data::sgf_positions;
use crate::net::encode::NetInput;
use crate::net::scorer::PositionScorer;
use crate::prune::PruneContext;

/// `uct` with `sims` simulations, expansion at the first visit, a cache of `cache`
/// entries and tree pruning of the 3 worst moves from the root by `pruner`.
fn pruning_engine(pruner: &str, sims: u32, cache: usize, history: bool) -> UctEngine {
    let config = UctConfig {
        sims,
        expand: 1,
        cache,
        history,
        prune: Some(TreePrune {
            pruner: pruner.parse().unwrap(),
            x: 3,
            depth: 0,
        }),
        ..UctConfig::default()
    };
    UctEngine::new(config, 5).unwrap()
}

/// A value-only PUCT search over the distilled network (policy, value and ownership
/// heads), `sims` a move.
fn value_search(sims: u32) -> UctEngine {
    value_search_over("models/cnn-distilled-b6c96-prelim", sims)
}

/// [`value_search`] over the network in model directory `dir`.
fn value_search_over(dir: &str, sims: u32) -> UctEngine {
    let net: PrunerName = format!("nnq:{dir}").parse().unwrap();
    let config = UctConfig {
        sims,
        select: Select::Puct,
        policy: Some(net.clone()),
        value: Some(net),
        value_mix: 1.0,
        ..UctConfig::default()
    };
    UctEngine::new(config, 3).unwrap()
}

/// A move's own work after its search (the tree moved to the reply) runs on the clock:
/// the self-counted clock is charged the whole move, and the next budget keeps that work
/// back beside `time_safety`.
#[test]
fn the_work_after_a_search_is_counted_and_kept_back() {
    let mut e = value_search(64);
    e.set_time_control(TimeControl::Absolute { main: 1000.0 });
    let (_, stats) = e.genmove(Color::Black);
    let spent = 1000.0 - e.clocks[Color::Black.idx()].left;
    assert!(
        (spent - (stats.seconds + e.after_search)).abs() < 1e-9,
        "charged {spent}: the search's {} s and the {} s after it",
        stats.seconds,
        e.after_search
    );
    // A move whose work after the search took 2 s: the next budget is 2 s shorter.
    e.after_search = 2.0;
    let clock = e.clocks[Color::White.idx()];
    let want = clock.budget(0, e.config.time_safety + 2.0).unwrap();
    assert!(want < clock.budget(0, e.config.time_safety).unwrap() - 1.9);
    assert_eq!(e.move_budget(Color::White), Some(want));
}

/// A clock nobody reports is counted down by the engine itself: every move takes at least
/// its reported seconds off its side's clock, and since a search that would run for hours
/// stops on its deadline, a side's budgets add up to no more than its main time (but the
/// hundredth of a second a move is always granted). Only the engine's own readings are
/// compared, so a busy machine, which spends the clock sooner, changes no outcome.
#[test]
fn a_self_counted_clock_grants_no_more_than_its_main_time() {
    let huge = 100_000_000;
    let config = UctConfig {
        sims: huge,
        ..UctConfig::default()
    };
    let mut e = UctEngine::new(config, 1).unwrap();
    e.set_time_control(TimeControl::Absolute { main: 2.0 });
    let moves = 8;
    let mut granted = [0.0f64; 2];
    let mut c = Color::Black;
    for _ in 0..2 * moves {
        granted[c.idx()] += e.move_budget(c).expect("the clock limits");
        let before = e.clocks[c.idx()].left;
        let (_, stats) = e.genmove(c);
        assert!(stats.simulations < u64::from(huge), "{stats:?}");
        let after = e.clocks[c.idx()].left;
        assert!(
            after <= (before - stats.seconds).max(0.0) + 1e-9,
            "{c:?}: {before} s left, a move of {} s, then {after} s",
            stats.seconds
        );
        c = c.opponent();
    }
    for g in granted {
        assert!(g <= 2.0 + 0.01 * moves as f64, "granted {g} s of 2 s");
    }
}

/// An engine's own reply leaves the trees at the position it searched (copying the
/// reply's subtree then would run on its clock); the opponent's answer moves them down
/// both moves at once, to the tree that following each move in turn gives.
#[test]
fn the_trees_follow_a_reply_with_the_answer_to_it() {
    let root_stats = |e: &UctEngine| -> Vec<(usize, u32, f32)> {
        e.trees[0]
            .root_children()
            .iter()
            .map(|c| (c.mv(), c.real_visits(), c.real_wins()))
            .collect()
    };
    let (mut step, mut path) = (value_search(400), value_search(400));
    let EngineMove::Play(reply) = step.genmove(Color::Black).0 else {
        panic!("a move")
    };
    assert_eq!(path.genmove(Color::Black).0, EngineMove::Play(reply));
    assert_eq!(path.pending, vec![(Color::Black, reply)], "the trees wait");
    assert!(
        path.trees[0].root().real_visits() >= 400,
        "still the searched root"
    );
    // Move by move: the reply's subtree first, then the answer's within it.
    step.sync_trees();
    let answer = step.trees[0]
        .root_children()
        .iter()
        .max_by_key(|c| c.real_visits())
        .map(|c| Move::from_index(c.mv()).unwrap())
        .unwrap();
    step.play(Color::White, answer).unwrap();
    path.play(Color::White, answer).unwrap();
    assert!(path.pending.is_empty());
    assert!(path.trees[0].node_count() > 1, "the answer's subtree kept");
    assert_eq!(path.trees[0].node_count(), step.trees[0].node_count());
    assert_eq!(root_stats(&path), root_stats(&step));
}

/// A value-only search counts no final boards, so analysis' ownership and scores come from
/// the network's ownership head, for the side asked: with a black wall down the E column
/// and two white stones in a corner, black leads by most of the board and white trails by
/// as much.
#[test]
fn a_value_only_search_answers_ownership_and_score_from_its_network() {
    let mut e = value_search(64);
    play_black_wall(&mut e);
    e.analyze_sims(Color::Black, 64);
    let black = e
        .root_score(Color::Black)
        .expect("a score from the network");
    let white = e.root_score(Color::White).unwrap();
    assert!(black.mean > 10.0, "black's lead {}", black.mean);
    assert!(white.mean < -10.0, "white's lead {}", white.mean);
    let own = e.ownership(Color::Black).unwrap();
    let e5 = Move::from_gtp("E5").unwrap().index();
    let a5 = Move::from_gtp("A5").unwrap().index();
    assert!(
        own[e5] > 0.5 && own[a5] > 0.3,
        "black's wall and its side: {own:?}"
    );
    let white_view = e.ownership(Color::White).unwrap();
    assert!(white_view[e5] < -0.5, "{white_view:?}");
    let candidates = e.candidates(Color::Black, 1);
    assert!(!candidates.is_empty());
    for c in &candidates {
        let s = c.score.expect("every candidate gets the network's score");
        assert!(s.mean > 0.0, "{:?}: black still leads: {}", c.mv, s.mean);
    }
}

/// Black's wall down the E column, white's two stones in a corner (black far ahead).
fn play_black_wall(e: &mut UctEngine) {
    for row in 1..=9 {
        e.play(Color::Black, Move::from_gtp(&format!("E{row}")).unwrap())
            .unwrap();
        let white = match row {
            1 => "J1",
            2 => "J2",
            _ => "pass",
        };
        e.play(Color::White, Move::from_gtp(white).unwrap())
            .unwrap();
    }
}

/// The root's score lead for `color` after a fresh search of `sims`.
fn network_lead(e: &mut UctEngine, color: Color, sims: u64) -> f32 {
    e.analyze_sims(color, sims);
    e.root_score(color).expect("a score from the network").mean
}

/// With a score head the lead comes from it, not from the ownership; either way it is
/// the side asked's (black ahead, white behind by the same), and komi moves it point
/// for point: a half-point komi gives black 6 points more and white 6 less than 6.5.
#[test]
fn the_score_head_gives_the_lead_and_komi_moves_it() {
    for (dir, head) in [
        ("models/cnn-distilled-b6c96-prelim", false),
        ("models/cnn-distilled-b6c96-score", true),
    ] {
        let mut e = value_search_over(dir, 16);
        play_black_wall(&mut e);
        let black = network_lead(&mut e, Color::Black, 16);
        let white = network_lead(&mut e, Color::White, 16);
        assert!(black > 10.0 && white < -10.0, "{dir}: {black} {white}");
        let own = e
            .network_owners(e.game.board(), Color::Black, e.last_two_moves())
            .unwrap();
        let from_owners = own.iter().sum::<f32>() - 6.5;
        assert_eq!(
            (black - from_owners).abs() > 1e-3,
            head,
            "{dir}: lead {black}, ownership's {from_owners}"
        );
        e.set_komi(0.5);
        let black_half = network_lead(&mut e, Color::Black, 16);
        let white_half = network_lead(&mut e, Color::White, 16);
        assert!(
            (black_half - black - 6.0).abs() < 1e-3,
            "{dir}: {black_half} {black}"
        );
        assert!(
            (white_half - white + 6.0).abs() < 1e-3,
            "{dir}: {white_half} {white}"
        );
    }
}

/// Two recorded games (one with passes) as `eval` reads them: dataset positions with
/// their last moves and ko points.
fn recorded_positions() -> Vec<Position> {
    let files = ["ogs_style.sgf", "passes.sgf"].map(|f| format!("tests/fixtures/sgf/{f}").into());
    let (positions, skipped) = sgf_positions(&files);
    assert_eq!(skipped, []);
    positions
}

/// For each network kind the search can use, the pruner spec and the name `eval --model`
/// takes for the same network.
const NETWORKS: [(&str, &str); 5] = [
    (
        "nn:models/cnn-human-5x32-gpu2",
        "models/cnn-human-5x32-gpu2",
    ),
    (
        "nnq:models/cnn-human-5x32-gpu2",
        "nnq:models/cnn-human-5x32-gpu2",
    ),
    (
        "sym2:nnq:models/cnn-human-5x32-gpu2",
        "sym2:nnq:models/cnn-human-5x32-gpu2",
    ),
    ("nn:models/mlp-planes", "models/mlp-planes"),
    ("nn:models/default", "models/default"),
];

/// Searches every position of the recorded games and checks what the tree's pruner
/// rated at the root, and at the child the game went on to, against `eval`'s scores
/// for the same position and history.
#[test]
fn the_search_rates_positions_as_eval_does_for_every_network_kind() {
    let positions = recorded_positions();
    for (spec_name, eval_name) in NETWORKS {
        let eval_net = NetPruner::load_named(eval_name).unwrap();
        // A cache large enough that no later position evicts the one checked.
        let mut engine = pruning_engine(spec_name, 400, 1 << 18, true);
        let (mut roots, mut children) = (0, 0);
        let mut over = None;
        for (k, pos) in positions.iter().enumerate() {
            if k == 0 || positions[k - 1].game != pos.game {
                engine.new_game(6.5);
            }
            if pos.last_moves[..2] == [PASS_INDEX as u8; 2] || over == Some(pos.game) {
                // Two passes ended the game (the record plays on): nothing to search.
                over = Some(pos.game);
                continue;
            }
            let board = pos.board();
            // The search keys by the game's board, which carries the ko point.
            let root = *engine.game.board();
            assert_eq!(root.cells(), board.cells(), "{spec_name}: {k}");
            engine.analyze(pos.color());
            let slot = &engine.workers[0].slots[0];
            let mut want = [0f32; NN];
            eval_net.score(pos, &board, &mut want);
            let last = [pos.last_moves[0], pos.last_moves[1]];
            let got = slot.cached(&root, pos.color(), last);
            assert_eq!(got, Some(&want), "{spec_name}: root of position {k}");
            roots += 1;
            let mv = Move::from_index(pos.played as usize).unwrap();
            if let Some(next) = positions.get(k + 1).filter(|n| n.game == pos.game) {
                let mut child = root;
                if let Some(p) = mv.point() {
                    child.play(pos.color(), p).unwrap();
                }
                let next_last = [next.last_moves[0], next.last_moves[1]];
                if let Some(got) = slot.cached(&child, next.color(), next_last) {
                    eval_net.score(next, &next.board(), &mut want);
                    assert_eq!(got, &want, "{spec_name}: child of position {k}");
                    children += 1;
                }
            }
            engine.play(pos.color(), mv).unwrap();
        }
        assert!(roots > 12, "{roots} of {}", positions.len());
        assert!(
            children * 3 > roots,
            "{spec_name}: {children} children of {roots} checked"
        );
    }
}

/// Below depth 1 both last moves a node's position is rated with come from the tree's
/// own path, newest first. For every network kind that reads the last moves, every
/// position the search expanded (at any depth; searched from a recorded position whose
/// history the record gives) is in the cache under its true last two moves, with the
/// scores `eval` gives that position with that history.
#[test]
fn the_search_rates_every_depth_of_its_tree_with_the_true_last_moves() {
    let positions = recorded_positions();
    let k = 6;
    let pos = &positions[k];
    assert_eq!(pos.game, positions[0].game);
    let mut networks = 0;
    for (spec_name, eval_name) in NETWORKS {
        let eval_net = NetPruner::load_named(eval_name).unwrap();
        if !eval_net.reads_history() {
            continue;
        }
        networks += 1;
        // Narrow (the 60 worst moves pruned at every node) so that 2000 simulations
        // reach depth 4 and more.
        let config = UctConfig {
            sims: 2000,
            expand: 1,
            cache: 1 << 18,
            history: true,
            prune: Some(TreePrune {
                pruner: spec_name.parse().unwrap(),
                x: 60,
                depth: 0,
            }),
            ..UctConfig::default()
        };
        let mut engine = UctEngine::new(config, 5).unwrap();
        engine.new_game(6.5);
        for p in &positions[..k] {
            engine.play(p.color(), p.played_move()).unwrap();
        }
        let root = *engine.game.board();
        assert_eq!(root.cells(), pos.board().cells());
        engine.analyze(pos.color());
        let slot = &engine.workers[0].slots[0];
        // Positions checked and positions not found in the cache, by depth.
        let (mut found, mut missing) = ([0usize; 8], [0usize; 8]);
        for line in engine.trees[0].expanded_lines() {
            let mut board = root;
            let mut color = pos.color();
            let mut last = pos.last_moves;
            for &mv in &line {
                board
                    .play_move(color, Move::from_index(mv).unwrap())
                    .unwrap();
                color = color.opponent();
                last = [mv as u8, last[0], last[1], last[2]];
            }
            let depth = line.len().min(7);
            let Some(got) = slot.cached(&board, color, [last[0], last[1]]) else {
                missing[depth] += 1;
                continue;
            };
            let at = Position {
                cells: *board.cells(),
                to_move: color as u8,
                last_moves: last,
                ko: board.ko_point().map_or(NO_POINT, |p| p.index() as u8),
                ..pos.clone()
            };
            let mut want = [0f32; NN];
            eval_net.score(&at, &at.board(), &mut want);
            assert_eq!(got, &want, "{spec_name}: the position after {line:?}");
            found[depth] += 1;
        }
        // The direct-mapped cache may have evicted a few entries; most must be there.
        for d in 0..8 {
            assert!(
                missing[d] * 20 <= found[d] + missing[d],
                "{spec_name}: depth {d}: {} of {} positions not rated with their last moves",
                missing[d],
                found[d] + missing[d]
            );
        }
        assert!(
            found[2] > 20 && found[3] > 5 && found[4] > 0,
            "{spec_name}: too shallow a tree to check: {found:?}"
        );
    }
    assert!(networks >= 3, "{networks} networks read the last moves");
}

/// `history=false` (the recorded presets) gives the networks no last moves, as before.
#[test]
fn history_off_rates_without_last_moves() {
    let positions = recorded_positions();
    let pos = &positions[3];
    let mut engine = pruning_engine("nnq:models/cnn-human-5x32-gpu2", 20, 4096, false);
    for p in &positions[..3] {
        engine
            .play(p.color(), Move::from_index(p.played as usize).unwrap())
            .unwrap();
    }
    engine.analyze(pos.color());
    let board = pos.board();
    let net = NetPruner::load_named("nnq:models/cnn-human-5x32-gpu2").unwrap();
    let mut blind = [0f32; NN];
    net.rate(
        &NetInput::from_context(&PruneContext {
            board: &board,
            to_move: pos.color(),
            recent: &[],
        }),
        &mut blind,
    );
    let slot = &engine.workers[0].slots[0];
    assert_eq!(
        slot.cached(&board, pos.color(), NO_LAST_MOVES),
        Some(&blind)
    );
    let mut seen = [0f32; NN];
    net.score(pos, &board, &mut seen);
    assert_ne!(seen, blind, "the last moves change this network's scores");
}

/// The root move: the most visited by default; with `lcb`, the best Wilson bound among the
/// moves with enough visits, so a late-found better move with 60 visits beats a worse one
/// with 100, while a lucky move with 5 visits (all won) stays out below the share and, even
/// let in, does not beat a solid one (its bound is not 1).
#[test]
fn the_root_move_is_the_most_visited_or_the_best_lower_bound() {
    let mut stats = vec![(0u32, 0f32, false, 0u32); NN + 1];
    stats[10] = (100, 55.0, true, 0);
    stats[20] = (60, 42.0, true, 0);
    stats[30] = (5, 5.0, true, 0);
    stats[PASS_INDEX] = (200, 190.0, true, 0);
    assert_eq!(
        choose_root_move(&stats, false, 0.0),
        Some((PASS_INDEX, 200, 190.0))
    );
    assert_eq!(choose_root_move(&stats, true, 0.0), Some((10, 100, 55.0)));
    assert_eq!(choose_root_move(&stats, true, 0.5), Some((20, 60, 42.0)));
    assert_eq!(choose_root_move(&stats, true, 0.01), Some((20, 60, 42.0)));
    // A move with exactly the share of visits is in (50 of 100 at 0.5), one short is out.
    let mut at_share = stats.clone();
    at_share[20] = (50, 35.0, true, 0);
    assert_eq!(choose_root_move(&at_share, true, 0.5), Some((20, 50, 35.0)));
    at_share[20] = (49, 34.3, true, 0);
    assert_eq!(
        choose_root_move(&at_share, true, 0.5),
        Some((10, 100, 55.0))
    );
    // Only the 5-visit move and the 100-visit one: 5/5 (bound 0.57) beats 55/100 (0.45).
    stats[20] = (0, 0.0, true, 0);
    assert_eq!(choose_root_move(&stats, true, 0.01), Some((30, 5, 5.0)));
    assert_eq!(choose_root_move(&stats, true, 0.1), Some((10, 100, 55.0)));
    assert_eq!(
        choose_root_move(&[(0, 0.0, true, 0); NN + 1], true, 0.1),
        None
    );
}
