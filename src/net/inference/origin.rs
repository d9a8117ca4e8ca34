//! What a model's weights came from, as its `config.json` records it (`provenance`): the
//! datasets, the parent model and the games, as data. Below the model files, which store
//! it; [`super::provenance`] computes and checks it.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::util::checksum::Checksum;

/// `config.json`'s `provenance`: where the weights' training data came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// Every dataset the run read: the main one (train and validation splits: validation
    /// selects the weights kept) and each mixed one (train split).
    pub datasets: Vec<DataRef>,
    /// The model the weights started from (`--init-from`), with its own provenance.
    #[serde(default)]
    pub init_from: Option<Box<Parent>>,
    /// Games in `training_games.hashes`: the datasets' games and the parent's.
    pub games: u64,
    /// Why the set of training games is incomplete (empty when it is complete).
    #[serde(default)]
    pub unknown: Vec<String>,
    /// How provenance recorded after training was recovered (models trained before it was
    /// kept: `akushu provenance --recover`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovered: Option<String>,
    /// Game-set files, relative to the model directory, whose union is the training games
    /// (recovered provenance: one file per dataset, kept in the model directory so that a
    /// copy of the folder is whole; older recoveries name shared files in
    /// `../provenance/`, still read); empty: `training_games.hashes`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub game_sets: Vec<String>,
    /// Where weights made outside akushu came from (`akushu model import`); their training
    /// data is then unknown (`unknown` says so).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported: Option<Imported>,
}

/// The file a model's weights were imported from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Imported {
    /// The export file as given.
    pub file: String,
    /// Its checksum.
    pub checksum: Checksum,
}

impl Provenance {
    /// The provenance of weights imported from `file` (with checksum `checksum`): no
    /// dataset, no games known.
    pub fn imported(file: &Path, checksum: Checksum) -> Provenance {
        Provenance {
            datasets: Vec::new(),
            init_from: None,
            games: 0,
            unknown: vec![format!(
                "imported from {}: trained outside akushu, on games it does not know",
                file.display()
            )],
            recovered: None,
            game_sets: Vec::new(),
            imported: Some(Imported {
                file: file.display().to_string(),
                checksum,
            }),
        }
    }
}

/// One dataset a model was trained on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DataRef {
    /// The directory as given.
    pub path: String,
    /// Its manifest's fingerprint (empty for datasets built before fingerprints).
    pub fingerprint: String,
    /// The splits read.
    pub splits: Vec<String>,
    /// The teacher that labelled the dataset (`dataset label`), where one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teacher: Option<crate::dataset::TeacherInfo>,
}

/// The model a run started from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Parent {
    pub path: String,
    /// Its weights' checksum.
    pub checksum: Checksum,
    /// Its provenance (none when it recorded none).
    pub provenance: Option<Provenance>,
}
