//! Bytes to text before parsing: SGF files carry their encoding in `CA[...]`, and many old
//! files lie about it or omit it.
//!
//! The moves are ASCII in every encoding that matters, but a wrong decode can still lose
//! them: Shift_JIS uses `0x5C` (`\`, SGF's escape) as a trail byte, so a lossy UTF-8 decode
//! of a Japanese name escapes the closing `]` and the name swallows the next properties
//! (`PW[...]RE[B+R]` loses the result). So the text is decoded strictly with the declared
//! encoding, and when that fails (or nothing is declared and the bytes are not UTF-8), with
//! a short list of likely encodings; only the last resort is lossy.

use encoding_rs::{EUC_KR, Encoding, GB18030, SHIFT_JIS, UTF_8, WINDOWS_1252};

/// The decoded text of one record and how it was obtained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub text: String,
    /// The encoding that was used.
    pub encoding: &'static str,
    /// True when no encoding decoded the bytes cleanly: text fields may be garbled (the
    /// moves, being ASCII, are not).
    pub lossy: bool,
}

/// Encodings tried, in order, when the declared one fails or none is declared.
const FALLBACKS: [&Encoding; 4] = [UTF_8, SHIFT_JIS, GB18030, EUC_KR];

/// The value of the first `CA[...]` property, found on the raw bytes (it is ASCII).
pub fn declared_charset(bytes: &[u8]) -> Option<&str> {
    let mut i = 0;
    while i + 3 <= bytes.len() {
        let at = bytes[i..].windows(3).position(|w| w == b"CA[")? + i;
        // `CA` must be a whole property identifier, not the tail of e.g. `PCA[`.
        let standalone = at == 0 || !bytes[at - 1].is_ascii_uppercase();
        let start = at + 3;
        if standalone {
            let len = bytes[start..].iter().position(|&b| b == b']')?;
            return std::str::from_utf8(&bytes[start..start + len])
                .ok()
                .map(str::trim);
        }
        i = start;
    }
    None
}

/// Decodes `bytes` honouring `CA`, falling back as the module doc explains.
pub fn decode(bytes: &[u8]) -> Decoded {
    // Editors on Windows start UTF-8 files with a byte-order mark; it is not SGF text.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let declared = declared_charset(bytes).and_then(|l| Encoding::for_label(l.as_bytes()));
    let candidates = declared.into_iter().chain(FALLBACKS);
    for enc in candidates {
        if let Some(text) = enc.decode_without_bom_handling_and_without_replacement(bytes) {
            return Decoded {
                text: text.into_owned(),
                encoding: enc.name(),
                lossy: false,
            };
        }
    }
    // windows-1252 maps every byte, so the structure (all ASCII) survives intact.
    let (text, _) = WINDOWS_1252.decode_without_bom_handling(bytes);
    Decoded {
        text: text.into_owned(),
        encoding: WINDOWS_1252.name(),
        lossy: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_charset() {
        assert_eq!(
            declared_charset(b"(;FF[4]CA[ Shift_JIS ]SZ[9])"),
            Some("Shift_JIS")
        );
        assert_eq!(declared_charset(b"(;PCA[x]SZ[9])"), None);
        assert_eq!(declared_charset(b"(;SZ[9])"), None);
    }

    #[test]
    fn shift_jis_name_keeps_the_result() {
        // "表" is 0x95 0x5C in Shift_JIS: the trail byte is a backslash.
        let mut bytes = b"(;CA[Shift_JIS]SZ[9]PW[".to_vec();
        bytes.extend_from_slice(&[0x95, 0x5C]);
        bytes.extend_from_slice(b"]RE[B+R];B[ee])");
        let d = decode(&bytes);
        assert!(!d.lossy);
        assert!(d.text.contains("PW[表]RE[B+R]"), "{}", d.text);
        // Without CA the fallback list still finds Shift_JIS.
        let d = decode(&bytes[15..]);
        assert_eq!(d.encoding, "Shift_JIS");
    }

    #[test]
    fn byte_order_mark_is_dropped() {
        let d = decode(b"\xEF\xBB\xBF(;SZ[9];B[ee])");
        assert_eq!(d.text, "(;SZ[9];B[ee])");
        assert!(!d.lossy);
    }

    #[test]
    fn wrong_declaration_falls_back() {
        // Declared UTF-8 but Latin-1 bytes: the strict UTF-8 decode fails and a fallback
        // decodes the rest without touching the ASCII structure.
        let mut bytes = b"(;CA[UTF-8]PB[".to_vec();
        bytes.push(0xDC);
        bytes.extend_from_slice(b"nal]RE[W+2.5];B[ee])");
        let d = decode(&bytes);
        assert_ne!(d.encoding, "UTF-8");
        assert!(d.text.contains("nal]RE[W+2.5];B[ee])"), "{}", d.text);
    }
}
