//! A TOML table shared by two structs: a job's config type (the keys of its rules, read by
//! the type's own strict reader) and the few keys the file that holds it adds beside them
//! (`games`, `jobs`, where training runs). An experiment's `[match]`, the loop's `[selfplay]`
//! and its `[train]` each fill a job's config this way.
//!
//! Why not `#[serde(flatten)]`: serde refuses `deny_unknown_fields` beside it (so a misspelt
//! key would pass unseen), and it buffers the table, so a bad value is reported at the
//! table's line without its key. Here each key of the job's type goes, as it comes, to that
//! type's derived reader, inside the TOML key's own deserializer (an error names its line);
//! the file's own keys are set aside as values and read into their struct after; a key of
//! neither is refused with the list of both.

use serde::Deserializer;
use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, MapAccess, Visitor};

/// The field names of a struct as its derived `Deserialize` reads them (after `rename`), in
/// declaration order. Taken from the derive itself, so the list cannot drift from the struct.
///
/// # Panics
/// If `T` is not read as a struct (a map or a struct with `#[serde(flatten)]` fields).
pub fn field_names<T: DeserializeOwned>() -> &'static [&'static str] {
    let mut names = None;
    // The grabber answers every request with an error once it has seen the field list.
    let _ = T::deserialize(FieldGrabber(&mut names));
    names.expect("field_names: the type is not deserialized as a struct")
}

/// A deserializer that records the field list `deserialize_struct` is given and reads
/// nothing.
struct FieldGrabber<'a>(&'a mut Option<&'static [&'static str]>);

impl<'de> Deserializer<'de> for FieldGrabber<'_> {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = Some(fields);
        Err(de::Error::custom("field names taken"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

/// Reads a table into `(Own, Job)`: the keys named by `Own`'s fields are set aside and read
/// into `Own` after; every other key goes to `Job`'s reader at its line. `what` names the
/// table in the "expected" of an error (`the [train] table`).
pub fn deserialize_split<'de, D, Own, Job>(
    deserializer: D,
    what: &'static str,
) -> Result<(Own, Job), D::Error>
where
    D: Deserializer<'de>,
    Own: DeserializeOwned,
    Job: DeserializeOwned,
{
    deserializer.deserialize_map(SplitVisitor::<Own, Job> {
        what,
        types: std::marker::PhantomData,
    })
}

struct SplitVisitor<Own, Job> {
    what: &'static str,
    types: std::marker::PhantomData<(Own, Job)>,
}

impl<'de, Own: DeserializeOwned, Job: DeserializeOwned> Visitor<'de> for SplitVisitor<Own, Job> {
    type Value = (Own, Job);

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(self.what)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(Own, Job), A::Error> {
        let own_keys = field_names::<Own>();
        let job_keys = field_names::<Job>();
        let mut keys = SplitKeys {
            map,
            own_keys,
            all_keys: own_keys.iter().chain(job_keys).copied().collect(),
            own: toml::Table::new(),
        };
        let job = Job::deserialize(de::value::MapAccessDeserializer::new(&mut keys))?;
        let own = toml::Value::Table(keys.own)
            .try_into::<Own>()
            .map_err(de::Error::custom)?;
        Ok((own, job))
    }
}

/// The table as the job's reader sees it: its keys less the file's own, which are taken
/// into `own` on the way.
struct SplitKeys<A> {
    map: A,
    own_keys: &'static [&'static str],
    all_keys: Vec<&'static str>,
    own: toml::Table,
}

/// A key of the table: the job's (read by its reader's seed) or the file's own.
enum Key<T> {
    Job(T),
    Own(&'static str),
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for SplitKeys<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        // The seed is used by the first key of the job's only; the file's own keys leave it.
        let mut seed = Some(seed);
        loop {
            let key = KeySeed {
                seed: &mut seed,
                own_keys: self.own_keys,
                all_keys: &self.all_keys,
            };
            match self.map.next_key_seed(key)? {
                None => return Ok(None),
                Some(Key::Job(key)) => return Ok(Some(key)),
                Some(Key::Own(name)) => {
                    let value: toml::Value = self.map.next_value()?;
                    self.own.insert(name.to_string(), value);
                }
            }
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}

/// Reads one key: one of the file's own, or a key of the job's handed to its reader's seed
/// inside the TOML key's own deserializer (so an unknown key is reported at its line).
struct KeySeed<'a, K> {
    seed: &'a mut Option<K>,
    own_keys: &'static [&'static str],
    all_keys: &'a [&'static str],
}

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for KeySeed<'_, K> {
    type Value = Key<K::Value>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de, K: DeserializeSeed<'de>> Visitor<'de> for KeySeed<'_, K> {
    type Value = Key<K::Value>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a key of the table")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
        if let Some(own) = self.own_keys.iter().find(|k| **k == key) {
            return Ok(Key::Own(own));
        }
        // Refused here, not by the job's reader, so the error lists every key.
        if !self.all_keys.contains(&key) {
            let list: Vec<String> = self.all_keys.iter().map(|k| format!("`{k}`")).collect();
            return Err(E::custom(format!(
                "unknown field `{key}`, expected one of {}",
                list.join(", ")
            )));
        }
        let seed = self.seed.take().expect("one job key per seed");
        seed.deserialize(key.into_deserializer()).map(Key::Job)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    struct Rules {
        komi: f32,
        #[serde(rename = "max_moves")]
        cap: u32,
    }

    impl Default for Rules {
        fn default() -> Self {
            Rules { komi: 6.5, cap: 9 }
        }
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    struct Own {
        games: u32,
    }

    impl Default for Own {
        fn default() -> Self {
            Own { games: 100 }
        }
    }

    #[derive(Debug, PartialEq)]
    struct Section(Own, Rules);

    impl<'de> Deserialize<'de> for Section {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let (own, rules) = deserialize_split(d, "a section")?;
            Ok(Section(own, rules))
        }
    }

    #[test]
    fn field_names_are_the_derives_after_renames() {
        assert_eq!(field_names::<Rules>(), ["komi", "max_moves"]);
        assert_eq!(field_names::<Own>(), ["games"]);
    }

    #[test]
    fn a_table_splits_between_the_file_and_the_job() {
        let s: Section = toml::from_str("games = 3\nmax_moves = 20\n").unwrap();
        assert_eq!(s, Section(Own { games: 3 }, Rules { komi: 6.5, cap: 20 }));
        let s: Section = toml::from_str("").unwrap();
        assert_eq!(s, Section(Own::default(), Rules::default()));
    }

    #[test]
    fn a_key_of_neither_is_refused_at_its_line_with_both_lists() {
        let e = toml::from_str::<Section>("games = 3\nkomy = 7\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("line 2")
                && e.contains("`komy`")
                && e.contains("`games`")
                && e.contains("`max_moves`"),
            "{e}"
        );
        // A job key's bad value is reported at its own line too.
        let e = toml::from_str::<Section>("games = 3\n\nkomi = \"x\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 3"), "{e}");
        // The file's own key with a bad value is named.
        let e = toml::from_str::<Section>("games = \"x\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("games"), "{e}");
    }
}
