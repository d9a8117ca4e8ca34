//! Helpers shared by the integration tests.
//!
//! Every test that needs something outside the crate (the shared game records, GNU Go,
//! Slurm, Node) reads one switch, `AKUSHU_REQUIRE_<WHAT>`, through [`required`]: set, the
//! thing's absence fails the test; unset, the test says why and skips.

// Each test binary uses its own part of these helpers.
#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Whether `AKUSHU_REQUIRE_<what>` is on: `1`, `true` or `yes` (any case) turn it on;
/// unset, empty, `0`, `false` or `no` leave it off. Any other value fails the test that
/// reads it, so a misspelt switch cannot pass as off.
pub fn required(what: &str) -> bool {
    let name = format!("AKUSHU_REQUIRE_{what}");
    match std::env::var(&name) {
        Err(std::env::VarError::NotPresent) => false,
        Ok(v) => match v.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" => true,
            "" | "0" | "false" | "no" => false,
            other => panic!("{name}={other}: expected 1, true or yes (on), 0, false or no (off)"),
        },
        Err(e) => panic!("{name}: {e}"),
    }
}

/// A test's way out when `why` keeps it from running: a failure naming `fix` when
/// `AKUSHU_REQUIRE_<what>` is on, else a note on stderr (the caller then returns).
pub fn skip_or_fail(what: &str, test: &str, why: &str, fix: &str) {
    if required(what) {
        panic!("{test}: {why}, and AKUSHU_REQUIRE_{what} is on ({fix})");
    }
    eprintln!("skipping {test}: {why} ({fix}; AKUSHU_REQUIRE_{what}=1 makes this a failure)");
}

/// Whether python3 runs (the scripted teachers); when it does not, `test` is skipped, or
/// fails with `AKUSHU_REQUIRE_PYTHON` on.
pub fn python3(test: &str) -> bool {
    python_can(
        &["--version"],
        test,
        "python3 is not available",
        "apt-get install python3",
    )
}

/// Whether python3 can import numpy (the Python scripts' tests); when it cannot, `test` is
/// skipped, or fails with `AKUSHU_REQUIRE_PYTHON` on.
pub fn python_with_numpy(test: &str) -> bool {
    python_can(
        &["-c", "import numpy"],
        test,
        "python3 with numpy is not available",
        "sh scripts/install-python.sh",
    )
}

/// Whether python3 with `args` succeeds; when not, `test` is skipped or fails as
/// [`skip_or_fail`] says, with `why` and `fix`.
fn python_can(args: &[&str], test: &str, why: &str, fix: &str) -> bool {
    let ok = Command::new("python3")
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        skip_or_fail("PYTHON", test, why, fix);
    }
    ok
}

/// python3 run with `args`: its stdout; the test fails with its stderr when it fails.
pub fn python(args: &[&str]) -> String {
    let out = Command::new("python3").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "python3 {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A file of the shared game records beside the checkout (`../shared/data/NAME`), or `None`
/// (with a note) when it is absent; with `AKUSHU_REQUIRE_DATA` set, absence is a failure.
pub fn shared_data(name: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(name);
    if p.exists() {
        return Some(p);
    }
    skip_or_fail(
        "DATA",
        "this test",
        &format!("{} not found", p.display()),
        "the shared game records belong beside the checkout",
    );
    None
}

/// Runs the `akushu` binary with `args` and `env` (no backtraces); returns whether it
/// succeeded and its stdout followed by its stderr.
pub fn akushu_with(args: &[&str], env: &[(&str, &str)]) -> (bool, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_akushu"))
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// [`akushu_with`] without extra environment.
pub fn akushu(args: &[&str]) -> (bool, String) {
    akushu_with(args, &[])
}

/// A finished run of the binary: its exit code (none when a signal ended it) and output.
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn ok(&self) -> bool {
        self.code == Some(0)
    }
    /// Ended by itself with an error exit: not a signal (abort, stack overflow), not a panic.
    pub fn refused(&self) -> bool {
        matches!(self.code, Some(c) if c != 0 && c != 101) && !self.stderr.contains("panicked")
    }
}

/// Runs akushu with `stdin` and a time limit; a run past the limit is killed and fails the
/// test as a hang.
pub fn akushu_in(args: &[&str], stdin: &str, limit_s: u64) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_akushu"))
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let text = stdin.to_string();
    std::thread::spawn(move || {
        let _ = input.write_all(text.as_bytes());
    });
    let pid = child.id() as i32;
    let out = std::thread::spawn(move || child.wait_with_output());
    let deadline = Instant::now() + Duration::from_secs(limit_s);
    while !out.is_finished() {
        if Instant::now() >= deadline {
            // SAFETY: kill(2) on the child this test started and has not reaped.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
            panic!("hang: akushu {args:?} ran past {limit_s} s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = out.join().unwrap().unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A fresh scratch folder `akushu-{prefix}-{name}-{pid}` in the temporary directory.
pub fn scratch(prefix: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("akushu-{prefix}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A path as a command-line word.
pub fn s(p: &std::path::Path) -> String {
    p.display().to_string()
}
