use super::*;
use crate::prune::rules::RulePruner;
use std::sync::Arc;

fn worker(prune: Option<TreePruning>, soft: Option<SoftPruning>) -> (Tree, Worker) {
    let settings = Settings {
        expand: 2,
        c: 0.4,
        max_nodes: 1 << 20,
        playout: PlayoutConfig::default(),
        prune,
        soft,
        playout_prune: None,
        playout_kind: PlayoutKind::Uniform,
        prune_count: PruneCount::Legal,
        keep_min: 1,
        rave: 0.0,
        priors: false,
        heavy: HeavyConfig::default(),
        policy: None,
        puct: None,
        value: None,
        root_noise: None,
        widen: None,
        history: true,
    };
    let slots = vec![PrunerSlot::new(Arc::new(RulePruner::default()), 64)];
    (
        Tree::new(settings, false),
        Worker::new(slots, FastRng::new(1)),
    )
}

/// Children counts of every expanded node, by depth.
fn children_by_depth(t: &Tree) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); 8];
    let mut stack = vec![(0usize, 0usize)];
    while let Some((i, d)) = stack.pop() {
        if let Some(kids) = t.nodes[i].children().filter(|_| d < 8) {
            out[d].push(kids.len());
            stack.extend(kids.map(|k| (k, d + 1)));
        }
    }
    out
}

#[test]
fn pruning_applies_from_its_depth_down_and_keeps_pass() {
    let (t, mut w) = worker(
        Some(TreePruning {
            slot: 0,
            x: 30,
            depth: 1,
        }),
        None,
    );
    w.search(&t, &SimBudget::new(3000), None);
    let by_depth = children_by_depth(&t);
    assert_eq!(by_depth[0], vec![82], "root (depth 0) is not pruned");
    assert!(!by_depth[1].is_empty() && !by_depth[2].is_empty());
    // A depth-1 node has 80 empty points (81 after the root's pass): 30 are dropped and
    // pass is added.
    let mut d1 = by_depth[1].clone();
    d1.sort();
    assert_eq!(
        d1.pop(),
        Some(81 - 30 + 1),
        "the pass child: {:?}",
        by_depth[1]
    );
    assert!(d1.iter().all(|&n| n == 80 - 30 + 1), "{:?}", by_depth[1]);
    for (d, counts) in by_depth.iter().enumerate().skip(1) {
        assert!(
            counts.iter().all(|&n| n <= 81 - 30 + 1),
            "depth {d}: {counts:?}"
        );
    }
    // Pass is the last child of every expanded node.
    for n in &t.nodes[..t.node_count()] {
        if let Some(kids) = n.children() {
            assert_eq!(t.nodes[kids.end - 1].mv(), PASS_INDEX);
        }
    }
}

/// A "network" for the search's tests: its badness of every point (`policy`) and black's
/// win probability in a board (`black`), given for the side to move as networks do.
struct TestNet {
    policy: fn(&mut [f32; NN]),
    black: fn(&Board) -> f32,
}
impl crate::prune::Pruner for TestNet {
    fn name(&self) -> String {
        "test-net".into()
    }
    fn reads_history(&self) -> bool {
        false
    }
    fn badness(&self, _ctx: &crate::prune::PruneContext<'_>, out: &mut [f32; NN]) {
        (self.policy)(out);
    }
    fn badness_value(
        &self,
        ctx: &crate::prune::PruneContext<'_>,
        out: &mut [f32; NN],
    ) -> Option<f32> {
        (self.policy)(out);
        let p_black = (self.black)(ctx.board);
        Some(if ctx.to_move == Color::Black {
            p_black
        } else {
            1.0 - p_black
        })
    }
    fn has_value(&self) -> bool {
        true
    }
}

/// Every move alike.
fn flat_policy(out: &mut [f32; NN]) {
    out.fill(0.5);
}

/// Black wins exactly when black holds E5.
const E5_VALUE: TestNet = TestNet {
    policy: flat_policy,
    black: |board| {
        if board.color_at(Point::new(40)) == Some(Color::Black) {
            0.95
        } else {
            0.05
        }
    },
};

/// Black loses: a win probability of 0.1 in every position.
const BLACK_LOSES_VALUE: TestNet = TestNet {
    policy: flat_policy,
    black: |_| 0.1,
};

/// A search whose only slot is [`E5_VALUE`], mixing its value at `lambda`.
fn valued(lambda: f32) -> (Tree, Worker) {
    let (mut t, _) = worker(None, None);
    t.settings.value = Some(ValueMix { slot: 0, lambda });
    t.settings.expand = 0;
    let slots = vec![PrunerSlot::new(Arc::new(E5_VALUE), 1 << 12).with_value()];
    (t, Worker::new(slots, FastRng::new(3)))
}

/// The root's child with the most visits (the move the engine would play).
fn most_visited(t: &Tree) -> &Node {
    t.root_children()
        .iter()
        .max_by_key(|c| c.real_visits())
        .expect("an expanded root")
}

#[test]
fn a_value_only_search_follows_the_value_network() {
    let (t, mut w) = valued(1.0);
    w.search(&t, &SimBudget::new(3000), None);
    let best = most_visited(&t);
    assert_eq!(best.mv(), 40, "the value network's move");
    assert!(best.real_wins() / best.real_visits() as f32 > 0.8);
    // The root was rated (black to move, E5 empty: black's chance 0.05).
    let v = t.root().black_value().unwrap();
    assert!((v - 0.05).abs() < 1e-3, "{v}");
}

#[test]
fn mixed_results_average_the_playouts_and_the_value() {
    // Without the value the empty board is near even for black's moves; with half the
    // result from a value that calls E5 won, E5's win rate rises by about half the gap.
    let (t, mut w) = valued(0.5);
    w.search(&t, &SimBudget::new(4000), None);
    let e5 = t.root_children().iter().find(|c| c.mv() == 40).unwrap();
    let other: (u32, f32) = t
        .root_children()
        .iter()
        .filter(|c| c.mv() != 40 && c.mv() != PASS_INDEX)
        .fold((0, 0.0), |(v, w), c| {
            (v + c.real_visits(), w + c.real_wins())
        });
    let rate_e5 = e5.real_wins() / e5.real_visits() as f32;
    let rate_other = other.1 / other.0 as f32;
    assert!(rate_e5 - rate_other > 0.3, "{rate_e5} vs {rate_other}");
    assert!(rate_e5 < 0.95, "playouts keep their half: {rate_e5}");
}

/// `lambda` is the value's weight: a result is `(1 - lambda) * playout + lambda * value`.
/// With a komi of -100 every playout is a black win (1) while the value gives black 0.1,
/// so black's mean result is `(1 - lambda) + 0.1 * lambda`: 0.775 at `lambda = 0.25` and
/// 0.325 at `lambda = 0.75` (0.19 at 0.9). Weights the other way round would give the
/// means swapped (0.325, 0.775, 0.91), 0.45 or more away. Simulations ended by two passes
/// in the tree count the area alone, a black win, and exploration keeps returning to
/// the pass children, so the means sit up to a few hundredths above the formula.
#[test]
fn lambda_weighs_the_value_and_one_minus_lambda_the_playout() {
    for (lambda, want) in [(0.25f32, 0.775f32), (0.75, 0.325), (0.9, 0.19)] {
        let (mut t, _) = worker(None, None);
        t.settings.value = Some(ValueMix { slot: 0, lambda });
        t.settings.expand = 0;
        t.settings.playout.komi = -100.0;
        let slots = vec![PrunerSlot::new(Arc::new(BLACK_LOSES_VALUE), 1 << 12).with_value()];
        let mut w = Worker::new(slots, FastRng::new(5));
        w.search(&t, &SimBudget::new(3000), None);
        // The root's children hold black's results (black is to move at the root).
        let (visits, wins) = t.root_children().iter().fold((0u32, 0f32), |(v, w), c| {
            (v + c.real_visits(), w + c.real_wins())
        });
        assert_eq!(visits, 3000);
        let mean = wins / visits as f32;
        assert!(
            mean > want - 0.02 && mean < want + 0.1,
            "lambda {lambda}: black's mean result {mean}, want {want}"
        );
    }
}

/// A "network" whose policy gives E5 (point 40) the probability `E5_SHARE` and the
/// other points equal shares of the rest, with black's win probability 0.5 everywhere.
const E5_SHARE: f32 = 0.9;
const FAVOURS_E5: TestNet = TestNet {
    policy: |out| {
        out.fill(1.0 - (1.0 - E5_SHARE) / 80.0);
        out[40] = 1.0 - E5_SHARE;
    },
    black: |_| 0.5,
};

/// KataGo-like PUCT settings with no growth of c.
const PUCT: Puct = Puct {
    c: 0.5,
    c_log: 0.0,
    c_base: 500.0,
    fpu: 0.2,
    fpu_root: 0.1,
    pass_prior: 0.01,
};

/// A PUCT search whose only slot, `pruner`, is both its policy and its value.
fn puct_search(pruner: Arc<dyn crate::prune::Pruner>, puct: Puct) -> (Tree, Worker) {
    let (mut t, _) = worker(None, None);
    t.settings.policy = Some(PolicyPrior {
        slot: 0,
        weight: 100.0,
    });
    t.settings.value = Some(ValueMix {
        slot: 0,
        lambda: 1.0,
    });
    t.settings.puct = Some(puct);
    let slots = vec![PrunerSlot::new(pruner, 1 << 12).with_value()];
    (t, Worker::new(slots, FastRng::new(9)))
}

/// Expanded nodes of the tree.
fn expanded(t: &Tree) -> usize {
    t.nodes[..t.node_count()]
        .iter()
        .filter(|n| n.is_expanded())
        .count()
}

#[test]
fn puct_follows_the_value_and_evaluates_each_leaf_once() {
    let (t, mut w) = puct_search(Arc::new(E5_VALUE), PUCT);
    let sims = 2000;
    w.search(&t, &SimBudget::new(sims), None);
    let best = most_visited(&t);
    assert_eq!(best.mv(), 40, "the value network's move");
    assert!(best.real_wins() / best.real_visits() as f32 > 0.9);
    // Every simulation expands the leaf it reaches and ends there: one evaluation (or a
    // transposition's cached one) and one expanded node each, but for simulations ended
    // by two passes in the tree.
    let nodes = expanded(&t);
    assert_eq!((w.slots[0].evals + w.slots[0].hits) as usize, nodes);
    assert!(
        nodes as u64 <= sims && nodes as u64 > sims * 9 / 10,
        "{nodes}"
    );
    // The priors are the policy's probabilities: uniform here, the pass apart.
    let board: f32 = t
        .root_children()
        .iter()
        .filter(|c| c.mv() != PASS_INDEX)
        .map(Node::policy)
        .sum();
    let pass = t.root_children().last().unwrap();
    assert_eq!(pass.mv(), PASS_INDEX);
    assert!((pass.policy() - 0.01).abs() < 1e-4, "{}", pass.policy());
    assert!((board - 0.99).abs() < 0.01, "{board}");
}

/// With the same value everywhere, PUCT's visits follow the priors: the move with 0.9 of
/// the probability takes most of them.
#[test]
fn puct_visits_follow_the_priors_when_values_agree() {
    let (t, mut w) = puct_search(Arc::new(FAVOURS_E5), PUCT);
    w.search(&t, &SimBudget::new(1000), None);
    let root: u32 = t.root_children().iter().map(Node::real_visits).sum();
    let e5 = t.root_children().iter().find(|c| c.mv() == 40).unwrap();
    assert!(
        (e5.policy() - 0.99 * E5_SHARE).abs() < 0.01,
        "{}",
        e5.policy()
    );
    assert!(
        e5.real_visits() * 2 > root,
        "{} of {root}",
        e5.real_visits()
    );
}

/// How many root moves a 400-visit PUCT search tries with these first-play urgency
/// reductions (below the root and at it), on a value that rates every position alike.
fn root_moves_tried(fpu: f32, fpu_root: f32) -> usize {
    let (t, mut w) = puct_search(
        Arc::new(BLACK_LOSES_VALUE),
        Puct {
            fpu,
            fpu_root,
            ..PUCT
        },
    );
    w.search(&t, &SimBudget::new(400), None);
    t.root_children()
        .iter()
        .filter(|c| c.real_visits() > 0)
        .count()
}

/// First-play urgency: with a large reduction, an unvisited move looks worse than the
/// tried ones, so a search over equal values tries fewer root moves than with none.
#[test]
fn first_play_urgency_reduction_narrows_the_search() {
    let (wide, narrow) = (root_moves_tried(0.0, 0.0), root_moves_tried(1.0, 1.0));
    assert!(
        narrow * 2 < wide,
        "fpu 1: {narrow} moves tried, fpu 0: {wide}"
    );
}

/// The root takes its own first-play urgency reduction, `fpu_root`, and the nodes below it
/// `fpu`: a search with no reduction at the root and a large one below tries many root
/// moves, and the reverse tries few.
#[test]
fn the_root_takes_fpu_root_and_the_nodes_below_fpu() {
    let (wide, narrow) = (root_moves_tried(1.0, 0.0), root_moves_tried(0.0, 1.0));
    assert!(
        narrow * 2 < wide,
        "fpu_root 1: {narrow} root moves tried, fpu_root 0: {wide}"
    );
}

/// Values are backed up for the side that moved: with black's win probability 0.1 in
/// every position, black's root moves average about 0.1 and white's about 0.9.
#[test]
fn puct_values_are_the_movers() {
    for (to_move, want) in [(Color::Black, 0.1f32), (Color::White, 0.9)] {
        let (mut t, mut w) = puct_search(Arc::new(BLACK_LOSES_VALUE), PUCT);
        t.reset(Board::new(), to_move, 0);
        w.search(&t, &SimBudget::new(500), None);
        let (visits, wins) = t
            .root_children()
            .iter()
            .filter(|c| c.mv() != PASS_INDEX)
            .fold((0u32, 0f32), |(v, w), c| {
                (v + c.real_visits(), w + c.real_wins())
            });
        let mean = wins / visits as f32;
        assert!(
            (mean - want).abs() < 0.05,
            "{to_move:?}: {mean}, want {want}"
        );
    }
}

#[test]
fn cpuct_grows_with_visits_as_its_log_term_says() {
    let grows = Puct {
        c_log: 0.45,
        ..PUCT
    };
    assert_eq!(PUCT.c_at(100_000), 0.5);
    assert!((grows.c_at(0) - 0.5).abs() < 1e-6);
    let want = 0.5 + 0.45 * (1500.0f32 / 500.0).ln();
    assert!((grows.c_at(1000) - want).abs() < 1e-5);
}

#[test]
fn root_noise_changes_the_root_priors_by_seed() {
    let root_priors = |noise: Option<RootNoise>, seed: u64| {
        let (mut t, _) = worker(None, None);
        t.settings.policy = Some(PolicyPrior {
            slot: 0,
            weight: 100.0,
        });
        t.settings.root_noise = noise;
        let slots = vec![PrunerSlot::new(Arc::new(RulePruner::default()), 64)];
        let mut w = Worker::new(slots, FastRng::new(seed));
        w.search(&t, &SimBudget::new(50), None);
        t.root_children()
            .iter()
            .map(|c| c.prior())
            .collect::<Vec<_>>()
    };
    let noise = Some(RootNoise {
        eps: 0.5,
        alpha: 0.15,
    });
    let plain = root_priors(None, 1);
    assert_eq!(
        plain,
        root_priors(None, 2),
        "no noise: the seed changes nothing"
    );
    let a = root_priors(noise, 1);
    assert_eq!(a, root_priors(noise, 1), "same seed, same noise");
    assert_ne!(a, plain);
    assert_ne!(a, root_priors(noise, 2));
}

#[test]
fn stochastic_rounding_of_win_units_is_unbiased() {
    let (_, mut w) = worker(None, None);
    for p in [0.0f32, 0.03, 0.5, 0.61, 1.0] {
        let n = 20_000;
        let sum: u64 = (0..n).map(|_| u64::from(w.round_units(p))).sum();
        let mean = sum as f64 / n as f64 / f64::from(UNITS);
        assert!((mean - f64::from(p)).abs() < 0.002, "{p}: {mean}");
    }
}

#[test]
fn backup_counts_wins_for_the_player_who_moved() {
    let (t, mut w) = worker(None, None);
    w.search(&t, &SimBudget::new(2000), None);
    let root = t.root();
    assert_eq!(root.visits(), 2000);
    let children = t.root_children();
    let visits: u32 = children.iter().map(|c| c.visits()).sum();
    assert_eq!(visits, 2000);
    // The root's wins are white's (the side that moved into it); each child's are
    // black's: together they account for every simulation.
    let black_wins: f32 = children.iter().map(|c| c.wins()).sum();
    assert!((black_wins + root.wins() - 2000.0).abs() < 1e-3);
    // Each simulation through an expanded child either stopped there (black's win or
    // not) or went on to one grandchild, where white's result is the complement of
    // black's at the child: so child wins + grandchild wins lie in [through, visits].
    let mut checked = 0;
    for c in children {
        let Some(kids) = c.children() else { continue };
        let g = &t.nodes[kids];
        let through: u32 = g.iter().map(|x| x.visits()).sum();
        let g_wins: f32 = g.iter().map(|x| x.wins()).sum();
        let total = c.wins() + g_wins;
        assert!(
            total >= through as f32 - 1e-3 && total <= c.visits() as f32 + 1e-3,
            "{total} not in [{through}, {}]",
            c.visits()
        );
        checked += 1;
    }
    assert!(checked > 10);
}

/// Grows one tree with `threads` workers sharing a budget of `sims`.
fn shared_search(threads: usize, sims: u64, prune: Option<TreePruning>) -> Tree {
    let (t, _) = worker(prune, None);
    let mut t = t;
    t.virtual_loss = threads > 1;
    let mut workers: Vec<Worker> = (0..threads)
        .map(|k| {
            let slots = vec![PrunerSlot::new(Arc::new(RulePruner::default()), 64)];
            Worker::new(slots, FastRng::for_stream(7, k as u64))
        })
        .collect();
    let budget = SimBudget::new(sims);
    let done: u64 = std::thread::scope(|s| {
        let handles: Vec<_> = workers
            .iter_mut()
            .map(|w| {
                let (t, b) = (&t, &budget);
                s.spawn(move || w.search(t, b, None))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    assert_eq!(done, sims, "the threads share one budget");
    t
}

/// Every node's move, visits and wins, in arena order.
fn fingerprint(t: &Tree) -> Vec<(usize, u32, u32)> {
    t.nodes[..t.node_count()]
        .iter()
        .map(|n| (n.mv(), n.visits(), n.wins().to_bits()))
        .collect()
}

/// Virtual loss changes even a one-thread search: a node's count includes the visit
/// in flight while its child is chosen, so UCB's parent count is one higher. The engine
/// therefore runs one thread without it in both parallel modes, and
/// `one_thread_is_the_same_search_in_both_parallel_modes` (tests/search_engine.rs),
/// which would fail if a one-thread `parallel=tree` engine turned it on, has teeth.
#[test]
fn virtual_loss_changes_a_one_thread_search() {
    let grow = |virtual_loss: bool| {
        let (mut t, mut w) = worker(None, None);
        t.virtual_loss = virtual_loss;
        w.search(&t, &SimBudget::new(3000), None);
        assert_eq!(t.root().visits(), 3000);
        fingerprint(&t)
    };
    assert_ne!(grow(false), grow(true));
}

#[test]
fn shared_tree_counts_every_simulation_once() {
    let t = shared_search(4, 4000, None);
    // Every virtual visit was followed by its result: the root and its children account
    // for each simulation exactly once, as in the sequential search.
    assert_eq!(t.root().visits(), 4000);
    let children = t.root_children();
    assert_eq!(children.iter().map(|c| c.visits()).sum::<u32>(), 4000);
    let black_wins: f32 = children.iter().map(|c| c.wins()).sum();
    assert!((black_wins + t.root().wins() - 4000.0).abs() < 1e-3);
    // Every expanded node's visits cover its children's (a node is visited before any
    // child, and the visit that expanded it stopped there).
    for n in &t.nodes[..t.node_count()] {
        assert_ne!(
            n.first.load(Relaxed),
            EXPANDING,
            "an expansion left unfinished"
        );
        if let Some(kids) = n.children() {
            let through: u32 = t.nodes[kids.clone()].iter().map(|c| c.visits()).sum();
            assert!(through <= n.visits(), "{through} > {}", n.visits());
            assert_eq!(t.nodes[kids.end - 1].mv(), PASS_INDEX);
        }
    }
}

#[test]
fn shared_tree_prunes_like_the_sequential_one() {
    let prune = Some(TreePruning {
        slot: 0,
        x: 30,
        depth: 1,
    });
    let t = shared_search(3, 3000, prune);
    let by_depth = children_by_depth(&t);
    assert_eq!(by_depth[0], vec![82]);
    for counts in by_depth.iter().skip(1) {
        assert!(counts.iter().all(|&n| n <= 81 - 30 + 1), "{counts:?}");
    }
}

#[test]
fn one_worker_on_a_shared_tree_is_the_sequential_search() {
    let a = shared_search(1, 1500, None);
    let (b, mut w) = worker(None, None);
    w.rng = FastRng::for_stream(7, 0);
    w.search(&b, &SimBudget::new(1500), None);
    let stats = |t: &Tree| -> Vec<(usize, u32, f32)> {
        t.root_children()
            .iter()
            .map(|c| (c.mv(), c.visits(), c.wins()))
            .collect()
    };
    assert_eq!(stats(&a), stats(&b));
    assert_eq!(a.node_count(), b.node_count());
}

#[test]
fn a_full_arena_stops_expanding_without_losing_simulations() {
    let (mut t, mut w) = worker(None, None);
    t.settings.max_nodes = 1_000;
    t.nodes = zeroed_nodes(1_000);
    t.reset(Board::new(), Color::Black, 0);
    w.search(&t, &SimBudget::new(5000), None);
    assert!(t.node_count() <= 1_000);
    assert_eq!(t.root().visits(), 5000);
}

#[test]
fn widening_opens_the_ranked_candidates_as_visits_grow() {
    let w = Widening {
        slot: 0,
        k0: 3,
        base: 10.0,
        log_mult: 2f32.ln(),
    };
    let opens: Vec<usize> = [0, 9, 10, 19, 20, 40, 80, 1000]
        .iter()
        .map(|&n| w.open(n))
        .collect();
    assert_eq!(opens, [3, 3, 4, 4, 5, 6, 7, 10]);
    let (mut t, mut worker) = worker(None, None);
    t.settings.widen = Some(w);
    worker.search(&t, &SimBudget::new(400), None);
    // The root's block is ranked best first by the pruner (pass last), and selection
    // only visited the open prefix and the pass.
    let kids = t.root_children();
    let scores = *worker.slots[0].scores(&Board::new(), Color::Black, NO_LAST_MOVES);
    let ranked: Vec<f32> = kids[..kids.len() - 1]
        .iter()
        .map(|c| scores[c.mv()])
        .collect();
    assert!(ranked.windows(2).all(|p| p[0] <= p[1]), "{ranked:?}");
    let open = w.open(t.root().visits());
    assert!(open < 20, "{open}");
    for (k, c) in kids.iter().enumerate() {
        if k >= open && k + 1 < kids.len() {
            assert_eq!(c.visits(), 0, "closed candidate {k} was visited");
        }
    }
    assert!(kids[..open].iter().all(|c| c.visits() > 0));
}
