//! The kake-me test, the dame test and the defender extension (paper C in `docs/papers.md`).
//! Kake-me is Japanese for a false eye, but the test marks useless moves, not false eyes: the
//! empty points of regions the invader cannot live in (`board_analysis::eyes` tells real eyes from
//! false ones).
//!
//! 1. **Weak stones out.** A chain counts as alive when it touches two *eye regions* of its
//!    colour: connected areas of points that are not its colour's alive stones and hold no
//!    opponent stone. Chains touching fewer are dropped and the regions recomputed until
//!    nothing changes (Benson's iteration with a lenient eye; this is "stones that already
//!    have two eyes").
//! 2. **Enclosed regions.** Every eye region of the final iteration is enclosed by one
//!    colour's alive stones (the *owner*) and the edge.
//! 3. **Can the invader live?** Points that can never become the invader's eye are erased: a
//!    point next to an alive owner stone, or with two or more alive owner stones diagonally
//!    (one or more on the edge or in the corner). Three or more remaining points, or two that
//!    are not adjacent, mean two eyes are possible.
//! 4. **Prune.** If the invader cannot live, every point of the region is removed from the
//!    candidate moves of both colours; otherwise all of it stays.
//!
//! Exactness notes (why the solver's result does not change): a region holding opponent
//! stones is never pruned, because pruning would forbid capturing them and area scoring
//! would count them; only alive owner stones erase eye points, so weak owner stones that the
//! invader might capture make the test more cautious, never less. In positions without ko
//! the pruned moves are filling one's own territory (worth nothing under area scoring) or an
//! invasion that is captured. The dame test is for the Monte-Carlo pruner only: under area
//! scoring every dame is worth a point, so the solver never uses it.

use crate::prune::{PruneContext, Pruner};
use crate::rules::tables::{DIAGONAL_MASK, NEIGHBOUR_MASK, flood, grow};
use crate::rules::{BOARD, BitIter, Bits, Board, Color, Move, NN, Point, bit};

/// Switches of the kake-me pruner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct KakemeConfig {
    /// Remove the points of regions the invader cannot live in (steps 1-4).
    pub kakeme: bool,
    /// Also remove dame: points outside enclosed regions that can never become an eye for
    /// either colour, nor can any of their 8 neighbours (not exact under area scoring).
    pub dame: bool,
    /// Look 2 moves ahead and also remove the points the kake-me test marks there.
    pub defender: bool,
}

impl Default for KakemeConfig {
    fn default() -> Self {
        KakemeConfig {
            kakeme: true,
            dame: false,
            defender: false,
        }
    }
}

/// Connected components of `within`.
fn components(mut within: Bits) -> Vec<Bits> {
    let mut out = Vec::new();
    while within != 0 {
        let seed = within & within.wrapping_neg();
        let comp = flood(seed, within);
        within &= !comp;
        out.push(comp);
    }
    out
}

/// Alive stones of `c` (step 1) and the eye regions they enclose. An eye region is a
/// connected area of points that are not `c`'s alive stones and either holds no opponent
/// stone or holds only opponent stones that cannot live there (step 3 applied to them: they
/// do not have two eyes, so step 1 removes them).
pub fn alive_and_regions(board: &Board, c: Color) -> (Bits, Vec<Bits>) {
    let opp = board.stones(c.opponent());
    let mut chains = components(board.stones(c));
    loop {
        let alive: Bits = chains.iter().fold(0, |m, &ch| m | ch);
        let regions: Vec<Bits> = components(BOARD & !alive)
            .into_iter()
            .filter(|&r| r & opp == 0 || !two_eyes_possible(possible_eyes(r, alive)))
            .collect();
        let before = chains.len();
        chains.retain(|&ch| {
            let touch = grow(ch);
            regions.iter().filter(|&&r| r & touch != 0).count() >= 2
        });
        if chains.len() == before {
            return (alive, regions);
        }
    }
}

/// Points of `region` that could still become an eye of the invader, given the owner's
/// alive stones (step 3).
pub fn possible_eyes(region: Bits, owner_alive: Bits) -> Bits {
    let mut eyes = 0;
    for i in BitIter(region) {
        if NEIGHBOUR_MASK[i] & owner_alive != 0 {
            continue;
        }
        let diag = DIAGONAL_MASK[i];
        let bad = (diag & owner_alive).count_ones();
        let limit = if diag.count_ones() < 4 { 1 } else { 2 };
        if bad >= limit {
            continue;
        }
        eyes |= bit(i);
    }
    eyes
}

/// Whether two eyes fit in the possible eye points.
pub fn two_eyes_possible(eyes: Bits) -> bool {
    match eyes.count_ones() {
        0 | 1 => false,
        2 => {
            let i = eyes.trailing_zeros() as usize;
            NEIGHBOUR_MASK[i] & eyes == 0
        }
        _ => true,
    }
}

/// A region the invader cannot live in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeadRegion {
    pub owner: Color,
    pub points: Bits,
}

/// Every region enclosed by one colour's alive stones in which the other colour cannot live.
pub fn dead_regions(board: &Board) -> Vec<DeadRegion> {
    let mut out = Vec::new();
    for owner in [Color::Black, Color::White] {
        let (alive, regions) = alive_and_regions(board, owner);
        let invader = board.stones(owner.opponent());
        for r in regions {
            // a region holding invader stones stays: pruning would forbid capturing them
            if r & invader == 0 && !two_eyes_possible(possible_eyes(r, alive)) {
                out.push(DeadRegion { owner, points: r });
            }
        }
    }
    out
}

/// The kake-me test: the empty points of every dead region (steps 1-4).
pub fn kakeme_mask(board: &Board) -> Bits {
    let empty = board.empty_bits();
    dead_regions(board)
        .iter()
        .fold(0, |m, r| m | (r.points & empty))
}

/// Empty points that can never become an eye of `c`.
fn never_eye(board: &Board, c: Color) -> Bits {
    let opp = board.stones(c.opponent());
    let mut out = 0;
    for i in BitIter(board.empty_bits()) {
        let diag = DIAGONAL_MASK[i];
        let bad = (diag & opp).count_ones();
        let limit = if diag.count_ones() < 4 { 1 } else { 2 };
        if NEIGHBOUR_MASK[i] & opp != 0 || bad >= limit {
            out |= bit(i);
        }
    }
    out
}

/// The dame test: empty points outside every enclosed region that can become an eye for
/// neither colour, and whose empty 8-neighbours cannot either.
pub fn dame_mask(board: &Board) -> Bits {
    let mut enclosed = 0;
    for c in [Color::Black, Color::White] {
        for r in alive_and_regions(board, c).1 {
            enclosed |= r;
        }
    }
    let empty = board.empty_bits();
    let no_eye = never_eye(board, Color::Black) & never_eye(board, Color::White);
    let mut out = 0;
    for i in BitIter(empty & !enclosed & no_eye) {
        let around = (NEIGHBOUR_MASK[i] | DIAGONAL_MASK[i]) & empty;
        if around & !no_eye == 0 {
            out |= bit(i);
        }
    }
    out
}

/// Legal moves of `c` outside `pruned`.
fn legal_outside(board: &Board, c: Color, pruned: Bits) -> Vec<Point> {
    BitIter(board.empty_bits() & !pruned)
        .map(Point::new)
        .filter(|&p| board.is_legal(c, p))
        .collect()
}

/// The defender extension: look 2 moves ahead and also remove the points the kake-me test
/// marks there. For each colour as the *attacker* moving first (the other is the
/// *defender*), a point `p` is removed when some defender move `d` would seal `p` into a
/// dead region (the kake-me test marks `p` after `d`) and the attacker cannot stop it:
/// whatever other move (or pass) the attacker makes, the defender has a reply (or pass)
/// after which the kake-me test marks `p`. Attacker moves strictly inside the region `d`
/// would seal (every neighbour in it or a defender stone) are not asked about: they are the
/// invasions the kake-me test itself calls useless. The union over both attackers is
/// returned, without the kake-me marks of the position itself. Cost: about
/// 2 x candidates^2 kake-me tests, which is why the solver runs it once, at the root.
pub fn defender_mask(board: &Board, _to_move: Color) -> Bits {
    let now = kakeme_mask(board);
    attacker_first(board, Color::Black, now) | attacker_first(board, Color::White, now)
}

/// Legal moves of `c` outside `pruned`, plus pass.
fn moves_and_pass(board: &Board, c: Color, pruned: Bits) -> Vec<Move> {
    legal_outside(board, c, pruned)
        .into_iter()
        .map(Move::Play)
        .chain([Move::Pass])
        .collect()
}

/// The defender extension with `attacker` moving first.
fn attacker_first(board: &Board, attacker: Color, now: Bits) -> Bits {
    let defender = attacker.opponent();
    let defender_stones = board.stones(defender);
    // what each defender move would seal
    let seals: Vec<Bits> = legal_outside(board, defender, now)
        .into_iter()
        .map(|d| {
            let mut b = *board;
            b.play_legal(defender, d);
            kakeme_mask(&b) & !now
        })
        .filter(|&m| m != 0)
        .collect();
    let targets = seals.iter().fold(0, |m, &s| m | s);
    if targets == 0 {
        return 0;
    }
    // replies[k] = points marked after attacker move k and some defender reply
    let attacks = moves_and_pass(board, attacker, now);
    let mut replies = Vec::with_capacity(attacks.len());
    for &m in &attacks {
        let mut b1 = *board;
        b1.play_move(attacker, m)
            .expect("generated moves are legal");
        let k1 = kakeme_mask(&b1);
        let mut marks = 0;
        for r in moves_and_pass(&b1, defender, k1) {
            let mut b2 = b1;
            b2.play_move(defender, r)
                .expect("generated moves are legal");
            marks |= kakeme_mask(&b2);
        }
        replies.push((m, marks));
    }
    let mut out = 0;
    for p in BitIter(targets) {
        let holds = seals.iter().filter(|&&s| s & bit(p) != 0).any(|&seal| {
            replies.iter().all(|&(m, marks)| match m {
                Move::Play(q) if q.index() == p => true,
                Move::Play(q) if NEIGHBOUR_MASK[q.index()] & !(seal | defender_stones) == 0 => {
                    true // an invasion strictly inside the sealed region
                }
                _ => marks & bit(p) != 0,
            })
        });
        if holds {
            out |= bit(p);
        }
    }
    out
}

/// The kake-me pruner behind the common [`Pruner`] interface: points the kake-me test
/// removes score 1.0, dame 0.5, points only the defender extension removes 0.75, others 0.
#[derive(Debug, Clone, Copy, Default)]
pub struct KakemePruner {
    config: KakemeConfig,
}

impl KakemePruner {
    pub fn new(config: KakemeConfig) -> KakemePruner {
        KakemePruner { config }
    }

    pub fn config(&self) -> &KakemeConfig {
        &self.config
    }

    /// Every point this pruner removes for `to_move` (union of the enabled tests).
    pub fn removed(&self, board: &Board, to_move: Color) -> Bits {
        let mut m = 0;
        if self.config.kakeme {
            m |= kakeme_mask(board);
        }
        if self.config.dame {
            m |= dame_mask(board);
        }
        if self.config.defender {
            m |= defender_mask(board, to_move);
        }
        m
    }
}

impl Pruner for KakemePruner {
    fn name(&self) -> String {
        let mut parts = Vec::new();
        if self.config.kakeme {
            parts.push("kakeme");
        }
        if self.config.dame {
            parts.push("dame");
        }
        if self.config.defender {
            parts.push("defender");
        }
        if parts.is_empty() {
            "kakeme:off".into()
        } else {
            parts.join("+")
        }
    }

    fn reads_history(&self) -> bool {
        false
    }

    fn badness(&self, ctx: &PruneContext<'_>, out: &mut [f32; NN]) {
        out.fill(0.0);
        let b = ctx.board;
        if self.config.defender {
            for i in BitIter(defender_mask(b, ctx.to_move)) {
                out[i] = 0.75;
            }
        }
        if self.config.dame {
            for i in BitIter(dame_mask(b)) {
                out[i] = out[i].max(0.5);
            }
        }
        if self.config.kakeme {
            for i in BitIter(kakeme_mask(b)) {
                out[i] = 1.0;
            }
        }
    }
}
