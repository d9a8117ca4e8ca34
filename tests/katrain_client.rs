//! `akushu analysis` driven by KaTrain's own engine client (`katrain.core.engine.KataGoEngine`
//! from the PyPI package, headless: `scripts/katrain_client.py`), as the GUI drives KataGo:
//! every position of a short game is analysed and stored in KaTrain's game nodes (visits,
//! score, win rate, candidates, 81 ownership values, 82 policy values), a long query sends
//! partial reports and is terminated, and shutting the engine down leaves no process.
//!
//! Needs KaTrain in a virtual environment (`sh scripts/install-katrain.sh`; the python is
//! $AKUSHU_KATRAIN_PYTHON, by default ~/.cache/akushu/katrain-venv/bin/python). Without it the
//! test says why and skips; with `AKUSHU_REQUIRE_KATRAIN` set (`.ci/run`) it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

fn katrain_python() -> Option<PathBuf> {
    let python = std::env::var_os("AKUSHU_KATRAIN_PYTHON")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .map(|h| PathBuf::from(h).join(".cache/akushu/katrain-venv/bin/python"))
        })?;
    let ok = Command::new(&python)
        .args(["-c", "import katrain"])
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some(python)
}

#[test]
#[ignore = "needs KaTrain (sh scripts/install-katrain.sh); run with --ignored"]
fn katrain_analyses_a_game_through_akushu_analysis() {
    let Some(python) = katrain_python() else {
        common::skip_or_fail(
            "KATRAIN",
            "the KaTrain client test",
            "no python with the katrain package",
            "sh scripts/install-katrain.sh",
        );
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/katrain_client.py");
    let out = Command::new(python)
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_akushu"))
        .args(["--engine", "uct:sims=1000", "--visits", "400"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let summary: serde_json::Value = serde_json::from_str(text.trim().lines().last().unwrap())
        .unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(summary["errors"], serde_json::json!([]), "{summary}");
    assert_eq!(summary["all_complete"], true, "{summary}");
    assert_eq!(summary["got_partial"], true, "partial reports: {summary}");
    assert_eq!(summary["terminated_and_idle"], true, "{summary}");
    assert_eq!(summary["engine_exited"], true, "{summary}");
    let nodes = summary["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 6, "the root and five moves");
    for node in nodes {
        assert_eq!(node["visits"], 400, "{node}");
        assert_eq!(node["ownership"], 81, "{node}");
        assert_eq!(node["policy"], 82, "{node}");
        let w = node["winrate"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&w), "{node}");
        assert!(node["score"].as_f64().unwrap().is_finite(), "{node}");
        // KaTrain keeps the engine's candidates (and folds each child's own analysis into
        // its parent's entry for the move played, so the order is KaTrain's, not ours).
        assert_eq!(node["candidates"].as_array().unwrap().len(), 5, "{node}");
    }
    // No engine is left behind (the client shut down its shell; the engine follows it).
    let left = Command::new("pgrep")
        .args(["-f", &format!("{} analysis", env!("CARGO_BIN_EXE_akushu"))])
        .output()
        .unwrap();
    assert!(
        left.stdout.is_empty(),
        "engines still running: {}",
        String::from_utf8_lossy(&left.stdout)
    );
}
