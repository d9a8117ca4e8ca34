//! UCT and flat UCB engines on fixture positions: obvious captures and saves, pruning that
//! never takes pass away, x = 0 pruning identical to no pruning, seeded determinism.

use akushu::arena::referee::player_seed;
use akushu::rules::{Board, Color, Game, Move};
use akushu::search::spec::{build_engine, parse_uct};
use akushu::search::uct::{UctConfig, UctEngine};
use akushu::search::{Engine, EngineMove, TimeControl};

/// Loads a fixture diagram into an engine by playing each stone with its own colour (GTP
/// `play` allows either colour at any time); the fixtures have no captures, so the engine's
/// board ends up equal to the diagram, which is checked.
fn load(engine: &mut dyn Engine, diagram: &str) {
    let board = Board::from_diagram(diagram).expect("fixture");
    engine.new_game(6.5);
    for p in akushu::rules::Point::all() {
        if let Some(c) = board.color_at(p) {
            engine.play(c, Move::Play(p)).expect("fixture stone");
        }
    }
    assert_eq!(engine.game().board(), &board, "fixture loaded exactly");
}

fn gtp(m: &str) -> Move {
    Move::from_gtp(m).unwrap()
}

/// White's four stones C6-F6 have one liberty, F5. White's wall on the third line makes the
/// game close, so the capture decides it (on an otherwise empty board every black move wins
/// and the search has nothing to choose between).
const CAPTURE: &str = "
. . . . . . . . .
. . . . . . . . .
. . X X X X . . .
. X O O O O X . .
. . X X X . . . .
. . . . . . . . .
O O O O O O O O O
. . . . . . . . .
. . . . . . . . .";

/// Black's four stones C6-F6 have one liberty, F5: black must extend there.
const SAVE: &str = "
. . . . . . . . .
. . . . . . . . .
. . O O O O . . .
. O X X X X O . .
. . O O O . . . .
. . . . . . . . .
X X X X X X X X X
. . . . . . . . .
. . . . . . . . .";

fn genmove_black(spec: &str, seed: u64, fixture: &str) -> EngineMove {
    let mut e = build_engine(spec, seed).unwrap();
    load(e.as_mut(), fixture);
    e.genmove(Color::Black).0
}

#[test]
fn uct_captures_the_group_in_atari() {
    for seed in 1..=3 {
        let m = genmove_black("uct:sims=4000", seed, CAPTURE);
        assert_eq!(m, EngineMove::Play(gtp("F5")), "seed {seed}");
    }
}

#[test]
fn uct_saves_its_group_in_atari() {
    // Light playouts find this save less reliably than the capture: at 4,000 simulations
    // seeds 1-24 played F5 21 times both before and after the playout speed-up of
    // docs/notes-speed.md (which changes every seed's playouts), at 8,000 23 times; so the
    // test runs 8,000 and does not hang on one lucky set of seeds at 4,000.
    for seed in 1..=3 {
        let m = genmove_black("uct:sims=8000", seed, SAVE);
        assert_eq!(m, EngineMove::Play(gtp("F5")), "seed {seed}");
    }
}

#[test]
fn flat_ucb_captures_the_group_in_atari() {
    let m = genmove_black("flat:sims=20000", 1, CAPTURE);
    assert_eq!(m, EngineMove::Play(gtp("F5")));
}

#[test]
fn pruned_uct_still_captures_with_rule_pruner() {
    // The rule pruner rates F5 (fifth line, no self-atari) well, so pruning 41 keeps it.
    let m = genmove_black("uct:sims=4000,prune=rule:41@0", 1, CAPTURE);
    assert_eq!(m, EngineMove::Play(gtp("F5")));
}

/// Self-play `moves` moves and return them.
fn self_play(spec: &str, seed: u64, moves: usize) -> Vec<Move> {
    let mut e = build_engine(spec, seed).unwrap();
    e.new_game(6.5);
    let mut out = Vec::new();
    let mut c = Color::Black;
    for _ in 0..moves {
        match e.genmove(c).0 {
            EngineMove::Play(m) => out.push(m),
            EngineMove::Resign => break,
        }
        c = c.opponent();
    }
    out
}

#[test]
fn same_seed_same_game_other_seed_differs() {
    let a = self_play("uct:sims=600", 5, 12);
    let b = self_play("uct:sims=600", 5, 12);
    assert_eq!(a, b);
    let c = self_play("uct:sims=600", 6, 12);
    assert_ne!(a, c);
    let f1 = self_play("flat:sims=2000", 5, 6);
    assert_eq!(f1, self_play("flat:sims=2000", 5, 6));
}

#[test]
fn zero_pruning_plays_exactly_as_unpruned() {
    let base = self_play("uct:sims=600", 9, 12);
    for spec in [
        "uct:sims=600,prune=rule:0@0",
        "uct:sims=600,prune=random:0@0",
        "uct:sims=600,prune=rule:0@2",
        "uct:sims=600,soft=rule:0:30@0",
        "uct:sims=600,playout_prune=rule:0,playout_eval=leaf",
        "uct:sims=600,playout_prune=rule:0,playout_eval=move",
    ] {
        assert_eq!(self_play(spec, 9, 12), base, "{spec}");
    }
    // ... and real pruning does change the game (so the comparison above can fail).
    assert_ne!(self_play("uct:sims=600,prune=rule:41@0", 9, 12), base);
}

#[test]
fn pruning_everything_leaves_pass() {
    // keep=0 lets tree pruning drop every board move at the root: only pass is left.
    let mut e = build_engine("uct:sims=300,prune=rule:81@0,keep=0", 1).unwrap();
    e.new_game(6.5);
    assert_eq!(e.genmove(Color::Black).0, EngineMove::Play(Move::Pass));
    // With the default keep=1, the best-rated board move survives.
    let mut e = build_engine("uct:sims=300,prune=rule:81@0", 1).unwrap();
    e.new_game(6.5);
    match e.genmove(Color::Black).0 {
        EngineMove::Play(Move::Play(p)) => {
            assert!(e.game().board().color_at(p) == Some(Color::Black))
        }
        other => panic!("expected a board move, got {other:?}"),
    }
}

#[test]
fn passes_when_only_own_eyes_are_left() {
    // Black owns the board except its two eyes; white has no stones.
    let board = "
. X X X X X X X X
X X X X X X X X X
X X X X X X X X X
X X X X X X X X X
X X X X X X X X X
X X X X X X X X X
X X X X X X X X X
X X X X X X X X X
X X X X X X X X .";
    let b = Board::from_diagram(board).unwrap();
    for spec in [
        "uct:sims=200,prune=rule:41@0",
        "uct:sims=200",
        "flat:sims=200",
    ] {
        let mut e = build_engine(spec, 1).unwrap();
        // Load the position directly: playing 79 black stones in a row is legal for Game.
        load(e.as_mut(), board);
        assert_eq!(e.game().board(), &b);
        assert_eq!(
            e.genmove(Color::Black).0,
            EngineMove::Play(Move::Pass),
            "{spec}"
        );
    }
}

#[test]
fn hopeless_position_resigns_only_when_asked() {
    // White owns almost everything.
    let board = "
O O O O O O O O O
O . O . O . O . O
O O O O O O O O O
. . . . . . . . .
O O O O O O O O O
O . O . O . O . O
O O O O O O O O O
. . . . . . . . .
O O O O O O O O O";
    let mut e = build_engine("uct:sims=500,resign=0.1", 1).unwrap();
    load(e.as_mut(), board);
    assert_eq!(e.genmove(Color::Black).0, EngineMove::Resign);
    let mut e = build_engine("uct:sims=500", 1).unwrap();
    load(e.as_mut(), board);
    assert!(matches!(e.genmove(Color::Black).0, EngineMove::Play(_)));
}

#[test]
fn tree_is_reused_after_the_reply() {
    let mut e = UctEngine::new(parse_uct("uct:sims=3000").unwrap(), 1).unwrap();
    e.new_game(6.5);
    let EngineMove::Play(_) = e.genmove(Color::Black).0 else {
        panic!()
    };
    // White's most likely reply was expanded in black's search: its subtree survives.
    let EngineMove::Play(_) = e.genmove(Color::White).0 else {
        panic!()
    };
    assert!(e.root_visits() > 0, "root kept {} visits", e.root_visits());
    let mut fresh = UctEngine::new(parse_uct("uct:sims=3000,reuse=false").unwrap(), 1).unwrap();
    fresh.new_game(6.5);
    fresh.genmove(Color::Black);
    assert_eq!(fresh.root_visits(), 0);
}

#[test]
fn threads_play_legal_moves() {
    let mut e = build_engine("uct:sims=2000,threads=2", 1).unwrap();
    e.new_game(6.5);
    let mut g = Game::new(6.5);
    let mut c = Color::Black;
    for _ in 0..6 {
        let EngineMove::Play(m) = e.genmove(c).0 else {
            panic!()
        };
        g.play_as(c, m).expect("legal");
        c = c.opponent();
    }
    assert_eq!(e.game().moves(), g.moves());
}

#[test]
fn tree_parallel_threads_share_one_tree_and_find_the_save() {
    // Two and four threads on one tree: legal moves through a game's opening, and the
    // tactic the sequential strong engine finds.
    for threads in [2, 4] {
        let spec = format!("uct:sims=2000,threads={threads},parallel=tree");
        let mut e = build_engine(&spec, 1).unwrap();
        e.new_game(6.5);
        let mut g = Game::new(6.5);
        let mut c = Color::Black;
        for _ in 0..6 {
            let (EngineMove::Play(m), stats) = e.genmove(c) else {
                panic!()
            };
            assert_eq!(
                stats.simulations, 2000,
                "one budget shared by {threads} threads"
            );
            g.play_as(c, m).expect("legal");
            c = c.opponent();
        }
        assert_eq!(e.game().moves(), g.moves());
        let strong = format!("{STRONG},threads={threads},parallel=tree");
        let m = genmove_black(&strong, 1, SAVE);
        assert_eq!(m, EngineMove::Play(gtp("F5")), "{strong}");
    }
}

/// One thread runs without virtual loss whatever the parallel mode, so `parallel=tree` and
/// `parallel=root` are the same search. Virtual loss would change it (the tree test
/// `virtual_loss_changes_a_one_thread_search` shows it does), so an engine that turned it on
/// for one tree-parallel thread fails here.
#[test]
fn one_thread_is_the_same_search_in_both_parallel_modes() {
    let spec = "uct:sims=600,playout=heavy,rave=3500,priors=true,c=0";
    let tree = format!("{spec},parallel=tree");
    assert_eq!(self_play(spec, 5, 8), self_play(&tree, 5, 8));
    // Every root statistic, not only the moves chosen: a search with virtual loss mostly
    // picks the same moves but not with the same visits. With c > 0, where UCB reads the
    // parent's count that virtual loss raises by the visit in flight.
    let root = |spec: &str| {
        let mut e = UctEngine::new(parse_uct(spec).unwrap(), 5).unwrap();
        e.new_game(6.5);
        e.analyze(Color::Black)
            .iter()
            .map(|s| (s.mv, s.visits, s.wins.to_bits()))
            .collect::<Vec<_>>()
    };
    assert_eq!(root("uct:sims=800"), root("uct:sims=800,parallel=tree"));
}

#[test]
fn tree_pruning_removes_the_worst_root_moves_only_from_its_depth() {
    let root = |spec: &str| {
        let mut e = UctEngine::new(parse_uct(spec).unwrap(), 1).unwrap();
        e.new_game(6.5);
        e.analyze(Color::Black)
    };
    let unpruned = root("uct:sims=500");
    assert_eq!(unpruned.len(), 82); // every point and pass
    let at0 = root("uct:sims=500,prune=rule:41@0");
    assert_eq!(at0.len(), 82 - 41);
    assert_eq!(at0.last().unwrap().mv, Move::Pass, "pass is never pruned");
    // The rule pruner rates the first line worst: no first-line point survives at the root.
    for s in &at0 {
        if let Move::Play(p) = s.mv {
            let (r, c) = (p.row(), p.col());
            assert!(r > 0 && c > 0 && r < 8 && c < 8, "{p} survived");
        }
    }
    assert_eq!(
        root("uct:sims=500,prune=rule:41@1").len(),
        82,
        "root untouched at d=1"
    );
    // The paper's count: keep the 81 - x best candidates (all 81 are candidates here).
    assert_eq!(
        root("uct:sims=500,prune=rule:41@0,prune_count=board").len(),
        82 - 41
    );
}

#[test]
fn soft_pruning_gives_lost_visits_instead_of_deleting() {
    let mut e = UctEngine::new(parse_uct("uct:sims=3000,soft=rule:50:41@0").unwrap(), 1).unwrap();
    e.new_game(6.5);
    let stats = e.analyze(Color::Black);
    assert_eq!(stats.len(), 82, "soft pruning keeps every move");
    let soft: Vec<_> = stats.iter().filter(|s| s.prior > 0).collect();
    assert_eq!(soft.len(), 41);
    assert!(soft.iter().all(|s| s.prior == 50));
    let visits = |v: &[&akushu::search::uct::RootStat]| {
        v.iter().map(|s| s.visits as f64).sum::<f64>() / v.len() as f64
    };
    let others: Vec<_> = stats.iter().filter(|s| s.prior == 0).collect();
    assert!(
        visits(&soft) * 3.0 < visits(&others),
        "soft {} vs others {}",
        visits(&soft),
        visits(&others)
    );
}

#[test]
fn soft_pruning_counts_x_as_prune_count_says() {
    // With n candidate moves (CAPTURE has 21 stones), counting x of the 81 points (`board`)
    // gives n - (81 - 41) moves the losing prior, so the 40 best stay unpenalised however
    // full the board; counting x legal moves gives 41 of them the prior.
    let penalised = |spec: &str| {
        let mut e = UctEngine::new(parse_uct(spec).unwrap(), 1).unwrap();
        load(&mut e, CAPTURE);
        let stats = e.analyze(Color::Black);
        (stats.len(), stats.iter().filter(|s| s.prior > 0).count())
    };
    let (legal_moves, legal) = penalised("uct:sims=200,soft=rule:50:41@0");
    let (board_moves, board) = penalised("uct:sims=200,soft=rule:50:41@0,prune_count=board");
    assert_eq!(legal_moves, board_moves, "soft pruning deletes nothing");
    assert_eq!(legal, 41);
    assert_eq!(
        board,
        (legal_moves - 1) - (81 - 41),
        "{legal_moves} moves with pass"
    );
}

#[test]
fn time_limits_stop_a_huge_search() {
    // Functional, not a speed test: a budget no machine finishes in 0.05 s must stop early.
    let huge = 100_000_000;
    let mut e = build_engine(&format!("uct:sims={huge},max_seconds=0.05"), 1).unwrap();
    e.new_game(6.5);
    let (m, stats) = e.genmove(Color::Black);
    assert!(matches!(m, EngineMove::Play(_)));
    assert!(
        stats.simulations > 0 && stats.simulations < huge as u64,
        "{stats:?}"
    );
    // GTP time_left: a move gets the clock allocator's budget of the time left.
    let mut e = build_engine(&format!("uct:sims={huge}"), 1).unwrap();
    e.new_game(6.5);
    e.set_time_left(Color::Black, 1.0, 0);
    let (_, stats) = e.genmove(Color::Black);
    assert!(stats.simulations < huge as u64, "{stats:?}");
}

/// `uct:playout=territory` plays its playouts with the territory-gain generator (paper E in `docs/papers.md`):
/// a legal game comes out, it differs from the uniform-playout engine for the same seed, and
/// it cannot be combined with playout pruning.
#[test]
fn territory_playouts_are_selectable_by_spec() {
    use akushu::rules::Color;
    use akushu::search::EngineMove;
    let play = |spec: &str| {
        let mut e = akushu::search::spec::build_engine(spec, 3).unwrap();
        e.new_game(6.5);
        let mut moves = Vec::new();
        for i in 0..6 {
            let c = if i % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            let (m, stats) = e.genmove(c);
            assert_eq!(stats.simulations, 200);
            moves.push(m);
        }
        moves
    };
    let territory = play("uct:sims=200,playout=territory");
    assert!(territory.iter().all(|m| matches!(m, EngineMove::Play(_))));
    assert_ne!(territory, play("uct:sims=200"));
    assert_eq!(
        territory,
        play("uct:sims=200,playout=territory"),
        "seeded: same game twice"
    );
    let err = akushu::search::spec::build_engine("uct:playout=territory,playout_prune=rule:0.6", 1)
        .err()
        .unwrap();
    assert!(format!("{err:#}").contains("territory"));
    assert!(akushu::search::spec::build_engine("uct:playout=heavy", 1).is_ok());
    assert!(akushu::search::spec::build_engine("uct:playout=bogus", 1).is_err());
}

/// The strong configuration: heavy playouts, RAVE and heuristic priors.
/// (CAPTURE is no test for it: GNU Go rates that position lost for black whatever it
/// plays, W+1.7 after the capture, and a win-rate maximiser need not capture there.)
const STRONG: &str = "uct:sims=10000,playout=heavy,rave=3500,priors=true,c=0";

#[test]
fn strong_uct_saves_its_group_in_atari() {
    for seed in 1..=2 {
        let m = genmove_black(STRONG, seed, SAVE);
        assert_eq!(m, EngineMove::Play(gtp("F5")), "save, seed {seed}");
    }
}

#[test]
fn strong_uct_is_deterministic_for_a_seed() {
    let spec = "uct:sims=500,playout=heavy,rave=3500,priors=true,c=0";
    let a = self_play(spec, 3, 10);
    assert_eq!(a, self_play(spec, 3, 10));
    assert_ne!(a, self_play(spec, 4, 10));
    // each part alone is deterministic too
    for spec in [
        "uct:sims=400,rave=1000",
        "uct:sims=400,priors=true",
        "uct:sims=400,playout=heavy",
    ] {
        assert_eq!(self_play(spec, 2, 6), self_play(spec, 2, 6), "{spec}");
    }
}

#[test]
fn rave_and_priors_off_are_the_paper_engine() {
    // The new keys at their defaults must not change a single move of the paper's engine.
    let base = self_play("uct:sims=600", 9, 12);
    assert_eq!(
        self_play("uct:sims=600,rave=0,priors=false,playout=uniform", 9, 12),
        base
    );
    assert_ne!(self_play("uct:sims=600,rave=1000", 9, 12), base);
}

#[test]
fn priors_do_not_count_as_simulations() {
    let mut e = UctEngine::new(parse_uct(STRONG).unwrap(), 1).unwrap();
    e.new_game(6.5);
    let stats = e.analyze(Color::Black);
    let visits: u32 = stats.iter().map(|s| s.visits).sum();
    assert_eq!(
        visits, 10000,
        "root children's real visits are the simulations"
    );
    for s in &stats {
        assert!(s.wins <= s.visits as f32 + 1e-3, "{s:?}");
        assert!(s.wins >= -1e-3, "{s:?}");
    }
    // priors were given (every board move starts with the even-game prior)
    assert!(
        stats
            .iter()
            .filter(|s| s.mv != Move::Pass)
            .all(|s| s.prior >= 10)
    );
}

/// Every committed match folder records each in-process spec with its resolved config.
/// Those specs must still parse to the configs that played (keys added since take their
/// defaults, which is how the recorded games were played), and their canonical text too.
#[test]
fn recorded_specs_still_parse_to_the_configs_that_played() {
    use akushu::search::spec::canonical_spec;
    let mut folders = vec![std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("report")];
    let mut checked = 0;
    while let Some(dir) = folders.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            if path.file_name().is_none_or(|n| n != "match.toml") {
                continue;
            }
            let header = akushu::arena::runner::ResultsDir::new(&dir)
                .read_header()
                .unwrap()
                .unwrap();
            for (spec, recorded) in &header.engines {
                if !spec.starts_with("uct") {
                    continue;
                }
                let played: UctConfig = serde_json::from_str(recorded).unwrap();
                let now = parse_uct(spec).unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
                assert_eq!(now, played, "{}: {spec}", path.display());
                let canonical = canonical_spec(spec).unwrap();
                assert_eq!(
                    parse_uct(&canonical).unwrap(),
                    played,
                    "{spec} -> {canonical}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 10, "only {checked} recorded specs found");
}

#[test]
fn safe_pass_plays_on_where_a_pass_loses() {
    // A recorded game (`akushu match --black uct:sims=1000 --white uct:sims=1000 --games 10
    // --seed 7`, game 10): black played D3 and F8 against F5 and H4, then passed; white
    // passed too and won W+6.5 on the area count. Black's engine replays that game move for
    // move; with safe_pass the same search plays a board move instead of the losing pass.
    let game_seed = 11_067_813_437_535_541_423;
    let seed = player_seed(game_seed, Color::Black);
    let black_moves = |spec: &str| {
        let mut e = build_engine(spec, seed).unwrap();
        e.new_game(6.5);
        let mut out = Vec::new();
        for white in ["F5", "H4", ""] {
            let EngineMove::Play(m) = e.genmove(Color::Black).0 else {
                panic!("resigned")
            };
            out.push(m);
            if !white.is_empty() {
                e.play(Color::White, gtp(white)).unwrap();
            }
        }
        out
    };
    assert_eq!(
        black_moves("uct:sims=1000"),
        [gtp("D3"), gtp("F8"), Move::Pass],
        "the recorded game no longer replays"
    );
    let safe = black_moves("uct:sims=1000,safe_pass=true");
    assert_eq!(safe[..2], [gtp("D3"), gtp("F8")]);
    assert!(matches!(safe[2], Move::Play(_)), "{safe:?}");
}

/// A clock ends every move of a search that would otherwise run for hours: under Canadian
/// overtime and under absolute time (which the engine counts down itself when nobody reports
/// it), each move stops on its deadline, far short of its simulations. What each budget is
/// and how the engine charges its clock are checked without a wall clock, in `search::clock`
/// and `search::uct`'s unit tests; here only the simulation counts are asserted, so a busy
/// machine (which stretches every move's wall time) cannot fail the test.
#[test]
fn a_clock_limits_each_move_and_counts_down() {
    let huge = 100_000_000;
    let mut e = build_engine(&format!("uct:sims={huge}"), 1).unwrap();
    e.new_game(6.5);
    e.set_time_control(TimeControl::Canadian {
        main: 0.0,
        period: 0.3,
        stones: 1,
    });
    let mut c = Color::Black;
    for _ in 0..4 {
        let (m, stats) = e.genmove(c);
        assert!(matches!(m, EngineMove::Play(_)));
        assert!(stats.simulations < huge as u64, "{stats:?}");
        c = c.opponent();
    }
    let mut e = build_engine(&format!("uct:sims={huge}"), 1).unwrap();
    e.new_game(6.5);
    e.set_time_control(TimeControl::Absolute { main: 2.0 });
    let mut c = Color::Black;
    for _ in 0..30 {
        let (_, stats) = e.genmove(c);
        assert!(stats.simulations < huge as u64, "{stats:?}");
        c = c.opponent();
    }
}
