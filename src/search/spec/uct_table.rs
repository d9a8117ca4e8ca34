//! The key table of `uct:` specs (the presets set the same keys) and the draft it fills.

use super::*;

/// A UCT config being parsed: `playout_eval` may come before `playout_prune`, so it waits
/// here until all keys are read.
pub struct UctDraft {
    pub(super) config: UctConfig,
    pub(super) eval: Option<PlayoutEval>,
}

impl From<UctConfig> for UctDraft {
    fn from(config: UctConfig) -> Self {
        UctDraft { config, eval: None }
    }
}

/// Every key of `uct:` specs, in the order they are printed.
pub static UCT_KEYS: &[Key<UctDraft>] = &[
    Key {
        name: "sims",
        value: ValueType::Whole {
            lo: 1,
            hi: 100_000_000,
        },
        doc: "Simulations (playouts) per move.",
        set: |d, v| {
            d.config.sims = v.whole();
            Ok(())
        },
        get: |d| some(d.config.sims),
    },
    Key {
        name: "expand",
        value: ValueType::Whole {
            lo: 1,
            hi: 1_000_000,
        },
        doc: "A node is expanded once it has been visited this many times.",
        set: |d, v| {
            d.config.expand = v.whole();
            Ok(())
        },
        get: |d| some(d.config.expand),
    },
    Key {
        name: "c",
        value: ValueType::Real32 { lo: 0.0, hi: 100.0 },
        doc: "UCB1 exploration constant.",
        set: |d, v| {
            d.config.c = v.real32();
            Ok(())
        },
        get: |d| some(d.config.c),
    },
    Key {
        name: "threads",
        value: ValueType::Whole {
            lo: 1,
            hi: MAX_THREADS as u64,
        },
        doc: "Search threads (1 = deterministic for a seed).",
        set: |d, v| {
            d.config.threads = v.whole();
            Ok(())
        },
        get: |d| some(d.config.threads),
    },
    Key {
        name: "parallel",
        value: ValueType::Choice(&["root", "tree"]),
        doc: "How threads share the search: a tree each, summed at the root (root), or one shared tree with virtual loss (tree).",
        set: |d, v| {
            d.config.parallel = match v.text() {
                "tree" => Parallel::Tree,
                _ => Parallel::Root,
            };
            Ok(())
        },
        get: |d| {
            some(match d.config.parallel {
                Parallel::Root => "root",
                Parallel::Tree => "tree",
            })
        },
    },
    Key {
        name: "reuse",
        value: ValueType::Bool,
        doc: "Keep the subtree of the moves played between searches.",
        set: |d, v| {
            d.config.reuse = v.boolean();
            Ok(())
        },
        get: |d| some(d.config.reuse),
    },
    Key {
        name: "resign",
        value: ValueType::Real32 { lo: 0.0, hi: 1.0 },
        doc: "Resign below this win rate (0 = never).",
        set: |d, v| {
            d.config.resign = v.real32();
            Ok(())
        },
        get: |d| some(d.config.resign),
    },
    Key {
        name: "pass",
        value: ValueType::Bool,
        doc: "Pass after the opponent passed when the area count already wins.",
        set: |d, v| {
            d.config.pass_when_ahead = v.boolean();
            Ok(())
        },
        get: |d| some(d.config.pass_when_ahead),
    },
    Key {
        name: "safe_pass",
        value: ValueType::Bool,
        doc: "Never pass while the area count says the pass loses (a board move is played instead).",
        set: |d, v| {
            d.config.safe_pass = v.boolean();
            Ok(())
        },
        get: |d| some(d.config.safe_pass),
    },
    Key {
        name: "resign_visits",
        value: ValueType::Whole {
            lo: 0,
            hi: 100_000_000,
        },
        doc: "Resign only when the best move has at least this many simulations.",
        set: |d, v| {
            d.config.resign_visits = v.whole();
            Ok(())
        },
        get: |d| some(d.config.resign_visits),
    },
    Key {
        name: "resign_turns",
        value: ValueType::Whole { lo: 0, hi: 1000 },
        doc: "Resign also after this many own moves in a row below the resign win rate, whatever their simulations (KataGo's resignConsecTurns; 0 = resign_visits alone).",
        set: |d, v| {
            d.config.resign_turns = v.whole();
            Ok(())
        },
        get: |d| some(d.config.resign_turns),
    },
    Key {
        name: "lcb",
        value: ValueType::Real32 { lo: 0.0, hi: 1.0 },
        doc: "Play the move with the best lower confidence bound on its win rate among those with at least this share of the most-visited move's visits (Leela Zero's and KataGo's rule; 0 = the most visited).",
        set: |d, v| {
            d.config.lcb = v.real32();
            Ok(())
        },
        get: |d| some(d.config.lcb),
    },
    Key {
        name: "max_nodes",
        value: ValueType::Whole {
            lo: 1_000,
            hi: 1 << 24,
        },
        doc: "Node budget per tree (32 bytes each).",
        set: |d, v| {
            d.config.max_nodes = v.whole();
            Ok(())
        },
        get: |d| some(d.config.max_nodes),
    },
    Key {
        name: "playout_moves",
        value: ValueType::Whole { lo: 1, hi: 100_000 },
        doc: "Playout length cap in moves.",
        set: |d, v| {
            d.config.playout_moves = v.whole();
            Ok(())
        },
        get: |d| some(d.config.playout_moves),
    },
    Key {
        name: "prune",
        value: ValueType::Form("PRUNER:X[@D], X 0 to 81, D 0 to 10000"),
        doc: "Tree pruning: drop the X worst moves at every node from depth D.",
        set: |d, v| {
            // `none`, the documented default, also clears a preset's value.
            if v.text() == "none" {
                d.config.prune = None;
                return Ok(());
            }
            let (pruner, f) = pruner_and_fields("prune", v.text(), 1)?;
            let (x, depth) = x_at_d("prune", f[0])?;
            d.config.prune = Some(TreePrune { pruner, x, depth });
            Ok(())
        },
        get: |d| {
            let p = d.config.prune.as_ref()?;
            some(format!("{}:{}@{}", p.pruner, p.x, p.depth))
        },
    },
    Key {
        name: "prune_count",
        value: ValueType::Choice(&["legal", "board"]),
        doc: "What X counts: the X worst legal moves, or the 81-X best points kept (the paper).",
        set: |d, v| {
            d.config.prune_count = match v.text() {
                "board" => PruneCount::Board,
                _ => PruneCount::Legal,
            };
            Ok(())
        },
        get: |d| {
            some(match d.config.prune_count {
                PruneCount::Legal => "legal",
                PruneCount::Board => "board",
            })
        },
    },
    Key {
        name: "keep",
        value: ValueType::Whole {
            lo: 0,
            hi: BOARD_POINTS as u64,
        },
        doc: "Tree pruning never leaves fewer board moves than this at a node.",
        set: |d, v| {
            d.config.keep_min = v.whole();
            Ok(())
        },
        get: |d| some(d.config.keep_min),
    },
    Key {
        name: "playout_prune",
        value: ValueType::Form("PRUNER:SHARE, SHARE 0 to 1"),
        doc: "Playout pruning: the playouts never play this share of the empty points.",
        set: |d, v| {
            // `none`, the documented default, also clears a preset's value.
            if v.text() == "none" {
                d.config.playout_prune = None;
                return Ok(());
            }
            let (pruner, f) = pruner_and_fields("playout_prune", v.text(), 1)?;
            let share: f32 = ranged("playout_prune", f[0], 0.0, 1.0)?;
            let eval = PlayoutEval::default();
            d.config.playout_prune = Some(PlayoutPrune {
                pruner,
                share,
                eval,
            });
            Ok(())
        },
        get: |d| {
            let p = d.config.playout_prune.as_ref()?;
            some(format!("{}:{}", p.pruner, p.share))
        },
    },
    Key {
        name: "playout_eval",
        value: ValueType::Choice(&["leaf", "move"]),
        doc: "When the playout pruner is asked: once per tree leaf, or before every playout move.",
        set: |d, v| {
            d.eval = Some(match v.text() {
                "move" => PlayoutEval::Move,
                _ => PlayoutEval::Leaf,
            });
            Ok(())
        },
        // Without playout pruning the key reads as its default, so it is never printed alone.
        get: |d| match d
            .config
            .playout_prune
            .as_ref()
            .map_or(PlayoutEval::Leaf, |p| p.eval)
        {
            PlayoutEval::Leaf => some("leaf"),
            PlayoutEval::Move => some("move"),
        },
    },
    Key {
        name: "soft",
        value: ValueType::Form("PRUNER:N:X[@D], N 0 to 65535, X 0 to 81, D 0 to 10000"),
        doc: "Soft pruning: N lost prior visits for the X worst moves from depth D.",
        set: |d, v| {
            // `none`, the documented default, also clears a preset's value.
            if v.text() == "none" {
                d.config.soft = None;
                return Ok(());
            }
            let (pruner, f) = pruner_and_fields("soft", v.text(), 2)?;
            let visits = ranged("soft", f[0], 0, u16::MAX)?;
            let (x, depth) = x_at_d("soft", f[1])?;
            d.config.soft = Some(SoftPrune {
                pruner,
                visits,
                x,
                depth,
            });
            Ok(())
        },
        get: |d| {
            let p = d.config.soft.as_ref()?;
            some(format!("{}:{}:{}@{}", p.pruner, p.visits, p.x, p.depth))
        },
    },
    Key {
        name: "widen",
        value: ValueType::Form("PRUNER:K0:BASE:MULT, K0 1 to 81, BASE 1 to 1e6, MULT 1.01 to 100"),
        doc: "Progressive widening: candidates ranked by the pruner; K0 open at first, one more at BASE visits and at every MULT times as many.",
        set: |d, v| {
            // `none`, the documented default, also clears a preset's value.
            if v.text() == "none" {
                d.config.widen = None;
                return Ok(());
            }
            let (pruner, f) = pruner_and_fields("widen", v.text(), 3)?;
            d.config.widen = Some(Widen {
                pruner,
                k0: ranged("widen", f[0], 1, BOARD_POINTS)?,
                base: ranged("widen", f[1], 1.0, 1e6)?,
                mult: ranged("widen", f[2], 1.01, 100.0)?,
            });
            Ok(())
        },
        get: |d| {
            let w = d.config.widen.as_ref()?;
            some(format!("{}:{}:{}:{}", w.pruner, w.k0, w.base, w.mult))
        },
    },
    Key {
        name: "history",
        value: ValueType::Bool,
        doc: "Give the networks the last two moves before each position they rate (the last-move planes training filled); off, they see none, as `strong` and `strong2` do.",
        set: |d, v| {
            d.config.history = v.boolean();
            Ok(())
        },
        get: |d| some(d.config.history),
    },
    Key {
        name: "cache",
        value: ValueType::Whole { lo: 0, hi: 1 << 20 },
        doc: "Entries of each pruner's score cache (324 bytes each).",
        set: |d, v| {
            d.config.cache = v.whole();
            Ok(())
        },
        get: |d| some(d.config.cache),
    },
    Key {
        name: "max_seconds",
        value: ValueType::Real64 {
            lo: 0.0,
            hi: MAX_SECONDS,
        },
        doc: "Stop a move's search after this many seconds (0 = no limit).",
        set: |d, v| {
            d.config.max_seconds = v.real64();
            Ok(())
        },
        get: |d| some(d.config.max_seconds),
    },
    Key {
        name: "time_safety",
        value: ValueType::Real64 { lo: 0.0, hi: 60.0 },
        doc: "Seconds every clock budget keeps back for the controller's lag.",
        set: |d, v| {
            d.config.time_safety = v.real64();
            Ok(())
        },
        get: |d| some(d.config.time_safety),
    },
    Key {
        name: "rave",
        value: ValueType::Real32 { lo: 0.0, hi: 1e9 },
        doc: "RAVE equivalence parameter (0 = plain UCT; michi uses 3500).",
        set: |d, v| {
            d.config.rave = v.real32();
            Ok(())
        },
        get: |d| some(d.config.rave),
    },
    Key {
        name: "priors",
        value: ValueType::Bool,
        doc: "Heuristic priors (captures, shapes, distance) for new nodes.",
        set: |d, v| {
            d.config.priors = v.boolean();
            Ok(())
        },
        get: |d| some(d.config.priors),
    },
    Key {
        name: "policy",
        value: ValueType::Form("PRUNER (e.g. nn:models/mlp-planes)"),
        doc: "Network policy prior: new moves start with policy_weight * sqrt(p) won visits.",
        set: |d, v| {
            // `none`, the documented default, also clears a preset's value.
            if v.text() == "none" {
                d.config.policy = None;
                return Ok(());
            }
            d.config.policy = Some(pruner_name("policy", v.text())?);
            Ok(())
        },
        get: |d| d.config.policy.as_ref().map(|p| p.to_string()),
    },
    Key {
        name: "policy_weight",
        value: ValueType::Real32 {
            lo: 0.0,
            hi: 1000.0,
        },
        doc: "Weight of the policy prior.",
        set: |d, v| {
            d.config.policy_weight = v.real32();
            Ok(())
        },
        get: |d| some(d.config.policy_weight),
    },
    Key {
        name: "select",
        value: ValueType::Choice(&["ucb", "puct"]),
        doc: "Child selection: ucb (UCB1, RAVE with rave > 0; leaves played out after `expand` visits) or puct (AlphaZero/KataGo: policy priors, every leaf expanded at once and valued by `value`).",
        set: |d, v| {
            d.config.select = match v.text() {
                "puct" => Select::Puct,
                _ => Select::Ucb,
            };
            Ok(())
        },
        get: |d| {
            some(match d.config.select {
                Select::Ucb => "ucb",
                Select::Puct => "puct",
            })
        },
    },
    Key {
        name: "cpuct",
        value: ValueType::Real32 { lo: 0.0, hi: 100.0 },
        doc: "PUCT exploration weight c in Q + c * P * sqrt(N) / (1 + n), win rates in 0..1.",
        set: |d, v| {
            d.config.cpuct = v.real32();
            Ok(())
        },
        get: |d| some(d.config.cpuct),
    },
    Key {
        name: "cpuct_log",
        value: ValueType::Real32 { lo: 0.0, hi: 100.0 },
        doc: "Growth of cpuct with a node's visits N: cpuct + cpuct_log * ln((N + cpuct_base) / cpuct_base) (KataGo's form; 0 = constant).",
        set: |d, v| {
            d.config.cpuct_log = v.real32();
            Ok(())
        },
        get: |d| some(d.config.cpuct_log),
    },
    Key {
        name: "cpuct_base",
        value: ValueType::Real32 { lo: 1.0, hi: 1.0e9 },
        doc: "The visits base of cpuct's growth.",
        set: |d, v| {
            d.config.cpuct_base = v.real32();
            Ok(())
        },
        get: |d| some(d.config.cpuct_base),
    },
    Key {
        name: "fpu",
        value: ValueType::Real32 { lo: 0.0, hi: 1.0 },
        doc: "PUCT first-play urgency reduction below the root: an unvisited child is valued at its parent's value less fpu * sqrt(prior of the visited children).",
        set: |d, v| {
            d.config.fpu = v.real32();
            Ok(())
        },
        get: |d| some(d.config.fpu),
    },
    Key {
        name: "fpu_root",
        value: ValueType::Real32 { lo: 0.0, hi: 1.0 },
        doc: "PUCT first-play urgency reduction at the root.",
        set: |d, v| {
            d.config.fpu_root = v.real32();
            Ok(())
        },
        get: |d| some(d.config.fpu_root),
    },
    Key {
        name: "pass_prior",
        value: ValueType::Real32 { lo: 0.0, hi: 1.0 },
        doc: "PUCT prior probability of the pass (the networks rate board points only; the board moves share the rest).",
        set: |d, v| {
            d.config.pass_prior = v.real32();
            Ok(())
        },
        get: |d| some(d.config.pass_prior),
    },
    Key {
        name: "value",
        value: ValueType::Form("PRUNER with a value head (e.g. nnq:models/cnn-human-5x32-value)"),
        doc: "Mix this network's win probability into every result (AlphaGo's leaf evaluation, value_mix its share); name the policy's model and it costs no extra evaluation.",
        set: |d, v| {
            // `none`, the documented default, also clears a preset's value.
            if v.text() == "none" {
                d.config.value = None;
                return Ok(());
            }
            d.config.value = Some(pruner_name("value", v.text())?);
            Ok(())
        },
        get: |d| d.config.value.as_ref().map(|v| v.to_string()),
    },
    Key {
        name: "value_mix",
        value: ValueType::Real32 { lo: 0.0, hi: 1.0 },
        doc: "The value's share of each result (lambda): 0 playouts only, 1 the value only (no playouts).",
        set: |d, v| {
            d.config.value_mix = v.real32();
            Ok(())
        },
        get: |d| some(d.config.value_mix),
    },
    Key {
        name: "root_noise",
        value: ValueType::Real32 { lo: 0.0, hi: 1.0 },
        doc: "Self-play diversity (AlphaZero's root noise): this share of the root's policy prior is a Dirichlet draw (0 = off; needs policy; trees are then not reused between moves).",
        set: |d, v| {
            d.config.root_noise = v.real32();
            Ok(())
        },
        get: |d| some(d.config.root_noise),
    },
    Key {
        name: "root_noise_alpha",
        value: ValueType::Real32 {
            lo: 0.001,
            hi: 100.0,
        },
        doc: "Concentration of the root noise's Dirichlet distribution (about 10 / the number of legal moves, KataGo's rule).",
        set: |d, v| {
            d.config.root_noise_alpha = v.real32();
            Ok(())
        },
        get: |d| some(d.config.root_noise_alpha),
    },
    Key {
        name: "playout",
        value: ValueType::Choice(&["uniform", "heavy", "territory"]),
        doc: "Playout policy: uniform (light), heavy (MoGo-style) or territory-gain moves.",
        set: |d, v| {
            d.config.playout = match v.text() {
                "heavy" => PlayoutKind::Heavy,
                "territory" => PlayoutKind::Territory,
                _ => PlayoutKind::Uniform,
            };
            Ok(())
        },
        get: |d| {
            some(match d.config.playout {
                PlayoutKind::Uniform => "uniform",
                PlayoutKind::Heavy => "heavy",
                PlayoutKind::Territory => "territory",
            })
        },
    },
    Key {
        name: "ladders",
        value: ValueType::Bool,
        doc: "Heavy playouts read ladders before escaping or chasing.",
        set: |d, v| {
            d.config.heavy.ladders = v.boolean();
            Ok(())
        },
        get: |d| some(d.config.heavy.ladders),
    },
    Key {
        name: "semeai",
        value: ValueType::Bool,
        doc: "Heavy playouts play two-liberty fights (capturing races) after atari moves.",
        set: |d, v| {
            d.config.heavy.semeai = v.boolean();
            Ok(())
        },
        get: |d| some(d.config.heavy.semeai),
    },
];
