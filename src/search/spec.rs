//! Engine specs as text, one syntax for GTP, tournaments and benchmarks:
//!
//! ```text
//! uct:sims=10000,expand=10,c=0.4,prune=rule:41@0
//! uct:playout_prune=nn:0.6,playout_eval=move
//! uct:soft=nn:20:41@1            (20 lost visits for the 41 worst moves from depth 1)
//! flat:sims=100000,c=0.4
//! ```
//!
//! `KIND[:key=value,...]`. Pruner values are `PRUNER[:ARG]:...` where the trailing fields
//! are the numbers (`X[@D]` for `prune`, `SHARE` for `playout_prune`, `N:X[@D]` for `soft`)
//! and everything before them names the pruner for [`crate::prune::registry::make_pruner`]
//! (`rule`, `random`, `random:7`, `nn`, `nn:models/x`). A missing `@D` means depth 0.
//!
//! UCT keys: `sims expand c threads reuse resign pass max_nodes playout_moves prune
//! prune_count keep playout_prune playout_eval soft cache max_seconds rave priors policy policy_weight`; flat keys: `sims c
//! resign pass playout_moves`. Unknown keys and bad values are errors naming the key.

use anyhow::{Context, anyhow, bail};

use super::engine::Engine;
use super::flat::{FlatConfig, FlatEngine};
use super::pruning::{PlayoutEval, PruneCount};
use super::uct::{PlayoutKind, PlayoutPrune, SoftPrune, TreePrune, UctConfig, UctEngine};

/// Builds an engine from its spec; the engine's name is the spec.
pub fn build_engine(spec: &str, seed: u64) -> anyhow::Result<Box<dyn Engine>> {
    let spec = spec.trim();
    let (kind, _) = split_kind(spec);
    match kind {
        "uct" => {
            let cfg = parse_uct(spec)?;
            let e = UctEngine::new(cfg, seed).with_context(|| format!("engine spec `{spec}`"))?;
            Ok(Box::new(e.with_name(spec)))
        }
        "flat" => {
            let cfg = parse_flat(spec)?;
            let e = FlatEngine::new(cfg, seed).with_context(|| format!("engine spec `{spec}`"))?;
            Ok(Box::new(e.with_name(spec)))
        }
        "territory" => {
            let seed = parse_territory(spec)?.unwrap_or(seed);
            Ok(Box::new(crate::analysis::TerritoryPlayer::new(seed)))
        }
        other => {
            bail!("engine spec `{spec}`: unknown engine `{other}` (known: uct, flat, territory)")
        }
    }
}

/// The fully resolved config of a spec (defaults filled in) as pretty JSON, for printing at
/// the start of every run.
pub fn resolved_config(spec: &str) -> anyhow::Result<String> {
    let spec = spec.trim();
    Ok(match split_kind(spec).0 {
        "uct" => serde_json::to_string_pretty(&parse_uct(spec)?)?,
        "flat" => serde_json::to_string_pretty(&parse_flat(spec)?)?,
        "territory" => serde_json::to_string_pretty(&serde_json::json!({
            "seed": parse_territory(spec)?.map_or("the game's seed".to_string(), |s| s.to_string())
        }))?,
        other => {
            bail!("engine spec `{spec}`: unknown engine `{other}` (known: uct, flat, territory)")
        }
    })
}

/// The model directories an engine spec loads (`nn` pruners and `policy=nn:...`), so that
/// a match folder can record which weights played. Empty for specs without networks (and for
/// specs that do not parse: those fail elsewhere with a better message).
pub fn model_dirs(spec: &str) -> Vec<std::path::PathBuf> {
    let spec = spec.trim();
    if split_kind(spec).0 != "uct" {
        return Vec::new();
    }
    let Ok(c) = parse_uct(spec) else {
        return Vec::new();
    };
    let pruners = [
        c.prune.map(|p| p.pruner),
        c.playout_prune.map(|p| p.pruner),
        c.soft.map(|p| p.pruner),
        c.policy,
    ];
    let mut dirs: Vec<std::path::PathBuf> = pruners
        .into_iter()
        .flatten()
        .filter_map(|p| match p.split_once(':') {
            Some(("nn", dir)) => Some(dir.into()),
            None if p == "nn" => Some(crate::prune::registry::DEFAULT_MODEL.into()),
            _ => None,
        })
        .collect();
    dirs.sort();
    dirs.dedup();
    dirs
}

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

fn num<T: std::str::FromStr>(key: &str, v: &str) -> anyhow::Result<T>
where
    T::Err: std::fmt::Display,
{
    v.parse::<T>()
        .map_err(|e| anyhow!("key `{key}`: bad value `{v}`: {e}"))
}

/// A number for `key` in `lo..=hi` (NaN and infinities refused), the range named in errors.
fn ranged<T>(key: &str, v: &str, lo: T, hi: T) -> anyhow::Result<T>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display + std::fmt::Debug + Copy,
    T::Err: std::fmt::Display,
{
    crate::util::num::parse_in(&format!("key `{key}`"), v, lo, hi).map_err(anyhow::Error::msg)
}

/// Points on the board: the most a pruner can prune.
const BOARD_POINTS: usize = crate::rules::NN;
/// Deepest tree depth a pruning key may name.
const MAX_PRUNE_DEPTH: u32 = 10_000;

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

/// Parses a `uct:...` spec into its config (defaults for keys not given).
pub fn parse_uct(spec: &str) -> anyhow::Result<UctConfig> {
    let mut c = UctConfig::default();
    let mut eval: Option<PlayoutEval> = None;
    for (k, v) in pairs(spec)? {
        let r: anyhow::Result<()> = (|| {
            match k {
                "sims" => c.sims = ranged(k, v, 1, 100_000_000)?,
                "expand" => c.expand = ranged(k, v, 1, 1_000_000)?,
                "c" => c.c = ranged(k, v, 0.0, 100.0)?,
                "threads" => c.threads = ranged(k, v, 1, crate::util::num::MAX_THREADS)?,
                "reuse" => c.reuse = boolean(k, v)?,
                "resign" => c.resign = ranged(k, v, 0.0, 1.0)?,
                "pass" => c.pass_when_ahead = boolean(k, v)?,
                "max_nodes" => c.max_nodes = ranged(k, v, 1_000, 1 << 24)?,
                "playout_moves" => c.playout_moves = ranged(k, v, 1, 100_000)?,
                "keep" => c.keep_min = ranged(k, v, 0, BOARD_POINTS)?,
                "cache" => c.cache = ranged(k, v, 0, 1 << 20)?,
                "max_seconds" => c.max_seconds = ranged(k, v, 0.0, crate::util::num::MAX_SECONDS)?,
                "rave" => c.rave = ranged(k, v, 0.0, 1e9)?,
                "priors" => c.priors = boolean(k, v)?,
                "policy" => c.policy = Some(v.to_string()),
                "policy_weight" => c.policy_weight = ranged(k, v, 0.0, 1000.0)?,
                "ladders" => c.heavy.ladders = boolean(k, v)?,
                "prune_count" => {
                    c.prune_count = match v {
                        "legal" => PruneCount::Legal,
                        "board" => PruneCount::Board,
                        _ => bail!("key `{k}`: bad value `{v}` (expected legal or board)"),
                    }
                }
                "playout" => {
                    c.playout = match v {
                        "uniform" => PlayoutKind::Uniform,
                        "territory" => PlayoutKind::Territory,
                        "heavy" => PlayoutKind::Heavy,
                        _ => bail!(
                            "key `{k}`: bad value `{v}` (expected uniform, heavy or territory)"
                        ),
                    }
                }
                "playout_eval" => {
                    eval = Some(match v {
                        "leaf" => PlayoutEval::Leaf,
                        "move" => PlayoutEval::Move,
                        _ => bail!("key `{k}`: bad value `{v}` (expected leaf or move)"),
                    })
                }
                "prune" => {
                    let (pruner, f) = pruner_and_fields(k, v, 1)?;
                    let (x, depth) = x_at_d(k, f[0])?;
                    c.prune = Some(TreePrune { pruner, x, depth });
                }
                "playout_prune" => {
                    let (pruner, f) = pruner_and_fields(k, v, 1)?;
                    let share: f32 = ranged(k, f[0], 0.0, 1.0)?;
                    c.playout_prune = Some(PlayoutPrune {
                        pruner,
                        share,
                        eval: PlayoutEval::default(),
                    });
                }
                "soft" => {
                    let (pruner, f) = pruner_and_fields(k, v, 2)?;
                    let visits = ranged(k, f[0], 0, u16::MAX)?;
                    let (x, depth) = x_at_d(k, f[1])?;
                    c.soft = Some(SoftPrune {
                        pruner,
                        visits,
                        x,
                        depth,
                    });
                }
                _ => bail!(
                    "unknown key `{k}` (uct keys: sims, expand, c, threads, reuse, resign, pass, \
                     max_nodes, playout_moves, prune, prune_count, keep, playout_prune, \
                     playout_eval, soft, cache, max_seconds, rave, priors, policy, \
                     policy_weight, ladders)"
                ),
            }
            Ok(())
        })();
        r.with_context(|| format!("engine spec `{spec}`"))?;
    }
    if let Some(e) = eval {
        match &mut c.playout_prune {
            Some(pp) => pp.eval = e,
            None => bail!("engine spec `{spec}`: key `playout_eval` needs `playout_prune`"),
        }
    }
    Ok(c)
}

/// Parses a `territory[:seed=N]` spec: its own seed, if it names one. The player's name
/// has this form, so a logged name rebuilds the same player.
fn parse_territory(spec: &str) -> anyhow::Result<Option<u64>> {
    let mut seed = None;
    for (k, v) in pairs(spec)? {
        match k {
            "seed" => seed = Some(num(k, v).with_context(|| format!("engine spec `{spec}`"))?),
            _ => bail!("engine spec `{spec}`: unknown key `{k}` (territory keys: seed)"),
        }
    }
    Ok(seed)
}

/// Parses a `flat:...` spec into its config.
pub fn parse_flat(spec: &str) -> anyhow::Result<FlatConfig> {
    let mut c = FlatConfig::default();
    for (k, v) in pairs(spec)? {
        let r: anyhow::Result<()> = (|| {
            match k {
                "sims" => c.sims = ranged(k, v, 1, 1_000_000_000)?,
                "c" => c.c = ranged(k, v, 0.0, 100.0)?,
                "resign" => c.resign = ranged(k, v, 0.0, 1.0)?,
                "pass" => c.pass_when_ahead = boolean(k, v)?,
                "playout_moves" => c.playout_moves = ranged(k, v, 1, 100_000)?,
                _ => bail!("unknown key `{k}` (flat keys: sims, c, resign, pass, playout_moves)"),
            }
            Ok(())
        })();
        r.with_context(|| format!("engine spec `{spec}`"))?;
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn built_engine_is_named_by_its_spec() {
        let e = build_engine("uct:sims=50,prune=rule:10@1", 1).unwrap();
        assert_eq!(e.name(), "uct:sims=50,prune=rule:10@1");
    }
}
