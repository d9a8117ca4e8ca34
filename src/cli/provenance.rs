//! `akushu provenance`: what a model was trained on (datasets by fingerprint, the
//! `--init-from` chain, its training games), and `--recover` for models trained before
//! provenance was kept.

use std::path::PathBuf;

use clap::Args;

use crate::net::provenance::{
    ModelGames, Provenance, SGF_IDENTITIES_FILE, add_sgf_identities, recover,
};

#[derive(Debug, Clone, Args)]
pub struct ProvenanceArgs {
    /// Model directory.
    pub model: PathBuf,
    /// Record the provenance of a model that has none, from the datasets its whole chain
    /// was trained on (`--data`, rebuilt as they were: `dataset build ... --keep-duplicates`).
    #[arg(long, requires_all = ["data", "note"])]
    pub recover: bool,
    /// A dataset the model (or the model it started from) was trained on (repeatable).
    #[arg(long)]
    pub data: Vec<PathBuf>,
    /// The model it started from (`--init-from` of its training).
    #[arg(long)]
    pub init_from: Option<PathBuf>,
    /// How the datasets were identified (kept in `provenance.json`).
    #[arg(long)]
    pub note: Option<String>,
    /// Folders of self-play SGFs (a loop's `gen-NNN/selfplay/sgf`): those among the model's
    /// training games by their older self-play identity are added under their SGF identity
    /// (`training_games.sgf.hashes`), so `eval` knows them whichever way they reach a
    /// dataset (repeatable).
    #[arg(long, value_name = "DIR")]
    pub sgf_identities: Vec<PathBuf>,
    /// Record the provenance of a loop candidate trained before it was kept, from the
    /// committed loop folder (`loop.toml`, `state.json`, each generation's `selfplay/`):
    /// MODEL is that folder's `gen-NNN/model`, `--generation` its N.
    #[arg(long, value_name = "LOOP", requires = "generation")]
    pub recover_loop: Option<PathBuf>,
    /// The generation whose candidate `--recover-loop` recovers.
    #[arg(long, requires = "recover_loop")]
    pub generation: Option<u32>,
}

fn describe(p: &Provenance, indent: &str) {
    for d in &p.datasets {
        crate::outln!(
            "{indent}dataset {} (fingerprint {}, splits {})",
            d.path,
            if d.fingerprint.is_empty() {
                "none"
            } else {
                &d.fingerprint
            },
            d.splits.join("+")
        );
    }
    if let Some(i) = &p.imported {
        crate::outln!("{indent}imported from {} ({})", i.file, i.checksum);
    }
    if let Some(r) = &p.recovered {
        crate::outln!("{indent}recovered: {r}");
    }
    for u in &p.unknown {
        crate::outln!("{indent}unknown: {u}");
    }
    if let Some(parent) = &p.init_from {
        crate::outln!("{indent}init-from {} ({})", parent.path, parent.checksum);
        if let Some(pp) = &parent.provenance {
            describe(pp, &format!("{indent}  "));
        }
    }
}

pub fn run(args: ProvenanceArgs) -> anyhow::Result<()> {
    if args.recover {
        let note = args.note.clone().unwrap_or_default();
        recover(&args.model, &args.data, args.init_from.as_deref(), &note)?;
        crate::outln!(
            "recovered: {}",
            args.model.join("provenance.json").display()
        );
    }
    if let (Some(dir), Some(generation)) = (&args.recover_loop, args.generation) {
        let want = dir.join(format!("gen-{generation:03}")).join("model");
        if std::fs::canonicalize(&want).ok() != std::fs::canonicalize(&args.model).ok() {
            anyhow::bail!(
                "--recover-loop: generation {generation}'s candidate is {}, not {}",
                want.display(),
                args.model.display()
            );
        }
        let r = crate::selfplay_loop::recover::recover_candidate(dir, generation)?;
        crate::outln!(
            "recovered: {} self-play games of the window in training or validation \
             ({} training positions without passes), {} training games in all",
            r.selfplay_games,
            r.selfplay_train_positions,
            r.games
        );
    }
    if !args.sgf_identities.is_empty() {
        let (matched, read) = add_sgf_identities(&args.model, &args.sgf_identities)?;
        crate::outln!(
            "{matched} of {read} self-play games are training games by their older identity: \
             their SGF identities are in {}",
            args.model.join(SGF_IDENTITIES_FILE).display()
        );
    }
    let model = ModelGames::load(&args.model)?;
    crate::outln!("{}", args.model.display());
    match &model.provenance {
        Some(p) => describe(p, "  "),
        None => crate::outln!("  no provenance recorded"),
    }
    match &model.games {
        Ok(set) => crate::outln!("  training games: {}", set.len()),
        Err(why) => crate::outln!("  training games unknown: {why}"),
    }
    Ok(())
}
