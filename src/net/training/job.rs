//! One training job, as `akushu train` and each of the self-play loop's candidates run it:
//! the [`TrainConfig`] decides the sets (`max_train`, `mix`, `max_validation`, `seed`) as
//! well as the network, so both callers fill a [`TrainJob`] and call it rather than each
//! cutting its own sets from the config (a key one of them forgot would be recorded in
//! `config.json` and never applied).

use std::path::Path;

use anyhow::Context;

use super::data::read_split;
use super::train::{TrainOptions, TrainSummary, mix_in, sample, train};
use crate::dataset::{Position, Split};
use crate::net::inference::model::TrainConfig;

/// What a run trains, where it writes the model, and how it runs.
#[derive(Debug, Clone)]
pub struct TrainJob<'a> {
    pub config: &'a TrainConfig,
    /// The model directory written (`config.json`, `model.bpk`, `checkpoint/`).
    pub out: &'a Path,
    pub options: TrainOptions,
}

/// The positions a job trains and validates on.
#[derive(Debug, Clone)]
pub struct TrainSets {
    pub train: Vec<Position>,
    pub validation: Vec<Position>,
}

impl TrainJob<'_> {
    /// The sets cut from a dataset's training and validation splits: a seeded sample of at
    /// most `max_train` training positions with each `mix` dataset's training split added at
    /// its share of the result (the shares are of the sampled set), and a seeded sample of at
    /// most `max_validation` validation positions. A job's sets are the same each time it is
    /// cut, so a resumed run checks it trains on the data it started with.
    pub fn sets(
        &self,
        train: Vec<Position>,
        validation: Vec<Position>,
    ) -> anyhow::Result<TrainSets> {
        let c = self.config;
        let mut extras = Vec::new();
        for m in &c.mix {
            let positions = read_split(Path::new(&m.data), Split::Train)
                .with_context(|| format!("mix {}", m.data))?;
            extras.push((positions, m.share));
        }
        Ok(TrainSets {
            train: mix_in(sample(train, c.max_train, c.seed), extras, c.seed),
            validation: sample(validation, c.max_validation, c.seed ^ 1),
        })
    }

    /// Trains the network on `sets` into `out`.
    pub fn run(&self, sets: &TrainSets) -> anyhow::Result<TrainSummary> {
        train(
            self.config,
            &sets.train,
            &sets.validation,
            self.out,
            &self.options,
        )
        .with_context(|| format!("training into {}", self.out.display()))
    }
}
