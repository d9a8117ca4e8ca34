//! The UCT presets (`strong` to `strong8`): one table of kind words, each a `uct` spec
//! written out or another preset's search over a new network, and parsing and printing
//! specs that name them.

use super::*;
use crate::prune::name::{NetworkName, Weights};

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

/// What a preset is built from.
pub enum PresetBase {
    /// A `uct` spec written out in full.
    Spec(&'static str),
    /// Another preset's search over one network, spelled `nnq:models/NETWORK` as both the
    /// policy and the value: presets that differ in their weights alone say so by being
    /// written this way.
    Network {
        of: &'static str,
        network: &'static str,
    },
}

/// One UCT preset: its kind word, what it is built from and one line saying what it is.
pub struct UctPreset {
    pub name: &'static str,
    pub base: PresetBase,
    pub doc: &'static str,
}

/// The engine `gtp` and `analysis` play when no `--engine` is given.
pub const DEFAULT_ENGINE: &str = "strong8";

/// The UCT presets in the order they were made. A preset never changes once specs that name
/// it are recorded (match folders, experiment files): a better one gets a new word, as new
/// weights get a new model directory.
pub const UCT_PRESETS: &[UctPreset] = &[
    UctPreset {
        name: "strong",
        base: PresetBase::Spec(STRONG_PRESET),
        doc: "The tuned UCT engine: `uct` with heavy playouts, RAVE, priors, network prior and pruning, tree-parallel threads and safe passes",
    },
    UctPreset {
        name: "strong2",
        base: PresetBase::Spec(STRONG2_PRESET),
        doc: "`strong` with the network evaluated by 8-bit integer convolutions (`nnq`): the same prior and pruner, about 2.9 times faster per call",
    },
    UctPreset {
        name: "strong3",
        base: PresetBase::Spec(STRONG3_PRESET),
        doc: "`strong2` whose networks see the last two moves before each position, as in training and `eval` (`history=true`)",
    },
    UctPreset {
        name: "strong4",
        base: PresetBase::Spec(STRONG4_PRESET),
        doc: "`strong3` with `cnn-human-5x32-value` as prior and pruner and its value head mixed into every result at value_mix 0.5",
    },
    UctPreset {
        name: "strong5",
        base: PresetBase::Spec(STRONG5_PRESET),
        doc: "A value-network search: PUCT over the network distilled from KataGo's labels, its policy as priors and its value at every leaf (no playouts), spending nearly the whole clock, resigning lost games",
    },
    // `strong6` to `strong8` keep `strong5`'s search and change the network alone
    // (docs/value-search.md, "The network's training" and "The network's shape"); `strong7`
    // costs about three times `strong6` a visit and won 65/100 against it at equal CPU,
    // measured at fixed visits (600 against 1,800; report/runs/net_shape_equal_cpu_cosine).
    UctPreset {
        name: "strong6",
        base: PresetBase::Network {
            of: "strong5",
            network: "cnn-distilled-b6c96-cosine",
        },
        doc: "its network trained further on the same KataGo labels with an annealed learning rate",
    },
    UctPreset {
        name: "strong7",
        base: PresetBase::Network {
            of: "strong6",
            network: "cnn-distilled-b6c96-6x64-cosine",
        },
        doc: "the 6x64 network distilled from the same KataGo labels and annealed: fewer, better evaluations a second",
    },
    UctPreset {
        name: "strong8",
        base: PresetBase::Network {
            of: "strong7",
            network: "cnn-distilled-b6c96-6x64-cosine3",
        },
        doc: "the same 6x64 network trained three epochs more with the rate annealed again",
    },
];

impl UctPreset {
    /// The line `--help` and docs/engine-specs.md give the preset's kind.
    pub fn kind_doc(&self) -> String {
        let what = match self.base {
            PresetBase::Spec(_) => self.doc.to_string(),
            PresetBase::Network { of, network } => {
                format!("`{of}`'s search over `{network}`, {}", self.doc)
            }
        };
        let default = if self.name == DEFAULT_ENGINE {
            "; the default of `gtp` and `analysis`"
        } else {
            ""
        };
        format!("{what}{default}; keys given change the preset.")
    }

    /// The preset's config: its spec parsed, or its base preset's with the network changed.
    pub fn config(&self) -> UctConfig {
        match self.base {
            PresetBase::Spec(spec) => {
                parse_uct(spec).unwrap_or_else(|e| panic!("the {} preset parses: {e:#}", self.name))
            }
            PresetBase::Network { of, network } => {
                let mut c = preset_config(of);
                let weights = PrunerName::Network(NetworkName {
                    views: 1,
                    weights: Weights::Quantized(format!("models/{network}")),
                });
                c.policy = Some(weights.clone());
                c.value = Some(weights);
                c
            }
        }
    }
}

/// The preset a kind word names, if any.
pub(super) fn preset(kind: &str) -> Option<&'static UctPreset> {
    UCT_PRESETS.iter().find(|p| p.name == kind)
}

/// A preset's config (`kind` must be one of [`UCT_PRESETS`]).
pub fn preset_config(kind: &str) -> UctConfig {
    preset(kind)
        .unwrap_or_else(|| panic!("`{kind}` is not a UCT preset"))
        .config()
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
    parse_uct_from(kind, p.config(), spec)
}

pub(super) fn canonical_preset(spec: &str) -> anyhow::Result<String> {
    let kind = split_kind(spec.trim()).0;
    let value = UctDraft::from(parse_preset(spec)?);
    let default = UctDraft::from(preset_config(kind));
    Ok(print_keys(kind, UCT_KEYS, &value, &default))
}
