//! What `--model` names ([`EvalModel`]), the scorer each is evaluated with, and the labels
//! and file names of several models.

use super::*;

/// The paper's Fig. 2 reference points (paper A in `docs/papers.md`): about 10% error at 30 pruned, under 10%
/// up to 32.
pub const PAPER_POINTS: [(f64, f64); 2] = [(30.0, 0.10), (32.0, 0.10)];

/// What `eval --model` names: any pruner an engine spec names ([`PrunerName`], with a bare
/// model directory for a network), or one of the curve's own baselines. Parsed when the
/// command line is, so a bad name is refused before anything is read.
#[derive(Clone, PartialEq)]
pub enum EvalModel {
    /// `rules`: the curve's rule baseline ([`RuleBaseline`], ties broken at random), not the
    /// search's `rule` pruner (ties in flat-index order).
    Rules,
    /// `oracle`: rates the recorded move best, the curve's ceiling.
    Oracle,
    /// `teacher`: a labelled dataset's teacher policy ([`crate::net::truth::TeacherPolicy`]).
    Teacher,
    /// A pruner by name; `random[:SEED]` is the curve's random baseline
    /// ([`RandomBaseline`], seeded by `--seed` when the name gives no seed).
    Pruner(PrunerName),
}

impl std::str::FromStr for EvalModel {
    type Err = crate::prune::name::PrunerNameError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(match text {
            "rules" => EvalModel::Rules,
            "oracle" => EvalModel::Oracle,
            "teacher" => EvalModel::Teacher,
            _ => EvalModel::Pruner(PrunerName::parse_or_dir(text)?),
        })
    }
}

impl std::fmt::Display for EvalModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EvalModel::Rules => f.write_str("rules"),
            EvalModel::Oracle => f.write_str("oracle"),
            EvalModel::Teacher => f.write_str("teacher"),
            EvalModel::Pruner(name) => name.fmt(f),
        }
    }
}

/// As the name was given, so the run's first line (`# akushu eval EvalArgs { .. }`) prints
/// the names as the command line spelled them.
impl std::fmt::Debug for EvalModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.to_string())
    }
}

impl EvalModel {
    /// The network's model directory; `None` for baselines and pruners without weights.
    pub fn model_dir(&self) -> Option<&Path> {
        match self {
            EvalModel::Pruner(name) => name.model_dir(),
            _ => None,
        }
    }
}

/// The scorer `model` names. Networks load from their directory as named (a path that
/// does not exist is an error here, not looked for beside the program as engines do);
/// every other pruner is built by the search's registry, so a pruner kind added there gets
/// a curve here too.
pub fn scorer_for(model: &EvalModel, seed: u64) -> anyhow::Result<Box<dyn PositionScorer>> {
    /// A shared pruner as a scorer.
    struct Shared(Arc<dyn crate::prune::Pruner>);
    impl PositionScorer for Shared {
        fn name(&self) -> String {
            self.0.name()
        }
        fn score(&self, pos: &Position, board: &crate::rules::Board, out: &mut [f32; NN]) {
            PrunerScorer(&*self.0).score(pos, board, out)
        }
    }
    let pruner: Arc<dyn crate::prune::Pruner> = match model {
        EvalModel::Oracle => return Ok(Box::new(OracleBaseline)),
        EvalModel::Teacher => return Ok(Box::new(crate::net::truth::TeacherPolicy)),
        EvalModel::Pruner(PrunerName::Network(net)) => {
            return Ok(Box::new(NetPruner::load_network(net)?));
        }
        EvalModel::Rules => Arc::new(RuleBaseline { seed }),
        EvalModel::Pruner(PrunerName::Random(own)) => Arc::new(RandomBaseline {
            seed: own.unwrap_or(seed),
        }),
        EvalModel::Pruner(name) => make_pruner(name)?,
    };
    Ok(Box::new(Shared(pruner)))
}

/// [`model_labels`] of the models' names as given.
pub(super) fn labels_of(models: &[EvalModel]) -> Vec<String> {
    model_labels(&models.iter().map(ToString::to_string).collect::<Vec<_>>())
}

/// The last `depth` components of `name` joined by `/` (the whole name if it has fewer).
pub(super) fn path_suffix(name: &str, depth: usize) -> String {
    let parts: Vec<String> = Path::new(name)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.is_empty() {
        return name.to_string();
    }
    parts[parts.len().saturating_sub(depth)..].join("/")
}

/// One label per model for the table, the plot and the per-model CSV names: the directory's
/// base name, with as many parent folders as it takes to tell models with the same base name
/// apart (`a/cnn` and `b/cnn`), and `#k` for a model given twice.
pub(super) fn model_labels(names: &[String]) -> Vec<String> {
    let mut depth = vec![1usize; names.len()];
    let mut labels: Vec<String> = names.iter().map(|n| path_suffix(n, 1)).collect();
    // Each pass lengthens the labels that still clash; paths are finitely deep.
    for _ in 0..64 {
        let clashing: Vec<usize> = (0..names.len())
            .filter(|&i| (0..names.len()).any(|j| j != i && labels[j] == labels[i]))
            .filter(|&i| path_suffix(&names[i], depth[i] + 1) != labels[i])
            .collect();
        if clashing.is_empty() {
            break;
        }
        for i in clashing {
            depth[i] += 1;
            labels[i] = path_suffix(&names[i], depth[i]);
        }
    }
    // The same path given more than once.
    for i in 0..labels.len() {
        let earlier = labels[..i].iter().filter(|l| **l == labels[i]).count();
        if earlier > 0 {
            labels[i] = format!("{}#{}", labels[i], earlier + 1);
        }
    }
    labels
}

/// The curve CSV of the `index`-th model: `base` itself for the first, `STEM-LABEL.EXT`
/// beside it for the others (a label's `/`, `\` and `:` become `_`: `nnq:models/x` must not
/// put a colon into a file name, which Windows and many tools refuse).
pub(super) fn csv_path_for(base: &Path, index: usize, label: &str) -> PathBuf {
    if index == 0 {
        return base.to_path_buf();
    }
    let stem = base.file_stem().unwrap_or_default().to_string_lossy();
    let ext = base
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    base.with_file_name(format!(
        "{stem}-{}{ext}",
        label.replace(['/', '\\', ':'], "_")
    ))
}
