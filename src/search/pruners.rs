//! Pruners by name, so engine specs (`prune=rule:41@0`) and command lines share one syntax.
//! The one place that names concrete pruners: it sits in the search layer, above `prune`
//! (the trait and the simple pruners), `net` and `endgame` (the pruners built on them).
//!
//! | kind     | argument            | pruner                                       |
//! |----------|---------------------|----------------------------------------------|
//! | `none`   | —                   | [`NoPruner`]: every point scores 0           |
//! | `random` | seed (default 0)    | [`RandomPruner`]: the control arm            |
//! | `rule`   | —                   | [`RulePruner`]: self-atari, own eye, edges   |
//! | `nn`     | model dir (default `models/default`) | [`NetPruner`]: the trained network |
//! | `nnq`    | CNN model dir       | the same network with 8-bit integer convolutions (faster) |
//! | `sym2`, `sym4`, `sym8` | CNN (`DIR` or `nnq:DIR`) | the CNN's probabilities averaged over 2, 4 or 8 board symmetries |
//! | `kakeme` | —                   | [`KakemePruner`]: regions nobody can live in (paper C in `docs/papers.md`) |

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::{Context, bail};

use crate::endgame::{KakemeConfig, KakemePruner};
use crate::net::NetPruner;
use crate::prune::random::RandomPruner;
use crate::prune::rules::RulePruner;
use crate::prune::{NoPruner, Pruner};

/// The kinds [`make_pruner`] knows, for error messages and `--help` texts.
pub const KINDS: &[&str] = &[
    "none", "random", "rule", "nn", "nnq", "sym2", "sym4", "sym8", "kakeme",
];

/// The model a bare `nn` pruner loads.
pub const DEFAULT_MODEL: &str = "models/default";

/// Loads each model directory once per process: a tournament builds an engine per game, and
/// every one of them shares the same read-only network.
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

/// `quantized`: the 8-bit evaluation of the same weights (`nnq`), cached apart.
fn load_network(dir: &Path, quantized: bool) -> anyhow::Result<Arc<NetPruner>> {
    type Loaded = HashMap<(PathBuf, bool), Arc<NetPruner>>;
    static LOADED: OnceLock<Mutex<Loaded>> = OnceLock::new();
    let mut cache = LOADED
        .get_or_init(Default::default)
        .lock()
        .expect("model cache poisoned");
    let key = (dir.to_path_buf(), quantized);
    if let Some(net) = cache.get(&key) {
        return Ok(net.clone());
    }
    let found = resolve_model_dir(dir);
    let net = Arc::new(if quantized {
        NetPruner::load_quantized(&found)?
    } else {
        NetPruner::load(&found)?
    });
    cache.insert(key, net.clone());
    Ok(net)
}

/// Builds a pruner by kind, with an optional kind-specific argument.
pub fn make_pruner(kind: &str, arg: Option<&str>) -> anyhow::Result<Arc<dyn Pruner>> {
    let no_arg = |kind: &str| -> anyhow::Result<()> {
        if let Some(a) = arg {
            bail!("pruner `{kind}` takes no argument, got `{a}`");
        }
        Ok(())
    };
    match kind {
        "none" => {
            no_arg(kind)?;
            Ok(Arc::new(NoPruner))
        }
        "random" => {
            let seed = match arg {
                None => 0,
                Some(a) => a
                    .parse::<u64>()
                    .with_context(|| format!("pruner `random`: seed `{a}` is not an integer"))?,
            };
            Ok(Arc::new(RandomPruner::new(seed)))
        }
        "rule" => {
            no_arg(kind)?;
            Ok(Arc::new(RulePruner::default()))
        }
        "nn" => Ok(load_network(
            Path::new(arg.unwrap_or(DEFAULT_MODEL)),
            false,
        )?),
        "nnq" => {
            let dir =
                arg.context("pruner `nnq` needs a CNN model directory, e.g. nnq:models/cnn")?;
            Ok(load_network(Path::new(dir), true)?)
        }
        "sym2" | "sym4" | "sym8" => {
            let name = arg.with_context(|| {
                format!("pruner `{kind}` needs a CNN, e.g. {kind}:nnq:models/cnn")
            })?;
            let views = kind[3..]
                .parse::<u8>()
                .expect("sym kinds end in their view count");
            let (quantized, dir) = match name.strip_prefix("nnq:") {
                Some(dir) => (true, dir),
                None => (false, name),
            };
            let net = load_network(Path::new(dir), quantized)?;
            let net = NetPruner::clone(&net).with_symmetries(views)?;
            Ok(Arc::new(net))
        }
        "kakeme" => {
            no_arg(kind)?;
            Ok(Arc::new(KakemePruner::new(KakemeConfig::default())))
        }
        other => bail!(
            "unknown pruner kind `{other}` (known: {})",
            KINDS.join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_build_or_fail_clearly() {
        assert_eq!(make_pruner("none", None).unwrap().name(), "none");
        assert_eq!(make_pruner("rule", None).unwrap().name(), "rule");
        assert_eq!(make_pruner("random", Some("7")).unwrap().name(), "random:7");
        let e = make_pruner("random", Some("x")).err().unwrap();
        assert!(format!("{e:#}").contains("seed"));
        let e = make_pruner("nn", Some("no/such/model")).err().unwrap();
        assert!(format!("{e:#}").contains("no/such/model"), "{e:#}");
        assert!(make_pruner("kakeme", None).is_ok());
        let e = make_pruner("nnq", Some("models/mlp-paper")).err().unwrap();
        assert!(format!("{e:#}").contains("needs a CNN"), "{e:#}");
        let e = make_pruner("nnq", None).err().unwrap();
        assert!(format!("{e:#}").contains("model directory"), "{e:#}");
        let e = make_pruner("bogus", None).err().unwrap();
        assert!(e.to_string().contains("bogus"));
        assert!(make_pruner("rule", Some("1")).is_err());
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
