//! `akushu analyze --sgf FILE [--move N]`: the board analysis of paper E in `docs/papers.md` printed as
//! diagrams — chains, groups with their connection points, influence territory, end-of-game
//! territory, real and false eyes, the useless moves of paper C's kake-me and dame tests,
//! and the best territory-gain moves.
//!
//! The `k` mark is the kake-me test's: an empty point of a region the invader cannot live
//! in, a move that gains nothing for either side (filling one's own territory, real eyes
//! included, or an invasion that dies). It is not a false-eye mark, though kake-me is
//! Japanese for a false eye: eyes get their own diagram, `e` real and `f` false.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use crate::board_analysis::{self, Chains, EndConfig, Groups, best_gain_moves, diagram};
use crate::prune::{PruneContext, Pruner, worst_first};
use crate::rules::{Board, Color, Move, N, NN, Point, bit};
use crate::search::uct::resolve_pruner;
use crate::yose::{Problem, dame_mask, kakeme_mask};

#[derive(Debug, Clone, Args)]
pub struct AnalyzeArgs {
    /// SGF file: setup stones and main-line moves are read.
    #[arg(long)]
    pub sgf: PathBuf,
    /// Analyse the position after this many main-line moves (default: all).
    #[arg(long = "move")]
    pub move_number: Option<usize>,
    /// Groups with this many stones or fewer are removed before the end-of-game count.
    #[arg(long, default_value_t = EndConfig::default().weak_group_max)]
    pub weak_group_max: u32,
    /// Instead of the board analysis, show what this pruner thinks of the position (any
    /// pruner a spec takes: `nn:models/cnn-human-5x32-gpu2`, `nnq:...`, `sym8:nn:...`,
    /// `rules`, `kakeme`, `random`): each legal move's rank, best first, and the moves
    /// pruned at `--prune`. Networks see the last two moves, as in the search.
    #[arg(long, value_name = "PRUNER")]
    pub pruner: Option<String>,
    /// With --pruner: mark the X worst legal moves as pruned (0 to 81).
    #[arg(long, value_name = "X", default_value_t = 41, requires = "pruner", value_parser = clap::value_parser!(u8).range(0..=81))]
    pub prune: u8,
}

/// One character per number: 1-9, then a-z, then `*`.
fn label(n: u8) -> char {
    match n {
        0 => '.',
        1..=9 => (b'0' + n) as char,
        10..=35 => (b'a' + n - 10) as char,
        _ => '*',
    }
}

fn stone(board: &Board, i: usize) -> Option<char> {
    board.color_at(Point::new(i)).map(|c| match c {
        Color::Black => 'X',
        Color::White => 'O',
    })
}

pub fn run(args: AnalyzeArgs) -> anyhow::Result<()> {
    let config = EndConfig {
        weak_group_max: args.weak_group_max,
    };
    crate::outln!("# {}", super::command_line());
    crate::outln!("# end-of-game config: {config:?}");
    let problem = Problem::load(&args.sgf).with_context(|| "analyze --sgf")?;
    let n = args.move_number.unwrap_or(problem.moves.len());
    let (board, to_move) = problem
        .position_after(n)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.sgf.display()))?;
    if let Some(spec) = &args.pruner {
        // The last two moves before the position, oldest first, as the search passes them.
        let recent: Vec<Move> = problem.moves[..n]
            .iter()
            .rev()
            .take(2)
            .rev()
            .map(|&(_, m)| m)
            .collect();
        let pruner = resolve_pruner(spec, 1)?;
        let ctx = PruneContext {
            board: &board,
            to_move,
            recent: &recent,
        };
        crate::out!(
            "{}",
            pruner_report(pruner.as_ref(), &ctx, n, args.prune as usize)
        );
        return Ok(());
    }
    crate::out!("{}", report(&board, to_move, &config, n));
    Ok(())
}

/// A pruner's view of a position: every legal move's rank (1 = the best) and the `x` worst
/// legal moves marked as pruned, with the badness scores of the first few either way.
pub fn pruner_report(
    pruner: &dyn Pruner,
    ctx: &PruneContext<'_>,
    move_number: usize,
    x: usize,
) -> String {
    let mut scores = [0f32; NN];
    pruner.badness(ctx, &mut scores);
    let worst = worst_first(ctx, &scores); // legal moves, worst first
    let n = worst.len();
    let mut rank = [0usize; NN];
    for (k, p) in worst.iter().enumerate() {
        rank[p.index()] = n - k; // 1 = the best
    }
    // As tree pruning with the default `keep = 1`: never the last legal move.
    let pruned: Vec<Point> = worst
        .iter()
        .take(x.min(n.saturating_sub(1)))
        .copied()
        .collect();
    let board = ctx.board;
    let mut s = format!(
        "pruner {} on the position after move {move_number}, {} to move; last moves {}\n",
        pruner.name(),
        if ctx.to_move == Color::Black {
            "black"
        } else {
            "white"
        },
        if ctx.recent.is_empty() {
            "none".to_string()
        } else {
            ctx.recent
                .iter()
                .map(|m| m.to_gtp())
                .collect::<Vec<_>>()
                .join(" ")
        }
    );
    s += &format!("{n} legal moves; rank of each, 1 = the best (X, O stones; - not legal):\n");
    s += &diagram_cells(|i| match stone(board, i) {
        Some(c) => format!("{c:>3}"),
        None if rank[i] > 0 => format!("{:>3}", rank[i]),
        None => "  -".to_string(),
    });
    s += &format!(
        "pruned: the {} worst legal moves (x; at most all but one), kept (+):\n",
        pruned.len()
    );
    s += &diagram(|i| match stone(board, i) {
        Some(c) => c,
        None if pruned.iter().any(|p| p.index() == i) => 'x',
        None if rank[i] > 0 => '+',
        None => '-',
    });
    let show = |ps: &[Point]| {
        ps.iter()
            .map(|p| format!("{} {:.4}", Move::Play(*p).to_gtp(), scores[p.index()]))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let best: Vec<Point> = worst.iter().rev().take(5).copied().collect();
    s += &format!("best 5 (badness): {}\n", show(&best));
    s += &format!("worst 5 (badness): {}\n", show(&worst[..n.min(5)]));
    s
}

/// A 9x9 grid with a three-character cell per point, coordinates as `diagram` has them.
fn diagram_cells(cell: impl Fn(usize) -> String) -> String {
    let cols = "ABCDEFGHJ";
    let mut s = format!(
        "   {}\n",
        cols.chars().map(|c| format!("{c:>3}")).collect::<String>()
    );
    for r in 0..N {
        s += &format!("{:>2} ", N - r);
        for c in 0..N {
            s += &cell(r * N + c);
        }
        s.push('\n');
    }
    s
}

/// The whole analysis as text.
pub fn report(board: &Board, to_move: Color, config: &EndConfig, move_number: usize) -> String {
    let mut s = format!(
        "position after move {move_number}, {} to move\n",
        if to_move == Color::Black {
            "black"
        } else {
            "white"
        }
    );
    s += &diagram(|i| stone(board, i).unwrap_or('.'));

    let chains = Chains::of(board);
    s += &format!(
        "\nchains ({}), numbered by flood fill:\n",
        chains.list.len()
    );
    s += &diagram(|i| label(chains.id[i]));

    let groups = Groups::of(board);
    let conn: u128 = groups.list.iter().fold(0, |m, g| m | g.connection_points);
    s += &format!(
        "\ngroups ({}), `+` = connection point:\n",
        groups.list.len()
    );
    s += &diagram(|i| {
        if conn & bit(i) != 0 {
            '+'
        } else {
            label(groups.id[i])
        }
    });
    for (k, g) in groups.list.iter().enumerate() {
        s += &format!(
            "  group {}: {} {} stones\n",
            label(k as u8 + 1),
            if g.color == Color::Black {
                "black"
            } else {
                "white"
            },
            g.stones.count_ones()
        );
    }

    let inf = board_analysis::influence(board);
    s += &format!(
        "\ninfluence territory (x black, o white): black {} white {}\n",
        inf.black.count_ones(),
        inf.white.count_ones()
    );
    s += &diagram(|i| {
        stone(board, i).unwrap_or(if inf.black & bit(i) != 0 {
            'x'
        } else if inf.white & bit(i) != 0 {
            'o'
        } else {
            '.'
        })
    });

    let end = board_analysis::end_territory(board, config);
    let (t, a) = (end.territory(), end.area());
    s += &format!(
        "\nend-of-game territory (weak groups <= {} stones removed, shown `-`): territory B {} W {}, area B {} W {}\n",
        config.weak_group_max, t.black, t.white, a.black, a.white
    );
    s += &diagram(|i| {
        if end.removed & bit(i) != 0 {
            '-'
        } else if end.black & bit(i) != 0 {
            'x'
        } else if end.white & bit(i) != 0 {
            'o'
        } else {
            stone(board, i).unwrap_or('.')
        }
    });

    let eyes = board_analysis::eyes(board);
    s += &format!(
        "\neyes: `e` real ({}), `f` false ({}): empty points surrounded by one colour, false \
         when opposing stones hold two diagonals (one on the edge)\n",
        eyes.real.count_ones(),
        eyes.false_eyes.count_ones()
    );
    s += &diagram(|i| {
        if eyes.real & bit(i) != 0 {
            'e'
        } else if eyes.false_eyes & bit(i) != 0 {
            'f'
        } else {
            stone(board, i).unwrap_or('.')
        }
    });

    let (km, dm) = (kakeme_mask(board), dame_mask(board));
    s += &format!(
        "\nuseless moves: `k` kake-me ({}): in a region the invader cannot live in, real eyes \
         included; `d` dame ({})\n",
        km.count_ones(),
        dm.count_ones()
    );
    s += &diagram(|i| {
        if km & bit(i) != 0 {
            'k'
        } else if dm & bit(i) != 0 {
            'd'
        } else {
            stone(board, i).unwrap_or('.')
        }
    });

    let (gain, best) = best_gain_moves(board, to_move);
    let list: Vec<String> = best.iter().map(|p| p.to_gtp()).collect();
    s += &format!(
        "\nbest territory gain for the side to move: {gain} at {}\n",
        if list.is_empty() {
            "-".to_string()
        } else {
            list.join(" ")
        }
    );
    s
}

#[cfg(test)]
mod pruner_view_tests {
    use super::*;

    #[test]
    fn the_pruner_view_ranks_every_legal_move_and_keeps_at_least_one() {
        let board = Board::new();
        let pruner = resolve_pruner("random", 7).unwrap();
        let ctx = PruneContext {
            board: &board,
            to_move: Color::Black,
            recent: &[],
        };
        let count = |text: &str, c: char| {
            let grid: String = text
                .lines()
                .skip_while(|l| !l.starts_with("pruned:"))
                .skip(2)
                .take(N)
                .collect();
            grid.chars().filter(|&ch| ch == c).count()
        };
        let text = pruner_report(pruner.as_ref(), &ctx, 0, 41);
        assert!(text.contains("81 legal moves"), "{text}");
        assert_eq!((count(&text, 'x'), count(&text, '+')), (41, 40), "{text}");
        // Every rank 1..=81 once.
        let ranks: Vec<usize> = text
            .lines()
            .skip(3)
            .take(N)
            .flat_map(|l| {
                l.split_whitespace()
                    .skip(1)
                    .filter_map(|w| w.parse().ok())
                    .collect::<Vec<usize>>()
            })
            .collect();
        let mut sorted = ranks.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (1..=81).collect::<Vec<_>>());
        let all = pruner_report(pruner.as_ref(), &ctx, 0, 81);
        assert_eq!((count(&all, 'x'), count(&all, '+')), (80, 1), "{all}");
    }
}
