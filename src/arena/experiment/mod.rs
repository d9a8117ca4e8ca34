//! Experiments as files: `experiments/*.toml`, one per paper result. A file names the players
//! as spec templates (`uct:sims={sims},prune=nn:{x}@0`), the match settings, and the arms —
//! a sweep over one variable and/or explicit `[[arm]]` tables — plus a `[quick]` table that
//! shrinks everything for `akushu reproduce --quick`. A `kind = "curve"` experiment instead
//! plots a CSV that an akushu command writes (the error-rate curve).
//!
//! Every arm is an ordinary match folder, so arms resume, shard and merge like any match.
//!
//! Files: this one the file format (templates, sweeps, arms, quick overrides, plot settings,
//! families); `run.rs` running the arms; `plan.rs` the plan and its time estimate;
//! `curve.rs` curve experiments; `tests.rs` the tests.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use super::match_rules::MatchRules;
use super::runner::{MatchConfig, run_match};
use super::summary::MatchSummary;

mod curve;
mod plan;
mod run;
pub use curve::*;
pub use plan::*;
pub use run::*;

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

/// Match settings shared by all arms (`[match]`): how many games each arm plays and its
/// seed, beside the keys of a match's own rules ([`MatchRules`], with its defaults).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Settings {
    /// Games per arm.
    pub games: u32,
    /// Match seed (each arm uses the same seed: arms differ only in the players).
    pub seed: u64,
    /// Komi, colours, move cap, timeouts, the clock both sides play under (as `match
    /// --time-per-move`: arms compared at equal time) and the sequential test that stops
    /// each arm (`games` is then the most an arm plays).
    #[serde(flatten)]
    pub rules: MatchRules,
}

/// The keys `[match]` adds to a match's rules, with their defaults.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, default)]
struct MatchPlan {
    games: u32,
    seed: u64,
}

impl Default for MatchPlan {
    fn default() -> Self {
        MatchPlan {
            games: 200,
            seed: 1,
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        let plan = MatchPlan::default();
        Settings {
            games: plan.games,
            seed: plan.seed,
            rules: MatchRules::default(),
        }
    }
}

impl<'de> Deserialize<'de> for Settings {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (plan, rules): (MatchPlan, MatchRules) =
            crate::util::section::deserialize_split(deserializer, "the [match] table")?;
        Ok(Settings {
            games: plan.games,
            seed: plan.seed,
            rules,
        })
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
    // The rules checked on a one-game match (each arm's game count is checked with the arms).
    let s = &file.settings;
    s.rules
        .config("random".into(), "random".into(), 1, s.seed, 1)
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
        let seed = if quick {
            self.quick.seed.unwrap_or(s.seed)
        } else {
            s.seed
        };
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
                config: s.rules.config(black, white, games, seed, 1),
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

#[cfg(test)]
mod tests;
