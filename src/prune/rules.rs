//! A rule-based pruner: the hand-written baseline ranking the network must beat.
//!
//! Like Pachi's `dcnn/blunder.c`, each rule is named, weighted in one config and switchable
//! (weight 0 turns it off). Badness is the sum of the weights of the rules a point breaks:
//! self-atari (a stone that would be left with one liberty without capturing) is worst, then
//! filling one's own eye, then the first line (edge), then the second line. Everything else
//! scores 0. In the opening this ranks like a beginner's rule of thumb; in fights it at least
//! never prefers a self-atari.

use crate::prune::{PruneContext, Pruner};
use crate::rules::{Board, Color, N, NN, Point};

/// Weights of the rules; a point's badness is the sum of the weights of the rules it breaks.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct RuleWeights {
    /// The stone would be in atari right after being played (and captures nothing).
    pub self_atari: f32,
    /// The point is the mover's own eye (the playouts never fill those either).
    pub own_eye: f32,
    /// The point is on the first line (edge or corner).
    pub first_line: f32,
    /// Extra badness for a corner point, on top of `first_line`.
    pub corner: f32,
    /// The point is on the second line.
    pub second_line: f32,
}

impl Default for RuleWeights {
    fn default() -> Self {
        RuleWeights {
            self_atari: 4.0,
            own_eye: 3.0,
            first_line: 1.0,
            corner: 0.5,
            second_line: 0.5,
        }
    }
}

/// The rule-based pruner.
#[derive(Debug, Clone, Copy, Default)]
pub struct RulePruner {
    pub weights: RuleWeights,
}

/// Same answer as [`Board::is_self_atari`] without copying the board (the pruner runs on
/// every playout move in one playout-pruning mode): a stone of `c` on the empty point `p`
/// that captures nothing and ends with exactly one liberty.
pub fn is_self_atari_fast(board: &Board, c: Color, p: Point) -> bool {
    // (the board keeps pseudo-liberty counts only: the test lives there, next to them)
    board.is_self_atari_fast(c, p)
}

/// Distance of a point to the nearest edge: 0 on the first line.
fn line(p: Point) -> usize {
    let (r, c) = (p.row(), p.col());
    r.min(c).min(N - 1 - r).min(N - 1 - c)
}

impl Pruner for RulePruner {
    fn name(&self) -> String {
        "rule".into()
    }
    fn reads_history(&self) -> bool {
        false
    }

    fn badness(&self, ctx: &PruneContext<'_>, out: &mut [f32; NN]) {
        let w = &self.weights;
        for (i, v) in out.iter_mut().enumerate() {
            let p = Point::new(i);
            let mut bad = match line(p) {
                0 => w.first_line,
                1 => w.second_line,
                _ => 0.0,
            };
            let (r, c) = (p.row(), p.col());
            if (r == 0 || r == N - 1) && (c == 0 || c == N - 1) {
                bad += w.corner;
            }
            if ctx.board.color_at(p).is_none() {
                if ctx.board.is_eye(ctx.to_move, p) {
                    bad += w.own_eye;
                }
                if is_self_atari_fast(ctx.board, ctx.to_move, p) {
                    bad += w.self_atari;
                }
            }
            *v = bad;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Board, Color, Move};

    fn scores(diagram: &str, c: Color) -> [f32; NN] {
        let b = Board::from_diagram(diagram).unwrap();
        let mut out = [0f32; NN];
        RulePruner::default().badness(
            &PruneContext {
                board: &b,
                to_move: c,
                recent: &[],
            },
            &mut out,
        );
        out
    }

    fn at(s: &[f32; NN], gtp: &str) -> f32 {
        s[Move::from_gtp(gtp).unwrap().index()]
    }

    #[test]
    fn fast_self_atari_agrees_with_the_board() {
        use crate::rules::BOARD;
        use crate::util::rng::FastRng;
        let mut rng = FastRng::new(11);
        let mut checked = 0;
        for game in 0..40 {
            let mut b = Board::new();
            let mut c = Color::Black;
            for m in 0..(20 + game * 3) {
                for p in Point::all() {
                    if b.color_at(p).is_none() {
                        for col in [Color::Black, Color::White] {
                            assert_eq!(
                                is_self_atari_fast(&b, col, p),
                                b.is_self_atari(col, p),
                                "{b}\n{p} {col:?} move {m}"
                            );
                            checked += 1;
                        }
                    }
                }
                match b.random_move(c, BOARD, &mut rng) {
                    Some(p) => b.play_legal(c, p),
                    None => break,
                }
                c = c.opponent();
            }
        }
        assert!(checked > 10_000);
    }

    #[test]
    fn edges_worse_than_centre_on_empty_board() {
        let s = scores(&". . . . . . . . .\n".repeat(9), Color::Black);
        assert!(at(&s, "A1") > at(&s, "A5"));
        assert!(at(&s, "A5") > at(&s, "B5"));
        assert!(at(&s, "B5") > at(&s, "E5"));
        assert_eq!(at(&s, "E5"), 0.0);
    }

    #[test]
    fn self_atari_is_worst() {
        // Black at E5 would have one liberty (D5) after playing: a self-atari in the centre.
        let s = scores(
            ". . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . O . . . .
             . . . . . O . . .
             . . . . O . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .",
            Color::Black,
        );
        // E5 is surrounded on three sides by white; D5 remains the one liberty.
        assert!(at(&s, "E5") >= 4.0, "{}", at(&s, "E5"));
        assert!(s.iter().all(|&v| v <= at(&s, "E5")));
        // For white the same point is fine (it is not white's eye: D5 is open).
        let w = scores(
            ". . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . O . . . .
             . . . . . O . . .
             . . . . O . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .",
            Color::White,
        );
        assert_eq!(at(&w, "E5"), 0.0);
    }
}
