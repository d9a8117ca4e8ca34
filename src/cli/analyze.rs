//! `akushu analyze --sgf FILE [--move N]`: the board analysis of paper E in `docs/papers.md` printed as
//! diagrams — chains, groups with their connection points, influence territory, end-of-game
//! territory, the kake-me and dame marks, and the best territory-gain moves.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use crate::analysis::{self, Chains, EndConfig, Groups, best_gain_moves, diagram};
use crate::endgame::{Problem, dame_mask, kakeme_mask};
use crate::rules::{Board, Color, Point, bit};

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
    crate::outln!("# akushu analyze {args:?}");
    crate::outln!("# end-of-game config: {config:?}");
    let problem = Problem::load(&args.sgf).with_context(|| "analyze --sgf")?;
    let n = args.move_number.unwrap_or(problem.moves.len());
    let (board, to_move) = problem
        .position_after(n)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.sgf.display()))?;
    crate::out!("{}", report(&board, to_move, &config, n));
    Ok(())
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

    let inf = analysis::influence(board);
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

    let end = analysis::end_territory(board, config);
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

    let (km, dm) = (kakeme_mask(board), dame_mask(board));
    s += &format!(
        "\nkake-me marks `k` ({}), dame `d` ({}):\n",
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
