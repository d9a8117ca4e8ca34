//! Pruner names: the text that names a pruner in engine specs (`prune=sym8:nnq:models/x:65@1`),
//! `eval --model` and `akushu analyze`, parsed once into a [`PrunerName`].
//!
//! | name                   | pruner                                                       |
//! |------------------------|--------------------------------------------------------------|
//! | `none`                 | every point scores 0                                         |
//! | `random`, `random:SEED`| the control arm; without a seed the caller's (an engine's seed, `eval --seed`) |
//! | `rule`                 | self-atari, own eye, edges (`prune::rules`)                  |
//! | `kakeme`               | regions nobody can live in (paper C in `docs/papers.md`)     |
//! | `nn`, `nn:DIR`         | a trained network (`nn` alone: [`DEFAULT_MODEL`])            |
//! | `nnq:DIR`              | the same CNN with 8-bit integer convolutions (faster)        |
//! | `nnq7:DIR`             | the same, its activations in 7-bit steps (fast on AVX2 alone) |
//! | `symN:NET`             | a CNN's probabilities averaged over N = 2, 4 or 8 board symmetries; NET is `DIR`, `nn:DIR`, `nnq:DIR` or `nnq7:DIR` |
//!
//! The name only says what to build: `search::pruners` builds it (the network and kake-me
//! pruners live above this layer). It sits here, the lowest layer that knows pruners, so that
//! `net` (which loads the networks), `search` (engine specs and the model directories a match
//! records) and `eval` all read one grammar: a new kind is one variant and one match arm here.
//!
//! `eval --model` also takes a bare model directory for a network
//! ([`PrunerName::parse_or_dir`]); engine specs do not, so a mistyped kind there is named as
//! an unknown kind instead of being looked for as a folder.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

/// The model a bare `nn` pruner loads.
pub const DEFAULT_MODEL: &str = "models/default";

/// The symmetry-view counts `symN:` takes.
pub const SYMMETRY_VIEWS: [u8; 3] = [2, 4, 8];

/// The kinds a pruner name starts with, for error messages and help texts.
pub const KINDS: &[&str] = &[
    "none", "random", "rule", "nn", "nnq", "nnq7", "sym2", "sym4", "sym8", "kakeme",
];

/// A parsed pruner name. [`Display`](fmt::Display) writes it back as it was spelled, so specs
/// and labels built from a name keep the user's text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PrunerName {
    /// `none`: every point scores 0.
    None,
    /// `random` / `random:SEED`: reproducible random scores; `None` takes the caller's seed.
    Random(Option<u64>),
    /// `rule`: the hand rules of `prune::rules`.
    Rule,
    /// `kakeme`: the kake-me test of `yose`.
    Kakeme,
    /// A trained network.
    Network(NetworkName),
}

/// A network pruner's name: which weights, how evaluated.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NetworkName {
    /// Board symmetries whose probabilities are averaged: 1 (no `symN:` prefix), 2, 4 or 8.
    pub views: u8,
    /// The model directory and its evaluator.
    pub weights: Weights,
}

/// A network's model directory, as spelled: the spelling is kept so that a name prints back
/// unchanged (`nn` and `nn:models/default` load the same weights but are different text).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Weights {
    /// `nn` alone: [`DEFAULT_MODEL`], float evaluation.
    Default,
    /// `nn:DIR`: float evaluation.
    Float(String),
    /// `DIR` with no kind before it: float evaluation. Taken inside `symN:` and by
    /// [`PrunerName::parse_or_dir`].
    Bare(String),
    /// `nnq:DIR`: a CNN with 8-bit integer convolutions.
    Quantized(String),
    /// `nnq7:DIR`: the same, its activations stepped in 7 bits (`net::quant::ActSteps`).
    Quantized7(String),
}

impl Weights {
    /// The model directory these weights are read from.
    pub fn dir(&self) -> &Path {
        match self {
            Weights::Default => Path::new(DEFAULT_MODEL),
            Weights::Float(d)
            | Weights::Bare(d)
            | Weights::Quantized(d)
            | Weights::Quantized7(d) => Path::new(d),
        }
    }

    /// Whether the network runs with integer convolutions (`nnq:`, `nnq7:`).
    pub fn quantized(&self) -> bool {
        self.activation_bits().is_some()
    }

    /// The bits of an integer network's activation steps: 8 for `nnq:`, 7 for `nnq7:`,
    /// `None` for a float network.
    pub fn activation_bits(&self) -> Option<u8> {
        match self {
            Weights::Quantized(_) => Some(8),
            Weights::Quantized7(_) => Some(7),
            Weights::Default | Weights::Float(_) | Weights::Bare(_) => None,
        }
    }
}

/// Why a text is not a pruner name. The messages name the kind and show a right spelling.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PrunerNameError {
    #[error("unknown pruner kind `{0}` (known: {known})", known = KINDS.join(", "))]
    UnknownKind(String),
    #[error("pruner `{kind}` takes no argument, got `{arg}`")]
    TakesNoArgument { kind: String, arg: String },
    #[error("pruner `random`: seed `{0}` is not an integer")]
    BadSeed(String),
    #[error("pruner `{0}` needs a CNN model directory, e.g. {0}:models/cnn")]
    NnqWithoutDirectory(String),
    #[error("pruner `nn:` needs a model directory after the colon, e.g. nn:models/default")]
    NnWithoutDirectory,
    #[error("pruner `sym{0}` needs a CNN, e.g. sym{0}:nnq:models/cnn")]
    SymWithoutNetwork(u8),
    #[error("`{0}`: sym{1}: is not a symmetry average (sym2:, sym4:, sym8: only)")]
    BadViews(String, String),
    #[error("`{0}`: symmetry averaging needs a network (DIR, nn:DIR or nnq:DIR), not `{1}`")]
    SymOfNonNetwork(String, String),
}

/// The views of a `symN` kind: `None` when `kind` is not `sym` and digits; an error for
/// digits that are not a view count (`sym3`), so a `symN:` prefix is never read as a path.
fn sym_views(kind: &str, text: &str) -> Result<Option<u8>, PrunerNameError> {
    let Some(n) = kind.strip_prefix("sym") else {
        return Ok(None);
    };
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(None);
    }
    match n.parse::<u8>().ok().filter(|v| SYMMETRY_VIEWS.contains(v)) {
        Some(v) => Ok(Some(v)),
        None => Err(PrunerNameError::BadViews(text.into(), n.into())),
    }
}

/// Splits `KIND[:ARG]` at the first colon.
fn kind_and_arg(text: &str) -> (&str, Option<&str>) {
    match text.split_once(':') {
        Some((k, a)) => (k, Some(a)),
        None => (text, None),
    }
}

impl FromStr for PrunerName {
    type Err = PrunerNameError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (kind, arg) = kind_and_arg(text);
        let no_arg = |name: PrunerName| match arg {
            Some(a) => Err(PrunerNameError::TakesNoArgument {
                kind: kind.into(),
                arg: a.into(),
            }),
            None => Ok(name),
        };
        match kind {
            "none" => no_arg(PrunerName::None),
            "rule" => no_arg(PrunerName::Rule),
            "kakeme" => no_arg(PrunerName::Kakeme),
            "random" => match arg {
                None => Ok(PrunerName::Random(None)),
                Some(a) => a
                    .parse::<u64>()
                    .map(|seed| PrunerName::Random(Some(seed)))
                    .map_err(|_| PrunerNameError::BadSeed(a.into())),
            },
            "nn" | "nnq" | "nnq7" => Ok(PrunerName::Network(NetworkName {
                views: 1,
                weights: weights(kind, arg)?,
            })),
            _ => match sym_views(kind, text)? {
                Some(views) => {
                    let inner = arg
                        .filter(|a| !a.is_empty())
                        .ok_or(PrunerNameError::SymWithoutNetwork(views))?;
                    Ok(PrunerName::Network(NetworkName {
                        views,
                        weights: sym_inner(text, inner)?,
                    }))
                }
                None => Err(PrunerNameError::UnknownKind(kind.into())),
            },
        }
    }
}

/// The weights of an `nn`/`nnq`/`nnq7` name (`kind`, with the text after its colon).
fn weights(kind: &str, arg: Option<&str>) -> Result<Weights, PrunerNameError> {
    match (kind, arg) {
        ("nn", None) => Ok(Weights::Default),
        ("nn", Some("")) => Err(PrunerNameError::NnWithoutDirectory),
        ("nn", Some(d)) => Ok(Weights::Float(d.into())),
        (_, None | Some("")) => Err(PrunerNameError::NnqWithoutDirectory(kind.into())),
        ("nnq7", Some(d)) => Ok(Weights::Quantized7(d.into())),
        (_, Some(d)) => Ok(Weights::Quantized(d.into())),
    }
}

/// The network inside `symN:` (`text` is the whole name, for errors): `nn[:DIR]`, `nnq:DIR`
/// or a bare directory; another pruner kind or a second `symN:` is refused.
fn sym_inner(text: &str, inner: &str) -> Result<Weights, PrunerNameError> {
    match PrunerName::parse_or_dir(inner)? {
        PrunerName::Network(NetworkName { views: 1, weights }) => Ok(weights),
        _ => Err(PrunerNameError::SymOfNonNetwork(text.into(), inner.into())),
    }
}

impl PrunerName {
    /// A name as `eval --model` takes one: any pruner name, or else (the text does not start
    /// with a pruner kind) a model directory for a network, e.g. `models/cnn`.
    pub fn parse_or_dir(text: &str) -> Result<PrunerName, PrunerNameError> {
        match text.parse() {
            Err(PrunerNameError::UnknownKind(_)) if !text.is_empty() => {
                Ok(PrunerName::Network(NetworkName {
                    views: 1,
                    weights: Weights::Bare(text.into()),
                }))
            }
            parsed => parsed,
        }
    }

    /// The model directory the pruner reads (a network's), so that what played or was
    /// evaluated can be tied to its weights; `None` for pruners without weights.
    pub fn model_dir(&self) -> Option<&Path> {
        match self {
            PrunerName::Network(n) => Some(n.weights.dir()),
            _ => None,
        }
    }

    /// The name with `seed` filled in for a `random` pruner that names none (an engine's
    /// seed, `eval --seed`).
    pub fn or_seed(self, seed: u64) -> PrunerName {
        match self {
            PrunerName::Random(None) => PrunerName::Random(Some(seed)),
            other => other,
        }
    }
}

impl fmt::Display for PrunerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PrunerName::None => f.write_str("none"),
            PrunerName::Random(None) => f.write_str("random"),
            PrunerName::Random(Some(seed)) => write!(f, "random:{seed}"),
            PrunerName::Rule => f.write_str("rule"),
            PrunerName::Kakeme => f.write_str("kakeme"),
            PrunerName::Network(n) => n.fmt(f),
        }
    }
}

// A name is stored and recorded as the text it was spelled with (engine configs, match
// headers), so its serde form is that text: configs written before names were parsed read
// back unchanged.
crate::serde_as_text!(PrunerName);

impl fmt::Display for NetworkName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.views > 1 {
            write!(f, "sym{}:", self.views)?;
        }
        match &self.weights {
            Weights::Default => f.write_str("nn"),
            Weights::Float(d) => write!(f, "nn:{d}"),
            Weights::Bare(d) => f.write_str(d),
            Weights::Quantized(d) => write!(f, "nnq:{d}"),
            Weights::Quantized7(d) => write!(f, "nnq7:{d}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(views: u8, weights: Weights) -> PrunerName {
        PrunerName::Network(NetworkName { views, weights })
    }

    /// Every spelling in use parses to what it names and prints back unchanged.
    #[test]
    fn every_spelling_round_trips() {
        let x = || "models/x".to_string();
        let cases = [
            ("none", PrunerName::None),
            ("random", PrunerName::Random(None)),
            ("random:7", PrunerName::Random(Some(7))),
            ("rule", PrunerName::Rule),
            ("kakeme", PrunerName::Kakeme),
            ("nn", net(1, Weights::Default)),
            ("nn:models/x", net(1, Weights::Float(x()))),
            ("nnq:models/x", net(1, Weights::Quantized(x()))),
            ("sym2:models/x", net(2, Weights::Bare(x()))),
            ("sym4:nn:models/x", net(4, Weights::Float(x()))),
            ("sym8:nnq:models/x", net(8, Weights::Quantized(x()))),
            ("nnq7:models/x", net(1, Weights::Quantized7(x()))),
            ("sym2:nnq7:models/x", net(2, Weights::Quantized7(x()))),
            ("sym8:nn", net(8, Weights::Default)),
            // A directory keeps its text, colons included.
            (
                "nn:/tmp/a:b/model",
                net(1, Weights::Float("/tmp/a:b/model".into())),
            ),
        ];
        for (text, name) in cases {
            assert_eq!(text.parse::<PrunerName>().as_ref(), Ok(&name), "{text}");
            assert_eq!(name.to_string(), text);
            assert_eq!(PrunerName::parse_or_dir(text), Ok(name), "{text}");
        }
    }

    /// A bare directory is a network for `eval` (and prints back as given), never for specs.
    #[test]
    fn a_bare_directory_is_a_network_only_where_eval_reads_it() {
        for text in ["models/cnn", "../x/y:z", "rules"] {
            let name = PrunerName::parse_or_dir(text).unwrap();
            assert_eq!(name, net(1, Weights::Bare(text.into())));
            assert_eq!(name.to_string(), text);
            assert!(matches!(
                text.parse::<PrunerName>(),
                Err(PrunerNameError::UnknownKind(_))
            ));
        }
    }

    #[test]
    fn every_network_spelling_reads_the_same_directory() {
        for text in [
            "models/x",
            "nn:models/x",
            "nnq:models/x",
            "sym2:models/x",
            "sym4:nn:models/x",
            "sym8:nnq:models/x",
            "nnq7:models/x",
            "sym4:nnq7:models/x",
        ] {
            let name = PrunerName::parse_or_dir(text).unwrap();
            assert_eq!(name.model_dir(), Some(Path::new("models/x")), "{text}");
        }
        let bare_nn: PrunerName = "nn".parse().unwrap();
        assert_eq!(bare_nn.model_dir(), Some(Path::new(DEFAULT_MODEL)));
        for text in ["none", "random", "random:3", "rule", "kakeme"] {
            assert_eq!(text.parse::<PrunerName>().unwrap().model_dir(), None);
        }
        let bits = |t: &str| match t.parse::<PrunerName>().unwrap() {
            PrunerName::Network(n) => n.weights.activation_bits(),
            _ => unreachable!(),
        };
        assert_eq!(bits("sym8:nnq:models/x"), Some(8));
        assert_eq!(bits("sym2:nnq7:models/x"), Some(7));
        assert_eq!(bits("sym8:nn:models/x"), None);
    }

    /// Bad names are refused by what is wrong, and the message says it.
    #[test]
    fn bad_names_are_refused_clearly() {
        let cases = [
            ("bogus", "unknown pruner kind `bogus` (known: none, random"),
            ("rules", "unknown pruner kind `rules`"),
            ("", "unknown pruner kind ``"),
            ("rule:1", "pruner `rule` takes no argument, got `1`"),
            ("none:x", "pruner `none` takes no argument"),
            ("kakeme:2", "pruner `kakeme` takes no argument"),
            ("random:x", "seed `x` is not an integer"),
            ("random:", "seed `` is not an integer"),
            ("random:-1", "seed `-1` is not an integer"),
            ("nnq", "needs a CNN model directory"),
            ("nnq:", "needs a CNN model directory"),
            (
                "nnq7",
                "pruner `nnq7` needs a CNN model directory, e.g. nnq7:models/cnn",
            ),
            ("nn:", "needs a model directory"),
            (
                "sym8",
                "pruner `sym8` needs a CNN, e.g. sym8:nnq:models/cnn",
            ),
            ("sym4:", "pruner `sym4` needs a CNN"),
            (
                "sym0:models/x",
                "sym0: is not a symmetry average (sym2:, sym4:, sym8: only)",
            ),
            ("sym3:models/x", "sym3: is not a symmetry average"),
            ("sym300:x", "sym300: is not a symmetry average"),
            ("sym3", "sym3: is not a symmetry average"),
            (
                "sym2:sym4:models/x",
                "needs a network (DIR, nn:DIR or nnq:DIR), not `sym4:models/x`",
            ),
            ("sym8:rule", "needs a network"),
            ("sym8:random:3", "needs a network"),
            ("sym8:sym3:x", "sym3: is not a symmetry average"),
        ];
        for (text, message) in cases {
            let e = text.parse::<PrunerName>().unwrap_err();
            assert!(e.to_string().contains(message), "{text}: {e}");
        }
        // Only an unknown kind turns into a directory for `eval`: the rest stay errors.
        for (text, _) in cases
            .iter()
            .filter(|(t, _)| !["bogus", "rules"].contains(t))
        {
            assert!(PrunerName::parse_or_dir(text).is_err(), "{text}");
        }
    }

    #[test]
    fn a_random_pruner_without_a_seed_takes_the_callers() {
        let r: PrunerName = "random".parse().unwrap();
        assert_eq!(r.or_seed(9), PrunerName::Random(Some(9)));
        let r: PrunerName = "random:3".parse().unwrap();
        assert_eq!(r.or_seed(9), PrunerName::Random(Some(3)));
        assert_eq!(PrunerName::Rule.or_seed(9), PrunerName::Rule);
    }
}
