//! [`NetPruner`]: a saved model as a [`Pruner`] for the search, evaluated by the plain-Rust
//! forward pass (no burn on the hot path, no allocation per call after a thread's first).

use super::encode::{CNN_PLANES, MlpEncoding, NetInput, cnn_planes, mlp_input, sym_point};
use super::mlp::MlpLoss;
use super::model::SavedModel;
use super::plain::{PlainCnn, PlainMlp, Scratch, masked_softmax_badness};
use super::quant::{ActSteps, QuantCnn};
use crate::dataset::Position;
use crate::net::NetError;
use crate::net::inference::scorer::PositionScorer;
use crate::prune::name::{NetworkName, PrunerName, SYMMETRY_VIEWS};
use crate::prune::{PruneContext, Pruner};
use crate::rules::{Board, NN};
use std::cell::RefCell;
use std::path::Path;

#[derive(Debug, Clone)]
enum PlainNet {
    Mlp(PlainMlp, MlpEncoding, MlpLoss),
    Cnn(Box<PlainCnn>),
    /// The CNN with 8-bit integer convolutions.
    QuantCnn(Box<QuantCnn>),
}

impl PlainNet {
    /// Move logits of `n` positions' CNN planes, by whichever CNN evaluator this is, and
    /// with `values` their win logits (NaN without a value head).
    fn cnn_logits(
        &self,
        planes: &[f32],
        n: usize,
        scratch: &mut Scratch,
        out: &mut [f32],
        values: Option<&mut [f32]>,
    ) {
        match self {
            PlainNet::Cnn(m) => m.evaluate_batch(planes, n, scratch, out, values),
            PlainNet::QuantCnn(m) => m.evaluate_batch(planes, n, scratch, out, values),
            PlainNet::Mlp(..) => unreachable!("an MLP has no CNN planes"),
        }
    }

    /// Whether the network has a value head.
    fn has_value(&self) -> bool {
        match self {
            PlainNet::Cnn(m) => m.has_value(),
            PlainNet::QuantCnn(m) => m.has_value(),
            PlainNet::Mlp(..) => false,
        }
    }

    /// The ownership head's answer for one position's CNN planes.
    fn ownership(&self, planes: &[f32], scratch: &mut Scratch) -> Option<[f32; NN]> {
        match self {
            PlainNet::Cnn(m) => m.ownership(planes, scratch),
            PlainNet::QuantCnn(m) => m.ownership(planes, scratch),
            PlainNet::Mlp(..) => None,
        }
    }

    /// The score head's lead for one position's CNN planes.
    fn score_lead(&self, planes: &[f32], scratch: &mut Scratch) -> Option<f32> {
        match self {
            PlainNet::Cnn(m) => m.score_lead(planes, scratch),
            PlainNet::QuantCnn(m) => m.score_lead(planes, scratch),
            PlainNet::Mlp(..) => None,
        }
    }
}

/// Reads a saved model, naming its directory in the error.
fn read_model(dir: &Path) -> anyhow::Result<SavedModel> {
    let (model, _) = SavedModel::load(dir)
        .map_err(|e| anyhow::anyhow!("loading model {}: {e}", dir.display()))?;
    Ok(model)
}

/// Per-thread buffers: the encoded input and the forward pass's intermediates.
struct Buffers {
    input: Vec<f32>,
    scratch: Scratch,
}

thread_local! {
    static BUFFERS: RefCell<Buffers> = RefCell::new(Buffers {
        input: vec![0.0; (CNN_PLANES * NN).max(3 * NN)],
        scratch: Scratch::default(),
    });
}

/// A trained bad-move network behind the [`Pruner`] interface.
///
/// MLP badness is the paper's sigmoid output; CNN badness is `1 - p` (softmax over the legal
/// points; illegal points score 1).
#[derive(Debug, Clone)]
pub struct NetPruner {
    name: String,
    net: PlainNet,
    /// Average the CNN's move probabilities over this many board symmetries, the first ones
    /// of [`sym_point`]'s numbering (1 = the position as it stands;
    /// [`with_symmetries`](Self::with_symmetries)).
    views: u8,
    /// Whether the network reads the last two moves
    /// ([`CnnConfig::history`](super::cnn::CnnConfig::history)): one that does not is
    /// given none, whatever the caller passes.
    history: bool,
}

impl NetPruner {
    /// Loads `dir/config.json` + `dir/model.bpk` (e.g. `models/default`).
    pub fn load(dir: &Path) -> anyhow::Result<NetPruner> {
        Ok(NetPruner::from_model(
            &read_model(dir)?,
            format!("nn:{}", dir.display()),
        ))
    }

    /// Loads a CNN to be evaluated with 8-bit integer convolutions ([`QuantCnn`]), named
    /// `nnq:DIR`; an MLP directory is refused (only the CNN's tower is quantized).
    pub fn load_quantized(dir: &Path) -> anyhow::Result<NetPruner> {
        NetPruner::load_quantized_bits(dir, 8)
    }

    /// [`load_quantized`](Self::load_quantized) with activations in `bits`-bit steps
    /// ([`ActSteps`]): 8 (`nnq:DIR`) or 7 (`nnq7:DIR`).
    pub fn load_quantized_bits(dir: &Path, bits: u8) -> anyhow::Result<NetPruner> {
        let steps = ActSteps::from_bits(bits)
            .ok_or_else(|| anyhow::anyhow!("activation steps of {bits} bits (8 or 7 only)"))?;
        let kind = match steps {
            ActSteps::Eight => "nnq",
            ActSteps::Seven => "nnq7",
        };
        let model = read_model(dir)?;
        let SavedModel::Cnn(m, _) = &model else {
            anyhow::bail!(
                "model {}: integer evaluation ({kind}) needs a CNN, this is an MLP",
                dir.display()
            );
        };
        Ok(NetPruner {
            name: format!("{kind}:{}", dir.display()),
            net: PlainNet::QuantCnn(Box::new(QuantCnn::with_steps(
                &PlainCnn::from_burn(m),
                steps,
            ))),
            views: 1,
            history: model.reads_history(),
        })
    }

    /// Loads a network by its parsed name: its directory read as [`load`](Self::load) or
    /// [`load_quantized`](Self::load_quantized), then averaged over its `symN:` views
    /// ([`with_symmetries`](Self::with_symmetries)). The directory is read as named (the
    /// search's `search::pruners` also looks beside the program and caches).
    pub fn load_network(name: &NetworkName) -> anyhow::Result<NetPruner> {
        let dir = name.weights.dir();
        let net = match name.weights.activation_bits() {
            Some(bits) => NetPruner::load_quantized_bits(dir, bits)?,
            None => NetPruner::load(dir)?,
        };
        match name.views {
            1 => Ok(net),
            views => net.with_symmetries(views),
        }
    }

    /// Loads a network named as `eval --model` names one ([`PrunerName::parse_or_dir`]):
    /// `DIR`, `nn:DIR`, `nnq:DIR`, or any of them behind `symN:`. A name of a pruner without
    /// weights (`rule`, ...) is refused.
    pub fn load_named(name: &str) -> anyhow::Result<NetPruner> {
        match PrunerName::parse_or_dir(name)? {
            PrunerName::Network(net) => NetPruner::load_network(&net),
            other => anyhow::bail!("`{other}` is a pruner without a network"),
        }
    }

    /// Same as [`load`](Self::load) with the network layer's typed error.
    pub fn try_load(dir: &Path) -> Result<NetPruner, NetError> {
        let (model, _) = SavedModel::load(dir)?;
        Ok(NetPruner::from_model(
            &model,
            format!("nn:{}", dir.display()),
        ))
    }

    /// Exports an in-memory burn model.
    pub fn from_model(model: &SavedModel, name: String) -> NetPruner {
        let net = match model {
            SavedModel::Mlp(m, cfg) => {
                PlainNet::Mlp(PlainMlp::from_burn(m), cfg.encoding, cfg.loss)
            }
            SavedModel::Cnn(m, _) => PlainNet::Cnn(Box::new(PlainCnn::from_burn(m))),
        };
        NetPruner {
            name,
            net,
            views: 1,
            history: model.reads_history(),
        }
    }

    /// This CNN evaluated on `views` symmetric views of each position (2, 4 or 8: the first
    /// of [`sym_point`]'s symmetries, 4 = the identity, both flips and the half turn), its
    /// move probabilities averaged (test-time augmentation, as AlphaGo's evaluation did): a
    /// better predictor for `views` times the cost. Named `symN:` + its name; an MLP is
    /// refused (its inputs have no planes to turn).
    pub fn with_symmetries(self, views: u8) -> anyhow::Result<NetPruner> {
        anyhow::ensure!(
            SYMMETRY_VIEWS.contains(&views),
            "{}: symmetry averaging takes 2, 4 or 8 views, not {views}",
            self.name
        );
        anyhow::ensure!(
            !matches!(self.net, PlainNet::Mlp(..)),
            "{}: symmetry averaging (sym{views}) needs a CNN, this is an MLP",
            self.name
        );
        Ok(NetPruner {
            name: format!("sym{views}:{}", self.name),
            views,
            ..self
        })
    }

    /// Badness of every point of `inp`.
    pub fn rate(&self, inp: &NetInput<'_>, out: &mut [f32; NN]) {
        self.rate_value(inp, out, false);
    }

    /// Whether the network has a value head.
    pub fn has_value(&self) -> bool {
        self.net.has_value()
    }

    /// The kernel this network's layers run on here, as benchmarks print it: `8-bit vnni`
    /// (or `avxvnni`, `avx2`, `portable`) for an `nnq:` CNN, `float avx512` (or `avx2`,
    /// `portable`) otherwise.
    pub fn kernel(&self) -> String {
        match &self.net {
            PlainNet::QuantCnn(q) => {
                format!("{}-bit {}", q.steps().bits(), super::quant::kernel_name())
            }
            PlainNet::Cnn(_) => format!("float {}", super::plain::float_kernel_name()),
            PlainNet::Mlp(..) => format!("float {}", super::plain::dense_kernel_name()),
        }
    }

    /// [`rate`](Self::rate), and with `want_value` the side to move's win probability from
    /// the value head (averaged over the symmetric views like the badness); `None` without
    /// a value head or when not asked.
    pub fn rate_value(
        &self,
        inp: &NetInput<'_>,
        out: &mut [f32; NN],
        want_value: bool,
    ) -> Option<f32> {
        let want_value = want_value && self.net.has_value();
        let inp = &inp.with_history(self.history);
        BUFFERS.with(|b| {
            let Buffers { input, scratch } = &mut *b.borrow_mut();
            match &self.net {
                PlainNet::Mlp(m, enc, MlpLoss::Bce) => {
                    mlp_input(*enc, inp, input);
                    m.forward(&input[..enc.width()], scratch, out);
                    None
                }
                PlainNet::Mlp(m, enc, MlpLoss::Softmax) => {
                    mlp_input(*enc, inp, input);
                    m.logits(&input[..enc.width()], scratch, out);
                    masked_softmax_badness(&inp.legal_mask(), out);
                    None
                }
                cnn if self.views > 1 => {
                    cnn_planes(inp, input);
                    let views = self.views as usize;
                    let legal = inp.legal_mask();
                    symmetric_badness(cnn, views, input, &legal, scratch, out, want_value)
                }
                cnn => {
                    cnn_planes(inp, input);
                    let mut value = [f32::NAN];
                    cnn.cnn_logits(input, 1, scratch, out, want_value.then_some(&mut value[..]));
                    masked_softmax_badness(&inp.legal_mask(), out);
                    want_value.then(|| super::plain::win_probability(value[0]))
                }
            }
        })
    }
}

impl NetPruner {
    /// Each point's expected final owner from the side to move's view (-1..=1) by the
    /// network's ownership head; `None` for a network without one (or an MLP). Not averaged
    /// over symmetric views: analysis asks for it, not the search.
    pub fn ownership(&self, inp: &NetInput<'_>) -> Option<[f32; NN]> {
        let inp = &inp.with_history(self.history);
        BUFFERS.with(|b| {
            let Buffers { input, scratch } = &mut *b.borrow_mut();
            // `PlainNet::ownership` answers None for an MLP, which has no ownership head.
            cnn_planes(inp, input);
            self.net.ownership(&input[..CNN_PLANES * NN], scratch)
        })
    }

    /// The side to move's expected score lead in points by the network's score head; `None`
    /// for a network without one. As [`ownership`](Self::ownership), one view, for analysis.
    pub fn score_lead(&self, inp: &NetInput<'_>) -> Option<f32> {
        let inp = &inp.with_history(self.history);
        BUFFERS.with(|b| {
            let Buffers { input, scratch } = &mut *b.borrow_mut();
            cnn_planes(inp, input);
            self.net.score_lead(&input[..CNN_PLANES * NN], scratch)
        })
    }

    /// Badness of every point of each of `inputs`, in one call: the CNN runs all positions
    /// through each convolution together ([`PlainCnn::logits_batch`]); the MLPs, whose
    /// weights are read once per row anyway, and the symmetry-averaged CNN (already a batch
    /// of its views per position) go position by position. Same values as
    /// [`rate`](Self::rate) on each position.
    pub fn rate_batch(&self, inputs: &[NetInput<'_>], out: &mut [[f32; NN]]) {
        assert_eq!(inputs.len(), out.len(), "one output row per input");
        if matches!(self.net, PlainNet::Mlp(..)) || self.views > 1 {
            for (inp, o) in inputs.iter().zip(out.iter_mut()) {
                self.rate(inp, o);
            }
            return;
        }
        let n = inputs.len();
        BUFFERS.with(|b| {
            let Buffers { input, scratch } = &mut *b.borrow_mut();
            let per = CNN_PLANES * NN;
            if input.len() < n * per {
                input.resize(n * per, 0.0);
            }
            for (inp, planes) in inputs.iter().zip(input.chunks_mut(per)) {
                cnn_planes(&inp.with_history(self.history), planes);
            }
            let mut logits = vec![0f32; n * NN];
            self.net
                .cnn_logits(&input[..n * per], n, scratch, &mut logits, None);
            for ((inp, o), row) in inputs.iter().zip(out.iter_mut()).zip(logits.chunks(NN)) {
                o.copy_from_slice(row);
                masked_softmax_badness(&inp.legal_mask(), o);
            }
        })
    }
}

/// Badness from the CNN's probabilities averaged over `views` symmetric views of one
/// position: `planes` (the position's CNN planes, `CNN_PLANES * NN` at the front; grown to
/// hold the views after them) is turned `views` ways, the views go through the network as
/// one batch, and each view's logits are read back at the original points before its
/// legal-point softmax. With `want_value`, returns the views' mean win probability.
fn symmetric_badness(
    net: &PlainNet,
    views: usize,
    planes: &mut Vec<f32>,
    legal: &[bool; NN],
    scratch: &mut Scratch,
    out: &mut [f32; NN],
    want_value: bool,
) -> Option<f32> {
    let per = CNN_PLANES * NN;
    if planes.len() < (views + 1) * per {
        planes.resize((views + 1) * per, 0.0);
    }
    let (original, turned) = planes.split_at_mut(per);
    for (sym, view) in turned.chunks_mut(per).take(views).enumerate() {
        for (from, to) in original.chunks(NN).zip(view.chunks_mut(NN)) {
            for (p, &v) in from.iter().enumerate() {
                to[sym_point(sym as u8, p as u8) as usize] = v;
            }
        }
    }
    let mut logits = [0f32; 8 * NN];
    let mut values = [f32::NAN; 8];
    net.cnn_logits(
        &turned[..views * per],
        views,
        scratch,
        &mut logits[..views * NN],
        want_value.then_some(&mut values[..views]),
    );
    out.fill(0.0);
    for (sym, row) in logits[..views * NN].chunks(NN).enumerate() {
        let mut back = [0f32; NN];
        for (p, b) in back.iter_mut().enumerate() {
            *b = row[sym_point(sym as u8, p as u8) as usize];
        }
        masked_softmax_badness(legal, &mut back);
        for (o, b) in out.iter_mut().zip(back) {
            *o += b / views as f32;
        }
    }
    want_value.then(|| {
        let sum: f32 = values[..views]
            .iter()
            .map(|&v| super::plain::win_probability(v))
            .sum();
        sum / views as f32
    })
}

impl Pruner for NetPruner {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn reads_history(&self) -> bool {
        // The CNN's planes 10 and 11 (and the planes MLP's copy of them) hold the last moves,
        // unless the network was trained with them empty.
        self.history
            && !matches!(
                self.net,
                PlainNet::Mlp(_, MlpEncoding::Paper | MlpEncoding::OneHot, _)
            )
    }
    fn badness(&self, ctx: &PruneContext<'_>, out: &mut [f32; NN]) {
        self.rate(&NetInput::from_context(ctx), out);
    }
    fn badness_value(&self, ctx: &PruneContext<'_>, out: &mut [f32; NN]) -> Option<f32> {
        self.rate_value(&NetInput::from_context(ctx), out, true)
    }
    fn has_value(&self) -> bool {
        self.net.has_value()
    }
    fn ownership(&self, ctx: &PruneContext<'_>) -> Option<[f32; NN]> {
        NetPruner::ownership(self, &NetInput::from_context(ctx))
    }
    fn score_lead(&self, ctx: &PruneContext<'_>) -> Option<f32> {
        NetPruner::score_lead(self, &NetInput::from_context(ctx))
    }
}

impl PositionScorer for NetPruner {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn score(&self, pos: &Position, board: &Board, out: &mut [f32; NN]) {
        self.rate(&NetInput::from_position(pos, board), out);
    }
}
