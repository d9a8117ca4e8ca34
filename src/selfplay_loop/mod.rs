//! The self-play loop (`akushu loop CONFIG.toml --out DIR`): generations of networks, each
//! learnt from the search of the best one so far, in the manner of AlphaGo Zero, Leela Zero
//! and minigo, with the bad-move network at its centre.
//!
//! One generation `g`, each step resumable and recorded before the next starts:
//! 1. **self-play** with the best network as the engine's pruner and prior
//!    (`gen-NNN/selfplay`, [`crate::arena::selfplay_run`]);
//! 2. **dataset** from the self-play of the last `window` generations (`gen-NNN/data`; split
//!    by a seeded hash of each game's seed, so a test game is a test game in every window);
//! 3. **training** from the best network's weights (`gen-NNN/model`, a new directory; the run
//!    resumes from its checkpoint);
//! 4. **gate**: a match of the candidate against the best at equal time per move, colours
//!    alternating (`gen-NNN/gate`), decided by a test whose chance of promoting an equal
//!    network is at most its `alpha` (a sequential test cut at the games when one is
//!    configured, else a one-sided binomial test over all of them; [`gate`]);
//! 5. **promote or keep**, with the candidate's error-rate curves on the held-out self-play
//!    games and (optionally) a human test split.
//!
//! `state.json` records every finished step: which games, which weights with their checksum,
//! the gate's result; `summary.md`, `ratings.png` and `curves.png` are rewritten after each
//! generation. A killed loop reruns the step it was in and goes on; a finished generation is
//! never redone.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use crate::arena::match_rules::MatchRules;
use crate::arena::runner::{MatchConfig, a_score, run_match};
use crate::arena::selfplay::GameRules;
use crate::arena::selfplay_run::{
    SelfplayConfig, SelfplayDatasetConfig, build_dataset, run_selfplay,
};
use crate::arena::sprt::Decision;
use crate::dataset::{Split, read_split};
use crate::net::job::TrainJob;
use crate::net::model::{
    LrSchedule, Target, TrainConfig, config_path, model_checksum, weights_path,
};
use crate::net::options::TrainOverrides;
use crate::net::train::{TrainOptions, sample};
use crate::util::fsio::write_atomic;
use crate::util::rng::mix64;

pub mod chart;
pub mod gate;
pub mod recover;

use gate::GateTest;

/// The marker kind of a loop folder.
pub const LOOP_KIND: &str = "loop";

/// A loop's configuration (`loop.toml`; unknown keys are refused).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoopConfig {
    /// The first best network: a CNN model directory.
    pub start: String,
    /// Self-play engine spec; `{net}` stands for the best network's directory.
    pub engine: String,
    /// Gate engine spec for both sides (`{net}` = each side's network); the gate's clock
    /// decides how long it searches, so give it a simulation cap it never reaches.
    pub gate_engine: String,
    /// Generations to run.
    pub generations: u32,
    /// Loop seed: every step's seed is derived from it and the generation.
    #[serde(default = "default_seed")]
    pub seed: u64,
    #[serde(default)]
    pub selfplay: SelfplaySection,
    #[serde(default)]
    pub data: DataSection,
    #[serde(default)]
    pub train: TrainSection,
    #[serde(default)]
    pub gate: GateSection,
    #[serde(default)]
    pub eval: EvalSection,
}

fn default_seed() -> u64 {
    1
}

/// `[selfplay]`: games per generation and how they are played: `games` and `jobs` beside
/// the keys of self-play's own config, [`GameRules`], with its defaults.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SelfplaySection {
    pub games: u32,
    pub jobs: usize,
    #[serde(flatten)]
    pub rules: GameRules,
}

/// The keys `[selfplay]` adds to self-play's rules, with the section's defaults.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, default)]
struct SelfplayPlan {
    games: u32,
    jobs: usize,
}

impl Default for SelfplayPlan {
    fn default() -> Self {
        SelfplayPlan {
            games: 200,
            jobs: 2,
        }
    }
}

impl Default for SelfplaySection {
    fn default() -> Self {
        let plan = SelfplayPlan::default();
        SelfplaySection {
            games: plan.games,
            jobs: plan.jobs,
            rules: GameRules::default(),
        }
    }
}

impl<'de> Deserialize<'de> for SelfplaySection {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (plan, rules): (SelfplayPlan, GameRules) =
            crate::util::section::deserialize_split(deserializer, "the [selfplay] table")?;
        Ok(SelfplaySection {
            games: plan.games,
            jobs: plan.jobs,
            rules,
        })
    }
}

/// `[data]`: how each generation's dataset is cut.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DataSection {
    /// Generations of self-play a dataset takes (the newest last).
    pub window: u32,
    pub validation: f64,
    pub test: f64,
}

impl Default for DataSection {
    fn default() -> Self {
        DataSection {
            window: 4,
            validation: 0.1,
            test: 0.1,
        }
    }
}

/// `[train]`: how the candidates train. Every training option (the keys of
/// [`TrainOverrides`], `akushu train`'s flags by their config names) written over the best
/// network's own config, the loop's defaults ([`loop_train_defaults`]) under the keys not
/// given; then where the training runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrainSection {
    #[serde(flatten)]
    pub options: TrainOverrides,
    /// `cpu`, `gpu`, `vulkan[:N]`, `cuda[:N]` (what the build has).
    pub device: String,
    /// Threads for the CPU kernels (0 = all cores; 1 = bit-reproducible).
    pub threads: usize,
}

/// The loop's own training defaults, under the `[train]` keys not given: a short run at a
/// low rate on the search's visits with every example augmented, without the mixes,
/// warm-up, schedule, sample or mid-epoch validations the best network may have been
/// trained with. Every other option stays as the best network has it (its shape and heads,
/// the heads' loss weights, patience).
pub fn loop_train_defaults() -> TrainOverrides {
    TrainOverrides {
        epochs: Some(2),
        learning_rate: Some(3e-4),
        batch_size: Some(256),
        target: Some(Target::Visits),
        bad_share: Some(0.05),
        augment: Some(true),
        mix: Some(Vec::new()),
        heads_only: Some(false),
        value_search_share: Some(0.0),
        max_train: Some(0),
        validate_every: Some(0),
        warmup_steps: Some(0),
        lr_schedule: Some(LrSchedule::Constant),
        ..TrainOverrides::default()
    }
}

impl TrainSection {
    /// Writes the loop's defaults, then the keys given, over `c`: a network's training
    /// config becomes its candidate's (the seed and the start weights are the loop's).
    fn apply(&self, c: &mut TrainConfig) {
        loop_train_defaults().apply(c);
        self.options.apply(c);
    }
}

impl Default for TrainSection {
    fn default() -> Self {
        TrainSection {
            options: TrainOverrides::default(),
            device: "cpu".into(),
            threads: 0,
        }
    }
}

// `[train]` is read by `util::section` rather than `#[serde(flatten)]` (which would let a
// misspelt key pass and report a bad value without its key): `device` and `threads` are set
// aside and every other key goes to `TrainOverrides`'s strict reader at its line.
impl<'de> Deserialize<'de> for TrainSection {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (run, options): (TrainPlace, TrainOverrides) =
            crate::util::section::deserialize_split(deserializer, "the [train] table")?;
        Ok(TrainSection {
            options,
            device: run.device,
            threads: run.threads,
        })
    }
}

/// The two keys of `[train]` that say where the training runs, with the section's defaults.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, default)]
struct TrainPlace {
    device: String,
    threads: usize,
}

impl Default for TrainPlace {
    fn default() -> Self {
        let d = TrainSection::default();
        TrainPlace {
            device: d.device,
            threads: d.threads,
        }
    }
}

/// `[gate]`: the match that decides promotion ([`gate`] states its error rates).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GateSection {
    /// Most games (all of them without `sprt`).
    pub games: u32,
    /// Seconds a move for both sides (0 = no clock: each side searches as its spec says).
    pub time_per_move: f64,
    /// A sequential test on the candidate's results (`elo0=0,elo1=35`), cut at `games`: H1
    /// promotes, H0 or no decision keeps the best.
    pub sprt: Option<crate::arena::sprt::SprtText>,
    /// Without `sprt`: the level of the one-sided test over all games (default 0.05), the
    /// most often an equal network may be promoted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// Without `sprt`: the Elo gain the gate's power is stated at (default 35).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elo1: Option<f64>,
    /// No longer a rule (a share threshold promotes equal networks far more often than any
    /// stated rate): read only to refuse it by name, and from the `loop.toml` of folders
    /// gated by it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
    pub jobs: usize,
    /// The gate's move cap: self-play's ([`crate::arena::game::SELFPLAY_MAX_MOVES`]), not a
    /// match's.
    pub max_moves: u32,
}

impl Default for GateSection {
    fn default() -> Self {
        GateSection {
            games: 100,
            time_per_move: 0.1,
            sprt: None,
            alpha: None,
            elo1: None,
            threshold: None,
            jobs: 2,
            // Self-play's cap, not a match's: the loop's games all stop at one length.
            max_moves: crate::arena::game::SELFPLAY_MAX_MOVES,
        }
    }
}

impl GateSection {
    /// The gate's test, with its error rates; a key that does not fit refused by name.
    pub fn test(&self) -> anyhow::Result<GateTest> {
        if let Some(t) = self.threshold {
            bail!(
                "gate.threshold = {t}: the gate no longer promotes on a share of points (a 55% \
                 share of 100 games promotes an equal network 18% of the time); remove the key: \
                 the gate promotes on a test at gate.alpha, or gate.sprt's alpha"
            );
        }
        match &self.sprt {
            Some(s) => {
                if self.alpha.is_some() || self.elo1.is_some() {
                    bail!(
                        "gate.alpha and gate.elo1 are the fixed test's: with gate.sprt give \
                         alpha and elo1 in its spec"
                    );
                }
                GateTest::sequential(self.games, s.test())
            }
            None => GateTest::fixed(
                self.games,
                self.alpha.unwrap_or(gate::DEFAULT_ALPHA),
                self.elo1.unwrap_or(gate::DEFAULT_ELO1),
            ),
        }
    }
}

/// `[eval]`: the error-rate curves recorded per generation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EvalSection {
    /// A human dataset whose test split every candidate is measured on (none: skip).
    pub human: Option<String>,
    /// Positions sampled from each test split (0 = all).
    pub max_positions: usize,
}

impl Default for EvalSection {
    fn default() -> Self {
        EvalSection {
            human: None,
            max_positions: 20_000,
        }
    }
}

impl LoopConfig {
    /// Reads and checks a loop file.
    pub fn from_file(path: &Path) -> anyhow::Result<LoopConfig> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let config: LoopConfig = toml::from_str(&text)
            .with_context(|| format!("{}: invalid loop config", path.display()))?;
        config
            .validate()
            .with_context(|| format!("{}: invalid loop config", path.display()))?;
        Ok(config)
    }

    /// Checks ranges, the network and the specs before any step runs.
    pub fn validate(&self) -> anyhow::Result<()> {
        if self.generations == 0 || self.generations > 10_000 {
            bail!("generations {} is not from 1 to 10000", self.generations);
        }
        for (name, spec) in [("engine", &self.engine), ("gate_engine", &self.gate_engine)] {
            if !spec.contains("{net}") {
                bail!("{name} {spec:?} does not name the network: write {{net}} where it goes");
            }
        }
        if !weights_path(Path::new(&self.start)).exists() {
            bail!(
                "start {}: no trained network there (model.bpk missing)",
                self.start
            );
        }
        // Networks a spec names besides `{net}` (a fixed value, a second pruner) are
        // looked for now, not when the first game starts its engine.
        for (name, template) in [("engine", &self.engine), ("gate_engine", &self.gate_engine)] {
            let spec = Self::spec(template, Path::new(&self.start));
            for dir in crate::search::spec::model_dirs(&spec) {
                let found = crate::search::pruners::resolve_model_dir(&dir);
                if !weights_path(&found).exists() {
                    bail!(
                        "{name} names the network {}: no trained network there (model.bpk missing)",
                        dir.display()
                    );
                }
            }
        }
        if self.data.window == 0 {
            bail!("data.window must be at least 1");
        }
        if !(0.0..1.0).contains(&(self.data.validation + self.data.test))
            || self.data.validation <= 0.0
        {
            bail!("data.validation must be above 0 and data.validation + data.test below 1");
        }
        // Every candidate's curve is measured on the test split (as `eval` does, which
        // refuses an empty split): a curve on no positions would be recorded as 0 errors.
        if self.data.test <= 0.0 {
            bail!(
                "data.test must be above 0: each candidate's error-rate curve is measured on \
                 the dataset's test split"
            );
        }
        if !(0.0..=1e6).contains(&self.gate.time_per_move) {
            bail!(
                "gate.time_per_move {} is not from 0 to 1e6",
                self.gate.time_per_move
            );
        }
        self.gate.test()?;
        // The candidate's training, checked here by `train`'s own rules over the start
        // network's config (its shape decides, e.g., whether `heads_only` has a head to
        // train) rather than after a generation's self-play; a config that does not read
        // is refused here too, for the same reason.
        let mut candidate = TrainConfig::from_file(&config_path(Path::new(&self.start)))
            .with_context(|| format!("start {}", self.start))?;
        self.train.apply(&mut candidate);
        candidate
            .validate()
            .map_err(|e| anyhow::anyhow!("train.{e}"))?;
        crate::util::num::check(
            "threads",
            self.train.threads,
            0,
            crate::util::num::MAX_THREADS,
        )
        .map_err(|e| anyhow::anyhow!("train.{e}"))?;
        self.train
            .device
            .parse::<crate::net::DeviceChoice>()
            .map_err(|e| anyhow::anyhow!("train.device: {e}"))?;
        if self.train.options.seed.is_some() {
            bail!(
                "train.seed: the loop derives each candidate's seed from its own `seed` and the \
                 generation; set `seed` at the top of the file"
            );
        }
        for m in self.train.options.mix.iter().flatten() {
            if !Path::new(&m.data).join("manifest.json").exists() {
                bail!("train.mix: {} is not a dataset (no manifest.json)", m.data);
            }
            crate::net::data::check_mix(m).map_err(|e| anyhow::anyhow!("train.{e}"))?;
        }
        if let Some(h) = &self.eval.human
            && !Path::new(h).join("manifest.json").exists()
        {
            bail!("eval.human: {h} is not a dataset (no manifest.json)");
        }
        self.check_steps()
    }

    /// Self-play's and the gate's settings checked by their own rules, and both engines built
    /// once with the start network in `{net}`: an unknown spec key, an engine that reports no
    /// root visits (`flat`), a start network that does not load (NaN weights), `jobs` or
    /// `max_moves` out of range are refused here, before the loop's folder is written, rather
    /// than by the step that first meets them after a generation's self-play and training.
    fn check_steps(&self) -> anyhow::Result<()> {
        let start = Path::new(&self.start);
        let selfplay = self.selfplay_config(1, start);
        selfplay.validate().context("[selfplay]")?;
        crate::arena::selfplay_run::check_engines(&selfplay).context("engine")?;
        if self.gate.games == 0 {
            bail!("gate.games must be at least 1: a gate of no games would decide on nothing");
        }
        let gate = self.gate_config(1, start, start)?;
        gate.validate().context("[gate]")?;
        crate::arena::runner::check_players(&gate).context("gate_engine")?;
        Ok(())
    }

    /// Whether `old` (the `loop.toml` of a folder) is this loop: the same in everything but
    /// `generations`, its `[train]` compared by the candidates' config it makes from the
    /// start network's, so a key left out and the same key at the loop's default are one
    /// (folders written before the keys were optional spell the defaults out).
    pub fn continues(&self, old: &LoopConfig) -> anyhow::Result<bool> {
        let start = TrainConfig::from_file(&config_path(Path::new(&self.start)))
            .with_context(|| format!("start {}", self.start))?;
        let candidate = |train: &TrainSection| {
            let mut c = start.clone();
            train.apply(&mut c);
            c.to_json()
        };
        let same_training = candidate(&self.train) == candidate(&old.train);
        let (mut a, mut b) = (self.clone(), old.clone());
        a.generations = b.generations;
        // Folders gated by the share threshold go on under the test; the generations they
        // finished keep the decisions recorded then (`Generation::gate_rule` is empty).
        b.gate.threshold = None;
        a.train.options = TrainOverrides::default();
        b.train.options = TrainOverrides::default();
        Ok(same_training && a == b)
    }

    /// A spec template with `{net}` filled in.
    fn spec(template: &str, net: &Path) -> String {
        template.replace("{net}", &net.display().to_string())
    }

    /// The seed of step `step` of generation `g`.
    fn seed_for(&self, g: u32, step: u64) -> u64 {
        mix64(self.seed ^ mix64((g as u64) << 8 | step))
    }

    fn selfplay_config(&self, g: u32, best: &Path) -> SelfplayConfig {
        SelfplayConfig {
            engines: vec![LoopConfig::spec(&self.engine, best)],
            games: self.selfplay.games,
            seed: self.seed_for(g, 1),
            rules: self.selfplay.rules,
            jobs: self.selfplay.jobs,
            shard: None,
        }
    }

    fn gate_config(&self, g: u32, candidate: &Path, best: &Path) -> anyhow::Result<MatchConfig> {
        // A match's rules, filled from `[gate]` and self-play's komi; colours alternate, so
        // neither network keeps the first move.
        let rules = MatchRules {
            komi: self.selfplay.rules.komi,
            alternate: true,
            max_moves: self.gate.max_moves,
            time_per_move: (self.gate.time_per_move > 0.0).then_some(self.gate.time_per_move),
            sprt: self.gate.sprt.clone(),
            ..MatchRules::default()
        };
        Ok(rules.config(
            LoopConfig::spec(&self.gate_engine, candidate),
            LoopConfig::spec(&self.gate_engine, best),
            self.gate.games,
            self.seed_for(g, 4),
            self.gate.jobs,
        ))
    }
}

/// One generation as recorded in `state.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Generation {
    pub index: u32,
    /// The best network self-play and the gate used, and its checksum.
    pub best: String,
    pub best_checksum: crate::util::checksum::Checksum,
    pub selfplay_games: u32,
    pub selfplay_positions: u64,
    /// Self-play CPU seconds (all games' game threads).
    pub selfplay_cpu_seconds: f64,
    /// Training positions (self-play window plus mixes) and the dataset's test positions.
    pub train_positions: u64,
    pub candidate: String,
    pub candidate_checksum: crate::util::checksum::Checksum,
    /// Gate games counted and the candidate's points in them.
    pub gate_games: u32,
    pub gate_points: f64,
    /// Gate games lost on time by a starved machine, left out of the count and the decision
    /// ([`crate::arena::record::GameRecord::is_starved_forfeit`]).
    #[serde(default)]
    pub gate_forfeits: u32,
    /// The sequential test's decision, if the gate had one.
    pub gate_sprt: Option<String>,
    /// The gate's rule and its error rates ([`GateTest::describe`]); empty in generations
    /// gated before the rule was a test (by a share threshold).
    #[serde(default)]
    pub gate_rule: Option<String>,
    pub promoted: bool,
    /// The candidate's error rate at x = 0..=80 on the held-out self-play games (the test
    /// split of this generation's dataset; the played move is the target).
    pub curve_selfplay: Vec<f64>,
    /// The same on the human test split, when `eval.human` is set.
    pub curve_human: Vec<f64>,
}

/// `state.json`: the finished generations.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LoopState {
    pub generations: Vec<Generation>,
}

impl LoopState {
    fn load(path: &Path) -> anyhow::Result<LoopState> {
        if !path.exists() {
            return Ok(LoopState::default());
        }
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
    }

    /// Refuses a record that is not what this loop wrote in `out`: generations numbered 1, 2,
    /// ... in order, no more than `config` runs, each started from the best network before it
    /// and naming a candidate whose weights in its own generation's folder have the recorded
    /// checksum. An edited or forged `state.json` would otherwise be printed and built on.
    fn check(&self, config: &LoopConfig, out: &Path, path: &Path) -> anyhow::Result<()> {
        let forged = |why: String| {
            anyhow::anyhow!(
                "{}: {why}: the file is not what this loop wrote; restore it or use a new \
                 --out folder",
                path.display()
            )
        };
        if self.generations.len() > config.generations as usize {
            return Err(forged(format!(
                "it records {} generations but the config runs {}",
                self.generations.len(),
                config.generations
            )));
        }
        let mut best = config.start.clone();
        for (k, g) in self.generations.iter().enumerate() {
            let want = k as u32 + 1;
            if g.index != want {
                return Err(forged(format!(
                    "generation {want} is recorded as generation {}",
                    g.index
                )));
            }
            if g.best != best {
                return Err(forged(format!(
                    "generation {want} started from {}, but the best network before it was {best}",
                    g.best
                )));
            }
            let model = gen_dir(out, want).join("model");
            let found = model_checksum(&model)
                .map_err(|e| forged(format!("generation {want}'s candidate: {e}")))?;
            if found != g.candidate_checksum {
                return Err(forged(format!(
                    "generation {want}'s candidate {} has weights {found}, the record says {}",
                    model.display(),
                    g.candidate_checksum
                )));
            }
            if g.promoted {
                best = g.candidate.clone();
            }
        }
        Ok(())
    }

    fn save(&self, path: &Path) -> anyhow::Result<()> {
        write_atomic(path, serde_json::to_string_pretty(self)?.as_bytes())
            .map_err(anyhow::Error::from)
    }

    /// The best network after the finished generations.
    pub fn best<'a>(&'a self, config: &'a LoopConfig) -> &'a str {
        self.generations
            .iter()
            .rev()
            .find(|g| g.promoted)
            .map_or(config.start.as_str(), |g| g.candidate.as_str())
    }
}

/// How a loop run behaves beyond its config.
#[derive(Debug, Clone, Default)]
pub struct LoopOptions {
    pub progress: bool,
    /// Stop (as if killed) after this many steps have run in this call: the resume test's
    /// interruption point.
    pub stop_after_steps: Option<usize>,
}

/// What a loop call did.
#[derive(Debug, Clone)]
pub struct LoopOutcome {
    pub state: LoopState,
    /// True when `stop_after_steps` stopped it early.
    pub interrupted: bool,
}

/// The folder of generation `g`.
fn gen_dir(out: &Path, g: u32) -> PathBuf {
    out.join(format!("gen-{g:03}"))
}

/// Counts the steps run in this call; says when to stop.
struct Steps {
    done: usize,
    limit: Option<usize>,
}

impl Steps {
    /// Records a step; true when the call must stop here.
    fn finished(&mut self) -> bool {
        self.done += 1;
        self.limit.is_some_and(|l| self.done >= l)
    }
}

/// Runs (or resumes) the loop of `config` in `out`.
pub fn run_loop(
    config: &LoopConfig,
    out: &Path,
    options: &LoopOptions,
) -> anyhow::Result<LoopOutcome> {
    config.validate()?;
    let config_file = out.join("loop.toml");
    if out.exists() {
        // A folder that records no work (its marker, a `loop.toml`, steps that got their
        // marker and nothing else) is a start that was refused: this config starts it afresh.
        let only_a_start =
            crate::util::output::holds_only_a_start(out, &["loop.toml"]).unwrap_or(false);
        match std::fs::read_to_string(&config_file) {
            Ok(_) if only_a_start => {}
            Ok(text) => {
                let old: LoopConfig = toml::from_str(&text)
                    .with_context(|| format!("parsing {}", config_file.display()))?;
                if !config.continues(&old)? {
                    bail!(
                        "{} holds another loop: resume only with the same config (generations \
                         may grow), or use a new --out folder",
                        config_file.display()
                    );
                }
            }
            Err(_) if only_a_start => {}
            Err(_) => bail!(
                "{} is not empty but has no loop.toml: use a new --out folder",
                out.display()
            ),
        }
    }
    // The record is checked before anything is written.
    let state_file = out.join("state.json");
    let mut state = LoopState::load(&state_file)?;
    state.check(config, out, &state_file)?;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    crate::util::output::mark_dir(out, LOOP_KIND)?;
    write_atomic(&config_file, toml::to_string(config)?.as_bytes())?;
    let mut steps = Steps {
        done: 0,
        limit: options.stop_after_steps,
    };
    for g in state.generations.len() as u32 + 1..=config.generations {
        let best = PathBuf::from(state.best(config));
        let best_checksum = model_checksum(&best)
            .with_context(|| format!("the best network {}", best.display()))?;
        let dir = gen_dir(out, g);
        crate::errln!("generation {g}: best {}", best.display());

        // 1. Self-play (resumes inside its folder).
        let sp_dir = dir.join("selfplay");
        let sp = run_selfplay(&config.selfplay_config(g, &best), &sp_dir, options.progress)
            .with_context(|| format!("generation {g}: self-play"))?;
        if sp.played_now > 0 && steps.finished() {
            return Ok(LoopOutcome {
                state,
                interrupted: true,
            });
        }

        // 2. Dataset over the window (built atomically: present means done).
        let data_dir = dir.join("data");
        if !data_dir.join("manifest.json").exists() {
            let first = g.saturating_sub(config.data.window - 1).max(1);
            let folders: Vec<PathBuf> = (first..=g)
                .map(|k| gen_dir(out, k).join("selfplay"))
                .collect();
            let cfg = SelfplayDatasetConfig {
                seed: config.seed,
                validation_fraction: config.data.validation,
                test_fraction: config.data.test,
                include_passes: false,
            };
            build_dataset(&folders, &cfg, &data_dir, false)
                .with_context(|| format!("generation {g}: dataset"))?;
            if steps.finished() {
                return Ok(LoopOutcome {
                    state,
                    interrupted: true,
                });
            }
        }

        // 3. Training from the best network's weights into a new directory.
        let model_dir = dir.join("model");
        let trained_marker = model_dir.join("trained");
        if !trained_marker.exists() {
            let train_positions =
                train_candidate(config, g, &best, &data_dir, &model_dir, options)?;
            write_atomic(&trained_marker, train_positions.to_string().as_bytes())?;
            if steps.finished() {
                return Ok(LoopOutcome {
                    state,
                    interrupted: true,
                });
            }
        }
        let train_positions: u64 = std::fs::read_to_string(&trained_marker)?
            .trim()
            .parse()
            .unwrap_or(0);

        // 4. Gate (resumes inside its folder).
        let gate = config.gate_config(g, &model_dir, &best)?;
        let played = run_match(&gate, &dir.join("gate"), options.progress)
            .with_context(|| format!("generation {g}: gate match"))?;
        if played.played_now > 0 && steps.finished() {
            return Ok(LoopOutcome {
                state,
                interrupted: true,
            });
        }

        // 5. Decide, measure, record.
        let gate_test = config.gate.test()?;
        // A loss on time by a starved machine is void (the match replays such games as
        // they happen; rows recorded before it did are left out here), the rest in game
        // order, as the sequential test counts them.
        let mut rows: Vec<_> = played
            .rows
            .iter()
            .filter(|r| !r.is_starved_forfeit())
            .collect();
        let forfeits = (played.rows.len() - rows.len()) as u32;
        rows.sort_by_key(|r| r.game);
        let points: f64 = rows.iter().map(|r| a_score(r)).sum();
        let n = rows.len() as u32;
        let share = points / f64::from(n.max(1));
        let sprt = gate.sprt.map(|s| {
            let st = s.run(rows.iter().map(|r| a_score(r)));
            match st.decision {
                Decision::H1 => "accepted H1",
                Decision::H0 => "accepted H0",
                Decision::Undecided => "undecided",
            }
            .to_string()
        });
        let promoted = gate_test.promotes(rows.iter().map(|r| a_score(r)));
        let test = read_split(&data_dir, Split::Test)?;
        let curve_selfplay = error_curve(&model_dir, &test, config)?;
        let curve_human = match &config.eval.human {
            Some(h) => error_curve(&model_dir, &read_split(Path::new(h), Split::Test)?, config)?,
            None => Vec::new(),
        };
        state.generations.push(Generation {
            index: g,
            best: best.display().to_string(),
            best_checksum,
            selfplay_games: sp.rows.len() as u32,
            selfplay_positions: sp.rows.iter().map(|r| r.positions as u64).sum(),
            selfplay_cpu_seconds: sp.rows.iter().map(|r| r.cpu_seconds).sum(),
            train_positions,
            candidate: model_dir.display().to_string(),
            candidate_checksum: model_checksum(&model_dir)?,
            gate_games: n,
            gate_points: points,
            gate_forfeits: forfeits,
            gate_sprt: sprt,
            gate_rule: Some(gate_test.describe()),
            promoted,
            curve_selfplay,
            curve_human,
        });
        state.save(&state_file)?;
        write_summary(config, &state, out)?;
        crate::errln!(
            "generation {g}: candidate scored {points}/{n} = {share:.3} against the best \
             ({forfeits} starved forfeits void): {}",
            if promoted {
                "promoted"
            } else {
                "kept the best"
            }
        );
        if steps.finished() && g < config.generations {
            return Ok(LoopOutcome {
                state,
                interrupted: true,
            });
        }
    }
    write_summary(config, &state, out)?;
    Ok(LoopOutcome {
        state,
        interrupted: false,
    })
}

/// Trains generation `g`'s candidate from `best` on `data` (plus the mixes) into `model`;
/// resumes a run that left a checkpoint, restarts one that left none. Returns the training
/// positions.
fn train_candidate(
    config: &LoopConfig,
    g: u32,
    best: &Path,
    data: &Path,
    model: &Path,
    options: &LoopOptions,
) -> anyhow::Result<u64> {
    let best_config = TrainConfig::from_file(&config_path(best))
        .with_context(|| format!("the best network's config in {}", best.display()))?;
    let t = &config.train;
    let mut c = best_config;
    t.apply(&mut c);
    c.seed = config.seed_for(g, 3);
    c.init_from = Some(best.display().to_string());
    c.validate().map_err(|e| anyhow::anyhow!("train: {e}"))?;
    let resume = model.join("checkpoint").join("state.json").exists();
    if !resume && model.exists() {
        // Killed before its first checkpoint: nothing to keep.
        std::fs::remove_dir_all(model).with_context(|| format!("clearing {}", model.display()))?;
    }
    std::fs::create_dir_all(model).with_context(|| format!("creating {}", model.display()))?;
    crate::util::output::mark_dir(model, "model")?;
    // The candidate's own provenance (not the best's it was copied from), recomputed the same
    // on a resume.
    c.provenance = None;
    crate::net::provenance::record(&mut c, model, Some(data), false)?;
    let device = t
        .device
        .parse::<crate::net::DeviceChoice>()
        .map_err(|e| anyhow::anyhow!("train.device: {e}"))?
        .device()?;
    let job = TrainJob {
        config: &c,
        out: model,
        options: TrainOptions {
            resume,
            progress: options.progress,
            threads: t.threads,
            device,
            stop_after: None,
        },
    };
    let sets = job.sets(
        read_split(data, Split::Train)?,
        read_split(data, Split::Validation)?,
    )?;
    if sets.validation.is_empty() || sets.train.is_empty() {
        bail!(
            "generation {g}: {} has {} training and {} validation positions: play more \
             self-play games (selfplay.games) or change data.validation",
            data.display(),
            sets.train.len(),
            sets.validation.len()
        );
    }
    job.run(&sets).with_context(|| format!("generation {g}"))?;
    Ok(sets.train.len() as u64)
}

pub use crate::util::elo::elo_of_share as elo_of;

/// The error rate at x = 0..=80 of the network in `model` on a sample of `positions`.
fn error_curve(
    model: &Path,
    positions: &[crate::dataset::Position],
    config: &LoopConfig,
) -> anyhow::Result<Vec<f64>> {
    let positions = sample(positions.to_vec(), config.eval.max_positions, config.seed);
    let scorer = crate::net::pruner::NetPruner::load_named(&model.display().to_string())?;
    let curve = crate::net::curve::evaluate(&scorer, &positions, &|_| {});
    // Rounded: the parallel sum's last bits depend on the threads' order, and the record
    // must not.
    Ok((0..=80)
        .map(|x| (curve.error_all(x) * 1e9).round() / 1e9)
        .collect())
}

/// `summary.md` and the two charts. The gate's rule and error rates head the table; the
/// networks' strengths come from one rating over every gate game (`akushu rate` on the loop's
/// folder), not from adding up the promoted gates' estimates, which were kept because they
/// came out high.
fn write_summary(config: &LoopConfig, state: &LoopState, out: &Path) -> anyhow::Result<()> {
    let gate_test = config.gate.test()?;
    let mut text = format!(
        "# Self-play loop\n\nStarted from `{}`; self-play engine `{}`; gate `{}` at {} s a move.\n\n\
         Gate: {}\n\n\
         Error rates are the paper's form (the x worst of all 81 points pruned) at x = 65, the count\n\
         `strong2`/`strong3` prune below the root; `curves.png` has every x.\n\n\
         | gen | best before | self-play games | positions | train positions | gate | share | promoted | error@65 self-play test | error@65 human test |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
        config.start,
        config.engine,
        config.gate_engine,
        config.gate.time_per_move,
        gate_test.describe()
    );
    for g in &state.generations {
        let at65 = |c: &Vec<f64>| c.get(65).map_or("-".to_string(), |v| format!("{v:.3}"));
        text.push_str(&format!(
            "| {} | `{}` | {} | {} | {} | {}/{}{}{} | {:.3} | {}{} | {} | {} |\n",
            g.index,
            g.best,
            g.selfplay_games,
            g.selfplay_positions,
            g.train_positions,
            g.gate_points,
            g.gate_games,
            if g.gate_forfeits > 0 {
                format!(" ({} starved forfeits void)", g.gate_forfeits)
            } else {
                String::new()
            },
            g.gate_sprt
                .as_ref()
                .map(|s| format!(" (SPRT {s})"))
                .unwrap_or_default(),
            g.gate_points / f64::from(g.gate_games.max(1)),
            if g.promoted { "yes" } else { "no" },
            if g.gate_rule.is_none() {
                " (by the old share threshold)"
            } else {
                ""
            },
            at65(&g.curve_selfplay),
            at65(&g.curve_human),
        ));
    }
    if !state.generations.is_empty() {
        // A folder whose gate matches are gone (moved, or a recorded state without them)
        // still gets its summary: the ratings say why they are missing.
        match crate::arena::rating::rate(&[out.to_path_buf()]) {
            Ok((results, ratings)) => text.push_str(&format!(
                "\n## Ratings over every gate game\n\nOne Bradley-Terry fit of all {} gate games \
                 (`akushu rate {}`); each network's Elo is relative to its group's reference.\n\n{}",
                results.games,
                out.display(),
                crate::arena::rating::table(&ratings, &results)
            )),
            Err(e) => text.push_str(&format!(
                "\n## Ratings over every gate game\n\nNot rated: {e:#}.\n"
            )),
        }
    }
    let summary = out.join("summary.md");
    write_atomic(&summary, text.as_bytes())?;
    chart::write_charts(state, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The gate's keys make its test: `sprt` the sequential one, none the fixed one at the
    /// default level; the old `threshold` key and the fixed test's keys beside `sprt` are
    /// refused by name.
    #[test]
    fn the_gate_section_makes_its_test_and_refuses_a_threshold() {
        let fixed = GateSection::default().test().unwrap();
        assert_eq!(fixed.rule, gate::GateRule::Fixed { critical: 59 });
        let section = GateSection {
            sprt: Some("elo0=0,elo1=35".parse().unwrap()),
            ..GateSection::default()
        };
        assert!(matches!(
            section.test().unwrap().rule,
            gate::GateRule::Sequential { critical: 59, .. }
        ));
        let with_threshold: GateSection = toml::from_str("threshold = 0.55").unwrap();
        let e = with_threshold.test().unwrap_err().to_string();
        assert!(e.contains("gate.threshold"), "{e}");
        let both = GateSection {
            alpha: Some(0.1),
            ..section
        };
        assert!(both.test().unwrap_err().to_string().contains("gate.alpha"));
    }

    /// `gate.sprt` is parsed when `loop.toml` is read (a bad test refused there, at its
    /// line) and written back as the text it was spelled with.
    #[test]
    fn the_gate_test_is_parsed_on_reading_and_written_as_spelled() {
        let section: GateSection = toml::from_str("sprt = \"elo1=35, elo0=0\"\n").unwrap();
        assert_eq!(section.sprt.as_ref().unwrap().test().elo1, 35.0);
        let text = toml::to_string(&section).unwrap();
        assert!(text.contains("sprt = \"elo1=35, elo0=0\"\n"), "{text}");
        let e = toml::from_str::<GateSection>("games = 10\nsprt = \"elo0=0\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2") && e.contains("elo1"), "{e}");
    }

    /// Every training option, set by its `akushu train` flag, is a `[train]` key of the loop
    /// with the same value, beside `device` and `threads`; an unknown key is named with the
    /// full list.
    #[test]
    fn every_training_option_is_a_train_key() {
        let options = crate::net::options::tests::every_option_by_flag();
        let section = TrainSection {
            options,
            device: "cuda:1".into(),
            threads: 3,
        };
        let text = toml::to_string(&section).unwrap();
        let back: TrainSection = toml::from_str(&text).unwrap();
        assert_eq!(back, section, "{text}");
        let e = toml::from_str::<TrainSection>("epochs = 1\nepochz = 3\n").unwrap_err();
        let message = e.to_string();
        assert!(
            message.contains("line 2")
                && message.contains("`epochz`")
                && message.contains("`device`")
                && message.contains("`learning_rate`"),
            "{message}"
        );
        // A bad value is reported at its key's line, named by its type.
        let e = toml::from_str::<TrainSection>("threads = 1\nepochs = \"x\"\n").unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
    }

    /// A section with no keys trains candidates with the loop's defaults.
    #[test]
    fn an_empty_section_takes_the_loop_defaults() {
        let section: TrainSection = toml::from_str("").unwrap();
        assert_eq!(section, TrainSection::default());
        let mut c = TrainConfig::new(crate::net::NetKind::Cnn);
        c.warmup_steps = 100;
        c.lr_schedule = LrSchedule::Cosine;
        section.apply(&mut c);
        assert_eq!(
            (
                c.epochs,
                c.learning_rate,
                c.target,
                c.augment,
                c.warmup_steps
            ),
            (2, 3e-4, Target::Visits, true, 0)
        );
        assert_eq!(c.lr_schedule, LrSchedule::Constant);
    }
}
