//! Helpers shared by the integration tests.

use std::path::PathBuf;

/// A file of the shared game records beside the checkout (`../shared/data/NAME`), or `None`
/// (with a note) when it is absent; with `AKUSHU_REQUIRE_DATA` set, absence is a failure.
pub fn shared_data(name: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(name);
    if p.exists() {
        return Some(p);
    }
    if std::env::var_os("AKUSHU_REQUIRE_DATA").is_some() {
        panic!("{} is missing and AKUSHU_REQUIRE_DATA is set", p.display());
    }
    eprintln!("skipping: {} not found", p.display());
    None
}
