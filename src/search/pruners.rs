//! Pruners by name, so engine specs (`prune=rule:41@0`) and command lines share one syntax.
//! The one place that builds concrete pruners: it sits in the search layer, above `prune`
//! (the trait, the simple pruners and the [`PrunerName`] grammar, with its table of kinds),
//! `net` and `yose` (the pruners built on them).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::net::NetPruner;
use crate::prune::name::{NetworkName, PrunerName};
use crate::prune::random::RandomPruner;
use crate::prune::rules::RulePruner;
use crate::prune::{NoPruner, Pruner};
use crate::yose::{KakemeConfig, KakemePruner};

/// Where a model directory named in a spec is: as given where that exists (relative to the
/// working directory), else a relative name found beside the program or up to three
/// folders above it (`target/release/akushu` finds the checkout's `models/`), so that a GUI
/// that starts `akushu gtp` in another folder still finds the shipped networks.
pub fn resolve_model_dir(dir: &Path) -> PathBuf {
    if dir.exists() || dir.is_absolute() {
        return dir.to_path_buf();
    }
    let Ok(exe) = std::env::current_exe() else {
        return dir.to_path_buf();
    };
    exe.ancestors()
        .skip(1)
        .take(4)
        .map(|folder| folder.join(dir))
        .find(|candidate| candidate.join("config.json").is_file())
        .unwrap_or_else(|| dir.to_path_buf())
}

/// Loads each model directory once per process: a tournament builds an engine per game, and
/// every one of them shares the same read-only network.
/// `bits`: the integer evaluation of the same weights, in 8-bit (`nnq`) or 7-bit (`nnq7`)
/// activation steps, cached apart from the float one (`None`).
fn load_network(dir: &Path, bits: Option<u8>) -> anyhow::Result<Arc<NetPruner>> {
    type Loaded = HashMap<(PathBuf, Option<u8>), Arc<NetPruner>>;
    static LOADED: OnceLock<Mutex<Loaded>> = OnceLock::new();
    let mut cache = LOADED
        .get_or_init(Default::default)
        .lock()
        .expect("model cache poisoned");
    let key = (dir.to_path_buf(), bits);
    if let Some(net) = cache.get(&key) {
        return Ok(net.clone());
    }
    let found = resolve_model_dir(dir);
    let net = Arc::new(match bits {
        Some(bits) => NetPruner::load_quantized_bits(&found, bits)?,
        None => NetPruner::load(&found)?,
    });
    cache.insert(key, net.clone());
    Ok(net)
}

/// Builds the pruner `name` names; a `random` pruner without a seed gets seed 0 (engines
/// fill in their own first, [`PrunerName::or_seed`]).
pub fn make_pruner(name: &PrunerName) -> anyhow::Result<Arc<dyn Pruner>> {
    Ok(match name {
        PrunerName::None => Arc::new(NoPruner),
        PrunerName::Random(seed) => Arc::new(RandomPruner::new(seed.unwrap_or(0))),
        PrunerName::Rule => Arc::new(RulePruner::default()),
        PrunerName::Kakeme => Arc::new(KakemePruner::new(KakemeConfig::default())),
        PrunerName::Network(net) => network(net)?,
    })
}

/// A network pruner: the cached load of its weights, averaged over its symmetry views.
fn network(name: &NetworkName) -> anyhow::Result<Arc<dyn Pruner>> {
    let net = load_network(name.weights.dir(), name.weights.activation_bits())?;
    Ok(match name.views {
        1 => net,
        views => Arc::new(NetPruner::clone(&net).with_symmetries(views)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds the pruner a name names (parse errors are `prune::name`'s tests).
    fn build(text: &str) -> anyhow::Result<Arc<dyn Pruner>> {
        make_pruner(&text.parse()?)
    }

    #[test]
    fn kinds_build_or_fail_clearly() {
        assert_eq!(build("none").unwrap().name(), "none");
        assert_eq!(build("rule").unwrap().name(), "rule");
        assert_eq!(build("random:7").unwrap().name(), "random:7");
        assert_eq!(build("random").unwrap().name(), "random:0");
        let e = build("random:x").err().unwrap();
        assert!(format!("{e:#}").contains("seed"));
        let e = build("nn:no/such/model").err().unwrap();
        assert!(format!("{e:#}").contains("no/such/model"), "{e:#}");
        assert!(build("kakeme").is_ok());
        let e = build("nnq:models/mlp-paper").err().unwrap();
        assert!(format!("{e:#}").contains("needs a CNN"), "{e:#}");
        let e = build("nnq").err().unwrap();
        assert!(format!("{e:#}").contains("model directory"), "{e:#}");
        let e = build("bogus").err().unwrap();
        assert!(e.to_string().contains("bogus"));
        assert!(build("rule:1").is_err());
        let e = build("sym8:models/mlp-paper").err().unwrap();
        assert!(format!("{e:#}").contains("needs a CNN"), "{e:#}");
        assert_eq!(
            build("sym2:nnq:models/cnn-small").unwrap().name(),
            "sym2:nnq:models/cnn-small"
        );
    }

    #[test]
    fn a_model_directory_is_found_where_it_is_named_first() {
        // Present relative to the working directory (the crate root under `cargo test`):
        // used as named.
        let dir = Path::new("models/cnn");
        assert!(dir.is_dir());
        assert_eq!(resolve_model_dir(dir), dir);
        // Absent everywhere: named as given, so the load error names it.
        let missing = Path::new("no/such/model");
        assert_eq!(resolve_model_dir(missing), missing);
        // Absolute paths are never searched for.
        let abs = std::env::current_dir().unwrap().join("models/cnn");
        assert_eq!(resolve_model_dir(&abs), abs);
    }
}
