//! Backup: a simulation's result (playout, value or both) counted along its path, with
//! AMAF for RAVE, and the playout that produces it.

use super::*;

impl Worker {
    /// Black's win probability at the deepest node of the path the value network rated.
    pub(super) fn path_value(&self, tree: &Tree) -> Option<f32> {
        self.path
            .iter()
            .rev()
            .find_map(|&i| tree.nodes[i as usize].black_value())
    }
}

impl Worker {
    /// `p` (0..=1) in win units, rounded up with probability equal to the fraction, so the
    /// mean of many results is `p` exactly.
    pub(super) fn round_units(&mut self, p: f32) -> u32 {
        let x = p.clamp(0.0, 1.0) * UNITS as f32;
        let floor = x.floor();
        let up = (self.rng.below(1 << 16) as f32) < (x - floor) * 65536.0;
        (floor as u32 + u32::from(up)).min(UNITS)
    }
}

impl Worker {
    /// RAVE back-up: at every node of the path, each child whose move its mover played
    /// first at that point later in the simulation (tree or playout) counts the result.
    pub(super) fn update_amaf(&mut self, tree: &Tree, black: u32) {
        // 0 = nobody played the point, else 1 + the colour index of the first to play it
        let mut first = [0u8; NN];
        for &(c, p) in &self.trace {
            let f = &mut first[p as usize];
            if *f == 0 {
                *f = c + 1;
            }
        }
        let root_side_black = tree.root_to_move == Color::Black;
        for k in 0..self.path.len() {
            let Some(kids) = tree.nodes[self.path[k] as usize].children() else {
                continue;
            };
            // the children of the node at depth k are moves of the side to move there
            let mover_black = (k % 2 == 0) == root_side_black;
            let mover = if mover_black {
                Color::Black
            } else {
                Color::White
            };
            let r = if mover_black { black } else { UNITS - black };
            let tag = mover.idx() as u8 + 1;
            for ch in &tree.nodes[kids] {
                let mv = ch.mv();
                if mv < NN && first[mv] == tag {
                    ch.amaf.fetch_add(VISIT + u64::from(r), Relaxed);
                }
            }
        }
    }
}

impl Worker {
    /// Plays the leaf position out with the configured policy; black's margin.
    pub(super) fn playout(&mut self, tree: &Tree, board: &mut Board, color: Color) -> f32 {
        let settings = &tree.settings;
        let cfg = settings.playout;
        let last = self.last_points(tree);
        let net_last = self.pruner_last(tree);
        let trace = (settings.rave > 0.0).then_some(&mut self.trace);
        let rng = &mut self.rng;
        let result = match settings.playout_prune {
            None => match settings.playout_kind {
                PlayoutKind::Uniform if trace.is_none() => {
                    playout::run(board, color, &mut Uniform, rng, &cfg, |_, _| {})
                }
                PlayoutKind::Uniform => run_traced(board, color, &mut Uniform, rng, &cfg, trace),
                PlayoutKind::Heavy => {
                    let mut policy = Heavy::new(settings.heavy, last);
                    run_traced(board, color, &mut policy, rng, &cfg, trace)
                }
                PlayoutKind::Territory => {
                    let mut policy = TerritoryPlayout::new();
                    run_traced(board, color, &mut policy, rng, &cfg, trace)
                }
            },
            Some(pp) => match pp.eval {
                PlayoutEval::Leaf => {
                    let slot = &mut self.slots[pp.slot];
                    let mut allowed = [0; 2];
                    for c in [Color::Black, Color::White] {
                        // The side not to move rates the leaf as if the mover had passed:
                        // the history a game reaching it with that side to move would have.
                        let c_last = if c == color {
                            net_last
                        } else if settings.history {
                            [PASS_INDEX as u8, net_last[0]]
                        } else {
                            NO_LAST_MOVES
                        };
                        let scores = slot.scores(board, c, c_last);
                        allowed[c.idx()] =
                            crate::rules::BOARD & !worst_share_mask(board, scores, pp.share);
                    }
                    let mut policy = LeafMasked { allowed };
                    run_traced(board, color, &mut policy, rng, &cfg, trace)
                }
                PlayoutEval::Move => {
                    let mut policy = EveryMove::new(&mut self.slots[pp.slot], pp.share, net_last);
                    run_traced(board, color, &mut policy, rng, &cfg, trace)
                }
            },
        };
        result.margin
    }
}

/// Runs a playout, recording its board moves into `trace` when given (RAVE).
pub(super) fn run_traced<P: PlayoutPolicy>(
    board: &mut Board,
    color: Color,
    policy: &mut P,
    rng: &mut FastRng,
    cfg: &PlayoutConfig,
    trace: Option<&mut Vec<(u8, u8)>>,
) -> playout::PlayoutResult {
    match trace {
        Some(t) => playout::run(board, color, policy, rng, cfg, |c, m| {
            if let Move::Play(p) = m {
                t.push((c.idx() as u8, p.index() as u8));
            }
        }),
        None => playout::run(board, color, policy, rng, cfg, |_, _| {}),
    }
}
