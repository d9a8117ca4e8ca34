//! Writing SGF: the root every record akushu writes starts with, property escaping and the
//! move nodes (the arena's game files and GTP `printsgf` both write through here).

use crate::rules::{Color, Move, N};

/// The opening of a record: `(;GM[1]FF[4]CA[UTF-8]AP[akushu:VERSION]SZ[9]KM[komi]
/// RU[Tromp-Taylor]`. The caller adds its own root properties, then [`push_moves`] and `)`.
pub fn root(komi: f32) -> String {
    format!(
        "(;GM[1]FF[4]CA[UTF-8]AP[akushu:{}]SZ[{N}]KM[{komi}]RU[Tromp-Taylor]",
        env!("CARGO_PKG_VERSION")
    )
}

/// Escapes a property value (`\` and `]`).
pub fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace(']', "\\]")
}

/// Appends one node per move, twelve to a line.
pub fn push_moves(sgf: &mut String, moves: &[(Color, Move)]) {
    push_moves_noted(sgf, moves, None);
}

/// [`push_moves`] with a comment (`C[...]`) on the node of move `note.0` (0-based).
pub fn push_moves_noted(sgf: &mut String, moves: &[(Color, Move)], note: Option<(usize, &str)>) {
    for (i, (c, m)) in moves.iter().enumerate() {
        if i % 12 == 0 {
            sgf.push('\n');
        }
        sgf.push_str(&format!(";{}[{}]", c.letter(), m.to_sgf()));
        if let Some((at, text)) = note
            && at == i
        {
            sgf.push_str(&format!("C[{}]", escape(text)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_escape_and_moves() {
        let mut sgf = root(6.5);
        assert!(sgf.starts_with("(;GM[1]FF[4]CA[UTF-8]AP[akushu:"), "{sgf}");
        assert!(sgf.ends_with("SZ[9]KM[6.5]RU[Tromp-Taylor]"), "{sgf}");
        assert_eq!(escape(r"a]b\c"), r"a\]b\\c");
        let moves: Vec<(Color, Move)> = (0..13)
            .map(|i| {
                (
                    if i % 2 == 0 {
                        Color::Black
                    } else {
                        Color::White
                    },
                    Move::Pass,
                )
            })
            .collect();
        sgf.clear();
        push_moves(&mut sgf, &moves);
        assert_eq!(sgf.lines().count(), 3, "{sgf:?}"); // a leading newline, 12 + 1 moves
        assert!(sgf.starts_with("\n;B[];W[]"), "{sgf:?}");
    }
}
