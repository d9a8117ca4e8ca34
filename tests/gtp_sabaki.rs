//! `akushu gtp` driven by @sabaki/gtp, the GTP library of the Sabaki GUI: a client akushu's
//! authors did not write parses the live analysis (`lz-analyze` stopped by the next
//! command), the handicap commands and the `printsgf`/`loadsgf` round trip
//! (tests/sabaki/analyze.js does the checks).
//!
//! Needs Node.js and npm; without them the test prints a skip line, unless
//! `AKUSHU_REQUIRE_NODE=1` is set (CI), which makes their absence a failure.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

/// The whole Node run (npm ci included) must finish within this.
const LIMIT: Duration = Duration::from_secs(300);

fn sabaki_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sabaki")
}

/// Whether `program --version` runs.
fn available(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs `cmd` in `dir`, killing it after the time left of `LIMIT`; panics on failure with
/// its output.
fn run(mut cmd: Command, what: &str, start: Instant) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "{what}: still running after {LIMIT:?}\n{}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{text}",
        out.status
    );
    print!("{text}");
}

#[test]
#[ignore = "needs Node.js and npm (sh scripts/install-node.sh): cargo test --release -- --ignored"]
fn sabaki_gtp_client_drives_analysis_handicap_and_sgf() {
    if !(available("node") && available("npm")) {
        common::skip_or_fail(
            "NODE",
            "sabaki_gtp_client_drives_analysis_handicap_and_sgf",
            "node or npm not found",
            "sh scripts/install-node.sh",
        );
        return;
    }
    let start = Instant::now();
    let dir = sabaki_dir();
    // An existing install is reused, so the test runs offline once `npm ci` has run.
    if !dir.join("node_modules/@sabaki/gtp/package.json").exists() {
        let mut npm = Command::new("npm");
        npm.args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&dir);
        run(npm, "npm ci in tests/sabaki", start);
    }
    let mut node = Command::new("node");
    node.arg("analyze.js")
        .arg(env!("CARGO_BIN_EXE_akushu"))
        .current_dir(&dir);
    run(node, "node analyze.js", start);
}
