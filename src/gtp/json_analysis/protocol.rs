//! The messages of KataGo's JSON analysis protocol that akushu both writes and reads: the
//! query the labeller sends, and the answer the server writes and the labeller reads. One
//! definition names each field and its type for both sides.
//!
//! Every field is a [`Field`]: absent, a value of its type, or (as read from another
//! program) some other JSON, kept so that the reader's error can show what was there. The
//! fields are declared in the order of their names, so an answer is written with its keys
//! sorted, as `serde_json`'s maps write them.

use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// One field of a message: absent (not written), a value of its type, or other JSON read
/// where the type was expected.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Field<T> {
    #[default]
    Absent,
    Typed(T),
    Other(Value),
}

impl<T> Field<T> {
    /// The value, where the field holds one of its type.
    pub fn typed(&self) -> Option<&T> {
        match self {
            Field::Typed(t) => Some(t),
            _ => None,
        }
    }

    /// The field for a JSON value: `Typed` where it has the type, else `Other`.
    pub fn from_json(v: Value) -> Self
    where
        T: DeserializeOwned,
    {
        match T::deserialize(&v) {
            Ok(t) => Field::Typed(t),
            Err(_) => Field::Other(v),
        }
    }

    /// Whether the field is missing (written: left out).
    pub fn is_absent(&self) -> bool {
        matches!(self, Field::Absent)
    }
}

impl<T> From<T> for Field<T> {
    fn from(t: T) -> Self {
        Field::Typed(t)
    }
}

impl<T: Serialize> Serialize for Field<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Typed(t) => t.serialize(s),
            Field::Other(v) => v.serialize(s),
            Field::Absent => s.serialize_none(),
        }
    }
}

/// Reads any JSON: a value of the field's type becomes `Typed`, anything else `Other` (the
/// reader decides whether that is an error, and names it). A missing key is `Absent`
/// through `#[serde(default)]`.
impl<'de, T: DeserializeOwned> Deserialize<'de> for Field<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Field::from_json(Value::deserialize(d)?))
    }
}

/// The field as JSON text (a string quoted), as an error shows it.
impl<T: Serialize> fmt::Display for Field<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match serde_json::to_string(self) {
            Ok(text) => f.write_str(&text),
            Err(_) => f.write_str("?"),
        }
    }
}

/// A move of a query's `moves` or `initialStones`: the colour (`B`/`W`) and the GTP point.
pub type PlacedMove = [String; 2];

/// `overrideSettings` of a query.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OverrideSettings {
    #[serde(
        rename = "reportAnalysisWinratesAs",
        default,
        skip_serializing_if = "Field::is_absent"
    )]
    pub report_winrates_as: Field<String>,
}

/// A query for one position: the position after `moves` from `initialStones`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Query {
    #[serde(rename = "boardXSize", skip_serializing_if = "Field::is_absent")]
    pub board_x_size: Field<u32>,
    #[serde(rename = "boardYSize", skip_serializing_if = "Field::is_absent")]
    pub board_y_size: Field<u32>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub id: Field<String>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub include_ownership: Field<bool>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub include_policy: Field<bool>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub initial_player: Field<String>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub initial_stones: Field<Vec<PlacedMove>>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub komi: Field<f32>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub max_visits: Field<u64>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub moves: Field<Vec<PlacedMove>>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub override_settings: Field<OverrideSettings>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub rules: Field<String>,
}

/// One candidate move of an answer's `moveInfos`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MoveInfo {
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub lcb: Field<f64>,
    #[serde(rename = "move", skip_serializing_if = "Field::is_absent")]
    pub mv: Field<String>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub order: Field<usize>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub prior: Field<f64>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub pv: Field<Vec<String>>,
    #[serde(rename = "pvVisits", skip_serializing_if = "Field::is_absent")]
    pub pv_visits: Field<Vec<u32>>,
    #[serde(flatten)]
    pub score: Score,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub utility: Field<f64>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub visits: Field<u32>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub winrate: Field<f64>,
}

/// The score fields of a candidate or of the root (points, for the perspective asked).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Score {
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub score_lead: Field<f64>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub score_mean: Field<f64>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub score_stdev: Field<f64>,
}

/// An answer's `rootInfo`: the root's own statistics.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RootInfo {
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub current_player: Field<String>,
    #[serde(flatten)]
    pub score: Score,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub simulations: Field<u64>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub utility: Field<f64>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub visits: Field<u32>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub winrate: Field<f64>,
}

/// One answer line: an analysed turn, a turn answered without results, or an error
/// (`error`, with `field` when one field of the query is wrong) or a warning.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Answer {
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub error: Field<String>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub field: Field<String>,
    /// The query's id (an error echoes whatever the query held there).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub id: Field<String>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub is_during_search: Field<bool>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub move_infos: Field<Vec<MoveInfo>>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub no_results: Field<bool>,
    /// Each point's owner, row by row from the top left.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub ownership: Field<Vec<f64>>,
    /// Each point's move probability then pass's, -1 where a move is illegal.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub policy: Field<Vec<f64>>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub root_info: Field<RootInfo>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub turn_number: Field<u64>,
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub warning: Field<String>,
}

impl Answer {
    /// Reads an answer line's JSON: every field comes through, those of another type as
    /// [`Field::Other`]; only a line that is no JSON object is refused.
    pub fn read(v: &Value) -> Result<Answer, String> {
        if !v.is_object() {
            return Err(format!("{v} is not a JSON object"));
        }
        Answer::deserialize(v).map_err(|e| e.to_string())
    }

    /// Whether this is a partial report with more to come (`isDuringSearch` true).
    pub fn during_search(&self) -> bool {
        self.is_during_search.typed() == Some(&true)
    }

    /// The answer as one line of JSON.
    pub fn line(&self) -> String {
        serde_json::to_string(self).expect("an answer is JSON")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A written answer has its keys in the order of their names, as the `json!` maps that
    /// wrote answers before this type had them: a flattened score included.
    #[test]
    fn an_answer_is_written_with_sorted_keys_and_reads_back() {
        let a = Answer {
            id: "q".to_string().into(),
            is_during_search: false.into(),
            turn_number: 3.into(),
            move_infos: vec![MoveInfo {
                mv: "E5".to_string().into(),
                visits: 7.into(),
                winrate: 0.5.into(),
                pv: vec!["E5".to_string()].into(),
                score: Score {
                    score_lead: 1.5.into(),
                    score_mean: 1.5.into(),
                    score_stdev: 2.0.into(),
                },
                ..MoveInfo::default()
            }]
            .into(),
            root_info: RootInfo {
                current_player: "B".to_string().into(),
                visits: 7.into(),
                winrate: 0.25.into(),
                ..RootInfo::default()
            }
            .into(),
            ..Answer::default()
        };
        let line = a.line();
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(line, v.to_string(), "keys sorted as a JSON map writes them");
        assert_eq!(Answer::read(&v).unwrap(), a);
    }

    /// A field of another type is kept as it was read, so a reader can name it; a missing
    /// one is absent.
    #[test]
    fn a_field_of_another_type_is_kept_as_read() {
        let v: Value =
            serde_json::from_str(r#"{"rootInfo":{"visits":2.5,"winrate":"x"},"id":5}"#).unwrap();
        let a = Answer::read(&v).unwrap();
        let info = a.root_info.typed().unwrap();
        assert_eq!(info.visits, Field::Other(serde_json::json!(2.5)));
        assert_eq!(info.visits.to_string(), "2.5");
        assert_eq!(info.winrate.to_string(), "\"x\"");
        assert_eq!(a.id, Field::Other(serde_json::json!(5)));
        assert!(a.policy.is_absent() && !a.during_search());
        assert!(Answer::read(&serde_json::json!([1])).is_err());
    }
}
