//! A child program spoken to by lines: the one skeleton under the GTP client (outside
//! engines) and the teacher client (KataGo's analysis protocol).
//!
//! Its stdout comes back line by line through a reader thread, so a caller can wait for
//! an answer with a timeout and a hung program never hangs akushu; a line without end
//! arrives cut at a length cap instead of filling the memory. Its stderr is drained to the
//! end by a second thread (a reader that stopped would leave the program blocked on a full
//! pipe, or killed by SIGPIPE at its next log line), which keeps the last lines for error
//! messages. How the program is started (through `sh -c`, or found on the PATH) is the
//! caller's: it hands over the [`Command`].

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// What the stdout reader hands over: a line (its end dropped) or the first `max` bytes
/// of one that has no end within them.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    Line(Vec<u8>),
    Cut(Vec<u8>),
}

/// The caps of one child's reading.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Longest stdout line handed over whole, in bytes.
    pub max_line: usize,
    /// After a cut line: go on reading (the caller counts the pieces) or stop there.
    pub stop_at_cut: bool,
    /// Stderr lines kept.
    pub stderr_lines: usize,
    /// Bytes of one stderr line kept (the rest of a longer line is read and dropped).
    pub stderr_line_max: usize,
}

/// A started child with its stdin, its stdout's lines and its stderr's last lines.
pub struct LineChild {
    pub child: Child,
    /// The child's input, for the caller to write (or hand to a writer thread).
    pub stdin: ChildStdin,
    /// Stdout's pieces in order; an error, or the channel's end, when stdout ends.
    pub lines: Receiver<std::io::Result<Piece>>,
    pub stderr: StderrTail,
}

impl LineChild {
    /// Starts `command` with its three streams piped, and the reader threads.
    pub fn spawn(command: &mut Command, limits: Limits) -> std::io::Result<LineChild> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let stdin = child.stdin.take().expect("stdin was piped");
        let stdout = child.stdout.take().expect("stdout was piped");
        let stderr = child.stderr.take().expect("stderr was piped");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let Some(piece) = read_piece(&mut reader, limits.max_line).transpose() else {
                    return;
                };
                let stop = match &piece {
                    Ok(Piece::Cut(_)) => limits.stop_at_cut,
                    Ok(Piece::Line(_)) => false,
                    Err(_) => true,
                };
                if tx.send(piece).is_err() || stop {
                    return;
                }
            }
        });
        let stderr = StderrTail::drain(stderr, limits.stderr_lines, limits.stderr_line_max);
        Ok(LineChild {
            child,
            stdin,
            lines,
            stderr,
        })
    }
}

/// The next line of `r` (bytes, not `lines()`: bytes that are not UTF-8 are the caller's to
/// judge), at most `max` bytes of it; `None` at the end.
fn read_piece(r: &mut impl BufRead, max: usize) -> std::io::Result<Option<Piece>> {
    let mut bytes = Vec::new();
    if r.take(max as u64).read_until(b'\n', &mut bytes)? == 0 {
        return Ok(None);
    }
    if bytes.ends_with(b"\n") {
        bytes.pop();
        return Ok(Some(Piece::Line(bytes)));
    }
    // No end within `max` bytes: the cap, or the stream's last line.
    if bytes.len() == max {
        Ok(Some(Piece::Cut(bytes)))
    } else {
        Ok(Some(Piece::Line(bytes)))
    }
}

/// The last lines a child wrote to stderr, kept by a thread that reads it to its end.
pub struct StderrTail {
    lines: Arc<Mutex<VecDeque<String>>>,
    reader: JoinHandle<()>,
}

impl StderrTail {
    /// Reads `stderr` to its end, keeping its last `keep` lines of at most `line_max`
    /// bytes each (line ends dropped, bytes that are not UTF-8 replaced).
    pub fn drain(stderr: impl Read + Send + 'static, keep: usize, line_max: usize) -> StderrTail {
        let lines = Arc::new(Mutex::new(VecDeque::new()));
        let tail = lines.clone();
        let reader = std::thread::spawn(move || {
            let mut r = BufReader::new(stderr);
            let mut line = Vec::new();
            loop {
                let mut chunk = Vec::new();
                match (&mut r).take(line_max as u64).read_until(b'\n', &mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                let ended = chunk.ends_with(b"\n");
                let room = line_max.saturating_sub(line.len());
                line.extend_from_slice(&chunk[..chunk.len().min(room)]);
                if ended {
                    push_line(&tail, &mut line, keep);
                }
            }
            if !line.is_empty() {
                push_line(&tail, &mut line, keep);
            }
        });
        StderrTail { lines, reader }
    }

    /// The lines kept so far, oldest first.
    pub fn lines(&self) -> Vec<String> {
        let t = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        t.iter().cloned().collect()
    }

    /// Whether stderr has ended and every line of it is in.
    pub fn finished(&self) -> bool {
        self.reader.is_finished()
    }
}

/// Keeps `line` (its line end dropped, bytes that are not UTF-8 replaced) as the newest of
/// the last `keep` lines, and empties it.
fn push_line(tail: &Mutex<VecDeque<String>>, line: &mut Vec<u8>, keep: usize) {
    let text = String::from_utf8_lossy(line);
    let text = text.trim_end_matches(['\n', '\r']).to_string();
    line.clear();
    let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
    if t.len() == keep {
        t.pop_front();
    }
    t.push_back(text);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines come whole up to the cap; past it a line comes cut, and reading goes on or
    /// stops there as asked; the last line counts without its end.
    #[test]
    fn lines_are_cut_at_the_cap() {
        let mut r = BufReader::new(&b"ab\nabcdefg\nxy"[..]);
        assert_eq!(
            read_piece(&mut r, 4).unwrap(),
            Some(Piece::Line(b"ab".to_vec()))
        );
        assert_eq!(
            read_piece(&mut r, 4).unwrap(),
            Some(Piece::Cut(b"abcd".to_vec()))
        );
        assert_eq!(
            read_piece(&mut r, 4).unwrap(),
            Some(Piece::Line(b"efg".to_vec()))
        );
        assert_eq!(
            read_piece(&mut r, 4).unwrap(),
            Some(Piece::Line(b"xy".to_vec()))
        );
        assert_eq!(read_piece(&mut r, 4).unwrap(), None);
    }

    /// Stderr keeps its last lines, each cut at the line cap, and is read to its end.
    #[test]
    fn stderr_keeps_the_last_lines_cut_at_the_cap() {
        let t = StderrTail::drain(&b"one\ntwo\nthree-long-line\nfour"[..], 3, 5);
        while !t.finished() {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(t.lines(), ["two", "three", "four"]);
    }

    /// A child's lines arrive through the channel, its stderr in the tail.
    #[cfg(unix)]
    #[test]
    fn a_child_is_read_by_lines() {
        let limits = Limits {
            max_line: 100,
            stop_at_cut: true,
            stderr_lines: 2,
            stderr_line_max: 100,
        };
        let mut c = LineChild::spawn(
            Command::new("sh").args(["-c", "echo out; echo err >&2"]),
            limits,
        )
        .unwrap();
        let first = c.lines.recv().unwrap().unwrap();
        assert_eq!(first, Piece::Line(b"out".to_vec()));
        assert!(c.lines.recv().is_err(), "stdout ends");
        c.child.wait().unwrap();
        while !c.stderr.finished() {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(c.stderr.lines(), ["err"]);
    }
}
