//! Engine specs as text, one syntax for GTP, matches, experiments and benchmarks:
//!
//! ```text
//! uct:sims=10000,expand=10,c=0.4,prune=rule:41@0
//! uct:playout_prune=nn:0.6,playout_eval=move
//! uct:soft=nn:20:41@1            (20 lost visits for the 41 worst moves from depth 1)
//! flat:sims=100000,c=0.4
//! territory:seed=7
//! random:delay_ms=5
//! ```
//!
//! `KIND[:key=value,...]`. Pruner values are `PRUNER[:ARG]:...` where the trailing fields
//! are the numbers (`X[@D]` for `prune`, `SHARE` for `playout_prune`, `N:X[@D]` for `soft`)
//! and everything before them is the pruner's name ([`PrunerName`]: `rule`, `random`,
//! `random:7`, `nn`, `nn:models/x`, `sym8:nnq:models/x`, ...). A missing `@D` means depth 0.
//!
//! One registry, [`ENGINE_KINDS`], names every engine kind; GTP, matches, experiments and
//! benchmarks all build through [`build_engine`]. Each kind's keys live in one table of
//! [`Key`] rows (name, value type with its allowed range, doc line, how to set and print the
//! value; the default is the printed value of the kind's default config). Parsing, range
//! checks, the unknown-key error, `akushu gtp --help`, `docs/engine-specs.md` and printing a
//! config back to its spec ([`std::fmt::Display`]) all read those tables, so a key is added
//! in one place.

use std::fmt;

use anyhow::{Context, anyhow, bail};

use super::engine::Engine;
use super::flat::{FlatConfig, FlatEngine};
use super::pruning::{PlayoutEval, PruneCount};
use super::random::{RandomConfig, RandomEngine};
use super::uct::{
    Parallel, PlayoutKind, PlayoutPrune, Select, SoftPrune, TreePrune, UctConfig, UctEngine, Widen,
};
use crate::prune::name::PrunerName;
use crate::util::num::{MAX_SECONDS, MAX_THREADS};

// ---------------------------------------------------------------------------------------
// Engine kinds
// ---------------------------------------------------------------------------------------

/// One engine kind: the word before the first `:` of a spec.
pub struct EngineKind {
    /// The kind's word (`uct`, `flat`, ...).
    pub name: &'static str,
    /// One line saying what the engine is.
    pub doc: &'static str,
    /// Builds the engine for a spec of this kind with a game's seed.
    pub build: fn(spec: &str, seed: u64) -> anyhow::Result<Box<dyn Engine>>,
    /// The fully resolved config (defaults filled in) as pretty JSON.
    pub resolved: fn(spec: &str) -> anyhow::Result<String>,
    /// The canonical text of a spec: the keys not at their defaults, in table order.
    pub canonical: fn(spec: &str) -> anyhow::Result<String>,
    /// The kind's keys, for help texts and the generated key list.
    pub keys: fn() -> Vec<KeyDoc>,
}

/// Every engine kind an engine spec can name. GTP, matches and experiments all look kinds
/// up here, so a kind that one of them accepts, all accept.
pub static ENGINE_KINDS: &[EngineKind] = &[
    EngineKind {
        name: "uct",
        doc: "UCT tree search (the paper's engine) with tree, soft and playout pruning.",
        build: build_uct_kind,
        resolved: resolved_uct_kind,
        canonical: |spec| Ok(parse_uct(spec)?.to_string()),
        keys: || key_docs(UCT_KEYS, &UctDraft::from(UctConfig::default())),
    },
    EngineKind {
        name: "strong",
        doc: "The tuned UCT engine: `uct` with the keys of `STRONG_PRESET` (heavy playouts, RAVE, priors, network prior and pruning, tree-parallel threads, safe passes); keys given change the preset.",
        build: build_uct_kind,
        resolved: resolved_uct_kind,
        canonical: canonical_preset,
        keys: || key_docs(UCT_KEYS, &UctDraft::from(strong_config())),
    },
    EngineKind {
        name: "strong2",
        doc: "`strong` with the network evaluated by 8-bit integer convolutions (`nnq`, `STRONG2_PRESET`): the same prior and pruner, about 2.9 times faster per call; keys given change the preset.",
        build: build_uct_kind,
        resolved: resolved_uct_kind,
        canonical: canonical_preset,
        keys: || key_docs(UCT_KEYS, &UctDraft::from(preset_config("strong2"))),
    },
    EngineKind {
        name: "strong3",
        doc: "`strong2` whose networks see the last two moves before each position, as in training and `eval` (`STRONG3_PRESET`: `history=true`); keys given change the preset.",
        build: build_uct_kind,
        resolved: resolved_uct_kind,
        canonical: canonical_preset,
        keys: || key_docs(UCT_KEYS, &UctDraft::from(preset_config("strong3"))),
    },
    EngineKind {
        name: "strong4",
        doc: "`strong3` with `cnn-human-5x32-value` as prior and pruner and its value head mixed into every result at value_mix 0.5 (`STRONG4_PRESET`); keys given change the preset.",
        build: build_uct_kind,
        resolved: resolved_uct_kind,
        canonical: canonical_preset,
        keys: || key_docs(UCT_KEYS, &UctDraft::from(preset_config("strong4"))),
    },
    EngineKind {
        name: "strong5",
        doc: "A value-network search (`STRONG5_PRESET`): PUCT over the network distilled from KataGo's labels, its policy as priors and its value at every leaf (no playouts), spending nearly the whole clock, resigning lost games; keys given change the preset.",
        build: build_uct_kind,
        resolved: resolved_uct_kind,
        canonical: canonical_preset,
        keys: || key_docs(UCT_KEYS, &UctDraft::from(preset_config("strong5"))),
    },
    EngineKind {
        name: "flat",
        doc: "Flat Monte-Carlo with UCB at the root, no tree (\"Moskit\").",
        build: |spec, seed| {
            let cfg = parse_flat(spec)?;
            let e = FlatEngine::new(cfg, seed).with_context(|| format!("engine spec `{spec}`"))?;
            Ok(Box::new(e.with_name(spec)))
        },
        resolved: |spec| Ok(serde_json::to_string_pretty(&parse_flat(spec)?)?),
        canonical: |spec| Ok(parse_flat(spec)?.to_string()),
        keys: || key_docs(FLAT_KEYS, &FlatConfig::default()),
    },
    EngineKind {
        name: "territory",
        doc: "The rule-based territory-gain player (no search); its name carries its seed.",
        build: |spec, seed| {
            let seed = parse_territory(spec)?.unwrap_or(seed);
            Ok(Box::new(super::territory::TerritoryPlayer::new(seed)))
        },
        resolved: |spec| {
            let seed = parse_territory(spec)?;
            Ok(serde_json::to_string_pretty(&serde_json::json!({
                "seed": seed.map_or("the game's seed".to_string(), |s| s.to_string())
            }))?)
        },
        canonical: |spec| {
            Ok(print_keys(
                "territory",
                TERRITORY_KEYS,
                &parse_territory(spec)?,
                &None,
            ))
        },
        keys: || key_docs(TERRITORY_KEYS, &None),
    },
    EngineKind {
        name: "random",
        doc: "Uniformly random legal moves that fill no own eye: the test engine and strength floor.",
        build: |spec, seed| Ok(Box::new(RandomEngine::new(parse_random(spec)?, seed))),
        resolved: |spec| Ok(serde_json::to_string_pretty(&parse_random(spec)?)?),
        canonical: |spec| {
            let c = parse_random(spec)?;
            Ok(print_keys(
                "random",
                RANDOM_KEYS,
                &c,
                &RandomConfig::default(),
            ))
        },
        keys: || key_docs(RANDOM_KEYS, &RandomConfig::default()),
    },
];

/// The registered kind a spec names, or an error listing the known kinds.
pub fn engine_kind(spec: &str) -> anyhow::Result<&'static EngineKind> {
    let spec = spec.trim();
    let kind = split_kind(spec).0;
    ENGINE_KINDS.iter().find(|k| k.name == kind).ok_or_else(|| {
        let known: Vec<&str> = ENGINE_KINDS.iter().map(|k| k.name).collect();
        anyhow!(
            "engine spec `{spec}`: unknown engine `{kind}` (known: {})",
            known.join(", ")
        )
    })
}

/// Builds an engine from its spec; the engine's name is the spec (trimmed), except for
/// `territory` and `random`, whose names spell out their settings.
pub fn build_engine(spec: &str, seed: u64) -> anyhow::Result<Box<dyn Engine>> {
    let spec = spec.trim();
    (engine_kind(spec)?.build)(spec, seed)
}

/// The fully resolved config of a spec (defaults filled in) as pretty JSON, for printing at
/// the start of every run.
pub fn resolved_config(spec: &str) -> anyhow::Result<String> {
    let spec = spec.trim();
    (engine_kind(spec)?.resolved)(spec)
}

/// The canonical text of a spec: its kind and the keys not at their defaults, in the order
/// of the kind's key table. It parses to the same config as `spec`.
pub fn canonical_spec(spec: &str) -> anyhow::Result<String> {
    let spec = spec.trim();
    (engine_kind(spec)?.canonical)(spec)
}

/// What decides a spec's play, as text to compare two spellings by: a UCT kind's resolved
/// config (every default filled in, so `uct:sims=40` and `uct:sims=40,c=0.4` are one) with
/// each network folder resolved to what it is (so `./L/m` and `$PWD/L/m` are one); another
/// kind's canonical text; a spec that does not parse (a `gtp:` command), itself. Resumes
/// compare players by this, never by their spelling.
pub fn spec_identity(spec: &str) -> String {
    let spec = spec.trim();
    let Ok(mut c) = parse_uct_kind(spec) else {
        return canonical_spec(spec).unwrap_or_else(|_| spec.to_string());
    };
    let names = [
        c.prune.as_mut().map(|p| &mut p.pruner),
        c.playout_prune.as_mut().map(|p| &mut p.pruner),
        c.soft.as_mut().map(|p| &mut p.pruner),
        c.widen.as_mut().map(|w| &mut w.pruner),
        c.policy.as_mut(),
        c.value.as_mut(),
    ];
    for name in names.into_iter().flatten() {
        *name = resolved_pruner(name);
    }
    serde_json::to_string(&c).unwrap_or_else(|_| spec.to_string())
}

/// A pruner name whose network folder is resolved to what it is (found as an engine finds
/// it, then through every symbolic link; `nn` and a bare `DIR` read as `nn:DIR`); a name
/// without a network, or one that does not parse, as it is.
fn resolved_pruner(name: &str) -> String {
    use crate::prune::name::{NetworkName, Weights};
    let Ok(PrunerName::Network(n)) = name.parse::<PrunerName>() else {
        return name.to_string();
    };
    let dir = super::pruners::resolve_model_dir(n.weights.dir());
    let real = std::fs::canonicalize(&dir)
        .unwrap_or(dir)
        .display()
        .to_string();
    let weights = match n.weights {
        Weights::Quantized(_) => Weights::Quantized(real),
        Weights::Default | Weights::Float(_) | Weights::Bare(_) => Weights::Float(real),
    };
    NetworkName {
        views: n.views,
        weights,
    }
    .to_string()
}

/// Builds an engine of any UCT kind (`uct` or a preset), named by its spec.
fn build_uct_kind(spec: &str, seed: u64) -> anyhow::Result<Box<dyn Engine>> {
    let cfg = parse_uct_kind(spec)?;
    let e = UctEngine::new(cfg, seed).with_context(|| format!("engine spec `{spec}`"))?;
    Ok(Box::new(e.with_name(spec)))
}

/// The resolved config of a spec of any UCT kind, as pretty JSON.
fn resolved_uct_kind(spec: &str) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(&parse_uct_kind(spec)?)?)
}

/// The model directories an engine spec loads (network pruners in any spelling: `nn`,
/// `nnq:DIR`, `sym8:nnq:DIR`, ...; `policy=` and `value=` networks), so that a match folder
/// can record which weights played. Empty for specs without networks (and for specs that do
/// not parse: those fail elsewhere with a better message); a pruner name that does not parse
/// is left out the same way.
pub fn model_dirs(spec: &str) -> Vec<std::path::PathBuf> {
    let Ok(c) = parse_uct_kind(spec.trim()) else {
        return Vec::new();
    };
    let pruners = [
        c.prune.map(|p| p.pruner),
        c.playout_prune.map(|p| p.pruner),
        c.soft.map(|p| p.pruner),
        c.widen.map(|w| w.pruner),
        c.policy,
        c.value,
    ];
    let mut dirs: Vec<std::path::PathBuf> = pruners
        .into_iter()
        .flatten()
        .filter_map(|p| Some(p.parse::<PrunerName>().ok()?.model_dir()?.to_path_buf()))
        .collect();
    dirs.sort();
    dirs.dedup();
    dirs
}

// ---------------------------------------------------------------------------------------
// Key tables
// ---------------------------------------------------------------------------------------

/// What a key's value may be; checked when parsing and shown in help texts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ValueType {
    /// A whole number in `lo..=hi`.
    Whole { lo: u64, hi: u64 },
    /// A 32-bit real in `lo..=hi` (NaN and infinities refused).
    Real32 { lo: f32, hi: f32 },
    /// A 64-bit real in `lo..=hi` (NaN and infinities refused).
    Real64 { lo: f64, hi: f64 },
    /// `true`/`false` (also `on`/`off`, `yes`/`no`, `1`/`0`).
    Bool,
    /// One of the listed words.
    Choice(&'static [&'static str]),
    /// Structured text whose form (and the ranges of its numbers) the text describes; the
    /// key's setter checks it.
    Form(&'static str),
}

impl fmt::Display for ValueType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueType::Whole { lo, hi } => write!(f, "whole number, {lo} to {hi}"),
            ValueType::Real32 { lo, hi } => write!(f, "number, {lo} to {hi}"),
            ValueType::Real64 { lo, hi } => write!(f, "number, {lo} to {hi}"),
            ValueType::Bool => write!(f, "true or false"),
            ValueType::Choice(words) => write!(f, "{}", either(words)),
            ValueType::Form(form) => write!(f, "{form}"),
        }
    }
}

/// A key's value after its type and range were checked.
#[derive(Debug, Clone, Copy)]
pub enum Value<'a> {
    Whole(u64),
    Real32(f32),
    Real64(f64),
    Bool(bool),
    /// A `Choice` word or a `Form` text (the setter parses forms).
    Text(&'a str),
}

impl<'a> Value<'a> {
    /// The whole number, converted to the field's type (the key's range fits it).
    fn whole<T: TryFrom<u64>>(self) -> T {
        match self {
            Value::Whole(n) => T::try_from(n).ok().expect("a key's range fits its field"),
            other => unreachable!("key table: {other:?} is not a whole number"),
        }
    }
    fn real32(self) -> f32 {
        match self {
            Value::Real32(x) => x,
            other => unreachable!("key table: {other:?} is not a 32-bit real"),
        }
    }
    fn real64(self) -> f64 {
        match self {
            Value::Real64(x) => x,
            other => unreachable!("key table: {other:?} is not a 64-bit real"),
        }
    }
    fn boolean(self) -> bool {
        match self {
            Value::Bool(b) => b,
            other => unreachable!("key table: {other:?} is not a boolean"),
        }
    }
    fn text(self) -> &'a str {
        match self {
            Value::Text(t) => t,
            other => unreachable!("key table: {other:?} is not text"),
        }
    }
}

impl ValueType {
    /// Parses and checks `text` for `key`; errors name the key and the allowed values.
    pub fn parse<'a>(&self, key: &str, text: &'a str) -> anyhow::Result<Value<'a>> {
        Ok(match *self {
            ValueType::Whole { lo, hi } => Value::Whole(ranged(key, text, lo, hi)?),
            ValueType::Real32 { lo, hi } => Value::Real32(ranged(key, text, lo, hi)?),
            ValueType::Real64 { lo, hi } => Value::Real64(ranged(key, text, lo, hi)?),
            ValueType::Bool => Value::Bool(boolean(key, text)?),
            ValueType::Choice(words) => {
                if !words.contains(&text) {
                    bail!(
                        "key `{key}`: bad value `{text}` (expected {})",
                        either(words)
                    );
                }
                Value::Text(text)
            }
            ValueType::Form(_) => Value::Text(text),
        })
    }
}

/// One key of an engine kind's spec. `D` is the value being parsed (the config, or a draft
/// of it when one key's meaning waits for another).
pub struct Key<D> {
    pub name: &'static str,
    pub value: ValueType,
    /// One line for help texts and the key list.
    pub doc: &'static str,
    /// Stores a checked value.
    set: fn(&mut D, Value<'_>) -> anyhow::Result<()>,
    /// The value as spec text, `None` when the key has nothing to say (an unset option).
    get: fn(&D) -> Option<String>,
}

/// A key as documented: name, type and range, default, doc line.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyDoc {
    pub name: &'static str,
    pub value: ValueType,
    /// The default's spec text (`none` when the key is unset by default).
    pub default: String,
    pub doc: &'static str,
}

fn key_docs<D>(keys: &[Key<D>], default: &D) -> Vec<KeyDoc> {
    keys.iter()
        .map(|k| KeyDoc {
            name: k.name,
            value: k.value,
            default: (k.get)(default).unwrap_or_else(|| "none".into()),
            doc: k.doc,
        })
        .collect()
}

/// `a, b or c`.
fn either(words: &[&str]) -> String {
    match words.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Applies the `key=value` pairs of `spec` to `draft` through the kind's key table.
fn apply_keys<D>(kind: &str, keys: &[Key<D>], spec: &str, draft: &mut D) -> anyhow::Result<()> {
    for (k, v) in pairs(spec)? {
        let r: anyhow::Result<()> = (|| {
            let Some(key) = keys.iter().find(|key| key.name == k) else {
                let names: Vec<&str> = keys.iter().map(|key| key.name).collect();
                bail!("unknown key `{k}` ({kind} keys: {})", names.join(", "));
            };
            (key.set)(draft, key.value.parse(k, v)?)
        })();
        r.with_context(|| format!("engine spec `{spec}`"))?;
    }
    Ok(())
}

/// `kind[:key=value,...]` with the keys whose text differs from the default's, in table order.
fn print_keys<D>(kind: &str, keys: &[Key<D>], value: &D, default: &D) -> String {
    let items: Vec<String> = keys
        .iter()
        .filter_map(|k| {
            let v = (k.get)(value)?;
            ((k.get)(default).as_ref() != Some(&v)).then(|| format!("{}={v}", k.name))
        })
        .collect();
    if items.is_empty() {
        kind.to_string()
    } else {
        format!("{kind}:{}", items.join(","))
    }
}

/// A UCT config being parsed: `playout_eval` may come before `playout_prune`, so it waits
/// here until all keys are read.
pub struct UctDraft {
    config: UctConfig,
    eval: Option<PlayoutEval>,
}

impl From<UctConfig> for UctDraft {
    fn from(config: UctConfig) -> Self {
        UctDraft { config, eval: None }
    }
}

/// Points on the board: the most a pruner can prune.
const BOARD_POINTS: usize = crate::rules::NN;
/// Deepest tree depth a pruning key may name.
const MAX_PRUNE_DEPTH: u32 = 10_000;

fn some(text: impl ToString) -> Option<String> {
    Some(text.to_string())
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
            d.config.policy = Some(v.text().to_string());
            Ok(())
        },
        get: |d| d.config.policy.clone(),
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
            d.config.value = Some(v.text().to_string());
            Ok(())
        },
        get: |d| d.config.value.clone(),
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

/// Every key of `flat:` specs, in the order they are printed.
pub static FLAT_KEYS: &[Key<FlatConfig>] = &[
    Key {
        name: "sims",
        value: ValueType::Whole {
            lo: 1,
            hi: 1_000_000_000,
        },
        doc: "Simulations (playouts) per move.",
        set: |c, v| {
            c.sims = v.whole();
            Ok(())
        },
        get: |c| some(c.sims),
    },
    Key {
        name: "c",
        value: ValueType::Real32 { lo: 0.0, hi: 100.0 },
        doc: "UCB exploration constant.",
        set: |c, v| {
            c.c = v.real32();
            Ok(())
        },
        get: |c| some(c.c),
    },
    Key {
        name: "resign",
        value: ValueType::Real32 { lo: 0.0, hi: 1.0 },
        doc: "Resign below this win rate (0 = never).",
        set: |c, v| {
            c.resign = v.real32();
            Ok(())
        },
        get: |c| some(c.resign),
    },
    Key {
        name: "pass",
        value: ValueType::Bool,
        doc: "Pass after the opponent passed when the area count already wins.",
        set: |c, v| {
            c.pass_when_ahead = v.boolean();
            Ok(())
        },
        get: |c| some(c.pass_when_ahead),
    },
    Key {
        name: "playout_moves",
        value: ValueType::Whole { lo: 1, hi: 100_000 },
        doc: "Playout length cap in moves.",
        set: |c, v| {
            c.playout_moves = v.whole();
            Ok(())
        },
        get: |c| some(c.playout_moves),
    },
];

/// The keys of `territory:` specs (its own seed; `None` = the game's).
pub static TERRITORY_KEYS: &[Key<Option<u64>>] = &[Key {
    name: "seed",
    value: ValueType::Whole {
        lo: 0,
        hi: u64::MAX,
    },
    doc: "The player's own seed (default: the game's seed).",
    set: |s, v| {
        *s = Some(v.whole());
        Ok(())
    },
    get: |s| s.map(|n| n.to_string()),
}];

/// Longest pause the random mover may take per move, in milliseconds (one hour).
const MAX_DELAY_MS: u64 = 3_600_000;

/// The keys of `random:` specs.
pub static RANDOM_KEYS: &[Key<RandomConfig>] = &[Key {
    name: "delay_ms",
    value: ValueType::Whole {
        lo: 0,
        hi: MAX_DELAY_MS,
    },
    doc: "Milliseconds to sleep before each move (lets tests interrupt a match).",
    set: |c, v| {
        c.delay_ms = v.whole();
        Ok(())
    },
    get: |c| some(c.delay_ms),
}];

impl fmt::Display for UctConfig {
    /// The canonical spec: `uct` and the keys not at their defaults, in table order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value = UctDraft::from(self.clone());
        let default = UctDraft::from(UctConfig::default());
        f.write_str(&print_keys("uct", UCT_KEYS, &value, &default))
    }
}

impl fmt::Display for FlatConfig {
    /// The canonical spec: `flat` and the keys not at their defaults, in table order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print_keys("flat", FLAT_KEYS, self, &FlatConfig::default()))
    }
}

/// The key list of every engine kind as Markdown (`docs/engine-specs.md`, checked by a test
/// to match the tables).
pub fn key_list_markdown() -> String {
    let mut out = String::from(
        "# Engine spec keys\n\n\
         Generated from the key tables in `src/search/spec.rs` (a test checks that this file \
         matches them). A spec is `KIND[:key=value,...]`; keys left out take their defaults.\n",
    );
    for kind in ENGINE_KINDS {
        out.push_str(&format!("\n## `{}`\n\n{}\n\n", kind.name, kind.doc));
        out.push_str("| key | value | default | meaning |\n|---|---|---|---|\n");
        for k in (kind.keys)() {
            out.push_str(&format!(
                "| `{}` | {} | `{}` | {} |\n",
                k.name, k.value, k.default, k.doc
            ));
        }
    }
    out
}

/// The key list of every engine kind as plain text, for `--help`.
pub fn key_list_text() -> String {
    let mut out = String::from("Engine kinds and their keys (KIND[:key=value,...]):\n");
    for kind in ENGINE_KINDS {
        out.push_str(&format!("\n{}: {}\n", kind.name, kind.doc));
        for k in (kind.keys)() {
            out.push_str(&format!(
                "  {:<14} {} [{}; default {}]\n",
                k.name, k.doc, k.value, k.default
            ));
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------

fn split_kind(spec: &str) -> (&str, &str) {
    spec.split_once(':').unwrap_or((spec, ""))
}

/// The `key=value` pairs of a spec, checked for duplicates.
fn pairs(spec: &str) -> anyhow::Result<Vec<(&str, &str)>> {
    let (_, rest) = split_kind(spec);
    let mut out: Vec<(&str, &str)> = Vec::new();
    for item in rest.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (k, v) = item.split_once('=').ok_or_else(|| {
            anyhow!("engine spec `{spec}`: `{item}` is not of the form key=value")
        })?;
        let (k, v) = (k.trim(), v.trim());
        if out.iter().any(|(seen, _)| *seen == k) {
            bail!("engine spec `{spec}`: key `{k}` given twice");
        }
        out.push((k, v));
    }
    Ok(out)
}

/// A number for `key` in `lo..=hi` (NaN and infinities refused), the range named in errors.
fn ranged<T>(key: &str, v: &str, lo: T, hi: T) -> anyhow::Result<T>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display + std::fmt::Debug + Copy,
    T::Err: std::fmt::Display,
{
    crate::util::num::parse_in(&format!("key `{key}`"), v, lo, hi).map_err(anyhow::Error::msg)
}

fn boolean(key: &str, v: &str) -> anyhow::Result<bool> {
    match v {
        "true" | "on" | "yes" | "1" => Ok(true),
        "false" | "off" | "no" | "0" => Ok(false),
        _ => bail!("key `{key}`: bad value `{v}` (expected true or false)"),
    }
}

/// Splits `PRUNER[:ARG]:f1:...:fk` into the pruner spec and the last `k` fields.
fn pruner_and_fields<'a>(
    key: &str,
    v: &'a str,
    k: usize,
) -> anyhow::Result<(String, Vec<&'a str>)> {
    let parts: Vec<&str> = v.split(':').collect();
    if parts.len() < k + 1 || parts[0].is_empty() {
        bail!(
            "key `{key}`: bad value `{v}` (expected PRUNER[:ARG]{})",
            ":FIELD".repeat(k)
        );
    }
    let split = parts.len() - k;
    Ok((parts[..split].join(":"), parts[split..].to_vec()))
}

/// `X[@D]`: X of the board's 81 points, from depth D.
fn x_at_d(key: &str, text: &str) -> anyhow::Result<(usize, u32)> {
    let (x, d) = text.split_once('@').unwrap_or((text, "0"));
    Ok((
        ranged(key, x, 0, BOARD_POINTS)?,
        ranged(key, d, 0, MAX_PRUNE_DEPTH)?,
    ))
}

/// Parses a `uct:...` spec into its config (defaults for keys not given), checked by
/// [`UctConfig::validate`].
pub fn parse_uct(spec: &str) -> anyhow::Result<UctConfig> {
    parse_uct_from("uct", UctConfig::default(), spec)
}

/// The `strong` preset's settings as a `uct` spec: heavy playouts, RAVE, heuristic and
/// network priors, network tree pruning below the root, one shared tree for all threads,
/// and passes that never lose by the count. `strong` specs set keys on top of these.
pub const STRONG_PRESET: &str = "uct:c=0,parallel=tree,safe_pass=true,\
    prune=nn:models/cnn-human-5x32-gpu2:65@1,prune_count=board,rave=3500,priors=true,\
    policy=nn:models/cnn-human-5x32-gpu2,playout=heavy,ladders=true,expand=3,history=false";

/// The `strong2` preset: `strong` with both networks evaluated by 8-bit integer
/// convolutions (`nnq`, see `net::quant`), which cost about a third of the float pass.
///
/// Both presets were recorded when the search gave its networks no last moves, so they pin
/// `history=false` and their games replay; `strong3` is `strong2` with the history.
pub const STRONG2_PRESET: &str = "uct:c=0,parallel=tree,safe_pass=true,\
    prune=nnq:models/cnn-human-5x32-gpu2:65@1,prune_count=board,rave=3500,priors=true,\
    policy=nnq:models/cnn-human-5x32-gpu2,playout=heavy,ladders=true,expand=3,history=false";

/// The `strong3` preset: `strong2` whose networks see the last two moves, as they did in
/// training and in `eval`.
pub const STRONG3_PRESET: &str = "uct:c=0,parallel=tree,safe_pass=true,\
    prune=nnq:models/cnn-human-5x32-gpu2:65@1,prune_count=board,rave=3500,priors=true,\
    policy=nnq:models/cnn-human-5x32-gpu2,playout=heavy,ladders=true,expand=3,history=true";

/// The `strong4` preset: `strong3` with the network that has a value head
/// (`cnn-human-5x32-value`) as prior and pruner, its win probability mixed into every
/// simulation's result at value_mix 0.5 (AlphaGo's lambda), at no extra evaluation.
pub const STRONG4_PRESET: &str = "uct:c=0,parallel=tree,safe_pass=true,\
    prune=nnq:models/cnn-human-5x32-value:65@1,prune_count=board,rave=3500,priors=true,\
    policy=nnq:models/cnn-human-5x32-value,value=nnq:models/cnn-human-5x32-value,value_mix=0.5,\
    playout=heavy,ladders=true,expand=3,history=true";

/// The `strong5` preset: a value-network search in KataGo's and Leela Zero's manner. PUCT
/// over the 8-bit network distilled from KataGo's b6c96 labels (`cnn-distilled-b6c96`: its
/// policy as the priors, its value as every leaf's result, no playouts), one shared tree for
/// its threads, nearly the whole clock spent (10 ms kept back), and resignation once the best
/// move's win rate falls below 3% over at least 500 visits. `cpuct` 0.5, `fpu` 0.2 and
/// `fpu_root` 0.1 were chosen by matches (docs/value-search.md).
pub const STRONG5_PRESET: &str = "uct:sims=50000,parallel=tree,resign=0.03,safe_pass=true,\
    resign_visits=500,max_nodes=4194304,policy=nnq:models/cnn-distilled-b6c96,select=puct,\
    value=nnq:models/cnn-distilled-b6c96,value_mix=1,time_safety=0.01,history=true";

/// The UCT presets by kind word. A preset never changes once specs that name it are
/// recorded (match folders, experiment files): a better one gets a new word, as new weights
/// get a new model directory.
pub const UCT_PRESETS: &[(&str, &str)] = &[
    ("strong", STRONG_PRESET),
    ("strong2", STRONG2_PRESET),
    ("strong3", STRONG3_PRESET),
    ("strong4", STRONG4_PRESET),
    ("strong5", STRONG5_PRESET),
];

/// The preset `uct` spec of a kind word, if it names a preset.
fn preset(kind: &str) -> Option<&'static str> {
    UCT_PRESETS
        .iter()
        .find(|(k, _)| *k == kind)
        .map(|(_, p)| *p)
}

/// A preset's config (`kind` must be one of [`UCT_PRESETS`]).
pub fn preset_config(kind: &str) -> UctConfig {
    let p = preset(kind).unwrap_or_else(|| panic!("`{kind}` is not a UCT preset"));
    parse_uct(p).unwrap_or_else(|e| panic!("the {kind} preset parses: {e:#}"))
}

/// The `strong` preset's config.
pub fn strong_config() -> UctConfig {
    preset_config("strong")
}

/// A spec of a preset kind (`strong:...`, `strong2:...`): the preset with its keys changed.
pub fn parse_preset(spec: &str) -> anyhow::Result<UctConfig> {
    let kind = split_kind(spec.trim()).0;
    let Some(p) = preset(kind) else {
        bail!("engine spec `{spec}`: `{kind}` is not a UCT preset");
    };
    parse_uct_from(kind, parse_uct(p)?, spec)
}

fn canonical_preset(spec: &str) -> anyhow::Result<String> {
    let kind = split_kind(spec.trim()).0;
    let value = UctDraft::from(parse_preset(spec)?);
    let default = UctDraft::from(preset_config(kind));
    Ok(print_keys(kind, UCT_KEYS, &value, &default))
}

/// A spec of any UCT kind (`uct:...` or a preset such as `strong:...`) as its config.
pub fn parse_uct_kind(spec: &str) -> anyhow::Result<UctConfig> {
    match split_kind(spec.trim()).0 {
        "uct" => parse_uct(spec),
        kind if preset(kind).is_some() => parse_preset(spec),
        other => bail!(
            "engine spec `{spec}`: `{other}` is not a UCT engine (uct, {})",
            UCT_PRESETS
                .iter()
                .map(|(k, _)| *k)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Applies a spec's keys to `base` (the `uct` table serves both UCT kinds).
fn parse_uct_from(kind: &str, base: UctConfig, spec: &str) -> anyhow::Result<UctConfig> {
    let mut d = UctDraft::from(base);
    apply_keys(kind, UCT_KEYS, spec, &mut d)?;
    let mut c = d.config;
    if let Some(e) = d.eval {
        match &mut c.playout_prune {
            Some(pp) => pp.eval = e,
            None => bail!("engine spec `{spec}`: key `playout_eval` needs `playout_prune`"),
        }
    }
    c.validate()
        .with_context(|| format!("engine spec `{spec}`"))?;
    Ok(c)
}

/// Checks each field of `value` that a key sets against that key's row: the value's spec
/// text must parse and pass the row's range, as if it had been written in a spec. The
/// values are stored into `scratch`.
fn check_ranges<D>(keys: &[Key<D>], value: &D, scratch: &mut D) -> anyhow::Result<()> {
    for key in keys {
        if let Some(text) = (key.get)(value) {
            (key.set)(scratch, key.value.parse(key.name, &text)?)?;
        }
    }
    Ok(())
}

/// [`check_ranges`] for a UCT config.
fn check_uct_ranges(c: &UctConfig) -> anyhow::Result<()> {
    let mut scratch = UctDraft::from(UctConfig::default());
    check_ranges(UCT_KEYS, &UctDraft::from(c.clone()), &mut scratch)
}

// The engines' `validate` methods live here, beside the key tables whose ranges they check,
// so that the engine files below this one need not import it.

impl UctConfig {
    /// Checks every field against the range of its spec key (values set in code, not parsed,
    /// meet the same bounds) and the combinations of keys. Spec parsing and
    /// [`UctEngine::new`] both call it, so no engine runs on a config outside these bounds.
    pub fn validate(&self) -> anyhow::Result<()> {
        // Ranges: each field against its spec key's row, so code and specs share one bound.
        check_uct_ranges(self)?;
        // Combinations no single key can refuse.
        anyhow::ensure!(
            self.playout == PlayoutKind::Uniform || self.playout_prune.is_none(),
            "playout=territory or heavy cannot be combined with playout_prune"
        );
        anyhow::ensure!(
            self.root_noise == 0.0 || self.policy.is_some(),
            "root_noise mixes noise into the policy prior: give a policy too"
        );
        if self.select == Select::Puct {
            // PUCT's prior is a probability and its values are the mean results: prior visits
            // (heuristic priors) and AMAF blending would change what both mean.
            anyhow::ensure!(
                !self.priors,
                "select=puct takes its priors from `policy`: turn priors (prior visits) off"
            );
            anyhow::ensure!(
                self.rave == 0.0,
                "select=puct does not blend RAVE: set rave=0"
            );
        }
        Ok(())
    }
}

impl FlatConfig {
    /// Checks every field against the range of its spec key (values set in code meet the
    /// same bounds as parsed ones).
    pub fn validate(&self) -> anyhow::Result<()> {
        check_ranges(FLAT_KEYS, self, &mut FlatConfig::default())
    }
}

/// Parses a `territory[:seed=N]` spec: its own seed, if it names one. The player's name
/// has this form, so a logged name rebuilds the same player.
fn parse_territory(spec: &str) -> anyhow::Result<Option<u64>> {
    let mut seed = None;
    apply_keys("territory", TERRITORY_KEYS, spec, &mut seed)?;
    Ok(seed)
}

/// Parses a `random[:delay_ms=N]` spec.
pub fn parse_random(spec: &str) -> anyhow::Result<RandomConfig> {
    let mut c = RandomConfig::default();
    apply_keys("random", RANDOM_KEYS, spec, &mut c)?;
    Ok(c)
}

/// Parses a `flat:...` spec into its config.
pub fn parse_flat(spec: &str) -> anyhow::Result<FlatConfig> {
    let mut c = FlatConfig::default();
    apply_keys("flat", FLAT_KEYS, spec, &mut c)?;
    c.validate()
        .with_context(|| format!("engine spec `{spec}`"))?;
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `strong4` is the spec its matches measured: `strong3` with the value network's keys
    /// (`experiments/value_vs_strong3.toml`).
    #[test]
    fn none_clears_every_optional_network_key_as_documented() {
        let bare = parse_uct_kind("uct").unwrap();
        let explicit = parse_uct_kind(
            "uct:prune=none,playout_prune=none,soft=none,widen=none,policy=none,value=none",
        )
        .unwrap();
        assert_eq!(format!("{bare:?}"), format!("{explicit:?}"));
        let preset = parse_uct_kind("strong3").unwrap();
        assert!(preset.prune.is_some() && preset.policy.is_some());
        let cleared = parse_uct_kind("strong3:prune=none,policy=none").unwrap();
        assert!(cleared.prune.is_none() && cleared.policy.is_none());
    }

    /// A value network that is not the policy's is weights that played too: match and
    /// self-play headers checksum every directory this lists.
    #[test]
    fn model_dirs_lists_a_separate_value_network() {
        let dirs = model_dirs("strong2:value=nnq:models/cnn-human-5x32-value,value_mix=0.5");
        let names: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        assert_eq!(
            names,
            ["models/cnn-human-5x32-gpu2", "models/cnn-human-5x32-value"]
        );
        assert_eq!(
            model_dirs("strong4").len(),
            1,
            "one model named three times"
        );
    }

    /// Every spelling of a network names its directory, `symN:` ones included, so a match
    /// header checksums the weights a `sym8:nnq:` pruner reads; pruners without weights
    /// name none.
    #[test]
    fn model_dirs_reads_every_network_spelling() {
        let dirs = model_dirs(
            "uct:prune=sym8:nnq:models/x:65@1,playout_prune=sym2:models/y:0.5,\
             soft=nn:20:41@1,widen=sym4:nn:models/w:2:40:2",
        );
        let names: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        assert_eq!(
            names,
            ["models/default", "models/w", "models/x", "models/y"]
        );
        let dirs = model_dirs("uct:prune=rule:41@0,playout_prune=random:3:0.5,soft=kakeme:9:9");
        assert!(dirs.is_empty(), "{dirs:?}");
    }

    #[test]
    fn strong4_is_strong3_with_the_value_network() {
        let net = "nnq:models/cnn-human-5x32-value";
        let measured = parse_uct_from(
            "strong3",
            preset_config("strong3"),
            &format!("strong3:policy={net},prune={net}:65@1,value={net},value_mix=0.5"),
        )
        .unwrap();
        assert_eq!(preset_config("strong4").to_string(), measured.to_string());
    }

    #[test]
    fn parses_the_documented_forms() {
        let c = parse_uct("uct:sims=500,expand=3,c=0.7,prune=rule:41@2").unwrap();
        assert_eq!((c.sims, c.expand, c.c), (500, 3, 0.7));
        let p = c.prune.unwrap();
        assert_eq!((p.pruner.as_str(), p.x, p.depth), ("rule", 41, 2));
        let c = parse_uct("uct:prune=nn:models/a:30,playout_prune=random:3:0.6,playout_eval=move")
            .unwrap();
        let p = c.prune.unwrap();
        assert_eq!((p.pruner.as_str(), p.x, p.depth), ("nn:models/a", 30, 0));
        let pp = c.playout_prune.unwrap();
        assert_eq!((pp.pruner.as_str(), pp.share), ("random:3", 0.6));
        assert_eq!(pp.eval, PlayoutEval::Move);
        let s = parse_uct("uct:soft=nn:20:41@1").unwrap().soft.unwrap();
        assert_eq!(
            (s.pruner.as_str(), s.visits, s.x, s.depth),
            ("nn", 20, 41, 1)
        );
        assert_eq!(parse_uct("uct").unwrap(), UctConfig::default());
        assert!(!UctConfig::default().heavy.ladders);
        assert!(!UctConfig::default().heavy.semeai);
        assert!(
            parse_uct("uct:playout=heavy,semeai=true")
                .unwrap()
                .heavy
                .semeai
        );
        assert!(
            parse_uct("uct:playout=heavy,ladders=true")
                .unwrap()
                .heavy
                .ladders
        );
        let f = parse_flat("flat:sims=100000,c=0.4").unwrap();
        assert_eq!((f.sims, f.c), (100_000, 0.4));
    }

    #[test]
    fn errors_name_the_key() {
        let msg = |s: &str| format!("{:#}", build_engine(s, 1).err().expect(s));
        assert!(msg("uct:simz=3").contains("`simz`"));
        assert!(msg("uct:sims=abc").contains("`sims`"));
        assert!(msg("uct:prune=rule").contains("`prune`"));
        assert!(msg("uct:playout_prune=rule:1.5").contains("`playout_prune`"));
        assert!(msg("uct:playout_eval=move").contains("playout_prune"));
        assert!(msg("uct:sims=1,sims=2").contains("twice"));
        // Numbers are range-checked where they are parsed; NaN and infinities never pass.
        for (spec, key) in [
            ("uct:prune=nn:200@0", "prune"),
            ("uct:playout_moves=0", "playout_moves"),
            ("uct:c=NaN", "`c`"),
            ("uct:max_seconds=inf", "max_seconds"),
            ("uct:max_seconds=1e300", "max_seconds"),
            ("uct:rave=NaN", "rave"),
            ("uct:resign=inf", "resign"),
            ("uct:soft=rule:70000:41", "soft"),
            ("flat:c=inf", "`c`"),
            ("flat:sims=0", "sims"),
        ] {
            let m = msg(spec);
            assert!(m.contains(key) && m.contains("allowed"), "{spec}: {m}");
        }
        assert!(msg("uct:prune=nn:no/such/model:41@0").contains("no/such/model"));
        assert!(msg("territory:x=1").contains("`x`"));
        assert!(msg("territory:seed=abc").contains("`seed`"));
        assert!(msg("uct:prune=bogus:41").contains("bogus"));
        assert!(msg("flat:expand=3").contains("`expand`"));
        assert!(msg("mcts:sims=3").contains("unknown engine"));
        assert!(msg("uct:sims").contains("key=value"));
        assert!(msg("uct:threads=100000").contains("threads"));
        assert!(msg("uct:cache=99999999999").contains("cache"));
        assert!(msg("uct:playout=heavy,playout_prune=rule:0.5").contains("playout_prune"));
        // PUCT's priors are probabilities and its values mean results: prior visits and
        // RAVE's blend are refused beside it, and its numbers are range-checked.
        assert!(msg("uct:select=puct,priors=true").contains("priors"));
        assert!(msg("uct:select=puct,rave=3500").contains("rave"));
        assert!(msg("uct:select=puck").contains("`select`"));
        for (spec, key) in [
            ("uct:select=puct,cpuct=-1", "cpuct"),
            ("uct:select=puct,fpu=2", "fpu"),
            ("uct:select=puct,pass_prior=NaN", "pass_prior"),
            ("uct:select=puct,cpuct_base=0", "cpuct_base"),
        ] {
            let m = msg(spec);
            assert!(m.contains(key) && m.contains("allowed"), "{spec}: {m}");
        }
    }

    /// `strong5` is a PUCT search whose policy and value are one distilled network (one
    /// evaluation a visit), with no playouts, and which spends nearly the whole clock.
    #[test]
    fn strong5_is_a_value_only_puct_search_on_one_network() {
        let c = preset_config("strong5");
        assert_eq!(c.select, Select::Puct);
        assert_eq!(c.value_mix, 1.0);
        assert_eq!(c.policy, c.value);
        assert!(c.policy.as_deref().unwrap().contains("cnn-distilled-b6c96"));
        assert!(c.time_safety <= 0.01 && c.resign > 0.0 && c.resign_visits >= 100);
        assert!(!c.priors && c.rave == 0.0);
    }

    #[test]
    fn a_territory_players_name_rebuilds_it() {
        let e = build_engine("territory", 42).unwrap();
        assert_eq!(e.name(), "territory:seed=42");
        let again = build_engine(&e.name(), 7).unwrap();
        assert_eq!(again.name(), "territory:seed=42", "the spec's seed wins");
        assert!(resolved_config("territory:seed=42").unwrap().contains("42"));
        assert!(resolved_config("territory").is_ok());
    }

    #[test]
    fn random_specs_never_panic() {
        use crate::util::rng::FastRng;
        let parts = [
            "uct",
            "flat",
            ":",
            ",",
            "=",
            "@",
            "sims",
            "1",
            "0",
            "-1",
            "nan",
            "1e99",
            "prune",
            "rule",
            "random",
            "nn",
            "soft",
            "playout_prune",
            "playout_eval",
            "move",
            "leaf",
            "0.6",
            "41",
            "c",
            "threads",
            "keep",
            "cache",
            "expand",
            "max_nodes",
            "",
            " ",
        ];
        let mut rng = FastRng::new(8);
        let mut built = 0;
        for _ in 0..3000 {
            let n = 1 + rng.below(10) as usize;
            let spec: String = (0..n)
                .map(|_| parts[rng.below(parts.len() as u32) as usize])
                .collect();
            // Keep accidental giant searches out: only parse + build, never search.
            if build_engine(&spec, 1).is_ok() {
                built += 1;
            }
        }
        assert!(built > 0);
    }

    /// Specs covering every key of every kind, each written canonically: non-default keys in
    /// table order, pruning depths spelled out.
    const CANONICAL: &[&str] = &[
        "uct",
        "uct:sims=500,expand=3,c=0.7,prune=rule:41@2",
        "uct:sims=2000,expand=5,c=0,threads=2,parallel=tree,reuse=false,resign=0.05,pass=false,\
         safe_pass=true,resign_visits=500,\
         max_nodes=5000,playout_moves=300,prune=nn:models/cnn:65@0,prune_count=board,keep=3,\
         history=false,cache=128,max_seconds=0.25,time_safety=0.5,rave=3500,priors=true,policy=nn:models/mlp-planes,\
         policy_weight=50,playout=heavy,ladders=true,semeai=true",
        "uct:playout_prune=random:3:0.6,playout_eval=move,soft=nn:20:41@1",
        "uct:widen=nn:models/cnn:4:20:1.5",
        "uct:playout_prune=nn:0.6",
        "uct:playout=territory",
        "uct:value=nnq:models/cnn-human-5x32-value,value_mix=0.25",
        "uct:policy=nn:models/cnn,root_noise=0.25,root_noise_alpha=0.3",
        "uct:policy=nn:models/cnn,select=puct,cpuct=0.8,cpuct_log=0.45,cpuct_base=1000,fpu=0.3,\
         fpu_root=0,pass_prior=0.02,value=nnq:models/cnn-human-5x32-value,value_mix=1",
        "flat",
        "flat:sims=5000,c=0.3,resign=0.1,pass=false,playout_moves=200",
        "territory",
        "territory:seed=42",
        "random",
        "random:delay_ms=5",
    ];

    /// The canonical spec of a non-canonical one, for the round-trip cases.
    const RESTATED: &[(&str, &str)] = &[
        ("uct:sims=10000,expand=10", "uct"),
        ("uct:prune=rule:41,sims=50", "uct:sims=50,prune=rule:41@0"),
        (" uct:c=0.40, reuse=on ,pass=1", "uct"),
        (
            "uct:playout_eval=move,playout_prune=rule:0.5",
            "uct:playout_prune=rule:0.5,playout_eval=move",
        ),
        (
            "uct:playout_eval=leaf,playout_prune=rule:0.5",
            "uct:playout_prune=rule:0.5",
        ),
        (
            "uct:max_seconds=1e-1,rave=1e3",
            "uct:max_seconds=0.1,rave=1000",
        ),
        ("flat:sims=100000,c=0.4", "flat"),
        ("random:delay_ms=0", "random"),
    ];

    #[test]
    fn every_uct_and_flat_key_is_in_a_canonical_case() {
        for (kind, names) in [
            ("uct", UCT_KEYS.iter().map(|k| k.name).collect::<Vec<_>>()),
            ("flat", FLAT_KEYS.iter().map(|k| k.name).collect()),
            ("territory", TERRITORY_KEYS.iter().map(|k| k.name).collect()),
            ("random", RANDOM_KEYS.iter().map(|k| k.name).collect()),
        ] {
            for name in names {
                let needle = format!("{name}=");
                let used = CANONICAL.iter().any(|s| {
                    s.starts_with(&format!("{kind}:"))
                        && s.split([':', ',']).any(|item| item.starts_with(&needle))
                });
                assert!(used, "{kind} key `{name}` has no round-trip case");
            }
        }
    }

    #[test]
    fn a_spec_prints_back_to_the_text_it_was_parsed_from() {
        for &spec in CANONICAL {
            assert_eq!(
                canonical_spec(spec).unwrap(),
                spec,
                "canonical text changed"
            );
        }
        for &(spec, canonical) in RESTATED {
            assert_eq!(canonical_spec(spec).unwrap(), canonical, "{spec}");
        }
        // parse(print(parse(s))) == parse(s), and the printed text is a fixed point.
        for spec in CANONICAL.iter().chain(RESTATED.iter().map(|(s, _)| s)) {
            let printed = canonical_spec(spec).unwrap();
            assert_eq!(canonical_spec(&printed).unwrap(), printed);
            assert_eq!(
                resolved_config(&printed).unwrap(),
                resolved_config(spec).unwrap(),
                "{spec} -> {printed}"
            );
            match split_kind(spec.trim()).0 {
                "uct" => assert_eq!(parse_uct(&printed).unwrap(), parse_uct(spec).unwrap()),
                "flat" => assert_eq!(parse_flat(&printed).unwrap(), parse_flat(spec).unwrap()),
                "territory" => assert_eq!(
                    parse_territory(&printed).unwrap(),
                    parse_territory(spec).unwrap()
                ),
                _ => assert_eq!(parse_random(&printed).unwrap(), parse_random(spec).unwrap()),
            }
        }
        assert_eq!(
            UctConfig::default().to_string(),
            "uct",
            "Display is the canonical spec"
        );
        assert_eq!(FlatConfig::default().to_string(), "flat");
    }

    #[test]
    fn random_valid_uct_configs_round_trip() {
        use crate::util::rng::FastRng;
        // Values drawn per key from its own table row: the printed spec of any config the
        // table can make parses back to that config.
        let mut rng = FastRng::new(11);
        for _ in 0..500 {
            let mut items = Vec::new();
            for k in UCT_KEYS {
                if rng.below(3) != 0 {
                    continue;
                }
                let v = match k.value {
                    ValueType::Whole { lo, hi } => {
                        (lo + u64::from(rng.below(1000)).min(hi - lo)).to_string()
                    }
                    ValueType::Real32 { lo, hi } => {
                        (lo + (hi - lo) * rng.below(1_000_001) as f32 / 1e6).to_string()
                    }
                    ValueType::Real64 { lo, hi } => {
                        (lo + (hi - lo) * f64::from(rng.below(1_000_001)) / 1e6).to_string()
                    }
                    ValueType::Bool => ["true", "false"][rng.below(2) as usize].to_string(),
                    ValueType::Choice(words) => {
                        words[rng.below(words.len() as u32) as usize].into()
                    }
                    ValueType::Form(_) => match k.name {
                        "prune" => format!("rule:{}@{}", rng.below(82), rng.below(4)),
                        "soft" => format!(
                            "random:7:{}:{}@{}",
                            rng.below(100),
                            rng.below(82),
                            rng.below(3)
                        ),
                        "playout_prune" => format!("nn:models/x:{}", rng.below(101) as f32 / 100.0),
                        _ => "nn:models/y".to_string(),
                    },
                };
                items.push(format!("{}={v}", k.name));
            }
            let spec = format!("uct:{}", items.join(","));
            let Ok(c) = parse_uct(&spec) else {
                continue; // combinations validate() refuses
            };
            let printed = c.to_string();
            assert_eq!(parse_uct(&printed).unwrap(), c, "{spec} -> {printed}");
            assert_eq!(parse_uct(&printed).unwrap().to_string(), printed);
        }
    }

    #[test]
    fn unknown_keys_and_kinds_list_the_tables() {
        let msg = |s: &str| format!("{:#}", build_engine(s, 1).err().expect(s));
        let m = msg("uct:simz=3");
        for k in UCT_KEYS {
            assert!(
                m.contains(&format!("{},", k.name)) || m.ends_with(&format!("{})", k.name)),
                "{m}"
            );
        }
        let m = msg("mcts");
        for kind in ENGINE_KINDS {
            assert!(m.contains(kind.name), "{m}");
        }
        assert!(msg("random:speed=5").contains("random keys: delay_ms"));
        assert!(msg("random:delay_ms=x").contains("`delay_ms`"));
        assert!(msg("random:delay_ms=99999999999").contains("allowed"));
        assert!(msg("uct:playout=fast").contains("uniform, heavy or territory"));
    }

    #[test]
    fn every_kind_builds_and_plays_from_its_bare_spec() {
        for kind in ENGINE_KINDS {
            let spec = if kind.name == "uct" || kind.name == "flat" {
                format!("{}:sims=20", kind.name)
            } else {
                kind.name.to_string()
            };
            let mut e = build_engine(&spec, 3).unwrap_or_else(|e| panic!("{spec}: {e:#}"));
            e.new_game(6.5);
            let (mv, _) = e.genmove(crate::rules::Color::Black);
            assert!(matches!(mv, crate::search::EngineMove::Play(_)), "{spec}");
            assert!(resolved_config(&spec).is_ok(), "{spec}");
            assert!(!(kind.keys)().is_empty(), "{spec}");
        }
    }

    #[test]
    fn the_key_list_document_matches_the_tables() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/engine-specs.md");
        let want = key_list_markdown();
        if std::env::var_os("AKUSHU_WRITE_SPEC_DOC").is_some() {
            std::fs::write(&path, &want).unwrap();
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "docs/engine-specs.md is out of date: rerun this test with AKUSHU_WRITE_SPEC_DOC=1"
        );
        for kind in ENGINE_KINDS {
            for k in (kind.keys)() {
                assert!(have.contains(&format!("| `{}` |", k.name)));
            }
        }
    }

    #[test]
    fn validate_holds_configs_set_in_code_to_the_key_ranges() {
        /// A change to a valid config, made in code rather than in a spec.
        type Spoil = fn(&mut UctConfig);
        let bad: [(&str, Spoil); 9] = [
            ("`c`", |c| c.c = f32::NAN),
            ("`threads`", |c| c.threads = 0),
            ("`threads`", |c| c.threads = 1000),
            ("`max_seconds`", |c| c.max_seconds = f64::INFINITY),
            ("`policy_weight`", |c| c.policy_weight = 2000.0),
            ("`sims`", |c| c.sims = 0),
            ("`prune`", |c| {
                c.prune = Some(TreePrune {
                    pruner: "rule".into(),
                    x: 200,
                    depth: 0,
                })
            }),
            ("`playout_prune`", |c| {
                c.playout_prune = Some(PlayoutPrune {
                    pruner: "rule".into(),
                    share: 1.5,
                    eval: PlayoutEval::Leaf,
                })
            }),
            ("playout_prune", |c| {
                c.playout = PlayoutKind::Heavy;
                c.playout_prune = parse_uct("uct:playout_prune=rule:0.5")
                    .unwrap()
                    .playout_prune;
            }),
        ];
        for (key, spoil) in bad {
            let mut c = UctConfig::default();
            spoil(&mut c);
            let e = format!("{:#}", c.validate().expect_err(key));
            assert!(e.contains(key), "{key}: {e}");
            assert!(UctEngine::new(c, 1).is_err(), "{key}");
        }
        assert!(UctConfig::default().validate().is_ok());
        let flat = FlatConfig {
            c: f32::INFINITY,
            ..FlatConfig::default()
        };
        assert!(format!("{:#}", flat.validate().unwrap_err()).contains("`c`"));
        assert!(FlatEngine::new(flat, 1).is_err());
    }

    #[test]
    fn built_engine_is_named_by_its_spec() {
        let e = build_engine("uct:sims=50,prune=rule:10@1", 1).unwrap();
        assert_eq!(e.name(), "uct:sims=50,prune=rule:10@1");
    }
}
