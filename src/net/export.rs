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
    TrainConfig, config_path, model_checksum, save_weights, weights_checksum, weights_path,
};
use super::plain::float_values;
use super::provenance::Provenance;
use super::{NetError, SavedModel};
use crate::util::fsio::write_atomic;
use crate::util::npz::{Array, Values, read_npz, write_npz};

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

/// Puts each tensor of a fresh network in from the file's arrays, or says what is wrong.
struct Fill {
    arrays: BTreeMap<String, Array>,
    /// The first problem met (the rest are not looked at).
    error: Option<String>,
}

impl Tensors for Fill {
    fn tensor<const D: usize>(&mut self, name: &str, param: &mut Param<Tensor<D>>) {
        if self.error.is_some() {
            return;
        }
        let want = param.val().dims().to_vec();
        let Some(array) = self.arrays.remove(name) else {
            self.error = Some(format!(
                "tensor `{name}` is missing (the network the config describes needs one of \
                 shape {want:?})"
            ));
            return;
        };
        if array.shape != want {
            self.error = Some(format!(
                "tensor `{name}` has shape {:?}, the network the config describes needs {want:?}",
                array.shape
            ));
            return;
        }
        let Values::F32(values) = array.values else {
            self.error = Some(format!("tensor `{name}` is uint8: weights are float32"));
            return;
        };
        let bad = values.iter().filter(|v| !v.is_finite()).count();
        if bad > 0 {
            self.error = Some(format!(
                "tensor `{name}` holds {bad} NaN or infinite values"
            ));
            return;
        }
        *param = param.clone().map(|t| {
            let trains = t.is_require_grad();
            Tensor::from_data(TensorData::new(values, t.shape()), &t.device())
                .set_require_grad(trains)
        });
    }
}

/// The config and network of an export's bytes (`file` names it in errors and in the
/// config's provenance): the config's `provenance` says the weights were imported from
/// `file`, with the file's checksum, on unknown games, and its `init_from` is cleared (the
/// weights began in the file, not in a model directory here).
pub fn read_export(file: &Path, bytes: &[u8]) -> Result<(TrainConfig, SavedModel), NetError> {
    let bad = |message: String| NetError::Weights {
        path: file.into(),
        message,
    };
    let mut arrays: BTreeMap<String, Array> = read_npz(bytes)
        .map_err(|e| bad(e.to_string()))?
        .into_iter()
        .collect();
    let meta = match arrays.remove(META) {
        Some(Array {
            values: Values::U8(text),
            ..
        }) => text,
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
    config.provenance = Some(Provenance::imported(file, weights_checksum(bytes)));
    config.init_from = None;
    let device = super::cpu_device();
    let mut model = match config.model {
        super::NetKind::Mlp => {
            SavedModel::Mlp(Box::new(config.mlp.init(&device)), config.mlp.clone())
        }
        super::NetKind::Cnn => {
            SavedModel::Cnn(Box::new(config.cnn.init(&device)), config.cnn.clone())
        }
    };
    let mut fill = Fill {
        arrays,
        error: None,
    };
    walk(&mut model, &mut fill);
    if let Some(e) = fill.error {
        return Err(bad(format!("{e} ({})", config.network_name())));
    }
    if let Some(extra) = fill.arrays.keys().next() {
        return Err(bad(format!(
            "tensor `{extra}` is not part of the network the config describes ({})",
            config.network_name()
        )));
    }
    Ok((config, model))
}

/// Whether the file at `path` is an akushu model export (what `model export` may replace
/// without `--force`).
pub fn is_export(path: &Path) -> bool {
    std::fs::read(path).is_ok_and(|bytes| {
        read_npz(&bytes).is_ok_and(|arrays| arrays.iter().any(|(name, _)| name == META))
    })
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
}
