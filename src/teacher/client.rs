//! A teacher's process: any program that speaks KataGo's JSON analysis protocol on
//! stdin/stdout (`katago analysis -model NET -config CFG`, `akushu analysis`).
//!
//! Queries go out through a writer thread and answers come back through a reader thread,
//! so a teacher that stops reading or stops answering never blocks the caller: it waits for
//! an answer at most a given time, and a teacher that died or went silent is reported with
//! its exit status and the last lines it wrote to stderr (KataGo explains a bad config
//! there and nowhere else).

use std::io::{BufWriter, Write};
use std::process::{Child, Command};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::Duration;

use anyhow::{Context, bail};
use serde_json::Value;

use crate::util::child::{Limits, LineChild, Piece, StderrTail};

/// Lines of the teacher's stderr kept for error messages.
const STDERR_LINES: usize = 12;
/// Bytes of one stderr line kept (the rest of a longer line is read and dropped).
const STDERR_LINE_MAX: usize = 1000;
/// Longest answer line read, in bytes: a KataGo answer for 9x9 with every option is well
/// under 1 MiB, and a teacher that never ends a line must not fill the memory.
pub const MAX_ANSWER: usize = 16 << 20;

/// A running teacher.
pub struct Teacher {
    command: String,
    child: Child,
    /// Query lines for the writer thread; dropped to close the teacher's stdin.
    queries: Option<Sender<String>>,
    answers: Receiver<std::io::Result<Piece>>,
    /// The last lines of the teacher's stderr.
    stderr: StderrTail,
}

/// What the teacher says it is (`query_version`, `query_models` where it answers one).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Identity {
    /// `version` of the `query_version` answer (KataGo's `1.17.2`, `akushu 0.1.0`).
    pub version: String,
    /// `git_hash` of that answer, where given.
    pub git_hash: String,
    /// The networks `query_models` names (`name` of each), empty where it is not answered.
    pub models: Vec<String>,
}

impl Teacher {
    /// Starts `command` through `sh -c` (so it may hold quotes and variables).
    pub fn start(command: &str) -> anyhow::Result<Teacher> {
        // `sh -c "exec "` starts nothing and ends at once: say what is wrong instead.
        if command.trim().is_empty() {
            bail!(
                "the teacher command is empty: give a program speaking KataGo's JSON analysis \
                 protocol (`katago analysis -model NET -config CFG`, `akushu analysis`)"
            );
        }
        let LineChild {
            child,
            stdin,
            lines,
            stderr,
        } = LineChild::spawn(
            Command::new("sh").arg("-c").arg(format!("exec {command}")),
            Limits {
                // The line end fits within the cap; a line longer than MAX_ANSWER is cut.
                max_line: MAX_ANSWER + 1,
                stop_at_cut: true,
                stderr_lines: STDERR_LINES,
                stderr_line_max: STDERR_LINE_MAX,
            },
        )
        .with_context(|| format!("starting teacher `{command}`"))?;
        let (qtx, qrx) = channel::<String>();
        std::thread::spawn(move || {
            let mut w = BufWriter::new(stdin);
            for line in qrx {
                // A teacher that died closes the pipe; the reader reports it.
                if w.write_all(line.as_bytes()).is_err() || w.write_all(b"\n").is_err() {
                    return;
                }
                if w.flush().is_err() {
                    return;
                }
            }
        });
        Ok(Teacher {
            command: command.to_string(),
            child,
            queries: Some(qtx),
            answers: lines,
            stderr,
        })
    }

    /// The command the teacher was started with.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// Sends one query (a JSON object on one line).
    pub fn send(&mut self, query: &Value) -> anyhow::Result<()> {
        let line = query.to_string();
        let sent = self.queries.as_ref().is_some_and(|q| q.send(line).is_ok());
        if !sent {
            bail!("{}", self.gone("its input is closed"));
        }
        Ok(())
    }

    /// The next answer line, parsed; an error when the teacher ends, writes something that
    /// is not a JSON object, or is silent for `timeout`.
    pub fn recv(&mut self, timeout: Duration) -> anyhow::Result<Value> {
        let line = match self.answers.recv_timeout(timeout) {
            Ok(Ok(Piece::Line(bytes))) => match String::from_utf8(bytes) {
                Ok(line) => line,
                Err(e) => bail!(
                    "teacher `{}` answered a line that is not UTF-8: {:?}",
                    self.command,
                    shorten(&String::from_utf8_lossy(e.as_bytes()))
                ),
            },
            Ok(Ok(Piece::Cut(_))) => bail!(
                "teacher `{}` answered a line longer than {} MiB without its end: no answer \
                 is that long",
                self.command,
                MAX_ANSWER >> 20
            ),
            Ok(Err(e)) => bail!("{}", self.gone(&format!("reading its answers failed: {e}"))),
            Err(RecvTimeoutError::Disconnected) => bail!("{}", self.gone("it closed its output")),
            Err(RecvTimeoutError::Timeout) => bail!(
                "teacher `{}` gave no answer in {} s{}",
                self.command,
                timeout.as_secs_f64(),
                self.stderr_text()
            ),
        };
        match serde_json::from_str::<Value>(&line) {
            Ok(v) if v.is_object() => Ok(v),
            _ => bail!(
                "teacher `{}` answered a line that is not a JSON object: {:?}",
                self.command,
                shorten(&line)
            ),
        }
    }

    /// Asks `query_version` and `query_models` (a teacher that does not know the second
    /// answers it with an error, which leaves the models empty).
    pub fn identity(&mut self, timeout: Duration) -> anyhow::Result<Identity> {
        self.send(&serde_json::json!({"id": "akushu-version", "action": "query_version"}))?;
        let v = self.expect_answer("akushu-version", timeout)?;
        let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        let Some(version) = text(&v, "version") else {
            bail!(
                "teacher `{}` answered query_version without a version: {}",
                self.command,
                shorten(&v.to_string())
            );
        };
        let git_hash = text(&v, "git_hash").unwrap_or_default();
        self.send(&serde_json::json!({"id": "akushu-models", "action": "query_models"}))?;
        let m = self.expect_answer("akushu-models", timeout)?;
        let models = m
            .get("models")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(|x| text(x, "name")).collect())
            .unwrap_or_default();
        Ok(Identity {
            version,
            git_hash,
            models,
        })
    }

    /// The answer to the one query `id` in flight, skipping nothing else: another id is an
    /// error.
    fn expect_answer(&mut self, id: &str, timeout: Duration) -> anyhow::Result<Value> {
        let v = self.recv(timeout)?;
        if v.get("id").and_then(Value::as_str) != Some(id) {
            bail!(
                "teacher `{}` answered {} while akushu waited for {id:?}",
                self.command,
                shorten(&v.to_string())
            );
        }
        Ok(v)
    }

    /// Closes the teacher's input and waits for it to end; kills it after `grace`.
    pub fn close(mut self, grace: Duration) {
        self.queries = None;
        let end = std::time::Instant::now() + grace;
        while std::time::Instant::now() < end {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// What to say of a teacher that stopped: its exit status (waiting briefly for it) and
    /// its last stderr lines.
    fn gone(&mut self, what: &str) -> String {
        let mut status = None;
        for _ in 0..50 {
            if let Ok(Some(s)) = self.child.try_wait() {
                status = Some(s);
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if status.is_some() {
            // Its last words may still be in the pipe: read them before quoting them.
            for _ in 0..50 {
                if self.stderr.finished() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let status = status.map_or("still running".to_string(), |s| s.to_string());
        format!(
            "teacher `{}` stopped answering: {what} ({status}){}",
            self.command,
            self.stderr_text()
        )
    }

    fn stderr_text(&self) -> String {
        let lines = self.stderr.lines();
        if lines.is_empty() {
            String::new()
        } else {
            format!("; its stderr ended with:\n  {}", lines.join("\n  "))
        }
    }
}

impl Drop for Teacher {
    fn drop(&mut self) {
        self.queries = None;
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// A line cut for an error message.
pub fn shorten(text: &str) -> String {
    const MAX: usize = 200;
    if text.len() <= MAX {
        text.to_string()
    } else {
        let mut end = MAX;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}... ({} bytes)", &text[..end], text.len())
    }
}
