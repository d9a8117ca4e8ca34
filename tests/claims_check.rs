//! `scripts/check-claims.py`, the rule that every results-table row in the docs (a table with
//! a `record` column) names a committed record: the repository's own docs pass it, and a
//! fixture docs tree (`tests/fixtures/claims/`) with a row that names no record and one whose
//! record is not committed fails it, naming those two rows and no other.
//!
//! Needs python3; without it a test says why and skips, unless `AKUSHU_REQUIRE_PYTHON`
//! makes that a failure.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

const SCRIPT: &str = "scripts/check-claims.py";
const FIXTURE: &str = "tests/fixtures/claims";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The script run with `--root docs_root`: its output (stdout, then stderr).
fn check(docs_root: &Path) -> (Output, String) {
    let out = Command::new("python3")
        .arg(root().join(SCRIPT))
        .arg("--root")
        .arg(docs_root)
        .output()
        .expect("python3 runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out, text)
}

/// `file:line` of the fixture row whose first cell is `first`, read from the fixture itself.
fn row_location(file: &str, first: &str) -> String {
    let text = std::fs::read_to_string(root().join(FIXTURE).join(file)).unwrap();
    let prefix = format!("| {first} |");
    let line = text
        .lines()
        .position(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("{FIXTURE}/{file} has no row {first:?}"));
    format!("{file}:{}:", line + 1)
}

#[test]
fn the_repository_docs_name_a_committed_record_in_every_results_row() {
    if !common::python3("the claims check") {
        return;
    }
    let (out, text) = check(&root());
    assert!(
        out.status.success(),
        "{SCRIPT} failed on the repository:\n{text}"
    );
    // Not vacuous: the docs hold results tables, and the script counted their rows.
    let rows: usize = text
        .split_whitespace()
        .nth(1)
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("no row count in {text:?}"));
    assert!(rows > 0, "no results-table row checked:\n{text}");
}

#[test]
fn a_fixture_row_without_a_committed_record_fails_by_name() {
    if !common::python3("the claims check") {
        return;
    }
    let (out, text) = check(&root().join(FIXTURE));
    assert_eq!(out.status.code(), Some(1), "expected exit 1:\n{text}");
    let no_record = row_location("README.md", "C against D, no record");
    let missing = row_location("README.md", "E against F, record missing");
    for (location, why) in [
        (
            &no_record,
            "names no committed record; figures: 20, 11, 20, 0.550",
        ),
        (&missing, "not committed: report/runs/not-committed"),
    ] {
        assert!(
            text.lines()
                .any(|l| l.starts_with(location.as_str()) && l.contains(why)),
            "no line {location} ... {why} in:\n{text}"
        );
    }
    // The rows with a committed record (a backticked folder, a link relative to its
    // document, a command's path), the reference table and the fenced example pass.
    let failing: Vec<&str> = text.lines().filter(|l| l.contains(".md:")).collect();
    assert_eq!(failing.len(), 2, "exactly two rows fail:\n{text}");
    assert!(
        text.contains("2 of 5 results-table rows"),
        "summary line:\n{text}"
    );
}

#[test]
fn a_missing_root_is_a_usage_error() {
    if !common::python3("the claims check") {
        return;
    }
    let (out, text) = check(&root().join("tests/fixtures/claims/no-such-folder"));
    assert_eq!(out.status.code(), Some(2), "expected exit 2:\n{text}");
    assert!(text.contains("not a directory"), "{text}");
}

/// A packed games folder's games count as committed where its `sgf.tar.xz` holds them
/// (`akushu runs pack`): a row naming a game of the archive or its `sgf/` folder passes, a
/// row naming a game the archive lacks fails.
#[test]
fn games_of_a_packed_folder_count_where_its_archive_holds_them() {
    if !common::python3("the claims check") {
        return;
    }
    let dir = common::scratch("claims", "packed");
    let run = dir.join("report/runs/x");
    std::fs::create_dir_all(run.join("sgf")).unwrap();
    std::fs::write(run.join("sgf/game-00001.sgf"), "(;SZ[9];B[ee])").unwrap();
    let (ok, text) = common::akushu(&["runs", "pack", &common::s(&run)]);
    assert!(ok, "{text}");
    std::fs::write(
        dir.join("README.md"),
        "| match | score | record |\n|---|---|---|\n\
         | A against B | 1 | `report/runs/x/sgf/game-00001.sgf` |\n\
         | A's games | 1 | `report/runs/x/sgf/` |\n\
         | C against D | 2 | `report/runs/x/sgf/game-00009.sgf` |\n",
    )
    .unwrap();
    let (out, text) = check(&dir);
    assert_eq!(out.status.code(), Some(1), "expected exit 1:\n{text}");
    assert!(
        text.contains("README.md:5: row 'C against D'")
            && text.contains("1 of 3 results-table rows"),
        "{text}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}
