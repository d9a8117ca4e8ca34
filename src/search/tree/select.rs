//! Descent: which child a simulation takes (UCB1, RAVE or PUCT) among the open ones
//! (progressive widening).

use super::*;

impl Widening {
    /// Board candidates open at a node with `visits` visits.
    pub fn open(&self, visits: u32) -> usize {
        let n = visits as f32;
        if n < self.base {
            self.k0
        } else {
            self.k0 + 1 + ((n / self.base).ln() / self.log_mult) as usize
        }
    }
}

impl Puct {
    /// The exploration weight at a node with `visits` visits.
    pub(super) fn c_at(&self, visits: u32) -> f32 {
        if self.c_log == 0.0 {
            return self.c;
        }
        self.c + self.c_log * ((visits as f32 + self.c_base) / self.c_base).ln()
    }
}

impl Worker {
    /// UCB1 over the children of an expanded node: the first unvisited child, else the
    /// highest `wins/visits + c * sqrt(ln N / visits)`.
    #[inline]
    pub(super) fn select(&self, tree: &Tree, node: usize) -> usize {
        if let Some(p) = tree.settings.puct {
            return self.select_puct(tree, node, p);
        }
        if tree.settings.rave > 0.0 {
            return self.select_rave(tree, node);
        }
        let parent = &tree.nodes[node];
        let kids = parent.children().expect("selection at an expanded node");
        let first = kids.start;
        let parent_visits = parent.visits();
        let scale = tree.settings.c * (parent_visits.max(1) as f32).ln().sqrt();
        let mut best = 0;
        let mut best_value = f32::NEG_INFINITY;
        for (k, ch) in open_children(&tree.settings, &tree.nodes[kids], parent_visits) {
            let (visits, wins) = ch.stats();
            if visits == 0 {
                return first + k;
            }
            let inv = 1.0 / visits as f32;
            let value = wins * inv + scale * inv.sqrt();
            if value > best_value {
                best_value = value;
                best = k;
            }
        }
        first + best
    }
}

impl Worker {
    /// PUCT selection ([`Puct`]): the child maximising `Q + c(N) * P * sqrt(N) / (1 + n)`,
    /// unvisited children valued at the first-play urgency; ties go to the earlier child.
    pub(super) fn select_puct(&self, tree: &Tree, node: usize, p: Puct) -> usize {
        let parent = &tree.nodes[node];
        let kids = parent.children().expect("selection at an expanded node");
        let first = kids.start;
        let (parent_visits, parent_wins) = parent.stats();
        // The parent's statistics count wins for the player who moved into it; the children
        // are moves of the other side.
        let parent_q = if parent_visits > 0 {
            1.0 - parent_wins / parent_visits as f32
        } else {
            0.5
        };
        let children = &tree.nodes[kids];
        let visited_policy: f32 = children
            .iter()
            .filter(|ch| ch.visits() > 0)
            .map(Node::policy)
            .sum();
        let reduction = if node == 0 { p.fpu_root } else { p.fpu };
        let fpu = parent_q - reduction * visited_policy.sqrt();
        let scale = p.c_at(parent_visits) * (parent_visits.max(1) as f32).sqrt();
        let mut best = 0;
        let mut best_value = f32::NEG_INFINITY;
        for (k, ch) in open_children(&tree.settings, children, parent_visits) {
            let (visits, wins) = ch.stats();
            let q = if visits > 0 {
                wins / visits as f32
            } else {
                fpu
            };
            let value = q + scale * ch.policy() / (1.0 + visits as f32);
            if value > best_value {
                best_value = value;
                best = k;
            }
        }
        first + best
    }
}

impl Worker {
    /// RAVE selection (Gelly and Silver 2007, michi's form): the child maximising
    /// `(1 - beta) * wins/visits + beta * amaf_wins/amaf_visits + c * sqrt(ln N / visits)`,
    /// `beta = n_amaf / (n_amaf + n + n * n_amaf / rave)`; a child with neither visits nor
    /// AMAF visits is taken first.
    pub(super) fn select_rave(&self, tree: &Tree, node: usize) -> usize {
        let parent = &tree.nodes[node];
        let kids = parent.children().expect("selection at an expanded node");
        let first = kids.start;
        let equiv = tree.settings.rave;
        let parent_visits = parent.visits();
        let scale = tree.settings.c * (parent_visits.max(1) as f32).ln().sqrt();
        let mut best = 0;
        let mut best_value = f32::NEG_INFINITY;
        for (k, ch) in open_children(&tree.settings, &tree.nodes[kids], parent_visits) {
            let (visits, wins) = ch.stats();
            let (amaf_visits, amaf_wins) = ch.amaf();
            if visits == 0 && amaf_visits == 0 {
                return first + k;
            }
            let (n, na) = (visits as f32, amaf_visits as f32);
            let q = if visits > 0 { wins / n } else { 0.0 };
            let mut value = if amaf_visits > 0 {
                let beta = na / (na + n + n * na / equiv);
                beta * (amaf_wins / na) + (1.0 - beta) * q
            } else {
                q
            };
            value += scale / n.max(1.0).sqrt();
            if value > best_value {
                best_value = value;
                best = k;
            }
        }
        first + best
    }
}

/// The children selection may take, with their block offsets: all of them, or with
/// progressive widening the open prefix of the ranked block and the pass (always last).
#[inline]
pub(super) fn open_children<'a>(
    settings: &Settings,
    kids: &'a [Node],
    parent_visits: u32,
) -> impl Iterator<Item = (usize, &'a Node)> {
    let last = kids.len() - 1;
    let open = settings
        .widen
        .map_or(last, |w| w.open(parent_visits).min(last));
    kids[..open]
        .iter()
        .enumerate()
        .chain(std::iter::once((last, &kids[last])))
}
