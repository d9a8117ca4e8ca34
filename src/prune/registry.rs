//! Pruners by name, so engine specs (`prune=rule:41@0`) and command lines share one syntax.
//!
//! | kind     | argument            | pruner                                       |
//! |----------|---------------------|----------------------------------------------|
//! | `none`   | —                   | [`NoPruner`]: every point scores 0           |
//! | `random` | seed (default 0)    | [`RandomPruner`]: the control arm            |
//! | `rule`   | —                   | [`RulePruner`]: self-atari, own eye, edges   |
//! | `nn`     | model (later)       | the trained network (not available yet)      |

use std::sync::Arc;

use anyhow::{Context, bail};

use super::random::RandomPruner;
use super::rules::RulePruner;
use super::{NoPruner, Pruner};

/// The kinds [`make_pruner`] knows, for error messages and `--help` texts.
pub const KINDS: &[&str] = &["none", "random", "rule", "nn"];

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
        "nn" => bail!("network pruner not available yet"),
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
        let e = make_pruner("nn", None).err().unwrap();
        assert!(e.to_string().contains("not available yet"));
        let e = make_pruner("bogus", None).err().unwrap();
        assert!(e.to_string().contains("bogus"));
        assert!(make_pruner("rule", Some("1")).is_err());
    }
}
