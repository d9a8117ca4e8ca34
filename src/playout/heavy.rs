//! Heavy playouts: MoGo-style local replies instead of uniformly random moves.
//!
//! Light playouts (the paper's) treat every legal point alike, so a playout rarely captures
//! a chain in atari or saves its own: the results are noisy and the engine misjudges any
//! fight. The heavy policy answers the last moves first, as MoGo, Pachi's "moggy" and michi
//! do, each rule taken with a probability so that playouts stay varied:
//!
//! 1. **Atari** (probability [`HeavyConfig::p_atari`]): around the last two moves, capture an
//!    opponent chain in atari, or save an own chain in atari by capturing a neighbour in
//!    atari or extending to a point that gives it two liberties or more.
//!    Failing that (probability [`HeavyConfig::p_global_atari`]), the same anywhere.
//! 2. **Shape** (probability [`HeavyConfig::p_pattern`]): an empty point next to the last two
//!    moves that matches a 3x3 pattern ([`super::patterns`]).
//! 3. **Random**: a uniformly random legal move that does not fill the mover's own eye.
//!
//! With [`HeavyConfig::ladders`], rule 1 also reads ladders ([`super::ladder`]): an
//! extension that a ladder catches is no escape, and after it (same probability) an atari
//! that catches an opponent chain next to the last moves in a ladder is played.
//!
//! With [`HeavyConfig::semeai`], rule 1 goes on (same probability) to chains of two
//! liberties next to the last moves, as Pachi's moggy does ([`two_liberty_moves`]): the
//! mover gives atari to an opponent chain with two liberties that cannot simply extend out
//! of it, and for an own chain with two liberties gains liberties or takes one from a
//! neighbouring opponent chain with two. One-ply atari rules see a capturing race only once
//! a chain is in atari, by which time the side to move has already lost it.
//!
//! Any proposed move that leaves a chain of two or more stones in atari without capturing
//! (a self-atari) is refused with probability [`HeavyConfig::p_reject_self_atari`] (heuristic
//! moves) or [`HeavyConfig::p_reject_random_self_atari`] (random moves; lower, so that
//! nakade throw-ins still happen). Single-stone self-ataris are allowed: they are the
//! throw-ins and nakade the playouts need.

use crate::rules::tables::{NEIGHBOUR_MASK, grow};
use crate::rules::{BOARD, BitIter, Bits, Board, Color, NN, Point, bit};
use crate::util::rng::FastRng;

use super::PlayoutPolicy;
use super::patterns::{AREA3, is_pattern_move};

/// Probabilities of the heavy playout's rules (michi's values by default).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct HeavyConfig {
    /// Chance of looking for capture / atari-escape moves around the last moves.
    pub p_atari: f32,
    /// Chance of looking for captures and atari escapes anywhere on the board when there
    /// are none around the last moves (a chain left in atari far from the last moves is
    /// otherwise ignored, and the playouts stop punishing a move that does not capture it).
    pub p_global_atari: f32,
    /// Chance of looking for 3x3 pattern moves around the last moves.
    pub p_pattern: f32,
    /// Chance of refusing a heuristic move that is a self-atari of two or more stones.
    pub p_reject_self_atari: f32,
    /// Chance of refusing a random move that is a self-atari of two or more stones.
    pub p_reject_random_self_atari: f32,
    /// Read ladders ([`super::ladder`]): an extension out of atari that a ladder catches is
    /// no escape move, an atari that starts a working ladder near the last moves is played
    /// after captures and escapes, and the priors count both. Off by default so that the
    /// committed strong-engine runs without ladder reading replay as they were played.
    pub ladders: bool,
    /// Play two-liberty fights ([`two_liberty_moves`]) after captures and atari escapes:
    /// capturing races (semeai) that one-ply atari rules lose. Off by default so that the
    /// committed runs without it replay as they were played.
    pub semeai: bool,
}

impl Default for HeavyConfig {
    fn default() -> Self {
        HeavyConfig {
            p_atari: 0.9,
            p_global_atari: 0.9,
            p_pattern: 0.95,
            p_reject_self_atari: 0.9,
            p_reject_random_self_atari: 0.5,
            ladders: false,
            semeai: false,
        }
    }
}

/// The heavy playout policy. It remembers the last two moves it made (one per colour: the
/// same policy plays both sides); seed them with [`Heavy::new`] from the moves that led to
/// the playout's start position.
#[derive(Debug, Clone, Copy)]
pub struct Heavy {
    pub config: HeavyConfig,
    /// The most recent move first (`None` = a pass or unknown).
    last: [Option<Point>; 2],
}

impl Heavy {
    /// `last` = the move that led to the start position, then the one before it.
    pub fn new(config: HeavyConfig, last: [Option<Point>; 2]) -> Heavy {
        Heavy { config, last }
    }

    fn remember(&mut self, p: Option<Point>) {
        self.last = [p, self.last[0]];
    }

    /// The 3x3 neighbourhoods of the last two moves, as a mask of points.
    fn local_area(&self) -> Bits {
        self.last
            .iter()
            .flatten()
            .fold(0, |m, p| m | AREA3[p.index()])
    }

    /// Tries the candidates in random order; the first playable, accepted one wins.
    fn try_candidates(
        &self,
        board: &Board,
        color: Color,
        cand: &mut [u8],
        rng: &mut FastRng,
    ) -> Option<Point> {
        let mut n = cand.len();
        while n > 0 {
            let k = rng.below(n as u32) as usize;
            let p = Point::new(cand[k] as usize);
            cand.swap(k, n - 1);
            n -= 1;
            if playable(board, color, p)
                && !((big_self_atari(board, color, p)
                    || (self.config.ladders && runs_into_ladder(board, color, p)))
                    && rng.unit() < self.config.p_reject_self_atari as f64)
            {
                return Some(p);
            }
        }
        None
    }
}

impl PlayoutPolicy for Heavy {
    fn choose(&mut self, board: &mut Board, color: Color, rng: &mut FastRng) -> Option<Point> {
        let area = self.local_area();
        // the chains in atari, found once for the rules that ask (usually none)
        let in_atari = board.atari_chains();
        let mut found = None;
        if area != 0 && rng.unit() < self.config.p_atari as f64 && in_atari != 0 {
            let mut cand = [0u8; NN];
            let chains = in_atari & board.chain_reps(area & stones_of_both(board));
            let n = atari_moves_among(board, color, chains, self.config.ladders, &mut cand);
            found = self.try_candidates(board, color, &mut cand[..n], rng);
        }
        if found.is_none() && self.config.ladders && area != 0 {
            // chase the opponent's two-liberty chains near the last moves into a ladder
            let mut cand = [0u8; NN];
            let n = write_points(super::ladder::ladder_ataris(board, color, area), &mut cand);
            found = self.try_candidates(board, color, &mut cand[..n], rng);
        }
        if found.is_none()
            && self.config.semeai
            && area != 0
            && rng.unit() < self.config.p_atari as f64
        {
            let mut cand = [0u8; NN];
            let n = two_liberty_moves(board, color, area, &mut cand);
            found = self.try_candidates(board, color, &mut cand[..n], rng);
        }
        if found.is_none() && in_atari != 0 && rng.unit() < self.config.p_global_atari as f64 {
            let mut cand = [0u8; NN];
            let n = atari_moves_among(board, color, in_atari, self.config.ladders, &mut cand);
            found = self.try_candidates(board, color, &mut cand[..n], rng);
        }
        if found.is_none() && area != 0 && rng.unit() < self.config.p_pattern as f64 {
            let mut cand = [0u8; NN];
            let mut n = 0;
            for i in BitIter(area & board.empty_bits()) {
                if is_pattern_move(board, Point::new(i)) {
                    cand[n] = i as u8;
                    n += 1;
                }
            }
            found = self.try_candidates(board, color, &mut cand[..n], rng);
        }
        if found.is_none() {
            found = random_move(board, color, self.config.p_reject_random_self_atari, rng);
        }
        self.remember(found);
        found
    }
}

/// A uniformly random playable move, refusing big self-ataris with probability `p_reject`
/// (each refused point is left out of the following draws); `None` = pass.
fn random_move(board: &mut Board, color: Color, p_reject: f32, rng: &mut FastRng) -> Option<Point> {
    let mut allowed = BOARD;
    loop {
        let p = board.random_move(color, allowed, rng)?;
        if !big_self_atari(board, color, p) || rng.unit() >= p_reject as f64 {
            return Some(p);
        }
        allowed &= !bit(p.index());
    }
}

/// Stones of both colours.
#[inline(always)]
fn stones_of_both(board: &Board) -> Bits {
    board.stones(Color::Black) | board.stones(Color::White)
}

/// Legal for `color` and not its own eye (the light playout's candidate rule).
#[inline]
pub fn playable(board: &Board, color: Color, p: Point) -> bool {
    board.is_candidate(color, p)
}

/// Liberties `color`'s chain at the empty point `p` would have after playing there, and
/// whether the move captures. Cheaper than playing the move: the new chain's liberties are
/// the empty neighbours plus the liberties of the own chains it joins, minus `p`.
pub fn liberties_after(board: &Board, color: Color, p: Point) -> (Bits, bool) {
    let mut libs = NEIGHBOUR_MASK[p.index()] & board.empty_bits();
    let mut captures = false;
    for n in BitIter(NEIGHBOUR_MASK[p.index()]) {
        let q = Point::new(n);
        match board.color_at(q) {
            Some(c) if c == color => libs |= board.chain_liberties(q),
            Some(_) => captures |= board.atari_liberty(q).is_some(),
            None => {}
        }
    }
    (libs & !bit(p.index()), captures)
}

/// Stones of `color`'s chain after playing `p` (the stone and the own chains it joins).
fn stones_after(board: &Board, color: Color, p: Point) -> Bits {
    let mut s = bit(p.index());
    for n in BitIter(NEIGHBOUR_MASK[p.index()]) {
        let q = Point::new(n);
        if board.color_at(q) == Some(color) && s & bit(n) == 0 {
            s |= board.chain_stones(q);
        }
    }
    s
}

/// `p` is the last liberty of one of `color`'s chains and extending there runs into a
/// ladder that catches it (refused like a self-atari: it only adds stones to a dead chain).
fn runs_into_ladder(board: &Board, color: Color, p: Point) -> bool {
    BitIter(NEIGHBOUR_MASK[p.index()]).any(|n| {
        let q = Point::new(n);
        board.color_at(q) == Some(color) && board.atari_liberty(q) == Some(p)
    }) && super::ladder::escape_is_caught(board, color, p)
}

/// A self-atari of two or more stones (single-stone ones are allowed: throw-ins, nakade).
pub fn big_self_atari(board: &Board, color: Color, p: Point) -> bool {
    board.is_self_atari_fast(color, p) && stones_after(board, color, p).count_ones() >= 2
}

/// Capture and atari-escape moves for `color` around the chains that touch `area`:
/// the liberty of every opponent chain in atari, and for every own chain in atari the
/// liberties of the opponent chains next to it that are in atari and its own liberty when
/// extending there leaves two liberties or more (and, with `ladders`, no ladder catches it).
/// Writes them (without duplicates) into `out`; returns how many.
pub fn atari_moves(
    board: &Board,
    color: Color,
    area: Bits,
    ladders: bool,
    out: &mut [u8; NN],
) -> usize {
    // Only chains that can be in atari, and (unless the area is the whole board) those
    // with a stone in the area.
    let mut chains = board.atari_chains();
    if area & BOARD != BOARD {
        chains &= board.chain_reps(area & stones_of_both(board));
    }
    atari_moves_among(board, color, chains, ladders, out)
}

/// [`atari_moves`] for the chains named by their representatives in `chains` (any set of
/// representatives: chains not in atari are skipped). The answer is a set, so the order in
/// which the chains are read does not matter.
fn atari_moves_among(
    board: &Board,
    color: Color,
    chains: Bits,
    ladders: bool,
    out: &mut [u8; NN],
) -> usize {
    let mut moves: Bits = 0;
    for r in BitIter(chains) {
        let q = Point::new(r);
        let Some(lib) = board.atari_liberty(q) else {
            continue;
        };
        if board.color_at(q) != Some(color) {
            moves |= bit(lib.index());
            continue;
        }
        // Own chain in atari: capture a neighbour in atari, or extend.
        let chain = board.chain_stones(q);
        let around = grow(chain) & !chain & board.stones(color.opponent());
        for r in board.each_chain(around) {
            if let Some(l) = board.atari_liberty(r) {
                moves |= bit(l.index());
            }
        }
        let libs = liberties_after(board, color, lib).0.count_ones();
        if libs >= 3
            || (libs == 2 && !(ladders && super::ladder::escape_is_caught(board, color, lib)))
        {
            moves |= bit(lib.index());
        }
    }
    write_points(moves & BOARD, out)
}

/// Two-liberty fight moves for `color` around the chains with a stone in `area` (moggy's
/// "2lib" check): for an opponent chain with two liberties, the ataris of
/// [`safe_ataris`]; for an own chain with two liberties, its liberties where extending
/// gives three liberties or more, and the safe ataris on every neighbouring opponent chain
/// with two liberties (in a capturing race, taking a liberty from the opponent is as good
/// as gaining one). Writes them (without duplicates) into `out`; returns how many.
pub fn two_liberty_moves(board: &Board, color: Color, area: Bits, out: &mut [u8; NN]) -> usize {
    // a chain with two liberties has at most eight pseudo-liberties: the cheap first filter
    let chains = board.low_liberty_chains(8) & board.chain_reps(area & stones_of_both(board));
    let mut moves: Bits = 0;
    for r in BitIter(chains) {
        let q = Point::new(r);
        let (chain, next_to) = board.chain_and_neighbours(q);
        let libs = next_to & board.empty_bits();
        if libs.count_ones() != 2 {
            continue;
        }
        if board.color_at(q) != Some(color) {
            moves |= safe_ataris(board, color, libs);
            continue;
        }
        for l in BitIter(libs) {
            if liberties_after(board, color, Point::new(l)).0.count_ones() >= 3 {
                moves |= bit(l);
            }
        }
        let around = next_to & !chain & board.stones(color.opponent());
        for r in board.each_chain(around) {
            let their = board.chain_liberties(r);
            if their.count_ones() == 2 {
                moves |= safe_ataris(board, color, their);
            }
        }
    }
    write_points(moves & BOARD, out)
}

/// The points of `libs` (the two liberties of an opponent chain) where `color` gives atari
/// without putting its own stone in atari (unless it captures), and after which the chain
/// cannot extend at its other liberty to three liberties or more: an atari the opponent
/// simply runs from only strengthens it.
fn safe_ataris(board: &Board, color: Color, libs: Bits) -> Bits {
    let mut m = 0;
    for l in BitIter(libs) {
        let at = Point::new(l);
        let (own, captures) = liberties_after(board, color, at);
        if own.count_ones() < 2 && !captures {
            continue;
        }
        let other = Point::new((libs & !bit(l)).trailing_zeros() as usize);
        let escape = liberties_after(board, color.opponent(), other).0 & !bit(l);
        if escape.count_ones() < 3 {
            m |= bit(l);
        }
    }
    m
}

/// Writes the points of `points` into `out` in index order; returns how many.
fn write_points(points: Bits, out: &mut [u8; NN]) -> usize {
    let mut n = 0;
    for i in BitIter(points) {
        out[n] = i as u8;
        n += 1;
    }
    n
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Black stones around white D5, whose only liberty is E5 (shared by the priors tests).
    pub(crate) const WHITE_D5_IN_ATARI: &str = ".........\n\
         .........\n\
         .........\n\
         ...X.....\n\
         ..XO.....\n\
         ...X.....\n\
         .........\n\
         .........\n\
         .........";
    use crate::playout::{self, PlayoutConfig};
    use crate::rules::Move;

    fn pt(gtp: &str) -> Point {
        Move::from_gtp(gtp).unwrap().point().unwrap()
    }

    fn moves_of(board: &Board, color: Color, area: Bits) -> Vec<Point> {
        let mut out = [0u8; NN];
        let n = atari_moves(board, color, area, false, &mut out);
        out[..n].iter().map(|&i| Point::new(i as usize)).collect()
    }

    #[test]
    fn finds_captures_and_escapes_near_the_last_move() {
        // White D5 is in atari (liberty E5); black B2 is in atari (liberty B1), and
        // extending to B1 gives it two liberties (A1, C1).
        let b = Board::from_diagram(
            ".........\n\
             .........\n\
             .........\n\
             ...X.....\n\
             ..XO.....\n\
             ...X.....\n\
             .O.......\n\
             OXO......\n\
             .........",
        )
        .unwrap();
        let black = moves_of(&b, Color::Black, BOARD);
        assert!(black.contains(&pt("E5")), "capture D5: {black:?}");
        assert!(black.contains(&pt("B1")), "escape B2: {black:?}");
        assert_eq!(black.len(), 2, "{black:?}");
        let white = moves_of(&b, Color::White, BOARD);
        assert!(
            white.contains(&pt("E5")),
            "white saves D5 by extending: {white:?}"
        );
        assert!(white.contains(&pt("B1")), "white captures B2: {white:?}");
        // Only chains touching the area count.
        assert!(moves_of(&b, Color::Black, bit(pt("J9").index())).is_empty());
        assert_eq!(
            moves_of(&b, Color::Black, bit(pt("B2").index())),
            vec![pt("B1")]
        );
    }

    #[test]
    fn atari_liberty_agrees_with_the_liberty_set() {
        // positions along random playouts: every stone's chain, both answers
        let mut rng = FastRng::new(3);
        let mut checked = 0;
        for _ in 0..50 {
            let mut b = Board::new();
            let mut c = Color::Black;
            for _ in 0..120 {
                for i in BitIter(b.stones(Color::Black) | b.stones(Color::White)) {
                    let p = Point::new(i);
                    let libs = b.chain_liberties(p);
                    let want = (libs.count_ones() == 1)
                        .then(|| Point::new(libs.trailing_zeros() as usize));
                    assert_eq!(b.atari_liberty(p), want);
                    checked += usize::from(want.is_some());
                }
                if b.play_random(c, BOARD, &mut rng).is_none() {
                    break;
                }
                c = c.opponent();
            }
        }
        assert!(checked > 100, "only {checked} chains in atari seen");
    }

    /// Self-atari from [`liberties_after`] (which the escape rule uses), to check it
    /// against the board's own answer.
    fn is_self_atari(board: &Board, color: Color, p: Point) -> bool {
        let (libs, captures) = liberties_after(board, color, p);
        !captures && libs.count_ones() <= 1
    }

    #[test]
    fn self_atari_is_detected_without_playing() {
        let b = Board::from_diagram(
            ".........\n\
             .........\n\
             .........\n\
             .........\n\
             .........\n\
             .........\n\
             OOO......\n\
             XX.O.....\n\
             .XO......",
        )
        .unwrap();
        // Black C2 would connect A2-B2-B1 into a chain with the single liberty A1.
        assert!(is_self_atari(&b, Color::Black, pt("C2")));
        assert!(big_self_atari(&b, Color::Black, pt("C2")));
        // Black A1 fills its last liberty area but the chain keeps C2: atari, big.
        // Compare with the real move on a copy for every empty point and both colours.
        for i in BitIter(b.empty_bits()) {
            let p = Point::new(i);
            for c in [Color::Black, Color::White] {
                if !b.is_legal(c, p) {
                    continue;
                }
                assert_eq!(is_self_atari(&b, c, p), b.is_self_atari(c, p), "{c:?} {p}");
            }
        }
    }

    #[test]
    fn heavy_playouts_finish_and_are_deterministic() {
        let cfg = PlayoutConfig::default();
        let run = |seed| {
            let mut rng = FastRng::new(seed);
            let mut out = Vec::new();
            for _ in 0..200 {
                let mut b = Board::new();
                let mut h = Heavy::new(HeavyConfig::default(), [None, None]);
                let r = playout::run(&mut b, Color::Black, &mut h, &mut rng, &cfg, |_, _| {});
                b.check_invariants().unwrap();
                out.push((r.moves, r.margin));
            }
            out
        };
        let a = run(5);
        assert_eq!(a, run(5));
        assert!(a.iter().any(|r| r.1 > 0.0) && a.iter().any(|r| r.1 < 0.0));
    }

    #[test]
    fn heavy_playout_captures_a_chain_in_atari() {
        // Black to move; white's last move D5 is in atari: with p_atari = 1 black captures.
        let b = Board::from_diagram(WHITE_D5_IN_ATARI).unwrap();
        let cfg = HeavyConfig {
            p_atari: 1.0,
            ..HeavyConfig::default()
        };
        for seed in 0..20 {
            let mut board = b;
            let mut h = Heavy::new(cfg, [Some(pt("D5")), None]);
            let mut rng = FastRng::new(seed);
            assert_eq!(h.choose(&mut board, Color::Black, &mut rng), Some(pt("E5")));
        }
    }

    /// A corner capturing race: white A3-B3-C3-C2-C1 (liberties A2, D1) against black
    /// B2-B1 (liberties A2, A1); black's outer wall has many liberties.
    const CORNER_SEMEAI: &str = ".........\n\
         .........\n\
         .........\n\
         .........\n\
         .........\n\
         XXXX.....\n\
         OOOX.....\n\
         .XOX.....\n\
         .XO......";

    fn two_lib_moves_of(board: &Board, color: Color, area: Bits) -> Vec<Point> {
        let mut out = [0u8; NN];
        let n = two_liberty_moves(board, color, area, &mut out);
        out[..n].iter().map(|&i| Point::new(i as usize)).collect()
    }

    #[test]
    fn two_liberty_moves_win_the_capturing_race() {
        let b = Board::from_diagram(CORNER_SEMEAI).unwrap();
        assert_eq!(b.liberty_count(pt("C1")), 2);
        assert_eq!(b.liberty_count(pt("B1")), 2);
        // Black ataris from outside (D1); A2 would put its own chain in atari, and no
        // extension gains it a third liberty.
        assert_eq!(two_lib_moves_of(&b, Color::Black, BOARD), vec![pt("D1")]);
        // White ataris at A2 (A1 would be a self-atari; D1 gives only two liberties).
        assert_eq!(two_lib_moves_of(&b, Color::White, BOARD), vec![pt("A2")]);
        // only chains with a stone in the area count
        assert!(two_lib_moves_of(&b, Color::Black, bit(pt("J9").index())).is_empty());
    }

    #[test]
    fn two_liberty_moves_skip_ataris_the_chain_runs_from() {
        // White D4-D3 has liberties E3 and D2. Black E3 lets white extend to D2 with four
        // liberties; black D2 leaves E3, a one-liberty extension: only D2 is offered.
        // White's own answer is the extension to D2.
        let b = Board::from_diagram(
            ".........\n\
             .........\n\
             .........\n\
             .........\n\
             ...X.....\n\
             ..XOX....\n\
             ..XO.X...\n\
             .........\n\
             .........",
        )
        .unwrap();
        let area = AREA3[pt("D3").index()];
        assert_eq!(two_lib_moves_of(&b, Color::Black, area), vec![pt("D2")]);
        assert_eq!(two_lib_moves_of(&b, Color::White, area), vec![pt("D2")]);
    }

    #[test]
    fn with_semeai_the_playout_takes_the_race() {
        let b = Board::from_diagram(CORNER_SEMEAI).unwrap();
        // no 3x3 shapes: D1 matches one, and the test is about the race rule alone
        let one_ply = HeavyConfig {
            p_atari: 1.0,
            p_pattern: 0.0,
            ..HeavyConfig::default()
        };
        let racing = HeavyConfig {
            semeai: true,
            ..one_ply
        };
        let first = |cfg: HeavyConfig, seed: u64| {
            let mut board = b;
            let mut h = Heavy::new(cfg, [Some(pt("C1")), None]);
            h.choose(&mut board, Color::Black, &mut FastRng::new(seed))
        };
        for seed in 0..20 {
            assert_eq!(first(racing, seed), Some(pt("D1")), "seed {seed}");
        }
        let other = (0..20)
            .filter(|&seed| first(one_ply, seed) != Some(pt("D1")))
            .count();
        assert!(other > 0, "without the rule black found D1 every time");
    }

    #[test]
    fn with_ladders_the_playout_chases_and_does_not_run() {
        // Black D4 in atari at E4 in a working ladder (GNU Go reads it so; see ladder.rs).
        let b = crate::playout::ladder::tests::ladder_with(".........");
        let one_ply = HeavyConfig {
            p_atari: 1.0,
            ..HeavyConfig::default()
        };
        let reading = HeavyConfig {
            ladders: true,
            ..one_ply
        };
        let first = |cfg: HeavyConfig, board: Board, color: Color, last: Point, seed: u64| {
            let mut board = board;
            let mut h = Heavy::new(cfg, [Some(last), None]);
            h.choose(&mut board, color, &mut FastRng::new(seed))
        };
        // the reader refuses it, like a self-atari (p_reject_self_atari = 0.9)
        let refused = (0..100)
            .filter(|&seed| first(reading, b, Color::Black, pt("E3"), seed) != Some(pt("E4")))
            .count();
        assert!(refused >= 80, "refused {refused} of 100");
        let mut ran = b;
        ran.play_legal(Color::Black, pt("E4"));
        for seed in 0..20 {
            // one-ply rules run out at E4 every time
            assert_eq!(
                first(one_ply, b, Color::Black, pt("E3"), seed),
                Some(pt("E4"))
            );
            // after black ran out anyway, white's ladder atari F4 comes first
            assert_eq!(
                first(reading, ran, Color::White, pt("E4"), seed),
                Some(pt("F4"))
            );
        }
    }
}
