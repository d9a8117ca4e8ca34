//! Bytes to text before parsing: SGF files carry their encoding in `CA[...]`, and many old
//! files lie about it or omit it.
//!
//! The structure (brackets, escapes, property names) is ASCII, and the SGF specification's
//! default encoding is ISO-8859-1, which maps byte to character one for one: decoded so, a
//! file keeps exactly the structure its bytes have. A multi-byte decoding can change it: a
//! Latin-1 `ø` (0xF8) read as Shift_JIS is a lead byte that swallows the `]` after it, and
//! the name then swallows the result (`PB[Jørgen]PW[Ærø]RE[B+R]` loses `RE`). So:
//! - a declared `CA` is honoured when the bytes decode under it (Shift_JIS names whose trail
//!   byte is `\` or `]` need it);
//! - otherwise the bytes are read as UTF-8 when they are valid UTF-8 (most files), and as
//!   ISO-8859-1 (the default) unless a legacy multi-byte encoding decodes them with exactly
//!   the structure their bytes have (Japanese, Chinese and Korean files without `CA`).

use encoding_rs::{EUC_KR, Encoding, GB18030, SHIFT_JIS, UTF_8, WINDOWS_1252};

/// The decoded text of one record and how it was obtained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub text: String,
    /// The encoding that was used.
    pub encoding: &'static str,
    /// True when the declared encoding did not decode the bytes cleanly and none of the
    /// likely ones kept the structure: text fields may read wrongly (the structure and the
    /// moves, being ASCII, do not).
    pub lossy: bool,
}

/// Legacy multi-byte encodings tried, in order, for bytes that are not UTF-8 and declare
/// nothing that decodes them; each must keep the bytes' structure.
const LEGACY: [&Encoding; 3] = [SHIFT_JIS, GB18030, EUC_KR];

/// The SGF structure of `text`: property identifiers, value brackets and node and tree
/// marks, with value contents (escapes honoured) left out. Two decodings of one file that
/// give the same structure differ only inside values.
fn structure(text: &str) -> Vec<char> {
    let mut out = Vec::new();
    let mut in_value = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_value {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == ']' {
                in_value = false;
                out.push(']');
            }
        } else if c == '[' {
            in_value = true;
            out.push('[');
        } else if matches!(c, '(' | ')' | ';') || c.is_ascii_uppercase() {
            out.push(c);
        }
    }
    out
}

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
    let clean = |enc: &'static Encoding| {
        enc.decode_without_bom_handling_and_without_replacement(bytes)
            .map(|text| Decoded {
                text: text.into_owned(),
                encoding: enc.name(),
                lossy: false,
            })
    };
    let declared = declared_charset(bytes).and_then(|l| Encoding::for_label(l.as_bytes()));
    if let Some(d) = declared.and_then(clean) {
        return d;
    }
    if let Some(d) = clean(UTF_8) {
        return d;
    }
    // ISO-8859-1 as browsers and encoding_rs read it (windows-1252): every byte one
    // character, so this text has the bytes' own structure.
    let (latin, _) = WINDOWS_1252.decode_without_bom_handling(bytes);
    let shape = structure(&latin);
    if let Some(d) = LEGACY
        .into_iter()
        .filter_map(clean)
        .find(|d| structure(&d.text) == shape)
    {
        return d;
    }
    Decoded {
        text: latin.into_owned(),
        encoding: WINDOWS_1252.name(),
        // The default encoding, not a guess, unless the file declared another one.
        lossy: declared.is_some_and(|d| d != WINDOWS_1252 && d != UTF_8),
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
        // Without CA the default encoding reads the bytes as they are: 0x5C escapes the `]`
        // (the spec's reading; a file that needs Shift_JIS there must say so).
        let d = decode(&bytes[15..]);
        assert_eq!(d.encoding, "windows-1252");
        // A Shift_JIS name without such a trail byte keeps the structure, so it is read
        // as Shift_JIS: "日本" is 0x93 0xFA 0x96 0x7B.
        let d = decode(b"(;SZ[9]PW[\x93\xFA\x96\x7B]RE[B+R];B[ee])");
        assert_eq!(d.encoding, "Shift_JIS");
        assert!(d.text.contains("PW[日本]RE[B+R]"), "{}", d.text);
    }

    /// Latin-1 names without `CA` (the spec's default) keep the result and the first move.
    #[test]
    fn latin1_without_charset_keeps_the_tree() {
        let d = decode(b"(;SZ[9]PB[J\xF8rgen]PW[\xC6r\xF8]RE[B+R];B[ee])");
        assert_eq!(d.text, "(;SZ[9]PB[Jørgen]PW[Ærø]RE[B+R];B[ee])");
        assert!(!d.lossy);
        let d = decode(b"(;SZ[9]PW[\xC6r\xF8];B[ee];W[cc])");
        assert!(d.text.ends_with("PW[Ærø];B[ee];W[cc])"), "{}", d.text);
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
