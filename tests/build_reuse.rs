//! `cargo build --release` and `cargo test --release` share one build of the dependencies:
//! a dev-dependency that turns on a feature of a normal dependency (criterion does this to
//! `either`, `regex` and `ciborium`, which burn sits above) makes the test build compile
//! burn a second time. Cargo.toml names those features among the normal dependencies; this
//! test keeps the two feature sets equal as dependencies change.

use std::collections::BTreeMap;
use std::process::Command;

/// Each package of the build graph with the features cargo resolves for it, from
/// `cargo tree` over the given edge kinds.
fn resolved_features(edges: &str) -> BTreeMap<String, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["tree", "--offline", "--prefix", "none", "-e", edges])
        .args(["-f", "{p}|{f}", "--manifest-path"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let (package, features) = l.trim_end_matches(" (*)").split_once('|')?;
            Some((package.trim().to_string(), features.trim().to_string()))
        })
        .collect()
}

#[test]
fn the_test_build_resolves_the_release_builds_features() {
    let build = resolved_features("normal,build");
    let test = resolved_features("normal,build,dev");
    assert!(build.keys().any(|p| p.starts_with("burn ")), "{build:?}");
    let differ: Vec<String> = build
        .iter()
        .filter(|(p, f)| test.get(*p) != Some(f))
        .map(|(p, f)| format!("{p}: build [{f}], test [{}]", test[p]))
        .collect();
    assert!(
        differ.is_empty(),
        "features that differ rebuild these and everything above them under `cargo test`; \
         name the test build's features in Cargo.toml's [dependencies]:\n{}",
        differ.join("\n")
    );
}
