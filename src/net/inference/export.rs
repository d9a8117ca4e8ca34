//! Networks in and out of akushu: a model directory's weights and config as one numpy
//! `.npz` (`akushu model export`), and a model directory built from such a file (`akushu
//! model import`), so a network trained elsewhere (PyTorch) can prune the search and
//! akushu's can be studied or fine-tuned elsewhere. `scripts/akushu_model.py` reads,
//! evaluates and writes the same files with numpy alone.
//!
//! The file holds one `float32` array per weight tensor, named by its place in the burn
//! module and shaped as burn stores it, plus `meta`, the UTF-8 bytes of a JSON object:
//! `format` ([`FORMAT`]), `version` ([`VERSION`]), `config` (the model's full
//! [`TrainConfig`], which says the network's shape) and `source` (the model directory and
//! its weights' checksum).
//!
//! | name                                | shape              | layer                       |
//! |-------------------------------------|--------------------|-----------------------------|
//! | `hidden.{i}.weight`, `.bias`        | `[in, out]`, `[out]` | MLP hidden layer `i` (ReLU) |
//! | `output.weight`, `.bias`            | `[in, 81]`, `[81]` | MLP output (81 logits)      |
//! | `stem.weight`, `.bias`              | `[c, 14, 3, 3]`, `[c]` | CNN input convolution   |
//! | `blocks.{i}.conv1.weight`, `.bias`  | `[c, c, 3, 3]`, `[c]` | residual block `i`, first |
//! | `blocks.{i}.conv2.weight`, `.bias`  | `[c, c, 3, 3]`, `[c]` | residual block `i`, second |
//! | `head.weight`, `.bias`              | `[1, c, 1, 1]`, `[1]` | 1x1 move-logit head      |
//! | `value.project.weight`, `.bias`     | `[c, vc]`, `[vc]`  | value head, per point       |
//! | `value.hidden.weight`, `.bias`      | `[vc, 64]`, `[64]` | value head, after pooling   |
//! | `value.out.weight`, `.bias`         | `[64, 1]`, `[1]`   | value head, win logit       |
//! | `ownership.weight`, `.bias`         | `[c, 1]`, `[1]`    | ownership head, per point   |
//! | `score.weight`, `.bias`             | `[64, 1]`, `[1]`   | score head, lead / 20 points |
//!
//! Dense weights are `[inputs, outputs]` (burn's `Linear`: `y = x W + b`; PyTorch's
//! `nn.Linear` stores the transpose); convolutions are `[out, in, ky, kx]` as in PyTorch.
//! An import checks every tensor against the network its config describes and refuses a
//! missing, extra, misshapen or non-finite one by name: a wrong shape must fail here, not
//! rate moves at random in a match.

use std::collections::BTreeMap;
use std::path::Path;

use burn::module::Param;
use burn::nn::Linear;
use burn::nn::conv::Conv2d;
use burn::prelude::*;
use burn::tensor::TensorData;
use serde_json::json;

use super::model::{
    Checksum, TrainConfig, config_path, model_checksum, save_weights, weights_path,
};
use super::plain::float_values;
use super::provenance::Provenance;
use crate::net::{NetError, SavedModel};
use crate::util::fsio::write_atomic;
use crate::util::npz::{Array, Member, Values, members, write_npz};

/// `meta.format` of an export.
pub const FORMAT: &str = "akushu-net";
/// `meta.version` of the exports this akushu writes and reads.
pub const VERSION: u64 = 1;
/// The array holding the metadata JSON.
pub const META: &str = "meta";

/// Something done to every weight tensor of a network, given its export name.
trait Tensors {
    fn tensor<const D: usize>(&mut self, name: &str, param: &mut Param<Tensor<D>>);
}

fn linear(v: &mut impl Tensors, name: &str, l: &mut Linear) {
    v.tensor(&format!("{name}.weight"), &mut l.weight);
    if let Some(b) = &mut l.bias {
        v.tensor(&format!("{name}.bias"), b);
    }
}

fn conv(v: &mut impl Tensors, name: &str, c: &mut Conv2d) {
    v.tensor(&format!("{name}.weight"), &mut c.weight);
    if let Some(b) = &mut c.bias {
        v.tensor(&format!("{name}.bias"), b);
    }
}

/// Every weight tensor of `model` under its export name, in the module's order: the one
/// list of names export and import share.
fn walk(model: &mut SavedModel, v: &mut impl Tensors) {
    match model {
        SavedModel::Mlp(m, _) => {
            for (i, l) in m.hidden.iter_mut().enumerate() {
                linear(v, &format!("hidden.{i}"), l);
            }
            linear(v, "output", &mut m.output);
        }
        SavedModel::Cnn(m, _) => {
            conv(v, "stem", &mut m.stem);
            for (i, b) in m.blocks.iter_mut().enumerate() {
                conv(v, &format!("blocks.{i}.conv1"), &mut b.conv1);
                conv(v, &format!("blocks.{i}.conv2"), &mut b.conv2);
            }
            conv(v, "head", &mut m.head);
            if let Some(h) = &mut m.value {
                linear(v, "value.project", &mut h.project);
                linear(v, "value.hidden", &mut h.hidden);
                linear(v, "value.out", &mut h.out);
            }
            if let Some(o) = &mut m.ownership {
                linear(v, "ownership", o);
            }
            if let Some(s) = &mut m.score {
                linear(v, "score", s);
            }
        }
    }
}

/// Copies every tensor out, as named arrays.
struct Collect(Vec<(String, Array)>);

impl Tensors for Collect {
    fn tensor<const D: usize>(&mut self, name: &str, param: &mut Param<Tensor<D>>) {
        let t = param.val();
        let shape = t.dims().to_vec();
        self.0
            .push((name.to_string(), Array::f32(shape, float_values(t))));
    }
}

/// The export (`.npz` bytes) of model directory `dir`.
pub fn export_bytes(dir: &Path) -> Result<Vec<u8>, NetError> {
    let (mut model, config) = SavedModel::load(dir)?;
    let mut tensors = Collect(Vec::new());
    walk(&mut model, &mut tensors);
    let meta = json!({
        "format": FORMAT,
        "version": VERSION,
        "config": config,
        "source": {
            "model": dir.display().to_string(),
            "checksum": model_checksum(dir)?,
        },
    });
    let meta = Array::bytes(serde_json::to_vec_pretty(&meta).expect("JSON values serialise"));
    let mut arrays: Vec<(&str, &Array)> = vec![(META, &meta)];
    arrays.extend(tensors.0.iter().map(|(n, a)| (n.as_str(), a)));
    Ok(write_npz(&arrays))
}

/// The most weights a network may have to be imported: more than any 9x9 network needs
/// (akushu's largest CNNs have under 1 M; KataGo's largest released 19x19 networks, b18c384
/// and b40c256, have under 50 M), and the bound on what an import allocates and inflates.
pub const MAX_IMPORT_WEIGHTS: u64 = 64 << 20;
/// The largest `meta` array an import reads: the JSON of a config and a source is a few KiB.
pub const MAX_META_BYTES: u64 = 1 << 20;
/// Room for a `.npy` header beside a tensor's values (numpy pads its headers to 64 bytes;
/// a version 1 header is at most 65,535).
const NPY_HEADER_ROOM: u64 = 1 << 16;
/// The largest file an import reads: every weight [`MAX_IMPORT_WEIGHTS`] allows as
/// `float64` (the widest type read), with room for the metadata and each member's headers.
pub const MAX_EXPORT_BYTES: u64 = MAX_IMPORT_WEIGHTS * 8 + (64 << 20);
/// The largest weight an import takes, in magnitude: trained weights are of order 1 (a few
/// tens at most); a million is no trained network's, and through a few layers of such
/// weights float32 overflows and every move probability becomes NaN.
pub const MAX_WEIGHT_MAGNITUDE: f32 = 1e6;

/// The name and shape of every tensor of a network, in the module's order.
struct Shapes(Vec<(String, Vec<usize>)>);

impl Tensors for Shapes {
    fn tensor<const D: usize>(&mut self, name: &str, param: &mut Param<Tensor<D>>) {
        self.0.push((name.to_string(), param.val().dims().to_vec()));
    }
}

/// Puts each tensor of a fresh network in from the file's members, or says what is wrong.
struct Fill<'a> {
    bytes: &'a [u8],
    members: BTreeMap<String, Member>,
    /// The first problem met (the rest are not looked at).
    error: Option<String>,
}

impl Tensors for Fill<'_> {
    fn tensor<const D: usize>(&mut self, name: &str, param: &mut Param<Tensor<D>>) {
        if self.error.is_some() {
            return;
        }
        match self.take(name, param.val().dims().to_vec()) {
            Ok(values) => {
                *param = param.clone().map(|t| {
                    let trains = t.is_require_grad();
                    Tensor::from_data(TensorData::new(values, t.shape()), &t.device())
                        .set_require_grad(trains)
                });
            }
            Err(e) => self.error = Some(e),
        }
    }
}

impl Fill<'_> {
    /// The values of tensor `name`, of shape `want`, read from its member.
    fn take(&mut self, name: &str, want: Vec<usize>) -> Result<Vec<f32>, String> {
        let Some(member) = self.members.remove(name) else {
            return Err(format!(
                "tensor `{name}` is missing (the network the config describes needs one of \
                 shape {want:?})"
            ));
        };
        // Its values as float64 (the widest type read) and a header: a member declaring
        // more is refused before it is inflated.
        let room = want.iter().product::<usize>() as u64 * 8 + NPY_HEADER_ROOM;
        let what = format!("bytes tensor `{name}` of shape {want:?} can take");
        let array = member
            .read(self.bytes, room, &what)
            .map_err(|e| e.to_string())?;
        if array.shape != want {
            return Err(format!(
                "tensor `{name}` has shape {:?}, the network the config describes needs {want:?}",
                array.shape
            ));
        }
        let Values::F32(values) = array.values else {
            return Err(format!("tensor `{name}` is uint8: weights are float32"));
        };
        let bad = values.iter().filter(|v| !v.is_finite()).count();
        if bad > 0 {
            return Err(format!(
                "tensor `{name}` holds {bad} NaN or infinite values"
            ));
        }
        let huge = values.iter().map(|v| v.abs()).fold(0.0f32, f32::max);
        if huge > MAX_WEIGHT_MAGNITUDE {
            return Err(format!(
                "tensor `{name}` holds a weight of magnitude {huge:e}, beyond the \
                 {MAX_WEIGHT_MAGNITUDE:e} of any trained network"
            ));
        }
        Ok(values)
    }
}

/// The key of `config` that holds the shape of a network of `kind`.
fn shape_key(kind: crate::net::NetKind) -> &'static str {
    match kind {
        crate::net::NetKind::Mlp => "mlp",
        crate::net::NetKind::Cnn => "cnn",
    }
}

/// The config and network of an export's bytes (`file` names it in errors and in the
/// config's provenance): the config's `provenance` says the weights were imported from
/// `file`, with the file's checksum, on unknown games, and its `init_from` is cleared (the
/// weights began in the file, not in a model directory here). Every member is checked by
/// name and declared size before any is inflated, and the network's size before it is
/// allocated: a hostile file is refused, never read without bound.
pub fn read_export(file: &Path, bytes: &[u8]) -> Result<(TrainConfig, SavedModel), NetError> {
    let bad = |message: String| NetError::Weights {
        path: file.into(),
        message,
    };
    let mut members: BTreeMap<String, Member> = members(bytes)
        .map_err(|e| bad(e.to_string()))?
        .into_iter()
        .map(|m| (m.name.clone(), m))
        .collect();
    let meta = match members
        .remove(META)
        .map(|m| m.read(bytes, MAX_META_BYTES, "bytes the metadata may take"))
    {
        Some(Ok(Array {
            values: Values::U8(text),
            ..
        })) => text,
        Some(Err(e)) => return Err(bad(e.to_string())),
        _ => {
            return Err(bad(format!(
                "no `{META}` array (uint8 JSON): not an akushu model export"
            )));
        }
    };
    let meta: serde_json::Value =
        serde_json::from_slice(&meta).map_err(|e| bad(format!("`{META}`: {e}")))?;
    if meta["format"] != FORMAT || meta["version"] != VERSION {
        return Err(bad(format!(
            "`{META}` says format {} version {}; this akushu reads {FORMAT} version {VERSION}",
            meta["format"], meta["version"]
        )));
    }
    let config_text = serde_json::to_string(&meta["config"]).expect("JSON values serialise");
    let mut config = TrainConfig::from_text(file, &config_text, None)?;
    // A config file may leave fields to their defaults; an export states the shape of its
    // network in full (export writes it so), or the defaults would pass for it.
    let key = shape_key(config.model);
    if !meta["config"]
        .get(key)
        .is_some_and(serde_json::Value::is_object)
    {
        return Err(bad(format!(
            "`{META}`'s config has no `{key}` object: an export states the shape of its {key} \
             network in full"
        )));
    }
    let weights = match config.model {
        crate::net::NetKind::Mlp => config.mlp.weight_count(),
        crate::net::NetKind::Cnn => config.cnn.weight_count(),
    };
    if weights > MAX_IMPORT_WEIGHTS {
        return Err(bad(format!(
            "the config describes a network of {weights} weights ({}), more than the \
             {MAX_IMPORT_WEIGHTS} an import takes",
            config.network_name()
        )));
    }
    config.provenance = Some(Provenance::imported(file, Checksum::of(bytes)));
    config.init_from = None;
    let device = crate::net::cpu_device();
    let mut model = match config.model {
        crate::net::NetKind::Mlp => {
            SavedModel::Mlp(Box::new(config.mlp.init(&device)), config.mlp.clone())
        }
        crate::net::NetKind::Cnn => {
            SavedModel::Cnn(Box::new(config.cnn.init(&device)), config.cnn.clone())
        }
    };
    let mut shapes = Shapes(Vec::new());
    walk(&mut model, &mut shapes);
    let names: std::collections::BTreeSet<&str> =
        shapes.0.iter().map(|(n, _)| n.as_str()).collect();
    if let Some(extra) = members.keys().find(|k| !names.contains(k.as_str())) {
        return Err(bad(format!(
            "tensor `{extra}` is not part of the network the config describes ({})",
            config.network_name()
        )));
    }
    let mut fill = Fill {
        bytes,
        members,
        error: None,
    };
    walk(&mut model, &mut fill);
    if let Some(e) = fill.error {
        return Err(bad(format!("{e} ({})", config.network_name())));
    }
    check_empty_board(&model).map_err(|e| bad(format!("{e} ({})", config.network_name())))?;
    Ok((config, model))
}

/// Refuses a network whose outputs on the empty board are not numbers, though each weight is
/// finite and in range: weights that multiply up overflow float32 in the tower, and a
/// search would see every move's prior as 0.
fn check_empty_board(model: &SavedModel) -> Result<(), String> {
    let net = crate::net::NetPruner::from_model(model, "import".into());
    let board = crate::rules::Board::new();
    let inp = super::encode::NetInput {
        board: &board,
        to_move: crate::rules::Color::Black,
        ko: None,
        last: [crate::rules::NO_POINT; 2],
    };
    let mut badness = [0f32; crate::rules::NN];
    let value = net.rate_value(&inp, &mut badness, true);
    let overflow = |what: &str| {
        format!("its {what}: NaN or infinite on the empty board (its weights overflow float32)")
    };
    // A softmax over logits that overflowed rates every point 1 (probability 0): its
    // probabilities must sum to 1. The paper's MLP rates each point by its own sigmoid.
    let sigmoid =
        matches!(model, SavedModel::Mlp(_, c) if matches!(c.loss, super::mlp::MlpLoss::Bce));
    let probability: f32 = badness.iter().map(|b| 1.0 - b).sum();
    if badness.iter().any(|b| !b.is_finite()) || (!sigmoid && (probability - 1.0).abs() > 1e-3) {
        return Err(overflow("move ratings"));
    }
    if value.is_some_and(|v| !v.is_finite()) {
        return Err(overflow("value"));
    }
    if net
        .ownership(&inp)
        .is_some_and(|o| o.iter().any(|x| !x.is_finite()))
    {
        return Err(overflow("ownership"));
    }
    if net.score_lead(&inp).is_some_and(|s| !s.is_finite()) {
        return Err(overflow("score lead"));
    }
    Ok(())
}

/// Whether the file at `path` is an akushu model export (what `model export` may replace
/// without `--force`): a regular file of a readable size whose archive has a `meta` member.
pub fn is_export(path: &Path) -> bool {
    crate::util::fsio::read_regular_file(path, MAX_EXPORT_BYTES, "a model export can take")
        .is_ok_and(|bytes| members(&bytes).is_ok_and(|m| m.iter().any(|m| m.name == META)))
}

/// Writes a model directory's `config.json` and weights (with their checksum file) into
/// the existing directory `out`; the weights last, so a directory cut short by a crash has
/// no `model.bpk` and passes for no model.
pub fn save_model(out: &Path, config: &TrainConfig, model: &SavedModel) -> Result<(), NetError> {
    write_atomic(&config_path(out), config.to_json().as_bytes()).map_err(NetError::Write)?;
    match model {
        SavedModel::Mlp(m, _) => save_weights(m.as_ref(), &weights_path(out)),
        SavedModel::Cnn(m, _) => save_weights(m.as_ref(), &weights_path(out)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::NetKind;

    /// A fresh model's export, and its arrays after `edit`, written back.
    fn edited(config: &TrainConfig, edit: impl FnOnce(&mut Vec<(String, Array)>)) -> Vec<u8> {
        let device = crate::net::cpu_device();
        let mut model = SavedModel::Cnn(Box::new(config.cnn.init(&device)), config.cnn.clone());
        let mut tensors = Collect(Vec::new());
        walk(&mut model, &mut tensors);
        let meta = json!({"format": FORMAT, "version": VERSION, "config": config});
        let meta = Array::bytes(serde_json::to_vec(&meta).unwrap());
        let mut arrays = vec![(META.to_string(), meta)];
        arrays.extend(tensors.0);
        edit(&mut arrays);
        let refs: Vec<(&str, &Array)> = arrays.iter().map(|(n, a)| (n.as_str(), a)).collect();
        write_npz(&refs)
    }

    fn import_error(bytes: &[u8]) -> String {
        read_export(Path::new("x.npz"), bytes)
            .map(|_| ())
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn an_import_names_the_tensor_that_does_not_fit() {
        let mut config = TrainConfig::new(NetKind::Cnn);
        config.cnn.blocks = 1;
        config.cnn.channels = 4;
        config.cnn.value_channels = 2;
        let (back, _) = read_export(Path::new("x.npz"), &edited(&config, |_| {})).unwrap();
        assert_eq!(back.cnn, config.cnn);
        let p = back.provenance.unwrap();
        assert_eq!(p.imported.unwrap().file, "x.npz");
        assert!(!p.unknown.is_empty());

        let e = import_error(&edited(&config, |a| {
            a[3].1 = Array::f32(vec![4, 4, 3, 2], vec![0.0; 96]);
        }));
        assert!(
            e.contains("tensor `blocks.0.conv1.weight` has shape [4, 4, 3, 2]"),
            "{e}"
        );
        let e = import_error(&edited(&config, |a| {
            a.retain(|(n, _)| n != "value.out.bias");
        }));
        assert!(e.contains("tensor `value.out.bias` is missing"), "{e}");
        let e = import_error(&edited(&config, |a| {
            a.push((
                "ownership.weight".into(),
                Array::f32(vec![4, 1], vec![0.0; 4]),
            ));
        }));
        assert!(e.contains("tensor `ownership.weight` is not part"), "{e}");
        let e = import_error(&edited(&config, |a| {
            a[1].1 = Array::f32(a[1].1.shape.clone(), vec![f32::NAN; 4 * 14 * 9]);
        }));
        assert!(e.contains("tensor `stem.weight` holds"), "{e}");
        let e = import_error(&edited(&config, |a| {
            a.remove(0);
        }));
        assert!(e.contains("not an akushu model export"), "{e}");
    }

    /// The size an import checks before allocating is the size of the network made.
    #[test]
    fn weight_counts_are_the_networks_own() {
        use burn::module::Module;
        let device = crate::net::cpu_device();
        let mut c = TrainConfig::new(NetKind::Cnn).cnn;
        assert_eq!(c.weight_count(), c.init(&device).num_params() as u64);
        (c.value_channels, c.ownership, c.score) = (3, true, true);
        assert_eq!(c.weight_count(), c.init(&device).num_params() as u64);
        let m = TrainConfig::new(NetKind::Mlp).mlp;
        assert_eq!(m.weight_count(), m.init(&device).num_params() as u64);
    }

    /// Weights that are finite but huge are refused at import: one beyond the magnitude
    /// bound by name, and ones within it that overflow through the tower by the empty
    /// board's outputs; a search would otherwise see every prior as 0.
    #[test]
    fn an_import_refuses_weights_that_overflow() {
        let mut config = TrainConfig::new(NetKind::Cnn);
        config.cnn.blocks = 1;
        config.cnn.channels = 4;
        config.cnn.value_channels = 2;
        let set = |a: &mut Vec<(String, Array)>, x: f32| {
            for (_, t) in a.iter_mut().skip(1) {
                *t = Array::f32(t.shape.clone(), vec![x; t.shape.iter().product()]);
            }
        };
        let e = import_error(&edited(&config, |a| set(a, 1e30)));
        assert!(
            e.contains("tensor `stem.weight` holds a weight of magnitude 1e30"),
            "{e}"
        );
        config.cnn.blocks = 8;
        let e = import_error(&edited(&config, |a| set(a, 1e5)));
        assert!(
            e.contains("its move ratings: NaN or infinite on the empty board"),
            "{e}"
        );
        // Ordinary weights pass.
        read_export(Path::new("x.npz"), &edited(&config, |a| set(a, 0.01))).unwrap();
    }
}
