//! A teacher's process: any program that speaks KataGo's JSON analysis protocol on
//! stdin/stdout (`katago analysis -model NET -config CFG`, `akushu analysis`).
//!
//! Queries go out through a writer thread and answers come back through a reader thread,
//! so a teacher that stops reading or stops answering never blocks the caller: it waits for
//! an answer at most a given time, and a teacher that died or went silent is reported with
//! its exit status and the last lines it wrote to stderr (KataGo explains a bad config
//! there and nowhere else).

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, bail};
use serde_json::Value;

/// Lines of the teacher's stderr kept for error messages.
const STDERR_LINES: usize = 12;

/// A running teacher.
pub struct Teacher {
    command: String,
    child: Child,
    /// Query lines for the writer thread; dropped to close the teacher's stdin.
    queries: Option<Sender<String>>,
    answers: Receiver<std::io::Result<String>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
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
            for line in BufReader::new(stdout).lines() {
                let stop = line.is_err();
                if atx.send(line).is_err() || stop {
                    return;
                }
            }
        });
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let keep = tail.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { return };
                let mut t = keep.lock().expect("stderr tail");
                if t.len() == STDERR_LINES {
                    t.pop_front();
                }
                t.push_back(line);
            }
        });
        Ok(Teacher {
            command: command.to_string(),
            child,
            queries: Some(qtx),
            answers: arx,
            stderr: tail,
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
            Ok(Ok(line)) => line,
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
