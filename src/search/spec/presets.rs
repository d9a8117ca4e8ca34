//! The UCT presets (`strong` to `strong8`): fixed `uct` specs under a kind word of their
//! own, and parsing and printing specs that name them.

use super::*;

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

/// The `strong6` preset: `strong5`'s search over `cnn-distilled-b6c96-cosine`, the same
/// network trained three epochs more on the same KataGo labels with the learning rate
/// annealed (a cosine to 2% of it). Every search setting is `strong5`'s, so the two differ
/// in the network alone (docs/value-search.md, "The network's training").
pub const STRONG6_PRESET: &str = "uct:sims=50000,parallel=tree,resign=0.03,safe_pass=true,\
    resign_visits=500,max_nodes=4194304,policy=nnq:models/cnn-distilled-b6c96-cosine,\
    select=puct,value=nnq:models/cnn-distilled-b6c96-cosine,value_mix=1,time_safety=0.01,\
    history=true";

/// The `strong7` preset: `strong6`'s search over `cnn-distilled-b6c96-6x64-cosine`, the 6x64
/// network distilled from the same labels and annealed the same way. A visit costs about
/// three times `strong6`'s; at equal CPU, measured at fixed visits (600 against `strong6`'s
/// 1,800), it is the stronger, 65/100 (`report/runs/net_shape_equal_cpu_cosine`;
/// docs/value-search.md, "The network's shape").
pub const STRONG7_PRESET: &str = "uct:sims=50000,parallel=tree,resign=0.03,safe_pass=true,\
    resign_visits=500,max_nodes=4194304,policy=nnq:models/cnn-distilled-b6c96-6x64-cosine,\
    select=puct,value=nnq:models/cnn-distilled-b6c96-6x64-cosine,value_mix=1,time_safety=0.01,\
    history=true";

/// The `strong8` preset: `strong7`'s search over `cnn-distilled-b6c96-6x64-cosine3`, the same
/// 6x64 network trained three epochs more on the same labels with the rate annealed again
/// (docs/value-search.md, "The network's training").
pub const STRONG8_PRESET: &str = "uct:sims=50000,parallel=tree,resign=0.03,safe_pass=true,\
    resign_visits=500,max_nodes=4194304,policy=nnq:models/cnn-distilled-b6c96-6x64-cosine3,\
    select=puct,value=nnq:models/cnn-distilled-b6c96-6x64-cosine3,value_mix=1,\
    time_safety=0.01,history=true";

/// The UCT presets by kind word. A preset never changes once specs that name it are
/// recorded (match folders, experiment files): a better one gets a new word, as new weights
/// get a new model directory.
pub const UCT_PRESETS: &[(&str, &str)] = &[
    ("strong", STRONG_PRESET),
    ("strong2", STRONG2_PRESET),
    ("strong3", STRONG3_PRESET),
    ("strong4", STRONG4_PRESET),
    ("strong5", STRONG5_PRESET),
    ("strong6", STRONG6_PRESET),
    ("strong7", STRONG7_PRESET),
    ("strong8", STRONG8_PRESET),
];

/// The preset `uct` spec of a kind word, if it names a preset.
pub(super) fn preset(kind: &str) -> Option<&'static str> {
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

pub(super) fn canonical_preset(spec: &str) -> anyhow::Result<String> {
    let kind = split_kind(spec.trim()).0;
    let value = UctDraft::from(parse_preset(spec)?);
    let default = UctDraft::from(preset_config(kind));
    Ok(print_keys(kind, UCT_KEYS, &value, &default))
}
