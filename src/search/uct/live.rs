//! Live analysis: the [`LiveAnalysis`] of a UCT engine (search in chunks that never reset the
//! tree, candidates with a Wilson lcb, principal variations) and the policy,
//! ownership and scores its answers carry, from the playouts or the networks.

use super::*;

impl UctEngine {
    /// The policy network's move probabilities for `color` at the current position, every
    /// point then pass, as the search's prior reads them (`1 - badness`, with the history
    /// the search gives it): -1 where the game layer forbids the move (occupied, suicide,
    /// superko), 0 for the pass (the network rates board points only). `None` without a
    /// policy network.
    pub(super) fn network_policy(&self, color: Color) -> Option<Vec<f32>> {
        let net = self.policy_net.as_ref()?;
        let board = self.game.board();
        let mut bad = [0f32; NN];
        let last = given_last(self.config.history, self.last_two_moves());
        rate(&**net, board, color, last, &mut bad);
        let allowed = self.root_allowed(color);
        let mut out: Vec<f32> = (0..NN)
            .map(|i| {
                if allowed & bit(i) == 0 {
                    -1.0
                } else {
                    (1.0 - bad[i]).clamp(0.0, 1.0)
                }
            })
            .collect();
        out.push(0.0);
        Some(out)
    }
}

impl UctEngine {
    /// `color`'s win probability at the current position by the value network, where the
    /// engine has one.
    pub(super) fn network_value(&self, color: Color) -> Option<f32> {
        let net = self.value_net.as_ref()?;
        let mut bad = [0f32; NN];
        let last = given_last(self.config.history, self.last_two_moves());
        rate_value(&**net, self.game.board(), color, last, &mut bad)
    }
}

impl UctEngine {
    /// Each point's expected final owner for `color` over the simulations' final boards,
    /// when outcomes are tracked and some simulation ended in a counted board.
    pub(super) fn playout_ownership(&self, color: Color) -> Option<[f32; NN]> {
        let mut black = [0u64; NN];
        let mut white = [0u64; NN];
        let mut n = 0;
        for t in &self.trees {
            let o = t.outcomes()?;
            n += o.score(outcomes::ROOT).n;
            let (b, w) = o.owners();
            for i in 0..NN {
                black[i] += u64::from(b[i]);
                white[i] += u64::from(w[i]);
            }
        }
        if n == 0 {
            return None;
        }
        let sign = if color == Color::Black { 1.0 } else { -1.0 };
        Some(std::array::from_fn(|i| {
            sign * (black[i] as f64 - white[i] as f64) as f32 / n as f32
        }))
    }
}

impl UctEngine {
    /// The value network's ownership for `to_move` in `board` after `last` (its view), where
    /// the network has an ownership head.
    pub(super) fn network_owners(
        &self,
        board: &Board,
        to_move: Color,
        last: LastMoves,
    ) -> Option<[f32; NN]> {
        let net = self.value_net.as_ref()?;
        owners(
            &**net,
            board,
            to_move,
            given_last(self.config.history, last),
        )
    }
}

impl UctEngine {
    /// The score lead for `color` that the value network gives after `mv` (or at the root,
    /// `None`): its score head's lead where it has one (moved from the komi its labels
    /// assumed to the game's), else the expected area difference less komi from its
    /// ownership head; the spread is the one the owners' uncertainty gives when points are
    /// counted independently (`sqrt(sum of 1 - o^2)`).
    pub(super) fn network_score(&self, color: Color, mv: Option<Move>) -> Option<ScoreEstimate> {
        let last = self.last_two_moves();
        let (board, to_move, after, sign) = match mv {
            None => (*self.game.board(), color, last, 1.0),
            Some(m) => {
                let mut board = *self.game.board();
                board.play_move(color, m).ok()?;
                (board, color.opponent(), [last_move_code(m), last[0]], -1.0)
            }
        };
        let own = self.network_owners(&board, to_move, after)?;
        let komi = self.game.komi();
        // Black's lead is area - komi, white's area + komi: a komi other than the labels'
        // moves black's lead down and white's up by the difference.
        let komi_sign = if color == Color::Black { -1.0 } else { 1.0 };
        let head = self.value_net.as_ref().and_then(|net| {
            score_lead(
                &**net,
                &board,
                to_move,
                given_last(self.config.history, after),
            )
        });
        let lead = match head {
            Some(h) => sign * h + komi_sign * (komi - SCORE_KOMI),
            None => sign * own.iter().sum::<f32>() + komi_sign * komi,
        };
        Some(ScoreEstimate {
            mean: lead,
            stdev: own.iter().map(|o| 1.0 - o * o).sum::<f32>().sqrt(),
            simulations: 1,
        })
    }
}

impl UctEngine {
    /// The score estimate for `color` of the simulations through root move `slot` (or the
    /// root, [`outcomes::ROOT`]) over every tree; none when untracked or unvisited.
    pub(super) fn score_through(&self, slot: usize, color: Color) -> Option<ScoreEstimate> {
        let mut sums = outcomes::ScoreSums {
            n: 0,
            sum2: 0,
            sq4: 0,
        };
        for t in &self.trees {
            sums.add(t.outcomes()?.score(slot));
        }
        let (mean, stdev) = sums.mean_stdev()?;
        let sign = if color == Color::Black { 1.0 } else { -1.0 };
        Some(ScoreEstimate {
            mean: (sign * mean) as f32,
            stdev: stdev as f32,
            simulations: sums.n,
        })
    }
}

/// A lower confidence bound of a win rate `wr` measured over `n` simulations: Wilson's 95%
/// bound, so a move with few visits ranks below an equally good one with many, as Leela
/// Zero's `lcb` does, and a move that won its 3 visits out of 3 is not sure (the normal
/// approximation's bound there would be 1).
pub(super) fn winrate_lcb(wr: f32, n: u32) -> f32 {
    if n == 0 {
        return 0.0;
    }
    let n = f64::from(n);
    crate::util::stats::wilson(f64::from(wr) * n, n, crate::util::stats::Z95).0 as f32
}

impl LiveAnalysis for UctEngine {
    fn analyze_until(&mut self, color: Color, deadline: Instant) -> u64 {
        self.game.set_to_move(color);
        self.track_outcomes();
        // No simulation cap: the deadline ends the chunk. The tree is always kept (even with
        // reuse off) so that the chunks of one analysis add up.
        self.run_search(color, u64::MAX, Some(deadline), true);
        self.last_sims
    }

    fn candidates(&self, color: Color, max_pv: usize) -> Vec<Candidate> {
        let totals = self.root_totals();
        let first = &self.trees[0];
        let children = first.root_children();
        // The prior: the policy network's probability of the move where the engine has one
        // (as KataGo reports it); else each candidate's share of the prior visits the root's
        // children got at creation (heuristic and soft-pruning priors), and an engine
        // without priors gives every candidate the same share.
        let network = self.network_policy(color);
        let prior_total: u32 = totals.iter().map(|t| t.3).sum();
        let uniform = 1.0 / children.len().max(1) as f32;
        let mut out: Vec<Candidate> = totals
            .iter()
            .enumerate()
            .filter(|(_, t)| t.2 && t.0 > 0)
            .map(|(i, &(visits, wins, _, prior_visits))| {
                let prior = match &network {
                    Some(p) => p[i].max(0.0),
                    None if prior_total > 0 => prior_visits as f32 / prior_total as f32,
                    None => uniform,
                };
                let mv = Move::from_index(i).expect("root child index");
                let winrate = wins / visits as f32;
                // The first thread's tree gives the variation; a move only other threads
                // expanded shows itself alone.
                let pv = children
                    .iter()
                    .position(|n| n.mv() == i)
                    .map(|k| first.principal_variation(k, max_pv.max(1)))
                    .filter(|pv| !pv.is_empty())
                    .unwrap_or_else(|| vec![mv]);
                Candidate {
                    mv,
                    visits,
                    winrate,
                    prior,
                    lcb: winrate_lcb(winrate, visits),
                    pv,
                    score: self
                        .score_through(i, color)
                        .or_else(|| self.network_score(color, Some(mv))),
                }
            })
            .collect();
        out.sort_by(|a, b| {
            b.visits
                .cmp(&a.visits)
                .then(b.winrate.total_cmp(&a.winrate))
                .then(a.mv.index().cmp(&b.mv.index()))
        });
        out
    }

    fn unvisited(&self, _color: Color) -> Vec<Move> {
        let totals = self.root_totals();
        (0..totals.len())
            .filter(|&i| totals[i].2 && totals[i].0 == 0)
            .map(|i| Move::from_index(i).expect("root child index"))
            .collect()
    }

    fn ownership(&self, color: Color) -> Option<[f32; NN]> {
        self.playout_ownership(color)
            .or_else(|| self.network_owners(self.game.board(), color, self.last_two_moves()))
    }

    fn root_score(&self, color: Color) -> Option<ScoreEstimate> {
        self.score_through(outcomes::ROOT, color)
            .or_else(|| self.network_score(color, None))
    }

    fn root_winrate(&self, color: Color) -> Option<(u32, f32)> {
        // Every tree searches the same root, `color` to move (the analysis set it so).
        let (visits, wins) = self
            .trees
            .iter()
            .map(Tree::root_result)
            .fold((0u32, 0f64), |(v, w), (tv, tw)| (v + tv, w + tw));
        if visits > 0 {
            return Some((visits, (wins / f64::from(visits)) as f32));
        }
        self.network_value(color).map(|v| (0, v))
    }

    fn analyze_sims(&mut self, color: Color, sims: u64) -> u64 {
        self.game.set_to_move(color);
        self.track_outcomes();
        self.run_search(color, sims, None, true);
        self.last_sims
    }

    fn root_policy(&self, color: Color) -> Option<Vec<f32>> {
        if let Some(p) = self.network_policy(color) {
            return Some(p);
        }
        let totals = self.root_totals();
        let prior_total: u32 = totals.iter().filter(|t| t.2).map(|t| t.3).sum();
        let children = totals.iter().filter(|t| t.2).count();
        if children == 0 {
            return None;
        }
        Some(
            totals
                .iter()
                .map(|&(_, _, present, prior)| match (present, prior_total) {
                    (false, _) => -1.0,
                    (true, 0) => 1.0 / children as f32,
                    (true, total) => prior as f32 / total as f32,
                })
                .collect(),
        )
    }

    fn genmove_analyze(
        &mut self,
        color: Color,
        max_pv: usize,
    ) -> (EngineMove, MoveStats, Vec<Candidate>) {
        self.track_outcomes();
        // The root is read before the move is played: playing moves the root down the tree.
        self.genmove_with(color, false, |e| e.candidates(color, max_pv))
    }
}
