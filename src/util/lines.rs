//! Line input from peers that may not behave: a line is read up to a byte limit, so that a
//! peer that never sends a newline cannot fill the memory (the GTP and JSON analysis
//! servers both read this way).

use std::io::{self, BufRead};

/// One line read with [`read_capped_line`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CappedLine {
    /// The line, without its line end.
    Line(String),
    /// Longer than the limit: the rest of it was read and dropped.
    TooLong,
    /// Not UTF-8.
    NotUtf8,
}

/// Reads one line of at most `max` bytes; `None` at the end of input. A longer line is
/// consumed to its end and reported as [`CappedLine::TooLong`]; a read error (input that is
/// a directory, say) is returned for the caller to end on.
pub fn read_capped_line<R: BufRead>(input: &mut R, max: u64) -> io::Result<Option<CappedLine>> {
    let mut bytes = Vec::new();
    if io::Read::take(&mut *input, max + 1).read_until(b'\n', &mut bytes)? == 0 {
        return Ok(None);
    }
    if bytes.len() as u64 > max && bytes.last() != Some(&b'\n') {
        // Drop the rest of the line, then refuse it.
        while !bytes.ends_with(b"\n") {
            bytes.clear();
            if io::Read::take(&mut *input, max).read_until(b'\n', &mut bytes)? == 0 {
                break;
            }
        }
        return Ok(Some(CappedLine::TooLong));
    }
    Ok(Some(match String::from_utf8(bytes) {
        Ok(l) => CappedLine::Line(l.trim_end_matches(['\n', '\r']).to_string()),
        Err(_) => CappedLine::NotUtf8,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_over_the_limit_are_dropped_whole_and_reading_goes_on() {
        let text = format!("short\r\n{}\nnext\n\u{ff}", "x".repeat(100));
        let mut bytes = text.into_bytes();
        bytes.pop();
        bytes.pop();
        bytes.push(0xff);
        let mut input = io::Cursor::new(bytes);
        let mut read = || read_capped_line(&mut input, 10).unwrap();
        assert_eq!(read(), Some(CappedLine::Line("short".into())));
        assert_eq!(read(), Some(CappedLine::TooLong));
        assert_eq!(read(), Some(CappedLine::Line("next".into())));
        assert_eq!(read(), Some(CappedLine::NotUtf8));
        assert_eq!(read(), None);
    }

    #[test]
    fn a_directory_is_a_read_error_not_endless_lines() {
        let dir = std::fs::File::open(".").unwrap();
        let mut input = io::BufReader::new(dir);
        assert!(read_capped_line(&mut input, 10).is_err());
    }
}
