//! The checksum akushu records of weights, opening suites and a teacher's files: FNV-1a
//! (64-bit) of the bytes and their length, written `fnv1a64:HEX bytes:N`. It catches
//! flipped bytes and tells two files apart (match folders, model configs and label runs
//! record it); it is not meant to resist deliberate forgery. One type, so a recorded
//! checksum is parsed once where it is read and compared as a value, never as text.

use std::fmt;
use std::str::FromStr;

/// FNV-1a (64-bit) and the length of some bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Checksum {
    hash: u64,
    len: u64,
}

impl Checksum {
    /// The checksum of `bytes`.
    pub fn of(bytes: &[u8]) -> Checksum {
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        Checksum {
            hash: h,
            len: bytes.len() as u64,
        }
    }

    /// The hash as 16 hex digits: what tells two files of one size apart.
    pub fn hash_hex(self) -> String {
        format!("{:016x}", self.hash)
    }
}

impl fmt::Display for Checksum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "fnv1a64:{:016x} bytes:{}", self.hash, self.len)
    }
}

impl FromStr for Checksum {
    type Err = String;
    /// `fnv1a64:HEX bytes:N` exactly as [`Display`](fmt::Display) writes it (16 lowercase
    /// hex digits), surrounding whitespace aside.
    fn from_str(text: &str) -> Result<Checksum, String> {
        let text = text.trim();
        let bad = || format!("`{text}` is not a checksum (fnv1a64:<16 hex digits> bytes:<N>)");
        let (hash, len) = text
            .strip_prefix("fnv1a64:")
            .and_then(|rest| rest.split_once(" bytes:"))
            .ok_or_else(bad)?;
        if hash.len() != 16
            || !hash
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return Err(bad());
        }
        let hash = u64::from_str_radix(hash, 16).map_err(|_| bad())?;
        if len.is_empty() || !len.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let len = len.parse().map_err(|_| bad())?;
        Ok(Checksum { hash, len })
    }
}

crate::serde_as_text!(Checksum);

#[cfg(test)]
mod tests {
    use super::*;

    /// The text form reads back to the same value, matches FNV-1a's published vectors, and
    /// anything else is refused.
    #[test]
    fn a_checksum_reads_back_and_a_malformed_one_is_refused() {
        // FNV-1a 64 of "" and of "a" (the reference values).
        assert_eq!(
            Checksum::of(b"").to_string(),
            "fnv1a64:cbf29ce484222325 bytes:0"
        );
        assert_eq!(Checksum::of(b"a").hash_hex(), "af63dc4c8601ec8c");
        let c = Checksum::of(b"weights");
        assert_eq!(c.to_string().parse::<Checksum>(), Ok(c));
        assert_eq!(format!(" {c}\n").parse::<Checksum>(), Ok(c));
        for bad in [
            "",
            "c",
            "fnv1a64:0123 bytes:4",
            "fnv1a64:0123456789ABCDEF bytes:4",
            "fnv1a64:0123456789abcdef bytes:",
            "fnv1a64:0123456789abcdef bytes:-1",
            "sha256:0123456789abcdef bytes:4",
        ] {
            assert!(bad.parse::<Checksum>().is_err(), "{bad:?}");
        }
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(json, format!("\"{c}\""));
        assert_eq!(serde_json::from_str::<Checksum>(&json).unwrap(), c);
    }
}
