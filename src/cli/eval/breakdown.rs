//! `--by` breakdowns (game phase, the mover's rank) and the `--positions-csv` export.

use super::*;

/// What `--by` splits the evaluated positions by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BreakdownBy {
    /// Game phase: the move number (1-based) in bands 1-10, 11-20, 21-40, 41-60, 61+.
    Phase,
    /// The recorded rank of the player to move, in bands; `unknown` when it has none.
    Rank,
}

/// Phase bands by 1-based move number: the opening's first ten moves apart (they are the
/// most regular), then bands that widen as fewer games last that long (the median 9x9 game
/// of the human datasets ends near move 50).
pub(super) const PHASES: [(u32, u32, &str); 5] = [
    (1, 10, "1-10"),
    (11, 20, "11-20"),
    (21, 40, "21-40"),
    (41, 60, "41-60"),
    (61, u32::MAX, "61+"),
];

/// Rank bands on akushu's numeric scale (1k = 0, 1d = 1): single kyu and low dan ranks hold
/// most of the human records, so they are split finer than the tails.
pub(super) const RANK_BANDS: [(i8, i8, &str); 6] = [
    (i8::MIN + 1, -9, "<=10k"),
    (-8, -4, "9k-5k"),
    (-3, 0, "4k-1k"),
    (1, 2, "1d-2d"),
    (3, 4, "3d-4d"),
    (5, i8::MAX, "5d+"),
];

impl BreakdownBy {
    pub(super) fn name(self) -> &'static str {
        match self {
            BreakdownBy::Phase => "phase",
            BreakdownBy::Rank => "rank",
        }
    }

    /// The groups' labels, in table order.
    pub(super) fn groups(self) -> Vec<&'static str> {
        match self {
            BreakdownBy::Phase => PHASES.iter().map(|b| b.2).collect(),
            BreakdownBy::Rank => RANK_BANDS.iter().map(|b| b.2).chain(["unknown"]).collect(),
        }
    }

    /// The index in [`BreakdownBy::groups`] of `pos`'s group.
    pub(super) fn group(self, pos: &Position) -> usize {
        match self {
            BreakdownBy::Phase => {
                let m = move_of(pos);
                PHASES
                    .iter()
                    .position(|&(lo, hi, _)| (lo..=hi).contains(&m))
                    .expect("the phases cover every move number")
            }
            BreakdownBy::Rank => {
                let r = mover_rank(pos);
                RANK_BANDS
                    .iter()
                    .position(|&(lo, hi, _)| (lo..=hi).contains(&r))
                    .unwrap_or(RANK_BANDS.len())
            }
        }
    }
}

/// The 1-based number of the move played at `pos` (as game viewers number it).
pub(super) fn move_of(pos: &Position) -> u32 {
    pos.move_number as u32 + 1
}

/// The recorded rank of the player to move (`RANK_UNKNOWN` when none).
pub(super) fn mover_rank(pos: &Position) -> i8 {
    match pos.color() {
        crate::rules::Color::White => pos.white_rank,
        crate::rules::Color::Black => pos.black_rank,
    }
}

/// One row of the breakdown CSV: a model's figures over one group of positions.
#[derive(Debug, Serialize)]
pub(super) struct BreakdownRow {
    model: String,
    by: &'static str,
    group: &'static str,
    positions: u64,
    passes_skipped: u64,
    top1: f64,
    top5: f64,
    top10: f64,
    error_all_at_30: f64,
    x_at_10_all: usize,
    x_at_10_legal: usize,
}

/// One row of the per-position CSV (the columns are documented on `--positions-csv`).
#[derive(Debug, Serialize)]
pub(super) struct PositionRow<'a> {
    model: &'a str,
    game: u32,
    game_hash: String,
    #[serde(rename = "move")]
    move_number: u32,
    to_move: char,
    rank: String,
    played: String,
    rank_all: u8,
    rank_legal: u8,
    rank_best: u8,
    legal_moves: u8,
    pruned_at_30: bool,
    top1: String,
}

/// The paper's x for the per-position `pruned_at_30` column.
pub(super) const PAPER_X: usize = 30;

/// A model's `--by` groups: one row per non-empty group of each breakdown, in table order.
pub(super) fn breakdown(
    model: &str,
    by: &[BreakdownBy],
    positions: &[Position],
    ranks: &[Option<MoveRanks>],
) -> Vec<BreakdownRow> {
    let mut rows = Vec::new();
    for &b in by {
        let labels = b.groups();
        let mut curves = vec![Curve::default(); labels.len()];
        for (pos, r) in positions.iter().zip(ranks) {
            curves[b.group(pos)].add_ranks(r.as_ref());
        }
        for (group, c) in labels.into_iter().zip(&curves) {
            if c.n + c.passes == 0 {
                continue;
            }
            rows.push(BreakdownRow {
                model: model.to_string(),
                by: b.name(),
                group,
                positions: c.n,
                passes_skipped: c.passes,
                top1: c.top_k(1),
                top5: c.top_k(5),
                top10: c.top_k(10),
                error_all_at_30: c.error_all(PAPER_X),
                x_at_10_all: c.largest_x_within(0.10, false),
                x_at_10_legal: c.largest_x_within(0.10, true),
            });
        }
    }
    rows
}

/// Prints a model's breakdown rows as a table under its summary line.
pub(super) fn print_breakdown(rows: &[BreakdownRow]) {
    crate::outln!(
        "  {:<6} {:<8} {:>8} {:>6} {:>6} {:>6} {:>7} {:>10} {:>12}",
        "by",
        "group",
        "n",
        "top1",
        "top5",
        "top10",
        "err@30",
        "x<=10% all",
        "x<=10% legal"
    );
    for r in rows {
        crate::outln!(
            "  {:<6} {:<8} {:>8} {:>6.3} {:>6.3} {:>6.3} {:>7.3} {:>10} {:>12}",
            r.by,
            r.group,
            r.positions,
            r.top1,
            r.top5,
            r.top10,
            r.error_all_at_30,
            r.x_at_10_all,
            r.x_at_10_legal
        );
    }
}

/// A GTP vertex (or `pass`) from a flat index.
pub(super) fn vertex(index: u8) -> String {
    crate::rules::Move::from_index(index as usize).map_or_else(|_| "pass".into(), |m| m.to_gtp())
}

/// Writes `--positions-csv`: every model's ranked positions, model by model.
pub(super) fn write_positions(
    path: &Path,
    args: &EvalArgs,
    labels: &[String],
    positions: &[Position],
    ranked: &[Vec<Option<MoveRanks>>],
) -> anyhow::Result<()> {
    // Game hashes come from the dataset's game table; SGF and synthetic inputs have none.
    let by_game = match &args.data {
        Some(dir) if args.sgf.is_empty() => crate::dataset::gameset::DatasetGames::read(dir)?
            .map(|g| g.by_game)
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    write_file(path, POSITIONS_CSV, args.force, &args.inputs(), |w| {
        let mut csv = csv::Writer::from_writer(w);
        for (label, ranks) in labels.iter().zip(ranked) {
            for (pos, r) in positions.iter().zip(ranks) {
                let Some(r) = r else { continue };
                let rank = mover_rank(pos);
                csv.serialize(PositionRow {
                    model: label,
                    game: pos.game,
                    game_hash: by_game
                        .get(pos.game as usize)
                        .map_or_else(String::new, |h| format!("{h:016x}")),
                    move_number: move_of(pos),
                    to_move: pos.color().letter(),
                    rank: crate::sgf::rank_text(rank),
                    played: vertex(pos.played),
                    rank_all: r.all,
                    rank_legal: r.legal,
                    rank_best: r.best,
                    legal_moves: r.legal_count,
                    pruned_at_30: (r.all as usize) < PAPER_X,
                    top1: vertex(r.top1),
                })
                .map_err(std::io::Error::other)?;
            }
        }
        csv.flush()
    })
}
