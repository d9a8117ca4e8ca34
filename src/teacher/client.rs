//! A teacher's process: any program that speaks KataGo's JSON analysis protocol on
//! stdin/stdout (`katago analysis -model NET -config CFG`, `akushu analysis`).
//!
//! Queries go out through a writer thread and answers come back through a reader thread,
//! so a teacher that stops reading or stops answering never blocks the caller: it waits for
//! an answer at most a given time, and a teacher that died or went silent is reported with
//! its exit status and the last lines it wrote to stderr (KataGo explains a bad config
//! there and nowhere else).

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, bail};
use serde_json::Value;

/// Lines of the teacher's stderr kept for error messages.
const STDERR_LINES: usize = 12;
/// Bytes of one stderr line kept (the rest of a longer line is read and dropped).
const STDERR_LINE_MAX: usize = 1000;
/// Longest answer line read, in bytes: a KataGo answer for 9x9 with every option is well
/// under 1 MiB, and a teacher that never ends a line must not fill the memory.
pub const MAX_ANSWER: usize = 16 << 20;

/// One line the teacher wrote on stdout, as its reader thread hands it over.
enum Answer {
    Line(String),
    /// Not UTF-8: the line lossily decoded, for the message.
    NotUtf8(String),
    /// Over [`MAX_ANSWER`] bytes without a line end: reading stops there.
    TooLong,
}

/// A running teacher.
pub struct Teacher {
    command: String,
    child: Child,
    /// Query lines for the writer thread; dropped to close the teacher's stdin.
    queries: Option<Sender<String>>,
    answers: Receiver<std::io::Result<Answer>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// The stderr reader, finished once the teacher's stderr is closed.
    stderr_reader: JoinHandle<()>,
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
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("exec {command}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("starting teacher `{command}`"))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let stderr = child.stderr.take().expect("piped");
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
        let (atx, arx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut bytes = Vec::new();
                let line = match (&mut r)
                    .take(MAX_ANSWER as u64 + 1)
                    .read_until(b'\n', &mut bytes)
                {
                    Ok(0) => return,
                    Err(e) => Err(e),
                    Ok(_) if bytes.len() > MAX_ANSWER => Ok(Answer::TooLong),
                    Ok(_) => {
                        let end = bytes.len() - usize::from(bytes.ends_with(b"\n"));
                        bytes.truncate(end);
                        Ok(match String::from_utf8(bytes) {
                            Ok(l) => Answer::Line(l),
                            Err(e) => {
                                Answer::NotUtf8(String::from_utf8_lossy(e.as_bytes()).into_owned())
                            }
                        })
                    }
                };
                let stop = matches!(line, Err(_) | Ok(Answer::TooLong));
                if atx.send(line).is_err() || stop {
                    return;
                }
            }
        });
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let keep = tail.clone();
        // stderr is drained to its end whatever it holds: a reader that stopped (at bytes
        // that are not UTF-8, say) would leave the teacher blocked on a full pipe, or killed
        // by SIGPIPE at its next log line.
        let stderr_reader = std::thread::spawn(move || {
            let mut r = BufReader::new(stderr);
            let mut line = Vec::new();
            loop {
                let mut chunk = Vec::new();
                match (&mut r)
                    .take(STDERR_LINE_MAX as u64)
                    .read_until(b'\n', &mut chunk)
                {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                let ended = chunk.ends_with(b"\n");
                let room = STDERR_LINE_MAX.saturating_sub(line.len());
                line.extend_from_slice(&chunk[..chunk.len().min(room)]);
                if ended {
                    push_line(&keep, &mut line);
                }
            }
            if !line.is_empty() {
                push_line(&keep, &mut line);
            }
        });
        Ok(Teacher {
            command: command.to_string(),
            child,
            queries: Some(qtx),
            answers: arx,
            stderr: tail,
            stderr_reader,
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
            Ok(Ok(Answer::Line(line))) => line,
            Ok(Ok(Answer::NotUtf8(line))) => bail!(
                "teacher `{}` answered a line that is not UTF-8: {:?}",
                self.command,
                shorten(&line)
            ),
            Ok(Ok(Answer::TooLong)) => bail!(
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
                if self.stderr_reader.is_finished() {
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
        let t = self.stderr.lock().expect("stderr tail");
        if t.is_empty() {
            String::new()
        } else {
            let lines: Vec<&str> = t.iter().map(String::as_str).collect();
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

/// Keeps `line` (its line end dropped, bytes that are not UTF-8 replaced) as the newest of
/// the last [`STDERR_LINES`] lines, and empties it.
fn push_line(tail: &Mutex<VecDeque<String>>, line: &mut Vec<u8>) {
    let text = String::from_utf8_lossy(line);
    let text = text.trim_end_matches(['\n', '\r']).to_string();
    line.clear();
    let mut t = tail.lock().expect("stderr tail");
    if t.len() == STDERR_LINES {
        t.pop_front();
    }
    t.push_back(text);
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
