//! Expansion: a leaf's children with tree and soft pruning, priors, and (PUCT) the
//! policy's probabilities and the network's value.

use super::*;

impl Worker {
    /// Creates the children of `node`, saying whether this call made them, another thread
    /// or simulation already had, or none can be had now (the node budget is spent, or
    /// another thread is still writing them).
    pub(super) fn expand(
        &mut self,
        tree: &Tree,
        node: usize,
        board: &Board,
        color: Color,
        depth: u32,
    ) -> Expansion {
        let target = &tree.nodes[node];
        match target
            .first
            .compare_exchange(0, EXPANDING, Acquire, Acquire)
        {
            Ok(_) => {}
            Err(EXPANDING) => return Expansion::Unavailable,
            Err(_) => return Expansion::Exists,
        }
        let allowed = if node == 0 {
            tree.root_allowed
        } else {
            crate::rules::BOARD
        };
        let candidates = board.candidates(color, allowed);
        let cand = candidates.as_slice();
        let n = cand.len();
        // The budget check comes before the pruners run, so a full tree costs no evaluations.
        let cap = tree.settings.max_nodes.max(NN + 2).min(tree.nodes.len());
        if tree.len.load(Relaxed) + n + 1 > cap {
            target.first.store(0, Release);
            return Expansion::Unavailable;
        }
        let s = tree.settings;
        let net_last = self.pruner_last(tree);
        let mut dropped: Bits = 0;
        if let Some(tp) = s.prune.filter(|tp| depth >= tp.depth) {
            let drop = drop_count(n, tp.x, s.prune_count, s.keep_min);
            let scores = self.slots[tp.slot].scores(board, color, net_last);
            dropped = worst_mask(&cand[..n], scores, drop);
        }
        let mut soft: Bits = 0;
        let mut soft_visits = 0;
        if let Some(sp) = s.soft.filter(|sp| depth >= sp.depth && sp.visits > 0) {
            let mut kept = [0u8; NN];
            let mut m = 0;
            for &c in &cand[..n] {
                if dropped & bit(c as usize) == 0 {
                    kept[m] = c;
                    m += 1;
                }
            }
            let scores = self.slots[sp.slot].scores(board, color, net_last);
            // `prune_count` counts soft pruning's x as it counts tree pruning's; no minimum is
            // kept unpenalised (keep_min 0), so `legal` penalises min(x, m) as it always did.
            // Counting x of the legal moves penalises every move once fewer than x are
            // legal, and the unpenalised pass then looks best (the soft-pruning arm counted that way won 0 of 100).
            let drop = drop_count(m, sp.x, s.prune_count, 0);
            soft = worst_mask(&kept[..m], scores, drop);
            soft_visits = sp.visits;
        }
        let heuristics = if s.priors {
            let last = self.last_points(tree);
            Some(crate::search::priors::heuristic_priors(
                board,
                color,
                last,
                &cand[..n],
                s.heavy.ladders,
            ))
        } else {
            None
        };
        let policy = s.policy.map(|pp| {
            (
                pp.weight,
                *self.slots[pp.slot].scores(board, color, net_last),
            )
        });
        // Widening ranks the candidates best first, so the open ones are a prefix of the
        // block; the other settings' per-candidate values travel with them (`order`).
        let mut order: [u8; NN] = std::array::from_fn(|k| k as u8);
        if let Some(w) = s.widen {
            let scores = *self.slots[w.slot].scores(board, color, net_last);
            order[..n].sort_by(|&a, &b| {
                cmp_best_first(
                    &scores,
                    cand[a as usize] as usize,
                    cand[b as usize] as usize,
                )
            });
        }
        let count = n - (dropped & crate::rules::BOARD).count_ones() as usize + 1;
        let Some(first) = tree.claim(n + 1, count) else {
            target.first.store(0, Release);
            return Expansion::Unavailable;
        };
        // Root noise: one Dirichlet share per board move created here, in creation order.
        let mut noise = [0f64; NN];
        let root_noise = s.root_noise.filter(|_| node == 0 && policy.is_some());
        if let Some(rn) = root_noise {
            self.rng
                .dirichlet(f64::from(rn.alpha), &mut noise[..count - 1]);
        }
        // PUCT's priors: the network's probabilities renormalised over the board moves kept
        // (pruning and own-eye candidates take their share away), the pass's fixed share
        // apart; uniform without a network.
        let puct_share = s.puct.map(|pc| {
            let kept = |c: &&u8| dropped & bit(**c as usize) == 0;
            let total: f32 = match &policy {
                Some((_, bad)) => cand[..n]
                    .iter()
                    .filter(kept)
                    .map(|&c| (1.0 - bad[c as usize]).clamp(0.0, 1.0))
                    .sum(),
                None => 0.0,
            };
            (pc.pass_prior, total)
        });
        let mut k_out = first;
        for &k in &order[..n] {
            let k = k as usize;
            let c = cand[k];
            let b = bit(c as usize);
            if dropped & b == 0 {
                let soft_prior = if soft & b != 0 { soft_visits } else { 0 };
                if let Some((pass_prior, total)) = puct_share {
                    let raw = match &policy {
                        Some((_, bad)) if total > 1e-6 => {
                            (1.0 - bad[c as usize]).clamp(0.0, 1.0) / total
                        }
                        _ => 1.0 / (count - 1) as f32,
                    };
                    let mut p = raw;
                    if let Some(rn) = root_noise {
                        p = (1.0 - rn.eps) * p + rn.eps * noise[k_out - first] as f32;
                    }
                    tree.nodes[k_out].init(c as usize, soft_prior, 0);
                    tree.nodes[k_out].set_policy((1.0 - pass_prior) * p);
                    k_out += 1;
                    continue;
                }
                let (mut pv, mut pw) = heuristics.as_ref().map_or((0, 0.0), |h| h[k]);
                if let Some((weight, bad)) = &policy {
                    let mut p = (1.0 - bad[c as usize]).clamp(0.0, 1.0);
                    if let Some(rn) = root_noise {
                        p = (1.0 - rn.eps) * p + rn.eps * noise[k_out - first] as f32;
                    }
                    let v = (weight * p.sqrt()).round();
                    pv += v as u16;
                    pw += v;
                }
                // Prior wins are whole numbers, so win units hold them exactly.
                let units = (pw * UNITS as f32).round() as u32;
                tree.nodes[k_out].init(c as usize, soft_prior + pv, units);
                k_out += 1;
            }
        }
        tree.nodes[k_out].init(PASS_INDEX, 0, 0);
        if let Some((pass_prior, _)) = puct_share {
            // Alone, the pass takes all the prior.
            tree.nodes[k_out].set_policy(if count == 1 { 1.0 } else { pass_prior });
        }
        debug_assert_eq!(k_out + 1 - first, count);
        if let Some(p) = s
            .value
            .and_then(|vm| self.slots[vm.slot].value(board, color, net_last))
        {
            target.set_black_value(if color == Color::Black { p } else { 1.0 - p });
        }
        target.n_children.store(count as u8, Relaxed);
        // Publishes the children: a thread that reads `first` with acquire sees them whole.
        target.first.store(first as u32, Release);
        Expansion::Made
    }
}
