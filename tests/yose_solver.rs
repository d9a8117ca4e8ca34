//! The exact solver: every algorithm and every pruning mode finds the proven answer of the
//! problem set; pruning never changes a result that the unpruned search also proves.

use std::path::{Path, PathBuf};

use akushu::rules::{Board, Color, Move, Point};
use akushu::yose::{Algorithm, Problem, SolverConfig, solve};

/// Problems the unpruned search finishes within a few hundred thousand nodes.
const SMALL: [&str; 9] = [
    "y01", "y02", "y03", "y04", "y05", "y06", "y07", "y08", "y17",
];

fn problems() -> Vec<Problem> {
    let mut files: Vec<PathBuf> = std::fs::read_dir("data/yose")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sgf"))
        .collect();
    files.sort();
    files.iter().map(|f| Problem::load(f).unwrap()).collect()
}

fn config(algorithm: Algorithm, kakeme: bool, defender: bool, node_limit: u64) -> SolverConfig {
    SolverConfig {
        algorithm,
        kakeme,
        defender,
        node_limit,
        tt_bits: 20,
        ..SolverConfig::default()
    }
}

#[test]
fn the_problem_set_has_at_least_15_problems_with_answers() {
    let ps = problems();
    assert!(ps.len() >= 15, "{} problems", ps.len());
    for p in &ps {
        assert!(p.answer.is_some(), "{} has no AK answer", p.name);
        assert_eq!(p.komi, 0.5, "{}", p.name);
        p.board.check_invariants().unwrap();
    }
    assert!(ps.iter().any(|p| p.to_move == Color::White));
}

#[test]
fn pruning_never_changes_the_proven_result_on_small_problems() {
    for p in problems()
        .iter()
        .filter(|p| SMALL.contains(&p.name.as_str()))
    {
        let answer = p.answer.unwrap();
        for a in Algorithm::ALL {
            for (kakeme, defender) in [(false, false), (true, false), (true, true)] {
                let r = solve(&p.board, p.to_move, &config(a, kakeme, defender, 3_000_000));
                let score = r.score.unwrap_or_else(|| {
                    panic!(
                        "{} {a:?} kakeme={kakeme} defender={defender} unfinished",
                        p.name
                    )
                });
                assert_eq!(
                    score as f32 - p.komi,
                    answer,
                    "{} {a:?} kakeme={kakeme} defender={defender}",
                    p.name
                );
                assert!(r.best.is_some());
                assert_eq!(r.ply_cap_hits, 0);
            }
        }
    }
}

#[test]
fn every_algorithm_agrees_with_the_answer_when_pruned() {
    let mut checked = 0;
    for p in problems() {
        for (kakeme, defender) in [(true, false), (true, true)] {
            let first = solve(
                &p.board,
                p.to_move,
                &config(Algorithm::Negascout, kakeme, defender, 300_000),
            );
            let Some(score) = first.score else { continue };
            assert_eq!(score as f32 - p.komi, p.answer.unwrap(), "{}", p.name);
            for a in Algorithm::ALL {
                let r = solve(&p.board, p.to_move, &config(a, kakeme, defender, 2_000_000));
                assert_eq!(r.score, Some(score), "{} {a:?} defender={defender}", p.name);
            }
            if defender {
                checked += 1;
            }
        }
    }
    assert!(
        checked >= 15,
        "only {checked} problems solved with kake-me + defender"
    );
}

#[test]
fn deeper_defender_extension_keeps_the_results() {
    for p in problems()
        .iter()
        .filter(|p| SMALL.contains(&p.name.as_str()))
    {
        let c = SolverConfig {
            defender_depth: 2,
            ..config(Algorithm::Negascout, true, true, 3_000_000)
        };
        let r = solve(&p.board, p.to_move, &c);
        assert_eq!(r.score.map(|s| s as f32 - p.komi), p.answer, "{}", p.name);
    }
}

#[test]
fn the_one_dame_problem_fills_the_dame() {
    let p = Problem::load(Path::new("data/yose/y01.sgf")).unwrap();
    let r = solve(
        &p.board,
        p.to_move,
        &config(Algorithm::Negamax, false, false, 0),
    );
    assert_eq!(r.best, Some(Move::Play(Point::from_rc(4, 4).unwrap())));
    assert_eq!(r.score, Some(9));
    // white to move takes the dame instead: black's margin drops by one
    let r = solve(
        &p.board,
        Color::White,
        &config(Algorithm::Mtdf, false, false, 0),
    );
    assert_eq!(r.score, Some(7));
}

#[test]
fn limits_stop_the_search_and_say_so() {
    let p = Problem::load(Path::new("data/yose/y09.sgf")).unwrap();
    let r = solve(
        &p.board,
        p.to_move,
        &config(Algorithm::Negascout, false, false, 20_000),
    );
    assert!(!r.finished());
    assert!(r.best.is_none());
    assert!(r.nodes >= 20_000 && r.nodes < 20_000 + 2048, "{}", r.nodes);
}

#[test]
fn mtd_bi_widens_its_window_when_the_value_lies_outside() {
    // black owns the whole board: the value is 81, outside paper C's -64..64 window
    let board = Board::from_diagram(
        "
        . X . X . X . X .
        . X . X . X . X .
        . X . X . X . X .
        . X . X . X . X .
        . X . X . X . X .
        . X . X . X . X .
        . X . X . X . X .
        . X . X . X . X .
        X X X X X X X X X",
    )
    .unwrap();
    for a in Algorithm::ALL {
        for to_move in [Color::Black, Color::White] {
            let r = solve(&board, to_move, &config(a, true, false, 0));
            assert_eq!(r.score, Some(81), "{a:?} {to_move:?}");
        }
    }
}

#[test]
fn same_search_same_node_count() {
    let p = Problem::load(Path::new("data/yose/y08.sgf")).unwrap();
    let c = config(Algorithm::Mtdbi, true, true, 0);
    let a = solve(&p.board, p.to_move, &c);
    let b = solve(&p.board, p.to_move, &c);
    assert_eq!((a.score, a.best, a.nodes), (b.score, b.best, b.nodes));
}

#[test]
fn bad_problem_files_give_clear_errors() {
    let err = |text: &str| Problem::parse(text, "bad.sgf").unwrap_err().to_string();
    assert!(err("not sgf at all").starts_with("bad.sgf:"));
    assert!(err("(;SZ[19]AB[aa])").contains("9x9 only"));
    assert!(err("(;SZ[9]AB[aa]AK[B+3])").contains("AK[B+3]"));
    // a setup chain without liberties is rejected, not panicked on
    assert!(err("(;SZ[9]AB[aa]AW[ba][ab])").contains("setup"));
    let ok = Problem::parse("(;SZ[9]KM[6.5]PL[W]AB[ee]AK[-2.5];B[dd];W[])", "ok.sgf").unwrap();
    assert_eq!(
        (ok.komi, ok.to_move, ok.answer),
        (6.5, Color::White, Some(-2.5))
    );
    assert_eq!(ok.moves.len(), 2);
    let (after, to_move) = ok.position_after(1).unwrap();
    assert_eq!(
        after.color_at(Point::from_rc(3, 3).unwrap()),
        Some(Color::Black)
    );
    assert_eq!(to_move, Color::White);
    assert!(Problem::load(Path::new("data/yose/missing.sgf")).is_err());
}

#[test]
fn bench_prints_each_result_as_it_is_measured() {
    let dir = std::env::temp_dir().join(format!("akushu-yose-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("bench.csv");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_akushu"))
        .args(["yose", "bench", "data/yose", "--problems", "y01,y02"])
        .args(["--algos", "negascout", "--modes", "none,kakeme", "--quiet"])
        .arg("--csv")
        .arg(&csv)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // One line per measured row, each printed before the closing table.
    let table = stdout.find("problem  algorithm").expect("the table");
    for row in [
        "y01 negascout none: score",
        "y01 negascout kakeme: score",
        "y02 negascout none: score",
        "y02 negascout kakeme: score",
    ] {
        let at = stdout
            .find(row)
            .unwrap_or_else(|| panic!("{row:?} in\n{stdout}"));
        assert!(at < table, "{row:?} printed before the table:\n{stdout}");
    }
    let y01 = stdout.lines().find(|l| l.starts_with("y01 ")).unwrap();
    assert!(y01.contains(", best E5, nodes "), "{y01}");
    // --quiet hides the progress bar: nothing on stderr.
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    std::fs::remove_dir_all(&dir).unwrap();
}
