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
//!
//! Files: this one the kinds, building, identities and parsing; `keys.rs` the key
//! machinery; `uct_table.rs` the `uct` keys; `tables.rs` the small kinds' keys; `presets.rs`
//! the presets; `tests.rs` the tests.

use std::fmt;

use anyhow::{Context, anyhow, bail};

use super::engine::{Engine, EngineBuildError};
use super::flat::{FlatConfig, FlatEngine};
use super::pruning::{PlayoutEval, PruneCount};
use super::random::{RandomConfig, RandomEngine};
use super::uct::{
    Parallel, PlayoutKind, PlayoutPrune, Select, SoftPrune, TreePrune, UctConfig, UctEngine, Widen,
};
use crate::prune::name::PrunerName;
use crate::util::num::{MAX_SECONDS, MAX_THREADS};

mod keys;
mod presets;
mod tables;
mod uct_table;
pub use keys::*;
pub use presets::*;
pub use tables::*;
pub use uct_table::*;

// ---------------------------------------------------------------------------------------
// Engine kinds
// ---------------------------------------------------------------------------------------

/// An engine built from a spec, or why not.
pub type Built = Result<Box<dyn Engine>, EngineBuildError>;

/// One engine kind: the word before the first `:` of a spec.
pub struct EngineKind {
    /// The kind's word (`uct`, `flat`, ...).
    pub name: &'static str,
    /// One line saying what the engine is.
    pub doc: String,
    /// Builds the engine for a spec of this kind with a game's seed.
    pub build: fn(spec: &str, seed: u64) -> Built,
    /// The fully resolved config (defaults filled in) as pretty JSON.
    pub resolved: fn(spec: &str) -> anyhow::Result<String>,
    /// The canonical text of a spec: the keys not at their defaults, in table order.
    pub canonical: fn(spec: &str) -> anyhow::Result<String>,
    /// The keys of the kind named, for help texts and the generated key list.
    key_docs: fn(kind: &str) -> Vec<KeyDoc>,
}

impl EngineKind {
    /// The kind's keys with their defaults, for help texts and the generated key list.
    pub fn keys(&self) -> Vec<KeyDoc> {
        (self.key_docs)(self.name)
    }
}

/// Every engine kind an engine spec can name: `uct`, one kind per row of [`UCT_PRESETS`],
/// then the small kinds. GTP, matches and experiments all look kinds up here, so a kind that
/// one of them accepts, all accept.
pub static ENGINE_KINDS: std::sync::LazyLock<Vec<EngineKind>> = std::sync::LazyLock::new(|| {
    let uct = EngineKind {
        name: "uct",
        doc: "UCT tree search (the paper's engine) with tree, soft and playout pruning.".into(),
        build: build_uct_kind,
        resolved: resolved_uct_kind,
        canonical: |spec| Ok(parse_uct(spec)?.to_string()),
        key_docs: |_| key_docs(UCT_KEYS, &UctDraft::from(UctConfig::default())),
    };
    let presets = UCT_PRESETS.iter().map(|p| EngineKind {
        name: p.name,
        doc: p.kind_doc(),
        build: build_uct_kind,
        resolved: resolved_uct_kind,
        canonical: canonical_preset,
        key_docs: |kind| key_docs(UCT_KEYS, &UctDraft::from(preset_config(kind))),
    });
    std::iter::once(uct)
        .chain(presets)
        .chain(small_kinds())
        .collect()
});

/// The kinds without a tree of their own presets: flat Monte-Carlo, the territory player,
/// the random player.
fn small_kinds() -> [EngineKind; 3] {
    [
    EngineKind {
        name: "flat",
        doc: "Flat Monte-Carlo with UCB at the root, no tree (\"Moskit\").".into(),
        build: |spec, seed| {
            let cfg = parse_flat(spec)?;
            let e = FlatEngine::new(cfg, seed).with_context(|| format!("engine spec `{spec}`"))?;
            Ok(Box::new(e.with_name(spec)))
        },
        resolved: |spec| Ok(serde_json::to_string_pretty(&parse_flat(spec)?)?),
        canonical: |spec| Ok(parse_flat(spec)?.to_string()),
        key_docs: |_| key_docs(FLAT_KEYS, &FlatConfig::default()),
    },
    EngineKind {
        name: "territory",
        doc: "The rule-based territory-gain player (no search); its name carries its seed.".into(),
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
        key_docs: |_| key_docs(TERRITORY_KEYS, &None),
    },
    EngineKind {
        name: "random",
        doc: "Uniformly random legal moves that fill no own eye: the test engine and strength floor.".into(),
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
        key_docs: |_| key_docs(RANDOM_KEYS, &RandomConfig::default()),
    },
    ]
}

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
pub fn build_engine(spec: &str, seed: u64) -> Built {
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
        *name = resolved_pruner(name.clone());
    }
    serde_json::to_string(&c).unwrap_or_else(|_| spec.to_string())
}

/// A pruner name whose network folder is resolved to what it is (found as an engine finds
/// it, then through every symbolic link; `nn` and a bare `DIR` read as `nn:DIR`); a name
/// without a network as it is.
fn resolved_pruner(name: PrunerName) -> PrunerName {
    use crate::prune::name::{NetworkName, Weights};
    let PrunerName::Network(n) = name else {
        return name;
    };
    let dir = super::pruners::resolve_model_dir(n.weights.dir());
    let real = std::fs::canonicalize(&dir)
        .unwrap_or(dir)
        .display()
        .to_string();
    let weights = match n.weights {
        Weights::Quantized(_) => Weights::Quantized(real),
        Weights::Quantized7(_) => Weights::Quantized7(real),
        Weights::Default | Weights::Float(_) | Weights::Bare(_) => Weights::Float(real),
    };
    PrunerName::Network(NetworkName {
        views: n.views,
        weights,
    })
}

/// Builds an engine of any UCT kind (`uct` or a preset), named by its spec.
fn build_uct_kind(spec: &str, seed: u64) -> Built {
    let cfg = parse_uct_kind(spec)?;
    let e = UctEngine::new(cfg, seed).map_err(|e| e.context(format!("engine spec `{spec}`")))?;
    Ok(Box::new(e.with_name(spec)))
}

/// The resolved config of a spec of any UCT kind, as pretty JSON.
fn resolved_uct_kind(spec: &str) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(&parse_uct_kind(spec)?)?)
}

/// The model directories an engine spec loads (network pruners in any spelling: `nn`,
/// `nnq:DIR`, `sym8:nnq:DIR`, ...; `policy=` and `value=` networks), so that a match folder
/// can record which weights played. Empty for specs without networks (and for specs that do
/// not parse: those fail elsewhere with a better message).
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
        .filter_map(|p| Some(p.model_dir()?.to_path_buf()))
        .collect();
    dirs.sort();
    dirs.dedup();
    dirs
}

// ---------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------

/// Parses a `uct:...` spec into its config (defaults for keys not given), checked by
/// [`UctConfig::validate`].
pub fn parse_uct(spec: &str) -> anyhow::Result<UctConfig> {
    parse_uct_from("uct", UctConfig::default(), spec)
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
                .map(|p| p.name)
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
mod tests;
