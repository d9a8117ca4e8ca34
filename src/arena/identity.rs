//! What an engine is, as a games folder records it: each in-process spec resolved with
//! every default filled in, the checksum of every network it loads, whether its recorded
//! config predates the `history` key, and the machine and network kernels a run played on.
//! The games folder ([`crate::runs::folder`]) knows no engine; it is told these through
//! [`EngineRecords`], which [`SpecEngines`] implements for every kind of run.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::bail;
use serde::Deserialize;

use crate::runs::folder::EngineRecords;
use crate::util::checksum::Checksum;

/// The engines of akushu's specs, as every kind of run (match, self-play, labelling)
/// records them.
#[derive(Debug, Clone, Copy, Default)]
pub struct SpecEngines;

impl EngineRecords for SpecEngines {
    fn resolved(&self, specs: &[&String]) -> BTreeMap<String, String> {
        resolved_specs(specs.iter().copied())
    }
    fn model_checksums(&self, specs: &[&String]) -> BTreeMap<String, Checksum> {
        spec_model_checksums(specs.iter().copied())
    }
    fn check_resume(
        &self,
        engines: &BTreeMap<String, String>,
        header: &Path,
    ) -> anyhow::Result<()> {
        check_history(engines, header)
    }
}

/// This machine (CPU model, logical CPUs, SIMD, any `AKUSHU_NO_*` switch) and the network
/// kernels it runs: what a speed or strength figure measured here depends on.
pub fn machine_and_kernels() -> String {
    format!(
        "{}; network kernels {}",
        crate::util::machine_description(),
        crate::net::plain::kernels_in_use()
    )
}

/// The `history` key of an engine's resolved config as a header's `engines` records it:
/// `None` where the key is absent (headers written before the search gave networks the last
/// moves, whose engines gave them none) or the text is not a config.
pub fn recorded_history(resolved: &str) -> Option<bool> {
    #[derive(Deserialize)]
    struct Recorded {
        history: Option<bool>,
    }
    serde_json::from_str::<Recorded>(resolved).ok()?.history
}

/// Each in-process spec of `specs` with every default filled in (JSON); `gtp:` players and
/// specs that do not parse are left out.
pub fn resolved_specs<'a>(specs: impl IntoIterator<Item = &'a String>) -> BTreeMap<String, String> {
    specs
        .into_iter()
        .filter_map(|spec| {
            crate::search::spec::resolved_config(spec)
                .ok()
                .map(|r| (spec.clone(), r))
        })
        .collect()
}

/// The checksum of every model directory the engine `specs` load (unreadable ones left out),
/// keyed by the directory as the spec names it. Each is read where the engine loads it
/// ([`crate::search::pruners::resolve_model_dir`]): a network found beside the program, not
/// under the working folder, plays, so it is recorded too.
pub fn spec_model_checksums<'a>(
    specs: impl IntoIterator<Item = &'a String>,
) -> BTreeMap<String, Checksum> {
    let mut out = BTreeMap::new();
    for spec in specs {
        for dir in crate::search::spec::model_dirs(spec) {
            let found = crate::search::pruners::resolve_model_dir(&dir);
            if let Ok(sum) = crate::net::model::model_checksum(&found) {
                out.insert(dir.display().to_string(), sum);
            }
        }
    }
    out
}

/// Refuses to resume games recorded before engines gave their networks the last moves (the
/// `history` key absent from the recorded engine, `engines` as a folder's header keeps
/// them) with an engine that now gives them to a network that reads them: the new games
/// would come from another engine than the old.
pub fn check_history(engines: &BTreeMap<String, String>, path: &Path) -> anyhow::Result<()> {
    for (spec, recorded) in engines {
        if recorded_history(recorded).is_some() {
            continue;
        }
        let Ok(config) = crate::search::spec::parse_uct_kind(spec) else {
            continue;
        };
        if !config.history {
            continue;
        }
        for dir in crate::search::spec::model_dirs(spec) {
            let found = crate::search::pruners::resolve_model_dir(&dir);
            let Ok(net) = crate::net::NetPruner::load(&found) else {
                continue;
            };
            if crate::prune::Pruner::reads_history(&net) {
                bail!(
                    "{}: `{spec}` played these games giving its network {} no last moves (the \
                     build that recorded them had no `history` key); today the spec gives them, \
                     so resuming would mix two engines. Replay it as recorded with \
                     `history=false` added to the spec, in a new --out folder",
                    path.display(),
                    dir.display()
                );
            }
        }
    }
    Ok(())
}
