//! The training-games check: evaluated games among a model's training games refused, or left
//! out with `--exclude-seen`.

use super::*;

/// Games left out by `--exclude-seen`: the listed models' training games, and every
/// game's hash by game number.
pub(super) type Excluded = Option<(crate::dataset::gameset::GameSet, Vec<u64>)>;

/// Per model, how many evaluated games are among its training games (see
/// [`SummaryRow::training_overlap`]), after refusing a non-zero overlap without
/// `--allow-overlap`; with `--exclude-seen`, the games to leave out instead. Checked before
/// anything is evaluated.
pub(super) fn training_overlaps(args: &EvalArgs) -> anyhow::Result<(Vec<String>, Excluded)> {
    use crate::dataset::gameset::{DatasetGames, GameSet};
    use crate::net::provenance::ModelGames;
    let mut by_game = Vec::new();
    let evaluated = match &args.data {
        Some(dir) if args.sgf.is_empty() => match DatasetGames::read(dir)? {
            Some(games) => {
                let evaluated = games.of(&args.split.splits());
                by_game = games.by_game;
                Some(evaluated)
            }
            None => {
                crate::outln!(
                    "# {} lists no game hashes (built by an older akushu): overlap with \
                     training games is not checked; rebuild it to check",
                    dir.display()
                );
                None
            }
        },
        // SGF games are known by their content, as datasets know them.
        _ if !args.sgf.is_empty() => {
            let (_, _, hashes) = crate::net::data::sgf_games(&args.sgf);
            by_game = hashes.clone();
            Some(hashes)
        }
        _ => None,
    };
    if args.exclude_seen && evaluated.is_none() {
        anyhow::bail!(
            "--exclude-seen needs a dataset that lists its games' hashes (--data DIR built \
             by this akushu)"
        );
    }
    let labels = labels_of(&args.model);
    let mut out = Vec::new();
    let mut seen = GameSet::default();
    for (name, label) in args.model.iter().zip(&labels) {
        // Only a network has training games.
        let Some(dir) = name.model_dir() else {
            out.push(String::new());
            continue;
        };
        let Some(evaluated) = evaluated.as_ref() else {
            out.push(if args.data.is_none() && args.sgf.is_empty() {
                String::new()
            } else {
                "unknown".into()
            });
            continue;
        };
        let model = ModelGames::load(dir).with_context(|| format!("--model {name}"))?;
        // Training data it could not list: its recorded games are checked all the same, and
        // the overlap it prints says the rest is unknown.
        let partly = |n: usize| match &model.unknown {
            Some(why) => {
                crate::outln!(
                    "# {label}: other training data unknown ({why}): overlap checked on its \
                     recorded games only"
                );
                "unknown".to_string()
            }
            None => n.to_string(),
        };
        match model.games {
            Err(why) => {
                crate::outln!("# {label}: training games unknown ({why}): overlap not checked");
                out.push("unknown".into());
            }
            Ok(set) if args.exclude_seen => {
                let n = set.overlap(evaluated);
                crate::outln!(
                    "# {label}: {n} of the {} evaluated games are among its {} training games: \
                     left out",
                    evaluated.len(),
                    set.len()
                );
                seen = seen.union(&set);
                out.push(partly(0));
            }
            Ok(set) => {
                let n = set.overlap(evaluated);
                if n > 0 && !args.allow_overlap {
                    anyhow::bail!(
                        "{label} was trained on {n} of the {} evaluated games: its figures \
                         here would be inflated. Pass --exclude-seen to evaluate only the \
                         games it never saw, evaluate on a dataset split by content (the \
                         default), or pass --allow-overlap to print them with the overlap",
                        evaluated.len()
                    );
                }
                crate::outln!(
                    "# {label}: {n} of the {} evaluated games are among its {} training games",
                    evaluated.len(),
                    set.len()
                );
                out.push(partly(n));
            }
        }
    }
    if !args.exclude_seen {
        return Ok((out, None));
    }
    let left_out = evaluated.as_ref().map_or(0, |e| seen.overlap(e));
    crate::outln!(
        "# --exclude-seen: {left_out} of the {} evaluated games left out, {} evaluated",
        evaluated.as_ref().map_or(0, Vec::len),
        evaluated.as_ref().map_or(0, Vec::len) - left_out
    );
    Ok((out, Some((seen, by_game))))
}
