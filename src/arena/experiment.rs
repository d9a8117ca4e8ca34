//! Experiments as files: `experiments/*.toml`, one per paper result. A file names the players
//! as spec templates (`uct:sims={sims},prune=nn:{x}@0`), the match settings, and the arms —
//! a sweep over one variable and/or explicit `[[arm]]` tables — plus a `[quick]` table that
//! shrinks everything for `akushu reproduce --quick`. A `kind = "curve"` experiment instead
//! plots a CSV that an akushu command writes (the error-rate curve).
//!
//! Every arm is an ordinary match folder, so arms resume, shard and merge like any match.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use super::player::GtpTimeouts;
use super::runner::{MatchConfig, TimeSpec, run_match};
use super::summary::MatchSummary;

/// What an experiment produces.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Matches, one per arm.
    #[default]
    Match,
    /// A curve read from a CSV (optionally written by an akushu command first).
    Curve,
}

/// Match settings shared by all arms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// Games per arm.
    pub games: u32,
    /// Komi for white.
    pub komi: f32,
    /// Match seed (each arm uses the same seed: arms differ only in the players).
    pub seed: u64,
    /// Alternate colours (the paper's self-play setup keeps them fixed).
    pub alternate: bool,
    /// Move cap per game.
    pub max_moves: u32,
    /// Seconds a GTP engine may think per move.
    pub genmove_timeout_s: f64,
    /// Seconds for other GTP commands.
    pub command_timeout_s: f64,
    /// Seconds a move for both players under a referee's clock (as `match
    /// --time-per-move`): arms compared at equal time. None: each spec's own budget.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_per_move_s: Option<f64>,
    /// Stop each arm once a sequential test on A's results decides (as `match --sprt`:
    /// `"elo0=0,elo1=35"`); `games` is then the most an arm plays.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sprt: Option<String>,
}

impl Settings {
    /// The match clock these settings ask for.
    fn time(&self) -> Option<TimeSpec> {
        self.time_per_move_s.map(TimeSpec::per_move)
    }
}

impl Default for Settings {
    fn default() -> Self {
        let m = MatchConfig::default();
        Settings {
            games: 200,
            komi: m.komi,
            seed: 1,
            alternate: false,
            max_moves: m.max_moves,
            genmove_timeout_s: m.timeouts.genmove_s,
            command_timeout_s: m.timeouts.command_s,
            time_per_move_s: None,
            sprt: None,
        }
    }
}

/// The two players as spec templates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Players {
    pub black: String,
    pub white: String,
}

/// One arm per value of `var`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    pub var: String,
    pub values: Vec<toml::Value>,
}

/// An explicit arm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArmSpec {
    pub label: String,
    /// Position on the plot's x axis, if the arm belongs on it.
    pub x: Option<f64>,
    /// A line of its own on the plot: arms with the same `series` name are joined into one
    /// curve beside the experiment's main one (e.g. another engine over the same x axis).
    pub series: Option<String>,
    #[serde(default)]
    pub vars: BTreeMap<String, toml::Value>,
    /// Overrides the black template.
    pub black: Option<String>,
    /// Overrides the white template.
    pub white: Option<String>,
    /// In full mode, the arm is the same match as another experiment's arm (its folder
    /// under `--out`, `tree_pruning/x=0`): its games are read from there and never played
    /// twice. Quick mode (its own seed and settings) plays the arm as written.
    pub same_games_as: Option<String>,
}

/// Overrides for `--quick`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Quick {
    pub games: Option<u32>,
    /// Match seed in quick mode. Experiments share their full-mode seed so that their arms
    /// are paired game for game; with only a few games at few simulations, arms whose
    /// players barely differ would then replay the same games, so each experiment gives
    /// its quick arms a seed of their own.
    pub seed: Option<u64>,
    /// Sweep values to keep.
    pub values: Option<Vec<toml::Value>>,
    /// Labels of explicit arms to keep.
    pub arms: Option<Vec<String>>,
    pub vars: BTreeMap<String, toml::Value>,
    /// Skip the experiment in quick mode (with this reason in the report).
    pub skip: Option<String>,
}

/// How to draw the experiment.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PlotSpec {
    pub x_label: String,
    pub y_label: String,
    /// The paper's points `[x, y]`.
    pub paper_points: Vec<[f64; 2]>,
    /// A horizontal reference line (the paper's 0.37 baseline).
    pub baseline: Option<f64>,
    pub baseline_label: String,
    /// Other experiments (by name) whose arms are drawn in the same chart, without their
    /// bands, when the report has them (`reproduce`; `experiment run` has only its own).
    pub compare: Vec<String>,
    /// Legend names of the `compare` experiments, in their order (default: their names).
    pub compare_labels: Vec<String>,
    /// Legend name of this experiment's main line (default "akushu", or the experiment's
    /// name when others are compared).
    pub label: String,
    /// Legend name of the paper's points (default "paper"): say when they come from
    /// another engine than the one drawn.
    pub paper_label: String,
    /// The arms' x values are categories (a pruning depth, "none"): points with error bars,
    /// set side by side, and no lines between them.
    pub categorical: bool,
    /// Names of x ticks, by value (`"-1" = "none"`).
    pub x_names: BTreeMap<String, String>,
}

/// A curve experiment's source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CurveSpec {
    /// The CSV (relative to the working directory); `{out}` is the experiment's folder.
    pub csv: String,
    /// Column of the x values.
    pub x: String,
    /// Columns to draw.
    pub y: Vec<String>,
    /// akushu arguments that write the CSV (`{csv}` is replaced by its path). Run in full
    /// mode, and in quick mode only when the CSV does not exist yet.
    #[serde(default)]
    pub command: Vec<String>,
    /// The command for `--quick` (e.g. a sample of positions); when empty, quick mode runs
    /// `command` only if the CSV does not exist yet.
    #[serde(default)]
    pub quick_command: Vec<String>,
    /// The summary CSV the command writes beside the curve (`{summary}` in the commands;
    /// `{out}` is the experiment's folder): its `positions` column gives the curve's n for
    /// the report and the chart.
    #[serde(default)]
    pub summary: Option<String>,
}

/// An `experiments/*.toml` file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentFile {
    /// Short name: the results folder and the plot file are named after it.
    pub name: String,
    pub title: String,
    /// What the paper reports, in words.
    #[serde(default)]
    pub paper: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub kind: Kind,
    #[serde(default, rename = "match")]
    pub settings: Settings,
    #[serde(default)]
    pub vars: BTreeMap<String, toml::Value>,
    pub players: Option<Players>,
    pub sweep: Option<Sweep>,
    #[serde(default, rename = "arm")]
    pub arms: Vec<ArmSpec>,
    #[serde(default)]
    pub quick: Quick,
    #[serde(default)]
    pub plot: PlotSpec,
    pub curve: Option<CurveSpec>,
    /// The arms that compete for one claim: the report adjusts their intervals and tests
    /// for the multiplicity (see [`Family`]).
    #[serde(default)]
    pub family: Option<Family>,
}

/// A family of arms competing for one claim (`[family]`): the report shows Bonferroni
/// intervals with family-wise 95% confidence, each arm's one-sided exact test against
/// `target` with Holm's adjustment, the chi-squared test that the arms' rates are equal, and
/// McNemar's paired test of each arm against `baseline` over the games both played with the
/// same seed and colours.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Family {
    /// Labels of the competing arms (empty: every arm).
    #[serde(default)]
    pub arms: Vec<String>,
    /// Player A's win rate the claim is about ("at least 0.90").
    pub target: Option<f64>,
    /// The arm the others are paired against (same games, same seeds).
    pub baseline: Option<String>,
}

/// A resolved arm: a label, its x, and the full match config.
#[derive(Debug, Clone, PartialEq)]
pub struct Arm {
    pub label: String,
    pub x: Option<f64>,
    /// The plot line it belongs to (`None`: the experiment's main line).
    pub series: Option<String>,
    pub config: MatchConfig,
    /// The folder (under `--out`) of the match this arm reads instead of playing.
    pub same_games_as: Option<String>,
}

/// Reads and checks an experiment file.
pub fn load(path: &Path) -> anyhow::Result<ExperimentFile> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    parse(&text, &path.display().to_string())
}

/// Parses an experiment file's text; `name` (a path) only labels errors. The `[match]`
/// numbers are range-checked here, where the file is read.
pub fn parse(text: &str, name: &str) -> anyhow::Result<ExperimentFile> {
    let file: ExperimentFile = toml::from_str(text).with_context(|| format!("parsing {name}"))?;
    match file.kind {
        Kind::Match if file.players.is_none() => {
            bail!("{name}: a match experiment needs a [players] table")
        }
        Kind::Curve if file.curve.is_none() => {
            bail!("{name}: a curve experiment needs a [curve] table")
        }
        _ => {}
    }
    check_folder_name(&file.name).with_context(|| format!("{name}: `name`"))?;
    for arm in &file.arms {
        if let Some(other) = &arm.same_games_as {
            // Two plain folder names (EXPERIMENT/ARM): never a path out of --out.
            let parts: Vec<&str> = other.split('/').collect();
            let plain = parts.len() == 2 && parts.iter().all(|p| check_folder_name(p).is_ok());
            if !plain {
                bail!(
                    "{name}: arm `{}`: same_games_as = {other:?} must be EXPERIMENT/ARM, two \
                     plain folder names under --out (e.g. \"tree_pruning/x=0\")",
                    arm.label
                );
            }
        }
    }
    let plot = &file.plot;
    if plot.compare_labels.len() > plot.compare.len() {
        bail!(
            "{name}: [plot] compare_labels has {} names for {} compared experiments",
            plot.compare_labels.len(),
            plot.compare.len()
        );
    }
    if let Some(k) = plot
        .x_names
        .keys()
        .find(|k| k.trim().parse::<f64>().is_err())
    {
        bail!("{name}: [plot] x_names key `{k}` is not a number (an arm's x, e.g. \"-1\")");
    }
    if let Some(f) = &file.family {
        if let Some(t) = f.target
            && !(t > 0.0 && t < 1.0)
        {
            bail!("{name}: [family] target {t} must lie strictly between 0 and 1");
        }
        let labels: Vec<String> = file
            .arms
            .iter()
            .map(|a| a.label.clone())
            .collect::<Vec<_>>();
        for l in f.arms.iter().chain(&f.baseline) {
            if file.sweep.is_none() && !labels.contains(l) {
                bail!("{name}: [family] names arm `{l}`, which the file does not define");
            }
        }
    }
    let s = &file.settings;
    MatchConfig {
        komi: s.komi,
        max_moves: s.max_moves,
        timeouts: GtpTimeouts {
            genmove_s: s.genmove_timeout_s,
            command_s: s.command_timeout_s,
        },
        time: s.time(),
        ..MatchConfig::default()
    }
    .validate()
    .with_context(|| format!("{name}: [match]"))?;
    Ok(file)
}

/// Longest text a template may expand to: variables that refer to themselves several times
/// would otherwise double it at every round.
const MAX_EXPANSION: usize = 64 * 1024;

fn value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn value_number(v: &toml::Value) -> Option<f64> {
    match v {
        toml::Value::Integer(i) => Some(*i as f64),
        toml::Value::Float(f) => Some(*f),
        toml::Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

/// Replaces `{name}` by its value until nothing changes; an unknown name is an error.
pub fn substitute(template: &str, vars: &BTreeMap<String, String>) -> Result<String, String> {
    let mut text = template.to_string();
    for _ in 0..8 {
        let mut out = String::new();
        let mut rest = text.as_str();
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let close = rest[open..]
                .find('}')
                .ok_or_else(|| format!("unclosed {{ in {template:?}"))?;
            let name = &rest[open + 1..open + close];
            let value = vars
                .get(name)
                .ok_or_else(|| format!("unknown variable {{{name}}} in {template:?}"))?;
            out.push_str(value);
            if out.len() > MAX_EXPANSION {
                return Err(format!(
                    "variables in {template:?} expand to more than {MAX_EXPANSION} bytes"
                ));
            }
            rest = &rest[open + close + 1..];
        }
        out.push_str(rest);
        if out.len() > MAX_EXPANSION {
            return Err(format!(
                "variables in {template:?} expand to more than {MAX_EXPANSION} bytes"
            ));
        }
        if out == text {
            return Ok(out);
        }
        text = out;
    }
    Err(format!(
        "variables in {template:?} refer to each other without end"
    ))
}

impl ExperimentFile {
    /// `text` (a title or an axis label) with the file's `{var}`s filled in as `quick` sets
    /// them, so a quick report does not print the full run's numbers; unknown names (the
    /// sweep variable) stay as written.
    pub fn fill(&self, text: &str, quick: bool) -> String {
        substitute(text, &self.vars_for(quick)).unwrap_or_else(|_| text.to_string())
    }

    /// The `[vars]` values, with the `[quick]` ones over them when `quick`.
    fn vars_for(&self, quick: bool) -> BTreeMap<String, String> {
        let mut vars: BTreeMap<String, String> = self
            .vars
            .iter()
            .map(|(k, v)| (k.clone(), value_text(v)))
            .collect();
        if quick {
            vars.extend(
                self.quick
                    .vars
                    .iter()
                    .map(|(k, v)| (k.clone(), value_text(v))),
            );
        }
        vars
    }

    /// The arms to run (`quick` applies the `[quick]` overrides).
    pub fn arms(&self, quick: bool) -> anyhow::Result<Vec<Arm>> {
        let Some(players) = &self.players else {
            return Ok(Vec::new());
        };
        let vars = self.vars_for(quick);
        let mut specs: Vec<ArmSpec> = Vec::new();
        if let Some(sweep) = &self.sweep {
            let values = match (&self.quick.values, quick) {
                (Some(v), true) => v,
                _ => &sweep.values,
            };
            for v in values {
                specs.push(ArmSpec {
                    label: format!("{}={}", sweep.var, value_text(v)),
                    x: value_number(v),
                    series: None,
                    vars: BTreeMap::from([(sweep.var.clone(), v.clone())]),
                    black: None,
                    white: None,
                    same_games_as: None,
                });
            }
        }
        for arm in &self.arms {
            if quick
                && self
                    .quick
                    .arms
                    .as_ref()
                    .is_some_and(|keep| !keep.contains(&arm.label))
            {
                continue;
            }
            specs.push(arm.clone());
        }
        let s = &self.settings;
        let games = if quick {
            self.quick.games.unwrap_or(s.games)
        } else {
            s.games
        };
        let sprt = s
            .sprt
            .as_deref()
            .map(super::sprt::Sprt::parse)
            .transpose()
            .map_err(|e| anyhow::anyhow!("experiment {}: [match] sprt: {e:#}", self.name))?;
        let mut arms = Vec::new();
        for spec in specs {
            let mut v = vars.clone();
            v.extend(
                spec.vars
                    .iter()
                    .map(|(k, val)| (k.clone(), value_text(val))),
            );
            let resolve = |t: &str| {
                substitute(t, &v).map_err(|e| {
                    anyhow::anyhow!("experiment {}: arm {}: {e}", self.name, spec.label)
                })
            };
            let black = resolve(spec.black.as_deref().unwrap_or(&players.black))?;
            let white = resolve(spec.white.as_deref().unwrap_or(&players.white))?;
            arms.push(Arm {
                label: spec.label.clone(),
                x: spec.x,
                series: spec.series.clone(),
                same_games_as: spec.same_games_as.clone().filter(|_| !quick),
                config: MatchConfig {
                    sprt,
                    black,
                    white,
                    games,
                    seed: if quick {
                        self.quick.seed.unwrap_or(s.seed)
                    } else {
                        s.seed
                    },
                    komi: s.komi,
                    alternate: s.alternate,
                    max_moves: s.max_moves,
                    timeouts: GtpTimeouts {
                        genmove_s: s.genmove_timeout_s,
                        command_s: s.command_timeout_s,
                    },
                    jobs: 1,
                    shard: None,
                    time: s.time(),
                },
            });
        }
        if arms.is_empty() {
            bail!(
                "experiment {}: no arms (give [sweep] or [[arm]])",
                self.name
            );
        }
        // Each arm plays into its own folder: two labels with one folder would report the
        // same games twice.
        let mut folders = std::collections::BTreeMap::new();
        for arm in &arms {
            if arm.config.games == 0 {
                bail!(
                    "experiment {}: arm {}: games = 0 plays nothing",
                    self.name,
                    arm.label
                );
            }
            if let Some(other) = folders.insert(slug(&arm.label), &arm.label) {
                bail!(
                    "experiment {}: arms {other:?} and {:?} would share the folder {:?}: give \
                     them distinct labels",
                    self.name,
                    arm.label,
                    slug(&arm.label)
                );
            }
        }
        // Arms share the seed and the match settings: two that play with the same players
        // play the same games, and the report would show one result as two (a sweep whose
        // variable no player uses does this).
        let mut matches = std::collections::BTreeMap::new();
        for arm in arms.iter().filter(|a| a.same_games_as.is_none()) {
            let players = (arm.config.black.as_str(), arm.config.white.as_str());
            if let Some(other) = matches.insert(players, &arm.label) {
                bail!(
                    "experiment {}: arms {other:?} and {:?} play the same match ({} vs {}, one \
                     seed): they would report the same games twice; a sweep variable must \
                     appear in a player's spec",
                    self.name,
                    arm.label,
                    players.0,
                    players.1
                );
            }
        }
        Ok(arms)
    }
}

/// Folder name for an arm label (`x=41` -> `x=41`, spaces and slashes replaced; a name
/// that is empty or starts with a dot, such as `..`, gets a leading `_`, so a label never
/// names the results folder itself or its parent).
pub fn slug(label: &str) -> String {
    let s: String = label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "=._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with('.') {
        format!("_{s}")
    } else {
        s
    }
}

/// An experiment's `name` names its results folder under `--out`: one plain folder name
/// (letters, digits, `=`, `.`, `_`, `-`; not starting with a dot; at most 100 characters),
/// never a path.
fn check_folder_name(name: &str) -> anyhow::Result<()> {
    if name.is_empty()
        || name.len() > 100
        || name.starts_with('.')
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "=._-".contains(c))
    {
        bail!(
            "{name:?} is not a plain folder name (letters, digits, `=._-`, not starting with \
             a dot): it names the results folder under --out"
        );
    }
    Ok(())
}

/// One arm's outcome.
#[derive(Debug, Clone)]
pub struct ArmResult {
    pub arm: Arm,
    pub dir: PathBuf,
    pub summary: MatchSummary,
}

/// One curve's data: x values and one series per y column.
#[derive(Debug, Clone, Default)]
pub struct CurveData {
    pub csv: PathBuf,
    pub x: Vec<f64>,
    pub series: Vec<(String, Vec<f64>)>,
    /// Positions behind the curve, from the spec's summary CSV where it has one.
    pub positions: Option<u64>,
}

/// What running an experiment gave.
#[derive(Debug, Clone)]
pub enum Outcome {
    Arms(Vec<ArmResult>),
    Curve(CurveData),
    /// Not run, with the reason (skipped in quick mode, or failed).
    Skipped(String),
}

/// An experiment and its outcome.
#[derive(Debug, Clone)]
pub struct ExperimentResult {
    pub file: ExperimentFile,
    pub quick: bool,
    pub outcome: Outcome,
    /// Arms that could not be played: `(label, error)`. The other arms still ran.
    pub failed_arms: Vec<(String, String)>,
    pub seconds: f64,
}

/// Options for running experiments.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Folder under which each experiment gets `<name>/<arm>/`.
    pub out: PathBuf,
    pub quick: bool,
    pub jobs: usize,
    pub show_progress: bool,
    /// Play the missing games. When false, only the games already in the results folders
    /// are summarised (arms with none are left out) and curve commands are not run: a report
    /// of where long runs stand, written while they go on.
    pub play: bool,
}

/// Runs (or resumes) every arm of `file`.
pub fn run(file: &ExperimentFile, opts: &RunOptions) -> anyhow::Result<ExperimentResult> {
    let start = std::time::Instant::now();
    let mut failed_arms = Vec::new();
    let outcome = if let (true, Some(reason)) = (opts.quick, &file.quick.skip) {
        Outcome::Skipped(format!("skipped in quick mode: {reason}"))
    } else {
        match file.kind {
            Kind::Match => run_arms(file, opts, &mut failed_arms)?,
            Kind::Curve => run_curve(file, opts)?,
        }
    };
    Ok(ExperimentResult {
        file: file.clone(),
        quick: opts.quick,
        outcome,
        failed_arms,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Runs every arm; an arm that fails (a spec that does not build, an engine that will not
/// start) is recorded in `failed` and the next arm runs.
fn run_arms(
    file: &ExperimentFile,
    opts: &RunOptions,
    failed: &mut Vec<(String, String)>,
) -> anyhow::Result<Outcome> {
    let mut results = Vec::new();
    for arm in file.arms(opts.quick)? {
        if let Some(other) = &arm.same_games_as {
            let dir = opts.out.join(other);
            match summary_of_folder(&dir) {
                Ok(Some(summary)) => {
                    crate::errln!(
                        "[{}] arm {}: the games of {} (not played twice): A wins {}",
                        file.name,
                        arm.label,
                        dir.display(),
                        summary.players[0].overall
                    );
                    results.push(ArmResult { arm, dir, summary });
                }
                Ok(None) => crate::errln!(
                    "[{}] arm {}: no games yet in {} (its own experiment plays them)",
                    file.name,
                    arm.label,
                    dir.display()
                ),
                Err(e) => failed.push((arm.label.clone(), format!("{e:#}"))),
            }
            continue;
        }
        let dir = opts.out.join(&file.name).join(slug(&arm.label));
        let config = MatchConfig {
            jobs: opts.jobs,
            ..arm.config.clone()
        };
        let summary = if opts.play {
            crate::errln!(
                "[{}] arm {}: {} vs {}, {} games -> {}",
                file.name,
                arm.label,
                config.black,
                config.white,
                config.games,
                dir.display()
            );
            run_match(&config, &dir, opts.show_progress).map(|o| Some(o.summary))
        } else {
            summary_so_far(&config, &dir)
        };
        let summary = match summary {
            Ok(Some(summary)) => summary,
            Ok(None) => {
                crate::errln!(
                    "[{}] arm {}: no games in {}",
                    file.name,
                    arm.label,
                    dir.display()
                );
                continue;
            }
            Err(e) => {
                crate::errln!("[{}] arm {} failed: {e:#}", file.name, arm.label);
                failed.push((arm.label.clone(), format!("{e:#}")));
                continue;
            }
        };
        crate::errln!(
            "[{}] arm {}: A ({}) wins {}",
            file.name,
            arm.label,
            config.black,
            summary.players[0].overall
        );
        results.push(ArmResult { arm, dir, summary });
    }
    Ok(Outcome::Arms(results))
}

/// The recorded games of one arm: how many, and their mean wall-clock seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    pub games: u32,
    pub seconds_per_game: f64,
    /// The `games.csv` they were read from.
    pub csv: PathBuf,
    /// The arm's sequential test (if it has one) has decided on these games: a run plays
    /// none of its other games.
    pub decided: bool,
}

/// The games of `dir/games.csv` played between the arm's two players (either colour: an
/// alternating match swaps them), with game numbers up to the arm's count. `None` when the
/// folder has no such game. Rows of other players are left out, so a folder written by an
/// earlier version of the arm (other simulations, other pruning) gives no estimate rather
/// than a wrong one.
pub fn recorded_games(config: &MatchConfig, dir: &Path) -> anyhow::Result<Option<Recorded>> {
    let csv = dir.join("games.csv");
    if !csv.is_file() {
        return Ok(None);
    }
    let players = |a: &str, b: &str| {
        (a == config.black && b == config.white) || (a == config.white && b == config.black)
    };
    let rows: BTreeMap<u32, _> = super::record::read_csv(&csv)?
        .into_iter()
        .filter(|r| r.game <= config.games && players(&r.black, &r.white))
        .map(|r| (r.game, r))
        .collect();
    if rows.is_empty() {
        return Ok(None);
    }
    let total: f64 = rows.values().map(|r| r.wall_seconds).sum();
    let decided = config.sprt_decided(&rows);
    Ok(Some(Recorded {
        games: rows.len() as u32,
        seconds_per_game: total / rows.len() as f64,
        csv,
        decided,
    }))
}

/// What `experiment run` is about to do for one arm.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmPlan {
    pub label: String,
    pub dir: PathBuf,
    pub planned: u32,
    /// Games already in `dir` (they are not played again).
    pub done: u32,
    /// Seconds per game from recorded games of the same players: those in `dir`, else
    /// those in the committed record.
    pub estimate: Option<Recorded>,
    /// The games in `dir` decide the arm's sequential test: nothing is left to play.
    pub decided: bool,
}

impl ArmPlan {
    pub fn remaining(&self) -> u32 {
        if self.decided {
            return 0;
        }
        self.planned.saturating_sub(self.done)
    }
}

/// The plan of every arm of `file`: results go to `out/<name>/<arm>`, and an arm with no
/// games there yet is timed from `record/<name>/<arm>` (the committed runs).
pub fn plan_arms(
    file: &ExperimentFile,
    quick: bool,
    out: &Path,
    record: &Path,
) -> anyhow::Result<Vec<ArmPlan>> {
    let mut plans = Vec::new();
    // An arm that reads another experiment's games costs nothing here.
    for arm in file
        .arms(quick)?
        .into_iter()
        .filter(|a| a.same_games_as.is_none())
    {
        let dir = out.join(&file.name).join(slug(&arm.label));
        let here = recorded_games(&arm.config, &dir)?;
        let estimate = match &here {
            Some(r) => Some(r.clone()),
            None => recorded_games(&arm.config, &record.join(&file.name).join(slug(&arm.label)))?,
        };
        plans.push(ArmPlan {
            label: arm.label.clone(),
            dir,
            planned: arm.config.games,
            done: here.as_ref().map_or(0, |r| r.games),
            decided: here.is_some_and(|r| r.decided),
            estimate,
        });
    }
    Ok(plans)
}

/// Seconds as `45 s`, `12 min` or `3.5 h`.
pub fn human_seconds(s: f64) -> String {
    if s < 90.0 {
        format!("{s:.0} s")
    } else if s < 5400.0 {
        format!("{:.0} min", s / 60.0)
    } else {
        format!("{:.1} h", s / 3600.0)
    }
}

/// Seconds to play what `p` has left with `jobs` games at once (its recorded seconds per
/// game / jobs), or `None` without a record.
fn arm_seconds(p: &ArmPlan, jobs: usize) -> Option<f64> {
    let r = p.estimate.as_ref()?;
    Some(f64::from(p.remaining()) * r.seconds_per_game / jobs.max(1) as f64)
}

/// The estimated seconds to play what `plans` have left with `jobs` games at once, and how
/// many arms with games to play have no estimate.
pub fn plan_estimate(plans: &[ArmPlan], jobs: usize) -> (f64, usize) {
    plans
        .iter()
        .filter(|p| p.remaining() > 0)
        .fold((0.0, 0), |(s, unknown), p| match arm_seconds(p, jobs) {
            Some(t) => (s + t, unknown),
            None => (s, unknown + 1),
        })
}

/// The plan as text: one line per arm and a total. The time assumes `jobs` games at once,
/// each as long as the recorded mean of its arm (recorded on whatever machine and with
/// whatever parallelism the record had).
pub fn plan_text(name: &str, plans: &[ArmPlan], jobs: usize) -> String {
    let mut text = String::new();
    for p in plans {
        let time = match (&p.estimate, arm_seconds(p, jobs), p.remaining()) {
            (_, _, 0) if p.decided => {
                "its sequential test has decided, nothing to play".to_string()
            }
            (_, _, 0) => "nothing to play".to_string(),
            (Some(r), Some(s), _) => format!(
                "about {} ({:.2} s a game, mean of {} recorded in {})",
                human_seconds(s),
                r.seconds_per_game,
                r.games,
                r.csv.display()
            ),
            _ => "no estimate (no recorded games of this arm)".to_string(),
        };
        text += &format!(
            "[{name}] plan {}: {} games, {} already in {}, {} to play: {time}\n",
            p.label,
            p.planned,
            p.done,
            p.dir.display(),
            p.remaining(),
        );
    }
    let planned: u32 = plans.iter().map(|p| p.planned).sum();
    let remaining: u32 = plans.iter().map(ArmPlan::remaining).sum();
    let mut total = format!(
        "[{name}] plan total: {planned} games in {} arm(s), {remaining} to play",
        plans.len()
    );
    let (seconds, unknown) = plan_estimate(plans, jobs);
    let timed = plans
        .iter()
        .any(|p| p.remaining() > 0 && p.estimate.is_some());
    if remaining > 0 && !timed {
        total += ": no estimate (no recorded games of these arms)";
    } else if remaining > 0 {
        total += &format!(
            ", {}{} with {} game(s) at once (recorded seconds per game / --jobs; the records may come from other jobs or another machine)",
            if unknown > 0 { "at least " } else { "about " },
            human_seconds(seconds),
            jobs.max(1)
        );
        if unknown > 0 {
            total += &format!("; {unknown} arm(s) without an estimate");
        }
    }
    text + &total + "\n"
}

/// The games so far of a match folder another experiment plays, named by its own header.
fn summary_of_folder(dir: &Path) -> anyhow::Result<Option<MatchSummary>> {
    let results = super::runner::ResultsDir::new(dir);
    match results.read_header()? {
        Some(header) => summary_so_far(&header.config, dir),
        None => Ok(None),
    }
}

/// The summary of the games already in an arm's folder (`None` when it has none), with the
/// arm's players as A and B. The folder's own header is not checked against the arm here:
/// resuming the match does that.
fn summary_so_far(config: &MatchConfig, dir: &Path) -> anyhow::Result<Option<MatchSummary>> {
    let csv = dir.join("games.csv");
    if !csv.exists() {
        return Ok(None);
    }
    let rows = super::record::read_csv(&csv)?;
    if rows.is_empty() {
        return Ok(None);
    }
    Ok(Some(super::summary::summarize(
        &rows,
        [&config.black, &config.white],
    )))
}

fn run_curve(file: &ExperimentFile, opts: &RunOptions) -> anyhow::Result<Outcome> {
    let spec = file.curve.as_ref().expect("checked by load");
    let out_dir = opts.out.join(&file.name);
    let mut vars = BTreeMap::from([("out".to_string(), out_dir.display().to_string())]);
    let csv = PathBuf::from(substitute(&spec.csv, &vars).map_err(anyhow::Error::msg)?);
    let summary = match &spec.summary {
        Some(t) => Some(PathBuf::from(
            substitute(t, &vars).map_err(anyhow::Error::msg)?,
        )),
        None => None,
    };
    if let Some(p) = &summary {
        vars.insert("summary".into(), p.display().to_string());
    }
    let command = if opts.quick && !spec.quick_command.is_empty() {
        &spec.quick_command
    } else {
        &spec.command
    };
    if !opts.play && !csv.exists() {
        return Ok(Outcome::Skipped(format!(
            "no results yet ({} does not exist)",
            csv.display()
        )));
    }
    let need_run = opts.play
        && !command.is_empty()
        && (!opts.quick || !spec.quick_command.is_empty() || !csv.exists());
    if need_run {
        let mut v = vars.clone();
        v.insert("csv".into(), csv.display().to_string());
        let args = command
            .iter()
            .map(|a| substitute(a, &v))
            .collect::<Result<Vec<String>, String>>()
            .map_err(anyhow::Error::msg)?;
        check_curve_inputs(&args)?;
        std::fs::create_dir_all(&out_dir)
            .with_context(|| format!("creating {}", out_dir.display()))?;
        let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("akushu"));
        crate::errln!("[{}] running akushu {}", file.name, args.join(" "));
        let status = std::process::Command::new(&exe)
            .args(&args)
            .status()
            .with_context(|| format!("running {}", exe.display()))?;
        if !status.success() {
            bail!(
                "`akushu {}` failed ({status}; its error is printed above it)",
                args.join(" ")
            );
        }
    }
    let mut data = read_curve(&csv, &spec.x, &spec.y)?;
    data.positions = match summary.filter(|p| p.exists()) {
        Some(p) => Some(summary_positions(&p)?),
        None => None,
    };
    Ok(Outcome::Curve(data))
}

/// The flags of a curve command that name an input: game records and datasets.
const CURVE_INPUT_FLAGS: [&str; 2] = ["--sgf", "--data"];

/// Refuses a curve command whose input files do not exist, naming the file and how to get
/// it, so that the report says what is missing instead of only an exit status.
fn check_curve_inputs(args: &[String]) -> anyhow::Result<()> {
    for pair in args.windows(2) {
        let path = Path::new(&pair[1]);
        if CURVE_INPUT_FLAGS.contains(&pair[0].as_str()) && std::fs::metadata(path).is_err() {
            bail!("{}", crate::util::fsio::missing_input(&pair[0], path));
        }
    }
    Ok(())
}

/// The `positions` of the first row of an `eval --summary` CSV.
fn summary_positions(path: &Path) -> anyhow::Result<u64> {
    let mut reader =
        csv::Reader::from_path(path).with_context(|| format!("opening {}", path.display()))?;
    let headers = reader.headers()?.clone();
    let col = headers
        .iter()
        .position(|h| h == "positions")
        .with_context(|| format!("{}: no column \"positions\"", path.display()))?;
    let row = reader
        .records()
        .next()
        .with_context(|| format!("{}: no rows", path.display()))??;
    row.get(col)
        .and_then(|v| v.trim().parse().ok())
        .with_context(|| format!("{}: row 1 has no number of positions", path.display()))
}

/// Reads columns `x` and `ys` of a CSV; rows with an unreadable number are skipped.
pub fn read_curve(path: &Path, x: &str, ys: &[String]) -> anyhow::Result<CurveData> {
    let mut reader =
        csv::Reader::from_path(path).with_context(|| format!("opening {}", path.display()))?;
    let headers = reader.headers()?.clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h.trim() == name)
            .with_context(|| format!("{}: no column {name:?} (has {:?})", path.display(), headers))
    };
    let xi = col(x)?;
    let yi: Vec<usize> = ys.iter().map(|y| col(y)).collect::<anyhow::Result<_>>()?;
    let mut data = CurveData {
        csv: path.to_path_buf(),
        series: ys.iter().map(|y| (y.clone(), Vec::new())).collect(),
        ..CurveData::default()
    };
    for row in reader.records() {
        let row = row.with_context(|| format!("reading {}", path.display()))?;
        let parse = |i: usize| row.get(i).and_then(|t| t.trim().parse::<f64>().ok());
        let (Some(xv), Some(yv)) = (
            parse(xi),
            yi.iter().map(|&i| parse(i)).collect::<Option<Vec<f64>>>(),
        ) else {
            continue;
        };
        data.x.push(xv);
        for (s, v) in data.series.iter_mut().zip(yv) {
            s.1.push(v);
        }
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `reproduce --quick` runs on a plain clone: every input a committed experiment's
    /// quick curve reads lies inside the checkout and is committed, never `../shared`.
    #[test]
    fn quick_curves_read_only_what_the_checkout_holds() {
        let mut curves = 0;
        for entry in std::fs::read_dir("experiments").unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "toml") {
                continue;
            }
            let file = load(&path).unwrap();
            let Some(curve) = &file.curve else { continue };
            curves += 1;
            let command = if curve.quick_command.is_empty() {
                &curve.command
            } else {
                &curve.quick_command
            };
            for pair in command.windows(2) {
                if !CURVE_INPUT_FLAGS.contains(&pair[0].as_str()) {
                    continue;
                }
                let input = Path::new(&pair[1]);
                assert!(
                    input.is_relative()
                        && input
                            .components()
                            .all(|c| c != std::path::Component::ParentDir),
                    "{}: {} {} lies outside the checkout",
                    path.display(),
                    pair[0],
                    pair[1]
                );
                assert!(input.exists(), "{}: {} is missing", path.display(), pair[1]);
            }
        }
        assert!(curves > 0, "no curve experiment found");
    }

    /// Every committed experiment whose arms sit on an x axis says what x is: a chart's axis
    /// labelled "x" tells a reader nothing.
    #[test]
    fn committed_charts_name_their_x_axis() {
        for entry in std::fs::read_dir("experiments").unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "toml") {
                continue;
            }
            let file = load(&path).unwrap();
            let on_axis = file.arms.iter().any(|a| a.x.is_some()) || file.sweep.is_some();
            assert!(
                !on_axis || !file.plot.x_label.trim().is_empty(),
                "{}: arms with x but no [plot] x_label",
                path.display()
            );
        }
    }

    /// A curve whose input is missing fails before it runs, naming the file and how to get
    /// it (the report shows this text).
    #[test]
    fn a_missing_curve_input_is_named_with_how_to_get_it() {
        let args = [
            "eval",
            "--model",
            "models/default",
            "--sgf",
            "../nowhere/engine9x9.tar.xz",
        ]
        .map(String::from);
        let err = format!("{:#}", check_curve_inputs(&args).unwrap_err());
        assert!(err.contains("../nowhere/engine9x9.tar.xz"), "{err}");
        assert!(err.contains("scripts/build-shared-data.sh"), "{err}");
        let args = ["eval", "--data", "data/no-such-dataset"].map(String::from);
        let err = format!("{:#}", check_curve_inputs(&args).unwrap_err());
        assert!(err.contains("akushu dataset build"), "{err}");
        let present = ["eval", "--sgf", "tests/fixtures/sgf"].map(String::from);
        check_curve_inputs(&present).unwrap();
    }

    #[test]
    fn names_and_labels_never_leave_the_results_folder() {
        let base =
            "name = \"{N}\"\ntitle = \"t\"\n[players]\nblack = \"random\"\nwhite = \"random\"\n";
        for bad in ["../escaped", "/abs/dir", "..", "", ".hidden", "a/b"] {
            let text = base.replace("{N}", bad);
            let err = parse(&text, "t.toml").unwrap_err();
            assert!(
                format!("{err:#}").contains("plain folder name"),
                "{bad}: {err:#}"
            );
        }
        assert_eq!(slug(".."), "_..");
        assert_eq!(slug(""), "_");
        assert_eq!(slug("x=41"), "x=41");
        // Two labels with one folder, and an arm of no games, are refused.
        let text = format!(
            "{}[[arm]]\nlabel = \"a b\"\n[[arm]]\nlabel = \"a/b\"\n",
            base.replace("{N}", "ok")
        );
        let err = parse(&text, "t.toml").unwrap().arms(false).unwrap_err();
        assert!(format!("{err:#}").contains("share the folder"), "{err:#}");
        let text = format!(
            "{}[match]\ngames = 0\n[[arm]]\nlabel = \"a\"\n",
            base.replace("{N}", "ok")
        );
        let err = parse(&text, "t.toml").unwrap().arms(false).unwrap_err();
        assert!(format!("{err:#}").contains("games = 0"), "{err:#}");
    }

    const FILE: &str = r#"
name = "t"
title = "test"
[match]
games = 100
[vars]
sims = 1000
[players]
black = "uct:sims={sims},prune={prune}"
white = "uct:sims={sims}"
[sweep]
var = "x"
values = [0, 41]
[[arm]]
label = "control"
vars = { x = 41, prune = "random:{x}" }
[quick]
games = 2
seed = 7
values = [41]
vars = { sims = 50 }
"#;

    #[test]
    fn resolves_sweep_arms_and_quick_overrides() {
        let mut f: ExperimentFile = toml::from_str(FILE).unwrap();
        f.vars
            .insert("prune".into(), toml::Value::String("nn:{x}@0".into()));
        let full = f.arms(false).unwrap();
        assert_eq!(full.len(), 3);
        assert_eq!(full[1].label, "x=41");
        assert_eq!(full[1].x, Some(41.0));
        assert_eq!(full[1].config.black, "uct:sims=1000,prune=nn:41@0");
        assert_eq!(full[2].config.black, "uct:sims=1000,prune=random:41");
        assert_eq!(full[0].config.games, 100);
        let quick = f.arms(true).unwrap();
        assert_eq!(
            quick.iter().map(|a| a.label.as_str()).collect::<Vec<_>>(),
            ["x=41", "control"]
        );
        assert_eq!(quick[0].config.white, "uct:sims=50");
        assert_eq!(quick[0].config.games, 2);
        assert_eq!((full[0].config.seed, quick[0].config.seed), (1, 7));
        // titles and labels read the same vars: the quick ones in quick mode
        assert_eq!(f.fill("black at {sims}", false), "black at 1000");
        assert_eq!(f.fill("black at {sims}", true), "black at 50");
        assert_eq!(
            f.fill("x = {x}", true),
            "x = {x}",
            "the sweep variable stays"
        );
    }

    #[test]
    fn unknown_variables_and_fields_are_errors() {
        assert!(substitute("a{b}", &BTreeMap::new()).is_err());
        let loop_vars = BTreeMap::from([("a".to_string(), "{a}x".to_string())]);
        assert!(substitute("{a}", &loop_vars).is_err());
        assert!(toml::from_str::<ExperimentFile>("name='a'\ntitle='b'\ngamez=3").is_err());
    }

    /// `sprt` under `[match]` reaches every arm's match; a bad one names the experiment.
    #[test]
    fn a_sequential_test_in_the_file_reaches_every_arm() {
        let text = "name = 'gate'\ntitle = 'g'\n[match]\ngames = 400\nsprt = 'elo0=0,elo1=35'\n\
                    [players]\nblack = 'uct:sims=50'\nwhite = 'random'\n[[arm]]\nlabel = 'a'\n";
        let f = parse(text, "gate.toml").unwrap();
        let arms = f.arms(false).unwrap();
        let sprt = arms[0].config.sprt.expect("the arm carries the test");
        assert_eq!((sprt.elo0, sprt.elo1, sprt.alpha), (0.0, 35.0, 0.05));
        let bad = parse(&text.replace("elo1=35", "elo1=-5"), "gate.toml").unwrap();
        let e = format!("{:#}", bad.arms(false).unwrap_err());
        assert!(
            e.contains("experiment gate") && e.contains("must be below"),
            "{e}"
        );
    }

    /// A `games.csv` row of `black` vs `white` lasting `wall` seconds.
    fn row(game: u32, black: &str, white: &str, wall: f64) -> String {
        format!(
            "{game},\"{black}\",\"{white}\",A,B,B+R,,40,resign,1.0,1.0,100,100,{wall},{game},,,,false\n"
        )
    }

    #[test]
    fn plans_count_done_games_and_time_the_rest_from_recorded_ones() {
        let root =
            std::env::temp_dir().join(format!("akushu-experiment-plan-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let f: ExperimentFile = toml::from_str(FILE).unwrap();
        let (out, record) = (root.join("out"), root.join("record"));
        let header = "game,black,white,black_player,winner,result,score,moves,reason,\
                      black_seconds,white_seconds,black_sims,white_sims,wall_seconds,seed,\
                      error_by,error,gtp_score,score_disagreement\n";
        let write = |dir: PathBuf, rows: &[String]| {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("games.csv"), header.to_string() + &rows.concat()).unwrap();
        };
        let (b41, w) = ("uct:sims=1000,prune=nn:41@0", "uct:sims=1000");
        // x=0: nothing here; the record has two games of its players (2 s and 4 s) and one of
        // other players, which must not count.
        write(
            record.join("t/x=0"),
            &[
                row(1, "uct:sims=1000,prune=nn:0@0", w, 2.0),
                row(2, w, "uct:sims=1000,prune=nn:0@0", 4.0),
                row(3, "uct:sims=50,prune=nn:0@0", w, 100.0),
            ],
        );
        // x=41: 10 games here at 6 s; the record (ignored: the output folder has games) says 1 s.
        write(
            out.join("t/x=41"),
            &(1..=10).map(|g| row(g, b41, w, 6.0)).collect::<Vec<_>>(),
        );
        write(record.join("t/x=41"), &[row(1, b41, w, 1.0)]);
        let mut f = f;
        f.vars
            .insert("prune".into(), toml::Value::String("nn:{x}@0".into()));
        let plans = plan_arms(&f, false, &out, &record).unwrap();
        assert_eq!(plans.len(), 3);
        let x0 = &plans[0];
        assert_eq!((x0.planned, x0.done, x0.remaining()), (100, 0, 100));
        let e = x0.estimate.as_ref().unwrap();
        assert_eq!((e.games, e.seconds_per_game), (2, 3.0));
        assert_eq!(e.csv, record.join("t/x=0/games.csv"));
        let x41 = &plans[1];
        assert_eq!((x41.done, x41.remaining()), (10, 90));
        assert_eq!(x41.estimate.as_ref().unwrap().seconds_per_game, 6.0);
        assert_eq!(plans[2].estimate, None);
        let text = plan_text("t", &plans, 2);
        // 100 x 3 s / 2 + 90 x 6 s / 2 = 420 s = 7 min, a lower bound: control has no estimate.
        assert!(
            text.contains("no estimate (no recorded games of this arm)"),
            "{text}"
        );
        assert!(
            text.contains("plan total: 300 games in 3 arm(s), 290 to play, at least 7 min"),
            "{text}"
        );
        assert_eq!(text.lines().count(), 4, "{text}");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn an_arm_whose_sequential_test_has_decided_has_nothing_left_to_play() {
        let root =
            std::env::temp_dir().join(format!("akushu-experiment-sprt-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let mut f: ExperimentFile = toml::from_str(FILE).unwrap();
        f.settings.sprt = Some("elo0=-35,elo1=35".into());
        f.vars
            .insert("prune".into(), toml::Value::String("nn:{x}@0".into()));
        let out = root.join("out");
        let header = "game,black,white,black_player,winner,result,score,moves,reason,\
                      black_seconds,white_seconds,black_sims,white_sims,wall_seconds,seed,\
                      error_by,error,gtp_score,score_disagreement\n";
        let (b41, w) = ("uct:sims=1000,prune=nn:41@0", "uct:sims=1000");
        // x=41: A (black) won its first 30 games, which decides the test; x=0: 3 wins only.
        let write = |arm: &str, black: &str, n: u32| {
            let dir = out.join("t").join(arm);
            std::fs::create_dir_all(&dir).unwrap();
            let rows: String = (1..=n).map(|g| row(g, black, w, 2.0)).collect();
            std::fs::write(dir.join("games.csv"), header.to_string() + &rows).unwrap();
        };
        write("x=41", b41, 30);
        write("x=0", "uct:sims=1000,prune=nn:0@0", 3);
        let plans = plan_arms(&f, false, &out, &root.join("record")).unwrap();
        let (x0, x41) = (&plans[0], &plans[1]);
        assert!(x41.decided && x41.remaining() == 0, "{x41:?}");
        assert!(!x0.decided && x0.remaining() == 97, "{x0:?}");
        let text = plan_text("t", &plans, 2);
        assert!(
            text.contains("30 already in") && text.contains("sequential test has decided"),
            "{text}"
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn slugs_are_safe_folder_names() {
        assert_eq!(slug("x=41"), "x=41");
        assert_eq!(slug("depth 1/root"), "depth_1_root");
    }
}
