//! A GTP client for external engines (GNU Go, Pachi, KataGo, ...).
//!
//! The engine runs as a child process ([`crate::util::child`], the skeleton it shares with
//! the teacher client): a reader thread forwards its stdout line by line over a channel so
//! that every command can wait with a timeout (a hung engine never hangs the arena), and a
//! second thread keeps the last lines of stderr for error messages. The engine is found on
//! the PATH (and in `/usr/games`) from its split command line, in a process group of its own
//! so that killing it stops what it started; the teacher instead runs through `sh -c`, as its
//! documented commands are shell lines.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use thiserror::Error;

use crate::util::child::{Limits, LineChild, Piece, StderrTail};

/// Why a GTP exchange failed.
#[derive(Debug, Clone, Error, PartialEq)]
pub enum GtpError {
    #[error("cannot start {command:?}: {reason}")]
    Spawn { command: String, reason: String },
    /// This machine could not start or serve the engine (no file descriptors, processes,
    /// threads or memory left): the referee's fault, not the engine's.
    #[error(
        "the referee could not run {command:?}: {reason} (this machine's limit, not the engine's fault)"
    )]
    Resources { command: String, reason: String },
    #[error("engine exited or closed its output during `{command}`{stderr}")]
    Crashed { command: String, stderr: String },
    #[error("no answer to `{command}` within {seconds:.1}s")]
    Timeout { command: String, seconds: f64 },
    #[error("garbage answer to `{command}`: {reply:?}")]
    Garbage { command: String, reply: String },
    #[error("engine refused `{command}`: {message}")]
    Refused { command: String, message: String },
}

/// Whether an OS error is this machine running out of something (descriptors, processes,
/// memory) rather than a fault of the program being started.
pub fn is_resource_error(e: &std::io::Error) -> bool {
    #[cfg(unix)]
    {
        matches!(
            e.raw_os_error(),
            Some(libc::EMFILE | libc::ENFILE | libc::EAGAIN | libc::ENOMEM | libc::ENOSPC)
        )
    }
    #[cfg(not(unix))]
    {
        e.kind() == std::io::ErrorKind::OutOfMemory
    }
}

impl GtpError {
    /// Whether the referee, not the engine, is at fault (see [`GtpError::Resources`]).
    pub fn is_referee_fault(&self) -> bool {
        matches!(self, GtpError::Resources { .. })
    }
}

/// Splits a command line into words: whitespace separates, `'...'` and `"..."` quote.
pub fn split_command_line(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for ch in line.chars() {
        match quote {
            Some(q) if ch == q => quote = None,
            Some(_) => word.push(ch),
            None if ch == '\'' || ch == '"' => {
                quote = Some(ch);
                in_word = true;
            }
            None if ch.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            None => {
                word.push(ch);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return Err(format!("unclosed quote in command line {line:?}"));
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// Finds `program` the way a shell would (a path is taken as is), also looking in
/// `/usr/games` where Debian installs GNU Go.
pub fn find_program(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        let p = PathBuf::from(program);
        return p.is_file().then_some(p);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(std::iter::once(PathBuf::from("/usr/games")))
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// A running GTP engine.
pub struct GtpClient {
    command_line: String,
    child: Child,
    stdin: ChildStdin,
    /// The engine's stdout, line by line ([`LineChild`]).
    lines: Receiver<std::io::Result<Piece>>,
    stderr: StderrTail,
    /// Set once the engine has failed: later commands fail at once.
    dead: Option<GtpError>,
}

/// Longest answer read from an engine, in bytes: an engine that never ends a line or an
/// answer must not fill the memory.
const MAX_ANSWER: usize = 1 << 20;

/// How many stderr lines are kept for error messages.
const STDERR_TAIL: usize = 5;
/// Bytes of one stderr line kept.
const STDERR_LINE_MAX: usize = 4096;

/// How often a wait for an answer looks whether the engine has exited: a process it
/// started may hold its output open, so its end of file never comes.
const EXIT_POLL: Duration = Duration::from_millis(50);

impl GtpClient {
    /// The engine's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Starts the engine given as a command line (`gnugo --mode gtp --level 10`).
    pub fn spawn(command_line: &str) -> Result<GtpClient, GtpError> {
        let spawn_err = |reason: String| GtpError::Spawn {
            command: command_line.to_string(),
            reason,
        };
        let words = split_command_line(command_line).map_err(spawn_err)?;
        let Some((program, args)) = words.split_first() else {
            return Err(spawn_err("empty command line".into()));
        };
        let path = find_program(program).ok_or_else(|| {
            let hint = if Path::new(program).file_name().is_some_and(|n| n == "gnugo") {
                " (install GNU Go with scripts/install-gnugo.sh, i.e. `apt-get install gnugo`)"
            } else {
                ""
            };
            spawn_err(format!(
                "program {program:?} not found on PATH or in /usr/games{hint}"
            ))
        })?;
        let mut command = Command::new(&path);
        // Its own process group: a wrapper script's children are stopped with it.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        command.args(args);
        let limits = Limits {
            // A line without end arrives in pieces of at most MAX_ANSWER bytes, which the
            // answer's own cap counts.
            max_line: MAX_ANSWER,
            stop_at_cut: false,
            stderr_lines: STDERR_TAIL,
            stderr_line_max: STDERR_LINE_MAX,
        };
        let LineChild {
            child,
            stdin,
            lines,
            stderr,
        } = LineChild::spawn(&mut command, limits).map_err(|e| {
            if is_resource_error(&e) {
                GtpError::Resources {
                    command: command_line.to_string(),
                    reason: e.to_string(),
                }
            } else {
                spawn_err(e.to_string())
            }
        })?;
        Ok(GtpClient {
            command_line: command_line.to_string(),
            child,
            stdin,
            lines,
            stderr,
            dead: None,
        })
    }

    /// The command line the engine was started with.
    pub fn command_line(&self) -> &str {
        &self.command_line
    }

    /// Sends one command and waits up to `timeout` for its answer; returns the answer text
    /// after `= `. A `? message` answer is [`GtpError::Refused`] (the engine is still fine);
    /// a crash, a timeout or garbage marks the engine dead.
    pub fn command(&mut self, command: &str, timeout: Duration) -> Result<String, GtpError> {
        if let Some(e) = &self.dead {
            return Err(e.clone());
        }
        let result = self.exchange(command, timeout);
        if let Err(e) = &result
            && !matches!(e, GtpError::Refused { .. })
        {
            self.dead = Some(e.clone());
            self.kill();
        }
        result
    }

    fn exchange(&mut self, command: &str, timeout: Duration) -> Result<String, GtpError> {
        if writeln!(self.stdin, "{command}")
            .and_then(|_| self.stdin.flush())
            .is_err()
        {
            return Err(self.crashed(command));
        }
        // A wait too long to represent as an instant is a wait without end.
        let deadline = Instant::now().checked_add(timeout);
        let mut answer: Vec<String> = Vec::new();
        let mut answer_bytes = 0usize;
        loop {
            let line = loop {
                let left = deadline.map_or(Duration::MAX, |d| {
                    d.saturating_duration_since(Instant::now())
                });
                match self.lines.recv_timeout(left.min(EXIT_POLL)) {
                    // Decoded lossily: bytes that are not UTF-8 reach the protocol check
                    // and are reported as garbage, not as a crash.
                    Ok(Ok(Piece::Line(bytes) | Piece::Cut(bytes))) => {
                        break String::from_utf8_lossy(&bytes).into_owned();
                    }
                    Ok(Err(_)) => return Err(self.crashed(command)),
                    Err(RecvTimeoutError::Timeout) => {
                        // An engine gone is reported by its exit, even when something it
                        // started keeps its output open.
                        if matches!(self.child.try_wait(), Ok(Some(_))) {
                            return Err(self.crashed(command));
                        }
                        if left <= EXIT_POLL {
                            return Err(GtpError::Timeout {
                                command: command.to_string(),
                                seconds: timeout.as_secs_f64(),
                            });
                        }
                    }
                    Err(RecvTimeoutError::Disconnected) => return Err(self.crashed(command)),
                }
            };
            let line = line.trim_end_matches('\r').to_string();
            if answer.is_empty() {
                if line.trim().is_empty() {
                    continue; // blank lines before an answer are allowed
                }
                if !line.starts_with('=') && !line.starts_with('?') {
                    return Err(GtpError::Garbage {
                        command: command.to_string(),
                        reply: line.chars().take(200).collect(),
                    });
                }
                answer_bytes += line.len();
                answer.push(line);
            } else if line.trim().is_empty() {
                break;
            } else {
                answer_bytes += line.len();
                answer.push(line);
            }
            if answer_bytes > MAX_ANSWER {
                return Err(GtpError::Garbage {
                    command: command.to_string(),
                    reply: format!("an answer longer than {MAX_ANSWER} bytes"),
                });
            }
        }
        let first = &answer[0];
        // Strip the status character and an optional command id (`=12 D4`).
        let body = first[1..].trim_start_matches(|c: char| c.is_ascii_digit());
        let mut text = body.trim().to_string();
        for extra in &answer[1..] {
            text.push('\n');
            text.push_str(extra);
        }
        if first.starts_with('?') {
            Err(GtpError::Refused {
                command: command.to_string(),
                message: text,
            })
        } else {
            Ok(text)
        }
    }

    fn crashed(&mut self, command: &str) -> GtpError {
        // Give the stderr thread a moment to collect the dying words.
        std::thread::sleep(Duration::from_millis(20));
        let status = self
            .child
            .try_wait()
            .ok()
            .flatten()
            .map(|s| format!(" ({s})"))
            .unwrap_or_default();
        let tail = self.stderr.lines();
        let stderr = if tail.is_empty() {
            status
        } else {
            format!("{status}; stderr: {}", tail.join(" | "))
        };
        GtpError::Crashed {
            command: command.to_string(),
            stderr,
        }
    }

    /// Stops the engine at once, with every process it started (its process group), even
    /// when the engine itself has exited: what it started would run on, orphaned. (The
    /// group's id is not reused while any of its processes lives.)
    pub fn kill(&mut self) {
        #[cfg(unix)]
        if let Ok(pid) = i32::try_from(self.child.id()) {
            // SAFETY: kill(2) with a negative pid signals the engine's own process group,
            // created at spawn; it touches no memory.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Asks the engine to quit (short grace period), then makes sure it is gone.
    pub fn quit(&mut self) {
        if self.dead.is_none() {
            let _ = self.exchange("quit", Duration::from_millis(500));
        }
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.kill();
    }
}

impl Drop for GtpClient {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_command_lines() {
        assert_eq!(
            split_command_line("gnugo --mode gtp  --level 10").unwrap(),
            vec!["gnugo", "--mode", "gtp", "--level", "10"]
        );
        assert_eq!(
            split_command_line(r#"sh -c 'echo "a b"' x"#).unwrap(),
            vec!["sh", "-c", "echo \"a b\"", "x"]
        );
        assert!(split_command_line("a 'b").is_err());
    }

    /// An engine that exits while a process it started holds its output open is reported
    /// by its exit status, not as an engine that does not answer; and killing it stops that
    /// process too (its process group).
    #[cfg(unix)]
    #[test]
    fn a_dead_engine_is_named_by_its_exit_and_its_children_go_with_it() {
        let dir = std::env::temp_dir().join(format!("akushu-gtp-orphan-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let pidfile = dir.join("child.pid");
        let script = format!(
            "sleep 600 & echo $! > {}; read -r c; exit 3",
            pidfile.display()
        );
        let mut c = GtpClient::spawn(&format!("sh -c '{script}'")).unwrap();
        let e = c.command("name", Duration::from_secs(60)).unwrap_err();
        assert!(
            matches!(e, GtpError::Crashed { .. }) && e.to_string().contains("exit status: 3"),
            "{e}"
        );
        let pid = std::fs::read_to_string(&pidfile).unwrap();
        let stat = format!("/proc/{}/stat", pid.trim());
        // Gone, or a zombie its new parent has not reaped yet: SIGKILL is delivered at
        // once, the wait only covers the scheduler.
        let deadline = Instant::now() + Duration::from_secs(20);
        let dead = loop {
            let state = std::fs::read_to_string(&stat)
                .ok()
                .and_then(|s| s.rsplit(')').next().map(|r| r.trim().chars().next()))
                .flatten();
            if matches!(state, None | Some('Z') | Some('X')) {
                break true;
            }
            if Instant::now() > deadline {
                break false;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        std::fs::remove_dir_all(&dir).unwrap();
        if !dead && let Ok(p) = pid.trim().parse::<i32>() {
            // SAFETY: kill(2) of the `sleep` this test started, so a failure leaves nothing.
            unsafe {
                libc::kill(p, libc::SIGKILL);
            }
        }
        assert!(dead, "the engine's child {} still runs", pid.trim());
    }

    #[test]
    fn missing_program_is_a_clear_error() {
        let err = GtpClient::spawn("no-such-engine-akushu --gtp")
            .err()
            .unwrap();
        assert!(err.to_string().contains("not found"), "{err}");
    }

    /// A reply is waited for this long: far longer than a shell takes to answer even on a
    /// busy machine, since a late answer would read as a hang.
    const PATIENT: Duration = Duration::from_secs(30);

    #[test]
    fn talks_to_a_shell_engine() {
        // `cat` echoes the command: not GTP, so it is garbage.
        let mut c = GtpClient::spawn("cat").unwrap();
        let e = c.command("name", PATIENT).unwrap_err();
        assert!(matches!(e, GtpError::Garbage { .. }), "{e}");
        // A minimal engine written in sh: answers, refuses, then exits.
        let script = r#"while read -r c; do case "$c" in name) printf "= fake\n\n";; bad) printf "? nope\n\n";; *) exit 3;; esac; done"#;
        let mut c = GtpClient::spawn(&format!("sh -c '{script}'")).unwrap();
        assert_eq!(c.command("name", PATIENT).unwrap(), "fake");
        let e = c.command("bad", PATIENT).unwrap_err();
        assert!(matches!(e, GtpError::Refused { .. }), "{e}");
        let e = c.command("boom", PATIENT).unwrap_err();
        assert!(matches!(e, GtpError::Crashed { .. }), "{e}");
    }
}
