//! One training position: the paper's 81 inputs plus what richer models need.

use crate::rules::{Board, Color, Move, NN};

/// Marker for "no point" in `last_moves` and `ko` (defined in [`crate::rules::coord`], which
/// SGF replay below this module also uses).
pub use crate::rules::NO_POINT;

/// Which part of a dataset. Games are split whole: a game never straddles two splits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    Train,
    Validation,
    Test,
}

impl Split {
    pub const ALL: [Split; 3] = [Split::Train, Split::Validation, Split::Test];
    pub fn name(self) -> &'static str {
        match self {
            Split::Train => "train",
            Split::Validation => "validation",
            Split::Test => "test",
        }
    }
}

/// Entries of a visit distribution: the 81 points, then pass.
pub const VISIT_SLOTS: usize = NN + 1;

/// What a search said at a self-play position and how its game ended (format version 2).
/// Human records have none.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchTarget {
    /// Root visits of every point, then pass (index 81). Stored as `u16`: a search with more
    /// visits at one move is scaled down so the largest count is 65,535 (the shares stay).
    pub visits: [u16; VISIT_SLOTS],
    /// The root's win rate for the side to move, 0..=1; NaN when the engine gave none.
    pub value: f32,
    /// Simulations the search ran.
    pub simulations: u32,
    /// Each point's owner at the end of the game under area scoring (0 none, 1 black,
    /// 2 white); `None` when the game did not end by two passes (resigned or capped).
    pub ownership: Option<[u8; NN]>,
    /// The final area margin for black, komi included (NaN when not counted).
    pub score: f32,
}

impl SearchTarget {
    /// Total root visits.
    pub fn total_visits(&self) -> u32 {
        self.visits.iter().map(|&v| v as u32).sum()
    }

    /// The visit share of every slot (sums to 1; all 0 when the root had no visit).
    pub fn shares(&self) -> [f32; VISIT_SLOTS] {
        let total = self.total_visits();
        let mut out = [0f32; VISIT_SLOTS];
        if total > 0 {
            for (o, &v) in out.iter_mut().zip(&self.visits) {
                *o = v as f32 / total as f32;
            }
        }
        out
    }

    /// Visit counts from a search's counts per slot, scaled down to fit `u16` when the
    /// largest is above 65,535.
    pub fn visits_from(counts: &[u32; VISIT_SLOTS]) -> [u16; VISIT_SLOTS] {
        let max = counts.iter().copied().max().unwrap_or(0);
        let mut out = [0u16; VISIT_SLOTS];
        for (o, &c) in out.iter_mut().zip(counts) {
            *o = if max <= u16::MAX as u32 {
                c as u16
            } else {
                // Round to nearest, keeping every visited move at least 1.
                let scaled = (c as u64 * u16::MAX as u64 + max as u64 / 2) / max as u64;
                if c > 0 { scaled.max(1) as u16 } else { 0 }
            };
        }
        out
    }
}

/// A teacher's policy share stored as `u16`: the share times this, rounded.
pub const POLICY_SCALE: f32 = 65534.0;
/// The stored policy of a move the teacher calls illegal (and a per-move win rate not asked).
pub const NO_SHARE: u16 = u16::MAX;
/// A per-move score lead not asked or illegal.
pub const NO_SCORE: i16 = i16::MIN;
/// Ownership is stored as black's share of the point times this, rounded (`i8`).
pub const OWNERSHIP_SCALE: f32 = 127.0;

/// What a teacher engine (any program speaking KataGo's JSON analysis protocol) said of a
/// position (format version 3). Values are stored at the precision of the record, so a
/// label read back equals the label written.
#[derive(Debug, Clone, PartialEq)]
pub struct TeacherLabel {
    /// The teacher's policy over the 81 points and pass, each share times
    /// [`POLICY_SCALE`]; [`NO_SHARE`] where the teacher calls the move illegal.
    pub policy: [u16; VISIT_SLOTS],
    /// The win rate for the side to move, 0..=1.
    pub winrate: f32,
    /// The score lead for the side to move, in points.
    pub score_lead: f32,
    /// Visits the teacher's search used (1 = the raw network).
    pub visits: u32,
    /// Each point's expected owner, black's share times [`OWNERSHIP_SCALE`] (-127 white's,
    /// 127 black's).
    pub ownership: [i8; NN],
    /// Every legal move's own value (`--per-move`), when it was asked.
    pub moves: Option<Box<MoveValues>>,
}

/// The teacher's value of playing each move: the win rate and score lead for the mover
/// after it.
#[derive(Debug, Clone, PartialEq)]
pub struct MoveValues {
    /// Win rate times [`POLICY_SCALE`], [`NO_SHARE`] where the move is illegal.
    pub winrate: [u16; VISIT_SLOTS],
    /// Score lead in hundredths of a point, [`NO_SCORE`] where the move is illegal.
    pub score_lead: [i16; VISIT_SLOTS],
}

/// Who labelled a dataset and how (`manifest.json`'s `teacher`, a labelling run's header):
/// two datasets whose teachers differ in any field were labelled by different teachers.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TeacherInfo {
    /// The command that ran the teacher.
    pub command: String,
    /// `version` of its `query_version` answer.
    pub version: String,
    /// `git_hash` of that answer (empty where none).
    #[serde(default)]
    pub git_hash: String,
    /// The networks its `query_models` answer names (empty where it gives none).
    #[serde(default)]
    pub models: Vec<String>,
    /// The checksum of every file the command names (its network and config), keyed by the
    /// path as written.
    #[serde(default)]
    pub files: std::collections::BTreeMap<String, crate::util::checksum::Checksum>,
    /// Visits asked per position.
    pub visits: u32,
    /// Whether every legal move was judged too.
    pub per_move: bool,
    /// The `rules` of every query.
    pub rules: String,
    /// The `komi` of every query: a number, or `game` for each game's own.
    pub komi: String,
}

/// A share 0..=1 as stored (clamped, rounded).
pub fn share_to_u16(share: f32) -> u16 {
    (share.clamp(0.0, 1.0) * POLICY_SCALE).round() as u16
}

/// A score lead in points as stored: hundredths, clamped to the `i16` range but
/// [`NO_SCORE`].
pub fn score_to_i16(points: f32) -> i16 {
    (points * 100.0)
        .round()
        .clamp(i16::MIN as f32 + 1.0, i16::MAX as f32) as i16
}

impl TeacherLabel {
    /// The policy share of a slot (0..=81), `None` where the teacher calls it illegal.
    pub fn policy_share(&self, slot: usize) -> Option<f32> {
        let v = self.policy[slot];
        (v != NO_SHARE).then(|| v as f32 / POLICY_SCALE)
    }

    /// Black's expected share of point `i`, -1..=1.
    pub fn owner_black(&self, i: usize) -> f32 {
        self.ownership[i] as f32 / OWNERSHIP_SCALE
    }

    /// The mover's win rate after playing `slot`, where the teacher judged it.
    pub fn move_winrate(&self, slot: usize) -> Option<f32> {
        let m = self.moves.as_ref()?;
        let v = m.winrate[slot];
        (v != NO_SHARE).then(|| v as f32 / POLICY_SCALE)
    }

    /// The mover's score lead after playing `slot`, where the teacher judged it.
    pub fn move_score(&self, slot: usize) -> Option<f32> {
        let m = self.moves.as_ref()?;
        let v = m.score_lead[slot];
        (v != NO_SCORE).then(|| v as f32 / 100.0)
    }

    /// Each judged move's loss against the best judged move: win rate given up, 0 for the
    /// best; `None` for moves not judged. Empty (all `None`) without per-move values.
    pub fn winrate_losses(&self) -> [Option<f32>; VISIT_SLOTS] {
        let mut out = [None; VISIT_SLOTS];
        let best = (0..VISIT_SLOTS)
            .filter_map(|s| self.move_winrate(s))
            .fold(f32::NEG_INFINITY, f32::max);
        for (s, o) in out.iter_mut().enumerate() {
            *o = self.move_winrate(s).map(|w| best - w);
        }
        out
    }

    /// Each judged move's loss in score lead against the best judged move (points).
    pub fn score_losses(&self) -> [Option<f32>; VISIT_SLOTS] {
        let mut out = [None; VISIT_SLOTS];
        let best = (0..VISIT_SLOTS)
            .filter_map(|s| self.move_score(s))
            .fold(f32::NEG_INFINITY, f32::max);
        for (s, o) in out.iter_mut().enumerate() {
            *o = self.move_score(s).map(|v| best - v);
        }
        out
    }
}

/// A position before a move, and the move that was played there.
#[derive(Debug, Clone, PartialEq)]
pub struct Position {
    /// 0 empty, 1 black, 2 white, flat index `row * 9 + col` (row 0 at the top).
    pub cells: [u8; NN],
    /// 1 black, 2 white.
    pub to_move: u8,
    /// The move played: flat index 0..=80, 81 = pass. The paper's target is 0 here and 1 at
    /// every other point.
    pub played: u8,
    /// 0-based number of this move in its game.
    pub move_number: u16,
    /// The previous moves, newest first: flat index, 81 = pass, [`NO_POINT`] = none.
    pub last_moves: [u8; 4],
    /// The simple-ko point the mover may not take, or [`NO_POINT`].
    pub ko: u8,
    /// The game's winner: 0 unknown or draw, 1 black, 2 white.
    pub winner: u8,
    /// Numeric ranks (1k = 0, 2k = -1, 1d = 1, ...; `i8::MIN` = unknown).
    pub black_rank: i8,
    pub white_rank: i8,
    /// Index of the game in the dataset's game table (the manifest lists ids and sources).
    pub game: u32,
    /// The search's view and the game's end, for self-play records (boxed: human datasets,
    /// millions of positions, carry only the pointer).
    pub search: Option<Box<SearchTarget>>,
    /// What a teacher engine said of the position (format version 3): its policy, value,
    /// score lead, ownership and, where asked, every legal move's own value.
    pub teacher: Option<Box<TeacherLabel>>,
}

impl Position {
    pub fn color(&self) -> Color {
        if self.to_move == 2 {
            Color::White
        } else {
            Color::Black
        }
    }

    /// The move played.
    pub fn played_move(&self) -> Move {
        Move::from_index(self.played as usize).expect("stored moves are valid")
    }

    /// Rebuilds the board (chains, liberties, hash) from the cells. The ko point is not part
    /// of it: check `ko` before playing.
    pub fn board(&self) -> Board {
        // Positions come from replayed games or from `decode`, which checks the stones.
        Board::from_cells(&self.cells, [0, 0]).expect("a position's stones have liberties")
    }

    /// Whether the side to move may play at each point under akushu's rules: not on a
    /// stone, not a suicide, not the simple-ko point (what the networks' softmax masks).
    pub fn legal_points(&self) -> [bool; NN] {
        let board = self.board();
        let color = self.color();
        std::array::from_fn(|i| {
            i as u8 != self.ko && board.is_legal(color, crate::rules::Point::new(i))
        })
    }

    /// The paper's target vector: 0 at the played point, 1 everywhere else.
    pub fn target(&self) -> [u8; NN] {
        let mut t = [1u8; NN];
        if (self.played as usize) < NN {
            t[self.played as usize] = 0;
        }
        t
    }
}
