//! Types stored and recorded as the text they are spelled with (engine specs, pruner names,
//! sequential tests): their serde form is that text, so files written before they were
//! parsed types read back unchanged, and one macro writes both impls for all of them.

/// Implements `serde::Serialize` and `serde::Deserialize` for a type with `Display` and
/// `FromStr` as its text: written with `Display`, read with `FromStr` (its error becomes
/// the deserializer's, which names the file's line).
#[macro_export]
macro_rules! serde_as_text {
    ($t:ty) => {
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = <String as serde::Deserialize>::deserialize(d)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}
