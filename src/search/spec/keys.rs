//! The key machinery every kind's table uses: value types and their ranges, [`Key`] rows,
//! applying a spec's `key=value` pairs, printing a config back, the key lists for `--help`
//! and `docs/engine-specs.md`, and the number and pruner-field parsers the rows share.

use super::*;

// ---------------------------------------------------------------------------------------
// Key tables
// ---------------------------------------------------------------------------------------

/// What a key's value may be; checked when parsing and shown in help texts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ValueType {
    /// A whole number in `lo..=hi`.
    Whole { lo: u64, hi: u64 },
    /// A 32-bit real in `lo..=hi` (NaN and infinities refused).
    Real32 { lo: f32, hi: f32 },
    /// A 64-bit real in `lo..=hi` (NaN and infinities refused).
    Real64 { lo: f64, hi: f64 },
    /// `true`/`false` (also `on`/`off`, `yes`/`no`, `1`/`0`).
    Bool,
    /// One of the listed words.
    Choice(&'static [&'static str]),
    /// Structured text whose form (and the ranges of its numbers) the text describes; the
    /// key's setter checks it.
    Form(&'static str),
}

impl fmt::Display for ValueType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueType::Whole { lo, hi } => write!(f, "whole number, {lo} to {hi}"),
            ValueType::Real32 { lo, hi } => write!(f, "number, {lo} to {hi}"),
            ValueType::Real64 { lo, hi } => write!(f, "number, {lo} to {hi}"),
            ValueType::Bool => write!(f, "true or false"),
            ValueType::Choice(words) => write!(f, "{}", either(words)),
            ValueType::Form(form) => write!(f, "{form}"),
        }
    }
}

/// A key's value after its type and range were checked.
#[derive(Debug, Clone, Copy)]
pub enum Value<'a> {
    Whole(u64),
    Real32(f32),
    Real64(f64),
    Bool(bool),
    /// A `Choice` word or a `Form` text (the setter parses forms).
    Text(&'a str),
}

impl<'a> Value<'a> {
    /// The whole number, converted to the field's type (the key's range fits it).
    pub(super) fn whole<T: TryFrom<u64>>(self) -> T {
        match self {
            Value::Whole(n) => T::try_from(n).ok().expect("a key's range fits its field"),
            other => unreachable!("key table: {other:?} is not a whole number"),
        }
    }
    pub(super) fn real32(self) -> f32 {
        match self {
            Value::Real32(x) => x,
            other => unreachable!("key table: {other:?} is not a 32-bit real"),
        }
    }
    pub(super) fn real64(self) -> f64 {
        match self {
            Value::Real64(x) => x,
            other => unreachable!("key table: {other:?} is not a 64-bit real"),
        }
    }
    pub(super) fn boolean(self) -> bool {
        match self {
            Value::Bool(b) => b,
            other => unreachable!("key table: {other:?} is not a boolean"),
        }
    }
    pub(super) fn text(self) -> &'a str {
        match self {
            Value::Text(t) => t,
            other => unreachable!("key table: {other:?} is not text"),
        }
    }
}

impl ValueType {
    /// Parses and checks `text` for `key`; errors name the key and the allowed values.
    pub fn parse<'a>(&self, key: &str, text: &'a str) -> anyhow::Result<Value<'a>> {
        Ok(match *self {
            ValueType::Whole { lo, hi } => Value::Whole(ranged(key, text, lo, hi)?),
            ValueType::Real32 { lo, hi } => Value::Real32(ranged(key, text, lo, hi)?),
            ValueType::Real64 { lo, hi } => Value::Real64(ranged(key, text, lo, hi)?),
            ValueType::Bool => Value::Bool(boolean(key, text)?),
            ValueType::Choice(words) => {
                if !words.contains(&text) {
                    bail!(
                        "key `{key}`: bad value `{text}` (expected {})",
                        either(words)
                    );
                }
                Value::Text(text)
            }
            ValueType::Form(_) => Value::Text(text),
        })
    }
}

/// One key of an engine kind's spec. `D` is the value being parsed (the config, or a draft
/// of it when one key's meaning waits for another).
pub struct Key<D> {
    pub name: &'static str,
    pub value: ValueType,
    /// One line for help texts and the key list.
    pub doc: &'static str,
    /// Stores a checked value.
    pub(super) set: fn(&mut D, Value<'_>) -> anyhow::Result<()>,
    /// The value as spec text, `None` when the key has nothing to say (an unset option).
    pub(super) get: fn(&D) -> Option<String>,
}

/// A key as documented: name, type and range, default, doc line.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyDoc {
    pub name: &'static str,
    pub value: ValueType,
    /// The default's spec text (`none` when the key is unset by default).
    pub default: String,
    pub doc: &'static str,
}

pub(super) fn key_docs<D>(keys: &[Key<D>], default: &D) -> Vec<KeyDoc> {
    keys.iter()
        .map(|k| KeyDoc {
            name: k.name,
            value: k.value,
            default: (k.get)(default).unwrap_or_else(|| "none".into()),
            doc: k.doc,
        })
        .collect()
}

/// `a, b or c`.
pub(super) fn either(words: &[&str]) -> String {
    match words.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Applies the `key=value` pairs of `spec` to `draft` through the kind's key table.
pub(super) fn apply_keys<D>(
    kind: &str,
    keys: &[Key<D>],
    spec: &str,
    draft: &mut D,
) -> anyhow::Result<()> {
    for (k, v) in pairs(spec)? {
        let r: anyhow::Result<()> = (|| {
            let Some(key) = keys.iter().find(|key| key.name == k) else {
                let names: Vec<&str> = keys.iter().map(|key| key.name).collect();
                bail!("unknown key `{k}` ({kind} keys: {})", names.join(", "));
            };
            (key.set)(draft, key.value.parse(k, v)?)
        })();
        r.with_context(|| format!("engine spec `{spec}`"))?;
    }
    Ok(())
}

/// `kind[:key=value,...]` with the keys whose text differs from the default's, in table order.
pub(super) fn print_keys<D>(kind: &str, keys: &[Key<D>], value: &D, default: &D) -> String {
    let items: Vec<String> = keys
        .iter()
        .filter_map(|k| {
            let v = (k.get)(value)?;
            ((k.get)(default).as_ref() != Some(&v)).then(|| format!("{}={v}", k.name))
        })
        .collect();
    if items.is_empty() {
        kind.to_string()
    } else {
        format!("{kind}:{}", items.join(","))
    }
}

/// Points on the board: the most a pruner can prune.
pub(super) const BOARD_POINTS: usize = crate::rules::NN;
/// Deepest tree depth a pruning key may name.
pub(super) const MAX_PRUNE_DEPTH: u32 = 10_000;

pub(super) fn some(text: impl ToString) -> Option<String> {
    Some(text.to_string())
}

impl fmt::Display for UctConfig {
    /// The canonical spec: `uct` and the keys not at their defaults, in table order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value = UctDraft::from(self.clone());
        let default = UctDraft::from(UctConfig::default());
        f.write_str(&print_keys("uct", UCT_KEYS, &value, &default))
    }
}

impl fmt::Display for FlatConfig {
    /// The canonical spec: `flat` and the keys not at their defaults, in table order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print_keys("flat", FLAT_KEYS, self, &FlatConfig::default()))
    }
}

/// The key list of every engine kind as Markdown (`docs/engine-specs.md`, checked by a test
/// to match the tables).
pub fn key_list_markdown() -> String {
    let mut out = String::from(
        "# Engine spec keys\n\n\
         Generated from the key tables in `src/search/spec/` (a test checks that this file \
         matches them). A spec is `KIND[:key=value,...]`; keys left out take their defaults.\n",
    );
    for kind in ENGINE_KINDS.iter() {
        out.push_str(&format!("\n## `{}`\n\n{}\n\n", kind.name, kind.doc));
        out.push_str("| key | value | default | meaning |\n|---|---|---|---|\n");
        for k in kind.keys() {
            out.push_str(&format!(
                "| `{}` | {} | `{}` | {} |\n",
                k.name, k.value, k.default, k.doc
            ));
        }
    }
    out
}

/// The key list of every engine kind as plain text, for `--help`.
pub fn key_list_text() -> String {
    let mut out = String::from("Engine kinds and their keys (KIND[:key=value,...]):\n");
    for kind in ENGINE_KINDS.iter() {
        out.push_str(&format!("\n{}: {}\n", kind.name, kind.doc));
        for k in kind.keys() {
            out.push_str(&format!(
                "  {:<14} {} [{}; default {}]\n",
                k.name, k.doc, k.value, k.default
            ));
        }
    }
    out
}

pub(super) fn split_kind(spec: &str) -> (&str, &str) {
    spec.split_once(':').unwrap_or((spec, ""))
}

/// The `key=value` pairs of a spec, checked for duplicates.
pub(super) fn pairs(spec: &str) -> anyhow::Result<Vec<(&str, &str)>> {
    let (_, rest) = split_kind(spec);
    let mut out: Vec<(&str, &str)> = Vec::new();
    for item in rest.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (k, v) = item.split_once('=').ok_or_else(|| {
            anyhow!("engine spec `{spec}`: `{item}` is not of the form key=value")
        })?;
        let (k, v) = (k.trim(), v.trim());
        if out.iter().any(|(seen, _)| *seen == k) {
            bail!("engine spec `{spec}`: key `{k}` given twice");
        }
        out.push((k, v));
    }
    Ok(out)
}

/// A number for `key` in `lo..=hi` (NaN and infinities refused), the range named in errors.
pub(super) fn ranged<T>(key: &str, v: &str, lo: T, hi: T) -> anyhow::Result<T>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display + std::fmt::Debug + Copy,
    T::Err: std::fmt::Display,
{
    crate::util::num::parse_in(&format!("key `{key}`"), v, lo, hi).map_err(anyhow::Error::msg)
}

pub(super) fn boolean(key: &str, v: &str) -> anyhow::Result<bool> {
    match v {
        "true" | "on" | "yes" | "1" => Ok(true),
        "false" | "off" | "no" | "0" => Ok(false),
        _ => bail!("key `{key}`: bad value `{v}` (expected true or false)"),
    }
}

/// Splits `PRUNER[:ARG]:f1:...:fk` into the pruner spec and the last `k` fields.
pub(super) fn pruner_and_fields<'a>(
    key: &str,
    v: &'a str,
    k: usize,
) -> anyhow::Result<(PrunerName, Vec<&'a str>)> {
    let parts: Vec<&str> = v.split(':').collect();
    if parts.len() < k + 1 || parts[0].is_empty() {
        bail!(
            "key `{key}`: bad value `{v}` (expected PRUNER[:ARG]{})",
            ":FIELD".repeat(k)
        );
    }
    let split = parts.len() - k;
    Ok((
        pruner_name(key, &parts[..split].join(":"))?,
        parts[split..].to_vec(),
    ))
}

/// A key's pruner name, parsed once here so that the config holds what it names.
pub(super) fn pruner_name(key: &str, text: &str) -> anyhow::Result<PrunerName> {
    text.parse()
        .with_context(|| format!("key `{key}`: pruner `{text}`"))
}

/// `X[@D]`: X of the board's 81 points, from depth D.
pub(super) fn x_at_d(key: &str, text: &str) -> anyhow::Result<(usize, u32)> {
    let (x, d) = text.split_once('@').unwrap_or((text, "0"));
    Ok((
        ranged(key, x, 0, BOARD_POINTS)?,
        ranged(key, d, 0, MAX_PRUNE_DEPTH)?,
    ))
}

/// Checks each field of `value` that a key sets against that key's row: the value's spec
/// text must parse and pass the row's range, as if it had been written in a spec. The
/// values are stored into `scratch`.
pub(super) fn check_ranges<D>(keys: &[Key<D>], value: &D, scratch: &mut D) -> anyhow::Result<()> {
    for key in keys {
        if let Some(text) = (key.get)(value) {
            (key.set)(scratch, key.value.parse(key.name, &text)?)?;
        }
    }
    Ok(())
}

/// [`check_ranges`] for a UCT config.
pub(super) fn check_uct_ranges(c: &UctConfig) -> anyhow::Result<()> {
    let mut scratch = UctDraft::from(UctConfig::default());
    check_ranges(UCT_KEYS, &UctDraft::from(c.clone()), &mut scratch)
}
